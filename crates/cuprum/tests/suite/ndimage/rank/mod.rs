//! `scipy.ndimage`'s rank filters and grey morphology on every device, against values SciPy
//! printed (median, rank and percentile filters with sizes, footprints, origins, modes and
//! axes; min/max filters separable and not; grey erosion and dilation flat and non-flat),
//! SciPy's answers where a window holds a NaN, and SciPy's errors with their kinds; `gpu`: the GPU
//! against the CPU on seeded random inputs.

mod gpu;

use cuprum::scipy::ndimage::{
    grey_dilation_with, grey_erosion_with, maximum_filter1d_with, maximum_filter_with, median_filter_with,
    minimum_filter1d_with, minimum_filter_with, percentile_filter_with, rank_filter_with, GreyWindow, Mode,
    RankOptions, Window,
};
use cuprum::{Array, DType, Device, ErrorKind};

fn x45(dev: &Device) -> Array {
    let v = [3., 1., 4., 1., 5., 9., 2., 6., 5., 3., 5., 8., 9., 7., 9., 3., 2., 3., 8., 4.];
    cuprum::from_slice(&v, &[4, 5], dev).unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.to_vec_as::<f64>().unwrap()
}

fn flat(rows: &[[f64; 5]; 4]) -> Vec<f64> {
    rows.iter().flatten().copied().collect()
}

fn kind<T>(r: cuprum::Result<T>) -> ErrorKind {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.kind(),
    }
}

fn opts(mode: Mode, cval: f64) -> RankOptions {
    RankOptions { mode, cval, ..Default::default() }
}

device_test!(scipy_values, |dev| {
    let x = x45(&dev);
    let d = RankOptions::default();
    let m = median_filter_with(&x, Window::Size(&[3]), &d)?;
    assert_eq!(m.device(), dev);
    assert_eq!(
        f64s(&m),
        flat(&[[3., 3., 2., 4., 5.], [5., 5., 5., 5., 5.], [5., 5., 6., 6., 5.], [3., 3., 7., 7., 7.]])
    );
    let m = median_filter_with(&x, Window::Size(&[3]), &opts(Mode::Constant, 10.0))?;
    assert_eq!(
        f64s(&m),
        flat(&[[10., 6., 5., 5., 10.], [8., 5., 5., 5., 7.], [8., 5., 6., 6., 8.], [10., 8., 8., 9., 10.]])
    );
    let fp = cuprum::from_slice(&[1i32, 0, 1, 0, 1, 0], &[2, 3], &dev)?;
    let r = rank_filter_with(&x, 1, Window::Footprint(&fp), &opts(Mode::Wrap, 0.0))?;
    assert_eq!(
        f64s(&r),
        flat(&[[3., 3., 4., 3., 5.], [5., 3., 1., 5., 3.], [3., 8., 5., 6., 9.], [8., 5., 7., 9., 5.]])
    );
    let o = RankOptions { mode: Mode::Mirror, origin: vec![-1, 1], ..Default::default() };
    let p = percentile_filter_with(&x, 75.0, Window::Size(&[2, 3]), &o)?;
    assert_eq!(
        f64s(&p),
        flat(&[[6., 3., 6., 5., 5.], [9., 8., 9., 8., 9.], [8., 8., 8., 8., 9.], [8., 8., 8., 8., 9.]])
    );
    let mn = minimum_filter_with(&x, Window::Size(&[2, 3]), &opts(Mode::Nearest, 0.0))?;
    assert_eq!(
        f64s(&mn),
        flat(&[[1., 1., 1., 1., 1.], [1., 1., 1., 1., 1.], [2., 2., 2., 3., 3.], [2., 2., 2., 3., 4.]])
    );
    let cross = cuprum::scipy::ndimage::generate_binary_structure(2, 1)?.to_device(&dev)?;
    let mx = maximum_filter_with(&x, Window::Footprint(&cross), &d)?;
    assert_eq!(
        f64s(&mx),
        flat(&[[9., 4., 6., 5., 5.], [9., 9., 9., 7., 9.], [9., 9., 9., 9., 9.], [5., 8., 9., 8., 9.]])
    );
    let gd = grey_dilation_with(&x, GreyWindow { size: Some(&[2, 2]), ..Default::default() }, &d)?;
    assert_eq!(
        f64s(&gd),
        flat(&[[9., 6., 6., 5., 5.], [9., 9., 9., 9., 9.], [8., 9., 9., 9., 9.], [3., 3., 8., 8., 4.]])
    );
    // Non-flat erosion of uint8: SciPy's arithmetic (1 - 2 = -1 comes out as 255 nowhere here).
    let st = cuprum::from_slice(&[0.0, 1.0, 2.0, 0.0], &[2, 2], &dev)?;
    let ge =
        grey_erosion_with(&x.astype(DType::UInt8)?, GreyWindow { structure: Some(&st), ..Default::default() }, &d)?;
    assert_eq!(ge.dtype(), DType::UInt8);
    assert_eq!(ge.to_vec::<u8>()?, vec![1, 0, 1, 0, 1, 2, 0, 0, 0, 1, 3, 1, 2, 4, 2, 1, 1, 0, 1, 4]);
    let ax = RankOptions { axes: Some(vec![1]), ..Default::default() };
    let m1 = median_filter_with(&x, Window::Size(&[3]), &ax)?;
    assert_eq!(
        f64s(&m1),
        flat(&[[3., 3., 1., 4., 5.], [9., 6., 5., 5., 3.], [5., 8., 8., 9., 9.], [3., 3., 3., 4., 4.]])
    );
    let v = cuprum::from_vec(vec![1i64, 5, 2, 8, 3, 7], &dev)?;
    let o = RankOptions { origin: vec![-2], ..Default::default() };
    assert_eq!(maximum_filter1d_with(&v, 4, 0, &o)?.to_vec::<i64>()?, vec![8, 8, 8, 8, 7, 8]);
    assert_eq!(minimum_filter1d_with(&v, 1, -1, &d)?.to_vec::<i64>()?, vec![1, 5, 2, 8, 3, 7]);
    Ok(())
});

/// `a` equals `b`, NaN equal to NaN.
fn nan_eq(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
}

// Where a window holds a NaN, SciPy's answers (printed by SciPy 1.17), which depend on its
// algorithm: the 1-d heap (the example, and a NaN that still steers the heap after it
// left the window), the N-d quickselect, Harter's deque of the separable min/max, the running
// comparison of a footprint and of grey morphology, a NaN cval.
device_test!(nan_as_scipy, |dev| {
    let nan = f64::NAN;
    let d = RankOptions::default();
    let check = |what: &str, got: Array, want: &[f64]| {
        let g = f64s(&got);
        assert!(nan_eq(&g, want), "{what}: {g:?}, SciPy {want:?}");
    };
    let a = cuprum::from_vec(vec![1.0f32, f32::NAN, 3.0], &dev)?;
    let w3 = Window::Size(&[3]);
    check("median 1-d", median_filter_with(&a, w3, &d)?, &[1.0, 1.0, 3.0]);
    check("median 2-d", median_filter_with(&a.reshape([1, 3])?, Window::Size(&[1, 3]), &d)?, &[nan, 1.0, 3.0]);
    check("minimum", minimum_filter_with(&a, w3, &d)?, &[1.0, 1.0, nan]);
    check("maximum", maximum_filter_with(&a, w3, &d)?, &[1.0, 3.0, 3.0]);
    let b = cuprum::from_vec(vec![5.0, 4.0, nan, 3.0, 2.0, 1.0, 0.0, 9.0, 8.0, 7.0], &dev)?;
    check("median heap", median_filter_with(&b, w3, &d)?, &[5.0, 5.0, 4.0, 3.0, 2.0, 1.0, 1.0, 8.0, 8.0, 7.0]);
    check(
        "median nan cval",
        median_filter_with(&b, Window::Size(&[5]), &opts(Mode::Constant, nan))?,
        &[nan, nan, 3.0, 2.0, 1.0, 2.0, 2.0, 7.0, 7.0, 7.0],
    );
    let c = cuprum::from_vec(vec![nan, 1.0, 2.0, -0.0, 0.0, 3.0], &dev)?;
    let fp = cuprum::from_vec(vec![true, false, true], &dev)?;
    check("min footprint", minimum_filter_with(&c, Window::Footprint(&fp), &d)?, &[nan, nan, -0.0, 0.0, -0.0, 0.0]);
    check("max footprint", maximum_filter_with(&c, Window::Footprint(&fp), &d)?, &[nan, nan, 1.0, 2.0, 3.0, 3.0]);
    let st = cuprum::from_vec(vec![0.0, 1.0, 0.0], &dev)?;
    let ge = grey_erosion_with(&c, GreyWindow { structure: Some(&st), ..Default::default() }, &d)?;
    check("grey erosion", ge, &[nan, nan, -0.0, -1.0, -1.0, 0.0]);
    check("max1d", maximum_filter1d_with(&c, 2, -1, &d)?, &[nan, nan, 2.0, 2.0, 0.0, 3.0]);
    check(
        "min1d nan cval",
        minimum_filter1d_with(&c, 3, -1, &opts(Mode::Constant, nan))?,
        &[nan, nan, 0.0, 0.0, 0.0, 0.0],
    );
    let all_nan = cuprum::from_vec(vec![f64::NAN; 4], &dev)?;
    assert!(minimum_filter_with(&all_nan, Window::Size(&[2]), &d)?.to_vec::<f64>()?.iter().all(|v| v.is_nan()));
    Ok(())
});

// Every dtype keeps its dtype; float16 only where SciPy's 1-d rank path takes it.
device_test!(dtypes_and_shapes, |dev| {
    let d = RankOptions::default();
    for dt in cuprum::dtype::REAL_DTYPES {
        let x = x45(&dev).astype(dt)?;
        let r = median_filter_with(&x, Window::Size(&[3]), &d);
        if dt == DType::Float16 {
            assert_eq!(kind(r), ErrorKind::RuntimeError);
            assert_eq!(kind(minimum_filter_with(&x, Window::Size(&[2]), &d)), ErrorKind::RuntimeError);
            let m = median_filter_with(&x.ravel()?, Window::Size(&[3]), &d)?;
            assert_eq!(m.dtype(), DType::Float16);
            continue;
        }
        let r = r?;
        assert_eq!(r.dtype(), dt);
        let want = median_filter_with(&x45(&dev), Window::Size(&[3]), &d)?.astype(dt)?;
        if dt != DType::Bool {
            assert_eq!(r.to_vec_as::<f64>()?, want.to_vec_as::<f64>()?, "{dt}");
        }
    }
    // 0-d: a copy; empty: empty.
    let z = cuprum::full(&[], 2.5, DType::Float64, &dev)?;
    assert_eq!(median_filter_with(&z, Window::Size(&[3]), &d)?.item::<f64>()?, 2.5);
    assert_eq!(minimum_filter_with(&z, Window::Size(&[3]), &d)?.item::<f64>()?, 2.5);
    let e = cuprum::zeros(&[0, 4], DType::Int32, &dev)?;
    assert_eq!(median_filter_with(&e, Window::Size(&[3]), &d)?.shape(), &[0, 4]);
    assert_eq!(maximum_filter_with(&e, Window::Size(&[3]), &d)?.shape(), &[0, 4]);
    // A non-contiguous view.
    let x = x45(&dev);
    let t = x.t();
    let m = median_filter_with(&t, Window::Size(&[3]), &d)?;
    assert_eq!(f64s(&m), f64s(&median_filter_with(&t.copy()?, Window::Size(&[3]), &d)?));
    Ok(())
});

device_test!(errors, |dev| {
    let x = x45(&dev);
    let d = RankOptions::default();
    use ErrorKind::*;
    assert_eq!(kind(median_filter_with(&x, Window::Size(&[0]), &d)), RuntimeError);
    assert_eq!(minimum_filter_with(&x, Window::Size(&[0]), &d)?.to_vec::<f64>()?, f64s(&x)); // SciPy: a copy
    assert_eq!(kind(median_filter_with(&x, Window::Size(&[2, 3, 4]), &d)), RuntimeError);
    let fp1 = cuprum::ones(&[3], DType::Bool, &dev)?;
    assert_eq!(kind(median_filter_with(&x, Window::Footprint(&fp1), &d)), RuntimeError);
    assert_eq!(kind(minimum_filter_with(&x, Window::Footprint(&fp1), &d)), RuntimeError);
    let zero = cuprum::zeros(&[2, 2], DType::Bool, &dev)?;
    assert_eq!(kind(minimum_filter_with(&x, Window::Footprint(&zero), &d)), ValueError);
    assert_eq!(kind(median_filter_with(&x, Window::Footprint(&zero), &d)), RuntimeError);
    for r in [9, -10] {
        assert_eq!(kind(rank_filter_with(&x, r, Window::Size(&[3]), &d)), RuntimeError);
    }
    assert_eq!(
        rank_filter_with(&x, -9, Window::Size(&[3]), &d)?.to_vec::<f64>()?,
        f64s(&minimum_filter_with(&x, Window::Size(&[3]), &d)?)
    );
    for p in [100.5, -100.5] {
        assert_eq!(kind(percentile_filter_with(&x, p, Window::Size(&[3]), &d)), RuntimeError);
    }
    let bad_origin = RankOptions { origin: vec![2], ..Default::default() };
    assert_eq!(kind(median_filter_with(&x, Window::Size(&[3]), &bad_origin)), ValueError);
    assert_eq!(kind(minimum_filter_with(&x, Window::Size(&[3]), &bad_origin)), ValueError);
    let o3 = RankOptions { origin: vec![0, 0, 0], ..Default::default() };
    assert_eq!(kind(median_filter_with(&x, Window::Size(&[3]), &o3)), RuntimeError);
    for axes in [vec![2], vec![1, 1], vec![-3]] {
        let o = RankOptions { axes: Some(axes), ..Default::default() };
        assert_eq!(kind(median_filter_with(&x, Window::Size(&[3]), &o)), ValueError);
    }
    assert_eq!(kind("foo".parse::<Mode>()), RuntimeError);
    assert_eq!(kind(minimum_filter1d_with(&x, 3, 2, &d)), AxisError);
    assert_eq!(kind(minimum_filter1d_with(&x, 0, 0, &d)), RuntimeError);
    assert_eq!(kind(grey_erosion_with(&x, GreyWindow::default(), &d)), ValueError);
    let st1 = cuprum::from_vec(vec![1.0, 2.0], &dev)?;
    assert_eq!(
        kind(grey_erosion_with(&x, GreyWindow { structure: Some(&st1), ..Default::default() }, &d)),
        RuntimeError
    );
    if dev != Device::Cpu {
        // A footprint on another device.
        let fp = cuprum::ones(&[3, 3], DType::Bool, &Device::Cpu)?;
        assert_eq!(kind(median_filter_with(&x, Window::Footprint(&fp), &d)), ValueError);
    }
    Ok(())
});
