//! Set operations and searches on every device, against values NumPy printed: unique,
//! searchsorted, histogram, digitize, bincount and isin in one lesson-sized test; `gpu`: the
//! GPU unique and isin against the CPU on seeded random inputs.

mod gpu;

use cuprum::{Bins, Side};

fn f64s(a: &cuprum::Array) -> Vec<f64> {
    a.to_vec_as::<f64>().unwrap()
}

fn ints(a: &cuprum::Array) -> Vec<i64> {
    a.to_vec_as::<i64>().unwrap()
}

device_test!(unique_search_histogram, |dev| {
    let a = cuprum::from_vec(vec![3i64, 1, 2, 3, 1], &dev)?;
    let u = cuprum::unique_with(
        &a,
        &cuprum::UniqueOptions { return_index: true, return_inverse: true, return_counts: true },
    )?;
    assert_eq!(ints(&u.values), vec![1, 2, 3]);
    assert_eq!(ints(&u.index.unwrap()), vec![1, 2, 0]);
    assert_eq!(ints(&u.inverse.unwrap()), vec![2, 0, 1, 2, 0]);
    assert_eq!(ints(&u.counts.unwrap()), vec![2, 1, 2]);
    let un = cuprum::unique_with(
        &cuprum::from_vec(vec![1.0, f64::NAN, f64::NAN, 0.0], &dev)?,
        &cuprum::UniqueOptions::default(),
    )?;
    assert_eq!(un.values.size(), 3);
    let s = cuprum::from_vec(vec![1.0, 2.0, 2.0, 3.0], &dev)?;
    let v = cuprum::from_vec(vec![2.0, 0.0, 5.0, 2.5], &dev)?;
    assert_eq!(ints(&cuprum::searchsorted(&s, &v, Side::Left)?), vec![1, 0, 4, 3]);
    assert_eq!(ints(&cuprum::searchsorted(&s, &v, Side::Right)?), vec![3, 0, 4, 3]);
    let d = cuprum::from_vec(vec![1.0, 2.0, 2.0, 3.0, 9.0], &dev)?;
    let (h, e) = cuprum::histogram(&d, Bins::Count(4))?;
    assert_eq!(ints(&h), vec![3, 1, 0, 1]);
    assert_eq!(f64s(&e), vec![1.0, 3.0, 5.0, 7.0, 9.0]);
    let (hd, _) = cuprum::histogram_with(
        &d,
        Bins::Edges(vec![0.0, 2.0, 5.0, 10.0]),
        &cuprum::HistogramOptions { density: true, ..Default::default() },
    )?;
    for (g, w) in f64s(&hd).iter().zip([0.1, 0.2, 0.04]) {
        assert!((g - w).abs() < 1e-12);
    }
    let x = cuprum::from_vec(vec![0.5, 1.0, 2.5, 4.0], &dev)?;
    let bins = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?;
    assert_eq!(ints(&cuprum::digitize(&x, &bins)?), vec![0, 1, 2, 3]);
    assert_eq!(ints(&cuprum::digitize_with(&x, &bins, &cuprum::DigitizeOptions { right: true })?), vec![0, 0, 2, 3]);
    let bc = cuprum::from_vec(vec![0i64, 1, 1, 3], &dev)?;
    assert_eq!(ints(&cuprum::bincount(&bc)?), vec![1, 2, 0, 1]);
    let w = cuprum::from_vec(vec![0.5, 1.0, 1.0, 2.0], &dev)?;
    assert_eq!(
        f64s(&cuprum::bincount_with(&bc, &cuprum::BincountOptions { weights: Some(&w), minlength: 6 })?),
        vec![0.5, 2.0, 0.0, 2.0, 0.0, 0.0]
    );
    assert!(cuprum::bincount(&cuprum::from_vec(vec![-1i64], &dev)?).is_err());
    let isin = cuprum::isin(&cuprum::arange(6, &dev)?, &cuprum::from_vec(vec![4i64, 1, 9], &dev)?)?;
    assert_eq!(isin.to_vec::<bool>()?, vec![false, true, false, false, true, false]);
    Ok(())
});
