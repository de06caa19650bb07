//! Selection with boolean masks: `a.mask(&m)` (NumPy's `a[m]`), masked assignment,
//! `compress`, `extract`, `nonzero`, `flatnonzero`, `argwhere`.
//!
//! The selected rows, or indices, go into a buffer with room for every row, by the CPU
//! (`cpu.rs`) or the CUDA (`cuda.rs`: one kernel, tiles ranked in one pass with decoupled
//! look-back) `compact`/`coords` of the same signature; on a GPU only the count (8 bytes)
//! comes back to the host, to size the result, which is a view of the buffer's first rows (a
//! copy when that would leave most of a large buffer held).

mod cpu;
pub(crate) mod cuda;

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;
use crate::core::layout::Axes;
use crate::core::slice::SliceElem;
use crate::ufunc::Input;

/// The mask as a C-contiguous bool vector, and how many elements of `a` each entry selects.
fn mask_rows(a: &Array, m: &Array) -> Result<(Array, usize)> {
    crate::array::same_device("mask", a, m)?;
    if m.dtype() != DType::Bool {
        return Err(Error::Index(format!("a mask must be a bool array, not {}", m.dtype())));
    }
    let k = m.ndim();
    // A mask axis of length 0 matches an axis of any length and selects nothing (NumPy; the Array API
    // allows it): such a mask is all false.
    if k > a.ndim() || m.shape().iter().zip(a.shape()).any(|(&mi, &ai)| mi != ai && mi != 0) {
        return Err(Error::Index(format!(
            "boolean index did not match indexed array: shapes {} (array) and {} (index)",
            crate::core::error::shape_str(a.shape()),
            crate::core::error::shape_str(m.shape())
        )));
    }
    let row: usize = a.shape()[k..].iter().product();
    if m.shape() != &a.shape()[..k] {
        let none = crate::creation::zeros(&a.shape()[..k], DType::Bool, &m.device())?;
        return Ok((none.reshape([none.size()])?, row));
    }
    Ok((m.as_contiguous()?.reshape([m.size()])?, row))
}

/// The number of selected rows: known at once on the CPU, in device memory until read on a
/// GPU.
pub(crate) enum Count {
    Known(usize),
    Device(cuda::PendingCount),
}

impl Count {
    /// The count (on a GPU: waits for the kernel and reads 8 bytes).
    fn read(self) -> Result<usize> {
        match self {
            Count::Known(c) => Ok(c),
            Count::Device(p) => p.read(),
        }
    }
}

/// The number of non-zero entries of `m`.
fn count(m: &Array) -> Result<usize> {
    Ok(m.count_nonzero(None)?.item::<i64>()? as usize)
}

/// Worst-case result buffers up to this size are kept whole behind the view of their used part.
const KEEP_BYTES: usize = 1 << 20;

/// Index outputs (8 bytes per coordinate) are allocated for the worst case up to this size;
/// above it the non-zero elements are counted first (one reduction) and the buffer is exact.
const INDEX_WORST_BYTES: usize = 64 << 20;

/// `v`, a view of the used part (`used` of `cap` entries) of the worst-case buffer `buf`, or a
/// copy of it when more than three quarters of a large buffer would stay held by the view.
fn keep_or_copy(buf: &Array, v: Array, used: usize, cap: usize) -> Result<Array> {
    if buf.nbytes() > KEEP_BYTES && used.saturating_mul(4) < cap {
        v.copy()
    } else {
        Ok(v)
    }
}

/// The first `used` elements of the 1-d worst-case buffer `buf` (see [`keep_or_copy`]).
fn first(buf: &Array, used: usize) -> Result<Array> {
    let v = buf.slice([SliceElem::Slice { start: Some(0), end: Some(used as isize), step: 1 }])?;
    keep_or_copy(buf, v, used, buf.size())
}

/// The rows (of `row` elements) of the C-contiguous `x` whose entry of the contiguous 1-d
/// `flags` (any dtype; non-zero selects) is set, as shape `(count, *rest)`.
fn select_rows(x: &Array, flags: &Array, row: usize, rest: &[usize]) -> Result<Array> {
    let n = flags.size();
    let shape = |count: usize| [&[count][..], rest].concat();
    if n == 0 || row == 0 {
        let c = if n == 0 { 0 } else { count(flags)? };
        return Array::alloc(&shape(c), x.dtype(), x.device(), false);
    }
    let buf = Array::alloc(&[n * row], x.dtype(), x.device(), false)?;
    let c = match x.device() {
        Device::Cpu => cpu::compact(x, flags, &buf, row)?,
        Device::Cuda(_) => cuda::compact(x, flags, &buf, row)?,
    };
    let c = c.read()?;
    first(&buf, c * row)?.reshape(shape(c))
}

/// The indices of the non-zero elements of `a` (int64): the flat index (`flat`, shape
/// `(1, count)`), else one row per axis (`(ndim, count)`, `nonzero`'s layout) or one row per
/// element (`argwhere`: `(count, ndim)`). `a.ndim()` is at most `MAX_COORD_DIMS` unless `flat`.
fn indices(a: &Array, flat: bool, by_element: bool) -> Result<Array> {
    let x = a.as_contiguous()?;
    let n = x.size();
    let nd = if flat { 1 } else { a.ndim() };
    let dev = a.device();
    let shaped = |count: usize| if by_element { [count, nd] } else { [nd, count] };
    let worst = n.saturating_mul(8 * nd);
    let counted = worst > INDEX_WORST_BYTES;
    let cap = if counted { count(&x)? } else { n };
    if cap == 0 {
        return Array::alloc(&shaped(0), DType::Int64, dev, false);
    }
    let buf = Array::alloc(&[cap * nd], DType::Int64, dev, false)?;
    let (sj, sd) = if by_element { (nd as i64, 1) } else { (1, cap as i64) };
    let pending = match dev {
        Device::Cpu => cpu::coords(&x, &buf, flat, sj, sd)?,
        Device::Cuda(_) => cuda::coords(&x, &buf, flat, sj, sd)?,
    };
    // Counted first: the buffer is exact and nothing needs to come back.
    let c = if counted { cap } else { pending.read()? };
    if by_element {
        return first(&buf, c * nd)?.reshape(shaped(c));
    }
    let rows = buf.reshape([nd, cap])?;
    let v = rows.slice([
        SliceElem::Slice { start: None, end: None, step: 1 },
        SliceElem::Slice { start: Some(0), end: Some(c as isize), step: 1 },
    ])?;
    keep_or_copy(&buf, v, c, cap)
}

impl Array {
    /// NumPy's `a[m]` for a boolean `m` whose shape is the leading part of `a`'s: a new
    /// array of shape `(count, *a.shape[m.ndim:])` with the selected elements in C order.
    ///
    /// ```
    /// let dev = cuprum::Device::default_device();
    /// let m = cuprum::arange(12, &dev)?.reshape([3, 4])?;
    /// let sel = m.mask(&m.remainder(5)?.equal(0)?)?; // m[m % 5 == 0]
    /// assert_eq!(sel.to_vec::<i64>()?, vec![0, 5, 10]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn mask(&self, m: &Array) -> Result<Array> {
        let (mf, row) = mask_rows(self, m)?;
        let x = self.as_contiguous()?;
        select_rows(&x, &mf, row, &self.shape()[m.ndim()..])
    }

    /// NumPy's `a[m] = values`: `values` (one row per selected entry, broadcast to
    /// `(count, *rest)`) is written to the selected places, in order.
    pub fn mask_assign(&mut self, m: &Array, values: &Array) -> Result<()> {
        crate::array::same_device("mask_assign", self, values)?;
        let (mf, row) = mask_rows(self, m)?;
        let rest = self.shape()[m.ndim()..].to_vec();
        // `values` broadcast to `count` rows, with NumPy's messages when they do not fit.
        let fit = |c: usize| -> Result<Array> {
            let target = [&[c][..], &rest].concat();
            values.broadcast_to(&target).map_err(|e| {
                if e.kind() != crate::ErrorKind::ValueError {
                    return e;
                }
                let compact = |s: &[usize]| crate::core::error::shape_str(s).replace(' ', "");
                if !rest.is_empty() {
                    Error::Value(format!(
                        "shape mismatch: value array of shape {} could not be broadcast to indexing result of shape {}",
                        compact(values.shape()),
                        compact(&target)
                    ))
                } else if values.ndim() > 1 {
                    Error::Type(format!(
                        "NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, input has {} dimensions",
                        values.ndim()
                    ))
                } else {
                    Error::Value(format!(
                        "NumPy boolean array indexing assignment cannot assign {} input values to the {c} output values where the mask is true",
                        values.size()
                    ))
                }
            })
        };
        if m.shape() != &self.shape()[..m.ndim()] {
            // A mask axis of length 0 (against a longer one) selects nothing: the values must fit none.
            fit(0)?;
            return Ok(());
        }
        if values.ndim() <= rest.len() || (values.ndim() == rest.len() + 1 && values.shape()[0] == 1) {
            // The same row for every selected entry, whatever the count: one elementwise
            // `where` over the array (the mask broadcast along the rows), nothing read back.
            let one = [&[1][..], &rest].concat();
            let v = match values.broadcast_to(&one) {
                Ok(v) => v,
                // Rows that do not fit any count: NumPy's message names the count (read back
                // only here).
                Err(e) => return Err(fit(count(&mf)?).err().unwrap_or(e)),
            };
            let v = v.astype(self.dtype())?.reshape(&rest)?;
            let cshape = [m.shape(), &vec![1; rest.len()][..]].concat();
            let cond = m.reshape(&cshape)?;
            return crate::ufunc::where_into(&cond, &Input::Array(&v), &Input::Array(self), self);
        }
        let c = count(&mf)?;
        let packed = fit(c)?.astype(self.dtype())?;
        if c == 0 || row == 0 {
            return Ok(());
        }
        // Work on a contiguous copy if this array is a non-contiguous view, then write back.
        let target = if self.is_c_contiguous() { self.view() } else { self.copy()? };
        match self.device() {
            Device::Cpu => cpu::expand(&target, &mf, &packed, row)?,
            Device::Cuda(_) => cuda::expand(&target, &mf, &packed, row)?,
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
    // The kernels test non-zero themselves: no bool array in between.
    let c = condition.ravel()?;
    crate::array::same_device("extract", a, &c)?;
    let x = a.ravel()?.as_contiguous()?;
    if c.size() != x.size() {
        return Err(Error::Index(format!(
            "boolean index did not match indexed array: shapes {} (array) and {} (index)",
            crate::core::error::shape_str(x.shape()),
            crate::core::error::shape_str(c.shape())
        )));
    }
    select_rows(&x, &c.as_contiguous()?, 1, &[])
}

/// NumPy's `flatnonzero`: indices of the non-zero elements of the flattened array (int64).
pub fn flatnonzero(a: &Array) -> Result<Array> {
    let c = indices(a, true, false)?;
    let n = c.shape()[1];
    c.reshape([n])
}

/// NumPy's `nonzero`: one int64 index array per axis.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let m = cuprum::arange(12, &dev)?.reshape([3, 4])?;
/// let nz = cuprum::nonzero(&m.remainder(5)?.equal(0)?)?;
/// assert_eq!((nz[0].to_vec::<i64>()?, nz[1].to_vec::<i64>()?), (vec![0, 1, 2], vec![0, 1, 2]));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn nonzero(a: &Array) -> Result<Vec<Array>> {
    if a.ndim() == 0 {
        return Err(Error::InvalidArgument("nonzero of a 0-d array: use atleast_1d first (NumPy 2 raises)".into()));
    }
    if a.ndim() <= cuda::MAX_COORD_DIMS {
        let rows = indices(a, false, false)?;
        return (0..a.ndim()).map(|d| rows.slice([SliceElem::Index(d as isize)])).collect();
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
    if a.ndim() <= cuda::MAX_COORD_DIMS {
        return indices(a, false, true);
    }
    let idx = nonzero(a)?;
    crate::stack(&idx.iter().collect::<Vec<_>>(), 1)
}

/// NumPy's `compress(condition, a, axis)`: the slices along `axis` (the flattened array for
/// `None`) where the 1-d `condition` is true; `condition` may be shorter than the axis.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let m = cuprum::arange(12, &dev)?.reshape([3, 4])?;
/// let c = cuprum::compress(&cuprum::from_vec(vec![true, false, true], &dev)?, &m, 0)?;
/// assert_eq!((c.shape(), c.to_vec::<i64>()?), (&[2usize, 4][..], vec![0, 1, 2, 3, 8, 9, 10, 11]));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn compress(condition: &Array, a: &Array, axis: impl Into<Axes>) -> Result<Array> {
    let Some(ax) = axis.into().single()? else {
        return compress(condition, &a.ravel()?, 0);
    };
    let ax = normalize_axis(ax, a.ndim())?;
    if condition.ndim() != 1 {
        return Err(Error::InvalidArgument("condition must be a 1-d array".into()));
    }
    let n = a.shape()[ax];
    if condition.size() > n {
        return Err(Error::IndexOutOfRange { index: condition.size() as isize - 1, axis: ax, len: n });
    }
    crate::array::same_device("compress", condition, a)?;
    // The first len(condition) slices along `axis`, that axis moved first, selected as rows
    // by the condition (one selection kernel on a GPU), and the axis moved back.
    let c = condition.size();
    let keep = if condition.dtype() == DType::Bool { condition.view() } else { condition.not_equal(0)? };
    let mut ix = vec![SliceElem::Slice { start: None, end: None, step: 1 }; a.ndim()];
    ix[ax] = SliceElem::Slice { start: Some(0), end: Some(c as isize), step: 1 };
    let head = a.slice(ix)?;
    let moved = if ax == 0 { head } else { head.moveaxis(ax as isize, 0)? };
    let picked = moved.mask(&keep)?;
    if ax == 0 {
        Ok(picked)
    } else {
        picked.moveaxis(0, ax as isize)?.as_contiguous()
    }
}

impl Array {
    /// NumPy's `a.compress(condition, axis)`.
    pub fn compress(&self, condition: &Array, axis: impl Into<Axes>) -> Result<Array> {
        compress(condition, self, axis)
    }
    /// NumPy's `a.nonzero()`.
    pub fn nonzero(&self) -> Result<Vec<Array>> {
        nonzero(self)
    }
}
