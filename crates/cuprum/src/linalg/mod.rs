//! `numpy.linalg`: products, decompositions, solvers and norms, on both devices.
//!
//! The functions take NumPy's arguments and stacked inputs: every matrix argument may be a
//! stack `(..., M, N)`, and the stacks broadcast as NumPy's do. NumPy's root functions
//! (`matmul`, `dot`, `vdot`, `inner`, `outer`, `tensordot`, `einsum`, `kron`, `trace`) are also
//! at the crate root (`cuprum::matmul`), as in NumPy; [`Array::matmul`] is the lessons' `a @ b`.
//!
//! ```
//! use cuprum::{linalg, Device};
//! let dev = Device::default_device();
//! let a = cuprum::from_vec(vec![4.0, 3.0, 6.0, 3.0], &dev)?.reshape([2, 2])?;
//! assert!((linalg::det(&a)?.item::<f64>()? + 6.0).abs() < 1e-12);
//! let x = linalg::solve(&a, &cuprum::from_vec(vec![10.0, 12.0], &dev)?)?;
//! assert_eq!(x.to_vec::<f64>()?, vec![1.0, 2.0]);
//! assert!((linalg::norm(&a)?.item::<f64>()? - 70f64.sqrt()).abs() < 1e-12);
//! # Ok::<(), cuprum::Error>(())
//! ```
//!
//! **Dtypes.** Matrix products take every dtype (integers wrap, `bool` is `or` of `and`s,
//! float16 accumulates in float32, as NumPy's loops). The decompositions work in float32,
//! float64, complex64 and complex128; integers and `bool` are computed as float64, float16
//! is a `TypeError` (NumPy's `_commonType`). One deviation: NumPy computes float32 and complex64
//! decompositions in double precision and rounds the result; cuprum computes them in single
//! precision on both devices (as CuPy does), so results agree with NumPy's to float32's
//! tolerance, not to the last bit.
//!
//! **Errors.** [`ErrorKind::LinAlgError`](crate::ErrorKind::LinAlgError) with NumPy's messages
//! (`Singular matrix`, `Matrix is not positive definite`, `SVD did not converge`, ...) on both
//! devices. On a GPU this needs the factorisation's status from the device: one small copy per
//! call (for a stack, one for the whole stack). [`set_gpu_error_check`]`(false)` skips it, as
//! CuPy does by default: then a singular matrix gives whatever the factorisation produced.
//!
//! The CPU side (`cpu/`) is faer, on all cores; the GPU side (`cuda/`) is cuBLAS and cuSOLVER,
//! loaded at run time, with a kernel of our own for stacks of small matrices.

use crate::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};

// The CPU side is faer (the default feature `cpu-linalg`); a build without it (the sky
// pipeline's, which has no linear algebra) has `absent.rs` in its place.
#[cfg(feature = "cpu-linalg")]
mod cpu;
#[cfg(not(feature = "cpu-linalg"))]
#[path = "absent.rs"]
mod cpu;
mod cuda;
mod decomp;
mod einsum;
mod norms;
mod products;

pub use decomp::*;
pub use einsum::einsum;
pub use norms::*;
pub use products::*;

static GPU_ERROR_CHECK: AtomicBool = AtomicBool::new(true);

/// Whether GPU decompositions check the library's status and raise `LinAlgError` as NumPy
/// does (`true`, the default), or skip that check (`false`, CuPy's default: no copy from the
/// device and no wait, and a singular matrix gives whatever the factorisation produced —
/// infinities, NaNs or meaningless numbers). Returns the previous setting. The CPU always
/// checks (it costs nothing there).
///
/// ```
/// let before = cuprum::linalg::set_gpu_error_check(false);
/// assert!(before);
/// cuprum::linalg::set_gpu_error_check(before);
/// ```
pub fn set_gpu_error_check(check: bool) -> bool {
    GPU_ERROR_CHECK.swap(check, Ordering::Relaxed)
}

/// The setting of [`set_gpu_error_check`].
pub fn gpu_error_check() -> bool {
    GPU_ERROR_CHECK.load(Ordering::Relaxed)
}

/// The dtype `numpy.linalg` computes and returns for arguments of these dtypes (NumPy's
/// `_commonType`): float32 stays float32 and complex64 complex64 unless a double-precision
/// argument is present; integers and `bool` count as float64; float16 is a `TypeError`.
pub(crate) fn common_type(dts: &[DType]) -> Result<DType> {
    let (mut double, mut complex) = (false, false);
    for &d in dts {
        match d {
            DType::Float16 => return Err(Error::Type("array type float16 is unsupported in linalg".into())),
            DType::Float32 => {}
            DType::Complex64 => complex = true,
            DType::Complex128 => (double, complex) = (true, true),
            _ => double = true,
        }
    }
    Ok(match (double, complex) {
        (false, false) => DType::Float32,
        (true, false) => DType::Float64,
        (false, true) => DType::Complex64,
        (true, true) => DType::Complex128,
    })
}

/// `a` in dtype `dt`: a view when it already is, else a cast copy.
pub(crate) fn as_dtype(a: &Array, dt: DType) -> Result<Array> {
    if a.dtype() == dt {
        Ok(a.view())
    } else {
        a.astype(dt)
    }
}

/// NumPy's `_assert_stacked_2d`.
pub(crate) fn assert_stacked_2d(a: &Array) -> Result<()> {
    if a.ndim() < 2 {
        return Err(Error::LinAlg(format!(
            "{}-dimensional array given. Array must be at least two-dimensional",
            a.ndim()
        )));
    }
    Ok(())
}

/// NumPy's `_assert_stacked_2d` and `_assert_stacked_square`.
pub(crate) fn assert_stacked_square(a: &Array) -> Result<()> {
    assert_stacked_2d(a)?;
    let n = a.ndim();
    if a.shape()[n - 1] != a.shape()[n - 2] {
        return Err(Error::LinAlg("Last 2 dimensions of the array must be square".into()));
    }
    Ok(())
}

pub(crate) use crate::array::same_device;

/// The number of matrices in a stack of batch shape `batch`.
pub(crate) fn batch_count(batch: &[usize]) -> usize {
    batch.iter().product()
}
