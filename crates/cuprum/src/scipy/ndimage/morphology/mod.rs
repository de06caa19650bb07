//! `scipy.ndimage`'s binary morphology: [`binary_erosion`], [`binary_dilation`],
//! [`binary_opening`], [`binary_closing`], [`binary_fill_holes`] and [`iterate_structure`].
//!
//! Every operation is one or more runs of SciPy's `NI_BinaryErosion`: with the structure's
//! `True` elements as taps `d = k - (shape // 2 + origin)` (per axis), an erosion is
//! `out[p] = AND over the taps of in[p + d]` (`border_value` outside the input), a dilation
//! `out[p] = OR over the taps of in[p - d]` (SciPy's reflected structure, negated origin and
//! even-size adjustment come to exactly that), computed here as the complement of an erosion
//! of the complement. Pixels outside `mask` keep their input value. `iterations` runs the
//! step that many times; below 1, until a step changes nothing.
//!
//! Both devices pack the last axis into words of bits (the CPU 64, the GPU 32 pixels a
//! word), so that a tap is a funnel shift of two neighbouring words and a step is a few word
//! ANDs per 32 or 64 pixels: rows in parallel on the CPU (`cpu.rs`), a thread per word on the
//! GPU (`cuda.rs`, `morphology.cu`), where a 3 x 3 structure on a 2-d image runs up to 16
//! steps a launch on tiles in shared memory (a halo as wide as the steps), the steps of a
//! run are queued without waiting, and a run until stable reads back one flag per step once
//! per batch of steps. The CPU runs until stable as in-place sweeps, forward and backward
//! (valid when the structure holds its centre: every step is then monotone).
//!
//! SciPy's `brute_force` has no observable effect (it chooses between two algorithms with
//! the same result) and is left out. Where the input is smaller than the structure along an
//! axis, SciPy's default (not brute-force) algorithm for more than one iteration gives wrong
//! values or crashes; the results here are those of iterating the step (SciPy's
//! `brute_force=True`). With `iterations < 1` and a structure whose centre is not set, the
//! steps can cycle and SciPy then loops forever: here that is a RuntimeError once a state
//! repeats the one two steps before (or after more steps than the image has pixels, times
//! four). SciPy's `axes` argument is not implemented.

mod cpu;
pub(crate) mod cuda;

use super::Footprint;
use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// The arguments of [`binary_erosion`], [`binary_dilation`], [`binary_opening`] and
/// [`binary_closing`] beyond the input (SciPy's keywords, with SciPy's defaults).
///
/// ```
/// use cuprum::scipy::ndimage::BinaryOptions;
/// let o = BinaryOptions { iterations: 3, border_value: true, ..Default::default() };
/// assert!(o.structure.is_none() && o.mask.is_none() && o.origin.is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct BinaryOptions<'a> {
    /// The structuring element (nonzero elements count), of the input's rank and any dtype
    /// and device; `None`: `generate_binary_structure(rank, 1)`.
    pub structure: Option<&'a Array>,
    /// How many times the step runs; below 1: until the result no longer changes. Default 1.
    pub iterations: i64,
    /// Only pixels where the mask is nonzero are modified (same shape and device as the
    /// input, any dtype but float16, as SciPy).
    pub mask: Option<&'a Array>,
    /// The value of the pixels outside the input. Default `false`.
    pub border_value: bool,
    /// The structure's offset per axis: empty for 0, one value for every axis, or one per
    /// axis; each within `-(n / 2) ..= (n - 1) / 2` for a structure of `n` along that axis.
    pub origin: Vec<i64>,
}

impl Default for BinaryOptions<'_> {
    fn default() -> Self {
        BinaryOptions { structure: None, iterations: 1, mask: None, border_value: false, origin: Vec::new() }
    }
}

/// One prepared run of steps, in the erosion form: `out[p] = AND over taps of x[p + d]`
/// (on the complement when `invert`).
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// The leading axes (all but the last; `[]` for 1-d and 0-d inputs).
    pub lead: Vec<usize>,
    /// The length of the last axis (1 for a 0-d input).
    pub width: usize,
    /// Per tap: its offset along each leading axis, then along the last axis
    /// (`lead.len() + 1` values a tap).
    pub taps: Vec<i64>,
    /// The border value in the erosion's domain (complemented when `invert`).
    pub border: bool,
    /// Dilation: the input complemented on the way in, the output on the way out.
    pub invert: bool,
    /// Steps to run; below 1: until stable.
    pub iterations: i64,
    /// The structure holds the tap `0` (SciPy's `center_is_true`): every step is monotone
    /// toward the result, so a run until stable always ends.
    pub cit: bool,
}

impl Plan {
    pub(crate) fn ntaps(&self) -> usize {
        self.taps.len() / (self.lead.len() + 1)
    }
    pub(crate) fn rows(&self) -> usize {
        self.lead.iter().product()
    }
}

/// The input of a run: the pixels to start from (`None`: all `False`) and the mask (with
/// `true`: its complement is the mask), both bool and C-contiguous on one device.
pub(crate) struct Run<'a> {
    pub x: Option<&'a Array>,
    pub mask: Option<(&'a Array, bool)>,
    /// Complement the result once more (binary_fill_holes).
    pub out_not: bool,
}

/// Runs `plan` into `out` (bool, C-contiguous) on `out`'s device.
fn run_into(plan: &Plan, r: &Run<'_>, out: &Array) -> Result<()> {
    if r.x.is_some_and(|x| x.dtype().is_complex()) {
        return Err(Error::Type("binary morphology: Complex type not supported (SciPy raises TypeError)".into()));
    }
    if out.size() == 0 {
        return Ok(());
    }
    match out.device() {
        Device::Cpu => cpu::run(plan, r, out),
        Device::Cuda(_) => cuda::run(plan, r, out),
    }
}

/// `a` as C-contiguous bool (nonzero: `true`; NaN is nonzero); float16 is SciPy's
/// `RuntimeError: data type not supported`.
fn as_bool(a: &Array) -> Result<Array> {
    if a.dtype() == DType::Float16 {
        return Err(Error::Runtime("data type not supported".into()));
    }
    if a.dtype() == DType::Bool {
        a.as_contiguous()
    } else {
        a.astype(DType::Bool)
    }
}

/// The structure (or the default) as a footprint of the input's rank.
fn structure_of(structure: Option<&Array>, ndim: usize) -> Result<Footprint> {
    let f = match structure {
        None => Footprint::binary(ndim, 1)?,
        Some(s) => Footprint::read(s)?,
    };
    if f.ndim() != ndim {
        return Err(Error::Runtime("structure and input must have same dimensionality".into()));
    }
    if f.mask.is_empty() {
        return Err(Error::Runtime("structure must not be empty".into()));
    }
    Ok(f)
}

/// SciPy's `_normalize_sequence(origin, rank)`, and each origin within the structure.
fn origins(origin: &[i64], shape: &[usize]) -> Result<Vec<i64>> {
    let o = match origin.len() {
        0 => vec![0; shape.len()],
        1 => vec![origin[0]; shape.len()],
        n if n == shape.len() => origin.to_vec(),
        _ => return Err(Error::Runtime("sequence argument must have length equal to input rank".into())),
    };
    for (&o, &n) in o.iter().zip(shape) {
        let n = n as i64;
        if o < -(n / 2) || o > (n - 1) / 2 {
            return Err(Error::Value("invalid origin".into()));
        }
    }
    Ok(o)
}

/// The plan of an erosion (`invert`: a dilation) of an input of `shape` by `f` with origin `o`.
fn plan_of(shape: &[usize], f: &Footprint, o: &[i64], invert: bool, border_value: bool, iterations: i64) -> Plan {
    // A 0-d input is one pixel of a 1-d axis; the 0-d structure its one tap.
    let (shape, fshape, o) =
        if shape.is_empty() { (vec![1], vec![1], vec![0]) } else { (shape.to_vec(), f.shape.clone(), o.to_vec()) };
    let nd = shape.len();
    let mut taps = Vec::new();
    let mut cit = false;
    for (i, _) in f.mask.iter().enumerate().filter(|(_, &m)| m) {
        let mut rem = i;
        let mut d = vec![0i64; nd];
        for k in (0..nd).rev() {
            let c = (rem % fshape[k]) as i64;
            rem /= fshape[k];
            let off = c - (fshape[k] as i64 / 2 + o[k]);
            // Dilation: the reflected taps.
            d[k] = if invert { -off } else { off };
        }
        cit |= d.iter().all(|&v| v == 0);
        taps.extend_from_slice(&d);
    }
    Plan {
        lead: shape[..nd - 1].to_vec(),
        width: shape[nd - 1],
        taps,
        border: border_value ^ invert,
        invert,
        iterations,
        cit,
    }
}

/// SciPy's dilation reflects the structure along each axis of the origin (normalised to the
/// input's rank) before any other check: a structure of lower rank is an IndexError there.
fn dilation_checks(structure: Option<&Array>, origin: &[i64], ndim: usize) -> Result<()> {
    if !matches!(origin.len(), 0 | 1) && origin.len() != ndim {
        return Err(Error::Runtime("sequence argument must have length equal to input rank".into()));
    }
    match structure {
        Some(s) if s.ndim() < ndim => Err(Error::Index("tuple index out of range".into())),
        _ => Ok(()),
    }
}

/// The common part of erosion and dilation.
fn erode_dilate(input: &Array, o: &BinaryOptions<'_>, invert: bool) -> Result<Array> {
    if input.dtype().is_complex() {
        // SciPy's binary morphology has no complex loop.
        return Err(Error::Type("Complex type not supported".into()));
    }
    if invert {
        dilation_checks(o.structure, &o.origin, input.ndim())?;
    }
    let f = structure_of(o.structure, input.ndim())?;
    let mask = match o.mask {
        Some(m) => {
            if m.shape() != input.shape() {
                return Err(Error::Runtime("mask and input must have equal sizes".into()));
            }
            crate::array::same_device(if invert { "binary_dilation" } else { "binary_erosion" }, input, m)?;
            Some(m)
        }
        None => None,
    };
    let org = origins(&o.origin, &f.shape)?;
    let x = as_bool(input)?;
    let mask = mask.map(as_bool).transpose()?;
    let plan = plan_of(input.shape(), &f, &org, invert, o.border_value, o.iterations);
    let out = Array::alloc(input.shape(), DType::Bool, input.device(), false)?;
    let run = Run { x: Some(&x), mask: mask.as_ref().map(|m| (m, false)), out_not: false };
    run_into(&plan, &run, &out)?;
    Ok(out)
}

/// SciPy's `ndimage.binary_erosion` with the default keywords ([`BinaryOptions::default()`]); see
/// [`binary_erosion_with`].
pub fn binary_erosion(input: &Array) -> Result<Array> {
    binary_erosion_with(input, &BinaryOptions::default())
}

/// SciPy's `ndimage.binary_erosion(input, structure, iterations, mask, border_value,
/// origin)`: `True` where the structure, placed at the pixel, covers only `True` pixels
/// (nonzero input; `border_value` outside), repeated `iterations` times (below 1: until
/// nothing changes); pixels outside `mask` keep their input value. The result is bool.
///
/// Errors as SciPy: a structure of another rank or empty, or a mask of another shape, is a
/// RuntimeError (a structure of lower rank in a dilation, SciPy's IndexError), as is a float16 input or mask (SciPy's "data type not supported"); an
/// origin list of another length is a RuntimeError and an origin outside the structure a
/// ValueError (SciPy: an IndexError or a crash); an input and a mask on different devices
/// a ValueError. A structure with no `True` element erodes nothing away: all `True`.
///
/// ```
/// use cuprum::scipy::ndimage::{binary_erosion, binary_erosion_with, BinaryOptions};
/// let dev = cuprum::Device::default_device();
/// let mut v = vec![0u8; 25];
/// for r in 1..4 { for c in 1..4 { v[r * 5 + c] = 1; } }
/// let x = cuprum::from_slice(&v, &[5, 5], &dev)?;
/// let e = binary_erosion(&x)?;
/// let mut want = vec![false; 25];
/// want[12] = true; // only the centre of the 3 x 3 square survives
/// assert_eq!(e.to_vec::<bool>()?, want);
/// // With border_value, the edges count as True: the square of ones stays whole.
/// let ones = cuprum::ones(&[5, 5], cuprum::DType::Bool, &dev)?;
/// let b = binary_erosion_with(&ones, &BinaryOptions { border_value: true, ..Default::default() })?;
/// assert_eq!(b.to_vec::<bool>()?, vec![true; 25]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn binary_erosion_with(input: &Array, options: &BinaryOptions<'_>) -> Result<Array> {
    erode_dilate(input, options, false)
}

/// SciPy's `ndimage.binary_dilation` with the default keywords ([`BinaryOptions::default()`]); see
/// [`binary_dilation_with`].
pub fn binary_dilation(input: &Array) -> Result<Array> {
    binary_dilation_with(input, &BinaryOptions::default())
}

/// SciPy's `ndimage.binary_dilation(input, structure, iterations, mask, border_value,
/// origin)`: `True` where the reflected structure, placed at the pixel, covers a `True`
/// pixel (`border_value` outside), repeated `iterations` times (below 1: until nothing
/// changes); pixels outside `mask` keep their input value. Errors as [`binary_erosion`].
///
/// ```
/// use cuprum::scipy::ndimage::{binary_dilation, binary_dilation_with, BinaryOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_slice(&[0u8, 0, 0, 1, 0, 0, 0], &[7], &dev)?;
/// let d = binary_dilation_with(&x, &BinaryOptions { iterations: 2, ..Default::default() })?;
/// assert_eq!(d.to_vec::<bool>()?, vec![false, true, true, true, true, true, false]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn binary_dilation_with(input: &Array, options: &BinaryOptions<'_>) -> Result<Array> {
    erode_dilate(input, options, true)
}

/// SciPy's `ndimage.binary_opening` with the default keywords ([`BinaryOptions::default()`]); see
/// [`binary_opening_with`].
pub fn binary_opening(input: &Array) -> Result<Array> {
    binary_opening_with(input, &BinaryOptions::default())
}

/// SciPy's `ndimage.binary_opening`: [`binary_erosion`] then [`binary_dilation`], each with
/// the same options (`iterations` of each).
///
/// ```
/// use cuprum::scipy::ndimage::{binary_opening, binary_opening_with, BinaryOptions};
/// let dev = cuprum::Device::default_device();
/// // A lone pixel goes, the run of three stays (a 1-d cross is [1, 1, 1]).
/// let x = cuprum::from_slice(&[1u8, 0, 0, 1, 1, 1, 0], &[7], &dev)?;
/// let o = binary_opening(&x)?;
/// assert_eq!(o.to_vec::<bool>()?, vec![false, false, false, true, true, true, false]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn binary_opening_with(input: &Array, options: &BinaryOptions<'_>) -> Result<Array> {
    let e = binary_erosion_with(input, options)?;
    binary_dilation_with(&e, options)
}

/// SciPy's `ndimage.binary_closing` with the default keywords ([`BinaryOptions::default()`]); see
/// [`binary_closing_with`].
pub fn binary_closing(input: &Array) -> Result<Array> {
    binary_closing_with(input, &BinaryOptions::default())
}

/// SciPy's `ndimage.binary_closing`: [`binary_dilation`] then [`binary_erosion`], each with
/// the same options (`iterations` of each).
///
/// ```
/// use cuprum::scipy::ndimage::{binary_closing, binary_closing_with, BinaryOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_slice(&[0u8, 1, 1, 0, 1, 1, 0], &[7], &dev)?;
/// let c = binary_closing(&x)?;
/// assert_eq!(c.to_vec::<bool>()?, vec![false, true, true, true, true, true, false]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn binary_closing_with(input: &Array, options: &BinaryOptions<'_>) -> Result<Array> {
    let d = binary_dilation_with(input, options)?;
    binary_erosion_with(&d, options)
}

/// SciPy's `ndimage.binary_fill_holes(input)`: the input (nonzero:
/// `True`) with every `False` region that the structure's connectivity does not join to the
/// edge of the image set `True`. As SciPy: the dilation, until stable, of the edge into the
/// complement of the input (`border_value = 1`, the complement as mask), complemented.
/// The structure is `generate_binary_structure(rank, 1)`; [`binary_fill_holes_with`] takes
/// another and an origin. Any real dtype (float16 too, as SciPy). Errors as
/// [`binary_erosion`].
///
/// ```
/// use cuprum::scipy::ndimage::binary_fill_holes;
/// let dev = cuprum::Device::default_device();
/// let ring = [0u8, 0, 0, 0, 0,
///             0, 1, 1, 1, 0,
///             0, 1, 0, 1, 0,
///             0, 1, 1, 1, 0,
///             0, 0, 0, 0, 0];
/// let x = cuprum::from_slice(&ring, &[5, 5], &dev)?;
/// let f = binary_fill_holes(&x)?.to_vec::<bool>()?;
/// assert!(f[12]); // the hole is filled
/// assert_eq!(f.iter().filter(|&&b| b).count(), 9);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn binary_fill_holes(input: &Array) -> Result<Array> {
    binary_fill_holes_with(input, &FillHolesOptions::default())
}

/// [`binary_fill_holes_with`]'s keywords; `Default` is SciPy's.
#[derive(Clone, Copy, Debug, Default)]
pub struct FillHolesOptions<'a> {
    /// The connectivity (nonzero elements count); `None`: `generate_binary_structure(rank, 1)`.
    pub structure: Option<&'a Array>,
    /// The structure's offset, as [`BinaryOptions::origin`]; empty for 0.
    pub origin: &'a [i64],
}

/// SciPy's `ndimage.binary_fill_holes(input, structure, origin=...)`: as [`binary_fill_holes`].
pub fn binary_fill_holes_with(input: &Array, opts: &FillHolesOptions<'_>) -> Result<Array> {
    let (structure, origin) = (opts.structure, opts.origin);
    dilation_checks(structure, origin, input.ndim())?;
    let f = structure_of(structure, input.ndim())?;
    let org = origins(origin, &f.shape)?;
    // `np.logical_not(input)` takes float16 too.
    let x = if input.dtype() == DType::Bool { input.as_contiguous()? } else { input.astype(DType::Bool)? };
    let plan = plan_of(input.shape(), &f, &org, true, true, -1);
    let out = Array::alloc(input.shape(), DType::Bool, input.device(), false)?;
    // Start from all False, under the mask `not x`, and complement the result.
    let run = Run { x: None, mask: Some((&x, true)), out_not: true };
    run_into(&plan, &run, &out)?;
    Ok(out)
}

/// SciPy's `ndimage.iterate_structure(structure, iterations)`: the structure dilated by
/// itself `iterations - 1` times (a bool array of `n + (iterations - 1) * (n - 1)` per axis,
/// on the structure's device); for `iterations < 2` a copy of the structure (its dtype kept,
/// as SciPy's `structure.copy()`).
///
/// ```
/// use cuprum::scipy::ndimage::{generate_binary_structure, iterate_structure};
/// let s = generate_binary_structure(2, 1)?;
/// let d = iterate_structure(&s, 2)?;
/// assert_eq!(d.shape(), &[5, 5]);
/// let v = d.to_vec::<bool>()?;
/// assert_eq!(v.iter().filter(|&&b| b).count(), 13); // a diamond of radius 2
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn iterate_structure(structure: &Array, iterations: i64) -> Result<Array> {
    if iterations < 2 {
        return structure.copy();
    }
    let f = Footprint::read(structure)?;
    if f.mask.is_empty() {
        // SciPy: the shape n + ni * (n - 1) of an empty axis is negative.
        return Err(Error::Value("negative dimensions are not allowed".into()));
    }
    let ni = (iterations - 1) as usize;
    // n + ni * (n - 1) along each axis: sizes past memory are SciPy's MemoryError.
    let too_big = || crate::core::alloc::oom::<bool>(usize::MAX);
    let shape = f
        .shape
        .iter()
        .map(|&n| ni.checked_mul(n.saturating_sub(1)).and_then(|v| v.checked_add(n)).ok_or_else(too_big))
        .collect::<Result<Vec<usize>>>()?;
    // The structure placed at ni * (n // 2) of the zeros, then dilated ni times by itself.
    let size = shape.iter().try_fold(1usize, |p, &d| p.checked_mul(d)).ok_or_else(too_big)?;
    let mut canvas = crate::core::alloc::vec_filled(size, false)?;
    let nd = shape.len();
    for (i, &m) in f.mask.iter().enumerate() {
        let (mut rem, mut lin, mut stride) = (i, 0usize, 1usize);
        for k in (0..nd).rev() {
            let c = rem % f.shape[k];
            rem /= f.shape[k];
            lin += (c + ni * (f.shape[k] / 2)) * stride;
            stride *= shape[k];
        }
        canvas[lin] = m;
    }
    let c = crate::from_slice(&canvas, &shape, &Device::Cpu)?;
    let s = crate::from_slice(&f.mask, &f.shape, &Device::Cpu)?;
    let out =
        binary_dilation_with(&c, &BinaryOptions { structure: Some(&s), iterations: ni as i64, ..Default::default() })?;
    out.to_device(&structure.device())
}

/// [`iterate_structure`] with SciPy's `origin`: also the origin for the iterated structure,
/// each of `origin` (normalised as [`BinaryOptions::origin`]) times `iterations`. For
/// `iterations < 2` SciPy returns the bare copy, without the origin; here the origin comes
/// back unchanged.
///
/// ```
/// use cuprum::scipy::ndimage::{generate_binary_structure, iterate_structure_origin};
/// let s = generate_binary_structure(2, 1)?;
/// let (d, o) = iterate_structure_origin(&s, 3, &[1])?;
/// assert_eq!((d.shape(), o), (&[7, 7][..], vec![3, 3]));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn iterate_structure_origin(structure: &Array, iterations: i64, origin: &[i64]) -> Result<(Array, Vec<i64>)> {
    let nd = structure.ndim();
    let o = match origin.len() {
        0 => vec![0; nd],
        1 => vec![origin[0]; nd],
        n if n == nd => origin.to_vec(),
        _ => return Err(Error::Runtime("sequence argument must have length equal to input rank".into())),
    };
    let s = iterate_structure(structure, iterations)?;
    if iterations < 2 {
        return Ok((s, o));
    }
    let scaled = o.iter().map(|&v| v.checked_mul(iterations)).collect::<Option<Vec<i64>>>();
    Ok((s, scaled.ok_or_else(|| Error::Overflow("Python int too large to convert to C long".into()))?))
}
