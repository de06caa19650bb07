//! Reference-counted memory blocks behind arrays. Views share a block; the block is freed
//! (or returned to the device pool) when the last array using it is dropped.

use crate::backend::cuda::stream::add_once;
use crate::backend::cuda::{CudaDevice, HostDma, StreamInner};
use crate::core::device::Device;
use crate::core::error::{Error, Result};
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

const HOST_ALIGN: usize = 64;
/// Host blocks at least this large come from (and return to) the host pool.
const POOL_MIN: usize = 1 << 20;
/// Smaller blocks from this size on are pooled too, rounded to powers of two: a small
/// operation's output then costs no allocation and no zeroing (an `alloc_zeroed` of 80 KB is
/// a memset of microseconds, as long as the 10,000-element operation itself).
const SMALL_POOL_MIN: usize = 4 << 10;
/// Cached small blocks per size.
const SMALL_POOL_DEPTH: usize = 64;
/// Pooled host blocks are rounded to and aligned on 2 MiB (huge-page friendly).
const POOL_GRAIN: usize = 2 << 20;

/// Cached large host blocks. Reusing a block skips the page faults a fresh allocation pays on
/// first touch, and a block pinned for device copies stays pinned (as CUDA frameworks' caching
/// host allocators do).
/// A cached block of the host pool: a pointer with its provenance (not an address), so that the
/// pool holds its blocks as Rust sees them (Miri finds them reachable, not leaked).
struct PoolBlock(NonNull<u8>);

// SAFETY: a cached block belongs to no array; only the pool (behind its mutex) hands it out, to
// one storage at a time.
unsafe impl Send for PoolBlock {}

struct HostPool {
    free: std::collections::BTreeMap<usize, Vec<(PoolBlock, bool)>>,
    cached: usize,
    limit: usize,
}

fn host_pool() -> &'static std::sync::Mutex<HostPool> {
    static POOL: std::sync::OnceLock<std::sync::Mutex<HostPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        // Keep at most a quarter of the machine's memory (16 GiB at most) cached.
        let total = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| {
                m.lines()
                    .find(|l| l.starts_with("MemTotal:"))
                    .and_then(|l| l.split_whitespace().nth(1)?.parse::<usize>().ok())
            })
            .map(|kb| kb * 1024)
            .unwrap_or(16 << 30);
        std::sync::Mutex::new(HostPool { free: Default::default(), cached: 0, limit: (total / 4).min(16 << 30) })
    })
}

/// Gives every cached host block back to the system.
pub(crate) fn release_host_pool() {
    let blocks: Vec<(usize, PoolBlock, bool)> = {
        let mut p = host_pool().lock().unwrap_or_else(|e| e.into_inner());
        p.cached = 0;
        std::mem::take(&mut p.free)
            .into_iter()
            .flat_map(|(cap, v)| v.into_iter().map(move |(ptr, reg)| (cap, ptr, reg)))
            .collect()
    };
    for (cap, ptr, reg) in blocks {
        free_block(ptr.0.as_ptr(), cap, reg);
    }
}

fn free_block(ptr: *mut u8, cap: usize, registered: bool) {
    if registered {
        crate::backend::cuda::host_unregister(ptr);
    }
    // SAFETY: `ptr` is a pooled block that `CpuStorage::new` allocated with `alloc_zeroed` and
    // the layout (`cap`, `pool_align(cap)`) (valid: checked by `from_size_align` there); its
    // last owner is gone (dropped storage or an emptied pool list), so nothing uses it any more.
    unsafe { dealloc(ptr, Layout::from_size_align_unchecked(cap, pool_align(cap))) }
}

/// The alignment of a pooled block of capacity `cap`: 2 MiB for large blocks, 64 bytes for
/// the small ones (powers of two below `POOL_MIN`).
fn pool_align(cap: usize) -> usize {
    if cap >= POOL_MIN {
        POOL_GRAIN
    } else {
        HOST_ALIGN
    }
}

/// The pool capacity for a block of `bytes` (at least `SMALL_POOL_MIN`); `None` on overflow.
fn pool_cap(bytes: usize) -> Option<usize> {
    if bytes >= POOL_MIN {
        bytes.checked_next_multiple_of(POOL_GRAIN)
    } else {
        Some(bytes.next_power_of_two())
    }
}

/// Host memory. Reads and writes by operations go through the lock, so two threads writing
/// through views of one block never race.
pub(crate) struct CpuStorage {
    ptr: NonNull<u8>,
    bytes: usize,
    /// Capacity of a pooled block (0 for the smallest blocks, which are not pooled).
    cap: usize,
    /// Whether the block is registered with the CUDA driver (page-locked).
    registered: std::sync::atomic::AtomicBool,
    /// Asynchronous copies from or into this (pinned) block still queued on a stream: host
    /// writers wait for them all, host readers for those that write the block, and the block
    /// is freed only after them.
    dma: HostDma,
    lock: RwLock<()>,
    /// Memory of another library (`interop::from_foreign`): not cuprum's to free or pool; the
    /// owner's drop releases it.
    owner: Option<Foreign>,
}

/// The owner of foreign memory (a DLPack deleter, a Python object): dropped when the last
/// array on the memory goes, never before cuprum's queued work on it has finished.
pub(crate) type Foreign = Box<dyn std::any::Any + Send + Sync>;

// SAFETY: the block is owned by this value alone (freed or pooled in `drop`), so moving it to
// another thread is fine; the `NonNull` is the only thing that is not `Send` by itself.
unsafe impl Send for CpuStorage {}
// SAFETY: through `&CpuStorage` the contents are reached only by raw pointer (`ptr`), and every
// operation that reads or writes them first takes the block's `RwLock` (`CpuLocks`), shared for
// reading and exclusive for writing; `pin` and the counters are synchronised (`PIN`, atomics).
unsafe impl Sync for CpuStorage {}

impl CpuStorage {
    /// The storage of a block at `ptr` (`cap`: its pool capacity, 0 for an unpooled block).
    fn block(ptr: NonNull<u8>, bytes: usize, cap: usize, registered: bool) -> CpuStorage {
        CpuStorage {
            ptr,
            bytes,
            cap,
            registered: registered.into(),
            dma: HostDma::default(),
            lock: RwLock::new(()),
            owner: None,
        }
    }

    /// Host memory of another library at `ptr` (`bytes` long), released by dropping `owner`.
    pub fn foreign(ptr: *mut u8, bytes: usize, owner: Foreign) -> CpuStorage {
        let ptr = NonNull::new(ptr).unwrap_or(NonNull::dangling());
        let mut s = CpuStorage::block(ptr, bytes, 0, false);
        s.owner = Some(owner);
        s
    }

    pub fn new(bytes: usize, zeroed: bool) -> Result<CpuStorage> {
        let oom = || Error::OutOfMemory { device: Device::Cpu, bytes };
        // More than the machine could back: refused even where the kernel would overcommit.
        crate::core::alloc::check_host(bytes)?;
        if bytes >= SMALL_POOL_MIN {
            let cap = pool_cap(bytes).ok_or_else(oom)?;
            let hit = {
                let mut p = host_pool().lock().unwrap_or_else(|e| e.into_inner());
                let hit = p.free.get_mut(&cap).and_then(|v| v.pop());
                if hit.is_some() {
                    p.cached -= cap;
                }
                hit
            };
            if let Some((PoolBlock(ptr), registered)) = hit {
                if zeroed {
                    // SAFETY: the block has `cap >= bytes` initialised bytes (zeroed when first
                    // allocated), and it came out of the pool's free list, so no one else holds it.
                    let s = unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr(), bytes) };
                    if bytes < 8 << 20 {
                        s.fill(0);
                    } else {
                        use rayon::prelude::*;
                        s.par_chunks_mut(4 << 20).for_each(|c| c.fill(0));
                    }
                }
                return Ok(CpuStorage::block(ptr, bytes, cap, registered));
            }
            let layout = Layout::from_size_align(cap, pool_align(cap)).map_err(|_| oom())?;
            // Fresh pages are zero (and faulted in on first touch).
            // SAFETY: `cap >= bytes >= SMALL_POOL_MIN > 0`: the layout has a non-zero size.
            let p = unsafe { alloc_zeroed(layout) };
            let ptr = NonNull::new(p).ok_or_else(oom)?;
            return Ok(CpuStorage::block(ptr, bytes, cap, false));
        }
        let layout = Layout::from_size_align(bytes.max(1), HOST_ALIGN).map_err(|_| oom())?;
        // Small blocks are always zeroed: no array ever exposes uninitialised bytes.
        let _ = zeroed;
        // SAFETY: the layout has a non-zero size (`bytes.max(1)`).
        let p = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(p).ok_or_else(oom)?;
        Ok(CpuStorage::block(ptr, bytes, 0, false))
    }
    pub fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
    pub fn read(&self) -> RwLockReadGuard<'_, ()> {
        self.dma.settle(false);
        self.lock.read().unwrap_or_else(|e| e.into_inner())
    }
    pub fn write(&self) -> RwLockWriteGuard<'_, ()> {
        self.dma.settle(true);
        self.lock.write().unwrap_or_else(|e| e.into_inner())
    }
    /// Page-locked host memory of at least `bytes` bytes (zeroed), for asynchronous copies
    /// (`empty_pinned`). Needs a CUDA driver.
    pub fn new_pinned(bytes: usize) -> Result<CpuStorage> {
        let mut s = CpuStorage::new(bytes.max(POOL_MIN), true)?;
        if !s.pin() {
            return Err(Error::NoDevice(format!(
                "pinned host memory needs a CUDA driver ({})",
                crate::backend::cuda::unavailable_reason()
            )));
        }
        s.bytes = bytes;
        Ok(s)
    }
    /// Whether the block is page-locked (copies from and into it can be asynchronous).
    pub fn is_pinned(&self) -> bool {
        self.registered.load(std::sync::atomic::Ordering::Acquire)
    }
    /// Records that an asynchronous copy queued on `dev`'s current stream reads (`writes`:
    /// writes) this block: later host access waits for it.
    pub fn track_dma(&self, dev: &Arc<CudaDevice>, writes: bool) -> Result<()> {
        self.dma.track(dev, writes)
    }
    /// Page-locks a large block for direct DMA (once; it stays pinned while pooled). Returns
    /// whether the block is pinned.
    pub fn pin(&self) -> bool {
        use std::sync::atomic::Ordering;
        if self.cap < POOL_MIN {
            // Small blocks are copied through the staging buffers instead.
            return false;
        }
        if self.registered.load(Ordering::Acquire) {
            return true;
        }
        // Registration is serialised by its own lock: the caller may hold this block's RwLock.
        static PIN: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _g = PIN.lock().unwrap_or_else(|e| e.into_inner());
        if !self.registered.load(Ordering::Acquire) && crate::backend::cuda::host_register(self.ptr(), self.cap) {
            self.registered.store(true, Ordering::Release);
        }
        self.registered.load(Ordering::Acquire)
    }
}

impl Drop for CpuStorage {
    fn drop(&mut self) {
        self.dma.settle(true);
        if self.owner.take().is_some() {
            // Foreign memory: its owner (dropped here) releases it.
            return;
        }
        let registered = *self.registered.get_mut();
        if self.cap > 0 {
            let mut p = host_pool().lock().unwrap_or_else(|e| e.into_inner());
            let room = self.cap >= POOL_MIN || p.free.get(&self.cap).is_none_or(|v| v.len() < SMALL_POOL_DEPTH);
            if room && p.cached + self.cap <= p.limit {
                p.cached += self.cap;
                p.free.entry(self.cap).or_default().push((PoolBlock(self.ptr), registered));
                return;
            }
            drop(p);
            free_block(self.ptr.as_ptr(), self.cap, registered);
            return;
        }
        // SAFETY: a small block, allocated in `new` with this very layout (`cap == 0`), and this
        // is its only owner, being dropped.
        unsafe { dealloc(self.ptr.as_ptr(), Layout::from_size_align_unchecked(self.bytes.max(1), HOST_ALIGN)) }
    }
}

/// Device memory from the device's pool: allocated on one stream (`home`), perhaps used on
/// others (`used`: the pool orders its reuse after their work; `pending`: the home stream's
/// next use waits for them), see `backend/cuda/stream.rs`.
pub(crate) struct CudaStorage {
    pub ptr: u64,
    pub bytes: usize,
    /// Size of the pool block holding the allocation.
    pub block: usize,
    pub dev: Arc<CudaDevice>,
    pub home: Arc<StreamInner>,
    used: Mutex<Vec<Arc<StreamInner>>>,
    pending: Mutex<Vec<Arc<StreamInner>>>,
    dirty: std::sync::atomic::AtomicBool,
    /// Device memory of another library (`interop::from_foreign`): released by dropping the
    /// owner once the streams that used it have finished, never returned to the pool.
    owner: Option<Foreign>,
}

impl CudaStorage {
    fn new(ptr: u64, bytes: usize, block: usize, dev: Arc<CudaDevice>, home: Arc<StreamInner>) -> CudaStorage {
        CudaStorage {
            ptr,
            bytes,
            block,
            dev,
            home,
            used: Mutex::new(Vec::new()),
            pending: Mutex::new(Vec::new()),
            dirty: false.into(),
            owner: None,
        }
    }

    /// Device memory of another library at `ptr` (`bytes` long) whose queued work is on the
    /// current stream (`home`), released by dropping `owner`.
    pub fn foreign(
        ptr: u64,
        bytes: usize,
        dev: Arc<CudaDevice>,
        home: Arc<StreamInner>,
        owner: Foreign,
    ) -> CudaStorage {
        let mut s = CudaStorage::new(ptr, bytes, 0, dev, home);
        s.owner = Some(owner);
        s
    }

    /// The streams whose queued work may reach this block: its home and the others that used it.
    pub fn streams(&self) -> Vec<Arc<StreamInner>> {
        let mut v = vec![self.home.clone()];
        for s in self.used.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            add_once(&mut v, s);
        }
        v
    }

    /// Orders work about to be queued on the current stream that reaches this block (called
    /// for every device address an operation takes: `launch::dptr`). On another stream than
    /// the block's home: after the home stream's queued work (an event, no host wait), and
    /// noted for the pool and the home stream. On the home stream: after the queued work of the
    /// other streams that used the block since. Inside a graph capture nothing is ordered now:
    /// the capture notes the block's home stream, and each replay is ordered with it
    /// (`Graph::launch`).
    #[inline]
    pub fn note_use(&self) -> Result<()> {
        use std::sync::atomic::Ordering;
        self.dev.with_stream(|s| {
            if s.id == self.home.id {
                if !self.dirty.load(Ordering::Acquire) {
                    return Ok(());
                }
                // The flag changes under the list's lock (here and below), so that a stream added
                // while this thread takes the list keeps it set.
                let others = {
                    let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
                    self.dirty.store(false, Ordering::Release);
                    std::mem::take(&mut *p)
                };
                if s.is_capturing() {
                    return Ok(());
                }
                for o in &others {
                    if !o.is_capturing() {
                        self.dev.order_after(s, o)?;
                    }
                }
                return Ok(());
            }
            add_once(&mut self.used.lock().unwrap_or_else(|e| e.into_inner()), s);
            {
                let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
                add_once(&mut p, s);
                self.dirty.store(true, Ordering::Release);
            }
            if s.is_capturing() {
                add_once(&mut s.capture_homes.lock().unwrap_or_else(|e| e.into_inner()), &self.home);
            } else if !self.home.is_capturing() {
                self.dev.order_after(s, &self.home)?;
            }
            Ok(())
        })
    }
}

impl Drop for CudaStorage {
    fn drop(&mut self) {
        if let Some(owner) = self.owner.take() {
            // Foreign memory: its owner may free it at once, so cuprum's work on it must be done.
            for s in self.streams() {
                let _ = s.synchronize(&self.dev);
            }
            drop(owner);
            return;
        }
        let used = std::mem::take(self.used.get_mut().unwrap_or_else(|e| e.into_inner()));
        self.dev.pool_free(self.ptr, self.block, &self.home, &used);
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
                let (ptr, block, home) = dev.pool_alloc(bytes)?;
                let s = CudaStorage::new(ptr, bytes, block, dev, home);
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

thread_local! {
    /// Set while this thread runs a step of an operation whose caller already holds the
    /// locks of every block the step touches (see [`LocksHeld`]).
    static HELD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// While alive, [`CpuLocks`] on this thread take nothing. For an operation made of steps that
/// run on worker threads (a fused formula's blocks): its caller holds the locks of the blocks
/// it reads and writes, and the steps touch only those and buffers of their own. The steps
/// must not hand work to other threads (a worker waiting on a join may run unrelated work).
pub(crate) struct LocksHeld {
    prev: bool,
}

impl LocksHeld {
    pub fn enter() -> LocksHeld {
        LocksHeld { prev: HELD.with(|h| h.replace(true)) }
    }
}

impl Drop for LocksHeld {
    fn drop(&mut self) {
        HELD.with(|h| h.set(self.prev));
    }
}

impl<'a> CpuLocks<'a> {
    pub fn new(reads: &[&'a Storage], writes: &[&'a Storage]) -> CpuLocks<'a> {
        if HELD.with(|h| h.get()) {
            return CpuLocks { _guards: Vec::new() };
        }
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
        let guards = all.into_iter().map(|(c, w)| if w { Guard::_W(c.write()) } else { Guard::_R(c.read()) }).collect();
        CpuLocks { _guards: guards }
    }
}
