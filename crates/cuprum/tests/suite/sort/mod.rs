//! Sorting on every device, against values NumPy printed: sort, argsort, partition, lexsort;
//! `gpu`: the GPU radix sort and searches against the CPU on seeded random inputs.

pub(crate) mod gpu;

use cuprum::DType;

fn f64s(a: &cuprum::Array) -> Vec<f64> {
    a.to_vec_as::<f64>().unwrap()
}

fn ints(a: &cuprum::Array) -> Vec<i64> {
    a.to_vec_as::<i64>().unwrap()
}

device_test!(sort_argsort_nan_last_stable, |dev| {
    let a = cuprum::from_vec(vec![3.0, f64::NAN, 1.0, 2.0, 1.0], &dev)?;
    let s = a.sort(None)?;
    assert_eq!(&f64s(&s)[..4], &[1.0, 1.0, 2.0, 3.0]);
    assert!(f64s(&s)[4].is_nan());
    assert_eq!(ints(&a.argsort(None)?), vec![2, 4, 3, 0, 1]);
    let m = cuprum::from_slice(&[3i32, 1, 2, 9, 7, 8], &[2, 3], &dev)?;
    assert_eq!(ints(&m.sort(-1)?), vec![1, 2, 3, 7, 8, 9]);
    assert_eq!(ints(&m.sort(0)?), vec![3, 1, 2, 9, 7, 8]);
    assert_eq!(m.sort(0)?.dtype(), DType::Int32);
    assert_eq!(ints(&m.argsort(1)?), vec![1, 2, 0, 1, 2, 0]);
    let u = cuprum::from_vec(vec![u64::MAX, 0, 1 << 60], &dev)?;
    assert_eq!(u.sort(None)?.to_vec::<u64>()?, vec![0, 1 << 60, u64::MAX]);
    Ok(())
});

device_test!(partition_and_lexsort, |dev| {
    let a = cuprum::from_vec(vec![3i64, 1, 4, 1, 5, 9, 2, 6], &dev)?;
    let p = ints(&cuprum::partition(&a, 3, None)?);
    assert_eq!(p[3], 3);
    assert!(p[..3].iter().all(|&x| x <= 3) && p[4..].iter().all(|&x| x >= 3));
    let ap = ints(&cuprum::argpartition(&a, -5, None)?);
    let av = ints(&a);
    assert_eq!(av[ap[3] as usize], 3);
    assert!(cuprum::partition(&a, 8, None).is_err());
    let k1 = cuprum::from_vec(vec![1i64, 2, 1, 2], &dev)?;
    let k2 = cuprum::from_vec(vec![3i64, 3, 1, 1], &dev)?;
    assert_eq!(ints(&cuprum::lexsort(&[&k1, &k2])?), vec![2, 3, 0, 1]);
    Ok(())
});
