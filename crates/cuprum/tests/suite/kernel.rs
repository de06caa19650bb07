//! `cuprum::kernel`: user kernels written in Rust. `#[cuprum::vectorize]` functions against
//! their own Rust scalar function (the CPU loops call it: exactly), the GPU against the CPU on
//! fresh random inputs (views, broadcasting, scalars, 0-d, empty; every method of the subset
//! within the math functions' tolerance, integers exactly with Rust's wrapping and division by
//! zero giving 0), NumPy's loop search, `out=`, and the errors.

use crate::common::{assert_close, on, random, Rng};
use cuprum::{Array, DType, Device, ErrorKind};

/// The lesson's Gaussian PDF, for float32 and float64 (the f64 loop is the same body with
/// `f32` read as `f64`, its constant included).
#[cuprum::vectorize(f32(f32, f32, f32), f64(f64, f64, f64))]
fn gaussian_pdf(x: f32, mean: f32, sigma: f32) -> f32 {
    const SQRT_2PI: f32 = 2.506_628_274_631_000_5;
    (-0.5 * ((x - mean) / sigma).powi(2)).exp() / (sigma * SQRT_2PI)
}

#[cuprum::device]
fn sq(x: f32) -> f32 {
    x * x
}

/// The lesson's polar distance, calling a device function.
#[cuprum::vectorize(f32(f32, f32, f32, f32))]
fn polar_distance(rho1: f32, theta1: f32, rho2: f32, theta2: f32) -> f32 {
    let (x1, y1) = (rho1 * theta1.cos(), rho1 * theta1.sin());
    let (x2, y2) = (rho2 * theta2.cos(), rho2 * theta2.sin());
    (sq(x1 - x2) + sq(y1 - y2)).sqrt()
}

/// The lesson's prime test by trial division.
#[cuprum::vectorize(bool(i32), bool(i64))]
fn is_prime(n: i32) -> bool {
    if n < 2 {
        return false;
    }
    let mut i = 2;
    while i * i <= n {
        if n % i == 0 {
            return false;
        }
        i += 1;
    }
    true
}

#[cuprum::device]
const BIAS: i64 = 3;

/// Integer operators with Rust's wrapping semantics, division by zero giving 0, shifts with
/// masked counts, casts, a `match`, a module constant.
#[allow(clippy::precedence)]
#[cuprum::vectorize(i8(i8, i8), u16(u16, u16), i32(i32, i32), i64(i64, i64), u64(u64, u64))]
fn int_ops(a: i32, b: i32) -> i32 {
    let q = a / b + a % b;
    let w = a.wrapping_mul(b) - (a << (b & 15)) + (-a >> 1);
    let k = match (a as i64 + BIAS) % 5 {
        0 => q,
        1 | 2 => w,
        -4..=-1 => q ^ w,
        _ => a * b,
    };
    k + (b as f32 * 0.5) as i32 + (a >= b) as i32
}

/// Every float method of the subset, picked by `k` (two-argument ones with `y`).
#[cuprum::vectorize(f32(f32, f32, i32), f64(f64, f64, i32))]
fn methods(x: f64, y: f64, k: i32) -> f64 {
    match k {
        0 => x.abs(),
        1 => x.sqrt(),
        2 => x.cbrt(),
        3 => x.exp(),
        4 => x.exp2(),
        5 => x.exp_m1(),
        6 => x.ln(),
        7 => x.ln_1p(),
        8 => x.log2(),
        9 => x.log10(),
        10 => x.log(y.abs() + 1.5),
        11 => x.powi(3),
        12 => x.abs().powf(y),
        13 => x.sin(),
        14 => x.cos(),
        15 => x.tan(),
        16 => (x * 0.25).asin(),
        17 => (x * 0.25).acos(),
        18 => x.atan(),
        19 => x.atan2(y),
        20 => x.sinh(),
        21 => x.cosh(),
        22 => x.tanh(),
        23 => x.hypot(y),
        24 => x.floor(),
        25 => x.ceil(),
        26 => x.round(),
        27 => x.trunc(),
        28 => x.fract(),
        29 => x.signum(),
        30 => x.recip(),
        31 => x.to_degrees(),
        32 => x.to_radians(),
        33 => x.min(y),
        34 => x.max(y),
        35 => x.clamp(-1.0, 2.0),
        36 => x.mul_add(y, 0.5),
        37 => x.is_nan() as i32 as f64 + 2.0 * x.is_infinite() as i32 as f64 + 4.0 * x.is_finite() as i32 as f64,
        38 => x.is_sign_negative() as i32 as f64,
        39 => x % y,
        40 => {
            let mut s = 0.0;
            for i in (1..=5).rev() {
                s += x / i as f64;
            }
            s
        }
        _ => x * y - x / y,
    }
}

/// The number of methods `methods` selects (its `k` in `0..N_METHODS`).
const N_METHODS: i32 = 42;

/// The ulps a method may differ by between the devices (CUDA's and the platform's libm):
/// exact for the correctly rounded ones.
fn method_rtol(k: i32, dt: DType) -> f64 {
    let exact = matches!(k, 0 | 1 | 24..=39 | 41);
    let ulp = if dt == DType::Float32 { f32::EPSILON as f64 } else { f64::EPSILON };
    if exact {
        0.0
    } else {
        8.0 * ulp
    }
}

fn host<T: cuprum::Element>(a: &Array) -> Vec<T> {
    a.to_device(&Device::Cpu).unwrap().to_vec::<T>().unwrap()
}

cpu_test!(cpu_results_are_the_rust_functions);
/// The CPU loops compute exactly what the Rust function computes, element by element, over
/// broadcast views and scalars.
fn cpu_results_are_the_rust_functions() {
    let mut rng = Rng::new(2000);
    let x = random(&[37, 41], DType::Float32, &mut rng, true);
    let xt = x.t(); // a transposed view
    let mean = random(&[41, 1], DType::Float32, &mut rng, false);
    let y = gaussian_pdf(&xt, &mean, 1.5f32).unwrap();
    assert_eq!((y.dtype(), y.shape()), (DType::Float32, &[41, 37][..]));
    let (xv, mv, yv) = (host::<f32>(&xt.copy().unwrap()), host::<f32>(&mean), host::<f32>(&y));
    for i in 0..41 {
        for j in 0..37 {
            let want = gaussian_pdf::scalar(xv[i * 37 + j], mv[i], 1.5);
            assert_eq!(yv[i * 37 + j].to_bits(), want.to_bits(), "gaussian_pdf at ({i}, {j})");
        }
    }
    // Rows of 100 with one mean a row (stride 0 along the run: the broadcast copies, in
    // pieces of 64 and a tail), and a scalar sigma.
    let x3 = random(&[3, 100], DType::Float32, &mut rng, true);
    let m3 = random(&[3, 1], DType::Float32, &mut rng, false);
    let y3 = gaussian_pdf(&x3, &m3, 0.75f32).unwrap();
    let (x3v, m3v, y3v) = (host::<f32>(&x3), host::<f32>(&m3), host::<f32>(&y3));
    for (i, (x, y)) in x3v.iter().zip(&y3v).enumerate() {
        assert_eq!(y.to_bits(), gaussian_pdf::scalar(*x, m3v[i / 100], 0.75).to_bits(), "row broadcast at {i}");
    }
    // The f64 loop for float64 inputs (a weak scalar keeps the array's dtype).
    let x64 = random(&[1000], DType::Float64, &mut rng, true);
    let y64 = gaussian_pdf(&x64, 0.25, 2.0).unwrap();
    assert_eq!(y64.dtype(), DType::Float64);
    for (a, b) in host::<f64>(&x64).iter().zip(host::<f64>(&y64)) {
        assert_eq!(gaussian_pdf::scalar_1(*a, 0.25, 2.0).to_bits(), b.to_bits());
    }
    let primes = is_prime(&cuprum::arange(30i64, &Device::Cpu).unwrap()).unwrap();
    let p: Vec<bool> = host(&primes);
    let got: Vec<usize> = (0..30).filter(|&i| p[i]).collect();
    assert_eq!(got, [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]);
    // All scalars: a 0-d array on the CPU.
    let z = polar_distance(1.0f32, 0.0f32, 1.0f32, std::f32::consts::FRAC_PI_2).unwrap();
    assert_eq!(z.shape(), &[] as &[usize]);
    assert!((z.item::<f32>().unwrap() - 2f32.sqrt()).abs() < 1e-6);
}

cpu_test!(float32_exp_is_the_ufuncs);
/// A float32 `x.exp()` in a kernel body is what `cuprum::exp` gives a float32 array on the CPU
/// (the vectorisable one, within 1 ulp), specials included; float64's is std's.
fn float32_exp_is_the_ufuncs() {
    let mut rng = Rng::new(2001);
    let mut xs =
        host::<f32>(&random(&[5000], DType::Float32, &mut rng, true)).iter().map(|v| v * 40.0).collect::<Vec<f32>>();
    xs.extend([0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 88.7, 89.0, -103.9, -104.0, 1e-45]);
    let x = cuprum::from_vec(xs.clone(), &Device::Cpu).unwrap();
    let got = host::<f32>(&methods(&x, &x, 3i32).unwrap());
    let want = host::<f32>(&cuprum::exp(&x).unwrap());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()), "exp({:e}): {g:e}, the ufunc {w:e}", xs[i]);
        // Within 1 ulp of float64's exp rounded to float32 (exp is positive: adjacent bits).
        let exact = (xs[i] as f64).exp() as f32;
        assert!(g.is_nan() || g.to_bits().abs_diff(exact.to_bits()) <= 1, "exp({:e}) = {g:e}, want {exact:e}", xs[i]);
    }
    let x64 = random(&[1000], DType::Float64, &mut rng, true);
    let got = host::<f64>(&methods(&x64, &x64, 3i32).unwrap());
    for (a, g) in host::<f64>(&x64).iter().zip(&got) {
        assert_eq!(g.to_bits(), a.exp().to_bits());
    }
}

cpu_test!(integers_wrap_and_divide_by_zero_to_zero);
/// Integer semantics on the CPU (the GPU is compared with it below): no panic in any build.
fn integers_wrap_and_divide_by_zero_to_zero() {
    assert_eq!(int_ops::scalar_2(7, 0), {
        let (a, b) = (7i32, 0i32);
        let q = 0; // 7 / 0 and 7 % 0
        let w = a.wrapping_mul(b) - (a << (b & 15)) + (-a >> 1);
        let k = match (a as i64 + 3) % 5 {
            0 => q,
            1 | 2 => w,
            -4..=-1 => q ^ w,
            _ => a * b,
        };
        k + (a >= b) as i32
    });
    // i8::MIN / -1 wraps; 127 * 2 wraps; nothing panics.
    let _ = int_ops::scalar(i8::MIN, -1);
    let _ = int_ops::scalar(127, 127);
    let a = cuprum::from_slice(&[i8::MIN, 127, -128, 5, 0], &[5], &Device::Cpu).unwrap();
    let r = int_ops(&a, -1i8).unwrap();
    assert_eq!(r.dtype(), DType::Int8);
    let want: Vec<i8> = [i8::MIN, 127, -128, 5, 0].iter().map(|&v| int_ops::scalar(v, -1)).collect();
    assert_eq!(host::<i8>(&r), want);
}

cpu_test!(loop_search_and_errors);
/// NumPy's loop search (the first signature the inputs cast to safely; weak scalars), `out=`
/// with a same-kind cast and in place, and the errors of a ufunc.
fn loop_search_and_errors() {
    let cpu = Device::Cpu;
    let i16a = cuprum::from_slice(&[1i16, -2, 3], &[3], &cpu).unwrap();
    // int16 -> int32 (safe): the first loop.
    assert_eq!(int_ops(&i16a, 2).unwrap().dtype(), DType::Int32);
    // uint32 -> int64 (the first safe one).
    let u32a = cuprum::from_slice(&[1u32, 2, 3], &[3], &cpu).unwrap();
    assert_eq!(int_ops(&u32a, 1).unwrap().dtype(), DType::Int64);
    // int8 with a weak int that fits int8: the int8 loop; one that does not: the next loop
    // (int8 casts to int32 safely).
    let i8a = cuprum::from_slice(&[1i8, 2], &[2], &cpu).unwrap();
    assert_eq!(int_ops(&i8a, 1).unwrap().dtype(), DType::Int8);
    assert_eq!(int_ops(&i8a, 1000).unwrap().dtype(), DType::Int32);
    // float32 array with an int scalar: the float32 loop.
    let f = cuprum::from_slice(&[0.5f32, 1.0], &[2], &cpu).unwrap();
    assert_eq!(gaussian_pdf(&f, 0, 1).unwrap().dtype(), DType::Float32);
    // int64 array: float64 (int64 -> float32 is not safe).
    let i = cuprum::arange(4i64, &cpu).unwrap();
    assert_eq!(gaussian_pdf(&i, 0.0, 1.0).unwrap().dtype(), DType::Float64);
    // No loop: a float array into is_prime is a TypeError, as NumPy's.
    let e = is_prime(&f).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TypeError, "{e}");
    assert!(e.to_string().contains("ufunc 'is_prime' not supported for the input types"), "{e}");
    // A float scalar cannot go to an integer loop.
    assert_eq!(int_ops(&i16a, 1.5).unwrap_err().kind(), ErrorKind::TypeError);
    // The wrong number of arguments (through the ufunc object).
    let e = gaussian_pdf::ufunc().call(&[(&f).into()]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TypeError);
    assert!(e.to_string().contains("takes 3 positional arguments but 1 were given"), "{e}");
    // Shapes that do not broadcast.
    let g = cuprum::zeros(&[3], DType::Float32, &cpu).unwrap();
    assert_eq!(gaussian_pdf(&f, &g, 1.0).unwrap_err().kind(), ErrorKind::ValueError);
    // out=: float32 results cast into float64 (same kind); into int32 is a TypeError.
    let mut o = cuprum::zeros(&[2], DType::Float64, &cpu).unwrap();
    gaussian_pdf::out(&f, 0.0, 1.0, &mut o).unwrap();
    let want = gaussian_pdf(&f, 0.0, 1.0).unwrap().astype(DType::Float64).unwrap();
    assert_eq!(host::<f64>(&o), host::<f64>(&want));
    let mut oi = cuprum::zeros(&[2], DType::Int32, &cpu).unwrap();
    assert_eq!(gaussian_pdf::out(&f, 0.0, 1.0, &mut oi).unwrap_err().kind(), ErrorKind::TypeError);
    // out= of the wrong shape.
    let mut o3 = cuprum::zeros(&[3], DType::Float32, &cpu).unwrap();
    assert_eq!(gaussian_pdf::out(&f, 0.0, 1.0, &mut o3).unwrap_err().kind(), ErrorKind::ValueError);
    // In place, reading a shifted view of itself (NumPy's overlap rule: the old values).
    let mut x = cuprum::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4], &cpu).unwrap();
    let before = host::<f32>(&x);
    let shifted = x.slice(cuprum::s![..;-1]).unwrap();
    gaussian_pdf::out(&shifted, 0.0, 1.0, &mut x).unwrap();
    let got = host::<f32>(&x);
    for k in 0..4 {
        assert_eq!(got[k], gaussian_pdf::scalar(before[3 - k], 0.0, 1.0));
    }
    // Empty inputs give empty outputs.
    let e0 = cuprum::zeros(&[0, 3], DType::Float32, &cpu).unwrap();
    assert_eq!(gaussian_pdf(&e0, 0.0, 1.0).unwrap().shape(), &[0, 3]);
}

gpu_test!(gpu_matches_cpu, |gpu| {
    let mut rng = Rng::new(2001);
    for trial in 0..3 {
        let n = [1, 7, 1000, 4099, 100_003][(rng.next_u64() % 5) as usize] + trial;
        // gaussian_pdf f32/f64: contiguous, a strided view, broadcast rows, scalars.
        for dt in [DType::Float32, DType::Float64] {
            let x = random(&[n], dt, &mut rng, true);
            let m = random(&[3, 1], dt, &mut rng, false);
            let s = random(&[n], dt, &mut rng, false).abs().unwrap();
            let rt = if dt == DType::Float32 { 4e-6 } else { 1e-14 };
            let (c, g) = (gaussian_pdf(&x, 0.5, 2.0)?, gaussian_pdf(&on(&gpu, &x), 0.5, 2.0)?);
            assert_eq!(g.device(), gpu);
            assert_close(&g, &c, rt, &format!("gaussian_pdf {dt} n={n}"));
            let (c, g) = (gaussian_pdf(&x, &m, &s)?, gaussian_pdf(&on(&gpu, &x), &on(&gpu, &m), &on(&gpu, &s))?);
            assert_close(&g, &c, rt, &format!("gaussian_pdf broadcast {dt} n={n}"));
            let xs = x.slice(cuprum::s![..;3])?;
            let (c, g) = (
                gaussian_pdf(&xs, &m, 1.25)?,
                gaussian_pdf(&on(&gpu, &x).slice(cuprum::s![..;3])?, &on(&gpu, &m), 1.25)?,
            );
            assert_close(&g, &c, rt, &format!("gaussian_pdf strided {dt} n={n}"));
        }
        // polar_distance (4 inputs, a device function): the lesson's tolerance.
        let a: Vec<Array> = (0..4).map(|_| random(&[n], DType::Float32, &mut rng, false)).collect();
        let c = polar_distance(&a[0], &a[1], &a[2], &a[3])?;
        let ga: Vec<Array> = a.iter().map(|x| on(&gpu, x)).collect();
        let g = polar_distance(&ga[0], &ga[1], &ga[2], &ga[3])?;
        let (cv, gv) = (host::<f32>(&c), host::<f32>(&g));
        for i in 0..n {
            let (x, y) = (gv[i] as f64, cv[i] as f64);
            assert!((x - y).abs() <= 5e-7 + 1e-7 * y.abs() * 10.0, "polar_distance {i}: {x} vs {y}");
        }
        // is_prime: exact, both loops.
        for dt in [DType::Int32, DType::Int64] {
            let v = cuprum::arange(n as i64, &Device::Cpu)?.astype(dt)?;
            assert_eq!(host::<bool>(&is_prime(&on(&gpu, &v))?), host::<bool>(&is_prime(&v)?), "is_prime {dt}");
        }
        // Integer semantics: exact, every loop, with zeros, -1 and extremes among the inputs.
        for dt in [DType::Int8, DType::Int32, DType::UInt16, DType::Int64, DType::UInt64] {
            let (lo, hi) = match dt {
                DType::Int8 => (-128i64, 127i64),
                DType::UInt16 => (0, 65535),
                DType::UInt64 | DType::Int64 | DType::Int32 => (-1000, 1000),
                _ => unreachable!(),
            };
            let draw = |rng: &mut Rng| -> Vec<i64> {
                (0..n)
                    .map(|_| match rng.next_u64() % 6 {
                        0 => 0,
                        1 => -1,
                        2 => lo,
                        3 => hi,
                        _ => lo + (rng.next_u64() % (hi - lo + 1) as u64) as i64,
                    })
                    .collect()
            };
            let mk = |v: Vec<i64>| cuprum::from_slice(&v, &[n], &Device::Cpu).unwrap().astype(dt).unwrap();
            let (x, y) = (mk(draw(&mut rng)), mk(draw(&mut rng)));
            let (c, g) = (int_ops(&x, &y)?, int_ops(&on(&gpu, &x), &on(&gpu, &y))?);
            assert_eq!(c.dtype(), dt);
            let (gv, cv) = (host::<i64>(&g.astype(DType::Int64)?), host::<i64>(&c.astype(DType::Int64)?));
            if let Some(i) = (0..n).find(|&i| gv[i] != cv[i]) {
                let (xv, yv) = (host::<i64>(&x.astype(DType::Int64)?), host::<i64>(&y.astype(DType::Int64)?));
                panic!("int_ops {dt} n={n} at {i}: int_ops({}, {}): GPU {}, CPU {}", xv[i], yv[i], gv[i], cv[i]);
            }
        }
        // Every method, both float types, within its tolerance.
        for dt in [DType::Float32, DType::Float64] {
            let x = random(&[n], dt, &mut rng, true);
            let y = random(&[n], dt, &mut rng, true);
            for k in 0..N_METHODS {
                let c = methods(&x, &y, k)?;
                let g = methods(&on(&gpu, &x), &on(&gpu, &y), k)?;
                assert_eq!(c.dtype(), dt);
                let rt = method_rtol(k, dt);
                let (cv, gv) = (host::<f64>(&c.astype(DType::Float64)?), host::<f64>(&g.astype(DType::Float64)?));
                for i in 0..n {
                    let (a, b) = (gv[i], cv[i]);
                    let ok =
                        (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= rt * b.abs().max(f64::MIN_POSITIVE);
                    assert!(ok, "method {k} {dt} at {i}: GPU {a:e}, CPU {b:e} (rtol {rt:e})");
                }
            }
        }
    }
    // 0-d and empty on the GPU.
    let z = cuprum::full(&[], 0.5f32, DType::Float32, &gpu)?;
    assert_eq!(gaussian_pdf(&z, 0.0, 1.0)?.item::<f32>()?, gaussian_pdf::scalar(0.5, 0.0, 1.0));
    assert_eq!(gaussian_pdf(&cuprum::zeros(&[0], DType::Float32, &gpu)?, 0.0, 1.0)?.shape(), &[0]);
    // out= on the GPU; arrays of two devices are an error.
    let x = on(&gpu, &random(&[100], DType::Float32, &mut rng, false));
    let mut o = cuprum::zeros(&[100], DType::Float64, &gpu)?;
    gaussian_pdf::out(&x, 0.0, 1.0, &mut o)?;
    assert_close(&o, &gaussian_pdf(&x, 0.0, 1.0)?.astype(DType::Float64)?, 0.0, "out= on the GPU");
    let cpu_m = cuprum::zeros(&[100], DType::Float32, &Device::Cpu)?;
    assert!(gaussian_pdf(&x, &cpu_m, 1.0).is_err());
    Ok(())
});

/// The float32 functions the GPU evaluates with its own reduction and polynomials (the
/// lessons' `exp`, `sin`, `cos`), each picked by `k`.
#[cuprum::vectorize(f32(f32, i32))]
fn exp_sin_cos(x: f32, k: i32) -> f32 {
    match k {
        0 => x.exp(),
        1 => x.sin(),
        _ => x.cos(),
    }
}

/// The ulps between two floats of one sign (0 where both are NaN or equal).
fn ulp_gap(a: f32, b: f32) -> i64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        0
    } else if a.is_nan() || b.is_nan() || a.is_sign_negative() != b.is_sign_negative() {
        i64::MAX
    } else {
        (a.to_bits() as i64 - b.to_bits() as i64).abs()
    }
}

gpu_test!(float32_exp_sin_cos_within_an_ulp_of_the_cpu, |gpu| {
    // Every sign and exponent: 2^21 bit patterns a fresh random stride apart over the whole
    // float32 range (NaN, inf, subnormals, the reduction's far range past 2^15), then random
    // values where the lessons' inputs lie.
    let mut rng = Rng::new(2007);
    let n = 1usize << 21;
    let stride = (u32::MAX as u64 / n as u64 - (rng.next_u64() % 64)) as u32;
    let start = (rng.next_u64() % stride as u64) as u32;
    let mut v: Vec<f32> = (0..n as u32).map(|i| f32::from_bits(start.wrapping_add(i.wrapping_mul(stride)))).collect();
    v.extend((0..n).map(|_| (rng.uniform() * 40.0 - 20.0) as f32));
    v.extend([0.0, -0.0, 88.72283, 88.7229, -87.33655, -103.97, -104.0, 32767.998, 32768.0, -32768.0, 1e-40]);
    let x = cuprum::from_slice(&v, &[v.len()], &Device::Cpu)?;
    let gx = on(&gpu, &x);
    let mut diffs = [0usize; 3];
    for k in 0..3 {
        let (c, g) = (host::<f32>(&exp_sin_cos(&x, k)?), host::<f32>(&exp_sin_cos(&gx, k)?));
        for i in 0..v.len() {
            assert_eq!(c[i].to_bits(), exp_sin_cos::scalar(v[i], k).to_bits(), "the CPU calls the Rust function");
            let gap = ulp_gap(g[i], c[i]);
            assert!(gap <= 1, "function {k} of {:e} ({:#x}): GPU {:e}, CPU {:e}", v[i], v[i].to_bits(), g[i], c[i]);
            diffs[k as usize] += (gap > 0) as usize;
        }
    }
    // glibc's float functions are within an ulp of the true value, ours closer: they differ
    // by one ulp at a few percent of the arguments at most.
    for (k, d) in diffs.iter().enumerate() {
        assert!(*d < v.len() / 20, "function {k}: {d} of {} differ by an ulp", v.len());
    }
    Ok(())
});

// ---------------------------------------------------------------- grid kernels

use cuprum::kernel::{atomic_add, atomic_max, grid, grid2, gridsize, shared, sync_threads, thread_idx};

/// The lesson's prime kernel: `check_prime_gpu_kernel[100, 100](result)`.
#[cuprum::kernel]
fn check_prime_kernel(result: &mut [i32]) {
    let num = grid(1);
    if num >= result.len() {
        return;
    }
    result[num] = 1;
    if num < 2 {
        result[num] = 0;
        return;
    }
    let mut i = 2;
    while i * i <= num {
        if num % i == 0 {
            result[num] = 0;
            return;
        }
        i += 1;
    }
}

#[cuprum::device]
fn sincos(x: f64) -> (f64, f64) {
    (x.sin(), x.cos())
}

/// A 2-d grid over a row-major image, a device function returning a tuple, a scalar.
#[cuprum::kernel]
fn rotate(img: &[f64], out: &mut [f64], width: usize, angle: f64) {
    let (x, y) = grid2();
    let h = img.len() / width;
    if x >= width || y >= h {
        return;
    }
    let (s, c) = sincos(angle);
    out[y * width + x] = img[y * width + x] * c - s;
}

/// Atomics: a histogram and a running maximum, with a grid-stride loop.
#[cuprum::kernel]
fn histogram(values: &[i64], counts: &mut [u32], top: &mut [i64]) {
    let mut i = grid(1);
    while i < values.len() {
        let v = values[i];
        let bin = ((v % 16 + 16) % 16) as usize % counts.len();
        atomic_add(counts, bin, 1);
        atomic_max(top, 0, v);
        i += gridsize(1);
    }
}

/// A block's sum through shared memory and barriers (GPU; the CPU runs it with one thread per
/// block, and refuses more).
#[cuprum::kernel]
fn block_sums(x: &[f32], sums: &mut [f32]) {
    let mut sm = shared::<f32, 256>();
    let t = thread_idx().x;
    let i = grid(1);
    sm[t] = if i < x.len() { x[i] } else { 0.0 };
    sync_threads();
    let mut stride = 128;
    while stride > 0 {
        if t < stride && t + stride < 256 {
            sm[t] += sm[t + stride];
        }
        sync_threads();
        stride /= 2;
    }
    if t == 0 {
        sums[cuprum::kernel::block_idx().x] = sm[0];
    }
}

/// Writes one past the end.
#[cuprum::kernel]
fn off_by_one(out: &mut [i32]) {
    let i = grid(1);
    if i <= out.len() {
        out[i] = 7;
    }
}

fn prime_reference(n: usize) -> Vec<i32> {
    (0..n).map(|k| is_prime::scalar_1(k as i64) as i32).collect()
}

/// Every grid kernel on `dev`: the lesson's prime kernel (`[100, 100]` over 10 000), a 2-d
/// grid, atomics, and the launch's errors.
fn grid_kernels(dev: &Device) -> cuprum::Result<()> {
    let mut result = cuprum::zeros(&[10_000], DType::Int32, dev)?;
    check_prime_kernel.launch((100, 100), (&mut result,))?;
    assert_eq!(host::<i32>(&result), prime_reference(10_000));
    // More threads than elements, and an unchecked launch.
    let mut r2 = cuprum::zeros(&[1001], DType::Int32, dev)?;
    check_prime_kernel.launch_unchecked((8, 256), (&mut r2,))?;
    assert_eq!(host::<i32>(&r2), prime_reference(1001));

    let mut rng = Rng::new(2002);
    let (w, h) = (37, 23);
    let img = on(dev, &random(&[h, w], DType::Float64, &mut rng, false));
    let mut out = cuprum::zeros(&[h, w], DType::Float64, dev)?;
    rotate.launch(((3, 4), (16, 8)), (&img, &mut out, w, 0.3))?;
    let (iv, ov) = (host::<f64>(&img), host::<f64>(&out));
    for k in 0..w * h {
        let want = iv[k] * 0.3f64.cos() - 0.3f64.sin();
        assert!((ov[k] - want).abs() <= 1e-15 * want.abs().max(1.0), "rotate {k}: {} vs {want}", ov[k]);
    }

    let vals = (random(&[50_000], DType::Int64, &mut rng, false) * 1000)?.astype(DType::Int64)?;
    let vals = on(dev, &vals);
    let mut counts = cuprum::zeros(&[16], DType::UInt32, dev)?;
    let mut top = cuprum::full(&[1], i64::MIN, DType::Int64, dev)?;
    histogram.launch((40, 128), (&vals, &mut counts, &mut top))?;
    let v = host::<i64>(&vals);
    let mut want = vec![0u32; 16];
    for &x in &v {
        want[((x % 16 + 16) % 16) as usize] += 1;
    }
    assert_eq!(host::<u32>(&counts), want);
    assert_eq!(host::<i64>(&top)[0], *v.iter().max().unwrap());

    // An index past the end is an IndexError naming the kernel, and nothing is corrupted.
    let mut small = cuprum::zeros(&[100], DType::Int32, dev)?;
    let e = off_by_one.launch((1, 128), (&mut small,)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::IndexError, "{e}");
    assert!(e.to_string().contains("off_by_one: index 100 is out of bounds for a slice of length 100"), "{e}");
    // The launch's errors.
    let mut f32s = cuprum::zeros(&[100], DType::Float32, dev)?;
    let ints_as_floats = check_prime_kernel.launch((1, 128), (&mut f32s,)).unwrap_err();
    assert_eq!(ints_as_floats.kind(), ErrorKind::TypeError, "{ints_as_floats}");
    let mut big = cuprum::zeros(&[10, 10], DType::Int32, dev)?;
    let mut strided = big.slice(cuprum::s![.., ..;2])?;
    assert_eq!(check_prime_kernel.launch((1, 64), (&mut strided,)).unwrap_err().kind(), ErrorKind::ValueError);
    assert_eq!(check_prime_kernel.launch((1, 2048), (&mut big,)).unwrap_err().kind(), ErrorKind::ValueError);
    assert_eq!(check_prime_kernel.launch((0, 32), (&mut big,)).unwrap_err().kind(), ErrorKind::ValueError);
    Ok(())
}

cases! { grid_kernels_gpu => grid_kernels }

/// `out = 2 * img.T` through 2-d views (any strides).
#[cuprum::kernel]
fn transpose_twice(img: View<f64, 2>, out: ViewMut<f64, 2>) {
    let (j, i) = cuprum::kernel::grid2();
    let (h, w) = out.dim();
    if i < h && j < w {
        out[(i, j)] = 2.0 * img[(j, i)];
    }
}

/// `y = k * x` over 1-d views.
#[cuprum::kernel]
fn scale_view(x: View<f32, 1>, y: ViewMut<f32, 1>, k: f32) {
    let i = cuprum::kernel::grid(1);
    if i < y.len() {
        y[i] = x[i] * k;
    }
}

/// Sums over the last axis of a 3-d view.
#[cuprum::kernel]
fn sum_last(v: View<i64, 3>, out: ViewMut<i64, 2>) {
    let (j, i) = cuprum::kernel::grid2();
    let (a, b, c) = v.dim();
    if i < a && j < b {
        let mut s = 0;
        for k in 0..c {
            s += v[(i, j, k)];
        }
        out[(i, j)] = s;
    }
}

/// Writes one row past the end.
#[cuprum::kernel]
fn row_past_the_end(out: ViewMut<i32, 2>) {
    let (j, i) = cuprum::kernel::grid2();
    if i <= out.nrows() && j < out.ncols() {
        out[(i, j)] = 1;
    }
}

/// N-d view parameters on `dev`: strided and transposed arrays, 1-, 2- and 3-d, `dim()`,
/// the IndexError of an index past a dimension (NumPy's words), and the launch's checks.
fn view_kernels(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(2004);
    let img = random(&[23, 37], DType::Float64, &mut rng, false);
    let g = on(dev, &img);
    let mut out = cuprum::zeros(&[37, 23], DType::Float64, dev)?;
    transpose_twice.launch(((3, 5), (8, 8)), (&g, &mut out))?;
    assert_close(&out, &(&img.t() * 2.0)?, 0.0, "transpose through views");
    // The input itself a transposed view: out = 2 * img.
    let mut out2 = cuprum::zeros(&[23, 37], DType::Float64, dev)?;
    transpose_twice.launch(((5, 3), (8, 8)), (&g.t(), &mut out2))?;
    assert_close(&out2, &(&img * 2.0)?, 0.0, "a transposed input");
    // Every other element, written into every third of a larger array.
    let x = random(&[100], DType::Float32, &mut rng, false);
    let xs = on(dev, &x).slice(cuprum::s![..;2])?;
    let mut big = cuprum::zeros(&[150], DType::Float32, dev)?;
    let mut ys = big.slice_mut(cuprum::s![..;3])?;
    scale_view.launch((1, 64), (&xs, &mut ys, 3.0f32))?;
    let bv = host::<f32>(&big);
    let xv = host::<f32>(&x);
    for k in 0..150 {
        let want = if k % 3 == 0 { xv[k / 3 * 2] * 3.0 } else { 0.0 };
        assert_eq!(bv[k], want, "scale_view element {k}");
    }
    let v = (random(&[4, 6, 9], DType::Int64, &mut rng, false) * 7)?.astype(DType::Int64)?;
    let mut s = cuprum::zeros(&[4, 6], DType::Int64, dev)?;
    sum_last.launch(((1, 1), (8, 8)), (&on(dev, &v), &mut s))?;
    assert_close(&s, &v.sum(-1)?, 0.0, "sum over the last axis");
    let mut small = cuprum::zeros(&[5, 4], DType::Int32, dev)?;
    let e = row_past_the_end.launch(((1, 1), (4, 8)), (&mut small,)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::IndexError, "{e}");
    assert!(e.to_string().contains("row_past_the_end: index 5 is out of bounds for axis 0 with size 5"), "{e}");
    let flat = cuprum::zeros(&[20], DType::Float64, dev)?;
    let e = transpose_twice.launch((1, 32), (&flat, &mut out)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ValueError, "{e}");
    Ok(())
}

cases! { view_kernels_gpu => view_kernels }

/// Per warp: the sum of its 32 values (a shuffle-down tree), how many are positive (a ballot),
/// and whether all are above -10 and any above 3.9 (votes).
#[cuprum::kernel]
fn warp_stats(x: &[f32], sums: &mut [f32], positives: &mut [u32], flags: &mut [i32]) {
    use cuprum::kernel::*;
    let i = grid(1);
    let v = if i < x.len() { x[i] } else { 0.0 };
    let mut s = v;
    let mut d = 16;
    while d > 0 {
        s += shfl_down_sync(0xffff_ffff, s, d);
        d /= 2;
    }
    let b = ballot_sync(0xffff_ffff, v > 0.0);
    let all = all_sync(0xffff_ffff, v > -10.0);
    let any = any_sync(0xffff_ffff, v > 3.9);
    if lane_id() == 0 {
        let w = i / warp_size() as usize;
        sums[w] = s;
        positives[w] = b.count_ones();
        flags[w] = all as i32 * 2 + any as i32;
    }
}

gpu_test!(warp_votes_and_shuffles, |gpu| {
    let mut rng = Rng::new(2005);
    let n = 32 * 40 - 7; // the last warp is partly padding (zeros)
    let x = random(&[n], DType::Float32, &mut rng, false);
    let (mut sums, mut pos, mut flags) = (
        cuprum::zeros(&[40], DType::Float32, &gpu)?,
        cuprum::zeros(&[40], DType::UInt32, &gpu)?,
        cuprum::zeros(&[40], DType::Int32, &gpu)?,
    );
    warp_stats.launch((10, 128), (&on(&gpu, &x), &mut sums, &mut pos, &mut flags))?;
    let xv = host::<f32>(&x);
    let (sv, pv, fv) = (host::<f32>(&sums), host::<u32>(&pos), host::<i32>(&flags));
    for w in 0..40 {
        let lanes: Vec<f32> = (0..32).map(|l| xv.get(w * 32 + l).copied().unwrap_or(0.0)).collect();
        let want: f64 = lanes.iter().map(|&v| v as f64).sum();
        assert!((sv[w] as f64 - want).abs() <= 1e-4 * want.abs().max(1.0), "warp {w}: sum {} vs {want}", sv[w]);
        assert_eq!(pv[w], lanes.iter().filter(|&&v| v > 0.0).count() as u32, "warp {w}: ballot");
        let flag = 2 * lanes.iter().all(|&v| v > -10.0) as i32 + lanes.iter().any(|&v| v > 3.9) as i32;
        assert_eq!(fv[w], flag, "warp {w}: votes");
    }
    Ok(())
});

cpu_test!(warp_functions_on_the_cpu);
/// On the CPU a warp is one thread (blocks of one thread): the votes and ballots are that
/// thread's; with more threads a block, NotImplementedError naming the function.
fn warp_functions_on_the_cpu() {
    let x = cuprum::from_slice(&[1.0f32, -2.0, 4.0], &[3], &Device::Cpu).unwrap();
    let mut sums = cuprum::zeros(&[3], DType::Float32, &Device::Cpu).unwrap();
    let mut pos = cuprum::zeros(&[3], DType::UInt32, &Device::Cpu).unwrap();
    let mut flags = cuprum::zeros(&[3], DType::Int32, &Device::Cpu).unwrap();
    // One thread a block: thread t is lane 0 of its own warp, at index t, warp t / 32 = 0.
    // (The blocks run in order below 4096 threads: the last, x = 4, writes warp 0's entries.)
    warp_stats.launch((3, 1), (&x, &mut sums, &mut pos, &mut flags)).unwrap();
    assert_eq!((host::<u32>(&pos)[0], host::<i32>(&flags)[0]), (1, 3));
    let e = warp_stats.launch((1, 32), (&x, &mut sums, &mut pos, &mut flags)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotImplementedError, "{e}");
    assert!(e.to_string().contains("shfl_down_sync()"), "{e}");
}

cpu_test!(barriers_on_the_cpu);
/// `sync_threads` on the CPU: blocks of one thread run (each its own shared array), more are a
/// NotImplementedError that points to the GPU.
fn barriers_on_the_cpu() {
    let x = cuprum::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4], &Device::Cpu).unwrap();
    let mut sums = cuprum::zeros(&[4], DType::Float32, &Device::Cpu).unwrap();
    block_sums.launch((4, 1), (&x, &mut sums)).unwrap();
    assert_eq!(host::<f32>(&sums), [1.0, 2.0, 3.0, 4.0]);
    let e = block_sums.launch((1, 256), (&x, &mut sums)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotImplementedError, "{e}");
    assert!(e.to_string().contains("sync_threads"), "{e}");
}

gpu_test!(shared_memory_and_barriers, |gpu| {
    let mut rng = Rng::new(2003);
    let n = 10_000 + (rng.next_u64() % 1000) as usize;
    let x = random(&[n], DType::Float32, &mut rng, false);
    let blocks = n.div_ceil(256);
    let mut sums = cuprum::zeros(&[blocks], DType::Float32, &gpu)?;
    block_sums.launch((blocks, 256), (&on(&gpu, &x), &mut sums))?;
    let xv = host::<f32>(&x);
    let got = host::<f32>(&sums);
    for b in 0..blocks {
        let want: f64 = xv[b * 256..((b + 1) * 256).min(n)].iter().map(|&v| v as f64).sum();
        assert!((got[b] as f64 - want).abs() <= 1e-4 * (1.0 + want.abs()), "block {b}: {} vs {want}", got[b]);
    }
    Ok(())
});
