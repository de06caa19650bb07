//! The GPU radix sort against the CPU backend on fresh random inputs: every dtype, full-range
//! and tie-heavy keys, NaN/inf/-0, sizes around the sort's 4096-key tiles, several lanes along
//! either axis; searchsorted and digitize (also with the CPU standing in for the GPU).

use crate::common::{assert_close, on, random, Rng};
use crate::indexing::gpu::same;
use cuprum::dtype::ALL_DTYPES;
use cuprum::{s, Array, DType, Device, Side};

/// Random keys using every bit of the dtype (floats: random signs, magnitudes over many
/// exponents, a few NaN/inf/-0 when `specials`; complex: real parts with many ties, so that
/// the imaginary parts order them, and full-range imaginary parts).
pub(crate) fn full_range(n: usize, dt: DType, rng: &mut Rng, specials: bool) -> Array {
    if dt.is_complex() {
        let re = random(&[n], DType::Int8, rng, false).astype(dt.real_dtype()).unwrap();
        let re = if specials {
            cuprum::where_(&full_range(n, dt.real_dtype(), rng, true).isnan().unwrap(), f64::NAN, &re).unwrap()
        } else {
            re
        };
        let z = cuprum::zeros(&[n], dt, &Device::Cpu).unwrap();
        z.real().assign(&re).unwrap();
        z.imag().unwrap().assign(&full_range(n, dt.real_dtype(), rng, specials)).unwrap();
        return z;
    }
    if dt.is_float() {
        let v: Vec<f64> = (0..n)
            .map(|_| {
                let r = rng.uniform();
                if specials && r < 0.03 {
                    [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, -f64::NAN][(r * 200.0) as usize % 6]
                } else {
                    let sign = if rng.uniform() < 0.5 { -1.0 } else { 1.0 };
                    let e = rng.uniform() * 20.0 - 10.0;
                    sign * 2f64.powf(e) * (1.0 + rng.uniform())
                }
            })
            .collect();
        return cuprum::from_slice(&v, &[n], &Device::Cpu).unwrap().astype(dt).unwrap();
    }
    let v: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    let a = cuprum::from_slice(&v, &[n], &Device::Cpu).unwrap();
    a.astype_with(dt, cuprum::Casting::Unsafe).unwrap()
}

fn sizes() -> Vec<usize> {
    vec![1, 2, 31, 4095, 4096, 4097, 3 * 4096 + 17, 100_003]
}

fn check_sorts(gpu: &Device, x: &Array, axis: Option<isize>, what: &str) {
    let xg = x.to_device(gpu).unwrap();
    let s_c = x.sort(axis).unwrap();
    let s_g = xg.sort(axis).unwrap();
    assert_eq!(s_g.device(), *gpu);
    assert_close(&s_g, &s_c, 0.0, &format!("sort {what}"));
    let a_c = x.argsort(axis).unwrap();
    let a_g = xg.argsort(axis).unwrap();
    assert_close(&a_g, &a_c, 0.0, &format!("argsort {what}"));
}

per_dtype!(sort_case: sort_bool => Bool, sort_i8 => Int8, sort_i16 => Int16, sort_i32 => Int32, sort_i64 => Int64,
    sort_u8 => UInt8, sort_u16 => UInt16, sort_u32 => UInt32, sort_u64 => UInt64, sort_f16 => Float16,
    sort_f32 => Float32, sort_f64 => Float64, sort_c64 => Complex64, sort_c128 => Complex128);

fn sort_case(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let mut rng = Rng::new(100 + dt as u64);
    for n in sizes() {
        // Ties everywhere (small ranges) and every bit in use.
        check_sorts(gpu, &random(&[n], dt, &mut rng, true), None, &format!("{dt} ties n={n}"));
        check_sorts(gpu, &full_range(n, dt, &mut rng, true), None, &format!("{dt} full n={n}"));
    }
    // Lanes: along the last axis, along the first, 3-d along the middle, a view.
    let m = full_range(37 * 1001, dt, &mut rng, true).reshape([37, 1001])?;
    check_sorts(gpu, &m, Some(1), &format!("{dt} (37,1001) axis 1"));
    check_sorts(gpu, &m, Some(0), &format!("{dt} (37,1001) axis 0"));
    let t = random(&[5, 300, 3], dt, &mut rng, true);
    check_sorts(gpu, &t, Some(1), &format!("{dt} (5,300,3) axis 1"));
    check_sorts(gpu, &t.slice(cuprum::s![..;2, ..;-1, 1..])?, Some(-1), &format!("{dt} view"));
    // More than 256 lanes: two lane digits.
    let many = random(&[300, 20], dt, &mut rng, true);
    check_sorts(gpu, &many, Some(1), &format!("{dt} (300,20) axis 1"));
    // Empty and 0-d.
    check_sorts(gpu, &random(&[0], dt, &mut rng, true), None, &format!("{dt} empty"));
    check_sorts(gpu, &random(&[4, 0], dt, &mut rng, true), Some(0), &format!("{dt} (4,0) axis 0"));
    check_sorts(gpu, &random(&[], dt, &mut rng, true), None, &format!("{dt} 0-d"));
    Ok(())
}

// Millions of keys whose digits are all alike (the counting kernel's per-digit counters fill
// up fastest), 16-byte aligned and not (a view starting one element in), every key width.
gpu_test!(sort_large_with_few_digits, |gpu| {
    let mut rng = Rng::new(8);
    for (n, dt) in
        [(3_000_005, DType::Int32), (2_000_003, DType::UInt8), (2_500_001, DType::Int16), (1_200_007, DType::Float64)]
    {
        let v: Vec<i64> = (0..n).map(|_| (rng.next_u64() % 3) as i64).collect();
        let x = cuprum::from_slice(&v, &[n], &Device::Cpu)?.astype(dt)?;
        check_sorts(&gpu, &x, None, &format!("{dt} n={n} in 0..3"));
        // A view of the device array one element in: its data is not 16-byte aligned.
        let tail = x.slice(cuprum::s![1..])?;
        let tail_g = x.to_device(&gpu)?.slice(cuprum::s![1..])?;
        assert_close(&tail_g.sort(None)?, &tail.sort(None)?, 0.0, &format!("{dt} n={n} unaligned view"));
        assert_close(&tail_g.argsort(None)?, &tail.argsort(None)?, 0.0, &format!("{dt} n={n} unaligned argsort"));
        let same = cuprum::full(&[n], 7.0, dt, &Device::Cpu)?;
        let (c, g) = (same.sort(None)?, same.to_device(&gpu)?.slice(cuprum::s![1..])?.sort(None)?);
        assert_close(&g, &c.slice(cuprum::s![1..])?, 0.0, &format!("{dt} n={n} constant"));
    }
    Ok(())
});

gpu_test!(sort_large_f32_and_i64, |gpu| {
    let mut rng = Rng::new(7);
    for (n, dt) in [(3_000_017, DType::Float32), (1_500_001, DType::Int64), (2_000_000, DType::Float64)] {
        check_sorts(&gpu, &full_range(n, dt, &mut rng, true), None, &format!("{dt} n={n}"));
    }
    Ok(())
});

cases! {
    searchsorted_and_digitize => search_case,
}

fn search_case(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(107);
    for &dt in ALL_DTYPES.iter() {
        let sorted = random(&[200], dt, &mut rng, true).sort(None)?;
        // Queries: random values, the sorted values themselves (ties), a strided 2-d view.
        let q = random(&[6, 10], dt, &mut rng, true).slice(s![.., ..;-2])?;
        for side in [Side::Left, Side::Right] {
            for (name, qq) in [("random", q.view()), ("ties", sorted.slice(s![..;3])?)] {
                same(
                    dev,
                    &format!("searchsorted({dt}, {side:?}, {name})"),
                    0.0,
                    cuprum::searchsorted(&sorted, &qq, side),
                    cuprum::searchsorted(&on(dev, &sorted), &on(dev, &qq), side),
                );
            }
            let e = random(&[0], dt, &mut rng, false);
            same(
                dev,
                "searchsorted into empty",
                0.0,
                cuprum::searchsorted(&e, &q, side),
                cuprum::searchsorted(&on(dev, &e), &on(dev, &q), side),
            );
            same(
                dev,
                "searchsorted of empty",
                0.0,
                cuprum::searchsorted(&sorted, &e, side),
                cuprum::searchsorted(&on(dev, &sorted), &on(dev, &e), side),
            );
        }
    }
    // Mixed dtypes compare in the promoted dtype.
    for (da, dq) in [
        (DType::Int32, DType::Float32),
        (DType::UInt64, DType::Int64),
        (DType::Float16, DType::Float64),
        (DType::Bool, DType::Int8),
    ] {
        let s_ = random(&[50], da, &mut rng, false).sort(None)?;
        let q = random(&[30], dq, &mut rng, false);
        for side in [Side::Left, Side::Right] {
            same(
                dev,
                &format!("searchsorted({da} by {dq}, {side:?})"),
                0.0,
                cuprum::searchsorted(&s_, &q, side),
                cuprum::searchsorted(&on(dev, &s_), &on(dev, &q), side),
            );
        }
    }
    // digitize: increasing and decreasing bins, both sides; non-monotonic bins are an error.
    let x = random(&[40], DType::Float64, &mut rng, true);
    let inc = cuprum::from_vec(vec![-3.0, -1.0, -1.0, 0.0, 2.5], &Device::Cpu)?;
    let dec = inc.slice(s![..;-1])?.copy()?;
    for (name, b) in [("increasing", &inc), ("decreasing", &dec)] {
        for right in [false, true] {
            same(
                dev,
                &format!("digitize({name}, right={right})"),
                0.0,
                cuprum::digitize_with(&x, b, &cuprum::DigitizeOptions { right }),
                cuprum::digitize_with(&on(dev, &x), &on(dev, b), &cuprum::DigitizeOptions { right }),
            );
        }
    }
    let bad = cuprum::from_vec(vec![0.0, 2.0, 1.0], &Device::Cpu)?;
    same(
        dev,
        "digitize non-monotonic",
        0.0,
        cuprum::digitize(&x, &bad),
        cuprum::digitize(&on(dev, &x), &on(dev, &bad)),
    );
    // NumPy: digitize([1.5, 0.5, 3], [3, 2, 1]) = [2, 3, 0]; right=True: [2, 3, 1].
    let xd = cuprum::from_vec(vec![1.5, 0.5, 3.0], dev)?;
    let bd = cuprum::from_vec(vec![3.0, 2.0, 1.0], dev)?;
    assert_eq!(cuprum::digitize(&xd, &bd)?.to_vec::<i64>()?, vec![2, 3, 0]);
    assert_eq!(
        cuprum::digitize_with(&xd, &bd, &cuprum::DigitizeOptions { right: true })?.to_vec::<i64>()?,
        vec![2, 3, 1]
    );
    Ok(())
}
