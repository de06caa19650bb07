//! The GPU's measurements against the CPU's on seeded random images and label images: few
//! labels (one group: the per-warp path) and many (the atomic path), list indices with
//! repeats, absent and negative labels (the lookup table), every dtype, views. Counts,
//! integer sums, minima, maxima and positions must be equal; float64 sums within 1e-9
//! relative (atomics add in another order), complex64 sums within 1e-5.

use crate::common::{assert_close, on, random, Rng};
use cuprum::scipy::ndimage as ndi;
use cuprum::scipy::ndimage::Index;
use cuprum::{Array, DType, Device};

fn labels(shape: &[usize], k: i64, rng: &mut Rng) -> Array {
    let n: usize = shape.iter().product();
    let v: Vec<i64> = (0..n).map(|_| (rng.uniform() * (k + 2) as f64) as i64 - 1).collect();
    cuprum::from_slice(&v, shape, &Device::Cpu).unwrap()
}

fn same(gpu: &Device, c: &Array, g: &Array, what: &str) {
    assert_eq!(g.device(), *gpu, "{what}");
    assert_eq!((g.dtype(), g.shape()), (c.dtype(), c.shape()), "{what}");
    if c.dtype().is_inexact() {
        // complex64 sums (one group) add float32 parts in each device's order, as NumPy's sum;
        // the others come from float64 sums.
        let rtol = if c.dtype() == DType::Complex64 { 1e-5 } else { 1e-9 };
        assert_close(g, c, rtol, what);
    } else {
        let a = c.to_vec_as::<i64>().unwrap();
        let b = g.to_device(&Device::Cpu).unwrap().to_vec_as::<i64>().unwrap();
        assert_eq!(a, b, "{what}");
    }
}

fn check(gpu: &Device, x: &Array, l: &Array, index: &Index, what: &str) {
    let (xg, lg) = (on(gpu, x), on(gpu, l));
    type F = fn(&Array, Option<&Array>, Index) -> cuprum::Result<Array>;
    let fs: [(&str, F); 11] = [
        ("sum_labels", |a, b, c| ndi::sum_labels(a, b, c)),
        ("mean", |a, b, c| ndi::mean(a, b, c)),
        ("variance", |a, b, c| ndi::variance(a, b, c)),
        ("standard_deviation", |a, b, c| ndi::standard_deviation(a, b, c)),
        ("minimum", |a, b, c| ndi::minimum(a, b, c)),
        ("maximum", |a, b, c| ndi::maximum(a, b, c)),
        ("median", |a, b, c| ndi::median(a, b, c)),
        ("minimum_position", |a, b, c| ndi::minimum_position(a, b, c)),
        ("maximum_position", |a, b, c| ndi::maximum_position(a, b, c)),
        ("center_of_mass", |a, b, c| ndi::center_of_mass(a, b, c)),
        ("histogram", |a, b, c| ndi::histogram(a, -20.0, 20.0, 7, b, c)),
    ];
    for (name, f) in fs {
        let w = format!("{name} {what} {:?}", x.dtype());
        match (f(x, Some(l), index.clone()), f(&xg, Some(&lg), index.clone())) {
            (Ok(c), Ok(g)) => same(gpu, &c, &g, &w),
            // SciPy's TypeError for sums of complex values over a list of labels: both devices.
            (Err(c), Err(g)) if x.dtype().is_complex() => {
                assert_eq!((c.kind(), g.kind()), (cuprum::ErrorKind::TypeError, cuprum::ErrorKind::TypeError), "{w}")
            }
            (c, g) => panic!("{w}: cpu {c:?}, gpu {g:?}"),
        }
    }
    let c = ndi::count(l, index.clone()).unwrap();
    same(gpu, &c, &ndi::count(&lg, index.clone()).unwrap(), &format!("count {what}"));
}

gpu_test!(measure_random_labels, |gpu| {
    let mut rng = Rng::new(7200);
    for dt in cuprum::dtype::ALL_DTYPES {
        let x = random(&[61, 47], dt, &mut rng, false);
        let l = labels(&[61, 47], 30, &mut rng);
        for index in [Index::All, Index::Label(3), (1..=30).into(), Index::from(vec![5, -1, 40, 5, 2, 0])] {
            check(&gpu, &x, &l, &index, &format!("{index:?}"));
        }
    }
    // Many labels, floats with NaN and infinities, a transposed view.
    let x = random(&[512, 700], DType::Float32, &mut rng, true);
    let l = labels(&[512, 700], 20000, &mut rng);
    check(&gpu, &x, &l, &(1..=20000).into(), "many labels");
    check(&gpu, &x.t(), &l.t(), &(1..=500).into(), "transposed");
    let x3 = random(&[20, 30, 40], DType::Float64, &mut rng, false);
    let l3 = labels(&[20, 30, 40], 50, &mut rng);
    check(&gpu, &x3, &l3, &(0..=51).into(), "3-d");
    // find_objects and value_indices.
    let lc = l3.astype(DType::Int32)?;
    assert_eq!(ndi::find_objects(&lc, 0)?, ndi::find_objects(&on(&gpu, &lc), 0)?);
    let vc = ndi::value_indices_with(&lc, &ndi::ValueIndicesOptions { ignore_value: Some(0) })?;
    let vg = ndi::value_indices_with(&on(&gpu, &lc), &ndi::ValueIndicesOptions { ignore_value: Some(0) })?;
    assert_eq!(vc.len(), vg.len());
    for ((a, ia), (b, ib)) in vc.iter().zip(&vg) {
        assert_eq!(a, b);
        for (p, q) in ia.iter().zip(ib) {
            assert_eq!(p.to_vec::<i64>()?, q.to_device(&Device::Cpu)?.to_vec::<i64>()?, "value_indices {a}");
        }
    }
    Ok(())
});
