//! Set operations with NumPy's semantics: `unique` (with index, inverse and counts) and
//! `isin`.
//!
//! `unique` sorts on the CPU (`cpu.rs`) or, on a GPU, uses the radix sort, a mask of run
//! starts and selections (`cuda.rs`); `isin` is built from `unique`, `searchsorted` and a
//! gather on either device.

mod cpu;
mod cuda;

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::sort::{searchsorted, Side};

/// The result of [`unique_with`]: the sorted unique values and, as asked, NumPy's
/// `return_index`, `return_inverse` and `return_counts` arrays (int64).
pub struct Unique {
    pub values: Array,
    pub index: Option<Array>,
    pub inverse: Option<Array>,
    pub counts: Option<Array>,
}

/// `unique`'s keywords; `Default` is NumPy's (nothing but the values).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct UniqueOptions {
    pub return_index: bool,
    pub return_inverse: bool,
    pub return_counts: bool,
}

/// NumPy's `unique(a)`: the sorted unique values of the flattened array (NaNs collapse into
/// one, at the end).
///
/// ```
/// let dev = cuprum::Device::default_device();
/// let u = cuprum::unique(&cuprum::from_vec(vec![2i64, 1, 2, 5, 1, 2], &dev)?)?;
/// assert_eq!(u.to_vec::<i64>()?, vec![1, 2, 5]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn unique(a: &Array) -> Result<Array> {
    Ok(unique_with(a, &UniqueOptions::default())?.values)
}

/// NumPy's `unique(a, return_index=..., return_inverse=..., return_counts=...)`.
///
/// ```
/// use cuprum::UniqueOptions;
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::from_vec(vec![2i64, 1, 2, 5, 1, 2], &dev)?;
/// let u = cuprum::unique_with(&a, &UniqueOptions { return_index: true, return_inverse: true, return_counts: true })?;
/// assert_eq!(u.values.to_vec::<i64>()?, vec![1, 2, 5]);
/// assert_eq!(u.index.unwrap().to_vec::<i64>()?, vec![1, 0, 3]);
/// assert_eq!(u.inverse.unwrap().to_vec::<i64>()?, vec![1, 0, 1, 2, 0, 1]);
/// assert_eq!(u.counts.unwrap().to_vec::<i64>()?, vec![2, 3, 1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn unique_with(a: &Array, opts: &UniqueOptions) -> Result<Unique> {
    let UniqueOptions { return_index, return_inverse, return_counts } = *opts;
    if a.dtype().is_complex() {
        return unique_complex(a, return_index, return_inverse, return_counts);
    }
    match a.device() {
        Device::Cpu => cpu::unique(a, return_index, return_inverse, return_counts),
        Device::Cuda(_) => cuda::unique(a, return_index, return_inverse, return_counts),
    }
}

/// [`unique`] of complex values, from the complex sort (NumPy's order) and array operations on
/// `a`'s device. Every value with a NaN part is one value, placed last: the first of them in
/// NumPy's order, as NumPy 2.4's sorting path (taken when an index, inverse or counts are asked
/// for; without them its hashing path keeps the first in `a` instead).
fn unique_complex(a: &Array, return_index: bool, return_inverse: bool, return_counts: bool) -> Result<Unique> {
    let dev = a.device();
    let flat = a.ravel()?;
    let n = flat.size();
    let order = crate::argsort(&flat, None)?;
    let aux = crate::take(&flat, &order, None)?;
    let nan = crate::isnan(&aux)?;
    let t = crate::full(&[1], true, DType::Bool, &dev)?;
    let f = crate::full(&[1], false, DType::Bool, &dev)?;
    // Run starts in sorted order: a value unlike the one before, or the first with a NaN
    // (NaN-holding values sort last).
    let (head, tail) = (aux.slice(crate::s![1..])?, aux.slice(crate::s![..-1])?);
    let differs = crate::concatenate(&[&t, &crate::not_equal(&head, &tail)?], 0)?.slice(crate::s![..n as isize])?;
    let nan_before = crate::concatenate(&[&f, &nan.slice(crate::s![..-1])?], 0)?.slice(crate::s![..n as isize])?;
    let start = differs.logical_and(&nan.logical_not()?)?.logical_or(&nan.logical_and(&nan_before.logical_not()?)?)?;
    let starts = crate::extract(&start, &crate::arange(n as i64, &dev)?)?;
    // First occurrences: the stable sort puts a value's first element first in its run.
    let index = crate::take(&order, &starts, None)?;
    let k = starts.size();
    let values = crate::take(&flat, &index, None)?;
    let counts = if return_counts {
        let ends = crate::concatenate(
            &[&starts.slice(crate::s![1..])?, &crate::full(&[1], n as i64, DType::Int64, &dev)?],
            0,
        )?;
        Some(ends.slice(crate::s![..k as isize])?.subtract(&starts)?)
    } else {
        None
    };
    let inverse = if return_inverse {
        // The run of each sorted element, scattered back through the permutation.
        let run = crate::cumsum(&start, None)?.subtract(1i64)?;
        Some(crate::take(&run, &crate::argsort(&order, None)?, None)?.reshape(a.shape())?)
    } else {
        None
    };
    Ok(Unique { values, index: return_index.then_some(index), inverse, counts })
}

/// NumPy's `isin(element, test_elements)`: whether each element occurs in `test_elements`
/// (compared with `==`: NaN is in nothing).
pub fn isin(element: &Array, test_elements: &Array) -> Result<Array> {
    crate::array::same_device("isin", element, test_elements)?;
    let u = unique(test_elements)?;
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
