//! The FFT workloads of WORKLOADS.md's second table (as `cupy_reference.py` builds them: `im`
//! is the sky), and `convrule_*`: the timings the GPU's `convolve(method='auto')` rule is
//! fitted to (the direct sum and the FFT path over a grid of image and kernel sizes, both
//! precisions; run with `--only 'convrule_*' --no-cpu`).

use super::linalg::{on, pair, relcheck, row, Gen};
use super::Opts;
use cuprum::fft;
use cuprum::scipy::signal::{self, Method};
use cuprum::{Array, ConvolveMode, DType, Device, Result};

fn gauss(half: i64) -> Result<Array> {
    let n = (2 * half + 1) as usize;
    let mut v = Vec::with_capacity(n * n);
    for y in -half..=half {
        for x in -half..=half {
            v.push((-((x * x + y * y) as f64) / (2.0 * 20.0 * 20.0)).exp());
        }
    }
    cuprum::from_slice(&v, &[n, n], &Device::Cpu)?.astype(DType::Float32)
}

pub(crate) fn workloads(o: &mut Opts, gpu: Device, rep: usize, sky: &Array) -> Result<()> {
    let mut rng = Gen(24);
    if o.wants("fft_2p24_c64") {
        let n = 1 << 24;
        let re = cuprum::from_vec(rng.normal(n), &Device::Cpu)?;
        let im = cuprum::from_vec(rng.normal(n), &Device::Cpu)?;
        let z = cuprum::add(&re, &cuprum::multiply(&im, cuprum::Complex::new(0.0, 1.0))?)?.astype(DType::Complex64)?;
        let z = pair(z, gpu)?;
        let f = |d: &Device| fft::fft(&on(&z, d));
        row(o, "fft_2p24_c64", gpu, rep, 3, "cuFFT C2C; CPU four-step over rustfft", f, relcheck(1e-5));
    }
    let im = sky.astype(DType::Float32)?.to_device(&Device::Cpu)?;
    if o.wants("rfft2_4096_f32") || o.wants("fft2_4096_c64") {
        let big = cuprum::tile(&im, &[2, 2])?;
        let b = pair(big.copy()?, gpu)?;
        let f = |d: &Device| fft::rfft2(&on(&b, d));
        row(o, "rfft2_4096_f32", gpu, rep, 3, "cuFFT R2C 2-d", f, relcheck(1e-5));
        let c = pair(big.astype(DType::Complex64)?, gpu)?;
        let f = |d: &Device| fft::fft2(&on(&c, d));
        row(o, "fft2_4096_c64", gpu, rep, 3, "cuFFT C2C 2-d", f, relcheck(1e-5));
    }
    let k127 = gauss(63)?;
    let img = pair(im.copy()?, gpu)?;
    if o.wants("fftconvolve_2048_k127_f32") {
        let k = pair(k127.copy()?, gpu)?;
        let f = |d: &Device| {
            signal::fftconvolve_with(
                &on(&img, d),
                &on(&k, d),
                &signal::FftConvolveOptions { mode: ConvolveMode::Same, ..Default::default() },
            )
        };
        row(o, "fftconvolve_2048_k127_f32", gpu, rep, 3, "rfft2 of both, product, irfft2 (2187^2)", f, relcheck(1e-5));
    }
    if o.wants("convolve_auto_2048_k63_f32") {
        let k63 = k127.slice(cuprum::s![32..95, 32..95])?.copy()?;
        let k = pair(k63, gpu)?;
        let f = |d: &Device| {
            signal::convolve_with(
                &on(&img, d),
                &on(&k, d),
                &signal::ConvolveOptions { mode: ConvolveMode::Same, ..Default::default() },
            )
        };
        row(o, "convolve_auto_2048_k63_f32", gpu, rep, 3, "method auto (chooses the FFT here)", f, relcheck(1e-5));
    }
    if o.only.as_ref().is_some_and(|v| v.iter().any(|n| n.starts_with("convrule"))) {
        for dt in [DType::Float32, DType::Float64] {
            for n in [128usize, 512, 2048] {
                for k in [3usize, 7, 15, 31, 63] {
                    let x = pair(cuprum::from_slice(&rng.normal(n * n), &[n, n], &Device::Cpu)?.astype(dt)?, gpu)?;
                    let h = pair(cuprum::from_slice(&rng.normal(k * k), &[k, k], &Device::Cpu)?.astype(dt)?, gpu)?;
                    for (m, name) in [(Method::Direct, "direct"), (Method::Fft, "fft")] {
                        let f = |d: &Device| {
                            signal::convolve_with(
                                &on(&x, d),
                                &on(&h, d),
                                &signal::ConvolveOptions { mode: ConvolveMode::Same, method: m },
                            )
                        };
                        let tag = format!("convrule_{name}_{n}_k{k}_{dt}");
                        row(o, &tag, gpu, rep, 1, "", f, relcheck(1e-3));
                    }
                }
            }
        }
    }
    Ok(())
}
