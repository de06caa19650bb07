//! `ReductionKernel`: CuPy's reduction kernel from C expressions (`reduction.cu`).

use super::elementwise::push_typed;
use super::{
    decl, new_outputs, one_output, outputs, outputs_given, prepare, signature, user_code, Bound, ModKey, Prep,
    SourceArgs,
};
use crate::array::Array;
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dptr, Params, RowsSplit, MAX_DIMS};
use crate::backend::cuda::CudaDevice;
use crate::core::dtype::Scalar;
use crate::core::error::{Error, Result};
use crate::core::layout;
use crate::core::layout::Axes;
use crate::ufunc::Operand;
use std::fmt::Write;
use std::sync::Arc;

/// Threads per block of the reduction kernels.
const RTHREADS: u32 = 256;
/// Bytes of one partial accumulator (`reduction.cu` asserts the accumulator fits).
const ACC_BYTES: usize = 128;

/// CuPy's `ReductionKernel`: a map expression over the elements of the inputs' broadcast
/// shape, merged over the reduced axes by a reduce expression, then a post-map statement
/// that writes the outputs.
///
/// - `in_params`, `out_params`: CuPy's parameter lists (`"T x"`, `"T y"`; see
///   [`ElementwiseKernel`](super::ElementwiseKernel) for the placeholders and scalars; `raw`
///   parameters are not taken here).
/// - `map_expr`: the value of one element, from the inputs (each its element, as `const T&`).
/// - `reduce_expr`: merges two values `a` and `b` (associative and commutative: the order of
///   the merge is not fixed).
/// - `post_map_expr`: statements of the merged value `a` assigning the outputs.
/// - `identity`: the value of an empty reduction (C code), or `None`: then reducing an empty
///   range is a ValueError.
/// - The reduced values have the C type `reduce_type` (default: the first output's type);
///   the kernel can name it `_type_reduce`.
///
/// ```no_run
/// use cuprum::kernel::ReductionKernel;
/// # fn main() -> cuprum::Result<()> {
/// let l2norm = ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = sqrt(a)", Some("0"), "l2norm")?;
/// let gpu = cuprum::Device::cuda(0)?;
/// let x = cuprum::arange_f(0.0, 10.0, 1.0, cuprum::DType::Float32, &gpu)?.reshape([2, 5])?;
/// let y = l2norm.call(&x, 1)?; // over axis 1
/// assert_eq!(y.shape(), &[2]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct ReductionKernel {
    spec: Arc<Spec>,
}

/// A reduction kernel's own code: its expressions, the identity, the reduced values' type.
#[derive(Clone, Debug)]
struct Body {
    map_expr: String,
    reduce_expr: String,
    post_map_expr: String,
    identity: Option<String>,
    reduce_type: Option<String>,
}

type Spec = super::Spec<Body>;

impl ReductionKernel {
    /// A reduction kernel (CuPy's positional arguments, in order). ValueError for a parameter
    /// list CuPy would not accept, a `raw` parameter, or a bad name.
    pub fn new(
        in_params: &str,
        out_params: &str,
        map_expr: &str,
        reduce_expr: &str,
        post_map_expr: &str,
        identity: Option<&str>,
        name: &str,
    ) -> Result<ReductionKernel> {
        let what = format!("ReductionKernel {name}");
        let (ins, outs) = signature(&what, name, in_params, out_params)?;
        if let Some(p) = ins.iter().chain(&outs).find(|p| p.raw) {
            return Err(Error::Value(format!(
                "{what}: the raw parameter {}: a reduction's parameters are reduced element by element \
                 (index a whole array in an ElementwiseKernel or a RawKernel)",
                p.name
            )));
        }
        if let Some(p) = ins.iter().chain(&outs).find(|p| p.name == "a" || p.name == "b") {
            return Err(Error::Value(format!(
                "{what}: the parameter name {:?} is the reduce expression's own (a, b)",
                p.name
            )));
        }
        let body = Body {
            map_expr: map_expr.to_string(),
            reduce_expr: reduce_expr.to_string(),
            post_map_expr: post_map_expr.to_string(),
            identity: identity.map(str::to_string),
            reduce_type: None,
        };
        Ok(ReductionKernel { spec: Spec::new(name, ins, outs, body) })
    }

    fn with(&self, f: impl FnOnce(&mut Spec)) -> ReductionKernel {
        ReductionKernel { spec: self.spec.with(f) }
    }

    /// The C type of the reduced values (a placeholder such as `T`, or a C type).
    pub fn reduce_type(&self, ty: &str) -> ReductionKernel {
        self.with(|s| s.body.reduce_type = Some(ty.to_string()))
    }

    /// C code placed before the kernel.
    pub fn preamble(&self, code: &str) -> ReductionKernel {
        self.with(|s| s.preamble = code.to_string())
    }

    /// NVRTC options added to cuprum's.
    pub fn options(&self, options: &[&str]) -> ReductionKernel {
        self.with(|s| s.options = options.iter().map(|o| o.to_string()).collect())
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// Reduces `args` over `axis` (of their broadcast shape; `None` for all) and returns the
    /// one output (CuPy's `kernel(*args, axis=...)`).
    pub fn call<'a>(&self, args: impl SourceArgs<'a>, axis: impl Into<Axes>) -> Result<Array> {
        self.call_one(args, axis.into(), false)
    }

    /// As [`call`](Self::call), keeping the reduced axes with length 1 (CuPy's
    /// `keepdims=True`).
    pub fn call_keepdims<'a>(&self, args: impl SourceArgs<'a>, axis: impl Into<Axes>) -> Result<Array> {
        self.call_one(args, axis.into(), true)
    }

    fn call_one<'a>(&self, args: impl SourceArgs<'a>, axis: Axes, keepdims: bool) -> Result<Array> {
        one_output(&format!("ReductionKernel {}", self.spec.name), self.spec.outs.len())?;
        Ok(self.run(&args.operands(), axis, keepdims, &mut [])?.remove(0))
    }

    /// Every output of the reduction over `axis` (`keepdims` keeps the reduced axes).
    pub fn call_multi<'a>(
        &self,
        args: impl SourceArgs<'a>,
        axis: impl Into<Axes>,
        keepdims: bool,
    ) -> Result<Vec<Array>> {
        self.run(&args.operands(), axis.into(), keepdims, &mut [])
    }

    /// As [`call`](Self::call), into the arrays `outs` (one per output parameter, of its dtype
    /// and of the result's shape).
    pub fn call_out<'a>(
        &self,
        args: impl SourceArgs<'a>,
        axis: impl Into<Axes>,
        keepdims: bool,
        outs: &mut [&mut Array],
    ) -> Result<()> {
        outputs_given(&format!("ReductionKernel {}", self.spec.name), outs.len(), self.spec.outs.len())?;
        self.run(&args.operands(), axis.into(), keepdims, outs).map(|_| ())
    }

    fn run(&self, args: &[Operand<'_>], axis: Axes, keepdims: bool, given: &mut [&mut Array]) -> Result<Vec<Array>> {
        let s = &*self.spec;
        let what = format!("ReductionKernel {}", s.name);
        let Prep { dev, types, arrays } = prepare(&what, &s.ins, &s.outs, args, given)?;
        if arrays.is_empty() {
            return Err(Error::Type(format!("{what}: at least one argument must be an array")));
        }
        let mut shape: Vec<usize> = arrays[0].shape().to_vec();
        for a in &arrays[1..] {
            shape = crate::ufunc::broadcast_shape(&what, &shape, a.shape())?;
        }
        let axes = axis.resolve(shape.len())?;
        let kept: Vec<usize> = (0..shape.len()).filter(|d| !axes.contains(d)).collect();
        let kshape: Vec<usize> = kept.iter().map(|&d| shape[d]).collect();
        let oshape: Vec<usize> = if keepdims {
            (0..shape.len()).map(|d| if axes.contains(&d) { 1 } else { shape[d] }).collect()
        } else {
            kshape.clone()
        };
        let nred: usize = axes.iter().map(|&d| shape[d]).product();
        let nout: usize = kshape.iter().product();
        if nred == 0 && nout > 0 && s.body.identity.is_none() {
            return Err(Error::Value(format!(
                "{what}: zero-size array to a reduction operation which has no identity"
            )));
        }
        let outs = new_outputs(&what, &s.outs, given, &oshape, "the reduction's", &types, dev)?;
        let (bound, scalars) = types.bound(&what, &s.ins, &s.outs, args)?;
        if nout > 0 {
            let out_refs = outputs(&outs, given);
            let geo = Geometry { shape: &shape, axes: &axes, kept: &kept, keepdims };
            launch(&self.spec, &what, bound, args, &scalars, &out_refs, &geo)?;
        }
        Ok(outs)
    }
}

/// The reduction's shape: the broadcast shape, its reduced and kept axes.
struct Geometry<'g> {
    shape: &'g [usize],
    axes: &'g [usize],
    kept: &'g [usize],
    keepdims: bool,
}

/// The shape a reduction module is compiled for: the collapsed kept and reduced dimensions,
/// and the variant (`rows`: a block per output; else `cols`: a thread per output).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Layout {
    knd: usize,
    rnd: usize,
    rows: bool,
}

/// One module of a reduction kernel.
type Key = ModKey<Body, Layout>;

impl KernelKey for Key {
    const FAMILY: &'static str = "reduction_kernel";
    fn entry(&self) -> &str {
        &self.spec.name
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("RTHREADS", RTHREADS.to_string())]
    }
    fn options(&self) -> Vec<String> {
        self.spec.options.clone()
    }
    fn source(&self) -> String {
        let (s, b, lay, dtypes) = (&*self.spec, &self.spec.body, &self.variant, &self.bound.dtypes);
        let nin = s.ins.len();
        let rt = b.reduce_type.clone().unwrap_or_else(|| decl(&s.outs[0], dtypes[nin]));
        let mut src = s.source_head(&self.bound.vars, &format!("typedef {rt} _type_reduce;\n"));
        let (mut params, mut bind_in, mut bind_out) = (String::new(), String::new(), String::new());
        let mut na = 0;
        for (k, (p, &d)) in s.ins.iter().zip(dtypes).enumerate() {
            let t = decl(p, d);
            if self.bound.scalars >> k & 1 == 1 {
                write!(params, ", {t} {}", p.name).unwrap();
            } else {
                write!(params, ", const char* _p_{}", p.name).unwrap();
                let c = if p.is_const { "const " } else { "" };
                write!(bind_in, "{c}{t}& {n} = *({c}{t}*)(_p_{n} + _ko[{na}] + _ro[{na}]); ", n = p.name).unwrap();
                na += 1;
            }
        }
        for (j, (p, &d)) in s.outs.iter().zip(&dtypes[nin..]).enumerate() {
            let t = decl(p, d);
            write!(params, ", char* _p_{}", p.name).unwrap();
            write!(bind_out, "{t}& {n} = *({t}*)(_p_{n} + _ko[{}]); ", na + j, n = p.name).unwrap();
        }
        writeln!(src, "#define NAME {}", s.name).unwrap();
        writeln!(src, "#define PARAMS {params}").unwrap();
        writeln!(src, "#define BIND_IN {bind_in}").unwrap();
        writeln!(src, "#define BIND_OUT {bind_out}").unwrap();
        writeln!(
            src,
            "#define NA {na}\n#define NOUT {}\n#define KND {}\n#define RND {}",
            s.outs.len(),
            lay.knd,
            lay.rnd
        )
        .unwrap();
        writeln!(src, "#define HAS_IDENTITY {}", b.identity.is_some() as i32).unwrap();
        src += if lay.rows { "#define VARIANT_ROWS\n" } else { "#define VARIANT_COLS\n" };
        src += "#line 1 \"reduction.cu\"\n";
        src + &include_str!("reduction.cu")
            .replacen("\n/*@REDUCE*/\n", &user_code(&b.reduce_expr, "reduce_expr", ""), 1)
            .replacen("\n/*@IDENTITY*/\n", &user_code(b.identity.as_deref().unwrap_or("0"), "identity", ""), 1)
            .replacen("\n/*@MAP*/\n", &user_code(&b.map_expr, "map_expr", ""), 1)
            .replacen("\n/*@POST_MAP*/\n", &user_code(&b.post_map_expr, "post_map_expr", ""), 1)
    }
}

/// Collapses the dimensions `dims` of the operands' strides `st` (each over the broadcast
/// shape): at least one dimension (a lone 1 of stride 0 when there are none).
fn collapse_dims(shape: &[usize], dims: &[usize], st: &[Vec<isize>]) -> (Vec<usize>, Vec<Vec<isize>>) {
    let sh: Vec<usize> = dims.iter().map(|&d| shape[d]).collect();
    let sts: Vec<Vec<isize>> = st.iter().map(|s| dims.iter().map(|&d| s[d]).collect()).collect();
    let refs: Vec<&[isize]> = sts.iter().map(|v| v.as_slice()).collect();
    let (mut cs, mut ct) = layout::collapse(&sh, &refs);
    if cs.is_empty() {
        cs = vec![1];
        ct = vec![vec![0]; st.len()];
    }
    (cs, ct)
}

#[allow(clippy::too_many_arguments)]
fn launch(
    s: &Arc<Spec>,
    what: &str,
    bound: Bound,
    args: &[Operand<'_>],
    scalars: &[Scalar],
    outs: &[&Array],
    g: &Geometry<'_>,
) -> Result<()> {
    let cdev = CudaDevice::get(outs[0].device().ordinal())?;
    let nd = g.shape.len();
    // Strides over the broadcast shape: the array inputs, then the outputs (0 on reduced axes).
    let mut ist: Vec<Vec<isize>> = Vec::new();
    for a in args {
        if let Operand::Array(x) = a {
            ist.push(x.strides_to(g.shape, what)?);
        }
    }
    let na = ist.len();
    let mut kst_all = ist.clone();
    for o in outs {
        let mut st = vec![0isize; nd];
        if g.keepdims {
            st.copy_from_slice(o.strides());
        } else {
            for (j, &d) in g.kept.iter().enumerate() {
                st[d] = o.strides()[j];
            }
        }
        for &d in g.axes {
            st[d] = 0;
        }
        kst_all.push(st);
    }
    let (ks, kt) = collapse_dims(g.shape, g.kept, &kst_all);
    let (rs, rt) = collapse_dims(g.shape, g.axes, &ist);
    if ks.len() > MAX_DIMS || rs.len() > MAX_DIMS {
        return Err(Error::NotImplemented(format!("{what}: more than {MAX_DIMS} dimensions that cannot be merged")));
    }
    let nred: usize = g.axes.iter().map(|&d| g.shape[d]).product();
    let nout: usize = g.kept.iter().map(|&d| g.shape[d]).product();
    let rows = nred >= 64 && (nred >= 2048 || nout < cdev.sm_count as usize * 64);
    let dtypes = bound.dtypes.clone();
    let k = cdev.kernel(&Key { spec: s.clone(), bound, variant: Layout { knd: ks.len(), rnd: rs.len(), rows } })?;
    let split = if rows { Some(RowsSplit::new(&cdev, nout, nred, 1, ACC_BYTES)?) } else { None };
    let mut params = Params::new();
    params.push(nout as i64);
    params.push(nred as i64);
    if let Some(r) = &split {
        params.push(r.per as i64);
        params.push(r.splits as i32);
        params.push(r.part()?);
        params.push(r.count);
    }
    let mut sc = scalars.iter();
    for (a, &d) in args.iter().zip(&dtypes) {
        params.room(2, what)?;
        match a {
            Operand::Array(x) => params.push(dptr(x)?),
            Operand::Scalar(_) => push_typed(&mut params, *sc.next().expect("a scalar per scalar argument"), d),
        }
    }
    for o in outs {
        params.room(1, what)?;
        params.push(dptr(o)?);
    }
    let mut lay: Vec<i64> = ks.iter().map(|&x| x as i64).collect();
    for st in &kt {
        lay.extend(st.iter().map(|&x| x as i64));
    }
    lay.extend(rs.iter().map(|&x| x as i64));
    for st in &rt[..na] {
        lay.extend(st.iter().map(|&x| x as i64));
    }
    params.room(lay.len(), what)?;
    params.push_i64s(&lay);
    let grid = match &split {
        Some(r) => r.blocks(nout),
        None => nout.div_ceil(RTHREADS as usize) as u32,
    };
    // SAFETY: the parameters match the generated signature (the launch's own, then a pointer
    // per array, a value per scalar, a pointer per output, then the layout table); every
    // offset stays within the arrays' broadcast layouts; the split's scratch holds `splits`
    // accumulators of at most ACC_BYTES per output and, like the arrays and the zeroed
    // counters, stays valid until the stream has run the kernel.
    unsafe { params.launch(&cdev, &k, grid, RTHREADS) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::check_compiles;
    use crate::core::dtype::DType;

    /// Both variants compile, with scalars, several outputs, no identity, a reduce type of
    /// its own, and comments in the user's expressions.
    #[test]
    fn sources_compile() {
        let k = ReductionKernel::new(
            "T x, T w, float64 s",
            "T y, int32 n",
            "x * w * s // weighted",
            "a + b",
            "y = a; n = (int)a",
            Some("0"),
            "wsum",
        )
        .unwrap()
        .reduce_type("double");
        let m = ReductionKernel::new("T x", "T y", "x", "max(a, b)", "y = a", None, "rmax").unwrap();
        for (rows, knd, rnd, d) in [
            (true, 1, 1, DType::Float32),
            (false, 2, 3, DType::Float64),
            (true, 3, 2, DType::Float16),
            (false, 1, 1, DType::Int64),
        ] {
            let key = Key {
                spec: k.spec.clone(),
                bound: Bound {
                    vars: vec![("T".into(), d)],
                    dtypes: vec![d, d, DType::Float64, d, DType::Int32],
                    scalars: 0b100,
                },
                variant: Layout { knd, rnd, rows },
            };
            check_compiles(&key);
            if d != DType::Float16 {
                let key = Key {
                    spec: m.spec.clone(),
                    bound: Bound { vars: vec![("T".into(), d)], dtypes: vec![d, d], scalars: 0 },
                    variant: Layout { knd, rnd, rows },
                };
                check_compiles(&key);
            }
        }
    }
}
