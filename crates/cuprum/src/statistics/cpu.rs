//! The CPU statistics: quantiles by O(n) selection in each lane, and the counting of
//! `bincount` and `histogram` (the same signatures as `statistics/cuda.rs`).

use super::{Interp, QuantileMethod};
use crate::array::Array;
use crate::backend::cpu::keys::{by_domain, by_native, Key, Native};
use crate::backend::cpu::values::{from_values, store_values, values};
use crate::backend::cpu::PAR_THRESHOLD;
use crate::core::dtype::DType;
use crate::core::error::Result;
use rayon::prelude::*;

/// NumPy's `mean` of the two middle elements `x0 <= x1` (`one`: there is only one): float16
/// and float32 data add and divide in float32, everything else in float64.
fn median_mean(x0: f64, x1: f64, one: bool, dt: DType) -> f64 {
    if one {
        x0
    } else if matches!(dt, DType::Float16 | DType::Float32) {
        ((x0 as f32 + x1 as f32) / 2.0) as f64
    } else {
        (x0 + x1) / 2.0
    }
}

/// `a + (b - a) * t`, as NumPy's `_lerp` (exact at t = 1).
fn lerp(a: f64, b: f64, t: f64) -> f64 {
    let d = b - a;
    if t >= 0.5 {
        b - d * (1.0 - t)
    } else {
        a + d * t
    }
}

/// Quantiles `qs` of the `lanes` lanes of the C-contiguous `h` (lanes along the last axis)
/// into `out` of shape `(len(qs), lanes)`: NaNs counted, then each order statistic found by an
/// O(n) selection in place (the NaNs moved behind the other values first).
pub(crate) fn quantiles(
    h: &Array,
    lanes: usize,
    qs: &[f64],
    method: Interp,
    ignore_nan: bool,
    out: &Array,
) -> Result<()> {
    use QuantileMethod::*;
    // The methods that pick an element keep it as it is (64-bit integers exactly) and run
    // here; the interpolating ones run in the element's own type.
    let Interp::Method(pick @ (Lower | Higher | Nearest)) = method else {
        return by_native!(h.dtype(), T => quantiles_native::<T>(h, lanes, qs, method, ignore_nan, out));
    };
    let len = *h.shape().last().unwrap_or(&1);
    let r = by_domain!(h.dtype(), W => {
        let mut v: Vec<W> = values(h)?;
        let mut picked: Vec<W> = vec![W::nan(); qs.len() * lanes];
        for (l, lane) in v.chunks_mut(len).enumerate() {
            // Selection, not a full sort: NaNs (last in NumPy's order) are counted, then each
            // needed order statistic is found with an O(n) select among the other values, in
            // place (the NaNs moved behind them first).
            let nans = lane.iter().filter(|x| x.is_nan()).count();
            let n = if ignore_nan { len - nans } else { len };
            if (!ignore_nan && nans > 0) || n == 0 {
                continue; // NaN (already there)
            }
            if nans > 0 {
                let mut j = 0;
                for i in 0..len {
                    if !lane[i].is_nan() {
                        lane.swap(i, j);
                        j += 1;
                    }
                }
            }
            let s = &mut lane[..n];
            for (k, &q) in qs.iter().enumerate() {
                let vi = q * (n - 1) as f64;
                let i = match pick {
                    Lower => vi.floor() as usize,
                    Higher => (vi.ceil() as usize).min(n - 1),
                    _ => (vi.round_ties_even() as usize).min(n - 1), // Nearest
                };
                picked[k * lanes + l] = nth_pair(s, i, i).0;
            }
        }
        from_values(&picked, &[qs.len(), lanes], out.dtype())?
    });
    crate::ufunc::assign(out, &r)
}

/// The interpolating quantiles (every method but lower, higher and nearest) in the element's
/// own type: a scratch copy of the lanes, NaNs counted, each order statistic found by an
/// introselect on the radix keys (NumPy's order puts the NaNs last, so they stay behind the
/// `n` values selected among), the result formed in float64 (float32 for the median of
/// float16/float32 data, as NumPy). Lanes in parallel when there are many elements.
fn quantiles_native<T: Native>(
    h: &Array,
    lanes: usize,
    qs: &[f64],
    method: Interp,
    ignore_nan: bool,
    out: &Array,
) -> Result<()> {
    use QuantileMethod::*;
    let dt = h.dtype();
    let len = *h.shape().last().unwrap_or(&1);
    let mut v: Vec<T> = h.to_vec()?;
    let lane_q = |lane: &mut [T]| -> Vec<f64> {
        let nans = if dt.is_float() { lane.iter().filter(|x| x.is_nan_v()).count() } else { 0 };
        let n = if ignore_nan { len - nans } else { len };
        if (!ignore_nan && nans > 0) || n == 0 {
            return vec![f64::NAN; qs.len()];
        }
        qs.iter()
            .map(|&q| {
                let vi = q * (n - 1) as f64;
                let (lo, hi) = (vi.floor() as usize, (vi.ceil() as usize).min(n - 1));
                let (x0, x1) = nth_pair_key(lane, lo, hi);
                let (a, b) = (x0.as_f64(), x1.as_f64());
                match method {
                    Interp::Method(Midpoint) => (a + b) / 2.0,
                    Interp::MedianMean => median_mean(a, b, lo == hi, dt),
                    _ => lerp(a, b, vi - lo as f64),
                }
            })
            .collect()
    };
    let per_lane: Vec<Vec<f64>> = if lanes > 1 && v.len() >= PAR_THRESHOLD {
        v.par_chunks_mut(len).map(lane_q).collect()
    } else {
        v.chunks_mut(len).map(lane_q).collect()
    };
    let mut res = vec![f64::NAN; qs.len() * lanes];
    for (l, r) in per_lane.iter().enumerate() {
        for (k, &x) in r.iter().enumerate() {
            res[k * lanes + l] = x;
        }
    }
    let r = from_values(&res, &[qs.len(), lanes], DType::Float64)?.astype(out.dtype())?;
    crate::ufunc::assign(out, &r)
}

/// The order statistics `lo` and `hi` (`hi` is `lo` or `lo + 1`, both below the count of
/// non-NaN values) of `s` by radix key, reordering it: one introselect of `lo`, then the
/// smallest key to its right.
fn nth_pair_key<T: Native>(s: &mut [T], lo: usize, hi: usize) -> (T, T) {
    let x0 = *s.select_nth_unstable_by_key(lo, |x| x.key()).1;
    if hi == lo {
        return (x0, x0);
    }
    let x1 = s[lo + 1..].iter().copied().min_by_key(|x| x.key()).unwrap_or(x0);
    (x0, x1)
}

/// The order statistics `lo` and `hi` (`hi` is `lo` or `lo + 1`) of `s`, reordering it: one
/// O(n) selection of `lo`; then the next is the smallest element to its right.
fn nth_pair<W: Key>(s: &mut [W], lo: usize, hi: usize) -> (W, W) {
    let x0 = *s.select_nth_unstable_by(lo, |x, y| x.ord(y)).1;
    if hi == lo {
        return (x0, x0);
    }
    let x1 = s[lo + 1..].iter().copied().min_by(|x, y| x.ord(y)).unwrap_or(x0);
    (x0, x1)
}

/// Counts (int64) or weight sums (float64 `w`) of each value of the 1-d C-contiguous `x` (in
/// `0..out.size()`) into `out`.
pub(crate) fn bincount(x: &Array, w: Option<&Array>, out: &Array) -> Result<()> {
    let xv: Vec<i64> = values(x)?;
    let n = out.size();
    match w {
        None => {
            let mut c = vec![0i64; n];
            xv.iter().for_each(|&v| c[v as usize] += 1);
            store_values(out, &c)
        }
        Some(w) => {
            let wv: Vec<f64> = values(w)?;
            let mut c = vec![0f64; n];
            xv.iter().zip(&wv).for_each(|(&v, &wt)| c[v as usize] += wt);
            store_values(out, &c)
        }
    }
}

/// The bin of `x` among `edges` (None outside `[edges[0], edges[-1]]` or NaN). Equal bins use
/// NumPy's formula `(x - lo) / (hi - lo) * n` and its one-step correction against the edges;
/// explicit edges a binary search (the right edge belongs to the last bin). The GPU kernel
/// computes exactly this.
fn bin_of(x: f64, edges: &[f64], uniform: bool) -> Option<usize> {
    let nb = edges.len() - 1;
    let (lo, hi) = (edges[0], edges[nb]);
    if !(x >= lo && x <= hi) {
        return None;
    }
    if uniform {
        let n = nb as i64;
        let mut b = (((x - lo) / (hi - lo)) * nb as f64) as i64;
        b = b.clamp(0, n - 1);
        if x < edges[b as usize] {
            b = (b - 1).max(0);
        }
        if b != n - 1 && x >= edges[b as usize + 1] {
            b += 1;
        }
        Some(b as usize)
    } else if x == hi {
        Some(nb - 1)
    } else {
        Some(edges.partition_point(|&e| e <= x) - 1)
    }
}

/// The histogram of the C-contiguous `x` over the bin edges `e` (`uniform`: equal bins from
/// `lo` to `hi`) into `out`: counts (int64), or sums of the float64 weights `w` in float64.
pub(crate) fn histogram(
    x: &Array,
    w: Option<&Array>,
    e: &Array,
    uniform: bool,
    _lo: f64,
    _hi: f64,
    out: &Array,
) -> Result<()> {
    let v: Vec<f64> = values(x)?;
    let edges: Vec<f64> = values(e)?;
    let nb = out.size();
    match w {
        Some(w) => {
            let w: Vec<f64> = values(w)?;
            let mut hist = vec![0f64; nb];
            for (i, &x) in v.iter().enumerate() {
                if let Some(b) = bin_of(x, &edges, uniform) {
                    hist[b] += w[i];
                }
            }
            store_values(out, &hist)
        }
        None => {
            let mut counts = vec![0i64; nb];
            for &x in &v {
                if let Some(b) = bin_of(x, &edges, uniform) {
                    counts[b] += 1;
                }
            }
            store_values(out, &counts)
        }
    }
}
