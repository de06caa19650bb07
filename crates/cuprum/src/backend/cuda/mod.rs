//! The CUDA backend: one context and stream per GPU, a stream-ordered memory pool, pinned
//! staging for host copies, and NVRTC-compiled kernels cached in memory and on disk.
//!
//! Everything here goes through `cudarc`'s thin `result`/`sys` layers, loaded at run time, so
//! the crate builds on machines without CUDA and fails with a clear [`Error`] when no driver
//! is present.

pub(crate) mod codegen;
pub(crate) mod compile;
pub(crate) mod launch;
pub use compile::{cache_dir, nvrtc_compiles};

use crate::core::device::Device;
use crate::core::error::{Error, Result};
use cudarc::driver::{result as cu, sys, CudaContext};
use std::collections::{BTreeMap, HashMap};
use std::ffi::c_void;
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

/// Round-up granularity of pool blocks.
const POOL_ROUND: usize = 512;

#[derive(Default)]
struct Pool {
    /// Free blocks by size; reuse is safe because all work on this device is ordered by one
    /// stream, so a block freed after some launches is only reused by later launches.
    free: BTreeMap<usize, Vec<u64>>,
    in_use: usize,
    held: usize,
}

/// Memory pool statistics of one device, in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PoolStats {
    /// Bytes in blocks that arrays are using.
    pub in_use: usize,
    /// Bytes the pool holds from the driver (in use plus cached for reuse).
    pub held: usize,
}

struct Staging {
    bufs: [*mut u8; 2],
    events: [sys::CUevent; 2],
    pending: [bool; 2],
}
unsafe impl Send for Staging {}

pub(crate) const STAGING_BYTES: usize = 32 << 20;
/// Copies up to this size skip the staging buffers (the driver stages small pageable copies).
const DIRECT_COPY: usize = 1 << 20;

/// A small, fast hasher for the kernel map (keys are short and trusted): one multiply per
/// word, as rustc's FxHash.
#[derive(Default, Clone, Copy)]
pub(crate) struct Fx(u64);

impl std::hash::Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(*b as u64);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64)
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64)
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64)
    }
    fn write_isize(&mut self, i: isize) {
        self.write_u64(i as u64)
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

pub(crate) type BuildFx = std::hash::BuildHasherDefault<Fx>;

/// A compiled kernel function (its module stays loaded for the life of the process).
pub(crate) struct Kernel {
    pub func: sys::CUfunction,
    _module: ModuleHandle,
}

struct ModuleHandle(#[allow(dead_code)] sys::CUmodule);
unsafe impl Send for Kernel {}
unsafe impl Sync for Kernel {}

pub(crate) struct CudaDevice {
    pub ordinal: usize,
    ctx: Arc<CudaContext>,
    pub stream: sys::CUstream,
    pub arch: (i32, i32),
    pub sm_count: u32,
    pool: Mutex<Pool>,
    staging: Mutex<Option<Staging>>,
    kernels: Mutex<HashMap<codegen::ModKey, Arc<Kernel>, BuildFx>>,
    /// Zeroed counters for split reductions (each launch's last block resets its own).
    counters: OnceLock<u64>,
}
unsafe impl Send for CudaDevice {}
unsafe impl Sync for CudaDevice {}

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
        let stream =
            cu::stream::create(cu::stream::StreamKind::NonBlocking).map_err(|e| driver_err("creating a stream", e))?;
        Ok(CudaDevice {
            ordinal,
            ctx,
            stream,
            arch,
            sm_count,
            pool: Mutex::new(Pool::default()),
            staging: Mutex::new(None),
            kernels: Mutex::new(HashMap::default()),
            counters: OnceLock::new(),
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

    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        unsafe { cu::stream::synchronize(self.stream) }.map_err(|e| self.err("synchronize", e))
    }

    pub(crate) fn err(&self, what: &str, e: cudarc::driver::DriverError) -> Error {
        match driver_err(what, e) {
            Error::OutOfMemory { bytes, .. } => Error::OutOfMemory { device: self.device(), bytes },
            other => other,
        }
    }

    // ---------------------------------------------------------------- memory pool

    fn round(bytes: usize) -> usize {
        bytes.max(1).div_ceil(POOL_ROUND) * POOL_ROUND
    }

    /// A block of at least `bytes` bytes, from the pool's cache when one fits. Returns the
    /// pointer and the block's size (to be passed back to [`pool_free`](Self::pool_free)).
    pub fn pool_alloc(&self, bytes: usize) -> Result<(u64, usize)> {
        let size = Self::round(bytes);
        {
            let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
            // Best fit among cached blocks no more than 1/8 larger than needed.
            let limit = size + (size / 8).max(POOL_ROUND);
            let hit = p.free.range_mut(size..limit).find_map(|(&s, v)| v.pop().map(|ptr| (s, ptr)));
            if let Some((s, ptr)) = hit {
                // Empty size classes stay in the map: the next free of this size reuses them.
                p.in_use += s;
                return Ok((ptr, s));
            }
        }
        self.bind()?;
        let ptr = match unsafe { cu::malloc_sync(size) } {
            Ok(p) => p,
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                // Give every cached block back to the driver, then try once more.
                self.release_cached()?;
                unsafe { cu::malloc_sync(size) }.map_err(|e| match self.err("cuMemAlloc", e) {
                    Error::OutOfMemory { device, .. } => Error::OutOfMemory { device, bytes },
                    other => other,
                })?
            }
            Err(e) => return Err(self.err("cuMemAlloc", e)),
        };
        let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        p.in_use += size;
        p.held += size;
        Ok((ptr, size))
    }

    /// Returns a block from [`pool_alloc`](Self::pool_alloc) to the pool's cache.
    pub fn pool_free(&self, ptr: u64, size: usize) {
        let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        p.in_use = p.in_use.saturating_sub(size);
        p.free.entry(size).or_default().push(ptr);
    }

    /// Frees every cached block (after waiting for queued work that may still use them).
    pub fn release_cached(&self) -> Result<()> {
        self.synchronize()?;
        let blocks: Vec<(usize, Vec<u64>)> = {
            let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
            std::mem::take(&mut p.free).into_iter().collect()
        };
        let mut freed = 0;
        for (size, ptrs) in blocks {
            for ptr in ptrs {
                unsafe { cu::free_sync(ptr) }.map_err(|e| self.err("cuMemFree", e))?;
                freed += size;
            }
        }
        let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        p.held -= freed;
        Ok(())
    }

    pub fn pool_stats(&self) -> PoolStats {
        let p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        PoolStats { in_use: p.in_use, held: p.held }
    }

    pub fn memset_zero(&self, ptr: u64, bytes: usize) -> Result<()> {
        self.bind()?;
        unsafe { cu::memset_d8_async(ptr, 0, bytes, self.stream) }.map_err(|e| self.err("cuMemsetD8", e))
    }

    pub fn memcpy_dtod(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        self.bind()?;
        unsafe { cu::memcpy_dtod_async(dst, src, bytes, self.stream) }.map_err(|e| self.err("cuMemcpyDtoD", e))
    }

    // ---------------------------------------------------------------- host copies

    fn with_staging<R>(&self, f: impl FnOnce(&mut Staging) -> Result<R>) -> Result<R> {
        let mut g = self.staging.lock().unwrap_or_else(|e| e.into_inner());
        if g.is_none() {
            self.bind()?;
            let mut bufs = [std::ptr::null_mut(); 2];
            let mut events = [std::ptr::null_mut(); 2];
            for i in 0..2 {
                bufs[i] =
                    unsafe { cu::malloc_host(STAGING_BYTES, 0) }.map_err(|e| self.err("cuMemHostAlloc", e))? as *mut u8;
                events[i] = cu::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
                    .map_err(|e| self.err("cuEventCreate", e))?;
            }
            *g = Some(Staging { bufs, events, pending: [false; 2] });
        }
        f(g.as_mut().expect("staging initialised above"))
    }

    /// Copies host bytes to device memory. Small copies and pinned sources go directly;
    /// others through pinned staging buffers, overlapping the host-side copy of one chunk with
    /// the DMA of the previous one. Returns once `src` is no longer needed.
    pub fn htod(&self, dst: u64, src: &[u8], pinned: bool) -> Result<()> {
        if src.is_empty() {
            return Ok(());
        }
        self.bind()?;
        if pinned || src.len() <= DIRECT_COPY {
            unsafe {
                sys::cuMemcpyHtoDAsync_v2(dst, src.as_ptr() as *const c_void, src.len(), self.stream)
                    .result()
                    .map_err(|e| self.err("cuMemcpyHtoDAsync", e))?;
            }
            // A pinned source is read by the DMA engine later: wait, so the caller may reuse it.
            return if pinned { self.synchronize() } else { Ok(()) };
        }
        self.with_staging(|st| {
            for (i, chunk) in src.chunks(STAGING_BYTES).enumerate() {
                let b = i % 2;
                if st.pending[b] {
                    unsafe { cu::event::synchronize(st.events[b]) }.map_err(|e| self.err("cuEventSynchronize", e))?;
                    st.pending[b] = false;
                }
                let buf = unsafe { std::slice::from_raw_parts_mut(st.bufs[b], chunk.len()) };
                crate::backend::cpu::par_copy(buf, chunk);
                unsafe {
                    sys::cuMemcpyHtoDAsync_v2(
                        dst + (i * STAGING_BYTES) as u64,
                        buf.as_ptr() as *const c_void,
                        chunk.len(),
                        self.stream,
                    )
                    .result()
                    .map_err(|e| self.err("cuMemcpyHtoDAsync", e))?;
                    cu::event::record(st.events[b], self.stream).map_err(|e| self.err("cuEventRecord", e))?;
                }
                st.pending[b] = true;
            }
            Ok(())
        })
    }

    /// Copies device bytes into host memory (waits for the copy): directly into a pinned or
    /// small destination, else through the pinned staging buffers.
    pub fn dtoh(&self, dst: &mut [u8], src: u64, pinned: bool) -> Result<()> {
        if dst.is_empty() {
            return Ok(());
        }
        self.bind()?;
        if pinned || dst.len() <= DIRECT_COPY {
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(dst.as_mut_ptr() as *mut c_void, src, dst.len(), self.stream)
                    .result()
                    .map_err(|e| self.err("cuMemcpyDtoHAsync", e))?;
            }
            return self.synchronize();
        }
        self.with_staging(|st| {
            let n = dst.len();
            let nchunks = n.div_ceil(STAGING_BYTES);
            let issue = |st: &mut Staging, i: usize| -> Result<()> {
                let b = i % 2;
                let off = i * STAGING_BYTES;
                let len = STAGING_BYTES.min(n - off);
                unsafe {
                    sys::cuMemcpyDtoHAsync_v2(st.bufs[b] as *mut c_void, src + off as u64, len, self.stream)
                        .result()
                        .map_err(|e| self.err("cuMemcpyDtoHAsync", e))?;
                    cu::event::record(st.events[b], self.stream).map_err(|e| self.err("cuEventRecord", e))?;
                }
                st.pending[b] = true;
                Ok(())
            };
            // Any earlier host-to-device chunks still reading the buffers are ordered before these
            // copies on the same stream, so the buffers can be overwritten by the stream.
            issue(st, 0)?;
            for i in 0..nchunks {
                if i + 1 < nchunks {
                    issue(st, i + 1)?;
                }
                let b = i % 2;
                unsafe { cu::event::synchronize(st.events[b]) }.map_err(|e| self.err("cuEventSynchronize", e))?;
                st.pending[b] = false;
                let off = i * STAGING_BYTES;
                let len = STAGING_BYTES.min(n - off);
                let buf = unsafe { std::slice::from_raw_parts(st.bufs[b], len) };
                crate::backend::cpu::par_copy(&mut dst[off..off + len], buf);
            }
            Ok(())
        })
    }

    // ---------------------------------------------------------------- kernels

    /// The kernel of `key`, compiled (or read from the disk cache) on first use.
    pub fn kernel(&self, key: codegen::ModKey) -> Result<Arc<Kernel>> {
        if let Some(k) = self.kernels.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(k.clone());
        }
        // Compile without holding the lock: other threads may compile other kernels.
        let t = std::time::Instant::now();
        let src = key.source();
        let cubin = compile::cubin_for(&src, self.arch)?;
        self.bind()?;
        let module = unsafe { cu::module::load_data(cubin.as_ptr() as *const c_void) }
            .map_err(|e| self.err("cuModuleLoadData", e))?;
        let cname = std::ffi::CString::new(key.name()).map_err(|_| Error::InvalidArgument("kernel name".into()))?;
        let func =
            unsafe { cu::module::get_function(module, cname) }.map_err(|e| self.err("cuModuleGetFunction", e))?;
        if std::env::var_os("CUPRUM_LOG_KERNELS").is_some() {
            eprintln!("cuprum: kernel {:?} ready in {:.1} ms", key, t.elapsed().as_secs_f64() * 1e3);
        }
        let mut map = self.kernels.lock().unwrap_or_else(|e| e.into_inner());
        // Another thread may have loaded the same kernel meanwhile: keep the first.
        let k = map.entry(key).or_insert_with(|| Arc::new(Kernel { func, _module: ModuleHandle(module) })).clone();
        Ok(k)
    }

    /// Launches `k` on this device's stream.
    ///
    /// # Safety
    /// `params` must match the kernel's parameter list, and every pointer in them must stay
    /// valid until the stream has run the kernel.
    pub unsafe fn launch(
        &self,
        k: &Kernel,
        grid: u32,
        block: u32,
        shmem: u32,
        params: &mut [*mut c_void],
    ) -> Result<()> {
        self.bind()?;
        cu::launch_kernel(k.func, (grid.max(1), 1, 1), (block, 1, 1), shmem, self.stream, params)
            .map_err(|e| self.err("cuLaunchKernel", e))
    }

    /// Device pointer to at least `n` zeroed `u32` counters for split reductions. They live
    /// as long as the device; every reduction leaves them zero again.
    pub fn reduce_counters(&self, n: usize) -> Result<u64> {
        const COUNTERS: usize = 1 << 16;
        if n > COUNTERS {
            return Err(Error::InvalidArgument(format!("split reduction over {n} outputs (at most {COUNTERS})")));
        }
        if let Some(p) = self.counters.get() {
            return Ok(*p);
        }
        let (p, block) = self.pool_alloc(COUNTERS * 4)?;
        self.memset_zero(p, COUNTERS * 4)?;
        // Held for the life of the process (never returned to the pool).
        let kept = *self.counters.get_or_init(|| p);
        if kept != p {
            self.pool_free(p, block);
        }
        Ok(kept)
    }

    /// A grid size for `n` work items of `per_block` each, capped to a few waves.
    pub fn grid_for(&self, n: usize, per_block: usize) -> u32 {
        let want = n.div_ceil(per_block.max(1));
        want.clamp(1, self.sm_count as usize * 32) as u32
    }
}

/// Page-locks host memory for direct DMA (all contexts). False when no driver is present or
/// the driver refuses.
pub(crate) fn host_register(ptr: *mut u8, bytes: usize) -> bool {
    if device_count() == 0 {
        return false;
    }
    let Ok(dev) = CudaDevice::get(0) else { return false };
    if dev.bind().is_err() {
        return false;
    }
    unsafe { sys::cuMemHostRegister_v2(ptr as *mut c_void, bytes, sys::CU_MEMHOSTREGISTER_PORTABLE) }.result().is_ok()
}

pub(crate) fn host_unregister(ptr: *mut u8) {
    if let Ok(dev) = CudaDevice::get(0) {
        let _ = dev.bind();
        let _ = unsafe { sys::cuMemHostUnregister(ptr as *mut c_void) };
    }
}

/// Memory-pool statistics of a GPU.
pub fn pool_stats(device: Device) -> Result<PoolStats> {
    match device {
        Device::Cuda(n) => Ok(CudaDevice::get(n)?.pool_stats()),
        Device::Cpu => Err(Error::InvalidArgument("the CPU has no device memory pool".into())),
    }
}

/// Frees the blocks a device's pool keeps cached for reuse (on the CPU: the large host blocks
/// kept for reuse and pinned for copies).
pub fn release_cached(device: Device) -> Result<()> {
    match device {
        Device::Cuda(n) => CudaDevice::get(n)?.release_cached(),
        Device::Cpu => {
            crate::backend::storage::release_host_pool();
            Ok(())
        }
    }
}

/// A CUDA event recorded on a device's stream (for timing GPU work).
pub struct Event {
    ev: sys::CUevent,
    dev: Arc<CudaDevice>,
}
unsafe impl Send for Event {}
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
        unsafe { cu::event::record(self.ev, self.dev.stream) }.map_err(|e| self.dev.err("cuEventRecord", e))
    }
    /// Waits until the work before the event has finished.
    pub fn synchronize(&self) -> Result<()> {
        unsafe { cu::event::synchronize(self.ev) }.map_err(|e| self.dev.err("cuEventSynchronize", e))
    }
    /// Milliseconds between `start` and this event (both recorded and finished).
    pub fn elapsed_ms_since(&self, start: &Event) -> Result<f32> {
        unsafe { cu::event::elapsed(start.ev, self.ev) }.map_err(|e| self.dev.err("cuEventElapsedTime", e))
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        let _ = self.dev.bind();
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
