//! Host <-> device copies: direct for small or page-locked buffers, else through two pinned
//! staging buffers that overlap the host-side copy of one chunk with the DMA of the previous.

use super::CudaDevice;
use crate::core::error::Result;
use cudarc::driver::{result as cu, sys};
use std::ffi::c_void;

pub(crate) struct Staging {
    bufs: [*mut u8; 2],
    events: [sys::CUevent; 2],
    pending: [bool; 2],
}
// SAFETY: the buffers are page-locked host allocations and events owned by this value alone
// (never freed: they live as long as the device); it is only reached through the device's
// `staging` mutex, so one thread at a time uses them.
unsafe impl Send for Staging {}

pub(crate) const STAGING_BYTES: usize = 32 << 20;
/// Copies up to this size skip the staging buffers (the driver stages small pageable copies).
const DIRECT_COPY: usize = 1 << 20;

impl CudaDevice {
    // ---------------------------------------------------------------- host copies

    fn with_staging<R>(&self, f: impl FnOnce(&mut Staging) -> Result<R>) -> Result<R> {
        let mut g = self.staging.lock().unwrap_or_else(|e| e.into_inner());
        if g.is_none() {
            self.bind()?;
            let mut bufs = [std::ptr::null_mut(); 2];
            let mut events = [std::ptr::null_mut(); 2];
            for i in 0..2 {
                // SAFETY: a plain allocation of page-locked host memory in the current context.
                bufs[i] =
                    unsafe { cu::malloc_host(STAGING_BYTES, 0) }.map_err(|e| self.err("cuMemHostAlloc", e))? as *mut u8;
                events[i] = cu::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
                    .map_err(|e| self.err("cuEventCreate", e))?;
            }
            *g = Some(Staging { bufs, events, pending: [false; 2] });
        }
        f(g.as_mut().expect("staging initialised above"))
    }

    /// Copies host bytes to device memory on the current stream. Small copies and pinned
    /// sources go directly; others through pinned staging buffers, overlapping the host-side
    /// copy of one chunk with the DMA of the previous one. Returns once `src` is no longer
    /// needed, except for a pinned source: the DMA reads it later, and the caller keeps it
    /// alive and unwritten until the stream has run the copy (`CpuStorage::track_dma`).
    pub fn htod(&self, dst: u64, src: &[u8], pinned: bool) -> Result<()> {
        if src.is_empty() {
            return Ok(());
        }
        self.bind()?;
        let stream = self.stream()?;
        if pinned || src.len() <= DIRECT_COPY {
            // SAFETY: `src` is a live slice of `src.len()` bytes and `dst` a device block of at
            // least as many (the caller's array). A pageable source is staged by the driver
            // before the call returns; a pinned one stays alive and unwritten until the stream
            // has run the copy (the caller's contract above).
            unsafe {
                sys::cuMemcpyHtoDAsync_v2(dst, src.as_ptr() as *const c_void, src.len(), stream)
                    .result()
                    .map_err(|e| self.err("cuMemcpyHtoDAsync", e))?;
            }
            return Ok(());
        }
        self.with_staging(|st| {
            for (i, chunk) in src.chunks(STAGING_BYTES).enumerate() {
                let b = i % 2;
                if st.pending[b] {
                    // SAFETY: `events[b]` is a live event of the staging set (never destroyed).
                    unsafe { cu::event::synchronize(st.events[b]) }.map_err(|e| self.err("cuEventSynchronize", e))?;
                    st.pending[b] = false;
                }
                // SAFETY: staging buffer `b` holds STAGING_BYTES >= `chunk.len()` bytes; the copy
                // that last read it has finished (its event was waited for above), and the
                // staging mutex makes it ours alone. Its bytes are treated as initialised: pinned
                // pages from the driver, zero-filled by the OS or holding earlier chunks.
                let buf = unsafe { std::slice::from_raw_parts_mut(st.bufs[b], chunk.len()) };
                crate::backend::cpu::par_copy(buf, chunk);
                // SAFETY: `buf` is pinned and stays untouched by the host until the event recorded
                // after the copy has completed (`pending[b]`); the destination range lies within
                // the `src.len()` bytes of `dst`.
                unsafe {
                    sys::cuMemcpyHtoDAsync_v2(
                        dst + (i * STAGING_BYTES) as u64,
                        buf.as_ptr() as *const c_void,
                        chunk.len(),
                        stream,
                    )
                    .result()
                    .map_err(|e| self.err("cuMemcpyHtoDAsync", e))?;
                    cu::event::record(st.events[b], stream).map_err(|e| self.err("cuEventRecord", e))?;
                }
                st.pending[b] = true;
            }
            Ok(())
        })
    }

    /// Copies device bytes into page-locked host memory on the current stream without waiting:
    /// the caller keeps `dst` alive and unread until the stream has run the copy
    /// (`CpuStorage::track_dma`).
    ///
    /// # Safety
    /// `dst` must be `len` bytes of a pinned host block that nothing reads or writes until the
    /// stream has run the copy, and `src` a device range of as many bytes.
    pub unsafe fn dtoh_async(&self, dst: *mut u8, src: u64, len: usize) -> Result<()> {
        if len == 0 {
            return Ok(());
        }
        self.bind()?;
        let stream = self.stream()?;
        // SAFETY: the caller's contract.
        unsafe { sys::cuMemcpyDtoHAsync_v2(dst as *mut c_void, src, len, stream) }
            .result()
            .map_err(|e| self.err("cuMemcpyDtoHAsync", e))
    }

    /// Copies device bytes into host memory (waits for the copy, that is for the current
    /// stream): directly into a pinned or small destination, else through the pinned staging
    /// buffers.
    pub fn dtoh(&self, dst: &mut [u8], src: u64, pinned: bool) -> Result<()> {
        if dst.is_empty() {
            return Ok(());
        }
        self.bind()?;
        let stream =
            self.with_stream(|s| if s.is_capturing() { Err(super::stream::capture_sync_error()) } else { Ok(s.raw) })?;
        if pinned || dst.len() <= DIRECT_COPY {
            // SAFETY: `dst` is a live, exclusively borrowed slice of `dst.len()` bytes, and the
            // stream is synchronised before returning, so the DMA ends while the borrow lasts;
            // `src` is a device range of as many bytes (the caller's array).
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(dst.as_mut_ptr() as *mut c_void, src, dst.len(), stream)
                    .result()
                    .map_err(|e| self.err("cuMemcpyDtoHAsync", e))?;
            }
            return self.sync_current();
        }
        self.with_staging(|st| {
            let n = dst.len();
            let nchunks = n.div_ceil(STAGING_BYTES);
            let issue = |st: &mut Staging, i: usize| -> Result<()> {
                let b = i % 2;
                let off = i * STAGING_BYTES;
                let len = STAGING_BYTES.min(n - off);
                // SAFETY: buffer `b` is pinned and holds STAGING_BYTES >= `len` bytes; the host
                // does not touch it until the event recorded here has completed, and earlier
                // device reads of it have completed (waited for above).
                unsafe {
                    sys::cuMemcpyDtoHAsync_v2(st.bufs[b] as *mut c_void, src + off as u64, len, stream)
                        .result()
                        .map_err(|e| self.err("cuMemcpyDtoHAsync", e))?;
                    cu::event::record(st.events[b], stream).map_err(|e| self.err("cuEventRecord", e))?;
                }
                st.pending[b] = true;
                Ok(())
            };
            // Earlier host-to-device chunks still reading the buffers (perhaps on another stream)
            // must finish before the buffers are overwritten.
            for b in 0..2 {
                if st.pending[b] {
                    // SAFETY: `events[b]` is a live event of the staging set (never destroyed).
                    unsafe { cu::event::synchronize(st.events[b]) }.map_err(|e| self.err("cuEventSynchronize", e))?;
                    st.pending[b] = false;
                }
            }
            issue(st, 0)?;
            for i in 0..nchunks {
                if i + 1 < nchunks {
                    issue(st, i + 1)?;
                }
                let b = i % 2;
                // SAFETY: `events[b]` is a live event of the staging set (never destroyed).
                unsafe { cu::event::synchronize(st.events[b]) }.map_err(|e| self.err("cuEventSynchronize", e))?;
                st.pending[b] = false;
                let off = i * STAGING_BYTES;
                let len = STAGING_BYTES.min(n - off);
                // SAFETY: the copy into buffer `b` (`len` bytes) has completed (event waited for
                // above) and the next copy targets the other buffer, so nothing writes these
                // bytes while the slice lives.
                let buf = unsafe { std::slice::from_raw_parts(st.bufs[b], len) };
                crate::backend::cpu::par_copy(&mut dst[off..off + len], buf);
            }
            Ok(())
        })
    }
}

/// Page-locks host memory for direct DMA (all contexts). False when no driver is present or
/// the driver refuses.
pub(crate) fn host_register(ptr: *mut u8, bytes: usize) -> bool {
    if super::device_count() == 0 {
        return false;
    }
    let Ok(dev) = CudaDevice::get(0) else { return false };
    if dev.bind().is_err() {
        return false;
    }
    // SAFETY: callers pass a live host allocation of `bytes` bytes (a pooled host block), which
    // is unregistered before it is freed (`storage::free_block`); registering only pins pages.
    unsafe { sys::cuMemHostRegister_v2(ptr as *mut c_void, bytes, sys::CU_MEMHOSTREGISTER_PORTABLE) }.result().is_ok()
}

pub(crate) fn host_unregister(ptr: *mut u8) {
    if let Ok(dev) = CudaDevice::get(0) {
        let _ = dev.bind();
        // SAFETY: callers pass a block registered by `host_register` that is still allocated;
        // the driver reports an error for anything else.
        let _ = unsafe { sys::cuMemHostUnregister(ptr as *mut c_void) };
    }
}
