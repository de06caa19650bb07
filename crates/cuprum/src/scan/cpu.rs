//! The CPU scans (cumsum, cumprod): sequential in each lane, as NumPy's accumulate.

use crate::array::Array;
use crate::backend::cpu::{cmath, domain, load, store, Cx, Domain, Wide, CHUNK, PAR_THRESHOLD};
use crate::backend::storage::CpuLocks;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::ufunc::cpu::round_to;
use rayon::prelude::*;

// ------------------------------------------------------------------------------ scans

/// Addition in a scan's output type: floats as IEEE (in float32 for float32: the same result
/// as adding in float64 and rounding once), integers wrapping.
trait ScanAdd: Copy + Send + Sync {
    fn add(self, o: Self) -> Self;
}
impl ScanAdd for f32 {
    #[inline]
    fn add(self, o: Self) -> Self {
        self + o
    }
}
impl ScanAdd for f64 {
    #[inline]
    fn add(self, o: Self) -> Self {
        self + o
    }
}
impl ScanAdd for i64 {
    #[inline]
    fn add(self, o: Self) -> Self {
        self.wrapping_add(o)
    }
}
impl ScanAdd for u64 {
    #[inline]
    fn add(self, o: Self) -> Self {
        self.wrapping_add(o)
    }
}

/// Elements per block of a single long cumsum's two passes (fixed, so that the result does not
/// depend on the number of threads).
const SCAN_BLOCK: usize = 1 << 16;
/// A single lane at least this long is scanned in two parallel passes. The sequential scan in
/// the element's type runs at about 1 ns per element here (1e7 float32: 10.8 ms), bound by
/// memory; the two passes read `x` twice, so on this 2-core machine they pay little (1e7:
/// 9.8 ms when the machine was idle, slower than sequential when other builds held a core).
/// Their gain grows with the cores (the 16-core host), so they start at 4M elements, where the
/// data no longer fits the caches and each thread's blocks are long.
const SCAN_PAR: usize = 1 << 22;

/// The inclusive sum of `x` into `y`, starting from `init` (none: from the first element).
#[inline]
fn cumsum_run<T: Copy, A: ScanAdd>(x: &[T], y: &mut [A], conv: impl Fn(T) -> A, init: Option<A>) {
    let mut acc = init;
    for (o, &v) in y.iter_mut().zip(x) {
        let next = match acc {
            Some(a) => a.add(conv(v)),
            None => conv(v),
        };
        *o = next;
        acc = Some(next);
    }
}

/// Cumulative sums of the `len`-long lanes of `x` into `y`, in the output's own type: lanes in
/// parallel when there are many; a single long lane ([`SCAN_PAR`]) in two passes over fixed
/// blocks (each block's total, the blocks' offsets in order, then each block from its offset).
/// Integers give NumPy's exact results either way; a float lane split into blocks differs
/// from the sequential sum by rounding only (each block adds its local sums to the offset).
fn cumsum_native<T: Copy + Send + Sync, A: ScanAdd>(x: &[T], y: &mut [A], len: usize, conv: impl Fn(T) -> A + Sync) {
    let lanes = x.len() / len;
    if lanes == 1 && len >= SCAN_PAR {
        let totals: Vec<A> =
            x.par_chunks(SCAN_BLOCK).map(|c| c[1..].iter().fold(conv(c[0]), |a, &v| a.add(conv(v)))).collect();
        let mut offs: Vec<Option<A>> = Vec::with_capacity(totals.len());
        let mut run: Option<A> = None;
        for &t in &totals {
            offs.push(run);
            run = Some(match run {
                Some(r) => r.add(t),
                None => t,
            });
        }
        y.par_chunks_mut(SCAN_BLOCK)
            .zip(x.par_chunks(SCAN_BLOCK))
            .zip(offs.into_par_iter())
            .for_each(|((yc, xc), off)| cumsum_run(xc, yc, &conv, off));
    } else if lanes > 1 && x.len() >= PAR_THRESHOLD {
        y.par_chunks_mut(len).zip(x.par_chunks(len)).for_each(|(yc, xc)| cumsum_run(xc, yc, &conv, None));
    } else {
        y.chunks_mut(len).zip(x.chunks(len)).for_each(|(yc, xc)| cumsum_run(xc, yc, &conv, None));
    }
}

/// Inclusive scans of the contiguous lanes (last axis) of `x` into `y` (same shape, C order),
/// sequential in each lane and rounded to `y`'s dtype at every step, as NumPy's accumulate.
pub(crate) fn scan(op: crate::scan::ScanOp, x: &Array, y: &Array) -> Result<()> {
    let _l = CpuLocks::new(&[&x.storage], &[&y.storage]);
    let len = *x.shape.last().unwrap_or(&1);
    if len == 0 {
        return Ok(());
    }
    let lanes = x.size() / len;
    let (xd, yd) = (x.dtype, y.dtype);
    if op == crate::scan::ScanOp::Sum && x.size() > 0 {
        let (xp, yp) = (x.cpu_ptr().get(), y.cpu_ptr().get());
        let n = x.size();
        macro_rules! native {
            ($t:ty, $a:ty) => {{
                // SAFETY: `x` (C-contiguous, `scan`'s caller makes it so) and `y` (fresh, C
                // order) hold `n` aligned elements of `$t` and `$a` (their dtypes, matched
                // below); `x` is read-locked, `y` write-locked and a different block.
                let (xs, ys) = unsafe {
                    (std::slice::from_raw_parts(xp as *const $t, n), std::slice::from_raw_parts_mut(yp as *mut $a, n))
                };
                cumsum_native(xs, ys, len, |v: $t| v as $a);
                return Ok(());
            }};
        }
        use DType::*;
        match (xd, yd) {
            (Float32, Float32) => native!(f32, f32),
            (Float64, Float64) => native!(f64, f64),
            (Int64, Int64) => native!(i64, i64),
            (Int32, Int64) => native!(i32, i64),
            (Int16, Int64) => native!(i16, i64),
            (Int8, Int64) => native!(i8, i64),
            (UInt64, UInt64) => native!(u64, u64),
            (UInt32, UInt64) => native!(u32, u64),
            (UInt16, UInt64) => native!(u16, u64),
            (UInt8, UInt64) => native!(u8, u64),
            _ => {}
        }
    }
    let (xp, yp) = (x.cpu_ptr(), y.cpu_ptr());
    /// # Safety
    /// `xp` and `yp` point at `len` contiguous, aligned elements of `xd` and `yd`; nothing else
    /// writes the former, and nothing else reads or writes the latter, during the call.
    unsafe fn lane<W: Wide + std::ops::Add<Output = W> + std::ops::Mul<Output = W>>(
        op: crate::scan::ScanOp,
        xd: DType,
        yd: DType,
        xp: *const u8,
        yp: *mut u8,
        len: usize,
        wrap: fn(W, W, crate::scan::ScanOp) -> W,
    ) {
        let mut acc: Option<W> = None;
        let mut buf = [W::default(); CHUNK];
        let mut t = 0;
        while t < len {
            let n = CHUNK.min(len - t);
            // SAFETY: `t + n <= len` elements of the lane at `xp` (the function's contract).
            unsafe { load(xd, xp.add(t * xd.itemsize()), xd.itemsize() as isize, &mut buf[..n]) };
            for v in buf[..n].iter_mut() {
                let next = match acc {
                    None => *v,
                    Some(a) => wrap(a, *v, op),
                };
                let mut r = [next];
                round_to(yd, &mut r);
                acc = Some(r[0]);
                *v = r[0];
            }
            // SAFETY: `t + n <= len` elements of the lane at `yp`, ours alone (the function's
            // contract).
            unsafe { store(yd, yp.add(t * yd.itemsize()), yd.itemsize() as isize, &buf[..n]) };
            t += n;
        }
    }
    let xs = len * xd.itemsize();
    let ys = len * yd.itemsize();
    let run = |k: usize| {
        // SAFETY: `x` (C-contiguous: `scan`'s caller makes it so) and `y` (fresh, C order) hold
        // `lanes` lanes of `len` elements, and `k < lanes`: lane `k` of each lies in its block.
        let (xk, yk) = unsafe { (xp.get().add(k * xs) as *const u8, yp.get().add(k * ys)) };
        use crate::scan::ScanOp::*;
        let int = |a: i64, b: i64, o| if o == Sum { a.wrapping_add(b) } else { a.wrapping_mul(b) };
        let uint = |a: u64, b: u64, o| if o == Sum { a.wrapping_add(b) } else { a.wrapping_mul(b) };
        // SAFETY: lane `k` of `x` and of `y`, aligned as array elements are. `x` is read-locked;
        // `y` is a fresh block, write-locked, and lane `k` of it is written by this call alone.
        unsafe {
            match domain(yd) {
                Domain::I => lane::<i64>(op, xd, yd, xk, yk, len, int),
                Domain::U => lane::<u64>(op, xd, yd, xk, yk, len, uint),
                Domain::F => lane::<f64>(op, xd, yd, xk, yk, len, |a, b, o| if o == Sum { a + b } else { a * b }),
                // complex64 accumulates in float32 parts, as NumPy's loop.
                Domain::C if yd == DType::Complex64 => {
                    lane::<Cx>(op, xd, yd, xk, yk, len, |a, b, o| cmath::cx_add_mul(true, o == Sum, a, b))
                }
                Domain::C => lane::<Cx>(op, xd, yd, xk, yk, len, |a, b, o| cmath::cx_add_mul(false, o == Sum, a, b)),
            }
        }
    };
    if x.size() >= PAR_THRESHOLD && lanes > 1 {
        (0..lanes).into_par_iter().for_each(run);
    } else {
        (0..lanes).for_each(run);
    }
    Ok(())
}
