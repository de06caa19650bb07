//! The CUDA elementwise primitives (`elementwise.cu`): each builds a kernel description,
//! looks the kernel up (compiling on first use), lays out the parameters and launches it on
//! the device's stream. Nothing here waits for the GPU.

use crate::array::Array;
use crate::backend::cuda::codegen::{compute_ty, load_cvt, storage_ty, store_cvt, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::MAX_DIMS;
use crate::backend::cuda::launch::{dev_of, dptr, Params, THREADS};
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout;
use crate::core::ufunc::{BinaryOp, UnaryOp};
use crate::ufunc::Input;
use std::fmt::Write;

/// An argument of an elementwise kernel: ufunc's [`Operand`](super::Operand) (an array, or a
/// scalar resolved to the loop dtype).
pub(crate) use super::Operand as Arg;

/// Finds (compiling on first use), lays out and launches the elementwise kernel `spec`
/// writing `out`. `extra` holds the values of the op's own parameters (iota's start, step).
fn launch_ew(spec: &EwSpec, out: &Array, args: &[Arg<'_>], extra: impl FnOnce(&mut Params)) -> Result<()> {
    let computes: Vec<DType> = spec.ins().map(|x| x.compute).collect();
    launch_layout(out, args, &computes, spec.vec_width(), THREADS, |dev, v| dev.kernel(&EwKey(*spec, v)), extra)
}

/// Elements a thread of `elementwise.cu`'s `ks` (its `KS_U`).
const KS_U: usize = 4;

/// Lays out and launches an elementwise kernel of `elementwise.cu`'s layouts writing `out`
/// (the ufuncs', and the user kernels' of `kernel/`): picks the layout variant, asks `kernel`
/// for the kernel of that variant, and pushes the parameters (scalar inputs in the C type of
/// `computes[k]`; `extra` the op's own).
pub(crate) fn launch_layout(
    out: &Array,
    args: &[Arg<'_>],
    computes: &[DType],
    vec_width: u32,
    threads: u32,
    kernel: impl FnOnce(
        &crate::backend::cuda::CudaDevice,
        Variant,
    ) -> Result<std::sync::Arc<crate::backend::cuda::kernels::Kernel>>,
    extra: impl FnOnce(&mut Params),
) -> Result<()> {
    let dev = dev_of(out)?;
    let n = out.size();
    let mut arrs: Vec<&Array> = Vec::with_capacity(4);
    arrs.push(out);
    for a in args {
        if let Arg::Array(x) = a {
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
            strides.push(a.strides_to(&out.shape, "elementwise")?);
        }
        let refs: Vec<&[isize]> = strides.iter().map(|v| v.as_slice()).collect();
        layout::collapse(&out.shape, &refs)
    };
    let contiguous = plain
        || (cshape.len() <= 1
            && arrs.iter().zip(&cst).all(|(a, s)| s.first().is_none_or(|&s| s == a.itemsize() as isize)));
    if !contiguous && cshape.len() > MAX_DIMS {
        return Err(Error::NotImplemented(format!(
            "elementwise operation over {} dimensions that cannot be merged (at most {})",
            cshape.len(),
            MAX_DIMS
        )));
    }
    let v = vec_width;
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
    let k = kernel(&dev, variant)?;
    let mut params = Params::new();
    params.push(n as i64);
    params.push(dptr(out)?);
    for (a, &compute) in args.iter().zip(computes) {
        match a {
            Arg::Array(x) => params.push(dptr(x)?),
            Arg::Scalar(s) => params.push_scalar(*s, compute),
        }
    }
    extra(&mut params);
    if variant == Variant::Ks {
        for st in &cst {
            params.push(st[0] as i64);
        }
    } else if !contiguous {
        params.push_i64s(&crate::backend::cuda::launch::layout_table(&cshape, &cst));
    }
    let grid = match variant {
        Variant::Kv => dev.grid_for(n.div_ceil(v as usize), threads as usize),
        // One pass of `ks`' loop: KS_U elements a thread, so that each has its loads in flight
        // at once (elementwise.cu).
        Variant::Ks => n.div_ceil(threads as usize * KS_U).clamp(1, i32::MAX as usize) as u32,
        _ => dev.grid_for(n, threads as usize),
    };
    // SAFETY: the parameters match the generated signature; the arrays outlive the launch
    // because their storage returns to the pool only in stream order.
    unsafe { params.launch(&dev, &k, grid, threads) }
}

pub(crate) fn assign(out: &Array, src: &Array) -> Result<()> {
    if src.dtype == out.dtype && out.is_c_contiguous() && src.is_c_contiguous() && src.shape == out.shape {
        return dev_of(out)?.memcpy_dtod(dptr(out)?, dptr(src)?, out.nbytes());
    }
    // A copy within one float dtype moves bits, as NumPy's does: through unsigned integers of
    // the same width, not through float registers (float16 is widened to float there, which
    // would make every NaN the canonical one).
    let bits = match src.dtype {
        DType::Float16 => Some(DType::UInt16),
        DType::Float32 => Some(DType::UInt32),
        DType::Float64 => Some(DType::UInt64),
        _ => None,
    };
    if let (true, Some(bits)) = (src.dtype == out.dtype, bits) {
        let (mut o, mut s) = (out.clone(), src.clone());
        o.dtype = bits;
        s.dtype = bits;
        return assign(&o, &s);
    }
    let spec = EwSpec::new(
        EwOp::Copy,
        &[EwIn { storage: src.dtype, compute: src.dtype, scalar: false }],
        src.dtype,
        out.dtype,
    );
    launch_ew(&spec, out, &[Arg::Array(src)], |_| {})
}

pub(crate) fn fill(out: &Array, v: Scalar) -> Result<()> {
    let spec =
        EwSpec::new(EwOp::Copy, &[EwIn { storage: out.dtype, compute: out.dtype, scalar: true }], out.dtype, out.dtype);
    launch_ew(&spec, out, &[Arg::Scalar(v)], |_| {})
}

fn arg<'a>(x: &'a Input<'a>) -> Arg<'a> {
    match x {
        Input::Array(a) => Arg::Array(a),
        Input::Scalar(s) => Arg::Scalar(*s),
    }
}

fn ew_in(x: &Input<'_>, compute: DType) -> EwIn {
    match x {
        Input::Array(a) => EwIn { storage: a.dtype, compute, scalar: false },
        Input::Scalar(_) => EwIn { storage: compute, compute, scalar: true },
    }
}

/// The dtype whose compute type a unary expression in loop dtype `l` yields.
pub(crate) fn unary_result(op: UnaryOp, l: DType, out: DType) -> DType {
    if out == DType::Bool && l != DType::Bool {
        DType::Bool
    } else if op == UnaryOp::Absolute {
        // |z| of a complex number is real.
        l.real_dtype()
    } else {
        l
    }
}

pub(crate) fn unary(op: UnaryOp, l: DType, x: &Array, out: &Array) -> Result<()> {
    let result = unary_result(op, l, out.dtype);
    let spec =
        EwSpec::new(EwOp::Unary(op, l), &[EwIn { storage: x.dtype, compute: l, scalar: false }], result, out.dtype);
    launch_ew(&spec, out, &[Arg::Array(x)], |_| {})
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
            return launch_ew(&spec, out, &[Arg::Array(x), Arg::Array(y)], |_| {});
        }
    }
    let result = if op.is_comparison() { DType::Bool } else { l };
    let spec = EwSpec::new(EwOp::Binary(op, l), &[ew_in(a, l), ew_in(b, l)], result, out.dtype);
    launch_ew(&spec, out, &[arg(a), arg(b)], |_| {})
}

pub(crate) fn where_(cond: &Array, x: &Input<'_>, y: &Input<'_>, out: &Array) -> Result<()> {
    let c = EwIn { storage: DType::Bool, compute: DType::Bool, scalar: false };
    let spec = EwSpec::new(EwOp::Where, &[c, ew_in(x, out.dtype), ew_in(y, out.dtype)], out.dtype, out.dtype);
    launch_ew(&spec, out, &[Arg::Array(cond), arg(x), arg(y)], |_| {})
}

/// `out[i] = start + i * step`; the ramp's kind matches the output's (`ufunc::iota` makes it so).
pub(crate) fn iota(out: &Array, ramp: super::Ramp) -> Result<()> {
    match ramp {
        super::Ramp::Float { start, step, last } => {
            let spec = EwSpec::new(EwOp::IotaF, &[], DType::Float64, out.dtype);
            launch_ew(&spec, out, &[], |p| {
                p.push(start);
                p.push(step);
                p.push(last.unwrap_or(0.0));
                p.push(last.is_some() as i32);
            })
        }
        super::Ramp::Int { start, step } => {
            let spec = EwSpec::new(EwOp::IotaI, &[], DType::Int64, out.dtype);
            launch_ew(&spec, out, &[], |p| {
                p.push(start);
                p.push(step);
            })
        }
    }
}

// ------------------------------------------------------------------------------ kernels

fn fsuffix(l: DType) -> &'static str {
    if l == DType::Float64 {
        ""
    } else {
        "f"
    }
}

/// C expression of a unary ufunc over `a` in loop dtype `l`.
pub(crate) fn unary_expr(op: UnaryOp, l: DType) -> String {
    use UnaryOp::*;
    let t = compute_ty(l);
    if l.is_complex() {
        // complex.cuh's functions (`resolve` rejects cbrt, floor, ceil, trunc and invert).
        let call = |n: &str| format!("{n}(a0)");
        return match op {
            Negative => "(-a0)".into(),
            Positive => "a0".into(),
            Conjugate => call("cconj"),
            Absolute => call("cabs_"),
            Sign => call("csign"),
            Square => "(a0 * a0)".into(),
            Reciprocal => call("crecip"),
            Sqrt => call("csqrt_"),
            Exp => call("cexp_"),
            Exp2 => call("cexp2_"),
            Expm1 => call("cexpm1_"),
            Log => call("clog_"),
            Log2 => call("clog2_"),
            Log10 => call("clog10_"),
            Log1p => call("clog1p_"),
            Sin => call("csin_"),
            Cos => call("ccos_"),
            Tan => call("ctan_"),
            Arcsin => call("casin_"),
            Arccos => call("cacos_"),
            Arctan => call("catan_"),
            Sinh => call("csinh_"),
            Cosh => call("ccosh_"),
            Tanh => call("ctanh_"),
            Rint => call("crint"),
            LogicalNot => "(!cnonzero(a0))".into(),
            IsNan => call("cisnan"),
            IsInf => call("cisinf"),
            IsFinite => call("cisfinite"),
            Cbrt | Floor | Ceil | Trunc | Invert | Erf | Erfc | Ndtr | Ndtri => {
                unreachable!("no complex loop for {}", op.name())
            }
        };
    }
    if l.is_float() {
        let f = fsuffix(l);
        let call = |n: &str| format!("{n}{f}(a0)");
        return match op {
            // Bit operations (prelude.cuh): the sign of a NaN as NumPy's.
            Negative => "cuprum_neg(a0)".into(),
            Positive | Invert | Conjugate => "a0".into(),
            Absolute => "cuprum_abs(a0)".into(),
            Sign => format!("(a0 > 0 ? ({t})1 : (a0 < 0 ? ({t})-1 : (a0 == 0 ? ({t})0 : a0)))"),
            Square => "(a0 * a0)".into(),
            Sqrt => call("sqrt"),
            Cbrt => call("cbrt"),
            Reciprocal => format!("(({t})1 / a0)"),
            Exp => call("exp"),
            Exp2 => call("exp2"),
            Expm1 => call("expm1"),
            Log => call("log"),
            Log2 => call("log2"),
            Log10 => call("log10"),
            Log1p => call("log1p"),
            Sin => call("sin"),
            Cos => call("cos"),
            Tan => call("tan"),
            Arcsin => call("asin"),
            Arccos => call("acos"),
            Arctan => call("atan"),
            Sinh => call("sinh"),
            Cosh => call("cosh"),
            Tanh => call("tanh"),
            Floor => call("floor"),
            Ceil => call("ceil"),
            Rint => call("rint"),
            Trunc => call("trunc"),
            LogicalNot => "(a0 == 0)".into(),
            IsNan => "isnan(a0)".into(),
            IsInf => "isinf(a0)".into(),
            IsFinite => "isfinite(a0)".into(),
            // scipy.special's (special.cuh): in double, rounded to a float32 loop's type.
            Erf => format!("(({t})erf((double)a0))"),
            Erfc => format!("(({t})erfc((double)a0))"),
            Ndtr => format!("(({t})cuprum_ndtr((double)a0))"),
            Ndtri => format!("(({t})cuprum_ndtri((double)a0))"),
        };
    }
    if l == DType::Bool {
        return match op {
            LogicalNot | Invert => "(!a0)".into(),
            IsNan | IsInf => "false".into(),
            IsFinite => "true".into(),
            _ => "a0".into(),
        };
    }
    let signed = l.is_signed_int();
    match op {
        Negative => format!("(({t})(0ULL - (u64)a0))"),
        Absolute if signed => format!("(a0 < 0 ? ({t})(0ULL - (u64)a0) : a0)"),
        Sign if signed => format!("(({t})((a0 > 0) - (a0 < 0)))"),
        Sign => format!("(({t})(a0 != 0))"),
        Square => format!("(({t})((u64)a0 * (u64)a0))"),
        Reciprocal => format!("(a0 == 0 ? ({t})0 : ({t})(({t})1 / a0))"),
        LogicalNot => "(a0 == 0)".into(),
        Invert => format!("(({t})(~a0))"),
        IsNan | IsInf => "false".into(),
        IsFinite => "true".into(),
        _ => "a0".into(),
    }
}

/// C expression of a binary ufunc over `a0`, `a1` in loop dtype `l`.
pub(crate) fn binary_expr(op: BinaryOp, l: DType) -> String {
    use BinaryOp::*;
    let t = compute_ty(l);
    match op {
        Equal => return "(a0 == a1)".into(),
        NotEqual => return "(a0 != a1)".into(),
        Less => return "(a0 < a1)".into(),
        LessEqual => return "(a0 <= a1)".into(),
        Greater => return "(a0 > a1)".into(),
        GreaterEqual => return "(a0 >= a1)".into(),
        LogicalAnd if l.is_complex() => return "(cnonzero(a0) && cnonzero(a1))".into(),
        LogicalOr if l.is_complex() => return "(cnonzero(a0) || cnonzero(a1))".into(),
        LogicalXor if l.is_complex() => return "(cnonzero(a0) != cnonzero(a1))".into(),
        LogicalAnd => return "((a0 != 0) && (a1 != 0))".into(),
        LogicalOr => return "((a0 != 0) || (a1 != 0))".into(),
        LogicalXor => return "((a0 != 0) != (a1 != 0))".into(),
        _ => {}
    }
    if l.is_complex() {
        return match op {
            Add => "(a0 + a1)".into(),
            Subtract => "(a0 - a1)".into(),
            Multiply => "(a0 * a1)".into(),
            TrueDivide => "(a0 / a1)".into(),
            Power => "cpow_(a0, a1)".into(),
            Maximum => "cmaximum(a0, a1)".into(),
            Minimum => "cminimum(a0, a1)".into(),
            Fmax => "cfmax(a0, a1)".into(),
            Fmin => "cfmin(a0, a1)".into(),
            _ => unreachable!("no complex loop for {}", op.name()),
        };
    }
    if l.is_float() {
        let f = fsuffix(l);
        return match op {
            Add => "(a0 + a1)".into(),
            Subtract => "(a0 - a1)".into(),
            Multiply => "(a0 * a1)".into(),
            TrueDivide => "(a0 / a1)".into(),
            FloorDivide => "ffloordiv(a0, a1)".into(),
            Remainder => "fremainder(a0, a1)".into(),
            Power => format!("pow{f}(a0, a1)"),
            Arctan2 => format!("atan2{f}(a0, a1)"),
            Hypot => format!("hypot{f}(a0, a1)"),
            Maximum => "((a0 >= a1 || a0 != a0) ? a0 : a1)".into(),
            Minimum => "((a0 <= a1 || a0 != a0) ? a0 : a1)".into(),
            Fmax => "((a0 >= a1 || a1 != a1) ? a0 : a1)".into(),
            Fmin => "((a0 <= a1 || a1 != a1) ? a0 : a1)".into(),
            _ => "a0".into(),
        };
    }
    if l == DType::Bool {
        return match op {
            Add | Maximum | Fmax | BitwiseOr => "(a0 || a1)".into(),
            Multiply | Minimum | Fmin | BitwiseAnd => "(a0 && a1)".into(),
            BitwiseXor => "(a0 != a1)".into(),
            _ => "a0".into(),
        };
    }
    let signed = l.is_signed_int();
    match op {
        Add => format!("(({t})((u64)a0 + (u64)a1))"),
        Subtract => format!("(({t})((u64)a0 - (u64)a1))"),
        Multiply => format!("(({t})((u64)a0 * (u64)a1))"),
        FloorDivide if signed => "fdiv_s(a0, a1)".into(),
        FloorDivide => format!("(a1 == 0 ? ({t})0 : ({t})(a0 / a1))"),
        Remainder if signed => "fmod_s(a0, a1)".into(),
        Remainder => format!("(a1 == 0 ? ({t})0 : ({t})(a0 % a1))"),
        Power => "ipow(a0, a1)".into(),
        Maximum | Fmax => "(a0 >= a1 ? a0 : a1)".into(),
        Minimum | Fmin => "(a0 <= a1 ? a0 : a1)".into(),
        BitwiseAnd => format!("(({t})(a0 & a1))"),
        BitwiseOr => format!("(({t})(a0 | a1))"),
        BitwiseXor => format!("(({t})(a0 ^ a1))"),
        LeftShift => format!("((a1 < 0 || a1 >= 64) ? ({t})0 : ({t})((u64)a0 << a1))"),
        RightShift if signed => format!("((a1 < 0 || a1 >= 64) ? (a0 < 0 ? ({t})-1 : ({t})0) : ({t})((i64)a0 >> a1))"),
        RightShift => format!("((a1 >= 64) ? ({t})0 : ({t})((u64)a0 >> a1))"),
        _ => "a0".into(),
    }
}

/// One input of an elementwise kernel.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct EwIn {
    /// Storage dtype (for arrays) — scalars arrive already in `compute`'s C type.
    pub storage: DType,
    /// The dtype whose compute type the expression sees this input in.
    pub compute: DType,
    pub scalar: bool,
}

/// What an elementwise kernel computes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum EwOp {
    /// `out = a0` (copies and casts; fill with a scalar input).
    Copy,
    Unary(UnaryOp, DType),
    Binary(BinaryOp, DType),
    /// `out = a0 ? a1 : a2`.
    Where,
    /// Exact comparison of a signed and an unsigned integer (a0, a1 as i64/u64).
    CmpMixed(BinaryOp),
    /// `out[i] = start + i * step` in float64 (last element `last` when `has_last`).
    IotaF,
    /// `out[i] = start + i * step` in int64.
    IotaI,
}

impl EwOp {
    pub(crate) fn expr(self) -> String {
        match self {
            EwOp::Copy => "a0".into(),
            EwOp::Unary(op, l) => unary_expr(op, l),
            EwOp::Binary(op, l) => binary_expr(op, l),
            EwOp::Where => "(a0 ? a1 : a2)".into(),
            EwOp::CmpMixed(op) => {
                let c = match op {
                    BinaryOp::Equal => "== 0",
                    BinaryOp::NotEqual => "!= 0",
                    BinaryOp::Less => "< 0",
                    BinaryOp::LessEqual => "<= 0",
                    BinaryOp::Greater => "> 0",
                    _ => ">= 0",
                };
                format!("(cmp3(a0, a1) {c})")
            }
            EwOp::IotaF => "((has_last && i == n - 1) ? last : __dadd_rn(start, __dmul_rn((double)i, step)))".into(),
            EwOp::IotaI => "((i64)((u64)istart + (u64)i * (u64)istep))".into(),
        }
    }
    fn params(self) -> &'static [(&'static str, &'static str)] {
        match self {
            EwOp::IotaF => &[("double", "start"), ("double", "step"), ("double", "last"), ("int", "has_last")],
            EwOp::IotaI => &[("long long", "istart"), ("long long", "istep")],
            _ => &[],
        }
    }
}

/// The description of an elementwise kernel: everything that changes the generated source.
/// Small and `Copy`, so that looking a kernel up costs no allocation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct EwSpec {
    pub op: EwOp,
    pub inputs: [Option<EwIn>; 3],
    /// Dtype whose compute type the expression yields.
    pub result: DType,
    pub out: DType,
}

impl EwSpec {
    pub fn new(op: EwOp, ins: &[EwIn], result: DType, out: DType) -> EwSpec {
        let mut inputs = [None; 3];
        for (k, x) in ins.iter().enumerate() {
            inputs[k] = Some(*x);
        }
        EwSpec { op, inputs, result, out }
    }
    pub fn ins(&self) -> impl Iterator<Item = &EwIn> {
        self.inputs.iter().flatten()
    }
}

/// The layouts an elementwise kernel is specialised for; each is compiled as its own module
/// on first use, so that a first call compiles only what it launches.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Variant {
    /// Contiguous, `vec_width` elements per vector access.
    Kv,
    /// Contiguous, one element per thread (misaligned data).
    K1,
    /// One (collapsed) dimension with arbitrary strides: no layout table.
    Ks,
    /// Any strides, up to [`MAX_DIMS`] collapsed dimensions.
    Kn,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Kv => "kv",
            Variant::K1 => "k1",
            Variant::Ks => "ks",
            Variant::Kn => "kn",
        }
    }
}

/// One elementwise kernel: the op and dtypes, and the layout variant.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct EwKey(pub EwSpec, pub Variant);

impl KernelKey for EwKey {
    const FAMILY: &'static str = "ufunc";
    fn entry(&self) -> &str {
        self.1.name()
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("THREADS", THREADS.to_string()), ("MAX_DIMS", MAX_DIMS.to_string())]
    }
    fn source(&self) -> String {
        self.0.prelude(self.1) + include_str!("elementwise.cu")
    }
}

impl EwSpec {
    /// Elements per thread of the vector kernel: 16 bytes of the widest operand.
    pub fn vec_width(&self) -> u32 {
        vec_width(self.ins(), self.out)
    }

    /// The prelude of one kernel of the family (see [`Variant`]): the macros `elementwise.cu`
    /// expects.
    fn prelude(&self, variant: Variant) -> String {
        let inputs: Vec<EwIn> = self.ins().copied().collect();
        let mut params = String::new();
        for (t, n) in self.op.params() {
            write!(params, ", {t} {n}").unwrap();
        }
        let mut s = String::from(PRELUDE);
        s += &layout_macros(&inputs, self.out, self.vec_width(), variant, &params);
        writeln!(s, "#define RESULT {}", store_cvt(self.result, self.out, &self.op.expr())).unwrap();
        s
    }
}

/// Elements per thread of the vector kernel: 16 bytes of the widest operand.
pub(crate) fn vec_width<'a>(ins: impl Iterator<Item = &'a EwIn>, out: DType) -> u32 {
    let maxsz = ins.filter(|x| !x.scalar).map(|x| x.storage.itemsize()).chain([out.itemsize()]).max().unwrap_or(1);
    (16 / maxsz).max(1) as u32
}

/// The macros `elementwise.cu` expects, but RESULT: the variant, the output's type, the
/// parameters and loads of `inputs` (any number, as `a0`, `a1`, ... in their compute types),
/// then `op_params` (the op's own parameters, `, type name` each).
pub(crate) fn layout_macros(inputs: &[EwIn], out: DType, vec: u32, variant: Variant, op_params: &str) -> String {
    let mut s = String::new();
    let ot = storage_ty(out);
    // Operands with a layout: the output and the array inputs (scalars have none).
    let nops = 1 + inputs.iter().filter(|x| !x.scalar).count();
    let mut params = String::new();
    for (k, x) in inputs.iter().enumerate() {
        if x.scalar {
            write!(params, ", {} s{k}", compute_ty(x.compute)).unwrap();
        } else {
            write!(params, ", const {}* __restrict__ in{k}", storage_ty(x.storage)).unwrap();
        }
    }
    params += op_params;
    let st_params: String = (0..nops).map(|q| format!(", long long st{q}")).collect();
    // Declarations of a0, a1, a2 from each array input's value at `at(k, slot)`; input k's
    // layout slot is 1 + the number of array inputs before it (slot 0 is the output).
    let loads = |at: &dyn Fn(usize, usize, &str) -> String| -> String {
        let mut b = String::new();
        for (k, x) in inputs.iter().enumerate() {
            let ct = compute_ty(x.compute);
            if x.scalar {
                write!(b, "{ct} a{k} = s{k}; ").unwrap();
            } else {
                let slot = 1 + inputs[..k].iter().filter(|y| !y.scalar).count();
                let v = at(k, slot, storage_ty(x.storage));
                write!(b, "{ct} a{k} = {}; ", load_cvt(x.storage, x.compute, &v)).unwrap();
            }
        }
        b
    };
    let mut packs = String::new();
    for (k, x) in inputs.iter().enumerate() {
        if !x.scalar {
            let t = storage_ty(x.storage);
            write!(packs, "Pack<{t}, VEC> p{k} = *reinterpret_cast<const Pack<{t}, VEC>*>(in{k} + (i0)); ").unwrap();
        }
    }
    writeln!(s, "#define VARIANT_{}", variant.name().to_uppercase()).unwrap();
    writeln!(s, "typedef {ot} OUT_T;").unwrap();
    writeln!(s, "#define VEC {vec}").unwrap();
    writeln!(s, "#define NOPS {nops}").unwrap();
    writeln!(s, "#define IN_PARAMS {params}").unwrap();
    writeln!(s, "#define ST_PARAMS {st_params}").unwrap();
    writeln!(s, "#define PACK_LOADS(i0) {packs}").unwrap();
    writeln!(s, "#define LOADS_PACK(j) {}", loads(&|k, _, _| format!("p{k}.v[j]"))).unwrap();
    writeln!(s, "#define LOADS_FLAT(i) {}", loads(&|k, _, _| format!("in{k}[i]"))).unwrap();
    writeln!(
        s,
        "#define LOADS_AT(OFF) {}",
        loads(&|k, slot, t| format!("*(const {t}*)((const char*)in{k} + OFF({slot}))"))
    )
    .unwrap();
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::{check_compiles, nvrtc_sample};
    use crate::core::dtype::ALL_DTYPES;

    fn arr(d: DType, l: DType) -> EwIn {
        EwIn { storage: d, compute: l, scalar: false }
    }

    /// Every unary and binary op in each loop dtype it accepts, the mixed-sign comparisons,
    /// `where`, the ranges and casts between every pair of dtypes: the prelude defines what
    /// `elementwise.cu` expects, and (where NVRTC is present) every variant compiles.
    #[test]
    fn sources_compile() {
        let mut specs = Vec::new();
        for op in UnaryOp::ALL {
            for d in ALL_DTYPES {
                if let Ok((l, o)) = op.resolve(d) {
                    let result = unary_result(op, l, o);
                    specs.push(EwSpec::new(EwOp::Unary(op, l), &[arr(d, l)], result, o));
                }
            }
        }
        for op in BinaryOp::ALL {
            for d in ALL_DTYPES {
                if let Ok((l, o)) = op.resolve(d, d) {
                    let result = if op.is_comparison() { DType::Bool } else { l };
                    let s = EwIn { storage: l, compute: l, scalar: true };
                    specs.push(EwSpec::new(EwOp::Binary(op, l), &[arr(d, l), s], result, o));
                }
            }
        }
        specs.push(EwSpec::new(
            EwOp::CmpMixed(BinaryOp::Less),
            &[arr(DType::Int8, DType::Int64), arr(DType::UInt64, DType::UInt64)],
            DType::Bool,
            DType::Bool,
        ));
        let c = arr(DType::Bool, DType::Bool);
        specs.push(EwSpec::new(
            EwOp::Where,
            &[
                c,
                arr(DType::Float16, DType::Float16),
                EwIn { storage: DType::Float16, compute: DType::Float16, scalar: true },
            ],
            DType::Float16,
            DType::Float16,
        ));
        for to in ALL_DTYPES {
            specs.push(EwSpec::new(EwOp::IotaF, &[], DType::Float64, to));
            specs.push(EwSpec::new(EwOp::IotaI, &[], DType::Int64, to));
            for from in ALL_DTYPES {
                specs.push(EwSpec::new(EwOp::Copy, &[arr(from, to)], to, to));
            }
        }
        let mut compiled = 0;
        for (n, spec) in specs.iter().enumerate() {
            // All four layouts for a few specs; one layout each for the rest (NVRTC time).
            let variants: &[Variant] =
                if n % 16 == 0 { &[Variant::Kv, Variant::K1, Variant::Ks, Variant::Kn] } else { &[Variant::Kv] };
            for &v in variants {
                let key = EwKey(*spec, v);
                let src = key.source();
                assert!(src.contains(&format!("#define VARIANT_{}\n", v.name().to_uppercase())), "{key:?}");
                assert_eq!(src.matches('{').count(), src.matches('}').count(), "{key:?}");
                assert_eq!(src.matches('(').count(), src.matches(')').count(), "{key:?}");
                if nvrtc_sample(n) {
                    compiled += check_compiles(&key) as usize;
                }
            }
        }
        eprintln!("ufunc kernels: {} specs, {compiled} compiled by NVRTC", specs.len());
    }
}
