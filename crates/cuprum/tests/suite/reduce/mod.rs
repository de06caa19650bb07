//! Reductions on every device: keepdims, ddof, axes, large inputs, ties and NaNs;
//! `gpu`: the GPU against the CPU on seeded random inputs.

mod gpu;

use cuprum::{s, DType, Error};

device_test!(keepdims_ddof_axes, |dev| {
    let a = cuprum::arange_f(0.0, 24.0, 1.0, DType::Float64, &dev)?.reshape([2, 3, 4])?;
    assert_eq!(a.sum_keepdims([0, 2])?.shape(), &[1, 3, 1]);
    assert_eq!(a.sum([0, 2])?.to_vec::<f64>()?, vec![60.0, 92.0, 124.0]);
    let v1: f64 = a.var_with(None, &cuprum::VarOptions { ddof: 1.0, ..Default::default() })?.item()?;
    assert!((v1 - 50.0).abs() < 1e-12);
    let s0: f64 = a.std(None)?.item()?;
    assert!((s0 - (47.916666666666664f64).sqrt()).abs() < 1e-12);
    assert_eq!(a.argmax(-1)?.to_vec::<i64>()?, vec![3; 6]);
    assert_eq!(a.mean(-1)?.shape(), &[2, 3]);
    let i = cuprum::arange_with(0, 10, 1, DType::Int32, &dev)?;
    assert_eq!(i.sum(None)?.dtype(), DType::Int64);
    assert_eq!(i.mean(None)?.dtype(), DType::Float64);
    assert_eq!(i.count_nonzero(None)?.item::<i64>()?, 9);
    assert!(i.any(None)?.item::<bool>()?);
    assert!(!i.all(None)?.item::<bool>()?);
    assert!(matches!(a.sum(3), Err(Error::AxisOutOfRange { axis: 3, ndim: 3 })));
    assert!(matches!(a.sum([0, 0]), Err(Error::DuplicateAxis { .. })));
    let empty = cuprum::zeros(&[0], DType::Float32, &dev)?;
    assert_eq!(empty.sum(None)?.item::<f32>()?, 0.0);
    assert!(empty.mean(None)?.item::<f32>()?.is_nan());
    assert!(matches!(empty.max(None), Err(Error::Value(_))));
    // NumPy's divisor max(n - ddof, 0), with NumPy's maximum: a NaN ddof gives NaN, a ddof of
    // n or more (inf too) divides by 0, -inf by inf; fused (Expr) the same.
    let b = cuprum::arange_f(0.0, 5.0, 1.0, DType::Float64, &dev)?;
    let bi = cuprum::arange_with(0, 5, 1, DType::Int32, &dev)?;
    for x in [&b, &bi] {
        assert!(x
            .var_with(None, &cuprum::VarOptions { ddof: f64::NAN, ..Default::default() })?
            .item::<f64>()?
            .is_nan());
        assert!(x
            .std_with(None, &cuprum::VarOptions { ddof: f64::NAN, ..Default::default() })?
            .item::<f64>()?
            .is_nan());
        assert!((x.expr() * 2.0)
            .var_with(None, &cuprum::VarOptions { ddof: f64::NAN, ..Default::default() })
            .eval()?
            .item::<f64>()?
            .is_nan());
        assert_eq!(
            x.var_with(None, &cuprum::VarOptions { ddof: f64::INFINITY, ..Default::default() })?.item::<f64>()?,
            f64::INFINITY
        );
        assert_eq!(
            x.std_with(None, &cuprum::VarOptions { ddof: 7.0, ..Default::default() })?.item::<f64>()?,
            f64::INFINITY
        );
        assert_eq!(
            (x.expr() + 1.0)
                .std_with(None, &cuprum::VarOptions { ddof: 5.0, ..Default::default() })
                .eval()?
                .item::<f64>()?,
            f64::INFINITY
        );
        assert_eq!(
            x.var_with(None, &cuprum::VarOptions { ddof: f64::NEG_INFINITY, ..Default::default() })?.item::<f64>()?,
            0.0
        );
    }
    assert!(a
        .var_with(-1, &cuprum::VarOptions { ddof: f64::NAN, ..Default::default() })?
        .to_vec::<f64>()?
        .iter()
        .all(|v| v.is_nan()));
    assert!((a.expr() - 1.0)
        .std_with(-1, &cuprum::VarOptions { ddof: f64::NAN, ..Default::default() })
        .eval()?
        .to_vec::<f64>()?
        .iter()
        .all(|v| v.is_nan()));
    Ok(())
});

device_test!(large_reductions_ties_and_nans, |dev| {
    let n = 300_001usize;
    let v: Vec<f64> = (0..n).map(|i| ((i * 7919) % 10007) as f64 / 10007.0).collect();
    let mut x = cuprum::from_slice(&v, &[n], &dev)?;
    x.slice_mut(s![123_456])?.fill(5.0)?;
    x.slice_mut(s![223_456])?.fill(5.0)?;
    x.slice_mut(s![23_456])?.fill(-5.0)?;
    x.slice_mut(s![283_456])?.fill(-5.0)?;
    assert_eq!(x.argmax(None)?.item::<i64>()?, 123_456);
    assert_eq!(x.argmin(None)?.item::<i64>()?, 23_456);
    assert_eq!(x.max(None)?.item::<f64>()?, 5.0);
    let mut w = v.clone();
    w[123_456] = 5.0;
    w[223_456] = 5.0;
    w[23_456] = -5.0;
    w[283_456] = -5.0;
    let mean = w.iter().sum::<f64>() / n as f64;
    let var = w.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let got: f64 = x.var_with(None, &cuprum::VarOptions { ddof: 1.0, ..Default::default() })?.item()?;
    assert!((got - var).abs() < 1e-12 * var, "{got} vs {var}");
    x.slice_mut(s![200_000])?.fill(f64::NAN)?;
    x.slice_mut(s![250_000])?.fill(f64::NAN)?;
    assert!(x.max(None)?.item::<f64>()?.is_nan());
    assert_eq!(x.argmax(None)?.item::<i64>()?, 200_000);
    assert_eq!(x.argmin(None)?.item::<i64>()?, 200_000);
    let i = cuprum::arange_with(0, n as i64, 1, DType::Int32, &dev)?;
    assert_eq!(i.sum(None)?.item::<i64>()?, (n as i64 - 1) * n as i64 / 2);
    assert_eq!(i.max(None)?.item::<i32>()?, n as i32 - 1);
    assert_eq!(i.argmin(None)?.item::<i64>()?, 0);
    Ok(())
});
