//! Conformance groups: numpy.convolve/correlate, scipy.signal's 2-d, N-d and FFT convolutions.

use super::*;

// ------------------------------------------------------------------ signal

/// `np.convolve`/`np.correlate` (`mode=`) and `scipy.signal.convolve2d`/`correlate2d` (`mode=`,
/// `boundary=`, `fillvalue=`): the mode and boundary names are parsed with `FromStr`, so that a
/// name NumPy or SciPy refuses must give an error of the kind they raise.
fn run_signal(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::scipy::signal::{convolve2d_with, correlate2d_with, Convolve2dOptions};
    let x = inputs(case, dev, layout)?;
    let (a, b) = (x[0].array(), x[1].array());
    let mode: ConvolveMode = case.param("mode").parse()?;
    let r = match case.op.as_str() {
        "convolve" => cuprum::convolve_with(a, b, mode)?,
        "correlate" => cuprum::correlate_with(a, b, mode)?,
        "convolve2d" | "correlate2d" => {
            let boundary: Boundary = case.param("boundary").parse()?;
            let fill = parse_f64(case.param("fillvalue"));
            let f = if case.op == "convolve2d" { convolve2d_with } else { correlate2d_with };
            f(a, b, &Convolve2dOptions { mode, boundary, fillvalue: fill })?
        }
        op => panic!("unknown signal op {op}"),
    };
    Ok(vec![r])
}

// ------------------------------------------------------------------ signal_nd

/// `scipy.signal.convolve`/`correlate` (N-d; `mode=`, `method=`): the names are parsed with
/// `FromStr`, so that a name SciPy refuses must give an error of its kind.
fn run_signal_nd(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::scipy::signal::{convolve_with, correlate_with, Method};
    let x = inputs(case, dev, layout)?;
    let (a, b) = (x[0].array(), x[1].array());
    let mode: ConvolveMode = case.param("mode").parse()?;
    let method: Method = case.param("method").parse()?;
    let r = match case.op.as_str() {
        "convolve" => convolve_with(a, b, &cuprum::scipy::signal::ConvolveOptions { mode, method })?,
        "correlate" => correlate_with(a, b, &cuprum::scipy::signal::ConvolveOptions { mode, method })?,
        op => panic!("unknown signal_nd op {op}"),
    };
    Ok(vec![r])
}

device_test!(signal_fft, |dev| {
    run_group("signal_fft", &dev, &[Layout::Contig, Layout::Strided], run_signal_fft);
    Ok(())
});

/// scipy.signal's FFT convolutions: `fftconvolve`/`oaconvolve` with `mode` and `axes`, and
/// `convolve`/`correlate` with `method`.
fn run_signal_fft(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::scipy::signal::{convolve_with, correlate_with, fftconvolve_with, oaconvolve_with, Method};
    let x = inputs(case, dev, layout)?;
    let (a, b) = (x[0].array(), x[1].array());
    let mode: ConvolveMode = case.param("mode").parse()?;
    let axes: Option<Vec<isize>> = match case.param("axes") {
        "None" => None,
        v => Some(v.split('_').map(|t| t.parse().unwrap()).collect()),
    };
    let r = match case.op.as_str() {
        "fftconvolve" => {
            fftconvolve_with(a, b, &cuprum::scipy::signal::FftConvolveOptions { mode, axes: axes.as_deref() })?
        }
        "oaconvolve" => {
            oaconvolve_with(a, b, &cuprum::scipy::signal::FftConvolveOptions { mode, axes: axes.as_deref() })?
        }
        "convolve" => convolve_with(
            a,
            b,
            &cuprum::scipy::signal::ConvolveOptions { mode, method: case.param("method").parse::<Method>()? },
        )?,
        "correlate" => correlate_with(
            a,
            b,
            &cuprum::scipy::signal::ConvolveOptions { mode, method: case.param("method").parse::<Method>()? },
        )?,
        op => panic!("unknown signal_fft op {op}"),
    };
    Ok(vec![r])
}

device_test!(signal, |dev| {
    run_group("signal", &dev, ALL_LAYOUTS, run_signal);
    Ok(())
});

device_test!(signal_nd, |dev| {
    run_group("signal_nd", &dev, ALL_LAYOUTS, run_signal_nd);
    Ok(())
});
