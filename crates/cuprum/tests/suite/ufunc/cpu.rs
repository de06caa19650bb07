//! The CPU backend's typed elementwise loops (issue 12): every same-typed arithmetic and
//! comparison op on every native dtype and on views (contiguous, transposed, reversed,
//! strided, broadcast scalars, in place) against a host reference computed element by element
//! in float64, bit for bit; the vectorised float32 `exp`/`log`/`sin`/`cos` within one ulp; and
//! results that do not depend on the number of threads.

use crate::common::{random, Rng};
use cuprum::{s, Array, BinaryOp, DType, Device, UnaryOp};

/// A host reference function.
type HostFn = fn(f64) -> f64;

/// The vectorised float functions and their float64 references.
const VMATH: [(UnaryOp, HostFn); 5] = [
    (UnaryOp::Exp, f64::exp),
    (UnaryOp::Log, f64::ln),
    (UnaryOp::Sin, f64::sin),
    (UnaryOp::Cos, f64::cos),
    (UnaryOp::Tanh, f64::tanh),
];

/// The typed loops' dtypes: every dtype but bool (float16 computes through float32, as NumPy's
/// loops).
fn native() -> impl Iterator<Item = DType> {
    cuprum::dtype::REAL_DTYPES.into_iter().filter(|&d| d != DType::Bool)
}

/// Bits of float64 values for exact comparison (NaNs as one).
fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| if x.is_nan() { f64::NAN.to_bits() } else { x.to_bits() }).collect()
}

/// The host reference of a binary op on values (as float64) of dtype `dt`; `None` when the op
/// is not tested on `dt`. Integer inputs are small (|x| < 100), so no integer op wraps.
fn reference(op: BinaryOp, dt: DType, x: f64, y: f64) -> Option<f64> {
    use BinaryOp::*;
    let b = |c: bool| c as i64 as f64;
    let float = dt.is_float();
    Some(match op {
        Add => x + y,
        Subtract => x - y,
        Multiply => x * y,
        TrueDivide if float => x / y,
        Maximum => {
            if x >= y || x.is_nan() {
                x
            } else {
                y
            }
        }
        Minimum => {
            if x <= y || x.is_nan() {
                x
            } else {
                y
            }
        }
        Fmax => {
            if x >= y || y.is_nan() {
                x
            } else {
                y
            }
        }
        Fmin => {
            if x <= y || y.is_nan() {
                x
            } else {
                y
            }
        }
        Equal => b(x == y),
        NotEqual => b(x != y),
        Less => b(x < y),
        LessEqual => b(x <= y),
        Greater => b(x > y),
        GreaterEqual => b(x >= y),
        BitwiseAnd if !float => (x as i64 & y as i64) as f64,
        BitwiseOr if !float => (x as i64 | y as i64) as f64,
        BitwiseXor if !float => (x as i64 ^ y as i64) as f64,
        _ => return None,
    })
}

const BINARY: [BinaryOp; 17] = [
    BinaryOp::Add,
    BinaryOp::Subtract,
    BinaryOp::Multiply,
    BinaryOp::TrueDivide,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::Fmax,
    BinaryOp::Fmin,
    BinaryOp::Equal,
    BinaryOp::NotEqual,
    BinaryOp::Less,
    BinaryOp::LessEqual,
    BinaryOp::Greater,
    BinaryOp::GreaterEqual,
    BinaryOp::BitwiseAnd,
    BinaryOp::BitwiseOr,
    BinaryOp::BitwiseXor,
];

/// Checks `op(a, b)` against the host reference, bit for bit.
fn check_binary(op: BinaryOp, dt: DType, a: &Array, b: &Array, what: &str) {
    let got = cuprum::ufunc::binary(op, a, b).unwrap();
    let cmp = matches!(
        op,
        BinaryOp::Equal
            | BinaryOp::NotEqual
            | BinaryOp::Less
            | BinaryOp::LessEqual
            | BinaryOp::Greater
            | BinaryOp::GreaterEqual
    );
    assert_eq!(got.dtype(), if cmp { DType::Bool } else { dt }, "{op:?} {dt} {what}");
    let shape = got.shape().to_vec();
    let (x, y) = (a.broadcast_to(&shape).unwrap(), b.broadcast_to(&shape).unwrap());
    let (x, y) = (x.to_vec_as::<f64>().unwrap(), y.to_vec_as::<f64>().unwrap());
    let want: Vec<f64> = x.iter().zip(&y).map(|(&x, &y)| reference(op, dt, x, y).unwrap()).collect();
    // Rounded to the result dtype as NumPy stores it.
    let want = cuprum::from_slice(&want, &shape, &Device::Cpu).unwrap().astype(got.dtype()).unwrap();
    assert_eq!(bits(&got.to_vec_as::<f64>().unwrap()), bits(&want.to_vec_as::<f64>().unwrap()), "{op:?} {dt} {what}");
}

cpu_test!(typed_binary_loops_match_the_reference);
fn typed_binary_loops_match_the_reference() {
    let mut rng = Rng::new(0xE1);
    for dt in native() {
        // 2500 elements: runs longer than one chunk (1024) and a ragged tail.
        let a = random(&[50, 50], dt, &mut rng, true);
        let b = random(&[50, 50], dt, &mut rng, true);
        let row = random(&[50], dt, &mut rng, true);
        let sc = random(&[], dt, &mut rng, false);
        let rev = a.slice(s![..;-1, ..;-1]).unwrap();
        let strided = b.slice(s![..;2, 1..;2]).unwrap();
        let views: Vec<(&str, Array, Array)> = vec![
            ("contiguous", a.view(), b.view()),
            ("transposed", a.t(), b.view()),
            ("reversed", rev.clone(), b.view()),
            ("strided", strided.clone(), a.slice(s![..25, ..25]).unwrap()),
            ("row broadcast", a.view(), row.view()),
            ("scalar right", a.view(), sc.view()),
            ("scalar left", sc.view(), rev.clone()),
            ("both scalar", sc.view(), sc.view()),
        ];
        for op in BINARY {
            if reference(op, dt, 1.0, 1.0).is_none() {
                continue;
            }
            for (what, x, y) in &views {
                check_binary(op, dt, x, y, what);
            }
        }
    }
}

cpu_test!(typed_integer_loops_wrap);
fn typed_integer_loops_wrap() {
    let i8s = cuprum::from_slice(&[100i8, -128, 127], &[3], &Device::Cpu).unwrap();
    assert_eq!((&i8s + &i8s).unwrap().to_vec::<i8>().unwrap(), vec![-56, 0, -2]);
    assert_eq!((&i8s * &i8s).unwrap().to_vec::<i8>().unwrap(), vec![16, 0, 1]);
    assert_eq!(i8s.negative().unwrap().to_vec::<i8>().unwrap(), vec![-100, -128, -127]);
    assert_eq!(i8s.abs().unwrap().to_vec::<i8>().unwrap(), vec![100, -128, 127]);
    let u8s = cuprum::from_slice(&[200u8, 0, 1], &[3], &Device::Cpu).unwrap();
    assert_eq!((&u8s * 2u8).unwrap().to_vec::<u8>().unwrap(), vec![144, 0, 2]);
    assert_eq!((&u8s - 1u8).unwrap().to_vec::<u8>().unwrap(), vec![199, 255, 0]);
    let i64s = cuprum::from_slice(&[i64::MAX, i64::MIN], &[2], &Device::Cpu).unwrap();
    assert_eq!((&i64s + 1).unwrap().to_vec::<i64>().unwrap(), vec![i64::MIN, i64::MIN + 1]);
    let u64s = cuprum::from_slice(&[u64::MAX, 3], &[2], &Device::Cpu).unwrap();
    assert_eq!(
        u64s.less(cuprum::from_slice(&[1u64, 4], &[2], &Device::Cpu).unwrap()).unwrap().to_vec::<bool>().unwrap(),
        vec![false, true]
    );
}

cpu_test!(typed_unary_loops_match_the_reference);
fn typed_unary_loops_match_the_reference() {
    let mut rng = Rng::new(0xE2);
    for dt in native() {
        let a = random(&[40, 70], dt, &mut rng, true);
        for (what, x) in
            [("contiguous", a.view()), ("transposed", a.t()), ("strided", a.slice(s![..;-3, 1..;2]).unwrap())]
        {
            let v = x.to_vec_as::<f64>().unwrap();
            let mut ops: Vec<(UnaryOp, HostFn)> = vec![
                (UnaryOp::Negative, |v| -v),
                (UnaryOp::Positive, |v| v),
                (UnaryOp::Absolute, f64::abs),
                (UnaryOp::Square, |v| v * v),
            ];
            if dt.is_float() {
                ops.extend([
                    (UnaryOp::Sqrt, f64::sqrt as fn(f64) -> f64),
                    (UnaryOp::Reciprocal, |v| 1.0 / v),
                    (UnaryOp::Floor, f64::floor),
                    (UnaryOp::Ceil, f64::ceil),
                    (UnaryOp::Trunc, f64::trunc),
                    (UnaryOp::Rint, f64::round_ties_even),
                ]);
            }
            for (op, f) in ops {
                if dt.is_unsigned_int() && op == UnaryOp::Negative {
                    continue;
                }
                let got = cuprum::ufunc::unary(op, &x).unwrap();
                let want: Vec<f64> = v.iter().map(|&v| f(v)).collect();
                let want = cuprum::from_slice(&want, x.shape(), &Device::Cpu).unwrap().astype(dt).unwrap();
                assert_eq!(
                    bits(&got.to_vec_as::<f64>().unwrap()),
                    bits(&want.to_vec_as::<f64>().unwrap()),
                    "{op:?} {dt} {what}"
                );
            }
        }
    }
}

cpu_test!(vectorised_f32_math_within_one_ulp);
/// float32 exp/log/sin/cos/tanh (vectorised) within one float32 ulp of float64 std's values, on
/// arguments over the whole range, through views too.
fn vectorised_f32_math_within_one_ulp() {
    let mut v: Vec<f32> = (0..20_000).map(|i| -100.0 + i as f32 * 0.01).collect();
    v.extend([
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-45,
        1e-40,
        1e30,
        -1e30,
        3.0e5,
        6.0e5,
        88.72,
        88.73,
        -103.9,
    ]);
    let x = cuprum::from_slice(&v, &[v.len()], &Device::Cpu).unwrap();
    let xr = x.slice(s![..;-1]).unwrap();
    for (op, f) in VMATH {
        for (what, x) in [("contiguous", &x), ("reversed", &xr)] {
            let got = cuprum::ufunc::unary(op, x).unwrap();
            assert_eq!(got.dtype(), DType::Float32);
            for (&a, &g) in x.to_vec::<f32>().unwrap().iter().zip(&got.to_vec::<f32>().unwrap()) {
                let w = f(a as f64);
                let wf = w as f32;
                if wf.is_nan() || wf.is_infinite() || wf == 0.0 {
                    assert!(
                        g.to_bits() == wf.to_bits() || (g.is_nan() && wf.is_nan()),
                        "{op:?}({a:e}) {what}: {g:e}, want {wf:e}"
                    );
                    continue;
                }
                let m = wf.abs().max(f32::MIN_POSITIVE);
                let ulp = (f32::from_bits(m.to_bits() + 1) - m) as f64;
                assert!(((g as f64) - w).abs() <= ulp, "{op:?}({a:e}) {what}: {g:e}, want {w:e}");
            }
        }
    }
}

cpu_test!(float16_math_through_float32_within_one_ulp);
/// float16 exp/log/sin/cos/tanh go through the float32 functions (as NumPy's float16 loops):
/// within one float16 ulp of float64 std's values on every finite float16 argument.
fn float16_math_through_float32_within_one_ulp() {
    let v: Vec<half::f16> = (0u16..=u16::MAX).map(half::f16::from_bits).collect();
    let x = cuprum::from_slice(&v, &[v.len()], &Device::Cpu).unwrap();
    for (op, f) in VMATH {
        let got = cuprum::ufunc::unary(op, &x).unwrap();
        assert_eq!(got.dtype(), DType::Float16);
        for (&a, &g) in v.iter().zip(&got.to_vec::<half::f16>().unwrap()) {
            let w = f(a.to_f64());
            let wh = half::f16::from_f64(w);
            if wh.is_nan() || wh.is_infinite() || wh.to_f64() == 0.0 {
                let close = g.to_bits() == wh.to_bits()
                    || (g.is_nan() && wh.is_nan())
                    // Rounding near the overflow or underflow threshold: one step away.
                    || (g.to_bits() as i32 - wh.to_bits() as i32).abs() <= 1;
                assert!(close, "{op:?}({a}): {g}, want {wh}");
                continue;
            }
            let m = half::f16::from_bits(wh.to_bits() & 0x7fff).max(half::f16::MIN_POSITIVE);
            let ulp = half::f16::from_bits(m.to_bits() + 1).to_f64() - m.to_f64();
            assert!((g.to_f64() - w).abs() <= ulp, "{op:?}({a}): {g}, want {w}");
        }
    }
}

cpu_test!(float_power_is_c_pow_within_one_ulp);
/// float32/float16 `power` in the typed loops (C's `powf`, as NumPy's loops): within one ulp of
/// float64's `pow` on a grid of bases and exponents, special values (signed zeros, infinities,
/// NaN, negative bases with integral and fractional exponents) exactly as `pow`.
fn float_power_is_c_pow_within_one_ulp() {
    let mut base: Vec<f64> = (0..400).map(|i| -20.0 + i as f64 * 0.1).collect();
    base.extend([0.0, -0.0, 1.0, -1.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-30, 3e30]);
    let mut expo: Vec<f64> = (0..60).map(|i| -6.0 + i as f64 * 0.25).collect();
    expo.extend([0.0, -0.0, 0.5, -0.5, 1.0 / 3.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 40.0, -40.0]);
    let (nb, ne) = (base.len(), expo.len());
    for dt in [DType::Float32, DType::Float16] {
        let b = cuprum::from_slice(&base, &[nb, 1], &Device::Cpu).unwrap().astype(dt).unwrap();
        let e = cuprum::from_slice(&expo, &[1, ne], &Device::Cpu).unwrap().astype(dt).unwrap();
        let got = cuprum::ufunc::binary(BinaryOp::Power, &b, &e).unwrap();
        assert_eq!(got.dtype(), dt);
        let got = got.to_vec_as::<f64>().unwrap();
        let (bv, ev) = (b.to_vec_as::<f64>().unwrap(), e.to_vec_as::<f64>().unwrap());
        for i in 0..nb {
            for j in 0..ne {
                let (x, y, g) = (bv[i], ev[j], got[i * ne + j]);
                let w = x.powf(y);
                let wr = cuprum::from_slice(&[w], &[1], &Device::Cpu)
                    .unwrap()
                    .astype(dt)
                    .unwrap()
                    .to_vec_as::<f64>()
                    .unwrap()[0];
                if !wr.is_finite() || wr == 0.0 {
                    let same = (g.is_nan() && wr.is_nan()) || g.to_bits() == wr.to_bits();
                    // Rounding at the overflow and underflow edges may land one step away.
                    let edge = g.is_finite() != wr.is_finite() || (g == 0.0) != (wr == 0.0);
                    assert!(same || edge, "{dt} {x}**{y}: {g}, want {wr}");
                    continue;
                }
                let ulp = if dt == DType::Float32 {
                    let m = (wr.abs() as f32).max(f32::MIN_POSITIVE);
                    (f32::from_bits(m.to_bits() + 1) - m) as f64
                } else {
                    let m = half::f16::from_f64(wr.abs()).max(half::f16::MIN_POSITIVE);
                    half::f16::from_bits(m.to_bits() + 1).to_f64() - m.to_f64()
                };
                assert!((g - w).abs() <= ulp, "{dt} {x}**{y}: {g}, want {w}");
            }
        }
    }
}

cpu_test!(typed_loops_in_place);
/// In-place operations (the output is an input) and overlapping views (copied first).
fn typed_loops_in_place() {
    let n = 5000;
    let host: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let mut a = cuprum::from_slice(&host, &[n], &Device::Cpu).unwrap();
    let me = a.view();
    a.mul_assign(&me).unwrap();
    a.sub_assign(1.0).unwrap();
    assert_eq!(a.to_vec::<f32>().unwrap(), host.iter().map(|v| v * v - 1.0).collect::<Vec<_>>());
    let mut b = cuprum::arange(n as i64, &Device::Cpu).unwrap();
    let src = b.slice(s![..-1]).unwrap();
    let mut dst = b.slice(s![1..]).unwrap();
    cuprum::add_out(dst.view(), &src, &mut dst).unwrap();
    let got = b.to_vec::<i64>().unwrap();
    assert_eq!(got[0], 0);
    assert!((1..n).all(|i| got[i] == (2 * i - 1) as i64), "{:?}", &got[..5]);
    let me = b.view();
    b.add_assign(&me).unwrap();
    assert_eq!(b.to_vec::<i64>().unwrap()[n - 1], 2 * (2 * n as i64 - 3));
}

cpu_test!(results_do_not_depend_on_threads);
/// The same operations with a 1-thread rayon pool and with the default pool give the same bits
/// (sizes above every threading threshold; typed, vectorised and generic loops; views).
fn results_do_not_depend_on_threads() {
    let mut rng = Rng::new(0xE3);
    let f = random(&[700, 900], DType::Float32, &mut rng, true);
    let d = random(&[700, 900], DType::Float64, &mut rng, true);
    let i = random(&[700, 900], DType::Int64, &mut rng, false);
    let run = || -> Vec<Vec<f64>> {
        let outs: Vec<Array> = vec![
            (&f - 1.0).unwrap(),
            (&f * &f).unwrap(),
            (&f.t() * &f.t()).unwrap(),
            f.sin().unwrap(),
            f.cos().unwrap(),
            f.exp().unwrap(),
            f.log().unwrap(),
            f.tanh().unwrap(),
            cuprum::power(&f, 1.5).unwrap(),
            f.slice(s![..;-1, ..;3]).unwrap().exp().unwrap(),
            d.sin().unwrap(),
            (&d / &d.t().copy().unwrap().reshape([700, 900]).unwrap()).unwrap(),
            f.less(0.5).unwrap(),
            (&i - &i.slice(s![..;-1, ..]).unwrap()).unwrap(),
            (&i * 3).unwrap(),
            i.astype(DType::Float32).unwrap(),
        ];
        outs.iter().map(|o| o.to_vec_as::<f64>().unwrap()).collect()
    };
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(run);
    let many = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap().install(run);
    let default = run();
    for (k, ((a, b), c)) in one.iter().zip(&many).zip(&default).enumerate() {
        assert_eq!(bits(a), bits(b), "case {k}: 1 thread vs 4");
        assert_eq!(bits(a), bits(c), "case {k}: 1 thread vs the default pool");
    }
}
