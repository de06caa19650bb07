//! CUDA C generation: a shared prelude (types, float16 conversion, NumPy-semantics helpers),
//! elementwise kernels for (expression, dtypes, layout) and reduction kernels for (op,
//! dtypes, layout).

use crate::core::dtype::DType;
use crate::core::ufunc::{BinaryOp, ReduceOp, UnaryOp};
use std::fmt::Write;

pub(crate) const PRELUDE: &str = r#"
typedef signed char i8; typedef short i16; typedef int i32; typedef long long i64;
typedef unsigned char u8; typedef unsigned short u16; typedef unsigned int u32; typedef unsigned long long u64;
__device__ __forceinline__ float h2f(u16 h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ u16 f2h(float f) { u16 h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ u16 d2h(double d) { u16 h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d)); return h; }
template <typename T, int V> struct __align__(sizeof(T) * V) Pack { T v[V]; };
template <typename T> __device__ __forceinline__ T fdiv_s(T a, T b) {
  if (b == 0) return 0; if (b == (T)-1) return (T)(0ULL - (u64)a);
  T q = a / b; if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1; return q; }
template <typename T> __device__ __forceinline__ T fmod_s(T a, T b) {
  if (b == 0 || b == (T)-1) return 0; T r = a % b; if (r != 0 && ((r < 0) != (b < 0))) r += b; return r; }
template <typename T> __device__ __forceinline__ T ipow(T a, T b) {
  if (b < 0) return 0; u64 r = 1, x = (u64)a; u64 e = (u64)b;
  while (e) { if (e & 1) r *= x; x *= x; e >>= 1; } return (T)r; }
template <typename T> __device__ __forceinline__ T fdivmod(T a, T b, T* m) {
  if (b == 0) { *m = fmod(a, b); return a / b; }
  T mod = fmod(a, b); T div = (a - mod) / b;
  if (mod != 0) { if ((b < 0) != (mod < 0)) { mod += b; div -= 1; } } else { mod = copysign((T)0, b); }
  T fd; if (div != 0) { fd = floor(div); if (div - fd > (T)0.5) fd += 1; } else { fd = copysign((T)0, a / b); }
  *m = mod; return fd; }
__device__ __forceinline__ int cmp3(i64 a, u64 b) { if (a < 0) return -1; u64 x = (u64)a; return x < b ? -1 : (x > b ? 1 : 0); }
__device__ __forceinline__ int cmp3(u64 a, i64 b) { return -cmp3(b, a); }
template <typename T> __device__ __forceinline__ T ffloordiv(T a, T b) { T m; return fdivmod(a, b, &m); }
template <typename T> __device__ __forceinline__ T fremainder(T a, T b) { T m; fdivmod(a, b, &m); return m; }
"#;

/// C type of a dtype's storage.
pub(crate) fn storage_ty(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::Int8 => "i8",
        DType::Int16 => "i16",
        DType::Int32 => "i32",
        DType::Int64 => "i64",
        DType::UInt8 => "u8",
        DType::UInt16 => "u16",
        DType::UInt32 => "u32",
        DType::UInt64 => "u64",
        DType::Float16 => "u16",
        DType::Float32 => "float",
        DType::Float64 => "double",
    }
}

/// C type values of a dtype are computed in (float16 computes in float, as NumPy's loops).
pub(crate) fn compute_ty(d: DType) -> &'static str {
    match d {
        DType::Float16 => "float",
        _ => storage_ty(d),
    }
}

/// Expression converting `x`, stored as `from`, to the compute type of `to`.
pub(crate) fn load_cvt(from: DType, to: DType, x: &str) -> String {
    let v = if from == DType::Float16 { format!("h2f({x})") } else { x.to_string() };
    let vfrom = if from == DType::Float16 { DType::Float32 } else { from };
    convert(vfrom, to, &v)
}

/// Expression converting a compute value `v` (of `from`'s compute type) to `to`'s compute type.
fn convert(from: DType, to: DType, v: &str) -> String {
    let ct = compute_ty(to);
    if to == DType::Bool {
        if from == DType::Bool {
            v.to_string()
        } else {
            format!("(({v}) != 0)")
        }
    } else if compute_ty(from) == ct {
        v.to_string()
    } else {
        format!("(({ct})({v}))")
    }
}

/// Expression converting a compute value `v` of `from` into `to`'s storage.
pub(crate) fn store_cvt(from: DType, to: DType, v: &str) -> String {
    match to {
        DType::Float16 => match compute_ty(from) {
            "double" => format!("d2h({v})"),
            "float" => format!("f2h({v})"),
            "bool" => format!("f2h(({v}) ? 1.0f : 0.0f)"),
            _ => format!("f2h((float)({v}))"),
        },
        DType::Bool => {
            if from == DType::Bool {
                v.to_string()
            } else {
                format!("(({v}) != 0)")
            }
        }
        _ => {
            if compute_ty(from) == storage_ty(to) {
                v.to_string()
            } else {
                format!("(({})({v}))", storage_ty(to))
            }
        }
    }
}

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
    if l.is_float() {
        let f = fsuffix(l);
        let call = |n: &str| format!("{n}{f}(a0)");
        return match op {
            Negative => "(-a0)".into(),
            Positive | Invert => "a0".into(),
            Absolute => call("fabs"),
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
        LogicalAnd => return "((a0 != 0) && (a1 != 0))".into(),
        LogicalOr => return "((a0 != 0) || (a1 != 0))".into(),
        LogicalXor => return "((a0 != 0) != (a1 != 0))".into(),
        _ => {}
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
    fn expr(self) -> String {
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

/// The kernels a family generates; each is compiled as its own module on first use, so that
/// a first call compiles only what it launches.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Variant {
    /// Elementwise, contiguous, `vec_width` elements per vector access.
    Kv,
    /// Elementwise, contiguous, one element per thread (misaligned data).
    K1,
    /// Elementwise, one (collapsed) dimension with arbitrary strides: no layout table.
    Ks,
    /// Elementwise, any strides, up to [`MAX_DIMS`] collapsed dimensions.
    Kn,
    /// Reduction: a block per (output, slice of the reduced range).
    Rows,
    /// Reduction: a thread per output.
    Cols,
    /// Inclusive scan of contiguous lanes (single pass, decoupled look-back).
    Scan,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Kv => "kv",
            Variant::K1 => "k1",
            Variant::Ks => "ks",
            Variant::Kn => "kn",
            Variant::Rows => "rows",
            Variant::Cols => "cols",
            Variant::Scan => "scan",
        }
    }
}

/// Identity of a generated module in a device's kernel cache.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ModKey {
    Ew(EwSpec, Variant),
    Red(RedSpec, Variant),
    Scan(ScanSpec),
    /// Gather, scatter, search and counting kernels (`cuda/index.rs`).
    Index(crate::indexing::cuda::IndexKey),
    /// Radix sort and selection kernels (`cuda/sort.rs`).
    Sort(crate::sort::cuda::SortKey),
    /// Single-pass selection (stream compaction) kernels (`cuda/select.rs`).
    Select(crate::select::cuda::SelectKey),
}

impl ModKey {
    /// The name of the module's kernel function.
    pub fn name(self) -> &'static str {
        match self {
            ModKey::Ew(_, v) | ModKey::Red(_, v) => v.name(),
            ModKey::Scan(_) => Variant::Scan.name(),
            ModKey::Index(k) => k.name(),
            ModKey::Sort(k) => k.name(),
            ModKey::Select(k) => k.name(),
        }
    }
    pub fn source(self) -> String {
        match self {
            ModKey::Ew(s, v) => s.source(v),
            ModKey::Red(s, v) => s.source(v),
            ModKey::Scan(s) => s.source(),
            ModKey::Index(k) => k.source(),
            ModKey::Sort(k) => k.source(),
            ModKey::Select(k) => k.source(),
        }
    }
}

/// Most dimensions a strided launch takes after collapsing (each operand's strides travel
/// in the kernel's parameters).
pub(crate) const MAX_DIMS: usize = 16;

impl EwSpec {
    /// Elements per thread of the vector kernel: 16 bytes of the widest operand.
    pub fn vec_width(&self) -> u32 {
        let maxsz = self
            .ins()
            .filter(|x| !x.scalar)
            .map(|x| x.storage.itemsize())
            .chain([self.out.itemsize()])
            .max()
            .unwrap_or(1);
        (16 / maxsz).max(1) as u32
    }

    /// The source of one kernel of the family (see [`Variant`]).
    pub fn source(&self, variant: Variant) -> String {
        let mut s = String::from(PRELUDE);
        let ot = storage_ty(self.out);
        let inputs: Vec<EwIn> = self.ins().copied().collect();
        let nin = inputs.len();
        // Operands with a layout: the output and the array inputs (scalars have none).
        let nops = 1 + inputs.iter().filter(|x| !x.scalar).count();
        let mut params = format!("long long n, {ot}* __restrict__ out");
        for (k, x) in inputs.iter().enumerate() {
            if x.scalar {
                write!(params, ", {} s{k}", compute_ty(x.compute)).unwrap();
            } else {
                write!(params, ", const {}* __restrict__ in{k}", storage_ty(x.storage)).unwrap();
            }
        }
        for (t, n) in self.op.params() {
            write!(params, ", {t} {n}").unwrap();
        }
        let body = |loads: &[String]| -> String {
            let mut b = String::new();
            for (k, x) in inputs.iter().enumerate() {
                let ct = compute_ty(x.compute);
                if x.scalar {
                    writeln!(b, "      {ct} a{k} = s{k};").unwrap();
                } else {
                    writeln!(b, "      {ct} a{k} = {};", load_cvt(x.storage, x.compute, &loads[k])).unwrap();
                }
            }
            b
        };
        let result = store_cvt(self.result, self.out, &self.op.expr());
        let flat: Vec<String> = (0..nin).map(|k| format!("in{k}[i]")).collect();
        // Loads of each input at a byte offset; input k's layout slot is 1 + the number of
        // array inputs before it (slot 0 is the output; scalars have none).
        let strided_loads = |offset: &dyn Fn(usize) -> String| -> Vec<String> {
            inputs
                .iter()
                .enumerate()
                .map(|(k, x)| {
                    let slot = 1 + inputs[..k].iter().filter(|y| !y.scalar).count();
                    format!("*(const {}*)((const char*)in{k} + {})", storage_ty(x.storage), offset(slot))
                })
                .collect()
        };
        let v = self.vec_width();
        if variant == Variant::Kv {
            writeln!(s, "extern \"C\" __global__ void __launch_bounds__(256) kv({params}) {{").unwrap();
            writeln!(s, "  long long stride = (long long)gridDim.x * blockDim.x * {v};").unwrap();
            writeln!(s, "  for (long long i0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * {v}; i0 < n; i0 += stride) {{").unwrap();
            writeln!(s, "    if (i0 + {v} <= n) {{").unwrap();
            for (k, x) in inputs.iter().enumerate() {
                if !x.scalar {
                    writeln!(
                        s,
                        "      Pack<{0}, {v}> p{k} = *reinterpret_cast<const Pack<{0}, {v}>*>(in{k} + i0);",
                        storage_ty(x.storage)
                    )
                    .unwrap();
                }
            }
            writeln!(s, "      Pack<{ot}, {v}> r;").unwrap();
            writeln!(s, "      #pragma unroll\n      for (int j = 0; j < {v}; j++) {{ long long i = i0 + j; (void)i;")
                .unwrap();
            let loads: Vec<String> = (0..nin).map(|k| format!("p{k}.v[j]")).collect();
            s.push_str(&body(&loads));
            writeln!(s, "      r.v[j] = {result}; }}").unwrap();
            writeln!(s, "      *reinterpret_cast<Pack<{ot}, {v}>*>(out + i0) = r;").unwrap();
            writeln!(s, "    }} else {{\n      for (long long i = i0; i < n; i++) {{").unwrap();
            s.push_str(&body(&flat));
            writeln!(s, "      out[i] = {result}; }}\n    }}\n  }}\n}}").unwrap();
        }
        if variant == Variant::K1 {
            writeln!(s, "extern \"C\" __global__ void __launch_bounds__(256) k1({params}) {{").unwrap();
            writeln!(s, "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {{").unwrap();
            s.push_str(&body(&flat));
            writeln!(s, "      out[i] = {result};\n  }}\n}}").unwrap();
        }
        if variant == Variant::Ks {
            let mut sp = String::new();
            for q in 0..nops {
                write!(sp, ", long long st{q}").unwrap();
            }
            writeln!(s, "extern \"C\" __global__ void __launch_bounds__(256) ks({params}{sp}) {{").unwrap();
            writeln!(s, "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {{").unwrap();
            s.push_str(&body(&strided_loads(&|slot| format!("i * st{slot}"))));
            writeln!(s, "    *({ot}*)((char*)out + i * st0) = {result};\n  }}\n}}").unwrap();
        }
        if variant == Variant::Kn {
            writeln!(
                s,
                "struct Lay {{ long long nd; long long shape[{MAX_DIMS}]; long long st[{nops}][{MAX_DIMS}]; }};"
            )
            .unwrap();
            writeln!(s, "extern \"C\" __global__ void __launch_bounds__(256) kn({params}, Lay L) {{").unwrap();
            writeln!(s, "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {{").unwrap();
            writeln!(s, "    long long r = i; long long o[{nops}] = {{0}};").unwrap();
            writeln!(
                s,
                "    for (int d = (int)L.nd - 1; d >= 0; d--) {{ long long ix = r % L.shape[d]; r /= L.shape[d];"
            )
            .unwrap();
            writeln!(s, "      #pragma unroll\n      for (int q = 0; q < {nops}; q++) o[q] += ix * L.st[q][d]; }}")
                .unwrap();
            s.push_str(&body(&strided_loads(&|slot| format!("o[{slot}]"))));
            writeln!(s, "    *({ot}*)((char*)out + o[0]) = {result};\n  }}\n}}").unwrap();
        }
        s
    }
}

// ------------------------------------------------------------------------------ reductions

/// Accumulator type and code of a reduction over compute values of `xd`.
fn acc_code(op: ReduceOp, xd: DType) -> (String, String) {
    use ReduceOp::*;
    let xc = compute_ty(xd);
    // The type values are accumulated in: NumPy's accumulator dtype (float32 sums in float32,
    // float16 in float32, ints in 64 bits).
    let at = match op {
        // NumPy's mean accumulates integers in float64.
        Mean if !xd.is_float() => "double",
        Sum | Prod | Mean => {
            if xd.is_float() {
                xc
            } else if xd.is_unsigned_int() {
                "u64"
            } else {
                "i64"
            }
        }
        _ => xc,
    };
    let body = match op {
        Sum | Mean => format!(
            "struct Acc {{ {at} s; __device__ void init() {{ s = 0; }}
  __device__ void add({xc} x, long long) {{ s += ({at})x; }}
  __device__ void merge(const Acc& o) {{ s += o.s; }} }};"
        ),
        Prod => format!(
            "struct Acc {{ {at} s; __device__ void init() {{ s = 1; }}
  __device__ void add({xc} x, long long) {{ s = {mul}; }}
  __device__ void merge(const Acc& o) {{ {{ {at} x = o.s; s = {mul}; }} }} }};",
            mul = if xd.is_float() { "s * (".to_string() + at + ")x" } else { format!("({at})((u64)s * (u64)({at})x)") }
        ),
        Var | Std => format!(
            // Per-thread sums of deviations from a shift K (the first value seen), turned into
            // (n, mean, M2) and merged with Chan's formula.
            "struct Acc {{ double n, mean, m2, k, s1, s2; int shifted;
  __device__ void init() {{ n = 0; mean = 0; m2 = 0; k = 0; s1 = 0; s2 = 0; shifted = 0; }}
  __device__ void add({xc} xv, long long) {{ double x = (double)xv; if (!shifted) {{ k = x; shifted = 1; }}
    double d = x - k; s1 += d; s2 += d * d; n += 1; }}
  __device__ void settle() {{ if (shifted == 1 && n > 0) {{ double dm = s1 / n; mean = k + dm; m2 = s2 - s1 * dm; shifted = 2; }} }}
  __device__ void merge(Acc o) {{ settle(); o.settle(); if (o.n == 0) return; if (n == 0) {{ *this = o; return; }}
    double tot = n + o.n; double d = o.mean - mean; mean += d * o.n / tot; m2 += o.m2 + d * d * n * o.n / tot; n = tot; }} }};"
        ),
        Min | Max | ArgMin | ArgMax => {
            let better = match op {
                Min | ArgMin => "x < v",
                _ => "x > v",
            };
            let nan = if xd.is_float() { "x != x" } else { "false" };
            let vnan = if xd.is_float() { "v != v" } else { "false" };
            format!(
                "struct Acc {{ {xc} v; long long i;
  __device__ void init() {{ i = -1; v = 0; }}
  __device__ void add({xc} x, long long j) {{ if (i < 0 || (!({vnan}) && (({nan}) || {better}))) {{ v = x; i = j; }} }}
  __device__ void merge(const Acc& o) {{ if (o.i < 0) return; if (i < 0) {{ *this = o; return; }} {xc} x = o.v;
    bool take = !({vnan}) && (({nan}) || {better} || (x == v && o.i < i)); if (({vnan}) && (o.v != o.v) && o.i < i) take = true; if (take) {{ v = x; i = o.i; }} }} }};"
            )
        }
        Any => format!(
            "struct Acc {{ int s; __device__ void init() {{ s = 0; }} __device__ void add({xc} x, long long) {{ s |= (x != 0); }}
  __device__ void merge(const Acc& o) {{ s |= o.s; }} }};"
        ),
        All => format!(
            "struct Acc {{ int s; __device__ void init() {{ s = 1; }} __device__ void add({xc} x, long long) {{ s &= (x != 0); }}
  __device__ void merge(const Acc& o) {{ s &= o.s; }} }};"
        ),
        CountNonzero => format!(
            "struct Acc {{ long long s; __device__ void init() {{ s = 0; }} __device__ void add({xc} x, long long) {{ s += (x != 0); }}
  __device__ void merge(const Acc& o) {{ s += o.s; }} }};"
        ),
    };
    (body, at.to_string())
}

/// The final value of an accumulator `a` over `nred` elements, as a C expression of the
/// output dtype's compute type, and the dtype that expression has.
fn finish_expr(op: ReduceOp, xd: DType, at: &str) -> (String, DType) {
    use ReduceOp::*;
    let at_dt = match at {
        "float" => DType::Float32,
        "double" => DType::Float64,
        "u64" => DType::UInt64,
        "i64" => DType::Int64,
        _ => {
            if xd == DType::Float16 {
                DType::Float32
            } else {
                xd
            }
        }
    };
    match op {
        Sum | Prod => ("a.s".into(), at_dt),
        Mean => {
            if xd.is_float() {
                (format!("(a.s / ({at})nred)"), at_dt)
            } else {
                ("((double)a.s / (double)nred)".into(), DType::Float64)
            }
        }
        Var => ("(a.settle(), a.m2 / fmax((double)nred - ddof, 0.0))".into(), DType::Float64),
        Std => ("(a.settle(), sqrt(a.m2 / fmax((double)nred - ddof, 0.0)))".into(), DType::Float64),
        Min | Max => ("a.v".into(), if xd == DType::Float16 { DType::Float32 } else { xd }),
        ArgMin | ArgMax => ("a.i".into(), DType::Int64),
        Any | All => ("(a.s != 0)".into(), DType::Bool),
        CountNonzero => ("a.s".into(), DType::Int64),
    }
}

/// A reduction kernel family: (op, input dtype, output dtype, contiguous run or not).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RedSpec {
    pub op: ReduceOp,
    pub x: DType,
    pub out: DType,
    /// The reduced range is one contiguous run (vector loads).
    pub contig: bool,
}

pub(crate) const RED_THREADS: u32 = 256;

impl RedSpec {
    /// The source of one kernel: `rows` (a block per (output, slice of the reduced range);
    /// the last block of an output merges the partials) or `cols` (a thread per output).
    pub fn source(&self, variant: Variant) -> String {
        let (acc, at) = acc_code(self.op, self.x);
        let (fin, fin_dt) = finish_expr(self.op, self.x, &at);
        let xs = storage_ty(self.x);
        let xc_dt = if self.x == DType::Float16 { DType::Float32 } else { self.x };
        let load = |p: &str| load_cvt(self.x, xc_dt, p);
        let store = store_cvt(fin_dt, self.out, &fin);
        let os = storage_ty(self.out);
        let (rnd, knd) = (MAX_DIMS, MAX_DIMS);
        let mut s = String::from(PRELUDE);
        writeln!(s, "{acc}").unwrap();
        writeln!(s, "struct RLay {{ long long rnd, knd; long long rshape[{rnd}]; long long rst[{rnd}]; long long kshape[{knd}]; long long kst[{knd}]; }};").unwrap();
        writeln!(
            s,
            "__device__ __forceinline__ long long roff(const RLay& L, long long r) {{ long long o = 0;
  for (int d = (int)L.rnd - 1; d >= 0; d--) {{ o += (r % L.rshape[d]) * L.rst[d]; r /= L.rshape[d]; }} return o; }}"
        )
        .unwrap();
        writeln!(
            s,
            "__device__ __forceinline__ long long koff(const RLay& L, long long k) {{ long long o = 0;
  for (int d = (int)L.knd - 1; d >= 0; d--) {{ o += (k % L.kshape[d]) * L.kst[d]; k /= L.kshape[d]; }} return o; }}"
        )
        .unwrap();
        if variant == Variant::Rows {
            writeln!(s, "extern \"C\" __global__ void __launch_bounds__({RED_THREADS}) rows(const char* __restrict__ x, {os}* __restrict__ out, Acc* __restrict__ part,
  unsigned int* __restrict__ count, long long nout, long long nred, long long per, int splits, double ddof, RLay L) {{
  __shared__ Acc sh[{RED_THREADS}];
  __shared__ bool last;
  long long o = blockIdx.x / splits; int sp = blockIdx.x % splits;
  long long r0 = (long long)sp * per; long long r1 = r0 + per < nred ? r0 + per : nred;
  const char* base = x + koff(L, o);
  Acc a; a.init();").unwrap();
            if self.contig {
                // 16-byte vector loads over the contiguous run, four in flight per thread.
                let v = (16 / self.x.itemsize()).max(1);
                let add = |k: &str, q: &str| {
                    format!(
                        "#pragma unroll\n      for (int j = 0; j < {v}; j++) a.add({}, r0 + ({q}) * {v} + j);",
                        load(&format!("{k}.v[j]"))
                    )
                };
                writeln!(
                    s,
                    "  const {xs}* p = (const {xs}*)base;
  long long nv = (r1 - r0) / {v};
  bool aligned = (((unsigned long long)(p + r0)) % {al} == 0);
  if (aligned) {{
    const Pack<{xs}, {v}>* pp = reinterpret_cast<const Pack<{xs}, {v}>*>(p + r0);
    long long q = threadIdx.x; long long b = blockDim.x;
    for (; q + 3 * b < nv; q += 4 * b) {{
      Pack<{xs}, {v}> k0 = pp[q], k1 = pp[q + b], k2 = pp[q + 2 * b], k3 = pp[q + 3 * b];
      {a0}
      {a1}
      {a2}
      {a3}
    }}
    for (; q < nv; q += b) {{ Pack<{xs}, {v}> k0 = pp[q];
      {a0}
    }}
    for (long long r = r0 + nv * {v} + threadIdx.x; r < r1; r += blockDim.x) a.add({ld2}, r);
  }} else {{
    for (long long r = r0 + threadIdx.x; r < r1; r += blockDim.x) a.add({ld2}, r);
  }}",
                    al = v * self.x.itemsize(),
                    a0 = add("k0", "q"),
                    a1 = add("k1", "q + b"),
                    a2 = add("k2", "q + 2 * b"),
                    a3 = add("k3", "q + 3 * b"),
                    ld2 = load("p[r]")
                )
                .unwrap();
            } else {
                writeln!(
                    s,
                    "  for (long long r = r0 + threadIdx.x; r < r1; r += blockDim.x) a.add({}, r);",
                    load(&format!("*(const {xs}*)(base + roff(L, r))"))
                )
                .unwrap();
            }
            // With several blocks per output, each writes its partial; the last block to finish
            // (counted with an atomic, after a fence) merges them and resets the counter, so no
            // second kernel is launched.
            writeln!(s, "  sh[threadIdx.x] = a; __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {{ if (threadIdx.x < w) {{ Acc b = sh[threadIdx.x]; b.merge(sh[threadIdx.x + w]); sh[threadIdx.x] = b; }} __syncthreads(); }}
  if (splits == 1) {{ if (threadIdx.x == 0) {{ Acc a = sh[0]; out[o] = {store}; }} return; }}
  if (threadIdx.x == 0) {{ part[blockIdx.x] = sh[0]; __threadfence(); last = (atomicAdd(&count[o], 1u) == (unsigned)splits - 1); }}
  __syncthreads();
  if (!last) return;
  __threadfence();
  Acc m; m.init();
  for (int q = threadIdx.x; q < splits; q += blockDim.x) {{ Acc pq = part[o * splits + q]; m.merge(pq); }}
  sh[threadIdx.x] = m; __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {{ if (threadIdx.x < w) {{ Acc b = sh[threadIdx.x]; b.merge(sh[threadIdx.x + w]); sh[threadIdx.x] = b; }} __syncthreads(); }}
  if (threadIdx.x == 0) {{ Acc a = sh[0]; out[o] = {store}; count[o] = 0; }}
}}").unwrap();
        }
        if variant == Variant::Cols {
            writeln!(s, "extern \"C\" __global__ void __launch_bounds__({RED_THREADS}) cols(const char* __restrict__ x, {os}* __restrict__ out, long long nout, long long nred, double ddof, RLay L) {{
  long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; if (o >= nout) return;
  const char* base = x + koff(L, o);
  Acc a; a.init();
  for (long long r = 0; r < nred; r++) a.add({}, r);
  out[o] = {store};
}}", load(&format!("*(const {xs}*)(base + roff(L, r))"))).unwrap();
        }
        s
    }

    /// Size of the accumulator struct in bytes (upper bound used for partial buffers).
    pub fn acc_bytes(&self) -> usize {
        64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kernel's source names exactly its own entry point and is balanced.
    #[test]
    fn sources_are_single_kernels() {
        let ew = EwSpec::new(
            EwOp::Binary(BinaryOp::Add, DType::Float16),
            &[
                EwIn { storage: DType::Float16, compute: DType::Float16, scalar: false },
                EwIn { storage: DType::Float16, compute: DType::Float16, scalar: true },
            ],
            DType::Float16,
            DType::Float16,
        );
        for v in [Variant::Kv, Variant::K1, Variant::Ks, Variant::Kn] {
            let src = ew.source(v);
            assert_eq!(src.matches("__global__").count(), 1, "{v:?}");
            assert!(src.contains(&format!(" {}(", v.name())));
            assert_eq!(src.matches('{').count(), src.matches('}').count(), "{src}");
        }
        for op in [ReduceOp::Sum, ReduceOp::Var, ReduceOp::ArgMax] {
            let r = RedSpec { op, x: DType::Float32, out: op.out_dtype(DType::Float32), contig: true };
            for v in [Variant::Rows, Variant::Cols] {
                let src = r.source(v);
                assert_eq!(src.matches("__global__").count(), 1);
                assert_eq!(src.matches('{').count(), src.matches('}').count(), "{src}");
            }
        }
        for (prod, x, out) in [
            (false, DType::Float32, DType::Float32),
            (true, DType::Int8, DType::Int64),
            (false, DType::Float16, DType::Float16),
        ] {
            let src = ScanSpec { prod, x, out }.source();
            assert_eq!(src.matches("__global__").count(), 1);
            assert_eq!(src.matches('{').count(), src.matches('}').count(), "{src}");
        }
        if std::env::var_os("CUPRUM_PRINT_SOURCE").is_some() {
            println!(
                "{}",
                RedSpec { op: ReduceOp::Sum, x: DType::Float32, out: DType::Float32, contig: true }
                    .source(Variant::Rows)
            );
        }
    }
}

// ------------------------------------------------------------------------------ scans

/// Threads per scan block.
pub(crate) const SCAN_THREADS: usize = 256;
/// Consecutive elements each scan thread owns.
pub(crate) const SCAN_ITEMS: usize = 16;
/// Elements per scan tile.
pub(crate) const SCAN_TILE: usize = SCAN_THREADS * SCAN_ITEMS;

/// An inclusive scan (cumsum/cumprod) of contiguous lanes: input dtype, output dtype.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ScanSpec {
    pub prod: bool,
    pub x: DType,
    pub out: DType,
}

impl ScanSpec {
    /// A single-pass scan. Each block takes the next tile of [`SCAN_TILE`] elements (a
    /// dynamic tile counter keeps the order; a lane's tiles are consecutive), loads it with
    /// coalesced accesses (16-byte vectors for whole, aligned tiles) into shared memory
    /// (padded: one slot every 128 bytes, so that the transposed reads do not conflict),
    /// reads its [`SCAN_ITEMS`] consecutive elements into registers, scans them, the warp
    /// and the block; warp 0 publishes the tile's aggregate and looks back over its
    /// predecessors' published aggregates/prefixes (decoupled look-back) for the exclusive
    /// prefix. The results go back through shared memory and out with coalesced stores.
    /// Values are converted at the load to the accumulator type (float for float16) and
    /// rounded to the output's type once, at the store.
    pub fn source(&self) -> String {
        let a = compute_ty(self.out);
        let a_dt = if self.out == DType::Float16 { DType::Float32 } else { self.out };
        let a_size = a_dt.itemsize().max(4);
        let xs = storage_ty(self.x);
        let os = storage_ty(self.out);
        let vx = 16 / self.x.itemsize();
        let vo = 16 / self.out.itemsize();
        let items = SCAN_ITEMS;
        let threads = SCAN_THREADS;
        let tile = SCAN_TILE;
        let pad_every = 128 / a_size;
        let logp = pad_every.trailing_zeros();
        let ldv = load_cvt(self.x, self.out, "p[k].v[c]");
        let lds = load_cvt(self.x, self.out, "xt[e]");
        let st = store_cvt(self.out, self.out, "a");
        let (op, id) = match (self.prod, a_dt.is_float()) {
            (false, true) => ("a + b".to_string(), "0"),
            (true, true) => ("a * b".to_string(), "1"),
            (false, false) => (format!("({a})((u64)a + (u64)b)"), "0"),
            (true, false) => (format!("({a})((u64)a * (u64)b)"), "1"),
        };
        let mut s = String::from(PRELUDE);
        write!(
            s,
            r#"typedef {a} A;
__device__ __forceinline__ A opf(A a, A b) {{ return {op}; }}
#define PAD(i) ((i) + ((i) >> {logp}))
extern "C" __global__ void __launch_bounds__({threads}) scan(const {xs}* __restrict__ x, {os}* __restrict__ y, long long len,
    long long tpr, unsigned int* flags, A* agg, A* incl, unsigned int* ctr) {{
  __shared__ A sh[{tile} + {tile} / {pad_every}];
  __shared__ unsigned int s_tile; __shared__ A warp_tot[{nw}]; __shared__ A s_prefix;
  if (threadIdx.x == 0) s_tile = atomicAdd(ctr, 1u);
  __syncthreads();
  const long long tile = s_tile, row = tile / tpr, t = tile % tpr;
  const long long start = row * len + t * {tile};
  const {xs}* xt = x + start;
  {os}* yt = y + start;
  const long long rem = len - t * {tile};
  const int cnt = rem < {tile} ? (int)rem : {tile};
  // The tile into shared memory: coalesced loads, 16-byte vectors for a whole aligned tile.
  if (cnt == {tile} && (((unsigned long long)xt) & 15ull) == 0ull) {{
    Pack<{xs}, {vx}> p[{nvx}];
    #pragma unroll
    for (int k = 0; k < {nvx}; k++) p[k] = reinterpret_cast<const Pack<{xs}, {vx}>*>(xt)[threadIdx.x + k * {threads}];
    #pragma unroll
    for (int k = 0; k < {nvx}; k++) {{
      #pragma unroll
      for (int c = 0; c < {vx}; c++) {{ const int e = (threadIdx.x + k * {threads}) * {vx} + c; sh[PAD(e)] = (A){ldv}; }}
    }}
  }} else {{
    #pragma unroll
    for (int k = 0; k < {items}; k++) {{ const int e = threadIdx.x + k * {threads}; sh[PAD(e)] = e < cnt ? (A){lds} : (A){id}; }}
  }}
  __syncthreads();
  // This thread's consecutive elements, scanned in registers.
  A v[{items}];
  #pragma unroll
  for (int j = 0; j < {items}; j++) v[j] = sh[PAD(threadIdx.x * {items} + j)];
  #pragma unroll
  for (int j = 1; j < {items}; j++) v[j] = opf(v[j - 1], v[j]);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  A inc = v[{last}];
  #pragma unroll
  for (int d = 1; d < 32; d <<= 1) {{ A o = __shfl_up_sync(0xffffffffu, inc, d); if (lane >= d) inc = opf(o, inc); }}
  A wex = __shfl_up_sync(0xffffffffu, inc, 1);
  if (lane == 0) wex = (A){id};
  if (lane == 31) warp_tot[w] = inc;
  // After this barrier every thread has read its elements from `sh` and the warp totals are in.
  __syncthreads();
  if (w == 0) {{
    // Warp 0: publish this tile's aggregate, then look back 32 predecessors at a time.
    A run = (A){id};
    for (int k = 0; k < {nw}; k++) {{ A tk = warp_tot[k]; run = opf(run, tk); }}
    __syncwarp();
    if (lane == 0) {{
      A r2 = (A){id};
      for (int k = 0; k < {nw}; k++) {{ A tk = warp_tot[k]; warp_tot[k] = r2; r2 = opf(r2, tk); }}
    }}
    volatile unsigned int* vf = flags;
    const long long row0 = row * tpr;
    A prefix = (A){id};
    if (t == 0) {{
      if (lane == 0) {{ incl[tile] = run; __threadfence(); vf[tile] = 2u; }}
    }} else {{
      if (lane == 0) {{ agg[tile] = run; __threadfence(); vf[tile] = 1u; }}
      long long base = tile - 1;
      while (true) {{
        const long long p = base - lane;
        unsigned int f = 2u; A val = (A){id};
        if (p >= row0) {{
          do {{ f = vf[p]; }} while (f == 0u);
          __threadfence();
          val = (f == 2u) ? ((volatile A*)incl)[p] : ((volatile A*)agg)[p];
        }}
        const unsigned int done = __ballot_sync(0xffffffffu, f == 2u);
        const int first = done ? __ffs(done) - 1 : 31;
        if (lane > first) val = (A){id};
        #pragma unroll
        for (int d = 16; d > 0; d >>= 1) {{ A o = __shfl_down_sync(0xffffffffu, val, d); val = opf(val, o); }}
        val = __shfl_sync(0xffffffffu, val, 0);
        prefix = opf(val, prefix);
        if (done) break;
        base -= 32;
      }}
      if (lane == 0) {{ incl[tile] = opf(prefix, run); __threadfence(); vf[tile] = 2u; }}
    }}
    if (lane == 0) s_prefix = prefix;
  }}
  __syncthreads();
  // The results back through shared memory (each thread its own slots), then coalesced stores.
  const A pre = opf(opf(s_prefix, warp_tot[w]), wex);
  #pragma unroll
  for (int j = 0; j < {items}; j++) sh[PAD(threadIdx.x * {items} + j)] = opf(pre, v[j]);
  __syncthreads();
  if (cnt == {tile} && (((unsigned long long)yt) & 15ull) == 0ull) {{
    #pragma unroll
    for (int k = 0; k < {nvo}; k++) {{
      Pack<{os}, {vo}> r;
      #pragma unroll
      for (int c = 0; c < {vo}; c++) {{ const A a = sh[PAD((threadIdx.x + k * {threads}) * {vo} + c)]; r.v[c] = {st}; }}
      reinterpret_cast<Pack<{os}, {vo}>*>(yt)[threadIdx.x + k * {threads}] = r;
    }}
  }} else {{
    #pragma unroll
    for (int k = 0; k < {items}; k++) {{ const int e = threadIdx.x + k * {threads}; if (e < cnt) {{ const A a = sh[PAD(e)]; yt[e] = {st}; }} }}
  }}
}}
"#,
            nw = threads / 32,
            nvx = tile / vx / threads,
            nvo = tile / vo / threads,
            last = items - 1,
        )
        .unwrap();
        s
    }

    /// Static shared memory of the kernel in bytes (the tile, padded, and a few words).
    #[cfg(test)]
    pub fn shared_bytes(&self) -> usize {
        let a_size = if self.out == DType::Float16 { 4 } else { self.out.itemsize().max(4) };
        (SCAN_TILE + SCAN_TILE / (128 / a_size)) * a_size + (SCAN_THREADS / 32 + 2) * a_size + 4
    }
}

#[cfg(test)]
mod scan_tests {
    use super::*;
    use crate::core::dtype::ALL_DTYPES;

    /// Every scan kernel NumPy's dtype rules can ask for: one entry point, balanced source,
    /// vector widths that divide the tile, static shared memory under 48 KiB, and the
    /// barriers outside thread-dependent branches (four in all).
    #[test]
    fn scan_sources() {
        let dump = std::env::var_os("CUPRUM_DUMP_SOURCES");
        for x in ALL_DTYPES {
            for prod in [false, true] {
                let spec = ScanSpec { prod, x, out: x.sum_dtype() };
                let src = spec.source();
                if let Some(d) = &dump {
                    std::fs::write(std::path::Path::new(d).join(format!("scan-{x}-{prod}.cu")), &src).unwrap();
                }
                assert_eq!(src.matches("__global__").count(), 1);
                assert!(src.contains(" scan("));
                assert_eq!(src.matches('{').count(), src.matches('}').count(), "{spec:?}");
                assert_eq!(src.matches('(').count(), src.matches(')').count(), "{spec:?}");
                assert_eq!(src.matches("__syncthreads()").count(), 5, "{spec:?}");
                assert!(SCAN_TILE.is_multiple_of(16 / x.itemsize() * SCAN_THREADS));
                assert!(SCAN_TILE.is_multiple_of(16 / spec.out.itemsize() * SCAN_THREADS));
                assert!(spec.shared_bytes() <= 48 * 1024, "{spec:?}: {}", spec.shared_bytes());
                // Float16 results are rounded once, from the float accumulator.
                if spec.out == DType::Float16 {
                    assert!(src.contains("typedef float A;") && src.contains("f2h(a)"));
                }
            }
        }
        if std::env::var_os("CUPRUM_PRINT_SOURCE").is_some() {
            println!("{}", ScanSpec { prod: false, x: DType::Float32, out: DType::Float32 }.source());
        }
    }

    /// The padding puts the transposed (thread-consecutive) reads of a warp in distinct
    /// banks: 4-byte values one per bank, 8-byte values one bank pair per half-warp.
    #[test]
    fn scan_padding_is_conflict_free() {
        for a_size in [4usize, 8] {
            let logp = (128 / a_size).trailing_zeros();
            let pad = |i: usize| i + (i >> logp);
            let group = if a_size == 4 { 32 } else { 16 };
            for j in 0..SCAN_ITEMS {
                let mut banks = std::collections::HashSet::new();
                for t in 0..group {
                    let word = pad(t * SCAN_ITEMS + j) * a_size / 4;
                    for w in 0..a_size / 4 {
                        assert!(banks.insert((word + w) % 32), "size {a_size}, item {j}, thread {t}");
                    }
                }
            }
        }
    }
}
