//! The single-precision SVD on the GPU (float32, complex64) through the Gram matrix in double
//! precision: for the tall side `t` of `a` (`a` itself, or `aᴴ` when `a` is wide), `G = tᴴt` in
//! float64 (complex128), `G = V diag(w) Vᴴ` by cuSOLVER's `syevd`/`heevd`, `B = tV = U Σ`, and
//! `B = QR` (Householder): `U = Q · phase(diag R)`, `Σ = sqrt(max(w, 0))` in descending order.
//!
//! Why: cuSOLVER's single-precision `gesvd` is a long chain of small kernels (100 ms for a 1024²
//! float32 matrix on an H200, where this route takes 15), and its one-sided Jacobi (`gesvdj`) is
//! 3e-5 off in float32. Squaring `a` doubles the exponent of its condition number `κ`, but in
//! float64: the error is about `ε₆₄ κ²` against single-precision LAPACK's `ε₃₂ κ`, smaller while
//! `κ < ε₃₂/ε₆₄ ≈ 5e8`, and beyond that a float32 matrix's smallest singular values are rounding
//! noise in either. float64 holds the square of every float32 (1e±77 at most, subnormals
//! included), so nothing overflows or underflows that did not in `a`. Measured against NumPy's
//! float64 SVD of the same float32 entries (`bench/probes/svd/gram.py`, H200): singular values 3e-8
//! of `s_max` off (gesvd 2e-6), reconstruction 4e-8 (2e-6), `U` and `V` orthonormal to 6e-7 (3e-5),
//! for Gaussian matrices, graded ones of condition 1e3..1e9, rank-deficient ones and entries of
//! 1e-30 and 1e30. Double-precision input stays with `gesvdj`/`gesvd` ([`super::svd`]): there the
//! square would cost accuracy.

use super::super::{eigh, eigvalsh, qr_with, QrMode};
use crate::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::slice::SliceElem;

/// `aᴴ` over the last two axes (a view; conjugated for complex).
fn herm(a: &Array) -> Result<Array> {
    let t = a.swapaxes(-1, -2)?;
    if t.dtype().is_complex() {
        t.conj()
    } else {
        Ok(t)
    }
}

/// `x[..., lo:hi]`, a view.
fn last_cols(x: &Array, lo: usize, hi: usize) -> Result<Array> {
    x.slice([SliceElem::Ellipsis, SliceElem::Slice { start: Some(lo as isize), end: Some(hi as isize), step: 1 }])
}

/// `numpy.linalg.svd` of a float32 or complex64 stack on the GPU by the Gram route (module
/// docs), into [`super::svd`]'s outputs: `s` `(…, k)`, and with `u`/`vh` (`full` or economy
/// shapes) the singular vectors. `LinAlgError("SVD did not converge")` for inf or NaN input, as
/// LAPACK's (and NumPy's) SVD reports it.
pub(super) fn svd(a: &Array, full: bool, u: Option<&Array>, s: &Array, vh: Option<&Array>) -> Result<()> {
    let dt = a.dtype();
    let hi = match dt {
        DType::Float32 => DType::Float64,
        DType::Complex64 => DType::Complex128,
        other => return Err(Error::UnsupportedDType { op: "svd through the Gram matrix".into(), dtype: other }),
    };
    if !crate::all(&a.isfinite()?, None)?.item::<bool>()? {
        return Err(Error::LinAlg("SVD did not converge".into()));
    }
    let nd = a.ndim();
    let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let (k, tall_rows) = (m.min(n), m.max(n));
    let wide = m < n;
    // The tall side, in double precision: `t` is `(…, tall_rows, k)`.
    let t = (if wide { herm(a)? } else { a.clone() }).astype(hi)?;
    let g = crate::matmul(&herm(&t)?, &t)?;
    let (u, vh) = match (u, vh) {
        (Some(u), Some(vh)) => (u, vh),
        _ => {
            let w = eigvalsh(&g)?;
            let sv = crate::sqrt(&crate::maximum(&w.flip(-1)?, 0.0)?)?;
            return crate::ufunc::assign(s, &sv);
        }
    };
    let r = eigh(&g)?;
    // Descending: syevd's eigenvalues ascend.
    let (w, v) = (r.eigenvalues.flip(-1)?, r.eigenvectors.flip(-1)?);
    crate::ufunc::assign(s, &crate::sqrt(&crate::maximum(&w, 0.0)?)?)?;
    // B = tV = UΣ; its QR gives U's columns up to phase (orthonormal even where Σ has zeros,
    // and completed to a square `U` for `full`).
    let b = crate::matmul(&t, &v)?;
    let mode = if full && tall_rows > k { QrMode::Complete } else { QrMode::Reduced };
    let f = qr_with(&b, mode)?;
    let q = f.q.expect("qr computes q in this mode");
    // R's diagonal is Σ times the phase of U's column: U = Q · phase(diag R) (phase 1 where the
    // diagonal is 0).
    let d = f.r.diagonal_with(0, -2, -1)?;
    let ad = d.abs()?;
    let phase = crate::where_(&crate::equal(&ad, 0.0)?, 1.0, &crate::divide(&d, &ad)?)?;
    let mut qk = last_cols(&q, 0, k)?;
    qk.assign(&crate::multiply(&qk, &phase.expand_dims(-2)?)?)?;
    if wide {
        // a = tᴴ = (Q Σ Vᴴ)ᴴ = V Σ Qᴴ.
        crate::ufunc::assign(u, &v)?;
        crate::ufunc::assign(vh, &herm(&q)?)
    } else {
        crate::ufunc::assign(u, &q)?;
        crate::ufunc::assign(vh, &herm(&v)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Device;

    fn f64s(x: &Array) -> Vec<f64> {
        x.to_vec_as::<f64>().unwrap()
    }

    /// `|x|` (Frobenius over the whole stack).
    fn norm(x: &Array) -> f64 {
        f64s(&crate::linalg::norm(x).unwrap())[0]
    }

    /// The route's algebra on the CPU backend (every step is an array operation, so it runs on
    /// either device; the suite's `linalg_gram_svd_*` runs it on a GPU): shapes, descending
    /// values equal to LAPACK's, orthonormal factors and the reconstruction, for tall, wide, full,
    /// economy, real and complex, and a zero matrix (R's zero diagonal: phase 1).
    #[test]
    fn gram_route_factors() {
        let cpu = Device::Cpu;
        let alloc = |shape: &[usize], dt: DType| Array::alloc(shape, dt, cpu, false).unwrap();
        for (dt, shape, full) in [
            (DType::Float32, [2, 7, 5], false),
            (DType::Float32, [2, 5, 7], true),
            (DType::Complex64, [1, 6, 4], true),
            (DType::Complex64, [3, 4, 6], false),
        ] {
            let (b, m, n) = (shape[0], shape[1], shape[2]);
            let k = m.min(n);
            let x = crate::arange((b * m * n) as i64, &cpu).unwrap().astype(DType::Float64).unwrap();
            let re = x.multiply(1.3).unwrap().sin().unwrap();
            let a = if dt.is_complex() {
                let im = x.cos().unwrap().multiply(crate::Complex::new(0.0, 1.0)).unwrap();
                re.add(&im).unwrap()
            } else {
                re
            };
            let a = a.reshape(shape).unwrap().astype(dt).unwrap();
            let (uc, vr) = if full { (m, n) } else { (k, k) };
            let (u, s, vh) = (alloc(&[b, m, uc], dt), alloc(&[b, k], dt.real_dtype()), alloc(&[b, vr, n], dt));
            svd(&a, full, Some(&u), &s, Some(&vh)).unwrap();
            let hi = if dt.is_complex() { DType::Complex128 } else { DType::Float64 };
            let (sv, want) = (f64s(&s), f64s(&crate::linalg::svdvals(&a.astype(hi).unwrap()).unwrap()));
            for (x, y) in sv.iter().zip(&want) {
                assert!((x - y).abs() <= 1e-5 * want[0], "{dt} {shape:?}: {sv:?} against {want:?}");
            }
            let upto = SliceElem::Slice { start: None, end: Some(k as isize), step: 1 };
            let all = SliceElem::Slice { start: None, end: None, step: 1 };
            let uk = u.slice([SliceElem::Ellipsis, upto]).unwrap();
            let vk = vh.slice([SliceElem::Ellipsis, upto, all]).unwrap();
            let rec = crate::matmul(&uk.multiply(s.expand_dims(-2).unwrap()).unwrap(), &vk).unwrap();
            let d = norm(&rec.subtract(&a).unwrap());
            assert!(d <= 1e-5 * want[0], "{dt} {shape:?}: |U S Vᴴ - A| = {d}");
            for (f, what) in [(u.clone(), "u"), (herm(&vh).unwrap(), "vh")] {
                let eye = crate::eye(f.shape()[2], dt, &cpu).unwrap();
                let off = norm(&crate::matmul(&herm(&f).unwrap(), &f).unwrap().subtract(&eye).unwrap());
                assert!(off <= 1e-5, "{dt} {shape:?}: {what} not orthonormal ({off})");
            }
        }
        // A zero matrix: s = 0, and U, V still orthonormal (full).
        let z = crate::zeros(&[4, 3], DType::Float32, &cpu).unwrap();
        let (u, s, vh) = (alloc(&[4, 4], DType::Float32), alloc(&[3], DType::Float32), alloc(&[3, 3], DType::Float32));
        svd(&z, true, Some(&u), &s, Some(&vh)).unwrap();
        assert_eq!(s.to_vec::<f32>().unwrap(), vec![0.0; 3]);
        for (f, c) in [(&u, 4), (&vh, 3)] {
            let ff = crate::matmul(&f.t(), f).unwrap();
            assert!(crate::allclose(&ff, &crate::eye(c, DType::Float32, &cpu).unwrap()).unwrap(), "zero matrix");
        }
        let nan = crate::full(&[3, 3], f64::NAN, DType::Float32, &cpu).unwrap();
        assert_eq!(svd(&nan, false, None, &s, None).unwrap_err().to_string(), "SVD did not converge");
    }
}
