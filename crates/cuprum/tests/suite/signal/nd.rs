//! SciPy's N-d `scipy.signal.convolve` and `correlate` on every device, against values SciPy
//! printed: 3-d and 4-d inputs in every mode, the operands swapped where SciPy swaps them
//! (a correlation's result reversed), 'same' centring, float results to the bit (SciPy's
//! summation order: the taps in C order), result dtypes (NumPy's promotion; bool and float16
//! refused by the direct N-d sum, taken by NumPy's 1-d path and by `Method::Auto` where SciPy
//! would use the FFT), 0-d inputs, empty inputs, NaN and infinities, the methods and the
//! errors; and the GPU against the CPU on seeded random 3-d and 4-d inputs, views and dtypes.

use super::gpu::{agree, values};
use crate::common::{on, random, Rng};
use cuprum::scipy::signal::{convolve_with, correlate2d_with, correlate_with, Convolve2dOptions, Method};
use cuprum::{s, Array, ConvolveMode, DType, Device, ErrorKind};
use ConvolveMode::{Full, Same, Valid};
use Method::{Auto, Direct, Fft};

const MODES: [ConvolveMode; 3] = [Full, Same, Valid];

fn f64s(a: &Array) -> Vec<f64> {
    a.to_vec_as::<f64>().unwrap()
}

fn ints(a: &Array) -> Vec<i64> {
    a.to_vec_as::<i64>().unwrap()
}

/// The error of `r` (its kind and message).
fn err<T>(r: cuprum::Result<T>) -> (ErrorKind, String) {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => (e.kind(), e.to_string()),
    }
}

/// An int64 array of `shape` on `dev`.
fn i64s(v: &[i64], shape: &[usize], dev: &Device) -> Array {
    cuprum::from_slice(v, shape, dev).unwrap()
}

/// Values `((i * 37 + seed) % 101) / 7 - 5` in `dtype`'s arithmetic (float32 or float64), as
/// NumPy computes them: sums of their products round, so their order shows.
fn frac_values(shape: &[usize], dt: DType, seed: usize, dev: &Device) -> Array {
    let n: usize = shape.iter().product();
    let a = if dt == DType::Float32 {
        let v: Vec<f32> = (0..n).map(|i| ((i * 37 + seed) % 101) as f32 / 7.0 - 5.0).collect();
        cuprum::from_slice(&v, shape, dev)
    } else {
        let v: Vec<f64> = (0..n).map(|i| ((i * 37 + seed) % 101) as f64 / 7.0 - 5.0).collect();
        cuprum::from_slice(&v, shape, dev)
    };
    a.unwrap()
}

/// A mode, the result's shape and two results SciPy printed.
type Expected = (ConvolveMode, &'static [usize], &'static [i64], &'static [i64]);

fn parse(v: &[&str]) -> Vec<f64> {
    v.iter().map(|s| s.parse().unwrap()).collect()
}

device_test!(three_d_every_mode, |dev| {
    // x = np.arange(24).reshape(2, 3, 4); k = [[[1, -1], [2, 0]], [[0, 3], [1, 1]]] (int64)
    let x = cuprum::arange(24, &dev)?.reshape([2, 3, 4])?;
    let k = i64s(&[1, -1, 2, 0, 0, 3, 1, 1], &[2, 2, 2], &dev);
    #[rustfmt::skip]
    let want: [Expected; 3] = [
        (Full, &[3, 4, 5],
         &[0, 1, 1, 1, -3, 4, 3, 5, 7, -7, 16, 11, 13, 15, -11, 16, 18, 20, 22, 0, 12, 1, 4, 7, -6, 40, 40, 47, 54,
           5, 56, 68, 75, 82, 17, 48, 59, 63, 67, 11, 0, 36, 39, 42, 45, 12, 73, 78, 83, 72, 16, 93, 98, 103, 88, 20,
           41, 43, 45, 23],
         &[0, 1, 3, 5, 3, 4, 12, 17, 22, 7, 20, 32, 37, 42, 11, 24, 27, 30, 33, 0, 12, 25, 29, 33, 21, 52, 79, 86, 93,
           36, 64, 107, 114, 121, 52, 52, 62, 65, 68, 11, 0, 24, 26, 28, 30, -12, 31, 33, 35, 53, -16, 39, 41, 43, 65,
           -20, -1, -1, -1, 23]),
        (Same, &[2, 3, 4],
         &[0, 1, 1, 1, 4, 3, 5, 7, 16, 11, 13, 15, 12, 1, 4, 7, 40, 40, 47, 54, 56, 68, 75, 82],
         &[0, 1, 3, 5, 4, 12, 17, 22, 20, 32, 37, 42, 12, 25, 29, 33, 52, 79, 86, 93, 64, 107, 114, 121]),
        (Valid, &[1, 2, 3], &[40, 47, 54, 68, 75, 82], &[79, 86, 93, 107, 114, 121]),
    ];
    for (mode, shape, conv, corr) in want {
        for method in [Auto, Direct] {
            let c = convolve_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode, method })?;
            assert_eq!((c.shape(), c.dtype(), c.device()), (shape, DType::Int64, dev), "{mode:?} {method:?}");
            assert_eq!(ints(&c), conv, "convolve {mode:?} {method:?}");
            let r = correlate_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode, method })?;
            assert_eq!(r.shape(), shape);
            assert_eq!(ints(&r), corr, "correlate {mode:?} {method:?}");
        }
    }
    Ok(())
});

device_test!(four_d_every_mode, |dev| {
    // x4 = (np.arange(36) % 7 - 3.).reshape(2, 3, 2, 3); k4 = [0.5, -1, 2, .25, 1, -.5, 3, 1] as (2, 1, 2, 2)
    let xv: Vec<f64> = (0..36).map(|i| (i % 7) as f64 - 3.0).collect();
    let x = cuprum::from_slice(&xv, &[2, 3, 2, 3], &dev)?;
    let k = cuprum::from_slice(&[0.5, -1.0, 2.0, 0.25, 1.0, -0.5, 3.0, 1.0], &[2, 1, 2, 2], &dev)?;
    let c = convolve_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct })?;
    assert_eq!(c.shape(), &[2, 3, 2, 3]);
    #[rustfmt::skip]
    assert_eq!(f64s(&c), [-1.5, 2.0, 1.5, -6.0, -4.25, -2.5, 1.5, -4.5, 2.0, 5.5, -4.25, -4.25, 1.0, -0.5, -4.5, 3.0,
        8.0, -4.25, -2.5, -0.5, -0.5, -8.5, -1.75, 4.5, 3.0, -4.0, -0.5, 9.5, -8.0, -1.75, 1.5, 3.0, -4.0, 3.0, 10.25,
        -8.0]);
    let r = correlate_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct })?;
    #[rustfmt::skip]
    assert_eq!(f64s(&r), [-3.0, -11.0, -7.0, 1.5, -1.0, 3.5, 3.0, 6.0, -11.0, -2.5, 1.5, -1.0, 2.0, 9.0, 6.0, -3.0,
        -6.5, 1.5, 0.25, -1.5, 4.75, -0.5, -10.25, -4.0, 0.75, 6.25, -1.5, -0.25, 8.0, -10.25, -0.5, 1.75, 6.25, 0.0,
        1.75, 8.0]);
    let v = convolve_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method: Auto })?;
    assert_eq!((v.shape(), f64s(&v)), (&[1, 3, 1, 2][..], vec![-1.75, 4.5, -8.0, -1.75, 10.25, -8.0]));
    let v = correlate_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method: Auto })?;
    assert_eq!(f64s(&v), [-10.25, -4.0, 8.0, -10.25, 1.75, 8.0]);
    let f = correlate_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct })?;
    assert_eq!(f.shape(), &[3, 3, 3, 4]);
    assert_eq!(&f64s(&f)[..8], [-3.0, -11.0, -7.0, -3.0, 1.5, -1.0, 3.5, 5.0]);
    assert_eq!(&f64s(&f)[101..], [4.25, 4.25, -5.5, -2.0, -2.0, 4.5, -1.5]);
    let f = convolve_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Auto })?;
    assert_eq!(&f64s(&f)[..8], [-1.5, 2.0, 1.5, 1.0, -6.0, -4.25, -2.5, -2.25]);
    Ok(())
});

device_test!(swapped_operands, |dev| {
    // a = arange(1, 7).reshape(1, 2, 3); b = arange(1, 13).reshape(1, 3, 4) (int64): b is larger
    // in every dimension and has more elements: 'valid' and 'full' swap them.
    let a = i64s(&[1, 2, 3, 4, 5, 6], &[1, 2, 3], &dev);
    let b = cuprum::arange(12, &dev)?.add(1i64)?.reshape([1, 3, 4])?;
    #[rustfmt::skip]
    let want: [Expected; 3] = [
        (Full, &[1, 4, 6],
         &[12, 35, 68, 62, 48, 27, 56, 127, 211, 190, 133, 69, 36, 79, 127, 106, 69, 33, 16, 32, 47, 32, 17, 6],
         &[1, 4, 10, 16, 17, 12, 9, 29, 62, 83, 75, 48, 29, 77, 146, 167, 139, 84, 36, 85, 148, 163, 126, 72]),
        (Valid, &[1, 2, 2], &[211, 190, 127, 106], &[62, 83, 146, 167]),
        // 'same' never swaps: the shape of in1.
        (Same, &[1, 2, 3], &[127, 211, 190, 79, 127, 106], &[29, 62, 83, 77, 146, 167]),
    ];
    for (mode, shape, corr, conv) in want {
        for method in [Direct, Auto] {
            let r = correlate_with(&a, &b, &cuprum::scipy::signal::ConvolveOptions { mode, method })?;
            assert_eq!((r.shape(), ints(&r)), (shape, corr.to_vec()), "correlate {mode:?} {method:?}");
            let c = convolve_with(&a, &b, &cuprum::scipy::signal::ConvolveOptions { mode, method })?;
            assert_eq!((c.shape(), ints(&c)), (shape, conv.to_vec()), "convolve {mode:?} {method:?}");
        }
    }
    // A kernel larger than the input in 'valid' mode: correlate(k, x) is correlate(x, k) reversed.
    let x = i64s(&[1, 2, 3, 4], &[1, 4], &dev);
    let k = i64s(&[1, 10], &[1, 2], &dev);
    assert_eq!(
        ints(&correlate_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method: Direct })?),
        [21, 32, 43]
    );
    assert_eq!(
        ints(&correlate_with(&k, &x, &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method: Direct })?),
        [43, 32, 21]
    );
    // Neither at least as large as the other in every dimension: ValueError.
    let p = cuprum::zeros(&[3, 2, 2], DType::Float64, &dev)?;
    let q = cuprum::zeros(&[2, 3, 2], DType::Float64, &dev)?;
    for method in [Direct, Auto] {
        let (kind, msg) = err(correlate_with(&p, &q, &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method }));
        assert_eq!(kind, ErrorKind::ValueError);
        assert!(msg.contains("one must be at least as large as the other in every dimension"), "{msg}");
        assert_eq!(
            err(convolve_with(&p, &q, &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method })).0,
            ErrorKind::ValueError
        );
    }
    assert_eq!(
        convolve_with(&p, &q, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct })?.shape(),
        &[4, 4, 3]
    );
    Ok(())
});

device_test!(same_mode_centring, |dev| {
    // scipy.signal.correlate([[1, 2, 3, 4]], [[1, 10]], 'same') -> [[10, 21, 32, 43]]: the full
    // result from (k - 1) // 2; correlate2d starts at k // 2: [[21, 32, 43, 4]].
    let x = i64s(&[1, 2, 3, 4], &[1, 4], &dev);
    let k = i64s(&[1, 10], &[1, 2], &dev);
    assert_eq!(
        ints(&correlate_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct })?),
        [10, 21, 32, 43]
    );
    assert_eq!(
        ints(&correlate2d_with(&x, &k, &Convolve2dOptions { mode: Same, ..Default::default() })?),
        [21, 32, 43, 4]
    );
    // 1-d, the first input the shorter (not NumPy's path): correlate([1., 2.], [1, 10, 100,
    // 1000], 'same') -> [2100, 210]; convolve -> [12, 120].
    let a = cuprum::from_vec(vec![1.0, 2.0], &dev)?;
    let v = cuprum::from_vec(vec![1.0, 10.0, 100.0, 1000.0], &dev)?;
    for method in [Direct, Auto] {
        assert_eq!(
            f64s(&correlate_with(&a, &v, &cuprum::scipy::signal::ConvolveOptions { mode: Same, method })?),
            [2100.0, 210.0]
        );
        assert_eq!(
            f64s(&convolve_with(&a, &v, &cuprum::scipy::signal::ConvolveOptions { mode: Same, method })?),
            [12.0, 120.0]
        );
    }
    // 1-d, NumPy's path: np.correlate([1, 2, 3, 4], [1, 10], 'same') -> [10, 21, 32, 43]
    let x1 = i64s(&[1, 2, 3, 4], &[4], &dev);
    let k1 = i64s(&[1, 10], &[2], &dev);
    assert_eq!(
        ints(&correlate_with(&x1, &k1, &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct })?),
        [10, 21, 32, 43]
    );
    Ok(())
});

device_test!(float_sums_in_scipys_order, |dev| {
    // x = vals((2, 3, 4), 3), k = vals((2, 2, 3), 11) with vals(shape, seed) =
    // ((arange(n) * 37 + seed) % 101) / 7 - 5: scipy.signal.correlate(x, k, 'full', 'direct'),
    // printed with repr (float64, every bit).
    #[rustfmt::skip]
    let corr = parse(&["13.714285714285714", "-30.224489795918362", "-17.530612244897956", "46.89795918367347",
        "-14.16326530612245", "-2.6938775510204067", "13.816326530612244", "-33.836734693877546", "32.0204081632653",
        "26.918367346938766", "2.2244897959183696", "4.857142857142855", "-36.06122448979592", "32.469387755102034",
        "32.22448979591836", "14.755102040816329", "-3.3469387755102105", "-5.591836734693875", "-39.22448979591837",
        "43.0204081632653", "-28.551020408163264", "42.08163265306122", "-22.387755102040813", "2.3673469387755093",
        "-42.61224489795918", "-21.163265306122447", "111.53061224489795", "-27.530612244897952", "-8.857142857142865",
        "8.489795918367346", "-42.918367346938766", "96.36734693877551", "93.79591836734696", "-35.87755102040817",
        "62.897959183673464", "10.122448979591837", "56.0", "111.0204081632653", "34.755102040816325",
        "-66.06122448979593", "36.85714285714285", "-7.918367346938773", "62.63265306122449", "-8.95918367346939",
        "46.77551020408162", "-46.89795918367347", "-15.306122448979595", "13.306122448979593", "9.795918367346943",
        "58.857142857142854", "-4.428571428571427", "0.2653061224489761", "13.877551020408164", "-5.142857142857142",
        "75.51020408163266", "62.83673469387756", "2.9795918367346843", "86.59183673469389", "36.591836734693885",
        "-27.387755102040817", "57.34693877551021", "52.40816326530612", "-15.040816326530617", "68.57142857142856",
        "16.122448979591834", "-34.9795918367347", "1.0204081632653088", "39.04081632653062", "-16.93877551020408",
        "-14.28571428571429", "15.653061224489797", "-5.387755102040816"]);
    let x = frac_values(&[2, 3, 4], DType::Float64, 3, &dev);
    let k = frac_values(&[2, 2, 3], DType::Float64, 11, &dev);
    let r = correlate_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct })?;
    assert_eq!(r.shape(), &[3, 4, 6]);
    assert_eq!(f64s(&r), corr);
    // The operands swapped (k has fewer elements than x: SciPy correlates x with k, reversed).
    let mut rev = corr.clone();
    rev.reverse();
    assert_eq!(
        f64s(&correlate_with(&k, &x, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct })?),
        rev
    );
    // float32: scipy.signal.convolve(x32, k32, 'same', 'direct'), float32 arithmetic.
    #[rustfmt::skip]
    let conv32 = parse(&["-10.938776969909668", "-51.89796447753906", "27.020408630371094", "37.02041244506836",
        "-37.938777923583984", "-13.85714340209961", "69.75511169433594", "35.48979568481445", "9.61224365234375",
        "91.79592895507812", "72.34693908691406", "25.06122589111328", "-41.8775520324707", "49.591835021972656",
        "58.9796028137207", "-56.0", "-11.714290618896484", "126.12244415283203", "-3.551015853881836",
        "18.122451782226562", "71.48979187011719", "73.26530456542969", "7.4897990226745605", "26.59183120727539"]);
    let x32 = frac_values(&[2, 3, 4], DType::Float32, 3, &dev);
    let k32 = frac_values(&[2, 2, 3], DType::Float32, 11, &dev);
    let c = convolve_with(&x32, &k32, &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct })?;
    assert_eq!(c.dtype(), DType::Float32);
    assert_eq!(f64s(&c), conv32);
    Ok(())
});

device_test!(result_dtypes, |dev| {
    // x = [[[200, 100], [50, 25]]] (uint8), k = [[[3, 2]]]
    let x = cuprum::from_slice(&[200u8, 100, 50, 25], &[1, 2, 2], &dev)?;
    let k = cuprum::from_slice(&[3u8, 2], &[1, 1, 2], &dev)?;
    // uint8 wraps: convolve(x, k) -> [88, 188, 200, 150, 175, 50] (uint8)
    let r = convolve_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct })?;
    assert_eq!((r.dtype(), r.shape()), (DType::UInt8, &[1, 2, 3][..]));
    assert_eq!(ints(&r), [88, 188, 200, 150, 175, 50]);
    // uint8 with int8 -> int16: correlate(x, -k) -> [-400, -800, -300, -100, -200, -75]
    let kn = cuprum::from_slice(&[-3i8, -2], &[1, 1, 2], &dev)?;
    let r = correlate_with(&x, &kn, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Auto })?;
    assert_eq!((r.dtype(), ints(&r)), (DType::Int16, vec![-400, -800, -300, -100, -200, -75]));
    // int64 with uint64 -> float64: correlate 'same' -> [400, 800, 100, 200]
    let r = correlate_with(
        &x.astype(DType::Int64)?,
        &k.astype(DType::UInt64)?,
        &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct },
    )?;
    assert_eq!((r.dtype(), f64s(&r)), (DType::Float64, vec![400.0, 800.0, 100.0, 200.0]));
    // float32 with int16 -> float32: 'valid' -> [800, 200]
    let r = correlate_with(
        &x.astype(DType::Float32)?,
        &k.astype(DType::Int16)?,
        &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method: Direct },
    )?;
    assert_eq!((r.dtype(), f64s(&r)), (DType::Float32, vec![800.0, 200.0]));
    // SciPy's N-d sum has no bool or float16 loop (ValueError 'Unsupported type'), also for
    // 2-d inputs and mixed dtypes whose result is float16...
    let b3 = cuprum::ones(&[2, 3, 2], DType::Bool, &dev)?;
    let b3k = cuprum::ones(&[1, 2, 2], DType::Bool, &dev)?;
    for method in [Direct, Auto] {
        let (kind, msg) =
            err(correlate_with(&b3, &b3k, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method }));
        assert_eq!((kind, msg.as_str()), (ErrorKind::ValueError, "Unsupported type"));
        assert_eq!(
            err(convolve_with(&b3, &b3k, &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method })).0,
            ErrorKind::ValueError
        );
    }
    let h2 = cuprum::ones(&[2, 3], DType::Float16, &dev)?;
    let i2 = cuprum::ones(&[2, 2], DType::Int8, &dev)?;
    assert_eq!(
        err(convolve_with(&h2, &i2, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct })).0,
        ErrorKind::ValueError
    );
    assert_eq!(
        err(correlate_with(
            &b3.astype(DType::Float16)?,
            &b3k,
            &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct }
        ))
        .0,
        ErrorKind::ValueError
    );
    // ...but 1-d inputs go to NumPy's loops: correlate([T, F, T], [T, T]) -> [T, T, T, T] (bool),
    // convolve(float16 [1, 2, 3], [0.5, 0.25]) -> [0.5, 1.25, 2, 0.75] (float16).
    let bv = cuprum::from_vec(vec![true, false, true], &dev)?;
    let bk = cuprum::from_vec(vec![true, true], &dev)?;
    let r = correlate_with(&bv, &bk, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct })?;
    assert_eq!((r.dtype(), r.to_vec::<bool>()?), (DType::Bool, vec![true; 4]));
    let hv = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?.astype(DType::Float16)?;
    let hk = cuprum::from_vec(vec![0.5, 0.25], &dev)?.astype(DType::Float16)?;
    let r = convolve_with(&hv, &hk, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct })?;
    assert_eq!((r.dtype(), f64s(&r)), (DType::Float16, vec![0.5, 1.25, 2.0, 0.75]));
    // 1-d 'same' with the shorter first is the N-d sum again: bools refused.
    assert_eq!(
        err(correlate_with(&bk, &bv, &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct })).0,
        ErrorKind::ValueError
    );
    // With method='auto' SciPy takes the FFT for these float16 shapes ('fft' for 20x20 * 5x5
    // 'same'): a float16 result. convolve(ones((20, 20), f16), ones((5, 5), f16), 'same')
    // counts the overlap: 9 in a corner, 25 inside.
    let h20 = cuprum::ones(&[20, 20], DType::Float16, &dev)?;
    let h5 = cuprum::ones(&[5, 5], DType::Float16, &dev)?;
    let r = convolve_with(&h20, &h5, &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Auto })?;
    assert_eq!((r.dtype(), r.shape()), (DType::Float16, &[20, 20][..]));
    let v = f64s(&r);
    assert_eq!((v[0], v[1], v[2], v[21], v[210]), (9.0, 12.0, 15.0, 16.0, 25.0));
    // correlate(ones((200, 200)), ones((50, 50)), 'same') in float16: [625, 650, 675, ...], 2500 inside.
    let big = cuprum::ones(&[200, 200], DType::Float16, &dev)?;
    let k50 = cuprum::ones(&[50, 50], DType::Float16, &dev)?;
    let r = correlate_with(&big, &k50, &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Auto })?;
    let v = f64s(&r);
    assert_eq!((r.dtype(), v[0], v[1], v[2], v[100 * 200 + 100]), (DType::Float16, 625.0, 650.0, 675.0, 2500.0));
    // Two bools are never sent to the FFT: refused with 'auto' too.
    let bb = cuprum::ones(&[20, 20], DType::Bool, &dev)?;
    assert_eq!(
        err(convolve_with(
            &bb,
            &bb.slice(s![..5, ..5])?,
            &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Auto }
        ))
        .0,
        ErrorKind::ValueError
    );
    Ok(())
});

device_test!(zero_d_inputs, |dev| {
    // Two 0-d inputs: their product, whatever the mode (uint8: 2 * 200 = 144).
    let a = cuprum::full(&[], 2, DType::UInt8, &dev)?;
    let b = cuprum::full(&[], 200, DType::UInt8, &dev)?;
    for mode in MODES {
        let r = convolve_with(&a, &b, &cuprum::scipy::signal::ConvolveOptions { mode, method: Auto })?;
        assert_eq!((r.shape(), r.dtype(), ints(&r)), (&[][..], DType::UInt8, vec![144]));
        assert_eq!(
            ints(&correlate_with(&a, &b, &cuprum::scipy::signal::ConvolveOptions { mode, method: Direct })?),
            [144]
        );
    }
    // float16 * int8 -> float16 6.0; bools -> bool.
    let h = cuprum::full(&[], 2.0, DType::Float16, &dev)?;
    let i = cuprum::full(&[], 3, DType::Int8, &dev)?;
    let r = correlate_with(&h, &i, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Auto })?;
    assert_eq!((r.dtype(), f64s(&r)), (DType::Float16, vec![6.0]));
    let t = cuprum::full(&[], true, DType::Bool, &dev)?;
    assert_eq!(
        correlate_with(&t, &t, &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Fft })?.dtype(),
        DType::Bool
    );
    // 0-d with 1-d: the ranks differ.
    let v = cuprum::ones(&[3], DType::Float64, &dev)?;
    let (kind, msg) = err(correlate_with(&h, &v, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Auto }));
    assert_eq!((kind, msg.as_str()), (ErrorKind::ValueError, "in1 and in2 should have the same dimensionality"));
    let (kind, msg) =
        err(convolve_with(&v, &h, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct }));
    assert_eq!((kind, msg.as_str()), (ErrorKind::ValueError, "volume and kernel should have the same dimensionality"));
    let m = cuprum::ones(&[3, 1], DType::Float64, &dev)?;
    assert_eq!(
        err(correlate_with(&m, &v, &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method: Direct })).0,
        ErrorKind::ValueError
    );
    assert_eq!(
        err(convolve_with(
            &m,
            &m.reshape([1, 3, 1])?,
            &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Auto }
        ))
        .0,
        ErrorKind::ValueError
    );
    Ok(())
});

device_test!(empty_inputs, |dev| {
    let f = |shape: &[usize]| cuprum::ones(shape, DType::Float64, &dev).unwrap();
    let shape_of = |r: cuprum::Result<Array>| r.map(|a| (a.shape().to_vec(), f64s(&a)));
    // 1-d: NumPy's messages ('same' with the shorter first: the N-d sum, an empty result).
    let (e, x3) = (f(&[0]), f(&[3]));
    assert_eq!(
        err(correlate_with(&e, &x3, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct })).1,
        "first array argument cannot be empty"
    );
    assert_eq!(
        err(correlate_with(&x3, &e, &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method: Direct })).1,
        "second array argument cannot be empty"
    );
    assert_eq!(
        err(convolve_with(&e, &x3, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct })).1,
        "a cannot be empty"
    );
    assert_eq!(
        err(correlate_with(&e, &x3, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Auto })).1,
        "a cannot be empty"
    ); // SciPy goes through np.convolve
    assert_eq!(
        shape_of(correlate_with(&e, &x3, &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct }))?,
        (vec![0], vec![])
    );
    assert_eq!(
        err(correlate_with(&x3, &e, &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct })).0,
        ErrorKind::ValueError
    );
    // N-d, 'full' and 'same': SciPy pads in1 to n + k - 1; an empty kernel axis is a broadcast
    // error unless in1 has length 1 there; n + k - 1 < 0 a negative dimension.
    let (kind, msg) = err(correlate_with(
        &f(&[2, 0]),
        &f(&[2, 2]),
        &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct },
    ));
    assert_eq!(kind, ErrorKind::ValueError);
    assert_eq!(msg, "could not broadcast input array from shape (2, 2) into shape (2, 1)");
    let (_, msg) = err(convolve_with(
        &f(&[3, 4, 2]),
        &f(&[1, 0, 1]),
        &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct },
    ));
    assert_eq!(msg, "could not broadcast input array from shape (3, 4, 2) into shape (3, 3, 2)");
    assert_eq!(
        err(correlate_with(
            &f(&[0, 3]),
            &f(&[0, 2]),
            &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct }
        ))
        .1,
        "negative dimensions are not allowed"
    );
    assert_eq!(
        shape_of(correlate_with(
            &f(&[3, 4, 0]),
            &f(&[1, 2, 1]),
            &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct }
        ))?,
        (vec![3, 5, 0], vec![])
    );
    assert_eq!(
        shape_of(convolve_with(
            &f(&[3, 4, 0]),
            &f(&[1, 2, 1]),
            &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Auto }
        ))?,
        (vec![3, 4, 0], vec![])
    );
    assert_eq!(
        shape_of(correlate_with(
            &f(&[2, 0]),
            &f(&[2, 2]),
            &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct }
        ))?,
        (vec![2, 0], vec![])
    );
    // Length 1 where the kernel is empty: zeros of in1's shape in 'same' mode.
    assert_eq!(
        shape_of(correlate_with(
            &f(&[1, 3, 2]),
            &f(&[0, 3, 1]),
            &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct }
        ))?,
        (vec![1, 3, 2], vec![0.0; 6])
    );
    assert_eq!(
        shape_of(correlate_with(
            &f(&[1, 3]),
            &f(&[0, 3]),
            &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct }
        ))?,
        (vec![0, 5], vec![])
    );
    // 'valid': the empty one is the kernel (swapped if needed), the sums of no taps are zeros.
    assert_eq!(
        shape_of(correlate_with(
            &f(&[2, 0]),
            &f(&[2, 2]),
            &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method: Direct }
        ))?,
        (vec![1, 3], vec![0.0; 3])
    );
    assert_eq!(
        shape_of(convolve_with(
            &f(&[3, 4, 2]),
            &f(&[1, 0, 1]),
            &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method: Auto }
        ))?,
        (vec![3, 5, 2], vec![0.0; 30])
    );
    assert_eq!(
        shape_of(correlate_with(
            &f(&[0, 3]),
            &f(&[0, 2]),
            &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method: Direct }
        ))?,
        (vec![1, 2], vec![0.0; 2])
    );
    assert_eq!(
        err(correlate_with(
            &f(&[3, 4, 0]),
            &f(&[1, 2, 1]),
            &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method: Direct }
        ))
        .0,
        ErrorKind::ValueError
    );
    // method='auto' with integers: SciPy's choose_conv_method takes the maximum of each input.
    let i = |shape: &[usize]| cuprum::ones(shape, DType::Int32, &dev).unwrap();
    let (kind, msg) = err(correlate_with(
        &i(&[3, 4, 2]),
        &i(&[1, 0, 1]),
        &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method: Auto },
    ));
    assert_eq!(kind, ErrorKind::ValueError);
    assert_eq!(msg, "zero-size array to reduction operation maximum which has no identity");
    assert_eq!(
        err(convolve_with(&i(&[0]), &i(&[3]), &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Auto })).0,
        ErrorKind::ValueError
    );
    assert_eq!(
        shape_of(convolve_with(
            &i(&[0]),
            &i(&[3]),
            &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct }
        ))?,
        (vec![0], vec![])
    );
    assert_eq!(
        shape_of(correlate_with(
            &i(&[3, 4, 2]),
            &i(&[1, 0, 1]),
            &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method: Direct }
        ))?
        .0,
        [3, 5, 2]
    );
    Ok(())
});

device_test!(nan_and_infinities, |dev| {
    // Every tap is multiplied, zero taps and the zero padding included: 0 * inf is NaN.
    // x = [[1, 2, 3], [4, 5, 6]]; k = [[inf, 0], [0, 1]]: correlate 'full' ->
    // [[nan, nan, nan, nan], [nan, inf, inf, inf], [nan, inf, inf, inf]], 'valid' -> [[inf, inf]]
    let x = cuprum::from_slice(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], &dev)?;
    let k = cuprum::from_slice(&[f64::INFINITY, 0.0, 0.0, 1.0], &[2, 2], &dev)?;
    let r = f64s(&correlate_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Direct })?);
    let nan: Vec<bool> = r.iter().map(|v| v.is_nan()).collect();
    assert_eq!(nan, [true, true, true, true, true, false, false, false, true, false, false, false]);
    assert!(r.iter().all(|v| v.is_nan() || *v == f64::INFINITY));
    assert_eq!(
        f64s(&correlate_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method: Direct })?),
        [f64::INFINITY; 2]
    );
    // x3 = [[[1, nan, 2], [0.5, 1, -1]]]; k3 = [[[0, 1]]]: correlate 'same' -> [1, nan, nan, 0.5, 1, -1];
    // convolve 'full' -> [0, nan, nan, 2, 0, 0.5, 1, -1]
    let x3 = cuprum::from_slice(&[1.0, f64::NAN, 2.0, 0.5, 1.0, -1.0], &[1, 2, 3], &dev)?;
    let k3 = cuprum::from_slice(&[0.0, 1.0], &[1, 1, 2], &dev)?;
    let same = f64s(&correlate_with(&x3, &k3, &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct })?);
    assert!(same[1].is_nan() && same[2].is_nan());
    assert_eq!([same[0], same[3], same[4], same[5]], [1.0, 0.5, 1.0, -1.0]);
    let full = f64s(&convolve_with(&x3, &k3, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Auto })?);
    assert!(full[1].is_nan() && full[2].is_nan());
    assert_eq!([full[0], full[3], full[4], full[5], full[6], full[7]], [0.0, 2.0, 0.0, 0.5, 1.0, -1.0]);
    Ok(())
});

device_test!(methods, |dev| {
    assert_eq!("auto".parse::<Method>()?, Auto);
    assert_eq!("direct".parse::<Method>()?, Direct);
    assert_eq!("fft".parse::<Method>()?, Fft);
    assert_eq!(Method::default(), Auto);
    for bad in ["Auto", "fftconvolve", "", "overlap-add"] {
        let (kind, msg) = err(bad.parse::<Method>());
        assert_eq!(
            (kind, msg.as_str()),
            (ErrorKind::ValueError, "Acceptable method flags are 'auto', 'direct', or 'fft'.")
        );
    }
    // 'fft': SciPy's fftconvolve (ones * ones counts the overlap: 8 inside 'full'), integers
    // rounded back to their dtype; the 'valid' check comes first.
    let x = cuprum::ones(&[4, 4, 4], DType::Float64, &dev)?;
    let k = cuprum::ones(&[2, 2, 2], DType::Float64, &dev)?;
    let f = convolve_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Fft })?;
    assert_eq!((f.shape(), f.dtype()), (&[5, 5, 5][..], DType::Float64));
    let v = f64s(&f);
    assert!((v[0] - 1.0).abs() < 1e-12 && (v[31] - 8.0).abs() < 1e-12, "{} {}", v[0], v[31]);
    let c = correlate_with(
        &x.astype(DType::Int32)?,
        &k.astype(DType::Int32)?,
        &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Fft },
    )?;
    assert_eq!((c.dtype(), ints(&c)[21]), (DType::Int32, 8));
    let q = cuprum::ones(&[2, 5, 2], DType::Float64, &dev)?;
    assert_eq!(
        err(correlate_with(&x, &q, &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method: Fft })).0,
        ErrorKind::ValueError
    );
    Ok(())
});

/// `convolve` and `correlate` of `x`, `k` (host) and `xg`, `kg` (the same values on the GPU)
/// in every mode with `Direct` and `Auto`.
fn check_nd(gpu: &Device, x: &Array, k: &Array, xg: &Array, kg: &Array, what: &str) {
    for mode in MODES {
        for method in [Direct, Auto, Fft] {
            // The FFT's rounding differs between cuFFT and rustfft, and `Auto` may choose
            // differently on the two devices: those compare norm-wise.
            let check = if method == Direct { agree } else { agree_fft };
            let w = format!("convolve {what} {mode:?} {method:?}");
            check(
                gpu,
                &w,
                convolve_with(x, k, &cuprum::scipy::signal::ConvolveOptions { mode, method }),
                convolve_with(xg, kg, &cuprum::scipy::signal::ConvolveOptions { mode, method }),
            );
            let w = format!("correlate {what} {mode:?} {method:?}");
            check(
                gpu,
                &w,
                correlate_with(x, k, &cuprum::scipy::signal::ConvolveOptions { mode, method }),
                correlate_with(xg, kg, &cuprum::scipy::signal::ConvolveOptions { mode, method }),
            );
        }
    }
}

// The GPU against the CPU: 3-d and 4-d inputs, kernels smaller and larger than the input and
// of mixed sizes, every real dtype (bool and float16 as errors), NaN and infinities.
gpu_test!(nd_random_against_cpu, |gpu| {
    let mut rng = Rng::new(1200);
    let shapes: [(&[usize], &[usize]); 10] = [
        (&[5, 6, 7], &[2, 3, 3]),
        (&[4, 9, 33], &[3, 1, 5]),
        (&[3, 4, 5], &[3, 4, 5]),
        (&[2, 3, 4], &[4, 5, 6]),
        (&[7, 1, 40], &[2, 1, 3]),
        (&[1, 20, 30], &[1, 4, 4]),
        (&[3, 70, 2], &[2, 5, 2]),
        (&[2, 3, 4, 5], &[2, 2, 3, 2]),
        (&[3, 2, 5, 6], &[1, 2, 2, 4]),
        (&[2, 2, 2, 2, 3], &[2, 1, 2, 1, 2]),
    ];
    for dt in cuprum::dtype::REAL_DTYPES {
        for (si, sk) in shapes {
            let (x, k) = (random(si, dt, &mut rng, false), random(sk, dt, &mut rng, false));
            check_nd(&gpu, &x, &k, &on(&gpu, &x), &on(&gpu, &k), &format!("{dt} {si:?}*{sk:?}"));
        }
    }
    // Large values (integer sums wrap), NaN and infinities (floats).
    for dt in [DType::Int8, DType::UInt16, DType::Int64, DType::UInt64, DType::Float32, DType::Float64] {
        let pick = |s: &[usize], rng: &mut Rng| {
            if dt.is_float() {
                random(s, dt, rng, true)
            } else {
                values(s, dt, rng, true)
            }
        };
        let (x, k) = (pick(&[6, 7, 8], &mut rng), pick(&[3, 2, 3], &mut rng));
        check_nd(&gpu, &x, &k, &on(&gpu, &x), &on(&gpu, &k), &format!("{dt} specials"));
    }
    // Mixed dtypes.
    for (da, db) in [(DType::UInt8, DType::Int8), (DType::Int64, DType::UInt64), (DType::Bool, DType::Float32)] {
        let (x, k) = (random(&[4, 5, 6], da, &mut rng, false), random(&[2, 3, 2], db, &mut rng, false));
        check_nd(&gpu, &x, &k, &on(&gpu, &x), &on(&gpu, &k), &format!("{da},{db}"));
    }
    // A large volume: more than one block per row and many rows.
    let (x, k) =
        (random(&[9, 40, 1100], DType::Float32, &mut rng, false), random(&[3, 3, 7], DType::Float32, &mut rng, false));
    check_nd(&gpu, &x, &k, &on(&gpu, &x), &on(&gpu, &k), "large float32");
    Ok(())
});

// Views of the inputs: transposed, sliced with steps, reversed, with an offset.
gpu_test!(nd_views_against_cpu, |gpu| {
    let mut rng = Rng::new(1300);
    for dt in [DType::Float64, DType::Float32, DType::Int32, DType::UInt8] {
        let x = random(&[6, 8, 10], dt, &mut rng, false);
        let k = random(&[3, 4, 2], dt, &mut rng, false);
        let (xg, kg) = (on(&gpu, &x), on(&gpu, &k));
        let t = |a: &Array| a.transpose();
        check_nd(&gpu, &t(&x), &t(&k), &t(&xg), &t(&kg), &format!("{dt} transposed"));
        let st = |a: &Array| a.slice(s![..;2, 1.., ..;-3]).unwrap();
        check_nd(&gpu, &st(&x), &k, &st(&xg), &kg, &format!("{dt} strided"));
        let rv = |a: &Array| a.flip(None).unwrap();
        check_nd(&gpu, &x, &rv(&k), &xg, &rv(&kg), &format!("{dt} reversed kernel"));
        let kbig = random(&[5, 6, 7], dt, &mut rng, false);
        let kbg = on(&gpu, &kbig);
        let off = |a: &Array| a.slice(s![1..4, 2..5, 3..]).unwrap();
        check_nd(&gpu, &off(&x), &off(&kbig), &off(&xg), &off(&kbg), &format!("{dt} offset"));
    }
    Ok(())
});

// Inputs on different devices: cuprum's device-mismatch error (a ValueError), before anything
// else (also with method='fft' and for 0-d inputs).
gpu_test!(nd_device_mismatch, |gpu| {
    let x = cuprum::ones(&[3, 3, 3], DType::Float64, &Device::Cpu)?;
    let kg = cuprum::ones(&[2, 2, 2], DType::Float64, &gpu)?;
    for method in [Auto, Direct, Fft] {
        assert_eq!(
            err(convolve_with(&x, &kg, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method })).0,
            ErrorKind::ValueError
        );
        assert_eq!(
            err(correlate_with(&kg, &x, &cuprum::scipy::signal::ConvolveOptions { mode: Valid, method })).0,
            ErrorKind::ValueError
        );
    }
    let a = cuprum::full(&[], 2.0, DType::Float64, &Device::Cpu)?;
    let b = cuprum::full(&[], 2.0, DType::Float64, &gpu)?;
    assert_eq!(
        err(correlate_with(&a, &b, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Auto })).0,
        ErrorKind::ValueError
    );
    assert_eq!(
        err(convolve_with(&b, &a, &cuprum::scipy::signal::ConvolveOptions { mode: Same, method: Direct })).0,
        ErrorKind::ValueError
    );
    Ok(())
});

/// The GPU's result against the CPU's where either may have used an FFT: the same dtype and
/// shape (or errors of the same kind); floats within a tolerance relative to the largest
/// magnitude (1e-11 float64, 1e-4 float32, 1e-2 float16, for complex too); integers equal,
/// except results of 8- and 16-bit unsigned types, where a sum out of range is a cast of a
/// float (platform-defined in C and NumPy), and bools (SciPy casts the FFT's float result:
/// a rounding residue of 1e-17 is True).
fn agree_fft(gpu: &Device, what: &str, cpu: cuprum::Result<Array>, gpu_res: cuprum::Result<Array>) {
    match (cpu, gpu_res) {
        (Ok(c), Ok(g)) => {
            assert_eq!(g.device(), *gpu, "{what}: result device");
            assert_eq!((g.dtype(), g.shape()), (c.dtype(), c.shape()), "{what}");
            let dt = c.dtype();
            if dt.is_float() || dt.is_complex() {
                let h = |a: &Array| {
                    a.to_device(&Device::Cpu)
                        .unwrap()
                        .astype(DType::Complex128)
                        .unwrap()
                        .to_vec::<cuprum::Complex<f64>>()
                        .unwrap()
                };
                let (gv, cv) = (h(&g), h(&c));
                if cv.iter().chain(&gv).any(|v| !v.re.is_finite() || !v.im.is_finite()) {
                    return; // NaN and infinities spread over the whole FFT result
                }
                let scale = cv.iter().map(|v| v.norm()).fold(0f64, f64::max);
                let err = gv.iter().zip(&cv).map(|(a, b)| (a - b).norm()).fold(0f64, f64::max);
                let tol = match dt {
                    DType::Float64 | DType::Complex128 => 1e-11,
                    DType::Float16 => 1e-2,
                    _ => 1e-4,
                };
                assert!(err <= tol * scale.max(1e-300), "{what}: {err} of {scale}");
            } else if !matches!(dt, DType::UInt8 | DType::UInt16 | DType::Bool) {
                let v = |a: &Array| a.to_device(&Device::Cpu).unwrap().to_vec_as::<i64>().unwrap();
                assert_eq!(v(&g), v(&c), "{what}");
            }
        }
        (Err(c), Err(g)) => assert_eq!(g.kind(), c.kind(), "{what}: errors (CPU: {c}; GPU: {g})"),
        (c, g) => {
            panic!("{what}: CPU gave {:?}, GPU gave {:?}", c.map(|a| a.shape().to_vec()), g.map(|a| a.shape().to_vec()))
        }
    }
}
