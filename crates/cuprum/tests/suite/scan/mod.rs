//! Scans (cumsum, cumprod) on every device, against values NumPy printed; `gpu`: the GPU
//! scans against the CPU on seeded random inputs.

mod gpu;

use cuprum::DType;

fn ints(a: &cuprum::Array) -> Vec<i64> {
    a.to_vec_as::<i64>().unwrap()
}

device_test!(cumsum_cumprod_like_numpy, |dev| {
    let a = cuprum::arange_with(1, 7, 1, DType::Int32, &dev)?.reshape([2, 3])?;
    let c = a.cumsum(None)?;
    assert_eq!(c.dtype(), DType::Int64);
    assert_eq!(ints(&c), vec![1, 3, 6, 10, 15, 21]);
    assert_eq!(ints(&a.cumsum(0)?), vec![1, 2, 3, 5, 7, 9]);
    assert_eq!(ints(&a.cumsum(-1)?), vec![1, 3, 6, 4, 9, 15]);
    assert_eq!(ints(&a.cumprod(1)?), vec![1, 2, 6, 4, 20, 120]);
    let u = cuprum::full(&[4], 200u8, DType::UInt8, &dev)?;
    let cu = u.cumsum(None)?;
    assert_eq!(cu.dtype(), DType::UInt64);
    assert_eq!(cu.to_vec::<u64>()?, vec![200, 400, 600, 800]);
    let b = cuprum::from_vec(vec![true, false, true], &dev)?;
    assert_eq!(ints(&b.cumsum(None)?), vec![1, 1, 2]);
    // float32 accumulates in float32 (NumPy: np.cumsum(np.full(3, 0.1, np.float32))).
    let f = cuprum::full(&[3], 0.1, DType::Float32, &dev)?;
    assert_eq!(f.cumsum(None)?.to_vec::<f32>()?, vec![0.1f32, 0.2, 0.3]);
    let e = cuprum::zeros(&[0, 3], DType::Float64, &dev)?;
    assert_eq!(e.cumsum(1)?.shape(), &[0, 3]);
    assert_eq!(cuprum::scalar(5i16, &dev)?.cumsum(None)?.shape(), &[1]);
    assert!(a.cumsum(2).is_err());
    Ok(())
});
