//! The GPU side of the user kernels: a `#[cuprum::vectorize]` loop's translated function as the
//! per-element operation of `ufunc/elementwise.cu`'s layouts (contiguous vectorised, strided,
//! broadcast), compiled by NVRTC on first use through the kernel cache.

use super::VLoop;
use crate::array::Array;
use crate::backend::cuda::codegen::{store_cvt, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{MAX_DIMS, THREADS};
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::ufunc::cuda::{launch_layout, layout_macros, vec_width, Arg, EwIn, Variant};
use std::fmt::Write;
use std::hash::{Hash, Hasher};

/// A loop of a `static` made by the macro, compared and hashed by its address (the kernel
/// cache's fast path costs no hashing of source text).
#[derive(Clone, Copy)]
pub(crate) struct LoopRef(pub &'static VLoop);
impl PartialEq for LoopRef {
    fn eq(&self, o: &Self) -> bool {
        std::ptr::eq(self.0, o.0)
    }
}
impl Eq for LoopRef {}
impl Hash for LoopRef {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (self.0 as *const VLoop as usize).hash(h)
    }
}
impl std::fmt::Debug for LoopRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.entry)
    }
}

/// One vectorized kernel: the loop, which inputs are scalars (bit k), the layout variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct VecKey {
    pub lp: LoopRef,
    pub scalars: u32,
    pub variant: Variant,
}

impl VecKey {
    fn inputs(&self) -> Vec<EwIn> {
        let t = self.lp.0.types;
        (0..t.len() - 1).map(|k| EwIn { storage: t[k], compute: t[k], scalar: self.scalars >> k & 1 == 1 }).collect()
    }
    fn out(&self) -> DType {
        *self.lp.0.types.last().expect("a loop has an output type")
    }
}

impl KernelKey for VecKey {
    const FAMILY: &'static str = "kernel";
    fn entry(&self) -> &str {
        self.variant.name()
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("THREADS", THREADS.to_string()), ("MAX_DIMS", MAX_DIMS.to_string())]
    }
    fn source(&self) -> String {
        let ins = self.inputs();
        let out = self.out();
        let mut s = String::from(PRELUDE);
        // kernel.cuh, the device functions reached, the loop's function.
        s += &self.lp.0.cuda.source();
        s += &layout_macros(&ins, out, vec_width(ins.iter(), out), self.variant, "");
        let args: Vec<String> = (0..ins.len()).map(|k| format!("a{k}")).collect();
        let call = format!("{}({})", self.lp.0.entry, args.join(", "));
        writeln!(s, "#define RESULT {}", store_cvt(out, out, &call)).unwrap();
        s + include_str!("../ufunc/elementwise.cu")
    }
}

/// `out = f(ins...)` on the GPU: `ins` are arrays of the loop's input dtypes (broadcast to
/// `out`'s shape) or scalars, `out` an array of its output dtype.
pub(crate) fn vectorized(lp: &'static VLoop, ins: &[Arg<'_>], out: &Array) -> Result<()> {
    let mut scalars = 0u32;
    for (k, a) in ins.iter().enumerate() {
        if let Arg::Scalar(_) = a {
            scalars |= 1 << k;
        }
    }
    let key = |variant| VecKey { lp: LoopRef(lp), scalars, variant };
    let n = lp.types.len() - 1;
    let vec = vec_width(key(Variant::Kv).inputs().iter(), lp.types[n]);
    launch_layout(out, ins, &lp.types[..n], vec, |dev, v| dev.kernel(&key(v)), |_| {})
}
