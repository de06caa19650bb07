//! `ElementwiseKernel`: CuPy's elementwise kernel from a C operation (`elementwise.cu`).

use super::{
    decl, new_outputs, one_output, outputs, outputs_given, prepare, signature, user_code, Bound, ModKey, Prep,
    SourceArgs,
};
use crate::array::Array;
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dptr, read_err, Params, MAX_DIMS, THREADS};
use crate::backend::cuda::CudaDevice;
use crate::core::device::Device;
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout;
use crate::ufunc::Operand;
use std::fmt::Write;
use std::sync::Arc;

/// CuPy's `ElementwiseKernel`: an operation in CUDA C, run once per element of its arguments'
/// broadcast shape.
///
/// - `in_params`, `out_params`: CuPy's parameter lists, `"T x, float32 y, raw T z"`. A type
///   of one letter is a placeholder, bound to the dtype of the first array passed for it
///   (outputs first, then inputs); other types are dtype names (`float32`, `int64`, ...).
///   Arrays are not cast: an array whose dtype differs from its parameter's is a TypeError.
/// - In the `operation`, each input is its element (`const T&`), each output a reference to
///   its element, `i` the element's index in C order of the broadcast shape, `_ind.size()`
///   the number of elements. A `raw` parameter is the whole array (`x[j]` over its elements
///   in C order, `x.size()`, `x.shape()[d]`), indexed with a check: an index out of range is
///   an IndexError after the launch. Scalars (Rust numbers) take their parameter's type.
/// - Outputs are allocated with the broadcast shape unless given ([`call_out`](Self::call_out));
///   [`call_size`](Self::call_size) sets the loop's length when every array is `raw`.
///
/// The operation is compiled by NVRTC on first use for each combination of dtypes and layout
/// (contiguous, or strided and broadcast) and kept in the kernel cache. It runs on the GPU
/// only: with CPU arrays a call is a NotImplementedError (write the function with
/// `#[cuprum::vectorize]` to run it on both devices).
///
/// ```no_run
/// use cuprum::kernel::ElementwiseKernel;
/// # fn main() -> cuprum::Result<()> {
/// let squared_diff = ElementwiseKernel::new("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff")?;
/// let gpu = cuprum::Device::cuda(0)?;
/// let x = cuprum::arange_f(0.0, 5.0, 1.0, cuprum::DType::Float32, &gpu)?;
/// let z = squared_diff.call((&x, 1.5f32))?;
/// assert_eq!(z.to_vec::<f32>()?, vec![2.25, 0.25, 0.25, 2.25, 6.25]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct ElementwiseKernel {
    spec: Arc<Spec>,
}

/// An elementwise kernel's own code: the operation, and the code before and after each
/// thread's loop.
#[derive(Clone, Debug)]
struct Body {
    operation: String,
    loop_prep: String,
    after_loop: String,
}

type Spec = super::Spec<Body>;

impl ElementwiseKernel {
    /// A kernel running `operation` over `in_params` and `out_params` (CuPy's syntax), named
    /// `name` (a C identifier: the kernel function's name). ValueError for a parameter list
    /// CuPy would not accept, or a bad name.
    pub fn new(in_params: &str, out_params: &str, operation: &str, name: &str) -> Result<ElementwiseKernel> {
        let (ins, outs) = signature(&format!("ElementwiseKernel {name}"), name, in_params, out_params)?;
        let body = Body { operation: operation.to_string(), loop_prep: String::new(), after_loop: String::new() };
        Ok(ElementwiseKernel { spec: Spec::new(name, ins, outs, body) })
    }

    fn with(&self, f: impl FnOnce(&mut Spec)) -> ElementwiseKernel {
        ElementwiseKernel { spec: self.spec.with(f) }
    }

    /// C code placed before the kernel (helper functions, `#include`s, constants).
    pub fn preamble(&self, code: &str) -> ElementwiseKernel {
        self.with(|s| s.preamble = code.to_string())
    }

    /// C code run by each thread before its first element.
    pub fn loop_prep(&self, code: &str) -> ElementwiseKernel {
        self.with(|s| s.body.loop_prep = code.to_string())
    }

    /// C code run by each thread after its last element.
    pub fn after_loop(&self, code: &str) -> ElementwiseKernel {
        self.with(|s| s.body.after_loop = code.to_string())
    }

    /// NVRTC options added to cuprum's (`-DNAME=value`, `--use_fast_math`, ...).
    pub fn options(&self, options: &[&str]) -> ElementwiseKernel {
        self.with(|s| s.options = options.iter().map(|o| o.to_string()).collect())
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// Runs the kernel on `args` (one per input parameter) and returns its one output. A
    /// kernel with several outputs: [`call_multi`](Self::call_multi).
    pub fn call<'a>(&self, args: impl SourceArgs<'a>) -> Result<Array> {
        one_output(&format!("ElementwiseKernel {}", self.spec.name), self.spec.outs.len())?;
        Ok(self.run(&args.operands(), &mut [], None)?.remove(0))
    }

    /// Runs the kernel and returns every output, in order.
    pub fn call_multi<'a>(&self, args: impl SourceArgs<'a>) -> Result<Vec<Array>> {
        self.run(&args.operands(), &mut [], None)
    }

    /// Runs the kernel into the arrays `outs` (one per output parameter, each of its
    /// parameter's dtype and, unless `raw`, of the broadcast shape). An input may also be an
    /// output (pass a view of it, e.g. `x.clone()`): each element is read before it is
    /// written, as in CuPy.
    pub fn call_out<'a>(&self, args: impl SourceArgs<'a>, outs: &mut [&mut Array]) -> Result<()> {
        outputs_given(&format!("ElementwiseKernel {}", self.spec.name), outs.len(), self.spec.outs.len())?;
        self.run(&args.operands(), outs, None).map(|_| ())
    }

    /// Runs the kernel over `size` elements, for kernels whose arrays are all `raw` (the loop's
    /// length cannot come from broadcasting): outputs are allocated with shape `[size]`. On
    /// the default device when no argument is an array.
    pub fn call_size<'a>(&self, args: impl SourceArgs<'a>, size: usize) -> Result<Vec<Array>> {
        self.run(&args.operands(), &mut [], Some(size))
    }

    fn run(&self, args: &[Operand<'_>], given: &mut [&mut Array], size: Option<usize>) -> Result<Vec<Array>> {
        let s = &*self.spec;
        let what = format!("ElementwiseKernel {}", s.name);
        let Prep { dev, types, .. } = prepare(&what, &s.ins, &s.outs, args, given)?;
        // The loop's shape: the broadcast of the non-raw arrays (inputs and outputs given).
        let mut shape: Option<Vec<usize>> = None;
        let nonraw = s.ins.iter().zip(args).filter_map(|(p, a)| match a {
            Operand::Array(x) if !p.raw => Some(x.shape().to_vec()),
            _ => None,
        });
        let nonraw_out = s.outs.iter().zip(given.iter()).filter(|(p, _)| !p.raw).map(|(_, o)| o.shape().to_vec());
        for sh in nonraw.chain(nonraw_out) {
            shape = Some(match shape {
                None => sh,
                Some(cur) => crate::ufunc::broadcast_shape(&what, &cur, &sh)?,
            });
        }
        let shape = match (shape, size) {
            (Some(_), Some(_)) => {
                return Err(Error::Value(format!(
                    "{what}: the size cannot be given when an argument is a non-raw array (its shape sets the loop)"
                )))
            }
            (Some(sh), None) => sh,
            (None, Some(n)) => vec![n],
            (None, None) => {
                return Err(Error::Value(format!(
                    "{what}: the loop size is undecided: every array is raw; give it with call_size"
                )))
            }
        };
        // The outputs: those given, of the loop's shape (an output does not broadcast), or new.
        let outs = new_outputs(&what, &s.outs, given, &shape, "the loop's", &types, dev)?;
        let (bound, scalars) = types.bound(&what, &s.ins, &s.outs, args)?;
        let n: usize = shape.iter().product();
        if n > 0 {
            let out_refs = outputs(&outs, given);
            launch(&self.spec, &what, dev, bound, args, &scalars, &out_refs, &shape)?;
        }
        Ok(outs)
    }
}

/// The layout an elementwise module is compiled for: the raw arrays' dimensions, and `nd` 0
/// (contiguous) or the collapsed dimensions of the strided layout.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Layout {
    raw_nd: Vec<u8>,
    nd: usize,
}

/// One module of an elementwise kernel.
type Key = ModKey<Body, Layout>;

impl KernelKey for Key {
    const FAMILY: &'static str = "elementwise_kernel";
    fn entry(&self) -> &str {
        &self.spec.name
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("THREADS", THREADS.to_string())]
    }
    fn options(&self) -> Vec<String> {
        self.spec.options.clone()
    }
    fn source(&self) -> String {
        let (s, b, lay) = (&*self.spec, &self.spec.body, &self.variant);
        let mut src = s.source_head(&self.bound.vars, "");
        let mut params = String::new();
        let mut bind = String::new();
        let (mut slot, mut raw_k) = (0usize, 0usize);
        let nin = s.ins.len();
        for (k, (p, &d)) in s.params().zip(&self.bound.dtypes).enumerate() {
            let t = decl(p, d);
            if p.raw {
                write!(params, ", CArray<{t}, {}> {}", lay.raw_nd[raw_k].max(1), p.name).unwrap();
                raw_k += 1;
            } else if k < nin && self.bound.scalars >> k & 1 == 1 {
                write!(params, ", {t} {}", p.name).unwrap();
            } else {
                write!(params, ", char* _p_{}", p.name).unwrap();
                let c = if p.is_const { "const " } else { "" };
                write!(bind, "{c}{t}& {n} = *({c}{t}*)(_p_{n} + OFF({slot}, sizeof({t}))); ", n = p.name).unwrap();
                slot += 1;
            }
        }
        writeln!(src, "#define NAME {}", s.name).unwrap();
        writeln!(src, "#define PARAMS {params}").unwrap();
        writeln!(src, "#define BIND {bind}").unwrap();
        if lay.nd == 0 {
            src += "#define VARIANT_C\n";
        } else {
            writeln!(src, "#define VARIANT_N\n#define ND {}\n#define NOPS {}", lay.nd, slot.max(1)).unwrap();
        }
        src += "#line 1 \"elementwise.cu\"\n";
        src + &include_str!("elementwise.cu")
            .replacen("\n  /*@LOOP_PREP*/\n", &user_code(&b.loop_prep, "loop_prep", ";\n"), 1)
            .replacen("\n      /*@OPERATION*/\n", &user_code(&b.operation, "operation", ";\n"), 1)
            .replacen("\n  /*@AFTER_LOOP*/\n", &user_code(&b.after_loop, "after_loop", ";\n"), 1)
    }
}

/// The words of a `CArray<T, ND>` parameter: pointer, size, record, shape, byte strides.
pub(super) fn carray_words(x: &Array, rec: u64) -> Result<Vec<i64>> {
    let nd = x.ndim().max(1);
    let mut w = vec![dptr(x)? as i64, x.size() as i64, rec as i64];
    if x.ndim() == 0 {
        w.extend([1, 0]);
    } else {
        w.extend(x.shape().iter().map(|&d| d as i64));
        w.extend(x.strides().iter().map(|&d| d as i64));
    }
    debug_assert_eq!(w.len(), 3 + 2 * nd);
    Ok(w)
}

#[allow(clippy::too_many_arguments)]
fn launch(
    s: &Arc<Spec>,
    what: &str,
    dev: Device,
    bound: Bound,
    args: &[Operand<'_>],
    scalars: &[Scalar],
    outs: &[&Array],
    shape: &[usize],
) -> Result<()> {
    let cdev = CudaDevice::get(dev.ordinal())?;
    let n: usize = shape.iter().product();
    // The operands with a layout (non-raw arrays, inputs then outputs) and the raw ones.
    let mut lay: Vec<&Array> = Vec::new();
    let mut raws: Vec<&Array> = Vec::new();
    for (p, a) in s.ins.iter().zip(args) {
        match a {
            Operand::Array(x) if p.raw => raws.push(x),
            Operand::Array(x) => lay.push(x),
            Operand::Scalar(_) => {}
        }
    }
    for (p, o) in s.outs.iter().zip(outs) {
        if p.raw {
            raws.push(o)
        } else {
            lay.push(o)
        }
    }
    let plain = lay.iter().all(|a| a.shape() == shape && a.is_c_contiguous());
    let (cshape, cst) = if plain {
        (Vec::new(), Vec::new())
    } else {
        let mut strides: Vec<Vec<isize>> = Vec::with_capacity(lay.len());
        for a in &lay {
            strides.push(a.strides_to(shape, what)?);
        }
        let refs: Vec<&[isize]> = strides.iter().map(|v| v.as_slice()).collect();
        layout::collapse(shape, &refs)
    };
    let contiguous = plain
        || cshape.is_empty()
        || (cshape.len() == 1 && lay.iter().zip(&cst).all(|(a, st)| st[0] == a.itemsize() as isize));
    let nd = if contiguous { 0 } else { cshape.len() };
    if nd > MAX_DIMS {
        return Err(Error::NotImplemented(format!(
            "{what}: {nd} dimensions that cannot be merged (at most {MAX_DIMS})"
        )));
    }
    let (scalar_mask, dtypes) = (bound.scalars, bound.dtypes.clone());
    let raw_nd = raws.iter().map(|r| r.ndim() as u8).collect();
    let k = cdev.kernel(&Key { spec: s.clone(), bound, variant: Layout { raw_nd, nd } })?;
    let rec = if raws.is_empty() { None } else { Some(Array::alloc(&[2], DType::UInt64, dev, true)?) };
    let rp = match &rec {
        Some(r) => dptr(r)?,
        None => 0,
    };
    let mut params = Params::new();
    params.push(n as i64);
    // Each parameter takes the next of its kind, in the order they were gathered.
    let (mut sc, mut ri, mut li) = (scalars.iter(), raws.iter(), lay.iter());
    for (k, (p, &d)) in s.params().zip(&dtypes).enumerate() {
        if p.raw {
            let w = carray_words(ri.next().expect("a raw array per raw parameter"), rp)?;
            params.room(w.len(), what)?;
            params.push_i64s(&w);
        } else if k < s.ins.len() && scalar_mask >> k & 1 == 1 {
            params.room(2, what)?;
            push_typed(&mut params, *sc.next().expect("a scalar per scalar argument"), d);
        } else {
            params.room(1, what)?;
            params.push(dptr(li.next().expect("an array per non-raw parameter"))?);
        }
    }
    if nd > 0 {
        let mut t: Vec<i64> = cshape.iter().map(|&x| x as i64).collect();
        for st in &cst {
            t.extend(st.iter().map(|&x| x as i64));
        }
        params.room(t.len(), what)?;
        params.push_i64s(&t);
    }
    let grid = cdev.grid_for(n, THREADS as usize);
    // SAFETY: the parameters are, in order, the element count, then per parameter a pointer
    // (non-raw arrays), a value of its C type (scalars) or a CArray's words, then the layout
    // table (`nd` > 0), as the generated signature declares them; the arrays outlive the
    // launch (their storage returns to the pool only in stream order), and every access of a
    // non-raw array stays within the broadcast layout, every raw access is checked.
    unsafe { params.launch(&cdev, &k, grid, THREADS)? };
    if let Some(r) = rec {
        if let Some((index, len)) = read_err(&r)? {
            return Err(Error::Index(format!("{what}: index {index} is out of bounds for a raw array of size {len}")));
        }
    }
    Ok(())
}

/// Pushes a scalar as the C type a source kernel declares for dtype `d` (`float16` as its
/// 16 bits; the ufunc kernels take it as a float).
pub(super) fn push_typed(params: &mut Params, s: Scalar, d: DType) {
    use crate::core::dtype::Element;
    if d == DType::Float16 {
        params.push(half::f16::from_scalar(s).to_bits());
    } else {
        params.push_scalar(s, d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::check_compiles;

    /// Every layout and parameter kind compiles with NVRTC (where the library is present):
    /// placeholders of each dtype, scalars, raw arrays of 1 and 3 dimensions, several outputs,
    /// a preamble with comments, loop_prep and after_loop.
    #[test]
    fn sources_compile() {
        let k = ElementwiseKernel::new(
            "T x, raw T y, float32 s, int64 m",
            "T z, int64 n",
            "// the user's comment, with a comma, and a line break\nz = x + (T)(s * twice(1.0f)) + y[i % y.size()];\nn = i + m + _ind.size()",
            "ew_test",
        )
        .unwrap()
        .preamble("// helpers\n__device__ float twice(float v) { return 2 * v; }")
        .loop_prep("long long count = 0;")
        .after_loop("(void)count;");
        for (d, nd, raw_nd) in [
            (DType::Float32, 0, 1u8),
            (DType::Float64, 2, 3),
            (DType::Float16, 0, 0),
            (DType::Int8, 3, 2),
            (DType::UInt64, 1, 1),
        ] {
            let key = Key {
                spec: k.spec.clone(),
                bound: Bound {
                    vars: vec![("T".into(), d)],
                    dtypes: vec![d, d, DType::Float32, DType::Int64, d, DType::Int64],
                    scalars: 0b1100,
                },
                variant: Layout { raw_nd: vec![raw_nd], nd },
            };
            check_compiles(&key);
        }
        let c = ElementwiseKernel::new("T x, T y", "T z", "z = x * y + x", "cmul").unwrap();
        for d in [DType::Complex64, DType::Complex128, DType::Bool] {
            let key = Key {
                spec: c.spec.clone(),
                bound: Bound { vars: vec![("T".into(), d)], dtypes: vec![d; 3], scalars: 0b10 },
                variant: Layout { raw_nd: vec![], nd: 0 },
            };
            check_compiles(&key);
        }
    }
}
