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
//! # On the CPU
//! The same code runs on the CPU device: a CPU stream orders host work (which runs at once, in
//! order, when it is called), so [`Stream::synchronize`] and [`Event::synchronize`] return at
//! once and `query` is `true`; scopes nest as on a GPU ([`get_current_stream`] returns the
//! innermost); an [`Event`] records the host clock, and [`get_elapsed_time`] is the host time
//! between two records. Graphs exist only on GPUs.
//!
//! # Pinned memory and asynchronous copies
//! [`empty_pinned`](crate::empty_pinned) and [`Array::pinned`](crate::Array::pinned) make
//! page-locked host arrays. A copy from one to the GPU (`to_device`, `copy_from`) and a
//! [`copy_from`](crate::Array::copy_from) from the GPU into one are queued on the current
//! stream without a host wait; the host array then waits for the copy before it is written
//! (or, for a copy into it, read) or freed.

pub use crate::backend::cuda::graph::Graph;
use crate::backend::cuda::stream::{enter_scope, exit_scope, StreamInner};
pub use crate::backend::cuda::{cache_dir, device_name, nvrtc_compiles, pool_stats, release_cached, PoolStats};
use crate::backend::cuda::{CudaDevice, GpuEvent};
use crate::core::device::Device;
use crate::core::error::{Error, Result};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// A stream of one device (`cupy.cuda.Stream`): a CUDA stream, or on the CPU a host stream
/// (see the module's "On the CPU"); clones are handles to the same stream.
#[derive(Clone)]
pub struct Stream {
    kind: Kind,
}

#[derive(Clone)]
enum Kind {
    Gpu(Arc<StreamInner>),
    Host(Arc<HostStream>),
}

/// A CPU stream: a number (0: the CPU's default stream) and whether its user destroyed it.
struct HostStream {
    id: u64,
    destroyed: AtomicBool,
}

impl HostStream {
    fn check_live(&self, what: &str) -> Result<()> {
        if self.destroyed.load(Ordering::Acquire) {
            return Err(Error::Value(format!("{what}: the stream was destroyed")));
        }
        Ok(())
    }
}

fn host_null() -> Arc<HostStream> {
    static NULL: OnceLock<Arc<HostStream>> = OnceLock::new();
    NULL.get_or_init(|| Arc::new(HostStream { id: 0, destroyed: AtomicBool::new(false) })).clone()
}

thread_local! {
    /// This thread's CPU stream scopes, innermost last.
    static HOST_SCOPES: RefCell<Vec<Arc<HostStream>>> = const { RefCell::new(Vec::new()) };
}

fn exit_host_scope(id: u64) {
    HOST_SCOPES.with(|s| {
        let mut s = s.borrow_mut();
        if let Some(i) = s.iter().rposition(|h| h.id == id) {
            s.remove(i);
        }
    });
}

impl PartialEq for Stream {
    fn eq(&self, other: &Stream) -> bool {
        match (&self.kind, &other.kind) {
            (Kind::Gpu(a), Kind::Gpu(b)) => a.ordinal == b.ordinal && a.id == b.id,
            (Kind::Host(a), Kind::Host(b)) => a.id == b.id,
            _ => false,
        }
    }
}
impl Eq for Stream {}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Kind::Gpu(s) if s.id == 0 => write!(f, "<Stream null (cuda:{})>", s.ordinal),
            Kind::Gpu(s) => write!(f, "<Stream {} (cuda:{})>", s.id, s.ordinal),
            Kind::Host(s) if s.id == 0 => write!(f, "<Stream null (cpu)>"),
            Kind::Host(s) => write!(f, "<Stream {} (cpu)>", s.id),
        }
    }
}

impl Stream {
    /// A new stream on `device` that does not synchronise with the default stream
    /// (`cupy.cuda.Stream(non_blocking=True)`).
    pub fn new(device: Device) -> Result<Stream> {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let kind = match device {
            Device::Cuda(n) => Kind::Gpu(StreamInner::create(&*CudaDevice::get(n)?)?),
            Device::Cpu => Kind::Host(Arc::new(HostStream {
                id: NEXT.fetch_add(1, Ordering::Relaxed),
                destroyed: AtomicBool::new(false),
            })),
        };
        Ok(Stream { kind })
    }

    /// The device's default stream: where work goes outside any scope (CuPy's
    /// `Stream.null`). Unlike CUDA's legacy NULL stream it does not wait for other streams:
    /// order them with events.
    pub fn null(device: Device) -> Result<Stream> {
        let kind = match device {
            Device::Cuda(n) => Kind::Gpu(CudaDevice::get(n)?.default_stream.clone()),
            Device::Cpu => Kind::Host(host_null()),
        };
        Ok(Stream { kind })
    }

    pub(crate) fn from_inner(inner: Arc<StreamInner>) -> Stream {
        Stream { kind: Kind::Gpu(inner) }
    }

    /// The stream's device.
    pub fn device(&self) -> Device {
        match &self.kind {
            Kind::Gpu(s) => s.device(),
            Kind::Host(_) => Device::Cpu,
        }
    }

    /// Whether this is its device's default stream.
    pub fn is_null(&self) -> bool {
        match &self.kind {
            Kind::Gpu(s) => s.id == 0,
            Kind::Host(s) => s.id == 0,
        }
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
        self.enter_unguarded()?;
        Ok(StreamGuard { stream: self.clone(), _not_send: std::marker::PhantomData })
    }

    /// Makes this stream current on this thread until [`exit`](Self::exit) (what another
    /// language's `with stream:` needs: no guard to keep). Enter and exit on the same thread,
    /// in nested order.
    pub fn enter_unguarded(&self) -> Result<()> {
        match &self.kind {
            Kind::Gpu(s) => {
                s.check_live("entering a stream scope")?;
                enter_scope(s.clone());
            }
            Kind::Host(s) => {
                s.check_live("entering a stream scope")?;
                HOST_SCOPES.with(|h| h.borrow_mut().push(s.clone()));
            }
        }
        Ok(())
    }

    /// Leaves this thread's innermost scope of this stream ([`enter_unguarded`](Self::enter_unguarded)).
    pub fn exit(&self) {
        match &self.kind {
            Kind::Gpu(s) => exit_scope(s.id),
            Kind::Host(s) => exit_host_scope(s.id),
        }
    }

    /// The driver's stream handle as an integer (CuPy's `stream.ptr`; DLPack's and the CUDA
    /// Array Interface's stream numbers); a CPU stream's number.
    pub fn handle(&self) -> u64 {
        match &self.kind {
            Kind::Gpu(s) => s.raw as usize as u64,
            Kind::Host(s) => s.id,
        }
    }

    /// Waits until the work queued on this stream has finished (on the CPU it has).
    pub fn synchronize(&self) -> Result<()> {
        match &self.kind {
            Kind::Gpu(s) => {
                s.check_live("synchronizing a stream")?;
                s.synchronize(&*CudaDevice::get(s.ordinal)?)
            }
            Kind::Host(s) => s.check_live("synchronizing a stream"),
        }
    }

    /// Whether the work queued on this stream has finished, without waiting (CuPy's
    /// `stream.done`; always on the CPU).
    pub fn query(&self) -> Result<bool> {
        let s = match &self.kind {
            Kind::Gpu(s) => s,
            Kind::Host(s) => return s.check_live("querying a stream").map(|_| true),
        };
        s.check_live("querying a stream")?;
        let dev = CudaDevice::get(s.ordinal)?;
        dev.bind()?;
        use cudarc::driver::sys;
        // SAFETY: `raw` is a live stream (held by `s`) of the context made current above.
        match unsafe { sys::cuStreamQuery(s.raw) } {
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

    /// Makes later work on this stream wait until `event` has completed, without a host wait
    /// (on the CPU it has). An event of another device is an error.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        if event.device() != self.device() {
            return Err(Error::DeviceMismatch {
                op: "a stream waiting on an event".into(),
                a: self.device(),
                b: event.device(),
            });
        }
        let (s, ev) = match (&self.kind, &event.kind) {
            (Kind::Gpu(s), EventKind::Gpu(ev)) => (s, ev),
            (Kind::Host(s), _) => return s.check_live("waiting on an event"),
            _ => unreachable!("a stream and an event of one device are of one kind"),
        };
        s.check_live("waiting on an event")?;
        let dev = CudaDevice::get(s.ordinal)?;
        dev.bind()?;
        // SAFETY: both handles are live (held by `s` and `ev`) and of this context.
        unsafe { cudarc::driver::sys::cuStreamWaitEvent(s.raw, ev.raw(), 0) }
            .result()
            .map_err(|e| dev.err("cuStreamWaitEvent", e))
    }

    /// Destroys the stream for its user: recording on it, entering it, waiting on it or
    /// capturing on it afterwards is a `ValueError`. Work already queued finishes; the
    /// driver's stream is released when the arrays that used it are gone. The default stream
    /// cannot be destroyed.
    pub fn destroy(&self) -> Result<()> {
        if self.is_null() {
            return Err(Error::Value("the default stream cannot be destroyed".into()));
        }
        match &self.kind {
            Kind::Gpu(s) => s.destroyed.store(true, Ordering::Release),
            Kind::Host(s) => s.destroyed.store(true, Ordering::Release),
        }
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
        match &self.kind {
            Kind::Gpu(s) => crate::backend::cuda::graph::capture(s, f),
            Kind::Host(_) => Err(Error::NotImplemented("graphs (stream capture) exist only on CUDA devices".into())),
        }
    }
}

/// Keeps a stream current until dropped ([`Stream::enter`]). Not `Send`: it belongs to the
/// thread whose scope it opened.
#[derive(Debug)]
pub struct StreamGuard {
    stream: Stream,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        self.stream.exit();
    }
}

/// This thread's current stream of `device` (`cupy.cuda.get_current_stream()`).
pub fn get_current_stream(device: Device) -> Result<Stream> {
    match device {
        Device::Cuda(n) => Ok(Stream::from_inner(CudaDevice::get(n)?.current_stream()?)),
        Device::Cpu => {
            let top = HOST_SCOPES.with(|h| h.borrow().last().cloned());
            Ok(Stream { kind: Kind::Host(top.unwrap_or_else(host_null)) })
        }
    }
}

/// An event (`cupy.cuda.Event`): a point in a stream's work, for timing and for making one
/// stream wait for another. On a GPU a CUDA event; on the CPU the host clock when recorded.
///
/// ```
/// use cuprum::cuda::{get_elapsed_time, Event, Stream};
/// let dev = cuprum::Device::default_device();
/// let s = Stream::new(dev)?;
/// let (start, end) = (Event::new(dev)?, Event::new(dev)?);
/// start.record_on(&s)?;
/// let y = s.scope(|| cuprum::ones(&[1 << 16], cuprum::DType::Float32, &dev)?.exp())?;
/// end.record_on(&s)?;
/// end.synchronize()?;
/// assert!(get_elapsed_time(&start, &end)? >= 0.0);
/// # drop(y);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct Event {
    kind: EventKind,
}

enum EventKind {
    Gpu(GpuEvent),
    /// When it was last recorded.
    Host(Mutex<Option<Instant>>),
}

impl Graph {
    /// The stream the graph was captured on and replays on.
    pub fn stream(&self) -> Stream {
        Stream::from_inner(self.stream_inner())
    }
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<Event ({})>", self.device())
    }
}

impl Event {
    /// A timing event on `device`.
    pub fn new(device: Device) -> Result<Event> {
        let kind = match device {
            Device::Cuda(_) => EventKind::Gpu(GpuEvent::new(device)?),
            Device::Cpu => EventKind::Host(Mutex::new(None)),
        };
        Ok(Event { kind })
    }

    /// The event's device.
    pub fn device(&self) -> Device {
        match &self.kind {
            EventKind::Gpu(e) => e.device(),
            EventKind::Host(_) => Device::Cpu,
        }
    }

    /// Records the event after all work queued so far on its device's current stream.
    pub fn record(&self) -> Result<()> {
        match &self.kind {
            EventKind::Gpu(e) => e.record(),
            EventKind::Host(t) => {
                *t.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
                Ok(())
            }
        }
    }

    /// Records the event after all work queued so far on `stream` (CuPy's
    /// `event.record(stream)`). A stream of another device, or a destroyed one, is an error.
    pub fn record_on(&self, stream: &Stream) -> Result<()> {
        match (&self.kind, &stream.kind) {
            (EventKind::Gpu(e), Kind::Gpu(s)) => e.record_on(s),
            (EventKind::Host(t), Kind::Host(s)) => {
                s.check_live("recording an event")?;
                *t.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
                Ok(())
            }
            _ => Err(Error::DeviceMismatch {
                op: "recording an event on a stream".into(),
                a: self.device(),
                b: stream.device(),
            }),
        }
    }

    /// Waits until the work before the event has finished (on the CPU it has).
    pub fn synchronize(&self) -> Result<()> {
        match &self.kind {
            EventKind::Gpu(e) => e.synchronize(),
            EventKind::Host(_) => Ok(()),
        }
    }

    /// Whether the work before the event has finished (`true` for an event never recorded),
    /// without waiting (CuPy's `event.done`).
    pub fn query(&self) -> Result<bool> {
        match &self.kind {
            EventKind::Gpu(e) => e.query(),
            EventKind::Host(_) => Ok(true),
        }
    }

    /// Milliseconds between `start` and this event (both recorded and finished; on the CPU,
    /// the host clock's). Events of two devices, or one not recorded, are errors.
    pub fn elapsed_ms_since(&self, start: &Event) -> Result<f32> {
        match (&start.kind, &self.kind) {
            (EventKind::Gpu(a), EventKind::Gpu(b)) => b.elapsed_ms_since(a),
            (EventKind::Host(a), EventKind::Host(b)) => {
                let at = |m: &Mutex<Option<Instant>>| *m.lock().unwrap_or_else(|p| p.into_inner());
                match (at(a), at(b)) {
                    (Some(a), Some(b)) => Ok(if b >= a {
                        b.duration_since(a).as_secs_f32() * 1e3
                    } else {
                        -(a.duration_since(b).as_secs_f32() * 1e3)
                    }),
                    _ => Err(Error::Value("both events must be recorded".into())),
                }
            }
            _ => Err(Error::DeviceMismatch {
                op: "elapsed time between events".into(),
                a: start.device(),
                b: self.device(),
            }),
        }
    }
}

/// Milliseconds between two finished events (`cupy.cuda.get_elapsed_time`).
pub fn get_elapsed_time(start: &Event, end: &Event) -> Result<f32> {
    end.elapsed_ms_since(start)
}
