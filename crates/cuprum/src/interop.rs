//! Raw access for other libraries: the address of an array's data, the CUDA stream a consumer
//! must order its reads after, and arrays on memory that another library owns. This is what
//! DLPack (`__dlpack__`), the CUDA Array Interface (`__cuda_array_interface__`) and zero-copy
//! NumPy views are built on (the Python package's `dlpack.rs`); Rust code that only uses cuprum
//! never needs it.
//!
//! # Streams
//! cuprum's default stream of a device does not synchronise with CUDA's legacy default stream,
//! so a consumer reading cuprum's memory on its own stream must first be ordered after the work
//! cuprum queued on it ([`order_before`]), and cuprum must wait for a producer's stream before
//! it reads the producer's memory ([`wait_for`]). The stream arguments are raw `CUstream`
//! handles as integers, with DLPack's special values: `1` is CUDA's legacy default stream and
//! `2` the per-thread default stream.
//!
//! ```
//! let a = cuprum::arange(4, &cuprum::Device::Cpu)?;
//! let p = cuprum::interop::data_ptr(&a);
//! assert_ne!(p, 0);
//! assert_eq!(cuprum::interop::producer_stream(&a)?, None); // host memory: nothing to wait for
//! # Ok::<(), cuprum::Error>(())
//! ```

use crate::array::Array;
use crate::backend::storage::{CpuStorage, CudaStorage, Storage};
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use cudarc::driver::sys;
use std::sync::Arc;

/// The raw `CUstream` of a DLPack/CAI stream number: `1` legacy, `2` per-thread, else a handle.
fn raw_stream(s: u64) -> sys::CUstream {
    // CUDA's CU_STREAM_LEGACY and CU_STREAM_PER_THREAD are the handles 0x1 and 0x2 (cuda.h):
    // the numbers DLPack and the CUDA Array Interface use for them.
    s as usize as sys::CUstream
}

/// The address of the array's first element (`a[0, 0, ...]`): a host pointer for a CPU array,
/// a CUDA device pointer for a GPU array. Reading or writing through it is the caller's
/// responsibility: host arrays are otherwise reached under their block's lock, and device
/// arrays only after [`order_before`].
pub fn data_ptr(a: &Array) -> u64 {
    match &*a.storage {
        Storage::Cpu(c) => c.ptr() as u64 + a.offset as u64,
        Storage::Cuda(c) => c.ptr + a.offset as u64,
    }
}

/// Waits for the asynchronous copies that cuprum queued into or out of a host array's memory
/// ([`Array::copy_from`] with page-locked memory) before code outside cuprum reads or writes it.
/// Nothing to do for a GPU array.
pub fn host_ready(a: &Array) {
    if let Storage::Cpu(c) = &*a.storage {
        drop(c.write());
    }
}

/// For a GPU array, orders the work that other cuprum streams queued on the array's memory
/// into its home stream and returns that stream's raw handle: the one stream a consumer must
/// wait for before it reads the array (the CUDA Array Interface's `stream`). `None` for a CPU
/// array.
pub fn producer_stream(a: &Array) -> Result<Option<u64>> {
    let Storage::Cuda(c) = &*a.storage else { return Ok(None) };
    for s in c.streams() {
        if s.id != c.home.id && !s.is_capturing() {
            c.dev.order_after(&c.home, &s)?;
        }
    }
    Ok(Some(c.home.raw as usize as u64))
}

/// Makes the consumer's stream `consumer` (a raw `CUstream`, or `1`/`2` for the legacy and
/// per-thread default streams) wait, on the GPU, for every stream of cuprum's that queued work
/// on the array's memory (DLPack's `__dlpack__(stream=...)`). Nothing to do for a CPU array.
///
/// # Safety
/// `consumer` must be a live stream of the array's device's primary context (or `1`/`2`).
pub unsafe fn order_before(a: &Array, consumer: u64) -> Result<()> {
    let Storage::Cuda(c) = &*a.storage else { return Ok(()) };
    if consumer == 0 {
        return Err(Error::Value("stream 0 is ambiguous in DLPack: pass 1 (legacy) or 2 (per-thread)".into()));
    }
    for s in c.streams() {
        if !s.is_capturing() {
            // SAFETY: `s` is a live cuprum stream (held by the block); `consumer` is live (the
            // caller's promise).
            unsafe { c.dev.order_raw(raw_stream(consumer), s.raw)? };
        }
    }
    Ok(())
}

/// The raw handle of this thread's current stream of `device` (what cuprum passes as the
/// consumer's stream when it imports another library's memory).
pub fn current_stream(device: Device) -> Result<u64> {
    match device {
        Device::Cpu => Err(Error::InvalidArgument("the CPU has no CUDA stream".into())),
        Device::Cuda(n) => {
            let dev = crate::backend::cuda::CudaDevice::get(n)?;
            Ok(dev.stream()? as usize as u64)
        }
    }
}

/// Makes this thread's current stream of `device` wait, on the GPU, for the work queued so far
/// on the raw stream `producer` (another library's stream, or `1`/`2`).
///
/// # Safety
/// `producer` must be a live stream of the device's primary context (or `1`/`2`).
pub unsafe fn wait_for(device: Device, producer: u64) -> Result<()> {
    let Device::Cuda(n) = device else { return Ok(()) };
    let dev = crate::backend::cuda::CudaDevice::get(n)?;
    let cur = dev.stream()?;
    // SAFETY: `cur` is cuprum's live current stream; `producer` is live (the caller's promise).
    unsafe { dev.order_raw(cur, raw_stream(producer)) }
}

/// The byte range `[lo, hi)` that the elements of a layout reach, relative to its first element.
fn extent(shape: &[usize], strides: &[isize], itemsize: usize) -> Result<(isize, isize)> {
    if shape.len() != strides.len() {
        return Err(Error::InvalidArgument("from_foreign: shape and strides differ in length".into()));
    }
    if shape.contains(&0) {
        return Ok((0, 0));
    }
    let overflow = || Error::InvalidArgument("from_foreign: the layout's extent overflows".into());
    let (mut lo, mut hi) = (0isize, itemsize as isize);
    for (&n, &s) in shape.iter().zip(strides) {
        let span = isize::try_from(n - 1).ok().and_then(|m| m.checked_mul(s)).ok_or_else(overflow)?;
        if span < 0 {
            lo = lo.checked_add(span).ok_or_else(overflow)?;
        } else {
            hi = hi.checked_add(span).ok_or_else(overflow)?;
        }
    }
    Ok((lo, hi))
}

/// An array on memory that another library owns (DLPack's or the CUDA Array Interface's
/// import): `ptr` is the address of the first element on `device`, `strides` are in bytes, and
/// dropping `owner` releases the memory (it is dropped when the last array on it goes, after
/// cuprum's queued work on it has finished; cuprum's pool never sees the memory). A GPU array's
/// home stream is the current stream: order it after the producer's work first ([`wait_for`]).
///
/// # Safety
/// Every element the layout reaches must be valid memory of `device` (for a GPU, of the primary
/// context) for `dtype`, readable and writable, until `owner` is dropped.
pub unsafe fn from_foreign(
    device: Device,
    ptr: u64,
    dtype: DType,
    shape: &[usize],
    strides: &[isize],
    owner: Box<dyn std::any::Any + Send + Sync>,
) -> Result<Array> {
    crate::core::layout::checked_nbytes(shape, dtype.itemsize())?;
    let (lo, hi) = extent(shape, strides, dtype.itemsize())?;
    let base = (ptr as i128 + lo as i128) as u64;
    let bytes = (hi - lo) as usize;
    let storage = match device {
        Device::Cpu => Storage::Cpu(CpuStorage::foreign(base as usize as *mut u8, bytes, owner)),
        Device::Cuda(n) => {
            let dev = crate::backend::cuda::CudaDevice::get(n)?;
            let home = dev.current_stream()?;
            Storage::Cuda(CudaStorage::foreign(base, bytes, dev, home, owner))
        }
    };
    Ok(Array {
        storage: Arc::new(storage),
        dtype,
        shape: shape.to_vec(),
        strides: strides.to_vec(),
        offset: (-lo) as usize,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_host_memory_is_released_by_its_owner() {
        use std::sync::atomic::{AtomicBool, Ordering};
        // The vector is held only to keep the memory alive until the owner drops.
        struct Owner(#[allow(dead_code)] Vec<f64>, Arc<AtomicBool>);
        impl Drop for Owner {
            fn drop(&mut self) {
                self.1.store(true, Ordering::SeqCst);
            }
        }
        let freed = Arc::new(AtomicBool::new(false));
        let data = vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0];
        let ptr = data.as_ptr() as u64;
        let owner = Owner(data, freed.clone());
        // A reversed view of the last four: first element at index 5, stride -8 bytes.
        // SAFETY: the four elements 5, 4, 3, 2 lie in `owner`'s vector, alive until it drops.
        let a = unsafe { from_foreign(Device::Cpu, ptr + 40, DType::Float64, &[4], &[-8], Box::new(owner)) }.unwrap();
        assert_eq!(a.to_vec::<f64>().unwrap(), vec![6.0, 5.0, 4.0, 3.0]);
        assert_eq!(data_ptr(&a), ptr + 40);
        let b = a.slice([crate::SliceElem::Slice { start: None, end: None, step: 2 }]).unwrap();
        drop(a);
        assert!(!freed.load(Ordering::SeqCst), "a view still holds the memory");
        assert_eq!(b.sum(None).unwrap().item::<f64>().unwrap(), 10.0);
        drop(b);
        assert!(freed.load(Ordering::SeqCst));
    }

    #[test]
    fn extents() {
        assert_eq!(extent(&[2, 3], &[24, 8], 8).unwrap(), (0, 48));
        assert_eq!(extent(&[2, 3], &[-24, 8], 8).unwrap(), (-24, 24));
        assert_eq!(extent(&[0, 3], &[-24, 8], 8).unwrap(), (0, 0));
        assert!(extent(&[usize::MAX, 2], &[isize::MAX, 8], 8).is_err());
    }
}
