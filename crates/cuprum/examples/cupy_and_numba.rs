//! Seed 003, "CuPy and Numba on the GPU", as far as cuprum goes today: arrays on the default
//! device (the first GPU, or the CPU when there is none), copies to and from the host, GPU
//! array math, the lesson's `add_ufunc` (broadcasting), its timing of a tiny problem, and its
//! Numba kernels written in Rust: the Gaussian PDF a million times (`#[cuprum::vectorize]`,
//! beside NumPy's expression on the CPU), `polar_distance` with a `#[cuprum::device]` helper
//! (checked against the CPU with the lesson's tolerance), and the prime test as a ufunc and as
//! a grid kernel (`#[cuprum::kernel]`). Without a GPU everything runs on the CPU. The random
//! inputs are the lesson's (`cp.random.normal`, `np.random.uniform`), from `cuprum::random`.
//!
//! Run with `cargo run --release --example cupy_and_numba`.

use cuprum::profiler::{benchmark_with, BenchmarkOptions};
use cuprum::{random, s, DType, Device, NEW_AXIS};

fn main() -> cuprum::Result<()> {
    let dev = Device::default_device();
    let cpu = Device::Cpu;
    println!(
        "device: {dev}{}",
        if dev.is_cpu() { " (no GPU here: the lesson's GPU arrays live on the CPU)" } else { "" }
    );

    // ary = cp.arange(10).reshape((2, 5))
    let ary = cuprum::arange(10, &dev)?.reshape([2, 5])?;
    println!("{ary:?}");
    println!("{}", ary.dtype());
    println!("{:?}", ary.shape());
    println!("{:?}", ary.strides());
    println!("{}", ary.device());

    // ary_cpu = np.arange(10); ary_gpu = cp.asarray(ary_cpu)
    let ary_cpu = cuprum::arange(10, &cpu)?;
    let ary_gpu = ary_cpu.to_device(&dev)?;
    println!("cpu: {ary_cpu}");
    println!("gpu: {ary_gpu}");
    println!("{}", ary_gpu.device());
    // ary_cpu_returned = cp.asnumpy(ary_gpu)
    let ary_cpu_returned: cuprum::ndarray::ArrayD<i64> = ary_gpu.to_ndarray()?;
    println!("{ary_cpu_returned} (an ndarray::ArrayD<i64> on the host)");

    // GPU array math. Formulas are `Expr`s (`x.expr()`), which carry any error to the one `?`
    // after `.eval()`.
    println!("{}", (ary_gpu.expr() * 2).eval()?);
    println!("{}", (-0.5 * ary_gpu.expr().powi(2)).exp().eval()?);
    // cp.linalg.norm(ary_gpu)
    println!("{}", cuprum::linalg::norm(&ary_gpu)?);
    // cp.random.normal(loc=5, scale=2.0, size=10)
    println!("{}", random::normal(5.0, 2.0, &[10], &dev)?);

    // @vectorize(['int64(int64, int64)'], target='cuda') def add_ufunc(x, y): return x + y
    let a = cuprum::from_slice(&[1i64, 2, 3, 4], &[4], &dev)?;
    let b = cuprum::from_slice(&[10i64, 20, 30, 40], &[4], &dev)?;
    let b_col = b.slice(s![.., NEW_AXIS])?;
    let c = cuprum::arange(4 * 4, &dev)?.reshape([4, 4])?;
    println!("a+b:\n{}", (&a + &b)?);
    println!();
    println!("b_col + c:\n{}", (&b_col + &c)?);
    // %timeit np.add(b_col, c) against the same on the GPU: a tiny problem is launch-bound.
    let (b_col_cpu, c_cpu) = (b_col.to_device(&cpu)?, c.to_device(&cpu)?);
    println!(
        "{}",
        benchmark_with("np.add (cpu)", cpu, &BenchmarkOptions { n_repeat: 1000, ..Default::default() }, || &b_col_cpu
            + &c_cpu)?
    );
    println!(
        "{}",
        benchmark_with("add (gpu)", dev, &BenchmarkOptions { n_repeat: 1000, ..Default::default() }, || &b_col + &c)?
    );

    // The Gaussian PDF a million times, in float32: the lesson's @vectorize(target='cuda').
    let (mean, sigma) = (0.0f32, 1.0f32);
    // x = np.random.uniform(-3, 3, size=1000000).astype(np.float32)
    let x_cpu = random::uniform(-3.0, 3.0, &[1_000_000], &cpu)?.astype(DType::Float32)?;
    let x_gpu = x_cpu.to_device(&dev)?;
    // Quick test: gaussian_pdf(x[0], 0.0, 1.0), the scalar function itself
    let x0 = x_cpu.slice(s![0])?.item::<f32>()?;
    println!("{}  (x[0] = {x0})", gaussian_pdf::scalar(x0, mean, sigma));
    println!(
        "{}",
        benchmark_with(
            "gaussian_pdf (gpu)",
            dev,
            &BenchmarkOptions { n_repeat: 20, n_warmup: 3, ..Default::default() },
            || gaussian_pdf(&x_gpu, mean, sigma)
        )?
    );
    println!(
        "{}",
        benchmark_with(
            "gaussian_pdf (cpu)",
            cpu,
            &BenchmarkOptions { n_repeat: 10, n_warmup: 2, ..Default::default() },
            || gaussian_pdf(&x_cpu, mean, sigma)
        )?
    );
    // The lesson's CPU comparison: NumPy's expression, op by op.
    let sqrt_2pi = (2.0 * std::f64::consts::PI).sqrt() as f32;
    let numpy_way = |x: &cuprum::Array| (-0.5 * ((x.expr() - mean) / sigma).powi(2)).exp() / (sigma * sqrt_2pi);
    println!(
        "{}",
        benchmark_with(
            "numpy expression (cpu)",
            cpu,
            &BenchmarkOptions { n_repeat: 10, n_warmup: 2, ..Default::default() },
            || numpy_way(&x_cpu).eval()
        )?
    );
    // norm_pdf = scipy.stats.norm; %timeit norm_pdf.pdf(x, loc=mean, scale=sigma)
    let norm_pdf = cuprum::scipy::stats::norm(mean as f64, sigma as f64);
    println!(
        "{}",
        benchmark_with(
            "scipy.stats.norm.pdf (cpu)",
            cpu,
            &BenchmarkOptions { n_repeat: 10, n_warmup: 2, ..Default::default() },
            || norm_pdf.pdf(&x_cpu)
        )?
    );
    println!(
        "{}",
        benchmark_with(
            "scipy.stats.norm.pdf (gpu)",
            dev,
            &BenchmarkOptions { n_repeat: 20, n_warmup: 3, ..Default::default() },
            || norm_pdf.pdf(&x_gpu)
        )?
    );
    let same = cuprum::allclose_with(
        &gaussian_pdf(&x_gpu, mean, sigma)?.to_device(&cpu)?,
        &numpy_way(&x_cpu).eval()?,
        &cuprum::CloseOptions { rtol: 1e-6, atol: 1e-7, ..Default::default() },
    )?;
    println!("GPU and CPU agree: {same}");

    // polar_distance(rho1, theta1, rho2, theta2), with polar_to_cartesian as a device function.
    let n = 1_000_000;
    // rho1 = np.random.uniform(0.5, 1.5, size=n).astype(np.float32), theta1 in (-pi, pi), ...
    let pi = std::f64::consts::PI;
    let unif = |lo: f64, hi: f64| -> cuprum::Result<cuprum::Array> {
        random::uniform(lo, hi, &[n], &dev)?.astype(DType::Float32)
    };
    let (rho1, theta1, rho2, theta2) = (unif(0.5, 1.5)?, unif(-pi, pi)?, unif(0.5, 1.5)?, unif(-pi, pi)?);
    let d = polar_distance(&rho1, &theta1, &rho2, &theta2)?;
    println!("polar_distance: {d}");
    println!(
        "{}",
        benchmark_with(
            "polar_distance",
            dev,
            &BenchmarkOptions { n_repeat: 20, n_warmup: 3, ..Default::default() },
            || polar_distance(&rho1, &theta1, &rho2, &theta2)
        )?
    );
    // np.testing.assert_allclose(gpu, cpu, rtol=1e-7, atol=5e-7) against the CPU's result
    let host = |a: &cuprum::Array| a.to_device(&cpu);
    let d_cpu = polar_distance(&host(&rho1)?, &host(&theta1)?, &host(&rho2)?, &host(&theta2)?)?;
    let close = cuprum::allclose_with(
        &d.to_device(&cpu)?,
        &d_cpu,
        &cuprum::CloseOptions { rtol: 1e-7, atol: 5e-7, ..Default::default() },
    )?;
    let worst = cuprum::abs(&cuprum::subtract(&d.to_device(&cpu)?, &d_cpu)?)?.max(None)?;
    println!("assert_allclose(gpu, cpu, rtol=1e-7, atol=5e-7): {close} (largest difference {worst})");

    // The prime test: as a ufunc, and as a kernel on a grid (check_prime_gpu_kernel[100, 100]).
    let numbers = cuprum::arange(10_000, &dev)?.astype(DType::Int32)?;
    let primes = check_prime(&numbers)?;
    let found = cuprum::extract(&primes.not_equal(0)?, &primes)?;
    println!("{} primes below 10000, the last {}", found.size(), found.slice(s![-3..])?);
    println!(
        "{}",
        benchmark_with(
            "check_prime (vectorize)",
            dev,
            &BenchmarkOptions { n_repeat: 20, n_warmup: 3, ..Default::default() },
            || check_prime(&numbers)
        )?
    );
    let mut result = cuprum::zeros(&[10_000], DType::Int32, &dev)?;
    check_prime_gpu_kernel.launch((100, 100), (&mut result,))?;
    println!("kernel agrees with the ufunc: {}", cuprum::array_equal(&result, &primes)?);
    println!(
        "{}",
        benchmark_with(
            "check_prime_gpu_kernel[100, 100]",
            dev,
            &BenchmarkOptions { n_repeat: 20, n_warmup: 3, ..Default::default() },
            || check_prime_gpu_kernel.launch((100, 100), (&mut result,))
        )?
    );
    // check_prime_gpu_kernel[1, 1](11, result): one number, a scalar parameter.
    let mut one = cuprum::zeros(&[1], DType::Int32, &dev)?;
    check_one.launch((1, 1), (11, &mut one))?;
    println!("11 -> {}", one);
    check_one.launch((1, 1), (12, &mut one))?;
    println!("12 -> {}", one);
    Ok(())
}

/// `@vectorize(['float32(float32, float32, float32)'], target='cuda')`
#[cuprum::vectorize(f32(f32, f32, f32))]
fn gaussian_pdf(x: f32, mean: f32, sigma: f32) -> f32 {
    const SQRT_2PI: f32 = 2.506_628_3;
    (-0.5 * ((x - mean) / sigma).powi(2)).exp() / (sigma * SQRT_2PI)
}

/// `@cuda.jit(device=True)`: two values back.
#[cuprum::device]
fn polar_to_cartesian(rho: f32, theta: f32) -> (f32, f32) {
    (rho * theta.cos(), rho * theta.sin())
}

#[cuprum::vectorize(f32(f32, f32, f32, f32))]
fn polar_distance(rho1: f32, theta1: f32, rho2: f32, theta2: f32) -> f32 {
    let (x1, y1) = polar_to_cartesian(rho1, theta1);
    let (x2, y2) = polar_to_cartesian(rho2, theta2);
    // The lesson's `** 0.5`, as the correctly rounded square root.
    ((x1 - x2).powi(2) + (y1 - y2).powi(2)).sqrt()
}

/// The lesson's `check_prime_gpu`: the number if prime, else 0.
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

/// `@cuda.jit def check_prime_gpu_kernel(result)`, with `num = cuda.grid(1)`.
#[cuprum::kernel]
fn check_prime_gpu_kernel(result: &mut [i32]) {
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

/// `check_prime_gpu_kernel(num, result)`: one number, the answer in `result[0]`.
#[cuprum::kernel]
fn check_one(num: i32, result: &mut [i32]) {
    result[0] = num;
    for i in 2..=num / 2 {
        if num % i == 0 {
            result[0] = 0;
            break;
        }
    }
}
