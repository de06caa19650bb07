//! `RawModule` and `RawKernel`: CuPy's kernels from a whole CUDA C source, launched by hand.

use super::gpu_of;
use crate::array::Array;
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dptr, Params};
use crate::backend::cuda::CudaDevice;
use crate::core::device::Device;
use crate::core::error::{Error, Result};
use crate::kernel::grid::{check_dims, Dim3};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// CuPy's `RawModule`: a CUDA C source holding `extern "C" __global__` kernels, compiled by
/// NVRTC with its default options, the device's architecture and the options given (nothing
/// of cuprum's is added: it is compiled as CuPy compiles it). Its kernels are taken with
/// [`get_function`](Self::get_function). The source may include cuprum's headers
/// (`#include "cuprum/complex.cuh"`, ...).
///
/// A compile error is an [`Error::Compile`] carrying NVRTC's log; a name the module does not
/// define is a ValueError at the first launch (or at [`RawKernel::compile`]).
#[derive(Clone, Debug)]
pub struct RawModule {
    src: Arc<Src>,
}

#[derive(Debug)]
struct Src {
    id: u64,
    code: String,
    options: Vec<String>,
}

impl RawModule {
    /// A module of CUDA C source `code` (compiled on the first launch of one of its kernels).
    pub fn new(code: &str) -> RawModule {
        RawModule { src: Arc::new(Src { id: super::next_id(), code: code.to_string(), options: Vec::new() }) }
    }

    /// The same source with NVRTC `options` (`-DN=128`, `--use_fast_math`, `-lineinfo`, ...).
    pub fn options(&self, options: &[&str]) -> RawModule {
        RawModule {
            src: Arc::new(Src {
                id: super::next_id(),
                code: self.src.code.clone(),
                options: options.iter().map(|o| o.to_string()).collect(),
            }),
        }
    }

    /// The kernel `name` of this module (an `extern "C"` name).
    pub fn get_function(&self, name: &str) -> Result<RawKernel> {
        if name.is_empty() || name.contains('\0') {
            return Err(Error::Value(format!("RawModule: invalid kernel name {name:?}")));
        }
        Ok(RawKernel { src: self.src.clone(), name: name.into() })
    }
}

/// CuPy's `RawKernel`: one `extern "C" __global__` function of a CUDA C source (see
/// [`RawModule`]), launched on a grid with arguments given in the kernel's parameter order:
/// arrays as the device address of their first element (any layout: the kernel indexes them
/// itself), Rust numbers by value in their own type (`3i32` for an `int`, `2.0f32` for a
/// `float`: nothing is converted).
///
/// Launching is `unsafe`: cuprum cannot check what the kernel's C code does with the
/// addresses, or that the arguments match its parameters.
///
/// ```no_run
/// use cuprum::kernel::RawKernel;
/// # fn main() -> cuprum::Result<()> {
/// let add = RawKernel::new(
///     r#"extern "C" __global__ void add(const float* x, const float* y, float* z, int n) {
///         int i = blockIdx.x * blockDim.x + threadIdx.x;
///         if (i < n) z[i] = x[i] + y[i];
///     }"#,
///     "add",
/// )?;
/// let gpu = cuprum::Device::cuda(0)?;
/// let x = cuprum::arange_f(0.0, 1000.0, 1.0, cuprum::DType::Float32, &gpu)?;
/// let mut z = cuprum::zeros(&[1000], cuprum::DType::Float32, &gpu)?;
/// // SAFETY: the kernel reads n floats of x and y and writes n of z, all of which exist.
/// unsafe { add.launch((4, 256), (&x, &x, &mut z, 1000i32))? };
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct RawKernel {
    src: Arc<Src>,
    name: Arc<str>,
}

impl RawKernel {
    /// Kernel `name` of the CUDA C source `code` (`RawModule::new(code).get_function(name)`).
    pub fn new(code: &str, name: &str) -> Result<RawKernel> {
        RawModule::new(code).get_function(name)
    }

    /// The same kernel of its source compiled with NVRTC `options`.
    pub fn options(&self, options: &[&str]) -> RawKernel {
        RawKernel { src: RawModule { src: self.src.clone() }.options(options).src, name: self.name.clone() }
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Compiles the module for `device` now (otherwise the first launch does), so that a
    /// compile error or a missing kernel shows early. NotImplementedError on the CPU.
    pub fn compile(&self, device: &Device) -> Result<()> {
        let what = format!("RawKernel {}", self.name);
        if *device == Device::Cpu {
            return Err(super::not_on_cpu(&what));
        }
        let dev = CudaDevice::get(device.ordinal())?;
        self.function(&dev).map(|_| ())
    }

    /// The kernel, compiled on first use (a name the module does not define: ValueError).
    fn function(&self, dev: &CudaDevice) -> Result<Arc<crate::backend::cuda::kernels::Kernel>> {
        dev.kernel(&Key { src: self.src.clone(), name: self.name.clone() })
    }

    /// Launches the kernel on `grid` blocks of `block` threads (each a number or a tuple of
    /// 2 or 3) with `args` (a tuple, or a slice of [`RawArg`]s), on the arrays' GPU (the
    /// default device when no argument is an array). ValueError for a grid or block beyond
    /// CUDA's limits; NotImplementedError on the CPU.
    ///
    /// # Safety
    /// The arguments must match the kernel's parameters in number, order and type, and the
    /// kernel must access only memory of the arrays passed (or its own), within their extent.
    pub unsafe fn launch<'a, G: Into<Dim3>, B: Into<Dim3>>(&self, dims: (G, B), args: impl RawArgs<'a>) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe { self.launch_shared(dims, 0, args) }
    }

    /// As [`launch`](Self::launch), with `shared_mem` bytes of dynamic shared memory (the
    /// `extern __shared__` array). Above 48 KiB, the kernel is allowed that much (CuPy asks
    /// for `max_dynamic_shared_size_bytes` to be set first).
    ///
    /// # Safety
    /// As `launch`.
    pub unsafe fn launch_shared<'a, G: Into<Dim3>, B: Into<Dim3>>(
        &self,
        (grid, block): (G, B),
        shared_mem: u32,
        args: impl RawArgs<'a>,
    ) -> Result<()> {
        let what = format!("RawKernel {}", self.name);
        let (grid, block) = (grid.into(), block.into());
        check_dims(&what, grid, block)?;
        let args = args.raw_args();
        let dev = gpu_of(
            &what,
            args.iter().filter_map(|a| match a {
                RawArg::Array(x) => Some(*x),
                RawArg::Value(..) => None,
            }),
        )?;
        let cdev = CudaDevice::get(dev.ordinal())?;
        let k = self.function(&cdev)?;
        if shared_mem > 48 * 1024 {
            cdev.allow_shared(&k, shared_mem)?;
        }
        let mut params = Params::new();
        for a in &args {
            let words = match a {
                RawArg::Array(_) => 1,
                RawArg::Value(_, n) => (*n as usize).div_ceil(8),
            };
            params.room(words, &what)?;
            match a {
                RawArg::Array(x) => params.push(dptr(x)?),
                // The value's little-endian bytes, zero-padded to whole words (the driver
                // copies the parameter's own size from the start).
                RawArg::Value(b, n) if *n <= 8 => params.push(u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))),
                RawArg::Value(b, _) => params.push(*b),
            }
        }
        // SAFETY: each argument is packed as its own type (an array as its device address);
        // that they match the kernel's parameters and that the kernel stays within the arrays
        // is the caller's contract. The arrays outlive the launch in stream order.
        unsafe { params.launch_3d(&cdev, &k, grid.as_u32s(), block.as_u32s(), shared_mem) }
    }
}

/// A raw kernel's module: its source and options (by identity), and the kernel's name.
#[derive(Clone)]
struct Key {
    src: Arc<Src>,
    name: Arc<str>,
}
impl PartialEq for Key {
    fn eq(&self, o: &Self) -> bool {
        self.src.id == o.src.id && self.name == o.name
    }
}
impl Eq for Key {}
impl Hash for Key {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.src.id.hash(h);
        self.name.hash(h);
    }
}
impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.name)
    }
}
impl KernelKey for Key {
    const FAMILY: &'static str = "raw_module";
    fn entry(&self) -> &str {
        &self.name
    }
    fn source(&self) -> String {
        self.src.code.clone()
    }
    fn options(&self) -> Vec<String> {
        self.src.options.clone()
    }
    fn plain(&self) -> bool {
        true
    }
}

/// One argument of a [`RawKernel`] launch: an array (its device address) or a value in its
/// own type (its bytes and their count).
pub enum RawArg<'a> {
    Array(&'a Array),
    Value([u8; 16], u8),
}

impl<'a> From<&'a Array> for RawArg<'a> {
    fn from(a: &'a Array) -> Self {
        RawArg::Array(a)
    }
}
impl<'a> From<&'a mut Array> for RawArg<'a> {
    fn from(a: &'a mut Array) -> Self {
        RawArg::Array(a)
    }
}
macro_rules! raw_value {
    ($($t:ty),*) => {$(
        impl From<$t> for RawArg<'_> {
            fn from(x: $t) -> Self {
                let b = x.to_le_bytes();
                let mut v = [0u8; 16];
                v[..b.len()].copy_from_slice(&b);
                RawArg::Value(v, b.len() as u8)
            }
        }
    )*};
}
raw_value!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);
impl From<bool> for RawArg<'_> {
    fn from(x: bool) -> Self {
        RawArg::from(x as u8)
    }
}
impl From<half::f16> for RawArg<'_> {
    fn from(x: half::f16) -> Self {
        RawArg::from(x.to_bits())
    }
}
impl From<num_complex::Complex<f32>> for RawArg<'_> {
    fn from(x: num_complex::Complex<f32>) -> Self {
        let mut v = [0u8; 16];
        v[..4].copy_from_slice(&x.re.to_le_bytes());
        v[4..8].copy_from_slice(&x.im.to_le_bytes());
        RawArg::Value(v, 8)
    }
}
impl From<num_complex::Complex<f64>> for RawArg<'_> {
    fn from(x: num_complex::Complex<f64>) -> Self {
        let mut v = [0u8; 16];
        v[..8].copy_from_slice(&x.re.to_le_bytes());
        v[8..].copy_from_slice(&x.im.to_le_bytes());
        RawArg::Value(v, 16)
    }
}

/// The arguments of a [`RawKernel`] launch: a tuple of arrays and numbers, or a `Vec` of
/// [`RawArg`]s.
pub trait RawArgs<'a> {
    /// The arguments in order.
    fn raw_args(self) -> Vec<RawArg<'a>>;
}
impl<'a> RawArgs<'a> for Vec<RawArg<'a>> {
    fn raw_args(self) -> Vec<RawArg<'a>> {
        self
    }
}
impl<'a> RawArgs<'a> for () {
    fn raw_args(self) -> Vec<RawArg<'a>> {
        Vec::new()
    }
}
super::tuple_args!(RawArgs, raw_args, RawArg);
