//! The distributions NumPy draws with a variable number of draws per output: exponential,
//! gamma, beta, Poisson, binomial and log-normal, by NumPy's algorithms (`distributions.c`:
//! inversion for the exponential, Marsaglia and Tsang for the gamma with shape >= 1, Johnk's
//! method below 1 and for the beta with both shapes <= 1, Hormann's PTRS for the Poisson with
//! lam >= 10 and multiplication below, inversion and Kachitvichyanukul and Schmeiser's BTPE
//! for the binomial). Output `i` reads its first word from its own position in the main
//! stream and the rest from its own substream (`Sub`), so every output is computed alone, on
//! either device: `random.cu` (VARIANT_SAMPLER) mirrors this file operation for operation,
//! with `exp`, `ln` and so `pow` written out (`dist.rs`), so the CPU and the GPU give the same
//! bits.

use super::dist::{exp, ln, log1m, normal_from, Kind};
use super::philox::Sub;

/// One output of `kind` with parameters `a`, `b`, `n` from the draws of `s` (its first word is
/// the output's main-stream word). Continuous outputs as f64 bits, discrete as i64 bits.
#[inline(always)]
pub(crate) fn sample(kind: Kind, a: f64, b: f64, n: u64, s: &mut Sub) -> u64 {
    match kind {
        Kind::Exponential => (a * standard_exponential(s)).to_bits(),
        Kind::Gamma => (b * standard_gamma(a, s)).to_bits(),
        Kind::Beta => beta(a, b, s).to_bits(),
        Kind::Poisson => poisson(a, s) as u64,
        Kind::Binomial => binomial(n as i64, a, s) as u64,
        Kind::LogNormal => exp(a + b * normal_from(s)).to_bits(),
    }
}

/// `-ln(1 - U)`: NumPy's `standard_exponential(method="inv")`.
fn standard_exponential(s: &mut Sub) -> f64 {
    -log1m(s.next_double())
}

/// `x^y` for x >= 0 as `exp(y ln x)` (relative error about |y ln x| ulp).
fn pow(x: f64, y: f64) -> f64 {
    exp(y * ln(x))
}

/// NumPy's `random_standard_gamma`.
fn standard_gamma(shape: f64, s: &mut Sub) -> f64 {
    if shape == 1.0 {
        return standard_exponential(s);
    }
    if shape == 0.0 {
        return 0.0;
    }
    if shape < 1.0 {
        loop {
            let u = s.next_double();
            let v = standard_exponential(s);
            if u <= 1.0 - shape {
                let x = pow(u, 1.0 / shape);
                if x <= v {
                    return x;
                }
            } else {
                let y = -ln((1.0 - u) / shape);
                let x = pow(1.0 - shape + shape * y, 1.0 / shape);
                if x <= v + y {
                    return x;
                }
            }
        }
    }
    let b = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * b).sqrt();
    loop {
        let (mut x, mut v);
        loop {
            x = normal_from(s);
            v = 1.0 + c * x;
            if v > 0.0 {
                break;
            }
        }
        v = v * v * v;
        let u = s.next_double();
        if u < 1.0 - 0.0331 * (x * x) * (x * x) {
            return b * v;
        }
        if ln(u) < 0.5 * x * x + b * (1.0 - v + ln(v)) {
            return b * v;
        }
    }
}

/// NumPy's `random_beta`: Johnk's method when both shapes are <= 1, else the ratio of gammas.
fn beta(a: f64, b: f64, s: &mut Sub) -> f64 {
    if a <= 1.0 && b <= 1.0 {
        loop {
            let u = s.next_double();
            let v = s.next_double();
            let x = pow(u, 1.0 / a);
            let y = pow(v, 1.0 / b);
            let xpy = x + y;
            if xpy <= 1.0 && u + v > 0.0 {
                if xpy > 0.0 {
                    return x / xpy;
                }
                // Both powers underflowed: the ratio in logarithms.
                let mut lx = ln(u) / a;
                let mut ly = ln(v) / b;
                let lm = if lx > ly { lx } else { ly };
                lx -= lm;
                ly -= lm;
                return exp(lx - ln(exp(lx) + exp(ly)));
            }
        }
    }
    let ga = standard_gamma(a, s);
    let gb = standard_gamma(b, s);
    ga / (ga + gb)
}

/// ln Gamma(x) for x >= 1 (the Poisson's k + 1): Stirling's series, its coefficients
/// B_2k / (2k (2k - 1)), after shifting x up to 7 or more.
pub(crate) fn loggam(x: f64) -> f64 {
    const C: [f64; 10] = [
        1.0 / 12.0,
        -1.0 / 360.0,
        1.0 / 1260.0,
        -1.0 / 1680.0,
        1.0 / 1188.0,
        -691.0 / 360360.0,
        1.0 / 156.0,
        -3617.0 / 122400.0,
        43867.0 / 244188.0,
        -174611.0 / 125400.0,
    ];
    if x == 1.0 || x == 2.0 {
        return 0.0;
    }
    let n = if x <= 7.0 { (7.0 - x) as i64 } else { 0 };
    let mut x0 = x + n as f64;
    let x2 = 1.0 / (x0 * x0);
    let mut g = C[9];
    for k in (0..9).rev() {
        g = g * x2 + C[k];
    }
    // 0.5 ln(2 pi)
    let mut gl = g / x0 + 0.9189385332046728 + (x0 - 0.5) * ln(x0) - x0;
    for _ in 0..n {
        x0 -= 1.0;
        gl -= ln(x0);
    }
    gl
}

/// NumPy's `random_poisson`: PTRS (Hormann, 1993) for lam >= 10, multiplication of uniforms
/// below.
fn poisson(lam: f64, s: &mut Sub) -> i64 {
    if lam >= 10.0 {
        let slam = lam.sqrt();
        let loglam = ln(lam);
        let b = 0.931 + 2.53 * slam;
        let a = -0.059 + 0.02483 * b;
        let invalpha = 1.1239 + 1.1328 / (b - 3.4);
        let vr = 0.9277 - 3.6224 / (b - 2.0);
        loop {
            let u = s.next_double() - 0.5;
            let v = s.next_double();
            let us = 0.5 - u.abs();
            let k = ((2.0 * a / us + b) * u + lam + 0.43).floor();
            if us >= 0.07 && v <= vr {
                return k as i64;
            }
            if k < 0.0 || (us < 0.013 && v > us) {
                continue;
            }
            if ln(v) + ln(invalpha) - ln(a / (us * us) + b) <= -lam + k * loglam - loggam(k + 1.0) {
                return k as i64;
            }
        }
    }
    if lam == 0.0 {
        return 0;
    }
    let enlam = exp(-lam);
    let mut x = 0;
    let mut prod = 1.0;
    loop {
        prod *= s.next_double();
        if prod > enlam {
            x += 1;
        } else {
            return x;
        }
    }
}

/// NumPy's `random_binomial`: inversion when min(p, 1 - p) n <= 30, else BTPE; p > 1/2 as
/// n minus the count of failures.
fn binomial(n: i64, p: f64, s: &mut Sub) -> i64 {
    if n == 0 || p == 0.0 {
        return 0;
    }
    if p <= 0.5 {
        if p * n as f64 <= 30.0 {
            binomial_inversion(n, p, s)
        } else {
            btpe(n, p, s)
        }
    } else {
        let q = 1.0 - p;
        if q * n as f64 <= 30.0 {
            n - binomial_inversion(n, q, s)
        } else {
            n - btpe(n, q, s)
        }
    }
}

fn binomial_inversion(n: i64, p: f64, s: &mut Sub) -> i64 {
    let q = 1.0 - p;
    let qn = exp(n as f64 * ln(q));
    let np = n as f64 * p;
    let bound = {
        let b = np + 10.0 * (np * q + 1.0).sqrt();
        if (n as f64) < b {
            n as f64
        } else {
            b
        }
    };
    let mut x = 0i64;
    let mut px = qn;
    let mut u = s.next_double();
    while u > px {
        x += 1;
        if x as f64 > bound {
            x = 0;
            px = qn;
            u = s.next_double();
        } else {
            u -= px;
            px = ((n - x + 1) as f64 * p * px) / (x as f64 * q);
        }
    }
    x
}

/// Stirling's correction term of BTPE's final test.
fn stirl(a: f64, a2: f64) -> f64 {
    (13860.0 - (462.0 - (132.0 - (99.0 - 140.0 / a2) / a2) / a2) / a2) / a / 166320.0
}

/// BTPE (Kachitvichyanukul and Schmeiser, 1988) for p <= 1/2 and n p > 30: a triangle, two
/// parallelograms and two exponential tails over the density, with a squeeze and the exact
/// test by Stirling's formula.
fn btpe(n: i64, p: f64, s: &mut Sub) -> i64 {
    let nf = n as f64;
    let r = p;
    let q = 1.0 - r;
    let fm = nf * r + r;
    let m = fm.floor();
    let p1 = (2.195 * (nf * r * q).sqrt() - 4.6 * q).floor() + 0.5;
    let xm = m + 0.5;
    let xl = xm - p1;
    let xr = xm + p1;
    let c = 0.134 + 20.5 / (15.3 + m);
    let a = (fm - xl) / (fm - xl * r);
    let laml = a * (1.0 + a / 2.0);
    let a = (xr - fm) / (xr * q);
    let lamr = a * (1.0 + a / 2.0);
    let p2 = p1 * (1.0 + 2.0 * c);
    let p3 = p2 + c / laml;
    let p4 = p3 + c / lamr;
    let nrq = nf * r * q;
    loop {
        let u = s.next_double() * p4;
        let mut v = s.next_double();
        let y;
        if u <= p1 {
            // The triangle: accepted at once.
            return (xm - p1 * v + u).floor() as i64;
        }
        if u <= p2 {
            let x = xl + (u - p1) / c;
            v = v * c + 1.0 - (m - x + 0.5).abs() / p1;
            if v > 1.0 {
                continue;
            }
            y = x.floor();
        } else if u <= p3 {
            y = (xl + ln(v) / laml).floor();
            if y < 0.0 {
                continue;
            }
            v = v * (u - p2) * laml;
        } else {
            y = (xr - ln(v) / lamr).floor();
            if y > nf {
                continue;
            }
            v = v * (u - p3) * lamr;
        }
        let k = (y - m).abs();
        if k <= 20.0 || k >= nrq / 2.0 - 1.0 {
            // The density ratio f(y) / f(m) by its recurrence.
            let sr = r / q;
            let aa = sr * (nf + 1.0);
            let mut f = 1.0;
            if m < y {
                let mut i = m + 1.0;
                while i <= y {
                    f *= aa / i - sr;
                    i += 1.0;
                }
            } else if m > y {
                let mut i = y + 1.0;
                while i <= m {
                    f /= aa / i - sr;
                    i += 1.0;
                }
            }
            if v > f {
                continue;
            }
            return y as i64;
        }
        // The squeeze, then the exact test.
        let rho = (k / nrq) * ((k * (k / 3.0 + 0.625) + 0.16666666666666666) / nrq + 0.5);
        let t = -k * k / (2.0 * nrq);
        let av = ln(v);
        if av < t - rho {
            return y as i64;
        }
        if av > t + rho {
            continue;
        }
        let x1 = y + 1.0;
        let f1 = m + 1.0;
        let z = nf + 1.0 - m;
        let w = nf - y + 1.0;
        let bound = xm * ln(f1 / x1)
            + (nf - m + 0.5) * ln(z / w)
            + (y - m) * ln(w * r / (x1 * q))
            + stirl(f1, f1 * f1)
            + stirl(z, z * z)
            + stirl(x1, x1 * x1)
            + stirl(w, w * w);
        if av > bound {
            continue;
        }
        return y as i64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loggam_matches_factorials() {
        let mut lf = 0f64;
        for k in 1..200u32 {
            // ln Gamma(k + 1) = ln k!
            lf += (k as f64).ln();
            let g = loggam(k as f64 + 1.0);
            assert!((g - lf).abs() <= 1e-13 * lf.max(1.0), "loggam({}) = {g}, ln {k}! = {lf}", k + 1);
        }
        assert!((loggam(1.5) - 0.5 * std::f64::consts::PI.ln() + std::f64::consts::LN_2).abs() < 1e-14);
    }

    #[test]
    fn exp_covers_the_whole_range() {
        for x in [-745.0, -740.0, -720.0, -700.0, -1.0, 0.0, 1e-300, 0.5, 1.0, 10.0, 300.0, 700.0, 709.7] {
            let (a, b) = (exp(x), x.exp());
            let tol = if b < f64::MIN_POSITIVE { 2.0 * 4.9e-324 + 1e-15 * b } else { 4.0 * f64::EPSILON * b };
            assert!((a - b).abs() <= tol, "exp({x}): {a} vs {b}");
        }
        assert_eq!(exp(710.0), f64::INFINITY);
        assert_eq!(exp(-746.0), 0.0);
        assert!(exp(f64::NAN).is_nan());
        for y in [1e-310, 5e-324, 1e-300, 0.3, 1.0, 2.5, 1e300] {
            let (a, b) = (ln(y), y.ln());
            assert!((a - b).abs() <= 4.0 * f64::EPSILON * b.abs(), "ln({y}): {a} vs {b}");
        }
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert!(ln(-1.0).is_nan());
    }
}
