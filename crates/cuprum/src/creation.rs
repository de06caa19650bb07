//! Creating arrays on any device: zeros, ones, full, empty and their `_like` forms, ranges,
//! meshgrid, eye/identity, and arrays from Rust data.

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{DType, Element, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout;
use crate::ufunc::Ramp;

/// An array of `shape` whose contents are unspecified (NumPy's `empty`; on the CPU it is zeroed).
pub fn empty(shape: &[usize], dtype: DType, device: &Device) -> Result<Array> {
    Array::alloc(shape, dtype, *device, false)
}

/// A host array in page-locked ("pinned") memory, zeroed (`cupyx.empty_pinned`): copies
/// between it and a GPU run asynchronously on the current stream (see
/// [`Array::copy_from`]). Needs a CUDA driver (else `NoDevice`).
pub fn empty_pinned(shape: &[usize], dtype: DType) -> Result<Array> {
    Array::alloc_pinned(shape, dtype)
}

/// An array of zeros.
pub fn zeros(shape: &[usize], dtype: DType, device: &Device) -> Result<Array> {
    Array::alloc(shape, dtype, *device, true)
}

/// An array of ones.
pub fn ones(shape: &[usize], dtype: DType, device: &Device) -> Result<Array> {
    full(shape, 1, dtype, device)
}

/// An array filled with `value` (converted to `dtype`).
pub fn full(shape: &[usize], value: impl Into<Scalar>, dtype: DType, device: &Device) -> Result<Array> {
    let mut a = Array::alloc(shape, dtype, *device, false)?;
    a.fill(value)?;
    Ok(a)
}

/// `empty` with the shape, dtype and device of `a`.
pub fn empty_like(a: &Array) -> Result<Array> {
    empty(a.shape(), a.dtype(), &a.device())
}
/// `zeros` with the shape, dtype and device of `a`.
pub fn zeros_like(a: &Array) -> Result<Array> {
    zeros(a.shape(), a.dtype(), &a.device())
}
/// `ones` with the shape, dtype and device of `a`.
pub fn ones_like(a: &Array) -> Result<Array> {
    ones(a.shape(), a.dtype(), &a.device())
}
/// `full` with the shape, dtype and device of `a`.
pub fn full_like(a: &Array, value: impl Into<Scalar>) -> Result<Array> {
    full(a.shape(), value, a.dtype(), &a.device())
}

/// `np.arange(n)`: int64 values `0..n`.
pub fn arange(n: i64, device: &Device) -> Result<Array> {
    arange_with(0, n, 1, DType::Int64, device)
}

/// `np.arange(start, stop, step, dtype=...)` for integer bounds.
pub fn arange_with(start: i64, stop: i64, step: i64, dtype: DType, device: &Device) -> Result<Array> {
    if step == 0 {
        return Err(Error::InvalidArgument("arange: step must not be zero".into()));
    }
    let n = if (step > 0 && stop > start) || (step < 0 && stop < start) {
        ((stop as i128 - start as i128).abs() + step.unsigned_abs() as i128 - 1) / step.unsigned_abs() as i128
    } else {
        0
    } as usize;
    let out = Array::alloc(&[n], dtype, *device, false)?;
    crate::ufunc::iota(&out, Ramp::Int { start, step })?;
    Ok(out)
}

/// `np.arange(start, stop, step)` with float bounds (float64 unless `dtype` says otherwise);
/// the length is `ceil((stop - start) / step)` as in NumPy.
pub fn arange_f(start: f64, stop: f64, step: f64, dtype: DType, device: &Device) -> Result<Array> {
    if step == 0.0 || !step.is_finite() || !start.is_finite() || !stop.is_finite() {
        return Err(Error::InvalidArgument("arange: bounds and step must be finite and step non-zero".into()));
    }
    let n = ((stop - start) / step).ceil().max(0.0) as usize;
    let out = Array::alloc(&[n], dtype, *device, false)?;
    // NumPy steps by the difference of the first two values, (start + step) - start.
    crate::ufunc::iota(&out, Ramp::Float { start, step: (start + step) - start, last: None })?;
    Ok(out)
}

/// `np.linspace(start, stop, num, dtype=dtype)`: `num` values from `start` to `stop`
/// included (the keyword `endpoint`: [`linspace_with`]). Integer dtypes are computed in
/// float64, floored and cast, as NumPy's.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::linspace(0.0, 1.0, 5, cuprum::DType::Float64, &dev)?;   // np.linspace(0, 1, 5)
/// assert_eq!(x.to_vec::<f64>()?, [0.0, 0.25, 0.5, 0.75, 1.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn linspace(start: f64, stop: f64, num: usize, dtype: DType, device: &Device) -> Result<Array> {
    linspace_with(start, stop, num, dtype, &LinspaceOptions::default(), device)
}

/// The keywords of [`linspace_with`]; `Default` is NumPy's (`endpoint=True`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinspaceOptions {
    /// Whether `stop` is the last value (`true`) or just past it (`false`: `num` steps of
    /// `(stop - start) / num`).
    pub endpoint: bool,
}

impl Default for LinspaceOptions {
    fn default() -> Self {
        LinspaceOptions { endpoint: true }
    }
}

/// `np.linspace(start, stop, num, endpoint=..., dtype=dtype)`.
///
/// ```
/// use cuprum::{DType, LinspaceOptions};
/// let dev = cuprum::Device::default_device();
/// // np.linspace(0, 1, 4, endpoint=False)
/// let x = cuprum::linspace_with(0.0, 1.0, 4, DType::Float64, &LinspaceOptions { endpoint: false }, &dev)?;
/// assert_eq!(x.to_vec::<f64>()?, [0.0, 0.25, 0.5, 0.75]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn linspace_with(
    start: f64,
    stop: f64,
    num: usize,
    dtype: DType,
    options: &LinspaceOptions,
    device: &Device,
) -> Result<Array> {
    let endpoint = options.endpoint;
    if !dtype.is_float() {
        // As NumPy: computed in float64, floored, then cast.
        return linspace_with(start, stop, num, DType::Float64, options, device)?.floor()?.astype(dtype);
    }
    let div = if endpoint { num.saturating_sub(1) } else { num };
    let step = if div > 0 { (stop - start) / div as f64 } else { f64::NAN };
    let out = Array::alloc(&[num], dtype, *device, false)?;
    if num == 1 {
        crate::ufunc::iota(&out, Ramp::Float { start, step: 0.0, last: None })?;
    } else {
        crate::ufunc::iota(&out, Ramp::Float { start, step, last: if endpoint { Some(stop) } else { None } })?;
    }
    Ok(out)
}

/// Indexing convention of [`meshgrid_with`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Indexing {
    /// Cartesian (NumPy's default): the first two outputs are transposed.
    #[default]
    Xy,
    /// Matrix indexing.
    Ij,
}

/// `np.meshgrid(*xs)`: coordinate matrices (contiguous copies, as NumPy's default
/// `copy=True`), as many as inputs, in a fixed-size array that destructures; Cartesian
/// indexing (NumPy's default `'xy'`: the first two outputs transposed; `indexing='ij'`:
/// [`meshgrid_with`]). Inputs of any shape are flattened, as NumPy's.
///
/// ```
/// use cuprum::{Indexing, MeshgridOptions};
/// let dev = cuprum::Device::default_device();
/// let (x, y) = (cuprum::arange(3, &dev)?, cuprum::arange(2, &dev)?);
/// let [xx, yy] = cuprum::meshgrid([&x, &y])?;   // xx, yy = np.meshgrid(x, y)
/// assert_eq!((xx.shape(), yy.shape()), (&[2usize, 3][..], &[2usize, 3][..]));
/// assert_eq!(xx.to_vec::<i64>()?, vec![0, 1, 2, 0, 1, 2]);
/// assert_eq!(yy.to_vec::<i64>()?, vec![0, 0, 0, 1, 1, 1]);
/// let [ii, _jj] = cuprum::meshgrid_with([&x, &y], &MeshgridOptions { indexing: Indexing::Ij })?;
/// assert_eq!(ii.shape(), &[3, 2]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn meshgrid<const N: usize>(xs: [&Array; N]) -> Result<[Array; N]> {
    meshgrid_with(xs, &MeshgridOptions::default())
}

/// The keywords of [`meshgrid_with`]; `Default` is NumPy's (`indexing='xy'`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct MeshgridOptions {
    /// Cartesian (`Xy`) or matrix (`Ij`) indexing.
    pub indexing: Indexing,
}

/// `np.meshgrid(*xs, indexing=...)`.
pub fn meshgrid_with<const N: usize>(xs: [&Array; N], options: &MeshgridOptions) -> Result<[Array; N]> {
    let v = meshgrid_slice_with(&xs, options)?;
    Ok(v.try_into().unwrap_or_else(|_| unreachable!("one output per input")))
}

/// [`meshgrid`] of a number of inputs known only at run time.
pub fn meshgrid_slice(xs: &[&Array]) -> Result<Vec<Array>> {
    meshgrid_slice_with(xs, &MeshgridOptions::default())
}

/// [`meshgrid_with`] of a number of inputs known only at run time.
pub fn meshgrid_slice_with(xs: &[&Array], options: &MeshgridOptions) -> Result<Vec<Array>> {
    let indexing = options.indexing;
    let n = xs.len();
    if n == 0 {
        return Ok(vec![]);
    }
    for x in xs {
        crate::array::same_device("meshgrid", xs[0], x)?;
    }
    let lens: Vec<usize> = xs.iter().map(|x| x.size()).collect();
    let mut shape = lens.clone();
    if indexing == Indexing::Xy && n >= 2 {
        shape.swap(0, 1);
    }
    let mut out = Vec::with_capacity(n);
    for (i, x) in xs.iter().enumerate() {
        let flat = x.ravel()?;
        let mut pos = i;
        if indexing == Indexing::Xy && n >= 2 && i < 2 {
            pos = 1 - i;
        }
        let mut vshape = vec![1usize; n];
        vshape[pos] = lens[i];
        let v = flat.reshape(&vshape)?;
        let b = v.broadcast_to(&shape)?;
        out.push(b.copy()?);
    }
    Ok(out)
}

/// `np.eye(n, dtype=dtype)`: the `n` x `n` identity (the keywords `M` and `k`: [`eye_with`]).
pub fn eye(n: usize, dtype: DType, device: &Device) -> Result<Array> {
    eye_with(n, dtype, &EyeOptions::default(), device)
}

/// The keywords of [`eye_with`]; `Default` is NumPy's (`M=None`, `k=0`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EyeOptions {
    /// The number of columns (`None`: `n`).
    pub m: Option<usize>,
    /// The diagonal of ones: 0 the main one, above it positive, below it negative.
    pub k: isize,
}

/// `np.eye(n, M=m, k=k, dtype=dtype)`: ones on the `k`-th diagonal of an `n` x `m` array.
///
/// ```
/// use cuprum::{DType, EyeOptions};
/// let dev = cuprum::Device::default_device();
/// let e = cuprum::eye_with(2, DType::Int32, &EyeOptions { m: Some(3), k: 1 }, &dev)?;   // np.eye(2, 3, k=1, dtype=np.int32)
/// assert_eq!(e.to_vec::<i32>()?, [0, 1, 0, 0, 0, 1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn eye_with(n: usize, dtype: DType, options: &EyeOptions, device: &Device) -> Result<Array> {
    let m = options.m.unwrap_or(n);
    let a = zeros(&[n, m], dtype, device)?;
    a.diagonal_with(options.k, 0, 1)?.fill(1)?;
    Ok(a)
}

/// `np.identity(n)`.
pub fn identity(n: usize, dtype: DType, device: &Device) -> Result<Array> {
    eye(n, dtype, device)
}

/// An array of `shape` from a slice of elements in C order, on `device`.
pub fn from_slice<T: Element>(data: &[T], shape: &[usize], device: &Device) -> Result<Array> {
    let size = layout::size_of(shape);
    if size != data.len() {
        return Err(Error::ShapeMismatch { op: "from_slice".into(), a: vec![data.len()], b: shape.to_vec() });
    }
    let host = Array::alloc(shape, T::DTYPE, Device::Cpu, true)?;
    // SAFETY: `host` is a fresh block (no other handle yet) of `size` elements of `T`'s dtype,
    // `size_of_val(data)` bytes (`size == data.len()`, checked above), and `data` is a live slice
    // of as many bytes; `T: Element` is a plain number or a `bool` (0 or 1), so the bytes copied
    // are valid elements.
    unsafe {
        std::ptr::copy_nonoverlapping(
            data.as_ptr() as *const u8,
            host.storage.cpu().expect("host").ptr(),
            std::mem::size_of_val(data),
        );
    }
    if device.is_cpu() {
        Ok(host)
    } else {
        host.to_device(device)
    }
}

/// A 1-d array from a `Vec` (or anything sliceable).
pub fn from_vec<T: Element>(data: Vec<T>, device: &Device) -> Result<Array> {
    let n = data.len();
    from_slice(&data, &[n], device)
}

/// A 0-d array holding `value` (dtype of the Rust type).
pub fn scalar<T: Element>(value: T, device: &Device) -> Result<Array> {
    from_slice(&[value], &[], device)
}

/// Arrays of one element type that can be built from Rust data: see [`asarray`].
pub trait AsArray {
    fn to_array(&self, device: &Device) -> Result<Array>;
}

impl<T: Element, S: ndarray::Data<Elem = T>, D: ndarray::Dimension> AsArray for ndarray::ArrayBase<S, D> {
    fn to_array(&self, device: &Device) -> Result<Array> {
        let shape = self.shape().to_vec();
        match self.as_slice() {
            Some(s) => from_slice(s, &shape, device),
            None => {
                let v: Vec<T> = self.iter().copied().collect();
                from_slice(&v, &shape, device)
            }
        }
    }
}

impl<T: Element> AsArray for [T] {
    fn to_array(&self, device: &Device) -> Result<Array> {
        from_slice(self, &[self.len()], device)
    }
}
impl<T: Element> AsArray for Vec<T> {
    fn to_array(&self, device: &Device) -> Result<Array> {
        from_slice(self, &[self.len()], device)
    }
}
impl<T: Element, const N: usize> AsArray for [T; N] {
    fn to_array(&self, device: &Device) -> Result<Array> {
        from_slice(self, &[N], device)
    }
}
impl AsArray for Array {
    fn to_array(&self, device: &Device) -> Result<Array> {
        if self.device() == *device {
            Ok(self.view())
        } else {
            self.to_device(device)
        }
    }
}

/// CuPy's `cp.asarray`: an array on `device` from an `ndarray` array of any dimension, a
/// slice, a `Vec`, or another [`Array`] (a view if it is already there).
pub fn asarray<A: AsArray + ?Sized>(data: &A, device: &Device) -> Result<Array> {
    data.to_array(device)
}

impl Array {
    /// Copies to an `ndarray` array on the host (CuPy's `asnumpy` / `.get()`); `T` must be the
    /// array's dtype.
    pub fn to_ndarray<T: Element>(&self) -> Result<ndarray::ArrayD<T>> {
        let v = self.to_vec::<T>()?;
        ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(self.shape()), v)
            .map_err(|e| Error::InvalidArgument(e.to_string()))
    }

    /// Copies to an `ndarray` array of `T` on the host, converting the values as
    /// [`to_vec_as`](Array::to_vec_as) does (NumPy's `a.astype(T)` then `asnumpy`): an int64
    /// array as `f64`, say.
    ///
    /// ```
    /// let a = cuprum::arange(6, &cuprum::Device::default_device())?.reshape([2, 3])?;
    /// let m = a.to_ndarray_as::<f64>()?; // int64 values as f64
    /// assert_eq!(m.shape(), &[2, 3]);
    /// assert_eq!(m[[1, 2]], 5.0);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn to_ndarray_as<T: Element>(&self) -> Result<ndarray::ArrayD<T>> {
        let v = self.to_vec_as::<T>()?;
        ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(self.shape()), v)
            .map_err(|e| Error::InvalidArgument(e.to_string()))
    }
}
