//! Reductions over random views (transposed, strided, reversed, broadcast), axes (repeated,
//! negative, out of range) and keepdims, in every real dtype with NaN and infinities: the view's
//! result equals the contiguous copy's (bit for bit for integers and integral floats), and
//! over all axes equals a sum, minimum or maximum counted here.

use super::{check, shapes, stream, OrFail};
use cuprum::{Array, DType, ErrorKind, ReduceOp, SliceElem};
use proptest::prelude::*;

fn dtype() -> impl Strategy<Value = DType> {
    prop::sample::select(vec![
        DType::Bool,
        DType::Int8,
        DType::UInt8,
        DType::Int32,
        DType::UInt64,
        DType::Int64,
        DType::Float16,
        DType::Float32,
        DType::Float64,
    ])
}

/// Integral values (sums are exact in every float dtype), sometimes NaN or an infinity.
fn value() -> impl Strategy<Value = f64> {
    prop_oneof![20 => (-9i32..10).prop_map(f64::from), 1 => Just(f64::NAN), 1 => Just(f64::INFINITY), 1 => Just(f64::NEG_INFINITY)]
}

fn op() -> impl Strategy<Value = ReduceOp> {
    prop::sample::select(vec![
        ReduceOp::Sum,
        ReduceOp::Prod,
        ReduceOp::Mean,
        ReduceOp::Min,
        ReduceOp::Max,
        ReduceOp::ArgMin,
        ReduceOp::ArgMax,
        ReduceOp::Any,
        ReduceOp::All,
        ReduceOp::CountNonzero,
    ])
}

#[derive(Clone, Debug)]
enum Layout {
    Contiguous,
    Transposed,
    /// Every other element of each axis of an array twice as long.
    Strided,
    Reversed,
    /// A length-1 first axis broadcast to 3.
    Broadcast,
}

fn layout() -> impl Strategy<Value = Layout> {
    prop::sample::select(vec![
        Layout::Contiguous,
        Layout::Transposed,
        Layout::Strided,
        Layout::Reversed,
        Layout::Broadcast,
    ])
}

/// A view of `layout` holding `values` (C order of the view) as `dt`.
fn view(values: &[f64], shape: &[usize], dt: DType, layout: &Layout, dev: &cuprum::Device) -> cuprum::Result<Array> {
    let host = |v: &[f64], s: &[usize]| cuprum::from_slice(v, s, dev).and_then(|a| a.astype(dt));
    match layout {
        Layout::Contiguous => host(values, shape),
        Layout::Transposed => {
            // The transpose of a C-contiguous copy of the transpose: Fortran order.
            Ok(host(values, shape)?.t().copy()?.t())
        }
        Layout::Strided => {
            let big: Vec<usize> = shape.iter().map(|n| 2 * n).collect();
            let base = cuprum::zeros(&big, dt, dev)?;
            let idx: Vec<SliceElem> =
                shape.iter().map(|_| SliceElem::Slice { start: Some(1), end: None, step: 2 }).collect();
            let mut v = base.slice(&idx)?;
            v.assign(&host(values, shape)?)?;
            Ok(v)
        }
        Layout::Reversed => {
            let all: Vec<isize> = (0..shape.len() as isize).collect();
            let flipped = host(values, shape)?.flip(&all[..])?.copy()?;
            flipped.flip(&all[..])
        }
        Layout::Broadcast => {
            let mut s = shape.to_vec();
            if s.is_empty() {
                return host(values, shape);
            }
            let n0 = s[0];
            s[0] = 1;
            let first: Vec<f64> = values.iter().take(values.len() / n0.max(1)).copied().collect();
            let one = host(if n0 == 0 { &[] } else { &first }, if n0 == 0 { shape } else { &s })?;
            if n0 == 0 {
                return Ok(one);
            }
            s[0] = n0;
            one.broadcast_to(&s)
        }
    }
}

/// The values a view made by [`view`] holds (Broadcast repeats the first row).
fn held(values: &[f64], shape: &[usize], layout: &Layout) -> Vec<f64> {
    match layout {
        Layout::Broadcast if !shape.is_empty() && shape[0] > 0 => {
            let row = values.len() / shape[0];
            (0..values.len()).map(|i| values[i % row.max(1)]).collect()
        }
        _ => values.to_vec(),
    }
}

fn same(got: &Array, want: &Array, what: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.shape(), want.shape(), "{}: shape", what);
    prop_assert_eq!(got.dtype(), want.dtype(), "{}: dtype", what);
    let f = |a: &Array| a.astype(DType::Float64).and_then(|x| x.to_vec::<f64>()).or_fail("to_vec");
    let (g, w) = (f(got)?, f(want)?);
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        // Means divide and float products round past 2^53: a relative 1e-3 there (float16); sums,
        // extremes and counts are exact (integral values).
        let ok = (a.is_nan() && b.is_nan())
            || a == b
            || ((what.starts_with("Mean") || what.starts_with("Prod")) && (a - b).abs() <= 1e-3 * b.abs());
        prop_assert!(ok, "{}: element {}: {} vs {}", what, i, a, b);
    }
    Ok(())
}

device_test!(reductions_of_views_match_copies, |dev| {
    let values = proptest::collection::vec(value(), 64);
    let axes = proptest::option::of(proptest::collection::vec(-4isize..4, 0..3));
    let strategy = (shapes(3, 4), values, dtype(), layout(), op(), axes, any::<bool>());
    check(
        "reductions_of_views_match_copies",
        stream(0x5ED, &dev),
        strategy,
        |(shape, pool, dt, layout, op, axes, keep)| {
            let n: usize = shape.iter().product();
            let vals: Vec<f64> = if dt.is_float() {
                pool[..n].to_vec()
            } else {
                pool[..n].iter().map(|v| if v.is_finite() { *v } else { 1.0 }).collect()
            };
            let vals: Vec<f64> = if dt.is_unsigned_int() { vals.iter().map(|v| v.abs()).collect() } else { vals };
            let v = view(&vals, &shape, dt, &layout, &dev).or_fail("view")?;
            let held = held(&vals, &shape, &layout);
            let axis: cuprum::Axes = match &axes {
                None => cuprum::Axes::All,
                Some(a) => a.clone().into(),
            };
            let what = format!("{op:?} over {axes:?} keepdims={keep} of {dt:?} {layout:?} {shape:?}");
            let copy = v.copy().or_fail("copy")?;
            match (v.reduce(op, axis.clone(), keep, 0.0), copy.reduce(op, axis, keep, 0.0)) {
                (Ok(g), Ok(w)) => same(&g, &w, &what)?,
                (Err(a), Err(b)) => prop_assert_eq!(a.kind(), b.kind(), "{}: {} / {}", what, a, b),
                (g, w) => return Err(TestCaseError::fail(format!("{what}: view {:?}, copy {:?}", g.err(), w.err()))),
            }
            // Over all axes: against the values themselves.
            if axes.is_none() && !keep && dt != DType::Float16 {
                let r = v.reduce(op, cuprum::Axes::All, false, 0.0);
                let finite_nan = held.iter().any(|x| x.is_nan());
                let cast = |x: f64| if dt == DType::Bool { (x != 0.0) as i64 as f64 } else { x };
                let h: Vec<f64> = held.iter().map(|&x| cast(x)).collect();
                let want = match op {
                    ReduceOp::Sum if dt.is_float() => Some(h.iter().sum::<f64>()),
                    ReduceOp::Sum => Some(h.iter().map(|&x| x as i64).sum::<i64>() as f64),
                    ReduceOp::Min | ReduceOp::Max if h.is_empty() => {
                        prop_assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::ValueError), "{}: empty", what);
                        return Ok(());
                    }
                    ReduceOp::Min if finite_nan => Some(f64::NAN),
                    ReduceOp::Max if finite_nan => Some(f64::NAN),
                    ReduceOp::Min => h.iter().copied().reduce(f64::min),
                    ReduceOp::Max => h.iter().copied().reduce(f64::max),
                    ReduceOp::CountNonzero => Some(h.iter().filter(|&&x| x != 0.0).count() as f64),
                    ReduceOp::Any => Some(h.iter().any(|&x| x != 0.0) as i64 as f64),
                    ReduceOp::All => Some(h.iter().all(|&x| x != 0.0) as i64 as f64),
                    _ => None,
                };
                if let Some(want) = want {
                    let got = r.and_then(|x| x.astype(DType::Float64)).and_then(|x| x.item::<f64>()).or_fail(&what)?;
                    prop_assert!(
                        got == want || (got.is_nan() && want.is_nan()),
                        "{}: {} vs {} counted",
                        what,
                        got,
                        want
                    );
                }
            }
            Ok(())
        },
    );
    Ok(())
});
