//! `numpy.linalg.inv` from LU factors, for the matrices above [`small::MAXN`](super::small::MAXN):
//! `P B = L U` for `B = aᵀ` (the row-major `a` as the libraries see it), so `B⁻¹ = U⁻¹ L⁻¹ P`.
//!
//! cuSOLVER's `getrs` on the identity (what CuPy does) first swaps the identity's rows (`laswp`,
//! 5.0 of its 18.9 ms at 6000² float32: each swap a strided row) and solves with `L` as if the
//! right-hand sides were full. Here (probe `bench/probes/lu/inv_routes.py`, H200, 6000² float32:
//! 19.6 -> 13.3 ms; 4096² float64: 9.6 -> 6.1):
//! - `X = L⁻¹` by column blocks: block `j` of `L⁻¹` is zero above its diagonal block, so only the
//!   trailing `(n - j) × nb` system is solved (cuBLAS `trsm`; thirds of `n`: about `n³/2` flops
//!   instead of `n³`);
//! - `X = U⁻¹ X` (one `trsm`);
//! - `B⁻¹ = X P` (`inv.cu`): the pivots' permutation, then a gather of `X`'s columns, which is
//!   `a⁻¹` row-major, straight into `out`.

use super::handles::trsm;
use crate::array::Array;
use crate::backend::cuda::codegen::{storage_ty, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dptr, Params};
use crate::backend::cuda::CudaDevice;
use crate::core::dtype::DType;
use crate::core::error::Result;

/// Matrices per gather launch at most (the grid's `y`).
const MAXGRIDY: usize = 65535;
/// Largest order whose permutation is built in shared memory (48 KiB of int32).
const SHARED_N: usize = 12 * 1024;

/// The entries of `inv.cu`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct InvKey {
    dt: DType,
    gather: bool,
}

impl KernelKey for InvKey {
    const FAMILY: &'static str = "linalg";
    fn entry(&self) -> &str {
        if self.gather {
            "inv_gather"
        } else {
            "lu_perm"
        }
    }
    fn source(&self) -> String {
        format!("{PRELUDE}typedef {} elem_t;\n{}", storage_ty(self.dt), include_str!("inv.cu"))
    }
}

/// Columns of `L⁻¹` solved at once for order `n`: the whole matrix up to 1024, else about a third
/// of it, in multiples of 256. Measured (`inv_routes.py`, H200) with blocks of fixed widths: at
/// 6000² float32, blocks of 2048 (thirds) 4.5 ms, 1024 5.9, 512 8.6, 256 14.4, the whole 6.7; at
/// 4096² float64, 2048 (halves) 2.1, 1024 2.7, the whole 2.8 (cuBLAS's trsm is slow on narrow
/// right-hand sides); the thirds of 4096 (1536) were not measured.
fn l_block(n: usize) -> usize {
    if n <= 1024 {
        n
    } else {
        n.div_ceil(3).div_ceil(256) * 256
    }
}

/// `a⁻¹` of every matrix of a stack into `out` (C-contiguous, `a`'s dtype and size), from the
/// factors `w` (C-contiguous `(batch, n, n)`: getrf's of the column-major `aᵀ`) and their
/// 1-based int64 pivots `ipiv` (`(batch, n)`).
pub(super) fn inv_from_lu(dev: &CudaDevice, w: &Array, ipiv: &Array, out: &Array) -> Result<()> {
    let dt = w.dtype();
    let (batch, n) = (w.shape()[0], w.shape()[1]);
    debug_assert!(w.is_c_contiguous() && ipiv.is_c_contiguous());
    if batch == 0 || n == 0 {
        return Ok(());
    }
    let (ni, isz) = (super::to_i32(n, "inv of order")?, dt.itemsize());
    let grid_x = super::to_i32(batch, "inv of a stack")?;
    // X: the identity, solved in place into U⁻¹ L⁻¹.
    let x = crate::eye(n, dt, &dev.device())?.broadcast_to(w.shape())?.copy()?;
    let (pw, px) = (dptr(w)?, dptr(&x)?);
    let nb = l_block(n);
    super::with_handles(dev, |h| {
        for i in 0..batch {
            let (wi, xi) = (pw + (i * n * n * isz) as u64, px + (i * n * n * isz) as u64);
            for j in (0..n).step_by(nb) {
                let at = ((j + j * n) * isz) as u64;
                // SAFETY: the trailing `(n - j) × min(nb, n - j)` blocks of matrix `i` of `w`
                // (its unit lower triangle L) and of `x`, leading dimension n, lie within those
                // C-contiguous `(batch, n, n)` arrays, which outlive the stream's use.
                unsafe { trsm(h, dt, true, (n - j) as i32, nb.min(n - j) as i32, wi + at, xi + at, ni)? };
            }
            // SAFETY: matrix `i` of `w` (its upper triangle U) and all of `x`'s, as above.
            unsafe { trsm(h, dt, false, ni, ni, wi, xi, ni)? };
        }
        Ok(())
    })?;
    let perm = Array::alloc(&[batch, n], DType::Int32, dev.device(), false)?;
    let k = dev.kernel(&InvKey { dt, gather: false })?;
    let shared = n <= SHARED_N;
    let mut p = Params::new();
    p.push(dptr(ipiv)?);
    p.push(ni);
    p.push(dptr(&perm)?);
    p.push(shared as i32);
    // SAFETY: the parameters match `lu_perm` (const long long*, int, int*, int); a block per
    // matrix reads its n pivots and writes its n entries of `perm`; n int32 of dynamic shared
    // memory (48 KiB at most) when `shared`.
    unsafe { p.launch_shmem(dev, &k, grid_x as u32, 256, if shared { (n * 4) as u32 } else { 0 })? };
    let tmp;
    let dst = if out.is_c_contiguous() && out.dtype() == dt && out.size() == w.size() {
        out
    } else {
        tmp = Array::alloc(w.shape(), dt, dev.device(), false)?;
        &tmp
    };
    let g = dev.kernel(&InvKey { dt, gather: true })?;
    for m0 in (0..batch).step_by(MAXGRIDY) {
        let count = (batch - m0).min(MAXGRIDY) as u32;
        let off = (m0 * n * n * isz) as u64;
        let mut p = Params::new();
        p.push(px + off);
        p.push(dptr(&perm)? + (m0 * n * 4) as u64);
        p.push(dptr(dst)? + off);
        p.push(ni);
        // SAFETY: the parameters match `inv_gather` (const elem_t*, const int*, elem_t*, int);
        // block (k, m) copies column k of matrix m0 + m of `x` to the row `perm` names (a
        // permutation of 0..n, written by `lu_perm` before it on the stream) of `dst`'s, all
        // C-contiguous `(batch, n, n)` of `dt`.
        unsafe { p.launch_2d(dev, &g, (ni as u32, count), (256, 1), 0)? };
    }
    if !std::ptr::eq(dst, out) {
        crate::ufunc::assign(out, &dst.reshape(out.shape().to_vec())?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::check_compiles;

    #[test]
    fn inv_kernels_compile() {
        let mut compiled = 0;
        for dt in [DType::Float32, DType::Float64, DType::Complex64, DType::Complex128] {
            for gather in [false, true] {
                let key = InvKey { dt, gather };
                assert!(key.source().contains(key.entry()), "{key:?}");
                compiled += check_compiles(&key) as usize;
            }
        }
        eprintln!("linalg inv kernels: 8 entries, {compiled} compiled by NVRTC");
    }

    #[test]
    fn l_blocks() {
        assert_eq!(l_block(1024), 1024);
        assert_eq!(l_block(1025), 512);
        assert_eq!(l_block(6000), 2048);
        assert_eq!(l_block(12289), 4352);
    }
}
