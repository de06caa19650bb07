//! # cuprum — NumPy and SciPy for NVIDIA GPUs, in Rust
//!
//! One [`Array`] type whose device (the CPU or a CUDA GPU) is a property of the array, with
//! NumPy's semantics: dtypes and NumPy 2 promotion (Rust scalars are weak, as Python's),
//! broadcasting, views, `axis`/`keepdims`, `ddof`.
//!
//! ```
//! use cuprum::{Device, DType, s};
//! let dev = Device::default_device();           // the first GPU, else the CPU
//! let ary = cuprum::arange(10, &dev)?.reshape([2, 5])?;
//! assert_eq!((ary.dtype(), ary.shape(), ary.strides()), (DType::Int64, &[2usize, 5][..], &[40isize, 8][..]));
//! let x = cuprum::linspace(0.0, 9.0, 10, DType::Float64, &dev)?;
//! let y = (-0.5 * x.expr().powi(2)).exp().eval()?; // cp.exp(-0.5 * x**2): one `?` (see `Expr`)
//! assert!((y.sum(None)?.item::<f64>()? - 1.7533141440214528).abs() < 1e-12);
//! let mut deltas = cuprum::zeros(&[64, 64], DType::Float64, &dev)?;
//! deltas.slice_mut(s![8..;16, 8..;16])?.fill(1.0)?;  // deltas[8::16, 8::16] = 1
//! assert_eq!(deltas.sum(None)?.item::<f64>()?, 16.0);
//! # Ok::<(), cuprum::Error>(())
//! ```
//!
//! GPU kernels are CUDA C generated per operation, dtypes and layout, compiled by NVRTC for
//! the device's architecture and cached in memory and on disk (`CUPRUM_CACHE_DIR`). The CUDA
//! driver and NVRTC are loaded at run time: the crate builds anywhere, and reports
//! [`Error::NoDevice`] where no GPU is present.

// `cuprum::...` paths (from cuprum's own macros) resolve inside the crate too.
extern crate self as cuprum;

mod array;
mod backend;
pub mod core;
mod creation;
pub mod cuda;
pub mod fft;
pub mod fuse;
mod indexing;
pub mod interop;
pub mod io;
pub mod kernel;
/// The user-kernel attributes (`#[cuprum::vectorize]`, `#[cuprum::kernel]`, `#[cuprum::device]`): see [`mod@kernel`].
pub use kernel::{device, kernel, vectorize, ElementwiseKernel, RawKernel, RawModule, ReductionKernel};
pub mod linalg;
mod manip;
pub mod profiler;
pub mod random;
mod reduce;
mod scan;
pub mod scipy;
mod select;
mod set_ops;
mod sort;
mod statistics;
pub mod testing;
pub mod ufunc;

pub use crate::array::Array;
pub use crate::backend::devices::{cuda_device_count, cuda_is_available};
pub use crate::core::device::Device;
pub use crate::core::dtype::{self, promote_types, result_type, Casting, DType, Element, Scalar};
pub use crate::core::error::{Error, ErrorKind, Result};
pub use crate::core::layout;
pub use crate::core::slice::{SliceElem, ELLIPSIS, NEW_AXIS};
pub use crate::cuda::{pool_stats, release_cached, Event, PoolStats};
pub use crate::io::npy::{self, load_npy, save_npy};
pub use creation::*;
/// The Rust type of float16 elements (from the `half` crate).
pub use half::f16;
pub use indexing::*;
pub use linalg::{dot, einsum, inner, kron, matmul, outer, tensordot, trace, vdot};
pub use manip::*;
/// The `ndarray` version cuprum converts to and from (`to_ndarray`, `asarray`): use it as
/// `cuprum::ndarray` to avoid a second, incompatible version in one's own `Cargo.toml`.
pub use ndarray;
/// The Rust type of complex64 (`Complex<f32>`) and complex128 (`Complex<f64>`) elements (from
/// the `num-complex` crate).
pub use num_complex::Complex;
pub use reduce::*;
pub use scan::{cumprod, cumsum, ScanOp};
pub use scipy::signal::numpy::{convolve, convolve_with, correlate, correlate_with};
pub use scipy::signal::ConvolveMode;
pub use select::{argwhere, compress, extract, flatnonzero, nonzero};
pub use set_ops::*;
pub use sort::*;
pub use statistics::*;
pub use ufunc::*;

// The API's conventions (issue 11's stumbles): reshape's shapes, formulas with one `?`.
pub mod expr;
pub use crate::array::NewShape;
pub use expr::{fuse, Fused};
pub use expr::{Expr, ExprArg};
