//! The GPU filters against the CPU on seeded random inputs: every filter, mode and dtype
//! (float16 refused alike), 1-d to 3-d shapes (2-d ones large enough for the fused kernel's
//! tiles and their edges), even and odd sizes, origins, cval, axes, orders, output dtypes and
//! views (transposed, strided, reversed). Both devices compute in float64 in SciPy's order, so
//! integers must agree exactly and floats to float64 rounding.

use crate::common::{assert_close, on, random, Rng};
use cuprum::scipy::ndimage::{
    convolve1d_with, convolve_with, correlate1d_with, correlate_with, gaussian_filter1d_with, gaussian_filter_with,
    gaussian_gradient_magnitude_with, gaussian_laplace_with, laplace_with, prewitt_with, sobel_with,
    uniform_filter1d_with, uniform_filter_with, FilterOptions, Mode,
};
use cuprum::{s, Array, DType, Device};

const MODES: [Mode; 5] = Mode::ALL;
const DTYPES: [DType; 12] = cuprum::dtype::REAL_DTYPES;

/// The exact values of an array, on the host, as f64 bits or integers.
fn agree(gpu: &Device, what: &str, cpu: cuprum::Result<Array>, g: cuprum::Result<Array>) {
    match (cpu, g) {
        (Ok(c), Ok(g)) => {
            assert_eq!(g.device(), *gpu, "{what}: device");
            assert_eq!(g.dtype(), c.dtype(), "{what}: dtype");
            if c.dtype().is_inexact() {
                assert_close(&g, &c, if c.dtype().real_dtype() == DType::Float64 { 1e-13 } else { 1e-6 }, what);
            } else {
                let gv = g.to_device(&Device::Cpu).unwrap().astype(DType::Float64).unwrap().to_vec::<f64>().unwrap();
                let cv = c.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap();
                if let Some(i) = (0..cv.len()).find(|&i| gv[i] != cv[i]) {
                    panic!("{what}: element {i} of {:?}: GPU {}, CPU {}", c.shape(), gv[i], cv[i]);
                }
            }
        }
        (Err(c), Err(g)) => assert_eq!(g.kind(), c.kind(), "{what}: errors (CPU {c}; GPU {g})"),
        (c, g) => panic!("{what}: CPU {:?}, GPU {:?}", c.map(|a| a.shape().to_vec()), g.map(|a| a.shape().to_vec())),
    }
}

/// Every filter of `x` (and `xg`, the same values on the GPU) with options `o`.
fn all_filters(gpu: &Device, x: &Array, xg: &Array, o: &FilterOptions, rng: &mut Rng, what: &str) {
    let nd = x.ndim();
    let mut w = |k: usize| -> Vec<f64> { (0..k).map(|_| (rng.uniform() * 6.0 - 3.0).round() / 2.0).collect() };
    let (w3, w4) = (w(3), w(4));
    let wshape: Vec<usize> = (0..nd).map(|d| 2 + d % 2).collect();
    let wn: Vec<f64> = (0..wshape.iter().product::<usize>()).map(|_| (rng.uniform() * 4.0 - 2.0).round()).collect();
    let wa = cuprum::from_slice(&wn, &wshape, &Device::Cpu).unwrap();
    let wg = on(gpu, &wa);
    let ax = nd as isize - 1;
    let ck = |name: &str, f: &dyn Fn(&Array, &Array) -> cuprum::Result<Array>| {
        agree(gpu, &format!("{name} {what}"), f(x, &wa), f(xg, &wg));
    };
    ck("correlate", &|a, w| correlate_with(a, w, o));
    ck("convolve", &|a, w| convolve_with(a, w, o));
    ck("correlate1d/3", &|a, _| correlate1d_with(a, &w3, ax, o));
    ck("correlate1d/4", &|a, _| correlate1d_with(a, &w4, 0, o));
    ck("convolve1d", &|a, _| convolve1d_with(a, &w4, ax, o));
    ck("gaussian_filter1d", &|a, _| gaussian_filter1d_with(a, 1.3, 0, o));
    ck("gaussian_filter", &|a, _| gaussian_filter_with(a, &[1.7], o));
    ck("uniform_filter1d", &|a, _| uniform_filter1d_with(a, 4, ax, o));
    ck("uniform_filter", &|a, _| uniform_filter_with(a, &[3], o));
    ck("sobel", &|a, _| sobel_with(a, 0, o));
    ck("prewitt", &|a, _| prewitt_with(a, ax, o));
    ck("laplace", &|a, _| laplace_with(a, o));
    ck("gaussian_laplace", &|a, _| gaussian_laplace_with(a, &[1.0], o));
    ck("gaussian_gradient_magnitude", &|a, _| gaussian_gradient_magnitude_with(a, &[0.8], o));
}

fn case_dtype(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let mut rng = Rng::new(4100 + dt as u64);
    for shape in [&[37][..], &[70, 45], &[5, 9, 13]] {
        let x = random(shape, dt, &mut rng, false);
        let xg = on(gpu, &x);
        for mode in MODES {
            let o = FilterOptions { mode, cval: 1.5, ..Default::default() };
            all_filters(gpu, &x, &xg, &o, &mut rng, &format!("{dt} {shape:?} {mode:?}"));
        }
    }
    Ok(())
}

per_dtype!(case_dtype: filters_bool => Bool, filters_i8 => Int8, filters_i16 => Int16, filters_i32 => Int32,
    filters_i64 => Int64, filters_u8 => UInt8, filters_u16 => UInt16, filters_u32 => UInt32, filters_u64 => UInt64,
    filters_f16 => Float16, filters_f32 => Float32, filters_f64 => Float64, filters_c64 => Complex64,
    filters_c128 => Complex128);

gpu_test!(filters_options, |gpu| { options_case(&gpu) });

/// Output dtypes, origins, axes, per-axis modes, orders, radii, views, large kernels.
fn options_case(gpu: &Device) -> cuprum::Result<()> {
    let gpu = *gpu;
    let mut rng = Rng::new(4200);
    let x = random(&[67, 131], DType::Float32, &mut rng, true); // NaN and infinities too
    let xg = on(&gpu, &x);
    for out in DTYPES {
        let o = FilterOptions { output: Some(out), mode: Mode::Mirror, ..Default::default() };
        all_filters(&gpu, &x, &xg, &o, &mut rng, &format!("output {out}"));
    }
    for (k, o) in [
        FilterOptions { origin: vec![1, -1], ..Default::default() },
        FilterOptions { axes: Some(vec![1]), origin: vec![-1], ..Default::default() },
        FilterOptions { modes: vec![Mode::Wrap, Mode::Constant], cval: -2.0, ..Default::default() },
        FilterOptions { order: vec![2, 1], truncate: 2.5, ..Default::default() },
        FilterOptions { radius: Some(vec![12, 3]), order: vec![3], ..Default::default() },
    ]
    .iter()
    .enumerate()
    {
        all_filters(&gpu, &x, &xg, o, &mut rng, &format!("options {k}"));
    }
    // Complex weights (a correlation conjugates them) over real and complex images.
    let wc = random(&[3, 4], DType::Complex128, &mut rng, false);
    let wcg = on(&gpu, &wc);
    let z = random(&[40, 33], DType::Complex64, &mut rng, false);
    let zg = on(&gpu, &z);
    for (name, a, ag) in [("real", &x, &xg), ("complex", &z, &zg)] {
        for mode in MODES {
            let o = FilterOptions { mode, ..Default::default() };
            let what = format!("complex weights, {name} image, {mode:?}");
            agree(&gpu, &format!("correlate {what}"), correlate_with(a, &wc, &o), correlate_with(ag, &wcg, &o));
            agree(&gpu, &format!("convolve {what}"), convolve_with(a, &wc, &o), convolve_with(ag, &wcg, &o));
        }
    }
    // Views: transposed, strided, reversed.
    let xi = random(&[90, 80], DType::Int32, &mut rng, false);
    let xig = on(&gpu, &xi);
    for (name, a, ag) in [
        ("transposed", xi.t(), xig.t()),
        ("strided", xi.slice(s![1..;3, ..;2])?, xig.slice(s![1..;3, ..;2])?),
        ("reversed", xi.slice(s![..;-1, ..])?, xig.slice(s![..;-1, ..])?),
    ] {
        let o = FilterOptions { output: Some(DType::Float64), ..Default::default() };
        all_filters(&gpu, &a, &ag, &o, &mut rng, name);
    }
    // Large kernels (past the fused kernel's taps and the shared memory), large images.
    let big = random(&[300, 517], DType::Float64, &mut rng, false);
    let bg = on(&gpu, &big);
    for sigma in [0.5, 2.0, 7.9, 9.0, 20.0] {
        for mode in MODES {
            let o = FilterOptions { mode, cval: 0.5, ..Default::default() };
            let what = format!("gaussian sigma={sigma} {mode:?}");
            agree(&gpu, &what, gaussian_filter_with(&big, &[sigma], &o), gaussian_filter_with(&bg, &[sigma], &o));
        }
    }
    // An output array on another device: a ValueError (DeviceMismatch).
    if gpu != Device::Cpu {
        let host_out = cuprum::zeros(big.shape(), DType::Float64, &Device::Cpu)?;
        let e = gaussian_filter_with(&bg, &[1.0], &FilterOptions { out: Some(host_out), ..Default::default() })
            .unwrap_err();
        assert_eq!(e.kind(), cuprum::ErrorKind::ValueError);
    }
    let o = FilterOptions { output: Some(DType::UInt8), ..Default::default() };
    agree(&gpu, "uint8 out", gaussian_filter_with(&big, &[2.0], &o), gaussian_filter_with(&bg, &[2.0], &o));
    agree(&gpu, "uniform 31", uniform_filter_with(&big, &[31, 2], &o), uniform_filter_with(&bg, &[31, 2], &o));
    Ok(())
}
