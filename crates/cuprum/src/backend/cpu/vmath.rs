//! Vectorisable float32 math for the CPU ufuncs: `exp`, `log`, `sin`, `cos`, `tanh`.
//!
//! Each function widens its float32 argument to float64, reduces the range with exact or
//! nearly exact steps, evaluates a Taylor polynomial in float64 (Horner, no fused multiply-add,
//! so that the result does not depend on the instructions the CPU has) and rounds once to
//! float32. The float64 value is within a few float64 ulps of the true one (relative error
//! below 1e-15, i.e. 2^-49), so the float32 result is the correctly rounded one except where
//! the true value lies within 2^-49 relative of a halfway point between two float32 numbers,
//! and even then it is one of the two neighbours: the error bound is 0.5 ulp + 2^-25 ulp,
//! i.e. at most 1 ulp (issue 12 notes NumPy's float32 `exp` is 3 ulp off on some inputs).
//! The unit test measures the ulp error against std's float64 functions over 1.6 million
//! arguments (every binade from the subnormals up, random bit patterns, dense sweeps, range
//! edges, inf/NaN/zeros, both signs): the largest is 0.5 ulp for each function, i.e. the
//! results were the correctly rounded ones there.
//!
//! The main loops are branch-free (selects only) so that LLVM vectorises them; the arguments
//! they do not cover (non-finite, or `|x| > 2^19` for `sin`/`cos`, non-positive or
//! non-finite for `log`) are recomputed afterwards with std's float64 functions. On x86-64
//! the same code is compiled again for AVX2 (4 float64 lanes instead of SSE2's 2) and for
//! AVX-512F (8 lanes: exp_1e8_f32 70 -> 38-47 ms on a 2-core AVX-512 machine, NumPy 54) and
//! picked at run time; all give the same bits (unit test).

use crate::core::ufunc::UnaryOp;

/// Whether [`f32_unary`] computes `op`.
pub(crate) fn has_f32(op: UnaryOp) -> bool {
    matches!(op, UnaryOp::Exp | UnaryOp::Log | UnaryOp::Sin | UnaryOp::Cos | UnaryOp::Tanh)
}

/// `out = op(x)` for the float32 functions of [`has_f32`] (`x.len() == out.len()`); false
/// (nothing written) for other ops.
pub(crate) fn f32_unary(op: UnaryOp, x: &[f32], out: &mut [f32]) -> bool {
    let k = match op {
        UnaryOp::Exp => Kind::Exp,
        UnaryOp::Log => Kind::Log,
        UnaryOp::Sin => Kind::Sin,
        UnaryOp::Cos => Kind::Cos,
        UnaryOp::Tanh => Kind::Tanh,
        _ => return false,
    };
    super::simd(
        #[inline(always)]
        move || run(k, x, out),
    );
    true
}

#[derive(Copy, Clone)]
enum Kind {
    Exp,
    Log,
    Sin,
    Cos,
    Tanh,
}

#[inline(always)]
fn run(k: Kind, x: &[f32], out: &mut [f32]) {
    match k {
        Kind::Exp => {
            for (o, &v) in out.iter_mut().zip(x) {
                *o = exp_core(v as f64) as f32;
            }
        }
        Kind::Log => {
            for (o, &v) in out.iter_mut().zip(x) {
                *o = log_core(v as f64) as f32;
            }
            // (a vectorised test first: the scalar pass runs only where it has work)
            if x.iter().fold(false, |a, &v| a | !(v > 0.0 && v < f32::INFINITY)) {
                for (o, &v) in out.iter_mut().zip(x) {
                    if !(v > 0.0 && v < f32::INFINITY) {
                        *o = (v as f64).ln() as f32;
                    }
                }
            }
        }
        Kind::Tanh => {
            for (o, &v) in out.iter_mut().zip(x) {
                *o = tanh_core(v as f64) as f32;
            }
        }
        Kind::Sin | Kind::Cos => {
            let q0 = if matches!(k, Kind::Cos) { 1 } else { 0 };
            for (o, &v) in out.iter_mut().zip(x) {
                *o = sin_core(v as f64, q0) as f32;
            }
            if x.iter().fold(false, |a, &v| a | !sin_covered(v)) {
                for (o, &v) in out.iter_mut().zip(x) {
                    if !sin_covered(v) {
                        *o = if q0 == 1 { (v as f64).cos() } else { (v as f64).sin() } as f32;
                    }
                }
            }
        }
    }
}

/// 1.5 * 2^52: adding it to a float64 of magnitude below 2^51 rounds to an integer held in
/// the low bits of the sum's representation.
const ROUNDER: f64 = 6755399441055744.0;

/// ln 2 in two parts for exp's and log's reductions: `LN2_HI` has 32 significant bits, so
/// its products with integers below 2^8 are exact; `LN2_LO` = ln 2 - `LN2_HI`.
const LN2_HI: f64 = 0.693_147_180_369_123_8;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;

/// float32 exp as [`f32_unary`] computes it, for one element (the kernels' `x.exp()`).
#[inline(always)]
pub(crate) fn exp_f32(x: f32) -> f32 {
    exp_core(x as f64) as f32
}

/// exp(x) for a float32 argument `x` (widened), NaN kept; exact limits: results overflow to
/// inf / underflow to 0 on the way to float32.
#[inline(always)]
fn exp_core(x: f64) -> f64 {
    // exp(x) rounds to float32 inf above 88.73 and to 0 below -103.98: clamp to a range
    // where 2^k stays a normal float64 (the comparisons are false for NaN, which passes).
    let x = if x > 100.0 { 100.0 } else { x };
    let x = if x < -110.0 { -110.0 } else { x };
    // k = round(x / ln 2), r = x - k ln 2 with ln 2 in two parts (k * LN2_HI is exact: LN2_HI
    // has 32 significant bits and |k| < 2^8), |r| <= ln(2)/2 + tiny.
    const LOG2E: f64 = std::f64::consts::LOG2_E;
    let t = x * LOG2E + ROUNDER;
    let kf = t - ROUNDER;
    let r = (x - kf * LN2_HI) - kf * LN2_LO;
    // Taylor series to r^12/12!: the first term left out is below 0.347^13/13! < 2.1e-16.
    let mut p = 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    // 2^k from the low bits of `t` (k + 2^51 there): shifted into the exponent field, the
    // 2^51 falls off the top; k + 1023 lies in [863, 1168], a normal exponent.
    let scale = f64::from_bits((t.to_bits() << 52).wrapping_add(1023u64 << 52));
    p * scale
}

/// tanh(x) for a float32 `x` (widened): an odd Taylor polynomial for |x| < 2^-5, else
/// 1 - 2 / (exp(2|x|) + 1) with the sign of x (its relative error is that of `exp_core` times
/// at most 1 / tanh(2^-5) = 32: below 1e-14). inf gives +-1, NaN stays NaN.
#[inline(always)]
fn tanh_core(x: f64) -> f64 {
    let a = x.abs();
    // x - x^3/3 + 2x^5/15 - 17x^7/315 + 62x^9/2835 - 1382x^11/155925: the first term left
    // out, 21844 x^13 / 6081075, is below 3.6e-3 * 2^-60 relative to x.
    let z = x * x;
    let mut p = -1382.0 / 155925.0;
    p = p * z + 62.0 / 2835.0;
    p = p * z - 17.0 / 315.0;
    p = p * z + 2.0 / 15.0;
    p = p * z - 1.0 / 3.0;
    let small = x * (1.0 + z * p);
    let e = exp_core(2.0 * a);
    let big = f64::from_bits((1.0 - 2.0 / (e + 1.0)).to_bits() | (x.to_bits() & (1u64 << 63)));
    if a < 0.03125 {
        small
    } else {
        big
    }
}

/// ln(x) for a positive finite float32 `x` (widened; other arguments give garbage that the
/// caller replaces).
#[inline(always)]
fn log_core(x: f64) -> f64 {
    // x = 2^e * m with m in [sqrt(1/2), sqrt(2)): float32 subnormals are normal float64s.
    let bits = x.to_bits();
    let ebits = (bits >> 52) & 0x7ff;
    let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | (1023u64 << 52));
    let big = m > std::f64::consts::SQRT_2;
    let m = if big { m * 0.5 } else { m };
    // The biased exponent as a float64, without an integer conversion (not vectorised on
    // SSE2): 2^52 + ebits has ebits in its low mantissa bits.
    let ef = f64::from_bits(0x4330_0000_0000_0000 | ebits) - 4503599627370496.0 - 1023.0;
    let e = if big { ef + 1.0 } else { ef };
    // ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716; series to s^21/21: the first
    // term left out is below 2 * 0.1716^23 / 23 < 2.2e-19.
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let mut p = 1.0 / 21.0;
    p = p * z + 1.0 / 19.0;
    p = p * z + 1.0 / 17.0;
    p = p * z + 1.0 / 15.0;
    p = p * z + 1.0 / 13.0;
    p = p * z + 1.0 / 11.0;
    p = p * z + 1.0 / 9.0;
    p = p * z + 1.0 / 7.0;
    p = p * z + 1.0 / 5.0;
    p = p * z + 1.0 / 3.0;
    let lm = 2.0 * s + 2.0 * s * z * p;
    // e ln 2 with ln 2 in two parts (e * LN2_HI is exact: |e| < 2^8).
    e * LN2_HI + (lm + e * LN2_LO)
}

/// The largest |x| that `sin_core` reduces (k = round(x * 2/pi) < 2^19 keeps the products
/// `k * PIO2_1` and `k * PIO2_2` exact).
const SIN_MAX: f32 = 524288.0;

/// Whether `sin_core` reduces `x` (false for NaN and inf).
#[inline(always)]
fn sin_covered(x: f32) -> bool {
    x.abs() <= SIN_MAX
}

/// sin(x + q0 * pi/2) for a float32 `x` (widened) with |x| <= SIN_MAX (others: garbage that
/// the caller replaces).
#[inline(always)]
fn sin_core(x: f64, q0: u64) -> f64 {
    // k = round(x * 2/pi); r = x - k pi/2 with pi/2 in three parts of 33 bits each (products
    // by k < 2^20 exact), so r is accurate to about 2^-100 absolute.
    const PIO2_1: f64 = 1.570_796_326_734_125_6; // first 33 bits of pi/2
    const PIO2_2: f64 = 6.077_100_506_303_966e-11; // next 33 bits
    const PIO2_3: f64 = 2.022_266_248_711_166_5e-21; // next 33 bits
    const PIO2_3T: f64 = 8.478_427_660_368_9e-32; // pi/2 - PIO2_1 - PIO2_2 - PIO2_3
    let t = x * std::f64::consts::FRAC_2_PI + ROUNDER;
    let kf = t - ROUNDER;
    let r = x - kf * PIO2_1;
    let r = r - kf * PIO2_2;
    let r = r - kf * PIO2_3;
    let r = r - kf * PIO2_3T;
    let q = t.to_bits().wrapping_add(q0);
    let z = r * r;
    // One polynomial per lane, its coefficients picked by the quadrant's parity (selects,
    // not a second polynomial): sin r = r (1 + z S(z)) to r^17/17!, cos r = 1 + z C(z) to
    // r^18/18!, on |r| <= pi/4 (+ tiny); the first terms left out are below
    // 0.786^19/19! < 1.1e-19 and 0.786^20/20! < 3e-21 (relative to sin r >= 0.7 r, cos r >= 0.7).
    let c = q & 1 == 1;
    const S: [f64; 8] = [
        1.0 / 355687428096000.0,
        -1.0 / 1307674368000.0,
        1.0 / 6227020800.0,
        -1.0 / 39916800.0,
        1.0 / 362880.0,
        -1.0 / 5040.0,
        1.0 / 120.0,
        -1.0 / 6.0,
    ];
    const C: [f64; 9] = [
        1.0 / 6402373705728000.0,
        -1.0 / 20922789888000.0,
        1.0 / 87178291200.0,
        -1.0 / 479001600.0,
        1.0 / 3628800.0,
        -1.0 / 40320.0,
        1.0 / 720.0,
        -1.0 / 24.0,
        0.5,
    ];
    let mut p = if c { -C[0] } else { 0.0 };
    for i in 0..8 {
        p = p * z + if c { -C[i + 1] } else { S[i] };
    }
    // cos: 1 + z * (-(C(z))) written as 1 - z * C; sin: r * (1 + z S(z)) (a product, so that
    // sin(-0) is -0).
    let w = 1.0 + z * p;
    let v = if c { w } else { r * w };
    // Quadrant q (mod 4): sin, cos, -sin, -cos.
    f64::from_bits(v.to_bits() ^ ((q & 2) << 62))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in float32 ulps between `got` and the float64 reference `want` (rounding
    /// `want` first would hide half an ulp: measured against the exact float64 value).
    fn ulps(got: f32, want: f64) -> f64 {
        if want.is_nan() {
            return if got.is_nan() { 0.0 } else { f64::INFINITY };
        }
        if want.is_infinite() || (want as f32).is_infinite() {
            return if got as f64 == want || got == want as f32 { 0.0 } else { f64::INFINITY };
        }
        let w = want as f32;
        // The ulp at the reference's binade (the subnormal spacing below the normal range).
        let a = w.abs().max(f32::MIN_POSITIVE);
        let ulp = (f32::from_bits(a.to_bits() + 1) - a) as f64;
        ((got as f64) - want).abs() / ulp
    }

    /// Arguments: every power of two and its neighbours from the subnormals up, dense sweeps
    /// of the common ranges, the range edges and the special values, with both signs.
    fn args() -> Vec<f32> {
        let mut v = vec![
            0.0,
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
            1e-45,
            1.0,
            88.72,
            88.73,
            88.7228,
            88.72284,
            -103.97,
            -103.28,
            -87.33,
            -87.34,
            524288.0,
            524287.97,
            524288.06,
        ];
        let mut b = 1u32;
        while b < 0x7f80_0000 {
            let f = f32::from_bits(b);
            v.extend([f, f32::from_bits(b + 1), f32::from_bits(b - 1)]);
            b = b.saturating_mul(2).max(b + 0x0040_0000);
        }
        // A deterministic sweep (xorshift) over bit patterns of the finite floats.
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..400_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            v.push(f32::from_bits((s >> 32) as u32 & 0x7fff_ffff));
        }
        for i in 0..200_000 {
            v.push(-120.0 + 240.0 * i as f32 / 200_000.0);
            v.push(1e-3 + 30.0 * i as f32 / 200_000.0);
        }
        let neg: Vec<f32> = v.iter().map(|x| -x).collect();
        v.extend(neg);
        v
    }

    fn max_ulps(op: UnaryOp, reference: fn(f64) -> f64, xs: &[f32]) -> (f64, f32) {
        let mut out = vec![0f32; xs.len()];
        let mut worst = (0.0, 0.0f32);
        for (x, o) in xs.chunks(1024).zip(out.chunks_mut(1024)) {
            assert!(f32_unary(op, x, o));
            // The portable (SSE2) build gives the same bits as the AVX2 one.
            let mut p = vec![0f32; x.len()];
            run(
                match op {
                    UnaryOp::Exp => Kind::Exp,
                    UnaryOp::Log => Kind::Log,
                    UnaryOp::Sin => Kind::Sin,
                    UnaryOp::Tanh => Kind::Tanh,
                    _ => Kind::Cos,
                },
                x,
                &mut p,
            );
            assert!(
                p.iter().zip(o.iter()).all(|(a, b)| a.to_bits() == b.to_bits()),
                "{op:?}: AVX2 and portable builds differ"
            );
        }
        for (&x, &o) in xs.iter().zip(&out) {
            let u = ulps(o, reference(x as f64));
            if u > worst.0 || u.is_nan() {
                worst = (u, x);
            }
        }
        worst
    }

    /// The baseline loop and its AVX2 and AVX-512 twins (where this CPU has them) give the same
    /// bits: no operation changes with the vector width.
    #[test]
    fn twins_give_the_same_bits() {
        let xs = args();
        for k in [Kind::Exp, Kind::Log, Kind::Sin, Kind::Cos, Kind::Tanh] {
            let mut base = vec![0f32; xs.len()];
            run(k, &xs, &mut base);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
            #[cfg(target_arch = "x86_64")]
            {
                let mut twin = vec![0f32; xs.len()];
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2.
                    unsafe {
                        super::super::in_avx2(
                            #[inline(always)]
                            || run(k, &xs, &mut twin),
                        )
                    };
                    assert!(bits(&twin) == bits(&base), "AVX2 twin differs");
                }
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: the CPU has AVX-512F.
                    unsafe {
                        super::super::in_avx512(
                            #[inline(always)]
                            || run(k, &xs, &mut twin),
                        )
                    };
                    assert!(bits(&twin) == bits(&base), "AVX-512 twin differs");
                }
            }
        }
    }

    /// The stated bound: at most 1 ulp from the exact value (float64 std as the reference),
    /// over a million arguments of every magnitude, with inf/NaN/zeros/subnormals exact.
    #[test]
    fn f32_math_within_one_ulp() {
        let xs = args();
        for (op, f) in [
            (UnaryOp::Exp, f64::exp as fn(f64) -> f64),
            (UnaryOp::Log, f64::ln),
            (UnaryOp::Sin, f64::sin),
            (UnaryOp::Cos, f64::cos),
            (UnaryOp::Tanh, f64::tanh),
        ] {
            let (u, x) = max_ulps(op, f, &xs);
            eprintln!("{op:?}: max {u:.4} ulp (at {x:e}) over {} arguments", xs.len());
            assert!(u <= 1.0, "{op:?}: {u} ulp at {x:e}");
        }
        // The special values exactly as std gives them.
        for (op, f) in [
            (UnaryOp::Exp, f64::exp as fn(f64) -> f64),
            (UnaryOp::Log, f64::ln),
            (UnaryOp::Sin, f64::sin),
            (UnaryOp::Cos, f64::cos),
            (UnaryOp::Tanh, f64::tanh),
        ] {
            let sp = [
                0.0f32,
                -0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                1e-45,
                -1e-45,
                1e30,
                -1e30,
                89.0,
                -104.0,
                1.0,
            ];
            let mut o = [0f32; 12];
            f32_unary(op, &sp, &mut o);
            for (&x, &g) in sp.iter().zip(&o) {
                let w = f(x as f64) as f32;
                assert!(g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()), "{op:?}({x:e}) = {g:e}, want {w:e}");
            }
        }
    }
}
