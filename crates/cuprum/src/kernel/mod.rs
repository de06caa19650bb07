//! `cuprum::kernel`: kernels users write themselves.
//!
//! - In Rust, for both devices (Numba's `@vectorize`, `@cuda.jit`):
//!   [`vectorize`](macro@vectorize) makes a scalar function a ufunc,
//!   [`kernel`](macro@kernel) makes a function a grid kernel, and [`device`](macro@device)
//!   marks helpers they call. On the CPU the Rust body runs as written (its operators NumPy's
//!   way: integers wrap, division by zero gives 0; a float32 `x.exp()` is the CPU ufuncs'
//!   vectorisable `exp`, within 1 ulp as glibc's, so that the loop vectorises). For the GPU the macros
//!   translate it to CUDA C at compile time; NVRTC compiles it on first use, through the kernel
//!   cache.
//! - In CUDA C, for the GPU (CuPy's): [`ElementwiseKernel`], [`ReductionKernel`],
//!   [`RawModule`] and [`RawKernel`].
//!
//! ```
//! use cuprum::{DType, Device};
//!
//! #[cuprum::device]
//! fn sq(x: f32) -> f32 {
//!     x * x
//! }
//!
//! #[cuprum::vectorize(f32(f32, f32))]
//! fn squared_diff(x: f32, y: f32) -> f32 {
//!     sq(x - y)
//! }
//!
//! #[cuprum::kernel]
//! fn row_sums(m: View<f32, 2>, out: &mut [f32]) {
//!     let i = cuprum::kernel::grid(1);
//!     if i < m.nrows() {
//!         let mut s = 0.0;
//!         for j in 0..m.ncols() {
//!             s += m[(i, j)];
//!         }
//!         out[i] = s;
//!     }
//! }
//!
//! let dev = Device::Cpu; // or Device::cuda(0)?: the same code runs there
//! let x = cuprum::arange_f(0.0, 6.0, 1.0, DType::Float32, &dev)?.reshape([2, 3])?;
//! let d = squared_diff(&x, 1.0f32)?; // a ufunc: broadcasting, weak scalars, NumPy's loop search
//! assert_eq!(d.to_vec::<f32>()?, vec![1.0, 0.0, 1.0, 4.0, 9.0, 16.0]);
//! let mut sums = cuprum::zeros(&[3], DType::Float32, &dev)?;
//! row_sums.launch((1, 32), (&d.t(), &mut sums))?; // a transposed view: any strides
//! assert_eq!(sums.to_vec::<f32>()?, vec![5.0, 9.0, 17.0]);
//! # Ok::<(), cuprum::Error>(())
//! ```
//!
//! # The Rust the macros translate
//! - **Types**: `bool`, `i8`..`i64`, `u8`..`u64`, `usize`/`isize` (kernel parameters), `f32`,
//!   `f64`; tuples of 2 to 4 of them returned by device functions.
//! - **Statements**: `let` and `let mut` (shadowing, tuple patterns), assignments and compound
//!   assignments, `if`/`else` (statements and values), `match` on integers (literals, ranges,
//!   `|`, `_`), `while`, `loop`, `for i in a..b` / `a..=b` with `.rev()` and `.step_by(k)`,
//!   `break`, `continue`, `return`, local `const`s, `use` items.
//! - **Operators with Rust's semantics on both devices**: integers wrap (as in release builds,
//!   in every profile), and `/` or `%` by zero gives 0 (as NumPy's integer division does), so
//!   that a kernel never traps. Shifts mask their count. Casts are `as` casts.
//! - **Methods**: the float methods (`exp`, `ln`, `log10`, `sqrt`, `powi`, `powf`, `sin`...
//!   `atan2`, `hypot`, `abs`, `floor`, `min`, `max`, `mul_add`, `is_nan`...) and integer ones
//!   (`wrapping_*`, `count_ones`, `leading_zeros`...). On the GPU, float32 transcendental
//!   functions are evaluated in double and rounded once, so both devices agree to an ulp.
//! - **Constants**: `std::f32::consts::PI` and the like, and `#[cuprum::device] const`s.
//! - **Calls** to `#[cuprum::device]` functions (by name, in the same or another module).
//! - **In kernels**:
//!   - parameters `&[T]`, `&mut [T]`, [`View<T, N>`](View), [`ViewMut<T, N>`](ViewMut) (any
//!     strides, `v[(i, j)]`, `dim()`) and scalars;
//!   - [`grid`], [`gridsize`], [`grid2`], [`thread_idx`], [`block_idx`], [`block_dim`] and
//!     [`grid_dim`];
//!   - [`shared`] arrays and [`sync_threads`];
//!   - the atomics ([`atomic_add`]...);
//!   - the warp votes and shuffles ([`ballot_sync`], [`shfl_down_sync`]...).
//!
//!   Every index is checked: an index out of range is an IndexError at the launch, and
//!   `launch_unchecked` skips the GPU's check. On the CPU, blocks run in parallel and a block's
//!   threads one after another. There `sync_threads` and the warp functions need blocks of one
//!   thread (otherwise a NotImplementedError).
//!
//! Anything else is a compile error at its span, saying what is not supported:
//!
//! ```compile_fail
//! #[cuprum::vectorize(f32(f32))]
//! fn f(x: f32) -> f32 {
//!     let v = vec![x]; // macros are not supported
//!     v[0]
//! }
//! ```

pub use cuprum_macros::{device, kernel, vectorize};

mod cpu;
mod cuda;
mod grid;
pub mod rt;
mod source;

pub use cpu::{CpuFn, Lane};
pub use grid::{
    all_sync, any_sync, atomic_add, atomic_cas, atomic_exch, atomic_max, atomic_min, atomic_sub, ballot_sync,
    block_dim, block_idx, grid, grid2, grid_dim, gridsize, gridsize2, lane_id, shared, shfl_down_sync, shfl_sync,
    shfl_up_sync, shfl_xor_sync, sync_threads, sync_warp, thread_idx, warp_size, Atomic, Dim3, GridKernel, KArg, KArgs,
    KParam, Slice, SliceMut, View, ViewMut,
};
pub use source::{ElementwiseKernel, RawArg, RawArgs, RawKernel, RawModule, ReductionKernel, SourceArgs};

use crate::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{can_cast, Casting, DType, Kind};
use crate::core::error::{Error, Result};
use crate::ufunc::Operand;

/// The CPU loop of one signature of a vectorized function (made by the macro: [`CpuFn`]).
pub trait CpuLoop: Sync {
    /// `out = f(ins...)` over `out`'s elements: `out` and `ins` are CPU arrays of the loop's
    /// dtypes, the inputs broadcastable to `out`'s shape and not overlapping it other than
    /// element for element.
    #[doc(hidden)]
    fn run(&self, out: &Array, ins: &[Array]);
}

/// One signature of a vectorized function: its dtypes (inputs, then output), its Rust body
/// for the CPU, its CUDA C for the GPU.
pub struct VLoop {
    /// The inputs' dtypes, then the output's.
    pub types: &'static [DType],
    /// The Rust function in the CPU's typed loop.
    pub cpu: &'static dyn CpuLoop,
    /// The translated function (`entry`) and the device functions it calls.
    pub cuda: DeviceSource,
    /// The C name of the translated function.
    pub entry: &'static str,
}

/// A function made a ufunc by `#[cuprum::vectorize]`: called through the function the macro
/// defines (`name(a, b)`), or `name::out(a, b, &mut out)`.
pub struct Vectorized {
    /// The function's name (in errors).
    pub name: &'static str,
    /// The number of inputs.
    pub nin: usize,
    /// The signatures, in the order given: the first the inputs cast to safely is used.
    pub loops: &'static [VLoop],
}

impl std::fmt::Debug for Vectorized {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Vectorized({}: {})", self.name, self.types().join(", "))
    }
}

/// Whether an input can go to a loop of dtype `t`: an array by NumPy's safe casting; a Rust
/// scalar is weak (NEP 50): a bool goes anywhere, an integer to any integer dtype it fits or
/// to a float, a float to a float.
fn accepts(o: &Operand<'_>, t: DType) -> bool {
    match o {
        Operand::Array(a) => can_cast(a.dtype(), t, Casting::Safe),
        Operand::Scalar(s) => match s.kind() {
            Kind::Bool => true,
            Kind::Int | Kind::UInt => {
                t.is_float()
                    || (t.is_integer()
                        && matches!((s.as_i128(), t.int_range()), (Some(v), Some((lo, hi))) if v >= lo && v <= hi))
            }
            Kind::Float => t.is_float(),
            _ => false,
        },
    }
}

impl Vectorized {
    /// The signatures, as `f32(f32, f32)`.
    pub fn types(&self) -> Vec<String> {
        self.loops
            .iter()
            .map(|l| {
                let n = l.types.len() - 1;
                let ins: Vec<String> = l.types[..n].iter().map(|t| t.to_string()).collect();
                format!("{}({})", l.types[n], ins.join(", "))
            })
            .collect()
    }

    /// The loop NumPy's search picks: the first whose input dtypes every argument can be
    /// cast to safely.
    pub fn resolve(&self, args: &[Operand<'_>]) -> Result<&'static VLoop> {
        if args.len() != self.nin {
            return Err(Error::Type(format!(
                "{}() takes {} positional argument{} but {} were given",
                self.name,
                self.nin,
                if self.nin == 1 { "" } else { "s" },
                args.len()
            )));
        }
        self.loops.iter().find(|l| args.iter().zip(l.types).all(|(a, &t)| accepts(a, t))).ok_or_else(|| {
            Error::Type(format!(
                "ufunc '{}' not supported for the input types, and the inputs could not be safely coerced \
                 to any supported types according to the casting rule ''safe''",
                self.name
            ))
        })
    }

    /// The device of the arguments' arrays (all on one), the CPU if all are scalars; and the
    /// broadcast shape.
    fn place(&self, args: &[Operand<'_>]) -> Result<(Device, Vec<usize>)> {
        let refs: Vec<&Operand<'_>> = args.iter().collect();
        let dev = if args.iter().any(|a| a.array().is_some()) {
            crate::ufunc::device_of(self.name, &refs)?
        } else {
            Device::Cpu
        };
        let mut shape: Vec<usize> = Vec::new();
        for a in args {
            shape = crate::ufunc::broadcast_shape(self.name, &shape, a.shape())?;
        }
        Ok((dev, shape))
    }

    /// Applies the function, allocating the result.
    pub fn call(&self, args: &[Operand<'_>]) -> Result<Array> {
        let lp = self.resolve(args)?;
        let (dev, shape) = self.place(args)?;
        let out = Array::alloc(&shape, *lp.types.last().unwrap(), dev, false)?;
        run(lp, args, &out)?;
        Ok(out)
    }

    /// Applies the function into `out` (NumPy's `out=`: the inputs broadcast to `out`'s
    /// shape, the result cast to its dtype by same-kind casting). `out` may be an input.
    pub fn call_out(&self, args: &[Operand<'_>], out: &mut Array) -> Result<()> {
        let lp = self.resolve(args)?;
        let (dev, shape) = self.place(args)?;
        let shape = crate::ufunc::broadcast_shape(self.name, &shape, out.shape())?;
        let res = *lp.types.last().unwrap();
        crate::ufunc::check_out(self.name, out, &shape, dev, res)?;
        let mut copies = Vec::new();
        for a in args {
            copies.push(match a.array() {
                Some(x) => crate::ufunc::unalias(x, out)?,
                None => None,
            });
        }
        let args = replaced(args, &copies);
        if out.dtype() == res {
            return run(lp, &args, out);
        }
        let tmp = Array::alloc(out.shape(), res, dev, false)?;
        run(lp, &args, &tmp)?;
        crate::ufunc::assign(out, &tmp)
    }
}

/// `out = f(args...)` with the loop `lp`: arrays cast to its dtypes where they differ.
fn run(lp: &'static VLoop, args: &[Operand<'_>], out: &Array) -> Result<()> {
    if out.size() == 0 {
        return Ok(());
    }
    let mut cast = Vec::with_capacity(args.len());
    for (a, &t) in args.iter().zip(lp.types) {
        cast.push(match a {
            Operand::Array(x) if x.dtype() != t => Some(x.astype(t)?),
            _ => None,
        });
    }
    let args = replaced(args, &cast);
    match out.device() {
        Device::Cpu => {
            let mut ins = Vec::with_capacity(args.len());
            for (a, &t) in args.iter().zip(lp.types) {
                ins.push(match a {
                    Operand::Array(x) => x.view(),
                    Operand::Scalar(s) => Array::scalar_cpu(*s, t)?,
                });
            }
            lp.cpu.run(out, &ins);
            Ok(())
        }
        Device::Cuda(_) => {
            use crate::ufunc::cuda::Arg;
            let ins: Vec<Arg<'_>> = args
                .iter()
                .map(|a| match a {
                    Operand::Array(x) => Arg::Array(x),
                    Operand::Scalar(s) => Arg::Scalar(*s),
                })
                .collect();
            cuda::vectorized(lp, &ins, out)
        }
    }
}

/// `args` with the arrays of `with` in the places where it has one (copies, casts).
fn replaced<'a>(args: &'a [Operand<'a>], with: &'a [Option<Array>]) -> Vec<Operand<'a>> {
    args.iter()
        .zip(with)
        .map(|(a, w)| match (a, w) {
            (_, Some(c)) => Operand::Array(c),
            (o, None) => *o,
        })
        .collect()
}

/// The CUDA C of a `#[cuprum::device]` function (the constant
/// `ADD_THE_cuprum_device_ATTRIBUTE_TO_<name>` that the attribute defines beside it) and of the
/// device functions it calls.
///
/// A helper called from a kernel body without the attribute has no such constant: rustc's
/// error at the call reads ``cannot find value `ADD_THE_cuprum_device_ATTRIBUTE_TO_square` in
/// this scope``.
///
/// ```compile_fail,E0425
/// fn square(x: f32) -> f32 {
///     x * x
/// }
/// #[cuprum::vectorize(f32(f32))]
/// fn twice_square(x: f32) -> f32 {
///     2.0 * square(x)
/// }
/// ```
#[derive(Debug)]
pub struct DeviceSource {
    /// The function's CUDA C (`cuprum_dev_<name>`), calling `kernel.cuh`'s helpers.
    pub source: &'static str,
    /// The device functions it calls.
    pub calls: &'static [&'static DeviceSource],
}

/// The helpers translated code calls (Rust's semantics on the GPU).
pub(crate) const KERNEL_CUH: &str = include_str!("kernel.cuh");

impl DeviceSource {
    /// A compilable unit: `kernel.cuh`, then every function this one reaches, callees before
    /// their callers, each once.
    pub fn source(&self) -> String {
        let mut seen: Vec<*const DeviceSource> = Vec::new();
        let mut out = String::from(KERNEL_CUH);
        self.emit(&mut seen, &mut out);
        out
    }

    fn emit(&self, seen: &mut Vec<*const DeviceSource>, out: &mut String) {
        if seen.contains(&(self as *const _)) {
            return;
        }
        seen.push(self as *const _);
        for c in self.calls {
            c.emit(seen, out);
        }
        out.push_str(self.source);
    }
}

// ------------------------------------------------------------------ the grid kernels' dispatch

impl GridKernel {
    /// Launches the kernel over `grid` blocks of `block` threads with `args` (one per
    /// parameter, as the macro's typed `launch` passes them). On the arrays' device: on the
    /// GPU through NVRTC (`checked`: out-of-range indices are an IndexError), on the CPU as a
    /// loop over the grid calling `cpu` for each thread.
    #[doc(hidden)]
    pub fn launch(
        &'static self,
        grid: Dim3,
        block: Dim3,
        args: &[KArg<'_>],
        checked: bool,
        cpu: &(dyn Fn(&KArgs) + Sync),
    ) -> Result<()> {
        grid::check_dims(self.name, grid, block)?;
        let mut dev: Option<Device> = None;
        for (k, (a, p)) in args.iter().zip(self.params).enumerate() {
            let Some(arr) = a.array() else { continue };
            let (want, view) = match p {
                KParam::Slice(d) | KParam::SliceMut(d) => (*d, None),
                KParam::View(d, n) | KParam::ViewMut(d, n) => (*d, Some(*n)),
                KParam::Scalar(_) => unreachable!("the macro passes scalars for scalar parameters"),
            };
            if arr.dtype() != want {
                return Err(Error::Type(format!(
                    "{}: argument {k} is an array of {}, the kernel's parameter {} of {want}",
                    self.name,
                    arr.dtype(),
                    if view.is_some() { "a view" } else { "a slice" }
                )));
            }
            if let Some(n) = view {
                if arr.ndim() != n {
                    return Err(Error::Value(format!(
                        "{}: argument {k} has {} dimensions, the kernel's view {n}",
                        self.name,
                        arr.ndim()
                    )));
                }
            } else if !arr.is_c_contiguous() {
                return Err(Error::Value(format!(
                    "{}: argument {k} must be C-contiguous (a kernel sees a slice of its elements)",
                    self.name
                )));
            }
            match dev {
                None => dev = Some(arr.device()),
                Some(d) if d != arr.device() => {
                    return Err(Error::DeviceMismatch { op: self.name.into(), a: d, b: arr.device() })
                }
                _ => {}
            }
        }
        match dev.unwrap_or(Device::Cpu) {
            Device::Cpu => self.run_cpu(grid, block, args, cpu),
            Device::Cuda(_) => cuda::grid_launch(self, grid, block, args, checked),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DeviceSource;
    use crate::backend::cuda::kernels::KernelKey;

    #[crate::kernel::device]
    fn gaussian_pdf(x: f32, mean: f32, sigma: f32) -> f32 {
        let z = (x - mean) / sigma;
        (-0.5 * z.powi(2)).exp() / (sigma * (2.0 * std::f32::consts::PI).sqrt())
    }

    #[crate::kernel::device]
    fn sq(x: f32) -> f32 {
        x * x
    }

    #[crate::kernel::device]
    fn polar_distance(rho1: f32, theta1: f32, rho2: f32, theta2: f32) -> f32 {
        let (x1, y1) = (rho1 * theta1.cos(), rho1 * theta1.sin());
        (sq(x1 - rho2 * theta2.cos()) + sq(y1 - rho2 * theta2.sin())).sqrt()
    }

    #[crate::kernel::device]
    fn is_prime(n: i64) -> bool {
        if n < 2 {
            return false;
        }
        let mut i = 2;
        while i * i <= n {
            if n % i == 0 {
                return false;
            }
            i += 1;
        }
        true
    }

    // (`-3 as f32`: the cast of a negative literal is the point.)
    #[allow(clippy::unnecessary_cast)]
    #[crate::kernel::device]
    fn loops(n: u32) -> u64 {
        let mut s: u64 = 0;
        for i in 0..n {
            if i % 3 == 0 {
                continue;
            }
            s += i as u64;
        }
        for i in (1..=n).rev() {
            s = s.wrapping_mul(3) ^ i as u64;
        }
        for i in (0..n).step_by(4) {
            s += if i > 8 { 1 } else { 2 };
        }
        let mut k = 0u32;
        loop {
            k += 7;
            if k > n {
                break;
            }
        }
        let n = n + k % 2; // shadowing
        for j in 0..5 {
            s += j as u64 + (-1i64 + (-3 as f32) as i64) as u64;
        }
        let big = {
            let t = n as f64 * 1.5;
            t.floor() as u64
        };
        s + big + u32::MAX as u64
    }

    /// A unit holding the translated functions, for NVRTC.
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct Unit(String);
    impl KernelKey for Unit {
        const FAMILY: &'static str = "kernel";
        fn entry(&self) -> &str {
            "cuprum_kernel_check"
        }
        fn source(&self) -> String {
            format!("{}\nextern \"C\" __global__ void cuprum_kernel_check() {{}}\n", self.0)
        }
    }

    #[crate::kernel::vectorize(f32(f32, f32, f32), f64(f64, f64, f64))]
    fn gauss(x: f32, mean: f32, sigma: f32) -> f32 {
        const SQRT_2PI: f32 = 2.506_628_274_631_000_5;
        (-0.5 * ((x - mean) / sigma).powi(2)).exp() / (sigma * SQRT_2PI)
    }

    #[crate::kernel::device]
    const OFFSET: i64 = -3;

    #[crate::kernel::vectorize(i8(i8, u8), i64(i64, u64), u64(u64, u64))]
    fn picks(a: i8, b: u8) -> i8 {
        match (a as i64 + OFFSET) % 4 {
            0 => a / b as i8,
            1 | 2 => {
                let t = a % 3;
                t << (b & 3)
            }
            -3..=-1 => -a,
            _ => a.wrapping_mul(2),
        }
    }

    /// The number of divisors (trial division: `%` by a `for` index from 1, the unsigned form
    /// where the dividend is not negative).
    #[crate::kernel::vectorize(i32(i32))]
    fn divisors(num: i32) -> i32 {
        let mut count = 0;
        for i in 1..=num {
            count += (num % i == 0) as i32;
        }
        count
    }

    /// The lesson's polar distance as a ufunc (a sine and a cosine of each angle, through the
    /// device function above).
    #[crate::kernel::vectorize(f32(f32, f32, f32, f32))]
    fn polar(rho1: f32, theta1: f32, rho2: f32, theta2: f32) -> f32 {
        polar_distance(rho1, theta1, rho2, theta2)
    }

    /// Every loop of four vectorized functions, for each layout, with array and scalar inputs:
    /// the kernel source compiles (where NVRTC is present); `CUPRUM_DUMP_SOURCES=dir` writes
    /// each source there.
    #[test]
    fn vectorized_sources_compile() {
        use super::cuda::{ById, VecKey};
        use crate::ufunc::cuda::Variant;
        let dump = std::env::var_os("CUPRUM_DUMP_SOURCES");
        for v in [gauss::ufunc(), picks::ufunc(), divisors::ufunc(), polar::ufunc()] {
            for (l, lp) in v.loops.iter().enumerate() {
                for (variant, scalars) in
                    [(Variant::Kv, 0), (Variant::K1, 1), (Variant::Ks, 2), (Variant::Kn, 0), (Variant::Kv, 2)]
                {
                    let key = VecKey { lp: ById(lp), scalars, variant };
                    if let Some(d) = &dump {
                        let name = format!("{}-{l}-{}-{scalars}.cu", lp.entry, variant.name());
                        std::fs::write(std::path::Path::new(d).join(name), key.source()).unwrap();
                    }
                    crate::backend::cuda::compile::check_compiles(&key);
                }
            }
        }
        assert_eq!(picks::scalar(5, 0), 2); // (5 - 3) % 4 == 2: 5 % 3 << 0
        assert_eq!(divisors::scalar(12), 6);
        assert_eq!(picks::scalar_1(i64::MIN + 3, 3), (i64::MIN + 3) / 3); // (MIN + 3 - 3) % 4 == 0
        assert_eq!(
            gauss::ufunc().types(),
            ["float32(float32, float32, float32)", "float64(float64, float64, float64)"]
        );
    }

    #[crate::kernel::device]
    fn split(x: f32) -> (f32, i32) {
        (x.fract(), x as i32)
    }

    #[crate::kernel::kernel]
    fn everything(a: &[f32], out: &mut [f32], counts: &mut [i32], big: &mut [u64], fl: &mut [f64], k: usize) {
        use crate::kernel::*;
        let mut sm = shared::<f32, 64>();
        let t = thread_idx().x;
        let i = grid(1);
        if i < a.len() {
            let (f, w) = split(a[i]);
            sm[t % 64] = f;
            sync_threads();
            out[i] += sm[(t + 1) % 64] + w as f32;
            atomic_add(counts, i % 4, 1);
            atomic_min(counts, 4, w);
            atomic_max(big, 0, i as u64);
            atomic_cas(big, 1, 0, 5);
            atomic_exch(fl, 0, 1.5);
            atomic_add(fl, 1, 0.25);
            atomic_sub(counts, 5, 2);
        }
        let (x, y) = grid2();
        let (sx, _) = gridsize2();
        out[0] = (x + y * sx + k + block_dim().y + grid_dim().z + block_idx().x) as f32;
        let _ = gridsize(1);
    }

    #[crate::kernel::kernel]
    fn views(a: View<f32, 1>, m: View<u8, 2>, c: View<i64, 3>, out: ViewMut<f64, 2>, o1: ViewMut<i32, 1>) {
        let (i, j) = crate::kernel::grid2();
        let (h, w) = out.dim();
        let (p, q, r) = c.dim();
        if i < h && j < w && i < m.nrows() && j < m.ncols() {
            out[(i, j)] += a[i] as f64 + m[(i, j)] as f64 + (p + q + r + a.dim() + c.len()) as f64;
            o1[j] = c[(0, 0, j)] as i32 + out.nrows() as i32 + out.ncols() as i32 + o1.len() as i32;
        }
    }

    #[crate::kernel::kernel]
    fn warps(x: &[f32], b: &mut [u8], out: &mut [i64]) {
        use crate::kernel::*;
        let i = grid(1);
        let v = if i < x.len() { x[i] } else { 0.0 };
        let mut s =
            v + shfl_sync(0xffff_ffff, v, 0) + shfl_up_sync(0xffff_ffff, v, 1) + shfl_xor_sync(0xffff_ffff, v, 3);
        s += shfl_down_sync(0xffff_ffff, s, 16);
        let c = shfl_down_sync(0xffff_ffff, b[0], 1) as i64 + shfl_sync(0xffff_ffff, i as i64, 2);
        sync_warp(0xffff_ffff);
        if all_sync(0xffff_ffff, s > 0.0) || any_sync(0xffff_ffff, v < 1.0) {
            out[0] = ballot_sync(0xffff_ffff, v > 0.5) as i64 + lane_id() as i64 + warp_size() as i64 + c;
        }
    }

    /// Grid kernels using every intrinsic and every view form compile (where NVRTC is present).
    #[test]
    fn grid_kernel_source_compiles() {
        crate::backend::cuda::compile::check_compiles(&super::cuda::ById(everything.kernel()));
        crate::backend::cuda::compile::check_compiles(&super::cuda::ById(views.kernel()));
        crate::backend::cuda::compile::check_compiles(&super::cuda::ById(warps.kernel()));
        assert_eq!(split(2.5), (0.5, 2));
    }

    /// The functions stay Rust; their CUDA C has the callees first, once, and (where NVRTC is
    /// present) compiles.
    #[test]
    fn device_functions() {
        assert!((gaussian_pdf(1.0, 0.0, 1.0) - 0.241_970_72).abs() < 1e-6);
        assert!((polar_distance(1.0, 0.0, 1.0, std::f32::consts::FRAC_PI_2) - 2f32.sqrt()).abs() < 1e-6);
        assert_eq!((0..30).filter(|&n| is_prime(n)).collect::<Vec<_>>(), [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]);
        assert!(loops(10) > 0);
        let polar = ADD_THE_cuprum_device_ATTRIBUTE_TO_polar_distance.source();
        let (at_sq, at_polar) =
            (polar.find("cuprum_dev_sq(float").unwrap(), polar.find("cuprum_dev_polar_distance(").unwrap());
        assert!(at_sq < at_polar && polar.matches("float cuprum_dev_sq(").count() == 1);
        let units: [&DeviceSource; 4] = [
            &ADD_THE_cuprum_device_ATTRIBUTE_TO_gaussian_pdf,
            &ADD_THE_cuprum_device_ATTRIBUTE_TO_polar_distance,
            &ADD_THE_cuprum_device_ATTRIBUTE_TO_is_prime,
            &ADD_THE_cuprum_device_ATTRIBUTE_TO_loops,
        ];
        for u in units {
            crate::backend::cuda::compile::check_compiles(&Unit(u.source()));
        }
    }
}
