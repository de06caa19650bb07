//! Streams and events (`cuprum.cuda`'s): CUDA ones on a GPU, host-ordered ones with the host
//! clock on the CPU (`cuprum::cuda`), so that the same code runs without a GPU.

use crate::convert::{to_device, OrRaise};
use cuprum::cuda::Stream;
use cuprum::{Device, Event};
use pyo3::prelude::*;

/// A stream of a device (`cupy.cuda.Stream`'s core).
#[pyclass(module = "cuprum.cuda", name = "_Stream", frozen)]
pub struct PyStream(pub Stream);

#[pymethods]
impl PyStream {
    /// A new non-blocking stream on `device` (`null`: the device's default stream).
    #[new]
    #[pyo3(signature = (device=None, null=false))]
    fn new(device: Option<&Bound<'_, PyAny>>, null: bool) -> PyResult<Self> {
        let d = to_device(device)?;
        Ok(PyStream(if null { Stream::null(d) } else { Stream::new(d) }.py()?))
    }
    fn enter(&self) -> PyResult<()> {
        self.0.enter_unguarded().py()
    }
    fn exit(&self) {
        self.0.exit()
    }
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        let s = self.0.clone();
        py.detach(move || s.synchronize()).py()
    }
    fn query(&self) -> PyResult<bool> {
        self.0.query().py()
    }
    fn record(&self) -> PyResult<PyEvent> {
        Ok(PyEvent(self.0.record().py()?))
    }
    fn wait_event(&self, e: &PyEvent) -> PyResult<()> {
        self.0.wait_event(&e.0).py()
    }
    fn destroy(&self) -> PyResult<()> {
        self.0.destroy().py()
    }
    #[getter]
    fn ptr(&self) -> u64 {
        self.0.handle()
    }
    #[getter]
    fn is_null(&self) -> bool {
        self.0.is_null()
    }
    #[getter]
    fn device_id(&self) -> i64 {
        match self.0.device() {
            Device::Cpu => -1,
            Device::Cuda(n) => n as i64,
        }
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyStream>().is_ok_and(|o| o.get().0 == self.0)
    }
    fn __hash__(&self) -> u64 {
        self.0.handle()
    }
}

/// An event of a device (`cupy.cuda.Event`'s core).
#[pyclass(module = "cuprum.cuda", name = "_Event", frozen)]
pub struct PyEvent(pub Event);

#[pymethods]
impl PyEvent {
    #[new]
    #[pyo3(signature = (device=None))]
    fn new(device: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(PyEvent(Event::new(to_device(device)?).py()?))
    }
    /// Records the event on `stream` (the current stream when `None`).
    #[pyo3(signature = (stream=None))]
    fn record(&self, stream: Option<&PyStream>) -> PyResult<()> {
        match stream {
            Some(s) => self.0.record_on(&s.0).py(),
            None => self.0.record().py(),
        }
    }
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        let e = &self.0;
        py.detach(|| e.synchronize()).py()
    }
    fn query(&self) -> PyResult<bool> {
        self.0.query().py()
    }
}

/// Milliseconds between two recorded events (`cupy.cuda.get_elapsed_time`).
#[pyfunction]
pub fn elapsed_ms(py: Python<'_>, start: &PyEvent, end: &PyEvent) -> PyResult<f32> {
    let (s, e) = (&start.0, &end.0);
    py.detach(|| cuprum::cuda::get_elapsed_time(s, e)).py()
}

/// This thread's current stream of a device.
#[pyfunction]
pub fn current_stream(device: Option<&Bound<'_, PyAny>>) -> PyResult<PyStream> {
    Ok(PyStream(cuprum::cuda::get_current_stream(to_device(device)?).py()?))
}

/// (bytes in use, bytes held) of a GPU's pool.
#[pyfunction]
pub fn pool_stats(device: Option<&Bound<'_, PyAny>>) -> PyResult<(usize, usize)> {
    let s = cuprum::pool_stats(to_device(device)?).py()?;
    Ok((s.in_use, s.held))
}

#[pyfunction]
pub fn release_cached(py: Python<'_>, device: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    let d = to_device(device)?;
    py.detach(move || cuprum::release_cached(d)).py()
}
