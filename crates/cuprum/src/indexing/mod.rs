//! Integer-array indexing with NumPy's semantics: `take` (with axis), `take_along_axis`,
//! `put`, advanced indexing on leading axes (`gather`: `a[i0, i1]`), scatter assignment and
//! NumPy's `add.at` (`scatter_add`), plus `partition`/`argpartition` and `lexsort`.
//! Negative indices count from the end; out-of-range indices are errors (nothing is written).
//!
//! On the CPU these move bytes on the host. On a GPU they are CUDA kernels (`cuda/index.rs`):
//! rows move as raw words, index arrays of any integer dtype are read in place, and a bad index
//! is reported through a 16-byte record that the host reads back (the one wait of a call).
//! With repeated indices, `scatter` and `put` keep the last write as NumPy does (on a GPU a
//! first kernel finds the last row of each place by `atomicMax`); `scatter_add` adds them all
//! with atomics.

pub(crate) mod cuda;

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;
use crate::indexing::cuda as gpu;

fn host(a: &Array) -> Result<Array> {
    if a.device().is_cpu() {
        a.as_contiguous()
    } else {
        a.to_device(&Device::Cpu)
    }
}

fn back(out: Array, device: Device) -> Result<Array> {
    if device.is_cpu() {
        Ok(out)
    } else {
        out.to_device(&device)
    }
}

/// Index arrays must hold integers (an empty array of any dtype is allowed, as in NumPy).
fn check_index_dtype(idx: &Array) -> Result<()> {
    if idx.dtype().is_integer() || idx.size() == 0 {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!("arrays used as indices must be of integer type, not {}", idx.dtype())))
    }
}

/// Indices as `usize`, negative ones counted from the end, each checked against `len`.
fn norm_indices(idx: &Array, len: usize, axis: usize) -> Result<Vec<usize>> {
    check_index_dtype(idx)?;
    let bad = |i: isize| Error::IndexOutOfRange { index: i, axis, len };
    if idx.dtype() == DType::UInt64 {
        // No wrap-around from the end for unsigned indices.
        let v: Vec<u64> = host(idx)?.to_vec::<u64>()?;
        return v.iter().map(|&i| if i < len as u64 { Ok(i as usize) } else { Err(bad(i as isize)) }).collect();
    }
    let v: Vec<i64> = host(idx)?.to_vec_as::<i64>()?;
    v.iter()
        .map(|&i| {
            let j = if i < 0 { i + len as i64 } else { i };
            if j < 0 || j >= len as i64 {
                Err(bad(i as isize))
            } else {
                Ok(j as usize)
            }
        })
        .collect()
}

/// Index arrays for a GPU launch: broadcast to `shape`, C-contiguous and of one integer dtype
/// (their own when they agree, else int64). Views are used as they are when possible.
fn gpu_indices(indices: &[&Array], shape: &[usize]) -> Result<Vec<Array>> {
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

fn bytes_of(a: &Array) -> Result<Vec<u8>> {
    a.to_bytes()
}

/// The error of an out-of-range index found by a GPU kernel.
fn out_of_range(index: i64, axis: usize, len: usize) -> Error {
    Error::IndexOutOfRange { index: index as isize, axis, len }
}

/// `IndexOutOfRange` errors of a helper working on axis 0 reported on axis `ax`.
fn on_axis(e: Error, ax: usize) -> Error {
    match e {
        Error::IndexOutOfRange { index, len, .. } => Error::IndexOutOfRange { index, axis: ax, len },
        other => other,
    }
}

/// NumPy's `a[i0, i1, ..., ik-1]` with integer index arrays on the first `k` axes (they
/// broadcast together): shape `broadcast(i.shape) + a.shape[k:]`.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let m = cuprum::arange(12, &dev)?.reshape(&[3, 4])?;
/// let (r, c) = (cuprum::from_vec(vec![2i64, 0], &dev)?, cuprum::from_vec(vec![1i64, 3], &dev)?);
/// assert_eq!(cuprum::gather(&m, &[&r, &c])?.to_vec::<i64>()?, vec![9, 3]); // m[[2, 0], [1, 3]]
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn gather(a: &Array, indices: &[&Array]) -> Result<Array> {
    let bshape = broadcast_plan("gather", a, indices)?;
    let k = indices.len();
    let mut shape = bshape.clone();
    shape.extend_from_slice(&a.shape()[k..]);
    let isz = a.itemsize();
    let row: usize = a.shape()[k..].iter().product();
    if a.device().is_cpu() || k > gpu::MAX_K {
        let flat = flat_positions(a, indices, &bshape)?;
        let src = bytes_of(a)?;
        let mut out = vec![0u8; flat.len() * row * isz];
        for (n, &p) in flat.iter().enumerate() {
            out[n * row * isz..(n + 1) * row * isz].copy_from_slice(&src[p * row * isz..(p + 1) * row * isz]);
        }
        return Array::from_bytes(&out, &shape, a.dtype(), &a.device());
    }
    let lens = &a.shape()[..k];
    let idx = gpu_indices(indices, &bshape)?;
    let refs: Vec<&Array> = idx.iter().collect();
    let src = a.as_contiguous()?;
    let out = Array::alloc(&shape, a.dtype(), a.device(), false)?;
    let nsrc: usize = lens.iter().product();
    if let Some((d, v)) = gpu::gather(&src, &refs, lens, 1, nsrc, row * isz, &out)? {
        return Err(out_of_range(v, d, lens[d]));
    }
    Ok(out)
}

/// Checks index arrays for the first `k = indices.len()` axes of `a` (count, device, dtype)
/// and returns their broadcast shape.
fn broadcast_plan(op: &str, a: &Array, indices: &[&Array]) -> Result<Vec<usize>> {
    let k = indices.len();
    if k == 0 || k > a.ndim() {
        return Err(Error::InvalidArgument(format!("{op}: {k} index arrays for an array of {} dimensions", a.ndim())));
    }
    let mut bshape: Vec<usize> = indices[0].shape().to_vec();
    for i in indices {
        crate::ufunc::same_device(op, a, i)?;
        check_index_dtype(i)?;
        bshape = crate::core::layout::broadcast_shapes(&bshape, i.shape()).ok_or_else(|| Error::ShapeMismatch {
            op: "index arrays".into(),
            a: bshape.clone(),
            b: i.shape().to_vec(),
        })?;
    }
    Ok(bshape)
}

/// Row positions (in the C-order leading `k` axes) that broadcast index arrays select.
fn flat_positions(a: &Array, indices: &[&Array], bshape: &[usize]) -> Result<Vec<usize>> {
    let k = indices.len();
    let mut pos = vec![0usize; bshape.iter().product()];
    let mut stride = 1usize;
    for d in (0..k).rev() {
        let b = indices[d].broadcast_to(bshape)?;
        let idx = norm_indices(&b, a.shape()[d], d)?;
        for (p, &i) in pos.iter_mut().zip(&idx) {
            *p += i * stride;
        }
        stride *= a.shape()[d];
    }
    Ok(pos)
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
    let add = how == Write::Add;
    crate::ufunc::same_device("scatter", a, values)?;
    let bshape = broadcast_plan("scatter", a, indices)?;
    let k = indices.len();
    let row: usize = a.shape()[k..].iter().product();
    let mut vshape = bshape.clone();
    vshape.extend_from_slice(&a.shape()[k..]);
    if !(a.device().is_cpu() || k > gpu::MAX_K) {
        // A fresh contiguous copy: never aliases `a`.
        let vals = values.broadcast_to(&vshape)?.astype(a.dtype())?;
        let idx = gpu_indices(indices, &bshape)?;
        let refs: Vec<&Array> = idx.iter().collect();
        let lens = &a.shape()[..k];
        if refs[0].size() == 0 {
            return Ok(());
        }
        // Check first, so that nothing is written when an index is out of range.
        if let Some((d, v)) = gpu::check(&refs, lens)? {
            return Err(out_of_range(v, d, lens[d]));
        }
        if row == 0 {
            return Ok(());
        }
        let target = write_target(a)?;
        if add {
            gpu::scatter_add(&target, &refs, lens, row, &vals)?;
        } else {
            gpu::scatter(&target, &refs, lens, row * a.itemsize(), &vals, None, how == Write::LastWins)?;
        }
        return write_back(a, &target);
    }
    let pos = flat_positions(a, indices, &bshape)?;
    let vals = host(&values.broadcast_to(&vshape)?.astype(a.dtype())?)?;
    let h = host(a)?.copy()?;
    if add {
        let sum = |x: &Array| -> Result<Vec<f64>> { x.to_vec_as::<f64>() };
        // Exact integer adds need the integer domain; floats round to the dtype per add.
        if a.dtype().is_float() {
            let mut t = sum(&h)?;
            let v = sum(&vals)?;
            for (n, &p) in pos.iter().enumerate() {
                for r in 0..row {
                    t[p * row + r] = crate::backend::cpu::round_scalar(a.dtype(), t[p * row + r] + v[n * row + r]);
                }
            }
            let out = crate::from_slice(&t, h.shape(), &Device::Cpu)?.astype(a.dtype())?;
            return a.assign(&back(out, a.device())?);
        }
        let mut t: Vec<i64> = h.to_vec_as::<i64>()?;
        let v: Vec<i64> = vals.to_vec_as::<i64>()?;
        for (n, &p) in pos.iter().enumerate() {
            for r in 0..row {
                t[p * row + r] = t[p * row + r].wrapping_add(v[n * row + r]);
            }
        }
        let out = crate::from_slice(&t, h.shape(), &Device::Cpu)?.astype(a.dtype())?;
        return a.assign(&back(out, a.device())?);
    }
    let isz = a.itemsize();
    let mut t = bytes_of(&h)?;
    let v = bytes_of(&vals)?;
    for (n, &p) in pos.iter().enumerate() {
        t[p * row * isz..(p + 1) * row * isz].copy_from_slice(&v[n * row * isz..(n + 1) * row * isz]);
    }
    let out = Array::from_bytes(&t, h.shape(), a.dtype(), &Device::Cpu)?;
    a.assign(&back(out, a.device())?)
}

/// NumPy's `take(a, indices, axis)`: `None` indexes the flattened array. The result's shape is
/// `a.shape[:axis] + indices.shape + a.shape[axis+1:]`.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let m = cuprum::arange(12, &dev)?.reshape(&[3, 4])?;
/// let t = cuprum::take(&m, &cuprum::from_vec(vec![2i64, -4], &dev)?, Some(1))?;
/// assert_eq!((t.shape(), t.to_vec::<i64>()?), (&[3usize, 2][..], vec![2, 0, 6, 4, 10, 8]));
/// assert!(cuprum::take(&m, &cuprum::from_vec(vec![4i64], &dev)?, Some(1)).is_err()); // out of range
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn take(a: &Array, indices: &Array, axis: Option<isize>) -> Result<Array> {
    let Some(ax) = axis else {
        return gather(&a.ravel()?, &[indices]);
    };
    let ax = normalize_axis(ax, a.ndim())?;
    if !a.device().is_cpu() {
        crate::ufunc::same_device("take", a, indices)?;
        check_index_dtype(indices)?;
        let n = a.shape()[ax];
        let outer: usize = a.shape()[..ax].iter().product();
        let row: usize = a.shape()[ax + 1..].iter().product();
        let idx = gpu_indices(&[indices], indices.shape())?;
        let mut shape = a.shape()[..ax].to_vec();
        shape.extend_from_slice(indices.shape());
        shape.extend_from_slice(&a.shape()[ax + 1..]);
        let src = a.as_contiguous()?;
        let out = Array::alloc(&shape, a.dtype(), a.device(), false)?;
        if let Some((_, v)) = gpu::gather(&src, &[&idx[0]], &[n], outer, n, row * a.itemsize(), &out)? {
            return Err(out_of_range(v, ax, n));
        }
        return Ok(out);
    }
    let moved = a.moveaxis(ax as isize, 0)?;
    let g = gather(&moved, &[indices]).map_err(|e| on_axis(e, ax))?;
    // g: indices.shape + rest (rest = a.shape without axis); put the index dims at `ax`.
    let ni = indices.ndim();
    let rest = a.ndim() - 1;
    let mut perm: Vec<isize> = Vec::with_capacity(ni + rest);
    perm.extend((ni..ni + ax).map(|d| d as isize));
    perm.extend((0..ni).map(|d| d as isize));
    perm.extend((ni + ax..ni + rest).map(|d| d as isize));
    g.permute(&perm)?.as_contiguous()
}

/// NumPy's `take_along_axis(a, indices, axis)`: `indices` has `a`'s number of dimensions.
pub fn take_along_axis(a: &Array, indices: &Array, axis: isize) -> Result<Array> {
    crate::ufunc::same_device("take_along_axis", a, indices)?;
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
    if !a.device().is_cpu() && shape.len() <= gpu::MAX_ND {
        check_index_dtype(indices)?;
        let ib = indices.broadcast_to(&shape)?;
        let ib = if ib.dtype().is_integer() { ib } else { ib.astype(DType::Int64)? };
        let src = a.broadcast_to(&src_shape)?;
        let out = Array::alloc(&shape, a.dtype(), a.device(), false)?;
        if let Some(v) = gpu::take_along(&src, &ib, ax, a.shape()[ax], &out)? {
            return Err(out_of_range(v, ax, a.shape()[ax]));
        }
        return Ok(out);
    }
    let idx = norm_indices(&indices.broadcast_to(&shape)?, a.shape()[ax], ax)?;
    let src = host(&a.broadcast_to(&src_shape)?)?;
    let isz = a.itemsize();
    let sb = bytes_of(&src)?;
    let inner: usize = shape[ax + 1..].iter().product();
    let (m, n) = (shape[ax], src_shape[ax]);
    let mut out = vec![0u8; idx.len() * isz];
    for (e, &j) in idx.iter().enumerate() {
        let (o, r) = (e / (m * inner), e % inner);
        let s = (o * n + j) * inner + r;
        out[e * isz..(e + 1) * isz].copy_from_slice(&sb[s * isz..(s + 1) * isz]);
    }
    Array::from_bytes(&out, &shape, a.dtype(), &a.device())
}

/// NumPy's `put(a, indices, values)`: flat (C-order) positions; `values` repeat if shorter.
/// With repeated indices the last write wins, as in NumPy, on both devices.
pub fn put(a: &mut Array, indices: &Array, values: &Array) -> Result<()> {
    crate::ufunc::same_device("put", a, values)?;
    if !a.device().is_cpu() {
        check_index_dtype(indices)?;
        let flat = indices.ravel()?;
        let flat = if flat.device() == a.device() { flat } else { flat.to_device(&a.device())? };
        let idx = gpu_indices(&[&flat], flat.shape())?;
        if idx[0].size() == 0 {
            return Ok(());
        }
        if let Some((_, v)) = gpu::check(&[&idx[0]], &[a.size()])? {
            return Err(out_of_range(v, 0, a.size()));
        }
        let vals = values.ravel()?.astype(a.dtype())?;
        if vals.size() == 0 {
            return Err(Error::InvalidArgument("put: cannot put from an empty array of values".into()));
        }
        let target = write_target(a)?;
        gpu::scatter(&target, &[&idx[0]], &[a.size()], a.itemsize(), &vals, Some(vals.size()), true)?;
        return write_back(a, &target);
    }
    let idx = norm_indices(&indices.ravel()?, a.size(), 0)?;
    if idx.is_empty() {
        return Ok(());
    }
    let vals = host(&values.ravel()?.astype(a.dtype())?)?;
    if vals.size() == 0 {
        return Err(Error::InvalidArgument("put: cannot put from an empty array of values".into()));
    }
    let isz = a.itemsize();
    let h = host(a)?.copy()?;
    let mut t = bytes_of(&h)?;
    let v = bytes_of(&vals)?;
    for (n, &p) in idx.iter().enumerate() {
        let s = n % vals.size();
        t[p * isz..(p + 1) * isz].copy_from_slice(&v[s * isz..(s + 1) * isz]);
    }
    let out = Array::from_bytes(&t, h.shape(), a.dtype(), &Device::Cpu)?;
    a.assign(&back(out, a.device())?)
}

/// NumPy's `argpartition(a, kth, axis)`: indices that put the `kth` element of each lane in
/// its sorted place, smaller-or-equal ones before it and the others after (NaNs last).
pub fn argpartition(a: &Array, kth: isize, axis: Option<isize>) -> Result<Array> {
    // A stable sort is a valid partition (NumPy only promises the partition property).
    let len = match axis {
        None => a.size(),
        Some(ax) => a.shape()[normalize_axis(ax, a.ndim())?],
    };
    let k = if kth < 0 { kth + len as isize } else { kth };
    if k < 0 || k >= len as isize {
        return Err(Error::IndexOutOfRange { index: kth, axis: 0, len });
    }
    crate::argsort(a, axis)
}

/// NumPy's `partition(a, kth, axis)`.
pub fn partition(a: &Array, kth: isize, axis: Option<isize>) -> Result<Array> {
    argpartition(a, kth, axis)?;
    crate::sort(a, axis)
}

/// NumPy's `lexsort(keys)`: indices sorting by the last key, then the one before, ... (stable).
pub fn lexsort(keys: &[&Array]) -> Result<Array> {
    let first = keys.first().ok_or_else(|| Error::InvalidArgument("need at least one key".into()))?;
    if first.ndim() != 1 {
        return Err(Error::InvalidArgument("lexsort: keys must be 1-d arrays of equal length".into()));
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
        let permuted = take(k, &order, None)?;
        let o = crate::argsort(&permuted, None)?;
        order = take(&order, &o, None)?;
    }
    Ok(order)
}

impl Array {
    /// NumPy's `a.take(indices, axis)`.
    pub fn take(&self, indices: &Array, axis: Option<isize>) -> Result<Array> {
        take(self, indices, axis)
    }
}
