//! The GPU backend against the CPU backend on fresh random inputs: every dtype, many shapes,
//! non-contiguous views, broadcasting, 0-d and empty arrays (unary and binary ufuncs, astype,
//! where, writes through views, creation, the large contiguous paths).

use crate::common::{assert_close, on, random, rtol_for, Rng};
use cuprum::dtype::ALL_DTYPES;
use cuprum::{s, Array, BinaryOp, DType, Device, UnaryOp};

const UNARY: [UnaryOp; UnaryOp::ALL.len()] = UnaryOp::ALL;

const BINARY: [BinaryOp; 27] = BinaryOp::ALL;

/// Host inputs in several layouts: contiguous, transposed, strided with negative steps, 0-d,
/// empty, and a size that exercises vector tails.
fn layouts(dtype: DType, rng: &mut Rng) -> Vec<(String, Array)> {
    let mut v = Vec::new();
    v.push(("contig(3,4,5)".into(), random(&[3, 4, 5], dtype, rng, true)));
    v.push(("transposed".into(), random(&[5, 4, 3], dtype, rng, true).t()));
    let big = random(&[7, 9], dtype, rng, true);
    v.push(("strided".into(), big.slice(s![1..;2, ..;-2]).unwrap()));
    v.push(("0-d".into(), random(&[], dtype, rng, true)));
    v.push(("empty".into(), random(&[0, 3], dtype, rng, true)));
    v.push(("tail(1037)".into(), random(&[1037], dtype, rng, true)));
    v.push(("reversed".into(), random(&[301], dtype, rng, true).slice(s![..;-1]).unwrap()));
    v.push(("step3".into(), random(&[900], dtype, rng, true).slice(s![1..;3]).unwrap()));
    let off = random(&[1038], dtype, rng, true);
    v.push(("offset(1..)".into(), off.slice(s![1..]).unwrap()));
    v
}

/// Compares `f` on the CPU and the GPU; both must succeed or both fail.
pub(crate) fn same(gpu: &Device, what: &str, rtol: f64, cpu: cuprum::Result<Array>, gpu_res: cuprum::Result<Array>) {
    match (cpu, gpu_res) {
        (Ok(c), Ok(g)) => {
            assert_eq!(g.device(), *gpu, "{what}: result device");
            assert_close(&g, &c, rtol, what)
        }
        (Err(_), Err(_)) => {}
        (c, g) => panic!("{what}: CPU gave {:?}, GPU gave {:?}", c.map(|_| ()), g.map(|_| ())),
    }
}

per_dtype!(unary_case: unary_bool => Bool, unary_i8 => Int8, unary_i16 => Int16, unary_i32 => Int32, unary_i64 => Int64,
    unary_u8 => UInt8, unary_u16 => UInt16, unary_u32 => UInt32, unary_u64 => UInt64, unary_f16 => Float16,
    unary_f32 => Float32, unary_f64 => Float64, unary_c64 => Complex64, unary_c128 => Complex128);

fn unary_case(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let gpu = *gpu;
    let mut rng = Rng::new(1 + dt as u64);
    {
        for (name, x) in layouts(dt, &mut rng) {
            let xg = on(&gpu, &x);
            for op in UNARY {
                let what = format!("{}({dt}, {name})", op.name());
                let c = cuprum::unary(op, &x);
                let g = cuprum::unary(op, &xg);
                let rtol = c.as_ref().map(|a| rtol_for(a.dtype())).unwrap_or(0.0);
                same(&gpu, &what, rtol * 4.0, c, g);
            }
        }
    }
    Ok(())
}

gpu_test!(binary_dtype_pairs_and_broadcasting, |gpu| {
    let mut rng = Rng::new(2);
    let pairs: Vec<(DType, DType)> = ALL_DTYPES
        .iter()
        .map(|&d| (d, d))
        .chain([
            (DType::Int8, DType::UInt8),
            (DType::Int64, DType::UInt64),
            (DType::Int16, DType::Float16),
            (DType::Bool, DType::Int32),
            (DType::UInt32, DType::Int32),
            (DType::Float32, DType::Float64),
            (DType::Int32, DType::Float32),
            (DType::UInt8, DType::Float16),
            (DType::Float32, DType::Complex64),
            (DType::Complex64, DType::Float64),
            (DType::Int32, DType::Complex64),
            (DType::Complex64, DType::Complex128),
        ])
        .collect();
    for (da, db) in pairs {
        let a = random(&[4, 1, 6], da, &mut rng, true);
        let b_full = random(&[5, 12], db, &mut rng, true);
        let b = b_full.slice(s![.., ..;2]).unwrap(); // (5, 6), strided
        let (ag, bg) = (on(&gpu, &a), on(&gpu, &b));
        for op in BINARY {
            if op == BinaryOp::Power && da.is_integer() {
                continue; // random negative exponents: checked separately
            }
            let what = format!("{}({da}, {db})", op.name());
            let c = cuprum::binary(op, &a, &b);
            let g = cuprum::binary(op, &ag, &bg);
            let rtol = c.as_ref().map(|x| rtol_for(x.dtype())).unwrap_or(0.0);
            same(&gpu, &what, rtol * 4.0, c, g);
            // Weak scalars on either side.
            let c = cuprum::binary(op, &a, 3);
            let g = cuprum::binary(op, &ag, 3);
            let rtol = c.as_ref().map(|x| rtol_for(x.dtype())).unwrap_or(0.0);
            same(&gpu, &format!("{what} with 3"), rtol * 4.0, c, g);
            let c = cuprum::binary(op, 1.5, &b);
            let g = cuprum::binary(op, 1.5, &bg);
            let rtol = c.as_ref().map(|x| rtol_for(x.dtype())).unwrap_or(0.0);
            same(&gpu, &format!("1.5 with {what}"), rtol * 4.0, c, g);
        }
    }
    // Integer powers with non-negative exponents.
    for dt in [DType::Int8, DType::Int32, DType::Int64, DType::UInt16, DType::UInt64] {
        let a = random(&[50], dt, &mut rng, false);
        let e = cuprum::arange_with(0, 50, 1, DType::Int64, &Device::Cpu)?.remainder(7)?.astype(dt)?;
        same(&gpu, &format!("power({dt})"), 0.0, a.power(&e), on(&gpu, &a).power(on(&gpu, &e)));
    }
    Ok(())
});

gpu_test!(astype_all_pairs, |gpu| {
    let mut rng = Rng::new(5);
    for from in ALL_DTYPES {
        let x = random(&[5, 7], from, &mut rng, false).t();
        let g = on(&gpu, &x);
        for to in ALL_DTYPES {
            // Floats to unsigned ints included: both backends give NumPy's x86-64 values for
            // negative and out-of-range floats.
            same(&gpu, &format!("astype {from}->{to}"), rtol_for(to), x.astype(to), g.astype(to));
        }
    }
    Ok(())
});

// Float to int casts of NaN, infinities and values out of the target's range: the GPU's
// explicit conversions (CUDA's own saturate) give the CPU's values, NumPy's on x86-64
// (asserted exactly in api.rs), through contiguous, strided and 0-d sources.
gpu_test!(astype_float_to_int_special_values, |gpu| {
    // Exact comparison (as int64 bit patterns: the wrapping cast is one-to-one).
    let exact = |what: &str, c: &Array, g: &Array| {
        assert_eq!((g.device(), g.dtype()), (gpu, c.dtype()), "{what}");
        let (c, g) = (c.to_vec_as::<i64>().unwrap(), g.to_device(&Device::Cpu).unwrap().to_vec_as::<i64>().unwrap());
        assert_eq!(g, c, "{what}");
    };
    let special = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -1.7,
        300.0,
        -300.0,
        65543.0,
        3e9,
        -3e9,
        5e9,
        12884901893.0,
        1e19,
        -1e19,
        1e20,
        9223372036854775808.0,
        18446744073709551616.0,
        -2147483649.0,
        2147483647.9,
        -0.0,
    ];
    let mut v = Vec::new();
    for k in 0..40 {
        v.extend(special.iter().map(|x| x * if k % 2 == 0 { 1.0 } else { 0.5 }));
    }
    let n = v.len();
    for from in [DType::Float16, DType::Float32, DType::Float64] {
        let x = cuprum::from_vec(v.clone(), &Device::Cpu)?.astype(from)?;
        let rev = x.slice(s![..;-3])?;
        let two = x.reshape([2, n / 2])?.t();
        for to in ALL_DTYPES.iter().copied().filter(|d| d.is_integer() || *d == DType::Bool) {
            for (name, c) in [("contig", &x), ("reversed step 3", &rev), ("transposed", &two)] {
                exact(&format!("astype {from}->{to} {name}"), &c.astype(to)?, &on(&gpu, c).astype(to)?);
            }
            for i in [0isize, 1, 2, 8, 9] {
                let c = x.slice(s![i])?;
                exact(&format!("astype {from}->{to} 0-d [{i}]"), &c.astype(to)?, &on(&gpu, &c).astype(to)?);
            }
        }
    }
    Ok(())
});

gpu_test!(where_fill_assign_and_views, |gpu| {
    let mut rng = Rng::new(6);
    let c = random(&[4, 5], DType::Bool, &mut rng, false);
    let x = random(&[4, 5], DType::Float32, &mut rng, true);
    let y = random(&[5], DType::Int16, &mut rng, false);
    let (cg, xg, yg) = (on(&gpu, &c), on(&gpu, &x), on(&gpu, &y));
    same(&gpu, "where", 0.0, cuprum::where_(&c, &x, &y), cuprum::where_(&cg, &xg, &yg));
    same(&gpu, "where scalar", 0.0, cuprum::where_(&c, 1, 0), cuprum::where_(&cg, 1, 0));
    same(&gpu, "where f32/scalar", 0.0, cuprum::where_(&c, &x, 2.5), cuprum::where_(&cg, &xg, 2.5));
    // Writes through strided views land in the right places.
    for dt in ALL_DTYPES {
        let mut h = cuprum::zeros(&[9, 10], dt, &Device::Cpu)?;
        let mut d = cuprum::zeros(&[9, 10], dt, &gpu)?;
        h.slice_mut(s![1..;3, ..;-4])?.fill(1)?;
        d.slice_mut(s![1..;3, ..;-4])?.fill(1)?;
        let src = random(&[10], dt, &mut rng, false);
        h.slice_mut(s![-1])?.assign(&src)?;
        d.slice_mut(s![-1])?.assign(&on(&gpu, &src))?;
        assert_close(&d, &h, 0.0, &format!("view writes {dt}"));
    }
    // In-place arithmetic on a view, and overlapping assignment.
    let mut h = cuprum::arange_with(0, 20, 1, DType::Int32, &Device::Cpu)?;
    let mut d = h.to_device(&gpu)?;
    h.slice_mut(s![..;2])?.add_assign(100)?;
    d.slice_mut(s![..;2])?.add_assign(100)?;
    let (hs, ds) = (h.slice(s![..-1])?, d.slice(s![..-1])?);
    h.slice_mut(s![1..])?.assign(&hs)?;
    d.slice_mut(s![1..])?.assign(&ds)?;
    assert_close(&d, &h, 0.0, "in-place view ops");
    // Creation on the GPU matches the CPU.
    same(
        &gpu,
        "linspace",
        1e-15,
        cuprum::linspace(-2.0, 2.0, 15, DType::Float64, &Device::Cpu),
        cuprum::linspace(-2.0, 2.0, 15, DType::Float64, &gpu),
    );
    same(
        &gpu,
        "arange f32",
        1e-7,
        cuprum::arange_f(0.5, 10.0, 0.25, DType::Float32, &Device::Cpu),
        cuprum::arange_f(0.5, 10.0, 0.25, DType::Float32, &gpu),
    );
    same(
        &gpu,
        "eye",
        0.0,
        cuprum::eye_with(5, DType::UInt8, &cuprum::EyeOptions { m: Some(7), k: -1 }, &Device::Cpu),
        cuprum::eye_with(5, DType::UInt8, &cuprum::EyeOptions { m: Some(7), k: -1 }, &gpu),
    );
    Ok(())
});

gpu_test!(large_contiguous_paths, |gpu| {
    // Sizes above the CPU's threading threshold and the GPU's vector widths, odd tails.
    let mut rng = Rng::new(7);
    for dt in [DType::Float32, DType::Float16, DType::UInt8, DType::Int64, DType::Float64] {
        let a = random(&[300_001], dt, &mut rng, false);
        let b = random(&[300_001], dt, &mut rng, false);
        let (ag, bg) = (on(&gpu, &a), on(&gpu, &b));
        same(&gpu, &format!("add {dt}"), rtol_for(dt), a.add(&b), ag.add(&bg));
        same(&gpu, &format!("less {dt}"), 0.0, a.less(&b), ag.less(&bg));
        same(&gpu, &format!("sum {dt}"), rtol_for(dt) * 100.0, a.sum(None), ag.sum(None));
        same(&gpu, &format!("std {dt}"), rtol_for(dt) * 100.0, a.std(None), ag.std(None));
        same(&gpu, &format!("max {dt}"), 0.0, a.max(None), ag.max(None));
    }
    Ok(())
});
