//! The functions behind the Python namespaces. They take their arguments already resolved by
//! the Python layer (`python/cuprum/*.py`: NumPy's defaults, keyword names and argument
//! checks live there) and call cuprum; work that can block the host runs with the GIL released.

use crate::array::{operand_on, wrap, PyNdarray};
use crate::convert::{asarray, to_device, to_dtype, OrRaise};
use cuprum::ufunc::{BinaryOp, UnaryOp};
use cuprum::{Array, Axes, Device};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::array::PyNdarray as A;

/// `axis=`: `None` (all), an int, or a sequence of ints.
pub fn axes(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Axes> {
    let Some(o) = obj else { return Ok(Axes::All) };
    if o.is_none() {
        return Ok(Axes::All);
    }
    if let Ok(i) = o.extract::<isize>() {
        return Ok(Axes::Some(vec![c_int_axis(i)?]));
    }
    if let Ok(v) = o.extract::<Vec<isize>>() {
        return Ok(Axes::Some(v.into_iter().map(c_int_axis).collect::<PyResult<_>>()?));
    }
    if let Ok(i) = o.call_method0("__index__") {
        return Ok(Axes::Some(vec![i.extract()?]));
    }
    Err(PyTypeError::new_err(format!("'{}' object cannot be interpreted as an integer", o.get_type().name()?)))
}

/// An axis as NumPy's reductions take it, a C `int`: beyond its range their ValueError, not an AxisError.
fn c_int_axis(i: isize) -> PyResult<isize> {
    if i32::try_from(i).is_err() {
        return Err(PyValueError::new_err("integer won't fit into a C int"));
    }
    Ok(i)
}

/// One dimension of a shape, as NumPy reads it: an integer (`__index__`), not negative, within
/// `intp` (NumPy's "Maximum allowed dimension exceeded").
fn dim(x: &Bound<'_, PyAny>) -> PyResult<usize> {
    let i = x.call_method0("__index__").map_err(|_| match x.get_type().name() {
        Ok(n) => PyTypeError::new_err(format!("'{n}' object cannot be interpreted as an integer")),
        Err(e) => e,
    })?;
    match i.extract::<i64>() {
        Ok(d) => nonnegative(d),
        Err(_) if i.lt(0)? => nonnegative(-1),
        Err(_) => Err(PyValueError::new_err("Maximum allowed dimension exceeded")),
    }
}

/// A dimension that fits int64: NumPy's ValueError when negative.
fn nonnegative(d: i64) -> PyResult<usize> {
    usize::try_from(d).map_err(|_| PyValueError::new_err("negative dimensions are not allowed"))
}

/// A shape given as `*shape` (ints, or one tuple/list).
pub fn shape_arg_i(t: &Bound<'_, PyTuple>) -> PyResult<Vec<isize>> {
    if t.len() == 1 {
        let x = t.get_item(0)?;
        if let Ok(v) = x.extract::<Vec<isize>>() {
            return Ok(v);
        }
        return Ok(vec![x.call_method0("__index__")?.extract()?]);
    }
    t.iter().map(|x| x.call_method0("__index__")?.extract()).collect()
}

/// A shape argument (int or sequence of non-negative ints).
pub fn shape_of(o: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    if let Ok(i) = o.extract::<i64>() {
        return Ok(vec![nonnegative(i)?]);
    }
    if !o.hasattr("__index__")? && !o.is_instance_of::<pyo3::types::PyString>() {
        if let Ok(items) = o.try_iter() {
            return items.map(|x| dim(&x?)).collect();
        }
    }
    Ok(vec![dim(o)?])
}

pub fn casting(s: &str) -> PyResult<cuprum::Casting> {
    Ok(match s {
        "no" | "equiv" => cuprum::Casting::No,
        "safe" => cuprum::Casting::Safe,
        "same_kind" => cuprum::Casting::SameKind,
        "unsafe" => cuprum::Casting::Unsafe,
        _ => {
            return Err(PyValueError::new_err(format!(
                "casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe' (got {s:?})"
            )))
        }
    })
}

fn op_name<T: Copy>(all: &[T], name: &str, f: impl Fn(T) -> &'static str) -> PyResult<T> {
    all.iter().copied().find(|&o| f(o) == name).ok_or_else(|| PyValueError::new_err(format!("no ufunc named {name}")))
}

fn arrs(py: Python<'_>, seq: &Bound<'_, PyAny>, dev: Option<Device>) -> PyResult<Vec<Array>> {
    let mut v = Vec::new();
    for x in seq.try_iter()? {
        v.push(asarray(py, &x?, None, dev)?);
    }
    Ok(v)
}

fn out_array(out: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Array>> {
    match out {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => Ok(Some(
            o.cast::<PyNdarray>().map_err(|_| PyTypeError::new_err("out must be a cuprum.ndarray"))?.get().0.clone(),
        )),
    }
}

// ---------------------------------------------------------------------------------- ufuncs

/// A unary ufunc by NumPy's name, with `out=`.
#[pyfunction]
#[pyo3(signature = (name, x, out=None))]
pub fn unary(py: Python<'_>, name: &str, x: &Bound<'_, PyAny>, out: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
    let op = op_name(&UnaryOp::ALL, name, UnaryOp::name)?;
    let x = asarray(py, x, None, None)?;
    if let Some(mut o) = out_array(out)? {
        py.detach(|| cuprum::ufunc::unary_out(op, &x, &mut o)).py()?;
        return Ok(out.unwrap().clone().unbind());
    }
    Ok(wrap(py, py.detach(|| cuprum::ufunc::unary(op, &x)).py()?)?.into_any().unbind())
}

/// A binary ufunc by NumPy's name (`divide` is `true_divide`), with `out=`; Python scalars weak.
#[pyfunction]
#[pyo3(signature = (name, a, b, out=None))]
pub fn binary(
    py: Python<'_>,
    name: &str,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let op = op_name(&BinaryOp::ALL, name, BinaryOp::name)?;
    let out_arr = out_array(out)?;
    let dev = [a, b]
        .iter()
        .find_map(|x| x.cast::<PyNdarray>().ok().map(|x| x.get().0.device()))
        .or(out_arr.as_ref().map(|o| o.device()))
        .unwrap_or_else(crate::device::current_device);
    let (oa, ob) = (operand_on(py, a, dev)?, operand_on(py, b, dev)?);
    // Two Python scalars: NumPy computes on their default dtypes.
    let oa = match (&oa, &ob) {
        (crate::array::Other::Scalar(s), crate::array::Other::Scalar(_)) => {
            crate::array::Other::Array(cuprum::full(&[], *s, s.default_dtype(), &dev).py()?)
        }
        _ => oa,
    };
    if let Some(mut o) = out_arr {
        py.detach(|| cuprum::ufunc::binary_out(op, oa.operand(), ob.operand(), &mut o)).py()?;
        return Ok(out.unwrap().clone().unbind());
    }
    let r = py.detach(|| cuprum::ufunc::binary(op, oa.operand(), ob.operand()));
    Ok(wrap(py, r.py()?)?.into_any().unbind())
}

/// A reduction by name (`sum`, `mean`, `var`, ..., `count_nonzero`).
#[pyfunction]
#[pyo3(signature = (name, x, axis=None, dtype=None, out=None, keepdims=false, ddof=0.0))]
#[allow(clippy::too_many_arguments)]
pub fn reduce(
    py: Python<'_>,
    name: &str,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
    ddof: f64,
) -> PyResult<Py<PyAny>> {
    let op = op_name(&cuprum::ufunc::ReduceOp::ALL, name, cuprum::ufunc::ReduceOp::name)?;
    let x = asarray(py, x, None, None)?;
    crate::array::reduce(py, op, &x, axis, dtype, out, keepdims, ddof)
}

#[pyfunction]
pub fn where3(py: Python<'_>, cond: &Bound<'_, PyAny>, x: &Bound<'_, PyAny>, y: &Bound<'_, PyAny>) -> PyResult<A> {
    let c = asarray(py, cond, None, None)?;
    let dev = c.device();
    let (ox, oy) = (operand_on(py, x, dev)?, operand_on(py, y, dev)?);
    Ok(A(py.detach(|| cuprum::where_(&c, ox.operand(), oy.operand())).py()?))
}

#[pyfunction]
pub fn clip(py: Python<'_>, x: &A, lo: &Bound<'_, PyAny>, hi: &Bound<'_, PyAny>) -> PyResult<A> {
    let dev = x.0.device();
    let conv = |v: &Bound<'_, PyAny>| -> PyResult<Option<crate::array::Other>> {
        if v.is_none() {
            return Ok(None);
        }
        operand_on(py, v, dev).map(Some)
    };
    let (l, h) = (conv(lo)?, conv(hi)?);
    let r = match (&l, &h) {
        (Some(l), Some(h)) => x.0.clip(l.operand(), h.operand()),
        (Some(l), None) => cuprum::ufunc::binary(BinaryOp::Maximum, &x.0, l.operand()),
        (None, Some(h)) => cuprum::ufunc::binary(BinaryOp::Minimum, &x.0, h.operand()),
        (None, None) => return Err(PyValueError::new_err("One of max or min must be given")),
    };
    Ok(A(r.py()?))
}

#[pyfunction]
pub fn round(x: &A, decimals: i32) -> PyResult<A> {
    Ok(A(x.0.round(decimals).py()?))
}

#[pyfunction]
pub fn isclose(a: &A, b: &A, rtol: f64, atol: f64, equal_nan: bool) -> PyResult<A> {
    Ok(A(cuprum::isclose_with(&a.0, &b.0, &cuprum::CloseOptions { rtol, atol, equal_nan }).py()?))
}

#[pyfunction]
pub fn allclose(py: Python<'_>, a: &A, b: &A, rtol: f64, atol: f64, equal_nan: bool) -> PyResult<bool> {
    let (a, b) = (a.0.clone(), b.0.clone());
    py.detach(move || cuprum::allclose_with(&a, &b, &cuprum::CloseOptions { rtol, atol, equal_nan })).py()
}

#[pyfunction]
pub fn array_equal(py: Python<'_>, a: &A, b: &A) -> PyResult<bool> {
    let (a, b) = (a.0.clone(), b.0.clone());
    py.detach(move || cuprum::array_equal(&a, &b)).py()
}

#[pyfunction]
pub fn real(x: &A) -> A {
    A(x.0.real())
}
#[pyfunction]
pub fn imag(x: &A) -> PyResult<A> {
    Ok(A(x.0.imag().py()?))
}
#[pyfunction]
pub fn angle(x: &A, deg: bool) -> PyResult<A> {
    Ok(A(x.0.angle_with(&cuprum::AngleOptions { deg }).py()?))
}

/// `out[...] = src` (same-kind casting is the caller's; this casts unsafely like `copyto`).
#[pyfunction]
pub fn assign(dst: &A, src: &A) -> PyResult<()> {
    let mut d = dst.0.clone();
    d.assign(&src.0).py()
}

#[pyfunction]
pub fn can_cast(py: Python<'_>, from: &Bound<'_, PyAny>, to: &Bound<'_, PyAny>, casting: &str) -> PyResult<bool> {
    Ok(cuprum::dtype::can_cast(to_dtype(py, from)?, to_dtype(py, to)?, self::casting(casting)?))
}

// ---------------------------------------------------------------------------------- creation

#[pyfunction]
pub fn empty(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    dtype: &Bound<'_, PyAny>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<A> {
    let (s, d, dev) = (shape_of(shape)?, to_dtype(py, dtype)?, to_device(device)?);
    Ok(A(cuprum::empty(&s, d, &dev).py()?))
}
#[pyfunction]
pub fn zeros(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    dtype: &Bound<'_, PyAny>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<A> {
    let (s, d, dev) = (shape_of(shape)?, to_dtype(py, dtype)?, to_device(device)?);
    Ok(A(cuprum::zeros(&s, d, &dev).py()?))
}
#[pyfunction]
pub fn full(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
    dtype: &Bound<'_, PyAny>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<A> {
    let (s, d, dev) = (shape_of(shape)?, to_dtype(py, dtype)?, to_device(device)?);
    if let Ok(v) = value.cast::<PyNdarray>() {
        let v = v.get().0.to_device(&dev).py()?.astype(d).py()?;
        let mut a = cuprum::empty(&s, d, &dev).py()?;
        a.assign(&v).py()?;
        return Ok(A(a));
    }
    let v = crate::convert::any_scalar(value)?;
    Ok(A(cuprum::full(&s, v, d, &dev).py()?))
}
#[pyfunction]
pub fn arange_int(
    py: Python<'_>,
    start: i64,
    stop: i64,
    step: i64,
    dtype: &Bound<'_, PyAny>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<A> {
    Ok(A(cuprum::arange_with(start, stop, step, to_dtype(py, dtype)?, &to_device(device)?).py()?))
}
#[pyfunction]
pub fn arange_float(
    py: Python<'_>,
    start: f64,
    stop: f64,
    step: f64,
    dtype: &Bound<'_, PyAny>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<A> {
    Ok(A(cuprum::arange_f(start, stop, step, to_dtype(py, dtype)?, &to_device(device)?).py()?))
}
#[pyfunction]
pub fn linspace(
    py: Python<'_>,
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    dtype: &Bound<'_, PyAny>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<A> {
    Ok(A(cuprum::linspace_with(
        start,
        stop,
        num,
        to_dtype(py, dtype)?,
        &cuprum::LinspaceOptions { endpoint },
        &to_device(device)?,
    )
    .py()?))
}
#[pyfunction]
pub fn eye(
    py: Python<'_>,
    n: usize,
    m: Option<usize>,
    k: isize,
    dtype: &Bound<'_, PyAny>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<A> {
    Ok(A(cuprum::eye_with(n, to_dtype(py, dtype)?, &cuprum::EyeOptions { m, k }, &to_device(device)?).py()?))
}
#[pyfunction]
pub fn meshgrid(py: Python<'_>, xs: &Bound<'_, PyAny>, ij: bool) -> PyResult<Vec<A>> {
    let v = arrs(py, xs, None)?;
    let r: Vec<&Array> = v.iter().collect();
    let ix = if ij { cuprum::Indexing::Ij } else { cuprum::Indexing::Xy };
    Ok(cuprum::meshgrid_slice_with(&r, &cuprum::MeshgridOptions { indexing: ix })
        .py()?
        .into_iter()
        .map(PyNdarray)
        .collect())
}

// ---------------------------------------------------------------------------------- shapes

#[pyfunction]
pub fn concatenate(py: Python<'_>, xs: &Bound<'_, PyAny>, axis: Option<&Bound<'_, PyAny>>) -> PyResult<A> {
    let v = arrs(py, xs, None)?;
    let r: Vec<&Array> = v.iter().collect();
    Ok(A(cuprum::concatenate(&r, axes(axis)?).py()?))
}
#[pyfunction]
pub fn stack(py: Python<'_>, xs: &Bound<'_, PyAny>, axis: isize) -> PyResult<A> {
    let v = arrs(py, xs, None)?;
    let r: Vec<&Array> = v.iter().collect();
    Ok(A(cuprum::stack(&r, axis).py()?))
}
#[pyfunction]
pub fn split(a: &A, sections: &Bound<'_, PyAny>, axis: isize, array_split: bool) -> PyResult<Vec<A>> {
    let s = if let Ok(n) = sections.extract::<usize>() {
        cuprum::Sections::Count(n)
    } else {
        cuprum::Sections::Indices(sections.extract::<Vec<isize>>()?)
    };
    let r = if array_split { cuprum::array_split(&a.0, s, axis) } else { cuprum::split(&a.0, s, axis) };
    Ok(r.py()?.into_iter().map(PyNdarray).collect())
}
#[pyfunction]
pub fn flip(a: &A, axis: Option<&Bound<'_, PyAny>>) -> PyResult<A> {
    Ok(A(cuprum::flip(&a.0, axes(axis)?).py()?))
}
#[pyfunction]
pub fn roll(a: &A, shift: isize, axis: Option<&Bound<'_, PyAny>>) -> PyResult<A> {
    Ok(A(cuprum::roll(&a.0, shift, axes(axis)?).py()?))
}
#[pyfunction]
pub fn tile(a: &A, reps: Vec<usize>) -> PyResult<A> {
    Ok(A(cuprum::tile(&a.0, &reps).py()?))
}
#[pyfunction]
pub fn repeat(a: &A, repeats: usize, axis: Option<&Bound<'_, PyAny>>) -> PyResult<A> {
    Ok(A(cuprum::repeat(&a.0, repeats, axes(axis)?).py()?))
}
#[pyfunction]
pub fn pad(a: &A, widths: Vec<(usize, usize)>, mode: &str, value: &Bound<'_, PyAny>) -> PyResult<A> {
    let m = match mode {
        "constant" => cuprum::PadMode::Constant(crate::convert::any_scalar(value)?),
        "edge" => cuprum::PadMode::Edge,
        "reflect" => cuprum::PadMode::Reflect,
        "symmetric" => cuprum::PadMode::Symmetric,
        "wrap" => cuprum::PadMode::Wrap,
        _ => return Err(pyo3::exceptions::PyNotImplementedError::new_err(format!("pad mode {mode:?}"))),
    };
    Ok(A(cuprum::pad_with(&a.0, &widths, m).py()?))
}
#[pyfunction]
pub fn diff(a: &A, n: usize, axis: isize) -> PyResult<A> {
    Ok(A(cuprum::diff_with(&a.0, &cuprum::DiffOptions { n, axis }).py()?))
}
#[pyfunction]
pub fn broadcast_to(a: &A, shape: &Bound<'_, PyAny>) -> PyResult<A> {
    Ok(A(a.0.broadcast_to(&shape_of(shape)?).py()?))
}
#[pyfunction]
pub fn expand_dims(a: &A, axis: &Bound<'_, PyAny>) -> PyResult<A> {
    Ok(A(a.0.expand_dims(axes(Some(axis))?).py()?))
}
#[pyfunction]
pub fn moveaxis(a: &A, src: Vec<isize>, dst: Vec<isize>) -> PyResult<A> {
    if src.len() != dst.len() {
        return Err(PyValueError::new_err(
            "`source` and `destination` arguments must have the same number of elements",
        ));
    }
    let n = a.0.ndim();
    // The library's axis rule (AxisError out of range, ValueError for a repeated axis).
    // normalize_axes sorts what it returns: it checks the lists, each axis is normalised in order.
    cuprum::layout::normalize_axes(&src, n).py()?;
    cuprum::layout::normalize_axes(&dst, n).py()?;
    let one = |x: isize| cuprum::layout::normalize_axes(&[x], n).map(|v| v[0]).py();
    let s: Vec<usize> = src.iter().map(|&x| one(x)).collect::<PyResult<_>>()?;
    let d: Vec<usize> = dst.iter().map(|&x| one(x)).collect::<PyResult<_>>()?;
    let mut order: Vec<isize> = (0..n).filter(|i| !s.contains(i)).map(|i| i as isize).collect();
    let mut pairs: Vec<(usize, usize)> = d.into_iter().zip(s).collect();
    pairs.sort();
    for (dd, ss) in pairs {
        order.insert(dd, ss as isize);
    }
    Ok(A(a.0.permute(&order).py()?))
}
#[pyfunction]
pub fn diagonal(a: &A, offset: isize, axis1: isize, axis2: isize) -> PyResult<A> {
    Ok(A(a.0.diagonal_with(offset, axis1, axis2).py()?))
}
#[pyfunction]
pub fn as_contiguous(a: &A) -> PyResult<A> {
    Ok(A(a.0.as_contiguous().py()?))
}
/// `cupyx.empty_pinned`'s array: page-locked host memory (needs a CUDA driver).
#[pyfunction]
pub fn empty_pinned(py: Python<'_>, shape: &Bound<'_, PyAny>, dtype: &Bound<'_, PyAny>) -> PyResult<A> {
    let (s, d) = (shape_of(shape)?, to_dtype(py, dtype)?);
    Ok(A(py.detach(|| cuprum::empty_pinned(&s, d)).py()?))
}

#[pyfunction]
pub fn shares_memory(a: &A, b: &A) -> bool {
    a.0.shares_storage(&b.0)
}
#[pyfunction]
pub fn host_interface(a: &A) -> PyResult<(u64, Vec<usize>, Vec<isize>)> {
    if !a.0.device().is_cpu() {
        return Err(PyTypeError::new_err("not a CPU array"));
    }
    cuprum::interop::host_ready(&a.0);
    Ok((cuprum::interop::data_ptr(&a.0), a.0.shape().to_vec(), a.0.strides().to_vec()))
}

/// `cuprum::linalg::set_gpu_error_check`: whether GPU linear algebra reads back the solver's info
/// (raising LinAlgError as NumPy does) or not (CuPy's default). Returns the previous setting.
#[pyfunction]
pub fn set_gpu_error_check(check: bool) -> bool {
    cuprum::linalg::set_gpu_error_check(check)
}

/// Runs `f` with `stream` (a `cuprum.cuda._Stream`, or `None`: the current stream) current.
pub fn on_stream<R>(
    py: Python<'_>,
    stream: Option<&Bound<'_, PyAny>>,
    f: impl FnOnce() -> cuprum::Result<R> + Send,
) -> PyResult<R>
where
    R: Send,
{
    let s = match stream {
        Some(s) if !s.is_none() => Some(s.cast::<crate::cuda::PyStream>()?.get().0.clone()),
        _ => None,
    };
    py.detach(move || {
        if let Some(s) = &s {
            s.enter_unguarded()?;
        }
        let r = f();
        if let Some(s) = &s {
            s.exit();
        }
        r
    })
    .py()
}

/// `dst.set(host)` for a GPU array and a NumPy array of its shape and dtype: copied from the NumPy
/// array's memory on `stream` (no intermediate array; asynchronous from page-locked memory). False
/// when `host` cannot be read in place (then the caller converts it).
#[pyfunction]
#[pyo3(signature = (dst, host, stream=None))]
pub fn copy_from_host(
    py: Python<'_>,
    dst: &A,
    host: &Bound<'_, PyAny>,
    stream: Option<&Bound<'_, PyAny>>,
) -> PyResult<bool> {
    if dst.0.device().is_cpu() {
        return Ok(false);
    }
    let Some(h) = crate::convert::host_array_of(host)? else { return Ok(false) };
    let mut d = dst.0.clone();
    on_stream(py, stream, move || d.copy_from(&h))?;
    Ok(true)
}

// ---------------------------------------------------------------------------------- sorting, searching

#[pyfunction]
pub fn sort(py: Python<'_>, a: &A, axis: Option<&Bound<'_, PyAny>>) -> PyResult<A> {
    let (x, ax) = (a.0.clone(), axes(axis)?);
    Ok(A(py.detach(move || cuprum::sort(&x, ax)).py()?))
}
#[pyfunction]
pub fn argsort(py: Python<'_>, a: &A, axis: Option<&Bound<'_, PyAny>>) -> PyResult<A> {
    let (x, ax) = (a.0.clone(), axes(axis)?);
    Ok(A(py.detach(move || cuprum::argsort(&x, ax)).py()?))
}
#[pyfunction]
pub fn partition(a: &A, kth: isize, axis: Option<&Bound<'_, PyAny>>, arg: bool) -> PyResult<A> {
    let ax = axes(axis)?;
    Ok(A(if arg { cuprum::argpartition(&a.0, kth, ax) } else { cuprum::partition(&a.0, kth, ax) }.py()?))
}
#[pyfunction]
pub fn searchsorted(a: &A, v: &A, right: bool) -> PyResult<A> {
    Ok(A(cuprum::searchsorted(&a.0, &v.0, if right { cuprum::Side::Right } else { cuprum::Side::Left }).py()?))
}
#[pyfunction]
pub fn lexsort(py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<A> {
    let v = arrs(py, keys, None)?;
    let r: Vec<&Array> = v.iter().collect();
    Ok(A(cuprum::lexsort(&r).py()?))
}
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn unique(
    py: Python<'_>,
    a: &A,
    index: bool,
    inverse: bool,
    counts: bool,
) -> PyResult<(A, Option<A>, Option<A>, Option<A>)> {
    let x = a.0.clone();
    let u = py
        .detach(move || {
            cuprum::unique_with(
                &x,
                &cuprum::UniqueOptions { return_index: index, return_inverse: inverse, return_counts: counts },
            )
        })
        .py()?;
    Ok((A(u.values), u.index.map(PyNdarray), u.inverse.map(PyNdarray), u.counts.map(PyNdarray)))
}
#[pyfunction]
pub fn isin(a: &A, b: &A) -> PyResult<A> {
    Ok(A(cuprum::isin(&a.0, &b.0).py()?))
}
#[pyfunction]
pub fn cumulative(a: &A, prod: bool, axis: Option<&Bound<'_, PyAny>>) -> PyResult<A> {
    let ax = axes(axis)?;
    Ok(A(if prod { cuprum::cumprod(&a.0, ax) } else { cuprum::cumsum(&a.0, ax) }.py()?))
}

// ---------------------------------------------------------------------------------- statistics

fn qmethod(m: &str) -> PyResult<cuprum::QuantileMethod> {
    use cuprum::QuantileMethod::*;
    Ok(match m {
        "linear" => Linear,
        "lower" => Lower,
        "higher" => Higher,
        "nearest" => Nearest,
        "midpoint" => Midpoint,
        _ => {
            return Err(PyValueError::new_err(format!(
                "'{m}' is not a valid method. Use one of: linear, lower, higher, nearest, midpoint"
            )))
        }
    })
}

/// quantiles of `a` (q in [0, 1]) over `axis`; `nan`: the nan-ignoring forms.
#[pyfunction]
pub fn quantiles(
    py: Python<'_>,
    a: &A,
    q: Vec<f64>,
    axis: Option<&Bound<'_, PyAny>>,
    method: &str,
    nan: bool,
) -> PyResult<A> {
    let (x, ax, m) = (a.0.clone(), axes(axis)?, qmethod(method)?);
    let r = py.detach(move || {
        if nan {
            let parts: Vec<Array> = q
                .iter()
                .map(|&p| {
                    cuprum::nanquantile_with(
                        &x,
                        p,
                        ax.clone(),
                        &cuprum::QuantileOptions { method: m, ..Default::default() },
                    )
                })
                .collect::<cuprum::Result<_>>()?;
            let refs: Vec<&Array> = parts.iter().collect();
            cuprum::stack(&refs, 0)
        } else {
            cuprum::quantiles_with(&x, &q, ax, &cuprum::QuantileOptions { method: m, ..Default::default() })
        }
    });
    Ok(A(r.py()?))
}
#[pyfunction]
pub fn median(py: Python<'_>, a: &A, axis: Option<&Bound<'_, PyAny>>, nan: bool) -> PyResult<A> {
    let (x, ax) = (a.0.clone(), axes(axis)?);
    Ok(A(py.detach(move || if nan { cuprum::nanmedian(&x, ax) } else { cuprum::median(&x, ax) }).py()?))
}
#[pyfunction]
#[pyo3(signature = (a, bins, range, weights, density))]
pub fn histogram(
    py: Python<'_>,
    a: &A,
    bins: &Bound<'_, PyAny>,
    range: Option<(f64, f64)>,
    weights: Option<&A>,
    density: bool,
) -> PyResult<(A, A)> {
    let b = if let Ok(n) = bins.extract::<usize>() {
        cuprum::Bins::Count(n)
    } else if let Ok(e) = bins.cast::<PyNdarray>() {
        cuprum::Bins::Edges(e.get().0.to_vec_as::<f64>().py()?)
    } else {
        cuprum::Bins::Edges(bins.extract::<Vec<f64>>()?)
    };
    let (x, w) = (a.0.clone(), weights.map(|w| w.0.clone()));
    let (h, e) = py
        .detach(move || {
            cuprum::histogram_with(&x, b, &cuprum::HistogramOptions { range, weights: w.as_ref(), density })
        })
        .py()?;
    Ok((A(h), A(e)))
}
#[pyfunction]
#[pyo3(signature = (x, weights, minlength))]
pub fn bincount(x: &A, weights: Option<&A>, minlength: usize) -> PyResult<A> {
    Ok(A(cuprum::bincount_with(&x.0, &cuprum::BincountOptions { weights: weights.map(|w| &w.0), minlength }).py()?))
}
#[pyfunction]
pub fn digitize(x: &A, bins: &A, right: bool) -> PyResult<A> {
    Ok(A(cuprum::digitize_with(&x.0, &bins.0, &cuprum::DigitizeOptions { right }).py()?))
}

// ---------------------------------------------------------------------------------- indexing

#[pyfunction]
pub fn take(a: &A, indices: &A, axis: Option<&Bound<'_, PyAny>>) -> PyResult<A> {
    Ok(A(cuprum::take(&a.0, &indices.0, axes(axis)?).py()?))
}
#[pyfunction]
pub fn take_along_axis(a: &A, indices: &A, axis: Option<&Bound<'_, PyAny>>) -> PyResult<A> {
    Ok(A(cuprum::take_along_axis(&a.0, &indices.0, axes(axis)?).py()?))
}
#[pyfunction]
pub fn put(a: &A, indices: &A, values: &A) -> PyResult<()> {
    let mut x = a.0.clone();
    cuprum::put(&mut x, &indices.0, &values.0).py()
}
#[pyfunction]
pub fn gather(py: Python<'_>, a: &A, indices: &Bound<'_, PyAny>) -> PyResult<A> {
    // Index arrays stay where they are: one on another device is the operation's DeviceMismatch.
    let v = arrs(py, indices, None)?;
    let r: Vec<&Array> = v.iter().collect();
    Ok(A(cuprum::gather(&a.0, &r).py()?))
}
#[pyfunction]
pub fn scatter(py: Python<'_>, a: &A, indices: &Bound<'_, PyAny>, values: &A, add: bool) -> PyResult<()> {
    let v = arrs(py, indices, None)?;
    let r: Vec<&Array> = v.iter().collect();
    let mut x = a.0.clone();
    if add {
        cuprum::scatter_add(&mut x, &r, &values.0).py()
    } else {
        cuprum::scatter(&mut x, &r, &values.0).py()
    }
}
#[pyfunction]
pub fn nonzero(py: Python<'_>, a: &A) -> PyResult<Vec<A>> {
    let x = a.0.clone();
    Ok(py.detach(move || cuprum::nonzero(&x)).py()?.into_iter().map(PyNdarray).collect())
}
#[pyfunction]
pub fn flatnonzero(a: &A) -> PyResult<A> {
    Ok(A(cuprum::flatnonzero(&a.0).py()?))
}
#[pyfunction]
pub fn argwhere(a: &A) -> PyResult<A> {
    Ok(A(cuprum::argwhere(&a.0).py()?))
}
#[pyfunction]
pub fn compress(cond: &A, a: &A, axis: Option<&Bound<'_, PyAny>>) -> PyResult<A> {
    Ok(A(cuprum::compress(&cond.0, &a.0, axes(axis)?).py()?))
}
#[pyfunction]
pub fn extract(cond: &A, a: &A) -> PyResult<A> {
    Ok(A(cuprum::extract(&cond.0, &a.0).py()?))
}
#[pyfunction]
pub fn mask(a: &A, m: &A) -> PyResult<A> {
    Ok(A(a.0.mask(&m.0).py()?))
}

// ---------------------------------------------------------------------------------- products

#[pyfunction]
pub fn product(name: &str, a: &A, b: &A) -> PyResult<A> {
    let (a, b) = (&a.0, &b.0);
    Ok(A(match name {
        "matmul" => cuprum::matmul(a, b),
        "dot" => cuprum::dot(a, b),
        "vdot" => cuprum::vdot(a, b),
        "inner" => cuprum::inner(a, b),
        "outer" => cuprum::outer(a, b),
        "kron" => cuprum::kron(a, b),
        _ => return Err(PyValueError::new_err(format!("no product {name}"))),
    }
    .py()?))
}
#[pyfunction]
pub fn tensordot(a: &A, b: &A, axes: &Bound<'_, PyAny>) -> PyResult<A> {
    let ta = if let Ok(n) = axes.extract::<usize>() {
        cuprum::linalg::TensorAxes::N(n)
    } else {
        let (x, y): (Bound<'_, PyAny>, Bound<'_, PyAny>) = axes.extract()?;
        let one = |o: &Bound<'_, PyAny>| -> PyResult<Vec<isize>> {
            o.extract::<Vec<isize>>().or_else(|_| Ok(vec![o.extract::<isize>()?]))
        };
        cuprum::linalg::TensorAxes::Pairs(one(&x)?, one(&y)?)
    };
    Ok(A(cuprum::tensordot(&a.0, &b.0, ta).py()?))
}
#[pyfunction]
pub fn einsum(py: Python<'_>, subscripts: &str, ops: &Bound<'_, PyAny>) -> PyResult<A> {
    let v = arrs(py, ops, None)?;
    let r: Vec<&Array> = v.iter().collect();
    Ok(A(cuprum::einsum(subscripts, &r).py()?))
}
#[pyfunction]
pub fn trace(a: &A, offset: isize, axis1: isize, axis2: isize) -> PyResult<A> {
    Ok(A(cuprum::trace(&a.0, offset, axis1, axis2).py()?))
}

// ---------------------------------------------------------------------------------- convolution (NumPy's and SciPy's signal)

fn cmode(m: &str) -> PyResult<cuprum::ConvolveMode> {
    m.parse().py()
}

#[pyfunction]
pub fn np_convolve(py: Python<'_>, a: &A, v: &A, mode: &str, correlate: bool) -> PyResult<A> {
    let (x, y, m) = (a.0.clone(), v.0.clone(), cmode(mode)?);
    Ok(A(py
        .detach(move || if correlate { cuprum::correlate_with(&x, &y, m) } else { cuprum::convolve_with(&x, &y, m) })
        .py()?))
}

#[pyfunction]
pub fn signal_nd(
    py: Python<'_>,
    kind: &str,
    a: &A,
    v: &A,
    mode: &str,
    method: &str,
    axes: Option<Vec<isize>>,
) -> PyResult<A> {
    use cuprum::scipy::signal as s;
    let (x, y, m) = (a.0.clone(), v.0.clone(), cmode(mode)?);
    let meth: s::Method = method.parse().py()?;
    let kind = kind.to_string();
    let r = py.detach(move || match kind.as_str() {
        "convolve" => s::convolve_with(&x, &y, &s::ConvolveOptions { mode: m, method: meth }),
        "correlate" => s::correlate_with(&x, &y, &s::ConvolveOptions { mode: m, method: meth }),
        "fftconvolve" => s::fftconvolve_with(&x, &y, &s::FftConvolveOptions { mode: m, axes: axes.as_deref() }),
        "oaconvolve" => s::oaconvolve_with(&x, &y, &s::FftConvolveOptions { mode: m, axes: axes.as_deref() }),
        _ => Err(cuprum::Error::Value(format!("no function {kind}"))),
    });
    Ok(A(r.py()?))
}

#[pyfunction]
pub fn signal_2d(
    py: Python<'_>,
    correlate: bool,
    a: &A,
    v: &A,
    mode: &str,
    boundary: &str,
    fillvalue: f64,
) -> PyResult<A> {
    use cuprum::scipy::signal as s;
    let (x, y, m) = (a.0.clone(), v.0.clone(), cmode(mode)?);
    let b: s::Boundary = boundary.parse().py()?;
    Ok(A(py
        .detach(move || {
            if correlate {
                s::correlate2d_with(&x, &y, &s::Convolve2dOptions { mode: m, boundary: b, fillvalue })
            } else {
                s::convolve2d_with(&x, &y, &s::Convolve2dOptions { mode: m, boundary: b, fillvalue })
            }
        })
        .py()?))
}

#[pyfunction]
pub fn next_fast_len(target: usize, real: bool) -> PyResult<usize> {
    cuprum::scipy::signal::next_fast_len_with(target, &cuprum::scipy::signal::NextFastLenOptions { real }).py()
}

/// A Python sequence or array of operands (for `einsum`, `concatenate`, ...).
#[pyfunction]
pub fn _list(py: Python<'_>, xs: &Bound<'_, PyAny>) -> PyResult<Vec<A>> {
    Ok(arrs(py, xs, None)?.into_iter().map(PyNdarray).collect())
}
