//! The user-kernel workloads (WORKLOADS.md's `gaussian_pdf_1M_f32`, `polar_distance_1M_f32`,
//! `primes_10k`): the lessons' functions written as cuprum's own user kernels, the same
//! inputs and the same work as `cupy_reference.py`'s ElementwiseKernels; the primes also as a
//! grid kernel (`primes_10k_kernel`, the lesson's `check_prime_gpu_kernel`). The `_source`
//! rows run `cupy_reference.py`'s ElementwiseKernel sources themselves through
//! `cuprum::kernel::ElementwiseKernel` (GPU only), checked against the vectorized functions.

use super::linalg::{on, pair, relcheck, row, Gen};
use super::{gpu_time, Opts};
use cuprum::kernel::ElementwiseKernel;
use cuprum::{DType, Device, Result};

#[cuprum::vectorize(f32(f32, f32, f32))]
fn gaussian_pdf(x: f32, mean: f32, sigma: f32) -> f32 {
    const SQRT_2PI: f32 = 2.506_628_3;
    (-0.5 * ((x - mean) / sigma).powi(2)).exp() / (sigma * SQRT_2PI)
}

/// The floor row's user function: as little work as a ufunc has.
#[cuprum::vectorize(f32(f32, f32))]
fn twice(x: f32, k: f32) -> f32 {
    x * k
}

#[cuprum::device]
fn sq(x: f32) -> f32 {
    x * x
}

#[cuprum::vectorize(f32(f32, f32, f32, f32))]
fn polar_distance(rho1: f32, theta1: f32, rho2: f32, theta2: f32) -> f32 {
    let (x1, y1) = (rho1 * theta1.cos(), rho1 * theta1.sin());
    let (x2, y2) = (rho2 * theta2.cos(), rho2 * theta2.sin());
    (sq(x1 - x2) + sq(y1 - y2)).sqrt()
}

/// The lesson's `check_prime_gpu`: the number if prime, else 0 (trial division to num / 2).
#[cuprum::vectorize(i32(i32))]
fn check_prime(num: i32) -> i32 {
    if num < 2 {
        return 0;
    }
    for i in 2..=num / 2 {
        if num % i == 0 {
            return 0;
        }
    }
    num
}

/// The lesson's `check_prime_gpu_kernel`, launched `[40, 256]` as the reference's Numba row.
#[cuprum::kernel]
fn check_prime_kernel(result: &mut [i32]) {
    let num = cuprum::kernel::grid(1);
    if num >= result.len() {
        return;
    }
    let n = num as i32;
    result[num] = if n < 2 { 0 } else { n };
    for i in 2..=n / 2 {
        if n % i == 0 {
            result[num] = 0;
            return;
        }
    }
}

/// A GPU-only row: `f` on the GPU, checked against `want` (on the CPU) with `check`.
#[allow(clippy::too_many_arguments)]
fn source_row(
    o: &mut Opts,
    name: &str,
    gpu: Device,
    rep: usize,
    note: &str,
    f: impl Fn() -> Result<cuprum::Array>,
    want: impl Fn() -> Result<cuprum::Array>,
    check: impl Fn(&cuprum::Array, &cuprum::Array) -> Result<(bool, String)>,
) {
    if !o.wants(name) {
        return;
    }
    eprintln!("[{name}]");
    let r = (|| -> Result<()> {
        let (g, h) = gpu_time(name, gpu, rep, &f)?;
        let (ok, what) = check(&f()?, &want()?)?;
        o.record(name, None, g, h, Some(ok), &format!("{note}{}{what}", if what.is_empty() { "" } else { "; " }));
        Ok(())
    })();
    if let Err(e) = r {
        o.failed(name, &e);
    }
}

fn exact(a: &cuprum::Array, b: &cuprum::Array) -> Result<(bool, String)> {
    let ok = cuprum::array_equal(&a.to_device(&Device::Cpu)?, &b.to_device(&Device::Cpu)?)?;
    let count = cuprum::count_nonzero(&a.to_device(&Device::Cpu)?, None)?.item::<i64>()?;
    Ok((ok, format!("count {count}")))
}

/// Host time per call (µs, launch to return, 2000 calls after 100 warm-up calls, the GPU
/// left to run behind; the raw launch also over 200 calls) of the steps a user ufunc's call takes, beside its whole: an output's
/// allocation, an empty raw kernel's launch (our launch path's floor), the built-in add, and
/// the vectorized gaussian_pdf with and without an allocated output, on 10k float32.
fn host_overhead_kernels(o: &mut Opts, gpu: &Device) -> Result<()> {
    let per_call_n = |reps: usize, f: &mut dyn FnMut() -> Result<()>| -> Result<f64> {
        for _ in 0..100 {
            f()?;
        }
        gpu.synchronize()?;
        let t = std::time::Instant::now();
        for _ in 0..reps {
            f()?;
        }
        let us = t.elapsed().as_secs_f64() / reps as f64 * 1e6;
        gpu.synchronize()?;
        Ok(us)
    };
    let per_call = |f: &mut dyn FnMut() -> Result<()>| per_call_n(2000, f);
    let x = cuprum::ones(&[10_000], DType::Float32, gpu)?;
    let mut y = cuprum::zeros(&[10_000], DType::Float32, gpu)?;
    let raw = cuprum::kernel::RawKernel::new("extern \"C\" __global__ void nothing(float* y) {}", "nothing")?;
    let alloc = per_call(&mut || cuprum::empty(&[10_000], DType::Float32, gpu).map(drop))?;
    // SAFETY: the kernel reads and writes nothing.
    let launch = per_call(&mut || unsafe { raw.launch((1, 32), (&y,)) })?;
    // Fewer launches than the driver's queue holds: the host's own time, not the GPU's pace.
    // SAFETY: as above.
    let launch_200 = per_call_n(200, &mut || unsafe { raw.launch((1, 32), (&y,)) })?;
    let add = per_call(&mut || x.add(&x).map(drop))?;
    let out = per_call(&mut || gaussian_pdf::out(&x, 0.0f32, 1.0f32, &mut y))?;
    let call = per_call(&mut || gaussian_pdf(&x, 0.0f32, 1.0f32).map(drop))?;
    o.emit(format!(
        "{{\"name\": \"host_overhead_kernels\", \"alloc_us\": {alloc:.3}, \"raw_launch_us\": {launch:.3}, \"raw_launch_200_us\": {launch_200:.3}, \"add_us\": {add:.3}, \"vectorize_out_us\": {out:.3}, \"vectorize_us\": {call:.3}, \"note\": \"host time per call, 10k float32\"}}"
    ));
    Ok(())
}

/// The floor under the 1M-element rows (GPU time, CUDA events as the rows, median of `rep`):
/// an empty raw kernel's launch, the built-in `negative` and a vectorized `x * 2` on 1M float32
/// (the bytes gaussian_pdf moves: 4 MB in, 4 MB out), and the same `x * 2` on 4M and 16M, whose
/// differences give the copy's own rate.
fn elementwise_floor(o: &mut Opts, gpu: Device, rep: usize) -> Result<()> {
    let t = |f: &mut dyn FnMut() -> Result<()>| -> Result<f64> {
        Ok(cuprum::profiler::benchmark_with(
            "floor",
            gpu,
            &cuprum::profiler::BenchmarkOptions { n_repeat: rep, ..Default::default() },
            f,
        )?
        .median_gpu_ms())
    };
    let raw = cuprum::kernel::RawKernel::new("extern \"C\" __global__ void nothing(float* y) {}", "nothing")?;
    let mut ms = Vec::new();
    for (n, key) in [(1_000_000usize, "twice_1M_ms"), (4_000_000, "twice_4M_ms"), (16_000_000, "twice_16M_ms")] {
        let x = cuprum::ones(&[n], DType::Float32, &gpu)?;
        if n == 1_000_000 {
            // SAFETY: the kernel reads and writes nothing.
            ms.push(("empty_launch_ms", t(&mut || unsafe { raw.launch((1, 32), (&x,)) })?));
            ms.push(("negative_1M_ms", t(&mut || cuprum::negative(&x).map(drop))?));
        }
        ms.push((key, t(&mut || twice(&x, 2.0f32).map(drop))?));
    }
    let fields: Vec<String> = ms.iter().map(|(k, v)| format!("\"{k}\": {v:.4}")).collect();
    o.emit(format!(
        "{{\"name\": \"elementwise_floor\", {}, \"note\": \"GPU ms (events), median of {rep}\"}}",
        fields.join(", ")
    ));
    Ok(())
}

pub(crate) fn workloads(o: &mut Opts, gpu: Device, rep: usize) -> Result<()> {
    if o.wants("elementwise_floor") {
        eprintln!("[elementwise_floor]");
        if let Err(e) = elementwise_floor(o, gpu, rep.max(100)) {
            o.failed("elementwise_floor", &e);
        }
    }
    if o.wants("host_overhead_kernels") {
        eprintln!("[host_overhead_kernels]");
        if let Err(e) = host_overhead_kernels(o, &gpu) {
            o.failed("host_overhead_kernels", &e);
        }
    }
    let mut g = Gen(11);
    if o.wants("gaussian_pdf_1M_f32") {
        let x = pair(cuprum::from_vec(g.uniform(1_000_000, -3.0, 3.0), &Device::Cpu)?.astype(DType::Float32)?, gpu)?;
        let f = |d: &Device| gaussian_pdf(&on(&x, d), 0.0f32, 1.0f32);
        row(o, "gaussian_pdf_1M_f32", gpu, rep, 10, "#[cuprum::vectorize]", f, relcheck(2e-6));
        let src = "y = expf(-0.5f * ((x - mean) / sigma) * ((x - mean) / sigma)) / (sigma * 2.5066283f)";
        let k = ElementwiseKernel::new("float32 x, float32 mean, float32 sigma", "float32 y", src, "gpdf")?;
        let run = || k.call((&x.1, 0.0f32, 1.0f32));
        let want = || gaussian_pdf(&x.0, 0.0f32, 1.0f32);
        let note = "ElementwiseKernel, cupy_reference.py's source";
        source_row(o, "gaussian_pdf_1M_f32_source", gpu, rep, note, run, want, relcheck(2e-6));
    }
    if o.wants("polar_distance_1M_f32") {
        let mut arr = |lo: f64, hi: f64| -> Result<(cuprum::Array, cuprum::Array)> {
            pair(cuprum::from_vec(g.uniform(1_000_000, lo, hi), &Device::Cpu)?.astype(DType::Float32)?, gpu)
        };
        let pi = std::f64::consts::PI;
        let (r1, t1, r2, t2) = (arr(0.5, 1.5)?, arr(-pi, pi)?, arr(0.5, 1.5)?, arr(-pi, pi)?);
        let f = |d: &Device| polar_distance(&on(&r1, d), &on(&t1, d), &on(&r2, d), &on(&t2, d));
        row(
            o,
            "polar_distance_1M_f32",
            gpu,
            rep,
            10,
            "#[cuprum::vectorize] with a #[cuprum::device] helper",
            f,
            relcheck(2e-5),
        );
        let src = "float x1 = r1 * cosf(t1), y1 = r1 * sinf(t1), x2 = r2 * cosf(t2), y2 = r2 * sinf(t2);\
                   d = sqrtf((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));";
        let k = ElementwiseKernel::new("float32 r1, float32 t1, float32 r2, float32 t2", "float32 d", src, "polar")?;
        let run = || k.call((&r1.1, &t1.1, &r2.1, &t2.1));
        let want = || polar_distance(&r1.0, &t1.0, &r2.0, &t2.0);
        let note = "ElementwiseKernel, cupy_reference.py's source";
        source_row(o, "polar_distance_1M_f32_source", gpu, rep, note, run, want, relcheck(2e-5));
    }
    if o.wants("primes_10k") || o.wants("primes_10k_kernel") {
        let nums = pair(cuprum::arange(10_000, &Device::Cpu)?.astype(DType::Int32)?, gpu)?;
        let f = |d: &Device| check_prime(&on(&nums, d));
        row(o, "primes_10k", gpu, rep, 10, "#[cuprum::vectorize], trial division to n/2", f, exact);
        let f = |d: &Device| {
            let mut r = cuprum::zeros(&[10_000], DType::Int32, d)?;
            check_prime_kernel.launch((40, 256), (&mut r,))?;
            Ok(r)
        };
        row(o, "primes_10k_kernel", gpu, rep, 10, "#[cuprum::kernel] [40, 256], index-checked", f, exact);
        let src =
            "out = num; if (num < 2) out = 0; for (int i = 2; i <= num / 2; i++) if (num % i == 0) { out = 0; break; }";
        let k = ElementwiseKernel::new("int32 num", "int32 out", src, "primes")?;
        let run = || k.call(&nums.1);
        let want = || check_prime(&nums.0);
        source_row(o, "primes_10k_source", gpu, rep, "ElementwiseKernel, cupy_reference.py's source", run, want, exact);
    }
    Ok(())
}
