//! The CPU correlation: the input extended once by the boundary rule, then each output row
//! accumulates `w[j, k] * row` for `j`, then `k`, in order (the sum of each output in the same
//! order as the GPU's), rows in parallel.

use super::{Boundary, Correlation};
use crate::array::Array;
use crate::core::dtype::{DType, Element};
use crate::core::error::Result;
use crate::sort::cpu::{store_values, values};
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

/// `out` (C order, `oh * ow`) = the correlation of `x` (h × w values) with `k` (kh × kw).
#[allow(clippy::too_many_arguments)]
fn run<A: Acc>(x: &[A], h: usize, wd: usize, k: &[A], kh: usize, kw: usize, c: &Correlation<'_>, fill: A) -> Vec<A> {
    let [oh, ow] = c.out_shape;
    let (ph, pw) = (oh + kh - 1, ow + kw - 1);
    // The input extended by the boundary rule: the rows and columns the outputs read. Padded
    // column q reads input column q - ox: a plain copy where that is inside the row, the
    // boundary rule only for the columns outside it.
    let ox = c.offset[1];
    let lo = ox.clamp(0, pw as i64) as usize;
    let hi = (ox + wd as i64).clamp(0, pw as i64) as usize;
    let mut p = vec![fill; ph * pw];
    p.par_chunks_mut(pw).enumerate().for_each(|(r, row)| {
        if let Some(sy) = resolve(r as i64 - c.offset[0], h as i64, c.boundary) {
            let src = &x[sy as usize * wd..(sy as usize + 1) * wd];
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
    let mut out = vec![A::default(); oh * ow];
    // Rows in parallel, and segments of a row when the rows are few (a 1-d signal).
    let seg = if oh >= 64 { ow } else { ow.min(8192) };
    out.par_chunks_mut(ow).enumerate().for_each(|(y, orow)| {
        orow.par_chunks_mut(seg).enumerate().for_each(|(s, oseg)| {
            let (c0, n) = (s * seg, oseg.len());
            // Blocks of LANES outputs with their sums in registers (the lanes vectorise); each
            // output still adds its taps over j, then k.
            const LANES: usize = 8;
            let mut i = 0;
            while i < n {
                let m = LANES.min(n - i);
                let mut acc = [A::default(); LANES];
                for j in 0..kh {
                    let prow = &p[(y + j) * pw..(y + j + 1) * pw];
                    for (kk, &wv) in k[j * kw..(j + 1) * kw].iter().enumerate() {
                        let base = c0 + i + kk;
                        if m == LANES {
                            let src: &[A; LANES] = prow[base..base + LANES].try_into().expect("LANES values");
                            for l in 0..LANES {
                                acc[l] = acc[l].mul_add(src[l], wv);
                            }
                        } else {
                            for l in 0..m {
                                acc[l] = acc[l].mul_add(prow[base + l], wv);
                            }
                        }
                    }
                }
                oseg[i..i + m].copy_from_slice(&acc[..m]);
                i += m;
            }
        });
    });
    out
}

/// The correlation `c` into `out` (C-contiguous, `c.out_shape`, the dtype of `c.x`).
pub(crate) fn correlate(c: &Correlation<'_>, out: &Array) -> Result<()> {
    let (h, wd) = (c.x.shape()[0], c.x.shape()[1]);
    let (kh, kw) = (c.w.shape()[0], c.w.shape()[1]);
    // A convolution's kernel, reversed along both axes: the whole row-major buffer reversed.
    fn flipped<T>(mut v: Vec<T>, flip: bool) -> Vec<T> {
        if flip {
            v.reverse();
        }
        v
    }
    match c.x.dtype() {
        DType::Float64 => {
            let r = run(
                &values::<f64>(c.x)?,
                h,
                wd,
                &flipped(values::<f64>(c.w)?, c.flip),
                kh,
                kw,
                c,
                f64::from_scalar(c.fill),
            );
            store_values(out, &r)
        }
        DType::Float32 | DType::Float16 => {
            let f32s =
                |a: &Array| -> Result<Vec<f32>> { Ok(values::<f64>(a)?.into_iter().map(|v| v as f32).collect()) };
            let fill = f64::from_scalar(c.fill) as f32;
            let r = run(&f32s(c.x)?, h, wd, &flipped(f32s(c.w)?, c.flip), kh, kw, c, fill);
            store_values(out, &r.into_iter().map(|v| v as f64).collect::<Vec<f64>>())
        }
        DType::Bool => {
            let bools =
                |a: &Array| -> Result<Vec<Or>> { Ok(values::<i64>(a)?.into_iter().map(|v| Or(v != 0)).collect()) };
            let fill = Or(bool::from_scalar(c.fill));
            let r = run(&bools(c.x)?, h, wd, &flipped(bools(c.w)?, c.flip), kh, kw, c, fill);
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
            let r = run(&ints(c.x)?, h, wd, &flipped(ints(c.w)?, c.flip), kh, kw, c, fill);
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
}
