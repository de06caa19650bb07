//! Kernel launches: parameters packed inline, the device and pointer of an array.

use super::{CudaDevice, Kernel};
use crate::array::Array;
use crate::backend::storage::Storage;
use crate::core::dtype::{DType, Element, Scalar};
use crate::core::error::{Error, Result};
use half::f16;
use std::ffi::c_void;
use std::sync::Arc;

/// Threads per block of every kernel family that has no reason for another size (the radix
/// kernels use one thread per digit: `sort::cuda::RADIX`). Kernels get it as `-DTHREADS`.
pub(crate) const THREADS: u32 = 256;

/// Most dimensions a strided launch takes after collapsing (each operand's strides travel
/// in the kernel's parameters).
pub(crate) const MAX_DIMS: usize = 16;

/// The layout table of a strided launch (elementwise.cu's `kn`, reduce.cu's fused inputs): the
/// number of dimensions, then `MAX_DIMS` slots of the collapsed shape, then `MAX_DIMS` slots
/// of each operand's byte strides.
pub(crate) fn layout_table(shape: &[usize], strides: &[Vec<isize>]) -> Vec<i64> {
    let mut t = vec![0i64; 1 + MAX_DIMS * (1 + strides.len())];
    t[0] = shape.len() as i64;
    for (d, &x) in shape.iter().enumerate() {
        t[1 + d] = x as i64;
    }
    for (q, st) in strides.iter().enumerate() {
        for (d, &x) in st.iter().enumerate() {
            t[1 + MAX_DIMS * (1 + q) + d] = x as i64;
        }
    }
    t
}

/// How a `rows` reduction kernel (reduce.cu's plain and fused reductions, the source
/// `ReductionKernel`'s reduction.cu) spreads `nout` outputs of `nred` elements each over
/// blocks: one block per output, or several when there are too few outputs to fill the GPU
/// (then a scratch buffer of partial accumulators and the stream's zeroed counters, with which
/// the last block of an output merges the others'). Every `rows` launch splits the same way,
/// so a fused reduction adds in the same order as the plain one.
pub(crate) struct RowsSplit {
    /// Blocks per output.
    pub splits: usize,
    /// Elements per block (a multiple of the vector width).
    pub per: usize,
    /// The partial accumulators (`splits` per output), when `splits > 1`.
    part: Option<Array>,
    /// The counters (`reduce_counters`), or 0 when `splits == 1`.
    pub count: u64,
}

impl RowsSplit {
    /// The split of `nout` outputs of `nred` elements read `vec` at a time (1 when the kernel
    /// does not load vectors), with accumulators of at most `acc_bytes`, on `dev`.
    pub(crate) fn new(dev: &CudaDevice, nout: usize, nred: usize, vec: usize, acc_bytes: usize) -> Result<RowsSplit> {
        let (splits, per) = rows_split(dev.sm_count as usize, nout, nred, vec);
        let (part, count) = if splits > 1 {
            let part = Array::alloc(&[nout * splits * acc_bytes], DType::UInt8, dev.device(), false)?;
            (Some(part), dev.reduce_counters(nout)?)
        } else {
            (None, 0)
        };
        Ok(RowsSplit { splits, per, part, count })
    }

    /// The partial accumulators' device pointer (0 when there are none).
    pub(crate) fn part(&self) -> Result<u64> {
        dptr_opt(self.part.as_ref())
    }

    /// The launch's grid: `splits` blocks per output.
    pub(crate) fn blocks(&self, nout: usize) -> u32 {
        (nout * self.splits) as u32
    }
}

/// (blocks per output, elements per block rounded up to `vec`) for `nout` outputs of `nred`
/// elements on `sms` multiprocessors: enough blocks for eight per multiprocessor, each with at
/// least 4096 elements.
fn rows_split(sms: usize, nout: usize, nred: usize, vec: usize) -> (usize, usize) {
    let target = sms * 8;
    let splits = if nout >= target { 1 } else { target.div_ceil(nout).min(nred.div_ceil(4096)).max(1) };
    let per = nred.div_ceil(splits).div_ceil(vec) * vec;
    (nred.div_ceil(per).max(1), per)
}

/// Most 8-byte parameter words and parameters a launch takes (the largest is a strided
/// kernel's layout table: 1 + MAX_DIMS * 5 words).
const PARAM_WORDS: usize = 256;
const PARAM_COUNT: usize = 64;

/// Kernel parameters packed in one inline buffer (8-byte slots; no allocation per launch),
/// and the pointers to each that `cuLaunchKernel` takes.
pub(crate) struct Params {
    data: [std::mem::MaybeUninit<u64>; PARAM_WORDS],
    len: usize,
    offsets: [usize; PARAM_COUNT],
    count: usize,
}

impl Params {
    pub(crate) fn new() -> Params {
        Params {
            data: [const { std::mem::MaybeUninit::uninit() }; PARAM_WORDS],
            len: 0,
            offsets: [0; PARAM_COUNT],
            count: 0,
        }
    }
    fn slot(&mut self, words: usize) -> usize {
        let off = self.len;
        assert!(off + words <= PARAM_WORDS && self.count < PARAM_COUNT, "kernel parameters exceed the inline buffer");
        self.len += words;
        self.offsets[self.count] = off;
        self.count += 1;
        off
    }
    /// Checks that one more parameter of `words` 8-byte words fits (a user kernel's launch,
    /// `what`, may have too many: ValueError).
    pub(crate) fn room(&self, words: usize, what: &str) -> Result<()> {
        if self.len + words <= PARAM_WORDS && self.count < PARAM_COUNT {
            return Ok(());
        }
        Err(Error::Value(format!(
            "{what}: too many parameters for one launch (at most {PARAM_COUNT}, {} bytes)",
            PARAM_WORDS * 8
        )))
    }
    pub(crate) fn push<T: Copy>(&mut self, v: T) {
        let off = self.slot(std::mem::size_of::<T>().div_ceil(8).max(1));
        // SAFETY: `slot` reserved `size_of::<T>()` bytes (rounded up to words) at word `off`,
        // within `data` (it asserts so); the write is unaligned and `T: Copy` has no drop.
        unsafe { std::ptr::write_unaligned(self.data.as_mut_ptr().add(off) as *mut T, v) };
    }
    pub(crate) fn push_i64s(&mut self, v: &[i64]) {
        let off = self.slot(v.len());
        for (k, &x) in v.iter().enumerate() {
            self.data[off + k] = std::mem::MaybeUninit::new(x as u64);
        }
    }
    pub(crate) fn push_scalar(&mut self, s: Scalar, dt: DType) {
        match dt {
            DType::Bool => self.push(bool::from_scalar(s) as u8),
            DType::Int8 => self.push(i8::from_scalar(s)),
            DType::Int16 => self.push(i16::from_scalar(s)),
            DType::Int32 => self.push(i32::from_scalar(s)),
            DType::Int64 => self.push(i64::from_scalar(s)),
            DType::UInt8 => self.push(u8::from_scalar(s)),
            DType::UInt16 => self.push(u16::from_scalar(s)),
            DType::UInt32 => self.push(u32::from_scalar(s)),
            DType::UInt64 => self.push(u64::from_scalar(s)),
            DType::Float16 => self.push(f16::from_scalar(s).to_f32()),
            DType::Float32 => self.push(f32::from_scalar(s)),
            DType::Float64 => self.push(f64::from_scalar(s)),
            DType::Complex64 => self.push(num_complex::Complex::<f32>::from_scalar(s)),
            DType::Complex128 => self.push(num_complex::Complex::<f64>::from_scalar(s)),
        }
    }
    /// Launches `k` with these parameters.
    ///
    /// # Safety
    /// The parameters must match the kernel's signature and the memory they point to must
    /// stay valid until the stream has run the kernel.
    pub(crate) unsafe fn launch(self, dev: &CudaDevice, k: &Kernel, grid: u32, block: u32) -> Result<()> {
        // SAFETY: the caller's contract (see `# Safety`).
        unsafe { self.launch_shmem(dev, k, grid, block, 0) }
    }

    /// As [`launch`](Self::launch), with `shmem` bytes of dynamic shared memory.
    ///
    /// # Safety
    /// As `launch`.
    pub(crate) unsafe fn launch_shmem(
        self,
        dev: &CudaDevice,
        k: &Kernel,
        grid: u32,
        block: u32,
        shmem: u32,
    ) -> Result<()> {
        // SAFETY: the caller's contract, as `launch_2d`'s.
        unsafe { self.launch_2d(dev, k, (grid, 1), (block, 1), shmem) }
    }

    /// As [`launch`](Self::launch), with 3-d grids and blocks.
    ///
    /// # Safety
    /// As `launch`.
    pub(crate) unsafe fn launch_3d(
        mut self,
        dev: &CudaDevice,
        k: &Kernel,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shmem: u32,
    ) -> Result<()> {
        let base = self.data.as_mut_ptr();
        let mut ptrs = [std::ptr::null_mut::<c_void>(); PARAM_COUNT];
        for (p, &o) in ptrs.iter_mut().zip(&self.offsets[..self.count]) {
            // SAFETY: every offset was reserved by `slot`, so it lies within `data`.
            *p = unsafe { base.add(o) } as *mut c_void;
        }
        // SAFETY: as `launch_2d`'s.
        unsafe { dev.launch_3d(k, grid, block, shmem, &mut ptrs[..self.count]) }
    }

    /// As [`launch_shmem`](Self::launch_shmem), with a 2-d grid and 2-d blocks.
    ///
    /// # Safety
    /// As `launch`.
    pub(crate) unsafe fn launch_2d(
        mut self,
        dev: &CudaDevice,
        k: &Kernel,
        grid: (u32, u32),
        block: (u32, u32),
        shmem: u32,
    ) -> Result<()> {
        let base = self.data.as_mut_ptr();
        let mut ptrs = [std::ptr::null_mut::<c_void>(); PARAM_COUNT];
        for (p, &o) in ptrs.iter_mut().zip(&self.offsets[..self.count]) {
            // SAFETY: every offset was reserved by `slot`, so it lies within `data`.
            *p = unsafe { base.add(o) } as *mut c_void;
        }
        // SAFETY: `ptrs` points at the packed values in `self.data`, alive for the whole call
        // (the driver copies them); the kernel's signature and the lifetime of the memory the
        // values point to are the caller's contract.
        unsafe { dev.launch(k, grid, block, shmem, &mut ptrs[..self.count]) }
    }
}

pub(crate) fn dev_of(a: &Array) -> Result<Arc<CudaDevice>> {
    match &*a.storage {
        Storage::Cuda(c) => Ok(c.dev.clone()),
        Storage::Cpu(_) => {
            Err(Error::DeviceMismatch { op: "cuda kernel".into(), a: a.device(), b: crate::Device::Cuda(0) })
        }
    }
}

/// The device address of `a`, or 0 (a null pointer) for `None`: a kernel's optional operand.
pub(crate) fn dptr_opt(a: Option<&Array>) -> Result<u64> {
    a.map_or(Ok(0), dptr)
}

/// The device address of `a`, for work about to be queued on the current stream (which is
/// noted as a user of the block: the pool's cross-stream rule, `stream.rs`).
pub(crate) fn dptr(a: &Array) -> Result<u64> {
    match &*a.storage {
        Storage::Cuda(c) => {
            c.note_use()?;
            Ok(c.ptr + a.offset as u64)
        }
        Storage::Cpu(_) => {
            Err(Error::DeviceMismatch { op: "cuda kernel".into(), a: a.device(), b: crate::Device::Cuda(0) })
        }
    }
}

/// A zeroed 16-byte out-of-range record on `like`'s device: kernels that skip a bad index
/// write its tag plus one (the indexing kernels: the axis; a grid kernel: the index) and a
/// value (the index; the slice's length). See [`read_err`].
pub(crate) fn err_record(like: &Array) -> Result<Array> {
    Array::alloc(&[2], DType::UInt64, like.device(), true)
}

/// Reads an out-of-range record back (one 16-byte copy; waits for the kernels before it):
/// `None` when nothing was recorded, else (tag, value).
pub(crate) fn read_err(rec: &Array) -> Result<Option<(usize, i64)>> {
    let dev = dev_of(rec)?;
    let mut b = [0u8; 16];
    dev.dtoh(&mut b, dptr(rec)?, false)?;
    let tag = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
    let value = i64::from_le_bytes(b[8..].try_into().expect("8 bytes"));
    Ok(if tag == 0 { None } else { Some((tag as usize - 1, value)) })
}

#[cfg(test)]
mod tests {
    #[test]
    fn layout_table_slots() {
        let t = super::layout_table(&[3, 5], &[vec![40, 8], vec![-4, 0]]);
        let m = super::MAX_DIMS;
        assert_eq!(t.len(), 1 + 3 * m);
        assert_eq!((t[0], t[1], t[2], t[3]), (2, 3, 5, 0));
        assert_eq!((t[1 + m], t[2 + m], t[3 + m]), (40, 8, 0));
        assert_eq!((t[1 + 2 * m], t[2 + 2 * m]), (-4, 0));
    }

    /// Each output's elements are covered once: `splits` blocks of `per` elements (a multiple
    /// of the vector width) reach `nred` and the last block is not empty; many outputs take
    /// one block each, few outputs of many elements several (at least 4096 elements a block).
    #[test]
    fn rows_split_covers_each_output() {
        for (nout, nred, vec) in [(1, 100_000_000, 4), (3, 5000, 1), (7, 1 << 20, 2), (5000, 1 << 20, 4), (1, 1, 16)] {
            let (splits, per) = super::rows_split(132, nout, nred, vec);
            assert_eq!(per % vec, 0);
            assert!(splits * per >= nred && (splits - 1) * per < nred, "{nout} {nred} {vec}: {splits} x {per}");
            if nout >= 132 * 8 {
                assert_eq!(splits, 1);
            }
        }
        assert_eq!(super::rows_split(132, 1, 100_000_000, 4).0, 132 * 8);
        assert_eq!(super::rows_split(132, 1, 8192, 4).0, 2);
    }
}
