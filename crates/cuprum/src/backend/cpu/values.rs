//! Host arrays' elements in and out of Rust vectors, in C order: converted to and from the wide
//! domains (`i64`, `u64`, `f64`: `values`, `store_values`) or in their own type
//! (`store_native`), in parallel pieces for large arrays. The CPU halves of sort, statistics,
//! set operations, selection, signal and ndimage read and write through these.

use crate::array::Array;
use crate::backend::cpu::keys::Native;
use crate::backend::cpu::{load, store, Wide, PAR_THRESHOLD};
use crate::backend::storage::CpuLocks;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::Result;
use rayon::prelude::*;

/// The elements of the CPU array `a` in C order, converted to `W`.
pub(crate) fn values<W: Wide>(a: &Array) -> Result<Vec<W>> {
    let mut v = crate::core::alloc::vec_filled(a.size(), W::default())?;
    values_into(a, &mut v)?;
    Ok(v)
}

/// Elements per piece of the parallel conversions of [`values_into`] and [`store_values`].
const PIECE: usize = 1 << 16;

/// The elements of the CPU array `a` in C order, converted to `W`, into `v` (`a.size()` long),
/// in parallel pieces for large arrays.
pub(crate) fn values_into<W: Wide>(a: &Array, v: &mut [W]) -> Result<()> {
    let host = a.as_contiguous()?;
    debug_assert_eq!(v.len(), host.size());
    let _l = CpuLocks::new(&[&host.storage], &[]);
    let (dt, isz, base) = (host.dtype(), host.itemsize(), host.cpu_ptr());
    let piece = |(i, c): (usize, &mut [W])| {
        // SAFETY: `host` is a C-contiguous CPU array of `v.len()` elements, read-locked above;
        // piece `i` is its elements `[i * PIECE, i * PIECE + c.len())`.
        unsafe { load(dt, base.get().add(i * PIECE * isz), isz as isize, c) };
    };
    if v.len() >= PAR_THRESHOLD {
        v.par_chunks_mut(PIECE).enumerate().for_each(piece);
    } else {
        v.chunks_mut(PIECE).enumerate().for_each(piece);
    }
    Ok(())
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
    let (dt, isz, base) = (out.dtype(), out.itemsize(), out.cpu_ptr());
    let piece = |(i, c): (usize, &[W])| {
        // SAFETY: `out` is a C-contiguous CPU array of `v.len()` elements, write-locked above;
        // piece `i` is its elements `[i * PIECE, i * PIECE + c.len())`, written by this call only.
        unsafe { store(dt, base.get().add(i * PIECE * isz), isz as isize, c) };
    };
    if v.len() >= PAR_THRESHOLD {
        v.par_chunks(PIECE).enumerate().for_each(piece);
    } else {
        v.chunks(PIECE).enumerate().for_each(piece);
    }
    Ok(())
}

/// Writes `v` into the C-contiguous CPU array `out` of `T`'s dtype (`v.len()` elements).
pub(crate) fn store_native<T: Native>(out: &Array, v: &[T]) -> Result<()> {
    debug_assert!(out.is_c_contiguous() && out.size() == v.len() && out.dtype() == T::DTYPE);
    if v.is_empty() {
        return Ok(());
    }
    let _l = CpuLocks::new(&[], &[&out.storage]);
    // SAFETY: `out` is a non-empty C-contiguous CPU array of `v.len()` elements of `T`'s dtype
    // (aligned: blocks are 64-byte aligned, offsets multiples of the itemsize), write-locked
    // above; `v` is a distinct Rust allocation.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), out.cpu_ptr().get() as *mut T, v.len()) };
    Ok(())
}
