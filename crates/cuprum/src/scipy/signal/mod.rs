//! `scipy.signal`: the N-d [`convolve`] and [`correlate`] (modes full/same/valid, [`Method`]),
//! [`convolve2d`] and [`correlate2d`] (modes full/same/valid, boundaries fill/wrap/symm with
//! `fillvalue`); and NumPy's 1-d `convolve` and `correlate` (at the crate root:
//! [`crate::convolve`], [`crate::correlate`]), which share the kernels.
//!
//! Every convolution is computed as one correlation: `out[o] = Σ_t B(o + t - off) * w[t]`, the
//! sum over the kernel's taps `t` in C order (for 2-d: over `j`, then `k`), with `w` the kernel
//! (flipped for a convolution), `B` the input extended by the boundary rule (SciPy's N-d
//! functions: zeros) and `off` the offset of the mode. The sum runs in the result's dtype
//! (float32 in float32, integers wrapping as in SciPy's loops; float16 in float32), in the same
//! order on both devices, so the CPU and the GPU give the same bits. That order is SciPy's
//! (`_correlateND` and `_correlate2d` add the taps in C order; every tap is multiplied, also
//! where the input is padding or the kernel is zero, so a NaN or an infinity reaches every
//! output whose window holds it: `0 * inf` is NaN).
//!
//! The CPU (`cpu.rs`) extends the input once and runs row-wise multiply-adds over the output
//! rows in parallel, for any rank. The GPU (`cuda.rs`, `correlate.cu`) runs 2-d correlations
//! (and 1-d ones, as one row) on tiles with their halos in shared memory, applying the boundary
//! once per loaded element, not per tap; correlations of 3 and more dimensions pad the input
//! with the fill value once and run a generic kernel: each thread sums a few outputs of one
//! row over the taps, whose offsets in the padded input are precomputed. It takes any rank;
//! the padding is a strided copy, which on a GPU takes at most 16 dimensions that cannot be
//! merged (more is a NotImplementedError).
//!
//! SciPy's `convolve`/`correlate` route their inputs as SciPy does: 1-d inputs that NumPy
//! handles go to NumPy's `convolve`/`correlate`; the others to the N-d correlation, with the
//! operands swapped where SciPy swaps them (and a correlation's result reversed), axes where
//! both inputs have length 1 dropped, and inputs of at most 2 dimensions left (after that) on
//! the 2-d path.

mod cpu;
pub(crate) mod cuda;
mod fftconv;

pub use fftconv::{
    fftconvolve, fftconvolve_with, next_fast_len, next_fast_len_with, oaconvolve, oaconvolve_with, FftConvolveOptions,
    NextFastLenOptions,
};

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};

/// The `mode` of NumPy's `convolve`/`correlate` and SciPy's `convolve2d`/`correlate2d`
/// (`Full` by default, as theirs).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum ConvolveMode {
    /// Every point where the inputs overlap (size `n + k - 1` per axis).
    #[default]
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

/// How `convolve2d`/`correlate2d` extend the input past its edges (SciPy's `boundary`;
/// `Fill` by default).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Boundary {
    /// The `fillvalue` (SciPy's `"fill"`, also `"pad"`).
    #[default]
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

/// One correlation to run: the input `x` (C-contiguous, of the result's dtype, at least 1-d),
/// the kernel `w` (C-contiguous, same dtype and rank; `flip`: read reversed along every axis,
/// for a convolution, so that no flipped copy is made), the output's shape, the offset of
/// output (0, ..., 0) in the input (the output `o` reads `x[o + t - offset]` for tap `t`), the
/// boundary and the fill value (in the result's dtype). On the GPU, 2-d correlations take any
/// boundary, others only `Fill`.
pub(crate) struct Correlation<'a> {
    pub x: &'a Array,
    pub w: &'a Array,
    pub flip: bool,
    pub out_shape: Vec<usize>,
    pub offset: Vec<i64>,
    pub boundary: Boundary,
    pub fill: Scalar,
}

/// Runs `c` into `out` (of `c.out_shape`, C-contiguous) on `out`'s device.
fn correlate_into(c: &Correlation<'_>, out: &Array) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    if out.dtype().is_complex() {
        return correlate_complex(c, out);
    }
    match out.device() {
        Device::Cpu => cpu::correlate(c, out),
        Device::Cuda(_) => cuda::correlate(c, out),
    }
}

/// [`correlate_into`] of complex arrays by four real correlations of the parts:
/// `(xr + i xi) ⋆ (wr + i wi) = (xr⋆wr - xi⋆wi) + i (xr⋆wi + xi⋆wr)`, where a correlation (not
/// a convolution) takes the conjugate of the kernel, as SciPy's and NumPy's `correlate` do.
/// The fill value pads each part with its own part.
fn correlate_complex(c: &Correlation<'_>, out: &Array) -> Result<()> {
    let rdt = out.dtype().real_dtype();
    let part = |a: Array| -> Result<Array> { a.as_contiguous() };
    let (xr, xi) = (part(c.x.real())?, part(c.x.imag()?)?);
    let wr = part(c.w.real())?;
    let wi = if c.flip { part(c.w.imag()?)? } else { part(c.w.imag()?.negative()?)? };
    let (fr, fi) = match c.fill {
        Scalar::Complex(re, im) => (Scalar::Float(re), Scalar::Float(im)),
        other => (other, Scalar::Int(0)),
    };
    let run = |x: &Array, w: &Array, fill: Scalar| -> Result<Array> {
        let o = Array::alloc(out.shape(), rdt, out.device(), false)?;
        let one = Correlation {
            x,
            w,
            flip: c.flip,
            out_shape: c.out_shape.clone(),
            offset: c.offset.clone(),
            boundary: c.boundary,
            fill,
        };
        correlate_into(&one, &o)?;
        Ok(o)
    };
    let re = crate::subtract(&run(&xr, &wr, fr)?, &run(&xi, &wi, fi)?)?;
    let im = crate::add(&run(&xr, &wi, fr)?, &run(&xi, &wr, fi)?)?;
    crate::ufunc::assign(out, &crate::ufunc::complex::from_parts(&re, &im)?)
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
    crate::array::same_device(op, a, b)?;
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
    let x = a.reshape([1, n])?;
    let w = v.reshape([1, k])?;
    let c = Correlation {
        x: &x,
        w: &w,
        flip,
        out_shape: vec![1, len],
        offset: vec![0, off],
        boundary: Boundary::Fill,
        fill: Scalar::Int(0),
    };
    correlate_into(&c, &out.reshape([1, len])?)?;
    Ok(out)
}

fn check_1d(a: &Array, v: &Array, op: &str) -> Result<()> {
    if a.ndim() != 1 || v.ndim() != 1 {
        // NumPy's convolve takes a 0-d operand as one element (correlate refuses it).
        return Err(Error::Value(format!("{op}: object too deep for desired array (1-d inputs only)")));
    }
    // NumPy's messages: convolve's (Python) and correlate's (C) differ.
    let (first, second) = if op == "convolve" {
        ("a cannot be empty", "v cannot be empty")
    } else {
        ("first array argument cannot be empty", "second array argument cannot be empty")
    };
    if a.size() == 0 {
        return Err(Error::Value(first.into()));
    }
    if v.size() == 0 {
        return Err(Error::Value(second.into()));
    }
    Ok(())
}

/// NumPy's 1-d `convolve` and `correlate` (re-exported at the crate root as
/// [`crate::convolve`] and [`crate::correlate`], with their `mode` in [`crate::convolve_with`]
/// and [`crate::correlate_with`]; `scipy::signal`'s own are the N-d ones). Their one keyword
/// is an enum that names itself, so the `_with` forms take it as it is, as NumPy's
/// `np.convolve(a, v, "same")` takes it positionally.
pub(crate) mod numpy {
    use super::{check_1d, common, correlate_1d, ConvolveMode};
    use crate::array::Array;
    use crate::core::error::Result;

    /// NumPy's `convolve(a, v)`: the discrete linear convolution of two 1-d arrays (the
    /// shorter one is the kernel), in their common dtype, in NumPy's default mode `"full"`;
    /// [`convolve_with`] takes the mode.
    ///
    /// ```
    /// let dev = cuprum::Device::default_device();
    /// let a = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?;
    /// let v = cuprum::from_vec(vec![0.0, 1.0, 0.5], &dev)?;
    /// assert_eq!(cuprum::convolve(&a, &v)?.to_vec::<f64>()?, vec![0.0, 1.0, 2.5, 4.0, 1.5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn convolve(a: &Array, v: &Array) -> Result<Array> {
        convolve_with(a, v, ConvolveMode::Full)
    }

    /// NumPy's `convolve(a, v, mode)`.
    ///
    /// ```
    /// use cuprum::ConvolveMode::{Same, Valid};
    /// let dev = cuprum::Device::default_device();
    /// let a = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?;
    /// let v = cuprum::from_vec(vec![0.0, 1.0, 0.5], &dev)?;
    /// assert_eq!(cuprum::convolve_with(&a, &v, Same)?.to_vec::<f64>()?, vec![1.0, 2.5, 4.0]);
    /// assert_eq!(cuprum::convolve_with(&a, &v, Valid)?.to_vec::<f64>()?, vec![2.5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn convolve_with(a: &Array, v: &Array, mode: ConvolveMode) -> Result<Array> {
        let one = |x: &Array| if x.ndim() == 0 { x.reshape([1]) } else { Ok(x.view()) };
        let (a, v) = (&one(a)?, &one(v)?);
        check_1d(a, v, "convolve")?;
        let (a, v) = if v.size() > a.size() { (v, a) } else { (a, v) };
        let (a, v, dt) = common(a, v, "convolve")?;
        correlate_1d(&a, &v, true, mode, dt)
    }

    /// NumPy's `correlate(a, v)` of two 1-d arrays: `c[k] = Σ_n a[n + k] * v[n]`, in NumPy's
    /// default mode `"valid"`; [`correlate_with`] takes the mode.
    ///
    /// ```
    /// let dev = cuprum::Device::default_device();
    /// let a = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?;
    /// let v = cuprum::from_vec(vec![0.0, 1.0, 0.5], &dev)?;
    /// assert_eq!(cuprum::correlate(&a, &v)?.to_vec::<f64>()?, vec![3.5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn correlate(a: &Array, v: &Array) -> Result<Array> {
        correlate_with(a, v, ConvolveMode::Valid)
    }

    /// NumPy's `correlate(a, v, mode)`. When `v` is longer than `a`, the result is NumPy's:
    /// the correlation of `v` with `a`, reversed.
    ///
    /// ```
    /// use cuprum::ConvolveMode::Full;
    /// let dev = cuprum::Device::default_device();
    /// let a = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?;
    /// let v = cuprum::from_vec(vec![0.0, 1.0, 0.5], &dev)?;
    /// assert_eq!(cuprum::correlate_with(&a, &v, Full)?.to_vec::<f64>()?, vec![0.5, 2.0, 3.5, 3.0, 0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn correlate_with(a: &Array, v: &Array, mode: ConvolveMode) -> Result<Array> {
        check_1d(a, v, "correlate")?;
        let (a, v, dt) = common(a, v, "correlate")?;
        if v.size() > a.size() {
            // NumPy conjugates v, then swaps: the conjugate of this correlation, reversed.
            let r = correlate_1d(&v, &a, false, mode, dt)?.flip(None)?;
            return if dt.is_complex() { r.conj() } else { r.as_contiguous() };
        }
        correlate_1d(&a, &v, false, mode, dt)
    }
}

/// SciPy's `_inputs_swap_needed` for inputs of one rank: in `Valid` mode the larger input is
/// the image; one must be at least as large as the other in every dimension.
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
    let c = Correlation { x: &x, w: &w, flip, out_shape: vec![oh, ow], offset: vec![oy, ox], boundary, fill };
    correlate_into(&c, &out)?;
    if swapped && !flip {
        // SciPy: the correlation of the swapped inputs, reversed.
        return out.flip(None)?.as_contiguous();
    }
    Ok(out)
}

/// `fillvalue` in the result's dtype, as SciPy converts it (`np.array(fillvalue, dtype)`):
/// floats round (a complex fill is `v + 0j`); integers truncate toward zero, and a value they
/// cannot hold (NaN and the infinities too) is a ValueError, whatever the mode.
fn fill_value(v: f64, dt: DType) -> Result<Scalar> {
    if dt.is_inexact() {
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

/// `convolve2d`'s and `correlate2d`'s keywords; `Default` is SciPy's (`mode="full"`,
/// `boundary="fill"`, `fillvalue=0`).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Convolve2dOptions {
    pub mode: ConvolveMode,
    pub boundary: Boundary,
    /// The value outside the input with `Boundary::Fill`, converted to the result's dtype.
    pub fillvalue: f64,
}

/// SciPy's `signal.convolve2d(in1, in2)`: the full 2-d convolution of `in1` with the kernel
/// `in2`, zeros outside, in their common dtype (`uint8` stays `uint8`, wrapping as SciPy's
/// loops do).
///
/// ```
/// use cuprum::scipy::signal::{convolve2d, convolve2d_with, Boundary, Convolve2dOptions};
/// use cuprum::ConvolveMode;
/// let dev = cuprum::Device::default_device();
/// let img = cuprum::arange(12, &dev)?.reshape([3, 4])?.astype(cuprum::DType::Float64)?;
/// let k = cuprum::from_slice(&[1.0, -1.0], &[1, 2], &dev)?;
/// assert_eq!(convolve2d(&img, &k)?.shape(), &[3, 5]);
/// let valid = Convolve2dOptions { mode: ConvolveMode::Valid, ..Default::default() };
/// let d = convolve2d_with(&img, &k, &valid)?;          // mode="valid"
/// assert_eq!(d.to_vec::<f64>()?, vec![1.0; 9]); // horizontal differences
/// let wrap = Convolve2dOptions { mode: ConvolveMode::Same, boundary: Boundary::Wrap, ..Default::default() };
/// let s = convolve2d_with(&img, &k, &wrap)?;
/// assert_eq!(s.to_vec::<f64>()?[..4], [-3.0, 1.0, 1.0, 1.0]); // scipy: [[-3, 1, 1, 1], ...]
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn convolve2d(in1: &Array, in2: &Array) -> Result<Array> {
    convolve2d_with(in1, in2, &Convolve2dOptions::default())
}

/// SciPy's `signal.convolve2d(in1, in2, mode=..., boundary=..., fillvalue=...)`.
pub fn convolve2d_with(in1: &Array, in2: &Array, opts: &Convolve2dOptions) -> Result<Array> {
    conv2d(in1, in2, opts.mode, opts.boundary, opts.fillvalue, true)
}

/// SciPy's `signal.correlate2d(in1, in2)`: the 2-d cross-correlation, as [`convolve2d`] with
/// the kernel not flipped.
pub fn correlate2d(in1: &Array, in2: &Array) -> Result<Array> {
    correlate2d_with(in1, in2, &Convolve2dOptions::default())
}

/// SciPy's `signal.correlate2d(in1, in2, mode=..., boundary=..., fillvalue=...)`.
pub fn correlate2d_with(in1: &Array, in2: &Array, opts: &Convolve2dOptions) -> Result<Array> {
    conv2d(in1, in2, opts.mode, opts.boundary, opts.fillvalue, false)
}

/// SciPy's `method` of [`convolve`] and [`correlate`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Method {
    /// SciPy's default, its `choose_conv_method` without `measure`: the FFT where it is
    /// estimated faster and the inputs allow it (not two bools; integers only where their sums
    /// fit float64's 53 bits), else the direct sum. The estimate on the CPU is SciPy's
    /// `_fftconv_faster` (its constants); on a GPU a rule measured on an H100 for cuprum's own
    /// direct kernels and FFT path (`fftconv.rs`, `gpu_fft_faster`). Works for N-d inputs on
    /// both devices.
    #[default]
    Auto,
    /// The direct sum, SciPy's `_correlateND` (or NumPy's 1-d `convolve`/`correlate`).
    Direct,
    /// SciPy's `fftconvolve`, then rounded for integer results and cast to the inputs'
    /// common dtype (as SciPy's `convolve(method='fft')`).
    Fft,
}

impl std::str::FromStr for Method {
    type Err = Error;
    /// `"auto"`, `"direct"` or `"fft"`.
    fn from_str(s: &str) -> Result<Method> {
        match s {
            "auto" => Ok(Method::Auto),
            "direct" => Ok(Method::Direct),
            "fft" => Ok(Method::Fft),
            _ => Err(Error::Value("Acceptable method flags are 'auto', 'direct', or 'fft'.".into())),
        }
    }
}

/// `convolve`'s and `correlate`'s keywords; `Default` is SciPy's (`mode="full"`,
/// `method="auto"`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ConvolveOptions {
    pub mode: ConvolveMode,
    pub method: Method,
}

/// SciPy's `signal.convolve(in1, in2)` (`mode="full"`, `method="auto"`); see [`convolve_with`].
pub fn convolve(in1: &Array, in2: &Array) -> Result<Array> {
    convolve_with(in1, in2, &ConvolveOptions::default())
}

/// SciPy's `signal.convolve(in1, in2, mode, method)`: the N-d convolution of `in1` and `in2` (of the
/// same rank), in their common dtype (NumPy's promotion: `uint8` stays `uint8`, wrapping as
/// SciPy's loops do; `int64` with `uint64` is float64). SciPy's defaults are
/// `ConvolveMode::Full` and `Method::Auto`.
///
/// As SciPy: two 0-d inputs give their product (whatever the mode); inputs of different ranks
/// are a ValueError; in `Valid` mode the larger input is the image (one must be at least as
/// large as the other in every dimension, else ValueError); `Same` gives the shape of `in1`,
/// centred on the full result. 1-d inputs (unless `Same` has the shorter first) are NumPy's
/// [`crate::convolve`]; the others run SciPy's direct N-d sum, which refuses bool and float16
/// results (ValueError "Unsupported type"; NumPy's 1-d path takes them) and, as SciPy's zero
/// padding does, an empty kernel in `Full`/`Same` mode unless the input has length 1 on its
/// empty axes (ValueError; in `Valid` mode an empty kernel gives zeros). NaN and infinities
/// propagate as in SciPy's loops: every tap is multiplied, padding and zero taps included.
///
/// `method`: see [`Method`]. With `Method::Auto`,
/// integer inputs of which one is empty are SciPy's ValueError (its `choose_conv_method` takes
/// their maximum).
///
/// The result is C-contiguous (SciPy's is a reversed view where it swapped the operands of a
/// correlation).
///
/// ```
/// use cuprum::scipy::signal::{convolve, convolve_with, Method};
/// use cuprum::ConvolveMode;
/// let dev = cuprum::Device::default_device();
/// // scipy.signal.convolve(np.arange(8.).reshape(2, 2, 2), [[[1., 1.]]], 'full')
/// let x = cuprum::arange(8, &dev)?.reshape([2, 2, 2])?.astype(cuprum::DType::Float64)?;
/// let k = cuprum::from_slice(&[1.0, 1.0], &[1, 1, 2], &dev)?;
/// let r = convolve(&x, &k)?;
/// assert_eq!(r.shape(), &[2, 2, 3]);
/// assert_eq!(r.to_vec::<f64>()?, vec![0.0, 1.0, 1.0, 2.0, 5.0, 3.0, 4.0, 9.0, 5.0, 6.0, 13.0, 7.0]);
/// // 'valid' keeps the outputs that need no padding: [[[1.], [5.]], [[9.], [13.]]]
/// let v = convolve_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: ConvolveMode::Valid, method: Method::Direct })?;
/// assert_eq!((v.shape(), v.to_vec::<f64>()?), (&[2, 2, 1][..], vec![1.0, 5.0, 9.0, 13.0]));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn convolve_with(in1: &Array, in2: &Array, opts: &ConvolveOptions) -> Result<Array> {
    let ConvolveOptions { mode, method } = *opts;
    crate::array::same_device("convolve", in1, in2)?;
    if in1.ndim() == 0 && in2.ndim() == 0 {
        return crate::multiply(in1, in2);
    }
    if in1.ndim() != in2.ndim() {
        return Err(Error::Value("volume and kernel should have the same dimensionality".into()));
    }
    convolve_nd(in1, in2, mode, method)
}

/// SciPy's `signal.correlate(in1, in2)` (`mode="full"`, `method="auto"`); see [`correlate_with`].
pub fn correlate(in1: &Array, in2: &Array) -> Result<Array> {
    correlate_with(in1, in2, &ConvolveOptions::default())
}

/// SciPy's `signal.correlate(in1, in2, mode, method)`: the N-d cross-correlation `z[k] = Σ_l
/// in1[l] * in2[l - k]`, as [`convolve`] with `in2` reversed (SciPy's `Method::Auto` computes
/// it as that convolution; `Method::Direct` correlates directly: where it swaps the operands,
/// in `Valid` mode when `in2` is the larger and in `Full` mode when `in2` has more elements,
/// it reverses the result). The result's dtype, the errors and the 0-d case are
/// [`convolve`]'s (the message for different ranks: "in1 and in2 should have the same
/// dimensionality"). `Same` centres the result on the full one at `(k - 1) // 2` along an axis
/// of kernel length `k`, where `correlate2d` takes `k // 2`: they differ for even kernels.
///
/// ```
/// use cuprum::scipy::signal::{correlate, correlate_with, Method};
/// use cuprum::ConvolveMode;
/// let dev = cuprum::Device::default_device();
/// // scipy.signal.correlate([[1, 2, 3, 4]], [[1, 10]], 'same') -> [[10, 21, 32, 43]]
/// let x = cuprum::from_slice(&[1i64, 2, 3, 4], &[1, 4], &dev)?;
/// let k = cuprum::from_slice(&[1i64, 10], &[1, 2], &dev)?;
/// let r = correlate_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: ConvolveMode::Same, method: Method::Direct })?;
/// assert_eq!(r.to_vec::<i64>()?, vec![10, 21, 32, 43]);
/// // The kernel larger in 'valid' mode: the operands swap, the result is reversed.
/// let r = correlate_with(&k, &x, &cuprum::scipy::signal::ConvolveOptions { mode: ConvolveMode::Valid, method: Method::Direct })?;
/// assert_eq!(r.to_vec::<i64>()?, vec![43, 32, 21]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn correlate_with(in1: &Array, in2: &Array, opts: &ConvolveOptions) -> Result<Array> {
    let ConvolveOptions { mode, method } = *opts;
    crate::array::same_device("correlate", in1, in2)?;
    // The conjugate of a complex in2 (SciPy's `_reverse_and_conj`).
    let conj = |a: Array| if a.dtype().is_complex() { a.conj() } else { Ok(a) };
    if in1.ndim() == 0 && in2.ndim() == 0 {
        return crate::multiply(in1, &conj(in2.view())?);
    }
    if in1.ndim() != in2.ndim() {
        return Err(Error::Value("in1 and in2 should have the same dimensionality".into()));
    }
    match method {
        Method::Direct => correlate_direct(in1, in2, mode, false),
        // SciPy: convolve_with(in1, in2 reversed and conjugated, &crate::scipy::signal::ConvolveOptions { mode, method }).
        Method::Auto | Method::Fft => convolve_nd(in1, &conj(in2.flip(None)?)?, mode, method),
    }
}

/// SciPy's `convolve` after its checks of rank: the 'valid' swap, the method, then NumPy's 1-d
/// `convolve` or the direct correlation with the kernel reversed.
fn convolve_nd(volume: &Array, kernel: &Array, mode: ConvolveMode, method: Method) -> Result<Array> {
    let (volume, kernel) =
        if swap_needed(mode, volume.shape(), kernel.shape())? { (kernel, volume) } else { (volume, kernel) };
    let use_fft = match method {
        Method::Fft => true,
        Method::Auto => auto_prefers_fft(volume, kernel, mode)?,
        Method::Direct => false,
    };
    if use_fft {
        // SciPy: fftconvolve, rounded for integer results, cast to the inputs' common dtype.
        let rt = crate::promote_types(volume.dtype(), kernel.dtype());
        let out =
            fftconvolve_with(volume, kernel, &crate::scipy::signal::FftConvolveOptions { mode, ..Default::default() })?;
        let out = if rt.is_integer() { out.round(0)? } else { out };
        return if out.dtype() == rt { Ok(out) } else { out.astype(rt) };
    }
    if np_conv_ok(volume, kernel, mode) {
        return numpy::convolve_with(volume, kernel, mode);
    }
    // SciPy: correlate(volume, kernel reversed and conjugated), the correlation conjugating it
    // back.
    let k = kernel.flip(None)?;
    let k = if k.dtype().is_complex() { k.conj()? } else { k };
    correlate_direct(volume, &k, mode, false)
}

/// SciPy's `_np_conv_ok`: 1-d inputs that NumPy's `convolve`/`correlate` handle with SciPy's
/// result (its 'same' has the length of the longer input, SciPy's of the first).
fn np_conv_ok(volume: &Array, kernel: &Array, mode: ConvolveMode) -> bool {
    volume.ndim() == 1 && kernel.ndim() == 1 && (mode != ConvolveMode::Same || volume.size() >= kernel.size())
}

/// SciPy's `choose_conv_method` (without `measure`): whether it would pick the FFT. Integer
/// inputs of which one is empty are its ValueError (it takes their maximum).
fn auto_prefers_fft(volume: &Array, kernel: &Array, mode: ConvolveMode) -> Result<bool> {
    let (dv, dk) = (volume.dtype(), kernel.dtype());
    if (dv.is_integer() || dk.is_integer()) && (volume.size() == 0 || kernel.size() == 0) {
        return Err(Error::Value("zero-size array to reduction operation maximum which has no identity".into()));
    }
    // SciPy sends integer inputs whose sums could exceed float64's 53 bits to the direct sum
    // (max |volume| * max |kernel| * the smaller size > 2**52 - 1), and two bool inputs.
    if dv.is_integer() || dk.is_integer() {
        let amax = |a: &Array| -> Result<f64> { a.astype(DType::Float64)?.abs()?.max(None)?.item::<f64>() };
        let bound = amax(volume)? * amax(kernel)? * volume.size().min(kernel.size()) as f64;
        if bound > 4503599627370495.0 {
            return Ok(false);
        }
    }
    if dv == DType::Bool && dk == DType::Bool {
        return Ok(false);
    }
    let dt = crate::promote_types(dv, dk);
    Ok(fftconv::prefer_fft(&volume.device(), volume.shape(), kernel.shape(), mode, dt))
}

/// SciPy's `_fftconv_faster` (its constants, measured on its machine): whether the FFT is
/// estimated to be faster than the direct sum for these shapes.
fn fftconv_faster(x: &[usize], h: &[usize], mode: ConvolveMode) -> bool {
    let prod = |s: &[i128]| s.iter().product::<i128>();
    let (xs, hs): (Vec<i128>, Vec<i128>) =
        (x.iter().map(|&v| v as i128).collect(), h.iter().map(|&v| v as i128).collect());
    let full: Vec<i128> = xs.iter().zip(&hs).map(|(n, k)| n + k - 1).collect();
    let out: Vec<i128> = match mode {
        ConvolveMode::Full => full.clone(),
        ConvolveMode::Valid => xs.iter().zip(&hs).map(|(n, k)| (n - k).abs() + 1).collect(),
        ConvolveMode::Same => xs.clone(),
    };
    let one_d = xs.len() == 1;
    let direct_ops: i128 = if one_d {
        let (s1, s2) = (xs[0], hs[0]);
        match mode {
            ConvolveMode::Full => s1 * s2,
            ConvolveMode::Valid if s2 >= s1 => (s2 - s1 + 1) * s1,
            ConvolveMode::Valid => (s1 - s2 + 1) * s2,
            ConvolveMode::Same if s1 < s2 => s1 * s2,
            ConvolveMode::Same => s1 * s2 - (s2 / 2) * ((s2 + 1) / 2),
        }
    } else {
        match mode {
            ConvolveMode::Full | ConvolveMode::Valid => prod(&xs).min(prod(&hs)) * prod(&out),
            ConvolveMode::Same => prod(&xs) * prod(&hs),
        }
    };
    let n = prod(&full);
    let fft_ops = (3 * n) as f64 * (n as f64).ln();
    let offset = if one_d { -1e-3 } else { -1e-4 };
    let (o_fft, o_direct, o_offset) = match (one_d, mode) {
        (true, ConvolveMode::Valid) => (1.89095737e-9, 2.1364985e-10, offset),
        (true, ConvolveMode::Full) => (1.7649070e-9, 2.1414831e-10, offset),
        (true, ConvolveMode::Same) if hs[0] <= xs[0] => (3.2646654e-9, 2.8478277e-10, offset),
        (true, ConvolveMode::Same) => (3.21635404e-9, 1.1773253e-8, -1e-5),
        (false, ConvolveMode::Valid) => (1.85927e-9, 2.11242e-8, offset),
        (false, ConvolveMode::Full) => (1.99817e-9, 1.66174e-8, offset),
        (false, ConvolveMode::Same) => (2.04735e-9, 1.55367e-8, offset),
    };
    o_fft * fft_ops < o_direct * direct_ops as f64 + o_offset
}

/// SciPy's `correlate(in1, in2, mode, method='direct')` of inputs of one rank (at least 1):
/// NumPy's 1-d `correlate` where it applies, else the N-d correlation with SciPy's swap of the
/// operands (and the result reversed). `allow_half`: let float16 results through (SciPy's
/// FFT path, summed directly in float32).
fn correlate_direct(in1: &Array, in2: &Array, mode: ConvolveMode, allow_half: bool) -> Result<Array> {
    if np_conv_ok(in1, in2, mode) {
        return numpy::correlate_with(in1, in2, mode);
    }
    // SciPy swaps in 'full' mode when in2 has more elements (its loop is faster so), and in
    // 'valid' mode when in2 is the larger; not in 'same' mode (in1 gives the shape).
    let swapped =
        (mode == ConvolveMode::Full && in2.size() > in1.size()) || swap_needed(mode, in1.shape(), in2.shape())?;
    let (x, w) = if swapped { (in2, in1) } else { (in1, in2) };
    let out = correlate_nd(x, w, mode, allow_half)?;
    if swapped {
        // SciPy: the correlation of the swapped operands, reversed (and conjugated).
        let out = out.flip(None)?;
        return if out.dtype().is_complex() { out.conj() } else { out.as_contiguous() };
    }
    Ok(out)
}

/// A shape as Python prints a tuple: `(3,)`, `(2, 3)`.
fn py_shape(s: &[usize]) -> String {
    match s {
        [n] => format!("({n},)"),
        _ => format!("({})", s.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

/// SciPy's zero padding and `_correlateND`: the correlation of `x` (the image, at least 1-d)
/// with `w` (the kernel, same rank; in 'valid' mode no larger than `x` along any axis) in
/// `mode`, in their common dtype, with SciPy's errors.
fn correlate_nd(x: &Array, w: &Array, mode: ConvolveMode, allow_half: bool) -> Result<Array> {
    let (n, k) = (x.shape(), w.shape());
    let out_shape: Vec<usize> = match mode {
        ConvolveMode::Valid => n.iter().zip(k).map(|(&n, &k)| n + 1 - k).collect(),
        ConvolveMode::Full | ConvolveMode::Same => {
            // SciPy pads x with zeros to n + k - 1 (np.zeros) and copies x into it: a negative
            // length, or an empty kernel axis (which makes the padded axis shorter than x's,
            // unless x's length 1 broadcasts), is NumPy's ValueError.
            let ps: Vec<i64> = n.iter().zip(k).map(|(&n, &k)| n as i64 + k as i64 - 1).collect();
            if ps.iter().any(|&p| p < 0) {
                return Err(Error::Value("negative dimensions are not allowed".into()));
            }
            if n.iter().zip(k).any(|(&n, &k)| k == 0 && n != 1) {
                let target: Vec<usize> = n.iter().zip(&ps).map(|(&n, &p)| n.min(p as usize)).collect();
                return Err(Error::Value(format!(
                    "could not broadcast input array from shape {} into shape {}",
                    py_shape(n),
                    py_shape(&target)
                )));
            }
            if mode == ConvolveMode::Full {
                ps.iter().map(|&p| p as usize).collect()
            } else {
                n.to_vec()
            }
        }
    };
    let dt = crate::promote_types(x.dtype(), w.dtype());
    if dt == DType::Bool || (dt == DType::Float16 && !allow_half) {
        // SciPy's _correlateND has no bool or float16 loop.
        return Err(Error::Value("Unsupported type".into()));
    }
    if out_shape.contains(&0) || w.size() == 0 {
        // Nothing to compute, or an empty kernel: the sums of no taps.
        return crate::zeros(&out_shape, dt, &x.device());
    }
    let (xc, wc, dt) = common(x, w, "correlate")?;
    // The offset of output 0 in x: 'full' k - 1; 'same' k - 1 - (k - 1) // 2 (the full
    // result's centre, SciPy's _centered); 'valid' 0.
    let offset = |k: usize| -> i64 {
        match mode {
            ConvolveMode::Full => k as i64 - 1,
            ConvolveMode::Same => (k - 1 - (k - 1) / 2) as i64,
            ConvolveMode::Valid => 0,
        }
    };
    // Axes where both inputs have length 1 add nothing (one tap, one output, offset 0): drop
    // them, so that inputs of 2 dimensions that matter take the 2-d kernels. The taps keep
    // their C order.
    let keep: Vec<usize> = (0..n.len()).filter(|&i| n[i] != 1 || k[i] != 1).collect();
    let mut xs: Vec<usize> = keep.iter().map(|&i| n[i]).collect();
    let mut ks: Vec<usize> = keep.iter().map(|&i| k[i]).collect();
    let mut os: Vec<usize> = keep.iter().map(|&i| out_shape[i]).collect();
    let mut off: Vec<i64> = keep.iter().map(|&i| offset(k[i])).collect();
    while xs.len() < 2 {
        xs.insert(0, 1);
        ks.insert(0, 1);
        os.insert(0, 1);
        off.insert(0, 0);
    }
    let out = Array::alloc(&out_shape, dt, xc.device(), false)?;
    let (xr, wr) = (xc.reshape(&xs)?, wc.reshape(&ks)?);
    let c = Correlation {
        x: &xr,
        w: &wr,
        flip: false,
        out_shape: os.clone(),
        offset: off,
        boundary: Boundary::Fill,
        fill: Scalar::Int(0),
    };
    correlate_into(&c, &out.reshape(&os)?)?;
    Ok(out)
}
