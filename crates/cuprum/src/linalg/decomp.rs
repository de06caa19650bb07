//! Decompositions and solvers: `slogdet`/`det`, `inv`, `solve`, `cholesky`, `qr`, `eigh`,
//! `eig`, `svd` — each one dispatch point (`cpu` or `cuda`) — and what NumPy builds
//! on them (`lstsq`, `pinv`, `matrix_rank`, `svdvals`, `eigvals`, `eigvalsh`).

use super::{as_dtype, assert_stacked_2d, assert_stacked_square, common_type, cpu, cuda, same_device};
use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout;

/// `a` checked as a stack of square matrices and cast to its linalg dtype.
fn square(a: &Array) -> Result<Array> {
    assert_stacked_square(a)?;
    as_dtype(a, common_type(&[a.dtype()])?)
}

/// The shape of a stack's batch with `tail` appended.
fn batch_with(a: &Array, tail: &[usize]) -> Vec<usize> {
    let mut s = a.shape()[..a.ndim() - 2].to_vec();
    s.extend_from_slice(tail);
    s
}

/// What [`slogdet`] returns (NumPy's `SlogdetResult`).
#[derive(Debug)]
pub struct SlogdetResult {
    /// `±1` for real input, a complex number of modulus 1 for complex input; 0 for a singular
    /// matrix. The dtype of the input (after linalg's promotion).
    pub sign: Array,
    /// `log|det|` (`-inf` for a singular matrix), real.
    pub logabsdet: Array,
}

/// `numpy.linalg.slogdet`: the sign and the natural log of the absolute value of the
/// determinant, from an LU factorisation (so no overflow for large matrices); stacks give one
/// value per matrix. A singular matrix is no error: `(0, -inf)`.
///
/// ```
/// use cuprum::{linalg, Device};
/// let a = cuprum::from_vec(vec![1.0, 2.0, 3.0, 4.0], &Device::default_device())?.reshape([2, 2])?;
/// let r = linalg::slogdet(&a)?;
/// assert_eq!(r.sign.item::<f64>()?, -1.0);
/// assert!((r.logabsdet.item::<f64>()? - 2f64.ln()).abs() < 1e-12);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn slogdet(a: &Array) -> Result<SlogdetResult> {
    let a = square(a)?;
    let batch = batch_with(&a, &[]);
    let dt = a.dtype();
    let sign = Array::alloc(&batch, dt, a.device(), false)?;
    let logabsdet = Array::alloc(&batch, dt.real_dtype(), a.device(), false)?;
    if sign.size() > 0 {
        if a.shape()[a.ndim() - 1] == 0 {
            sign.view().fill(1.0)?;
            logabsdet.view().fill(0.0)?;
        } else {
            match a.device() {
                Device::Cpu => cpu::slogdet(&a, &sign, &logabsdet)?,
                Device::Cuda(_) => cuda::slogdet(&a, &sign, &logabsdet)?,
            }
        }
    }
    Ok(SlogdetResult { sign, logabsdet })
}

/// `numpy.linalg.det`: `sign * exp(logabsdet)` of [`slogdet`], as NumPy computes it (exactly 0
/// for an exactly singular matrix).
///
/// ```
/// use cuprum::{linalg, Device};
/// let a = cuprum::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &Device::default_device())?.reshape([2, 2])?;
/// assert!((linalg::det(&a)?.item::<f32>()? + 2.0).abs() < 1e-6);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn det(a: &Array) -> Result<Array> {
    let r = slogdet(a)?;
    crate::multiply(&r.sign, &r.logabsdet.exp()?)
}

/// `numpy.linalg.inv`: the inverse of each matrix of a stack. `LinAlgError("Singular
/// matrix")` when a pivot of the LU factorisation is exactly zero.
///
/// ```
/// use cuprum::{linalg, Device, ErrorKind};
/// let dev = Device::default_device();
/// let a = cuprum::from_vec(vec![4.0, 7.0, 2.0, 6.0], &dev)?.reshape([2, 2])?;
/// let x = linalg::inv(&a)?.to_vec::<f64>()?;
/// assert!(x.iter().zip([0.6, -0.7, -0.2, 0.4]).all(|(x, y)| (x - y).abs() < 1e-12));
/// let s = cuprum::from_vec(vec![1.0, 2.0, 2.0, 4.0], &dev)?.reshape([2, 2])?;
/// assert_eq!(linalg::inv(&s).unwrap_err().kind(), ErrorKind::LinAlgError);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn inv(a: &Array) -> Result<Array> {
    let a = square(a)?;
    let out = Array::alloc(a.shape(), a.dtype(), a.device(), false)?;
    if out.size() > 0 {
        match a.device() {
            Device::Cpu => cpu::inv(&a, &out)?,
            Device::Cuda(_) => cuda::inv(&a, &out)?,
        }
    }
    Ok(out)
}

/// `numpy.linalg.solve(a, b)`: `x` with `a @ x = b`. As NumPy 2: a 1-d `b` is one right-hand
/// side (`(..., M, M), (M,) -> (..., M)`), otherwise `b` is a stack of `(M, K)` matrices,
/// broadcast against `a`'s stack. `LinAlgError("Singular matrix")` as [`inv`].
pub fn solve(a: &Array, b: &Array) -> Result<Array> {
    same_device("solve", a, b)?;
    assert_stacked_square(a)?;
    let dt = common_type(&[a.dtype(), b.dtype()])?;
    let (a, b) = (as_dtype(a, dt)?, as_dtype(b, dt)?);
    let m = a.shape()[a.ndim() - 1];
    let vector = b.ndim() == 1;
    let (name, sig) = if vector { ("solve1", "(m,m),(m)->(m)") } else { ("solve", "(m,m),(m,n)->(m,n)") };
    if b.ndim() == 0 {
        return Err(Error::Value(format!(
            "{name}: Input operand 1 does not have enough dimensions (has 0, gufunc core with signature {sig} requires 1)"
        )));
    }
    let b2 = if vector { b.reshape([b.shape()[0], 1])? } else { b.view() };
    let bm = b2.shape()[b2.ndim() - 2];
    if bm != m {
        return Err(Error::Value(format!(
            "{name}: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature {sig} (size {bm} is different from {m})"
        )));
    }
    let k = b2.shape()[b2.ndim() - 1];
    let batch = layout::broadcast_shapes(&a.shape()[..a.ndim() - 2], &b2.shape()[..b2.ndim() - 2])
        .ok_or_else(|| Error::ShapeMismatch { op: name.into(), a: a.shape().to_vec(), b: b.shape().to_vec() })?;
    let shape = |tail: &[usize]| -> Vec<usize> { batch.iter().chain(tail).copied().collect() };
    let a = a.broadcast_to(&shape(&[m, m]))?;
    let b2 = b2.broadcast_to(&shape(&[m, k]))?;
    let out = Array::alloc(&shape(&[m, k]), dt, a.device(), false)?;
    if out.size() > 0 {
        match a.device() {
            Device::Cpu => cpu::solve(&a, &b2, &out)?,
            Device::Cuda(_) => cuda::solve(&a, &b2, &out)?,
        }
    }
    if vector {
        out.reshape(shape(&[m]))
    } else {
        Ok(out)
    }
}

/// `numpy.linalg.cholesky(a, upper=upper)`: `L` with `a = L @ L.conj().T` (lower, reading only
/// `a`'s lower triangle), or with `upper`, `U = L.conj().T` (reading only the upper triangle).
/// `LinAlgError("Matrix is not positive definite")` when a pivot is not positive.
///
/// ```
/// use cuprum::{linalg, Device};
/// let a = cuprum::from_vec(vec![4.0, 2.0, 2.0, 5.0], &Device::default_device())?.reshape([2, 2])?;
/// assert_eq!(linalg::cholesky(&a)?.to_vec::<f64>()?, vec![2.0, 0.0, 1.0, 2.0]);
/// let opts = linalg::CholeskyOptions { upper: true };
/// assert_eq!(linalg::cholesky_with(&a, &opts)?.to_vec::<f64>()?, vec![2.0, 1.0, 0.0, 2.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn cholesky(a: &Array) -> Result<Array> {
    cholesky_with(a, &CholeskyOptions::default())
}

/// [`cholesky`]'s keyword (NumPy 2's `upper=False`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CholeskyOptions {
    /// Return `U = L.conj().T`, reading only the upper triangle.
    pub upper: bool,
}

/// `numpy.linalg.cholesky(a, upper=...)`: as [`cholesky`].
pub fn cholesky_with(a: &Array, opts: &CholeskyOptions) -> Result<Array> {
    let upper = opts.upper;
    let a = square(a)?;
    let out = Array::alloc(a.shape(), a.dtype(), a.device(), false)?;
    if out.size() > 0 {
        match a.device() {
            Device::Cpu => cpu::cholesky(&a, upper, &out)?,
            Device::Cuda(_) => cuda::cholesky(&a, upper, &out)?,
        }
    }
    Ok(out)
}

/// The `mode` of [`qr_with`] (NumPy's `'reduced'`, `'complete'`, `'r'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum QrMode {
    /// `q` is `(..., M, K)`, `r` `(..., K, N)`, `K = min(M, N)` (NumPy's default).
    #[default]
    Reduced,
    /// `q` is `(..., M, M)`, `r` `(..., M, N)`.
    Complete,
    /// Only `r`, `(..., K, N)`.
    R,
}

/// What [`qr`] returns (NumPy's `QRResult`); `q` is `None` for [`QrMode::R`].
#[derive(Debug)]
pub struct QrResult {
    pub q: Option<Array>,
    pub r: Array,
}

/// `numpy.linalg.qr(a)` (mode `'reduced'`): `a = q @ r`, `q` with orthonormal columns, `r` upper triangular;
/// stacks too. The signs are LAPACK's (Householder reflections, `?geqrf`/`?orgqr`), which
/// NumPy returns: `r`'s diagonal is real, and its entries have the opposite sign of the pivot
/// columns' leading entries.
///
/// ```
/// use cuprum::{linalg, Device};
/// let a = cuprum::from_vec(vec![3.0, 1.0, 4.0, 2.0], &Device::default_device())?.reshape([2, 2])?;
/// let qr = linalg::qr(&a)?;
/// let r = qr.r.to_vec::<f64>()?;
/// assert!((r[0] + 5.0).abs() < 1e-12 && r[2] == 0.0);
/// assert!(cuprum::allclose_with(&cuprum::matmul(qr.q.as_ref().unwrap(), &qr.r)?, &a, &cuprum::CloseOptions { rtol: 1e-12, atol: 1e-12, ..Default::default() })?);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn qr(a: &Array) -> Result<QrResult> {
    qr_with(a, QrMode::Reduced)
}

/// `numpy.linalg.qr(a, mode)`: [`qr`] in another mode (`q` is `None` for [`QrMode::R`]).
///
/// ```
/// use cuprum::{linalg, Device};
/// let a = cuprum::from_vec(vec![3.0, 1.0, 4.0, 2.0, 0.0, 1.0], &Device::default_device())?.reshape([3, 2])?;
/// let full = linalg::qr_with(&a, linalg::QrMode::Complete)?;
/// assert_eq!((full.q.unwrap().shape(), full.r.shape()), (&[3usize, 3][..], &[3usize, 2][..]));
/// assert!(linalg::qr_with(&a, linalg::QrMode::R)?.q.is_none());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn qr_with(a: &Array, mode: QrMode) -> Result<QrResult> {
    assert_stacked_2d(a)?;
    let a = as_dtype(a, common_type(&[a.dtype()])?)?;
    let (m, n) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
    let k = m.min(n);
    let (qcols, rrows) = match mode {
        QrMode::Reduced | QrMode::R => (k, k),
        QrMode::Complete => (m, m),
    };
    let (dev, dt) = (a.device(), a.dtype());
    let r = Array::alloc(&batch_with(&a, &[rrows, n]), dt, dev, true)?;
    let q = match mode {
        QrMode::R => None,
        _ => Some(Array::alloc(&batch_with(&a, &[m, qcols]), dt, dev, true)?),
    };
    if a.size() > 0 {
        match dev {
            Device::Cpu => cpu::qr(&a, mode, q.as_ref(), &r)?,
            Device::Cuda(_) => cuda::qr(&a, mode, q.as_ref(), &r)?,
        }
    } else if let Some(q) = &q {
        // An empty `a`: `q` is the identity (NumPy's `?orgqr` of no reflectors).
        if q.size() > 0 {
            let eye = crate::eye_with(m, dt, &crate::EyeOptions { m: Some(qcols), ..Default::default() }, &dev)?;
            q.view().assign(&eye.broadcast_to(q.shape())?)?;
        }
    }
    Ok(QrResult { q, r })
}

/// The triangle of [`eigh_with`]'s input that is read (NumPy's `UPLO`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Uplo {
    /// The lower triangle (NumPy's default `'L'`).
    #[default]
    L,
    /// The upper triangle.
    U,
}

/// What [`eigh`] and [`eig`] return (NumPy's `EighResult`/`EigResult`): eigenvalues, and the
/// eigenvectors as the columns of a matrix (`eigenvectors[..., :, i]` belongs to
/// `eigenvalues[..., i]`).
#[derive(Debug)]
pub struct EigResult {
    pub eigenvalues: Array,
    pub eigenvectors: Array,
}

fn eigh_impl(a: &Array, uplo: Uplo, vectors: bool) -> Result<(Array, Option<Array>)> {
    let a = square(a)?;
    let n = a.shape()[a.ndim() - 1];
    let (dev, dt) = (a.device(), a.dtype());
    let w = Array::alloc(&batch_with(&a, &[n]), dt.real_dtype(), dev, false)?;
    let v = if vectors { Some(Array::alloc(a.shape(), dt, dev, false)?) } else { None };
    if a.size() > 0 {
        let lower = uplo == Uplo::L;
        match dev {
            Device::Cpu => cpu::eigh(&a, lower, &w, v.as_ref())?,
            Device::Cuda(_) => cuda::eigh(&a, lower, &w, v.as_ref())?,
        }
    }
    Ok((w, v))
}

/// `numpy.linalg.eigh(a)`: eigenvalues (ascending, real) and orthonormal eigenvectors
/// of Hermitian (real symmetric) matrices, reading only the lower triangle ([`eigh_with`]
/// reads the other). Each eigenvector
/// is defined up to its sign (a phase for complex input); where eigenvalues repeat, only the
/// subspace is. `LinAlgError("Eigenvalues did not converge")` for an inf or NaN.
///
/// ```
/// use cuprum::{linalg, Device};
/// let a = cuprum::from_vec(vec![2.0, 1.0, 1.0, 2.0], &Device::default_device())?.reshape([2, 2])?;
/// let r = linalg::eigh(&a)?;
/// let w = r.eigenvalues.to_vec::<f64>()?;
/// assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 3.0).abs() < 1e-12);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn eigh(a: &Array) -> Result<EigResult> {
    eigh_with(a, Uplo::L)
}

/// `numpy.linalg.eigh(a, UPLO)`: [`eigh`] reading the `uplo` triangle.
///
/// ```
/// use cuprum::{linalg, Device};
/// // Only the upper triangle is read: the 9 below the diagonal is not.
/// let a = cuprum::from_vec(vec![2.0, 1.0, 9.0, 2.0], &Device::default_device())?.reshape([2, 2])?;
/// let w = linalg::eigvalsh_with(&a, linalg::Uplo::U)?.to_vec::<f64>()?;
/// assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 3.0).abs() < 1e-12);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn eigh_with(a: &Array, uplo: Uplo) -> Result<EigResult> {
    let (w, v) = eigh_impl(a, uplo, true)?;
    Ok(EigResult { eigenvalues: w, eigenvectors: v.expect("eigenvectors were computed") })
}

/// `numpy.linalg.eigvalsh(a)`: the eigenvalues of [`eigh`] alone (no eigenvectors are
/// computed).
pub fn eigvalsh(a: &Array) -> Result<Array> {
    eigvalsh_with(a, Uplo::L)
}

/// `numpy.linalg.eigvalsh(a, UPLO)`: [`eigvalsh`] reading the `uplo` triangle.
pub fn eigvalsh_with(a: &Array, uplo: Uplo) -> Result<Array> {
    Ok(eigh_impl(a, uplo, false)?.0)
}

fn eig_impl(a: &Array, vectors: bool) -> Result<(Array, Option<Array>)> {
    let a = square(a)?;
    let n = a.shape()[a.ndim() - 1];
    let (dev, dt) = (a.device(), a.dtype());
    let cdt = dt.to_complex();
    let w = Array::alloc(&batch_with(&a, &[n]), cdt, dev, false)?;
    let v = if vectors { Some(Array::alloc(a.shape(), cdt, dev, false)?) } else { None };
    if a.size() > 0 {
        match dev {
            Device::Cpu => cpu::eig(&a, &w, v.as_ref())?,
            Device::Cuda(_) => cuda::eig(&a, &w, v.as_ref())?,
        }
    }
    // NumPy returns real arrays for real input whose eigenvalues are all real.
    if !dt.is_complex() && !crate::any(&crate::not_equal(&w.imag()?, 0.0)?, None)?.item::<bool>()? {
        let v = match v {
            Some(v) => Some(v.real().copy()?),
            None => None,
        };
        return Ok((w.real().copy()?, v));
    }
    Ok((w, v))
}

/// `numpy.linalg.eig`: eigenvalues and right eigenvectors of general square matrices, complex
/// (real arrays when the input is real and every eigenvalue is real, as NumPy returns). Each
/// vector has unit norm; its phase is LAPACK's convention where that is defined (the largest
/// component real for complex input) and otherwise only up to sign. The order of the
/// eigenvalues is the algorithm's (NumPy promises none either). `LinAlgError("Array must not
/// contain infs or NaNs")` for non-finite input.
///
/// ```
/// use cuprum::{linalg, Complex, Device};
/// let a = cuprum::from_vec(vec![0.0, -1.0, 1.0, 0.0], &Device::Cpu)?.reshape([2, 2])?;
/// let mut w = linalg::eigvals(&a)?.to_vec::<Complex<f64>>()?;
/// w.sort_by(|x, y| x.im.total_cmp(&y.im));
/// assert!((w[0] - Complex::new(0.0, -1.0)).norm() < 1e-12 && (w[1] - Complex::new(0.0, 1.0)).norm() < 1e-12);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn eig(a: &Array) -> Result<EigResult> {
    let (w, v) = eig_impl(a, true)?;
    Ok(EigResult { eigenvalues: w, eigenvectors: v.expect("eigenvectors were computed") })
}

/// `numpy.linalg.eigvals`: the eigenvalues of [`eig`] alone.
pub fn eigvals(a: &Array) -> Result<Array> {
    Ok(eig_impl(a, false)?.0)
}

/// What [`svd`] returns (NumPy's `SVDResult`): `a = u @ (s[..., None] * vh)`.
#[derive(Debug)]
pub struct SvdResult {
    pub u: Array,
    /// The singular values, descending, real.
    pub s: Array,
    pub vh: Array,
}

/// Sorts a stack of values `s` (last axis) descending by `|s|` as NumPy's hermitian SVD does,
/// returning the permutation (`argsort(|s|)[..., ::-1]`).
fn descending_abs(s: &Array) -> Result<Array> {
    crate::argsort(&s.abs()?, -1)?.flip(-1)
}

fn svd_impl(a: &Array, full_matrices: bool, vectors: bool) -> Result<(Option<Array>, Array, Option<Array>)> {
    assert_stacked_2d(a)?;
    let a = as_dtype(a, common_type(&[a.dtype()])?)?;
    let (m, n) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
    let k = m.min(n);
    let (dev, dt) = (a.device(), a.dtype());
    let (ucols, vrows) = if full_matrices { (m, n) } else { (k, k) };
    let s = Array::alloc(&batch_with(&a, &[k]), dt.real_dtype(), dev, false)?;
    let (u, vh) = if vectors {
        (
            Some(Array::alloc(&batch_with(&a, &[m, ucols]), dt, dev, true)?),
            Some(Array::alloc(&batch_with(&a, &[vrows, n]), dt, dev, true)?),
        )
    } else {
        (None, None)
    };
    if a.size() > 0 {
        match dev {
            Device::Cpu => cpu::svd(&a, full_matrices, u.as_ref(), &s, vh.as_ref())?,
            Device::Cuda(_) => cuda::svd(&a, full_matrices, u.as_ref(), &s, vh.as_ref())?,
        }
    } else {
        // An empty matrix: with `full_matrices`, the non-empty factor is the identity.
        for (x, d) in [(&u, m), (&vh, n)] {
            if let Some(x) = x {
                if x.size() > 0 {
                    let eye = crate::eye(d, dt, &dev)?;
                    x.view().assign(&eye.broadcast_to(x.shape())?)?;
                }
            }
        }
    }
    Ok((u, s, vh))
}

/// `numpy.linalg.svd(a)` (`full_matrices=True`, `hermitian=False`; [`svd_with`] takes them):
/// `a = u @ diag(s) @ vh`,
/// singular values descending. Singular vectors are defined up to sign (a phase for complex
/// input), and only as a subspace where singular values repeat: compare `u @ diag(s) @ vh` or
/// `|u|`, not the vectors. With `hermitian`, `a` is taken as Hermitian and the result comes
/// from [`eigh`] as NumPy computes it. `LinAlgError("SVD did not converge")` for NaN input.
///
/// ```
/// use cuprum::{linalg, Device};
/// let a = cuprum::from_vec(vec![3.0, 0.0, 0.0, -4.0], &Device::default_device())?.reshape([2, 2])?;
/// let r = linalg::svd(&a)?;
/// assert_eq!(r.s.to_vec::<f64>()?, vec![4.0, 3.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn svd(a: &Array) -> Result<SvdResult> {
    svd_with(a, &SvdOptions::default())
}

/// [`svd_with`]'s and [`singular_values_with`]'s keywords; `Default` is NumPy's
/// (`full_matrices=True`, `hermitian=False`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SvdOptions {
    /// `u` and `vh` square (`(M, M)`, `(N, N)`); `false`: `(M, K)` and `(K, N)`, `K = min(M,
    /// N)`. No effect on the singular values alone.
    pub full_matrices: bool,
    /// `a` is taken as Hermitian: the decomposition comes from [`eigh`], as NumPy's.
    pub hermitian: bool,
}

impl Default for SvdOptions {
    fn default() -> Self {
        SvdOptions { full_matrices: true, hermitian: false }
    }
}

/// `numpy.linalg.svd(a, full_matrices, compute_uv=True, hermitian)`: as [`svd`].
///
/// ```
/// use cuprum::{linalg, Device};
/// let a = cuprum::zeros(&[4, 2], cuprum::DType::Float64, &Device::default_device())?;
/// let r = linalg::svd_with(&a, &linalg::SvdOptions { full_matrices: false, ..Default::default() })?;
/// assert_eq!((r.u.shape(), r.vh.shape()), (&[4usize, 2][..], &[2usize, 2][..]));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn svd_with(a: &Array, opts: &SvdOptions) -> Result<SvdResult> {
    let SvdOptions { full_matrices, hermitian } = *opts;
    if hermitian {
        let r = eigh(a)?;
        let (w, v) = (r.eigenvalues, r.eigenvectors);
        let sgn = crate::sign(&w)?;
        let idx = descending_abs(&w)?;
        let sgn = crate::take_along_axis(&sgn, &idx, -1)?;
        let s = crate::take_along_axis(&w.abs()?, &idx, -1)?;
        let vidx = idx.expand_dims(-2)?.broadcast_to(v.shape())?;
        let u = crate::take_along_axis(&v, &vidx, -1)?;
        let vh = crate::multiply(&u, &sgn.expand_dims(-2)?)?.swapaxes(-1, -2)?;
        let vh = if vh.dtype().is_complex() { vh.conj()? } else { vh.copy()? };
        return Ok(SvdResult { u, s, vh });
    }
    let (u, s, vh) = svd_impl(a, full_matrices, true)?;
    Ok(SvdResult { u: u.expect("u was computed"), s, vh: vh.expect("vh was computed") })
}

/// `numpy.linalg.svd(a, compute_uv=False)`: the singular values alone (no singular vectors
/// are computed), descending.
pub fn singular_values(a: &Array) -> Result<Array> {
    singular_values_with(a, &SvdOptions::default())
}

/// `numpy.linalg.svd(a, compute_uv=False, hermitian)`: as [`singular_values`].
pub fn singular_values_with(a: &Array, opts: &SvdOptions) -> Result<Array> {
    if opts.hermitian {
        let w = eigvalsh(a)?.abs()?;
        return crate::sort(&w, -1)?.flip(-1)?.copy();
    }
    Ok(svd_impl(a, false, false)?.1)
}

/// `numpy.linalg.svdvals`: [`singular_values`] of `a` (not hermitian).
pub fn svdvals(a: &Array) -> Result<Array> {
    singular_values(a)
}

/// Machine epsilon of a real or complex dtype's real part.
pub(crate) fn eps(dt: DType) -> f64 {
    match dt.real_dtype() {
        DType::Float32 => f32::EPSILON as f64,
        DType::Float16 => 0.0009765625,
        _ => f64::EPSILON,
    }
}

/// What [`lstsq`] returns (NumPy's tuple).
#[derive(Debug)]
pub struct LstsqResult {
    /// The least-squares solution, `(N,)` or `(N, K)`.
    pub x: Array,
    /// The squared residual norms per column, `(K,)` (`(1,)` for a 1-d `b`), when `a` has full
    /// column rank and more rows than columns; otherwise empty.
    pub residuals: Array,
    /// The effective rank of `a`.
    pub rank: usize,
    /// The singular values of `a`, descending.
    pub s: Array,
}

/// `numpy.linalg.lstsq(a, b)`: the minimum-norm `x` minimising `‖b - a x‖₂`, from the
/// SVD of `a` (LAPACK `?gelsd`'s solution): singular values `<= rcond * s_max` count as zero,
/// NumPy's default `rcond = eps * max(M, N)` ([`lstsq_with`] takes another). `a` is 2-d, `b`
/// 1-d or 2-d.
///
/// ```
/// use cuprum::{linalg, Device};
/// let dev = Device::default_device();
/// let a = cuprum::from_vec(vec![0.0, 1.0, 1.0, 1.0, 2.0, 1.0, 3.0, 1.0], &dev)?.reshape([4, 2])?;
/// let y = cuprum::from_vec(vec![-1.0, 0.2, 0.9, 2.1], &dev)?;
/// let r = linalg::lstsq(&a, &y)?;
/// let x = r.x.to_vec::<f64>()?;
/// assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] + 0.95).abs() < 1e-12);
/// assert_eq!(r.rank, 2);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn lstsq(a: &Array, b: &Array) -> Result<LstsqResult> {
    lstsq_with(a, b, &LstsqOptions::default())
}

/// [`lstsq_with`]'s keyword.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LstsqOptions {
    /// Singular values `<= rcond * s_max` count as zero; `None`: `eps * max(M, N)`.
    pub rcond: Option<f64>,
}

/// `numpy.linalg.lstsq(a, b, rcond)`: as [`lstsq`].
pub fn lstsq_with(a: &Array, b: &Array, opts: &LstsqOptions) -> Result<LstsqResult> {
    let rcond = opts.rcond;
    same_device("lstsq", a, b)?;
    let two_d = |nd: usize| Error::LinAlg(format!("{nd}-dimensional array given. Array must be two-dimensional"));
    if a.ndim() != 2 {
        return Err(two_d(a.ndim()));
    }
    if b.ndim() != 1 && b.ndim() != 2 {
        return Err(two_d(b.ndim()));
    }
    let (m, n) = (a.shape()[0], a.shape()[1]);
    if b.shape()[0] != m {
        return Err(Error::LinAlg("Incompatible dimensions".into()));
    }
    let dt = common_type(&[a.dtype(), b.dtype()])?;
    let (a, b) = (as_dtype(a, dt)?, as_dtype(b, dt)?);
    let vector = b.ndim() == 1;
    let b2 = if vector { b.reshape([m, 1])? } else { b.view() };
    let kr = b2.shape()[1];
    let rcond = rcond.unwrap_or(eps(dt) * m.max(n) as f64);
    let dev = a.device();
    let (x, rank, s) = if m == 0 || n == 0 {
        (crate::zeros(&[n, kr], dt, &dev)?, 0, crate::zeros(&[0], dt.real_dtype(), &dev)?)
    } else {
        let lstsq_err = |e: Error| match e {
            Error::LinAlg(_) => Error::LinAlg("SVD did not converge in Linear Least Squares".into()),
            e => e,
        };
        let r = svd_with(&a, &SvdOptions { full_matrices: false, ..Default::default() }).map_err(lstsq_err)?;
        let sv = r.s.to_vec_as::<f64>()?;
        let rank = if sv.iter().any(|x| x.is_nan()) {
            return Err(Error::LinAlg("SVD did not converge in Linear Least Squares".into()));
        } else {
            let cut = if rcond < 0.0 { eps(dt) } else { rcond } * sv[0];
            sv.iter().filter(|&&x| x > cut).count()
        };
        let x = if rank == 0 {
            crate::zeros(&[n, kr], dt, &dev)?
        } else {
            let ur = r.u.slice(crate::s![.., ..rank as isize])?;
            let vhr = r.vh.slice(crate::s![..rank as isize, ..])?;
            let sr = r.s.slice(crate::s![..rank as isize])?.reshape([rank, 1])?;
            let uh = if dt.is_complex() { ur.conj()? } else { ur };
            let y = crate::divide(&matmul_t(&uh, &b2)?, &sr)?;
            let vr = if dt.is_complex() { vhr.conj()? } else { vhr };
            matmul_t(&vr, &y)?
        };
        (x, rank, r.s)
    };
    let residuals = if rank == n && m > n {
        let res = crate::subtract(&b2, &super::matmul(&a, &x)?)?;
        let res = if dt.is_complex() { res.abs()? } else { res };
        crate::multiply(&res, &res)?.sum(0)?
    } else {
        crate::zeros(&[0], dt.real_dtype(), &dev)?
    };
    let x = if vector { x.reshape([n])? } else { x };
    Ok(LstsqResult { x, residuals, rank, s })
}

/// `a.T @ b` (the transpose as a view).
fn matmul_t(a: &Array, b: &Array) -> Result<Array> {
    super::matmul(&a.swapaxes(-1, -2)?, b)
}

/// `numpy.linalg.pinv(a)`: the Moore–Penrose pseudo-inverse from the SVD, singular values
/// `<= 1e-15 * max(s)` (NumPy's `rcond`) set to zero; stacks too. [`pinv_with`] takes
/// `rcond` and `hermitian` (then the SVD comes from [`eigh`]).
///
/// ```
/// use cuprum::{linalg, Device};
/// let a = cuprum::from_vec(vec![1.0, 2.0, 2.0, 4.0], &Device::default_device())?.reshape([2, 2])?;
/// let p = linalg::pinv(&a)?.to_vec::<f64>()?;
/// assert!(p.iter().zip([0.04, 0.08, 0.08, 0.16]).all(|(x, y)| (x - y).abs() < 1e-12));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn pinv(a: &Array) -> Result<Array> {
    pinv_with(a, &PinvOptions::default())
}

/// [`pinv_with`]'s keywords; `Default` is NumPy's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PinvOptions {
    /// Singular values `<= rcond * max(s)` are set to zero; `None`: `1e-15`.
    pub rcond: Option<f64>,
    /// `a` is taken as Hermitian (the SVD from [`eigh`]).
    pub hermitian: bool,
}

/// `numpy.linalg.pinv(a, rcond, hermitian)`: as [`pinv`].
pub fn pinv_with(a: &Array, opts: &PinvOptions) -> Result<Array> {
    let PinvOptions { rcond, hermitian } = *opts;
    assert_stacked_2d(a)?;
    let dt = common_type(&[a.dtype()])?;
    let a = as_dtype(a, dt)?;
    let (m, n) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
    if m == 0 || n == 0 {
        return Array::alloc(&batch_with(&a, &[n, m]), dt, a.device(), true);
    }
    let rcond = rcond.unwrap_or(1e-15);
    let ac = if dt.is_complex() { a.conj()? } else { a };
    let r = svd_with(&ac, &SvdOptions { full_matrices: false, hermitian })?;
    let cutoff = crate::multiply(&r.s.max_keepdims(-1)?, rcond)?;
    let large = crate::greater(&r.s, &cutoff)?;
    let sinv = crate::where_(&large, &crate::divide(1.0, &r.s)?, 0.0)?;
    let us = crate::multiply(&sinv.expand_dims(-1)?, &r.u.swapaxes(-1, -2)?)?;
    super::matmul(&r.vh.swapaxes(-1, -2)?, &us)
}

/// `numpy.linalg.matrix_rank(A)`: the number of singular values `> S.max() * max(M, N) * eps`
/// (NumPy's default `tol`; [`matrix_rank_with`] takes another, and `hermitian`); for a 1-d or
/// 0-d `A`, 1 unless all its elements are zero. One count (int64) per matrix of a stack.
///
/// ```
/// use cuprum::{linalg, Device};
/// let a = cuprum::from_vec(vec![1.0, 2.0, 2.0, 4.0], &Device::default_device())?.reshape([2, 2])?;
/// assert_eq!(linalg::matrix_rank(&a)?.item::<i64>()?, 1);
/// let tol = linalg::MatrixRankOptions { tol: Some(10.0), ..Default::default() };
/// assert_eq!(linalg::matrix_rank_with(&a, &tol)?.item::<i64>()?, 0); // s = (5, 0)
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn matrix_rank(a: &Array) -> Result<Array> {
    matrix_rank_with(a, &MatrixRankOptions::default())
}

/// [`matrix_rank_with`]'s keywords; `Default` is NumPy's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MatrixRankOptions {
    /// Singular values `> tol` count; `None`: `S.max() * max(M, N) * eps`.
    pub tol: Option<f64>,
    /// `A` is taken as Hermitian (its singular values from [`eigvalsh`]).
    pub hermitian: bool,
}

/// `numpy.linalg.matrix_rank(A, tol, hermitian)`: as [`matrix_rank`].
pub fn matrix_rank_with(a: &Array, opts: &MatrixRankOptions) -> Result<Array> {
    let MatrixRankOptions { tol, hermitian } = *opts;
    if a.ndim() < 2 {
        let nz = crate::any(&crate::not_equal(a, 0.0)?, None)?;
        return nz.astype(DType::Int64);
    }
    let s = singular_values_with(a, &SvdOptions { hermitian, ..Default::default() })?;
    let tol = match tol {
        Some(t) => crate::full(&[1], t, s.dtype(), &s.device())?,
        None => {
            let (m, n) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
            crate::multiply(&s.max_keepdims(-1)?, m.max(n) as f64 * eps(s.dtype()))?
        }
    };
    crate::count_nonzero(&crate::greater(&s, &tol)?, -1)
}
