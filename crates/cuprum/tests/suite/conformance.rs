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

fn run_unary(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    Ok(vec![cuprum::unary(unary_op(&case.op), x[0].array())?])
}

fn run_binary(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    Ok(vec![cuprum::binary(binary_op(&case.op), x[0].operand(), x[1].operand())?])
}

fn parse_axes(s: &str) -> Axes {
    if s == "None" {
        Axes::All
    } else {
        Axes::Some(s.split(',').map(|t| t.parse().unwrap()).collect())
    }
}

fn run_reduce(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let keepdims = case.param("keepdims") == "1";
    let ddof: f64 = case.num("ddof");
    Ok(vec![x[0].array().reduce(reduce_op(&case.op), parse_axes(case.param("axis")), keepdims, ddof)?])
}

fn run_astype(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    Ok(vec![x[0].array().astype(case.dtype("to"))?])
}

fn run_creation(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let dt = || case.dtype("dtype");
    let shape = || parse_shape(case.param("shape"));
    let one = |a: cuprum::Result<Array>| a.map(|a| vec![a]);
    match case.op.as_str() {
        "arange" if case.param("kind") == "int" => {
            one(cuprum::arange_with(case.num("start"), case.num("stop"), case.num("step"), dt(), dev))
        }
        "arange" => one(cuprum::arange_f(
            parse_f64(case.param("start")),
            parse_f64(case.param("stop")),
            parse_f64(case.param("step")),
            dt(),
            dev,
        )),
        "linspace" => one(cuprum::linspace_with(
            parse_f64(case.param("start")),
            parse_f64(case.param("stop")),
            case.num("num"),
            dt(),
            &cuprum::LinspaceOptions { endpoint: case.param("endpoint") == "1" },
            dev,
        )),
        "eye" => {
            let m = match case.param("m") {
                "None" => None,
                m => Some(m.parse().unwrap()),
            };
            one(cuprum::eye_with(case.num("n"), dt(), &cuprum::EyeOptions { m, k: case.num("k") }, dev))
        }
        "identity" => one(cuprum::identity(case.num("n"), dt(), dev)),
        "meshgrid" => {
            let x = inputs(case, dev, layout)?;
            let refs: Vec<&Array> = x.iter().map(|v| v.array()).collect();
            let ix = if case.param("indexing") == "xy" { Indexing::Xy } else { Indexing::Ij };
            // The fixed-size form for the counts the fixtures have, the slice form otherwise.
            match refs[..] {
                [a] => cuprum::meshgrid([a], ix).map(Vec::from),
                [a, b] => cuprum::meshgrid([a, b], ix).map(Vec::from),
                [a, b, c] => cuprum::meshgrid([a, b, c], ix).map(Vec::from),
                _ => cuprum::meshgrid_slice(&refs, ix),
            }
        }
        "zeros" => one(cuprum::zeros(&shape(), dt(), dev)),
        "ones" => one(cuprum::ones(&shape(), dt(), dev)),
        "full" => {
            let x = inputs(case, dev, layout)?;
            one(cuprum::full(&shape(), x[0].scalar(), dt(), dev))
        }
        op => panic!("unknown creation op {op}"),
    }
}

fn parse_index(s: &str) -> Vec<SliceElem> {
    let opt = |t: &str| -> Option<isize> {
        let t = t.trim();
        (!t.is_empty()).then(|| t.parse().unwrap())
    };
    s.split(',')
        .map(|t| t.trim())
        .map(|t| match t {
            "..." => SliceElem::Ellipsis,
            "None" => SliceElem::NewAxis,
            t if t.contains(':') => {
                let p: Vec<&str> = t.split(':').collect();
                SliceElem::Slice { start: opt(p[0]), end: opt(p[1]), step: p.get(2).and_then(|s| opt(s)).unwrap_or(1) }
            }
            t => SliceElem::Index(t.parse().unwrap()),
        })
        .collect()
}

/// Applies a view chain: `/`-separated steps, each `[numpy index]`, `T` or `name(ints)`.
fn apply_view(a: &Array, chain: &str) -> cuprum::Result<Array> {
    let mut a = a.view();
    for step in chain.split('/') {
        if let Some(ix) = step.strip_prefix('[') {
            a = a.slice(parse_index(ix.strip_suffix(']').unwrap()))?;
            continue;
        }
        if step == "T" {
            a = a.t();
            continue;
        }
        let (name, args) =
            step.strip_suffix(')').and_then(|s| s.split_once('(')).unwrap_or_else(|| panic!("bad view step {step:?}"));
        let args: Vec<isize> = args.split(',').filter(|t| !t.is_empty()).map(|t| t.trim().parse().unwrap()).collect();
        let usz = |v: &[isize]| -> Vec<usize> { v.iter().map(|&d| d as usize).collect() };
        a = match name {
            "reshape" => a.reshape(&args)?,
            "transpose" => a.permute(&args)?,
            "swapaxes" => a.swapaxes(args[0], args[1])?,
            "moveaxis" => a.moveaxis(args[0], args[1])?,
            "diagonal" => a.diagonal_with(args[0], args[1], args[2])?,
            "squeeze" if args.is_empty() => a.squeeze(),
            "squeeze" => a.squeeze_axes(&args)?,
            "expand_dims" => a.expand_dims(args[0])?,
            "broadcast_to" => a.broadcast_to(&usz(&args))?,
            "ravel" => a.ravel()?,
            "flatten" => a.flatten()?,
            _ => panic!("unknown view step {step:?}"),
        };
    }
    Ok(a)
}

fn run_view(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    Ok(vec![apply_view(x[0].array(), case.param("ops"))?])
}

fn bool_result(b: bool) -> cuprum::Result<Vec<Array>> {
    Ok(vec![cuprum::scalar(b, &Device::Cpu)?])
}

fn run_misc(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let tol = || (parse_f64(case.param("rtol")), parse_f64(case.param("atol")), case.param("equal_nan") == "1");
    let r = match case.op.as_str() {
        "isclose" => {
            let (r, a, e) = tol();
            cuprum::isclose_with(x[0].array(), x[1].array(), &cuprum::CloseOptions { rtol: r, atol: a, equal_nan: e })?
        }
        "allclose" => {
            let (r, a, e) = tol();
            let b = cuprum::allclose_with(
                x[0].array(),
                x[1].array(),
                &cuprum::CloseOptions { rtol: r, atol: a, equal_nan: e },
            )?;
            return bool_result(b).map(|v| v.into_iter().map(|a| a.to_device(dev).unwrap()).collect());
        }
        "array_equal" => {
            let b = cuprum::array_equal(x[0].array(), x[1].array())?;
            return bool_result(b).map(|v| v.into_iter().map(|a| a.to_device(dev).unwrap()).collect());
        }
        "where" => cuprum::where_(x[0].array(), x[1].operand(), x[2].operand())?,
        "clip" => cuprum::clip(x[0].array(), x[1].operand(), x[2].operand())?,
        "round" => cuprum::round(x[0].array(), case.num("decimals"))?,
        op => panic!("unknown misc op {op}"),
    };
    Ok(vec![r])
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

/// partition/argpartition cases compare what is well defined: the result sorted along the axis,
/// its kth element and, for argpartition, the sorted indices (a permutation of each lane).
fn run_sort(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let one = |a: cuprum::Result<Array>| a.map(|a| vec![a]);
    match case.op.as_str() {
        "sort" => one(cuprum::sort(x[0].array(), opt_axis(case))),
        "argsort" => one(cuprum::argsort(x[0].array(), opt_axis(case))),
        "searchsorted" => {
            let side = if case.param("side") == "left" { Side::Left } else { Side::Right };
            one(cuprum::searchsorted(x[0].array(), x[1].array(), side))
        }
        "partition" | "argpartition" => {
            let a = x[0].array();
            let (axis, kth): (Option<isize>, isize) = (opt_axis(case), case.num("kth"));
            let ax = axis.unwrap_or(-1);
            let r = if case.op == "partition" {
                cuprum::partition(a, kth, axis)?
            } else {
                let i = cuprum::argpartition(a, kth, axis)?;
                let src = if axis.is_none() { a.ravel()? } else { a.view() };
                let r = cuprum::take_along_axis(&src, &i, ax)?;
                let n = *r.shape().last().unwrap() as isize;
                let n =
                    if axis.is_none() { n } else { r.shape()[cuprum::layout::normalize_axis(ax, r.ndim())?] as isize };
                let k = cuprum::from_vec(vec![kth.rem_euclid(n) as i64], dev)?;
                return Ok(vec![cuprum::sort(&r, ax)?, cuprum::take(&r, &k, ax)?, cuprum::sort(&i, ax)?]);
            };
            let n = if axis.is_none() { r.size() } else { r.shape()[cuprum::layout::normalize_axis(ax, r.ndim())?] };
            let k = cuprum::from_vec(vec![kth.rem_euclid(n as isize) as i64], dev)?;
            Ok(vec![cuprum::sort(&r, ax)?, cuprum::take(&r, &k, ax)?])
        }
        "lexsort" => one(cuprum::lexsort(&arrays(&x))),
        op => panic!("unknown sort op {op}"),
    }
}

fn run_quantile(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let (a, axis) = (x[0].array(), opt_axis(case));
    let q = || parse_f64(case.param("q"));
    let r = match case.op.as_str() {
        "median" => cuprum::median(a, axis)?,
        "nanmedian" => cuprum::nanmedian(a, axis)?,
        "quantiles" => {
            let qs: Vec<f64> = case.param("q").split(',').map(parse_f64).collect();
            cuprum::quantiles_with(
                a,
                &qs,
                axis,
                &cuprum::QuantileOptions { method: method(case), ..Default::default() },
            )?
        }
        "quantile" => cuprum::quantile_with(
            a,
            q(),
            axis,
            &cuprum::QuantileOptions { method: method(case), ..Default::default() },
        )?,
        "percentile" => cuprum::percentile_with(
            a,
            q(),
            axis,
            &cuprum::QuantileOptions { method: method(case), ..Default::default() },
        )?,
        "nanquantile" => cuprum::nanquantile_with(
            a,
            q(),
            axis,
            &cuprum::QuantileOptions { method: method(case), ..Default::default() },
        )?,
        "nanpercentile" => cuprum::nanpercentile_with(
            a,
            q(),
            axis,
            &cuprum::QuantileOptions { method: method(case), ..Default::default() },
        )?,
        op => panic!("unknown quantile op {op}"),
    };
    Ok(vec![r])
}

fn run_unique(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let flag = |k: &str| case.param(k) == "1";
    let r = match case.op.as_str() {
        "unique" => {
            let u = cuprum::unique_with(
                x[0].array(),
                &cuprum::UniqueOptions {
                    return_index: flag("index"),
                    return_inverse: flag("inverse"),
                    return_counts: flag("counts"),
                },
            )?;
            let mut out = vec![u.values];
            out.extend([u.index, u.inverse, u.counts].into_iter().flatten());
            return Ok(out);
        }
        "bincount" => cuprum::bincount(x[0].array(), x.get(1).map(|w| w.array()), case.num("minlength"))?,
        "histogram" => {
            let mut rest = x[1..].iter();
            let bins = match case.param("bins") {
                "edges" => Bins::Edges(rest.next().expect("edges").array().to_vec_as::<f64>()?),
                n => Bins::Count(n.parse().unwrap()),
            };
            let range = match case.param("range") {
                "None" => None,
                r => {
                    let v: Vec<f64> = r.split(',').map(parse_f64).collect();
                    Some((v[0], v[1]))
                }
            };
            let w = if flag("weights") { Some(rest.next().expect("weights").array()) } else { None };
            let (h, e) = cuprum::histogram(x[0].array(), bins, range, w, flag("density"))?;
            return Ok(vec![h, e]);
        }
        "digitize" => cuprum::digitize(x[0].array(), x[1].array(), flag("right"))?,
        "isin" => cuprum::isin(x[0].array(), x[1].array())?,
        op => panic!("unknown unique op {op}"),
    };
    Ok(vec![r])
}

fn run_select(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let r = match case.op.as_str() {
        "mask" => x[0].array().mask(x[1].array())?,
        "compress" => cuprum::compress(x[0].array(), x[1].array(), opt_axis(case))?,
        "extract" => cuprum::extract(x[0].array(), x[1].array())?,
        "nonzero" => return cuprum::nonzero(x[0].array()),
        "flatnonzero" => cuprum::flatnonzero(x[0].array())?,
        "argwhere" => cuprum::argwhere(x[0].array())?,
        "cumsum" => cuprum::cumsum(x[0].array(), opt_axis(case))?,
        "cumprod" => cuprum::cumprod(x[0].array(), opt_axis(case))?,
        "diff" => cuprum::diff(x[0].array(), case.num("n"), case.num("axis"))?,
        op => panic!("unknown select op {op}"),
    };
    Ok(vec![r])
}

/// `put` and `add.at` return the array they wrote into (a fresh input in the case's layout).
fn run_index(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let mut x = inputs(case, dev, layout)?;
    let r = match case.op.as_str() {
        "take" => cuprum::take(x[0].array(), x[1].array(), opt_axis(case))?,
        "take_along_axis" => cuprum::take_along_axis(x[0].array(), x[1].array(), case.num::<isize>("axis"))?,
        "put" => {
            let rest = x.split_off(1);
            let mut a = into_array(x.pop().unwrap());
            cuprum::put(&mut a, rest[0].array(), rest[1].array())?;
            a
        }
        "add.at" => {
            let rest = x.split_off(1);
            let mut a = into_array(x.pop().unwrap());
            cuprum::scatter_add(&mut a, &arrays(&rest[1..]), rest[0].array())?;
            a
        }
        op => panic!("unknown index op {op}"),
    };
    Ok(vec![r])
}

fn run_manip(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let a = || x[0].array();
    let r = match case.op.as_str() {
        "concatenate" => cuprum::concatenate(&arrays(&x), case.num::<isize>("axis"))?,
        "stack" => cuprum::stack(&arrays(&x), case.num("axis"))?,
        "hstack" => cuprum::hstack(&arrays(&x))?,
        "vstack" => cuprum::vstack(&arrays(&x))?,
        "dstack" => cuprum::dstack(&arrays(&x))?,
        "split" | "array_split" => {
            let s = case.param("sections");
            let sections = match s.strip_prefix("i:") {
                Some(ix) => {
                    Sections::Indices(ix.split(',').filter(|t| !t.is_empty()).map(|t| t.parse().unwrap()).collect())
                }
                None => Sections::Count(s.parse().unwrap()),
            };
            let axis: isize = case.num("axis");
            return if case.op == "split" {
                cuprum::split(a(), sections, axis)
            } else {
                cuprum::array_split(a(), sections, axis)
            };
        }
        "flip" => cuprum::flip(a(), opt_axis(case))?,
        "roll" => cuprum::roll(a(), case.num("shift"), opt_axis(case))?,
        "tile" => cuprum::tile(a(), &parse_shape(case.param("reps")))?,
        "repeat" => cuprum::repeat(a(), case.num("repeats"), opt_axis(case))?,
        "pad" => {
            let width: Vec<(usize, usize)> = case
                .param("width")
                .split(',')
                .map(|p| {
                    let (b, f) = p.split_once(':').unwrap();
                    (b.parse().unwrap(), f.parse().unwrap())
                })
                .collect();
            let mode = match case.param("mode") {
                "constant" => PadMode::Constant(x[1].scalar()),
                "edge" => PadMode::Edge,
                "reflect" => PadMode::Reflect,
                "symmetric" => PadMode::Symmetric,
                "wrap" => PadMode::Wrap,
                m => panic!("unknown pad mode {m}"),
            };
            cuprum::pad(a(), &width, mode)?
        }
        "atleast_1d" => cuprum::atleast_1d(a())?,
        "atleast_2d" => cuprum::atleast_2d(a())?,
        "atleast_3d" => cuprum::atleast_3d(a())?,
        op => panic!("unknown manip op {op}"),
    };
    Ok(vec![r])
}

// ------------------------------------------------------------------ signal

/// `np.convolve`/`np.correlate` (`mode=`) and `scipy.signal.convolve2d`/`correlate2d` (`mode=`,
/// `boundary=`, `fillvalue=`): the mode and boundary names are parsed with `FromStr`, so that a
/// name NumPy or SciPy refuses must give an error of the kind they raise.
fn run_signal(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::scipy::signal::{convolve2d_with, correlate2d_with, Convolve2dOptions};
    let x = inputs(case, dev, layout)?;
    let (a, b) = (x[0].array(), x[1].array());
    let mode: ConvolveMode = case.param("mode").parse()?;
    let r = match case.op.as_str() {
        "convolve" => cuprum::convolve(a, b, mode)?,
        "correlate" => cuprum::correlate(a, b, mode)?,
        "convolve2d" | "correlate2d" => {
            let boundary: Boundary = case.param("boundary").parse()?;
            let fill = parse_f64(case.param("fillvalue"));
            let f = if case.op == "convolve2d" { convolve2d_with } else { correlate2d_with };
            f(a, b, &Convolve2dOptions { mode, boundary, fillvalue: fill })?
        }
        op => panic!("unknown signal op {op}"),
    };
    Ok(vec![r])
}

/// `scipy.ndimage.label(input, structure)` (`structure=none|given`, the structure the second
/// operand): the labels and the count, as a 0-d int64 array.
fn run_ndimage_label(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let structure = if case.param("structure") == "given" { Some(x[1].array()) } else { None };
    let (lab, n) =
        cuprum::scipy::ndimage::label_with(x[0].array(), &cuprum::scipy::ndimage::LabelOptions { structure })?;
    Ok(vec![lab, cuprum::scalar(n as i64, dev)?])
}

/// `scipy.ndimage`'s measurements (`labels=yes|no`; `index=none|scalar` (`v=`) `|array` (the
/// last operand)): positions and centres of mass as arrays `[.., ndim]`, `extrema` as its four
/// arrays, `find_objects` as `[max_label, ndim, 2]` (start, stop; -1 for an absent label),
/// `labeled_comprehension` with `max - min` (float64, default -1).
fn run_ndimage_measure(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::scipy::ndimage as ndi;
    use cuprum::scipy::ndimage::Index;
    let x = inputs(case, dev, layout)?;
    if case.op == "find_objects" {
        let l = x[0].array();
        let r = ndi::find_objects(l, case.num("max_label"))?;
        let nd = l.ndim();
        let mut v = Vec::new();
        for o in &r {
            for d in 0..nd {
                match o {
                    Some(rs) => v.extend([rs[d].start as i64, rs[d].end as i64]),
                    None => v.extend([-1, -1]),
                }
            }
        }
        return Ok(vec![cuprum::from_slice(&v, &[r.len(), nd, 2], dev)?]);
    }
    if case.op == "pipeline" {
        // The lessons' four steps: clip (median, std, compress until stable), segment at 5
        // sigma, label, measure.
        let sky = x[0].array();
        let mut flat = sky.ravel()?;
        loop {
            let med = flat.median(None)?.item::<f64>()?;
            let std = flat.std(None, 0.0)?.item::<f64>()?;
            let lower = flat.mask(&flat.greater(med - 3.0 * std)?)?;
            let both = lower.mask(&lower.less(med + 3.0 * std)?)?;
            if both.size() == flat.size() {
                break;
            }
            flat = both;
        }
        // NumPy: 5 * np.float32 is float32.
        let thr = (5.0 * flat.std(None, 0.0)?.item::<f64>()?) as f32;
        let seg = cuprum::where_(&sky.greater(thr as f64)?, 1i64, 0i64)?;
        let (lab, n) = ndi::label(&seg)?;
        let idx = Index::from(1..=n as i64);
        let com = ndi::center_of_mass(sky, Some(&lab), idx.clone())?;
        let flux = ndi::sum_labels(sky, Some(&lab), idx)?;
        return Ok(vec![cuprum::scalar(thr, dev)?, cuprum::scalar(n as i64, dev)?, lab, com, flux]);
    }
    let has_labels = case.param("labels") == "yes";
    let labels = if has_labels { Some(x[1].array()) } else { None };
    let index = match case.param("index") {
        "none" => Index::All,
        "scalar" => Index::Label(case.num("v")),
        _ => Index::from_array(x[x.len() - 1].array())?,
    };
    let a = x[0].array();
    let one = |r: Array| Ok(vec![r]);
    match case.op.as_str() {
        "sum_labels" => one(ndi::sum_labels(a, labels, index)?),
        "sum" => one(ndi::sum(a, labels, index)?),
        "mean" => one(ndi::mean(a, labels, index)?),
        "variance" => one(ndi::variance(a, labels, index)?),
        "standard_deviation" => one(ndi::standard_deviation(a, labels, index)?),
        "minimum" => one(ndi::minimum(a, labels, index)?),
        "maximum" => one(ndi::maximum(a, labels, index)?),
        "median" => one(ndi::median(a, labels, index)?),
        "minimum_position" => one(ndi::minimum_position(a, labels, index)?),
        "maximum_position" => one(ndi::maximum_position(a, labels, index)?),
        "center_of_mass" => one(ndi::center_of_mass(a, labels, index)?),
        "extrema" => {
            let (mn, mx, pmn, pmx) = ndi::extrema(a, labels, index)?;
            Ok(vec![mn, mx, pmn, pmx])
        }
        "histogram" => {
            let (lo, hi, bins) = (parse_f64(case.param("min")), parse_f64(case.param("max")), case.num("bins"));
            one(ndi::histogram(a, lo, hi, bins, labels, index)?)
        }
        "labeled_comprehension" => {
            let spread = |v: &[f64]| {
                v.iter().cloned().fold(f64::NEG_INFINITY, f64::max) - v.iter().cloned().fold(f64::INFINITY, f64::min)
            };
            one(ndi::labeled_comprehension(a, labels, index, spread, -1.0)?)
        }
        op => panic!("unknown measurement {op}"),
    }
}

// ------------------------------------------------------------------ signal_nd

/// `scipy.signal.convolve`/`correlate` (N-d; `mode=`, `method=`): the names are parsed with
/// `FromStr`, so that a name SciPy refuses must give an error of its kind.
fn run_signal_nd(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::scipy::signal::{convolve_with, correlate_with, Method};
    let x = inputs(case, dev, layout)?;
    let (a, b) = (x[0].array(), x[1].array());
    let mode: ConvolveMode = case.param("mode").parse()?;
    let method: Method = case.param("method").parse()?;
    let r = match case.op.as_str() {
        "convolve" => convolve_with(a, b, &cuprum::scipy::signal::ConvolveOptions { mode, method })?,
        "correlate" => correlate_with(a, b, &cuprum::scipy::signal::ConvolveOptions { mode, method })?,
        op => panic!("unknown signal_nd op {op}"),
    };
    Ok(vec![r])
}
// ---- ndimage linear filters
/// `scipy.ndimage`'s linear filters: the params are ndimage's keywords (lists space-separated,
/// `None` for absent), the weights of `correlate`/`convolve` the second input; mode names are
/// parsed with `FromStr`, so that a name SciPy refuses gives its RuntimeError.
fn run_ndimage_filters(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::scipy::ndimage as ndi;
    let x = inputs(case, dev, layout)?;
    let a = x[0].array();
    let list = |k: &str| -> Vec<String> {
        match case.param_opt(k) {
            None | Some("None") => Vec::new(),
            Some(v) => v.split_whitespace().map(str::to_string).collect(),
        }
    };
    let ints = |k: &str| -> Vec<isize> { list(k).iter().map(|v| v.parse().unwrap()).collect() };
    let floats = |k: &str| -> Vec<f64> { list(k).iter().map(|v| parse_f64(v)).collect() };
    let modes: Vec<ndi::Mode> = list("mode").iter().map(|m| m.parse()).collect::<cuprum::Result<_>>()?;
    let mut o =
        ndi::FilterOptions { cval: parse_f64(case.param("cval")), origin: ints("origin"), ..Default::default() };
    if modes.len() == 1 {
        o.mode = modes[0];
    } else {
        o.modes = modes;
    }
    if case.param_opt("axes").is_some() {
        o.axes = Some(ints("axes"));
    }
    if case.param("output") != "None" {
        o.output = Some(case.dtype("output"));
    }
    o.order = ints("order").into_iter().map(|v| v as usize).collect();
    if let Some(t) = case.param_opt("truncate") {
        o.truncate = parse_f64(t);
    }
    if case.param_opt("radius").is_some_and(|r| r != "None") {
        o.radius = Some(ints("radius").into_iter().map(|v| v as usize).collect());
    }
    let axis = || case.num::<isize>("axis");
    let sigma = floats("sigma");
    let size: Vec<usize> = ints("size").into_iter().map(|v| v as usize).collect();
    let r = match case.op.as_str() {
        "correlate" => ndi::correlate_with(a, x[1].array(), &o)?,
        "convolve" => ndi::convolve_with(a, x[1].array(), &o)?,
        "correlate1d" => ndi::correlate1d_with(a, &floats("w"), axis(), &o)?,
        "convolve1d" => ndi::convolve1d_with(a, &floats("w"), axis(), &o)?,
        "gaussian_filter1d" => ndi::gaussian_filter1d_with(a, sigma[0], axis(), &o)?,
        "gaussian_filter" => ndi::gaussian_filter_with(a, &sigma, &o)?,
        "uniform_filter1d" => ndi::uniform_filter1d_with(a, size[0], axis(), &o)?,
        "uniform_filter" => ndi::uniform_filter_with(a, &size, &o)?,
        "sobel" => ndi::sobel_with(a, axis(), &o)?,
        "prewitt" => ndi::prewitt_with(a, axis(), &o)?,
        "laplace" => ndi::laplace_with(a, &o)?,
        "gaussian_laplace" => ndi::gaussian_laplace_with(a, &sigma, &o)?,
        "gaussian_gradient_magnitude" => ndi::gaussian_gradient_magnitude_with(a, &sigma, &o)?,
        op => panic!("unknown ndimage_filters op {op}"),
    };
    Ok(vec![r])
}
// ---- end ndimage linear filters
// ------------------------------------------------------------------ ndimage_morph

/// `scipy.ndimage`'s binary morphology. Params: `it` (iterations), `bv` (border_value),
/// `origin` ('.'-separated; one value: every axis), `s`/`m` (1: the next input is the
/// structure / the mask).
fn run_ndimage_morph(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::scipy::ndimage as ndi;
    let x = inputs(case, dev, layout)?;
    let flag = |k: &str| case.param_opt(k) == Some("1");
    let origin: Vec<i64> = match case.param_opt("origin") {
        Some(o) if !o.is_empty() => o.split('.').map(|v| v.parse().expect("origin")).collect(),
        _ => Vec::new(),
    };
    let mut next = 1;
    let mut take = |present: bool| {
        if present {
            next += 1;
            Some(x[next - 1].array())
        } else {
            None
        }
    };
    let a = x[0].array();
    let r = match case.op.as_str() {
        "iterate_structure" => ndi::iterate_structure(a, case.num("it"))?,
        "binary_fill_holes" => ndi::binary_fill_holes(a, take(flag("s")), &origin)?,
        op => {
            let structure = take(flag("s"));
            let mask = take(flag("m"));
            let o = ndi::BinaryOptions {
                structure,
                iterations: case.num("it"),
                mask,
                border_value: case.param("bv") == "1",
                origin,
            };
            match op {
                "binary_erosion" => ndi::binary_erosion_with(a, &o)?,
                "binary_dilation" => ndi::binary_dilation_with(a, &o)?,
                "binary_opening" => ndi::binary_opening_with(a, &o)?,
                "binary_closing" => ndi::binary_closing_with(a, &o)?,
                op => panic!("unknown ndimage_morph op {op}"),
            }
        }
    };
    Ok(vec![r])
}

// ------------------------------------------------------------------ ndimage_rank

/// `scipy.ndimage`'s rank filters and grey morphology: `size`/`axes`/`origin` comma lists
/// (empty: none), `fp`/`st` (the footprint, then the structure, follow the input), `mode`,
/// `cval`, and `rank`, `percentile` or `axis` where the op takes one.
fn run_ndimage_rank(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::scipy::ndimage::{self as ndi, GreyWindow, Mode, RankOptions, Window};
    let x = inputs(case, dev, layout)?;
    let list = |k: &str| -> Vec<i64> {
        let s = case.param(k);
        if s.is_empty() {
            vec![]
        } else {
            s.split(',').map(|t| t.parse().unwrap()).collect()
        }
    };
    let a = x[0].array();
    let mut next = 1;
    let fp = if case.param("fp") == "1" {
        next += 1;
        Some(x[1].array())
    } else {
        None
    };
    let st = if case.param("st") == "1" { Some(x[next].array()) } else { None };
    let mode: Mode = case.param("mode").parse()?;
    let sizes: Vec<usize> = list("size").into_iter().map(|v| v as usize).collect();
    let axes = list("axes");
    let o = RankOptions {
        mode,
        cval: parse_f64(case.param("cval")),
        origin: list("origin").into_iter().map(|v| v as isize).collect(),
        axes: if axes.is_empty() { None } else { Some(axes.into_iter().map(|v| v as isize).collect()) },
    };
    let w = match fp {
        Some(f) => Window::Footprint(f),
        None => Window::Size(&sizes),
    };
    let r = match case.op.as_str() {
        "minimum_filter1d" => ndi::minimum_filter1d_with(a, sizes[0], case.num::<isize>("axis"), &o)?,
        "maximum_filter1d" => ndi::maximum_filter1d_with(a, sizes[0], case.num::<isize>("axis"), &o)?,
        "minimum_filter" => ndi::minimum_filter_with(a, w, &o)?,
        "maximum_filter" => ndi::maximum_filter_with(a, w, &o)?,
        "median_filter" => ndi::median_filter_with(a, w, &o)?,
        "rank_filter" => ndi::rank_filter_with(a, case.num::<i64>("rank"), w, &o)?,
        "percentile_filter" => ndi::percentile_filter_with(a, parse_f64(case.param("percentile")), w, &o)?,
        "grey_erosion" | "grey_dilation" => {
            let gw =
                GreyWindow { size: if sizes.is_empty() { None } else { Some(&sizes) }, footprint: fp, structure: st };
            if case.op == "grey_erosion" {
                ndi::grey_erosion_with(a, gw, &o)?
            } else {
                ndi::grey_dilation_with(a, gw, &o)?
            }
        }
        op => panic!("unknown ndimage_rank op {op}"),
    };
    Ok(vec![r])
}

// ------------------------------------------------------------------ tests

/// cuprum::io (group `io`): `read_fits` (`file` under the fixtures directory, `hdu=None|<n>`,
/// `scale=0|1`; astropy's `getdata`), `load_npz` (`names`: NumPy's `files`, checked; the
/// arrays in that order), and `write_fits` / `write_fits_multi` (the inputs written by cuprum
/// must be the bytes astropy read, by their `sha256`; cuprum reads them back: astropy's arrays).
fn run_io(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::io::{self, FitsReadOptions};
    let file = || common::fixtures_dir().join(case.param("file"));
    match case.op.as_str() {
        "read_fits" => {
            let hdu = match case.param("hdu") {
                "None" => None,
                n => Some(n.parse().expect("hdu")),
            };
            let opts = FitsReadOptions { hdu, scale: case.param("scale") == "1", device: *dev };
            Ok(vec![io::read_fits_with(file(), &opts)?.data])
        }
        "load_npz" => {
            let npz = io::load_npz(file(), dev)?;
            let want: Vec<&str> = case.param("names").split(',').filter(|n| !n.is_empty()).collect();
            assert_eq!(npz.names(), want, "{}: names", case.id);
            Ok(npz.into_vec().into_iter().map(|(_, a)| a).collect())
        }
        "write_fits" | "write_fits_multi" => {
            // cuprum's bytes must be those astropy read (their SHA-256 is in the manifest).
            let x = inputs(case, dev, layout)?;
            let bytes = if case.op == "write_fits" {
                io::fits::fits_to_bytes(&[io::FitsHdu::image(x[0].array())])?
            } else {
                crate::io::multi_fits(x[0].array(), x[1].array())?
            };
            assert_eq!(
                crate::io::sha256_hex(&bytes),
                case.param("sha256"),
                "{}: cuprum no longer writes the bytes astropy checked: run `python3 scripts/gen_fixtures.py --only io`",
                case.id
            );
            let read =
                |hdu| io::fits::fits_from_bytes(&bytes, &FitsReadOptions { hdu, device: *dev, ..Default::default() });
            if case.op == "write_fits" {
                Ok(vec![read(None)?.data])
            } else {
                Ok(vec![read(Some(1))?.data, read(Some(2))?.data])
            }
        }
        op => panic!("unknown io op {op}"),
    }
}

const ALL_LAYOUTS: &[Layout] = &[Layout::Contig, Layout::Strided, Layout::Transposed];
const CONTIG: &[Layout] = &[Layout::Contig];

device_test!(unary, |dev| {
    run_group("unary", &dev, ALL_LAYOUTS, run_unary);
    Ok(())
});

// scipy.special's ufuncs: the unary group's runner, SciPy's values.
device_test!(special, |dev| {
    run_group("special", &dev, ALL_LAYOUTS, run_unary);
    Ok(())
});

// scipy.stats.norm with loc and scale.
device_test!(stats, |dev| {
    run_group("stats", &dev, ALL_LAYOUTS, run_stats);
    Ok(())
});

fn run_stats(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let d = cuprum::scipy::stats::norm(parse_f64(case.param("loc")), parse_f64(case.param("scale")));
    let x = x[0].array();
    Ok(vec![match case.op.as_str() {
        "pdf" => d.pdf(x)?,
        "logpdf" => d.logpdf(x)?,
        "cdf" => d.cdf(x)?,
        "sf" => d.sf(x)?,
        "ppf" => d.ppf(x)?,
        "isf" => d.isf(x)?,
        op => panic!("unknown stats op {op}"),
    }])
}

device_test!(binary, |dev| {
    run_group("binary", &dev, ALL_LAYOUTS, run_binary);
    Ok(())
});

device_test!(scalars, |dev| {
    run_group("scalar", &dev, &[Layout::Contig, Layout::Strided], run_binary);
    Ok(())
});

device_test!(reductions, |dev| {
    run_group("reduce", &dev, &[Layout::Contig, Layout::Transposed], run_reduce);
    Ok(())
});

device_test!(complex, |dev| {
    run_group("complex", &dev, &[Layout::Contig, Layout::Strided, Layout::Transposed], run_complex);
    Ok(())
});

/// The complex group: each case names its kind (a ufunc, a reduction, a cast, or a part).
fn run_complex(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    match case.param("kind") {
        "unary" => run_unary(case, dev, layout),
        "binary" => run_binary(case, dev, layout),
        "reduce" => {
            let x = inputs(case, dev, layout)?;
            let keepdims = case.param("keepdims") == "1";
            let a = x[0].array();
            Ok(vec![a.reduce(reduce_op(&case.op), parse_axes(case.param("axis")), keepdims, case.num("ddof"))?])
        }
        "astype" => run_astype(case, dev, layout),
        "view" => {
            let x = inputs(case, dev, layout)?;
            let a = x[0].array();
            Ok(vec![match case.op.as_str() {
                "real" => a.real(),
                "imag" => a.imag()?,
                "angle" => a.angle(false)?,
                "conj" => a.conj()?,
                op => panic!("unknown complex view {op}"),
            }])
        }
        k => panic!("unknown complex case kind {k}"),
    }
}

device_test!(random, |dev| {
    run_group("random", &dev, &[Layout::Contig], run_random);
    Ok(())
});

/// The random group: NumPy's SeedSequence states, and sequences of calls on one
/// `Generator(Philox(seed))` (see `gen_random` in the script), each call's array compared
/// exactly. The host-side results (SeedSequence states, `random_raw`) are moved to `dev`.
fn run_random(case: &Case, dev: &Device, _layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::random::{Generator, Philox, Seed, SeedSequence};
    let seed = |s: &str| -> Seed {
        let v: Vec<u128> = s.split('_').map(|x| x.parse().unwrap()).collect();
        if v.len() == 1 {
            Seed::Int(v[0])
        } else {
            Seed::Seq(v)
        }
    };
    if case.op == "chi2" {
        return random_chi2(case, dev);
    }
    let sd = seed(case.param("seed"));
    let host = |v: Vec<u32>| cuprum::from_vec(v, dev);
    match case.op.as_str() {
        "seedseq" => {
            let s = SeedSequence::new(sd)?;
            let n: usize = case.num("n");
            Ok(vec![match case.param("dtype") {
                "uint32" => host(s.generate_state_u32(n))?,
                _ => cuprum::from_vec(s.generate_state_u64(n), dev)?,
            }])
        }
        "calls" => {
            let mut g = Generator::new(Philox::new(sd)?, dev);
            let mut out = Vec::new();
            for call in case.param("calls").split('+') {
                let f: Vec<&str> = call.split('/').collect();
                let num = |i: usize| f[i].parse::<i128>().unwrap();
                let n = [f[f.len() - 1].parse::<usize>().unwrap()];
                match f[0] {
                    "random" => out.push(g.random(&n, DType::from_name(f[1]).unwrap())?),
                    "uniform" => out.push(g.uniform(f[1].parse().unwrap(), f[2].parse().unwrap(), &n)?),
                    "integers" => {
                        let dt = DType::from_name(f[3]).unwrap();
                        out.push(g.integers(num(1), Some(num(2)), &n, dt, f[4] == "1")?)
                    }
                    "raw" => out.push(cuprum::from_vec(g.bit_generator_mut().random_raw(n[0]), dev)?),
                    "advance" => {
                        g.bit_generator_mut().advance(num(1) as u64);
                    }
                    "choice" => {
                        let pop = num(1) as usize;
                        let p = (f[3] == "1").then(|| choice_p(pop, dev)).transpose()?;
                        out.push(g.choice_index(pop, &n, f[2] == "1", p.as_ref())?)
                    }
                    k => panic!("unknown random call {k}"),
                }
            }
            Ok(out)
        }
        op => panic!("unknown random case {op}"),
    }
}

/// The fixtures' weights of `choice` (the script's CHOICE_P[:pop], normalised).
fn choice_p(pop: usize, dev: &Device) -> cuprum::Result<Array> {
    let w: Vec<f64> = (0..pop).map(|k| 1.0 + ((k * 7919) % 13) as f64).collect();
    let total: f64 = w.iter().sum();
    cuprum::from_vec(w.iter().map(|x| x / total).collect::<Vec<f64>>(), dev)
}

/// A distribution's sample against SciPy's bins (see `gen_random_stats` in the script): a
/// fresh seed each run, `n` draws on `dev`, the chi-square statistic over the bins and the
/// z-score of the sample mean; returns max(chi-square, critical) and max(|z|, 6), which equal
/// the fixture's (critical, 6) exactly when the sample passes.
fn random_chi2(case: &Case, dev: &Device) -> cuprum::Result<Vec<Array>> {
    let ins = inputs(case, &Device::Cpu, Layout::Contig)?;
    let edges = ins[0].array().to_vec::<f64>()?;
    let probs = ins[1].array().to_vec::<f64>()?;
    let f = |v: &Val| match v.scalar() {
        Scalar::Float(x) => x,
        s => panic!("{}: expected a float, got {s:?}", case.id),
    };
    let (crit, mean, sd) = (f(&ins[2]), f(&ins[3]), f(&ins[4]));
    let n: usize = case.num("n");
    let args: Vec<f64> = case.param("args").split('_').filter(|x| !x.is_empty()).map(parse_f64).collect();
    let dtype = case.dtype("dtype");
    let stream = case.id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    let seed = crate::common::Rng::new(stream).next_u64();
    let mut g = cuprum::random::default_rng(seed)?.on(dev);
    let size = [n];
    let x = match case.param("dist") {
        "standard_exponential" => g.standard_exponential(&size, dtype)?,
        "exponential" => g.exponential(args[0], &size)?,
        "standard_gamma" => g.standard_gamma(args[0], &size, dtype)?,
        "gamma" => g.gamma(args[0], args[1], &size)?,
        "beta" => g.beta(args[0], args[1], &size)?,
        "lognormal" => g.lognormal(args[0], args[1], &size)?,
        "standard_normal" => g.standard_normal(&size, dtype)?,
        "poisson" => g.poisson(args[0], &size)?,
        "binomial" => g.binomial(args[0] as i64, args[1], &size)?,
        "choice_p" => g.choice_index(args[0] as usize, &size, true, Some(&choice_p(args[0] as usize, dev)?))?,
        d => panic!("unknown distribution {d}"),
    };
    assert_eq!((x.dtype(), x.device()), (dtype, *dev), "{}", case.id);
    let v = x.astype(DType::Float64)?.to_vec::<f64>()?;
    let mut counts = vec![0f64; probs.len()];
    for &y in &v {
        // bin j: edges[j] <= y < edges[j + 1]
        let j = edges.partition_point(|&e| e <= y);
        assert!(j >= 1 && j <= probs.len(), "{}: {y} outside the support", case.id);
        counts[j - 1] += 1.0;
    }
    let chi2: f64 = counts.iter().zip(&probs).map(|(c, p)| (c - n as f64 * p).powi(2) / (n as f64 * p)).sum();
    let m = v.iter().sum::<f64>() / n as f64;
    let z = (m - mean).abs() / (sd / (n as f64).sqrt());
    if chi2 > crit || z.is_nan() || z > 6.0 {
        eprintln!("{} (seed {seed}): chi2 {chi2} (critical {crit}), mean {m} (expected {mean}, z {z})", case.id);
    }
    let h = |x: f64| cuprum::from_vec(vec![x], dev).and_then(|a| a.reshape(Vec::<usize>::new()));
    Ok(vec![h(chi2.max(crit))?, h(if z <= 6.0 { 6.0 } else { z })?])
}

device_test!(fft, |dev| {
    run_group("fft", &dev, &[Layout::Contig, Layout::Strided], run_fft);
    Ok(())
});

/// The fft group: NumPy's function on the input, with `n`/`axis` or `s`/`axes` and `norm`.
fn run_fft(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::fft::{self, Norm};
    let list = |k: &str| -> Option<Vec<isize>> {
        match case.param(k) {
            "None" => None,
            v => Some(v.split('_').map(|t| t.parse().unwrap()).collect()),
        }
    };
    let norm = || -> Norm { case.param("norm").parse().unwrap() };
    match case.op.as_str() {
        "fftfreq" => return Ok(vec![fft::fftfreq(case.num("n"), parse_f64(case.param("d")), dev)?]),
        "rfftfreq" => return Ok(vec![fft::rfftfreq(case.num("n"), parse_f64(case.param("d")), dev)?]),
        _ => {}
    }
    let ins = inputs(case, dev, layout)?;
    let x = ins[0].array();
    let su: Option<Vec<usize>> =
        case.param_opt("s").and_then(|_| list("s")).map(|v| v.iter().map(|&t| t as usize).collect());
    let s = su.as_deref();
    let axes = case.param_opt("axes").and_then(|_| list("axes"));
    let one = |f: fn(&Array, &fft::FftOptions) -> cuprum::Result<Array>| {
        let n = list("n").map(|v| v[0] as usize);
        f(x, &fft::FftOptions { n, axis: case.num("axis"), norm: norm() })
    };
    let out = match case.op.as_str() {
        "fft" => one(fft::fft_with)?,
        "ifft" => one(fft::ifft_with)?,
        "rfft" => one(fft::rfft_with)?,
        "irfft" => one(fft::irfft_with)?,
        "hfft" => one(fft::hfft_with)?,
        "ihfft" => one(fft::ihfft_with)?,
        "fftn" => fft::fftn_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "ifftn" => fft::ifftn_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "rfftn" => fft::rfftn_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "irfftn" => fft::irfftn_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "fft2" => fft::fft2_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "ifft2" => fft::ifft2_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "rfft2" => fft::rfft2_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "irfft2" => fft::irfft2_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "fftshift" => fft::fftshift(x, axes.as_deref())?,
        "ifftshift" => fft::ifftshift(x, axes.as_deref())?,
        op => panic!("unknown fft op {op}"),
    };
    Ok(vec![out])
}

device_test!(signal_fft, |dev| {
    run_group("signal_fft", &dev, &[Layout::Contig, Layout::Strided], run_signal_fft);
    Ok(())
});

/// scipy.signal's FFT convolutions: `fftconvolve`/`oaconvolve` with `mode` and `axes`, and
/// `convolve`/`correlate` with `method`.
fn run_signal_fft(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::scipy::signal::{convolve_with, correlate_with, fftconvolve_with, oaconvolve_with, Method};
    let x = inputs(case, dev, layout)?;
    let (a, b) = (x[0].array(), x[1].array());
    let mode: ConvolveMode = case.param("mode").parse()?;
    let axes: Option<Vec<isize>> = match case.param("axes") {
        "None" => None,
        v => Some(v.split('_').map(|t| t.parse().unwrap()).collect()),
    };
    let r = match case.op.as_str() {
        "fftconvolve" => {
            fftconvolve_with(a, b, &cuprum::scipy::signal::FftConvolveOptions { mode, axes: axes.as_deref() })?
        }
        "oaconvolve" => {
            oaconvolve_with(a, b, &cuprum::scipy::signal::FftConvolveOptions { mode, axes: axes.as_deref() })?
        }
        "convolve" => convolve_with(
            a,
            b,
            &cuprum::scipy::signal::ConvolveOptions { mode, method: case.param("method").parse::<Method>()? },
        )?,
        "correlate" => correlate_with(
            a,
            b,
            &cuprum::scipy::signal::ConvolveOptions { mode, method: case.param("method").parse::<Method>()? },
        )?,
        op => panic!("unknown signal_fft op {op}"),
    };
    Ok(vec![r])
}

device_test!(linalg, |dev| {
    run_group("linalg", &dev, &[Layout::Contig, Layout::Strided, Layout::Transposed], run_linalg);
    Ok(())
});

/// A `norm`/`cond` order parameter (`None`, `fro`, `nuc` or a number).
fn norm_ord(s: &str) -> Option<cuprum::linalg::NormOrd> {
    use cuprum::linalg::NormOrd;
    match s {
        "None" => None,
        "fro" => Some(NormOrd::Fro),
        "nuc" => Some(NormOrd::Nuc),
        p => Some(NormOrd::P(p.parse().expect("a numeric order"))),
    }
}

/// The linalg group: `op` is numpy's function name.
fn run_linalg(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::linalg::{self, TensorAxes, Uplo};
    let x = inputs(case, dev, layout)?;
    let a = x[0].array();
    let b = || x[1].array();
    let ints = |s: &str| -> Vec<isize> { s.split(',').map(|v| v.parse().expect("an axis")).collect() };
    Ok(match case.op.as_str() {
        "matmul" => vec![cuprum::matmul(a, b())?],
        "dot" => vec![cuprum::dot(a, b())?],
        "vdot" => vec![cuprum::vdot(a, b())?],
        "inner" => vec![cuprum::inner(a, b())?],
        "outer" => vec![cuprum::outer(a, b())?],
        "kron" => vec![cuprum::kron(a, b())?],
        "trace" => vec![cuprum::trace(a, 0, -2, -1)?],
        "tensordot" => {
            let axes = match case.param("axes").split_once(':') {
                Some((l, r)) => TensorAxes::Pairs(ints(l), ints(r)),
                None => TensorAxes::N(case.num("axes")),
            };
            vec![cuprum::tensordot(a, b(), axes)?]
        }
        "einsum" => {
            let ops: Vec<&Array> = x.iter().map(|v| v.array()).collect();
            vec![cuprum::einsum(case.param("subs"), &ops)?]
        }
        "matrix_power" => vec![linalg::matrix_power(a, case.num("n"))?],
        "det" => vec![linalg::det(a)?],
        "slogdet" => {
            let r = linalg::slogdet(a)?;
            vec![r.sign, r.logabsdet]
        }
        "inv" => vec![linalg::inv(a)?],
        "solve" => vec![linalg::solve(a, b())?],
        "cholesky" => vec![linalg::cholesky(a, case.param("upper") == "1")?],
        "eigvalsh" => vec![linalg::eigvalsh(a, if case.param("uplo") == "L" { Uplo::L } else { Uplo::U })?],
        "eigvals" => vec![linalg::eigvals(a)?],
        "svdvals" => vec![linalg::svdvals(a)?],
        "norm" => {
            let axis = match case.param("axis") {
                "None" => None,
                s => Some(ints(s)),
            };
            vec![linalg::norm_with(
                a,
                &linalg::NormOptions {
                    ord: norm_ord(case.param("ord")),
                    axis: axis.as_deref(),
                    keepdims: case.param("keepdims") == "1",
                },
            )?]
        }
        "cond" => vec![linalg::cond(a, norm_ord(case.param("ord")))?],
        "matrix_rank" => vec![linalg::matrix_rank(a, None, false)?],
        "pinv" => vec![linalg::pinv(a, None, false)?],
        "lstsq" => {
            let r = linalg::lstsq(a, b(), None)?;
            // NumPy returns the rank as LAPACK's int (int32); cuprum as a usize.
            let rank = cuprum::from_vec(vec![r.rank as i32], dev)?.reshape(Vec::<usize>::new())?;
            vec![r.x, r.residuals, rank, r.s]
        }
        op => panic!("unknown linalg op {op}"),
    })
}

device_test!(astype, |dev| {
    run_group("astype", &dev, &[Layout::Contig, Layout::Strided], run_astype);
    Ok(())
});

device_test!(creation, |dev| {
    run_group("creation", &dev, CONTIG, run_creation);
    Ok(())
});

device_test!(views, |dev| {
    run_group("view", &dev, CONTIG, run_view);
    Ok(())
});

device_test!(misc, |dev| {
    run_group("misc", &dev, &[Layout::Contig, Layout::Strided], run_misc);
    Ok(())
});

device_test!(sorting, |dev| {
    run_group("sort", &dev, ALL_LAYOUTS, run_sort);
    Ok(())
});

device_test!(quantiles, |dev| {
    run_group("quantile", &dev, ALL_LAYOUTS, run_quantile);
    Ok(())
});

device_test!(unique_and_counting, |dev| {
    run_group("unique", &dev, ALL_LAYOUTS, run_unique);
    Ok(())
});

device_test!(selection_and_scans, |dev| {
    run_group("select", &dev, ALL_LAYOUTS, run_select);
    Ok(())
});

device_test!(integer_indexing, |dev| {
    run_group("index", &dev, ALL_LAYOUTS, run_index);
    Ok(())
});

device_test!(manipulation, |dev| {
    run_group("manip", &dev, ALL_LAYOUTS, run_manip);
    Ok(())
});

device_test!(signal, |dev| {
    run_group("signal", &dev, ALL_LAYOUTS, run_signal);
    Ok(())
});

device_test!(ndimage_label, |dev| {
    run_group("ndimage_label", &dev, ALL_LAYOUTS, run_ndimage_label);
    Ok(())
});

device_test!(ndimage_measure, |dev| {
    run_group("ndimage_measure", &dev, ALL_LAYOUTS, run_ndimage_measure);
    Ok(())
});

device_test!(signal_nd, |dev| {
    run_group("signal_nd", &dev, ALL_LAYOUTS, run_signal_nd);
    Ok(())
});

device_test!(ndimage_filters, |dev| {
    run_group("ndimage_filters", &dev, ALL_LAYOUTS, run_ndimage_filters);
    Ok(())
});

device_test!(ndimage_morph, |dev| {
    run_group("ndimage_morph", &dev, ALL_LAYOUTS, run_ndimage_morph);
    Ok(())
});

device_test!(ndimage_rank, |dev| {
    run_group("ndimage_rank", &dev, ALL_LAYOUTS, run_ndimage_rank);
    Ok(())
});

device_test!(io, |dev| {
    run_group("io", &dev, ALL_LAYOUTS, run_io);
    Ok(())
});

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
