//! `cupy.cuda`: streams, events, graphs, the GPU's memory pool, the kernel cache, device
//! names.
//!
//! # Streams
//! Every GPU operation (cuprum's kernels, host copies, cuBLAS, cuSOLVER and cuFFT calls, user
//! kernels, pool allocations and frees) runs on its device's *current stream*: the innermost
//! [`Stream::scope`] (or [`Stream::enter`] guard) of this thread, else the device's default
//! stream ([`Stream::null`]). Work on different streams may overlap; work on one stream runs
//! in order. Host reads (`to_vec`, printing, `item`) wait for the current stream only.
//!
//! ```no_run
//! use cuprum::cuda::{get_current_stream, Event, Stream};
//! use cuprum::{DType, Device};
//! let gpu = Device::Cuda(0);
//! let a = cuprum::random::default_rng(1)?.on(&gpu).random(&[2000, 2000], DType::Float32)?;
//! let (s1, s2) = (Stream::new(gpu)?, Stream::new(gpu)?);
//! let c1 = s1.scope(|| cuprum::linalg::inv(&a))?;
//! let c2 = s2.scope(|| {
//!     assert_eq!(get_current_stream(gpu)?, s2);
//!     cuprum::linalg::inv(&a)
//! })?;
//! let done = s1.record()?; // an event after s1's inversion
//! Stream::null(gpu)?.wait_event(&done)?; // the default stream waits for it, not the host
//! s2.synchronize()?;
//! # drop((c1, c2));
//! # Ok::<(), cuprum::Error>(())
//! ```
//!
//! # Arrays across streams
//! An array's block belongs to the stream it was allocated on (its *home*). Work on it from
//! another stream is queued after the home stream's work so far, and the home stream's next
//! work on it after the other streams' (events on the GPU, no host wait): an array made on one
//! stream can be read on another, or on the host, without events. Two other streams working
//! on one array are not ordered between themselves (both may read it at once, as two
//! inversions of one matrix do); order a write on one and a read on the other with an
//! [`Event`] ([`Stream::wait_event`]).
//!
//! When the array goes, the pool reuses the block on its home stream after waiting (on the
//! GPU) for the other streams that used it, and on another stream only once all that work has
//! finished, so a block is never handed out while queued work still uses it. A stream lives
//! as long as its handles and the arrays allocated or used on it.
//!
//! # Pinned memory and asynchronous copies
//! [`empty_pinned`](crate::empty_pinned) and [`Array::pinned`](crate::Array::pinned) make
//! page-locked host arrays. A copy from one to the GPU (`to_device`, `copy_from`) and a
//! [`copy_from`](crate::Array::copy_from) from the GPU into one are queued on the current
//! stream without a host wait; the host array then waits for the copy before it is written
//! (or, for a copy into it, read) or freed.

pub use crate::backend::cuda::graph::Graph;
use crate::backend::cuda::stream::{enter_scope, exit_scope, StreamInner};
use crate::backend::cuda::CudaDevice;
pub use crate::backend::cuda::{
    cache_dir, device_name, get_elapsed_time, nvrtc_compiles, pool_stats, release_cached, Event, PoolStats,
};
use crate::core::device::Device;
use crate::core::error::{Error, Result};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A CUDA stream of one device (`cupy.cuda.Stream`); clones are handles to the same stream.
#[derive(Clone)]
pub struct Stream {
    inner: Arc<StreamInner>,
}

impl PartialEq for Stream {
    fn eq(&self, other: &Stream) -> bool {
        self.inner.ordinal == other.inner.ordinal && self.inner.id == other.inner.id
    }
}
impl Eq for Stream {}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.inner.id == 0 {
            write!(f, "<Stream null (cuda:{})>", self.inner.ordinal)
        } else {
            write!(f, "<Stream {} (cuda:{})>", self.inner.id, self.inner.ordinal)
        }
    }
}

fn cuda_device(device: Device, what: &str) -> Result<Arc<CudaDevice>> {
    match device {
        Device::Cuda(n) => CudaDevice::get(n),
        Device::Cpu => Err(Error::InvalidArgument(format!("{what}: streams exist only on CUDA devices"))),
    }
}

impl Stream {
    /// A new stream on `device` that does not synchronise with the default stream
    /// (`cupy.cuda.Stream(non_blocking=True)`).
    pub fn new(device: Device) -> Result<Stream> {
        let dev = cuda_device(device, "Stream::new")?;
        Ok(Stream { inner: StreamInner::create(&dev)? })
    }

    /// The device's default stream: where work goes outside any scope (CuPy's
    /// `Stream.null`). Unlike CUDA's legacy NULL stream it does not wait for other streams:
    /// order them with events.
    pub fn null(device: Device) -> Result<Stream> {
        let dev = cuda_device(device, "Stream::null")?;
        Ok(Stream { inner: dev.default_stream.clone() })
    }

    pub(crate) fn from_inner(inner: Arc<StreamInner>) -> Stream {
        Stream { inner }
    }
    pub(crate) fn inner(&self) -> &Arc<StreamInner> {
        &self.inner
    }

    /// The stream's device.
    pub fn device(&self) -> Device {
        self.inner.device()
    }

    /// Whether this is its device's default stream.
    pub fn is_null(&self) -> bool {
        self.inner.id == 0
    }

    /// Runs `f` with this stream current for its device on this thread (CuPy's
    /// `with stream:`); scopes nest, the innermost wins. Inside, an operation on another
    /// device's arrays is a `DeviceMismatch` error.
    pub fn scope<R>(&self, f: impl FnOnce() -> Result<R>) -> Result<R> {
        let _g = self.enter()?;
        f()
    }

    /// Makes this stream current until the guard is dropped (the guard form of
    /// [`scope`](Self::scope); guards must be dropped in reverse order of entering).
    pub fn enter(&self) -> Result<StreamGuard> {
        self.inner.check_live("entering a stream scope")?;
        enter_scope(self.inner.clone());
        Ok(StreamGuard { id: self.inner.id, _not_send: std::marker::PhantomData })
    }

    fn dev(&self) -> Result<Arc<CudaDevice>> {
        CudaDevice::get(self.inner.ordinal)
    }

    /// Makes this stream current on this thread until [`exit`](Self::exit) (what another
    /// language's `with stream:` needs: no guard to keep). Enter and exit on the same thread,
    /// in nested order.
    pub fn enter_unguarded(&self) -> Result<()> {
        self.inner.check_live("entering a stream scope")?;
        enter_scope(self.inner.clone());
        Ok(())
    }

    /// Leaves this thread's innermost scope of this stream ([`enter_unguarded`](Self::enter_unguarded)).
    pub fn exit(&self) {
        exit_scope(self.inner.id);
    }

    /// The driver's stream handle as an integer (CuPy's `stream.ptr`; DLPack's and the CUDA
    /// Array Interface's stream numbers).
    pub fn handle(&self) -> u64 {
        self.inner.raw as usize as u64
    }

    /// Waits until the work queued on this stream has finished.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.check_live("synchronizing a stream")?;
        self.inner.synchronize(&*self.dev()?)
    }

    /// Whether the work queued on this stream has finished, without waiting (CuPy's
    /// `stream.done`).
    pub fn query(&self) -> Result<bool> {
        self.inner.check_live("querying a stream")?;
        let dev = self.dev()?;
        dev.bind()?;
        use cudarc::driver::sys;
        // SAFETY: `raw` is a live stream (held by `inner`) of the context made current above.
        match unsafe { sys::cuStreamQuery(self.inner.raw) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            e => Err(dev.err("cuStreamQuery", cudarc::driver::DriverError(e))),
        }
    }

    /// A new event recorded after the work queued so far on this stream (CuPy's
    /// `stream.record()`).
    pub fn record(&self) -> Result<Event> {
        let e = Event::new(self.device())?;
        e.record_on(self)?;
        Ok(e)
    }

    /// Makes later work on this stream wait until `event` has completed, without a host wait.
    /// An event of another device is an error.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        self.inner.check_live("waiting on an event")?;
        if event.device() != self.device() {
            return Err(Error::DeviceMismatch {
                op: "a stream waiting on an event".into(),
                a: self.device(),
                b: event.device(),
            });
        }
        let dev = self.dev()?;
        dev.bind()?;
        // SAFETY: both handles are live (held by `inner` and `event`) and of this context.
        unsafe { cudarc::driver::sys::cuStreamWaitEvent(self.inner.raw, event.raw(), 0) }
            .result()
            .map_err(|e| dev.err("cuStreamWaitEvent", e))
    }

    /// Destroys the stream for its user: recording on it, entering it, waiting on it or
    /// capturing on it afterwards is a `ValueError`. Work already queued finishes; the
    /// driver's stream is released when the arrays that used it are gone. The default stream
    /// cannot be destroyed.
    pub fn destroy(&self) -> Result<()> {
        if self.inner.id == 0 {
            return Err(Error::Value("the default stream cannot be destroyed".into()));
        }
        self.inner.destroyed.store(true, Ordering::Release);
        Ok(())
    }

    /// Captures the GPU operations `f` queues (with this stream current) into a [`Graph`]
    /// that replays them (`stream.begin_capture()` ... `stream.end_capture()`). Run `f` once
    /// before capturing so that its kernels are compiled. A host synchronisation inside `f`
    /// (reading values back, `synchronize`, an operation that needs a count from the GPU) is a
    /// `RuntimeError`: the capture is abandoned and the stream usable again. The default
    /// stream cannot capture.
    ///
    /// ```no_run
    /// use cuprum::cuda::Stream;
    /// use cuprum::{DType, Device};
    /// let gpu = Device::Cuda(0);
    /// let s = Stream::new(gpu)?;
    /// let mut x = cuprum::zeros(&[1000], DType::Float32, &gpu)?;
    /// let step = |x: &cuprum::Array| -> cuprum::Result<cuprum::Array> { (x.sin()? * 2.0f32)?.exp() };
    /// step(&x)?; // compile the kernels first
    /// let (graph, y) = s.capture(|| step(&x))?;
    /// x.fill(1.0)?;
    /// graph.launch()?; // y = exp(2 sin(x)) for the new x
    /// s.synchronize()?;
    /// assert!((y.to_vec::<f32>()?[0] - (2.0 * 1f32.sin()).exp()).abs() < 1e-5);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn capture<R>(&self, f: impl FnOnce() -> Result<R>) -> Result<(Graph, R)> {
        crate::backend::cuda::graph::capture(&self.inner, f)
    }
}

/// Keeps a stream current until dropped ([`Stream::enter`]). Not `Send`: it belongs to the
/// thread whose scope it opened.
#[derive(Debug)]
pub struct StreamGuard {
    id: u64,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        exit_scope(self.id);
    }
}

/// This thread's current stream of `device` (`cupy.cuda.get_current_stream()`).
pub fn get_current_stream(device: Device) -> Result<Stream> {
    let dev = cuda_device(device, "get_current_stream")?;
    Ok(Stream { inner: dev.current_stream()? })
}
