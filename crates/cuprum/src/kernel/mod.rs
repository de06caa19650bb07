//! `cuprum::kernel`: kernels users write in Rust (Numba's `@vectorize`/`@cuda.jit`). This is
//! the first part: [`device`](macro@device) functions, translated to CUDA C at compile time
//! (`crates/cuprum-macros`), and [`DeviceSource`], which gathers a function's CUDA C with that
//! of the device functions it calls. `vectorize` and `kernel` build on them
//! (`docs/kernels-design.md`).
//!
//! ```
//! #[cuprum::device]
//! fn gaussian(x: f32, mean: f32, sigma: f32) -> f32 {
//!     let z = (x - mean) / sigma;
//!     (-0.5 * z * z).exp() / (sigma * (2.0 * std::f32::consts::PI).sqrt())
//! }
//! // An ordinary Rust function...
//! assert!((gaussian(0.0, 0.0, 1.0) - 0.398_942_3).abs() < 1e-6);
//! // ...with a CUDA C twin.
//! let cuda = __CUPRUM_DEVICE_gaussian.source();
//! assert!(cuda.contains("__device__ __forceinline__ float cuprum_dev_gaussian(float v_x, float v_mean, float v_sigma)"));
//! ```

pub use cuprum_macros::device;

/// The CUDA C of a `#[cuprum::device]` function (the constant `__CUPRUM_DEVICE_<name>` that
/// the attribute defines beside it) and of the device functions it calls.
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

    /// The functions stay Rust; their CUDA C has the callees first, once, and (where NVRTC is
    /// present) compiles.
    #[test]
    fn device_functions() {
        assert!((gaussian_pdf(1.0, 0.0, 1.0) - 0.241_970_72).abs() < 1e-6);
        assert!((polar_distance(1.0, 0.0, 1.0, std::f32::consts::FRAC_PI_2) - 2f32.sqrt()).abs() < 1e-6);
        assert_eq!((0..30).filter(|&n| is_prime(n)).collect::<Vec<_>>(), [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]);
        assert!(loops(10) > 0);
        let polar = __CUPRUM_DEVICE_polar_distance.source();
        let (at_sq, at_polar) =
            (polar.find("cuprum_dev_sq(float").unwrap(), polar.find("cuprum_dev_polar_distance(").unwrap());
        assert!(at_sq < at_polar && polar.matches("float cuprum_dev_sq(").count() == 1);
        let units: [&DeviceSource; 4] = [
            &__CUPRUM_DEVICE_gaussian_pdf,
            &__CUPRUM_DEVICE_polar_distance,
            &__CUPRUM_DEVICE_is_prime,
            &__CUPRUM_DEVICE_loops,
        ];
        for u in units {
            crate::backend::cuda::compile::check_compiles(&Unit(u.source()));
        }
    }
}
