//! `scipy.ndimage`'s linear filters: SciPy's printed values on every device (uint8 results
//! truncated after every pass, negatives wrapped into unsigned types, NaN from `inf * 0` in
//! `correlate1d` but not in `correlate`), and SciPy's errors with their kinds.

mod gpu;

use cuprum::scipy::ndimage::{
    convolve1d_with, correlate, correlate1d, correlate1d_with, correlate_with, gaussian_filter1d_with,
    gaussian_filter_with, gaussian_gradient_magnitude_with, laplace_with, sobel_with, uniform_filter1d_with,
    uniform_filter_with, FilterOptions, Mode,
};
use cuprum::{DType, ErrorKind};

const X: [u8; 12] = [3, 0, 7, 1, 2, 9, 4, 4, 8, 1, 0, 6];

fn close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol, "element {i}: {g} vs {w}");
    }
}

device_test!(separable_filters_round_per_pass, |dev| {
    let x = cuprum::from_slice(&X, &[3, 4], &dev)?;
    let d = FilterOptions::default();
    // scipy.ndimage.gaussian_filter(x, 1.0) of uint8: truncated after each pass.
    let g = gaussian_filter_with(&x, &[1.0], &d)?;
    assert_eq!(g.dtype(), DType::UInt8);
    assert_eq!(g.to_vec::<u8>()?, vec![2, 3, 3, 2, 3, 3, 3, 3, 4, 3, 2, 3]);
    let gf = gaussian_filter_with(&x.astype(DType::Float64)?, &[1.0], &d)?.to_vec::<f64>()?;
    let want = [
        3.08382609, 3.49622222, 3.77669474, 3.26398291, 4.01793219, 3.91891498, 3.78902579, 3.7209702, 4.88410898,
        3.77341262, 3.30888634, 3.96602295,
    ];
    close(&gf, &want, 1e-8);
    let s = sobel_with(&x.astype(DType::Int16)?, 0, &d)?;
    assert_eq!(s.to_vec::<i16>()?, vec![6, 14, 6, 6, 16, 0, -8, 8, 10, -14, -14, 2]);
    let u = uniform_filter_with(&x, &[3], &FilterOptions { mode: Mode::Constant, cval: 10.0, ..d.clone() })?;
    assert_eq!(u.to_vec::<u8>()?, vec![7, 6, 6, 7, 5, 3, 3, 5, 7, 5, 5, 6]);
    // Negative sums wrap into uint8 (-4 is 252).
    assert_eq!(laplace_with(&x, &d)?.to_vec::<u8>()?, vec![252, 19, 240, 9, 14, 227, 4, 255, 243, 14, 11, 248]);
    let m = gaussian_gradient_magnitude_with(&x, &[1.0], &d)?;
    assert_eq!(m.to_vec::<u8>()?, vec![15, 2, 10, 15, 15, 11, 12, 15, 15, 2, 12, 15]);
    Ok(())
});

device_test!(correlations_as_scipy, |dev| {
    let x = cuprum::from_slice(&X, &[3, 4], &dev)?;
    let w = cuprum::from_slice(&[0.0, 1.0, 2.0, 0.0], &[2, 2], &dev)?;
    let wrap = FilterOptions { mode: Mode::Wrap, ..Default::default() };
    assert_eq!(correlate_with(&x, &w, &wrap)?.to_vec::<u8>()?, vec![10, 7, 0, 20, 11, 4, 25, 9, 14, 25, 6, 4]);
    let o = FilterOptions { mode: Mode::Mirror, output: Some(DType::Int16), ..Default::default() };
    let c = convolve1d_with(&x, &[1.0, 2.0], 0, &o)?;
    assert_eq!(c.dtype(), DType::Int16);
    assert_eq!(c.to_vec::<i16>()?, vec![8, 9, 18, 6, 12, 19, 8, 14, 18, 11, 4, 16]);
    let d1 = cuprum::from_vec(vec![0.0, 0.0, 1.0, 0.0, 0.0, 0.0], &dev)?;
    let o1 = FilterOptions { order: vec![1], ..Default::default() };
    let g = gaussian_filter1d_with(&d1, 1.0, 0, &o1)?.to_vec::<f64>()?;
    close(&g, &[0.09468667, 0.24143612, 0.0, -0.24197145, -0.10798225, -0.01276026], 1e-8);
    // inf * 0: correlate1d multiplies every weight, correlate skips the zero ones.
    let inf = cuprum::from_vec(vec![1.0, f64::INFINITY, 2.0], &dev)?;
    let w3 = cuprum::from_vec(vec![1.0, 0.0, 1.0], &dev)?;
    let a = correlate1d(&inf, &[1.0, 0.0, 1.0], 0)?.to_vec::<f64>()?;
    assert!(a[0].is_infinite() && a[1].is_nan() && a[2].is_infinite());
    let b = correlate(&inf, &w3)?.to_vec::<f64>()?;
    assert_eq!(b[1], 3.0);
    Ok(())
});

device_test!(filter_errors, |dev| {
    let x = cuprum::from_slice(&X, &[3, 4], &dev)?;
    let d = FilterOptions::default();
    let kind = |r: cuprum::Result<cuprum::Array>| r.unwrap_err().kind();
    let w1 = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?;
    let w33 = cuprum::ones(&[3, 3], DType::Float64, &dev)?;
    assert_eq!(kind(correlate_with(&x, &w1, &d)), ErrorKind::RuntimeError); // weights of the wrong rank
    assert_eq!(
        kind(correlate_with(&x, &w33, &FilterOptions { origin: vec![2, 0], ..d.clone() })),
        ErrorKind::ValueError
    );
    assert_eq!(
        kind(correlate_with(&x, &w33, &FilterOptions { axes: Some(vec![0, -2]), ..d.clone() })),
        ErrorKind::ValueError
    );
    assert_eq!(
        kind(correlate_with(&x, &w33, &FilterOptions { modes: vec![Mode::Wrap, Mode::Reflect], ..d.clone() })),
        ErrorKind::RuntimeError
    );
    assert_eq!(kind(correlate1d_with(&x, &[], 0, &d)), ErrorKind::RuntimeError);
    assert_eq!(kind(correlate1d_with(&x, &[1.0], 2, &d)), ErrorKind::AxisError);
    assert_eq!(kind(uniform_filter1d_with(&x, 0, 0, &d)), ErrorKind::RuntimeError);
    assert_eq!(
        kind(uniform_filter1d_with(&x, 4, 0, &FilterOptions { origin: vec![2], ..d.clone() })),
        ErrorKind::ValueError
    );
    assert_eq!(kind(gaussian_filter_with(&x, &[1.0, 1.0, 1.0], &d)), ErrorKind::RuntimeError);
    assert_eq!(kind(gaussian_filter1d_with(&x, -2.0, 0, &d)), ErrorKind::ValueError); // radius int(-7.5) < 0
                                                                                      // sigma 0: SciPy's ZeroDivisionError, a ValueError here.
    assert_eq!(kind(gaussian_filter1d_with(&x, 0.0, 0, &d)), ErrorKind::ValueError);
    assert_eq!(kind(sobel_with(&x, 2, &d)), ErrorKind::AxisError);
    assert_eq!(kind(gaussian_filter_with(&x.astype(DType::Float16)?, &[1.0], &d)), ErrorKind::RuntimeError);
    assert_eq!(
        kind(gaussian_filter_with(&x, &[1.0], &FilterOptions { output: Some(DType::Float16), ..d.clone() })),
        ErrorKind::RuntimeError
    );
    assert_eq!("reflekt".parse::<Mode>().unwrap_err().kind(), ErrorKind::RuntimeError);
    // 0-d: the axis-free filters copy, the others have no axis.
    let z = cuprum::scalar(2.5f64, &dev)?;
    assert_eq!(gaussian_filter_with(&z, &[1.0], &d)?.to_vec::<f64>()?, vec![2.5]);
    assert_eq!(kind(sobel_with(&z, 0, &d)), ErrorKind::AxisError);
    Ok(())
});

device_test!(output_arrays, |dev| {
    // SciPy's output=array: the result in its dtype, written into it (here a strided view of a
    // larger array), and returned.
    let x = cuprum::from_slice(&X, &[3, 4], &dev)?;
    let big = cuprum::zeros(&[3, 8], DType::Float32, &dev)?;
    let view = big.slice(cuprum::s![.., ..;2])?;
    let o = FilterOptions { out: Some(view.view()), ..Default::default() };
    let r = gaussian_filter_with(&x, &[1.0], &o)?;
    assert_eq!(r.dtype(), DType::Float32);
    let want = [
        3.08382609, 3.49622222, 3.77669474, 3.26398291, 4.01793219, 3.91891498, 3.78902579, 3.7209702, 4.88410898,
        3.77341262, 3.30888634, 3.96602295,
    ];
    close(&r.astype(DType::Float64)?.to_vec::<f64>()?, &want, 1e-6);
    close(&view.astype(DType::Float64)?.to_vec::<f64>()?, &want, 1e-6);
    // The other columns of `big` are untouched.
    assert!(big.slice(cuprum::s![.., 1..;2])?.to_vec::<f32>()?.iter().all(|&v| v == 0.0));
    let bad = cuprum::zeros(&[4, 3], DType::Float32, &dev)?;
    let e = uniform_filter_with(&x, &[3], &FilterOptions { out: Some(bad), ..Default::default() }).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RuntimeError); // output shape not correct
    Ok(())
});

// Complex inputs and weights of the linear filters, by their parts as SciPy's
// `_complex_via_real_components` (SciPy 1.17.1's values for x = arange(12) + 1j *
// arange(12)[::-1], 3x4 complex64); its rank, minimum and maximum filters refuse them.
device_test!(complex_filters_as_scipy, |dev| {
    use cuprum::scipy::ndimage::{convolve_with, median_filter_with, minimum_filter_with};
    use cuprum::Complex;
    let xs: Vec<Complex<f32>> = (0..12).map(|i| Complex::new(i as f32, (11 - i) as f32)).collect();
    let x = cuprum::from_slice(&xs, &[3, 4], &dev)?;
    let near = |got: &cuprum::Array, dt: DType, want: &[(f64, f64)], tol: f64, what: &str| {
        assert_eq!(got.dtype(), dt, "{what}");
        let g = got.to_device(&cuprum::Device::Cpu).unwrap().astype(DType::Complex128).unwrap();
        let g = g.to_vec::<Complex<f64>>().unwrap();
        assert_eq!(g.len(), want.len(), "{what}");
        for (a, &(re, im)) in g.iter().zip(want) {
            assert!((a.re - re).abs() <= tol && (a.im - im).abs() <= tol, "{what}: {g:?}");
        }
    };
    let d = FilterOptions::default();
    let w = cuprum::from_slice(
        &[Complex::new(1.0, 0.0), Complex::new(0.0, 1.0), Complex::new(2.0, 0.0), Complex::new(0.5, 0.0)],
        &[2, 2],
        &dev,
    )?;
    near(
        &correlate_with(&x, &w, &d)?,
        DType::Complex64,
        &[
            (11., 38.5),
            (10.5, 37.),
            (13., 32.5),
            (15.5, 28.),
            (21., 28.5),
            (20.5, 27.),
            (23., 22.5),
            (25.5, 18.),
            (31., 10.5),
            (30.5, 9.),
            (33., 4.5),
            (35.5, 0.),
        ],
        1e-4,
        "correlate, complex weights",
    );
    let real = x.real().as_contiguous()?;
    near(
        &convolve_with(&real, &w, &FilterOptions { mode: Mode::Constant, cval: 2.0, ..d.clone() })?,
        DType::Complex64,
        &[
            (7., 4.),
            (10.5, 5.),
            (14., 6.),
            (7.5, 7.),
            (21., 8.),
            (24.5, 9.),
            (28., 10.),
            (9.5, 11.),
            (24., 2.),
            (26.5, 2.),
            (29., 2.),
            (11.5, 2.),
        ],
        1e-4,
        "convolve of a real input with complex weights",
    );
    let g = gaussian_filter_with(&x, &[1.0], &d)?;
    near(
        &g.slice(cuprum::s![0])?,
        DType::Complex64,
        &[(2.1152, 8.8848), (2.75142, 8.24858), (3.62517, 7.37483), (4.26139, 6.73861)],
        1e-4,
        "gaussian_filter",
    );
    near(
        &uniform_filter1d_with(&x, 3, 0, &FilterOptions { mode: Mode::Constant, cval: 1.5, ..d.clone() })?
            .slice(cuprum::s![0])?,
        DType::Complex64,
        &[(1.83333, 6.), (2.5, 5.33333), (3.16667, 4.66667), (3.83333, 4.)],
        1e-4,
        "uniform_filter1d, cval for the real part only",
    );
    near(
        &sobel_with(&x, 1, &d)?.slice(cuprum::s![0])?,
        DType::Complex64,
        &[(4., -4.), (8., -8.), (8., -8.), (4., -4.)],
        1e-4,
        "sobel",
    );
    near(
        &correlate1d_with(&x, &[1.0, 2.0, -1.0], 1, &FilterOptions { mode: Mode::Wrap, ..d.clone() })?
            .slice(cuprum::s![0])?,
        DType::Complex64,
        &[(2., 20.), (0., 22.), (2., 20.), (8., 14.)],
        1e-4,
        "correlate1d wrap",
    );
    // gaussian_gradient_magnitude: the complex root of the sum of complex squares.
    near(
        &gaussian_gradient_magnitude_with(&x, &[1.0], &d)?.slice(cuprum::s![1])?,
        DType::Complex64,
        &[(2.81885, -2.81885), (2.91725, -2.91725), (2.91725, -2.91725), (2.81885, -2.81885)],
        1e-4,
        "gaussian_gradient_magnitude",
    );
    let o = FilterOptions { axes: Some(vec![1]), mode: Mode::Constant, cval: 2.0, ..d.clone() };
    near(
        &gaussian_gradient_magnitude_with(&x, &[1.0], &o)?.slice(cuprum::s![0])?,
        DType::Complex64,
        &[(0.34957, 1.92224), (0.56249, 0.11285), (0.33521, -1.01055), (0.41497, 1.85685)],
        1e-4,
        "gaussian_gradient_magnitude along axis 1, constant 2",
    );
    // A real output dtype for a complex result: SciPy's RuntimeError.
    let e = correlate_with(&x, &w, &FilterOptions { output: Some(DType::Float32), ..d.clone() }).unwrap_err();
    assert_eq!((e.kind(), e.to_string()), (ErrorKind::RuntimeError, "output must have complex dtype".to_string()));
    let r = cuprum::scipy::ndimage::RankOptions::default();
    let size = cuprum::scipy::ndimage::Window::Size(&[3]);
    for e in [median_filter_with(&x, size, &r).unwrap_err(), minimum_filter_with(&x, size, &r).unwrap_err()] {
        assert_eq!((e.kind(), e.to_string()), (ErrorKind::TypeError, "Complex type not supported".to_string()));
    }
    Ok(())
});
