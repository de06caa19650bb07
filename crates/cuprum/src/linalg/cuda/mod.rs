//! The GPU side of the linalg dispatch: cuBLAS (`gemm`, strided-batched) and cuSOLVER's
//! 64-bit API (`getrf`/`getrs`, `potrf`, `geqrf` with `orgqr`/`ungqr`, `syevd`, `geev`,
//! `gesvdj`/`gesvd`), loaded at run time through cudarc, on the device's stream.
//!
//! cuprum's arrays are row-major and the libraries column-major: a C-contiguous matrix `A` is,
//! to them, `Aᵀ` with the same leading dimension. Each function says how it uses that (a
//! product computes `Cᵀ = Bᵀ Aᵀ`, LU factors `Aᵀ` and solves with `trans`, Hermitian problems
//! read `Aᵀ = conj(A)`), so that no transpose is copied where none is needed.
//!
//! Errors: a factorisation's `info` is read back once per call (one small copy for a whole
//! stack) when [`gpu_error_check`](super::gpu_error_check) is on.

mod blocked;
mod dot;
mod handles;
mod inv;
mod small;
mod svd_gram;

pub(crate) use dot::dot_1d;

use super::QrMode;
use crate::array::Array;
use crate::backend::cuda::launch::{dev_of, dptr};
use crate::backend::cuda::CudaDevice;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use cudarc::cublas::sys as blas;
use cudarc::cusolver::sys as sol;
use handles::{blas_check, solver_check, with_handles};
use std::ffi::c_void;

/// The CUDA data type of a linalg dtype (cuSOLVER's enum).
fn sol_type(dt: DType) -> Result<sol::cudaDataType> {
    Ok(match dt {
        DType::Float32 => sol::cudaDataType::CUDA_R_32F,
        DType::Float64 => sol::cudaDataType::CUDA_R_64F,
        DType::Complex64 => sol::cudaDataType::CUDA_C_32F,
        DType::Complex128 => sol::cudaDataType::CUDA_C_64F,
        other => return Err(Error::UnsupportedDType { op: "linalg on a GPU".into(), dtype: other }),
    })
}

/// The CUDA data type of a linalg dtype (cuBLAS's enum).
fn blas_type(dt: DType) -> Result<(blas::cudaDataType, blas::cublasComputeType_t)> {
    use blas::cublasComputeType_t::{CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_64F};
    Ok(match dt {
        DType::Float32 => (blas::cudaDataType::CUDA_R_32F, CUBLAS_COMPUTE_32F),
        DType::Float64 => (blas::cudaDataType::CUDA_R_64F, CUBLAS_COMPUTE_64F),
        DType::Complex64 => (blas::cudaDataType::CUDA_C_32F, CUBLAS_COMPUTE_32F),
        DType::Complex128 => (blas::cudaDataType::CUDA_C_64F, CUBLAS_COMPUTE_64F),
        other => return Err(Error::UnsupportedDType { op: "matmul on a GPU".into(), dtype: other }),
    })
}

fn to_i32(x: usize, what: &str) -> Result<i32> {
    i32::try_from(x).map_err(|_| Error::NotImplemented(format!("{what} of {x} on a GPU (more than 2**31 - 1)")))
}

/// A matrix operand for cuBLAS: its pointer, leading dimension, whether it is stored
/// transposed (column-major: `rs == 1`) and its stride between the matrices of a stack.
struct Operand {
    ptr: u64,
    ld: usize,
    col_major: bool,
    stride: i64,
    _keep: Array,
}

/// `a` (a stack `(..., r, c)`, broadcast stacks allowed) as a cuBLAS operand: a view when its
/// matrices are row- or column-contiguous and the stack has one stride, else a copy.
fn operand(a: &Array) -> Result<Operand> {
    let nd = a.ndim();
    let isz = a.itemsize() as isize;
    let (r, c) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let st: Vec<isize> = a.strides().iter().map(|s| s / isz).collect();
    let (rs, cs) = (st[nd - 2], st[nd - 1]);
    // The stack's stride: one stride over all batch dimensions (0 when broadcast), if any.
    let batch: Vec<(usize, isize)> =
        a.shape()[..nd - 2].iter().copied().zip(st[..nd - 2].iter().copied()).filter(|&(d, _)| d > 1).collect();
    let stride = match batch.as_slice() {
        [] => Some(0),
        [(_, s)] => Some(*s),
        _ => {
            let all_zero = batch.iter().all(|&(_, s)| s == 0);
            let contiguous = batch.windows(2).all(|w| w[0].1 == w[1].1 * w[1].0 as isize);
            if all_zero {
                Some(0)
            } else if contiguous {
                Some(batch[batch.len() - 1].1)
            } else {
                None
            }
        }
    };
    let row = cs == 1 && rs >= c.max(1) as isize;
    let col = rs == 1 && cs >= r.max(1) as isize && !row;
    match stride {
        Some(s) if s >= 0 && (row || col) => Ok(Operand {
            ptr: dptr(a)?,
            ld: if row { rs as usize } else { cs as usize },
            col_major: col,
            stride: s as i64,
            _keep: a.view(),
        }),
        _ => {
            let cpy = a.copy()?;
            Ok(Operand { ptr: dptr(&cpy)?, ld: c.max(1), col_major: false, stride: (r * c) as i64, _keep: cpy })
        }
    }
}

/// `out = a @ b` for stacks (as `cpu::matmul`): cuBLAS's strided-batched gemm on
/// `outᵀ = bᵀ aᵀ` (plain FP32 compute for float32: no TF32). Integer and boolean stacks are
/// exact: products broadcast over the shared axis, then summed (`any` for `bool`) and cast back
/// with wrapping, as NumPy's loops.
pub(crate) fn matmul(a: &Array, b: &Array, out: &Array) -> Result<()> {
    let dt = out.dtype();
    if !dt.is_inexact() {
        let prod = crate::multiply(&a.expand_dims(-1)?, &b.expand_dims(-3)?)?;
        let r = if dt == DType::Bool { prod.any(-2)? } else { prod.sum(-2)? };
        return crate::ufunc::assign(out, &r);
    }
    let dev = dev_of(out)?;
    let (ty, compute) = blas_type(dt)?;
    let nd = out.ndim();
    let (m, n, k) = (out.shape()[nd - 2], out.shape()[nd - 1], a.shape()[a.ndim() - 1]);
    let batch: usize = out.shape()[..nd - 2].iter().product();
    let (oa, ob) = (operand(a)?, operand(b)?);
    let op = |col: bool| if col { blas::cublasOperation_t::CUBLAS_OP_T } else { blas::cublasOperation_t::CUBLAS_OP_N };
    let one: [f64; 2] = [1.0, 0.0];
    let zero: [f64; 2] = [0.0, 0.0];
    let onef: [f32; 2] = [1.0, 0.0];
    let zerof: [f32; 2] = [0.0, 0.0];
    let (alpha, beta): (*const c_void, *const c_void) = match dt.real_dtype() {
        DType::Float32 => (onef.as_ptr().cast(), zerof.as_ptr().cast()),
        _ => (one.as_ptr().cast(), zero.as_ptr().cast()),
    };
    let (mi, ni, ki) = (to_i32(n, "matmul")?, to_i32(m, "matmul")?, to_i32(k, "matmul")?);
    with_handles(&dev, |h| {
        // SAFETY: the pointers are device addresses of arrays alive for this call (`oa`, `ob`
        // keep their operands) on `dev`, whose context the handles were made current in;
        // the dimensions, leading dimensions and strides describe those arrays' matrices
        // (checked by `operand`); alpha/beta are host scalars of the compute type.
        blas_check("cublasGemmStridedBatchedEx", unsafe {
            blas::cublasGemmStridedBatchedEx(
                h.blas,
                op(ob.col_major),
                op(oa.col_major),
                mi,
                ni,
                ki,
                alpha,
                ob.ptr as *const c_void,
                ty,
                to_i32(ob.ld, "leading dimension")?,
                ob.stride,
                oa.ptr as *const c_void,
                ty,
                to_i32(oa.ld, "leading dimension")?,
                oa.stride,
                beta,
                dptr(out)? as *mut c_void,
                ty,
                mi,
                (m * n) as i64,
                to_i32(batch, "batch")?,
                compute,
                blas::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        })
    })
}

/// A device work buffer of `bytes` bytes (from the pool; freed with the array).
fn work(dev: &CudaDevice, bytes: usize) -> Result<Array> {
    Array::alloc(&[bytes.max(1)], DType::UInt8, dev.device(), false)
}

/// A cuSOLVER workspace of the sizes a `_bufferSize` query gave: a device block (from the
/// pool, held while the calls are enqueued) and a host buffer.
struct Workspace {
    ptr: *mut c_void,
    dbytes: usize,
    host: Vec<u8>,
    hbytes: usize,
    _block: Array,
}

/// One cuSOLVER call per matrix of a stack of `count`, sharing one workspace: `query` sets
/// the workspace's device and host bytes, `call(h, i, ws)` enqueues matrix `i`.
fn each_matrix(
    dev: &CudaDevice,
    count: usize,
    query: impl FnOnce(&handles::Handles, &mut usize, &mut usize) -> Result<()>,
    mut call: impl FnMut(&handles::Handles, usize, &mut Workspace) -> Result<()>,
) -> Result<()> {
    with_handles(dev, |h| {
        let (mut dbytes, mut hbytes) = (0, 0);
        query(h, &mut dbytes, &mut hbytes)?;
        let block = work(dev, dbytes)?;
        let mut ws = Workspace {
            ptr: dptr(&block)? as *mut c_void,
            dbytes,
            host: vec![0u8; hbytes.max(1)],
            hbytes,
            _block: block,
        };
        (0..count).try_for_each(|i| call(h, i, &mut ws))
    })
}

/// cuSOLVER's `info` of a stack of `count` matrices: one zeroed int32 each.
fn info_array(dev: &CudaDevice, count: usize) -> Result<Array> {
    Array::alloc(&[count], DType::Int32, dev.device(), true)
}

/// Matrix `i`'s `info` slot in the array at `pi` ([`info_array`]).
fn info_slot(pi: u64, i: usize) -> *mut i32 {
    (pi + (i * 4) as u64) as *mut i32
}

/// NumPy's `LinAlgError(msg)` when a matrix's `info` is a failure (`failed`): one copy for the
/// whole stack, skipped when [`gpu_error_check`](super::gpu_error_check) is off.
fn check_info(info: &Array, failed: impl Fn(i32) -> bool, msg: &str) -> Result<()> {
    if super::gpu_error_check() && info.to_vec::<i32>()?.into_iter().any(failed) {
        return Err(Error::LinAlg(msg.into()));
    }
    Ok(())
}

/// LU factorisations of every matrix of `w` (a C-contiguous stack `(batch, n, n)`, factored in
/// place as the column-major `wᵀ`), pivots into `ipiv` (`(batch, n)` int64) and `info`
/// (`(batch,)` int32): our own blocked kernels for the real orders [`blocked::takes`], else
/// cuSOLVER's.
fn getrf(dev: &CudaDevice, w: &Array, ipiv: &Array, info: &Array) -> Result<()> {
    let dt = w.dtype();
    let n = w.shape()[w.ndim() - 1];
    if blocked::takes(dt, n) {
        return blocked::getrf(dev, w, ipiv, info);
    }
    if blocked::takes_tall(dev, dt, n) {
        return blocked::getrf_tall(dev, w, ipiv, info);
    }
    getrf_cusolver(dev, w, ipiv, info)
}

/// [`getrf`] by cuSOLVER.
fn getrf_cusolver(dev: &CudaDevice, w: &Array, ipiv: &Array, info: &Array) -> Result<()> {
    let dt = w.dtype();
    let n = w.shape()[w.ndim() - 1];
    let ty = sol_type(dt)?;
    let count = w.size() / (n * n).max(1);
    let isz = dt.itemsize();
    let (pw, pp, pi) = (dptr(w)?, dptr(ipiv)?, dptr(info)?);
    each_matrix(
        dev,
        count,
        |h, dbytes, hbytes| {
            // SAFETY: a size query on valid handles; the matrix pointer is only inspected.
            solver_check("cusolverDnXgetrf_bufferSize", unsafe {
                sol::cusolverDnXgetrf_bufferSize(
                    h.solver,
                    h.params,
                    n as i64,
                    n as i64,
                    ty,
                    pw as *const c_void,
                    n as i64,
                    ty,
                    dbytes,
                    hbytes,
                )
            })
        },
        |h, i, ws| {
            // SAFETY: matrix `i` of `w`, its `n` pivots and its info slot lie within those
            // arrays (C-contiguous, sized by the caller); the workspace has the queried size.
            solver_check("cusolverDnXgetrf", unsafe {
                sol::cusolverDnXgetrf(
                    h.solver,
                    h.params,
                    n as i64,
                    n as i64,
                    ty,
                    (pw + (i * n * n * isz) as u64) as *mut c_void,
                    n as i64,
                    (pp + (i * n * 8) as u64) as *mut i64,
                    ty,
                    ws.ptr,
                    ws.dbytes,
                    ws.host.as_mut_ptr().cast(),
                    ws.hbytes,
                    info_slot(pi, i),
                )
            })
        },
    )
}

/// Solves `a x = rhs` with the factors [`getrf`] made of `aᵀ` (`w`, cuSOLVER's transposed
/// solve): `rhs` (C-contiguous `(batch, nrhs, n)`: the column-major `n×nrhs` right-hand sides)
/// is overwritten with `a⁻¹ rhs`.
fn getrs(dev: &CudaDevice, w: &Array, ipiv: &Array, rhs: &Array) -> Result<()> {
    let dt = w.dtype();
    let ty = sol_type(dt)?;
    let n = w.shape()[w.ndim() - 1];
    let nrhs = rhs.shape()[rhs.ndim() - 2];
    let count = w.size() / (n * n).max(1);
    let isz = dt.itemsize();
    // `info` reports only an illegal argument here (the singular matrices are getrf's).
    let info = info_array(dev, count)?;
    let (pw, pp, pb, pi) = (dptr(w)?, dptr(ipiv)?, dptr(rhs)?, dptr(&info)?);
    with_handles(dev, |h| {
        for i in 0..count {
            // SAFETY: matrix `i` of `w`, its pivots, its right-hand sides and its info slot lie
            // within those C-contiguous arrays (sized by the caller).
            solver_check("cusolverDnXgetrs", unsafe {
                sol::cusolverDnXgetrs(
                    h.solver,
                    h.params,
                    sol::cublasOperation_t::CUBLAS_OP_T,
                    n as i64,
                    nrhs as i64,
                    ty,
                    (pw + (i * n * n * isz) as u64) as *const c_void,
                    n as i64,
                    (pp + (i * n * 8) as u64) as *const i64,
                    ty,
                    (pb + (i * n * nrhs * isz) as u64) as *mut c_void,
                    n as i64,
                    info_slot(pi, i),
                )
            })?;
        }
        Ok(())
    })
}

/// The stack `a` as a C-contiguous `(batch, r, c)` copy (the libraries work in place).
fn work_copy(a: &Array) -> Result<Array> {
    let nd = a.ndim();
    let (r, c) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    a.copy()?.reshape([a.size() / (r * c).max(1), r, c])
}

/// The one-kernel LU path ([`small::small_lu`]) for the small stack `s`, then NumPy's
/// "Singular matrix" when one of its matrices was singular (counted on the device unless
/// [`gpu_error_check`](super::gpu_error_check) is off).
fn small_lu_checked(dev: &CudaDevice, s: &Array, out: small::Out<'_>) -> Result<()> {
    let count =
        if super::gpu_error_check() { Some(Array::alloc(&[1], DType::Int32, dev.device(), true)?) } else { None };
    small::small_lu(dev, s, out, count.as_ref())?;
    count.map_or(Ok(()), |c| check_info(&c, |i| i > 0, "Singular matrix"))
}

/// A stack of matrices of order at most [`small::MAXN`] as the C-contiguous `(batch, n, n)`
/// the one-kernel path reads (a view when it already is one), or `None` for larger matrices.
fn small_stack(a: &Array) -> Result<Option<Array>> {
    let n = a.shape()[a.ndim() - 1];
    if n > small::MAXN {
        return Ok(None);
    }
    Ok(Some(a.as_contiguous()?.reshape([a.size() / (n * n).max(1), n, n])?))
}

/// A stack's LU factors: the factored copy, its pivots and info.
fn lu(dev: &CudaDevice, a: &Array) -> Result<(Array, Array, Array)> {
    let w = work_copy(a)?;
    let (count, n) = (w.shape()[0], w.shape()[1]);
    let ipiv = Array::alloc(&[count, n], DType::Int64, dev.device(), false)?;
    let info = info_array(dev, count)?;
    getrf(dev, &w, &ipiv, &info)?;
    Ok((w, ipiv, info))
}

/// `numpy.linalg.slogdet` of a stack from the LU of `aᵀ` (same determinant): the pivots'
/// parity and the diagonal of `U`, reduced on the device (one kernel for real dtypes,
/// [`blocked::slogdet`]).
pub(crate) fn slogdet(a: &Array, sign: &Array, logdet: &Array) -> Result<()> {
    let dev = dev_of(a)?;
    if let Some(s) = small_stack(a)? {
        return small::small_lu(&dev, &s, small::Out::Det { sign, logdet }, None);
    }
    let (w, ipiv, _info) = lu(&dev, a)?;
    if !a.dtype().is_complex() && sign.is_c_contiguous() && logdet.is_c_contiguous() {
        return blocked::slogdet(&dev, &w, &ipiv, sign, logdet);
    }
    let n = w.shape()[1];
    let d = w.diagonal_with(0, 1, 2)?;
    let rows = crate::arange(n as i64, &dev.device())?.astype(DType::Int64)?;
    let swaps = crate::not_equal(&ipiv, &crate::add(&rows, 1i64)?)?.sum(-1)?;
    let parity = crate::subtract(1.0, &crate::multiply(&crate::remainder(&swaps, 2i64)?, 2.0)?)?;
    let absd = d.abs()?;
    let singular = crate::any(&crate::equal(&absd, 0.0)?, -1)?;
    let logs = absd.log()?.sum(-1)?;
    let s = if a.dtype().is_complex() {
        let phase = crate::angle(&d)?.sum(-1)?;
        let unit = crate::complex::from_parts(&phase.cos()?, &phase.sin()?)?;
        crate::multiply(&unit, &parity)?
    } else {
        let neg = crate::less(&d, 0.0)?.sum(-1)?;
        let sgn = crate::subtract(1.0, &crate::multiply(&crate::remainder(&neg, 2i64)?, 2.0)?)?;
        crate::multiply(&sgn, &parity)?
    };
    let s = crate::where_(&singular, 0.0, &s)?;
    let logs = crate::where_(&singular, f64::NEG_INFINITY, &logs)?;
    crate::ufunc::assign(sign, &s.reshape(sign.shape().to_vec())?)?;
    crate::ufunc::assign(logdet, &logs.reshape(logdet.shape().to_vec())?)
}

/// `numpy.linalg.inv` of a stack: `(aᵀ)⁻¹` column-major from the LU factors of `aᵀ`
/// ([`inv::inv_from_lu`]), which is `a⁻¹` row-major.
pub(crate) fn inv(a: &Array, out: &Array) -> Result<()> {
    let dev = dev_of(a)?;
    if let Some(s) = small_stack(a)? {
        return small_lu_checked(&dev, &s, small::Out::Inv { x: out });
    }
    let (w, ipiv, info) = lu(&dev, a)?;
    inv::inv_from_lu(&dev, &w, &ipiv, out)?;
    check_info(&info, |i| i > 0, "Singular matrix")
}

/// `numpy.linalg.solve` of stacks (shapes as `cpu::solve`): the factors of `aᵀ` with
/// `trans` solve `a x = b` for the column-major right-hand sides `bᵀ` (a transposed copy).
pub(crate) fn solve(a: &Array, b: &Array, out: &Array) -> Result<()> {
    let dev = dev_of(a)?;
    if let Some(s) = small_stack(a)? {
        let (n, k) = (b.shape()[b.ndim() - 2], b.shape()[b.ndim() - 1]);
        let bs = b.as_contiguous()?.reshape([s.shape()[0], n, k])?;
        return small_lu_checked(&dev, &s, small::Out::Solve { b: &bs, x: out });
    }
    let (w, ipiv, info) = lu(&dev, a)?;
    let (n, k) = (b.shape()[b.ndim() - 2], b.shape()[b.ndim() - 1]);
    let bt = b.swapaxes(-1, -2)?.copy()?.reshape([w.shape()[0], k, n])?;
    getrs(&dev, &w, &ipiv, &bt)?;
    check_info(&info, |i| i > 0, "Singular matrix")?;
    let x = bt.swapaxes(-1, -2)?.reshape(out.shape().to_vec())?;
    crate::ufunc::assign(out, &x)
}

/// The mask of the lower (`lower`) or upper triangle, diagonal included, of a `rows x cols`
/// matrix, on `dev`.
fn triangle(rows: usize, cols: usize, lower: bool, dev: &crate::Device) -> Result<Array> {
    let i = crate::arange(rows as i64, dev)?.reshape([rows, 1])?;
    let j = crate::arange(cols as i64, dev)?.reshape([1, cols])?;
    if lower {
        crate::greater_equal(&i, &j)
    } else {
        crate::less_equal(&i, &j)
    }
}

/// `numpy.linalg.cholesky` of a stack: `potrf` (lower) reading `a`'s lower triangle, or for
/// `upper` its upper one, as NumPy does.
pub(crate) fn cholesky(a: &Array, upper: bool, out: &Array) -> Result<()> {
    let dev = dev_of(a)?;
    // potrf's lower variant, which runs at twice the speed of its upper one (4096² float64 on
    // an H100: 2.3 ms against 5.3 ms). For `upper`, the row-major copy of `a` is, column-major,
    // `aᵀ = conj(a)`, whose lower triangle is `a`'s upper one, and its factor `L'` read
    // row-major is `U = L'ᵀ`. For the lower factor, a copy of `aᵀ` is `a` itself to potrf,
    // and its `L` is read back transposed.
    let w = if upper { work_copy(a)? } else { work_copy(&a.swapaxes(-1, -2)?)? };
    let (count, n) = (w.shape()[0], w.shape()[1]);
    let dt = a.dtype();
    let ty = sol_type(dt)?;
    let info = info_array(&dev, count)?;
    let uplo = sol::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER;
    let (pw, pi, isz) = (dptr(&w)?, dptr(&info)?, dt.itemsize());
    each_matrix(
        &dev,
        count,
        |h, dbytes, hbytes| {
            // SAFETY: a size query on valid handles.
            solver_check("cusolverDnXpotrf_bufferSize", unsafe {
                sol::cusolverDnXpotrf_bufferSize(
                    h.solver,
                    h.params,
                    uplo,
                    n as i64,
                    ty,
                    pw as *const c_void,
                    n as i64,
                    ty,
                    dbytes,
                    hbytes,
                )
            })
        },
        |h, i, ws| {
            // SAFETY: matrix `i` of the C-contiguous `w` and info slot `i`; the workspace has
            // the queried size.
            solver_check("cusolverDnXpotrf", unsafe {
                sol::cusolverDnXpotrf(
                    h.solver,
                    h.params,
                    uplo,
                    n as i64,
                    ty,
                    (pw + (i * n * n * isz) as u64) as *mut c_void,
                    n as i64,
                    ty,
                    ws.ptr,
                    ws.dbytes,
                    ws.host.as_mut_ptr().cast(),
                    ws.hbytes,
                    info_slot(pi, i),
                )
            })
        },
    )?;
    check_info(&info, |i| i > 0, "Matrix is not positive definite")?;
    let f = if upper { w.view() } else { w.swapaxes(-1, -2)? };
    let mask = triangle(n, n, !upper, &dev.device())?;
    let l = crate::where_(&mask, &f, 0.0)?.astype(dt)?;
    crate::ufunc::assign(out, &l.reshape(out.shape().to_vec())?)
}

/// `numpy.linalg.eigh` of a stack: `syevd` on the column-major `aᵀ = conj(a)` (so `a`'s lower
/// triangle is its upper one); the eigenvalues are `a`'s, the eigenvectors the conjugates of
/// the columns it returns.
pub(crate) fn eigh(a: &Array, lower: bool, w: &Array, v: Option<&Array>) -> Result<()> {
    let dev = dev_of(a)?;
    let m = work_copy(a)?;
    let (count, n) = (m.shape()[0], m.shape()[1]);
    let dt = a.dtype();
    let (ty, rty) = (sol_type(dt)?, sol_type(dt.real_dtype())?);
    let vals = Array::alloc(&[count, n], dt.real_dtype(), dev.device(), false)?;
    let info = info_array(&dev, count)?;
    let uplo = if lower {
        sol::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER
    } else {
        sol::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER
    };
    let jobz = if v.is_some() {
        sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
    } else {
        sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
    };
    let (pm, pv, pi) = (dptr(&m)?, dptr(&vals)?, dptr(&info)?);
    let (isz, rsz) = (dt.itemsize(), dt.real_dtype().itemsize());
    each_matrix(
        &dev,
        count,
        |h, dbytes, hbytes| {
            // SAFETY: a size query on valid handles.
            solver_check("cusolverDnXsyevd_bufferSize", unsafe {
                sol::cusolverDnXsyevd_bufferSize(
                    h.solver,
                    h.params,
                    jobz,
                    uplo,
                    n as i64,
                    ty,
                    pm as *const c_void,
                    n as i64,
                    rty,
                    pv as *const c_void,
                    ty,
                    dbytes,
                    hbytes,
                )
            })
        },
        |h, i, ws| {
            // SAFETY: matrix `i` of `m`, row `i` of `vals` and info slot `i` lie within those
            // C-contiguous arrays; the workspace has the queried size.
            solver_check("cusolverDnXsyevd", unsafe {
                sol::cusolverDnXsyevd(
                    h.solver,
                    h.params,
                    jobz,
                    uplo,
                    n as i64,
                    ty,
                    (pm + (i * n * n * isz) as u64) as *mut c_void,
                    n as i64,
                    rty,
                    (pv + (i * n * rsz) as u64) as *mut c_void,
                    ty,
                    ws.ptr,
                    ws.dbytes,
                    ws.host.as_mut_ptr().cast(),
                    ws.hbytes,
                    info_slot(pi, i),
                )
            })
        },
    )?;
    check_info(&info, |i| i != 0, "Eigenvalues did not converge")?;
    crate::ufunc::assign(w, &vals.reshape(w.shape().to_vec())?)?;
    if let Some(v) = v {
        let vecs = m.swapaxes(-1, -2)?;
        let vecs = if dt.is_complex() { vecs.conj()? } else { vecs };
        crate::ufunc::assign(v, &vecs.reshape(v.shape().to_vec())?)?;
    }
    Ok(())
}

/// `numpy.linalg.svd` of a stack: float32 and complex64 through the Gram matrix in double
/// precision ([`svd_gram`]: faster and more accurate than cuSOLVER's single-precision routines);
/// float64 and complex128 with cuSOLVER's `gesvdj` (economy size or values only) or `gesvd`,
/// which need rows `>=` columns: a
/// wide `a` is factored as the column-major `aᵀ` it already is (`aᵀ = U S Vᴴ` gives
/// `a = conj(V) S Uᵀ`), a tall one as a column-major copy of `a`.
pub(crate) fn svd(a: &Array, full: bool, u: Option<&Array>, s: &Array, vh: Option<&Array>) -> Result<()> {
    let dev = dev_of(a)?;
    let dt = a.dtype();
    if matches!(dt, DType::Float32 | DType::Complex64) {
        return svd_gram::svd(a, full, u, s, vh);
    }
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let k = m.min(n);
    let wide = n >= m;
    // The column-major matrix handed to gesvd, `rows x cols` with rows >= cols.
    let (g, rows, cols) = if wide { (work_copy(a)?, n, m) } else { (work_copy(&a.swapaxes(-1, -2)?)?, m, n) };
    let count = g.shape()[0];
    let vectors = u.is_some();
    let job: i8 = if !vectors {
        b'N' as i8
    } else if full {
        b'A' as i8
    } else {
        b'S' as i8
    };
    let ucols = if full { rows } else { cols };
    let (ty, rty) = (sol_type(dt)?, sol_type(dt.real_dtype())?);
    let sv = Array::alloc(&[count, k], dt.real_dtype(), dev.device(), false)?;
    // Not the polar-decomposition SVD (`Xgesvdp`), faster on full-rank matrices: its
    // reconstruction of a rank-deficient 60x40 float32 matrix was 7.5e-2 off (H100, CUDA 13).
    if !full || !vectors {
        // The economy SVD by Jacobi (twice gesvd's speed; its error, a few hundred eps, is
        // 1e-13 in double precision). It returns V, and `vt` below is (Vᴴ)ᵀ = conj(V) read
        // row-major, which is V's row-major read transposed (and conjugated).
        let um = Array::alloc(&[count, cols, rows], dt, dev.device(), false)?;
        let vm = Array::alloc(&[count, cols, cols], dt, dev.device(), false)?;
        let info = info_array(&dev, count)?;
        handles::gesvdj(&dev, dt, rows, cols, vectors, &g, &sv, &um, &vm, &info)?;
        check_info(&info, |i| i != 0, "SVD did not converge")?;
        let vt = if dt.is_complex() { vm.swapaxes(-1, -2)?.conj()? } else { vm.swapaxes(-1, -2)? };
        return svd_results(wide, &sv, um, vt, s, u, vh);
    }
    let um = Array::alloc(&[count, ucols, rows], dt, dev.device(), false)?;
    let vt = Array::alloc(&[count, cols, cols], dt, dev.device(), false)?;
    let info = info_array(&dev, count)?;
    let (pg, ps, pu, pv, pi) = (dptr(&g)?, dptr(&sv)?, dptr(&um)?, dptr(&vt)?, dptr(&info)?);
    let (isz, rsz) = (dt.itemsize(), dt.real_dtype().itemsize());
    each_matrix(
        &dev,
        count,
        |h, dbytes, hbytes| {
            // SAFETY: a size query on valid handles.
            solver_check("cusolverDnXgesvd_bufferSize", unsafe {
                sol::cusolverDnXgesvd_bufferSize(
                    h.solver,
                    h.params,
                    job,
                    job,
                    rows as i64,
                    cols as i64,
                    ty,
                    pg as *const c_void,
                    rows as i64,
                    rty,
                    ps as *const c_void,
                    ty,
                    pu as *const c_void,
                    rows as i64,
                    ty,
                    pv as *const c_void,
                    cols as i64,
                    ty,
                    dbytes,
                    hbytes,
                )
            })
        },
        |h, i, ws| {
            // SAFETY: matrix `i` of `g`, `um`, `vt`, row `i` of `sv` and info slot `i` lie in
            // those C-contiguous arrays (sized for `job`); the workspace has the queried size.
            solver_check("cusolverDnXgesvd", unsafe {
                sol::cusolverDnXgesvd(
                    h.solver,
                    h.params,
                    job,
                    job,
                    rows as i64,
                    cols as i64,
                    ty,
                    (pg + (i * rows * cols * isz) as u64) as *mut c_void,
                    rows as i64,
                    rty,
                    (ps + (i * k * rsz) as u64) as *mut c_void,
                    ty,
                    (pu + (i * ucols * rows * isz) as u64) as *mut c_void,
                    rows as i64,
                    ty,
                    (pv + (i * cols * cols * isz) as u64) as *mut c_void,
                    cols as i64,
                    ty,
                    ws.ptr,
                    ws.dbytes,
                    ws.host.as_mut_ptr().cast(),
                    ws.hbytes,
                    info_slot(pi, i),
                )
            })
        },
    )?;
    check_info(&info, |i| i != 0, "SVD did not converge")?;
    svd_results(wide, &sv, um, vt, s, u, vh)
}

/// The outputs of [`svd`] from the library's: `um` is `Uᵀ` and `vt` is `(Vᴴ)ᵀ` read
/// row-major (of `aᵀ` when `wide`).
fn svd_results(
    wide: bool,
    sv: &Array,
    um: Array,
    vt: Array,
    s: &Array,
    u: Option<&Array>,
    vh: Option<&Array>,
) -> Result<()> {
    crate::ufunc::assign(s, &sv.reshape(s.shape().to_vec())?)?;
    if let (Some(u), Some(vh)) = (u, vh) {
        // Column-major results read row-major: `um` is Uᵀ (ucols x rows), `vt` is (Vᴴ)ᵀ.
        let (uu, vv) = if wide {
            // aᵀ = U S Vᴴ, so a = conj(V) S Uᵀ: u = (Vᴴ)ᵀ, vh = Uᵀ.
            (vt, um)
        } else {
            // a = U S Vᴴ: u = (Uᵀ)ᵀ, vh = ((Vᴴ)ᵀ)ᵀ.
            (um.swapaxes(-1, -2)?, vt.swapaxes(-1, -2)?)
        };
        crate::ufunc::assign(u, &uu.reshape(u.shape().to_vec())?)?;
        crate::ufunc::assign(vh, &vv.reshape(vh.shape().to_vec())?)?;
    }
    Ok(())
}

/// `numpy.linalg.qr` of a stack: `geqrf` on a column-major copy of `a`, `r` from its upper
/// triangle, `q` from `orgqr`/`ungqr` (LAPACK's signs, as NumPy's): our own blocked kernels
/// where [`blocked::takes_qr`] (small matrices, stacks), else cuSOLVER's.
pub(crate) fn qr(a: &Array, mode: QrMode, q: Option<&Array>, r: &Array) -> Result<()> {
    let dev = dev_of(a)?;
    let dt = a.dtype();
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let k = m.min(n);
    let qcols = if mode == QrMode::Complete { m } else { k };
    // The column-major copy of `a`.
    let g = work_copy(&a.swapaxes(-1, -2)?)?;
    let count = g.shape()[0];
    if blocked::takes_qr(dt, m, count) && k >= 1 {
        // Our own geqrf and orgqr, in place on `g` (blocked.rs).
        let refl = blocked::geqrf(&dev, &g)?;
        qr_r(&g, r)?;
        if let Some(q) = q {
            let qq = blocked::orgqr(&dev, &g, &refl, qcols)?.swapaxes(-1, -2)?;
            crate::ufunc::assign(q, &qq.reshape(q.shape().to_vec())?)?;
        }
        return Ok(());
    }
    // Column-major `a` with room for `max(n, qcols)` columns (orgqr builds q in place).
    let width = n.max(qcols);
    let wq = Array::alloc(&[count, width, m], dt, dev.device(), true)?;
    wq.slice(crate::s![.., ..n as isize, ..])?.assign(&g)?;
    let tau = Array::alloc(&[count, k.max(1)], dt, dev.device(), false)?;
    let info = info_array(&dev, count)?;
    let ty = sol_type(dt)?;
    let (pw, pt, pi, isz) = (dptr(&wq)?, dptr(&tau)?, dptr(&info)?, dt.itemsize());
    each_matrix(
        &dev,
        count,
        |h, dbytes, hbytes| {
            // SAFETY: a size query on valid handles.
            solver_check("cusolverDnXgeqrf_bufferSize", unsafe {
                sol::cusolverDnXgeqrf_bufferSize(
                    h.solver,
                    h.params,
                    m as i64,
                    n as i64,
                    ty,
                    pw as *const c_void,
                    m as i64,
                    ty,
                    pt as *const c_void,
                    ty,
                    dbytes,
                    hbytes,
                )
            })
        },
        |h, i, ws| {
            // SAFETY: matrix `i` of `wq` (its first `n` columns), its `k` scalars of `tau`
            // and info slot `i`; the workspace has the queried size.
            solver_check("cusolverDnXgeqrf", unsafe {
                sol::cusolverDnXgeqrf(
                    h.solver,
                    h.params,
                    m as i64,
                    n as i64,
                    ty,
                    (pw + (i * width * m * isz) as u64) as *mut c_void,
                    m as i64,
                    ty,
                    (pt + (i * k.max(1) * isz) as u64) as *mut c_void,
                    ty,
                    ws.ptr,
                    ws.dbytes,
                    ws.host.as_mut_ptr().cast(),
                    ws.hbytes,
                    info_slot(pi, i),
                )
            })
        },
    )?;
    qr_r(&wq.slice(crate::s![.., ..n as isize, ..])?, r)?;
    if let Some(q) = q {
        handles::orgqr(&dev, dt, m, qcols, k, &wq, width, &tau, &info)?;
        let qq = wq.slice(crate::s![.., ..qcols as isize, ..])?.swapaxes(-1, -2)?;
        crate::ufunc::assign(q, &qq.reshape(q.shape().to_vec())?)?;
    }
    Ok(())
}

/// `r`: the upper triangle of the first rows of the factored column-major `w` (`(batch, n, m)`;
/// row-major, a transpose).
fn qr_r(w: &Array, r: &Array) -> Result<()> {
    let rr = w.swapaxes(-1, -2)?;
    let (rrows, n) = (r.shape()[r.ndim() - 2], w.shape()[1]);
    let rr = rr.slice(crate::s![.., ..rrows as isize, ..])?;
    let rr = crate::where_(&triangle(rrows, n, false, &w.device())?, &rr, 0.0)?.astype(w.dtype())?;
    crate::ufunc::assign(r, &rr.reshape(r.shape().to_vec())?)
}

/// `numpy.linalg.eig` of a stack with cuSOLVER's `Xgeev` (right vectors only), on a column-major
/// copy of `a`; real input gives complex eigenvalues and LAPACK's packed real vectors, unpacked
/// here.
pub(crate) fn eig(a: &Array, w: &Array, v: Option<&Array>) -> Result<()> {
    let dev = dev_of(a)?;
    let dt = a.dtype();
    // NumPy refuses non-finite input before LAPACK sees it.
    if !crate::all(&a.isfinite()?, None)?.item::<bool>()? {
        return Err(Error::LinAlg("Array must not contain infs or NaNs".into()));
    }
    // The column-major copy of `a` (a copy of `aᵀ`, row-major), factored in place.
    let g = work_copy(&a.swapaxes(-1, -2)?)?;
    let (count, n) = (g.shape()[0], g.shape()[1]);
    let cdt = dt.to_complex();
    let (ty, wty) = (sol_type(dt)?, sol_type(cdt)?);
    let wv = Array::alloc(&[count, n], cdt, dev.device(), false)?;
    // Right eigenvectors, column-major: a real `a` gives LAPACK's real packing of conjugate
    // pairs (columns j, j + 1 hold the real and imaginary parts of the pair's first vector).
    let vr = Array::alloc(&[count, n, n], dt, dev.device(), false)?;
    let info = info_array(&dev, count)?;
    let (jobv, ldv) = if v.is_some() {
        (sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR, n as i64)
    } else {
        (sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR, 1)
    };
    let none = sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR;
    let (pg, pw, pv, pi) = (dptr(&g)?, dptr(&wv)?, dptr(&vr)?, dptr(&info)?);
    let (isz, csz) = (dt.itemsize(), cdt.itemsize());
    each_matrix(
        &dev,
        count,
        |h, dbytes, hbytes| {
            // SAFETY: a size query on valid handles.
            solver_check("cusolverDnXgeev_bufferSize", unsafe {
                sol::cusolverDnXgeev_bufferSize(
                    h.solver,
                    h.params,
                    none,
                    jobv,
                    n as i64,
                    ty,
                    pg as *const c_void,
                    n as i64,
                    wty,
                    pw as *const c_void,
                    ty,
                    std::ptr::null(),
                    1,
                    ty,
                    pv as *const c_void,
                    ldv,
                    ty,
                    dbytes,
                    hbytes,
                )
            })
        },
        |h, i, ws| {
            // SAFETY: matrix `i` of `g` and `vr`, row `i` of `wv` and info slot `i` lie in those
            // C-contiguous arrays; no left vectors; the workspace has the queried size.
            solver_check("cusolverDnXgeev", unsafe {
                sol::cusolverDnXgeev(
                    h.solver,
                    h.params,
                    none,
                    jobv,
                    n as i64,
                    ty,
                    (pg + (i * n * n * isz) as u64) as *mut c_void,
                    n as i64,
                    wty,
                    (pw + (i * n * csz) as u64) as *mut c_void,
                    ty,
                    std::ptr::null_mut(),
                    1,
                    ty,
                    (pv + (i * n * n * isz) as u64) as *mut c_void,
                    ldv,
                    ty,
                    ws.ptr,
                    ws.dbytes,
                    ws.host.as_mut_ptr().cast(),
                    ws.hbytes,
                    info_slot(pi, i),
                )
            })
        },
    )?;
    check_info(&info, |i| i != 0, "Eigenvalues did not converge")?;
    crate::ufunc::assign(w, &wv.reshape(w.shape().to_vec())?)?;
    let Some(v) = v else { return Ok(()) };
    // Row j of `vr` (read row-major) is eigenvector column j.
    let cols = if dt.is_complex() {
        vr
    } else {
        // Unpacked as LAPACK documents: for a pair (w_j, w_j+1 = conj(w_j)) with Im w_j > 0,
        // v_j = x_j + i x_j+1 and v_j+1 = x_j - i x_j+1.
        let wi = wv.imag()?.expand_dims(-1)?;
        let (first, second) = (crate::greater(&wi, 0.0)?, crate::less(&wi, 0.0)?);
        let (next, prev) = (vr.roll(-1, -2)?, vr.roll(1, -2)?);
        let i1 = crate::Complex::new(0.0, 1.0);
        let up = crate::add(&vr, &crate::multiply(&next, i1)?)?;
        let down = crate::subtract(&prev, &crate::multiply(&vr, i1)?)?;
        crate::where_(&first, &up, &crate::where_(&second, &down, &vr.astype(cdt)?)?)?
    };
    crate::ufunc::assign(v, &cols.swapaxes(-1, -2)?.reshape(v.shape().to_vec())?)
}
