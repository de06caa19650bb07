//! `numpy.testing` (CuPy: `cupy.testing`): assertions that compare two arrays by NumPy's rules
//! and, when they differ, panic with the report NumPy's `AssertionError` carries — the header,
//! how many elements differ and where, the largest absolute and relative differences, and both
//! arrays — so that a test written against NumPy reads the same in Rust.
//!
//! Arrays are compared on host copies (either may live on any device). Like NumPy's, the
//! assertions broadcast a 0-d array against the other, find NaNs in the same places equal
//! (`equal_nan`), check that infinities sit in the same places with the same signs, and refuse
//! other shape differences (`strict` refuses the 0-d broadcast and a dtype difference too).
//!
//! ```should_panic
//! use cuprum::testing::assert_allclose;
//! let dev = cuprum::Device::Cpu;
//! let x = cuprum::from_vec(vec![1.0, 2.0, 4.0], &dev)?;
//! let y = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?;
//! assert_allclose(&x, &y);   // panics with NumPy's report:
//! //
//! // Not equal to tolerance rtol=1e-07, atol=0
//! //
//! // Mismatched elements: 1 / 3 (33.3%)
//! // Mismatch at index:
//! //  [2]: 4.0 (ACTUAL), 3.0 (DESIRED)
//! // Max absolute difference among violations: 1.
//! // Max relative difference among violations: 0.33333333
//! //  ACTUAL: array([1., 2., 4.])
//! //  DESIRED: array([1., 2., 3.])
//! # Ok::<(), cuprum::Error>(())
//! ```

use crate::array::format::spec::py_g;
use crate::array::print::array2string;
use crate::array::Array;
use crate::core::device::Device;
use crate::core::error::{shape_str, Result};

/// `assert_allclose`'s keywords, NumPy's defaults by `Default`.
#[derive(Clone, Debug, PartialEq)]
pub struct AllcloseOptions {
    pub rtol: f64,
    pub atol: f64,
    /// NaNs in the same places count as equal (NumPy's default: `true`).
    pub equal_nan: bool,
    /// Text added to the report.
    pub err_msg: String,
    /// Show both arrays in the report.
    pub verbose: bool,
    /// Refuse a 0-d array against a wider one, and a dtype difference.
    pub strict: bool,
}

impl Default for AllcloseOptions {
    fn default() -> Self {
        AllcloseOptions { rtol: 1e-7, atol: 0.0, equal_nan: true, err_msg: String::new(), verbose: true, strict: false }
    }
}

/// `assert_array_equal`'s keywords, NumPy's defaults by `Default`.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayEqualOptions {
    pub err_msg: String,
    pub verbose: bool,
    pub strict: bool,
}

impl Default for ArrayEqualOptions {
    fn default() -> Self {
        ArrayEqualOptions { err_msg: String::new(), verbose: true, strict: false }
    }
}

/// NumPy's `testing.assert_allclose(actual, desired)`: `|actual - desired| <= atol + rtol *
/// |desired|` everywhere (rtol 1e-7, atol 0, NaNs equal).
///
/// # Panics
/// Where they differ, with NumPy's report (see the [module](self)).
#[track_caller]
pub fn assert_allclose(actual: &Array, desired: &Array) {
    assert_allclose_with(actual, desired, &AllcloseOptions::default())
}

/// `assert_allclose(actual, desired, rtol=..., atol=..., ...)`.
///
/// ```
/// use cuprum::testing::{assert_allclose_with, AllcloseOptions};
/// let dev = cuprum::Device::Cpu;
/// let x = cuprum::from_vec(vec![1.0, 2.0, 3.0001], &dev)?;
/// let y = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?;
/// assert_allclose_with(&x, &y, &AllcloseOptions { rtol: 1e-4, ..Default::default() });
/// # Ok::<(), cuprum::Error>(())
/// ```
///
/// # Panics
/// Where they differ, with NumPy's report.
#[track_caller]
pub fn assert_allclose_with(actual: &Array, desired: &Array, opts: &AllcloseOptions) {
    let header =
        format!("Not equal to tolerance rtol={}, atol={}", py_g(opts.rtol, 6, false), py_g(opts.atol, 6, false));
    let (rtol, atol, equal_nan) = (opts.rtol, opts.atol, opts.equal_nan);
    let cmp = |x: &Array, y: &Array| crate::isclose_with(x, y, &crate::CloseOptions { rtol, atol, equal_nan });
    let common = Common { header, err_msg: &opts.err_msg, verbose: opts.verbose, strict: opts.strict, equal_nan };
    report(compare(actual, desired, &common, &cmp));
}

/// NumPy's `testing.assert_array_equal(actual, desired)`: the same shape (or one of them 0-d)
/// and equal elements; NaNs in the same places count as equal.
///
/// ```
/// let dev = cuprum::Device::Cpu;
/// let x = cuprum::from_vec(vec![1.0, f64::NAN], &dev)?;
/// cuprum::testing::assert_array_equal(&x, &x.copy()?);
/// # Ok::<(), cuprum::Error>(())
/// ```
///
/// # Panics
/// Where they differ, with NumPy's report.
#[track_caller]
pub fn assert_array_equal(actual: &Array, desired: &Array) {
    assert_array_equal_with(actual, desired, &ArrayEqualOptions::default())
}

/// `assert_array_equal(actual, desired, err_msg=..., verbose=..., strict=...)`.
///
/// # Panics
/// Where they differ, with NumPy's report.
#[track_caller]
pub fn assert_array_equal_with(actual: &Array, desired: &Array, opts: &ArrayEqualOptions) {
    let common = Common {
        header: "Arrays are not equal".into(),
        err_msg: &opts.err_msg,
        verbose: opts.verbose,
        strict: opts.strict,
        equal_nan: true,
    };
    report(compare(actual, desired, &common, &|x: &Array, y: &Array| x.equal(y)))
}

#[track_caller]
fn report(r: Result<Option<String>>) {
    match r {
        Ok(None) => {}
        Ok(Some(msg)) => panic!("{msg}"),
        Err(e) => panic!("the arrays could not be compared: {e}"),
    }
}

struct Common<'a> {
    header: String,
    err_msg: &'a str,
    verbose: bool,
    strict: bool,
    equal_nan: bool,
}

/// Where NaNs (or infinities) were found in both: one flag for a 0-d side, else per element.
enum Flags {
    One(bool),
    Each(Array),
}

impl Flags {
    fn of(x_id: Array, y_id: Array) -> Result<Flags> {
        Ok(if x_id.ndim() == 0 {
            Flags::One(x_id.item::<bool>()?)
        } else if y_id.ndim() == 0 {
            Flags::One(y_id.item::<bool>()?)
        } else {
            Flags::Each(y_id)
        })
    }
    fn array(&self) -> Result<Array> {
        match self {
            Flags::One(b) => crate::scalar(*b, &Device::Cpu),
            Flags::Each(a) => Ok(a.view()),
        }
    }
    fn or(self, other: Flags) -> Result<Flags> {
        Ok(match (self, other) {
            (Flags::One(a), Flags::One(b)) => Flags::One(a || b),
            (a, b) => Flags::Each(a.array()?.logical_or(&b.array()?)?),
        })
    }
}

/// NumPy's `build_err_msg`: the header (with a short one-line `err_msg` beside it), the message,
/// and both arrays' reprs (three lines at most each).
fn build_err_msg(x: &Array, y: &Array, err_msg: &str, c: &Common) -> String {
    let mut msg = vec![format!("\n{}", c.header)];
    if !err_msg.is_empty() {
        if !err_msg.contains('\n') && err_msg.len() + c.header.len() < 79 {
            msg[0] = format!("{} {err_msg}", msg[0]);
        } else {
            msg.push(err_msg.to_string());
        }
    }
    if c.verbose {
        for (name, a) in [("ACTUAL", x), ("DESIRED", y)] {
            // (reprs with precision 6: assert_array_compare's own default)
            let r = crate::array::format::with_precision(6, || format!("{a:?}"));
            let r = if r.matches('\n').count() > 3 {
                format!("{}...", r.lines().take(3).collect::<Vec<_>>().join("\n"))
            } else {
                r
            };
            msg.push(format!(" {name}: {r}"));
        }
    }
    msg.join("\n")
}

/// The report where `cmp` finds `actual` and `desired` apart (NumPy's `assert_array_compare`),
/// or `None`.
fn compare(
    actual: &Array,
    desired: &Array,
    c: &Common,
    cmp: &dyn Fn(&Array, &Array) -> Result<Array>,
) -> Result<Option<String>> {
    let (ox, oy) = (actual.to_device(&Device::Cpu)?, desired.to_device(&Device::Cpu)?);
    let fail = |x: &Array, y: &Array, m: String| Ok(Some(build_err_msg(x, y, &m, c)));
    let same_shape = ox.shape() == oy.shape();
    let ok =
        if c.strict { same_shape && ox.dtype() == oy.dtype() } else { ox.ndim() == 0 || oy.ndim() == 0 || same_shape };
    if !ok {
        let reason = if !same_shape {
            format!("\n(shapes {}, {} mismatch)", shape_str(ox.shape()), shape_str(oy.shape()))
        } else {
            format!("\n(dtypes {}, {} mismatch)", ox.dtype().name(), oy.dtype().name())
        };
        return fail(&ox, &oy, format!("{}{reason}", c.err_msg));
    }
    // NaNs (with equal_nan) and infinities must sit in the same places; they are then left out.
    let mut flagged = Flags::One(false);
    if c.equal_nan {
        let (xi, yi) = (ox.isnan()?, oy.isnan()?);
        if xi.not_equal(&yi)?.any(None)?.item::<bool>()? {
            return fail(&ox, &oy, format!("{}\nnan location mismatch:", c.err_msg));
        }
        flagged = Flags::of(xi, yi)?;
    }
    let not_flagged = flagged.array()?.logical_not()?;
    let (xi, yi) = (ox.isinf()?.logical_and(&not_flagged)?, oy.isinf()?.logical_and(&not_flagged)?);
    if xi.not_equal(&yi)?.any(None)?.item::<bool>()? {
        return fail(&ox, &oy, format!("{}\ninf location mismatch:", c.err_msg));
    }
    let infs = Flags::of(xi, yi)?;
    let infs_mask = infs.array()?;
    if infs_mask.any(None)?.item::<bool>()? {
        let (xs, ys) = if ox.ndim() > 0 && oy.ndim() > 0 {
            (ox.mask(&infs_mask)?, oy.mask(&infs_mask)?)
        } else {
            (ox.view(), oy.view())
        };
        if xs.not_equal(&ys)?.any(None)?.item::<bool>()? {
            return fail(&xs, &ys, format!("{}\ninf values mismatch:", c.err_msg));
        }
    }
    let flagged = flagged.or(infs)?;
    let (x, y) = match &flagged {
        Flags::Each(f) => {
            let keep = f.logical_not()?;
            let (x, y) = (ox.mask(&keep)?, oy.mask(&keep)?);
            if x.size() == 0 {
                return Ok(None);
            }
            (x, y)
        }
        Flags::One(true) => return Ok(None),
        Flags::One(false) => (ox.view(), oy.view()),
    };
    let val = cmp(&x, &y)?;
    if val.all(None)?.item::<bool>()? {
        return Ok(None);
    }
    let invalids = val.logical_not()?;
    let n_mismatch = invalids.count_nonzero(None)?.item::<i64>()? as usize;
    let n_elements = match &flagged {
        Flags::Each(f) => f.size(),
        Flags::One(_) => val.size(),
    };
    let mut remarks = vec![format!(
        "Mismatched elements: {n_mismatch} / {n_elements} ({}%)",
        py_g(100.0 * n_mismatch as f64 / n_elements as f64, 3, false)
    )];
    if invalids.ndim() != 0 {
        let positions = match &flagged {
            Flags::Each(f) => crate::argwhere(&f.logical_not()?)?.take(&crate::flatnonzero(&invalids)?, 0)?,
            Flags::One(_) => crate::argwhere(&invalids)?,
        };
        let n = positions.shape()[0];
        let pos: Vec<i64> = positions.to_vec_as::<i64>()?;
        let nd = positions.shape()[1];
        let mut lines = Vec::new();
        for p in pos.chunks(nd.max(1)).take(n.min(5)) {
            let at = |a: &Array| -> Result<String> {
                if a.ndim() == 0 {
                    return Ok(format!("{a}"));
                }
                let mut v = a.view();
                for &i in &p[..nd] {
                    v = v.at(i as isize)?;
                }
                Ok(format!("{v}"))
            };
            let idx: Vec<String> = p[..nd].iter().map(|i| i.to_string()).collect();
            lines.push(format!(" [{}]: {} (ACTUAL), {} (DESIRED)", idx.join(", "), at(&ox)?, at(&oy)?));
        }
        let head = match n {
            1 => "Mismatch at index:",
            2..=5 => "Mismatch at indices:",
            _ => "First 5 mismatches are at indices:",
        };
        remarks.push(format!("{head}\n{}", lines.join("\n")));
    }
    // The differences (none for bools, whose subtraction is NumPy's TypeError too).
    match x.subtract(&y) {
        Err(e) if e.kind() == crate::ErrorKind::TypeError => {}
        Err(e) => return Err(e),
        Ok(d) => {
            let mut error = d.abs()?;
            if x.dtype().is_unsigned_int() {
                error = error.minimum(&y.subtract(&x)?.abs()?)?;
            }
            let max_abs = error.mask(&broadcast(&invalids, error.shape())?)?.max(None)?;
            remarks.push(format!("Max absolute difference among violations: {}", array2string(&max_abs)?));
            let nonzero_invalid = invalids.logical_and(&y.not_equal(&crate::scalar(0i64, &Device::Cpu)?)?)?;
            let max_rel = if !nonzero_invalid.any(None)?.item::<bool>()? {
                crate::scalar(f64::INFINITY, &Device::Cpu)?
            } else {
                let m = broadcast(&nonzero_invalid, error.shape())?;
                let yb = y.broadcast_to(error.shape())?;
                error.mask(&m)?.true_divide(&yb.mask(&m)?.abs()?)?.max(None)?
            };
            remarks.push(format!("Max relative difference among violations: {}", array2string(&max_rel)?));
        }
    }
    let msg = format!("{}\n{}", c.err_msg, remarks.join("\n"));
    fail(&ox, &oy, msg)
}

fn broadcast(m: &Array, shape: &[usize]) -> Result<Array> {
    if m.shape() == shape {
        Ok(m.view())
    } else {
        m.broadcast_to(shape)?.copy()
    }
}
