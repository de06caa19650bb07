//! CUDA implementations of the backend primitives: each builds a kernel description, looks
//! the kernel up (compiling on first use), lays out the parameters and launches it on the
//! device's stream. Nothing here waits for the GPU.

use super::codegen::{
    self, EwIn, EwOp, EwSpec, ModKey, RedSpec, ScanSpec, Variant, RED_THREADS, SCAN_THREADS, SCAN_TILE,
};
use super::CudaDevice;
use crate::array::Array;
use crate::backend::Input;
use crate::dtype::{DType, Element, Scalar};
use crate::error::{Error, Result};
use crate::layout;
use crate::storage::Storage;
use crate::ufunc::{BinaryOp, ReduceOp, UnaryOp};
use half::f16;
use std::ffi::c_void;
use std::sync::Arc;

pub(crate) const THREADS: u32 = 256;

/// Most 8-byte parameter words and parameters a launch takes (the largest is a strided
/// kernel's layout table: 1 + MAX_DIMS * 5 words).
const PARAM_WORDS: usize = 128;
const PARAM_COUNT: usize = 24;

/// Kernel parameters packed in one inline buffer (8-byte slots; no allocation per launch),
/// and the pointers to each that `cuLaunchKernel` takes.
pub(crate) struct Params {
    data: [u64; PARAM_WORDS],
    len: usize,
    offsets: [usize; PARAM_COUNT],
    count: usize,
}

impl Params {
    pub(crate) fn new() -> Params {
        Params { data: [0; PARAM_WORDS], len: 0, offsets: [0; PARAM_COUNT], count: 0 }
    }
    fn slot(&mut self, words: usize) -> usize {
        let off = self.len;
        assert!(off + words <= PARAM_WORDS && self.count < PARAM_COUNT, "kernel parameters exceed the inline buffer");
        self.len += words;
        self.offsets[self.count] = off;
        self.count += 1;
        off
    }
    pub(crate) fn push<T: Copy>(&mut self, v: T) {
        let off = self.slot(std::mem::size_of::<T>().div_ceil(8).max(1));
        unsafe { std::ptr::write_unaligned(self.data.as_mut_ptr().add(off) as *mut T, v) };
    }
    pub(crate) fn push_i64s(&mut self, v: &[i64]) {
        let off = self.slot(v.len());
        for (k, &x) in v.iter().enumerate() {
            self.data[off + k] = x as u64;
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
        }
    }
    /// Launches `k` with these parameters.
    ///
    /// # Safety
    /// The parameters must match the kernel's signature and the memory they point to must
    /// stay valid until the stream has run the kernel.
    pub(crate) unsafe fn launch(self, dev: &CudaDevice, k: &super::Kernel, grid: u32, block: u32) -> Result<()> {
        self.launch_shmem(dev, k, grid, block, 0)
    }

    /// As [`launch`](Self::launch), with `shmem` bytes of dynamic shared memory.
    ///
    /// # Safety
    /// As `launch`.
    pub(crate) unsafe fn launch_shmem(
        mut self,
        dev: &CudaDevice,
        k: &super::Kernel,
        grid: u32,
        block: u32,
        shmem: u32,
    ) -> Result<()> {
        let base = self.data.as_mut_ptr();
        let mut ptrs = [std::ptr::null_mut::<c_void>(); PARAM_COUNT];
        for (p, &o) in ptrs.iter_mut().zip(&self.offsets[..self.count]) {
            *p = base.add(o) as *mut c_void;
        }
        dev.launch(k, grid, block, shmem, &mut ptrs[..self.count])
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

pub(crate) fn dptr(a: &Array) -> Result<u64> {
    match &*a.storage {
        Storage::Cuda(c) => Ok(c.ptr + a.offset as u64),
        Storage::Cpu(_) => {
            Err(Error::DeviceMismatch { op: "cuda kernel".into(), a: a.device(), b: crate::Device::Cuda(0) })
        }
    }
}

/// An elementwise launch argument.
enum Arg<'a> {
    Arr(&'a Array),
    Scalar(Scalar),
}

/// Finds (compiling on first use), lays out and launches the elementwise kernel `spec`
/// writing `out`. `extra` holds the values of the op's own parameters (iota's start, step).
fn launch_ew(spec: &EwSpec, out: &Array, args: &[Arg<'_>], extra: impl FnOnce(&mut Params)) -> Result<()> {
    let dev = dev_of(out)?;
    let n = out.size();
    let mut arrs: Vec<&Array> = Vec::with_capacity(4);
    arrs.push(out);
    for a in args {
        if let Arg::Arr(x) = a {
            if x.device() != out.device() {
                return Err(Error::DeviceMismatch { op: "elementwise".into(), a: x.device(), b: out.device() });
            }
            arrs.push(x);
        }
    }
    // Fast check: every array C-contiguous with the output's shape (no broadcasting).
    let plain = arrs.iter().all(|a| a.shape == out.shape && a.is_c_contiguous());
    let (cshape, cst) = if plain {
        (Vec::new(), Vec::new())
    } else if out.ndim() == 1 && arrs.iter().all(|a| a.ndim() <= 1) {
        // One dimension: the strides are the arrays' own (0 where broadcast).
        let st = arrs.iter().map(|a| vec![if a.ndim() == 0 || a.shape[0] == 1 { 0 } else { a.strides[0] }]).collect();
        (vec![out.shape[0]], st)
    } else {
        let mut strides: Vec<Vec<isize>> = Vec::with_capacity(arrs.len());
        for a in &arrs {
            strides.push(layout::broadcast_strides(&a.shape, &a.strides, &out.shape).ok_or_else(|| {
                Error::ShapeMismatch { op: "elementwise".into(), a: a.shape.clone(), b: out.shape.clone() }
            })?);
        }
        let refs: Vec<&[isize]> = strides.iter().map(|v| v.as_slice()).collect();
        layout::collapse(&out.shape, &refs)
    };
    let contiguous = plain
        || (cshape.len() <= 1
            && arrs.iter().zip(&cst).all(|(a, s)| s.first().is_none_or(|&s| s == a.itemsize() as isize)));
    if !contiguous && cshape.len() > codegen::MAX_DIMS {
        return Err(Error::NotImplemented(format!(
            "elementwise operation over {} dimensions that cannot be merged (at most {})",
            cshape.len(),
            codegen::MAX_DIMS
        )));
    }
    let v = spec.vec_width();
    let mut vectorize = contiguous && v > 1;
    if vectorize {
        for a in &arrs {
            if dptr(a)? % (v as u64 * a.itemsize() as u64) != 0 {
                vectorize = false;
            }
        }
    }
    let variant = if vectorize {
        Variant::Kv
    } else if contiguous {
        Variant::K1
    } else if cshape.len() == 1 {
        Variant::Ks
    } else {
        Variant::Kn
    };
    let k = dev.kernel(ModKey::Ew(*spec, variant))?;
    let md = codegen::MAX_DIMS;
    let mut params = Params::new();
    params.push(n as i64);
    params.push(dptr(out)?);
    for (a, inp) in args.iter().zip(spec.ins()) {
        match a {
            Arg::Arr(x) => params.push(dptr(x)?),
            Arg::Scalar(s) => params.push_scalar(*s, inp.compute),
        }
    }
    extra(&mut params);
    if variant == Variant::Ks {
        for st in &cst {
            params.push(st[0] as i64);
        }
    } else if !contiguous {
        let mut lay = vec![0i64; 1 + md * (1 + cst.len())];
        lay[0] = cshape.len() as i64;
        for (d, &x) in cshape.iter().enumerate() {
            lay[1 + d] = x as i64;
        }
        for (q, st) in cst.iter().enumerate() {
            for (d, &x) in st.iter().enumerate() {
                lay[1 + md * (1 + q) + d] = x as i64;
            }
        }
        params.push_i64s(&lay);
    }
    let per_thread = if vectorize { v as usize } else { 1 };
    let grid = dev.grid_for(n.div_ceil(per_thread), THREADS as usize);
    // SAFETY: the parameters match the generated signature; the arrays outlive the launch
    // because their storage returns to the pool only in stream order.
    unsafe { params.launch(&dev, &k, grid, THREADS) }
}

pub(crate) fn assign(out: &Array, src: &Array) -> Result<()> {
    if src.dtype == out.dtype && out.is_c_contiguous() && src.is_c_contiguous() && src.shape == out.shape {
        return dev_of(out)?.memcpy_dtod(dptr(out)?, dptr(src)?, out.nbytes());
    }
    let spec = EwSpec::new(
        EwOp::Copy,
        &[EwIn { storage: src.dtype, compute: src.dtype, scalar: false }],
        src.dtype,
        out.dtype,
    );
    launch_ew(&spec, out, &[Arg::Arr(src)], |_| {})
}

pub(crate) fn fill(out: &Array, v: Scalar) -> Result<()> {
    let spec =
        EwSpec::new(EwOp::Copy, &[EwIn { storage: out.dtype, compute: out.dtype, scalar: true }], out.dtype, out.dtype);
    launch_ew(&spec, out, &[Arg::Scalar(v)], |_| {})
}

fn arg<'a>(x: &'a Input<'a>) -> Arg<'a> {
    match x {
        Input::Array(a) => Arg::Arr(a),
        Input::Scalar(s) => Arg::Scalar(*s),
    }
}

fn ew_in(x: &Input<'_>, compute: DType) -> EwIn {
    match x {
        Input::Array(a) => EwIn { storage: a.dtype, compute, scalar: false },
        Input::Scalar(_) => EwIn { storage: compute, compute, scalar: true },
    }
}

pub(crate) fn unary(op: UnaryOp, l: DType, x: &Array, out: &Array) -> Result<()> {
    let result = if out.dtype == DType::Bool && l != DType::Bool { DType::Bool } else { l };
    let spec =
        EwSpec::new(EwOp::Unary(op, l), &[EwIn { storage: x.dtype, compute: l, scalar: false }], result, out.dtype);
    launch_ew(&spec, out, &[Arg::Arr(x)], |_| {})
}

pub(crate) fn binary(op: BinaryOp, l: DType, a: &Input<'_>, b: &Input<'_>, out: &Array) -> Result<()> {
    if let (Input::Array(x), Input::Array(y)) = (a, b) {
        if crate::cpu::kernels::mixed_int_compare(op, x.dtype, y.dtype) {
            let wide = |d: DType| if d.is_signed_int() { DType::Int64 } else { DType::UInt64 };
            let ins = [
                EwIn { storage: x.dtype, compute: wide(x.dtype), scalar: false },
                EwIn { storage: y.dtype, compute: wide(y.dtype), scalar: false },
            ];
            let spec = EwSpec::new(EwOp::CmpMixed(op), &ins, DType::Bool, out.dtype);
            return launch_ew(&spec, out, &[Arg::Arr(x), Arg::Arr(y)], |_| {});
        }
    }
    let result = if op.is_comparison() { DType::Bool } else { l };
    let spec = EwSpec::new(EwOp::Binary(op, l), &[ew_in(a, l), ew_in(b, l)], result, out.dtype);
    launch_ew(&spec, out, &[arg(a), arg(b)], |_| {})
}

pub(crate) fn where_(cond: &Array, x: &Input<'_>, y: &Input<'_>, out: &Array) -> Result<()> {
    let c = EwIn { storage: DType::Bool, compute: DType::Bool, scalar: false };
    let spec = EwSpec::new(EwOp::Where, &[c, ew_in(x, out.dtype), ew_in(y, out.dtype)], out.dtype, out.dtype);
    launch_ew(&spec, out, &[Arg::Arr(cond), arg(x), arg(y)], |_| {})
}

pub(crate) fn iota(out: &Array, start: f64, step: f64, last: Option<f64>) -> Result<()> {
    if out.dtype.is_float() {
        let spec = EwSpec::new(EwOp::IotaF, &[], DType::Float64, out.dtype);
        launch_ew(&spec, out, &[], |p| {
            p.push(start);
            p.push(step);
            p.push(last.unwrap_or(0.0));
            p.push(last.is_some() as i32);
        })
    } else {
        let spec = EwSpec::new(EwOp::IotaI, &[], DType::Int64, out.dtype);
        launch_ew(&spec, out, &[], |p| {
            p.push(start as i64);
            p.push(step as i64);
        })
    }
}

pub(crate) fn reduce(op: ReduceOp, x: &Array, axes: &[usize], ddof: f64, out: &Array) -> Result<()> {
    let dev = dev_of(out)?;
    let nd = x.ndim();
    let kept: Vec<usize> = (0..nd).filter(|a| !axes.contains(a)).collect();
    let rshape: Vec<usize> = axes.iter().map(|&a| x.shape[a]).collect();
    let rst: Vec<isize> = axes.iter().map(|&a| x.strides[a]).collect();
    let kshape: Vec<usize> = kept.iter().map(|&a| x.shape[a]).collect();
    let kst: Vec<isize> = kept.iter().map(|&a| x.strides[a]).collect();
    let nred: usize = rshape.iter().product();
    let nout: usize = kshape.iter().product();
    let (mut rs, mut rt) = {
        let (s, t) = layout::collapse(&rshape, &[&rst]);
        (s, t.into_iter().next().unwrap_or_default())
    };
    if rs.is_empty() || nred == 0 {
        rs = vec![nred.max(1)];
        rt = vec![0];
    }
    let (mut ks, mut kt) = {
        let (s, t) = layout::collapse(&kshape, &[&kst]);
        (s, t.into_iter().next().unwrap_or_default())
    };
    if ks.is_empty() {
        ks = vec![1];
        kt = vec![0];
    }
    let md = codegen::MAX_DIMS;
    if rs.len() > md || ks.len() > md {
        return Err(Error::NotImplemented(format!("reduction over more than {md} dimensions that cannot be merged")));
    }
    let contig = nred > 0 && rs.len() == 1 && rt[0] == x.itemsize() as isize;
    let spec = RedSpec { op, x: x.dtype, out: out.dtype, contig };
    let mut lay = vec![0i64; 2 + 4 * md];
    lay[0] = rs.len() as i64;
    lay[1] = ks.len() as i64;
    for d in 0..rs.len() {
        lay[2 + d] = rs[d] as i64;
        lay[2 + md + d] = rt[d] as i64;
    }
    for d in 0..ks.len() {
        lay[2 + 2 * md + d] = ks[d] as i64;
        lay[2 + 3 * md + d] = kt[d] as i64;
    }
    let xp = dptr(x)?;
    let op_ = dptr(out)?;
    let use_rows = contig || nred >= 2048 || nout < dev.sm_count as usize * 64;
    if !use_rows || nred == 0 {
        let k = dev.kernel(ModKey::Red(spec, Variant::Cols))?;
        let mut p = Params::new();
        p.push(xp);
        p.push(op_);
        p.push(nout as i64);
        p.push(nred as i64);
        p.push(ddof);
        p.push_i64s(&lay);
        let grid = nout.div_ceil(RED_THREADS as usize) as u32;
        return unsafe { p.launch(&dev, &k, grid, RED_THREADS) };
    }
    // Split each output's range over several blocks when there are few outputs.
    let target = dev.sm_count as usize * 8;
    let v = (16 / x.itemsize()).max(1);
    let mut splits = if nout >= target { 1 } else { target.div_ceil(nout).min(nred.div_ceil(4096)).max(1) };
    let per = nred.div_ceil(splits).div_ceil(v) * v;
    splits = nred.div_ceil(per).max(1);
    let rows = dev.kernel(ModKey::Red(spec, Variant::Rows))?;
    let part = if splits > 1 {
        Some(Array::alloc(&[nout * splits * spec.acc_bytes()], DType::UInt8, out.device(), false)?)
    } else {
        None
    };
    let pp = match &part {
        Some(p) => dptr(p)?,
        None => 0,
    };
    let count = if splits > 1 { dev.reduce_counters(nout)? } else { 0 };
    let mut p = Params::new();
    p.push(xp);
    p.push(op_);
    p.push(pp);
    p.push(count);
    p.push(nout as i64);
    p.push(nred as i64);
    p.push(per as i64);
    p.push(splits as i32);
    p.push(ddof);
    p.push_i64s(&lay);
    unsafe { p.launch(&dev, &rows, (nout * splits) as u32, RED_THREADS)? };
    // `part` goes back to the pool now; later allocations reuse it only in stream order.
    drop(part);
    Ok(())
}

/// Inclusive scans of the contiguous lanes (last axis) of `x` into `y`, one launch.
pub(crate) fn scan(op: crate::scan::ScanOp, x: &Array, y: &Array) -> Result<()> {
    let dev = dev_of(y)?;
    let len = *x.shape.last().unwrap_or(&1);
    if len == 0 || y.size() == 0 {
        return Ok(());
    }
    let rows = y.size() / len;
    let tpr = len.div_ceil(SCAN_TILE);
    let ntiles = rows * tpr;
    if ntiles > i32::MAX as usize {
        return Err(Error::NotImplemented(format!("scan over {ntiles} tiles (at most {})", i32::MAX)));
    }
    let spec = ScanSpec { prod: op == crate::scan::ScanOp::Prod, x: x.dtype, out: y.dtype };
    let k = dev.kernel(ModKey::Scan(spec))?;
    // The tile counter (8 bytes) and the tile flags, zeroed by one memset, then the
    // aggregates and inclusive prefixes (8-byte slots).
    let flags_bytes = (ntiles * 4).next_multiple_of(8);
    let bytes = 8 + flags_bytes + 2 * ntiles * 8;
    let tmp = Array::alloc(&[bytes], DType::UInt8, y.device(), false)?;
    let t = dptr(&tmp)?;
    dev.memset_zero(t, 8 + flags_bytes)?;
    let vals = t + 8 + flags_bytes as u64;
    let mut p = Params::new();
    p.push(dptr(x)?);
    p.push(dptr(y)?);
    p.push(len as i64);
    p.push(tpr as i64);
    p.push(t + 8);
    p.push(vals);
    p.push(vals + 8 * ntiles as u64);
    p.push(t);
    // SAFETY: the parameters match `ScanSpec::source`; `tmp` returns to the pool in stream order.
    unsafe { p.launch(&dev, &k, ntiles as u32, SCAN_THREADS as u32) }
}
