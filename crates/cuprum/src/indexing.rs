//! Integer-array indexing with NumPy's semantics: `take` (with axis), `take_along_axis`,
//! `put`, advanced indexing on leading axes (`gather`: `a[i0, i1]`), scatter assignment and
//! NumPy's `add.at` (`scatter_add`), plus `partition`/`argpartition` and `lexsort`.
//! Negative indices count from the end; out-of-range indices are errors.
//!
//! These run on the CPU backend; GPU arrays go through the host for now (the GPU gather and
//! scatter kernels of the roadmap will replace that path).

use crate::array::Array;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::layout::normalize_axis;

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

/// Indices as `usize`, negative ones counted from the end, each checked against `len`.
fn norm_indices(idx: &Array, len: usize, axis: usize) -> Result<Vec<usize>> {
    if !(idx.dtype().is_integer() || idx.size() == 0) {
        return Err(Error::InvalidArgument(format!(
            "arrays used as indices must be of integer type, not {}",
            idx.dtype()
        )));
    }
    let v: Vec<i64> = host(idx)?.to_vec_as::<i64>()?;
    v.iter()
        .map(|&i| {
            let j = if i < 0 { i + len as i64 } else { i };
            if j < 0 || j >= len as i64 {
                Err(Error::IndexOutOfRange { index: i as isize, axis, len })
            } else {
                Ok(j as usize)
            }
        })
        .collect()
}

fn bytes_of(a: &Array) -> Result<Vec<u8>> {
    a.to_bytes()
}

/// NumPy's `a[i0, i1, ..., ik-1]` with integer index arrays on the first `k` axes (they
/// broadcast together): shape `broadcast(i.shape) + a.shape[k:]`.
pub fn gather(a: &Array, indices: &[&Array]) -> Result<Array> {
    let (bshape, flat, row) = index_plan("gather", a, indices)?;
    let k = indices.len();
    let isz = a.itemsize();
    let src = bytes_of(a)?;
    let mut out = vec![0u8; flat.len() * row * isz];
    for (n, &p) in flat.iter().enumerate() {
        out[n * row * isz..(n + 1) * row * isz].copy_from_slice(&src[p * row * isz..(p + 1) * row * isz]);
    }
    let mut shape = bshape;
    shape.extend_from_slice(&a.shape()[k..]);
    Array::from_bytes(&out, &shape, a.dtype(), &a.device())
}

/// For index arrays on the first `k` axes of `a`: their broadcast shape, the row each selects
/// (C order over those axes) and the length of a row (the product of the other axes).
fn index_plan(op: &str, a: &Array, indices: &[&Array]) -> Result<(Vec<usize>, Vec<usize>, usize)> {
    let k = indices.len();
    if k == 0 || k > a.ndim() {
        return Err(Error::InvalidArgument(format!("{op}: {k} index arrays for an array of {} dimensions", a.ndim())));
    }
    let mut bshape: Vec<usize> = indices[0].shape().to_vec();
    for i in indices {
        crate::ops::same_device(op, a, i)?;
        bshape = crate::layout::broadcast_shapes(&bshape, i.shape()).ok_or_else(|| Error::ShapeMismatch {
            op: "index arrays".into(),
            a: bshape.clone(),
            b: i.shape().to_vec(),
        })?;
    }
    let pos = flat_positions(a, indices, &bshape)?;
    Ok((bshape, pos, a.shape()[k..].iter().product()))
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

/// NumPy's `a[i0, ..., ik-1] = values` (values broadcast to the selection; with repeated
/// indices the last write wins, as in NumPy).
pub fn scatter(a: &mut Array, indices: &[&Array], values: &Array) -> Result<()> {
    scatter_impl(a, indices, values, false)
}

/// NumPy's `np.add.at(a, (i0, ..., ik-1), values)`: unbuffered, so repeated indices add up.
pub fn scatter_add(a: &mut Array, indices: &[&Array], values: &Array) -> Result<()> {
    scatter_impl(a, indices, values, true)
}

fn scatter_impl(a: &mut Array, indices: &[&Array], values: &Array, add: bool) -> Result<()> {
    crate::ops::same_device("scatter", a, values)?;
    let (bshape, pos, row) = index_plan("scatter", a, indices)?;
    let k = indices.len();
    let mut vshape = bshape.clone();
    vshape.extend_from_slice(&a.shape()[k..]);
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
                    t[p * row + r] = crate::cpu::round_scalar(a.dtype(), t[p * row + r] + v[n * row + r]);
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
pub fn take(a: &Array, indices: &Array, axis: Option<isize>) -> Result<Array> {
    let Some(ax) = axis else {
        return gather(&a.ravel()?, &[indices]);
    };
    let ax = normalize_axis(ax, a.ndim())?;
    let moved = a.moveaxis(ax as isize, 0)?;
    let g = gather(&moved, &[indices])?;
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
    crate::ops::same_device("take_along_axis", a, indices)?;
    if indices.ndim() != a.ndim() {
        return Err(Error::InvalidArgument(
            "take_along_axis: indices and arr must have the same number of dimensions".into(),
        ));
    }
    let ax = normalize_axis(axis, a.ndim())?;
    // Broadcast every axis but `ax`.
    let mut ashape = a.shape().to_vec();
    ashape[ax] = indices.shape()[ax];
    let shape = crate::layout::broadcast_shapes(&ashape, indices.shape()).ok_or_else(|| Error::ShapeMismatch {
        op: "take_along_axis".into(),
        a: a.shape().to_vec(),
        b: indices.shape().to_vec(),
    })?;
    let idx = norm_indices(&indices.broadcast_to(&shape)?, a.shape()[ax], ax)?;
    let mut src_shape = shape.clone();
    src_shape[ax] = a.shape()[ax];
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
pub fn put(a: &mut Array, indices: &Array, values: &Array) -> Result<()> {
    crate::ops::same_device("put", a, values)?;
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
