//! The GPU's single-pass scans (cumsum, cumprod) against the CPU backend on fresh random
//! inputs: every dtype, sizes around the kernels' 4096-element tiles, lanes along either axis,
//! misaligned and transposed inputs, empty lanes.

use crate::common::{assert_close, on, random, Rng};
use crate::select::gpu::{same, SIZES, TILE};
use crate::ufunc::gpu::same as same_result;
use cuprum::dtype::ALL_DTYPES;
use cuprum::{s, Array, DType, Device};

// ------------------------------------------------------------------------------ scans
/// Float scans are compared with the float64 scan of the same values rounded to the dtype
/// (values positive, so nothing cancels; the GPU accumulates float16 in float32 and rounds
/// once); integer scans exactly with the CPU (wrap-around).
fn check_scan(gpu: &Device, x: &Array, axis: Option<isize>, prod: bool, what: &str) -> cuprum::Result<()> {
    let xg = on(gpu, x);
    let f = |a: &Array| if prod { a.cumprod(axis) } else { a.cumsum(axis) };
    let g = f(&xg)?;
    let dt = x.dtype();
    if dt.is_float() {
        let want = f(&x.astype(DType::Float64)?)?.astype(dt)?;
        let n = x.size().max(1) as f64;
        // Products of factors near 1 round with a bias (the small cross terms fall below the
        // spacing of floats near 1), and a parallel scan keeps its partial products near 1
        // longer than a sequential loop: a NumPy model of the kernel's association order on
        // 1M float32 factors 1 + U(0, 4e-5) errs by 2.5e-3 (sequential float32: 1e-4). The
        // exact sums and products of `float_scans_that_are_exact` check the structure.
        let per = if prod { 5e-6 } else { 2e-6 };
        let rtol = match dt {
            DType::Float16 => 2e-3,
            DType::Float32 => per * n.sqrt().max(4.0),
            _ => 1e-14 * n.sqrt().max(4.0),
        };
        assert_eq!(g.device(), *gpu);
        assert_close(&g.to_device(&Device::Cpu)?, &want, rtol, what);
    } else {
        same(gpu, &g, &f(x)?, what);
    }
    Ok(())
}

per_dtype!(scan_case: scan_bool => Bool, scan_i8 => Int8, scan_i16 => Int16, scan_i32 => Int32, scan_i64 => Int64,
    scan_u8 => UInt8, scan_u16 => UInt16, scan_u32 => UInt32, scan_u64 => UInt64, scan_f16 => Float16,
    scan_f32 => Float32, scan_f64 => Float64);

fn scan_case(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let mut rng = Rng::new(700 + dt as u64);
    // float16 sums of values below 4 stay under float16's 65504 up to ~16K elements.
    let cap = if dt == DType::Float16 { 16_000 } else { usize::MAX };
    for n in SIZES.into_iter().chain([3 * TILE - 1, 1_000_003]).filter(|&n| n <= cap) {
        let mut x = random(&[n + 1], dt, &mut rng, false);
        if dt.is_float() {
            x = x.abs()?;
        }
        // Aligned and one element in (misaligned lanes: scalar loads and stores).
        for (name, v) in [("aligned", x.slice(s![..-1])?), ("offset", x.slice(s![1..])?)] {
            check_scan(gpu, &v, None, false, &format!("cumsum {dt} n={n} {name}"))?;
        }
        // Products: integers wrap around; floats near 1 so that nothing overflows.
        let px = if dt.is_float() {
            let step = if dt == DType::Float16 { 1e-3 } else { 1e-5 };
            random(&[n], DType::Float64, &mut rng, false).abs()?.multiply(step)?.add(1.0)?.astype(dt)?
        } else {
            x.slice(s![..-1])?
        };
        if dt != DType::Float16 || n <= 2000 {
            check_scan(gpu, &px, None, true, &format!("cumprod {dt} n={n}"))?;
        }
    }
    // Lanes: along the last axis (each row its own tiles, rows misaligned when the row length
    // is odd) and along the first (moved to the last).
    for shape in [vec![3, TILE + 1], vec![5, 2 * TILE], vec![TILE + 3, 3], vec![300, 7], vec![4, 5, 1000], vec![1, 1]] {
        let size: usize = shape.iter().product();
        if size > cap {
            continue;
        }
        let mut x = random(&shape, dt, &mut rng, false);
        if dt.is_float() {
            x = x.abs()?;
        }
        for axis in [Some(0), Some(1), Some(-1)] {
            check_scan(gpu, &x, axis, false, &format!("cumsum {dt} {shape:?} axis {axis:?}"))?;
        }
        // A transposed (non-contiguous) input.
        check_scan(gpu, &x.t(), Some(-1), false, &format!("cumsum {dt} {shape:?} transposed"))?;
    }
    // Empty lanes.
    let e = random(&[0, 5], dt, &mut rng, false);
    same(gpu, &on(gpu, &e).cumsum(1)?, &e.cumsum(1)?, "cumsum (0, 5)");
    let e = random(&[5, 0], dt, &mut rng, false);
    same(gpu, &on(gpu, &e).cumsum(1)?, &e.cumsum(1)?, "cumsum (5, 0)");
    Ok(())
}

gpu_test!(scan_many_tiles, |gpu| {
    let gpu = &gpu;
    // ~3M elements: hundreds of tiles chained by look-back, exact in integers.
    let x = cuprum::ones(&[3_000_017], DType::Int32, gpu)?;
    let c = x.cumsum(None)?;
    assert_eq!(c.dtype(), DType::Int64);
    assert_eq!(c.slice(s![-1])?.item::<i64>()?, 3_000_017);
    let mut rng = Rng::new(800);
    let h = random(&[3_000_017], DType::Int16, &mut rng, false);
    same(gpu, &on(gpu, &h).cumsum(None)?, &h.cumsum(None)?, "cumsum int16 3M");
    let u = random(&[2, 1_500_001], DType::UInt8, &mut rng, false);
    same(gpu, &on(gpu, &u).cumsum(1)?, &u.cumsum(1)?, "cumsum uint8 rows");
    same(gpu, &on(gpu, &u).cumsum(0)?, &u.cumsum(0)?, "cumsum uint8 columns");
    Ok(())
});

gpu_test!(float_scans_that_are_exact, |gpu| {
    // Sums of ones and products of powers of two are exact in float32 up to 2^24 and the
    // exponent range: any lost or repeated element shows as a wrong value.
    for n in [4095usize, 4096, 4097, 3 * 4096 + 5, 1_000_003] {
        let ones = cuprum::ones(&[n], DType::Float32, &gpu)?;
        let got = ones.cumsum(None)?.to_vec_as::<f64>()?;
        for (i, &g) in got.iter().enumerate() {
            assert_eq!(g, (i + 1) as f64, "cumsum of ones, n={n}, element {i}");
        }
        // Factors 2 at every 997th element, 0.5 at every 991st, 1 elsewhere.
        let v: Vec<f32> = (0..n)
            .map(|i| {
                if i % 997 == 0 {
                    2.0
                } else if i % 991 == 0 {
                    0.5
                } else {
                    1.0
                }
            })
            .collect();
        let x = cuprum::from_slice(&v, &[n], &Device::Cpu)?;
        let want = x.astype(DType::Float64)?.cumprod(None)?.to_vec_as::<f64>()?;
        let got = x.to_device(&gpu)?.cumprod(None)?.to_vec_as::<f64>()?;
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "cumprod of powers of two, n={n}, element {i}");
        }
    }
    Ok(())
});

gpu_test!(scans_match_cpu, |gpu| {
    // Floats are positive, so partial sums do not cancel and a relative tolerance means
    // something: the GPU scans in parallel (in float32 for float16, more accurately than NumPy's
    // step-by-step float16 rounding, so float16 is compared on short lanes only).
    let mut rng = Rng::new(8);
    for dt in ALL_DTYPES {
        for shape in [vec![1], vec![2047], vec![2049], vec![70_001], vec![5, 3000], vec![300, 7], vec![3, 4, 5]] {
            let size: usize = shape.iter().product();
            if dt == DType::Float16 && size > 64 {
                continue;
            }
            let mut x = random(&shape, dt, &mut rng, false);
            if dt.is_float() {
                x = x.abs()?;
            }
            if dt.is_complex() {
                // Positive parts (no cancellation), as for the floats.
                x.real().assign(&x.real().abs()?)?;
                x.imag()?.assign(&x.imag()?.abs()?)?;
            }
            let g = on(&gpu, &x);
            let rtol = match dt {
                DType::Float16 => 2e-2,
                DType::Float32 | DType::Complex64 => 1e-4,
                _ => 1e-12,
            };
            for axis in [None, Some(0), Some(-1)] {
                same_result(&gpu, &format!("cumsum({dt}, {shape:?}, {axis:?})"), rtol, x.cumsum(axis), g.cumsum(axis));
                // float16 products: NumPy rounds (and overflows) at every step, the GPU's
                // float32 accumulator does not, so only wider dtypes are compared.
                if dt.is_complex() {
                    // No complex cumprod kernel yet: the GPU says so (the CPU computes it).
                    let e = g.cumprod(axis).unwrap_err();
                    assert_eq!(e.kind(), cuprum::ErrorKind::NotImplementedError, "{e}");
                } else if size < 100 && dt != DType::Float16 {
                    same_result(
                        &gpu,
                        &format!("cumprod({dt}, {shape:?}, {axis:?})"),
                        rtol,
                        x.cumprod(axis),
                        g.cumprod(axis),
                    );
                }
            }
        }
    }
    // A large scan: many tiles chained by look-back.
    let x = cuprum::ones(&[3_000_001], DType::Int32, &gpu)?;
    let c = x.cumsum(None)?;
    assert_eq!(c.slice(s![-1])?.item::<i64>()?, 3_000_001);
    assert_eq!(c.slice(s![1_234_566])?.item::<i64>()?, 1_234_567);
    Ok(())
});
