//! Basic indexing against Python's rules: random shapes, indices of every kind (integers,
//! slices, `NEW_AXIS`, `ELLIPSIS`) with bounds and steps at the ends of `isize`, applied twice
//! (a view of a view), in three dtypes (three item sizes), read back, summed and written
//! through. The model is `slice.indices` in 128-bit integers, written here.

use super::{check, shapes, stream, Model, OrFail};
use cuprum::{Array, DType, ErrorKind, SliceElem};
use proptest::prelude::*;

/// A bound or an integer index: mostly small, sometimes at the ends of `isize` or past 2^32.
pub fn bound() -> impl Strategy<Value = isize> {
    prop_oneof![
        6 => -7isize..8,
        1 => prop::sample::select(vec![
            isize::MIN, isize::MIN + 1, -(1 << 32), -(1 << 31), 1 << 31, 1 << 32, isize::MAX - 1, isize::MAX,
        ]),
    ]
}

/// A step: mostly small, sometimes huge, rarely zero (NumPy's ValueError).
pub fn step() -> impl Strategy<Value = isize> {
    prop_oneof![
        6 => prop_oneof![-4isize..0, 1isize..5],
        2 => prop::sample::select(vec![isize::MIN, isize::MIN + 1, -(1 << 32), 1 << 32, isize::MAX - 1, isize::MAX]),
        1 => Just(0isize),
    ]
}

pub fn elem() -> impl Strategy<Value = SliceElem> {
    prop_oneof![
        3 => bound().prop_map(SliceElem::Index),
        6 => (proptest::option::of(bound()), proptest::option::of(bound()), step())
            .prop_map(|(start, end, step)| SliceElem::Slice { start, end, step }),
        1 => Just(SliceElem::NewAxis),
        1 => Just(SliceElem::Ellipsis),
    ]
}

pub fn index() -> impl Strategy<Value = Vec<SliceElem>> {
    proptest::collection::vec(elem(), 0..5)
}

/// Python's `range(*slice(start, end, step).indices(len))`.
pub fn slice_positions(start: Option<isize>, end: Option<isize>, step: isize, len: usize) -> Vec<usize> {
    let (n, s) = (len as i128, step as i128);
    let (lower, upper) = if s > 0 { (0, n) } else { (-1, n - 1) };
    let clamp = |b: Option<isize>, default: i128| match b {
        None => default,
        Some(b) if b < 0 => (b as i128 + n).max(lower),
        Some(b) => (b as i128).min(upper),
    };
    let (mut i, stop) =
        (clamp(start, if s < 0 { upper } else { lower }), clamp(end, if s < 0 { lower } else { upper }));
    let mut v = Vec::new();
    while (s > 0 && i < stop) || (s < 0 && i > stop) {
        v.push(i as usize);
        i += s;
    }
    v
}

/// NumPy's `m[idx]`: the view's model, or the kinds of error NumPy may raise (an index with
/// two bad elements may name either).
pub fn index_model(m: &Model, idx: &[SliceElem]) -> Result<Model, Vec<ErrorKind>> {
    let ndim = m.shape.len();
    let ellipses = idx.iter().filter(|e| matches!(e, SliceElem::Ellipsis)).count();
    let consumed = idx.iter().filter(|e| matches!(e, SliceElem::Index(_) | SliceElem::Slice { .. })).count();
    if ellipses > 1 || consumed > ndim {
        return Err(vec![ErrorKind::IndexError]);
    }
    let full = SliceElem::Slice { start: None, end: None, step: 1 };
    let mut elems = Vec::new();
    for e in idx {
        match e {
            SliceElem::Ellipsis => elems.extend(std::iter::repeat_n(full, ndim - consumed)),
            e => elems.push(*e),
        }
    }
    if ellipses == 0 {
        elems.extend(std::iter::repeat_n(full, ndim - consumed));
    }
    let (mut axis, mut shape, mut sel, mut errors) = (0, Vec::new(), Vec::new(), Vec::new());
    for e in elems {
        match e {
            SliceElem::NewAxis => shape.push(1),
            SliceElem::Index(i) => {
                let n = m.shape[axis] as i128;
                let j = if i < 0 { i as i128 + n } else { i as i128 };
                if j < 0 || j >= n {
                    errors.push(ErrorKind::IndexError);
                }
                sel.push(vec![j.max(0) as usize]);
                axis += 1;
            }
            SliceElem::Slice { start, end, step } => {
                if step == 0 {
                    errors.push(ErrorKind::ValueError);
                    sel.push(vec![]);
                } else {
                    sel.push(slice_positions(start, end, step, m.shape[axis]));
                }
                shape.push(sel[axis].len());
                axis += 1;
            }
            SliceElem::Ellipsis => unreachable!(),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // The elements in C order of the source axes, which is the view's C order too.
    let strides = m.strides();
    let mut offsets = vec![0usize];
    for (a, pos) in sel.iter().enumerate() {
        let stride = strides[a];
        offsets = offsets.iter().flat_map(|o| pos.iter().map(move |p| o + p * stride)).collect();
    }
    Ok(Model { shape, values: offsets.iter().map(|&o| m.values[o]).collect() })
}

/// `a[idx]` as the model says: the same error kind, or the same view.
fn checked_slice(a: &Array, m: &Model, idx: &[SliceElem]) -> Result<Option<(Array, Model)>, TestCaseError> {
    match (a.slice(idx), index_model(m, idx)) {
        (Ok(v), Ok(want)) => {
            prop_assert_eq!(v.shape(), &want.shape[..], "shape of a{:?}", idx);
            let got = v.astype(DType::Int64).or_fail("astype")?.to_vec::<i64>().or_fail("to_vec")?;
            prop_assert_eq!(&got, &want.values, "elements of a{:?}", idx);
            Ok(Some((v, want)))
        }
        (Err(e), Err(kinds)) => {
            prop_assert!(
                kinds.contains(&e.kind()),
                "a{:?}: {:?} ({e}), NumPy raises one of {:?}",
                idx,
                e.kind(),
                kinds
            );
            Ok(None)
        }
        (Ok(v), Err(kinds)) => {
            Err(TestCaseError::fail(format!("a{idx:?} gave shape {:?}; NumPy raises {kinds:?}", v.shape())))
        }
        (Err(e), Ok(want)) => Err(TestCaseError::fail(format!("a{idx:?}: {e}; NumPy gives shape {:?}", want.shape))),
    }
}

device_test!(slicing_follows_python, |dev| {
    let dtypes = prop::sample::select(vec![DType::Int64, DType::Int16, DType::Float32]);
    check(
        "slicing_follows_python",
        stream(0x511CE, &dev),
        (shapes(4, 5), dtypes, index(), index()),
        |(shape, dt, i1, i2)| {
            let base = cuprum::arange(shape.iter().product::<usize>() as i64, &dev)
                .and_then(|a| a.reshape(&shape))
                .and_then(|a| a.astype(dt))
                .or_fail("base")?;
            let model = Model::arange(&shape);
            let Some((v, vm)) = checked_slice(&base, &model, &i1)? else { return Ok(()) };
            let (w, wm) = match checked_slice(&v, &vm, &i2)? {
                Some(x) => x,
                None => (v, vm),
            };
            // A reduction reads the view in place (a huge step once made it read past the array).
            let sum =
                w.sum(None).and_then(|s| s.astype(DType::Float64)).and_then(|s| s.item::<f64>()).or_fail("sum")?;
            prop_assert_eq!(sum, wm.values.iter().sum::<i64>() as f64, "sum of the view");
            // Writing through the view changes exactly the base elements it sees.
            let mut w = w;
            w.fill(-1).or_fail("fill")?;
            let after = base.astype(DType::Int64).or_fail("astype")?.to_vec::<i64>().or_fail("to_vec")?;
            let mut want = model.values.clone();
            for &p in &wm.values {
                want[p as usize] = -1;
            }
            prop_assert_eq!(after, want, "base after writing through the view");
            Ok(())
        },
    );
    Ok(())
});
