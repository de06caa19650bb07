//! DLPack (`__dlpack__`, `__dlpack_device__`, `from_dlpack`) and the CUDA Array Interface
//! (`__cuda_array_interface__` v3), both ways and zero-copy, with the stream handshake: cuprum's
//! default stream does not synchronise with CUDA's legacy stream, so an export orders the
//! consumer's stream after cuprum's work on the array, and an import orders cuprum's current
//! stream after the producer's (`cuprum::interop`). Imported memory stays the producer's: its
//! deleter (or its Python object) releases it when the last cuprum array on it goes.

use crate::convert::{from_descr, OrRaise};
use cuprum::{Array, DType, Device};
use numpy::PyArrayDescrMethods;
use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::ffi::{c_void, CStr};

// ------------------------------------------------------------------------------ DLPack's C ABI

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

#[repr(C)]
struct DLPackVersion {
    major: u32,
    minor: u32,
}

#[repr(C)]
struct DLManagedTensorVersioned {
    version: DLPackVersion,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    flags: u64,
    dl_tensor: DLTensor,
}

const K_DL_CPU: i32 = 1;
const K_DL_CUDA: i32 = 2;
const K_DL_CUDA_HOST: i32 = 3;
const K_DL_CUDA_MANAGED: i32 = 13;
const FLAG_IS_COPIED: u64 = 1 << 1;

const NAME: &CStr = c"dltensor";
const NAME_USED: &CStr = c"used_dltensor";
const NAME_V: &CStr = c"dltensor_versioned";
const NAME_V_USED: &CStr = c"used_dltensor_versioned";

fn dl_dtype(d: DType) -> DLDataType {
    use DType::*;
    let code = match d {
        Bool => 6,
        Int8 | Int16 | Int32 | Int64 => 0,
        UInt8 | UInt16 | UInt32 | UInt64 => 1,
        Float16 | Float32 | Float64 => 2,
        Complex64 | Complex128 => 5,
    };
    DLDataType { code, bits: (d.itemsize() * 8) as u8, lanes: 1 }
}

fn from_dl_dtype(t: DLDataType) -> PyResult<DType> {
    use DType::*;
    let d = match (t.code, t.bits, t.lanes) {
        (6, 8, 1) => Bool,
        (0, 8, 1) => Int8,
        (0, 16, 1) => Int16,
        (0, 32, 1) => Int32,
        (0, 64, 1) => Int64,
        (1, 8, 1) => UInt8,
        (1, 16, 1) => UInt16,
        (1, 32, 1) => UInt32,
        (1, 64, 1) => UInt64,
        (2, 16, 1) => Float16,
        (2, 32, 1) => Float32,
        (2, 64, 1) => Float64,
        (5, 64, 1) => Complex64,
        (5, 128, 1) => Complex128,
        (c, b, l) => {
            return Err(PyTypeError::new_err(format!(
                "cuprum cannot import DLPack dtype (code {c}, bits {b}, lanes {l})"
            )))
        }
    };
    Ok(d)
}

/// `(device_type, device_id)` of an array.
pub fn dlpack_device(a: &Array) -> (i32, i32) {
    match a.device() {
        Device::Cpu => (K_DL_CPU, 0),
        Device::Cuda(n) => (K_DL_CUDA, n as i32),
    }
}

// ------------------------------------------------------------------------------ export

/// What a capsule owns: the array (its storage stays alive) and the shape and strides the
/// tensor points to. Exactly one of the two managed structs is used.
struct Export {
    _array: Array,
    shape: Vec<i64>,
    strides: Vec<i64>,
    legacy: Option<DLManagedTensor>,
    versioned: Option<DLManagedTensorVersioned>,
}

unsafe extern "C" fn delete_legacy(m: *mut DLManagedTensor) {
    // SAFETY: `m` is the `legacy` field of a boxed `Export` whose address is `manager_ctx`; the
    // deleter runs once (DLPack's contract), so the box is dropped once.
    unsafe { drop(Box::from_raw((*m).manager_ctx as *mut Export)) }
}

unsafe extern "C" fn delete_versioned(m: *mut DLManagedTensorVersioned) {
    // SAFETY: as `delete_legacy`, for the `versioned` field.
    unsafe { drop(Box::from_raw((*m).manager_ctx as *mut Export)) }
}

/// The capsule's destructor: deletes the tensor unless a consumer took it (renamed the capsule).
unsafe extern "C" fn capsule_destructor(capsule: *mut pyo3::ffi::PyObject) {
    // SAFETY: called by Python with a live capsule; the name checks tell which struct it holds
    // and whether a consumer took it (then the consumer calls the deleter).
    unsafe {
        if pyo3::ffi::PyCapsule_IsValid(capsule, NAME.as_ptr()) == 1 {
            let m = pyo3::ffi::PyCapsule_GetPointer(capsule, NAME.as_ptr()) as *mut DLManagedTensor;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        } else if pyo3::ffi::PyCapsule_IsValid(capsule, NAME_V.as_ptr()) == 1 {
            let m = pyo3::ffi::PyCapsule_GetPointer(capsule, NAME_V.as_ptr()) as *mut DLManagedTensorVersioned;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        } else {
            // A consumed capsule: nothing to do (clears the error IsValid may not set).
        }
    }
}

/// The stream number of `__dlpack__(stream=...)`: `None` is the legacy default stream (1).
fn stream_arg(stream: Option<&Bound<'_, PyAny>>) -> PyResult<Option<i64>> {
    match stream {
        None => Ok(Some(1)),
        Some(s) if s.is_none() => Ok(Some(1)),
        Some(s) => {
            let v: i64 = s.extract().map_err(|_| PyTypeError::new_err("stream must be an int or None"))?;
            if v == -1 {
                Ok(None)
            } else if v == 0 {
                Err(PyValueError::new_err("stream 0 is not allowed in DLPack (use 1 for the legacy default stream)"))
            } else {
                Ok(Some(v))
            }
        }
    }
}

/// `x.__dlpack__(stream=, max_version=, dl_device=, copy=)`.
pub fn export<'py>(
    py: Python<'py>,
    a: &Array,
    stream: Option<&Bound<'py, PyAny>>,
    max_version: Option<(u32, u32)>,
    dl_device: Option<(i32, i32)>,
    copy: Option<bool>,
) -> PyResult<Bound<'py, PyAny>> {
    let here = dlpack_device(a);
    let mut arr = a.clone();
    let mut copied = false;
    if let Some(want) = dl_device {
        if want != here {
            if copy == Some(false) {
                return Err(PyBufferError::new_err("a copy to another device was needed but copy=False"));
            }
            let target = match want.0 {
                K_DL_CPU => Device::Cpu,
                K_DL_CUDA => Device::cuda(want.1 as usize).py()?,
                t => return Err(PyBufferError::new_err(format!("cuprum cannot export to DLPack device type {t}"))),
            };
            arr = py.detach(move || arr.to_device(&target)).py()?;
            copied = true;
        }
    }
    if copy == Some(true) && !copied {
        arr = arr.copy().py()?;
        copied = true;
    }
    if !arr.device().is_cpu() {
        if let Some(s) = stream_arg(stream)? {
            // SAFETY: the consumer passed a stream of this device's primary context (DLPack's
            // contract), or 1/2 for the default streams.
            unsafe { cuprum::interop::order_before(&arr, s as u64) }.py()?;
        }
    }
    let its = arr.itemsize() as isize;
    let shape: Vec<i64> = arr.shape().iter().map(|&d| d as i64).collect();
    let mut strides = Vec::with_capacity(arr.ndim());
    for &s in arr.strides() {
        if s % its != 0 {
            // Never for cuprum's own layouts; a copy would do.
            arr = arr.copy().py()?;
            return export(py, &arr, None, max_version, None, None);
        }
        strides.push((s / its) as i64);
    }
    let versioned = max_version.is_some_and(|(major, _)| major >= 1);
    let mut ex = Box::new(Export { shape, strides, _array: arr.clone(), legacy: None, versioned: None });
    let (dt, dev) = (arr.dtype(), dlpack_device(&arr));
    let tensor = DLTensor {
        data: cuprum::interop::data_ptr(&arr) as usize as *mut c_void,
        device: DLDevice { device_type: dev.0, device_id: dev.1 },
        ndim: ex.shape.len() as i32,
        dtype: dl_dtype(dt),
        shape: ex.shape.as_mut_ptr(),
        strides: ex.strides.as_mut_ptr(),
        byte_offset: 0,
    };
    let ctx = &mut *ex as *mut Export as *mut c_void;
    let (ptr, name): (*mut c_void, &CStr) = if versioned {
        ex.versioned = Some(DLManagedTensorVersioned {
            version: DLPackVersion { major: 1, minor: 1 },
            manager_ctx: ctx,
            deleter: Some(delete_versioned),
            flags: if copied { FLAG_IS_COPIED } else { 0 },
            dl_tensor: tensor,
        });
        (ex.versioned.as_mut().map(|m| m as *mut _ as *mut c_void).unwrap_or(std::ptr::null_mut()), NAME_V)
    } else {
        ex.legacy = Some(DLManagedTensor { dl_tensor: tensor, manager_ctx: ctx, deleter: Some(delete_legacy) });
        (ex.legacy.as_mut().map(|m| m as *mut _ as *mut c_void).unwrap_or(std::ptr::null_mut()), NAME)
    };
    let raw = Box::into_raw(ex);
    // SAFETY: `ptr` points into the boxed `Export` (now owned by the capsule until its deleter
    // runs); the name is a static C string; the destructor matches the name.
    let cap = unsafe { pyo3::ffi::PyCapsule_New(ptr, name.as_ptr(), Some(capsule_destructor)) };
    if cap.is_null() {
        // SAFETY: the capsule was not made, so the box is still ours.
        unsafe { drop(Box::from_raw(raw)) };
        return Err(PyErr::fetch(py));
    }
    // SAFETY: `cap` is a new reference returned by PyCapsule_New.
    Ok(unsafe { Bound::from_owned_ptr(py, cap) })
}

// ------------------------------------------------------------------------------ import

/// A consumed DLPack tensor: its deleter runs when cuprum lets go of the memory.
struct Imported {
    managed: *mut c_void,
    versioned: bool,
}

// SAFETY: the managed tensor is only touched in `drop` (its deleter), which DLPack allows from
// any thread; the GIL is taken first, for producers whose deleters release Python objects.
unsafe impl Send for Imported {}
// SAFETY: no shared access at all (`&Imported` exposes nothing).
unsafe impl Sync for Imported {}

impl Drop for Imported {
    fn drop(&mut self) {
        let (m, v) = (self.managed, self.versioned);
        Python::attach(|_| {
            // SAFETY: `m` is the consumed managed tensor of the matching kind; its deleter runs once.
            unsafe {
                if v {
                    let m = m as *mut DLManagedTensorVersioned;
                    if let Some(d) = (*m).deleter {
                        d(m);
                    }
                } else {
                    let m = m as *mut DLManagedTensor;
                    if let Some(d) = (*m).deleter {
                        d(m);
                    }
                }
            }
        });
    }
}

/// The array of a DLPack capsule (consuming it), on its own device.
fn from_capsule(capsule: &Bound<'_, PyAny>) -> PyResult<Array> {
    let p = capsule.as_ptr();
    // SAFETY: `p` is a live object (we hold `capsule`); the checks tell whether it is a capsule
    // of either name, and then the pointer is the producer's managed tensor, alive until its
    // deleter runs, which only `Imported` calls after the capsule is renamed.
    unsafe {
        let (managed, versioned) = if pyo3::ffi::PyCapsule_IsValid(p, NAME_V.as_ptr()) == 1 {
            (pyo3::ffi::PyCapsule_GetPointer(p, NAME_V.as_ptr()), true)
        } else if pyo3::ffi::PyCapsule_IsValid(p, NAME.as_ptr()) == 1 {
            (pyo3::ffi::PyCapsule_GetPointer(p, NAME.as_ptr()), false)
        } else {
            return Err(PyValueError::new_err("not a DLPack capsule, or one already consumed"));
        };
        if managed.is_null() {
            return Err(PyErr::fetch(capsule.py()));
        }
        let t: &DLTensor = if versioned {
            let m = &*(managed as *const DLManagedTensorVersioned);
            if m.version.major > 1 {
                return Err(PyBufferError::new_err(format!(
                    "DLPack version {}.{} is too new",
                    m.version.major, m.version.minor
                )));
            }
            &m.dl_tensor
        } else {
            &(*(managed as *const DLManagedTensor)).dl_tensor
        };
        let dtype = from_dl_dtype(t.dtype)?;
        let device = match t.device.device_type {
            K_DL_CPU | K_DL_CUDA_HOST => Device::Cpu,
            K_DL_CUDA | K_DL_CUDA_MANAGED => Device::Cuda(t.device.device_id as usize),
            d => return Err(PyBufferError::new_err(format!("cuprum cannot import DLPack device type {d}"))),
        };
        let ndim = t.ndim.max(0) as usize;
        let shape: Vec<usize> = if ndim == 0 {
            vec![]
        } else {
            std::slice::from_raw_parts(t.shape, ndim).iter().map(|&d| d as usize).collect()
        };
        let its = dtype.itemsize() as isize;
        let strides: Vec<isize> = if t.strides.is_null() || ndim == 0 {
            let mut s = vec![0isize; ndim];
            let mut acc = its;
            for i in (0..ndim).rev() {
                s[i] = acc;
                acc *= shape[i].max(1) as isize;
            }
            s
        } else {
            std::slice::from_raw_parts(t.strides, ndim).iter().map(|&s| s as isize * its).collect()
        };
        let ptr = t.data as u64 + t.byte_offset;
        let name = if versioned { NAME_V_USED } else { NAME_USED };
        if pyo3::ffi::PyCapsule_SetName(p, name.as_ptr()) != 0 {
            return Err(PyErr::fetch(capsule.py()));
        }
        let owner = Imported { managed, versioned };
        cuprum::interop::from_foreign(device, ptr, dtype, &shape, &strides, Box::new(owner)).py()
    }
}

/// `cuprum.from_dlpack(x)` and `asarray` of DLPack producers: passes cuprum's current stream so
/// the producer orders its work before ours; moves the result to `device` when given.
pub fn from_dlpack_obj(py: Python<'_>, obj: &Bound<'_, PyAny>, device: Option<Device>) -> PyResult<Array> {
    if obj.hasattr("__dlpack__")? {
        let (dt, id): (i32, i32) = match obj.call_method0("__dlpack_device__") {
            Ok(d) => d.extract()?,
            Err(_) => (K_DL_CPU, 0),
        };
        let kw = PyDict::new(py);
        if dt == K_DL_CUDA || dt == K_DL_CUDA_MANAGED {
            let s = cuprum::interop::current_stream(Device::Cuda(id as usize)).py()?;
            kw.set_item("stream", s)?;
        }
        kw.set_item("max_version", (1u32, 1u32))?;
        let cap = match obj.call_method("__dlpack__", (), Some(&kw)) {
            Ok(c) => c,
            Err(e) if e.is_instance_of::<PyTypeError>(py) => {
                kw.del_item("max_version")?;
                obj.call_method("__dlpack__", (), Some(&kw))?
            }
            Err(e) => return Err(e),
        };
        let a = from_capsule(&cap)?;
        return match device {
            Some(d) if d != a.device() => py.detach(move || a.to_device(&d)).py(),
            _ => Ok(a),
        };
    }
    // A bare capsule.
    let a = from_capsule(obj)?;
    match device {
        Some(d) if d != a.device() => py.detach(move || a.to_device(&d)).py(),
        _ => Ok(a),
    }
}

// ------------------------------------------------------------------------------ CUDA Array Interface

/// `x.__cuda_array_interface__` (v3) of a GPU array; an AttributeError for a CPU array.
pub fn cai<'py>(py: Python<'py>, a: &Array) -> PyResult<Bound<'py, PyAny>> {
    if a.device().is_cpu() {
        return Err(pyo3::exceptions::PyAttributeError::new_err(
            "a CPU array has no __cuda_array_interface__ (use __array__ or __dlpack__)",
        ));
    }
    let d = PyDict::new(py);
    d.set_item("shape", PyTuple::new(py, a.shape())?)?;
    let descr = crate::convert::np_dtype(py, a.dtype());
    let typestr: String = descr.getattr("str")?.extract()?;
    d.set_item("typestr", &typestr)?;
    d.set_item("descr", vec![("", typestr)])?;
    let ptr = if a.size() == 0 { 0 } else { cuprum::interop::data_ptr(a) };
    d.set_item("data", (ptr, false))?;
    d.set_item("version", 3)?;
    if a.is_c_contiguous() {
        d.set_item("strides", py.None())?;
    } else {
        d.set_item("strides", PyTuple::new(py, a.strides())?)?;
    }
    let s = cuprum::interop::producer_stream(a).py()?;
    d.set_item("stream", s)?;
    Ok(d.into_any())
}

/// An array on the memory of an object with `__cuda_array_interface__` (zero-copy; the object
/// is kept alive as the memory's owner), on `device`.
pub fn from_cai(py: Python<'_>, obj: &Bound<'_, PyAny>, device: Device) -> PyResult<Array> {
    let ci = obj.getattr("__cuda_array_interface__")?;
    let shape: Vec<usize> = ci.get_item("shape")?.extract()?;
    let typestr = ci.get_item("typestr")?;
    let descr = numpy::PyArrayDescr::new(py, &typestr)?;
    let dtype = from_descr(&descr)?;
    if descr.is_native_byteorder() == Some(false) {
        return Err(PyTypeError::new_err("cuprum imports native byte order only"));
    }
    let (ptr, _ro): (u64, bool) = ci.get_item("data")?.extract()?;
    let strides: Vec<isize> = match ci.get_item("strides").ok().filter(|s| !s.is_none()) {
        Some(s) => s.extract()?,
        None => {
            let mut s = vec![0isize; shape.len()];
            let mut acc = dtype.itemsize() as isize;
            for i in (0..shape.len()).rev() {
                s[i] = acc;
                acc *= shape[i].max(1) as isize;
            }
            s
        }
    };
    if let Ok(m) = ci.get_item("mask") {
        if !m.is_none() {
            return Err(PyTypeError::new_err("cuprum cannot import a masked CUDA array"));
        }
    }
    let version: i64 = ci.get_item("version").and_then(|v| v.extract()).unwrap_or(0);
    if version >= 3 {
        if let Ok(s) = ci.get_item("stream") {
            if !s.is_none() {
                let s: u64 = s.extract()?;
                if s == 0 {
                    return Err(PyValueError::new_err("__cuda_array_interface__: stream 0 is not allowed"));
                }
                // SAFETY: CAI's contract: the producer's stream lives on the current device's
                // primary context.
                unsafe { cuprum::interop::wait_for(device, s) }.py()?;
            }
        }
    }
    let owner: Py<PyAny> = obj.clone().unbind();
    // SAFETY: the CUDA Array Interface promises `ptr` and the layout describe device memory
    // valid while `obj` lives, and `obj` is the owner.
    unsafe { cuprum::interop::from_foreign(device, ptr, dtype, &shape, &strides, Box::new(owner)) }.py()
}

/// `cuprum.from_dlpack(x, device=None, copy=None)`.
#[pyfunction]
#[pyo3(signature = (x, /, *, device=None, copy=None))]
pub fn from_dlpack(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    device: Option<&Bound<'_, PyAny>>,
    copy: Option<bool>,
) -> PyResult<crate::array::PyNdarray> {
    let dev = match device {
        Some(d) if !d.is_none() => Some(crate::convert::to_device(Some(d))?),
        _ => None,
    };
    let a = from_dlpack_obj(py, x, dev)?;
    let a = if copy == Some(true) { a.copy().py()? } else { a };
    Ok(crate::array::PyNdarray(a))
}
