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
