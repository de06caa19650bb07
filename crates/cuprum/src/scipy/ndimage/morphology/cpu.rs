//! The CPU binary morphology: the last axis packed 64 pixels to a `u64` word (bit `j` of
//! word `w`: pixel `64 w + j`; the bits past the row's end hold the border value), a step
//! computes each output word as the AND over the taps of the input shifted by the tap
//! (two neighbouring words and a funnel shift), rows (or, for few rows, segments of a row) in
//! parallel.

use super::{Plan, Run};
use crate::array::Array;
use crate::backend::storage::CpuLocks;
use crate::core::error::{Error, Result};
use rayon::prelude::*;

/// Words a parallel task takes at least.
const MIN_WORDS: usize = 2048;

/// `f` on the bytes of the C-contiguous bool CPU array `a` (read-locked meanwhile).
fn with_bytes<R>(a: &Array, f: impl FnOnce(&[u8]) -> R) -> R {
    let n = a.size();
    if n == 0 {
        return f(&[]);
    }
    let _l = CpuLocks::new(&[&a.storage], &[]);
    // SAFETY: `a` is a non-empty C-contiguous bool CPU array of `n` one-byte elements starting
    // at `a.cpu_ptr()`, read-locked above while `f` runs.
    f(unsafe { std::slice::from_raw_parts(a.cpu_ptr().get() as *const u8, n) })
}

/// Bytes 0/1 (any nonzero byte counts as 1) of `v` to 8 bits, byte `k` to bit `k`.
#[inline]
fn bits8(v: u64) -> u64 {
    const LO7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // The high bit of each byte: set where the byte is nonzero.
    let nz = (((v & LO7) + LO7) | v) & !LO7;
    // Byte k's bit 8k + 7 moves to bit 56 + k (no two partial products overlap).
    ((nz >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// 8 bits of `b` to 8 bytes 0/1, bit `k` to byte `k`.
#[inline]
fn bytes8(b: u64) -> u64 {
    const LO7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = (b & 0xff).wrapping_mul(0x0101_0101_0101_0101) & 0x8040_2010_0804_0201;
    ((((x & LO7) + LO7) | x) >> 7) & 0x0101_0101_0101_0101
}

/// The packed layout of a plan: words a row, the border word, the valid bits of a row's last word.
#[derive(Copy, Clone)]
struct Layout {
    width: usize,
    nw: usize,
    bw: u64,
    tail: u64,
}

impl Layout {
    /// The last word of a row with its bits past the row's end set to the border.
    #[inline]
    fn fix_tail(&self, w: usize, v: u64) -> u64 {
        if w + 1 == self.nw {
            (v & self.tail) | (self.bw & !self.tail)
        } else {
            v
        }
    }
}

/// Packs `b` (rows of `width` bytes; nonzero is `true`, complemented when `comp`).
fn pack(b: &[u8], rows: usize, l: Layout, comp: bool) -> Vec<u64> {
    let mut out = vec![0u64; rows * l.nw];
    out.par_chunks_mut(l.nw).enumerate().with_min_len(16).for_each(|(r, words)| {
        let row = &b[r * l.width..(r + 1) * l.width];
        for (w, word) in words.iter_mut().enumerate() {
            let seg = &row[w * 64..((w + 1) * 64).min(l.width)];
            let mut v = 0u64;
            let mut chunks = seg.chunks_exact(8);
            for (k, c) in chunks.by_ref().enumerate() {
                v |= bits8(u64::from_le_bytes(c.try_into().expect("8 bytes"))) << (8 * k);
            }
            let done = seg.len() - chunks.remainder().len();
            for (j, &x) in chunks.remainder().iter().enumerate() {
                v |= ((x != 0) as u64) << (done + j);
            }
            if comp {
                v = !v;
            }
            *word = l.fix_tail(w, v);
        }
    });
    out
}

/// One step's constants: the taps' leading offsets and last-axis shifts, the leading axes.
struct Step<'a> {
    plan: &'a Plan,
    l: Layout,
    x0: &'a [u64],
    mask: Option<&'a [u64]>,
}

impl Step<'_> {
    /// Row `r`'s taps: per tap inside the image, the word offset of its source row and its
    /// shift; and whether a tap outside the image (border value false) clears the whole row.
    fn row_taps(&self, r: usize) -> (Vec<(usize, i64)>, bool) {
        let plan = self.plan;
        let nl = plan.lead.len();
        // The row's coordinates along the leading axes.
        let mut coord = vec![0i64; nl];
        let mut rem = r;
        for k in (0..nl).rev() {
            coord[k] = (rem % plan.lead[k]) as i64;
            rem /= plan.lead[k];
        }
        let mut taps = Vec::with_capacity(plan.ntaps());
        let mut killed = false;
        for t in plan.taps.chunks(nl + 1) {
            let mut sr = 0i64;
            let mut inside = true;
            for k in 0..nl {
                let c = coord[k] + t[k];
                if c < 0 || c >= plan.lead[k] as i64 {
                    inside = false;
                    break;
                }
                sr = sr * plan.lead[k] as i64 + c;
            }
            if inside {
                taps.push((sr as usize * self.l.nw, t[nl]));
            } else if !plan.border {
                killed = true;
            }
        }
        (taps, killed)
    }

    /// Output word `w` of row `r` (word offset `base`) from the words of `src`.
    #[inline]
    fn word(&self, src: &[u64], taps: &[(usize, i64)], killed: bool, base: usize, w: usize) -> u64 {
        let l = self.l;
        let mut acc = if killed { 0 } else { !0u64 };
        for &(row, shift) in taps {
            if acc == 0 {
                break;
            }
            let q = w as i64 + shift.div_euclid(64);
            let rb = shift.rem_euclid(64) as u32;
            let get = |j: i64| if j >= 0 && (j as usize) < l.nw { src[row + j as usize] } else { l.bw };
            let lo = get(q);
            let v = if rb == 0 { lo } else { (lo >> rb) | (get(q + 1) << (64 - rb)) };
            acc &= v;
        }
        if let Some(m) = self.mask {
            let m = m[base + w];
            acc = (acc & m) | (self.x0[base + w] & !m);
        }
        l.fix_tail(w, acc)
    }

    /// Output words `w0..w0 + dst.len()` of row `r` from `src`; whether any changed.
    fn row(&self, src: &[u64], r: usize, w0: usize, dst: &mut [u64]) -> bool {
        let (taps, killed) = self.row_taps(r);
        let base = r * self.l.nw;
        let mut changed = false;
        for (i, d) in dst.iter_mut().enumerate() {
            let v = self.word(src, &taps, killed, base, w0 + i);
            changed |= v != src[base + w0 + i];
            *d = v;
        }
        changed
    }

    /// One step from `src` into `dst`; whether any word changed.
    fn run(&self, src: &[u64], dst: &mut [u64]) -> bool {
        let nw = self.l.nw;
        let rows = self.plan.rows();
        if rows > 1 || nw < 2 * MIN_WORDS {
            let per = MIN_WORDS.div_ceil(nw).max(1);
            dst.par_chunks_mut(nw)
                .enumerate()
                .with_min_len(per)
                .map(|(r, d)| self.row(src, r, 0, d))
                .reduce(|| false, |a, b| a | b)
        } else {
            dst.par_chunks_mut(MIN_WORDS)
                .enumerate()
                .map(|(s, d)| self.row(src, 0, s * MIN_WORDS, d))
                .reduce(|| false, |a, b| a | b)
        }
    }

    /// One sweep in place over `buf`, rows and words in order (`forward`) or reversed, each
    /// word updated until it settles; whether any word changed. For a step with the centre
    /// tap every update moves a word toward the run's end and never past it (the step is
    /// monotone), so sweeps until one changes nothing reach the state that steps until
    /// stable reach: a front crosses the image in one sweep instead of a step a pixel.
    fn sweep(&self, buf: &mut [u64], forward: bool) -> bool {
        let nw = self.l.nw;
        let rows = self.plan.rows();
        let mut changed = false;
        for i in 0..rows {
            let r = if forward { i } else { rows - 1 - i };
            let (taps, killed) = self.row_taps(r);
            let base = r * nw;
            for j in 0..nw {
                let w = if forward { j } else { nw - 1 - j };
                // A horizontal tap moves a change one bit a time within the word.
                for _ in 0..=64 {
                    let v = self.word(buf, &taps, killed, base, w);
                    if v == buf[base + w] {
                        break;
                    }
                    buf[base + w] = v;
                    changed = true;
                }
            }
        }
        changed
    }
}

/// The message of a run until stable that cycles (SciPy loops forever).
pub(crate) fn never_settles() -> Error {
    Error::Runtime(
        "binary morphology with iterations < 1 never settles: with a structure whose centre is not set, \
         the steps cycle (SciPy loops forever)"
            .into(),
    )
}

/// The run `r` of `plan` into `out` (bool, C-contiguous, non-empty, on the CPU).
pub(crate) fn run(plan: &Plan, r: &Run<'_>, out: &Array) -> Result<()> {
    let rows = plan.rows();
    let width = plan.width;
    let nw = width.div_ceil(64);
    let bw = if plan.border { !0u64 } else { 0 };
    let tail = if width.is_multiple_of(64) { !0u64 } else { (1u64 << (width % 64)) - 1 };
    let l = Layout { width, nw, bw, tail };
    let x0 = match r.x {
        Some(x) => with_bytes(x, |b| pack(b, rows, l, plan.invert)),
        None => {
            let v = if plan.invert { !0u64 } else { 0 };
            (0..rows * nw).map(|i| l.fix_tail(i % nw, v)).collect()
        }
    };
    let mask = r.mask.map(|(m, comp)| with_bytes(m, |b| pack(b, rows, l, comp)));
    let step = Step { plan, l, x0: &x0, mask: mask.as_deref() };
    let mut cur = x0.clone();
    let mut nxt = vec![0u64; cur.len()];
    if plan.iterations >= 1 {
        for _ in 0..plan.iterations {
            // A step that changes nothing ends the run (as SciPy's): every later step is the same.
            if !step.run(&cur, &mut nxt) {
                break;
            }
            std::mem::swap(&mut cur, &mut nxt);
        }
    } else if plan.cit {
        // Until stable, monotone: sweeps in place, forward and backward, until one changes nothing.
        let mut forward = true;
        while step.sweep(&mut cur, forward) {
            forward = !forward;
        }
    } else {
        // Until a step changes nothing; without the centre tap the steps may cycle: a state
        // equal to the one two steps before is a cycle, and a bound on the steps catches longer ones.
        let mut older: Option<Vec<u64>> = None;
        let bound = 4 * (rows * width) as u64 + 64;
        let mut i = 0u64;
        loop {
            if !step.run(&cur, &mut nxt) {
                break;
            }
            i += 1;
            if !plan.cit {
                if older.as_deref() == Some(&nxt[..]) || i > bound {
                    return Err(never_settles());
                }
                let o = older.get_or_insert_with(|| vec![0u64; cur.len()]);
                std::mem::swap(o, &mut cur);
                std::mem::swap(&mut cur, &mut nxt);
            } else {
                std::mem::swap(&mut cur, &mut nxt);
            }
        }
    }
    // Unpack, complemented back for a dilation (and once more for fill_holes).
    let comp = (plan.invert ^ r.out_not) as u8;
    let _l = CpuLocks::new(&[], &[&out.storage]);
    // SAFETY: `out` is a fresh non-empty C-contiguous bool CPU array of `rows * width` bytes,
    // write-locked above; the slice is its whole data and no other handle reads it meanwhile.
    let o = unsafe { std::slice::from_raw_parts_mut(out.cpu_ptr().get(), rows * width) };
    let fill = if comp == 1 { 0x0101_0101_0101_0101u64 } else { 0 };
    o.par_chunks_mut(width).enumerate().with_min_len(16).for_each(|(r, row)| {
        let words = &cur[r * nw..(r + 1) * nw];
        let mut chunks = row.chunks_exact_mut(8);
        for (k, c) in chunks.by_ref().enumerate() {
            let b = words[k / 8] >> (8 * (k % 8));
            c.copy_from_slice(&(bytes8(b) ^ fill).to_le_bytes());
        }
        let done = width - chunks.into_remainder().len();
        for (c, b) in row.iter_mut().enumerate().skip(done) {
            *b = ((words[c / 64] >> (c % 64)) & 1) as u8 ^ comp;
        }
    });
    Ok(())
}
