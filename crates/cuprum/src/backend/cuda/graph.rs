//! CUDA graphs: the operations a closure queues on a stream, captured once and replayed.

use super::stream::{enter_scope, exit_scope, StreamInner};
use super::CudaDevice;
use crate::core::error::{Error, Result};
use cudarc::driver::{result as cu, sys};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A captured sequence of operations, replayed by [`launch`](Graph::launch) on the stream it
/// was captured on (`cupy.cuda.Graph`). Made by [`Stream::capture`](crate::cuda::Stream::capture).
///
/// A replay runs the same kernels and copies on the same memory with the same scalar values:
/// the arrays the closure read are read again (change their contents with `assign`/`fill`/
/// `copy_from` between replays), the arrays it returned are written again. Each replay is
/// ordered with the other streams as the captured operations were (after the queued work of
/// the streams the arrays it reaches belong to, and before their later work). Blocks the
/// captured operations freed (their temporaries) stay with the graph until it is dropped.
/// Pinned host arrays a graph copies from or into are not tracked: keep them unchanged until
/// the replays that use them have finished (`Stream::synchronize`).
pub struct Graph {
    exec: sys::CUgraphExec,
    stream: Arc<StreamInner>,
    dev: Arc<CudaDevice>,
    kept: Vec<super::pool::Captured>,
    /// The home streams of the blocks the captured work reached (besides `stream`).
    homes: Vec<Arc<StreamInner>>,
}
// SAFETY: `exec` is a driver handle owned by this value (destroyed once, in `drop`); the driver
// API is thread-safe and every use first makes the device's context current.
unsafe impl Send for Graph {}
// SAFETY: `&Graph` only launches the graph, a thread-safe driver call.
unsafe impl Sync for Graph {}

impl Graph {
    /// Replays the graph on the stream it was captured on (asynchronously, as any operation),
    /// ordered as the captured operations would be: after the work queued so far on the home
    /// streams of the arrays it reaches, and before their later work.
    pub fn launch(&self) -> Result<()> {
        self.stream.check_live("launching a graph")?;
        self.dev.bind()?;
        for h in &self.homes {
            self.dev.order_after(&self.stream, h)?;
        }
        // SAFETY: `exec` is a live executable graph of this context, and `stream.raw` a live
        // stream (held by the `Arc`); the memory the graph reaches is held by the arrays the
        // user keeps or by `kept`.
        unsafe { sys::cuGraphLaunch(self.exec, self.stream.raw) }
            .result()
            .map_err(|e| self.dev.err("cuGraphLaunch", e))?;
        for h in &self.homes {
            self.dev.order_after(h, &self.stream)?;
        }
        Ok(())
    }

    /// The stream the graph was captured on (the public `Graph::stream`, in `cuda.rs`).
    pub(crate) fn stream_inner(&self) -> Arc<StreamInner> {
        self.stream.clone()
    }
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<Graph on {:?}>", self.stream())
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        let _ = self.dev.bind();
        // SAFETY: `exec` was instantiated in `capture`, is destroyed only here; launches already
        // queued keep running (the driver defers the release).
        let _ = unsafe { sys::cuGraphExecDestroy(self.exec) };
        // The kept blocks return to the pool as blocks of the replay stream: later work there
        // is ordered after every replay.
        for c in std::mem::take(&mut self.kept) {
            self.dev.pool_free_captured(c, &self.stream);
        }
    }
}

/// Ends the capture on `s` and undoes its bookkeeping; returns the captured graph (the
/// driver's status when the capture was invalidated), the blocks freed during it and the home
/// streams (other than `s`) of the blocks it reached.
#[allow(clippy::type_complexity)]
fn end(
    dev: &CudaDevice,
    s: &StreamInner,
) -> (std::result::Result<sys::CUgraph, sys::CUresult>, Vec<super::pool::Captured>, Vec<Arc<StreamInner>>) {
    let mut g: sys::CUgraph = std::ptr::null_mut();
    // SAFETY: `s.raw` is a live stream capturing since `capture` began it; `g` receives the graph.
    let r = unsafe { sys::cuStreamEndCapture(s.raw, &mut g) };
    s.capturing.store(false, Ordering::Release);
    dev.captures.fetch_sub(1, Ordering::AcqRel);
    let kept = dev.pool_take_captured(s.id);
    let homes = std::mem::take(&mut *s.capture_homes.lock().unwrap_or_else(|e| e.into_inner()))
        .into_iter()
        .filter(|h| h.id != s.id)
        .collect();
    (if r == sys::CUresult::CUDA_SUCCESS && !g.is_null() { Ok(g) } else { Err(r) }, kept, homes)
}

/// Drops a capture that will not become a graph: its graph (if any) destroyed, the blocks it
/// kept back to the pool.
fn abandon(dev: &CudaDevice, s: &Arc<StreamInner>, graph: Option<sys::CUgraph>, kept: Vec<super::pool::Captured>) {
    if let Some(g) = graph {
        // SAFETY: `g` was returned by the capture and is used by no one else (no executable was
        // made from it).
        let _ = unsafe { cu::graph::destroy(g) };
    }
    for c in kept {
        dev.pool_free_captured(c, s);
    }
}

/// Captures what `f` queues on `s` (the current stream of its device inside `f`).
pub(crate) fn capture<R>(s: &Arc<StreamInner>, f: impl FnOnce() -> Result<R>) -> Result<(Graph, R)> {
    s.check_live("capturing a graph")?;
    if s.id == 0 {
        return Err(Error::Value("cannot capture a graph on the default stream: capture on a Stream::new".into()));
    }
    let dev = CudaDevice::get(s.ordinal)?;
    dev.bind()?;
    if s.capturing.swap(true, Ordering::AcqRel) {
        return Err(Error::Runtime("the stream is already capturing a graph".into()));
    }
    dev.captures.fetch_add(1, Ordering::AcqRel);
    s.capture_homes.lock().unwrap_or_else(|e| e.into_inner()).clear();
    // Relaxed mode: allocations (cuMemAlloc) and kernel loading stay allowed during the
    // capture; host synchronisations are refused by cuprum itself (`capture_sync_error`).
    // SAFETY: `s.raw` is a live stream of the current context, not capturing (checked above).
    let begun =
        unsafe { sys::cuStreamBeginCapture_v2(s.raw, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED) };
    if begun != sys::CUresult::CUDA_SUCCESS {
        s.capturing.store(false, Ordering::Release);
        dev.captures.fetch_sub(1, Ordering::AcqRel);
        return Err(dev.err("cuStreamBeginCapture", cudarc::driver::DriverError(begun)));
    }
    enter_scope(s.clone());
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    exit_scope(s.id);
    let (graph, kept, homes) = end(&dev, s);
    let (value, graph) = match (r, graph) {
        (Ok(Ok(v)), Ok(g)) => (v, g),
        (r, graph) => {
            abandon(&dev, s, graph.ok(), kept);
            return match (r, graph) {
                (Err(panic), _) => std::panic::resume_unwind(panic),
                (Ok(Err(e)), _) => Err(e),
                (Ok(Ok(_)), Err(code)) => Err(Error::Runtime(format!(
                    "the graph capture was invalidated by an operation that cannot be captured ({code:?})"
                ))),
                (Ok(Ok(_)), Ok(_)) => unreachable!("both succeeded above"),
            };
        }
    };
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    // SAFETY: `graph` is a valid graph from the capture; `exec` receives the executable.
    let inst = unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) };
    if inst != sys::CUresult::CUDA_SUCCESS {
        abandon(&dev, s, Some(graph), kept);
        return Err(dev.err("cuGraphInstantiate", cudarc::driver::DriverError(inst)));
    }
    // SAFETY: the executable no longer needs the graph it was made from.
    let _ = unsafe { cu::graph::destroy(graph) };
    Ok((Graph { exec, stream: s.clone(), dev: dev.clone(), kept, homes }, value))
}
