//! One-pass inner products and norms of vectors (`dot.cu`): NumPy's `dot`/`vdot`/`inner` of
//! two vectors and `linalg.norm` of one, bound by the bytes read (a gemm of a `1×k` by a `k×1`
//! matrix, or a product then a sum, reads or writes more).

use crate::array::Array;
use crate::backend::cuda::codegen::{storage_ty, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, Params};
use crate::core::dtype::DType;
use crate::core::error::Result;

/// Threads per block.
const THREADS: u32 = 256;
/// Blocks per SM (a full SM of threads).
const BLOCKS_PER_SM: u32 = 8;

/// What the kernel sums.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum DotMode {
    /// `sum x y`.
    Dot,
    /// `sum conj(x) y`.
    Dotc,
    /// `sqrt(sum |x|²)`.
    Norm,
}

/// The `dot` kernel for one dtype and mode.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct DotKey {
    dt: DType,
    mode: DotMode,
}

impl KernelKey for DotKey {
    const FAMILY: &'static str = "linalg";
    fn entry(&self) -> &str {
        "dot"
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("THREADS", THREADS.to_string())]
    }
    fn source(&self) -> String {
        let mode = match self.mode {
            DotMode::Dot => "DOT",
            DotMode::Dotc => "DOTC",
            DotMode::Norm => "NORM",
        };
        format!(
            "{PRELUDE}#define MODE_{mode}\ntypedef {e} elem_t;\ntypedef {r} real_t;\n#define IS_COMPLEX {c}\n{body}",
            e = storage_ty(self.dt),
            r = storage_ty(self.dt.real_dtype()),
            c = self.dt.is_complex() as i32,
            body = include_str!("dot.cu"),
        )
    }
}

/// `out` (0-d) `= x · y` (`conj`: `x` conjugated), or with `y` `None` the norm of `x` (`out`
/// real): `x` and `y` C-contiguous vectors of one length and linalg dtype.
pub(crate) fn dot_1d(x: &Array, y: Option<&Array>, conj: bool, out: &Array) -> Result<()> {
    let dev = dev_of(out)?;
    let dt = x.dtype();
    let mode = match (y, conj && dt.is_complex()) {
        (None, _) => DotMode::Norm,
        (Some(_), true) => DotMode::Dotc,
        (Some(_), false) => DotMode::Dot,
    };
    let n = x.size();
    let per_block = THREADS as usize * (16 / dt.itemsize()).max(1) * 4;
    let grid = n.div_ceil(per_block).clamp(1, (dev.sm_count * BLOCKS_PER_SM) as usize);
    let acc = if mode == DotMode::Norm { dt.real_dtype() } else { dt };
    let partial = Array::alloc(&[grid], acc, out.device(), false)?;
    let k = dev.kernel(&DotKey { dt, mode })?;
    let mut p = Params::new();
    p.push(dptr(x)?);
    p.push(match y {
        Some(y) => dptr(y)?,
        None => 0u64,
    });
    p.push(n as i64);
    p.push(dptr(&partial)?);
    p.push(dev.reduce_counters(1)?);
    p.push(dptr(out)?);
    // SAFETY: the parameters match `dot` in dot.cu (const elem_t*, const elem_t*, long long,
    // acc_t*, unsigned*, void*); `x` and `y` hold `n` contiguous elements, `partial` one
    // accumulator per block, `out` one result; all stay valid until the stream has run the
    // kernel (the pool is stream-ordered) and the counter is zero between reductions.
    unsafe { p.launch(&dev, &k, grid as u32, THREADS) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::check_compiles;

    #[test]
    fn dot_kernels_compile() {
        let mut compiled = 0;
        for dt in [DType::Float32, DType::Float64, DType::Complex64, DType::Complex128] {
            for mode in [DotMode::Dot, DotMode::Dotc, DotMode::Norm] {
                let key = DotKey { dt, mode };
                assert!(key.source().contains(&format!("MODE_{}", format!("{mode:?}").to_uppercase())));
                compiled += check_compiles(&key) as usize;
            }
        }
        eprintln!("linalg dot kernels: 12 variants, {compiled} compiled by NVRTC");
    }
}
