//! Sorting and order statistics on every device, against values NumPy printed.

mod common;
use cuprum::{Bins, DType, QuantileMethod, Side};

fn f64s(a: &cuprum::Array) -> Vec<f64> {
    a.to_vec_as::<f64>().unwrap()
}
fn ints(a: &cuprum::Array) -> Vec<i64> {
    a.to_vec_as::<i64>().unwrap()
}

device_test!(sort_argsort_nan_last_stable, |dev| {
    let a = cuprum::from_vec(vec![3.0, f64::NAN, 1.0, 2.0, 1.0], &dev)?;
    let s = a.sort(None)?;
    assert_eq!(&f64s(&s)[..4], &[1.0, 1.0, 2.0, 3.0]);
    assert!(f64s(&s)[4].is_nan());
    assert_eq!(ints(&a.argsort(None)?), vec![2, 4, 3, 0, 1]);
    let m = cuprum::from_slice(&[3i32, 1, 2, 9, 7, 8], &[2, 3], &dev)?;
    assert_eq!(ints(&m.sort(Some(-1))?), vec![1, 2, 3, 7, 8, 9]);
    assert_eq!(ints(&m.sort(Some(0))?), vec![3, 1, 2, 9, 7, 8]);
    assert_eq!(m.sort(Some(0))?.dtype(), DType::Int32);
    assert_eq!(ints(&m.argsort(Some(1))?), vec![1, 2, 0, 1, 2, 0]);
    let u = cuprum::from_vec(vec![u64::MAX, 0, 1 << 60], &dev)?;
    assert_eq!(u.sort(None)?.to_vec::<u64>()?, vec![0, 1 << 60, u64::MAX]);
    Ok(())
});

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
        let r = cuprum::quantiles(&x, &qs, None, m)?;
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
    assert_eq!(cuprum::percentile(&x, 40.0, None, QuantileMethod::Linear)?.item::<f64>()?, 2.6);
    let m = cuprum::arange_f(0.0, 12.0, 1.0, DType::Float64, &dev)?.reshape(&[3, 4])?;
    assert_eq!(f64s(&m.median(Some(0))?), vec![4.0, 5.0, 6.0, 7.0]);
    assert_eq!(f64s(&m.median(Some(1))?), vec![1.5, 5.5, 9.5]);
    assert!(cuprum::quantile(&x, 1.5, None, QuantileMethod::Linear).is_err());
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
    let m0 = f.median(Some(0))?;
    assert_eq!((m0.dtype(), m0.shape()), (DType::Float32, &[3usize][..]));
    assert!(m0.to_vec::<f32>()?.iter().all(|v| v.is_nan()));
    assert_eq!(f.median(Some(1))?.shape(), &[0]);
    let h = cuprum::nanmedian(&cuprum::zeros(&[3, 0], DType::Float16, &dev)?, Some(1))?;
    assert_eq!((h.dtype(), h.shape()), (DType::Float16, &[3usize][..]));
    assert!(h.to_vec::<cuprum::f16>()?.iter().all(|v| v.is_nan()));
    // np.nanquantile(np.zeros(0, np.int64), 0.5, method="nearest") -> nan (float64)
    let i = cuprum::zeros(&[0], DType::Int64, &dev)?;
    let q = cuprum::nanquantile(&i, 0.5, None, QuantileMethod::Nearest)?;
    assert_eq!(q.dtype(), DType::Float64);
    assert!(q.item::<f64>()?.is_nan());
    assert!(cuprum::nanpercentile(&f, 50.0, None, QuantileMethod::Linear)?.item::<f32>()?.is_nan());
    for r in [
        cuprum::quantile(&e, 0.5, None, QuantileMethod::Linear),
        cuprum::percentile(&f, 50.0, Some(0), QuantileMethod::Lower),
        cuprum::quantiles(&e, &[0.2, 0.5], None, QuantileMethod::Linear),
    ] {
        assert_eq!(r.unwrap_err().kind(), ErrorKind::IndexError);
    }
    Ok(())
});

device_test!(unique_search_histogram, |dev| {
    let a = cuprum::from_vec(vec![3i64, 1, 2, 3, 1], &dev)?;
    let u = cuprum::unique(&a, true, true, true)?;
    assert_eq!(ints(&u.values), vec![1, 2, 3]);
    assert_eq!(ints(&u.index.unwrap()), vec![1, 2, 0]);
    assert_eq!(ints(&u.inverse.unwrap()), vec![2, 0, 1, 2, 0]);
    assert_eq!(ints(&u.counts.unwrap()), vec![2, 1, 2]);
    let un = cuprum::unique(&cuprum::from_vec(vec![1.0, f64::NAN, f64::NAN, 0.0], &dev)?, false, false, false)?;
    assert_eq!(un.values.size(), 3);
    let s = cuprum::from_vec(vec![1.0, 2.0, 2.0, 3.0], &dev)?;
    let v = cuprum::from_vec(vec![2.0, 0.0, 5.0, 2.5], &dev)?;
    assert_eq!(ints(&cuprum::searchsorted(&s, &v, Side::Left)?), vec![1, 0, 4, 3]);
    assert_eq!(ints(&cuprum::searchsorted(&s, &v, Side::Right)?), vec![3, 0, 4, 3]);
    let d = cuprum::from_vec(vec![1.0, 2.0, 2.0, 3.0, 9.0], &dev)?;
    let (h, e) = cuprum::histogram(&d, Bins::Count(4), None, None, false)?;
    assert_eq!(ints(&h), vec![3, 1, 0, 1]);
    assert_eq!(f64s(&e), vec![1.0, 3.0, 5.0, 7.0, 9.0]);
    let (hd, _) = cuprum::histogram(&d, Bins::Edges(vec![0.0, 2.0, 5.0, 10.0]), None, None, true)?;
    for (g, w) in f64s(&hd).iter().zip([0.1, 0.2, 0.04]) {
        assert!((g - w).abs() < 1e-12);
    }
    let x = cuprum::from_vec(vec![0.5, 1.0, 2.5, 4.0], &dev)?;
    let bins = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?;
    assert_eq!(ints(&cuprum::digitize(&x, &bins, false)?), vec![0, 1, 2, 3]);
    assert_eq!(ints(&cuprum::digitize(&x, &bins, true)?), vec![0, 0, 2, 3]);
    let bc = cuprum::from_vec(vec![0i64, 1, 1, 3], &dev)?;
    assert_eq!(ints(&cuprum::bincount(&bc, None, 0)?), vec![1, 2, 0, 1]);
    let w = cuprum::from_vec(vec![0.5, 1.0, 1.0, 2.0], &dev)?;
    assert_eq!(f64s(&cuprum::bincount(&bc, Some(&w), 6)?), vec![0.5, 2.0, 0.0, 2.0, 0.0, 0.0]);
    assert!(cuprum::bincount(&cuprum::from_vec(vec![-1i64], &dev)?, None, 0).is_err());
    let isin = cuprum::isin(&cuprum::arange(6, &dev)?, &cuprum::from_vec(vec![4i64, 1, 9], &dev)?)?;
    assert_eq!(isin.to_vec::<bool>()?, vec![false, true, false, false, true, false]);
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
        let std = flat.std(None, 0.0)?.item::<f64>()?;
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

#[test]
fn bincount_of_a_huge_value_is_an_error() {
    let x = cuprum::from_vec(vec![1i64 << 62], &cuprum::Device::Cpu).unwrap();
    assert!(cuprum::bincount(&x, None, 0).is_err());
}
