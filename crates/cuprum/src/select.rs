//! Selection with boolean masks: `a.mask(&m)` (NumPy's `a[m]`), masked assignment,
//! `compress`, `extract`, `nonzero`, `flatnonzero`, `argwhere`. On the GPU a mask is scanned
//! (one pass) and the selected rows are moved in one kernel; only the count comes back to the
//! host, to size the result.

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::layout::normalize_axis;
use crate::slice::SliceElem;

/// The mask as a C-contiguous bool vector, and how many elements of `a` each entry selects.
fn mask_rows(a: &Array, m: &Array) -> Result<(Array, usize)> {
    crate::ops::same_device("mask", a, m)?;
    if m.dtype() != DType::Bool {
        return Err(Error::InvalidArgument(format!("a mask must be a bool array, not {}", m.dtype())));
    }
    let k = m.ndim();
    if k > a.ndim() || m.shape() != &a.shape()[..k] {
        return Err(Error::ShapeMismatch { op: "boolean index".into(), a: a.shape().to_vec(), b: m.shape().to_vec() });
    }
    let row: usize = a.shape()[k..].iter().product();
    Ok((m.as_contiguous()?.reshape(&[m.size()])?, row))
}

/// The inclusive scan of a mask (GPU only) and the number of selected entries.
fn scan_count(m: &Array) -> Result<(Option<Array>, usize)> {
    if m.device().is_cpu() {
        return Ok((None, m.count_nonzero(None)?.item::<i64>()? as usize));
    }
    if m.size() == 0 {
        return Ok((None, 0));
    }
    let pos = m.cumsum(None)?;
    let count = pos.slice([SliceElem::Index(-1)])?.item::<i64>()? as usize;
    Ok((Some(pos), count))
}

impl Array {
    /// NumPy's `a[m]` for a boolean `m` whose shape is the leading part of `a`'s: a new
    /// array of shape `(count, *a.shape[m.ndim:])` with the selected elements in C order.
    pub fn mask(&self, m: &Array) -> Result<Array> {
        let (mf, row) = mask_rows(self, m)?;
        let x = self.as_contiguous()?;
        let (pos, count) = scan_count(&mf)?;
        let mut shape = vec![count];
        shape.extend_from_slice(&self.shape()[m.ndim()..]);
        let out = Array::alloc(&shape, self.dtype(), self.device(), false)?;
        if count > 0 {
            match (self.device(), pos) {
                (Device::Cpu, _) => crate::cpu::kernels::compact(&x, &mf, &out, row, false)?,
                (Device::Cuda(_), Some(pos)) => crate::cuda::ops::compact(&x, &mf, &pos, &out, row, false)?,
                (Device::Cuda(_), None) => {}
            }
        }
        Ok(out)
    }

    /// NumPy's `a[m] = values`: `values` (one row per selected entry, broadcast to
    /// `(count, *rest)`) is written to the selected places, in order.
    pub fn mask_assign(&mut self, m: &Array, values: &Array) -> Result<()> {
        crate::ops::same_device("mask_assign", self, values)?;
        let (mf, row) = mask_rows(self, m)?;
        let (pos, count) = scan_count(&mf)?;
        let mut shape = vec![count];
        shape.extend_from_slice(&self.shape()[m.ndim()..]);
        let packed = values.broadcast_to(&shape)?.astype(self.dtype())?;
        if count == 0 {
            return Ok(());
        }
        // Work on a contiguous copy if this array is a non-contiguous view, then write back.
        let target = if self.is_c_contiguous() { self.view() } else { self.copy()? };
        match (self.device(), pos) {
            (Device::Cpu, _) => crate::cpu::kernels::compact(&target, &mf, &packed, row, true)?,
            (Device::Cuda(_), Some(pos)) => crate::cuda::ops::compact(&target, &mf, &pos, &packed, row, true)?,
            (Device::Cuda(_), None) => {}
        }
        if !target.shares_storage(self) {
            self.assign(&target)?;
        }
        Ok(())
    }

    /// NumPy's `a[m] = value` for a scalar.
    pub fn mask_fill(&mut self, m: &Array, value: impl Into<Scalar>) -> Result<()> {
        let v = crate::full(&[], value, self.dtype(), &self.device())?;
        self.mask_assign(m, &v)
    }
}

/// NumPy's `extract(condition, a)`: the elements of `a` (flattened) where `condition` is
/// non-zero.
pub fn extract(condition: &Array, a: &Array) -> Result<Array> {
    let c = condition.ravel()?;
    let c = if c.dtype() == DType::Bool { c } else { c.not_equal(0)? };
    a.ravel()?.mask(&c)
}

/// NumPy's `flatnonzero`: indices of the non-zero elements of the flattened array (int64).
pub fn flatnonzero(a: &Array) -> Result<Array> {
    let idx = crate::arange(a.size() as i64, &a.device())?;
    extract(a, &idx)
}

/// NumPy's `nonzero`: one int64 index array per axis.
pub fn nonzero(a: &Array) -> Result<Vec<Array>> {
    if a.ndim() == 0 {
        return Err(Error::InvalidArgument("nonzero of a 0-d array: use atleast_1d first (NumPy 2 raises)".into()));
    }
    let flat = flatnonzero(a)?;
    let mut out = Vec::with_capacity(a.ndim());
    let mut stride: i64 = a.size() as i64;
    for &d in a.shape() {
        stride /= d.max(1) as i64;
        out.push(flat.floor_divide(stride.max(1))?.remainder(d.max(1) as i64)?);
    }
    Ok(out)
}

/// NumPy's `argwhere`: the indices of the non-zero elements, shape `(count, ndim)`.
pub fn argwhere(a: &Array) -> Result<Array> {
    if a.ndim() == 0 {
        let n = (a.count_nonzero(None)?.item::<i64>()?) as usize;
        return crate::zeros(&[n, 0], DType::Int64, &a.device());
    }
    let idx = nonzero(a)?;
    crate::stack(&idx.iter().collect::<Vec<_>>(), 1)
}

/// NumPy's `compress(condition, a, axis)`: the slices along `axis` (the flattened array for
/// `None`) where the 1-d `condition` is true; `condition` may be shorter than the axis.
pub fn compress(condition: &Array, a: &Array, axis: Option<isize>) -> Result<Array> {
    let Some(ax) = axis else {
        return compress(condition, &a.ravel()?, Some(0));
    };
    let ax = normalize_axis(ax, a.ndim())?;
    if condition.ndim() != 1 {
        return Err(Error::InvalidArgument("condition must be a 1-d array".into()));
    }
    let n = a.shape()[ax];
    if condition.size() > n {
        return Err(Error::IndexOutOfRange { index: condition.size() as isize - 1, axis: ax, len: n });
    }
    // The condition is short (one entry per slice): select on the host, move on the device.
    let keep = condition.to_device(&Device::Cpu)?.to_vec_as::<bool>()?;
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < keep.len() {
        if !keep[i] {
            i += 1;
            continue;
        }
        let s = i;
        while i < keep.len() && keep[i] {
            i += 1;
        }
        let mut ix = vec![SliceElem::Slice { start: None, end: None, step: 1 }; a.ndim()];
        ix[ax] = SliceElem::Slice { start: Some(s as isize), end: Some(i as isize), step: 1 };
        pieces.push(a.slice(ix)?);
    }
    if pieces.is_empty() {
        let mut shape = a.shape().to_vec();
        shape[ax] = 0;
        return crate::empty(&shape, a.dtype(), &a.device());
    }
    crate::concatenate(&pieces.iter().collect::<Vec<_>>(), ax as isize)
}

impl Array {
    /// NumPy's `a.compress(condition, axis)`.
    pub fn compress(&self, condition: &Array, axis: Option<isize>) -> Result<Array> {
        compress(condition, self, axis)
    }
    /// NumPy's `a.nonzero()`.
    pub fn nonzero(&self) -> Result<Vec<Array>> {
        nonzero(self)
    }
}
