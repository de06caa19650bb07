//! Complex inputs to the measurements, as SciPy 1.17 treats them. The accumulation pass keeps
//! float64 sums and 64-bit order keys, neither of which holds a complex value, so these are
//! built from array operations on the input's device instead:
//!
//! - `sum_labels`, `mean`, `variance`, `standard_deviation` and `center_of_mass` work for one
//!   group (no labels, no index, or one label): the complex sum (of the input's dtype), the
//!   complex128 mean, `mean(|x - mean|²)` and its square root as complex128 (SciPy's), and
//!   `Σ x·coordinate / Σ x` per axis as complex128. With a list index SciPy raises
//!   `TypeError` (its `bincount` casts the weights to float64), and so does cuprum.
//! - `minimum`, `maximum`, their positions and `extrema` follow NumPy's order of complex
//!   numbers (real part, then imaginary part), from a stable sort of each label's values:
//!   the first element of a label in ascending order is its minimum at its first position,
//!   the first in descending order its maximum at its first position.

use super::extra::slots_of;
use super::{is_single, Extremes, Prep};
use crate::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// SciPy's `TypeError` for a sum-based statistic of complex values with a list index.
fn one_group(p: &Prep) -> Result<()> {
    if is_single(&p.g) {
        return Ok(());
    }
    Err(Error::Type(format!(
        "Cannot cast array data from dtype('{}') to dtype('float64') according to the rule 'safe'",
        p.x.dtype()
    )))
}

/// The values of the one group, and their flat positions.
fn group(p: &Prep) -> Result<(Array, Array)> {
    let ok = slots_of(p)?.ravel()?.greater_equal(0i64)?;
    let all = crate::arange(p.x.size() as i64, &p.x.device())?;
    Ok((crate::extract(&ok, &p.x.ravel()?)?, crate::extract(&ok, &all)?))
}

/// `ndimage.sum_labels` of complex values: one group only, in the input's dtype.
pub(super) fn sum(p: &Prep) -> Result<Array> {
    one_group(p)?;
    group(p)?.0.sum(None)?.reshape(())
}

/// The complex128 mean of the one group and its values as complex128.
fn mean_of(p: &Prep) -> Result<(Array, Array)> {
    one_group(p)?;
    let v = group(p)?.0.astype(DType::Complex128)?;
    let m = v.sum(None)?.true_divide(v.size() as f64)?;
    Ok((m, v))
}

/// `ndimage.mean` of complex values (complex128).
pub(super) fn mean(p: &Prep) -> Result<Array> {
    mean_of(p)?.0.reshape(())
}

/// `ndimage.variance` of complex values: `mean(|x - mean|²)` as complex128.
pub(super) fn variance(p: &Prep) -> Result<Array> {
    let (m, v) = mean_of(p)?;
    let d = v.subtract(&m)?;
    d.multiply(&d.conj()?)?.sum(None)?.true_divide(v.size() as f64)?.reshape(())
}

/// `ndimage.center_of_mass` of complex values: complex128 `[ndim]`.
pub(super) fn center_of_mass(p: &Prep) -> Result<Array> {
    one_group(p)?;
    let (v, pos) = group(p)?;
    let v = v.astype(DType::Complex128)?;
    let total = v.sum(None)?;
    let mut rest = pos;
    let mut axes = Vec::with_capacity(p.x.ndim());
    for &n in p.x.shape().iter().rev() {
        let n = n.max(1) as i64;
        let c = rest.remainder(n)?.astype(DType::Float64)?;
        axes.push(v.multiply(&c)?.sum(None)?.true_divide(&total)?);
        rest = rest.floor_divide(n)?;
    }
    axes.reverse();
    if axes.is_empty() {
        return crate::zeros(&[0], DType::Complex128, &p.x.device());
    }
    crate::stack(&axes.iter().collect::<Vec<_>>(), 0)
}

/// Minimum and maximum of each slot in NumPy's complex order, with first positions: 0 and
/// position 0 for absent labels (SciPy's zeros). Shaped `[k]` like the accumulation's.
pub(super) fn extremes(p: &Prep, positions: bool) -> Result<Extremes> {
    let dev = p.x.device();
    let s = slots_of(p)?.ravel()?;
    let ok = s.greater_equal(0i64)?;
    let v = crate::extract(&ok, &p.x.ravel()?)?;
    let sv = crate::extract(&ok, &s)?;
    let pos = crate::extract(&ok, &crate::arange(p.x.size() as i64, &dev)?)?;
    let counts = crate::bincount_with(&sv, &crate::BincountOptions { minlength: p.g.k, ..Default::default() })?;
    let starts = crate::cumsum(&counts, None)?.subtract(&counts)?;
    let present = counts.greater(0i64)?;
    let at = crate::where_(&present, &starts, &crate::zeros(&[], DType::Int64, &dev)?)?;
    // Sorted by (slot, key), stably: ties keep C order, so a slot's first element has the
    // first position of its value.
    let first = |key: &Array| -> Result<(Array, Array)> {
        if v.size() == 0 {
            let z = crate::zeros(&[p.g.k], DType::Int64, &dev)?;
            return Ok((crate::zeros(&[p.g.k], v.dtype(), &dev)?, z));
        }
        let order = crate::lexsort(&[key, &sv])?;
        let (vals, at_pos) = (crate::take(&v, &order, None)?, crate::take(&pos, &order, None)?);
        let zero_v = crate::zeros(&[], v.dtype(), &dev)?;
        let zero_p = crate::zeros(&[], DType::Int64, &dev)?;
        Ok((
            crate::where_(&present, &crate::take(&vals, &at, None)?, &zero_v)?,
            crate::where_(&present, &crate::take(&at_pos, &at, None)?, &zero_p)?,
        ))
    };
    let (min, minpos) = first(&v)?;
    // Negation reverses the order of complex numbers (both parts change sign).
    let (max, maxpos) = first(&v.negative()?)?;
    Ok(Extremes { min, max, minpos: positions.then_some(minpos), maxpos: positions.then_some(maxpos) })
}
