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

mod digits;
pub(crate) mod spec;

use crate::core::dtype::DType;
use digits::*;

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
    /// complex64/complex128: the real parts and the imaginary parts.
    C64(Vec<f64>, Vec<f64>),
}

/// Items shown at each end of a summarized axis (NumPy's `edgeitems`).
pub(crate) const EDGEITEMS: usize = 3;
/// Arrays with more elements than this are summarized (NumPy's `threshold`).
pub(crate) const THRESHOLD: usize = 1000;

/// NumPy's default `linewidth`.
const LINE_WIDTH: usize = 75;
/// NumPy's default `precision`: at most this many digits after the point.
const PRECISION: usize = 8;

thread_local! {
    /// The thread's `precision` print option (`with_precision`).
    static THREAD_PRECISION: std::cell::Cell<usize> = const { std::cell::Cell::new(PRECISION) };
}

/// The precision floats print with on this thread (8 but inside [`with_precision`]).
fn precision() -> usize {
    THREAD_PRECISION.with(|p| p.get())
}

/// `f` run with the `precision` print option `p`, as under NumPy's
/// `np.printoptions(precision=p)` (numpy.testing's reports show arrays with 6).
pub(crate) fn with_precision<R>(p: usize, f: impl FnOnce() -> R) -> R {
    let old = THREAD_PRECISION.with(|c| c.replace(p));
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREAD_PRECISION.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(old);
    f()
}
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

/// NumPy's `array2string(a)` under the default options: the values as `repr` lays them out,
/// without `array(...)` and the dtype (`1.`, `0.33333333`, `[1, 2]`, `[]`).
pub(crate) fn array2string(dtype: DType, shape: &[usize], shown: &HostValues) -> String {
    if element_count(shape) == 0 && !shape.is_empty() {
        return "[]".to_string();
    }
    render_array(dtype, shape, shown, " ", 0, LINE_WIDTH)
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
    matches!(dtype, DType::Bool | DType::Int64 | DType::Float64 | DType::Complex128)
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
        HostValues::C64(re, im) => match (re.first(), im.first()) {
            (Some(&r), Some(&i)) => complex_scalar_str(r, i, FloatKind::of(dtype)),
            _ => MISSING.to_string(),
        },
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
            let format = FloatFormat::new(v, FloatKind::of(dtype), false);
            v.iter().map(|&x| format.format(x)).collect()
        }
        // NumPy's ComplexFloatingFormat: one format for the real parts, one for the imaginary
        // parts (always signed), and the "j" before the imaginary part's padding.
        HostValues::C64(re, im) => {
            let (fr, fi) =
                (FloatFormat::new(re, FloatKind::of(dtype), false), FloatFormat::new(im, FloatKind::of(dtype), true));
            re.iter()
                .zip(im)
                .map(|(&r, &i)| {
                    let mut i = fi.format(i);
                    i.insert(i.trim_end().len(), 'j');
                    fr.format(r) + &i
                })
                .collect()
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
// Floats: array elements
// ---------------------------------------------------------------------------

/// NumPy's `FloatingFormat` under the default print options: one notation
/// and one set of paddings for all elements of an array.
struct FloatFormat {
    kind: FloatKind,
    /// NumPy's `sign='+'` (a complex number's imaginary part): non-negative values get a '+'.
    plus: bool,
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
    fn new(values: &[f64], kind: FloatKind, plus: bool) -> FloatFormat {
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

        let mut format =
            FloatFormat { kind, plus, scientific, pad_left: 0, pad_right: 0, frac_digits: 0, exp_digits: 0 };

        // A first pass over the digits of every value fixes the widths.
        if scientific {
            for &x in &finite {
                let digits = unique_digits(x.abs(), kind, Cutoff::Significant(precision()), None);
                let (_, frac) = digits.scientific_parts();
                let sign = usize::from(x.is_sign_negative() || plus);
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
                let digits = unique_digits(x.abs(), kind, Cutoff::Fraction(precision()), None);
                let (int, frac) = digits.positional_parts();
                let sign = usize::from(x.is_sign_negative() || plus);
                format.pad_left = format.pad_left.max(int.len() + sign);
                format.pad_right = format.pad_right.max(frac.len());
            }
        }

        // Room for "nan", "inf" and "-inf", which are right-aligned.
        if finite.len() != values.len() {
            let neg_inf = plus || values.contains(&f64::NEG_INFINITY);
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
            let word = match (x.is_nan(), x < 0.0, self.plus) {
                (true, _, false) => "nan",
                (true, _, true) => "+nan",
                (false, true, _) => "-inf",
                (false, false, false) => "inf",
                (false, false, true) => "+inf",
            };
            let width = self.pad_left + self.pad_right + 1;
            return format!("{word:>width$}");
        }
        let sign = if x.is_sign_negative() {
            "-"
        } else if self.plus {
            "+"
        } else {
            ""
        };
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
            let digits = unique_digits(x.abs(), self.kind, Cutoff::Fraction(precision()), None);
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

/// `str` of a NumPy complex scalar (`(1+2j)`, `-1j`, `(nan+infj)`): Python's complex repr, with
/// the parts' shortest digits in the element's precision.
fn complex_scalar_str(re: f64, im: f64, kind: FloatKind) -> String {
    // Python's repr: no parentheses and no real part when it is +0.0; integral parts without
    // ".0"; "inf"/"nan" as words.
    let part = |x: f64| -> String {
        let s = float_scalar_str(x, kind);
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    };
    let imag = part(im);
    if re == 0.0 && !re.is_sign_negative() {
        return format!("{imag}j");
    }
    let sign = if im.is_sign_negative() && !im.is_nan() { "" } else { "+" };
    let imag = if im.is_nan() { "nan".to_string() } else { imag };
    format!("({}{sign}{imag}j)", part(re))
}

#[cfg(test)]
mod tests;
