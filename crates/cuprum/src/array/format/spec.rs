//! Python's format specs for one number, where Rust's differ: `e` (`3.898e-04`: a sign and at
//! least two exponent digits, where Rust writes `3.898e-4`) and `g` (`%g`: significant digits,
//! fixed or exponent form by the exponent, trailing zeros dropped). NaN and infinities as
//! Python writes them (`nan`, `inf`, `-inf`; upper case with `E`/`G`).

/// Python's `format(v, f".{prec}e")` (`E` with `upper`).
pub(crate) fn py_e(v: f64, prec: usize, upper: bool) -> String {
    let s = if let Some(s) = special(v) {
        s.to_string()
    } else {
        let r = format!("{v:.prec$e}");
        let (mant, exp) = r.split_once('e').expect("Rust's exponent form has an 'e'");
        let exp: i32 = exp.parse().expect("an integer exponent");
        format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs())
    };
    if upper {
        s.to_uppercase()
    } else {
        s
    }
}

/// Python's `format(v, f".{prec}g")` (`%.{prec}g`; `G` with `upper`): `prec` significant
/// digits (0 counts as 1); the exponent form where the exponent is below -4 or not below
/// `prec`; trailing zeros and a bare point removed.
pub(crate) fn py_g(v: f64, prec: usize, upper: bool) -> String {
    if let Some(s) = special(v) {
        return if upper { s.to_uppercase() } else { s.to_string() };
    }
    let p = prec.max(1);
    // The exponent after rounding to p significant digits.
    let r = format!("{v:.*e}", p - 1);
    let exp: i32 = r.split_once('e').expect("Rust's exponent form has an 'e'").1.parse().expect("an integer exponent");
    if exp < -4 || exp >= p as i32 {
        let e = py_e(v, p - 1, upper);
        let (mant, rest) = e.split_at(e.find(['e', 'E']).expect("an exponent"));
        format!("{}{rest}", trim_zeros(mant))
    } else {
        trim_zeros(&format!("{v:.*}", (p as i32 - 1 - exp) as usize)).to_string()
    }
}

fn special(v: f64) -> Option<&'static str> {
    if v.is_nan() {
        Some("nan")
    } else if v.is_infinite() {
        Some(if v > 0.0 { "inf" } else { "-inf" })
    } else {
        None
    }
}

/// `1.500` → `1.5`, `2.000` → `2`, `100` → `100`.
fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's own answers (`format(v, spec)`, CPython 3.12).
    #[test]
    fn as_python() {
        assert_eq!(py_e(3.898e-4, 3, false), "3.898e-04");
        assert_eq!(py_e(1.2474, 3, false), "1.247e+00");
        assert_eq!(py_e(-1e100, 2, true), "-1.00E+100");
        assert_eq!(py_e(0.0, 3, false), "0.000e+00");
        assert_eq!(py_e(f64::NAN, 3, false), "nan");
        assert_eq!(py_e(f64::NEG_INFINITY, 3, true), "-INF");
        assert_eq!(py_g(33.333333, 3, false), "33.3");
        assert_eq!(py_g(100.0, 3, false), "100");
        assert_eq!(py_g(0.05, 3, false), "0.05");
        assert_eq!(py_g(1e-7, 6, false), "1e-07");
        assert_eq!(py_g(0.0, 6, false), "0");
        assert_eq!(py_g(123456789.0, 3, false), "1.23e+08");
        assert_eq!(py_g(0.0001234, 3, false), "0.000123");
        assert_eq!(py_g(0.00001234, 3, false), "1.23e-05");
        assert_eq!(py_g(999.96, 4, false), "1000");
        assert_eq!(py_g(99999.5, 5, false), "1e+05");
        assert_eq!(py_g(-2.5, 0, true), "-2");
    }
}
