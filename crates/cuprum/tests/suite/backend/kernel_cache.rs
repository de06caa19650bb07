//! Kernels compiled once are found on disk by a new process (no NVRTC call). The test runs in
//! a process of its own (`isolated_gpu_test!`) so that `CUPRUM_CACHE_DIR` can be set before
//! the first compilation.

use crate::common;
use cuprum::{DType, Device};

fn new_kernel_op(gpu: &Device) -> cuprum::Result<f32> {
    // sin(cos(x)) on float16: a kernel family nothing else in this process uses.
    let x = cuprum::linspace(0.0, 1.0, 1000, DType::Float16, gpu)?;
    x.cos()?.sin()?.astype(DType::Float32)?.sum(None)?.item::<f32>()
}

isolated_gpu_test!(disk_cache_serves_a_new_process);
fn disk_cache_serves_a_new_process() {
    if std::env::var_os("CUPRUM_CACHE_CHILD").is_some() {
        // The child: same kernels, fresh process, cache filled by the parent.
        let gpu = Device::cuda(0).unwrap();
        let before = cuprum::cuda::nvrtc_compiles();
        new_kernel_op(&gpu).unwrap();
        assert_eq!(cuprum::cuda::nvrtc_compiles(), before, "the child compiled although the disk cache was filled");
        return;
    }
    let dir = std::env::temp_dir().join(format!("cuprum-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("CUPRUM_CACHE_DIR", &dir);
    let Some(gpu) = common::gpu_or_skip("disk_cache_serves_a_new_process") else { return };
    let t = std::time::Instant::now();
    let v = new_kernel_op(&gpu).unwrap();
    println!(
        "first call with an empty cache: {:.1} ms, {} NVRTC compiles",
        t.elapsed().as_secs_f64() * 1e3,
        cuprum::cuda::nvrtc_compiles()
    );
    assert!(cuprum::cuda::nvrtc_compiles() > 0);
    let want: f32 = (0..1000).map(|i| ((i as f64 / 999.0) as f32).cos().sin()).sum();
    assert!((v - want).abs() < 0.5, "{v} vs {want}");
    let files = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "cubin"))
        .count();
    assert!(files > 0, "no .cubin written to {}", dir.display());
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "backend::kernel_cache::disk_cache_serves_a_new_process", "--nocapture"])
        .env("CUPRUM_CACHE_CHILD", "1")
        .env("CUPRUM_CACHE_DIR", &dir)
        .status()
        .unwrap();
    assert!(status.success(), "child process failed");
    let _ = std::fs::remove_dir_all(&dir);
}
