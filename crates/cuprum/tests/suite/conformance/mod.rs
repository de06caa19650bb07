//! NumPy conformance: every case of `tests/fixtures/manifest.txt` (written with NumPy's own
//! results by `scripts/gen_fixtures.py`, whose docstring gives the format) run on the CPU and,
//! when present, the GPU (inputs uploaded with `to_device`).
//!
//! A case gives an operation, its parameters, its inputs (`.npy` blobs of `numpy.bin`, or
//! Python scalars, passed as weak Rust scalars) and NumPy's results, or the exception NumPy
//! raised (then cuprum must return an error of that kind, [`cuprum::Error::kind`]: NumPy's
//! `UFuncTypeError` is a `TypeError`). Results must have NumPy's dtype and shape
//! exactly, integer and bool values exactly, float values exactly for exactly specified
//! operations (see [`exact`]) and within a dtype-dependent tolerance otherwise, with NaNs in
//! the same places; views must also have NumPy's strides. Unary, binary and scalar cases
//! (and reductions, astype, misc, and the sorting, quantile, unique, select, index, manip,
//! signal and signal_nd groups) run again on non-contiguous inputs holding the same values (a negatively
//! strided view of a larger array, a transposed copy): for `put` and `add.at`, the array
//! written into.
//!
//! Each group is one `device_test!` (a CPU and a GPU test); it collects all of its failures
//! (a panic inside a case is one) and panics at the end listing the first 30. Cases covered
//! by [`KNOWN_DIFFS`] (differences from NumPy already reported) run but do not fail;
//! [`GPU_SKIP`] lists runs that would break the CUDA context. Missing fixtures fail the tests.
//!
//! `CONFORMANCE_ALL_FAILURES=1` prints every failure; `CONFORMANCE_TOL_SCALE=0` compares all
//! floats exactly (to see how close the results are).

use crate::common;

use cuprum::scipy::signal::Boundary;
use cuprum::{
    Array, Axes, BinaryOp, Bins, ConvolveMode, DType, Device, Indexing, Operand, PadMode, QuantileMethod, ReduceOp,
    Scalar, Sections, Side, SliceElem, UnaryOp,
};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

// The groups, a module per family (as scripts/fixtures/).
mod arrays;
mod elementwise;
mod fft;
mod io;
mod linalg;
mod ndimage;
mod random;
mod signal;
mod sorting;

/// Cases where cuprum differs from NumPy (NumPy being right or the difference being a choice
/// of the library): `(id pattern, failure text, note)`. A pattern is a case id in which `*`
/// matches any text; a leading `gpu:` or `cpu:` limits it to one device. An entry covers a
/// failing case only when every failure message of the case contains the failure text (so
/// that another failure of the same case is still reported). Listed cases still run: an entry
/// that covers no failure prints that it can go. The first word of a note names the bug; a
/// note of one word refers to the entry that describes it.
const KNOWN_DIFFS: &[(&str, &str, &str)] = &[
    (
        "io/fits/int16_blank_zero",
        "values differ",
        "FITSBLANK0 a FITS image with BLANK = 0: astropy 8 converts it to float but leaves the zero pixels as 0.0 \
         (it tests `if self._blank:`, false for 0); cuprum makes them NaN as the FITS standard says",
    ),
    // BUG-1..16 found by this suite were fixed in the library.
    ("ndimage_measure/float*/6x7/standard_deviation/*", "values differ", "NDVAR"),
    (
        "ndimage_measure/float*/6x7/variance/*",
        "values differ",
        "NDVAR variance and standard_deviation of one group (index None or a scalar) of float16/float32 values: \
         SciPy centres and squares them in the input's precision (vals - vals.mean() in float32), cuprum in \
         float64 as for every other index, so the two differ beyond float64 rounding (cuprum's is the more \
         accurate)",
    ),
    (
        "quantile/*/bool/*",
        "NumPy raises TypeError",
        "QBOOL quantile/percentile of bools with an interpolating method (linear, midpoint): NumPy raises \
         TypeError (no bool subtract) although its median of bools works; cuprum interpolates them as 0/1",
    ),
    (
        "quantile/*quantile*/inf*",
        "values differ",
        "QINF quantile interpolation next to an infinity: NumPy's _lerp computes (inf - 2) * 0, so its quantile \
         gives nan for np.quantile([1, 2, inf], 0.5) (its neighbours are taken even at an integer virtual index); \
         cuprum picks the element at integer positions and gives 2.0 there. (median and nanmedian average the \
         middle elements as NumPy does, so median([2, inf]) is inf on both.)",
    ),
    (
        "quantile/*float16*linear",
        "values differ",
        "QF16 float16 interpolation: NumPy computes b - a, (b - a) * t and the sum in float16 arithmetic (each \
         rounded), cuprum in float64 rounded once, so results near zero after cancellation differ by more than \
         the float16 tolerance (cuprum's is the correctly rounded one)",
    ),
    (
        "unique/histogram/float32",
        "result 1: dtype float64 (NumPy: float32)",
        "HISTEDGES histogram edges are float64 for float32 data (NumPy: the data's float dtype)",
    ),
];

/// Runs not made on the GPU because they break its CUDA context (every later operation in the
/// process would fail): `(pattern, note)`, the pattern matching `"<case id> [<layout>]"`.
const GPU_SKIP: &[(&str, &str)] = &[
    // None at present (BUG-16, scalars before arrays on the strided GPU path, is fixed).
];

const UNARY: [UnaryOp; UnaryOp::ALL.len()] = UnaryOp::ALL;

const BINARY: [BinaryOp; 27] = BinaryOp::ALL;

const REDUCE: [ReduceOp; 12] = ReduceOp::ALL;

// ------------------------------------------------------------------ fixtures

enum Expect {
    /// NumPy raised this exception.
    Err(String),
    /// NumPy's results: blob tokens (see [`blob`]).
    Arrays(Vec<String>),
}

struct Case {
    id: String,
    group: String,
    op: String,
    params: Vec<(String, String)>,
    inputs: Vec<String>,
    expect: Expect,
}

impl Case {
    fn param(&self, key: &str) -> &str {
        self.param_opt(key).unwrap_or_else(|| panic!("{}: no parameter {key:?}", self.id))
    }
    fn param_opt(&self, key: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
    fn num<T: std::str::FromStr>(&self, key: &str) -> T {
        let v = self.param(key);
        v.parse().unwrap_or_else(|_| panic!("{}: parameter {key}={v:?} does not parse", self.id))
    }
    fn dtype(&self, key: &str) -> DType {
        DType::from_name(self.param(key)).unwrap_or_else(|| panic!("{}: unknown dtype {:?}", self.id, self.param(key)))
    }
}

struct Fixtures {
    blobs: HashMap<String, Vec<u8>>,
    cases: Vec<Case>,
    header: String,
}

fn parse_shape(s: &str) -> Vec<usize> {
    s.split(['.', ',']).filter(|t| !t.is_empty()).map(|t| t.trim().parse().expect("shape")).collect()
}

fn load_fixtures() -> Fixtures {
    let dir = common::fixtures_dir();
    let read = |name: &str| {
        let p = dir.join(name);
        std::fs::read(&p).unwrap_or_else(|e| {
            panic!("conformance fixture {} is missing ({e}): run `python3 scripts/gen_fixtures.py`", p.display())
        })
    };
    let bin = read("numpy.bin");
    let manifest = String::from_utf8(read("manifest.txt")).expect("manifest.txt is not UTF-8");
    let mut blobs = HashMap::new();
    let mut pos = 0usize;
    let take = |pos: &mut usize, n: usize| -> &[u8] {
        let s = bin.get(*pos..*pos + n).expect("numpy.bin is truncated");
        *pos += n;
        s
    };
    while pos < bin.len() {
        let n = u32::from_le_bytes(take(&mut pos, 4).try_into().unwrap()) as usize;
        let name = String::from_utf8(take(&mut pos, n).to_vec()).expect("blob name");
        let len = u64::from_le_bytes(take(&mut pos, 8).try_into().unwrap()) as usize;
        blobs.insert(name, take(&mut pos, len).to_vec());
    }
    let mut cases = Vec::new();
    let mut header = String::new();
    for line in manifest.lines() {
        if line.starts_with('#') {
            if header.is_empty() {
                // "# NumPy 2.4.6 conformance cases, ..." -> "NumPy 2.4.6"
                header = line.trim_start_matches('#').split(" conformance").next().unwrap_or("").trim().to_string();
            }
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('|').collect();
        assert_eq!(f.len(), 5, "bad manifest line {line:?}");
        let params = f[2]
            .split(';')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or_else(|| panic!("bad parameter {p:?} in {line:?}"));
                (k.to_string(), v.to_string())
            })
            .collect();
        let inputs = f[3].split(',').filter(|t| !t.is_empty()).map(String::from).collect();
        let expect = match f[4].strip_prefix("ERR:") {
            Some(e) => Expect::Err(e.to_string()),
            None => Expect::Arrays(f[4].split(',').map(String::from).collect()),
        };
        let id = f[0].to_string();
        let group = id.split('/').next().unwrap().to_string();
        cases.push(Case { id, group, op: f[1].to_string(), params, inputs, expect });
    }
    assert!(!cases.is_empty(), "manifest.txt holds no case");
    Fixtures { blobs, cases, header }
}

fn fixtures() -> &'static Fixtures {
    static F: OnceLock<Fixtures> = OnceLock::new();
    F.get_or_init(load_fixtures)
}

/// A blob as a host array; `name#2.1.4` is blob `name` with shape (2, 1, 4).
fn blob(token: &str) -> Array {
    let (name, shape) = match token.split_once('#') {
        Some((n, s)) => (n, Some(parse_shape(s))),
        None => (token, None),
    };
    let bytes = fixtures().blobs.get(name).unwrap_or_else(|| panic!("no blob {name:?} in numpy.bin"));
    let a = cuprum::npy::npy_from_bytes(bytes, &Device::Cpu).unwrap_or_else(|e| panic!("blob {name}: {e}"));
    match shape {
        Some(s) => a.reshape(&s).unwrap_or_else(|e| panic!("blob {token}: {e}")),
        None => a,
    }
}

/// A blob on `dev` (uploaded with `to_device` for a GPU).
fn blob_on(name: &str, dev: &Device) -> Array {
    let a = blob(name);
    if dev.is_cpu() {
        a
    } else {
        a.to_device(dev).unwrap_or_else(|e| panic!("uploading blob {name}: {e}"))
    }
}

/// An input: an array, or a Python scalar (weak, NEP 50).
enum Val {
    A(Array),
    S(Scalar),
}

impl Val {
    fn operand(&self) -> Operand<'_> {
        match self {
            Val::A(a) => Operand::Array(a),
            Val::S(s) => Operand::Scalar(*s),
        }
    }
    fn array(&self) -> &Array {
        match self {
            Val::A(a) => a,
            Val::S(s) => panic!("expected an array input, got the scalar {s:?}"),
        }
    }
    fn scalar(&self) -> Scalar {
        match self {
            Val::S(s) => *s,
            Val::A(_) => panic!("expected a scalar input, got an array"),
        }
    }
}

fn parse_f64(s: &str) -> f64 {
    match s {
        "nan" => f64::NAN,
        "inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        _ => s.parse().unwrap_or_else(|_| panic!("bad float {s:?}")),
    }
}

fn scalar_token(t: &str) -> Option<Scalar> {
    let (k, v) = t.split_once(':')?;
    Some(match k {
        "i" => Scalar::Int(v.parse().expect("i: token")),
        "u" => Scalar::UInt(v.parse().expect("u: token")),
        "f" => Scalar::Float(parse_f64(v)),
        "b" => Scalar::Bool(v == "1"),
        "c" => {
            let (re, im) = v.split_once(':').expect("c: token");
            Scalar::Complex(parse_f64(re), parse_f64(im))
        }
        _ => panic!("bad scalar token {t:?}"),
    })
}

#[derive(Copy, Clone, Debug, PartialEq)]
enum Layout {
    Contig,
    /// A view with negative strides (every other element, backwards) of a larger array.
    Strided,
    /// A transposed C-contiguous copy (Fortran order), for two or more dimensions.
    Transposed,
}

/// An array with `a`'s values (on `a`'s device) in the given memory layout.
fn relayout(a: &Array, layout: Layout) -> cuprum::Result<Array> {
    match layout {
        Layout::Contig => Ok(a.view()),
        Layout::Strided => {
            if a.ndim() == 0 {
                return Ok(a.view());
            }
            let big: Vec<usize> = a.shape().iter().map(|d| 2 * d).collect();
            let base = cuprum::zeros(&big, a.dtype(), &a.device())?;
            let idx: Vec<SliceElem> =
                a.shape().iter().map(|_| SliceElem::Slice { start: None, end: None, step: -2 }).collect();
            let mut v = base.slice(&idx[..])?;
            assert_eq!(v.shape(), a.shape());
            v.assign(a)?;
            Ok(v)
        }
        Layout::Transposed => Ok(a.t().copy()?.t()),
    }
}

fn inputs(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Val>> {
    case.inputs
        .iter()
        .map(|t| match scalar_token(t) {
            Some(s) => Ok(Val::S(s)),
            None => Ok(Val::A(relayout(&blob_on(t, dev), layout)?)),
        })
        .collect()
}

// ------------------------------------------------------------------ comparison

enum Vals {
    I(Vec<i128>),
    F(Vec<f64>),
}

fn read<T: cuprum::Element>(a: &Array) -> Vec<T> {
    a.to_vec::<T>().unwrap_or_else(|e| panic!("reading a result: {e}"))
}

fn values(a: &Array) -> Vals {
    use DType::*;
    fn ints<T: Into<i128>>(v: Vec<T>) -> Vals {
        Vals::I(v.into_iter().map(Into::into).collect())
    }
    match a.dtype() {
        Bool => Vals::I(read::<bool>(a).into_iter().map(|x| x as i128).collect()),
        Int8 => ints(read::<i8>(a)),
        Int16 => ints(read::<i16>(a)),
        Int32 => ints(read::<i32>(a)),
        Int64 => ints(read::<i64>(a)),
        UInt8 => ints(read::<u8>(a)),
        UInt16 => ints(read::<u16>(a)),
        UInt32 => ints(read::<u32>(a)),
        UInt64 => ints(read::<u64>(a)),
        Float16 => Vals::F(read::<cuprum::f16>(a).into_iter().map(|x| x.to_f64()).collect()),
        Float32 => Vals::F(read::<f32>(a).into_iter().map(|x| x as f64).collect()),
        Float64 => Vals::F(read::<f64>(a)),
        // Real and imaginary parts, interleaved (compared relative to the whole number).
        Complex64 => {
            Vals::F(read::<cuprum::Complex<f32>>(a).into_iter().flat_map(|c| [c.re as f64, c.im as f64]).collect())
        }
        Complex128 => Vals::F(read::<cuprum::Complex<f64>>(a).into_iter().flat_map(|c| [c.re, c.im]).collect()),
    }
}

/// Operations whose float results are exactly specified (IEEE operations, rounding, casts,
/// selections, copies): NumPy's value is the only right one, so they are compared exactly
/// (with the sign of zeros). Others get `rtol` of 2e-3 (float16), 2e-5 (float32), 1e-12
/// (float64) relative to the larger magnitude, plus a tiny absolute term.
fn exact(case: &Case) -> bool {
    const UNARY_EXACT: &[&str] =
        &["negative", "positive", "absolute", "sign", "square", "sqrt", "reciprocal", "floor", "ceil", "rint", "trunc"];
    const BINARY_EXACT: &[&str] = &[
        "add",
        "subtract",
        "multiply",
        "true_divide",
        "floor_divide",
        "remainder",
        "maximum",
        "minimum",
        "fmax",
        "fmin",
    ];
    match case.group.as_str() {
        "unary" => UNARY_EXACT.contains(&case.op.as_str()),
        "binary" | "scalar" => BINARY_EXACT.contains(&case.op.as_str()),
        "reduce" => matches!(case.op.as_str(), "min" | "max"),
        // Complex: the operations that move or negate parts, casts, and the tests.
        "complex" => {
            matches!(case.param("kind"), "astype" | "view") && case.op != "angle"
                || matches!(
                    case.op.as_str(),
                    "negative"
                        | "positive"
                        | "conjugate"
                        | "add"
                        | "subtract"
                        | "rint"
                        | "maximum"
                        | "minimum"
                        | "fmax"
                        | "fmin"
                )
        }
        "astype" | "view" => true,
        "creation" => !matches!(case.op.as_str(), "arange" | "linspace"),
        "misc" => matches!(case.op.as_str(), "where" | "clip"),
        // Picked values: sorts, order statistics that select an element, unique values.
        "sort" | "manip" => true,
        "quantile" => matches!(case.param_opt("method"), Some("lower" | "higher" | "nearest")),
        "unique" => !matches!(case.op.as_str(), "histogram" | "bincount"),
        "select" => !matches!(case.op.as_str(), "cumsum" | "cumprod"),
        "index" => case.op != "add.at",
        // File contents: astropy's scaling is one multiply and one add per value, done alike.
        "io" => true,
        // The reproducible random streams, bit for bit.
        "random" => true,
        "fft" => matches!(case.op.as_str(), "fftshift" | "ifftshift" | "fftfreq" | "rfftfreq"),
        _ => false,
    }
}

/// (relative, absolute) tolerance for float results of `dtype` in `case`.
fn tolerance(case: &Case, dtype: DType) -> (f64, f64) {
    if exact(case) {
        return (0.0, 0.0);
    }
    let (rtol, atol): (f64, f64) = match dtype {
        DType::Float16 => (2e-3, 1e-7),
        DType::Float32 | DType::Complex64 => (2e-5, 1e-37),
        _ => (1e-12, 1e-300),
    };
    // CONFORMANCE_TOL_SCALE=0 demands exact floats (to see how close the results are).
    let scale = std::env::var("CONFORMANCE_TOL_SCALE").ok().and_then(|s| s.parse::<f64>().ok()).unwrap_or(1.0);
    (rtol * scale, atol * scale)
}

fn show(v: &Vals, i: usize) -> String {
    match v {
        Vals::I(x) => format!("{}", x[i]),
        Vals::F(x) => format!("{:?}", x[i]),
    }
}

fn compare(case: &Case, got: &Array, want: &Array) -> Result<(), String> {
    if got.dtype() != want.dtype() {
        return Err(format!("dtype {} (NumPy: {})", got.dtype(), want.dtype()));
    }
    if got.shape() != want.shape() {
        return Err(format!("shape {:?} (NumPy: {:?})", got.shape(), want.shape()));
    }
    let (rtol, mut atol) = tolerance(case, want.dtype());
    let (g, w) = (values(got), values(want));
    // linalg: single precision is computed in single (NumPy: in double, then rounded), and
    // entries that cancel are compared to the result's scale, as a norm-wise bound does.
    let rtol = if matches!(case.group.as_str(), "linalg" | "fft" | "signal_fft") {
        let single = matches!(want.dtype(), DType::Float32 | DType::Complex64);
        let r = match (case.group.as_str(), single) {
            ("linalg", true) => 1e-4,
            ("linalg", false) => 1e-11,
            // FFTs: errors of order eps log n relative to the largest output.
            ("signal_fft", true) if want.dtype() == DType::Float16 => 2e-3,
            (_, true) => 2e-5,
            (_, false) => 5e-13,
        };
        if let Vals::F(w) = &w {
            atol = atol.max(r * w.iter().filter(|v| v.is_finite()).fold(0f64, |m, v| m.max(v.abs())));
        }
        r
    } else {
        rtol
    };
    // Exact operations must also give zeros NumPy's sign; not maximum/minimum/fmax/fmin, whose
    // choice between equal -0.0 and 0.0 is unspecified (C's fmax too).
    // Nor sorts and the values they pick: -0.0 and 0.0 are equal keys, in an unspecified order
    // (NumPy's default sort is not stable; argsort cases, stable, check their order).
    let signed_zeros = exact(case)
        && !matches!(case.op.as_str(), "maximum" | "minimum" | "fmax" | "fmin")
        && !matches!(case.group.as_str(), "sort" | "quantile" | "unique");
    let complex = want.dtype().is_complex();
    // A complex number's parts are compared relative to the larger of the two numbers.
    // (A NaN or infinite other part leaves the part on its own.)
    let mag = |v: &[f64], i: usize| {
        let m = if complex { v[i & !1].hypot(v[i | 1]) } else { v[i].abs() };
        if m.is_finite() {
            m
        } else {
            v[i].abs()
        }
    };
    let bad: Vec<usize> = match (&g, &w) {
        (Vals::I(g), Vals::I(w)) => (0..w.len()).filter(|&i| g[i] != w[i]).collect(),
        (Vals::F(g), Vals::F(w)) => (0..w.len())
            .filter(|&i| {
                let (a, b) = (g[i], w[i]);
                let ok = if a.is_nan() || b.is_nan() {
                    a.is_nan() && b.is_nan()
                } else if a.is_infinite() || b.is_infinite() {
                    a == b
                } else if signed_zeros && a == 0.0 && b == 0.0 {
                    a.is_sign_negative() == b.is_sign_negative()
                } else {
                    (a - b).abs() <= rtol * mag(g, i).max(mag(w, i)) + atol
                };
                !ok
            })
            .collect(),
        _ => unreachable!(),
    };
    if !bad.is_empty() {
        let shown: Vec<String> =
            bad.iter().take(4).map(|&i| format!("[{i}] {} (NumPy {})", show(&g, i), show(&w, i))).collect();
        return Err(format!("{} of {} values differ (flat index): {}", bad.len(), want.size(), shown.join(", ")));
    }
    Ok(())
}

/// Whether `id` matches `pat` (`*` matches any text).
fn glob(pat: &str, id: &str) -> bool {
    let parts: Vec<&str> = pat.split('*').collect();
    if parts.len() == 1 {
        return pat == id;
    }
    let mut rest = id;
    for (k, p) in parts.iter().enumerate() {
        if k == 0 {
            match rest.strip_prefix(p) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if k == parts.len() - 1 {
            return rest.ends_with(p);
        } else {
            match rest.find(p) {
                Some(i) => rest = &rest[i + p.len()..],
                None => return false,
            }
        }
    }
    true
}

/// The description of a KNOWN_DIFFS tag (the note of its first entry).
fn full_note(tag: &str) -> &'static str {
    KNOWN_DIFFS
        .iter()
        .map(|(_, _, n)| *n)
        .find(|n| n.split_whitespace().next() == Some(tag) && n.contains(' '))
        .unwrap_or("")
}

/// The first entry of [`KNOWN_DIFFS`] covering the failures `errs` of case `id`: (index, note).
fn known_diff(id: &str, errs: &[String], dev: &Device) -> Option<(usize, &'static str)> {
    if errs.is_empty() {
        return None;
    }
    KNOWN_DIFFS.iter().enumerate().find_map(|(k, (pat, text, note))| {
        let (pat, ok_dev) = match (pat.strip_prefix("gpu:"), pat.strip_prefix("cpu:")) {
            (Some(p), _) => (p, !dev.is_cpu()),
            (_, Some(p)) => (p, dev.is_cpu()),
            _ => (*pat, true),
        };
        (ok_dev && glob(pat, id) && errs.iter().all(|e| e.contains(text))).then_some((k, *note))
    })
}

/// Whether some entry of [`KNOWN_DIFFS`] names case `id` (on `dev`).
fn listed(id: &str, dev: &Device) -> Vec<usize> {
    KNOWN_DIFFS
        .iter()
        .enumerate()
        .filter(|(_, (pat, _, _))| {
            let (pat, ok_dev) = match (pat.strip_prefix("gpu:"), pat.strip_prefix("cpu:")) {
                (Some(p), _) => (p, !dev.is_cpu()),
                (_, Some(p)) => (p, dev.is_cpu()),
                _ => (*pat, true),
            };
            ok_dev && glob(pat, id)
        })
        .map(|(k, _)| k)
        .collect()
}

/// Errors that say something broke rather than that the operation is refused.
fn is_breakage(e: &cuprum::Error) -> bool {
    matches!(
        e,
        cuprum::Error::Cuda(_)
            | cuprum::Error::Compile { .. }
            | cuprum::Error::OutOfMemory { .. }
            | cuprum::Error::NoDevice(_)
    )
}

type Runner = fn(&Case, &Device, Layout) -> cuprum::Result<Vec<Array>>;

thread_local! {
    /// Set while a case runs: its panics are reported as failures, not printed by the hook.
    static IN_CASE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn quiet_panics_in_cases() {
    static HOOK: OnceLock<()> = OnceLock::new();
    HOOK.get_or_init(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_CASE.with(|f| f.get()) {
                default(info)
            }
        }));
    });
}

/// Checks one run of a case against NumPy (a panic, in cuprum or reading its results, is a
/// failure of the case).
fn check_case(case: &Case, dev: &Device, layout: Layout, run: Runner) -> Result<(), String> {
    quiet_panics_in_cases();
    IN_CASE.with(|f| f.set(true));
    let res = catch_unwind(AssertUnwindSafe(|| check_run(case, dev, layout, run)));
    IN_CASE.with(|f| f.set(false));
    res.unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(format!("panicked: {msg}"))
    })
}

fn check_run(case: &Case, dev: &Device, layout: Layout, run: Runner) -> Result<(), String> {
    match (&case.expect, run(case, dev, layout)) {
        (Expect::Err(e), Ok(got)) => {
            let shapes: Vec<String> = got.iter().map(|g| format!("{} {:?}", g.dtype(), g.shape())).collect();
            Err(format!("NumPy raises {e}, cuprum returned {}", shapes.join(", ")))
        }
        (Expect::Err(_), Err(err)) if is_breakage(&err) => {
            Err(format!("error {err} (NumPy raises too, but not for this)"))
        }
        (Expect::Err(e), Err(err)) => {
            // NumPy's UFuncTypeError is a TypeError; its AxisError (also a ValueError and an
            // IndexError) must be exactly AxisError.
            let want = if e == "UFuncTypeError" { "TypeError" } else { e.as_str() };
            if err.kind().name() == want {
                Ok(())
            } else {
                Err(format!("NumPy raises {e}, cuprum's error is {} ({err})", err.kind()))
            }
        }
        (Expect::Arrays(_), Err(err)) => Err(format!("error: {err}")),
        (Expect::Arrays(want), Ok(got)) => {
            if got.len() != want.len() {
                return Err(format!("{} results, NumPy {}", got.len(), want.len()));
            }
            for (k, (g, token)) in got.iter().zip(want).enumerate() {
                if g.device() != *dev {
                    return Err(format!("result on {}, expected on {dev}", g.device()));
                }
                compare(case, g, &blob(token))
                    .map_err(|e| if got.len() > 1 { format!("result {k}: {e}") } else { e })?;
            }
            if let (Layout::Contig, Some(st)) = (layout, case.param_opt("strides")) {
                let want: Vec<isize> = st.split(',').filter(|t| !t.is_empty()).map(|t| t.parse().unwrap()).collect();
                if got[0].strides() != &want[..] {
                    return Err(format!(
                        "strides {:?} (NumPy: {want:?}), shape {:?}",
                        got[0].strides(),
                        got[0].shape()
                    ));
                }
            }
            Ok(())
        }
    }
}

/// Runs every case of `group` on `dev` in each of `layouts`; panics listing the failures.
fn run_group(group: &str, dev: &Device, layouts: &[Layout], run: Runner) {
    let fx = fixtures();
    let cases: Vec<&Case> = fx.cases.iter().filter(|c| c.group == group).collect();
    assert!(!cases.is_empty(), "no {group} cases in manifest.txt");
    let t = std::time::Instant::now();
    let (mut runs, mut known) = (0usize, 0usize);
    // KNOWN_DIFFS entries matching cases of this group, and whether one of those failed.
    let mut entries: Vec<(usize, bool)> = Vec::new();
    let mut tags: Vec<&str> = Vec::new();
    let mut failures = Vec::new();
    let mut skipped = 0;
    let mut skip_tags: Vec<&str> = Vec::new();
    for case in &cases {
        let mut errs = Vec::new();
        for &layout in layouts {
            // Errors do not depend on the layout; other layouts only re-check values.
            if layout != Layout::Contig
                && (matches!(case.expect, Expect::Err(_)) || case.inputs.iter().all(|t| scalar_token(t).is_some()))
            {
                continue;
            }
            if !dev.is_cpu() {
                let run_id = format!("{} [{layout:?}]", case.id);
                if let Some((_, note)) = GPU_SKIP.iter().find(|(p, _)| glob(p, &run_id)) {
                    let tag = note.split_whitespace().next().unwrap_or("");
                    if !skip_tags.contains(&tag) {
                        skip_tags.push(tag);
                    }
                    skipped += 1;
                    continue;
                }
            }
            runs += 1;
            if let Err(e) = check_case(case, dev, layout, run) {
                errs.push(format!("{} [{layout:?}]: {e}", case.id));
            }
        }
        // A sticky CUDA error (an illegal address...) fails everything after it: stop there.
        if let Some(e) =
            errs.iter().find(|e| e.contains("CUDA_ERROR_ILLEGAL") || e.contains("CUDA_ERROR_LAUNCH_FAILED"))
        {
            failures.push(format!("{e}\n  (stopped: the CUDA context is broken; rerun with CUDA_LAUNCH_BLOCKING=1 --test-threads=1 to find the case)"));
            break;
        }
        let kd = known_diff(&case.id, &errs, dev);
        for k in listed(&case.id, dev) {
            let used = kd.is_some_and(|(j, _)| j == k);
            match entries.iter_mut().find(|(e, _)| *e == k) {
                Some(e) => e.1 |= used,
                None => entries.push((k, used)),
            }
        }
        match kd {
            Some((_, note)) => {
                known += 1;
                let tag = note.split_whitespace().next().unwrap_or("");
                let first: String = errs[0].chars().take(160).collect();
                println!("known difference {tag}, skipped: {first}");
                if !tags.contains(&tag) {
                    tags.push(tag);
                }
            }
            _ => failures.extend(errs),
        }
    }
    for tag in tags {
        println!("  {}", full_note(tag));
    }
    for tag in skip_tags {
        let note = GPU_SKIP.iter().map(|(_, n)| *n).find(|n| n.starts_with(tag) && n.contains(' ')).unwrap_or("");
        println!("  runs not made on the GPU: {note}");
    }
    for (k, failed) in entries {
        if !failed {
            println!("KNOWN_DIFFS entry {:?} covers no failing {group} case on {dev}: remove it", KNOWN_DIFFS[k].0);
        }
    }
    let nerr = cases.iter().filter(|c| matches!(c.expect, Expect::Err(_))).count();
    println!(
        "conformance {group} on {dev}: {} cases ({nerr} of them errors whose kind is checked; {runs} runs, {known} known differences skipped, {skipped} runs not made on the GPU), {} failures, {:.2} s [{}]",
        cases.len(),
        failures.len(),
        t.elapsed().as_secs_f64(),
        fx.header
    );
    if !failures.is_empty() {
        if std::env::var_os("CONFORMANCE_ALL_FAILURES").is_some() {
            for f in &failures {
                println!("FAIL {f}");
            }
        }
        let n = failures.len();
        let shown: Vec<String> = failures.into_iter().take(30).collect();
        panic!("{group} on {dev}: {n} failures (first 30):\n  {}", shown.join("\n  "));
    }
}

// ------------------------------------------------------------------ runners

fn unary_op(name: &str) -> UnaryOp {
    *UNARY.iter().find(|o| o.name() == name).unwrap_or_else(|| panic!("unknown unary op {name}"))
}
fn binary_op(name: &str) -> BinaryOp {
    *BINARY.iter().find(|o| o.name() == name).unwrap_or_else(|| panic!("unknown binary op {name}"))
}
fn reduce_op(name: &str) -> ReduceOp {
    *REDUCE.iter().find(|o| o.name() == name).unwrap_or_else(|| panic!("unknown reduction {name}"))
}

fn parse_axes(s: &str) -> Axes {
    if s == "None" {
        Axes::All
    } else {
        Axes::Some(s.split(',').map(|t| t.parse().unwrap()).collect())
    }
}

// ------------------------------------------------------------------ sorting, selection, manipulation

fn opt_axis(case: &Case) -> Option<isize> {
    match case.param("axis") {
        "None" => None,
        s => Some(s.parse().unwrap_or_else(|_| panic!("{}: bad axis {s:?}", case.id))),
    }
}

fn arrays(x: &[Val]) -> Vec<&Array> {
    x.iter().map(|v| v.array()).collect()
}

/// The only array input, by value (for the operations that write into it).
fn into_array(v: Val) -> Array {
    match v {
        Val::A(a) => a,
        Val::S(s) => panic!("expected an array input, got the scalar {s:?}"),
    }
}

fn method(case: &Case) -> QuantileMethod {
    match case.param("method") {
        "linear" => QuantileMethod::Linear,
        "lower" => QuantileMethod::Lower,
        "higher" => QuantileMethod::Higher,
        "nearest" => QuantileMethod::Nearest,
        "midpoint" => QuantileMethod::Midpoint,
        m => panic!("{}: unknown method {m:?}", case.id),
    }
}

const ALL_LAYOUTS: &[Layout] = &[Layout::Contig, Layout::Strided, Layout::Transposed];
const CONTIG: &[Layout] = &[Layout::Contig];

cpu_test!(fixtures_cover_every_op);
/// The fixtures exist, parse, and cover every ufunc and reduction of the library.
fn fixtures_cover_every_op() {
    let fx = fixtures();
    let mut per_group: Vec<(String, usize)> = Vec::new();
    for c in &fx.cases {
        match per_group.iter_mut().find(|(g, _)| *g == c.group) {
            Some((_, n)) => *n += 1,
            None => per_group.push((c.group.clone(), 1)),
        }
        let mut tokens: Vec<&String> = c.inputs.iter().filter(|t| scalar_token(t).is_none()).collect();
        if let Expect::Arrays(w) = &c.expect {
            tokens.extend(w);
        }
        for t in tokens {
            blob(t);
        }
    }
    println!("{}: {} cases, {} blobs: {per_group:?}", fx.header, fx.cases.len(), fx.blobs.len());
    let has = |group: &str, op: &str| fx.cases.iter().any(|c| c.group == group && c.op == op);
    for op in UNARY {
        let any = has("unary", op.name()) || has("complex", op.name()) || has("special", op.name());
        assert!(any, "no unary case for {}", op.name());
    }
    for op in BINARY {
        assert!(has("binary", op.name()), "no binary case for {}", op.name());
    }
    for op in REDUCE {
        assert!(has("reduce", op.name()), "no reduction case for {}", op.name());
    }
    for g in [
        "unary",
        "binary",
        "scalar",
        "reduce",
        "astype",
        "creation",
        "view",
        "misc",
        "sort",
        "quantile",
        "unique",
        "select",
        "index",
        "manip",
        "signal",
        "ndimage_label",
        "ndimage_measure",
        "signal_nd",
        "ndimage_morph",
        "ndimage_rank",
        "io",
        "special",
        "stats",
    ] {
        assert!(per_group.iter().any(|(x, _)| x == g), "no {g} cases");
    }
    for op in [
        "minimum_filter1d",
        "maximum_filter1d",
        "minimum_filter",
        "maximum_filter",
        "median_filter",
        "rank_filter",
        "percentile_filter",
        "grey_erosion",
        "grey_dilation",
    ] {
        assert!(has("ndimage_rank", op), "no ndimage_rank case for {op}");
    }
    for op in ["convolve", "correlate", "convolve2d", "correlate2d"] {
        assert!(has("signal", op), "no signal case for {op}");
    }
    for op in ["convolve", "correlate"] {
        assert!(has("signal_nd", op), "no signal_nd case for {op}");
    }
    assert!(per_group.iter().any(|(x, _)| x == "ndimage_filters"), "no ndimage_filters cases");
    for op in ["read_fits", "load_npz", "write_fits", "write_fits_multi"] {
        assert!(has("io", op), "no io case for {op}");
    }
    for op in [
        "correlate",
        "convolve",
        "correlate1d",
        "convolve1d",
        "gaussian_filter1d",
        "gaussian_filter",
        "uniform_filter1d",
        "uniform_filter",
        "sobel",
        "prewitt",
        "laplace",
        "gaussian_laplace",
        "gaussian_gradient_magnitude",
    ] {
        assert!(has("ndimage_filters", op), "no ndimage_filters case for {op}");
    }
}
