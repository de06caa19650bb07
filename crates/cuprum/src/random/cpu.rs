//! The CPU fill: every output from its own position in the stream (`dist.rs` per output), in
//! chunks across the threads; within a chunk one Philox block serves four consecutive words.

use super::bijection::{Bijection, LANES};
use super::dist::{bounded, normal32, normal64, Dist};
use super::philox::{philox4x64_10, Stream};
use super::samplers::sample;
use crate::array::Array;
use crate::backend::storage::CpuLocks;
use crate::core::error::Result;
use rayon::prelude::*;

/// Outputs per task.
const CHUNK: usize = 1 << 14;

/// The main stream's words, one Philox block at a time (sequential reads reuse it).
struct Words {
    key: [u64; 2],
    block: u64,
    buf: [u64; 4],
}

impl Words {
    fn new(key: [u64; 2]) -> Words {
        Words { key, block: u64::MAX, buf: [0; 4] }
    }
    #[inline(always)]
    fn word(&mut self, j: u64) -> u64 {
        let b = j / 4;
        if b != self.block {
            self.buf = philox4x64_10([b.wrapping_add(1), 0, 0, 0], self.key);
            self.block = b;
        }
        self.buf[(j % 4) as usize]
    }
    /// Draw `d` of a 32-bit stream (`Stream::half`).
    #[inline(always)]
    fn half(&mut self, s: &Stream, d: u64) -> u32 {
        let h = match s.pending {
            Some(p) if d == 0 => return (self.word(p) >> 32) as u32,
            Some(_) => s.start + d - 1,
            None => s.start + d,
        };
        let w = self.word(h / 2);
        (w >> (32 * (h % 2))) as u32
    }
}

/// Candidates per task of `permutation`.
const PERM_CHUNK: u64 = 1 << 16;

/// Writes `b`'s permutation of `0..b.n` into the C-contiguous int64 `out`: each chunk of
/// candidates keeps its values below `n` (in order), then the chunks are copied to their
/// offsets.
pub(crate) fn permutation(out: &Array, b: &Bijection) -> Result<()> {
    let _l = CpuLocks::new(&[], &[&out.storage]);
    let m = b.domain();
    let starts: Vec<u64> = (0..m).step_by(PERM_CHUNK as usize).collect();
    #[cfg(target_arch = "x86_64")]
    let avx2 = std::arch::is_x86_feature_detected!("avx2");
    let keep = |&c: &u64| -> Vec<i64> {
        let e = (c + PERM_CHUNK).min(m);
        let mut v = Vec::with_capacity(((e - c) as usize).min(b.n as usize));
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            // SAFETY: the CPU has AVX2 (checked above), the only requirement of the function.
            unsafe { keep_range_avx2(b, c, e, &mut v) };
            return v;
        }
        keep_range(b, c, e, &mut v);
        v
    };
    let parts: Vec<Vec<i64>> =
        if m >= 1 << 17 { starts.par_iter().map(keep).collect() } else { starts.iter().map(keep).collect() };
    let mut offsets = Vec::with_capacity(parts.len());
    let mut total = 0;
    for q in &parts {
        offsets.push(total);
        total += q.len();
    }
    assert_eq!(total as u64, b.n, "a bijection keeps n values");
    let p = out.cpu_ptr();
    parts.par_iter().zip(offsets).for_each(|(q, off)| {
        // SAFETY: `out` is C-contiguous with `n` int64 elements, write-locked; the parts are
        // disjoint runs `off .. off + q.len()` within `0..n` (their lengths sum to n).
        unsafe { std::ptr::copy_nonoverlapping(q.as_ptr(), (p.get() as *mut i64).add(off), q.len()) }
    });
    Ok(())
}

/// Appends `b`'s values below `n` of the candidates `c..e` to `v`, in order.
#[inline(always)]
fn keep_range(b: &Bijection, c: u64, e: u64, v: &mut Vec<i64>) {
    let mut x = c;
    let mut lanes = [0u64; LANES];
    while x + LANES as u64 <= e {
        b.apply_lanes(x, &mut lanes);
        v.extend(lanes.iter().filter(|&&y| y < b.n).map(|&y| y as i64));
        x += LANES as u64;
    }
    v.extend((x..e).map(|x| b.apply(x)).filter(|&y| y < b.n).map(|y| y as i64));
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn keep_range_avx2(b: &Bijection, c: u64, e: u64, v: &mut Vec<i64>) {
    keep_range(b, c, e, v)
}

/// Fills the C-contiguous `out` (of the dtype `dist` makes) with `dist`'s outputs `0..n`.
pub(crate) fn fill(out: &Array, dist: Dist, s: &Stream) -> Result<()> {
    let _l = CpuLocks::new(&[], &[&out.storage]);
    let n = out.size();
    let p = out.cpu_ptr();
    let isz = out.itemsize();
    let chunks: Vec<usize> = (0..n).step_by(CHUNK).collect();
    let work = |&c: &usize| {
        let m = CHUNK.min(n - c);
        // SAFETY: `out` is C-contiguous with `n` elements of `isz` bytes, write-locked; chunk
        // `c` covers elements `c..c + m` (m <= n - c), written by this task only.
        unsafe { fill_chunk(p.get().add(c * isz), isz, c as u64, m, dist, s) }
    };
    if n >= 1 << 16 {
        chunks.par_iter().for_each(work);
    } else {
        chunks.iter().for_each(work);
    }
    Ok(())
}

/// # Safety
/// `dst` must be valid for `m` aligned writes of the output's element type (`isz` bytes).
unsafe fn fill_chunk(dst: *mut u8, isz: usize, first: u64, m: usize, dist: Dist, s: &Stream) {
    let mut w = Words::new(s.key);
    let at = |i: usize| first + i as u64;
    match dist {
        Dist::Uniform64 { low, scale } => {
            let o = dst as *mut f64;
            for i in 0..m {
                let u = (w.word(s.start + at(i)) >> 11) as f64 * (1.0 / 9007199254740992.0);
                // SAFETY: i < m (the caller's contract).
                unsafe { *o.add(i) = low + scale * u };
            }
        }
        Dist::Uniform32 { low, scale } => {
            let o = dst as *mut f32;
            for i in 0..m {
                let u = (w.half(s, at(i)) >> 8) as f32 * (1.0 / 16777216.0);
                // SAFETY: as above.
                unsafe { *o.add(i) = low + scale * u };
            }
        }
        Dist::Normal64 { loc, scale, standard } => {
            let o = dst as *mut f64;
            for i in 0..m {
                let z = normal64(w.word(s.start + at(i)), || s.sub(at(i)));
                // SAFETY: as above.
                unsafe { *o.add(i) = if standard { z } else { loc + scale * z } };
            }
        }
        Dist::Normal32 { loc, scale, standard } => {
            let o = dst as *mut f32;
            for i in 0..m {
                let z = normal32(w.half(s, at(i)), || s.sub(at(i)));
                // SAFETY: as above.
                unsafe { *o.add(i) = if standard { z } else { loc + scale * z } };
            }
        }
        Dist::Sample { kind, a, b, n, f32_ } => {
            for i in 0..m {
                let v = sample(kind, a, b, n, &mut s.sub_first(at(i), w.word(s.start + at(i))));
                // SAFETY: as above (8-byte elements, or 4-byte for f32_).
                unsafe {
                    if f32_ {
                        *(dst as *mut f32).add(i) = f64::from_bits(v) as f32;
                    } else {
                        *(dst as *mut u64).add(i) = v;
                    }
                }
            }
        }
        Dist::Bounded { bits, rng, off, threshold } => {
            let per = dist.per_draw() as u64;
            for i in 0..m {
                let e = at(i);
                let c = if bits == 64 {
                    w.word(s.start + e)
                } else {
                    let h = w.half(s, e / per) as u64;
                    if per > 1 {
                        h >> (bits as u64 * (e % per))
                    } else {
                        h
                    }
                };
                let v = bounded(bits, rng, off, threshold, c, || s.sub(e));
                // SAFETY: as above; the element is `size_of` the output's integer type.
                unsafe { store_int(dst, i, v, isz) };
            }
        }
    }
}

/// Stores the low bytes of `v` as element `i` of an integer (or bool) output of `isz`-byte
/// elements.
///
/// # Safety
/// `dst` must be valid for element `i` of that width.
#[inline(always)]
unsafe fn store_int(dst: *mut u8, i: usize, v: u64, isz: usize) {
    // SAFETY: the caller's contract.
    unsafe {
        match isz {
            1 => *dst.add(i) = v as u8,
            2 => *(dst as *mut u16).add(i) = v as u16,
            4 => *(dst as *mut u32).add(i) = v as u32,
            _ => *(dst as *mut u64).add(i) = v,
        }
    }
}
