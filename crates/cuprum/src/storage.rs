//! Reference-counted memory blocks behind arrays. Views share a block; the block is freed
//! (or returned to the device pool) when the last array using it is dropped.

use crate::cuda::CudaDevice;
use crate::device::Device;
use crate::error::{Error, Result};
use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

const HOST_ALIGN: usize = 64;

/// Host memory. Reads and writes by operations go through the lock, so two threads writing
/// through views of one block never race.
pub(crate) struct CpuStorage {
    ptr: NonNull<u8>,
    bytes: usize,
    lock: RwLock<()>,
}

unsafe impl Send for CpuStorage {}
unsafe impl Sync for CpuStorage {}

impl CpuStorage {
    pub fn new(bytes: usize, zeroed: bool) -> Result<CpuStorage> {
        let layout = Layout::from_size_align(bytes.max(1), HOST_ALIGN)
            .map_err(|_| Error::OutOfMemory { device: Device::Cpu, bytes })?;
        // SAFETY: the layout has non-zero size.
        let p = unsafe { if zeroed { alloc_zeroed(layout) } else { alloc(layout) } };
        let ptr = NonNull::new(p).ok_or(Error::OutOfMemory { device: Device::Cpu, bytes })?;
        Ok(CpuStorage { ptr, bytes, lock: RwLock::new(()) })
    }
    pub fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
    pub fn read(&self) -> RwLockReadGuard<'_, ()> {
        self.lock.read().unwrap_or_else(|e| e.into_inner())
    }
    pub fn write(&self) -> RwLockWriteGuard<'_, ()> {
        self.lock.write().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for CpuStorage {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr.as_ptr(), Layout::from_size_align_unchecked(self.bytes.max(1), HOST_ALIGN)) }
    }
}

/// Device memory from the device's pool. Work on it is ordered by the device's stream.
pub(crate) struct CudaStorage {
    pub ptr: u64,
    pub bytes: usize,
    /// Size of the pool block holding the allocation.
    pub block: usize,
    pub dev: Arc<CudaDevice>,
}

impl Drop for CudaStorage {
    fn drop(&mut self) {
        self.dev.pool_free(self.ptr, self.block);
    }
}

pub(crate) enum Storage {
    Cpu(CpuStorage),
    Cuda(CudaStorage),
}

impl Storage {
    pub fn device(&self) -> Device {
        match self {
            Storage::Cpu(_) => Device::Cpu,
            Storage::Cuda(c) => Device::Cuda(c.dev.ordinal),
        }
    }
    /// Size of the block in bytes.
    #[allow(dead_code)]
    pub fn bytes(&self) -> usize {
        match self {
            Storage::Cpu(c) => c.bytes,
            Storage::Cuda(c) => c.bytes,
        }
    }
    pub fn alloc(device: Device, bytes: usize, zeroed: bool) -> Result<Arc<Storage>> {
        Ok(Arc::new(match device {
            Device::Cpu => Storage::Cpu(CpuStorage::new(bytes, zeroed)?),
            Device::Cuda(n) => {
                let dev = CudaDevice::get(n)?;
                let (ptr, block) = dev.pool_alloc(bytes)?;
                let s = CudaStorage { ptr, bytes, block, dev };
                if zeroed && bytes > 0 {
                    s.dev.memset_zero(ptr, bytes)?;
                }
                Storage::Cuda(s)
            }
        }))
    }
    pub fn cpu(&self) -> Option<&CpuStorage> {
        match self {
            Storage::Cpu(c) => Some(c),
            _ => None,
        }
    }
}

/// Held for its drop only.
#[allow(dead_code)]
enum Guard<'a> {
    _R(RwLockReadGuard<'a, ()>),
    _W(RwLockWriteGuard<'a, ()>),
}

/// Locks held by one CPU operation: a write lock on every block written, a read lock on every
/// other block read (each block once, in address order so that operations never deadlock).
pub(crate) struct CpuLocks<'a> {
    _guards: Vec<Guard<'a>>,
}

impl<'a> CpuLocks<'a> {
    pub fn new(reads: &[&'a Storage], writes: &[&'a Storage]) -> CpuLocks<'a> {
        let mut all: Vec<(&'a CpuStorage, bool)> = Vec::with_capacity(reads.len() + writes.len());
        for s in writes {
            if let Some(c) = s.cpu() {
                all.push((c, true));
            }
        }
        for s in reads {
            if let Some(c) = s.cpu() {
                all.push((c, false));
            }
        }
        all.sort_by_key(|(c, w)| (c.ptr() as usize, !*w));
        all.dedup_by_key(|(c, _)| c.ptr() as usize);
        let guards = all
            .into_iter()
            .map(|(c, w)| if w { Guard::_W(c.write()) } else { Guard::_R(c.read()) })
            .collect();
        CpuLocks { _guards: guards }
    }
}
