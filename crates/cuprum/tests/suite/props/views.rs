//! Chains of views (transpose, swapaxes, flip, expand_dims, squeeze, broadcast_to, reshape,
//! basic indexing) against a model of NumPy's rules: every step's shape, elements and error
//! kind; the end of the chain summed in place, copied, and written through when the chain made
//! no copy.

use super::slicing::{self, index_model};
use super::{check, shapes, stream, Model, OrFail};
use cuprum::{Array, ErrorKind, SliceElem};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Step {
    T,
    Swap(isize, isize),
    Flip(isize),
    Expand(isize),
    Squeeze,
    /// broadcast_to(lead + shape with each length-1 axis stretched to `stretch` where its bit is set)
    Broadcast(Vec<usize>, usize, u8),
    /// A reshape to one of a few shapes of the same size (chosen by the number).
    Reshape(u8),
    Slice(Vec<SliceElem>),
}

fn step() -> impl Strategy<Value = Step> {
    let axis = -5isize..5;
    prop_oneof![
        1 => Just(Step::T),
        1 => (axis.clone(), axis.clone()).prop_map(|(a, b)| Step::Swap(a, b)),
        1 => axis.clone().prop_map(Step::Flip),
        1 => axis.prop_map(Step::Expand),
        1 => Just(Step::Squeeze),
        1 => (proptest::collection::vec(0usize..4, 0..2), 0usize..4, any::<u8>()).prop_map(|(l, s, b)| Step::Broadcast(l, s, b)),
        1 => any::<u8>().prop_map(Step::Reshape),
        2 => slicing::index().prop_map(Step::Slice),
    ]
}

fn axis(a: isize, ndim: usize) -> Result<usize, Vec<ErrorKind>> {
    let n = ndim as isize;
    if a < -n || a >= n {
        Err(vec![ErrorKind::AxisError])
    } else {
        Ok(if a < 0 { (a + n) as usize } else { a as usize })
    }
}

/// The shapes a reshape may pick for `n` elements.
fn reshapes(n: usize) -> Vec<Vec<usize>> {
    let mut v = vec![vec![n], vec![n, 1], vec![1, n]];
    if let Some(d) = (2..n).find(|d| n.is_multiple_of(*d)) {
        v.push(vec![d, n / d]);
        v.push(vec![n / d, 1, d]);
    }
    if n == 0 {
        v.push(vec![3, 0]);
    }
    v
}

/// The model of one step, and whether the result is still a view of the base (writable).
fn model(m: &Model, s: &Step) -> Result<(Model, bool), Vec<ErrorKind>> {
    let nd = m.shape.len();
    let st = m.strides();
    Ok(match s {
        Step::T => {
            let shape: Vec<usize> = m.shape.iter().rev().copied().collect();
            (m.gather(shape, |i| i.iter().rev().zip(&st).map(|(x, s)| x * s).sum()), true)
        }
        Step::Swap(a, b) => {
            let (a, b) = (axis(*a, nd)?, axis(*b, nd)?);
            let mut shape = m.shape.clone();
            shape.swap(a, b);
            let mut st2 = st.clone();
            st2.swap(a, b);
            (m.gather(shape, |i| i.iter().zip(&st2).map(|(x, s)| x * s).sum()), true)
        }
        Step::Flip(a) => {
            let a = axis(*a, nd)?;
            let n = m.shape[a];
            (
                m.gather(m.shape.clone(), |i| {
                    i.iter().enumerate().map(|(k, x)| (if k == a { n - 1 - x } else { *x }) * st[k]).sum()
                }),
                true,
            )
        }
        Step::Expand(a) => {
            let a = axis(*a, nd + 1)?;
            let mut shape = m.shape.clone();
            shape.insert(a, 1);
            (Model { shape, values: m.values.clone() }, true)
        }
        Step::Squeeze => {
            (Model { shape: m.shape.iter().copied().filter(|&n| n != 1).collect(), values: m.values.clone() }, true)
        }
        Step::Broadcast(lead, stretch, bits) => {
            let target = broadcast_target(&m.shape, lead, *stretch, *bits);
            let k = lead.len();
            for (a, &n) in m.shape.iter().enumerate() {
                if n != target[k + a] && n != 1 {
                    return Err(vec![ErrorKind::ValueError]);
                }
            }
            let shape = m.shape.clone();
            (
                m.gather(target, |i| {
                    i[k..].iter().zip(&shape).zip(&st).map(|((x, n), s)| if *n == 1 { 0 } else { x * s }).sum()
                }),
                false,
            )
        }
        Step::Reshape(c) => {
            let opts = reshapes(m.values.len());
            (Model { shape: opts[*c as usize % opts.len()].clone(), values: m.values.clone() }, false)
        }
        Step::Slice(idx) => (index_model(m, idx)?, true),
    })
}

fn broadcast_target(shape: &[usize], lead: &[usize], stretch: usize, bits: u8) -> Vec<usize> {
    let mut t = lead.to_vec();
    t.extend(shape.iter().enumerate().map(|(a, &n)| if n == 1 && bits >> (a % 8) & 1 == 1 { stretch } else { n }));
    t
}

fn apply(a: &Array, m: &Model, s: &Step) -> cuprum::Result<Array> {
    match s {
        Step::T => Ok(a.t()),
        Step::Swap(x, y) => a.swapaxes(*x, *y),
        Step::Flip(x) => a.flip(*x),
        Step::Expand(x) => a.expand_dims(*x),
        Step::Squeeze => Ok(a.squeeze()),
        Step::Broadcast(lead, stretch, bits) => a.broadcast_to(&broadcast_target(a.shape(), lead, *stretch, *bits)),
        Step::Reshape(c) => {
            let opts = reshapes(m.values.len());
            a.reshape(&opts[*c as usize % opts.len()])
        }
        Step::Slice(idx) => a.slice(idx),
    }
}

device_test!(view_chains_follow_numpy, |dev| {
    let steps = proptest::collection::vec(step(), 1..6);
    check("view_chains_follow_numpy", stream(0x71E35, &dev), (shapes(3, 4), steps), |(shape, steps)| {
        let base = cuprum::arange(shape.iter().product::<usize>() as i64, &dev)
            .and_then(|a| a.reshape(&shape))
            .or_fail("base")?;
        let (mut a, mut m, mut view) = (base.clone(), Model::arange(&shape), true);
        for (k, s) in steps.iter().enumerate() {
            match (apply(&a, &m, s), model(&m, s)) {
                (Ok(next), Ok((nm, is_view))) => {
                    prop_assert_eq!(next.shape(), &nm.shape[..], "step {} {:?}: shape", k, s);
                    prop_assert_eq!(
                        &next.to_vec::<i64>().or_fail("to_vec")?,
                        &nm.values,
                        "step {} {:?}: elements",
                        k,
                        s
                    );
                    (a, m, view) = (next, nm, view && is_view);
                }
                (Err(e), Err(kinds)) => {
                    prop_assert!(
                        kinds.contains(&e.kind()),
                        "step {k} {s:?}: {:?} ({e}), NumPy raises {kinds:?}",
                        e.kind()
                    );
                    break;
                }
                (Ok(next), Err(kinds)) => {
                    return Err(TestCaseError::fail(format!(
                        "step {k} {s:?} gave shape {:?}; NumPy raises {kinds:?}",
                        next.shape()
                    )))
                }
                (Err(e), Ok(_)) => {
                    return Err(TestCaseError::fail(format!("step {k} {s:?}: {e}; NumPy gives a result")))
                }
            }
        }
        let sum = a.sum(None).and_then(|s| s.item::<i64>()).or_fail("sum")?;
        prop_assert_eq!(sum, m.values.iter().sum::<i64>(), "sum at the end of the chain");
        prop_assert_eq!(a.copy().and_then(|c| c.to_vec::<i64>()).or_fail("copy")?, m.values.clone(), "copy");
        if view {
            a.fill(-7).or_fail("fill")?;
            let mut want = Model::arange(&shape).values;
            for &p in &m.values {
                want[p as usize] = -7;
            }
            prop_assert_eq!(base.to_vec::<i64>().or_fail("to_vec")?, want, "base after writing through the chain");
        }
        Ok(())
    });
    Ok(())
});
