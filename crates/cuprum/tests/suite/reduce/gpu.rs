//! The GPU reductions against the CPU backend on fresh random inputs: every dtype and
//! reduction, several axes and layouts, float accuracy and NaN propagation.

use crate::common::{on, random, rtol_for, Rng};
use crate::ufunc::gpu::same;
use cuprum::{s, DType, Device, ReduceOp};

per_dtype!(reduce_case: reductions_bool => Bool, reductions_i8 => Int8, reductions_i16 => Int16, reductions_i32 => Int32,
    reductions_i64 => Int64, reductions_u8 => UInt8, reductions_u16 => UInt16, reductions_u32 => UInt32, reductions_u64 => UInt64,
    reductions_f16 => Float16, reductions_f32 => Float32, reductions_f64 => Float64, reductions_c64 => Complex64,
    reductions_c128 => Complex128);

fn reduce_case(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    use ReduceOp::*;
    let gpu = *gpu;
    let mut rng = Rng::new(3 + dt as u64);
    let ops = ReduceOp::ALL;
    {
        for (shape, axes) in [
            (
                vec![6, 7, 8],
                vec![None, Some(vec![0]), Some(vec![1]), Some(vec![2]), Some(vec![0, 2]), Some(vec![-1, 0, 1])],
            ),
            (vec![3000], vec![None]),
            (vec![3, 5000], vec![Some(vec![1]), Some(vec![0])]),
            (vec![], vec![None]),
            (vec![0, 4], vec![None, Some(vec![0]), Some(vec![1])]),
        ] {
            let x = random(&shape, dt, &mut rng, false);
            let xt = if x.ndim() > 1 { x.t() } else { x.view() };
            for src in [&x, &xt] {
                let g = on(&gpu, src);
                for ax in &axes {
                    for op in ops {
                        if matches!(op, ArgMin | ArgMax) && ax.as_ref().is_some_and(|a| a.len() != 1) {
                            continue;
                        }
                        if op == Prod && dt.is_inexact() && src.size() > 100 {
                            continue; // products of thousands of floats overflow in different orders
                        }
                        let axis: cuprum::Axes = match ax {
                            None => cuprum::Axes::All,
                            Some(v) => cuprum::Axes::Some(v.iter().map(|&a| a as isize).collect()),
                        };
                        let what = format!("{}({dt}, shape {:?}, axis {ax:?})", op.name(), src.shape());
                        let c = src.reduce(op, axis.clone(), true, 1.0);
                        let gr = g.reduce(op, axis, true, 1.0);
                        let n = src.size().max(1) as f64;
                        // Sums of many elements differ by rounding order: scale the tolerance.
                        let rtol = c.as_ref().map(|a| rtol_for(a.dtype())).unwrap_or(0.0) * n.sqrt().max(4.0);
                        same(&gpu, &what, rtol, c, gr);
                    }
                }
            }
        }
    }
    Ok(())
}

gpu_test!(float_reduction_accuracy_and_nan, |gpu| {
    let mut rng = Rng::new(4);
    let x = random(&[1_000_003], DType::Float32, &mut rng, false).add(100.0)?;
    let g = on(&gpu, &x);
    let exact: f64 = x.astype(DType::Float64)?.sum(None)?.item()?;
    let gs: f64 = g.sum(None)?.item::<f32>()? as f64;
    assert!((gs - exact).abs() / exact < 1e-6, "f32 sum {gs} vs {exact}");
    let var_c: f64 = x.var(None)?.item::<f32>()? as f64;
    let var_g: f64 = g.var(None)?.item::<f32>()? as f64;
    assert!((var_c - var_g).abs() / var_c < 1e-5, "var {var_g} vs {var_c}");
    // NaN propagates through min/max/argmax and sums.
    let mut y = random(&[10_000], DType::Float64, &mut rng, false);
    y.slice_mut(s![7777])?.fill(f64::NAN)?;
    let yg = on(&gpu, &y);
    assert!(yg.max(None)?.item::<f64>()?.is_nan());
    assert!(yg.sum(None)?.item::<f64>()?.is_nan());
    assert_eq!(yg.argmax(None)?.item::<i64>()?, 7777);
    assert_eq!(yg.argmin(None)?.item::<i64>()?, 7777);
    Ok(())
});
