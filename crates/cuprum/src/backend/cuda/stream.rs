//! Streams: the device's default stream and user streams, the per-thread current-stream
//! scopes, and graph capture's bookkeeping.
//!
//! Every operation on a GPU runs on its device's *current stream*: the innermost scope this
//! thread entered ([`enter_scope`]) when that scope's stream belongs to the device, else the
//! device's default stream. An operation on a device whose stream is not the innermost scope's
//! is an error (CuPy's rule: arrays must be on the current device).
//!
//! Blocks across streams: a block belongs to the stream it was allocated on (its *home*);
//! [`dptr`](super::launch::dptr) calls `CudaStorage::note_use` for every address an operation
//! takes. Work on another stream waits (an event, on the GPU) for the home stream's queued work
//! and is noted; the home stream's next work waits for the noted streams'. The pool's rule
//! (`pool.rs`): when the block is freed, an event is recorded on each stream that used it and
//! on the home stream (once the device has more than one stream), and the block goes back to
//! the pool with them: the home stream reuses it after waiting on the other streams' events
//! (no host wait), another stream only once all its events have completed.

use super::CudaDevice;
use crate::core::device::Device;
use crate::core::error::{Error, Result};
use cudarc::driver::{result as cu, sys};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// A CUDA stream of one device. Id 0 is the device's default stream (it lives as long as the
/// process); user streams get ids from 1 and are destroyed when the last reference goes
/// (handles, scopes, and arrays allocated on them or used on them).
pub(crate) struct StreamInner {
    pub id: u64,
    pub raw: sys::CUstream,
    pub ordinal: usize,
    /// Set by [`Stream::destroy`](crate::cuda::Stream::destroy): the user may no longer use it.
    pub destroyed: AtomicBool,
    /// Set while a graph capture runs on this stream.
    pub capturing: AtomicBool,
    /// The home streams of the blocks a running capture reached (the graph orders each replay
    /// after their work, and their later work after the replay).
    pub(crate) capture_homes: Mutex<Vec<Arc<StreamInner>>>,
    /// Zeroed counters for split reductions (each launch's last block resets its own): one set
    /// per stream, so that reductions on two streams never share them.
    counters: OnceLock<(u64, usize)>,
    /// Resources made for this stream by the families (cuBLAS and cuSOLVER handles, cuFFT
    /// plans), released when the stream is.
    cleanup: Mutex<Vec<Box<dyn FnOnce() + Send>>>,
}

// SAFETY: `raw` is a driver handle (a raw pointer) owned by this value; the driver API is
// thread-safe, every use first makes the device's context current, and the handle is destroyed
// only in `drop`, when no reference remains. The other fields are atomics and mutexes.
unsafe impl Send for StreamInner {}
// SAFETY: as for `Send`: shared use only passes the handle to thread-safe driver calls.
unsafe impl Sync for StreamInner {}

/// Split-reduction counters per stream.
pub(crate) const COUNTERS: usize = 1 << 16;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl StreamInner {
    pub(super) fn default_for(ordinal: usize) -> Result<StreamInner> {
        let raw = cu::stream::create(cu::stream::StreamKind::NonBlocking)
            .map_err(|e| Error::Cuda(format!("creating a stream: {e:?}")))?;
        Ok(StreamInner::wrap(0, raw, ordinal))
    }

    fn wrap(id: u64, raw: sys::CUstream, ordinal: usize) -> StreamInner {
        StreamInner {
            id,
            raw,
            ordinal,
            destroyed: AtomicBool::new(false),
            capturing: AtomicBool::new(false),
            capture_homes: Mutex::new(Vec::new()),
            counters: OnceLock::new(),
            cleanup: Mutex::new(Vec::new()),
        }
    }

    /// A new non-blocking stream on `dev`.
    pub(crate) fn create(dev: &CudaDevice) -> Result<Arc<StreamInner>> {
        dev.bind()?;
        let raw = cu::stream::create(cu::stream::StreamKind::NonBlocking).map_err(|e| dev.err("cuStreamCreate", e))?;
        dev.multi.store(true, Ordering::Release);
        let s = Arc::new(StreamInner::wrap(NEXT_ID.fetch_add(1, Ordering::Relaxed), raw, dev.ordinal));
        {
            let mut all = dev.streams.lock().unwrap_or_else(|e| e.into_inner());
            all.retain(|w| w.strong_count() > 0);
            all.push(Arc::downgrade(&s));
        }
        // The counters now, while the stream cannot be capturing (their zeroing must run).
        s.counters(dev)?;
        Ok(s)
    }

    pub fn device(&self) -> Device {
        Device::Cuda(self.ordinal)
    }

    /// Registers `f` to run when this stream is released (for the default stream: never).
    pub(crate) fn on_release(&self, f: Box<dyn FnOnce() + Send>) {
        if self.id != 0 {
            self.cleanup.lock().unwrap_or_else(|e| e.into_inner()).push(f);
        }
    }

    /// Whether a graph capture runs on this stream.
    #[inline]
    pub(crate) fn is_capturing(&self) -> bool {
        self.capturing.load(Ordering::Acquire)
    }

    /// Errors when the user destroyed this stream.
    pub(crate) fn check_live(&self, what: &str) -> Result<()> {
        if self.destroyed.load(Ordering::Acquire) {
            return Err(Error::Value(format!("{what}: the stream was destroyed")));
        }
        Ok(())
    }

    /// Device pointer to [`COUNTERS`] zeroed `u32` counters of this stream.
    pub(crate) fn counters(&self, dev: &CudaDevice) -> Result<u64> {
        if let Some(p) = self.counters.get() {
            return Ok(p.0);
        }
        let (p, size) = dev.pool_alloc_on(COUNTERS * 4, self)?;
        dev.bind()?;
        // SAFETY: `p` holds at least COUNTERS * 4 bytes; the memset is ordered on this stream
        // before every kernel that uses the counters (they run on this stream too).
        unsafe { cu::memset_d8_async(p, 0, COUNTERS * 4, self.raw) }.map_err(|e| dev.err("cuMemsetD8", e))?;
        let kept = *self.counters.get_or_init(|| (p, size));
        if kept.0 != p {
            dev.pool_free(p, size, &dev.default_stream, &[]);
        }
        Ok(kept.0)
    }

    /// Waits for the work queued on this stream.
    pub(crate) fn synchronize(&self, dev: &CudaDevice) -> Result<()> {
        if self.is_capturing() {
            return Err(capture_sync_error());
        }
        dev.bind()?;
        // SAFETY: `raw` is live (destroyed only in `drop`); its context is current.
        unsafe { cu::stream::synchronize(self.raw) }.map_err(|e| dev.err("cuStreamSynchronize", e))
    }
}

pub(crate) fn capture_sync_error() -> Error {
    Error::Runtime(
        "a host synchronisation (reading values back, synchronize) is not allowed while a stream is \
         capturing a graph (cudaErrorStreamCaptureUnsupported)"
            .into(),
    )
}

impl Drop for StreamInner {
    fn drop(&mut self) {
        let Ok(dev) = CudaDevice::get(self.ordinal) else { return };
        if dev.bind().is_err() {
            return;
        }
        // No reference remains: wait for the stream's last work, release what the families
        // made for it, hand its cached pool blocks to the default stream, and destroy it.
        // SAFETY: `raw` is live until the destroy below.
        let _ = unsafe { cu::stream::synchronize(self.raw) };
        for f in std::mem::take(&mut *self.cleanup.lock().unwrap_or_else(|e| e.into_inner())) {
            f();
        }
        dev.pool_stream_released(self.id);
        if let Some(&(p, size)) = self.counters.get() {
            // Only this stream's kernels used the counters, and it was synchronised above.
            dev.pool_free(p, size, &dev.default_stream, &[]);
        }
        // SAFETY: no reference to the stream remains and its work has finished.
        let _ = unsafe { cu::stream::destroy(self.raw) };
    }
}

/// Adds `s` to `list` unless a handle to the same stream is there.
pub(crate) fn add_once(list: &mut Vec<Arc<StreamInner>>, s: &Arc<StreamInner>) {
    if !list.iter().any(|x| x.id == s.id) {
        list.push(s.clone());
    }
}

thread_local! {
    /// The current-stream scopes this thread entered, innermost last.
    static SCOPES: RefCell<Vec<Arc<StreamInner>>> = const { RefCell::new(Vec::new()) };
}

/// Whether a scope this thread is in belongs to a stream that is capturing a graph.
pub(crate) fn thread_is_capturing() -> bool {
    SCOPES.with(|v| v.borrow().iter().any(|s| s.is_capturing()))
}

/// Makes `s` the current stream of its device on this thread until [`exit_scope`].
pub(crate) fn enter_scope(s: Arc<StreamInner>) {
    SCOPES.with(|v| v.borrow_mut().push(s));
}

/// Leaves the innermost scope, which must be `id`'s (scopes nest).
pub(crate) fn exit_scope(id: u64) {
    SCOPES.with(|v| {
        let mut v = v.borrow_mut();
        if let Some(pos) = v.iter().rposition(|s| s.id == id) {
            v.remove(pos);
        }
    });
}

impl CudaDevice {
    /// Runs `f` with this thread's current stream of this device. An innermost scope of
    /// another device is an error (a DeviceMismatch).
    #[inline]
    pub(crate) fn with_stream<R>(&self, f: impl FnOnce(&Arc<StreamInner>) -> Result<R>) -> Result<R> {
        SCOPES.with(|v| {
            let v = v.borrow();
            match v.last() {
                None => f(&self.default_stream),
                Some(top) if top.ordinal == self.ordinal => f(top),
                Some(top) => Err(Error::DeviceMismatch {
                    op: "an operation inside the stream scope of another device".into(),
                    a: self.device(),
                    b: top.device(),
                }),
            }
        })
    }

    /// The current stream's handle (see [`with_stream`](Self::with_stream)).
    #[inline]
    pub(crate) fn stream(&self) -> Result<sys::CUstream> {
        self.with_stream(|s| Ok(s.raw))
    }

    /// The current stream.
    pub(crate) fn current_stream(&self) -> Result<Arc<StreamInner>> {
        self.with_stream(|s| Ok(s.clone()))
    }

    /// Waits for the work queued on the current stream (what a host read needs).
    pub fn sync_current(&self) -> Result<()> {
        self.with_stream(|s| s.synchronize(self))
    }
}
