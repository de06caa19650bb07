//! Conformance groups: numpy.linalg.

use super::*;

device_test!(linalg, |dev| {
    run_group("linalg", &dev, &[Layout::Contig, Layout::Strided, Layout::Transposed], run_linalg);
    Ok(())
});

/// A `norm`/`cond` order parameter (`None`, `fro`, `nuc` or a number).
fn norm_ord(s: &str) -> Option<cuprum::linalg::NormOrd> {
    use cuprum::linalg::NormOrd;
    match s {
        "None" => None,
        "fro" => Some(NormOrd::Fro),
        "nuc" => Some(NormOrd::Nuc),
        p => Some(NormOrd::P(p.parse().expect("a numeric order"))),
    }
}

/// The linalg group: `op` is numpy's function name.
fn run_linalg(case: &Case, dev: &Device, layout: Layout) -> cuprum::Result<Vec<Array>> {
    use cuprum::linalg::{self, TensorAxes, Uplo};
    let x = inputs(case, dev, layout)?;
    let a = x[0].array();
    let b = || x[1].array();
    let ints = |s: &str| -> Vec<isize> { s.split(',').map(|v| v.parse().expect("an axis")).collect() };
    Ok(match case.op.as_str() {
        "matmul" => vec![cuprum::matmul(a, b())?],
        "dot" => vec![cuprum::dot(a, b())?],
        "vdot" => vec![cuprum::vdot(a, b())?],
        "inner" => vec![cuprum::inner(a, b())?],
        "outer" => vec![cuprum::outer(a, b())?],
        "kron" => vec![cuprum::kron(a, b())?],
        "trace" => vec![cuprum::trace(a, 0, -2, -1)?],
        "tensordot" => {
            let axes = match case.param("axes").split_once(':') {
                Some((l, r)) => TensorAxes::Pairs(ints(l), ints(r)),
                None => TensorAxes::N(case.num("axes")),
            };
            vec![cuprum::tensordot(a, b(), axes)?]
        }
        "einsum" => {
            let ops: Vec<&Array> = x.iter().map(|v| v.array()).collect();
            vec![cuprum::einsum(case.param("subs"), &ops)?]
        }
        "matrix_power" => vec![linalg::matrix_power(a, case.num("n"))?],
        "det" => vec![linalg::det(a)?],
        "slogdet" => {
            let r = linalg::slogdet(a)?;
            vec![r.sign, r.logabsdet]
        }
        "inv" => vec![linalg::inv(a)?],
        "solve" => vec![linalg::solve(a, b())?],
        "cholesky" => vec![linalg::cholesky_with(a, &linalg::CholeskyOptions { upper: case.param("upper") == "1" })?],
        "eigvalsh" => vec![linalg::eigvalsh_with(a, if case.param("uplo") == "L" { Uplo::L } else { Uplo::U })?],
        "eigvals" => vec![linalg::eigvals(a)?],
        "svdvals" => vec![linalg::svdvals(a)?],
        "norm" => {
            let axis = match case.param("axis") {
                "None" => None,
                s => Some(ints(s)),
            };
            vec![linalg::norm_with(
                a,
                &linalg::NormOptions {
                    ord: norm_ord(case.param("ord")),
                    axis: axis.as_deref(),
                    keepdims: case.param("keepdims") == "1",
                },
            )?]
        }
        "cond" => vec![match norm_ord(case.param("ord")) {
            None => linalg::cond(a)?,
            Some(p) => linalg::cond_with(a, p)?,
        }],
        "matrix_rank" => vec![linalg::matrix_rank(a)?],
        "pinv" => vec![linalg::pinv(a)?],
        "lstsq" => {
            let r = linalg::lstsq(a, b())?;
            // NumPy returns the rank as LAPACK's int (int32); cuprum as a usize.
            let rank = cuprum::from_vec(vec![r.rank as i32], dev)?.reshape(Vec::<usize>::new())?;
            vec![r.x, r.residuals, rank, r.s]
        }
        op => panic!("unknown linalg op {op}"),
    })
}
