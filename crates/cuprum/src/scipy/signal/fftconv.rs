//! SciPy's FFT convolutions: [`fftconvolve`] (the product of the transforms, at SciPy's fast
//! lengths) and [`oaconvolve`] (overlap-add: the larger input cut into blocks, each block's
//! convolution a batched transform, the blocks' tails added to their neighbours). Both are
//! built on `cuprum::fft` and the array operations, so they run on either device; the method
//! rule of `convolve`'s `auto` is in [`prefer_fft`].

use super::ConvolveMode;
use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::slice::SliceElem;
use crate::fft;

/// The smallest `n >= target` whose prime factors are 2, 3, 5, 7 and 11 (2, 3 and 5 with
/// [`NextFastLenOptions::real`]): SciPy's `next_fast_len(target, real=False)` (pocketfft's good
/// sizes). A `ValueError` past SciPy's limit
/// (`usize::MAX / 11 + 1`, where the answer could overflow), with SciPy's message.
///
/// ```
/// use cuprum::scipy::signal::next_fast_len;
/// use cuprum::scipy::signal::{next_fast_len_with, NextFastLenOptions};
/// let real = NextFastLenOptions { real: true };
/// assert_eq!(next_fast_len(97)?, 98);
/// assert_eq!(next_fast_len_with(97, &real)?, 100);
/// assert_eq!(next_fast_len_with((1 << 60) + 1, &real)?, 1_153_300_781_250_000_000); // SciPy's answer
/// assert!(next_fast_len_with((1 << 62) + 1, &real).is_err()); // SciPy: too large to perform an FFT
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn next_fast_len(target: usize) -> Result<usize> {
    next_fast_len_with(target, &NextFastLenOptions::default())
}

/// [`next_fast_len_with`]'s keyword.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NextFastLenOptions {
    /// Sizes for a real FFT: prime factors 2, 3 and 5 only (SciPy's `real=False`).
    pub real: bool,
}

/// SciPy's `next_fast_len(target, real)`: as [`next_fast_len`].
pub fn next_fast_len_with(target: usize, opts: &NextFastLenOptions) -> Result<usize> {
    let real = opts.real;
    if target <= 6 {
        return Ok(target.max(1));
    }
    if target > usize::MAX / 11 + 1 {
        // SciPy's (pocketfft's) limit and message.
        return Err(Error::Value(format!("Target length is too large to perform an FFT: {target}")));
    }
    // Every product of the odd primes up to the first at or above `target`, each times the least
    // power of two that reaches it: a few thousand candidates, where testing every number from
    // `target` up could take hours (smooth numbers are sparse near 2^62).
    fn search(odd: &[u128], prod: u128, t: u128, best: &mut u128) {
        let Some((&p, rest)) = odd.split_first() else {
            let shift = (t.div_ceil(prod)).next_power_of_two();
            *best = (*best).min(prod * shift);
            return;
        };
        let mut q = prod;
        loop {
            search(rest, q, t, best);
            if q >= t {
                break;
            }
            q *= p;
        }
    }
    let odd: &[u128] = if real { &[3, 5] } else { &[3, 5, 7, 11] };
    let mut best = u128::MAX;
    search(odd, 1, target as u128, &mut best);
    usize::try_from(best).map_err(|_| Error::Value(format!("Target length is too large to perform an FFT: {target}")))
}

/// SciPy's `_init_freq_conv_axes`: the transform axes (`None`: all), without those where
/// either input has length 1 (broadcast); the other axes must match or be 1; the operands
/// swapped in 'valid' mode where `in2` is the larger.
fn conv_axes<'a>(
    in1: &'a Array,
    in2: &'a Array,
    mode: ConvolveMode,
    axes: Option<&[isize]>,
) -> Result<(&'a Array, &'a Array, Vec<usize>)> {
    let (s1, s2) = (in1.shape(), in2.shape());
    let nd = in1.ndim();
    let all: Vec<usize> = match axes {
        None => (0..nd).collect(),
        Some([]) => return Err(Error::Value("when provided, axes cannot be empty".into())),
        Some(a) => {
            let mut v = Vec::new();
            for &x in a {
                let ax = if x < 0 { x + nd as isize } else { x };
                if ax < 0 || ax >= nd as isize {
                    return Err(Error::Value("axes exceeds dimensionality of input".into()));
                }
                if v.contains(&(ax as usize)) {
                    return Err(Error::Value("all axes must be unique".into()));
                }
                v.push(ax as usize);
            }
            v
        }
    };
    let axes: Vec<usize> = all.into_iter().filter(|&a| s1[a] != 1 && s2[a] != 1).collect();
    if !(0..nd).filter(|a| !axes.contains(a)).all(|a| s1[a] == s2[a] || s1[a] == 1 || s2[a] == 1) {
        return Err(Error::Value(format!(
            "incompatible shapes for in1 and in2: {} and {}",
            crate::core::error::shape_str(s1),
            crate::core::error::shape_str(s2)
        )));
    }
    if mode == ConvolveMode::Valid && nd > 0 {
        let ok1 = axes.iter().all(|&a| s1[a] >= s2[a]);
        let ok2 = axes.iter().all(|&a| s2[a] >= s1[a]);
        if !(ok1 || ok2) {
            return Err(Error::Value(
                "For 'valid' mode, one must be at least as large as the other in every dimension".into(),
            ));
        }
        if !ok1 {
            return Ok((in2, in1, axes));
        }
    }
    Ok((in1, in2, axes))
}

/// The checks every FFT convolution starts with (SciPy's): the product of two 0-d inputs,
/// ValueError for different ranks, an empty float64 array for an empty input.
fn trivial(in1: &Array, in2: &Array) -> Result<Option<Array>> {
    crate::array::same_device("fftconvolve", in1, in2)?;
    if in1.ndim() == 0 && in2.ndim() == 0 {
        return Ok(Some(crate::multiply(in1, in2)?));
    }
    if in1.ndim() != in2.ndim() {
        return Err(Error::Value("in1 and in2 should have the same dimensionality".into()));
    }
    if in1.size() == 0 || in2.size() == 0 {
        return Ok(Some(crate::zeros(&[0], DType::Float64, &in1.device())?));
    }
    Ok(None)
}

/// `arr`'s centred part of `shape` (SciPy's `_centered`), copied.
fn centered(arr: &Array, shape: &[usize]) -> Result<Array> {
    let idx: Vec<SliceElem> = arr
        .shape()
        .iter()
        .zip(shape)
        .map(|(&c, &n)| {
            let s = (c - n) / 2;
            SliceElem::Slice { start: Some(s as isize), end: Some((s + n) as isize), step: 1 }
        })
        .collect();
    arr.slice(&idx[..])?.copy()
}

/// SciPy's `_apply_conv_mode` on the full result `ret`.
fn apply_mode(ret: &Array, s1: &[usize], s2: &[usize], mode: ConvolveMode, axes: &[usize]) -> Result<Array> {
    match mode {
        ConvolveMode::Full => ret.as_contiguous(),
        ConvolveMode::Same => centered(ret, s1),
        ConvolveMode::Valid => {
            let shape: Vec<usize> =
                (0..ret.ndim()).map(|a| if axes.contains(&a) { s1[a] + 1 - s2[a] } else { ret.shape()[a] }).collect();
            centered(ret, &shape)
        }
    }
}

/// SciPy's `_freq_domain_conv`: the full convolution over `axes` through transforms of the
/// fast lengths, cropped to `shape` (a view).
fn freq_conv(in1: &Array, in2: &Array, axes: &[usize], shape: &[usize]) -> Result<Array> {
    if axes.is_empty() {
        return crate::multiply(in1, in2);
    }
    let complex = in1.dtype().is_complex() || in2.dtype().is_complex();
    let fshape: Vec<usize> = axes
        .iter()
        .map(|&a| next_fast_len_with(shape[a], &NextFastLenOptions { real: !complex }))
        .collect::<Result<_>>()?;
    let ax: Vec<isize> = axes.iter().map(|&a| a as isize).collect();
    let ret = if complex {
        let sp1 = fft::fftn_with(in1, &fft::FftnOptions { s: Some(&fshape), axes: Some(&ax), ..Default::default() })?;
        let sp2 = fft::fftn_with(in2, &fft::FftnOptions { s: Some(&fshape), axes: Some(&ax), ..Default::default() })?;
        fft::ifftn_with(
            &crate::multiply(&sp1, &sp2)?,
            &fft::FftnOptions { s: Some(&fshape), axes: Some(&ax), ..Default::default() },
        )?
    } else {
        let sp1 = fft::rfftn_with(in1, &fft::FftnOptions { s: Some(&fshape), axes: Some(&ax), ..Default::default() })?;
        let sp2 = fft::rfftn_with(in2, &fft::FftnOptions { s: Some(&fshape), axes: Some(&ax), ..Default::default() })?;
        // The product is ours: the inverse may overwrite it.
        fft::irfftn_owned(crate::multiply(&sp1, &sp2)?, &fshape, axes)?
    };
    let idx: Vec<SliceElem> =
        shape.iter().map(|&n| SliceElem::Slice { start: Some(0), end: Some(n as isize), step: 1 }).collect();
    ret.slice(&idx[..])
}

/// `fftconvolve`'s and `oaconvolve`'s keywords; `Default` is SciPy's (`mode="full"`,
/// `axes=None`: every axis).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FftConvolveOptions<'a> {
    pub mode: ConvolveMode,
    pub axes: Option<&'a [isize]>,
}

/// SciPy's `signal.fftconvolve(in1, in2)` (`mode="full"`, every axis); see [`fftconvolve_with`].
pub fn fftconvolve(in1: &Array, in2: &Array) -> Result<Array> {
    fftconvolve_with(in1, in2, &FftConvolveOptions::default())
}

/// SciPy's `signal.fftconvolve(in1, in2, mode, axes)`: the convolution through FFTs over
/// `axes` (`None`: all; axes where an input has length 1 broadcast instead), the other axes
/// matching or broadcasting. Real inputs give real results (float32 for single precision
/// and float16, float64 otherwise: integers too), complex inputs complex ones. Two 0-d inputs
/// give their product, an empty input an empty float64 array; different ranks, incompatible
/// shapes and 'valid' inputs neither larger than the other are ValueErrors.
///
/// ```
/// use cuprum::scipy::signal::{fftconvolve, fftconvolve_with};
/// use cuprum::{ConvolveMode, Device};
/// let x = cuprum::from_vec(vec![1.0f64, 2.0, 3.0], &Device::Cpu)?;
/// let k = cuprum::from_vec(vec![0.0f64, 1.0, 0.5], &Device::Cpu)?;
/// let y = fftconvolve(&x, &k)?.to_vec::<f64>()?;
/// let want = [0.0, 1.0, 2.5, 4.0, 1.5];
/// assert!(y.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn fftconvolve_with(in1: &Array, in2: &Array, opts: &FftConvolveOptions<'_>) -> Result<Array> {
    let FftConvolveOptions { mode, axes } = *opts;
    if let Some(r) = trivial(in1, in2)? {
        return Ok(r);
    }
    let (in1, in2, axes) = conv_axes(in1, in2, mode, axes)?;
    let (s1, s2) = (in1.shape(), in2.shape());
    let ret = freq_conv(in1, in2, &axes, &full_shape(s1, s2, &axes))?;
    apply_mode(&ret, s1, s2, mode, &axes)
}

/// The full convolution's shape: `n + k - 1` along the convolution axes, the broadcast
/// length along the others.
fn full_shape(s1: &[usize], s2: &[usize], axes: &[usize]) -> Vec<usize> {
    (0..s1.len()).map(|i| if axes.contains(&i) { s1[i] + s2[i] - 1 } else { s1[i].max(s2[i]) }).collect()
}

/// The block length (the transform's) for overlap-add of a signal of `n` with a kernel of
/// `k` along one axis: the fast length `f` minimising the cost per output, `f ln f / (f - k +
/// 1)`; `None` where one block would hold the whole signal (no overlap-add on that axis).
fn oa_block(n: usize, k: usize, real: bool) -> Option<usize> {
    if k <= 1 || n <= k || n == 1 {
        return None;
    }
    let mut best: Option<(f64, usize)> = None;
    let mut f = next_fast_len_with(2 * k, &NextFastLenOptions { real }).ok()?;
    while f < 64 * k && f - k + 1 < n {
        let cost = f as f64 * (f as f64).ln() / (f - k + 1) as f64;
        if best.is_none_or(|(c, _)| cost < c) {
            best = Some((cost, f));
        }
        f = next_fast_len_with(f + 1, &NextFastLenOptions { real }).ok()?;
    }
    best.map(|(_, f)| f)
}

/// SciPy's `signal.oaconvolve(in1, in2)` (`mode="full"`, every axis); see [`oaconvolve_with`].
pub fn oaconvolve(in1: &Array, in2: &Array) -> Result<Array> {
    oaconvolve_with(in1, in2, &FftConvolveOptions::default())
}

/// SciPy's `signal.oaconvolve(in1, in2, mode, axes)`: the convolution by overlap-add, for a
/// large input and a much smaller kernel. Along each axis where the first input is the longer
/// by enough, it is cut into blocks of `f - k + 1` (`f` the transform length chosen for the
/// kernel length `k`), all blocks are convolved by one batched transform and each block's
/// tail is added to the next block. The results are [`fftconvolve`]'s up to rounding (SciPy
/// chooses its block lengths by another rule); the checks and dtypes are the same.
pub fn oaconvolve_with(in1: &Array, in2: &Array, opts: &FftConvolveOptions<'_>) -> Result<Array> {
    let FftConvolveOptions { mode, axes } = *opts;
    if let Some(r) = trivial(in1, in2)? {
        return Ok(r);
    }
    let (in1, in2, axes) = conv_axes(in1, in2, mode, axes)?;
    let (s1, s2) = (in1.shape().to_vec(), in2.shape().to_vec());
    let real = !(in1.dtype().is_complex() || in2.dtype().is_complex());
    let blocks: Vec<(usize, usize)> =
        axes.iter().filter_map(|&a| oa_block(s1[a], s2[a], real).map(|f| (a, f))).collect();
    let full = full_shape(&s1, &s2, &axes);
    if blocks.is_empty() {
        let ret = freq_conv(in1, in2, &axes, &full)?;
        return apply_mode(&ret, &s1, &s2, mode, &axes);
    }
    // Cut each overlap-add axis `a` of in1 into (nb, step) (zero-padded), giving in2 a
    // length-1 block axis there; then one batched convolution over the step axes.
    let nd = in1.ndim();
    let mut x = in1.view();
    let mut pads: Vec<usize> = s1.clone();
    for &(a, f) in &blocks {
        let step = f - s2[a] + 1;
        pads[a] = s1[a].div_ceil(step) * step;
    }
    if pads != s1 {
        let mut z = crate::zeros(&pads, in1.dtype(), &in1.device())?;
        let idx: Vec<SliceElem> =
            s1.iter().map(|&n| SliceElem::Slice { start: Some(0), end: Some(n as isize), step: 1 }).collect();
        z.slice_mut(&idx[..])?.assign(in1)?;
        x = z;
    }
    let mut xshape = Vec::new();
    let mut kshape = Vec::new();
    let mut conv_axes_ = Vec::new();
    let mut conv_shape = Vec::new();
    for i in 0..nd {
        match blocks.iter().find(|(a, _)| *a == i) {
            Some(&(_, f)) => {
                let step = f - s2[i] + 1;
                xshape.extend([pads[i] / step, step]);
                kshape.extend([1, s2[i]]);
                conv_axes_.push(xshape.len() - 1);
                conv_shape.extend([pads[i] / step, f]);
            }
            None => {
                xshape.push(pads[i]);
                kshape.push(s2[i]);
                if axes.contains(&i) {
                    conv_axes_.push(xshape.len() - 1);
                    conv_shape.push(pads[i] + s2[i] - 1);
                } else {
                    conv_shape.push(pads[i].max(s2[i]));
                }
            }
        }
    }
    let xb = x.reshape(xshape)?;
    let kb = in2.reshape(kshape)?;
    let y = freq_conv(&xb, &kb, &conv_axes_, &conv_shape)?;
    // Overlap-add along each block axis: (nb, f) -> nb * step + f - step, tails into the next
    // blocks.
    // (axis i of the input is axis i of `y` once the block axes before it are merged)
    let mut y = y;
    for (i, &k) in s2.iter().enumerate() {
        if let Some(&(_, f)) = blocks.iter().find(|(a, _)| *a == i) {
            y = overlap_add(&y, i, f - k + 1, f)?;
        }
    }
    let idx: Vec<SliceElem> =
        full.iter().map(|&n| SliceElem::Slice { start: Some(0), end: Some(n as isize), step: 1 }).collect();
    let ret = y.slice(&idx[..])?;
    apply_mode(&ret, &s1, &s2, mode, &axes)
}

/// Merges axes `(pos, pos + 1)` = (nb, f) of `y` into one axis of `(nb + pieces) step`
/// elements (`pieces` = the tail `f - step` in steps, at least 1): block `b`'s outputs start
/// at `b * step`, its tail added into the following blocks.
fn overlap_add(y: &Array, pos: usize, step: usize, f: usize) -> Result<Array> {
    let sh = y.shape().to_vec();
    let nb = sh[pos];
    let tail = f - step;
    // Shifted adds in pieces of at most `step` of the tail.
    let pieces = tail.div_ceil(step).max(1);
    let len = (nb + pieces) * step;
    let mut oshape = sh[..pos].to_vec();
    oshape.push(len);
    oshape.extend_from_slice(&sh[pos + 2..]);
    let out = crate::zeros(&oshape, y.dtype(), &y.device())?;
    let all = |n: usize| vec![SliceElem::Slice { start: None, end: None, step: 1 }; n];
    // Blocks as (nb + pieces, step) rows of the output.
    let mut rows_shape = sh[..pos].to_vec();
    rows_shape.extend([nb + pieces, step]);
    rows_shape.extend_from_slice(&sh[pos + 2..]);
    let rows = out.reshape(rows_shape)?;
    for p in 0..=pieces {
        // Part p of each block: columns [p step, min((p + 1) step, f)) go to row b + p.
        let c0 = p * step;
        if c0 >= f {
            break;
        }
        let c1 = ((p + 1) * step).min(f);
        let mut src_idx = all(sh.len());
        src_idx[pos + 1] = SliceElem::Slice { start: Some(c0 as isize), end: Some(c1 as isize), step: 1 };
        let src = y.slice(&src_idx[..])?;
        let mut dst_idx = all(sh.len());
        dst_idx[pos] = SliceElem::Slice { start: Some(p as isize), end: Some((p + nb) as isize), step: 1 };
        dst_idx[pos + 1] = SliceElem::Slice { start: Some(0), end: Some((c1 - c0) as isize), step: 1 };
        let mut dst = rows.slice(&dst_idx[..])?;
        let sum = crate::add(&dst, &src)?;
        dst.assign(&sum)?;
    }
    Ok(out)
}

/// Whether `convolve`'s `auto` takes the FFT for these shapes on `device` (the 'valid' swap
/// done): on the CPU SciPy's `_fftconv_faster` (its constants); on a GPU the rule measured on
/// an H100 (see [`gpu_fft_faster`]).
pub(crate) fn prefer_fft(device: &Device, x: &[usize], h: &[usize], mode: ConvolveMode, dtype: DType) -> bool {
    match device {
        Device::Cpu => super::fftconv_faster(x, h, mode),
        Device::Cuda(_) => gpu_fft_faster(x, h, mode, dtype),
    }
}

/// The GPU's rule, fitted to timings of cuprum's direct correlation and of its FFT path on an
/// H100 (2-d images of 128² to 2048², square kernels of 3 to 63, 'same' mode, float32 and
/// float64; `cuprum-bench --only 'convrule_*'`, bench/RESULTS.md "convolution methods"). The
/// direct sum costs a launch plus the larger of a latency per tap (each output's taps are
/// summed in order: small images leave the GPU idle) and a throughput cost per multiply-add;
/// the FFT path costs a fixed host and launch overhead plus `c n ln n` for the padded size `n`.
/// float16 results follow SciPy's rule (the direct sum refuses them: the same errors as SciPy).
fn gpu_fft_faster(x: &[usize], h: &[usize], mode: ConvolveMode, dtype: DType) -> bool {
    if x.iter().chain(h).any(|&d| d == 0) {
        return false;
    }
    if dtype == DType::Float16 {
        return super::fftconv_faster(x, h, mode);
    }
    let out: f64 = match mode {
        ConvolveMode::Full => x.iter().zip(h).map(|(a, b)| (a + b - 1) as f64).product(),
        ConvolveMode::Same => x.iter().map(|&a| a as f64).product(),
        ConvolveMode::Valid => x.iter().zip(h).map(|(a, b)| (a.abs_diff(*b) + 1) as f64).product(),
    };
    let taps: f64 = h.iter().map(|&b| b as f64).product::<f64>().min(x.iter().map(|&a| a as f64).product());
    let n: f64 = x
        .iter()
        .zip(h)
        .map(|(a, b)| {
            next_fast_len_with(a + b - 1, &NextFastLenOptions { real: true }).map_or(f64::INFINITY, |n| n as f64)
        })
        .product();
    let single = matches!(dtype, DType::Float32 | DType::Complex64);
    let r = if single { GPU_RULE_F32 } else { GPU_RULE_F64 };
    let direct = r.launch + (r.per_tap * taps).max(r.per_mac * out * taps);
    let fft = r.fft_fixed + r.fft_nlogn * n * n.ln();
    fft < direct
}

/// The constants of the GPU's rule (seconds).
struct GpuRule {
    launch: f64,
    per_tap: f64,
    per_mac: f64,
    fft_fixed: f64,
    fft_nlogn: f64,
}

/// Measured 2026-11-26 on an H100 (float32): e.g. 2048² with 31² taps: direct 0.38 ms, FFT
/// 0.33 ms; 128² with 63² taps: direct 0.20 ms, FFT 0.10 ms; 2048² with 15² taps: direct
/// 0.11 ms, FFT 0.33 ms.
const GPU_RULE_F32: GpuRule =
    GpuRule { launch: 2.0e-5, per_tap: 4.5e-8, per_mac: 1.3e-13, fft_fixed: 1.0e-4, fft_nlogn: 3.4e-12 };
/// The same for float64 (2048² with 31² taps: direct 1.32 ms, FFT 0.62 ms).
const GPU_RULE_F64: GpuRule =
    GpuRule { launch: 2.0e-5, per_tap: 8.2e-8, per_mac: 6.0e-13, fft_fixed: 1.0e-4, fft_nlogn: 7.6e-12 };
