//! Kernels of the `ModKey::Select` family.

/// Identity of one generated kernel of this family.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SelectKey {}

impl SelectKey {
    /// The kernel function's name.
    pub fn name(self) -> &'static str {
        match self {}
    }
    /// The module's CUDA C source.
    pub fn source(self) -> String {
        match self {}
    }
}
