//! `cuprum::fft`: the GPU (cuFFT) against the CPU (rustfft/realfft) on fresh random inputs
//! of every dtype, views, odd, prime and large lengths (the CPU's four-step path), batches
//! and n-d transforms; the round trips; the errors. NumPy's values are checked in
//! `conformance::fft` (the fixtures).

use crate::common::{random, Rng};
use cuprum::fft::{self, Norm};
use cuprum::{Array, DType, Device, ErrorKind};

/// The largest difference of `got` and `want` relative to `want`'s largest magnitude (both as
/// complex128 on the host).
fn rel_err(got: &Array, want: &Array) -> f64 {
    let h = |a: &Array| a.to_device(&Device::Cpu).unwrap().astype(DType::Complex128).unwrap();
    let (g, w) = (h(got), h(want));
    let g = g.to_vec::<cuprum::Complex<f64>>().unwrap();
    let w = w.to_vec::<cuprum::Complex<f64>>().unwrap();
    let scale = w.iter().map(|v| v.norm()).fold(0f64, f64::max).max(1e-300);
    g.iter().zip(&w).map(|(a, b)| (a - b).norm()).fold(0f64, f64::max) / scale
}

fn tol(dt: DType) -> f64 {
    if matches!(dt, DType::Float32 | DType::Complex64 | DType::Float16) {
        3e-5
    } else {
        1e-12
    }
}

gpu_test!(gpu_against_cpu, |gpu| {
    let mut rng = Rng::new(1910);
    let norms = [Norm::Backward, Norm::Ortho, Norm::Forward];
    // 1-d along an axis: lengths odd, prime, powers of two, a large one (cuFFT's multi-kernel
    // plans; the CPU's four-step), with crops and pads, on views.
    for &(shape, axis) in &[
        (&[1usize][..], 0isize),
        (&[7], 0),
        (&[1009], 0),
        (&[4096], 0),
        (&[1 << 20], 0),
        (&[3 * 5 * 7 * 11 * 13], 0),
        (&[33, 40], 0),
        (&[33, 40], 1),
        (&[4, 5, 6], 1),
        (&[0, 5], 1),
    ] {
        for dt in [DType::Complex128, DType::Complex64, DType::Float64, DType::Float32, DType::Int32] {
            let host = random(shape, dt, &mut rng, false);
            let norm = norms[(rng.next_u64() % 3) as usize];
            let len = shape[axis as usize];
            let ns = [None, Some(len.max(2) + (rng.next_u64() % 9) as usize), Some((len / 2).max(1))];
            let n = ns[(rng.next_u64() % 3) as usize];
            let g = host.to_device(&gpu)?;
            // A reversed view on the GPU (negative strides).
            let g = if shape.len() == 1 && len > 1 {
                let mut big = cuprum::zeros(&[2 * len], dt, &gpu)?;
                let mut v = big.slice_mut(cuprum::s![..;-2])?;
                v.assign(&g)?;
                let v = big.slice(cuprum::s![..;-2])?;
                assert!(!v.is_c_contiguous() && v.shape() == g.shape());
                v
            } else {
                g
            };
            let what = format!("{shape:?} axis {axis} {dt} n {n:?} {norm:?}");
            if dt.is_complex() {
                let opts = fft::FftOptions { n, axis, norm };
                for f in [fft::fft_with, fft::ifft_with] {
                    let (a, b) = (f(&host, &opts)?, f(&g, &opts)?);
                    assert_eq!((b.dtype(), b.shape()), (a.dtype(), a.shape()), "{what}");
                    assert!(rel_err(&b, &a) < tol(dt), "{what}: {}", rel_err(&b, &a));
                }
                let m = n.unwrap_or(2 * len.saturating_sub(1));
                if m >= 1 && len > 0 {
                    let (a, b) = (
                        fft::irfft_with(&host, &fft::FftOptions { n, axis, norm })?,
                        fft::irfft_with(&g, &fft::FftOptions { n, axis, norm })?,
                    );
                    assert!(rel_err(&b, &a) < tol(dt), "irfft {what}: {}", rel_err(&b, &a));
                    let (a, b) = (
                        fft::hfft_with(&host, &fft::FftOptions { n, axis, norm })?,
                        fft::hfft_with(&g, &fft::FftOptions { n, axis, norm })?,
                    );
                    assert!(rel_err(&b, &a) < tol(dt), "hfft {what}: {}", rel_err(&b, &a));
                }
            } else {
                let (a, b) = (
                    fft::rfft_with(&host, &fft::FftOptions { n, axis, norm })?,
                    fft::rfft_with(&g, &fft::FftOptions { n, axis, norm })?,
                );
                assert_eq!((b.dtype(), b.shape()), (a.dtype(), a.shape()), "rfft {what}");
                assert!(rel_err(&b, &a) < tol(dt), "rfft {what}: {}", rel_err(&b, &a));
                let (a, b) = (
                    fft::ihfft_with(&host, &fft::FftOptions { n, axis, norm })?,
                    fft::ihfft_with(&g, &fft::FftOptions { n, axis, norm })?,
                );
                assert!(rel_err(&b, &a) < tol(dt), "ihfft {what}: {}", rel_err(&b, &a));
            }
        }
    }
    // n-d: two, three and four axes (more than cuFFT's three at a time), reordered, with s.
    for &(shape, axes, s) in &[
        (&[64usize, 48][..], &[0isize, 1][..], None),
        (&[9, 10, 11], &[0, 2], Some(&[12usize, 7][..])),
        (&[5, 6, 7], &[2, 0, 1], None),
        (&[3, 4, 5, 6], &[0, 1, 2, 3], None),
        (&[2, 256, 256], &[1, 2], None),
        (&[6, 1, 5], &[-1, -2], Some(&[4, 3][..])),
    ] {
        for dt in [DType::Complex64, DType::Float64] {
            let host = random(shape, dt, &mut rng, false);
            let g = host.to_device(&gpu)?;
            let norm = norms[(rng.next_u64() % 3) as usize];
            let what = format!("{shape:?} axes {axes:?} s {s:?} {dt} {norm:?}");
            let pairs: Vec<(Array, Array)> = if dt.is_complex() {
                vec![
                    (
                        fft::fftn_with(&host, &fft::FftnOptions { s, axes: Some(axes), norm })?,
                        fft::fftn_with(&g, &fft::FftnOptions { s, axes: Some(axes), norm })?,
                    ),
                    (
                        fft::ifftn_with(&host, &fft::FftnOptions { s, axes: Some(axes), norm })?,
                        fft::ifftn_with(&g, &fft::FftnOptions { s, axes: Some(axes), norm })?,
                    ),
                    (
                        fft::irfftn_with(&host, &fft::FftnOptions { s, axes: Some(axes), norm })?,
                        fft::irfftn_with(&g, &fft::FftnOptions { s, axes: Some(axes), norm })?,
                    ),
                ]
            } else {
                vec![(
                    fft::rfftn_with(&host, &fft::FftnOptions { s, axes: Some(axes), norm })?,
                    fft::rfftn_with(&g, &fft::FftnOptions { s, axes: Some(axes), norm })?,
                )]
            };
            for (i, (a, b)) in pairs.iter().enumerate() {
                assert_eq!((b.dtype(), b.shape()), (a.dtype(), a.shape()), "{i}: {what}");
                assert!(rel_err(b, a) < tol(dt), "{i}: {what}: {}", rel_err(b, a));
            }
        }
    }
    Ok(())
});

device_test!(round_trips_and_rules, |dev| {
    let mut rng = Rng::new(1911);
    // ifft(fft(x)) = x, irfftn(rfftn(x), s) = x, every norm; Parseval with "ortho".
    for norm in [Norm::Backward, Norm::Ortho, Norm::Forward] {
        let x = random(&[6, 35], DType::Complex128, &mut rng, false).to_device(&dev)?;
        let y = fft::ifft_with(
            &fft::fft_with(&x, &fft::FftOptions { norm, ..Default::default() })?,
            &fft::FftOptions { norm, ..Default::default() },
        )?;
        assert!(rel_err(&y, &x) < 1e-13, "{norm:?}");
        let r = random(&[5, 8, 9], DType::Float32, &mut rng, false).to_device(&dev)?;
        let y = fft::irfftn_with(
            &fft::rfftn_with(&r, &fft::FftnOptions { norm, ..Default::default() })?,
            &fft::FftnOptions { s: Some(&[5, 8, 9]), norm, ..Default::default() },
        )?;
        assert_eq!(y.dtype(), DType::Float32);
        assert!(rel_err(&y, &r) < 1e-5, "{norm:?}");
    }
    let x = random(&[1000], DType::Complex128, &mut rng, false).to_device(&dev)?;
    let e = |a: &Array| a.abs().unwrap().square().unwrap().sum(None).unwrap().item::<f64>().unwrap();
    let (ex, ey) =
        (e(&x), e(&fft::fft_with(&x, &fft::FftOptions { axis: 0, norm: Norm::Ortho, ..Default::default() })?));
    assert!((ex - ey).abs() < 1e-12 * ex, "Parseval: {ex} vs {ey}");
    // The precision rule and the dtypes out.
    let f16 = random(&[8], DType::Float16, &mut rng, false).to_device(&dev)?;
    assert_eq!(fft::fft_with(&f16, &fft::FftOptions { axis: 0, ..Default::default() })?.dtype(), DType::Complex64);
    assert_eq!(fft::rfft_with(&f16, &fft::FftOptions { axis: 0, ..Default::default() })?.dtype(), DType::Complex64);
    let i = cuprum::arange(8, &dev)?;
    assert_eq!(fft::fft_with(&i, &fft::FftOptions { axis: 0, ..Default::default() })?.dtype(), DType::Complex128);
    assert_eq!(
        fft::irfft_with(
            &fft::rfft_with(&i, &fft::FftOptions { axis: 0, ..Default::default() })?,
            &fft::FftOptions { axis: 0, ..Default::default() }
        )?
        .dtype(),
        DType::Float64
    );
    // Empty batches.
    let z = cuprum::zeros(&[0, 4], DType::Complex64, &dev)?;
    assert_eq!(fft::fft_with(&z, &fft::FftOptions { axis: 1, ..Default::default() })?.shape(), &[0, 4]);
    assert_eq!(fft::rfft2(&cuprum::zeros(&[0, 3, 4], DType::Float32, &dev)?)?.shape(), &[0, 3, 3]);
    // fftshift then ifftshift is the identity; fftfreq's layout.
    let v = cuprum::arange(7, &dev)?;
    assert_eq!(fft::fftshift(&v, None)?.to_vec::<i64>()?, [4, 5, 6, 0, 1, 2, 3]);
    assert_eq!(fft::ifftshift(&fft::fftshift(&v, None)?, None)?.to_vec::<i64>()?, (0..7).collect::<Vec<i64>>());
    assert_eq!(fft::fftfreq(4, 0.5, &dev)?.to_vec::<f64>()?, [0.0, 0.5, -1.0, -0.5]);
    Ok(())
});

device_test!(errors, |dev| {
    let x = cuprum::zeros(&[4, 6], DType::Complex128, &dev)?;
    let kind = |r: cuprum::Result<Array>| r.unwrap_err().kind();
    assert_eq!(kind(fft::fft_with(&x, &fft::FftOptions { n: Some(0), ..Default::default() })), ErrorKind::ValueError);
    assert_eq!(kind(fft::fft_with(&x, &fft::FftOptions { axis: 2, ..Default::default() })), ErrorKind::IndexError);
    assert_eq!(kind(fft::fft_with(&x, &fft::FftOptions { axis: -3, ..Default::default() })), ErrorKind::IndexError);
    assert_eq!(kind(fft::rfft(&x)), ErrorKind::TypeError);
    assert_eq!(kind(fft::irfft(&x.slice(cuprum::s![.., ..1])?)), ErrorKind::ValueError);
    assert_eq!(
        kind(fft::fftn_with(&x, &fft::FftnOptions { s: Some(&[0, 3]), ..Default::default() })),
        ErrorKind::ValueError
    );
    assert_eq!(
        kind(fft::fftn_with(&x, &fft::FftnOptions { s: Some(&[3, 3, 3]), ..Default::default() })),
        ErrorKind::ValueError
    );
    assert_eq!(
        kind(fft::fftn_with(&x, &fft::FftnOptions { axes: Some(&[0, 0]), ..Default::default() })),
        ErrorKind::ValueError
    );
    assert_eq!(
        kind(fft::rfftn_with(&x.real(), &fft::FftnOptions { axes: Some(&[1, -1]), ..Default::default() })),
        ErrorKind::ValueError
    );
    assert_eq!(
        kind(fft::fftn_with(&x, &fft::FftnOptions { s: Some(&[4]), axes: Some(&[0, 1]), ..Default::default() })),
        ErrorKind::ValueError
    );
    assert_eq!(
        kind(fft::fft_with(
            &cuprum::zeros(&[0], DType::Float64, &dev)?,
            &fft::FftOptions { axis: 0, ..Default::default() }
        )),
        ErrorKind::ValueError
    );
    assert_eq!("sideways".parse::<Norm>().unwrap_err().kind(), ErrorKind::ValueError);
    assert_eq!("ortho".parse::<Norm>()?, Norm::Ortho);
    Ok(())
});
