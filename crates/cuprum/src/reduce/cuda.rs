//! The CUDA reductions: one launch per reduction (`rows`: a last block merges the partial
//! results of a split row; `cols`: a lane per output when the reduced axes are outer).

use crate::array::Array;
use crate::backend::cuda::codegen::{compute_ty, load_cvt, storage_ty, store_cvt, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, Params, RowsSplit, MAX_DIMS};
use crate::backend::cuda::CudaDevice;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout;
use crate::core::ufunc::ReduceOp;

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
    let md = MAX_DIMS;
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
        let k = dev.kernel(&RedKey(spec, Variant::Cols))?;
        let mut p = Params::new();
        p.push(xp);
        p.push(op_);
        p.push(nout as i64);
        p.push(nred as i64);
        p.push(ddof);
        p.push_i64s(&lay);
        let grid = nout.div_ceil(THREADS as usize) as u32;
        // SAFETY: the parameters match `cols` in reduce.cu; `x` and `out` outlive the launch in
        // stream order (their blocks return to the pool only after it).
        return unsafe { p.launch(&dev, &k, grid, THREADS) };
    }
    let split = spec.split(&dev, nout, nred)?;
    let rows = dev.kernel(&RedKey(spec, Variant::Rows))?;
    let mut p = Params::new();
    p.push(xp);
    p.push(op_);
    push_rows_params(&mut p, &split, nout, nred, ddof)?;
    p.push_i64s(&lay);
    // SAFETY: the parameters match `rows` in reduce.cu; the split's partial accumulators (at
    // most `acc_bytes` per output and block) and counters, like `x` and `out`, stay valid
    // until the stream has run the kernel (the scratch returns to the pool, when `split` is
    // dropped, only in stream order).
    unsafe { p.launch(&dev, &rows, split.blocks(nout), THREADS) }
}

// ------------------------------------------------------------------------------ kernels

// ------------------------------------------------------------------------------ reductions

/// The type values of `xd` are accumulated in for `op`: NumPy's accumulator dtype (float32
/// sums in float32, float16 in float32, integers in 64 bits; integer means in float64).
fn acc_type(op: ReduceOp, xd: DType) -> &'static str {
    use ReduceOp::*;
    let xc = compute_ty(xd);
    match op {
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
    }
}

/// The `OP_*` define (and its extra macro) selecting `op`'s accumulator in `reduce.cu`.
fn op_define(op: ReduceOp) -> &'static str {
    use ReduceOp::*;
    match op {
        Sum => "#define OP_SUM\n",
        Mean => "#define OP_MEAN\n",
        Prod => "#define OP_PROD\n",
        Var | Std => "#define OP_VAR\n",
        Min | ArgMin => "#define OP_MINMAX\n#define BETTER(x, v) ((x) < (v))\n",
        Max | ArgMax => "#define OP_MINMAX\n#define BETTER(x, v) ((x) > (v))\n",
        Any => "#define OP_ANY\n",
        All => "#define OP_ALL\n",
        CountNonzero => "#define OP_COUNT_NONZERO\n",
    }
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
        // NumPy's max(n - ddof, 0) (a NaN ddof stays NaN; fmax would drop it).
        Var => ("(a.settle(), a.m2 / ((double)nred - ddof < 0.0 ? 0.0 : (double)nred - ddof))".into(), DType::Float64),
        Std => (
            "(a.settle(), sqrt(a.m2 / ((double)nred - ddof < 0.0 ? 0.0 : (double)nred - ddof)))".into(),
            DType::Float64,
        ),
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

/// Threads per reduction block.
pub(crate) const THREADS: u32 = crate::backend::cuda::launch::THREADS;

/// The two kernels of a reduction.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Variant {
    /// A block per (output, slice of the reduced range).
    Rows,
    /// A thread per output.
    Cols,
}

/// One reduction kernel.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RedKey(pub RedSpec, pub Variant);

impl KernelKey for RedKey {
    const FAMILY: &'static str = "reduce";
    fn entry(&self) -> &str {
        match self.1 {
            Variant::Rows => "rows",
            Variant::Cols => "cols",
        }
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("THREADS", THREADS.to_string()), ("MAX_DIMS", MAX_DIMS.to_string())]
    }
    fn source(&self) -> String {
        self.0.prelude(self.1) + include_str!("reduce.cu")
    }
}

impl RedSpec {
    /// The macros `reduce.cu` expects for this op, these dtypes and this variant.
    pub(crate) fn prelude(&self, variant: Variant) -> String {
        let at = acc_type(self.op, self.x);
        let (fin, fin_dt) = finish_expr(self.op, self.x, at);
        let xc_dt = if self.x == DType::Float16 { DType::Float32 } else { self.x };
        format!(
            "{PRELUDE}#define VARIANT_{variant}\n{op}typedef {xs} XS;\ntypedef {xc} XC;\ntypedef {at} AT;\ntypedef {os} OS;\n\
             #define X_IS_FLOAT {xf}\n#define CONTIG {contig}\n#define VEC {vec}\n#define LOADX(p) {load}\n#define RESULT {result}\n",
            variant = if variant == Variant::Rows { "ROWS" } else { "COLS" },
            op = op_define(self.op),
            xs = storage_ty(self.x),
            xc = compute_ty(self.x),
            os = storage_ty(self.out),
            xf = self.x.is_float() as i32,
            contig = self.contig as i32,
            vec = (16 / self.x.itemsize()).max(1),
            load = load_cvt(self.x, xc_dt, "(p)"),
            result = store_cvt(fin_dt, self.out, &fin),
        )
    }

    /// Size of the accumulator struct in bytes (upper bound used for partial buffers).
    pub fn acc_bytes(&self) -> usize {
        64
    }

    /// How `rows` spreads `nout` outputs of `nred` elements over blocks (its loads are 16
    /// bytes wide), with the scratch and counters that takes.
    pub(crate) fn split(&self, dev: &CudaDevice, nout: usize, nred: usize) -> Result<RowsSplit> {
        RowsSplit::new(dev, nout, nred, (16 / self.x.itemsize()).max(1), self.acc_bytes())
    }
}

/// The parameters of `rows` (reduce.cu) after its input and output pointers, for plain and
/// fused reductions alike: the split's scratch and counters, the sizes, `ddof`.
pub(crate) fn push_rows_params(p: &mut Params, split: &RowsSplit, nout: usize, nred: usize, ddof: f64) -> Result<()> {
    p.push(split.part()?);
    p.push(split.count);
    p.push(nout as i64);
    p.push(nred as i64);
    p.push(split.per as i64);
    p.push(split.splits as i32);
    p.push(ddof);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::{check_compiles, nvrtc_sample};
    use crate::core::dtype::REAL_DTYPES as ALL_DTYPES;

    /// Every reduction op over every input dtype, both variants, contiguous and strided: the
    /// prelude selects one accumulator and (where NVRTC is present) every kernel compiles.
    #[test]
    fn sources_compile() {
        let (mut compiled, mut n) = (0, 0);
        for op in ReduceOp::ALL {
            for x in ALL_DTYPES {
                let out = op.out_dtype(x);
                for (v, contig) in [(Variant::Rows, true), (Variant::Rows, false), (Variant::Cols, false)] {
                    let key = RedKey(RedSpec { op, x, out, contig }, v);
                    let src = key.source();
                    assert_eq!(src.matches("#define OP_").count(), 1, "{key:?}");
                    assert_eq!(src.matches('{').count(), src.matches('}').count(), "{key:?}");
                    if nvrtc_sample(n) {
                        compiled += check_compiles(&key) as usize;
                    }
                    n += 1;
                }
            }
        }
        eprintln!("reduce kernels: {compiled} compiled by NVRTC");
    }
}
