//! Conformance groups: Ufuncs (unary, binary, Python scalars, complex), reductions, astype, scipy.special and scipy.stats.norm.

use super::*;

fn run_unary(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    Ok(vec![cuprum::unary(unary_op(&case.op), x[0].array())?])
}

fn run_binary(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    Ok(vec![cuprum::binary(binary_op(&case.op), x[0].operand(), x[1].operand())?])
}

fn run_reduce(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let keepdims = case.param("keepdims") == "1";
    let ddof: f64 = case.num("ddof");
    Ok(vec![x[0].array().reduce(reduce_op(&case.op), parse_axes(case.param("axis")), keepdims, ddof)?])
}

fn run_astype(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    Ok(vec![x[0].array().astype(case.dtype("to"))?])
}

device_test!(unary, |dev| {
    run_group("unary", &dev, ALL_LAYOUTS, run_unary);
    Ok(())
});

// scipy.special's ufuncs: the unary group's runner, SciPy's values.
device_test!(special, |dev| {
    run_group("special", &dev, ALL_LAYOUTS, run_unary);
    Ok(())
});

// scipy.stats.norm with loc and scale.
device_test!(stats, |dev| {
    run_group("stats", &dev, ALL_LAYOUTS, run_stats);
    Ok(())
});

fn run_stats(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    let x = inputs(case, dev, layout)?;
    let d = cuprum::scipy::stats::norm(parse_f64(case.param("loc")), parse_f64(case.param("scale")));
    let x = x[0].array();
    Ok(vec![match case.op.as_str() {
        "pdf" => d.pdf(x)?,
        "logpdf" => d.logpdf(x)?,
        "cdf" => d.cdf(x)?,
        "sf" => d.sf(x)?,
        "ppf" => d.ppf(x)?,
        "isf" => d.isf(x)?,
        op => panic!("unknown stats op {op}"),
    }])
}

device_test!(binary, |dev| {
    run_group("binary", &dev, ALL_LAYOUTS, run_binary);
    Ok(())
});

device_test!(scalars, |dev| {
    run_group("scalar", &dev, &[Layout::Contig, Layout::Strided], run_binary);
    Ok(())
});

device_test!(reductions, |dev| {
    run_group("reduce", &dev, &[Layout::Contig, Layout::Transposed], run_reduce);
    Ok(())
});

device_test!(complex, |dev| {
    run_group("complex", &dev, &[Layout::Contig, Layout::Strided, Layout::Transposed], run_complex);
    Ok(())
});

/// The complex group: each case names its kind (a ufunc, a reduction, a cast, or a part).
fn run_complex(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    match case.param("kind") {
        "unary" => run_unary(case, dev, layout),
        "binary" => run_binary(case, dev, layout),
        "reduce" => {
            let x = inputs(case, dev, layout)?;
            let keepdims = case.param("keepdims") == "1";
            let a = x[0].array();
            Ok(vec![a.reduce(reduce_op(&case.op), parse_axes(case.param("axis")), keepdims, case.num("ddof"))?])
        }
        "astype" => run_astype(case, dev, layout),
        "view" => {
            let x = inputs(case, dev, layout)?;
            let a = x[0].array();
            Ok(vec![match case.op.as_str() {
                "real" => a.real(),
                "imag" => a.imag()?,
                "angle" => a.angle()?,
                "conj" => a.conj()?,
                op => panic!("unknown complex view {op}"),
            }])
        }
        k => panic!("unknown complex case kind {k}"),
    }
}

device_test!(astype, |dev| {
    run_group("astype", &dev, &[Layout::Contig, Layout::Strided], run_astype);
    Ok(())
});
