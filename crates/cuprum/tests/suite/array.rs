//! The array on every device: the issue's example, views, copies, printing, interop, npy
//! files, and the errors that bad input must give.

use crate::common;
use cuprum::{s, DType, Device, Error};

device_test!(issue_example, |dev| {
    let ary = cuprum::arange(10, &dev)?.reshape(&[2, 5])?;
    assert_eq!(format!("{ary:?}"), "array([[0, 1, 2, 3, 4],\n       [5, 6, 7, 8, 9]])");
    assert_eq!((ary.dtype(), ary.shape(), ary.strides()), (DType::Int64, &[2usize, 5][..], &[40isize, 8][..]));
    assert_eq!(ary.device(), dev);
    let x = cuprum::asarray(&ndarray::Array1::<f64>::linspace(0., 9., 10), &dev)?;
    let y = ((-0.5 * x.square()?)?.exp())?;
    let back: ndarray::ArrayD<f64> = y.to_ndarray()?;
    for (i, v) in back.iter().enumerate() {
        let want = (-0.5 * (i as f64).powi(2)).exp();
        assert!((v - want).abs() <= 1e-15 * want.max(1e-300), "{i}: {v} vs {want}");
    }
    assert_eq!(
        format!("{y}"),
        "[1.00000000e+00 6.06530660e-01 1.35335283e-01 1.11089965e-02\n 3.35462628e-04 3.72665317e-06 1.52299797e-08 2.28973485e-11\n 1.26641655e-14 2.57675711e-18]"
    );
    let mut deltas = cuprum::zeros(&[2048, 2048], DType::Float64, &dev)?;
    deltas.slice_mut(s![8..;16, 8..;16])?.fill(1.0)?;
    assert_eq!(deltas.sum(None)?.item::<f64>()?, 16384.0);
    assert_eq!(deltas.slice(s![8, 8])?.item::<f64>()?, 1.0);
    assert_eq!(deltas.slice(s![8, 9])?.item::<f64>()?, 0.0);
    Ok(())
});

device_test!(views_share_memory, |dev| {
    let mut a = cuprum::arange_with(0, 24, 1, DType::Int32, &dev)?.reshape(&[2, 3, 4])?;
    let v = a.slice(s![.., 1, ..;-1])?;
    assert_eq!(v.shape(), &[2, 4]);
    assert_eq!(v.strides(), &[48, -4]);
    assert!(v.shares_storage(&a));
    assert_eq!(v.to_vec::<i32>()?, vec![7, 6, 5, 4, 19, 18, 17, 16]);
    a.slice_mut(s![0, 1, ..])?.fill(-1)?;
    assert_eq!(v.slice(s![0])?.to_vec::<i32>()?, vec![-1, -1, -1, -1]);
    let t = a.t();
    assert_eq!(t.shape(), &[4, 3, 2]);
    assert_eq!(t.strides(), &[4, 16, 48]);
    assert!(!t.is_c_contiguous());
    assert!(t.is_f_contiguous());
    let r = t.reshape(&[24])?; // needs a copy
    assert!(!r.shares_storage(&a));
    let r2 = a.reshape_i(&[4, -1])?; // a view
    assert!(r2.shares_storage(&a));
    assert_eq!(r2.shape(), &[4, 6]);
    let d = cuprum::arange(9, &dev)?.reshape(&[3, 3])?.diagonal(1, 0, 1)?;
    assert_eq!(d.to_vec::<i64>()?, vec![1, 5]);
    let e = a.expand_dims(1)?.squeeze();
    assert_eq!(e.shape(), a.shape());
    let b = cuprum::arange(3, &dev)?.broadcast_to(&[2, 3])?;
    assert_eq!(b.strides(), &[0, 8]);
    assert_eq!(b.sum(0)?.to_vec::<i64>()?, vec![0, 2, 4]);
    let sw = a.swapaxes(0, 2)?;
    assert_eq!(sw.shape(), &[4, 3, 2]);
    assert_eq!(a.flatten()?.shape(), &[24]);
    assert_eq!(a.slice(s![cuprum::ELLIPSIS, cuprum::NEW_AXIS, 0])?.shape(), &[2, 3, 1]);
    Ok(())
});

device_test!(errors_are_errors, |dev| {
    let a = cuprum::zeros(&[2, 3], DType::Float32, &dev)?;
    let b = cuprum::zeros(&[4], DType::Float32, &dev)?;
    match &a + &b {
        Err(Error::ShapeMismatch { a: x, b: y, .. }) => assert_eq!((x, y), (vec![2, 3], vec![4])),
        other => panic!("expected a shape error, got {:?}", other.map(|_| ())),
    }
    assert!(matches!(a.reshape(&[4, 2]), Err(Error::BadReshape { .. })));
    assert!(matches!(a.reshape_i(&[-1, -1]), Err(Error::BadReshape { .. })));
    assert!(matches!(a.slice(s![2, 0]), Err(Error::IndexOutOfRange { index: 2, axis: 0, len: 2 })));
    assert!(matches!(a.slice(s![0, -4]), Err(Error::IndexOutOfRange { .. })));
    assert!(a.slice(s![0, 0, 0]).is_err());
    assert!(a.slice(s![..;0]).is_err());
    assert!(matches!(a.item::<f32>(), Err(Error::Value(_))));
    assert!(matches!(a.to_vec::<f64>(), Err(Error::DTypeMismatch { .. })));
    assert!(matches!(a.permute(&[0, 0]), Err(Error::DuplicateAxis { .. })));
    assert!(matches!(a.swapaxes(0, 5), Err(Error::AxisOutOfRange { .. })));
    let i = cuprum::ones(&[3], DType::Int32, &dev)?;
    assert!(cuprum::power(&i, -1).is_err());
    assert!(matches!(cuprum::bitwise_and(&a, &a), Err(Error::UnsupportedDType { .. })));
    assert!(matches!(cuprum::negative(&cuprum::ones(&[1], DType::Bool, &dev)?), Err(Error::UnsupportedDType { .. })));
    let mut out = cuprum::zeros(&[3], DType::Int32, &dev)?;
    assert!(cuprum::add_out(&a.slice(s![0])?, 1.5, &mut out).is_err(), "float into int out needs unsafe casting");
    // An allocation that cannot fit is an error, not an abort.
    match cuprum::zeros(&[1 << 30, 1 << 30], DType::Float64, &dev) {
        Err(Error::OutOfMemory { .. }) | Err(Error::InvalidArgument(_)) => {}
        other => panic!("expected out of memory, got {:?}", other.map(|_| ())),
    }
    Ok(())
});

gpu_test!(device_mismatch_names_both_devices);
fn device_mismatch_names_both_devices() {
    let Some(gpu) = common::gpu_or_skip("device_mismatch_names_both_devices") else { return };
    let c = cuprum::ones(&[3], DType::Float32, &Device::Cpu).unwrap();
    let g = cuprum::ones(&[3], DType::Float32, &gpu).unwrap();
    let err = (&c + &g).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("cpu") && msg.contains("cuda:0") && msg.contains("to_device"), "{msg}");
    assert!(matches!(cuprum::allclose(&c, &g, 1e-5, 1e-8, false), Err(Error::DeviceMismatch { .. })));
    let mut g2 = cuprum::zeros(&[3], DType::Float32, &gpu).unwrap();
    assert!(matches!(g2.assign(&c), Err(Error::DeviceMismatch { .. })));
}

device_test!(copies_and_interop, |dev| {
    let nd = ndarray::Array3::<f32>::from_shape_fn((2, 3, 4), |(i, j, k)| (i * 100 + j * 10 + k) as f32);
    let a = cuprum::asarray(&nd, &dev)?;
    assert_eq!(a.shape(), &[2, 3, 4]);
    let back: ndarray::ArrayD<f32> = a.to_ndarray()?;
    assert_eq!(back, nd.into_dyn());
    // A non-contiguous ndarray view.
    let nd2 = ndarray::Array2::<i16>::from_shape_fn((3, 5), |(i, j)| (i * 5 + j) as i16);
    let a2 = cuprum::asarray(&nd2.t(), &dev)?;
    assert_eq!(a2.shape(), &[5, 3]);
    assert_eq!(a2.slice(s![1])?.to_vec::<i16>()?, vec![1, 6, 11]);
    let h = a2.to_device(&Device::Cpu)?;
    assert_eq!(h.device(), Device::Cpu);
    let round = h.to_device(&dev)?;
    assert!(cuprum::array_equal(&round, &a2)?);
    assert_eq!(cuprum::scalar(2.5f64, &dev)?.item::<f64>()?, 2.5);
    assert_eq!(cuprum::from_vec(vec![true, false], &dev)?.to_vec::<bool>()?, vec![true, false]);
    let m = cuprum::meshgrid(&[&cuprum::arange(3, &dev)?, &cuprum::arange(2, &dev)?], cuprum::Indexing::Xy)?;
    assert_eq!(m[0].shape(), &[2, 3]);
    assert_eq!(m[1].to_vec::<i64>()?, vec![0, 0, 0, 1, 1, 1]);
    let f16 = cuprum::full(&[2], half::f16::from_f32(1.5), DType::Float16, &dev)?;
    assert_eq!(f16.to_vec::<half::f16>()?, vec![half::f16::from_f32(1.5); 2]);
    assert_eq!(format!("{:?}", f16.astype(DType::Float32)?), "array([1.5, 1.5], dtype=float32)");
    Ok(())
});

device_test!(printing_large_arrays_copies_corners, |dev| {
    let a = cuprum::arange(2000, &dev)?.reshape(&[40, 50])?;
    let r = format!("{a:?}");
    assert!(r.starts_with("array([[   0,    1,    2, ...,   47,   48,   49],"), "{r}");
    assert!(r.ends_with("[1950, 1951, 1952, ..., 1997, 1998, 1999]], shape=(40, 50))"), "{r}");
    let t = format!("{}", cuprum::arange(2000, &dev)?);
    assert_eq!(t, "[   0    1    2 ... 1997 1998 1999]");
    Ok(())
});

device_test!(npy_roundtrip, |dev| {
    let a = cuprum::arange_f(0.0, 12.0, 1.0, DType::Float32, &dev)?.reshape(&[3, 4])?.t();
    let bytes = cuprum::npy::npy_to_bytes(&a)?;
    let b = cuprum::npy::npy_from_bytes(&bytes, &dev)?;
    assert!(cuprum::array_equal(&a, &b)?);
    assert!(cuprum::npy::npy_from_bytes(b"not npy", &dev).is_err());
    Ok(())
});
