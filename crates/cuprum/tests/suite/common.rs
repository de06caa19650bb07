//! Shared test helpers: the registration macros (`cpu_test!`, `device_test!`, `gpu_test!`,
//! `per_dtype!`, `cases!`, `isolated_gpu_test!`), fixtures, random arrays and comparisons.
#![allow(dead_code)]

use cuprum::{Array, DType, Device};

/// Whether GPU cases must run (`CUPRUM_REQUIRE_GPU=1`): then a missing GPU fails them.
pub fn gpu_required() -> bool {
    std::env::var("CUPRUM_REQUIRE_GPU").map(|v| v == "1").unwrap_or(false)
}

/// Why no GPU is usable (`None` when GPU 0 opens), asked once per process.
pub fn no_gpu_reason() -> Option<&'static str> {
    static WHY: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    WHY.get_or_init(|| Device::cuda(0).err().map(|e| e.to_string())).as_deref()
}

/// The GPU to test on. Without a usable GPU the harness reports GPU cases as ignored, so a
/// GPU case gets here without one only when it must run (`CUPRUM_REQUIRE_GPU=1`, or
/// `--include-ignored`): then it fails, saying why. (Returns an `Option`, never `None`, so
/// that bodies written as `let Some(gpu) = gpu_or_skip(..) else { return };` stay as they are.)
pub fn gpu_or_skip(test: &str) -> Option<Device> {
    match Device::cuda(0) {
        Ok(d) => Some(d),
        Err(e) if gpu_required() => panic!("{test}: CUPRUM_REQUIRE_GPU=1 but no GPU is usable: {e}"),
        Err(e) => panic!("{test}: a GPU case run without a usable GPU (it is ignored unless asked for): {e}"),
    }
}

/// One registered test: `name` is its module path under the suite (`sort::gpu::sort_f32`),
/// `gpu` marks a GPU case (ignored without a usable GPU unless `CUPRUM_REQUIRE_GPU=1`),
/// `isolated` one that runs in a process of its own (the harness re-runs this binary on it).
pub struct TestCase {
    pub name: &'static str,
    pub gpu: bool,
    pub isolated: bool,
    /// GPUs the case needs: a case needing two is ignored on a machine with fewer (reported
    /// as ignored with the reason), even under `CUPRUM_REQUIRE_GPU=1`.
    pub gpus: usize,
    pub run: fn(),
}

inventory::collect!(TestCase);

/// Registers `fn $name()` of the calling module (`$gpu`: a GPU case; `$isolated`: in its
/// own process).
macro_rules! register {
    ($name:ident, $gpu:expr, $isolated:expr) => {
        register!($name, $gpu, $isolated, if $gpu { 1 } else { 0 });
    };
    ($name:ident, $gpu:expr, $isolated:expr, $gpus:expr) => {
        inventory::submit! {
            $crate::common::TestCase {
                name: concat!(module_path!(), "::", stringify!($name)),
                gpu: $gpu,
                isolated: $isolated,
                gpus: $gpus,
                run: $name,
            }
        }
    };
}

/// `two_gpu_test!(name, |gpu0, gpu1| { ... })`: a case that needs two GPUs (ignored, with a
/// line saying so, where fewer are present).
macro_rules! two_gpu_test {
    ($name:ident, |$d0:ident, $d1:ident| $body:block) => {
        fn $name() {
            fn run($d0: cuprum::Device, $d1: cuprum::Device) -> cuprum::Result<()> $body
            let d0 = $crate::common::gpu_or_skip(stringify!($name)).expect("a GPU");
            let d1 = cuprum::Device::cuda(1).unwrap_or_else(|e| panic!("{}: needs two GPUs: {e}", stringify!($name)));
            run(d0, d1).unwrap();
        }
        register!($name, true, false, 2);
    };
}

/// `cpu_test!(name);` before `fn name()`: a test that needs no GPU (what `#[test]` was).
macro_rules! cpu_test {
    ($name:ident) => {
        register!($name, false, false);
    };
}

/// `isolated_gpu_test!(name);` before `fn name()`: a GPU case run in a process of its own
/// (the harness runs this binary again with `--exact name`), for tests that need the GPU, its
/// memory pool or the kernel cache to themselves.
macro_rules! isolated_gpu_test {
    ($name:ident) => {
        register!($name, true, true);
    };
}

/// Defines `<name>::cpu` and `<name>::gpu` tests running one body with `dev: Device`.
macro_rules! device_test {
    ($name:ident, |$dev:ident| $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            fn run($dev: cuprum::Device) -> cuprum::Result<()> $body
            fn cpu() {
                run(cuprum::Device::Cpu).unwrap();
            }
            fn gpu() {
                if let Some(d) = $crate::common::gpu_or_skip(concat!(module_path!(), "::gpu")) {
                    run(d).unwrap();
                }
            }
            register!(cpu, false, false);
            register!(gpu, true, false);
        }
    };
}

/// Defines a GPU-only test (comparing the GPU with the CPU), ignored without a GPU;
/// `gpu_test!(name);` before `fn name()` registers that function as one.
macro_rules! gpu_test {
    ($name:ident) => {
        register!($name, true, false);
    };
    ($name:ident, |$dev:ident| $body:block) => {
        fn $name() {
            fn run($dev: cuprum::Device) -> cuprum::Result<()> $body
            if let Some(d) = $crate::common::gpu_or_skip(stringify!($name)) {
                run(d).unwrap();
            }
        }
        register!($name, true, false);
    };
}

/// Defines one `gpu_test!` per dtype, `name => DType variant`, each calling `f(&gpu, dtype)`:
/// one test per dtype, so that the kernels' first compilations run in parallel.
macro_rules! per_dtype {
    ($f:ident: $($name:ident => $dt:ident),*) => {$(
        gpu_test!($name, |gpu| { $f(&gpu, cuprum::DType::$dt) });
    )*};
}

/// Runs `$f(&device)` on the GPU (`<name>`) and on the CPU standing in for it (`<name>::cpu`).
macro_rules! cases {
    ($($name:ident => $f:ident),* $(,)?) => {$(
        gpu_test!($name, |gpu| { $f(&gpu) });
        mod $name {
            fn cpu() {
                super::$f(&cuprum::Device::Cpu).unwrap();
            }
            register!(cpu, false, false);
        }
    )*};
}

/// A copy of host array `a` on `dev`.
pub fn on(dev: &Device, a: &Array) -> Array {
    a.to_device(dev).unwrap()
}

/// The fixtures directory: `CUPRUM_FIXTURES`, else `tests/fixtures` under the working
/// directory or the crate (so bundled test binaries find them when run from the bundle).
pub fn fixtures_dir() -> std::path::PathBuf {
    if let Some(d) = std::env::var_os("CUPRUM_FIXTURES") {
        return d.into();
    }
    for c in ["tests/fixtures", "crates/cuprum/tests/fixtures", "fixtures"] {
        let p = std::path::PathBuf::from(c);
        if p.is_dir() {
            return p;
        }
    }
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("fixtures")
}

/// A small deterministic generator (xorshift64*) for test inputs.
pub struct Rng(u64);

/// The run's base seed: `CUPRUM_TEST_SEED` if set, else fresh from the clock (printed, so a
/// failure can be replayed).
pub fn base_seed() -> u64 {
    static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *SEED.get_or_init(|| {
        let s = std::env::var("CUPRUM_TEST_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
        });
        eprintln!("random inputs: CUPRUM_TEST_SEED={s}");
        s
    })
}

impl Rng {
    /// A generator for stream `stream` of this run (fresh inputs every run).
    pub fn new(stream: u64) -> Rng {
        Rng((base_seed() ^ stream.wrapping_mul(0xD1B54A32D192ED03)).wrapping_mul(0x9E3779B97F4A7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A random host array of `dtype`: floats in [-4, 4) with a few NaN/inf/-0 when `specials`,
/// signed ints in [-50, 50), unsigned in [0, 100), bools.
pub fn random(shape: &[usize], dtype: DType, rng: &mut Rng, specials: bool) -> Array {
    let n: usize = shape.iter().product();
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let u = rng.uniform();
        let x = match dtype {
            DType::Bool => (u < 0.5) as i64 as f64,
            d if d.is_signed_int() => (u * 100.0).floor() - 50.0,
            d if d.is_unsigned_int() => (u * 100.0).floor(),
            _ => {
                let r = rng.uniform();
                if specials && r < 0.02 {
                    [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0][(r * 200.0) as usize % 4]
                } else {
                    u * 8.0 - 4.0
                }
            }
        };
        v.push(x);
    }
    let a = cuprum::from_slice(&v, shape, &Device::Cpu).unwrap();
    if dtype.is_complex() {
        // Independent real and imaginary parts (with their own specials).
        let im = random(shape, DType::Float64, rng, specials);
        let z = cuprum::zeros(shape, dtype, &Device::Cpu).unwrap();
        z.real().assign(&a).unwrap();
        z.imag().unwrap().assign(&im).unwrap();
        return z;
    }
    a.astype(dtype).unwrap()
}

/// Asserts `got` equals `want` in dtype, shape and values: exactly for ints and bools, within
/// `rtol` (relative, NaNs equal) for floats.
pub fn assert_close(got: &Array, want: &Array, rtol: f64, what: &str) {
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    if got.dtype().is_complex() {
        // Each part within `rtol` of the larger magnitude of the two numbers (a part much
        // smaller than the other one carries only the absolute error of the whole number).
        let parts = |a: &Array| {
            let h = a.to_device(&Device::Cpu).unwrap();
            (h.real().to_vec_as::<f64>().unwrap(), h.imag().unwrap().to_vec_as::<f64>().unwrap())
        };
        let ((gr, gi), (wr, wi)) = (parts(got), parts(want));
        for i in 0..gr.len() {
            let scale = wr[i].hypot(wi[i]).max(gr[i].hypot(gi[i]));
            for (a, b, which) in [(gr[i], wr[i], "real"), (gi[i], wi[i], "imag")] {
                let ok = if a.is_nan() || b.is_nan() {
                    a.is_nan() && b.is_nan()
                } else if a.is_infinite() || b.is_infinite() {
                    a == b
                } else {
                    (a - b).abs() <= rtol * scale.max(1e-300) + rtol * 1e-3 || (a - b).abs() <= f64::MIN_POSITIVE
                };
                assert!(
                    ok,
                    "{what}: element {i} ({which}): got {:?}, want {:?} (rtol {rtol})",
                    (gr[i], gi[i]),
                    (wr[i], wi[i])
                );
            }
        }
        return;
    }
    let g = got.to_device(&Device::Cpu).unwrap().to_vec_as::<f64>().unwrap();
    let w = want.to_device(&Device::Cpu).unwrap().to_vec_as::<f64>().unwrap();
    let float = got.dtype().is_float();
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = if a.is_nan() || b.is_nan() {
            a.is_nan() && b.is_nan()
        } else if !float || a.is_infinite() || b.is_infinite() {
            a == b
        } else {
            (a - b).abs() <= rtol * b.abs().max(1e-300) + rtol * 1e-3 || (a - b).abs() <= f64::MIN_POSITIVE
        };
        assert!(ok, "{what}: element {i}: got {a:?}, want {b:?} (rtol {rtol})");
    }
}

/// Relative tolerance for comparing results of `dtype` computed two ways.
pub fn rtol_for(dtype: DType) -> f64 {
    match dtype {
        DType::Float16 => 2e-3,
        DType::Float32 | DType::Complex64 => 2e-5,
        _ => 1e-11,
    }
}
