//! `numpy.linalg` and the products at the root: values NumPy 2.4.6 printed (every case on
//! every device), NumPy's errors, stacks, and the GPU against the CPU on fresh random inputs.

use crate::common::{assert_close, random, Rng};
use cuprum::{linalg, Array, Complex, DType, Device, ErrorKind};

type C64 = Complex<f64>;
fn c(re: f64, im: f64) -> C64 {
    Complex::new(re, im)
}

fn a4(dev: &Device) -> cuprum::Result<Array> {
    let v = vec![4., -2., 1., 3., 3., 6., -4., 2., 2., 1., 8., -5., 1., -3., 2., 7.];
    cuprum::from_vec(v, dev)?.reshape([4, 4])
}
fn z4(dev: &Device) -> cuprum::Result<Array> {
    let im = vec![1., 0., -2., 1., 0.5, 1., 0., -1., 2., -1., 1., 0., 0., 1., 1., -2.];
    let im = cuprum::from_vec(im, dev)?.reshape([4, 4])?;
    cuprum::add(&a4(dev)?, &cuprum::multiply(&im, c(0.0, 1.0))?)
}
fn b4(dev: &Device) -> cuprum::Result<Array> {
    cuprum::from_vec(vec![1., 2., 3., 4.], dev)
}
/// `x @ x^H + 4 I`, Hermitian positive definite.
fn hpd(x: &Array) -> cuprum::Result<Array> {
    let xh = if x.dtype().is_complex() { x.conj()?.t() } else { x.t() };
    let eye = cuprum::eye(x.shape()[0], None, 0, x.dtype(), &x.device())?;
    cuprum::add(&cuprum::matmul(x, &xh)?, &cuprum::multiply(&eye, 4.0)?)
}

fn close_f64(got: &Array, want: &[f64], rtol: f64, what: &str) {
    let g = got.to_device(&Device::Cpu).unwrap();
    let want = cuprum::from_vec(want.to_vec(), &Device::Cpu).unwrap().reshape(g.shape().to_vec()).unwrap();
    assert_close(&g.astype(DType::Float64).unwrap(), &want, rtol, what);
}
fn close_c64(got: &Array, want: &[C64], rtol: f64, what: &str) {
    let g = got.to_device(&Device::Cpu).unwrap();
    let want = cuprum::from_vec(want.to_vec(), &Device::Cpu).unwrap().reshape(g.shape().to_vec()).unwrap();
    assert_close(&g.astype(DType::Complex128).unwrap(), &want, rtol, what);
}

device_test!(products_as_numpy, |dev| {
    let a = cuprum::arange(24, &dev)?.reshape([2, 3, 4])?;
    let b = cuprum::arange(8, &dev)?.reshape([4, 2])?;
    // np.matmul(a, b) broadcasts b over a's stack
    let m = cuprum::matmul(&a, &b)?;
    assert_eq!(m.shape(), &[2, 3, 2]);
    assert_eq!(m.to_vec::<i64>()?, vec![28, 34, 76, 98, 124, 162, 172, 226, 220, 290, 268, 354]);
    // 1-d operands lose their axis; int8 @ uint8 promotes to int16 and wraps as NumPy's
    let v = cuprum::from_vec(vec![1i64, -1, 2, 0], &dev)?;
    assert_eq!(cuprum::matmul(&a, &v)?.to_vec::<i64>()?, vec![3, 11, 19, 27, 35, 43]);
    assert_eq!(cuprum::matmul(&v, &v)?.shape(), &[] as &[usize]);
    let i8s = cuprum::from_vec(vec![100i8, 100], &dev)?;
    let u8s = cuprum::from_vec(vec![200u8, 200], &dev)?;
    let w = cuprum::matmul(&i8s, &u8s)?;
    assert_eq!((w.dtype(), w.item::<i16>()?), (DType::Int16, -25536));
    let t = cuprum::from_vec(vec![true, false, true, true], &dev)?.reshape([2, 2])?;
    assert_eq!(cuprum::matmul(&t, &t)?.to_vec::<bool>()?, vec![true, false, true, true]);
    let h = cuprum::arange(6, &dev)?.reshape([2, 3])?.astype(DType::Float16)?;
    assert_eq!(cuprum::matmul(&h, &h.t())?.to_vec_as::<f64>()?, vec![5.0, 14.0, 14.0, 50.0]);
    // k = 0: zeros
    let e = cuprum::zeros(&[3, 0], DType::Float32, &dev)?;
    assert_eq!(cuprum::matmul(&e, &e.t())?.to_vec::<f32>()?, vec![0.0; 9]);
    // Errors as NumPy's
    let e = cuprum::matmul(&a, &a).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ValueError);
    assert!(e.to_string().contains("mismatch in its core dimension 0"), "{e}");
    assert_eq!(cuprum::matmul(&cuprum::scalar(1.0, &dev)?, &v).unwrap_err().kind(), ErrorKind::ValueError);
    // dot, vdot, inner, outer, tensordot, kron, trace
    assert_eq!(cuprum::dot(&a, &b)?.to_vec::<i64>()?, m.to_vec::<i64>()?);
    let c3 = cuprum::arange(24, &dev)?.reshape([3, 4, 2])?;
    let d = cuprum::dot(&a, &c3)?;
    assert_eq!(d.shape(), &[2, 3, 3, 2]);
    assert_eq!(d.reshape([-1])?.to_vec::<i64>()?[..6], [28, 34, 76, 82, 124, 130]);
    assert_eq!(cuprum::dot(&a, &b.t()).unwrap_err().kind(), ErrorKind::ValueError);
    assert_eq!(cuprum::vdot(&a, &a)?.item::<i64>()?, 4324);
    assert_eq!(cuprum::inner(&a, &v)?.to_vec::<i64>()?, vec![3, 11, 19, 27, 35, 43]);
    let o = cuprum::outer(&v, &cuprum::arange(3, &dev)?)?;
    assert_eq!(o.to_vec::<i64>()?, vec![0, 1, 2, 0, -1, -2, 0, 2, 4, 0, 0, 0]);
    let td = linalg::tensordot(&a, &c3, ([1, 2], [0, 1]))?;
    assert_eq!(td.to_vec::<i64>()?, vec![1012, 1078, 2596, 2806]);
    let k = cuprum::kron(&cuprum::eye(2, None, 0, DType::Int64, &dev)?, &b.slice(cuprum::s![..2, ..])?)?;
    assert_eq!(k.to_vec::<i64>()?, vec![0, 1, 0, 0, 2, 3, 0, 0, 0, 0, 0, 1, 0, 0, 2, 3]);
    assert_eq!(cuprum::trace(&a, 1, 1, 2)?.to_vec::<i64>()?, vec![18, 54]);
    let sq = cuprum::from_vec(vec![1i64, 1, 1, 0], &dev)?.reshape([2, 2])?;
    assert_eq!(linalg::matrix_power(&sq, 10)?.to_vec::<i64>()?, vec![89, 55, 55, 34]);
    assert_eq!(linalg::matrix_power(&sq, 0)?.to_vec::<i64>()?, vec![1, 0, 0, 1]);
    assert_eq!(linalg::matrix_power(&sq, -1)?.to_vec::<f64>()?, vec![0.0, 1.0, 1.0, -1.0]);
    let (p, q, r) = (
        cuprum::arange(3, &dev)?,
        cuprum::arange(12, &dev)?.reshape([3, 4])?,
        cuprum::arange(8, &dev)?.reshape([4, 2])?,
    );
    let s = cuprum::arange(2, &dev)?;
    assert_eq!(linalg::multi_dot(&[&p, &q, &r, &s])?.item::<i64>()?, 422);
    assert_eq!(linalg::multi_dot(&[&q, &r, &s])?.to_vec::<i64>()?, vec![34, 98, 162]);
    // Vectors of the linalg dtypes (one pass): x, y float32, a, b complex128 as NumPy's.
    let x = cuprum::from_vec(vec![1.5f32, -2.25, 3.0, 0.5], &dev)?;
    let y = cuprum::from_vec(vec![2.0f32, 4.0, -1.0, 8.0], &dev)?;
    for r in [cuprum::dot(&x, &y)?, cuprum::matmul(&x, &y)?, cuprum::inner(&x, &y)?] {
        assert_eq!((r.shape(), r.dtype(), r.item::<f32>()?), (&[][..], DType::Float32, -5.0));
    }
    let nx = linalg::norm(&x, None, None, false)?;
    assert_eq!((nx.dtype(), nx.item::<f32>()?), (DType::Float32, 4.069705));
    let a = cuprum::from_vec(vec![Complex::new(1.0, 2.0), Complex::new(3.0, -1.0)], &dev)?;
    let b = cuprum::from_vec(vec![Complex::new(2.0, -1.0), Complex::new(0.0, 1.0)], &dev)?;
    assert_eq!(cuprum::dot(&a, &b)?.item::<Complex<f64>>()?, Complex::new(5.0, 6.0));
    assert_eq!(cuprum::vdot(&a, &b)?.item::<Complex<f64>>()?, Complex::new(-1.0, -2.0));
    assert!((linalg::norm(&a, None, None, false)?.item::<f64>()? - 3.872983346207417).abs() < 1e-15);
    let e = cuprum::zeros(&[0], DType::Float32, &dev)?;
    assert_eq!((cuprum::dot(&e, &e)?.dtype(), cuprum::dot(&e, &e)?.item::<f32>()?), (DType::Float32, 0.0));
    Ok(())
});

device_test!(decompositions_float64, |dev| {
    let (a, b) = (a4(&dev)?, b4(&dev)?);
    let r = 1e-12;
    assert!((linalg::det(&a)?.item::<f64>()? - 1653.9999999999984).abs() < 1e-9);
    let sl = linalg::slogdet(&a)?;
    assert_eq!(sl.sign.item::<f64>()?, 1.0);
    close_f64(&sl.logabsdet, &[7.410951875583636], r, "slogdet");
    close_f64(
        &linalg::inv(&a)?,
        &[
            0.25151148730350664,
            0.027811366384522376,
            0.009673518742442565,
            -0.10882708585247886,
            -0.1608222490931076,
            0.14087061668681983,
            0.07073760580411126,
            0.07920193470374849,
            -0.09189842805320436,
            0.0090689238210399,
            0.11185006045949217,
            0.11668681983071344,
            -0.07859733978234582,
            0.05380894800483675,
            -0.0030229746070133024,
            0.15900846432889962,
        ],
        r,
        "inv",
    );
    close_f64(
        &linalg::solve(&a, &b)?,
        &[-0.0991535671100362, 0.6499395405078598, 0.7285368802902056, 0.6559854897218863],
        r,
        "solve",
    );
    let s = hpd(&a)?;
    close_f64(
        &linalg::cholesky(&s, false)?,
        &[
            5.830951894845301,
            0.0,
            0.0,
            0.0,
            0.34299717028501764,
            8.299539321021165,
            0.0,
            0.0,
            -0.17149858514250882,
            -3.607570891887083,
            9.217159025171647,
            0.0,
            5.659453309702791,
            -1.3182872021434133,
            -2.5805376946789504,
            5.154952210670829,
        ],
        r,
        "cholesky",
    );
    let a3 = a.slice(cuprum::s![.., ..3])?;
    let qr = linalg::qr(&a3, linalg::QrMode::Reduced)?;
    close_f64(
        &qr.r,
        &[
            -5.477225575051661,
            -1.6431676725154976,
            -1.8257418583505545,
            0.0,
            -6.877499545619759,
            3.925845406590561,
            0.0,
            0.0,
            -8.13968086046489,
        ],
        r,
        "qr r",
    );
    close_f64(
        qr.q.as_ref().unwrap(),
        &[
            -0.7302967433402217,
            0.46528538152184423,
            0.2653632062684135,
            -0.5477225575051661,
            -0.7415485768004393,
            0.25661877434896496,
            -0.3651483716701107,
            -0.05816067269023055,
            -0.9289876682740869,
            -0.18257418583505536,
            0.47982554969440183,
            0.02666618842762524,
        ],
        r,
        "qr q",
    );
    let full = linalg::qr(&a3, linalg::QrMode::Complete)?;
    assert_eq!((full.q.as_ref().unwrap().shape(), full.r.shape()), (&[4usize, 4][..], &[4usize, 3][..]));
    close_f64(
        &linalg::qr(&a3, linalg::QrMode::R)?.r,
        &[
            -5.477225575051661,
            -1.6431676725154976,
            -1.8257418583505545,
            0.0,
            -6.877499545619759,
            3.925845406590561,
            0.0,
            0.0,
            -8.13968086046489,
        ],
        r,
        "qr mode r",
    );
    close_f64(
        &linalg::eigvalsh(&s, linalg::Uplo::L)?,
        &[10.298324637488397, 47.73597294835933, 88.66685750150864, 121.29884491264356],
        r,
        "eigvalsh",
    );
    let eh = linalg::eigh(&s, linalg::Uplo::U)?;
    let rec = cuprum::matmul(&cuprum::multiply(&eh.eigenvectors, &eh.eigenvalues)?, &eh.eigenvectors.t())?;
    assert!(cuprum::allclose(&rec, &s, 1e-12, 1e-10, false)?, "eigh reconstructs");
    close_f64(
        &linalg::svdvals(&a)?,
        &[10.830459127509032, 9.201459531047705, 6.613317847220059, 2.509646317210537],
        r,
        "svdvals",
    );
    let sv = linalg::svd(&a, true, false)?;
    let rec = cuprum::matmul(&cuprum::multiply(&sv.u, &sv.s)?, &sv.vh)?;
    assert!(cuprum::allclose(&rec, &a, 1e-12, 1e-12, false)?, "svd reconstructs");
    let ls = linalg::lstsq(&a3, &b, None)?;
    close_f64(&ls.x, &[0.5804924746051162, 0.02765516141041338, 0.23363293091527954], r, "lstsq x");
    close_f64(&ls.residuals, &[12.521672073605277], 1e-10, "lstsq residuals");
    assert_eq!(ls.rank, 3);
    close_f64(
        &linalg::pinv(&a3, None, false)?,
        &[
            0.1700792426740414,
            0.08356113386161779,
            0.006541509333616928,
            0.05591660905174704,
            -0.08626283039940437,
            0.08982609158113061,
            0.07360527575386902,
            -0.0716375046535127,
            -0.03260118066266021,
            -0.03152688400787109,
            0.11413072382066689,
            -0.0032760729670797024,
        ],
        1e-11,
        "pinv",
    );
    assert_eq!(linalg::matrix_rank(&a3, None, false)?.item::<i64>()?, 3);
    let norms = [
        15.874507866387544,
        15.874507866387544,
        29.154882822987332,
        17.0,
        10.0,
        10.830459127509032,
        2.509646317210537,
        16.0,
        10.0,
    ];
    let ords = [
        None,
        Some(linalg::NormOrd::Fro),
        Some(linalg::NormOrd::Nuc),
        Some(1.into()),
        Some((-1).into()),
        Some(2.into()),
        Some((-2).into()),
        Some(f64::INFINITY.into()),
        Some(f64::NEG_INFINITY.into()),
    ];
    for (o, w) in ords.iter().zip(norms) {
        close_f64(&linalg::norm(&a, *o, None, false)?, &[w], r, &format!("norm {o:?}"));
    }
    let vn = [5.477225575051661, 10.0, 4.0, 4.0, 1.0, 4.641588833612778, 37.7765657052182];
    let vo = [
        None,
        Some(1.into()),
        Some(0.into()),
        Some(f64::INFINITY.into()),
        Some(f64::NEG_INFINITY.into()),
        Some(3.into()),
        Some(0.5.into()),
    ];
    for (o, w) in vo.iter().zip(vn) {
        close_f64(&linalg::norm(&b, *o, None, false)?, &[w], r, &format!("vector norm {o:?}"));
    }
    close_f64(&linalg::cond(&a, None)?, &[4.3155320545514355], r, "cond");
    close_f64(&linalg::cond(&a, Some(1.into()))?, &[9.908101571946796], r, "cond 1");
    close_f64(&linalg::cond(&a, Some(linalg::NormOrd::Fro))?, &[7.1342285778647065], r, "cond fro");
    Ok(())
});

device_test!(decompositions_complex128, |dev| {
    let (z, b) = (z4(&dev)?, b4(&dev)?);
    let bz = cuprum::subtract(&b, &cuprum::multiply(&b.flip(0)?, c(0.0, 1.0))?)?;
    let r = 1e-12;
    close_c64(&linalg::det(&z)?, &[c(1403.0000000000002, 671.0)], r, "det");
    close_c64(
        &linalg::inv(&z)?,
        &[
            c(0.2414627994955864, -0.12403530895334174),
            c(0.015687263556116014, -0.008928121059268601),
            c(0.04799495586380832, 0.06756620428751575),
            c(-0.10226986128625475, 0.0424968474148802),
            c(-0.19044136191677175, 0.035485498108448914),
            c(0.14872635561160152, -0.0019924337957124825),
            c(0.0596595208070618, -0.07272383354350569),
            c(0.08530895334174023, 0.00624211853720051),
            c(-0.12958385876418663, -0.007162673392181599),
            c(0.014779319041614126, 0.01003783102143758),
            c(0.11321563682219421, -0.05984867591424969),
            c(0.1257250945775536, 0.013997477931904168),
            c(-0.09069356872635562, 0.05477931904161411),
            c(0.06083228247162674, -0.008423707440100882),
            c(-0.017326607818411093, -0.053366960907944516),
            c(0.1587641866330391, 0.00781841109709963),
        ],
        r,
        "inv",
    );
    close_c64(
        &linalg::solve(&z, &bz)?,
        &[
            c(-0.33755359394703655, -0.7758385876418664),
            c(0.6239848675914248, -0.0507440100882724),
            c(0.6382849936948296, 0.011197982345523357),
            c(0.7089785624211853, -0.03472887767969735),
        ],
        r,
        "solve",
    );
    let h = hpd(&z)?;
    close_f64(
        &linalg::eigvalsh(&h, linalg::Uplo::L)?,
        &[8.5200709321084, 50.67976089982909, 87.08840282026392, 141.96176534779866],
        r,
        "eigvalsh",
    );
    close_f64(
        &linalg::svdvals(&z)?,
        &[11.745712636864509, 9.115284023016724, 6.832258843152027, 2.126045844310126],
        r,
        "svdvals",
    );
    close_c64(
        &linalg::cholesky(&h, false)?,
        &[
            c(6.324555320336759, 0.0),
            c(0.0, 0.0),
            c(0.0, 0.0),
            c(0.0, 0.0),
            c(0.23717082451262844, -2.5298221281347035),
            c(8.049456503392015, 0.0),
            c(0.0, 0.0),
            c(0.0, 0.0),
            c(-0.15811388300841897, 4.743416490252569),
            c(-2.2315171207435753, -1.4566200829905873),
            c(8.624012365115021, 0.0),
            c(0.0, 0.0),
            c(4.5853026072441505, -1.7392527130926088),
            c(-1.4271149853607141, -0.45810546320066464),
            c(-1.7250574919287613, 4.004110001495137),
            c(5.262581300902785, 0.0),
        ],
        r,
        "cholesky",
    );
    close_c64(
        &linalg::qr(&z, linalg::QrMode::R)?.r,
        &[
            c(-5.937171043518958, 0.0),
            c(-1.2632278815997782, 0.16843038421330375),
            c(-1.6843038421330379, 3.3686076842660766),
            c(-2.610670955306209, -0.8421519210665189),
            c(0.0, 0.0),
            c(-7.167697435356956, 0.0),
            c(3.724353002026999, -2.2282792137526046),
            c(3.6491535258968053, 2.442004040648947),
            c(0.0, 0.0),
            c(0.0, 0.0),
            c(-7.614431646467777, 0.0),
            c(5.871686136159174, 2.9469020182427883),
            c(0.0, 0.0),
            c(0.0, 0.0),
            c(0.0, 0.0),
            c(-4.7994314796824, 0.0),
        ],
        r,
        "qr r",
    );
    Ok(())
});

device_test!(float32_and_stacks, |dev| {
    let a = a4(&dev)?.astype(DType::Float32)?;
    assert_eq!(linalg::det(&a)?.dtype(), DType::Float32);
    assert!((linalg::det(&a)?.item::<f32>()? - 1654.0).abs() < 1e-2);
    // A stack: each matrix as alone; `solve` broadcasts a stack of right-hand sides.
    let a64 = a4(&dev)?;
    let st = cuprum::stack(&[&a64, &cuprum::multiply(&a64, 2.0)?, &a64.t()], 0)?;
    let inv = linalg::inv(&st)?;
    assert!(cuprum::allclose(&inv.at(1)?, &cuprum::multiply(&linalg::inv(&a64)?, 0.5)?, 1e-12, 1e-14, false)?);
    let dets = linalg::det(&st)?.to_vec::<f64>()?;
    assert!((dets[1] / dets[0] - 16.0).abs() < 1e-12 && (dets[2] / dets[0] - 1.0).abs() < 1e-12);
    let rhs = cuprum::arange(8, &dev)?.reshape([2, 1, 4, 1])?;
    let x = linalg::solve(&st, &rhs)?;
    assert_eq!(x.shape(), &[2, 3, 4, 1]);
    let back = cuprum::matmul(&st, &x)?;
    assert!(cuprum::allclose(&back, &rhs.broadcast_to(&[2, 3, 4, 1])?.astype(DType::Float64)?, 1e-12, 1e-12, false)?);
    // Integers are float64; 0x0 matrices; eig of a real matrix with complex eigenvalues.
    let ia = cuprum::from_vec(vec![2i32, 1, 1, 3], &dev)?.reshape([2, 2])?;
    assert_eq!(linalg::inv(&ia)?.dtype(), DType::Float64);
    assert_eq!(linalg::det(&cuprum::zeros(&[0, 0], DType::Float64, &dev)?)?.item::<f64>()?, 1.0);
    {
        let w = linalg::eigvals(&a64)?;
        assert_eq!(w.dtype(), DType::Complex128);
        let mut w = w.to_vec::<C64>()?;
        w.sort_by(|x, y| (x.re, x.im).partial_cmp(&(y.re, y.im)).unwrap());
        let want = [
            c(3.196069255330402, 0.0),
            c(5.948801222386058, 0.0),
            c(7.927564761141773, -4.914044197630076),
            c(7.927564761141773, 4.914044197630076),
        ];
        for (g, w) in w.iter().zip(want) {
            assert!((g - w).norm() < 1e-12, "eigvals {g} {w}");
        }
        let sym = linalg::eig(&hpd(&a64)?)?;
        assert_eq!(sym.eigenvalues.dtype(), DType::Float64, "real eigenvalues give real arrays");
        // Right vectors of the complex pairs (unpacked from LAPACK's real form): A v = v w.
        let e = linalg::eig(&a64)?;
        let av = cuprum::matmul(&a64, &e.eigenvectors)?;
        let vw = cuprum::multiply(&e.eigenvectors, &e.eigenvalues.expand_dims(-2)?)?;
        assert!(cuprum::allclose(&av, &vw, 1e-12, 1e-12, false)?, "eig: A v = v w");
        let norms = linalg::norm(&e.eigenvectors, None, Some(&[0]), false)?.to_vec::<f64>()?;
        assert!(norms.iter().all(|x| (x - 1.0).abs() < 1e-12), "unit vectors {norms:?}");
        let bad = cuprum::from_vec(vec![1.0, f64::NAN, 0.0, 1.0], &dev)?.reshape([2, 2])?;
        let e = linalg::eigvals(&bad).unwrap_err();
        assert_eq!((e.kind(), e.to_string()), (ErrorKind::LinAlgError, "Array must not contain infs or NaNs".into()));
    }
    Ok(())
});

device_test!(errors_as_numpy, |dev| {
    let sing = cuprum::from_vec(vec![1.0, 2.0, 2.0, 4.0], &dev)?.reshape([2, 2])?;
    let e = linalg::inv(&sing).unwrap_err();
    assert_eq!((e.kind(), e.to_string()), (ErrorKind::LinAlgError, "Singular matrix".to_string()));
    assert_eq!(
        linalg::solve(&sing, &cuprum::ones(&[2], DType::Float64, &dev)?).unwrap_err().kind(),
        ErrorKind::LinAlgError
    );
    let sl = linalg::slogdet(&sing)?;
    assert_eq!((sl.sign.item::<f64>()?, sl.logabsdet.item::<f64>()?), (0.0, f64::NEG_INFINITY));
    let npd = cuprum::from_vec(vec![1.0, 2.0, 2.0, 1.0], &dev)?.reshape([2, 2])?;
    let e = linalg::cholesky(&npd, false).unwrap_err();
    assert_eq!((e.kind(), e.to_string()), (ErrorKind::LinAlgError, "Matrix is not positive definite".to_string()));
    let rect = cuprum::ones(&[2, 3], DType::Float64, &dev)?;
    let e = linalg::inv(&rect).unwrap_err();
    assert_eq!(
        (e.kind(), e.to_string()),
        (ErrorKind::LinAlgError, "Last 2 dimensions of the array must be square".to_string())
    );
    let e = linalg::det(&cuprum::ones(&[3], DType::Float64, &dev)?).unwrap_err();
    assert_eq!(e.to_string(), "1-dimensional array given. Array must be at least two-dimensional");
    let h = cuprum::ones(&[2, 2], DType::Float16, &dev)?;
    assert_eq!(linalg::inv(&h).unwrap_err().kind(), ErrorKind::TypeError);
    let e = linalg::solve(&cuprum::eye(3, None, 0, DType::Float64, &dev)?, &cuprum::ones(&[2], DType::Float64, &dev)?)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ValueError);
    assert_eq!(
        linalg::lstsq(&rect, &cuprum::ones(&[3], DType::Float64, &dev)?, None).unwrap_err().to_string(),
        "Incompatible dimensions"
    );
    assert_eq!(
        linalg::cond(&cuprum::zeros(&[0, 0], DType::Float64, &dev)?, None).unwrap_err().kind(),
        ErrorKind::LinAlgError
    );
    assert_eq!(linalg::cond(&sing, Some(1.into()))?.item::<f64>()?, f64::INFINITY);
    Ok(())
});

/// A random well-conditioned stack: random entries plus `n` on the diagonal.
fn wellcond(shape: &[usize], dt: DType, rng: &mut Rng) -> Array {
    let n = shape[shape.len() - 1];
    let x = random(shape, dt, rng, false);
    let eye = cuprum::eye(n, None, 0, dt, &Device::Cpu).unwrap();
    cuprum::add(&x, &cuprum::multiply(&eye, 4.0 * n as f64).unwrap()).unwrap()
}

/// The GPU against the CPU on fresh random inputs: products of views and broadcast stacks,
/// and every decomposition (compared through what is unique: values, reconstructions, |R|).
fn gpu_vs_cpu(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let mut rng = Rng::new(1800 + dt as u64);
    let tol = if matches!(dt, DType::Float32 | DType::Complex64) { 2e-3 } else { 1e-9 };
    let cmp = |g: &Array, c: &Array, what: &str| {
        let g = g.to_device(&Device::Cpu).unwrap();
        let scale = linalg::norm(c, None, None, false).unwrap().to_vec_as::<f64>().unwrap()[0].max(1.0);
        let d =
            linalg::norm(&cuprum::subtract(&g, c).unwrap(), None, None, false).unwrap().to_vec_as::<f64>().unwrap()[0];
        assert!(d <= tol * scale, "{dt}: {what}: GPU differs from the CPU by {d} (scale {scale})");
    };
    for (sa, sb) in [
        (vec![37, 53], vec![53, 29]),
        (vec![3, 1, 8, 16], vec![5, 16, 4]),
        (vec![64], vec![64]),
        (vec![130, 7], vec![7]),
    ] {
        let (a, b) = (random(&sa, dt, &mut rng, false), random(&sb, dt, &mut rng, false));
        let want = cuprum::matmul(&a, &b)?;
        cmp(&cuprum::matmul(&a.to_device(gpu)?, &b.to_device(gpu)?)?, &want, "matmul");
    }
    // Vectors in one pass: aligned, misaligned (the scalar path) and strided views, empty.
    let (v, w) = (random(&[100_003], dt, &mut rng, false), random(&[100_003], dt, &mut rng, false));
    let (gv, gw) = (v.to_device(gpu)?, w.to_device(gpu)?);
    let views = |x: &Array, y: &Array| -> Vec<(Array, Array)> {
        vec![
            (x.view(), y.view()),
            (x.slice(cuprum::s![1..]).unwrap(), y.slice(cuprum::s![..-1]).unwrap()),
            (x.slice(cuprum::s![..-1;3]).unwrap(), y.slice(cuprum::s![1..;3]).unwrap()),
            (x.slice(cuprum::s![..0]).unwrap(), y.slice(cuprum::s![..0]).unwrap()),
        ]
    };
    for ((x, y), (gx, gy)) in views(&v, &w).into_iter().zip(views(&gv, &gw)) {
        cmp(&cuprum::dot(&gx, &gy)?, &cuprum::dot(&x, &y)?, "dot of vectors");
        cmp(&cuprum::vdot(&gx, &gy)?, &cuprum::vdot(&x, &y)?, "vdot");
        cmp(&linalg::norm(&gx, None, None, false)?, &linalg::norm(&x, None, None, false)?, "norm of a vector");
    }
    let a = random(&[40, 30], dt, &mut rng, false);
    let (ga, gt) = (a.to_device(gpu)?, a.t());
    cmp(&cuprum::matmul(&ga.t(), &ga)?, &cuprum::matmul(&gt, &a)?, "matmul of a transposed view");
    cmp(
        &cuprum::matmul(&ga.slice(cuprum::s![..;2, ..])?, &ga.t())?,
        &cuprum::matmul(&a.slice(cuprum::s![..;2, ..])?, &gt)?,
        "strided",
    );
    // Orders up to 32 take the one-kernel path on a GPU, larger ones cuSOLVER.
    for n in [1, 5, 24, 32, 33, 100] {
        let a = wellcond(&[3, n, n], dt, &mut rng);
        let b = random(&[3, n, 2], dt, &mut rng, false);
        let g = a.to_device(gpu)?;
        cmp(&linalg::inv(&g)?, &linalg::inv(&a)?, "inv");
        cmp(&linalg::solve(&g, &b.to_device(gpu)?)?, &linalg::solve(&a, &b)?, "solve");
        // slogdet, not det: det of these matrices overflows float32.
        let (gs, cs) = (linalg::slogdet(&g)?, linalg::slogdet(&a)?);
        cmp(&gs.sign, &cs.sign, "slogdet sign");
        cmp(&gs.logabsdet, &cs.logabsdet, "slogdet log");
        let h = cuprum::matmul(&a, &if dt.is_complex() { a.conj()? } else { a.view() }.swapaxes(-1, -2)?)?;
        let gh = h.to_device(gpu)?;
        cmp(&linalg::cholesky(&gh, false)?, &linalg::cholesky(&h, false)?, "cholesky");
        cmp(&linalg::cholesky(&gh, true)?, &linalg::cholesky(&h, true)?, "cholesky upper");
        cmp(&linalg::eigvalsh(&gh, linalg::Uplo::L)?, &linalg::eigvalsh(&h, linalg::Uplo::L)?, "eigvalsh");
        let e = linalg::eigh(&gh, linalg::Uplo::U)?;
        let vh = if dt.is_complex() { e.eigenvectors.conj()? } else { e.eigenvectors.view() }.swapaxes(-1, -2)?;
        let rec = cuprum::matmul(&cuprum::multiply(&e.eigenvectors, &e.eigenvalues.expand_dims(-2)?)?, &vh)?;
        cmp(&rec, &h, "eigh reconstruction");
        // eig: the GPU's pairs satisfy A v = v w, and its eigenvalues are the CPU's (as sets).
        let ge = linalg::eig(&g)?;
        let res = cuprum::subtract(
            &cuprum::matmul(&g, &ge.eigenvectors)?,
            &cuprum::multiply(&ge.eigenvectors, &ge.eigenvalues.expand_dims(-2)?)?,
        )?;
        let scale = linalg::norm(&a, None, None, false)?.to_vec_as::<f64>()?.iter().fold(0f64, |m, &x| m.max(x));
        let res = cuprum::true_divide(&res, scale)?;
        cmp(&res, &cuprum::zeros_like(&res)?.to_device(&Device::Cpu)?, "eig residual / |a|");
        // The eigenvalues as multisets: real and imaginary parts sorted apart (no pairing).
        let (gw, cw) = (ge.eigenvalues.astype(dt.to_complex())?, linalg::eigvals(&a)?.astype(dt.to_complex())?);
        cmp(&gw.real().sort(-1)?, &cw.real().sort(-1)?, "eigenvalues' real parts");
        cmp(&gw.imag()?.sort(-1)?, &cw.imag()?.sort(-1)?, "eigenvalues' imaginary parts");
        let r = random(&[2, n + 3, n], dt, &mut rng, false);
        let gr = r.to_device(gpu)?;
        cmp(&linalg::svdvals(&gr)?, &linalg::svdvals(&r)?, "svdvals");
        let s = linalg::svd(&gr, false, false)?;
        cmp(&cuprum::matmul(&cuprum::multiply(&s.u, &s.s.expand_dims(-2)?)?, &s.vh)?, &r, "svd reconstruction");
        let q = linalg::qr(&gr, linalg::QrMode::Reduced)?;
        let cq = linalg::qr(&r, linalg::QrMode::Reduced)?;
        cmp(&q.r, &cq.r, "qr r");
        cmp(&cuprum::matmul(q.q.as_ref().unwrap(), &q.r)?, &r, "qr reconstruction");
    }
    // The SVD to the dtype's precision (converged, not merely close to the CPU's).
    let r = random(&[200, 150], dt, &mut rng, false);
    let sv = linalg::svd(&r.to_device(gpu)?, false, false)?;
    let rec = cuprum::matmul(&cuprum::multiply(&sv.u, &sv.s.expand_dims(-2)?)?, &sv.vh)?.to_device(&Device::Cpu)?;
    let err = linalg::norm(&cuprum::subtract(&rec, &r)?, None, None, false)?.to_vec_as::<f64>()?[0]
        / linalg::norm(&r, None, None, false)?.to_vec_as::<f64>()?[0];
    // Single precision: gesvd, tens of eps (Jacobi's few hundred would fail); double: Jacobi.
    let (eps, k) = if matches!(dt, DType::Float32 | DType::Complex64) {
        (f32::EPSILON as f64, 200.0)
    } else {
        (f64::EPSILON, 1000.0)
    };
    assert!(err <= k * eps, "{dt}: |u s vh - a| / |a| = {err:e} on the GPU");
    // Many small matrices: one batch.
    let a = wellcond(&[500, 8, 8], dt, &mut rng);
    let g = a.to_device(gpu)?;
    cmp(&linalg::inv(&g)?, &linalg::inv(&a)?, "batched inv");
    cmp(&linalg::det(&g)?, &linalg::det(&a)?, "batched det");
    let gt = g.swapaxes(-1, -2)?;
    cmp(&linalg::inv(&gt)?, &linalg::inv(&a.swapaxes(-1, -2)?)?, "batched inv of transposed views");
    // More right-hand sides than a warp has lanes (two blocks of columns), broadcast over a.
    let b = random(&[40], dt, &mut rng, false).broadcast_to(&[8, 40])?;
    let a1 = a.slice(cuprum::s![7])?;
    cmp(&linalg::solve(&a1.to_device(gpu)?, &b.to_device(gpu)?)?, &linalg::solve(&a1, &b)?, "solve, 40 columns");
    // A singular matrix in a stack is an error on the GPU too; without the check, no error.
    let mut s = wellcond(&[4, 6, 6], dt, &mut rng);
    s.slice_mut(cuprum::s![2, 3, ..])?.fill(0.0)?;
    let gs = s.to_device(gpu)?;
    assert_eq!(linalg::inv(&gs).unwrap_err().kind(), ErrorKind::LinAlgError);
    let before = linalg::set_gpu_error_check(false);
    let unchecked = linalg::inv(&gs);
    linalg::set_gpu_error_check(before);
    assert!(unchecked.is_ok());
    Ok(())
}
per_dtype!(gpu_vs_cpu: linalg_gpu_f32 => Float32, linalg_gpu_f64 => Float64, linalg_gpu_c64 => Complex64, linalg_gpu_c128 => Complex128);
