//! The CPU numerical core of `numpy.linalg`, on faer 0.23 (`mod.rs` maps arrays onto it).
//!
//! Every function takes faer views with whatever strides the caller has (a cuprum array maps onto a
//! [`MatRef`] without a copy: transposed, negatively strided or with padded rows are all fine), and a
//! [`Par`]: `Par::rayon(0)` for one big matrix, `Par::Seq` when the caller already runs a batch of
//! small matrices in parallel. Results are owned ([`Mat`], [`Vec`]) in column-major order.
//!
//! The element types are `f32`, `f64`, `Complex<f32>` and `Complex<f64>` (faer's `c32`/`c64` are these
//! `num_complex` types), all through the [`Scalar`] trait.
//!
//! What NumPy does that these functions mirror (NumPy 2.4.6 with its OpenBLAS, checked by hand):
//! - Errors only where LAPACK reports one: `Singular matrix` only for an exactly zero pivot of the
//!   partial-pivoting LU (whatever else the factorisation gives, inf and NaN included, is returned),
//!   `Matrix is not positive definite` only for a pivot `<= 0` (a NaN pivot is not an error: the
//!   factor is NaN from there on).
//! - Non-finite input: `eig`/`eigvals` refuse any inf or NaN (`Array must not contain infs or NaNs`);
//!   `svd` refuses a NaN (`SVD did not converge`) but returns NaN for an inf without NaN; `lstsq`
//!   refuses any inf or NaN in `a` (`SVD did not converge in Linear Least Squares`) but not in `b`;
//!   `eigh` refuses an inf or NaN in the triangle it reads (`Eigenvalues did not converge`).
//! - `det` is `sign * exp(logabsdet)` of `slogdet`, as NumPy computes it, not a product of pivots.
//! - `inv` solves `a x = I`, as NumPy's `inv` does (LAPACK `gesv`), rather than inverting the factors.
//! - QR has LAPACK's Householder convention (`?geqrf`/`?orgqr`): see [`qr`].
//! - NumPy computes float32 and complex64 linear algebra in double precision and rounds the result
//!   (`_commonType`); these functions compute in the element type. A caller that wants NumPy's float32
//!   results to the last bit converts to f64 first.

use core::fmt;
use core::ops::{Add, Div, Mul, Neg, Sub};

use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt::factor as llt;
use faer::linalg::evd::{self, ComputeEigenvectors};
use faer::linalg::lu::partial_pivoting::{factor as plu, solve as plu_solve};
use faer::linalg::qr::no_pivoting::factor as qr_factor;
use faer::linalg::svd::{self as faer_svd, ComputeSvdVectors};
use faer::linalg::{householder, matmul as faer_matmul, triangular_solve};
use faer::perm::PermRef;
use faer::reborrow::{Reborrow, ReborrowMut};
use faer::traits::num_traits::{Float, One, Zero};
use faer::traits::{ComplexField, Conjugate, RealField};
use faer::{Accum, Conj, Mat, MatMut, MatRef, Par};
use num_complex::Complex;

// ---------------------------------------------------------------------------------------------
// Errors

/// The `numpy.linalg.LinAlgError`s these functions raise, with NumPy's messages ([`LinalgErr::message`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LinalgErr {
    /// `Singular matrix`: LU met an exactly zero pivot (`inv`, `solve`).
    Singular,
    /// `Matrix is not positive definite`: Cholesky met a pivot `<= 0`.
    NotPositiveDefinite,
    /// An iteration did not converge; the text is NumPy's (`SVD did not converge`,
    /// `Eigenvalues did not converge`, `SVD did not converge in Linear Least Squares`).
    NoConvergence(&'static str),
    /// `Array must not contain infs or NaNs` (`eig`, `eigvals`).
    NonFinite,
}

pub(crate) const SVD_NO_CONVERGENCE: &str = "SVD did not converge";
pub(crate) const EIG_NO_CONVERGENCE: &str = "Eigenvalues did not converge";

impl LinalgErr {
    /// NumPy's message for this error.
    pub(crate) fn message(&self) -> &'static str {
        match self {
            LinalgErr::Singular => "Singular matrix",
            LinalgErr::NotPositiveDefinite => "Matrix is not positive definite",
            LinalgErr::NoConvergence(msg) => msg,
            LinalgErr::NonFinite => "Array must not contain infs or NaNs",
        }
    }
}

impl fmt::Display for LinalgErr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for LinalgErr {}

// ---------------------------------------------------------------------------------------------
// Element types

/// The real element types, `f32` and `f64`: the `Real` of every [`Scalar`].
pub(crate) trait RealScalar: RealField + Float + Copy + Send + Sync + 'static {
    /// `x` rounded to this type.
    fn of_f64(x: f64) -> Self;
    /// `self` as an `f64`.
    fn as_f64(self) -> f64;
}

/// The element types of `numpy.linalg`: `f32`, `f64`, `Complex<f32>`, `Complex<f64>`.
pub(crate) trait Scalar:
    ComplexField<Real: RealScalar>
    + Copy
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// Whether the type is complex.
    const IS_COMPLEX: bool;
    /// `re + i im` (a real type drops `im`).
    fn from_parts(re: Self::Real, im: Self::Real) -> Self;
    /// The real part.
    fn re(self) -> Self::Real;
    /// The imaginary part (zero for a real type).
    fn im(self) -> Self::Real;
    /// The complex conjugate.
    fn cj(self) -> Self;
    /// `|x|`, as `hypot(re, im)`.
    fn modulus(self) -> Self::Real {
        Float::hypot(self.re(), self.im())
    }
    /// Each part multiplied by the real `r` (no complex product, so `0 * inf` stays in its part).
    fn scale(self, r: Self::Real) -> Self {
        Self::from_parts(self.re() * r, self.im() * r)
    }
    /// Whether both parts are finite.
    fn finite(self) -> bool {
        Float::is_finite(self.re()) && Float::is_finite(self.im())
    }
    /// Whether either part is NaN.
    fn nan(self) -> bool {
        Float::is_nan(self.re()) || Float::is_nan(self.im())
    }
    /// Eigenvalues (and right eigenvectors, unnormalised) of a square matrix with finite entries,
    /// as complex numbers: faer's real Schur path for a real type, the complex one otherwise.
    #[doc(hidden)]
    fn eig_raw(a: MatRef<'_, Self>, vectors: bool, par: Par) -> Result<EigRaw<Self::Real>, LinalgErr>;
}

/// The real part of a [`Scalar`].
pub(crate) type Re<T> = <T as ComplexField>::Real;

/// Eigenvalues and, when computed, eigenvectors of a Hermitian matrix.
type EighRaw<T> = (Vec<Re<T>>, Option<Mat<T>>);

/// Complex eigenvalues and eigenvectors of a general matrix.
pub(crate) type EigPair<T> = (Vec<Complex<Re<T>>>, Mat<Complex<Re<T>>>);

/// What [`Scalar::eig_raw`] returns: eigenvalues, eigenvectors when asked for, and whether the
/// input was real (then the vectors of each conjugate pair are conjugates).
#[doc(hidden)]
pub(crate) struct EigRaw<R> {
    w: Vec<Complex<R>>,
    v: Option<Mat<Complex<R>>>,
}

macro_rules! impl_real {
    ($t:ty) => {
        impl RealScalar for $t {
            fn of_f64(x: f64) -> Self {
                x as $t
            }
            fn as_f64(self) -> f64 {
                self as f64
            }
        }
        impl Scalar for $t {
            const IS_COMPLEX: bool = false;
            fn from_parts(re: $t, _im: $t) -> Self {
                re
            }
            fn re(self) -> $t {
                self
            }
            fn im(self) -> $t {
                0.0
            }
            fn cj(self) -> Self {
                self
            }
            fn modulus(self) -> $t {
                self.abs()
            }
            fn eig_raw(a: MatRef<'_, $t>, vectors: bool, par: Par) -> Result<EigRaw<$t>, LinalgErr> {
                let n = a.nrows();
                let mut s_re = Diag::<$t>::zeros(n);
                let mut s_im = Diag::<$t>::zeros(n);
                let mut u = if vectors { Some(Mat::<$t>::zeros(n, n)) } else { None };
                let want = if vectors { ComputeEigenvectors::Yes } else { ComputeEigenvectors::No };
                let mut mem =
                    MemBuffer::new(evd::evd_scratch::<$t>(n, ComputeEigenvectors::No, want, par, Default::default()));
                evd::evd_real(
                    a,
                    s_re.as_mut(),
                    s_im.as_mut(),
                    None,
                    u.as_mut().map(|u| u.as_mut()),
                    par,
                    MemStack::new(&mut mem),
                    Default::default(),
                )
                .map_err(|_| LinalgErr::NoConvergence(EIG_NO_CONVERGENCE))?;
                let (s_re, s_im) = (s_re.column_vector(), s_im.column_vector());
                let mut w = Vec::with_capacity(n);
                let mut v = if vectors { Some(Mat::<Complex<$t>>::zeros(n, n)) } else { None };
                let mut j = 0;
                while j < n {
                    if s_im[j] == 0.0 || j + 1 == n {
                        w.push(Complex::new(s_re[j], 0.0));
                        if let (Some(v), Some(u)) = (v.as_mut(), u.as_ref()) {
                            for i in 0..n {
                                v[(i, j)] = Complex::new(u[(i, j)], 0.0);
                            }
                        }
                        j += 1;
                    } else {
                        // A 2x2 block: columns j and j+1 of `u` are the real and imaginary parts of the
                        // eigenvector of `s_re[j] + i s_im[j]`. LAPACK lists the eigenvalue with the
                        // positive imaginary part first; the other one's vector is the conjugate.
                        let flip: $t = if s_im[j] < 0.0 { -1.0 } else { 1.0 };
                        let im = s_im[j] * flip;
                        w.push(Complex::new(s_re[j], im));
                        w.push(Complex::new(s_re[j], -im));
                        if let (Some(v), Some(u)) = (v.as_mut(), u.as_ref()) {
                            for i in 0..n {
                                let z = Complex::new(u[(i, j)], u[(i, j + 1)] * flip);
                                v[(i, j)] = z;
                                v[(i, j + 1)] = z.conj();
                            }
                        }
                        j += 2;
                    }
                }
                Ok(EigRaw { w, v })
            }
        }
    };
}

macro_rules! impl_complex {
    ($r:ty) => {
        impl Scalar for Complex<$r> {
            const IS_COMPLEX: bool = true;
            fn from_parts(re: $r, im: $r) -> Self {
                Complex::new(re, im)
            }
            fn re(self) -> $r {
                self.re
            }
            fn im(self) -> $r {
                self.im
            }
            fn cj(self) -> Self {
                self.conj()
            }
            fn eig_raw(a: MatRef<'_, Self>, vectors: bool, par: Par) -> Result<EigRaw<$r>, LinalgErr> {
                let n = a.nrows();
                let mut s = Diag::<Self>::zeros(n);
                let mut u = if vectors { Some(Mat::<Self>::zeros(n, n)) } else { None };
                let want = if vectors { ComputeEigenvectors::Yes } else { ComputeEigenvectors::No };
                let mut mem =
                    MemBuffer::new(evd::evd_scratch::<Self>(n, ComputeEigenvectors::No, want, par, Default::default()));
                evd::evd_cplx(
                    a,
                    s.as_mut(),
                    None,
                    u.as_mut().map(|u| u.as_mut()),
                    par,
                    MemStack::new(&mut mem),
                    Default::default(),
                )
                .map_err(|_| LinalgErr::NoConvergence(EIG_NO_CONVERGENCE))?;
                let w = (0..n).map(|i| s.column_vector()[i]).collect();
                Ok(EigRaw { w, v: u })
            }
        }
    };
}

impl_real!(f32);
impl_real!(f64);
impl_complex!(f32);
impl_complex!(f64);

// ---------------------------------------------------------------------------------------------
// Small helpers

fn zero<T: Scalar>() -> T {
    T::from_parts(Re::<T>::zero(), Re::<T>::zero())
}

fn one<T: Scalar>() -> T {
    T::from_parts(Re::<T>::one(), Re::<T>::zero())
}

/// NaN (both parts NaN for a complex type).
fn nan<T: Scalar>() -> T {
    T::from_parts(Re::<T>::nan(), Re::<T>::nan())
}

fn eps<R: RealScalar>() -> R {
    <R as Float>::epsilon()
}

fn all_finite<T: Scalar>(a: MatRef<'_, T>) -> bool {
    (0..a.ncols()).all(|j| (0..a.nrows()).all(|i| a[(i, j)].finite()))
}

fn any_nan<T: Scalar>(a: MatRef<'_, T>) -> bool {
    (0..a.ncols()).any(|j| (0..a.nrows()).any(|i| a[(i, j)].nan()))
}

fn stack(req: StackReq) -> MemBuffer {
    MemBuffer::new(req)
}

// ---------------------------------------------------------------------------------------------
// Products

/// `c = a · b` (`numpy.matmul` of two matrices, BLAS `gemm`); `c` is overwritten, never read.
///
/// Either operand may be a conjugated view (`x.conjugate()`, `x.adjoint()`), so that `vdot` and
/// `a^H · b` need no copy: faer folds the conjugation into the kernel.
pub(crate) fn matmul<T, L, R>(c: MatMut<'_, T>, a: MatRef<'_, L>, b: MatRef<'_, R>, par: Par)
where
    T: Scalar,
    L: Conjugate<Canonical = T>,
    R: Conjugate<Canonical = T>,
{
    faer_matmul::matmul(c, Accum::Replace, a, b, one::<T>(), par);
}

/// `a · b` into a new matrix (`numpy.matmul` of two matrices).
pub(crate) fn matmul_new<T, L, R>(a: MatRef<'_, L>, b: MatRef<'_, R>, par: Par) -> Mat<T>
where
    T: Scalar,
    L: Conjugate<Canonical = T>,
    R: Conjugate<Canonical = T>,
{
    let mut c = Mat::<T>::zeros(a.nrows(), b.ncols());
    matmul(c.as_mut(), a, b, par);
    c
}

// ---------------------------------------------------------------------------------------------
// LU: det, slogdet, inv, solve

/// Matrices up to this order are factored by [`getf2`] (and solved by plain substitution), larger ones by
/// faer's recursive blocked LU.
const SMALL_LU: usize = 16;

/// A partial-pivoting LU, `P a = L U`, in LAPACK `getrf`'s pivoting order (largest `|re| + |im|`, the
/// first of equals); `perm[i]` is the row of `a` that ends up in row `i`.
struct Lu<T> {
    lu: Mat<T>,
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    transpositions: usize,
}

/// OpenBLAS's unblocked `getf2`, which it uses for the whole matrix up to order 9 on this machine's
/// (SkylakeX) kernels and for the panels beyond: left-looking, each column is brought up to date with
/// one dot product per entry (the sum of all earlier columns' contributions, subtracted once), then
/// pivoted and scaled by the pivot's reciprocal; a zero pivot is skipped (no scaling, no NaN).
///
/// The summation order decides whether a matrix that is singular in exact arithmetic meets an exactly
/// zero pivot (NumPy's `Singular matrix`): faer's right-looking rank-1 updates round differently, and
/// `inv` of `[[1, 2, 3], [4, 5, 6], [7, 8, 9]]` would give huge numbers instead of NumPy's error.
/// Returns the row interchanges (`ipiv`, 0-based) and their count.
fn getf2<T: Scalar>(a: &mut Mat<T>) -> (Vec<usize>, usize) {
    let n = a.nrows();
    let mut ipiv = vec![0usize; n];
    let mut swaps = 0;
    let sfmin = <Re<T> as Float>::min_positive_value();
    for j in 0..n {
        // The earlier interchanges, on column j.
        for i in 0..j {
            let ip = ipiv[i];
            if ip != i {
                let t = a[(i, j)];
                a[(i, j)] = a[(ip, j)];
                a[(ip, j)] = t;
            }
        }
        // U's part of column j (a unit lower triangular solve) and the rest (a matrix-vector product),
        // both as one dot product per entry.
        for i in 1..n {
            let k = i.min(j);
            let mut acc = zero::<T>();
            for p in 0..k {
                acc = acc + a[(i, p)] * a[(p, j)];
            }
            if k > 0 {
                a[(i, j)] = a[(i, j)] - acc;
            }
        }
        // The pivot: the first largest |re| + |im| at or below the diagonal.
        let mut jp = j;
        let mut best = a[(j, j)].re().abs() + a[(j, j)].im().abs();
        for i in j + 1..n {
            let v = a[(i, j)].re().abs() + a[(i, j)].im().abs();
            if v > best {
                best = v;
                jp = i;
            }
        }
        ipiv[j] = jp;
        let piv = a[(jp, j)];
        if piv != zero::<T>() {
            if jp != j {
                swaps += 1;
                for c in 0..=j {
                    let t = a[(j, c)];
                    a[(j, c)] = a[(jp, c)];
                    a[(jp, c)] = t;
                }
            }
            if piv.modulus() >= sfmin {
                let r = recip(piv);
                for i in j + 1..n {
                    a[(i, j)] = a[(i, j)] * r;
                }
            } else {
                for i in j + 1..n {
                    a[(i, j)] = a[(i, j)] / piv;
                }
            }
        }
    }
    (ipiv, swaps)
}

/// `1 / x` as OpenBLAS's `zgetf2` forms it for a complex pivot (Smith's formula), `1 / x` for a real one.
fn recip<T: Scalar>(x: T) -> T {
    let one_r = Re::<T>::one();
    if !T::IS_COMPLEX {
        return T::from_parts(one_r / x.re(), Re::<T>::zero());
    }
    let (re, im) = (x.re(), x.im());
    if re.abs() >= im.abs() {
        let ratio = im / re;
        let den = one_r / (re * (one_r + ratio * ratio));
        T::from_parts(den, -ratio * den)
    } else {
        let ratio = re / im;
        let den = one_r / (im * (one_r + ratio * ratio));
        T::from_parts(ratio * den, -den)
    }
}

impl<T: Scalar> Lu<T> {
    fn new(a: MatRef<'_, T>, par: Par) -> Self {
        let n = a.nrows();
        assert_eq!(n, a.ncols(), "LU of a non-square matrix");
        let mut lu = a.to_owned();
        if n <= SMALL_LU {
            let (ipiv, transpositions) = getf2(&mut lu);
            let mut perm: Vec<usize> = (0..n).collect();
            for (i, &ip) in ipiv.iter().enumerate() {
                perm.swap(i, ip);
            }
            let mut perm_inv = vec![0usize; n];
            for (i, &p) in perm.iter().enumerate() {
                perm_inv[p] = i;
            }
            return Lu { lu, perm, perm_inv, transpositions };
        }
        let mut perm = vec![0usize; n];
        let mut perm_inv = vec![0usize; n];
        let mut mem = stack(plu::lu_in_place_scratch::<usize, T>(n, n, par, Default::default()));
        let (info, _) =
            plu::lu_in_place(lu.as_mut(), &mut perm, &mut perm_inv, par, MemStack::new(&mut mem), Default::default());
        Lu { lu, perm, perm_inv, transpositions: info.transposition_count }
    }

    /// Whether a pivot is exactly zero: where LAPACK's `getrf` returns `info > 0`.
    fn singular(&self) -> bool {
        (0..self.lu.nrows()).any(|i| self.lu[(i, i)] == zero::<T>())
    }

    fn perm(&self) -> PermRef<'_, usize> {
        PermRef::new_checked(&self.perm, &self.perm_inv, self.perm.len())
    }

    /// NumPy's `slogdet` from the factors (`umath_linalg`'s `slogdet_single_element`): the sign
    /// is the permutation's parity times the product of `u_ii / |u_ii|`, the log the sum of
    /// `log |u_ii|`; an exactly zero pivot gives `(0, -inf)`.
    fn slogdet(&self) -> (T, Re<T>) {
        if self.singular() {
            return (zero(), Re::<T>::neg_infinity());
        }
        let mut sign: T = if self.transpositions % 2 == 1 { -one::<T>() } else { one() };
        let mut logdet = Re::<T>::zero();
        for i in 0..self.lu.nrows() {
            let u = self.lu[(i, i)];
            if T::IS_COMPLEX {
                let abs = u.modulus();
                sign = sign * T::from_parts(u.re() / abs, u.im() / abs);
                logdet = logdet + Float::ln(abs);
            } else {
                let mut abs = u.re();
                if abs < Re::<T>::zero() {
                    sign = -sign;
                    abs = -abs;
                }
                logdet = logdet + Float::ln(abs);
            }
        }
        (sign, logdet)
    }

    /// `x` overwritten with `a⁻¹ x`.
    fn solve_in_place(&self, x: MatMut<'_, T>, par: Par) {
        let n = self.lu.nrows();
        if n <= SMALL_LU {
            // Plain substitution (OpenBLAS's trsm also multiplies by the diagonal's reciprocals).
            let lu = &self.lu;
            let rdiag: Vec<T> = (0..n).map(|i| recip(lu[(i, i)])).collect();
            let mut x = x;
            let mut col = vec![zero::<T>(); n];
            for j in 0..x.ncols() {
                for i in 0..n {
                    col[i] = x[(self.perm[i], j)];
                }
                for i in 1..n {
                    let mut acc = zero::<T>();
                    for p in 0..i {
                        acc = acc + lu[(i, p)] * col[p];
                    }
                    col[i] = col[i] - acc;
                }
                for i in (0..n).rev() {
                    let mut acc = zero::<T>();
                    for p in i + 1..n {
                        acc = acc + lu[(i, p)] * col[p];
                    }
                    col[i] = (col[i] - acc) * rdiag[i];
                }
                for i in 0..n {
                    x[(i, j)] = col[i];
                }
            }
            return;
        }
        let mut mem = stack(plu_solve::solve_in_place_scratch::<usize, T>(n, x.ncols(), par));
        let lu = self.lu.as_ref();
        plu_solve::solve_in_place_with_conj(lu, lu, self.perm(), Conj::No, x, par, MemStack::new(&mut mem));
    }
}

/// `numpy.linalg.slogdet`: `(sign, log|det|)`; the sign is `±1` (a unit complex number for complex
/// input), `(0, -inf)` when a pivot of the LU is exactly zero; a NaN pivot gives a NaN log.
/// The 0×0 matrix gives `(1, 0)`.
pub(crate) fn slogdet<T: Scalar>(a: MatRef<'_, T>, par: Par) -> (T, Re<T>) {
    Lu::new(a, par).slogdet()
}

/// `numpy.linalg.solve` for an `n×k` right-hand side: `LinalgErr::Singular` when the LU has an
/// exactly zero pivot, otherwise whatever the factorisation gives (inf and NaN included).
pub(crate) fn solve<T: Scalar>(a: MatRef<'_, T>, b: MatRef<'_, T>, par: Par) -> Result<Mat<T>, LinalgErr> {
    assert_eq!(a.nrows(), b.nrows(), "solve: a is {}x{}, b has {} rows", a.nrows(), a.ncols(), b.nrows());
    let lu = Lu::new(a, par);
    if lu.singular() {
        return Err(LinalgErr::Singular);
    }
    let mut x = b.to_owned();
    lu.solve_in_place(x.as_mut(), par);
    Ok(x)
}

/// `numpy.linalg.inv`: like NumPy (LAPACK `gesv` with `b = I`), the solution of `a x = I` from the LU;
/// `LinalgErr::Singular` for an exactly zero pivot.
pub(crate) fn inv<T: Scalar>(a: MatRef<'_, T>, par: Par) -> Result<Mat<T>, LinalgErr> {
    let n = a.nrows();
    let lu = Lu::new(a, par);
    if lu.singular() {
        return Err(LinalgErr::Singular);
    }
    let mut x = Mat::<T>::identity(n, n);
    lu.solve_in_place(x.as_mut(), par);
    Ok(x)
}

// ---------------------------------------------------------------------------------------------
// Cholesky

/// `numpy.linalg.cholesky`: `L` with `a = L Lᴴ` reading only the lower triangle of `a`, or with
/// `upper`, `U = Lᴴ` with `a = Uᴴ U` reading only the upper triangle (NumPy's `upper=True` calls
/// LAPACK `potrf` with `'U'`). The imaginary parts of the diagonal are ignored, the other triangle of
/// the result is zero.
///
/// `LinalgErr::NotPositiveDefinite` for a pivot `<= 0`. A NaN pivot is no error (OpenBLAS's `potrf`
/// only tests `<= 0`): as NumPy, the factor is exact up to the first row `i` of the read triangle
/// holding a NaN, that row is NaN from its first NaN on, and every later row is NaN from column `i`
/// on (the rows below `i` left of column `i` are `a₂₁ L₁₁⁻ᴴ`, as without the NaN).
pub(crate) fn cholesky<T: Scalar>(a: MatRef<'_, T>, upper: bool, par: Par) -> Result<Mat<T>, LinalgErr> {
    let n = a.nrows();
    assert_eq!(n, a.ncols(), "cholesky of a non-square matrix");
    // The lower triangle of the Hermitian matrix the read triangle defines.
    let mut l = Mat::<T>::zeros(n, n);
    let mut first_nan = n;
    for j in 0..n {
        for i in j..n {
            let x = if i == j {
                T::from_parts(a[(i, i)].re(), Re::<T>::zero())
            } else if upper {
                a[(j, i)].cj()
            } else {
                a[(i, j)]
            };
            if x.nan() && i < first_nan {
                first_nan = i;
            }
            l[(i, j)] = x;
        }
    }
    let k = first_nan;
    {
        let (l11, _, l21, mut l22) = l.as_mut().split_at_mut(k, k);
        let mut mem = stack(llt::cholesky_in_place_scratch::<T>(k, par, Default::default()));
        let mut l11 = l11;
        llt::cholesky_in_place(l11.rb_mut(), Default::default(), par, MemStack::new(&mut mem), Default::default())
            .map_err(|_| LinalgErr::NotPositiveDefinite)?;
        if k < n {
            // L21 = A21 L11^-H, that is conj(L11) L21^T = A21^T.
            triangular_solve::solve_lower_triangular_in_place_with_conj(l11.rb(), Conj::Yes, l21.transpose_mut(), par);
            // Row k's pivot is NaN, and with it every column from k on.
            let nan = nan::<T>();
            for j in 0..n - k {
                for i in j..n - k {
                    l22[(i, j)] = nan;
                }
            }
        }
    }
    // cholesky_in_place may leave the strict upper triangle as it found it, or use it: zero it. The
    // diagonal is real (LAPACK stores the square root of a real number; faer may leave rounding
    // noise in the imaginary part).
    for j in 0..n {
        for i in 0..j {
            l[(i, j)] = zero();
        }
        l[(j, j)] = T::from_parts(l[(j, j)].re(), Re::<T>::zero());
    }
    if upper {
        Ok(l.adjoint().to_owned())
    } else {
        Ok(l)
    }
}

// ---------------------------------------------------------------------------------------------
// QR

pub(crate) use crate::linalg::QrMode;

/// `numpy.linalg.qr`: `(q, r)` with `a = q r`, `q` `None` for `QrMode::R`.
///
/// Signs are LAPACK's (`?geqrf` + `?orgqr`/`?ungqr`), which NumPy returns: column `j`'s reflector
/// maps `x` (the column below the diagonal at step `j`) to `beta e₀` with `beta = -sign(re x₀)‖x‖`,
/// real, and is the identity when the part of `x` below `x₀` is zero (for a complex type, only
/// when `x₀` is real too), so the diagonal of `r` is real and its signs are the opposite of the
/// pivots'.
///
/// For real types faer's Householder QR has exactly this convention (`beta = -sign(x₀)‖x‖`, identity
/// for a zero tail; the 1×1 last step of a square or wide matrix is left alone, as `dlarfg` does
/// for `n = 1`), and it is used as is: no sign flips are needed. For complex types faer's reflectors
/// are Hermitian with `beta = -(x₀/|x₀|)‖x‖` (a complex diagonal of `r`); no fix-up of columns and
/// rows reproduces LAPACK's result (its non-Hermitian reflectors change the later columns and the
/// extra columns of the complete `q`), so complex types use a blocked Householder QR written here
/// after LAPACK's `zgeqrf`/`zlarfg`/`zlarft`/`zlarfb`/`zungqr`, on faer's matrix products.
pub(crate) fn qr<T: Scalar>(a: MatRef<'_, T>, mode: QrMode, par: Par) -> (Option<Mat<T>>, Mat<T>) {
    if T::IS_COMPLEX {
        qr_lapack(a, mode, par)
    } else {
        qr_faer(a, mode, par)
    }
}

/// The shapes of `qr`'s results: the number of columns of `q`, the number of rows of `r`.
fn qr_shapes(m: usize, n: usize, mode: QrMode) -> (usize, usize) {
    let k = m.min(n);
    match mode {
        QrMode::Complete if m > n => (m, m),
        _ => (k, k),
    }
}

fn upper_trapezoid<T: Scalar>(a: MatRef<'_, T>, rows: usize) -> Mat<T> {
    let n = a.ncols();
    Mat::from_fn(rows, n, |i, j| if i <= j && i < a.nrows() { a[(i, j)] } else { zero() })
}

fn qr_faer<T: Scalar>(a: MatRef<'_, T>, mode: QrMode, par: Par) -> (Option<Mat<T>>, Mat<T>) {
    let (m, n) = (a.nrows(), a.ncols());
    let k = m.min(n);
    let (qcols, rrows) = qr_shapes(m, n, mode);
    let mut qr = a.to_owned();
    let bs = qr_factor::recommended_block_size::<T>(m, n).max(1);
    let mut coeff = Mat::<T>::zeros(bs, k);
    if k > 0 {
        let mut mem = stack(qr_factor::qr_in_place_scratch::<T>(m, n, bs, par, Default::default()));
        qr_factor::qr_in_place(qr.as_mut(), coeff.as_mut(), par, MemStack::new(&mut mem), Default::default());
        // faer skips a column whose part from the diagonal down is below `16 (m - j) eps` times its
        // norm (it moves the next reflector to the next column: a different staircase from LAPACK's,
        // which reflects whatever is there). Then the skipped column's diagonal entry is that small;
        // with twice the margin, such a factorisation is redone the LAPACK way.
        let e = eps::<Re<T>>();
        let skipped = (0..k).any(|j| {
            let col = qr.as_ref().col(j).get(..j + 1);
            let thresh = e * Re::<T>::of_f64(32.0 * (m - j) as f64) * col.norm_l2();
            qr[(j, j)].modulus().partial_cmp(&thresh) != Some(core::cmp::Ordering::Greater)
        });
        if skipped {
            return qr_lapack(a, mode, par);
        }
    }
    let r = upper_trapezoid(qr.as_ref(), rrows);
    if mode == QrMode::R {
        return (None, r);
    }
    let mut q = Mat::<T>::identity(m, qcols);
    if k > 0 {
        let basis = qr.as_ref().get(.., ..k);
        let mut mem =
            stack(householder::apply_block_householder_sequence_on_the_left_in_place_scratch::<T>(m, bs, qcols));
        householder::apply_block_householder_sequence_on_the_left_in_place_with_conj(
            basis,
            coeff.as_ref(),
            Conj::No,
            q.as_mut(),
            par,
            MemStack::new(&mut mem),
        );
    }
    (Some(q), r)
}

/// The panel width of [`qr_lapack`].
const QR_NB: usize = 32;

/// LAPACK's `?larfg`: the reflector `H = I - tau v vᴴ` (`v₀ = 1`, the rest written over `x`) with
/// `Hᴴ [alpha; x] = [beta; 0]`, `beta = -sign(re alpha) ‖[alpha; x]‖` real, `alpha` replaced by `beta`.
/// `tau = 0` (`H = I`) when `x` is zero and `alpha` real, and for a real type when `x` is empty.
fn larfg<T: Scalar>(alpha: &mut T, x: &mut [T]) -> T {
    let z = Re::<T>::zero();
    if !T::IS_COMPLEX && x.is_empty() {
        return zero();
    }
    let mut xnorm = z;
    for &e in x.iter() {
        xnorm = Float::hypot(xnorm, e.modulus());
    }
    let (ar, ai) = (alpha.re(), alpha.im());
    if xnorm == z && ai == z {
        return zero();
    }
    let norm = Float::hypot(Float::hypot(ar, ai), xnorm);
    let beta = -Float::copysign(norm, ar);
    let tau = T::from_parts((beta - ar) / beta, -ai / beta);
    let scal = one::<T>() / (*alpha - T::from_parts(beta, z));
    for e in x.iter_mut() {
        *e = *e * scal;
    }
    *alpha = T::from_parts(beta, z);
    tau
}

/// One block of reflectors: rows `j0..`, the explicit unit lower trapezoidal `v` and the upper
/// triangular `t` with `H_{j0} ⋯ H_{j0+jb-1} = I - v t vᴴ`.
struct Block<T> {
    j0: usize,
    v: Mat<T>,
    t: Mat<T>,
}

/// LAPACK's blocked Householder QR (`?geqrf`, `?larft`, `?larfb`) and `?orgqr`/`?ungqr`, for any
/// element type; [`qr`] uses it for complex types.
fn qr_lapack<T: Scalar>(a: MatRef<'_, T>, mode: QrMode, par: Par) -> (Option<Mat<T>>, Mat<T>) {
    let (m, n) = (a.nrows(), a.ncols());
    let k = m.min(n);
    let (qcols, rrows) = qr_shapes(m, n, mode);
    let mut r = a.to_owned();
    let mut blocks: Vec<Block<T>> = Vec::new();
    let mut col = vec![zero::<T>(); m];
    let mut j0 = 0;
    while j0 < k {
        let jb = QR_NB.min(k - j0);
        let rows = m - j0;
        // Unblocked panel (?geqr2) on r[j0.., j0..j0+jb].
        let mut taus = Vec::with_capacity(jb);
        for i in 0..jb {
            let c = j0 + i;
            let len = m - c;
            for (p, e) in col[..len].iter_mut().enumerate() {
                *e = r[(c + p, c)];
            }
            let (head, tail) = col[..len].split_at_mut(1);
            let tau = larfg(&mut head[0], tail);
            for (p, e) in col[..len].iter().enumerate() {
                r[(c + p, c)] = *e;
            }
            taus.push(tau);
            if tau != zero::<T>() {
                // Hᴴ applied to the rest of the panel: C -= conj(tau) v (vᴴ C).
                let ctau = tau.cj();
                for cc in c + 1..j0 + jb {
                    let mut w = r[(c, cc)];
                    for p in 1..len {
                        w = w + r[(c + p, c)].cj() * r[(c + p, cc)];
                    }
                    let w = ctau * w;
                    r[(c, cc)] = r[(c, cc)] - w;
                    for p in 1..len {
                        let upd = r[(c + p, c)] * w;
                        r[(c + p, cc)] = r[(c + p, cc)] - upd;
                    }
                }
            }
        }
        // V explicit, T (?larft, forward, columnwise): T[..i, i] = -tau_i T[..i, ..i] V[:, ..i]ᴴ v_i.
        let v = Mat::<T>::from_fn(rows, jb, |p, q| {
            if p == q {
                one()
            } else if p > q {
                r[(j0 + p, j0 + q)]
            } else {
                zero()
            }
        });
        let gram = matmul_new::<T, _, _>(v.adjoint(), v.as_ref(), Par::Seq);
        let mut t = Mat::<T>::zeros(jb, jb);
        for i in 0..jb {
            let tau = taus[i];
            if tau == zero::<T>() {
                continue;
            }
            let y: Vec<T> = (0..i).map(|p| -tau * gram[(p, i)]).collect();
            for p in 0..i {
                let mut s = zero::<T>();
                for q in p..i {
                    s = s + t[(p, q)] * y[q];
                }
                t[(p, i)] = s;
            }
            t[(i, i)] = tau;
        }
        // The trailing columns: C = (I - V T Vᴴ)ᴴ C = C - V (Tᴴ (Vᴴ C)).
        if j0 + jb < n {
            let mut c = r.as_mut().submatrix_mut(j0, j0 + jb, rows, n - j0 - jb);
            let w = matmul_new::<T, _, _>(v.adjoint(), c.rb(), par);
            let w = matmul_new::<T, _, _>(t.adjoint(), w.as_ref(), par);
            faer_matmul::matmul(c.rb_mut(), Accum::Add, v.as_ref(), w.as_ref(), -one::<T>(), par);
        }
        blocks.push(Block { j0, v, t });
        j0 += jb;
    }
    let r_out = upper_trapezoid(r.as_ref(), rrows);
    if mode == QrMode::R {
        return (None, r_out);
    }
    // Q = H_0 ⋯ H_{k-1} I[:, ..qcols], the blocks applied from the last: Q[j0.., j0..] -= V (T (Vᴴ Q)).
    let mut q = Mat::<T>::identity(m, qcols);
    for b in blocks.iter().rev() {
        let mut qs = q.as_mut().submatrix_mut(b.j0, b.j0, m - b.j0, qcols - b.j0);
        let w = matmul_new::<T, _, _>(b.v.adjoint(), qs.rb(), par);
        let w = matmul_new::<T, _, _>(b.t.as_ref(), w.as_ref(), par);
        faer_matmul::matmul(qs.rb_mut(), Accum::Add, b.v.as_ref(), w.as_ref(), -one::<T>(), par);
    }
    (Some(q), r_out)
}

// ---------------------------------------------------------------------------------------------
// Hermitian eigenproblems

/// The Hermitian matrix that `a`'s `lower` (or upper) triangle defines, as the lower triangle of a
/// new matrix (zeros above, the diagonal's imaginary part dropped, as LAPACK `?heevd` ignores it).
/// An inf or NaN in the read triangle is `Eigenvalues did not converge`.
fn hermitian_lower<T: Scalar>(a: MatRef<'_, T>, lower: bool) -> Result<Mat<T>, LinalgErr> {
    let n = a.nrows();
    assert_eq!(n, a.ncols(), "eigh of a non-square matrix");
    let mut h = Mat::<T>::zeros(n, n);
    for j in 0..n {
        for i in j..n {
            let x = if i == j {
                T::from_parts(a[(i, i)].re(), Re::<T>::zero())
            } else if lower {
                a[(i, j)]
            } else {
                a[(j, i)].cj()
            };
            if !x.finite() {
                return Err(LinalgErr::NoConvergence(EIG_NO_CONVERGENCE));
            }
            h[(i, j)] = x;
        }
    }
    Ok(h)
}

fn eigh_impl<T: Scalar>(a: MatRef<'_, T>, lower: bool, vectors: bool, par: Par) -> Result<EighRaw<T>, LinalgErr> {
    let h = hermitian_lower(a, lower)?;
    let n = h.nrows();
    let mut s = Diag::<T>::zeros(n);
    let mut u = if vectors { Some(Mat::<T>::zeros(n, n)) } else { None };
    let want = if vectors { ComputeEigenvectors::Yes } else { ComputeEigenvectors::No };
    let mut mem = stack(evd::self_adjoint_evd_scratch::<T>(n, want, par, Default::default()));
    evd::self_adjoint_evd(
        h.as_ref(),
        s.as_mut(),
        u.as_mut().map(|u| u.as_mut()),
        par,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .map_err(|_| LinalgErr::NoConvergence(EIG_NO_CONVERGENCE))?;
    let w = (0..n).map(|i| s.column_vector()[i].re()).collect();
    Ok((w, u))
}

/// `numpy.linalg.eigh`: eigenvalues in ascending order and orthonormal eigenvectors (columns) of
/// the Hermitian matrix that `a`'s lower (`lower`, NumPy's `UPLO='L'`) or upper triangle defines; the
/// other triangle and the imaginary parts of the diagonal are not read. The signs (phases) of the
/// eigenvectors are faer's, which need not be LAPACK's.
pub(crate) fn eigh<T: Scalar>(a: MatRef<'_, T>, lower: bool, par: Par) -> Result<(Vec<Re<T>>, Mat<T>), LinalgErr> {
    let (w, v) = eigh_impl(a, lower, true, par)?;
    Ok((w, v.expect("eigenvectors were asked for")))
}

/// `numpy.linalg.eigvalsh`: the eigenvalues of [`eigh`] alone (no eigenvectors are computed).
pub(crate) fn eigvalsh<T: Scalar>(a: MatRef<'_, T>, lower: bool, par: Par) -> Result<Vec<Re<T>>, LinalgErr> {
    Ok(eigh_impl(a, lower, false, par)?.0)
}

// ---------------------------------------------------------------------------------------------
// General eigenproblems

/// `numpy.linalg.eig`: eigenvalues and right eigenvectors (columns) of a square matrix, both complex.
///
/// Normalised as LAPACK `?geev` specifies: each vector has unit 2-norm and its largest component
/// (by modulus, the first of equals) is real; this makes that component positive (`zgeev` does so
/// for complex input; `dgeev` keeps the sign of the component's real part, which depends on its
/// own Schur vectors). The vectors of a real matrix's real eigenvalues are real, with faer's sign;
/// a conjugate pair is listed with the positive imaginary part first and conjugate vectors. The
/// order of the eigenvalues is faer's (LAPACK's Schur order differs; NumPy makes no promise).
///
/// `LinalgErr::NonFinite` for any inf or NaN, as NumPy's `_assert_finite`. NumPy returns real
/// arrays for real input whose eigenvalues all have zero imaginary part: the caller checks `im`.
pub(crate) fn eig<T: Scalar>(a: MatRef<'_, T>, par: Par) -> Result<EigPair<T>, LinalgErr> {
    assert_eq!(a.nrows(), a.ncols(), "eig of a non-square matrix");
    if !all_finite(a) {
        return Err(LinalgErr::NonFinite);
    }
    let EigRaw { w, v } = T::eig_raw(a, true, par)?;
    let mut v = v.expect("eigenvectors were asked for");
    let n = v.nrows();
    let zr = Re::<T>::zero();
    let mut j = 0;
    while j < n {
        let pair = !T::IS_COMPLEX && w[j].im != zr;
        let mut col: Vec<Complex<Re<T>>> = (0..n).map(|i| v[(i, j)]).collect();
        let mut norm = zr;
        for z in &col {
            norm = Float::hypot(norm, Float::hypot(z.re, z.im));
        }
        if norm > zr {
            for z in col.iter_mut() {
                *z = Complex::new(z.re / norm, z.im / norm);
            }
        }
        if T::IS_COMPLEX || pair {
            let mut kmax = 0;
            let mut best = Re::<T>::neg_infinity();
            for (i, z) in col.iter().enumerate() {
                let m2 = z.re * z.re + z.im * z.im;
                if m2 > best {
                    best = m2;
                    kmax = i;
                }
            }
            let abs = Float::sqrt(best);
            if abs > zr {
                let phase = Complex::new(col[kmax].re / abs, -col[kmax].im / abs);
                for z in col.iter_mut() {
                    *z = *z * phase;
                }
                col[kmax].im = zr;
            }
        }
        for (i, z) in col.iter().enumerate() {
            v[(i, j)] = *z;
        }
        if pair {
            for (i, z) in col.iter().enumerate() {
                v[(i, j + 1)] = z.conj();
            }
            j += 2;
        } else {
            j += 1;
        }
    }
    Ok((w, v))
}

/// `numpy.linalg.eigvals`: the eigenvalues of [`eig`] alone (no eigenvectors are computed);
/// `LinalgErr::NonFinite` for any inf or NaN.
pub(crate) fn eigvals<T: Scalar>(a: MatRef<'_, T>, par: Par) -> Result<Vec<Complex<Re<T>>>, LinalgErr> {
    assert_eq!(a.nrows(), a.ncols(), "eigvals of a non-square matrix");
    if !all_finite(a) {
        return Err(LinalgErr::NonFinite);
    }
    Ok(T::eig_raw(a, false, par)?.w)
}

// ---------------------------------------------------------------------------------------------
// SVD and what is built on it

/// What [`svd`] returns: `u` (`m×m`, or `m×k` without `full_matrices`), `s` (descending, length
/// `k = min(m, n)`), `vh` (`n×n`, or `k×n`); `u` and `vh` are `None` without `compute_uv`.
#[derive(Clone, Debug)]
pub(crate) struct Svd<T: Scalar> {
    pub(crate) u: Option<Mat<T>>,
    pub(crate) s: Vec<Re<T>>,
    pub(crate) vh: Option<Mat<T>>,
}

/// `numpy.linalg.svd(a, full_matrices, compute_uv)` (`hermitian=False`): `a = u diag(s) vh`.
///
/// Without `compute_uv` no singular vectors are computed at all. A NaN anywhere is
/// `SVD did not converge` (LAPACK `?gesdd` refuses a NaN); an inf without NaN gives, as NumPy does,
/// NaN singular values (and NaN vectors here; NumPy's are partly garbage). Empty shapes follow
/// NumPy: `u` (or `vh`) of an `m×0` (`0×n`) matrix with `full_matrices` is the identity.
pub(crate) fn svd<T: Scalar>(
    a: MatRef<'_, T>,
    full_matrices: bool,
    compute_uv: bool,
    par: Par,
) -> Result<Svd<T>, LinalgErr> {
    let (m, n) = (a.nrows(), a.ncols());
    let k = m.min(n);
    let (ucols, vrows) = if full_matrices { (m, n) } else { (k, k) };
    if any_nan(a) {
        return Err(LinalgErr::NoConvergence(SVD_NO_CONVERGENCE));
    }
    if !all_finite(a) {
        let nan = nan::<T>();
        return Ok(Svd {
            u: compute_uv.then(|| Mat::full(m, ucols, nan)),
            s: vec![Re::<T>::nan(); k],
            vh: compute_uv.then(|| Mat::full(vrows, n, nan)),
        });
    }
    // LAPACK's ?gesdd scales a matrix whose largest entry lies outside [smlnum, bignum]
    // (sqrt(safmin)/eps and its inverse) before the iteration and the singular values back after:
    // without it a float32 matrix with entries near 1e20 does not converge. Scaling by a power of
    // two is exact (the vectors do not change).
    let amax = (0..n)
        .flat_map(|j| (0..m).map(move |i| (i, j)))
        .fold(0.0f64, |acc, (i, j)| acc.max(a[(i, j)].re().as_f64().abs()).max(a[(i, j)].im().as_f64().abs()));
    let smlnum =
        Float::sqrt(<T::Real as Float>::min_positive_value().as_f64()) / <T::Real as Float>::epsilon().as_f64();
    let scaled: Option<(Mat<T>, i32)> = (amax > 1.0 / smlnum || (amax > 0.0 && amax < smlnum)).then(|| {
        // To the nearest bound (as LAPACK does: fewer small entries lose bits than scaling to 1).
        let target = if amax > 1.0 { (1.0 / smlnum).log2().floor() } else { smlnum.log2().ceil() };
        let e = (target - amax.log2().ceil()) as i32;
        let f = T::Real::of_f64(2f64.powi(e));
        (Mat::from_fn(m, n, |i, j| a[(i, j)].scale(f)), e)
    });
    let a = scaled.as_ref().map_or(a, |(sa, _)| sa.as_ref());
    let unscale = |x: T::Real| match &scaled {
        // In two steps, so that 2^-e itself does not overflow T::Real.
        Some((_, e)) => x * T::Real::of_f64(2f64.powi(-e / 2)) * T::Real::of_f64(2f64.powi(-e - (-e / 2))),
        None => x,
    };
    let mut s = Diag::<T>::zeros(k);
    if !compute_uv {
        let mut mem = stack(faer_svd::svd_scratch::<T>(
            m,
            n,
            ComputeSvdVectors::No,
            ComputeSvdVectors::No,
            par,
            Default::default(),
        ));
        faer_svd::svd(a, s.as_mut(), None, None, par, MemStack::new(&mut mem), Default::default())
            .map_err(|_| LinalgErr::NoConvergence(SVD_NO_CONVERGENCE))?;
        let s = (0..k).map(|i| unscale(s.column_vector()[i].re())).collect();
        return Ok(Svd { u: None, s, vh: None });
    }
    let which = if full_matrices { ComputeSvdVectors::Full } else { ComputeSvdVectors::Thin };
    let mut u = Mat::<T>::zeros(m, ucols);
    let mut v = Mat::<T>::zeros(n, vrows);
    let mut mem = stack(faer_svd::svd_scratch::<T>(m, n, which, which, par, Default::default()));
    faer_svd::svd(a, s.as_mut(), Some(u.as_mut()), Some(v.as_mut()), par, MemStack::new(&mut mem), Default::default())
        .map_err(|_| LinalgErr::NoConvergence(SVD_NO_CONVERGENCE))?;
    let s = (0..k).map(|i| unscale(s.column_vector()[i].re())).collect();
    Ok(Svd { u: Some(u), s, vh: Some(v.adjoint().to_owned()) })
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
