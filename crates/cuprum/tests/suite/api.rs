//! The API's conventions (issue 11's stumbles), on every device, against values NumPy printed:
//! one `axis` convention ([`cuprum::Axes`]: `None`, one axis, several) for every function
//! whose NumPy `axis` may be `None`.

use cuprum::{Array, DType, Device, ErrorKind, QuantileMethod};

fn ints(a: &Array) -> Vec<i64> {
    a.to_vec_as::<i64>().unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.to_vec_as::<f64>().unwrap()
}

/// np.array([[[5,1,9,3],[2,8,0,7],[6,4,11,10]],[[13,12,20,15],[17,14,23,19],[16,22,18,21]]], int32)
fn cube(dev: &Device) -> cuprum::Result<Array> {
    let v: Vec<i32> = vec![5, 1, 9, 3, 2, 8, 0, 7, 6, 4, 11, 10, 13, 12, 20, 15, 17, 14, 23, 19, 16, 22, 18, 21];
    cuprum::from_vec(v, dev)?.reshape([2, 3, 4])
}

#[track_caller]
fn kind<T>(r: cuprum::Result<T>) -> ErrorKind {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.kind(),
    }
}

device_test!(one_axis_convention, |dev| {
    let m = cuprum::from_vec(vec![3i64, 1, 2, 9, 7, 8], &dev)?.reshape([2, 3])?;
    // The forms the lessons write, as NumPy's: an integer, a negative one, None.
    assert_eq!(ints(&m.sort(-1)?), vec![1, 2, 3, 7, 8, 9]);
    assert_eq!(ints(&m.sort(0)?), vec![3, 1, 2, 9, 7, 8]);
    assert_eq!(ints(&m.sort(None)?), vec![1, 2, 3, 7, 8, 9]);
    assert_eq!(m.sort(None)?.shape(), &[6]);
    assert_eq!(ints(&m.argsort(1)?), vec![1, 2, 0, 1, 2, 0]);
    assert_eq!(ints(&cuprum::partition(&m, 0, None)?)[0], 1);
    assert_eq!(ints(&cuprum::argpartition(&m, -1, 1)?)[2], 0);
    assert_eq!(m.median(None)?.item::<f64>()?, 5.0);
    assert_eq!(f64s(&m.median(0)?), vec![6.0, 4.0, 5.0]);
    assert_eq!(f64s(&cuprum::median(&m, -1)?), vec![2.0, 8.0]);
    assert_eq!(ints(&m.cumsum(0)?), vec![3, 1, 2, 12, 8, 10]);
    assert_eq!(ints(&m.cumsum(None)?), vec![3, 4, 6, 15, 22, 30]);
    assert_eq!(ints(&m.cumprod(-1)?), vec![3, 3, 6, 9, 63, 504]);
    assert_eq!(ints(&m.flip(1)?), vec![2, 1, 3, 8, 7, 9]);
    assert_eq!(ints(&m.flip(None)?), vec![8, 7, 9, 2, 1, 3]);
    let c = cuprum::from_vec(vec![true, false, true, true], &dev)?;
    assert_eq!(ints(&m.compress(&c, None)?), vec![3, 2, 9]);
    let c2 = cuprum::from_vec(vec![false, true], &dev)?;
    assert_eq!(ints(&m.compress(&c2, 0)?), vec![9, 7, 8]);
    let i = cuprum::from_vec(vec![5i64, 0], &dev)?;
    assert_eq!(ints(&m.take(&i, None)?), vec![8, 3]);
    assert_eq!(ints(&m.take(&cuprum::from_vec(vec![2i64], &dev)?, 1)?), vec![2, 8]);
    assert_eq!(ints(&cuprum::take_along_axis(&m, &i, None)?), vec![8, 3]);
    assert_eq!(ints(&m.roll(1, None)?), vec![8, 3, 1, 2, 9, 7]);
    assert_eq!(ints(&m.repeat(2, None)?)[..4], [3, 3, 1, 1]);
    assert_eq!(cuprum::concatenate(&[&m, &m], None)?.shape(), &[12]);
    assert_eq!(cuprum::concatenate(&[&m, &m], -1)?.shape(), &[2, 6]);
    assert_eq!(
        ints(&cuprum::quantile_with(
            &m,
            1.0,
            1,
            &cuprum::QuantileOptions { method: QuantileMethod::Higher, ..Default::default() }
        )?),
        vec![3, 9]
    );
    // Reductions take the same forms, several axes as an array, a slice or a Vec.
    let t = cube(&dev)?;
    assert_eq!(ints(&t.sum([0, 1])?), vec![59, 61, 81, 75]);
    assert_eq!(ints(&t.sum(&[0, 1][..])?), vec![59, 61, 81, 75]);
    assert_eq!(ints(&t.sum(vec![-1, 0])?), vec![78, 90, 108]);
    assert_eq!(t.sum(())?.shape(), &[2, 3, 4]);
    assert_eq!(t.squeeze_axes(None)?.shape(), &[2, 3, 4]);
    let z = cuprum::zeros(&[1, 2, 1, 3], DType::Float32, &dev)?;
    assert_eq!(z.squeeze_axes([0, 2])?.shape(), &[2, 3]);
    assert_eq!(z.squeeze_axes(None)?.shape(), &[2, 3]);
    assert_eq!(z.squeeze_axes(-2)?.shape(), &[1, 2, 3]);
    // np.expand_dims(x, (0, 3)), (-1, 0), (); None: TypeError; (0, 0): ValueError; (0, 4): AxisError
    let x = cuprum::zeros(&[2, 3], DType::Int16, &dev)?;
    assert_eq!(x.expand_dims([0, 3])?.shape(), &[1, 2, 3, 1]);
    assert_eq!(x.expand_dims([-1, 0])?.shape(), &[1, 2, 3, 1]);
    assert_eq!(x.expand_dims(())?.shape(), &[2, 3]);
    assert_eq!(x.expand_dims(-1)?.shape(), &[2, 3, 1]);
    assert_eq!(kind(x.expand_dims(None)), ErrorKind::TypeError);
    assert_eq!(kind(x.expand_dims([0, 0])), ErrorKind::ValueError);
    assert_eq!(kind(x.expand_dims([0, 4])), ErrorKind::AxisError);
    Ok(())
});

device_test!(quantiles_over_several_axes, |dev| {
    let a = cube(&dev)?;
    // np.median(a, axis=(0, 1)), axis=(2, 0), axis=(0, 1, 2), axis=()
    assert_eq!(f64s(&a.median([0, 1])?), vec![9.5, 10.0, 14.5, 12.5]);
    assert_eq!(f64s(&cuprum::median(&a, [2, 0])?), vec![10.5, 11.0, 13.5]);
    let all = a.median([0, 1, 2])?;
    assert_eq!((all.shape(), all.item::<f64>()?), (&[][..], 11.5));
    let none = a.median(())?;
    assert_eq!((none.shape(), none.dtype()), (&[2usize, 3, 4][..], DType::Float64));
    assert_eq!(f64s(&none), f64s(&a));
    // np.percentile(a, 30, axis=(0, 2), method='lower'): int32 kept
    let p = cuprum::percentile_with(
        &a,
        30.0,
        [0, 2],
        &cuprum::QuantileOptions { method: QuantileMethod::Lower, ..Default::default() },
    )?;
    assert_eq!((p.dtype(), ints(&p)), (DType::Int32, vec![5, 7, 10]));
    // np.quantile(a, [0.1, 0.9], axis=(1, 2))
    let q = cuprum::quantiles(&a, &[0.1, 0.9], [1, 2])?;
    assert_eq!(q.shape(), &[2, 2]);
    for (g, w) in f64s(&q).iter().zip([1.1, 13.1, 9.9, 21.9]) {
        assert!((g - w).abs() < 1e-12, "{g} != {w}");
    }
    // With a NaN at [0, 1, 2], float32: nanmedian over (0, 2), nanpercentile 75 over (1, -1)
    let mut f = a.astype(DType::Float32)?;
    f.slice_mut(cuprum::s![0, 1, 2])?.fill(f64::NAN)?;
    let nm = cuprum::nanmedian(&f, [0, 2])?;
    assert_eq!((nm.dtype(), f64s(&nm)), (DType::Float32, vec![10.5, 14.0, 13.5]));
    assert_eq!(f64s(&cuprum::nanpercentile(&f, 75.0, [1, -1])?), vec![8.5, 20.25]);
    let md = f64s(&f.median([0, 2])?);
    assert!(md[0] == 10.5 && md[1].is_nan() && md[2] == 13.5, "{md:?}");
    // A transposed view gives the same lanes.
    let tv = a.permute(&[2, 0, 1])?;
    assert_eq!(f64s(&tv.median([1, 2])?), vec![9.5, 10.0, 14.5, 12.5]);
    Ok(())
});

device_test!(flip_and_roll_over_several_axes, |dev| {
    let a = cube(&dev)?;
    // np.flip(a, (0, 2)), np.roll(a, 1, (0, 2)), np.roll(a, 2, (2, 2))
    let want_flip = vec![15, 20, 12, 13, 19, 23, 14, 17, 21, 18, 22, 16, 3, 9, 1, 5, 7, 0, 8, 2, 10, 11, 4, 6];
    assert_eq!(ints(&a.flip([0, 2])?), want_flip);
    assert_eq!(ints(&cuprum::flip(&a, [-1, 0])?), want_flip);
    let want_roll = vec![15, 13, 12, 20, 19, 17, 14, 23, 21, 16, 22, 18, 3, 5, 1, 9, 7, 2, 8, 0, 10, 6, 4, 11];
    assert_eq!(ints(&a.roll(1, [0, 2])?), want_roll);
    assert_eq!(ints(&a.roll(2, [2, 2])?), ints(&a)); // rolled twice by 2 along a length-4 axis
    assert_eq!(ints(&a.flip(())?), ints(&a));
    Ok(())
});

device_test!(axis_errors_are_numpys, |dev| {
    let a = cube(&dev)?;
    let i = cuprum::from_vec(vec![0i64], &dev)?;
    let c = cuprum::from_vec(vec![true], &dev)?;
    // NumPy: TypeError: 'tuple' object cannot be interpreted as an integer
    let several: Vec<(&str, cuprum::Result<Array>)> = vec![
        ("sort", a.sort([0, 1])),
        ("argsort", a.argsort([0, 1])),
        ("partition", cuprum::partition(&a, 0, [0, 1])),
        ("argpartition", cuprum::argpartition(&a, 0, [0, 1])),
        ("cumsum", a.cumsum([0, 1])),
        ("cumprod", a.cumprod([1, 2])),
        ("take", a.take(&i, [0, 1])),
        ("take_along_axis", cuprum::take_along_axis(&a, &i.reshape([1, 1, 1])?, [0, 1])),
        ("compress", a.compress(&c, [0, 1])),
        ("repeat", a.repeat(2, [0, 1])),
        ("concatenate", cuprum::concatenate(&[&a, &a], [0, 1])),
        ("sort ()", a.sort(())),
        ("argmax", a.argmax([0, 1])),
    ];
    for (what, r) in several {
        let e = r.map(|_| ()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::TypeError, "{what}: {e}");
        assert_eq!(e.to_string(), "'tuple' object cannot be interpreted as an integer", "{what}");
    }
    // NumPy: ValueError: repeated axis; AxisError for an axis out of range.
    assert_eq!(kind(a.median([0, -3])), ErrorKind::ValueError);
    assert_eq!(kind(a.flip([1, 1])), ErrorKind::ValueError);
    assert_eq!(kind(a.median([0, 3])), ErrorKind::AxisError);
    assert_eq!(kind(a.flip(3)), ErrorKind::AxisError);
    assert_eq!(kind(a.roll(1, [0, -4])), ErrorKind::AxisError);
    assert_eq!(kind(a.sort(-4)), ErrorKind::AxisError);
    // np.median(np.float64(3), axis=0): AxisError; axis=None and axis=() are fine.
    let s = cuprum::scalar(3.0f64, &dev)?;
    assert_eq!(kind(s.median(0)), ErrorKind::AxisError);
    assert_eq!(kind(s.median([0])), ErrorKind::AxisError);
    assert_eq!(s.median(None)?.item::<f64>()?, 3.0);
    assert_eq!(s.median(())?.item::<f64>()?, 3.0);
    Ok(())
});

device_test!(diagonal_with_numpys_defaults, |dev| {
    let a = cuprum::arange(24, &dev)?.reshape([2, 3, 4])?;
    // a.diagonal(): offset 0 over axes 0 and 1, the diagonal last
    let d = a.diagonal()?;
    assert_eq!((d.shape(), ints(&d)), (&[4usize, 2][..], vec![0, 16, 1, 17, 2, 18, 3, 19]));
    assert_eq!(ints(&a.diagonal_with(1, 1, 2)?), vec![1, 6, 11, 13, 18, 23]);
    assert_eq!(ints(&a.diagonal_with(-1, 2, 0)?), vec![1, 14, 5, 18, 9, 22]);
    assert_eq!(a.diagonal_with(5, 0, 1)?.shape(), &[4, 0]);
    // A view of a transposed view.
    let m = cuprum::arange(9, &dev)?.reshape([3, 3])?.t();
    assert_eq!(ints(&m.diagonal()?), vec![0, 4, 8]);
    assert_eq!(ints(&m.diagonal_with(1, 0, 1)?), vec![3, 7]);
    assert_eq!(kind(cuprum::arange(3, &dev)?.diagonal()), ErrorKind::ValueError);
    assert_eq!(kind(a.diagonal_with(0, 1, 1)), ErrorKind::ValueError);
    assert_eq!(kind(a.diagonal_with(0, 0, 3)), ErrorKind::AxisError);
    Ok(())
});

device_test!(reshape_with_an_unknown_dimension, |dev| {
    let a = cuprum::arange(12, &dev)?;
    assert_eq!(a.reshape([2, -1, 3])?.shape(), &[2, 2, 3]);
    assert_eq!(a.reshape([-1])?.shape(), &[12]);
    assert_eq!(a.reshape(-1)?.shape(), &[12]);
    // The borrowed forms the lessons wrote before must still compile (clippy prefers `[4, 3]`).
    #[allow(clippy::needless_borrows_for_generic_args)]
    {
        assert_eq!(a.reshape(&[4usize, 3])?.shape(), &[4, 3]);
        assert_eq!(a.reshape(&[4, 3])?.shape(), &[4, 3]);
    }
    assert_eq!(a.reshape(vec![3i64, -1])?.shape(), &[3, 4]);
    let shape: Vec<usize> = vec![6, 2];
    assert_eq!(a.reshape(&shape)?.shape(), &[6, 2]);
    assert_eq!(a.reshape(&shape[..])?.shape(), &[6, 2]);
    let b = a.reshape([3, 4])?;
    assert_eq!(a.reshape(b.shape())?.shape(), &[3, 4]);
    // A transposed view reshaped needs a copy, with the values in C order of the view.
    assert_eq!(ints(&b.t().reshape([-1, 2])?)[..6], [0, 4, 8, 1, 5, 9]);
    assert_eq!(cuprum::zeros(&[0, 3], DType::Float32, &dev)?.reshape([3, -1])?.shape(), &[3, 0]);
    let s = cuprum::from_vec(vec![7i64], &dev)?.reshape(())?;
    assert_eq!((s.ndim(), s.item::<i64>()?), (0, 7));
    // NumPy's ValueErrors
    let msg = |r: cuprum::Result<Array>| {
        let e = r.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ValueError);
        e.to_string()
    };
    assert_eq!(msg(a.reshape([5, -1])), "cannot reshape array of size 12 into shape (5,-1)");
    assert_eq!(msg(a.reshape([0, -1])), "cannot reshape array of size 12 into shape (0,-1)");
    assert_eq!(msg(a.reshape([7])), "cannot reshape array of size 12 into shape (7,)");
    assert_eq!(msg(a.reshape([-1, 2, -1])), "can only specify one unknown dimension");
    Ok(())
});

device_test!(meshgrid_destructures, |dev| {
    let x = cuprum::from_vec(vec![1.0f64, 2.0], &dev)?;
    let y = cuprum::from_vec(vec![10i64, 20, 30], &dev)?;
    let z = cuprum::from_vec(vec![5i64], &dev)?;
    let [xx, yy] = cuprum::meshgrid([&x, &y])?;
    assert_eq!((xx.shape(), xx.dtype(), yy.dtype()), (&[3usize, 2][..], DType::Float64, DType::Int64));
    assert_eq!(f64s(&xx), vec![1.0, 2.0, 1.0, 2.0, 1.0, 2.0]);
    assert_eq!(ints(&yy), vec![10, 10, 20, 20, 30, 30]);
    // np.meshgrid(x, y, z): shape (3, 2, 1)
    let [xx, yy, zz] = cuprum::meshgrid([&x, &y, &z])?;
    assert_eq!(xx.shape(), &[3, 2, 1]);
    assert_eq!(ints(&yy), vec![10, 10, 20, 20, 30, 30]);
    assert_eq!(ints(&zz), vec![5; 6]);
    let [ii, jj, _] = cuprum::meshgrid_with([&x, &y, &z], &cuprum::MeshgridOptions { indexing: cuprum::Indexing::Ij })?;
    assert_eq!((ii.shape(), ints(&jj)), (&[2usize, 3, 1][..], vec![10, 20, 30, 10, 20, 30]));
    let [only] = cuprum::meshgrid([&y])?;
    assert_eq!(ints(&only), vec![10, 20, 30]);
    let e = cuprum::zeros(&[0], DType::Float64, &dev)?;
    let [ee, ey] = cuprum::meshgrid([&e, &y])?;
    assert_eq!((ee.shape(), ey.shape()), (&[3usize, 0][..], &[3usize, 0][..]));
    let none: [Array; 0] = cuprum::meshgrid([])?;
    assert!(none.is_empty());
    Ok(())
});

/// `got` (an `Expr`'s result) is the step-by-step `want`: dtype, shape and every bit.
#[track_caller]
fn same(got: cuprum::Result<Array>, want: cuprum::Result<Array>, what: &str) {
    let (g, w) = (got.unwrap(), want.unwrap());
    assert_eq!((g.dtype(), g.shape()), (w.dtype(), w.shape()), "{what}");
    let (gc, wc) = (g.to_device(&Device::Cpu).unwrap(), w.to_device(&Device::Cpu).unwrap());
    // Equal elements, NaNs where the step-by-step code has NaNs.
    assert!(
        cuprum::allclose_with(&gc, &wc, &cuprum::CloseOptions { rtol: 0.0, atol: 0.0, equal_nan: true }).unwrap(),
        "{what}: {g:?} != {w:?}"
    );
}

device_test!(expr_formulas_equal_the_step_by_step_code, |dev| {
    use cuprum::Expr;
    let (muu, sigma) = (0.25, 1.5f64);
    for dt in [DType::Float64, DType::Float32, DType::Float16] {
        let lin = cuprum::linspace(-2.0, 2.0, 7, dt, &dev)?;
        let [x, y] = cuprum::meshgrid([&lin, &lin])?;
        // dst = np.sqrt(x*x + y*y); np.exp(-((dst-muu)**2/(2.0*sigma**2)))
        let dst = (x.expr() * &x + y.expr() * &y).sqrt().eval()?;
        let want_dst = (&x * &x)?.add(&(&y * &y)?)?.sqrt();
        same(Ok(dst.clone()), want_dst, &format!("dst {dt}"));
        let g = (-(dst.expr() - muu).powi(2) / (2.0 * sigma.powi(2))).exp().eval();
        let step = (-((&dst - muu)?.power(2)? / (2.0 * sigma.powi(2)))?)?.exp();
        same(g, step, &format!("gaussian {dt}"));
        // Scalars on the left, arrays on either side, Array and Result<Array> operands.
        let e = (2.0 * x.expr() - &y) / (1.0 + y.expr().abs()) + x.copy()?;
        let step = ((&(2.0 * &x)? - &y)? / (1.0 + y.abs()?)?)?.add(&x.copy()?);
        same(e.eval(), step, &format!("mixed {dt}"));
        let e = &x + y.expr().powf(0.5).maximum(0.25) * (x.exp());
        let step = x.add(&y.power(0.5)?.maximum(0.25)?.multiply(&x.exp()?)?);
        same(e.eval(), step, &format!("array on the left, NaNs of sqrt {dt}"));
        // clip, comparisons, where, reductions
        let cond = x.expr().greater(&y).logical_or(y.expr().less_equal(-1.0));
        let e = cond.clone().where_(x.expr().clip(-1.0, 0.5), y.expr().sin()).sum(1);
        let c = x.greater(&y)?.logical_or(&y.less_equal(-1.0)?)?;
        let step = cuprum::where_(&c, &cuprum::clip(&x, -1.0, 0.5)?, &y.sin()?)?.sum(1);
        same(e.eval(), step, &format!("where/clip/sum {dt}"));
        same(cond.eval(), Ok(c), &format!("condition {dt}"));
        let e = x.expr().clip(&y, 1.0).std_with(None, &cuprum::VarOptions { ddof: 1.0, ..Default::default() });
        same(
            e.eval(),
            cuprum::clip(&x, &y, 1.0)?.std_with(None, &cuprum::VarOptions { ddof: 1.0, ..Default::default() }),
            &format!("clip by an array, std {dt}"),
        );
        let e = (x.expr() * y.expr()).max([0, 1]) - (x.expr().min(-1) * 0.5).sum(None);
        let step = (&x * &y)?.max([0, 1])?.subtract(&x.min(-1)?.multiply(0.5)?.sum(None)?);
        same(e.eval(), step, &format!("reductions {dt}"));
        assert_eq!((x.expr() * 2.0).eval()?.dtype(), dt, "weak scalars keep {dt}");
        // A Result<Array>, an Array and a borrowed Expr on the left; 1 - e, e % 2.
        same((x.exp() + y.expr()).eval(), x.exp()?.add(&y), &format!("Result on the left {dt}"));
        same((x.copy()? * y.expr()).eval(), x.multiply(&y), &format!("Array on the left {dt}"));
        let e = x.expr();
        same((&e + &e - -&e).eval(), &(&x + &x)? - &(-&x)?, &format!("&Expr {dt}"));
        same((1 - x.expr() % 2).eval(), 1i64 - &(&x % 2)?, &format!("1 - x % 2 {dt}"));
    }
    for dt in [DType::Int8, DType::Int32, DType::Int64, DType::UInt8, DType::UInt16] {
        let a = cuprum::arange(12, &dev)?.astype(dt)?.reshape([3, 4])?;
        let e = (a.expr() * 3 - 1) % 4 + 2 * a.expr();
        let step = ((&(&a * 3)? - 1)? % 4)?.add(&(2 * &a)?);
        same(e.eval(), step, &format!("integers {dt}"));
        let e = (a.expr().powi(2) - &a).floor_divide(3) & 6 | 1;
        let step = (&(&a.power(2)?.subtract(&a)?.floor_divide(3)? & 6)? | 1)?.view();
        same(e.eval(), Ok(step), &format!("bitwise {dt}"));
        // An integer array with a float scalar: float64, as NumPy's int8 * 2.5
        let e = (a.expr() * 2.5).eval()?;
        assert_eq!(e.dtype(), (&a * 2.5)?.dtype(), "{dt} * 2.5");
        same(Ok(e), &a * 2.5, &format!("{dt} * 2.5"));
        same((a.expr().mean(1)).eval(), a.mean(1), &format!("mean {dt}"));
        same((-a.expr().astype(DType::Int64)).argmax(0).eval(), (-a.astype(DType::Int64)?)?.argmax(0), "argmax");
    }
    // Built from a Result<Array>, continued with and_then.
    let r = cuprum::arange(5, &dev)?.astype(DType::Float32);
    let e = Expr::from(r).exp().and_then(|a| a.cumsum(0)).eval();
    same(e, cuprum::arange(5, &dev)?.astype(DType::Float32)?.exp()?.cumsum(0), "and_then");
    Ok(())
});

device_test!(expr_errors_surface_at_eval, |dev| {
    use cuprum::Expr;
    let a = cuprum::arange(6, &dev)?.astype(DType::Float64)?.reshape([2, 3])?;
    let wrong = cuprum::ones(&[4], DType::Float64, &dev)?;
    // A shape mismatch in the middle: nothing after it runs; eval gives the step's error.
    let e = ((a.expr() + 1.0) * &wrong).exp().sqrt() / 2.0;
    let step = (&(&a + 1.0)? * &wrong).unwrap_err();
    let err = e.eval().unwrap_err();
    assert_eq!(err, step);
    assert_eq!(err.kind(), ErrorKind::ValueError);
    // The first error wins: the shape error before the integer power error.
    let i = cuprum::arange(6, &dev)?.reshape([2, 3])?;
    let e = (i.expr() - &wrong) + i.expr().powi(-1);
    assert!(matches!(e.eval(), Err(cuprum::Error::ShapeMismatch { .. })));
    // np.arange(6) ** -1: ValueError (integers to negative integer powers)
    let err = (i.expr().powi(-1) + 1).eval().unwrap_err();
    assert_eq!(err, i.power(-1).unwrap_err());
    assert_eq!(err.kind(), ErrorKind::ValueError);
    // A float array in a bitwise operation: NumPy's TypeError
    let err = (a.expr() & 1).sum(None).eval().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeError);
    assert_eq!(err, (&a & 1).unwrap_err());
    // An error carried in from a Result<Array>, and one from a reduction's axis.
    let from_r = Expr::from(a.reshape([4, 2])) * 2.0;
    assert_eq!(from_r.eval().unwrap_err().kind(), ErrorKind::ValueError);
    assert_eq!((a.expr().exp().sum(2) + 1.0).eval().unwrap_err().kind(), ErrorKind::AxisError);
    // Arrays on two devices.
    if !dev.is_cpu() {
        let host = a.to_device(&Device::Cpu)?;
        let err = (a.expr() + &host).exp().eval().unwrap_err();
        assert_eq!(err, (&a + &host).unwrap_err());
        assert_eq!(err.kind(), ErrorKind::ValueError);
    }
    Ok(())
});

device_test!(scalars_on_the_left_are_weak, |dev| {
    // A scalar on the left is `f64` or `i64` (what a bare literal is), weak as NumPy 2's Python
    // scalars: the array's dtype wins within a kind, a float scalar makes an integer array float64.
    // (Left-hand impls for `f32` and the other types would leave a bare literal's type open until
    // after `?` and method calls need it: `(2.0 * &x)?` would stop compiling. `&x * 2.0f32`, with
    // the scalar on the right, takes every Rust scalar type.)
    let x = cuprum::from_vec(vec![0.5f32, -1.0, 2.0], &dev)?;
    same(2.0 * &x, &x * 2.0f32, "2.0 * x");
    assert_eq!((2.0 * &x)?.dtype(), DType::Float32);
    same(1.0 - &x, cuprum::subtract(1.0, &x), "1.0 - x");
    same(1.0 - x.clone(), cuprum::subtract(1.0, &x), "1.0 - owned x");
    same(2 * &x, &x * 2u8, "2 * x");
    assert_eq!((2 * &x)?.dtype(), DType::Float32);
    let i = cuprum::from_vec(vec![1i16, -2, 300], &dev)?;
    assert_eq!((1 + &i)?.dtype(), DType::Int16);
    let f = (0.5 * &i)?;
    assert_eq!(f.dtype(), DType::Float64, "a float scalar on an int16 array: float64");
    assert_eq!(f.to_vec::<f64>()?, vec![0.5, -1.0, 150.0]);
    let u = cuprum::from_vec(vec![1u8, 5], &dev)?;
    assert_eq!((3 - &u)?.to_vec::<u8>()?, vec![2, 254], "uint8 wraps as NumPy's");
    let s = cuprum::from_vec(vec![1i8, 2, 3], &dev)?;
    assert_eq!((1 << &s)?.to_vec::<i8>()?, vec![2, 4, 8]);
    // Formulas too: one `?` at the end.
    same((2.0 * x.expr() - 1).eval(), (&(2.0 * &x)? - 1)?.copy(), "2.0 * e - 1");
    same((1.0 - x.expr() * x.expr()).eval(), cuprum::subtract(1.0, &(&x * &x)?), "1.0 - e * e");
    Ok(())
});

device_test!(results_and_formulas_are_operands, |dev| {
    // The issue's `greater(&(&med - (3 * &std)?)?)?`: one `?` per statement.
    let img = cuprum::from_vec(vec![1.0f32, 9.0, 4.0, 30.0, -20.0], &dev)?;
    let (med, std) = (img.median(None)?, img.std(None)?);
    let step = img.greater(&(&med - &(3 * &std)?)?)?;
    same(img.greater(&med - 3 * &std), Ok(step.clone()), "x > med - 3 * std");
    same(cuprum::greater(&img, &med - 3 * &std), Ok(step), "greater(x, med - 3 * std)");
    // A Result on the left, an owned array on either side, a formula as an operand.
    let steps = (&(&(&img + &img)? * &img)? - &img)?;
    same((&img + &img) * &img - img.clone(), Ok(steps), "(x + x) * x - x");
    same(cuprum::maximum(img.expr() * 2.0, &img), (&img * 2.0).and_then(|d| d.maximum(&img)), "maximum(Expr, x)");
    same(img.clip(&med - &std, &med + &std), img.clip(&(&med - &std)?, &(&med + &std)?), "clip with results");
    let cond = img.greater(0.0)?;
    same(cuprum::where_(&cond, &img * 2.0, -1.0), cuprum::where_(&cond, &(&img * 2.0)?, -1.0), "where_ with a result");
    // The operand's own error comes back unchanged (the left one first), nothing is computed.
    let wrong = cuprum::zeros(&[3], DType::Float32, &dev)?;
    let shape_err = (&img + &wrong).unwrap_err();
    assert_eq!(img.greater(&img + &wrong).unwrap_err(), shape_err);
    assert_eq!(((&img + &wrong) - &img).unwrap_err(), shape_err);
    assert_eq!(cuprum::add(&img + &wrong, img.reshape([7])).unwrap_err(), shape_err);
    assert_eq!(cuprum::add(&img, img.reshape([7])).unwrap_err().kind(), ErrorKind::ValueError);
    // In place and `_out` take them too.
    let mut acc = img.copy()?;
    acc.add_assign(&img * 2.0)?;
    same(Ok(acc), &img * 3.0, "x += x * 2");
    Ok(())
});
