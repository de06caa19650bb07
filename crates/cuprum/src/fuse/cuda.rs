//! A formula on the GPU: one kernel of `elementwise.cu`'s layouts whose element function is
//! the tree, node by node, each node the built-in ufunc's own C expression (`ufunc/cuda.rs`)
//! in its loop dtype, its value kept in its dtype's storage type (as the unfused operation
//! would have stored it) and converted where the next node loads it, as the unfused kernels
//! convert on their loads. The kernel is keyed by the tree's instructions ([`FuseKey`]):
//! dtypes and structure, not the scalars' values, which are parameters.

use super::{NodeRef, Op};
use crate::array::Array;
use crate::backend::cuda::codegen::{compute_ty, load_cvt, storage_ty, store_cvt, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, Params, MAX_DIMS, THREADS};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout;
use crate::core::ufunc::{BinaryOp, ReduceOp, UnaryOp};
use crate::reduce::cuda::{push_rows_params, RedSpec, Variant as RedVariant};
use crate::ufunc::cpu::mixed_int_compare;
use crate::ufunc::cuda::{launch_layout, layout_macros, unary_result, vec_width, Arg, EwIn, EwOp, Variant};
use std::fmt::Write;

/// One step of a compiled formula; step `k` defines the value `t{k}`. Operands are earlier
/// steps' numbers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ins {
    /// The next array input, stored as this dtype.
    Input(DType),
    /// The next scalar input, in this dtype's compute type.
    Scalar(DType),
    Const(bool),
    /// op, loop dtype, output dtype, operand.
    Unary(UnaryOp, DType, DType, u16),
    /// op, loop dtype, output dtype, operands.
    Binary(BinaryOp, DType, DType, u16, u16),
    /// output dtype, condition, x, y.
    Where(DType, u16, u16, u16),
    /// to, operand.
    Cast(DType, u16),
}

impl Ins {
    /// The dtype of the step's value, and whether it is a scalar (held in its compute type;
    /// every other value is held in its storage type).
    fn value(self) -> (DType, bool) {
        match self {
            Ins::Input(d) => (d, false),
            Ins::Scalar(d) => (d, true),
            Ins::Const(_) => (DType::Bool, false),
            Ins::Unary(_, _, o, _) | Ins::Binary(_, _, o, _, _) | Ins::Where(o, ..) | Ins::Cast(o, _) => (o, false),
        }
    }
}

/// A fused kernel: the formula's steps and the layout variant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct FuseKey {
    code: Vec<Ins>,
    variant: Variant,
}

/// The steps of a tree, with its inputs in the order the steps take them.
struct Compiled<'a> {
    code: Vec<Ins>,
    args: Vec<Arg<'a>>,
    ins: Vec<EwIn>,
    computes: Vec<DType>,
    /// Steps of the leaves met so far (a leaf used twice is one input).
    seen: Vec<(&'a NodeRef, u16)>,
}

impl<'a> Compiled<'a> {
    fn new() -> Self {
        Compiled { code: Vec::new(), args: Vec::new(), ins: Vec::new(), computes: Vec::new(), seen: Vec::new() }
    }

    fn step(&mut self, n: &'a NodeRef) -> u16 {
        let ins = match &n.op {
            Op::Leaf(a) => {
                if let Some(&(_, k)) = self.seen.iter().find(|(m, _)| super::same_leaf(m, n)) {
                    return k;
                }
                // float16 is loaded as its bits: values stay in storage types until a node
                // loads them in its loop dtype.
                let raw = if a.dtype() == DType::Float16 { DType::UInt16 } else { a.dtype() };
                self.args.push(Arg::Array(a));
                self.ins.push(EwIn { storage: raw, compute: raw, scalar: false });
                self.computes.push(raw);
                self.seen.push((n, self.code.len() as u16));
                Ins::Input(a.dtype())
            }
            Op::Scalar(s) => {
                self.args.push(Arg::Scalar(*s));
                self.ins.push(EwIn { storage: n.dtype, compute: n.dtype, scalar: true });
                self.computes.push(n.dtype);
                Ins::Scalar(n.dtype)
            }
            Op::Const(v) => Ins::Const(*v),
            Op::Unary(op, l, x) => Ins::Unary(*op, *l, n.dtype, self.step(x)),
            Op::Binary(op, l, a, b) => {
                let (a, b) = (self.step(a), self.step(b));
                Ins::Binary(*op, *l, n.dtype, a, b)
            }
            Op::Where(c, x, y) => {
                let (c, x, y) = (self.step(c), self.step(x), self.step(y));
                Ins::Where(n.dtype, c, x, y)
            }
            Op::Cast(x) => Ins::Cast(n.dtype, self.step(x)),
        };
        self.code.push(ins);
        (self.code.len() - 1) as u16
    }
}

/// `out = n` on the GPU (`out` a fresh array of the node's shape and dtype, not empty).
pub(crate) fn eval(n: &NodeRef, out: &Array) -> Result<()> {
    let mut c = Compiled::new();
    c.step(n);
    let vec = vec_width(c.ins.iter(), out.dtype());
    let code = c.code;
    launch_layout(out, &c.args, &c.computes, vec, THREADS, |dev, v| dev.kernel(&FuseKey { code, variant: v }), |_| {})
}

impl KernelKey for FuseKey {
    const FAMILY: &'static str = "fuse";
    fn entry(&self) -> &str {
        self.variant.name()
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("THREADS", THREADS.to_string()), ("MAX_DIMS", MAX_DIMS.to_string())]
    }
    fn source(&self) -> String {
        let mut s = String::from(PRELUDE);
        let (out, _) = self.code.last().expect("a formula has a step").value();
        let ins = inputs(&self.code);
        s += &element_fn(&self.code, &ins);
        s += &layout_macros(&ins, out, vec_width(ins.iter(), out), self.variant, "");
        let args: Vec<String> = (0..ins.len()).map(|k| format!("a{k}")).collect();
        writeln!(s, "#define RESULT cuprum_fused({})", args.join(", ")).unwrap();
        s + include_str!("../ufunc/elementwise.cu")
    }
}

/// How a fused reduction reads an array input at element `f` of the formula's value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum InLay {
    /// The formula's shape, C-contiguous: element `f`.
    Plain,
    /// 0-d: element 0.
    ZeroD,
    /// Any other layout: strided input `.0` of the layout table (`FLay`), one collapsed
    /// dimension (`f * stride`) or several.
    Strided(u8),
}

/// A reduction ending a formula (see `fuse::reduce`): `reduce.cu`'s `rows` kernel with the
/// formula computed where it would load its input; `lay` says how each array input is read,
/// `dims` the strided inputs' collapsed dimensions (0 without any).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct FuseRedKey {
    code: Vec<Ins>,
    lay: Vec<InLay>,
    dims: usize,
    red: RedSpec,
}

impl KernelKey for FuseRedKey {
    const FAMILY: &'static str = "fuse_reduce";
    fn entry(&self) -> &str {
        "rows"
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("THREADS", THREADS.to_string()), ("MAX_DIMS", MAX_DIMS.to_string())]
    }
    fn source(&self) -> String {
        let mut s = self.red.prelude(RedVariant::Rows);
        let ins = inputs(&self.code);
        s += &element_fn(&self.code, &ins);
        let (mut params, mut args) = (String::new(), Vec::new());
        let mut arrays = self.lay.iter();
        let strided = self.lay.iter().filter(|l| matches!(l, InLay::Strided(_))).count();
        for (k, x) in ins.iter().enumerate() {
            if x.scalar {
                write!(params, ", {} s{k}", compute_ty(x.compute)).unwrap();
                args.push(format!("s{k}"));
            } else {
                write!(params, ", const {}* __restrict__ in{k}", storage_ty(x.storage)).unwrap();
                args.push(match *arrays.next().expect("a layout per array input") {
                    InLay::Plain => format!("in{k}[f]"),
                    InLay::ZeroD => format!("in{k}[0]"),
                    InLay::Strided(q) if self.dims == 1 => format!("in{k}[(f) * FL.st[{q}][0]]"),
                    InLay::Strided(q) => format!("in{k}[foff(FL, {q}, f)]"),
                });
            }
        }
        if strided > 0 {
            // The strided inputs' element strides over the formula's collapsed dimensions.
            writeln!(
                s,
                "struct FLay {{ long long nd; long long shape[MAX_DIMS]; long long st[{strided}][MAX_DIMS]; }};\n\
                 __device__ __forceinline__ long long foff(const FLay& L, int q, long long f) {{\n\
                 \x20 long long o = 0;\n\
                 \x20 for (int d = (int)L.nd - 1; d >= 0; d--) {{ o += (f % L.shape[d]) * L.st[q][d]; f /= L.shape[d]; }}\n\
                 \x20 return o;\n}}"
            )
            .unwrap();
            params += ", FLay FL";
        }
        writeln!(s, "#define FUSED\n#define FUSED_PARAMS {params}").unwrap();
        writeln!(s, "#define FVAL(f) LOADX(cuprum_fused({}))", args.join(", ")).unwrap();
        s + include_str!("../reduce/reduce.cu")
    }
}

/// `out = op(n)` over `n`'s last axes, `nred` elements per output, on the GPU: as
/// `reduce::cuda::reduce` launches `rows` on the formula's contiguous value, blocks and splits
/// alike.
pub(crate) fn reduce(n: &NodeRef, op: ReduceOp, nred: usize, ddof: f64, out: &Array) -> Result<()> {
    let mut c = Compiled::new();
    c.step(n);
    let dev = dev_of(out)?;
    let nout = out.size();
    let red = RedSpec { op, x: n.dtype, out: out.dtype(), contig: true };
    // How each array input is read; the strided ones' element strides over the formula's
    // shape, collapsed together.
    let mut lay = Vec::new();
    let mut strides: Vec<Vec<isize>> = Vec::new();
    for a in &c.args {
        if let Arg::Array(x) = a {
            lay.push(if x.ndim() == 0 {
                InLay::ZeroD
            } else if x.shape() == n.shape.as_slice() && x.is_c_contiguous() {
                InLay::Plain
            } else {
                let st = layout::broadcast_strides(x.shape(), x.strides(), &n.shape).expect("the formula broadcasts");
                strides.push(st.iter().map(|&b| b / x.itemsize() as isize).collect());
                InLay::Strided(strides.len() as u8 - 1)
            });
        }
    }
    let table = if strides.is_empty() {
        None
    } else {
        let refs: Vec<&[isize]> = strides.iter().map(Vec::as_slice).collect();
        let (cs, cst) = layout::collapse(&n.shape, &refs);
        if cs.len() > MAX_DIMS {
            return Err(Error::NotImplemented(format!(
                "a fused reduction over {} dimensions that cannot be merged (at most {MAX_DIMS})",
                cs.len()
            )));
        }
        Some(crate::backend::cuda::launch::layout_table(&cs, &cst))
    };
    let dims = table.as_ref().map_or(0, |t| t[0] as usize);
    let kernel = dev.kernel(&FuseRedKey { code: c.code, lay, dims: if dims > 1 { 2 } else { dims }, red })?;
    let split = red.split(&dev, nout, nred)?;
    let mut p = Params::new();
    p.push(dptr(out)?);
    push_rows_params(&mut p, &split, nout, nred, ddof)?;
    for (a, &d) in c.args.iter().zip(&c.computes) {
        match a {
            Arg::Array(x) => p.push(dptr(x)?),
            Arg::Scalar(v) => p.push_scalar(*v, d),
        }
    }
    if let Some(t) = &table {
        p.push_i64s(t);
    }
    // SAFETY: the parameters match `rows` with FUSED (the usual ones but `x` and `L`, then the
    // formula's inputs in `FuseRedKey::source`'s order: array pointers, scalars in their
    // compute types; then the strided inputs' layout table, `FLay`). Each array input is read
    // at element `o * nred + r` of the formula's value through its own layout (its shape and
    // strides broadcast to the formula's: an element of its block); `part` and the zeroed
    // counters are as `reduce::cuda::reduce` gives them; all outlive the launch in stream order.
    unsafe { p.launch(&dev, &kernel, split.blocks(nout), THREADS) }
}

/// The kernel inputs of a formula's steps (arrays as their raw storage, scalars in their
/// compute types), in step order.
fn inputs(code: &[Ins]) -> Vec<EwIn> {
    let mut ins = Vec::new();
    for i in code {
        match *i {
            Ins::Input(d) => {
                let raw = if d == DType::Float16 { DType::UInt16 } else { d };
                ins.push(EwIn { storage: raw, compute: raw, scalar: false });
            }
            Ins::Scalar(d) => ins.push(EwIn { storage: d, compute: d, scalar: true }),
            _ => {}
        }
    }
    ins
}

/// The element function: the inputs `x0, x1...` (arrays in their storage types, scalars in
/// their compute types), one block per step, the last step's value in the output's storage.
fn element_fn(code: &[Ins], ins: &[EwIn]) -> String {
    let (out, _) = code.last().expect("a formula has a step").value();
    let params: Vec<String> = ins.iter().enumerate().map(|(k, x)| format!("{} x{k}", compute_ty(x.compute))).collect();
    // NVRTC (CUDA 13) miscompiles some chains of 8- and 16-bit integer operations on bytes
    // taken from a vector load: `min(-x, 3)` over int8 compared a negated byte without its
    // sign extension (the PTX's `min.s16` on an unextended register; found by the random
    // formula test). Each such value goes through `cuprum_pin`, an empty asm on its value
    // widened to 32 bits, so that the compiler extends it before and cannot narrow across it.
    let mut s = String::from(
        "template <typename T> __device__ __forceinline__ T cuprum_pin(T v) {\n\
         \x20 int r = (int)v;\n\
         \x20 asm volatile(\"\" : \"+r\"(r));\n\
         \x20 return (T)r;\n}\n",
    );
    writeln!(
        s,
        "__device__ __forceinline__ {} cuprum_fused({}) {{",
        storage_ty(out),
        if params.is_empty() { "void".into() } else { params.join(", ") }
    )
    .unwrap();
    // Whether values of `d` are pinned (see above).
    let small = |d: DType| matches!(d, DType::Int8 | DType::UInt8 | DType::Int16 | DType::UInt16);
    let pin = |d: DType, v: String| if small(d) { format!("cuprum_pin({v})") } else { v };
    // Operand `v` loaded in loop dtype `l` (a scalar already is in its loop dtype).
    let load = |v: u16, l: DType| -> String {
        let (d, scalar) = code[v as usize].value();
        if scalar {
            format!("t{v}")
        } else {
            load_cvt(d, l, &format!("t{v}"))
        }
    };
    let mut next_input = 0;
    for (k, &i) in code.iter().enumerate() {
        let (d, _) = i.value();
        let st = storage_ty(d);
        match i {
            Ins::Input(_) | Ins::Scalar(_) => {
                let ty = if let Ins::Scalar(_) = i { compute_ty(d) } else { st };
                let v =
                    if let Ins::Scalar(_) = i { format!("x{next_input}") } else { pin(d, format!("x{next_input}")) };
                writeln!(s, "  const {ty} t{k} = {v};").unwrap();
                next_input += 1;
            }
            Ins::Const(v) => writeln!(s, "  const bool t{k} = {v};").unwrap(),
            Ins::Unary(op, l, o, x) => {
                let e = EwOp::Unary(op, l).expr();
                let r = pin(o, store_cvt(unary_result(op, l, o), o, &e));
                writeln!(s, "  {st} t{k}; {{ {} a0 = {}; t{k} = {r}; }}", compute_ty(l), load(x, l)).unwrap();
            }
            Ins::Binary(op, l, o, a, b) => {
                let ((da, sa), (db, sb)) = (code[a as usize].value(), code[b as usize].value());
                if !sa && !sb && mixed_int_compare(op, da, db) {
                    // As the unfused kernel: an exact signed/unsigned comparison.
                    let wide = |d: DType| if d.is_signed_int() { DType::Int64 } else { DType::UInt64 };
                    let (wa, wb) = (wide(da), wide(db));
                    let e = EwOp::CmpMixed(op).expr();
                    writeln!(
                        s,
                        "  {st} t{k}; {{ {} a0 = {}; {} a1 = {}; t{k} = {}; }}",
                        compute_ty(wa),
                        load(a, wa),
                        compute_ty(wb),
                        load(b, wb),
                        pin(o, store_cvt(DType::Bool, o, &e))
                    )
                    .unwrap();
                } else {
                    let result = if op.is_comparison() { DType::Bool } else { l };
                    let r = pin(o, store_cvt(result, o, &EwOp::Binary(op, l).expr()));
                    let ct = compute_ty(l);
                    writeln!(s, "  {st} t{k}; {{ {ct} a0 = {}; {ct} a1 = {}; t{k} = {r}; }}", load(a, l), load(b, l))
                        .unwrap();
                }
            }
            Ins::Where(o, c, x, y) => {
                let ct = compute_ty(o);
                let r = pin(o, store_cvt(o, o, &EwOp::Where.expr()));
                writeln!(
                    s,
                    "  {st} t{k}; {{ bool a0 = {}; {ct} a1 = {}; {ct} a2 = {}; t{k} = {r}; }}",
                    load(c, DType::Bool),
                    load(x, o),
                    load(y, o)
                )
                .unwrap();
            }
            Ins::Cast(to, x) => {
                let (from, scalar) = code[x as usize].value();
                debug_assert!(!scalar, "a cast of an array");
                let r = if from == to {
                    format!("t{x}")
                } else {
                    pin(to, store_cvt(from, to, &load_cvt(from, from, &format!("t{x}"))))
                };
                writeln!(s, "  {st} t{k} = {r};").unwrap();
            }
        }
    }
    writeln!(s, "  return t{};\n}}", code.len() - 1).unwrap();
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::check_compiles;
    use crate::core::device::Device;
    use crate::Expr;
    use DType::*;

    /// Formulas over every kind of node and dtype (float16 bits, bool, complex, the exact
    /// signed/unsigned comparison, constants, scalars, casts, `where`): the source of each
    /// layout is well formed and (where NVRTC is present) compiles; a leaf used twice is one
    /// input.
    #[test]
    fn fused_sources_compile() {
        let dev = Device::Cpu;
        let z = |d: DType| crate::zeros(&[4, 3], d, &dev).unwrap();
        let (h, f, d, i8_, i64_, u64_, b, c) =
            (z(Float16), z(Float32), z(Float64), z(Int8), z(Int64), z(UInt64), z(Bool), z(Complex64));
        let exprs: Vec<(Expr, usize)> = vec![
            ((h.expr() * 2.0 + &f).exp().sqrt(), 2),
            ((&f.expr() - &d) * (&f.expr() - &d), 2),
            (i64_.expr().less(&u64_).where_(&h, 1.5), 3),
            (i8_.expr().less(1000).logical_not(), 0),
            ((c.expr() * &f).abs().astype(Int32), 2),
            ((b.expr() & true).logical_xor(&i8_).astype(UInt64) + &u64_, 3),
            (f.expr().clip(0, 1.5).round(2), 1),
            (i64_.expr().round(-1), 1),
            ((h.expr().astype(Float16) - &h).floor_divide(3) % 2.5, 1),
            (i8_.expr().binary_ufunc(BinaryOp::LeftShift, 2).binary_ufunc(BinaryOp::RightShift, 1), 1),
        ];
        let mut compiled = 0;
        for (k, (e, inputs)) in exprs.into_iter().enumerate() {
            let n = e.node().unwrap();
            let mut c = Compiled::new();
            c.step(&n);
            assert_eq!(c.args.iter().filter(|a| matches!(a, Arg::Array(_))).count(), inputs, "formula {k}");
            // The reductions that may end it (its output dtype's), one 0-d input where it has one.
            let (dt, _) = c.code.last().unwrap().value();
            let lay: Vec<InLay> = (0..inputs)
                .map(|i| [InLay::Plain, InLay::ZeroD, InLay::Strided(0), InLay::Strided(1)][i % 4])
                .collect();
            for op in [ReduceOp::Sum, ReduceOp::Var, ReduceOp::Min, ReduceOp::Any, ReduceOp::Prod, ReduceOp::Mean] {
                if dt.is_complex() {
                    continue;
                }
                let red = RedSpec { op, x: dt, out: op.out_dtype(dt), contig: true };
                let key = FuseRedKey { code: c.code.clone(), lay: lay.clone(), dims: 1 + k % 2, red };
                let src = key.source();
                assert!(src.contains("#define FUSED\n"), "{key:?}");
                assert_eq!(src.matches('{').count(), src.matches('}').count(), "{key:?}");
                if k % 3 == 0 || op == ReduceOp::Sum {
                    compiled += check_compiles(&key) as usize;
                }
            }
            for v in [Variant::Kv, Variant::K1, Variant::Ks, Variant::Kn] {
                let key = FuseKey { code: c.code.clone(), variant: v };
                let src = key.source();
                assert_eq!(src.matches('{').count(), src.matches('}').count(), "{key:?}");
                assert_eq!(src.matches('(').count(), src.matches(')').count(), "{key:?}");
                compiled += check_compiles(&key) as usize;
            }
        }
        eprintln!("fused kernels: {compiled} compiled by NVRTC");
    }
}

#[cfg(test)]
mod pin_tests {
    use super::*;

    /// The chain NVRTC miscompiled (`minimum(negative(fmin(x, x)), 3)` over int8, bytes of a
    /// vector load: fused 27 where the unfused operations give 3, on an H100): every 8-bit
    /// value passes through `cuprum_pin`; wider values do not.
    #[test]
    fn small_integer_values_are_pinned() {
        use DType::*;
        let code = vec![
            Ins::Input(Int8),
            Ins::Binary(BinaryOp::Fmin, Int8, Int8, 0, 0),
            Ins::Unary(UnaryOp::Negative, Int8, Int8, 1),
            Ins::Scalar(Int8),
            Ins::Binary(BinaryOp::Minimum, Int8, Int8, 2, 3),
            Ins::Cast(Int32, 4),
        ];
        let src = FuseKey { code, variant: Variant::Kv }.source();
        for v in ["t0 = cuprum_pin(x0)", "t1 = cuprum_pin(", "t2 = cuprum_pin(", "t4 = cuprum_pin("] {
            assert!(src.contains(v), "{v} in {src}");
        }
        assert!(src.contains("const i8 t3 = x1;"), "a scalar parameter needs no pin");
        assert!(src.contains("i32 t5 = ((i32)(t4));"), "int32 values are not pinned: {src}");
    }
}
