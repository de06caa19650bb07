//! The CPU filters: the input read once as float64; each 1-d pass runs over lines (a line
//! extended into a buffer as SciPy's `NI_ExtendLine` does) or, for an axis that is not the
//! last, over whole rows of the lines at once (the same sums per element, vectorised across
//! the lines), in parallel; between passes the values are rounded to the output dtype. The
//! N-d correlation pads the input once by the mode and sums its taps row by row.

use super::{cvt32, round_trip, Kernel1d, Pass, Taps};
use crate::array::Array;
use crate::backend::cpu::f64_to_u64_c;
use crate::backend::cpu::values::{store_values, values, values_into};
use crate::backend::cpu::Scratch;
use crate::core::alloc::oom;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::scipy::ndimage::Mode;
use rayon::prelude::*;

/// A pointer that threads writing disjoint elements share.
#[derive(Copy, Clone)]
struct SyncPtr(*mut f64);
// SAFETY: only used to write disjoint elements of one buffer from several threads, while the
// buffer is alive and borrowed mutably by the caller.
unsafe impl Send for SyncPtr {}
// SAFETY: as above.
unsafe impl Sync for SyncPtr {}

impl SyncPtr {
    /// The pointer (a method, so that closures capture the whole `SyncPtr`).
    fn get(self) -> *mut f64 {
        self.0
    }
}

/// `(outer, n, inner)` of `shape` around `axis`.
fn split(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// `line` extended by `before` and `after` values into `buf` (SciPy's `NI_ExtendLine`).
fn extend(line: &[f64], buf: &mut [f64], before: usize, mode: Mode, cval: f64) {
    let n = line.len();
    buf[before..before + n].copy_from_slice(line);
    for q in (0..before).chain(before + n..buf.len()) {
        buf[q] = match mode.resolve(q as i64 - before as i64, n as i64) {
            Some(i) => line[i as usize],
            None => cval,
        };
    }
}

/// One extended line `buf` filtered into `out` (SciPy's loops, in its order).
#[inline]
fn filter_line(buf: &[f64], out: &mut [f64], k: &Kernel1d) {
    match k {
        Kernel1d::Corr { w, sym } => {
            let kl = w.len();
            let s1 = kl / 2;
            for (ll, o) in out.iter_mut().enumerate() {
                let x = &buf[ll..ll + kl];
                let mut acc;
                if *sym > 0 {
                    acc = x[s1] * w[s1];
                    for j in 0..s1 {
                        acc += (x[j] + x[kl - 1 - j]) * w[j];
                    }
                } else if *sym < 0 {
                    acc = x[s1] * w[s1];
                    for j in 0..s1 {
                        acc += (x[j] - x[kl - 1 - j]) * w[j];
                    }
                } else {
                    acc = x[kl - 1] * w[kl - 1];
                    for j in 0..kl - 1 {
                        acc += x[j] * w[j];
                    }
                }
                *o = acc;
            }
        }
        Kernel1d::Uniform { size } => {
            let size = *size;
            let fs = size as f64;
            let mut tmp = 0.0f64;
            for &v in &buf[..size] {
                tmp += v;
            }
            out[0] = tmp / fs;
            for ll in 1..out.len() {
                tmp += buf[ll - 1 + size] - buf[ll - 1];
                out[ll] = tmp / fs;
            }
        }
    }
}

/// One pass from `src` into `dst` (both C order over `shape`): raw float64 results.
fn pass(src: &[f64], dst: &mut [f64], shape: &[usize], p: &Pass, cval: f64) -> Result<()> {
    let (outer, n, inner) = split(shape, p.axis);
    let (before, after) = p.halo();
    let (before, after) = (before as usize, after as usize);
    let kl = p.k.len();
    // SciPy's line buffer (the line and its halo): a window too large for memory is its
    // MemoryError here too, not an abort.
    let line = n.checked_add(before).and_then(|v| v.checked_add(after)).ok_or(oom::<f64>(usize::MAX))?;
    if inner == 1 {
        let failed = std::sync::atomic::AtomicBool::new(false);
        dst.par_chunks_mut(n).zip(src.par_chunks(n)).for_each_init(
            || crate::core::alloc::vec_filled(line, 0.0f64).ok(),
            |buf, (d, s)| match buf {
                Some(buf) => {
                    extend(s, buf, before, p.mode, cval);
                    filter_line(buf, d, &p.k);
                }
                None => failed.store(true, std::sync::atomic::Ordering::Relaxed),
            },
        );
        if failed.into_inner() {
            return Err(oom::<f64>(line));
        }
        return Ok(());
    }
    let cvals = vec![cval; inner];
    // The source row of tap position q (input index l + q - before) of output row l.
    let row = |o: usize, idx: i64| -> &[f64] {
        match p.mode.resolve(idx, n as i64) {
            Some(i) => &src[(o * n + i as usize) * inner..(o * n + i as usize + 1) * inner],
            None => &cvals,
        }
    };
    match &p.k {
        Kernel1d::Corr { w, sym } => {
            let s1 = kl / 2;
            dst.par_chunks_mut(inner).enumerate().for_each(|(t, d)| {
                let (o, l) = (t / n, (t % n) as i64);
                let r = |q: usize| row(o, l + q as i64 - before as i64);
                if *sym != 0 {
                    let (c, wc) = (r(s1), w[s1]);
                    for (a, &x) in d.iter_mut().zip(c) {
                        *a = x * wc;
                    }
                    for (j, &wj) in w[..s1].iter().enumerate() {
                        let (lo, hi) = (r(j), r(kl - 1 - j));
                        if *sym > 0 {
                            for ((a, &x), &y) in d.iter_mut().zip(lo).zip(hi) {
                                *a += (x + y) * wj;
                            }
                        } else {
                            for ((a, &x), &y) in d.iter_mut().zip(lo).zip(hi) {
                                *a += (x - y) * wj;
                            }
                        }
                    }
                } else {
                    let (c, wc) = (r(kl - 1), w[kl - 1]);
                    for (a, &x) in d.iter_mut().zip(c) {
                        *a = x * wc;
                    }
                    for (j, &wj) in w[..kl - 1].iter().enumerate() {
                        for (a, &x) in d.iter_mut().zip(r(j)) {
                            *a += x * wj;
                        }
                    }
                }
            });
        }
        Kernel1d::Uniform { size } => {
            // Running sums along the axis for blocks of columns, blocks in parallel.
            const CB: usize = 256;
            let nb = inner.div_ceil(CB);
            let fs = *size as f64;
            let dp = SyncPtr(dst.as_mut_ptr());
            (0..outer * nb).into_par_iter().for_each(|t| {
                let (o, b) = (t / nb, t % nb);
                let (c0, c1) = (b * CB, ((b + 1) * CB).min(inner));
                let mut tmp = vec![0.0f64; c1 - c0];
                for q in 0..*size {
                    for (a, &x) in tmp.iter_mut().zip(&row(o, q as i64 - before as i64)[c0..c1]) {
                        *a += x;
                    }
                }
                for l in 0..n {
                    if l > 0 {
                        let add = row(o, (l - 1 + size) as i64 - before as i64);
                        let sub = row(o, (l - 1) as i64 - before as i64);
                        for ((a, &x), &y) in tmp.iter_mut().zip(&add[c0..c1]).zip(&sub[c0..c1]) {
                            *a += x - y;
                        }
                    }
                    let base = (o * n + l) * inner + c0;
                    for (c, &a) in tmp.iter().enumerate() {
                        // SAFETY: element (o, l, c0 + c) lies in `dst` and belongs to this
                        // task's column block alone.
                        unsafe { *dp.get().add(base + c) = a / fs };
                    }
                }
            });
        }
    }
    Ok(())
}

/// The final raw values stored into `out` with SciPy's casts (`safe`: `NI_Correlate`'s cast
/// to unsigned types, `-(T)(-v)` for values at most -1).
fn store_raw(out: &Array, v: &mut [f64], safe: bool) -> Result<()> {
    match out.dtype() {
        DType::Bool => {
            v.par_iter_mut().for_each(|x| *x = ((cvt32(*x) as u8) != 0) as i32 as f64);
            store_values(out, v)
        }
        DType::UInt64 if safe => {
            let u: Vec<u64> = v
                .par_iter()
                .map(|&x| if x > -1.0 { f64_to_u64_c(x) } else { f64_to_u64_c(-x).wrapping_neg() })
                .collect();
            store_values(out, &u)
        }
        _ => store_values(out, v),
    }
}

/// The 1-d passes over `x` into `out` (C-contiguous, the output dtype).
pub(crate) fn passes(x: &Array, passes: &[Pass], cval: f64, out: &Array) -> Result<()> {
    let shape = x.shape().to_vec();
    let dt = out.dtype();
    // Pooled buffers: two fresh float64 copies of a large image would cost more in page faults
    // than a pass.
    let (mut s1, mut s2) = (Scratch::<f64>::new(x.size())?, Scratch::<f64>::new(x.size())?);
    let (mut cur, mut next) = (s1.as_mut_slice(), s2.as_mut_slice());
    values_into(x, cur)?;
    for (i, p) in passes.iter().enumerate() {
        pass(cur, next, &shape, p, cval)?;
        if i + 1 < passes.len() && dt != DType::Float64 {
            next.par_iter_mut().for_each(|v| *v = round_trip(*v, dt));
        }
        std::mem::swap(&mut cur, &mut next);
    }
    store_raw(out, cur, false)
}

/// The N-d correlation `t` of `x` into `out` (C-contiguous, the output dtype).
pub(crate) fn correlate_nd(x: &Array, t: &Taps, out: &Array) -> Result<()> {
    let src: Vec<f64> = values::<f64>(x)?;
    let (shape, offs): (Vec<usize>, Vec<Vec<i64>>) = if x.ndim() == 0 {
        (vec![1], t.offsets.iter().map(|_| vec![0]).collect())
    } else {
        (x.shape().to_vec(), t.offsets.clone())
    };
    let nd = shape.len();
    // Padding before each axis: the most negative offset a tap can have.
    let before: Vec<i64> = (0..nd).map(|d| offs.iter().map(|o| -o[d]).max().unwrap_or(0).max(0)).collect();
    let after: Vec<i64> = (0..nd).map(|d| offs.iter().map(|o| o[d]).max().unwrap_or(0).max(0)).collect();
    let pshape: Vec<usize> = (0..nd).map(|d| shape[d] + (before[d] + after[d]) as usize).collect();
    let (pw, w) = (pshape[nd - 1], shape[nd - 1]);
    let prows: usize = pshape[..nd - 1].iter().product();
    let mut p = vec![0.0f64; prows * pw];
    p.par_chunks_mut(pw).enumerate().for_each(|(r, prow)| {
        // The source row of padded row r, or none (the constant).
        let mut rem = r;
        let mut src_row = Some(0usize);
        for d in (0..nd - 1).rev() {
            let pc = rem % pshape[d];
            rem /= pshape[d];
            let c = pc as i64 - before[d];
            let stride: usize = shape[d + 1..nd - 1].iter().product();
            src_row = match (src_row, t.mode.resolve(c, shape[d] as i64)) {
                (Some(s), Some(i)) => Some(s + i as usize * stride),
                _ => None,
            };
        }
        match src_row {
            None => prow.fill(t.cval),
            Some(s) => {
                let line = &src[s * w..(s + 1) * w];
                for (q, v) in prow.iter_mut().enumerate() {
                    let c = q as i64 - before[nd - 1];
                    *v = match t.mode.resolve(c, w as i64) {
                        Some(i) => line[i as usize],
                        None => t.cval,
                    };
                }
            }
        }
    });
    // Output rows in parallel; each sums its taps in order over whole padded rows.
    let mut res = vec![0.0f64; shape.iter().product()];
    res.par_chunks_mut(w).enumerate().for_each(|(r, acc)| {
        // Output row coordinates.
        let mut coords = vec![0usize; nd - 1];
        let mut rem = r;
        for d in (0..nd - 1).rev() {
            coords[d] = rem % shape[d];
            rem /= shape[d];
        }
        acc.fill(0.0);
        for (o, &wt) in offs.iter().zip(&t.weights) {
            let mut prow = 0usize;
            for d in 0..nd - 1 {
                prow = prow * pshape[d] + (coords[d] as i64 + o[d] + before[d]) as usize;
            }
            let c0 = (o[nd - 1] + before[nd - 1]) as usize;
            let seg = &p[prow * pw + c0..prow * pw + c0 + w];
            for (a, &v) in acc.iter_mut().zip(seg) {
                *a += wt * v;
            }
        }
    });
    store_raw(out, &mut res, true)
}
