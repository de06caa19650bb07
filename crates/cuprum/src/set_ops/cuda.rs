//! `unique` on a GPU, from other families' kernels: the radix sort, a selection and a scatter.

use super::Unique;
use crate::array::Array;
use crate::core::dtype::DType;
use crate::core::error::Result;

/// `unique` on a GPU: radix sort (with the permutation when indices are asked for), a mask of
/// the first element of each run of equal values (NaNs equal), then selections.
pub(crate) fn unique(a: &Array, return_index: bool, return_inverse: bool, return_counts: bool) -> Result<Unique> {
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
    let sorted = Array::alloc(x.shape(), x.dtype(), x.device(), false)?;
    let perm = if return_index || return_inverse {
        Some(Array::alloc(x.shape(), DType::Int64, x.device(), false)?)
    } else {
        None
    };
    crate::sort::cuda::sort_lanes(&x, Some(&sorted), perm.as_ref())?;
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
            Some(crate::diff(&crate::concatenate(&[p, &end], 0)?)?)
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
