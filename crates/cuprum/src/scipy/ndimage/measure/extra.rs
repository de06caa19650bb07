//! The measurements that gather each label's elements rather than accumulate them: `median`,
//! `histogram`, `labeled_comprehension`, `value_indices`, and `find_objects` (bounding boxes
//! from the accumulation pass). The gathering runs on the input's device with the select and
//! sort families' kernels (a stable sort by slot keeps each label's elements in C order).

use super::{accumulate, finish, is_single, prep, Groups, Index, Pass, Prep, Slots, Want};
use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use std::ops::Range;

/// Each element's slot (int64; -1: none) for labelled inputs.
pub(super) fn slots_of(p: &Prep) -> Result<Array> {
    let dev = p.x.device();
    let Some(l) = &p.labels else {
        return crate::zeros(p.x.shape(), DType::Int64, &dev);
    };
    let l = l.astype(DType::Int64)?;
    let none = crate::full(&[], -1i64, DType::Int64, &dev)?;
    let zero = crate::zeros(&[], DType::Int64, &dev)?;
    Ok(match &p.g.slots {
        Slots::Every => crate::zeros(p.x.shape(), DType::Int64, &dev)?,
        Slots::Positive => crate::where_(&l.greater(0i64)?, &zero, &none)?,
        Slots::Equal(v) => crate::where_(&l.equal(*v)?, &zero, &none)?,
        Slots::Range { lo } => {
            let d = l.subtract(*lo)?;
            let ok = d.greater_equal(0i64)?.logical_and(&d.less(p.g.k as i64)?)?;
            crate::where_(&ok, &d, &none)?
        }
        Slots::Lut { lo, lut } => {
            let d = l.subtract(*lo)?;
            let ok = d.greater_equal(0i64)?.logical_and(&d.less(lut.len() as i64)?)?;
            let table = crate::from_slice(lut, &[lut.len()], &dev)?.astype(DType::Int64)?;
            let at = crate::where_(&ok, &d, &zero)?;
            let s = crate::take(&table, &at.ravel()?, None)?.reshape(p.x.shape())?;
            crate::where_(&ok, &s, &none)?
        }
    })
}

/// The values of the elements that have a slot, sorted by slot (stably: C order within a
/// slot), with their slots and the count of each slot.
fn by_slot(p: &Prep, positions: bool) -> Result<(Array, Array, Option<Array>, Array)> {
    let s = slots_of(p)?.ravel()?;
    let ok = s.greater_equal(0i64)?;
    let v = crate::extract(&ok, &p.x.ravel()?)?;
    let sv = crate::extract(&ok, &s)?;
    let order = crate::argsort(&sv, None)?;
    let vals = crate::take(&v, &order, None)?;
    let slots = crate::take(&sv, &order, None)?;
    let pos = if positions {
        let all = crate::arange(p.x.size() as i64, &p.x.device())?;
        Some(crate::take(&crate::extract(&ok, &all)?, &order, None)?)
    } else {
        None
    };
    let counts = crate::bincount_with(&sv, &crate::BincountOptions { minlength: p.g.k, ..Default::default() })?;
    Ok((vals, slots, pos, counts))
}

/// SciPy's `ndimage.median(input, labels, index)`: the median of each label's values (float64
/// for integer and bool inputs, the input's dtype for floats).
///
/// For one group it is `np.median` (NaN when empty). For a list index it follows SciPy's
/// lookup, including its value for a label absent from the image: the smallest value of the
/// smallest label present in `labels` (NaN sorting last).
///
/// ```
/// use cuprum::scipy::ndimage::median;
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_slice(&[1.0, 5.0, 2.0, 8.0, 4.0], &[5], &dev)?;
/// let l = cuprum::from_slice(&[1, 1, 1, 2, 2], &[5], &dev)?;
/// assert_eq!(median(&x, Some(&l), vec![1, 2])?.to_vec::<f64>()?, vec![2.0, 6.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn median(input: &Array, labels: Option<&Array>, index: impl Into<Index>) -> Result<Array> {
    let p = prep(input, labels, &index.into(), "median")?;
    let dev = p.x.device();
    let dt = p.x.dtype();
    // Complex values keep their dtype, in NumPy's order (real part, then imaginary part).
    let out_dt = if dt.is_inexact() { dt } else { DType::Float64 };
    if is_single(&p.g) {
        let s = slots_of(&p)?.ravel()?;
        let v = crate::extract(&s.greater_equal(0i64)?, &p.x.ravel()?)?;
        if v.size() == 0 {
            return crate::full(&[], f64::NAN, out_dt, &dev);
        }
        if !dt.is_complex() {
            return crate::median(&v, None)?.astype(out_dt);
        }
    }
    let k = p.g.k;
    if k == 0 {
        return finish(&crate::zeros(&[0], out_dt, &dev)?, &p.g);
    }
    // Sorted by slot, then value.
    let s = slots_of(&p)?.ravel()?;
    let ok = s.greater_equal(0i64)?;
    let v = crate::extract(&ok, &p.x.ravel()?)?;
    let sv = crate::extract(&ok, &s)?;
    let vals = crate::take(&v, &crate::lexsort(&[&v, &sv])?, None)?;
    let counts = crate::bincount_with(&sv, &crate::BincountOptions { minlength: k, ..Default::default() })?;
    let ends = crate::cumsum(&counts, None)?;
    let starts = ends.subtract(&counts)?;
    let half = counts.subtract(1i64)?.floor_divide(2i64)?;
    let present = counts.greater(0i64)?;
    let zero = crate::zeros(&[], DType::Int64, &dev)?;
    let lo = crate::where_(&present, &starts.add(&half)?, &zero)?;
    let hi = crate::where_(&present, &ends.subtract(1i64)?.subtract(&half)?, &zero)?;
    let vals = if vals.size() == 0 { crate::zeros(&[1], dt, &dev)? } else { vals };
    let a = crate::take(&vals, &lo, None)?.astype(out_dt)?;
    let b = crate::take(&vals, &hi, None)?.astype(out_dt)?;
    let m = a.add(&b)?.true_divide(2.0)?.astype(out_dt)?;
    // Absent labels: SciPy reads the first element of its (label, value) order over the
    // whole image.
    let fallback = absent_value(&p)?.astype(out_dt)?;
    let m = crate::where_(&present, &m, &fallback)?;
    finish(&m, &p.g)
}

/// SciPy's median of an absent label: the smallest value (NaN last) of the smallest label.
fn absent_value(p: &Prep) -> Result<Array> {
    let dev = p.x.device();
    let Some(l) = &p.labels else {
        return crate::zeros(&[], p.x.dtype(), &dev);
    };
    let lmin = l.min(None)?;
    let v = crate::extract(&l.equal(&lmin)?, &p.x)?;
    crate::sort(&v, None)?.slice(crate::s![0])
}

/// SciPy's `ndimage.histogram(input, min, max, bins, labels, index)`: per label, the counts of
/// its values in `bins` equal bins between `min` and `max` (NumPy's `histogram`: the last bin
/// closed, values outside ignored), int64 of shape `index shape + [bins]` (`[bins]` for one
/// group). Deviation: SciPy gives `None` for a label absent from the image; here its counts
/// are zeros.
///
/// ```
/// use cuprum::scipy::ndimage::histogram;
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_slice(&[0.5, 1.5, 1.7, 3.0, 2.2], &[5], &dev)?;
/// let l = cuprum::from_slice(&[1, 1, 2, 2, 2], &[5], &dev)?;
/// let h = histogram(&x, 0.0, 3.0, 3, Some(&l), vec![1, 2])?;
/// assert_eq!(h.to_vec::<i64>()?, vec![1, 1, 0, 0, 1, 2]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn histogram(
    input: &Array,
    min: f64,
    max: f64,
    bins: usize,
    labels: Option<&Array>,
    index: impl Into<Index>,
) -> Result<Array> {
    let p = prep(input, labels, &index.into(), "histogram")?;
    let dev = p.x.device();
    if bins == 0 {
        return Err(Error::Value("`bins` must be positive, when an integer".into()));
    }
    if min > max {
        // SciPy bins with `numpy.histogram(vals, linspace(min, max, bins + 1))`: decreasing edges.
        return Err(Error::Value("`bins` must increase monotonically, when an array".into()));
    }
    let edges = crate::linspace(min, max, bins + 1, DType::Float64, &dev)?;
    let s = slots_of(&p)?.ravel()?;
    // Complex values are binned by their real parts (NumPy's cast, as SciPy's histogram).
    let v = if p.x.dtype().is_complex() { p.x.real() } else { p.x.view() }.ravel()?.astype(DType::Float64)?;
    let mut b = crate::searchsorted(&edges, &v, crate::Side::Right)?.subtract(1i64)?;
    // The last edge belongs to the last bin.
    let last = v.equal(max)?;
    b = crate::where_(&last, &crate::full(&[], (bins - 1) as i64, DType::Int64, &dev)?, &b)?;
    let inside = b.greater_equal(0i64)?.logical_and(&b.less(bins as i64)?)?.logical_and(&v.greater_equal(min)?)?;
    let ok = inside.logical_and(&s.greater_equal(0i64)?)?;
    let key = crate::extract(&ok, &s.multiply(bins as i64)?.add(&b)?)?;
    let k = p.g.k;
    let counts = crate::bincount_with(&key, &crate::BincountOptions { minlength: k * bins, ..Default::default() })?
        .reshape([k, bins])?;
    if is_single(&p.g) {
        return counts.reshape([bins]);
    }
    finish(&counts, &p.g)
}

/// SciPy's `ndimage.labeled_comprehension(input, labels, index, func, out_dtype, default)`:
/// `func` applied to the values of each label (gathered on the device, sorted by label with C
/// order kept within a label, then read to the host once as `T`), `default` for labels absent
/// from the image. Returns an array of `O` on the input's device (0-d for one group).
///
/// ```
/// use cuprum::scipy::ndimage::labeled_comprehension;
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_slice(&[1.0, 5.0, 2.0, 8.0], &[4], &dev)?;
/// let l = cuprum::from_slice(&[1, 1, 2, 2], &[4], &dev)?;
/// let spread = |v: &[f64]| v.iter().cloned().fold(f64::MIN, f64::max) - v.iter().cloned().fold(f64::MAX, f64::min);
/// let r = labeled_comprehension(&x, Some(&l), vec![1, 2, 3], spread, -1.0)?;
/// assert_eq!(r.to_vec::<f64>()?, vec![4.0, 6.0, -1.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn labeled_comprehension<T: Element, O: Element, F: FnMut(&[T]) -> O>(
    input: &Array,
    labels: Option<&Array>,
    index: impl Into<Index>,
    mut func: F,
    default: O,
) -> Result<Array> {
    let p = prep(input, labels, &index.into(), "labeled_comprehension")?;
    let dev = p.x.device();
    let (vals, _, _, counts) = by_slot(&p, false)?;
    let v: Vec<T> = vals.to_device(&Device::Cpu)?.to_vec_as::<T>()?;
    let c: Vec<i64> = counts.to_device(&Device::Cpu)?.to_vec::<i64>()?;
    if is_single(&p.g) {
        return crate::scalar(func(&v), &dev);
    }
    let mut per_slot = Vec::with_capacity(c.len());
    let mut off = 0usize;
    for &n in &c {
        let n = n as usize;
        per_slot.push(if n == 0 { default } else { func(&v[off..off + n]) });
        off += n;
    }
    let out: Vec<O> = match &p.g.gather {
        Some(g) => g.iter().map(|&s| per_slot[s as usize]).collect(),
        None => per_slot,
    };
    crate::from_slice(&out, &p.g.shape, &dev)
}

/// SciPy's `ndimage.find_objects(input, max_label)`: for labels `1..=max_label` (0: the
/// largest label), the bounding box of each as one range per axis, or `None` for a label
/// absent from the image. The labels must be integers (TypeError otherwise).
///
/// ```
/// use cuprum::scipy::ndimage::find_objects;
/// let dev = cuprum::Device::default_device();
/// let l = cuprum::from_slice(&[0, 2, 2, 0, 0, 3], &[2, 3], &dev)?;
/// assert_eq!(find_objects(&l, 0)?, vec![None, Some(vec![0..1, 1..3]), Some(vec![1..2, 2..3])]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn find_objects(input: &Array, max_label: usize) -> Result<Vec<Option<Vec<Range<usize>>>>> {
    if !(input.dtype().is_integer() || input.dtype() == DType::Bool) {
        return Err(Error::Type(format!("find_objects: labels must be integers, not {}", input.dtype())));
    }
    let l = input.as_contiguous()?;
    let max = if max_label > 0 {
        max_label
    } else if l.size() == 0 {
        0
    } else {
        l.max(None)?.to_device(&Device::Cpu)?.astype(DType::Int64)?.item::<i64>()?.max(0) as usize
    };
    if max == 0 || l.size() == 0 {
        return Ok(vec![None; max]);
    }
    let g = Groups { slots: Slots::Range { lo: 1 }, k: max, gather: None, shape: vec![max] };
    let nd = l.ndim();
    let a = accumulate(
        &Pass {
            x: None,
            labels: Some(&l),
            shape: l.shape(),
            groups: &g,
            want: Want { bbox: true, ..Want::default() },
            means: None,
            keys: None,
        },
        &l.device(),
    )?;
    let lo = a.bblo.unwrap().to_device(&Device::Cpu)?.to_vec::<i64>()?;
    let hi = a.bbhi.unwrap().to_device(&Device::Cpu)?.to_vec::<i64>()?;
    let w = nd.max(1);
    Ok((0..max)
        .map(|i| {
            if hi[i * w] < 0 {
                None
            } else {
                Some((0..nd).map(|d| lo[i * w + d] as usize..hi[i * w + d] as usize + 1).collect())
            }
        })
        .collect())
}

/// SciPy's `ndimage.value_indices(arr, ignore_value)`: for each distinct value of the integer
/// array `arr` (ascending; `ignore_value` left out), the indices of its elements as one int64
/// array per axis (in C order, on `arr`'s device), as `np.nonzero(arr == value)` gives them.
/// Non-integer arrays are a ValueError, as in SciPy.
///
/// ```
/// use cuprum::scipy::ndimage::{value_indices, value_indices_with, ValueIndicesOptions};
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::from_slice(&[0, 2, 2, 1, 0, 2], &[2, 3], &dev)?;
/// assert_eq!(value_indices(&a)?.len(), 3); // 0, 1 and 2
/// let v = value_indices_with(&a, &ValueIndicesOptions { ignore_value: Some(0) })?;
/// assert_eq!(v.len(), 2);
/// assert_eq!(v[1].0, 2);
/// assert_eq!(v[1].1[0].to_vec::<i64>()?, vec![0, 0, 1]);
/// assert_eq!(v[1].1[1].to_vec::<i64>()?, vec![1, 2, 2]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn value_indices(arr: &Array) -> Result<Vec<(i64, Vec<Array>)>> {
    value_indices_with(arr, &ValueIndicesOptions::default())
}

/// [`value_indices_with`]'s keyword.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ValueIndicesOptions {
    /// A value left out of the result (SciPy's `ignore_value=None`).
    pub ignore_value: Option<i64>,
}

/// SciPy's `ndimage.value_indices(arr, ignore_value=...)`: as [`value_indices`].
pub fn value_indices_with(arr: &Array, opts: &ValueIndicesOptions) -> Result<Vec<(i64, Vec<Array>)>> {
    let ignore_value = opts.ignore_value;
    if !arr.dtype().is_integer() {
        return Err(Error::Value("Parameter 'arr' must be an integer array".into()));
    }
    let flat = arr.ravel()?;
    let order = crate::argsort(&flat, None)?;
    let sorted: Vec<i64> = crate::take(&flat, &order, None)?.to_device(&Device::Cpu)?.to_vec_as::<i64>()?;
    let nd = arr.ndim();
    let shape = arr.shape().to_vec();
    let coords = super::unravel(&order, &shape)?; // [n, nd]
    let mut out = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let v = sorted[i];
        let mut j = i;
        while j < sorted.len() && sorted[j] == v {
            j += 1;
        }
        if ignore_value != Some(v) {
            let idx: Result<Vec<Array>> = (0..nd)
                .map(|d| coords.slice(crate::s![i as isize..j as isize, d as isize]).and_then(|a| a.as_contiguous()))
                .collect();
            out.push((v, idx?));
        }
        i = j;
    }
    Ok(out)
}
