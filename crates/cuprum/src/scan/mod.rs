//! Cumulative sums and products (`cumsum`, `cumprod`) with NumPy's accumulator dtypes.

mod cpu;
pub(crate) mod cuda;

use crate::array::Array;
use crate::core::device::Device;
use crate::core::error::Result;
use crate::core::layout::normalize_axis;
use crate::core::layout::Axes;

/// Which scan.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ScanOp {
    Sum,
    Prod,
}

fn scan(op: ScanOp, a: &Array, axis: Option<isize>) -> Result<Array> {
    let (a, axis) = match axis {
        None => (a.ravel()?, 0usize),
        Some(ax) => (a.view(), normalize_axis(ax, a.ndim())?),
    };
    if a.ndim() == 0 {
        return scan(op, &a.reshape([1])?, Some(0));
    }
    if op == ScanOp::Sum && a.dtype().is_complex() {
        // The running sums of the parts (each the float scan of its part, as NumPy adds the
        // parts apart), on either device.
        let re = scan(op, &a.real(), Some(axis as isize))?;
        let im = scan(op, &a.imag()?, Some(axis as isize))?;
        return crate::ufunc::complex::from_parts(&re, &im);
    }
    let out_dt = a.dtype().sum_dtype();
    // Lanes along the last axis, contiguous.
    let last = a.ndim() - 1;
    let x = if axis == last { a.view() } else { a.moveaxis(axis as isize, -1)? };
    let x = x.as_contiguous()?;
    let y = Array::alloc(x.shape(), out_dt, x.device(), false)?;
    if y.size() > 0 {
        match y.device() {
            Device::Cpu => cpu::scan(op, &x, &y)?,
            Device::Cuda(_) => cuda::scan(op, &x, &y)?,
        }
    }
    if axis == last {
        return Ok(y);
    }
    y.moveaxis(-1, axis as isize)?.as_contiguous()
}

/// NumPy's `cumsum(a, axis)`: `None` scans the flattened array; one axis at most ([`Axes`]). Integers accumulate in
/// int64/uint64, floats in their own dtype.
///
/// ```
/// use cuprum::DType;
/// let dev = cuprum::Device::default_device();
/// assert_eq!(cuprum::cumsum(&cuprum::from_vec(vec![1i64, 2, 3, 4], &dev)?, None)?.to_vec::<i64>()?, vec![1, 3, 6, 10]);
/// let small = cuprum::ones(&[2, 2], DType::Int8, &dev)?;
/// assert_eq!(small.cumsum(0)?.dtype(), DType::Int64); // NumPy's accumulator dtype
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn cumsum(a: &Array, axis: impl Into<Axes>) -> Result<Array> {
    scan(ScanOp::Sum, a, axis.into().single()?)
}

/// NumPy's `cumprod(a, axis)`.
pub fn cumprod(a: &Array, axis: impl Into<Axes>) -> Result<Array> {
    scan(ScanOp::Prod, a, axis.into().single()?)
}

impl Array {
    /// NumPy's `cumsum`.
    pub fn cumsum(&self, axis: impl Into<Axes>) -> Result<Array> {
        cumsum(self, axis)
    }
    /// NumPy's `cumprod`.
    pub fn cumprod(&self, axis: impl Into<Axes>) -> Result<Array> {
        cumprod(self, axis)
    }
}
