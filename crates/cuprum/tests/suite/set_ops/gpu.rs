//! The GPU unique and isin against the CPU backend on fresh random inputs: every dtype, NaNs,
//! 2-d inputs, full-range floats; isin with large gathers (also with the CPU standing in for
//! the GPU).

use crate::common::{assert_close, on, random, Rng};
use crate::indexing::gpu::{indices, same};
use crate::sort::gpu::full_range;
use cuprum::dtype::ALL_DTYPES;
use cuprum::{Array, DType, Device};

fn check_unique(gpu: &Device, x: &Array, what: &str) {
    let xg = x.to_device(gpu).unwrap();
    let c = cuprum::unique_with(
        x,
        &cuprum::UniqueOptions { return_index: true, return_inverse: true, return_counts: true },
    )
    .unwrap();
    let g = cuprum::unique_with(
        &xg,
        &cuprum::UniqueOptions { return_index: true, return_inverse: true, return_counts: true },
    )
    .unwrap();
    assert_close(&g.values, &c.values, 0.0, &format!("unique values {what}"));
    for (name, gg, cc) in
        [("index", &g.index, &c.index), ("inverse", &g.inverse, &c.inverse), ("counts", &g.counts, &c.counts)]
    {
        assert_close(gg.as_ref().unwrap(), cc.as_ref().unwrap(), 0.0, &format!("unique {name} {what}"));
    }
    let plain = cuprum::unique_with(&xg, &cuprum::UniqueOptions::default()).unwrap();
    assert_close(&plain.values, &c.values, 0.0, &format!("unique (values only) {what}"));
    assert!(plain.index.is_none() && plain.inverse.is_none() && plain.counts.is_none());
}

gpu_test!(unique_every_dtype, |gpu| {
    let mut rng = Rng::new(300);
    for &dt in ALL_DTYPES.iter() {
        for n in [0, 1, 5, 4097, 50_000] {
            check_unique(&gpu, &random(&[n], dt, &mut rng, true), &format!("{dt} n={n}"));
        }
        check_unique(&gpu, &random(&[30, 40], dt, &mut rng, true), &format!("{dt} 2-d"));
    }
    check_unique(&gpu, &full_range(200_000, DType::Float32, &mut rng, true), "f32 full range");
    Ok(())
});

gpu_test!(isin_uses_the_gpu_unique, |gpu| {
    let mut rng = Rng::new(301);
    let a = random(&[1000], DType::Int32, &mut rng, false);
    let t = random(&[37], DType::Int32, &mut rng, false);
    let c = cuprum::isin(&a, &t)?;
    let g = cuprum::isin(&a.to_device(&gpu)?, &t.to_device(&gpu)?)?;
    assert_close(&g, &c, 0.0, "isin");
    Ok(())
});

cases! {
    isin_and_large_gathers => isin_case,
}

fn isin_case(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(110);
    for &dt in ALL_DTYPES.iter() {
        let e = random(&[5, 8], dt, &mut rng, true);
        let t = random(&[20], dt, &mut rng, true);
        same(dev, &format!("isin({dt})"), 0.0, cuprum::isin(&e, &t), cuprum::isin(&on(dev, &e), &on(dev, &t)));
    }
    // A large gather (many blocks) and a large take along an inner axis.
    let a = random(&[300_000], DType::Float32, &mut rng, false);
    let i = indices(&[500_000], 300_000, DType::Int64, &mut rng);
    same(dev, "large gather", 0.0, cuprum::gather(&a, &[&i]), cuprum::gather(&on(dev, &a), &[&on(dev, &i)]));
    let m = random(&[64, 1000, 3], DType::Int16, &mut rng, false);
    let j = indices(&[2000], 1000, DType::Int32, &mut rng);
    same(dev, "large take axis 1", 0.0, m.take(&j, 1), on(dev, &m).take(&on(dev, &j), 1));
    Ok(())
}
