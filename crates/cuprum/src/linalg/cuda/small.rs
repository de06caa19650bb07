//! Stacks of small matrices (`n <= 32`) in one kernel (`small_lu.cu`): 8, 16 or 32 lanes per
//! matrix (a warp takes up to four), LAPACK's pivoted LU in shared memory, then the determinant, a solve or the inverse. A
//! library call per matrix would cost a launch each (16384 `8×8` inverses would be 16384
//! `getrf` and `getrs` calls); this is one launch for the whole stack.

use crate::array::Array;
use crate::backend::cuda::codegen::{storage_ty, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dptr, Params};
use crate::backend::cuda::CudaDevice;
use crate::core::dtype::DType;
use crate::core::error::Result;

/// Largest order the kernel takes (one row per lane of a warp).
pub(super) const MAXN: usize = 32;
/// Warps (matrices) per block at most.
const MAXWARPS: usize = 4;
/// Dynamic shared memory a block uses at most (the default limit).
const SHMEM: usize = 48 * 1024;

/// What the kernel computes after the factorisation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Mode {
    /// NumPy's `slogdet`: `sign` and `logabsdet` per matrix.
    Det,
    /// `X = A⁻¹ B` for the `nrhs` columns of `B`.
    Solve,
    /// `X = A⁻¹`.
    Inv,
}

/// The `small_lu` kernel for one dtype and mode.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SmallLuKey {
    dt: DType,
    mode: Mode,
}

impl KernelKey for SmallLuKey {
    const FAMILY: &'static str = "linalg";
    fn entry(&self) -> &str {
        "small_lu"
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("MAXN", MAXN.to_string()), ("MAXWARPS", MAXWARPS.to_string())]
    }
    fn source(&self) -> String {
        let mode = match self.mode {
            Mode::Det => "DET",
            Mode::Solve => "SOLVE",
            Mode::Inv => "INV",
        };
        format!(
            "{PRELUDE}#define MODE_{mode}\ntypedef {e} elem_t;\ntypedef {r} real_t;\n#define IS_COMPLEX {c}\n{body}",
            e = storage_ty(self.dt),
            r = storage_ty(self.dt.real_dtype()),
            c = self.dt.is_complex() as i32,
            body = include_str!("small_lu.cu"),
        )
    }
}

/// The outputs of [`small_lu`] for its mode.
pub(super) enum Out<'a> {
    /// `sign` (the stack's dtype) and `logdet` (its real dtype), `(batch,)` each.
    Det { sign: &'a Array, logdet: &'a Array },
    /// `x = a⁻¹ b`: `b` and `x` C-contiguous `(batch, n, nrhs)`.
    Solve { b: &'a Array, x: &'a Array },
    /// `x = a⁻¹`, C-contiguous `(batch, n, n)`.
    Inv { x: &'a Array },
}

/// LU with partial pivoting of every matrix of `a` (C-contiguous `(batch, n, n)`, `n <=`
/// [`MAXN`], only read) and then what `out` asks for, in one launch. `singular` (a zeroed
/// int32 counter), where given, counts the matrices with an exactly zero pivot.
pub(super) fn small_lu(dev: &CudaDevice, a: &Array, out: Out<'_>, singular: Option<&Array>) -> Result<()> {
    let (batch, n) = (a.shape()[0], a.shape()[1]);
    debug_assert!(n <= MAXN && a.is_c_contiguous());
    let dt = a.dtype();
    let (mode, nrhs, b, x, sign, logdet) = match out {
        Out::Det { sign, logdet } => (Mode::Det, 0, 0, 0, dptr(sign)?, dptr(logdet)?),
        Out::Solve { b, x } => (Mode::Solve, b.shape()[2], dptr(b)?, dptr(x)?, 0, 0),
        Out::Inv { x } => (Mode::Inv, n, 0, dptr(x)?, 0, 0),
    };
    if batch == 0 {
        return Ok(());
    }
    // Lanes per matrix: the smallest of 8, 16, 32 with a row per lane.
    let group = n.next_power_of_two().clamp(8, 32);
    let rhs_block = if mode == Mode::Det { 0 } else { group * n };
    let per_group = (n * (n + 1) + rhs_block) * dt.itemsize() + MAXN * 4;
    let per_warp = per_group * (32 / group);
    let warps = (SHMEM / per_warp).clamp(1, MAXWARPS);
    let per_block = warps * (32 / group);
    let k = dev.kernel(&SmallLuKey { dt, mode })?;
    let mut p = Params::new();
    p.push(dptr(a)?);
    p.push(batch as i64);
    p.push(n as i32);
    p.push(i32::try_from(nrhs).map_err(|_| crate::Error::NotImplemented(format!("{nrhs} right-hand sides")))?);
    p.push(b);
    p.push(x);
    p.push(sign);
    p.push(logdet);
    p.push(match singular {
        Some(c) => dptr(c)?,
        None => 0u64,
    });
    p.push(group as i32);
    let grid = dev.grid_for(batch, per_block);
    // SAFETY: the parameters match `small_lu` in small_lu.cu (const elem_t*, long long, int,
    // int, const elem_t*, elem_t*, elem_t*, real_t*, int*, int); the arrays hold the layout
    // above for `batch` matrices of order `n` (the caller's contract) and are kept alive by the
    // caller until the stream has run the kernel (the pool is stream-ordered); the shared
    // memory is what the kernel indexes for the block's groups of order `n` (below 48 KiB).
    unsafe { p.launch_shmem(dev, &k, grid, (32 * warps) as u32, (warps * per_warp) as u32) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::check_compiles;

    #[test]
    fn small_lu_kernels_compile() {
        let mut compiled = 0;
        for dt in [DType::Float32, DType::Float64, DType::Complex64, DType::Complex128] {
            for mode in [Mode::Det, Mode::Solve, Mode::Inv] {
                let key = SmallLuKey { dt, mode };
                let src = key.source();
                assert!(src.contains("small_lu") && src.contains(storage_ty(dt)), "{key:?}");
                compiled += check_compiles(&key) as usize;
            }
        }
        eprintln!("linalg small_lu kernels: 12 variants, {compiled} compiled by NVRTC");
    }
}
