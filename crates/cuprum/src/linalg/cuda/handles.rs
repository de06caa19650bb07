//! cuBLAS and cuSOLVER handles, one set per stream (their workspaces are not shared by work
//! that may overlap), created on first use and bound to it (cuBLAS in its default math mode:
//! no TF32), released with the stream; status codes as `Error`s; and
//! `orgqr`/`ungqr`, which cuSOLVER has only in typed forms; the typed cuBLAS calls the
//! factorizations share (`trsm`, `gemm_sub`).

use crate::array::Array;
use crate::backend::cuda::launch::dptr;
use crate::backend::cuda::CudaDevice;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use cudarc::cublas::sys as blas;
use cudarc::cusolver::sys as sol;
use std::sync::Mutex;

/// The library handles of one device.
pub(super) struct Handles {
    pub blas: blas::cublasHandle_t,
    pub solver: sol::cusolverDnHandle_t,
    pub params: sol::cusolverDnParams_t,
}

// SAFETY: the handles are used only under `HANDLES`' lock, one thread at a time, after making
// their device's context current; cuBLAS and cuSOLVER handles may move between threads.
unsafe impl Send for Handles {}

/// The handles of each (device, stream).
static HANDLES: Mutex<Vec<((usize, u64), Handles)>> = Mutex::new(Vec::new());

pub(super) fn blas_check(what: &str, s: blas::cublasStatus_t) -> Result<()> {
    crate::backend::cuda::lib_status(
        what,
        s,
        blas::cublasStatus_t::CUBLAS_STATUS_SUCCESS,
        blas::cublasStatus_t::CUBLAS_STATUS_ALLOC_FAILED,
    )
}

pub(super) fn solver_check(what: &str, s: sol::cusolverStatus_t) -> Result<()> {
    crate::backend::cuda::lib_status(
        what,
        s,
        sol::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS,
        sol::cusolverStatus_t::CUSOLVER_STATUS_ALLOC_FAILED,
    )
}

/// `B := T⁻¹ B` for a triangle `T` of the column-major `A` (cuBLAS `trsm`, left side, no
/// transpose): the unit lower one (`lower`) or the upper one; `m × cols` right-hand sides at
/// `b`, leading dimensions `ld`.
///
/// # Safety
/// `a` and `b` must point at device memory of `dt` holding those matrices, for the handle's
/// stream.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn trsm(
    h: &Handles,
    dt: DType,
    lower: bool,
    m: i32,
    cols: i32,
    a: u64,
    b: u64,
    ld: i32,
) -> Result<()> {
    use blas::cublasDiagType_t::{CUBLAS_DIAG_NON_UNIT, CUBLAS_DIAG_UNIT};
    use blas::cublasFillMode_t::{CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER};
    let (uplo, diag) =
        if lower { (CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_UNIT) } else { (CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT) };
    let (side, op) = (blas::cublasSideMode_t::CUBLAS_SIDE_LEFT, blas::cublasOperation_t::CUBLAS_OP_N);
    macro_rules! call {
        ($f:ident, $t:ty, $one:expr) => {{
            let one: $t = $one;
            // SAFETY: the caller's contract; `one` is a host scalar (the handle's default
            // pointer mode) alive for the call.
            blas_check(stringify!($f), unsafe {
                blas::$f(h.blas, side, uplo, op, diag, m, cols, &one, a as *const $t, ld, b as *mut $t, ld)
            })
        }};
    }
    match dt {
        DType::Float32 => call!(cublasStrsm_v2, f32, 1.0),
        DType::Float64 => call!(cublasDtrsm_v2, f64, 1.0),
        DType::Complex64 => call!(cublasCtrsm_v2, blas::cuComplex, blas::cuComplex { x: 1.0, y: 0.0 }),
        DType::Complex128 => call!(cublasZtrsm_v2, blas::cuDoubleComplex, blas::cuDoubleComplex { x: 1.0, y: 0.0 }),
        other => Err(Error::UnsupportedDType { op: "inv on a GPU".into(), dtype: other }),
    }
}

/// `C -= A B` for column-major real `m × k` `A`, `k × cols` `B` and `m × cols` `C` (cuBLAS
/// `gemm`, leading dimensions `ld`): a right-looking factorization's trailing update.
///
/// # Safety
/// `a`, `b` and `c` must point at device memory of `dt` holding those matrices, for the handle's
/// stream.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn gemm_sub(
    h: &Handles,
    dt: DType,
    m: i32,
    cols: i32,
    k: i32,
    a: u64,
    b: u64,
    c: u64,
    ld: i32,
) -> Result<()> {
    let op = blas::cublasOperation_t::CUBLAS_OP_N;
    macro_rules! call {
        ($f:ident, $t:ty) => {{
            let (alpha, beta): ($t, $t) = (-1.0, 1.0);
            // SAFETY: the caller's contract; `alpha` and `beta` are host scalars (the handle's
            // default pointer mode) alive for the call.
            blas_check(stringify!($f), unsafe {
                blas::$f(
                    h.blas,
                    op,
                    op,
                    m,
                    cols,
                    k,
                    &alpha,
                    a as *const $t,
                    ld,
                    b as *const $t,
                    ld,
                    &beta,
                    c as *mut $t,
                    ld,
                )
            })
        }};
    }
    match dt {
        DType::Float32 => call!(cublasSgemm_v2, f32),
        DType::Float64 => call!(cublasDgemm_v2, f64),
        other => Err(Error::UnsupportedDType { op: "gemm_sub".into(), dtype: other }),
    }
}

fn create(stream: cudarc::driver::sys::CUstream) -> Result<Handles> {
    // SAFETY: only checks whether the shared libraries can be loaded.
    if !unsafe { blas::is_culib_present() } || !unsafe { sol::is_culib_present() } {
        return Err(Error::Cuda("linalg on a GPU needs cuBLAS and cuSOLVER, and they were not found".into()));
    }
    let b = cudarc::cublas::result::create_handle().map_err(|e| Error::Cuda(format!("cublasCreate: {e:?}")))?;
    // SAFETY: `b` was just created; the stream is live and outlives the handle (which is
    // destroyed when the stream is released).
    unsafe { cudarc::cublas::result::set_stream(b, stream as blas::cudaStream_t) }
        .map_err(|e| Error::Cuda(format!("cublasSetStream: {e:?}")))?;
    // SAFETY: as above.
    blas_check("cublasSetMathMode", unsafe { blas::cublasSetMathMode(b, blas::cublasMath_t::CUBLAS_DEFAULT_MATH) })?;
    let s = cudarc::cusolver::result::dn_create().map_err(|e| Error::Cuda(format!("cusolverDnCreate: {e:?}")))?;
    // SAFETY: `s` was just created; the stream is live, as above.
    unsafe { cudarc::cusolver::result::dn_set_stream(s, stream as sol::cudaStream_t) }
        .map_err(|e| Error::Cuda(format!("cusolverDnSetStream: {e:?}")))?;
    let params = cudarc::cusolver::result::dn_create_params()
        .map_err(|e| Error::Cuda(format!("cusolverDnCreateParams: {e:?}")))?;
    Ok(Handles { blas: b, solver: s, params })
}

/// Runs `f` with the handles of this device's current stream (created on first use), its
/// context current.
pub(super) fn with_handles<R>(dev: &CudaDevice, f: impl FnOnce(&Handles) -> Result<R>) -> Result<R> {
    dev.bind()?;
    let stream = dev.current_stream()?;
    let key = (dev.ordinal, stream.id);
    let mut all = HANDLES.lock().unwrap_or_else(|e| e.into_inner());
    if !all.iter().any(|(k, _)| *k == key) {
        let h = create(stream.raw)?;
        all.push((key, h));
        stream.on_release(Box::new(move || {
            let mut all = HANDLES.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(i) = all.iter().position(|(k, _)| *k == key) {
                let (_, h) = all.swap_remove(i);
                // SAFETY: the handles were made for this stream, which is being released (its
                // work has finished), and were just removed from the table: no one uses them.
                unsafe {
                    let _ = cudarc::cublas::result::destroy_handle(h.blas);
                    let _ = cudarc::cusolver::result::dn_destroy_params(h.params);
                    let _ = cudarc::cusolver::result::dn_destroy(h.solver);
                }
            }
        }));
    }
    let h = &all.iter().find(|(k, _)| *k == key).expect("created above").1;
    f(h)
}

/// `q` from `geqrf`'s reflectors, in place: `w` is the C-contiguous `(count, width, m)` stack
/// of column-major `m x width` matrices (leading dimension `m`), `tau` `(count, max(k, 1))`;
/// the first `qcols` columns become `q` (LAPACK `?orgqr`/`?ungqr`).
#[allow(clippy::too_many_arguments)]
pub(super) fn orgqr(
    dev: &CudaDevice,
    dt: DType,
    m: usize,
    qcols: usize,
    k: usize,
    w: &Array,
    width: usize,
    tau: &Array,
    info: &Array,
) -> Result<()> {
    let count = w.shape()[0];
    let (pw, pt, pi, isz) = (dptr(w)?, dptr(tau)?, dptr(info)?, dt.itemsize());
    let (mi, qi, ki) = (m as i32, qcols as i32, k as i32);
    macro_rules! run {
        ($t:ty, $buf:ident, $f:ident) => {{
            super::each_matrix(
                dev,
                count,
                |h, dbytes, _| {
                    let mut lwork = 0i32;
                    // SAFETY: a size query on valid handles.
                    solver_check(stringify!($buf), unsafe {
                        sol::$buf(h.solver, mi, qi, ki, pw as *const $t, mi, pt as *const $t, &mut lwork)
                    })?;
                    *dbytes = lwork.max(0) as usize * isz;
                    Ok(())
                },
                |h, i, ws| {
                    // SAFETY: matrix `i` of `w` (m x width >= qcols columns), its reflectors'
                    // scalars and info slot `i`; the workspace holds the `lwork` elements
                    // queried.
                    solver_check(stringify!($f), unsafe {
                        sol::$f(
                            h.solver,
                            mi,
                            qi,
                            ki,
                            (pw + (i * width * m * isz) as u64) as *mut $t,
                            mi,
                            (pt + (i * k.max(1) * isz) as u64) as *const $t,
                            ws.ptr.cast(),
                            (ws.dbytes / isz) as i32,
                            super::info_slot(pi, i),
                        )
                    })
                },
            )
        }};
    }
    match dt {
        DType::Float32 => run!(f32, cusolverDnSorgqr_bufferSize, cusolverDnSorgqr),
        DType::Float64 => run!(f64, cusolverDnDorgqr_bufferSize, cusolverDnDorgqr),
        DType::Complex64 => run!(sol::cuComplex, cusolverDnCungqr_bufferSize, cusolverDnCungqr),
        DType::Complex128 => run!(sol::cuDoubleComplex, cusolverDnZungqr_bufferSize, cusolverDnZungqr),
        other => Err(Error::UnsupportedDType { op: "qr on a GPU".into(), dtype: other }),
    }
}

/// The economy SVD by one-sided Jacobi (`?gesvdj`, at about twice the speed of `gesvd` for a
/// 1024² matrix on an H100, with an error of a few hundred eps) of a float64 or complex128
/// stack (single precision takes [`super::svd_gram`]), in place on `g`: the C-contiguous `(count, cols, rows)`
/// stack of column-major `rows x cols` matrices (`rows >= cols`). Singular values (descending)
/// into `s` `(count, cols)`; with `vectors`, `U` into `u` (`(count, cols, rows)`, column-major
/// `rows x cols`) and `V` — not `Vᴴ` — into `v` (`(count, cols, cols)`, column-major), to
/// machine precision in at most 100 sweeps; `info[i] > 0` where matrix `i` did not converge.
#[allow(clippy::too_many_arguments)]
pub(super) fn gesvdj(
    dev: &CudaDevice,
    dt: DType,
    rows: usize,
    cols: usize,
    vectors: bool,
    g: &Array,
    s: &Array,
    u: &Array,
    v: &Array,
    info: &Array,
) -> Result<()> {
    let count = g.shape()[0];
    let (pg, ps, pu, pv, pi) = (dptr(g)?, dptr(s)?, dptr(u)?, dptr(v)?, dptr(info)?);
    let (isz, rsz) = (dt.itemsize(), dt.real_dtype().itemsize());
    let (m, n) = (rows as i32, cols as i32);
    let jobz = if vectors {
        sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
    } else {
        sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
    };
    let mut params: sol::gesvdjInfo_t = std::ptr::null_mut();
    // SAFETY: creates a parameter object, destroyed below on every path.
    solver_check("cusolverDnCreateGesvdjInfo", unsafe { sol::cusolverDnCreateGesvdjInfo(&mut params) })?;
    // Converged to double precision (set explicitly rather than left to the library's default).
    let eps = f64::EPSILON;
    // SAFETY: a valid parameter object; plain host settings.
    solver_check("cusolverDnXgesvdjSetTolerance", unsafe { sol::cusolverDnXgesvdjSetTolerance(params, eps) })?;
    // SAFETY: as above.
    solver_check("cusolverDnXgesvdjSetMaxSweeps", unsafe { sol::cusolverDnXgesvdjSetMaxSweeps(params, 100) })?;
    macro_rules! run {
        ($t:ty, $r:ty, $buf:ident, $f:ident) => {{
            super::each_matrix(
                dev,
                count,
                |h, dbytes, _| {
                    let mut lwork = 0i32;
                    // SAFETY: a size query on valid handles and a valid parameter object.
                    solver_check(stringify!($buf), unsafe {
                        sol::$buf(
                            h.solver,
                            jobz,
                            1,
                            m,
                            n,
                            pg as *const $t,
                            m,
                            ps as *const $r,
                            pu as *const $t,
                            m,
                            pv as *const $t,
                            n,
                            &mut lwork,
                            params,
                        )
                    })?;
                    *dbytes = lwork.max(0) as usize * isz;
                    Ok(())
                },
                |h, i, ws| {
                    // SAFETY: matrix `i` of `g`, `u` and `v`, row `i` of `s` and info slot `i`
                    // lie in those C-contiguous arrays (sized above for the economy SVD); the
                    // workspace holds the `lwork` elements queried.
                    solver_check(stringify!($f), unsafe {
                        sol::$f(
                            h.solver,
                            jobz,
                            1,
                            m,
                            n,
                            (pg + (i * rows * cols * isz) as u64) as *mut $t,
                            m,
                            (ps + (i * cols * rsz) as u64) as *mut $r,
                            (pu + (i * rows * cols * isz) as u64) as *mut $t,
                            m,
                            (pv + (i * cols * cols * isz) as u64) as *mut $t,
                            n,
                            ws.ptr.cast(),
                            (ws.dbytes / isz) as i32,
                            super::info_slot(pi, i),
                            params,
                        )
                    })
                },
            )
        }};
    }
    let r = match dt {
        DType::Float64 => run!(f64, f64, cusolverDnDgesvdj_bufferSize, cusolverDnDgesvdj),
        DType::Complex128 => run!(sol::cuDoubleComplex, f64, cusolverDnZgesvdj_bufferSize, cusolverDnZgesvdj),
        other => Err(Error::UnsupportedDType { op: "svd on a GPU".into(), dtype: other }),
    };
    // SAFETY: created above; the enqueued calls have read it already (it holds host settings).
    let d = solver_check("cusolverDnDestroyGesvdjInfo", unsafe { sol::cusolverDnDestroyGesvdjInfo(params) });
    r.and(d)
}
