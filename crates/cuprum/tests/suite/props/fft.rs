//! FFTs of random views along random axes, with lengths `n` that crop, pad, are 0 (NumPy's
//! ValueError) or no machine holds (MemoryError), and axes out of range (AxisError): the view's
//! transform equals the contiguous copy's, and `ifft(fft(x))` returns `x`.

use super::{check, stream, OrFail};
use cuprum::fft;
use cuprum::{Array, DType, ErrorKind};
use proptest::prelude::*;

fn max_diff(a: &Array, b: &Array) -> Result<f64, TestCaseError> {
    let f = |x: &Array| x.astype(DType::Complex128).and_then(|c| c.to_vec::<cuprum::Complex<f64>>()).or_fail("to_vec");
    let (a, b) = (f(a)?, f(b)?);
    Ok(a.iter().zip(&b).map(|(x, y)| (x - y).norm()).fold(0.0, f64::max))
}

device_test!(fft_of_views_match_copies, |dev| {
    let n =
        proptest::option::of(prop_oneof![8 => 0usize..20, 1 => prop::sample::select(vec![1usize << 45, usize::MAX])]);
    let dtypes =
        prop::sample::select(vec![DType::Float32, DType::Float64, DType::Complex64, DType::Complex128, DType::Int16]);
    let pool = proptest::collection::vec(-8.0f64..8.0, 60);
    let strategy = (1usize..5, 0usize..7, -3isize..3, n, dtypes, any::<bool>(), pool);
    check("fft_of_views_match_copies", stream(0xFF7, &dev), strategy, |(rows, cols, axis, n, dt, rev, pool)| {
        let a = cuprum::from_slice(&pool[..rows * cols * 2], &[rows, cols * 2], &dev)
            .and_then(|a| a.astype(dt))
            .or_fail("input")?;
        // Every other column, reversed or not: a view with a stride of 2 or -2 elements.
        let step = if rev { -2 } else { 2 };
        let x = a
            .slice([
                cuprum::SliceElem::Slice { start: None, end: None, step: 1 },
                cuprum::SliceElem::Slice { start: None, end: None, step },
            ])
            .or_fail("view")?;
        let copy = x.copy().or_fail("copy")?;
        let what = format!("fft(n={n:?}, axis={axis}) of {dt:?} {rows}x{cols} step {step}");
        let (g, w) = (
            fft::fft_with(&x, &fft::FftOptions { n, axis, ..Default::default() }),
            fft::fft_with(&copy, &fft::FftOptions { n, axis, ..Default::default() }),
        );
        match (g, w) {
            (Ok(g), Ok(w)) => {
                let scale = 1.0 + max_diff(&w, &cuprum::zeros_like(&w).or_fail("zeros")?)?;
                let tol = if matches!(dt, DType::Float32 | DType::Complex64) { 1e-5 } else { 1e-12 };
                prop_assert!(max_diff(&g, &w)? <= tol * scale, "{}: view and copy differ", what);
                // The round trip (of the transform's own length).
                if n.is_none() && cols > 0 {
                    let back = fft::ifft_with(&g, &fft::FftOptions { axis, ..Default::default() }).or_fail("ifft")?;
                    prop_assert!(max_diff(&back, &x)? <= tol * scale, "{}: ifft(fft(x)) is not x", what);
                }
            }
            (Err(a), Err(b)) => {
                prop_assert_eq!(a.kind(), b.kind(), "{}: {} / {}", what, a, b);
                let len = if axis == 0 || axis == -2 { rows } else { cols };
                let want: &[ErrorKind] = if !(-2..2).contains(&axis) {
                    // NumPy's own fft says IndexError without `n`, AxisError (an IndexError) with it.
                    &[ErrorKind::IndexError, ErrorKind::AxisError]
                } else if n == Some(0) || (n.is_none() && len == 0) {
                    &[ErrorKind::ValueError]
                } else if n == Some(usize::MAX) {
                    // Past isize::MAX bytes: NumPy's "array is too big" or MemoryError.
                    &[ErrorKind::ValueError, ErrorKind::MemoryError]
                } else {
                    &[ErrorKind::MemoryError]
                };
                prop_assert!(want.contains(&a.kind()), "{}: {:?} ({}), want one of {:?}", what, a.kind(), a, want);
            }
            (g, w) => return Err(TestCaseError::fail(format!("{what}: view {:?}, copy {:?}", g.err(), w.err()))),
        }
        Ok(())
    });
    Ok(())
});
