//! The GPU side of the linalg dispatch (being written).
use super::cpu::QrMode;
use crate::array::Array;
use crate::core::error::{Error, Result};

fn todo(op: &str) -> Result<()> {
    Err(Error::NotImplemented(format!("{op} on a GPU")))
}
pub(crate) fn matmul(_a: &Array, _b: &Array, _o: &Array) -> Result<()> {
    todo("matmul")
}
pub(crate) fn slogdet(_a: &Array, _s: &Array, _l: &Array) -> Result<()> {
    todo("slogdet")
}
pub(crate) fn inv(_a: &Array, _o: &Array) -> Result<()> {
    todo("inv")
}
pub(crate) fn solve(_a: &Array, _b: &Array, _o: &Array) -> Result<()> {
    todo("solve")
}
pub(crate) fn cholesky(_a: &Array, _u: bool, _o: &Array) -> Result<()> {
    todo("cholesky")
}
pub(crate) fn qr(_a: &Array, _m: QrMode, _q: Option<&Array>, _r: &Array) -> Result<()> {
    todo("qr")
}
pub(crate) fn eigh(_a: &Array, _l: bool, _w: &Array, _v: Option<&Array>) -> Result<()> {
    todo("eigh")
}
pub(crate) fn eig(_a: &Array, _w: &Array, _v: Option<&Array>) -> Result<()> {
    todo("eig")
}
pub(crate) fn svd(_a: &Array, _f: bool, _u: Option<&Array>, _s: &Array, _v: Option<&Array>) -> Result<()> {
    todo("svd")
}
