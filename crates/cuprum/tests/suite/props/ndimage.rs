//! `scipy.ndimage` filters on random views (transposed, strided, reversed), every boundary mode,
//! window sizes from 1 to past the image and to the ends of `usize`, sigmas from tiny to huge:
//! the view's result equals the contiguous copy's bit for bit, an impossible size is the same
//! error kind on both, and on the GPU the result is the CPU's within float rounding.

use super::{check, stream, OrFail};
use crate::common::{assert_close, rtol_for};
use cuprum::scipy::ndimage::{self, FilterOptions, Mode, RankOptions, Window};
use cuprum::{Array, DType, Device, SliceElem};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Filter {
    Uniform(usize),
    Gaussian(f64),
    Median(usize),
    Minimum(usize),
    Maximum(usize),
    Percentile(f64, usize),
}

fn size() -> impl Strategy<Value = usize> {
    prop_oneof![8 => 1usize..6, 1 => 6usize..40, 1 => prop::sample::select(vec![1usize << 40, usize::MAX / 2, usize::MAX])]
}

fn filter() -> impl Strategy<Value = Filter> {
    prop_oneof![
        size().prop_map(Filter::Uniform),
        prop_oneof![4 => 0.1f64..4.0, 1 => prop::sample::select(vec![0.0, 1e-300, 1e12, 1e300])]
            .prop_map(Filter::Gaussian),
        size().prop_map(Filter::Median),
        size().prop_map(Filter::Minimum),
        size().prop_map(Filter::Maximum),
        (0.0f64..=100.0, size()).prop_map(|(p, s)| Filter::Percentile(p, s)),
    ]
}

fn mode() -> impl Strategy<Value = Mode> {
    prop::sample::select(vec![Mode::Reflect, Mode::Constant, Mode::Nearest, Mode::Mirror, Mode::Wrap])
}

fn filtered(f: &Filter, x: &Array, mode: Mode) -> cuprum::Result<Array> {
    let fo = FilterOptions { mode, cval: 1.5, ..FilterOptions::default() };
    let ro = RankOptions { mode, cval: 1.5, ..RankOptions::default() };
    match *f {
        Filter::Uniform(s) => ndimage::uniform_filter_with(x, &[s], &fo),
        Filter::Gaussian(s) => ndimage::gaussian_filter_with(x, &[s], &fo),
        Filter::Median(s) => ndimage::median_filter_with(x, Window::Size(&[s]), &ro),
        Filter::Minimum(s) => ndimage::minimum_filter_with(x, Window::Size(&[s]), &ro),
        Filter::Maximum(s) => ndimage::maximum_filter_with(x, Window::Size(&[s]), &ro),
        Filter::Percentile(p, s) => ndimage::percentile_filter_with(x, p, Window::Size(&[s]), &ro),
    }
}

/// `values` as a `rows x cols` view of the given layout (0: contiguous, 1: transposed,
/// 2: every other element, 3: reversed rows).
fn view(values: &[f64], rows: usize, cols: usize, dt: DType, layout: u8, dev: &Device) -> cuprum::Result<Array> {
    let a = cuprum::from_slice(values, &[rows, cols], dev)?.astype(dt)?;
    match layout {
        0 => Ok(a),
        1 => a.t().copy().map(|c| c.t()),
        2 => {
            let mut big = cuprum::zeros(&[2 * rows, 2 * cols], dt, dev)?;
            let step = SliceElem::Slice { start: None, end: None, step: 2 };
            let mut v = big.slice_mut([step, step])?;
            v.assign(&a)?;
            Ok(v)
        }
        _ => a.flip(0)?.copy()?.flip(0),
    }
}

device_test!(filters_of_views_match_copies, |dev| {
    let dtypes = prop::sample::select(vec![DType::Float32, DType::Float64, DType::UInt8, DType::Int16]);
    let pool = proptest::collection::vec(prop_oneof![20 => -50.0f64..50.0, 1 => Just(f64::NAN)], 144);
    let strategy = (0usize..12, 0usize..12, dtypes, 0u8..4, filter(), mode(), pool);
    check(
        "filters_of_views_match_copies",
        stream(0xF117E4, &dev),
        strategy,
        |(rows, cols, dt, layout, f, mode, pool)| {
            let vals: Vec<f64> = pool[..rows * cols]
                .iter()
                .map(|v| {
                    if dt.is_float() {
                        *v
                    } else if v.is_nan() {
                        0.0
                    } else {
                        v.abs().floor()
                    }
                })
                .collect();
            let x = view(&vals, rows, cols, dt, layout, &dev).or_fail("view")?;
            let copy = x.copy().or_fail("copy")?;
            let what = format!("{f:?} {mode:?} of {dt:?} {rows}x{cols} layout {layout}");
            match (filtered(&f, &x, mode), filtered(&f, &copy, mode)) {
                (Ok(g), Ok(w)) => {
                    assert_close(&g, &w, 0.0, &what);
                    if !dev.is_cpu() {
                        // The GPU against the CPU (the CPU's own checks are SciPy's fixtures).
                        let host = x.to_device(&Device::Cpu).or_fail("to host")?;
                        let c = filtered(&f, &host, mode).or_fail(&format!("{what} on the CPU"))?;
                        assert_close(
                            &g,
                            &c,
                            rtol_for(if dt.is_float() { dt } else { DType::Float64 }).max(1e-6),
                            &what,
                        );
                    }
                }
                (Err(a), Err(b)) => prop_assert_eq!(a.kind(), b.kind(), "{}: {} / {}", what, a, b),
                (g, w) => return Err(TestCaseError::fail(format!("{what}: view {:?}, copy {:?}", g.err(), w.err()))),
            }
            Ok(())
        },
    );
    Ok(())
});
