//! The distributions, one output at a time: what `cpu.rs` runs and `random.cu` mirrors line
//! for line, so that both devices give the same bits. Only IEEE additions, multiplications,
//! divisions and integer operations are used (no library `exp`/`log`, whose last bit differs
//! between the CPU's libm and CUDA's): the two functions the ziggurat's rare paths need are
//! written out here ([`exp`], [`log1m`]) and in `random.cu` identically.

use super::philox::Sub;
use std::sync::OnceLock;

/// Which distribution (the GPU kernel's `KIND`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// `a * E`, E standard exponential.
    Exponential = 0,
    /// `b * G`, G standard gamma of shape `a`.
    Gamma = 1,
    /// Beta of shapes `a`, `b`.
    Beta = 2,
    /// Poisson of mean `a`.
    Poisson = 3,
    /// Binomial of `n` trials with probability `a`.
    Binomial = 4,
    /// `exp(a + b Z)`, Z standard normal.
    LogNormal = 5,
}

impl Kind {
    /// Whether the outputs are integers (int64).
    pub fn discrete(self) -> bool {
        matches!(self, Kind::Poisson | Kind::Binomial)
    }
}

/// What one call draws (the kernel's specialisation).
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Dist {
    /// float64 `low + scale * u`, u in [0, 1) from 53 bits (NumPy's `random`, `uniform`).
    Uniform64 { low: f64, scale: f64 },
    /// float32 `low + scale * u`, u in [0, 1) from the top 24 bits of a 32-bit draw (NumPy's
    /// `random(dtype=float32)`, where low = 0 and scale = 1).
    Uniform32 { low: f32, scale: f32 },
    /// `off + v`, v uniform in [0, rng], from `bits`-bit chunks (1, 8, 16, 32 or 64) by
    /// Lemire's method, as NumPy's `integers`; `threshold` = 2^bits mod (rng + 1).
    Bounded { bits: u32, rng: u64, off: u64, threshold: u64 },
    /// float64 `loc + scale * z`, z standard normal by NumPy's 256-layer ziggurat; z itself
    /// where `standard` (`standard_normal`, which keeps the ziggurat's -0.0 where
    /// `loc + scale * z` gives +0.0, as NumPy's two functions do).
    Normal64 { loc: f64, scale: f64, standard: bool },
    /// float32 `loc + scale * z`, z from the float32 ziggurat (one 32-bit draw); z itself where
    /// `standard`.
    Normal32 { loc: f32, scale: f32, standard: bool },
    /// One of `samplers.rs`'s distributions: a first 64-bit word, then the output's substream;
    /// stored as float64, float32 (`f32_`: computed in float64, then rounded) or int64.
    Sample { kind: Kind, a: f64, b: f64, n: u64, f32_: bool },
}

impl Dist {
    /// Bits of each first draw (64: words; 32: halves of words).
    pub fn bits(&self) -> u32 {
        match self {
            Dist::Uniform64 { .. } | Dist::Normal64 { .. } | Dist::Sample { .. } => 64,
            Dist::Bounded { bits: 64, .. } => 64,
            _ => 32,
        }
    }
    /// Outputs per draw (several chunks of one 32-bit draw for 16-, 8- and 1-bit integers).
    pub fn per_draw(&self) -> usize {
        match self {
            Dist::Bounded { bits, .. } => chunks_per_draw(*bits),
            _ => 1,
        }
    }
    /// Lemire's `threshold` for `rng` on `bits`-bit chunks (0: never reject).
    pub fn threshold(bits: u32, rng: u64) -> u64 {
        if bits == 1 || (bits < 64 && rng >= (1u64 << bits) - 1) || rng == u64::MAX {
            return 0;
        }
        let excl = rng + 1;
        if bits == 64 {
            excl.wrapping_neg() % excl
        } else {
            ((1u64 << bits) - excl) % excl
        }
    }
}

/// Outputs of `chunk_bits` bits per draw: 32 / chunk_bits below 32 bits, else 1.
pub(crate) fn chunks_per_draw(chunk_bits: u32) -> usize {
    if chunk_bits < 32 {
        (32 / chunk_bits) as usize
    } else {
        1
    }
}

/// Draws of `bits` bits in one Philox block (four 64-bit words).
pub(crate) fn draws_per_block(bits: u32) -> u64 {
    if bits == 64 {
        4
    } else {
        8
    }
}

/// `off + v` for the chunk `c` (`bits` wide) of a first draw, further draws from `sub` when
/// Lemire's method rejects.
#[inline(always)]
pub(crate) fn bounded(bits: u32, rng: u64, off: u64, threshold: u64, c: u64, sub: impl FnOnce() -> Sub) -> u64 {
    if rng == 0 {
        return off;
    }
    if bits == 1 {
        return off.wrapping_add(c & 1);
    }
    if bits == 64 {
        if rng == u64::MAX {
            return off.wrapping_add(c);
        }
        let excl = rng as u128 + 1;
        let mut m = c as u128 * excl;
        if (m as u64) < threshold {
            let mut s = sub();
            while (m as u64) < threshold {
                m = s.next64() as u128 * excl;
            }
        }
        return off.wrapping_add((m >> 64) as u64);
    }
    let mask = (1u64 << bits) - 1;
    if rng >= mask {
        return off.wrapping_add(c & mask);
    }
    let excl = rng + 1;
    let mut m = (c & mask) * excl;
    if m & mask < threshold {
        let mut s = sub();
        while m & mask < threshold {
            m = (s.next32() as u64 & mask) * excl;
        }
    }
    off.wrapping_add(m >> bits)
}

/// NumPy's ziggurat for the normal distribution: 256 layers, the base one holding the tail
/// beyond `R`, each of area `V`.
pub(crate) const ZIG_R: f64 = 3.654152885361009;
/// R f(R) + the tail's area, sqrt(pi/2) erfc(R / sqrt 2) (NumPy's table has 0.00492867323399).
const ZIG_V: f64 = 0.004928673233974658;

/// The ziggurat's tables (built once, on the host; the GPU gets their bits in its prelude):
/// `k` the accept bounds on the 52-bit (float32: 23-bit) magnitude, `w` the layers' widths
/// per unit of magnitude, `f` the density at the layers' edges.
pub(crate) struct Ziggurat {
    pub k64: [u64; 256],
    pub w64: [f64; 256],
    pub f64_: [f64; 256],
    pub k32: [u32; 256],
    pub w32: [f32; 256],
}

/// The tables: x[255] = R, x[i-1] from the layer of area V above x[i], x[0] = 0; the base
/// layer's pseudo-width is V / f(R). Built with the same IEEE operations on every host.
pub(crate) fn ziggurat() -> &'static Ziggurat {
    static Z: OnceLock<Ziggurat> = OnceLock::new();
    Z.get_or_init(|| {
        let f = |x: f64| exp(-0.5 * x * x);
        let mut x = [0f64; 256];
        x[255] = ZIG_R;
        for i in (2..=255).rev() {
            x[i - 1] = sqrt(-2.0 * log1m(1.0 - (f(x[i]) + ZIG_V / x[i])));
        }
        let base = ZIG_V / f(ZIG_R);
        let (s52, s23) = (4503599627370496.0, 8388608.0);
        let mut z = Ziggurat { k64: [0; 256], w64: [0.0; 256], f64_: [0.0; 256], k32: [0; 256], w32: [0.0; 256] };
        for i in 0..256 {
            let (width, inner) = match i {
                0 => (base, ZIG_R),
                1 => (x[1], 0.0),
                _ => (x[i], x[i - 1]),
            };
            z.w64[i] = width / s52;
            z.k64[i] = (inner / width * s52) as u64;
            z.w32[i] = (width / s23) as f32;
            z.k32[i] = (inner / width * s23) as u32;
            z.f64_[i] = if i == 0 { 1.0 } else { f(x[i]) };
        }
        z
    })
}

/// One try of the float64 ziggurat from a 64-bit draw `r` (NumPy's bit layout: 8 bits of
/// layer, 1 of sign, 52 of magnitude): (layer, magnitude, x, accepted at once).
#[inline(always)]
fn try64(r: u64) -> (usize, u64, f64, bool) {
    let z = ziggurat();
    let idx = (r & 0xff) as usize;
    let rabs = (r >> 9) & 0x000f_ffff_ffff_ffff;
    let mut x = rabs as f64 * z.w64[idx];
    if (r >> 8) & 1 == 1 {
        x = -x;
    }
    (idx, rabs, x, rabs < z.k64[idx])
}

/// One try of the float32 ziggurat from a 32-bit draw (8 bits of layer, 1 of sign, 23 of
/// magnitude), as [`try64`].
#[inline(always)]
fn try32(r: u32) -> (usize, u64, f32, bool) {
    let z = ziggurat();
    let idx = (r & 0xff) as usize;
    let rabs = (r >> 9) & 0x007f_ffff;
    let mut x = rabs as f32 * z.w32[idx];
    if (r >> 8) & 1 == 1 {
        x = -x;
    }
    (idx, rabs as u64, x, rabs < z.k32[idx])
}

/// A standard normal float64 from the first 64-bit draw `r` (NumPy's `random_standard_normal`);
/// the rare rejections draw from `sub`.
#[inline(always)]
pub(crate) fn normal64(r: u64, sub: impl FnOnce() -> Sub) -> f64 {
    let (idx, rabs, x, ok) = try64(r);
    if ok {
        return x;
    }
    normal_slow(idx, x, rabs, &mut sub(), false)
}

/// A standard normal float32 from the first 32-bit draw `r` (NumPy's float32 ziggurat);
/// rejections continue in float64 from `sub`.
#[inline(always)]
pub(crate) fn normal32(r: u32, sub: impl FnOnce() -> Sub) -> f32 {
    let (idx, rabs, x, ok) = try32(r);
    if ok {
        return x;
    }
    normal_slow(idx, x as f64, rabs, &mut sub(), true) as f32
}

/// A standard normal float64 with every draw from `s` (the samplers' normals).
pub(crate) fn normal_from(s: &mut Sub) -> f64 {
    let (idx, rabs, x, ok) = try64(s.next64());
    if ok {
        return x;
    }
    normal_slow(idx, x, rabs, s, false)
}

/// The ziggurat's wedges and tail, then new tries, all from `s`: NumPy's loop. The first try's
/// wedge or tail is resolved here (`x`, `rabs` from the first draw); each later try draws its
/// layer, sign and magnitude from `s` (as float32 from 32 bits when `f32_`).
fn normal_slow(mut idx: usize, mut x: f64, mut rabs: u64, s: &mut Sub, f32_: bool) -> f64 {
    let z = ziggurat();
    loop {
        if idx == 0 {
            // The tail beyond R (Marsaglia's method).
            loop {
                let xx = -(1.0 / ZIG_R) * log1m(s.next_double());
                let yy = -log1m(s.next_double());
                if yy + yy > xx * xx {
                    // (NumPy takes the tail's sign from bit 8 of the magnitude)
                    return if (rabs >> 8) & 1 == 1 { -(ZIG_R + xx) } else { ZIG_R + xx };
                }
            }
        }
        if (z.f64_[idx - 1] - z.f64_[idx]) * s.next_double() + z.f64_[idx] < exp(-0.5 * x * x) {
            return x;
        }
        // A new try.
        let ok;
        (idx, rabs, x, ok) = if f32_ {
            let (i, r, xf, ok) = try32(s.next32());
            (i, r, xf as f64, ok)
        } else {
            try64(s.next64())
        };
        if ok {
            return x;
        }
    }
}

/// ln 2 in two parts (fdlibm's): the high part has 32 trailing zero bits, so k * LN2_HI is
/// exact for the k here.
pub(crate) const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
pub(crate) const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);

/// `exp(x)` to about 1 ulp, by the same operations on both devices: x = k ln2 + r,
/// |r| <= ln2 / 2, a degree-13 Taylor polynomial, times 2^k (in two steps where 2^k is not a
/// normal number). 0 below -745.2, infinity above 709.79, NaN for NaN.
pub(crate) fn exp(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < -745.2 {
        return 0.0;
    }
    if x > 709.782712893384 {
        return f64::INFINITY;
    }
    let k = (x * std::f64::consts::LOG2_E - 0.5).ceil();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let mut p = 1.0 / 6227020800.0;
    for d in [479001600.0, 39916800.0, 3628800.0, 362880.0, 40320.0, 5040.0, 720.0, 120.0, 24.0, 6.0, 2.0, 1.0, 1.0] {
        p = p * r + 1.0 / d;
    }
    let k = k as i64;
    if k < -1021 {
        return p * pow2(k + 600) * pow2(-600);
    }
    if k > 1023 {
        return p * pow2(k - 1) * 2.0;
    }
    p * pow2(k)
}

/// 2^k for -1022 <= k <= 1023.
#[inline(always)]
fn pow2(k: i64) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

/// `ln(y)`, by the same operations on both devices: y = m 2^e with m in [sqrt(1/2), sqrt(2)),
/// ln m = 2 atanh((m - 1)/(m + 1)) by its series. -infinity for 0, NaN below 0 and for NaN.
pub(crate) fn ln(y: f64) -> f64 {
    if y.is_nan() || y < 0.0 {
        return f64::NAN;
    }
    if y == 0.0 {
        return f64::NEG_INFINITY;
    }
    if y == f64::INFINITY {
        return y;
    }
    let (y, mut e) = if y < f64::MIN_POSITIVE { (y * 18014398509481984.0, -54i64) } else { (y, 0) };
    let bits = y.to_bits();
    e += ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let f = (m - 1.0) / (m + 1.0);
    let s = f * f;
    let mut p = 1.0 / 25.0;
    for d in [23.0, 21.0, 19.0, 17.0, 15.0, 13.0, 11.0, 9.0, 7.0, 5.0, 3.0, 1.0] {
        p = p * s + 1.0 / d;
    }
    let e = e as f64;
    (e * LN2_HI + 2.0 * f * p) + e * LN2_LO
}

/// `ln(1 - u)` for u in [0, 1] (the draws' u are multiples of 2^-53, so 1 - u is exact).
pub(crate) fn log1m(u: f64) -> f64 {
    ln(1.0 - u)
}

/// `sqrt` (IEEE, correctly rounded on both devices).
fn sqrt(x: f64) -> f64 {
    x.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_and_log_are_accurate() {
        for i in 0..2000 {
            let x = -(i as f64) * 0.0173;
            let (a, b) = (exp(x), x.exp());
            assert!((a - b).abs() <= 4.0 * f64::EPSILON * b, "exp({x}): {a} vs {b}");
        }
        for i in 0..2000 {
            // (the draws' u are multiples of 2^-53, so 1 - u is exact)
            let u = ((i as f64 / 2000.0) * 9007199254740992.0).floor() / 9007199254740992.0;
            let (a, b) = (log1m(u), (-u).ln_1p());
            assert!((a - b).abs() <= 4.0 * f64::EPSILON * b.abs().max(1e-300), "log1m({u}): {a} vs {b}");
        }
        assert_eq!(log1m(0.0), 0.0);
    }

    #[test]
    fn ziggurat_layers_have_equal_areas() {
        let z = ziggurat();
        // Layer i (>= 1): width x[i], height f(x[i-1]) - f(x[i]).
        let s52 = 4503599627370496.0;
        for i in 2..256 {
            let area = z.w64[i] * s52 * (z.f64_[i - 1] - z.f64_[i]);
            assert!((area - ZIG_V).abs() < 1e-12, "layer {i}: {area}");
        }
        // The top layer reaches the peak (x[0] ~ 0: its area is V too).
        assert!((z.w64[1] * s52 * (1.0 - z.f64_[1]) - ZIG_V).abs() < 1e-6);
        // NumPy's tables (ziggurat_constants.h) agree to 12-13 digits: wi_double[0], ki_double[0, 1, 2].
        assert_eq!(z.k64[1], 0);
        assert!((z.w64[0] / 8.683627060801306e-16 - 1.0).abs() < 1e-13, "{:e}", z.w64[0]);
        assert!((z.k64[0] as f64 / 0x000E_F33D_8025_EF6A_u64 as f64 - 1.0).abs() < 1e-13, "{:x}", z.k64[0]);
        assert!((z.k64[2] as f64 / 0x000C_08BE_98FB_C6A8_u64 as f64 - 1.0).abs() < 1e-12, "{:x}", z.k64[2]);
    }
}
