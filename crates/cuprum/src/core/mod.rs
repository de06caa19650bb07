//! What every family shares: dtypes and promotion, the ufunc loop tables, layouts (strides,
//! broadcasting), `s!` slicing, devices and errors.

pub(crate) mod alloc;
pub(crate) mod device;
pub mod dtype;
pub(crate) mod error;
pub mod layout;
pub(crate) mod slice;
pub(crate) mod ufunc;
