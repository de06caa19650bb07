//! Convolution on every device, against values NumPy and SciPy printed: `np.convolve` and
//! `np.correlate` (modes, the swap of a shorter first operand, wraparound, promotion, bools),
//! `scipy.signal.convolve2d`/`correlate2d` (the lesson's Gaussian smoothing in 'same' mode on
//! every boundary, 'same' centering for even kernels, the 'valid' swap, fill values cast to the
//! output dtype) and their errors; `gpu`: the GPU against the CPU on seeded random inputs;
//! `nd`: SciPy's N-d `convolve`/`correlate`.

mod gpu;
mod nd;

use cuprum::scipy::signal::{convolve2d, convolve2d_with, correlate2d, correlate2d_with, Boundary, Convolve2dOptions};
use cuprum::{Array, ConvolveMode, DType, Device, ErrorKind};
use ConvolveMode::{Full, Same, Valid};

fn f64s(a: &Array) -> Vec<f64> {
    a.to_vec_as::<f64>().unwrap()
}

fn ints(a: &Array) -> Vec<i64> {
    a.to_vec_as::<i64>().unwrap()
}

fn kind<T>(r: cuprum::Result<T>) -> ErrorKind {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.kind(),
    }
}

/// A 2-d array of `dtype` on `dev` from rows of f64 values.
fn mat(rows: &[&[f64]], dtype: DType, dev: &Device) -> Array {
    let v: Vec<f64> = rows.iter().flat_map(|r| r.iter().copied()).collect();
    cuprum::from_slice(&v, &[rows.len(), rows[0].len()], dev).unwrap().astype(dtype).unwrap()
}

device_test!(numpy_convolve_and_correlate, |dev| {
    // np.convolve([1, 2, 3], [0, 1, 0.5]) -> [0. , 1. , 2.5, 4. , 1.5]
    let a = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?;
    let v = cuprum::from_vec(vec![0.0, 1.0, 0.5], &dev)?;
    let c = cuprum::convolve(&a, &v)?; // NumPy's default mode: 'full'
    assert_eq!((c.dtype(), c.device()), (DType::Float64, dev));
    assert_eq!(f64s(&c), f64s(&cuprum::convolve_with(&a, &v, Full)?));
    assert_eq!(f64s(&c), [0.0, 1.0, 2.5, 4.0, 1.5]);
    assert_eq!(f64s(&cuprum::convolve_with(&a, &v, Same)?), [1.0, 2.5, 4.0]);
    assert_eq!(f64s(&cuprum::convolve_with(&a, &v, Valid)?), [2.5]);
    // np.correlate (its default mode is 'valid'): [3.5]; 'full': [0.5, 2. , 3.5, 3. , 0. ]
    assert_eq!(f64s(&cuprum::correlate(&a, &v)?), [3.5]);
    assert_eq!(f64s(&cuprum::correlate_with(&a, &v, Valid)?), [3.5]);
    assert_eq!(f64s(&cuprum::correlate_with(&a, &v, Full)?), [0.5, 2.0, 3.5, 3.0, 0.0]);
    // The longer operand second: NumPy swaps them (correlate then reverses its result).
    let long = cuprum::from_vec(vec![1.0, 10.0, 100.0, 1000.0], &dev)?;
    let short = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?;
    assert_eq!(f64s(&cuprum::convolve_with(&long, &short, Valid)?), [123.0, 1230.0]);
    assert_eq!(f64s(&cuprum::convolve_with(&short, &long, Valid)?), [123.0, 1230.0]);
    assert_eq!(f64s(&cuprum::convolve_with(&short, &long, Same)?), [12.0, 123.0, 1230.0, 2300.0]);
    assert_eq!(f64s(&cuprum::correlate_with(&short, &long, Valid)?), [3210.0, 321.0]);
    // 'same' with an even kernel: np.correlate([1, 2, 3, 4], [1, 10], 'same') -> [10, 21, 32, 43]
    let i = cuprum::from_vec(vec![1i64, 2, 3, 4], &dev)?;
    let k = cuprum::from_vec(vec![1i64, 10], &dev)?;
    let r = cuprum::correlate_with(&i, &k, Same)?;
    assert_eq!(r.dtype(), DType::Int64);
    assert_eq!(ints(&r), [10, 21, 32, 43]);
    // int8 wraps: np.convolve(int8 [100, 27], int8 [3, 5]) -> [44, 69, -121] (int8)
    let w =
        cuprum::convolve_with(&cuprum::from_vec(vec![100i8, 27], &dev)?, &cuprum::from_vec(vec![3i8, 5], &dev)?, Full)?;
    assert_eq!(w.dtype(), DType::Int8);
    assert_eq!(ints(&w), [44, 69, -121]);
    // Promotion: int8 with uint8 -> int16 ([3, 10, 8]); bools: logical or of ands.
    let p =
        cuprum::convolve_with(&cuprum::from_vec(vec![1i8, 2], &dev)?, &cuprum::from_vec(vec![3u8, 4], &dev)?, Full)?;
    assert_eq!((p.dtype(), ints(&p)), (DType::Int16, vec![3, 10, 8]));
    let b = cuprum::convolve_with(
        &cuprum::from_vec(vec![true, false, false, true], &dev)?,
        &cuprum::from_vec(vec![true, false], &dev)?,
        Full,
    )?;
    assert_eq!(b.dtype(), DType::Bool);
    assert_eq!(b.to_vec::<bool>()?, [true, false, false, true, false]);
    // Errors (ValueError in NumPy): empty operands, 2-d operands, unknown modes.
    let e = cuprum::from_vec(Vec::<f64>::new(), &dev)?;
    assert_eq!(kind(cuprum::convolve_with(&e, &v, Full)), ErrorKind::ValueError);
    assert_eq!(kind(cuprum::correlate_with(&a, &e, Valid)), ErrorKind::ValueError);
    let m = mat(&[&[1.0, 2.0], &[3.0, 4.0]], DType::Float64, &dev);
    assert_eq!(kind(cuprum::convolve_with(&m, &v, Full)), ErrorKind::ValueError);
    assert_eq!(kind("Full".parse::<ConvolveMode>()), ErrorKind::ValueError);
    assert_eq!("valid".parse::<ConvolveMode>()?, Valid);
    Ok(())
});

device_test!(gaussian_smoothing_same_mode, |dev| {
    // img = np.arange(20.).reshape(4, 5); g = [[1, 2, 1], [2, 4, 2], [1, 2, 1]] / 16;
    // scipy.signal.convolve2d(img, g, mode='same', boundary=b)
    let img = cuprum::arange_f(0.0, 20.0, 1.0, DType::Float64, &dev)?.reshape([4, 5])?;
    let g = mat(&[&[0.0625, 0.125, 0.0625], &[0.125, 0.25, 0.125], &[0.0625, 0.125, 0.0625]], DType::Float64, &dev);
    let want: [(Boundary, [f64; 20]); 3] = [
        (
            Boundary::Fill,
            [
                1.125, 2.0, 2.75, 3.5, 3.0, 4.0, 6.0, 7.0, 8.0, 6.5, 7.75, 11.0, 12.0, 13.0, 10.25, 7.6875, 10.75,
                11.5, 12.25, 9.5625,
            ],
        ),
        (
            Boundary::Wrap,
            [
                6.25, 6.0, 7.0, 8.0, 7.75, 6.25, 6.0, 7.0, 8.0, 7.75, 11.25, 11.0, 12.0, 13.0, 12.75, 11.25, 11.0,
                12.0, 13.0, 12.75,
            ],
        ),
        (
            Boundary::Symm,
            [
                1.5, 2.25, 3.25, 4.25, 5.0, 5.25, 6.0, 7.0, 8.0, 8.75, 10.25, 11.0, 12.0, 13.0, 13.75, 14.0, 14.75,
                15.75, 16.75, 17.5,
            ],
        ),
    ];
    for (b, w) in want {
        let r = convolve2d_with(&img, &g, &Convolve2dOptions { mode: Same, boundary: b, ..Default::default() })?;
        assert_eq!((r.shape(), r.dtype(), r.device()), (&[4usize, 5][..], DType::Float64, dev), "{b:?}");
        assert_eq!(f64s(&r), w, "{b:?}");
        // A symmetric kernel: correlating is convolving.
        assert_eq!(
            f64s(&correlate2d_with(&img, &g, &Convolve2dOptions { mode: Same, boundary: b, ..Default::default() })?),
            w,
            "{b:?} correlate2d"
        );
    }
    // The same smoothing in float32 (sums exact in float32 too).
    let r32 = convolve2d_with(
        &img.astype(DType::Float32)?,
        &g.astype(DType::Float32)?,
        &Convolve2dOptions { mode: Same, boundary: Boundary::Symm, ..Default::default() },
    )?;
    assert_eq!(r32.dtype(), DType::Float32);
    assert_eq!(f64s(&r32), want[2].1);
    Ok(())
});

device_test!(scipy_modes_boundaries_and_fill_values, |dev| {
    let img = cuprum::arange_f(0.0, 20.0, 1.0, DType::Float64, &dev)?.reshape([4, 5])?;
    let k = mat(&[&[1.0, 10.0]], DType::Float64, &dev);
    // 'same' with an even kernel: correlate2d(img, [[1, 10]], 'same') starts at img[0, 0]...
    let c = correlate2d_with(&img, &k, &Convolve2dOptions { mode: Same, ..Default::default() })?;
    assert_eq!(&f64s(&c)[..5], [10.0, 21.0, 32.0, 43.0, 4.0]);
    assert_eq!(&f64s(&c)[15..], [175.0, 186.0, 197.0, 208.0, 19.0]);
    // ...where np.correlate(arange(1., 6), [1, 10], 'same') gives [10, 21, 32, 43, 54] and
    // correlate2d(arange(1., 6)[None], [[1, 10]], 'same') gives [[21, 32, 43, 54, 5]].
    let row = cuprum::arange_f(1.0, 6.0, 1.0, DType::Float64, &dev)?;
    let k1 = cuprum::from_vec(vec![1.0, 10.0], &dev)?;
    assert_eq!(f64s(&cuprum::correlate_with(&row, &k1, Same)?), [10.0, 21.0, 32.0, 43.0, 54.0]);
    let c2 = correlate2d_with(&row.reshape([1, 5])?, &k, &Convolve2dOptions { mode: Same, ..Default::default() })?;
    assert_eq!(f64s(&c2), [21.0, 32.0, 43.0, 54.0, 5.0]);
    let v = convolve2d_with(&img, &k, &Convolve2dOptions { mode: Same, ..Default::default() })?;
    assert_eq!(&f64s(&v)[..5], [0.0, 1.0, 12.0, 23.0, 34.0]);
    // correlate2d([[1, 2, 3], [4, 5, 6]], [[1, 0], [0, 2]], 'full', 'wrap' / 'symm')
    let a = mat(&[&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]], DType::Int64, &dev);
    let d = mat(&[&[1.0, 0.0], &[0.0, 2.0]], DType::Int64, &dev);
    let w = correlate2d_with(&a, &d, &Convolve2dOptions { boundary: Boundary::Wrap, ..Default::default() })?;
    assert_eq!((w.dtype(), w.shape()), (DType::Int64, &[3usize, 4][..]));
    assert_eq!(ints(&w), [8, 8, 11, 8, 11, 11, 14, 11, 8, 8, 11, 8]);
    let s = correlate2d_with(&a, &d, &Convolve2dOptions { boundary: Boundary::Symm, ..Default::default() })?;
    assert_eq!(ints(&s), [3, 5, 8, 9, 9, 11, 14, 15, 12, 14, 17, 18]);
    // 'valid' with the kernel larger in every dimension: SciPy swaps the operands (and
    // correlate2d reverses its result).
    let small = cuprum::arange_f(0.0, 6.0, 1.0, DType::Float64, &dev)?.reshape([2, 3])?;
    let big = cuprum::arange_f(1.0, 13.0, 1.0, DType::Float64, &dev)?.reshape([3, 4])?;
    assert_eq!(
        f64s(&convolve2d_with(&small, &big, &Convolve2dOptions { mode: Valid, ..Default::default() })?),
        [38.0, 53.0, 98.0, 113.0]
    );
    assert_eq!(
        f64s(&correlate2d_with(&small, &big, &Convolve2dOptions { mode: Valid, ..Default::default() })?),
        [157.0, 142.0, 97.0, 82.0]
    );
    // uint8 stays uint8 and wraps; a fill value of 2.5 is 2 in a uint8 image.
    let u = mat(&[&[200.0, 100.0], &[50.0, 255.0]], DType::UInt8, &dev);
    let uk = mat(&[&[2.0, 1.0], &[1.0, 3.0]], DType::UInt8, &dev);
    let r = convolve2d(&u, &uk)?;
    assert_eq!(r.dtype(), DType::UInt8);
    assert_eq!(ints(&r), [144, 144, 100, 44, 236, 43, 50, 149, 253]);
    assert_eq!(
        ints(&convolve2d_with(&u, &uk, &Convolve2dOptions { fillvalue: 2.5, ..Default::default() })?),
        [154, 152, 112, 52, 236, 49, 62, 155, 5]
    );
    // Mixed dtypes: int8 with bool -> int8 ([[1, 2, 0], [3, 4, 0]]); int8 with uint8 -> int16.
    let i8m = mat(&[&[1.0, 2.0], &[3.0, 4.0]], DType::Int8, &dev);
    let bk = mat(&[&[1.0, 0.0]], DType::Bool, &dev);
    let mb = convolve2d(&i8m, &bk)?;
    assert_eq!((mb.dtype(), ints(&mb)), (DType::Int8, vec![1, 2, 0, 3, 4, 0]));
    let mu = convolve2d(&i8m, &bk.astype(DType::UInt8)?)?;
    assert_eq!(mu.dtype(), DType::Int16);
    // Boundary names: SciPy's aliases.
    assert_eq!("pad".parse::<Boundary>()?, Boundary::Fill);
    assert_eq!("circular".parse::<Boundary>()?, Boundary::Wrap);
    assert_eq!("symmetric".parse::<Boundary>()?, Boundary::Symm);
    Ok(())
});

device_test!(scipy_errors, |dev| {
    let img = cuprum::arange_f(0.0, 12.0, 1.0, DType::Float64, &dev)?.reshape([3, 4])?;
    let k = mat(&[&[1.0, 2.0], &[3.0, 4.0]], DType::Float64, &dev);
    let value = ErrorKind::ValueError;
    // Not 2-d.
    assert_eq!(kind(convolve2d(&img.reshape([12])?, &k)), value);
    assert_eq!(kind(correlate2d(&img, &k.reshape([1, 2, 2])?)), value);
    // 'valid' with the kernel larger in one dimension only.
    let tall = cuprum::zeros(&[4, 1], DType::Float64, &dev)?;
    assert_eq!(kind(convolve2d_with(&img, &tall, &Convolve2dOptions { mode: Valid, ..Default::default() })), value);
    assert_eq!(
        kind(correlate2d_with(
            &img,
            &tall,
            &Convolve2dOptions { mode: Valid, boundary: Boundary::Wrap, ..Default::default() }
        )),
        value
    );
    // SciPy has no float16 nor bool convolution.
    for dt in [DType::Float16, DType::Bool] {
        assert_eq!(
            kind(convolve2d_with(
                &img.astype(dt)?,
                &k.astype(dt)?,
                &Convolve2dOptions { mode: Same, ..Default::default() }
            )),
            value,
            "{dt}"
        );
    }
    // A fill value the output dtype cannot hold (after truncation), in every mode, but only
    // with the fill boundary.
    let u = img.astype(DType::UInt8)?;
    let ku = k.astype(DType::UInt8)?;
    for (fv, mode) in [(-1.0, Full), (256.0, Same), (-2.5, Valid), (f64::NAN, Full)] {
        assert_eq!(
            kind(convolve2d_with(&u, &ku, &Convolve2dOptions { mode, fillvalue: fv, ..Default::default() })),
            value,
            "fill {fv} {mode:?}"
        );
    }
    assert_eq!(
        ints(&convolve2d_with(&u, &ku, &Convolve2dOptions { mode: Same, fillvalue: -0.5, ..Default::default() })?)[0],
        0
    );
    assert!(
        convolve2d_with(&u, &ku, &Convolve2dOptions { mode: Same, boundary: Boundary::Wrap, fillvalue: -1.0 }).is_ok()
    );
    // Unknown names ('reflect' is in SciPy's table, but its C code refuses it).
    for b in ["reflect", "Fill", "foo", ""] {
        assert_eq!(kind(b.parse::<Boundary>()), value, "{b:?}");
    }
    Ok(())
});

// Complex inputs: NumPy's and SciPy's values (NumPy 2.4.6, SciPy 1.17.1). A correlation takes
// the conjugate of its second input; where SciPy or NumPy swap the operands, the result is
// reversed and conjugated.
device_test!(complex_convolve_and_correlate, |dev| {
    use cuprum::scipy::signal::{
        convolve2d_with, correlate2d_with, correlate_with, Boundary, Convolve2dOptions, Method,
    };
    use cuprum::Complex;
    let z = |v: &[(f64, f64)], shape: &[usize]| -> cuprum::Result<Array> {
        let c: Vec<Complex<f64>> = v.iter().map(|&(re, im)| Complex::new(re, im)).collect();
        cuprum::from_slice(&c, shape, &dev)
    };
    let near = |got: &Array, want: &[(f64, f64)], what: &str| {
        let g = got.to_device(&Device::Cpu).unwrap().to_vec::<Complex<f64>>().unwrap();
        assert_eq!(g.len(), want.len(), "{what}");
        for (a, &(re, im)) in g.iter().zip(want) {
            assert!((a.re - re).abs() < 1e-12 && (a.im - im).abs() < 1e-12, "{what}: {g:?}");
        }
    };
    let a = z(&[(1., 1.), (2., 0.), (0., 3.), (-1., 0.5), (2., -2.)], &[5])?;
    let v = z(&[(0., 1.), (1., -1.)], &[2])?;
    near(
        &cuprum::convolve_with(&a, &v, Full)?,
        &[(-1., 1.), (2., 2.), (-1., -2.), (2.5, 2.), (1.5, 3.5), (0., -4.)],
        "np.convolve",
    );
    near(
        &cuprum::correlate_with(&a, &v, Full)?,
        &[(0., 2.), (3., 1.), (-3., 1.), (1.5, -0.5), (4.5, 1.), (-2., -2.)],
        "np.correlate",
    );
    near(
        &cuprum::correlate_with(&v, &a, Full)?,
        &[(-2., 2.), (4.5, -1.), (1.5, 0.5), (-3., -1.), (3., -1.), (0., -2.)],
        "np.correlate, v longer",
    );
    let x =
        z(&[(1., 1.), (2., 0.), (0., 3.), (0.5, 0.), (0., -1.), (1., -1.), (2., 0.), (1., 2.), (-1., 0.)], &[3, 3])?;
    let k = z(&[(0., 1.), (2., 0.), (1., -1.), (0., 0.5)], &[2, 2])?;
    near(
        &convolve2d_with(&x, &k, &Convolve2dOptions { mode: Same, boundary: Boundary::Symm, ..Default::default() })?,
        &[(2.5, 3.5), (3.5, 2.5), (4., 4.), (2.5, 1.), (3.5, -1.5), (4., 3.), (4.5, 1.75), (1., 0.25), (2.5, 1.)],
        "convolve2d symm",
    );
    near(
        &correlate2d_with(&x, &k, &Convolve2dOptions { fillvalue: 1.5, ..Default::default() })?,
        &[
            (5., -0.5),
            (3., -0.5),
            (6.5, 0.5),
            (0., 0.75),
            (3.5, 1.75),
            (5., -0.5),
            (0.5, 2.5),
            (8., -0.75),
            (2.5, -1.),
            (3., -1.),
            (0., 1.5),
            (1., -2.75),
            (5.5, -0.75),
            (3.5, 2.75),
            (1.5, -0.25),
            (4.5, 1.75),
        ],
        "correlate2d fill 1.5",
    );
    near(
        &correlate2d_with(&k, &x, &Convolve2dOptions { mode: Valid, ..Default::default() })?,
        &[(0., 1.5), (3., -1.), (0.5, 2.5), (5., -0.5)],
        "correlate2d swapped",
    );
    let full = [
        (0.5, -0.5),
        (0., 1.),
        (3.5, 2.),
        (-3., 3.),
        (2., 1.75),
        (5., -0.5),
        (0.5, 2.5),
        (5., 0.),
        (1., -1.),
        (3., -1.),
        (0., 1.5),
        (-2., -2.),
        (4., 0.),
        (2., 2.),
        (0., -1.),
        (0., 1.),
    ];
    near(
        &correlate_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Method::Direct })?,
        &full,
        "correlate direct",
    );
    let swapped: Vec<(f64, f64)> = full.iter().rev().map(|&(re, im)| (re, -im)).collect();
    near(
        &correlate_with(&k, &x, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Method::Direct })?,
        &swapped,
        "correlate direct, swapped",
    );
    near(
        &correlate_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Same, ..Default::default() })?,
        &[(0.5, -0.5), (0., 1.), (3.5, 2.), (2., 1.75), (5., -0.5), (0.5, 2.5), (1., -1.), (3., -1.), (0., 1.5)],
        "correlate auto",
    );
    use cuprum::scipy::signal::convolve_with;
    near(
        &convolve_with(&x, &k, &cuprum::scipy::signal::ConvolveOptions { mode: Full, method: Method::Direct })?,
        &[
            (-1., 1.),
            (2., 4.),
            (1., 0.),
            (0., 6.),
            (2., 0.5),
            (3.5, -1.5),
            (4., 3.),
            (0.5, -2.),
            (0.5, 1.5),
            (1., 0.25),
            (2.5, 1.),
            (-1.5, 0.5),
            (2., -2.),
            (3., 2.),
            (-2., 1.5),
            (0., -0.5),
        ],
        "scipy convolve",
    );
    near(
        &convolve_with(&k, &x, &cuprum::scipy::signal::ConvolveOptions { mode: Valid, ..Default::default() })?,
        &[(3.5, -1.5), (4., 3.), (1., 0.25), (2.5, 1.)],
        "scipy convolve, swapped",
    );
    Ok(())
});
