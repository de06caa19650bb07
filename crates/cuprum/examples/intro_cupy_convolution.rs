//! The lessons' first part, "Convolve an image with a kernel on a GPU" (seeds 000 and 001,
//! with the 1-d challenge of 002), in Rust: an image of deltas convolved with a Gaussian by
//! `convolve2d` on the CPU and on the GPU, timed as the lesson times it (the profiler's GPU
//! times; with and without the transfers), validated with `allclose`, then NumPy's 1-d
//! `convolve` of the flattened image with the Gaussian's diagonal. The pictures the lesson
//! shows with `imshow` are written as PNGs.
//!
//! `cargo run --release --example intro_cupy_convolution [-- --size 2048 --out DIR]`
//! (on the CPU only when there is no GPU; `--size 512` runs in a moment).

use cuprum::io::imsave;
use cuprum::profiler::{benchmark_with, BenchmarkOptions};
use cuprum::scipy::signal::convolve2d;
use cuprum::{s, DType, Device, Result};
use std::path::PathBuf;

fn main() -> Result<()> {
    let (size, out) = args();
    let gpu = Device::default_device();
    let cpu = Device::Cpu;
    println!(
        "GPU device: {gpu}{}",
        if gpu.is_cpu() { " (no GPU here: the lesson's GPU lines run on the CPU backend)" } else { "" }
    );
    std::fs::create_dir_all(&out).map_err(|e| cuprum::Error::Io(format!("{}: {e}", out.display())))?;
    // pyl.imshow(a): viridis, each element drawn as a block of pixels so the picture is ~480 wide.
    let picture = |name: &str, a: &cuprum::Array| -> Result<()> {
        let path = out.join(name);
        let k = (480 / a.shape()[1]).max(1);
        let big = a.repeat(k, 0)?.repeat(k, 1)?;
        imsave(&path, &big)?; // viridis, matplotlib's default
        println!("  (imshow -> {})", path.display());
        Ok(())
    };

    // deltas = np.zeros((2048, 2048)); deltas[8::16, 8::16] = 1
    let mut deltas = cuprum::zeros(&[size, size], DType::Float64, &cpu)?;
    deltas.slice_mut(s![8..;16, 8..;16])?.fill(1.0)?;
    println!("deltas: {:?} {}, {} ones", deltas.shape(), deltas.dtype(), deltas.sum(None)?);
    picture("deltas.png", &deltas.slice(s![0..32, 0..32])?)?;

    // x, y = np.meshgrid(np.linspace(-2, 2, 15), np.linspace(-2, 2, 15))
    // dst = np.sqrt(x*x + y*y); gauss = np.exp(-((dst - muu)**2 / (2.0 * sigma**2)))
    let line = cuprum::linspace(-2.0, 2.0, 15, DType::Float64, &cpu)?;
    let [x, y] = cuprum::meshgrid([&line, &line])?;
    let dst = (x.expr() * &x + y.expr() * &y).sqrt().eval()?;
    let (sigma, muu) = (1.0f64, 0.0);
    let gauss = (-(dst.expr() - muu).powi(2) / (2.0 * sigma.powi(2))).exp().eval()?;
    println!("gauss: {:?}, centre {:.3}, corner {:.4}", gauss.shape(), gauss.slice(s![7, 7])?, gauss.slice(s![0, 0])?);
    picture("gauss.png", &gauss)?;

    // Convolution on the CPU, timed as %timeit -n 1 -r 1 does.
    let t = std::time::Instant::now();
    let convolved_cpu = convolve2d(&deltas, &gauss)?;
    let cpu_s = t.elapsed().as_secs_f64();
    println!("convolve2d on the CPU: {cpu_s:.6} s (one run)");
    picture("convolved.png", &convolved_cpu.slice(s![7..39, 7..39])?)?;

    // ... and on the GPU: copy, convolve, time with the profiler.
    let deltas_gpu = deltas.to_device(&gpu)?;
    let gauss_gpu = gauss.to_device(&gpu)?;
    let convolved_gpu = convolve2d(&deltas_gpu, &gauss_gpu)?;
    let execution_gpu = benchmark_with(
        "convolve2d",
        gpu,
        &BenchmarkOptions { n_repeat: 10, n_warmup: 3, ..Default::default() },
        || convolve2d(&deltas_gpu, &gauss_gpu),
    )?;
    println!("{execution_gpu}");
    let gpu_avg_time = execution_gpu.mean();
    println!("{gpu_avg_time:.6} s  (the mean of the GPU times: {:.0}× the CPU's one run)", cpu_s / gpu_avg_time);

    // Validation: np.allclose(convolved_image_using_GPU, convolved_image_using_CPU)
    let same = cuprum::allclose(&convolved_gpu.to_device(&cpu)?, &convolved_cpu)?;
    println!("allclose(GPU, CPU): {same}");

    // A fairer comparison: the transfers to the GPU and back inside the timing.
    let transfer_compute_transferback = || -> Result<cuprum::Array> {
        let d = deltas.to_device(&gpu)?;
        let g = gauss.to_device(&gpu)?;
        convolve2d(&d, &g)?.to_device(&cpu)
    };
    let with_transfers = benchmark_with(
        "transfer_compute_transferback",
        gpu,
        &BenchmarkOptions { n_repeat: 10, n_warmup: 3, ..Default::default() },
        transfer_compute_transferback,
    )?;
    println!(
        "{:.6} s with the transfers ({:.0}× the CPU's one run)",
        with_transfers.mean(),
        cpu_s / with_transfers.mean()
    );

    // NumPy's 1-d convolve of deltas.ravel() with gauss.diagonal(), on both devices.
    let deltas_1d = deltas.ravel()?;
    let gauss_1d = gauss.diagonal()?;
    let t = std::time::Instant::now();
    let c1_cpu = cuprum::convolve(&deltas_1d, &gauss_1d)?;
    let cpu_1d = t.elapsed().as_secs_f64();
    let (d1, g1) = (deltas_1d.to_device(&gpu)?, gauss_1d.to_device(&gpu)?);
    let benchmark_gpu = benchmark_with(
        "np.convolve",
        gpu,
        &BenchmarkOptions { n_repeat: 10, n_warmup: 3, ..Default::default() },
        || cuprum::convolve(&d1, &g1),
    )?;
    let c1_gpu = cuprum::convolve(&d1, &g1)?;
    println!(
        "np.convolve: CPU {cpu_1d:.6} s, GPU {:.6} s; allclose: {}",
        benchmark_gpu.mean(),
        cuprum::allclose(&c1_gpu.to_device(&cpu)?, &c1_cpu)?
    );
    Ok(())
}

/// `--size N` (default 2048) and `--out DIR` (default examples-out/intro_cupy_convolution).
fn args() -> (usize, PathBuf) {
    let mut size = 2048;
    let mut out = PathBuf::from("examples-out/intro_cupy_convolution");
    let a: Vec<String> = std::env::args().collect();
    let mut i = 1;
    while i + 1 < a.len() {
        match a[i].as_str() {
            "--size" => size = a[i + 1].parse().unwrap_or(size),
            "--out" => out = PathBuf::from(&a[i + 1]),
            _ => {}
        }
        i += 2;
    }
    (size.max(32), out)
}
