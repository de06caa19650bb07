//! Conformance groups: scipy.ndimage: label, measurements, linear filters, morphology, rank filters.

use super::*;

/// `scipy.ndimage.label(input, structure)` (`structure=none|given`, the structure the second
/// operand): the labels and the count, as a 0-d int64 array.
fn run_ndimage_label(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let structure = if case.param("structure") == "given" { Some(x[1].array()) } else { None };
    let (lab, n) =
        cuprum::scipy::ndimage::label_with(x[0].array(), &cuprum::scipy::ndimage::LabelOptions { structure })?;
    Ok(vec![lab, cuprum::scalar(n as i64, dev)?])
}

/// `scipy.ndimage`'s measurements (`labels=yes|no`; `index=none|scalar` (`v=`) `|array` (the
/// last operand)): positions and centres of mass as arrays `[.., ndim]`, `extrema` as its four
/// arrays, `find_objects` as `[max_label, ndim, 2]` (start, stop; -1 for an absent label),
/// `labeled_comprehension` with `max - min` (float64, default -1).
fn run_ndimage_measure(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::scipy::ndimage as ndi;
    use cuprum::scipy::ndimage::Index;
    let x = inputs(case, dev, layout)?;
    if case.op == "find_objects" {
        let l = x[0].array();
        let r = ndi::find_objects(l, case.num("max_label"))?;
        let nd = l.ndim();
        let mut v = Vec::new();
        for o in &r {
            for d in 0..nd {
                match o {
                    Some(rs) => v.extend([rs[d].start as i64, rs[d].end as i64]),
                    None => v.extend([-1, -1]),
                }
            }
        }
        return Ok(vec![cuprum::from_slice(&v, &[r.len(), nd, 2], dev)?]);
    }
    if case.op == "pipeline" {
        // The lessons' four steps: clip (median, std, compress until stable), segment at 5
        // sigma, label, measure.
        let sky = x[0].array();
        let mut flat = sky.ravel()?;
        loop {
            let med = flat.median(None)?.item::<f64>()?;
            let std = flat.std(None)?.item::<f64>()?;
            let lower = flat.mask(&flat.greater(med - 3.0 * std)?)?;
            let both = lower.mask(&lower.less(med + 3.0 * std)?)?;
            if both.size() == flat.size() {
                break;
            }
            flat = both;
        }
        // NumPy: 5 * np.float32 is float32.
        let thr = (5.0 * flat.std(None)?.item::<f64>()?) as f32;
        let seg = cuprum::where_(&sky.greater(thr as f64)?, 1i64, 0i64)?;
        let (lab, n) = ndi::label(&seg)?;
        let idx = Index::from(1..=n as i64);
        let com = ndi::center_of_mass(sky, Some(&lab), idx.clone())?;
        let flux = ndi::sum_labels(sky, Some(&lab), idx)?;
        return Ok(vec![cuprum::scalar(thr, dev)?, cuprum::scalar(n as i64, dev)?, lab, com, flux]);
    }
    let has_labels = case.param("labels") == "yes";
    let labels = if has_labels { Some(x[1].array()) } else { None };
    let index = match case.param("index") {
        "none" => Index::All,
        "scalar" => Index::Label(case.num("v")),
        _ => Index::from_array(x[x.len() - 1].array())?,
    };
    let a = x[0].array();
    let one = |r: Array| Ok(vec![r]);
    match case.op.as_str() {
        "sum_labels" => one(ndi::sum_labels(a, labels, index)?),
        "sum" => one(ndi::sum(a, labels, index)?),
        "mean" => one(ndi::mean(a, labels, index)?),
        "variance" => one(ndi::variance(a, labels, index)?),
        "standard_deviation" => one(ndi::standard_deviation(a, labels, index)?),
        "minimum" => one(ndi::minimum(a, labels, index)?),
        "maximum" => one(ndi::maximum(a, labels, index)?),
        "median" => one(ndi::median(a, labels, index)?),
        "minimum_position" => one(ndi::minimum_position(a, labels, index)?),
        "maximum_position" => one(ndi::maximum_position(a, labels, index)?),
        "center_of_mass" => one(ndi::center_of_mass(a, labels, index)?),
        "extrema" => {
            let (mn, mx, pmn, pmx) = ndi::extrema(a, labels, index)?;
            Ok(vec![mn, mx, pmn, pmx])
        }
        "histogram" => {
            let (lo, hi, bins) = (parse_f64(case.param("min")), parse_f64(case.param("max")), case.num("bins"));
            one(ndi::histogram(a, lo, hi, bins, labels, index)?)
        }
        "labeled_comprehension" => {
            let spread = |v: &[f64]| {
                v.iter().cloned().fold(f64::NEG_INFINITY, f64::max) - v.iter().cloned().fold(f64::INFINITY, f64::min)
            };
            one(ndi::labeled_comprehension(a, labels, index, spread, -1.0)?)
        }
        op => panic!("unknown measurement {op}"),
    }
}

// ---- ndimage linear filters
/// `scipy.ndimage`'s linear filters: the params are ndimage's keywords (lists space-separated,
/// `None` for absent), the weights of `correlate`/`convolve` the second input; mode names are
/// parsed with `FromStr`, so that a name SciPy refuses gives its RuntimeError.
fn run_ndimage_filters(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::scipy::ndimage as ndi;
    let x = inputs(case, dev, layout)?;
    let a = x[0].array();
    let list = |k: &str| -> Vec<String> {
        match case.param_opt(k) {
            None | Some("None") => Vec::new(),
            Some(v) => v.split_whitespace().map(str::to_string).collect(),
        }
    };
    let ints = |k: &str| -> Vec<isize> { list(k).iter().map(|v| v.parse().unwrap()).collect() };
    let floats = |k: &str| -> Vec<f64> { list(k).iter().map(|v| parse_f64(v)).collect() };
    let modes: Vec<ndi::Mode> = list("mode").iter().map(|m| m.parse()).collect::<cuprum::Result<_>>()?;
    let mut o =
        ndi::FilterOptions { cval: parse_f64(case.param("cval")), origin: ints("origin"), ..Default::default() };
    if modes.len() == 1 {
        o.mode = modes[0];
    } else {
        o.modes = modes;
    }
    if case.param_opt("axes").is_some() {
        o.axes = Some(ints("axes"));
    }
    if case.param("output") != "None" {
        o.output = Some(case.dtype("output"));
    }
    o.order = ints("order").into_iter().map(|v| v as usize).collect();
    if let Some(t) = case.param_opt("truncate") {
        o.truncate = parse_f64(t);
    }
    if case.param_opt("radius").is_some_and(|r| r != "None") {
        o.radius = Some(ints("radius").into_iter().map(|v| v as usize).collect());
    }
    let axis = || case.num::<isize>("axis");
    let sigma = floats("sigma");
    let size: Vec<usize> = ints("size").into_iter().map(|v| v as usize).collect();
    let r = match case.op.as_str() {
        "correlate" => ndi::correlate_with(a, x[1].array(), &o)?,
        "convolve" => ndi::convolve_with(a, x[1].array(), &o)?,
        "correlate1d" => ndi::correlate1d_with(a, &floats("w"), axis(), &o)?,
        "convolve1d" => ndi::convolve1d_with(a, &floats("w"), axis(), &o)?,
        "gaussian_filter1d" => ndi::gaussian_filter1d_with(a, sigma[0], axis(), &o)?,
        "gaussian_filter" => ndi::gaussian_filter_with(a, &sigma, &o)?,
        "uniform_filter1d" => ndi::uniform_filter1d_with(a, size[0], axis(), &o)?,
        "uniform_filter" => ndi::uniform_filter_with(a, &size, &o)?,
        "sobel" => ndi::sobel_with(a, axis(), &o)?,
        "prewitt" => ndi::prewitt_with(a, axis(), &o)?,
        "laplace" => ndi::laplace_with(a, &o)?,
        "gaussian_laplace" => ndi::gaussian_laplace_with(a, &sigma, &o)?,
        "gaussian_gradient_magnitude" => ndi::gaussian_gradient_magnitude_with(a, &sigma, &o)?,
        op => panic!("unknown ndimage_filters op {op}"),
    };
    Ok(vec![r])
}

// ---- end ndimage linear filters
// ------------------------------------------------------------------ ndimage_morph

/// `scipy.ndimage`'s binary morphology. Params: `it` (iterations), `bv` (border_value),
/// `origin` ('.'-separated; one value: every axis), `s`/`m` (1: the next input is the
/// structure / the mask).
fn run_ndimage_morph(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::scipy::ndimage as ndi;
    let x = inputs(case, dev, layout)?;
    let flag = |k: &str| case.param_opt(k) == Some("1");
    let origin: Vec<i64> = match case.param_opt("origin") {
        Some(o) if !o.is_empty() => o.split('.').map(|v| v.parse().expect("origin")).collect(),
        _ => Vec::new(),
    };
    let mut next = 1;
    let mut take = |present: bool| {
        if present {
            next += 1;
            Some(x[next - 1].array())
        } else {
            None
        }
    };
    let a = x[0].array();
    let r = match case.op.as_str() {
        "iterate_structure" => ndi::iterate_structure(a, case.num("it"))?,
        "binary_fill_holes" => {
            ndi::binary_fill_holes_with(a, &ndi::FillHolesOptions { structure: take(flag("s")), origin: &origin })?
        }
        op => {
            let structure = take(flag("s"));
            let mask = take(flag("m"));
            let o = ndi::BinaryOptions {
                structure,
                iterations: case.num("it"),
                mask,
                border_value: case.param("bv") == "1",
                origin,
            };
            match op {
                "binary_erosion" => ndi::binary_erosion_with(a, &o)?,
                "binary_dilation" => ndi::binary_dilation_with(a, &o)?,
                "binary_opening" => ndi::binary_opening_with(a, &o)?,
                "binary_closing" => ndi::binary_closing_with(a, &o)?,
                op => panic!("unknown ndimage_morph op {op}"),
            }
        }
    };
    Ok(vec![r])
}

// ------------------------------------------------------------------ ndimage_rank

/// `scipy.ndimage`'s rank filters and grey morphology: `size`/`axes`/`origin` comma lists
/// (empty: none), `fp`/`st` (the footprint, then the structure, follow the input), `mode`,
/// `cval`, and `rank`, `percentile` or `axis` where the op takes one.
fn run_ndimage_rank(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::scipy::ndimage::{self as ndi, GreyWindow, Mode, RankOptions, Window};
    let x = inputs(case, dev, layout)?;
    let list = |k: &str| -> Vec<i64> {
        let s = case.param(k);
        if s.is_empty() {
            vec![]
        } else {
            s.split(',').map(|t| t.parse().unwrap()).collect()
        }
    };
    let a = x[0].array();
    let mut next = 1;
    let fp = if case.param("fp") == "1" {
        next += 1;
        Some(x[1].array())
    } else {
        None
    };
    let st = if case.param("st") == "1" { Some(x[next].array()) } else { None };
    let mode: Mode = case.param("mode").parse()?;
    let sizes: Vec<usize> = list("size").into_iter().map(|v| v as usize).collect();
    let axes = list("axes");
    let o = RankOptions {
        mode,
        cval: parse_f64(case.param("cval")),
        origin: list("origin").into_iter().map(|v| v as isize).collect(),
        axes: if axes.is_empty() { None } else { Some(axes.into_iter().map(|v| v as isize).collect()) },
    };
    let w = match fp {
        Some(f) => Window::Footprint(f),
        None => Window::Size(&sizes),
    };
    let r = match case.op.as_str() {
        "minimum_filter1d" => ndi::minimum_filter1d_with(a, sizes[0], case.num::<isize>("axis"), &o)?,
        "maximum_filter1d" => ndi::maximum_filter1d_with(a, sizes[0], case.num::<isize>("axis"), &o)?,
        "minimum_filter" => ndi::minimum_filter_with(a, w, &o)?,
        "maximum_filter" => ndi::maximum_filter_with(a, w, &o)?,
        "median_filter" => ndi::median_filter_with(a, w, &o)?,
        "rank_filter" => ndi::rank_filter_with(a, case.num::<i64>("rank"), w, &o)?,
        "percentile_filter" => ndi::percentile_filter_with(a, parse_f64(case.param("percentile")), w, &o)?,
        "grey_erosion" | "grey_dilation" => {
            let gw =
                GreyWindow { size: if sizes.is_empty() { None } else { Some(&sizes) }, footprint: fp, structure: st };
            if case.op == "grey_erosion" {
                ndi::grey_erosion_with(a, gw, &o)?
            } else {
                ndi::grey_dilation_with(a, gw, &o)?
            }
        }
        op => panic!("unknown ndimage_rank op {op}"),
    };
    Ok(vec![r])
}

device_test!(ndimage_label, |dev| {
    run_group("ndimage_label", &dev, ALL_LAYOUTS, run_ndimage_label);
    Ok(())
});

device_test!(ndimage_measure, |dev| {
    run_group("ndimage_measure", &dev, ALL_LAYOUTS, run_ndimage_measure);
    Ok(())
});

device_test!(ndimage_filters, |dev| {
    run_group("ndimage_filters", &dev, ALL_LAYOUTS, run_ndimage_filters);
    Ok(())
});

device_test!(ndimage_morph, |dev| {
    run_group("ndimage_morph", &dev, ALL_LAYOUTS, run_ndimage_morph);
    Ok(())
});

device_test!(ndimage_rank, |dev| {
    run_group("ndimage_rank", &dev, ALL_LAYOUTS, run_ndimage_rank);
    Ok(())
});
