//! The CUDA backend: one context and stream per GPU, a stream-ordered memory pool, pinned
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
pub(crate) mod kernels;
pub(crate) mod launch;
mod pool;

pub use compile::{cache_dir, nvrtc_compiles};
pub(crate) use context::{device_count, unavailable_reason, CudaDevice};
pub(crate) use copy::{host_register, host_unregister};
pub use event::{device_name, Event};
pub(crate) use kernels::Kernel;
pub use pool::{pool_stats, release_cached, PoolStats};
