//! `cupy.cuda`: the GPU's memory pool, events, the kernel cache, device names.

pub use crate::backend::cuda::{cache_dir, device_name, nvrtc_compiles, pool_stats, release_cached, Event, PoolStats};
