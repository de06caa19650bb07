//! Creation with sizes and bounds at the ends of the integers: NumPy's size rule (the item size
//! times the product of the non-zero lengths must fit an `isize`, a ValueError otherwise, even
//! for an empty array), MemoryError for what no machine holds, and exact values for what fits.
//! Sizes between a few megabytes and a few terabytes are not drawn: a machine may hold them,
//! and the property must not fill its memory.

use super::{check, stream, OrFail};
use cuprum::{DType, ErrorKind};
use proptest::prelude::*;

/// Bytes a test may allocate; at or past [`NEVER`], no machine holds the array.
const SMALL: u128 = 1 << 20;
const NEVER: u128 = 1 << 41;

fn dim() -> impl Strategy<Value = usize> {
    prop_oneof![
        8 => 0usize..5,
        1 => Just(1000usize),
        2 => prop::sample::select(vec![1usize << 31, 1 << 40, 1 << 62, isize::MAX as usize, usize::MAX]),
    ]
}

fn dtype() -> impl Strategy<Value = DType> {
    prop::sample::select(vec![
        DType::Bool,
        DType::Int8,
        DType::UInt16,
        DType::Int32,
        DType::Float32,
        DType::Int64,
        DType::Complex128,
    ])
}

/// What NumPy says of an array of `shape` and item size `item`: `Ok(bytes)`, or the error kind.
fn size_rule(shape: &[usize], item: usize) -> Result<u128, ErrorKind> {
    let mut n = item as u128;
    for &d in shape.iter().filter(|&&d| d != 0) {
        n = n.saturating_mul(d as u128);
    }
    if n > isize::MAX as u128 {
        Err(ErrorKind::ValueError)
    } else if shape.contains(&0) {
        Ok(0)
    } else if n >= NEVER {
        Err(ErrorKind::MemoryError)
    } else {
        Ok(n)
    }
}

device_test!(creation_sizes_follow_numpy, |dev| {
    let value = prop_oneof![Just(0.0f64), Just(-1.5), Just(1e300), Just(f64::NEG_INFINITY), -100.0..100.0f64];
    let strategy = (proptest::collection::vec(dim(), 0..4), dtype(), value, 0u8..3);
    check("creation_sizes_follow_numpy", stream(0xC4EA7E, &dev), strategy, |(shape, dt, v, which)| {
        let want = size_rule(&shape, dt.itemsize());
        if let Ok(bytes) = want {
            prop_assume!(bytes <= SMALL);
        }
        let got = match which {
            0 => cuprum::zeros(&shape, dt, &dev),
            1 => cuprum::empty(&shape, dt, &dev),
            // A float into an integer dtype follows NumPy's casts (checked elsewhere): only
            // values the dtype holds here.
            _ => cuprum::full(&shape, if dt.is_float() || dt.is_complex() { v } else { 1.0 }, dt, &dev),
        };
        match (got, want) {
            (Ok(a), Ok(_)) => {
                prop_assert_eq!(a.shape(), &shape[..]);
                prop_assert_eq!(a.dtype(), dt);
                // (Not of an empty array: converting [0, 2^62] bools to float64 is NumPy's "too big" too.)
                if which != 1 && a.size() > 0 {
                    let want_v = if which == 0 {
                        0.0
                    } else if dt.is_float() || dt.is_complex() {
                        v
                    } else {
                        1.0
                    };
                    let vals = a.real().astype(DType::Float64).and_then(|r| r.to_vec::<f64>()).or_fail("values")?;
                    let want_v = if dt == DType::Float32 { want_v as f32 as f64 } else { want_v };
                    prop_assert!(vals.iter().all(|&x| x == want_v), "values of {:?}: want {}", dt, want_v);
                }
            }
            (Err(e), Err(kind)) => prop_assert_eq!(e.kind(), kind, "{}", e),
            (Ok(a), Err(kind)) => {
                return Err(TestCaseError::fail(format!("shape {:?} made; NumPy raises {kind:?}", a.shape())))
            }
            (Err(e), Ok(_)) => return Err(TestCaseError::fail(format!("{:?}: {e}; NumPy makes it", e.kind()))),
        }
        Ok(())
    });
    Ok(())
});

fn bound() -> impl Strategy<Value = i64> {
    prop_oneof![
        6 => -20i64..20,
        2 => prop::sample::select(vec![i64::MIN, i64::MIN + 1, -(1i64 << 40), 1 << 31, 1 << 40, 1 << 62, i64::MAX - 1, i64::MAX]),
    ]
}

device_test!(arange_lengths_follow_numpy, |dev| {
    let dtypes = prop::sample::select(vec![DType::Int64, DType::Float64]);
    check(
        "arange_lengths_follow_numpy",
        stream(0xA4A2, &dev),
        (bound(), bound(), bound(), dtypes),
        |(start, stop, step, dt)| {
            if step == 0 {
                let got = cuprum::arange_with(start, stop, step, dt, &dev);
                prop_assert_eq!(got.err().map(|e| e.kind()), Some(ErrorKind::ValueError), "step 0");
                return Ok(());
            }
            let (a, b, s) = (start as i128, stop as i128, step as i128);
            let n = if (s > 0 && b > a) || (s < 0 && b < a) { ((b - a).abs() + s.abs() - 1) / s.abs() } else { 0 };
            let bytes = n as u128 * 8;
            // Decided before the call: a size a machine may hold is not made (it would fill memory).
            prop_assume!(bytes <= SMALL || bytes >= NEVER);
            match cuprum::arange_with(start, stop, step, dt, &dev) {
                Ok(x) => {
                    prop_assert!(bytes <= SMALL, "made {} elements", n);
                    prop_assert_eq!(x.shape(), &[n as usize][..]);
                    if n > 0 && dt == DType::Int64 {
                        let v = x.to_vec::<i64>().or_fail("to_vec")?;
                        prop_assert_eq!(v[0] as i128, a);
                        prop_assert_eq!(*v.last().unwrap() as i128, a + (n - 1) * s);
                    }
                }
                Err(e) => {
                    let want = if bytes > isize::MAX as u128 { ErrorKind::ValueError } else { ErrorKind::MemoryError };
                    prop_assert!(bytes >= NEVER, "{:?}: {}", e.kind(), e);
                    prop_assert_eq!(e.kind(), want, "{}", e);
                }
            }
            Ok(())
        },
    );
    Ok(())
});
