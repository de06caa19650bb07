//! `numpy.fft`: discrete Fourier transforms on either device — cuFFT on a GPU (loaded at run
//! time, a plan cache per device), rustfft/realfft across all cores on the CPU.
//!
//! ```
//! use cuprum::{fft, fft::Norm, Complex, Device};
//! let x = cuprum::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &Device::Cpu)?;
//! let y = fft::fft(&x)?;                                    // np.fft.fft(x): complex128
//! assert_eq!(y.to_vec::<Complex<f64>>()?[0], Complex::new(10.0, 0.0));
//! // np.fft.irfft(np.fft.rfft(x, norm="ortho"), 4, norm="ortho")
//! let ortho = fft::FftOptions { norm: Norm::Ortho, ..Default::default() };
//! let r = fft::irfft_with(&fft::rfft_with(&x, &ortho)?, &fft::FftOptions { n: Some(4), ..ortho })?;
//! assert!(r.to_vec::<f64>()?.iter().zip([1.0, 2.0, 3.0, 4.0]).all(|(a, b)| (a - b).abs() < 1e-12));
//! # Ok::<(), cuprum::Error>(())
//! ```
//!
//! NumPy 2's precision rule: float32, float16 and complex64 in give complex64 (float32 for the
//! inverse real transforms) out; everything else float64/complex128. Every transform is one
//! dispatch (`transform`): the input is cropped or zero-padded to the lengths asked for, the
//! transformed axes are moved last (a copy only where the array is not already laid out so),
//! the device transforms the trailing axes of a batch (`cpu.rs`, `cuda.rs`: up to three axes at a
//! time), and the output is scaled by the norm and its axes moved back (a view).

mod cpu;
mod cuda;

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::slice::SliceElem;
use crate::ufunc::{binary_out, BinaryOp};

/// NumPy's `norm`: which direction is scaled, by 1/n ("backward": the inverse, the default;
/// "forward": the forward transform) or both by 1/sqrt(n) ("ortho").
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Norm {
    #[default]
    Backward,
    Ortho,
    Forward,
}

impl std::str::FromStr for Norm {
    type Err = Error;
    /// NumPy's names ("backward", "ortho", "forward"); anything else is its ValueError.
    fn from_str(s: &str) -> Result<Norm> {
        match s {
            "backward" => Ok(Norm::Backward),
            "ortho" => Ok(Norm::Ortho),
            "forward" => Ok(Norm::Forward),
            _ => {
                Err(Error::Value(format!("Invalid norm value {s}; should be \"backward\", \"ortho\" or \"forward\".")))
            }
        }
    }
}

impl Norm {
    /// The other direction's norm (NumPy's `_swap_direction`, for hfft/ihfft).
    fn swap(self) -> Norm {
        match self {
            Norm::Backward => Norm::Forward,
            Norm::Forward => Norm::Backward,
            Norm::Ortho => Norm::Ortho,
        }
    }
    /// The factor a transform of `n` points is multiplied by.
    fn factor(self, n: usize, inverse: bool) -> f64 {
        match (self, inverse) {
            (Norm::Ortho, _) => 1.0 / (n as f64).sqrt(),
            (Norm::Backward, true) | (Norm::Forward, false) => 1.0 / n as f64,
            _ => 1.0,
        }
    }
}

/// What one device transform does to the trailing axes of a C-contiguous batch.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// complex to complex (forward: e^{-2 pi i jk/n}; inverse unscaled).
    C2C { inverse: bool },
    /// real to complex: the last axis of length n gives n/2 + 1 outputs (forward).
    R2C,
    /// complex to real (inverse, unscaled): the last axis's n/2 + 1 inputs give n outputs.
    C2R,
}

/// The one dispatch point: `kind` over the trailing `dims` (the logical lengths; for C2R the
/// output's) of the C-contiguous `x` (complex for C2C and C2R, real for R2C, on its device).
/// `disposable`: the transform may overwrite `x` (cuFFT's complex-to-real transforms do).
fn device_transform(x: &Array, kind: Kind, dims: &[usize], disposable: bool) -> Result<Array> {
    match x.device() {
        Device::Cpu => cpu::transform(x, kind, dims),
        Device::Cuda(_) => cuda::transform(x, kind, dims, disposable),
    }
}

/// The complex dtype of a transform of `dt` (NumPy 2: single precision stays single).
fn complex_of(dt: DType) -> DType {
    match dt {
        DType::Float32 | DType::Float16 | DType::Complex64 => DType::Complex64,
        _ => DType::Complex128,
    }
}

/// The real dtype of `complex_of(dt)`.
fn real_of(dt: DType) -> DType {
    if complex_of(dt) == DType::Complex64 {
        DType::Float32
    } else {
        DType::Float64
    }
}

/// `axis` against `ndim`: NumPy's fft raises IndexError (not AxisError) out of range.
fn fft_axis(axis: isize, ndim: usize) -> Result<usize> {
    let a = if axis < 0 { axis + ndim as isize } else { axis };
    if a < 0 || a >= ndim as isize {
        return Err(Error::Index(format!("axis {axis} is out of bounds for array of dimension {ndim}")));
    }
    Ok(a as usize)
}

/// `axes` normalised against `ndim`: IndexError out of range, ValueError when repeated
/// (NumPy transforms a repeated axis twice; cuprum refuses, as the axes of one n-d
/// transform must be distinct).
fn norm_axes(axes: &[isize], ndim: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let ax = fft_axis(a, ndim)?;
        if out.contains(&ax) {
            return Err(Error::Value("repeated axis in FFT axes".into()));
        }
        out.push(ax);
    }
    Ok(out)
}

/// NumPy's check of a transform length.
fn check_len(n: usize) -> Result<()> {
    if n < 1 {
        return Err(Error::Value(format!("Invalid number of FFT data points ({n}) specified.")));
    }
    Ok(())
}

/// `x` cropped or zero-padded along `axes` to `lens`.
fn resize(x: &Array, axes: &[usize], lens: &[usize]) -> Result<Array> {
    if axes.iter().zip(lens).all(|(&a, &l)| x.shape()[a] == l) {
        return Ok(x.view());
    }
    let mut idx: Vec<SliceElem> = vec![SliceElem::Slice { start: None, end: None, step: 1 }; x.ndim()];
    let mut shape = x.shape().to_vec();
    let mut pad = false;
    for (&a, &l) in axes.iter().zip(lens) {
        let keep = l.min(x.shape()[a]);
        idx[a] = SliceElem::Slice { start: Some(0), end: Some(keep as isize), step: 1 };
        pad |= l > x.shape()[a];
        shape[a] = l;
    }
    let cropped = x.slice(&idx[..])?;
    if !pad {
        return Ok(cropped);
    }
    let mut out = crate::zeros(&shape, x.dtype(), &x.device())?;
    let mut dst = out.slice_mut(&idx[..])?;
    dst.assign(&cropped)?;
    Ok(out)
}

/// The general transform: `x` (already of the transform's input dtype) cropped/padded to
/// `lens` along `axes` (for C2R, `lens` are the outputs' lengths: the last axis's input is
/// cropped/padded to lens/2 + 1), transformed along `axes` (R2C/C2R: the real axis is the
/// last of `axes`), scaled for `norm`.
/// `owned`: `x` is a temporary of the caller's that may be overwritten.
fn transform(x: &Array, axes: &[usize], lens: &[usize], kind: Kind, norm: Norm, owned: bool) -> Result<Array> {
    let k = axes.len();
    let mut in_lens = lens.to_vec();
    if kind == Kind::C2R {
        in_lens[k - 1] = lens[k - 1] / 2 + 1;
    }
    let mut y = resize(x, axes, &in_lens)?;
    let own = owned || !y.shares_storage(x);
    // The axes in groups of at most three from the end: the first group holds the real axis
    // (the last of `axes`), transformed first by R2C and last by C2R.
    let mut groups: Vec<(&[usize], &[usize])> = Vec::new();
    let mut end = k;
    while end > 0 {
        let start = end.saturating_sub(3);
        groups.push((&axes[start..end], &lens[start..end]));
        end = start;
    }
    match kind {
        Kind::C2C { .. } => {
            for (ax, dims) in groups {
                y = along(&y, ax, dims, kind, own)?;
            }
        }
        Kind::R2C => {
            y = along(&y, groups[0].0, groups[0].1, Kind::R2C, own)?;
            for &(ax, dims) in &groups[1..] {
                y = along(&y, ax, dims, Kind::C2C { inverse: false }, true)?;
            }
        }
        Kind::C2R => {
            let mut own = own;
            for &(ax, dims) in &groups[1..] {
                y = along(&y, ax, dims, Kind::C2C { inverse: true }, own)?;
                own = true;
            }
            y = along(&y, groups[0].0, groups[0].1, Kind::C2R, own)?;
        }
    }
    let n: usize = lens.iter().product();
    let f = norm.factor(n, matches!(kind, Kind::C2C { inverse: true } | Kind::C2R));
    if f != 1.0 {
        let mut out = y.view();
        binary_out(BinaryOp::Multiply, &y, f, &mut out)?;
    }
    Ok(y)
}

/// `step` along `axes` of `y` (the trailing axes of a contiguous copy with `axes` last), the
/// axes moved back (a view). `own`: `y` may be overwritten.
fn along(y: &Array, axes: &[usize], dims: &[usize], step: Kind, own: bool) -> Result<Array> {
    let nd = y.ndim();
    let mut perm: Vec<usize> = (0..nd).filter(|a| !axes.contains(a)).collect();
    perm.extend_from_slice(axes);
    let ip: Vec<isize> = perm.iter().map(|&a| a as isize).collect();
    let moved = y.permute(&ip)?;
    let (moved, own) = if moved.is_c_contiguous() { (moved, own) } else { (moved.copy()?, true) };
    let out = device_transform(&moved, step, dims, own)?;
    let mut inv = vec![0isize; nd];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i as isize;
    }
    out.permute(&inv)
}

/// The lengths `s` (or the input's along `axes`; for C2R `2 (m - 1)` on the last axis) and
/// the checks.
fn lengths(x: &Array, s: Option<&[usize]>, axes: &[usize], c2r: bool) -> Result<Vec<usize>> {
    let lens: Vec<usize> = match s {
        Some(s) => {
            if s.len() != axes.len() {
                return Err(Error::Value("Shape and axes have different lengths.".into()));
            }
            s.to_vec()
        }
        None => {
            let mut l: Vec<usize> = axes.iter().map(|&a| x.shape()[a]).collect();
            if c2r {
                if let Some(last) = l.last_mut() {
                    *last = 2 * last.saturating_sub(1);
                }
            }
            l
        }
    };
    for &l in &lens {
        check_len(l)?;
    }
    Ok(lens)
}

/// The axes of an n-d transform: `axes`, else the last `s.len()` axes, else all.
fn nd_axes(x: &Array, s: Option<&[usize]>, axes: Option<&[isize]>) -> Result<Vec<usize>> {
    match axes {
        Some(a) => norm_axes(a, x.ndim()),
        None => {
            let k = s.map_or(x.ndim(), |s| s.len());
            if k > x.ndim() {
                return Err(Error::Value("Shape and axes have different lengths.".into()));
            }
            Ok((x.ndim() - k..x.ndim()).collect())
        }
    }
}

fn c2c(x: &Array, s: Option<&[usize]>, axes: &[usize], norm: Norm, inverse: bool) -> Result<Array> {
    if axes.is_empty() {
        return x.astype(complex_of(x.dtype()));
    }
    let lens = lengths(x, s, axes, false)?;
    let y = as_dtype(x, complex_of(x.dtype()))?;
    let owned = !y.shares_storage(x);
    transform(&y, axes, &lens, Kind::C2C { inverse }, norm, owned)
}

fn real_input(x: &Array, what: &str) -> Result<Array> {
    if x.dtype().is_complex() {
        return Err(Error::Type(format!("{what} of complex input: the input must be real")));
    }
    as_dtype(x, real_of(x.dtype()))
}

/// `x` in `dt`: a view when it already is (no copy), else a cast.
fn as_dtype(x: &Array, dt: DType) -> Result<Array> {
    if x.dtype() == dt {
        Ok(x.view())
    } else {
        x.astype(dt)
    }
}

fn r2c(x: &Array, s: Option<&[usize]>, axes: &[usize], norm: Norm) -> Result<Array> {
    if axes.is_empty() {
        return Err(Error::Value("rfftn needs at least one axis".into()));
    }
    let lens = lengths(x, s, axes, false)?;
    let y = real_input(x, "rfft")?;
    let owned = !y.shares_storage(x);
    transform(&y, axes, &lens, Kind::R2C, norm, owned)
}

fn c2r(x: &Array, s: Option<&[usize]>, axes: &[usize], norm: Norm) -> Result<Array> {
    if axes.is_empty() {
        return Err(Error::Value("irfftn needs at least one axis".into()));
    }
    let lens = lengths(x, s, axes, true)?;
    let y = as_dtype(x, complex_of(x.dtype()))?;
    let owned = !y.shares_storage(x);
    transform(&y, axes, &lens, Kind::C2R, norm, owned)
}

fn one(x: &Array, axis: isize) -> Result<Vec<usize>> {
    Ok(vec![fft_axis(axis, x.ndim())?])
}

/// The keywords of the 1-d transforms' `_with` forms ([`fft_with`], [`rfft_with`], ...);
/// `Default` is NumPy's: `n=None` (the input's length), `axis=-1`, `norm="backward"`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FftOptions {
    /// The transform's length: the input cropped or zero-padded to it (for `irfft`/`hfft`:
    /// the output's length).
    pub n: Option<usize>,
    /// The axis transformed (negative from the end).
    pub axis: isize,
    /// Which direction is scaled.
    pub norm: Norm,
}

impl Default for FftOptions {
    fn default() -> Self {
        FftOptions { n: None, axis: -1, norm: Norm::Backward }
    }
}

/// The keywords of the n-d transforms' `_with` forms ([`fftn_with`], [`rfft2_with`], ...);
/// `Default` is NumPy's: `s=None` (the input's lengths), `axes=None` (all axes, or the last
/// `len(s)`; the last two for the `2` forms), `norm="backward"`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FftnOptions<'a> {
    /// The lengths along `axes`: the input cropped or zero-padded to them (for the inverse
    /// real transforms: the output's lengths).
    pub s: Option<&'a [usize]>,
    /// The axes transformed (negative from the end).
    pub axes: Option<&'a [isize]>,
    /// Which direction is scaled.
    pub norm: Norm,
}

macro_rules! one_d {
    ($($(#[$doc:meta])* $name:ident $with:ident;)*) => {$(
        $(#[$doc])*
        #[doc = concat!("\n\nNumPy's defaults (`n=None, axis=-1, norm=\"backward\"`); the keywords: [`", stringify!($with), "`].")]
        pub fn $name(a: &Array) -> Result<Array> {
            $with(a, &FftOptions::default())
        }
        #[doc = concat!("`numpy.fft.", stringify!($name), "(a, n=..., axis=..., norm=...)`: [`", stringify!($name), "`] with its keywords.")]
        pub fn $with(a: &Array, options: &FftOptions) -> Result<Array> {
            let FftOptions { n, axis, norm } = *options;
            let n = n.as_ref().map(std::slice::from_ref);
            one_d_impl!($name, a, n, axis, norm)
        }
    )*};
}

macro_rules! one_d_impl {
    (fft, $a:ident, $n:ident, $axis:ident, $norm:ident) => {
        c2c($a, $n, &one($a, $axis)?, $norm, false)
    };
    (ifft, $a:ident, $n:ident, $axis:ident, $norm:ident) => {
        c2c($a, $n, &one($a, $axis)?, $norm, true)
    };
    (rfft, $a:ident, $n:ident, $axis:ident, $norm:ident) => {
        r2c($a, $n, &one($a, $axis)?, $norm)
    };
    (irfft, $a:ident, $n:ident, $axis:ident, $norm:ident) => {
        c2r($a, $n, &one($a, $axis)?, $norm)
    };
    // irfft(conj(a), n) with the norm's direction swapped.
    (hfft, $a:ident, $n:ident, $axis:ident, $norm:ident) => {{
        let c = $a.astype(complex_of($a.dtype()))?.conj()?;
        c2r(&c, $n, &one(&c, $axis)?, $norm.swap())
    }};
    // conj(rfft(a, n)) with the norm's direction swapped.
    (ihfft, $a:ident, $n:ident, $axis:ident, $norm:ident) => {
        r2c($a, $n, &one($a, $axis)?, $norm.swap())?.conj()
    };
}

one_d! {
    /// `numpy.fft.fft(a)`: the 1-d discrete Fourier transform along the last axis.
    fft fft_with;
    /// `numpy.fft.ifft(a)`: the inverse of [`fft`].
    ifft ifft_with;
    /// `numpy.fft.rfft(a)`: the transform of real input, its `n/2 + 1` non-negative
    /// frequencies. Complex input is NumPy's TypeError.
    rfft rfft_with;
    /// `numpy.fft.irfft(a)`: the inverse of [`rfft`], `n` real outputs (default `2 (m - 1)` for
    /// `m` inputs; the imaginary parts of the zero and, for even `n`, the Nyquist frequency are
    /// ignored).
    irfft irfft_with;
    /// `numpy.fft.hfft(a)`: the transform of a Hermitian-symmetric signal given by its first
    /// half (real output).
    hfft hfft_with;
    /// `numpy.fft.ihfft(a)`: the inverse of [`hfft`].
    ihfft ihfft_with;
}

macro_rules! n_d {
    ($($(#[$doc:meta])* $name:ident $with:ident $two:literal $default:expr => $kind:ident;)*) => {$(
        $(#[$doc])*
        #[doc = concat!("\n\nNumPy's defaults (`s=None, axes=", $two, ", norm=\"backward\"`); the keywords: [`", stringify!($with), "`].")]
        pub fn $name(a: &Array) -> Result<Array> {
            $with(a, &FftnOptions::default())
        }
        #[doc = concat!("`numpy.fft.", stringify!($name), "(a, s=..., axes=..., norm=...)`: [`", stringify!($name), "`] with its keywords.")]
        pub fn $with(a: &Array, options: &FftnOptions<'_>) -> Result<Array> {
            let FftnOptions { s, axes, norm } = *options;
            let axes = axes.or($default);
            let ax = nd_axes(a, s, axes)?;
            n_d_impl!($kind, a, s, ax, norm)
        }
    )*};
}

macro_rules! n_d_impl {
    (forward, $a:ident, $s:ident, $ax:ident, $norm:ident) => {
        c2c($a, $s, &$ax, $norm, false)
    };
    (inverse, $a:ident, $s:ident, $ax:ident, $norm:ident) => {
        c2c($a, $s, &$ax, $norm, true)
    };
    (real, $a:ident, $s:ident, $ax:ident, $norm:ident) => {
        r2c($a, $s, &$ax, $norm)
    };
    (real_inverse, $a:ident, $s:ident, $ax:ident, $norm:ident) => {
        c2r($a, $s, &$ax, $norm)
    };
}

n_d! {
    /// `numpy.fft.fftn(a)`: the n-d transform over all axes.
    fftn fftn_with "None" None => forward;
    /// `numpy.fft.ifftn(a)`: the inverse of [`fftn`].
    ifftn ifftn_with "None" None => inverse;
    /// `numpy.fft.fft2(a)`: [`fftn`] over the last two axes.
    fft2 fft2_with "(-2, -1)" Some(&[-2, -1][..]) => forward;
    /// `numpy.fft.ifft2(a)`: the inverse of [`fft2`].
    ifft2 ifft2_with "(-2, -1)" Some(&[-2, -1][..]) => inverse;
    /// `numpy.fft.rfftn(a)`: the real transform over the last of the axes, then the complex
    /// transform over the others.
    rfftn rfftn_with "None" None => real;
    /// `numpy.fft.irfftn(a)`: the inverse of [`rfftn`] (the output's last length
    /// `2 (m - 1)`).
    irfftn irfftn_with "None" None => real_inverse;
    /// `numpy.fft.rfft2(a)`: [`rfftn`] over the last two axes.
    rfft2 rfft2_with "(-2, -1)" Some(&[-2, -1][..]) => real;
    /// `numpy.fft.irfft2(a)`: the inverse of [`rfft2`].
    irfft2 irfft2_with "(-2, -1)" Some(&[-2, -1][..]) => real_inverse;
}

/// [`irfftn`] of a temporary the caller gives up (the GPU's inverse may overwrite it), with
/// `s` and normalised `axes`, norm "backward": the FFT convolutions' last step.
pub(crate) fn irfftn_owned(a: Array, s: &[usize], axes: &[usize]) -> Result<Array> {
    let lens = lengths(&a, Some(s), axes, true)?;
    transform(&a, axes, &lens, Kind::C2R, Norm::Backward, true)
}

/// `numpy.fft.fftfreq(n, d)`: the sample frequencies `[0, 1, ..., -(n/2), ..., -1] / (d n)`
/// (float64) on `device`.
pub fn fftfreq(n: usize, d: f64, device: &Device) -> Result<Array> {
    let val = 1.0 / nonzero_span(n, d)?;
    let half = (n as i64 - 1) / 2 + 1;
    let v = crate::core::alloc::vec_from_fn(n, |i| {
        let i = i as i64;
        (if i < half { i } else { i - n as i64 }) as f64 * val
    })?;
    crate::from_vec(v, device)
}

/// `n * d`, the divisor of `fftfreq`/`rfftfreq`: zero is NumPy's ZeroDivisionError (its Python
/// code computes `1.0 / (n * d)`), where dividing would give infinities and a NaN.
fn nonzero_span(n: usize, d: f64) -> Result<f64> {
    let span = n as f64 * d;
    if span == 0.0 {
        return Err(Error::ZeroDivision("float division by zero".into()));
    }
    Ok(span)
}

/// `numpy.fft.rfftfreq(n, d)`: `[0, 1, ..., n/2] / (d n)` (float64) on `device`.
pub fn rfftfreq(n: usize, d: f64, device: &Device) -> Result<Array> {
    let val = 1.0 / nonzero_span(n, d)?;
    crate::from_vec(crate::core::alloc::vec_from_fn(n / 2 + 1, |k| k as f64 * val)?, device)
}

fn shift(x: &Array, axes: Option<&[isize]>, inverse: bool) -> Result<Array> {
    let ax: Vec<usize> = match axes {
        Some(a) => a.iter().map(|&a| fft_axis(a, x.ndim())).collect::<Result<_>>()?,
        None => (0..x.ndim()).collect(),
    };
    let mut y = x.view();
    for a in ax {
        let n = x.shape()[a] as isize;
        let s = if inverse { -(n / 2) } else { n / 2 };
        y = y.roll(s, a as isize)?;
    }
    if y.shares_storage(x) {
        y = y.copy()?;
    }
    Ok(y)
}

/// `numpy.fft.fftshift(x, axes)`: the zero frequency moved to the centre (each axis rolled by
/// half its length; `None`: all axes).
pub fn fftshift(x: &Array, axes: Option<&[isize]>) -> Result<Array> {
    shift(x, axes, false)
}

/// `numpy.fft.ifftshift(x, axes)`: the inverse of [`fftshift`].
pub fn ifftshift(x: &Array, axes: Option<&[isize]>) -> Result<Array> {
    shift(x, axes, true)
}
