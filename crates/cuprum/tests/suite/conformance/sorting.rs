//! Conformance groups: Sorting, quantiles, unique and counting, selection and scans, integer indexing.

use super::*;

/// partition/argpartition cases compare what is well defined: the result sorted along the axis,
/// its kth element and, for argpartition, the sorted indices (a permutation of each lane).
fn run_sort(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let one = |a: cuprum::Result<Array>| a.map(|a| vec![a]);
    match case.op.as_str() {
        "sort" => one(cuprum::sort(x[0].array(), opt_axis(case))),
        "argsort" => one(cuprum::argsort(x[0].array(), opt_axis(case))),
        "searchsorted" => {
            let side = if case.param("side") == "left" { Side::Left } else { Side::Right };
            one(cuprum::searchsorted(x[0].array(), x[1].array(), side))
        }
        "partition" | "argpartition" => {
            let a = x[0].array();
            let (axis, kth): (Option<isize>, isize) = (opt_axis(case), case.num("kth"));
            let ax = axis.unwrap_or(-1);
            let r = if case.op == "partition" {
                cuprum::partition(a, kth, axis)?
            } else {
                let i = cuprum::argpartition(a, kth, axis)?;
                let src = if axis.is_none() { a.ravel()? } else { a.view() };
                let r = cuprum::take_along_axis(&src, &i, ax)?;
                let n = *r.shape().last().unwrap() as isize;
                let n =
                    if axis.is_none() { n } else { r.shape()[cuprum::layout::normalize_axis(ax, r.ndim())?] as isize };
                let k = cuprum::from_vec(vec![kth.rem_euclid(n) as i64], dev)?;
                return Ok(vec![cuprum::sort(&r, ax)?, cuprum::take(&r, &k, ax)?, cuprum::sort(&i, ax)?]);
            };
            let n = if axis.is_none() { r.size() } else { r.shape()[cuprum::layout::normalize_axis(ax, r.ndim())?] };
            let k = cuprum::from_vec(vec![kth.rem_euclid(n as isize) as i64], dev)?;
            Ok(vec![cuprum::sort(&r, ax)?, cuprum::take(&r, &k, ax)?])
        }
        "lexsort" => one(cuprum::lexsort(&arrays(&x))),
        op => panic!("unknown sort op {op}"),
    }
}

fn run_quantile(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let (a, axis) = (x[0].array(), opt_axis(case));
    let q = || parse_f64(case.param("q"));
    let r = match case.op.as_str() {
        "median" => cuprum::median(a, axis)?,
        "nanmedian" => cuprum::nanmedian(a, axis)?,
        "quantiles" => {
            let qs: Vec<f64> = case.param("q").split(',').map(parse_f64).collect();
            cuprum::quantiles_with(
                a,
                &qs,
                axis,
                &cuprum::QuantileOptions { method: method(case), ..Default::default() },
            )?
        }
        "quantile" => cuprum::quantile_with(
            a,
            q(),
            axis,
            &cuprum::QuantileOptions { method: method(case), ..Default::default() },
        )?,
        "percentile" => cuprum::percentile_with(
            a,
            q(),
            axis,
            &cuprum::QuantileOptions { method: method(case), ..Default::default() },
        )?,
        "nanquantile" => cuprum::nanquantile_with(
            a,
            q(),
            axis,
            &cuprum::QuantileOptions { method: method(case), ..Default::default() },
        )?,
        "nanpercentile" => cuprum::nanpercentile_with(
            a,
            q(),
            axis,
            &cuprum::QuantileOptions { method: method(case), ..Default::default() },
        )?,
        op => panic!("unknown quantile op {op}"),
    };
    Ok(vec![r])
}

fn run_unique(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let flag = |k: &str| case.param(k) == "1";
    let r = match case.op.as_str() {
        "unique" => {
            let u = cuprum::unique_with(
                x[0].array(),
                &cuprum::UniqueOptions {
                    return_index: flag("index"),
                    return_inverse: flag("inverse"),
                    return_counts: flag("counts"),
                },
            )?;
            let mut out = vec![u.values];
            out.extend([u.index, u.inverse, u.counts].into_iter().flatten());
            return Ok(out);
        }
        "bincount" => cuprum::bincount_with(
            x[0].array(),
            &cuprum::BincountOptions { weights: x.get(1).map(|w| w.array()), minlength: case.num("minlength") },
        )?,
        "histogram" => {
            let mut rest = x[1..].iter();
            let bins = match case.param("bins") {
                "edges" => Bins::Edges(rest.next().expect("edges").array().to_vec_as::<f64>()?),
                n => Bins::Count(n.parse().unwrap()),
            };
            let range = match case.param("range") {
                "None" => None,
                r => {
                    let v: Vec<f64> = r.split(',').map(parse_f64).collect();
                    Some((v[0], v[1]))
                }
            };
            let w = if flag("weights") { Some(rest.next().expect("weights").array()) } else { None };
            let (h, e) = cuprum::histogram_with(
                x[0].array(),
                bins,
                &cuprum::HistogramOptions { range, weights: w, density: flag("density") },
            )?;
            return Ok(vec![h, e]);
        }
        "digitize" => {
            cuprum::digitize_with(x[0].array(), x[1].array(), &cuprum::DigitizeOptions { right: flag("right") })?
        }
        "isin" => cuprum::isin(x[0].array(), x[1].array())?,
        op => panic!("unknown unique op {op}"),
    };
    Ok(vec![r])
}

fn run_select(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let r = match case.op.as_str() {
        "mask" => x[0].array().mask(x[1].array())?,
        "compress" => cuprum::compress(x[0].array(), x[1].array(), opt_axis(case))?,
        "extract" => cuprum::extract(x[0].array(), x[1].array())?,
        "nonzero" => return cuprum::nonzero(x[0].array()),
        "flatnonzero" => cuprum::flatnonzero(x[0].array())?,
        "argwhere" => cuprum::argwhere(x[0].array())?,
        "cumsum" => cuprum::cumsum(x[0].array(), opt_axis(case))?,
        "cumprod" => cuprum::cumprod(x[0].array(), opt_axis(case))?,
        "diff" => cuprum::diff_with(x[0].array(), &cuprum::DiffOptions { n: case.num("n"), axis: case.num("axis") })?,
        op => panic!("unknown select op {op}"),
    };
    Ok(vec![r])
}

/// `put` and `add.at` return the array they wrote into (a fresh input in the case's layout).
fn run_index(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let mut x = inputs(case, dev, layout)?;
    let r = match case.op.as_str() {
        "take" => cuprum::take(x[0].array(), x[1].array(), opt_axis(case))?,
        "take_along_axis" => cuprum::take_along_axis(x[0].array(), x[1].array(), case.num::<isize>("axis"))?,
        "put" => {
            let rest = x.split_off(1);
            let mut a = into_array(x.pop().unwrap());
            cuprum::put(&mut a, rest[0].array(), rest[1].array())?;
            a
        }
        "add.at" => {
            let rest = x.split_off(1);
            let mut a = into_array(x.pop().unwrap());
            cuprum::scatter_add(&mut a, &arrays(&rest[1..]), rest[0].array())?;
            a
        }
        op => panic!("unknown index op {op}"),
    };
    Ok(vec![r])
}

device_test!(sorting, |dev| {
    run_group("sort", &dev, ALL_LAYOUTS, run_sort);
    Ok(())
});

device_test!(quantiles, |dev| {
    run_group("quantile", &dev, ALL_LAYOUTS, run_quantile);
    Ok(())
});

device_test!(unique_and_counting, |dev| {
    run_group("unique", &dev, ALL_LAYOUTS, run_unique);
    Ok(())
});

device_test!(selection_and_scans, |dev| {
    run_group("select", &dev, ALL_LAYOUTS, run_select);
    Ok(())
});

device_test!(integer_indexing, |dev| {
    run_group("index", &dev, ALL_LAYOUTS, run_index);
    Ok(())
});
