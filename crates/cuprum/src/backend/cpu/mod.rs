//! The CPU backend: strided iteration over views without copying them, buffered conversion
//! of elements into a few wide compute domains (i64, u64, f64), and rayon threads above a
//! size threshold.

use crate::core::dtype::DType;
use half::f16;

pub(crate) mod cmath;
pub(crate) mod keys;
pub(crate) mod special;
pub(crate) mod values;
pub(crate) mod vmath;
use rayon::prelude::*;

/// Elements per buffered chunk.
pub(crate) const CHUNK: usize = 1024;
/// Operations on fewer elements than this run on the calling thread.
pub(crate) const PAR_THRESHOLD: usize = 1 << 16;

/// Runs `f` compiled again for AVX-512F and for AVX2 and picked at run time (x86-64), so that
/// the loops inlined into it vectorise as wide as the CPU allows. The bits are the baseline
/// build's: no operation changes with the vector width (Rust contracts no multiply-add).
/// Mark the closure `#[inline(always)]`: a large one is otherwise compiled on its own, for the
/// baseline (vmath's loops ran at 137 ms for 1e8 float32 `exp` that way, 37 inlined).
#[inline(always)]
pub(crate) fn simd<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, the only requirement of the function.
            return unsafe { in_avx512(f) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, the only requirement of the function.
            return unsafe { in_avx2(f) };
        }
    }
    f()
}

/// `f()` built for AVX2 ([`simd`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn in_avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// `f()` built for AVX-512F ([`simd`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn in_avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// A copy that uses several threads for large buffers (host staging of device copies).
pub(crate) fn par_copy(dst: &mut [u8], src: &[u8]) {
    const PIECE: usize = 4 << 20;
    if src.len() < 2 * PIECE {
        dst.copy_from_slice(src);
    } else {
        dst.par_chunks_mut(PIECE).zip(src.par_chunks(PIECE)).for_each(|(d, s)| d.copy_from_slice(s));
    }
}

/// A host work buffer of `n` elements of plain data `E` (zero-filled when fresh), from the
/// host pool for large sizes: a sort's or a scan's scratch space reused between calls, so its
/// pages are not faulted in (and unmapped) again on every call.
pub(crate) struct Scratch<E> {
    storage: std::sync::Arc<crate::backend::storage::Storage>,
    n: usize,
    _e: std::marker::PhantomData<E>,
}

/// Plain numbers: every bit pattern is a valid value (so pooled bytes may be reused as one).
pub(crate) trait Plain: Copy + Default + Send + Sync + 'static {}
macro_rules! plain {
    ($($t:ty),*) => {$(impl Plain for $t {})*};
}
plain!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64, f16, num_complex::Complex<f32>, num_complex::Complex<f64>);

impl<E: Plain> Scratch<E> {
    pub(crate) fn new(n: usize) -> crate::core::error::Result<Scratch<E>> {
        debug_assert!(std::mem::align_of::<E>() <= 64);
        let bytes = n.checked_mul(std::mem::size_of::<E>()).ok_or(crate::core::error::Error::OutOfMemory {
            device: crate::core::device::Device::Cpu,
            bytes: usize::MAX,
        })?;
        let storage = crate::backend::storage::Storage::alloc(crate::core::device::Device::Cpu, bytes, false)?;
        Ok(Scratch { storage, n, _e: std::marker::PhantomData })
    }
    pub(crate) fn as_mut_slice(&mut self) -> &mut [E] {
        let p = self.storage.cpu().expect("host storage").ptr() as *mut E;
        // SAFETY: the block holds `n * size_of::<E>()` initialised bytes (zeroed when fresh,
        // or earlier contents from the pool), 64-byte aligned, owned by this `Scratch` alone
        // (no array shares it), and `E: Plain` is valid for any bit pattern.
        unsafe { std::slice::from_raw_parts_mut(p, self.n) }
    }
}

/// A raw pointer that may cross threads (each thread touches disjoint elements).
#[derive(Copy, Clone)]
pub(crate) struct Ptr(pub *mut u8);
// SAFETY: a `Ptr` is an address into a storage block that the operation using it keeps alive
// and locked (`CpuLocks`) for its whole duration; sending or sharing the address is harmless by
// itself, and every dereference is an `unsafe` call (`walk`, `load`, `store`) whose contract
// makes the threads of one operation read shared inputs and write disjoint output elements.
unsafe impl Send for Ptr {}
// SAFETY: as for `Send`: `&Ptr` only gives out the address.
unsafe impl Sync for Ptr {}

impl Ptr {
    /// The pointer (a method, so closures capture the `Send` wrapper, not the raw field).
    #[inline]
    pub fn get(self) -> *mut u8 {
        self.0
    }
}

/// Walks the elements `[start, end)` (in C order of `shape`) of several operands at once,
/// calling `f(ptrs, n, inner_strides)` for runs of up to `CHUNK` elements along the innermost
/// dimension.
///
/// # Safety
/// For every operand `k` and every multi-index `i` of `shape` (C order position in
/// `[start, end)`), `base[k] + sum(i[d] * strides[k][d])` must be an element of one live
/// allocation, and `f` must be sound to call on the runs it is given.
pub(crate) unsafe fn walk<const N: usize>(
    shape: &[usize],
    strides: &[Vec<isize>; N],
    base: [Ptr; N],
    start: usize,
    end: usize,
    f: &mut dyn FnMut([*mut u8; N], usize, [isize; N]),
) {
    let nd = shape.len();
    if nd == 0 {
        if start < end {
            f(base.map(|p| p.0), 1, [0; N]);
        }
        return;
    }
    let inner = shape[nd - 1];
    if inner == 0 {
        return;
    }
    let inner_st: [isize; N] = std::array::from_fn(|k| strides[k][nd - 1]);
    let mut i = start;
    // Multi-index of the outer dimensions for position `i`.
    let mut idx = vec![0usize; nd];
    let mut rem = i / inner;
    for d in (0..nd - 1).rev() {
        idx[d] = rem % shape[d];
        rem /= shape[d];
    }
    let mut j = i % inner;
    while i < end {
        let mut ptrs: [*mut u8; N] = base.map(|p| p.0);
        for d in 0..nd - 1 {
            for (p, st) in ptrs.iter_mut().zip(strides) {
                // SAFETY: `idx[d] < shape[d]`, so the partial sum is the address of the element
                // `[idx[0], .., idx[d], 0, .., 0]` (the inner extent is non-zero): in bounds by
                // the caller's contract.
                *p = unsafe { p.offset(idx[d] as isize * st[d]) };
            }
        }
        let run_end = (inner - j).min(end - i);
        let mut t = 0;
        while t < run_end {
            let n = (run_end - t).min(CHUNK);
            // SAFETY: `j + t < inner`: the address of an element of the current row, in bounds
            // by the caller's contract.
            let p: [*mut u8; N] = std::array::from_fn(|k| unsafe { ptrs[k].offset((j + t) as isize * inner_st[k]) });
            f(p, n, inner_st);
            t += n;
        }
        i += run_end;
        j = 0;
        // Advance the outer multi-index.
        let mut d = nd - 1;
        while d > 0 {
            d -= 1;
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// [`walk`] over all elements, split across threads when there are many.
///
/// Operand 0 is the output. An output that overlaps itself (a broadcast view: a zero stride on
/// an axis longer than 1) is walked on one thread, in C order, so that its repeated elements are
/// written one after the other (the last write wins) rather than raced on.
///
/// # Safety
/// As [`walk`]; additionally `f` runs on several threads at once over disjoint ranges of
/// positions: it may write only operand 0, only at its own run, and any other operand that
/// shares memory with operand 0 must address exactly the same elements at every position (an
/// in-place operation), so that no thread reads what another writes.
pub(crate) unsafe fn par_walk<const N: usize>(
    shape: &[usize],
    strides: &[Vec<isize>; N],
    base: [Ptr; N],
    f: &(dyn Fn([*mut u8; N], usize, [isize; N]) + Sync),
) {
    // SAFETY: the caller's contract.
    unsafe { par_walk_at(PAR_THRESHOLD, shape, strides, base, f) }
}

/// [`par_walk`] with its own size threshold for threads (operations whose cost per element
/// differs much from the common one).
///
/// # Safety
/// As [`par_walk`].
pub(crate) unsafe fn par_walk_at<const N: usize>(
    threshold: usize,
    shape: &[usize],
    strides: &[Vec<isize>; N],
    base: [Ptr; N],
    f: &(dyn Fn([*mut u8; N], usize, [isize; N]) + Sync),
) {
    let size: usize = shape.iter().product();
    let out_overlaps_itself = strides.first().is_some_and(|st| shape.iter().zip(st).any(|(&n, &s)| n > 1 && s == 0));
    if size < threshold || out_overlaps_itself {
        // SAFETY: the caller's contract, over the whole range, on this thread.
        unsafe { walk(shape, strides, base, 0, size, &mut |p, n, s| f(p, n, s)) };
        return;
    }
    let parts = rayon::current_num_threads().max(1) * 4;
    let per = size.div_ceil(parts);
    (0..parts).into_par_iter().for_each(|t| {
        let (s, e) = (t * per, ((t + 1) * per).min(size));
        if s < e {
            // SAFETY: the caller's contract. The threads' ranges `[s, e)` are disjoint, and so are
            // the output elements they write: the output does not overlap itself (checked above;
            // views of a fresh block overlap themselves only through zero strides), and the
            // inputs overlapping it are the very same elements, read and written by one thread.
            unsafe { walk(shape, strides, base, s, e, &mut |p, n, st| f(p, n, st)) };
        }
    });
}

/// Float to int64 as NumPy's C cast compiles on x86-64 (`cvttsd2si`): truncation toward zero,
/// and NaN or a value out of range gives `i64::MIN`.
#[inline]
pub(crate) fn f64_to_i64_c(v: f64) -> i64 {
    if (-9223372036854775808.0..9223372036854775808.0).contains(&v) {
        v as i64
    } else {
        i64::MIN
    }
}

/// Float to int32 as on x86-64 (`cvttsd2si` of 32 bits): NaN or out of range gives `i32::MIN`.
/// NumPy's casts to int8, int16, uint8 and uint16 go through it and keep the low bits.
#[inline]
pub(crate) fn f64_to_i32_c(v: f64) -> i32 {
    if v > -2147483649.0 && v < 2147483648.0 {
        v as i32
    } else {
        i32::MIN
    }
}

/// Float to uint64 as on x86-64: values from 2**63 up are converted less 2**63 (then
/// `f64_to_i64_c`) with the top bit flipped; the others with `f64_to_i64_c` (so negative ones
/// wrap, NaN and -inf give 2**63, +inf gives 0).
#[inline]
pub(crate) fn f64_to_u64_c(v: f64) -> u64 {
    if v >= 9223372036854775808.0 {
        (f64_to_i64_c(v - 9223372036854775808.0) as u64) ^ (1 << 63)
    } else {
        f64_to_i64_c(v) as u64
    }
}

/// A compute domain: every dtype is loaded into one of these (i64 for signed ints and bool,
/// u64 for unsigned ints, f64 for floats), the ufunc runs there, and the result is rounded
/// once to the output dtype. For +, -, *, /, sqrt on float32/float16 this gives exactly the
/// correctly rounded result NumPy computes; integer arithmetic wraps exactly as in the narrow
/// type.
pub(crate) trait Wide: Copy + Default + Send + Sync + PartialOrd + 'static {
    fn from_i64(v: i64) -> Self;
    fn from_u64(v: u64) -> Self;
    fn from_f64(v: f64) -> Self;
    fn to_i64(self) -> i64;
    fn to_u64(self) -> u64;
    fn to_f64(self) -> f64;
    fn is_nonzero(self) -> bool;
    /// The value on its way to an integer type of 32 bits or less (which keeps its low bits):
    /// ints as they are, floats through [`f64_to_i32_c`].
    #[inline]
    fn to_narrow(self) -> i64 {
        self.to_i64()
    }
    /// From a complex value: the real domains keep the real part (NumPy's complex-to-real cast).
    #[inline]
    fn from_c(re: f64, _im: f64) -> Self {
        Self::from_f64(re)
    }
    /// As a complex value (real, imaginary): the real domains give an imaginary part of zero.
    #[inline]
    fn to_c(self) -> (f64, f64) {
        (self.to_f64(), 0.0)
    }
}

/// The complex compute domain: complex128's parts (complex64's convert exactly). Ordered as
/// NumPy orders complex numbers: by real part, then by imaginary part.
#[derive(Copy, Clone, Debug, Default, PartialEq, PartialOrd)]
pub(crate) struct Cx {
    pub re: f64,
    pub im: f64,
}

impl std::ops::Add for Cx {
    type Output = Cx;
    #[inline]
    fn add(self, o: Cx) -> Cx {
        Cx { re: self.re + o.re, im: self.im + o.im }
    }
}
impl std::ops::Mul for Cx {
    type Output = Cx;
    /// NumPy's complex128 multiply.
    #[inline]
    fn mul(self, o: Cx) -> Cx {
        Cx { re: self.re * o.re - self.im * o.im, im: self.re * o.im + self.im * o.re }
    }
}

impl Wide for Cx {
    #[inline]
    fn from_i64(v: i64) -> Self {
        Cx { re: v as f64, im: 0.0 }
    }
    #[inline]
    fn from_u64(v: u64) -> Self {
        Cx { re: v as f64, im: 0.0 }
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        Cx { re: v, im: 0.0 }
    }
    #[inline]
    fn to_i64(self) -> i64 {
        f64_to_i64_c(self.re)
    }
    #[inline]
    fn to_u64(self) -> u64 {
        f64_to_u64_c(self.re)
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self.re
    }
    #[inline]
    fn is_nonzero(self) -> bool {
        self.re != 0.0 || self.im != 0.0
    }
    #[inline]
    fn to_narrow(self) -> i64 {
        f64_to_i32_c(self.re) as i64
    }
    #[inline]
    fn from_c(re: f64, im: f64) -> Self {
        Cx { re, im }
    }
    #[inline]
    fn to_c(self) -> (f64, f64) {
        (self.re, self.im)
    }
}

impl Wide for i64 {
    #[inline]
    fn from_i64(v: i64) -> Self {
        v
    }
    #[inline]
    fn from_u64(v: u64) -> Self {
        v as i64
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        f64_to_i64_c(v)
    }
    #[inline]
    fn to_i64(self) -> i64 {
        self
    }
    #[inline]
    fn to_u64(self) -> u64 {
        self as u64
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn is_nonzero(self) -> bool {
        self != 0
    }
}
impl Wide for u64 {
    #[inline]
    fn from_i64(v: i64) -> Self {
        v as u64
    }
    #[inline]
    fn from_u64(v: u64) -> Self {
        v
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        f64_to_u64_c(v)
    }
    #[inline]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline]
    fn to_u64(self) -> u64 {
        self
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn is_nonzero(self) -> bool {
        self != 0
    }
}
impl Wide for f64 {
    #[inline]
    fn from_i64(v: i64) -> Self {
        v as f64
    }
    #[inline]
    fn from_u64(v: u64) -> Self {
        v as f64
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        v
    }
    #[inline]
    fn to_i64(self) -> i64 {
        f64_to_i64_c(self)
    }
    #[inline]
    fn to_u64(self) -> u64 {
        f64_to_u64_c(self)
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn is_nonzero(self) -> bool {
        self != 0.0
    }
    #[inline]
    fn to_narrow(self) -> i64 {
        f64_to_i32_c(self) as i64
    }
}

/// Loads `out.len()` elements of dtype `dt` from `p` (byte stride `st`) into a wide buffer,
/// converting as a C cast to the wide type would (NumPy's unsafe casting).
///
/// # Safety
/// `p + i*st` must point at an initialised element of dtype `dt` for every `i < out.len()`,
/// not written by anyone during the call. When `st` is the element size, `p` must also be
/// aligned for the element type: array elements are (blocks are 64-byte aligned; offsets and
/// strides of every view are multiples of the itemsize).
#[inline]
pub(crate) unsafe fn load<W: Wide>(dt: DType, p: *const u8, st: isize, out: &mut [W]) {
    macro_rules! ld {
        ($t:ty, $conv:expr) => {{
            let f = $conv;
            if st == std::mem::size_of::<$t>() as isize {
                // SAFETY: `out.len()` consecutive, aligned, initialised elements that nobody
                // writes while the slice lives (the caller's contract); every bit pattern is a
                // valid value of the plain integer and float types read here.
                let s = unsafe { std::slice::from_raw_parts(p as *const $t, out.len()) };
                for (o, &v) in out.iter_mut().zip(s) {
                    *o = f(v);
                }
            } else {
                for (i, o) in out.iter_mut().enumerate() {
                    // SAFETY: element `i` lies at `p + i*st` (the caller's contract); the read
                    // is unaligned, so only validity is required.
                    *o = f(unsafe { (p.offset(i as isize * st) as *const $t).read_unaligned() });
                }
            }
        }};
    }
    match dt {
        DType::Bool => ld!(u8, |v: u8| W::from_i64((v != 0) as i64)),
        DType::Int8 => ld!(i8, |v: i8| W::from_i64(v as i64)),
        DType::Int16 => ld!(i16, |v: i16| W::from_i64(v as i64)),
        DType::Int32 => ld!(i32, |v: i32| W::from_i64(v as i64)),
        DType::Int64 => ld!(i64, |v: i64| W::from_i64(v)),
        DType::UInt8 => ld!(u8, |v: u8| W::from_u64(v as u64)),
        DType::UInt16 => ld!(u16, |v: u16| W::from_u64(v as u64)),
        DType::UInt32 => ld!(u32, |v: u32| W::from_u64(v as u64)),
        DType::UInt64 => ld!(u64, |v: u64| W::from_u64(v)),
        DType::Float16 => ld!(u16, |v: u16| W::from_f64(f16::from_bits(v).to_f64())),
        DType::Float32 => ld!(f32, |v: f32| W::from_f64(v as f64)),
        DType::Float64 => ld!(f64, |v: f64| W::from_f64(v)),
        DType::Complex64 => ld!([f32; 2], |v: [f32; 2]| W::from_c(v[0] as f64, v[1] as f64)),
        DType::Complex128 => ld!([f64; 2], |v: [f64; 2]| W::from_c(v[0], v[1])),
    }
}

/// Stores a wide buffer into elements of dtype `dt` (C-cast conversion as NumPy's on x86-64;
/// float to float rounds to nearest even, int to int wraps, float to int truncates toward zero
/// where the value fits and otherwise gives what x86's conversions give: see
/// [`f64_to_i32_c`] (int8 to int32, uint8, uint16), [`f64_to_i64_c`] (int64, and uint32 from
/// its low bits), [`f64_to_u64_c`] (uint64)).
///
/// # Safety
/// `p + i*st` must point at an element of dtype `dt` that no one else reads or writes during
/// the call, for every `i < src.len()`. When `st` is the element size, `p` must be aligned as
/// for [`load`].
#[inline]
pub(crate) unsafe fn store<W: Wide>(dt: DType, p: *mut u8, st: isize, src: &[W]) {
    macro_rules! stv {
        ($t:ty, $conv:expr) => {{
            let f = $conv;
            if st == std::mem::size_of::<$t>() as isize {
                // SAFETY: `src.len()` consecutive, aligned elements, exclusively ours for the
                // life of the slice (the caller's contract); storage bytes are always
                // initialised, and any bit pattern is a valid value of these types.
                let d = unsafe { std::slice::from_raw_parts_mut(p as *mut $t, src.len()) };
                for (o, &v) in d.iter_mut().zip(src) {
                    *o = f(v);
                }
            } else {
                for (i, &v) in src.iter().enumerate() {
                    // SAFETY: element `i` lies at `p + i*st` and is ours to write (the caller's
                    // contract); the write is unaligned.
                    unsafe { (p.offset(i as isize * st) as *mut $t).write_unaligned(f(v)) };
                }
            }
        }};
    }
    match dt {
        DType::Bool => stv!(u8, |v: W| v.is_nonzero() as u8),
        DType::Int8 => stv!(i8, |v: W| v.to_narrow() as i8),
        DType::Int16 => stv!(i16, |v: W| v.to_narrow() as i16),
        DType::Int32 => stv!(i32, |v: W| v.to_narrow() as i32),
        DType::Int64 => stv!(i64, |v: W| v.to_i64()),
        DType::UInt8 => stv!(u8, |v: W| v.to_narrow() as u8),
        DType::UInt16 => stv!(u16, |v: W| v.to_narrow() as u16),
        DType::UInt32 => stv!(u32, |v: W| v.to_i64() as u32),
        DType::UInt64 => stv!(u64, |v: W| v.to_u64()),
        DType::Float16 => stv!(u16, |v: W| crate::core::dtype::f16_from_f64(v.to_f64()).to_bits()),
        DType::Float32 => stv!(f32, |v: W| v.to_f64() as f32),
        DType::Float64 => stv!(f64, |v: W| v.to_f64()),
        DType::Complex64 => stv!([f32; 2], |v: W| {
            let (re, im) = v.to_c();
            [re as f32, im as f32]
        }),
        DType::Complex128 => stv!([f64; 2], |v: W| {
            let (re, im) = v.to_c();
            [re, im]
        }),
    }
}

/// Which wide domain a loop dtype computes in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Domain {
    I,
    U,
    F,
    C,
}

#[inline]
pub(crate) fn domain(dt: DType) -> Domain {
    if dt.is_complex() {
        Domain::C
    } else if dt.is_float() {
        Domain::F
    } else if dt.is_unsigned_int() {
        Domain::U
    } else {
        Domain::I
    }
}

/// Copies raw elements of `itemsize` bytes between two strided layouts of the same dtype.
///
/// # Safety
/// As [`par_walk`] for the two operands (elements of `itemsize` bytes); moreover `src` must not
/// overlap `dst` at all (`Array::assign` copies an aliasing source first).
pub(crate) unsafe fn copy_same(itemsize: usize, shape: &[usize], dst: (Ptr, &[isize]), src: (Ptr, &[isize])) {
    let strides = [dst.1.to_vec(), src.1.to_vec()];
    let f = move |p: [*mut u8; 2], n: usize, st: [isize; 2]| {
        if st[0] == itemsize as isize && st[1] == itemsize as isize {
            // SAFETY: both runs are `n` contiguous elements of their arrays (`par_walk`'s
            // contract, which makes the destination run ours alone); `copy` allows overlap.
            unsafe { std::ptr::copy(p[1], p[0], n * itemsize) };
        } else {
            for i in 0..n as isize {
                // SAFETY: element `i` of each run, `itemsize` bytes in bounds by `par_walk`'s
                // contract; the caller guarantees the source does not overlap the destination.
                unsafe { std::ptr::copy_nonoverlapping(p[1].offset(i * st[1]), p[0].offset(i * st[0]), itemsize) };
            }
        }
    };
    // SAFETY: the caller's contract (see `# Safety`).
    unsafe { par_walk(shape, &strides, [dst.0, src.0], &f) };
}

/// Rounds a float64 to the precision of float dtype `dt` (identity for float64).
#[inline]
pub(crate) fn round_scalar(dt: DType, v: f64) -> f64 {
    match dt {
        DType::Float32 => v as f32 as f64,
        DType::Float16 => crate::core::dtype::f16_from_f64(v).to_f64(),
        _ => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The x86-64 conversions at their boundaries (values as NumPy 2.4.6 prints them for
    /// `np.array([v]).astype(...)` on x86-64).
    #[test]
    fn float_to_int_as_on_x86() {
        let two63 = 9223372036854775808.0;
        for (v, i32w, i64w, u64w) in [
            (f64::NAN, i32::MIN, i64::MIN, 1u64 << 63),
            (f64::INFINITY, i32::MIN, i64::MIN, 0),
            (f64::NEG_INFINITY, i32::MIN, i64::MIN, 1 << 63),
            (-1.7, -1, -1, u64::MAX),
            (1.7, 1, 1, 1),
            (-0.0, 0, 0, 0),
            (2147483647.9, i32::MAX, 2147483647, 2147483647),
            (2147483648.0, i32::MIN, 2147483648, 2147483648),
            (-2147483648.9, i32::MIN, -2147483648, 18446744071562067968),
            (-2147483649.0, i32::MIN, -2147483649, 18446744071562067967),
            (two63, i32::MIN, i64::MIN, 1 << 63),
            (-two63, i32::MIN, i64::MIN, 1 << 63),
            (1e19, i32::MIN, i64::MIN, 10000000000000000000),
            (18446744073709549568.0, i32::MIN, i64::MIN, 18446744073709549568),
            (18446744073709551616.0, i32::MIN, i64::MIN, 0),
            (1e20, i32::MIN, i64::MIN, 0),
        ] {
            assert_eq!((f64_to_i32_c(v), f64_to_i64_c(v), f64_to_u64_c(v)), (i32w, i64w, u64w), "{v}");
        }
        // Through the wide types: NaN into int8 is the low byte of INT32_MIN, into uint32 the
        // low half of INT64_MIN.
        assert_eq!(f64::NAN.to_narrow() as i8, 0);
        assert_eq!(300.0f64.to_narrow() as i8, 44);
        assert_eq!(12884901893.0f64.to_i64() as u32, 5);
        assert_eq!(<i64 as Wide>::from_f64(f64::NAN), i64::MIN);
        assert_eq!(<u64 as Wide>::from_f64(-1.0), u64::MAX);
    }

    /// A broadcast view written as an output overlaps itself: `par_walk` writes it on one thread
    /// in C order (no race between threads; the last row wins), also above the parallel threshold.
    #[test]
    fn self_overlapping_output_is_written_in_order() {
        let rows = 2 * PAR_THRESHOLD / 3;
        let base = crate::zeros(&[3], DType::Int64, &crate::Device::Cpu).unwrap();
        let src = crate::arange(rows as i64 * 3, &crate::Device::Cpu).unwrap().reshape([rows, 3]).unwrap();
        let mut view = base.broadcast_to(&[rows, 3]).unwrap();
        view.assign(&src).unwrap();
        let last = rows as i64 * 3;
        assert_eq!(base.to_vec::<i64>().unwrap(), vec![last - 3, last - 2, last - 1]);
        // Through the converting path too (int64 into float64 goes through `load`/`store`).
        let basef = crate::zeros(&[3], DType::Float64, &crate::Device::Cpu).unwrap();
        basef.broadcast_to(&[rows, 3]).unwrap().assign(&src).unwrap();
        assert_eq!(basef.to_vec::<f64>().unwrap(), vec![(last - 3) as f64, (last - 2) as f64, (last - 1) as f64]);
    }
}
