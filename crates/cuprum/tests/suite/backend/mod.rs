//! The backends: device names and errors, the host memory pool; `pool`: the device memory
//! pool; `kernel_cache`: compiled kernels on disk.

mod cpu_red;
mod kernel_cache;
mod pool;

use cuprum::{s, DType, Device, Error};

cpu_test!(missing_gpu_is_an_error_not_a_panic);
fn missing_gpu_is_an_error_not_a_panic() {
    let n = cuprum::cuda_device_count();
    assert!(matches!(Device::cuda(n + 3), Err(Error::NoDevice(_))));
    assert_eq!("cuda:1".parse::<Device>().unwrap(), Device::Cuda(1));
    assert_eq!(Device::Cuda(0).to_string(), "cuda:0");
    assert!("tpu".parse::<Device>().is_err());
}

device_test!(pooled_host_blocks_are_zeroed_when_asked, |dev| {
    // Large host blocks are reused: zeros must still be zeros, copies must still be exact.
    for _ in 0..3 {
        let mut a = cuprum::empty(&[1 << 20], DType::Float32, &Device::Cpu)?;
        a.fill(7.0)?;
        drop(a);
        let z = cuprum::zeros(&[1 << 20], DType::Float32, &Device::Cpu)?;
        assert_eq!(z.count_nonzero(None)?.item::<i64>()?, 0);
        let g = cuprum::arange_f(0.0, (3 << 20) as f64, 1.0, DType::Float32, &dev)?;
        let h = g.to_device(&Device::Cpu)?;
        assert_eq!(h.slice(s![-1])?.item::<f32>()?, ((3 << 20) - 1) as f32);
        assert!(cuprum::array_equal(&h.to_device(&dev)?, &g)?);
    }
    cuprum::release_cached(Device::Cpu)?;
    Ok(())
});

device_test!(benchmark_reports_the_device_times, |dev| {
    use cuprum::profiler::{benchmark_with, BenchmarkOptions};
    let x = cuprum::ones(&[100_000], cuprum::DType::Float32, &dev)?;
    let r = benchmark_with("sum", dev, &BenchmarkOptions { n_repeat: 4, n_warmup: 1, ..Default::default() }, || {
        x.sum(None)
    })?;
    assert_eq!(r.cpu_times.len(), 4);
    // Every device records its own times (the CPU's from host-clock events), each within
    // the host's wall time of the call.
    assert_eq!(r.gpu_times.len(), 4);
    let t = r.device_times();
    assert_eq!(t, &r.gpu_times[..]);
    if dev.is_cpu() {
        assert!(r.gpu_times.iter().zip(&r.cpu_times).all(|(g, c)| *g >= *c * (1.0 - 1e-6)), "{r:?}");
    }
    let mean = t.iter().sum::<f64>() / 4.0;
    assert!((r.mean() - mean).abs() <= 1e-12 * mean.abs().max(1.0));
    assert_eq!(r.best(), t.iter().copied().fold(f64::INFINITY, f64::min));
    assert!(r.best() > 0.0 && r.best() <= r.median() && r.median().is_finite());
    Ok(())
});
