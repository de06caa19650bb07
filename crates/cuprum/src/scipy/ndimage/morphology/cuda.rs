//! The GPU binary morphology (`morphology.cu`): the image packed to words of 32 pixels. A
//! 2-d (or 1-d) image with taps within a pixel of the centre (3 x 3 structures) runs up to 16
//! steps a launch on tiles in shared memory with a halo as wide as the steps (`morph_tile`);
//! otherwise one launch a step (a thread a word, `morph_step`), the steps of a run queued
//! without waiting. A run until
//! stable launches batches of steps, each step raising a flag when it changed a word (and,
//! without the centre tap, when its output differs from the state two steps before: a
//! cycle), and reads the batch's flags back once.

use super::{Plan, Run};
use crate::array::Array;
use crate::backend::cuda::codegen::PRELUDE;
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, dptr_opt, Params, MAX_DIMS, THREADS};
use crate::backend::cuda::CudaDevice;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// Ints of taps passed by value (each tap: its leading offsets and its shift).
const TAPS_INLINE: usize = 96;
/// Shared memory the taps may take.
const TAPS_SHARED_BYTES: usize = 32 * 1024;
/// Most blocks a grid-stride launch takes.
const MAX_BLOCKS: u64 = 1 << 20;
/// The tile kernel (2-d and 1-d images, taps within a pixel of the centre): rows and words
/// of a block's tile, and the most steps a launch runs (its halo: that many rows, and one
/// word, whose outer bits go stale one a step: fewer than 32 steps).
const TILE_ROWS: usize = 32;
const TILE_WORDS: usize = 8;
const TILE_STEPS: usize = 16;
/// Runs of at most this many steps are queued without reading anything back; longer ones
/// go in batches, as runs until stable do, so that they can end once a step changes nothing.
const QUEUED_STEPS: u64 = 32;
/// The most steps in one batch of a run until stable.
const MAX_BATCH: usize = 256;

/// One of the three kernels of `morphology.cu`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum MorphKey {
    Pack,
    Unpack,
    Step,
    Tile,
}

impl KernelKey for MorphKey {
    const FAMILY: &'static str = "ndimage_morphology";
    fn entry(&self) -> &str {
        match self {
            MorphKey::Pack => "morph_pack",
            MorphKey::Unpack => "morph_unpack",
            MorphKey::Step => "morph_step",
            MorphKey::Tile => "morph_tile",
        }
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![
            ("THREADS", THREADS.to_string()),
            ("MAXD", (MAX_DIMS - 1).to_string()),
            ("TAPS_INLINE", TAPS_INLINE.to_string()),
            ("TR", TILE_ROWS.to_string()),
            ("TW", TILE_WORDS.to_string()),
            ("KMAX", TILE_STEPS.to_string()),
        ]
    }
    fn source(&self) -> String {
        format!("{PRELUDE}{}", include_str!("morphology.cu"))
    }
}

#[repr(C)]
#[derive(Copy, Clone)]
struct Lead([i64; MAX_DIMS - 1]);

#[repr(C)]
#[derive(Copy, Clone)]
struct Taps([i32; TAPS_INLINE]);

fn blocks(threads: u64) -> u32 {
    threads.div_ceil(THREADS as u64).clamp(1, MAX_BLOCKS) as u32
}

/// The packed image's geometry.
struct Geo {
    rows: i64,
    width: i64,
    nw: i64,
    bw: u32,
}

fn pack(dev: &CudaDevice, g: &Geo, x: Option<&Array>, comp: bool, out: &Array) -> Result<()> {
    let k = dev.kernel(&MorphKey::Pack)?;
    let mut p = Params::new();
    p.push(dptr_opt(x)?);
    p.push(g.rows);
    p.push(g.width);
    p.push(g.nw);
    p.push(dptr(out)?);
    p.push(comp as i32);
    p.push(g.bw);
    // SAFETY: the parameters match `morph_pack`; `x` (bool, rows * width bytes) or null, and
    // `out` (rows * nw words) stay alive until the stream has run the kernel.
    unsafe { p.launch(dev, &k, blocks((g.rows * g.nw * 32) as u64), THREADS) }
}

/// The run `r` of `plan` into `out` (bool, C-contiguous, non-empty, on a GPU).
pub(crate) fn run(plan: &Plan, r: &Run<'_>, out: &Array) -> Result<()> {
    let dev = dev_of(out)?;
    let nl = plan.lead.len();
    if nl > MAX_DIMS - 1 {
        return Err(Error::NotImplemented(format!(
            "binary morphology of a {}-d array on the GPU (at most {MAX_DIMS} dimensions)",
            nl + 1
        )));
    }
    let taps: Vec<i32> = plan
        .taps
        .iter()
        .map(|&v| i32::try_from(v).map_err(|_| Error::NotImplemented("a structure this large on the GPU".into())))
        .collect::<Result<_>>()?;
    let g = Geo {
        rows: plan.rows() as i64,
        width: plan.width as i64,
        nw: plan.width.div_ceil(32) as i64,
        bw: if plan.border { u32::MAX } else { 0 },
    };
    let total = (g.rows * g.nw) as usize;
    let tail = if plan.width.is_multiple_of(32) { u32::MAX } else { (1u32 << (plan.width % 32)) - 1 };
    let words = |n: usize| -> Result<Vec<Array>> {
        (0..n).map(|_| Array::alloc(&[total], DType::UInt32, out.device(), false)).collect()
    };
    let x0 = words(1)?.remove(0);
    pack(&dev, &g, r.x, plan.invert, &x0)?;
    let mask = match r.mask {
        Some((m, comp)) => {
            let mw = words(1)?.remove(0);
            pack(&dev, &g, Some(m), comp, &mw)?;
            Some(mw)
        }
        None => None,
    };
    let mut lead = Lead([0; MAX_DIMS - 1]);
    lead.0[..nl].copy_from_slice(&plan.lead.iter().map(|&n| n as i64).collect::<Vec<_>>());
    let mut inline = Taps([0; TAPS_INLINE]);
    let taps_g = if taps.len() <= TAPS_INLINE {
        inline.0[..taps.len()].copy_from_slice(&taps);
        None
    } else {
        Some(crate::from_slice(&taps, &[taps.len()], &out.device())?)
    };
    let shared = taps.len() * 4 <= TAPS_SHARED_BYTES;
    let kstep = dev.kernel(&MorphKey::Step)?;
    let step = |src: &Array, dst: &Array, older: Option<&Array>, flags: u64| -> Result<()> {
        let mut p = Params::new();
        p.push(dptr(src)?);
        p.push(dptr(dst)?);
        p.push(dptr(&x0)?);
        p.push(dptr_opt(mask.as_ref())?);
        p.push(dptr_opt(older)?);
        p.push(flags);
        p.push(g.rows);
        p.push(g.nw);
        p.push(tail);
        p.push(g.bw);
        p.push(nl as i32);
        p.push(lead);
        p.push(plan.ntaps() as i32);
        p.push(inline);
        p.push(dptr_opt(taps_g.as_ref())?);
        p.push(shared as i32);
        let shmem = if shared { (taps.len() * 4) as u32 } else { 0 };
        // SAFETY: the parameters match `morph_step`; every word buffer holds rows * nw words,
        // `flags` (when not null) two ints, `taps_g` (when not null) the taps; all stay alive
        // until the stream has run the kernel (the caller keeps them to the end of `run`, and
        // the pool orders reuse on the stream). `shmem` bytes hold the taps when `shared`.
        unsafe { p.launch_shmem(&dev, &kstep, blocks(total as u64), THREADS, shmem) }
    };
    // The tile kernel's taps, (row offset, shift) pairs, when it applies.
    let tile_taps: Option<Vec<i32>> = if nl <= 1 && 2 * plan.ntaps() <= TAPS_INLINE {
        let pairs: Vec<i32> = taps.chunks(nl + 1).flat_map(|t| [if nl == 1 { t[0] } else { 0 }, t[nl]]).collect();
        pairs.iter().all(|v| v.abs() <= 1).then_some(pairs)
    } else {
        None
    };
    let tile_grid =
        (g.nw as usize).div_ceil(TILE_WORDS) <= u32::MAX as usize && (g.rows as usize).div_ceil(TILE_ROWS) <= 65535;
    let kt = dev.kernel(&MorphKey::Tile)?;
    let mut tinline = Taps([0; TAPS_INLINE]);
    if let Some(pairs) = &tile_taps {
        tinline.0[..pairs.len()].copy_from_slice(pairs);
    }
    let tgrid = ((g.nw as usize).div_ceil(TILE_WORDS) as u32, (g.rows as usize).div_ceil(TILE_ROWS) as u32);
    // `k` steps from `src` into `dst` on tiles; with `flags` (not 0), flags[0] = 1 if a word changed.
    let tile = |src: &Array, dst: &Array, k: usize, flags: u64| -> Result<()> {
        let mut p = Params::new();
        p.push(dptr(src)?);
        p.push(dptr(dst)?);
        p.push(dptr(&x0)?);
        p.push(dptr_opt(mask.as_ref())?);
        p.push(g.rows);
        p.push(g.nw);
        p.push(tail);
        p.push(g.bw);
        p.push(plan.ntaps() as i32);
        p.push(tinline);
        p.push(k as i32);
        p.push(flags);
        // SAFETY: the parameters match `morph_tile`; the word buffers hold rows * nw words
        // (src and dst distinct), `flags` (when not 0) an int, all alive until the stream has
        // run the kernel; the taps are (row offset, shift) pairs within one of the centre,
        // 1 <= k <= KMAX.
        unsafe { p.launch_2d(&dev, &kt, tgrid, (THREADS, 1), 0) }
    };
    let tiled = tile_taps.is_some() && tile_grid;
    let fin: Array = if tiled && plan.iterations >= 1 && plan.iterations as u64 <= QUEUED_STEPS {
        // Up to TILE_STEPS steps a launch.
        let bufs = words(2)?;
        let mut src = &x0;
        let (mut done, mut i) = (0usize, 0usize);
        while done < plan.iterations as usize {
            let k = TILE_STEPS.min(plan.iterations as usize - done);
            let dst = &bufs[i % 2];
            tile(src, dst, k, 0)?;
            src = dst;
            done += k;
            i += 1;
        }
        src.view()
    } else if tiled && plan.cit {
        // Monotone steps, until stable or many: launches of up to TILE_STEPS steps in flagged
        // batches; a launch that changes nothing has reached the end (its steps are monotone,
        // so equal ends mean every step between changed nothing). State k (after k launches)
        // lives in x0 (k = 0) or bufs[k % 2].
        let limit = if plan.iterations >= 1 { Some(plan.iterations as u64) } else { None };
        let bufs = words(2)?;
        let state = |k: usize| if k == 0 { &x0 } else { &bufs[k % 2] };
        let (mut k, mut steps, mut batch) = (0usize, 0u64, 4usize);
        'tiles: loop {
            let flags = crate::zeros(&[2 * batch], DType::Int32, &out.device())?;
            let fp = dptr(&flags)?;
            let (mut launched, mut planned) = (0usize, steps);
            for j in 0..batch {
                let left = limit.map_or(TILE_STEPS as u64, |n| n - planned);
                if left == 0 {
                    break;
                }
                let kk = TILE_STEPS.min(left as usize);
                tile(state(k + j), state(k + j + 1), kk, fp + (8 * j) as u64)?;
                planned += kk as u64;
                launched += 1;
            }
            let f = flags.to_vec::<i32>()?;
            for j in 0..launched {
                if f[2 * j] == 0 {
                    k += j;
                    break 'tiles;
                }
            }
            k += launched;
            steps = planned;
            if limit == Some(steps) {
                break;
            }
            batch = (batch * 2).min(MAX_BATCH);
        }
        state(k).view()
    } else if plan.iterations >= 1 && plan.iterations as u64 <= QUEUED_STEPS {
        let bufs = words(2.min(plan.iterations as usize))?;
        let mut src = &x0;
        for i in 0..plan.iterations as usize {
            let dst = &bufs[i % bufs.len()];
            step(src, dst, None, 0)?;
            src = dst;
        }
        src.view()
    } else {
        // Until stable, or many steps (which end early, as SciPy's, once a step changes
        // nothing: every later step then changes nothing either). State k lives in x0
        // (k = 0) or ring[k % 3]; a step from state k writes state k + 1 and, until stable
        // without the centre tap, compares it with state k - 1 (a cycle).
        let limit = if plan.iterations >= 1 { Some(plan.iterations as u64) } else { None };
        let detect = limit.is_none() && !plan.cit;
        let ring = words(3)?;
        let state = |k: usize| if k == 0 { &x0 } else { &ring[k % 3] };
        let bound = 4 * (g.rows * g.width) as usize + 64;
        let (mut k, mut batch) = (0usize, 4usize);
        'outer: loop {
            let batch_now = match limit {
                Some(n) => batch.min((n - k as u64) as usize),
                None => batch,
            };
            let flags = crate::zeros(&[2 * batch_now], DType::Int32, &out.device())?;
            let fp = dptr(&flags)?;
            for j in 0..batch_now {
                let older = if k + j >= 1 && detect { Some(state(k + j - 1)) } else { None };
                step(state(k + j), state(k + j + 1), older, fp + (8 * j) as u64)?;
            }
            let f = flags.to_vec::<i32>()?;
            for j in 0..batch_now {
                if f[2 * j] == 0 {
                    k += j;
                    break 'outer;
                }
                if detect && k + j >= 1 && f[2 * j + 1] == 0 {
                    return Err(super::cpu::never_settles());
                }
            }
            k += batch_now;
            if limit == Some(k as u64) {
                break;
            }
            if detect && k > bound {
                return Err(super::cpu::never_settles());
            }
            batch = (batch * 2).min(MAX_BATCH);
        }
        state(k).view()
    };
    let ku = dev.kernel(&MorphKey::Unpack)?;
    let mut p = Params::new();
    p.push(dptr(&fin)?);
    p.push(g.rows);
    p.push(g.width);
    p.push(g.nw);
    p.push(dptr(out)?);
    p.push((plan.invert ^ r.out_not) as i32);
    // SAFETY: the parameters match `morph_unpack`; `fin` holds rows * nw words and `out`
    // rows * width bools, both alive until the stream has run the kernel.
    unsafe { p.launch(&dev, &ku, blocks((total * 32) as u64), THREADS) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::check_compiles;

    /// `morph_tile` run on the host, index for index (blocks, then threads in order: each
    /// phase of the kernel is separated by `__syncthreads`, so the order within one does not
    /// matter): `k` steps from `src` (u32 words).
    #[allow(clippy::too_many_arguments)]
    fn tile_emulated(
        src: &[u32],
        x0: &[u32],
        mask: Option<&[u32]>,
        rows: i64,
        nw: i64,
        tail: u32,
        bw: u32,
        taps: &[i32],
        k: usize,
    ) -> Vec<u32> {
        let (tr, tw) = (TILE_ROWS as i64, TILE_WORDS as i64);
        let rw = tw + 2;
        let rh = tr + 2 * k as i64;
        let mut dst = vec![0u32; src.len()];
        for by in 0..(rows as usize).div_ceil(TILE_ROWS) as i64 {
            for bx in 0..(nw as usize).div_ceil(TILE_WORDS) as i64 {
                let (r0, w0) = (by * tr - k as i64, bx * tw - 1);
                let inside = |gr: i64, gw: i64| gr >= 0 && gr < rows && gw >= 0 && gw < nw;
                let mut buf = vec![vec![0u32; (rh * rw) as usize]; 2];
                for i in 0..rh * rw {
                    let (rr, cc) = (i / rw, i % rw);
                    let (gr, gw) = (r0 + rr, w0 + cc);
                    buf[0][i as usize] = if inside(gr, gw) { src[(gr * nw + gw) as usize] } else { bw };
                }
                let mut cur = 0;
                for _ in 0..k {
                    let inb = buf[cur].clone();
                    for i in 0..rh * rw {
                        let (rr, cc) = (i / rw, i % rw);
                        let (gr, gw) = (r0 + rr, w0 + cc);
                        if !inside(gr, gw) {
                            buf[cur ^ 1][i as usize] = bw;
                            continue;
                        }
                        let mut acc = u32::MAX;
                        for t in taps.chunks(2) {
                            let (dr, shift) = (t[0] as i64, t[1]);
                            let nr = rr + dr;
                            if gr + dr < 0 || gr + dr >= rows {
                                if bw == 0 {
                                    acc = 0;
                                }
                                continue;
                            }
                            let at = |c: i64| inb[(nr * rw + c) as usize];
                            let v = if nr < 0 || nr >= rh {
                                bw
                            } else if shift == 0 {
                                at(cc)
                            } else if shift > 0 {
                                let hi = if cc + 1 < rw { at(cc + 1) } else { bw };
                                (at(cc) >> 1) | (hi << 31)
                            } else {
                                let lo = if cc > 0 { at(cc - 1) } else { bw };
                                (lo >> 31) | (at(cc) << 1)
                            };
                            acc &= v;
                        }
                        let idx = (gr * nw + gw) as usize;
                        if let Some(m) = mask {
                            acc = (acc & m[idx]) | (x0[idx] & !m[idx]);
                        }
                        if gw == nw - 1 {
                            acc = (acc & tail) | (bw & !tail);
                        }
                        buf[cur ^ 1][i as usize] = acc;
                    }
                    cur ^= 1;
                }
                for i in 0..tr * tw {
                    let (rr, cc) = (k as i64 + i / tw, 1 + i % tw);
                    let (gr, gw) = (r0 + rr, w0 + cc);
                    if gr < rows && gw < nw {
                        dst[(gr * nw + gw) as usize] = buf[cur][(rr * rw + cc) as usize];
                    }
                }
            }
        }
        dst
    }

    /// The tile kernel's scheme (halos, border cells, tails, masks) against single steps on
    /// random images of many sizes: tiles of `k` steps equal `k` steps.
    #[test]
    fn tiles_equal_steps() {
        let mut s: u64 = 0x7469_6c65;
        let mut rnd = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for trial in 0..60 {
            let rows = 1 + (rnd() % 80) as i64;
            let width = 1 + (rnd() % 400) as i64;
            let nw = (width + 31) / 32;
            let bw = if trial % 2 == 0 { 0 } else { u32::MAX };
            let tail = if width % 32 == 0 { u32::MAX } else { (1u32 << (width % 32)) - 1 };
            let fix = |v: Vec<u32>| -> Vec<u32> {
                v.iter()
                    .enumerate()
                    .map(|(i, &w)| if i as i64 % nw == nw - 1 { (w & tail) | (bw & !tail) } else { w })
                    .collect()
            };
            let density = rnd() % 4;
            let x0 = fix((0..rows * nw).map(|_| (0..density).fold(u32::MAX, |a, _| a & rnd() as u32)).collect());
            let mask: Option<Vec<u32>> =
                (trial % 3 == 0).then(|| (0..rows * nw).map(|_| rnd() as u32 | rnd() as u32).collect());
            let mut taps = vec![0, 0];
            for dr in -1..=1 {
                for sh in -1..=1 {
                    if (dr, sh) != (0, 0) && rnd() % 2 == 0 {
                        taps.extend([dr, sh]);
                    }
                }
            }
            let k = 1 + (rnd() % TILE_STEPS as u64) as usize;
            // k single steps: the tile kernel with one step a launch has a halo of one row and
            // one word, which a single step needs exactly; checked against the generic rule.
            let one = |src: &[u32]| -> Vec<u32> {
                let mut out = vec![0u32; src.len()];
                for r in 0..rows {
                    for w in 0..nw {
                        let mut acc = u32::MAX;
                        for t in taps.chunks(2) {
                            let (dr, sh) = (t[0] as i64, t[1] as i64);
                            if r + dr < 0 || r + dr >= rows {
                                if bw == 0 {
                                    acc = 0;
                                }
                                continue;
                            }
                            let mut v = 0u32;
                            for j in 0..32 {
                                let c = w * 32 + j + sh;
                                let bit = if c < 0 || c >= nw * 32 {
                                    bw & 1
                                } else {
                                    (src[((r + dr) * nw + c / 32) as usize] >> (c % 32)) & 1
                                };
                                v |= bit << j;
                            }
                            acc &= v;
                        }
                        let idx = (r * nw + w) as usize;
                        if let Some(m) = &mask {
                            acc = (acc & m[idx]) | (x0[idx] & !m[idx]);
                        }
                        out[idx] = if w == nw - 1 { (acc & tail) | (bw & !tail) } else { acc };
                    }
                }
                out
            };
            let mut want = x0.clone();
            for _ in 0..k {
                want = one(&want);
            }
            let got = tile_emulated(&x0, &x0, mask.as_deref(), rows, nw, tail, bw, &taps, k);
            assert_eq!(got, want, "trial {trial}: {rows} x {width}, k {k}, taps {taps:?}");
        }
    }

    #[test]
    fn sources_compile() {
        let mut compiled = 0;
        for k in [MorphKey::Pack, MorphKey::Unpack, MorphKey::Step, MorphKey::Tile] {
            assert!(k.source().contains(k.entry()));
            compiled += check_compiles(&k) as usize;
        }
        eprintln!("morphology kernels: {compiled} compiled by NVRTC");
    }
}
