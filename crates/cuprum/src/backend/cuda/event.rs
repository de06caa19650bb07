//! CUDA events (timing) and device names.

use super::CudaDevice;
use crate::core::device::Device;
use crate::core::error::{Error, Result};
use cudarc::driver::{result as cu, sys};
use std::sync::Arc;

/// A CUDA event recorded on a device's stream (for timing GPU work).
pub struct Event {
    ev: sys::CUevent,
    dev: Arc<CudaDevice>,
}
// SAFETY: `ev` is a driver handle owned by this value (destroyed once, in `drop`); the driver
// API is thread-safe, and the device (also `Send + Sync`) outlives the event through the `Arc`.
unsafe impl Send for Event {}
// SAFETY: `&Event` only records, waits on or reads the event, thread-safe driver calls.
unsafe impl Sync for Event {}

impl Event {
    /// A timing event on `device` (a CUDA device).
    pub fn new(device: Device) -> Result<Event> {
        let Device::Cuda(n) = device else {
            return Err(Error::InvalidArgument("events exist only on CUDA devices".into()));
        };
        let dev = CudaDevice::get(n)?;
        dev.bind()?;
        let ev = cu::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).map_err(|e| dev.err("cuEventCreate", e))?;
        Ok(Event { ev, dev })
    }
    /// Records the event after all work queued so far on the device's stream.
    pub fn record(&self) -> Result<()> {
        self.dev.bind()?;
        // SAFETY: `ev` is a live event (destroyed only in `drop`) and the stream is the device's,
        // live for the process; both belong to the context made current by `bind`.
        unsafe { cu::event::record(self.ev, self.dev.stream) }.map_err(|e| self.dev.err("cuEventRecord", e))
    }
    /// Waits until the work before the event has finished.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: `ev` is a live event (destroyed only in `drop`).
        unsafe { cu::event::synchronize(self.ev) }.map_err(|e| self.dev.err("cuEventSynchronize", e))
    }
    /// Milliseconds between `start` and this event (both recorded and finished).
    pub fn elapsed_ms_since(&self, start: &Event) -> Result<f32> {
        // SAFETY: both events are live (each destroyed only in its own `drop`); the driver
        // reports an error, not undefined behaviour, for events not recorded or on other devices.
        unsafe { cu::event::elapsed(start.ev, self.ev) }.map_err(|e| self.dev.err("cuEventElapsedTime", e))
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        let _ = self.dev.bind();
        // SAFETY: `ev` was created in `new`, is destroyed only here, and is not used afterwards.
        let _ = unsafe { cu::event::destroy(self.ev) };
    }
}

/// The GPU's name as the driver reports it.
pub fn device_name(device: Device) -> Result<String> {
    match device {
        Device::Cuda(n) => {
            let d = CudaDevice::get(n)?;
            d.ctx.name().map_err(|e| d.err("cuDeviceGetName", e))
        }
        Device::Cpu => Ok("cpu".into()),
    }
}
