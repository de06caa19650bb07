//! cuprum::testing against numpy.testing: each case's report is the text NumPy 2.4.6's
//! `AssertionError` carried for the same arrays (printed by `str(e)`).

use cuprum::testing::{
    assert_allclose, assert_allclose_with, assert_array_equal, assert_array_equal_with, AllcloseOptions,
    ArrayEqualOptions,
};
use cuprum::{Array, DType, Device};

/// The panic message of `f`, or `None` where it passed.
fn report(f: impl FnOnce()) -> Option<String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).err().map(|p| match p.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p.downcast_ref::<&str>().map(|s| s.to_string()).unwrap_or_default(),
    })
}

fn f64s(v: &[f64], dev: &Device) -> Array {
    cuprum::from_vec(v.to_vec(), dev).unwrap()
}

device_test!(reports_as_numpy, |dev| {
    let d = &dev;
    let eq = |a: &Array, b: &Array| {
        let (a, b) = (a.view(), b.view());
        report(move || assert_array_equal(&a, &b))
    };
    let close = |a: &Array, b: &Array, o: AllcloseOptions| {
        let (a, b) = (a.view(), b.view());
        report(move || assert_allclose_with(&a, &b, &o))
    };
    let def = AllcloseOptions::default;
    let cases: Vec<(Option<String>, &str)> = vec![
        (close(&f64s(&[1., 2., 4.], d), &f64s(&[1., 2., 3.], d), def()),
         "\nNot equal to tolerance rtol=1e-07, atol=0\n\nMismatched elements: 1 / 3 (33.3%)\nMismatch at index:\n [2]: 4.0 (ACTUAL), 3.0 (DESIRED)\nMax absolute difference among violations: 1.\nMax relative difference among violations: 0.33333333\n ACTUAL: array([1., 2., 4.])\n DESIRED: array([1., 2., 3.])"),
        (close(&f64s(&[1., f64::NAN, 3., 4.], d).reshape([2, 2])?.astype(DType::Float32)?, &f64s(&[1., 2., 3., 4.], d).reshape([2, 2])?, def()),
         "\nNot equal to tolerance rtol=1e-07, atol=0\n\nnan location mismatch:\n ACTUAL: array([[ 1., nan],\n       [ 3.,  4.]], dtype=float32)\n DESIRED: array([[1., 2.],\n       [3., 4.]])"),
        (eq(&cuprum::from_vec(vec![1i64, 2, 3], d)?, &cuprum::from_vec(vec![1i64, 2, 4], d)?),
         "\nArrays are not equal\n\nMismatched elements: 1 / 3 (33.3%)\nMismatch at index:\n [2]: 3 (ACTUAL), 4 (DESIRED)\nMax absolute difference among violations: 1\nMax relative difference among violations: 0.25\n ACTUAL: array([1, 2, 3])\n DESIRED: array([1, 2, 4])"),
        (eq(&cuprum::from_vec(vec![1i64, 2, 3], d)?, &cuprum::from_vec(vec![1i64, 2], d)?),
         "\nArrays are not equal\n\n(shapes (3,), (2,) mismatch)\n ACTUAL: array([1, 2, 3])\n DESIRED: array([1, 2])"),
        (close(&cuprum::scalar(3.898e-4, d)?, &cuprum::scalar(4e-4, d)?, def()),
         "\nNot equal to tolerance rtol=1e-07, atol=0\n\nMismatched elements: 1 / 1 (100%)\nMax absolute difference among violations: 1.02e-05\nMax relative difference among violations: 0.0255\n ACTUAL: array(0.00039)\n DESIRED: array(0.0004)"),
        (eq(&cuprum::arange(2000, d)?.astype(DType::Float64)?,
            &(&cuprum::arange(2000, d)?.astype(DType::Float64)? + &cuprum::arange(2000, d)?.equal(5)?.astype(DType::Float64)?)?),
         "\nArrays are not equal\n\nMismatched elements: 1 / 2000 (0.05%)\nMismatch at index:\n [5]: 5.0 (ACTUAL), 6.0 (DESIRED)\nMax absolute difference among violations: 1.\nMax relative difference among violations: 0.16666667\n ACTUAL: array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03,\n       1.999e+03], shape=(2000,))\n DESIRED: array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03,\n       1.999e+03], shape=(2000,))"),
        (close(&cuprum::arange(12, d)?.astype(DType::Float64)?.reshape([3, 4])?,
               &(cuprum::arange(12, d)?.astype(DType::Float64)?.reshape([3, 4])?.expr() * 1.5).eval()?,
               AllcloseOptions { rtol: 1e-3, atol: 0.5, err_msg: "short note".into(), ..def() }),
         "\nNot equal to tolerance rtol=0.001, atol=0.5\nshort note\nMismatched elements: 10 / 12 (83.3%)\nFirst 5 mismatches are at indices:\n [0, 2]: 2.0 (ACTUAL), 3.0 (DESIRED)\n [0, 3]: 3.0 (ACTUAL), 4.5 (DESIRED)\n [1, 0]: 4.0 (ACTUAL), 6.0 (DESIRED)\n [1, 1]: 5.0 (ACTUAL), 7.5 (DESIRED)\n [1, 2]: 6.0 (ACTUAL), 9.0 (DESIRED)\nMax absolute difference among violations: 5.5\nMax relative difference among violations: 0.33333333\n ACTUAL: array([[ 0.,  1.,  2.,  3.],\n       [ 4.,  5.,  6.,  7.],\n       [ 8.,  9., 10., 11.]])\n DESIRED: array([[ 0. ,  1.5,  3. ,  4.5],\n       [ 6. ,  7.5,  9. , 10.5],\n       [12. , 13.5, 15. , 16.5]])"),
        (eq(&f64s(&[1., f64::INFINITY, 2.], d), &f64s(&[1., 3., 2.], d)),
         "\nArrays are not equal\n\ninf location mismatch:\n ACTUAL: array([ 1., inf,  2.])\n DESIRED: array([1., 3., 2.])"),
        (eq(&f64s(&[1., f64::INFINITY, f64::NEG_INFINITY], d), &f64s(&[1., f64::INFINITY, f64::INFINITY], d)),
         "\nArrays are not equal\n\ninf values mismatch:\n ACTUAL: array([ inf, -inf])\n DESIRED: array([inf, inf])"),
        (eq(&cuprum::from_vec(vec![3u8, 5], d)?, &cuprum::from_vec(vec![5u8, 5], d)?),
         "\nArrays are not equal\n\nMismatched elements: 1 / 2 (50%)\nMismatch at index:\n [0]: 3 (ACTUAL), 5 (DESIRED)\nMax absolute difference among violations: 2\nMax relative difference among violations: 0.4\n ACTUAL: array([3, 5], dtype=uint8)\n DESIRED: array([5, 5], dtype=uint8)"),
        (eq(&cuprum::from_vec(vec![true, false], d)?, &cuprum::from_vec(vec![true, true], d)?),
         "\nArrays are not equal\n\nMismatched elements: 1 / 2 (50%)\nMismatch at index:\n [1]: False (ACTUAL), True (DESIRED)\n ACTUAL: array([ True, False])\n DESIRED: array([ True,  True])"),
        (eq(&cuprum::scalar(2.0f32, d)?, &cuprum::from_vec(vec![2.0f32, 3., 2., 4.], d)?),
         "\nArrays are not equal\n\nMismatched elements: 2 / 4 (50%)\nMismatch at indices:\n [1]: 2.0 (ACTUAL), 3.0 (DESIRED)\n [3]: 2.0 (ACTUAL), 4.0 (DESIRED)\nMax absolute difference among violations: 2.\nMax relative difference among violations: 0.5\n ACTUAL: array(2., dtype=float32)\n DESIRED: array([2., 3., 2., 4.], dtype=float32)"),
        (close(&f64s(&[1., 2.], d), &f64s(&[1., 2.], d).astype(DType::Float32)?, AllcloseOptions { strict: true, ..def() }),
         "\nNot equal to tolerance rtol=1e-07, atol=0\n\n(dtypes float64, float32 mismatch)\n ACTUAL: array([1., 2.])\n DESIRED: array([1., 2.], dtype=float32)"),
        (close(&f64s(&[f64::NAN, 0., 1.], d), &f64s(&[f64::NAN, 0., 0.], d), def()),
         "\nNot equal to tolerance rtol=1e-07, atol=0\n\nMismatched elements: 1 / 3 (33.3%)\nMismatch at index:\n [2]: 1.0 (ACTUAL), 0.0 (DESIRED)\nMax absolute difference among violations: 1.\nMax relative difference among violations: inf\n ACTUAL: array([nan,  0.,  1.])\n DESIRED: array([nan,  0.,  0.])"),
        ({
            let (a, b) = (cuprum::from_vec(vec![1i64], d)?, cuprum::from_vec(vec![2i64], d)?);
            report(move || assert_array_equal_with(&a, &b, &ArrayEqualOptions { err_msg: "x".repeat(80), ..Default::default() }))
        },
         "\nArrays are not equal\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nMismatched elements: 1 / 1 (100%)\nMismatch at index:\n [0]: 1 (ACTUAL), 2 (DESIRED)\nMax absolute difference among violations: 1\nMax relative difference among violations: 0.5\n ACTUAL: array([1])\n DESIRED: array([2])"),
        (close(&f64s(&[1.], d), &f64s(&[2.], d), AllcloseOptions { verbose: false, ..def() }),
         "\nNot equal to tolerance rtol=1e-07, atol=0\n\nMismatched elements: 1 / 1 (100%)\nMismatch at index:\n [0]: 1.0 (ACTUAL), 2.0 (DESIRED)\nMax absolute difference among violations: 1.\nMax relative difference among violations: 0.5"),
    ];
    for (i, (got, want)) in cases.into_iter().enumerate() {
        assert_eq!(got.as_deref(), Some(want), "case {i}");
    }
    // What passes: NaNs in the same places, infinities of the same sign, a 0-d against an
    // array, empty arrays, the tolerance's edge; arrays on different devices are compared.
    let x = f64s(&[f64::NAN, f64::INFINITY, 1.0], d);
    assert_array_equal(&x, &x.copy()?);
    assert_allclose(&x, &f64s(&[f64::NAN, f64::INFINITY, 1.0 + 1e-8], &Device::Cpu));
    assert_array_equal(&cuprum::scalar(2i64, d)?, &cuprum::full(&[3], 2i64, DType::Int64, d)?);
    assert_array_equal(&cuprum::zeros(&[0, 3], DType::Float32, d)?, &cuprum::zeros(&[0, 3], DType::Float32, d)?);
    assert_allclose_with(&f64s(&[1.5], d), &f64s(&[1.0], d), &AllcloseOptions { atol: 0.5, ..def() });
    assert!(report(|| assert_allclose(&f64s(&[f64::NAN], &Device::Cpu), &f64s(&[f64::NAN], &Device::Cpu))).is_none());
    let no_nan = AllcloseOptions { equal_nan: false, ..def() };
    assert!(report(move || assert_allclose_with(
        &f64s(&[f64::NAN], &Device::Cpu),
        &f64s(&[f64::NAN], &Device::Cpu),
        &no_nan
    ))
    .is_some());
    Ok(())
});
