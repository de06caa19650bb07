//! The crate's error type. Every fallible operation returns [`Result`]; nothing in the
//! public API panics on bad input. [`Error::kind`] tells which Python exception NumPy (or
//! CuPy) raises in the same situation.

use crate::core::device::Device;
use crate::core::dtype::DType;
use std::fmt;

/// Errors returned by cuprum operations.
///
/// Each variant has the kind ([`ErrorKind`], from [`Error::kind`]) of the Python exception
/// NumPy raises for the same mistake:
///
/// | variant | kind |
/// |---|---|
/// | [`AxisOutOfRange`](Error::AxisOutOfRange) | [`AxisError`](ErrorKind::AxisError) |
/// | [`IndexOutOfRange`](Error::IndexOutOfRange) | [`IndexError`](ErrorKind::IndexError) |
/// | [`Index`](Error::Index) | [`IndexError`](ErrorKind::IndexError) |
/// | [`UnsupportedDType`](Error::UnsupportedDType), [`DTypeMismatch`](Error::DTypeMismatch), [`Type`](Error::Type) | [`TypeError`](ErrorKind::TypeError) |
/// | [`ScalarOverflow`](Error::ScalarOverflow) | [`OverflowError`](ErrorKind::OverflowError) |
/// | [`OutOfMemory`](Error::OutOfMemory) | [`MemoryError`](ErrorKind::MemoryError) |
/// | [`NoDevice`](Error::NoDevice), [`Cuda`](Error::Cuda), [`Compile`](Error::Compile), [`Runtime`](Error::Runtime) | [`RuntimeError`](ErrorKind::RuntimeError) |
/// | [`NotImplemented`](Error::NotImplemented) | [`NotImplementedError`](ErrorKind::NotImplementedError) |
/// | [`Io`](Error::Io) | [`OSError`](ErrorKind::OSError) |
/// | [`ZeroDivision`](Error::ZeroDivision) | [`ZeroDivisionError`](ErrorKind::ZeroDivisionError) |
/// | [`DuplicateAxis`](Error::DuplicateAxis), [`ShapeMismatch`](Error::ShapeMismatch), [`BadReshape`](Error::BadReshape), [`Value`](Error::Value), [`InvalidArgument`](Error::InvalidArgument), [`DeviceMismatch`](Error::DeviceMismatch) | [`ValueError`](ErrorKind::ValueError) |
///
/// ```
/// use cuprum::{Device, ErrorKind};
/// let a = cuprum::zeros(&[2, 3], cuprum::DType::Float64, &Device::Cpu)?;
/// let e = a.sum(2).unwrap_err();                     // np.sum(a, axis=2)
/// assert_eq!(e.kind(), ErrorKind::AxisError);
/// assert_eq!(e.kind().name(), "AxisError");
/// let e = a.reshape([4, 2]).unwrap_err();          // a.reshape(4, 2)
/// assert_eq!(e.kind(), ErrorKind::ValueError);
/// let e = cuprum::scalar(300i64, &Device::Cpu)?.item::<u8>().unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::OverflowError);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// Arrays on different devices were mixed in one operation.
    DeviceMismatch { op: String, a: Device, b: Device },
    /// Shapes that cannot be broadcast together or do not match.
    ShapeMismatch { op: String, a: Vec<usize>, b: Vec<usize> },
    /// A reshape to a shape of a different size, or with more than one `-1`.
    BadReshape { from: Vec<usize>, to: Vec<isize> },
    /// An axis out of range for an array of `ndim` dimensions.
    AxisOutOfRange { axis: isize, ndim: usize },
    /// The same axis given twice.
    DuplicateAxis { axis: usize },
    /// An index out of range for an axis of length `len`.
    IndexOutOfRange { index: isize, axis: usize, len: usize },
    /// Any other indexing error NumPy reports as an `IndexError` (too many indices, a boolean
    /// mask of the wrong shape, ...).
    Index(String),
    /// A dtype that the operation does not support.
    UnsupportedDType { op: String, dtype: DType },
    /// A typed access with a Rust type that does not match the array's dtype.
    DTypeMismatch { expected: DType, got: DType },
    /// A scalar that does not fit the array's dtype (NumPy 2's OverflowError).
    ScalarOverflow { value: String, dtype: DType },
    /// The device has no memory left for an allocation of `bytes` bytes.
    OutOfMemory { device: Device, bytes: usize },
    /// No CUDA driver or no such device.
    NoDevice(String),
    /// A CUDA driver call failed.
    Cuda(String),
    /// NVRTC failed to compile generated code.
    Compile { log: String },
    /// Any other invalid argument.
    InvalidArgument(String),
    /// A value error in the NumPy sense (e.g. `item()` on an array with more than one element).
    Value(String),
    /// A type error in the NumPy sense: an argument of a dtype (or kind) the operation does not
    /// accept, e.g. float arrays used as indices, or `len()` of a 0-d array.
    Type(String),
    /// A feature NumPy has that cuprum does not implement (Python's `NotImplementedError`).
    NotImplemented(String),
    /// An I/O error (kernel cache; `.npy`, `.npz`, FITS and PNG files: a missing or unreadable
    /// file, and a malformed or truncated one, as astropy raises `OSError` for a corrupt FITS
    /// file).
    Io(String),
    /// Any other error SciPy reports as a `RuntimeError` (an unknown boundary mode of an
    /// `ndimage` filter, a structure of the wrong rank for `label`).
    Runtime(String),
    /// `numpy.linalg.LinAlgError`: a singular matrix, one that is not positive definite, an
    /// iteration that did not converge, or a shape `numpy.linalg` refuses (NumPy's message).
    LinAlg(String),
    /// Any other error NumPy reports as an `OverflowError` (a `uniform` range that is not
    /// finite).
    Overflow(String),
    /// Python's `ZeroDivisionError` where NumPy's Python code divides by a user's zero
    /// (`fftfreq(n, d=0)`).
    ZeroDivision(String),
}

/// `std::result::Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::DeviceMismatch { op, a, b } => write!(
                f,
                "{op}: arrays are on different devices ({a} and {b}); move one with \
                 `.to_device(&other.device())` (GPU to host: `.to_device(&Device::Cpu)`, \
                 host to GPU: `cuprum::asarray(.., &gpu)`) before combining them"
            ),
            Error::ShapeMismatch { op, a, b } => {
                write!(f, "{op}: shapes {} and {} are not compatible", shape_str(a), shape_str(b))
            }
            Error::BadReshape { from, to } => {
                // NumPy's words, the shape as Python prints a tuple (the unknown one as -1).
                let size: usize = from.iter().product();
                let dims: Vec<String> = to.iter().map(|d| d.to_string()).collect();
                let to = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(",")) };
                write!(f, "cannot reshape array of size {size} into shape {to}")
            }
            Error::AxisOutOfRange { axis, ndim } => {
                write!(f, "axis {axis} is out of bounds for array of dimension {ndim}")
            }
            Error::DuplicateAxis { axis } => write!(f, "axis {axis} given more than once"),
            Error::IndexOutOfRange { index, axis, len } => {
                write!(f, "index {index} is out of bounds for axis {axis} with size {len}")
            }
            Error::UnsupportedDType { op, dtype } => {
                write!(f, "{op}: not supported for dtype {}", dtype.name())
            }
            Error::DTypeMismatch { expected, got } => {
                write!(f, "dtype mismatch: the array is {} but {} was requested", got.name(), expected.name())
            }
            Error::ScalarOverflow { value, dtype } => {
                write!(f, "scalar {value} is out of bounds for {}", dtype.name())
            }
            Error::OutOfMemory { device, bytes } => {
                write!(f, "out of memory on {device}: could not allocate {bytes} bytes")
            }
            Error::NoDevice(s) => write!(f, "no such device: {s}"),
            Error::Cuda(s) => write!(f, "CUDA error: {s}"),
            Error::Compile { log } => write!(f, "NVRTC compilation failed:\n{log}"),
            Error::InvalidArgument(s) => write!(f, "invalid argument: {s}"),
            Error::Index(s) => write!(f, "{s}"),
            Error::Value(s) => write!(f, "{s}"),
            Error::Type(s) => write!(f, "{s}"),
            Error::NotImplemented(s) => write!(f, "not implemented: {s}"),
            Error::Io(s) => write!(f, "I/O error: {s}"),
            Error::Runtime(s) => write!(f, "{s}"),
            Error::LinAlg(s) => write!(f, "{s}"),
            Error::Overflow(s) => write!(f, "{s}"),
            Error::ZeroDivision(s) => write!(f, "{s}"),
        }
    }
}

impl std::error::Error for Error {}

/// The Python exception NumPy (or CuPy) raises where cuprum returns an [`Error`]: see
/// [`Error::kind`]. `AxisError` is its own kind here although NumPy's `AxisError` is also a
/// `ValueError` and an `IndexError`; NumPy's `UFuncTypeError` is a [`TypeError`](Self::TypeError).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    TypeError,
    ValueError,
    IndexError,
    AxisError,
    OverflowError,
    MemoryError,
    RuntimeError,
    NotImplementedError,
    OSError,
    /// `numpy.linalg.LinAlgError` (a `ValueError` subclass in NumPy).
    LinAlgError,
    ZeroDivisionError,
}

impl ErrorKind {
    /// The Python exception's name (`"TypeError"`, `"AxisError"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::TypeError => "TypeError",
            ErrorKind::ValueError => "ValueError",
            ErrorKind::IndexError => "IndexError",
            ErrorKind::AxisError => "AxisError",
            ErrorKind::OverflowError => "OverflowError",
            ErrorKind::MemoryError => "MemoryError",
            ErrorKind::RuntimeError => "RuntimeError",
            ErrorKind::NotImplementedError => "NotImplementedError",
            ErrorKind::OSError => "OSError",
            ErrorKind::LinAlgError => "LinAlgError",
            ErrorKind::ZeroDivisionError => "ZeroDivisionError",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Error {
    /// The kind of Python exception NumPy raises for this error (the table on [`Error`]).
    ///
    /// ```
    /// use cuprum::{Device, DType, ErrorKind};
    /// let a = cuprum::arange(6, &Device::Cpu)?;
    /// let f = cuprum::zeros(&[2], DType::Float64, &Device::Cpu)?;
    /// // a[np.zeros(2)]: IndexError (arrays used as indices must be of integer type)
    /// assert_eq!(cuprum::gather(&a, &[&f]).unwrap_err().kind(), ErrorKind::IndexError);
    /// // np.take(a, np.zeros(2)): TypeError (cannot cast float64 indices 'safe'ly)
    /// assert_eq!(cuprum::take(&a, &f, None).unwrap_err().kind(), ErrorKind::TypeError);
    /// // np.zeros(2) & 1: TypeError (no bitwise loop for float64)
    /// assert_eq!((&f & 1).unwrap_err().kind(), ErrorKind::TypeError);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn kind(&self) -> ErrorKind {
        use ErrorKind::*;
        match self {
            Error::AxisOutOfRange { .. } => AxisError,
            Error::IndexOutOfRange { .. } | Error::Index(_) => IndexError,
            Error::UnsupportedDType { .. } | Error::DTypeMismatch { .. } | Error::Type(_) => TypeError,
            Error::ScalarOverflow { .. } => OverflowError,
            Error::OutOfMemory { .. } => MemoryError,
            Error::NoDevice(_) | Error::Cuda(_) | Error::Compile { .. } | Error::Runtime(_) => RuntimeError,
            Error::NotImplemented(_) => NotImplementedError,
            Error::Io(_) => OSError,
            Error::LinAlg(_) => LinAlgError,
            Error::Overflow(_) => OverflowError,
            Error::ZeroDivision(_) => ZeroDivisionError,
            Error::DuplicateAxis { .. }
            | Error::ShapeMismatch { .. }
            | Error::BadReshape { .. }
            | Error::Value(_)
            | Error::InvalidArgument(_)
            | Error::DeviceMismatch { .. } => ValueError,
        }
    }
}

pub(crate) fn shape_str(s: &[usize]) -> String {
    match s.len() {
        1 => format!("({},)", s[0]),
        _ => format!("({})", s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e.to_string())
    }
}
