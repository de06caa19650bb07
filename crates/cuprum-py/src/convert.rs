//! Python <-> cuprum: dtypes (NumPy's own `numpy.dtype` objects), scalars (NEP 50: Python's are
//! weak, NumPy's strong), devices, NumPy arrays (host copies), and errors (NumPy's exceptions).

use crate::array::PyNdarray;
use crate::device::{current_device, PyDevice};
use cuprum::{Array, DType, Device, Scalar};
use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{
    PyIndexError, PyMemoryError, PyNotImplementedError, PyOSError, PyOverflowError, PyRuntimeError, PyTypeError,
    PyValueError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};

/// Runs `$body` with `$t` the Rust element type of the dtype `$dt`.
macro_rules! with_dtype {
    ($dt:expr, $t:ident => $body:expr) => {
        match $dt {
            cuprum::DType::Bool => {
                type $t = bool;
                $body
            }
            cuprum::DType::Int8 => {
                type $t = i8;
                $body
            }
            cuprum::DType::Int16 => {
                type $t = i16;
                $body
            }
            cuprum::DType::Int32 => {
                type $t = i32;
                $body
            }
            cuprum::DType::Int64 => {
                type $t = i64;
                $body
            }
            cuprum::DType::UInt8 => {
                type $t = u8;
                $body
            }
            cuprum::DType::UInt16 => {
                type $t = u16;
                $body
            }
            cuprum::DType::UInt32 => {
                type $t = u32;
                $body
            }
            cuprum::DType::UInt64 => {
                type $t = u64;
                $body
            }
            cuprum::DType::Float16 => {
                type $t = half::f16;
                $body
            }
            cuprum::DType::Float32 => {
                type $t = f32;
                $body
            }
            cuprum::DType::Float64 => {
                type $t = f64;
                $body
            }
            cuprum::DType::Complex64 => {
                type $t = cuprum::Complex<f32>;
                $body
            }
            cuprum::DType::Complex128 => {
                type $t = cuprum::Complex<f64>;
                $body
            }
        }
    };
}

// ------------------------------------------------------------------------------ errors

pyo3::import_exception!(numpy.exceptions, AxisError);
pyo3::import_exception!(numpy.linalg, LinAlgError);

/// cuprum's error as the exception NumPy raises for the same mistake.
pub fn err(e: cuprum::Error) -> PyErr {
    use cuprum::ErrorKind::*;
    let msg = e.to_string();
    match e.kind() {
        TypeError => PyTypeError::new_err(msg),
        ValueError => PyValueError::new_err(msg),
        IndexError => PyIndexError::new_err(msg),
        AxisError => self::AxisError::new_err(msg),
        OverflowError => PyOverflowError::new_err(msg),
        MemoryError => PyMemoryError::new_err(msg),
        NotImplementedError => PyNotImplementedError::new_err(msg),
        OSError => PyOSError::new_err(msg),
        LinAlgError => self::LinAlgError::new_err(msg),
        ZeroDivisionError => pyo3::exceptions::PyZeroDivisionError::new_err(msg),
        _ => PyRuntimeError::new_err(msg),
    }
}

/// `?` on cuprum's results inside the bindings.
pub trait OrRaise<T> {
    fn py(self) -> PyResult<T>;
}
impl<T> OrRaise<T> for cuprum::Result<T> {
    #[inline]
    fn py(self) -> PyResult<T> {
        self.map_err(err)
    }
}

// ------------------------------------------------------------------------------ dtypes

/// NumPy's type numbers (`dtype.num`) of the 14 dtypes, in cuprum's `ALL_DTYPES` order.
static DESCRS: PyOnceLock<Vec<pyo3::Py<PyArrayDescr>>> = PyOnceLock::new();

fn descrs(py: Python<'_>) -> &Vec<pyo3::Py<PyArrayDescr>> {
    DESCRS.get_or_init(py, || {
        cuprum::dtype::ALL_DTYPES.iter().map(|&d| with_dtype!(d, T => numpy::dtype::<T>(py).unbind())).collect()
    })
}

/// The `numpy.dtype` of a cuprum dtype (the same object NumPy uses).
pub fn np_dtype(py: Python<'_>, d: DType) -> Bound<'_, PyArrayDescr> {
    let i = cuprum::dtype::ALL_DTYPES.iter().position(|&x| x == d).unwrap_or(0);
    descrs(py)[i].bind(py).clone()
}

/// The cuprum dtype of a `numpy.dtype` (native byte order or not).
pub fn from_descr(d: &Bound<'_, PyArrayDescr>) -> PyResult<DType> {
    let (kind, size) = (d.kind(), d.itemsize());
    let dt = match (kind, size) {
        (b'b', 1) => DType::Bool,
        (b'i', 1) => DType::Int8,
        (b'i', 2) => DType::Int16,
        (b'i', 4) => DType::Int32,
        (b'i', 8) => DType::Int64,
        (b'u', 1) => DType::UInt8,
        (b'u', 2) => DType::UInt16,
        (b'u', 4) => DType::UInt32,
        (b'u', 8) => DType::UInt64,
        (b'f', 2) => DType::Float16,
        (b'f', 4) => DType::Float32,
        (b'f', 8) => DType::Float64,
        (b'c', 8) => DType::Complex64,
        (b'c', 16) => DType::Complex128,
        _ => {
            return Err(PyTypeError::new_err(format!("cuprum does not support the dtype {}", d.str()?)));
        }
    };
    Ok(dt)
}

/// Any dtype-like object (`numpy.dtype`, `np.float32`, `float`, `'f4'`, `'float32'`).
pub fn to_dtype(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<DType> {
    if obj.is_none() {
        // NumPy's `dtype(None)`: the default float.
        return Ok(DType::Float64);
    }
    if let Ok(d) = obj.cast::<PyArrayDescr>() {
        return from_descr(d);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        if let Some(d) = DType::from_name(s.to_str()?) {
            return Ok(d);
        }
    }
    let d = PyArrayDescr::new(py, obj)?;
    from_descr(&d)
}

/// An optional dtype argument (`None`: none).
pub fn opt_dtype(py: Python<'_>, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => to_dtype(py, o).map(Some),
    }
}

// ------------------------------------------------------------------------------ scalars

/// A Python scalar (`bool`, `int`, `float`, `complex`, not NumPy's): weak, as NEP 50 says.
pub fn py_scalar(obj: &Bound<'_, PyAny>) -> PyResult<Option<Scalar>> {
    if obj.is_exact_instance_of::<PyFloat>() {
        return Ok(Some(Scalar::Float(obj.extract::<f64>()?)));
    }
    if obj.is_exact_instance_of::<PyBool>() {
        return Ok(Some(Scalar::Bool(obj.extract::<bool>()?)));
    }
    if obj.is_exact_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Some(Scalar::Int(i)));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Some(Scalar::UInt(u)));
        }
        return Err(PyOverflowError::new_err(format!("Python integer {} out of bounds for int64", obj.str()?)));
    }
    if obj.is_exact_instance_of::<PyComplex>() {
        let c = obj.cast::<PyComplex>()?;
        return Ok(Some(Scalar::Complex(c.real(), c.imag())));
    }
    Ok(None)
}

/// A Python scalar as the closest cuprum scalar for a fill value (any number-like object).
pub fn any_scalar(obj: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    if let Some(s) = py_scalar(obj)? {
        return Ok(s);
    }
    let kind: Option<String> = obj.getattr("dtype").and_then(|d| d.getattr("kind")).and_then(|k| k.extract()).ok();
    match kind.as_deref() {
        Some("b") => Ok(Scalar::Bool(obj.extract::<bool>()?)),
        Some("i") => Ok(Scalar::Int(obj.call_method0("__int__")?.extract()?)),
        Some("u") => Ok(Scalar::UInt(obj.call_method0("__int__")?.extract()?)),
        Some("f") => Ok(Scalar::Float(obj.call_method0("__float__")?.extract()?)),
        Some("c") => {
            let c: num_complex_shim::C = obj.extract()?;
            Ok(Scalar::Complex(c.0, c.1))
        }
        _ => {
            if let Ok(i) = obj.call_method0("__index__") {
                return Ok(Scalar::Int(i.extract()?));
            }
            if let Ok(f) = obj.call_method0("__float__") {
                return Ok(Scalar::Float(f.extract()?));
            }
            if let Ok(c) = obj.call_method0("__complex__") {
                let c = c.cast::<PyComplex>()?;
                return Ok(Scalar::Complex(c.real(), c.imag()));
            }
            Err(PyTypeError::new_err(format!("expected a number, got {}", obj.get_type().name()?)))
        }
    }
}

mod num_complex_shim {
    use pyo3::prelude::*;
    use pyo3::types::PyComplex;
    /// A complex number from anything with `__complex__`.
    pub struct C(pub f64, pub f64);
    impl<'py> FromPyObject<'_, 'py> for C {
        type Error = PyErr;
        fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
            let c = obj.call_method0("__complex__")?;
            let c = c.cast::<PyComplex>()?;
            Ok(C(c.real(), c.imag()))
        }
    }
}

/// A scalar as a Python object of the closest type (`item()`).
pub fn scalar_to_py(py: Python<'_>, s: Scalar) -> PyResult<Bound<'_, PyAny>> {
    Ok(match s {
        Scalar::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        Scalar::Int(i) => i.into_pyobject(py)?.into_any(),
        Scalar::UInt(u) => u.into_pyobject(py)?.into_any(),
        Scalar::Float(f) => PyFloat::new(py, f).into_any(),
        Scalar::Complex(re, im) => PyComplex::from_doubles(py, re, im).into_any(),
    })
}

// ------------------------------------------------------------------------------ NumPy arrays

static NUMPY: PyOnceLock<pyo3::Py<PyModule>> = PyOnceLock::new();

pub fn numpy_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    Ok(NUMPY.get_or_try_init(py, || py.import("numpy").map(Bound::unbind))?.bind(py))
}

/// A host NumPy array copied onto `device` (as `dtype` when given).
pub fn from_numpy(
    py: Python<'_>,
    a: &Bound<'_, PyUntypedArray>,
    dtype: Option<DType>,
    device: Device,
) -> PyResult<Array> {
    let src = from_descr(&a.dtype())?;
    let native = a.dtype().is_native_byteorder().unwrap_or(true);
    let target = dtype.unwrap_or(src);
    let a: Bound<'_, PyUntypedArray> = if !native || !a.is_c_contiguous() || (target != src && device.is_cpu()) {
        let np = numpy_module(py)?;
        let want = if device.is_cpu() { target } else { src };
        np.call_method1("ascontiguousarray", (a, np_dtype(py, want)))?.cast_into::<PyUntypedArray>()?
    } else {
        a.clone()
    };
    let dt = from_descr(&a.dtype())?;
    let shape = a.shape().to_vec();
    let n: usize = shape.iter().product();
    if !device.is_cpu() && n * dt.itemsize() >= POOLED_TO_HOST {
        // A large array goes to the GPU from its own memory, through cuprum's page-locked staging
        // buffers (a parallel host copy overlapped with the DMA), with no host array in between
        // (the wrapper lives only for the copy, with the GIL held, as the copy in place of it would).
        let arr = numpy_memory(&a, dt)?.to_device(&device).py()?;
        return if arr.dtype() != target { arr.astype(target).py() } else { Ok(arr) };
    }
    let arr = with_dtype!(dt, T => {
        // SAFETY: `a` is a live NumPy array (we hold a reference): its object header is readable.
        let ptr = unsafe { (*a.as_array_ptr()).fields.data } as *const T;
        let data: &[T] = if n == 0 {
            &[]
        } else {
            // SAFETY: `a` is a C-contiguous, aligned, native NumPy array of `dt` with `n` elements
            // (made so above), alive for the whole borrow; nothing else runs meanwhile (the GIL is
            // held and the copy below does not release it).
            unsafe { std::slice::from_raw_parts(ptr, n) }
        };
        cuprum::from_slice(data, &shape, &device).py()?
    });
    if arr.dtype() != target {
        return arr.astype(target).py();
    }
    Ok(arr)
}

/// From this size a GPU array comes to the host through cuprum's host pool (`to_numpy`).
const POOLED_TO_HOST: usize = 1 << 20;

/// The memory of the NumPy array `a` (of `dt`, native byte order) as a cuprum CPU array, which
/// keeps `a` alive.
fn numpy_memory(a: &Bound<'_, PyUntypedArray>, dt: DType) -> PyResult<Array> {
    // SAFETY: `a` is a live NumPy array (a reference is held): its header is readable.
    let ptr = unsafe { (*a.as_array_ptr()).fields.data } as u64;
    let owner: Box<dyn std::any::Any + Send + Sync> = Box::new(a.clone().into_any().unbind());
    // SAFETY: the layout (pointer, shape, byte strides) is NumPy's own for a live array whose
    // elements are `dt` in native byte order (the callers' contract), and `owner` keeps that array,
    // so its memory, alive as long as the cuprum array is.
    unsafe { cuprum::interop::from_foreign(Device::Cpu, ptr, dt, a.shape(), a.strides(), owner) }.py()
}

/// A cuprum CPU array as a NumPy array without a copy (the NumPy array keeps it alive).
pub fn numpy_view<'py>(py: Python<'py>, h: Array) -> PyResult<Bound<'py, PyAny>> {
    crate::array::helpers(py)?.call_method1("host_view", (crate::array::PyNdarray(h), py.None(), py.None()))
}

/// A cuprum array as a new host NumPy array (a device-to-host copy; the GIL is released for it).
/// A large GPU array is copied into a block of cuprum's host pool (page-locked once and reused:
/// the DMA runs at full speed and no fresh pages are faulted in) that NumPy then views without a
/// copy; the block goes back to the pool when the NumPy array goes.
pub fn to_numpy<'py>(py: Python<'py>, a: &Array) -> PyResult<Bound<'py, PyAny>> {
    if !a.device().is_cpu() && a.nbytes() >= POOLED_TO_HOST {
        let a = a.clone();
        let h = py.detach(move || a.to_device(&Device::Cpu)).py()?;
        return numpy_view(py, h);
    }
    let a = a.clone();
    with_dtype!(a.dtype(), T => {
        let nd = py.detach(move || a.to_ndarray::<T>()).py()?;
        Ok(numpy::PyArray::from_owned_array(py, nd).into_any())
    })
}

/// The NumPy array `o` as a cuprum CPU array on the same memory, or `None` when `o` is not a NumPy
/// array of a dtype cuprum has in native byte order. When `o` is the zero-copy view of a cuprum CPU
/// array (`cuprumx.empty_pinned`'s arrays) that array is returned, so that its page-locked memory is
/// known; other memory is wrapped, the NumPy array kept alive by the wrapper.
pub fn host_array_of(o: &Bound<'_, PyAny>) -> PyResult<Option<Array>> {
    let Ok(h) = o.cast::<PyUntypedArray>() else { return Ok(None) };
    let Ok(dt) = from_descr(&h.dtype()) else { return Ok(None) };
    if !h.dtype().is_native_byteorder().unwrap_or(true) {
        return Ok(None);
    }
    // SAFETY: `h` is a live NumPy array (a reference is held): its header is readable.
    let (ptr, writeable) = unsafe {
        let a = &*h.as_array_ptr();
        (a.fields.data as u64, a.fields.flags & numpy::npyffi::NPY_ARRAY_WRITEABLE != 0)
    };
    let shape = h.shape().to_vec();
    let strides = h.strides().to_vec();
    // The cuprum array under a view made by `host_view` (its `_HostInterface` base).
    let mut base = o.getattr("base")?;
    for _ in 0..8 {
        if base.is_none() {
            break;
        }
        if let Ok(inner) = base.getattr("_cuprum_host") {
            if let Ok(c) = inner.cast::<crate::array::PyNdarray>() {
                let c = &c.get().0;
                if cuprum::interop::data_ptr(c) == ptr
                    && c.shape() == shape
                    && c.strides() == strides
                    && c.dtype() == dt
                {
                    return Ok(Some(c.view()));
                }
            }
            break;
        }
        base = match base.getattr("base") {
            Ok(b) => b,
            Err(_) => break,
        };
    }
    if !writeable {
        return Ok(None);
    }
    numpy_memory(h, dt).map(Some)
}

// ------------------------------------------------------------------------------ devices

/// A device argument: `None` (the current device), a `cuprum.Device`, `"cpu"`, `"cuda:N"`, an
/// int (a GPU ordinal).
pub fn to_device(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Device> {
    let Some(obj) = obj else { return Ok(current_device()) };
    if obj.is_none() {
        return Ok(current_device());
    }
    if let Ok(d) = obj.cast::<PyDevice>() {
        return Ok(d.get().0);
    }
    if let Ok(s) = obj.extract::<String>() {
        return s.parse::<Device>().py();
    }
    if let Ok(i) = obj.extract::<usize>() {
        return Device::cuda(i).py();
    }
    if let Ok(d) = obj.getattr("device") {
        if let Ok(d) = d.cast::<PyDevice>() {
            return Ok(d.get().0);
        }
    }
    Err(PyTypeError::new_err(format!("not a device: {}", obj.repr()?)))
}

// ------------------------------------------------------------------------------ any array-like

/// Anything array-like as a cuprum array on `device` (`cupy.asarray`): cuprum arrays (moved if
/// on another device), NumPy arrays and scalars, Python scalars and nested sequences, objects
/// with `__cuda_array_interface__` or `__dlpack__` (zero-copy).
pub fn asarray(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    dtype: Option<DType>,
    device: Option<Device>,
) -> PyResult<Array> {
    if let Ok(x) = obj.cast::<PyNdarray>() {
        let a = &x.get().0;
        let a = match device {
            Some(d) if d != a.device() => {
                let a = a.clone();
                py.detach(move || a.to_device(&d)).py()?
            }
            _ => a.clone(),
        };
        return match dtype {
            Some(d) if d != a.dtype() => a.astype(d).py(),
            _ => Ok(a),
        };
    }
    let dev = device.unwrap_or_else(current_device);
    if let Some(s) = py_scalar(obj)? {
        let dt = match dtype {
            Some(d) => d,
            None => s.default_dtype(),
        };
        return cuprum::full(&[], s, dt, &dev).py();
    }
    if let Ok(a) = obj.cast::<PyUntypedArray>() {
        return from_numpy(py, a, dtype, dev);
    }
    if !dev.is_cpu() && obj.hasattr("__cuda_array_interface__")? {
        let a = crate::dlpack::from_cai(py, obj, dev)?;
        return match dtype {
            Some(d) if d != a.dtype() => a.astype(d).py(),
            _ => Ok(a),
        };
    }
    if obj.hasattr("__dlpack__")? && !obj.is_instance_of::<PyType>() {
        if let Ok(a) = crate::dlpack::from_dlpack_obj(py, obj, Some(dev)) {
            return match dtype {
                Some(d) if d != a.dtype() => a.astype(d).py(),
                _ => Ok(a),
            };
        }
    }
    // Sequences (which may hold cuprum arrays) and NumPy scalars: through NumPy.
    // A sequence whose first item is a cuprum array is stacked on the device (the items stay there);
    // other sequences (numbers, nested lists) go through NumPy's conversion.
    let first_is_array = (obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>())
        && obj.len()? > 0
        && obj.get_item(0)?.is_instance_of::<PyNdarray>();
    if first_is_array {
        let items: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
        {
            let arrs: Vec<Array> = items.iter().map(|i| asarray(py, i, dtype, Some(dev))).collect::<PyResult<_>>()?;
            let refs: Vec<&Array> = arrs.iter().collect();
            return cuprum::stack(&refs, 0).py();
        }
    }
    let np = numpy_module(py)?;
    let kw = pyo3::types::PyDict::new(py);
    if let Some(d) = dtype {
        kw.set_item("dtype", np_dtype(py, d))?;
    }
    let h = np.call_method("asarray", (obj,), Some(&kw))?;
    let h = h.cast_into::<PyUntypedArray>().map_err(|_| PyTypeError::new_err("not array-like"))?;
    if h.dtype().kind() == b'O' || h.dtype().kind() == b'U' || h.dtype().kind() == b'S' {
        return Err(PyTypeError::new_err(format!("cuprum arrays hold numbers, not {}", h.dtype().str()?)));
    }
    from_numpy(py, &h, dtype, dev)
}
