//! Seed 004, "Notebook 1: Introduction to CuPy", as far as cuprum goes today: arrays copied to
//! the device and back, kernel overhead (the first call compiles or loads the kernel, later
//! calls do not; small problems are dominated by launch overhead), `squared_diff` timed with the
//! profiler, and data movement (the product-sum of two large vectors with and without the
//! copies). The notebook's linear algebra (`qr`, `matmul`, `det`, `inv`), random numbers,
//! `cupy.fuse` and streams are left out until those land in cuprum; the example says where.
//!
//! `cargo run --release --example notebook1_intro_cupy [-- --size 100000000]`

use cuprum::profiler::benchmark;
use cuprum::{DType, Device, Result};
use std::time::Instant;

/// Uniform [0, 1) float32 numbers from a fixed xorshift seed (cuprum has no random module yet).
fn uniform(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

fn main() -> Result<()> {
    let size_big =
        std::env::args().skip_while(|a| a != "--size").nth(1).and_then(|s| s.parse().ok()).unwrap_or(100_000_000usize);
    let gpu = Device::default_device();
    let cpu = Device::Cpu;
    println!(
        "GPU device: {gpu}{}",
        if gpu.is_cpu() { " (no GPU here: the notebook's GPU lines run on the CPU backend)" } else { "" }
    );

    // A_cpu = np.array([[1, 2, 3], [4, 5, 6]], np.int32); A_gpu = cp.asarray(A_cpu); cp.square(A_gpu)
    let a_cpu = cuprum::from_slice(&[1i32, 2, 3, 4, 5, 6], &[2, 3], &cpu)?;
    println!("A_cpu is on {} with dtype {}", a_cpu.device(), a_cpu.dtype());
    println!("With initial values:\n{a_cpu}");
    let a_gpu = a_cpu.to_device(&gpu)?;
    println!("A_gpu is on {}", a_gpu.device());
    let a_gpu = a_gpu.square()?;
    let a_cpu = a_gpu.to_device(&cpu)?;
    println!("Squared values:\n{a_cpu}");
    println!("{:?}", a_gpu.square()?);
    println!("(np.matmul of 4096x4096 matrices: not yet, cuprum has no linear algebra)");

    // Kernel overhead: the first call of an operation compiles its kernel (or loads it from the
    // disk cache); the later ones only launch it.
    let m = cuprum::from_slice(&uniform(512 * 512, 7), &[512, 512], &gpu)?;
    for _ in 0..5 {
        let t = Instant::now();
        let r = (&m - m.mean(None)?)?.abs()?.argsort(-1)?;
        gpu.synchronize()?;
        println!("{:.4}", t.elapsed().as_secs_f64());
        drop(r);
    }
    // Launch overhead dominates small problems: sorting the rows of an n x n matrix.
    for size in [64, 128, 256, 512, 1024, 2048] {
        println!("\nInput Matrix size: {size} x {size}");
        for dev in [cpu, gpu] {
            let a = cuprum::from_slice(&uniform(size * size, size as u64), &[size, size], &dev)?;
            a.sort(-1)?; // exclude one-time compile overhead
            let t = Instant::now();
            let r = a.sort(-1)?;
            dev.synchronize()?;
            println!("{} {:.6}", if dev.is_cpu() { "cuprum cpu " } else { "cuprum cuda" }, t.elapsed().as_secs_f64());
            drop(r);
        }
    }

    // def squared_diff(x, y): return (x - y) * (x - y)
    let x = cuprum::arange(10000, &gpu)?;
    let y = x.flip(0)?;
    let squared_diff = || (x.expr() - &y) * (x.expr() - &y);
    println!("{}", benchmark("squared_diff", gpu, 3, 10, || squared_diff().eval())?);
    println!("(cupy.fuse: not yet; cuprum::Expr evaluates operation by operation until fusion lands)");

    // Data movement: the product-sum (np.dot of two vectors) with the data already on the
    // device, then with the copies from the host.
    let a_host = cuprum::from_slice(&uniform(size_big, 1), &[size_big], &cpu)?;
    let b_host = cuprum::from_slice(&uniform(size_big, 2), &[size_big], &cpu)?;
    let dot = |a: &cuprum::Array, b: &cuprum::Array| (a * b)?.sum(None);
    for (i, with_copies) in [false, false, true, true].into_iter().enumerate() {
        println!("Iteration  {i}{}", if with_copies { " (with the copies to the device)" } else { "" });
        let t = Instant::now();
        let c_cpu = dot(&a_host, &b_host)?;
        let cpu_time = t.elapsed().as_secs_f64();
        println!("cuprum cpu = {cpu_time:.6} seconds");
        let (a_dev, b_dev) = if with_copies {
            (a_host.clone(), b_host.clone())
        } else {
            (a_host.to_device(&gpu)?, b_host.to_device(&gpu)?)
        };
        gpu.synchronize()?;
        let t = Instant::now();
        let (a_gpu, b_gpu) = (a_dev.to_device(&gpu)?, b_dev.to_device(&gpu)?);
        let c_gpu = dot(&a_gpu, &b_gpu)?;
        gpu.synchronize()?;
        let gpu_time = t.elapsed().as_secs_f64();
        println!("cuprum {gpu} = {gpu_time:.6} seconds");
        println!("Speedup = {:.2}", cpu_time / gpu_time);
        let (c, g) = (c_cpu.item::<f64>()?, c_gpu.astype(DType::Float64)?.item::<f64>()?);
        println!("the CPU's and the GPU's sums agree: {}", (c - g).abs() <= 1e-4 * c.abs());
    }
    println!("(streams: not yet)");
    Ok(())
}
