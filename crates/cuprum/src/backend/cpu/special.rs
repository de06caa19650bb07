//! `scipy.special`'s functions of one float64 argument, for the CPU ufunc loops (float32 loops
//! compute in float64 and round, as SciPy's do). The GPU's are `include/special.cuh`.
//!
//! `erf` and `erfc` are musl's (through `libm`, within an ulp); `ndtr` is SciPy's formula over
//! them; `ndtri` is the root of `ndtr`, refined from Abramowitz and Stegun's 26.2.23 by
//! Halley's method in a form that keeps its relative precision (see [`ndtri`]).

use std::f64::consts::{FRAC_1_SQRT_2, PI};

pub(crate) fn erf(x: f64) -> f64 {
    libm::erf(x)
}

pub(crate) fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

/// The standard normal CDF, as SciPy's `ndtr`: `0.5 + 0.5 erf(x/√2)` near 0, `0.5 erfc(|x|/√2)`
/// (or one less it) in the tails, where `erf` would lose the small side's digits.
pub(crate) fn ndtr(a: f64) -> f64 {
    if a.is_nan() {
        return a;
    }
    let x = a * FRAC_1_SQRT_2;
    let z = x.abs();
    if z < FRAC_1_SQRT_2 {
        0.5 + 0.5 * erf(x)
    } else {
        let y = 0.5 * erfc(z);
        if x > 0.0 {
            1.0 - y
        } else {
            y
        }
    }
}

/// The inverse of [`ndtr`]: `-inf` at 0, `inf` at 1, NaN outside [0, 1].
///
/// Halley's method on a function whose value keeps its relative precision near the root: about
/// the centre (`|p - 0.5| <= 0.25`, where `p - 0.5` is exact) `erf(x/√2)/2 - (p - 0.5)`, so that
/// a root near 0 is found to its last digits; in the tails `erfc(|x|/√2)/2 - q` with `q` the
/// smaller tail (`1 - p` is exact for `p >= 0.5`), so that `p = 1e-300` is found as well as
/// `0.01`. The start is the centre's series or A&S 26.2.23 (error under 4.5e-4); the cubic
/// convergence reaches the float64 answer in two or three steps.
pub(crate) fn ndtri(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    let sqrt_2pi = (2.0 * PI).sqrt();
    let d = p - 0.5;
    if d.abs() <= 0.25 {
        // x = u + u³/6 + 7u⁵/120 + ... with u = √(2π) d.
        let u = sqrt_2pi * d;
        let u2 = u * u;
        let mut x = u * (1.0 + u2 * (1.0 / 6.0 + u2 * (7.0 / 120.0)));
        for _ in 0..8 {
            let f = 0.5 * erf(x * FRAC_1_SQRT_2) - d;
            let dx = f * sqrt_2pi * (0.5 * x * x).exp();
            let step = dx / (1.0 + 0.5 * x * dx);
            x -= step;
            if step.abs() <= 1e-17 * x.abs() {
                break;
            }
        }
        return x;
    }
    // The lower tail's root x < 0 of erfc(-x/√2)/2 = q.
    let upper = d > 0.0;
    let q = if upper { 1.0 - p } else { p };
    let t = (-2.0 * q.ln()).sqrt();
    let mut x =
        -(t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
    if q < 1e-290 {
        // ndtr's values this far out are subnormal or near it (their own rounding is most of
        // their value): Newton's method on log ndtr instead, from its asymptotic series.
        let ln_q = q.ln();
        for _ in 0..8 {
            let (ln_phi, dlog) = ln_ndtr_far(x);
            let step = (ln_phi - ln_q) / dlog;
            x -= step;
            if step.abs() <= 1e-17 * x.abs() {
                break;
            }
        }
        return if upper { -x } else { x };
    }
    for _ in 0..8 {
        let f = 0.5 * erfc(-x * FRAC_1_SQRT_2) - q;
        let pdf = (-0.5 * x * x).exp() / sqrt_2pi;
        if pdf == 0.0 {
            break;
        }
        let dx = f / pdf;
        let step = dx / (1.0 + 0.5 * x * dx);
        x -= step;
        if step.abs() <= 1e-17 * x.abs() {
            break;
        }
    }
    if upper {
        -x
    } else {
        x
    }
}

/// `log ndtr(x)` for `x < -30` and its derivative `ndtr'(x)/ndtr(x)`, from the asymptotic series
/// `ndtr(x) = pdf(x)/|x| · S`, `S = Σ (-1)ᵏ (2k-1)!! / x²ᵏ` (its terms fall below 1e-25 here).
fn ln_ndtr_far(x: f64) -> (f64, f64) {
    let x2 = x * x;
    let (mut s, mut term) = (0.0, 1.0);
    for k in 0..10 {
        s += term;
        term *= -(2 * k + 1) as f64 / x2;
    }
    let ln = -0.5 * x2 - (-x).ln() - 0.5 * (2.0 * PI).ln() + s.ln();
    (ln, -x / s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ndtri inverts ndtr to float64 precision across the range, the tails included.
    #[test]
    fn ndtri_inverts_ndtr() {
        // Up to p's own rounding near 0.5 (an ulp of p moves x by about 3e-16 there).
        for &x in &[-37.5, -30.0, -20.0, -8.0, -3.0, -1.0, -0.5, -1e-3, -1e-12, 0.0, 1e-12, 1e-3, 0.5, 1.0] {
            let p = ndtr(x);
            let back = ndtri(p);
            let tol = 1e-14 * x.abs() + 4e-16;
            assert!((back - x).abs() <= tol, "ndtri(ndtr({x})) = {back}");
        }
        assert_eq!(ndtri(0.0), f64::NEG_INFINITY);
        assert_eq!(ndtri(1.0), f64::INFINITY);
        assert!(ndtri(1.5).is_nan() && ndtri(-0.1).is_nan() && ndtri(f64::NAN).is_nan());
        assert_eq!(ndtri(0.5), 0.0);
        // Subnormal tails (SciPy's values).
        assert!((ndtri(5e-324) - -38.467405617144344).abs() < 1e-13);
        assert!((ndtri(1e-300) - -37.0470962993612).abs() < 1e-13);
    }
}
