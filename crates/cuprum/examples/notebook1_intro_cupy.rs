//! Seed 004, "Notebook 1: Introduction to CuPy", as far as cuprum goes today: QR of a 512×512
//! matrix on both devices, arrays copied to the device and back, a 4096×4096 `matmul`, kernel
//! overhead (the first `det` loads its kernels, later calls do not; small QRs are dominated by
//! launch overhead), `squared_diff` timed with the profiler, unfused and through `cuprum::fuse`
//! (`cupy.fuse`), data movement (`dot` of two large
//! vectors with and without the copies) and the two 6000×6000 inversions, one after the other
//! and on two streams with events (`cuprum::cuda`: `get_current_stream`, `Stream`, `Event`),
//! with the lesson's random inputs (`cp.random.randn`, `uniform`, `rand`: `cuprum::random`,
//! which gives the same numbers on both devices for one seed).
//!
//! `cargo run --release --example notebook1_intro_cupy [-- --size 100000000] [--quick]`
//! (`--quick`: the matrix sizes made small, for CI).

use cuprum::profiler::{benchmark_with, BenchmarkOptions};
use cuprum::{linalg, random, DType, Device, Result};
use std::time::Instant;

/// Seconds of `f` after a first (excluded) call, the result synchronised.
fn timed<R>(dev: Device, mut f: impl FnMut() -> Result<R>) -> Result<f64> {
    f()?;
    dev.synchronize()?;
    let t = Instant::now();
    let r = f()?;
    dev.synchronize()?;
    drop(r);
    Ok(t.elapsed().as_secs_f64())
}

fn main() -> Result<()> {
    let size_big =
        std::env::args().skip_while(|a| a != "--size").nth(1).and_then(|s| s.parse().ok()).unwrap_or(100_000_000usize);
    let quick = std::env::args().any(|a| a == "--quick");
    let gpu = Device::default_device();
    let cpu = Device::Cpu;
    println!(
        "GPU device: {gpu}{}",
        if gpu.is_cpu() { " (no GPU here: the notebook's GPU lines run on the CPU backend)" } else { "" }
    );

    // A = np.random.randn(512, 512); %timeit -n 5 Q, R = np.linalg.qr(A); the same with CuPy.
    random::seed(3)?;
    for dev in [cpu, gpu] {
        let a = random::randn(&[512, 512], &dev)?;
        let mut ts = Vec::new();
        for _ in 0..5 {
            ts.push(timed(dev, || linalg::qr(&a))?);
        }
        let mean = ts.iter().sum::<f64>() / ts.len() as f64;
        println!("qr of 512x512 on {dev}: {:.3} ms per loop (mean of 5)", 1e3 * mean);
    }

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

    // C = np.matmul(A, B) of np.random.uniform(-1, 1, (4096, 4096)).astype(float32) matrices,
    // on both devices: the same seed gives both devices the same matrices.
    let size = if quick { 1024 } else { 4096 };
    let ab = |dev: &Device| -> Result<(cuprum::Array, cuprum::Array)> {
        random::seed(11)?;
        let a = random::uniform(-1.0, 1.0, &[size, size], dev)?.astype(DType::Float32)?;
        let b = random::uniform(-1.0, 1.0, &[size, size], dev)?.astype(DType::Float32)?;
        Ok((a, b))
    };
    let (a, b) = ab(&cpu)?;
    let t = Instant::now();
    let c_cpu = cuprum::matmul(&a, &b)?;
    println!("Elapsed wall clock time for the CPU = {:.6} seconds.", t.elapsed().as_secs_f64());
    let (a, b) = ab(&gpu)?;
    let gpu_time = timed(gpu, || a.matmul(&b))?; // the first call (excluded) loads the library
    println!("Elapsed wall clock time for {gpu} = {gpu_time:.6} seconds.");
    let same = cuprum::allclose_with(
        &a.matmul(&b)?.to_device(&cpu)?,
        &c_cpu,
        &cuprum::CloseOptions { rtol: 1e-4, atol: 1e-4, ..Default::default() },
    )?;
    println!("the two products agree: {same}");

    // Kernel overhead: the first det loads the solver library and its kernels; later calls do
    // not.
    for _ in 0..5 {
        let a = random::randn(&[512, 512], &gpu)?.astype(DType::Float32)?;
        let t = Instant::now();
        linalg::det(&a)?;
        gpu.synchronize()?;
        println!("{:.4}", t.elapsed().as_secs_f64());
    }
    // Launch overhead dominates small problems: QR of n x n matrices on both devices.
    let sizes: &[usize] = if quick { &[64, 128, 256] } else { &[64, 128, 256, 512, 1024, 2048] };
    for &size in sizes {
        println!("\nInput Matrix size: {size} x {size}");
        for dev in [cpu, gpu] {
            let a = random::uniform(-1.0, 1.0, &[size, size], &dev)?.astype(DType::Float32)?;
            let t = timed(dev, || linalg::qr(&a))?;
            println!("{} {t:.6}", if dev.is_cpu() { "cuprum cpu " } else { "cuprum cuda" });
        }
    }

    // def squared_diff(x, y): return (x - y) * (x - y)
    let x = cuprum::arange(10000, &gpu)?;
    let y = x.flip(0)?;
    let squared_diff = || -> cuprum::Result<cuprum::Array> { (&x - &y)? * (&x - &y)? };
    println!(
        "{}",
        benchmark_with(
            "squared_diff",
            gpu,
            &BenchmarkOptions { n_repeat: 10, n_warmup: 3, ..Default::default() },
            squared_diff
        )?
    );
    // squared_diff_fused = cp.fuse(squared_diff): one kernel instead of three.
    let squared_diff_fused = cuprum::fuse(|[x, y]| (&x - &y) * (&x - &y));
    println!(
        "{}",
        benchmark_with(
            "squared_diff_fused",
            gpu,
            &BenchmarkOptions { n_repeat: 10, n_warmup: 3, ..Default::default() },
            || squared_diff_fused.call([&x, &y])
        )?
    );
    assert!(cuprum::array_equal(&squared_diff_fused.call([&x, &y])?, &squared_diff()?)?);

    // Data movement: np.dot of two vectors with the data already on the device, then with the
    // copies from the host.
    // A_cpu = np.random.rand(size).astype(np.float32)
    let a_host = random::rand(&[size_big], &cpu)?.astype(DType::Float32)?;
    let b_host = random::rand(&[size_big], &cpu)?.astype(DType::Float32)?;
    let dot = cuprum::dot;
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

    // Streams and events. cp.cuda.get_current_stream()
    if gpu.is_cuda() {
        println!("{:?}", cuprum::cuda::get_current_stream(gpu)?);
    }
    // Two inversions of one 6000 x 6000 float32 matrix, one after the other on the current
    // stream, then on two streams.
    let size = if quick { 500 } else { 6000 };
    // A_gpu = cp.random.rand(size, size).astype(cp.float32)
    let a_gpu = random::rand(&[size, size], &gpu)?.astype(DType::Float32)?;
    linalg::inv(&a_gpu)?;
    gpu.synchronize()?;
    // NumPy's LinAlgError for a singular matrix needs the factorisation's status back on the
    // host, a wait that would keep the second inversion from being queued before the first ends
    // (on two streams): CuPy does not check by default, and neither does cuprum here.
    let check = linalg::set_gpu_error_check(false);
    let t = Instant::now();
    let c1 = linalg::inv(&a_gpu)?;
    let c2 = linalg::inv(&a_gpu)?;
    gpu.synchronize()?;
    let baseline = t.elapsed().as_secs_f64();
    println!("Baseline implementation time: {baseline:.4} seconds");
    let r = linalg::norm(&(&a_gpu.matmul(&c1)? - &cuprum::eye(size, DType::Float32, &gpu)?)?)?;
    println!("|A C1 - I| = {:.2e}, C1 == C2: {}", r.item::<f64>()?, cuprum::array_equal(&c1, &c2)?);
    drop((c1, c2));
    // On the CPU the streams order host work and the events read the host clock: the same code.
    use cuprum::cuda::{Event, Stream};
    // The streams' first inversions make their cuSOLVER handles (once per stream).
    let (stream1, stream2) = (Stream::new(gpu)?, Stream::new(gpu)?);
    stream1.scope(|| linalg::inv(&a_gpu))?;
    stream2.scope(|| linalg::inv(&a_gpu))?;
    gpu.synchronize()?;
    let t = Instant::now();
    let (event1, event2) = (Event::new(gpu)?, Event::new(gpu)?);
    let c1 = stream1.scope(|| {
        let c = linalg::inv(&a_gpu)?;
        event1.record()?; // on stream1, the current stream
        Ok(c)
    })?;
    let c2 = stream2.scope(|| {
        let c = linalg::inv(&a_gpu)?;
        event2.record_on(&stream2)?;
        Ok(c)
    })?;
    event1.synchronize()?;
    event2.synchronize()?;
    let streams = t.elapsed().as_secs_f64();
    println!("Stream and event time: {streams:.4} seconds ({:.2} of the baseline)", streams / baseline);
    println!("C1 == C2: {}", cuprum::array_equal(&c1, &c2)?);
    linalg::set_gpu_error_check(check);
    Ok(())
}
