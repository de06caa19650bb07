//! CUDA events (timing, ordering streams; the library's own for host copies) and device names.

use super::CudaDevice;
use crate::core::device::Device;
use crate::core::error::{Error, Result};
use cudarc::driver::{result as cu, sys};
use std::sync::Arc;

/// A CUDA event: the GPU half of [`crate::cuda::Event`].
pub struct GpuEvent {
    ev: sys::CUevent,
    dev: Arc<CudaDevice>,
}
// SAFETY: `ev` is a driver handle owned by this value (destroyed once, in `drop`); the driver
// API is thread-safe, and the device (also `Send + Sync`) outlives the event through the `Arc`.
unsafe impl Send for GpuEvent {}
// SAFETY: `&GpuEvent` only records, waits on or reads the event, thread-safe driver calls.
unsafe impl Sync for GpuEvent {}

impl GpuEvent {
    /// A timing event on `device` (a CUDA device).
    pub fn new(device: Device) -> Result<GpuEvent> {
        let Device::Cuda(n) = device else {
            return Err(Error::InvalidArgument("events exist only on CUDA devices".into()));
        };
        let dev = CudaDevice::get(n)?;
        dev.bind()?;
        let ev = cu::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).map_err(|e| dev.err("cuEventCreate", e))?;
        Ok(GpuEvent { ev, dev })
    }
    /// The event's device.
    pub fn device(&self) -> Device {
        self.dev.device()
    }
    /// Records the event after all work queued so far on its device's current stream.
    pub fn record(&self) -> Result<()> {
        let s = self.dev.current_stream()?;
        self.record_raw(&s)
    }
    /// Records the event after all work queued so far on `stream` (CuPy's
    /// `event.record(stream)`). A stream of another device, or a destroyed one, is an error.
    pub fn record_on(&self, stream: &super::StreamInner) -> Result<()> {
        self.record_raw(stream)
    }
    pub(crate) fn record_raw(&self, s: &super::StreamInner) -> Result<()> {
        s.check_live("recording an event")?;
        if s.ordinal != self.dev.ordinal {
            return Err(Error::DeviceMismatch {
                op: "recording an event on a stream".into(),
                a: self.dev.device(),
                b: s.device(),
            });
        }
        self.dev.bind()?;
        // SAFETY: `ev` is a live event (destroyed only in `drop`) and `s.raw` a live stream of the
        // same device (the caller holds it); the context is current.
        unsafe { cu::event::record(self.ev, s.raw) }.map_err(|e| self.dev.err("cuEventRecord", e))
    }
    /// Waits until the work before the event has finished.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: `ev` is a live event (destroyed only in `drop`).
        unsafe { cu::event::synchronize(self.ev) }.map_err(|e| self.dev.err("cuEventSynchronize", e))
    }
    /// Whether the work before the event has finished (`true` for an event never recorded),
    /// without waiting (CuPy's `event.done`).
    pub fn query(&self) -> Result<bool> {
        // SAFETY: `ev` is a live event (destroyed only in `drop`).
        unsafe { completed(self.ev) }.map_err(|e| self.dev.err("cuEventQuery", e))
    }
    /// Milliseconds between `start` and this event (both recorded and finished).
    pub fn elapsed_ms_since(&self, start: &GpuEvent) -> Result<f32> {
        if start.dev.ordinal != self.dev.ordinal {
            return Err(Error::DeviceMismatch {
                op: "elapsed time between events".into(),
                a: start.dev.device(),
                b: self.dev.device(),
            });
        }
        // SAFETY: both events are live (each destroyed only in its own `drop`); the driver
        // reports an error, not undefined behaviour, for events not recorded or not finished.
        unsafe { cu::event::elapsed(start.ev, self.ev) }.map_err(|e| self.dev.err("cuEventElapsedTime", e))
    }
    pub(crate) fn raw(&self) -> sys::CUevent {
        self.ev
    }
}

impl Drop for GpuEvent {
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

/// An event of the library's own (no timing), destroyed on drop.
pub(crate) struct RawEvent {
    ev: sys::CUevent,
    dev: Arc<CudaDevice>,
}
// SAFETY: as for `GpuEvent`: a driver handle owned by this value, used through thread-safe calls.
unsafe impl Send for RawEvent {}
// SAFETY: as for `Send`.
unsafe impl Sync for RawEvent {}

impl RawEvent {
    /// An event recorded on `dev`'s current stream.
    pub fn record_current(dev: &Arc<CudaDevice>) -> Result<RawEvent> {
        dev.bind()?;
        let stream = dev.stream()?;
        let ev =
            cu::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING).map_err(|e| dev.err("cuEventCreate", e))?;
        let r = RawEvent { ev, dev: dev.clone() };
        // SAFETY: `ev` was just created and `stream` is a live stream of the current context.
        unsafe { cu::event::record(r.ev, stream) }.map_err(|e| dev.err("cuEventRecord", e))?;
        Ok(r)
    }
    pub fn wait(&self) {
        let _ = self.dev.bind();
        // SAFETY: `ev` is live (destroyed only in `drop`).
        let _ = unsafe { cu::event::synchronize(self.ev) };
    }
    /// Whether the event has completed; an error counts as not completed (the event is kept
    /// and a later `wait` meets the error's state).
    pub fn done(&self) -> bool {
        // SAFETY: `ev` is live (destroyed only in `drop`).
        unsafe { completed(self.ev) }.unwrap_or(false)
    }
}

/// `cuEventQuery`: whether the work before `ev` has completed, or the driver's error.
///
/// # Safety
/// `ev` must be a live event.
pub(crate) unsafe fn completed(ev: sys::CUevent) -> std::result::Result<bool, cudarc::driver::DriverError> {
    // SAFETY: the caller's.
    match unsafe { sys::cuEventQuery(ev) } {
        sys::CUresult::CUDA_SUCCESS => Ok(true),
        sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        e => Err(cudarc::driver::DriverError(e)),
    }
}

impl Drop for RawEvent {
    fn drop(&mut self) {
        let _ = self.dev.bind();
        // SAFETY: `ev` was created in `record_current`, is destroyed only here and not used after.
        let _ = unsafe { cu::event::destroy(self.ev) };
    }
}

/// The asynchronous copies queued against one pinned host block (see `CpuStorage`): each an
/// event after the copy and whether the copy writes the block.
#[derive(Default)]
pub(crate) struct HostDma {
    any: std::sync::atomic::AtomicBool,
    list: std::sync::Mutex<Vec<(RawEvent, bool)>>,
}

impl HostDma {
    /// Records an event after a copy just queued on `dev`'s current stream. Inside a graph
    /// capture nothing is recorded: the graph's replays are the caller's to order.
    pub fn track(&self, dev: &Arc<CudaDevice>, writes: bool) -> Result<()> {
        if dev.with_stream(|s| Ok(s.is_capturing()))? {
            return Ok(());
        }
        let ev = RawEvent::record_current(dev)?;
        let mut l = self.list.lock().unwrap_or_else(|e| e.into_inner());
        l.push((ev, writes));
        self.any.store(true, std::sync::atomic::Ordering::Release);
        Ok(())
    }
    /// Waits for the copies a host access must follow: all of them before a write (or a
    /// free), those that write the block before a read.
    #[inline]
    pub fn settle(&self, write: bool) {
        if !self.any.load(std::sync::atomic::Ordering::Acquire) {
            return;
        }
        let mut l = self.list.lock().unwrap_or_else(|e| e.into_inner());
        l.retain(|(ev, w)| {
            if write || *w {
                ev.wait();
                false
            } else {
                !ev.done()
            }
        });
        self.any.store(!l.is_empty(), std::sync::atomic::Ordering::Release);
    }
}
