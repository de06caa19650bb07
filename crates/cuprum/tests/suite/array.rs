//! The array on every device: the issue's example, views, copies, printing, interop, npy
//! files, and the errors that bad input must give.

use crate::common;
use cuprum::{s, DType, Device, Error};

device_test!(issue_example, |dev| {
    let ary = cuprum::arange(10, &dev)?.reshape([2, 5])?;
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
    let mut a = cuprum::arange_with(0, 24, 1, DType::Int32, &dev)?.reshape([2, 3, 4])?;
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
    let r = t.reshape([24])?; // needs a copy
    assert!(!r.shares_storage(&a));
    let r2 = a.reshape([4, -1])?; // a view
    assert!(r2.shares_storage(&a));
    assert_eq!(r2.shape(), &[4, 6]);
    let d = cuprum::arange(9, &dev)?.reshape([3, 3])?.diagonal_with(1, 0, 1)?;
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

// NumPy's `a[:, 1:-1]`: `1..-1` is an empty Rust range, which clippy's `reversed_empty_ranges`
// rejects outside `s!`; the macro allows it in its expansion (checked here, outside the crate).
// Steps and bounds at the ends of isize: each selects what Python's slice.indices gives (one element,
// or the whole axis), and nothing reads outside the array (a step of isize::MAX - 1 once made a view
// of 2^64 - 1 elements that summed memory past the end). NumPy: a[1:4:2**63-2] is [1],
// a[0:5:2**63-1] is [0], a[::-2**63] is [4], a[0:2**63-1] and a[-2**63:] the whole array.
device_test!(slices_with_extreme_steps_and_bounds, |dev| {
    let a = cuprum::arange(5, &dev)?;
    let one = |s: &cuprum::Array| -> cuprum::Result<(Vec<usize>, Vec<i64>)> {
        Ok((s.shape().to_vec(), s.copy()?.to_vec::<i64>()?))
    };
    assert_eq!(one(&a.slice(s![1..4; isize::MAX - 1])?)?, (vec![1], vec![1]));
    assert_eq!(a.slice(s![1..4; isize::MAX - 1])?.sum(None)?.item::<i64>()?, 1);
    assert_eq!(one(&a.slice(s![0..5; isize::MAX])?)?, (vec![1], vec![0]));
    assert_eq!(one(&a.slice(s![..; isize::MIN])?)?, (vec![1], vec![4]));
    assert_eq!(one(&a.slice(s![..; isize::MIN + 1])?)?, (vec![1], vec![4]));
    assert_eq!(one(&a.slice(s![0..=isize::MAX])?)?, (vec![5], vec![0, 1, 2, 3, 4]));
    assert_eq!(one(&a.slice(s![0..usize::MAX])?)?, (vec![5], vec![0, 1, 2, 3, 4]));
    assert_eq!(one(&a.slice(s![isize::MIN..])?)?, (vec![5], vec![0, 1, 2, 3, 4]));
    assert_eq!(one(&a.slice(s![isize::MAX..; -1])?)?, (vec![5], vec![4, 3, 2, 1, 0]));
    assert!(matches!(a.slice(s![usize::MAX]), Err(Error::IndexOutOfRange { .. })));
    assert!(matches!(a.slice(s![isize::MIN]), Err(Error::IndexOutOfRange { .. })));
    // On a 2-d view with a large stride, and empty.
    let m = cuprum::arange(20, &dev)?.reshape([4, 5])?;
    assert_eq!(one(&m.slice(s![1..; isize::MAX, 2..; isize::MIN])?)?, (vec![1, 1], vec![7])); // m[1, 2]
    assert_eq!(one(&m.slice(s![4..; isize::MAX, ..])?)?.0, vec![0, 5]);
    Ok(())
});

device_test!(negative_stop_slices, |dev| {
    let a = cuprum::arange(12, &dev)?.reshape([3, 4])?;
    #[deny(clippy::reversed_empty_ranges)]
    let inner = a.slice(s![.., 1..-1])?;
    assert_eq!(inner.shape(), &[3, 2]);
    assert_eq!(inner.to_vec::<i64>()?, vec![1, 2, 5, 6, 9, 10]);
    // An empty view may keep an offset past the end of its (empty) block: reading it reads nothing.
    let empty = cuprum::zeros(&[0, 5], DType::Float32, &dev)?.slice(s![.., 3])?;
    assert_eq!(empty.shape(), &[0]);
    assert_eq!(empty.to_vec::<f32>()?, Vec::<f32>::new());
    assert!(empty.to_bytes()?.is_empty());
    assert_eq!(empty.copy()?.to_device(&Device::Cpu)?.size(), 0);
    Ok(())
});

device_test!(errors_are_errors, |dev| {
    let a = cuprum::zeros(&[2, 3], DType::Float32, &dev)?;
    let b = cuprum::zeros(&[4], DType::Float32, &dev)?;
    match &a + &b {
        Err(Error::ShapeMismatch { a: x, b: y, .. }) => assert_eq!((x, y), (vec![2, 3], vec![4])),
        other => panic!("expected a shape error, got {:?}", other.map(|_| ())),
    }
    assert!(matches!(a.reshape([4, 2]), Err(Error::BadReshape { .. })));
    assert!(matches!(a.reshape([-1, -1]), Err(Error::Value(_))));
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
    assert!(matches!(cuprum::allclose(&c, &g), Err(Error::DeviceMismatch { .. })));
    let mut g2 = cuprum::zeros(&[3], DType::Float32, &gpu).unwrap();
    assert!(matches!(g2.assign(&c), Err(Error::DeviceMismatch { .. })));
}

// A copy within one dtype moves bits, as NumPy's does: NaN payloads and signs survive strided
// copies on every device (the GPU once widened float16 to float and back, canonicalising NaNs).
device_test!(strided_copies_keep_nan_bits, |dev| {
    let h: Vec<cuprum::f16> =
        [0x7e01u16, 0xfe00, 0x3c00, 0x7c01, 0xfc00, 0x8000].iter().map(|&b| cuprum::f16::from_bits(b)).collect();
    let f: Vec<f32> = [0x7fc0_0001u32, 0xffc0_0000, 0x3f80_0000, 0x7f80_0001, 0x8000_0000, 0x7fff_ffff]
        .iter()
        .map(|&b| f32::from_bits(b))
        .collect();
    let d: Vec<f64> = [
        0x7ff8_0000_0000_0001u64,
        0xfff8_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0x8000_0000_0000_0000,
        0x7fff_ffff_ffff_ffff,
    ]
    .iter()
    .map(|&b| f64::from_bits(b))
    .collect();
    let bits16 = |a: &cuprum::Array| -> cuprum::Result<Vec<u16>> {
        Ok(a.to_vec::<cuprum::f16>()?.iter().map(|v| v.to_bits()).collect())
    };
    let bits32 = |a: &cuprum::Array| -> cuprum::Result<Vec<u32>> {
        Ok(a.to_vec::<f32>()?.iter().map(|v| v.to_bits()).collect())
    };
    let bits64 = |a: &cuprum::Array| -> cuprum::Result<Vec<u64>> {
        Ok(a.to_vec::<f64>()?.iter().map(|v| v.to_bits()).collect())
    };
    // [2, 3] on the device, transposed, copied (a strided copy), transposed back and copied.
    let tt = |a: cuprum::Array| -> cuprum::Result<cuprum::Array> { a.t().copy()?.t().copy() };
    let a16 = tt(cuprum::from_slice(&h, &[2, 3], &dev)?)?;
    assert_eq!(bits16(&a16)?, h.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    let a32 = tt(cuprum::from_slice(&f, &[2, 3], &dev)?)?;
    assert_eq!(bits32(&a32)?, f.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    let a64 = tt(cuprum::from_slice(&d, &[2, 3], &dev)?)?;
    assert_eq!(bits64(&a64)?, d.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    // A reversed view copied keeps them too.
    let r16 = cuprum::from_slice(&h, &[6], &dev)?.slice(s![..;-1])?.copy()?;
    assert_eq!(bits16(&r16)?, h.iter().rev().map(|v| v.to_bits()).collect::<Vec<_>>());
    Ok(())
});

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
    let [xx, yy] = cuprum::meshgrid([&cuprum::arange(3, &dev)?, &cuprum::arange(2, &dev)?])?;
    assert_eq!(xx.shape(), &[2, 3]);
    assert_eq!(yy.to_vec::<i64>()?, vec![0, 0, 0, 1, 1, 1]);
    let f16 = cuprum::full(&[2], half::f16::from_f32(1.5), DType::Float16, &dev)?;
    assert_eq!(f16.to_vec::<half::f16>()?, vec![half::f16::from_f32(1.5); 2]);
    assert_eq!(format!("{:?}", f16.astype(DType::Float32)?), "array([1.5, 1.5], dtype=float32)");
    Ok(())
});

device_test!(printing_large_arrays_copies_corners, |dev| {
    let a = cuprum::arange(2000, &dev)?.reshape([40, 50])?;
    let r = format!("{a:?}");
    assert!(r.starts_with("array([[   0,    1,    2, ...,   47,   48,   49],"), "{r}");
    assert!(r.ends_with("[1950, 1951, 1952, ..., 1997, 1998, 1999]], shape=(40, 50))"), "{r}");
    let t = format!("{}", cuprum::arange(2000, &dev)?);
    assert_eq!(t, "[   0    1    2 ... 1997 1998 1999]");
    Ok(())
});

device_test!(npy_roundtrip, |dev| {
    let a = cuprum::arange_f(0.0, 12.0, 1.0, DType::Float32, &dev)?.reshape([3, 4])?.t();
    let bytes = cuprum::npy::npy_to_bytes(&a)?;
    let b = cuprum::npy::npy_from_bytes(&bytes, &dev)?;
    assert!(cuprum::array_equal(&a, &b)?);
    assert!(cuprum::npy::npy_from_bytes(b"not npy", &dev).is_err());
    Ok(())
});

// Float to int casts give NumPy's values on x86-64 (C casts compiled to `cvttsd2si`), not
// Rust's saturating `as` nor CUDA's saturating conversions: NaN and out-of-range values to
// int32 give INT32_MIN, to int64 INT64_MIN; int8, int16, uint8 and uint16 keep the low bits
// of the int32 conversion, uint32 those of the int64 one. Values printed by NumPy 2.4.6
// (`np.array(vals, dtype=src).astype(dst)`; for float to uint32 NumPy's element-wise loop,
// as `np.array([v], dtype=src).astype(np.uint32)`: its contiguous SIMD loop gives other values
// for floats out of uint32's range).
device_test!(float_to_int_casts_match_numpy, |dev| {
    let vals = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1.7,
        -1.7,
        300.0,
        -1.0,
        -300.0,
        3000000000.0,
        -3000000000.0,
        5000000000.0,
        1e+19,
        -1e+19,
        1e+20,
        9.223372036854776e+18,
        1.8446744073709552e+19,
        4294967301.0,
        12884901893.0,
        65543.0,
        2147483648.0,
        -2147483649.0,
        0.0,
        127.9,
        -128.9,
        -2147483648.5,
    ];
    // `want`: NumPy's values, in order, as integers.
    let check = |src: DType, dst: DType, want: &str| {
        let want: Vec<i64> = want.split(' ').map(|t| t.parse::<i128>().unwrap() as i64).collect();
        let x = cuprum::from_vec(vals.to_vec(), &dev).unwrap().astype(src).unwrap();
        // Compared as int64 (the wrapping cast is one-to-one): contiguous, reversed, 0-d.
        let got = |a: &cuprum::Array| {
            let r = a.astype(dst).unwrap();
            assert_eq!(r.dtype(), dst);
            r.to_vec_as::<i64>().unwrap()
        };
        assert_eq!(got(&x), want, "{src} -> {dst}");
        let want_rev: Vec<i64> = want.iter().rev().copied().collect();
        assert_eq!(got(&x.slice(s![..;-1]).unwrap()), want_rev, "{src} -> {dst} (reversed view)");
        for (i, w) in want.iter().enumerate() {
            assert_eq!(got(&x.slice(s![i as isize]).unwrap()), vec![*w], "{src} -> {dst} of {}", vals[i]);
        }
    };
    check(DType::Float64, DType::Int8, "0 0 0 1 -1 44 -1 -44 0 0 0 0 0 0 0 0 0 0 7 0 0 0 127 -128 0");
    check(DType::Float64, DType::Int16, "0 0 0 1 -1 300 -1 -300 0 0 0 0 0 0 0 0 0 0 7 0 0 0 127 -128 0");
    check(DType::Float64, DType::Int32, "-2147483648 -2147483648 -2147483648 1 -1 300 -1 -300 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 65543 -2147483648 -2147483648 0 127 -128 -2147483648");
    check(DType::Float64, DType::Int64, "-9223372036854775808 -9223372036854775808 -9223372036854775808 1 -1 300 -1 -300 3000000000 -3000000000 5000000000 -9223372036854775808 -9223372036854775808 -9223372036854775808 -9223372036854775808 -9223372036854775808 4294967301 12884901893 65543 2147483648 -2147483649 0 127 -128 -2147483648");
    check(DType::Float64, DType::UInt8, "0 0 0 1 255 44 255 212 0 0 0 0 0 0 0 0 0 0 7 0 0 0 127 128 0");
    check(DType::Float64, DType::UInt16, "0 0 0 1 65535 300 65535 65236 0 0 0 0 0 0 0 0 0 0 7 0 0 0 127 65408 0");
    check(DType::Float64, DType::UInt32, "0 0 0 1 4294967295 300 4294967295 4294966996 3000000000 1294967296 705032704 0 0 0 0 0 5 5 65543 2147483648 2147483647 0 127 4294967168 2147483648");
    check(DType::Float64, DType::UInt64, "9223372036854775808 0 9223372036854775808 1 18446744073709551615 300 18446744073709551615 18446744073709551316 3000000000 18446744070709551616 5000000000 10000000000000000000 9223372036854775808 0 9223372036854775808 0 4294967301 12884901893 65543 2147483648 18446744071562067967 0 127 18446744073709551488 18446744071562067968");
    check(DType::Float32, DType::Int8, "0 0 0 1 -1 44 -1 -44 0 0 0 0 0 0 0 0 0 0 7 0 0 0 127 -128 0");
    check(DType::Float32, DType::Int16, "0 0 0 1 -1 300 -1 -300 0 0 0 0 0 0 0 0 0 0 7 0 0 0 127 -128 0");
    check(DType::Float32, DType::Int32, "-2147483648 -2147483648 -2147483648 1 -1 300 -1 -300 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 65543 -2147483648 -2147483648 0 127 -128 -2147483648");
    check(DType::Float32, DType::Int64, "-9223372036854775808 -9223372036854775808 -9223372036854775808 1 -1 300 -1 -300 3000000000 -3000000000 5000000000 -9223372036854775808 -9223372036854775808 -9223372036854775808 -9223372036854775808 -9223372036854775808 4294967296 12884901888 65543 2147483648 -2147483648 0 127 -128 -2147483648");
    check(DType::Float32, DType::UInt8, "0 0 0 1 255 44 255 212 0 0 0 0 0 0 0 0 0 0 7 0 0 0 127 128 0");
    check(DType::Float32, DType::UInt16, "0 0 0 1 65535 300 65535 65236 0 0 0 0 0 0 0 0 0 0 7 0 0 0 127 65408 0");
    check(DType::Float32, DType::UInt32, "0 0 0 1 4294967295 300 4294967295 4294966996 3000000000 1294967296 705032704 0 0 0 0 0 0 0 65543 2147483648 2147483648 0 127 4294967168 2147483648");
    check(DType::Float32, DType::UInt64, "9223372036854775808 0 9223372036854775808 1 18446744073709551615 300 18446744073709551615 18446744073709551316 3000000000 18446744070709551616 5000000000 9999999980506447872 9223372036854775808 0 9223372036854775808 0 4294967296 12884901888 65543 2147483648 18446744071562067968 0 127 18446744073709551488 18446744071562067968");
    check(DType::Float16, DType::Int8, "0 0 0 1 -1 44 -1 -44 0 0 0 0 0 0 0 0 0 0 0 0 0 0 127 -128 0");
    check(DType::Float16, DType::Int16, "0 0 0 1 -1 300 -1 -300 0 0 0 0 0 0 0 0 0 0 0 0 0 0 127 -128 0");
    check(DType::Float16, DType::Int32, "-2147483648 -2147483648 -2147483648 1 -1 300 -1 -300 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 -2147483648 0 127 -128 -2147483648");
    check(DType::Float16, DType::Int64, "-9223372036854775808 -9223372036854775808 -9223372036854775808 1 -1 300 -1 -300 -9223372036854775808 -9223372036854775808 -9223372036854775808 -9223372036854775808 -9223372036854775808 -9223372036854775808 -9223372036854775808 -9223372036854775808 -9223372036854775808 -9223372036854775808 -9223372036854775808 -9223372036854775808 -9223372036854775808 0 127 -128 -9223372036854775808");
    check(DType::Float16, DType::UInt8, "0 0 0 1 255 44 255 212 0 0 0 0 0 0 0 0 0 0 0 0 0 0 127 128 0");
    check(DType::Float16, DType::UInt16, "0 0 0 1 65535 300 65535 65236 0 0 0 0 0 0 0 0 0 0 0 0 0 0 127 65408 0");
    check(
        DType::Float16,
        DType::UInt32,
        "0 0 0 1 4294967295 300 4294967295 4294966996 0 0 0 0 0 0 0 0 0 0 0 0 0 0 127 4294967168 0",
    );
    check(DType::Float16, DType::UInt64, "9223372036854775808 0 9223372036854775808 1 18446744073709551615 300 18446744073709551615 18446744073709551316 0 9223372036854775808 0 0 9223372036854775808 0 0 0 0 0 0 0 9223372036854775808 0 127 18446744073709551488 9223372036854775808");
    // The float -> bool cast tests for non-zero (NaN is true).
    let b = cuprum::from_vec(vals.to_vec(), &dev)?.astype(DType::Bool)?.to_vec::<bool>()?;
    assert_eq!(b, vals.iter().map(|v| *v != 0.0).collect::<Vec<_>>());
    Ok(())
});

// `item()` into a Rust integer type truncates floats toward zero (Python's `int()`) and
// refuses values the type cannot hold, with Python's exception kinds.
device_test!(item_checks_the_target_range, |dev| {
    use cuprum::ErrorKind::*;
    let kind = |e: cuprum::Result<i64>| e.unwrap_err().kind();
    let f = |v: f64| cuprum::scalar(v, &dev).unwrap();
    assert_eq!(f(1.7).item::<i32>()?, 1);
    assert_eq!(f(-1.7).item::<i32>()?, -1);
    assert_eq!(f(-0.5).item::<u8>()?, 0);
    assert_eq!(f(255.9).item::<u8>()?, 255);
    assert_eq!(f(2147483647.9).item::<i32>()?, i32::MAX);
    assert_eq!(f(-9223372036854775808.0).item::<i64>()?, i64::MIN);
    assert_eq!(f(1.7).item::<f32>()?, 1.7f32);
    assert!(f(1.7).item::<bool>()?);
    assert_eq!(kind(f(f64::NAN).item::<i64>()), ValueError); // int(nan)
    assert_eq!(kind(f(f64::INFINITY).item::<i64>()), OverflowError); // int(inf)
    assert_eq!(kind(f(f64::NEG_INFINITY).item::<i64>()), OverflowError);
    assert_eq!(kind(f(1e20).item::<i64>()), OverflowError);
    assert_eq!(kind(f(9223372036854775808.0).item::<i64>()), OverflowError);
    assert_eq!(f(-1.0).item::<u32>().unwrap_err().kind(), OverflowError);
    assert_eq!(f(256.0).item::<u8>().unwrap_err().kind(), OverflowError);
    let i = |v: i64| cuprum::scalar(v, &dev).unwrap();
    assert!(matches!(i(300).item::<u8>(), Err(Error::ScalarOverflow { dtype: DType::UInt8, .. })));
    assert_eq!(i(300).item::<u16>()?, 300);
    assert_eq!(i(-1).item::<u32>().unwrap_err().kind(), OverflowError);
    assert_eq!(i(-1).item::<u64>().unwrap_err().kind(), OverflowError);
    assert_eq!(i(-128).item::<i8>()?, -128);
    assert_eq!(i(-129).item::<i8>().unwrap_err().kind(), OverflowError);
    assert_eq!(i(i64::MIN).item::<i64>()?, i64::MIN);
    let u = cuprum::scalar(u64::MAX, &dev)?;
    assert_eq!(u.item::<u64>()?, u64::MAX);
    assert_eq!(u.item::<i64>().unwrap_err().kind(), OverflowError);
    assert_eq!(cuprum::scalar(true, &dev)?.item::<u8>()?, 1);
    // Arrays of one element work as 0-d ones; other sizes are a ValueError.
    let a = cuprum::from_vec(vec![300i32], &dev)?;
    assert_eq!(a.item::<i8>().unwrap_err().kind(), OverflowError);
    assert_eq!(cuprum::zeros(&[2], DType::Int8, &dev)?.item::<i8>().unwrap_err().kind(), ValueError);
    // to_vec_as keeps NumPy's casting (it wraps, as astype does).
    assert_eq!(a.to_vec_as::<u8>()?, vec![44]);
    Ok(())
});

device_test!(len_is_the_first_axis_and_one_for_0d, |dev| {
    assert_eq!(cuprum::zeros(&[3, 4], DType::Float32, &dev)?.len(), 3);
    let empty = cuprum::zeros(&[0, 4], DType::Float32, &dev)?;
    assert_eq!((empty.len(), empty.is_empty()), (0, true));
    let z = cuprum::scalar(1.5, &dev)?;
    assert_eq!((z.len(), z.is_empty(), z.size()), (1, false, 1));
    // A view's first axis, not its base's.
    let a = cuprum::arange(10, &dev)?;
    assert_eq!(a.slice(cuprum::s![2..7;2])?.len(), 3);
    Ok(())
});

// `Error::kind` gives the exception NumPy raises for the same call.
device_test!(error_kinds_match_numpy, |dev| {
    use cuprum::ErrorKind::*;
    fn kind<T>(r: cuprum::Result<T>) -> cuprum::ErrorKind {
        r.err().expect("an error").kind()
    }
    let a = cuprum::zeros(&[2, 3], DType::Float32, &dev)?;
    let v = cuprum::arange(6, &dev)?;
    let fidx = cuprum::zeros(&[2], DType::Float64, &dev)?;
    assert_eq!(kind(&a + &v), ValueError); // broadcast
    assert_eq!(kind(a.reshape([4, 2])), ValueError);
    assert_eq!(kind(a.sum(2)), AxisError);
    assert_eq!(kind(a.permute(&[0, 0])), ValueError);
    assert_eq!(kind(a.slice(s![2, 0])), IndexError);
    assert_eq!(kind(a.slice(s![0, 0, 0])), IndexError); // too many indices
    assert_eq!(kind(a.slice(s![..;0])), ValueError);
    assert_eq!(kind(a.to_vec::<f64>()), TypeError);
    assert_eq!(kind(cuprum::bitwise_and(&a, &a)), TypeError);
    assert_eq!(kind(a.astype_with(DType::Int8, cuprum::Casting::Safe)), TypeError);
    assert_eq!(kind(a.argmax([0usize, 1])), TypeError); // axis=(0, 1)
    assert_eq!(kind(cuprum::take(&v, &fidx, None)), TypeError); // np.take casts 'safe'
    assert_eq!(kind(cuprum::gather(&v, &[&fidx])), IndexError); // v[fidx]
    assert_eq!(kind(cuprum::take(&v, &cuprum::from_vec(vec![6i64], &dev)?, None)), IndexError);
    assert_eq!(kind(v.mask(&cuprum::zeros(&[2], DType::Bool, &dev)?)), IndexError);
    assert_eq!(kind(cuprum::partition(&v, 6, None)), ValueError); // kth out of bounds
    assert_eq!(kind(cuprum::lexsort(&[])), TypeError);
    assert_eq!(kind(cuprum::bincount(&fidx)), TypeError);
    assert_eq!(kind(cuprum::power(&v, -1)), ValueError);
    assert_eq!(kind(cuprum::full(&[1], 300, DType::UInt8, &dev)), OverflowError);
    assert_eq!(kind(cuprum::split(&cuprum::scalar(1, &dev)?, cuprum::Sections::Count(1), 0)), IndexError);
    let e = a.sum(2).unwrap_err();
    assert_eq!((e.kind().name(), e.kind().to_string()), ("AxisError", "AxisError".to_string()));
    Ok(())
});

device_test!(clone_is_a_view_and_to_ndarray_as_converts, |dev| {
    // clone(): the same memory (NumPy's b = a), on every device.
    let a = cuprum::zeros(&[2, 3], DType::Int64, &dev)?;
    let mut b = a.clone();
    assert_eq!((b.shape(), b.device()), (a.shape(), dev));
    b.fill(7i64)?;
    assert_eq!(a.to_vec::<i64>()?, vec![7; 6]);
    // to_ndarray of int64 as f64 is a dtype error; to_ndarray_as converts.
    assert!(a.to_ndarray::<f64>().is_err());
    let m = a.to_ndarray_as::<f64>()?;
    assert_eq!((m.shape(), m[[1, 2]]), (&[2usize, 3][..], 7.0));
    // The re-exported ndarray is the one asarray takes.
    let back = cuprum::asarray(&cuprum::ndarray::arr2(&[[1.5f64, 2.5]]).into_dyn(), &dev)?;
    assert_eq!(back.to_vec::<f64>()?, vec![1.5, 2.5]);
    Ok(())
});

device_test!(zero_d_arrays_honour_format_specs, |dev| {
    // A 0-d array under a format spec prints as NumPy's scalar under Python's (the lessons'
    // f"{std:.3e}"): the strings Python 3.12 printed for np.float32 1.2472191 (the std of
    // [1, 2, 4]) and np.int64(-42); wider arrays keep NumPy's str.
    let a = cuprum::from_vec(vec![1.0f32, 2.0, 4.0], &dev)?;
    let s = a.std(None)?;
    assert_eq!(format!("{s:.3e}"), "1.247e+00"); // f"{s:.3e}"
    assert_eq!(format!("{s:.3}"), "1.247"); // f"{s:.3f}"
    assert_eq!(format!("{s:>12.2}"), "        1.25"); // f"{s:>12.2f}"
    assert_eq!(format!("{s:E}"), "1.247219E+00"); // f"{s:E}"
    assert_eq!(format!("{s:#.3}"), "1.25"); // f"{s:.3g}"
    assert_eq!(format!("{s:+09.3}"), "+0001.247"); // f"{s:+09.3f}"
    let tiny = cuprum::scalar(3.898e-4, &dev)?;
    assert_eq!((format!("{tiny:.3e}"), format!("{tiny:#}")), ("3.898e-04".into(), "0.0003898".into()));
    let nan = cuprum::scalar(f64::NAN, &dev)?;
    assert_eq!(
        (format!("{nan:.3e}"), format!("{nan:.2}"), format!("{nan:#.2}")),
        ("nan".into(), "nan".into(), "nan".into())
    );
    let n = cuprum::scalar(-42i64, &dev)?;
    assert_eq!(
        (format!("{n:>6}"), format!("{n:+}"), format!("{n:e}")),
        ("   -42".into(), "-42".into(), "-4.200000e+01".into())
    );
    let c = cuprum::scalar(cuprum::Complex::new(1.0f64, -2.5), &dev)?;
    assert_eq!(format!("{c:.2e}"), "1.00e+00-2.50e+00j"); // f"{1-2.5j:.2e}"
    let u = cuprum::scalar(7u8, &dev)?;
    assert_eq!(format!("{u:03}"), "007");
    assert_eq!(format!("{}", cuprum::scalar(true, &dev)?), "True");
    assert_eq!(format!("{a:.2}"), format!("{a}")); // 1-d: NumPy's str, precision ignored
    Ok(())
});
