//! The stream-ordered device memory pool: best-fit cached blocks, reused across streams only
//! after the events of their last uses (see `stream.rs`), released and retried on
//! out-of-memory.

use super::stream::StreamInner;
use super::CudaDevice;
use crate::core::device::Device;
use crate::core::error::{Error, Result};
use cudarc::driver::{result as cu, sys};
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Round-up granularity of pool blocks.
const POOL_ROUND: usize = 512;

/// A cached block and what its next user must wait for (see `stream.rs`, "Memory across
/// streams").
struct Free {
    ptr: u64,
    /// The stream the block was allocated on: its work on the block is ordered before any
    /// later work of that stream, so that stream may reuse it at once.
    home: u64,
    /// Recorded on the home stream when the block was freed (once the device has user streams):
    /// another stream may take the block when it has completed.
    ready: Option<sys::CUevent>,
    /// Recorded on each other stream that used the block, when it was freed: the next user
    /// waits on them (the home stream without a host wait, `cuStreamWaitEvent`).
    after: Vec<sys::CUevent>,
}

#[derive(Default)]
pub(crate) struct Pool {
    free: BTreeMap<usize, Vec<Free>>,
    /// Events no longer needed, kept for reuse (created without timing).
    spare: Vec<sys::CUevent>,
    /// Blocks freed while a graph capture that may use them runs, handed to the graph (its
    /// replays reuse them) or back to the pool if the capture fails.
    captured: Vec<Captured>,
    in_use: usize,
    held: usize,
}
// SAFETY: the events are driver handles owned by the pool alone (used and destroyed only under
// the device's pool mutex or after being taken out of it); the driver API is thread-safe.
unsafe impl Send for Pool {}

/// A block freed during a capture on stream `stream`, with its home and the streams that used it.
pub(crate) struct Captured {
    pub stream: u64,
    pub ptr: u64,
    pub size: usize,
    pub home: Arc<StreamInner>,
    pub used: Vec<Arc<StreamInner>>,
}

/// Memory pool statistics of one device, in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PoolStats {
    /// Bytes in blocks that arrays are using.
    pub in_use: usize,
    /// Bytes the pool holds from the driver (in use plus cached for reuse).
    pub held: usize,
}

/// Whether `ev` has completed (an error counts as not complete: the block stays cached).
fn done(ev: sys::CUevent) -> bool {
    // SAFETY: `ev` is a live event owned by the pool.
    unsafe { super::event::completed(ev) }.unwrap_or(false)
}

impl CudaDevice {
    // ---------------------------------------------------------------- memory pool

    fn round(bytes: usize) -> usize {
        bytes.max(1).div_ceil(POOL_ROUND) * POOL_ROUND
    }

    /// An event for the pool (recycled), recorded on `stream`.
    fn pool_event(&self, p: &mut Pool, stream: sys::CUstream) -> Result<sys::CUevent> {
        let ev = match p.spare.pop() {
            Some(e) => e,
            None => cu::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
                .map_err(|e| self.err("cuEventCreate", e))?,
        };
        // SAFETY: `ev` is a live event and `stream` a live stream of this device (the caller
        // holds a reference to it); the context is current (the callers `bind`).
        unsafe { cu::event::record(ev, stream) }.map_err(|e| self.err("cuEventRecord", e))?;
        Ok(ev)
    }

    /// Makes later work on the raw stream `waiter` wait (on the GPU) for the work queued so far
    /// on the raw stream `producer` (either may be another library's, or CUDA's legacy or
    /// per-thread default stream: `CU_STREAM_LEGACY`, `CU_STREAM_PER_THREAD`).
    ///
    /// # Safety
    /// Both handles must be live streams of this device's context (or the two special handles).
    pub(crate) unsafe fn order_raw(&self, waiter: sys::CUstream, producer: sys::CUstream) -> Result<()> {
        self.bind()?;
        let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        let ev = self.pool_event(&mut p, producer)?;
        // SAFETY: `ev` was just recorded on `producer`; `waiter` is live (the caller's promise).
        let r = unsafe { sys::cuStreamWaitEvent(waiter, ev, 0) }.result();
        p.spare.push(ev);
        r.map_err(|e| self.err("cuStreamWaitEvent", e))
    }

    /// Makes later work on `waiter` wait (on the GPU) for the work queued so far on `producer`.
    pub(crate) fn order_after(&self, waiter: &StreamInner, producer: &StreamInner) -> Result<()> {
        self.bind()?;
        let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        let ev = self.pool_event(&mut p, producer.raw)?;
        // SAFETY: `ev` was just recorded on `producer`; `waiter` is a live stream of this device
        // (the caller holds it). The wait takes the event's state now, so the event can be
        // recorded again at once (it goes back to the spare list).
        let r = unsafe { sys::cuStreamWaitEvent(waiter.raw, ev, 0) }.result();
        p.spare.push(ev);
        r.map_err(|e| self.err("cuStreamWaitEvent", e))
    }

    /// A block of at least `bytes` bytes for work on the current stream, from the pool's cache
    /// when one fits. Returns the pointer, the block's size and the stream (the block's home,
    /// to be passed back to [`pool_free`](Self::pool_free)).
    pub fn pool_alloc(&self, bytes: usize) -> Result<(u64, usize, Arc<StreamInner>)> {
        let s = self.current_stream()?;
        let (ptr, size) = self.pool_alloc_on(bytes, &s)?;
        Ok((ptr, size, s))
    }

    /// As [`pool_alloc`](Self::pool_alloc), for work on `s`.
    pub(crate) fn pool_alloc_on(&self, bytes: usize, s: &StreamInner) -> Result<(u64, usize)> {
        if bytes > self.total_mem {
            // More than the device has: NumPy's MemoryError at once (no failing driver call, no
            // release of the cache for a request that cannot fit anyway).
            return Err(Error::OutOfMemory { device: self.device(), bytes });
        }
        let size = Self::round(bytes);
        let capturing = s.is_capturing();
        {
            let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
            // Best fit among cached blocks no more than 1/8 larger than needed: first the
            // stream's own, then (outside a capture) another stream's whose events completed.
            let limit = size + (size / 8).max(POOL_ROUND);
            let mut hit = None;
            for (&sz, v) in p.free.range(size..limit) {
                if let Some(k) = v.iter().rposition(|f| f.home == s.id && (!capturing || f.after.is_empty())) {
                    hit = Some((sz, k));
                    break;
                }
            }
            if hit.is_none() && !capturing {
                'outer: for (&sz, v) in p.free.range(size..limit) {
                    for (k, f) in v.iter().enumerate().rev() {
                        if f.ready.is_some_and(done) && f.after.iter().all(|&e| done(e)) {
                            hit = Some((sz, k));
                            break 'outer;
                        }
                    }
                }
            }
            if let Some((sz, k)) = hit {
                // Empty size classes stay in the map: the next free of this size reuses them.
                let f = p.free.get_mut(&sz).expect("found above").swap_remove(k);
                p.in_use += sz;
                if !f.after.is_empty() {
                    self.bind()?;
                }
                for &e in &f.after {
                    // SAFETY: `e` is a live pool event and `s.raw` a live stream of this device
                    // (the caller holds it); the wait is queued, not a host wait.
                    unsafe { sys::cuStreamWaitEvent(s.raw, e, 0) }
                        .result()
                        .map_err(|e| self.err("cuStreamWaitEvent", e))?;
                }
                p.spare.extend(f.after);
                p.spare.extend(f.ready);
                return Ok((f.ptr, sz));
            }
        }
        self.bind()?;
        // SAFETY: a plain device allocation in the context made current by `bind`.
        let ptr = match unsafe { cu::malloc_sync(size) } {
            Ok(p) => p,
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY && !capturing => {
                // Give every cached block back to the driver, then try once more.
                self.release_cached()?;
                // SAFETY: as above (`release_cached` leaves this device's context current).
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

    /// Returns a block from [`pool_alloc`](Self::pool_alloc) to the pool's cache: `home` is the
    /// stream it was allocated on, `used` the other streams that reached it.
    pub(crate) fn pool_free(&self, ptr: u64, size: usize, home: &Arc<StreamInner>, used: &[Arc<StreamInner>]) {
        let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        if self.captures.load(Ordering::Acquire) > 0 {
            // A capture may have used the block: the graph keeps it (its replays write it).
            let cap = std::iter::once(home).chain(used).find(|s| s.is_capturing());
            if let Some(c) = cap {
                let stream = c.id;
                p.captured.push(Captured { stream, ptr, size, home: home.clone(), used: used.to_vec() });
                return;
            }
        }
        p.in_use = p.in_use.saturating_sub(size);
        let ev = |p: &mut Pool, raw| {
            if self.bind().is_err() {
                return None;
            }
            self.pool_event(p, raw).ok()
        };
        let ready = if self.multi.load(Ordering::Acquire) { ev(&mut p, home.raw) } else { None };
        let mut after = Vec::new();
        for u in used {
            match ev(&mut p, u.raw) {
                Some(e) => after.push(e),
                None => {
                    // The event could not be recorded: wait for the stream instead.
                    let _ = u.synchronize(self);
                }
            }
        }
        p.free.entry(size).or_default().push(Free { ptr, home: home.id, ready, after });
    }

    /// The blocks a capture on stream `id` kept (freed while it ran).
    pub(crate) fn pool_take_captured(&self, id: u64) -> Vec<Captured> {
        let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut p.captured).into_iter().partition(|c| c.stream == id);
        p.captured = rest;
        mine
    }

    /// Returns a block a capture kept: ordered after its home stream's work, the streams that
    /// used it and the capture stream `s` (the graph's replays).
    pub(crate) fn pool_free_captured(&self, c: Captured, s: &Arc<StreamInner>) {
        let mut used = c.used;
        if c.home.id != s.id {
            super::stream::add_once(&mut used, s);
        }
        self.pool_free(c.ptr, c.size, &c.home, &used);
    }

    /// Stream `id` is being destroyed (its work has finished): its cached blocks become the
    /// default stream's.
    pub(crate) fn pool_stream_released(&self, id: u64) {
        let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        for v in p.free.values_mut() {
            for f in v.iter_mut().filter(|f| f.home == id) {
                f.home = 0;
            }
        }
    }

    /// Frees every cached block (after waiting for queued work that may still use them).
    pub fn release_cached(&self) -> Result<()> {
        self.synchronize()?;
        let (blocks, events): (Vec<(usize, Vec<Free>)>, Vec<sys::CUevent>) = {
            let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
            (std::mem::take(&mut p.free).into_iter().collect(), std::mem::take(&mut p.spare))
        };
        let mut freed = 0;
        for ev in events {
            // SAFETY: a spare event, owned by the pool and used by no one.
            let _ = unsafe { cu::event::destroy(ev) };
        }
        for (size, list) in blocks {
            for f in list {
                for ev in f.ready.into_iter().chain(f.after) {
                    // SAFETY: the block's events belong to the pool alone; the device was
                    // synchronised, so they have completed.
                    let _ = unsafe { cu::event::destroy(ev) };
                }
                // SAFETY: a cached block is owned by no array (it was taken out of the free list
                // above, so no allocation can hand it out), and the device was synchronised
                // first, so no queued work still uses it.
                unsafe { cu::free_sync(f.ptr) }.map_err(|e| self.err("cuMemFree", e))?;
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
        // SAFETY: the caller passes `bytes` bytes of one of this device's pool blocks; the write
        // is ordered on the current stream with every other use of the block.
        unsafe { cu::memset_d8_async(ptr, 0, bytes, self.stream()?) }.map_err(|e| self.err("cuMemsetD8", e))
    }

    /// Sets `bytes` bytes at `ptr` to `value` (0xFF fills integers with all ones: -1, or the
    /// largest unsigned value).
    pub fn memset_u8(&self, ptr: u64, value: u8, bytes: usize) -> Result<()> {
        self.bind()?;
        // SAFETY: as for `memset_zero`.
        unsafe { cu::memset_d8_async(ptr, value, bytes, self.stream()?) }.map_err(|e| self.err("cuMemsetD8", e))
    }

    pub fn memcpy_dtod(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        self.bind()?;
        // SAFETY: the caller passes `bytes`-byte ranges of this device's pool blocks; the copy is
        // ordered on the stream with every other use of them.
        unsafe { cu::memcpy_dtod_async(dst, src, bytes, self.stream()?) }.map_err(|e| self.err("cuMemcpyDtoD", e))
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
