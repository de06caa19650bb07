//! The CPU sort: NumPy's order (NaNs last, -0.0 equal to 0.0) over the wide domains (i64,
//! u64, f64), lanes in parallel (rayon), a single long lane with a parallel stable merge sort.
//! The same signatures as `sort/cuda.rs`.

use crate::array::Array;
use crate::backend::cpu::{load, ptr, store, Wide, PAR_THRESHOLD};
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
    /// NaN for floats (integers have none: never used for them).
    fn nan() -> Self;
}
impl Key for i64 {
    fn ord(&self, o: &Self) -> Ordering {
        self.cmp(o)
    }
    fn nan() -> Self {
        0
    }
}
impl Key for u64 {
    fn ord(&self, o: &Self) -> Ordering {
        self.cmp(o)
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
/// Stable. Each lane is radix-sorted in the element's own type ([`radix_sort`]); many lanes
/// are sorted in parallel, a single long lane with parallel passes.
pub(crate) fn sort_lanes(x: &Array, keys_out: Option<&Array>, idx_out: Option<&Array>) -> Result<()> {
    let len = *x.shape().last().unwrap_or(&1);
    if x.size() == 0 || len == 0 {
        return Ok(());
    }
    if len > u32::MAX as usize {
        return sort_lanes_wide(x, keys_out, idx_out);
    }
    let many = x.size() >= PAR_THRESHOLD && x.size() > len;
    by_native!(x.dtype(), T => {
        let mut v: Vec<T> = x.to_vec()?;
        match idx_out {
            None => {
                let sort_lane = |l: &mut [T]| {
                    let s = sort_native(l.to_vec());
                    l.copy_from_slice(&s);
                };
                if v.len() == len {
                    v = sort_native(v);
                } else if many {
                    v.par_chunks_mut(len).for_each(sort_lane);
                } else {
                    v.chunks_mut(len).for_each(sort_lane);
                }
                if let Some(k) = keys_out {
                    store_native(k, &v)?;
                }
            }
            Some(io) => {
                let mut idx = vec![0i64; v.len()];
                let arg_lane = |(l, ix): (&mut [T], &mut [i64])| {
                    for (e, (k, i)) in argsort_native(l).into_iter().enumerate() {
                        l[e] = k;
                        ix[e] = i as i64;
                    }
                };
                if many {
                    v.par_chunks_mut(len).zip(idx.par_chunks_mut(len)).for_each(arg_lane);
                } else {
                    v.chunks_mut(len).zip(idx.chunks_mut(len)).for_each(arg_lane);
                }
                if let Some(k) = keys_out {
                    store_native(k, &v)?;
                }
                store_values(io, &idx)?;
            }
        }
    });
    Ok(())
}

/// [`sort_lanes`] for lanes too long for 32-bit indices: a comparison merge sort in the wide
/// domains.
fn sort_lanes_wide(x: &Array, keys_out: Option<&Array>, idx_out: Option<&Array>) -> Result<()> {
    let len = *x.shape().last().unwrap_or(&1);
    by_domain!(x.dtype(), W => {
        let mut v: Vec<W> = values(x)?;
        match idx_out {
            None => {
                v.par_chunks_mut(len).for_each(|l| l.par_sort_by(|a, b| a.ord(b)));
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

// ------------------------------------------------------------------------------ native radix sort

/// Element types sorted in their own type by an LSD radix sort on an order-preserving key:
/// NumPy's order, with NaNs (any payload, either sign) after everything and -0.0 equal to 0.0
/// (equal keys, so a stable sort keeps them in input order, as the merge sort did).
pub(crate) trait Native: crate::core::dtype::Element {
    /// How many low bytes of [`Native::key`] can differ.
    const KEY_BYTES: usize;
    /// An unsigned key whose order is NumPy's order of the values.
    fn key(self) -> u64;
    fn as_f64(self) -> f64;
    fn is_nan_v(self) -> bool {
        false
    }
}

macro_rules! native_int {
    ($($t:ty, $bytes:expr, $flip:expr);*) => {$(
        impl Native for $t {
            const KEY_BYTES: usize = $bytes;
            #[inline]
            fn key(self) -> u64 {
                // Two's complement to offset binary (signed), or the value (unsigned).
                (self as u64 ^ $flip) & (u64::MAX >> (64 - 8 * $bytes))
            }
            #[inline]
            fn as_f64(self) -> f64 {
                self as f64
            }
        }
    )*};
}
native_int!(i8, 1, 0x80; i16, 2, 0x8000; i32, 4, 0x8000_0000; i64, 8, 1 << 63;
            u8, 1, 0; u16, 2, 0; u32, 4, 0; u64, 8, 0);

impl Native for bool {
    const KEY_BYTES: usize = 1;
    #[inline]
    fn key(self) -> u64 {
        self as u64
    }
    #[inline]
    fn as_f64(self) -> f64 {
        self as u8 as f64
    }
}

/// The key of the IEEE bits `b` of a float of `w` bits: negatives flipped, positives with the
/// sign bit set, -0.0 as +0.0, every NaN the largest key.
#[inline]
fn float_key(b: u64, w: u32) -> u64 {
    let sign = 1u64 << (w - 1);
    let all = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let exp_inf = (all >> 1)
        & !((1u64
            << (if w == 16 {
                10
            } else if w == 32 {
                23
            } else {
                52
            }))
            - 1);
    let mag = b & (all >> 1);
    if mag > exp_inf {
        all
    } else if mag == 0 {
        sign
    } else if b & sign != 0 {
        !b & all
    } else {
        b | sign
    }
}

impl Native for f32 {
    const KEY_BYTES: usize = 4;
    #[inline]
    fn key(self) -> u64 {
        float_key(self.to_bits() as u64, 32)
    }
    #[inline]
    fn as_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn is_nan_v(self) -> bool {
        self.is_nan()
    }
}
impl Native for f64 {
    const KEY_BYTES: usize = 8;
    #[inline]
    fn key(self) -> u64 {
        float_key(self.to_bits(), 64)
    }
    #[inline]
    fn as_f64(self) -> f64 {
        self
    }
    #[inline]
    fn is_nan_v(self) -> bool {
        self.is_nan()
    }
}
impl Native for half::f16 {
    const KEY_BYTES: usize = 2;
    #[inline]
    fn key(self) -> u64 {
        float_key(self.to_bits() as u64, 16)
    }
    #[inline]
    fn as_f64(self) -> f64 {
        self.to_f64()
    }
    #[inline]
    fn is_nan_v(self) -> bool {
        self.is_nan()
    }
}

/// Runs `$body` with `$T` the element type of dtype `$dt`.
macro_rules! by_native {
    ($dt:expr, $T:ident => $body:expr) => {
        match $dt {
            $crate::core::dtype::DType::Bool => {
                type $T = bool;
                $body
            }
            $crate::core::dtype::DType::Int8 => {
                type $T = i8;
                $body
            }
            $crate::core::dtype::DType::Int16 => {
                type $T = i16;
                $body
            }
            $crate::core::dtype::DType::Int32 => {
                type $T = i32;
                $body
            }
            $crate::core::dtype::DType::Int64 => {
                type $T = i64;
                $body
            }
            $crate::core::dtype::DType::UInt8 => {
                type $T = u8;
                $body
            }
            $crate::core::dtype::DType::UInt16 => {
                type $T = u16;
                $body
            }
            $crate::core::dtype::DType::UInt32 => {
                type $T = u32;
                $body
            }
            $crate::core::dtype::DType::UInt64 => {
                type $T = u64;
                $body
            }
            $crate::core::dtype::DType::Float16 => {
                type $T = half::f16;
                $body
            }
            $crate::core::dtype::DType::Float32 => {
                type $T = f32;
                $body
            }
            $crate::core::dtype::DType::Float64 => {
                type $T = f64;
                $body
            }
        }
    };
}
pub(crate) use by_native;

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
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), ptr(out).get() as *mut T, v.len()) };
    Ok(())
}

/// Elements per block of the radix sort's passes (a fixed size, so the work split does not
/// depend on the number of threads; the result of a stable sort is unique anyway).
const RADIX_BLOCK: usize = 1 << 16;
/// Below this many elements a comparison sort on the keys is faster than the radix passes.
const RADIX_MIN: usize = 512;

/// A pointer into the radix sort's destination that may cross threads.
struct SendPtr<E>(*mut E);
// SAFETY: each block's thread writes its own disjoint set of destination slots (the offsets
// computed from the histograms), and the destination outlives the parallel loop.
unsafe impl<E> Send for SendPtr<E> {}
// SAFETY: as for `Send`.
unsafe impl<E> Sync for SendPtr<E> {}
impl<E> SendPtr<E> {
    #[inline]
    fn get(&self) -> *mut E {
        self.0
    }
}

/// A stable LSD radix sort of `v` by the low `nbytes` bytes of `key` (8-bit digits; passes
/// where every element has the same digit are skipped). Blocks of [`RADIX_BLOCK`] elements
/// are counted and scattered in parallel (each pass counts its blocks afresh: the previous
/// pass moved the elements between blocks).
pub(crate) fn radix_sort<E: Copy + Send + Sync>(
    mut v: Vec<E>,
    nbytes: usize,
    key: impl Fn(&E) -> u64 + Sync,
) -> Vec<E> {
    let n = v.len();
    if n < RADIX_MIN {
        v.sort_by_key(|e| key(e));
        return v;
    }
    let mut dst: Vec<E> = Vec::with_capacity(n);
    let blocks = n.div_ceil(RADIX_BLOCK);
    for d in 0..nbytes {
        let shift = 8 * d;
        let digit = |e: &E| ((key(e) >> shift) & 255) as usize;
        let hist = |c: &[E]| {
            let mut h = [0usize; 256];
            c.iter().for_each(|e| h[digit(e)] += 1);
            h
        };
        let hists: Vec<[usize; 256]> =
            if blocks > 1 { v.par_chunks(RADIX_BLOCK).map(hist).collect() } else { vec![hist(&v)] };
        if (0..256).any(|g| hists.iter().map(|h| h[g]).sum::<usize>() == n) {
            continue; // every element has this digit: the pass would not move anything
        }
        // Where each block's elements of each digit go: digits in order, blocks in order.
        let mut offs = vec![[0usize; 256]; blocks];
        let mut s = 0;
        for g in 0..256 {
            for b in 0..blocks {
                offs[b][g] = s;
                s += hists[b][g];
            }
        }
        let dp = SendPtr(dst.as_mut_ptr());
        let scatter = |(c, mut o): (&[E], [usize; 256])| {
            for e in c {
                let g = digit(e);
                // SAFETY: `o[g]` runs over this block's own slots for digit `g` (counted from
                // the very elements scattered here), which the prefix sums above make disjoint
                // from every other block's and digit's, and all below `n`, `dst`'s capacity.
                unsafe { dp.get().add(o[g]).write(*e) };
                o[g] += 1;
            }
        };
        if blocks > 1 {
            v.par_chunks(RADIX_BLOCK).zip(offs.into_par_iter()).for_each(scatter);
        } else {
            scatter((&v[..], offs[0]));
        }
        // SAFETY: the pass wrote every one of the `n` slots (the counts sum to `n`, and each
        // element went to a slot of its own).
        unsafe { dst.set_len(n) };
        std::mem::swap(&mut v, &mut dst);
        // SAFETY: shrinking to zero drops nothing (`E: Copy`); the capacity stays for the next
        // pass to write into.
        unsafe { dst.set_len(0) };
    }
    v
}

/// Sorts `v` (NumPy's order, stable) in its own type.
pub(crate) fn sort_native<T: Native>(v: Vec<T>) -> Vec<T> {
    radix_sort(v, T::KEY_BYTES, |e: &T| e.key())
}

/// The stable sorting permutation of `v` (NumPy's order) with the sorted values beside it.
pub(crate) fn argsort_native<T: Native>(v: &[T]) -> Vec<(T, u32)> {
    debug_assert!(v.len() <= u32::MAX as usize);
    let pairs: Vec<(T, u32)> = v.iter().enumerate().map(|(i, &x)| (x, i as u32)).collect();
    radix_sort(pairs, T::KEY_BYTES, |e: &(T, u32)| e.0.key())
}
