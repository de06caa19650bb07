//! `scipy.signal`: `convolve2d` and `correlate2d` (modes full/same/valid, boundaries
//! fill/wrap/symm with `fillvalue`); and NumPy's 1-d `convolve` and `correlate`, which share
//! the kernels.
//!
//! Every convolution is computed as one correlation: `out[y, x] = Σ_j Σ_k
//! B(y + j - oy, x + k - ox) * w[j, k]`, with `w` the kernel (flipped for a convolution), `B`
//! the input extended by the boundary rule and `(oy, ox)` the offset of the mode. The sum runs
//! over `j`, then `k`, in the result's dtype (float32 in float32, integers wrapping as in
//! SciPy's loops; float16 in float32), in the same order on both devices, so the CPU and the
//! GPU give the same bits. The CPU (`cpu.rs`) extends the input once and runs row-wise
//! multiply-adds; the GPU (`cuda.rs`, `correlate.cu`) loads tiles with their halos into shared
//! memory, applying the boundary once per loaded element, not per tap.

mod cpu;
pub(crate) mod cuda;

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};

/// The `mode` of NumPy's `convolve`/`correlate` and SciPy's `convolve2d`/`correlate2d`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ConvolveMode {
    /// Every point where the inputs overlap (size `n + k - 1` per axis).
    Full,
    /// The size of the first input (NumPy: of the longer one), centered on the full output.
    Same,
    /// Only where the kernel lies inside the input (size `n - k + 1` per axis).
    Valid,
}

impl std::str::FromStr for ConvolveMode {
    type Err = Error;
    /// `"full"`, `"same"` or `"valid"`.
    fn from_str(s: &str) -> Result<ConvolveMode> {
        match s {
            "full" => Ok(ConvolveMode::Full),
            "same" => Ok(ConvolveMode::Same),
            "valid" => Ok(ConvolveMode::Valid),
            _ => Err(Error::Value(format!("acceptable mode flags are 'valid', 'same', or 'full', not {s:?}"))),
        }
    }
}

/// How `convolve2d`/`correlate2d` extend the input past its edges (SciPy's `boundary`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Boundary {
    /// The `fillvalue` (SciPy's `"fill"`, also `"pad"`).
    Fill,
    /// Circular (`"wrap"`, also `"circular"`).
    Wrap,
    /// Mirrored, the edge repeated (`"symm"`, also `"symmetric"`).
    Symm,
}

impl std::str::FromStr for Boundary {
    type Err = Error;
    /// SciPy's names and aliases: `"fill"`/`"pad"`, `"wrap"`/`"circular"`,
    /// `"symm"`/`"symmetric"`.
    fn from_str(s: &str) -> Result<Boundary> {
        match s {
            "fill" | "pad" => Ok(Boundary::Fill),
            "wrap" | "circular" => Ok(Boundary::Wrap),
            "symm" | "symmetric" => Ok(Boundary::Symm),
            _ => Err(Error::Value(format!("acceptable boundary flags are 'fill', 'wrap' and 'symm', not {s:?}"))),
        }
    }
}

/// One correlation to run: the input `x` (2-d, C-contiguous, of the result's dtype), the
/// kernel `w` (2-d, C-contiguous, same dtype; `flip`: read reversed along both axes, for a
/// convolution, so that no flipped copy is made), the output's
/// shape, the offset of output (0, 0) in the input, the boundary and the fill value (in the
/// result's dtype).
pub(crate) struct Correlation<'a> {
    pub x: &'a Array,
    pub w: &'a Array,
    pub flip: bool,
    pub out_shape: [usize; 2],
    pub offset: [i64; 2],
    pub boundary: Boundary,
    pub fill: Scalar,
}

/// Runs `c` into `out` (of `c.out_shape`, C-contiguous) on `out`'s device.
fn correlate_into(c: &Correlation<'_>, out: &Array) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    match out.device() {
        Device::Cpu => cpu::correlate(c, out),
        Device::Cuda(_) => cuda::correlate(c, out),
    }
}

/// The output size and offset of `mode` along an axis of length `n` with a kernel of `k`
/// (`n >= k` for `Valid`).
fn mode_extent(mode: ConvolveMode, n: usize, k: usize) -> (usize, i64) {
    match mode {
        ConvolveMode::Full => (n + k - 1, k as i64 - 1),
        ConvolveMode::Same => (n, (k / 2) as i64),
        ConvolveMode::Valid => (n + 1 - k, 0),
    }
}

/// Both inputs in their common dtype, C-contiguous, with the dtype.
fn common(a: &Array, b: &Array, op: &str) -> Result<(Array, Array, DType)> {
    crate::ufunc::same_device(op, a, b)?;
    let dt = crate::promote_types(a.dtype(), b.dtype());
    let cast = |x: &Array| if x.dtype() == dt { x.as_contiguous() } else { x.astype(dt) };
    Ok((cast(a)?, cast(b)?, dt))
}

/// The correlation of 1-d `a` (at least as long as `v`) with `v` (`flip`: with `v` reversed):
/// NumPy's `multiarray.correlate`.
fn correlate_1d(a: &Array, v: &Array, flip: bool, mode: ConvolveMode, dt: DType) -> Result<Array> {
    let (n, k) = (a.size(), v.size());
    let (len, off) = mode_extent(mode, n, k);
    let out = Array::alloc(&[len], dt, a.device(), false)?;
    let x = a.reshape(&[1, n])?;
    let w = v.reshape(&[1, k])?;
    let c = Correlation {
        x: &x,
        w: &w,
        flip,
        out_shape: [1, len],
        offset: [0, off],
        boundary: Boundary::Fill,
        fill: Scalar::Int(0),
    };
    correlate_into(&c, &out.reshape(&[1, len])?)?;
    Ok(out)
}

fn check_1d(a: &Array, v: &Array, op: &str) -> Result<()> {
    if a.ndim() != 1 || v.ndim() != 1 {
        // NumPy's convolve takes a 0-d operand as one element (correlate refuses it).
        return Err(Error::Value(format!("{op}: object too deep for desired array (1-d inputs only)")));
    }
    if a.size() == 0 {
        return Err(Error::Value("a cannot be empty".into()));
    }
    if v.size() == 0 {
        return Err(Error::Value("v cannot be empty".into()));
    }
    Ok(())
}

/// NumPy's `convolve(a, v, mode)`: the discrete linear convolution of two 1-d arrays (the
/// shorter one is the kernel), in their common dtype.
///
/// ```
/// use cuprum::ConvolveMode;
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?;
/// let v = cuprum::from_vec(vec![0.0, 1.0, 0.5], &dev)?;
/// assert_eq!(cuprum::convolve(&a, &v, ConvolveMode::Full)?.to_vec::<f64>()?, vec![0.0, 1.0, 2.5, 4.0, 1.5]);
/// assert_eq!(cuprum::convolve(&a, &v, ConvolveMode::Same)?.to_vec::<f64>()?, vec![1.0, 2.5, 4.0]);
/// assert_eq!(cuprum::convolve(&a, &v, ConvolveMode::Valid)?.to_vec::<f64>()?, vec![2.5]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn convolve(a: &Array, v: &Array, mode: ConvolveMode) -> Result<Array> {
    let one = |x: &Array| if x.ndim() == 0 { x.reshape(&[1]) } else { Ok(x.view()) };
    let (a, v) = (&one(a)?, &one(v)?);
    check_1d(a, v, "convolve")?;
    let (a, v) = if v.size() > a.size() { (v, a) } else { (a, v) };
    let (a, v, dt) = common(a, v, "convolve")?;
    correlate_1d(&a, &v, true, mode, dt)
}

/// NumPy's `correlate(a, v, mode)` of two 1-d arrays: `c[k] = Σ_n a[n + k] * v[n]` (NumPy's
/// default mode is `Valid`). When `v` is longer than `a`, the result is NumPy's: the
/// correlation of `v` with `a`, reversed.
///
/// ```
/// use cuprum::ConvolveMode;
/// let dev = cuprum::Device::default_device();
/// let a = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?;
/// let v = cuprum::from_vec(vec![0.0, 1.0, 0.5], &dev)?;
/// assert_eq!(cuprum::correlate(&a, &v, ConvolveMode::Valid)?.to_vec::<f64>()?, vec![3.5]);
/// assert_eq!(cuprum::correlate(&a, &v, ConvolveMode::Full)?.to_vec::<f64>()?, vec![0.5, 2.0, 3.5, 3.0, 0.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn correlate(a: &Array, v: &Array, mode: ConvolveMode) -> Result<Array> {
    check_1d(a, v, "correlate")?;
    let (a, v, dt) = common(a, v, "correlate")?;
    if v.size() > a.size() {
        let r = correlate_1d(&v, &a, false, mode, dt)?;
        return r.flip(None)?.as_contiguous();
    }
    correlate_1d(&a, &v, false, mode, dt)
}

/// SciPy's `_inputs_swap_needed` for 2-d inputs: in `Valid` mode the larger input is the
/// image; one must be at least as large as the other in every dimension.
fn swap_needed(mode: ConvolveMode, s1: &[usize], s2: &[usize]) -> Result<bool> {
    if mode != ConvolveMode::Valid {
        return Ok(false);
    }
    let ok1 = s1.iter().zip(s2).all(|(a, b)| a >= b);
    let ok2 = s2.iter().zip(s1).all(|(a, b)| a >= b);
    if !(ok1 || ok2) {
        return Err(Error::Value(
            "For 'valid' mode, one must be at least as large as the other in every dimension".into(),
        ));
    }
    Ok(!ok1)
}

fn conv2d(
    in1: &Array,
    in2: &Array,
    mode: ConvolveMode,
    boundary: Boundary,
    fillvalue: f64,
    flip: bool,
) -> Result<Array> {
    let op = if flip { "convolve2d" } else { "correlate2d" };
    if in1.ndim() != 2 || in2.ndim() != 2 {
        return Err(Error::Value(format!("{op} inputs must both be 2-D arrays")));
    }
    let swapped = swap_needed(mode, in1.shape(), in2.shape())?;
    let (in1, in2) = if swapped { (in2, in1) } else { (in1, in2) };
    let (x, w, dt) = common(in1, in2, op)?;
    if matches!(dt, DType::Bool | DType::Float16) {
        // SciPy's loops have no bool or float16 type.
        return Err(Error::Value(format!("{op} not available for this type ({dt})")));
    }
    // SciPy converts (and checks) the fill value only for the fill boundary.
    let fill = if boundary == Boundary::Fill { fill_value(fillvalue, dt)? } else { Scalar::Int(0) };
    let (h, wd) = (x.shape()[0], x.shape()[1]);
    let (kh, kw) = (w.shape()[0], w.shape()[1]);
    let (oh, mut oy) = mode_extent(mode, h, kh);
    let (ow, mut ox) = mode_extent(mode, wd, kw);
    if !flip && mode == ConvolveMode::Same {
        // SciPy's correlate2d centres 'same' at k // 2 of the full correlation (its convolve2d,
        // and NumPy's correlate, at (k - 1) // 2): they differ for even kernels.
        (oy, ox) = (((kh.max(1) - 1) / 2) as i64, ((kw.max(1) - 1) / 2) as i64);
    }
    if w.size() == 0 {
        // An empty kernel sums nothing (SciPy: zeros of the mode's shape).
        return crate::zeros(&[oh, ow], dt, &x.device());
    }
    let out = Array::alloc(&[oh, ow], dt, x.device(), false)?;
    let c = Correlation { x: &x, w: &w, flip, out_shape: [oh, ow], offset: [oy, ox], boundary, fill };
    correlate_into(&c, &out)?;
    if swapped && !flip {
        // SciPy: the correlation of the swapped inputs, reversed.
        return out.flip(None)?.as_contiguous();
    }
    Ok(out)
}

/// `fillvalue` in the result's dtype, as SciPy converts it (`np.array(fillvalue, dtype)`):
/// floats round; integers truncate toward zero, and a value they cannot hold (NaN and the
/// infinities too) is a ValueError, whatever the mode.
fn fill_value(v: f64, dt: DType) -> Result<Scalar> {
    if dt.is_float() {
        return crate::full(&[], v, dt, &Device::Cpu)?.item_scalar();
    }
    let (lo, hi) = dt.int_range().expect("an integer dtype (bool is refused before)");
    // Finite doubles truncate exactly into i128; the infinities and NaN are out of every range.
    let t = v.trunc();
    if !t.is_finite() || (t as i128) < lo || (t as i128) > hi {
        return Err(Error::Value(format!("fillvalue {v} cannot be cast to {dt}")));
    }
    Ok(if dt.is_unsigned_int() { Scalar::UInt(t as u64) } else { Scalar::Int(t as i64) })
}

/// SciPy's `signal.convolve2d(in1, in2, mode, boundary, fillvalue)`: the 2-d convolution of
/// `in1` with the kernel `in2`, in their common dtype (`uint8` stays `uint8`, wrapping as
/// SciPy's loops do). `fillvalue` is converted to that dtype.
///
/// ```
/// use cuprum::scipy::signal::{convolve2d, Boundary};
/// use cuprum::ConvolveMode;
/// let dev = cuprum::Device::default_device();
/// let img = cuprum::arange(12, &dev)?.reshape(&[3, 4])?.astype(cuprum::DType::Float64)?;
/// let k = cuprum::from_slice(&[1.0, -1.0], &[1, 2], &dev)?;
/// let d = convolve2d(&img, &k, ConvolveMode::Valid, Boundary::Fill, 0.0)?;
/// assert_eq!(d.to_vec::<f64>()?, vec![1.0; 9]); // horizontal differences
/// let s = convolve2d(&img, &k, ConvolveMode::Same, Boundary::Wrap, 0.0)?;
/// assert_eq!(s.to_vec::<f64>()?[..4], [-3.0, 1.0, 1.0, 1.0]); // scipy: [[-3, 1, 1, 1], ...]
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn convolve2d(in1: &Array, in2: &Array, mode: ConvolveMode, boundary: Boundary, fillvalue: f64) -> Result<Array> {
    conv2d(in1, in2, mode, boundary, fillvalue, true)
}

/// SciPy's `signal.correlate2d(in1, in2, mode, boundary, fillvalue)`: the 2-d
/// cross-correlation, as [`convolve2d`] with the kernel not flipped.
pub fn correlate2d(in1: &Array, in2: &Array, mode: ConvolveMode, boundary: Boundary, fillvalue: f64) -> Result<Array> {
    conv2d(in1, in2, mode, boundary, fillvalue, false)
}
