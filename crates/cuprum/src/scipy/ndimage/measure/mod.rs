//! `scipy.ndimage`'s measurements: statistics of the elements of each label, with SciPy's
//! `labels`/`index` semantics.
//!
//! Every statistic comes from one accumulation pass over the elements (`accumulate`, the
//! family's dispatch point), on the device of the input: each element's label is mapped to a
//! *slot* (one per distinct requested label) without searching — `index = lo..=hi` maps by
//! subtraction, other index lists through a lookup table over their range, and labels outside
//! it are skipped — then counts, float64 sums, sums of coordinates, order keys of the minimum
//! and maximum (NaN largest, as SciPy's sort puts it) and first positions are accumulated per
//! slot: on the CPU in per-thread accumulators merged at the end (`cpu.rs`), on the GPU with
//! atomics into per-slot arrays, or, for a single group, in registers reduced per warp
//! (`cuda.rs`, `measure.cu`). The results are then built with array operations on the same
//! device. `median`, `histogram`, `labeled_comprehension` and `value_indices` gather the
//! elements of each label with the sort family's kernels. Float labels (what `label_into`
//! writes into a float array) are first made integer labels by SciPy's comparisons with the
//! index (`float_labels`, with array operations on their device).
//!
//! SciPy's result types are kept: with `index` given as a list, sums and means are float64
//! arrays of the index's shape and minima/maxima are of the input's dtype; with no index or a
//! single label, results are 0-d arrays of NumPy's scalar types (the sum of int16 values is
//! int64, of float32 values float32). Labels absent from the image give SciPy's values: sum
//! 0, mean and variance NaN, minimum and maximum 0, positions `(0, …)`. Complex inputs take
//! array operations instead of the pass (`complex.rs`), with SciPy's results and errors.

mod complex;
mod cpu;
pub(crate) mod cuda;

use crate::array::Array;
use crate::backend::cpu::keys::f64_key;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// SciPy's `index` argument: which labels to measure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Index {
    /// `index=None`: every element with a label above 0, as one group.
    All,
    /// One label (SciPy's scalar index): 0-d results.
    Label(i64),
    /// A list of labels (repeats allowed, absent ones too) and the shape of the results'
    /// leading axes (the index array's shape; `[len]` for a list).
    Labels(Vec<i64>, Vec<usize>),
}

impl From<i64> for Index {
    fn from(v: i64) -> Index {
        Index::Label(v)
    }
}
impl From<Vec<i64>> for Index {
    fn from(v: Vec<i64>) -> Index {
        let n = v.len();
        Index::Labels(v, vec![n])
    }
}
impl From<&[i64]> for Index {
    fn from(v: &[i64]) -> Index {
        v.to_vec().into()
    }
}
impl From<std::ops::RangeInclusive<i64>> for Index {
    /// `1..=n`: SciPy's `np.arange(1, n + 1)`.
    fn from(r: std::ops::RangeInclusive<i64>) -> Index {
        r.collect::<Vec<i64>>().into()
    }
}
impl From<Option<i64>> for Index {
    fn from(v: Option<i64>) -> Index {
        v.map_or(Index::All, Index::Label)
    }
}

impl Index {
    /// The labels of an integer array (any device; its shape is the results'). Float arrays
    /// are a TypeError (SciPy truncates them silently).
    pub fn from_array(a: &Array) -> Result<Index> {
        if a.dtype().is_float() {
            return Err(Error::Type(format!("index must be an array of integers, not {}", a.dtype())));
        }
        let v = a.to_device(&Device::Cpu)?.to_vec_as::<i64>()?;
        Ok(Index::Labels(v, a.shape().to_vec()))
    }
}

/// How elements map to slots (`measure.cu`'s MODE).
#[derive(Clone, Debug)]
pub(crate) enum Slots {
    /// No labels: every element is slot 0.
    Every,
    /// Labels above 0 are slot 0.
    Positive,
    /// Label `v` is slot 0.
    Equal(i64),
    /// Label `lo + s` is slot `s` for `s < k`.
    Range { lo: i64 },
    /// Label `lo + i` is slot `lut[i]` (-1: none), for `i < lut.len()`.
    Lut { lo: i64, lut: Vec<i32> },
}

impl Slots {
    pub(crate) fn code(&self) -> i32 {
        match self {
            Slots::Every => 0,
            Slots::Positive => 1,
            Slots::Equal(_) => 2,
            Slots::Range { .. } => 3,
            Slots::Lut { .. } => 4,
        }
    }
}

/// The groups of a measurement: the slot mapping, the number of slots, and for a list index
/// which slot each index entry reads.
pub(crate) struct Groups {
    pub slots: Slots,
    pub k: usize,
    /// Per index entry, its slot (a list index); `None`: the results are the slots in order.
    pub gather: Option<Vec<i64>>,
    /// The results' leading shape (empty: 0-d results).
    pub shape: Vec<usize>,
}

/// The largest lookup table built for a list index (elements).
const MAX_LUT: i64 = 1 << 24;

fn groups(labels: Option<&Array>, index: &Index) -> Result<Groups> {
    let Some(_) = labels else {
        if matches!(index, Index::All) {
            return Ok(Groups { slots: Slots::Every, k: 1, gather: None, shape: vec![] });
        }
        // SciPy reduces over everything; an index without labels is a ValueError in
        // labeled_comprehension, ignored elsewhere: refuse it everywhere.
        return Err(Error::Value("index without defined labels".into()));
    };
    Ok(match index {
        Index::All => Groups { slots: Slots::Positive, k: 1, gather: None, shape: vec![] },
        Index::Label(v) => Groups { slots: Slots::Equal(*v), k: 1, gather: None, shape: vec![] },
        Index::Labels(v, shape) => {
            if v.is_empty() {
                return Ok(Groups { slots: Slots::Range { lo: 0 }, k: 0, gather: None, shape: shape.clone() });
            }
            let lo = *v.iter().min().unwrap();
            let hi = *v.iter().max().unwrap();
            let consecutive = v.iter().enumerate().all(|(i, &x)| Some(x) == lo.checked_add(i as i64));
            if consecutive {
                Groups { slots: Slots::Range { lo }, k: v.len(), gather: None, shape: shape.clone() }
            } else {
                // In i128: labels from i64::MIN to i64::MAX span 2^64 values (as an i64 it wrapped
                // to an empty table, which then panicked).
                let span = hi as i128 - lo as i128 + 1;
                if span > MAX_LUT.max(8 * v.len() as i64) as i128 {
                    return Err(Error::NotImplemented(format!(
                        "measurements of labels spread over a range of {span} values (at most {MAX_LUT})"
                    )));
                }
                // One slot per distinct label, in the order of first appearance.
                let mut lut = crate::core::alloc::vec_filled(span as usize, -1i32)?;
                let mut gather = Vec::with_capacity(v.len());
                let mut k = 0;
                for &x in v {
                    let e = &mut lut[(x - lo) as usize];
                    if *e < 0 {
                        *e = k;
                        k += 1;
                    }
                    gather.push(*e as i64);
                }
                Groups { slots: Slots::Lut { lo, lut }, k: k as usize, gather: Some(gather), shape: shape.clone() }
            }
        }
    })
}

/// What one accumulation computes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Want {
    pub count: bool,
    /// Σ v in float64.
    pub sum: bool,
    /// Σ v in wrapping 64-bit integers (integer inputs: SciPy's exact sums of one group).
    pub isum: bool,
    /// Σ (v - mean[slot])² in float64 (`means` given).
    pub sq: bool,
    /// Σ v · coordinate, per axis, in float64.
    pub com: bool,
    /// Order keys of the minimum and maximum (NaN largest).
    pub minmax: bool,
    /// First flat positions of the minimum and maximum (`keys` given).
    pub pos: bool,
    /// Per axis, the smallest and largest coordinate.
    pub bbox: bool,
}

/// Per-slot results of an accumulation, on the input's device (`None`: not asked for).
#[derive(Default)]
pub(crate) struct Acc {
    /// int64 [k]
    pub count: Option<Array>,
    /// float64 [k]
    pub sum: Option<Array>,
    /// int64 or uint64 (the input's sum dtype) [k]
    pub isum: Option<Array>,
    /// float64 [k]
    pub sq: Option<Array>,
    /// float64 [k, ndim]
    pub com: Option<Array>,
    /// uint64 order keys [k]
    pub minkey: Option<Array>,
    pub maxkey: Option<Array>,
    /// int64 flat positions [k]
    pub minpos: Option<Array>,
    pub maxpos: Option<Array>,
    /// int64 [k, ndim]
    pub bblo: Option<Array>,
    pub bbhi: Option<Array>,
}

/// One accumulation pass: `x` (the values, C-contiguous; `None`: counting only) and `labels`
/// (C-contiguous integer array of the same shape, or `None`), extra inputs `means` (float64
/// [k]) and `keys` (min and max keys [k]) for the second passes.
pub(crate) struct Pass<'a> {
    pub x: Option<&'a Array>,
    pub labels: Option<&'a Array>,
    pub shape: &'a [usize],
    pub groups: &'a Groups,
    pub want: Want,
    pub means: Option<&'a Array>,
    pub keys: Option<(&'a Array, &'a Array)>,
}

fn accumulate(p: &Pass<'_>, dev: &Device) -> Result<Acc> {
    let k = p.groups.k;
    let nd = p.shape.len().max(1);
    let w = p.want;
    let isum_dt = p.x.map_or(DType::Int64, |x| if x.dtype().is_unsigned_int() { DType::UInt64 } else { DType::Int64 });
    // Zeros, or the start of a minimum (all ones: the largest key; positions and lower corners
    // past every element): one memset each on a GPU; on the CPU the same starts by value.
    let init = |on: bool, shape: &[usize], dt: DType, ones: bool| -> Result<Option<Array>> {
        if !on {
            return Ok(None);
        }
        Ok(Some(match dev {
            Device::Cuda(_) => cuda::filled(shape, dt, dev, if ones { 0xFF } else { 0 })?,
            Device::Cpu if !ones => crate::zeros(shape, dt, dev)?,
            Device::Cpu if dt == DType::UInt64 => crate::full(shape, u64::MAX, dt, dev)?,
            Device::Cpu => crate::full(shape, i64::MAX, dt, dev)?,
        }))
    };
    let acc = Acc {
        count: init(w.count, &[k], DType::Int64, false)?,
        sum: init(w.sum, &[k], DType::Float64, false)?,
        isum: init(w.isum, &[k], isum_dt, false)?,
        sq: init(w.sq, &[k], DType::Float64, false)?,
        com: init(w.com, &[k, nd], DType::Float64, false)?,
        minkey: init(w.minmax, &[k], DType::UInt64, true)?,
        maxkey: init(w.minmax, &[k], DType::UInt64, false)?,
        minpos: init(w.pos, &[k], DType::Int64, true)?,
        maxpos: init(w.pos, &[k], DType::Int64, true)?,
        bblo: init(w.bbox, &[k, nd], DType::Int64, true)?,
        bbhi: match dev {
            Device::Cuda(_) => init(w.bbox, &[k, nd], DType::Int64, true)?, // all ones: -1
            Device::Cpu => {
                if w.bbox {
                    Some(crate::full(&[k, nd], -1i64, DType::Int64, dev)?)
                } else {
                    None
                }
            }
        },
    };
    let n: usize = p.shape.iter().product();
    if k == 0 || n == 0 {
        return Ok(acc);
    }
    match dev {
        Device::Cpu => cpu::accumulate(p, &acc)?,
        Device::Cuda(_) => cuda::accumulate(p, &acc)?,
    }
    Ok(acc)
}

/// The order key of a value (as `measure.cu`'s `okey`): integers offset into u64 order,
/// floats by their bits with NaN largest, -0.0 and 0.0 alike.
pub(crate) fn key_of_f64(v: f64) -> u64 {
    f64_key(v + 0.0)
}

/// The values of order keys `keys` (uint64 [k]) in `dt`, 0 where `count` (int64 [k]) is 0
/// (SciPy's zeros for absent labels); on the keys' device.
fn decode_keys(keys: &Array, count: &Array, dt: DType) -> Result<Array> {
    match keys.device() {
        Device::Cpu => cpu::decode(keys, count, dt),
        Device::Cuda(_) => cuda::decode(keys, count, dt),
    }
}

/// The checked operands: the input and the labels broadcast together, C-contiguous, on one
/// device.
fn operands(input: &Array, labels: Option<&Array>, op: &str) -> Result<(Array, Option<Array>)> {
    let Some(l) = labels else {
        return Ok((input.as_contiguous()?, None));
    };
    crate::array::same_device(op, input, l)?;
    if l.dtype().is_complex() {
        return Err(Error::Type(format!("{op}: labels must be integers or floats, not {}", l.dtype())));
    }
    let shape = crate::core::layout::broadcast_shapes(input.shape(), l.shape()).ok_or_else(|| {
        Error::Value(format!(
            "{op}: shape mismatch: input {} and labels {} cannot be broadcast to a single shape",
            crate::core::error::shape_str(input.shape()),
            crate::core::error::shape_str(l.shape())
        ))
    })?;
    let x = input.broadcast_to(&shape)?.as_contiguous()?;
    let l = l.broadcast_to(&shape)?.as_contiguous()?;
    Ok((x, Some(l)))
}

/// Results per index entry from per-slot values `a` ([k, ...] on the device): gathered by the
/// index's slots and shaped as the index (0-d for a single group).
fn finish(a: &Array, g: &Groups) -> Result<Array> {
    let tail: Vec<usize> = a.shape()[1..].to_vec();
    let picked = match &g.gather {
        Some(s) => {
            let idx = crate::from_slice(s, &[s.len()], &a.device())?;
            crate::take(a, &idx, 0)?
        }
        None => a.view(),
    };
    let mut shape = g.shape.clone();
    shape.extend(&tail);
    picked.reshape(&shape)?.as_contiguous()
}

fn is_single(g: &Groups) -> bool {
    g.shape.is_empty()
}

struct Prep {
    x: Array,
    labels: Option<Array>,
    g: Groups,
}

fn prep(input: &Array, labels: Option<&Array>, index: &Index, op: &str) -> Result<Prep> {
    let (x, labels) = operands(input, labels, op)?;
    if let Some(l) = labels.as_ref().filter(|l| l.dtype().is_float()) {
        let (l, index) = float_labels(l, index)?;
        let g = groups(Some(&l), &index)?;
        return Ok(Prep { x, labels: Some(l), g });
    }
    let g = groups(labels.as_ref(), index)?;
    Ok(Prep { x, labels, g })
}

/// Float labels (what [`label_into`](crate::scipy::ndimage::label_into) writes into a float
/// array; SciPy and CuPy take them) as integer labels and index, by SciPy's comparisons: a
/// label belongs to the group of the index value it equals (compared in float64), to none where
/// it equals none (NaN, 1.5 against integer indices); without an index, the labels above 0 are
/// the group. On the labels' device.
fn float_labels(l: &Array, index: &Index) -> Result<(Array, Index)> {
    Ok(match index {
        Index::All => (l.greater(0.0)?.astype(DType::Int8)?, Index::All),
        Index::Label(v) => (l.equal(*v as f64)?.astype(DType::Int8)?, Index::Label(1)),
        Index::Labels(vs, shape) => {
            let mut values: Vec<f64> = vs.iter().map(|&v| v as f64).collect();
            values.sort_by(f64::total_cmp);
            values.dedup();
            if values.is_empty() {
                return Ok((crate::zeros(l.shape(), DType::Int8, &l.device())?, index.clone()));
            }
            // Each label's place among the sorted values, and whether it is that value: its
            // group is that place + 1, or 0.
            let vals = crate::from_slice(&values, &[values.len()], &l.device())?;
            let lf = l.astype(DType::Float64)?.ravel()?;
            let pos = crate::minimum(&crate::searchsorted(&vals, &lf, crate::Side::Left)?, (values.len() - 1) as i64)?;
            let hit = crate::take(&vals, &pos, None)?.equal(&lf)?;
            let lab = ((&pos + 1i64)? * &hit.astype(DType::Int64)?)?.reshape(l.shape())?;
            let at = |v: i64| values.partition_point(|&p| p < v as f64) as i64 + 1;
            (lab, Index::Labels(vs.iter().map(|&v| at(v)).collect(), shape.clone()))
        }
    })
}

fn pass<'a>(p: &'a Prep, want: Want) -> Pass<'a> {
    Pass { x: Some(&p.x), labels: p.labels.as_ref(), shape: p.x.shape(), groups: &p.g, want, means: None, keys: None }
}

/// SciPy's `ndimage.sum_labels(input, labels, index)`: the sum of the values of each label.
///
/// With a list index the sums are float64 (an array of the index's shape; absent labels 0);
/// with `Index::All` (labels above 0) or one label, a 0-d array of NumPy's sum dtype (int64 for
/// signed integers and bools, uint64 for unsigned, the input's float dtype). Without labels,
/// the sum of everything.
///
/// ```
/// use cuprum::scipy::ndimage::{sum_labels, Index};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_slice(&[1.0, 2.0, 3.0, 4.0], &[2, 2], &dev)?;
/// let l = cuprum::from_slice(&[1, 1, 0, 2], &[2, 2], &dev)?;
/// assert_eq!(sum_labels(&x, Some(&l), vec![1, 2, 5])?.to_vec::<f64>()?, vec![3.0, 4.0, 0.0]);
/// assert_eq!(sum_labels(&x, Some(&l), Index::All)?.item::<f64>()?, 7.0);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn sum_labels(input: &Array, labels: Option<&Array>, index: impl Into<Index>) -> Result<Array> {
    let p = prep(input, labels, &index.into(), "sum_labels")?;
    if p.x.dtype().is_complex() {
        return complex::sum(&p);
    }
    let dev = p.x.device();
    let dt = p.x.dtype();
    if is_single(&p.g) {
        let exact = !dt.is_float();
        let a = accumulate(&pass(&p, Want { sum: !exact, isum: exact, ..Want::default() }), &dev)?;
        let s = if exact { a.isum.unwrap() } else { a.sum.unwrap().astype(dt.sum_dtype())? };
        return s.reshape(());
    }
    let a = accumulate(&pass(&p, Want { sum: true, ..Want::default() }), &dev)?;
    finish(&a.sum.unwrap(), &p.g)
}

/// SciPy's `ndimage.sum` (an alias of [`sum_labels`]).
pub fn sum(input: &Array, labels: Option<&Array>, index: impl Into<Index>) -> Result<Array> {
    sum_labels(input, labels, index)
}

/// The number of elements of each label (`Index` as in [`sum_labels`]; without labels, the
/// input's size): int64, 0 for absent labels. (SciPy computes these counts inside
/// `mean`/`variance` but has no function for them.)
///
/// ```
/// use cuprum::scipy::ndimage::count;
/// let dev = cuprum::Device::default_device();
/// let l = cuprum::from_slice(&[1, 1, 0, 2, 2, 2], &[6], &dev)?;
/// assert_eq!(count(&l, 1..=3)?.to_vec::<i64>()?, vec![2, 3, 0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn count(labels: &Array, index: impl Into<Index>) -> Result<Array> {
    let p = prep(labels, Some(labels), &index.into(), "count")?;
    let a = accumulate(
        &Pass {
            x: None,
            labels: p.labels.as_ref(),
            shape: p.x.shape(),
            groups: &p.g,
            want: Want { count: true, ..Want::default() },
            means: None,
            keys: None,
        },
        &p.x.device(),
    )?;
    let c = a.count.unwrap();
    if is_single(&p.g) {
        return c.reshape(());
    }
    finish(&c, &p.g)
}

/// Counts and float64 sums per slot, and the means.
fn means(p: &Prep) -> Result<(Array, Array, Array)> {
    let a = accumulate(&pass(p, Want { count: true, sum: true, ..Want::default() }), &p.x.device())?;
    let (c, s) = (a.count.unwrap(), a.sum.unwrap());
    let m = s.true_divide(&c.astype(DType::Float64)?)?;
    Ok((c, s, m))
}

/// SciPy's `ndimage.mean(input, labels, index)`: float64 means (NaN for absent labels).
///
/// ```
/// use cuprum::scipy::ndimage::mean;
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_slice(&[1, 2, 3, 4], &[4], &dev)?;
/// let l = cuprum::from_slice(&[1, 1, 2, 0], &[4], &dev)?;
/// assert_eq!(mean(&x, Some(&l), vec![1, 2])?.to_vec::<f64>()?, vec![1.5, 3.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn mean(input: &Array, labels: Option<&Array>, index: impl Into<Index>) -> Result<Array> {
    let p = prep(input, labels, &index.into(), "mean")?;
    if p.x.dtype().is_complex() {
        return complex::mean(&p);
    }
    let (_, _, m) = means(&p)?;
    if is_single(&p.g) {
        return m.reshape(());
    }
    finish(&m, &p.g)
}

/// SciPy's `ndimage.variance(input, labels, index)`: the population variance of each label
/// (two passes, centred on the label's mean, in float64; NaN for absent labels).
pub fn variance(input: &Array, labels: Option<&Array>, index: impl Into<Index>) -> Result<Array> {
    let p = prep(input, labels, &index.into(), "variance")?;
    if p.x.dtype().is_complex() {
        return complex::variance(&p);
    }
    let v = var_slots(&p)?;
    if is_single(&p.g) {
        return v.reshape(());
    }
    finish(&v, &p.g)
}

fn var_slots(p: &Prep) -> Result<Array> {
    let (c, _, m) = means(p)?;
    let a = accumulate(&Pass { means: Some(&m), ..pass(p, Want { sq: true, ..Want::default() }) }, &p.x.device())?;
    a.sq.unwrap().true_divide(&c.astype(DType::Float64)?)
}

/// SciPy's `ndimage.standard_deviation(input, labels, index)`: the square root of
/// [`variance`].
///
/// ```
/// use cuprum::scipy::ndimage::standard_deviation;
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_slice(&[1.0, 3.0, 10.0], &[3], &dev)?;
/// let l = cuprum::from_slice(&[1, 1, 2], &[3], &dev)?;
/// assert_eq!(standard_deviation(&x, Some(&l), vec![1, 2])?.to_vec::<f64>()?, vec![1.0, 0.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn standard_deviation(input: &Array, labels: Option<&Array>, index: impl Into<Index>) -> Result<Array> {
    let p = prep(input, labels, &index.into(), "standard_deviation")?;
    if p.x.dtype().is_complex() {
        return complex::variance(&p)?.sqrt();
    }
    let v = var_slots(&p)?.sqrt()?;
    if is_single(&p.g) {
        return v.reshape(());
    }
    finish(&v, &p.g)
}

/// Minimum and maximum keys per slot; with `positions`, their first positions too.
struct Extremes {
    min: Array,
    max: Array,
    minpos: Option<Array>,
    maxpos: Option<Array>,
}

/// `op` names the reduction in SciPy's error for one empty group ("minimum" or "maximum").
fn extremes(p: &Prep, positions: bool, op: &str) -> Result<Extremes> {
    if p.x.dtype().is_complex() {
        return complex::extremes(p, positions);
    }
    let dev = p.x.device();
    let a = accumulate(&pass(p, Want { count: true, minmax: true, ..Want::default() }), &dev)?;
    let (mut kmin, kmax) = (a.minkey.unwrap(), a.maxkey.unwrap());
    let count = a.count.unwrap();
    if is_single(&p.g) && count.to_device(&Device::Cpu)?.to_vec::<i64>()?.first() == Some(&0) {
        // One group with no element is SciPy's `vals.min()` of nothing (a read of one count).
        return Err(Error::Value(format!("zero-size array to reduction operation {op} which has no identity")));
    }
    if is_single(&p.g) && p.x.dtype().is_float() {
        // One group is SciPy's `vals.min()`: NaN when any value is NaN (the largest key).
        let mx = kmax.to_device(&Device::Cpu)?.to_vec::<u64>()?;
        if mx.first() == Some(&u64::MAX) {
            kmin = kmax.copy()?;
        }
    }
    let (minpos, maxpos) = if positions {
        let b =
            accumulate(&Pass { keys: Some((&kmin, &kmax)), ..pass(p, Want { pos: true, ..Want::default() }) }, &dev)?;
        // Absent labels: position 0 (SciPy's zeros).
        let absent = count.equal(0i64)?;
        let fix = |a: Array| -> Result<Array> { crate::where_(&absent, &crate::zeros(&[], DType::Int64, &dev)?, &a) };
        (Some(fix(b.minpos.unwrap())?), Some(fix(b.maxpos.unwrap())?))
    } else {
        (None, None)
    };
    let dt = p.x.dtype();
    // Absent labels: 0 (SciPy's zeros).
    Ok(Extremes { min: decode_keys(&kmin, &count, dt)?, max: decode_keys(&kmax, &count, dt)?, minpos, maxpos })
}

/// SciPy's `ndimage.minimum(input, labels, index)`: the smallest value of each label, in the
/// input's dtype (0 for absent labels; NaN counts as the largest value, as in SciPy's sort,
/// except for one group, where any NaN gives NaN as `np.min`).
///
/// ```
/// use cuprum::scipy::ndimage::{maximum, minimum};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_slice(&[5i16, 2, 7, 1], &[4], &dev)?;
/// let l = cuprum::from_slice(&[1, 1, 2, 2], &[4], &dev)?;
/// assert_eq!(minimum(&x, Some(&l), vec![1, 2, 3])?.to_vec::<i16>()?, vec![2, 1, 0]);
/// assert_eq!(maximum(&x, Some(&l), 2)?.item::<i16>()?, 7);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn minimum(input: &Array, labels: Option<&Array>, index: impl Into<Index>) -> Result<Array> {
    let p = prep(input, labels, &index.into(), "minimum")?;
    let e = extremes(&p, false, "minimum")?;
    shape_result(&e.min, &p.g)
}

/// SciPy's `ndimage.maximum(input, labels, index)`: the largest value of each label (see
/// [`minimum`]).
pub fn maximum(input: &Array, labels: Option<&Array>, index: impl Into<Index>) -> Result<Array> {
    let p = prep(input, labels, &index.into(), "maximum")?;
    let e = extremes(&p, false, "maximum")?;
    shape_result(&e.max, &p.g)
}

fn shape_result(a: &Array, g: &Groups) -> Result<Array> {
    if is_single(g) {
        // One group: its row ([] or [ndim]).
        return a.reshape(&a.shape()[1..]);
    }
    finish(a, g)
}

/// Flat positions (int64 [k]) as coordinates (int64 [k, ndim]).
fn unravel(pos: &Array, shape: &[usize]) -> Result<Array> {
    let nd = shape.len();
    let dev = pos.device();
    let mut cols = Vec::with_capacity(nd);
    let mut rest = pos.view();
    for d in (0..nd).rev() {
        let n = shape[d].max(1) as i64;
        cols.push(rest.remainder(n)?);
        rest = rest.floor_divide(n)?;
    }
    cols.reverse();
    if cols.is_empty() {
        return crate::zeros(&[pos.size(), 0], DType::Int64, &dev);
    }
    let refs: Vec<&Array> = cols.iter().collect();
    crate::stack(&refs, -1)
}

/// SciPy's `ndimage.minimum_position(input, labels, index)`: the coordinates of the first
/// (in C order) smallest value of each label, int64 of shape `index shape + [ndim]` (`[ndim]`
/// for one group; `(0, …)` for absent labels).
///
/// ```
/// use cuprum::scipy::ndimage::{maximum_position, minimum_position};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_slice(&[5.0, 2.0, 7.0, 1.0], &[2, 2], &dev)?;
/// assert_eq!(minimum_position(&x, None, None)?.to_vec::<i64>()?, vec![1, 1]);
/// assert_eq!(maximum_position(&x, None, None)?.to_vec::<i64>()?, vec![1, 0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn minimum_position(input: &Array, labels: Option<&Array>, index: impl Into<Index>) -> Result<Array> {
    let p = prep(input, labels, &index.into(), "minimum_position")?;
    let e = extremes(&p, true, "minimum")?;
    shape_result(&unravel(&e.minpos.unwrap(), p.x.shape())?, &p.g)
}

/// SciPy's `ndimage.maximum_position(input, labels, index)` (see [`minimum_position`]).
pub fn maximum_position(input: &Array, labels: Option<&Array>, index: impl Into<Index>) -> Result<Array> {
    let p = prep(input, labels, &index.into(), "maximum_position")?;
    let e = extremes(&p, true, "maximum")?;
    shape_result(&unravel(&e.maxpos.unwrap(), p.x.shape())?, &p.g)
}

/// SciPy's `ndimage.extrema(input, labels, index)`: minimum, maximum, minimum position and
/// maximum position (as the four functions give them).
pub fn extrema(input: &Array, labels: Option<&Array>, index: impl Into<Index>) -> Result<(Array, Array, Array, Array)> {
    let p = prep(input, labels, &index.into(), "extrema")?;
    let e = extremes(&p, true, "minimum")?;
    Ok((
        shape_result(&e.min, &p.g)?,
        shape_result(&e.max, &p.g)?,
        shape_result(&unravel(&e.minpos.unwrap(), p.x.shape())?, &p.g)?,
        shape_result(&unravel(&e.maxpos.unwrap(), p.x.shape())?, &p.g)?,
    ))
}

/// SciPy's `ndimage.center_of_mass(input, labels, index)`: per label, `Σ v·coordinate / Σ v`
/// along each axis, float64 of shape `index shape + [ndim]` (`[ndim]` for one group; NaN for
/// absent labels), from one pass that accumulates the sums and the weighted coordinates.
///
/// ```
/// use cuprum::scipy::ndimage::center_of_mass;
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_slice(&[0.0, 1.0, 0.0, 3.0], &[2, 2], &dev)?;
/// assert_eq!(center_of_mass(&x, None, None)?.to_vec::<f64>()?, vec![0.75, 1.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn center_of_mass(input: &Array, labels: Option<&Array>, index: impl Into<Index>) -> Result<Array> {
    let p = prep(input, labels, &index.into(), "center_of_mass")?;
    if p.x.dtype().is_complex() {
        return complex::center_of_mass(&p);
    }
    let a = accumulate(&pass(&p, Want { sum: true, com: true, ..Want::default() }), &p.x.device())?;
    let (s, c) = (a.sum.unwrap(), a.com.unwrap());
    let k = p.g.k;
    let r = c.true_divide(&s.reshape([k, 1])?)?;
    let r = if p.x.ndim() == 0 { r.slice(crate::s![.., ..0])? } else { r };
    shape_result(&r, &p.g)
}

pub use extra::{
    find_objects, histogram, labeled_comprehension, median, value_indices, value_indices_with, ValueIndicesOptions,
};

mod extra;
