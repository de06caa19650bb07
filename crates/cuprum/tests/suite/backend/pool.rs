//! The device memory pool. Runs in a process of its own (`isolated_gpu_test!`), so that no
//! other test allocates meanwhile.

use crate::common;
use cuprum::{DType, Error};

isolated_gpu_test!(gpu_pool_reuses_and_releases);
fn gpu_pool_reuses_and_releases() {
    let Some(gpu) = common::gpu_or_skip("gpu_pool_reuses_and_releases") else { return };
    let before = cuprum::pool_stats(gpu).unwrap();
    {
        let _a = cuprum::zeros(&[1 << 20], DType::Float32, &gpu).unwrap();
        let during = cuprum::pool_stats(gpu).unwrap();
        assert!(during.in_use >= before.in_use + (4 << 20));
        assert!(during.held >= during.in_use);
    }
    let after = cuprum::pool_stats(gpu).unwrap();
    assert_eq!(after.in_use, before.in_use);
    // The freed block is reused: no new memory is taken for an equal allocation.
    let _b = cuprum::zeros(&[1 << 20], DType::Float32, &gpu).unwrap();
    assert_eq!(cuprum::pool_stats(gpu).unwrap().held, after.held);
    drop(_b);
    cuprum::release_cached(gpu).unwrap();
    let released = cuprum::pool_stats(gpu).unwrap();
    assert_eq!(released.held, released.in_use);
    // More than the GPU has: OutOfMemory after the pool released its cache.
    match cuprum::empty(&[1 << 45], DType::UInt8, &gpu) {
        Err(Error::OutOfMemory { device, .. }) => assert_eq!(device, gpu),
        other => panic!("expected OutOfMemory, got {:?}", other.map(|_| ())),
    }
}

cpu_test!(reused_host_blocks_are_zeroed_when_asked);
/// Host blocks are pooled from 4 KiB on (small ones by powers of two): a block that comes back
/// from the pool holds its old contents, so `zeros` must clear it, for every size class.
fn reused_host_blocks_are_zeroed_when_asked() {
    let cpu = cuprum::Device::Cpu;
    for n in [100usize, 600, 10_000, 70_000, 300_000] {
        for _ in 0..3 {
            let a = cuprum::full(&[n], 7.5, DType::Float64, &cpu).unwrap();
            drop(a);
            let z = cuprum::zeros(&[n], DType::Float64, &cpu).unwrap();
            assert!(z.to_vec::<f64>().unwrap().iter().all(|&v| v == 0.0), "n={n}");
            // A reused block read back through a new array of another size class.
            let b = cuprum::arange_with(0, n as i64, 1, DType::Float64, &cpu).unwrap();
            assert_eq!(b.to_vec::<f64>().unwrap()[n - 1], (n - 1) as f64);
        }
    }
}
