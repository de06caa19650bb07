//! Backend machinery shared by every family: array storage (host blocks and device blocks),
//! the CPU's strided walks and compute domains, and the CUDA context, streams, memory pool,
//! copies, NVRTC compilation, kernel cache and launches.

pub(crate) mod cpu;
pub(crate) mod cuda;
pub(crate) mod devices;
pub(crate) mod storage;
