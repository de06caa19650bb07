//! `cuprum._cuprum`: the Python extension of cuprum. The Python package around it
//! (`python/cuprum`, `python/cuprumx`) gives NumPy's and CuPy's names and signatures; this crate
//! holds the array type and the calls into the `cuprum` crate.
//!
//! - `array.rs`: `cuprum.ndarray` (attributes, operators, basic indexing, reductions, protocols)
//! - `convert.rs`: dtypes, scalars, devices, NumPy arrays, errors
//! - `device.rs`: `cuprum.Device` and the thread's current device
//! - `funcs.rs`: ufuncs, creation, shapes, sorting, statistics, indexing, products, signal
//! - `science.rs`: linalg, fft, random, ndimage
//! - `cuda.rs`: streams and events
//! - `dlpack.rs`: DLPack and the CUDA Array Interface (with the stream handshake)
//! - `expr.rs`: `fuse` (tracing into `cuprum::Expr`) and CuPy's source kernels

mod array;
mod convert;
mod cuda;
mod device;
mod dlpack;
mod expr;
mod funcs;
mod science;

use pyo3::prelude::*;

#[pymodule]
fn _cuprum(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<array::PyNdarray>()?;
    m.add_class::<device::PyDevice>()?;
    m.add_class::<cuda::PyStream>()?;
    m.add_class::<cuda::PyEvent>()?;
    m.add_class::<science::PyGenerator>()?;
    m.add_class::<expr::PyExpr>()?;
    m.add_class::<expr::PyElementwiseKernel>()?;
    m.add_class::<expr::PyReductionKernel>()?;
    m.add_class::<expr::PyRawKernel>()?;
    m.add_class::<expr::PyRawModule>()?;
    macro_rules! fns {
        ($($f:path),* $(,)?) => {$( m.add_function(wrap_pyfunction!($f, m)?)?; )*};
    }
    fns!(
        array::_asarray,
        device::default_device,
        device::get_device,
        device::cuda_is_available,
        device::cuda_device_count,
        dlpack::from_dlpack,
        expr::fuse_call,
        cuda::elapsed_ms,
        cuda::current_stream,
        cuda::pool_stats,
        cuda::release_cached,
        funcs::unary,
        funcs::binary,
        funcs::reduce,
        funcs::where3,
        funcs::clip,
        funcs::round,
        funcs::isclose,
        funcs::allclose,
        funcs::array_equal,
        funcs::real,
        funcs::imag,
        funcs::angle,
        funcs::assign,
        funcs::can_cast,
        funcs::empty,
        funcs::zeros,
        funcs::full,
        funcs::arange_int,
        funcs::arange_float,
        funcs::linspace,
        funcs::eye,
        funcs::meshgrid,
        funcs::concatenate,
        funcs::stack,
        funcs::split,
        funcs::flip,
        funcs::roll,
        funcs::tile,
        funcs::repeat,
        funcs::pad,
        funcs::diff,
        funcs::broadcast_to,
        funcs::expand_dims,
        funcs::moveaxis,
        funcs::diagonal,
        funcs::as_contiguous,
        funcs::empty_pinned,
        funcs::shares_memory,
        funcs::host_interface,
        funcs::copy_from_host,
        funcs::set_gpu_error_check,
        funcs::sort,
        funcs::argsort,
        funcs::partition,
        funcs::searchsorted,
        funcs::lexsort,
        funcs::unique,
        funcs::isin,
        funcs::cumulative,
        funcs::quantiles,
        funcs::median,
        funcs::histogram,
        funcs::bincount,
        funcs::digitize,
        funcs::take,
        funcs::take_along_axis,
        funcs::put,
        funcs::gather,
        funcs::scatter,
        funcs::nonzero,
        funcs::flatnonzero,
        funcs::argwhere,
        funcs::compress,
        funcs::extract,
        funcs::mask,
        funcs::product,
        funcs::tensordot,
        funcs::einsum,
        funcs::trace,
        funcs::np_convolve,
        funcs::signal_nd,
        funcs::signal_2d,
        funcs::next_fast_len,
        science::linalg1,
        science::stats_norm,
        science::solve,
        science::slogdet,
        science::qr,
        science::eig,
        science::svd,
        science::lstsq,
        science::norm,
        science::matrix_power,
        science::multi_dot,
        science::fft1,
        science::fftn,
        science::fftfreq,
        science::fftshift,
        science::legacy_seed,
        science::legacy,
        science::legacy2,
        science::legacy_randint,
        science::legacy_permutation,
        science::legacy_shuffle,
        science::label,
        science::measure,
        science::nd_histogram,
        science::find_objects,
        science::generate_binary_structure,
        science::nd_filter,
        science::nd_rank,
        science::nd_binary,
        science::iterate_structure,
    );
    Ok(())
}
