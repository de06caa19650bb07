//! Kernels of the `ModKey::Index` family.

/// Identity of one generated kernel of this family.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum IndexKey {}

impl IndexKey {
    /// The kernel function's name.
    pub fn name(self) -> &'static str {
        match self {}
    }
    /// The module's CUDA C source.
    pub fn source(self) -> String {
        match self {}
    }
}
