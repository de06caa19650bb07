//! Devices: `cuprum.Device("cpu")`, `cuprum.cuda.Device(0)`, the thread's current device
//! (`with device:`), and the process default (the first GPU, or `CUPRUM_DEVICE`).

use crate::convert::OrRaise;
use cuprum::Device;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::cell::RefCell;

thread_local! {
    /// The devices of this thread's `with device:` blocks, innermost last.
    static STACK: RefCell<Vec<Device>> = const { RefCell::new(Vec::new()) };
}

/// The thread's current device: the innermost `with device:`, else the process default.
pub fn current_device() -> Device {
    STACK.with(|s| s.borrow().last().copied()).unwrap_or_else(Device::default_device)
}

/// A device: the CPU or one CUDA GPU (`cupy.cuda.Device`). `with device:` makes it the
/// thread's current device: where arrays are created and work goes.
#[pyclass(module = "cuprum", name = "Device", frozen, eq, hash, from_py_object)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyDevice(pub Device);

#[pymethods]
impl PyDevice {
    /// `Device()`: the current device; `Device(0)` the first GPU; `Device("cpu")`, `Device("cuda:1")`.
    #[new]
    #[pyo3(signature = (device=None))]
    fn new(device: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        match device {
            None => Ok(PyDevice(current_device())),
            Some(d) => Ok(PyDevice(crate::convert::to_device(Some(d))?)),
        }
    }

    /// The GPU ordinal (CuPy's `Device.id`); the CPU's is -1.
    #[getter]
    fn id(&self) -> i64 {
        match self.0 {
            Device::Cpu => -1,
            Device::Cuda(n) => n as i64,
        }
    }

    /// `"cpu"` or `"cuda"`.
    #[getter]
    fn kind(&self) -> &'static str {
        if self.0.is_cpu() {
            "cpu"
        } else {
            "cuda"
        }
    }

    /// Waits for all work queued on the device (every stream).
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        let d = self.0;
        py.detach(move || d.synchronize()).py()
    }

    /// Makes this the thread's current device outside any `with` block.
    #[pyo3(name = "use")]
    fn use_(&self) {
        STACK.with(|s| {
            let mut s = s.borrow_mut();
            if s.is_empty() {
                s.push(self.0);
            } else {
                s[0] = self.0;
            }
        });
    }

    /// The GPU's name, or the CPU's.
    #[getter]
    fn name(&self) -> PyResult<String> {
        match self.0 {
            Device::Cpu => Ok("CPU".into()),
            d => cuprum::cuda::device_name(d).py(),
        }
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        STACK.with(|s| s.borrow_mut().push(slf.0));
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        STACK.with(|s| {
            let mut s = s.borrow_mut();
            match s.last() {
                Some(d) if *d == self.0 => {
                    s.pop();
                    Ok(false)
                }
                _ => Err(PyValueError::new_err("Device.__exit__ without its __enter__ on this thread")),
            }
        })
    }

    fn __repr__(&self) -> String {
        match self.0 {
            Device::Cpu => "<CPU Device>".into(),
            Device::Cuda(n) => format!("<CUDA Device {n}>"),
        }
    }

    fn __str__(&self) -> String {
        self.__repr__()
    }

    fn __int__(&self) -> i64 {
        self.id()
    }
}

/// The process's default device (the first GPU, else the CPU; `CUPRUM_DEVICE` overrides).
#[pyfunction]
pub fn default_device() -> PyDevice {
    PyDevice(Device::default_device())
}

/// The thread's current device.
#[pyfunction]
pub fn get_device() -> PyDevice {
    PyDevice(current_device())
}

#[pyfunction]
pub fn cuda_is_available() -> bool {
    cuprum::cuda_is_available()
}

#[pyfunction]
pub fn cuda_device_count() -> usize {
    cuprum::cuda_device_count()
}
