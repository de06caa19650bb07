//! The CPU correlation, of any rank: the input extended once by the boundary rule, then each
//! output row accumulates `w[t] * row` over the kernel's taps `t` in C order (for 2-d: `j`,
//! then `k`; the sum of each output in the same order as the GPU's and SciPy's), rows in
//! parallel. A correlation of one row with the fill value outside it (NumPy's 1-d `convolve`
//! and `correlate`) reads the row in place and writes the output in place, in segments on all
//! threads, with the same sums.

use super::{Boundary, Correlation};
use crate::array::Array;
use crate::backend::cpu::values::{store_values, values};
use crate::backend::storage::CpuLocks;
use crate::core::dtype::{DType, Element};
use crate::core::error::Result;
use rayon::prelude::*;

/// The arithmetic of one result dtype: float64, float32 (also float16, rounded at the end),
/// wrapping 64-bit integers (the low bits are those of SciPy's loops in the narrow type), or
/// bool (or of ands, as NumPy's bool dot).
trait Acc: Copy + Send + Sync + Default {
    fn mul_add(self, x: Self, w: Self) -> Self;
}
impl Acc for f64 {
    #[inline(always)]
    fn mul_add(self, x: f64, w: f64) -> f64 {
        self + x * w
    }
}
impl Acc for f32 {
    #[inline(always)]
    fn mul_add(self, x: f32, w: f32) -> f32 {
        self + x * w
    }
}
impl Acc for i64 {
    #[inline(always)]
    fn mul_add(self, x: i64, w: i64) -> i64 {
        self.wrapping_add(x.wrapping_mul(w))
    }
}
/// Bool: `acc | (x & w)`.
#[derive(Copy, Clone, Default)]
struct Or(bool);
impl Acc for Or {
    #[inline(always)]
    fn mul_add(self, x: Or, w: Or) -> Or {
        Or(self.0 | (x.0 & w.0))
    }
}

/// Index `i` of an axis of length `n` under the boundary rule (`None`: the fill value).
#[inline]
pub(crate) fn resolve(i: i64, n: i64, b: Boundary) -> Option<i64> {
    if (0..n).contains(&i) {
        return Some(i);
    }
    if n == 0 {
        // An empty axis has nothing to wrap or mirror: the fill value.
        return None;
    }
    match b {
        Boundary::Fill => None,
        Boundary::Wrap => Some(i.rem_euclid(n)),
        Boundary::Symm => {
            let m = i.rem_euclid(2 * n);
            Some(if m < n { m } else { 2 * n - 1 - m })
        }
    }
}

/// The multi-index of `i` over `shape` (C order), fed to `f(axis, index)` from the last axis.
#[inline]
fn for_index(mut i: usize, shape: &[usize], mut f: impl FnMut(usize, usize)) {
    for ax in (0..shape.len()).rev() {
        let n = shape[ax];
        f(ax, i % n);
        i /= n;
    }
}

/// `out` (C order, `c.out_shape`) = the correlation of `x` (C order, shape `n`) with `k` (C
/// order, shape `ks`), any rank d >= 1. The input is extended once by the boundary rule into
/// `p`, of shape `o + k - 1` per axis; an output row (its index over the first d - 1 axes of
/// the output) then adds, for each tap row (the kernel's first d - 1 axes, in C order), `k[t]
/// * p[row + t]` along the last axis: each output sums its taps in C order.
fn run<A: Acc>(x: &[A], n: &[usize], k: &[A], ks: &[usize], c: &Correlation<'_>, fill: A) -> Vec<A> {
    let d = n.len();
    let lead = d - 1;
    let o = &c.out_shape[..];
    let ps: Vec<usize> = (0..d).map(|i| o[i] + ks[i] - 1).collect();
    let (wd, kw, ow, pw) = (n[lead], ks[lead], o[lead], ps[lead]);
    // Strides, in rows, of the leading axes of the padded input and of x.
    let row_strides = |s: &[usize]| -> Vec<usize> {
        let mut r = vec![1usize; lead];
        for i in (0..lead.saturating_sub(1)).rev() {
            r[i] = r[i + 1] * s[i + 1];
        }
        r
    };
    let (prs, xrs) = (row_strides(&ps), row_strides(n));
    // The input extended by the boundary rule: the rows and columns the outputs read. Padded
    // row q reads input row q - offset (through the boundary rule on each axis); padded column
    // q reads input column q - ox: a plain copy where that is inside the row, the boundary
    // rule only for the columns outside it.
    let ox = c.offset[lead];
    let lo = ox.clamp(0, pw as i64) as usize;
    let hi = (ox + wd as i64).clamp(0, pw as i64) as usize;
    let mut p = vec![fill; ps.iter().product()];
    p.par_chunks_mut(pw).enumerate().for_each(|(r, row)| {
        let mut src = Some(0usize);
        for_index(r, &ps[..lead], |ax, q| {
            if let Some(s) = src {
                src = resolve(q as i64 - c.offset[ax], n[ax] as i64, c.boundary).map(|i| s + i as usize * xrs[ax]);
            }
        });
        if let Some(sr) = src {
            let src = &x[sr * wd..(sr + 1) * wd];
            if lo < hi {
                let s0 = (lo as i64 - ox) as usize;
                row[lo..hi].copy_from_slice(&src[s0..s0 + (hi - lo)]);
            }
            for q in (0..lo).chain(hi..pw) {
                if let Some(sx) = resolve(q as i64 - ox, wd as i64, c.boundary) {
                    row[q] = src[sx as usize];
                }
            }
        }
    });
    // The offset in p of each tap row, in C order over the kernel's leading axes.
    let tap_rows: Vec<usize> = (0..ks[..lead].iter().product::<usize>())
        .map(|t| {
            let mut r = 0;
            for_index(t, &ks[..lead], |ax, i| r += i * prs[ax]);
            r * pw
        })
        .collect();
    let rows: usize = o[..lead].iter().product();
    let mut out = vec![A::default(); rows * ow];
    // Rows in parallel, and segments of a row when the rows are few (a 1-d signal).
    let seg = if rows >= 64 { ow } else { ow.min(8192) };
    out.par_chunks_mut(ow).enumerate().for_each(|(y, orow)| {
        let mut base = 0;
        for_index(y, &o[..lead], |ax, i| base += i * prs[ax]);
        let base = base * pw;
        let prows: Vec<&[A]> = tap_rows.iter().map(|&tr| &p[base + tr..base + tr + pw]).collect();
        orow.par_chunks_mut(seg).enumerate().for_each(|(s, oseg)| accumulate(&prows, k, kw, s * seg, oseg));
    });
    out
}

/// Outputs `oseg` of one row: output `c0 + i` is the sum over tap rows `j` (the padded input's
/// rows `prows[j]`) and taps `kk` of `k[j * kw + kk] * prows[j][c0 + i + kk]`, added in that
/// order. Blocks of LANES outputs keep their sums in registers (the lanes vectorise).
fn accumulate<A: Acc>(prows: &[&[A]], k: &[A], kw: usize, c0: usize, oseg: &mut [A]) {
    const LANES: usize = 8;
    let m_all = oseg.len();
    let mut i = 0;
    while i < m_all {
        let m = LANES.min(m_all - i);
        let mut acc = [A::default(); LANES];
        for (j, prow) in prows.iter().enumerate() {
            for (kk, &wv) in k[j * kw..(j + 1) * kw].iter().enumerate() {
                let b = c0 + i + kk;
                if m == LANES {
                    let src: &[A; LANES] = prow[b..b + LANES].try_into().expect("LANES values");
                    for l in 0..LANES {
                        acc[l] = acc[l].mul_add(src[l], wv);
                    }
                } else {
                    for l in 0..m {
                        acc[l] = acc[l].mul_add(prow[b + l], wv);
                    }
                }
            }
        }
        oseg[i..i + m].copy_from_slice(&acc[..m]);
        i += m;
    }
}

/// A correlation of one row (leading axes of length 1) with the fill value outside it, read
/// and written in place (`x` the row, `k` its taps, output `o` reading `x[o + t - off]`): each
/// segment of outputs reads its window of the row directly, or a copy of it with the fill
/// value where the window reaches past the row's ends. The sums of [`run`], without its
/// padded copy of the whole input or its copies in and out.
fn row<A: Acc>(x: &[A], k: &[A], off: i64, fill: A, out: &mut [A]) {
    const SEG: usize = 8192;
    let n = x.len() as i64;
    out.par_chunks_mut(SEG).enumerate().for_each(|(s, oseg)| {
        let start = (s * SEG) as i64 - off;
        let len = oseg.len() + k.len() - 1;
        let local: Vec<A>;
        let win = if start >= 0 && start + len as i64 <= n {
            &x[start as usize..start as usize + len]
        } else {
            local =
                (start..start + len as i64).map(|q| if (0..n).contains(&q) { x[q as usize] } else { fill }).collect();
            &local[..]
        };
        accumulate(&[win], k, k.len(), 0, oseg);
    });
}

/// [`row`] for `c` when it is one (a float64 or float32 row, the fill value outside, in and out
/// C-contiguous and apart); false otherwise.
fn try_row(c: &Correlation<'_>, out: &Array) -> Result<bool> {
    let (n, ks, d) = (c.x.shape(), c.w.shape(), c.x.ndim());
    let one = |v: &[usize]| v[..d - 1].iter().all(|&e| e == 1);
    if d == 0
        || !(one(n) && one(ks) && one(&c.out_shape) && c.offset[..d - 1].iter().all(|&o| o == 0))
        || c.boundary != Boundary::Fill
        || !c.x.is_c_contiguous()
        || !out.is_c_contiguous()
        || c.x.shares_storage(out)
        || c.x.dtype() != out.dtype()
    {
        return Ok(false);
    }
    fn go<A: Acc>(c: &Correlation<'_>, out: &Array, k: Vec<A>, fill: A) {
        let _l = CpuLocks::new(&[&c.x.storage], &[&out.storage]);
        // SAFETY: `c.x` and `out` are C-contiguous CPU arrays of A (their dtype, checked by the
        // caller), in different storage blocks, locked above; `out.size()` and `c.x.size()`
        // elements from their first.
        let (x, o) = unsafe {
            (
                std::slice::from_raw_parts(c.x.cpu_ptr().get() as *const A, c.x.size()),
                std::slice::from_raw_parts_mut(out.cpu_ptr().get() as *mut A, out.size()),
            )
        };
        row(x, &k, c.offset[c.x.ndim() - 1], fill, o);
    }
    match c.x.dtype() {
        DType::Float64 => go(c, out, flipped(values::<f64>(c.w)?, c.flip), f64::from_scalar(c.fill)),
        DType::Float32 => go(c, out, flipped(f32_values(c.w)?, c.flip), f64::from_scalar(c.fill) as f32),
        _ => return Ok(false),
    }
    Ok(true)
}

/// A convolution's kernel, reversed along every axis: the whole row-major buffer reversed.
fn flipped<T>(mut v: Vec<T>, flip: bool) -> Vec<T> {
    if flip {
        v.reverse();
    }
    v
}

/// The values of a float32 (or float16) array as float32.
fn f32_values(a: &Array) -> Result<Vec<f32>> {
    Ok(values::<f64>(a)?.into_iter().map(|v| v as f32).collect())
}

/// The correlation `c` into `out` (C-contiguous, `c.out_shape`, the dtype of `c.x`).
pub(crate) fn correlate(c: &Correlation<'_>, out: &Array) -> Result<()> {
    if try_row(c, out)? {
        return Ok(());
    }
    let (n, ks) = (c.x.shape(), c.w.shape());
    match c.x.dtype() {
        DType::Float64 => {
            let r =
                run(&values::<f64>(c.x)?, n, &flipped(values::<f64>(c.w)?, c.flip), ks, c, f64::from_scalar(c.fill));
            store_values(out, &r)
        }
        DType::Float32 | DType::Float16 => {
            let fill = f64::from_scalar(c.fill) as f32;
            let r = run(&f32_values(c.x)?, n, &flipped(f32_values(c.w)?, c.flip), ks, c, fill);
            store_values(out, &r.into_iter().map(|v| v as f64).collect::<Vec<f64>>())
        }
        DType::Bool => {
            let bools =
                |a: &Array| -> Result<Vec<Or>> { Ok(values::<i64>(a)?.into_iter().map(|v| Or(v != 0)).collect()) };
            let fill = Or(bool::from_scalar(c.fill));
            let r = run(&bools(c.x)?, n, &flipped(bools(c.w)?, c.flip), ks, c, fill);
            store_values(out, &r.into_iter().map(|v| v.0 as i64).collect::<Vec<i64>>())
        }
        dt => {
            // Integers: wrapping 64-bit arithmetic, whose low bits are those of the narrow
            // type's (unsigned values load zero-extended, so their bits are the same).
            let ints = |a: &Array| -> Result<Vec<i64>> {
                if dt.is_unsigned_int() {
                    Ok(values::<u64>(a)?.into_iter().map(|v| v as i64).collect())
                } else {
                    values::<i64>(a)
                }
            };
            let fill = if dt.is_unsigned_int() { u64::from_scalar(c.fill) as i64 } else { i64::from_scalar(c.fill) };
            let r = run(&ints(c.x)?, n, &flipped(ints(c.w)?, c.flip), ks, c, fill);
            if dt.is_unsigned_int() {
                store_values(out, &r.into_iter().map(|v| v as u64).collect::<Vec<u64>>())
            } else {
                store_values(out, &r)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_resolve_as_scipy_extends() {
        // symm: ... 1 0 | 0 1 2 3 | 3 2 ...; wrap: ... 2 3 | 0 1 2 3 | 0 1 ...
        let s: Vec<i64> = (-3..7).map(|i| resolve(i, 4, Boundary::Symm).unwrap()).collect();
        assert_eq!(s, vec![2, 1, 0, 0, 1, 2, 3, 3, 2, 1]);
        let w: Vec<i64> = (-3..7).map(|i| resolve(i, 4, Boundary::Wrap).unwrap()).collect();
        assert_eq!(w, vec![1, 2, 3, 0, 1, 2, 3, 0, 1, 2]);
        assert_eq!(resolve(-1, 4, Boundary::Fill), None);
        assert_eq!(resolve(-9, 4, Boundary::Symm), Some(0)); // -1..-8: 0 1 2 3 3 2 1 0, then again
    }

    /// The one-row path gives `run`'s bits: rows across several segments and shorter than the
    /// kernel, NumPy's three modes' offsets (valid 0, same (k - 1) / 2, full k - 1) and others
    /// past the row's ends, a nonzero fill value, float64 and float32.
    #[test]
    fn row_is_run() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for (n, kw) in [(20_000usize, 15usize), (8192 * 2 + 3, 1), (17, 40), (5, 3), (1, 1)] {
            let xv: Vec<f64> = (0..n).map(|_| next()).collect();
            let kv: Vec<f64> = (0..kw).map(|_| next()).collect();
            let x = crate::from_vec(xv.clone(), &crate::Device::Cpu).unwrap().reshape([1, n]).unwrap();
            let w = crate::from_vec(kv.clone(), &crate::Device::Cpu).unwrap().reshape([1, kw]).unwrap();
            let k1 = kw as i64 - 1;
            for off in [0, k1 / 2, k1, -3, k1 + 5] {
                let len = (n as i64 + k1 - off).clamp(1, n as i64 + kw as i64) as usize;
                let c = Correlation {
                    x: &x,
                    w: &w,
                    flip: false,
                    out_shape: vec![1, len],
                    offset: vec![0, off],
                    boundary: Boundary::Fill,
                    fill: crate::Scalar::Float(0.25),
                };
                let want = run(&xv, &[1, n], &kv, &[1, kw], &c, 0.25);
                let mut got = vec![0.0; len];
                row(&xv, &kv, off, 0.25, &mut got);
                assert_eq!(
                    got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    "n {n} k {kw} off {off}"
                );
                let (x32, k32): (Vec<f32>, Vec<f32>) =
                    (xv.iter().map(|&v| v as f32).collect(), kv.iter().map(|&v| v as f32).collect());
                let want = run(&x32, &[1, n], &k32, &[1, kw], &c, 0.25f32);
                let mut got = vec![0f32; len];
                row(&x32, &k32, off, 0.25, &mut got);
                assert_eq!(
                    got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    "float32 n {n} k {kw} off {off}"
                );
            }
        }
    }
}
