//! Integer-array indexing with NumPy's semantics: `take` (with axis), `take_along_axis`,
//! `put`, advanced indexing on leading axes (`gather`: `a[i0, i1]`), scatter assignment and
//! NumPy's `add.at` (`scatter_add`).
//! Negative indices count from the end; out-of-range indices are errors (nothing is written).
//!
//! Each operation prepares its index arrays once and calls the CPU (`cpu.rs`) or the CUDA
//! (`cuda.rs`) kernel of the same signature. On a GPU:
//! rows move as raw words, index arrays of any integer dtype are read in place, and a bad index
//! is reported through a 16-byte record that the host reads back (the one wait of a call).
//! With repeated indices, `scatter` and `put` keep the last write as NumPy does (on a GPU a
//! first kernel finds the last row of each place by `atomicMax`); `scatter_add` adds them all
//! with atomics.

mod cpu;
pub(crate) mod cuda;

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;
use crate::core::layout::Axes;

/// Most index arrays one kernel takes (its parameters hold a pointer and a length each); more
/// are folded into one flat index first ([`fold_indices`]).
const MAX_K: usize = cuda::MAX_K;

/// Index arrays must hold integers (an empty array of any dtype is allowed, as in NumPy).
/// Another dtype is NumPy's IndexError of indexing.
fn check_index_dtype(idx: &Array) -> Result<()> {
    if idx.dtype().is_integer() || idx.size() == 0 {
        Ok(())
    } else {
        Err(Error::Index(format!("arrays used as indices must be of integer type, not {}", idx.dtype())))
    }
}

/// [`check_index_dtype`] for `take` and `put`, which cast their indices to an integer dtype
/// with the 'safe' rule: NumPy raises a TypeError there.
fn check_cast_index_dtype(op: &str, idx: &Array) -> Result<()> {
    check_index_dtype(idx).map_err(|_| {
        Error::Type(format!("{op}: cannot cast indices of dtype {} to int64 according to the rule 'safe'", idx.dtype()))
    })
}

/// Index arrays for a kernel: broadcast to `shape`, C-contiguous and of one integer dtype
/// (their own when they agree, else int64). Views are used as they are when possible.
fn launch_indices(indices: &[&Array], shape: &[usize]) -> Result<Vec<Array>> {
    let d0 = indices[0].dtype();
    let dt = if d0.is_integer() && indices.iter().all(|i| i.dtype() == d0) { d0 } else { DType::Int64 };
    indices
        .iter()
        .map(|i| {
            let b = i.broadcast_to(shape)?;
            if b.dtype() == dt && b.is_c_contiguous() {
                Ok(b)
            } else {
                b.astype(dt)
            }
        })
        .collect()
}

/// The error of an out-of-range index found by a GPU kernel.
fn out_of_range(index: i64, axis: usize, len: usize) -> Error {
    Error::IndexOutOfRange { index: index as isize, axis, len }
}

/// NumPy's `a[i0, i1, ..., ik-1]` with integer index arrays on the first `k` axes (they
/// broadcast together): shape `broadcast(i.shape) + a.shape[k:]`.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let m = cuprum::arange(12, &dev)?.reshape([3, 4])?;
/// let (r, c) = (cuprum::from_vec(vec![2i64, 0], &dev)?, cuprum::from_vec(vec![1i64, 3], &dev)?);
/// assert_eq!(cuprum::gather(&m, &[&r, &c])?.to_vec::<i64>()?, vec![9, 3]); // m[[2, 0], [1, 3]]
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn gather(a: &Array, indices: &[&Array]) -> Result<Array> {
    let bshape = broadcast_plan("gather", a, indices)?;
    let k = indices.len();
    if k > MAX_K {
        let (flat, rows_shape) = fold_indices(a, indices, &bshape)?;
        return gather(&a.as_contiguous()?.reshape(&rows_shape)?, &[&flat]);
    }
    let mut shape = bshape.clone();
    shape.extend_from_slice(&a.shape()[k..]);
    let row_bytes = a.shape()[k..].iter().product::<usize>() * a.itemsize();
    let lens = &a.shape()[..k];
    let idx = launch_indices(indices, &bshape)?;
    let refs: Vec<&Array> = idx.iter().collect();
    let src = a.as_contiguous()?;
    let out = Array::alloc(&shape, a.dtype(), a.device(), false)?;
    let nsrc: usize = lens.iter().product();
    let bad = match a.device() {
        Device::Cpu => cpu::gather(&src, &refs, lens, 1, nsrc, row_bytes, &out)?,
        Device::Cuda(_) => cuda::gather(&src, &refs, lens, 1, nsrc, row_bytes, &out)?,
    };
    match bad {
        Some((d, v)) => Err(out_of_range(v, d, lens[d])),
        None => Ok(out),
    }
}

/// More than [`MAX_K`] index arrays: checks them (in groups a kernel takes) and folds them
/// into one int64 array of flat positions over the leading axes, on `a`'s device; returns it
/// with the shape (positions, rest) to view `a` as.
fn fold_indices(a: &Array, indices: &[&Array], bshape: &[usize]) -> Result<(Array, Vec<usize>)> {
    let k = indices.len();
    let lens = &a.shape()[..k];
    let idx = launch_indices(indices, bshape)?;
    for (g, group) in idx.chunks(MAX_K).enumerate() {
        let refs: Vec<&Array> = group.iter().collect();
        let glens = &lens[g * MAX_K..g * MAX_K + refs.len()];
        let bad = match a.device() {
            Device::Cpu => cpu::check(&refs, glens)?,
            Device::Cuda(_) => cuda::check(&refs, glens)?,
        };
        if let Some((d, v)) = bad {
            return Err(out_of_range(v, g * MAX_K + d, lens[d + g * MAX_K]));
        }
    }
    let mut flat = crate::zeros(bshape, DType::Int64, &a.device())?;
    for (d, i) in idx.iter().enumerate() {
        let i = i.astype(DType::Int64)?;
        // In range (checked above): negative indices count from the end.
        let i = crate::where_(&i.less(0)?, &i.add(lens[d] as i64)?, &i)?;
        flat = flat.multiply(lens[d] as i64)?.add(&i)?;
    }
    let mut rows_shape = vec![lens.iter().product::<usize>()];
    rows_shape.extend_from_slice(&a.shape()[k..]);
    Ok((flat, rows_shape))
}

/// Checks index arrays for the first `k = indices.len()` axes of `a` (count, device, dtype)
/// and returns their broadcast shape.
fn broadcast_plan(op: &str, a: &Array, indices: &[&Array]) -> Result<Vec<usize>> {
    let k = indices.len();
    if k == 0 {
        return Err(Error::InvalidArgument(format!("{op}: no index arrays")));
    }
    if k > a.ndim() {
        return Err(Error::Index(format!(
            "{op}: too many indices for array: array is {}-dimensional, but {k} were indexed",
            a.ndim()
        )));
    }
    let mut bshape: Vec<usize> = indices[0].shape().to_vec();
    for i in indices {
        crate::array::same_device(op, a, i)?;
        check_index_dtype(i)?;
        bshape = crate::core::layout::broadcast_shapes(&bshape, i.shape()).ok_or_else(|| {
            Error::Index(format!(
                "shape mismatch: indexing arrays could not be broadcast together with shapes {} {}",
                crate::core::error::shape_str(&bshape),
                crate::core::error::shape_str(i.shape())
            ))
        })?;
    }
    Ok(bshape)
}

/// NumPy's `a[i0, ..., ik-1] = values` (values broadcast to the selection). With repeated
/// indices the last write wins, as in NumPy, on both devices.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let mut a = cuprum::zeros(&[4], cuprum::DType::Int32, &dev)?;
/// let i = cuprum::from_vec(vec![3i64, 0, 3], &dev)?;
/// cuprum::scatter(&mut a, &[&i], &cuprum::from_vec(vec![7i32, 8, 9], &dev)?)?; // a[i] = v
/// assert_eq!(a.to_vec::<i32>()?, vec![8, 0, 0, 9]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn scatter(a: &mut Array, indices: &[&Array], values: &Array) -> Result<()> {
    scatter_impl(a, indices, values, Write::LastWins)
}

/// [`scatter`] with indices known to be distinct (a permutation's): no search for the last
/// write of each place on a GPU.
pub(crate) fn scatter_distinct(a: &mut Array, indices: &[&Array], values: &Array) -> Result<()> {
    scatter_impl(a, indices, values, Write::Distinct)
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Write {
    LastWins,
    Distinct,
    Add,
}

/// NumPy's `np.add.at(a, (i0, ..., ik-1), values)`: unbuffered, so repeated indices add up
/// (for bool, a logical or). On a GPU with atomics: float sums may differ in rounding order.
///
/// ```
/// use cuprum::DType;
/// let dev = cuprum::Device::default_device();
/// let mut acc = cuprum::zeros(&[4], DType::Float64, &dev)?;
/// let i = cuprum::from_vec(vec![0i64, 1, 1, 3], &dev)?;
/// cuprum::scatter_add(&mut acc, &[&i], &cuprum::ones(&[4], DType::Float64, &dev)?)?; // np.add.at
/// assert_eq!(acc.to_vec::<f64>()?, vec![1.0, 2.0, 0.0, 1.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn scatter_add(a: &mut Array, indices: &[&Array], values: &Array) -> Result<()> {
    scatter_impl(a, indices, values, Write::Add)
}

/// The array to write in place: `a` itself when C-contiguous, else a contiguous copy (written
/// back by [`write_back`]).
fn write_target(a: &Array) -> Result<Array> {
    if a.is_c_contiguous() {
        Ok(a.view())
    } else {
        a.copy()
    }
}

fn write_back(a: &mut Array, target: &Array) -> Result<()> {
    if target.shares_storage(a) {
        Ok(())
    } else {
        a.assign(target)
    }
}

fn scatter_impl(a: &mut Array, indices: &[&Array], values: &Array, how: Write) -> Result<()> {
    crate::array::same_device("scatter", a, values)?;
    let bshape = broadcast_plan("scatter", a, indices)?;
    let k = indices.len();
    if k > MAX_K {
        let (flat, rows_shape) = fold_indices(a, indices, &bshape)?;
        let mut vshape = bshape.clone();
        vshape.extend_from_slice(&a.shape()[k..]);
        // Written in place when `a` is contiguous (a view of it), else in a copy written back.
        let target = write_target(a)?;
        scatter_impl(&mut target.reshape(&rows_shape)?, &[&flat], &values.broadcast_to(&vshape)?, how)?;
        return write_back(a, &target);
    }
    let row: usize = a.shape()[k..].iter().product();
    let mut vshape = bshape.clone();
    vshape.extend_from_slice(&a.shape()[k..]);
    // A fresh contiguous copy: never aliases `a`.
    let vals = values.broadcast_to(&vshape)?.astype(a.dtype())?;
    let idx = launch_indices(indices, &bshape)?;
    let refs: Vec<&Array> = idx.iter().collect();
    let lens = &a.shape()[..k];
    if refs[0].size() == 0 {
        return Ok(());
    }
    // Check first, so that nothing is written when an index is out of range.
    let bad = match a.device() {
        Device::Cpu => cpu::check(&refs, lens)?,
        Device::Cuda(_) => cuda::check(&refs, lens)?,
    };
    if let Some((d, v)) = bad {
        return Err(out_of_range(v, d, lens[d]));
    }
    if row == 0 {
        return Ok(());
    }
    let target = write_target(a)?;
    let (rb, last) = (row * a.itemsize(), how == Write::LastWins);
    match (a.device(), how) {
        (Device::Cpu, Write::Add) => cpu::scatter_add(&target, &refs, lens, row, &vals)?,
        (Device::Cuda(_), Write::Add) => cuda::scatter_add(&target, &refs, lens, row, &vals)?,
        (Device::Cpu, _) => cpu::scatter(&target, &refs, lens, rb, &vals, None, last)?,
        (Device::Cuda(_), _) => cuda::scatter(&target, &refs, lens, rb, &vals, None, last)?,
    }
    write_back(a, &target)
}

/// NumPy's `take(a, indices, axis)`: `None` indexes the flattened array. The result's shape is
/// `a.shape[:axis] + indices.shape + a.shape[axis+1:]`.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let m = cuprum::arange(12, &dev)?.reshape([3, 4])?;
/// let t = cuprum::take(&m, &cuprum::from_vec(vec![2i64, -4], &dev)?, 1)?;
/// assert_eq!((t.shape(), t.to_vec::<i64>()?), (&[3usize, 2][..], vec![2, 0, 6, 4, 10, 8]));
/// assert!(cuprum::take(&m, &cuprum::from_vec(vec![4i64], &dev)?, 1).is_err()); // out of range
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn take(a: &Array, indices: &Array, axis: impl Into<Axes>) -> Result<Array> {
    check_cast_index_dtype("take", indices)?;
    let Some(ax) = axis.into().single()? else {
        return gather(&a.ravel()?, &[indices]);
    };
    let ax = normalize_axis(ax, a.ndim())?;
    crate::array::same_device("take", a, indices)?;
    check_index_dtype(indices)?;
    let n = a.shape()[ax];
    let outer: usize = a.shape()[..ax].iter().product();
    let row_bytes = a.shape()[ax + 1..].iter().product::<usize>() * a.itemsize();
    let idx = launch_indices(&[indices], indices.shape())?;
    let mut shape = a.shape()[..ax].to_vec();
    shape.extend_from_slice(indices.shape());
    shape.extend_from_slice(&a.shape()[ax + 1..]);
    let src = a.as_contiguous()?;
    let out = Array::alloc(&shape, a.dtype(), a.device(), false)?;
    let bad = match a.device() {
        Device::Cpu => cpu::gather(&src, &[&idx[0]], &[n], outer, n, row_bytes, &out)?,
        Device::Cuda(_) => cuda::gather(&src, &[&idx[0]], &[n], outer, n, row_bytes, &out)?,
    };
    match bad {
        Some((_, v)) => Err(out_of_range(v, ax, n)),
        None => Ok(out),
    }
}

/// NumPy's `take_along_axis(a, indices, axis)`: `indices` has `a`'s number of dimensions;
/// with `axis` `None`, `a` is flattened and `indices` must be 1-d. One axis at most ([`Axes`]).
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let m = cuprum::from_vec(vec![3i64, 1, 2, 9, 7, 8], &dev)?.reshape([2, 3])?;
/// let order = m.argsort(1)?;
/// assert_eq!(cuprum::take_along_axis(&m, &order, 1)?.to_vec::<i64>()?, vec![1, 2, 3, 7, 8, 9]);
/// let flat = cuprum::take_along_axis(&m, &cuprum::from_vec(vec![5i64, 0], &dev)?, None)?;
/// assert_eq!(flat.to_vec::<i64>()?, vec![8, 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn take_along_axis(a: &Array, indices: &Array, axis: impl Into<Axes>) -> Result<Array> {
    let Some(axis) = axis.into().single()? else {
        return take_along_axis(&a.ravel()?, indices, 0);
    };
    crate::array::same_device("take_along_axis", a, indices)?;
    if indices.ndim() != a.ndim() {
        return Err(Error::InvalidArgument(
            "take_along_axis: indices and arr must have the same number of dimensions".into(),
        ));
    }
    let ax = normalize_axis(axis, a.ndim())?;
    // Broadcast every axis but `ax`.
    let mut ashape = a.shape().to_vec();
    ashape[ax] = indices.shape()[ax];
    let shape = crate::core::layout::broadcast_shapes(&ashape, indices.shape()).ok_or_else(|| {
        Error::ShapeMismatch { op: "take_along_axis".into(), a: a.shape().to_vec(), b: indices.shape().to_vec() }
    })?;
    let mut src_shape = shape.clone();
    src_shape[ax] = a.shape()[ax];
    check_index_dtype(indices)?;
    let ib = indices.broadcast_to(&shape)?;
    let ib = if ib.dtype().is_integer() { ib } else { ib.astype(DType::Int64)? };
    let src = a.broadcast_to(&src_shape)?;
    let out = Array::alloc(&shape, a.dtype(), a.device(), false)?;
    let bad = match a.device() {
        Device::Cpu => cpu::take_along(&src, &ib, ax, a.shape()[ax], &out)?,
        Device::Cuda(_) => cuda::take_along(&src, &ib, ax, a.shape()[ax], &out)?,
    };
    match bad {
        Some(v) => Err(out_of_range(v, ax, a.shape()[ax])),
        None => Ok(out),
    }
}

/// NumPy's `put(a, indices, values)`: flat (C-order) positions; `values` repeat if shorter.
/// With repeated indices the last write wins, as in NumPy, on both devices.
pub fn put(a: &mut Array, indices: &Array, values: &Array) -> Result<()> {
    crate::array::same_device("put", a, values)?;
    crate::array::same_device("put", a, indices)?;
    check_cast_index_dtype("put", indices)?;
    let flat = indices.ravel()?;
    let idx = launch_indices(&[&flat], flat.shape())?;
    if idx[0].size() == 0 {
        return Ok(());
    }
    let lens = [a.size()];
    let bad = match a.device() {
        Device::Cpu => cpu::check(&[&idx[0]], &lens)?,
        Device::Cuda(_) => cuda::check(&[&idx[0]], &lens)?,
    };
    if let Some((_, v)) = bad {
        return Err(out_of_range(v, 0, a.size()));
    }
    let vals = values.ravel()?.astype(a.dtype())?;
    if vals.size() == 0 {
        return Err(Error::InvalidArgument("put: cannot put from an empty array of values".into()));
    }
    let target = write_target(a)?;
    let (isz, cycle) = (a.itemsize(), Some(vals.size()));
    match a.device() {
        Device::Cpu => cpu::scatter(&target, &[&idx[0]], &lens, isz, &vals, cycle, true)?,
        Device::Cuda(_) => cuda::scatter(&target, &[&idx[0]], &lens, isz, &vals, cycle, true)?,
    }
    write_back(a, &target)
}

impl Array {
    /// NumPy's `a.take(indices, axis)`.
    pub fn take(&self, indices: &Array, axis: impl Into<Axes>) -> Result<Array> {
        take(self, indices, axis)
    }
}
