//! scipy.special's ufuncs and scipy.stats.norm beyond the fixtures (`conformance::special`,
//! `conformance::stats` hold SciPy's values): the lessons' cell, fusion, dtypes and errors, and
//! the GPU against the CPU on fresh random inputs.

use crate::common::{assert_close, on, Rng};
use cuprum::scipy::special;
use cuprum::scipy::stats::{norm, Norm};
use cuprum::{DType, Device, ErrorKind};

// The lesson's cell: `scipy.stats.norm.pdf(x, loc=mean, scale=sigma)` over a million float32
// values drawn from uniform(-3, 3), beside the lesson's own formula.
device_test!(norm_pdf_as_the_lesson, |dev| {
    let x = cuprum::random::default_rng(42)?.on(&dev).uniform(-3.0, 3.0, &[1_000_000])?.astype(DType::Float32)?;
    let (mean, sigma) = (0.0f64, 1.0f64);
    let p = norm(mean, sigma).pdf(&x)?;
    assert_eq!((p.dtype(), p.shape()), (DType::Float64, &[1_000_000usize][..]));
    // The same numbers as the standard form and as the formula written out.
    assert_eq!(p.to_vec::<f64>()?, norm::pdf(&x)?.to_vec::<f64>()?);
    let xs = x.to_vec::<f32>()?;
    let got = p.to_vec::<f64>()?;
    for (i, (&v, &g)) in xs.iter().zip(&got).enumerate().step_by(997) {
        let y = (v as f64 - mean) / sigma;
        let want = (-(y * y) / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt() / sigma;
        assert!((g - want).abs() <= 4e-16 * want, "pdf at {i}: {g} against {want}");
    }
    // Scaled and shifted: pdf(x; loc, s) = pdf((x - loc)/s)/s, and ppf inverts cdf.
    let d = Norm { loc: 1.5, scale: 2.0 };
    let y = ((x.astype(DType::Float64)?.expr() - 1.5) / 2.0).eval()?;
    assert_close(&d.pdf(&x)?, &((norm::pdf(&y)?.expr() / 2.0).eval()?), 1e-15, "scaled pdf");
    let back = d.ppf(&d.cdf(&x)?)?;
    assert_close(&back, &x.astype(DType::Float64)?, 1e-9, "ppf(cdf(x))");
    assert_close(&d.isf(&d.sf(&x)?)?, &x.astype(DType::Float64)?, 1e-9, "isf(sf(x))");
    Ok(())
});

device_test!(special_in_fused_formulas, |dev| {
    let x = cuprum::linspace(-6.0, 6.0, 1001, DType::Float32, &dev)?;
    // One fused formula against its steps, bit for bit: 1 - erfc(x) and erf(x), ndtr and ndtri.
    let fused = (1.0 - x.expr().erfc() + x.expr().ndtr().ndtri()).eval()?;
    let steps = (&(1.0 - &special::erfc(&x)?)? + &special::ndtri(&special::ndtr(&x)?)?)?;
    assert_eq!(fused.dtype(), DType::Float32);
    assert_eq!(fused.to_vec::<f32>()?, steps.to_vec::<f32>()?);
    // out= into a view.
    let out = cuprum::zeros(&[2, 1001], DType::Float64, &dev)?;
    let mut row = out.slice(cuprum::s![1, ..])?;
    special::erf_out(&x.astype(DType::Float64)?, &mut row)?;
    assert_eq!(
        out.slice(cuprum::s![1, ..])?.to_vec::<f64>()?,
        special::erf(&x.astype(DType::Float64)?)?.to_vec::<f64>()?
    );
    Ok(())
});

device_test!(special_and_norm_errors, |dev| {
    let c = cuprum::zeros(&[3], DType::Complex128, &dev)?;
    assert_eq!(special::erf(&c).unwrap_err().kind(), ErrorKind::TypeError);
    assert_eq!(norm::pdf(&c).unwrap_err().kind(), ErrorKind::TypeError);
    assert_eq!(norm::ppf(&c).unwrap_err().kind(), ErrorKind::TypeError);
    // SciPy's loop dtypes: erf of float16 is float64, ndtri of float16 float32.
    let h = cuprum::ones(&[2], DType::Float16, &dev)?;
    assert_eq!(special::erf(&h)?.dtype(), DType::Float64);
    assert_eq!(special::ndtri(&h)?.dtype(), DType::Float32);
    // A scale that is not positive: NaN everywhere, in the input's shape.
    let x = cuprum::ones(&[2, 3], DType::Int32, &dev)?;
    let bad = norm(0.0, -1.0).cdf(&x)?;
    assert_eq!(bad.shape(), &[2, 3]);
    assert!(bad.to_vec::<f64>()?.iter().all(|v| v.is_nan()));
    Ok(())
});

gpu_test!(special_gpu_against_cpu, |gpu| {
    let gpu = &gpu;
    let mut rng = Rng::new(77);
    for dt in [DType::Float32, DType::Float64] {
        // Wide values for erf/erfc/ndtr, probabilities for ndtri (tails included).
        let wide: Vec<f64> = (0..4099).map(|_| (rng.uniform() - 0.5) * 80.0).collect();
        let unit: Vec<f64> = (0..4099).map(|_| rng.uniform().powi(1 + (rng.uniform() * 40.0) as i32)).collect();
        let (w, u) =
            (cuprum::from_vec(wide, &Device::Cpu)?.astype(dt)?, cuprum::from_vec(unit, &Device::Cpu)?.astype(dt)?);
        let rtol = if dt == DType::Float32 { 2e-7 } else { 1e-13 };
        for (name, f, x) in [
            ("erf", special::erf as fn(&cuprum::Array) -> cuprum::Result<cuprum::Array>, &w),
            ("erfc", special::erfc, &w),
            ("ndtr", special::ndtr, &w),
            ("ndtri", special::ndtri, &u),
        ] {
            assert_close(&f(&on(gpu, x))?, &f(x)?, rtol, &format!("{name}({dt})"));
        }
        assert_close(&norm(0.5, 3.0).logpdf(&on(gpu, &w))?, &norm(0.5, 3.0).logpdf(&w)?, 1e-14, "logpdf");
        // (loc 0: with a loc, -ndtri(q)*scale + loc cancels where q is near 0.5, and the GPU's
        // last-bit differences in ndtri grow relative to the small result.)
        assert_close(&norm(0.0, 3.0).isf(&on(gpu, &u))?, &norm(0.0, 3.0).isf(&u)?, rtol, "isf");
    }
    Ok(())
});
