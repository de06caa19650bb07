//! CUDA implementations of the backend primitives: each builds a kernel description, looks
//! the kernel up (compiling on first use), lays out the parameters and launches it on the
//! device's stream. Nothing here waits for the GPU.

use crate::array::Array;
use crate::backend::cuda::codegen::{self, EwIn, EwOp, EwSpec, ModKey, Variant};
use crate::backend::cuda::launch::{dev_of, dptr, Params, THREADS};
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout;
use crate::core::ufunc::{BinaryOp, UnaryOp};
use crate::ufunc::Input;

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
        if crate::ufunc::cpu::mixed_int_compare(op, x.dtype, y.dtype) {
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
