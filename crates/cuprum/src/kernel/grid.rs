//! Grid kernels (`#[cuprum::kernel]`, Numba's `@cuda.jit`): the types and intrinsics a kernel
//! body uses, the launch (one dispatch: the GPU through NVRTC, the CPU as a loop over the
//! grid) and the CPU runner.
//!
//! On the CPU the blocks run in parallel on threads and the threads of a block in order, one
//! after the other, each seeing its own `thread_idx()`/`block_idx()` (a thread-local
//! context). `shared::<T, N>()` gives each block its arrays (the k-th call of a thread returns
//! the block's k-th array). `sync_threads()` cannot be honoured by threads run in order: a
//! kernel calling it on the CPU with blocks of more than one thread fails with
//! NotImplementedError (it runs on the GPU). An index past a slice's end is an IndexError on
//! both devices (the GPU's launch checks it unless `launch_unchecked`).

use crate::array::Array;
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};
use std::cell::{Cell, RefCell};
use std::marker::PhantomData;

/// A grid or block shape (Numba's `griddim`/`blockdim`): `100`, `(32, 8)`, `(4, 4, 4)`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Dim3 {
    pub x: usize,
    pub y: usize,
    pub z: usize,
}
impl From<usize> for Dim3 {
    fn from(x: usize) -> Dim3 {
        Dim3 { x, y: 1, z: 1 }
    }
}
impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3::from(x as usize)
    }
}
/// (A negative extent becomes 0, which the launch rejects.)
impl From<i32> for Dim3 {
    fn from(x: i32) -> Dim3 {
        Dim3::from(x.max(0) as usize)
    }
}
impl<A: Into<Dim3>, B: Into<Dim3>> From<(A, B)> for Dim3 {
    fn from((a, b): (A, B)) -> Dim3 {
        Dim3 { x: a.into().x, y: b.into().x, z: 1 }
    }
}
impl<A: Into<Dim3>, B: Into<Dim3>, C: Into<Dim3>> From<(A, B, C)> for Dim3 {
    fn from((a, b, c): (A, B, C)) -> Dim3 {
        Dim3 { x: a.into().x, y: b.into().x, z: c.into().x }
    }
}
impl Dim3 {
    fn count(self) -> usize {
        self.x * self.y * self.z
    }
    /// (x, y, z) as CUDA's launch takes them (within its limits: `check_dims`).
    pub(crate) fn as_u32s(self) -> (u32, u32, u32) {
        (self.x as u32, self.y as u32, self.z as u32)
    }
    /// The position of linear index `i` (x fastest).
    fn at(self, i: usize) -> Dim3 {
        Dim3 { x: i % self.x, y: i / self.x % self.y, z: i / (self.x * self.y) }
    }
}

/// Why a CPU thread of a kernel stopped (carried by unwinding, without the panic hook).
enum Fault {
    /// An index past a slice's end (`axis` None) or past a view's dimension.
    Index { index: usize, len: usize, axis: Option<usize> },
    /// A barrier or warp function with more than one thread a block: the function's name.
    Sync(&'static str),
}

fn fault(f: Fault) -> ! {
    std::panic::resume_unwind(Box::new(f))
}

/// A kernel's read-only slice parameter on the CPU (`&[T]` in the kernel's signature).
#[derive(Clone, Copy)]
pub struct Slice<'a, T> {
    p: *const T,
    n: usize,
    _a: PhantomData<&'a [T]>,
}
/// A kernel's writable slice parameter on the CPU (`&mut [T]` in the kernel's signature): the
/// threads of a launch share it, as on the GPU, and each writes its own elements.
#[derive(Clone, Copy)]
pub struct SliceMut<'a, T> {
    p: *mut T,
    n: usize,
    _a: PhantomData<&'a [T]>,
}
// SAFETY: the kernel's threads share the array as the GPU's threads do: a correct kernel
// writes each element from one thread (or through the atomics); the launch holds the array's
// lock for the whole grid.
unsafe impl<T: Sync> Sync for Slice<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Send for Slice<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for SliceMut<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Send for SliceMut<'_, T> {}

impl<T> Slice<'_, T> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.n
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
}
impl<T> SliceMut<'_, T> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.n
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
}
/// The address of element `i` of a slice of `n` elements at `p`: past the end, the kernel's
/// thread stops with an index fault (an IndexError at the launch).
#[inline]
fn at<T>(p: *mut T, n: usize, i: usize) -> *mut T {
    if i >= n {
        fault(Fault::Index { index: i, len: n, axis: None });
    }
    // SAFETY: `i < n`, the length of the live array the slice was made from.
    unsafe { p.add(i) }
}
impl<T> std::ops::Index<usize> for Slice<'_, T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        // SAFETY: an element of the live array (`at` checks the index).
        unsafe { &*at(self.p as *mut T, self.n, i) }
    }
}
impl<T> std::ops::Index<usize> for SliceMut<'_, T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        // SAFETY: as `Slice`'s.
        unsafe { &*at(self.p, self.n, i) }
    }
}
impl<T> std::ops::IndexMut<usize> for SliceMut<'_, T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        // SAFETY: an element of the live array; it is this thread's to write (the sharing rule
        // above).
        unsafe { &mut *at(self.p, self.n, i) }
    }
}

/// A kernel's read-only N-d view parameter on the CPU (`View<T, N>` in the kernel's
/// signature): an array of any strides (views, transposes, broadcasts), indexed `v[i]` (N = 1),
/// `v[(i, j)]` (2) or `v[(i, j, k)]` (3), each index checked against its dimension.
#[derive(Clone, Copy)]
pub struct View<'a, T, const N: usize> {
    p: *mut T,
    shape: [usize; N],
    /// In elements.
    strides: [isize; N],
    _a: PhantomData<&'a [T]>,
}
/// A kernel's writable N-d view parameter on the CPU (`ViewMut<T, N>`): shared by the
/// threads of a launch as [`SliceMut`] is.
#[derive(Clone, Copy)]
pub struct ViewMut<'a, T, const N: usize> {
    v: View<'a, T, N>,
}
// SAFETY: as for the slices: the threads share the array as the GPU's threads do.
unsafe impl<T: Sync, const N: usize> Sync for View<'_, T, N> {}
// SAFETY: as above.
unsafe impl<T: Sync, const N: usize> Send for View<'_, T, N> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync, const N: usize> Sync for ViewMut<'_, T, N> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync, const N: usize> Send for ViewMut<'_, T, N> {}

impl<T, const N: usize> View<'_, T, N> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The address of the element at `ix` (checked: a fault past a dimension).
    #[inline]
    fn at(&self, ix: [usize; N]) -> *mut T {
        let mut off = 0isize;
        for (a, (&i, (&n, &st))) in ix.iter().zip(self.shape.iter().zip(&self.strides)).enumerate() {
            if i >= n {
                fault(Fault::Index { index: i, len: n, axis: Some(a) });
            }
            off += i as isize * st;
        }
        // SAFETY: every index is within its dimension, so the offset is that of an element of
        // the live array the view was made from.
        unsafe { self.p.offset(off) }
    }
}
impl<T, const N: usize> ViewMut<'_, T, N> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.v.len()
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.v.is_empty()
    }
}
macro_rules! view_dims {
    ($n:literal, $idx:ty, |$i:ident| $arr:expr, $dim:ty, |$s:ident| $d:expr) => {
        impl<T> View<'_, T, $n> {
            /// The dimensions (ndarray's `dim()`).
            pub fn dim(&self) -> $dim {
                let $s = self.shape;
                $d
            }
        }
        impl<T> ViewMut<'_, T, $n> {
            /// The dimensions (ndarray's `dim()`).
            pub fn dim(&self) -> $dim {
                self.v.dim()
            }
        }
        impl<T> std::ops::Index<$idx> for View<'_, T, $n> {
            type Output = T;
            #[inline]
            fn index(&self, $i: $idx) -> &T {
                // SAFETY: an element of the live array (`at` checks the indices).
                unsafe { &*self.at($arr) }
            }
        }
        impl<T> std::ops::Index<$idx> for ViewMut<'_, T, $n> {
            type Output = T;
            #[inline]
            fn index(&self, $i: $idx) -> &T {
                // SAFETY: as `View`'s.
                unsafe { &*self.v.at($arr) }
            }
        }
        impl<T> std::ops::IndexMut<$idx> for ViewMut<'_, T, $n> {
            #[inline]
            fn index_mut(&mut self, $i: $idx) -> &mut T {
                // SAFETY: an element of the live array, this thread's to write (the sharing rule
                // of the slices).
                unsafe { &mut *self.v.at($arr) }
            }
        }
    };
}
view_dims!(1, usize, |i| [i], usize, |s| s[0]);
view_dims!(2, (usize, usize), |i| [i.0, i.1], (usize, usize), |s| (s[0], s[1]));
view_dims!(3, (usize, usize, usize), |i| [i.0, i.1, i.2], (usize, usize, usize), |s| (s[0], s[1], s[2]));
impl<T> View<'_, T, 2> {
    /// The number of rows (ndarray's `nrows()`).
    pub fn nrows(&self) -> usize {
        self.shape[0]
    }
    /// The number of columns (ndarray's `ncols()`).
    pub fn ncols(&self) -> usize {
        self.shape[1]
    }
}
impl<T> ViewMut<'_, T, 2> {
    /// The number of rows (ndarray's `nrows()`).
    pub fn nrows(&self) -> usize {
        self.v.shape[0]
    }
    /// The number of columns (ndarray's `ncols()`).
    pub fn ncols(&self) -> usize {
        self.v.shape[1]
    }
}

/// The context of the CPU thread running a kernel thread.
#[derive(Clone, Copy, Default)]
struct Ctx {
    tid: Dim3,
    bid: Dim3,
    bdim: Dim3,
    gdim: Dim3,
    /// The next shared array this thread asks for.
    next_shared: usize,
}
thread_local! {
    static CTX: Cell<Ctx> = Cell::new(Ctx::default());
    /// The block's shared arrays (zeroed bytes, 16-aligned).
    static SHARED: RefCell<Vec<Vec<u128>>> = const { RefCell::new(Vec::new()) };
}

/// Numba's `cuda.grid(1)`: the thread's index in the grid along x (`grid(1)` only: `grid2()`
/// for two dimensions).
#[inline]
pub fn grid(ndim: u32) -> usize {
    debug_assert_eq!(ndim, 1);
    let c = CTX.get();
    c.bid.x * c.bdim.x + c.tid.x
}
/// Numba's `cuda.gridsize(1)`: the number of threads along x.
#[inline]
pub fn gridsize(ndim: u32) -> usize {
    debug_assert_eq!(ndim, 1);
    let c = CTX.get();
    c.gdim.x * c.bdim.x
}
/// Numba's `cuda.grid(2)`: (x, y).
#[inline]
pub fn grid2() -> (usize, usize) {
    let c = CTX.get();
    (c.bid.x * c.bdim.x + c.tid.x, c.bid.y * c.bdim.y + c.tid.y)
}
/// Numba's `cuda.gridsize(2)`.
#[inline]
pub fn gridsize2() -> (usize, usize) {
    let c = CTX.get();
    (c.gdim.x * c.bdim.x, c.gdim.y * c.bdim.y)
}
/// `threadIdx`.
#[inline]
pub fn thread_idx() -> Dim3 {
    CTX.get().tid
}
/// `blockIdx`.
#[inline]
pub fn block_idx() -> Dim3 {
    CTX.get().bid
}
/// `blockDim`.
#[inline]
pub fn block_dim() -> Dim3 {
    CTX.get().bdim
}
/// `gridDim`.
#[inline]
pub fn grid_dim() -> Dim3 {
    CTX.get().gdim
}
/// `__syncthreads()`. On the CPU (threads of a block run in order) a barrier cannot be kept:
/// with more than one thread per block the launch fails with NotImplementedError.
#[inline]
pub fn sync_threads() {
    one_lane("sync_threads()");
}

/// A barrier or warp function on the CPU: only with one thread a block (then the warp is that
/// one thread).
#[inline]
fn one_lane(what: &'static str) {
    if CTX.get().bdim.count() > 1 {
        fault(Fault::Sync(what));
    }
}
/// `__syncwarp(mask)` (CPU: one thread a block only, as `sync_threads`).
#[inline]
pub fn sync_warp(_mask: u32) {
    one_lane("sync_warp()");
}
/// `__all_sync(mask, p)`: whether `p` holds in every lane of `mask` (CPU: one thread a block
/// only, where the warp is that thread).
#[inline]
pub fn all_sync(_mask: u32, p: bool) -> bool {
    one_lane("all_sync()");
    p
}
/// `__any_sync(mask, p)`: whether `p` holds in some lane of `mask`.
#[inline]
pub fn any_sync(_mask: u32, p: bool) -> bool {
    one_lane("any_sync()");
    p
}
/// `__ballot_sync(mask, p)`: bit k set where `p` holds in lane k.
#[inline]
pub fn ballot_sync(_mask: u32, p: bool) -> u32 {
    one_lane("ballot_sync()");
    p as u32
}
/// `__shfl_sync(mask, v, src)`: `v` of lane `src` (CPU: the thread's own).
#[inline]
pub fn shfl_sync<T: Copy>(_mask: u32, v: T, _src: u32) -> T {
    one_lane("shfl_sync()");
    v
}
/// `__shfl_up_sync(mask, v, delta)`: `v` of lane `lane - delta` (the own value below 0).
#[inline]
pub fn shfl_up_sync<T: Copy>(_mask: u32, v: T, _delta: u32) -> T {
    one_lane("shfl_up_sync()");
    v
}
/// `__shfl_down_sync(mask, v, delta)`: `v` of lane `lane + delta` (the own value past 31).
#[inline]
pub fn shfl_down_sync<T: Copy>(_mask: u32, v: T, _delta: u32) -> T {
    one_lane("shfl_down_sync()");
    v
}
/// `__shfl_xor_sync(mask, v, m)`: `v` of lane `lane ^ m`.
#[inline]
pub fn shfl_xor_sync<T: Copy>(_mask: u32, v: T, _m: u32) -> T {
    one_lane("shfl_xor_sync()");
    v
}
/// The thread's lane in its warp (its linear index in the block, modulo 32).
#[inline]
pub fn lane_id() -> u32 {
    let c = CTX.get();
    ((c.tid.x + c.bdim.x * (c.tid.y + c.bdim.y * c.tid.z)) % 32) as u32
}
/// The threads of a warp: 32.
#[inline]
pub fn warp_size() -> u32 {
    32
}
/// A block's shared array of `N` elements of `T` (`__shared__ T s[N]`), zeroed on the CPU
/// (uninitialised on the GPU, as CUDA's).
pub fn shared<T: super::Lane, const N: usize>() -> SliceMut<'static, T> {
    let mut c = CTX.get();
    let k = c.next_shared;
    c.next_shared += 1;
    CTX.set(c);
    SHARED.with_borrow_mut(|v| {
        if v.len() <= k {
            v.push(vec![0u128; (N * std::mem::size_of::<T>()).div_ceil(16)]);
        }
        SliceMut { p: v[k].as_mut_ptr() as *mut T, n: N, _a: PhantomData }
    })
}

/// The scalar types the atomics accept.
pub trait Atomic: super::Lane + PartialOrd {
    #[doc(hidden)]
    fn update(p: *mut Self, f: impl Fn(Self) -> Self) -> Self;
}
// Each type through the atomic of its width, by its bits (`to`: value to bits, `from`: back).
macro_rules! atomic {
    ($($t:ty => $a:ty, $to:expr, $from:expr);*) => {$(
        impl Atomic for $t {
            fn update(p: *mut Self, f: impl Fn(Self) -> Self) -> Self {
                use std::sync::atomic::Ordering::{AcqRel, Acquire};
                // SAFETY: `p` is an element of a live array (checked by the caller), aligned
                // for `$t` (cuprum's arrays are), which every thread reaches only atomically
                // here.
                let a = unsafe { <$a>::from_ptr(p as *mut _) };
                let old = a.fetch_update(AcqRel, Acquire, |b| Some($to(f($from(b)))));
                $from(old.unwrap_or_else(|b| b))
            }
        }
    )*};
}
atomic!(i32 => std::sync::atomic::AtomicI32, std::convert::identity, std::convert::identity;
        u32 => std::sync::atomic::AtomicU32, std::convert::identity, std::convert::identity;
        i64 => std::sync::atomic::AtomicI64, std::convert::identity, std::convert::identity;
        u64 => std::sync::atomic::AtomicU64, std::convert::identity, std::convert::identity;
        f32 => std::sync::atomic::AtomicU32, f32::to_bits, f32::from_bits;
        f64 => std::sync::atomic::AtomicU64, f64::to_bits, f64::from_bits);

fn elem<T>(s: SliceMut<'_, T>, i: usize) -> *mut T {
    at(s.p, s.n, i)
}
/// `atomicAdd(&s[i], v)`: the old value.
pub fn atomic_add<T: Atomic + super::rt::Arith>(s: SliceMut<'_, T>, i: usize, v: T) -> T {
    T::update(elem(s, i), |c| super::rt::add(c, v))
}
/// `atomicSub(&s[i], v)`: the old value.
pub fn atomic_sub<T: Atomic + super::rt::Arith>(s: SliceMut<'_, T>, i: usize, v: T) -> T {
    T::update(elem(s, i), |c| super::rt::sub(c, v))
}
/// `atomicMin(&s[i], v)` (floats: NaN-ignoring, as `f32::min`): the old value.
pub fn atomic_min<T: Atomic>(s: SliceMut<'_, T>, i: usize, v: T) -> T {
    // (`c.partial_cmp(&c).is_none()`: `c` is NaN.)
    T::update(elem(s, i), |c| if c.partial_cmp(&c).is_none() || v < c { v } else { c })
}
/// `atomicMax(&s[i], v)`: the old value.
pub fn atomic_max<T: Atomic>(s: SliceMut<'_, T>, i: usize, v: T) -> T {
    T::update(elem(s, i), |c| if c.partial_cmp(&c).is_none() || v > c { v } else { c })
}
/// `atomicExch(&s[i], v)`: the old value.
pub fn atomic_exch<T: Atomic>(s: SliceMut<'_, T>, i: usize, v: T) -> T {
    T::update(elem(s, i), |_| v)
}
/// `atomicCAS(&s[i], compare, v)`: the old value (`v` stored where it equalled `compare`).
pub fn atomic_cas<T: Atomic>(s: SliceMut<'_, T>, i: usize, compare: T, v: T) -> T {
    T::update(elem(s, i), |c| if c == compare { v } else { c })
}

/// A grid kernel's parameter kinds (made by `#[cuprum::kernel]`).
#[derive(Copy, Clone, Debug)]
pub enum KParam {
    /// `&[T]`.
    Slice(DType),
    /// `&mut [T]`.
    SliceMut(DType),
    /// A scalar.
    Scalar(DType),
    /// `View<T, N>`: an array of N dimensions, any strides.
    View(DType, usize),
    /// `ViewMut<T, N>`.
    ViewMut(DType, usize),
}

/// A launch argument (made by the macro from the launch's tuple).
pub enum KArg<'a> {
    Array(&'a Array),
    ArrayMut(&'a mut Array),
    Scalar(Scalar),
}
impl<'a> From<&'a Array> for KArg<'a> {
    fn from(a: &'a Array) -> Self {
        KArg::Array(a)
    }
}
impl<'a> From<&'a mut Array> for KArg<'a> {
    fn from(a: &'a mut Array) -> Self {
        KArg::ArrayMut(a)
    }
}
impl KArg<'_> {
    /// The array of an array argument.
    pub(crate) fn array(&self) -> Option<&Array> {
        match self {
            KArg::Array(x) => Some(x),
            KArg::ArrayMut(x) => Some(x),
            KArg::Scalar(_) => None,
        }
    }
}
/// The IndexError of an index past a view's dimension (both devices; NumPy's words).
pub(crate) fn view_out_of_bounds(kernel: &str, index: u64, axis: usize, size: u64) -> Error {
    Error::Index(format!("{kernel}: index {index} is out of bounds for axis {axis} with size {size}"))
}
/// The IndexError of an index past a kernel slice's end (both devices).
pub(crate) fn out_of_bounds(kernel: &str, index: u64, len: u64) -> Error {
    Error::Index(format!("{kernel}: index {index} is out of bounds for a slice of length {len}"))
}
macro_rules! karg_scalar {
    ($($t:ty),*) => {$( impl From<$t> for KArg<'_> { fn from(x: $t) -> Self { KArg::Scalar(x.into()) } } )*};
}
karg_scalar!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);

/// The arrays of a CPU launch, as the kernel's slices.
pub struct KArgs {
    ptrs: Vec<(*mut u8, usize)>,
    /// Per argument: its shape and strides in elements (arrays), empty for scalars.
    layouts: Vec<(Vec<usize>, Vec<isize>)>,
}
// SAFETY: only addresses and lengths, used as the kernel's slices (see `SliceMut`).
unsafe impl Sync for KArgs {}
impl KArgs {
    /// Argument `k` as `&[T]` (its dtype checked at the launch).
    #[inline]
    pub fn slice<T>(&self, k: usize) -> Slice<'_, T> {
        Slice { p: self.ptrs[k].0 as *const T, n: self.ptrs[k].1, _a: PhantomData }
    }
    /// Argument `k` as `&mut [T]`.
    #[inline]
    pub fn slice_mut<T>(&self, k: usize) -> SliceMut<'_, T> {
        SliceMut { p: self.ptrs[k].0 as *mut T, n: self.ptrs[k].1, _a: PhantomData }
    }
    /// Argument `k` as `View<T, N>` (its dtype and dimensions checked at the launch).
    #[inline]
    pub fn view<T, const N: usize>(&self, k: usize) -> View<'_, T, N> {
        let (sh, st) = &self.layouts[k];
        View {
            p: self.ptrs[k].0 as *mut T,
            shape: std::array::from_fn(|a| sh[a]),
            strides: std::array::from_fn(|a| st[a]),
            _a: PhantomData,
        }
    }
    /// Argument `k` as `ViewMut<T, N>`.
    #[inline]
    pub fn view_mut<T, const N: usize>(&self, k: usize) -> ViewMut<'_, T, N> {
        ViewMut { v: self.view(k) }
    }
}

/// A function made a grid kernel by `#[cuprum::kernel]`: launched through the unit struct
/// the macro defines (`name.launch((grid, block), (args,))`).
pub struct GridKernel {
    /// The kernel's name (in errors).
    pub name: &'static str,
    /// Its parameters.
    pub params: &'static [KParam],
    /// Its CUDA C (`cuprum_kernel`) and the device functions it calls.
    pub cuda: super::DeviceSource,
}

impl std::fmt::Debug for GridKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GridKernel({}: {:?})", self.name, self.params)
    }
}

/// CUDA's limits on a launch's shape.
pub(crate) fn check_dims(name: &str, grid: Dim3, block: Dim3) -> Result<()> {
    let bad = |what: &str| Err(Error::Value(format!("{name}: {what}")));
    if grid.count() == 0 || block.count() == 0 {
        return bad(&format!("the grid {grid:?} and block {block:?} need at least one thread each way"));
    }
    if block.x > 1024 || block.y > 1024 || block.z > 64 || block.count() > 1024 {
        return bad(&format!("a block has at most 1024 threads (x, y <= 1024, z <= 64), not {block:?}"));
    }
    if grid.x > (1 << 31) - 1 || grid.y > 65535 || grid.z > 65535 {
        return bad(&format!("the grid {grid:?} exceeds CUDA's limits (x < 2^31, y, z <= 65535)"));
    }
    Ok(())
}

impl GridKernel {
    /// The launch on the CPU (a loop over the grid, blocks in parallel); the dispatch is
    /// `GridKernel::launch` in `mod.rs`.
    pub(crate) fn run_cpu(
        &self,
        grid: Dim3,
        block: Dim3,
        args: &[KArg<'_>],
        cpu: &(dyn Fn(&KArgs) + Sync),
    ) -> Result<()> {
        use rayon::prelude::*;
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        let mut ptrs = Vec::new();
        let mut layouts = Vec::new();
        for a in args {
            match a.array() {
                Some(x) => {
                    if let KArg::ArrayMut(_) = a {
                        writes.push(&*x.storage);
                    } else {
                        reads.push(&*x.storage);
                    }
                    ptrs.push((x.cpu_ptr().get(), x.size()));
                    let isz = x.itemsize() as isize;
                    layouts.push((x.shape().to_vec(), x.strides().iter().map(|&b| b / isz).collect()));
                }
                None => {
                    ptrs.push((std::ptr::null_mut(), 0));
                    layouts.push((Vec::new(), Vec::new()));
                }
            }
        }
        let _l = crate::backend::storage::CpuLocks::new(&reads, &writes);
        let ka = KArgs { ptrs, layouts };
        let nblocks = grid.count();
        let nthreads = block.count();
        let run_block = |b: usize| -> std::result::Result<(), Fault> {
            SHARED.with_borrow_mut(|v| v.clear());
            let bid = grid.at(b);
            for t in 0..nthreads {
                CTX.set(Ctx { tid: block.at(t), bid, bdim: block, gdim: grid, next_shared: 0 });
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cpu(&ka)));
                if let Err(e) = r {
                    return Err(match e.downcast::<Fault>() {
                        Ok(f) => *f,
                        Err(other) => std::panic::resume_unwind(other),
                    });
                }
            }
            Ok(())
        };
        let r: std::result::Result<(), Fault> = if nblocks * nthreads < 4096 {
            (0..nblocks).try_for_each(run_block)
        } else {
            (0..nblocks).into_par_iter().try_for_each(run_block)
        };
        SHARED.with_borrow_mut(|v| v.clear());
        match r {
            Ok(()) => Ok(()),
            Err(Fault::Index { index, len, axis: None }) => Err(out_of_bounds(self.name, index as u64, len as u64)),
            Err(Fault::Index { index, len, axis: Some(a) }) => {
                Err(view_out_of_bounds(self.name, index as u64, a, len as u64))
            }
            Err(Fault::Sync(what)) => Err(Error::NotImplemented(format!(
                "{}: {what} on the CPU with blocks of more than one thread (the CPU runs a block's \
                 threads one after the other; launch on a GPU, or with blocks of one thread)",
                self.name
            ))),
        }
    }
}
