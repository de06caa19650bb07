//! Sorting and searching with NumPy's semantics: `sort`, `argsort` (stable, NaNs last),
//! `searchsorted`, `partition`/`argpartition`, `lexsort`.
//!
//! The API prepares the lanes (the sorted axis moved last, C-contiguous) and calls the CPU
//! (`cpu.rs`) or the CUDA (`cuda.rs`: our LSD radix sort) `sort_lanes` of the same signature;
//! `searchsorted` likewise.

pub(crate) mod cpu;
pub(crate) mod cuda;

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;
use crate::core::layout::Axes;

/// The array with `axis` moved last (or flattened for `None`, 0-d as 1-d), and the axis.
pub(crate) fn lanes_last(a: &Array, axis: Option<isize>) -> Result<(Array, usize)> {
    let (a, ax) = match axis {
        None => (a.ravel()?, 0),
        Some(ax) => (a.view(), normalize_axis(ax, a.ndim().max(1))?),
    };
    let a = if a.ndim() == 0 { a.reshape([1])? } else { a };
    let moved = if ax + 1 == a.ndim() { a } else { a.moveaxis(ax as isize, -1)? };
    Ok((moved, ax))
}

/// Moves the last axis of `out` back to `ax`.
fn lanes_back(out: Array, ax: usize) -> Result<Array> {
    if ax + 1 == out.ndim() {
        Ok(out)
    } else {
        out.moveaxis(-1, ax as isize)?.as_contiguous()
    }
}

/// Sorts the contiguous lanes (last axis) of the C-contiguous `x` into `keys_out` and/or
/// `idx_out` (int64 indices within each lane), on `x`'s device. Stable.
pub(crate) fn sort_lanes(x: &Array, keys_out: Option<&Array>, idx_out: Option<&Array>) -> Result<()> {
    if x.dtype().is_complex() {
        return complex_lanes(x, keys_out, idx_out);
    }
    match x.device() {
        Device::Cpu => cpu::sort_lanes(x, keys_out, idx_out),
        Device::Cuda(_) => cuda::sort_lanes(x, keys_out, idx_out),
    }
}

/// [`sort_lanes`] of complex values in NumPy's order: finite values by real part, then
/// imaginary part; then those with a NaN imaginary part (by real part), those with a NaN real
/// part (by imaginary part), and those with both NaN. Three stable passes of the real sort, on
/// the same device: by imaginary part, by real part, by that NaN category.
fn complex_lanes(x: &Array, keys_out: Option<&Array>, idx_out: Option<&Array>) -> Result<()> {
    if x.ndim() == 0 {
        return complex_lanes(
            &x.reshape([1])?,
            keys_out.map(|k| k.reshape([1])).transpose()?.as_ref(),
            idx_out.map(|i| i.reshape([1])).transpose()?.as_ref(),
        );
    }
    let last = x.ndim() as isize - 1;
    let (re, im) = (x.real(), x.imag()?);
    let category = crate::isnan(&re)?
        .astype(DType::Int8)?
        .multiply(2i64)?
        .add(&crate::isnan(&im)?.astype(DType::Int8)?)?
        .astype(DType::Int8)?;
    // Each pass sorts the keys in the order so far, stably; the orders compose.
    let mut order: Option<Array> = None;
    for key in [im, re, category] {
        let k = match &order {
            Some(o) => crate::take_along_axis(&key, o, last)?,
            None => key.as_contiguous()?,
        };
        let o = Array::alloc(x.shape(), DType::Int64, x.device(), false)?;
        sort_lanes(&k, None, Some(&o))?;
        order = Some(match order {
            Some(prev) => crate::take_along_axis(&prev, &o, last)?,
            None => o,
        });
    }
    let order = order.expect("three passes");
    if let Some(k) = keys_out {
        crate::ufunc::assign(k, &crate::take_along_axis(x, &order, last)?)?;
    }
    if let Some(i) = idx_out {
        crate::ufunc::assign(i, &order)?;
    }
    Ok(())
}

/// The sorted keys and/or sorting indices of `a` along `axis`, with the axis back in place.
fn sorted(a: &Array, axis: Option<isize>, keys: bool, indices: bool) -> Result<(Option<Array>, Option<Array>)> {
    let (moved, ax) = lanes_last(a, axis)?;
    let x = moved.as_contiguous()?;
    let k = if keys { Some(Array::alloc(x.shape(), x.dtype(), x.device(), false)?) } else { None };
    let i = if indices { Some(Array::alloc(x.shape(), DType::Int64, x.device(), false)?) } else { None };
    sort_lanes(&x, k.as_ref(), i.as_ref())?;
    Ok((k.map(|k| lanes_back(k, ax)).transpose()?, i.map(|i| lanes_back(i, ax)).transpose()?))
}

/// NumPy's `sort(a, axis)` (stable; NaNs last; `None` sorts the flattened array). `axis` is
/// one axis or `None` ([`Axes`]); several are NumPy's `TypeError`.
///
/// On a GPU the order of -0.0 and +0.0 among themselves is not kept (they compare equal).
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::from_vec(vec![3.0, f64::NAN, 1.0, 2.0, 1.0], &dev)?;
/// let s = a.sort(None)?.to_vec::<f64>()?;
/// assert_eq!(&s[..4], &[1.0, 1.0, 2.0, 3.0]);
/// assert!(s[4].is_nan()); // NaNs last, as in NumPy
/// assert_eq!(a.argsort(None)?.to_vec::<i64>()?, vec![2, 4, 3, 0, 1]); // stable
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn sort(a: &Array, axis: impl Into<Axes>) -> Result<Array> {
    let axis = axis.into().single()?;
    if let (0, Some(ax)) = (a.ndim(), axis) {
        // NumPy: a 0-d array has no axis to sort along (argsort, though, accepts it).
        return Err(Error::AxisOutOfRange { axis: ax, ndim: 0 });
    }
    Ok(sorted(a, axis, true, false)?.0.expect("keys asked for"))
}

/// NumPy's `argsort(a, axis, kind="stable")`: int64 indices that sort each lane.
pub fn argsort(a: &Array, axis: impl Into<Axes>) -> Result<Array> {
    Ok(sorted(a, axis.into().single()?, false, true)?.1.expect("indices asked for"))
}

/// Which side of equal elements [`searchsorted`] returns.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

/// NumPy's `searchsorted(a, v, side)`: insertion indices (int64, shape of `v`) keeping the
/// sorted 1-d `a` sorted.
///
/// ```
/// use cuprum::Side;
/// let dev = cuprum::Device::default_device();
/// let (a, v) = (cuprum::from_vec(vec![1i64, 2, 2, 4], &dev)?, cuprum::from_vec(vec![2i64, 3], &dev)?);
/// assert_eq!(cuprum::searchsorted(&a, &v, Side::Left)?.to_vec::<i64>()?, vec![1, 3]);
/// assert_eq!(cuprum::searchsorted(&a, &v, Side::Right)?.to_vec::<i64>()?, vec![3, 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn searchsorted(a: &Array, v: &Array, side: Side) -> Result<Array> {
    crate::array::same_device("searchsorted", a, v)?;
    if a.ndim() != 1 {
        return Err(Error::InvalidArgument("searchsorted: the sorted array must be 1-d".into()));
    }
    // Compare in the promoted dtype: both sides cast (or used in place).
    let dt = crate::promote_types(a.dtype(), v.dtype());
    let in_dt = |x: &Array| if x.dtype() == dt && x.is_c_contiguous() { Ok(x.view()) } else { x.astype(dt) };
    let (s, q) = (in_dt(a)?, in_dt(v)?);
    if dt.is_complex() {
        return searchsorted_complex(&s, &q, side);
    }
    let out = Array::alloc(v.shape(), DType::Int64, a.device(), false)?;
    let right = side == Side::Right;
    match a.device() {
        Device::Cpu => cpu::searchsorted(&s, &q, right, &out)?,
        Device::Cuda(_) => cuda::searchsorted(&s, &q, right, &out)?,
    }
    Ok(out)
}

/// [`searchsorted`] of complex values in NumPy's order: one stable sort of `a` and `v` together
/// (the queries before the equal elements of `a` for `Left`, after them for `Right`), then each
/// query's count of elements of `a` sorted before it. The same answer as a binary search when
/// `a` is sorted, on `a`'s device.
fn searchsorted_complex(a: &Array, v: &Array, side: Side) -> Result<Array> {
    let dev = a.device();
    let (m, nv) = (a.size(), v.size());
    let vf = v.ravel()?;
    let (from_a, from_v) = (crate::ones(&[m], DType::Bool, &dev)?, crate::zeros(&[nv], DType::Bool, &dev)?);
    let (both, is_a, first_v) = match side {
        Side::Left => (crate::concatenate(&[&vf, a], 0)?, crate::concatenate(&[&from_v, &from_a], 0)?, 0),
        Side::Right => (crate::concatenate(&[a, &vf], 0)?, crate::concatenate(&[&from_a, &from_v], 0)?, m),
    };
    let order = crate::argsort(&both, None)?;
    let a_before = crate::cumsum(&crate::take(&is_a, &order, None)?, None)?;
    // Each query's place in the sorted sequence (the inverse permutation).
    let place = crate::argsort(&order, None)?.slice(crate::s![first_v as isize..(first_v + nv) as isize])?;
    crate::take(&a_before, &place, None)?.reshape(v.shape())
}

/// NumPy's `argpartition(a, kth, axis)`: indices that put the `kth` element of each lane in
/// its sorted place, smaller-or-equal ones before it and the others after (NaNs last).
pub fn argpartition(a: &Array, kth: isize, axis: impl Into<Axes>) -> Result<Array> {
    let axes = axis.into();
    let axis = axes.single()?;
    // A stable sort is a valid partition (NumPy only promises the partition property).
    let len = match axis {
        None => a.size(),
        Some(ax) => a.shape()[normalize_axis(ax, a.ndim())?],
    };
    let k = if kth < 0 { kth + len as isize } else { kth };
    if k < 0 || k >= len as isize {
        return Err(Error::Value(format!("kth(={kth}) out of bounds ({len})")));
    }
    crate::argsort(a, axes)
}

/// NumPy's `partition(a, kth, axis)`.
pub fn partition(a: &Array, kth: isize, axis: impl Into<Axes>) -> Result<Array> {
    let axes = axis.into();
    argpartition(a, kth, &axes)?;
    crate::sort(a, axes)
}

/// NumPy's `lexsort(keys)`: indices sorting by the last key, then the one before, ... (stable).
pub fn lexsort(keys: &[&Array]) -> Result<Array> {
    let first = keys.first().ok_or_else(|| Error::Type("need sequence of keys with len > 0 in lexsort".into()))?;
    if first.ndim() != 1 {
        return Err(Error::NotImplemented("lexsort of keys that are not 1-d arrays".into()));
    }
    let mut order = crate::arange(first.size() as i64, &first.device())?;
    // Stable sorts from the least significant key (the first) to the most significant.
    for k in keys {
        if k.shape() != first.shape() {
            return Err(Error::ShapeMismatch {
                op: "lexsort".into(),
                a: first.shape().to_vec(),
                b: k.shape().to_vec(),
            });
        }
        let permuted = crate::take(k, &order, None)?;
        let o = crate::argsort(&permuted, None)?;
        order = crate::take(&order, &o, None)?;
    }
    Ok(order)
}

impl Array {
    /// NumPy's `sort` (a sorted copy).
    pub fn sort(&self, axis: impl Into<Axes>) -> Result<Array> {
        sort(self, axis)
    }
    /// NumPy's `argsort` (stable).
    pub fn argsort(&self, axis: impl Into<Axes>) -> Result<Array> {
        argsort(self, axis)
    }
}
