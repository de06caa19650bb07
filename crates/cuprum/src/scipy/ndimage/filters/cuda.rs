//! The GPU filters (`filters.cu`): a kernel per 1-d pass (`corr1d`, one output a thread;
//! `uniform1d`, one line a thread for SciPy's running sum), the fused two-pass kernel of 2-d
//! separable correlations (`sep2d`: tile, halos and the rounded intermediate in shared memory)
//! and the N-d correlation (`corrnd`, one output a thread over the nonzero taps).

use super::{Kernel1d, Pass, Taps};
use crate::array::Array;
use crate::backend::cuda::codegen::{storage_ty, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, Params, THREADS};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// The fused kernel's output tile (columns, rows), the outputs a thread computes in a row or
/// column, and the most taps of each of its passes (compiled in: a kernel per pair of sizes).
const TW: usize = 32;
const TH: usize = 32;
const RB: usize = 4;
const MAXK: usize = 25;
/// Shared memory a block may take (the default limit), less the fused kernel's static taps.
const SHARED_BYTES: usize = 48 * 1024 - 2 * MAXK * 8;
/// Most dimensions of the N-d correlation.
const ND_MAX: usize = 32;
/// Most blocks of a grid-stride launch.
const MAX_BLOCKS: usize = 1 << 20;

/// Which kernel of `filters.cu`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Variant {
    Corr1d,
    Uniform1d,
    /// The fused kernel for `k0` and `k1` taps.
    Sep2d {
        k0: u32,
        k1: u32,
    },
    CorrNd,
}

/// One filter kernel: the variant and the input and output dtypes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct FilterKey {
    pub variant: Variant,
    pub input: DType,
    pub output: DType,
}

/// SciPy's C cast of a double `x` to `dt` (x86-64 semantics).
fn store_expr(dt: DType) -> &'static str {
    match dt {
        DType::Float64 => "(x)",
        // Filters reject complex arrays (`check_dtype`).
        DType::Complex64 | DType::Complex128 => unreachable!("complex filter output"),
        DType::Float32 | DType::Float16 => "((float)(x))",
        DType::Bool => "((bool)((unsigned char)nd_cvt32(x) != 0))",
        DType::Int8 => "((i8)nd_cvt32(x))",
        DType::Int16 => "((i16)nd_cvt32(x))",
        DType::UInt8 => "((u8)nd_cvt32(x))",
        DType::UInt16 => "((u16)nd_cvt32(x))",
        DType::Int32 => "(nd_cvt32(x))",
        DType::UInt32 => "((u32)nd_cvt64(x))",
        DType::Int64 => "(nd_cvt64(x))",
        DType::UInt64 => "(nd_cvtu64(x))",
    }
}

impl KernelKey for FilterKey {
    const FAMILY: &'static str = "ndimage_filters";
    fn entry(&self) -> &str {
        match self.variant {
            Variant::Corr1d => "corr1d",
            Variant::Uniform1d => "uniform1d",
            Variant::Sep2d { .. } => "sep2d",
            Variant::CorrNd => "corrnd",
        }
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        let mut d = vec![("THREADS", THREADS.to_string()), ("ND_MAX", ND_MAX.to_string())];
        if let Variant::Sep2d { k0, k1 } = self.variant {
            d.extend([
                ("TW", TW.to_string()),
                ("TH", TH.to_string()),
                ("RB", RB.to_string()),
                ("MAXK", MAXK.to_string()),
                ("K0", k0.to_string()),
                ("K1", k1.to_string()),
            ]);
        }
        d
    }
    fn source(&self) -> String {
        let load = if self.input == DType::Bool { "((v) ? 1.0 : 0.0)" } else { "((double)(v))" };
        let safe = if self.output == DType::UInt64 {
            "((x) > -1.0 ? nd_cvtu64(x) : (u64)(0ULL - nd_cvtu64(-(x))))".to_string()
        } else {
            "STOREO(x)".to_string()
        };
        format!(
            "{PRELUDE}#define VARIANT_{v}\ntypedef {ti} TI;\ntypedef {to} TO;\n#define LOADI(v) {load}\n\
             #define STOREO(x) {store}\n#define STOREMID(x) {mid}\n#define STORE_SAFE(x) {safe}\n{body}",
            mid = if self.output == DType::Bool { "((u8)nd_cvt32(x))" } else { "STOREO(x)" },
            v = match self.variant {
                Variant::Corr1d => "CORR1D",
                Variant::Uniform1d => "UNIFORM1D",
                Variant::Sep2d { .. } => "SEP2D",
                Variant::CorrNd => "CORRND",
            },
            ti = storage_ty(self.input),
            to = storage_ty(self.output),
            store = store_expr(self.output),
            body = include_str!("filters.cu"),
        )
    }
}

fn blocks(n: usize) -> u32 {
    n.div_ceil(THREADS as usize).clamp(1, MAX_BLOCKS) as u32
}

/// `(outer, n, inner)` of `shape` around `axis`.
fn split(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    (shape[..axis].iter().product(), shape[axis], shape[axis + 1..].iter().product())
}

/// One pass from `x` (C-contiguous) into `y` (C-contiguous, same shape).
fn pass(x: &Array, y: &Array, p: &Pass, cval: f64) -> Result<()> {
    let dev = dev_of(y)?;
    let (outer, n, inner) = split(x.shape(), p.axis);
    let (before, _) = p.halo();
    match &p.k {
        Kernel1d::Corr { w, sym } => {
            if w.len() > i32::MAX as usize || p.origin.unsigned_abs() > i32::MAX as u64 {
                return Err(Error::NotImplemented(format!("a filter of {} weights on the GPU", w.len())));
            }
            let wd = crate::from_slice(w, &[w.len()], &y.device())?;
            let k = dev.kernel(&FilterKey { variant: Variant::Corr1d, input: x.dtype(), output: y.dtype() })?;
            let mut pr = Params::new();
            pr.push(dptr(x)?);
            pr.push(dptr(y)?);
            pr.push(dptr(&wd)?);
            pr.push(outer as i64);
            pr.push(n as i64);
            pr.push(inner as i64);
            pr.push(w.len() as i32);
            pr.push(p.origin as i32);
            pr.push(*sym);
            pr.push(p.mode.code());
            pr.push(cval);
            // SAFETY: the parameters match `corr1d` in filters.cu; `x`, `y` (C-contiguous,
            // `outer * n * inner` elements of the key's dtypes) and `wd` (the weights) stay
            // alive until the stream has run it (the pool reuses freed blocks in stream order).
            unsafe { pr.launch(&dev, &k, blocks(outer * n * inner), THREADS) }
        }
        Kernel1d::Uniform { size } => {
            let k = dev.kernel(&FilterKey { variant: Variant::Uniform1d, input: x.dtype(), output: y.dtype() })?;
            let mut pr = Params::new();
            pr.push(dptr(x)?);
            pr.push(dptr(y)?);
            pr.push(outer as i64);
            pr.push(n as i64);
            pr.push(inner as i64);
            pr.push(*size as i64);
            pr.push(before);
            pr.push(p.mode.code());
            pr.push(cval);
            // A thread a line: small blocks, to spread few long lines over the SMs.
            let lines = outer * inner;
            let bs = if lines < 64 * 1024 { 64 } else { THREADS };
            let grid = lines.div_ceil(bs as usize).clamp(1, MAX_BLOCKS) as u32;
            // SAFETY: the parameters match `uniform1d` in filters.cu; `x` and `y` are
            // C-contiguous arrays of `outer * n * inner` elements of the key's dtypes, alive
            // until the stream has run it.
            unsafe { pr.launch(&dev, &k, grid, bs) }
        }
    }
}

/// The taps of a fused pass: weights (padded to `MAXK`), symmetry.
fn fusable(p: &Pass) -> Option<(&[f64], i32)> {
    match &p.k {
        Kernel1d::Corr { w, sym } if w.len() <= MAXK => Some((w, *sym)),
        _ => None,
    }
}

/// Shared memory of the fused kernel for `k0` x `k1` taps: both tiles, rows of an odd pitch.
fn sep_bytes(k0: usize, k1: usize) -> usize {
    let pitch = (TW + k1 - 1) | 1;
    ((TH + k0 - 1) * pitch + TH * pitch) * 8
}

/// Both passes of a 2-d separable correlation in one kernel.
fn sep2d(x: &Array, out: &Array, p0: &Pass, p1: &Pass, cval: f64) -> Result<()> {
    let dev = dev_of(out)?;
    let ((w0, sym0), (w1, sym1)) = (fusable(p0).expect("fusable"), fusable(p1).expect("fusable"));
    #[repr(C)]
    #[derive(Copy, Clone)]
    struct Taps2 {
        w0: [f64; MAXK],
        w1: [f64; MAXK],
    }
    let mut taps = Taps2 { w0: [0.0; MAXK], w1: [0.0; MAXK] };
    taps.w0[..w0.len()].copy_from_slice(w0);
    taps.w1[..w1.len()].copy_from_slice(w1);
    let (h, wd) = (x.shape()[0], x.shape()[1]);
    let variant = Variant::Sep2d { k0: w0.len() as u32, k1: w1.len() as u32 };
    let k = dev.kernel(&FilterKey { variant, input: x.dtype(), output: out.dtype() })?;
    let mut pr = Params::new();
    pr.push(dptr(x)?);
    pr.push(dptr(out)?);
    pr.push(h as i64);
    pr.push(wd as i64);
    pr.push(taps);
    pr.push(p0.halo().0 as i32);
    pr.push(p1.halo().0 as i32);
    pr.push(sym0);
    pr.push(sym1);
    pr.push(p0.mode.code());
    pr.push(p1.mode.code());
    pr.push(cval);
    let grid = (wd.div_ceil(TW), h.div_ceil(TH));
    if grid.0 > u32::MAX as usize || grid.1 > 65535 {
        return Err(Error::NotImplemented(format!("a {h} x {wd} image in the fused filter")));
    }
    // SAFETY: the parameters match `sep2d` in filters.cu (`Taps2` is its struct of MAXK + MAXK
    // doubles); `x` and `out` are C-contiguous h x wd arrays of the key's dtypes, alive until
    // the stream has run it; the dynamic shared memory holds both tiles (`sep_bytes`).
    unsafe {
        pr.launch_2d(&dev, &k, (grid.0 as u32, grid.1 as u32), (THREADS, 1), sep_bytes(w0.len(), w1.len()) as u32)
    }
}

/// The 1-d passes over `x` into `out` (C-contiguous, the output dtype).
pub(crate) fn passes(x: &Array, passes: &[Pass], cval: f64, out: &Array) -> Result<()> {
    let x = x.as_contiguous()?;
    if x.ndim() == 2 && passes.len() == 2 && passes[0].axis == 0 && passes[1].axis == 1 {
        if let (Some((w0, _)), Some((w1, _))) = (fusable(&passes[0]), fusable(&passes[1])) {
            if sep_bytes(w0.len(), w1.len()) <= SHARED_BYTES {
                return sep2d(&x, out, &passes[0], &passes[1], cval);
            }
        }
    }
    // Between passes a bool output keeps SciPy's whole byte: a uint8 intermediate.
    let mid = if out.dtype() == DType::Bool { DType::UInt8 } else { out.dtype() };
    let mut cur = x;
    for (i, p) in passes.iter().enumerate() {
        if i + 1 == passes.len() {
            pass(&cur, out, p, cval)?;
        } else {
            let next = Array::alloc(out.shape(), mid, out.device(), false)?;
            pass(&cur, &next, p, cval)?;
            cur = next;
        }
    }
    Ok(())
}

/// The N-d correlation `t` of `x` into `out` (C-contiguous, the output dtype).
pub(crate) fn correlate_nd(x: &Array, t: &Taps, out: &Array) -> Result<()> {
    let dev = dev_of(out)?;
    let x = x.as_contiguous()?;
    let (shape, nd): (Vec<i64>, usize) =
        if x.ndim() == 0 { (vec![1], 1) } else { (x.shape().iter().map(|&s| s as i64).collect(), x.ndim()) };
    if nd > ND_MAX {
        return Err(Error::NotImplemented(format!("a {nd}-d correlation on the GPU (at most {ND_MAX} dimensions)")));
    }
    let mut meta = shape.clone();
    for o in &t.offsets {
        if x.ndim() == 0 {
            meta.push(0);
        } else {
            meta.extend_from_slice(o);
        }
    }
    let mut w = t.weights.clone();
    if w.is_empty() {
        w.push(0.0); // (never read: no taps)
    }
    let md = crate::from_slice(&meta, &[meta.len()], &out.device())?;
    let wdv = crate::from_slice(&w, &[w.len()], &out.device())?;
    let total = out.size();
    let k = dev.kernel(&FilterKey { variant: Variant::CorrNd, input: x.dtype(), output: out.dtype() })?;
    let mut pr = Params::new();
    pr.push(dptr(&x)?);
    pr.push(dptr(out)?);
    pr.push(dptr(&md)?);
    pr.push(dptr(&wdv)?);
    pr.push(nd as i32);
    pr.push(t.weights.len() as i32);
    pr.push(total as i64);
    pr.push(t.mode.code());
    pr.push(t.cval);
    // SAFETY: the parameters match `corrnd` in filters.cu; `x` and `out` are C-contiguous
    // arrays of `total` elements of the key's dtypes; `md` holds the shape and `nd` offsets a
    // tap, `wdv` a weight a tap; all alive until the stream has run it.
    unsafe { pr.launch(&dev, &k, blocks(total), THREADS) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::{check_compiles, nvrtc_sample};
    use crate::core::dtype::REAL_DTYPES as ALL_DTYPES;

    /// Every variant and pair of dtypes: the prelude selects one kernel and (where NVRTC is
    /// present) a sample compiles.
    #[test]
    fn sources_compile() {
        let mut compiled = 0;
        let mut n = 0;
        for variant in [
            Variant::Corr1d,
            Variant::Uniform1d,
            Variant::Sep2d { k0: 17, k1: 17 },
            Variant::Sep2d { k0: 1, k1: MAXK as u32 },
            Variant::Sep2d { k0: 4, k1: 3 },
            Variant::CorrNd,
        ] {
            for input in ALL_DTYPES {
                for output in ALL_DTYPES {
                    if input == DType::Float16 || output == DType::Float16 {
                        continue;
                    }
                    let k = FilterKey { variant, input, output };
                    let src = k.source();
                    assert_eq!(src.matches("#define VARIANT_").count(), 1, "{k:?}");
                    // Every cast of the 1-d and fused kernels (each output dtype from float32, each
                    // input into float64), and a sample of the rest.
                    let casts = matches!(variant, Variant::Corr1d | Variant::Sep2d { k0: 17, .. })
                        && (input == DType::Float32 || output == DType::Float64);
                    if casts || nvrtc_sample(n) {
                        compiled += check_compiles(&k) as usize;
                    }
                    n += 1;
                }
            }
        }
        eprintln!("ndimage filter kernels: {compiled} compiled by NVRTC");
    }
}
