//! The CPU fill: every output from its own position in the stream (`dist.rs` per output), in
//! chunks across the threads; within a chunk one Philox block serves four consecutive words.

use super::dist::{bounded, normal32, normal64, Dist};
use super::philox::{philox4x64_10, Stream};
use super::samplers::sample;
use crate::array::Array;
use crate::backend::cpu::ptr;
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

/// Fills the C-contiguous `out` (of the dtype `dist` makes) with `dist`'s outputs `0..n`.
pub(crate) fn fill(out: &Array, dist: Dist, s: &Stream) -> Result<()> {
    let _l = CpuLocks::new(&[], &[&out.storage]);
    let n = out.size();
    let p = ptr(out);
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
        Dist::Normal64 { loc, scale } => {
            let o = dst as *mut f64;
            for i in 0..m {
                let z = normal64(w.word(s.start + at(i)), || s.sub(at(i)));
                // SAFETY: as above.
                unsafe { *o.add(i) = loc + scale * z };
            }
        }
        Dist::Normal32 { loc, scale } => {
            let o = dst as *mut f32;
            for i in 0..m {
                let z = normal32(w.half(s, at(i)), || s.sub(at(i)));
                // SAFETY: as above.
                unsafe { *o.add(i) = loc + scale * z };
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
