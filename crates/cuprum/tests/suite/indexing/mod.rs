//! Integer-array indexing on every device, against values NumPy printed; `gpu`: the GPU
//! gather and scatter kernels against the CPU on seeded random inputs.

pub(crate) mod gpu;

use cuprum::{DType, Error};

fn ints(a: &cuprum::Array) -> Vec<i64> {
    a.to_vec_as::<i64>().unwrap()
}

device_test!(take_gather_put_scatter, |dev| {
    let b = cuprum::arange(12, &dev)?.reshape(&[3, 4])?;
    let i = cuprum::from_vec(vec![2i64, 0, -1], &dev)?;
    let t = b.take(&i, Some(1))?;
    assert_eq!(t.shape(), &[3, 3]);
    assert_eq!(ints(&t), vec![2, 0, 3, 6, 4, 7, 10, 8, 11]);
    let i2 = cuprum::from_slice(&[0i32, 5, 11, 1], &[2, 2], &dev)?;
    assert_eq!(ints(&b.take(&i2, None)?), vec![0, 5, 11, 1]);
    assert_eq!(b.take(&i2, Some(0)).map(|_| ()), Err(Error::IndexOutOfRange { index: 5, axis: 0, len: 3 }));
    let ta = cuprum::take_along_axis(&b, &cuprum::from_slice(&[3i64, 0, 1], &[3, 1], &dev)?, 1)?;
    assert_eq!(ints(&ta), vec![3, 4, 9]);
    let mut c = b.copy()?;
    cuprum::put(&mut c, &cuprum::from_vec(vec![0i64, -1, 5], &dev)?, &cuprum::from_vec(vec![100i64, 200, 300], &dev)?)?;
    assert_eq!(ints(&c), vec![100, 1, 2, 3, 4, 300, 6, 7, 8, 9, 10, 200]);
    let r = cuprum::from_vec(vec![0i64, 2], &dev)?;
    let col = cuprum::from_vec(vec![1i64, 3], &dev)?;
    assert_eq!(ints(&cuprum::gather(&b, &[&r, &col])?), vec![1, 11]);
    let rr = r.reshape(&[2, 1])?;
    let g = cuprum::gather(&b, &[&rr, &col])?;
    assert_eq!(g.shape(), &[2, 2]);
    assert_eq!(ints(&g), vec![1, 3, 9, 11]);
    assert_eq!(cuprum::gather(&b, &[&r])?.shape(), &[2, 4]);
    let mut e = b.copy()?;
    cuprum::scatter(&mut e, &[&r, &col], &cuprum::scalar(-1i64, &dev)?)?;
    assert_eq!(ints(&e), vec![0, -1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -1]);
    let mut d = cuprum::zeros(&[5], DType::Float64, &dev)?;
    cuprum::scatter_add(
        &mut d,
        &[&cuprum::from_vec(vec![0i64, 1, 1, 4], &dev)?],
        &cuprum::from_vec(vec![1.0, 2.0, 3.0, 4.0], &dev)?,
    )?;
    assert_eq!(d.to_vec::<f64>()?, vec![1.0, 5.0, 0.0, 0.0, 4.0]);
    let mut u = cuprum::zeros(&[2], DType::UInt8, &dev)?;
    cuprum::scatter_add(&mut u, &[&cuprum::from_vec(vec![1i64; 300], &dev)?], &cuprum::scalar(1u8, &dev)?)?;
    assert_eq!(u.to_vec::<u8>()?, vec![0, 44]);
    assert!(cuprum::gather(&b, &[&cuprum::from_vec(vec![0.5f64], &dev)?]).is_err());
    Ok(())
});
