//! LAPACK's `getrf` of our own for stacks of real matrices of order `small::MAXN + 1 ..=`
//! [`MIDMAX`] (`blocked_lu.cu`): a panel kernel that keeps the panel in registers (one block,
//! a row per thread) and an update kernel for the other columns, per panel of [`NB`] columns,
//! every matrix of a stack in the same launches. cuSOLVER's `getrf` spends most of a `512×512`
//! factorization in its panel's pivot searches (`getrf_pivot`, 892 of `det_512`'s 1026 µs).
//! The factors are LAPACK's (the same layout, pivots and `info` as cuSOLVER's), so `getrs` and
//! the determinant read them alike; `lu_det` turns any real factors into `slogdet` in one launch.

use crate::array::Array;
use crate::backend::cuda::codegen::{storage_ty, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dptr, Params};
use crate::backend::cuda::CudaDevice;
use crate::core::dtype::DType;
use crate::core::error::Result;

/// Largest order taken (a thread per row of a panel, one block).
pub(super) const MIDMAX: usize = 512;
/// Panel width (columns in each thread's registers).
const NB: usize = 32;
/// Columns of an update block.
const W: usize = 4;
/// Matrices per launch at most (the grid's `y`).
const MAXGRIDY: usize = 65535;

/// The three entries of `blocked_lu.cu`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Stage {
    Panel,
    Update,
    Det,
}

/// One entry of the blocked LU module for a dtype (the module is compiled once per dtype).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct BlockedLuKey {
    dt: DType,
    stage: Stage,
}

impl KernelKey for BlockedLuKey {
    const FAMILY: &'static str = "linalg";
    fn entry(&self) -> &str {
        match self.stage {
            Stage::Panel => "lu_panel",
            Stage::Update => "lu_update",
            Stage::Det => "lu_det",
        }
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("NB", NB.to_string()), ("W", W.to_string()), ("MIDMAX", MIDMAX.to_string())]
    }
    fn source(&self) -> String {
        let t = storage_ty(self.dt);
        format!("{PRELUDE}typedef {t} elem_t;\ntypedef {t} real_t;\n{}", include_str!("blocked_lu.cu"))
    }
}

/// Whether [`getrf`] takes matrices of order `n` and dtype `dt`.
pub(super) fn takes(dt: DType, n: usize) -> bool {
    matches!(dt, DType::Float32 | DType::Float64) && n > super::small::MAXN && n <= MIDMAX
}

fn round32(x: usize) -> u32 {
    (x.div_ceil(32) * 32) as u32
}

/// LU factorisations of every matrix of `w` (C-contiguous `(batch, n, n)`, factored in place as
/// the column-major `wᵀ`, as cuSOLVER's `getrf`), pivots into `ipiv` (`(batch, n)` int64,
/// 1-based) and `info` (`(batch,)` int32). The caller checks [`takes`].
pub(super) fn getrf(dev: &CudaDevice, w: &Array, ipiv: &Array, info: &Array) -> Result<()> {
    let dt = w.dtype();
    let (batch, n) = (w.shape()[0], w.shape()[1]);
    debug_assert!(takes(dt, n) && w.is_c_contiguous());
    let src = Array::alloc(&[batch, n], DType::Int32, dev.device(), false)?;
    let panel = dev.kernel(&BlockedLuKey { dt, stage: Stage::Panel })?;
    let update = dev.kernel(&BlockedLuKey { dt, stage: Stage::Update })?;
    let (isz, nn) = (dt.itemsize(), (n * n) as i64);
    for m0 in (0..batch).step_by(MAXGRIDY) {
        let count = (batch - m0).min(MAXGRIDY) as u32;
        let (pw, pp, pi, ps) = (
            dptr(w)? + (m0 * n * n * isz) as u64,
            dptr(ipiv)? + (m0 * n * 8) as u64,
            dptr(info)? + (m0 * 4) as u64,
            dptr(&src)? + (m0 * n * 4) as u64,
        );
        for k in (0..n).step_by(NB) {
            let nbk = NB.min(n - k);
            let mut p = Params::new();
            p.push(pw);
            p.push(n as i32);
            p.push(nn);
            p.push(k as i32);
            p.push(pp);
            p.push(pi);
            p.push(ps);
            // SAFETY: the parameters match `lu_panel` (elem_t*, int, long long, int, long long*,
            // int*, int*); matrices m0.. of `w`, their pivots, info and `src` rows lie within
            // those C-contiguous arrays (`count` of them from m0); `n - k <= MIDMAX` threads, the
            // kernel's bound; the arrays outlive the stream's use (stream-ordered pool).
            unsafe { p.launch_2d(dev, &panel, (1, count), (round32(n - k), 1), 0)? };
            let others = n - nbk;
            if others == 0 {
                continue;
            }
            let mut p = Params::new();
            p.push(pw);
            p.push(n as i32);
            p.push(nn);
            p.push(k as i32);
            p.push(ps);
            let threads = round32(n - k - nbk).clamp(32, MIDMAX as u32);
            // SAFETY: the parameters match `lu_update` (elem_t*, int, long long, int, const
            // int*); the blocks take the `others` columns besides the panel's of matrices m0..,
            // reading `src` written by the panel launch before it on the stream.
            unsafe { p.launch_2d(dev, &update, (others.div_ceil(W) as u32, count), (threads, 1), 0)? };
        }
    }
    Ok(())
}

/// NumPy's `slogdet` of real LU factors (`w`, `ipiv` as [`getrf`]'s or cuSOLVER's): `sign`
/// (`w`'s dtype) and `logdet`, C-contiguous `(batch,)` each, in one launch.
pub(super) fn slogdet(dev: &CudaDevice, w: &Array, ipiv: &Array, sign: &Array, logdet: &Array) -> Result<()> {
    let (batch, n) = (w.shape()[0], w.shape()[1]);
    debug_assert!(!w.dtype().is_complex() && sign.is_c_contiguous() && logdet.is_c_contiguous());
    if batch == 0 {
        return Ok(());
    }
    let k = dev.kernel(&BlockedLuKey { dt: w.dtype(), stage: Stage::Det })?;
    let mut p = Params::new();
    p.push(dptr(w)?);
    p.push(n as i32);
    p.push((n * n) as i64);
    p.push(dptr(ipiv)?);
    p.push(dptr(sign)?);
    p.push(dptr(logdet)?);
    let grid = u32::try_from(batch)
        .map_err(|_| crate::Error::NotImplemented(format!("slogdet of {batch} matrices on a GPU at once")))?;
    // SAFETY: the parameters match `lu_det` (const elem_t*, int, long long, const long long*,
    // elem_t*, real_t*); a block per matrix reads its factors and pivots and writes its slot.
    unsafe { p.launch(dev, &k, grid, 256) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::check_compiles;

    #[test]
    fn blocked_lu_kernels_compile() {
        let mut compiled = 0;
        for dt in [DType::Float32, DType::Float64] {
            for stage in [Stage::Panel, Stage::Update, Stage::Det] {
                let key = BlockedLuKey { dt, stage };
                assert!(key.source().contains(key.entry()), "{key:?}");
                compiled += check_compiles(&key) as usize;
            }
        }
        eprintln!("linalg blocked LU kernels: 6 entries, {compiled} compiled by NVRTC");
    }
}
