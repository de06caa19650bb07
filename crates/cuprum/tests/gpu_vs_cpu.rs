//! The GPU backend against the CPU backend on fresh random inputs: every dtype, many shapes,
//! non-contiguous views, broadcasting, 0-d and empty arrays.

mod common;
use common::{assert_close, on, random, rtol_for, Rng};
use cuprum::dtype::ALL_DTYPES;
use cuprum::{s, Array, BinaryOp, DType, Device, ReduceOp, UnaryOp};

const UNARY: [UnaryOp; 33] = UnaryOp::ALL;

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
fn same(gpu: &Device, what: &str, rtol: f64, cpu: cuprum::Result<Array>, gpu_res: cuprum::Result<Array>) {
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
    unary_f32 => Float32, unary_f64 => Float64);

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
        same(&gpu, &format!("power({dt})"), 0.0, a.power(&e), on(&gpu, &a).power(&on(&gpu, &e)));
    }
    Ok(())
});

per_dtype!(reduce_case: reductions_bool => Bool, reductions_i8 => Int8, reductions_i16 => Int16, reductions_i32 => Int32,
    reductions_i64 => Int64, reductions_u8 => UInt8, reductions_u16 => UInt16, reductions_u32 => UInt32, reductions_u64 => UInt64,
    reductions_f16 => Float16, reductions_f32 => Float32, reductions_f64 => Float64);

fn reduce_case(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    use ReduceOp::*;
    let gpu = *gpu;
    let mut rng = Rng::new(3 + dt as u64);
    let ops = ReduceOp::ALL;
    {
        for (shape, axes) in [
            (
                vec![6, 7, 8],
                vec![None, Some(vec![0]), Some(vec![1]), Some(vec![2]), Some(vec![0, 2]), Some(vec![-1, 0, 1])],
            ),
            (vec![3000], vec![None]),
            (vec![3, 5000], vec![Some(vec![1]), Some(vec![0])]),
            (vec![], vec![None]),
            (vec![0, 4], vec![None, Some(vec![0]), Some(vec![1])]),
        ] {
            let x = random(&shape, dt, &mut rng, false);
            let xt = if x.ndim() > 1 { x.t() } else { x.view() };
            for src in [&x, &xt] {
                let g = on(&gpu, src);
                for ax in &axes {
                    for op in ops {
                        if matches!(op, ArgMin | ArgMax) && ax.as_ref().is_some_and(|a| a.len() != 1) {
                            continue;
                        }
                        if op == Prod && dt.is_float() && src.size() > 100 {
                            continue; // products of thousands of floats overflow in different orders
                        }
                        let axis: cuprum::Axes = match ax {
                            None => cuprum::Axes::All,
                            Some(v) => cuprum::Axes::Some(v.iter().map(|&a| a as isize).collect()),
                        };
                        let what = format!("{}({dt}, shape {:?}, axis {ax:?})", op.name(), src.shape());
                        let c = src.reduce(op, axis.clone(), true, 1.0);
                        let gr = g.reduce(op, axis, true, 1.0);
                        let n = src.size().max(1) as f64;
                        // Sums of many elements differ by rounding order: scale the tolerance.
                        let rtol = c.as_ref().map(|a| rtol_for(a.dtype())).unwrap_or(0.0) * n.sqrt().max(4.0);
                        same(&gpu, &what, rtol, c, gr);
                    }
                }
            }
        }
    }
    Ok(())
}

gpu_test!(float_reduction_accuracy_and_nan, |gpu| {
    let mut rng = Rng::new(4);
    let x = random(&[1_000_003], DType::Float32, &mut rng, false).add(100.0)?;
    let g = on(&gpu, &x);
    let exact: f64 = x.astype(DType::Float64)?.sum(None)?.item()?;
    let gs: f64 = g.sum(None)?.item::<f32>()? as f64;
    assert!((gs - exact).abs() / exact < 1e-6, "f32 sum {gs} vs {exact}");
    let var_c: f64 = x.var(None, 0.0)?.item::<f32>()? as f64;
    let var_g: f64 = g.var(None, 0.0)?.item::<f32>()? as f64;
    assert!((var_c - var_g).abs() / var_c < 1e-5, "var {var_g} vs {var_c}");
    // NaN propagates through min/max/argmax and sums.
    let mut y = random(&[10_000], DType::Float64, &mut rng, false);
    y.slice_mut(s![7777])?.fill(f64::NAN)?;
    let yg = on(&gpu, &y);
    assert!(yg.max(None)?.item::<f64>()?.is_nan());
    assert!(yg.sum(None)?.item::<f64>()?.is_nan());
    assert_eq!(yg.argmax(None)?.item::<i64>()?, 7777);
    assert_eq!(yg.argmin(None)?.item::<i64>()?, 7777);
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
        let two = x.reshape(&[2, n / 2])?.t();
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
        cuprum::linspace(-2.0, 2.0, 15, true, DType::Float64, &Device::Cpu),
        cuprum::linspace(-2.0, 2.0, 15, true, DType::Float64, &gpu),
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
        cuprum::eye(5, Some(7), -1, DType::UInt8, &Device::Cpu),
        cuprum::eye(5, Some(7), -1, DType::UInt8, &gpu),
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
        same(&gpu, &format!("std {dt}"), rtol_for(dt) * 100.0, a.std(None, 0.0), ag.std(None, 0.0));
        same(&gpu, &format!("max {dt}"), 0.0, a.max(None), ag.max(None));
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
            let g = on(&gpu, &x);
            let rtol = match dt {
                DType::Float16 => 2e-2,
                DType::Float32 => 1e-4,
                _ => 1e-12,
            };
            for axis in [None, Some(0), Some(-1)] {
                same(&gpu, &format!("cumsum({dt}, {shape:?}, {axis:?})"), rtol, x.cumsum(axis), g.cumsum(axis));
                // float16 products: NumPy rounds (and overflows) at every step, the GPU's
                // float32 accumulator does not, so only wider dtypes are compared.
                if size < 100 && dt != DType::Float16 {
                    same(&gpu, &format!("cumprod({dt}, {shape:?}, {axis:?})"), rtol, x.cumprod(axis), g.cumprod(axis));
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

gpu_test!(masks_match_cpu, |gpu| {
    let mut rng = Rng::new(9);
    for dt in ALL_DTYPES {
        for shape in [vec![1], vec![4097], vec![300, 7], vec![3, 40, 5]] {
            let x = random(&shape, dt, &mut rng, false);
            let m = random(&shape[..1], DType::Bool, &mut rng, false);
            let full = random(&shape, DType::Bool, &mut rng, false);
            let (xg, mg, fg) = (on(&gpu, &x), on(&gpu, &m), on(&gpu, &full));
            same(&gpu, &format!("mask rows {dt} {shape:?}"), 0.0, x.mask(&m), xg.mask(&mg));
            same(&gpu, &format!("mask {dt} {shape:?}"), 0.0, x.mask(&full), xg.mask(&fg));
            let (mut xc, mut xgc) = (x.copy()?, xg.copy()?);
            xc.mask_fill(&full, 1)?;
            xgc.mask_fill(&fg, 1)?;
            assert_close(&xgc, &xc, 0.0, &format!("mask_fill {dt} {shape:?}"));
            let nz_c = cuprum::flatnonzero(&x)?;
            same(&gpu, &format!("flatnonzero {dt} {shape:?}"), 0.0, Ok(nz_c), cuprum::flatnonzero(&xg));
        }
    }
    Ok(())
});
