//! The CPU sort: NumPy's order (NaNs last, -0.0 equal to 0.0) over the wide domains (i64,
//! u64, f64), lanes in parallel (rayon), a single long lane with a parallel stable merge sort.
//! The same signatures as `sort/cuda.rs`.

use crate::array::Array;
use crate::backend::cpu::{load, ptr, store, Wide};
use crate::backend::storage::CpuLocks;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::Result;
use rayon::prelude::*;
use std::cmp::Ordering;

/// Element types the CPU sorts in: NumPy's order (NaN after everything, -0.0 == 0.0).
pub(crate) trait Key: Copy + PartialOrd + Send + Sync + 'static {
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

/// Runs `$body` with `$W` the wide type (i64, u64 or f64) of dtype `$dt`'s domain.
macro_rules! by_domain {
    ($dt:expr, $W:ident => $body:expr) => {
        match $crate::backend::cpu::domain($dt) {
            $crate::backend::cpu::Domain::I => {
                type $W = i64;
                $body
            }
            $crate::backend::cpu::Domain::U => {
                type $W = u64;
                $body
            }
            $crate::backend::cpu::Domain::F => {
                type $W = f64;
                $body
            }
        }
    };
}

pub(crate) use by_domain;

/// The elements of the CPU array `a` in C order, converted to `W`.
pub(crate) fn values<W: Wide>(a: &Array) -> Result<Vec<W>> {
    let host = a.as_contiguous()?;
    let mut v = vec![W::default(); host.size()];
    let _l = CpuLocks::new(&[&host.storage], &[]);
    // SAFETY: `host` is a C-contiguous CPU array of `v.len()` elements, read-locked above.
    unsafe { load(host.dtype(), ptr(&host).get(), host.itemsize() as isize, &mut v) };
    Ok(v)
}

/// A new C-contiguous CPU array of `shape` and `dtype` holding `v`.
pub(crate) fn from_values<W: Wide>(v: &[W], shape: &[usize], dtype: DType) -> Result<Array> {
    let out = Array::alloc(shape, dtype, Device::Cpu, false)?;
    store_values(&out, v)?;
    Ok(out)
}

/// Writes `v` into the C-contiguous CPU array `out` (of `v.len()` elements).
pub(crate) fn store_values<W: Wide>(out: &Array, v: &[W]) -> Result<()> {
    debug_assert!(out.is_c_contiguous() && out.size() == v.len());
    let _l = CpuLocks::new(&[], &[&out.storage]);
    // SAFETY: `out` is a C-contiguous CPU array of `v.len()` elements, write-locked above.
    unsafe { store(out.dtype(), ptr(out).get(), out.itemsize() as isize, v) };
    Ok(())
}

/// Sorts the contiguous lanes (last axis) of the C-contiguous `x`: sorted keys into `keys_out`
/// (the dtype of `x`) and/or the sorting indices into `idx_out` (int64, within each lane).
/// Stable.
pub(crate) fn sort_lanes(x: &Array, keys_out: Option<&Array>, idx_out: Option<&Array>) -> Result<()> {
    let len = *x.shape().last().unwrap_or(&1);
    if x.size() == 0 || len == 0 {
        return Ok(());
    }
    by_domain!(x.dtype(), W => {
        let mut v: Vec<W> = values(x)?;
        match idx_out {
            None => {
                // Lanes in parallel; a single long lane with a parallel (stable) merge sort.
                if v.len() == len {
                    v.par_sort_by(|a, b| a.ord(b));
                } else {
                    v.par_chunks_mut(len).for_each(|l| l.sort_by(|a, b| a.ord(b)));
                }
                if let Some(k) = keys_out {
                    store_values(k, &v)?;
                }
            }
            Some(io) => {
                let mut idx: Vec<i64> = Vec::with_capacity(v.len());
                for lane in v.chunks(len) {
                    let mut ix: Vec<i64> = (0..len as i64).collect();
                    ix.par_sort_by(|&i, &j| lane[i as usize].ord(&lane[j as usize]));
                    idx.extend(ix);
                }
                if let Some(k) = keys_out {
                    let sorted: Vec<W> = idx.iter().enumerate().map(|(e, &i)| v[e / len * len + i as usize]).collect();
                    store_values(k, &sorted)?;
                }
                store_values(io, &idx)?;
            }
        }
    });
    Ok(())
}

/// Insertion indices (int64, into `out` of `q`'s shape) of the C-contiguous `q` in the
/// sorted 1-d `sorted` (both of one dtype): the first (`right`: last) place that keeps it
/// sorted.
pub(crate) fn searchsorted(sorted: &Array, q: &Array, right: bool, out: &Array) -> Result<()> {
    let res: Vec<i64> = by_domain!(sorted.dtype(), W => {
        let s: Vec<W> = values(sorted)?;
        let q: Vec<W> = values(q)?;
        q.iter()
            .map(|x| {
                if right {
                    s.partition_point(|e| e.ord(x) != Ordering::Greater) as i64
                } else {
                    s.partition_point(|e| e.ord(x) == Ordering::Less) as i64
                }
            })
            .collect()
    });
    store_values(out, &res)
}
