//! The stream-ordered device memory pool: best-fit cached blocks, released and retried on
//! out-of-memory.

use super::CudaDevice;
use crate::core::device::Device;
use crate::core::error::{Error, Result};
use cudarc::driver::{result as cu, sys};
use std::collections::BTreeMap;

/// Round-up granularity of pool blocks.
const POOL_ROUND: usize = 512;

#[derive(Default)]
pub(crate) struct Pool {
    /// Free blocks by size; reuse is safe because all work on this device is ordered by one
    /// stream, so a block freed after some launches is only reused by later launches.
    free: BTreeMap<usize, Vec<u64>>,
    in_use: usize,
    held: usize,
}

/// Memory pool statistics of one device, in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PoolStats {
    /// Bytes in blocks that arrays are using.
    pub in_use: usize,
    /// Bytes the pool holds from the driver (in use plus cached for reuse).
    pub held: usize,
}

impl CudaDevice {
    // ---------------------------------------------------------------- memory pool

    fn round(bytes: usize) -> usize {
        bytes.max(1).div_ceil(POOL_ROUND) * POOL_ROUND
    }

    /// A block of at least `bytes` bytes, from the pool's cache when one fits. Returns the
    /// pointer and the block's size (to be passed back to [`pool_free`](Self::pool_free)).
    pub fn pool_alloc(&self, bytes: usize) -> Result<(u64, usize)> {
        let size = Self::round(bytes);
        {
            let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
            // Best fit among cached blocks no more than 1/8 larger than needed.
            let limit = size + (size / 8).max(POOL_ROUND);
            let hit = p.free.range_mut(size..limit).find_map(|(&s, v)| v.pop().map(|ptr| (s, ptr)));
            if let Some((s, ptr)) = hit {
                // Empty size classes stay in the map: the next free of this size reuses them.
                p.in_use += s;
                return Ok((ptr, s));
            }
        }
        self.bind()?;
        // SAFETY: a plain device allocation in the context made current by `bind`.
        let ptr = match unsafe { cu::malloc_sync(size) } {
            Ok(p) => p,
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
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

    /// Returns a block from [`pool_alloc`](Self::pool_alloc) to the pool's cache.
    pub fn pool_free(&self, ptr: u64, size: usize) {
        let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        p.in_use = p.in_use.saturating_sub(size);
        p.free.entry(size).or_default().push(ptr);
    }

    /// Frees every cached block (after waiting for queued work that may still use them).
    pub fn release_cached(&self) -> Result<()> {
        self.synchronize()?;
        let blocks: Vec<(usize, Vec<u64>)> = {
            let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
            std::mem::take(&mut p.free).into_iter().collect()
        };
        let mut freed = 0;
        for (size, ptrs) in blocks {
            for ptr in ptrs {
                // SAFETY: a cached block is owned by no array (it was taken out of the free list
                // above, so no allocation can hand it out), and the stream was synchronised
                // first, so no queued work still uses it.
                unsafe { cu::free_sync(ptr) }.map_err(|e| self.err("cuMemFree", e))?;
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
        // is ordered on the stream with every other use of the block.
        unsafe { cu::memset_d8_async(ptr, 0, bytes, self.stream) }.map_err(|e| self.err("cuMemsetD8", e))
    }

    /// Sets `bytes` bytes at `ptr` to `value` (0xFF fills integers with all ones: -1, or the
    /// largest unsigned value).
    pub fn memset_u8(&self, ptr: u64, value: u8, bytes: usize) -> Result<()> {
        self.bind()?;
        // SAFETY: as for `memset_zero`.
        unsafe { cu::memset_d8_async(ptr, value, bytes, self.stream) }.map_err(|e| self.err("cuMemsetD8", e))
    }

    pub fn memcpy_dtod(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        self.bind()?;
        // SAFETY: the caller passes `bytes`-byte ranges of this device's pool blocks; the copy is
        // ordered on the stream with every other use of them.
        unsafe { cu::memcpy_dtod_async(dst, src, bytes, self.stream) }.map_err(|e| self.err("cuMemcpyDtoD", e))
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
