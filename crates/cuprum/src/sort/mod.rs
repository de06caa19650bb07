//! Sorting and order statistics with NumPy's semantics: `sort`, `argsort` (stable, NaNs last),
//! `searchsorted`, `median`/`percentile`/`quantile` (five methods) and their NaN-ignoring
//! forms, `unique`, `bincount`, `histogram`, `digitize`, `isin`.
//!
//! On a GPU, `sort`, `argsort` and `unique` use the radix sort of `cuda/sort.rs`, the
//! quantiles of one lane a radix select (no sort, nothing read back), quantiles along an axis
//! sorted lanes and a pick; `searchsorted`, `digitize`, `bincount`, `histogram` and the
//! gather of `isin` are CUDA kernels (`cuda/index.rs`) that read back only what sizes a
//! result (bincount's min/max, histogram's autodetected range). The CPU backend is the
//! reference.

pub(crate) mod cuda;

use crate::array::Array;
use crate::backend::cpu::{domain, Domain};
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;
use rayon::prelude::*;
use std::cmp::Ordering;

/// Element types the CPU sorts in: NumPy's order (NaN after everything, -0.0 == 0.0).
trait Key: Copy + PartialOrd + Send + Sync + 'static {
    fn ord(&self, other: &Self) -> Ordering;
    fn is_nan(&self) -> bool {
        false
    }
    fn to_f64(self) -> f64;
    /// NaN for floats (integers have none: never used for them).
    fn nan() -> Self;
}
impl Key for i64 {
    fn ord(&self, o: &Self) -> Ordering {
        self.cmp(o)
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn nan() -> Self {
        0
    }
}
impl Key for u64 {
    fn ord(&self, o: &Self) -> Ordering {
        self.cmp(o)
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn nan() -> Self {
        0
    }
}
impl Key for f64 {
    fn ord(&self, o: &Self) -> Ordering {
        match (f64::is_nan(*self), f64::is_nan(*o)) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => self.partial_cmp(o).unwrap_or(Ordering::Equal),
        }
    }
    fn is_nan(&self) -> bool {
        f64::is_nan(*self)
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn nan() -> Self {
        f64::NAN
    }
}

/// The array with `axis` moved last (or flattened for `None`, 0-d as 1-d), and the axis.
fn lanes_last(a: &Array, axis: Option<isize>) -> Result<(Array, usize)> {
    let (a, ax) = match axis {
        None => (a.ravel()?, 0),
        Some(ax) => (a.view(), normalize_axis(ax, a.ndim().max(1))?),
    };
    let a = if a.ndim() == 0 { a.reshape(&[1])? } else { a };
    let moved = if ax + 1 == a.ndim() { a } else { a.moveaxis(ax as isize, -1)? };
    Ok((moved, ax))
}

/// The array on the host, C-contiguous, with `axis` moved last (or flattened for `None`).
fn host_lanes(a: &Array, axis: Option<isize>) -> Result<(Array, usize)> {
    let (moved, ax) = lanes_last(a, axis)?;
    let host = if moved.device().is_cpu() { moved.as_contiguous()? } else { moved.to_device(&Device::Cpu)? };
    Ok((host, ax))
}

/// Moves the last axis of `out` back to `ax` (on its own device).
fn lanes_back(out: Array, ax: usize) -> Result<Array> {
    if ax + 1 == out.ndim() {
        Ok(out)
    } else {
        out.moveaxis(-1, ax as isize)?.as_contiguous()
    }
}

/// Moves the last axis back to `ax` and the result to `device`.
fn finish(out: Array, ax: usize, device: Device) -> Result<Array> {
    let out = lanes_back(out, ax)?;
    if device.is_cpu() {
        Ok(out)
    } else {
        out.to_device(&device)
    }
}

macro_rules! by_domain {
    ($dt:expr, $W:ident => $body:expr) => {
        match domain($dt) {
            Domain::I => {
                type $W = i64;
                $body
            }
            Domain::U => {
                type $W = u64;
                $body
            }
            Domain::F => {
                type $W = f64;
                $body
            }
        }
    };
}

fn values<W: crate::backend::cpu::Wide>(a: &Array) -> Result<Vec<W>> {
    let host = a.as_contiguous()?;
    let mut v = vec![W::default(); host.size()];
    let _l = crate::backend::storage::CpuLocks::new(&[&host.storage], &[]);
    let p = unsafe { host.storage.cpu().expect("host array").ptr().add(host.offset) };
    unsafe { crate::backend::cpu::load(host.dtype(), p, host.itemsize() as isize, &mut v) };
    Ok(v)
}

fn from_values<W: crate::backend::cpu::Wide>(v: &[W], shape: &[usize], dtype: DType) -> Result<Array> {
    let out = Array::alloc(shape, dtype, Device::Cpu, false)?;
    let p = out.storage.cpu().expect("host array").ptr();
    unsafe { crate::backend::cpu::store(dtype, p, dtype.itemsize() as isize, v) };
    Ok(out)
}

/// A GPU array, C-contiguous, with `axis` moved last (or flattened for `None`).
fn device_lanes(a: &Array, axis: Option<isize>) -> Result<(Array, usize)> {
    let (moved, ax) = lanes_last(a, axis)?;
    Ok((moved.as_contiguous()?, ax))
}

/// Radix sort of the lanes of a GPU array: the sorted keys and/or the sorting indices.
fn device_sort(x: &Array, keys: bool, indices: bool) -> Result<(Option<Array>, Option<Array>)> {
    let k = if keys { Some(Array::alloc(x.shape(), x.dtype(), x.device(), false)?) } else { None };
    let i = if indices { Some(Array::alloc(x.shape(), DType::Int64, x.device(), false)?) } else { None };
    crate::sort::cuda::sort_lanes(x, k.as_ref(), i.as_ref())?;
    Ok((k, i))
}

/// NumPy's `sort(a, axis)` (stable; NaNs last; `None` sorts the flattened array).
///
/// On a GPU the order of -0.0 and +0.0 among themselves is not kept (they compare equal).
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::from_vec(vec![3.0, f64::NAN, 1.0, 2.0, 1.0], &dev)?;
/// let s = a.sort(None)?.to_vec::<f64>()?;
/// assert_eq!(&s[..4], &[1.0, 1.0, 2.0, 3.0]);
/// assert!(s[4].is_nan()); // NaNs last, as in NumPy
/// assert_eq!(a.argsort(None)?.to_vec::<i64>()?, vec![2, 4, 3, 0, 1]); // stable
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn sort(a: &Array, axis: Option<isize>) -> Result<Array> {
    if let (0, Some(ax)) = (a.ndim(), axis) {
        // NumPy: a 0-d array has no axis to sort along (argsort, though, accepts it).
        return Err(Error::AxisOutOfRange { axis: ax, ndim: 0 });
    }
    if !a.device().is_cpu() {
        let (x, ax) = device_lanes(a, axis)?;
        let (k, _) = device_sort(&x, true, false)?;
        return lanes_back(k.expect("keys asked for"), ax);
    }
    let (h, ax) = host_lanes(a, axis)?;
    let len = *h.shape().last().unwrap_or(&1);
    let out = by_domain!(h.dtype(), W => {
        let mut v: Vec<W> = values(&h)?;
        if len > 0 {
            // Lanes in parallel; a single long lane with a parallel (stable) merge sort.
            if v.len() == len {
                v.par_sort_by(|x, y| x.ord(y));
            } else {
                v.par_chunks_mut(len).for_each(|l| l.sort_by(|x, y| x.ord(y)));
            }
        }
        from_values(&v, h.shape(), h.dtype())?
    });
    finish(out, ax, a.device())
}

/// NumPy's `argsort(a, axis, kind="stable")`: int64 indices that sort each lane.
pub fn argsort(a: &Array, axis: Option<isize>) -> Result<Array> {
    if !a.device().is_cpu() {
        let (x, ax) = device_lanes(a, axis)?;
        let (_, i) = device_sort(&x, false, true)?;
        return lanes_back(i.expect("indices asked for"), ax);
    }
    let (h, ax) = host_lanes(a, axis)?;
    let len = *h.shape().last().unwrap_or(&1);
    let idx: Vec<i64> = by_domain!(h.dtype(), W => {
        let v: Vec<W> = values(&h)?;
        let mut idx: Vec<i64> = Vec::with_capacity(v.len());
        if len > 0 {
            for lane in v.chunks(len) {
                let mut ix: Vec<i64> = (0..len as i64).collect();
                ix.par_sort_by(|&i, &j| lane[i as usize].ord(&lane[j as usize]));
                idx.extend(ix);
            }
        }
        idx
    });
    finish(from_values(&idx, h.shape(), DType::Int64)?, ax, a.device())
}

/// Which side of equal elements [`searchsorted`] returns.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

/// NumPy's `searchsorted(a, v, side)`: insertion indices (int64, shape of `v`) keeping the
/// sorted 1-d `a` sorted.
///
/// ```
/// use cuprum::Side;
/// let dev = cuprum::Device::default_device();
/// let (a, v) = (cuprum::from_vec(vec![1i64, 2, 2, 4], &dev)?, cuprum::from_vec(vec![2i64, 3], &dev)?);
/// assert_eq!(cuprum::searchsorted(&a, &v, Side::Left)?.to_vec::<i64>()?, vec![1, 3]);
/// assert_eq!(cuprum::searchsorted(&a, &v, Side::Right)?.to_vec::<i64>()?, vec![3, 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn searchsorted(a: &Array, v: &Array, side: Side) -> Result<Array> {
    crate::ufunc::same_device("searchsorted", a, v)?;
    if a.ndim() != 1 {
        return Err(Error::InvalidArgument("searchsorted: the sorted array must be 1-d".into()));
    }
    let dt = crate::promote_types(a.dtype(), v.dtype());
    if !a.device().is_cpu() {
        // Compare in the promoted dtype: both sides cast (or used in place) on the device.
        let in_dt = |x: &Array| if x.dtype() == dt && x.is_c_contiguous() { Ok(x.view()) } else { x.astype(dt) };
        let (s, q) = (in_dt(a)?, in_dt(v)?);
        let out = Array::alloc(v.shape(), DType::Int64, a.device(), false)?;
        crate::indexing::cuda::searchsorted(&s, &q, side == Side::Right, &out)?;
        return Ok(out);
    }
    let (ah, vh) = (a.to_device(&Device::Cpu)?.astype(dt)?, v.to_device(&Device::Cpu)?.astype(dt)?);
    let res: Vec<i64> = by_domain!(dt, W => {
        let sorted: Vec<W> = values(&ah)?;
        let q: Vec<W> = values(&vh)?;
        q.iter()
            .map(|x| match side {
                Side::Left => sorted.partition_point(|s| s.ord(x) == Ordering::Less) as i64,
                Side::Right => sorted.partition_point(|s| s.ord(x) != Ordering::Greater) as i64,
            })
            .collect()
    });
    let out = from_values(&res, v.shape(), DType::Int64)?;
    if a.device().is_cpu() {
        Ok(out)
    } else {
        out.to_device(&a.device())
    }
}

/// Interpolation methods of [`quantile`], as NumPy's `method=`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QuantileMethod {
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

fn quantile_impl(a: &Array, qs: &[f64], axis: Option<isize>, method: Interp, ignore_nan: bool) -> Result<Array> {
    if qs.iter().any(|q| !(0.0..=1.0).contains(q)) {
        return Err(Error::Value("quantiles must be in the range [0, 1]".into()));
    }
    use QuantileMethod::*;
    let keeps = matches!(method, Interp::Method(Lower | Higher | Nearest));
    let dt = a.dtype();
    // Methods that pick an element keep the dtype; interpolating ones give floats.
    let out_dt = if keeps || dt.is_float() { dt } else { DType::Float64 };
    let (moved, _) = lanes_last(a, axis)?;
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
        let dt = if dt.is_float() { dt } else { DType::Float64 };
        return crate::full(&shape, f64::NAN, dt, &a.device());
    }
    let lanes = moved.size() / len;
    let h = moved.as_contiguous()?;
    if !a.device().is_cpu() {
        return device_quantiles(&h, lanes, qs, method, ignore_nan, out_dt)?.reshape(&shape);
    }
    let out = by_domain!(h.dtype(), W => {
        let mut v: Vec<W> = values(&h)?;
        // Methods that pick an element keep it as it is (64-bit integers exactly); the others
        // interpolate in float64.
        let mut picked: Vec<W> = if keeps { vec![W::nan(); qs.len() * lanes] } else { Vec::new() };
        let mut res = if keeps { Vec::new() } else { vec![f64::NAN; qs.len() * lanes] };
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
                let (lo, hi) = (vi.floor() as usize, (vi.ceil() as usize).min(n - 1));
                let at = k * lanes + l;
                match method {
                    Interp::Method(Linear) => {
                        let (x0, x1) = nth_pair(s, lo, hi);
                        res[at] = lerp(x0.to_f64(), x1.to_f64(), vi - lo as f64);
                    }
                    Interp::Method(Lower) => picked[at] = nth_pair(s, lo, lo).0,
                    Interp::Method(Higher) => picked[at] = nth_pair(s, hi, hi).0,
                    Interp::Method(Nearest) => {
                        let i = (vi.round_ties_even() as usize).min(n - 1);
                        picked[at] = nth_pair(s, i, i).0
                    }
                    Interp::Method(Midpoint) => {
                        let (x0, x1) = nth_pair(s, lo, hi);
                        res[at] = (x0.to_f64() + x1.to_f64()) / 2.0
                    }
                    Interp::MedianMean => {
                        let (x0, x1) = nth_pair(s, lo, hi);
                        res[at] = median_mean(x0.to_f64(), x1.to_f64(), lo == hi, dt)
                    }
                }
            }
        }
        if keeps {
            from_values(&picked, &[qs.len(), lanes], out_dt)?
        } else {
            from_values(&res, &[qs.len(), lanes], DType::Float64)?.astype(out_dt)?
        }
    });
    out.reshape(&shape)
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

/// Quantiles on a GPU of the `lanes` lanes of the C-contiguous `x` (lanes along the last
/// axis), shape `(len(qs), lanes)`: a radix select per `q` for one lane, else sorted lanes and
/// a pick.
fn device_quantiles(
    x: &Array,
    lanes: usize,
    qs: &[f64],
    method: Interp,
    ignore_nan: bool,
    out_dt: DType,
) -> Result<Array> {
    let m = crate::sort::cuda::method_code(method);
    let out = Array::alloc(&[qs.len(), lanes], out_dt, x.device(), false)?;
    if lanes == 1 {
        let flat = x.reshape(&[x.size()])?;
        for (k, &q) in qs.iter().enumerate() {
            let o = out.slice([crate::SliceElem::Index(k as isize), crate::SliceElem::Index(0)])?;
            crate::sort::cuda::select_quantile(&flat, q, m, ignore_nan, &o)?;
        }
    } else {
        let (sorted, _) = device_sort(x, true, false)?;
        crate::sort::cuda::pick_quantiles(&sorted.expect("keys asked for"), qs, m, ignore_nan, &out)?;
    }
    Ok(out)
}

/// NumPy's `quantile(a, q, axis, method)` for several `q` in [0, 1]: shape `(len(q), ...)`.
pub fn quantiles(a: &Array, q: &[f64], axis: Option<isize>, method: QuantileMethod) -> Result<Array> {
    quantile_impl(a, q, axis, Interp::Method(method), false)
}

/// NumPy's `quantile(a, q, axis, method)` for one `q`. Of empty lanes it is an error of kind
/// [`IndexError`](crate::ErrorKind::IndexError), as in NumPy ([`nanquantile`] and [`median`]
/// give NaN there).
///
/// ```
/// use cuprum::{DType, QuantileMethod};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![1i32, 2, 3, 4, 10], &dev)?;
/// let q = cuprum::quantile(&x, 0.9, None, QuantileMethod::Linear)?;
/// assert_eq!(q.dtype(), DType::Float64); // interpolating methods give floats
/// assert!((q.item::<f64>()? - 7.6).abs() < 1e-12);
/// let p = cuprum::percentile(&x, 40.0, None, QuantileMethod::Lower)?;
/// assert_eq!((p.dtype(), p.item::<i64>()?), (DType::Int32, 2)); // picking methods keep the dtype
/// assert_eq!(x.median(None)?.item::<f64>()?, 3.0);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn quantile(a: &Array, q: f64, axis: Option<isize>, method: QuantileMethod) -> Result<Array> {
    quantile_one(a, q, axis, Interp::Method(method), false)
}

fn quantile_one(a: &Array, q: f64, axis: Option<isize>, method: Interp, ignore_nan: bool) -> Result<Array> {
    let r = quantile_impl(a, &[q], axis, method, ignore_nan)?;
    r.reshape(&r.shape()[1..])
}

/// NumPy's `percentile(a, q, axis, method)` (`q` in [0, 100]).
pub fn percentile(a: &Array, q: f64, axis: Option<isize>, method: QuantileMethod) -> Result<Array> {
    quantile(a, q / 100.0, axis, method)
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
pub fn median(a: &Array, axis: Option<isize>) -> Result<Array> {
    quantile_one(a, 0.5, axis, Interp::MedianMean, false)
}

/// NumPy's `nanquantile` (NaNs ignored; all-NaN lanes give NaN). Empty lanes give NaN too,
/// of the data's float dtype or float64 (whatever the method), without NumPy's warning.
pub fn nanquantile(a: &Array, q: f64, axis: Option<isize>, method: QuantileMethod) -> Result<Array> {
    quantile_one(a, q, axis, Interp::Method(method), true)
}

/// NumPy's `nanpercentile`.
pub fn nanpercentile(a: &Array, q: f64, axis: Option<isize>, method: QuantileMethod) -> Result<Array> {
    nanquantile(a, q / 100.0, axis, method)
}

/// NumPy's `nanmedian`: [`median`] of each lane's values that are not NaN (all-NaN lanes
/// give NaN).
pub fn nanmedian(a: &Array, axis: Option<isize>) -> Result<Array> {
    quantile_one(a, 0.5, axis, Interp::MedianMean, true)
}

/// The result of [`unique`]: the sorted unique values and, as asked, NumPy's
/// `return_index`, `return_inverse` and `return_counts` arrays (int64).
pub struct Unique {
    pub values: Array,
    pub index: Option<Array>,
    pub inverse: Option<Array>,
    pub counts: Option<Array>,
}

/// NumPy's `unique` of the flattened array (NaNs collapse into one, at the end).
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let u = cuprum::unique(&cuprum::from_vec(vec![2i64, 1, 2, 5, 1, 2], &dev)?, true, true, true)?;
/// assert_eq!(u.values.to_vec::<i64>()?, vec![1, 2, 5]);
/// assert_eq!(u.index.unwrap().to_vec::<i64>()?, vec![1, 0, 3]);
/// assert_eq!(u.inverse.unwrap().to_vec::<i64>()?, vec![1, 0, 1, 2, 0, 1]);
/// assert_eq!(u.counts.unwrap().to_vec::<i64>()?, vec![2, 3, 1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn unique(a: &Array, return_index: bool, return_inverse: bool, return_counts: bool) -> Result<Unique> {
    if !a.device().is_cpu() {
        return device_unique(a, return_index, return_inverse, return_counts);
    }
    let (h, _) = host_lanes(a, None)?;
    let n = h.size();
    let dev = a.device();
    let put = |x: Array| -> Result<Array> {
        if dev.is_cpu() {
            Ok(x)
        } else {
            x.to_device(&dev)
        }
    };
    by_domain!(h.dtype(), W => {
        let v: Vec<W> = values(&h)?;
        let mut order: Vec<usize> = (0..n).collect();
        order.par_sort_by(|&i, &j| v[i].ord(&v[j]));
        let mut uniq: Vec<W> = Vec::new();
        let mut first: Vec<i64> = Vec::new();
        let mut counts: Vec<i64> = Vec::new();
        let mut inverse = vec![0i64; n];
        for &i in &order {
            let same = uniq.last().is_some_and(|u: &W| u.ord(&v[i]) == Ordering::Equal);
            if !same {
                uniq.push(v[i]);
                first.push(i as i64);
                counts.push(0);
            }
            *counts.last_mut().expect("pushed above") += 1;
            inverse[i] = uniq.len() as i64 - 1;
        }
        Ok(Unique {
            values: put(from_values(&uniq, &[uniq.len()], h.dtype())?)?,
            index: if return_index { Some(put(from_values(&first, &[first.len()], DType::Int64)?)?) } else { None },
            inverse: if return_inverse { Some(put(from_values(&inverse, a.shape(), DType::Int64)?)?) } else { None },
            counts: if return_counts { Some(put(from_values(&counts, &[counts.len()], DType::Int64)?)?) } else { None },
        })
    })
}

/// `unique` on a GPU: radix sort (with the permutation when indices are asked for), a mask of
/// the first element of each run of equal values (NaNs equal), then selections.
fn device_unique(a: &Array, return_index: bool, return_inverse: bool, return_counts: bool) -> Result<Unique> {
    let x = a.ravel()?.as_contiguous()?;
    let n = x.size();
    let dev = a.device();
    if n == 0 {
        let e = |dt| crate::empty(&[0], dt, &dev);
        return Ok(Unique {
            values: e(a.dtype())?,
            index: if return_index { Some(e(DType::Int64)?) } else { None },
            inverse: if return_inverse { Some(crate::empty(a.shape(), DType::Int64, &dev)?) } else { None },
            counts: if return_counts { Some(e(DType::Int64)?) } else { None },
        });
    }
    let (sorted, perm) = device_sort(&x, true, return_index || return_inverse)?;
    let sorted = sorted.expect("keys asked for");
    let (head, tail) = (sorted.slice(s1(0, n - 1))?, sorted.slice(s1(1, n))?);
    let mut differs = tail.not_equal(&head)?;
    if sorted.dtype().is_float() {
        differs = differs.logical_and(&tail.isnan()?.logical_and(&head.isnan()?)?.logical_not()?)?;
    }
    let first = crate::full(&[1], true, DType::Bool, &dev)?;
    let starts = crate::concatenate(&[&first, &differs], 0)?;
    let values = sorted.mask(&starts)?;
    let pos = if return_index || return_counts { Some(crate::flatnonzero(&starts)?) } else { None };
    let index = match (return_index, &pos, &perm) {
        (true, Some(p), Some(perm)) => Some(crate::take(perm, p, None)?),
        _ => None,
    };
    let counts = match (return_counts, &pos) {
        (true, Some(p)) => {
            let end = crate::full(&[1], n as i64, DType::Int64, &dev)?;
            Some(crate::diff(&crate::concatenate(&[p, &end], 0)?, 1, -1)?)
        }
        _ => None,
    };
    let inverse = match (return_inverse, &perm) {
        (true, Some(perm)) => {
            // The run number of each sorted element, put back in input order.
            let run = starts.cumsum(None)?.subtract(1)?;
            let mut inv = crate::empty(&[n], DType::Int64, &dev)?;
            crate::indexing::scatter_distinct(&mut inv, &[perm], &run)?;
            Some(inv.reshape(a.shape())?)
        }
        _ => None,
    };
    Ok(Unique { values, index, inverse, counts })
}

/// The 1-d slice `start..end`.
fn s1(start: usize, end: usize) -> [crate::SliceElem; 1] {
    [crate::SliceElem::Slice { start: Some(start as isize), end: Some(end as isize), step: 1 }]
}

/// NumPy's `bincount(x, weights, minlength)`: counts (int64) or weight sums (float64) of
/// each non-negative integer in `x`.
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let c = cuprum::bincount(&cuprum::from_vec(vec![0i64, 1, 1, 3], &dev)?, None, 5)?;
/// assert_eq!(c.to_vec::<i64>()?, vec![1, 2, 0, 1, 0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn bincount(x: &Array, weights: Option<&Array>, minlength: usize) -> Result<Array> {
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
        crate::ufunc::same_device("bincount", x, w)?;
        if w.shape() != x.shape() {
            return Err(Error::ShapeMismatch { op: "bincount".into(), a: x.shape().to_vec(), b: w.shape().to_vec() });
        }
    }
    if !x.device().is_cpu() {
        return bincount_gpu(x, weights, minlength);
    }
    let xv: Vec<i64> = values(&x.to_device(&Device::Cpu)?)?;
    if xv.iter().any(|&v| v < 0) {
        return Err(Error::Value("bincount: 'x' must not contain negative values".into()));
    }
    let n = xv.iter().map(|&v| v as usize + 1).max().unwrap_or(0).max(minlength);
    // The output length comes from the data: allocate fallibly (a huge value is an error).
    crate::core::layout::checked_nbytes(&[n], 8)?;
    let zeros = |n: usize| -> Result<()> {
        let mut t: Vec<u64> = Vec::new();
        t.try_reserve_exact(n).map_err(|_| Error::OutOfMemory { device: Device::Cpu, bytes: n * 8 })
    };
    zeros(n)?;
    let out = match weights {
        None => {
            let mut c = vec![0i64; n];
            xv.iter().for_each(|&v| c[v as usize] += 1);
            from_values(&c, &[n], DType::Int64)?
        }
        Some(w) => {
            let wv: Vec<f64> = values(&w.to_device(&Device::Cpu)?)?;
            let mut c = vec![0f64; n];
            xv.iter().zip(&wv).for_each(|(&v, &wt)| c[v as usize] += wt);
            from_values(&c, &[n], DType::Float64)?
        }
    };
    Ok(out)
}

/// The minimum and maximum of the GPU array `x`, as `dt` (of `T`), read back in one copy.
fn device_min_max<T: crate::Element>(x: &Array, dt: DType) -> Result<(T, T)> {
    let mm = crate::stack(&[&x.min(None)?, &x.max(None)?], 0)?.astype(dt)?.to_vec::<T>()?;
    Ok((mm[0], mm[1]))
}

/// [`bincount`] on a GPU: the min and max come back (one copy) to size the output, then one
/// kernel counts (per-block bins in shared memory when they fit).
fn bincount_gpu(x: &Array, weights: Option<&Array>, minlength: usize) -> Result<Array> {
    let n = if x.size() == 0 {
        minlength
    } else {
        let (lo, hi) = device_min_max::<i64>(x, DType::Int64)?;
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
    crate::indexing::cuda::bincount(&xc, w.as_ref(), &out)?;
    Ok(out)
}

/// Bins of [`histogram`]: a number of equal bins (over `range` or the data's min..max), or
/// explicit monotonically increasing edges.
#[derive(Clone, Debug, PartialEq)]
pub enum Bins {
    Count(usize),
    Edges(Vec<f64>),
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

/// NumPy's `histogram(a, bins, range, weights, density)`: (counts or densities, edges). The
/// last bin includes its right edge. Counts are int64; weighted sums have the weights' dtype
/// (summed in float64); densities are float64; edges are float64.
///
/// ```
/// use cuprum::Bins;
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::from_vec(vec![0.5, 1.5, 1.7, 2.5, 4.0], &dev)?;
/// let (h, edges) = cuprum::histogram(&a, Bins::Count(3), Some((0.0, 3.0)), None, false)?;
/// assert_eq!(h.to_vec::<i64>()?, vec![1, 2, 1]); // 4.0 is outside the range
/// assert_eq!(edges.to_vec::<f64>()?, vec![0.0, 1.0, 2.0, 3.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn histogram(
    a: &Array,
    bins: Bins,
    range: Option<(f64, f64)>,
    weights: Option<&Array>,
    density: bool,
) -> Result<(Array, Array)> {
    if let Some(w) = weights {
        crate::ufunc::same_device("histogram", a, w)?;
        if w.shape() != a.shape() {
            return Err(Error::ShapeMismatch { op: "histogram".into(), a: a.shape().to_vec(), b: w.shape().to_vec() });
        }
    }
    let on_gpu = !a.device().is_cpu();
    let v: Vec<f64> = if on_gpu { Vec::new() } else { values(&a.to_device(&Device::Cpu)?.ravel()?)? };
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
                    let (lo, hi) = if on_gpu {
                        device_min_max::<f64>(a, DType::Float64)?
                    } else if v.iter().any(|x| x.is_nan()) {
                        (f64::NAN, f64::NAN)
                    } else {
                        (
                            v.iter().copied().fold(f64::INFINITY, f64::min),
                            v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                        )
                    };
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
            // NumPy's linspace(lo, hi, n + 1).
            ((0..=n).map(|i| if i == n { hi } else { lo + i as f64 * ((hi - lo) / n as f64) }).collect(), true)
        }
    };
    let nb = edges.len() - 1;
    let dev = a.device();
    let (hist, edges_arr) = if on_gpu {
        let x = a.as_contiguous()?;
        let w = weights.map(|w| w.astype(DType::Float64)).transpose()?;
        let e = crate::from_vec(edges.clone(), &dev)?;
        let out = Array::alloc(&[nb], if w.is_some() { DType::Float64 } else { DType::Int64 }, dev, true)?;
        crate::indexing::cuda::histogram(&x, w.as_ref(), &e, uniform, edges[0], edges[nb], &out)?;
        (out, e)
    } else {
        let w: Option<Vec<f64>> = match weights {
            Some(w) => Some(values(&w.to_device(&Device::Cpu)?.ravel()?)?),
            None => None,
        };
        let mut hist = vec![0f64; nb];
        let mut counts = vec![0i64; nb];
        for (i, &x) in v.iter().enumerate() {
            if let Some(b) = bin_of(x, &edges, uniform) {
                match &w {
                    Some(w) => hist[b] += w[i],
                    None => counts[b] += 1,
                }
            }
        }
        let h = if w.is_some() {
            from_values(&hist, &[nb], DType::Float64)?
        } else {
            from_values(&counts, &[nb], DType::Int64)?
        };
        (h, from_values(&edges, &[nb + 1], DType::Float64)?)
    };
    // Weighted sums in the weights' dtype, as NumPy's `ntype`.
    let hist = match weights {
        Some(w) if w.dtype() != DType::Float64 => hist.astype(w.dtype())?,
        _ => hist,
    };
    if !density {
        return Ok((hist, edges_arr));
    }
    // NumPy: n / np.diff(edges) / n.sum().
    use crate::core::slice::SliceElem;
    let right = edges_arr.slice([SliceElem::Slice { start: Some(1), end: None, step: 1 }])?;
    let left = edges_arr.slice([SliceElem::Slice { start: None, end: Some(-1), step: 1 }])?;
    let db = right.subtract(&left)?;
    let d = hist.astype(DType::Float64)?.true_divide(&db)?.true_divide(&hist.sum(None)?)?;
    Ok((d, edges_arr))
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

/// NumPy's `digitize(x, bins, right)`: the index of the bin of each value (int64), for
/// monotonically increasing or decreasing `bins`.
pub fn digitize(x: &Array, bins: &Array, right: bool) -> Result<Array> {
    crate::ufunc::same_device("digitize", x, bins)?;
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

/// NumPy's `isin(element, test_elements)`: whether each element occurs in `test_elements`
/// (compared with `==`: NaN is in nothing).
pub fn isin(element: &Array, test_elements: &Array) -> Result<Array> {
    crate::ufunc::same_device("isin", element, test_elements)?;
    let u = unique(test_elements, false, false, false)?.values;
    let dt = crate::promote_types(element.dtype(), u.dtype());
    let (e, u) = (element.astype(dt)?, u.astype(dt)?);
    let pos = searchsorted(&u, &e, Side::Left)?;
    let n = u.size() as i64;
    if n == 0 {
        return crate::zeros(element.shape(), DType::Bool, &element.device());
    }
    // Found where the insertion point holds an equal value (NaN equals nothing, as in NumPy).
    let clipped = pos.clip(0, n - 1)?;
    let at = take_flat(&u, &clipped)?;
    at.equal(&e)
}

/// `a.ravel()[idx]` for in-range int64 indices (a gather kernel on a GPU; used by `isin`).
fn take_flat(a: &Array, idx: &Array) -> Result<Array> {
    crate::gather(&a.ravel()?, &[idx])
}

/// NumPy's `argpartition(a, kth, axis)`: indices that put the `kth` element of each lane in
/// its sorted place, smaller-or-equal ones before it and the others after (NaNs last).
pub fn argpartition(a: &Array, kth: isize, axis: Option<isize>) -> Result<Array> {
    // A stable sort is a valid partition (NumPy only promises the partition property).
    let len = match axis {
        None => a.size(),
        Some(ax) => a.shape()[normalize_axis(ax, a.ndim())?],
    };
    let k = if kth < 0 { kth + len as isize } else { kth };
    if k < 0 || k >= len as isize {
        return Err(Error::Value(format!("kth(={kth}) out of bounds ({len})")));
    }
    crate::argsort(a, axis)
}

/// NumPy's `partition(a, kth, axis)`.
pub fn partition(a: &Array, kth: isize, axis: Option<isize>) -> Result<Array> {
    argpartition(a, kth, axis)?;
    crate::sort(a, axis)
}

/// NumPy's `lexsort(keys)`: indices sorting by the last key, then the one before, ... (stable).
pub fn lexsort(keys: &[&Array]) -> Result<Array> {
    let first = keys.first().ok_or_else(|| Error::Type("need sequence of keys with len > 0 in lexsort".into()))?;
    if first.ndim() != 1 {
        return Err(Error::NotImplemented("lexsort of keys that are not 1-d arrays".into()));
    }
    let mut order = crate::arange(first.size() as i64, &first.device())?;
    // Stable sorts from the least significant key (the first) to the most significant.
    for k in keys {
        if k.shape() != first.shape() {
            return Err(Error::ShapeMismatch {
                op: "lexsort".into(),
                a: first.shape().to_vec(),
                b: k.shape().to_vec(),
            });
        }
        let permuted = crate::take(k, &order, None)?;
        let o = crate::argsort(&permuted, None)?;
        order = crate::take(&order, &o, None)?;
    }
    Ok(order)
}

impl Array {
    /// NumPy's `sort` (a sorted copy).
    pub fn sort(&self, axis: Option<isize>) -> Result<Array> {
        sort(self, axis)
    }
    /// NumPy's `argsort` (stable).
    pub fn argsort(&self, axis: Option<isize>) -> Result<Array> {
        argsort(self, axis)
    }
    /// NumPy's `median`.
    pub fn median(&self, axis: Option<isize>) -> Result<Array> {
        median(self, axis)
    }
}
