//! `scipy.ndimage.label`: connected components of the nonzero elements of an N-d array, with
//! SciPy's numbering (components numbered `1..=n` in the C order of their first element).
//!
//! Both devices run the same union-find over the structure's *backward* neighbours (those
//! before an element in C order; SciPy's structures are symmetric, so these connect every
//! pair once), always linking the larger root under the smaller. The root of a component is
//! then its first element in C order, and a component's number is the rank of its root among
//! the roots: a flag per root and a prefix sum, no sort.
//!
//! - CPU (`cpu.rs`): strips of the first axis labelled in parallel, their borders merged, then
//!   the roots numbered strip by strip.
//! - GPU (`cuda.rs`, `label.cu`): one thread per element links it to its backward neighbours
//!   with `atomicMin` (Playne–Hawick's union-find), the paths are flattened with the root flags
//!   written beside them, the flags are scanned (the scan family's decoupled look-back), and a
//!   last pass writes every element's number. The host reads only the count.

mod cpu;
pub(crate) mod cuda;

use super::Footprint;
use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// The backward neighbours of a structure: per-axis steps in `{-1, 0, 1}` of the elements
/// before the centre in C order whose structure element is set.
pub(crate) type Neighbours = Vec<Vec<i8>>;

/// The structure (default: `generate_binary_structure(ndim, 1)`) checked as SciPy checks it,
/// as its backward neighbours.
fn neighbours(structure: Option<&Array>, ndim: usize) -> Result<Neighbours> {
    let f = match structure {
        None => Footprint::binary(ndim, 1)?,
        Some(s) => Footprint::read(s)?,
    };
    if f.ndim() != ndim {
        return Err(Error::Runtime("structure and input must have equal rank".into()));
    }
    if f.shape.iter().any(|&d| d != 3) {
        return Err(Error::Value("structure dimensions must be equal to 3".into()));
    }
    let n = f.mask.len();
    if (0..n).any(|i| f.mask[i] != f.mask[n - 1 - i]) {
        // SciPy: AssertionError("Structuring element is not symmetric").
        return Err(Error::Value("structuring element is not symmetric".into()));
    }
    let mut nb = Vec::new();
    for i in 0..n / 2 {
        if f.mask[i] {
            let mut d = vec![0i8; ndim];
            let mut r = i;
            for k in (0..ndim).rev() {
                d[k] = (r % 3) as i8 - 1;
                r /= 3;
            }
            nb.push(d);
        }
    }
    Ok(nb)
}

/// The dtype SciPy gives the labels: int32, or int64 from 2^31 - 2 elements on.
fn default_dtype(size: usize) -> DType {
    if size >= (1usize << 31) - 2 {
        DType::Int64
    } else {
        DType::Int32
    }
}

/// Labels `input` into `out` (its shape, C-contiguous, on its device); returns the count.
fn run(input: &Array, nb: &Neighbours, out: &Array) -> Result<usize> {
    if input.dtype().is_complex() {
        return Err(Error::Type("label: Complex type not supported (SciPy raises TypeError)".into()));
    }
    if input.dtype() == DType::Float16 {
        // SciPy's labelling loops have no float16 type.
        return Err(Error::Type("label: no implementation for float16 input (SciPy raises TypeError)".into()));
    }
    if input.ndim() == 0 || input.size() == 0 {
        let n = if input.ndim() == 0 && input.astype(DType::Bool)?.item::<bool>()? { 1 } else { 0 };
        crate::ufunc::fill(out, crate::Scalar::Int(n as i64))?;
        return Ok(n);
    }
    let fg = input.as_contiguous()?;
    match out.device() {
        Device::Cpu => cpu::label(&fg, nb, out),
        Device::Cuda(_) => cuda::label(&fg, nb, out),
    }
}

/// Whether the labelling may write `out` itself: C-contiguous, of a real dtype other than
/// float16 that holds every count `size` elements can give (so no "insufficient bit-depth" can
/// follow the writing). The CPU writes int32/int64 itself and other dtypes through a temporary;
/// the GPU's last pass writes any such dtype (SciPy's `label(x, output=float64_array)` without a
/// second pass over the image).
fn writes_directly(out: &Array, size: usize) -> bool {
    out.is_c_contiguous() && !out.dtype().is_complex() && out.dtype() != DType::Float16 && fits(size, out.dtype())
}

/// Whether the labels `1..=n` fit `dt` exactly (SciPy: "insufficient bit-depth").
fn fits(n: usize, dt: DType) -> bool {
    match dt {
        DType::Bool => n <= 1,
        DType::Float16 => n <= 2048,
        DType::Float32 => n <= 1 << 24,
        DType::Float64 => n <= 1 << 53,
        d => d.int_range().is_some_and(|(_, hi)| n as i128 <= hi),
    }
}

/// `label`'s keywords; `Default` is SciPy's (`structure=None`: the faces).
#[derive(Clone, Copy, Debug, Default)]
pub struct LabelOptions<'a> {
    /// 3 in every dimension and symmetric; elements are neighbours where it is nonzero.
    pub structure: Option<&'a Array>,
}

/// SciPy's `ndimage.label(input)`: the connected components of the nonzero
/// elements of `input` (any real dtype but float16, as SciPy; NaN counts as nonzero), numbered `1..=n` in the C order
/// of each component's first element, 0 elsewhere; returns the labels (int32, int64 from
/// 2^31 - 2 elements on) and `n`.
///
/// Neighbours share a face (`generate_binary_structure(input.ndim(), 1)`); see [`label_with`]
/// for another structure.
///
/// ```
/// use cuprum::scipy::ndimage::{generate_binary_structure, label, label_with, LabelOptions};
/// let dev = cuprum::Device::default_device();
/// let img = cuprum::from_slice(&[0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1], &[3, 4], &dev)?;
/// let (lab, n) = label(&img)?;
/// assert_eq!(n, 2);
/// assert_eq!(lab.to_vec::<i32>()?, vec![0, 1, 1, 0, 0, 1, 0, 2, 0, 0, 0, 2]);
/// // With the diagonals (8-connectivity) the two components touch.
/// let s8 = generate_binary_structure(2, 2)?;
/// let (_, n8) = label_with(&img, &LabelOptions { structure: Some(&s8) })?;
/// assert_eq!(n8, 1);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn label(input: &Array) -> Result<(Array, usize)> {
    label_with(input, &LabelOptions::default())
}

/// SciPy's `ndimage.label(input, structure=...)`: `structure` (default: the faces) is `3` in
/// every dimension and symmetric, on any device; elements are neighbours where it is nonzero.
/// Errors: a structure of another rank (RuntimeError), not 3 wide (ValueError) or not
/// symmetric (ValueError; SciPy raises an AssertionError).
pub fn label_with(input: &Array, opts: &LabelOptions<'_>) -> Result<(Array, usize)> {
    let nb = neighbours(opts.structure, input.ndim())?;
    let out = Array::alloc(input.shape(), default_dtype(input.size()), input.device(), false)?;
    let n = run(input, &nb, &out)?;
    Ok((out, n))
}

/// [`label`] into `output` (SciPy's `output=` array): any dtype that holds `1..=n` exactly
/// (else SciPy's RuntimeError "insufficient bit-depth"), the input's shape (else ValueError)
/// and device; returns `n`.
///
/// ```
/// use cuprum::scipy::ndimage::label_into;
/// let dev = cuprum::Device::default_device();
/// let img = cuprum::from_slice(&[1.0, 0.0, 2.0, 3.0], &[4], &dev)?;
/// let out = cuprum::zeros(&[4], cuprum::DType::UInt8, &dev)?;
/// assert_eq!(label_into(&img, None, &out)?, 2);
/// assert_eq!(out.to_vec::<u8>()?, vec![1, 0, 2, 2]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn label_into(input: &Array, structure: Option<&Array>, output: &Array) -> Result<usize> {
    let nb = neighbours(structure, input.ndim())?;
    if output.shape() != input.shape() {
        return Err(Error::Value("output shape not correct".into()));
    }
    crate::array::same_device("label", input, output)?;
    let direct = writes_directly(output, input.size());
    let tmp = if direct {
        output.view()
    } else {
        Array::alloc(input.shape(), default_dtype(input.size()), input.device(), false)?
    };
    let n = run(input, &nb, &tmp)?;
    if !fits(n, output.dtype()) {
        return Err(Error::Runtime("insufficient bit-depth in requested output type".into()));
    }
    if !direct {
        crate::ufunc::assign(output, &tmp)?;
    }
    Ok(n)
}
