//! The GPU side of the user kernels: a `#[cuprum::vectorize]` loop's translated function as the
//! per-element operation of `ufunc/elementwise.cu`'s layouts (contiguous vectorised, strided,
//! broadcast), compiled by NVRTC on first use through the kernel cache.

use super::grid::{out_of_bounds, view_out_of_bounds, Dim3, GridKernel, KArg, KParam};
use super::VLoop;
use crate::array::Array;
use crate::backend::cuda::codegen::{store_cvt, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, err_record, read_err, Params, MAX_DIMS, THREADS};
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::ufunc::cuda::{launch_layout, layout_macros, vec_width, Arg, EwIn, Variant};
use std::fmt::Write;
use std::hash::{Hash, Hasher};

/// Something in a `static` made by the macros, compared and hashed by its address (the kernel
/// cache's fast path costs no hashing of source text), shown by its name.
pub(crate) struct ById<T: 'static>(pub &'static T);
impl<T> Clone for ById<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ById<T> {}
impl<T> PartialEq for ById<T> {
    fn eq(&self, o: &Self) -> bool {
        std::ptr::eq(self.0, o.0)
    }
}
impl<T> Eq for ById<T> {}
impl<T> Hash for ById<T> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (self.0 as *const T as usize).hash(h)
    }
}
/// The name a [`ById`] shows.
pub(crate) trait Named {
    fn name(&self) -> &str;
}
impl Named for VLoop {
    fn name(&self) -> &str {
        self.entry
    }
}
impl Named for GridKernel {
    fn name(&self) -> &str {
        self.name
    }
}
impl<T: Named> std::fmt::Debug for ById<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name())
    }
}
/// A vectorized function's loop.
pub(crate) type LoopRef = ById<VLoop>;
/// A grid kernel.
pub(crate) type GridKey = ById<GridKernel>;

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
    let key = |variant| VecKey { lp: ById(lp), scalars, variant };
    let n = lp.types.len() - 1;
    // A user function may cost much per element: vector accesses (several elements a thread,
    // one after the other) only where the threads left still fill the GPU (half its resident
    // threads: 1024 a multiprocessor), so that a costly function keeps its parallelism.
    let w = vec_width(key(Variant::Kv).inputs().iter(), lp.types[n]);
    let sms = dev_of(out)?.sm_count as usize;
    let vec = if out.size() >= sms * 1024 * w as usize { w } else { 1 };
    // Too few elements for a block on every multiprocessor: smaller blocks (whole warps), one
    // a multiprocessor, so that no two of a long function's warps share a scheduler they need
    // not share (primes_10k: 0.460 -> 0.441 ms on an H200, bench/RESULTS.md).
    let threads = if out.size() < sms * THREADS as usize {
        (out.size().div_ceil(sms).div_ceil(32) * 32).clamp(32, THREADS as usize) as u32
    } else {
        THREADS
    };
    launch_layout(out, ins, &lp.types[..n], vec, threads, |dev, v| dev.kernel(&key(v)), |_| {})
}

impl KernelKey for GridKey {
    const FAMILY: &'static str = "kernel";
    fn entry(&self) -> &str {
        "cuprum_kernel"
    }
    fn source(&self) -> String {
        self.0.cuda.source()
    }
}

/// Launches a grid kernel on the GPU of its arrays (checked by the caller: dtypes, layouts,
/// one device, CUDA's limits). `checked`: a 16-byte record catches the first out-of-range
/// index, read back after the launch (an IndexError); otherwise nothing waits for the GPU.
pub(crate) fn grid_launch(
    k: &'static GridKernel,
    grid: Dim3,
    block: Dim3,
    args: &[KArg<'_>],
    checked: bool,
) -> Result<()> {
    let first = args.iter().find_map(KArg::array).expect("a GPU launch has an array");
    let dev = dev_of(first)?;
    let kern = dev.kernel(&ById(k))?;
    let rec = if checked { Some(err_record(first)?) } else { None };
    let rp = match &rec {
        Some(r) => dptr(r)?,
        None => 0,
    };
    let mut params = Params::new();
    params.push(rp);
    for (a, p) in args.iter().zip(k.params) {
        match (a, p) {
            (KArg::Scalar(s), KParam::Scalar(d)) => params.push_scalar(*s, *d),
            (KArg::Scalar(_), _) => unreachable!("the macro passes arrays for slice parameters"),
            (x, KParam::View(..) | KParam::ViewMut(..)) => {
                // RtView<T, N>: pointer, record, shape, strides in elements.
                let x = x.array().expect("an array argument");
                let isz = x.itemsize() as isize;
                let mut w = vec![dptr(x)? as i64, rp as i64];
                w.extend(x.shape().iter().map(|&d| d as i64));
                w.extend(x.strides().iter().map(|&b| (b / isz) as i64));
                params.push_i64s(&w)
            }
            (x, _) => {
                let x = x.array().expect("an array argument");
                params.push_i64s(&[dptr(x)? as i64, x.size() as i64, rp as i64])
            }
        }
    }
    // SAFETY: the parameters are the record's address, then per parameter the slice struct
    // (pointer, length, record) or the scalar in its C type, as `kernel_fn` declares them; the
    // arrays are C-contiguous with that many elements and outlive the launch (their storage
    // returns to the pool only in stream order).
    unsafe { params.launch_3d(&dev, &kern, grid.as_u32s(), block.as_u32s(), 0)? };
    // The record: the first bad index plus one (0: none), then the slice's length, or a
    // view's dimension with its axis plus one in the top byte.
    if let Some(r) = rec {
        if let Some((index, len)) = read_err(&r)? {
            let (axis, len) = ((len as u64) >> 56, len as u64 & ((1 << 56) - 1));
            return Err(match axis {
                0 => out_of_bounds(k.name, index as u64, len),
                a => view_out_of_bounds(k.name, index as u64, a as usize - 1, len),
            });
        }
    }
    Ok(())
}
