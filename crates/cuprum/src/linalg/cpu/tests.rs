//! The faer core against values NumPy printed and against identities.
// The expected values are written as NumPy printed them (digits beyond f64, 1.414... for sqrt(2)).
#![allow(clippy::excessive_precision, clippy::approx_constant)]
use super::*;
use faer::{c32, c64};

// ---- helpers ------------------------------------------------------------------------------

/// Runs a generic test for the four element types.
macro_rules! all_types {
    ($f:ident) => {
        $f::<f32>();
        $f::<f64>();
        $f::<c32>();
        $f::<c64>();
    };
}

/// `numpy.linalg.det`, computed as NumPy does: `sign * exp(logabsdet)` of [`slogdet`] (so exactly 0 for
/// an exactly zero pivot, 1 for the 0×0 matrix).
fn det<T: Scalar>(a: MatRef<'_, T>, par: Par) -> T {
    let (sign, logdet) = slogdet(a, par);
    sign.scale(Float::exp(logdet))
}

fn c<T: Scalar>(re: f64, im: f64) -> T {
    T::from_parts(Re::<T>::of_f64(re), Re::<T>::of_f64(im))
}

/// A matrix from row-major real entries.
fn from_rows<T: Scalar>(m: usize, n: usize, rows: &[f64]) -> Mat<T> {
    assert_eq!(rows.len(), m * n);
    Mat::from_fn(m, n, |i, j| c(rows[i * n + j], 0.0))
}

/// A matrix from row-major complex entries `(re, im)`.
fn from_rows_c<T: Scalar>(m: usize, n: usize, rows: &[(f64, f64)]) -> Mat<T> {
    assert_eq!(rows.len(), m * n);
    Mat::from_fn(m, n, |i, j| c(rows[i * n + j].0, rows[i * n + j].1))
}

/// xorshift64*: uniform in [-1, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        (x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

fn rand_mat<T: Scalar>(m: usize, n: usize, seed: u64) -> Mat<T> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    Mat::from_fn(m, n, |_, _| {
        let re = rng.next();
        let im = rng.next();
        c(re, im)
    })
}

/// A Hermitian positive definite matrix `B Bᴴ + n I`.
fn rand_hpd<T: Scalar>(n: usize, seed: u64) -> Mat<T> {
    let b = rand_mat::<T>(n, n, seed);
    let mut a = matmul_new::<T, _, _>(b.as_ref(), b.adjoint(), Par::Seq);
    for i in 0..n {
        a[(i, i)] = a[(i, i)] + c(n as f64, 0.0);
    }
    a
}

/// A Hermitian matrix from a random one: (B + Bᴴ) / 2 with a real diagonal.
fn rand_herm<T: Scalar>(n: usize, seed: u64) -> Mat<T> {
    let b = rand_mat::<T>(n, n, seed);
    Mat::from_fn(n, n, |i, j| {
        if i == j {
            T::from_parts(b[(i, i)].re(), Re::<T>::zero())
        } else {
            (b[(i, j)] + b[(j, i)].cj()).scale(Re::<T>::of_f64(0.5))
        }
    })
}

fn eps_of<T: Scalar>() -> f64 {
    eps::<Re<T>>().as_f64()
}

fn abs_of<T: Scalar>(x: T) -> f64 {
    x.modulus().as_f64()
}

fn max_abs<T: Scalar>(a: MatRef<'_, T>) -> f64 {
    let mut m = 0.0f64;
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            m = m.max(abs_of(a[(i, j)]));
        }
    }
    m
}

fn max_diff<T: Scalar>(a: MatRef<'_, T>, b: MatRef<'_, T>) -> f64 {
    assert_eq!((a.nrows(), a.ncols()), (b.nrows(), b.ncols()), "shapes differ");
    let mut m = 0.0f64;
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            let d = abs_of(a[(i, j)] - b[(i, j)]);
            assert!(!d.is_nan(), "NaN at ({i}, {j})");
            m = m.max(d);
        }
    }
    m
}

/// Asserts `|a - b|_max <= k * eps * scale` (scale at least 1).
#[track_caller]
fn assert_close<T: Scalar>(a: MatRef<'_, T>, b: MatRef<'_, T>, k: f64, what: &str) {
    let scale = max_abs(a).max(max_abs(b)).max(1.0);
    let d = max_diff(a, b);
    let bound = k * eps_of::<T>() * scale;
    assert!(d <= bound, "{what} ({}): diff {d:e} > {bound:e}", core::any::type_name::<T>());
}

#[track_caller]
fn assert_near(x: f64, y: f64, tol: f64, what: &str) {
    assert!((x - y).abs() <= tol * y.abs().max(1.0), "{what}: {x} vs {y} (tol {tol:e})");
}

/// |Qᴴ Q - I|_max: the columns' orthonormality.
fn ortho_err<T: Scalar>(q: MatRef<'_, T>) -> f64 {
    let g = matmul_new::<T, _, _>(q.adjoint(), q, Par::Seq);
    max_diff(g.as_ref(), Mat::<T>::identity(q.ncols(), q.ncols()).as_ref())
}

/// The same matrix in a row-major buffer whose row stride exceeds the number of columns; the
/// view is `padded(a).as_ref().transpose().submatrix(0, 0, m, n)`, see [`padded_view`].
fn padded<T: Scalar>(a: MatRef<'_, T>) -> Mat<T> {
    let (m, n) = (a.nrows(), a.ncols());
    Mat::from_fn(n + 3, m, |j, i| if j < n { a[(i, j)] } else { c(1e30, 0.0) })
}

fn padded_view<'a, T: Scalar>(store: &'a Mat<T>, m: usize, n: usize) -> MatRef<'a, T> {
    let v = store.as_ref().transpose().submatrix(0, 0, m, n);
    assert!(v.row_stride() > n as isize && v.col_stride() == 1);
    v
}

/// The same matrix stored row-major (a transposed view of a column-major buffer).
fn row_major<T: Scalar>(a: MatRef<'_, T>) -> Mat<T> {
    a.transpose().to_owned()
}

fn naive_matmul<T: Scalar>(a: MatRef<'_, T>, b: MatRef<'_, T>) -> Mat<T> {
    Mat::from_fn(a.nrows(), b.ncols(), |i, j| (0..a.ncols()).fold(zero::<T>(), |acc, p| acc + a[(i, p)] * b[(p, j)]))
}

fn conj_mat<T: Scalar>(a: MatRef<'_, T>) -> Mat<T> {
    Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[(i, j)].cj())
}

fn diag_mat<T: Scalar>(m: usize, n: usize, d: &[Re<T>]) -> Mat<T> {
    Mat::from_fn(m, n, |i, j| if i == j { T::from_parts(d[i], Re::<T>::zero()) } else { zero() })
}

// ---- errors -------------------------------------------------------------------------------

#[test]
fn error_messages_are_numpys() {
    assert_eq!(LinalgErr::Singular.to_string(), "Singular matrix");
    assert_eq!(LinalgErr::NotPositiveDefinite.to_string(), "Matrix is not positive definite");
    assert_eq!(LinalgErr::NoConvergence(SVD_NO_CONVERGENCE).to_string(), "SVD did not converge");
    assert_eq!(LinalgErr::NoConvergence(EIG_NO_CONVERGENCE).to_string(), "Eigenvalues did not converge");
    assert_eq!(LinalgErr::NonFinite.to_string(), "Array must not contain infs or NaNs");
}

#[test]
fn faer_complex_types_are_num_complex() {
    let z: c64 = num_complex::Complex::<f64>::new(1.0, 2.0);
    let w: c32 = num_complex::Complex::<f32>::new(1.0, 2.0);
    assert_eq!((z.re, z.im, w.re, w.im), (1.0, 2.0, 1.0, 2.0));
}

// ---- matmul -------------------------------------------------------------------------------

fn matmul_generic<T: Scalar>() {
    for &(m, k, n) in &[(5, 7, 3), (1, 1, 1), (33, 17, 40), (64, 64, 64)] {
        let a = rand_mat::<T>(m, k, 1);
        let b = rand_mat::<T>(k, n, 2);
        let want = naive_matmul(a.as_ref(), b.as_ref());
        let mut c_ = Mat::<T>::full(m, n, c(7.0, 7.0));
        matmul(c_.as_mut(), a.as_ref(), b.as_ref(), Par::Seq);
        assert_close(c_.as_ref(), want.as_ref(), 4.0 * k as f64, "matmul");
        assert_close(
            matmul_new::<T, _, _>(a.as_ref(), b.as_ref(), Par::rayon(0)).as_ref(),
            want.as_ref(),
            4.0 * k as f64,
            "matmul par",
        );
        // Strided operands: row-major, padded rows.
        let ar = row_major(a.as_ref());
        let bp = padded(b.as_ref());
        let got = matmul_new::<T, _, _>(ar.transpose(), padded_view(&bp, k, n), Par::Seq);
        assert_close(got.as_ref(), want.as_ref(), 4.0 * k as f64, "matmul strided");
        // Conjugated operands: aᴴ·x and conj(a)·b without copies.
        let x = rand_mat::<T>(m, n, 3);
        let want_h = naive_matmul(conj_mat(a.as_ref()).transpose(), x.as_ref());
        let got_h = matmul_new::<T, _, _>(a.adjoint(), x.as_ref(), Par::Seq);
        assert_close(got_h.as_ref(), want_h.as_ref(), 4.0 * m as f64, "matmul a^H x");
        let want_c = naive_matmul(conj_mat(a.as_ref()).as_ref(), b.as_ref());
        let got_c = matmul_new::<T, _, _>(a.conjugate(), b.as_ref(), Par::Seq);
        assert_close(got_c.as_ref(), want_c.as_ref(), 4.0 * k as f64, "matmul conj(a) b");
    }
    // vdot(x, y) = sum conj(x_i) y_i as a 1×1 product of a conjugated row and a column.
    let x = from_rows_c::<T>(3, 1, &[(1.0, 2.0), (0.0, -1.0), (3.0, 0.5)]);
    let y = from_rows_c::<T>(3, 1, &[(2.0, 0.0), (1.0, 1.0), (-1.0, 2.0)]);
    let d = matmul_new::<T, _, _>(x.adjoint(), y.as_ref(), Par::Seq);
    // numpy.vdot([1+2j, -1j, 3+.5j], [2, 1+1j, -1+2j]) = (-1+3.5j); real parts only: 2 + 0 - 3 = -1.
    let want: T = if T::IS_COMPLEX { c(-1.0, 3.5) } else { c(-1.0, 0.0) };
    assert_close(d.as_ref(), Mat::full(1, 1, want).as_ref(), 8.0, "vdot");
    // k = 0: c = 0, not its old contents.
    let mut c0 = Mat::<T>::full(2, 3, c(5.0, 1.0));
    matmul(c0.as_mut(), Mat::<T>::zeros(2, 0).as_ref(), Mat::<T>::zeros(0, 3).as_ref(), Par::Seq);
    assert_eq!(max_abs(c0.as_ref()), 0.0);
}

#[test]
fn matmul_all_types() {
    all_types!(matmul_generic);
}

// ---- det, slogdet -------------------------------------------------------------------------

fn det_generic<T: Scalar>() {
    // numpy: det([[1, 2], [3, 4]]) = -2.0000000000000004, slogdet = (-1.0, 0.6931471805599455)
    let a = from_rows::<T>(2, 2, &[1.0, 2.0, 3.0, 4.0]);
    let (sign, ld) = slogdet(a.as_ref(), Par::Seq);
    assert_eq!(sign, c(-1.0, 0.0));
    assert_near(ld.as_f64(), 0.6931471805599455, 4.0 * eps_of::<T>(), "slogdet [[1,2],[3,4]]");
    assert_near(abs_of(det(a.as_ref(), Par::Seq) - c(-2.0, 0.0)), 0.0, 8.0 * eps_of::<T>(), "det [[1,2],[3,4]]");
    // numpy: det of the 3×3 second-difference matrix = 4.0
    let t = from_rows::<T>(3, 3, &[2.0, -1.0, 0.0, -1.0, 2.0, -1.0, 0.0, -1.0, 2.0]);
    assert_near(det(t.as_ref(), Par::Seq).re().as_f64(), 4.0, 16.0 * eps_of::<T>(), "det T");
    // Triangular: the product of the diagonal.
    let mut u = rand_mat::<T>(6, 6, 9);
    for j in 0..6 {
        for i in j + 1..6 {
            u[(i, j)] = zero();
        }
    }
    let prod = (0..6).fold(one::<T>(), |acc, i| acc * u[(i, i)]);
    let d = det(u.as_ref(), Par::Seq);
    assert!(abs_of(d - prod) <= 64.0 * eps_of::<T>() * abs_of(prod), "det triangular");
    // A permutation matrix: ±1 with the parity; here a 3-cycle (+1) and a swap (-1).
    let p3 = from_rows::<T>(3, 3, &[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
    assert_eq!(det(p3.as_ref(), Par::Seq), one());
    let p2 = from_rows::<T>(2, 2, &[0.0, 1.0, 1.0, 0.0]);
    assert_eq!(slogdet(p2.as_ref(), Par::Seq), (-one::<T>(), Re::<T>::zero()));
    // det(a b) = det(a) det(b), det(aᵀ) = det(a), det(2a) = 2ⁿ det(a); strided views agree.
    let n = 12;
    let a = rand_mat::<T>(n, n, 4);
    let b = rand_mat::<T>(n, n, 5);
    let ab = matmul_new::<T, _, _>(a.as_ref(), b.as_ref(), Par::Seq);
    let (da, db, dab) = (det(a.as_ref(), Par::Seq), det(b.as_ref(), Par::Seq), det(ab.as_ref(), Par::Seq));
    assert!(abs_of(dab - da * db) <= 1e3 * eps_of::<T>() * abs_of(dab), "det(ab)");
    let dat = det(a.transpose(), Par::Seq);
    assert!(abs_of(dat - da) <= 1e3 * eps_of::<T>() * abs_of(da), "det(a^T)");
    let ap = padded(a.as_ref());
    assert!(abs_of(det(padded_view(&ap, n, n), Par::Seq) - da) <= 1e3 * eps_of::<T>() * abs_of(da), "det padded");
    let a2 = Mat::from_fn(n, n, |i, j| a[(i, j)].scale(Re::<T>::of_f64(2.0)));
    let d2 = det(a2.as_ref(), Par::Seq);
    assert!(abs_of(d2 - da.scale(Re::<T>::of_f64(4096.0))) <= 1e3 * eps_of::<T>() * abs_of(d2), "det(2a)");
    // slogdet's sign has unit modulus and det = sign * exp(logdet).
    let (s, l) = slogdet(a.as_ref(), Par::Seq);
    assert_near(abs_of(s), 1.0, 8.0 * eps_of::<T>(), "|sign|");
    assert!(abs_of(s.scale(Float::exp(l)) - da) <= 64.0 * eps_of::<T>() * abs_of(da));
    // Singular: (0, -inf) and det 0 exactly.
    let sing = from_rows::<T>(2, 2, &[1.0, 2.0, 2.0, 4.0]);
    assert_eq!(slogdet(sing.as_ref(), Par::Seq), (zero::<T>(), Re::<T>::neg_infinity()));
    assert_eq!(det(sing.as_ref(), Par::Seq), zero::<T>());
    // 0×0: det 1, slogdet (1, 0), as numpy.
    let e = Mat::<T>::zeros(0, 0);
    assert_eq!(det(e.as_ref(), Par::Seq), one::<T>());
    assert_eq!(slogdet(e.as_ref(), Par::Seq), (one::<T>(), Re::<T>::zero()));
    // NaN: numpy's slogdet gives a NaN log (sign 1 here), det NaN.
    let nan_m = from_rows::<T>(2, 2, &[1.0, 2.0, f64::NAN, 4.0]);
    assert!(Float::is_nan(slogdet(nan_m.as_ref(), Par::Seq).1));
    assert!(det(nan_m.as_ref(), Par::Seq).nan());
}

#[test]
fn det_slogdet_all_types() {
    all_types!(det_generic);
}

#[test]
fn det_complex_numpy_values() {
    // numpy: det([[1+2j, 2], [3, 4-1j]]) = (-7.771561172376097e-16+7.000000000000001j),
    // slogdet = (-1.1102230246251565e-16+1j, 1.9459101490553135)
    let a = from_rows_c::<c64>(2, 2, &[(1.0, 2.0), (2.0, 0.0), (3.0, 0.0), (4.0, -1.0)]);
    let (s, l) = slogdet(a.as_ref(), Par::Seq);
    assert!((s - c64::new(0.0, 1.0)).norm() < 1e-15);
    assert_near(l, 1.9459101490553135, 1e-15, "slogdet complex");
    let d = det(a.as_ref(), Par::Seq);
    assert!((d - c64::new(0.0, 7.0)).norm() < 1e-14);
    // numpy: det of the Hermitian [[2, 1-1j, 0], [1+1j, 3, 2j], [0, -2j, 1]] = (-4+0j)
    let h = from_rows_c::<c64>(
        3,
        3,
        &[(2.0, 0.0), (1.0, -1.0), (0.0, 0.0), (1.0, 1.0), (3.0, 0.0), (0.0, 2.0), (0.0, 0.0), (0.0, -2.0), (1.0, 0.0)],
    );
    assert!((det(h.as_ref(), Par::Seq) - c64::new(-4.0, 0.0)).norm() < 1e-14);
    // numpy's det of the singular [[1,2,3],[4,5,6],[7,8,9]] is exactly 0.0 (an exactly zero pivot).
    let s3 = from_rows::<f64>(3, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    assert_eq!(det(s3.as_ref(), Par::Seq), 0.0);
    assert_eq!(inv(s3.as_ref(), Par::Seq).unwrap_err(), LinalgErr::Singular);
}

// ---- inv, solve ---------------------------------------------------------------------------

fn inv_solve_generic<T: Scalar>() {
    for &n in &[1, 2, 7, 40, 130] {
        let a = rand_mat::<T>(n, n, 10 + n as u64);
        let id = Mat::<T>::identity(n, n);
        let ai = inv(a.as_ref(), Par::Seq).unwrap();
        let k = 200.0 * n as f64 * (1.0 + max_abs(ai.as_ref()));
        assert_close(matmul_new::<T, _, _>(a.as_ref(), ai.as_ref(), Par::Seq).as_ref(), id.as_ref(), k, "a inv(a)");
        // Strided: row-major and padded rows; parallel.
        let ar = row_major(a.as_ref());
        assert_close(inv(ar.transpose(), Par::rayon(0)).unwrap().as_ref(), ai.as_ref(), k, "inv row-major");
        let ap = padded(a.as_ref());
        assert_close(inv(padded_view(&ap, n, n), Par::Seq).unwrap().as_ref(), ai.as_ref(), k, "inv padded");
        // solve: a x = b with b n×3, b strided, a with reversed rows (negative stride).
        let b = rand_mat::<T>(n, 3, 20 + n as u64);
        let x = solve(a.as_ref(), b.as_ref(), Par::Seq).unwrap();
        assert_close(matmul_new::<T, _, _>(a.as_ref(), x.as_ref(), Par::Seq).as_ref(), b.as_ref(), k, "a x = b");
        let bp = padded(b.as_ref());
        let x2 = solve(ar.transpose(), padded_view(&bp, n, 3), Par::Seq).unwrap();
        assert_close(x2.as_ref(), x.as_ref(), k, "solve strided");
        let x3 = solve(a.as_ref().reverse_rows(), b.as_ref().reverse_rows(), Par::Seq).unwrap();
        assert_close(x3.as_ref(), x.as_ref(), k, "solve reversed rows");
        // k = 0 right-hand sides.
        assert_eq!(solve(a.as_ref(), Mat::<T>::zeros(n, 0).as_ref(), Par::Seq).unwrap().shape(), (n, 0));
    }
    // numpy: inv of the second-difference matrix = [[.75, .5, .25], [.5, 1, .5], [.25, .5, .75]]
    let t = from_rows::<T>(3, 3, &[2.0, -1.0, 0.0, -1.0, 2.0, -1.0, 0.0, -1.0, 2.0]);
    let want = from_rows::<T>(3, 3, &[0.75, 0.5, 0.25, 0.5, 1.0, 0.5, 0.25, 0.5, 0.75]);
    assert_close(inv(t.as_ref(), Par::Seq).unwrap().as_ref(), want.as_ref(), 8.0, "inv T");
    // Singular (an exactly zero pivot): numpy's LinAlgError("Singular matrix").
    let s = from_rows::<T>(2, 2, &[1.0, 2.0, 2.0, 4.0]);
    assert_eq!(inv(s.as_ref(), Par::Seq).unwrap_err(), LinalgErr::Singular);
    assert_eq!(solve(s.as_ref(), Mat::<T>::identity(2, 1).as_ref(), Par::Seq).unwrap_err(), LinalgErr::Singular);
    let z = Mat::<T>::zeros(3, 3);
    assert_eq!(inv(z.as_ref(), Par::Seq).unwrap_err(), LinalgErr::Singular);
    // 0×0: inv is 0×0, solve gives 0×k.
    assert_eq!(inv(Mat::<T>::zeros(0, 0).as_ref(), Par::Seq).unwrap().shape(), (0, 0));
    assert_eq!(
        solve(Mat::<T>::zeros(0, 0).as_ref(), Mat::<T>::zeros(0, 2).as_ref(), Par::Seq).unwrap().shape(),
        (0, 2)
    );
    // NaN is no error: numpy returns NaNs.
    let nan_m = from_rows::<T>(2, 2, &[1.0, 2.0, f64::NAN, 4.0]);
    let ni = inv(nan_m.as_ref(), Par::Seq).unwrap();
    assert!((0..2).all(|i| (0..2).all(|j| ni[(i, j)].nan())));
    // numpy: inv([[1, inf], [2, 4]]) = [[0, 0.5], [0, -0]] (gesv with b = I, not getri).
    let inf_m = from_rows::<T>(2, 2, &[1.0, f64::INFINITY, 2.0, 4.0]);
    let ii = inv(inf_m.as_ref(), Par::Seq).unwrap();
    assert_eq!((ii[(0, 0)], ii[(0, 1)], ii[(1, 0)], ii[(1, 1)].re()), (zero(), c(0.5, 0.0), zero(), Re::<T>::zero()));
}

#[test]
fn inv_solve_all_types() {
    all_types!(inv_solve_generic);
}

// ---- cholesky -----------------------------------------------------------------------------

fn cholesky_generic<T: Scalar>() {
    for &n in &[1, 3, 20, 150] {
        let a = rand_hpd::<T>(n, 30 + n as u64);
        let k = 100.0 * n as f64;
        let l = cholesky(a.as_ref(), false, Par::Seq).unwrap();
        for j in 0..n {
            assert_eq!(l[(j, j)].im(), Re::<T>::zero());
            assert!(l[(j, j)].re() > Re::<T>::zero());
            for i in 0..j {
                assert_eq!(l[(i, j)], zero::<T>(), "L's upper triangle is zero");
            }
        }
        assert_close(matmul_new::<T, _, _>(l.as_ref(), l.adjoint(), Par::Seq).as_ref(), a.as_ref(), k, "L L^H");
        let u = cholesky(a.as_ref(), true, Par::rayon(0)).unwrap();
        assert_close(u.as_ref(), l.adjoint().to_owned().as_ref(), k, "U = L^H");
        assert_close(matmul_new::<T, _, _>(u.adjoint(), u.as_ref(), Par::Seq).as_ref(), a.as_ref(), k, "U^H U");
        // Only the named triangle is read: garbage (even NaN) in the other one changes nothing.
        let mut g = a.clone();
        for j in 0..n {
            for i in 0..j {
                g[(i, j)] = c(f64::NAN, 3.0);
            }
            g[(j, j)] = T::from_parts(g[(j, j)].re(), Re::<T>::of_f64(5.0));
        }
        assert_close(cholesky(g.as_ref(), false, Par::Seq).unwrap().as_ref(), l.as_ref(), 1.0, "lower only");
        let mut gu = a.clone();
        for j in 0..n {
            for i in j + 1..n {
                gu[(i, j)] = c(f64::NAN, 3.0);
            }
        }
        assert_close(cholesky(gu.as_ref(), true, Par::Seq).unwrap().as_ref(), u.as_ref(), 1.0, "upper only");
        // Strided views.
        let ar = row_major(a.as_ref());
        assert_close(cholesky(ar.transpose(), false, Par::Seq).unwrap().as_ref(), l.as_ref(), k, "row-major");
        let ap = padded(a.as_ref());
        assert_close(cholesky(padded_view(&ap, n, n), false, Par::Seq).unwrap().as_ref(), l.as_ref(), k, "padded");
    }
    // numpy: cholesky([[4, 2], [2, 3]]) = [[2, 0], [1, 1.4142135623730951]]
    let a = from_rows::<T>(2, 2, &[4.0, 2.0, 2.0, 3.0]);
    let want = from_rows::<T>(2, 2, &[2.0, 0.0, 1.0, 1.4142135623730951]);
    assert_close(cholesky(a.as_ref(), false, Par::Seq).unwrap().as_ref(), want.as_ref(), 4.0, "numpy chol");
    // Not positive definite (numpy: LinAlgError), including a zero pivot and an indefinite one.
    for rows in [[1.0, 2.0, 2.0, 1.0], [0.0, 0.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 1.0]] {
        let a = from_rows::<T>(2, 2, &rows);
        assert_eq!(cholesky(a.as_ref(), false, Par::Seq).unwrap_err(), LinalgErr::NotPositiveDefinite);
        assert_eq!(cholesky(a.as_ref(), true, Par::Seq).unwrap_err(), LinalgErr::NotPositiveDefinite);
    }
    // numpy reads the upper triangle for upper=True: [[4, 2], [100, 3]] factors, [[4, 100], [2, 3]] does not.
    let a = from_rows::<T>(2, 2, &[4.0, 2.0, 100.0, 3.0]);
    assert_close(
        cholesky(a.as_ref(), true, Par::Seq).unwrap().as_ref(),
        want.transpose().to_owned().as_ref(),
        4.0,
        "upper",
    );
    assert_eq!(cholesky(a.as_ref(), false, Par::Seq).unwrap_err(), LinalgErr::NotPositiveDefinite);
    // 0×0
    assert_eq!(cholesky(Mat::<T>::zeros(0, 0).as_ref(), false, Par::Seq).unwrap().shape(), (0, 0));
}

#[test]
fn cholesky_all_types() {
    all_types!(cholesky_generic);
}

#[test]
fn cholesky_complex_numpy_values() {
    // numpy: cholesky([[4, 1-2j], [1+2j, 6]]) = [[2, 0], [0.5+1j, 2.179449471770337]],
    // upper=True gives [[2, 0.5-1j], [0, 2.179449471770337]]; the diagonal's imaginary part is ignored
    // (numpy: cholesky([[4+3j, 1+2j], [1-2j, 6-1j]]) = [[2, 0], [0.5-1j, 2.17944947]]).
    let a = from_rows_c::<c64>(2, 2, &[(4.0, 0.0), (1.0, -2.0), (1.0, 2.0), (6.0, 0.0)]);
    let l = cholesky(a.as_ref(), false, Par::Seq).unwrap();
    let want = from_rows_c::<c64>(2, 2, &[(2.0, 0.0), (0.0, 0.0), (0.5, 1.0), (2.179449471770337, 0.0)]);
    assert_close(l.as_ref(), want.as_ref(), 4.0, "complex chol");
    let u = cholesky(a.as_ref(), true, Par::Seq).unwrap();
    assert_close(u.as_ref(), want.adjoint().to_owned().as_ref(), 4.0, "complex chol upper");
    let b = from_rows_c::<c64>(2, 2, &[(4.0, 3.0), (1.0, 2.0), (1.0, -2.0), (6.0, -1.0)]);
    let want_b = from_rows_c::<c64>(2, 2, &[(2.0, 0.0), (0.0, 0.0), (0.5, -1.0), (2.179449471770337, 0.0)]);
    assert_close(cholesky(b.as_ref(), false, Par::Seq).unwrap().as_ref(), want_b.as_ref(), 4.0, "imag diag");
}

#[test]
fn cholesky_nan_like_numpy() {
    // numpy (OpenBLAS potrf tests only `<= 0`): cholesky([[1, 2], [nan, 4]]) = [[1, 0], [nan, nan]], no error.
    let a = from_rows::<f64>(2, 2, &[1.0, 2.0, f64::NAN, 4.0]);
    let l = cholesky(a.as_ref(), false, Par::Seq).unwrap();
    assert_eq!((l[(0, 0)], l[(0, 1)]), (1.0, 0.0));
    assert!(l[(1, 0)].is_nan() && l[(1, 1)].is_nan());
    // The NaN pattern numpy gives for an HPD matrix with one NaN at (i, j) of the lower triangle:
    // row i from column j to i, every later row from column i; the rest is the clean factor.
    for (n, i0, j0) in [(5, 3, 1), (300, 200, 150), (300, 250, 250)] {
        let clean = rand_hpd::<f64>(n, 77);
        let lc = cholesky(clean.as_ref(), false, Par::rayon(0)).unwrap();
        let mut a = clean.clone();
        a[(i0, j0)] = f64::NAN;
        let l = cholesky(a.as_ref(), false, Par::rayon(0)).unwrap();
        for j in 0..n {
            for i in 0..n {
                let want_nan = i >= j && ((i == i0 && j >= j0) || (i > i0 && j >= i0));
                assert_eq!(l[(i, j)].is_nan(), want_nan, "NaN pattern at ({i}, {j})");
                if !want_nan {
                    assert!((l[(i, j)] - lc[(i, j)]).abs() <= 1e-12 * lc[(i, j)].abs().max(1.0));
                }
            }
        }
    }
    // A non-positive pivot before the NaN is still an error.
    let a = from_rows::<f64>(3, 3, &[-1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, f64::NAN, 1.0]);
    assert_eq!(cholesky(a.as_ref(), false, Par::Seq).unwrap_err(), LinalgErr::NotPositiveDefinite);
}

// ---- qr -----------------------------------------------------------------------------------

fn check_qr<T: Scalar>(a: MatRef<'_, T>, what: &str) {
    let (m, n) = (a.nrows(), a.ncols());
    let k = m.min(n);
    let tol = 100.0 * (m.max(n) as f64);
    let (q, r) = qr(a, QrMode::Reduced, Par::Seq);
    let q = q.unwrap();
    assert_eq!((q.shape(), r.shape()), ((m, k), (k, n)), "{what}: reduced shapes");
    assert_close(matmul_new::<T, _, _>(q.as_ref(), r.as_ref(), Par::Seq).as_ref(), a, tol, what);
    assert!(ortho_err(q.as_ref()) <= tol * eps_of::<T>(), "{what}: Q orthonormal");
    for j in 0..n {
        for i in j + 1..k {
            assert_eq!(r[(i, j)], zero::<T>(), "{what}: R upper");
        }
    }
    for i in 0..k {
        assert_eq!(r[(i, i)].im(), Re::<T>::zero(), "{what}: R's diagonal is real (LAPACK)");
    }
    let (qc, rc) = qr(a, QrMode::Complete, Par::rayon(0));
    let qc = qc.unwrap();
    let mc = if m > n { m } else { k };
    assert_eq!((qc.shape(), rc.shape()), ((m, mc), (mc, n)), "{what}: complete shapes");
    assert_close(matmul_new::<T, _, _>(qc.as_ref(), rc.as_ref(), Par::Seq).as_ref(), a, tol, what);
    assert!(ortho_err(qc.as_ref()) <= tol * eps_of::<T>(), "{what}: complete Q orthonormal");
    assert_close(qc.as_ref().get(.., ..k), q.as_ref(), tol, &format!("{what}: complete Q starts with reduced Q"));
    let (none, rr) = qr(a, QrMode::R, Par::Seq);
    assert!(none.is_none());
    assert_close(rr.as_ref(), r.as_ref(), tol, &format!("{what}: mode r"));
    // faer's real QR and the LAPACK-style QR written here agree: the same convention.
    let (ql, rl) = qr_lapack(a, QrMode::Complete, Par::Seq);
    assert_close(rl.as_ref(), rc.as_ref(), tol, &format!("{what}: lapack-style R"));
    assert_close(ql.unwrap().as_ref(), qc.as_ref(), tol, &format!("{what}: lapack-style Q"));
    if !T::IS_COMPLEX {
        let (qf, rf) = qr_faer(a, QrMode::Complete, Par::Seq);
        assert_close(rf.as_ref(), rc.as_ref(), tol, &format!("{what}: faer R"));
        assert_close(qf.unwrap().as_ref(), qc.as_ref(), tol, &format!("{what}: faer Q"));
    }
}

fn qr_generic<T: Scalar>() {
    for &(m, n) in &[(5, 5), (9, 4), (4, 9), (1, 1), (1, 6), (6, 1), (80, 50), (50, 80), (100, 100), (70, 33)] {
        let a = rand_mat::<T>(m, n, 40 + (m * n) as u64);
        check_qr(a.as_ref(), &format!("qr {m}x{n}"));
        let ar = row_major(a.as_ref());
        check_qr(ar.transpose(), &format!("qr {m}x{n} row-major"));
        let ap = padded(a.as_ref());
        check_qr(padded_view(&ap, m, n), &format!("qr {m}x{n} padded"));
        let (q1, r1) = qr(a.as_ref(), QrMode::Complete, Par::Seq);
        let (q2, r2) = qr(padded_view(&ap, m, n), QrMode::Complete, Par::Seq);
        assert_close(q1.unwrap().as_ref(), q2.unwrap().as_ref(), 100.0, "strided Q");
        assert_close(r1.as_ref(), r2.as_ref(), 100.0, "strided R");
    }
    // Rank-deficient (a zero column: the reflector is the identity there).
    let mut a = rand_mat::<T>(6, 4, 3);
    for i in 0..6 {
        a[(i, 1)] = zero();
    }
    check_qr(a.as_ref(), "qr zero column");
    // numpy: qr([[1, 2], [3, 4], [5, 6]]) (reduced) and the complete Q.
    let a = from_rows::<T>(3, 2, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let (q, r) = qr(a.as_ref(), QrMode::Complete, Par::Seq);
    let want_q = from_rows::<T>(
        3,
        3,
        &[
            -0.16903085094570325,
            0.8970852271450607,
            0.40824829046386274,
            -0.50709255283711,
            0.27602622373694136,
            -0.8164965809277261,
            -0.8451542547285166,
            -0.345032779671177,
            0.40824829046386313,
        ],
    );
    let want_r = from_rows::<T>(3, 2, &[-5.916079783099616, -7.437357441610946, 0.0, 0.8280786712108248, 0.0, 0.0]);
    assert_close(q.unwrap().as_ref(), want_q.as_ref(), 16.0, "numpy Q 3x2");
    assert_close(r.as_ref(), want_r.as_ref(), 16.0, "numpy R 3x2");
    // numpy: qr([[1, 2, 3], [-4, 5, 6]]): Q = [[-0.2425.., 0.9701..], [0.9701.., 0.2425..]],
    // R = [[-4.1231.., 4.3656.., 5.0932..], [0, 3.1529.., 4.3656..]]: the last (1×1) step keeps its sign.
    let w = from_rows::<T>(2, 3, &[1.0, 2.0, 3.0, -4.0, 5.0, 6.0]);
    let (q, r) = qr(w.as_ref(), QrMode::Reduced, Par::Seq);
    let want_q =
        from_rows::<T>(2, 2, &[-0.24253562503633308, 0.970142500145332, 0.970142500145332, 0.24253562503633289]);
    let want_r = from_rows::<T>(
        2,
        3,
        &[-4.123105625617661, 4.365641250653994, 5.093248125762992, 0.0, 3.1529631254723283, 4.365641250653994],
    );
    assert_close(q.unwrap().as_ref(), want_q.as_ref(), 16.0, "numpy Q 2x3");
    assert_close(r.as_ref(), want_r.as_ref(), 16.0, "numpy R 2x3");
    // numpy: R's diagonal of [[-2, 1, 0], [1, 3, 1], [0, 1, -4]] is (2.236.., -3.286.., -4.082..).
    let s = from_rows::<T>(3, 3, &[-2.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, -4.0]);
    let (_, r) = qr(s.as_ref(), QrMode::R, Par::Seq);
    for (i, want) in [2.23606797749979, -3.2863353450309973, -4.08248290463863].into_iter().enumerate() {
        assert_near(r[(i, i)].re().as_f64(), want, 16.0 * eps_of::<T>(), "R diagonal signs");
    }
    // Empty shapes, as numpy: (0,0), (0,3) and (3,0).
    let (q, r) = qr(Mat::<T>::zeros(3, 0).as_ref(), QrMode::Complete, Par::Seq);
    assert_close(q.unwrap().as_ref(), Mat::<T>::identity(3, 3).as_ref(), 0.0, "complete Q of 3x0");
    assert_eq!(r.shape(), (3, 0));
    let (q, r) = qr(Mat::<T>::zeros(3, 0).as_ref(), QrMode::Reduced, Par::Seq);
    assert_eq!((q.unwrap().shape(), r.shape()), ((3, 0), (0, 0)));
    let (q, r) = qr(Mat::<T>::zeros(0, 3).as_ref(), QrMode::Complete, Par::Seq);
    assert_eq!((q.unwrap().shape(), r.shape()), ((0, 0), (0, 3)));
    let (q, r) = qr(Mat::<T>::zeros(0, 0).as_ref(), QrMode::Reduced, Par::Seq);
    assert_eq!((q.unwrap().shape(), r.shape()), ((0, 0), (0, 0)));
}

#[test]
fn qr_all_types() {
    all_types!(qr_generic);
}

#[test]
fn qr_complex_numpy_values() {
    // numpy: qr of [[1+1j, 2], [3-1j, 4j], [0.5, -1+2j]], complete.
    let z = from_rows_c::<c64>(3, 2, &[(1.0, 1.0), (2.0, 0.0), (3.0, -1.0), (0.0, 4.0), (0.5, 0.0), (-1.0, 2.0)]);
    let (q, r) = qr(z.as_ref(), QrMode::Complete, Par::Seq);
    let want_q = from_rows_c::<c64>(
        3,
        3,
        &[
            (-0.2857142857142858, -2.8571428571428570e-01),
            (0.8115009578449588, -1.8151995109689872e-01),
            (0.2211312174247021, 3.1040679974561408e-01),
            (-0.8571428571428571, 2.8571428571428575e-01),
            (-0.0747435092751938, 2.8829639291860393e-01),
            (-0.3033811596918842, 5.4147382052262112e-02),
            (-0.14285714285714288, 6.9388939039072284e-18),
            (-0.23490817200775124, 4.0575047892247940e-01),
            (0.8655056879151964, 1.0332686242837176e-01),
        ],
    );
    let want_r = from_rows_c::<c64>(
        3,
        2,
        &[
            (-3.5, 0.0),
            (0.7142857142857142, -3.142857142857143),
            (0.0, 0.0),
            (3.822596617217044, 0.0),
            (0.0, 0.0),
            (0.0, 0.0),
        ],
    );
    assert_close(q.unwrap().as_ref(), want_q.as_ref(), 16.0, "numpy complex Q");
    assert_close(r.as_ref(), want_r.as_ref(), 16.0, "numpy complex R");
    // numpy: qr of the square [[1+1j, 2-1j], [3-1j, 4j]]: the last 1×1 step makes R[1,1] real too.
    let zs = from_rows_c::<c64>(2, 2, &[(1.0, 1.0), (2.0, -1.0), (3.0, -1.0), (0.0, 4.0)]);
    let (q, r) = qr(zs.as_ref(), QrMode::Reduced, Par::Seq);
    let want_q = from_rows_c::<c64>(
        2,
        2,
        &[
            (-2.8867513459481287e-01, -0.2886751345948129),
            (8.1649658092772615e-01, -0.40824829046386313),
            (-8.6602540378443871e-01, 0.28867513459481287),
            (1.6653345369377348e-16, 0.4082482904638629),
        ],
    );
    let want_r = from_rows_c::<c64>(
        2,
        2,
        &[(-3.4641016151377544, 0.0), (0.8660254037844386, -2.598076211353316), (0.0, 0.0), (3.6742346141747673, 0.0)],
    );
    assert_close(q.unwrap().as_ref(), want_q.as_ref(), 16.0, "numpy complex square Q");
    assert_close(r.as_ref(), want_r.as_ref(), 16.0, "numpy complex square R");
}

// ---- eigh ---------------------------------------------------------------------------------

fn eigh_generic<T: Scalar>() {
    for &n in &[1, 2, 9, 60, 200] {
        let h = rand_herm::<T>(n, 50 + n as u64);
        let tol = 100.0 * n as f64;
        let (w, v) = eigh(h.as_ref(), true, Par::Seq).unwrap();
        assert!(w.windows(2).all(|p| p[0] <= p[1]), "ascending");
        assert!(ortho_err(v.as_ref()) <= tol * eps_of::<T>(), "orthonormal");
        let vw = matmul_new::<T, _, _>(v.as_ref(), diag_mat::<T>(n, n, &w).as_ref(), Par::Seq);
        let rec = matmul_new::<T, _, _>(vw.as_ref(), v.adjoint(), Par::Seq);
        assert_close(rec.as_ref(), h.as_ref(), tol, "V diag(w) V^H");
        let w2 = eigvalsh(h.as_ref(), true, Par::rayon(0)).unwrap();
        for (x, y) in w.iter().zip(&w2) {
            assert_near(x.as_f64(), y.as_f64(), tol * eps_of::<T>(), "eigvalsh = eigh's w");
        }
        // Only the named triangle: garbage in the other one (and in the diagonal's imaginary part).
        let mut gl = h.clone();
        let mut gu = h.clone();
        for j in 0..n {
            for i in 0..j {
                gl[(i, j)] = c(f64::NAN, 1.0);
            }
            for i in j + 1..n {
                gu[(i, j)] = c(f64::INFINITY, 1.0);
            }
            gl[(j, j)] = T::from_parts(h[(j, j)].re(), Re::<T>::of_f64(9.0));
        }
        let wl = eigvalsh(gl.as_ref(), true, Par::Seq).unwrap();
        let (wu, vu) = eigh(gu.as_ref(), false, Par::Seq).unwrap();
        for i in 0..n {
            assert_near(wl[i].as_f64(), w[i].as_f64(), tol * eps_of::<T>(), "lower only");
            assert_near(wu[i].as_f64(), w[i].as_f64(), tol * eps_of::<T>(), "upper only");
        }
        let rec = matmul_new::<T, _, _>(
            matmul_new::<T, _, _>(vu.as_ref(), diag_mat::<T>(n, n, &wu).as_ref(), Par::Seq).as_ref(),
            vu.adjoint(),
            Par::Seq,
        );
        assert_close(rec.as_ref(), h.as_ref(), tol, "upper reconstruction");
        // Strided views.
        let hr = row_major(h.as_ref());
        let hp = padded(h.as_ref());
        for view in [hr.transpose(), padded_view(&hp, n, n)] {
            let ws = eigvalsh(view, true, Par::Seq).unwrap();
            for i in 0..n {
                assert_near(ws[i].as_f64(), w[i].as_f64(), tol * eps_of::<T>(), "strided eigvalsh");
            }
        }
    }
    // numpy: eigvalsh of the second-difference matrix = [0.585786437626905, 1.9999999999999998, 3.414213562373095]
    let t = from_rows::<T>(3, 3, &[2.0, -1.0, 0.0, -1.0, 2.0, -1.0, 0.0, -1.0, 2.0]);
    let w = eigvalsh(t.as_ref(), true, Par::Seq).unwrap();
    for (x, y) in w.iter().zip([0.585786437626905, 1.9999999999999998, 3.414213562373095]) {
        assert_near(x.as_f64(), y, 16.0 * eps_of::<T>(), "numpy eigvalsh");
    }
    // NaN/inf in the read triangle: numpy's LinAlgError (for all but tiny matrices).
    let mut bad = rand_herm::<T>(6, 1);
    bad[(3, 2)] = c(f64::NAN, 0.0);
    assert_eq!(eigh(bad.as_ref(), true, Par::Seq).unwrap_err(), LinalgErr::NoConvergence(EIG_NO_CONVERGENCE));
    assert_eq!(eigvalsh(bad.as_ref(), true, Par::Seq).unwrap_err(), LinalgErr::NoConvergence(EIG_NO_CONVERGENCE));
    assert!(eigvalsh(bad.as_ref(), false, Par::Seq).is_ok(), "the NaN is not in the upper triangle");
    // 0×0
    let (w, v) = eigh(Mat::<T>::zeros(0, 0).as_ref(), true, Par::Seq).unwrap();
    assert_eq!((w.len(), v.shape()), (0, (0, 0)));
}

#[test]
fn eigh_all_types() {
    all_types!(eigh_generic);
}

#[test]
fn eigh_complex_numpy_values() {
    // numpy: eigvalsh([[2, 1-1j, 0], [1+1j, 3, 2j], [0, -2j, 1]]) =
    // [-0.4892885718100789, 1.7108314535516893, 4.7784571182583875]
    let h = from_rows_c::<c64>(
        3,
        3,
        &[(2.0, 0.0), (1.0, -1.0), (0.0, 0.0), (1.0, 1.0), (3.0, 0.0), (0.0, 2.0), (0.0, 0.0), (0.0, -2.0), (1.0, 0.0)],
    );
    for lower in [true, false] {
        let w = eigvalsh(h.as_ref(), lower, Par::Seq).unwrap();
        for (x, y) in w.iter().zip([-0.4892885718100789, 1.7108314535516893, 4.7784571182583875]) {
            assert_near(*x, y, 1e-14, "numpy complex eigvalsh");
        }
    }
}

// ---- eig ----------------------------------------------------------------------------------

fn check_eig<T: Scalar>(a: MatRef<'_, T>, what: &str)
where
    Complex<Re<T>>: Scalar,
{
    let n = a.nrows();
    let tol = 1e3 * n as f64;
    let (w, v) = eig(a, Par::Seq).unwrap();
    let zr = Re::<T>::zero();
    let ac: Mat<Complex<Re<T>>> = Mat::from_fn(n, n, |i, j| Complex::new(a[(i, j)].re(), a[(i, j)].im()));
    let av = matmul_new::<Complex<Re<T>>, _, _>(ac.as_ref(), v.as_ref(), Par::Seq);
    let vw = Mat::from_fn(n, n, |i, j| v[(i, j)] * w[j]);
    assert_close(av.as_ref(), vw.as_ref(), tol * (1.0 + max_abs(ac.as_ref())), what);
    let mut j = 0;
    while j < n {
        let col = v.as_ref().col(j);
        assert_near(col.norm_l2().as_f64(), 1.0, 16.0 * eps_of::<T>() * n as f64, "unit norm");
        // The largest component is real (positive for complex vectors), up to rounding ties.
        let best = (0..n).map(|i| abs_of(col[i])).fold(0.0, f64::max);
        let real_top = (0..n).any(|i| col[i].im == zr && col[i].re > zr && abs_of(col[i]) >= best * (1.0 - 1e-4));
        let pair = !T::IS_COMPLEX && w[j].im != zr;
        if T::IS_COMPLEX || pair {
            assert!(real_top, "{what}: largest component of column {j} is real and positive");
        }
        if pair {
            assert!(w[j].im > zr && j + 1 < n && w[j + 1] == w[j].conj(), "{what}: pair with positive im first");
            for i in 0..n {
                assert_eq!(v[(i, j + 1)], v[(i, j)].conj(), "{what}: conjugate vectors");
            }
            j += 2;
        } else {
            if !T::IS_COMPLEX {
                assert!((0..n).all(|i| v[(i, j)].im == zr), "{what}: real eigenvalue, real vector");
            }
            j += 1;
        }
    }
    let w2 = eigvals(a, Par::rayon(0)).unwrap();
    let mut s1: Vec<(f64, f64)> = w.iter().map(|z| (z.re.as_f64(), z.im.as_f64())).collect();
    let mut s2: Vec<(f64, f64)> = w2.iter().map(|z| (z.re.as_f64(), z.im.as_f64())).collect();
    s1.sort_by(|a, b| a.partial_cmp(b).unwrap());
    s2.sort_by(|a, b| a.partial_cmp(b).unwrap());
    for (x, y) in s1.iter().zip(&s2) {
        assert!((x.0 - y.0).abs() + (x.1 - y.1).abs() <= tol * eps_of::<T>() * 10.0, "{what}: eigvals = eig's w");
    }
}

fn eig_generic<T: Scalar>()
where
    Complex<Re<T>>: Scalar,
{
    for &n in &[1, 2, 5, 30, 90] {
        let a = rand_mat::<T>(n, n, 60 + n as u64);
        check_eig(a.as_ref(), &format!("eig {n}"));
        let ar = row_major(a.as_ref());
        check_eig(ar.transpose(), &format!("eig {n} row-major"));
        let ap = padded(a.as_ref());
        check_eig(padded_view(&ap, n, n), &format!("eig {n} padded"));
    }
    // numpy: eig([[0, -1], [1, 0]]) = [1j, -1j], vectors [[0.7071, 0.7071], [-0.7071j, 0.7071j]]
    let r = from_rows::<T>(2, 2, &[0.0, -1.0, 1.0, 0.0]);
    let (w, v) = eig(r.as_ref(), Par::Seq).unwrap();
    let h = core::f64::consts::FRAC_1_SQRT_2;
    let mut ws: Vec<(f64, f64)> = w.iter().map(|z| (z.re.as_f64(), z.im.as_f64())).collect();
    ws.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap());
    assert!((ws[0].1 - 1.0).abs() < 1e-6 && (ws[1].1 + 1.0).abs() < 1e-6 && ws[0].0.abs() < 1e-6);
    if !T::IS_COMPLEX {
        // The pair is (i, -i) in this order with numpy's vectors.
        assert!(w[0].im > Re::<T>::zero());
        let want = [(h, 0.0), (0.0, -h)];
        for i in 0..2 {
            assert!(
                (v[(i, 0)].re.as_f64() - want[i].0).abs() < 1e-6 && (v[(i, 0)].im.as_f64() - want[i].1).abs() < 1e-6
            );
        }
    }
    // numpy: eig([[2, 1], [0, 3]]) = [2, 3] with vectors [1, 0] and [0.7071, 0.7071] (up to sign).
    let u = from_rows::<T>(2, 2, &[2.0, 1.0, 0.0, 3.0]);
    let (w, v) = eig(u.as_ref(), Par::Seq).unwrap();
    for j in 0..2 {
        let want: [f64; 2] = if (w[j].re.as_f64() - 2.0).abs() < 1e-6 { [1.0, 0.0] } else { [h, h] };
        let sgn = if v[(0, j)].re.as_f64() + v[(1, j)].re.as_f64() < 0.0 { -1.0 } else { 1.0 };
        for i in 0..2 {
            assert!((sgn * v[(i, j)].re.as_f64() - want[i]).abs() < 1e-6 && v[(i, j)].im.as_f64() == 0.0);
        }
    }
    // Any inf or NaN: numpy's LinAlgError("Array must not contain infs or NaNs").
    for bad in [f64::NAN, f64::INFINITY] {
        let a = from_rows::<T>(2, 2, &[1.0, bad, 2.0, 4.0]);
        assert_eq!(eig(a.as_ref(), Par::Seq).unwrap_err(), LinalgErr::NonFinite);
        assert_eq!(eigvals(a.as_ref(), Par::Seq).unwrap_err(), LinalgErr::NonFinite);
    }
    // 0×0
    let (w, v) = eig(Mat::<T>::zeros(0, 0).as_ref(), Par::Seq).unwrap();
    assert_eq!((w.len(), v.shape()), (0, (0, 0)));
}

#[test]
fn eig_all_types() {
    all_types!(eig_generic);
}

#[test]
fn eig_numpy_values() {
    // numpy: eig([[1, 2, 0], [-2, 1, 1], [0, 0, 3]]) = [1+2j, 1-2j, 3]; vectors
    // [[-0.7071j, 0.7071j, 0.2357], [0.7071, 0.7071, 0.2357], [0, 0, 0.9428]].
    let g = from_rows::<f64>(3, 3, &[1.0, 2.0, 0.0, -2.0, 1.0, 1.0, 0.0, 0.0, 3.0]);
    let (w, v) = eig(g.as_ref(), Par::Seq).unwrap();
    let h = core::f64::consts::FRAC_1_SQRT_2;
    let j = w.iter().position(|z| z.im > 0.5).unwrap();
    assert!((w[j] - c64::new(1.0, 2.0)).norm() < 1e-14 && (w[j + 1] - c64::new(1.0, -2.0)).norm() < 1e-14);
    // numpy's largest component is the second (0.7071067811865476 against 0.7071067811865475), made real;
    // these two tie within rounding, so compare up to which of the two is real.
    let vj: Vec<c64> = (0..3).map(|i| v[(i, j)]).collect();
    let phase = if vj[1].im == 0.0 { c64::new(1.0, 0.0) } else { c64::new(0.0, -1.0) };
    let want = [c64::new(0.0, -h), c64::new(h, 0.0), c64::new(0.0, 0.0)];
    for i in 0..3 {
        assert!((vj[i] * phase - want[i]).norm() < 1e-12, "numpy eig vector {vj:?}");
    }
    let k = w.iter().position(|z| (z.re - 3.0).abs() < 1e-9).unwrap();
    let s = v[(2, k)].re.signum();
    for (i, want) in [0.23570226039551587, 0.23570226039551587, 0.9428090415820635].into_iter().enumerate() {
        assert!((s * v[(i, k)].re - want).abs() < 1e-12 && v[(i, k)].im == 0.0);
    }
    // numpy: eig([[1+1j, 2], [0.5j, -1]]) = [1.2012+1.3325j, -1.2012-0.3325j], the largest component
    // of each vector real and positive: [[0.98164, -0.52500+0.31779j], [0.09878+0.16318j, 0.78955]].
    let gc = from_rows_c::<c64>(2, 2, &[(1.0, 1.0), (2.0, 0.0), (0.0, 0.5), (-1.0, 0.0)]);
    let (w, v) = eig(gc.as_ref(), Par::Seq).unwrap();
    let want_w = [c64::new(1.201249544501346, 1.3324664967220547), c64::new(-1.2012495445013462, -0.33246649672205514)];
    let want_v = [
        [c64::new(0.9816389443244076, 0.0), c64::new(0.09877719520503464, 0.16318103043273613)],
        [c64::new(-0.5249966822253148, 0.3177924518839301), c64::new(0.7895482513298423, 0.0)],
    ];
    for (jw, ww) in want_w.iter().enumerate() {
        let j = w.iter().position(|z| (z - ww).norm() < 1e-12).expect("numpy eigenvalue");
        for i in 0..2 {
            assert!((v[(i, j)] - want_v[jw][i]).norm() < 1e-12, "numpy complex eig vector");
        }
    }
}

// ---- svd ----------------------------------------------------------------------------------

fn check_svd<T: Scalar>(a: MatRef<'_, T>, what: &str) {
    let (m, n) = (a.nrows(), a.ncols());
    let k = m.min(n);
    let tol = 200.0 * m.max(n).max(1) as f64;
    for full in [true, false] {
        let Svd { u, s, vh } = svd(a, full, true, Par::Seq).unwrap();
        let (u, vh) = (u.unwrap(), vh.unwrap());
        let (uc, vr) = if full { (m, n) } else { (k, k) };
        assert_eq!((u.shape(), s.len(), vh.shape()), ((m, uc), k, (vr, n)), "{what}: shapes");
        assert!(s.windows(2).all(|p| p[0] >= p[1]) && s.iter().all(|&x| x >= Re::<T>::zero()), "{what}: s");
        assert!(ortho_err(u.as_ref()) <= tol * eps_of::<T>(), "{what}: U orthonormal");
        assert!(ortho_err(vh.adjoint().to_owned().as_ref()) <= tol * eps_of::<T>(), "{what}: Vh orthonormal");
        let us = matmul_new::<T, _, _>(u.as_ref(), diag_mat::<T>(uc, vr, &s).as_ref(), Par::Seq);
        assert_close(matmul_new::<T, _, _>(us.as_ref(), vh.as_ref(), Par::Seq).as_ref(), a, tol, what);
        let s2 = svd(a, full, false, Par::rayon(0)).unwrap();
        assert!(s2.u.is_none() && s2.vh.is_none());
        for (x, y) in s.iter().zip(&s2.s) {
            assert_near(x.as_f64(), y.as_f64(), tol * eps_of::<T>() * s[0].as_f64().max(1.0), "values only");
        }
    }
}

fn m3_like<T: Scalar>() -> Mat<T> {
    from_rows::<T>(3, 3, &[3.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
}

fn svd_generic<T: Scalar>() {
    for &(m, n) in &[(4, 4), (9, 4), (4, 9), (1, 5), (5, 1), (60, 60), (150, 40), (40, 150), (200, 130)] {
        let a = rand_mat::<T>(m, n, 70 + (m * n) as u64);
        check_svd(a.as_ref(), &format!("svd {m}x{n}"));
        let ar = row_major(a.as_ref());
        check_svd(ar.transpose(), &format!("svd {m}x{n} row-major"));
        let ap = padded(a.as_ref());
        check_svd(padded_view(&ap, m, n), &format!("svd {m}x{n} padded"));
    }
    // Rank-deficient: an outer product has one nonzero singular value.
    let x = rand_mat::<T>(7, 1, 1);
    let y = rand_mat::<T>(1, 5, 2);
    let r1 = matmul_new::<T, _, _>(x.as_ref(), y.as_ref(), Par::Seq);
    check_svd(r1.as_ref(), "rank 1");
    let s = svd(r1.as_ref(), false, false, Par::Seq).unwrap().s;
    assert!(s[1].as_f64() <= 100.0 * eps_of::<T>() * s[0].as_f64());
    // Entries near the top and the bottom of the type's range (a rank-one float32 matrix of 1e20s
    // did not converge before the matrix was scaled, as LAPACK scales it): exact powers of two
    // scale back exactly, so the values are those of the unscaled matrix times the factor.
    let big = if <T::Real as Float>::epsilon().as_f64() < 1e-10 { [1e300, 1e-300] } else { [1e36, 1e-36] };
    for f in big {
        for a in [r1.clone(), m3_like::<T>()] {
            let scaled = Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[(i, j)].scale(T::Real::of_f64(f)));
            check_svd(scaled.as_ref(), &format!("svd scaled by {f:e}"));
            let (s, s1) = (
                svd(a.as_ref(), false, false, Par::Seq).unwrap().s,
                svd(scaled.as_ref(), false, false, Par::Seq).unwrap().s,
            );
            assert_near(s1[0].as_f64() / f, s[0].as_f64(), 64.0 * eps_of::<T>() * s[0].as_f64(), "scaled svd values");
        }
    }
    // numpy: svd values of [[1, 2], [3, 4], [5, 6]] and [[1, 2, 3], [-4, 5, 6]].
    let m3 = from_rows::<T>(3, 2, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let w2 = from_rows::<T>(2, 3, &[1.0, 2.0, 3.0, -4.0, 5.0, 6.0]);
    for (a, want) in [(m3, [9.525518091565107, 0.514300580658644]), (w2, [9.225027715260927, 2.4287576356375586])] {
        let s = svd(a.as_ref(), false, false, Par::Seq).unwrap().s;
        for (x, y) in s.iter().zip(want) {
            assert_near(x.as_f64(), y, 32.0 * eps_of::<T>(), "numpy svd values");
        }
    }
    // NaN: numpy's LinAlgError("SVD did not converge"); inf without NaN: NaN singular values.
    let nan_m = from_rows::<T>(2, 2, &[1.0, 2.0, f64::NAN, 4.0]);
    assert_eq!(svd(nan_m.as_ref(), true, true, Par::Seq).unwrap_err(), LinalgErr::NoConvergence(SVD_NO_CONVERGENCE));
    assert_eq!(svd(nan_m.as_ref(), true, false, Par::Seq).unwrap_err(), LinalgErr::NoConvergence(SVD_NO_CONVERGENCE));
    let inf_m = from_rows::<T>(3, 2, &[1.0, f64::INFINITY, 2.0, 4.0, 0.0, 1.0]);
    let r = svd(inf_m.as_ref(), true, true, Par::Seq).unwrap();
    assert!(r.s.len() == 2 && r.s.iter().all(|x| Float::is_nan(*x)));
    assert_eq!((r.u.unwrap().shape(), r.vh.unwrap().shape()), ((3, 3), (2, 2)));
    // Empty shapes as numpy: u of 3×0 and vh of 0×3 are identities with full_matrices.
    let r = svd(Mat::<T>::zeros(3, 0).as_ref(), true, true, Par::Seq).unwrap();
    assert_close(r.u.unwrap().as_ref(), Mat::<T>::identity(3, 3).as_ref(), 0.0, "u of 3x0");
    assert_eq!((r.s.len(), r.vh.unwrap().shape()), (0, (0, 0)));
    let r = svd(Mat::<T>::zeros(0, 3).as_ref(), true, true, Par::Seq).unwrap();
    assert_close(r.vh.unwrap().as_ref(), Mat::<T>::identity(3, 3).as_ref(), 0.0, "vh of 0x3");
    assert_eq!(r.u.unwrap().shape(), (0, 0));
    let r = svd(Mat::<T>::zeros(0, 3).as_ref(), false, true, Par::Seq).unwrap();
    assert_eq!((r.u.unwrap().shape(), r.vh.unwrap().shape()), ((0, 0), (0, 3)));
    let r = svd(Mat::<T>::zeros(3, 0).as_ref(), false, true, Par::Seq).unwrap();
    assert_eq!((r.u.unwrap().shape(), r.vh.unwrap().shape()), ((3, 0), (0, 0)));
    assert!(svd(Mat::<T>::zeros(0, 0).as_ref(), true, false, Par::Seq).unwrap().s.is_empty());
}

#[test]
fn svd_all_types() {
    all_types!(svd_generic);
}

#[test]
fn svd_complex_numpy_values() {
    // numpy: svd values of [[1+1j, 2], [3-1j, 4j], [0.5, -1+2j]] = [5.619809736783138, 2.3807012669290186]
    let z = from_rows_c::<c64>(3, 2, &[(1.0, 1.0), (2.0, 0.0), (3.0, -1.0), (0.0, 4.0), (0.5, 0.0), (-1.0, 2.0)]);
    let s = svd(z.as_ref(), true, false, Par::Seq).unwrap().s;
    assert_near(s[0], 5.619809736783138, 1e-14, "complex svd");
    assert_near(s[1], 2.3807012669290186, 1e-14, "complex svd");
}

// ---- lstsq, pinv, matrix_rank -------------------------------------------------------------
