//! The crate's error type. Every fallible operation returns [`Result`]; nothing in the
//! public API panics on bad input.

use crate::core::device::Device;
use crate::core::dtype::DType;
use std::fmt;

/// Errors returned by cuprum operations.
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
    /// An I/O error (kernel cache, `.npy` files).
    Io(String),
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
                let size: usize = from.iter().product();
                write!(f, "cannot reshape array of size {size} (shape {}) into shape {:?}", shape_str(from), to)
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
            Error::Value(s) => write!(f, "{s}"),
            Error::Io(s) => write!(f, "I/O error: {s}"),
        }
    }
}

impl std::error::Error for Error {}

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
