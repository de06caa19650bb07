//! The CPU backend: strided iteration over views without copying them, buffered conversion
//! of elements into a few wide compute domains (i64, u64, f64), and rayon threads above a
//! size threshold.

use crate::array::Array;
use crate::core::dtype::DType;
use half::f16;
use rayon::prelude::*;

/// The address of `a`'s first element (a CPU array).
pub(crate) fn ptr(a: &Array) -> Ptr {
    // SAFETY: `offset` lies within the storage block (an invariant of every view).
    Ptr(unsafe { a.storage.cpu().expect("CPU array").ptr().add(a.offset) })
}

/// Elements per buffered chunk.
pub(crate) const CHUNK: usize = 1024;
/// Operations on fewer elements than this run on the calling thread.
pub(crate) const PAR_THRESHOLD: usize = 1 << 16;

/// A copy that uses several threads for large buffers (host staging of device copies).
pub(crate) fn par_copy(dst: &mut [u8], src: &[u8]) {
    const PIECE: usize = 4 << 20;
    if src.len() < 2 * PIECE {
        dst.copy_from_slice(src);
    } else {
        dst.par_chunks_mut(PIECE).zip(src.par_chunks(PIECE)).for_each(|(d, s)| d.copy_from_slice(s));
    }
}

/// A raw pointer that may cross threads (each thread touches disjoint elements).
#[derive(Copy, Clone)]
pub(crate) struct Ptr(pub *mut u8);
unsafe impl Send for Ptr {}
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
/// Every pointer plus every offset reachable through `shape`/`strides` must be valid.
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
            for k in 0..N {
                ptrs[k] = ptrs[k].offset(idx[d] as isize * strides[k][d]);
            }
        }
        let run_end = (inner - j).min(end - i);
        let mut t = 0;
        while t < run_end {
            let n = (run_end - t).min(CHUNK);
            let p: [*mut u8; N] = std::array::from_fn(|k| ptrs[k].offset((j + t) as isize * inner_st[k]));
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
/// # Safety
/// As [`walk`]; additionally `f` must only write to elements of its own run.
pub(crate) unsafe fn par_walk<const N: usize>(
    shape: &[usize],
    strides: &[Vec<isize>; N],
    base: [Ptr; N],
    f: &(dyn Fn([*mut u8; N], usize, [isize; N]) + Sync),
) {
    let size: usize = shape.iter().product();
    if size < PAR_THRESHOLD {
        walk(shape, strides, base, 0, size, &mut |p, n, s| f(p, n, s));
        return;
    }
    let parts = rayon::current_num_threads().max(1) * 4;
    let per = size.div_ceil(parts);
    (0..parts).into_par_iter().for_each(|t| {
        let (s, e) = (t * per, ((t + 1) * per).min(size));
        if s < e {
            walk(shape, strides, base, s, e, &mut |p, n, st| f(p, n, st));
        }
    });
}

/// Float to int64 as NumPy's C cast compiles on x86-64 (`cvttsd2si`): truncation toward zero,
/// and NaN or a value out of range gives `i64::MIN`.
pub(crate) fn f64_to_i64_c(v: f64) -> i64 {
    if (-9223372036854775808.0..9223372036854775808.0).contains(&v) {
        v as i64
    } else {
        i64::MIN
    }
}

/// Float to int32 as on x86-64 (`cvttsd2si` of 32 bits): NaN or out of range gives `i32::MIN`.
/// NumPy's casts to int8, int16, uint8 and uint16 go through it and keep the low bits.
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
    fn to_narrow(self) -> i64 {
        self.to_i64()
    }
}

impl Wide for i64 {
    fn from_i64(v: i64) -> Self {
        v
    }
    fn from_u64(v: u64) -> Self {
        v as i64
    }
    fn from_f64(v: f64) -> Self {
        f64_to_i64_c(v)
    }
    fn to_i64(self) -> i64 {
        self
    }
    fn to_u64(self) -> u64 {
        self as u64
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn is_nonzero(self) -> bool {
        self != 0
    }
}
impl Wide for u64 {
    fn from_i64(v: i64) -> Self {
        v as u64
    }
    fn from_u64(v: u64) -> Self {
        v
    }
    fn from_f64(v: f64) -> Self {
        f64_to_u64_c(v)
    }
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn to_u64(self) -> u64 {
        self
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn is_nonzero(self) -> bool {
        self != 0
    }
}
impl Wide for f64 {
    fn from_i64(v: i64) -> Self {
        v as f64
    }
    fn from_u64(v: u64) -> Self {
        v as f64
    }
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_i64(self) -> i64 {
        f64_to_i64_c(self)
    }
    fn to_u64(self) -> u64 {
        f64_to_u64_c(self)
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn is_nonzero(self) -> bool {
        self != 0.0
    }
    fn to_narrow(self) -> i64 {
        f64_to_i32_c(self) as i64
    }
}

/// Loads `out.len()` elements of dtype `dt` from `p` (byte stride `st`) into a wide buffer,
/// converting as a C cast to the wide type would (NumPy's unsafe casting).
///
/// # Safety
/// `p + i*st` must point at a valid element for every `i < out.len()`.
#[inline]
pub(crate) unsafe fn load<W: Wide>(dt: DType, p: *const u8, st: isize, out: &mut [W]) {
    macro_rules! ld {
        ($t:ty, $conv:expr) => {{
            let f = $conv;
            if st == std::mem::size_of::<$t>() as isize {
                let s = std::slice::from_raw_parts(p as *const $t, out.len());
                for (o, &v) in out.iter_mut().zip(s) {
                    *o = f(v);
                }
            } else {
                for (i, o) in out.iter_mut().enumerate() {
                    *o = f((p.offset(i as isize * st) as *const $t).read_unaligned());
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
    }
}

/// Stores a wide buffer into elements of dtype `dt` (C-cast conversion as NumPy's on x86-64;
/// float to float rounds to nearest even, int to int wraps, float to int truncates toward zero
/// where the value fits and otherwise gives what x86's conversions give: see
/// [`f64_to_i32_c`] (int8 to int32, uint8, uint16), [`f64_to_i64_c`] (int64, and uint32 from
/// its low bits), [`f64_to_u64_c`] (uint64)).
///
/// # Safety
/// `p + i*st` must point at a writable element for every `i < src.len()`.
#[inline]
pub(crate) unsafe fn store<W: Wide>(dt: DType, p: *mut u8, st: isize, src: &[W]) {
    macro_rules! stv {
        ($t:ty, $conv:expr) => {{
            let f = $conv;
            if st == std::mem::size_of::<$t>() as isize {
                let d = std::slice::from_raw_parts_mut(p as *mut $t, src.len());
                for (o, &v) in d.iter_mut().zip(src) {
                    *o = f(v);
                }
            } else {
                for (i, &v) in src.iter().enumerate() {
                    (p.offset(i as isize * st) as *mut $t).write_unaligned(f(v));
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
    }
}

/// Which wide domain a loop dtype computes in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Domain {
    I,
    U,
    F,
}

pub(crate) fn domain(dt: DType) -> Domain {
    if dt.is_float() {
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
/// As [`walk`].
pub(crate) unsafe fn copy_same(itemsize: usize, shape: &[usize], dst: (Ptr, &[isize]), src: (Ptr, &[isize])) {
    let strides = [dst.1.to_vec(), src.1.to_vec()];
    let f = move |p: [*mut u8; 2], n: usize, st: [isize; 2]| {
        if st[0] == itemsize as isize && st[1] == itemsize as isize {
            std::ptr::copy(p[1], p[0], n * itemsize);
        } else {
            for i in 0..n as isize {
                std::ptr::copy_nonoverlapping(p[1].offset(i * st[1]), p[0].offset(i * st[0]), itemsize);
            }
        }
    };
    par_walk(shape, &strides, [dst.0, src.0], &f);
}

/// Rounds a float64 to the precision of float dtype `dt` (identity for float64).
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
}
