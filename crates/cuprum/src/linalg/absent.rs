//! The CPU side of linalg in a build without the feature `cpu-linalg` (faer, on by default):
//! every CPU call is a [`NotImplemented`](crate::Error::NotImplemented) error that names the
//! feature; the GPU side is unchanged. The sky pipeline builds this way (it has no linear
//! algebra, and faer is a third of a cold build's time on two cores).

use crate::array::Array;
use crate::core::error::{Error, Result};
use crate::linalg::QrMode;

fn absent(op: &str) -> Result<()> {
    Err(Error::NotImplemented(format!(
        "{op} on the CPU: this build of cuprum has no CPU linear algebra (its feature `cpu-linalg`, \
         on by default, is off)"
    )))
}

pub(crate) fn matmul(_: &Array, _: &Array, _: &Array) -> Result<()> {
    absent("matmul")
}
pub(crate) fn matmul_exact(_: &Array, _: &Array, _: &Array) -> Result<()> {
    absent("matmul")
}
pub(crate) fn slogdet(_: &Array, _: &Array, _: &Array) -> Result<()> {
    absent("linalg.slogdet")
}
pub(crate) fn inv(_: &Array, _: &Array) -> Result<()> {
    absent("linalg.inv")
}
pub(crate) fn solve(_: &Array, _: &Array, _: &Array) -> Result<()> {
    absent("linalg.solve")
}
pub(crate) fn cholesky(_: &Array, _: bool, _: &Array) -> Result<()> {
    absent("linalg.cholesky")
}
pub(crate) fn qr(_: &Array, _: QrMode, _: Option<&Array>, _: &Array) -> Result<()> {
    absent("linalg.qr")
}
pub(crate) fn eigh(_: &Array, _: bool, _: &Array, _: Option<&Array>) -> Result<()> {
    absent("linalg.eigh")
}
pub(crate) fn eig(_: &Array, _: &Array, _: Option<&Array>) -> Result<()> {
    absent("linalg.eig")
}
pub(crate) fn svd(_: &Array, _: bool, _: Option<&Array>, _: &Array, _: Option<&Array>) -> Result<()> {
    absent("linalg.svd")
}
pub(crate) fn dot_1d(_: &Array, _: Option<&Array>, _: bool, _: &Array) -> Result<()> {
    absent("dot")
}
