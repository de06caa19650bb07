//! Order statistics and counting on every device, against values NumPy printed: quantiles,
//! medians, the lesson's kappa-sigma clipping, bincount; `gpu`: the GPU selection, bincount
//! and histogram against the CPU on seeded random inputs.

mod gpu;

use cuprum::{DType, Device, QuantileMethod};

fn f64s(a: &cuprum::Array) -> Vec<f64> {
    a.to_vec_as::<f64>().unwrap()
}

device_test!(quantiles_like_numpy, |dev| {
    let x = cuprum::from_vec(vec![1i32, 2, 3, 4, 10], &dev)?;
    let qs = [0.0, 0.25, 0.40, 0.50, 0.90, 1.0];
    let want: [(QuantileMethod, [f64; 6], DType); 5] = [
        (QuantileMethod::Linear, [1.0, 2.0, 2.6, 3.0, 7.6, 10.0], DType::Float64),
        (QuantileMethod::Lower, [1.0, 2.0, 2.0, 3.0, 4.0, 10.0], DType::Int32),
        (QuantileMethod::Higher, [1.0, 2.0, 3.0, 3.0, 10.0, 10.0], DType::Int32),
        (QuantileMethod::Nearest, [1.0, 2.0, 3.0, 3.0, 10.0, 10.0], DType::Int32),
        (QuantileMethod::Midpoint, [1.0, 2.0, 2.5, 3.0, 7.0, 10.0], DType::Float64),
    ];
    for (m, w, dt) in want {
        let r = cuprum::quantiles_with(&x, &qs, None, &cuprum::QuantileOptions { method: m, ..Default::default() })?;
        assert_eq!(r.dtype(), dt, "{m:?}");
        for (g, e) in f64s(&r).iter().zip(w) {
            assert!((g - e).abs() < 1e-12, "{m:?}: {g} vs {e}");
        }
    }
    let f = cuprum::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &dev)?;
    assert_eq!(f.median(None)?.dtype(), DType::Float32);
    assert_eq!(f.median(None)?.item::<f32>()?, 2.5);
    assert_eq!(cuprum::median(&cuprum::from_vec(vec![1i8, 2, 3, 4], &dev)?, None)?.item::<f64>()?, 2.5);
    let n = cuprum::from_vec(vec![3.0, f64::NAN, 1.0, 2.0, 1.0], &dev)?;
    assert!(n.median(None)?.item::<f64>()?.is_nan());
    assert_eq!(cuprum::nanmedian(&n, None)?.item::<f64>()?, 1.5);
    assert_eq!(cuprum::percentile(&x, 40.0, None)?.item::<f64>()?, 2.6);
    let m = cuprum::arange_f(0.0, 12.0, 1.0, DType::Float64, &dev)?.reshape([3, 4])?;
    assert_eq!(f64s(&m.median(0)?), vec![4.0, 5.0, 6.0, 7.0]);
    assert_eq!(f64s(&m.median(1)?), vec![1.5, 5.5, 9.5]);
    assert!(cuprum::quantile(&x, 1.5, None).is_err());
    Ok(())
});

device_test!(quantile_keepdims_as_numpy, |dev| {
    use cuprum::QuantileOptions;
    // a = np.arange(24.).reshape(2, 3, 4)
    let a = cuprum::arange(24, &dev)?.astype(DType::Float64)?.reshape([2, 3, 4])?;
    let keep = QuantileOptions { keepdims: true, ..Default::default() };
    // np.quantile(a, 0.5, axis=1, keepdims=True).shape == (2, 1, 4), values [[[4,5,6,7]], [[16,17,18,19]]]
    let q = cuprum::quantile_with(&a, 0.5, 1, &keep)?;
    assert_eq!(q.shape(), &[2, 1, 4]);
    assert_eq!(f64s(&q), [4.0, 5.0, 6.0, 7.0, 16.0, 17.0, 18.0, 19.0]);
    // axis=None: (1, 1, 1); axis=(0, 2): (1, 3, 1); several q: (2, 1, 3, 1)
    assert_eq!(cuprum::percentile_with(&a, 50.0, None, &keep)?.shape(), &[1, 1, 1]);
    let q = cuprum::nanquantile_with(&a, 0.25, [0, 2], &keep)?;
    assert_eq!(q.shape(), &[1, 3, 1]);
    assert_eq!(f64s(&q), f64s(&cuprum::nanquantile(&a, 0.25, [0, 2])?));
    let q = cuprum::quantiles_with(&a, &[0.25, 0.75], [-1], &keep)?;
    assert_eq!(q.shape(), &[2, 2, 3, 1]);
    assert_eq!(f64s(&q), f64s(&cuprum::quantiles(&a, &[0.25, 0.75], -1)?));
    // np.nanpercentile(a, 10, axis=-3, keepdims=True, method="higher")
    let opts = QuantileOptions { method: QuantileMethod::Higher, keepdims: true };
    let q = cuprum::nanpercentile_with(&a, 10.0, -3, &opts)?;
    assert_eq!(q.shape(), &[1, 3, 4]);
    assert_eq!(f64s(&q)[..4], [12.0, 13.0, 14.0, 15.0]);
    // A bad axis is still NumPy's AxisError with keepdims.
    assert_eq!(cuprum::quantile_with(&a, 0.5, 3, &keep).unwrap_err().kind(), cuprum::ErrorKind::AxisError);
    Ok(())
});

device_test!(kappa_sigma_clip_as_in_the_lesson, |dev| {
    // Background noise with a few bright sources, clipped as lesson 001 does.
    let n = 20_000usize;
    let mut v: Vec<f32> = (0..n).map(|i| (((i * 7919) % 1000) as f32 / 1000.0 - 0.5) * 0.1).collect();
    for k in 0..40 {
        v[k * 487] = 5.0 + k as f32;
    }
    let mut flat = cuprum::from_vec(v.clone(), &dev)?;
    loop {
        let med = flat.median(None)?.item::<f64>()?;
        let std = flat.std(None)?.item::<f64>()?;
        let lower = flat.mask(&flat.greater(med - 3.0 * std)?)?;
        let both = lower.mask(&lower.less(med + 3.0 * std)?)?;
        if both.size() == flat.size() {
            break;
        }
        flat = both;
    }
    // The same loop on plain Rust values.
    let mut w: Vec<f64> = v.iter().map(|&x| x as f64).collect();
    loop {
        let mut s = w.clone();
        s.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let m = s.len();
        let med = if m % 2 == 1 { s[m / 2] } else { (s[m / 2 - 1] + s[m / 2]) / 2.0 };
        let mean = w.iter().sum::<f64>() / m as f64;
        let std = (w.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / m as f64).sqrt();
        let kept: Vec<f64> = w.iter().copied().filter(|&x| x > med - 3.0 * std && x < med + 3.0 * std).collect();
        if kept.len() == w.len() {
            break;
        }
        w = kept;
    }
    assert_eq!(flat.size(), w.len());
    assert!(flat.max(None)?.item::<f32>()? < 1.0);
    Ok(())
});

cpu_test!(bincount_of_a_huge_value_is_an_error);
fn bincount_of_a_huge_value_is_an_error() {
    let x = cuprum::from_vec(vec![1i64 << 62], &cuprum::Device::Cpu).unwrap();
    assert!(cuprum::bincount(&x).is_err());
}

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
    let r = m.median(1)?;
    assert_eq!(r.dtype(), DType::Float32);
    assert_eq!(r.to_vec::<f32>()?, vec![f32::INFINITY, 2.0]);
    Ok(())
});

// Medians of empty arrays are NaN as in NumPy (np.median(np.zeros(0)) -> nan, float64;
// np.median(np.zeros((0, 3), np.float32), axis=0) -> [nan, nan, nan] float32; axis=1 -> []),
// like means; quantile and percentile of them raise IndexError in NumPy, and here.
device_test!(quantiles_of_empty_lanes, |dev| {
    use cuprum::ErrorKind;
    let e = cuprum::zeros(&[0], DType::Int32, &dev)?;
    let m = e.median(None)?;
    assert_eq!((m.dtype(), m.shape()), (DType::Float64, &[][..]));
    assert!(m.item::<f64>()?.is_nan());
    assert!(e.mean(None)?.item::<f64>()?.is_nan());
    let f = cuprum::zeros(&[0, 3], DType::Float32, &dev)?;
    let m0 = f.median(0)?;
    assert_eq!((m0.dtype(), m0.shape()), (DType::Float32, &[3usize][..]));
    assert!(m0.to_vec::<f32>()?.iter().all(|v| v.is_nan()));
    assert_eq!(f.median(1)?.shape(), &[0]);
    let h = cuprum::nanmedian(&cuprum::zeros(&[3, 0], DType::Float16, &dev)?, 1)?;
    assert_eq!((h.dtype(), h.shape()), (DType::Float16, &[3usize][..]));
    assert!(h.to_vec::<cuprum::f16>()?.iter().all(|v| v.is_nan()));
    // np.nanquantile(np.zeros(0, np.int64), 0.5, method="nearest") -> nan (float64)
    let i = cuprum::zeros(&[0], DType::Int64, &dev)?;
    let q = cuprum::nanquantile_with(
        &i,
        0.5,
        None,
        &cuprum::QuantileOptions { method: QuantileMethod::Nearest, ..Default::default() },
    )?;
    assert_eq!(q.dtype(), DType::Float64);
    assert!(q.item::<f64>()?.is_nan());
    assert!(cuprum::nanpercentile(&f, 50.0, None)?.item::<f32>()?.is_nan());
    for r in [
        cuprum::quantile(&e, 0.5, None),
        cuprum::percentile_with(
            &f,
            50.0,
            0,
            &cuprum::QuantileOptions { method: QuantileMethod::Lower, ..Default::default() },
        ),
        cuprum::quantiles(&e, &[0.2, 0.5], None),
    ] {
        assert_eq!(r.unwrap_err().kind(), ErrorKind::IndexError);
    }
    Ok(())
});
