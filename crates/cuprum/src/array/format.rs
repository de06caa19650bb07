//! Text rendering of arrays exactly as NumPy 2 prints them.
//!
//! [`array_repr`] and [`array_str`] reproduce `repr(a)` and `str(a)` of NumPy 2
//! under its default print options (`precision=8`, `floatmode='maxprec'`,
//! `suppress=False`, `linewidth=75`, `threshold=1000`, `edgeitems=3`,
//! `sign='-'`, `legacy=False`) byte for byte.
//!
//! A large array is never copied to the host whole: NumPy only prints the
//! "corners" of an array with more than [`THRESHOLD`] elements (the first and
//! last [`EDGEITEMS`] items along every long axis), so the caller fetches just
//! those ([`shown_shape`], [`shown_indices`]) and hands them over as
//! [`HostValues`]. Every formatting decision (column widths, fixed or
//! scientific notation, digits) is made from the shown values only, which is
//! also what NumPy does.
//!
//! Floats are printed with the shortest digits that identify the value in its
//! own dtype (a `float32` 0.1 prints as `0.1`), limited to 8 digits after the
//! point, like NumPy's Dragon4 in "unique" mode.

use crate::core::dtype::DType;

/// Element values of the *shown* part of an array, in row-major order.
///
/// `Int8`..`Int64` come as `I64`, `UInt8`..`UInt64` as `U64`, and
/// `Float16`/`Float32`/`Float64` as `F64` (each value exactly the element
/// converted to `f64`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum HostValues {
    Bool(Vec<bool>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    F64(Vec<f64>),
}

/// Items shown at each end of a summarized axis (NumPy's `edgeitems`).
pub(crate) const EDGEITEMS: usize = 3;
/// Arrays with more elements than this are summarized (NumPy's `threshold`).
pub(crate) const THRESHOLD: usize = 1000;

/// NumPy's default `linewidth`.
const LINE_WIDTH: usize = 75;
/// NumPy's default `precision`: at most this many digits after the point.
const PRECISION: usize = 8;
/// Prefix of `repr`.
const REPR_PREFIX: &str = "array(";
/// What stands in for the items left out of a summarized axis.
const ELLIPSIS: &str = "...";

// ---------------------------------------------------------------------------
// Which part of an array is shown
// ---------------------------------------------------------------------------

/// Number of elements of `shape` (saturating, so absurd shapes cannot
/// overflow; any zero axis gives zero).
fn element_count(shape: &[usize]) -> usize {
    shape.iter().fold(1usize, |n, &len| n.saturating_mul(len))
}

/// Whether NumPy would summarize an array of this shape (size > [`THRESHOLD`]).
pub(crate) fn summarizes(shape: &[usize]) -> bool {
    element_count(shape) > THRESHOLD
}

/// Whether an axis of length `len` is cut to its ends (given that the array
/// as a whole is summarized).
fn axis_is_cut(summarize: bool, len: usize) -> bool {
    summarize && len > 2 * EDGEITEMS
}

/// The shape of the shown part: when summarizing, each axis longer than
/// `2 * EDGEITEMS` becomes `2 * EDGEITEMS` (its first and last `EDGEITEMS`
/// items); otherwise the shape is unchanged.
pub(crate) fn shown_shape(shape: &[usize]) -> Vec<usize> {
    let summarize = summarizes(shape);
    shape.iter().map(|&len| if axis_is_cut(summarize, len) { 2 * EDGEITEMS } else { len }).collect()
}

/// For every axis, the indices along that axis that are shown, ascending.
/// The shown values are the row-major cartesian product of these lists.
/// An empty array shows nothing, so then every list is empty.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn shown_indices(shape: &[usize]) -> Vec<Vec<usize>> {
    if element_count(shape) == 0 {
        return vec![Vec::new(); shape.len()];
    }
    let summarize = summarizes(shape);
    shape
        .iter()
        .map(|&len| {
            if axis_is_cut(summarize, len) {
                (0..EDGEITEMS).chain(len - EDGEITEMS..len).collect()
            } else {
                (0..len).collect()
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------

/// NumPy's `repr(a)`, e.g. `array([[0, 1, 2],\n       [3, 4, 5]])`,
/// `array([1. , 2.5], dtype=float32)`, `array(5)`, `array([], dtype=float64)`.
///
/// `shape` is the original shape, `shown` the values of the shown part
/// (see [`shown_shape`]).
pub(crate) fn array_repr(dtype: DType, shape: &[usize], shown: &HostValues) -> String {
    let size = element_count(shape);
    let body = if size == 0 {
        "[]".to_string()
    } else {
        // The closing ")" must fit on the line too.
        render_array(dtype, shape, shown, ", ", REPR_PREFIX.len(), LINE_WIDTH - 1)
    };

    // Shape and dtype are spelled out where the values do not imply them.
    let mut extras = Vec::new();
    if (size == 0 && shape != [0]) || size > THRESHOLD {
        extras.push(format!("shape={}", shape_tuple(shape)));
    }
    if !dtype_is_implied(dtype) || size == 0 {
        extras.push(format!("dtype={}", dtype.name()));
    }
    if extras.is_empty() {
        return format!("{REPR_PREFIX}{body})");
    }

    let head = format!("{REPR_PREFIX}{body},");
    let tail = format!("{})", extras.join(", "));
    // The extras go on a line of their own if they would overflow the last one.
    let last_line_len = head.len() - head.rfind('\n').map_or(0, |i| i + 1);
    let spacer = if last_line_len + tail.len() + 1 > LINE_WIDTH {
        format!("\n{}", " ".repeat(REPR_PREFIX.len()))
    } else {
        " ".to_string()
    };
    format!("{head}{spacer}{tail}")
}

/// NumPy's `str(a)`, e.g. `[[0 1 2]\n [3 4 5]]`, `[]`; a 0-d array prints as
/// its scalar does (`5`, `0.1`, `1e+16`, `True`).
pub(crate) fn array_str(dtype: DType, shape: &[usize], shown: &HostValues) -> String {
    if shape.is_empty() {
        return scalar_str(dtype, shown);
    }
    if element_count(shape) == 0 {
        return "[]".to_string();
    }
    render_array(dtype, shape, shown, " ", 0, LINE_WIDTH)
}

/// dtypes that `repr` leaves unnamed because the values imply them.
fn dtype_is_implied(dtype: DType) -> bool {
    matches!(dtype, DType::Bool | DType::Int64 | DType::Float64)
}

/// A shape written as a Python tuple: `(0,)`, `(2, 3)`.
fn shape_tuple(shape: &[usize]) -> String {
    let items: Vec<String> = shape.iter().map(|n| n.to_string()).collect();
    if items.len() == 1 {
        format!("({},)", items[0])
    } else {
        format!("({})", items.join(", "))
    }
}

/// `str` of a 0-d array: the `str` of the NumPy scalar.
fn scalar_str(dtype: DType, shown: &HostValues) -> String {
    match shown {
        HostValues::Bool(v) => v.first().map_or(MISSING.to_string(), |&b| bool_word(b).to_string()),
        HostValues::I64(v) => v.first().map_or(MISSING.to_string(), |x| x.to_string()),
        HostValues::U64(v) => v.first().map_or(MISSING.to_string(), |x| x.to_string()),
        HostValues::F64(v) => v.first().map_or(MISSING.to_string(), |&x| float_scalar_str(x, FloatKind::of(dtype))),
    }
}

/// Printed in place of a value the caller did not supply (never happens with
/// well-formed input; it only keeps a malformed call from panicking).
const MISSING: &str = "?";

// ---------------------------------------------------------------------------
// Layout: brackets, separators, line wrapping, summarization
// ---------------------------------------------------------------------------

/// The bracketed text of a non-empty array (the part inside `array(...)`).
///
/// `prefix_len` is the width of what precedes the opening bracket on the
/// first line (`array(` for repr), so that continuation lines line up;
/// `line_width` is the width available to the text.
fn render_array(
    dtype: DType,
    shape: &[usize],
    shown: &HostValues,
    separator: &str,
    prefix_len: usize,
    line_width: usize,
) -> String {
    let words = format_elements(dtype, shown, shape.is_empty());
    if shape.is_empty() {
        return words.into_iter().next().unwrap_or_else(|| MISSING.to_string());
    }
    let shown_dims = shown_shape(shape);
    // Row-major strides of the shown part.
    let mut strides = vec![1usize; shape.len()];
    for axis in (0..shape.len().saturating_sub(1)).rev() {
        strides[axis] = strides[axis + 1].saturating_mul(shown_dims[axis + 1]);
    }
    let layout = Layout {
        shape,
        shown_dims: &shown_dims,
        strides: &strides,
        summarize: summarizes(shape),
        words: &words,
        separator,
    };
    // Continuation lines are indented past the "[" (and the prefix).
    let indent = " ".repeat(prefix_len + 1);
    layout.block(0, 0, &indent, line_width as isize)
}

/// Everything needed to lay out the formatted elements of one array.
struct Layout<'a> {
    /// The original shape (decides where "..." goes).
    shape: &'a [usize],
    /// The shape of the shown part, which `words` holds row-major.
    shown_dims: &'a [usize],
    strides: &'a [usize],
    summarize: bool,
    words: &'a [String],
    /// ", " for repr, " " for str.
    separator: &'a str,
}

/// One item of an axis: a shown index, or the "..." of a cut axis.
enum Item {
    At(usize),
    Ellipsis,
}

impl Layout<'_> {
    /// The items of `axis` in print order.
    fn items(&self, axis: usize) -> Vec<Item> {
        let shown = self.shown_dims[axis];
        let mut items: Vec<Item> = (0..shown).map(Item::At).collect();
        if axis_is_cut(self.summarize, self.shape[axis]) {
            items.insert(EDGEITEMS.min(items.len()), Item::Ellipsis);
        }
        items
    }

    /// The bracketed text of the sub-array at `axis` whose first element is
    /// the shown element `offset`. `indent` is the indentation of lines
    /// that continue this block and `width` the room it has on a line.
    fn block(&self, axis: usize, offset: usize, indent: &str, width: isize) -> String {
        let items = self.items(axis);
        let count = items.len();
        let stride = self.strides[axis];
        let axes_left = self.shape.len() - axis;
        // Each text starts with `indent`, which the opening bracket replaces.
        let mut text = String::new();

        if axes_left == 1 {
            // The last axis: elements on one line, wrapped where they would
            // pass the width (minus one for the separator or bracket after).
            let room = width - 1;
            let mut line = indent.to_string();
            for (k, item) in items.iter().enumerate() {
                let word = match item {
                    Item::At(j) => {
                        self.words.get(offset.saturating_add(j.saturating_mul(stride))).map_or(MISSING, String::as_str)
                    }
                    Item::Ellipsis => ELLIPSIS,
                };
                extend_line(&mut text, &mut line, word, room, indent);
                if k + 1 < count {
                    line.push_str(self.separator);
                }
            }
            text.push_str(&line);
        } else {
            // Outer axes: one sub-block per line, with blank lines between
            // the blocks of the third-to-last axis and beyond.
            let line_sep = format!("{}{}", self.separator.trim_end(), "\n".repeat(axes_left - 1));
            let inner_indent = format!("{indent} ");
            for (k, item) in items.iter().enumerate() {
                text.push_str(indent);
                match item {
                    Item::At(j) => {
                        let start = offset.saturating_add(j.saturating_mul(stride));
                        text.push_str(&self.block(axis + 1, start, &inner_indent, width - 1));
                    }
                    Item::Ellipsis => text.push_str(ELLIPSIS),
                }
                if k + 1 < count {
                    text.push_str(&line_sep);
                }
            }
        }

        let inner = text.strip_prefix(indent).unwrap_or(&text);
        format!("[{inner}]")
    }
}

/// Appends `word` to `line`, first moving `line` into `text` and starting a
/// new line at `indent` when the word would pass `width` — unless the line
/// holds nothing yet, where wrapping would not help.
fn extend_line(text: &mut String, line: &mut String, word: &str, width: isize, indent: &str) {
    let too_long = (line.len() + word.len()) as isize > width;
    if too_long && line.len() > indent.len() {
        text.push_str(line.trim_end());
        text.push('\n');
        line.clear();
        line.push_str(indent);
    }
    line.push_str(word);
}

// ---------------------------------------------------------------------------
// Elements
// ---------------------------------------------------------------------------

/// The text of every shown element, padded to align in columns as NumPy
/// does (one format for the whole array, decided from all shown values).
fn format_elements(dtype: DType, shown: &HostValues, zero_d: bool) -> Vec<String> {
    match shown {
        HostValues::Bool(v) => v
            .iter()
            .map(|&b| {
                // " True" lines up with "False", except in a 0-d array.
                if b && !zero_d {
                    " True".to_string()
                } else {
                    bool_word(b).to_string()
                }
            })
            .collect(),
        HostValues::I64(v) => right_aligned(v.iter().map(|x| x.to_string()).collect()),
        HostValues::U64(v) => right_aligned(v.iter().map(|x| x.to_string()).collect()),
        HostValues::F64(v) => {
            let format = FloatFormat::new(v, FloatKind::of(dtype));
            v.iter().map(|&x| format.format(x)).collect()
        }
    }
}

fn bool_word(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// Pads every string on the left to the length of the longest.
fn right_aligned(words: Vec<String>) -> Vec<String> {
    let width = words.iter().map(String::len).max().unwrap_or(0);
    words.into_iter().map(|w| format!("{w:>width$}")).collect()
}

// ---------------------------------------------------------------------------
// Floats: the element types and their properties
// ---------------------------------------------------------------------------

/// Which binary format the `f64` values really are.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum FloatKind {
    F16,
    F32,
    F64,
}

impl FloatKind {
    fn of(dtype: DType) -> FloatKind {
        match dtype {
            DType::Float16 => FloatKind::F16,
            DType::Float32 => FloatKind::F32,
            _ => FloatKind::F64,
        }
    }

    /// `x` rounded to this format (NumPy compares a float16/float32 with a
    /// Python float after converting the Python float to the array's type).
    fn narrow(self, x: f64) -> f64 {
        match self {
            FloatKind::F16 => round_to_f16(x),
            FloatKind::F32 => x as f32 as f64,
            FloatKind::F64 => x,
        }
    }

    /// `a / b` computed in this format.
    fn div(self, a: f64, b: f64) -> f64 {
        match self {
            // NumPy divides halves in single precision and rounds to half.
            FloatKind::F16 => round_to_f16((a as f32 / b as f32) as f64),
            FloatKind::F32 => (a as f32 / b as f32) as f64,
            FloatKind::F64 => a / b,
        }
    }

    /// Whether the decimal `d` reads back (rounds to nearest) as `x` in
    /// this format. Used for `F32` and `F64`.
    fn reads_back(self, d: &Decimal, x: f64) -> bool {
        let text = d.to_sci_string();
        match self {
            FloatKind::F32 => text.parse::<f32>().is_ok_and(|v| v as f64 == x),
            FloatKind::F64 => text.parse::<f64>().is_ok_and(|v| v == x),
            FloatKind::F16 => text.parse::<f64>().is_ok_and(|v| round_to_f16(v) == x),
        }
    }

    /// Arrays switch to scientific notation from this magnitude on:
    /// `10**min(8, finfo(dtype).precision)`.
    fn array_sci_from(self) -> f64 {
        match self {
            FloatKind::F16 => 1e3,
            FloatKind::F32 => 1e6,
            FloatKind::F64 => 1e8,
        }
    }

    /// Scalars (and so `str` of 0-d arrays) switch to scientific notation
    /// from this magnitude on.
    fn scalar_sci_from(self) -> f64 {
        match self {
            FloatKind::F16 => 1e3,
            FloatKind::F32 => 1e6,
            FloatKind::F64 => 1e16,
        }
    }
}

/// `x` rounded to the nearest IEEE half-precision value (ties to even), as
/// an `f64`; out of range gives ±infinity.
fn round_to_f16(x: f64) -> f64 {
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
fn binary_exponent(x: f64) -> i32 {
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
struct Decimal {
    digits: Vec<u8>,
    exp: i32,
}

impl Decimal {
    fn zero() -> Decimal {
        Decimal { digits: Vec::new(), exp: 0 }
    }

    fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// Reads Rust's `{:e}` text of a non-negative finite number
    /// (`"1.25e-3"`, `"0e0"`, `"1.000e2"`).
    fn parse(text: &str) -> Decimal {
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
    fn from_integer(m: u64, e10: i32) -> Decimal {
        let text = m.to_string();
        Decimal::parse(&format!("{}.{}e{}", &text[..1], &text[1..], e10 + text.len() as i32 - 1))
    }

    /// The exact decimal value of `x` (non-negative, finite). Every `f64`
    /// has a finite decimal expansion of at most 767 significant digits,
    /// and Rust prints as many as asked for exactly.
    fn exact(x: f64) -> Decimal {
        Decimal::parse(&format!("{x:.770e}"))
    }

    /// `d.ddde±x` text that Rust's float parsers read.
    fn to_sci_string(&self) -> String {
        let (lead, frac) = self.scientific_parts();
        format!("{lead}.{frac}0e{}", self.sci_exp())
    }

    /// Decimal exponent of the last digit (0 for zero).
    fn last_exp(&self) -> i32 {
        if self.is_zero() {
            0
        } else {
            self.exp - (self.digits.len() as i32 - 1)
        }
    }

    /// This number rounded to a multiple of `10^pos`, ties to even.
    fn round_at(&self, pos: i32) -> Decimal {
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
    fn positional_parts(&self) -> (String, String) {
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
    fn scientific_parts(&self) -> (char, String) {
        match self.digits.split_first() {
            None => ('0', String::new()),
            Some((&lead, rest)) => (char::from(b'0' + lead), rest.iter().map(|&d| char::from(b'0' + d)).collect()),
        }
    }

    /// The exponent as printed in scientific notation (zero has 0).
    fn sci_exp(&self) -> i32 {
        if self.is_zero() {
            0
        } else {
            self.exp
        }
    }
}

/// The shortest decimal that reads back as `x` in format `kind` (closest to
/// `x` among the shortest). `x` must be finite and non-negative.
fn shortest(x: f64, kind: FloatKind) -> Decimal {
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
fn tie_to_even(short: Decimal, x: f64, kind: FloatKind) -> Decimal {
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
fn shortest_f16(x: f64) -> Decimal {
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
enum Cutoff {
    /// `n` digits after the point (positional notation): none below `10^-n`.
    Fraction(usize),
    /// `n` digits after the leading one (scientific notation).
    Significant(usize),
}

impl Cutoff {
    /// Decimal position of the last digit allowed in a number whose leading
    /// digit is at `10^lead`.
    fn last_pos(self, lead: i32) -> i32 {
        match self {
            Cutoff::Fraction(n) => -(n as i32),
            Cutoff::Significant(n) => lead - n as i32,
        }
    }

    /// The exact value of `x` (finite, non-negative) rounded to this many
    /// digits, ties to even.
    fn round(self, x: f64) -> Decimal {
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
fn unique_digits(x: f64, kind: FloatKind, cutoff: Cutoff, min_digits: Option<Cutoff>) -> Decimal {
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

// ---------------------------------------------------------------------------
// Floats: array elements
// ---------------------------------------------------------------------------

/// NumPy's `FloatingFormat` under the default print options: one notation
/// and one set of paddings for all elements of an array.
struct FloatFormat {
    kind: FloatKind,
    scientific: bool,
    /// Width of what precedes the decimal point (sign included).
    pad_left: usize,
    /// Width of what follows the decimal point (exponent included).
    pad_right: usize,
    /// Scientific only: digits after the point, exponent digits.
    frac_digits: usize,
    exp_digits: usize,
}

impl FloatFormat {
    fn new(values: &[f64], kind: FloatKind) -> FloatFormat {
        let finite: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();

        // Scientific notation when the non-zero magnitudes are very large,
        // very small, or far apart (compared in the element type).
        let mut scientific = false;
        let magnitudes: Vec<f64> = finite.iter().filter(|&&x| x != 0.0).map(|x| x.abs()).collect();
        if !magnitudes.is_empty() {
            let max = magnitudes.iter().copied().fold(f64::MIN, f64::max);
            let min = magnitudes.iter().copied().fold(f64::MAX, f64::min);
            scientific = max >= kind.array_sci_from() || min < kind.narrow(1e-4) || kind.div(max, min) > 1000.0;
        }

        let mut format = FloatFormat { kind, scientific, pad_left: 0, pad_right: 0, frac_digits: 0, exp_digits: 0 };

        // A first pass over the digits of every value fixes the widths.
        if scientific {
            for &x in &finite {
                let digits = unique_digits(x.abs(), kind, Cutoff::Significant(PRECISION), None);
                let (_, frac) = digits.scientific_parts();
                let sign = usize::from(x.is_sign_negative());
                format.pad_left = format.pad_left.max(1 + sign);
                format.frac_digits = format.frac_digits.max(frac.len());
                format.exp_digits = format.exp_digits.max(exponent_digits(digits.sci_exp()));
            }
            if !finite.is_empty() {
                // Point, "e", the exponent's sign and digits, and the fraction.
                format.pad_right = format.exp_digits + 2 + format.frac_digits;
            }
        } else {
            for &x in &finite {
                let digits = unique_digits(x.abs(), kind, Cutoff::Fraction(PRECISION), None);
                let (int, frac) = digits.positional_parts();
                let sign = usize::from(x.is_sign_negative());
                format.pad_left = format.pad_left.max(int.len() + sign);
                format.pad_right = format.pad_right.max(frac.len());
            }
        }

        // Room for "nan", "inf" and "-inf", which are right-aligned.
        if finite.len() != values.len() {
            let neg_inf = values.contains(&f64::NEG_INFINITY);
            let after_left = format.pad_right + 1;
            format.pad_left = format
                .pad_left
                .max(3usize.saturating_sub(after_left))
                .max((3 + usize::from(neg_inf)).saturating_sub(after_left));
        }
        format
    }

    fn format(&self, x: f64) -> String {
        if !x.is_finite() {
            let word = if x.is_nan() {
                "nan"
            } else if x < 0.0 {
                "-inf"
            } else {
                "inf"
            };
            let width = self.pad_left + self.pad_right + 1;
            return format!("{word:>width$}");
        }
        let sign = if x.is_sign_negative() { "-" } else { "" };
        let pad_left = self.pad_left;
        if self.scientific {
            let digits = unique_digits(
                x.abs(),
                self.kind,
                Cutoff::Significant(self.frac_digits),
                Some(Cutoff::Significant(self.frac_digits)),
            );
            let (lead, frac) = digits.scientific_parts();
            let int = format!("{sign}{lead}");
            let exp = digits.sci_exp();
            let exp_sign = if exp < 0 { '-' } else { '+' };
            format!(
                "{int:>pad_left$}.{frac:0<fw$}e{exp_sign}{mag:0>ew$}",
                fw = self.frac_digits,
                mag = exp.unsigned_abs(),
                ew = self.exp_digits,
            )
        } else {
            let digits = unique_digits(x.abs(), self.kind, Cutoff::Fraction(PRECISION), None);
            let (int, frac) = digits.positional_parts();
            let int = format!("{sign}{int}");
            format!("{int:>pad_left$}.{frac:<pr$}", pr = self.pad_right)
        }
    }
}

/// Digits NumPy prints for an exponent: at least two.
fn exponent_digits(exp: i32) -> usize {
    exp.unsigned_abs().to_string().len().max(2)
}

/// `str` of a NumPy float scalar: shortest digits, positional with at least
/// one fraction digit (`1.0`) for moderate magnitudes, else scientific
/// without a bare point (`1e+16`, `6.55e+04`).
fn float_scalar_str(x: f64, kind: FloatKind) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let mag = x.abs();
    let digits = shortest(mag, kind);
    if mag == 0.0 || (mag >= 1e-4 && mag < kind.scalar_sci_from()) {
        let (int, frac) = digits.positional_parts();
        let frac = if frac.is_empty() { "0".to_string() } else { frac };
        format!("{sign}{int}.{frac}")
    } else {
        let (lead, frac) = digits.scientific_parts();
        let point = if frac.is_empty() { "" } else { "." };
        let exp = digits.sci_exp();
        let exp_sign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{lead}{point}{frac}e{exp_sign}{:02}", exp.unsigned_abs())
    }
}

#[cfg(test)]
mod tests {
    //! Expected strings were produced by NumPy 2.4 (`repr(a)`, `str(a)`)
    //! with default print options.

    use super::*;

    /// The shown part of a row-major array `full` of this shape.
    fn shown_part<T: Copy>(full: &[T], shape: &[usize]) -> Vec<T> {
        let indices = shown_indices(shape);
        let mut strides = vec![1usize; shape.len()];
        for axis in (0..shape.len().saturating_sub(1)).rev() {
            strides[axis] = strides[axis + 1] * shape[axis + 1];
        }
        let count: usize = indices.iter().map(Vec::len).product();
        (0..count)
            .map(|mut k| {
                // Decompose k over the shown lengths, last axis fastest.
                let mut offset = 0;
                for axis in (0..shape.len()).rev() {
                    let n = indices[axis].len();
                    offset += indices[axis][k % n] * strides[axis];
                    k /= n;
                }
                full[offset]
            })
            .collect()
    }

    /// Checks repr and str of the array with all values `full`.
    fn check(dtype: DType, shape: &[usize], full: HostValues, repr: &str, str: &str) {
        let shown = match full {
            HostValues::Bool(v) => HostValues::Bool(shown_part(&v, shape)),
            HostValues::I64(v) => HostValues::I64(shown_part(&v, shape)),
            HostValues::U64(v) => HostValues::U64(shown_part(&v, shape)),
            HostValues::F64(v) => HostValues::F64(shown_part(&v, shape)),
        };
        assert_eq!(array_repr(dtype, shape, &shown), repr, "repr of {dtype:?} {shape:?}");
        assert_eq!(array_str(dtype, shape, &shown), str, "str of {dtype:?} {shape:?}");
    }

    #[test]
    fn which_part_is_shown() {
        assert!(!summarizes(&[1000]));
        assert!(summarizes(&[1001]));
        assert!(!summarizes(&[]));
        assert!(!summarizes(&[0, usize::MAX]));
        assert!(summarizes(&[usize::MAX, usize::MAX]));
        assert_eq!(shown_shape(&[40, 50]), vec![6, 6]);
        assert_eq!(shown_shape(&[2, 1001]), vec![2, 6]);
        assert_eq!(shown_shape(&[10, 10]), vec![10, 10]);
        assert_eq!(shown_shape(&[]), Vec::<usize>::new());
        assert_eq!(shown_indices(&[2, 1001]), vec![vec![0, 1], vec![0, 1, 2, 998, 999, 1000]]);
        assert_eq!(shown_indices(&[3]), vec![vec![0, 1, 2]]);
        assert_eq!(shown_indices(&[0, 5]), vec![Vec::<usize>::new(), Vec::new()]);
        assert_eq!(shown_indices(&[]), Vec::<Vec<usize>>::new());
    }

    #[test]
    fn malformed_input_does_not_panic() {
        // Too few values, wrong variant, huge shapes: odd output, no panic.
        let none = HostValues::F64(Vec::new());
        assert_eq!(array_str(DType::Float64, &[], &none), "?");
        assert_eq!(array_repr(DType::Float64, &[2], &none), "array([?, ?])");
        let _ = array_repr(DType::Int8, &[usize::MAX, 3], &HostValues::I64(vec![1, 2]));
        let _ = array_str(DType::Float16, &[3], &HostValues::F64(vec![0.1, 1e300, -1e-320]));
        let _ = array_str(DType::Float32, &[2], &HostValues::F64(vec![1e300, f64::MIN_POSITIVE]));
        let _ = array_repr(DType::Bool, &[2], &HostValues::U64(vec![u64::MAX, 0]));
        let deep = vec![1usize; 100];
        assert!(array_repr(DType::Int64, &deep, &HostValues::I64(vec![7])).contains('7'));
    }

    #[test]
    fn float_digits() {
        // Shortest digits in the element's own type, ties to even.
        assert_eq!(float_scalar_str(0.1f32 as f64, FloatKind::F32), "0.1");
        assert_eq!(float_scalar_str(19781.0625, FloatKind::F32), "19781.062");
        assert_eq!(float_scalar_str(round_to_f16(0.1), FloatKind::F16), "0.1");
        assert_eq!(float_scalar_str(round_to_f16(1.0 / 3.0), FloatKind::F16), "0.3333");
        assert_eq!(float_scalar_str(1e23, FloatKind::F64), "1e+23");
        assert_eq!(float_scalar_str(5e-324, FloatKind::F64), "5e-324");
        assert_eq!(round_to_f16(65519.0), 65504.0);
        assert_eq!(round_to_f16(65520.0), f64::INFINITY);
        assert_eq!(round_to_f16(1e-8), 0.0);
        assert_eq!(round_to_f16(2049.0), 2048.0);
        assert_eq!(round_to_f16(2051.0), 2052.0);
    }

    #[test]
    fn int64_2d() {
        check(
            DType::Int64,
            &[2, 5],
            HostValues::I64(vec![0i64, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
            "array([[0, 1, 2, 3, 4],\n       [5, 6, 7, 8, 9]])",
            "[[0 1 2 3 4]\n [5 6 7 8 9]]",
        );
    }

    #[test]
    fn int8_extremes() {
        check(
            DType::Int8,
            &[3],
            HostValues::I64(vec![-128i64, 0, 127]),
            "array([-128,    0,  127], dtype=int8)",
            "[-128    0  127]",
        );
    }

    #[test]
    fn int16_negative() {
        check(
            DType::Int16,
            &[4],
            HostValues::I64(vec![-5i64, 10, -300, 7]),
            "array([  -5,   10, -300,    7], dtype=int16)",
            "[  -5   10 -300    7]",
        );
    }

    #[test]
    fn int32_mixed_widths() {
        check(
            DType::Int32,
            &[2, 3],
            HostValues::I64(vec![1i64, -22, 333, -4444, 55555, 6]),
            "array([[    1,   -22,   333],\n       [-4444, 55555,     6]], dtype=int32)",
            "[[    1   -22   333]\n [-4444 55555     6]]",
        );
    }

    #[test]
    fn int64_extremes() {
        check(
            DType::Int64,
            &[3],
            HostValues::I64(vec![-9223372036854775808i64, 0, 9223372036854775807]),
            "array([-9223372036854775808,                    0,  9223372036854775807])",
            "[-9223372036854775808                    0  9223372036854775807]",
        );
    }

    #[test]
    fn uint8() {
        check(
            DType::UInt8,
            &[3],
            HostValues::U64(vec![0u64, 7, 255]),
            "array([  0,   7, 255], dtype=uint8)",
            "[  0   7 255]",
        );
    }

    #[test]
    fn uint16() {
        check(
            DType::UInt16,
            &[2, 2],
            HostValues::U64(vec![1u64, 65535, 300, 2]),
            "array([[    1, 65535],\n       [  300,     2]], dtype=uint16)",
            "[[    1 65535]\n [  300     2]]",
        );
    }

    #[test]
    fn uint32() {
        check(
            DType::UInt32,
            &[2],
            HostValues::U64(vec![4294967295u64, 1]),
            "array([4294967295,          1], dtype=uint32)",
            "[4294967295          1]",
        );
    }

    #[test]
    fn uint64_max() {
        check(
            DType::UInt64,
            &[2],
            HostValues::U64(vec![0u64, 18446744073709551615]),
            "array([                   0, 18446744073709551615], dtype=uint64)",
            "[                   0 18446744073709551615]",
        );
    }

    #[test]
    fn int_wrap() {
        check(
            DType::Int64,
            &[100],
            HostValues::I64(vec![0i64, 37, 74, 111, 148, 185, 222, 259, 296, 333, 370, 407, 444, 481, 518, 555, 592, 629, 666, 703, 740, 777, 814, 851, 888, 925, 962, 999, 1036, 1073, 1110, 1147, 1184, 1221, 1258, 1295, 1332, 1369, 1406, 1443, 1480, 1517, 1554, 1591, 1628, 1665, 1702, 1739, 1776, 1813, 1850, 1887, 1924, 1961, 1998, 2035, 2072, 2109, 2146, 2183, 2220, 2257, 2294, 2331, 2368, 2405, 2442, 2479, 2516, 2553, 2590, 2627, 2664, 2701, 2738, 2775, 2812, 2849, 2886, 2923, 2960, 2997, 3034, 3071, 3108, 3145, 3182, 3219, 3256, 3293, 3330, 3367, 3404, 3441, 3478, 3515, 3552, 3589, 3626, 3663]),
            "array([   0,   37,   74,  111,  148,  185,  222,  259,  296,  333,  370,\n        407,  444,  481,  518,  555,  592,  629,  666,  703,  740,  777,\n        814,  851,  888,  925,  962,  999, 1036, 1073, 1110, 1147, 1184,\n       1221, 1258, 1295, 1332, 1369, 1406, 1443, 1480, 1517, 1554, 1591,\n       1628, 1665, 1702, 1739, 1776, 1813, 1850, 1887, 1924, 1961, 1998,\n       2035, 2072, 2109, 2146, 2183, 2220, 2257, 2294, 2331, 2368, 2405,\n       2442, 2479, 2516, 2553, 2590, 2627, 2664, 2701, 2738, 2775, 2812,\n       2849, 2886, 2923, 2960, 2997, 3034, 3071, 3108, 3145, 3182, 3219,\n       3256, 3293, 3330, 3367, 3404, 3441, 3478, 3515, 3552, 3589, 3626,\n       3663])",
            "[   0   37   74  111  148  185  222  259  296  333  370  407  444  481\n  518  555  592  629  666  703  740  777  814  851  888  925  962  999\n 1036 1073 1110 1147 1184 1221 1258 1295 1332 1369 1406 1443 1480 1517\n 1554 1591 1628 1665 1702 1739 1776 1813 1850 1887 1924 1961 1998 2035\n 2072 2109 2146 2183 2220 2257 2294 2331 2368 2405 2442 2479 2516 2553\n 2590 2627 2664 2701 2738 2775 2812 2849 2886 2923 2960 2997 3034 3071\n 3108 3145 3182 3219 3256 3293 3330 3367 3404 3441 3478 3515 3552 3589\n 3626 3663]",
        );
    }

    #[test]
    fn uint64_wrap() {
        check(
            DType::UInt64,
            &[12],
            HostValues::U64(vec![18446744073709551615u64, 18446744073709551518, 18446744073709551421, 18446744073709551324, 18446744073709551227, 18446744073709551130, 18446744073709551033, 18446744073709550936, 18446744073709550839, 18446744073709550742, 18446744073709550645, 18446744073709550548]),
            "array([18446744073709551615, 18446744073709551518, 18446744073709551421,\n       18446744073709551324, 18446744073709551227, 18446744073709551130,\n       18446744073709551033, 18446744073709550936, 18446744073709550839,\n       18446744073709550742, 18446744073709550645, 18446744073709550548],\n      dtype=uint64)",
            "[18446744073709551615 18446744073709551518 18446744073709551421\n 18446744073709551324 18446744073709551227 18446744073709551130\n 18446744073709551033 18446744073709550936 18446744073709550839\n 18446744073709550742 18446744073709550645 18446744073709550548]",
        );
    }

    #[test]
    fn bool_1d() {
        check(DType::Bool, &[2], HostValues::Bool(vec![true, false]), "array([ True, False])", "[ True False]");
    }

    #[test]
    fn bool_all_true() {
        check(
            DType::Bool,
            &[3],
            HostValues::Bool(vec![true, true, true]),
            "array([ True,  True,  True])",
            "[ True  True  True]",
        );
    }

    #[test]
    fn bool_2d() {
        check(
            DType::Bool,
            &[2, 3],
            HostValues::Bool(vec![true, false, true, false, false, true]),
            "array([[ True, False,  True],\n       [False, False,  True]])",
            "[[ True False  True]\n [False False  True]]",
        );
    }

    #[test]
    fn f64_simple() {
        check(DType::Float64, &[2], HostValues::F64(vec![1.0, 2.5]), "array([1. , 2.5])", "[1.  2.5]");
    }

    #[test]
    fn f64_integers() {
        check(
            DType::Float64,
            &[4],
            HostValues::F64(vec![0.0, 1.0, 2.0, 100.0]),
            "array([  0.,   1.,   2., 100.])",
            "[  0.   1.   2. 100.]",
        );
    }

    #[test]
    fn f64_mix_sci() {
        check(
            DType::Float64,
            &[3],
            HostValues::F64(vec![0.1, 1e-05, 10000000000.0]),
            "array([1.e-01, 1.e-05, 1.e+10])",
            "[1.e-01 1.e-05 1.e+10]",
        );
    }

    #[test]
    fn f64_nonfinite() {
        check(
            DType::Float64,
            &[4],
            HostValues::F64(vec![f64::NAN, 1.5, f64::INFINITY, f64::NEG_INFINITY]),
            "array([ nan,  1.5,  inf, -inf])",
            "[ nan  1.5  inf -inf]",
        );
    }

    #[test]
    fn f64_nan_only() {
        check(DType::Float64, &[2], HostValues::F64(vec![f64::NAN, f64::NAN]), "array([nan, nan])", "[nan nan]");
    }

    #[test]
    fn f64_inf_negative() {
        check(
            DType::Float64,
            &[2],
            HostValues::F64(vec![f64::INFINITY, f64::NEG_INFINITY]),
            "array([ inf, -inf])",
            "[ inf -inf]",
        );
    }

    #[test]
    fn f64_neg_zero() {
        check(DType::Float64, &[2], HostValues::F64(vec![-0.0, 1.5]), "array([-0. ,  1.5])", "[-0.   1.5]");
    }

    #[test]
    fn f64_neg_zero_sci() {
        check(
            DType::Float64,
            &[2],
            HostValues::F64(vec![-0.0, 1e-10]),
            "array([-0.e+00,  1.e-10])",
            "[-0.e+00  1.e-10]",
        );
    }

    #[test]
    fn f64_third() {
        check(
            DType::Float64,
            &[3],
            HostValues::F64(vec![0.3333333333333333, 0.6666666666666666, 1.0]),
            "array([0.33333333, 0.66666667, 1.        ])",
            "[0.33333333 0.66666667 1.        ]",
        );
    }

    #[test]
    fn f64_exp() {
        check(
            DType::Float64,
            &[10],
            HostValues::F64(vec![1.0, 0.6065306597126334, 0.1353352832366127, 0.011108996538242306, 0.00033546262790251185, 3.726653172078671e-06, 1.522997974471263e-08, 2.289734845645553e-11, 1.2664165549094176e-14, 2.576757109154981e-18]),
            "array([1.00000000e+00, 6.06530660e-01, 1.35335283e-01, 1.11089965e-02,\n       3.35462628e-04, 3.72665317e-06, 1.52299797e-08, 2.28973485e-11,\n       1.26641655e-14, 2.57675711e-18])",
            "[1.00000000e+00 6.06530660e-01 1.35335283e-01 1.11089965e-02\n 3.35462628e-04 3.72665317e-06 1.52299797e-08 2.28973485e-11\n 1.26641655e-14 2.57675711e-18]",
        );
    }

    #[test]
    fn f64_arange30() {
        check(
            DType::Float64,
            &[30],
            HostValues::F64((0..30).map(|i| i as f64).collect()),
            "array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n       13., 14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25.,\n       26., 27., 28., 29.])",
            "[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]",
        );
    }

    #[test]
    fn f64_big_exponents() {
        check(
            DType::Float64,
            &[3],
            HostValues::F64(vec![1e+100, 1.0, -1e-300]),
            "array([ 1.e+100,  1.e+000, -1.e-300])",
            "[ 1.e+100  1.e+000 -1.e-300]",
        );
    }

    #[test]
    fn f64_subnormal() {
        check(
            DType::Float64,
            &[2],
            HostValues::F64(vec![5e-324, 1.0]),
            "array([5.e-324, 1.e+000])",
            "[5.e-324 1.e+000]",
        );
    }

    #[test]
    fn f64_tie_even() {
        check(
            DType::Float64,
            &[3],
            HostValues::F64(vec![0.001953125, 0.005859375, 0.1]),
            "array([0.00195312, 0.00585938, 0.1       ])",
            "[0.00195312 0.00585938 0.1       ]",
        );
    }

    #[test]
    fn f64_ratio() {
        check(
            DType::Float64,
            &[2],
            HostValues::F64(vec![0.0999, 99.9]),
            "array([ 0.0999, 99.9   ])",
            "[ 0.0999 99.9   ]",
        );
    }

    #[test]
    fn f64_near_cutoff() {
        check(
            DType::Float64,
            &[2],
            HostValues::F64(vec![99999999.0, 0.5]),
            "array([9.9999999e+07, 5.0000000e-01])",
            "[9.9999999e+07 5.0000000e-01]",
        );
    }

    #[test]
    fn f64_rounds_up() {
        check(DType::Float64, &[2], HostValues::F64(vec![0.999999999, 1.5]), "array([1. , 1.5])", "[1.  1.5]");
    }

    #[test]
    fn f64_2d_wrap() {
        check(
            DType::Float64,
            &[2, 30],
            HostValues::F64(vec![0.0, 0.14285714285714285, 0.2857142857142857, 0.42857142857142855, 0.5714285714285714, 0.7142857142857143, 0.8571428571428571, 1.0, 1.1428571428571428, 1.2857142857142858, 1.4285714285714286, 1.5714285714285714, 1.7142857142857142, 1.8571428571428572, 2.0, 2.142857142857143, 2.2857142857142856, 2.4285714285714284, 2.5714285714285716, 2.7142857142857144, 2.857142857142857, 3.0, 3.142857142857143, 3.2857142857142856, 3.4285714285714284, 3.5714285714285716, 3.7142857142857144, 3.857142857142857, 4.0, 4.142857142857143, 4.285714285714286, 4.428571428571429, 4.571428571428571, 4.714285714285714, 4.857142857142857, 5.0, 5.142857142857143, 5.285714285714286, 5.428571428571429, 5.571428571428571, 5.714285714285714, 5.857142857142857, 6.0, 6.142857142857143, 6.285714285714286, 6.428571428571429, 6.571428571428571, 6.714285714285714, 6.857142857142857, 7.0, 7.142857142857143, 7.285714285714286, 7.428571428571429, 7.571428571428571, 7.714285714285714, 7.857142857142857, 8.0, 8.142857142857142, 8.285714285714286, 8.428571428571429]),
            "array([[0.        , 0.14285714, 0.28571429, 0.42857143, 0.57142857,\n        0.71428571, 0.85714286, 1.        , 1.14285714, 1.28571429,\n        1.42857143, 1.57142857, 1.71428571, 1.85714286, 2.        ,\n        2.14285714, 2.28571429, 2.42857143, 2.57142857, 2.71428571,\n        2.85714286, 3.        , 3.14285714, 3.28571429, 3.42857143,\n        3.57142857, 3.71428571, 3.85714286, 4.        , 4.14285714],\n       [4.28571429, 4.42857143, 4.57142857, 4.71428571, 4.85714286,\n        5.        , 5.14285714, 5.28571429, 5.42857143, 5.57142857,\n        5.71428571, 5.85714286, 6.        , 6.14285714, 6.28571429,\n        6.42857143, 6.57142857, 6.71428571, 6.85714286, 7.        ,\n        7.14285714, 7.28571429, 7.42857143, 7.57142857, 7.71428571,\n        7.85714286, 8.        , 8.14285714, 8.28571429, 8.42857143]])",
            "[[0.         0.14285714 0.28571429 0.42857143 0.57142857 0.71428571\n  0.85714286 1.         1.14285714 1.28571429 1.42857143 1.57142857\n  1.71428571 1.85714286 2.         2.14285714 2.28571429 2.42857143\n  2.57142857 2.71428571 2.85714286 3.         3.14285714 3.28571429\n  3.42857143 3.57142857 3.71428571 3.85714286 4.         4.14285714]\n [4.28571429 4.42857143 4.57142857 4.71428571 4.85714286 5.\n  5.14285714 5.28571429 5.42857143 5.57142857 5.71428571 5.85714286\n  6.         6.14285714 6.28571429 6.42857143 6.57142857 6.71428571\n  6.85714286 7.         7.14285714 7.28571429 7.42857143 7.57142857\n  7.71428571 7.85714286 8.         8.14285714 8.28571429 8.42857143]]",
        );
    }

    #[test]
    fn f32_simple() {
        check(DType::Float32, &[2], HostValues::F64(vec![1.0, 2.5]), "array([1. , 2.5], dtype=float32)", "[1.  2.5]");
    }

    #[test]
    fn f32_tenth() {
        check(
            DType::Float32,
            &[3],
            HostValues::F64(vec![0.10000000149011612, 0.20000000298023224, 0.30000001192092896]),
            "array([0.1, 0.2, 0.3], dtype=float32)",
            "[0.1 0.2 0.3]",
        );
    }

    #[test]
    fn f32_third() {
        check(
            DType::Float32,
            &[2],
            HostValues::F64(vec![0.3333333432674408, 0.0010000000474974513]),
            "array([0.33333334, 0.001     ], dtype=float32)",
            "[0.33333334 0.001     ]",
        );
    }

    #[test]
    fn f32_ratio_in_f32() {
        check(
            DType::Float32,
            &[2],
            HostValues::F64(vec![0.09989999979734421, 99.9000015258789]),
            "array([ 0.0999, 99.9   ], dtype=float32)",
            "[ 0.0999 99.9   ]",
        );
    }

    #[test]
    fn f32_min_in_f32() {
        check(
            DType::Float32,
            &[1],
            HostValues::F64(vec![9.999999747378752e-05]),
            "array([0.0001], dtype=float32)",
            "[0.0001]",
        );
    }

    #[test]
    fn f32_large() {
        check(
            DType::Float32,
            &[2],
            HostValues::F64(vec![1000000.0, 1.0]),
            "array([1.e+06, 1.e+00], dtype=float32)",
            "[1.e+06 1.e+00]",
        );
    }

    #[test]
    fn f32_tie() {
        check(
            DType::Float32,
            &[2],
            HostValues::F64(vec![19781.0625, 1.0]),
            "array([1.9781062e+04, 1.0000000e+00], dtype=float32)",
            "[1.9781062e+04 1.0000000e+00]",
        );
    }

    #[test]
    fn f32_sci_min_digits() {
        check(
            DType::Float32,
            &[2],
            HostValues::F64(vec![-144646848512.0, 7.500000265281415e-07]),
            "array([-1.4464685e+11,  7.5000003e-07], dtype=float32)",
            "[-1.4464685e+11  7.5000003e-07]",
        );
    }

    #[test]
    fn f32_nonfinite() {
        check(
            DType::Float32,
            &[3],
            HostValues::F64(vec![f64::NAN, f64::NEG_INFINITY, 0.25]),
            "array([ nan, -inf, 0.25], dtype=float32)",
            "[ nan -inf 0.25]",
        );
    }

    #[test]
    fn f16_tenths() {
        check(
            DType::Float16,
            &[3],
            HostValues::F64(vec![0.0999755859375, 0.199951171875, 0.333251953125]),
            "array([0.1   , 0.2   , 0.3333], dtype=float16)",
            "[0.1    0.2    0.3333]",
        );
    }

    #[test]
    fn f16_max() {
        check(
            DType::Float16,
            &[2],
            HostValues::F64(vec![65504.0, 1.0]),
            "array([6.55e+04, 1.00e+00], dtype=float16)",
            "[6.55e+04 1.00e+00]",
        );
    }

    #[test]
    fn f16_sci_cutoff() {
        check(
            DType::Float16,
            &[2],
            HostValues::F64(vec![1000.0, 1.0]),
            "array([1.e+03, 1.e+00], dtype=float16)",
            "[1.e+03 1.e+00]",
        );
    }

    #[test]
    fn f16_half_steps() {
        check(
            DType::Float16,
            &[2],
            HostValues::F64(vec![999.5, 1.0]),
            "array([999.5,   1. ], dtype=float16)",
            "[999.5   1. ]",
        );
    }

    #[test]
    fn f16_min_digits() {
        check(
            DType::Float16,
            &[3],
            HostValues::F64(vec![1.0048828125, 0.0999755859375, 100.0]),
            "array([  1.005,   0.1  , 100.   ], dtype=float16)",
            "[  1.005   0.1   100.   ]",
        );
    }

    #[test]
    fn f16_tiny() {
        check(
            DType::Float16,
            &[2],
            HostValues::F64(vec![5.960464477539063e-08, 1.0]),
            "array([6.e-08, 1.e+00], dtype=float16)",
            "[6.e-08 1.e+00]",
        );
    }

    #[test]
    fn f16_neg_inf() {
        check(
            DType::Float16,
            &[2],
            HostValues::F64(vec![f64::NEG_INFINITY, 0.5]),
            "array([-inf,  0.5], dtype=float16)",
            "[-inf  0.5]",
        );
    }

    #[test]
    fn scalar_int64() {
        check(DType::Int64, &[], HostValues::I64(vec![5i64]), "array(5)", "5");
    }

    #[test]
    fn scalar_int8_neg() {
        check(DType::Int8, &[], HostValues::I64(vec![-5i64]), "array(-5, dtype=int8)", "-5");
    }

    #[test]
    fn scalar_uint64_max() {
        check(
            DType::UInt64,
            &[],
            HostValues::U64(vec![18446744073709551615u64]),
            "array(18446744073709551615, dtype=uint64)",
            "18446744073709551615",
        );
    }

    #[test]
    fn scalar_bool() {
        check(DType::Bool, &[], HostValues::Bool(vec![true]), "array(True)", "True");
    }

    #[test]
    fn scalar_false() {
        check(DType::Bool, &[], HostValues::Bool(vec![false]), "array(False)", "False");
    }

    #[test]
    fn scalar_f64_one() {
        check(DType::Float64, &[], HostValues::F64(vec![1.0]), "array(1.)", "1.0");
    }

    #[test]
    fn scalar_f64_third() {
        check(
            DType::Float64,
            &[],
            HostValues::F64(vec![0.3333333333333333]),
            "array(0.33333333)",
            "0.3333333333333333",
        );
    }

    #[test]
    fn scalar_f64_1e16() {
        check(DType::Float64, &[], HostValues::F64(vec![1e+16]), "array(1.e+16)", "1e+16");
    }

    #[test]
    fn scalar_f64_big_positional() {
        check(DType::Float64, &[], HostValues::F64(vec![1000000000000000.0]), "array(1.e+15)", "1000000000000000.0");
    }

    #[test]
    fn scalar_f64_small() {
        check(DType::Float64, &[], HostValues::F64(vec![1e-05]), "array(1.e-05)", "1e-05");
    }

    #[test]
    fn scalar_f64_nan() {
        check(DType::Float64, &[], HostValues::F64(vec![f64::NAN]), "array(nan)", "nan");
    }

    #[test]
    fn scalar_f64_neg_inf() {
        check(DType::Float64, &[], HostValues::F64(vec![f64::NEG_INFINITY]), "array(-inf)", "-inf");
    }

    #[test]
    fn scalar_f64_neg_zero() {
        check(DType::Float64, &[], HostValues::F64(vec![-0.0]), "array(-0.)", "-0.0");
    }

    #[test]
    fn scalar_f32_tenth() {
        check(DType::Float32, &[], HostValues::F64(vec![0.10000000149011612]), "array(0.1, dtype=float32)", "0.1");
    }

    #[test]
    fn scalar_f32_1e6() {
        check(DType::Float32, &[], HostValues::F64(vec![1000000.0]), "array(1.e+06, dtype=float32)", "1e+06");
    }

    #[test]
    fn scalar_f32_1e_4() {
        check(
            DType::Float32,
            &[],
            HostValues::F64(vec![9.999999747378752e-05]),
            "array(0.0001, dtype=float32)",
            "1e-04",
        );
    }

    #[test]
    fn scalar_f16_1000() {
        check(DType::Float16, &[], HostValues::F64(vec![1000.0]), "array(1.e+03, dtype=float16)", "1e+03");
    }

    #[test]
    fn scalar_f16_third() {
        check(DType::Float16, &[], HostValues::F64(vec![0.333251953125]), "array(0.3333, dtype=float16)", "0.3333");
    }

    #[test]
    fn scalar_f16_max() {
        check(DType::Float16, &[], HostValues::F64(vec![65504.0]), "array(6.55e+04, dtype=float16)", "6.55e+04");
    }

    #[test]
    fn empty_f64() {
        check(DType::Float64, &[0], HostValues::F64(Vec::<f64>::new()), "array([], dtype=float64)", "[]");
    }

    #[test]
    fn empty_f32() {
        check(DType::Float32, &[0], HostValues::F64(Vec::<f64>::new()), "array([], dtype=float32)", "[]");
    }

    #[test]
    fn empty_int64_2d() {
        check(DType::Int64, &[0, 3], HostValues::I64(Vec::<i64>::new()), "array([], shape=(0, 3), dtype=int64)", "[]");
    }

    #[test]
    fn empty_bool_3d() {
        check(DType::Bool, &[2, 0, 4], HostValues::Bool(vec![]), "array([], shape=(2, 0, 4), dtype=bool)", "[]");
    }

    #[test]
    fn empty_uint8_trailing() {
        check(DType::UInt8, &[3, 0], HostValues::U64(Vec::<u64>::new()), "array([], shape=(3, 0), dtype=uint8)", "[]");
    }

    #[test]
    fn int_3d() {
        check(
            DType::Int64,
            &[2, 3, 4],
            HostValues::I64((0..24).collect()),
            "array([[[ 0,  1,  2,  3],\n        [ 4,  5,  6,  7],\n        [ 8,  9, 10, 11]],\n\n       [[12, 13, 14, 15],\n        [16, 17, 18, 19],\n        [20, 21, 22, 23]]])",
            "[[[ 0  1  2  3]\n  [ 4  5  6  7]\n  [ 8  9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]",
        );
    }

    #[test]
    fn int_4d() {
        check(
            DType::Int64,
            &[2, 2, 2, 2],
            HostValues::I64((0..16).collect()),
            "array([[[[ 0,  1],\n         [ 2,  3]],\n\n        [[ 4,  5],\n         [ 6,  7]]],\n\n\n       [[[ 8,  9],\n         [10, 11]],\n\n        [[12, 13],\n         [14, 15]]]])",
            "[[[[ 0  1]\n   [ 2  3]]\n\n  [[ 4  5]\n   [ 6  7]]]\n\n\n [[[ 8  9]\n   [10 11]]\n\n  [[12 13]\n   [14 15]]]]",
        );
    }

    #[test]
    fn f64_3d() {
        check(
            DType::Float64,
            &[2, 3, 2],
            HostValues::F64((0..12).map(|i| i as f64 / 4.0).collect()),
            "array([[[0.  , 0.25],\n        [0.5 , 0.75],\n        [1.  , 1.25]],\n\n       [[1.5 , 1.75],\n        [2.  , 2.25],\n        [2.5 , 2.75]]])",
            "[[[0.   0.25]\n  [0.5  0.75]\n  [1.   1.25]]\n\n [[1.5  1.75]\n  [2.   2.25]\n  [2.5  2.75]]]",
        );
    }

    #[test]
    fn int_column() {
        check(
            DType::Int64,
            &[4, 1],
            HostValues::I64((0..4).map(|i| i * 1000).collect()),
            "array([[   0],\n       [1000],\n       [2000],\n       [3000]])",
            "[[   0]\n [1000]\n [2000]\n [3000]]",
        );
    }

    #[test]
    fn sum_1d() {
        check(
            DType::Int64,
            &[2000],
            HostValues::I64((0..2000).collect()),
            "array([   0,    1,    2, ..., 1997, 1998, 1999], shape=(2000,))",
            "[   0    1    2 ... 1997 1998 1999]",
        );
    }

    #[test]
    fn sum_1d_int8() {
        check(
            DType::Int8,
            &[2000],
            HostValues::I64((0..2000).map(|i| i % 100).collect()),
            "array([ 0,  1,  2, ..., 97, 98, 99], shape=(2000,), dtype=int8)",
            "[ 0  1  2 ... 97 98 99]",
        );
    }

    #[test]
    fn sum_1d_f64() {
        check(
            DType::Float64,
            &[2000],
            HostValues::F64((0..2000).map(|i| i as f64 / 3.0).collect()),
            "array([0.00000000e+00, 3.33333333e-01, 6.66666667e-01, ...,\n       6.65666667e+02, 6.66000000e+02, 6.66333333e+02], shape=(2000,))",
            "[0.00000000e+00 3.33333333e-01 6.66666667e-01 ... 6.65666667e+02\n 6.66000000e+02 6.66333333e+02]",
        );
    }

    #[test]
    fn sum_2d() {
        check(
            DType::Int64,
            &[40, 50],
            HostValues::I64((0..2000).collect()),
            "array([[   0,    1,    2, ...,   47,   48,   49],\n       [  50,   51,   52, ...,   97,   98,   99],\n       [ 100,  101,  102, ...,  147,  148,  149],\n       ...,\n       [1850, 1851, 1852, ..., 1897, 1898, 1899],\n       [1900, 1901, 1902, ..., 1947, 1948, 1949],\n       [1950, 1951, 1952, ..., 1997, 1998, 1999]], shape=(40, 50))",
            "[[   0    1    2 ...   47   48   49]\n [  50   51   52 ...   97   98   99]\n [ 100  101  102 ...  147  148  149]\n ...\n [1850 1851 1852 ... 1897 1898 1899]\n [1900 1901 1902 ... 1947 1948 1949]\n [1950 1951 1952 ... 1997 1998 1999]]",
        );
    }

    #[test]
    fn sum_2d_one_axis() {
        check(
            DType::Int64,
            &[2, 1001],
            HostValues::I64((0..2002).collect()),
            "array([[   0,    1,    2, ...,  998,  999, 1000],\n       [1001, 1002, 1003, ..., 1999, 2000, 2001]], shape=(2, 1001))",
            "[[   0    1    2 ...  998  999 1000]\n [1001 1002 1003 ... 1999 2000 2001]]",
        );
    }

    #[test]
    fn sum_3d() {
        check(
            DType::Int64,
            &[10, 20, 15],
            HostValues::I64((0..3000).collect()),
            "array([[[   0,    1,    2, ...,   12,   13,   14],\n        [  15,   16,   17, ...,   27,   28,   29],\n        [  30,   31,   32, ...,   42,   43,   44],\n        ...,\n        [ 255,  256,  257, ...,  267,  268,  269],\n        [ 270,  271,  272, ...,  282,  283,  284],\n        [ 285,  286,  287, ...,  297,  298,  299]],\n\n       [[ 300,  301,  302, ...,  312,  313,  314],\n        [ 315,  316,  317, ...,  327,  328,  329],\n        [ 330,  331,  332, ...,  342,  343,  344],\n        ...,\n        [ 555,  556,  557, ...,  567,  568,  569],\n        [ 570,  571,  572, ...,  582,  583,  584],\n        [ 585,  586,  587, ...,  597,  598,  599]],\n\n       [[ 600,  601,  602, ...,  612,  613,  614],\n        [ 615,  616,  617, ...,  627,  628,  629],\n        [ 630,  631,  632, ...,  642,  643,  644],\n        ...,\n        [ 855,  856,  857, ...,  867,  868,  869],\n        [ 870,  871,  872, ...,  882,  883,  884],\n        [ 885,  886,  887, ...,  897,  898,  899]],\n\n       ...,\n\n       [[2100, 2101, 2102, ..., 2112, 2113, 2114],\n        [2115, 2116, 2117, ..., 2127, 2128, 2129],\n        [2130, 2131, 2132, ..., 2142, 2143, 2144],\n        ...,\n        [2355, 2356, 2357, ..., 2367, 2368, 2369],\n        [2370, 2371, 2372, ..., 2382, 2383, 2384],\n        [2385, 2386, 2387, ..., 2397, 2398, 2399]],\n\n       [[2400, 2401, 2402, ..., 2412, 2413, 2414],\n        [2415, 2416, 2417, ..., 2427, 2428, 2429],\n        [2430, 2431, 2432, ..., 2442, 2443, 2444],\n        ...,\n        [2655, 2656, 2657, ..., 2667, 2668, 2669],\n        [2670, 2671, 2672, ..., 2682, 2683, 2684],\n        [2685, 2686, 2687, ..., 2697, 2698, 2699]],\n\n       [[2700, 2701, 2702, ..., 2712, 2713, 2714],\n        [2715, 2716, 2717, ..., 2727, 2728, 2729],\n        [2730, 2731, 2732, ..., 2742, 2743, 2744],\n        ...,\n        [2955, 2956, 2957, ..., 2967, 2968, 2969],\n        [2970, 2971, 2972, ..., 2982, 2983, 2984],\n        [2985, 2986, 2987, ..., 2997, 2998, 2999]]], shape=(10, 20, 15))",
            "[[[   0    1    2 ...   12   13   14]\n  [  15   16   17 ...   27   28   29]\n  [  30   31   32 ...   42   43   44]\n  ...\n  [ 255  256  257 ...  267  268  269]\n  [ 270  271  272 ...  282  283  284]\n  [ 285  286  287 ...  297  298  299]]\n\n [[ 300  301  302 ...  312  313  314]\n  [ 315  316  317 ...  327  328  329]\n  [ 330  331  332 ...  342  343  344]\n  ...\n  [ 555  556  557 ...  567  568  569]\n  [ 570  571  572 ...  582  583  584]\n  [ 585  586  587 ...  597  598  599]]\n\n [[ 600  601  602 ...  612  613  614]\n  [ 615  616  617 ...  627  628  629]\n  [ 630  631  632 ...  642  643  644]\n  ...\n  [ 855  856  857 ...  867  868  869]\n  [ 870  871  872 ...  882  883  884]\n  [ 885  886  887 ...  897  898  899]]\n\n ...\n\n [[2100 2101 2102 ... 2112 2113 2114]\n  [2115 2116 2117 ... 2127 2128 2129]\n  [2130 2131 2132 ... 2142 2143 2144]\n  ...\n  [2355 2356 2357 ... 2367 2368 2369]\n  [2370 2371 2372 ... 2382 2383 2384]\n  [2385 2386 2387 ... 2397 2398 2399]]\n\n [[2400 2401 2402 ... 2412 2413 2414]\n  [2415 2416 2417 ... 2427 2428 2429]\n  [2430 2431 2432 ... 2442 2443 2444]\n  ...\n  [2655 2656 2657 ... 2667 2668 2669]\n  [2670 2671 2672 ... 2682 2683 2684]\n  [2685 2686 2687 ... 2697 2698 2699]]\n\n [[2700 2701 2702 ... 2712 2713 2714]\n  [2715 2716 2717 ... 2727 2728 2729]\n  [2730 2731 2732 ... 2742 2743 2744]\n  ...\n  [2955 2956 2957 ... 2967 2968 2969]\n  [2970 2971 2972 ... 2982 2983 2984]\n  [2985 2986 2987 ... 2997 2998 2999]]]",
        );
    }

    #[test]
    fn sum_3d_f32() {
        check(
            DType::Float32,
            &[10, 20, 15],
            HostValues::F64(vec![0.0, 0.1428571492433548, 0.2857142984867096, 0.4285714328289032, 0.5714285969734192, 0.7142857313156128, 0.8571428656578064, 1.0, 1.1428571939468384, 1.2857142686843872, 1.4285714626312256, 1.5714285373687744, 1.7142857313156128, 1.8571428060531616, 2.0, 2.142857074737549, 2.2857143878936768, 2.4285714626312256, 2.5714285373687744, 2.7142856121063232, 2.857142925262451, 3.0, 3.142857074737549, 3.2857143878936768, 3.4285714626312256, 3.5714285373687744, 3.7142856121063232, 3.857142925262451, 4.0, 4.142857074737549, 4.285714149475098, 4.4285712242126465, 4.5714287757873535, 4.714285850524902, 4.857142925262451, 5.0, 5.142857074737549, 5.285714149475098, 5.4285712242126465, 5.5714287757873535, 5.714285850524902, 5.857142925262451, 6.0, 6.142857074737549, 6.285714149475098, 6.4285712242126465, 6.5714287757873535, 6.714285850524902, 6.857142925262451, 7.0, 7.142857074737549, 7.285714149475098, 7.4285712242126465, 7.5714287757873535, 7.714285850524902, 7.857142925262451, 8.0, 8.142857551574707, 8.285714149475098, 8.428571701049805, 8.571428298950195, 8.714285850524902, 8.857142448425293, 9.0, 9.142857551574707, 9.285714149475098, 9.428571701049805, 9.571428298950195, 9.714285850524902, 9.857142448425293, 10.0, 10.142857551574707, 10.285714149475098, 10.428571701049805, 10.571428298950195, 10.714285850524902, 10.857142448425293, 11.0, 11.142857551574707, 11.285714149475098, 11.428571701049805, 11.571428298950195, 11.714285850524902, 11.857142448425293, 12.0, 12.142857551574707, 12.285714149475098, 12.428571701049805, 12.571428298950195, 12.714285850524902, 12.857142448425293, 13.0, 13.142857551574707, 13.285714149475098, 13.428571701049805, 13.571428298950195, 13.714285850524902, 13.857142448425293, 14.0, 14.142857551574707, 14.285714149475098, 14.428571701049805, 14.571428298950195, 14.714285850524902, 14.857142448425293, 15.0, 15.142857551574707, 15.285714149475098, 15.428571701049805, 15.571428298950195, 15.714285850524902, 15.857142448425293, 16.0, 16.14285659790039, 16.285715103149414, 16.428571701049805, 16.571428298950195, 16.714284896850586, 16.85714340209961, 17.0, 17.14285659790039, 17.285715103149414, 17.428571701049805, 17.571428298950195, 17.714284896850586, 17.85714340209961, 18.0, 18.14285659790039, 18.285715103149414, 18.428571701049805, 18.571428298950195, 18.714284896850586, 18.85714340209961, 19.0, 19.14285659790039, 19.285715103149414, 19.428571701049805, 19.571428298950195, 19.714284896850586, 19.85714340209961, 20.0, 20.14285659790039, 20.285715103149414, 20.428571701049805, 20.571428298950195, 20.714284896850586, 20.85714340209961, 21.0, 21.14285659790039, 21.285715103149414, 21.428571701049805, 21.571428298950195, 21.714284896850586, 21.85714340209961, 22.0, 22.14285659790039, 22.285715103149414, 22.428571701049805, 22.571428298950195, 22.714284896850586, 22.85714340209961, 23.0, 23.14285659790039, 23.285715103149414, 23.428571701049805, 23.571428298950195, 23.714284896850586, 23.85714340209961, 24.0, 24.14285659790039, 24.285715103149414, 24.428571701049805, 24.571428298950195, 24.714284896850586, 24.85714340209961, 25.0, 25.14285659790039, 25.285715103149414, 25.428571701049805, 25.571428298950195, 25.714284896850586, 25.85714340209961, 26.0, 26.14285659790039, 26.285715103149414, 26.428571701049805, 26.571428298950195, 26.714284896850586, 26.85714340209961, 27.0, 27.14285659790039, 27.285715103149414, 27.428571701049805, 27.571428298950195, 27.714284896850586, 27.85714340209961, 28.0, 28.14285659790039, 28.285715103149414, 28.428571701049805, 28.571428298950195, 28.714284896850586, 28.85714340209961, 29.0, 29.14285659790039, 29.285715103149414, 29.428571701049805, 29.571428298950195, 29.714284896850586, 29.85714340209961, 30.0, 30.14285659790039, 30.285715103149414, 30.428571701049805, 30.571428298950195, 30.714284896850586, 30.85714340209961, 31.0, 31.14285659790039, 31.285715103149414, 31.428571701049805, 31.571428298950195, 31.714284896850586, 31.85714340209961, 32.0, 32.14285659790039, 32.28571319580078, 32.42856979370117, 32.57143020629883, 32.71428680419922, 32.85714340209961, 33.0, 33.14285659790039, 33.28571319580078, 33.42856979370117, 33.57143020629883, 33.71428680419922, 33.85714340209961, 34.0, 34.14285659790039, 34.28571319580078, 34.42856979370117, 34.57143020629883, 34.71428680419922, 34.85714340209961, 35.0, 35.14285659790039, 35.28571319580078, 35.42856979370117, 35.57143020629883, 35.71428680419922, 35.85714340209961, 36.0, 36.14285659790039, 36.28571319580078, 36.42856979370117, 36.57143020629883, 36.71428680419922, 36.85714340209961, 37.0, 37.14285659790039, 37.28571319580078, 37.42856979370117, 37.57143020629883, 37.71428680419922, 37.85714340209961, 38.0, 38.14285659790039, 38.28571319580078, 38.42856979370117, 38.57143020629883, 38.71428680419922, 38.85714340209961, 39.0, 39.14285659790039, 39.28571319580078, 39.42856979370117, 39.57143020629883, 39.71428680419922, 39.85714340209961, 40.0, 40.14285659790039, 40.28571319580078, 40.42856979370117, 40.57143020629883, 40.71428680419922, 40.85714340209961, 41.0, 41.14285659790039, 41.28571319580078, 41.42856979370117, 41.57143020629883, 41.71428680419922, 41.85714340209961, 42.0, 42.14285659790039, 42.28571319580078, 42.42856979370117, 42.57143020629883, 42.71428680419922, 42.85714340209961, 43.0, 43.14285659790039, 43.28571319580078, 43.42856979370117, 43.57143020629883, 43.71428680419922, 43.85714340209961, 44.0, 44.14285659790039, 44.28571319580078, 44.42856979370117, 44.57143020629883, 44.71428680419922, 44.85714340209961, 45.0, 45.14285659790039, 45.28571319580078, 45.42856979370117, 45.57143020629883, 45.71428680419922, 45.85714340209961, 46.0, 46.14285659790039, 46.28571319580078, 46.42856979370117, 46.57143020629883, 46.71428680419922, 46.85714340209961, 47.0, 47.14285659790039, 47.28571319580078, 47.42856979370117, 47.57143020629883, 47.71428680419922, 47.85714340209961, 48.0, 48.14285659790039, 48.28571319580078, 48.42856979370117, 48.57143020629883, 48.71428680419922, 48.85714340209961, 49.0, 49.14285659790039, 49.28571319580078, 49.42856979370117, 49.57143020629883, 49.71428680419922, 49.85714340209961, 50.0, 50.14285659790039, 50.28571319580078, 50.42856979370117, 50.57143020629883, 50.71428680419922, 50.85714340209961, 51.0, 51.14285659790039, 51.28571319580078, 51.42856979370117, 51.57143020629883, 51.71428680419922, 51.85714340209961, 52.0, 52.14285659790039, 52.28571319580078, 52.42856979370117, 52.57143020629883, 52.71428680419922, 52.85714340209961, 53.0, 53.14285659790039, 53.28571319580078, 53.42856979370117, 53.57143020629883, 53.71428680419922, 53.85714340209961, 54.0, 54.14285659790039, 54.28571319580078, 54.42856979370117, 54.57143020629883, 54.71428680419922, 54.85714340209961, 55.0, 55.14285659790039, 55.28571319580078, 55.42856979370117, 55.57143020629883, 55.71428680419922, 55.85714340209961, 56.0, 56.14285659790039, 56.28571319580078, 56.42856979370117, 56.57143020629883, 56.71428680419922, 56.85714340209961, 57.0, 57.14285659790039, 57.28571319580078, 57.42856979370117, 57.57143020629883, 57.71428680419922, 57.85714340209961, 58.0, 58.14285659790039, 58.28571319580078, 58.42856979370117, 58.57143020629883, 58.71428680419922, 58.85714340209961, 59.0, 59.14285659790039, 59.28571319580078, 59.42856979370117, 59.57143020629883, 59.71428680419922, 59.85714340209961, 60.0, 60.14285659790039, 60.28571319580078, 60.42856979370117, 60.57143020629883, 60.71428680419922, 60.85714340209961, 61.0, 61.14285659790039, 61.28571319580078, 61.42856979370117, 61.57143020629883, 61.71428680419922, 61.85714340209961, 62.0, 62.14285659790039, 62.28571319580078, 62.42856979370117, 62.57143020629883, 62.71428680419922, 62.85714340209961, 63.0, 63.14285659790039, 63.28571319580078, 63.42856979370117, 63.57143020629883, 63.71428680419922, 63.85714340209961, 64.0, 64.14286041259766, 64.28571319580078, 64.42857360839844, 64.57142639160156, 64.71428680419922, 64.85713958740234, 65.0, 65.14286041259766, 65.28571319580078, 65.42857360839844, 65.57142639160156, 65.71428680419922, 65.85713958740234, 66.0, 66.14286041259766, 66.28571319580078, 66.42857360839844, 66.57142639160156, 66.71428680419922, 66.85713958740234, 67.0, 67.14286041259766, 67.28571319580078, 67.42857360839844, 67.57142639160156, 67.71428680419922, 67.85713958740234, 68.0, 68.14286041259766, 68.28571319580078, 68.42857360839844, 68.57142639160156, 68.71428680419922, 68.85713958740234, 69.0, 69.14286041259766, 69.28571319580078, 69.42857360839844, 69.57142639160156, 69.71428680419922, 69.85713958740234, 70.0, 70.14286041259766, 70.28571319580078, 70.42857360839844, 70.57142639160156, 70.71428680419922, 70.85713958740234, 71.0, 71.14286041259766, 71.28571319580078, 71.42857360839844, 71.57142639160156, 71.71428680419922, 71.85713958740234, 72.0, 72.14286041259766, 72.28571319580078, 72.42857360839844, 72.57142639160156, 72.71428680419922, 72.85713958740234, 73.0, 73.14286041259766, 73.28571319580078, 73.42857360839844, 73.57142639160156, 73.71428680419922, 73.85713958740234, 74.0, 74.14286041259766, 74.28571319580078, 74.42857360839844, 74.57142639160156, 74.71428680419922, 74.85713958740234, 75.0, 75.14286041259766, 75.28571319580078, 75.42857360839844, 75.57142639160156, 75.71428680419922, 75.85713958740234, 76.0, 76.14286041259766, 76.28571319580078, 76.42857360839844, 76.57142639160156, 76.71428680419922, 76.85713958740234, 77.0, 77.14286041259766, 77.28571319580078, 77.42857360839844, 77.57142639160156, 77.71428680419922, 77.85713958740234, 78.0, 78.14286041259766, 78.28571319580078, 78.42857360839844, 78.57142639160156, 78.71428680419922, 78.85713958740234, 79.0, 79.14286041259766, 79.28571319580078, 79.42857360839844, 79.57142639160156, 79.71428680419922, 79.85713958740234, 80.0, 80.14286041259766, 80.28571319580078, 80.42857360839844, 80.57142639160156, 80.71428680419922, 80.85713958740234, 81.0, 81.14286041259766, 81.28571319580078, 81.42857360839844, 81.57142639160156, 81.71428680419922, 81.85713958740234, 82.0, 82.14286041259766, 82.28571319580078, 82.42857360839844, 82.57142639160156, 82.71428680419922, 82.85713958740234, 83.0, 83.14286041259766, 83.28571319580078, 83.42857360839844, 83.57142639160156, 83.71428680419922, 83.85713958740234, 84.0, 84.14286041259766, 84.28571319580078, 84.42857360839844, 84.57142639160156, 84.71428680419922, 84.85713958740234, 85.0, 85.14286041259766, 85.28571319580078, 85.42857360839844, 85.57142639160156, 85.71428680419922, 85.85713958740234, 86.0, 86.14286041259766, 86.28571319580078, 86.42857360839844, 86.57142639160156, 86.71428680419922, 86.85713958740234, 87.0, 87.14286041259766, 87.28571319580078, 87.42857360839844, 87.57142639160156, 87.71428680419922, 87.85713958740234, 88.0, 88.14286041259766, 88.28571319580078, 88.42857360839844, 88.57142639160156, 88.71428680419922, 88.85713958740234, 89.0, 89.14286041259766, 89.28571319580078, 89.42857360839844, 89.57142639160156, 89.71428680419922, 89.85713958740234, 90.0, 90.14286041259766, 90.28571319580078, 90.42857360839844, 90.57142639160156, 90.71428680419922, 90.85713958740234, 91.0, 91.14286041259766, 91.28571319580078, 91.42857360839844, 91.57142639160156, 91.71428680419922, 91.85713958740234, 92.0, 92.14286041259766, 92.28571319580078, 92.42857360839844, 92.57142639160156, 92.71428680419922, 92.85713958740234, 93.0, 93.14286041259766, 93.28571319580078, 93.42857360839844, 93.57142639160156, 93.71428680419922, 93.85713958740234, 94.0, 94.14286041259766, 94.28571319580078, 94.42857360839844, 94.57142639160156, 94.71428680419922, 94.85713958740234, 95.0, 95.14286041259766, 95.28571319580078, 95.42857360839844, 95.57142639160156, 95.71428680419922, 95.85713958740234, 96.0, 96.14286041259766, 96.28571319580078, 96.42857360839844, 96.57142639160156, 96.71428680419922, 96.85713958740234, 97.0, 97.14286041259766, 97.28571319580078, 97.42857360839844, 97.57142639160156, 97.71428680419922, 97.85713958740234, 98.0, 98.14286041259766, 98.28571319580078, 98.42857360839844, 98.57142639160156, 98.71428680419922, 98.85713958740234, 99.0, 99.14286041259766, 99.28571319580078, 99.42857360839844, 99.57142639160156, 99.71428680419922, 99.85713958740234, 100.0, 100.14286041259766, 100.28571319580078, 100.42857360839844, 100.57142639160156, 100.71428680419922, 100.85713958740234, 101.0, 101.14286041259766, 101.28571319580078, 101.42857360839844, 101.57142639160156, 101.71428680419922, 101.85713958740234, 102.0, 102.14286041259766, 102.28571319580078, 102.42857360839844, 102.57142639160156, 102.71428680419922, 102.85713958740234, 103.0, 103.14286041259766, 103.28571319580078, 103.42857360839844, 103.57142639160156, 103.71428680419922, 103.85713958740234, 104.0, 104.14286041259766, 104.28571319580078, 104.42857360839844, 104.57142639160156, 104.71428680419922, 104.85713958740234, 105.0, 105.14286041259766, 105.28571319580078, 105.42857360839844, 105.57142639160156, 105.71428680419922, 105.85713958740234, 106.0, 106.14286041259766, 106.28571319580078, 106.42857360839844, 106.57142639160156, 106.71428680419922, 106.85713958740234, 107.0, 107.14286041259766, 107.28571319580078, 107.42857360839844, 107.57142639160156, 107.71428680419922, 107.85713958740234, 108.0, 108.14286041259766, 108.28571319580078, 108.42857360839844, 108.57142639160156, 108.71428680419922, 108.85713958740234, 109.0, 109.14286041259766, 109.28571319580078, 109.42857360839844, 109.57142639160156, 109.71428680419922, 109.85713958740234, 110.0, 110.14286041259766, 110.28571319580078, 110.42857360839844, 110.57142639160156, 110.71428680419922, 110.85713958740234, 111.0, 111.14286041259766, 111.28571319580078, 111.42857360839844, 111.57142639160156, 111.71428680419922, 111.85713958740234, 112.0, 112.14286041259766, 112.28571319580078, 112.42857360839844, 112.57142639160156, 112.71428680419922, 112.85713958740234, 113.0, 113.14286041259766, 113.28571319580078, 113.42857360839844, 113.57142639160156, 113.71428680419922, 113.85713958740234, 114.0, 114.14286041259766, 114.28571319580078, 114.42857360839844, 114.57142639160156, 114.71428680419922, 114.85713958740234, 115.0, 115.14286041259766, 115.28571319580078, 115.42857360839844, 115.57142639160156, 115.71428680419922, 115.85713958740234, 116.0, 116.14286041259766, 116.28571319580078, 116.42857360839844, 116.57142639160156, 116.71428680419922, 116.85713958740234, 117.0, 117.14286041259766, 117.28571319580078, 117.42857360839844, 117.57142639160156, 117.71428680419922, 117.85713958740234, 118.0, 118.14286041259766, 118.28571319580078, 118.42857360839844, 118.57142639160156, 118.71428680419922, 118.85713958740234, 119.0, 119.14286041259766, 119.28571319580078, 119.42857360839844, 119.57142639160156, 119.71428680419922, 119.85713958740234, 120.0, 120.14286041259766, 120.28571319580078, 120.42857360839844, 120.57142639160156, 120.71428680419922, 120.85713958740234, 121.0, 121.14286041259766, 121.28571319580078, 121.42857360839844, 121.57142639160156, 121.71428680419922, 121.85713958740234, 122.0, 122.14286041259766, 122.28571319580078, 122.42857360839844, 122.57142639160156, 122.71428680419922, 122.85713958740234, 123.0, 123.14286041259766, 123.28571319580078, 123.42857360839844, 123.57142639160156, 123.71428680419922, 123.85713958740234, 124.0, 124.14286041259766, 124.28571319580078, 124.42857360839844, 124.57142639160156, 124.71428680419922, 124.85713958740234, 125.0, 125.14286041259766, 125.28571319580078, 125.42857360839844, 125.57142639160156, 125.71428680419922, 125.85713958740234, 126.0, 126.14286041259766, 126.28571319580078, 126.42857360839844, 126.57142639160156, 126.71428680419922, 126.85713958740234, 127.0, 127.14286041259766, 127.28571319580078, 127.42857360839844, 127.57142639160156, 127.71428680419922, 127.85713958740234, 128.0, 128.14285278320312, 128.2857208251953, 128.42857360839844, 128.57142639160156, 128.7142791748047, 128.85714721679688, 129.0, 129.14285278320312, 129.2857208251953, 129.42857360839844, 129.57142639160156, 129.7142791748047, 129.85714721679688, 130.0, 130.14285278320312, 130.2857208251953, 130.42857360839844, 130.57142639160156, 130.7142791748047, 130.85714721679688, 131.0, 131.14285278320312, 131.2857208251953, 131.42857360839844, 131.57142639160156, 131.7142791748047, 131.85714721679688, 132.0, 132.14285278320312, 132.2857208251953, 132.42857360839844, 132.57142639160156, 132.7142791748047, 132.85714721679688, 133.0, 133.14285278320312, 133.2857208251953, 133.42857360839844, 133.57142639160156, 133.7142791748047, 133.85714721679688, 134.0, 134.14285278320312, 134.2857208251953, 134.42857360839844, 134.57142639160156, 134.7142791748047, 134.85714721679688, 135.0, 135.14285278320312, 135.2857208251953, 135.42857360839844, 135.57142639160156, 135.7142791748047, 135.85714721679688, 136.0, 136.14285278320312, 136.2857208251953, 136.42857360839844, 136.57142639160156, 136.7142791748047, 136.85714721679688, 137.0, 137.14285278320312, 137.2857208251953, 137.42857360839844, 137.57142639160156, 137.7142791748047, 137.85714721679688, 138.0, 138.14285278320312, 138.2857208251953, 138.42857360839844, 138.57142639160156, 138.7142791748047, 138.85714721679688, 139.0, 139.14285278320312, 139.2857208251953, 139.42857360839844, 139.57142639160156, 139.7142791748047, 139.85714721679688, 140.0, 140.14285278320312, 140.2857208251953, 140.42857360839844, 140.57142639160156, 140.7142791748047, 140.85714721679688, 141.0, 141.14285278320312, 141.2857208251953, 141.42857360839844, 141.57142639160156, 141.7142791748047, 141.85714721679688, 142.0, 142.14285278320312, 142.2857208251953, 142.42857360839844, 142.57142639160156, 142.7142791748047, 142.85714721679688, 143.0, 143.14285278320312, 143.2857208251953, 143.42857360839844, 143.57142639160156, 143.7142791748047, 143.85714721679688, 144.0, 144.14285278320312, 144.2857208251953, 144.42857360839844, 144.57142639160156, 144.7142791748047, 144.85714721679688, 145.0, 145.14285278320312, 145.2857208251953, 145.42857360839844, 145.57142639160156, 145.7142791748047, 145.85714721679688, 146.0, 146.14285278320312, 146.2857208251953, 146.42857360839844, 146.57142639160156, 146.7142791748047, 146.85714721679688, 147.0, 147.14285278320312, 147.2857208251953, 147.42857360839844, 147.57142639160156, 147.7142791748047, 147.85714721679688, 148.0, 148.14285278320312, 148.2857208251953, 148.42857360839844, 148.57142639160156, 148.7142791748047, 148.85714721679688, 149.0, 149.14285278320312, 149.2857208251953, 149.42857360839844, 149.57142639160156, 149.7142791748047, 149.85714721679688, 150.0, 150.14285278320312, 150.2857208251953, 150.42857360839844, 150.57142639160156, 150.7142791748047, 150.85714721679688, 151.0, 151.14285278320312, 151.2857208251953, 151.42857360839844, 151.57142639160156, 151.7142791748047, 151.85714721679688, 152.0, 152.14285278320312, 152.2857208251953, 152.42857360839844, 152.57142639160156, 152.7142791748047, 152.85714721679688, 153.0, 153.14285278320312, 153.2857208251953, 153.42857360839844, 153.57142639160156, 153.7142791748047, 153.85714721679688, 154.0, 154.14285278320312, 154.2857208251953, 154.42857360839844, 154.57142639160156, 154.7142791748047, 154.85714721679688, 155.0, 155.14285278320312, 155.2857208251953, 155.42857360839844, 155.57142639160156, 155.7142791748047, 155.85714721679688, 156.0, 156.14285278320312, 156.2857208251953, 156.42857360839844, 156.57142639160156, 156.7142791748047, 156.85714721679688, 157.0, 157.14285278320312, 157.2857208251953, 157.42857360839844, 157.57142639160156, 157.7142791748047, 157.85714721679688, 158.0, 158.14285278320312, 158.2857208251953, 158.42857360839844, 158.57142639160156, 158.7142791748047, 158.85714721679688, 159.0, 159.14285278320312, 159.2857208251953, 159.42857360839844, 159.57142639160156, 159.7142791748047, 159.85714721679688, 160.0, 160.14285278320312, 160.2857208251953, 160.42857360839844, 160.57142639160156, 160.7142791748047, 160.85714721679688, 161.0, 161.14285278320312, 161.2857208251953, 161.42857360839844, 161.57142639160156, 161.7142791748047, 161.85714721679688, 162.0, 162.14285278320312, 162.2857208251953, 162.42857360839844, 162.57142639160156, 162.7142791748047, 162.85714721679688, 163.0, 163.14285278320312, 163.2857208251953, 163.42857360839844, 163.57142639160156, 163.7142791748047, 163.85714721679688, 164.0, 164.14285278320312, 164.2857208251953, 164.42857360839844, 164.57142639160156, 164.7142791748047, 164.85714721679688, 165.0, 165.14285278320312, 165.2857208251953, 165.42857360839844, 165.57142639160156, 165.7142791748047, 165.85714721679688, 166.0, 166.14285278320312, 166.2857208251953, 166.42857360839844, 166.57142639160156, 166.7142791748047, 166.85714721679688, 167.0, 167.14285278320312, 167.2857208251953, 167.42857360839844, 167.57142639160156, 167.7142791748047, 167.85714721679688, 168.0, 168.14285278320312, 168.2857208251953, 168.42857360839844, 168.57142639160156, 168.7142791748047, 168.85714721679688, 169.0, 169.14285278320312, 169.2857208251953, 169.42857360839844, 169.57142639160156, 169.7142791748047, 169.85714721679688, 170.0, 170.14285278320312, 170.2857208251953, 170.42857360839844, 170.57142639160156, 170.7142791748047, 170.85714721679688, 171.0, 171.14285278320312, 171.2857208251953, 171.42857360839844, 171.57142639160156, 171.7142791748047, 171.85714721679688, 172.0, 172.14285278320312, 172.2857208251953, 172.42857360839844, 172.57142639160156, 172.7142791748047, 172.85714721679688, 173.0, 173.14285278320312, 173.2857208251953, 173.42857360839844, 173.57142639160156, 173.7142791748047, 173.85714721679688, 174.0, 174.14285278320312, 174.2857208251953, 174.42857360839844, 174.57142639160156, 174.7142791748047, 174.85714721679688, 175.0, 175.14285278320312, 175.2857208251953, 175.42857360839844, 175.57142639160156, 175.7142791748047, 175.85714721679688, 176.0, 176.14285278320312, 176.2857208251953, 176.42857360839844, 176.57142639160156, 176.7142791748047, 176.85714721679688, 177.0, 177.14285278320312, 177.2857208251953, 177.42857360839844, 177.57142639160156, 177.7142791748047, 177.85714721679688, 178.0, 178.14285278320312, 178.2857208251953, 178.42857360839844, 178.57142639160156, 178.7142791748047, 178.85714721679688, 179.0, 179.14285278320312, 179.2857208251953, 179.42857360839844, 179.57142639160156, 179.7142791748047, 179.85714721679688, 180.0, 180.14285278320312, 180.2857208251953, 180.42857360839844, 180.57142639160156, 180.7142791748047, 180.85714721679688, 181.0, 181.14285278320312, 181.2857208251953, 181.42857360839844, 181.57142639160156, 181.7142791748047, 181.85714721679688, 182.0, 182.14285278320312, 182.2857208251953, 182.42857360839844, 182.57142639160156, 182.7142791748047, 182.85714721679688, 183.0, 183.14285278320312, 183.2857208251953, 183.42857360839844, 183.57142639160156, 183.7142791748047, 183.85714721679688, 184.0, 184.14285278320312, 184.2857208251953, 184.42857360839844, 184.57142639160156, 184.7142791748047, 184.85714721679688, 185.0, 185.14285278320312, 185.2857208251953, 185.42857360839844, 185.57142639160156, 185.7142791748047, 185.85714721679688, 186.0, 186.14285278320312, 186.2857208251953, 186.42857360839844, 186.57142639160156, 186.7142791748047, 186.85714721679688, 187.0, 187.14285278320312, 187.2857208251953, 187.42857360839844, 187.57142639160156, 187.7142791748047, 187.85714721679688, 188.0, 188.14285278320312, 188.2857208251953, 188.42857360839844, 188.57142639160156, 188.7142791748047, 188.85714721679688, 189.0, 189.14285278320312, 189.2857208251953, 189.42857360839844, 189.57142639160156, 189.7142791748047, 189.85714721679688, 190.0, 190.14285278320312, 190.2857208251953, 190.42857360839844, 190.57142639160156, 190.7142791748047, 190.85714721679688, 191.0, 191.14285278320312, 191.2857208251953, 191.42857360839844, 191.57142639160156, 191.7142791748047, 191.85714721679688, 192.0, 192.14285278320312, 192.2857208251953, 192.42857360839844, 192.57142639160156, 192.7142791748047, 192.85714721679688, 193.0, 193.14285278320312, 193.2857208251953, 193.42857360839844, 193.57142639160156, 193.7142791748047, 193.85714721679688, 194.0, 194.14285278320312, 194.2857208251953, 194.42857360839844, 194.57142639160156, 194.7142791748047, 194.85714721679688, 195.0, 195.14285278320312, 195.2857208251953, 195.42857360839844, 195.57142639160156, 195.7142791748047, 195.85714721679688, 196.0, 196.14285278320312, 196.2857208251953, 196.42857360839844, 196.57142639160156, 196.7142791748047, 196.85714721679688, 197.0, 197.14285278320312, 197.2857208251953, 197.42857360839844, 197.57142639160156, 197.7142791748047, 197.85714721679688, 198.0, 198.14285278320312, 198.2857208251953, 198.42857360839844, 198.57142639160156, 198.7142791748047, 198.85714721679688, 199.0, 199.14285278320312, 199.2857208251953, 199.42857360839844, 199.57142639160156, 199.7142791748047, 199.85714721679688, 200.0, 200.14285278320312, 200.2857208251953, 200.42857360839844, 200.57142639160156, 200.7142791748047, 200.85714721679688, 201.0, 201.14285278320312, 201.2857208251953, 201.42857360839844, 201.57142639160156, 201.7142791748047, 201.85714721679688, 202.0, 202.14285278320312, 202.2857208251953, 202.42857360839844, 202.57142639160156, 202.7142791748047, 202.85714721679688, 203.0, 203.14285278320312, 203.2857208251953, 203.42857360839844, 203.57142639160156, 203.7142791748047, 203.85714721679688, 204.0, 204.14285278320312, 204.2857208251953, 204.42857360839844, 204.57142639160156, 204.7142791748047, 204.85714721679688, 205.0, 205.14285278320312, 205.2857208251953, 205.42857360839844, 205.57142639160156, 205.7142791748047, 205.85714721679688, 206.0, 206.14285278320312, 206.2857208251953, 206.42857360839844, 206.57142639160156, 206.7142791748047, 206.85714721679688, 207.0, 207.14285278320312, 207.2857208251953, 207.42857360839844, 207.57142639160156, 207.7142791748047, 207.85714721679688, 208.0, 208.14285278320312, 208.2857208251953, 208.42857360839844, 208.57142639160156, 208.7142791748047, 208.85714721679688, 209.0, 209.14285278320312, 209.2857208251953, 209.42857360839844, 209.57142639160156, 209.7142791748047, 209.85714721679688, 210.0, 210.14285278320312, 210.2857208251953, 210.42857360839844, 210.57142639160156, 210.7142791748047, 210.85714721679688, 211.0, 211.14285278320312, 211.2857208251953, 211.42857360839844, 211.57142639160156, 211.7142791748047, 211.85714721679688, 212.0, 212.14285278320312, 212.2857208251953, 212.42857360839844, 212.57142639160156, 212.7142791748047, 212.85714721679688, 213.0, 213.14285278320312, 213.2857208251953, 213.42857360839844, 213.57142639160156, 213.7142791748047, 213.85714721679688, 214.0, 214.14285278320312, 214.2857208251953, 214.42857360839844, 214.57142639160156, 214.7142791748047, 214.85714721679688, 215.0, 215.14285278320312, 215.2857208251953, 215.42857360839844, 215.57142639160156, 215.7142791748047, 215.85714721679688, 216.0, 216.14285278320312, 216.2857208251953, 216.42857360839844, 216.57142639160156, 216.7142791748047, 216.85714721679688, 217.0, 217.14285278320312, 217.2857208251953, 217.42857360839844, 217.57142639160156, 217.7142791748047, 217.85714721679688, 218.0, 218.14285278320312, 218.2857208251953, 218.42857360839844, 218.57142639160156, 218.7142791748047, 218.85714721679688, 219.0, 219.14285278320312, 219.2857208251953, 219.42857360839844, 219.57142639160156, 219.7142791748047, 219.85714721679688, 220.0, 220.14285278320312, 220.2857208251953, 220.42857360839844, 220.57142639160156, 220.7142791748047, 220.85714721679688, 221.0, 221.14285278320312, 221.2857208251953, 221.42857360839844, 221.57142639160156, 221.7142791748047, 221.85714721679688, 222.0, 222.14285278320312, 222.2857208251953, 222.42857360839844, 222.57142639160156, 222.7142791748047, 222.85714721679688, 223.0, 223.14285278320312, 223.2857208251953, 223.42857360839844, 223.57142639160156, 223.7142791748047, 223.85714721679688, 224.0, 224.14285278320312, 224.2857208251953, 224.42857360839844, 224.57142639160156, 224.7142791748047, 224.85714721679688, 225.0, 225.14285278320312, 225.2857208251953, 225.42857360839844, 225.57142639160156, 225.7142791748047, 225.85714721679688, 226.0, 226.14285278320312, 226.2857208251953, 226.42857360839844, 226.57142639160156, 226.7142791748047, 226.85714721679688, 227.0, 227.14285278320312, 227.2857208251953, 227.42857360839844, 227.57142639160156, 227.7142791748047, 227.85714721679688, 228.0, 228.14285278320312, 228.2857208251953, 228.42857360839844, 228.57142639160156, 228.7142791748047, 228.85714721679688, 229.0, 229.14285278320312, 229.2857208251953, 229.42857360839844, 229.57142639160156, 229.7142791748047, 229.85714721679688, 230.0, 230.14285278320312, 230.2857208251953, 230.42857360839844, 230.57142639160156, 230.7142791748047, 230.85714721679688, 231.0, 231.14285278320312, 231.2857208251953, 231.42857360839844, 231.57142639160156, 231.7142791748047, 231.85714721679688, 232.0, 232.14285278320312, 232.2857208251953, 232.42857360839844, 232.57142639160156, 232.7142791748047, 232.85714721679688, 233.0, 233.14285278320312, 233.2857208251953, 233.42857360839844, 233.57142639160156, 233.7142791748047, 233.85714721679688, 234.0, 234.14285278320312, 234.2857208251953, 234.42857360839844, 234.57142639160156, 234.7142791748047, 234.85714721679688, 235.0, 235.14285278320312, 235.2857208251953, 235.42857360839844, 235.57142639160156, 235.7142791748047, 235.85714721679688, 236.0, 236.14285278320312, 236.2857208251953, 236.42857360839844, 236.57142639160156, 236.7142791748047, 236.85714721679688, 237.0, 237.14285278320312, 237.2857208251953, 237.42857360839844, 237.57142639160156, 237.7142791748047, 237.85714721679688, 238.0, 238.14285278320312, 238.2857208251953, 238.42857360839844, 238.57142639160156, 238.7142791748047, 238.85714721679688, 239.0, 239.14285278320312, 239.2857208251953, 239.42857360839844, 239.57142639160156, 239.7142791748047, 239.85714721679688, 240.0, 240.14285278320312, 240.2857208251953, 240.42857360839844, 240.57142639160156, 240.7142791748047, 240.85714721679688, 241.0, 241.14285278320312, 241.2857208251953, 241.42857360839844, 241.57142639160156, 241.7142791748047, 241.85714721679688, 242.0, 242.14285278320312, 242.2857208251953, 242.42857360839844, 242.57142639160156, 242.7142791748047, 242.85714721679688, 243.0, 243.14285278320312, 243.2857208251953, 243.42857360839844, 243.57142639160156, 243.7142791748047, 243.85714721679688, 244.0, 244.14285278320312, 244.2857208251953, 244.42857360839844, 244.57142639160156, 244.7142791748047, 244.85714721679688, 245.0, 245.14285278320312, 245.2857208251953, 245.42857360839844, 245.57142639160156, 245.7142791748047, 245.85714721679688, 246.0, 246.14285278320312, 246.2857208251953, 246.42857360839844, 246.57142639160156, 246.7142791748047, 246.85714721679688, 247.0, 247.14285278320312, 247.2857208251953, 247.42857360839844, 247.57142639160156, 247.7142791748047, 247.85714721679688, 248.0, 248.14285278320312, 248.2857208251953, 248.42857360839844, 248.57142639160156, 248.7142791748047, 248.85714721679688, 249.0, 249.14285278320312, 249.2857208251953, 249.42857360839844, 249.57142639160156, 249.7142791748047, 249.85714721679688, 250.0, 250.14285278320312, 250.2857208251953, 250.42857360839844, 250.57142639160156, 250.7142791748047, 250.85714721679688, 251.0, 251.14285278320312, 251.2857208251953, 251.42857360839844, 251.57142639160156, 251.7142791748047, 251.85714721679688, 252.0, 252.14285278320312, 252.2857208251953, 252.42857360839844, 252.57142639160156, 252.7142791748047, 252.85714721679688, 253.0, 253.14285278320312, 253.2857208251953, 253.42857360839844, 253.57142639160156, 253.7142791748047, 253.85714721679688, 254.0, 254.14285278320312, 254.2857208251953, 254.42857360839844, 254.57142639160156, 254.7142791748047, 254.85714721679688, 255.0, 255.14285278320312, 255.2857208251953, 255.42857360839844, 255.57142639160156, 255.7142791748047, 255.85714721679688, 256.0, 256.1428527832031, 256.28570556640625, 256.4285583496094, 256.5714416503906, 256.71429443359375, 256.8571472167969, 257.0, 257.1428527832031, 257.28570556640625, 257.4285583496094, 257.5714416503906, 257.71429443359375, 257.8571472167969, 258.0, 258.1428527832031, 258.28570556640625, 258.4285583496094, 258.5714416503906, 258.71429443359375, 258.8571472167969, 259.0, 259.1428527832031, 259.28570556640625, 259.4285583496094, 259.5714416503906, 259.71429443359375, 259.8571472167969, 260.0, 260.1428527832031, 260.28570556640625, 260.4285583496094, 260.5714416503906, 260.71429443359375, 260.8571472167969, 261.0, 261.1428527832031, 261.28570556640625, 261.4285583496094, 261.5714416503906, 261.71429443359375, 261.8571472167969, 262.0, 262.1428527832031, 262.28570556640625, 262.4285583496094, 262.5714416503906, 262.71429443359375, 262.8571472167969, 263.0, 263.1428527832031, 263.28570556640625, 263.4285583496094, 263.5714416503906, 263.71429443359375, 263.8571472167969, 264.0, 264.1428527832031, 264.28570556640625, 264.4285583496094, 264.5714416503906, 264.71429443359375, 264.8571472167969, 265.0, 265.1428527832031, 265.28570556640625, 265.4285583496094, 265.5714416503906, 265.71429443359375, 265.8571472167969, 266.0, 266.1428527832031, 266.28570556640625, 266.4285583496094, 266.5714416503906, 266.71429443359375, 266.8571472167969, 267.0, 267.1428527832031, 267.28570556640625, 267.4285583496094, 267.5714416503906, 267.71429443359375, 267.8571472167969, 268.0, 268.1428527832031, 268.28570556640625, 268.4285583496094, 268.5714416503906, 268.71429443359375, 268.8571472167969, 269.0, 269.1428527832031, 269.28570556640625, 269.4285583496094, 269.5714416503906, 269.71429443359375, 269.8571472167969, 270.0, 270.1428527832031, 270.28570556640625, 270.4285583496094, 270.5714416503906, 270.71429443359375, 270.8571472167969, 271.0, 271.1428527832031, 271.28570556640625, 271.4285583496094, 271.5714416503906, 271.71429443359375, 271.8571472167969, 272.0, 272.1428527832031, 272.28570556640625, 272.4285583496094, 272.5714416503906, 272.71429443359375, 272.8571472167969, 273.0, 273.1428527832031, 273.28570556640625, 273.4285583496094, 273.5714416503906, 273.71429443359375, 273.8571472167969, 274.0, 274.1428527832031, 274.28570556640625, 274.4285583496094, 274.5714416503906, 274.71429443359375, 274.8571472167969, 275.0, 275.1428527832031, 275.28570556640625, 275.4285583496094, 275.5714416503906, 275.71429443359375, 275.8571472167969, 276.0, 276.1428527832031, 276.28570556640625, 276.4285583496094, 276.5714416503906, 276.71429443359375, 276.8571472167969, 277.0, 277.1428527832031, 277.28570556640625, 277.4285583496094, 277.5714416503906, 277.71429443359375, 277.8571472167969, 278.0, 278.1428527832031, 278.28570556640625, 278.4285583496094, 278.5714416503906, 278.71429443359375, 278.8571472167969, 279.0, 279.1428527832031, 279.28570556640625, 279.4285583496094, 279.5714416503906, 279.71429443359375, 279.8571472167969, 280.0, 280.1428527832031, 280.28570556640625, 280.4285583496094, 280.5714416503906, 280.71429443359375, 280.8571472167969, 281.0, 281.1428527832031, 281.28570556640625, 281.4285583496094, 281.5714416503906, 281.71429443359375, 281.8571472167969, 282.0, 282.1428527832031, 282.28570556640625, 282.4285583496094, 282.5714416503906, 282.71429443359375, 282.8571472167969, 283.0, 283.1428527832031, 283.28570556640625, 283.4285583496094, 283.5714416503906, 283.71429443359375, 283.8571472167969, 284.0, 284.1428527832031, 284.28570556640625, 284.4285583496094, 284.5714416503906, 284.71429443359375, 284.8571472167969, 285.0, 285.1428527832031, 285.28570556640625, 285.4285583496094, 285.5714416503906, 285.71429443359375, 285.8571472167969, 286.0, 286.1428527832031, 286.28570556640625, 286.4285583496094, 286.5714416503906, 286.71429443359375, 286.8571472167969, 287.0, 287.1428527832031, 287.28570556640625, 287.4285583496094, 287.5714416503906, 287.71429443359375, 287.8571472167969, 288.0, 288.1428527832031, 288.28570556640625, 288.4285583496094, 288.5714416503906, 288.71429443359375, 288.8571472167969, 289.0, 289.1428527832031, 289.28570556640625, 289.4285583496094, 289.5714416503906, 289.71429443359375, 289.8571472167969, 290.0, 290.1428527832031, 290.28570556640625, 290.4285583496094, 290.5714416503906, 290.71429443359375, 290.8571472167969, 291.0, 291.1428527832031, 291.28570556640625, 291.4285583496094, 291.5714416503906, 291.71429443359375, 291.8571472167969, 292.0, 292.1428527832031, 292.28570556640625, 292.4285583496094, 292.5714416503906, 292.71429443359375, 292.8571472167969, 293.0, 293.1428527832031, 293.28570556640625, 293.4285583496094, 293.5714416503906, 293.71429443359375, 293.8571472167969, 294.0, 294.1428527832031, 294.28570556640625, 294.4285583496094, 294.5714416503906, 294.71429443359375, 294.8571472167969, 295.0, 295.1428527832031, 295.28570556640625, 295.4285583496094, 295.5714416503906, 295.71429443359375, 295.8571472167969, 296.0, 296.1428527832031, 296.28570556640625, 296.4285583496094, 296.5714416503906, 296.71429443359375, 296.8571472167969, 297.0, 297.1428527832031, 297.28570556640625, 297.4285583496094, 297.5714416503906, 297.71429443359375, 297.8571472167969, 298.0, 298.1428527832031, 298.28570556640625, 298.4285583496094, 298.5714416503906, 298.71429443359375, 298.8571472167969, 299.0, 299.1428527832031, 299.28570556640625, 299.4285583496094, 299.5714416503906, 299.71429443359375, 299.8571472167969, 300.0, 300.1428527832031, 300.28570556640625, 300.4285583496094, 300.5714416503906, 300.71429443359375, 300.8571472167969, 301.0, 301.1428527832031, 301.28570556640625, 301.4285583496094, 301.5714416503906, 301.71429443359375, 301.8571472167969, 302.0, 302.1428527832031, 302.28570556640625, 302.4285583496094, 302.5714416503906, 302.71429443359375, 302.8571472167969, 303.0, 303.1428527832031, 303.28570556640625, 303.4285583496094, 303.5714416503906, 303.71429443359375, 303.8571472167969, 304.0, 304.1428527832031, 304.28570556640625, 304.4285583496094, 304.5714416503906, 304.71429443359375, 304.8571472167969, 305.0, 305.1428527832031, 305.28570556640625, 305.4285583496094, 305.5714416503906, 305.71429443359375, 305.8571472167969, 306.0, 306.1428527832031, 306.28570556640625, 306.4285583496094, 306.5714416503906, 306.71429443359375, 306.8571472167969, 307.0, 307.1428527832031, 307.28570556640625, 307.4285583496094, 307.5714416503906, 307.71429443359375, 307.8571472167969, 308.0, 308.1428527832031, 308.28570556640625, 308.4285583496094, 308.5714416503906, 308.71429443359375, 308.8571472167969, 309.0, 309.1428527832031, 309.28570556640625, 309.4285583496094, 309.5714416503906, 309.71429443359375, 309.8571472167969, 310.0, 310.1428527832031, 310.28570556640625, 310.4285583496094, 310.5714416503906, 310.71429443359375, 310.8571472167969, 311.0, 311.1428527832031, 311.28570556640625, 311.4285583496094, 311.5714416503906, 311.71429443359375, 311.8571472167969, 312.0, 312.1428527832031, 312.28570556640625, 312.4285583496094, 312.5714416503906, 312.71429443359375, 312.8571472167969, 313.0, 313.1428527832031, 313.28570556640625, 313.4285583496094, 313.5714416503906, 313.71429443359375, 313.8571472167969, 314.0, 314.1428527832031, 314.28570556640625, 314.4285583496094, 314.5714416503906, 314.71429443359375, 314.8571472167969, 315.0, 315.1428527832031, 315.28570556640625, 315.4285583496094, 315.5714416503906, 315.71429443359375, 315.8571472167969, 316.0, 316.1428527832031, 316.28570556640625, 316.4285583496094, 316.5714416503906, 316.71429443359375, 316.8571472167969, 317.0, 317.1428527832031, 317.28570556640625, 317.4285583496094, 317.5714416503906, 317.71429443359375, 317.8571472167969, 318.0, 318.1428527832031, 318.28570556640625, 318.4285583496094, 318.5714416503906, 318.71429443359375, 318.8571472167969, 319.0, 319.1428527832031, 319.28570556640625, 319.4285583496094, 319.5714416503906, 319.71429443359375, 319.8571472167969, 320.0, 320.1428527832031, 320.28570556640625, 320.4285583496094, 320.5714416503906, 320.71429443359375, 320.8571472167969, 321.0, 321.1428527832031, 321.28570556640625, 321.4285583496094, 321.5714416503906, 321.71429443359375, 321.8571472167969, 322.0, 322.1428527832031, 322.28570556640625, 322.4285583496094, 322.5714416503906, 322.71429443359375, 322.8571472167969, 323.0, 323.1428527832031, 323.28570556640625, 323.4285583496094, 323.5714416503906, 323.71429443359375, 323.8571472167969, 324.0, 324.1428527832031, 324.28570556640625, 324.4285583496094, 324.5714416503906, 324.71429443359375, 324.8571472167969, 325.0, 325.1428527832031, 325.28570556640625, 325.4285583496094, 325.5714416503906, 325.71429443359375, 325.8571472167969, 326.0, 326.1428527832031, 326.28570556640625, 326.4285583496094, 326.5714416503906, 326.71429443359375, 326.8571472167969, 327.0, 327.1428527832031, 327.28570556640625, 327.4285583496094, 327.5714416503906, 327.71429443359375, 327.8571472167969, 328.0, 328.1428527832031, 328.28570556640625, 328.4285583496094, 328.5714416503906, 328.71429443359375, 328.8571472167969, 329.0, 329.1428527832031, 329.28570556640625, 329.4285583496094, 329.5714416503906, 329.71429443359375, 329.8571472167969, 330.0, 330.1428527832031, 330.28570556640625, 330.4285583496094, 330.5714416503906, 330.71429443359375, 330.8571472167969, 331.0, 331.1428527832031, 331.28570556640625, 331.4285583496094, 331.5714416503906, 331.71429443359375, 331.8571472167969, 332.0, 332.1428527832031, 332.28570556640625, 332.4285583496094, 332.5714416503906, 332.71429443359375, 332.8571472167969, 333.0, 333.1428527832031, 333.28570556640625, 333.4285583496094, 333.5714416503906, 333.71429443359375, 333.8571472167969, 334.0, 334.1428527832031, 334.28570556640625, 334.4285583496094, 334.5714416503906, 334.71429443359375, 334.8571472167969, 335.0, 335.1428527832031, 335.28570556640625, 335.4285583496094, 335.5714416503906, 335.71429443359375, 335.8571472167969, 336.0, 336.1428527832031, 336.28570556640625, 336.4285583496094, 336.5714416503906, 336.71429443359375, 336.8571472167969, 337.0, 337.1428527832031, 337.28570556640625, 337.4285583496094, 337.5714416503906, 337.71429443359375, 337.8571472167969, 338.0, 338.1428527832031, 338.28570556640625, 338.4285583496094, 338.5714416503906, 338.71429443359375, 338.8571472167969, 339.0, 339.1428527832031, 339.28570556640625, 339.4285583496094, 339.5714416503906, 339.71429443359375, 339.8571472167969, 340.0, 340.1428527832031, 340.28570556640625, 340.4285583496094, 340.5714416503906, 340.71429443359375, 340.8571472167969, 341.0, 341.1428527832031, 341.28570556640625, 341.4285583496094, 341.5714416503906, 341.71429443359375, 341.8571472167969, 342.0, 342.1428527832031, 342.28570556640625, 342.4285583496094, 342.5714416503906, 342.71429443359375, 342.8571472167969, 343.0, 343.1428527832031, 343.28570556640625, 343.4285583496094, 343.5714416503906, 343.71429443359375, 343.8571472167969, 344.0, 344.1428527832031, 344.28570556640625, 344.4285583496094, 344.5714416503906, 344.71429443359375, 344.8571472167969, 345.0, 345.1428527832031, 345.28570556640625, 345.4285583496094, 345.5714416503906, 345.71429443359375, 345.8571472167969, 346.0, 346.1428527832031, 346.28570556640625, 346.4285583496094, 346.5714416503906, 346.71429443359375, 346.8571472167969, 347.0, 347.1428527832031, 347.28570556640625, 347.4285583496094, 347.5714416503906, 347.71429443359375, 347.8571472167969, 348.0, 348.1428527832031, 348.28570556640625, 348.4285583496094, 348.5714416503906, 348.71429443359375, 348.8571472167969, 349.0, 349.1428527832031, 349.28570556640625, 349.4285583496094, 349.5714416503906, 349.71429443359375, 349.8571472167969, 350.0, 350.1428527832031, 350.28570556640625, 350.4285583496094, 350.5714416503906, 350.71429443359375, 350.8571472167969, 351.0, 351.1428527832031, 351.28570556640625, 351.4285583496094, 351.5714416503906, 351.71429443359375, 351.8571472167969, 352.0, 352.1428527832031, 352.28570556640625, 352.4285583496094, 352.5714416503906, 352.71429443359375, 352.8571472167969, 353.0, 353.1428527832031, 353.28570556640625, 353.4285583496094, 353.5714416503906, 353.71429443359375, 353.8571472167969, 354.0, 354.1428527832031, 354.28570556640625, 354.4285583496094, 354.5714416503906, 354.71429443359375, 354.8571472167969, 355.0, 355.1428527832031, 355.28570556640625, 355.4285583496094, 355.5714416503906, 355.71429443359375, 355.8571472167969, 356.0, 356.1428527832031, 356.28570556640625, 356.4285583496094, 356.5714416503906, 356.71429443359375, 356.8571472167969, 357.0, 357.1428527832031, 357.28570556640625, 357.4285583496094, 357.5714416503906, 357.71429443359375, 357.8571472167969, 358.0, 358.1428527832031, 358.28570556640625, 358.4285583496094, 358.5714416503906, 358.71429443359375, 358.8571472167969, 359.0, 359.1428527832031, 359.28570556640625, 359.4285583496094, 359.5714416503906, 359.71429443359375, 359.8571472167969, 360.0, 360.1428527832031, 360.28570556640625, 360.4285583496094, 360.5714416503906, 360.71429443359375, 360.8571472167969, 361.0, 361.1428527832031, 361.28570556640625, 361.4285583496094, 361.5714416503906, 361.71429443359375, 361.8571472167969, 362.0, 362.1428527832031, 362.28570556640625, 362.4285583496094, 362.5714416503906, 362.71429443359375, 362.8571472167969, 363.0, 363.1428527832031, 363.28570556640625, 363.4285583496094, 363.5714416503906, 363.71429443359375, 363.8571472167969, 364.0, 364.1428527832031, 364.28570556640625, 364.4285583496094, 364.5714416503906, 364.71429443359375, 364.8571472167969, 365.0, 365.1428527832031, 365.28570556640625, 365.4285583496094, 365.5714416503906, 365.71429443359375, 365.8571472167969, 366.0, 366.1428527832031, 366.28570556640625, 366.4285583496094, 366.5714416503906, 366.71429443359375, 366.8571472167969, 367.0, 367.1428527832031, 367.28570556640625, 367.4285583496094, 367.5714416503906, 367.71429443359375, 367.8571472167969, 368.0, 368.1428527832031, 368.28570556640625, 368.4285583496094, 368.5714416503906, 368.71429443359375, 368.8571472167969, 369.0, 369.1428527832031, 369.28570556640625, 369.4285583496094, 369.5714416503906, 369.71429443359375, 369.8571472167969, 370.0, 370.1428527832031, 370.28570556640625, 370.4285583496094, 370.5714416503906, 370.71429443359375, 370.8571472167969, 371.0, 371.1428527832031, 371.28570556640625, 371.4285583496094, 371.5714416503906, 371.71429443359375, 371.8571472167969, 372.0, 372.1428527832031, 372.28570556640625, 372.4285583496094, 372.5714416503906, 372.71429443359375, 372.8571472167969, 373.0, 373.1428527832031, 373.28570556640625, 373.4285583496094, 373.5714416503906, 373.71429443359375, 373.8571472167969, 374.0, 374.1428527832031, 374.28570556640625, 374.4285583496094, 374.5714416503906, 374.71429443359375, 374.8571472167969, 375.0, 375.1428527832031, 375.28570556640625, 375.4285583496094, 375.5714416503906, 375.71429443359375, 375.8571472167969, 376.0, 376.1428527832031, 376.28570556640625, 376.4285583496094, 376.5714416503906, 376.71429443359375, 376.8571472167969, 377.0, 377.1428527832031, 377.28570556640625, 377.4285583496094, 377.5714416503906, 377.71429443359375, 377.8571472167969, 378.0, 378.1428527832031, 378.28570556640625, 378.4285583496094, 378.5714416503906, 378.71429443359375, 378.8571472167969, 379.0, 379.1428527832031, 379.28570556640625, 379.4285583496094, 379.5714416503906, 379.71429443359375, 379.8571472167969, 380.0, 380.1428527832031, 380.28570556640625, 380.4285583496094, 380.5714416503906, 380.71429443359375, 380.8571472167969, 381.0, 381.1428527832031, 381.28570556640625, 381.4285583496094, 381.5714416503906, 381.71429443359375, 381.8571472167969, 382.0, 382.1428527832031, 382.28570556640625, 382.4285583496094, 382.5714416503906, 382.71429443359375, 382.8571472167969, 383.0, 383.1428527832031, 383.28570556640625, 383.4285583496094, 383.5714416503906, 383.71429443359375, 383.8571472167969, 384.0, 384.1428527832031, 384.28570556640625, 384.4285583496094, 384.5714416503906, 384.71429443359375, 384.8571472167969, 385.0, 385.1428527832031, 385.28570556640625, 385.4285583496094, 385.5714416503906, 385.71429443359375, 385.8571472167969, 386.0, 386.1428527832031, 386.28570556640625, 386.4285583496094, 386.5714416503906, 386.71429443359375, 386.8571472167969, 387.0, 387.1428527832031, 387.28570556640625, 387.4285583496094, 387.5714416503906, 387.71429443359375, 387.8571472167969, 388.0, 388.1428527832031, 388.28570556640625, 388.4285583496094, 388.5714416503906, 388.71429443359375, 388.8571472167969, 389.0, 389.1428527832031, 389.28570556640625, 389.4285583496094, 389.5714416503906, 389.71429443359375, 389.8571472167969, 390.0, 390.1428527832031, 390.28570556640625, 390.4285583496094, 390.5714416503906, 390.71429443359375, 390.8571472167969, 391.0, 391.1428527832031, 391.28570556640625, 391.4285583496094, 391.5714416503906, 391.71429443359375, 391.8571472167969, 392.0, 392.1428527832031, 392.28570556640625, 392.4285583496094, 392.5714416503906, 392.71429443359375, 392.8571472167969, 393.0, 393.1428527832031, 393.28570556640625, 393.4285583496094, 393.5714416503906, 393.71429443359375, 393.8571472167969, 394.0, 394.1428527832031, 394.28570556640625, 394.4285583496094, 394.5714416503906, 394.71429443359375, 394.8571472167969, 395.0, 395.1428527832031, 395.28570556640625, 395.4285583496094, 395.5714416503906, 395.71429443359375, 395.8571472167969, 396.0, 396.1428527832031, 396.28570556640625, 396.4285583496094, 396.5714416503906, 396.71429443359375, 396.8571472167969, 397.0, 397.1428527832031, 397.28570556640625, 397.4285583496094, 397.5714416503906, 397.71429443359375, 397.8571472167969, 398.0, 398.1428527832031, 398.28570556640625, 398.4285583496094, 398.5714416503906, 398.71429443359375, 398.8571472167969, 399.0, 399.1428527832031, 399.28570556640625, 399.4285583496094, 399.5714416503906, 399.71429443359375, 399.8571472167969, 400.0, 400.1428527832031, 400.28570556640625, 400.4285583496094, 400.5714416503906, 400.71429443359375, 400.8571472167969, 401.0, 401.1428527832031, 401.28570556640625, 401.4285583496094, 401.5714416503906, 401.71429443359375, 401.8571472167969, 402.0, 402.1428527832031, 402.28570556640625, 402.4285583496094, 402.5714416503906, 402.71429443359375, 402.8571472167969, 403.0, 403.1428527832031, 403.28570556640625, 403.4285583496094, 403.5714416503906, 403.71429443359375, 403.8571472167969, 404.0, 404.1428527832031, 404.28570556640625, 404.4285583496094, 404.5714416503906, 404.71429443359375, 404.8571472167969, 405.0, 405.1428527832031, 405.28570556640625, 405.4285583496094, 405.5714416503906, 405.71429443359375, 405.8571472167969, 406.0, 406.1428527832031, 406.28570556640625, 406.4285583496094, 406.5714416503906, 406.71429443359375, 406.8571472167969, 407.0, 407.1428527832031, 407.28570556640625, 407.4285583496094, 407.5714416503906, 407.71429443359375, 407.8571472167969, 408.0, 408.1428527832031, 408.28570556640625, 408.4285583496094, 408.5714416503906, 408.71429443359375, 408.8571472167969, 409.0, 409.1428527832031, 409.28570556640625, 409.4285583496094, 409.5714416503906, 409.71429443359375, 409.8571472167969, 410.0, 410.1428527832031, 410.28570556640625, 410.4285583496094, 410.5714416503906, 410.71429443359375, 410.8571472167969, 411.0, 411.1428527832031, 411.28570556640625, 411.4285583496094, 411.5714416503906, 411.71429443359375, 411.8571472167969, 412.0, 412.1428527832031, 412.28570556640625, 412.4285583496094, 412.5714416503906, 412.71429443359375, 412.8571472167969, 413.0, 413.1428527832031, 413.28570556640625, 413.4285583496094, 413.5714416503906, 413.71429443359375, 413.8571472167969, 414.0, 414.1428527832031, 414.28570556640625, 414.4285583496094, 414.5714416503906, 414.71429443359375, 414.8571472167969, 415.0, 415.1428527832031, 415.28570556640625, 415.4285583496094, 415.5714416503906, 415.71429443359375, 415.8571472167969, 416.0, 416.1428527832031, 416.28570556640625, 416.4285583496094, 416.5714416503906, 416.71429443359375, 416.8571472167969, 417.0, 417.1428527832031, 417.28570556640625, 417.4285583496094, 417.5714416503906, 417.71429443359375, 417.8571472167969, 418.0, 418.1428527832031, 418.28570556640625, 418.4285583496094, 418.5714416503906, 418.71429443359375, 418.8571472167969, 419.0, 419.1428527832031, 419.28570556640625, 419.4285583496094, 419.5714416503906, 419.71429443359375, 419.8571472167969, 420.0, 420.1428527832031, 420.28570556640625, 420.4285583496094, 420.5714416503906, 420.71429443359375, 420.8571472167969, 421.0, 421.1428527832031, 421.28570556640625, 421.4285583496094, 421.5714416503906, 421.71429443359375, 421.8571472167969, 422.0, 422.1428527832031, 422.28570556640625, 422.4285583496094, 422.5714416503906, 422.71429443359375, 422.8571472167969, 423.0, 423.1428527832031, 423.28570556640625, 423.4285583496094, 423.5714416503906, 423.71429443359375, 423.8571472167969, 424.0, 424.1428527832031, 424.28570556640625, 424.4285583496094, 424.5714416503906, 424.71429443359375, 424.8571472167969, 425.0, 425.1428527832031, 425.28570556640625, 425.4285583496094, 425.5714416503906, 425.71429443359375, 425.8571472167969, 426.0, 426.1428527832031, 426.28570556640625, 426.4285583496094, 426.5714416503906, 426.71429443359375, 426.8571472167969, 427.0, 427.1428527832031, 427.28570556640625, 427.4285583496094, 427.5714416503906, 427.71429443359375, 427.8571472167969, 428.0, 428.1428527832031, 428.28570556640625, 428.4285583496094]),
            "array([[[0.0000000e+00, 1.4285715e-01, 2.8571430e-01, ...,\n         1.7142857e+00, 1.8571428e+00, 2.0000000e+00],\n        [2.1428571e+00, 2.2857144e+00, 2.4285715e+00, ...,\n         3.8571429e+00, 4.0000000e+00, 4.1428571e+00],\n        [4.2857141e+00, 4.4285712e+00, 4.5714288e+00, ...,\n         6.0000000e+00, 6.1428571e+00, 6.2857141e+00],\n        ...,\n        [3.6428570e+01, 3.6571430e+01, 3.6714287e+01, ...,\n         3.8142857e+01, 3.8285713e+01, 3.8428570e+01],\n        [3.8571430e+01, 3.8714287e+01, 3.8857143e+01, ...,\n         4.0285713e+01, 4.0428570e+01, 4.0571430e+01],\n        [4.0714287e+01, 4.0857143e+01, 4.1000000e+01, ...,\n         4.2428570e+01, 4.2571430e+01, 4.2714287e+01]],\n\n       [[4.2857143e+01, 4.3000000e+01, 4.3142857e+01, ...,\n         4.4571430e+01, 4.4714287e+01, 4.4857143e+01],\n        [4.5000000e+01, 4.5142857e+01, 4.5285713e+01, ...,\n         4.6714287e+01, 4.6857143e+01, 4.7000000e+01],\n        [4.7142857e+01, 4.7285713e+01, 4.7428570e+01, ...,\n         4.8857143e+01, 4.9000000e+01, 4.9142857e+01],\n        ...,\n        [7.9285713e+01, 7.9428574e+01, 7.9571426e+01, ...,\n         8.1000000e+01, 8.1142860e+01, 8.1285713e+01],\n        [8.1428574e+01, 8.1571426e+01, 8.1714287e+01, ...,\n         8.3142860e+01, 8.3285713e+01, 8.3428574e+01],\n        [8.3571426e+01, 8.3714287e+01, 8.3857140e+01, ...,\n         8.5285713e+01, 8.5428574e+01, 8.5571426e+01]],\n\n       [[8.5714287e+01, 8.5857140e+01, 8.6000000e+01, ...,\n         8.7428574e+01, 8.7571426e+01, 8.7714287e+01],\n        [8.7857140e+01, 8.8000000e+01, 8.8142860e+01, ...,\n         8.9571426e+01, 8.9714287e+01, 8.9857140e+01],\n        [9.0000000e+01, 9.0142860e+01, 9.0285713e+01, ...,\n         9.1714287e+01, 9.1857140e+01, 9.2000000e+01],\n        ...,\n        [1.2214286e+02, 1.2228571e+02, 1.2242857e+02, ...,\n         1.2385714e+02, 1.2400000e+02, 1.2414286e+02],\n        [1.2428571e+02, 1.2442857e+02, 1.2457143e+02, ...,\n         1.2600000e+02, 1.2614286e+02, 1.2628571e+02],\n        [1.2642857e+02, 1.2657143e+02, 1.2671429e+02, ...,\n         1.2814285e+02, 1.2828572e+02, 1.2842857e+02]],\n\n       ...,\n\n       [[3.0000000e+02, 3.0014285e+02, 3.0028571e+02, ...,\n         3.0171429e+02, 3.0185715e+02, 3.0200000e+02],\n        [3.0214285e+02, 3.0228571e+02, 3.0242856e+02, ...,\n         3.0385715e+02, 3.0400000e+02, 3.0414285e+02],\n        [3.0428571e+02, 3.0442856e+02, 3.0457144e+02, ...,\n         3.0600000e+02, 3.0614285e+02, 3.0628571e+02],\n        ...,\n        [3.3642856e+02, 3.3657144e+02, 3.3671429e+02, ...,\n         3.3814285e+02, 3.3828571e+02, 3.3842856e+02],\n        [3.3857144e+02, 3.3871429e+02, 3.3885715e+02, ...,\n         3.4028571e+02, 3.4042856e+02, 3.4057144e+02],\n        [3.4071429e+02, 3.4085715e+02, 3.4100000e+02, ...,\n         3.4242856e+02, 3.4257144e+02, 3.4271429e+02]],\n\n       [[3.4285715e+02, 3.4300000e+02, 3.4314285e+02, ...,\n         3.4457144e+02, 3.4471429e+02, 3.4485715e+02],\n        [3.4500000e+02, 3.4514285e+02, 3.4528571e+02, ...,\n         3.4671429e+02, 3.4685715e+02, 3.4700000e+02],\n        [3.4714285e+02, 3.4728571e+02, 3.4742856e+02, ...,\n         3.4885715e+02, 3.4900000e+02, 3.4914285e+02],\n        ...,\n        [3.7928571e+02, 3.7942856e+02, 3.7957144e+02, ...,\n         3.8100000e+02, 3.8114285e+02, 3.8128571e+02],\n        [3.8142856e+02, 3.8157144e+02, 3.8171429e+02, ...,\n         3.8314285e+02, 3.8328571e+02, 3.8342856e+02],\n        [3.8357144e+02, 3.8371429e+02, 3.8385715e+02, ...,\n         3.8528571e+02, 3.8542856e+02, 3.8557144e+02]],\n\n       [[3.8571429e+02, 3.8585715e+02, 3.8600000e+02, ...,\n         3.8742856e+02, 3.8757144e+02, 3.8771429e+02],\n        [3.8785715e+02, 3.8800000e+02, 3.8814285e+02, ...,\n         3.8957144e+02, 3.8971429e+02, 3.8985715e+02],\n        [3.9000000e+02, 3.9014285e+02, 3.9028571e+02, ...,\n         3.9171429e+02, 3.9185715e+02, 3.9200000e+02],\n        ...,\n        [4.2214285e+02, 4.2228571e+02, 4.2242856e+02, ...,\n         4.2385715e+02, 4.2400000e+02, 4.2414285e+02],\n        [4.2428571e+02, 4.2442856e+02, 4.2457144e+02, ...,\n         4.2600000e+02, 4.2614285e+02, 4.2628571e+02],\n        [4.2642856e+02, 4.2657144e+02, 4.2671429e+02, ...,\n         4.2814285e+02, 4.2828571e+02, 4.2842856e+02]]],\n      shape=(10, 20, 15), dtype=float32)",
            "[[[0.0000000e+00 1.4285715e-01 2.8571430e-01 ... 1.7142857e+00\n   1.8571428e+00 2.0000000e+00]\n  [2.1428571e+00 2.2857144e+00 2.4285715e+00 ... 3.8571429e+00\n   4.0000000e+00 4.1428571e+00]\n  [4.2857141e+00 4.4285712e+00 4.5714288e+00 ... 6.0000000e+00\n   6.1428571e+00 6.2857141e+00]\n  ...\n  [3.6428570e+01 3.6571430e+01 3.6714287e+01 ... 3.8142857e+01\n   3.8285713e+01 3.8428570e+01]\n  [3.8571430e+01 3.8714287e+01 3.8857143e+01 ... 4.0285713e+01\n   4.0428570e+01 4.0571430e+01]\n  [4.0714287e+01 4.0857143e+01 4.1000000e+01 ... 4.2428570e+01\n   4.2571430e+01 4.2714287e+01]]\n\n [[4.2857143e+01 4.3000000e+01 4.3142857e+01 ... 4.4571430e+01\n   4.4714287e+01 4.4857143e+01]\n  [4.5000000e+01 4.5142857e+01 4.5285713e+01 ... 4.6714287e+01\n   4.6857143e+01 4.7000000e+01]\n  [4.7142857e+01 4.7285713e+01 4.7428570e+01 ... 4.8857143e+01\n   4.9000000e+01 4.9142857e+01]\n  ...\n  [7.9285713e+01 7.9428574e+01 7.9571426e+01 ... 8.1000000e+01\n   8.1142860e+01 8.1285713e+01]\n  [8.1428574e+01 8.1571426e+01 8.1714287e+01 ... 8.3142860e+01\n   8.3285713e+01 8.3428574e+01]\n  [8.3571426e+01 8.3714287e+01 8.3857140e+01 ... 8.5285713e+01\n   8.5428574e+01 8.5571426e+01]]\n\n [[8.5714287e+01 8.5857140e+01 8.6000000e+01 ... 8.7428574e+01\n   8.7571426e+01 8.7714287e+01]\n  [8.7857140e+01 8.8000000e+01 8.8142860e+01 ... 8.9571426e+01\n   8.9714287e+01 8.9857140e+01]\n  [9.0000000e+01 9.0142860e+01 9.0285713e+01 ... 9.1714287e+01\n   9.1857140e+01 9.2000000e+01]\n  ...\n  [1.2214286e+02 1.2228571e+02 1.2242857e+02 ... 1.2385714e+02\n   1.2400000e+02 1.2414286e+02]\n  [1.2428571e+02 1.2442857e+02 1.2457143e+02 ... 1.2600000e+02\n   1.2614286e+02 1.2628571e+02]\n  [1.2642857e+02 1.2657143e+02 1.2671429e+02 ... 1.2814285e+02\n   1.2828572e+02 1.2842857e+02]]\n\n ...\n\n [[3.0000000e+02 3.0014285e+02 3.0028571e+02 ... 3.0171429e+02\n   3.0185715e+02 3.0200000e+02]\n  [3.0214285e+02 3.0228571e+02 3.0242856e+02 ... 3.0385715e+02\n   3.0400000e+02 3.0414285e+02]\n  [3.0428571e+02 3.0442856e+02 3.0457144e+02 ... 3.0600000e+02\n   3.0614285e+02 3.0628571e+02]\n  ...\n  [3.3642856e+02 3.3657144e+02 3.3671429e+02 ... 3.3814285e+02\n   3.3828571e+02 3.3842856e+02]\n  [3.3857144e+02 3.3871429e+02 3.3885715e+02 ... 3.4028571e+02\n   3.4042856e+02 3.4057144e+02]\n  [3.4071429e+02 3.4085715e+02 3.4100000e+02 ... 3.4242856e+02\n   3.4257144e+02 3.4271429e+02]]\n\n [[3.4285715e+02 3.4300000e+02 3.4314285e+02 ... 3.4457144e+02\n   3.4471429e+02 3.4485715e+02]\n  [3.4500000e+02 3.4514285e+02 3.4528571e+02 ... 3.4671429e+02\n   3.4685715e+02 3.4700000e+02]\n  [3.4714285e+02 3.4728571e+02 3.4742856e+02 ... 3.4885715e+02\n   3.4900000e+02 3.4914285e+02]\n  ...\n  [3.7928571e+02 3.7942856e+02 3.7957144e+02 ... 3.8100000e+02\n   3.8114285e+02 3.8128571e+02]\n  [3.8142856e+02 3.8157144e+02 3.8171429e+02 ... 3.8314285e+02\n   3.8328571e+02 3.8342856e+02]\n  [3.8357144e+02 3.8371429e+02 3.8385715e+02 ... 3.8528571e+02\n   3.8542856e+02 3.8557144e+02]]\n\n [[3.8571429e+02 3.8585715e+02 3.8600000e+02 ... 3.8742856e+02\n   3.8757144e+02 3.8771429e+02]\n  [3.8785715e+02 3.8800000e+02 3.8814285e+02 ... 3.8957144e+02\n   3.8971429e+02 3.8985715e+02]\n  [3.9000000e+02 3.9014285e+02 3.9028571e+02 ... 3.9171429e+02\n   3.9185715e+02 3.9200000e+02]\n  ...\n  [4.2214285e+02 4.2228571e+02 4.2242856e+02 ... 4.2385715e+02\n   4.2400000e+02 4.2414285e+02]\n  [4.2428571e+02 4.2442856e+02 4.2457144e+02 ... 4.2600000e+02\n   4.2614285e+02 4.2628571e+02]\n  [4.2642856e+02 4.2657144e+02 4.2671429e+02 ... 4.2814285e+02\n   4.2828571e+02 4.2842856e+02]]]",
        );
    }

    #[test]
    fn sum_4d() {
        check(
            DType::Int64,
            &[8, 8, 8, 8],
            HostValues::I64((0..4096).collect()),
            "array([[[[   0,    1,    2, ...,    5,    6,    7],\n         [   8,    9,   10, ...,   13,   14,   15],\n         [  16,   17,   18, ...,   21,   22,   23],\n         ...,\n         [  40,   41,   42, ...,   45,   46,   47],\n         [  48,   49,   50, ...,   53,   54,   55],\n         [  56,   57,   58, ...,   61,   62,   63]],\n\n        [[  64,   65,   66, ...,   69,   70,   71],\n         [  72,   73,   74, ...,   77,   78,   79],\n         [  80,   81,   82, ...,   85,   86,   87],\n         ...,\n         [ 104,  105,  106, ...,  109,  110,  111],\n         [ 112,  113,  114, ...,  117,  118,  119],\n         [ 120,  121,  122, ...,  125,  126,  127]],\n\n        [[ 128,  129,  130, ...,  133,  134,  135],\n         [ 136,  137,  138, ...,  141,  142,  143],\n         [ 144,  145,  146, ...,  149,  150,  151],\n         ...,\n         [ 168,  169,  170, ...,  173,  174,  175],\n         [ 176,  177,  178, ...,  181,  182,  183],\n         [ 184,  185,  186, ...,  189,  190,  191]],\n\n        ...,\n\n        [[ 320,  321,  322, ...,  325,  326,  327],\n         [ 328,  329,  330, ...,  333,  334,  335],\n         [ 336,  337,  338, ...,  341,  342,  343],\n         ...,\n         [ 360,  361,  362, ...,  365,  366,  367],\n         [ 368,  369,  370, ...,  373,  374,  375],\n         [ 376,  377,  378, ...,  381,  382,  383]],\n\n        [[ 384,  385,  386, ...,  389,  390,  391],\n         [ 392,  393,  394, ...,  397,  398,  399],\n         [ 400,  401,  402, ...,  405,  406,  407],\n         ...,\n         [ 424,  425,  426, ...,  429,  430,  431],\n         [ 432,  433,  434, ...,  437,  438,  439],\n         [ 440,  441,  442, ...,  445,  446,  447]],\n\n        [[ 448,  449,  450, ...,  453,  454,  455],\n         [ 456,  457,  458, ...,  461,  462,  463],\n         [ 464,  465,  466, ...,  469,  470,  471],\n         ...,\n         [ 488,  489,  490, ...,  493,  494,  495],\n         [ 496,  497,  498, ...,  501,  502,  503],\n         [ 504,  505,  506, ...,  509,  510,  511]]],\n\n\n       [[[ 512,  513,  514, ...,  517,  518,  519],\n         [ 520,  521,  522, ...,  525,  526,  527],\n         [ 528,  529,  530, ...,  533,  534,  535],\n         ...,\n         [ 552,  553,  554, ...,  557,  558,  559],\n         [ 560,  561,  562, ...,  565,  566,  567],\n         [ 568,  569,  570, ...,  573,  574,  575]],\n\n        [[ 576,  577,  578, ...,  581,  582,  583],\n         [ 584,  585,  586, ...,  589,  590,  591],\n         [ 592,  593,  594, ...,  597,  598,  599],\n         ...,\n         [ 616,  617,  618, ...,  621,  622,  623],\n         [ 624,  625,  626, ...,  629,  630,  631],\n         [ 632,  633,  634, ...,  637,  638,  639]],\n\n        [[ 640,  641,  642, ...,  645,  646,  647],\n         [ 648,  649,  650, ...,  653,  654,  655],\n         [ 656,  657,  658, ...,  661,  662,  663],\n         ...,\n         [ 680,  681,  682, ...,  685,  686,  687],\n         [ 688,  689,  690, ...,  693,  694,  695],\n         [ 696,  697,  698, ...,  701,  702,  703]],\n\n        ...,\n\n        [[ 832,  833,  834, ...,  837,  838,  839],\n         [ 840,  841,  842, ...,  845,  846,  847],\n         [ 848,  849,  850, ...,  853,  854,  855],\n         ...,\n         [ 872,  873,  874, ...,  877,  878,  879],\n         [ 880,  881,  882, ...,  885,  886,  887],\n         [ 888,  889,  890, ...,  893,  894,  895]],\n\n        [[ 896,  897,  898, ...,  901,  902,  903],\n         [ 904,  905,  906, ...,  909,  910,  911],\n         [ 912,  913,  914, ...,  917,  918,  919],\n         ...,\n         [ 936,  937,  938, ...,  941,  942,  943],\n         [ 944,  945,  946, ...,  949,  950,  951],\n         [ 952,  953,  954, ...,  957,  958,  959]],\n\n        [[ 960,  961,  962, ...,  965,  966,  967],\n         [ 968,  969,  970, ...,  973,  974,  975],\n         [ 976,  977,  978, ...,  981,  982,  983],\n         ...,\n         [1000, 1001, 1002, ..., 1005, 1006, 1007],\n         [1008, 1009, 1010, ..., 1013, 1014, 1015],\n         [1016, 1017, 1018, ..., 1021, 1022, 1023]]],\n\n\n       [[[1024, 1025, 1026, ..., 1029, 1030, 1031],\n         [1032, 1033, 1034, ..., 1037, 1038, 1039],\n         [1040, 1041, 1042, ..., 1045, 1046, 1047],\n         ...,\n         [1064, 1065, 1066, ..., 1069, 1070, 1071],\n         [1072, 1073, 1074, ..., 1077, 1078, 1079],\n         [1080, 1081, 1082, ..., 1085, 1086, 1087]],\n\n        [[1088, 1089, 1090, ..., 1093, 1094, 1095],\n         [1096, 1097, 1098, ..., 1101, 1102, 1103],\n         [1104, 1105, 1106, ..., 1109, 1110, 1111],\n         ...,\n         [1128, 1129, 1130, ..., 1133, 1134, 1135],\n         [1136, 1137, 1138, ..., 1141, 1142, 1143],\n         [1144, 1145, 1146, ..., 1149, 1150, 1151]],\n\n        [[1152, 1153, 1154, ..., 1157, 1158, 1159],\n         [1160, 1161, 1162, ..., 1165, 1166, 1167],\n         [1168, 1169, 1170, ..., 1173, 1174, 1175],\n         ...,\n         [1192, 1193, 1194, ..., 1197, 1198, 1199],\n         [1200, 1201, 1202, ..., 1205, 1206, 1207],\n         [1208, 1209, 1210, ..., 1213, 1214, 1215]],\n\n        ...,\n\n        [[1344, 1345, 1346, ..., 1349, 1350, 1351],\n         [1352, 1353, 1354, ..., 1357, 1358, 1359],\n         [1360, 1361, 1362, ..., 1365, 1366, 1367],\n         ...,\n         [1384, 1385, 1386, ..., 1389, 1390, 1391],\n         [1392, 1393, 1394, ..., 1397, 1398, 1399],\n         [1400, 1401, 1402, ..., 1405, 1406, 1407]],\n\n        [[1408, 1409, 1410, ..., 1413, 1414, 1415],\n         [1416, 1417, 1418, ..., 1421, 1422, 1423],\n         [1424, 1425, 1426, ..., 1429, 1430, 1431],\n         ...,\n         [1448, 1449, 1450, ..., 1453, 1454, 1455],\n         [1456, 1457, 1458, ..., 1461, 1462, 1463],\n         [1464, 1465, 1466, ..., 1469, 1470, 1471]],\n\n        [[1472, 1473, 1474, ..., 1477, 1478, 1479],\n         [1480, 1481, 1482, ..., 1485, 1486, 1487],\n         [1488, 1489, 1490, ..., 1493, 1494, 1495],\n         ...,\n         [1512, 1513, 1514, ..., 1517, 1518, 1519],\n         [1520, 1521, 1522, ..., 1525, 1526, 1527],\n         [1528, 1529, 1530, ..., 1533, 1534, 1535]]],\n\n\n       ...,\n\n\n       [[[2560, 2561, 2562, ..., 2565, 2566, 2567],\n         [2568, 2569, 2570, ..., 2573, 2574, 2575],\n         [2576, 2577, 2578, ..., 2581, 2582, 2583],\n         ...,\n         [2600, 2601, 2602, ..., 2605, 2606, 2607],\n         [2608, 2609, 2610, ..., 2613, 2614, 2615],\n         [2616, 2617, 2618, ..., 2621, 2622, 2623]],\n\n        [[2624, 2625, 2626, ..., 2629, 2630, 2631],\n         [2632, 2633, 2634, ..., 2637, 2638, 2639],\n         [2640, 2641, 2642, ..., 2645, 2646, 2647],\n         ...,\n         [2664, 2665, 2666, ..., 2669, 2670, 2671],\n         [2672, 2673, 2674, ..., 2677, 2678, 2679],\n         [2680, 2681, 2682, ..., 2685, 2686, 2687]],\n\n        [[2688, 2689, 2690, ..., 2693, 2694, 2695],\n         [2696, 2697, 2698, ..., 2701, 2702, 2703],\n         [2704, 2705, 2706, ..., 2709, 2710, 2711],\n         ...,\n         [2728, 2729, 2730, ..., 2733, 2734, 2735],\n         [2736, 2737, 2738, ..., 2741, 2742, 2743],\n         [2744, 2745, 2746, ..., 2749, 2750, 2751]],\n\n        ...,\n\n        [[2880, 2881, 2882, ..., 2885, 2886, 2887],\n         [2888, 2889, 2890, ..., 2893, 2894, 2895],\n         [2896, 2897, 2898, ..., 2901, 2902, 2903],\n         ...,\n         [2920, 2921, 2922, ..., 2925, 2926, 2927],\n         [2928, 2929, 2930, ..., 2933, 2934, 2935],\n         [2936, 2937, 2938, ..., 2941, 2942, 2943]],\n\n        [[2944, 2945, 2946, ..., 2949, 2950, 2951],\n         [2952, 2953, 2954, ..., 2957, 2958, 2959],\n         [2960, 2961, 2962, ..., 2965, 2966, 2967],\n         ...,\n         [2984, 2985, 2986, ..., 2989, 2990, 2991],\n         [2992, 2993, 2994, ..., 2997, 2998, 2999],\n         [3000, 3001, 3002, ..., 3005, 3006, 3007]],\n\n        [[3008, 3009, 3010, ..., 3013, 3014, 3015],\n         [3016, 3017, 3018, ..., 3021, 3022, 3023],\n         [3024, 3025, 3026, ..., 3029, 3030, 3031],\n         ...,\n         [3048, 3049, 3050, ..., 3053, 3054, 3055],\n         [3056, 3057, 3058, ..., 3061, 3062, 3063],\n         [3064, 3065, 3066, ..., 3069, 3070, 3071]]],\n\n\n       [[[3072, 3073, 3074, ..., 3077, 3078, 3079],\n         [3080, 3081, 3082, ..., 3085, 3086, 3087],\n         [3088, 3089, 3090, ..., 3093, 3094, 3095],\n         ...,\n         [3112, 3113, 3114, ..., 3117, 3118, 3119],\n         [3120, 3121, 3122, ..., 3125, 3126, 3127],\n         [3128, 3129, 3130, ..., 3133, 3134, 3135]],\n\n        [[3136, 3137, 3138, ..., 3141, 3142, 3143],\n         [3144, 3145, 3146, ..., 3149, 3150, 3151],\n         [3152, 3153, 3154, ..., 3157, 3158, 3159],\n         ...,\n         [3176, 3177, 3178, ..., 3181, 3182, 3183],\n         [3184, 3185, 3186, ..., 3189, 3190, 3191],\n         [3192, 3193, 3194, ..., 3197, 3198, 3199]],\n\n        [[3200, 3201, 3202, ..., 3205, 3206, 3207],\n         [3208, 3209, 3210, ..., 3213, 3214, 3215],\n         [3216, 3217, 3218, ..., 3221, 3222, 3223],\n         ...,\n         [3240, 3241, 3242, ..., 3245, 3246, 3247],\n         [3248, 3249, 3250, ..., 3253, 3254, 3255],\n         [3256, 3257, 3258, ..., 3261, 3262, 3263]],\n\n        ...,\n\n        [[3392, 3393, 3394, ..., 3397, 3398, 3399],\n         [3400, 3401, 3402, ..., 3405, 3406, 3407],\n         [3408, 3409, 3410, ..., 3413, 3414, 3415],\n         ...,\n         [3432, 3433, 3434, ..., 3437, 3438, 3439],\n         [3440, 3441, 3442, ..., 3445, 3446, 3447],\n         [3448, 3449, 3450, ..., 3453, 3454, 3455]],\n\n        [[3456, 3457, 3458, ..., 3461, 3462, 3463],\n         [3464, 3465, 3466, ..., 3469, 3470, 3471],\n         [3472, 3473, 3474, ..., 3477, 3478, 3479],\n         ...,\n         [3496, 3497, 3498, ..., 3501, 3502, 3503],\n         [3504, 3505, 3506, ..., 3509, 3510, 3511],\n         [3512, 3513, 3514, ..., 3517, 3518, 3519]],\n\n        [[3520, 3521, 3522, ..., 3525, 3526, 3527],\n         [3528, 3529, 3530, ..., 3533, 3534, 3535],\n         [3536, 3537, 3538, ..., 3541, 3542, 3543],\n         ...,\n         [3560, 3561, 3562, ..., 3565, 3566, 3567],\n         [3568, 3569, 3570, ..., 3573, 3574, 3575],\n         [3576, 3577, 3578, ..., 3581, 3582, 3583]]],\n\n\n       [[[3584, 3585, 3586, ..., 3589, 3590, 3591],\n         [3592, 3593, 3594, ..., 3597, 3598, 3599],\n         [3600, 3601, 3602, ..., 3605, 3606, 3607],\n         ...,\n         [3624, 3625, 3626, ..., 3629, 3630, 3631],\n         [3632, 3633, 3634, ..., 3637, 3638, 3639],\n         [3640, 3641, 3642, ..., 3645, 3646, 3647]],\n\n        [[3648, 3649, 3650, ..., 3653, 3654, 3655],\n         [3656, 3657, 3658, ..., 3661, 3662, 3663],\n         [3664, 3665, 3666, ..., 3669, 3670, 3671],\n         ...,\n         [3688, 3689, 3690, ..., 3693, 3694, 3695],\n         [3696, 3697, 3698, ..., 3701, 3702, 3703],\n         [3704, 3705, 3706, ..., 3709, 3710, 3711]],\n\n        [[3712, 3713, 3714, ..., 3717, 3718, 3719],\n         [3720, 3721, 3722, ..., 3725, 3726, 3727],\n         [3728, 3729, 3730, ..., 3733, 3734, 3735],\n         ...,\n         [3752, 3753, 3754, ..., 3757, 3758, 3759],\n         [3760, 3761, 3762, ..., 3765, 3766, 3767],\n         [3768, 3769, 3770, ..., 3773, 3774, 3775]],\n\n        ...,\n\n        [[3904, 3905, 3906, ..., 3909, 3910, 3911],\n         [3912, 3913, 3914, ..., 3917, 3918, 3919],\n         [3920, 3921, 3922, ..., 3925, 3926, 3927],\n         ...,\n         [3944, 3945, 3946, ..., 3949, 3950, 3951],\n         [3952, 3953, 3954, ..., 3957, 3958, 3959],\n         [3960, 3961, 3962, ..., 3965, 3966, 3967]],\n\n        [[3968, 3969, 3970, ..., 3973, 3974, 3975],\n         [3976, 3977, 3978, ..., 3981, 3982, 3983],\n         [3984, 3985, 3986, ..., 3989, 3990, 3991],\n         ...,\n         [4008, 4009, 4010, ..., 4013, 4014, 4015],\n         [4016, 4017, 4018, ..., 4021, 4022, 4023],\n         [4024, 4025, 4026, ..., 4029, 4030, 4031]],\n\n        [[4032, 4033, 4034, ..., 4037, 4038, 4039],\n         [4040, 4041, 4042, ..., 4045, 4046, 4047],\n         [4048, 4049, 4050, ..., 4053, 4054, 4055],\n         ...,\n         [4072, 4073, 4074, ..., 4077, 4078, 4079],\n         [4080, 4081, 4082, ..., 4085, 4086, 4087],\n         [4088, 4089, 4090, ..., 4093, 4094, 4095]]]], shape=(8, 8, 8, 8))",
            "[[[[   0    1    2 ...    5    6    7]\n   [   8    9   10 ...   13   14   15]\n   [  16   17   18 ...   21   22   23]\n   ...\n   [  40   41   42 ...   45   46   47]\n   [  48   49   50 ...   53   54   55]\n   [  56   57   58 ...   61   62   63]]\n\n  [[  64   65   66 ...   69   70   71]\n   [  72   73   74 ...   77   78   79]\n   [  80   81   82 ...   85   86   87]\n   ...\n   [ 104  105  106 ...  109  110  111]\n   [ 112  113  114 ...  117  118  119]\n   [ 120  121  122 ...  125  126  127]]\n\n  [[ 128  129  130 ...  133  134  135]\n   [ 136  137  138 ...  141  142  143]\n   [ 144  145  146 ...  149  150  151]\n   ...\n   [ 168  169  170 ...  173  174  175]\n   [ 176  177  178 ...  181  182  183]\n   [ 184  185  186 ...  189  190  191]]\n\n  ...\n\n  [[ 320  321  322 ...  325  326  327]\n   [ 328  329  330 ...  333  334  335]\n   [ 336  337  338 ...  341  342  343]\n   ...\n   [ 360  361  362 ...  365  366  367]\n   [ 368  369  370 ...  373  374  375]\n   [ 376  377  378 ...  381  382  383]]\n\n  [[ 384  385  386 ...  389  390  391]\n   [ 392  393  394 ...  397  398  399]\n   [ 400  401  402 ...  405  406  407]\n   ...\n   [ 424  425  426 ...  429  430  431]\n   [ 432  433  434 ...  437  438  439]\n   [ 440  441  442 ...  445  446  447]]\n\n  [[ 448  449  450 ...  453  454  455]\n   [ 456  457  458 ...  461  462  463]\n   [ 464  465  466 ...  469  470  471]\n   ...\n   [ 488  489  490 ...  493  494  495]\n   [ 496  497  498 ...  501  502  503]\n   [ 504  505  506 ...  509  510  511]]]\n\n\n [[[ 512  513  514 ...  517  518  519]\n   [ 520  521  522 ...  525  526  527]\n   [ 528  529  530 ...  533  534  535]\n   ...\n   [ 552  553  554 ...  557  558  559]\n   [ 560  561  562 ...  565  566  567]\n   [ 568  569  570 ...  573  574  575]]\n\n  [[ 576  577  578 ...  581  582  583]\n   [ 584  585  586 ...  589  590  591]\n   [ 592  593  594 ...  597  598  599]\n   ...\n   [ 616  617  618 ...  621  622  623]\n   [ 624  625  626 ...  629  630  631]\n   [ 632  633  634 ...  637  638  639]]\n\n  [[ 640  641  642 ...  645  646  647]\n   [ 648  649  650 ...  653  654  655]\n   [ 656  657  658 ...  661  662  663]\n   ...\n   [ 680  681  682 ...  685  686  687]\n   [ 688  689  690 ...  693  694  695]\n   [ 696  697  698 ...  701  702  703]]\n\n  ...\n\n  [[ 832  833  834 ...  837  838  839]\n   [ 840  841  842 ...  845  846  847]\n   [ 848  849  850 ...  853  854  855]\n   ...\n   [ 872  873  874 ...  877  878  879]\n   [ 880  881  882 ...  885  886  887]\n   [ 888  889  890 ...  893  894  895]]\n\n  [[ 896  897  898 ...  901  902  903]\n   [ 904  905  906 ...  909  910  911]\n   [ 912  913  914 ...  917  918  919]\n   ...\n   [ 936  937  938 ...  941  942  943]\n   [ 944  945  946 ...  949  950  951]\n   [ 952  953  954 ...  957  958  959]]\n\n  [[ 960  961  962 ...  965  966  967]\n   [ 968  969  970 ...  973  974  975]\n   [ 976  977  978 ...  981  982  983]\n   ...\n   [1000 1001 1002 ... 1005 1006 1007]\n   [1008 1009 1010 ... 1013 1014 1015]\n   [1016 1017 1018 ... 1021 1022 1023]]]\n\n\n [[[1024 1025 1026 ... 1029 1030 1031]\n   [1032 1033 1034 ... 1037 1038 1039]\n   [1040 1041 1042 ... 1045 1046 1047]\n   ...\n   [1064 1065 1066 ... 1069 1070 1071]\n   [1072 1073 1074 ... 1077 1078 1079]\n   [1080 1081 1082 ... 1085 1086 1087]]\n\n  [[1088 1089 1090 ... 1093 1094 1095]\n   [1096 1097 1098 ... 1101 1102 1103]\n   [1104 1105 1106 ... 1109 1110 1111]\n   ...\n   [1128 1129 1130 ... 1133 1134 1135]\n   [1136 1137 1138 ... 1141 1142 1143]\n   [1144 1145 1146 ... 1149 1150 1151]]\n\n  [[1152 1153 1154 ... 1157 1158 1159]\n   [1160 1161 1162 ... 1165 1166 1167]\n   [1168 1169 1170 ... 1173 1174 1175]\n   ...\n   [1192 1193 1194 ... 1197 1198 1199]\n   [1200 1201 1202 ... 1205 1206 1207]\n   [1208 1209 1210 ... 1213 1214 1215]]\n\n  ...\n\n  [[1344 1345 1346 ... 1349 1350 1351]\n   [1352 1353 1354 ... 1357 1358 1359]\n   [1360 1361 1362 ... 1365 1366 1367]\n   ...\n   [1384 1385 1386 ... 1389 1390 1391]\n   [1392 1393 1394 ... 1397 1398 1399]\n   [1400 1401 1402 ... 1405 1406 1407]]\n\n  [[1408 1409 1410 ... 1413 1414 1415]\n   [1416 1417 1418 ... 1421 1422 1423]\n   [1424 1425 1426 ... 1429 1430 1431]\n   ...\n   [1448 1449 1450 ... 1453 1454 1455]\n   [1456 1457 1458 ... 1461 1462 1463]\n   [1464 1465 1466 ... 1469 1470 1471]]\n\n  [[1472 1473 1474 ... 1477 1478 1479]\n   [1480 1481 1482 ... 1485 1486 1487]\n   [1488 1489 1490 ... 1493 1494 1495]\n   ...\n   [1512 1513 1514 ... 1517 1518 1519]\n   [1520 1521 1522 ... 1525 1526 1527]\n   [1528 1529 1530 ... 1533 1534 1535]]]\n\n\n ...\n\n\n [[[2560 2561 2562 ... 2565 2566 2567]\n   [2568 2569 2570 ... 2573 2574 2575]\n   [2576 2577 2578 ... 2581 2582 2583]\n   ...\n   [2600 2601 2602 ... 2605 2606 2607]\n   [2608 2609 2610 ... 2613 2614 2615]\n   [2616 2617 2618 ... 2621 2622 2623]]\n\n  [[2624 2625 2626 ... 2629 2630 2631]\n   [2632 2633 2634 ... 2637 2638 2639]\n   [2640 2641 2642 ... 2645 2646 2647]\n   ...\n   [2664 2665 2666 ... 2669 2670 2671]\n   [2672 2673 2674 ... 2677 2678 2679]\n   [2680 2681 2682 ... 2685 2686 2687]]\n\n  [[2688 2689 2690 ... 2693 2694 2695]\n   [2696 2697 2698 ... 2701 2702 2703]\n   [2704 2705 2706 ... 2709 2710 2711]\n   ...\n   [2728 2729 2730 ... 2733 2734 2735]\n   [2736 2737 2738 ... 2741 2742 2743]\n   [2744 2745 2746 ... 2749 2750 2751]]\n\n  ...\n\n  [[2880 2881 2882 ... 2885 2886 2887]\n   [2888 2889 2890 ... 2893 2894 2895]\n   [2896 2897 2898 ... 2901 2902 2903]\n   ...\n   [2920 2921 2922 ... 2925 2926 2927]\n   [2928 2929 2930 ... 2933 2934 2935]\n   [2936 2937 2938 ... 2941 2942 2943]]\n\n  [[2944 2945 2946 ... 2949 2950 2951]\n   [2952 2953 2954 ... 2957 2958 2959]\n   [2960 2961 2962 ... 2965 2966 2967]\n   ...\n   [2984 2985 2986 ... 2989 2990 2991]\n   [2992 2993 2994 ... 2997 2998 2999]\n   [3000 3001 3002 ... 3005 3006 3007]]\n\n  [[3008 3009 3010 ... 3013 3014 3015]\n   [3016 3017 3018 ... 3021 3022 3023]\n   [3024 3025 3026 ... 3029 3030 3031]\n   ...\n   [3048 3049 3050 ... 3053 3054 3055]\n   [3056 3057 3058 ... 3061 3062 3063]\n   [3064 3065 3066 ... 3069 3070 3071]]]\n\n\n [[[3072 3073 3074 ... 3077 3078 3079]\n   [3080 3081 3082 ... 3085 3086 3087]\n   [3088 3089 3090 ... 3093 3094 3095]\n   ...\n   [3112 3113 3114 ... 3117 3118 3119]\n   [3120 3121 3122 ... 3125 3126 3127]\n   [3128 3129 3130 ... 3133 3134 3135]]\n\n  [[3136 3137 3138 ... 3141 3142 3143]\n   [3144 3145 3146 ... 3149 3150 3151]\n   [3152 3153 3154 ... 3157 3158 3159]\n   ...\n   [3176 3177 3178 ... 3181 3182 3183]\n   [3184 3185 3186 ... 3189 3190 3191]\n   [3192 3193 3194 ... 3197 3198 3199]]\n\n  [[3200 3201 3202 ... 3205 3206 3207]\n   [3208 3209 3210 ... 3213 3214 3215]\n   [3216 3217 3218 ... 3221 3222 3223]\n   ...\n   [3240 3241 3242 ... 3245 3246 3247]\n   [3248 3249 3250 ... 3253 3254 3255]\n   [3256 3257 3258 ... 3261 3262 3263]]\n\n  ...\n\n  [[3392 3393 3394 ... 3397 3398 3399]\n   [3400 3401 3402 ... 3405 3406 3407]\n   [3408 3409 3410 ... 3413 3414 3415]\n   ...\n   [3432 3433 3434 ... 3437 3438 3439]\n   [3440 3441 3442 ... 3445 3446 3447]\n   [3448 3449 3450 ... 3453 3454 3455]]\n\n  [[3456 3457 3458 ... 3461 3462 3463]\n   [3464 3465 3466 ... 3469 3470 3471]\n   [3472 3473 3474 ... 3477 3478 3479]\n   ...\n   [3496 3497 3498 ... 3501 3502 3503]\n   [3504 3505 3506 ... 3509 3510 3511]\n   [3512 3513 3514 ... 3517 3518 3519]]\n\n  [[3520 3521 3522 ... 3525 3526 3527]\n   [3528 3529 3530 ... 3533 3534 3535]\n   [3536 3537 3538 ... 3541 3542 3543]\n   ...\n   [3560 3561 3562 ... 3565 3566 3567]\n   [3568 3569 3570 ... 3573 3574 3575]\n   [3576 3577 3578 ... 3581 3582 3583]]]\n\n\n [[[3584 3585 3586 ... 3589 3590 3591]\n   [3592 3593 3594 ... 3597 3598 3599]\n   [3600 3601 3602 ... 3605 3606 3607]\n   ...\n   [3624 3625 3626 ... 3629 3630 3631]\n   [3632 3633 3634 ... 3637 3638 3639]\n   [3640 3641 3642 ... 3645 3646 3647]]\n\n  [[3648 3649 3650 ... 3653 3654 3655]\n   [3656 3657 3658 ... 3661 3662 3663]\n   [3664 3665 3666 ... 3669 3670 3671]\n   ...\n   [3688 3689 3690 ... 3693 3694 3695]\n   [3696 3697 3698 ... 3701 3702 3703]\n   [3704 3705 3706 ... 3709 3710 3711]]\n\n  [[3712 3713 3714 ... 3717 3718 3719]\n   [3720 3721 3722 ... 3725 3726 3727]\n   [3728 3729 3730 ... 3733 3734 3735]\n   ...\n   [3752 3753 3754 ... 3757 3758 3759]\n   [3760 3761 3762 ... 3765 3766 3767]\n   [3768 3769 3770 ... 3773 3774 3775]]\n\n  ...\n\n  [[3904 3905 3906 ... 3909 3910 3911]\n   [3912 3913 3914 ... 3917 3918 3919]\n   [3920 3921 3922 ... 3925 3926 3927]\n   ...\n   [3944 3945 3946 ... 3949 3950 3951]\n   [3952 3953 3954 ... 3957 3958 3959]\n   [3960 3961 3962 ... 3965 3966 3967]]\n\n  [[3968 3969 3970 ... 3973 3974 3975]\n   [3976 3977 3978 ... 3981 3982 3983]\n   [3984 3985 3986 ... 3989 3990 3991]\n   ...\n   [4008 4009 4010 ... 4013 4014 4015]\n   [4016 4017 4018 ... 4021 4022 4023]\n   [4024 4025 4026 ... 4029 4030 4031]]\n\n  [[4032 4033 4034 ... 4037 4038 4039]\n   [4040 4041 4042 ... 4045 4046 4047]\n   [4048 4049 4050 ... 4053 4054 4055]\n   ...\n   [4072 4073 4074 ... 4077 4078 4079]\n   [4080 4081 4082 ... 4085 4086 4087]\n   [4088 4089 4090 ... 4093 4094 4095]]]]",
        );
    }

    #[test]
    fn sum_uncut() {
        check(
            DType::Int64,
            &[6, 6, 6, 6],
            HostValues::I64((0..1296).collect()),
            "array([[[[   0,    1,    2,    3,    4,    5],\n         [   6,    7,    8,    9,   10,   11],\n         [  12,   13,   14,   15,   16,   17],\n         [  18,   19,   20,   21,   22,   23],\n         [  24,   25,   26,   27,   28,   29],\n         [  30,   31,   32,   33,   34,   35]],\n\n        [[  36,   37,   38,   39,   40,   41],\n         [  42,   43,   44,   45,   46,   47],\n         [  48,   49,   50,   51,   52,   53],\n         [  54,   55,   56,   57,   58,   59],\n         [  60,   61,   62,   63,   64,   65],\n         [  66,   67,   68,   69,   70,   71]],\n\n        [[  72,   73,   74,   75,   76,   77],\n         [  78,   79,   80,   81,   82,   83],\n         [  84,   85,   86,   87,   88,   89],\n         [  90,   91,   92,   93,   94,   95],\n         [  96,   97,   98,   99,  100,  101],\n         [ 102,  103,  104,  105,  106,  107]],\n\n        [[ 108,  109,  110,  111,  112,  113],\n         [ 114,  115,  116,  117,  118,  119],\n         [ 120,  121,  122,  123,  124,  125],\n         [ 126,  127,  128,  129,  130,  131],\n         [ 132,  133,  134,  135,  136,  137],\n         [ 138,  139,  140,  141,  142,  143]],\n\n        [[ 144,  145,  146,  147,  148,  149],\n         [ 150,  151,  152,  153,  154,  155],\n         [ 156,  157,  158,  159,  160,  161],\n         [ 162,  163,  164,  165,  166,  167],\n         [ 168,  169,  170,  171,  172,  173],\n         [ 174,  175,  176,  177,  178,  179]],\n\n        [[ 180,  181,  182,  183,  184,  185],\n         [ 186,  187,  188,  189,  190,  191],\n         [ 192,  193,  194,  195,  196,  197],\n         [ 198,  199,  200,  201,  202,  203],\n         [ 204,  205,  206,  207,  208,  209],\n         [ 210,  211,  212,  213,  214,  215]]],\n\n\n       [[[ 216,  217,  218,  219,  220,  221],\n         [ 222,  223,  224,  225,  226,  227],\n         [ 228,  229,  230,  231,  232,  233],\n         [ 234,  235,  236,  237,  238,  239],\n         [ 240,  241,  242,  243,  244,  245],\n         [ 246,  247,  248,  249,  250,  251]],\n\n        [[ 252,  253,  254,  255,  256,  257],\n         [ 258,  259,  260,  261,  262,  263],\n         [ 264,  265,  266,  267,  268,  269],\n         [ 270,  271,  272,  273,  274,  275],\n         [ 276,  277,  278,  279,  280,  281],\n         [ 282,  283,  284,  285,  286,  287]],\n\n        [[ 288,  289,  290,  291,  292,  293],\n         [ 294,  295,  296,  297,  298,  299],\n         [ 300,  301,  302,  303,  304,  305],\n         [ 306,  307,  308,  309,  310,  311],\n         [ 312,  313,  314,  315,  316,  317],\n         [ 318,  319,  320,  321,  322,  323]],\n\n        [[ 324,  325,  326,  327,  328,  329],\n         [ 330,  331,  332,  333,  334,  335],\n         [ 336,  337,  338,  339,  340,  341],\n         [ 342,  343,  344,  345,  346,  347],\n         [ 348,  349,  350,  351,  352,  353],\n         [ 354,  355,  356,  357,  358,  359]],\n\n        [[ 360,  361,  362,  363,  364,  365],\n         [ 366,  367,  368,  369,  370,  371],\n         [ 372,  373,  374,  375,  376,  377],\n         [ 378,  379,  380,  381,  382,  383],\n         [ 384,  385,  386,  387,  388,  389],\n         [ 390,  391,  392,  393,  394,  395]],\n\n        [[ 396,  397,  398,  399,  400,  401],\n         [ 402,  403,  404,  405,  406,  407],\n         [ 408,  409,  410,  411,  412,  413],\n         [ 414,  415,  416,  417,  418,  419],\n         [ 420,  421,  422,  423,  424,  425],\n         [ 426,  427,  428,  429,  430,  431]]],\n\n\n       [[[ 432,  433,  434,  435,  436,  437],\n         [ 438,  439,  440,  441,  442,  443],\n         [ 444,  445,  446,  447,  448,  449],\n         [ 450,  451,  452,  453,  454,  455],\n         [ 456,  457,  458,  459,  460,  461],\n         [ 462,  463,  464,  465,  466,  467]],\n\n        [[ 468,  469,  470,  471,  472,  473],\n         [ 474,  475,  476,  477,  478,  479],\n         [ 480,  481,  482,  483,  484,  485],\n         [ 486,  487,  488,  489,  490,  491],\n         [ 492,  493,  494,  495,  496,  497],\n         [ 498,  499,  500,  501,  502,  503]],\n\n        [[ 504,  505,  506,  507,  508,  509],\n         [ 510,  511,  512,  513,  514,  515],\n         [ 516,  517,  518,  519,  520,  521],\n         [ 522,  523,  524,  525,  526,  527],\n         [ 528,  529,  530,  531,  532,  533],\n         [ 534,  535,  536,  537,  538,  539]],\n\n        [[ 540,  541,  542,  543,  544,  545],\n         [ 546,  547,  548,  549,  550,  551],\n         [ 552,  553,  554,  555,  556,  557],\n         [ 558,  559,  560,  561,  562,  563],\n         [ 564,  565,  566,  567,  568,  569],\n         [ 570,  571,  572,  573,  574,  575]],\n\n        [[ 576,  577,  578,  579,  580,  581],\n         [ 582,  583,  584,  585,  586,  587],\n         [ 588,  589,  590,  591,  592,  593],\n         [ 594,  595,  596,  597,  598,  599],\n         [ 600,  601,  602,  603,  604,  605],\n         [ 606,  607,  608,  609,  610,  611]],\n\n        [[ 612,  613,  614,  615,  616,  617],\n         [ 618,  619,  620,  621,  622,  623],\n         [ 624,  625,  626,  627,  628,  629],\n         [ 630,  631,  632,  633,  634,  635],\n         [ 636,  637,  638,  639,  640,  641],\n         [ 642,  643,  644,  645,  646,  647]]],\n\n\n       [[[ 648,  649,  650,  651,  652,  653],\n         [ 654,  655,  656,  657,  658,  659],\n         [ 660,  661,  662,  663,  664,  665],\n         [ 666,  667,  668,  669,  670,  671],\n         [ 672,  673,  674,  675,  676,  677],\n         [ 678,  679,  680,  681,  682,  683]],\n\n        [[ 684,  685,  686,  687,  688,  689],\n         [ 690,  691,  692,  693,  694,  695],\n         [ 696,  697,  698,  699,  700,  701],\n         [ 702,  703,  704,  705,  706,  707],\n         [ 708,  709,  710,  711,  712,  713],\n         [ 714,  715,  716,  717,  718,  719]],\n\n        [[ 720,  721,  722,  723,  724,  725],\n         [ 726,  727,  728,  729,  730,  731],\n         [ 732,  733,  734,  735,  736,  737],\n         [ 738,  739,  740,  741,  742,  743],\n         [ 744,  745,  746,  747,  748,  749],\n         [ 750,  751,  752,  753,  754,  755]],\n\n        [[ 756,  757,  758,  759,  760,  761],\n         [ 762,  763,  764,  765,  766,  767],\n         [ 768,  769,  770,  771,  772,  773],\n         [ 774,  775,  776,  777,  778,  779],\n         [ 780,  781,  782,  783,  784,  785],\n         [ 786,  787,  788,  789,  790,  791]],\n\n        [[ 792,  793,  794,  795,  796,  797],\n         [ 798,  799,  800,  801,  802,  803],\n         [ 804,  805,  806,  807,  808,  809],\n         [ 810,  811,  812,  813,  814,  815],\n         [ 816,  817,  818,  819,  820,  821],\n         [ 822,  823,  824,  825,  826,  827]],\n\n        [[ 828,  829,  830,  831,  832,  833],\n         [ 834,  835,  836,  837,  838,  839],\n         [ 840,  841,  842,  843,  844,  845],\n         [ 846,  847,  848,  849,  850,  851],\n         [ 852,  853,  854,  855,  856,  857],\n         [ 858,  859,  860,  861,  862,  863]]],\n\n\n       [[[ 864,  865,  866,  867,  868,  869],\n         [ 870,  871,  872,  873,  874,  875],\n         [ 876,  877,  878,  879,  880,  881],\n         [ 882,  883,  884,  885,  886,  887],\n         [ 888,  889,  890,  891,  892,  893],\n         [ 894,  895,  896,  897,  898,  899]],\n\n        [[ 900,  901,  902,  903,  904,  905],\n         [ 906,  907,  908,  909,  910,  911],\n         [ 912,  913,  914,  915,  916,  917],\n         [ 918,  919,  920,  921,  922,  923],\n         [ 924,  925,  926,  927,  928,  929],\n         [ 930,  931,  932,  933,  934,  935]],\n\n        [[ 936,  937,  938,  939,  940,  941],\n         [ 942,  943,  944,  945,  946,  947],\n         [ 948,  949,  950,  951,  952,  953],\n         [ 954,  955,  956,  957,  958,  959],\n         [ 960,  961,  962,  963,  964,  965],\n         [ 966,  967,  968,  969,  970,  971]],\n\n        [[ 972,  973,  974,  975,  976,  977],\n         [ 978,  979,  980,  981,  982,  983],\n         [ 984,  985,  986,  987,  988,  989],\n         [ 990,  991,  992,  993,  994,  995],\n         [ 996,  997,  998,  999, 1000, 1001],\n         [1002, 1003, 1004, 1005, 1006, 1007]],\n\n        [[1008, 1009, 1010, 1011, 1012, 1013],\n         [1014, 1015, 1016, 1017, 1018, 1019],\n         [1020, 1021, 1022, 1023, 1024, 1025],\n         [1026, 1027, 1028, 1029, 1030, 1031],\n         [1032, 1033, 1034, 1035, 1036, 1037],\n         [1038, 1039, 1040, 1041, 1042, 1043]],\n\n        [[1044, 1045, 1046, 1047, 1048, 1049],\n         [1050, 1051, 1052, 1053, 1054, 1055],\n         [1056, 1057, 1058, 1059, 1060, 1061],\n         [1062, 1063, 1064, 1065, 1066, 1067],\n         [1068, 1069, 1070, 1071, 1072, 1073],\n         [1074, 1075, 1076, 1077, 1078, 1079]]],\n\n\n       [[[1080, 1081, 1082, 1083, 1084, 1085],\n         [1086, 1087, 1088, 1089, 1090, 1091],\n         [1092, 1093, 1094, 1095, 1096, 1097],\n         [1098, 1099, 1100, 1101, 1102, 1103],\n         [1104, 1105, 1106, 1107, 1108, 1109],\n         [1110, 1111, 1112, 1113, 1114, 1115]],\n\n        [[1116, 1117, 1118, 1119, 1120, 1121],\n         [1122, 1123, 1124, 1125, 1126, 1127],\n         [1128, 1129, 1130, 1131, 1132, 1133],\n         [1134, 1135, 1136, 1137, 1138, 1139],\n         [1140, 1141, 1142, 1143, 1144, 1145],\n         [1146, 1147, 1148, 1149, 1150, 1151]],\n\n        [[1152, 1153, 1154, 1155, 1156, 1157],\n         [1158, 1159, 1160, 1161, 1162, 1163],\n         [1164, 1165, 1166, 1167, 1168, 1169],\n         [1170, 1171, 1172, 1173, 1174, 1175],\n         [1176, 1177, 1178, 1179, 1180, 1181],\n         [1182, 1183, 1184, 1185, 1186, 1187]],\n\n        [[1188, 1189, 1190, 1191, 1192, 1193],\n         [1194, 1195, 1196, 1197, 1198, 1199],\n         [1200, 1201, 1202, 1203, 1204, 1205],\n         [1206, 1207, 1208, 1209, 1210, 1211],\n         [1212, 1213, 1214, 1215, 1216, 1217],\n         [1218, 1219, 1220, 1221, 1222, 1223]],\n\n        [[1224, 1225, 1226, 1227, 1228, 1229],\n         [1230, 1231, 1232, 1233, 1234, 1235],\n         [1236, 1237, 1238, 1239, 1240, 1241],\n         [1242, 1243, 1244, 1245, 1246, 1247],\n         [1248, 1249, 1250, 1251, 1252, 1253],\n         [1254, 1255, 1256, 1257, 1258, 1259]],\n\n        [[1260, 1261, 1262, 1263, 1264, 1265],\n         [1266, 1267, 1268, 1269, 1270, 1271],\n         [1272, 1273, 1274, 1275, 1276, 1277],\n         [1278, 1279, 1280, 1281, 1282, 1283],\n         [1284, 1285, 1286, 1287, 1288, 1289],\n         [1290, 1291, 1292, 1293, 1294, 1295]]]], shape=(6, 6, 6, 6))",
            "[[[[   0    1    2    3    4    5]\n   [   6    7    8    9   10   11]\n   [  12   13   14   15   16   17]\n   [  18   19   20   21   22   23]\n   [  24   25   26   27   28   29]\n   [  30   31   32   33   34   35]]\n\n  [[  36   37   38   39   40   41]\n   [  42   43   44   45   46   47]\n   [  48   49   50   51   52   53]\n   [  54   55   56   57   58   59]\n   [  60   61   62   63   64   65]\n   [  66   67   68   69   70   71]]\n\n  [[  72   73   74   75   76   77]\n   [  78   79   80   81   82   83]\n   [  84   85   86   87   88   89]\n   [  90   91   92   93   94   95]\n   [  96   97   98   99  100  101]\n   [ 102  103  104  105  106  107]]\n\n  [[ 108  109  110  111  112  113]\n   [ 114  115  116  117  118  119]\n   [ 120  121  122  123  124  125]\n   [ 126  127  128  129  130  131]\n   [ 132  133  134  135  136  137]\n   [ 138  139  140  141  142  143]]\n\n  [[ 144  145  146  147  148  149]\n   [ 150  151  152  153  154  155]\n   [ 156  157  158  159  160  161]\n   [ 162  163  164  165  166  167]\n   [ 168  169  170  171  172  173]\n   [ 174  175  176  177  178  179]]\n\n  [[ 180  181  182  183  184  185]\n   [ 186  187  188  189  190  191]\n   [ 192  193  194  195  196  197]\n   [ 198  199  200  201  202  203]\n   [ 204  205  206  207  208  209]\n   [ 210  211  212  213  214  215]]]\n\n\n [[[ 216  217  218  219  220  221]\n   [ 222  223  224  225  226  227]\n   [ 228  229  230  231  232  233]\n   [ 234  235  236  237  238  239]\n   [ 240  241  242  243  244  245]\n   [ 246  247  248  249  250  251]]\n\n  [[ 252  253  254  255  256  257]\n   [ 258  259  260  261  262  263]\n   [ 264  265  266  267  268  269]\n   [ 270  271  272  273  274  275]\n   [ 276  277  278  279  280  281]\n   [ 282  283  284  285  286  287]]\n\n  [[ 288  289  290  291  292  293]\n   [ 294  295  296  297  298  299]\n   [ 300  301  302  303  304  305]\n   [ 306  307  308  309  310  311]\n   [ 312  313  314  315  316  317]\n   [ 318  319  320  321  322  323]]\n\n  [[ 324  325  326  327  328  329]\n   [ 330  331  332  333  334  335]\n   [ 336  337  338  339  340  341]\n   [ 342  343  344  345  346  347]\n   [ 348  349  350  351  352  353]\n   [ 354  355  356  357  358  359]]\n\n  [[ 360  361  362  363  364  365]\n   [ 366  367  368  369  370  371]\n   [ 372  373  374  375  376  377]\n   [ 378  379  380  381  382  383]\n   [ 384  385  386  387  388  389]\n   [ 390  391  392  393  394  395]]\n\n  [[ 396  397  398  399  400  401]\n   [ 402  403  404  405  406  407]\n   [ 408  409  410  411  412  413]\n   [ 414  415  416  417  418  419]\n   [ 420  421  422  423  424  425]\n   [ 426  427  428  429  430  431]]]\n\n\n [[[ 432  433  434  435  436  437]\n   [ 438  439  440  441  442  443]\n   [ 444  445  446  447  448  449]\n   [ 450  451  452  453  454  455]\n   [ 456  457  458  459  460  461]\n   [ 462  463  464  465  466  467]]\n\n  [[ 468  469  470  471  472  473]\n   [ 474  475  476  477  478  479]\n   [ 480  481  482  483  484  485]\n   [ 486  487  488  489  490  491]\n   [ 492  493  494  495  496  497]\n   [ 498  499  500  501  502  503]]\n\n  [[ 504  505  506  507  508  509]\n   [ 510  511  512  513  514  515]\n   [ 516  517  518  519  520  521]\n   [ 522  523  524  525  526  527]\n   [ 528  529  530  531  532  533]\n   [ 534  535  536  537  538  539]]\n\n  [[ 540  541  542  543  544  545]\n   [ 546  547  548  549  550  551]\n   [ 552  553  554  555  556  557]\n   [ 558  559  560  561  562  563]\n   [ 564  565  566  567  568  569]\n   [ 570  571  572  573  574  575]]\n\n  [[ 576  577  578  579  580  581]\n   [ 582  583  584  585  586  587]\n   [ 588  589  590  591  592  593]\n   [ 594  595  596  597  598  599]\n   [ 600  601  602  603  604  605]\n   [ 606  607  608  609  610  611]]\n\n  [[ 612  613  614  615  616  617]\n   [ 618  619  620  621  622  623]\n   [ 624  625  626  627  628  629]\n   [ 630  631  632  633  634  635]\n   [ 636  637  638  639  640  641]\n   [ 642  643  644  645  646  647]]]\n\n\n [[[ 648  649  650  651  652  653]\n   [ 654  655  656  657  658  659]\n   [ 660  661  662  663  664  665]\n   [ 666  667  668  669  670  671]\n   [ 672  673  674  675  676  677]\n   [ 678  679  680  681  682  683]]\n\n  [[ 684  685  686  687  688  689]\n   [ 690  691  692  693  694  695]\n   [ 696  697  698  699  700  701]\n   [ 702  703  704  705  706  707]\n   [ 708  709  710  711  712  713]\n   [ 714  715  716  717  718  719]]\n\n  [[ 720  721  722  723  724  725]\n   [ 726  727  728  729  730  731]\n   [ 732  733  734  735  736  737]\n   [ 738  739  740  741  742  743]\n   [ 744  745  746  747  748  749]\n   [ 750  751  752  753  754  755]]\n\n  [[ 756  757  758  759  760  761]\n   [ 762  763  764  765  766  767]\n   [ 768  769  770  771  772  773]\n   [ 774  775  776  777  778  779]\n   [ 780  781  782  783  784  785]\n   [ 786  787  788  789  790  791]]\n\n  [[ 792  793  794  795  796  797]\n   [ 798  799  800  801  802  803]\n   [ 804  805  806  807  808  809]\n   [ 810  811  812  813  814  815]\n   [ 816  817  818  819  820  821]\n   [ 822  823  824  825  826  827]]\n\n  [[ 828  829  830  831  832  833]\n   [ 834  835  836  837  838  839]\n   [ 840  841  842  843  844  845]\n   [ 846  847  848  849  850  851]\n   [ 852  853  854  855  856  857]\n   [ 858  859  860  861  862  863]]]\n\n\n [[[ 864  865  866  867  868  869]\n   [ 870  871  872  873  874  875]\n   [ 876  877  878  879  880  881]\n   [ 882  883  884  885  886  887]\n   [ 888  889  890  891  892  893]\n   [ 894  895  896  897  898  899]]\n\n  [[ 900  901  902  903  904  905]\n   [ 906  907  908  909  910  911]\n   [ 912  913  914  915  916  917]\n   [ 918  919  920  921  922  923]\n   [ 924  925  926  927  928  929]\n   [ 930  931  932  933  934  935]]\n\n  [[ 936  937  938  939  940  941]\n   [ 942  943  944  945  946  947]\n   [ 948  949  950  951  952  953]\n   [ 954  955  956  957  958  959]\n   [ 960  961  962  963  964  965]\n   [ 966  967  968  969  970  971]]\n\n  [[ 972  973  974  975  976  977]\n   [ 978  979  980  981  982  983]\n   [ 984  985  986  987  988  989]\n   [ 990  991  992  993  994  995]\n   [ 996  997  998  999 1000 1001]\n   [1002 1003 1004 1005 1006 1007]]\n\n  [[1008 1009 1010 1011 1012 1013]\n   [1014 1015 1016 1017 1018 1019]\n   [1020 1021 1022 1023 1024 1025]\n   [1026 1027 1028 1029 1030 1031]\n   [1032 1033 1034 1035 1036 1037]\n   [1038 1039 1040 1041 1042 1043]]\n\n  [[1044 1045 1046 1047 1048 1049]\n   [1050 1051 1052 1053 1054 1055]\n   [1056 1057 1058 1059 1060 1061]\n   [1062 1063 1064 1065 1066 1067]\n   [1068 1069 1070 1071 1072 1073]\n   [1074 1075 1076 1077 1078 1079]]]\n\n\n [[[1080 1081 1082 1083 1084 1085]\n   [1086 1087 1088 1089 1090 1091]\n   [1092 1093 1094 1095 1096 1097]\n   [1098 1099 1100 1101 1102 1103]\n   [1104 1105 1106 1107 1108 1109]\n   [1110 1111 1112 1113 1114 1115]]\n\n  [[1116 1117 1118 1119 1120 1121]\n   [1122 1123 1124 1125 1126 1127]\n   [1128 1129 1130 1131 1132 1133]\n   [1134 1135 1136 1137 1138 1139]\n   [1140 1141 1142 1143 1144 1145]\n   [1146 1147 1148 1149 1150 1151]]\n\n  [[1152 1153 1154 1155 1156 1157]\n   [1158 1159 1160 1161 1162 1163]\n   [1164 1165 1166 1167 1168 1169]\n   [1170 1171 1172 1173 1174 1175]\n   [1176 1177 1178 1179 1180 1181]\n   [1182 1183 1184 1185 1186 1187]]\n\n  [[1188 1189 1190 1191 1192 1193]\n   [1194 1195 1196 1197 1198 1199]\n   [1200 1201 1202 1203 1204 1205]\n   [1206 1207 1208 1209 1210 1211]\n   [1212 1213 1214 1215 1216 1217]\n   [1218 1219 1220 1221 1222 1223]]\n\n  [[1224 1225 1226 1227 1228 1229]\n   [1230 1231 1232 1233 1234 1235]\n   [1236 1237 1238 1239 1240 1241]\n   [1242 1243 1244 1245 1246 1247]\n   [1248 1249 1250 1251 1252 1253]\n   [1254 1255 1256 1257 1258 1259]]\n\n  [[1260 1261 1262 1263 1264 1265]\n   [1266 1267 1268 1269 1270 1271]\n   [1272 1273 1274 1275 1276 1277]\n   [1278 1279 1280 1281 1282 1283]\n   [1284 1285 1286 1287 1288 1289]\n   [1290 1291 1292 1293 1294 1295]]]]",
        );
    }

    #[test]
    fn sum_bool() {
        check(
            DType::Bool,
            &[1500],
            HostValues::Bool((0..1500).map(|i| i % 3 == 0).collect()),
            "array([ True, False, False, ...,  True, False, False], shape=(1500,))",
            "[ True False False ...  True False False]",
        );
    }

    #[test]
    fn extras_newline() {
        check(
            DType::Int16,
            &[14],
            HostValues::I64((0..14).map(|i| i * 1001).collect()),
            "array([    0,  1001,  2002,  3003,  4004,  5005,  6006,  7007,  8008,\n        9009, 10010, 11011, 12012, 13013], dtype=int16)",
            "[    0  1001  2002  3003  4004  5005  6006  7007  8008  9009 10010 11011\n 12012 13013]",
        );
    }

    #[test]
    fn extras_newline_f32() {
        check(
            DType::Float32,
            &[9],
            HostValues::F64(vec![1000.0, 1001.25, 1002.5, 1003.75, 1005.0, 1006.25, 1007.5, 1008.75, 1010.0]),
            "array([1000.  , 1001.25, 1002.5 , 1003.75, 1005.  , 1006.25, 1007.5 ,\n       1008.75, 1010.  ], dtype=float32)",
            "[1000.   1001.25 1002.5  1003.75 1005.   1006.25 1007.5  1008.75 1010.  ]",
        );
    }
}
