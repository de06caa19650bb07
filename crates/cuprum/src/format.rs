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

use crate::dtype::DType;

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
    shape
        .iter()
        .map(|&len| if axis_is_cut(summarize, len) { 2 * EDGEITEMS } else { len })
        .collect()
}

/// For every axis, the indices along that axis that are shown, ascending.
/// The shown values are the row-major cartesian product of these lists.
/// An empty array shows nothing, so then every list is empty.
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
        HostValues::F64(v) => v
            .first()
            .map_or(MISSING.to_string(), |&x| float_scalar_str(x, FloatKind::of(dtype))),
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
                    Item::At(j) => self
                        .words
                        .get(offset.saturating_add(j.saturating_mul(stride)))
                        .map_or(MISSING, String::as_str),
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
                if b && !zero_d { " True".to_string() } else { bool_word(b).to_string() }
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
        let mut digits: Vec<u8> = mantissa
            .bytes()
            .filter(u8::is_ascii_digit)
            .map(|b| b - b'0')
            .collect();
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
            Some((&lead, rest)) => (
                char::from(b'0' + lead),
                rest.iter().map(|&d| char::from(b'0' + d)).collect(),
            ),
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
    let even = (x / gap_above).round() as u64 % 2 == 0;
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
                if best.map_or(true, |(d, _)| dist < d) {
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
            scientific = max >= kind.array_sci_from()
                || min < kind.narrow(1e-4)
                || kind.div(max, min) > 1000.0;
        }

        let mut format = FloatFormat {
            kind,
            scientific,
            pad_left: 0,
            pad_right: 0,
            frac_digits: 0,
            exp_digits: 0,
        };

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
            let neg_inf = values.iter().any(|&x| x == f64::NEG_INFINITY);
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
