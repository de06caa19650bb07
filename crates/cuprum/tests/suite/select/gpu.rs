//! The GPU's single-pass selection (masks, masked assignment, extract, nonzero, flatnonzero,
//! argwhere, compress) against the CPU backend on fresh random inputs: every dtype, sizes
//! around the kernels' tiles (4096 flags or elements), mask densities from none to all, masks
//! with fewer dimensions than the array, non-contiguous and misaligned inputs, empty arrays.

use crate::common::{assert_close, on, random, Rng};
use crate::ufunc::gpu::same as same_result;
use cuprum::dtype::ALL_DTYPES;
use cuprum::{s, Array, DType, Device};

/// Elements per tile of the selection and scan kernels.
pub(crate) const TILE: usize = 4096;

/// Sizes around tile boundaries.
pub(crate) const SIZES: [usize; 8] = [1, 17, TILE - 1, TILE, TILE + 1, 2 * TILE + 15, 5 * TILE + 4000, 100_003];

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
    let zero = if dtype.is_inexact() {
        cuprum::scalar(-0.0f64, &Device::Cpu).unwrap()
    } else {
        cuprum::scalar(0i64, &Device::Cpu).unwrap()
    };
    cuprum::where_(&z, zero.astype(dtype).unwrap(), &x).unwrap()
}

/// Exact equality of dtype, shape and values (NaNs equal), device of the GPU result checked.
pub(crate) fn same(gpu: &Device, g: &Array, c: &Array, what: &str) {
    assert_eq!(g.device(), *gpu, "{what}: result device");
    assert_eq!(g.dtype(), c.dtype(), "{what}: dtype");
    assert_eq!(g.shape(), c.shape(), "{what}: shape");
    let h = g.to_device(&Device::Cpu).unwrap();
    if c.dtype().is_inexact() {
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
    mask_f32 => Float32, mask_f64 => Float64, mask_c64 => Complex64, mask_c128 => Complex128);

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
    assign_f16 => Float16, assign_f32 => Float32, assign_f64 => Float64, assign_c64 => Complex64,
    assign_c128 => Complex128);

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
    for (dt, p) in [
        (DType::Float32, 0.5),
        (DType::Int8, 0.03),
        (DType::Float64, 0.999),
        (DType::UInt16, 0.5),
        (DType::Complex128, 0.5),
    ] {
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
        let c = cuprum::compress(&cnd, &m, ax)?;
        let g = cuprum::compress(&cnd.to_device(&gpu)?, &m.to_device(&gpu)?, ax)?;
        assert_close(&g, &c, 0.0, &format!("compress axis {ax}"));
    }
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
            same_result(&gpu, &format!("mask rows {dt} {shape:?}"), 0.0, x.mask(&m), xg.mask(&mg));
            same_result(&gpu, &format!("mask {dt} {shape:?}"), 0.0, x.mask(&full), xg.mask(&fg));
            let (mut xc, mut xgc) = (x.copy()?, xg.copy()?);
            xc.mask_fill(&full, 1)?;
            xgc.mask_fill(&fg, 1)?;
            assert_close(&xgc, &xc, 0.0, &format!("mask_fill {dt} {shape:?}"));
            let nz_c = cuprum::flatnonzero(&x)?;
            same_result(&gpu, &format!("flatnonzero {dt} {shape:?}"), 0.0, Ok(nz_c), cuprum::flatnonzero(&xg));
        }
    }
    Ok(())
});
