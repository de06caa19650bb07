//! `scipy.ndimage`'s linear filters: `correlate`, `convolve` (N-d weights), `correlate1d`,
//! `convolve1d`, `gaussian_filter1d`, `gaussian_filter`, `uniform_filter1d`,
//! `uniform_filter`, `sobel`, `prewitt`, `laplace`, `gaussian_laplace` and
//! `gaussian_gradient_magnitude`.
//!
//! SciPy's semantics, to the bit where its C code allows it:
//!
//! - Everything is computed in float64 and converted to the output dtype (the input's unless
//!   [`FilterOptions::output`] says otherwise) as SciPy's C casts do on x86-64: integers
//!   truncate toward zero and keep their low bits (`-1.5` into `uint8` is 255, `300.0` is 44),
//!   out-of-range values and NaN go through `cvttsd2si` (`i32::MIN`, `i64::MIN`); a bool output
//!   is the low byte of that integer, nonzero or not (0.5 is `false`). Between the passes of
//!   a separable filter SciPy keeps that whole byte in its bool array (253 for -3.0) and the
//!   next pass reads it: so do these (a `uint8` intermediate); the result is 0 or 1.
//! - Separable filters run 1-d passes axis after axis with the intermediate stored in the
//!   output dtype (a `uint8` Gaussian truncates after every pass, as SciPy's does).
//! - A 1-d correlation sums as `NI_Correlate1D`: odd symmetric weights (within `DBL_EPSILON`)
//!   as `x[0] w[0] + Σ (x[-j] + x[j]) w[-j]`, antisymmetric ones with `x[-j] - x[j]`, others
//!   from the last tap; `uniform_filter1d` keeps SciPy's running sum. The N-d correlation
//!   skips weights of magnitude at most `DBL_EPSILON` (so `inf * 0` does not appear) and sums
//!   the others in C order.
//! - Gaussian weights are `_gaussian_kernel1d`'s, computed in float64 on the host (for orders
//!   2 and above SciPy's last step is a BLAS `dot`, whose FMA use we copy for orders 2 and 3,
//!   the ones checked; other orders may differ from SciPy's weights by an ulp).
//! - float16 arrays are refused with SciPy's `RuntimeError` (its C loops have no float16).
//!
//! The CPU (`cpu.rs`) extends each line into a buffer as `NI_ExtendLine` does and runs the
//! lines in parallel; the GPU (`cuda.rs`, `filters.cu`) runs one kernel per 1-d pass, or, for
//! the two passes of a 2-d separable filter, one fused kernel with the tile, its halo and the
//! rounded intermediate in shared memory.

mod cpu;
pub(crate) mod cuda;

use super::{check_axes, per_axis, Mode};
use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;

/// The keyword arguments of the filters (SciPy's `mode`, `cval`, `origin`, `axes`, `output`,
/// and the Gaussian's `order`, `truncate`, `radius`). Each function reads the fields SciPy's
/// function of the same name takes and ignores the others. Per-axis sequences (`modes`,
/// `origin`, `order`, `radius`) take one value for every axis, or a single value for all
/// (a one-element sequence is SciPy's scalar).
///
/// ```
/// use cuprum::scipy::ndimage::{FilterOptions, Mode};
/// let o = FilterOptions { mode: Mode::Constant, cval: 1.0, ..Default::default() };
/// assert_eq!(o.truncate, 4.0);
/// ```
#[derive(Debug)]
pub struct FilterOptions {
    /// The boundary mode of every axis (SciPy's `mode` as one string).
    pub mode: Mode,
    /// One mode per filtered axis (SciPy's `mode` as a sequence); empty: `mode` everywhere.
    /// `correlate`, `convolve` and the 1-d filters refuse a sequence (a `RuntimeError`).
    pub modes: Vec<Mode>,
    /// The value outside the image in `Mode::Constant`.
    pub cval: f64,
    /// The filter's placement per axis (empty: 0).
    pub origin: Vec<isize>,
    /// The axes to filter (`None`: all).
    pub axes: Option<Vec<isize>>,
    /// The output dtype (`None`: the input's).
    pub output: Option<DType>,
    /// SciPy's `output` as an array: the result is computed in its dtype (`output` is then
    /// ignored) and written into it, and the function returns a view of it. It must have the
    /// input's shape (SciPy's RuntimeError) and be on the input's device.
    pub out: Option<Array>,
    /// Gaussian filters: the derivative order per axis (empty: 0).
    pub order: Vec<usize>,
    /// Gaussian filters: the kernel's half-width in standard deviations (default 4).
    pub truncate: f64,
    /// Gaussian filters: the kernel's half-width per axis, overriding `truncate`.
    pub radius: Option<Vec<usize>>,
}

impl Clone for FilterOptions {
    /// A copy of the options (`out` as a view of the same array).
    fn clone(&self) -> Self {
        FilterOptions {
            mode: self.mode,
            modes: self.modes.clone(),
            cval: self.cval,
            origin: self.origin.clone(),
            axes: self.axes.clone(),
            output: self.output,
            out: self.out.as_ref().map(Array::view),
            order: self.order.clone(),
            truncate: self.truncate,
            radius: self.radius.clone(),
        }
    }
}

impl Default for FilterOptions {
    fn default() -> Self {
        FilterOptions {
            mode: Mode::Reflect,
            modes: Vec::new(),
            cval: 0.0,
            origin: Vec::new(),
            axes: None,
            output: None,
            out: None,
            order: Vec::new(),
            truncate: 4.0,
            radius: None,
        }
    }
}

/// A 1-d kernel of a pass.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kernel1d {
    /// A correlation with `w` (`sym`: 1 symmetric, -1 antisymmetric, 0 neither, as SciPy
    /// tests them).
    Corr { w: Vec<f64>, sym: i32 },
    /// The running mean of `size` values.
    Uniform { size: usize },
}

impl Kernel1d {
    fn corr(w: Vec<f64>) -> Kernel1d {
        let sym = symmetry(&w);
        Kernel1d::Corr { w, sym }
    }
    pub(crate) fn len(&self) -> usize {
        match self {
            Kernel1d::Corr { w, .. } => w.len(),
            Kernel1d::Uniform { size } => *size,
        }
    }
}

/// One 1-d pass: output `l` reads input `l + j - origin` for `j` in `-size1..=size2`
/// (`size1 = len / 2`, `size2 = len - size1 - 1`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Pass {
    pub axis: usize,
    pub k: Kernel1d,
    pub origin: i64,
    pub mode: Mode,
}

impl Pass {
    /// Elements read before and after each output (SciPy's line-buffer extension).
    pub(crate) fn halo(&self) -> (i64, i64) {
        let n = self.k.len() as i64;
        let s1 = n / 2;
        (s1 + self.origin, n - s1 - 1 - self.origin)
    }
}

/// SciPy's symmetry test of `NI_Correlate1D` (odd lengths only, within `DBL_EPSILON`).
fn symmetry(w: &[f64]) -> i32 {
    let n = w.len();
    if n.is_multiple_of(2) {
        return 0;
    }
    let c = n / 2;
    if (1..=c).all(|i| (w[c + i] - w[c - i]).abs() <= f64::EPSILON) {
        return 1;
    }
    if (1..=c).all(|i| (w[c + i] + w[c - i]).abs() <= f64::EPSILON) {
        return -1;
    }
    0
}

/// The N-d correlation of `correlate`/`convolve`: the nonzero taps as (C-order index
/// offsets relative to the output, weight).
#[derive(Clone, Debug)]
pub(crate) struct Taps {
    /// Per tap, per axis, the input coordinate minus the output's.
    pub offsets: Vec<Vec<i64>>,
    pub weights: Vec<f64>,
    pub mode: Mode,
    pub cval: f64,
}

// ------------------------------------------------------------------ conversions

/// x86-64's `cvttsd2si` of 32 bits (NaN and out of range: `i32::MIN`).
#[inline]
pub(crate) fn cvt32(v: f64) -> i32 {
    crate::backend::cpu::f64_to_i32_c(v)
}

/// The value `v` becomes once stored in `dt` (SciPy's C cast) and read back as a double. A
/// bool keeps the whole byte SciPy stores (253 for -3.0), which its next pass reads.
#[inline]
pub(crate) fn round_trip(v: f64, dt: DType) -> f64 {
    use crate::backend::cpu::{f64_to_i64_c, f64_to_u64_c};
    match dt {
        DType::Float64 | DType::Complex128 => v,
        DType::Float32 | DType::Complex64 => v as f32 as f64,
        DType::Float16 => half::f16::from_f64(v).to_f64(),
        DType::Bool => cvt32(v) as u8 as f64,
        DType::Int8 => cvt32(v) as i8 as f64,
        DType::Int16 => cvt32(v) as i16 as f64,
        DType::Int32 => cvt32(v) as f64,
        DType::UInt8 => cvt32(v) as u8 as f64,
        DType::UInt16 => cvt32(v) as u16 as f64,
        DType::UInt32 => f64_to_i64_c(v) as u32 as f64,
        DType::Int64 => f64_to_i64_c(v) as f64,
        DType::UInt64 => f64_to_u64_c(v) as f64,
    }
}

// ------------------------------------------------------------------ argument handling

fn check_dtype(dt: DType) -> Result<()> {
    if dt.is_complex() {
        // The linear filters take complex values by their parts before this check; SciPy's
        // rank, minimum and maximum filters refuse them.
        return Err(Error::Type("Complex type not supported".into()));
    }
    if dt == DType::Float16 {
        return Err(Error::Runtime(format!("array type dtype('{dt}') not supported")));
    }
    Ok(())
}

fn modes_of(o: &FilterOptions, n: usize) -> Result<Vec<Mode>> {
    per_axis(&o.modes, n, o.mode)
}

/// The one mode of the functions that take no sequence of modes.
fn single_mode(o: &FilterOptions) -> Result<Mode> {
    match o.modes.len() {
        0 => Ok(o.mode),
        1 => Ok(o.modes[0]),
        _ => Err(Error::Runtime("A sequence of modes is not supported".into())),
    }
}

/// The one origin of the 1-d filters.
fn single_origin(o: &FilterOptions) -> Result<i64> {
    match o.origin.len() {
        0 => Ok(0),
        1 => Ok(o.origin[0] as i64),
        _ => Err(Error::Type("origin of a 1-d filter must be an integer".into())),
    }
}

/// The output dtype (of `o.out`, else `o.output`, else the input's), with SciPy's checks of an
/// output array.
fn out_dtype(x: &Array, o: &FilterOptions) -> Result<DType> {
    check_dtype(x.dtype())?;
    let dt = requested_dtype(x, o)?.unwrap_or(x.dtype());
    check_dtype(dt)?;
    Ok(dt)
}

/// The dtype the caller asked for (of `o.out`, else `o.output`), with SciPy's checks of an
/// output array.
fn requested_dtype(x: &Array, o: &FilterOptions) -> Result<Option<DType>> {
    match &o.out {
        Some(out) => {
            if out.shape() != x.shape() {
                return Err(Error::Runtime("output shape not correct".into()));
            }
            crate::array::same_device("ndimage filter output", x, out)?;
            Ok(Some(out.dtype()))
        }
        None => Ok(o.output),
    }
}

fn laplace_parts(x: &Array, _: Option<&Array>, o: &FilterOptions) -> Result<Array> {
    laplace_with(x, o)
}

/// SciPy's `_complex_via_real_components`: the linear filter `f` of a complex input, or with
/// complex weights `w`, as real filters of the parts, `(xr + i xi) ∗ (wr + i wi) = (xr∗wr -
/// xi∗wi) + i (xr∗wi + xi∗wr)` (the imaginary part of the input filtered with cval 0). The
/// result is complex: the input's dtype, or for a real input SciPy's `promote_types(dtype,
/// complex64)`; an output dtype or array must be complex (SciPy's RuntimeError).
fn by_parts(
    x: &Array,
    w: Option<&Array>,
    o: &FilterOptions,
    f: impl Fn(&Array, Option<&Array>, &FilterOptions) -> Result<Array>,
) -> Result<Array> {
    let natural = if x.dtype().is_complex() { x.dtype() } else { crate::promote_types(x.dtype(), DType::Complex64) };
    let dt = requested_dtype(x, o)?.unwrap_or(natural);
    if !dt.is_complex() {
        return Err(Error::Runtime("output must have complex dtype".into()));
    }
    let part_dt = natural.real_dtype();
    let po = |cval: f64| FilterOptions { output: Some(part_dt), out: None, cval, ..o.clone() };
    let (xr, xi) = if x.dtype().is_complex() { (x.real(), Some(x.imag()?)) } else { (x.astype(part_dt)?, None) };
    let (wr, wi) = match w {
        Some(w) if w.dtype().is_complex() => (Some(w.real()), Some(w.imag()?)),
        Some(w) => (Some(w.view()), None),
        None => (None, None),
    };
    let (re, im) = match (&xi, &wi) {
        (Some(xi), Some(wi)) => (
            crate::subtract(&f(&xr, wr.as_ref(), &po(o.cval))?, &f(xi, Some(wi), &po(0.0))?)?,
            crate::add(&f(&xr, Some(wi), &po(o.cval))?, &f(xi, wr.as_ref(), &po(0.0))?)?,
        ),
        (Some(xi), None) => (f(&xr, wr.as_ref(), &po(o.cval))?, f(xi, wr.as_ref(), &po(0.0))?),
        (None, Some(wi)) => (f(&xr, wr.as_ref(), &po(o.cval))?, f(&xr, Some(wi), &po(o.cval))?),
        (None, None) => return Err(Error::Value("by_parts: nothing complex".into())),
    };
    finish(crate::ufunc::complex::from_parts(&re, &im)?.astype(dt)?, o)
}

/// The result `r`, written into `o.out` when there is one (a view of it returned).
fn finish(r: Array, o: &FilterOptions) -> Result<Array> {
    match &o.out {
        None => Ok(r),
        Some(out) => {
            let mut v = out.view();
            v.assign(&r)?;
            Ok(v)
        }
    }
}

fn invalid_origin(origin: i64, lenw: usize) -> bool {
    let l = lenw as i64;
    origin < -(l / 2) || origin > (l - 1) / 2
}

// ------------------------------------------------------------------ execution

/// Runs `passes` over `x` into a new array of `dt` (the input converted when there is none).
fn run_passes(x: &Array, passes: &[Pass], cval: f64, dt: DType) -> Result<Array> {
    if passes.is_empty() {
        return x.astype(dt);
    }
    crate::core::dtype::no_complex("scipy.ndimage filter", x.dtype())?;
    // SciPy's line buffer (a line and its halo, float64): a window too large for memory is its
    // MemoryError on both devices (the GPU needs no such buffer, but gives SciPy's answer).
    for p in passes {
        let (before, after) = p.halo();
        let line = x.shape()[p.axis].saturating_add(before.max(0) as usize).saturating_add(after.max(0) as usize);
        crate::core::alloc::check_host_len::<f64>(line)?;
    }
    let out = Array::alloc(x.shape(), dt, x.device(), false)?;
    if out.size() == 0 {
        return Ok(out);
    }
    match out.device() {
        Device::Cpu => cpu::passes(x, passes, cval, &out)?,
        Device::Cuda(_) => cuda::passes(x, passes, cval, &out)?,
    }
    Ok(out)
}

/// Runs the N-d correlation `t` over `x` into a new array of `dt`.
fn run_taps(x: &Array, t: &Taps, dt: DType) -> Result<Array> {
    let out = Array::alloc(x.shape(), dt, x.device(), false)?;
    if out.size() == 0 {
        return Ok(out);
    }
    match out.device() {
        Device::Cpu => cpu::correlate_nd(x, t, &out)?,
        Device::Cuda(_) => cuda::correlate_nd(x, t, &out)?,
    }
    Ok(out)
}

// ------------------------------------------------------------------ correlate / convolve

fn correlate_or_convolve(x: &Array, weights: &Array, o: &FilterOptions, convolution: bool) -> Result<Array> {
    if x.dtype().is_complex() || weights.dtype().is_complex() {
        // As for NumPy's correlate, a correlation conjugates complex weights.
        let w = if weights.dtype().is_complex() && !convolution { weights.conj()? } else { weights.view() };
        return by_parts(x, Some(&w), o, |x, w, o| correlate_or_convolve(x, w.expect("weights"), o, convolution));
    }
    let dt = out_dtype(x, o)?;
    let ndim = x.ndim();
    let axes = check_axes(&o.axes, ndim)?;
    let wv = weights.astype(DType::Float64)?.to_device(&Device::Cpu)?.to_vec::<f64>()?;
    let mut wshape = weights.shape().to_vec();
    // _expand_footprint: the weights' axes go to the filtered axes in increasing order.
    if axes.len() < ndim {
        if wshape.len() != axes.len() {
            return Err(Error::Runtime(format!(
                "weights.ndim ({}) must match len(axes) ({})",
                wshape.len(),
                axes.len()
            )));
        }
        let mut sorted = axes.clone();
        sorted.sort_unstable();
        let mut full = vec![1usize; ndim];
        for (k, &a) in sorted.iter().enumerate() {
            full[a] = wshape[k];
        }
        wshape = full;
    }
    // _expand_origin: origins follow `axes` as given.
    let given = per_axis(&o.origin, axes.len(), 0)?;
    let mut origins = vec![0i64; ndim];
    if axes.len() < ndim {
        for (k, &a) in axes.iter().enumerate() {
            origins[a] = given[k] as i64;
        }
    } else {
        for (k, g) in given.iter().enumerate() {
            origins[k] = *g as i64;
        }
    }
    let nonzero = wshape.iter().filter(|&&s| s > 0).count();
    if nonzero != ndim || wshape.len() != ndim {
        return Err(Error::Runtime(format!("weights.ndim ({nonzero}) must match len(axes) ({})", axes.len())));
    }
    let mut w = wv;
    if convolution {
        w.reverse(); // reversed along every axis: the whole C-order buffer reversed
        for (d, org) in origins.iter_mut().enumerate() {
            *org = -*org;
            if wshape[d] & 1 == 0 {
                *org -= 1;
            }
        }
    }
    for (d, &org) in origins.iter().enumerate() {
        if invalid_origin(org, wshape[d]) {
            return Err(Error::Value(
                "Invalid origin; origin must satisfy -(weights.shape[k] // 2) <= origin[k] <= (weights.shape[k]-1) // 2"
                    .into(),
            ));
        }
    }
    let mode = single_mode(o)?;
    let mut offsets = Vec::new();
    let mut weights_nz = Vec::new();
    for (i, &v) in w.iter().enumerate() {
        if v.abs() <= f64::EPSILON {
            continue;
        }
        let mut off = vec![0i64; ndim];
        let mut r = i;
        for d in (0..ndim).rev() {
            let j = (r % wshape[d]) as i64;
            r /= wshape[d];
            off[d] = j - (wshape[d] / 2) as i64 - origins[d];
        }
        offsets.push(off);
        weights_nz.push(v);
    }
    let t = Taps { offsets, weights: weights_nz, mode, cval: o.cval };
    finish(run_taps(x, &t, dt)?, o)
}

/// SciPy's `ndimage.correlate` with the default keywords ([`FilterOptions::default()`]); see
/// [`correlate_with`].
pub fn correlate(input: &Array, weights: &Array) -> Result<Array> {
    correlate_with(input, weights, &FilterOptions::default())
}

/// SciPy's `ndimage.correlate(input, weights)`: the N-d correlation with `weights` (of the
/// input's rank, or of `len(axes)`): `out[i] = Σ_j w[j] x[i + j - c - origin]` with `c` the
/// weights' centre (`shape // 2`), the weights of magnitude at most `DBL_EPSILON` skipped, the
/// others summed in C order in float64.
///
/// ```
/// use cuprum::scipy::ndimage::{correlate, correlate_with, FilterOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![0.0, 1.0, 2.0, 3.0], &dev)?;
/// let w = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?;
/// let r = correlate(&x, &w)?;
/// assert_eq!(r.to_vec::<f64>()?, vec![3.0, 8.0, 14.0, 17.0]); // scipy: [ 3.  8. 14. 17.]
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn correlate_with(input: &Array, weights: &Array, opts: &FilterOptions) -> Result<Array> {
    correlate_or_convolve(input, weights, opts, false)
}

/// SciPy's `ndimage.convolve` with the default keywords ([`FilterOptions::default()`]); see
/// [`convolve_with`].
pub fn convolve(input: &Array, weights: &Array) -> Result<Array> {
    convolve_with(input, weights, &FilterOptions::default())
}

/// SciPy's `ndimage.convolve(input, weights)`: [`correlate`] with the weights reversed and
/// the origin mirrored (`-origin`, less one along even axes).
///
/// ```
/// use cuprum::scipy::ndimage::{convolve, convolve_with, FilterOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![0.0, 1.0, 2.0, 3.0], &dev)?;
/// let w = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?;
/// let r = convolve(&x, &w)?;
/// assert_eq!(r.to_vec::<f64>()?, vec![1.0, 4.0, 10.0, 15.0]); // scipy: [ 1.  4. 10. 15.]
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn convolve_with(input: &Array, weights: &Array, opts: &FilterOptions) -> Result<Array> {
    correlate_or_convolve(input, weights, opts, true)
}

// ------------------------------------------------------------------ 1-d filters

fn check_1d_weights(w: &[f64]) -> Result<()> {
    if w.is_empty() {
        return Err(Error::Runtime("no filter weights given".into()));
    }
    Ok(())
}

/// SciPy's `ndimage.correlate1d` with the default keywords ([`FilterOptions::default()`]); see
/// [`correlate1d_with`].
pub fn correlate1d(input: &Array, weights: &[f64], axis: isize) -> Result<Array> {
    correlate1d_with(input, weights, axis, &FilterOptions::default())
}

/// SciPy's `ndimage.correlate1d(input, weights, axis)`: the 1-d correlation along `axis`
/// (`origin[0]` places it).
///
/// ```
/// use cuprum::scipy::ndimage::{correlate1d, correlate1d_with, FilterOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![2i32, 8, 0, 4, 1, 9, 9, 0], &dev)?;
/// let r = correlate1d(&x, &[1.0, 3.0], -1)?;
/// assert_eq!(r.to_vec::<i32>()?, vec![8, 26, 8, 12, 7, 28, 36, 9]); // scipy's example
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn correlate1d_with(input: &Array, weights: &[f64], axis: isize, opts: &FilterOptions) -> Result<Array> {
    if input.dtype().is_complex() {
        return by_parts(input, None, opts, |x, _, o| correlate1d_with(x, weights, axis, o));
    }
    let dt = out_dtype(input, opts)?;
    check_1d_weights(weights)?;
    let axis = normalize_axis(axis, input.ndim())?;
    let origin = single_origin(opts)?;
    if invalid_origin(origin, weights.len()) {
        return Err(Error::Value(
            "Invalid origin; origin must satisfy -(len(weights) // 2) <= origin <= (len(weights)-1) // 2".into(),
        ));
    }
    let mode = single_mode(opts)?;
    let p = Pass { axis, k: Kernel1d::corr(weights.to_vec()), origin, mode };
    finish(run_passes(input, &[p], opts.cval, dt)?, opts)
}

/// SciPy's `ndimage.convolve1d` with the default keywords ([`FilterOptions::default()`]); see
/// [`convolve1d_with`].
pub fn convolve1d(input: &Array, weights: &[f64], axis: isize) -> Result<Array> {
    convolve1d_with(input, weights, axis, &FilterOptions::default())
}

/// SciPy's `ndimage.convolve1d(input, weights, axis)`: [`correlate1d`] with the weights
/// reversed and the origin mirrored.
///
/// ```
/// use cuprum::scipy::ndimage::{convolve1d, convolve1d_with, FilterOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![2i32, 8, 0, 4, 1, 9, 9, 0], &dev)?;
/// let r = convolve1d(&x, &[1.0, 3.0], -1)?;
/// assert_eq!(r.to_vec::<i32>()?, vec![14, 24, 4, 13, 12, 36, 27, 0]); // scipy's example
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn convolve1d_with(input: &Array, weights: &[f64], axis: isize, opts: &FilterOptions) -> Result<Array> {
    check_1d_weights(weights)?;
    let mut w = weights.to_vec();
    w.reverse();
    let mut origin = -single_origin(opts)?;
    if w.len() & 1 == 0 {
        origin -= 1;
    }
    let o = FilterOptions { origin: vec![origin as isize], ..opts.clone() };
    correlate1d_with(input, &w, axis, &o)
}

/// SciPy's `_gaussian_kernel1d(sigma, order, radius)` in float64. A radius whose `2 * radius + 1`
/// weights cannot be held (a huge sigma or radius) is SciPy's MemoryError.
pub(crate) fn gaussian_kernel1d(sigma: f64, order: usize, radius: usize) -> Result<Vec<f64>> {
    let s2 = sigma * sigma;
    let n = radius.checked_mul(2).and_then(|v| v.checked_add(1)).ok_or(crate::core::alloc::oom::<f64>(usize::MAX))?;
    // Past isize::MAX bytes the reservation fails, so `radius` fits an i64 below.
    let mut phi = crate::core::alloc::vec_with_capacity::<f64>(n)?;
    let r = radius as i64;
    let c = -0.5 / s2;
    phi.extend((-r..=r).map(|x| (c * (x * x) as f64).exp()));
    // NumPy's pairwise sum (`np.sum`), as SciPy normalises the weights.
    let sum = crate::reduce::cpu::pairwise_sum(&phi);
    let phi: Vec<f64> = phi.iter().map(|v| v / sum).collect();
    if order == 0 {
        return Ok(phi);
    }
    // q(x) phi(x): q's coefficients by q' + q p' with p' = -x / sigma^2 (SciPy's matrix).
    let mut q = vec![0.0f64; order + 1];
    q[0] = 1.0;
    let p = 1.0 / -s2;
    for _ in 0..order {
        let mut nq = vec![0.0f64; order + 1];
        for i in 0..=order {
            let a = if i < order { (i + 1) as f64 * q[i + 1] } else { 0.0 };
            let b = if i >= 1 { p * q[i - 1] } else { 0.0 };
            nq[i] = a + b;
        }
        q = nq;
    }
    Ok((-r..=r)
        .zip(&phi)
        .map(|(x, &ph)| {
            let mut s = 0.0f64;
            let mut xp = 1i64;
            for (k, &qk) in q.iter().enumerate() {
                if k > 0 {
                    xp = xp.wrapping_mul(x);
                }
                // SciPy's `(x ** k).dot(q)` is a BLAS dgemv: order 3 sums plainly, the others
                // as fused multiply-adds (as OpenBLAS does here).
                s = if order == 3 { s + xp as f64 * qk } else { (xp as f64).mul_add(qk, s) };
            }
            s * ph
        })
        .collect())
}

/// The Gaussian pass of `gaussian_filter1d`: its reversed kernel, or SciPy's ValueError.
fn gaussian_pass(
    sigma: f64,
    axis: usize,
    order: usize,
    mode: Mode,
    truncate: f64,
    radius: Option<usize>,
) -> Result<Pass> {
    let lw = match radius {
        Some(r) => r,
        None => {
            let v = truncate * sigma + 0.5;
            if !v.is_finite() {
                return Err(Error::Value(format!("cannot convert float {v} to integer")));
            }
            let t = v.trunc();
            if t < 0.0 {
                return Err(Error::Value("Radius must be a nonnegative integer.".into()));
            }
            t as usize
        }
    };
    if sigma * sigma == 0.0 {
        // SciPy: Python's ZeroDivisionError (-0.5 / sigma**2), which has no kind here.
        return Err(Error::Value("float division by zero (sigma ** 2 is 0)".into()));
    }
    let mut w = gaussian_kernel1d(sigma, order, lw)?;
    w.reverse();
    Ok(Pass { axis, k: Kernel1d::corr(w), origin: 0, mode })
}

/// SciPy's `ndimage.gaussian_filter1d` with the default keywords ([`FilterOptions::default()`]); see
/// [`gaussian_filter1d_with`].
pub fn gaussian_filter1d(input: &Array, sigma: f64, axis: isize) -> Result<Array> {
    gaussian_filter1d_with(input, sigma, axis, &FilterOptions::default())
}

/// SciPy's `ndimage.gaussian_filter1d(input, sigma, axis, order)`: the Gaussian (or its
/// `order`-th derivative, `opts.order[0]`) of standard deviation `sigma` along `axis`, of
/// half-width `int(truncate * sigma + 0.5)` (or `opts.radius[0]`).
///
/// ```
/// use cuprum::scipy::ndimage::{gaussian_filter1d, gaussian_filter1d_with, FilterOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0], &dev)?;
/// let r = gaussian_filter1d(&x, 1.0, -1)?.to_vec::<f64>()?;
/// let scipy = [1.42704095, 2.06782203, 3.0, 3.93217797, 4.57295905];
/// assert!(r.iter().zip(scipy).all(|(a, b)| (a - b).abs() < 1e-8));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn gaussian_filter1d_with(input: &Array, sigma: f64, axis: isize, opts: &FilterOptions) -> Result<Array> {
    if input.dtype().is_complex() {
        return by_parts(input, None, opts, |x, _, o| gaussian_filter1d_with(x, sigma, axis, o));
    }
    let dt = out_dtype(input, opts)?;
    let axis = normalize_axis(axis, input.ndim())?;
    let order = match opts.order.len() {
        0 => 0,
        1 => opts.order[0],
        _ => return Err(Error::Type("order of gaussian_filter1d must be an integer".into())),
    };
    let radius = match opts.radius.as_deref() {
        None => None,
        Some([r]) => Some(*r),
        Some(_) => return Err(Error::Value("Radius must be a nonnegative integer.".into())),
    };
    let p = gaussian_pass(sigma, axis, order, single_mode(opts)?, opts.truncate, radius)?;
    finish(run_passes(input, &[p], opts.cval, dt)?, opts)
}

/// The passes of `gaussian_filter(x, sigma, order, mode(s))` over `axes`.
fn gaussian_passes(ndim: usize, sigma: &[f64], o: &FilterOptions, modes: &[Mode], axes: &[usize]) -> Result<Vec<Pass>> {
    let _ = ndim;
    let n = axes.len();
    let sig = per_axis(sigma, n, 0.0)?;
    if sigma.is_empty() {
        return Err(Error::Runtime("sequence argument must have length equal to input rank".into()));
    }
    let orders = per_axis(&o.order, n, 0)?;
    let radii: Vec<Option<usize>> = match &o.radius {
        None => vec![None; n],
        Some(r) => per_axis(r, n, 0)?.into_iter().map(Some).collect(),
    };
    let mut passes = Vec::new();
    for k in 0..n {
        if sig[k] > 1e-15 {
            passes.push(gaussian_pass(sig[k], axes[k], orders[k], modes[k], o.truncate, radii[k])?);
        }
    }
    Ok(passes)
}

/// SciPy's `ndimage.gaussian_filter` with the default keywords ([`FilterOptions::default()`]); see
/// [`gaussian_filter_with`].
pub fn gaussian_filter(input: &Array, sigma: &[f64]) -> Result<Array> {
    gaussian_filter_with(input, sigma, &FilterOptions::default())
}

/// SciPy's `ndimage.gaussian_filter(input, sigma)`: 1-d Gaussian filters along each axis
/// (`opts.axes`) whose `sigma` exceeds 1e-15, in turn, each pass stored in the output dtype.
/// `sigma`, `opts.order`, `opts.modes` and `opts.radius` are per axis or one for all.
///
/// ```
/// use cuprum::scipy::ndimage::{gaussian_filter, gaussian_filter_with, FilterOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::arange(25, &dev)?.reshape([5, 5])?.astype(cuprum::DType::Float64)?;
/// let r = gaussian_filter(&x, &[1.0])?.to_vec::<f64>()?;
/// assert!((r[0] - 2.562245702347041).abs() < 1e-12 && (r[12] - 12.0).abs() < 1e-12); // scipy
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn gaussian_filter_with(input: &Array, sigma: &[f64], opts: &FilterOptions) -> Result<Array> {
    if input.dtype().is_complex() {
        return by_parts(input, None, opts, |x, _, o| gaussian_filter_with(x, sigma, o));
    }
    let dt = out_dtype(input, opts)?;
    let axes = check_axes(&opts.axes, input.ndim())?;
    let modes = modes_of(opts, axes.len())?;
    let passes = gaussian_passes(input.ndim(), sigma, opts, &modes, &axes)?;
    finish(run_passes(input, &passes, opts.cval, dt)?, opts)
}

/// SciPy's `ndimage.uniform_filter1d` with the default keywords ([`FilterOptions::default()`]); see
/// [`uniform_filter1d_with`].
pub fn uniform_filter1d(input: &Array, size: usize, axis: isize) -> Result<Array> {
    uniform_filter1d_with(input, size, axis, &FilterOptions::default())
}

/// SciPy's `ndimage.uniform_filter1d(input, size, axis)`: the running mean of `size` values
/// along `axis` (SciPy's running sum in float64, so its rounding too).
///
/// ```
/// use cuprum::scipy::ndimage::{uniform_filter1d, uniform_filter1d_with, FilterOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![2i32, 8, 0, 4, 1, 9, 9, 0], &dev)?;
/// let r = uniform_filter1d(&x, 3, -1)?;
/// assert_eq!(r.to_vec::<i32>()?, vec![4, 3, 4, 1, 4, 6, 6, 3]); // scipy's example
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn uniform_filter1d_with(input: &Array, size: usize, axis: isize, opts: &FilterOptions) -> Result<Array> {
    if input.dtype().is_complex() {
        return by_parts(input, None, opts, |x, _, o| uniform_filter1d_with(x, size, axis, o));
    }
    let axis = normalize_axis(axis, input.ndim())?;
    if size < 1 {
        return Err(Error::Runtime("incorrect filter size".into()));
    }
    let dt = out_dtype(input, opts)?;
    let origin = single_origin(opts)?;
    let s = size as i64;
    if s / 2 + origin < 0 || s / 2 + origin >= s {
        return Err(Error::Value("invalid origin".into()));
    }
    let p = Pass { axis, k: Kernel1d::Uniform { size }, origin, mode: single_mode(opts)? };
    finish(run_passes(input, &[p], opts.cval, dt)?, opts)
}

/// SciPy's `ndimage.uniform_filter` with the default keywords ([`FilterOptions::default()`]); see
/// [`uniform_filter_with`].
pub fn uniform_filter(input: &Array, size: &[usize]) -> Result<Array> {
    uniform_filter_with(input, size, &FilterOptions::default())
}

/// SciPy's `ndimage.uniform_filter(input, size)`: [`uniform_filter1d`] along each axis (of
/// `opts.axes`) whose size exceeds 1, in turn; `size` and `opts.origin` per axis or one.
///
/// ```
/// use cuprum::scipy::ndimage::{uniform_filter, uniform_filter_with, FilterOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_slice(&[0.0, 3.0, 0.0, 6.0], &[2, 2], &dev)?;
/// let r = uniform_filter(&x, &[2])?;
/// assert_eq!(r.to_vec::<f64>()?, vec![0.0, 1.5, 0.0, 2.25]); // scipy: [[0, 1.5], [0, 2.25]]
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn uniform_filter_with(input: &Array, size: &[usize], opts: &FilterOptions) -> Result<Array> {
    if input.dtype().is_complex() {
        return by_parts(input, None, opts, |x, _, o| uniform_filter_with(x, size, o));
    }
    let dt = out_dtype(input, opts)?;
    let axes = check_axes(&opts.axes, input.ndim())?;
    let n = axes.len();
    let sizes = per_axis(size, n, 3)?;
    let origins = per_axis(&opts.origin, n, 0)?;
    let modes = modes_of(opts, n)?;
    let mut passes = Vec::new();
    for k in 0..n {
        if sizes[k] > 1 {
            let s = sizes[k] as i64;
            let org = origins[k] as i64;
            if s / 2 + org < 0 || s / 2 + org >= s {
                return Err(Error::Value("invalid origin".into()));
            }
            passes.push(Pass { axis: axes[k], k: Kernel1d::Uniform { size: sizes[k] }, origin: org, mode: modes[k] });
        }
    }
    finish(run_passes(input, &passes, opts.cval, dt)?, opts)
}

fn sobel_like(input: &Array, axis: isize, opts: &FilterOptions, smooth: [f64; 3]) -> Result<Array> {
    let axis = normalize_axis(axis, input.ndim())?;
    let dt = out_dtype(input, opts)?;
    let modes = modes_of(opts, input.ndim())?;
    let mut passes = vec![Pass { axis, k: Kernel1d::corr(vec![-1.0, 0.0, 1.0]), origin: 0, mode: modes[axis] }];
    for ii in (0..input.ndim()).filter(|&i| i != axis) {
        passes.push(Pass { axis: ii, k: Kernel1d::corr(smooth.to_vec()), origin: 0, mode: modes[ii] });
    }
    finish(run_passes(input, &passes, opts.cval, dt)?, opts)
}

/// SciPy's `ndimage.sobel` with the default keywords ([`FilterOptions::default()`]); see
/// [`sobel_with`].
pub fn sobel(input: &Array, axis: isize) -> Result<Array> {
    sobel_with(input, axis, &FilterOptions::default())
}

/// SciPy's `ndimage.sobel(input, axis)`: `[-1, 0, 1]` along `axis`, then `[1, 2, 1]` along
/// each other axis, each pass stored in the output dtype (`opts.modes`: one per axis).
///
/// ```
/// use cuprum::scipy::ndimage::{sobel, sobel_with, FilterOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_slice(&[0.0, 1.0, 2.0, 0.0, 1.0, 2.0], &[2, 3], &dev)?;
/// let r = sobel(&x, 1)?;
/// assert_eq!(r.to_vec::<f64>()?, vec![4.0, 8.0, 4.0, 4.0, 8.0, 4.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn sobel_with(input: &Array, axis: isize, opts: &FilterOptions) -> Result<Array> {
    if input.dtype().is_complex() {
        return by_parts(input, None, opts, |x, _, o| sobel_with(x, axis, o));
    }
    sobel_like(input, axis, opts, [1.0, 2.0, 1.0])
}

/// SciPy's `ndimage.prewitt` with the default keywords ([`FilterOptions::default()`]); see
/// [`prewitt_with`].
pub fn prewitt(input: &Array, axis: isize) -> Result<Array> {
    prewitt_with(input, axis, &FilterOptions::default())
}

/// SciPy's `ndimage.prewitt(input, axis)`: as [`sobel`] with `[1, 1, 1]` across.
///
/// ```
/// use cuprum::scipy::ndimage::{prewitt, prewitt_with, FilterOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_slice(&[0.0, 1.0, 2.0, 0.0, 1.0, 2.0], &[2, 3], &dev)?;
/// let r = prewitt(&x, 1)?;
/// assert_eq!(r.to_vec::<f64>()?, vec![3.0, 6.0, 3.0, 3.0, 6.0, 3.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn prewitt_with(input: &Array, axis: isize, opts: &FilterOptions) -> Result<Array> {
    if input.dtype().is_complex() {
        return by_parts(input, None, opts, |x, _, o| prewitt_with(x, axis, o));
    }
    sobel_like(input, axis, opts, [1.0, 1.0, 1.0])
}

/// SciPy's `generic_laplace`/`generic_gradient_magnitude` sum: `first` plus each of `rest`
/// in the output dtype (NumPy's `output += tmp`).
fn accumulate(mut acc: Array, rest: impl Iterator<Item = Result<Array>>, square: bool) -> Result<Array> {
    let dt = acc.dtype();
    if square {
        acc = acc.multiply(&acc)?.astype(dt)?;
    }
    for t in rest {
        let mut t = t?;
        if square {
            t = t.multiply(&t)?.astype(dt)?;
        }
        acc = acc.add(&t)?.astype(dt)?;
    }
    Ok(acc)
}

/// SciPy's `ndimage.laplace` with the default keywords ([`FilterOptions::default()`]); see
/// [`laplace_with`].
pub fn laplace(input: &Array) -> Result<Array> {
    laplace_with(input, &FilterOptions::default())
}

/// SciPy's `ndimage.laplace(input)`: the sum over `opts.axes` of `correlate1d(input, [1, -2,
/// 1], axis)`, each term and the sum in the output dtype.
///
/// ```
/// use cuprum::scipy::ndimage::{laplace, laplace_with, FilterOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![0.0, 0.0, 4.0, 0.0, 0.0], &dev)?;
/// let r = laplace(&x)?;
/// assert_eq!(r.to_vec::<f64>()?, vec![0.0, 4.0, -8.0, 4.0, 0.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn laplace_with(input: &Array, opts: &FilterOptions) -> Result<Array> {
    if input.dtype().is_complex() {
        return by_parts(input, None, opts, laplace_parts);
    }
    let dt = out_dtype(input, opts)?;
    let axes = check_axes(&opts.axes, input.ndim())?;
    if axes.is_empty() {
        return finish(input.astype(dt)?, opts);
    }
    let modes = modes_of(opts, axes.len())?;
    let term = |k: usize| {
        let p = Pass { axis: axes[k], k: Kernel1d::corr(vec![1.0, -2.0, 1.0]), origin: 0, mode: modes[k] };
        run_passes(input, &[p], opts.cval, dt)
    };
    finish(accumulate(term(0)?, (1..axes.len()).map(term), false)?, opts)
}

/// SciPy's `ndimage.gaussian_laplace` with the default keywords ([`FilterOptions::default()`]); see
/// [`gaussian_laplace_with`].
pub fn gaussian_laplace(input: &Array, sigma: &[f64]) -> Result<Array> {
    gaussian_laplace_with(input, sigma, &FilterOptions::default())
}

/// SciPy's `ndimage.gaussian_laplace(input, sigma)`: the sum over `opts.axes` of Gaussian
/// filters of order 2 along that axis (smoothing along the other filtered axes), in the
/// output dtype.
///
/// ```
/// use cuprum::scipy::ndimage::{gaussian_laplace, gaussian_laplace_with, FilterOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![0.0, 0.0, 1.0, 0.0, 0.0], &dev)?;
/// let r = gaussian_laplace(&x, &[1.0])?.to_vec::<f64>()?;
/// assert!((r[2] + 0.39894347).abs() < 1e-8); // scipy: -0.39894347 in the middle
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn gaussian_laplace_with(input: &Array, sigma: &[f64], opts: &FilterOptions) -> Result<Array> {
    if input.dtype().is_complex() {
        return by_parts(input, None, opts, |x, _, o| gaussian_laplace_with(x, sigma, o));
    }
    let dt = out_dtype(input, opts)?;
    let ndim = input.ndim();
    let axes = check_axes(&opts.axes, ndim)?;
    if axes.is_empty() {
        return finish(input.astype(dt)?, opts);
    }
    let sig = per_axis(sigma, axes.len(), 0.0)?;
    let full: Vec<f64> = if axes.len() < ndim {
        let mut f = vec![0.0; ndim];
        for (k, &a) in axes.iter().enumerate() {
            f[a] = sig[k];
        }
        f
    } else {
        sig
    };
    finish(derivative_sum(input, &full, opts, &axes, 2, dt, false)?, opts)
}

/// The `order`-th Gaussian derivative along each of `axes` (smoothing along every axis with
/// `sigma`), summed (`square`: their squares summed) in the output dtype.
fn derivative_sum(
    input: &Array,
    sigma: &[f64],
    opts: &FilterOptions,
    axes: &[usize],
    order: usize,
    dt: DType,
    square: bool,
) -> Result<Array> {
    let ndim = input.ndim();
    let modes = modes_of(opts, axes.len())?;
    let all: Vec<usize> = (0..ndim).collect();
    let term = |k: usize| -> Result<Array> {
        let mut orders = vec![0usize; ndim];
        orders[axes[k]] = order;
        let o = FilterOptions { order: orders, modes: Vec::new(), ..opts.clone() };
        let passes = gaussian_passes(ndim, sigma, &o, &vec![modes[k]; ndim], &all)?;
        run_passes(input, &passes, opts.cval, dt)
    };
    accumulate(term(0)?, (1..axes.len()).map(term), square)
}

/// SciPy's `ndimage.gaussian_gradient_magnitude` with the default keywords ([`FilterOptions::default()`]); see
/// [`gaussian_gradient_magnitude_with`].
pub fn gaussian_gradient_magnitude(input: &Array, sigma: &[f64]) -> Result<Array> {
    gaussian_gradient_magnitude_with(input, sigma, &FilterOptions::default())
}

/// SciPy's `ndimage.gaussian_gradient_magnitude(input, sigma)`: the square root of the sum
/// over `opts.axes` of the squared first Gaussian derivatives, in the output dtype (the
/// squares and the sum in that dtype, the root as NumPy's `sqrt` of it, cast back). As in
/// SciPy, each derivative smooths along every axis with `sigma` (one or one per axis of the
/// input).
///
/// ```
/// use cuprum::scipy::ndimage::{gaussian_gradient_magnitude, gaussian_gradient_magnitude_with, FilterOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![0.0, 0.0, 1.0, 0.0, 0.0], &dev)?;
/// let r = gaussian_gradient_magnitude(&x, &[1.0])?.to_vec::<f64>()?;
/// assert!((r[1] - 0.24143612).abs() < 1e-8 && r[2].abs() < 1e-12); // scipy
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn gaussian_gradient_magnitude_with(input: &Array, sigma: &[f64], opts: &FilterOptions) -> Result<Array> {
    if input.dtype().is_complex() {
        // SciPy's: the complex square root of the sum of the complex derivatives' squares, in
        // the output's complex dtype; each derivative by its parts.
        let axes = check_axes(&opts.axes, input.ndim())?;
        let inner = FilterOptions { out: None, ..opts.clone() };
        let mut total: Option<Array> = None;
        for &ax in &axes {
            let d = by_parts(input, None, &inner, |x, _, o| {
                derivative_sum(x, sigma, o, &[ax], 1, o.output.unwrap_or(x.dtype()), false)
            })?;
            let sq = d.multiply(&d)?;
            total = Some(match total {
                None => sq,
                Some(t) => t.add(&sq)?,
            });
        }
        return match total {
            Some(t) => finish(t.sqrt()?, opts),
            None => by_parts(input, None, opts, |x, _, o| x.astype(o.output.unwrap_or(x.dtype()))),
        };
    }
    let dt = out_dtype(input, opts)?;
    let ndim = input.ndim();
    let axes = check_axes(&opts.axes, ndim)?;
    if axes.is_empty() {
        return finish(input.astype(dt)?, opts);
    }
    let s = derivative_sum(input, sigma, opts, &axes, 1, dt, true)?;
    finish(s.sqrt()?.astype(dt)?, opts)
}
