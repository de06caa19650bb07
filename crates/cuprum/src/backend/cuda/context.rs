//! One context per GPU with its default stream (non-blocking), created on first use.

use super::copy::Staging;
use super::pool::Pool;
use crate::core::device::Device;
use crate::core::error::{Error, Result};
use cudarc::driver::{result as cu, sys, CudaContext};

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

fn driver_err(what: &str, e: cudarc::driver::DriverError) -> Error {
    if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        return Error::OutOfMemory { device: Device::Cuda(0), bytes: 0 };
    }
    Error::Cuda(format!("{what}: {e:?}"))
}

static DEVICE_COUNT: OnceLock<std::result::Result<usize, String>> = OnceLock::new();

fn probe() -> &'static std::result::Result<usize, String> {
    DEVICE_COUNT.get_or_init(|| {
        // Miri interprets Rust and cannot load a shared library: under it there is no GPU, and
        // the CPU backend runs alone (scripts/miri.sh).
        if cfg!(miri) {
            return Err("the CUDA driver cannot be loaded under Miri".into());
        }
        // SAFETY: only checks whether the shared library can be loaded.
        if !unsafe { sys::is_culib_present() } {
            return Err("the CUDA driver library (libcuda) was not found".into());
        }
        cu::init().map_err(|e| format!("cuInit failed: {e:?}"))?;
        let n = cu::device::get_count().map_err(|e| format!("cuDeviceGetCount failed: {e:?}"))?;
        Ok(n.max(0) as usize)
    })
}

pub(crate) fn device_count() -> usize {
    probe().as_ref().map(|n| *n).unwrap_or(0)
}

pub(crate) fn unavailable_reason() -> String {
    match probe() {
        Ok(0) => "the driver reports no CUDA devices".into(),
        Ok(_) => "available".into(),
        Err(e) => e.clone(),
    }
}

pub(crate) struct CudaDevice {
    pub ordinal: usize,
    pub(super) ctx: Arc<CudaContext>,
    /// Where work goes outside any stream scope (`Stream::null`).
    pub(crate) default_stream: Arc<super::stream::StreamInner>,
    /// Whether a user stream was ever created on this device (the pool then records an event
    /// on a block's home stream when it is freed).
    pub(crate) multi: AtomicBool,
    /// Graph captures running on this device's streams.
    pub(crate) captures: AtomicUsize,
    /// The user streams made on this device (for a device-wide wait while a capture runs).
    pub(crate) streams: Mutex<Vec<std::sync::Weak<super::stream::StreamInner>>>,
    pub arch: (i32, i32),
    pub sm_count: u32,
    /// The device's memory in bytes: a larger request is refused without asking the driver.
    pub(crate) total_mem: usize,
    pub(super) pool: Mutex<Pool>,
    pub(super) staging: Mutex<Option<Staging>>,
    pub(super) kernels: super::kernels::Cache,
}

static DEVICES: OnceLock<Vec<OnceLock<Arc<CudaDevice>>>> = OnceLock::new();

impl CudaDevice {
    /// The device `ordinal`, creating its context and stream on first use.
    pub fn get(ordinal: usize) -> Result<Arc<CudaDevice>> {
        let n = device_count();
        if ordinal >= n {
            return Err(Error::NoDevice(format!("cuda:{ordinal} ({})", unavailable_reason())));
        }
        let slots = DEVICES.get_or_init(|| (0..n).map(|_| OnceLock::new()).collect());
        if let Some(d) = slots[ordinal].get() {
            return Ok(d.clone());
        }
        let d = Arc::new(CudaDevice::create(ordinal)?);
        Ok(slots[ordinal].get_or_init(|| d).clone())
    }

    fn create(ordinal: usize) -> Result<CudaDevice> {
        let ctx = CudaContext::new(ordinal).map_err(|e| driver_err("creating the context", e))?;
        let arch = ctx.compute_capability().map_err(|e| driver_err("compute capability", e))?;
        let sm_count = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(|e| driver_err("multiprocessor count", e))? as u32;
        let total_mem = ctx.total_mem().map_err(|e| driver_err("total memory", e))?;
        ctx.bind_to_thread().map_err(|e| driver_err("binding the context", e))?;
        let default_stream = Arc::new(super::stream::StreamInner::default_for(ordinal)?);
        Ok(CudaDevice {
            ordinal,
            ctx,
            default_stream,
            multi: AtomicBool::new(false),
            captures: AtomicUsize::new(0),
            streams: Mutex::new(Vec::new()),
            arch,
            sm_count,
            total_mem,
            pool: Mutex::new(Pool::default()),
            staging: Mutex::new(None),
            kernels: Default::default(),
        })
    }

    pub fn device(&self) -> Device {
        Device::Cuda(self.ordinal)
    }

    /// Makes this device's context current on the calling thread.
    #[inline]
    pub fn bind(&self) -> Result<()> {
        self.ctx.bind_to_thread().map_err(|e| driver_err("binding the context", e))
    }

    /// Waits for all work queued on this device, on every stream (`cudaDeviceSynchronize`).
    pub fn synchronize(&self) -> Result<()> {
        if self.captures.load(Ordering::Acquire) > 0 {
            if super::stream::thread_is_capturing() {
                return Err(super::stream::capture_sync_error());
            }
            // Another thread is capturing: a context-wide wait would meet its stream; wait for
            // every other stream instead.
            let live: Vec<_> = {
                let v = self.streams.lock().unwrap_or_else(|e| e.into_inner());
                v.iter().filter_map(|w| w.upgrade()).collect()
            };
            self.default_stream.synchronize(self)?;
            for s in &live {
                if !s.is_capturing() {
                    s.synchronize(self)?;
                }
            }
            return Ok(());
        }
        self.bind()?;
        // SAFETY: a context-wide wait in the context made current by `bind`.
        unsafe { sys::cuCtxSynchronize() }.result().map_err(|e| self.err("cuCtxSynchronize", e))
    }

    pub(crate) fn err(&self, what: &str, e: cudarc::driver::DriverError) -> Error {
        match driver_err(what, e) {
            Error::OutOfMemory { bytes, .. } => Error::OutOfMemory { device: self.device(), bytes },
            other => other,
        }
    }

    /// Device pointer to at least `n` zeroed `u32` counters for split reductions, the current
    /// stream's (two streams never share them). Every reduction leaves them zero again.
    pub fn reduce_counters(&self, n: usize) -> Result<u64> {
        use super::stream::COUNTERS;
        if n > COUNTERS {
            return Err(Error::NotImplemented(format!("split reduction over {n} outputs (at most {COUNTERS})")));
        }
        self.with_stream(|s| s.counters(self))
    }

    /// A grid size for `n` work items of `per_block` each, capped to a few waves.
    pub fn grid_for(&self, n: usize, per_block: usize) -> u32 {
        let want = n.div_ceil(per_block.max(1));
        want.clamp(1, self.sm_count as usize * 32) as u32
    }
}
