//! Array manipulation with NumPy's semantics: joining (`concatenate`, `stack`, `hstack`,
//! `vstack`, `dstack`), splitting (`split`, `array_split`), rearranging (`flip`, `roll`,
//! `tile`, `repeat`, `pad`, `atleast_1d/2d/3d`) and `diff`. Built from views and copies, so
//! they run on any device.

use crate::array::Array;
use crate::core::dtype::{result_type, DType, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;
use crate::core::layout::Axes;
use crate::core::slice::SliceElem;

fn full_slice() -> SliceElem {
    SliceElem::Slice { start: None, end: None, step: 1 }
}

/// The index that selects `start..end` (step `step`) along `axis` of an `ndim`-d array.
fn along(ndim: usize, axis: usize, start: Option<isize>, end: Option<isize>, step: isize) -> Vec<SliceElem> {
    let mut ix = vec![full_slice(); ndim];
    ix[axis] = SliceElem::Slice { start, end, step };
    ix
}

/// NumPy's `concatenate(arrays, axis)`: joins along an existing axis; dtypes promote. With
/// `axis` `None` the arrays are flattened first. One axis at most ([`Axes`]).
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::arange(6, &dev)?.reshape([2, 3])?;
/// assert_eq!(cuprum::concatenate(&[&a, &a], 1)?.shape(), &[2, 6]);
/// assert_eq!(cuprum::concatenate(&[&a, &a], None)?.shape(), &[12]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn concatenate(arrays: &[&Array], axis: impl Into<Axes>) -> Result<Array> {
    let Some(axis) = axis.into().single()? else {
        let flat: Vec<Array> = arrays.iter().map(|a| a.ravel()).collect::<Result<_>>()?;
        return concatenate(&flat.iter().collect::<Vec<_>>(), 0);
    };
    let first =
        arrays.first().ok_or_else(|| Error::InvalidArgument("need at least one array to concatenate".into()))?;
    let nd = first.ndim();
    if nd == 0 {
        return Err(Error::InvalidArgument("zero-dimensional arrays cannot be concatenated".into()));
    }
    let ax = normalize_axis(axis, nd)?;
    let mut shape = first.shape().to_vec();
    shape[ax] = 0;
    for a in arrays {
        crate::array::same_device("concatenate", first, a)?;
        let ok = a.ndim() == nd && (0..nd).all(|d| d == ax || a.shape()[d] == first.shape()[d]);
        if !ok {
            return Err(Error::ShapeMismatch {
                op: "concatenate".into(),
                a: first.shape().to_vec(),
                b: a.shape().to_vec(),
            });
        }
        shape[ax] += a.shape()[ax];
    }
    let dt = result_type(&arrays.iter().map(|a| a.dtype()).collect::<Vec<_>>()).unwrap_or(DType::Float64);
    let mut out = Array::alloc(&shape, dt, first.device(), false)?;
    let mut at = 0isize;
    for a in arrays {
        let n = a.shape()[ax] as isize;
        if n > 0 {
            out.slice_mut(along(nd, ax, Some(at), Some(at + n), 1))?.assign(a)?;
        }
        at += n;
    }
    Ok(out)
}

/// NumPy's `stack(arrays, axis)`: joins along a new axis; all shapes must be equal.
pub fn stack(arrays: &[&Array], axis: isize) -> Result<Array> {
    let first = arrays.first().ok_or_else(|| Error::InvalidArgument("need at least one array to stack".into()))?;
    for a in arrays {
        if a.shape() != first.shape() {
            return Err(Error::ShapeMismatch { op: "stack".into(), a: first.shape().to_vec(), b: a.shape().to_vec() });
        }
    }
    let ax = normalize_axis(axis, first.ndim() + 1)? as isize;
    let expanded: Vec<Array> = arrays.iter().map(|a| a.expand_dims(ax)).collect::<Result<_>>()?;
    concatenate(&expanded.iter().collect::<Vec<_>>(), ax)
}

/// NumPy's `hstack`: along the first axis for 1-d arrays, else the second.
pub fn hstack(arrays: &[&Array]) -> Result<Array> {
    let a1: Vec<Array> = arrays.iter().map(|a| atleast_1d(a)).collect::<Result<_>>()?;
    let axis = if a1.first().is_some_and(|a| a.ndim() == 1) { 0 } else { 1 };
    concatenate(&a1.iter().collect::<Vec<_>>(), axis)
}

/// NumPy's `vstack`: along the first axis after `atleast_2d`.
pub fn vstack(arrays: &[&Array]) -> Result<Array> {
    let a2: Vec<Array> = arrays.iter().map(|a| atleast_2d(a)).collect::<Result<_>>()?;
    concatenate(&a2.iter().collect::<Vec<_>>(), 0)
}

/// NumPy's `dstack`: along the third axis after `atleast_3d`.
pub fn dstack(arrays: &[&Array]) -> Result<Array> {
    let a3: Vec<Array> = arrays.iter().map(|a| atleast_3d(a)).collect::<Result<_>>()?;
    concatenate(&a3.iter().collect::<Vec<_>>(), 2)
}

/// NumPy's `atleast_1d` (a view).
pub fn atleast_1d(a: &Array) -> Result<Array> {
    if a.ndim() == 0 {
        a.reshape([1])
    } else {
        Ok(a.view())
    }
}

/// NumPy's `atleast_2d` (a view): `(n,)` becomes `(1, n)`.
pub fn atleast_2d(a: &Array) -> Result<Array> {
    match a.ndim() {
        0 => a.reshape([1, 1]),
        1 => a.expand_dims(0),
        _ => Ok(a.view()),
    }
}

/// NumPy's `atleast_3d` (a view): `(n,)` becomes `(1, n, 1)`, `(m, n)` becomes `(m, n, 1)`.
pub fn atleast_3d(a: &Array) -> Result<Array> {
    match a.ndim() {
        0 => a.reshape([1, 1, 1]),
        1 => a.expand_dims(0)?.expand_dims(2),
        2 => a.expand_dims(2),
        _ => Ok(a.view()),
    }
}

/// How [`split`] cuts an axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sections {
    /// This many pieces (equal for `split`; the first `len % n` one longer for `array_split`).
    Count(usize),
    /// Cut before each of these indices.
    Indices(Vec<isize>),
}

impl From<usize> for Sections {
    fn from(n: usize) -> Self {
        Sections::Count(n)
    }
}
impl From<i32> for Sections {
    fn from(n: i32) -> Self {
        Sections::Count(n.max(0) as usize)
    }
}
impl From<Vec<isize>> for Sections {
    fn from(v: Vec<isize>) -> Self {
        Sections::Indices(v)
    }
}
impl<const N: usize> From<[isize; N]> for Sections {
    fn from(v: [isize; N]) -> Self {
        Sections::Indices(v.to_vec())
    }
}

fn split_impl(a: &Array, sections: Sections, axis: isize, equal: bool) -> Result<Vec<Array>> {
    if a.ndim() == 0 {
        return Err(Error::Index("cannot split a 0-d array".into()));
    }
    let ax = normalize_axis(axis, a.ndim())?;
    let len = a.shape()[ax] as isize;
    let bounds: Vec<isize> = match sections {
        Sections::Count(0) => return Err(Error::InvalidArgument("number of sections must be larger than 0".into())),
        Sections::Count(n) => {
            if equal && len % n as isize != 0 {
                return Err(Error::InvalidArgument("array split does not result in an equal division".into()));
            }
            let (q, r) = (len / n as isize, len % n as isize);
            let mut b = vec![0];
            for k in 0..n as isize {
                b.push(b[k as usize] + q + if k < r { 1 } else { 0 });
            }
            b
        }
        Sections::Indices(ix) => {
            let mut b = vec![0];
            b.extend(ix);
            b.push(len);
            b
        }
    };
    bounds
        .windows(2)
        .map(|w| {
            let clamp = |v: isize| if v < 0 { (v + len).max(0) } else { v.min(len) };
            let (s, e) = (clamp(w[0]), clamp(w[1]).max(clamp(w[0])));
            a.slice(along(a.ndim(), ax, Some(s), Some(e), 1))
        })
        .collect()
}

/// NumPy's `split`: views; `Count(n)` must divide the axis evenly.
pub fn split(a: &Array, sections: impl Into<Sections>, axis: isize) -> Result<Vec<Array>> {
    split_impl(a, sections.into(), axis, true)
}

/// NumPy's `array_split`: like [`split`], but `Count(n)` may divide unevenly.
pub fn array_split(a: &Array, sections: impl Into<Sections>, axis: isize) -> Result<Vec<Array>> {
    split_impl(a, sections.into(), axis, false)
}

/// NumPy's `flip`: reverses the order along `axis`, along several (`[0, 1]`), or along every
/// axis for `None` (a view). A repeated axis is NumPy's `ValueError`.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::arange(6, &dev)?.reshape([2, 3])?;
/// assert_eq!(a.flip(1)?.to_vec::<i64>()?, vec![2, 1, 0, 5, 4, 3]);
/// assert_eq!(a.flip([0, 1])?.to_vec::<i64>()?, a.flip(None)?.to_vec::<i64>()?);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn flip(a: &Array, axis: impl Into<Axes>) -> Result<Array> {
    let axes = axis.into().resolve(a.ndim())?;
    let mut ix = vec![full_slice(); a.ndim()];
    for ax in axes {
        ix[ax] = SliceElem::Slice { start: None, end: None, step: -1 };
    }
    a.slice(ix)
}

/// NumPy's `fliplr`: the columns (axis 1) in reverse order, a view; fewer than 2 dimensions is
/// NumPy's `ValueError`.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::arange(6, &dev)?.reshape([2, 3])?;
/// assert_eq!(cuprum::fliplr(&a)?.to_vec::<i64>()?, vec![2, 1, 0, 5, 4, 3]);
/// assert_eq!(a.fliplr()?.shape(), &[2, 3]);
/// assert!(cuprum::fliplr(&cuprum::arange(3, &dev)?).is_err());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn fliplr(a: &Array) -> Result<Array> {
    if a.ndim() < 2 {
        return Err(Error::Value("Input must be >= 2-d.".into()));
    }
    flip(a, 1)
}

/// NumPy's `flipud`: the rows (axis 0) in reverse order, a view; a 0-d array is NumPy's
/// `ValueError`.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::arange(6, &dev)?.reshape([2, 3])?;
/// assert_eq!(cuprum::flipud(&a)?.to_vec::<i64>()?, vec![3, 4, 5, 0, 1, 2]);
/// assert_eq!(a.flipud()?.to_vec::<i64>()?, a.flip(0)?.to_vec::<i64>()?);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn flipud(a: &Array) -> Result<Array> {
    if a.ndim() < 1 {
        return Err(Error::Value("Input must be >= 1-d.".into()));
    }
    flip(a, 0)
}

/// NumPy's `roll`: shifts elements along `axis`, along each of several axes (`[0, 1]`: by
/// `shift` along each; an axis named twice rolls twice, as in NumPy), or along the flattened
/// array for `None`, wrapping.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::arange(6, &dev)?.reshape([2, 3])?;
/// assert_eq!(a.roll(1, None)?.to_vec::<i64>()?, vec![5, 0, 1, 2, 3, 4]);
/// assert_eq!(a.roll(1, -1)?.to_vec::<i64>()?, vec![2, 0, 1, 5, 3, 4]);
/// assert_eq!(a.roll(1, [0, 1])?.to_vec::<i64>()?, vec![5, 3, 4, 2, 0, 1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn roll(a: &Array, shift: isize, axis: impl Into<Axes>) -> Result<Array> {
    let axes = match axis.into() {
        Axes::All => return roll(&a.ravel()?, shift, 0)?.reshape(a.shape()),
        Axes::Some(v) => v,
    };
    if axes.len() != 1 {
        let mut cur = a.copy()?;
        for &ax in &axes {
            cur = roll_axis(&cur, shift, ax)?;
        }
        return Ok(cur);
    }
    roll_axis(a, shift, axes[0])
}

fn roll_axis(a: &Array, shift: isize, ax: isize) -> Result<Array> {
    let ax = normalize_axis(ax, a.ndim())?;
    let n = a.shape()[ax] as isize;
    if n == 0 {
        return a.copy();
    }
    let s = shift.rem_euclid(n);
    let tail = a.slice(along(a.ndim(), ax, Some(n - s), None, 1))?;
    let head = a.slice(along(a.ndim(), ax, None, Some(n - s), 1))?;
    concatenate(&[&tail, &head], ax as isize)
}

/// NumPy's `tile`: repeats the whole array `reps` times along each axis.
pub fn tile(a: &Array, reps: &[usize]) -> Result<Array> {
    let nd = a.ndim().max(reps.len());
    let mut shape = vec![1usize; nd - a.ndim()];
    shape.extend_from_slice(a.shape());
    let mut r = vec![1usize; nd - reps.len()];
    r.extend_from_slice(reps);
    // View as (1, d0, 1, d1, ...), broadcast to (r0, d0, r1, d1, ...), copy, merge pairs.
    let inter: Vec<usize> = shape.iter().flat_map(|&d| [1, d]).collect();
    let target: Vec<usize> = shape.iter().zip(&r).flat_map(|(&d, &k)| [k, d]).collect();
    let out_shape: Vec<usize> = shape.iter().zip(&r).map(|(&d, &k)| d * k).collect();
    a.reshape(&inter)?.broadcast_to(&target)?.copy()?.reshape(&out_shape)
}

/// NumPy's `repeat` with one count: each element `repeats` times along `axis` (the flattened
/// array for `None`; one axis at most, [`Axes`]).
pub fn repeat(a: &Array, repeats: usize, axis: impl Into<Axes>) -> Result<Array> {
    let Some(ax) = axis.into().single()? else {
        return repeat(&a.ravel()?, repeats, 0);
    };
    let ax = normalize_axis(ax, a.ndim())?;
    let e = a.expand_dims(ax as isize + 1)?;
    let mut target = e.shape().to_vec();
    target[ax + 1] = repeats;
    let mut out_shape = a.shape().to_vec();
    out_shape[ax] *= repeats;
    e.broadcast_to(&target)?.copy()?.reshape(&out_shape)
}

/// Padding modes of [`pad`], as NumPy's `mode=`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum PadMode {
    /// A constant value on both sides.
    Constant(Scalar),
    /// The edge values repeated.
    Edge,
    /// Mirrored without repeating the edge (`[3, 2 | 1, 2, 3 | 2, 1]`).
    Reflect,
    /// Mirrored with the edge repeated (`[2, 1 | 1, 2, 3 | 3, 2]`).
    Symmetric,
    /// Wrapped around (`[2, 3 | 1, 2, 3 | 1, 2]`).
    Wrap,
}

/// The source index along an axis of length `n` for output position `j` (relative to the
/// first element of the input) under `mode`.
fn pad_index(j: isize, n: isize, mode: PadMode) -> isize {
    match mode {
        PadMode::Wrap => j.rem_euclid(n),
        PadMode::Edge | PadMode::Constant(_) => j.clamp(0, n - 1),
        PadMode::Reflect => {
            if n == 1 {
                return 0;
            }
            let m = j.rem_euclid(2 * n - 2);
            if m < n {
                m
            } else {
                2 * n - 2 - m
            }
        }
        PadMode::Symmetric => {
            let m = j.rem_euclid(2 * n);
            if m < n {
                m
            } else {
                2 * n - 1 - m
            }
        }
    }
}

/// The slices of `a` along `axis` that make up positions `lo..hi` (relative to element 0)
/// under `mode`: maximal runs of consecutive source indices, each a view.
fn pad_runs(a: &Array, axis: usize, lo: isize, hi: isize, mode: PadMode) -> Result<Vec<Array>> {
    let n = a.shape()[axis] as isize;
    let mut runs = Vec::new();
    let mut j = lo;
    while j < hi {
        let s = pad_index(j, n, mode);
        let mut k = j + 1;
        // A repeated index (edge padding): one element broadcast along the axis.
        while k < hi && pad_index(k, n, mode) == s {
            k += 1;
        }
        if k - j > 1 {
            let one = a.slice(along(a.ndim(), axis, Some(s), Some(s + 1), 1))?;
            let mut shape = one.shape().to_vec();
            shape[axis] = (k - j) as usize;
            runs.push(one.broadcast_to(&shape)?);
            j = k;
            continue;
        }
        let step = if k < hi { pad_index(k, n, mode) - s } else { 1 };
        let step = if step == 1 || step == -1 { step } else { 1 };
        while k < hi && pad_index(k, n, mode) == s + step * (k - j) {
            k += 1;
        }
        let len = k - j;
        let end = s + step * len;
        let ix = along(a.ndim(), axis, Some(s), if end < 0 { None } else { Some(end) }, step);
        runs.push(a.slice(ix)?);
        j = k;
    }
    Ok(runs)
}

/// NumPy's `pad(a, pad_width)`: zeros before and after, `pad_width[i] = (before, after)` for
/// axis `i` (one pair for every axis); [`pad_with`] takes the mode.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let p = cuprum::pad(&cuprum::from_vec(vec![1i64, 2, 3], &dev)?, &[(2, 1)])?;
/// assert_eq!(p.to_vec::<i64>()?, vec![0, 0, 1, 2, 3, 0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn pad(a: &Array, pad_width: &[(usize, usize)]) -> Result<Array> {
    pad_with(a, pad_width, PadMode::Constant(Scalar::Int(0)))
}

/// NumPy's `pad(a, pad_width, mode)` (`PadMode::Constant(v)`: `mode="constant",
/// constant_values=v`).
///
/// ```
/// use cuprum::PadMode;
/// let dev = cuprum::Device::default_device();
/// let p = cuprum::pad_with(&cuprum::from_vec(vec![1i64, 2, 3], &dev)?, &[(2, 1)], PadMode::Reflect)?;
/// assert_eq!(p.to_vec::<i64>()?, vec![3, 2, 1, 2, 3, 2]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn pad_with(a: &Array, pad_width: &[(usize, usize)], mode: PadMode) -> Result<Array> {
    if pad_width.len() != a.ndim() {
        return Err(Error::InvalidArgument(format!(
            "pad: {} (before, after) pairs for {} axes",
            pad_width.len(),
            a.ndim()
        )));
    }
    // The result's memory first: a width no device holds is a MemoryError (a size past any
    // address space NumPy's "array is too big" ValueError) at once, before the runs below (one
    // per period of the source: a width of 2^40 made 2^38 of them).
    let mut shape = a.shape().to_vec();
    for (d, &(before, after)) in shape.iter_mut().zip(pad_width) {
        *d = d.saturating_add(before).saturating_add(after);
    }
    drop(Array::alloc(&shape, a.dtype(), a.device(), false)?);
    let mut cur = a.view();
    for (ax, &(before, after)) in pad_width.iter().enumerate() {
        if before == 0 && after == 0 {
            continue;
        }
        let n = cur.shape()[ax] as isize;
        let (b, f) = (before as isize, after as isize);
        let pieces: Vec<Array> = match mode {
            PadMode::Constant(v) => {
                let mut sb = cur.shape().to_vec();
                sb[ax] = before;
                let mut sa = cur.shape().to_vec();
                sa[ax] = after;
                vec![
                    crate::full(&sb, v, cur.dtype(), &cur.device())?,
                    cur.view(),
                    crate::full(&sa, v, cur.dtype(), &cur.device())?,
                ]
            }
            _ if n == 0 => return Err(Error::InvalidArgument("can't extend an empty axis with this pad mode".into())),
            _ => pad_runs(&cur, ax, -b, n + f, mode)?,
        };
        cur = concatenate(&pieces.iter().collect::<Vec<_>>(), ax as isize)?;
    }
    if cur.shares_storage(a) {
        return cur.copy();
    }
    Ok(cur)
}

/// NumPy's `diff(a)`: the differences of neighbours along the last axis (`!=` for bools); the
/// keywords `n` and `axis`: [`diff_with`].
pub fn diff(a: &Array) -> Result<Array> {
    diff_with(a, &DiffOptions::default())
}

/// The keywords of [`diff_with`]; `Default` is NumPy's (`n=1`, `axis=-1`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DiffOptions {
    /// How many times the differences are taken.
    pub n: usize,
    /// The axis along which they are taken.
    pub axis: isize,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions { n: 1, axis: -1 }
    }
}

/// NumPy's `diff(a, n=..., axis=...)`: the `n`-th discrete difference along `axis`.
///
/// ```
/// use cuprum::DiffOptions;
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::from_vec(vec![1i32, 2, 4, 7, 0], &dev)?;
/// assert_eq!(cuprum::diff(&a)?.to_vec::<i32>()?, [1, 2, 3, -7]);
/// assert_eq!(cuprum::diff_with(&a, &DiffOptions { n: 2, ..Default::default() })?.to_vec::<i32>()?, [1, 1, -10]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn diff_with(a: &Array, options: &DiffOptions) -> Result<Array> {
    let DiffOptions { n, axis } = *options;
    let ax = normalize_axis(axis, a.ndim())?;
    let mut cur = a.view();
    for _ in 0..n {
        let hi = cur.slice(along(cur.ndim(), ax, Some(1), None, 1))?;
        let lo = cur.slice(along(cur.ndim(), ax, None, Some(-1), 1))?;
        cur = if cur.dtype() == DType::Bool { hi.not_equal(&lo)? } else { hi.subtract(&lo)? };
    }
    if cur.shares_storage(a) {
        return cur.copy();
    }
    Ok(cur)
}

impl Array {
    /// NumPy's `flip` (a view).
    pub fn flip(&self, axis: impl Into<Axes>) -> Result<Array> {
        flip(self, axis)
    }
    /// NumPy's `fliplr` (a view).
    pub fn fliplr(&self) -> Result<Array> {
        fliplr(self)
    }
    /// NumPy's `flipud` (a view).
    pub fn flipud(&self) -> Result<Array> {
        flipud(self)
    }
    /// NumPy's `roll`.
    pub fn roll(&self, shift: isize, axis: impl Into<Axes>) -> Result<Array> {
        roll(self, shift, axis)
    }
    /// NumPy's `repeat` with one count.
    pub fn repeat(&self, repeats: usize, axis: impl Into<Axes>) -> Result<Array> {
        repeat(self, repeats, axis)
    }
    /// NumPy's `diff` (along the last axis; the keywords: [`diff_with`]).
    pub fn diff(&self) -> Result<Array> {
        diff(self)
    }
}
