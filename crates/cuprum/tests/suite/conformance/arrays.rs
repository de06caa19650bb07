//! Conformance groups: Creation, views, misc (isclose, round, ...) and manipulation.

use super::*;

fn run_creation(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let dt = || case.dtype("dtype");
    let shape = || parse_shape(case.param("shape"));
    let one = |a: cuprum::Result<Array>| a.map(|a| vec![a]);
    match case.op.as_str() {
        "arange" if case.param("kind") == "int" => {
            one(cuprum::arange_with(case.num("start"), case.num("stop"), case.num("step"), dt(), dev))
        }
        "arange" => one(cuprum::arange_f(
            parse_f64(case.param("start")),
            parse_f64(case.param("stop")),
            parse_f64(case.param("step")),
            dt(),
            dev,
        )),
        "linspace" => one(cuprum::linspace_with(
            parse_f64(case.param("start")),
            parse_f64(case.param("stop")),
            case.num("num"),
            dt(),
            &cuprum::LinspaceOptions { endpoint: case.param("endpoint") == "1" },
            dev,
        )),
        "eye" => {
            let m = match case.param("m") {
                "None" => None,
                m => Some(m.parse().unwrap()),
            };
            one(cuprum::eye_with(case.num("n"), dt(), &cuprum::EyeOptions { m, k: case.num("k") }, dev))
        }
        "identity" => one(cuprum::identity(case.num("n"), dt(), dev)),
        "meshgrid" => {
            let x = inputs(case, dev, layout)?;
            let refs: Vec<&Array> = x.iter().map(|v| v.array()).collect();
            let ix = if case.param("indexing") == "xy" { Indexing::Xy } else { Indexing::Ij };
            // The fixed-size form for the counts the fixtures have, the slice form otherwise.
            match refs[..] {
                [a] => cuprum::meshgrid_with([a], &cuprum::MeshgridOptions { indexing: ix }).map(Vec::from),
                [a, b] => cuprum::meshgrid_with([a, b], &cuprum::MeshgridOptions { indexing: ix }).map(Vec::from),
                [a, b, c] => cuprum::meshgrid_with([a, b, c], &cuprum::MeshgridOptions { indexing: ix }).map(Vec::from),
                _ => cuprum::meshgrid_slice_with(&refs, &cuprum::MeshgridOptions { indexing: ix }),
            }
        }
        "zeros" => one(cuprum::zeros(&shape(), dt(), dev)),
        "ones" => one(cuprum::ones(&shape(), dt(), dev)),
        "full" => {
            let x = inputs(case, dev, layout)?;
            one(cuprum::full(&shape(), x[0].scalar(), dt(), dev))
        }
        op => panic!("unknown creation op {op}"),
    }
}

fn parse_index(s: &str) -> Vec<SliceElem> {
    let opt = |t: &str| -> Option<isize> {
        let t = t.trim();
        (!t.is_empty()).then(|| t.parse().unwrap())
    };
    s.split(',')
        .map(|t| t.trim())
        .map(|t| match t {
            "..." => SliceElem::Ellipsis,
            "None" => SliceElem::NewAxis,
            t if t.contains(':') => {
                let p: Vec<&str> = t.split(':').collect();
                SliceElem::Slice { start: opt(p[0]), end: opt(p[1]), step: p.get(2).and_then(|s| opt(s)).unwrap_or(1) }
            }
            t => SliceElem::Index(t.parse().unwrap()),
        })
        .collect()
}

/// Applies a view chain: `/`-separated steps, each `[numpy index]`, `T` or `name(ints)`.
fn apply_view(a: &Array, chain: &str) -> cuprum::Result<Array> {
    let mut a = a.view();
    for step in chain.split('/') {
        if let Some(ix) = step.strip_prefix('[') {
            a = a.slice(parse_index(ix.strip_suffix(']').unwrap()))?;
            continue;
        }
        if step == "T" {
            a = a.t();
            continue;
        }
        let (name, args) =
            step.strip_suffix(')').and_then(|s| s.split_once('(')).unwrap_or_else(|| panic!("bad view step {step:?}"));
        let args: Vec<isize> = args.split(',').filter(|t| !t.is_empty()).map(|t| t.trim().parse().unwrap()).collect();
        let usz = |v: &[isize]| -> Vec<usize> { v.iter().map(|&d| d as usize).collect() };
        a = match name {
            "reshape" => a.reshape(&args)?,
            "transpose" => a.permute(&args)?,
            "swapaxes" => a.swapaxes(args[0], args[1])?,
            "moveaxis" => a.moveaxis(args[0], args[1])?,
            "diagonal" => a.diagonal_with(args[0], args[1], args[2])?,
            "squeeze" if args.is_empty() => a.squeeze(),
            "squeeze" => a.squeeze_axes(&args)?,
            "expand_dims" => a.expand_dims(args[0])?,
            "broadcast_to" => a.broadcast_to(&usz(&args))?,
            "ravel" => a.ravel()?,
            "flatten" => a.flatten()?,
            _ => panic!("unknown view step {step:?}"),
        };
    }
    Ok(a)
}

fn run_view(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    Ok(vec![apply_view(x[0].array(), case.param("ops"))?])
}

fn bool_result(b: bool) -> cuprum::Result<Vec<Array>> {
    Ok(vec![cuprum::scalar(b, &Device::Cpu)?])
}

fn run_misc(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let tol = || (parse_f64(case.param("rtol")), parse_f64(case.param("atol")), case.param("equal_nan") == "1");
    let r = match case.op.as_str() {
        "isclose" => {
            let (r, a, e) = tol();
            cuprum::isclose_with(x[0].array(), x[1].array(), &cuprum::CloseOptions { rtol: r, atol: a, equal_nan: e })?
        }
        "allclose" => {
            let (r, a, e) = tol();
            let b = cuprum::allclose_with(
                x[0].array(),
                x[1].array(),
                &cuprum::CloseOptions { rtol: r, atol: a, equal_nan: e },
            )?;
            return bool_result(b).map(|v| v.into_iter().map(|a| a.to_device(dev).unwrap()).collect());
        }
        "array_equal" => {
            let b = cuprum::array_equal(x[0].array(), x[1].array())?;
            return bool_result(b).map(|v| v.into_iter().map(|a| a.to_device(dev).unwrap()).collect());
        }
        "where" => cuprum::where_(x[0].array(), x[1].operand(), x[2].operand())?,
        "clip" => cuprum::clip(x[0].array(), x[1].operand(), x[2].operand())?,
        "round" => cuprum::round(x[0].array(), case.num("decimals"))?,
        op => panic!("unknown misc op {op}"),
    };
    Ok(vec![r])
}

fn run_manip(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let a = || x[0].array();
    let r = match case.op.as_str() {
        "concatenate" => cuprum::concatenate(&arrays(&x), case.num::<isize>("axis"))?,
        "stack" => cuprum::stack(&arrays(&x), case.num("axis"))?,
        "hstack" => cuprum::hstack(&arrays(&x))?,
        "vstack" => cuprum::vstack(&arrays(&x))?,
        "dstack" => cuprum::dstack(&arrays(&x))?,
        "split" | "array_split" => {
            let s = case.param("sections");
            let sections = match s.strip_prefix("i:") {
                Some(ix) => {
                    Sections::Indices(ix.split(',').filter(|t| !t.is_empty()).map(|t| t.parse().unwrap()).collect())
                }
                None => Sections::Count(s.parse().unwrap()),
            };
            let axis: isize = case.num("axis");
            return if case.op == "split" {
                cuprum::split(a(), sections, axis)
            } else {
                cuprum::array_split(a(), sections, axis)
            };
        }
        "flip" => cuprum::flip(a(), opt_axis(case))?,
        "roll" => cuprum::roll(a(), case.num("shift"), opt_axis(case))?,
        "tile" => cuprum::tile(a(), &parse_shape(case.param("reps")))?,
        "repeat" => cuprum::repeat(a(), case.num("repeats"), opt_axis(case))?,
        "pad" => {
            let width: Vec<(usize, usize)> = case
                .param("width")
                .split(',')
                .map(|p| {
                    let (b, f) = p.split_once(':').unwrap();
                    (b.parse().unwrap(), f.parse().unwrap())
                })
                .collect();
            let mode = match case.param("mode") {
                "constant" => PadMode::Constant(x[1].scalar()),
                "edge" => PadMode::Edge,
                "reflect" => PadMode::Reflect,
                "symmetric" => PadMode::Symmetric,
                "wrap" => PadMode::Wrap,
                m => panic!("unknown pad mode {m}"),
            };
            cuprum::pad_with(a(), &width, mode)?
        }
        "atleast_1d" => cuprum::atleast_1d(a())?,
        "atleast_2d" => cuprum::atleast_2d(a())?,
        "atleast_3d" => cuprum::atleast_3d(a())?,
        op => panic!("unknown manip op {op}"),
    };
    Ok(vec![r])
}

device_test!(creation, |dev| {
    run_group("creation", &dev, CONTIG, run_creation);
    Ok(())
});

device_test!(views, |dev| {
    run_group("view", &dev, CONTIG, run_view);
    Ok(())
});

device_test!(misc, |dev| {
    run_group("misc", &dev, &[Layout::Contig, Layout::Strided], run_misc);
    Ok(())
});

device_test!(manipulation, |dev| {
    run_group("manip", &dev, ALL_LAYOUTS, run_manip);
    Ok(())
});
