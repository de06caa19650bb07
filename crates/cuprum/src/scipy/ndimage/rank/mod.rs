//! `scipy.ndimage`'s rank filters: `minimum_filter1d`, `maximum_filter1d`, `minimum_filter`,
//! `maximum_filter`, `median_filter`, `rank_filter`, `percentile_filter`, and the grey
//! morphology built on them (`grey_erosion`, `grey_dilation`), with SciPy's arguments, checks,
//! error kinds and output dtype (the input's).
//!
//! Every filter is an order statistic of the window: all values are mapped to unsigned keys
//! whose integer order is the order of the values (floats: the sign flipped, NaN above `+inf`),
//! and the result is the key of the wanted rank mapped back. Min and max filters over a full
//! box (`size`, or an all-`True` footprint) run as separable 1-d passes, as SciPy runs them;
//! other footprints, and every other rank, gather the window of each output. The CPU
//! (`cpu.rs`) and the GPU (`cuda.rs`, `rank.cu`) compute the same exact order statistics, so
//! their results are identical.
//!
//! # NaN: SciPy's answers
//!
//! SciPy compares with C's `<`, `<=` and `>`, which are false for a NaN, so where a window
//! holds a NaN its answer is whatever its algorithm makes of those comparisons: it depends on
//! the algorithm and on where the NaN sits. cuprum gives SciPy's answer there, by running
//! SciPy's comparisons where (and only where) a NaN is met, on both devices:
//! - **separable min/max passes** (SciPy's `NI_MinOrMaxFilter1D`, Richard Harter's deque of
//!   ascending minima over the line extended by the mode): a line whose windows hold a NaN
//!   (or the constant, when `cval` is NaN) is run through that deque over doubles
//!   (`cpu::harter_line`, `minlist` in `rank.cu`, one thread a line);
//! - **min/max over a footprint, and grey morphology** (SciPy's running comparison,
//!   `CASE_MIN_OR_MAX_POINT`): NaN when the window's first element (in the footprint's C
//!   order) is NaN, else the min/max of the window's numbers;
//! - **rank filters** (`median_filter`, `rank_filter`, `percentile_filter`; SciPy's
//!   `NI_Select`, Hoare's quickselect around the first element of the window in the
//!   footprint's C order): each window holding a NaN goes through that quickselect
//!   (`cpu::scipy_select`, `nansel` in `rank.cu`);
//! - **1-d rank filters with a full window** (SciPy's `_rank_filter_1d`, a double heap that
//!   keeps its state from window to window, so a NaN changes answers after it has left the
//!   window): when the line or a constant `cval` holds a NaN, the whole line is replayed
//!   through that heap (`cpu::Mediator`; `mediator` in `rank.cu`, one GPU thread: slow for
//!   long lines, and only then). Where SciPy's 1-d path would read past a short line (its
//!   answer undefined), the quickselect above is used.
//!
//! A NaN in the result is the canonical quiet NaN.
//!
//! # Deviations from SciPy
//!
//! - **`-0.0` and `0.0`** compare equal in SciPy, which returns whichever its algorithm keeps;
//!   here `-0.0` is ordered below `0.0` (outside the NaN paths above).
//! - **64-bit integers** are exact. SciPy's C loops carry values through `double`, so int64
//!   and uint64 values beyond 2^53 come back rounded (or wrapped) there.
//! - **SciPy's 1-d rank path** (`_rank_filter_1d`, used for 1-d inputs by `rank_filter`,
//!   `median_filter` and `percentile_filter`) ignores the holes of a footprint, orders uint64
//!   values as int64, and reads past the end of inputs shorter than about the window; here a
//!   footprint's holes are kept, uint64 is ordered as uint64 and short inputs get the N-d
//!   path's answer (SciPy's N-d semantics; with no NaN both paths agree otherwise). It also
//!   accepts float16, which the N-d path refuses ("array type not supported"): float16 is
//!   accepted where SciPy's 1-d rank path would run, refused elsewhere, as SciPy does.
//! - **`cval`** is converted to the input's dtype as C casts a double (truncation toward zero
//!   for integers; values outside the type's range wrap modulo 2^bits, as x86 does for the
//!   narrow types). SciPy's separable min/max compare a `double` cval before converting, so an
//!   out-of-range cval can give other results there.
//! - **A sequence of modes** (SciPy's separable min/max accept one per axis) is not supported:
//!   one [`Mode`] for all axes.
//! - **Footprints and structures** must be on the input's device (a device mismatch is an
//!   error); SciPy has no devices.

mod cpu;
pub(crate) mod cuda;

use super::{check_axes, per_axis, Footprint, Mode};
use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;

/// The options every rank filter shares (SciPy's `mode`, `cval`, `origin`, `axes`).
///
/// `origin` is one value for every filtered axis, one per axis, or empty (all 0); `axes`
/// `None` filters every axis.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RankOptions {
    /// How the input is extended past its edges.
    pub mode: Mode,
    /// The value outside the input for [`Mode::Constant`].
    pub cval: f64,
    /// The window's shift per filtered axis (positive: toward lower indices).
    pub origin: Vec<isize>,
    /// The axes filtered (`None`: all).
    pub axes: Option<Vec<isize>>,
}

/// The window of a filter: SciPy's `size` (one value for every filtered axis, or one per axis)
/// or `footprint` (an array whose nonzero elements are the window, on the input's device).
#[derive(Copy, Clone, Debug)]
pub enum Window<'a> {
    /// A full box of these sizes.
    Size(&'a [usize]),
    /// The nonzero elements of this array.
    Footprint(&'a Array),
}

/// What a filter computes at each output.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Op {
    Min,
    Max,
    /// The value of this rank (0: the smallest) of the window.
    Rank(usize),
}

/// A non-separable filter over the whole input: the footprint (as many axes as the input,
/// C order), its origins, the operation and, for grey morphology with a structure, the value
/// added to each window element (one per nonzero footprint element; already negated for an
/// erosion).
pub(crate) struct Plan {
    pub op: Op,
    pub fshape: Vec<usize>,
    pub mask: Vec<bool>,
    pub origins: Vec<i64>,
    pub mode: Mode,
    pub cval: f64,
    pub structure: Option<Vec<f64>>,
    /// SciPy runs this filter through its 1-d rank path (`_rank_filter_1d`: a 1-d input, a
    /// rank other than the first and last, `n >= lim` or `n == 1`), the window is full and that
    /// path reads only inside the line ([`mediator_inside`]): its double heap gives the answer
    /// where a NaN is met (see the module's NaN section). Decided here once for both devices.
    pub line1d: bool,
}

/// The `cval` of SciPy's 1-d rank path: converted to the type it runs in, float64 or float32
/// (float16 goes through float32).
pub(crate) fn line1d_cval(dt: DType, cval: f64) -> f64 {
    if dt == DType::Float64 {
        cval
    } else {
        cval as f32 as f64
    }
}

/// Whether SciPy's 1-d rank path (`_rank_filter_1d`) reads only inside a line of `n` elements
/// for a window of `w` elements at `origin` in `mode` (for lines shorter than about the
/// window it reads past their end, and its answer is undefined).
pub(crate) fn mediator_inside(n: i64, w: i64, origin: i64, mode: Mode) -> bool {
    let lim = (w - 1) / 2 - origin;
    if n < 1 || w < 1 || lim < 0 || lim > n {
        return false;
    }
    // Its first windows read in[w - lim - 1 ..= 0] (reflect), in[w - lim ..= 1] (mirror) or
    // in[n - lim - offset - 2 origin .. n] (wrap); its last ones in[n - 2 - i] for i < lim
    // (mirror).
    match mode {
        Mode::Reflect => w - lim - 1 < n,
        Mode::Mirror => w - lim < n && n - 1 - lim >= 0,
        Mode::Wrap => n - lim - if w % 2 == 0 { 2 } else { 0 } - 2 * origin >= 0,
        Mode::Nearest | Mode::Constant => true,
    }
}

impl Plan {
    /// The number of window elements.
    pub(crate) fn size(&self) -> usize {
        self.mask.iter().filter(|&&b| b).count()
    }
    /// The offset of window element (0, ..., 0) from its output along each axis:
    /// `-(f / 2) - origin`.
    pub(crate) fn start(&self) -> Vec<i64> {
        self.fshape.iter().zip(&self.origins).map(|(&f, &o)| -((f / 2) as i64) - o).collect()
    }
    /// The positions (per axis, C order) of the window's elements in the footprint.
    pub(crate) fn taps(&self) -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        for (i, &m) in self.mask.iter().enumerate() {
            if m {
                let mut idx = vec![0; self.fshape.len()];
                let mut r = i;
                for d in (0..self.fshape.len()).rev() {
                    idx[d] = r % self.fshape[d];
                    r /= self.fshape[d];
                }
                out.push(idx);
            }
        }
        out
    }
}

/// One 1-d min or max pass along `axis`.
pub(crate) struct Pass {
    pub axis: usize,
    pub size: usize,
    pub origin: i64,
    pub mode: Mode,
    pub cval: f64,
    pub max: bool,
}

fn unsupported(dt: DType) -> Result<()> {
    if dt == DType::Float16 {
        return Err(Error::Runtime("array type not supported".into()));
    }
    Ok(())
}

fn check_device(x: &Array, a: &Array, op: &str) -> Result<()> {
    crate::array::same_device(op, x, a).map(|_| ())
}

/// SciPy's TypeError for complex input to the rank filters.
fn complex_type(x: &Array) -> Result<()> {
    if x.dtype().is_complex() {
        return Err(Error::Type("Complex type not supported".into()));
    }
    Ok(())
}

/// The all-true footprint of a box of `sizes` (sizes from the user: NumPy's "array is too big"
/// ValueError where their product overflows, MemoryError beyond the host, as `np.ones(size,
/// bool)` in SciPy).
fn box_mask(sizes: &[usize]) -> Result<Vec<bool>> {
    crate::core::alloc::vec_filled(crate::core::layout::checked_nbytes(sizes, 1)?, true)
}

fn check_origin(f: usize, o: i64) -> Result<()> {
    let c = (f / 2) as i64 + o;
    if c < 0 || c >= f as i64 {
        return Err(Error::Value("invalid origin".into()));
    }
    Ok(())
}

/// A footprint over `axes` expanded to every axis of the input (SciPy's `_expand_footprint`),
/// and the origins likewise (0 on the other axes).
fn expand(fp: Footprint, origin: &[isize], axes: &[usize], ndim: usize) -> Result<(Footprint, Vec<i64>)> {
    let num = axes.len();
    let mut fp = fp;
    if num < ndim {
        if fp.ndim() != num {
            return Err(Error::Runtime(format!("footprint.ndim ({}) must match len(axes) ({num})", fp.ndim())));
        }
        // np.expand_dims: the footprint's axes land on the filtered axes in increasing order,
        // whatever the order of `axes` (the origins follow `axes`' order).
        let mut sorted = axes.to_vec();
        sorted.sort_unstable();
        let mut shape = vec![1; ndim];
        for (i, &a) in sorted.iter().enumerate() {
            shape[a] = fp.shape[i];
        }
        fp.shape = shape;
    }
    let o = per_axis(origin, num, Default::default())?;
    let mut origins = vec![0i64; ndim];
    if num < ndim {
        for (i, &a) in axes.iter().enumerate() {
            origins[a] = o[i] as i64;
        }
    } else {
        origins = o.iter().map(|&v| v as i64).collect();
    }
    let nonzero_dims = fp.shape.iter().filter(|&&s| s > 0).count();
    if nonzero_dims != ndim {
        return Err(Error::Runtime(format!("footprint.ndim ({}) must match len(axes) ({num})", fp.ndim())));
    }
    for (&f, &o) in fp.shape.iter().zip(&origins) {
        check_origin(f, o)?;
    }
    Ok((fp, origins))
}

/// Runs a non-separable filter (`out` = a fresh C-contiguous array like `x`).
fn run_plan(x: &Array, plan: &Plan) -> Result<Array> {
    complex_type(x)?;
    let x = x.as_contiguous()?;
    let out = Array::alloc(x.shape(), x.dtype(), x.device(), false)?;
    if out.size() == 0 {
        return Ok(out);
    }
    match out.device() {
        Device::Cpu => cpu::filter(&x, &out, plan)?,
        Device::Cuda(_) => cuda::filter(&x, &out, plan)?,
    }
    Ok(out)
}

/// Runs separable min/max passes, one after the other (at least one).
fn run_passes(x: &Array, passes: &[Pass]) -> Result<Array> {
    complex_type(x)?;
    // SciPy's line buffer (a line and its window's extension, float64): a window too large for
    // memory is its MemoryError on both devices, before any buffer of that size is asked for.
    for p in passes {
        crate::core::alloc::check_host_len::<f64>(x.shape()[p.axis].saturating_add(p.size))?;
    }
    let x = x.as_contiguous()?;
    let out = Array::alloc(x.shape(), x.dtype(), x.device(), false)?;
    if out.size() == 0 {
        return Ok(out);
    }
    match out.device() {
        Device::Cpu => cpu::minmax_passes(&x, &out, passes)?,
        Device::Cuda(_) => cuda::minmax_passes(&x, &out, passes)?,
    }
    Ok(out)
}

/// SciPy's separable min/max: a 1-d pass along every filtered axis whose size exceeds 1.
fn separable(
    x: &Array,
    sizes: &[usize],
    origin: &[isize],
    axes: &[usize],
    o: &RankOptions,
    max: bool,
) -> Result<Array> {
    complex_type(x)?;
    let origins = per_axis(origin, axes.len(), Default::default())?;
    let sizes = per_axis(sizes, axes.len(), Default::default())?;
    let mut passes = Vec::new();
    for ((&axis, &size), &orig) in axes.iter().zip(&sizes).zip(&origins) {
        if size > 1 {
            check_origin(size, orig as i64)?;
            passes.push(Pass { axis, size, origin: orig as i64, mode: o.mode, cval: o.cval, max });
        }
    }
    if passes.is_empty() {
        // SciPy: `output[...] = input[...]`, whatever the dtype (float16 too).
        return x.copy();
    }
    unsupported(x.dtype())?;
    run_passes(x, &passes)
}

/// SciPy's `_min_or_max_filter` (structure values as given; `max`: a maximum).
fn min_or_max(
    x: &Array,
    size: Option<&[usize]>,
    footprint: Option<Footprint>,
    structure: Option<(Vec<usize>, Vec<f64>)>,
    origin: &[isize],
    o: &RankOptions,
    max: bool,
) -> Result<Array> {
    let ndim = x.ndim();
    let (footprint, size_from_fp) = match (&structure, footprint) {
        (None, None) => (None, None),
        (None, Some(fp)) => {
            if !fp.mask.iter().any(|&b| b) {
                return Err(Error::Value("All-zero footprint is not supported.".into()));
            }
            if fp.mask.iter().all(|&b| b) {
                (None, Some(fp.shape))
            } else {
                (Some(fp), None)
            }
        }
        (Some((shape, _)), None) => (Some(Footprint { shape: shape.clone(), mask: box_mask(shape)? }), None),
        (Some(_), Some(fp)) => (Some(fp), None),
    };
    let axes = check_axes(&o.axes, ndim)?;
    let Some(fp) = footprint else {
        if size_from_fp.as_ref().is_some_and(|s| s.len() != axes.len()) {
            // A footprint's shape is a sequence, not a scalar to repeat.
            return Err(Error::Runtime("sequence argument must have length equal to input rank".into()));
        }
        let sizes = size_from_fp.as_deref().or(size).unwrap_or(&[]);
        return separable(x, sizes, origin, &axes, o, max);
    };
    let num = axes.len();
    let (fp, origins) = expand(fp, origin, &axes, ndim)?;
    let structure = match structure {
        None => None,
        Some((sshape, vals)) => {
            if sshape.len() != num {
                return Err(Error::Runtime("structure array has incorrect shape".into()));
            }
            if sshape.iter().product::<usize>() != fp.mask.len() {
                return Err(Error::Runtime("structure array has incorrect shape".into()));
            }
            // The values added to the window's elements, C order (an erosion subtracts).
            Some(fp.mask.iter().zip(&vals).filter(|(&m, _)| m).map(|(_, &v)| if max { v } else { -v }).collect())
        }
    };
    unsupported(x.dtype())?;
    let plan = Plan {
        op: if max { Op::Max } else { Op::Min },
        fshape: fp.shape,
        mask: fp.mask,
        origins,
        mode: o.mode,
        cval: o.cval,
        structure,
        line1d: false,
    };
    run_plan(x, &plan)
}

/// How `_rank_filter` picks its rank.
enum RankOf {
    Median,
    Rank(i64),
    Percentile(f64),
}

/// SciPy's `_rank_filter`.
fn rank_filter_impl(x: &Array, rank: RankOf, window: Window<'_>, o: &RankOptions) -> Result<Array> {
    let ndim = x.ndim();
    let axes = check_axes(&o.axes, ndim)?;
    let fp = match window {
        Window::Size(s) => {
            let sizes = per_axis(s, axes.len(), Default::default())?;
            Footprint { mask: box_mask(&sizes)?, shape: sizes }
        }
        Window::Footprint(a) => {
            check_device(x, a, "rank_filter")?;
            Footprint::read(a)?
        }
    };
    let (fp, origins) = expand(fp, &o.origin, &axes, ndim)?;
    let fsize = fp.mask.iter().filter(|&&b| b).count() as i64;
    let mut rank = match rank {
        RankOf::Median => fsize / 2,
        RankOf::Rank(r) => r,
        RankOf::Percentile(p) => {
            let p = if p < 0.0 { p + 100.0 } else { p };
            if !(0.0..=100.0).contains(&p) {
                return Err(Error::Runtime("invalid percentile".into()));
            }
            if p == 100.0 {
                fsize - 1
            } else {
                (fsize as f64 * p / 100.0) as i64
            }
        }
    };
    if rank < 0 {
        rank += fsize;
    }
    if rank < 0 || rank >= fsize {
        return Err(Error::Runtime("rank not within filter footprint size".into()));
    }
    let min_max = rank == 0 || rank == fsize - 1;
    // SciPy's 1-d rank path (`_rank_filter_1d`, window `footprint.size`, holes and all).
    let n = x.size() as i64;
    let lim2 = n - ((fp.mask.len() as i64 - 1) / 2 - origins.first().copied().unwrap_or(0));
    let scipy_1d = !min_max && ndim == 1 && (lim2 >= 0 || n == 1);
    if x.dtype() == DType::Float16 && !scipy_1d && !min_max {
        // That path takes float16 (through float32); the N-d path refuses it (the min/max
        // filters decide for themselves: a window of one element is a copy).
        unsupported(x.dtype())?;
    }
    let max = rank == fsize - 1;
    let line1d = scipy_1d
        && fp.mask.iter().all(|&b| b)
        && mediator_inside(n, fp.mask.len() as i64, origins.first().copied().unwrap_or(0), o.mode);
    if min_max {
        // SciPy: minimum_filter / maximum_filter with the expanded footprint and origins.
        let o2 = RankOptions { axes: None, ..o.clone() };
        let origin: Vec<isize> = origins.iter().map(|&v| v as isize).collect();
        return min_or_max(x, None, Some(fp), None, &origin, &o2, max);
    }
    let plan = Plan {
        op: Op::Rank(rank as usize),
        fshape: fp.shape,
        mask: fp.mask,
        origins,
        mode: o.mode,
        cval: o.cval,
        structure: None,
        line1d,
    };
    run_plan(x, &plan)
}

fn window_parts(x: &Array, window: Window<'_>, op: &str) -> Result<(Option<Vec<usize>>, Option<Footprint>)> {
    Ok(match window {
        Window::Size(s) => (Some(s.to_vec()), None),
        Window::Footprint(a) => {
            check_device(x, a, op)?;
            (None, Some(Footprint::read(a)?))
        }
    })
}

/// SciPy's `ndimage.minimum_filter1d` with the default keywords ([`RankOptions::default()`]); see
/// [`minimum_filter1d_with`].
pub fn minimum_filter1d(x: &Array, size: usize, axis: isize) -> Result<Array> {
    minimum_filter1d_with(x, size, axis, &RankOptions::default())
}

/// SciPy's `ndimage.minimum_filter1d(input, size, axis, mode=, cval=, origin=)`: the minimum
/// over `size` elements along `axis` (SciPy's default `axis` is `-1`). `opts.origin` holds at
/// most one value; `opts.axes` is ignored.
///
/// ```
/// use cuprum::scipy::ndimage::{minimum_filter1d, minimum_filter1d_with, RankOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![2.0, 8.0, 0.0, 4.0, 1.0, 9.0, 9.0, 0.0], &dev)?;
/// let m = minimum_filter1d(&x, 3, -1)?;
/// assert_eq!(m.to_vec::<f64>()?, vec![2.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn minimum_filter1d_with(x: &Array, size: usize, axis: isize, opts: &RankOptions) -> Result<Array> {
    filter1d(x, size, axis, opts, false)
}

/// SciPy's `ndimage.maximum_filter1d` with the default keywords ([`RankOptions::default()`]); see
/// [`maximum_filter1d_with`].
pub fn maximum_filter1d(x: &Array, size: usize, axis: isize) -> Result<Array> {
    maximum_filter1d_with(x, size, axis, &RankOptions::default())
}

/// SciPy's `ndimage.maximum_filter1d(input, size, axis, mode=, cval=, origin=)`: the maximum
/// over `size` elements along `axis`, as [`minimum_filter1d`].
///
/// ```
/// use cuprum::scipy::ndimage::{maximum_filter1d, maximum_filter1d_with, RankOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![2.0, 8.0, 0.0, 4.0, 1.0, 9.0, 9.0, 0.0], &dev)?;
/// let m = maximum_filter1d(&x, 3, -1)?;
/// assert_eq!(m.to_vec::<f64>()?, vec![8.0, 8.0, 8.0, 4.0, 9.0, 9.0, 9.0, 9.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn maximum_filter1d_with(x: &Array, size: usize, axis: isize, opts: &RankOptions) -> Result<Array> {
    filter1d(x, size, axis, opts, true)
}

fn filter1d(x: &Array, size: usize, axis: isize, o: &RankOptions, max: bool) -> Result<Array> {
    let axis = normalize_axis(axis, x.ndim())?;
    if size < 1 {
        return Err(Error::Runtime("incorrect filter size".into()));
    }
    let origin = per_axis(&o.origin, 1, Default::default())?[0] as i64;
    check_origin(size, origin)?;
    unsupported(x.dtype())?;
    run_passes(x, &[Pass { axis, size, origin, mode: o.mode, cval: o.cval, max }])
}

/// SciPy's `ndimage.minimum_filter` with the default keywords ([`RankOptions::default()`]); see
/// [`minimum_filter_with`].
pub fn minimum_filter(x: &Array, window: Window<'_>) -> Result<Array> {
    minimum_filter_with(x, window, &RankOptions::default())
}

/// SciPy's `ndimage.minimum_filter(input, size=|footprint=, mode=, cval=, origin=, axes=)`:
/// the minimum of the window. A full box runs as 1-d passes (SciPy's separable path).
///
/// ```
/// use cuprum::scipy::ndimage::{minimum_filter, minimum_filter_with, RankOptions, Window};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::arange(12, &dev)?.reshape([3, 4])?;
/// let m = minimum_filter(&x, Window::Size(&[2]))?;
/// assert_eq!(m.to_vec::<i64>()?, vec![0, 0, 1, 2, 0, 0, 1, 2, 4, 4, 5, 6]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn minimum_filter_with(x: &Array, window: Window<'_>, opts: &RankOptions) -> Result<Array> {
    let (size, fp) = window_parts(x, window, "minimum_filter")?;
    min_or_max(x, size.as_deref(), fp, None, &opts.origin, opts, false)
}

/// SciPy's `ndimage.maximum_filter` with the default keywords ([`RankOptions::default()`]); see
/// [`maximum_filter_with`].
pub fn maximum_filter(x: &Array, window: Window<'_>) -> Result<Array> {
    maximum_filter_with(x, window, &RankOptions::default())
}

/// SciPy's `ndimage.maximum_filter`: the maximum of the window, as [`minimum_filter`].
///
/// ```
/// use cuprum::scipy::ndimage::{maximum_filter, maximum_filter_with, Mode, RankOptions, Window};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::arange(12, &dev)?.reshape([3, 4])?;
/// let fp = cuprum::from_slice(&[false, true, true, false], &[2, 2], &dev)?;
/// let o = RankOptions { mode: Mode::Constant, cval: -1.0, ..Default::default() };
/// let m = maximum_filter_with(&x, Window::Footprint(&fp), &o)?;
/// assert_eq!(m.to_vec::<i64>()?, vec![-1, 0, 1, 2, 0, 4, 5, 6, 4, 8, 9, 10]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn maximum_filter_with(x: &Array, window: Window<'_>, opts: &RankOptions) -> Result<Array> {
    let (size, fp) = window_parts(x, window, "maximum_filter")?;
    min_or_max(x, size.as_deref(), fp, None, &opts.origin, opts, true)
}

/// SciPy's `ndimage.median_filter` with the default keywords ([`RankOptions::default()`]); see
/// [`median_filter_with`].
pub fn median_filter(x: &Array, window: Window<'_>) -> Result<Array> {
    median_filter_with(x, window, &RankOptions::default())
}

/// SciPy's `ndimage.median_filter(input, size=|footprint=, mode=, cval=, origin=, axes=)`: the
/// element of rank `n // 2` of each window of `n` elements (for even `n`, the upper median; no
/// averaging).
///
/// ```
/// use cuprum::scipy::ndimage::{median_filter, median_filter_with, RankOptions, Window};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![1.0f32, 9.0, 2.0, 8.0, 3.0, 7.0], &dev)?;
/// let m = median_filter(&x, Window::Size(&[3]))?;
/// assert_eq!(m.to_vec::<f32>()?, vec![1.0, 2.0, 8.0, 3.0, 7.0, 7.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn median_filter_with(x: &Array, window: Window<'_>, opts: &RankOptions) -> Result<Array> {
    rank_filter_impl(x, RankOf::Median, window, opts)
}

/// SciPy's `ndimage.rank_filter` with the default keywords ([`RankOptions::default()`]); see
/// [`rank_filter_with`].
pub fn rank_filter(x: &Array, rank: i64, window: Window<'_>) -> Result<Array> {
    rank_filter_with(x, rank, window, &RankOptions::default())
}

/// SciPy's `ndimage.rank_filter(input, rank, size=|footprint=, ...)`: the element of rank
/// `rank` (negative: from the end) of each window. A rank outside the window is SciPy's
/// RuntimeError `rank not within filter footprint size`; rank 0 and the last rank are the
/// minimum and maximum filters.
///
/// ```
/// use cuprum::scipy::ndimage::{rank_filter, rank_filter_with, RankOptions, Window};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![5i32, 1, 4, 2, 8, 3], &dev)?;
/// let r = rank_filter(&x, -2, Window::Size(&[3]))?;
/// assert_eq!(r.to_vec::<i32>()?, vec![5, 4, 2, 4, 3, 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn rank_filter_with(x: &Array, rank: i64, window: Window<'_>, opts: &RankOptions) -> Result<Array> {
    rank_filter_impl(x, RankOf::Rank(rank), window, opts)
}

/// SciPy's `ndimage.percentile_filter` with the default keywords ([`RankOptions::default()`]); see
/// [`percentile_filter_with`].
pub fn percentile_filter(x: &Array, percentile: f64, window: Window<'_>) -> Result<Array> {
    percentile_filter_with(x, percentile, window, &RankOptions::default())
}

/// SciPy's `ndimage.percentile_filter(input, percentile, size=|footprint=, ...)`: the element
/// of rank `int(n * percentile / 100)` (100: the last; a negative percentile counts from 100;
/// outside `[-100, 100]` a RuntimeError `invalid percentile`).
///
/// ```
/// use cuprum::scipy::ndimage::{percentile_filter, percentile_filter_with, RankOptions, Window};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::from_vec(vec![5.0, 1.0, 4.0, 2.0, 8.0, 3.0], &dev)?;
/// let r = percentile_filter(&x, 50.0, Window::Size(&[4]))?;
/// assert_eq!(r.to_vec::<f64>()?, vec![5.0, 5.0, 4.0, 4.0, 4.0, 3.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn percentile_filter_with(x: &Array, percentile: f64, window: Window<'_>, opts: &RankOptions) -> Result<Array> {
    rank_filter_impl(x, RankOf::Percentile(percentile), window, opts)
}

/// The window of grey morphology: SciPy's `size`, `footprint` and `structure` (at least one).
/// A `structure` (any real dtype, read as float64) makes the morphology non-flat: an erosion
/// subtracts its values from the window's elements, a dilation adds them. With a structure
/// and no footprint, the footprint is the structure's whole box.
#[derive(Copy, Clone, Debug, Default)]
pub struct GreyWindow<'a> {
    /// A full box of these sizes.
    pub size: Option<&'a [usize]>,
    /// The nonzero elements of this array.
    pub footprint: Option<&'a Array>,
    /// The values of a non-flat structuring element.
    pub structure: Option<&'a Array>,
}

fn grey(x: &Array, w: GreyWindow<'_>, opts: &RankOptions, dilate: bool) -> Result<Array> {
    let op = if dilate { "grey_dilation" } else { "grey_erosion" };
    if w.size.is_none() && w.footprint.is_none() && w.structure.is_none() {
        return Err(Error::Value("size, footprint, or structure must be specified".into()));
    }
    let mut fp = match w.footprint {
        Some(a) => {
            check_device(x, a, op)?;
            Some(Footprint::read(a)?)
        }
        None => None,
    };
    let mut st = match w.structure {
        Some(a) => {
            check_device(x, a, op)?;
            let v = a.astype(DType::Float64)?.to_device(&Device::Cpu)?.to_vec::<f64>()?;
            Some((a.shape().to_vec(), v))
        }
        None => None,
    };
    let mut origin = opts.origin.clone();
    if dilate {
        // SciPy's grey_dilation: the footprint and structure reversed along every axis (the
        // C-order values reversed), the origins negated, and shifted by one where the window is
        // even.
        if let Some(f) = fp.as_mut() {
            f.mask.reverse();
        }
        if let Some((_, v)) = st.as_mut() {
            v.reverse();
        }
        let axes = check_axes(&opts.axes, x.ndim())?;
        let mut o = per_axis(&opts.origin, axes.len(), Default::default())?;
        for (ii, oi) in o.iter_mut().enumerate() {
            *oi = -*oi;
            let sz = if let Some(f) = &fp {
                f.shape.get(ii).copied()
            } else if let Some((s, _)) = &st {
                s.get(ii).copied()
            } else {
                let s = w.size.unwrap_or(&[]);
                if s.len() == 1 {
                    Some(s[0])
                } else {
                    s.get(ii).copied()
                }
            };
            let Some(sz) = sz else {
                return Err(Error::Index(format!("tuple index out of range (axis {ii} of the window)")));
            };
            if sz & 1 == 0 {
                *oi -= 1;
            }
        }
        origin = o;
    }
    min_or_max(x, w.size, fp, st, &origin, opts, dilate)
}

/// SciPy's `ndimage.grey_erosion` with the default keywords ([`RankOptions::default()`]); see
/// [`grey_erosion_with`].
pub fn grey_erosion(x: &Array, window: GreyWindow<'_>) -> Result<Array> {
    grey_erosion_with(x, window, &RankOptions::default())
}

/// SciPy's `ndimage.grey_erosion(input, size=, footprint=, structure=, mode=, cval=, origin=,
/// axes=)`: the minimum of the window, less the structure's values where one is given.
///
/// ```
/// use cuprum::scipy::ndimage::{grey_erosion, grey_erosion_with, GreyWindow, RankOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::arange(12, &dev)?.reshape([3, 4])?.astype(cuprum::DType::Float64)?;
/// let s = cuprum::from_slice(&[1.0, 0.0, 2.0, 1.0], &[2, 2], &dev)?;
/// let e = grey_erosion(&x, GreyWindow { structure: Some(&s), ..Default::default() })?;
/// assert_eq!(e.to_vec::<f64>()?, vec![-2.0, -2.0, -1.0, 0.0, -1.0, -1.0, 0.0, 1.0, 3.0, 3.0, 4.0, 5.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn grey_erosion_with(x: &Array, window: GreyWindow<'_>, opts: &RankOptions) -> Result<Array> {
    grey(x, window, opts, false)
}

/// SciPy's `ndimage.grey_dilation` with the default keywords ([`RankOptions::default()`]); see
/// [`grey_dilation_with`].
pub fn grey_dilation(x: &Array, window: GreyWindow<'_>) -> Result<Array> {
    grey_dilation_with(x, window, &RankOptions::default())
}

/// SciPy's `ndimage.grey_dilation`: the maximum over the reflected window, plus the reflected
/// structure's values where one is given (SciPy reverses the footprint and structure, negates
/// the origins and shifts them by one along axes of even size).
///
/// ```
/// use cuprum::scipy::ndimage::{grey_dilation, grey_dilation_with, GreyWindow, RankOptions};
/// let dev = cuprum::Device::default_device();
/// let x = cuprum::arange(12, &dev)?.reshape([3, 4])?.astype(cuprum::DType::Float64)?;
/// let s = cuprum::from_slice(&[1.0, 0.0, 2.0, 1.0], &[2, 2], &dev)?;
/// let d = grey_dilation(&x, GreyWindow { structure: Some(&s), ..Default::default() })?;
/// assert_eq!(d.to_vec::<f64>()?, vec![6.0, 7.0, 8.0, 8.0, 10.0, 11.0, 12.0, 12.0, 11.0, 12.0, 13.0, 13.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn grey_dilation_with(x: &Array, window: GreyWindow<'_>, opts: &RankOptions) -> Result<Array> {
    grey(x, window, opts, true)
}
