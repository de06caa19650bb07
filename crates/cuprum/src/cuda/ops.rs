//! CUDA implementations of the backend primitives: each builds a kernel description, looks
//! the kernel up (compiling on first use), lays out the parameters and launches it on the
//! device's stream. Nothing here waits for the GPU.

use super::codegen::{self, EwIn, EwSpec, RedSpec, RED_THREADS};
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

const THREADS: u32 = 256;

/// A kernel parameter's bytes (8-byte aligned storage).
struct Param(Vec<u64>);

impl Param {
    fn of<T: Copy>(v: T) -> Param {
        let n = std::mem::size_of::<T>().div_ceil(8).max(1);
        let mut buf = vec![0u64; n];
        unsafe { std::ptr::write_unaligned(buf.as_mut_ptr() as *mut T, v) };
        Param(buf)
    }
    fn i64s(v: &[i64]) -> Param {
        Param(v.iter().map(|&x| x as u64).collect())
    }
    fn ptr(&mut self) -> *mut c_void {
        self.0.as_mut_ptr() as *mut c_void
    }
}

/// A scalar as a parameter of `dt`'s compute type.
fn scalar_param(s: Scalar, dt: DType) -> Param {
    match dt {
        DType::Bool => Param::of(bool::from_scalar(s) as u8),
        DType::Int8 => Param::of(i8::from_scalar(s)),
        DType::Int16 => Param::of(i16::from_scalar(s)),
        DType::Int32 => Param::of(i32::from_scalar(s)),
        DType::Int64 => Param::of(i64::from_scalar(s)),
        DType::UInt8 => Param::of(u8::from_scalar(s)),
        DType::UInt16 => Param::of(u16::from_scalar(s)),
        DType::UInt32 => Param::of(u32::from_scalar(s)),
        DType::UInt64 => Param::of(u64::from_scalar(s)),
        DType::Float16 => Param::of(f16::from_scalar(s).to_f32()),
        DType::Float32 => Param::of(f32::from_scalar(s)),
        DType::Float64 => Param::of(f64::from_scalar(s)),
    }
}

fn dev_of(a: &Array) -> Result<Arc<CudaDevice>> {
    match &*a.storage {
        Storage::Cuda(c) => Ok(c.dev.clone()),
        Storage::Cpu(_) => Err(Error::DeviceMismatch { op: "cuda kernel".into(), a: a.device(), b: crate::Device::Cuda(0) }),
    }
}

fn dptr(a: &Array) -> Result<u64> {
    match &*a.storage {
        Storage::Cuda(c) => Ok(c.ptr + a.offset as u64),
        Storage::Cpu(_) => Err(Error::DeviceMismatch { op: "cuda kernel".into(), a: a.device(), b: crate::Device::Cuda(0) }),
    }
}

/// An elementwise launch argument.
enum Arg<'a> {
    Arr(&'a Array),
    Scalar(Scalar),
}

/// Generates (or finds), lays out and launches the elementwise kernel `spec` writing `out`.
fn launch_ew(spec: &EwSpec, out: &Array, args: &[Arg<'_>], extra: Vec<Param>) -> Result<()> {
    let dev = dev_of(out)?;
    let n = out.size();
    let mut arrs: Vec<&Array> = vec![out];
    for a in args {
        if let Arg::Arr(x) = a {
            if x.device() != out.device() {
                return Err(Error::DeviceMismatch { op: "elementwise".into(), a: x.device(), b: out.device() });
            }
            arrs.push(x);
        }
    }
    let mut strides: Vec<Vec<isize>> = Vec::with_capacity(arrs.len());
    for a in &arrs {
        strides.push(layout::broadcast_strides(&a.shape, &a.strides, &out.shape).ok_or_else(|| Error::ShapeMismatch {
            op: "elementwise".into(),
            a: a.shape.clone(),
            b: out.shape.clone(),
        })?);
    }
    let refs: Vec<&[isize]> = strides.iter().map(|v| v.as_slice()).collect();
    let (cshape, cst) = layout::collapse(&out.shape, &refs);
    let contiguous = cshape.len() <= 1 && arrs.iter().zip(&cst).all(|(a, s)| s.first().map_or(true, |&s| s == a.itemsize() as isize));
    if !contiguous && cshape.len() > codegen::MAX_DIMS {
        return Err(Error::InvalidArgument(format!(
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
    let name = if vectorize { "kv" } else if contiguous { "k1" } else { "kn" };
    let key = spec.key();
    let k = dev.kernel(&key, name, || spec.source())?;
    let mut params: Vec<Param> = Vec::with_capacity(args.len() + 4 + extra.len());
    params.push(Param::of(n as i64));
    params.push(Param::of(dptr(out)?));
    for (a, inp) in args.iter().zip(&spec.inputs) {
        match a {
            Arg::Arr(x) => params.push(Param::of(dptr(x)?)),
            Arg::Scalar(s) => params.push(scalar_param(*s, inp.compute)),
        }
    }
    params.extend(extra);
    if !contiguous {
        let md = codegen::MAX_DIMS;
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
        params.push(Param::i64s(&lay));
    }
    let per_thread = if vectorize { v as usize } else { 1 };
    let grid = dev.grid_for(n.div_ceil(per_thread), THREADS as usize);
    let mut ptrs: Vec<*mut c_void> = params.iter_mut().map(|p| p.ptr()).collect();
    // SAFETY: the parameters match the generated signature; the arrays outlive the launch
    // because their storage returns to the pool only in stream order.
    unsafe { dev.launch(&k, grid, THREADS, 0, &mut ptrs) }
}

pub(crate) fn assign(out: &Array, src: &Array) -> Result<()> {
    if src.dtype == out.dtype && out.is_c_contiguous() && src.is_c_contiguous() && src.shape == out.shape {
        return dev_of(out)?.memcpy_dtod(dptr(out)?, dptr(src)?, out.nbytes());
    }
    let spec = EwSpec {
        expr: "a0".into(),
        inputs: vec![EwIn { storage: src.dtype, compute: src.dtype, scalar: false }],
        result: src.dtype,
        out: out.dtype,
        params: vec![],
    };
    launch_ew(&spec, out, &[Arg::Arr(src)], vec![])
}

pub(crate) fn fill(out: &Array, v: Scalar) -> Result<()> {
    let spec = EwSpec {
        expr: "a0".into(),
        inputs: vec![EwIn { storage: out.dtype, compute: out.dtype, scalar: true }],
        result: out.dtype,
        out: out.dtype,
        params: vec![],
    };
    launch_ew(&spec, out, &[Arg::Scalar(v)], vec![])
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
    let spec = EwSpec {
        expr: codegen::unary_expr(op, l),
        inputs: vec![EwIn { storage: x.dtype, compute: l, scalar: false }],
        result,
        out: out.dtype,
        params: vec![],
    };
    launch_ew(&spec, out, &[Arg::Arr(x)], vec![])
}

pub(crate) fn binary(op: BinaryOp, l: DType, a: &Input<'_>, b: &Input<'_>, out: &Array) -> Result<()> {
    let result = if op.is_comparison() { DType::Bool } else { l };
    let spec = EwSpec {
        expr: codegen::binary_expr(op, l),
        inputs: vec![ew_in(a, l), ew_in(b, l)],
        result,
        out: out.dtype,
        params: vec![],
    };
    launch_ew(&spec, out, &[arg(a), arg(b)], vec![])
}

pub(crate) fn where_(cond: &Array, x: &Input<'_>, y: &Input<'_>, out: &Array) -> Result<()> {
    let spec = EwSpec {
        expr: "(a0 ? a1 : a2)".into(),
        inputs: vec![EwIn { storage: DType::Bool, compute: DType::Bool, scalar: false }, ew_in(x, out.dtype), ew_in(y, out.dtype)],
        result: out.dtype,
        out: out.dtype,
        params: vec![],
    };
    launch_ew(&spec, out, &[Arg::Arr(cond), arg(x), arg(y)], vec![])
}

pub(crate) fn iota(out: &Array, start: f64, step: f64, last: Option<f64>) -> Result<()> {
    let n = out.size() as i64;
    let (spec, extra) = if out.dtype.is_float() {
        (
            EwSpec {
                expr: "((has_last && i == n - 1) ? last : (start + (double)i * step))".into(),
                inputs: vec![],
                result: DType::Float64,
                out: out.dtype,
                params: vec![("double", "start"), ("double", "step"), ("double", "last"), ("int", "has_last")],
            },
            vec![Param::of(start), Param::of(step), Param::of(last.unwrap_or(0.0)), Param::of(last.is_some() as i32)],
        )
    } else {
        (
            EwSpec {
                expr: "((i64)((u64)istart + (u64)i * (u64)istep))".into(),
                inputs: vec![],
                result: DType::Int64,
                out: out.dtype,
                params: vec![("long long", "istart"), ("long long", "istep")],
            },
            vec![Param::of(start as i64), Param::of(step as i64)],
        )
    };
    let _ = n;
    launch_ew(&spec, out, &[], extra)
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
    let contig = nred > 0 && rs.len() == 1 && rt[0] == x.itemsize() as isize;
    let md = codegen::MAX_DIMS;
    if rs.len() > md || ks.len() > md {
        return Err(Error::InvalidArgument(format!("reduction over more than {md} dimensions that cannot be merged")));
    }
    let spec = RedSpec { op, x: x.dtype, out: out.dtype, contig };
    let key = spec.key();
    let src = || spec.source();
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
        let k = dev.kernel(&key, "cols", src)?;
        let mut params = vec![Param::of(xp), Param::of(op_), Param::of(nout as i64), Param::of(nred as i64), Param::of(ddof), Param::i64s(&lay)];
        let mut ptrs: Vec<*mut c_void> = params.iter_mut().map(|p| p.ptr()).collect();
        let grid = nout.div_ceil(RED_THREADS as usize) as u32;
        return unsafe { dev.launch(&k, grid, RED_THREADS, 0, &mut ptrs) };
    }
    // Split each output's range over several blocks when there are few outputs.
    let target = dev.sm_count as usize * 8;
    let v = (16 / x.itemsize()).max(1);
    let mut splits = if nout >= target { 1 } else { target.div_ceil(nout).min(nred.div_ceil(4096)).max(1) };
    let per = nred.div_ceil(splits).div_ceil(v) * v;
    splits = nred.div_ceil(per).max(1);
    let rows = dev.kernel(&key, "rows", src)?;
    let part = if splits > 1 {
        Some(Array::alloc(&[nout * splits * spec.acc_bytes()], DType::UInt8, out.device(), false)?)
    } else {
        None
    };
    let pp = match &part {
        Some(p) => dptr(p)?,
        None => 0,
    };
    let mut params = vec![
        Param::of(xp),
        Param::of(op_),
        Param::of(pp),
        Param::of(nout as i64),
        Param::of(nred as i64),
        Param::of(per as i64),
        Param::of(splits as i32),
        Param::of(ddof),
        Param::i64s(&lay),
    ];
    let mut ptrs: Vec<*mut c_void> = params.iter_mut().map(|p| p.ptr()).collect();
    unsafe { dev.launch(&rows, (nout * splits) as u32, RED_THREADS, 0, &mut ptrs)? };
    if splits > 1 {
        let fin = dev.kernel(&key, "finish", || spec.source())?;
        let mut params = vec![Param::of(pp), Param::of(op_), Param::of(nred as i64), Param::of(splits as i32), Param::of(ddof)];
        let mut ptrs: Vec<*mut c_void> = params.iter_mut().map(|p| p.ptr()).collect();
        unsafe { dev.launch(&fin, nout as u32, RED_THREADS, 0, &mut ptrs)? };
    }
    // `part` goes back to the pool now; later allocations reuse it only in stream order.
    drop(part);
    Ok(())
}
