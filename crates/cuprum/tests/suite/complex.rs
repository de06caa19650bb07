//! complex64 and complex128 through the core: creation and element access, NumPy 2's
//! promotion and casts, repr/str, the complex ufuncs and reductions, `real`/`imag` views,
//! `.npy`, and NumPy's TypeErrors where it has no complex loop. The values are those NumPy
//! 2.4.6 printed; every case runs on every device.

use cuprum::{Complex, DType, Device, ErrorKind};

type C32 = Complex<f32>;
type C64 = Complex<f64>;

fn c32(re: f32, im: f32) -> C32 {
    Complex::new(re, im)
}
fn c64(re: f64, im: f64) -> C64 {
    Complex::new(re, im)
}

/// z and w of the NumPy session these values come from.
fn zw(dev: &Device) -> cuprum::Result<(cuprum::Array, cuprum::Array)> {
    let z = cuprum::from_vec(vec![c32(1.0, 2.0), c32(3.0, -4.0), c32(-0.5, 0.25), c32(0.0, 0.0)], dev)?;
    let w = cuprum::from_vec(vec![c32(2.0, -1.0), c32(0.0, 0.0), c32(1.0, 1.0), c32(-3.0, 0.5)], dev)?;
    Ok((z, w))
}

/// Bits of each part, so that -0.0 and NaN payloads count.
fn bits32(v: &[C32]) -> Vec<(u32, u32)> {
    v.iter().map(|c| (c.re.to_bits(), c.im.to_bits())).collect()
}

device_test!(elements_and_promotion, |dev| {
    let (z, _) = zw(&dev)?;
    assert_eq!(z.dtype(), DType::Complex64);
    assert_eq!(z.to_vec::<C32>()?, vec![c32(1.0, 2.0), c32(3.0, -4.0), c32(-0.5, 0.25), c32(0.0, 0.0)]);
    assert_eq!(z.slice(cuprum::s![1])?.item::<C32>()?, c32(3.0, -4.0));
    assert_eq!(z.to_vec::<f32>().unwrap_err().kind(), ErrorKind::TypeError);
    // np.array([1.5, 2.25], np.float32) * 1j -> complex64; int32 + complex64(1j) -> complex128
    let f = cuprum::from_vec(vec![1.5f32, 2.25], &dev)?;
    let p = cuprum::multiply(&f, c64(0.0, 1.0))?;
    assert_eq!(p.dtype(), DType::Complex64);
    assert_eq!(p.to_vec::<C32>()?, vec![c32(0.0, 1.5), c32(0.0, 2.25)]);
    let i = cuprum::from_vec(vec![1i32, 2], &dev)?;
    let one_j = cuprum::from_vec(vec![c32(0.0, 1.0)], &dev)?;
    let q = cuprum::add(&i, &one_j)?;
    assert_eq!((q.dtype(), q.to_vec::<C64>()?), (DType::Complex128, vec![c64(1.0, 1.0), c64(2.0, 1.0)]));
    let d = cuprum::from_vec(vec![2.0f64], &dev)?;
    assert_eq!(cuprum::add(&d, &one_j)?.dtype(), DType::Complex128);
    // Casts: complex -> real keeps the real part; real -> complex has zero imaginary parts.
    assert_eq!(z.astype(DType::Float32)?.to_vec::<f32>()?, vec![1.0, 3.0, -0.5, 0.0]);
    assert_eq!(z.astype(DType::Int16)?.to_vec::<i16>()?, vec![1, 3, 0, 0]);
    assert_eq!(z.astype(DType::Bool)?.to_vec::<bool>()?, vec![true, true, true, false]);
    assert_eq!(f.astype(DType::Complex128)?.to_vec::<C64>()?, vec![c64(1.5, 0.0), c64(2.25, 0.0)]);
    assert_eq!(z.astype(DType::Complex128)?.astype(DType::Complex64)?.to_vec::<C32>()?, z.to_vec::<C32>()?);
    assert!(!cuprum::dtype::can_cast(DType::Complex64, DType::Float64, cuprum::Casting::SameKind));
    Ok(())
});

device_test!(repr_and_str, |dev| {
    let (z, _) = zw(&dev)?;
    assert_eq!(format!("{z:?}"), "array([ 1. +2.j  ,  3. -4.j  , -0.5+0.25j,  0. +0.j  ], dtype=complex64)");
    assert_eq!(z.to_string(), "[ 1. +2.j    3. -4.j   -0.5+0.25j  0. +0.j  ]");
    assert_eq!(
        format!("{:?}", z.astype(DType::Complex128)?),
        "array([ 1. +2.j  ,  3. -4.j  , -0.5+0.25j,  0. +0.j  ])"
    );
    let m = cuprum::from_slice(&[c64(1.0, 1.0), c64(2.0, 0.0), c64(0.0, 3.0), c64(4.0, -1.0)], &[2, 2], &dev)?;
    assert_eq!(format!("{m:?}"), "array([[1.+1.j, 2.+0.j],\n       [0.+3.j, 4.-1.j]])");
    let e = cuprum::from_vec(vec![c64(1e10, 1.0), c64(1e-10, -2.0)], &dev)?;
    assert_eq!(format!("{e:?}"), "array([1.e+10+1.j, 1.e-10-2.j])");
    let s = cuprum::from_vec(vec![c64(1.5, 2.0), c64(f64::NAN, f64::NEG_INFINITY), c64(1e10, 1.0)], &dev)?;
    assert_eq!(format!("{s:?}"), "array([1.5e+00 +2.j,     nan-infj, 1.0e+10 +1.j])");
    let zero_d = cuprum::from_vec(vec![c64(1.5, -2.0)], &dev)?.reshape(())?;
    assert_eq!((format!("{zero_d:?}"), zero_d.to_string()), ("array(1.5-2.j)".into(), "(1.5-2j)".into()));
    let j = cuprum::from_vec(vec![c32(0.0, 2.0)], &dev)?.reshape(())?;
    assert_eq!(j.to_string(), "2j");
    let m1 = cuprum::from_vec(vec![c64(-0.0, -1.0)], &dev)?.reshape(())?;
    assert_eq!(m1.to_string(), "(-0-1j)");
    Ok(())
});

device_test!(arithmetic, |dev| {
    let (z, w) = zw(&dev)?;
    // np.multiply(z, w): the last is (-0.+0.j)
    let p = cuprum::multiply(&z, &w)?.to_vec::<C32>()?;
    assert_eq!(bits32(&p), bits32(&[c32(4.0, 3.0), c32(0.0, 0.0), c32(-0.75, -0.25), c32(-0.0, 0.0)]));
    // np.divide(z, w): division by zero gives inf-infj, 0/(-3+0.5j) gives (-0.-0.j)
    let q = cuprum::divide(&z, &w)?.to_vec::<C32>()?;
    assert_eq!(
        bits32(&q),
        bits32(&[c32(0.0, 1.0), c32(f32::INFINITY, f32::NEG_INFINITY), c32(-0.125, 0.375), c32(-0.0, -0.0)])
    );
    assert_eq!(cuprum::subtract(&z, &w)?.to_vec::<C32>()?[3], c32(3.0, -0.5));
    assert_eq!(z.negative()?.to_vec::<C32>()?[0], c32(-1.0, -2.0));
    assert_eq!(z.conj()?.to_vec::<C32>()?[1], c32(3.0, 4.0));
    let a = z.abs()?;
    assert_eq!((a.dtype(), a.to_vec::<f32>()?), (DType::Float32, vec![2.236068, 5.0, 0.559017, 0.0]));
    let ang = z.angle()?;
    assert_eq!(ang.dtype(), DType::Float32);
    let want = [1.1071488f32, -0.9272952, 2.6779451, 0.0];
    for (g, w) in ang.to_vec::<f32>()?.iter().zip(want) {
        assert!((g - w).abs() <= 2e-7, "angle {g} {w}");
    }
    // np.power(z.astype(complex), 2) and ** 0.5
    let zz = z.astype(DType::Complex128)?;
    assert_eq!(
        zz.power(2)?.to_vec::<C64>()?,
        vec![c64(-3.0, 4.0), c64(-7.0, -24.0), c64(0.1875, -0.25), c64(0.0, 0.0)]
    );
    let want = [c64(1.27201965, 0.78615138), c64(2.0, -1.0), c64(0.17178037, 0.72767335), c64(0.0, 0.0)];
    for (k, (g, w)) in zz.power(0.5)?.to_vec::<C64>()?.iter().zip(want).enumerate() {
        assert!((g - w).norm() < 1e-8, "power {k}: {g} {w}");
    }
    Ok(())
});

device_test!(functions, |dev| {
    let (z, w) = zw(&dev)?;
    let (z, w) = (z.astype(DType::Complex128)?, w.astype(DType::Complex128)?);
    let close = |got: Vec<C64>, want: &[C64], what: &str| {
        for (k, (g, w)) in got.iter().zip(want).enumerate() {
            let ok =
                if w.re.is_infinite() { g.re == w.re && (g.im - w.im).abs() < 1e-8 } else { (g - w).norm() < 1e-8 };
            assert!(ok, "{what}[{k}]: {g} (NumPy {w})");
        }
    };
    close(
        z.sqrt()?.to_vec()?,
        &[c64(1.27201965, 0.78615138), c64(2.0, -1.0), c64(0.17178037, 0.72767335), c64(0.0, 0.0)],
        "sqrt",
    );
    close(
        z.exp()?.to_vec()?,
        &[c64(-1.13120438, 2.47172667), c64(-13.12878308, 15.20078446), c64(0.58767509, 0.15005809), c64(1.0, 0.0)],
        "exp",
    );
    close(
        w.log()?.to_vec()?,
        &[
            c64(0.80471896, -0.46364761),
            c64(f64::NEG_INFINITY, 0.0),
            c64(0.34657359, std::f64::consts::FRAC_PI_4),
            c64(1.11231178, 2.97644398),
        ],
        "log",
    );
    assert_eq!(cuprum::less(&z, &w)?.to_vec::<bool>()?, vec![true, false, true, false]);
    assert_eq!(cuprum::equal(&z, &z)?.to_vec::<bool>()?, vec![true; 4]);
    assert_eq!(
        cuprum::maximum(&z, &w)?.to_vec::<C64>()?,
        vec![c64(2.0, -1.0), c64(3.0, -4.0), c64(1.0, 1.0), c64(0.0, 0.0)]
    );
    let n = cuprum::from_vec(vec![c64(f64::NAN, 0.0), c64(1.0, f64::INFINITY), c64(1.0, 2.0)], &dev)?;
    assert_eq!(n.isnan()?.to_vec::<bool>()?, vec![true, false, false]);
    assert_eq!(n.isinf()?.to_vec::<bool>()?, vec![false, true, false]);
    assert_eq!(n.isfinite()?.to_vec::<bool>()?, vec![false, false, true]);
    // No complex loop in NumPy: its TypeError.
    assert_eq!(z.floor().unwrap_err().kind(), ErrorKind::TypeError);
    assert_eq!(cuprum::remainder(&z, &w).unwrap_err().kind(), ErrorKind::TypeError);
    assert_eq!(cuprum::arctan2(&z, &w).unwrap_err().kind(), ErrorKind::TypeError);
    assert_eq!(cuprum::bitwise_and(&z, &w).unwrap_err().kind(), ErrorKind::TypeError);
    Ok(())
});

device_test!(real_imag_views, |dev| {
    let (z, _) = zw(&dev)?;
    assert_eq!(z.real().to_vec::<f32>()?, vec![1.0, 3.0, -0.5, 0.0]);
    assert_eq!(z.imag()?.to_vec::<f32>()?, vec![2.0, -4.0, 0.25, 0.0]);
    // Writes through the views change the array (NumPy's z.imag[:] = 7).
    z.imag()?.fill(7.0)?;
    z.real().slice_mut(cuprum::s![..2])?.fill(-1.0)?;
    assert_eq!(z.to_vec::<C32>()?, vec![c32(-1.0, 7.0), c32(-1.0, 7.0), c32(-0.5, 7.0), c32(0.0, 7.0)]);
    // Views of views: every other element's imaginary part.
    let m = cuprum::zeros(&[3, 4], DType::Complex128, &dev)?;
    m.slice(cuprum::s![.., ..;2])?.imag()?.fill(1.0)?;
    assert_eq!(m.imag()?.sum(None)?.item::<f64>()?, 6.0);
    assert_eq!(m.real().sum(None)?.item::<f64>()?, 0.0);
    // Real arrays: real is the array, imag zeros.
    let f = cuprum::from_vec(vec![1.0f64, 2.0], &dev)?;
    assert_eq!((f.real().to_vec::<f64>()?, f.imag()?.to_vec::<f64>()?), (vec![1.0, 2.0], vec![0.0, 0.0]));
    Ok(())
});

device_test!(reductions, |dev| {
    let (z, _) = zw(&dev)?;
    let s = z.sum(None)?;
    assert_eq!((s.dtype(), s.item::<C32>()?), (DType::Complex64, c32(3.5, -1.75)));
    assert_eq!(z.mean(None)?.item::<C32>()?, c32(0.875, -0.4375));
    let v = z.var(None)?;
    assert_eq!(v.dtype(), DType::Float32);
    assert!((v.item::<f32>()? - 6.6210938).abs() < 1e-6);
    assert!((z.std(None)?.item::<f32>()? - 2.5731485).abs() < 1e-6);
    assert!(z.any(None)?.item::<bool>()? && !z.all(None)?.item::<bool>()?);
    assert_eq!(z.count_nonzero(None)?.item::<i64>()?, 3);
    assert_eq!(z.cumsum(None)?.to_vec::<C32>()?, vec![c32(1.0, 2.0), c32(4.0, -2.0), c32(3.5, -1.75), c32(3.5, -1.75)]);
    let m = cuprum::from_slice(&[c64(1.0, 1.0), c64(2.0, 0.0), c64(0.0, 3.0), c64(4.0, -1.0)], &[2, 2], &dev)?;
    assert_eq!(m.sum(0)?.to_vec::<C64>()?, vec![c64(1.0, 4.0), c64(6.0, -1.0)]);
    assert_eq!(m.mean(1)?.to_vec::<C64>()?, vec![c64(1.5, 0.5), c64(2.0, 1.0)]);
    assert_eq!(
        m.var_with(0, &cuprum::VarOptions { ddof: 1.0, ..Default::default() })?.to_vec::<f64>()?,
        vec![2.5, 2.5]
    );
    assert_eq!(m.sum_keepdims(1)?.shape(), &[2, 1]);
    // prod, min, max, argmin, argmax: NumPy 2.4.6's values (NumPy's order of complex numbers;
    // the first occurrence; a NaN propagates, the first one).
    let n = f32::NAN;
    let m = cuprum::from_slice(
        &[
            c32(1.0, 1.0),
            c32(2.0, -1.0),
            c32(2.0, -1.0),
            c32(0.5, 3.0),
            c32(-1.0, 0.0),
            c32(2.0, -1.0),
            c32(2.0, 0.0),
            c32(-1.0, 0.0),
            c32(3.0, 0.0),
            c32(1.0, n),
            c32(1.0, 0.0),
            c32(3.0, 0.0),
        ],
        &[3, 4],
        &dev,
    )?;
    let top = m.slice(cuprum::s![..2])?;
    let p = top.prod(None)?;
    assert_eq!((p.dtype(), p.item::<C32>()?), (DType::Complex64, c32(67.0, 69.0)));
    assert_eq!(top.prod(0)?.to_vec::<C32>()?, vec![c32(-1.0, -1.0), c32(3.0, -4.0), c32(4.0, -2.0), c32(-0.5, -3.0)]);
    assert_eq!(top.prod(1)?.to_vec::<C32>()?, vec![c32(6.5, 20.5), c32(4.0, -2.0)]);
    let empty = cuprum::zeros(&[2, 0], DType::Complex64, &dev)?;
    assert_eq!(empty.prod(1)?.to_vec::<C32>()?, vec![c32(1.0, 0.0); 2]);
    let same = |x: C32, y: C32| {
        (x.re == y.re || x.re.is_nan() && y.re.is_nan()) && (x.im == y.im || x.im.is_nan() && y.im.is_nan())
    };
    let all_same = |a: Vec<C32>, b: Vec<C32>| a.len() == b.len() && a.iter().zip(&b).all(|(&x, &y)| same(x, y));
    assert!(all_same(m.max(0)?.to_vec()?, vec![c32(3.0, 0.0), c32(1.0, n), c32(2.0, 0.0), c32(3.0, 0.0)]));
    assert!(all_same(m.max(1)?.to_vec()?, vec![c32(2.0, -1.0), c32(2.0, 0.0), c32(1.0, n)]));
    assert!(all_same(m.min(0)?.to_vec()?, vec![c32(-1.0, 0.0), c32(1.0, n), c32(1.0, 0.0), c32(-1.0, 0.0)]));
    assert!(all_same(m.min(1)?.to_vec()?, vec![c32(0.5, 3.0), c32(-1.0, 0.0), c32(1.0, n)]));
    assert_eq!(m.argmax(1)?.to_vec::<i64>()?, vec![1, 2, 1]);
    assert_eq!(m.argmin(1)?.to_vec::<i64>()?, vec![3, 0, 1]);
    assert_eq!((top.argmax(None)?.item::<i64>()?, top.argmin(None)?.item::<i64>()?), (6, 4));
    assert_eq!(m.argmax(None)?.item::<i64>()?, 9);
    assert_eq!(top.max(None)?.item::<C32>()?, c32(2.0, 0.0));
    assert_eq!(top.min_keepdims(None)?.shape(), &[1, 1]);
    let e = cuprum::zeros(&[0], DType::Complex64, &dev)?.max(None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ValueError);
    assert!(e.to_string().contains("zero-size array to reduction operation maximum which has no identity"), "{e}");
    let e = cuprum::zeros(&[2, 0], DType::Complex128, &dev)?.argmin(1).unwrap_err();
    assert_eq!(e.to_string(), "attempt to get argmin of an empty sequence");
    Ok(())
});

// sort/argsort (stable) and median in NumPy's order of complex numbers: finite values by real
// part then imaginary part, then NaN imaginary parts (by real part), NaN real parts (by
// imaginary part), both NaN — NumPy 2.4.6's results for these values.
device_test!(sort_and_median, |dev| {
    let n = f32::NAN;
    let vals = [
        c32(1.0, 1.0),
        c32(0.0, n),
        c32(2.0, 0.0),
        c32(n, -5.0),
        c32(-3.0, n),
        c32(n, n),
        c32(n, 1.0),
        c32(0.0, -1.0),
        c32(1.0, 1.0),
        c32(2.0, -0.0),
        c32(-3.0, n),
        c32(1.0, -1.0),
    ];
    let a = cuprum::from_vec(vals.to_vec(), &dev)?;
    let want = vec![7i64, 11, 0, 8, 2, 9, 4, 10, 1, 3, 6, 5];
    assert_eq!(cuprum::argsort(&a, -1)?.to_vec::<i64>()?, want);
    let sorted = cuprum::sort(&a, -1)?.to_vec::<C32>()?;
    let same = |x: C32, y: C32| {
        (x.re == y.re || x.re.is_nan() && y.re.is_nan()) && (x.im == y.im || x.im.is_nan() && y.im.is_nan())
    };
    assert!(sorted.iter().zip(&want).all(|(&s, &i)| same(s, vals[i as usize])), "{sorted:?}");
    let b = a.reshape([3, 4])?;
    assert_eq!(cuprum::argsort(&b, 0)?.to_vec::<i64>()?, vec![0, 2, 0, 1, 2, 0, 2, 2, 1, 1, 1, 0]);
    assert_eq!(cuprum::argsort(&b.t(), 0)?.t().to_vec::<i64>()?, vec![0, 2, 1, 3, 3, 0, 2, 1, 3, 0, 1, 2]);
    assert_eq!(cuprum::argsort(&b, None)?.to_vec::<i64>()?, want);
    // median: the middle values' mean; a lane with a NaN gives its last value in that order.
    let m = cuprum::median(&b, 1)?;
    assert_eq!(m.dtype(), DType::Complex64);
    let m = m.to_vec::<C32>()?;
    assert!(same(m[0], c32(n, -5.0)) && same(m[1], c32(n, n)) && same(m[2], c32(-3.0, n)), "{m:?}");
    let idx = cuprum::from_vec(vec![0i64, 2, 7, 8, 9, 11], &dev)?;
    assert_eq!(cuprum::median(&a.take(&idx, None)?, None)?.item::<C32>()?, c32(1.0, 1.0));
    // unique: NumPy 2.4.6's values; values with a NaN part are one, the first in that order.
    let u = cuprum::from_slice(
        &[c32(1.0, 1.0), c32(n, 0.0), c32(0.0, n), c32(2.0, 0.0), c32(1.0, -1.0), c32(1.0, 1.0)],
        &[2, 3],
        &dev,
    )?;
    let r = cuprum::unique_with(
        &u,
        &cuprum::UniqueOptions { return_index: true, return_inverse: true, return_counts: true },
    )?;
    let v = r.values.to_vec::<C32>()?;
    assert!(
        v.len() == 4 && v[..3] == [c32(1.0, -1.0), c32(1.0, 1.0), c32(2.0, 0.0)] && same(v[3], c32(0.0, n)),
        "{v:?}"
    );
    assert_eq!(r.index.unwrap().to_vec::<i64>()?, vec![4, 0, 3, 2]);
    let inv = r.inverse.unwrap();
    assert_eq!((inv.shape(), inv.to_vec::<i64>()?), (&[2usize, 3][..], vec![1, 3, 3, 2, 0, 1]));
    assert_eq!(r.counts.unwrap().to_vec::<i64>()?, vec![1, 2, 1, 2]);
    let r = cuprum::unique_with(
        &cuprum::zeros(&[0], DType::Complex64, &dev)?,
        &cuprum::UniqueOptions { return_index: true, return_inverse: true, return_counts: true },
    )?;
    assert_eq!((r.values.size(), r.index.unwrap().size(), r.counts.unwrap().size()), (0, 0, 0));
    // searchsorted in that order (NumPy 2.4.6's insertion points).
    let sorted_a = cuprum::from_vec(
        vec![c32(-0.0, -1.0), c32(1.0, -1.0), c32(1.0, 1.0), c32(1.0, 1.0), c32(2.0, 0.0), c32(0.0, n)],
        &dev,
    )?;
    let q = cuprum::from_slice(&[c32(1.0, 1.0), c32(0.0, 0.0), c32(5.0, n), c32(3.0, -2.0)], &[2, 2], &dev)?;
    let left = cuprum::searchsorted(&sorted_a, &q, cuprum::Side::Left)?;
    assert_eq!((left.shape(), left.to_vec::<i64>()?), (&[2usize, 2][..], vec![2, 1, 6, 5]));
    assert_eq!(cuprum::searchsorted(&sorted_a, &q, cuprum::Side::Right)?.to_vec::<i64>()?, vec![4, 1, 6, 5]);
    // nanmedian: the values without a NaN part; a lane of NaNs only gives its last value.
    let nm = cuprum::nanmedian(&b, 1)?.to_vec::<C32>()?;
    assert_eq!(nm, vec![c32(1.5, 0.5), c32(0.0, -1.0), c32(1.0, 1.0)]);
    assert_eq!(cuprum::nanmedian(&b, None)?.item::<C32>()?, c32(1.0, 1.0));
    let all_nan = cuprum::from_vec(vec![c32(n, 0.0), c32(n, 1.0)], &dev)?;
    assert!(same(cuprum::nanmedian(&all_nan, None)?.item::<C32>()?, c32(n, 1.0)));
    let e = cuprum::nanquantile(&a, 0.5, None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TypeError);
    let e = cuprum::quantile(&a, 0.5, None).unwrap_err();
    assert_eq!((e.kind(), e.to_string().contains("a must be an array of real numbers")), (ErrorKind::TypeError, true));
    Ok(())
});

device_test!(selection_and_manipulation, |dev| {
    let (z, w) = zw(&dev)?;
    let m = cuprum::from_vec(vec![true, false, true, false], &dev)?;
    assert_eq!(z.mask(&m)?.to_vec::<C32>()?, vec![c32(1.0, 2.0), c32(-0.5, 0.25)]);
    let mut zm = z.copy()?;
    zm.mask_fill(&m, c64(9.0, -9.0))?;
    assert_eq!(zm.to_vec::<C32>()?[2], c32(9.0, -9.0));
    let idx = cuprum::from_vec(vec![3i64, 0, 0], &dev)?;
    assert_eq!(z.take(&idx, None)?.to_vec::<C32>()?, vec![c32(0.0, 0.0), c32(1.0, 2.0), c32(1.0, 2.0)]);
    let cat = cuprum::concatenate(&[&z, &w], 0)?;
    assert_eq!((cat.shape(), cat.to_vec::<C32>()?[4]), (&[8usize][..], c32(2.0, -1.0)));
    let f = cuprum::flip(&z.reshape([2, 2])?, None)?.t();
    assert_eq!(f.to_vec::<C32>()?, vec![c32(0.0, 0.0), c32(3.0, -4.0), c32(-0.5, 0.25), c32(1.0, 2.0)]);
    let wh = cuprum::where_(&m, &z, 0.5)?;
    assert_eq!(wh.to_vec::<C32>()?, vec![c32(1.0, 2.0), c32(0.5, 0.0), c32(-0.5, 0.25), c32(0.5, 0.0)]);
    assert_eq!(cuprum::extract(&m, &w)?.to_vec::<C32>()?, vec![c32(2.0, -1.0), c32(1.0, 1.0)]);
    // complex128 (16-byte elements) through the selection kernels: a[m], a[m] = v, compress, nonzero.
    let z2 = z.astype(DType::Complex128)?.reshape([2, 2])?;
    let m2 = cuprum::from_slice(&[false, true, true, true], &[2, 2], &dev)?;
    assert_eq!(z2.mask(&m2)?.to_vec::<C64>()?, vec![c64(3.0, -4.0), c64(-0.5, 0.25), c64(0.0, 0.0)]);
    let mut z2a = z2.copy()?;
    z2a.mask_assign(&m2, &cuprum::from_vec(vec![c64(7.0, 1.0), c64(8.0, 2.0), c64(9.0, 3.0)], &dev)?)?;
    assert_eq!(z2a.to_vec::<C64>()?, vec![c64(1.0, 2.0), c64(7.0, 1.0), c64(8.0, 2.0), c64(9.0, 3.0)]);
    let rows = cuprum::compress(&cuprum::from_vec(vec![false, true], &dev)?, &z2, 0)?;
    assert_eq!((rows.shape(), rows.to_vec::<C64>()?), (&[1usize, 2][..], vec![c64(-0.5, 0.25), c64(0.0, 0.0)]));
    assert_eq!(z2.nonzero()?[1].to_vec::<i64>()?, vec![0, 1, 0]);
    // Complex truth values (either part non-zero; -0.0 is zero, NaN is not), both widths.
    let t = cuprum::from_vec(
        vec![c32(-0.0, 0.0), c32(0.0, -1.0), c32(f32::NAN, 0.0), c32(0.0, -0.0), c32(2.0, 0.0)],
        &dev,
    )?;
    for tz in [t.clone(), t.astype(DType::Complex128)?] {
        assert_eq!(cuprum::flatnonzero(&tz)?.to_vec::<i64>()?, vec![1, 2, 4], "{:?}", tz.dtype());
        let picked = cuprum::extract(&tz, &cuprum::arange_f(0.0, 5.0, 1.0, DType::Float32, &dev)?)?;
        assert_eq!(picked.to_vec::<f32>()?, vec![1.0, 2.0, 4.0], "{:?}", tz.dtype());
    }
    // np.add.at(z, [0, 0, 3], w[[0, 2, 3]]): repeated places add up, both parts.
    let mut za = z.copy()?;
    let (at, wv) = (cuprum::from_vec(vec![0i64, 0, 3], &dev)?, cuprum::from_vec(vec![0i64, 2, 3], &dev)?);
    cuprum::scatter_add(&mut za, &[&at], &w.take(&wv, None)?)?;
    assert_eq!(za.to_vec::<C32>()?, vec![c32(4.0, 2.0), c32(3.0, -4.0), c32(-0.5, 0.25), c32(-3.0, 0.5)]);
    // isclose/allclose compare complex values as NumPy (|a - b| <= atol + rtol |b|).
    let x = cuprum::from_vec(vec![c64(1.0, 2.0), c64(-3.0, 0.5)], &dev)?;
    assert!(cuprum::allclose_with(
        &x,
        &cuprum::add(&x, 1e-15)?,
        &cuprum::CloseOptions { rtol: 1e-12, atol: 1e-12, ..Default::default() }
    )?);
    let (p, q) = (cuprum::from_vec(vec![c64(1.0, 0.0)], &dev)?, cuprum::from_vec(vec![c64(1.0, 5.0)], &dev)?);
    assert!(!cuprum::allclose(&p, &q)?);
    let s = cuprum::from_vec(vec![c64(1.0, 0.0), c64(f64::INFINITY, 0.0), c64(f64::NAN, 0.0)], &dev)?;
    let t = cuprum::from_vec(vec![c64(1.0, 5.0), c64(f64::INFINITY, 0.0), c64(f64::NAN, 0.0)], &dev)?;
    assert_eq!(
        cuprum::isclose_with(&s, &t, &cuprum::CloseOptions { equal_nan: true, ..Default::default() })?
            .to_vec::<bool>()?,
        vec![false, true, true]
    );
    let full = cuprum::full(&[2], c64(1.0, -1.0), DType::Complex128, &dev)?;
    assert_eq!(full.to_vec::<C64>()?, vec![c64(1.0, -1.0); 2]);
    Ok(())
});

cpu_test!(npy_round_trip_and_fits_error);
fn npy_round_trip_and_fits_error() {
    let dir = std::env::temp_dir().join(format!("cuprum-complex-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let z = cuprum::from_slice(&[c64(1.0, -2.0), c64(f64::NAN, 0.5), c64(-0.0, 3.0)], &[3, 1], &Device::Cpu).unwrap();
    let p = dir.join("z.npy");
    cuprum::save_npy(&p, &z).unwrap();
    let bytes = std::fs::read(&p).unwrap();
    assert!(String::from_utf8_lossy(&bytes[..128]).contains("'descr': '<c16'"));
    let back = cuprum::load_npy(&p, &Device::Cpu).unwrap();
    assert_eq!(back.dtype(), DType::Complex128);
    let v = back.to_vec::<C64>().unwrap();
    assert!(v[0] == c64(1.0, -2.0) && v[1].re.is_nan() && v[2].re.is_sign_negative());
    let z64 = z.astype(DType::Complex64).unwrap();
    cuprum::save_npy(&p, &z64).unwrap();
    assert_eq!(cuprum::load_npy(&p, &Device::Cpu).unwrap().dtype(), DType::Complex64);
    let e = cuprum::io::write_fits(dir.join("z.fits"), &z).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ValueError);
    assert!(e.to_string().contains("no complex type"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
