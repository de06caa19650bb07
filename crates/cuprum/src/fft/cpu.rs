//! The CPU transforms: rustfft (complex) and realfft (real) plans, cached by their planners,
//! run across the cores. The last axis is transformed row by row (rows split among the
//! threads); an inner axis in blocks of columns gathered into contiguous signals; one long
//! 1-d transform (no rows to share) by the four-step method (columns, twiddles, rows, a
//! transpose), so that it uses every core too.

use super::Kind;
use crate::array::Array;
use crate::backend::cpu::Ptr;
use crate::backend::storage::CpuLocks;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::Result;
use num_complex::Complex;
use rayon::prelude::*;
use realfft::RealFftPlanner;
use rustfft::{Fft, FftDirection, FftNum, FftPlanner};
use std::sync::{Arc, Mutex, OnceLock};

/// f32 and f64, with their planners (one of each per process: they cache the plans).
pub(crate) trait Float: FftNum {
    fn planner() -> &'static Mutex<FftPlanner<Self>>;
    fn real_planner() -> &'static Mutex<RealFftPlanner<Self>>;
    const COMPLEX: DType;
    const REAL: DType;
}

macro_rules! float {
    ($t:ty, $c:expr, $r:expr) => {
        impl Float for $t {
            fn planner() -> &'static Mutex<FftPlanner<$t>> {
                static P: OnceLock<Mutex<FftPlanner<$t>>> = OnceLock::new();
                P.get_or_init(|| Mutex::new(FftPlanner::new()))
            }
            fn real_planner() -> &'static Mutex<RealFftPlanner<$t>> {
                static P: OnceLock<Mutex<RealFftPlanner<$t>>> = OnceLock::new();
                P.get_or_init(|| Mutex::new(RealFftPlanner::new()))
            }
            const COMPLEX: DType = $c;
            const REAL: DType = $r;
        }
    };
}
float!(f32, DType::Complex64, DType::Float32);
float!(f64, DType::Complex128, DType::Float64);

fn plan<T: Float>(n: usize, inverse: bool) -> Arc<dyn Fft<T>> {
    let dir = if inverse { FftDirection::Inverse } else { FftDirection::Forward };
    T::planner().lock().unwrap_or_else(|e| e.into_inner()).plan_fft(n, dir)
}

/// Work per task (complex elements) below which a pass stays on one thread.
const TASK: usize = 1 << 15;
/// Columns gathered per task of an inner-axis pass.
const BLOCK: usize = 32;
/// Length from which a single 1-d transform uses the four-step method.
const FOUR_STEP: usize = 1 << 18;

/// `kind` over the trailing `dims` of the C-contiguous host array `x`.
pub(crate) fn transform(x: &Array, kind: Kind, dims: &[usize]) -> Result<Array> {
    match x.dtype() {
        DType::Complex64 | DType::Float32 => run::<f32>(x, kind, dims),
        _ => run::<f64>(x, kind, dims),
    }
}

/// A C-contiguous host array's elements as a slice of `E`.
///
/// # Safety
/// `a` must be C-contiguous with elements of type `E`, and locked for the slice's lifetime
/// (read, or write for a mutable use with no other reference).
unsafe fn slice<'a, E>(a: &Array) -> &'a mut [E] {
    if a.size() == 0 {
        return &mut [];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts_mut(a.cpu_ptr().get() as *mut E, a.size()) }
}

fn run<T: Float>(x: &Array, kind: Kind, dims: &[usize]) -> Result<Array> {
    let nd = x.ndim();
    let k = dims.len();
    let lead = &x.shape()[..nd - k];
    let mut shape = lead.to_vec();
    shape.extend_from_slice(dims);
    match kind {
        Kind::C2C { inverse } => {
            let out = Array::alloc(&shape, T::COMPLEX, Device::Cpu, false)?;
            {
                let _l = CpuLocks::new(&[&x.storage], &[&out.storage]);
                // SAFETY: both C-contiguous complex arrays of `x.size()` elements, locked
                // above; `out` is new, so the slices do not overlap.
                let (src, dst) = unsafe { (slice::<Complex<T>>(x), slice::<Complex<T>>(&out)) };
                par_copy(dst, src);
                axes_pass(dst, &shape, k, k, inverse);
            }
            Ok(out)
        }
        Kind::R2C => {
            let n = dims[k - 1];
            shape[nd - 1] = n / 2 + 1;
            let out = Array::alloc(&shape, T::COMPLEX, Device::Cpu, false)?;
            r2c_into::<T>(x, &out, &shape, n, k);
            Ok(out)
        }
        Kind::C2R => {
            let n = dims[k - 1];
            let out = Array::alloc(&shape, T::REAL, Device::Cpu, false)?;
            c2r_into::<T>(x, &out, &shape, n, k);
            Ok(out)
        }
    }
}

fn r2c_into<T: Float>(x: &Array, out: &Array, shape: &[usize], n: usize, k: usize) {
    let m = n / 2 + 1;
    {
        let _l = CpuLocks::new(&[&x.storage], &[&out.storage]);
        // SAFETY: as above (`x` real of `x.size()`, `out` complex of `out.size()`).
        let (src, dst) = unsafe { (slice::<T>(x), slice::<Complex<T>>(out)) };
        if n > 0 && out.size() > 0 {
            let r2c = T::real_planner().lock().unwrap_or_else(|e| e.into_inner()).plan_fft_forward(n);
            let rows = src.len() / n;
            let per = (TASK / n).max(1);
            let work = |(si, di): (&[T], &mut [Complex<T>])| {
                let mut inp = si.to_vec();
                let mut scratch = r2c.make_scratch_vec();
                for (a, b) in inp.chunks_mut(n).zip(di.chunks_mut(m)) {
                    r2c.process_with_scratch(a, b, &mut scratch).expect("lengths checked");
                }
            };
            if rows > per {
                src.par_chunks(n * per).zip(dst.par_chunks_mut(m * per)).for_each(work);
            } else {
                work((src, dst));
            }
        }
        // The other trailing axes, complex to complex.
        axes_pass(dst, shape, k, k - 1, false);
    }
}

fn c2r_into<T: Float>(x: &Array, out: &Array, shape: &[usize], n: usize, k: usize) {
    let m = n / 2 + 1;
    let nd = shape.len();
    {
        let mut work = {
            let _l = CpuLocks::new(&[&x.storage], &[]);
            // SAFETY: `x` complex, C-contiguous, read-locked for this copy.
            unsafe { slice::<Complex<T>>(x) }.to_vec()
        };
        let mut wshape = shape.to_vec();
        wshape[nd - 1] = m;
        // The complex axes first (all but the last).
        axes_pass(&mut work, &wshape, k, k - 1, true);
        let _l = CpuLocks::new(&[], &[&out.storage]);
        // SAFETY: `out` real, C-contiguous, new and write-locked.
        let dst = unsafe { slice::<T>(out) };
        if dst.is_empty() {
            return;
        }
        let c2r = T::real_planner().lock().unwrap_or_else(|e| e.into_inner()).plan_fft_inverse(n);
        let per = (TASK / n).max(1);
        let rows = dst.len() / n;
        let body = |(wi, di): (&mut [Complex<T>], &mut [T])| {
            let mut scratch = c2r.make_scratch_vec();
            for (a, b) in wi.chunks_mut(m).zip(di.chunks_mut(n)) {
                // pocketfft's rule: the imaginary parts of the zero (and Nyquist) terms
                // do not count.
                a[0].im = T::zero();
                if n.is_multiple_of(2) {
                    a[m - 1].im = T::zero();
                }
                c2r.process_with_scratch(a, b, &mut scratch).expect("lengths checked");
            }
        };
        if rows > per {
            work.par_chunks_mut(m * per).zip(dst.par_chunks_mut(n * per)).for_each(body);
        } else {
            body((&mut work, dst));
        }
    }
}

fn par_copy<E: Copy + Send + Sync>(dst: &mut [E], src: &[E]) {
    if src.len() < 4 * TASK {
        dst.copy_from_slice(src);
    } else {
        dst.par_chunks_mut(TASK).zip(src.par_chunks(TASK)).for_each(|(d, s)| d.copy_from_slice(s));
    }
}

/// Complex transforms of `data` (C order of `shape`) along its last `count` axes of the
/// trailing `k`: `count == k` transforms all of them; `count == k - 1` all but the last.
fn axes_pass<T: Float>(data: &mut [Complex<T>], shape: &[usize], k: usize, count: usize, inverse: bool) {
    let nd = shape.len();
    for j in (nd - k..nd - k + count).rev() {
        if j == nd - k + count - 1 && count == k {
            last_axis(data, shape[nd - 1], inverse);
        } else {
            let inner: usize = shape[j + 1..].iter().product();
            inner_axis(data, shape[j], inner, inverse);
        }
    }
}

/// Transforms of length `n` over the rows of `data`.
fn last_axis<T: Float>(data: &mut [Complex<T>], n: usize, inverse: bool) {
    if data.is_empty() || n <= 1 {
        return;
    }
    let rows = data.len() / n;
    if rows < rayon::current_num_threads() && n >= FOUR_STEP {
        if let Some(n1) = split(n) {
            for row in data.chunks_mut(n) {
                four_step(row, n1, n / n1, inverse);
            }
            return;
        }
    }
    let fft = plan::<T>(n, inverse);
    let per = (TASK / n).max(1);
    let body = |c: &mut [Complex<T>]| {
        let mut scratch = vec![Complex::new(T::zero(), T::zero()); fft.get_inplace_scratch_len()];
        fft.process_with_scratch(c, &mut scratch);
    };
    if rows > per {
        data.par_chunks_mut(n * per).for_each(body);
    } else {
        body(data);
    }
}

/// Transforms of length `n` along an inner axis of `data`, viewed as `(outer, n, inner)`:
/// blocks of up to BLOCK columns gathered into contiguous signals, transformed and put back.
fn inner_axis<T: Float>(data: &mut [Complex<T>], n: usize, inner: usize, inverse: bool) {
    if data.is_empty() || n <= 1 {
        return;
    }
    let outer = data.len() / (n * inner);
    let fft = plan::<T>(n, inverse);
    let blocks = inner.div_ceil(BLOCK);
    let base = Ptr(data.as_mut_ptr() as *mut u8);
    let task = |t: usize| {
        let (o, b) = (t / blocks, t % blocks);
        let c0 = b * BLOCK;
        let w = BLOCK.min(inner - c0);
        let p = base.get() as *mut Complex<T>;
        let zero = Complex::new(T::zero(), T::zero());
        let mut buf = vec![zero; n * w];
        let mut scratch = vec![zero; fft.get_inplace_scratch_len()];
        let at = |j: usize, c: usize| o * n * inner + j * inner + c0 + c;
        for j in 0..n {
            for c in 0..w {
                // SAFETY: element (o, j, c0 + c) of `data` (o < outer, j < n, c0 + c < inner);
                // the tasks own disjoint (o, column block) sets of elements.
                buf[c * n + j] = unsafe { *p.add(at(j, c)) };
            }
        }
        fft.process_with_scratch(&mut buf, &mut scratch);
        for j in 0..n {
            for c in 0..w {
                // SAFETY: as above.
                unsafe { *p.add(at(j, c)) = buf[c * n + j] };
            }
        }
    };
    let tasks = outer * blocks;
    if tasks > 1 && n * inner * outer >= TASK {
        (0..tasks).into_par_iter().for_each(task);
    } else {
        (0..tasks).for_each(task);
    }
}

/// A factor `n1` of `n` near its square root (both factors at least 64), if there is one.
fn split(n: usize) -> Option<usize> {
    let r = (n as f64).sqrt() as usize;
    (64..=r).rev().find(|&d| n.is_multiple_of(d) && n / d >= 64)
}

/// The four-step transform of one signal of `n1 * n2` points (Bailey): as an `(n1, n2)`
/// matrix, transforms down the columns, twiddles `w_n^(j2 k1)`, transforms along the rows,
/// and the transpose (output `k1 + n1 k2` is element `(k1, k2)`).
fn four_step<T: Float>(x: &mut [Complex<T>], n1: usize, n2: usize, inverse: bool) {
    let n = n1 * n2;
    inner_axis(x, n1, n2, inverse);
    let sign = if inverse { 1.0 } else { -1.0 };
    let step = sign * 2.0 * std::f64::consts::PI / n as f64;
    x.par_chunks_mut(n2).enumerate().for_each(|(k1, row)| {
        for (j2, v) in row.iter_mut().enumerate().skip(1) {
            // (k1 j2 mod n keeps the angle's argument exact)
            let a = step * ((k1 * j2) % n) as f64;
            let w = Complex::new(T::from_f64(a.cos()).expect("a float"), T::from_f64(a.sin()).expect("a float"));
            *v = *v * w;
        }
    });
    last_axis(x, n2, inverse);
    // Transpose (n1, n2) -> (n2, n1) through a copy.
    let src = x.to_vec();
    let dst = Ptr(x.as_mut_ptr() as *mut u8);
    (0..n2).into_par_iter().with_min_len(64).for_each(|k2| {
        let d = dst.get() as *mut Complex<T>;
        for k1 in 0..n1 {
            // SAFETY: element k2 n1 + k1 < n of `x`; each task writes its own row k2.
            unsafe { *d.add(k2 * n1 + k1) = src[k1 * n2 + k2] };
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The four-step transform (columns, twiddles, rows, transpose) against rustfft's own plan
    /// of the whole length, both directions and precisions.
    #[test]
    fn four_step_matches_one_plan() {
        let (n1, n2) = (512, 640);
        let n = n1 * n2;
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let x: Vec<Complex<f64>> = (0..n).map(|_| Complex::new(next(), next())).collect();
        for inverse in [false, true] {
            let mut a = x.clone();
            four_step(&mut a, n1, n2, inverse);
            let mut b = x.clone();
            plan::<f64>(n, inverse).process(&mut b);
            let scale = b.iter().map(|v| v.norm()).fold(0f64, f64::max);
            let err = a.iter().zip(&b).map(|(p, q)| (p - q).norm()).fold(0f64, f64::max);
            assert!(err < 1e-13 * scale, "f64 inverse={inverse}: {err} of {scale}");
            let mut c: Vec<Complex<f32>> = x.iter().map(|v| Complex::new(v.re as f32, v.im as f32)).collect();
            four_step(&mut c, n1, n2, inverse);
            let err =
                c.iter().zip(&b).map(|(p, q)| (Complex::new(p.re as f64, p.im as f64) - q).norm()).fold(0f64, f64::max);
            assert!(err < 2e-5 * scale, "f32 inverse={inverse}: {err} of {scale}");
        }
        assert_eq!(split(1 << 24), Some(4096));
        assert_eq!(split(1_000_003), None);
    }
}
