//! The CUDA backend: one context per GPU, its streams (`stream.rs`), a stream-ordered memory pool, pinned
//! staging for host copies, and NVRTC-compiled kernels cached in memory and on disk.
//!
//! Everything here goes through `cudarc`'s thin `result`/`sys` layers, loaded at run time, so
//! the crate builds on machines without CUDA and fails with a clear [`Error`](crate::Error)
//! when no driver is present.

pub(crate) mod codegen;
pub(crate) mod compile;
mod context;
mod copy;
mod event;
pub(crate) mod graph;
pub(crate) mod kernels;
pub(crate) mod launch;
mod pool;
pub(crate) mod stream;

pub use compile::{cache_dir, nvrtc_compiles};
pub(crate) use context::{device_count, unavailable_reason, CudaDevice};
pub(crate) use copy::{host_register, host_unregister};
pub(crate) use event::HostDma;
pub use event::{device_name, GpuEvent};
pub(crate) use kernels::Kernel;
pub use pool::{pool_stats, release_cached, PoolStats};
pub(crate) use stream::StreamInner;

/// The status of a call into a CUDA library (cuBLAS, cuSOLVER, cuFFT): `Ok` for `success`,
/// [`Error::OutOfMemory`](crate::Error::OutOfMemory) for the library's allocation failure,
/// else an [`Error::Cuda`](crate::Error::Cuda) naming the call and the status.
pub(crate) fn lib_status<S: PartialEq + std::fmt::Debug>(
    what: &str,
    s: S,
    success: S,
    alloc_failed: S,
) -> crate::core::error::Result<()> {
    if s == success {
        Ok(())
    } else if s == alloc_failed {
        Err(crate::core::error::Error::OutOfMemory { device: crate::Device::Cuda(0), bytes: 0 })
    } else {
        Err(crate::core::error::Error::Cuda(format!("{what}: {s:?}")))
    }
}
