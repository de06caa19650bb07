//! `unique` on the CPU: an index sort (stable, NumPy's order), then one pass over runs.

use super::Unique;
use crate::array::Array;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::sort::cpu::{by_domain, from_values, values, Key};
use rayon::prelude::*;
use std::cmp::Ordering;

pub(crate) fn unique(a: &Array, return_index: bool, return_inverse: bool, return_counts: bool) -> Result<Unique> {
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
