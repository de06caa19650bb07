//! The GPU rank filters (`rank.cu`): a separable min/max pass (`minmax1d`), a 2-d box rank
//! with a shared-memory tile and a selection network in registers (`box2d`), and a general
//! N-d kernel (`nd`) for any footprint, rank or structure. For float inputs, where a window
//! meets a NaN, SciPy's own algorithms (the module's NaN section): its quickselect inside
//! `box2d` and `nd`; `minlist` after each separable pass, and `mediator` (SciPy's 1-d rank
//! path) or `nansel` (windows above `LOCAL_MAX`) after a rank filter, each gated by flags the
//! first kernel sets (a memset and a launch that return at once when nothing was flagged).

use super::cpu::{c_cast, cval_key, network};
use super::{line1d_cval, Op, Pass, Plan};
use crate::array::Array;
use crate::backend::cuda::codegen::storage_ty;
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, dptr_opt, Params, THREADS};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// The box kernel's threads per block in x and y and outputs a thread along y.
const TX: u32 = 32;
const TY: u32 = 8;
const RY: u32 = 2;
/// The largest box the box kernel takes (its window in registers).
const BOX_MAX: usize = 81;
/// The largest window the N-d kernel sorts with a network; up to `LOCAL_MAX` a quickselect
/// in a local buffer; beyond, counting.
const ND_NET_MAX: usize = 32;
const LOCAL_MAX: usize = 256;
/// Axes the N-d kernel takes.
const ND_MAX: usize = 8;
/// The most global scratch the NaN kernels take (rings of `minlist`, windows of `nansel`
/// beyond `LOCAL_MAX`): fewer threads, each taking more lines or outputs, beyond it.
const SCRATCH_BYTES: usize = 64 << 20;
/// The NaN kernels' most blocks (a full H100/H200 of threads, each looping over more work):
/// when nothing was flagged they only read the flag and return, and few blocks do that fast.
const NAN_GRID: usize = 1024;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Variant {
    MinMax1d,
    Box2d {
        kh: usize,
        kw: usize,
        rank: usize,
    },
    /// `net`: `Some((fs, rank))` sorts the window with a network.
    Nd {
        net: Option<(usize, usize)>,
        structure: bool,
    },
    /// SciPy's deque over the flagged lines of a separable pass (float dtypes).
    MinList,
    /// SciPy's quickselect over the windows holding a NaN (float dtypes).
    NanSel,
    /// SciPy's 1-d double heap over a flagged line (float dtypes).
    Mediator,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RankKey {
    pub dtype: DType,
    pub mode: i32,
    /// 0 min, 1 max, 2 rank.
    pub op: i32,
    pub variant: Variant,
}

/// The network selecting element `k` of `n` as CUDA statements.
fn net_code(n: usize, k: usize) -> String {
    let mut s = String::new();
    for (a, b, kind) in network(n, k) {
        let m = match kind {
            0 => "CS",
            1 => "CMIN",
            _ => "CMAX",
        };
        s.push_str(&format!("{m}({a},{b}) "));
    }
    s
}

impl KernelKey for RankKey {
    const FAMILY: &'static str = "ndimage_rank";
    fn entry(&self) -> &str {
        match self.variant {
            Variant::MinMax1d => "minmax1d",
            Variant::Box2d { .. } => "box2d",
            Variant::Nd { .. } => "nd",
            Variant::MinList => "minlist",
            Variant::NanSel => "nansel",
            Variant::Mediator => "mediator",
        }
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        let mut d = vec![("THREADS", THREADS.to_string())];
        match &self.variant {
            Variant::Box2d { kh, kw, rank } => {
                d.push(("TX", TX.to_string()));
                d.push(("TY", TY.to_string()));
                d.push(("RY", RY.to_string()));
                d.push(("KH", kh.to_string()));
                d.push(("KW", kw.to_string()));
                d.push(("RANK", rank.to_string()));
            }
            Variant::Nd { .. } | Variant::NanSel => {
                d.push(("ND_MAX", ND_MAX.to_string()));
                d.push(("LOCAL_MAX", LOCAL_MAX.to_string()));
            }
            Variant::MinMax1d | Variant::MinList | Variant::Mediator => {}
        }
        d
    }
    fn source(&self) -> String {
        // The keys of radix_keys.cuh (sort's), -0.0 keeping its own key: the value comes back.
        let mut pre = format!(
            "{}#define MODE {mode}\n#define OP {op}\n",
            crate::sort::cuda::key_prelude(self.dtype, false),
            mode = self.mode,
            op = self.op
        );
        match &self.variant {
            Variant::MinMax1d => pre.push_str("#define VARIANT_MINMAX1D\n"),
            Variant::MinList => pre.push_str("#define VARIANT_MINLIST\n"),
            Variant::NanSel => pre.push_str("#define VARIANT_NANSEL\n"),
            Variant::Mediator => pre.push_str("#define VARIANT_MEDIATOR\n"),
            Variant::Box2d { kh, kw, rank } => {
                pre.push_str("#define VARIANT_BOX2D\n");
                pre.push_str(&format!("#define NET {}\n", net_code(kh * kw, *rank)));
            }
            Variant::Nd { net, structure } => {
                pre.push_str("#define VARIANT_ND\n");
                if let Some((fs, rank)) = net {
                    pre.push_str(&format!(
                        "#define FS {fs}\n#define RANK {rank}\n#define NET {}\n",
                        net_code(*fs, *rank)
                    ));
                }
                if *structure {
                    let sv = match self.dtype {
                        DType::Bool => "u8",
                        d => storage_ty(d),
                    };
                    pre.push_str(&format!(
                        "#define STRUCT\ntypedef {sv} SV;\n#define IS_BOOL {}\n#define IS_UNSIGNED {}\n#define IS_U64 {}\n",
                        (self.dtype == DType::Bool) as i32,
                        self.dtype.is_unsigned_int() as i32,
                        (self.dtype == DType::UInt64) as i32
                    ));
                }
            }
        }
        pre + include_str!("rank.cu")
    }
}

fn push_key(p: &mut Params, dt: DType, k: u64) {
    match dt.itemsize() {
        1 => p.push(k as u8),
        2 => p.push(k as u16),
        4 => p.push(k as u32),
        _ => p.push(k),
    }
}

fn grid(total: usize) -> u32 {
    total.div_ceil(THREADS as usize).clamp(1, 1 << 20) as u32
}

/// A launch of threads that each need `per` elements of 8-byte scratch, for `work` items:
/// (grid, block, scratch elements), at most [`SCRATCH_BYTES`] of scratch unless one thread
/// alone needs more.
fn scratch_launch(work: usize, per: usize) -> (u32, u32, usize) {
    let threads = work.min((SCRATCH_BYTES / (per.max(1) * 8)).max(1)).clamp(1, NAN_GRID * THREADS as usize);
    let block = threads.min(THREADS as usize);
    let grid = threads.div_ceil(block);
    (grid as u32, block as u32, grid * block * per)
}

/// Separable min/max passes in turn (`x`, `out` C-contiguous; intermediate results in
/// temporaries from the pool).
pub(crate) fn minmax_passes(x: &Array, out: &Array, passes: &[Pass]) -> Result<()> {
    let mut cur: Option<Array> = None;
    for (i, p) in passes.iter().enumerate() {
        let dst =
            if i + 1 == passes.len() { out.view() } else { Array::alloc(x.shape(), x.dtype(), out.device(), false)? };
        minmax1d(cur.as_ref().unwrap_or(x), &dst, p)?;
        cur = Some(dst);
    }
    Ok(())
}

/// One separable min/max pass (`x`, `out` C-contiguous).
fn minmax1d(x: &Array, out: &Array, p: &Pass) -> Result<()> {
    let dev = dev_of(out)?;
    let dt = x.dtype();
    let shape = x.shape();
    let outer: usize = shape[..p.axis].iter().product();
    let n = shape[p.axis];
    let inner: usize = shape[p.axis + 1..].iter().product();
    // Both kernels' first parameters: the arrays and the [outer, n, inner] lines.
    let lines_params = || -> Result<Params> {
        let mut prm = Params::new();
        prm.push(dptr(x)?);
        prm.push(dptr(out)?);
        prm.push(outer as i64);
        prm.push(n as i64);
        prm.push(inner as i64);
        Ok(prm)
    };
    let key = RankKey { dtype: dt, mode: p.mode.code(), op: p.max as i32, variant: Variant::MinMax1d };
    let k = dev.kernel(&key)?;
    let mut prm = lines_params()?;
    prm.push(p.size as i32);
    let start = -((p.size / 2) as i64) - p.origin;
    prm.push(start);
    push_key(&mut prm, dt, cval_key(dt, p.cval));
    // Float lines whose windows meet a NaN are flagged, and SciPy's deque reruns them.
    let lines = outer * inner;
    let flags = if dt.is_float() { Some(crate::zeros(&[lines], DType::Int32, &out.device())?) } else { None };
    prm.push(dptr_opt(flags.as_ref())?);
    // SAFETY: the parameters match `minmax1d` in rank.cu; `x` and `out` are C-contiguous arrays
    // of `dt` with `outer * n * inner` elements and `flags` (when given) int32 of `lines`, all
    // alive until the stream has run the kernel (the pool orders reuse on the stream).
    unsafe { prm.launch(&dev, &k, grid(out.size()), THREADS)? };
    let Some(flags) = flags else { return Ok(()) };
    let key = RankKey { dtype: dt, mode: p.mode.code(), op: p.max as i32, variant: Variant::MinList };
    let k = dev.kernel(&key)?;
    let (g, block, scratch) = scratch_launch(lines, p.size);
    let ring = Array::alloc(&[scratch], DType::Int64, out.device(), false)?;
    let mut prm = lines_params()?;
    prm.push(p.size as i64);
    prm.push(start);
    prm.push(p.cval);
    prm.push(dptr(&flags)?);
    prm.push(dptr(&ring)?);
    // SAFETY: the parameters match `minlist` in rank.cu; `x`, `out` and `flags` as above;
    // `ring` holds `p.size` int64 for each of the `g * block` threads.
    unsafe { prm.launch(&dev, &k, g, block) }
}

/// The window's elements relative to their output, per axis (`nd` int32 per element, on
/// `dv`), and the kernels' `Dims` (the rank, then the lengths).
fn taps_dims(plan: &Plan, shape: &[usize], dv: &crate::Device) -> Result<(Array, [i64; ND_MAX + 1])> {
    let nd = shape.len();
    let start = plan.start();
    let mut taps: Vec<i32> = Vec::with_capacity(plan.size() * nd + 1);
    for t in plan.taps() {
        for d in 0..nd {
            let v = t[d] as i64 + start[d];
            taps.push(i32::try_from(v).map_err(|_| Error::NotImplemented("a footprint this large on the GPU".into()))?);
        }
    }
    taps.push(0);
    let mut dims = [0i64; ND_MAX + 1];
    dims[0] = nd as i64;
    for (d, &n) in shape.iter().enumerate() {
        dims[d + 1] = n as i64;
    }
    Ok((crate::from_vec(taps, dv)?, dims))
}

/// A non-separable filter (`x`, `out` C-contiguous of the same shape).
pub(crate) fn filter(x: &Array, out: &Array, plan: &Plan) -> Result<()> {
    let dev = dev_of(out)?;
    let dt = x.dtype();
    let shape = x.shape();
    let fs = plan.size();
    let start = plan.start();
    let op = match plan.op {
        Op::Min => 0,
        Op::Max => 1,
        Op::Rank(_) => 2,
    };
    let rank = match plan.op {
        Op::Min => 0,
        Op::Max => fs - 1,
        Op::Rank(k) => k,
    };
    let dv = out.device();
    let box_ok = shape.len() == 2
        && plan.structure.is_none()
        && plan.mask.iter().all(|&b| b)
        && op == 2
        && fs <= BOX_MAX
        && shape[0] <= (65535 * (TY * RY) as usize);
    // Windows that meet a NaN take SciPy's quickselect in box2d and nd themselves; where SciPy
    // takes its 1-d path, or a window is too large for nd's local buffer, nd flags them for a
    // kernel after it (a flag and a launch that only rank filters of floats pay, and only
    // those two cases).
    let mediator = op == 2 && dt.is_float() && plan.line1d;
    let nansel = op == 2 && dt.is_float() && !box_ok && fs > LOCAL_MAX;
    let flag = if mediator || nansel { Some(crate::zeros(&[1], DType::Int32, &dv)?) } else { None };
    if box_ok {
        let (kh, kw) = (plan.fshape[0], plan.fshape[1]);
        let key = RankKey { dtype: dt, mode: plan.mode.code(), op, variant: Variant::Box2d { kh, kw, rank } };
        let k = dev.kernel(&key)?;
        let mut prm = Params::new();
        prm.push(dptr(x)?);
        prm.push(dptr(out)?);
        prm.push(shape[0] as i64);
        prm.push(shape[1] as i64);
        prm.push(start[0]);
        prm.push(start[1]);
        push_key(&mut prm, dt, cval_key(dt, plan.cval));
        let gx = shape[1].div_ceil(TX as usize);
        let gy = shape[0].div_ceil((TY * RY) as usize);
        if gx > u32::MAX as usize {
            return Err(Error::NotImplemented(format!(
                "a {} rank filter on the GPU",
                crate::core::error::shape_str(shape)
            )));
        }
        // SAFETY: the parameters match `box2d` in rank.cu; `x` and `out` are C-contiguous h x w
        // arrays of `dt`, alive until the stream has run it; the tile is a static shared array.
        unsafe { prm.launch_2d(&dev, &k, (gx as u32, gy as u32), (TX, TY), 0)? };
    } else {
        let nd = shape.len();
        if nd > ND_MAX {
            return Err(Error::NotImplemented(format!("a rank filter over {nd} axes on the GPU (at most {ND_MAX})")));
        }
        let net = if op == 2 && fs <= ND_NET_MAX && plan.structure.is_none() { Some((fs, rank)) } else { None };
        let key = RankKey {
            dtype: dt,
            mode: plan.mode.code(),
            op: if plan.structure.is_some() { (plan.op == Op::Max) as i32 } else { op },
            variant: Variant::Nd { net, structure: plan.structure.is_some() },
        };
        let k = dev.kernel(&key)?;
        let (taps, dims) = taps_dims(plan, shape, &dv)?;
        let ss = match &plan.structure {
            Some(s) => Some(crate::from_vec(s.clone(), &dv)?),
            None => None,
        };
        let cv = if plan.structure.is_some() && dt == DType::Bool {
            c_cast(plan.cval, DType::UInt8) as u64
        } else {
            cval_key(dt, plan.cval)
        };
        let mut prm = Params::new();
        prm.push(dptr(x)?);
        prm.push(dptr(out)?);
        prm.push_i64s(&dims);
        prm.push(out.size() as i64);
        prm.push(dptr(&taps)?);
        prm.push(fs as i32);
        prm.push(rank as i32);
        push_key(&mut prm, dt, cv);
        prm.push(dptr_opt(ss.as_ref())?);
        prm.push(dptr_opt(flag.as_ref())?);
        // SAFETY: the parameters match `nd` in rank.cu (Dims is nd then ND_MAX lengths); `x`,
        // `out` (C-contiguous, `dt`), `taps` (fs x nd int32), `ss` (fs float64, or null when no
        // structure is compiled in) and `flag` (one int32 or null) stay alive until the stream
        // has run it: the arrays are dropped after the launch is queued, and the pool orders
        // their reuse on the stream.
        unsafe { prm.launch(&dev, &k, grid(out.size()), THREADS)? };
    }
    match flag {
        Some(flag) => nan_ranks(x, out, plan, &flag, rank, mediator),
        None => Ok(()),
    }
}

/// SciPy's algorithms for a rank filter whose windows met a NaN (`flag` set by `nd`): its
/// 1-d double heap over the whole line (`mediator`: where SciPy takes its 1-d path), else
/// its quickselect over each window holding a NaN, for windows above `LOCAL_MAX`.
fn nan_ranks(x: &Array, out: &Array, plan: &Plan, flag: &Array, rank: usize, mediator: bool) -> Result<()> {
    let dev = dev_of(out)?;
    let dt = x.dtype();
    let dv = out.device();
    let (n, w) = (x.size() as i64, plan.mask.len() as i64);
    if mediator {
        let key = RankKey { dtype: dt, mode: plan.mode.code(), op: 2, variant: Variant::Mediator };
        let k = dev.kernel(&key)?;
        // pos, heap (int64) and data (float64), w each.
        let scratch = Array::alloc(&[3 * w as usize], DType::Int64, dv, false)?;
        let base = dptr(&scratch)?;
        let cval = line1d_cval(dt, plan.cval);
        let mut prm = Params::new();
        prm.push(dptr(x)?);
        prm.push(dptr(out)?);
        prm.push(n);
        prm.push(w);
        prm.push(rank as i64);
        prm.push(plan.origins[0]);
        prm.push(cval);
        prm.push(dptr(flag)?);
        prm.push(base);
        prm.push(base + 8 * w as u64);
        prm.push(base + 16 * w as u64);
        // SAFETY: the parameters match `mediator` in rank.cu; `x` and `out` are 1-d arrays of
        // `dt` with `n` elements, `flag` one int32, `scratch` 3w 8-byte elements split in three;
        // its reads stay inside the line (mediator_inside); all alive until the stream has run it.
        return unsafe { prm.launch(&dev, &k, 1, 1) };
    }
    let key = RankKey { dtype: dt, mode: plan.mode.code(), op: 2, variant: Variant::NanSel };
    let k = dev.kernel(&key)?;
    let (taps, dims) = taps_dims(plan, x.shape(), &dv)?;
    let (fs, total) = (plan.size(), out.size());
    let (g, block, scratch) = scratch_launch(total, fs);
    let sc = Array::alloc(&[scratch], DType::Float64, dv, false)?;
    let mut prm = Params::new();
    prm.push(dptr(x)?);
    prm.push(dptr(out)?);
    prm.push_i64s(&dims);
    prm.push(total as i64);
    prm.push(dptr(&taps)?);
    prm.push(fs as i32);
    prm.push(rank as i32);
    push_key(&mut prm, dt, cval_key(dt, plan.cval));
    prm.push(dptr(flag)?);
    prm.push(dptr(&sc)?);
    // SAFETY: the parameters match `nansel` in rank.cu; `x`, `out`, `taps` as for `nd`; `flag`
    // one int32; `sc` fs float64 for each of the g * block threads.
    unsafe { prm.launch(&dev, &k, g, block) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::{check_compiles, nvrtc_sample};
    use crate::core::dtype::REAL_DTYPES as ALL_DTYPES;

    /// Every dtype and variant selects one kernel and (where NVRTC is present) compiles.
    #[test]
    fn sources_compile() {
        let mut compiled = 0;
        let mut n = 0;
        for dtype in ALL_DTYPES {
            let variants = [
                (0, Variant::MinMax1d),
                (1, Variant::MinMax1d),
                (2, Variant::Box2d { kh: 5, kw: 5, rank: 12 }),
                (2, Variant::Box2d { kh: 2, kw: 3, rank: 1 }),
                (0, Variant::Nd { net: None, structure: false }),
                (2, Variant::Nd { net: Some((7, 3)), structure: false }),
                (2, Variant::Nd { net: None, structure: false }),
                (1, Variant::Nd { net: None, structure: dtype != DType::Float16 }),
            ];
            let nan_variants: &[(i32, Variant)] = if dtype.is_float() {
                &[(0, Variant::MinList), (1, Variant::MinList), (2, Variant::NanSel), (2, Variant::Mediator)]
            } else {
                &[]
            };
            let variants = variants.iter().chain(nan_variants).cloned();
            for (op, variant) in variants {
                // The NaN kernels' code differs by mode (the 1-d heap's edges): every mode.
                let modes = if matches!(variant, Variant::MinList | Variant::NanSel | Variant::Mediator) {
                    vec![0, 1, 2, 3, 4]
                } else {
                    vec![2, 4]
                };
                for mode in modes {
                    let k = RankKey { dtype, mode, op, variant: variant.clone() };
                    let src = k.source();
                    assert_eq!(src.matches("#define VARIANT_").count(), 1, "{k:?}");
                    if dtype == DType::Float32 || dtype == DType::Float16 || dtype == DType::Bool || nvrtc_sample(n) {
                        compiled += check_compiles(&k) as usize;
                    }
                    n += 1;
                }
            }
        }
        eprintln!("ndimage rank kernels: {compiled} compiled by NVRTC");
    }
}
