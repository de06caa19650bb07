//! The GPU radix sort, selection and unique against the CPU backend on fresh random inputs:
//! every dtype, full-range and tie-heavy keys, NaN/inf/-0, sizes around the sort's 4096-key
//! tiles, several lanes along either axis.

mod common;
use common::{assert_close, random, Rng};
use cuprum::dtype::ALL_DTYPES;
use cuprum::{Array, DType, Device, QuantileMethod};

const METHODS: [QuantileMethod; 5] = [
    QuantileMethod::Linear,
    QuantileMethod::Lower,
    QuantileMethod::Higher,
    QuantileMethod::Nearest,
    QuantileMethod::Midpoint,
];

/// Random keys using every bit of the dtype (floats: random signs, magnitudes over many
/// exponents, a few NaN/inf/-0 when `specials`).
fn full_range(n: usize, dt: DType, rng: &mut Rng, specials: bool) -> Array {
    if dt.is_float() {
        let v: Vec<f64> = (0..n)
            .map(|_| {
                let r = rng.uniform();
                if specials && r < 0.03 {
                    [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, -f64::NAN][(r * 200.0) as usize % 6]
                } else {
                    let sign = if rng.uniform() < 0.5 { -1.0 } else { 1.0 };
                    let e = rng.uniform() * 20.0 - 10.0;
                    sign * 2f64.powf(e) * (1.0 + rng.uniform())
                }
            })
            .collect();
        return cuprum::from_slice(&v, &[n], &Device::Cpu).unwrap().astype(dt).unwrap();
    }
    let v: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    let a = cuprum::from_slice(&v, &[n], &Device::Cpu).unwrap();
    a.astype_with(dt, cuprum::Casting::Unsafe).unwrap()
}

fn sizes() -> Vec<usize> {
    vec![1, 2, 31, 4095, 4096, 4097, 3 * 4096 + 17, 100_003]
}

fn check_sorts(gpu: &Device, x: &Array, axis: Option<isize>, what: &str) {
    let xg = x.to_device(gpu).unwrap();
    let s_c = x.sort(axis).unwrap();
    let s_g = xg.sort(axis).unwrap();
    assert_eq!(s_g.device(), *gpu);
    assert_close(&s_g, &s_c, 0.0, &format!("sort {what}"));
    let a_c = x.argsort(axis).unwrap();
    let a_g = xg.argsort(axis).unwrap();
    assert_close(&a_g, &a_c, 0.0, &format!("argsort {what}"));
}

per_dtype!(sort_case: sort_bool => Bool, sort_i8 => Int8, sort_i16 => Int16, sort_i32 => Int32, sort_i64 => Int64,
    sort_u8 => UInt8, sort_u16 => UInt16, sort_u32 => UInt32, sort_u64 => UInt64, sort_f16 => Float16,
    sort_f32 => Float32, sort_f64 => Float64);

fn sort_case(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let mut rng = Rng::new(100 + dt as u64);
    for n in sizes() {
        // Ties everywhere (small ranges) and every bit in use.
        check_sorts(gpu, &random(&[n], dt, &mut rng, true), None, &format!("{dt} ties n={n}"));
        check_sorts(gpu, &full_range(n, dt, &mut rng, true), None, &format!("{dt} full n={n}"));
    }
    // Lanes: along the last axis, along the first, 3-d along the middle, a view.
    let m = full_range(37 * 1001, dt, &mut rng, true).reshape(&[37, 1001])?;
    check_sorts(gpu, &m, Some(1), &format!("{dt} (37,1001) axis 1"));
    check_sorts(gpu, &m, Some(0), &format!("{dt} (37,1001) axis 0"));
    let t = random(&[5, 300, 3], dt, &mut rng, true);
    check_sorts(gpu, &t, Some(1), &format!("{dt} (5,300,3) axis 1"));
    check_sorts(gpu, &t.slice(cuprum::s![..;2, ..;-1, 1..])?, Some(-1), &format!("{dt} view"));
    // More than 256 lanes: two lane digits.
    let many = random(&[300, 20], dt, &mut rng, true);
    check_sorts(gpu, &many, Some(1), &format!("{dt} (300,20) axis 1"));
    // Empty and 0-d.
    check_sorts(gpu, &random(&[0], dt, &mut rng, true), None, &format!("{dt} empty"));
    check_sorts(gpu, &random(&[4, 0], dt, &mut rng, true), Some(0), &format!("{dt} (4,0) axis 0"));
    check_sorts(gpu, &random(&[], dt, &mut rng, true), None, &format!("{dt} 0-d"));
    Ok(())
}

// Millions of keys whose digits are all alike (the counting kernel's per-digit counters fill
// up fastest), 16-byte aligned and not (a view starting one element in), every key width.
gpu_test!(sort_large_with_few_digits, |gpu| {
    let mut rng = Rng::new(8);
    for (n, dt) in
        [(3_000_005, DType::Int32), (2_000_003, DType::UInt8), (2_500_001, DType::Int16), (1_200_007, DType::Float64)]
    {
        let v: Vec<i64> = (0..n).map(|_| (rng.next_u64() % 3) as i64).collect();
        let x = cuprum::from_slice(&v, &[n], &Device::Cpu)?.astype(dt)?;
        check_sorts(&gpu, &x, None, &format!("{dt} n={n} in 0..3"));
        // A view of the device array one element in: its data is not 16-byte aligned.
        let tail = x.slice(cuprum::s![1..])?;
        let tail_g = x.to_device(&gpu)?.slice(cuprum::s![1..])?;
        assert_close(&tail_g.sort(None)?, &tail.sort(None)?, 0.0, &format!("{dt} n={n} unaligned view"));
        assert_close(&tail_g.argsort(None)?, &tail.argsort(None)?, 0.0, &format!("{dt} n={n} unaligned argsort"));
        let same = cuprum::full(&[n], 7.0, dt, &Device::Cpu)?;
        let (c, g) = (same.sort(None)?, same.to_device(&gpu)?.slice(cuprum::s![1..])?.sort(None)?);
        assert_close(&g, &c.slice(cuprum::s![1..])?, 0.0, &format!("{dt} n={n} constant"));
    }
    Ok(())
});

gpu_test!(sort_large_f32_and_i64, |gpu| {
    let mut rng = Rng::new(7);
    for (n, dt) in [(3_000_017, DType::Float32), (1_500_001, DType::Int64), (2_000_000, DType::Float64)] {
        check_sorts(&gpu, &full_range(n, dt, &mut rng, true), None, &format!("{dt} n={n}"));
    }
    Ok(())
});

fn check_quantiles(gpu: &Device, x: &Array, axis: Option<isize>, what: &str) {
    let xg = x.to_device(gpu).unwrap();
    let qs = [0.0, 0.1, 0.25, 0.5, 0.731, 0.9, 1.0];
    let rtol = if x.dtype() == DType::Float16 { 1e-3 } else { 1e-12 };
    for m in METHODS {
        let c = cuprum::quantiles(x, &qs, axis, m);
        let g = cuprum::quantiles(&xg, &qs, axis, m);
        match (c, g) {
            (Ok(c), Ok(g)) => assert_close(&g, &c, rtol, &format!("quantiles {m:?} {what}")),
            (Err(_), Err(_)) => {}
            (c, g) => panic!("{what}: CPU {:?}, GPU {:?}", c.map(|_| ()), g.map(|_| ())),
        }
        let c = cuprum::nanquantile(x, 0.37, axis, m).unwrap();
        let g = cuprum::nanquantile(&xg, 0.37, axis, m).unwrap();
        assert_close(&g, &c, rtol, &format!("nanquantile {m:?} {what}"));
    }
    let c = x.median(axis).unwrap();
    let g = xg.median(axis).unwrap();
    assert_close(&g, &c, rtol, &format!("median {what}"));
}

per_dtype!(quantile_case: quantile_bool => Bool, quantile_i8 => Int8, quantile_i16 => Int16, quantile_i32 => Int32,
    quantile_i64 => Int64, quantile_u8 => UInt8, quantile_u16 => UInt16, quantile_u32 => UInt32,
    quantile_u64 => UInt64, quantile_f16 => Float16, quantile_f32 => Float32, quantile_f64 => Float64);

fn quantile_case(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let mut rng = Rng::new(200 + dt as u64);
    for n in [1, 2, 3, 10, 4097, 100_001] {
        // With NaNs (quantiles give NaN, nanquantiles skip them) and without.
        check_quantiles(gpu, &random(&[n], dt, &mut rng, true), None, &format!("{dt} ties n={n}"));
        check_quantiles(gpu, &random(&[n], dt, &mut rng, false), None, &format!("{dt} no-nan n={n}"));
        if !matches!(dt, DType::Int64 | DType::UInt64) {
            // (the CPU computes 64-bit integer order statistics in float64: compare small ranges)
            check_quantiles(gpu, &full_range(n, dt, &mut rng, false), None, &format!("{dt} full n={n}"));
        }
    }
    let m = random(&[7, 501], dt, &mut rng, true);
    check_quantiles(gpu, &m, Some(1), &format!("{dt} (7,501) axis 1"));
    check_quantiles(gpu, &m, Some(0), &format!("{dt} (7,501) axis 0"));
    if dt.is_float() {
        // All NaN: NaN for both forms; one value among NaNs.
        let nan = cuprum::full(&[1000], f64::NAN, dt, &Device::Cpu)?;
        check_quantiles(gpu, &nan, None, &format!("{dt} all-NaN"));
        let mut one = nan.copy()?;
        one.slice_mut(cuprum::s![500])?.fill(3.0)?;
        check_quantiles(gpu, &one, None, &format!("{dt} one value"));
    }
    // Empty lanes: NaN for median and the nan forms (NumPy's), an IndexError for quantile,
    // on both devices.
    let e = random(&[0, 3], dt, &mut rng, false);
    let eg = e.to_device(gpu)?;
    let fdt = if dt.is_float() { dt } else { DType::Float64 };
    for (x, dev) in [(&e, Device::Cpu), (&eg, *gpu)] {
        for r in [
            x.median(None)?,
            cuprum::nanmedian(x, Some(0))?,
            cuprum::nanquantile(x, 0.3, Some(0), QuantileMethod::Lower)?,
            cuprum::nanpercentile(x, 30.0, None, QuantileMethod::Linear)?,
        ] {
            assert_eq!((r.device(), r.dtype()), (dev, fdt), "{dt} empty");
            assert!(r.to_vec_as::<f64>()?.iter().all(|v| v.is_nan()), "{dt} empty");
        }
        assert_eq!(x.median(Some(0))?.shape(), &[3]);
        assert_eq!(x.median(Some(1))?.shape(), &[0]);
        let err = cuprum::quantile(x, 0.5, Some(0), QuantileMethod::Linear).unwrap_err();
        assert_eq!(err.kind(), cuprum::ErrorKind::IndexError);
    }
    Ok(())
}

gpu_test!(median_of_a_large_sky_like_vector, |gpu| {
    let mut rng = Rng::new(9);
    // 4M float32 around zero with a few bright values: the bench's case, both parities.
    for n in [4 * 1024 * 1024, 4 * 1024 * 1024 - 1] {
        let v: Vec<f32> = (0..n)
            .map(|_| {
                let u = rng.uniform() as f32;
                if u < 0.001 {
                    u * 2000.0
                } else {
                    (u - 0.5) * 0.03
                }
            })
            .collect();
        let x = cuprum::from_slice(&v, &[n], &Device::Cpu)?;
        let c = x.median(None)?;
        let g = x.to_device(&gpu)?.median(None)?;
        assert_close(&g, &c, 0.0, &format!("median n={n}"));
        let c = cuprum::percentile(&x, 99.0, None, QuantileMethod::Linear)?;
        let g = cuprum::percentile(&x.to_device(&gpu)?, 99.0, None, QuantileMethod::Linear)?;
        assert_close(&g, &c, 0.0, &format!("percentile 99 n={n}"));
    }
    Ok(())
});

fn check_unique(gpu: &Device, x: &Array, what: &str) {
    let xg = x.to_device(gpu).unwrap();
    let c = cuprum::unique(x, true, true, true).unwrap();
    let g = cuprum::unique(&xg, true, true, true).unwrap();
    assert_close(&g.values, &c.values, 0.0, &format!("unique values {what}"));
    for (name, gg, cc) in
        [("index", &g.index, &c.index), ("inverse", &g.inverse, &c.inverse), ("counts", &g.counts, &c.counts)]
    {
        assert_close(gg.as_ref().unwrap(), cc.as_ref().unwrap(), 0.0, &format!("unique {name} {what}"));
    }
    let plain = cuprum::unique(&xg, false, false, false).unwrap();
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

// median is the mean of the middle element(s), as NumPy's (values from NumPy 2): float32
// data average in float32 (so two large values overflow), infinities are kept, and one middle
// element is returned as it is. Both devices, one lane (radix select) and along an axis.
device_test!(median_averages_the_middle_elements, |dev| {
    let med = |v: &[f64], dt: DType| -> cuprum::Result<f64> {
        let x = cuprum::from_slice(v, &[v.len()], &Device::Cpu)?.astype(dt)?.to_device(&dev)?;
        x.median(None)?.astype(DType::Float64)?.item::<f64>()
    };
    let inf = f64::INFINITY;
    assert_eq!(med(&[2.0, inf], DType::Float32)?, inf);
    assert_eq!(med(&[2.0, inf, 1.0, 7.0], DType::Float64)?, 4.5);
    assert_eq!(med(&[3e38, 3.2e38], DType::Float32)?, inf);
    assert_eq!(med(&[3e38], DType::Float32)?, 3e38f32 as f64);
    assert_eq!(med(&[60000.0, 65000.0], DType::Float16)?, 62496.0);
    assert_eq!(med(&[60000.0, 65000.0, 1.0], DType::Float16)?, 60000.0);
    assert!(med(&[-inf, inf], DType::Float64)?.is_nan());
    let big = cuprum::from_vec(vec![(1i64 << 62) + 1, (1i64 << 62) + 3], &Device::Cpu)?.to_device(&dev)?;
    assert_eq!(big.median(None)?.item::<f64>()?, 4.611686018427388e18);
    let x = cuprum::from_slice(&[f64::NAN, 2.0, inf], &[3], &Device::Cpu)?.to_device(&dev)?;
    assert_eq!(cuprum::nanmedian(&x, None)?.item::<f64>()?, inf);
    let m = cuprum::from_slice(&[2.0f32, f32::INFINITY, 1.0, 3.0], &[2, 2], &Device::Cpu)?.to_device(&dev)?;
    let r = m.median(Some(1))?;
    assert_eq!(r.dtype(), DType::Float32);
    assert_eq!(r.to_vec::<f32>()?, vec![f32::INFINITY, 2.0]);
    Ok(())
});
