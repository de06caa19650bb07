//! Statistics with NumPy's semantics: order statistics (`median`, `percentile`, `quantile`
//! with five methods, and their NaN-ignoring forms) and counting (`bincount`, `histogram`,
//! `digitize`).
//!
//! Each function prepares its lanes or bins and calls the CPU (`cpu.rs`) or the CUDA
//! (`cuda.rs`) implementation of the same signature. On a GPU the quantiles of one lane are a
//! radix select (no sort, nothing read back), quantiles along an axis sorted lanes and a pick;
//! `bincount` and `histogram` count with per-block bins in shared memory and read back only
//! what sizes a result (bincount's min and max, histogram's autodetected range).

mod cpu;
pub(crate) mod cuda;

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Axes;
use crate::sort::{lanes_last, searchsorted, Side};

/// Interpolation methods of [`quantile_with`], as NumPy's `method=` (`Default`: `Linear`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum QuantileMethod {
    #[default]
    Linear,
    Lower,
    Higher,
    Nearest,
    Midpoint,
}

/// How a quantile is formed from its order statistics: one of NumPy's methods, or
/// `median`'s own rule, the mean of the middle element(s) (so median([2, inf]) is inf, where
/// the linear method computes inf - inf).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Interp {
    Method(QuantileMethod),
    MedianMean,
}

fn quantile_impl(a: &Array, qs: &[f64], axis: Axes, method: Interp, ignore_nan: bool) -> Result<Array> {
    if qs.iter().any(|q| !(0.0..=1.0).contains(q)) {
        return Err(Error::Value("quantiles must be in the range [0, 1]".into()));
    }
    use QuantileMethod::*;
    let keeps = matches!(method, Interp::Method(Lower | Higher | Nearest));
    let dt = a.dtype();
    // Methods that pick an element keep the dtype; interpolating ones give floats.
    let out_dt = if keeps || dt.is_float() { dt } else { DType::Float64 };
    let moved = match axis {
        Axes::All => lanes_last(a, None)?.0,
        // NumPy: a 0-d array has no axis 0 to take quantiles along.
        Axes::Some(v) if a.ndim() == 0 && !v.is_empty() => {
            return Err(Error::AxisOutOfRange { axis: v[0], ndim: 0 });
        }
        Axes::Some(v) if v.len() == 1 => lanes_last(a, Some(v[0]))?.0,
        // Several axes (or none): NumPy moves them last and merges them into one.
        Axes::Some(v) => {
            let axes = crate::core::layout::normalize_axes(&v, a.ndim())?;
            let keep: Vec<usize> = (0..a.ndim()).filter(|d| !axes.contains(d)).collect();
            let perm: Vec<isize> = keep.iter().chain(&axes).map(|&d| d as isize).collect();
            let mut shape: Vec<usize> = keep.iter().map(|&d| a.shape()[d]).collect();
            shape.push(axes.iter().map(|&d| a.shape()[d]).product());
            a.permute(&perm)?.as_contiguous()?.reshape(&shape)?
        }
    };
    let len = *moved.shape().last().unwrap_or(&1);
    // Shape (len(q), the other axes in order).
    let mut shape: Vec<usize> = moved.shape()[..moved.ndim() - 1].to_vec();
    shape.insert(0, qs.len());
    if len == 0 {
        // Empty lanes: NumPy's median, nanmedian, nanquantile and nanpercentile take the
        // (nan)mean of the empty lanes, NaN (with a RuntimeWarning, which cuprum does not give),
        // of a float dtype; its quantile and percentile fail indexing the empty lane.
        if !ignore_nan && method != Interp::MedianMean {
            return Err(Error::Index(
                "cannot compute a quantile of an empty lane (NumPy raises IndexError; median, nanmedian, \
                 nanquantile and nanpercentile give NaN)"
                    .into(),
            ));
        }
        let dt = if dt.is_inexact() { dt } else { DType::Float64 };
        return crate::full(&shape, f64::NAN, dt, &a.device());
    }
    let lanes = moved.size() / len;
    let h = moved.as_contiguous()?;
    if h.dtype().is_complex() {
        return complex_median(&h, lanes, len, method, ignore_nan)?.reshape(&shape);
    }
    let out = Array::alloc(&[qs.len(), lanes], out_dt, a.device(), false)?;
    match a.device() {
        Device::Cpu => cpu::quantiles(&h, lanes, qs, method, ignore_nan, &out)?,
        Device::Cuda(_) => cuda::quantiles(&h, lanes, qs, method, ignore_nan, &out)?,
    }
    out.reshape(&shape)
}

/// NumPy's `median` of complex lanes (`h`: `lanes` C-contiguous lanes of `len` > 0): the mean
/// of the middle values in NumPy's complex order (real part, then imaginary part); where a
/// lane holds a NaN, its last value in that order (a NaN, as NumPy's); shape `[1, lanes]`.
/// With `ignore_nan`, NumPy's `nanmedian`. NumPy's quantiles and percentiles of complex values
/// (nan forms too) are a `TypeError`.
fn complex_median(h: &Array, lanes: usize, len: usize, method: Interp, ignore_nan: bool) -> Result<Array> {
    if method != Interp::MedianMean {
        return Err(Error::Type("a must be an array of real numbers".into()));
    }
    let dt = h.dtype();
    let h2 = h.reshape([lanes, len])?;
    let s = crate::sort(&h2, -1)?;
    if ignore_nan {
        // nanmedian: the values without a NaN part sort first; the median of the first `k` of
        // each lane, or (NumPy's, for a lane of NaNs only) the lane's last value.
        let k = crate::isnan(&h2)?.logical_not()?.astype(DType::Int64)?.sum(-1)?;
        let pick =
            |i: Array| -> Result<Array> { crate::take_along_axis(&s, &i.expand_dims(-1)?, -1)?.reshape([lanes]) };
        let lo = pick(k.subtract(1i64)?.clip(0, i64::MAX)?.floor_divide(2i64)?)?;
        let hi = pick(k.floor_divide(2i64)?.clip(0, len as i64 - 1)?)?;
        let m = lo.add(&hi)?.true_divide(2.0)?.astype(dt)?;
        let last = h2.slice(crate::s![.., len as isize - 1])?;
        return crate::where_(&k.equal(0i64)?, &last, &m)?.reshape([1, lanes]);
    }
    let at = |i: usize| s.slice(crate::s![.., i as isize]);
    let m = at((len - 1) / 2)?.add(&at(len / 2)?)?.true_divide(2.0)?.astype(dt)?;
    let last = at(len - 1)?;
    crate::where_(&crate::isnan(&last)?, &last, &m)?.reshape([1, lanes])
}

/// The keywords of the quantile and percentile functions' `_with` forms; `Default` is
/// NumPy's (`method="linear"`, `keepdims=False`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct QuantileOptions {
    /// How a quantile between two order statistics is formed.
    pub method: QuantileMethod,
    /// The reduced axes kept with length 1 (after the leading `len(q)` axis of
    /// [`quantiles_with`]).
    pub keepdims: bool,
}

/// NumPy's `quantile(a, q, axis)` for several `q` in [0, 1]: shape `(len(q), ...)`.
///
/// `axis` ([`Axes`]) is `None` (the flattened array), one axis, or several, as NumPy's tuple
/// (`[0, 1]`: those axes merged into one lane), here and in every quantile, percentile and
/// median function.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::arange(24, &dev)?.reshape([2, 3, 4])?;
/// let q = cuprum::quantiles(&a, &[0.25, 0.5], [0, 2])?;
/// assert_eq!(q.shape(), &[2, 3]);
/// assert_eq!(q.to_vec::<f64>()?, vec![1.75, 5.75, 9.75, 7.5, 11.5, 15.5]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn quantiles(a: &Array, q: &[f64], axis: impl Into<Axes>) -> Result<Array> {
    quantiles_with(a, q, axis, &QuantileOptions::default())
}

/// NumPy's `quantile(a, q, axis, method=..., keepdims=...)` for several `q`.
///
/// ```
/// use cuprum::{QuantileMethod, QuantileOptions};
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::arange(24, &dev)?.reshape([2, 3, 4])?;
/// let opts = QuantileOptions { method: QuantileMethod::Lower, keepdims: true };
/// let q = cuprum::quantiles_with(&a, &[0.25, 0.5], [0, 2], &opts)?;
/// assert_eq!(q.shape(), &[2, 1, 3, 1]);
/// assert_eq!(q.to_vec::<i64>()?, vec![1, 5, 9, 3, 7, 11]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn quantiles_with(a: &Array, q: &[f64], axis: impl Into<Axes>, options: &QuantileOptions) -> Result<Array> {
    let axis = axis.into();
    let r = quantile_impl(a, q, axis.clone(), Interp::Method(options.method), false)?;
    keep_dims(r, a, &axis, Some(q.len()), options.keepdims)
}

/// A result's shape with the reduced axes of `a` kept as length 1 (NumPy's `keepdims=True`),
/// after `lead` (the number of quantiles of [`quantiles_with`]).
fn keep_dims(r: Array, a: &Array, axis: &Axes, lead: Option<usize>, keepdims: bool) -> Result<Array> {
    if !keepdims {
        return Ok(r);
    }
    let mut shape: Vec<usize> = lead.into_iter().collect();
    shape.extend(crate::core::layout::keepdims_shape(a.shape(), &axis.resolve(a.ndim())?));
    r.reshape(&shape)
}

/// NumPy's `quantile(a, q, axis)` for one `q` (`method="linear"`; the other methods and
/// `keepdims`: [`quantile_with`]). Of empty lanes it is an error of kind
/// [`IndexError`](crate::ErrorKind::IndexError), as in NumPy ([`nanquantile`] and [`median`]
/// give NaN there).
///
/// ```
/// use cuprum::{DType, QuantileMethod, QuantileOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![1i32, 2, 3, 4, 10], &dev)?;
/// let q = cuprum::quantile(&x, 0.9, None)?;                  // np.quantile(x, 0.9)
/// assert_eq!(q.dtype(), DType::Float64); // interpolating methods give floats
/// assert!((q.item::<f64>()? - 7.6).abs() < 1e-12);
/// // np.percentile(x, 40, method="lower")
/// let p = cuprum::percentile_with(&x, 40.0, None, &QuantileOptions { method: QuantileMethod::Lower, ..Default::default() })?;
/// assert_eq!((p.dtype(), p.item::<i64>()?), (DType::Int32, 2)); // picking methods keep the dtype
/// assert_eq!(x.median(None)?.item::<f64>()?, 3.0);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn quantile(a: &Array, q: f64, axis: impl Into<Axes>) -> Result<Array> {
    quantile_with(a, q, axis, &QuantileOptions::default())
}

/// NumPy's `quantile(a, q, axis, method=..., keepdims=...)`.
pub fn quantile_with(a: &Array, q: f64, axis: impl Into<Axes>, options: &QuantileOptions) -> Result<Array> {
    let axis = axis.into();
    let r = quantile_one(a, q, axis.clone(), Interp::Method(options.method), false)?;
    keep_dims(r, a, &axis, None, options.keepdims)
}

fn quantile_one(a: &Array, q: f64, axis: Axes, method: Interp, ignore_nan: bool) -> Result<Array> {
    let r = quantile_impl(a, &[q], axis, method, ignore_nan)?;
    r.reshape(&r.shape()[1..])
}

/// NumPy's `percentile(a, q, axis)` (`q` in [0, 100]).
pub fn percentile(a: &Array, q: f64, axis: impl Into<Axes>) -> Result<Array> {
    percentile_with(a, q, axis, &QuantileOptions::default())
}

/// NumPy's `percentile(a, q, axis, method=..., keepdims=...)`.
pub fn percentile_with(a: &Array, q: f64, axis: impl Into<Axes>, options: &QuantileOptions) -> Result<Array> {
    quantile_with(a, q / 100.0, axis, options)
}

/// NumPy's `median(a, axis)`: the mean of the middle element(s) of each lane, NaN if the
/// lane holds a NaN. Like NumPy's `mean`, float16 and float32 data average in float32, the
/// rest in float64 (integers give float64). Empty lanes give NaN, as NumPy's (which also
/// warns; cuprum gives no warning), as do those of [`nanmedian`], [`nanquantile`] and
/// [`nanpercentile`]; [`quantile`] and [`percentile`] of empty lanes are an error of kind
/// [`IndexError`](crate::ErrorKind::IndexError), as NumPy's.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![2.0f64, f64::INFINITY, 1.0, 7.0], &dev)?;
/// assert_eq!(x.median(None)?.item::<f64>()?, 4.5);
/// let y = cuprum::from_vec(vec![2.0f32, f32::INFINITY], &dev)?;
/// assert_eq!(cuprum::median(&y, None)?.item::<f32>()?, f32::INFINITY); // NumPy: inf too
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn median(a: &Array, axis: impl Into<Axes>) -> Result<Array> {
    quantile_one(a, 0.5, axis.into(), Interp::MedianMean, false)
}

/// NumPy's `nanquantile(a, q, axis)` (NaNs ignored; all-NaN lanes give NaN). Empty lanes
/// give NaN too, of the data's float dtype or float64 (whatever the method), without NumPy's
/// warning.
pub fn nanquantile(a: &Array, q: f64, axis: impl Into<Axes>) -> Result<Array> {
    nanquantile_with(a, q, axis, &QuantileOptions::default())
}

/// NumPy's `nanquantile(a, q, axis, method=..., keepdims=...)`.
pub fn nanquantile_with(a: &Array, q: f64, axis: impl Into<Axes>, options: &QuantileOptions) -> Result<Array> {
    let axis = axis.into();
    let r = quantile_one(a, q, axis.clone(), Interp::Method(options.method), true)?;
    keep_dims(r, a, &axis, None, options.keepdims)
}

/// NumPy's `nanpercentile(a, q, axis)`.
pub fn nanpercentile(a: &Array, q: f64, axis: impl Into<Axes>) -> Result<Array> {
    nanpercentile_with(a, q, axis, &QuantileOptions::default())
}

/// NumPy's `nanpercentile(a, q, axis, method=..., keepdims=...)`.
pub fn nanpercentile_with(a: &Array, q: f64, axis: impl Into<Axes>, options: &QuantileOptions) -> Result<Array> {
    nanquantile_with(a, q / 100.0, axis, options)
}

/// NumPy's `nanmedian`: [`median`] of each lane's values that are not NaN (all-NaN lanes
/// give NaN).
pub fn nanmedian(a: &Array, axis: impl Into<Axes>) -> Result<Array> {
    quantile_one(a, 0.5, axis.into(), Interp::MedianMean, true)
}

/// NumPy's `bincount(x)`: how many times each non-negative integer of `x` occurs (int64);
/// the keywords `weights` and `minlength`: [`bincount_with`].
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let c = cuprum::bincount(&cuprum::from_vec(vec![0i64, 1, 1, 3], &dev)?)?;
/// assert_eq!(c.to_vec::<i64>()?, vec![1, 2, 0, 1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn bincount(x: &Array) -> Result<Array> {
    bincount_with(x, &BincountOptions::default())
}

/// The keywords of [`bincount_with`]; `Default` is NumPy's (`weights=None`, `minlength=0`).
#[derive(Copy, Clone, Debug, Default)]
pub struct BincountOptions<'a> {
    /// A weight per element of `x` (the result is then their sums, float64).
    pub weights: Option<&'a Array>,
    /// The result's least length.
    pub minlength: usize,
}

/// NumPy's `bincount(x, weights=..., minlength=...)`: counts (int64) or weight sums (float64)
/// of each non-negative integer in `x`.
///
/// ```
/// use cuprum::BincountOptions;
/// let dev = cuprum::Device::default_device();
/// let c = cuprum::bincount_with(&cuprum::from_vec(vec![0i64, 1, 1, 3], &dev)?, &BincountOptions { minlength: 5, ..Default::default() })?;
/// assert_eq!(c.to_vec::<i64>()?, vec![1, 2, 0, 1, 0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn bincount_with(x: &Array, options: &BincountOptions<'_>) -> Result<Array> {
    let BincountOptions { weights, minlength } = *options;
    if !(x.dtype().is_integer() || x.dtype() == DType::Bool) {
        return Err(Error::Type(format!(
            "bincount: cannot cast x of dtype {} to int64 according to the rule 'safe'",
            x.dtype()
        )));
    }
    if x.ndim() != 1 {
        return Err(Error::InvalidArgument("bincount: x must be a 1-d array of non-negative integers".into()));
    }
    if let Some(w) = weights {
        crate::array::same_device("bincount", x, w)?;
        if w.shape() != x.shape() {
            return Err(Error::ShapeMismatch { op: "bincount".into(), a: x.shape().to_vec(), b: w.shape().to_vec() });
        }
    }
    // The output's length comes from the data: its min and max come back (one copy).
    let n = if x.size() == 0 {
        minlength
    } else {
        let (lo, hi) = min_max::<i64>(x, DType::Int64)?;
        if lo < 0 {
            return Err(Error::Value("bincount: 'x' must not contain negative values".into()));
        }
        (hi as u64 as usize).saturating_add(1).max(minlength)
    };
    crate::core::layout::checked_nbytes(&[n], 8)?;
    let dt = if weights.is_some() { DType::Float64 } else { DType::Int64 };
    let out = Array::alloc(&[n], dt, x.device(), true)?;
    let xc = x.as_contiguous()?;
    let w = weights.map(|w| w.astype(DType::Float64)).transpose()?;
    match x.device() {
        Device::Cpu => cpu::bincount(&xc, w.as_ref(), &out)?,
        Device::Cuda(_) => cuda::bincount(&xc, w.as_ref(), &out)?,
    }
    Ok(out)
}

/// The minimum and maximum of `x`, as `dt` (of `T`), read back in one copy.
fn min_max<T: crate::Element>(x: &Array, dt: DType) -> Result<(T, T)> {
    let mm = crate::stack(&[&x.min(None)?, &x.max(None)?], 0)?.astype(dt)?.to_vec::<T>()?;
    Ok((mm[0], mm[1]))
}

/// Bins of [`histogram`]: a number of equal bins (over `range` or the data's min..max), or
/// explicit monotonically increasing edges.
#[derive(Clone, Debug, PartialEq)]
pub enum Bins {
    Count(usize),
    Edges(Vec<f64>),
}

/// NumPy's `histogram(a, bins)`: (counts, edges) of `bins` over the data's minimum to
/// maximum (the keywords `range`, `weights`, `density`: [`histogram_with`]). The last bin
/// includes its right edge. Counts are int64, edges float64.
///
/// ```
/// use cuprum::Bins;
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::from_vec(vec![0.5, 1.5, 1.7, 2.5, 3.5], &dev)?;
/// let (h, edges) = cuprum::histogram(&a, Bins::Count(3))?;      // np.histogram(a, 3)
/// assert_eq!(h.to_vec::<i64>()?, vec![1, 2, 2]);
/// assert_eq!(edges.to_vec::<f64>()?, vec![0.5, 1.5, 2.5, 3.5]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn histogram(a: &Array, bins: Bins) -> Result<(Array, Array)> {
    histogram_with(a, bins, &HistogramOptions::default())
}

/// The keywords of [`histogram_with`]; `Default` is NumPy's (`range=None`, `weights=None`,
/// `density=False`).
#[derive(Copy, Clone, Debug, Default)]
pub struct HistogramOptions<'a> {
    /// The range of equal bins (`None`: the data's minimum and maximum).
    pub range: Option<(f64, f64)>,
    /// A weight per element of `a`: the bins hold their sums (in the weights' dtype).
    pub weights: Option<&'a Array>,
    /// Densities (float64) instead of counts: each bin's count over the total and its width.
    pub density: bool,
}

/// NumPy's `histogram(a, bins, range=..., weights=..., density=...)`: (counts or densities,
/// edges). Counts are int64; weighted sums have the weights' dtype (summed in float64);
/// densities are float64; edges are float64.
///
/// ```
/// use cuprum::{Bins, HistogramOptions};
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::from_vec(vec![0.5, 1.5, 1.7, 2.5, 4.0], &dev)?;
/// let opts = HistogramOptions { range: Some((0.0, 3.0)), ..Default::default() };
/// let (h, edges) = cuprum::histogram_with(&a, Bins::Count(3), &opts)?;
/// assert_eq!(h.to_vec::<i64>()?, vec![1, 2, 1]); // 4.0 is outside the range
/// assert_eq!(edges.to_vec::<f64>()?, vec![0.0, 1.0, 2.0, 3.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn histogram_with(a: &Array, bins: Bins, options: &HistogramOptions<'_>) -> Result<(Array, Array)> {
    let HistogramOptions { range, weights, density } = *options;
    if let Some(w) = weights {
        crate::array::same_device("histogram", a, w)?;
        if w.shape() != a.shape() {
            return Err(Error::ShapeMismatch { op: "histogram".into(), a: a.shape().to_vec(), b: w.shape().to_vec() });
        }
    }
    let (edges, uniform): (Vec<f64>, bool) = match bins {
        Bins::Edges(e) => {
            if e.len() < 2 || e.windows(2).any(|w| w[1] < w[0]) {
                return Err(Error::Value("bins must increase monotonically and be at least two edges".into()));
            }
            (e, false)
        }
        Bins::Count(0) => return Err(Error::Value("`bins` must be positive".into())),
        Bins::Count(n) => {
            let (mut lo, mut hi) = match range {
                Some((l, h)) => {
                    if l > h {
                        return Err(Error::Value("max must be larger than min in range parameter".into()));
                    }
                    if !l.is_finite() || !h.is_finite() {
                        return Err(Error::Value(format!("supplied range of [{l}, {h}] is not finite")));
                    }
                    (l, h)
                }
                None if a.size() == 0 => (0.0, 1.0),
                None => {
                    // a.min() and a.max(): a NaN makes the range not finite.
                    let (lo, hi) = min_max::<f64>(a, DType::Float64)?;
                    if !lo.is_finite() || !hi.is_finite() {
                        return Err(Error::Value(format!("autodetected range of [{lo}, {hi}] is not finite")));
                    }
                    (lo, hi)
                }
            };
            if lo == hi {
                lo -= 0.5;
                hi += 0.5;
            }
            if !(hi - lo).is_finite() {
                return Err(Error::Value(format!(
                    "Too many bins for data range. Cannot create {n} finite-sized bins."
                )));
            }
            // NumPy's linspace(lo, hi, n + 1).
            let n1 = n.checked_add(1).ok_or(crate::core::alloc::oom::<f64>(n))?;
            let edges =
                crate::core::alloc::vec_from_fn(
                    n1,
                    |i| if i == n { hi } else { lo + i as f64 * ((hi - lo) / n as f64) },
                )?;
            (edges, true)
        }
    };
    let nb = edges.len() - 1;
    let dev = a.device();
    let x = a.ravel()?.as_contiguous()?;
    let w = weights.map(|w| w.ravel()?.astype(DType::Float64)).transpose()?;
    let e = crate::from_vec(edges.clone(), &dev)?;
    let hist = Array::alloc(&[nb], if w.is_some() { DType::Float64 } else { DType::Int64 }, dev, true)?;
    match dev {
        Device::Cpu => cpu::histogram(&x, w.as_ref(), &e, uniform, edges[0], edges[nb], &hist)?,
        Device::Cuda(_) => cuda::histogram(&x, w.as_ref(), &e, uniform, edges[0], edges[nb], &hist)?,
    }
    // Weighted sums in the weights' dtype, as NumPy's `ntype`.
    let hist = match weights {
        Some(w) if w.dtype() != DType::Float64 => hist.astype(w.dtype())?,
        _ => hist,
    };
    if !density {
        return Ok((hist, e));
    }
    // NumPy: n / np.diff(edges) / n.sum(). The sum of the bins is taken in float64 and rounded
    // to their dtype once (NumPy adds them up in that dtype): the bins of float16 and float32
    // weights add exactly in float64, so the total, and the densities, are the same on every
    // device and in every order of summation even when the bins cancel.
    use crate::core::slice::SliceElem;
    let right = e.slice([SliceElem::Slice { start: Some(1), end: None, step: 1 }])?;
    let left = e.slice([SliceElem::Slice { start: None, end: Some(-1), step: 1 }])?;
    let db = right.subtract(&left)?;
    let n64 = hist.astype(DType::Float64)?;
    let total = n64.sum(None)?.astype(hist.dtype())?.astype(DType::Float64)?;
    let d = n64.true_divide(&db)?.true_divide(&total)?;
    Ok((d, e))
}

/// NumPy's `_monotonicity` of bins (as doubles): 1 increasing (or constant), -1 decreasing,
/// 0 neither.
fn monotonicity(a: &[f64]) -> i32 {
    let Some(&first) = a.first() else { return 1 };
    let mut i = 1;
    while i < a.len() && a[i] == first {
        i += 1;
    }
    if i == a.len() {
        return 1;
    }
    let (mut last, mut next) = (first, a[i]);
    let increasing = last < next;
    for &x in &a[i + 1..] {
        last = next;
        next = x;
        if (increasing && last > next) || (!increasing && last < next) {
            return 0;
        }
    }
    if increasing {
        1
    } else {
        -1
    }
}

/// NumPy's `digitize(x, bins)`: the index of the bin of each value (int64), for
/// monotonically increasing or decreasing `bins`, each bin closed on its left (the keyword
/// `right`: [`digitize_with`]).
pub fn digitize(x: &Array, bins: &Array) -> Result<Array> {
    digitize_with(x, bins, &DigitizeOptions::default())
}

/// The keywords of [`digitize_with`]; `Default` is NumPy's (`right=False`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DigitizeOptions {
    /// Whether each bin is closed on its right instead of its left.
    pub right: bool,
}

/// NumPy's `digitize(x, bins, right=...)`.
pub fn digitize_with(x: &Array, bins: &Array, options: &DigitizeOptions) -> Result<Array> {
    let right = options.right;
    crate::array::same_device("digitize", x, bins)?;
    if bins.ndim() != 1 {
        return Err(Error::InvalidArgument("digitize: bins must be a 1-d array".into()));
    }
    // `right` means bins[i-1] < x <= bins[i]: a left-side search (the arguments are swapped).
    let side = if right { Side::Left } else { Side::Right };
    // The bins are few: their order is checked on the host.
    match monotonicity(&bins.to_vec_as::<f64>()?) {
        0 => Err(Error::Value("bins must be monotonically increasing or decreasing".into())),
        -1 => {
            use crate::core::slice::SliceElem;
            let rev = bins.slice([SliceElem::Slice { start: None, end: None, step: -1 }])?;
            let s = searchsorted(&rev, x, side)?;
            crate::ufunc::subtract(bins.size() as i64, &s)
        }
        _ => searchsorted(bins, x, side),
    }
}

impl Array {
    /// NumPy's `median`.
    pub fn median(&self, axis: impl Into<Axes>) -> Result<Array> {
        median(self, axis)
    }
}
