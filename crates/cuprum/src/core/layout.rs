//! Shapes and byte strides: contiguity, broadcasting, axis normalisation, dimension
//! collapsing and NumPy's no-copy reshape.

use crate::core::error::{Error, Result};

/// C-order (row-major) strides in bytes.
pub fn c_strides(shape: &[usize], itemsize: usize) -> Vec<isize> {
    let mut s = vec![0isize; shape.len()];
    let mut acc = itemsize as isize;
    for i in (0..shape.len()).rev() {
        s[i] = acc;
        acc *= shape[i].max(1) as isize;
    }
    s
}

/// Whether the layout is C-contiguous (NumPy's flag: size-1 axes may have any stride).
pub fn is_c_contiguous(shape: &[usize], strides: &[isize], itemsize: usize) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut acc = itemsize as isize;
    for i in (0..shape.len()).rev() {
        if shape[i] != 1 {
            if strides[i] != acc {
                return false;
            }
            acc *= shape[i] as isize;
        }
    }
    true
}

/// Whether the layout is Fortran-contiguous.
pub fn is_f_contiguous(shape: &[usize], strides: &[isize], itemsize: usize) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut acc = itemsize as isize;
    for i in 0..shape.len() {
        if shape[i] != 1 {
            if strides[i] != acc {
                return false;
            }
            acc *= shape[i] as isize;
        }
    }
    true
}

pub fn size_of(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Size in bytes, checking for overflow as NumPy does: the item size times the product of the
/// non-zero lengths must fit an `isize` (`ValueError` otherwise), even where a zero length makes
/// the array empty (`np.zeros((0, 2**62))` is "array is too big").
pub fn checked_nbytes(shape: &[usize], itemsize: usize) -> Result<usize> {
    check_ndim(shape.len())?;
    let too_big =
        || Error::InvalidArgument(format!("array is too big: shape {}", crate::core::error::shape_str(shape)));
    let mut n: usize = itemsize;
    for &d in shape.iter().filter(|&&d| d != 0) {
        n = n.checked_mul(d).ok_or_else(too_big)?;
    }
    if n > isize::MAX as usize {
        return Err(too_big());
    }
    Ok(if shape.contains(&0) { 0 } else { n })
}

/// NumPy's limit on dimensions (`NPY_MAXDIMS`): arrays have at most 64.
pub const MAX_DIMS: usize = 64;

/// NumPy's error for an array of more than [`MAX_DIMS`] dimensions.
pub fn check_ndim(ndim: usize) -> Result<()> {
    if ndim > MAX_DIMS {
        return Err(Error::Value(format!(
            "maximum supported dimension for an ndarray is currently {MAX_DIMS}, found {ndim}"
        )));
    }
    Ok(())
}

/// The broadcast shape of two shapes.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
        let db = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return None;
        };
    }
    Some(out)
}

/// Strides that view an array of `shape`/`strides` as `target` (which it must broadcast to).
pub fn broadcast_strides(shape: &[usize], strides: &[isize], target: &[usize]) -> Option<Vec<isize>> {
    if shape.len() > target.len() {
        return None;
    }
    let off = target.len() - shape.len();
    let mut out = vec![0isize; target.len()];
    for i in 0..shape.len() {
        if shape[i] == target[i + off] {
            out[i + off] = if shape[i] == 1 { 0 } else { strides[i] };
        } else if shape[i] == 1 {
            out[i + off] = 0;
        } else {
            return None;
        }
    }
    Some(out)
}

/// A possibly negative axis checked against `ndim`.
pub fn normalize_axis(axis: isize, ndim: usize) -> Result<usize> {
    let a = if axis < 0 { axis + ndim as isize } else { axis };
    if a < 0 || a >= ndim as isize {
        return Err(Error::AxisOutOfRange { axis, ndim });
    }
    Ok(a as usize)
}

/// Several axes, normalised, checked for duplicates, sorted.
pub fn normalize_axes(axes: &[isize], ndim: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let a = normalize_axis(a, ndim)?;
        if out.contains(&a) {
            return Err(Error::DuplicateAxis { axis: a });
        }
        out.push(a);
    }
    out.sort_unstable();
    Ok(out)
}

/// Merges adjacent dimensions that are contiguous with each other in *every* operand and
/// drops size-1 dimensions, so that iteration and kernels see the fewest dimensions.
/// Returns the collapsed shape and, per operand, the collapsed strides.
pub fn collapse(shape: &[usize], strides: &[&[isize]]) -> (Vec<usize>, Vec<Vec<isize>>) {
    let mut cs: Vec<usize> = Vec::with_capacity(shape.len());
    let mut cst: Vec<Vec<isize>> = vec![Vec::with_capacity(shape.len()); strides.len()];
    if shape.contains(&0) {
        return (vec![0], vec![vec![0]; strides.len()]);
    }
    for i in 0..shape.len() {
        if shape[i] == 1 {
            continue;
        }
        if let Some(&last) = cs.last() {
            let k = cs.len() - 1;
            let mergeable = strides.iter().enumerate().all(|(o, s)| cst[o][k] == s[i] * shape[i] as isize);
            if mergeable {
                cs[k] = last * shape[i];
                for (o, s) in strides.iter().enumerate() {
                    cst[o][k] = s[i];
                }
                continue;
            }
        }
        cs.push(shape[i]);
        for (o, s) in strides.iter().enumerate() {
            cst[o].push(s[i]);
        }
    }
    (cs, cst)
}

/// NumPy's no-copy reshape: strides for `new_shape` viewing the same memory, if possible.
pub fn reshape_strides(shape: &[usize], strides: &[isize], new_shape: &[usize], itemsize: usize) -> Option<Vec<isize>> {
    let size = size_of(shape);
    if size == 0 || size == 1 {
        return Some(c_strides(new_shape, itemsize));
    }
    // Drop size-1 axes of the old layout.
    let (os, ost): (Vec<usize>, Vec<isize>) =
        shape.iter().zip(strides).filter(|(d, _)| **d != 1).map(|(d, s)| (*d, *s)).unzip();
    let mut ns = vec![0isize; new_shape.len()];
    let (mut oi, mut oj, mut ni, mut nj) = (0usize, 1usize, 0usize, 1usize);
    let (olen, nlen) = (os.len(), new_shape.len());
    // Skip leading size-1 new axes handled below by giving them a stride.
    while ni < nlen && oi < olen {
        let mut np_ = new_shape[ni];
        let mut op = os[oi];
        while np_ != op {
            if np_ < op {
                np_ *= new_shape[nj];
                nj += 1;
            } else {
                op *= os[oj];
                oj += 1;
            }
        }
        // The old axes oi..oj must be contiguous among themselves.
        for k in oi..oj - 1 {
            if ost[k] != ost[k + 1] * os[k + 1] as isize {
                return None;
            }
        }
        ns[nj - 1] = ost[oj - 1];
        for k in (ni + 1..nj).rev() {
            ns[k - 1] = ns[k] * new_shape[k] as isize;
        }
        ni = nj;
        nj += 1;
        oi = oj;
        oj += 1;
        if nj > nlen + 1 || oj > olen + 1 {
            break;
        }
    }
    // Remaining (size-1) new axes.
    let last = if ni > 0 { ns[ni - 1] } else { itemsize as isize };
    ns.iter_mut().skip(ni).for_each(|v| *v = last);
    Some(ns)
}

/// Resolves a shape with at most one unknown (negative, as NumPy's `-1`) dimension against
/// `size`: NumPy's `ValueError`s "can only specify one unknown dimension" and "cannot reshape
/// array of size 6 into shape (4,-1)".
pub fn resolve_shape(new_shape: &[isize], size: usize, from: &[usize]) -> Result<Vec<usize>> {
    let bad = || Error::BadReshape { from: from.to_vec(), to: new_shape.to_vec() };
    let mut unknown = None;
    let mut known: usize = 1;
    for (i, &d) in new_shape.iter().enumerate() {
        if d < 0 {
            if unknown.is_some() {
                return Err(Error::Value("can only specify one unknown dimension".into()));
            }
            unknown = Some(i);
        } else {
            known = known.checked_mul(d as usize).ok_or_else(bad)?;
        }
    }
    let mut out: Vec<usize> = new_shape.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(i) = unknown {
        if known == 0 || !size.is_multiple_of(known) {
            return Err(bad());
        }
        out[i] = size / known;
    } else if known != size {
        return Err(bad());
    }
    Ok(out)
}

/// The byte range `[lo, hi)` relative to the offset that a layout touches (for bounds checks).
pub fn extent(shape: &[usize], strides: &[isize], itemsize: usize) -> (isize, isize) {
    if shape.contains(&0) {
        return (0, 0);
    }
    let (mut lo, mut hi) = (0isize, 0isize);
    for (&d, &s) in shape.iter().zip(strides) {
        let span = s * (d as isize - 1);
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    (lo, hi + itemsize as isize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reshape_views() {
        let s = c_strides(&[2, 5], 8);
        assert_eq!(s, vec![40, 8]);
        assert_eq!(reshape_strides(&[10], &[8], &[2, 5], 8), Some(vec![40, 8]));
        // transposed (5,2) -> (10,) is not a view
        assert_eq!(reshape_strides(&[5, 2], &[8, 40], &[10], 8), None);
        // (4,6) sliced [:, :3] -> (4,3): reshape to (2,2,3) is a view
        assert_eq!(reshape_strides(&[4, 3], &[48, 8], &[2, 2, 3], 8), Some(vec![96, 48, 8]));
        assert_eq!(reshape_strides(&[4, 3], &[48, 8], &[12], 8), None);
        assert_eq!(reshape_strides(&[2, 3], &[24, 8], &[1, 2, 1, 3, 1], 8).map(|v| v[1]), Some(24));
    }

    #[test]
    fn collapse_dims() {
        let (s, st) = collapse(&[2, 3, 4], &[&[96, 32, 8]]);
        assert_eq!(s, vec![24]);
        assert_eq!(st[0], vec![8]);
        let (s, _) = collapse(&[2, 3, 4], &[&[96, 32, 8], &[0, 32, 8]]);
        assert_eq!(s, vec![2, 12]);
    }

    #[test]
    fn broadcasting() {
        assert_eq!(broadcast_shapes(&[4, 1], &[3]), Some(vec![4, 3]));
        assert_eq!(broadcast_shapes(&[2], &[3]), None);
        assert_eq!(broadcast_strides(&[4, 1], &[8, 8], &[2, 4, 3]), Some(vec![0, 8, 0]));
    }
}

/// The `axis` argument of every cuprum function whose NumPy `axis` may be `None`: `None`
/// (all axes, or the flattened array), one axis (`0`, `-1`) or several (`[0, 2]`, `&[0, 2][..]`,
/// `vec![0, 2]`, `()` for none at all).
///
/// Functions that take one axis at most in NumPy (`sort`, `cumsum`, `take`, `compress`, ...)
/// answer several with NumPy's `TypeError`; those that take a tuple (`sum`, `median`,
/// `quantile`, `flip`, `roll`, ...) use them all.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::arange(24, &dev)?.reshape([2, 3, 4])?;
/// assert_eq!(a.sum([0, 1])?.shape(), &[4]);        // np.sum(a, axis=(0, 1))
/// assert_eq!(a.median(None)?.item::<f64>()?, 11.5); // np.median(a)
/// assert_eq!(a.sort(-1)?.shape(), &[2, 3, 4]);     // np.sort(a, axis=-1)
/// assert_eq!(a.cumsum(None)?.shape(), &[24]);      // np.cumsum(a)
/// let e = a.sort([0, 1]).unwrap_err();             // np.sort(a, axis=(0, 1))
/// assert_eq!(e.kind(), cuprum::ErrorKind::TypeError);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Axes {
    /// NumPy's `axis=None`.
    All,
    /// The axes listed (negative ones count from the end).
    Some(Vec<isize>),
}

impl From<Option<isize>> for Axes {
    fn from(a: Option<isize>) -> Self {
        match a {
            None => Axes::All,
            Some(a) => Axes::Some(vec![a]),
        }
    }
}
/// `()` is NumPy's `axis=()`: no axis at all.
impl From<()> for Axes {
    fn from(_: ()) -> Self {
        Axes::Some(Vec::new())
    }
}
impl From<&Axes> for Axes {
    fn from(a: &Axes) -> Self {
        a.clone()
    }
}
macro_rules! axes_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Axes { fn from(a: $t) -> Self { Axes::Some(vec![a as isize]) } }
        impl<const N: usize> From<[$t; N]> for Axes { fn from(a: [$t; N]) -> Self { Axes::Some(a.iter().map(|&x| x as isize).collect()) } }
        impl<const N: usize> From<&[$t; N]> for Axes { fn from(a: &[$t; N]) -> Self { Axes::Some(a.iter().map(|&x| x as isize).collect()) } }
        impl From<&[$t]> for Axes { fn from(a: &[$t]) -> Self { Axes::Some(a.iter().map(|&x| x as isize).collect()) } }
        impl From<Vec<$t>> for Axes { fn from(a: Vec<$t>) -> Self { Axes::Some(a.iter().map(|&x| x as isize).collect()) } }
        impl From<&Vec<$t>> for Axes { fn from(a: &Vec<$t>) -> Self { Axes::Some(a.iter().map(|&x| x as isize).collect()) } }
    )*};
}
axes_from_int!(i32, isize, usize, i64);

/// `shape` with the reduced `axes` kept as length 1 (NumPy's `keepdims`): reductions and the
/// quantile functions.
pub(crate) fn keepdims_shape(shape: &[usize], axes: &[usize]) -> Vec<usize> {
    shape.iter().enumerate().map(|(a, &n)| if axes.contains(&a) { 1 } else { n }).collect()
}

impl Axes {
    pub(crate) fn resolve(&self, ndim: usize) -> Result<Vec<usize>> {
        match self {
            Axes::All => Ok((0..ndim).collect()),
            Axes::Some(v) => normalize_axes(v, ndim),
        }
    }

    /// The axis of a function whose NumPy `axis` is an integer or `None`: several axes (or
    /// none, `()`) are NumPy's `TypeError` for a tuple where an integer is expected.
    pub(crate) fn single(&self) -> Result<Option<isize>> {
        match self {
            Axes::All => Ok(None),
            Axes::Some(v) if v.len() == 1 => Ok(Some(v[0])),
            Axes::Some(_) => Err(Error::Type("'tuple' object cannot be interpreted as an integer".into())),
        }
    }
}
