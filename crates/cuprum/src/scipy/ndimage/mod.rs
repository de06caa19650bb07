//! `scipy.ndimage` (CuPy: `cupyx.scipy.ndimage`): labelling and measurements, filters and
//! morphology on N-d images, with SciPy's signatures, numbering and result dtypes.
//!
//! Each part is a family of its own (`mod.rs` the API, `cpu.rs` the reference algorithm,
//! `cuda.rs` the GPU launcher and its `.cu` files):
//!
//! | part | SciPy | here |
//! | --- | --- | --- |
//! | connected components | `label` | `label/` |
//! | per-label statistics | `sum_labels`, `center_of_mass`, `find_objects`, ... | `measure/` |
//! | linear filters | `correlate`, `gaussian_filter`, `uniform_filter`, `sobel`, ... | `filters/` |
//! | binary morphology | `binary_erosion`, `binary_dilation`, `binary_fill_holes`, ... | `morphology/` |
//! | rank filters, grey morphology | `median_filter`, `rank_filter`, `minimum_filter`, `grey_erosion`, ... | `rank/` |
//!
//! This module holds what they share: the boundary [`Mode`] of the filters, the structuring
//! elements ([`generate_binary_structure`]) and the reading of small parameter arrays
//! (structures, footprints) to the host.

pub mod label;
pub mod measure;

pub use label::{label, label_into, label_with, LabelOptions};
pub use measure::{
    center_of_mass, count, extrema, find_objects, histogram, labeled_comprehension, maximum, maximum_position, mean,
    median, minimum, minimum_position, standard_deviation, sum, sum_labels, value_indices, value_indices_with,
    variance, Index, ValueIndicesOptions,
};
// ---- linear filters (filters/)
pub mod filters;
pub use filters::{
    convolve, convolve1d, convolve1d_with, convolve_with, correlate, correlate1d, correlate1d_with, correlate_with,
    gaussian_filter, gaussian_filter1d, gaussian_filter1d_with, gaussian_filter_with, gaussian_gradient_magnitude,
    gaussian_gradient_magnitude_with, gaussian_laplace, gaussian_laplace_with, laplace, laplace_with, prewitt,
    prewitt_with, sobel, sobel_with, uniform_filter, uniform_filter1d, uniform_filter1d_with, uniform_filter_with,
    FilterOptions,
};
// ---- end linear filters
// binary morphology (wt-morph)
pub mod morphology;
pub use morphology::{
    binary_closing, binary_closing_with, binary_dilation, binary_dilation_with, binary_erosion, binary_erosion_with,
    binary_fill_holes, binary_fill_holes_with, binary_opening, binary_opening_with, iterate_structure,
    iterate_structure_origin, BinaryOptions, FillHolesOptions,
};
// end binary morphology
// The rank filters and grey morphology (rank/).
pub mod rank;
pub use rank::{
    grey_dilation, grey_dilation_with, grey_erosion, grey_erosion_with, maximum_filter, maximum_filter1d,
    maximum_filter1d_with, maximum_filter_with, median_filter, median_filter_with, minimum_filter, minimum_filter1d,
    minimum_filter1d_with, minimum_filter_with, percentile_filter, percentile_filter_with, rank_filter,
    rank_filter_with, GreyWindow, RankOptions, Window,
};

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// How a filter extends its input past the edges (SciPy's `mode`). For `abcd`:
///
/// | mode | extension | SciPy's names |
/// | --- | --- | --- |
/// | `Reflect` (default) | `dcba\|abcd\|dcba` | `"reflect"`, `"grid-mirror"` |
/// | `Constant` | `kkkk\|abcd\|kkkk` (`cval`) | `"constant"`, `"grid-constant"` |
/// | `Nearest` | `aaaa\|abcd\|dddd` | `"nearest"` |
/// | `Mirror` | `dcb\|abcd\|cba` | `"mirror"` |
/// | `Wrap` | `abcd\|abcd\|abcd` | `"wrap"`, `"grid-wrap"` |
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Half-sample symmetric: the edge value is repeated.
    #[default]
    Reflect,
    /// The constant `cval` outside the image.
    Constant,
    /// The edge value.
    Nearest,
    /// Whole-sample symmetric: the edge value is not repeated.
    Mirror,
    /// Periodic.
    Wrap,
}

impl std::str::FromStr for Mode {
    type Err = Error;
    /// SciPy's names for filters (`grid-*` aliases included); anything else is SciPy's
    /// `RuntimeError: boundary mode not supported`.
    fn from_str(s: &str) -> Result<Mode> {
        match s {
            "reflect" | "grid-mirror" => Ok(Mode::Reflect),
            "constant" | "grid-constant" => Ok(Mode::Constant),
            "nearest" => Ok(Mode::Nearest),
            "mirror" => Ok(Mode::Mirror),
            "wrap" | "grid-wrap" => Ok(Mode::Wrap),
            _ => Err(Error::Runtime(format!("boundary mode not supported: {s:?}"))),
        }
    }
}

impl Mode {
    /// Every mode, in SciPy's order of its documentation.
    pub const ALL: [Mode; 5] = [Mode::Reflect, Mode::Constant, Mode::Nearest, Mode::Mirror, Mode::Wrap];

    /// SciPy's code for the mode (`_ni_support._extend_mode_to_code`), which
    /// `ndimage_mode.cuh`'s `nd_resolve` takes.
    pub(crate) fn code(self) -> i32 {
        match self {
            Mode::Nearest => 0,
            Mode::Wrap => 1,
            Mode::Reflect => 2,
            Mode::Mirror => 3,
            Mode::Constant => 4,
        }
    }

    /// Where index `i` of an axis of length `n` reads from; `None`: the constant `cval`. The
    /// same rule as `nd_resolve` in `ndimage_mode.cuh`.
    #[inline]
    pub(crate) fn resolve(self, i: i64, n: i64) -> Option<i64> {
        if (0..n).contains(&i) {
            return Some(i);
        }
        if self == Mode::Constant {
            return None;
        }
        if n <= 1 {
            return Some(0);
        }
        Some(match self {
            Mode::Nearest => {
                if i < 0 {
                    0
                } else {
                    n - 1
                }
            }
            Mode::Wrap => i.rem_euclid(n),
            Mode::Reflect => {
                let m = i.rem_euclid(2 * n);
                if m < n {
                    m
                } else {
                    2 * n - 1 - m
                }
            }
            Mode::Mirror | Mode::Constant => {
                let p = 2 * n - 2;
                let m = i.rem_euclid(p);
                if m < n {
                    m
                } else {
                    p - m
                }
            }
        })
    }
}

/// A small parameter array (a structuring element, a footprint) read to the host: its shape
/// SciPy's `_check_axes` (the filters' and rank filters' `axes`): `None` is every axis; any
/// axis out of range is a ValueError, then (as SciPy checks them after) repeated axes.
pub(crate) fn check_axes(axes: &Option<Vec<isize>>, ndim: usize) -> Result<Vec<usize>> {
    let Some(axes) = axes else { return Ok((0..ndim).collect()) };
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        if a < -(ndim as isize) || a > ndim as isize - 1 {
            return Err(Error::Value(format!("specified axis: {a} is out of range")));
        }
        out.push(if a < 0 { (a + ndim as isize) as usize } else { a as usize });
    }
    if (1..out.len()).any(|i| out[..i].contains(&out[i])) {
        return Err(Error::Value("axes must be unique".into()));
    }
    Ok(out)
}

/// SciPy's `_normalize_sequence`: one value for every axis (`default` when none is given), or
/// exactly one per axis.
pub(crate) fn per_axis<T: Clone>(v: &[T], n: usize, default: T) -> Result<Vec<T>> {
    match v.len() {
        0 => Ok(vec![default; n]),
        1 => Ok(vec![v[0].clone(); n]),
        l if l == n => Ok(v.to_vec()),
        _ => Err(Error::Runtime("sequence argument must have length equal to input rank".into())),
    }
}
/// and, in C order, which elements are nonzero. Such arrays may be on any device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Footprint {
    pub shape: Vec<usize>,
    pub mask: Vec<bool>,
}

impl Footprint {
    /// The nonzero elements of `a` (any real dtype, any device).
    pub(crate) fn read(a: &Array) -> Result<Footprint> {
        let mask = a.astype(DType::Bool)?.to_device(&Device::Cpu)?.to_vec::<bool>()?;
        Ok(Footprint { shape: a.shape().to_vec(), mask })
    }

    /// `generate_binary_structure(rank, connectivity)` as a footprint: at most 64 dimensions
    /// (NumPy's ValueError), `3^rank` elements the host can hold (else MemoryError).
    pub(crate) fn binary(rank: usize, connectivity: usize) -> Result<Footprint> {
        crate::core::layout::check_ndim(rank)?;
        // At most 64 dimensions here, so the exponent fits; 3^41 and up overflow to MemoryError.
        let n = 3usize.checked_pow(rank as u32).unwrap_or(usize::MAX);
        let conn = connectivity.max(1);
        let mask = crate::core::alloc::vec_from_fn(n, |mut i| {
            let mut d = 0;
            for _ in 0..rank {
                d += (i % 3).abs_diff(1);
                i /= 3;
            }
            d <= conn
        })?;
        Ok(Footprint { shape: vec![3; rank], mask })
    }

    pub(crate) fn ndim(&self) -> usize {
        self.shape.len()
    }
}

/// SciPy's `generate_binary_structure(rank, connectivity)`: a `3 × … × 3` boolean array (on the
/// CPU) whose elements are `True` where their squared distance from the centre, counted in
/// axis steps, is at most `connectivity` (`1`: the faces, `rank`: everything). A connectivity
/// below 1 counts as 1; rank 0 gives a 0-d `True`.
///
/// ```
/// use cuprum::scipy::ndimage::generate_binary_structure;
/// let s = generate_binary_structure(2, 1)?;
/// assert_eq!(s.shape(), &[3, 3]);
/// assert_eq!(s.to_vec::<bool>()?, vec![false, true, false, true, true, true, false, true, false]);
/// assert_eq!(generate_binary_structure(2, 2)?.to_vec::<bool>()?, vec![true; 9]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn generate_binary_structure(rank: usize, connectivity: usize) -> Result<Array> {
    let f = Footprint::binary(rank, connectivity)?;
    crate::from_slice(&f.mask, &f.shape, &Device::Cpu)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The modes as SciPy extends `[0, 1, 2, 3]` (`np.pad`'s symmetric, reflect, edge, wrap).
    #[test]
    fn modes_extend_as_scipy() {
        let ext = |m: Mode, n: i64| (-6..n + 6).map(|i| m.resolve(i, n).map_or(-1, |v| v)).collect::<Vec<_>>();
        assert_eq!(ext(Mode::Reflect, 4), [2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1]);
        assert_eq!(ext(Mode::Mirror, 4), [0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0, 1, 2, 3]);
        assert_eq!(ext(Mode::Wrap, 4), [2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1]);
        assert_eq!(ext(Mode::Nearest, 4), [0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3, 3]);
        assert_eq!(ext(Mode::Constant, 4), [-1, -1, -1, -1, -1, -1, 0, 1, 2, 3, -1, -1, -1, -1, -1, -1]);
        for m in [Mode::Reflect, Mode::Mirror, Mode::Wrap, Mode::Nearest] {
            assert!(ext(m, 1).iter().all(|&v| v == 0), "{m:?}");
        }
        assert_eq!("grid-wrap".parse::<Mode>().unwrap(), Mode::Wrap);
        assert_eq!("grid-mirror".parse::<Mode>().unwrap(), Mode::Reflect);
        assert_eq!("Reflect".parse::<Mode>().unwrap_err().kind(), crate::ErrorKind::RuntimeError);
    }

    #[test]
    fn binary_structures() {
        assert_eq!(Footprint::binary(1, 1).unwrap().mask, [true, true, true]);
        let s3 = Footprint::binary(3, 1).unwrap();
        assert_eq!(s3.mask.iter().filter(|&&b| b).count(), 7);
        assert_eq!(Footprint::binary(3, 2).unwrap().mask.iter().filter(|&&b| b).count(), 19);
        assert_eq!(Footprint::binary(3, 3).unwrap().mask.iter().filter(|&&b| b).count(), 27);
        assert_eq!(Footprint::binary(2, 0).unwrap(), Footprint::binary(2, 1).unwrap());
        assert_eq!(Footprint::binary(0, 1).unwrap().mask, [true]);
        // More than 64 dimensions is NumPy's ValueError; 3^40 elements are more than any host
        // holds (MemoryError); 3^70 overflowed the size and aborted.
        assert_eq!(Footprint::binary(70, 1).unwrap_err().kind(), crate::ErrorKind::ValueError);
        assert_eq!(Footprint::binary(64, 1).unwrap_err().kind(), crate::ErrorKind::MemoryError);
        assert_eq!(Footprint::binary(40, 1).unwrap_err().kind(), crate::ErrorKind::MemoryError);
    }
}
