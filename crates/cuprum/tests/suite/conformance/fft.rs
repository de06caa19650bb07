//! Conformance groups: numpy.fft.

use super::*;

device_test!(fft, |dev| {
    run_group("fft", &dev, &[Layout::Contig, Layout::Strided], run_fft);
    Ok(())
});

/// The fft group: NumPy's function on the input, with `n`/`axis` or `s`/`axes` and `norm`.
fn run_fft(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::fft::{self, Norm};
    let list = |k: &str| -> Option<Vec<isize>> {
        match case.param(k) {
            "None" => None,
            v => Some(v.split('_').map(|t| t.parse().unwrap()).collect()),
        }
    };
    let norm = || -> Norm { case.param("norm").parse().unwrap() };
    match case.op.as_str() {
        "fftfreq" => return Ok(vec![fft::fftfreq(case.num("n"), parse_f64(case.param("d")), dev)?]),
        "rfftfreq" => return Ok(vec![fft::rfftfreq(case.num("n"), parse_f64(case.param("d")), dev)?]),
        _ => {}
    }
    let ins = inputs(case, dev, layout)?;
    let x = ins[0].array();
    let su: Option<Vec<usize>> =
        case.param_opt("s").and_then(|_| list("s")).map(|v| v.iter().map(|&t| t as usize).collect());
    let s = su.as_deref();
    let axes = case.param_opt("axes").and_then(|_| list("axes"));
    let one = |f: fn(&Array, &fft::FftOptions) -> cuprum::Result<Array>| {
        let n = list("n").map(|v| v[0] as usize);
        f(x, &fft::FftOptions { n, axis: case.num("axis"), norm: norm() })
    };
    let out = match case.op.as_str() {
        "fft" => one(fft::fft_with)?,
        "ifft" => one(fft::ifft_with)?,
        "rfft" => one(fft::rfft_with)?,
        "irfft" => one(fft::irfft_with)?,
        "hfft" => one(fft::hfft_with)?,
        "ihfft" => one(fft::ihfft_with)?,
        "fftn" => fft::fftn_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "ifftn" => fft::ifftn_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "rfftn" => fft::rfftn_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "irfftn" => fft::irfftn_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "fft2" => fft::fft2_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "ifft2" => fft::ifft2_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "rfft2" => fft::rfft2_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "irfft2" => fft::irfft2_with(x, &fft::FftnOptions { s, axes: axes.as_deref(), norm: norm() })?,
        "fftshift" => fft::fftshift(x, axes.as_deref())?,
        "ifftshift" => fft::ifftshift(x, axes.as_deref())?,
        op => panic!("unknown fft op {op}"),
    };
    Ok(vec![out])
}
