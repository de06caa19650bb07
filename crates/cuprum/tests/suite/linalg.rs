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
    let eye = cuprum::eye(x.shape()[0], x.dtype(), &x.device())?;
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
    let k = cuprum::kron(&cuprum::eye(2, DType::Int64, &dev)?, &b.slice(cuprum::s![..2, ..])?)?;
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
    let nx = linalg::norm(&x)?;
    assert_eq!((nx.dtype(), nx.item::<f32>()?), (DType::Float32, 4.069705));
    let a = cuprum::from_vec(vec![Complex::new(1.0, 2.0), Complex::new(3.0, -1.0)], &dev)?;
    let b = cuprum::from_vec(vec![Complex::new(2.0, -1.0), Complex::new(0.0, 1.0)], &dev)?;
    assert_eq!(cuprum::dot(&a, &b)?.item::<Complex<f64>>()?, Complex::new(5.0, 6.0));
    assert_eq!(cuprum::vdot(&a, &b)?.item::<Complex<f64>>()?, Complex::new(-1.0, -2.0));
    assert!((linalg::norm(&a)?.item::<f64>()? - 3.872983346207417).abs() < 1e-15);
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
        &linalg::cholesky(&s)?,
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
    let qr = linalg::qr(&a3)?;
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
    let full = linalg::qr_with(&a3, linalg::QrMode::Complete)?;
    assert_eq!((full.q.as_ref().unwrap().shape(), full.r.shape()), (&[4usize, 4][..], &[4usize, 3][..]));
    close_f64(
        &linalg::qr_with(&a3, linalg::QrMode::R)?.r,
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
        &linalg::eigvalsh(&s)?,
        &[10.298324637488397, 47.73597294835933, 88.66685750150864, 121.29884491264356],
        r,
        "eigvalsh",
    );
    let eh = linalg::eigh_with(&s, linalg::Uplo::U)?;
    let rec = cuprum::matmul(&cuprum::multiply(&eh.eigenvectors, &eh.eigenvalues)?, &eh.eigenvectors.t())?;
    assert!(
        cuprum::allclose_with(&rec, &s, &cuprum::CloseOptions { rtol: 1e-12, atol: 1e-10, ..Default::default() })?,
        "eigh reconstructs"
    );
    close_f64(
        &linalg::svdvals(&a)?,
        &[10.830459127509032, 9.201459531047705, 6.613317847220059, 2.509646317210537],
        r,
        "svdvals",
    );
    let sv = linalg::svd(&a)?;
    let rec = cuprum::matmul(&cuprum::multiply(&sv.u, &sv.s)?, &sv.vh)?;
    assert!(
        cuprum::allclose_with(&rec, &a, &cuprum::CloseOptions { rtol: 1e-12, atol: 1e-12, ..Default::default() })?,
        "svd reconstructs"
    );
    let ls = linalg::lstsq(&a3, &b)?;
    close_f64(&ls.x, &[0.5804924746051162, 0.02765516141041338, 0.23363293091527954], r, "lstsq x");
    close_f64(&ls.residuals, &[12.521672073605277], 1e-10, "lstsq residuals");
    assert_eq!(ls.rank, 3);
    close_f64(
        &linalg::pinv(&a3)?,
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
    assert_eq!(linalg::matrix_rank(&a3)?.item::<i64>()?, 3);
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
        close_f64(
            &linalg::norm_with(&a, &linalg::NormOptions { ord: *o, ..Default::default() })?,
            &[w],
            r,
            &format!("norm {o:?}"),
        );
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
        close_f64(
            &linalg::norm_with(&b, &linalg::NormOptions { ord: *o, ..Default::default() })?,
            &[w],
            r,
            &format!("vector norm {o:?}"),
        );
    }
    close_f64(&linalg::cond(&a)?, &[4.3155320545514355], r, "cond");
    close_f64(&linalg::cond_with(&a, 1.into())?, &[9.908101571946796], r, "cond 1");
    close_f64(&linalg::cond_with(&a, linalg::NormOrd::Fro)?, &[7.1342285778647065], r, "cond fro");
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
        &linalg::eigvalsh(&h)?,
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
        &linalg::cholesky(&h)?,
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
        &linalg::qr_with(&z, linalg::QrMode::R)?.r,
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
    assert!(cuprum::allclose_with(
        &inv.at(1)?,
        &cuprum::multiply(&linalg::inv(&a64)?, 0.5)?,
        &cuprum::CloseOptions { rtol: 1e-12, atol: 1e-14, ..Default::default() }
    )?);
    let dets = linalg::det(&st)?.to_vec::<f64>()?;
    assert!((dets[1] / dets[0] - 16.0).abs() < 1e-12 && (dets[2] / dets[0] - 1.0).abs() < 1e-12);
    let rhs = cuprum::arange(8, &dev)?.reshape([2, 1, 4, 1])?;
    let x = linalg::solve(&st, &rhs)?;
    assert_eq!(x.shape(), &[2, 3, 4, 1]);
    let back = cuprum::matmul(&st, &x)?;
    assert!(cuprum::allclose_with(
        &back,
        &rhs.broadcast_to(&[2, 3, 4, 1])?.astype(DType::Float64)?,
        &cuprum::CloseOptions { rtol: 1e-12, atol: 1e-12, ..Default::default() }
    )?);
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
        assert!(
            cuprum::allclose_with(&av, &vw, &cuprum::CloseOptions { rtol: 1e-12, atol: 1e-12, ..Default::default() })?,
            "eig: A v = v w"
        );
        let norms =
            linalg::norm_with(&e.eigenvectors, &linalg::NormOptions { axis: Some(&[0]), ..Default::default() })?
                .to_vec::<f64>()?;
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
    let e = linalg::cholesky(&npd).unwrap_err();
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
    let e =
        linalg::solve(&cuprum::eye(3, DType::Float64, &dev)?, &cuprum::ones(&[2], DType::Float64, &dev)?).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ValueError);
    assert_eq!(
        linalg::lstsq(&rect, &cuprum::ones(&[3], DType::Float64, &dev)?).unwrap_err().to_string(),
        "Incompatible dimensions"
    );
    assert_eq!(
        linalg::cond(&cuprum::zeros(&[0, 0], DType::Float64, &dev)?).unwrap_err().kind(),
        ErrorKind::LinAlgError
    );
    assert_eq!(linalg::cond_with(&sing, 1.into())?.item::<f64>()?, f64::INFINITY);
    Ok(())
});

/// A random well-conditioned stack: random entries plus `n` on the diagonal.
fn wellcond(shape: &[usize], dt: DType, rng: &mut Rng) -> Array {
    let n = shape[shape.len() - 1];
    let x = random(shape, dt, rng, false);
    let eye = cuprum::eye(n, dt, &Device::Cpu).unwrap();
    cuprum::add(&x, cuprum::multiply(&eye, 4.0 * n as f64).unwrap()).unwrap()
}

/// The GPU against the CPU on fresh random inputs: products of views and broadcast stacks,
/// and every decomposition (compared through what is unique: values, reconstructions, |R|).
fn gpu_vs_cpu(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let mut rng = Rng::new(1800 + dt as u64);
    let tol = if matches!(dt, DType::Float32 | DType::Complex64) { 2e-3 } else { 1e-9 };
    let cmp = |g: &Array, c: &Array, what: &str| {
        let g = g.to_device(&Device::Cpu).unwrap();
        let scale = linalg::norm(c).unwrap().to_vec_as::<f64>().unwrap()[0].max(1.0);
        let d = linalg::norm(&cuprum::subtract(&g, c).unwrap()).unwrap().to_vec_as::<f64>().unwrap()[0];
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
        cmp(&linalg::norm(&gx)?, &linalg::norm(&x)?, "norm of a vector");
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
        cmp(&linalg::cholesky(&gh)?, &linalg::cholesky(&h)?, "cholesky");
        cmp(
            &linalg::cholesky_with(&gh, &linalg::CholeskyOptions { upper: true })?,
            &linalg::cholesky_with(&h, &linalg::CholeskyOptions { upper: true })?,
            "cholesky upper",
        );
        cmp(&linalg::eigvalsh(&gh)?, &linalg::eigvalsh(&h)?, "eigvalsh");
        let e = linalg::eigh_with(&gh, linalg::Uplo::U)?;
        let vh = if dt.is_complex() { e.eigenvectors.conj()? } else { e.eigenvectors.view() }.swapaxes(-1, -2)?;
        let rec = cuprum::matmul(&cuprum::multiply(&e.eigenvectors, &e.eigenvalues.expand_dims(-2)?)?, &vh)?;
        cmp(&rec, &h, "eigh reconstruction");
        // eig: the GPU's pairs satisfy A v = v w, and its eigenvalues are the CPU's (as sets).
        let ge = linalg::eig(&g)?;
        let res = cuprum::subtract(
            &cuprum::matmul(&g, &ge.eigenvectors)?,
            &cuprum::multiply(&ge.eigenvectors, &ge.eigenvalues.expand_dims(-2)?)?,
        )?;
        let scale = linalg::norm(&a)?.to_vec_as::<f64>()?.iter().fold(0f64, |m, &x| m.max(x));
        let res = cuprum::true_divide(&res, scale)?;
        cmp(&res, &cuprum::zeros_like(&res)?.to_device(&Device::Cpu)?, "eig residual / |a|");
        // The eigenvalues as multisets: real and imaginary parts sorted apart (no pairing).
        let (gw, cw) = (ge.eigenvalues.astype(dt.to_complex())?, linalg::eigvals(&a)?.astype(dt.to_complex())?);
        cmp(&gw.real().sort(-1)?, &cw.real().sort(-1)?, "eigenvalues' real parts");
        cmp(&gw.imag()?.sort(-1)?, &cw.imag()?.sort(-1)?, "eigenvalues' imaginary parts");
        let r = random(&[2, n + 3, n], dt, &mut rng, false);
        let gr = r.to_device(gpu)?;
        cmp(&linalg::svdvals(&gr)?, &linalg::svdvals(&r)?, "svdvals");
        let s = linalg::svd_with(&gr, &linalg::SvdOptions { full_matrices: false, ..Default::default() })?;
        cmp(&cuprum::matmul(&cuprum::multiply(&s.u, &s.s.expand_dims(-2)?)?, &s.vh)?, &r, "svd reconstruction");
        let q = linalg::qr(&gr)?;
        let cq = linalg::qr(&r)?;
        cmp(&q.r, &cq.r, "qr r");
        cmp(&cuprum::matmul(q.q.as_ref().unwrap(), &q.r)?, &r, "qr reconstruction");
    }
    // The SVD to the dtype's precision (converged, not merely close to the CPU's).
    let r = random(&[200, 150], dt, &mut rng, false);
    let sv = linalg::svd_with(&r.to_device(gpu)?, &linalg::SvdOptions { full_matrices: false, ..Default::default() })?;
    let rec = cuprum::matmul(&cuprum::multiply(&sv.u, &sv.s.expand_dims(-2)?)?, &sv.vh)?.to_device(&Device::Cpu)?;
    let err =
        linalg::norm(&cuprum::subtract(&rec, &r)?)?.to_vec_as::<f64>()?[0] / linalg::norm(&r)?.to_vec_as::<f64>()?[0];
    // Single precision: the Gram route in double precision, a few eps (single-precision Jacobi's
    // few hundred would fail); double: Jacobi.
    let (eps, k) = if matches!(dt, DType::Float32 | DType::Complex64) {
        (f32::EPSILON as f64, 200.0)
    } else {
        (f64::EPSILON, 1000.0)
    };
    assert!(err <= k * eps, "{dt}: |u s vh - a| / |a| = {err:e} on the GPU");
    // A rank-deficient matrix (rank 12 of 40): u and vh still have orthonormal columns/rows and
    // reconstruct it, as LAPACK's (cuSOLVER's polar-decomposition SVD, gesvdp, fails this).
    let low = cuprum::matmul(&random(&[60, 12], dt, &mut rng, false), &random(&[12, 40], dt, &mut rng, false))?;
    let sv =
        linalg::svd_with(&low.to_device(gpu)?, &linalg::SvdOptions { full_matrices: false, ..Default::default() })?;
    let (u, vh) = (sv.u.to_device(&Device::Cpu)?, sv.vh.to_device(&Device::Cpu)?);
    let adj = |x: &Array| -> cuprum::Result<Array> {
        let t = x.swapaxes(-1, -2)?;
        Ok(if dt.is_complex() { t.conj()? } else { t })
    };
    let eye = cuprum::eye(40, dt, &Device::Cpu)?;
    for (gram, what) in [(cuprum::matmul(&adj(&u)?, &u)?, "uᴴu"), (cuprum::matmul(&vh, &adj(&vh)?)?, "vh vhᴴ")] {
        let off = linalg::norm(&cuprum::subtract(&gram, &eye)?)?.to_vec_as::<f64>()?[0];
        assert!(off <= k * eps * 40.0, "{dt}: |{what} - I| = {off:e} for a rank-deficient matrix on the GPU");
    }
    let rec = cuprum::matmul(&cuprum::multiply(&u, &sv.s.to_device(&Device::Cpu)?.expand_dims(-2)?)?, &vh)?;
    let err = linalg::norm(&cuprum::subtract(&rec, &low)?)?.to_vec_as::<f64>()?[0]
        / linalg::norm(&low)?.to_vec_as::<f64>()?[0];
    assert!(err <= k * eps, "{dt}: |u s vh - a| / |a| = {err:e} for a rank-deficient matrix on the GPU");
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

/// `numpy.einsum` (`optimize=False`, NumPy 2.4.6) on every device: the values NumPy printed for
/// the inputs `w` builds, NumPy's dtypes, and its errors with their messages.
mod einsum {
    use super::*;

    /// NumPy's `w(*shape, off=0.0)`: `np.cos(np.arange(prod(shape)) * 0.7 + off).reshape(shape)`.
    fn w(shape: &[usize], off: f64, dev: &Device) -> cuprum::Result<Array> {
        let n: usize = shape.iter().product();
        cuprum::arange(n as i64, dev)?.multiply(0.7)?.add(off)?.cos()?.reshape(shape)
    }

    /// A float64 result of this shape, within rounding of NumPy's values.
    fn check(got: &Array, shape: &[usize], want: &[f64], what: &str) {
        assert_eq!((got.dtype(), got.shape()), (DType::Float64, shape), "{what}");
        close_f64(got, want, 1e-12, what);
    }

    fn ein(subscripts: &str, ops: &[&Array]) -> cuprum::Result<Array> {
        cuprum::einsum(subscripts, ops)
    }

    device_test!(matrix_products, |dev| {
        // a, b, v, u = w(2, 3), w(3, 4), w(3), w(4)
        let (a, b, v, u) = (w(&[2, 3], 0.0, &dev)?, w(&[3, 4], 0.0, &dev)?, w(&[3], 0.0, &dev)?, w(&[4], 0.0, &dev)?);
        // np.einsum('ij,jk->ik', a, b); np.einsum('ij,jk', a, b)
        let ab = [
            0.41116932055597566,
            0.2185437220100296,
            -0.0768664038370876,
            -0.3361250588889307,
            -0.3433470187102169,
            -0.44010149343696253,
            -0.3298693590247751,
            -0.06449451071232098,
        ];
        check(&ein("ij,jk->ik", &[&a, &b])?, &[2, 4], &ab, "ij,jk->ik");
        check(&ein("ij,jk", &[&a, &b])?, &[2, 4], &ab, "ij,jk");
        check(&linalg::einsum(" i j , j k -> i k ", &[&a, &b])?, &[2, 4], &ab, "with spaces");
        // np.einsum('ij,jk->ki', a, b)
        let ab_t = [
            0.41116932055597566,
            -0.3433470187102169,
            0.2185437220100296,
            -0.44010149343696253,
            -0.0768664038370876,
            -0.3298693590247751,
            -0.3361250588889307,
            -0.06449451071232098,
        ];
        let r = ein("ij,jk->ki", &[&a, &b])?;
        check(&r, &[4, 2], &ab_t, "ij,jk->ki");
        assert!(r.is_c_contiguous());
        // np.einsum('ij,j->i', a, v); np.einsum('i,i', v, v)
        check(&ein("ij,j->i", &[&a, &v])?, &[2], &[1.6138724011157914, -1.384664368133825], "ij,j->i");
        check(&ein("i,i", &[&v, &v])?, &[], &[1.6138724011157914], "i,i");
        // np.einsum('ij->ji', a) and the implicit np.einsum('ji', a): a.T, a view as NumPy's
        let at = [
            1.0,
            -0.5048461045998571,
            0.7648421872844885,
            -0.9422223406686581,
            0.16996714290024104,
            -0.9364566872907963,
        ];
        let r = ein("ij->ji", &[&a])?;
        check(&r, &[3, 2], &at, "ij->ji");
        assert!(r.shares_storage(&a));
        check(&ein("ji", &[&a])?, &[3, 2], &at, "ji");
        check(&ein("ij", &[&a])?, &[2, 3], &a.to_vec::<f64>()?, "ij");
        // np.einsum('i,j->ij', v, u)
        check(
            &ein("i,j->ij", &[&v, &u])?,
            &[3, 4],
            &[
                1.0,
                0.7648421872844885,
                0.16996714290024104,
                -0.5048461045998571,
                0.7648421872844885,
                0.5849835714501206,
                0.12999804134231557,
                -0.3861275988842084,
                0.16996714290024104,
                0.12999804134231557,
                0.028888829665670957,
                -0.08580725000315395,
            ],
            "i,j->ij",
        );
        // np.einsum('ij->j', a); np.einsum('ij->', a)
        check(&ein("ij->j", &[&a])?, &[3], &[0.4951538954001429, -0.17738015338416957, -0.7664895443905553], "ij->j");
        check(&ein("ij->", &[&a])?, &[], &[-0.4487158023745821], "ij->");
        Ok(())
    });

    device_test!(batched_and_broadcast, |dev| {
        // x, y = w(2, 3, 4), w(2, 4, 5); np.einsum('bij,bjk->bik', x, y)
        let (x, y) = (w(&[2, 3, 4], 0.0, &dev)?, w(&[2, 4, 5], 0.0, &dev)?);
        check(
            &ein("bij,bjk->bik", &[&x, &y])?,
            &[2, 3, 5],
            &[
                0.6519699968842629,
                0.31345233076280865,
                -0.17248686434416777,
                -0.577302791968481,
                -0.7106041959250629,
                -0.5235734711104246,
                -0.29887364870388655,
                0.06639112071767139,
                0.40043110867583165,
                0.5461420893150803,
                0.33467524603909293,
                0.24975852692910783,
                0.047376470019728806,
                -0.1772874810176936,
                -0.3185703595391887,
                -0.15282987924583763,
                -0.0608287493400973,
                0.05978109185571756,
                0.15227495144646128,
                0.17315152201018408,
                0.25179397553274563,
                0.30136541244049275,
                0.20919998691301167,
                0.018644538700375857,
                -0.18067972739200025,
                -0.32166193873962295,
                -0.5070776992724159,
                -0.4540068945297788,
                -0.1874095532363727,
                0.16732942929914663,
            ],
            "bij,bjk->bik",
        );
        // p, q = w(3, 1, 2, 3), w(4, 3, 2): batch shapes (3, 1) and (4,) broadcast to (3, 4)
        // np.einsum('...ij,...jk->...ik', p, q); np.einsum('...ij,...jk', p, q)
        let (p, q) = (w(&[3, 1, 2, 3], 0.0, &dev)?, w(&[4, 3, 2], 0.0, &dev)?);
        let pq = [
            0.9698512021220862,
            0.21954772081163898,
            0.21735746801386513,
            0.9665008066409755,
            0.23106329375907733,
            0.9773149529755037,
            -1.1892460391442867,
            -1.1798771666346053,
            -1.1964137624821112,
            -1.1778261839202744,
            0.9487240118402394,
            0.1903942909498627,
            0.9420462939565157,
            0.1775691116751681,
            0.2590016126034088,
            0.9931914437152858,
            -1.1893153441870623,
            -1.195416055462272,
            0.9834849692934882,
            0.24050147131153424,
            0.9697091667865282,
            0.21399782998809058,
            0.2101382482503827,
            0.9638052249099848,
            0.23849451904632404,
            0.9855865516720947,
            -1.189530069658145,
            -1.185533353665188,
            -1.2035582043723405,
            -1.1803867746383094,
            0.9562217296697408,
            0.19863588647939417,
            0.1962982328264069,
            0.9525835935779474,
            -1.1816857656579813,
            -1.2023177043586537,
            -1.1818841188998155,
            -1.1871444567656815,
            0.9832009387796292,
            0.23484528428095122,
            0.9625647248962993,
            0.21143723927005575,
            0.21763596607988459,
            0.9720468204395155,
            0.2380685736573277,
            0.9798256675925866,
            -1.1965977137468315,
            -1.1879582294215367,
        ];
        check(&ein("...ij,...jk->...ik", &[&p, &q])?, &[3, 4, 2, 2], &pq, "...ij,...jk->...ik");
        check(&ein("...ij,...jk", &[&p, &q])?, &[3, 4, 2, 2], &pq, "...ij,...jk");
        // A label of length 1 broadcasts: np.einsum('ij,ij->i', w(2, 1), w(2, 3)); np.einsum('i,i', w(1), w(3))
        let (c21, c23) = (w(&[2, 1], 0.0, &dev)?, w(&[2, 3], 0.0, &dev)?);
        check(&ein("ij,ij->i", &[&c21, &c23])?, &[2], &[1.9348093301847293, -1.8230205758342144], "ij,ij->i");
        check(&ein("i,i", &[&w(&[1], 0.0, &dev)?, &w(&[3], 0.0, &dev)?])?, &[], &[1.9348093301847293], "i,i");
        // np.einsum('...i,i->...', w(2, 3), w(3, off=1)); np.einsum('i...->...i', w(2, 3))
        let r = ein("...i,i->...", &[&c23, &w(&[3], 1.0, &dev)?])?;
        check(&r, &[2], &[0.3164238980084483, 0.5391679226583544], "...i,i->...");
        let at = [
            1.0,
            -0.5048461045998571,
            0.7648421872844885,
            -0.9422223406686581,
            0.16996714290024104,
            -0.9364566872907963,
        ];
        check(&ein("i...->...i", &[&c23])?, &[3, 2], &at, "i...->...i");
        // np.einsum('...,...', w(2, 1), w(3))
        check(
            &ein("...,...", &[&c21, &w(&[3], 0.0, &dev)?])?,
            &[2, 3],
            &[
                1.0,
                0.7648421872844885,
                0.16996714290024104,
                0.7648421872844885,
                0.5849835714501206,
                0.12999804134231557,
            ],
            "...,...",
        );
        Ok(())
    });

    device_test!(diagonals_and_traces, |dev| {
        // m, t = w(3, 3), w(3, 2, 3)
        let (m, t) = (w(&[3, 3], 0.0, &dev)?, w(&[3, 2, 3], 0.0, &dev)?);
        // np.einsum('ii', m); np.einsum('ii->i', m) (a view, as NumPy's)
        check(&ein("ii", &[&m])?, &[], &[0.8333435378415915], "ii");
        let d = ein("ii->i", &[&m])?;
        check(&d, &[3], &[1.0, -0.9422223406686581, 0.7755658785102496], "ii->i");
        assert!(d.shares_storage(&m));
        // np.einsum('iji->ij', t); np.einsum('iji->j', t)
        check(
            &ein("iji->ij", &[&t])?,
            &[3, 2],
            &[
                1.0,
                -0.5048461045998571,
                0.18651236942257488,
                0.7539022543433046,
                -0.9304262721047539,
                0.7860702961410383,
            ],
            "iji->ij",
        );
        check(&ein("iji->j", &[&t])?, &[2], &[0.25608609731782084, 1.0351264458844858], "iji->j");
        // np.einsum('ii,ij->j', m, w(3, 2, off=1)); np.einsum('jii->ij', w(2, 3, 3))
        check(
            &ein("ii,ij->j", &[&m, &w(&[3, 2], 1.0, &dev)?])?,
            &[2],
            &[0.621643570155624, 0.6490769362674931],
            "ii,ij->j",
        );
        check(
            &ein("jii->ij", &[&w(&[2, 3, 3], 0.0, &dev)?])?,
            &[3, 2],
            &[
                1.0,
                0.9998586363834151,
                -0.9422223406686581,
                -0.9477216021311119,
                0.7755658785102496,
                0.7860702961410383,
            ],
            "jii->ij",
        );
        Ok(())
    });

    device_test!(several_operands, |dev| {
        // np.einsum('ijk,jil->kl', w(2, 3, 4), w(3, 2, 5)): tensordot over two axes
        check(
            &ein("ijk,jil->kl", &[&w(&[2, 3, 4], 0.0, &dev)?, &w(&[3, 2, 5], 0.0, &dev)?])?,
            &[4, 5],
            &[
                0.8154658076480368,
                0.6111889427683134,
                0.11946036801398413,
                -0.42845228443706135,
                -0.7748571327657411,
                0.5921683082077327,
                0.10713225563242468,
                -0.4282897707544848,
                -0.7622804257432888,
                -0.7377586855448133,
                0.09036480053227658,
                -0.4473104053150647,
                -0.7746085381248483,
                -0.7375961718622339,
                -0.3536808007147058,
                -0.4539386848224671,
                -0.7913759932249962,
                -0.7566168064228148,
                -0.366008913096265,
                0.1967386911064836,
            ],
            "ijk,jil->kl",
        );
        // np.einsum('i,i,i->', w(4), w(4, off=1), w(4, off=2))
        let (v0, v1, v2) = (w(&[4], 0.0, &dev)?, w(&[4], 1.0, &dev)?, w(&[4], 2.0, &dev)?);
        check(&ein("i,i,i->", &[&v0, &v1, &v2])?, &[], &[-0.30452789105095196], "i,i,i->");
        // A, B, C = w(2, 3), w(3, 4, off=1), w(4, 5, off=2); np.einsum('ij,jk,kl->il', A, B, C)
        let (a, b, c) = (w(&[2, 3], 0.0, &dev)?, w(&[3, 4], 1.0, &dev)?, w(&[4, 5], 2.0, &dev)?);
        let abc = [
            -0.23068846486209765,
            -0.23498738900842803,
            -0.1287680723248566,
            0.038012880829727355,
            0.18691578216244298,
            0.28115214266591754,
            0.35179665401445165,
            0.2569857020056377,
            0.041310358831211424,
            -0.1937938915936956,
        ];
        check(&ein("ij,jk,kl->il", &[&a, &b, &c])?, &[2, 5], &abc, "ij,jk,kl->il");
        check(&ein("ij,jk,kl", &[&a, &b, &c])?, &[2, 5], &abc, "ij,jk,kl");
        // np.einsum('ab,bc,ca->', w(2, 3), w(3, 4, off=1), w(4, 2, off=2))
        let r = ein("ab,bc,ca->", &[&a, &b, &w(&[4, 2], 2.0, &dev)?])?;
        check(&r, &[], &[0.529765565601855], "ab,bc,ca->");
        // np.einsum('i,j,k->ijk', w(2), w(3, off=1), w(2, off=2))
        check(
            &ein("i,j,k->ijk", &[&w(&[2], 0.0, &dev)?, &w(&[3], 1.0, &dev)?, &w(&[2], 2.0, &dev)?])?,
            &[2, 3, 2],
            &[
                -0.2248450953661529,
                -0.4884722630029665,
                0.053618228707598914,
                0.11648471794485998,
                0.3068640620122327,
                0.6666571159192933,
                -0.1719710145400378,
                -0.37360419406299283,
                0.04100948332303991,
                0.08909242645816341,
                0.23470258038843897,
                0.509887486708481,
            ],
            "i,j,k->ijk",
        );
        // np.einsum('bi,bj,b->ij', w(4, 2), w(4, 3, off=1), w(4, off=2))
        check(
            &ein("bi,bj,b->ij", &[&w(&[4, 2], 0.0, &dev)?, &w(&[4, 3], 1.0, &dev)?, &v2])?,
            &[2, 3],
            &[
                0.5037304398193849,
                0.9790325949260632,
                0.9938804228327325,
                -0.26021686240513936,
                0.5353036223778791,
                1.0790624492067529,
            ],
            "bi,bj,b->ij",
        );
        Ok(())
    });

    device_test!(dtypes, |dev| {
        // ai, bi = np.arange(6).reshape(2, 3), np.arange(12).reshape(3, 4) - 5
        let ai = cuprum::arange(6, &dev)?.reshape([2, 3])?;
        let bi = cuprum::arange(12, &dev)?.subtract(5)?.reshape([3, 4])?;
        // np.einsum('ij,jk->ik', ai, bi); np.einsum('ij->', ai)
        let r = ein("ij,jk->ik", &[&ai, &bi])?;
        assert_eq!((r.dtype(), r.shape()), (DType::Int64, &[2usize, 4][..]));
        assert_eq!(r.to_vec::<i64>()?, vec![5, 8, 11, 14, -4, 8, 20, 32]);
        assert_eq!(ein("ij->", &[&ai])?.item::<i64>()?, 15);
        // int8 wraps: np.einsum('i,i->', np.int8([100] * 3), np.int8([1] * 3)); np.einsum('i->', np.int8([100] * 3))
        let (h, o) = (cuprum::from_vec(vec![100i8; 3], &dev)?, cuprum::from_vec(vec![1i8; 3], &dev)?);
        let r = ein("i,i->", &[&h, &o])?;
        assert_eq!((r.dtype(), r.item::<i8>()?), (DType::Int8, 44));
        let r = ein("i->", &[&h])?;
        assert_eq!((r.dtype(), r.item::<i8>()?), (DType::Int8, 44));
        // np.einsum('ij,jk', np.full((2, 3), 100, np.int8), np.full((3, 2), 3, np.int8))
        let (f, t) = (cuprum::from_vec(vec![100i8; 6], &dev)?, cuprum::from_vec(vec![3i8; 6], &dev)?);
        let r = ein("ij,jk", &[&f.reshape([2, 3])?, &t.reshape([3, 2])?])?;
        assert_eq!((r.dtype(), r.to_vec::<i8>()?), (DType::Int8, vec![-124; 4]));
        // np.einsum('i,i', np.uint8([200, 200]), np.int8([100, 100])): int16
        let r = ein("i,i", &[&cuprum::from_vec(vec![200u8; 2], &dev)?, &cuprum::from_vec(vec![100i8; 2], &dev)?])?;
        assert_eq!((r.dtype(), r.item::<i16>()?), (DType::Int16, -25536));
        // tb, tc = np.array([[1, 0], [0, 0]], bool), np.array([[0, 1], [1, 0]], bool)
        // np.einsum('ij,jk->ik', tb, tc); np.einsum('ij->', tb); np.einsum('ij->i', tb)
        let tb = cuprum::from_vec(vec![true, false, false, false], &dev)?.reshape([2, 2])?;
        let tc = cuprum::from_vec(vec![false, true, true, false], &dev)?.reshape([2, 2])?;
        let r = ein("ij,jk->ik", &[&tb, &tc])?;
        assert_eq!((r.dtype(), r.to_vec::<bool>()?), (DType::Bool, vec![false, true, false, false]));
        assert!(ein("ij->", &[&tb])?.item::<bool>()?);
        assert_eq!(ein("ij->i", &[&tb])?.to_vec::<bool>()?, vec![true, false]);
        // np.einsum('i,i', np.arange(3, dtype=np.int32), np.float32([0.5, 1.5, 2.5])): float64
        let i32s = cuprum::arange(3, &dev)?.astype(DType::Int32)?;
        let r = ein("i,i", &[&i32s, &cuprum::from_vec(vec![0.5f32, 1.5, 2.5], &dev)?])?;
        assert_eq!((r.dtype(), r.item::<f64>()?), (DType::Float64, 6.5));
        // np.einsum('ij,jk', w(2, 3).astype(np.float32), w(3, 4).astype(np.float32))
        let a32 = w(&[2, 3], 0.0, &dev)?.astype(DType::Float32)?;
        let r = ein("ij,jk", &[&a32, &w(&[3, 4], 0.0, &dev)?.astype(DType::Float32)?])?;
        assert_eq!(r.dtype(), DType::Float32);
        let want = [
            0.41116926074028015,
            0.21854372322559357,
            -0.07686640322208405,
            -0.33612507581710815,
            -0.3433469533920288,
            -0.4401014447212219,
            -0.3298693895339966,
            -0.06449452042579651,
        ];
        close_f64(&r, &want, 1e-5, "float32");
        // np.einsum('i,i', np.float16([1, 2, 3]), np.float16([0.5, 0.25, 4]))
        let h1 = cuprum::from_vec(vec![1.0, 2.0, 3.0], &dev)?.astype(DType::Float16)?;
        let h2 = cuprum::from_vec(vec![0.5, 0.25, 4.0], &dev)?.astype(DType::Float16)?;
        let r = ein("i,i", &[&h1, &h2])?;
        assert_eq!((r.dtype(), r.to_vec_as::<f64>()?), (DType::Float16, vec![13.0]));
        // z = w(2, 3) + 1j * w(2, 3, off=1); zb = w(3, 2, off=2) - 1j * w(3, 2, off=3)
        let i = c(0.0, 1.0);
        let z = cuprum::add(&w(&[2, 3], 0.0, &dev)?, &w(&[2, 3], 1.0, &dev)?.multiply(i)?)?;
        let zb = cuprum::subtract(&w(&[3, 2], 2.0, &dev)?, &w(&[3, 2], 3.0, &dev)?.multiply(i)?)?;
        assert_eq!(z.dtype(), DType::Complex128);
        // np.einsum('ij,jk->ik', z, zb)
        let r = ein("ij,jk->ik", &[&z, &zb])?;
        assert_eq!((r.dtype(), r.shape()), (DType::Complex128, &[2usize, 2][..]));
        close_c64(
            &r,
            &[
                c(-2.288996535874693, 0.909744747160321),
                c(-2.4503315015330087, -0.5439591005671011),
                c(2.084652841503833, 1.2019295899322593),
                c(0.6769285073755689, 2.051083914589095),
            ],
            1e-12,
            "complex ij,jk->ik",
        );
        // np.einsum('ij,ij', z, z) (no conjugate); np.einsum('ij->', z)
        close_c64(&ein("ij,ij", &[&z, &z])?, &[c(1.1128632408553987, 3.527003943071608)], 1e-12, "complex ij,ij");
        close_c64(&ein("ij->", &[&z])?, &[c(-0.448715802374582, -2.3268345655871063)], 1e-12, "complex ij->");
        // np.einsum('ij,j->i', z, w(3)): complex128 with float64
        let r = ein("ij,j->i", &[&z, &w(&[3], 0.0, &dev)?])?;
        assert_eq!(r.dtype(), DType::Complex128);
        close_c64(
            &r,
            &[c(1.6138724011157914, 0.3164238980084483), c(-1.384664368133825, -1.639928984889931)],
            1e-12,
            "complex ij,j->i",
        );
        Ok(())
    });

    device_test!(scalars_and_empty, |dev| {
        // np.einsum(',->', np.array(2.5), np.array(3)); np.einsum('i,->i', np.arange(3), np.array(3))
        let r = ein(",->", &[&cuprum::scalar(2.5, &dev)?, &cuprum::scalar(3i64, &dev)?])?;
        assert_eq!((r.dtype(), r.shape(), r.item::<f64>()?), (DType::Float64, &[][..], 7.5));
        let r = ein("i,->i", &[&cuprum::arange(3, &dev)?, &cuprum::scalar(3i64, &dev)?])?;
        assert_eq!((r.dtype(), r.to_vec::<i64>()?), (DType::Int64, vec![0, 3, 6]));
        // np.einsum('', np.array(3.)); np.einsum('->', np.array(3.))
        let s = cuprum::scalar(3.0, &dev)?;
        assert_eq!(ein("", &[&s])?.item::<f64>()?, 3.0);
        assert_eq!(ein("->", &[&s])?.item::<f64>()?, 3.0);
        assert_eq!(ein("...->...", &[&s])?.item::<f64>()?, 3.0);
        // np.einsum('ij,jk->ik', np.ones((2, 0)), np.ones((0, 3))): zeros
        let f = DType::Float64;
        let r = ein("ij,jk->ik", &[&cuprum::ones(&[2, 0], f, &dev)?, &cuprum::ones(&[0, 3], f, &dev)?])?;
        check(&r, &[2, 3], &[0.0; 6], "k = 0");
        // np.einsum('ij,jk->ik', np.ones((0, 3)), np.ones((3, 4))): shape (0, 4)
        let e03 = cuprum::ones(&[0, 3], f, &dev)?;
        check(&ein("ij,jk->ik", &[&e03, &cuprum::ones(&[3, 4], f, &dev)?])?, &[0, 4], &[], "m = 0");
        // np.einsum('i->', np.ones(0)); np.einsum('ii', np.ones((0, 0)))
        check(&ein("i->", &[&cuprum::ones(&[0], f, &dev)?])?, &[], &[0.0], "empty sum");
        check(&ein("ii", &[&cuprum::ones(&[0, 0], f, &dev)?])?, &[], &[0.0], "empty trace");
        // np.einsum('ij,ij->ij', np.ones((0, 3)), np.ones((1, 3))); np.einsum('ij,ij->j', same)
        let o13 = cuprum::ones(&[1, 3], f, &dev)?;
        check(&ein("ij,ij->ij", &[&e03, &o13])?, &[0, 3], &[], "1 against 0");
        check(&ein("ij,ij->j", &[&e03, &o13])?, &[3], &[0.0; 3], "1 against 0, summed");
        Ok(())
    });

    device_test!(errors_as_numpy, |dev| {
        let (a, v) = (cuprum::ones(&[2, 3], DType::Float64, &dev)?, cuprum::ones(&[3], DType::Float64, &dev)?);
        let err = |subscripts: &str, ops: &[&Array], msg: &str| {
            let e = cuprum::einsum(subscripts, ops).unwrap_err();
            assert_eq!((e.kind(), e.to_string().as_str()), (ErrorKind::ValueError, msg), "{subscripts:?}");
        };
        err("", &[], "must specify the einstein sum subscripts string and at least one operand");
        // np.einsum('i,j', v): NumPy's words, as they are
        err("i,j", &[&v], "more operands provided to einstein sum function than specified in the subscripts string");
        err("i", &[&v, &v], "fewer operands provided to einstein sum function than specified in the subscripts string");
        err("ijk", &[&a], "einstein sum subscripts string contains too many subscripts for operand 0");
        err("i,ij", &[&v, &v], "einstein sum subscripts string contains too many subscripts for operand 1");
        let no_ellipsis = "operand has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to broadcast the extra dimensions.";
        err("i", &[&a], no_ellipsis);
        err("i2", &[&a], "invalid subscript '2' in einstein sum subscripts string, subscripts must be letters");
        err("i>", &[&a], "invalid subscript '>' in einstein sum subscripts string, subscripts must be letters");
        err(
            "i.j",
            &[&a],
            "einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') in operand 0",
        );
        err(
            "......",
            &[&a],
            "einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') in operand 0",
        );
        err("ij-k", &[&a], "einstein sum subscript string does not contain proper '->' output specified");
        err(
            "ij->k",
            &[&a],
            "einstein sum subscripts string included output subscript 'k' which never appeared in an input",
        );
        err("ij->ii", &[&a], "einstein sum subscripts string includes output subscript 'i' multiple times");
        err(
            "ij->i..",
            &[&a],
            "einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') in the output",
        );
        err(
            "...j->j",
            &[&a],
            "output has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to broadcast the extra dimensions.",
        );
        err("ii", &[&a], "dimensions in operand 0 for collapsing index 'i' don't match (2 != 3)");
        // Lengths that do not broadcast: NumPy's iterator's message (its trailing space too)
        let remapped = "operands could not be broadcast together with remapped shapes [original->remapped]: ";
        let b = cuprum::ones(&[4, 2], DType::Float64, &dev)?;
        err("ij,jk", &[&a, &b], &format!("{remapped}(2,3)->(2,newaxis,3) (4,2)->(2,4) "));
        err("ij,kj->ik", &[&a, &b], &format!("{remapped}(2,3)->(2,newaxis,3) (4,2)->(4,2) "));
        let (u, e) = (cuprum::ones(&[2], DType::Float64, &dev)?, cuprum::ones(&[5], DType::Float64, &dev)?);
        err("i,i", &[&u, &v], &format!("{remapped}(2,)->(2,) (3,)->(3,) "));
        let (p, q) = (cuprum::ones(&[3, 1], DType::Float64, &dev)?, cuprum::ones(&[2, 4], DType::Float64, &dev)?);
        err("ij,jk,k", &[&p, &q, &e], &format!("{remapped}(3,1)->(3,1,newaxis) (2,4)->(2,4) (5,)->(5) "));
        let sq = cuprum::ones(&[3, 3], DType::Float64, &dev)?;
        err("ii,i", &[&sq, &cuprum::ones(&[4], DType::Float64, &dev)?], &format!("{remapped}(3,)->(3,) (4,)->(4,) "));
        let (s3, s4) =
            (cuprum::ones(&[2, 2, 3], DType::Float64, &dev)?, cuprum::ones(&[3, 3, 4], DType::Float64, &dev)?);
        err("...ij,...jk", &[&s3, &s4], &format!("{remapped}(2,2,3)->(2,2,newaxis,3) (3,3,4)->(3,newaxis,4,3) "));
        // Operands on two devices
        if dev != Device::Cpu {
            let e = cuprum::einsum("i,i", &[&v, &v.to_device(&Device::Cpu)?]).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::ValueError);
            assert!(matches!(e, cuprum::Error::DeviceMismatch { .. }), "{e}");
        }
        Ok(())
    });
}

/// The GPU's own blocked LU (real orders 33 to 512, `linalg/cuda/blocked.rs`; above, [`tall_lu`])
/// against the CPU on fresh random inputs: plain random matrices (real
/// pivoting), stacks, transposed views, matrices with ties (entries in {-1, 0, 1}), graded and
/// ill-conditioned ones (solve's backward error, which LU with partial pivoting bounds whatever
/// the condition), and exactly singular ones (a zero pivot in the first, a middle and the last
/// panel: `slogdet` `(0, -inf)`, `inv` NumPy's "Singular matrix" for the stack).
fn blocked_lu(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let mut rng = Rng::new(2600 + dt as u64);
    let eps = if dt == DType::Float32 { f32::EPSILON as f64 } else { f64::EPSILON };
    let norm = |x: &Array| linalg::norm(&x.to_device(&Device::Cpu).unwrap()).unwrap().to_vec_as::<f64>().unwrap()[0];
    // |a x - b| / (|a| |x| + |b|): LAPACK's backward error bound is a small multiple of n eps.
    let backward = |a: &Array, x: &Array, b: &Array, what: &str| {
        let (a, x, b) = (
            a.to_device(&Device::Cpu).unwrap(),
            x.to_device(&Device::Cpu).unwrap(),
            b.to_device(&Device::Cpu).unwrap(),
        );
        let (a, x, b) =
            (a.astype(DType::Float64).unwrap(), x.astype(DType::Float64).unwrap(), b.astype(DType::Float64).unwrap());
        let r = cuprum::subtract(cuprum::matmul(&a, &x).unwrap(), &b).unwrap();
        let n = a.shape()[a.ndim() - 1] as f64;
        let e = norm(&r) / (norm(&a) * norm(&x) + norm(&b));
        assert!(e <= 4.0 * n * eps, "{dt}: {what}: backward error {e:e} > 4 n eps");
    };
    let logdets = |g: &linalg::SlogdetResult, c: &linalg::SlogdetResult, what: &str| {
        let gs = g.sign.to_device(&Device::Cpu).unwrap().to_vec_as::<f64>().unwrap();
        let cs = c.sign.to_vec_as::<f64>().unwrap();
        assert_eq!(gs, cs, "{dt}: {what}: slogdet's sign");
        let gl = g.logabsdet.to_device(&Device::Cpu).unwrap().to_vec_as::<f64>().unwrap();
        let cl = c.logabsdet.to_vec_as::<f64>().unwrap();
        let tol = if dt == DType::Float32 { 2e-4 } else { 1e-11 };
        for (x, y) in gl.iter().zip(&cl) {
            assert!(x == y || (x - y).abs() <= tol * y.abs().max(1.0), "{dt}: {what}: log|det| {x} against {y}");
        }
    };
    for (shape, n) in
        [(vec![2], 33), (vec![], 64), (vec![3], 95), (vec![], 128), (vec![2], 257), (vec![], 512), (vec![], 513)]
    {
        let mut s = shape.clone();
        s.extend([n, n]);
        let a = random(&s, dt, &mut rng, false);
        let g = a.to_device(gpu)?;
        logdets(&linalg::slogdet(&g)?, &linalg::slogdet(&a)?, &format!("random {s:?}"));
        let gt = g.swapaxes(-1, -2)?;
        logdets(&linalg::slogdet(&gt)?, &linalg::slogdet(&a.swapaxes(-1, -2)?)?, &format!("transposed {s:?}"));
        let mut bs = shape.clone();
        bs.extend([n, 3]);
        let b = random(&bs, dt, &mut rng, false);
        let gb = b.to_device(gpu)?;
        backward(&g, &linalg::solve(&g, &gb)?, &gb, &format!("solve {s:?}"));
        let eye = cuprum::eye(n, dt, &Device::Cpu)?.broadcast_to(&s)?;
        backward(&g, &linalg::inv(&g)?, &eye, &format!("inv {s:?}"));
    }
    // Ties everywhere (entries in {-1, 0, 1}): the pivot search's tie-break (the first row of
    // largest magnitude, as LAPACK's) gives the CPU's sign and log|det|.
    let t = cuprum::floor(&cuprum::multiply(random(&[4, 70, 70], dt, &mut rng, false), 0.4)?)?;
    let t = cuprum::clip(&t, -1.0, 1.0)?.astype(dt)?;
    logdets(&linalg::slogdet(&t.to_device(gpu)?)?, &linalg::slogdet(&t)?, "entries in {-1, 0, 1}");
    // Graded rows and graded columns (scales 2^-20 .. 2^20: condition numbers near 1e12).
    let n = 200;
    let scale: Vec<f64> = (0..n).map(|i| 2f64.powi((i as i32 * 41 / n as i32) - 20)).collect();
    let sc = cuprum::from_vec(scale, &Device::Cpu)?;
    let r = random(&[n, n], dt, &mut rng, false);
    let rows = cuprum::multiply(&r, &sc.reshape([n, 1])?)?.astype(dt)?;
    let cols = cuprum::multiply(&r, &sc)?.astype(dt)?;
    for (m, what) in [(rows, "graded rows"), (cols, "graded columns")] {
        let g = m.to_device(gpu)?;
        let b = random(&[n, 2], dt, &mut rng, false).to_device(gpu)?;
        backward(&g, &linalg::solve(&g, &b)?, &b, what);
        logdets(&linalg::slogdet(&g)?, &linalg::slogdet(&m)?, what);
    }
    // Exactly singular: a zero row of `a` is a zero column of what is factored, whose step finds
    // a zero pivot (and goes on).
    for n in [40, 100, 300] {
        for row in [0, n / 2, n - 1] {
            let mut s = random(&[3, n, n], dt, &mut rng, false);
            s.slice_mut(cuprum::s![1, row as isize, ..])?.fill(0.0)?;
            let g = s.to_device(gpu)?;
            let sl = linalg::slogdet(&g)?;
            let (sg, lg) = (
                sl.sign.to_device(&Device::Cpu)?.to_vec_as::<f64>()?,
                sl.logabsdet.to_device(&Device::Cpu)?.to_vec_as::<f64>()?,
            );
            assert_eq!((sg[1], lg[1]), (0.0, f64::NEG_INFINITY), "{dt}: n {n}, zero row {row}");
            logdets(&sl, &linalg::slogdet(&s)?, &format!("singular n {n} row {row}"));
            let e = linalg::inv(&g).unwrap_err();
            assert_eq!((e.kind(), e.to_string()), (ErrorKind::LinAlgError, "Singular matrix".to_string()));
            let ok = s.slice(cuprum::s![0])?.to_device(gpu)?;
            let eye = cuprum::eye(n, dt, &Device::Cpu)?;
            backward(&ok, &linalg::inv(&ok)?, &eye, "inv beside a singular matrix");
        }
    }
    // A NaN: log|det| NaN, as NumPy's.
    let mut w = random(&[50, 50], dt, &mut rng, false);
    w.slice_mut(cuprum::s![7, 9])?.fill(f64::NAN)?;
    let l = linalg::slogdet(&w.to_device(gpu)?)?.logabsdet.to_device(&Device::Cpu)?.to_vec_as::<f64>()?;
    assert!(l[0].is_nan(), "{dt}: log|det| with a NaN: {}", l[0]);
    Ok(())
}
per_dtype!(blocked_lu: linalg_blocked_lu_f32 => Float32, linalg_blocked_lu_f64 => Float64);

/// The GPU's own LU above 512 (`linalg/cuda/blocked.rs`'s `getrf_tall`: a cluster's panels, one
/// block's once 512 rows are left, outer steps of 512 columns) against the CPU on fresh random
/// inputs of `sizes` (stacks, a transposed view; the CPU's slogdet and solve's and inv's backward
/// errors), `large` (solve's backward error only: up to the largest order the path takes, 4096
/// float64 and 6144 float32, and one more, which is cuSOLVER's), exactly singular matrices of
/// `singular` (a zero pivot in the first, a middle and the last panel: slogdet (0, -inf), inv's
/// "Singular matrix") and a NaN (log|det| NaN).
fn tall_lu_of(gpu: &Device, dt: DType, sizes: &[usize], large: &[usize], singular: &[usize]) -> cuprum::Result<()> {
    let mut rng = Rng::new(3100 + dt as u64);
    let eps = if dt == DType::Float32 { f32::EPSILON as f64 } else { f64::EPSILON };
    let cpu = |x: &Array| x.to_device(&Device::Cpu).unwrap().astype(DType::Float64).unwrap();
    let norm = |x: &Array| linalg::norm(x).unwrap().to_vec_as::<f64>().unwrap()[0];
    let backward = |a: &Array, x: &Array, b: &Array, what: &str| {
        let (a, x, b) = (cpu(a), cpu(x), cpu(b));
        let r = cuprum::subtract(cuprum::matmul(&a, &x).unwrap(), &b).unwrap();
        let n = a.shape()[a.ndim() - 1] as f64;
        let e = norm(&r) / (norm(&a) * norm(&x) + norm(&b));
        assert!(e <= 4.0 * n * eps, "{dt}: {what}: backward error {e:e} > 4 n eps");
    };
    let logdets = |g: &linalg::SlogdetResult, c: &linalg::SlogdetResult, what: &str| {
        assert_eq!(cpu(&g.sign).to_vec::<f64>().unwrap(), cpu(&c.sign).to_vec::<f64>().unwrap(), "{dt}: {what}: sign");
        let (gl, cl) = (cpu(&g.logabsdet).to_vec::<f64>().unwrap(), cpu(&c.logabsdet).to_vec::<f64>().unwrap());
        let tol = if dt == DType::Float32 { 2e-4 } else { 1e-11 };
        for (x, y) in gl.iter().zip(&cl) {
            assert!(x == y || (x - y).abs() <= tol * y.abs().max(1.0), "{dt}: {what}: log|det| {x} against {y}");
        }
    };
    for &n in sizes {
        let a = random(&[2, n, n], dt, &mut rng, false);
        let g = a.to_device(gpu)?;
        logdets(&linalg::slogdet(&g)?, &linalg::slogdet(&a)?, &format!("random 2 x {n}"));
        let gt = g.swapaxes(-1, -2)?;
        logdets(&linalg::slogdet(&gt)?, &linalg::slogdet(&a.swapaxes(-1, -2)?)?, &format!("transposed {n}"));
        let gb = random(&[2, n, 3], dt, &mut rng, false).to_device(gpu)?;
        backward(&g, &linalg::solve(&g, &gb)?, &gb, &format!("solve {n}"));
        let eye = cuprum::eye(n, dt, &Device::Cpu)?.broadcast_to(&[2, n, n])?;
        backward(&g, &linalg::inv(&g)?, &eye, &format!("inv {n}"));
    }
    for &n in large {
        let g = random(&[n, n], dt, &mut rng, false).to_device(gpu)?;
        let gb = random(&[n, 2], dt, &mut rng, false).to_device(gpu)?;
        backward(&g, &linalg::solve(&g, &gb)?, &gb, &format!("solve {n}"));
    }
    for &n in singular {
        for row in [0, n / 2, n - 1] {
            let mut s = random(&[2, n, n], dt, &mut rng, false);
            s.slice_mut(cuprum::s![1, row as isize, ..])?.fill(0.0)?;
            let g = s.to_device(gpu)?;
            let sl = linalg::slogdet(&g)?;
            let (sg, lg) = (cpu(&sl.sign).to_vec::<f64>()?, cpu(&sl.logabsdet).to_vec::<f64>()?);
            assert_eq!((sg[1], lg[1]), (0.0, f64::NEG_INFINITY), "{dt}: n {n}, zero row {row}");
            logdets(&sl, &linalg::slogdet(&s)?, &format!("singular n {n} row {row}"));
            let e = linalg::inv(&g).unwrap_err();
            assert_eq!((e.kind(), e.to_string()), (ErrorKind::LinAlgError, "Singular matrix".to_string()));
        }
        let mut w = random(&[n, n], dt, &mut rng, false);
        w.slice_mut(cuprum::s![7, 9])?.fill(f64::NAN)?;
        let l = cpu(&linalg::slogdet(&w.to_device(gpu)?)?.logabsdet).to_vec::<f64>()?;
        assert!(l[0].is_nan(), "{dt}: n {n}: log|det| with a NaN: {}", l[0]);
    }
    Ok(())
}

/// [`tall_lu_of`] at 600 and 700: a few cluster panels, then one block's (the racecheck's case).
fn tall_lu_small(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    tall_lu_of(gpu, dt, &[600], &[], &[700])
}
per_dtype!(tall_lu_small: linalg_tall_lu_small_f32 => Float32, linalg_tall_lu_small_f64 => Float64);

/// [`tall_lu_of`] at 1100 and 2085 (partial outer steps and panels), and up to the largest order.
fn tall_lu(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let largest = if dt == DType::Float32 { 6144 } else { 4096 };
    tall_lu_of(gpu, dt, &[1100, 2085], &[largest, largest + 1], &[1500])
}
per_dtype!(tall_lu: linalg_tall_lu_f32 => Float32, linalg_tall_lu_f64 => Float64);

/// The GPU's own blocked QR (real, up to 512 rows, `linalg/cuda/blocked.rs`; 513 rows and
/// complex dtypes take cuSOLVER) against the CPU on fresh random inputs: square, tall and wide
/// stacks in every mode, R as LAPACK's (the CPU's signs), Q orthonormal and Q R = A to a small
/// multiple of m eps; zero columns (no reflection), a rank-deficient matrix, and for float64
/// entries whose squares under- or overflow (the rescaled norm).
fn blocked_qr(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let mut rng = Rng::new(2700 + dt as u64);
    let eps = if dt == DType::Float32 { f32::EPSILON as f64 } else { f64::EPSILON };
    let cpu = |x: &Array| x.to_device(&Device::Cpu).unwrap().astype(DType::Float64).unwrap();
    let norm = |x: &Array| linalg::norm(&cpu(x)).unwrap().to_vec_as::<f64>().unwrap()[0];
    // The GPU's QR of `a * s` (R divided by `s` after) against the CPU's of `a`.
    let check_scaled = |a: &Array, s: f64, mode: linalg::QrMode, what: &str| {
        let (m, n) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
        let ga = cuprum::multiply(a, s).unwrap().astype(dt).unwrap().to_device(gpu).unwrap();
        let mut g = linalg::qr_with(&ga, mode).unwrap();
        g.r = cuprum::true_divide(cpu(&g.r), s).unwrap();
        let c = linalg::qr_with(a, mode).unwrap();
        let tol = 8.0 * m.max(n) as f64 * eps;
        let scale = norm(a).max(f64::MIN_POSITIVE);
        let dr = norm(&cuprum::subtract(cpu(&g.r), cpu(&c.r)).unwrap());
        // R is unique up to the signs LAPACK fixes; its distance from the CPU's is bounded by
        // the condition, so only well-conditioned inputs ask for it (`what` says).
        if !what.contains("deficient") {
            assert!(dr <= 100.0 * tol * scale, "{dt}: {what}: |R - R_cpu| / |A| = {:e}", dr / scale);
        }
        if let Some(q) = &g.q {
            let (q, r) = (cpu(q), cpu(&g.r));
            let rec = norm(&cuprum::subtract(cuprum::matmul(&q, &r).unwrap(), cpu(a)).unwrap()) / scale;
            assert!(rec <= tol, "{dt}: {what}: |Q R - A| / |A| = {rec:e}");
            let qq = cuprum::matmul(&q.swapaxes(-1, -2).unwrap(), &q).unwrap();
            let eye = cuprum::eye(q.shape()[q.ndim() - 1], DType::Float64, &Device::Cpu).unwrap();
            let orth = norm(&cuprum::subtract(&qq, &eye).unwrap());
            assert!(orth <= tol * (q.shape()[0] as f64).sqrt().max(1.0) * 2.0, "{dt}: {what}: |QᵀQ - I| = {orth:e}");
            assert_eq!(q.shape(), c.q.as_ref().unwrap().shape(), "{dt}: {what}: Q's shape");
        }
    };
    let check = |a: &Array, mode: linalg::QrMode, what: &str| check_scaled(a, 1.0, mode, what);
    use linalg::QrMode::{Complete, Reduced, R};
    for (shape, mode) in [
        (vec![512, 512], Reduced),
        (vec![2, 300, 200], Reduced),
        (vec![3, 100, 300], Reduced),
        (vec![2, 97, 61], Complete),
        (vec![40, 40], R),
        (vec![513, 64], Reduced),
        (vec![1, 7], Reduced),
        (vec![4, 5, 1], Complete),
    ] {
        let a = random(&shape, dt, &mut rng, false);
        check(&a, mode, &format!("random {shape:?} {mode:?}"));
    }
    // Zero columns: the reflector of a zero column is the identity (tau 0).
    let mut z = random(&[80, 50], dt, &mut rng, false);
    z.slice_mut(cuprum::s![.., 3])?.fill(0.0)?;
    z.slice_mut(cuprum::s![40.., 45])?.fill(0.0)?;
    check(&z, Reduced, "zero columns");
    let low = cuprum::matmul(&random(&[120, 10], dt, &mut rng, false), &random(&[10, 90], dt, &mut rng, false))?;
    check(&low, Reduced, "rank-deficient (rank 10)");
    if dt == DType::Float64 {
        for s in [1e-170, 1e150] {
            let a = random(&[70, 60], dt, &mut rng, false);
            check_scaled(&a, s, Reduced, &format!("scaled by {s:e}"));
        }
    }
    Ok(())
}
per_dtype!(blocked_qr: linalg_blocked_qr_f32 => Float32, linalg_blocked_qr_f64 => Float64);

/// The GPU's single-precision SVD through the Gram matrix in double precision
/// (`linalg/cuda/svd_gram.rs`) against the CPU's double-precision SVD of the same entries, on
/// fresh random inputs: tall, wide and square stacks, full and economy, a transposed view on the
/// device, graded matrices of condition 1e3 and 1e7, rank-deficient ones and single rows and
/// columns. The singular values descend and lie within a few eps of `s_max` of the float64 ones,
/// U and V are orthonormal (square in full mode) and U S Vᴴ = A to a few eps: bounds that
/// single-precision LAPACK (cuSOLVER's `gesvd`, 20-40 eps at these sizes) would not meet. NaN
/// and inf are `LinAlgError("SVD did not converge")`, with and without vectors.
fn gram_svd(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let mut rng = Rng::new(2900 + dt as u64);
    let eps = f32::EPSILON as f64;
    let hi = if dt.is_complex() { DType::Complex128 } else { DType::Float64 };
    let cpu = |x: &Array| x.to_device(&Device::Cpu).unwrap().astype(hi).unwrap();
    let norm = |x: &Array| linalg::norm(x).unwrap().to_vec_as::<f64>().unwrap()[0];
    let adj = |x: &Array| {
        let t = x.swapaxes(-1, -2).unwrap();
        if dt.is_complex() {
            t.conj().unwrap()
        } else {
            t
        }
    };
    let orth = |x: &Array, what: &str| {
        let cols = x.shape()[x.ndim() - 1];
        let batch = x.size() / (x.shape()[x.ndim() - 2] * cols).max(1);
        let eye = cuprum::eye(cols, hi, &Device::Cpu).unwrap();
        let off = norm(&cuprum::subtract(cuprum::matmul(&adj(x), x).unwrap(), &eye).unwrap());
        let bound = 8.0 * eps * (cols as f64).sqrt() * (batch as f64).sqrt();
        assert!(off <= bound, "{dt}: {what}: |XᴴX - I| = {off:e} (bound {bound:e})");
    };
    // `ga` on the GPU, `a` its entries on the host.
    let check = |ga: &Array, full: bool, what: &str| {
        let a = cpu(ga);
        let nd = a.ndim();
        let (m, n) = (a.shape()[nd - 2], a.shape()[nd - 1]);
        let k = m.min(n);
        let batch = &a.shape()[..nd - 2];
        let g = linalg::svd_with(ga, &linalg::SvdOptions { full_matrices: full, ..Default::default() }).unwrap();
        let (uc, vr) = if full { (m, n) } else { (k, k) };
        assert_eq!(g.u.shape(), [batch, &[m, uc]].concat(), "{dt}: {what}: u's shape");
        assert_eq!(g.vh.shape(), [batch, &[vr, n]].concat(), "{dt}: {what}: vh's shape");
        assert_eq!((g.u.dtype(), g.s.dtype(), g.vh.dtype()), (dt, dt.real_dtype(), dt), "{dt}: {what}: dtypes");
        let s = g.s.to_device(&Device::Cpu).unwrap().astype(DType::Float64).unwrap();
        let want = linalg::svdvals(&a).unwrap();
        let sv = s.to_vec::<f64>().unwrap();
        let smax = want.to_vec::<f64>().unwrap().into_iter().fold(0f64, f64::max).max(f64::MIN_POSITIVE);
        let ds = cuprum::subtract(&s, &want).unwrap().abs().unwrap().to_vec::<f64>().unwrap();
        let ds = ds.into_iter().fold(0f64, f64::max);
        assert!(ds <= 4.0 * eps * smax, "{dt}: {what}: singular values {:e} of s_max off", ds / smax);
        for row in sv.chunks(k) {
            assert!(row.windows(2).all(|w| w[0] >= w[1]), "{dt}: {what}: singular values not descending: {row:?}");
        }
        let vals = linalg::svdvals(ga).unwrap().to_device(&Device::Cpu).unwrap().astype(DType::Float64).unwrap();
        assert_eq!(vals.to_vec::<f64>().unwrap(), sv, "{dt}: {what}: svdvals is svd's s");
        let (u, vh) = (cpu(&g.u), cpu(&g.vh));
        orth(&u, &format!("{what}: u"));
        orth(&adj(&vh), &format!("{what}: vh"));
        let ku = u.slice(cuprum::s![cuprum::ELLIPSIS, ..k as isize]).unwrap();
        let kv = vh.slice(cuprum::s![cuprum::ELLIPSIS, ..k as isize, ..]).unwrap();
        let rec = cuprum::matmul(&cuprum::multiply(&ku, s.expand_dims(-2).unwrap()).unwrap(), &kv).unwrap();
        let err = norm(&cuprum::subtract(&rec, &a).unwrap()) / norm(&a).max(f64::MIN_POSITIVE);
        assert!(err <= 4.0 * eps, "{dt}: {what}: |U S Vᴴ - A| / |A| = {err:e}");
    };
    let dev = |a: &Array| a.to_device(gpu).unwrap();
    for (shape, full) in [
        (vec![300, 200], false),
        (vec![200, 300], true),
        (vec![3, 64, 40], true),
        (vec![2, 40, 64], false),
        (vec![257, 257], true),
        (vec![1, 9], true),
        (vec![9, 1], true),
        (vec![4, 1, 1], false),
    ] {
        check(&dev(&random(&shape, dt, &mut rng, false)), full, &format!("random {shape:?} full={full}"));
    }
    let t = dev(&random(&[2, 90, 50], dt, &mut rng, false)).swapaxes(-1, -2)?;
    check(&t, true, "a transposed view on the device");
    // Graded: Q1 diag(logspace(0, -c)) Q2 with orthonormal Q1, Q2 (the CPU's QR in double).
    for c in [3.0, 7.0] {
        let (m, n) = (120, 90);
        let q1 = linalg::qr(&random(&[m, n], hi, &mut rng, false))?.q.unwrap();
        let q2 = linalg::qr(&random(&[n, n], hi, &mut rng, false))?.q.unwrap();
        let d: Vec<f64> = (0..n).map(|i| 10f64.powf(-c * i as f64 / (n - 1) as f64)).collect();
        let d = cuprum::from_slice(&d, &[n], &Device::Cpu)?;
        let a = cuprum::matmul(&cuprum::multiply(&q1, &d)?, &q2)?.astype(dt)?;
        check(&dev(&a), c > 5.0, &format!("condition 1e{c}"));
    }
    for (m, n, r) in [(60, 40, 12), (40, 70, 5)] {
        let low = cuprum::matmul(&random(&[m, r], dt, &mut rng, false), &random(&[r, n], dt, &mut rng, false))?;
        check(&dev(&low), true, &format!("rank {r} of {m}x{n}, full"));
        check(&dev(&low), false, &format!("rank {r} of {m}x{n}"));
    }
    for bad in [f64::NAN, f64::INFINITY] {
        let mut a = random(&[2, 30, 20], dt, &mut rng, false);
        a.slice_mut(cuprum::s![1, 7, 3])?.fill(bad)?;
        let ga = dev(&a);
        for e in [linalg::svd(&ga).unwrap_err(), linalg::svdvals(&ga).unwrap_err()] {
            assert_eq!((e.kind(), e.to_string()), (ErrorKind::LinAlgError, "SVD did not converge".to_string()));
        }
    }
    Ok(())
}
per_dtype!(gram_svd: linalg_gram_svd_f32 => Float32, linalg_gram_svd_c64 => Complex64);

/// `inv` above the one-kernel size on the GPU (`linalg/cuda/inv.rs`: `L⁻¹` by column blocks, one
/// solve with `U`, the pivots' permutation and a gather) on fresh random inputs made on the device:
/// orders where `L⁻¹` is one block (1000), three (1025: the last one column wide; 2300), a stack
/// of a transposed view, a singular matrix in a stack of large ones (NumPy's "Singular matrix"),
/// and for float32 an order whose permutation no longer fits in shared memory (12289). Each
/// inverse's backward error `|a x - I| / (|a| |x| + |I|)`, computed in double precision on the
/// device, is within LAPACK's bound for a solve (a small multiple of n eps).
fn inv_route(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let mut g = cuprum::random::default_rng(Rng::new(3000 + dt as u64).next_u64())?.on(gpu);
    let real = dt.real_dtype();
    let eps = if real == DType::Float32 { f32::EPSILON as f64 } else { f64::EPSILON };
    let hi = if dt.is_complex() { DType::Complex128 } else { DType::Float64 };
    let mut rand = |shape: &[usize]| -> cuprum::Result<Array> {
        let re = g.standard_normal(shape, real)?;
        if dt.is_complex() {
            cuprum::add(&re, &cuprum::multiply(&g.standard_normal(shape, real)?, Complex::new(0.0, 1.0))?)?.astype(dt)
        } else {
            Ok(re)
        }
    };
    let norm = |x: &Array| linalg::norm(x).unwrap().to_device(&Device::Cpu).unwrap().to_vec_as::<f64>().unwrap()[0];
    let backward = |a: &Array, x: &Array, what: &str| {
        assert_eq!((x.dtype(), x.shape()), (dt, a.shape()), "{dt}: {what}");
        let n = a.shape()[a.ndim() - 1];
        let (a, x) = (a.astype(hi).unwrap(), x.astype(hi).unwrap());
        let eye = cuprum::eye(n, hi, gpu).unwrap().broadcast_to(a.shape()).unwrap();
        let r = cuprum::subtract(cuprum::matmul(&a, &x).unwrap(), &eye).unwrap();
        let e = norm(&r) / (norm(&a) * norm(&x) + norm(&eye));
        assert!(e <= 4.0 * n as f64 * eps, "{dt}: {what}: backward error {e:e} > 4 n eps");
    };
    for (shape, what) in [(vec![1000, 1000], "one block"), (vec![1025, 1025], "three blocks, the last one column")] {
        let a = rand(&shape)?;
        backward(&a, &linalg::inv(&a)?, what);
    }
    let a = rand(&[2, 2300, 2300])?;
    backward(&a, &linalg::inv(&a)?, "a stack of two, 2300");
    let at = a.swapaxes(-1, -2)?;
    backward(&at, &linalg::inv(&at)?, "a transposed view");
    let mut s = rand(&[3, 1100, 1100])?;
    s.slice_mut(cuprum::s![2, 500, ..])?.fill(0.0)?;
    let e = linalg::inv(&s).unwrap_err();
    assert_eq!((e.kind(), e.to_string()), (ErrorKind::LinAlgError, "Singular matrix".to_string()));
    if dt == DType::Float32 {
        // A random permutation of a diagonal (pivots at every step, exact inverse: the
        // transpose with reciprocal entries), cheap to check at an order whose permutation
        // leaves shared memory.
        let n = 12289;
        let d = g.uniform(0.5, 2.0, &[n, 1])?.astype(dt)?;
        let a = cuprum::multiply(&cuprum::eye(n, dt, gpu)?.take(&g.permutation(n)?, 0)?, &d)?;
        let x = linalg::inv(&a)?;
        let nz = cuprum::not_equal(&a, 0.0)?;
        let want = cuprum::where_(&nz, &cuprum::true_divide(1.0, &a)?, 0.0)?.astype(dt)?.t();
        assert!(cuprum::array_equal(&x, &want)?, "{dt}: 12289, a permuted diagonal: the permutation in global memory");
    }
    Ok(())
}
per_dtype!(inv_route: linalg_inv_route_f32 => Float32, linalg_inv_route_f64 => Float64, linalg_inv_route_c64 => Complex64, linalg_inv_route_c128 => Complex128);
