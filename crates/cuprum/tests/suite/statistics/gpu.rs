//! The GPU radix selection (quantiles, medians) and the binned counting kernels (bincount,
//! histogram) against the CPU backend on fresh random inputs: every dtype, NaNs, lanes along
//! either axis, empty lanes; bincount and histogram also with the CPU standing in for the GPU.

use crate::common::{assert_close, on, random, Rng};
use crate::indexing::gpu::same;
use crate::sort::gpu::full_range;
use cuprum::dtype::REAL_DTYPES as ALL_DTYPES;
use cuprum::{s, Array, Bins, DType, Device, QuantileMethod};

const METHODS: [QuantileMethod; 5] = [
    QuantileMethod::Linear,
    QuantileMethod::Lower,
    QuantileMethod::Higher,
    QuantileMethod::Nearest,
    QuantileMethod::Midpoint,
];

fn check_quantiles(gpu: &Device, x: &Array, axis: impl Into<cuprum::Axes>, what: &str) {
    let axis = &axis.into();
    let xg = x.to_device(gpu).unwrap();
    let qs = [0.0, 0.1, 0.25, 0.5, 0.731, 0.9, 1.0];
    let rtol = if x.dtype() == DType::Float16 { 1e-3 } else { 1e-12 };
    for m in METHODS {
        let c = cuprum::quantiles_with(x, &qs, axis, &cuprum::QuantileOptions { method: m, ..Default::default() });
        let g = cuprum::quantiles_with(&xg, &qs, axis, &cuprum::QuantileOptions { method: m, ..Default::default() });
        match (c, g) {
            (Ok(c), Ok(g)) => assert_close(&g, &c, rtol, &format!("quantiles {m:?} {what}")),
            (Err(_), Err(_)) => {}
            (c, g) => panic!("{what}: CPU {:?}, GPU {:?}", c.map(|_| ()), g.map(|_| ())),
        }
        let c = cuprum::nanquantile_with(x, 0.37, axis, &cuprum::QuantileOptions { method: m, ..Default::default() })
            .unwrap();
        let g = cuprum::nanquantile_with(&xg, 0.37, axis, &cuprum::QuantileOptions { method: m, ..Default::default() })
            .unwrap();
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
    check_quantiles(gpu, &m, 1, &format!("{dt} (7,501) axis 1"));
    check_quantiles(gpu, &m, 0, &format!("{dt} (7,501) axis 0"));
    // Several axes (NumPy's tuple: merged into one lane), of views too, and none at all.
    let t = random(&[5, 7, 33], dt, &mut rng, true);
    check_quantiles(gpu, &t, [0, 2], &format!("{dt} (5,7,33) axes (0,2)"));
    check_quantiles(gpu, &t, [2, 0, 1], &format!("{dt} (5,7,33) axes (2,0,1)"));
    check_quantiles(gpu, &t.permute(&[2, 0, 1])?, [1, -1], &format!("{dt} transposed axes (1,-1)"));
    check_quantiles(gpu, &t.slice(s![..;-1, .., 1..;2])?, [1, 2], &format!("{dt} reversed, strided axes (1,2)"));
    check_quantiles(gpu, &t, (), &format!("{dt} axes ()"));
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
            cuprum::nanmedian(x, 0)?,
            cuprum::nanquantile_with(
                x,
                0.3,
                0,
                &cuprum::QuantileOptions { method: QuantileMethod::Lower, ..Default::default() },
            )?,
            cuprum::nanpercentile(x, 30.0, None)?,
        ] {
            assert_eq!((r.device(), r.dtype()), (dev, fdt), "{dt} empty");
            assert!(r.to_vec_as::<f64>()?.iter().all(|v| v.is_nan()), "{dt} empty");
        }
        assert_eq!(x.median(0)?.shape(), &[3]);
        assert_eq!(x.median(1)?.shape(), &[0]);
        let err = cuprum::quantile(x, 0.5, 0).unwrap_err();
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
        let c = cuprum::percentile(&x, 99.0, None)?;
        let g = cuprum::percentile(&x.to_device(&gpu)?, 99.0, None)?;
        assert_close(&g, &c, 0.0, &format!("percentile 99 n={n}"));
    }
    Ok(())
});

// Densities of weighted histograms whose bins cancel: n / diff(edges) / n.sum() amplifies any
// difference in the total, so the total must be the same on both devices (summed in float64 and
// rounded to the weights' dtype once). A float32 sum of the bins in the GPU's order made
// `histogram_bins_edges_weights_density` fail about one run in three (random weights whose
// bins nearly cancelled); here the bins cancel to a few parts in 10^6 by construction. Float16
// and float32 weights add exactly in float64, so both devices agree to the last bit; float64
// weights are added by atomics in no fixed order (not checked here).
gpu_test!(histogram_density_of_cancelling_bins, |gpu| {
    let mut rng = Rng::new(23);
    for dt in [DType::Float16, DType::Float32] {
        for trial in 0..20 {
            let n = 2000;
            let x: Vec<f64> = (0..n).map(|_| rng.uniform() * 10.0).collect();
            let mut w: Vec<f64> = (0..n).map(|_| rng.uniform() * 8.0 - 4.0).collect();
            // Make the weights sum to (nearly) zero: the density's denominator cancels.
            let total: f64 = w.iter().sum();
            w[0] -= total - 1e-3 * (trial as f64 + 1.0);
            let xa = cuprum::from_vec(x, &Device::Cpu)?;
            let wa = cuprum::from_vec(w, &Device::Cpu)?.astype(dt)?;
            for bins in [Bins::Count(7), Bins::Edges(vec![0.0, 1.5, 2.0, 6.0, 10.0])] {
                let (hc, _) = cuprum::histogram_with(
                    &xa,
                    bins.clone(),
                    &cuprum::HistogramOptions { weights: Some(&wa), density: true, ..Default::default() },
                )?;
                let (hg, _) = cuprum::histogram_with(
                    &on(&gpu, &xa),
                    bins.clone(),
                    &cuprum::HistogramOptions { weights: Some(&on(&gpu, &wa)), density: true, ..Default::default() },
                )?;
                assert_close(&hg, &hc, 0.0, &format!("density of cancelling bins ({dt}, trial {trial}, {bins:?})"));
            }
        }
    }
    Ok(())
});

cases! {
    bincount_counts_and_weights => bincount_case,
    histogram_bins_edges_weights_density => histogram_case,
    complex_medians => complex_median_case,
}

/// Medians of complex arrays (NumPy's lexicographic order, the two middle values averaged)
/// and nanmedians (values with a NaN part left out), with ties in the real parts and NaNs,
/// along every axis, of views, empty and 0-d; quantiles refuse complex on both devices.
fn complex_median_case(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(112);
    for dt in [DType::Complex64, DType::Complex128] {
        let rtol = if dt == DType::Complex64 { 1e-6 } else { 1e-14 };
        for (shape, specials) in [(vec![1], false), (vec![2], true), (vec![4097], true), (vec![100_001], false)] {
            let x = full_range(shape[0], dt, &mut rng, specials);
            let xg = on(dev, &x);
            let what = format!("{dt} n={} specials={specials}", shape[0]);
            same(dev, &format!("median {what}"), rtol, x.median(None), xg.median(None));
            same(dev, &format!("nanmedian {what}"), rtol, cuprum::nanmedian(&x, None), cuprum::nanmedian(&xg, None));
        }
        let m = full_range(7 * 301, dt, &mut rng, true).reshape([7, 301])?;
        let t = m.t();
        for (name, a) in [("(7,301)", m.view()), ("transposed", t), ("view", m.slice(s![..;-2, 1..;3])?)] {
            for ax in [0isize, 1, -1] {
                let ag = on(dev, &a);
                let what = format!("{dt} {name} axis {ax}");
                same(dev, &format!("median {what}"), rtol, a.median(ax), ag.median(ax));
                same(dev, &format!("nanmedian {what}"), rtol, cuprum::nanmedian(&a, ax), cuprum::nanmedian(&ag, ax));
            }
        }
        for shape in [vec![0], vec![0, 3], vec![]] {
            let e = random(&shape, dt, &mut rng, false);
            let eg = on(dev, &e);
            same(dev, &format!("median {dt} {shape:?}"), 0.0, e.median(None), eg.median(None));
            same(
                dev,
                &format!("nanmedian {dt} {shape:?}"),
                0.0,
                cuprum::nanmedian(&e, None),
                cuprum::nanmedian(&eg, None),
            );
        }
        let q = |a: &Array| cuprum::quantile(a, 0.5, None);
        let x = random(&[10], dt, &mut rng, false);
        same(dev, &format!("quantile {dt}"), 0.0, q(&x), q(&on(dev, &x)));
    }
    Ok(())
}

fn bincount_case(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(108);
    let ints: Vec<DType> = ALL_DTYPES.iter().copied().filter(|d| d.is_integer() || *d == DType::Bool).collect();
    for &dt in &ints {
        let x = random(&[1000], dt, &mut rng, false).abs()?;
        let w32 = random(&[1000], DType::Float32, &mut rng, false);
        let xg = on(dev, &x);
        for minlength in [0usize, 5, 300] {
            same(
                dev,
                &format!("bincount({dt}, {minlength})"),
                0.0,
                cuprum::bincount_with(&x, &cuprum::BincountOptions { minlength, ..Default::default() }),
                cuprum::bincount_with(&xg, &cuprum::BincountOptions { minlength, ..Default::default() }),
            );
            same(
                dev,
                &format!("bincount({dt}, {minlength}) weighted"),
                1e-9,
                cuprum::bincount_with(&x, &cuprum::BincountOptions { weights: Some(&w32), minlength }),
                cuprum::bincount_with(&xg, &cuprum::BincountOptions { weights: Some(&on(dev, &w32)), minlength }),
            );
        }
        // A strided view.
        let v = x.slice(s![..;-3])?;
        same(
            dev,
            &format!("bincount({dt}) strided"),
            0.0,
            cuprum::bincount(&v),
            cuprum::bincount(&xg.slice(s![..;-3])?),
        );
    }
    // Bins beyond shared memory (global atomics), many elements (many blocks), empty input.
    for (n, hi) in [(100_000usize, 20_000u64), (1_000_000, 50), (3, 10_000)] {
        let v: Vec<i64> = (0..n).map(|_| (rng.next_u64() % hi) as i64).collect();
        let x = cuprum::from_vec(v, &Device::Cpu)?;
        let w = random(&[n], DType::Float64, &mut rng, false);
        same(dev, &format!("bincount(n={n}, max<{hi})"), 0.0, cuprum::bincount(&x), cuprum::bincount(&on(dev, &x)));
        same(
            dev,
            &format!("bincount(n={n}, max<{hi}) weighted"),
            1e-9,
            cuprum::bincount_with(&x, &cuprum::BincountOptions { weights: Some(&w), ..Default::default() }),
            cuprum::bincount_with(
                &on(dev, &x),
                &cuprum::BincountOptions { weights: Some(&on(dev, &w)), ..Default::default() },
            ),
        );
    }
    let e = cuprum::zeros(&[0], DType::Int64, &Device::Cpu)?;
    same(
        dev,
        "bincount empty",
        0.0,
        cuprum::bincount_with(&e, &cuprum::BincountOptions { minlength: 4, ..Default::default() }),
        cuprum::bincount_with(&on(dev, &e), &cuprum::BincountOptions { minlength: 4, ..Default::default() }),
    );
    let neg = cuprum::from_vec(vec![1i32, -2, 3], &Device::Cpu)?;
    same(dev, "bincount negative", 0.0, cuprum::bincount(&neg), cuprum::bincount(&on(dev, &neg)));
    let huge = cuprum::from_vec(vec![1i64 << 62], &Device::Cpu)?;
    assert!(cuprum::bincount(&on(dev, &huge)).is_err());
    Ok(())
}

fn histogram_case(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(109);
    let hist = |a: &Array, bins: Bins, range: Option<(f64, f64)>, w: Option<&Array>, density: bool| {
        cuprum::histogram_with(a, bins, &cuprum::HistogramOptions { range, weights: w, density })
    };
    for &dt in ALL_DTYPES.iter() {
        let a = random(&[30, 40], dt, &mut rng, false);
        let ag = on(dev, &a);
        let w = random(&[30, 40], DType::Float32, &mut rng, false);
        let wg = on(dev, &w);
        let edges = Bins::Edges(vec![-3.0, -1.0, -1.0, 0.0, 0.5, 2.0, 50.0]);
        for (name, bins, range) in [
            ("10 bins", Bins::Count(10), None),
            ("7 bins in range", Bins::Count(7), Some((-2.0, 3.0))),
            ("1 bin", Bins::Count(1), None),
            ("3000 bins", Bins::Count(3000), Some((-4.0, 100.0))),
            ("10000 bins", Bins::Count(10_000), None),
            ("edges", edges.clone(), None),
        ] {
            for (wname, wc, wgpu) in [("", None, None), (" weighted", Some(&w), Some(&wg))] {
                for density in [false, true] {
                    let what = format!("histogram({dt}, {name}{wname}, density={density})");
                    let c = hist(&a, bins.clone(), range, wc, density);
                    let g = hist(&ag, bins.clone(), range, wgpu, density);
                    match (c, g) {
                        (Ok((hc, ec)), Ok((hg, eg))) => {
                            let tol = if wc.is_some() || density { 1e-5 } else { 0.0 };
                            assert_close(&hg, &hc, tol, &what);
                            assert_close(&eg, &ec, 0.0, &format!("{what} edges"));
                            assert_eq!(hg.device(), *dev, "{what}: device");
                        }
                        (Err(c), Err(g)) => assert_eq!(g, c, "{what}"),
                        (c, g) => panic!("{what}: CPU {:?}, GPU {:?}", c.map(|_| ()), g.map(|_| ())),
                    }
                }
            }
        }
    }
    // Values exactly on the edges (integer data, integer edges), large input, constant input.
    let v: Vec<i64> = (0..200_000).map(|_| (rng.next_u64() % 11) as i64).collect();
    let x = cuprum::from_vec(v, &Device::Cpu)?;
    for bins in [Bins::Count(10), Bins::Count(5), Bins::Count(3), Bins::Edges(vec![0.0, 2.0, 5.0, 10.0])] {
        let (hc, _) = cuprum::histogram(&x, bins.clone())?;
        let (hg, _) = cuprum::histogram(&on(dev, &x), bins.clone())?;
        assert_close(&hg, &hc, 0.0, &format!("histogram on edges {bins:?}"));
    }
    let c = cuprum::full(&[5], 2.0, DType::Float64, &Device::Cpu)?;
    let (hc, ec) = cuprum::histogram(&c, Bins::Count(4))?;
    let (hg, eg) = cuprum::histogram(&on(dev, &c), Bins::Count(4))?;
    assert_close(&hg, &hc, 0.0, "histogram constant");
    assert_close(&eg, &ec, 0.0, "histogram constant edges");
    // NaN data: an autodetected range is an error, a given range skips the NaNs.
    let n = random(&[1000], DType::Float64, &mut rng, true);
    let finite = n.isfinite()?.all(None)?.item::<bool>()?;
    let c = cuprum::histogram(&n, Bins::Count(5));
    let g = cuprum::histogram(&on(dev, &n), Bins::Count(5));
    assert_eq!(c.is_err(), !finite);
    assert_eq!(g.is_err(), c.is_err());
    let (hc, _) = cuprum::histogram_with(
        &n,
        Bins::Count(5),
        &cuprum::HistogramOptions { range: Some((-4.0, 4.0)), ..Default::default() },
    )?;
    let (hg, _) = cuprum::histogram_with(
        &on(dev, &n),
        Bins::Count(5),
        &cuprum::HistogramOptions { range: Some((-4.0, 4.0)), ..Default::default() },
    )?;
    assert_close(&hg, &hc, 0.0, "histogram with NaNs in a range");
    let e = cuprum::zeros(&[0], DType::Float32, &Device::Cpu)?;
    let (hc, _) = cuprum::histogram(&e, Bins::Count(3))?;
    let (hg, _) = cuprum::histogram(&on(dev, &e), Bins::Count(3))?;
    assert_close(&hg, &hc, 0.0, "histogram empty");
    Ok(())
}
