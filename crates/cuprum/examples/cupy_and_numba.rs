//! Seed 003, "CuPy and Numba on the GPU", as far as cuprum goes today: arrays on the default
//! device (the first GPU, or the CPU when there is none), copies to and from the host, GPU
//! array math, the lesson's `add_ufunc` (broadcasting), its timing of a tiny problem, the
//! Gaussian PDF a million times and `polar_distance`. The lesson writes the last three as
//! Numba ufuncs; here they are formulas (`cuprum::Expr`) until user kernels and fusion land.
//! The random inputs are the lesson's (`cp.random.normal`, `np.random.uniform`), from
//! `cuprum::random`.
//!
//! Run with `cargo run --release --example cupy_and_numba`.

use cuprum::profiler::benchmark;
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
    println!("{}", cuprum::linalg::norm(&ary_gpu, None, None, false)?);
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
    println!("{}", benchmark("np.add (cpu)", cpu, 10, 1000, || &b_col_cpu + &c_cpu)?);
    println!("{}", benchmark("add (gpu)", dev, 10, 1000, || &b_col + &c)?);

    // The Gaussian PDF a million times, in float32:
    // gaussian_pdf(x, mean, sigma) = exp(-0.5 * ((x - mean) / sigma)**2) / (sigma * SQRT_2PI)
    let sqrt_2pi = (2.0 * std::f64::consts::PI).sqrt() as f32;
    let (mean, sigma) = (0.0f32, 1.0f32);
    let gaussian_pdf = |x: &cuprum::Array| (-0.5 * ((x.expr() - mean) / sigma).powi(2)).exp() / (sigma * sqrt_2pi);
    // x = np.random.uniform(-3, 3, size=1000000).astype(np.float32)
    let x_cpu = random::uniform(-3.0, 3.0, &[1_000_000], &cpu)?.astype(DType::Float32)?;
    let x_gpu = x_cpu.to_device(&dev)?;
    // Quick test: gaussian_pdf(x[0], 0.0, 1.0)
    let first = gaussian_pdf(&x_cpu.slice(s![0..1])?).eval()?;
    println!("{first:?}  (x[0] = {})", x_cpu.slice(s![0])?.item::<f32>()?);
    println!("{}", benchmark("gaussian_pdf (cpu)", cpu, 2, 10, || gaussian_pdf(&x_cpu).eval())?);
    println!("{}", benchmark("gaussian_pdf (gpu)", dev, 3, 20, || gaussian_pdf(&x_gpu).eval())?);
    let same = cuprum::allclose(
        &gaussian_pdf(&x_gpu).eval()?.to_device(&cpu)?,
        &gaussian_pdf(&x_cpu).eval()?,
        1e-6,
        1e-7,
        false,
    )?;
    println!("GPU and CPU agree: {same}");

    // polar_distance(rho1, theta1, rho2, theta2), with polar_to_cartesian as a device function.
    let polar_to_cartesian =
        |rho: &cuprum::Array, theta: &cuprum::Array| (rho.expr() * theta.expr().cos(), rho.expr() * theta.expr().sin());
    let n = 1_000_000;
    // rho1 = np.random.uniform(0.5, 1.5, size=n).astype(np.float32), theta1 in (-pi, pi), ...
    let pi = std::f64::consts::PI;
    let unif = |lo: f64, hi: f64| -> cuprum::Result<cuprum::Array> {
        random::uniform(lo, hi, &[n], &dev)?.astype(DType::Float32)
    };
    let (rho1, theta1, rho2, theta2) = (unif(0.5, 1.5)?, unif(-pi, pi)?, unif(0.5, 1.5)?, unif(-pi, pi)?);
    let polar_distance = || {
        let (x1, y1) = polar_to_cartesian(&rho1, &theta1);
        let (x2, y2) = polar_to_cartesian(&rho2, &theta2);
        ((x1 - x2).powi(2) + (y1 - y2).powi(2)).powf(0.5).eval()
    };
    let d = polar_distance()?;
    println!("polar_distance: {d}");
    println!("{}", benchmark("polar_distance", dev, 3, 20, polar_distance)?);
    println!("(@vectorize and @cuda.jit user kernels: not yet in cuprum; the formulas above run op by op)");
    Ok(())
}
