//! The GPU binary morphology (`morphology.cu`): the image packed to words of 32 pixels, one
//! launch a step (a thread a word), the steps of a run queued without waiting. A run until
//! stable launches batches of steps, each step raising a flag when it changed a word (and,
//! without the centre tap, when its output differs from the state two steps before: a
//! cycle), and reads the batch's flags back once.

use super::{Plan, Run};
use crate::array::Array;
use crate::backend::cuda::codegen::PRELUDE;
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, Params, MAX_DIMS, THREADS};
use crate::backend::cuda::CudaDevice;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// Ints of taps passed by value (each tap: its leading offsets and its shift).
const TAPS_INLINE: usize = 96;
/// Shared memory the taps may take.
const TAPS_SHARED_BYTES: usize = 32 * 1024;
/// Most blocks a grid-stride launch takes.
const MAX_BLOCKS: u64 = 1 << 20;
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
}

impl KernelKey for MorphKey {
    const FAMILY: &'static str = "ndimage_morphology";
    fn entry(&self) -> &str {
        match self {
            MorphKey::Pack => "morph_pack",
            MorphKey::Unpack => "morph_unpack",
            MorphKey::Step => "morph_step",
        }
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![
            ("THREADS", THREADS.to_string()),
            ("MAXD", (MAX_DIMS - 1).to_string()),
            ("TAPS_INLINE", TAPS_INLINE.to_string()),
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
    p.push(match x {
        Some(x) => dptr(x)?,
        None => 0u64,
    });
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
        p.push(match &mask {
            Some(m) => dptr(m)?,
            None => 0u64,
        });
        p.push(match older {
            Some(o) => dptr(o)?,
            None => 0u64,
        });
        p.push(flags);
        p.push(g.rows);
        p.push(g.nw);
        p.push(tail);
        p.push(g.bw);
        p.push(nl as i32);
        p.push(lead);
        p.push(plan.ntaps() as i32);
        p.push(inline);
        p.push(match &taps_g {
            Some(t) => dptr(t)?,
            None => 0u64,
        });
        p.push(shared as i32);
        let shmem = if shared { (taps.len() * 4) as u32 } else { 0 };
        // SAFETY: the parameters match `morph_step`; every word buffer holds rows * nw words,
        // `flags` (when not null) two ints, `taps_g` (when not null) the taps; all stay alive
        // until the stream has run the kernel (the caller keeps them to the end of `run`, and
        // the pool orders reuse on the stream). `shmem` bytes hold the taps when `shared`.
        unsafe { p.launch_shmem(&dev, &kstep, blocks(total as u64), THREADS, shmem) }
    };
    let fin: Array = if plan.iterations >= 1 && plan.iterations as u64 <= QUEUED_STEPS {
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

    #[test]
    fn sources_compile() {
        let mut compiled = 0;
        for k in [MorphKey::Pack, MorphKey::Unpack, MorphKey::Step] {
            assert!(k.source().contains(k.entry()));
            compiled += check_compiles(&k) as usize;
        }
        eprintln!("morphology kernels: {compiled} compiled by NVRTC");
    }
}
