//! The CPU sort: NumPy's order (NaNs last, -0.0 equal to 0.0) over the wide domains (i64,
//! u64, f64), lanes in parallel (rayon), a single long lane with a parallel stable merge sort.
//! The same signatures as `sort/cuda.rs`.

use crate::array::Array;
use crate::backend::cpu::keys::Bits;
use crate::backend::cpu::keys::{by_domain, by_native, Key, Native};
use crate::backend::cpu::values::{store_native, store_values, values};
use crate::backend::cpu::{load, Scratch, PAR_THRESHOLD};
use crate::backend::storage::CpuLocks;
use crate::core::error::Result;
use rayon::prelude::*;
use std::cmp::Ordering;

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
        let Some(io) = idx_out else {
            if let Some(k) = keys_out {
                sort_lanes_keys::<T>(x, k, len)?;
            }
            return Ok(());
        };
        let mut v: Vec<T> = x.to_vec()?;
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
    });
    Ok(())
}

/// [`sort_lanes`]' keys alone, by [`sort_into`] straight from `x` into `keys_out` (the
/// C-contiguous output of `x`'s shape and dtype), lanes of `len` in parallel when there are
/// many elements.
fn sort_lanes_keys<T: Native>(x: &Array, keys_out: &Array, len: usize) -> Result<()> {
    let n = x.size();
    let mut scratch = Scratch::<T::Bits>::new(n)?;
    let _l = CpuLocks::new(&[&x.storage], &[&keys_out.storage]);
    // SAFETY: `x` is a C-contiguous CPU array of `n` elements of `T`'s dtype, read-locked
    // above; `keys_out` is another (fresh) one, write-locked above, so the two do not overlap.
    let (src, dst) = unsafe {
        (
            std::slice::from_raw_parts(x.cpu_ptr().get() as *const T, n),
            std::slice::from_raw_parts_mut(keys_out.cpu_ptr().get() as *mut T, n),
        )
    };
    let sc = scratch.as_mut_slice();
    if n == len {
        sort_into(src, dst, sc);
    } else if n >= PAR_THRESHOLD {
        src.par_chunks(len)
            .zip(dst.par_chunks_mut(len))
            .zip(sc.par_chunks_mut(len))
            .for_each(|((s, d), c)| sort_into(s, d, c));
    } else {
        src.chunks(len).zip(dst.chunks_mut(len)).zip(sc.chunks_mut(len)).for_each(|((s, d), c)| sort_into(s, d, c));
    }
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
/// sorted. Each query reads the O(log n) elements of `sorted` its binary search visits (the
/// sorted array is not converted as a whole: a few queries in a long array cost microseconds).
pub(crate) fn searchsorted(sorted: &Array, q: &Array, right: bool, out: &Array) -> Result<()> {
    let host = sorted.as_contiguous()?;
    let _l = CpuLocks::new(&[&host.storage], &[]);
    let (dt, isz, base, n) = (host.dtype(), host.itemsize(), host.cpu_ptr(), host.size());
    let res: Vec<i64> = by_domain!(dt, W => {
        let q: Vec<W> = values(q)?;
        let at = |i: usize| {
            let mut e = [W::default()];
            // SAFETY: `i < n`: an element of the C-contiguous `host`, read-locked above.
            unsafe { load(dt, base.get().add(i * isz), isz as isize, &mut e) };
            e[0]
        };
        let find = |x: &W| {
            let (mut lo, mut hi) = (0, n);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                let o = at(mid).ord(x);
                if o == Ordering::Less || (right && o == Ordering::Equal) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lo as i64
        };
        if q.len() >= PAR_THRESHOLD {
            q.par_iter().map(find).collect()
        } else {
            q.iter().map(find).collect()
        }
    });
    store_values(out, &res)
}

// ------------------------------------------------------------------------------ native radix sort

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

/// Sorts `v` (NumPy's order, stable) in its own type ([`sort_into`]).
pub(crate) fn sort_native<T: Native>(v: Vec<T>) -> Vec<T> {
    let mut out = vec![T::default(); v.len()];
    match Scratch::<T::Bits>::new(v.len()) {
        Ok(mut scratch) => sort_into(&v, &mut out, scratch.as_mut_slice()),
        // No room for the scratch: the keyed sort needs none of its own beyond `v`'s.
        Err(_) => return radix_sort(v, T::KEY_BYTES, |e: &T| e.key()),
    }
    out
}

/// Sorts `src` into `dst` (NumPy's order, stable): [`sort_plain`] with `scratch` (as long)
/// when it applies, else the keyed [`radix_sort`] (NaNs, -0.0, short slices).
fn sort_into<T: Native>(src: &[T], dst: &mut [T], scratch: &mut [T::Bits]) {
    if !sort_plain(src, dst, scratch) {
        dst.copy_from_slice(&radix_sort(src.to_vec(), T::KEY_BYTES, |e: &T| e.key()));
    }
}

/// `t`'s bytes as its ordered-bits type (same size).
#[inline(always)]
fn as_bits<T: Native>(t: T) -> T::Bits {
    // SAFETY: `T` and `T::Bits` are plain data of one size (checked in `sort_plain`); every
    // bit pattern is a valid unsigned integer.
    unsafe { std::mem::transmute_copy(&t) }
}

/// Sorts `src` into `dst` (NumPy's order) by the elements' ordered bits ([`Native::to_ordered`])
/// when no element is NaN or -0.0, so that equal keys are equal bits and stability is moot:
/// one read maps the elements into `dst` and counts every digit, then [`radix_passes`] sort
/// them with `scratch` (as long as `src`), the last pass mapping back. Returns false, leaving
/// `dst` unspecified, when an element is NaN or -0.0 or `src` is shorter than [`RADIX_MIN`].
pub(crate) fn sort_plain<T: Native>(src: &[T], dst: &mut [T], scratch: &mut [T::Bits]) -> bool {
    assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<T::Bits>());
    let n = src.len();
    debug_assert!(dst.len() == n && scratch.len() == n);
    if n < RADIX_MIN {
        return false;
    }
    // SAFETY: `T::Bits` has `T`'s size and an alignment no larger (unsigned integers of the
    // element's width; bool is one byte as u8), and every bit pattern is a valid `T::Bits`.
    let bits = unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr() as *mut T::Bits, n) };
    // One read: map into `dst`, check, and find the bits on which the elements differ (those
    // set in some element's XOR with the first).
    let first = src[0].to_ordered();
    let map = |(s, d): (&[T], &mut [T::Bits])| -> (bool, u64) {
        let (mut plain, mut diff) = (true, T::Bits::default());
        for (o, &e) in d.iter_mut().zip(s) {
            plain &= e.plain();
            let b = e.to_ordered();
            *o = b;
            diff = diff | (b ^ first);
        }
        (plain, diff.wide())
    };
    let join = |a: (bool, u64), b: (bool, u64)| (a.0 & b.0, a.1 | b.1);
    let (plain, diff) = if n >= PAR_THRESHOLD {
        src.par_chunks(RADIX_BLOCK).zip(bits.par_chunks_mut(RADIX_BLOCK)).map(map).reduce(|| (true, 0), join)
    } else {
        map((src, &mut bits[..]))
    };
    if !plain {
        return false;
    }
    // Bits above the highest one on which the smallest and the largest differ are equal in all.
    msd::<T>(bits, scratch, 64 - diff.leading_zeros(), true);
    true
}

/// The scatter's write-combining buffer: 256 lines of 64 bytes, one per digit.
#[repr(align(64))]
struct WcLines([u64; 2048]);

/// Buckets of at most this many elements are sorted by [`leaf_sort`] (the keys and their
/// scratch, 2 x 512 KiB of u32, mostly stay in a core's L2 cache). Measured on the 2-core
/// machine (4M normal float32, median of 21): 2^17 sorted in 37-41 ms, 2^15 in 45-47 ms (one
/// more scatter level of small buckets).
const LEAF: usize = 1 << 17;
/// Buckets of at most this many elements are sorted by comparisons (the LSD passes' counting
/// costs more than the elements).
const SMALL: usize = 256;

/// Maps the sorted bits in `a` back to `T`, into `a` (`into_a`) or into `b`.
fn finish<T: Native>(a: &mut [T::Bits], b: &mut [T::Bits], into_a: bool) {
    let back = |e: T::Bits| as_bits(T::from_ordered(e));
    let par = a.len() >= PAR_THRESHOLD;
    match (into_a, par) {
        (true, false) => a.iter_mut().for_each(|e| *e = back(*e)),
        (true, true) => a.par_chunks_mut(RADIX_BLOCK).for_each(|c| c.iter_mut().for_each(|e| *e = back(*e))),
        (false, false) => b.iter_mut().zip(a.iter()).for_each(|(o, &e)| *o = back(e)),
        (false, true) => b.par_chunks_mut(RADIX_BLOCK).zip(a.par_chunks(RADIX_BLOCK)).for_each(|(o, c)| {
            o.iter_mut().zip(c).for_each(|(o, &e)| *o = back(e));
        }),
    }
}

/// Sorts the ordered bits in `a`, which may differ in their low `left` bits only (the higher
/// ones are equal), leaving the result mapped back to `T` in `a` (`into_a`) or in `b` (as
/// long; the other is scratch): a radix sort most-significant digit first, each digit the
/// top 8 of the bits left (so the first one starts at the highest bit on which the elements
/// differ, whatever the range of the data). A large slice is counted and scattered from `a`
/// into `b` by its digit (blocks of [`RADIX_BLOCK`] in parallel, through a 64-byte
/// write-combining line per digit value), then each bucket is sorted on the bits below, the
/// buckets in parallel; a digit on which all elements agree is skipped. Slices of at most
/// [`LEAF`] elements go to [`leaf_sort`]. The work split depends on the data only, not on the
/// number of threads (and a sort's result is unique anyway).
fn msd<T: Native>(a: &mut [T::Bits], b: &mut [T::Bits], left: u32, into_a: bool) {
    let n = a.len();
    if left == 0 {
        return finish::<T>(a, b, into_a);
    }
    if n <= LEAF {
        return leaf_sort::<T>(a, b, left, into_a);
    }
    let shift = left.saturating_sub(8);
    let blocks = n.div_ceil(RADIX_BLOCK);
    let count = |c: &[T::Bits]| {
        let mut h = [0usize; 256];
        c.iter().for_each(|e| h[e.digit(shift)] += 1);
        h
    };
    let hists: Vec<[usize; 256]> =
        if blocks > 1 { a.par_chunks(RADIX_BLOCK).map(count).collect() } else { vec![count(a)] };
    let mut h = [0usize; 256];
    for hb in &hists {
        h.iter_mut().zip(hb).for_each(|(x, y)| *x += y);
    }
    if h.contains(&n) {
        return msd::<T>(a, b, shift, into_a);
    }
    let mut offs = vec![[0usize; 256]; blocks];
    let mut s = 0;
    for g in 0..256 {
        for (o, hb) in offs.iter_mut().zip(&hists) {
            o[g] = s;
            s += hb[g];
        }
    }
    let w = 64 / std::mem::size_of::<T::Bits>();
    let dp = SendPtr(b.as_mut_ptr());
    let scatter = |(c, mut o): (&[T::Bits], [usize; 256])| {
        let mut wc = WcLines([0; 2048]);
        let buf = wc.0.as_mut_ptr() as *mut T::Bits;
        let mut fill = [0u8; 256];
        for &e in c {
            let g = e.digit(shift);
            let f = fill[g] as usize;
            // SAFETY: line `g` of the buffer holds `w` elements (64 bytes), `f < w`.
            unsafe { buf.add(g * w + f).write(e) };
            if f + 1 == w {
                // SAFETY: `o[g]..o[g] + w` are this block's own next slots for digit `g`
                // (counted from the very elements scattered here), disjoint from every other
                // block's and digit's by the prefix sums above, and below `n`, `b`'s length;
                // the buffer's line `g` holds the `w` elements written above.
                unsafe {
                    let line = (buf.add(g * w) as *const [u64; 8]).read();
                    (dp.get().add(o[g]) as *mut [u64; 8]).write_unaligned(line);
                }
                o[g] += w;
                fill[g] = 0;
            } else {
                fill[g] = (f + 1) as u8;
            }
        }
        for g in 0..256 {
            // SAFETY: as above, the digit's last `fill[g]` slots.
            unsafe { std::ptr::copy_nonoverlapping(buf.add(g * w), dp.get().add(o[g]), fill[g] as usize) };
        }
    };
    if blocks > 1 {
        a.par_chunks(RADIX_BLOCK).zip(offs.into_par_iter()).for_each(scatter);
    } else {
        scatter((&a[..], offs[0]));
    }
    // The buckets, now in `b`, each sorted on the bits below (`a` is their scratch).
    type Part<'a, K> = (&'a mut [K], &'a mut [K]);
    let mut parts: Vec<Part<'_, T::Bits>> = Vec::new();
    let (mut ra, mut rb) = (a, b);
    for &c in h.iter().filter(|&&c| c > 0) {
        let (ha, ta) = std::mem::take(&mut ra).split_at_mut(c);
        let (hb, tb) = std::mem::take(&mut rb).split_at_mut(c);
        parts.push((hb, ha));
        (ra, rb) = (ta, tb);
    }
    let sub = |(x, y): (&mut [T::Bits], &mut [T::Bits])| msd::<T>(x, y, shift, !into_a);
    if n >= PAR_THRESHOLD {
        parts.into_par_iter().for_each(sub);
    } else {
        parts.into_iter().for_each(sub);
    }
}

/// [`msd`] for a slice that fits a core's cache: a comparison sort for a few elements, else
/// an LSD radix sort on the bytes that cover the low `left` bits (one read counts them all,
/// bytes on which every element agrees are skipped), the last pass mapping back to `T`.
fn leaf_sort<T: Native>(a: &mut [T::Bits], b: &mut [T::Bits], left: u32, into_a: bool) {
    let n = a.len();
    if n <= SMALL {
        a.sort_unstable();
        return finish::<T>(a, b, into_a);
    }
    let digits = left.div_ceil(8) as usize;
    let mut h = [[0u32; 256]; 8];
    for &e in a.iter() {
        for (k, hk) in h.iter_mut().enumerate().take(digits) {
            hk[e.digit(8 * k as u32)] += 1;
        }
    }
    let passes: Vec<usize> = (0..digits).filter(|&k| !h[k].contains(&(n as u32))).collect();
    if passes.is_empty() {
        return finish::<T>(a, b, into_a);
    }
    let (mut src, mut dst) = (a, b);
    let mut in_a = true;
    for (i, &k) in passes.iter().enumerate() {
        let last = i + 1 == passes.len();
        let mut o = [0usize; 256];
        let mut s = 0;
        for g in 0..256 {
            o[g] = s;
            s += h[k][g] as usize;
        }
        for &e in src.iter() {
            let g = e.digit(8 * k as u32);
            dst[o[g]] = if last { as_bits(T::from_ordered(e)) } else { e };
            o[g] += 1;
        }
        std::mem::swap(&mut src, &mut dst);
        in_a = !in_a;
    }
    // The result, mapped back, is in `src` (`a` when `in_a`).
    if in_a != into_a {
        dst.copy_from_slice(src);
    }
}

/// The stable sorting permutation of `v` (NumPy's order) with the sorted values beside it.
pub(crate) fn argsort_native<T: Native>(v: &[T]) -> Vec<(T, u32)> {
    debug_assert!(v.len() <= u32::MAX as usize);
    let pairs: Vec<(T, u32)> = v.iter().enumerate().map(|(i, &x)| (x, i as u32)).collect();
    radix_sort(pairs, T::KEY_BYTES, |e: &(T, u32)| e.0.key())
}
