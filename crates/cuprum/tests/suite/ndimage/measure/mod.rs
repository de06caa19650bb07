//! `scipy.ndimage`'s measurements on every device against values SciPy printed (result dtypes
//! per index kind, absent and negative labels, value_indices, find_objects, errors), the
//! lessons' pipeline on a synthetic sky against SciPy's numbers, and `gpu`: the GPU against the
//! CPU on seeded random label images.

mod gpu;

use cuprum::scipy::ndimage as ndi;
use cuprum::scipy::ndimage::Index;
use cuprum::{Complex, DType, Device, ErrorKind};

device_test!(scipy_values_and_dtypes, |dev| {
    // x = [[1,2,0,4],[5,6,0,8],[9,0,3,2]] (int16); l = [[1,1,0,2],[1,3,0,2],[0,0,-1,2]]
    let x = cuprum::from_slice(&[1i16, 2, 0, 4, 5, 6, 0, 8, 9, 0, 3, 2], &[3, 4], &dev)?;
    let l = cuprum::from_slice(&[1i64, 1, 0, 2, 1, 3, 0, 2, 0, 0, -1, 2], &[3, 4], &dev)?;
    let idx = Index::from(vec![2, 1, 7, -1]);
    // scipy: sum_labels(x, l) -> np.int64(28); (x, l, 2) -> np.int64(14); list -> [14., 8., 0., 3.]
    let s = ndi::sum_labels(&x, Some(&l), Index::All)?;
    assert_eq!((s.dtype(), s.shape().len(), s.item::<i64>()?), (DType::Int64, 0, 28));
    assert_eq!(ndi::sum_labels(&x, Some(&l), 2)?.item::<i64>()?, 14);
    let s = ndi::sum_labels(&x, Some(&l), idx.clone())?;
    assert_eq!((s.dtype(), s.to_vec::<f64>()?), (DType::Float64, vec![14.0, 8.0, 0.0, 3.0]));
    assert_eq!(ndi::sum_labels(&x, None, Index::All)?.item::<i64>()?, 40);
    // mean: [4.66666667, 2.66666667, nan, 3.]
    let m = ndi::mean(&x, Some(&l), idx.clone())?.to_vec::<f64>()?;
    assert!((m[0] - 14.0 / 3.0).abs() < 1e-15 && m[2].is_nan() && m[3] == 3.0);
    // variance: [6.22222222, 2.88888889, nan, 0.]
    let v = ndi::variance(&x, Some(&l), idx.clone())?.to_vec::<f64>()?;
    assert!((v[0] - 56.0 / 9.0).abs() < 1e-13 && (v[1] - 26.0 / 9.0).abs() < 1e-13 && v[2].is_nan() && v[3] == 0.0);
    // minimum: [2, 1, 0, 3] int16; maximum [8, 5, 0, 3]; median [4., 2., 3., 3.] (SciPy's
    // value for the absent label 7: the smallest value of the smallest label, -1).
    let mn = ndi::minimum(&x, Some(&l), idx.clone())?;
    assert_eq!((mn.dtype(), mn.to_vec::<i16>()?), (DType::Int16, vec![2, 1, 0, 3]));
    assert_eq!(ndi::maximum(&x, Some(&l), idx.clone())?.to_vec::<i16>()?, vec![8, 5, 0, 3]);
    assert_eq!(ndi::median(&x, Some(&l), idx.clone())?.to_vec::<f64>()?, vec![4.0, 2.0, 3.0, 3.0]);
    assert_eq!(ndi::median(&x, Some(&l), Index::All)?.item::<f64>()?, 4.0);
    // positions: minimum_position(x, l, [2, 1, 7, -1]) -> [(2, 3), (0, 0), (0, 0), (2, 2)]
    let p = ndi::minimum_position(&x, Some(&l), idx.clone())?;
    assert_eq!((p.shape().to_vec(), p.to_vec::<i64>()?), (vec![4, 2], vec![2, 3, 0, 0, 0, 0, 2, 2]));
    assert_eq!(ndi::maximum_position(&x, None, Index::All)?.to_vec::<i64>()?, vec![2, 0]);
    // center_of_mass(x, l, 2) -> (0.857142857, 3.0)
    let c = ndi::center_of_mass(&x, Some(&l), 2)?.to_vec::<f64>()?;
    assert!((c[0] - 6.0 / 7.0).abs() < 1e-15 && c[1] == 3.0);
    assert_eq!(ndi::count(&l, vec![1, 2, 5])?.to_vec::<i64>()?, vec![3, 3, 0]);
    // Float32 sums of one group stay float32 (np.float32(27.0)).
    let s = ndi::sum_labels(&x.astype(DType::Float32)?, Some(&l), 1)?;
    assert_eq!((s.dtype(), s.item::<f32>()?), (DType::Float32, 8.0));
    Ok(())
});

// Complex inputs, against SciPy 1.17.1's values for
// x = [[1+2j, 1-1j, 3], [2+5j, 1-1j, 3-1j], [9j, 2+5j, -1]] (complex64),
// l = [[1, 1, 2], [2, 1, 2], [0, 3, 1]], index [1, 2, 7, 3].
device_test!(complex_values, |dev| {
    let c = |re: f32, im: f32| Complex::new(re, im);
    let xs = [c(1., 2.), c(1., -1.), c(3., 0.), c(2., 5.), c(1., -1.), c(3., -1.), c(0., 9.), c(2., 5.), c(-1., 0.)];
    let x = cuprum::from_slice(&xs, &[3, 3], &dev)?;
    let l = cuprum::from_slice(&[1i64, 1, 2, 2, 1, 2, 0, 3, 1], &[3, 3], &dev)?;
    let idx = Index::from(vec![1, 2, 7, 3]);
    let vals = |a: &cuprum::Array| a.to_device(&Device::Cpu).unwrap().to_vec::<Complex<f32>>().unwrap();
    // NumPy's order of complex numbers: real part, then imaginary part.
    let mn = ndi::minimum(&x, Some(&l), idx.clone())?;
    assert_eq!((mn.dtype(), vals(&mn)), (DType::Complex64, vec![c(-1., 0.), c(2., 5.), c(0., 0.), c(2., 5.)]));
    assert_eq!(vals(&ndi::maximum(&x, Some(&l), idx.clone())?), vec![c(1., 2.), c(3., 0.), c(0., 0.), c(2., 5.)]);
    assert_eq!(vals(&ndi::maximum(&x, Some(&l), Index::All)?), vec![c(3., 0.)]);
    // median: the absent label 7 takes SciPy's value, the smallest of label 0.
    let md = ndi::median(&x, Some(&l), idx.clone())?;
    assert_eq!((md.dtype(), vals(&md)), (DType::Complex64, vec![c(1., -1.), c(3., -1.), c(0., 9.), c(2., 5.)]));
    assert_eq!(vals(&ndi::median(&x, Some(&l), Index::All)?), vec![c(1.5, 3.5)]);
    assert_eq!(vals(&ndi::median(&x, None, Index::All)?), vec![c(1., 2.)]);
    let p = ndi::minimum_position(&x, Some(&l), idx.clone())?;
    assert_eq!(p.to_device(&Device::Cpu)?.to_vec::<i64>()?, vec![2, 2, 1, 0, 0, 0, 2, 1]);
    let p = ndi::maximum_position(&x, Some(&l), idx.clone())?;
    assert_eq!(p.to_device(&Device::Cpu)?.to_vec::<i64>()?, vec![0, 0, 0, 2, 0, 0, 2, 1]);
    let (lo, hi, plo, phi) = ndi::extrema(&x, None, Index::All)?;
    assert_eq!((vals(&lo), vals(&hi)), (vec![c(-1., 0.)], vec![c(3., 0.)]));
    assert_eq!((plo.to_vec::<i64>()?, phi.to_vec::<i64>()?), (vec![2, 2], vec![0, 2]));
    // One group: complex sums (complex64), means and variances (complex128).
    let s = ndi::sum_labels(&x, Some(&l), Index::All)?;
    assert_eq!((s.dtype(), s.ndim(), vals(&s)), (DType::Complex64, 0, vec![c(12., 9.)]));
    assert_eq!(vals(&ndi::sum_labels(&x, Some(&l), 2)?), vec![c(8., 4.)]);
    assert_eq!(vals(&ndi::sum_labels(&x, None, Index::All)?), vec![c(12., 18.)]);
    let c128 = |a: cuprum::Array| {
        assert_eq!((a.dtype(), a.ndim()), (DType::Complex128, 0));
        a.to_device(&Device::Cpu).unwrap().to_vec::<Complex<f64>>().unwrap()[0]
    };
    assert_eq!(c128(ndi::mean(&x, Some(&l), Index::All)?), Complex::new(1.5, 1.125));
    let v = c128(ndi::variance(&x, Some(&l), Index::All)?);
    assert!((v.re - 7.359375).abs() < 1e-12 && v.im == 0.0, "variance {v}");
    let sd = c128(ndi::standard_deviation(&x, Some(&l), Index::All)?);
    assert!((sd.re - 2.7128168017763383).abs() < 1e-12 && sd.im == 0.0, "standard_deviation {sd}");
    let com = ndi::center_of_mass(&x, Some(&l), 1)?.to_device(&Device::Cpu)?;
    assert_eq!(com.to_vec::<Complex<f64>>()?, vec![Complex::new(-0.5, -0.5), Complex::new(0.0, -1.0)]);
    // histogram: the real parts.
    let h = ndi::histogram(&x, -2.0, 4.0, 3, Some(&l), vec![1, 2, 3])?;
    assert_eq!(h.to_device(&Device::Cpu)?.to_vec::<i64>()?, vec![1, 3, 0, 0, 0, 3, 0, 0, 1]);
    // SciPy's TypeError: its bincount casts complex weights to float64.
    for r in [
        ndi::sum_labels(&x, Some(&l), idx.clone()),
        ndi::mean(&x, Some(&l), idx.clone()),
        ndi::variance(&x, Some(&l), idx.clone()),
        ndi::standard_deviation(&x, Some(&l), idx.clone()),
        ndi::center_of_mass(&x, Some(&l), idx.clone()),
    ] {
        let e = r.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::TypeError);
        assert!(e.to_string().contains("Cannot cast array data from dtype('complex64') to dtype('float64')"), "{e}");
    }
    Ok(())
});

device_test!(value_indices_and_find_objects, |dev| {
    // scipy: value_indices([[0,2,2],[1,0,2]], ignore_value=0)
    //   -> {1: ([1], [0]), 2: ([0, 0, 1], [1, 2, 2])}
    let a = cuprum::from_slice(&[0i32, 2, 2, 1, 0, 2], &[2, 3], &dev)?;
    let v = ndi::value_indices_with(&a, &ndi::ValueIndicesOptions { ignore_value: Some(0) })?;
    assert_eq!(v.len(), 2);
    assert_eq!((v[0].0, v[0].1[0].to_vec::<i64>()?, v[0].1[1].to_vec::<i64>()?), (1, vec![1], vec![0]));
    assert_eq!((v[1].0, v[1].1[0].to_vec::<i64>()?, v[1].1[1].to_vec::<i64>()?), (2, vec![0, 0, 1], vec![1, 2, 2]));
    assert_eq!(v[1].1[0].device(), dev);
    assert_eq!(ndi::value_indices(&a)?.len(), 3);
    let f = cuprum::from_slice(&[1.0], &[1], &dev)?;
    assert_eq!(ndi::value_indices(&f).unwrap_err().kind(), ErrorKind::ValueError);
    // find_objects([[0,2,2],[0,0,3]], max_label=4) -> [None, (0:1, 1:3), (1:2, 2:3), None]
    let l = cuprum::from_slice(&[0u8, 2, 2, 0, 0, 3], &[2, 3], &dev)?;
    assert_eq!(ndi::find_objects(&l, 4)?, vec![None, Some(vec![0..1, 1..3]), Some(vec![1..2, 2..3]), None]);
    assert_eq!(ndi::find_objects(&f, 0).unwrap_err().kind(), ErrorKind::TypeError);
    Ok(())
});

device_test!(measurement_errors, |dev| {
    let x = cuprum::ones(&[3, 4], DType::Float64, &dev)?;
    let l3 = cuprum::ones(&[3, 3], DType::Int32, &dev)?;
    // Shapes that do not broadcast: ValueError.
    let e = ndi::sum_labels(&x, Some(&l3), vec![1]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ValueError);
    assert!(e.to_string().contains("input (3, 4) and labels (3, 3)"), "shapes as NumPy's tuples: {e}");
    // Float index arrays and complex labels: TypeError (float labels: `float_labels_as_scipy`).
    let lf = cuprum::ones(&[3, 4], DType::Float64, &dev)?;
    assert_eq!(Index::from_array(&lf).unwrap_err().kind(), ErrorKind::TypeError);
    let lc = cuprum::ones(&[3, 4], DType::Complex128, &dev)?;
    assert_eq!(ndi::mean(&x, Some(&lc), 1).unwrap_err().kind(), ErrorKind::TypeError);
    // An index without labels: ValueError.
    assert_eq!(ndi::sum_labels(&x, None, 1).unwrap_err().kind(), ErrorKind::ValueError);
    // Labels on another device: ValueError (DeviceMismatch) where a GPU exists.
    if !dev.is_cpu() {
        let lh = cuprum::ones(&[3, 4], DType::Int32, &Device::Cpu)?;
        assert_eq!(ndi::sum_labels(&x, Some(&lh), 1).unwrap_err().kind(), ErrorKind::ValueError);
    }
    // Broadcast labels (a row of labels for every row).
    let row = cuprum::from_slice(&[1i32, 1, 2, 2], &[4], &dev)?;
    assert_eq!(ndi::sum_labels(&x, Some(&row), vec![1, 2])?.to_vec::<f64>()?, vec![6.0, 6.0]);
    Ok(())
});

device_test!(float_labels_as_scipy, |dev| {
    // The lessons' labels written into a float64 array (`label_into`), then measured: SciPy 1.17.1
    // and CuPy take them. Values from SciPy:
    //   x = arange(12.).reshape(3, 4); l = [[1, 1, 0, 2.5], [2, 2, nan, 0], [3, 0, 1, -1]]
    //   sum_labels(x, l, [1, 2, 3, 7]) -> [11, 9, 8, 0]; sum_labels(x, l) -> 31.0 (labels > 0)
    //   sum_labels(x, l, 2) -> 9.0; center_of_mass(x, l, [2, 1]) -> [(1, 0.5555...), (1.8181..., 1.9090...)]
    let x = cuprum::arange(12, &dev)?.astype(DType::Float64)?.reshape([3, 4])?;
    let v = [1.0, 1.0, 0.0, 2.5, 2.0, 2.0, f64::NAN, 0.0, 3.0, 0.0, 1.0, -1.0];
    let l = cuprum::from_slice(&v, &[3, 4], &dev)?;
    let got = |r: cuprum::Result<cuprum::Array>| r.and_then(|a| a.to_device(&Device::Cpu)?.to_vec::<f64>());
    assert_eq!(got(ndi::sum_labels(&x, Some(&l), vec![1, 2, 3, 7]))?, vec![11.0, 9.0, 8.0, 0.0]);
    assert_eq!(got(ndi::sum_labels(&x, Some(&l), Index::All))?, vec![31.0]);
    assert_eq!(got(ndi::sum_labels(&x, Some(&l), 2))?, vec![9.0]);
    let com = got(ndi::center_of_mass(&x, Some(&l), vec![2, 1]))?;
    let want = [1.0, 5.0 / 9.0, 20.0 / 11.0, 21.0 / 11.0];
    assert!(com.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-15), "{com:?}");
    // float32 labels from label_into: the same measurements as the int32 labels.
    let img = cuprum::from_slice(&[0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0], &[3, 3], &dev)?;
    let (li, n) = ndi::label(&img)?;
    let lf = cuprum::zeros(&[3, 3], DType::Float32, &dev)?;
    assert_eq!(ndi::label_into(&img, None, &lf)?, n);
    let idx: Vec<i64> = (1..=n as i64).collect();
    for (a, b) in [
        (ndi::mean(&img, Some(&lf), idx.clone()), ndi::mean(&img, Some(&li), idx.clone())),
        (ndi::center_of_mass(&img, Some(&lf), idx.clone()), ndi::center_of_mass(&img, Some(&li), idx.clone())),
        (ndi::maximum_position(&img, Some(&lf), idx.clone()), ndi::maximum_position(&img, Some(&li), idx.clone())),
        (ndi::variance(&img, Some(&lf), Index::All), ndi::variance(&img, Some(&li), Index::All)),
    ] {
        assert_eq!(got(a.and_then(|a| a.astype(DType::Float64)))?, got(b.and_then(|b| b.astype(DType::Float64)))?);
    }
    Ok(())
});
