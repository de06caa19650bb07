//! The digits of floats as NumPy prints them: the shortest decimal that reads back as the
//! same value in its own format (float16, float32, float64), as NumPy's Dragon4 in "unique"
//! mode, with NumPy's cutoffs (at most `precision` digits after the point, or in total).

use crate::core::dtype::DType;

// ---------------------------------------------------------------------------
// Floats: the element types and their properties
// ---------------------------------------------------------------------------

/// Which binary format the `f64` values really are.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum FloatKind {
    F16,
    F32,
    F64,
}

impl FloatKind {
    pub(super) fn of(dtype: DType) -> FloatKind {
        match dtype {
            DType::Float16 => FloatKind::F16,
            DType::Float32 | DType::Complex64 => FloatKind::F32,
            _ => FloatKind::F64,
        }
    }

    /// `x` rounded to this format (NumPy compares a float16/float32 with a
    /// Python float after converting the Python float to the array's type).
    pub(super) fn narrow(self, x: f64) -> f64 {
        match self {
            FloatKind::F16 => round_to_f16(x),
            FloatKind::F32 => x as f32 as f64,
            FloatKind::F64 => x,
        }
    }

    /// `a / b` computed in this format.
    pub(super) fn div(self, a: f64, b: f64) -> f64 {
        match self {
            // NumPy divides halves in single precision and rounds to half.
            FloatKind::F16 => round_to_f16((a as f32 / b as f32) as f64),
            FloatKind::F32 => (a as f32 / b as f32) as f64,
            FloatKind::F64 => a / b,
        }
    }

    /// Whether the decimal `d` reads back (rounds to nearest) as `x` in
    /// this format. Used for `F32` and `F64`.
    pub(super) fn reads_back(self, d: &Decimal, x: f64) -> bool {
        let text = d.to_sci_string();
        match self {
            FloatKind::F32 => text.parse::<f32>().is_ok_and(|v| v as f64 == x),
            FloatKind::F64 => text.parse::<f64>().is_ok_and(|v| v == x),
            FloatKind::F16 => text.parse::<f64>().is_ok_and(|v| round_to_f16(v) == x),
        }
    }

    /// Arrays switch to scientific notation from this magnitude on:
    /// `10**min(8, finfo(dtype).precision)`.
    pub(super) fn array_sci_from(self) -> f64 {
        match self {
            FloatKind::F16 => 1e3,
            FloatKind::F32 => 1e6,
            FloatKind::F64 => 1e8,
        }
    }

    /// Scalars (and so `str` of 0-d arrays) switch to scientific notation
    /// from this magnitude on.
    pub(super) fn scalar_sci_from(self) -> f64 {
        match self {
            FloatKind::F16 => 1e3,
            FloatKind::F32 => 1e6,
            FloatKind::F64 => 1e16,
        }
    }
}

/// `x` rounded to the nearest IEEE half-precision value (ties to even), as
/// an `f64`; out of range gives ±infinity.
pub(super) fn round_to_f16(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let mag = x.abs();
    // Half the gap above the largest half (65504) rounds to infinity.
    if mag >= 65520.0 {
        return f64::INFINITY.copysign(x);
    }
    // Spacing of halves near `mag`: 2^(e - 10) with e the binary exponent,
    // never below the subnormal spacing 2^-24.
    let exp = binary_exponent(mag).max(-14);
    let quantum = 2f64.powi(exp - 10);
    // Division and multiplication by a power of two are exact here.
    (mag / quantum).round_ties_even() * quantum * x.signum()
}

/// `floor(log2(x))` of a positive finite `x`.
pub(super) fn binary_exponent(x: f64) -> i32 {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: the exponent of the leading mantissa bit.
        let mantissa = bits & ((1u64 << 52) - 1);
        -1074 + (63 - mantissa.leading_zeros() as i32)
    } else {
        biased - 1023
    }
}

// ---------------------------------------------------------------------------
// Floats: decimal digits
// ---------------------------------------------------------------------------

/// A non-negative decimal number `d0.d1d2… × 10^exp`. `digits` holds the
/// digit values without trailing zeros; zero has no digits.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Decimal {
    digits: Vec<u8>,
    exp: i32,
}

impl Decimal {
    pub(super) fn zero() -> Decimal {
        Decimal { digits: Vec::new(), exp: 0 }
    }

    pub(super) fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// Reads Rust's `{:e}` text of a non-negative finite number
    /// (`"1.25e-3"`, `"0e0"`, `"1.000e2"`).
    pub(super) fn parse(text: &str) -> Decimal {
        let (mantissa, exp) = text.split_once('e').unwrap_or((text, "0"));
        let mut exp: i32 = exp.parse().unwrap_or(0);
        let mut digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).map(|b| b - b'0').collect();
        // Normalize: no leading zeros (the exponent follows), no trailing ones.
        let leading = digits.iter().take_while(|&&d| d == 0).count();
        if leading == digits.len() {
            return Decimal::zero();
        }
        digits.drain(..leading);
        exp -= leading as i32;
        while digits.last() == Some(&0) {
            digits.pop();
        }
        Decimal { digits, exp }
    }

    /// The number `m × 10^e10`.
    pub(super) fn from_integer(m: u64, e10: i32) -> Decimal {
        let text = m.to_string();
        Decimal::parse(&format!("{}.{}e{}", &text[..1], &text[1..], e10 + text.len() as i32 - 1))
    }

    /// The exact decimal value of `x` (non-negative, finite). Every `f64`
    /// has a finite decimal expansion of at most 767 significant digits,
    /// and Rust prints as many as asked for exactly.
    pub(super) fn exact(x: f64) -> Decimal {
        Decimal::parse(&format!("{x:.770e}"))
    }

    /// `d.ddde±x` text that Rust's float parsers read.
    pub(super) fn to_sci_string(&self) -> String {
        let (lead, frac) = self.scientific_parts();
        format!("{lead}.{frac}0e{}", self.sci_exp())
    }

    /// Decimal exponent of the last digit (0 for zero).
    pub(super) fn last_exp(&self) -> i32 {
        if self.is_zero() {
            0
        } else {
            self.exp - (self.digits.len() as i32 - 1)
        }
    }

    /// This number rounded to a multiple of `10^pos`, ties to even.
    pub(super) fn round_at(&self, pos: i32) -> Decimal {
        if self.is_zero() || self.last_exp() >= pos {
            return self.clone();
        }
        // Number of leading digits at or above 10^pos (may be zero or less).
        let keep = self.exp as i64 - pos as i64 + 1;
        if keep < 0 {
            // Below half of 10^pos: rounds to zero.
            return Decimal::zero();
        }
        let keep = keep as usize;
        let mut kept: Vec<u8> = self.digits[..keep].to_vec();
        let rest = &self.digits[keep..];
        let first_dropped = rest.first().copied().unwrap_or(0);
        let beyond_half = rest.iter().skip(1).any(|&d| d != 0);
        let last_kept_odd = kept.last().is_some_and(|d| d % 2 == 1);
        let round_up = first_dropped > 5 || (first_dropped == 5 && (beyond_half || last_kept_odd));

        let mut exp = self.exp;
        if keep == 0 {
            // Nothing kept: the result is 0 or one unit of 10^pos.
            return if round_up { Decimal { digits: vec![1], exp: pos } } else { Decimal::zero() };
        }
        if round_up {
            // Add one at the last kept digit, carrying.
            let mut i = kept.len();
            loop {
                if i == 0 {
                    // All nines: 99.9 -> 100.
                    kept.insert(0, 1);
                    exp += 1;
                    break;
                }
                i -= 1;
                if kept[i] == 9 {
                    kept[i] = 0;
                } else {
                    kept[i] += 1;
                    break;
                }
            }
        }
        while kept.last() == Some(&0) {
            kept.pop();
        }
        if kept.is_empty() {
            return Decimal::zero();
        }
        Decimal { digits: kept, exp }
    }

    /// Integer and fraction digits when written without exponent:
    /// 12.5 -> ("12", "5"), 0.05 -> ("0", "05"), 300 -> ("300", "").
    pub(super) fn positional_parts(&self) -> (String, String) {
        if self.is_zero() {
            return ("0".to_string(), String::new());
        }
        let text: String = self.digits.iter().map(|&d| char::from(b'0' + d)).collect();
        if self.exp >= 0 {
            let int_len = self.exp as usize + 1;
            if text.len() <= int_len {
                let zeros = "0".repeat(int_len - text.len());
                (format!("{text}{zeros}"), String::new())
            } else {
                (text[..int_len].to_string(), text[int_len..].to_string())
            }
        } else {
            let zeros = "0".repeat((-self.exp - 1) as usize);
            ("0".to_string(), format!("{zeros}{text}"))
        }
    }

    /// Leading digit and the digits after it, for scientific notation.
    pub(super) fn scientific_parts(&self) -> (char, String) {
        match self.digits.split_first() {
            None => ('0', String::new()),
            Some((&lead, rest)) => (char::from(b'0' + lead), rest.iter().map(|&d| char::from(b'0' + d)).collect()),
        }
    }

    /// The exponent as printed in scientific notation (zero has 0).
    pub(super) fn sci_exp(&self) -> i32 {
        if self.is_zero() {
            0
        } else {
            self.exp
        }
    }
}

/// The shortest decimal that reads back as `x` in format `kind` (closest to
/// `x` among the shortest). `x` must be finite and non-negative.
pub(super) fn shortest(x: f64, kind: FloatKind) -> Decimal {
    if x == 0.0 {
        return Decimal::zero();
    }
    // Rust's `{:e}` prints the shortest round-trip digits of the type.
    let short = match kind {
        FloatKind::F64 => Decimal::parse(&format!("{x:e}")),
        FloatKind::F32 => Decimal::parse(&format!("{:e}", x as f32)),
        // Ties are already broken to even there.
        FloatKind::F16 => return shortest_f16(x),
    };
    tie_to_even(short, x, kind)
}

/// When `x` lies exactly halfway between the shortest digits Rust chose and
/// their neighbour of the same length, NumPy takes the one with the even last
/// digit (if that one reads back as `x` too); Rust does not always.
pub(super) fn tie_to_even(short: Decimal, x: f64, kind: FloatKind) -> Decimal {
    let last = short.last_exp();
    // Cheap test first: one digit more than the shortest must end in 5.
    let longer = format!("{:.*e}", short.digits.len(), x);
    let (mantissa, _) = longer.split_once('e').unwrap_or((&longer, ""));
    if !mantissa.ends_with('5') {
        return short;
    }
    let exact = Decimal::exact(x);
    if exact.last_exp() != last - 1 || exact.digits.last() != Some(&5) {
        return short;
    }
    // The exact value ends in that 5: rounding it half-to-even gives the
    // even neighbour.
    let even = exact.round_at(last);
    if even != short && kind.reads_back(&even, x) {
        even
    } else {
        short
    }
}

/// [`shortest`] for a half-precision value held in an `f64`.
pub(super) fn shortest_f16(x: f64) -> Decimal {
    // The reals that round to `x`: within half a gap of either neighbour,
    // the ends included when ties round to `x` (its significand is even).
    let exp = binary_exponent(x).max(-14);
    let gap_above = 2f64.powi(exp - 10);
    let is_power_of_two = x == 2f64.powi(exp) && exp > -14;
    let gap_below = if is_power_of_two { gap_above / 2.0 } else { gap_above };
    let (low, high) = (x - gap_below / 2.0, x + gap_above / 2.0);
    let even = ((x / gap_above).round() as u64).is_multiple_of(2);
    let reads_back = |c: f64| {
        if even {
            low <= c && c <= high
        } else {
            low < c && c < high
        }
    };

    // Half precision never needs more than 5 significant digits. For each
    // length, the nearest decimal of that length, or else a neighbour of it
    // (the rounding interval is lopsided at powers of two), may read back.
    for len in 1..=5usize {
        let nearest = format!("{:.*e}", len - 1, x);
        let (mantissa, exp10) = nearest.split_once('e').unwrap_or((&nearest, "0"));
        let m: i64 = mantissa.replace('.', "").parse().unwrap_or(0);
        let e10: i32 = exp10.parse().unwrap_or(0) - (len as i32 - 1);
        let mut best: Option<(f64, i64)> = None;
        for candidate in [m, m - 1, m + 1] {
            if candidate <= 0 {
                continue;
            }
            // A decimal this short parses to f64 far more precisely than
            // the interval's ends are apart from it, so this test is exact.
            let value: f64 = format!("{candidate}e{e10}").parse().unwrap_or(f64::NAN);
            if reads_back(value) {
                let dist = (value - x).abs();
                if best.is_none_or(|(d, _)| dist < d) {
                    best = Some((dist, candidate));
                }
            }
        }
        if let Some((_, candidate)) = best {
            return Decimal::from_integer(candidate.unsigned_abs(), e10);
        }
    }
    // Unreachable for genuine half values; fall back to the f64 digits.
    Decimal::parse(&format!("{x:e}"))
}

/// A limit on the digits of a number.
#[derive(Copy, Clone)]
pub(super) enum Cutoff {
    /// `n` digits after the point (positional notation): none below `10^-n`.
    Fraction(usize),
    /// `n` digits after the leading one (scientific notation).
    Significant(usize),
}

impl Cutoff {
    /// Decimal position of the last digit allowed in a number whose leading
    /// digit is at `10^lead`.
    pub(super) fn last_pos(self, lead: i32) -> i32 {
        match self {
            Cutoff::Fraction(n) => -(n as i32),
            Cutoff::Significant(n) => lead - n as i32,
        }
    }

    /// The exact value of `x` (finite, non-negative) rounded to this many
    /// digits, ties to even.
    pub(super) fn round(self, x: f64) -> Decimal {
        match self {
            // Rust's `{:.ne}` rounds the exact value correctly, ties to even.
            Cutoff::Significant(n) => Decimal::parse(&format!("{x:.n$e}")),
            // Used in positional notation only, where magnitudes are
            // moderate and the exact expansion is short.
            Cutoff::Fraction(n) => Decimal::exact(x).round_at(-(n as i32)),
        }
    }
}

/// NumPy's Dragon4 "unique" digits of `x` (finite, non-negative): the
/// shortest digits that identify `x` in its format, except that
/// - if those go past `cutoff`, it is the exact value of `x` rounded there;
/// - if they stop short of `min_digits` (counted like `cutoff`), it is the
///   exact value of `x` rounded at `min_digits` (NumPy then prints the true
///   digits, not zeros: a float16 1.005 with four decimals is 1.0049).
///
/// Rounding is to nearest, ties to even.
pub(super) fn unique_digits(x: f64, kind: FloatKind, cutoff: Cutoff, min_digits: Option<Cutoff>) -> Decimal {
    let short = shortest(x, kind);
    if short.is_zero() {
        return short;
    }
    let last = short.last_exp();
    if last < cutoff.last_pos(short.exp) {
        cutoff.round(x)
    } else if let Some(min) = min_digits.filter(|min| last > min.last_pos(short.exp)) {
        min.round(x)
    } else {
        short
    }
}
