//! The GPU's single-pass selection (masks, masked assignment, extract, nonzero, flatnonzero,
//! argwhere) and scans (cumsum, cumprod) against the CPU backend on fresh random inputs:
//! every dtype, sizes around the kernels' tiles (4096 flags or elements), mask densities
//! from none to all, masks with fewer dimensions than the array, non-contiguous and
//! misaligned inputs, empty arrays.

mod common;
use common::{assert_close, on, random, Rng};
use cuprum::dtype::ALL_DTYPES;
use cuprum::{s, Array, DType, Device};

/// Elements per tile of the selection and scan kernels.
const TILE: usize = 4096;

/// Sizes around tile boundaries.
const SIZES: [usize; 8] = [1, 17, TILE - 1, TILE, TILE + 1, 2 * TILE + 15, 5 * TILE + 4000, 100_003];

/// A host bool mask of `shape` whose entries are true with probability `p`.
fn mask_p(shape: &[usize], p: f64, rng: &mut Rng) -> Array {
    let n: usize = shape.iter().product();
    let v: Vec<bool> = (0..n).map(|_| rng.uniform() < p).collect();
    cuprum::from_slice(&v, shape, &Device::Cpu).unwrap()
}

/// Random values of `dtype` with zeros, and for floats NaN, ±inf and -0.0, mixed in (so that
/// "non-zero" is tested on every bit pattern NumPy treats specially).
fn with_zeros(shape: &[usize], dtype: DType, p_zero: f64, rng: &mut Rng) -> Array {
    let x = random(shape, dtype, rng, true);
    let z = mask_p(shape, p_zero, rng);
    let zero = if dtype.is_float() {
        cuprum::scalar(-0.0f64, &Device::Cpu).unwrap()
    } else {
        cuprum::scalar(0i64, &Device::Cpu).unwrap()
    };
    cuprum::where_(&z, &zero.astype(dtype).unwrap(), &x).unwrap()
}

/// Exact equality of dtype, shape and values (NaNs equal), device of the GPU result checked.
fn same(gpu: &Device, g: &Array, c: &Array, what: &str) {
    assert_eq!(g.device(), *gpu, "{what}: result device");
    assert_eq!(g.dtype(), c.dtype(), "{what}: dtype");
    assert_eq!(g.shape(), c.shape(), "{what}: shape");
    let h = g.to_device(&Device::Cpu).unwrap();
    if c.dtype().is_float() {
        assert_close(&h, c, 0.0, what);
    } else {
        assert!(cuprum::array_equal(&h, c).unwrap(), "{what}: values differ");
    }
}

/// Both succeed with the same result, or both fail.
fn same_res(gpu: &Device, g: cuprum::Result<Array>, c: cuprum::Result<Array>, what: &str) {
    match (g, c) {
        (Ok(g), Ok(c)) => same(gpu, &g, &c, what),
        (Err(_), Err(_)) => {}
        (g, c) => panic!("{what}: GPU gave {:?}, CPU gave {:?}", g.map(|_| ()), c.map(|_| ())),
    }
}

per_dtype!(mask_case: mask_bool => Bool, mask_i8 => Int8, mask_i16 => Int16, mask_i32 => Int32, mask_i64 => Int64,
    mask_u8 => UInt8, mask_u16 => UInt16, mask_u32 => UInt32, mask_u64 => UInt64, mask_f16 => Float16,
    mask_f32 => Float32, mask_f64 => Float64);

/// `a[m]` for 1-d masks of every density and size, aligned and misaligned data and masks.
fn mask_case(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let mut rng = Rng::new(100 + dt as u64);
    for n in SIZES {
        for p in [0.0, 1.0, 0.5, 0.02, 0.9] {
            let x = random(&[n + 1], dt, &mut rng, true);
            let m = mask_p(&[n], p, &mut rng);
            let mg = on(gpu, &m);
            let xg = on(gpu, &x);
            // Aligned (the array's start) and misaligned (one element in) data.
            for (name, xc, xgv) in [
                ("aligned", x.slice(s![..-1])?, xg.slice(s![..-1])?),
                ("offset", x.slice(s![1..])?, xg.slice(s![1..])?),
            ] {
                let what = format!("mask {dt} n={n} p={p} {name}");
                same(gpu, &xgv.mask(&mg)?, &xc.mask(&m)?, &what);
            }
            // The mask itself misaligned (a view one element in).
            let m2 = mask_p(&[n + 1], p, &mut rng);
            let (mc, mgv) = (m2.slice(s![1..])?, on(gpu, &m2).slice(s![1..])?);
            let xc = x.slice(s![..-1])?;
            same(gpu, &xg.slice(s![..-1])?.mask(&mgv)?, &xc.mask(&mc)?, &format!("mask {dt} n={n} p={p} mask offset"));
        }
    }
    Ok(())
}

per_dtype!(assign_case: assign_bool => Bool, assign_i8 => Int8, assign_i16 => Int16, assign_i32 => Int32,
    assign_i64 => Int64, assign_u8 => UInt8, assign_u16 => UInt16, assign_u32 => UInt32, assign_u64 => UInt64,
    assign_f16 => Float16, assign_f32 => Float32, assign_f64 => Float64);

/// `a[m] = values` with one value per selected element (the packed values scattered back),
/// with a scalar and with a row broadcast (no count needed), on contiguous arrays and views.
fn assign_case(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let mut rng = Rng::new(200 + dt as u64);
    for n in SIZES {
        for p in [0.0, 1.0, 0.5, 0.02] {
            let x = random(&[n], dt, &mut rng, true);
            let m = mask_p(&[n], p, &mut rng);
            let (xg, mg) = (on(gpu, &x), on(gpu, &m));
            let count = m.count_nonzero(None)?.item::<i64>()? as usize;
            let vals = random(&[count], dt, &mut rng, true);
            let (mut c, mut g) = (x.copy()?, xg.copy()?);
            c.mask_assign(&m, &vals)?;
            g.mask_assign(&mg, &on(gpu, &vals))?;
            same(gpu, &g, &c, &format!("mask_assign {dt} n={n} p={p}"));
            let (mut c, mut g) = (x.copy()?, xg.copy()?);
            c.mask_fill(&m, 3)?;
            g.mask_fill(&mg, 3)?;
            same(gpu, &g, &c, &format!("mask_fill {dt} n={n} p={p}"));
            // Wrong number of values (not 1, which broadcasts): both refuse.
            if count > 2 {
                let bad = random(&[count - 1], dt, &mut rng, false);
                let (mut c, mut g) = (x.copy()?, xg.copy()?);
                assert!(c.mask_assign(&m, &bad).is_err() && g.mask_assign(&mg, &on(gpu, &bad)).is_err());
            }
        }
    }
    // Rows: a (r, k) array with an (r,) mask, values per row, one row for all, a scalar;
    // on a non-contiguous view (every other column of a wider array).
    for (r, k) in [(5usize, 3usize), (TILE + 3, 2), (700, 300)] {
        let base = random(&[r, 2 * k], dt, &mut rng, false);
        let m = mask_p(&[r], 0.4, &mut rng);
        let mg = on(gpu, &m);
        let count = m.count_nonzero(None)?.item::<i64>()? as usize;
        for vshape in [vec![count, k], vec![k], vec![1, k], vec![]] {
            let vals = random(&vshape, dt, &mut rng, false);
            let mut c = base.copy()?;
            let mut g = on(gpu, &base);
            c.slice_mut(s![.., ..;2])?.mask_assign(&m, &vals)?;
            g.slice_mut(s![.., ..;2])?.mask_assign(&mg, &on(gpu, &vals))?;
            same(gpu, &g, &c, &format!("mask_assign rows {dt} ({r}, {k}) values {vshape:?}"));
        }
    }
    Ok(())
}

gpu_test!(mask_rows_and_views, |gpu| {
    let gpu = &gpu;
    let mut rng = Rng::new(300);
    for dt in ALL_DTYPES {
        // Masks with fewer dimensions than the array: rows of 2, 3, 17, 300 elements, rows of
        // 2-d masks over 3-d arrays, on contiguous arrays and transposed views.
        for (shape, k) in [
            (vec![TILE + 1, 2], 1usize),
            (vec![3 * TILE - 5, 3], 1),
            (vec![999, 17], 1),
            (vec![600, 300], 1),
            (vec![40, 130, 3], 2),
            (vec![7, 5, 4], 1),
        ] {
            for p in [0.0, 0.5, 1.0, 0.05] {
                let x = random(&shape, dt, &mut rng, true);
                let m = mask_p(&shape[..k], p, &mut rng);
                let (xg, mg) = (on(gpu, &x), on(gpu, &m));
                same(gpu, &xg.mask(&mg)?, &x.mask(&m)?, &format!("rows {dt} {shape:?} k={k} p={p}"));
            }
        }
        let x = random(&[50, 70], dt, &mut rng, true);
        let xt = x.t();
        let mt = mask_p(&[70, 50], 0.5, &mut rng);
        let m1 = mask_p(&[70], 0.5, &mut rng);
        let xtg = on(gpu, &x).t();
        same(gpu, &xtg.mask(&on(gpu, &mt))?, &xt.mask(&mt)?, &format!("transposed {dt}"));
        same(gpu, &xtg.mask(&on(gpu, &m1))?, &xt.mask(&m1)?, &format!("transposed rows {dt}"));
        // A strided mask.
        let mw = mask_p(&[140], 0.5, &mut rng);
        let ms = mw.slice(s![..;2])?;
        let msg = on(gpu, &mw).slice(s![..;2])?;
        same(gpu, &xtg.mask(&msg)?, &xt.mask(&ms)?, &format!("strided mask {dt}"));
    }
    Ok(())
});

gpu_test!(empty_and_degenerate, |gpu| {
    let gpu = &gpu;
    let mut rng = Rng::new(400);
    for dt in [DType::Float32, DType::Int8, DType::Float64] {
        for (shape, k) in
            [(vec![0], 1usize), (vec![0, 3], 1), (vec![3, 0], 1), (vec![4, 0, 2], 2), (vec![], 0), (vec![5], 0)]
        {
            let x = random(&shape, dt, &mut rng, false);
            for p in [0.0, 1.0] {
                let m = mask_p(&shape[..k], p, &mut rng);
                let what = format!("{dt} {shape:?} k={k} p={p}");
                same_res(gpu, on(gpu, &x).mask(&on(gpu, &m)), x.mask(&m), &format!("mask {what}"));
                let (mut c, mut g) = (x.copy()?, on(gpu, &x));
                c.mask_fill(&m, 1)?;
                g.mask_fill(&on(gpu, &m), 1)?;
                same(gpu, &g, &c, &format!("mask_fill {what}"));
            }
            same_res(
                gpu,
                cuprum::flatnonzero(&on(gpu, &x)),
                cuprum::flatnonzero(&x),
                &format!("flatnonzero {shape:?}"),
            );
            same_res(gpu, cuprum::argwhere(&on(gpu, &x)), cuprum::argwhere(&x), &format!("argwhere {shape:?}"));
            if !shape.is_empty() {
                let (g, c) = (cuprum::nonzero(&on(gpu, &x))?, cuprum::nonzero(&x)?);
                for (a, b) in g.iter().zip(&c) {
                    same(gpu, a, b, &format!("nonzero {shape:?}"));
                }
            }
        }
    }
    Ok(())
});

gpu_test!(extract_and_indices, |gpu| {
    let gpu = &gpu;
    let mut rng = Rng::new(500);
    for dt in ALL_DTYPES {
        for shape in [vec![TILE + 1], vec![3 * TILE + 7], vec![33, 129], vec![6, 7, 8], vec![2, 3, 4, 5, 6], vec![1]] {
            for pz in [0.0, 0.5, 0.97, 1.0] {
                let a = with_zeros(&shape, dt, pz, &mut rng);
                let ag = on(gpu, &a);
                let what = format!("{dt} {shape:?} zeros={pz}");
                same(gpu, &cuprum::flatnonzero(&ag)?, &cuprum::flatnonzero(&a)?, &format!("flatnonzero {what}"));
                same(gpu, &cuprum::argwhere(&ag)?, &cuprum::argwhere(&a)?, &format!("argwhere {what}"));
                let (g, c) = (cuprum::nonzero(&ag)?, cuprum::nonzero(&a)?);
                assert_eq!(g.len(), c.len());
                for (d, (x, y)) in g.iter().zip(&c).enumerate() {
                    same(gpu, x, y, &format!("nonzero[{d}] {what}"));
                }
                // extract with a condition of this dtype, over float64 values.
                let v = random(&shape, DType::Float64, &mut rng, false);
                same(gpu, &cuprum::extract(&ag, &on(gpu, &v))?, &cuprum::extract(&a, &v)?, &format!("extract {what}"));
            }
        }
        // Non-contiguous inputs.
        let a = with_zeros(&[40, 60], dt, 0.5, &mut rng);
        let (at, agt) = (a.slice(s![..;-3, 1..;2])?, on(gpu, &a).slice(s![..;-3, 1..;2])?);
        same(gpu, &cuprum::argwhere(&agt)?, &cuprum::argwhere(&at)?, &format!("argwhere view {dt}"));
        same(gpu, &cuprum::flatnonzero(&agt)?, &cuprum::flatnonzero(&at)?, &format!("flatnonzero view {dt}"));
    }
    // extract with a condition of another size: both refuse.
    let a = cuprum::arange(10, &Device::Cpu)?;
    let c = cuprum::arange(9, &Device::Cpu)?;
    assert!(cuprum::extract(&c, &a).is_err());
    assert!(cuprum::extract(&on(gpu, &c), &on(gpu, &a)).is_err());
    // 0-d argwhere.
    for v in [0i32, 5] {
        let x = cuprum::scalar(v, &Device::Cpu)?;
        same(gpu, &cuprum::argwhere(&on(gpu, &x))?, &cuprum::argwhere(&x)?, "argwhere 0-d");
        same(gpu, &cuprum::flatnonzero(&on(gpu, &x))?, &cuprum::flatnonzero(&x)?, "flatnonzero 0-d");
    }
    Ok(())
});

gpu_test!(large_selections, |gpu| {
    let gpu = &gpu;
    let mut rng = Rng::new(600);
    let n = 3_000_017;
    for (dt, p) in [(DType::Float32, 0.5), (DType::Int8, 0.03), (DType::Float64, 0.999), (DType::UInt16, 0.5)] {
        let x = random(&[n], dt, &mut rng, false);
        let m = mask_p(&[n], p, &mut rng);
        let (xg, mg) = (on(gpu, &x), on(gpu, &m));
        same(gpu, &xg.mask(&mg)?, &x.mask(&m)?, &format!("large mask {dt} p={p}"));
        same(gpu, &cuprum::flatnonzero(&mg)?, &cuprum::flatnonzero(&m)?, &format!("large flatnonzero p={p}"));
        let count = m.count_nonzero(None)?.item::<i64>()? as usize;
        let vals = random(&[count], dt, &mut rng, false);
        let (mut c, mut g) = (x.copy()?, xg.copy()?);
        c.mask_assign(&m, &vals)?;
        g.mask_assign(&mg, &on(gpu, &vals))?;
        same(gpu, &g, &c, &format!("large mask_assign {dt} p={p}"));
    }
    // Index outputs above the worst-case limit (the count is taken first): 9M bools, 3-d.
    let m = mask_p(&[300, 300, 100], 0.001, &mut rng);
    let mg = on(gpu, &m);
    same(gpu, &cuprum::argwhere(&mg)?, &cuprum::argwhere(&m)?, "large argwhere");
    same(gpu, &cuprum::flatnonzero(&mg)?, &cuprum::flatnonzero(&m)?, "large flatnonzero (counted)");
    for (a, b) in cuprum::nonzero(&mg)?.iter().zip(&cuprum::nonzero(&m)?) {
        same(gpu, a, b, "large nonzero");
    }
    // A result much smaller than its buffer is returned as an exact copy; a large one as a view.
    let x = random(&[n], DType::Float32, &mut rng, false);
    let xg = on(gpu, &x);
    let sparse = mask_p(&[n], 0.001, &mut rng);
    same(gpu, &xg.mask(&on(gpu, &sparse))?, &x.mask(&sparse)?, "sparse large mask");
    Ok(())
});

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
    same(gpu, &on(gpu, &e).cumsum(Some(1))?, &e.cumsum(Some(1))?, "cumsum (0, 5)");
    let e = random(&[5, 0], dt, &mut rng, false);
    same(gpu, &on(gpu, &e).cumsum(Some(1))?, &e.cumsum(Some(1))?, "cumsum (5, 0)");
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
    same(gpu, &on(gpu, &u).cumsum(Some(1))?, &u.cumsum(Some(1))?, "cumsum uint8 rows");
    same(gpu, &on(gpu, &u).cumsum(Some(0))?, &u.cumsum(Some(0))?, "cumsum uint8 columns");
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

gpu_test!(compress_on_the_device, |gpu| {
    // The lesson's form (`flat.compress(flat > lo)`), along each axis, with a condition shorter
    // than the axis and a non-bool condition.
    let mut rng = Rng::new(900);
    let flat = random(&[1_000_003], DType::Float32, &mut rng, false);
    let cond = flat.greater(0.5)?;
    let c = flat.compress(&cond, None)?;
    let g = flat.to_device(&gpu)?.compress(&cond.to_device(&gpu)?, None)?;
    assert_eq!(g.device(), gpu);
    assert_close(&g, &c, 0.0, "compress flat");
    let m = random(&[6, 7, 5], DType::Int16, &mut rng, false);
    for (ax, len) in [(0isize, 4usize), (1, 7), (2, 3), (-1, 5)] {
        let cnd = random(&[len], DType::Int32, &mut rng, false);
        let c = cuprum::compress(&cnd, &m, Some(ax))?;
        let g = cuprum::compress(&cnd.to_device(&gpu)?, &m.to_device(&gpu)?, Some(ax))?;
        assert_close(&g, &c, 0.0, &format!("compress axis {ax}"));
    }
    Ok(())
});
