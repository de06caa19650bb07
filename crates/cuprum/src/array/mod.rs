//! The [`Array`]: a dtype, a shape, byte strides and an offset into shared storage on one
//! device. Views (slices, transposes, reshapes that need no copy, broadcasts) share the
//! storage; operations allocate new storage on the inputs' device.

pub(crate) mod format;
pub(crate) mod print;

use crate::backend::storage::Storage;
use crate::core::device::Device;
use crate::core::dtype::{DType, Element, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout;
use crate::core::slice::{slice_indices, SliceElem};
use std::sync::Arc;

/// An n-dimensional array on the CPU or a CUDA GPU, with NumPy's semantics.
///
/// ```
/// let a = cuprum::arange(10, &cuprum::Device::Cpu)?.reshape([2, 5])?;
/// assert_eq!(a.strides(), &[40, 8]);
/// assert_eq!(format!("{a:?}"), "array([[0, 1, 2, 3, 4],\n       [5, 6, 7, 8, 9]])");
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct Array {
    pub(crate) storage: Arc<Storage>,
    pub(crate) dtype: DType,
    pub(crate) shape: Vec<usize>,
    /// Byte strides, as NumPy reports them.
    pub(crate) strides: Vec<isize>,
    /// Byte offset of element `[0, 0, ...]` in the storage.
    pub(crate) offset: usize,
}

/// `clone()` is a cheap new handle on the same data, as [`view`](Array::view): no elements are
/// copied, and writes through either are seen by both (NumPy's `b = a`, or `a.view()`). Use
/// [`copy`](Array::copy) for an independent copy.
///
/// ```
/// let dev = cuprum::Device::Cpu;
/// let a = cuprum::zeros(&[3], cuprum::DType::Float64, &dev)?;
/// let mut b = a.clone();
/// b.fill(2.0)?;
/// assert_eq!(a.to_vec::<f64>()?, vec![2.0; 3]); // the same memory
/// let c = a.copy()?; // a copy of its own
/// assert_eq!(c.to_vec::<f64>()?, vec![2.0; 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
impl Clone for Array {
    fn clone(&self) -> Array {
        self.view()
    }
}

/// The shape argument of [`Array::reshape`]: dimensions as an array, a slice, a `Vec` (or a
/// reference to one) of any integer type, one integer, or `()` for 0-d; one dimension may be
/// negative (`-1`, NumPy's unknown dimension, computed from the size). (`&[]` does not name
/// its element type: write `()`.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewShape(pub Vec<isize>);

macro_rules! new_shape_from {
    ($($t:ty),*) => {$(
        impl From<$t> for NewShape { fn from(d: $t) -> Self { NewShape(vec![dim(d)]) } }
        impl<const N: usize> From<[$t; N]> for NewShape { fn from(a: [$t; N]) -> Self { NewShape(a.iter().map(|&d| dim(d)).collect()) } }
        impl<const N: usize> From<&[$t; N]> for NewShape { fn from(a: &[$t; N]) -> Self { NewShape(a.iter().map(|&d| dim(d)).collect()) } }
        impl From<&[$t]> for NewShape { fn from(a: &[$t]) -> Self { NewShape(a.iter().map(|&d| dim(d)).collect()) } }
        impl From<Vec<$t>> for NewShape { fn from(a: Vec<$t>) -> Self { NewShape(a.iter().map(|&d| dim(d)).collect()) } }
        impl From<&Vec<$t>> for NewShape { fn from(a: &Vec<$t>) -> Self { NewShape(a.iter().map(|&d| dim(d)).collect()) } }
    )*};
}
new_shape_from!(i32, i64, isize, usize);
/// `()`: the 0-d shape (`a.reshape(())`, NumPy's `a.reshape(())`).
impl From<()> for NewShape {
    fn from(_: ()) -> Self {
        NewShape(Vec::new())
    }
}

/// One dimension as an `isize`; a `usize` too large for one saturates (and fails to resolve).
fn dim<T: TryInto<isize>>(d: T) -> isize {
    d.try_into().unwrap_or(isize::MAX)
}

impl Array {
    /// The address of the first element of this CPU array (a panic for a GPU array: callers
    /// are the CPU backend's loops).
    ///
    /// Computed with `wrapping_add`: the offset of a non-empty view lies within its storage
    /// block, but an empty view may keep an offset past the end (`zeros((0, 5))[:, 3]`), and
    /// such an address must never be formed with `add`. Only elements of non-empty views are
    /// dereferenced.
    #[inline]
    pub(crate) fn cpu_ptr(&self) -> crate::backend::cpu::Ptr {
        crate::backend::cpu::Ptr(self.storage.cpu().expect("CPU array").ptr().wrapping_add(self.offset))
    }

    // ------------------------------------------------------------------ construction

    /// An uninitialised C-contiguous array (the contents are unspecified but not undefined:
    /// host memory is zeroed, device memory holds whatever the pool block held).
    pub(crate) fn alloc(shape: &[usize], dtype: DType, device: Device, zeroed: bool) -> Result<Array> {
        let nbytes = layout::checked_nbytes(shape, dtype.itemsize())?;
        // Host memory is never uninitialised: small blocks and fresh large blocks are zeroed,
        // reused pool blocks hold earlier (initialised) contents unless `zeroed` asks otherwise.
        Ok(Array::c_order(Storage::alloc(device, nbytes, zeroed)?, shape, dtype))
    }

    /// A C-contiguous host array in page-locked memory (zeroed).
    pub(crate) fn alloc_pinned(shape: &[usize], dtype: DType) -> Result<Array> {
        let nbytes = layout::checked_nbytes(shape, dtype.itemsize())?;
        let storage = Arc::new(Storage::Cpu(crate::backend::storage::CpuStorage::new_pinned(nbytes)?));
        Ok(Array::c_order(storage, shape, dtype))
    }

    /// The C-contiguous array of `shape` and `dtype` at the start of `storage`.
    fn c_order(storage: Arc<Storage>, shape: &[usize], dtype: DType) -> Array {
        Array { storage, dtype, shape: shape.to_vec(), strides: layout::c_strides(shape, dtype.itemsize()), offset: 0 }
    }

    /// A 0-d host array holding `v` converted to `dtype`.
    pub(crate) fn scalar_cpu(v: Scalar, dtype: DType) -> Result<Array> {
        let a = Array::alloc(&[], dtype, Device::Cpu, true)?;
        let p = a.storage.cpu().expect("cpu").ptr();
        // SAFETY: `a` is a fresh 0-d array of `dtype` (no other handle exists yet): `p` is its
        // one element, aligned (the block is 64-byte aligned), and one element is stored.
        unsafe {
            match v {
                Scalar::Bool(b) => crate::backend::cpu::store(dtype, p, 0, &[b as i64]),
                Scalar::Int(i) => crate::backend::cpu::store(dtype, p, 0, &[i]),
                Scalar::UInt(u) => crate::backend::cpu::store(dtype, p, 0, &[u]),
                Scalar::Float(f) => crate::backend::cpu::store(dtype, p, 0, &[f]),
                Scalar::Complex(re, im) => {
                    crate::backend::cpu::store(dtype, p, 0, &[crate::backend::cpu::Cx { re, im }])
                }
            }
        }
        Ok(a)
    }

    pub(crate) fn view_with(&self, shape: Vec<usize>, strides: Vec<isize>, offset: usize) -> Array {
        Array { storage: self.storage.clone(), dtype: self.dtype, shape, strides, offset }
    }

    /// A new handle on the same data (NumPy's `a.view()`): writes through either are seen by both.
    pub fn view(&self) -> Array {
        self.view_with(self.shape.clone(), self.strides.clone(), self.offset)
    }

    /// NumPy's `a.view(dtype)`: the same bytes read as another dtype, nothing copied. A dtype of the
    /// same itemsize views any layout; one of another itemsize needs a contiguous last axis (or one
    /// of length 1) whose byte length it divides, and that axis grows or shrinks by the ratio of
    /// the itemsizes, as in NumPy. Unlike NumPy, the view's elements must also lie at multiples of
    /// the new itemsize (cuprum's kernels read aligned elements): else a `ValueError`.
    ///
    /// ```
    /// let dev = cuprum::Device::Cpu;
    /// let a = cuprum::from_vec(vec![1.0f32, -0.0], &dev)?;
    /// let bits = a.view_as(cuprum::DType::UInt32)?;
    /// assert_eq!(bits.to_vec::<u32>()?, vec![0x3f80_0000, 0x8000_0000]);
    /// let pairs = a.view_as(cuprum::DType::UInt16)?;
    /// assert_eq!(pairs.shape(), &[4]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn view_as(&self, dtype: DType) -> Result<Array> {
        let (old, new) = (self.dtype.itemsize(), dtype.itemsize());
        if old == new {
            return Ok(Array { dtype, ..self.view() });
        }
        let Some(last) = self.shape.len().checked_sub(1) else {
            return Err(Error::Value(
                "Changing the dtype of a 0d array is only supported if the itemsize is unchanged".into(),
            ));
        };
        if self.shape[last] != 1 && self.strides[last] != old as isize {
            return Err(Error::Value(
                "To change to a dtype of a different size, the last axis must be contiguous".into(),
            ));
        }
        let bytes = self.shape[last] * old;
        if !bytes.is_multiple_of(new) {
            return Err(Error::Value(
                "When changing to a larger dtype, its size must be a divisor of the total size in bytes of the last axis of the array.".into(),
            ));
        }
        let misaligned = |s: isize| !s.unsigned_abs().is_multiple_of(new);
        let empty = self.shape.contains(&0);
        if !empty
            && (!self.offset.is_multiple_of(new)
                || self.strides[..last].iter().zip(&self.shape).any(|(&s, &n)| n > 1 && misaligned(s)))
        {
            return Err(Error::Value(format!(
                "cuprum: a view as {} would not be aligned to its itemsize ({new} bytes)",
                dtype.name()
            )));
        }
        let (mut shape, mut strides) = (self.shape.clone(), self.strides.clone());
        shape[last] = bytes / new;
        strides[last] = new as isize;
        Ok(Array { dtype, shape, strides, ..self.view() })
    }

    // ------------------------------------------------------------------ attributes

    pub fn dtype(&self) -> DType {
        self.dtype
    }
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// Strides in bytes, exactly as NumPy reports them.
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    pub fn size(&self) -> usize {
        self.shape.iter().product()
    }
    /// The length of the first axis (Python's `len(a)`). A 0-d array holds one element and
    /// its `len()` is 1 (NumPy's `len()` of a 0-d array is a TypeError; a Rust length is a
    /// plain number, and `for i in 0..a.len()` visits the one element).
    ///
    /// ```
    /// use cuprum::{Device, DType};
    /// assert_eq!(cuprum::zeros(&[3, 4], DType::Int8, &Device::Cpu)?.len(), 3);
    /// assert_eq!(cuprum::zeros(&[0, 4], DType::Int8, &Device::Cpu)?.len(), 0);
    /// assert_eq!(cuprum::scalar(1.0, &Device::Cpu)?.len(), 1);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.shape.first().copied().unwrap_or(1)
    }
    /// NumPy's `a.size == 0` (a 0-d array is not empty).
    pub fn is_empty(&self) -> bool {
        self.size() == 0
    }
    pub fn itemsize(&self) -> usize {
        self.dtype.itemsize()
    }
    pub fn nbytes(&self) -> usize {
        self.size() * self.itemsize()
    }
    pub fn device(&self) -> Device {
        self.storage.device()
    }
    pub fn is_c_contiguous(&self) -> bool {
        layout::is_c_contiguous(&self.shape, &self.strides, self.itemsize())
    }
    pub fn is_f_contiguous(&self) -> bool {
        layout::is_f_contiguous(&self.shape, &self.strides, self.itemsize())
    }
    /// Whether two arrays use the same memory block (NumPy's `np.shares_memory` at block level).
    pub fn shares_storage(&self, other: &Array) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }

    // ------------------------------------------------------------------ views

    /// Basic indexing: `a.slice(s![1..;2, .., 0])` is NumPy's `a[1::2, :, 0]`, a view.
    pub fn slice(&self, index: impl AsRef<[SliceElem]>) -> Result<Array> {
        let index = index.as_ref();
        let n_ell = index.iter().filter(|e| matches!(e, SliceElem::Ellipsis)).count();
        if n_ell > 1 {
            return Err(Error::Index("an index can only have a single ellipsis".into()));
        }
        let consumed = index.iter().filter(|e| matches!(e, SliceElem::Index(_) | SliceElem::Slice { .. })).count();
        if consumed > self.ndim() {
            return Err(Error::Index(format!(
                "too many indices for array: array is {}-dimensional, but {} were indexed",
                self.ndim(),
                consumed
            )));
        }
        let mut shape = Vec::new();
        let mut strides = Vec::new();
        let mut offset = self.offset as isize;
        let mut axis = 0usize;
        for e in index {
            match *e {
                SliceElem::Ellipsis => {
                    let take = self.ndim() - consumed;
                    for _ in 0..take {
                        shape.push(self.shape[axis]);
                        strides.push(self.strides[axis]);
                        axis += 1;
                    }
                }
                SliceElem::NewAxis => {
                    shape.push(1);
                    strides.push(0);
                }
                SliceElem::Index(i) => {
                    let len = self.shape[axis];
                    let j = if i < 0 { i + len as isize } else { i };
                    if j < 0 || j >= len as isize {
                        return Err(Error::IndexOutOfRange { index: i, axis, len });
                    }
                    offset += j * self.strides[axis];
                    axis += 1;
                }
                SliceElem::Slice { start, end, step } => {
                    let (s, st, n) = slice_indices(start, end, step, self.shape[axis])?;
                    if n > 0 {
                        offset += s * self.strides[axis];
                    }
                    shape.push(n);
                    // NumPy's `stride * step`. With two or more elements it stays within the axis'
                    // extent; with one or none any stride reads the same, so where a huge step
                    // overflows the product the axis keeps its stride.
                    strides.push(self.strides[axis].checked_mul(st).unwrap_or(self.strides[axis]));
                    axis += 1;
                }
            }
        }
        while axis < self.ndim() {
            shape.push(self.shape[axis]);
            strides.push(self.strides[axis]);
            axis += 1;
        }
        layout::check_ndim(shape.len())?;
        debug_assert!(offset >= 0);
        Ok(self.view_with(shape, strides, offset as usize))
    }

    /// Like [`slice`](Self::slice), for writing through the view:
    /// `deltas.slice_mut(s![8..;16, 8..;16])?.fill(1.0)?`.
    pub fn slice_mut(&mut self, index: impl AsRef<[SliceElem]>) -> Result<Array> {
        self.slice(index)
    }

    /// The sub-array at `index` along the first axis (`a[i]`).
    pub fn at(&self, index: isize) -> Result<Array> {
        if self.ndim() == 0 {
            return Err(Error::Index("too many indices for array: array is 0-dimensional".into()));
        }
        self.slice([SliceElem::Index(index)])
    }

    /// A new shape with the same data; a view when the layout allows (NumPy's rules), else a
    /// copy. One dimension may be `-1` (NumPy's unknown dimension): `a.reshape([2, -1])`,
    /// `a.reshape(&[4usize, 3])`, `a.reshape(other.shape())`, `a.reshape(&shape_vec)` (see
    /// [`NewShape`]).
    ///
    /// ```
    /// use cuprum::ErrorKind;
    /// let dev = cuprum::Device::default_device();
    /// let a = cuprum::arange(6, &dev)?;
    /// assert_eq!(a.reshape([2, -1])?.shape(), &[2, 3]);       // a.reshape(2, -1)
    /// assert_eq!(a.reshape(&[3usize, 2])?.shape(), &[3, 2]);  // a borrowed array, as before
    /// assert_eq!(a.reshape(-1)?.shape(), &[6]);
    /// let e = a.reshape([4, -1]).unwrap_err();
    /// assert_eq!((e.kind(), e.to_string().as_str()), (ErrorKind::ValueError, "cannot reshape array of size 6 into shape (4,-1)"));
    /// let e = a.reshape([-1, -1]).unwrap_err();
    /// assert_eq!(e.to_string(), "can only specify one unknown dimension");
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn reshape(&self, shape: impl Into<NewShape>) -> Result<Array> {
        self.reshape_i(&shape.into().0)
    }

    /// [`reshape`](Self::reshape) of a slice of `isize` (one may be `-1`).
    pub fn reshape_i(&self, shape: &[isize]) -> Result<Array> {
        layout::check_ndim(shape.len())?;
        let new = layout::resolve_shape(shape, self.size(), &self.shape)?;
        if let Some(st) = layout::reshape_strides(&self.shape, &self.strides, &new, self.itemsize()) {
            return Ok(self.view_with(new, st, self.offset));
        }
        let c = self.copy()?;
        let st = layout::c_strides(&new, self.itemsize());
        Ok(c.view_with(new, st, 0))
    }

    /// A 1-d array of the elements in C order: a view when possible.
    pub fn ravel(&self) -> Result<Array> {
        self.reshape([self.size()])
    }

    /// A 1-d copy of the elements in C order.
    pub fn flatten(&self) -> Result<Array> {
        let c = self.copy()?;
        Ok(c.view_with(vec![self.size()], vec![self.itemsize() as isize], 0))
    }

    /// Reverses the axes (a view).
    pub fn t(&self) -> Array {
        let mut shape = self.shape.clone();
        let mut strides = self.strides.clone();
        shape.reverse();
        strides.reverse();
        self.view_with(shape, strides, self.offset)
    }

    /// Reverses the axes (a view); NumPy's `transpose()`.
    pub fn transpose(&self) -> Array {
        self.t()
    }

    /// Permutes the axes (a view): `axes[i]` is the old axis that becomes axis `i`.
    pub fn permute(&self, axes: &[isize]) -> Result<Array> {
        if axes.len() != self.ndim() {
            return Err(Error::InvalidArgument(format!(
                "axes {:?} don't match array of {} dimensions",
                axes,
                self.ndim()
            )));
        }
        let mut seen = vec![false; self.ndim()];
        let mut shape = Vec::with_capacity(axes.len());
        let mut strides = Vec::with_capacity(axes.len());
        for &a in axes {
            let a = layout::normalize_axis(a, self.ndim())?;
            if seen[a] {
                return Err(Error::DuplicateAxis { axis: a });
            }
            seen[a] = true;
            shape.push(self.shape[a]);
            strides.push(self.strides[a]);
        }
        Ok(self.view_with(shape, strides, self.offset))
    }

    /// Exchanges two axes (a view).
    pub fn swapaxes(&self, a: isize, b: isize) -> Result<Array> {
        let (a, b) = (layout::normalize_axis(a, self.ndim())?, layout::normalize_axis(b, self.ndim())?);
        let mut shape = self.shape.clone();
        let mut strides = self.strides.clone();
        shape.swap(a, b);
        strides.swap(a, b);
        Ok(self.view_with(shape, strides, self.offset))
    }

    /// Moves axis `src` to position `dst` (a view).
    pub fn moveaxis(&self, src: isize, dst: isize) -> Result<Array> {
        let (s, d) = (layout::normalize_axis(src, self.ndim())?, layout::normalize_axis(dst, self.ndim())?);
        let mut order: Vec<isize> = (0..self.ndim() as isize).filter(|&a| a != s as isize).collect();
        order.insert(d, s as isize);
        self.permute(&order)
    }

    /// Removes all length-1 axes (a view).
    pub fn squeeze(&self) -> Array {
        let (shape, strides) =
            self.shape.iter().zip(&self.strides).filter(|(d, _)| **d != 1).map(|(d, s)| (*d, *s)).unzip();
        self.view_with(shape, strides, self.offset)
    }

    /// Removes the given length-1 axes (a view; NumPy's `squeeze(axis)`: one axis, several, or
    /// every length-1 axis for `None`); an error if one is not of length 1.
    pub fn squeeze_axes(&self, axes: impl Into<crate::core::layout::Axes>) -> Result<Array> {
        let axes = match axes.into() {
            crate::core::layout::Axes::All => return Ok(self.squeeze()),
            crate::core::layout::Axes::Some(v) => layout::normalize_axes(&v, self.ndim())?,
        };
        for &a in &axes {
            if self.shape[a] != 1 {
                return Err(Error::InvalidArgument(
                    "cannot select an axis to squeeze out which has size not equal to one".into(),
                ));
            }
        }
        let (shape, strides) =
            (0..self.ndim()).filter(|a| !axes.contains(a)).map(|a| (self.shape[a], self.strides[a])).unzip();
        Ok(self.view_with(shape, strides, self.offset))
    }

    /// NumPy's `expand_dims(a, axis)`: inserts a length-1 axis at `axis` (a view; `axis` may
    /// be `ndim` or negative), or at each of several (`[0, -1]`: positions in the result, as
    /// NumPy's tuple). `None` is NumPy's `TypeError`, a repeated axis its `ValueError`.
    ///
    /// ```
    /// let dev = cuprum::Device::default_device();
    /// let a = cuprum::zeros(&[2, 3], cuprum::DType::Float32, &dev)?;
    /// assert_eq!(a.expand_dims(1)?.shape(), &[2, 1, 3]);
    /// assert_eq!(a.expand_dims([0, -1])?.shape(), &[1, 2, 3, 1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn expand_dims(&self, axis: impl Into<crate::core::layout::Axes>) -> Result<Array> {
        let axes = match axis.into() {
            crate::core::layout::Axes::All => {
                return Err(Error::Type("'NoneType' object cannot be interpreted as an integer".into()));
            }
            crate::core::layout::Axes::Some(v) => v,
        };
        layout::check_ndim(self.ndim() + axes.len())?;
        if axes.len() == 1 {
            return self.expand_dim(axes[0]);
        }
        // Positions in the result, sorted: inserted one after the other they land there.
        let mut cur = self.view();
        for a in layout::normalize_axes(&axes, self.ndim() + axes.len())? {
            cur = cur.expand_dim(a as isize)?;
        }
        Ok(cur)
    }

    fn expand_dim(&self, axis: isize) -> Result<Array> {
        let a = layout::normalize_axis(axis, self.ndim() + 1)?;
        let mut shape = self.shape.clone();
        shape.insert(a, 1);
        // The strides NumPy's reshape gives (the new axis' stride is irrelevant but visible).
        let strides =
            layout::reshape_strides(&self.shape, &self.strides, &shape, self.itemsize()).unwrap_or_else(|| {
                let mut s = self.strides.clone();
                s.insert(a, 0);
                s
            });
        Ok(self.view_with(shape, strides, self.offset))
    }

    /// A read-only-in-spirit view with `shape` (stride 0 along broadcast axes).
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Array> {
        // The broadcast array must have a representable size (its copies would need it).
        layout::checked_nbytes(shape, self.itemsize())?;
        let st = self.strides_to(shape, "broadcast_to")?;
        Ok(self.view_with(shape.to_vec(), st, self.offset))
    }

    /// This array's byte strides broadcast to `shape` (0 along broadcast axes): the
    /// ShapeMismatch of operation `op` when it does not broadcast.
    pub(crate) fn strides_to(&self, shape: &[usize], op: &str) -> Result<Vec<isize>> {
        layout::broadcast_strides(&self.shape, &self.strides, shape).ok_or_else(|| Error::ShapeMismatch {
            op: op.to_string(),
            a: self.shape.clone(),
            b: shape.to_vec(),
        })
    }

    /// NumPy's `a.diagonal()`: the main diagonal over the first two axes (a view; the diagonal
    /// is the last axis of the result). [`diagonal_with`](Self::diagonal_with) takes NumPy's
    /// `offset`, `axis1` and `axis2`.
    ///
    /// ```
    /// let dev = cuprum::Device::default_device();
    /// let m = cuprum::arange(9, &dev)?.reshape([3, 3])?;
    /// assert_eq!(m.diagonal()?.to_vec::<i64>()?, vec![0, 4, 8]);
    /// assert_eq!(m.diagonal_with(1, 0, 1)?.to_vec::<i64>()?, vec![1, 5]);   // m.diagonal(1)
    /// assert_eq!(m.diagonal_with(-1, 1, 0)?.to_vec::<i64>()?, vec![1, 5]);  // m.diagonal(-1, 1, 0)
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn diagonal(&self) -> Result<Array> {
        self.diagonal_with(0, 0, 1)
    }

    /// NumPy's `a.diagonal(offset, axis1, axis2)`: the diagonal with `offset` of the 2-d
    /// sub-arrays over axes `axis1`, `axis2` (a view; the diagonal is the last axis of the
    /// result, as in NumPy).
    pub fn diagonal_with(&self, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
        if self.ndim() < 2 {
            return Err(Error::InvalidArgument("diag requires an array of at least two dimensions".into()));
        }
        let (a1, a2) = (layout::normalize_axis(axis1, self.ndim())?, layout::normalize_axis(axis2, self.ndim())?);
        if a1 == a2 {
            return Err(Error::InvalidArgument("axis1 and axis2 cannot be the same".into()));
        }
        let (n1, n2) = (self.shape[a1] as isize, self.shape[a2] as isize);
        let mut off = self.offset as isize;
        let len = if offset >= 0 {
            let l = n1.min(n2 - offset).max(0);
            if l > 0 {
                off += offset * self.strides[a2];
            }
            l
        } else {
            let l = (n1 + offset).min(n2).max(0);
            if l > 0 {
                off -= offset * self.strides[a1];
            }
            l
        };
        let mut shape: Vec<usize> = Vec::new();
        let mut strides: Vec<isize> = Vec::new();
        for a in 0..self.ndim() {
            if a != a1 && a != a2 {
                shape.push(self.shape[a]);
                strides.push(self.strides[a]);
            }
        }
        shape.push(len as usize);
        strides.push(self.strides[a1] + self.strides[a2]);
        Ok(self.view_with(shape, strides, off as usize))
    }

    // ------------------------------------------------------------------ copies

    /// This array if it is C-contiguous (a view), else a C-contiguous copy.
    pub fn as_contiguous(&self) -> Result<Array> {
        if self.is_c_contiguous() {
            Ok(self.view())
        } else {
            self.copy()
        }
    }

    /// A copy on `device` (C-contiguous). CuPy's `cp.asarray` / `.get()`. Copies run on the
    /// GPU's current stream; one from pinned host memory (large host arrays are pinned on
    /// their first copy) returns without waiting, and the host array waits for it before it is
    /// next written or freed. A copy to the host returns when the data are there.
    pub fn to_device(&self, device: &Device) -> Result<Array> {
        let device = *device;
        if device == self.device() {
            return self.copy();
        }
        let src = self.as_contiguous()?;
        let out = Array::alloc(&self.shape, self.dtype, device, false)?;
        let n = src.nbytes();
        match (&*src.storage, &*out.storage) {
            (Storage::Cpu(_), Storage::Cuda(_)) => htod(&src, &out, n > (4 << 20))?,
            (Storage::Cuda(_), Storage::Cpu(_)) => dtoh(&src, &out, n > (4 << 20), true)?,
            (Storage::Cuda(_), Storage::Cuda(_)) => {
                let host = src.to_device(&Device::Cpu)?;
                return host.to_device(&device);
            }
            (Storage::Cpu(_), Storage::Cpu(_)) => unreachable!("same device handled above"),
        }
        Ok(out)
    }

    /// Copies `src` into this array (`np.copyto(self, src)` across devices; CuPy's
    /// `a_gpu.set(a_host)` and `a_gpu.get(out=a_host)`): the shapes and dtypes must match.
    /// Between the host and a GPU the copy runs on the GPU's current stream and, when the host
    /// array is pinned ([`empty_pinned`](crate::empty_pinned), [`pinned`](Self::pinned)) and
    /// both sides are C-contiguous, returns without waiting: the host array waits for it before
    /// it is next read (a copy into it), written or freed. On one device it is
    /// [`assign`](Self::assign).
    ///
    /// ```no_run
    /// use cuprum::{DType, Device};
    /// let gpu = Device::Cuda(0);
    /// let host = cuprum::empty_pinned(&[1 << 20], DType::Float32)?;
    /// let mut dev = cuprum::empty(&[1 << 20], DType::Float32, &gpu)?;
    /// dev.copy_from(&host)?; // queued, no host wait
    /// let mut back = cuprum::empty_pinned(&[1 << 20], DType::Float32)?;
    /// back.copy_from(&dev.exp()?)?; // queued too; reading `back` waits for it
    /// assert_eq!(back.to_vec::<f32>()?[0], 1.0);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn copy_from(&mut self, src: &Array) -> Result<()> {
        if self.device() == src.device() {
            return self.assign(src);
        }
        if self.shape != src.shape {
            return Err(Error::ShapeMismatch { op: "copy_from".into(), a: src.shape.clone(), b: self.shape.clone() });
        }
        if self.dtype != src.dtype {
            return Err(Error::DTypeMismatch { expected: self.dtype, got: src.dtype });
        }
        if !self.is_c_contiguous() {
            let tmp = src.to_device(&self.device())?;
            return self.assign(&tmp);
        }
        let src = src.as_contiguous()?;
        match (&*src.storage, &*self.storage) {
            (Storage::Cpu(_), Storage::Cuda(_)) => htod(&src, self, false),
            (Storage::Cuda(_), Storage::Cpu(_)) => dtoh(&src, self, false, false),
            _ => {
                let host = src.to_device(&Device::Cpu)?;
                self.copy_from(&host)
            }
        }
    }

    /// A page-locked copy of this host array (itself when it is pinned already): copies between
    /// it and a GPU are asynchronous. GPU arrays are copied to pinned host memory.
    pub fn pinned(&self) -> Result<Array> {
        if let Some(h) = self.storage.cpu() {
            if h.is_pinned() {
                return Ok(self.view());
            }
        }
        let mut out = Array::alloc_pinned(&self.shape, self.dtype)?;
        out.copy_from(self)?;
        Ok(out)
    }

    /// Whether this is a host array in page-locked memory.
    pub fn is_pinned(&self) -> bool {
        self.storage.cpu().is_some_and(|h| h.is_pinned())
    }

    /// The elements in C order as a `Vec<T>`; `T` must be the array's dtype.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        if T::DTYPE != self.dtype {
            return Err(Error::DTypeMismatch { expected: T::DTYPE, got: self.dtype });
        }
        let host =
            if self.device().is_cpu() && self.is_c_contiguous() { self.view() } else { self.to_device(&Device::Cpu)? }
                .as_contiguous()?;
        let n = host.size();
        let mut v = vec![T::default(); n];
        let _l = crate::backend::storage::CpuLocks::new(&[&host.storage], &[]);
        // `wrapping_add`: an empty view's offset may lie past the end of its block.
        let p = host.storage.cpu().expect("host").ptr().wrapping_add(host.offset);
        // SAFETY: `host` is C-contiguous on the CPU with `n` elements of `T`'s dtype, so a
        // non-empty one has its `n * size_of::<T>()` bytes at `p` within the block (an empty one
        // copies nothing, from a non-null `p`); `v` has room for them, the read lock keeps
        // writers out, and the bytes are valid `T`s: plain numbers, or bools that are 0 or 1
        // (every writer stores 0 or 1, `from_bytes` checks loaded data).
        unsafe {
            std::ptr::copy_nonoverlapping(p, v.as_mut_ptr() as *mut u8, n * std::mem::size_of::<T>());
        }
        Ok(v)
    }

    /// The elements in C order, converted to `T` with NumPy's casting (any dtype).
    pub fn to_vec_as<T: Element>(&self) -> Result<Vec<T>> {
        if T::DTYPE == self.dtype {
            self.to_vec()
        } else {
            self.astype(T::DTYPE)?.to_vec()
        }
    }

    /// The single element of a size-1 array, converted to `T` (NumPy's `item()`, then Python's
    /// `int()`, `float()` or `bool()`).
    ///
    /// Into an integer type a float is truncated toward zero (`1.7` and `-1.7` give `1` and
    /// `-1`, as `int()`), and a value that `T` cannot hold is an error rather than a wrapped or
    /// saturated value: [`Error::ScalarOverflow`] (an
    /// [`OverflowError`](crate::ErrorKind::OverflowError)) for `300` into `u8`, `-1` into
    /// `u32`, `1e20` or an infinity into `i64`, and an error of kind
    /// [`ValueError`](crate::ErrorKind::ValueError) for NaN (Python's `int(nan)`). Into a
    /// float type the value is rounded to nearest (it may become infinite); into `bool` it is
    /// tested for non-zero.
    ///
    /// ```
    /// use cuprum::{Device, ErrorKind};
    /// let x = cuprum::scalar(-1.7, &Device::Cpu)?;
    /// assert_eq!(x.item::<i32>()?, -1);
    /// assert_eq!(x.item::<u8>().unwrap_err().kind(), ErrorKind::OverflowError);
    /// assert_eq!(cuprum::scalar(300i64, &Device::Cpu)?.item::<u8>().unwrap_err().kind(), ErrorKind::OverflowError);
    /// assert_eq!(cuprum::scalar(f64::NAN, &Device::Cpu)?.item::<i64>().unwrap_err().kind(), ErrorKind::ValueError);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn item<T: Element>(&self) -> Result<T> {
        if self.size() != 1 {
            return Err(Error::Value("can only convert an array of size 1 to a Rust scalar".into()));
        }
        let s = self.item_scalar()?;
        if T::DTYPE.is_integer() {
            let (lo, hi) = T::DTYPE.int_range().expect("an integer dtype");
            let v = match s {
                Scalar::Float(f) if f.is_nan() => {
                    return Err(Error::Value(format!("cannot convert float NaN to integer ({})", T::DTYPE)))
                }
                // Truncation toward zero; infinities saturate i128, out of every range.
                Scalar::Float(f) => f.trunc() as i128,
                _ => s.as_i128().expect("an integer or bool scalar"),
            };
            if v < lo || v > hi {
                let value = match s {
                    Scalar::Float(f) => format!("{f:?}"),
                    _ => v.to_string(),
                };
                return Err(Error::ScalarOverflow { value, dtype: T::DTYPE });
            }
        }
        Ok(T::from_scalar(s))
    }

    /// The single element as a [`Scalar`].
    pub fn item_scalar(&self) -> Result<Scalar> {
        if self.size() != 1 {
            return Err(Error::Value("can only convert an array of size 1 to a Rust scalar".into()));
        }
        let one = self.reshape(())?;
        let host = if one.device().is_cpu() { one } else { one.to_device(&Device::Cpu)? };
        let _l = crate::backend::storage::CpuLocks::new(&[&host.storage], &[]);
        // SAFETY: `host` has one element, so its offset lies within the block.
        let p = unsafe { host.storage.cpu().expect("host").ptr().add(host.offset) };
        let d = host.dtype;
        // SAFETY: `p` is that element, of dtype `d`; each arm reads it once (stride 0, so the
        // unaligned path of `load`) under the read lock.
        unsafe {
            Ok(match crate::backend::cpu::domain(d) {
                _ if d == DType::Bool => Scalar::Bool(*p != 0),
                crate::backend::cpu::Domain::I => {
                    let mut b = [0i64];
                    crate::backend::cpu::load(d, p, 0, &mut b);
                    Scalar::Int(b[0])
                }
                crate::backend::cpu::Domain::U => {
                    let mut b = [0u64];
                    crate::backend::cpu::load(d, p, 0, &mut b);
                    Scalar::UInt(b[0])
                }
                crate::backend::cpu::Domain::F => {
                    let mut b = [0f64];
                    crate::backend::cpu::load(d, p, 0, &mut b);
                    Scalar::Float(b[0])
                }
                crate::backend::cpu::Domain::C => {
                    let mut b = [crate::backend::cpu::Cx::default()];
                    crate::backend::cpu::load(d, p, 0, &mut b);
                    Scalar::Complex(b[0].re, b[0].im)
                }
            })
        }
    }
}

/// Checks that two arrays are on the same device, as every operation of two arrays does (the
/// error names both devices and how to move data); their device.
pub(crate) fn same_device(op: &str, a: &Array, b: &Array) -> Result<Device> {
    if a.device() != b.device() {
        return Err(Error::DeviceMismatch { op: op.into(), a: a.device(), b: b.device() });
    }
    Ok(a.device())
}

impl std::fmt::Debug for Array {
    /// NumPy's `repr`: `array([[0, 1],\n       [2, 3]])`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match crate::array::print::repr(self) {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<array on {} that could not be read: {e}>", self.device()),
        }
    }
}

/// How a 0-d array's value is written under a format spec (Python's presentation types).
#[derive(Copy, Clone)]
enum Spec {
    /// `{}` with a precision, width or sign: Python's `f` (Rust's fixed form; `nan`, `inf`).
    Fixed,
    /// `{:#.3}`: Python's `g` (`%g`).
    General,
    /// `{:e}`/`{:E}`: Python's `e`/`E` (`3.898e-04`).
    Exp { upper: bool },
}

/// The value of a 0-d array under a format spec, as a NumPy scalar honours one (`f"{x:.3e}"`):
/// floats as `f64` (a float32 value is exact in it), integers and bools as numbers (`True` and
/// `False` themselves in the fixed form), complex values as Python writes them (`1.000e+00+2.000e+00j`).
/// Width, fill, alignment (right by default) and `+` apply to the whole.
fn scalar_fmt(a: &Array, f: &mut std::fmt::Formatter<'_>, spec: Spec) -> std::fmt::Result {
    use crate::array::format::spec::{py_e, py_g};
    let prec = f.precision();
    let one = |v: f64| -> String {
        match spec {
            Spec::Exp { upper } => py_e(v, prec.unwrap_or(6), upper),
            Spec::General => py_g(v, prec.unwrap_or(6), false),
            Spec::Fixed if v.is_nan() => "nan".into(),
            Spec::Fixed if v.is_infinite() => (if v > 0.0 { "inf" } else { "-inf" }).into(),
            Spec::Fixed => match prec {
                Some(p) => format!("{v:.p$}"),
                None => format!("{v}"),
            },
        }
    };
    let text = match a.dtype() {
        DType::Bool if matches!(spec, Spec::Fixed) && prec.is_none() => {
            a.item::<bool>().map(|b| (if b { "True" } else { "False" }).to_string())
        }
        DType::Bool => a.item::<bool>().map(|b| one(b as u8 as f64)),
        d if d.is_complex() => a.item::<num_complex::Complex<f64>>().map(|c| {
            let im = one(c.im);
            let sign = if im.starts_with('-') { "" } else { "+" };
            format!("{}{sign}{im}j", one(c.re))
        }),
        d if d.is_float() => a.item::<f64>().map(one),
        d if d.is_unsigned_int() => a.item::<u64>().map(|v| match (spec, prec) {
            (Spec::Fixed, None) => v.to_string(),
            _ => one(v as f64),
        }),
        _ => a.item::<i64>().map(|v| match (spec, prec) {
            (Spec::Fixed, None) => v.to_string(),
            _ => one(v as f64),
        }),
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => return write!(f, "<array on {} that could not be read: {e}>", a.device()),
    };
    // std's padding of a number: `+`, width, fill, alignment (right by default) and zeros after
    // the sign (`{:08.3}`, as Python's `08.3f`), without `pad`'s cut of a string to the precision.
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.as_str()),
    };
    f.pad_integral(!neg, "", body)
}

impl std::fmt::LowerExp for Array {
    /// `{:e}`/`{:.3e}` of a 0-d array: its value in Python's exponent form, as NumPy prints
    /// `f"{x:.3e}"` (a sign and two exponent digits: `3.898e-04`, `nan`); an array of more
    /// dimensions prints as with `{}`.
    ///
    /// ```
    /// let s = cuprum::from_vec(vec![1.0, 2.0, 4.0], &cuprum::Device::Cpu)?.std(None)?;
    /// assert_eq!(format!("{s:.3e}"), "1.247e+00");          // f"{s:.3e}"
    /// assert_eq!(format!("{s:.3}"), "1.247");               // f"{s:.3f}"
    /// assert_eq!(format!("{s:#.3}"), "1.25");               // f"{s:.3g}" (%g)
    /// assert_eq!(format!("{s:>12.2e}"), "    1.25e+00");
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.ndim() == 0 {
            return scalar_fmt(self, f, Spec::Exp { upper: false });
        }
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::UpperExp for Array {
    /// `{:E}` of a 0-d array: Python's `E` form (`3.898E-04`; see [`LowerExp`](std::fmt::LowerExp)).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.ndim() == 0 {
            return scalar_fmt(self, f, Spec::Exp { upper: true });
        }
        std::fmt::Display::fmt(self, f)
    }
}

impl std::fmt::Display for Array {
    /// NumPy's `str`: `[[0 1]\n [2 3]]`. A 0-d array given a precision, a width or a sign
    /// (`{:.3}`, `{:>8}`, `{:+}`) is formatted as its value with those, as a NumPy scalar is
    /// by a format spec (`{:.3}` as Python's `.3f`); with `#` (`{:#.3}`) as Python's `%g`
    /// (`.3g`: significant digits, `1.25`, `3.9e-05`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.ndim() == 0 && f.alternate() {
            return scalar_fmt(self, f, Spec::General);
        }
        if self.ndim() == 0 && (f.precision().is_some() || f.width().is_some() || f.sign_plus()) {
            return scalar_fmt(self, f, Spec::Fixed);
        }
        match crate::array::print::str(self) {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<array on {} that could not be read: {e}>", self.device()),
        }
    }
}

/// Copies the C-contiguous host array `src` into the C-contiguous device array `out` (same
/// bytes) on the current stream: without a host wait when `src` is pinned (or `pin` asks to
/// pin its block: large copies), the host block then tracking the copy.
fn htod(src: &Array, out: &Array, pin: bool) -> Result<()> {
    let (Storage::Cpu(h), Storage::Cuda(d)) = (&*src.storage, &*out.storage) else {
        unreachable!("a host source and a device destination")
    };
    let n = src.nbytes();
    let _l = crate::backend::storage::CpuLocks::new(&[&src.storage], &[]);
    let pinned = h.is_pinned() || (pin && h.pin());
    // `wrapping_add`: an empty view's offset may lie past the end of its block.
    let p = h.ptr().wrapping_add(src.offset);
    // SAFETY: `src` is C-contiguous: a non-empty one has its `n` bytes at `p`, within the block;
    // an empty one reads nothing through a non-null `p`. The read lock keeps writers out while
    // the slice lives, and a pinned block read later by the DMA tracks the copy (`track_dma`):
    // writers and the free wait for it.
    let bytes = unsafe { std::slice::from_raw_parts(p, n) };
    d.note_use()?;
    d.dev.htod(d.ptr + out.offset as u64, bytes, pinned)?;
    if pinned && n > 0 {
        h.track_dma(&d.dev, false)?;
    }
    Ok(())
}

/// Copies the C-contiguous device array `src` into the C-contiguous host array `out` (same
/// bytes) on the current stream. Into a pinned block (or one `pin` asks to pin: large copies)
/// the DMA writes directly; without `wait` such a copy returns at once, the host block then
/// tracking it. Otherwise it returns when the bytes are there.
fn dtoh(src: &Array, out: &Array, pin: bool, wait: bool) -> Result<()> {
    let (Storage::Cuda(d), Storage::Cpu(h)) = (&*src.storage, &*out.storage) else {
        unreachable!("a device source and a host destination")
    };
    let n = src.nbytes();
    let _l = crate::backend::storage::CpuLocks::new(&[], &[&out.storage]);
    d.note_use()?;
    let pinned = h.is_pinned() || (pin && h.pin());
    // `wrapping_add`: an empty view's offset may lie past the end of its block.
    let p = h.ptr().wrapping_add(out.offset);
    if pinned && !wait {
        // SAFETY: `out` is C-contiguous: its `n` bytes lie at `p` within a pinned block (an
        // empty one copies nothing); `track_dma` below makes every later host access and the
        // free wait for the copy, and the write lock keeps current users out while it is queued.
        unsafe { d.dev.dtoh_async(p, d.ptr + src.offset as u64, n)? };
        return h.track_dma(&d.dev, true);
    }
    // SAFETY: as above; `dtoh` waits for the copy, and the write lock keeps other users out
    // while the slice lives (host blocks are initialised: zeroed or holding earlier contents).
    let bytes = unsafe { std::slice::from_raw_parts_mut(p, n) };
    d.dev.dtoh(bytes, d.ptr + src.offset as u64, pinned)
}
