//! CuPy's kernels from CUDA C source, on the GPU: [`ElementwiseKernel`], [`ReductionKernel`],
//! [`RawKernel`] and [`RawModule`]. What they share lives here: CuPy's parameter syntax
//! (`"T x, raw float32 y"`), the binding of type placeholders to the arguments' dtypes, the
//! arguments themselves, and the device a call runs on.
//!
//! These kernels are CUDA C, so they run on a GPU only: called with CPU arrays they return
//! NotImplementedError, which names `#[cuprum::vectorize]` and `#[cuprum::kernel]` (Rust
//! functions that run on both devices).
//!
//! The generated modules go through the kernel cache as every kernel does (memory, then disk),
//! keyed by the kernel object and the dtypes and layout of the call.

mod elementwise;
mod raw;
mod reduction;

pub use elementwise::ElementwiseKernel;
pub use raw::{RawArg, RawArgs, RawKernel, RawModule};
pub use reduction::ReductionKernel;

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{DType, Kind, Scalar};
use crate::core::error::{Error, Result};
use crate::ufunc::Operand;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What a source kernel's module starts with: cuprum's shared headers and `source.cuh`.
pub(crate) fn source_prelude() -> String {
    let mut s = String::from(crate::backend::cuda::codegen::PRELUDE);
    s += include_str!("source.cuh");
    s
}

/// A fresh identity for a kernel object (its modules' cache key).
pub(crate) fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// An elementwise or reduction kernel object: its identity (the cache key of its modules; a
/// new one with every change), name, parameters, preamble and NVRTC options, and the code `B`
/// of its kind (the operation, or the map and reduce expressions).
#[derive(Clone, Debug)]
pub(crate) struct Spec<B> {
    pub id: u64,
    pub name: String,
    pub ins: Vec<Param>,
    pub outs: Vec<Param>,
    pub preamble: String,
    pub options: Vec<String>,
    pub body: B,
}

impl<B: Clone> Spec<B> {
    pub(crate) fn new(name: &str, ins: Vec<Param>, outs: Vec<Param>, body: B) -> Arc<Spec<B>> {
        let (preamble, options) = (String::new(), Vec::new());
        Arc::new(Spec { id: next_id(), name: name.to_string(), ins, outs, preamble, options, body })
    }

    /// A copy changed by `f` (a builder method), with an identity of its own.
    pub(crate) fn with(self: &Arc<Self>, f: impl FnOnce(&mut Self)) -> Arc<Self> {
        let mut s = (**self).clone();
        f(&mut s);
        s.id = next_id();
        Arc::new(s)
    }

    /// The inputs' and outputs' parameters, in order.
    pub(crate) fn params(&self) -> impl Iterator<Item = &Param> {
        self.ins.iter().chain(&self.outs)
    }

    /// The start of a module: cuprum's headers, the placeholders' typedefs, `typedefs` of the
    /// kind's own, then the user's preamble.
    pub(crate) fn source_head(&self, vars: &[(String, DType)], own: &str) -> String {
        let mut src = source_prelude();
        src += &typedefs(vars);
        src += own;
        src += "#line 1 \"preamble\"\n";
        src += &self.preamble;
        src += "\n";
        src
    }
}

/// User code spliced into a kernel's `.cu` file, under a `#line` naming it (NVRTC's messages
/// then point into the user's own text).
pub(crate) fn user_code(code: &str, label: &str, end: &str) -> String {
    format!("\n#line 1 \"{label}\"\n{code}\n{end}")
}

/// What a call binds: the placeholders' dtypes, every parameter's dtype (inputs, then
/// outputs), and which inputs are scalars (bit `k` for input `k`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Bound {
    pub vars: Vec<(String, DType)>,
    pub dtypes: Vec<DType>,
    pub scalars: u64,
}

/// One module of an elementwise or reduction kernel: the kernel object, what the call bound,
/// and the layout variant `V` of its kind.
#[derive(Clone)]
pub(crate) struct ModKey<B, V> {
    pub spec: Arc<Spec<B>>,
    pub bound: Bound,
    pub variant: V,
}

impl<B, V: PartialEq> PartialEq for ModKey<B, V> {
    fn eq(&self, o: &Self) -> bool {
        self.spec.id == o.spec.id && self.bound == o.bound && self.variant == o.variant
    }
}
impl<B, V: Eq> Eq for ModKey<B, V> {}
impl<B, V: Hash> Hash for ModKey<B, V> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.spec.id.hash(h);
        self.bound.hash(h);
        self.variant.hash(h);
    }
}
impl<B, V: std::fmt::Debug> std::fmt::Debug for ModKey<B, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{:?} {:?}", self.spec.name, self.bound.dtypes, self.variant)
    }
}

/// A parameter's type: a placeholder (one letter, bound by the arguments) or a dtype.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PType {
    Var(String),
    Fixed(DType),
}

/// One parameter of a source kernel, parsed from CuPy's syntax: `[raw] [_non_const] type name`.
#[derive(Clone, Debug)]
pub(crate) struct Param {
    pub name: String,
    pub ty: PType,
    pub raw: bool,
    pub is_const: bool,
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic() || f == '_') && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// Parses CuPy's parameter list (`"T x, raw float32 y"`; empty: none). A one-letter type is a
/// placeholder, any other must be a dtype's name as NumPy spells it.
pub(crate) fn parse_params(what: &str, s: &str, is_const: bool) -> Result<Vec<Param>> {
    let mut out: Vec<Param> = Vec::new();
    if s.trim().is_empty() {
        return Ok(out);
    }
    for part in s.split(',') {
        let toks: Vec<&str> = part.split_whitespace().collect();
        if toks.len() < 2 {
            return Err(Error::Value(format!("{what}: the parameter {:?} needs a type and a name", part.trim())));
        }
        let name = toks[toks.len() - 1];
        let ty = toks[toks.len() - 2];
        let mut p = Param { name: name.to_string(), ty: PType::Var(ty.to_string()), raw: false, is_const };
        for m in &toks[..toks.len() - 2] {
            match *m {
                "raw" => p.raw = true,
                "_non_const" => p.is_const = false,
                _ => return Err(Error::Value(format!("{what}: unknown modifier {m:?} in {:?}", part.trim()))),
            }
        }
        if !is_ident(name) {
            return Err(Error::Value(format!("{what}: invalid parameter name {name:?}")));
        }
        if name == "i" || name.starts_with("_") {
            return Err(Error::Value(format!(
                "{what}: the parameter name {name:?} is reserved (`i` is the element index; names starting \
                 with `_` are the kernel's own)"
            )));
        }
        if ty.chars().count() != 1 {
            let dt = DType::from_name(ty).filter(|d| d.to_string() == ty).ok_or_else(|| {
                Error::Value(format!(
                    "{what}: wrong type {ty:?} (a dtype name such as float32, or one letter for a type placeholder)"
                ))
            })?;
            p.ty = PType::Fixed(dt);
        } else if !is_ident(ty) {
            return Err(Error::Value(format!("{what}: invalid type placeholder {ty:?}")));
        }
        out.push(p);
    }
    Ok(out)
}

/// A kernel's name and parameter lists, checked as CuPy checks them: the name a C identifier,
/// the lists parsed, no name twice, at least one output. Returns the inputs and the outputs.
pub(crate) fn signature(what: &str, name: &str, in_params: &str, out_params: &str) -> Result<(Vec<Param>, Vec<Param>)> {
    if !is_ident(name) {
        return Err(Error::Value(format!("{what}: the name must be a C identifier")));
    }
    let ins = parse_params(what, in_params, true)?;
    let outs = parse_params(what, out_params, false)?;
    check_unique(what, &ins.iter().chain(&outs).collect::<Vec<_>>())?;
    if outs.is_empty() {
        return Err(Error::Value(format!("{what}: at least one output parameter is needed")));
    }
    Ok((ins, outs))
}

/// Checks that no name is used twice among `params`.
pub(crate) fn check_unique(what: &str, params: &[&Param]) -> Result<()> {
    for (k, p) in params.iter().enumerate() {
        if params[..k].iter().any(|q| q.name == p.name) {
            return Err(Error::Value(format!("{what}: the parameter name {:?} is used twice", p.name)));
        }
    }
    Ok(())
}

/// The C type a kernel sees for a dtype (CuPy's names; `source.cuh` defines `float16` and
/// `complex<T>`).
pub(crate) fn ctype(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::Int8 => "signed char",
        DType::Int16 => "short",
        DType::Int32 => "int",
        DType::Int64 => "long long",
        DType::UInt8 => "unsigned char",
        DType::UInt16 => "unsigned short",
        DType::UInt32 => "unsigned int",
        DType::UInt64 => "unsigned long long",
        DType::Float16 => "float16",
        DType::Float32 => "float",
        DType::Float64 => "double",
        DType::Complex64 => "complex<float>",
        DType::Complex128 => "complex<double>",
    }
}

/// The placeholders' dtypes, bound as CuPy binds them: by the output arrays given, then by the
/// input arrays, each in order. A parameter of a fixed dtype takes an array of exactly that
/// dtype, and the arrays of one placeholder share one dtype (no casting: TypeError). Scalars
/// bind nothing; they take their parameter's type.
#[derive(Debug)]
pub(crate) struct Types {
    pub vars: Vec<(String, DType)>,
}

impl Types {
    pub(crate) fn bind(
        what: &str,
        ins: &[Param],
        in_dts: &[Option<DType>],
        outs: &[Param],
        out_dts: &[DType],
    ) -> Result<Types> {
        let mut vars: Vec<(String, DType)> = Vec::new();
        let pairs = outs.iter().zip(out_dts.iter().map(|d| Some(*d))).chain(ins.iter().zip(in_dts.iter().copied()));
        for (p, a) in pairs {
            let Some(a) = a else { continue };
            match &p.ty {
                PType::Fixed(d) if *d != a => {
                    return Err(Error::Type(format!(
                        "{what}: type is mismatched: the parameter {} is {d}, its argument an array of {a}",
                        p.name
                    )))
                }
                PType::Fixed(_) => {}
                PType::Var(v) => match vars.iter().find(|(n, _)| n == v) {
                    Some((_, t)) if *t != a => {
                        return Err(Error::Type(format!(
                            "{what}: type is mismatched: the parameter {} ({v}) has an array of {a}, but {v} is {t} \
                             from an earlier argument (source kernels do not cast)",
                            p.name
                        )))
                    }
                    Some(_) => {}
                    None => vars.push((v.clone(), a)),
                },
            }
        }
        Ok(Types { vars })
    }

    /// What the call binds ([`Bound`]: every parameter's dtype, the inputs', then the
    /// outputs', and which inputs are scalars), and the scalar arguments converted to theirs.
    pub(crate) fn bound(
        &self,
        what: &str,
        ins: &[Param],
        outs: &[Param],
        args: &[Operand<'_>],
    ) -> Result<(Bound, Vec<Scalar>)> {
        let mut dtypes = Vec::with_capacity(ins.len() + outs.len());
        let (mut scalars, mut mask) = (Vec::new(), 0u64);
        for (k, (p, a)) in ins.iter().zip(args).enumerate() {
            let d = self.of(what, p)?;
            dtypes.push(d);
            if let Operand::Scalar(v) = a {
                scalars.push(scalar_for(what, p, *v, d)?);
                mask |= 1 << k;
            }
        }
        for p in outs {
            dtypes.push(self.of(what, p)?);
        }
        Ok((Bound { vars: self.vars.clone(), dtypes, scalars: mask }, scalars))
    }

    /// The dtype of parameter `p`.
    pub(crate) fn of(&self, what: &str, p: &Param) -> Result<DType> {
        match &p.ty {
            PType::Fixed(d) => Ok(*d),
            PType::Var(v) => self.vars.iter().find(|(n, _)| n == v).map(|(_, d)| *d).ok_or_else(|| {
                Error::Type(format!(
                    "{what}: cannot tell the type {v} of the parameter {}: no array argument has type {v}",
                    p.name
                ))
            }),
        }
    }
}

/// `typedef <C type> T;` for each placeholder bound.
pub(crate) fn typedefs(vars: &[(String, DType)]) -> String {
    vars.iter().map(|(n, d)| format!("typedef {} {n};\n", ctype(*d))).collect()
}

/// The C type a parameter is declared with: its placeholder, or its dtype's C name.
pub(crate) fn decl(p: &Param, d: DType) -> String {
    match &p.ty {
        PType::Var(v) => v.clone(),
        PType::Fixed(_) => ctype(d).to_string(),
    }
}

/// What an element or reduction kernel's call checks and binds first: the number of
/// arguments, a scalar for a raw parameter, one device, the placeholders' dtypes.
pub(crate) struct Prep<'a> {
    pub dev: Device,
    pub types: Types,
    /// The array arguments, in order.
    pub arrays: Vec<&'a Array>,
}

pub(crate) fn prepare<'a>(
    what: &str,
    ins: &[Param],
    outs: &[Param],
    args: &[Operand<'a>],
    given: &[&mut Array],
) -> Result<Prep<'a>> {
    if args.len() != ins.len() {
        return Err(Error::Type(format!("{what}: takes {} arguments ({} given)", ins.len(), args.len())));
    }
    let mut arrays = Vec::new();
    let mut in_dts = Vec::with_capacity(args.len());
    for (p, a) in ins.iter().zip(args) {
        match a {
            Operand::Array(x) => {
                arrays.push(*x);
                in_dts.push(Some(x.dtype()));
            }
            Operand::Scalar(_) if p.raw => {
                return Err(Error::Type(format!("{what}: the raw parameter {} needs an array", p.name)))
            }
            Operand::Scalar(_) => in_dts.push(None),
        }
    }
    let dev = gpu_of(what, arrays.iter().copied().chain(given.iter().map(|o| &**o)))?;
    let out_dts: Vec<DType> = given.iter().map(|o| o.dtype()).collect();
    let types = Types::bind(what, ins, &in_dts, outs, &out_dts)?;
    Ok(Prep { dev, types, arrays })
}

/// The outputs of a call: those given, else those allocated.
pub(crate) fn outputs<'b>(allocated: &'b [Array], given: &'b [&mut Array]) -> Vec<&'b Array> {
    if given.is_empty() {
        allocated.iter().collect()
    } else {
        given.iter().map(|o| &**o).collect()
    }
}

/// The outputs of a call whose (non-raw) outputs have `shape` (`whose`: "the loop's", "the
/// reduction's"): those given, checked, or new arrays of the bound dtypes on `dev`. A raw
/// output must be given (nothing tells its size).
pub(crate) fn new_outputs(
    what: &str,
    outs: &[Param],
    given: &[&mut Array],
    shape: &[usize],
    whose: &str,
    types: &Types,
    dev: Device,
) -> Result<Vec<Array>> {
    for (p, o) in outs.iter().zip(given.iter()) {
        if !p.raw && o.shape() != shape {
            return Err(Error::Value(format!(
                "{what}: the output {} has shape {}, {whose} shape is {}",
                p.name,
                crate::core::error::shape_str(o.shape()),
                crate::core::error::shape_str(shape)
            )));
        }
    }
    let mut new = Vec::new();
    if given.is_empty() {
        for p in outs {
            if p.raw {
                return Err(Error::Value(format!(
                    "{what}: the raw output {} must be given (call_out): its size is undecided",
                    p.name
                )));
            }
            new.push(Array::alloc(shape, types.of(what, p)?, dev, false)?);
        }
    }
    Ok(new)
}

/// `call`'s check: the kernel has one output (else `call_multi`).
pub(crate) fn one_output(what: &str, outs: usize) -> Result<()> {
    if outs != 1 {
        return Err(Error::Value(format!("{what}: {outs} outputs; call_multi returns them all")));
    }
    Ok(())
}

/// `call_out`'s check: one array given per output parameter.
pub(crate) fn outputs_given(what: &str, given: usize, outs: usize) -> Result<()> {
    if given != outs {
        return Err(Error::Type(format!("{what}: {given} output arrays given for {outs} output parameters")));
    }
    Ok(())
}

/// A scalar argument converted to its parameter's dtype, as NumPy converts a Python scalar:
/// an integer that does not fit an integer dtype is an OverflowError.
pub(crate) fn scalar_for(what: &str, p: &Param, s: Scalar, d: DType) -> Result<Scalar> {
    if matches!(s.kind(), Kind::Int | Kind::UInt) && d.is_integer() {
        s.promote_with(d).map_err(|_| {
            Error::Overflow(format!("{what}: the scalar {s:?} for the parameter {} does not fit in {d}", p.name))
        })?;
    }
    if s.kind() == Kind::Complex && !d.is_complex() {
        return Err(Error::Type(format!("{what}: a complex scalar for the parameter {} of type {d}", p.name)));
    }
    Ok(s)
}

/// The device of a call's arrays (one device for all; the default device when none is an
/// array). Source kernels are CUDA C: on the CPU, a NotImplementedError.
pub(crate) fn gpu_of<'a>(what: &str, arrays: impl IntoIterator<Item = &'a Array>) -> Result<Device> {
    let mut dev: Option<Device> = None;
    for a in arrays {
        match dev {
            None => dev = Some(a.device()),
            Some(d) if d != a.device() => {
                return Err(Error::DeviceMismatch { op: what.to_string(), a: d, b: a.device() })
            }
            Some(_) => {}
        }
    }
    let dev = dev.unwrap_or_else(Device::default_device);
    if dev == Device::Cpu {
        return Err(not_on_cpu(what));
    }
    Ok(dev)
}

/// The error of a source kernel called on the CPU.
pub(crate) fn not_on_cpu(what: &str) -> Error {
    Error::NotImplemented(format!(
        "{what}: CuPy's source kernels are CUDA C and run on a GPU only; for a kernel that runs on the CPU \
         and the GPU, write it in Rust with #[cuprum::vectorize] (elementwise) or #[cuprum::kernel] (a grid)"
    ))
}

/// The arguments of a source kernel's call: a tuple of arrays and scalars (`(&x, 2.0)`), a
/// slice or `Vec` of [`Operand`]s, or `()`.
pub trait SourceArgs<'a> {
    /// The arguments in order.
    fn operands(self) -> Vec<Operand<'a>>;
}

impl<'a> SourceArgs<'a> for () {
    fn operands(self) -> Vec<Operand<'a>> {
        Vec::new()
    }
}
impl<'a> SourceArgs<'a> for Vec<Operand<'a>> {
    fn operands(self) -> Vec<Operand<'a>> {
        self
    }
}
impl<'a> SourceArgs<'a> for &[Operand<'a>] {
    fn operands(self) -> Vec<Operand<'a>> {
        self.to_vec()
    }
}
impl<'a> SourceArgs<'a> for &'a Array {
    fn operands(self) -> Vec<Operand<'a>> {
        vec![Operand::Array(self)]
    }
}
/// Implements an argument-list trait (`SourceArgs`, `RawArgs`) for tuples of 1 to 12 values,
/// each converted `Into` its item type.
macro_rules! tuple_args {
    ($tr:ident, $method:ident, $item:ident) => {
        $crate::kernel::source::tuple_args!(@ $tr, $method, $item; A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l);
    };
    (@ $tr:ident, $method:ident, $item:ident; $t:ident $v:ident $(, $ts:ident $vs:ident)*) => {
        $crate::kernel::source::tuple_args!(@ $tr, $method, $item; $($ts $vs),*);
        impl<'a, $t: Into<$item<'a>> $(, $ts: Into<$item<'a>>)*> $tr<'a> for ($t, $($ts,)*) {
            fn $method(self) -> Vec<$item<'a>> {
                let ($v, $($vs,)*) = self;
                vec![$v.into() $(, $vs.into())*]
            }
        }
    };
    (@ $tr:ident, $method:ident, $item:ident;) => {};
}
pub(crate) use tuple_args;
tuple_args!(SourceArgs, operands, Operand);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_parse_as_cupy_reads_them() {
        let p = parse_params("k", "T x, raw float32 y, _non_const U z", true).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(
            (p[0].name.as_str(), &p[0].ty, p[0].raw, p[0].is_const),
            ("x", &PType::Var("T".into()), false, true)
        );
        assert_eq!((p[1].name.as_str(), &p[1].ty, p[1].raw), ("y", &PType::Fixed(DType::Float32), true));
        assert!(!p[2].is_const);
        assert!(parse_params("k", "", true).unwrap().is_empty());
        for bad in ["float x y", "x", "T 1x", "floaty x", "f4 x", "T i", "T _x", "weird T x"] {
            let e = parse_params("k", bad, true).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::ValueError, "{bad}: {e}");
        }
    }

    #[test]
    fn placeholders_bind_outputs_first_and_never_cast() {
        let ins = parse_params("k", "T x, T y, int32 n", true).unwrap();
        let outs = parse_params("k", "U z", false).unwrap();
        let t = Types::bind("k", &ins, &[Some(DType::Float32), None, None], &outs, &[DType::Int64]).unwrap();
        assert_eq!(t.of("k", &ins[1]).unwrap(), DType::Float32);
        assert_eq!(t.of("k", &outs[0]).unwrap(), DType::Int64);
        assert_eq!(typedefs(&t.vars), "typedef long long U;\ntypedef float T;\n");
        let e = Types::bind("k", &ins, &[Some(DType::Float32), Some(DType::Float64), None], &outs, &[]).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::TypeError);
        let e = Types::bind("k", &ins, &[None, None, Some(DType::Int64)], &outs, &[]).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::TypeError);
        let t = Types::bind("k", &ins, &[None, None, None], &outs, &[]).unwrap();
        assert_eq!(t.of("k", &outs[0]).unwrap_err().kind(), crate::ErrorKind::TypeError);
    }
}
