//! `unique` on the CPU: a stable radix sort in the element's own type (NumPy's order), with
//! the permutation when indices or the inverse are wanted, then one pass over the runs of
//! equal keys.

use super::Unique;
use crate::array::Array;
use crate::backend::cpu::keys::{by_domain, by_native, Key, Native};
use crate::backend::cpu::values::{from_values, values};
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::sort::cpu::{argsort_native, sort_native};
use rayon::prelude::*;
use std::cmp::Ordering;

pub(crate) fn unique(a: &Array, return_index: bool, return_inverse: bool, return_counts: bool) -> Result<Unique> {
    let h = a.ravel()?.as_contiguous()?;
    let n = h.size();
    if n > u32::MAX as usize {
        return unique_wide(a, return_index, return_inverse, return_counts);
    }
    let i64s = |v: &[i64], len: usize| from_values(v, &[len], DType::Int64);
    by_native!(h.dtype(), T => {
        let v: Vec<T> = h.to_vec()?;
        let mut uniq: Vec<T> = Vec::new();
        let mut first: Vec<i64> = Vec::new();
        let mut counts: Vec<i64> = Vec::new();
        let mut inverse: Vec<i64> = Vec::new();
        if return_index || return_inverse {
            // The stable permutation: the first of each run is the first occurrence.
            let order = argsort_native(&v);
            drop(v);
            if return_inverse {
                inverse = vec![0i64; n];
            }
            let mut last = None;
            for &(x, i) in &order {
                let k = x.key();
                if last != Some(k) {
                    last = Some(k);
                    uniq.push(x);
                    first.push(i as i64);
                    counts.push(0);
                }
                *counts.last_mut().expect("pushed above") += 1;
                if return_inverse {
                    inverse[i as usize] = uniq.len() as i64 - 1;
                }
            }
        } else {
            let sorted = sort_native(v);
            let mut last = None;
            for &x in &sorted {
                let k = x.key();
                if last != Some(k) {
                    last = Some(k);
                    uniq.push(x);
                    counts.push(0);
                }
                *counts.last_mut().expect("pushed above") += 1;
            }
        }
        let len = uniq.len();
        Ok(Unique {
            values: crate::from_vec(uniq, &Device::Cpu)?,
            index: if return_index { Some(i64s(&first, len)?) } else { None },
            inverse: if return_inverse { Some(from_values(&inverse, a.shape(), DType::Int64)?) } else { None },
            counts: if return_counts { Some(i64s(&counts, len)?) } else { None },
        })
    })
}

/// [`unique`] for more than 2**32 elements: an index sort in the wide domains.
fn unique_wide(a: &Array, return_index: bool, return_inverse: bool, return_counts: bool) -> Result<Unique> {
    let h = a.ravel()?.as_contiguous()?;
    let n = h.size();
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
            values: from_values(&uniq, &[uniq.len()], h.dtype())?,
            index: if return_index { Some(from_values(&first, &[first.len()], DType::Int64)?) } else { None },
            inverse: if return_inverse { Some(from_values(&inverse, a.shape(), DType::Int64)?) } else { None },
            counts: if return_counts { Some(from_values(&counts, &[counts.len()], DType::Int64)?) } else { None },
        })
    })
}
