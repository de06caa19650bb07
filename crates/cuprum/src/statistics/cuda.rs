//! Quantiles on a GPU (`quantile.cu`): a radix select for the quantiles of one lane (no
//! sort, nothing read back), sorted lanes and a pick along an axis.

use super::Interp;
use crate::array::Array;
use crate::backend::cuda::codegen::{storage_ty, store_cvt, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, Params};
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::sort::cuda::{key_bytes, key_prelude};

/// Threads per block of the selection (one per 8-bit digit), and keys a thread takes at least.
const SEL_THREADS: u32 = crate::sort::cuda::RADIX;
const SEL_ITEMS: usize = 16;
/// Blocks an SM of the selection's first levels; levels after the third launch fewer (they
/// usually find the selection finished by the one-block tail).
const SEL_BLOCKS_PER_SM: u32 = 4;
const SEL_LATE_BLOCKS_PER_SM: u32 = 2;
/// Threads per block of the pick.
const PICK_THREADS: u32 = crate::backend::cuda::launch::THREADS;

/// One quantile kernel: a level of the radix select, or the pick from sorted lanes; `out` is
/// the result's dtype.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum QuantileKey {
    Select { dt: DType, out: DType },
    Pick { dt: DType, out: DType },
}

impl KernelKey for QuantileKey {
    const FAMILY: &'static str = "statistics";
    fn entry(&self) -> &str {
        match self {
            QuantileKey::Select { .. } => "sel_pass",
            QuantileKey::Pick { .. } => "qpick",
        }
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        match self {
            QuantileKey::Select { .. } => vec![("THREADS", SEL_THREADS.to_string()), ("ITEMS", SEL_ITEMS.to_string())],
            QuantileKey::Pick { .. } => vec![("THREADS", PICK_THREADS.to_string())],
        }
    }
    fn source(&self) -> String {
        let (variant, dt, out, canon) = match *self {
            QuantileKey::Select { dt, out } => ("SELECT", dt, out, true),
            QuantileKey::Pick { dt, out } => ("PICK", dt, out, false),
        };
        let qnan = match out {
            DType::Float16 => "0x7e00",
            DType::Float32 => "__int_as_float(0x7fc00000)",
            DType::Float64 => "__longlong_as_double(0x7ff8000000000000ll)",
            _ => "(O)0",
        };
        format!(
            "#define VARIANT_{variant}\n{keys}typedef {o} O;\n#define KEEPS_SAME {same}\n#define MEAN_F32 {mf}\n\
             #define QNAN {qnan}\n#define QSTORE(r) {store}\n{body}",
            keys = key_prelude(dt, canon),
            o = storage_ty(out),
            same = (out == dt) as i32,
            mf = matches!(dt, DType::Float16 | DType::Float32) as i32,
            store = store_cvt(DType::Float64, out, "(r)"),
            body = include_str!("quantile.cu"),
        )
    }
}

/// Quantiles `qs` of the `lanes` lanes of the C-contiguous `x` (lanes along the last axis)
/// into `out` of shape `(len(qs), lanes)`: a radix select per `q` for one lane, else sorted
/// lanes and a pick.
pub(crate) fn quantiles(
    x: &Array,
    lanes: usize,
    qs: &[f64],
    method: Interp,
    ignore_nan: bool,
    out: &Array,
) -> Result<()> {
    let m = method_code(method);
    if lanes == 1 {
        let flat = x.reshape([x.size()])?;
        for (k, &q) in qs.iter().enumerate() {
            let o = out.slice([crate::SliceElem::Index(k as isize), crate::SliceElem::Index(0)])?;
            select_quantile(&flat, q, m, ignore_nan, &o)?;
        }
    } else {
        let sorted = Array::alloc(x.shape(), x.dtype(), x.device(), false)?;
        crate::sort::cuda::sort_lanes(x, Some(&sorted), None)?;
        pick_quantiles(&sorted, qs, m, ignore_nan, out)?;
    }
    Ok(())
}

/// Bytes of the selection state (`SelState`).
const SEL_STATE_BYTES: usize = 2 * 256 * 8 + 6 * 8 + 8 + 8 + 8;

/// Quantile method codes of the kernels (the order of `QuantileMethod`, then median's mean).
fn method_code(m: Interp) -> i32 {
    use crate::QuantileMethod::*;
    match m {
        Interp::Method(Linear) => 0,
        Interp::Method(Lower) => 1,
        Interp::Method(Higher) => 2,
        Interp::Method(Nearest) => 3,
        Interp::Method(Midpoint) => 4,
        Interp::MedianMean => 5,
    }
}

/// The quantile `q` of the C-contiguous 1-d `x` (n > 0) into the 0-d `out`, by radix select.
pub(crate) fn select_quantile(x: &Array, q: f64, method: i32, ignore_nan: bool, out: &Array) -> Result<()> {
    let dev = dev_of(x)?;
    let n = x.size();
    let dt = x.dtype();
    let levels = key_bytes(dt);
    let k = dev.kernel(&QuantileKey::Select { dt, out: out.dtype() })?;
    let cand = if levels > 1 { n * key_bytes(dt) } else { 0 }.next_multiple_of(16);
    let ncand_bufs = if levels > 3 { 2 } else { 1 };
    // The candidate buffers start 256-byte aligned (the kernel reads them 16 bytes at a time).
    let state = SEL_STATE_BYTES.next_multiple_of(256);
    let tmp = Array::alloc(&[state + ncand_bufs * cand], DType::UInt8, x.device(), false)?;
    let t = dptr(&tmp)?;
    dev.memset_zero(t, SEL_STATE_BYTES)?;
    let cbuf = [t + state as u64, t + (state + (ncand_bufs - 1) * cand) as u64];
    let grid = dev.grid_for(n, SEL_THREADS as usize * SEL_ITEMS).min(dev.sm_count * SEL_BLOCKS_PER_SM);
    for level in 0..levels {
        // Level L >= 1 writes buffer L % 2 and level L >= 2 reads buffer (L - 1) % 2.
        let cin = if level >= 2 { cbuf[(level - 1) % 2] } else { 0 };
        let cout = if level >= 1 { cbuf[level % 2] } else { 0 };
        let mut p = Params::new();
        p.push(dptr(x)?);
        p.push(n as i64);
        p.push(cin);
        p.push(cout);
        p.push(t);
        p.push(q);
        p.push(method);
        p.push(ignore_nan as i32);
        p.push(dptr(out)?);
        p.push(level as i32);
        let g = if level >= 3 { grid.min(dev.sm_count * SEL_LATE_BLOCKS_PER_SM) } else { grid };
        // SAFETY: parameters match `sel_pass`; `tmp` lives until the stream has run it.
        unsafe { p.launch(&dev, &k, g, SEL_THREADS)? };
    }
    drop(tmp);
    Ok(())
}

/// Quantiles `qs` of the sorted lanes of `sorted` (C-contiguous, lanes along the last axis)
/// into `out` of shape `(len(qs), lanes)`.
pub(crate) fn pick_quantiles(sorted: &Array, qs: &[f64], method: i32, ignore_nan: bool, out: &Array) -> Result<()> {
    let dev = dev_of(sorted)?;
    let len = *sorted.shape().last().unwrap_or(&1);
    let lanes = sorted.size() / len.max(1);
    let dt = sorted.dtype();
    let k = dev.kernel(&QuantileKey::Pick { dt, out: out.dtype() })?;
    let qd = crate::from_slice(qs, &[qs.len()], &sorted.device())?;
    let mut p = Params::new();
    p.push(dptr(sorted)?);
    p.push(lanes as i64);
    p.push(len as i64);
    p.push(dptr(&qd)?);
    p.push(qs.len() as i64);
    p.push(method);
    p.push(ignore_nan as i32);
    p.push(dptr(out)?);
    let n = lanes * qs.len();
    // SAFETY: parameters match `qpick`; `qd` lives until the stream has run it.
    unsafe { p.launch(&dev, &k, dev.grid_for(n, PICK_THREADS as usize), PICK_THREADS) }
}

// ---------------------------------------------------------------- counting (binned.cu)

/// Dynamic shared memory for per-block bins of `bincount`/`histogram` (the default limit).
const SHARED_BINS_BYTES: usize = 48 * 1024;
/// Threads per block of the counting kernels.
const BIN_THREADS: u32 = crate::backend::cuda::launch::THREADS;

/// One counting kernel of `binned.cu`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum BinnedKey {
    /// Counts (or float64 weight sums) of non-negative integers.
    Bincount { x: DType, weighted: bool },
    /// Counts (or weight sums) over bin edges (`uniform`: NumPy's formula for equal bins).
    Histogram { x: DType, uniform: bool, weighted: bool },
}

impl KernelKey for BinnedKey {
    const FAMILY: &'static str = "statistics";
    fn entry(&self) -> &str {
        match self {
            BinnedKey::Bincount { .. } => "bincount",
            BinnedKey::Histogram { .. } => "histogram",
        }
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("THREADS", BIN_THREADS.to_string())]
    }
    fn source(&self) -> String {
        let prelude = match *self {
            BinnedKey::Bincount { x, weighted } => {
                format!(
                    "#define VARIANT_BINCOUNT\ntypedef {} XT;\n#define WEIGHTED {}\n",
                    storage_ty(x),
                    weighted as i32
                )
            }
            BinnedKey::Histogram { x, uniform, weighted } => {
                let load = if x == DType::Float16 { "(double)h2f(v)" } else { "(double)(v)" };
                format!(
                    "#define VARIANT_HISTOGRAM\ntypedef {} XT;\n#define WEIGHTED {}\n#define UNIFORM {}\n#define LOAD_F64(v) {load}\n",
                    storage_ty(x),
                    weighted as i32,
                    uniform as i32
                )
            }
        };
        format!("{PRELUDE}{prelude}{}", include_str!("binned.cu"))
    }
}

/// Launch shape of a binned kernel: grid, whether bins live in shared memory, its bytes.
fn binned_launch(dev: &crate::backend::cuda::CudaDevice, n: usize, nb: usize) -> (u32, bool, u32) {
    let shared = nb * 8 <= SHARED_BINS_BYTES;
    if shared {
        // Few blocks: each zeroes and flushes all its bins.
        let grid = n.div_ceil(BIN_THREADS as usize * 16).clamp(1, dev.sm_count as usize * 2) as u32;
        (grid, true, (nb * 8) as u32)
    } else {
        (dev.grid_for(n, BIN_THREADS as usize), false, 0)
    }
}

/// The parameters every kernel of `binned.cu` starts with: n, x, w (or null), out,
/// the number of bins, whether the bins are in shared memory.
fn binned_params(x: &Array, w: Option<&Array>, out: &Array, shared: bool) -> Result<Params> {
    let mut p = Params::new();
    p.push(x.size() as i64);
    p.push(dptr(x)?);
    p.push(w.map(dptr).transpose()?.unwrap_or(0));
    p.push(dptr(out)?);
    p.push(out.size() as i64);
    p.push(shared as i32);
    Ok(p)
}

/// Adds the counts (or `w`'s float64 weights) of the values of `x` (C-contiguous, all in
/// `[0, nb)`) into the zeroed `out` (`nb` int64 or float64). Does not wait.
pub(crate) fn bincount(x: &Array, w: Option<&Array>, out: &Array) -> Result<()> {
    let dev = dev_of(out)?;
    let n = x.size();
    let nb = out.size();
    if n == 0 || nb == 0 {
        return Ok(());
    }
    let k = dev.kernel(&BinnedKey::Bincount { x: x.dtype(), weighted: w.is_some() })?;
    let (grid, shared, shmem) = binned_launch(&dev, n, nb);
    let p = binned_params(x, w, out, shared)?;
    // SAFETY: the parameters match `bincount` in binned.cu; `shmem` holds `nb` 8-byte bins.
    unsafe { p.launch_shmem(&dev, &k, grid, BIN_THREADS, shmem) }
}

/// Adds the histogram of `x` (C-contiguous) over `edges` (float64, `nb + 1` values on the
/// device) into the zeroed `out` (`nb` int64 counts or float64 sums of `w`). `uniform` uses
/// NumPy's formula for equal bins between `lo` and `hi`. Does not wait.
pub(crate) fn histogram(
    x: &Array,
    w: Option<&Array>,
    edges: &Array,
    uniform: bool,
    lo: f64,
    hi: f64,
    out: &Array,
) -> Result<()> {
    let dev = dev_of(out)?;
    let n = x.size();
    let nb = out.size();
    if n == 0 || nb == 0 {
        return Ok(());
    }
    let key = BinnedKey::Histogram { x: x.dtype(), uniform, weighted: w.is_some() };
    let k = dev.kernel(&key)?;
    let (grid, shared, shmem) = binned_launch(&dev, n, nb);
    let mut p = binned_params(x, w, out, shared)?;
    p.push(dptr(edges)?);
    p.push(lo);
    p.push(hi);
    p.push(hi - lo);
    // SAFETY: the parameters match `histogram` in binned.cu; `shmem` holds `nb` 8-byte bins.
    unsafe { p.launch_shmem(&dev, &k, grid, BIN_THREADS, shmem) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::{check_compiles, nvrtc_sample};
    use crate::core::dtype::REAL_DTYPES as ALL_DTYPES;

    /// Every quantile kernel (each input dtype, its own and float64 results): the prelude
    /// selects one kernel of `quantile.cu`, and (where NVRTC is present) it compiles.
    #[test]
    fn sources_compile() {
        let (mut n, mut compiled) = (0, 0);
        for &dt in ALL_DTYPES.iter() {
            for out in [dt, DType::Float64] {
                for k in [QuantileKey::Select { dt, out }, QuantileKey::Pick { dt, out }] {
                    let src = k.source();
                    assert_eq!(src.matches("#define VARIANT_").count(), 1, "{k:?}");
                    assert_eq!(src.matches('{').count(), src.matches('}').count(), "{k:?}: braces");
                    if nvrtc_sample(n) || matches!(k, QuantileKey::Pick { .. }) && n < 4 {
                        compiled += check_compiles(&k) as usize;
                    }
                    n += 1;
                }
            }
        }
        for &x in ALL_DTYPES.iter() {
            for weighted in [false, true] {
                let mut keys = vec![BinnedKey::Histogram { x, uniform: false, weighted }];
                keys.push(BinnedKey::Histogram { x, uniform: true, weighted });
                if x.is_integer() || x == DType::Bool {
                    keys.push(BinnedKey::Bincount { x, weighted });
                }
                for k in keys {
                    let src = k.source();
                    assert_eq!(src.matches("#define VARIANT_").count(), 1, "{k:?}");
                    assert_eq!(src.matches('{').count(), src.matches('}').count(), "{k:?}: braces");
                    if nvrtc_sample(n) {
                        compiled += check_compiles(&k) as usize;
                    }
                    n += 1;
                }
            }
        }
        let h = BinnedKey::Histogram { x: DType::Int32, uniform: true, weighted: true }.source();
        assert!(h.contains("#define WEIGHTED 1\n#define UNIFORM 1\n") && h.contains("((v - lo) / denom) * (double)nb"));
        assert!(h.contains("#if WEIGHTED\ntypedef double OT;"));
        let h = BinnedKey::Histogram { x: DType::Float16, uniform: false, weighted: false }.source();
        assert!(h.contains("#define LOAD_F64(v) (double)h2f(v)\n"));
        eprintln!("statistics kernels: {n} keys, {compiled} compiled by NVRTC");
    }

    #[test]
    fn selection_state_size_matches_the_struct() {
        // hist[2][256], k[2], prefix[2], ncand[2], nan_count, nvalid, done + status.
        assert_eq!(SEL_STATE_BYTES, 2 * 256 * 8 + 2 * 8 * 3 + 8 + 8 + 4 + 4);
    }
}
