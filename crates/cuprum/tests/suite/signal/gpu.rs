//! The GPU convolutions against the CPU on fresh random inputs: `convolve`/`correlate` and
//! SciPy's `convolve2d`/`correlate2d` for every dtype, mode and boundary, odd and even kernel
//! sizes, fill values (also ones the dtype cannot hold: both devices must refuse them alike),
//! mixed dtypes, views (transposed, sliced with steps, reversed), large images and signals,
//! kernels larger than the GPU's shared-memory tile and than the image. Integers and bools must
//! agree exactly; floats within rtol 1e-12 (float64), 1e-5 (float32), 2e-3 (float16): both
//! backends sum in the same order, so they are usually equal.

use crate::common::{assert_close, on, random, Rng};
use crate::sort::gpu::full_range;
use cuprum::scipy::signal::{convolve2d_with, correlate2d_with, Boundary, Convolve2dOptions};
use cuprum::{s, Array, ConvolveMode, DType, Device};

const MODES: [ConvolveMode; 3] = [ConvolveMode::Full, ConvolveMode::Same, ConvolveMode::Valid];
const BOUNDARIES: [Boundary; 3] = [Boundary::Fill, Boundary::Wrap, Boundary::Symm];

fn rtol(dt: DType) -> f64 {
    match dt {
        DType::Float64 => 1e-12,
        DType::Float32 => 1e-5,
        DType::Float16 => 2e-3,
        _ => 0.0,
    }
}

/// The exact values of an integer or bool array, on the host.
fn exact_values(a: &Array) -> Vec<i128> {
    let h = a.to_device(&Device::Cpu).unwrap();
    if a.dtype().is_unsigned_int() || a.dtype() == DType::Bool {
        h.astype(DType::UInt64).unwrap().to_vec::<u64>().unwrap().into_iter().map(i128::from).collect()
    } else {
        h.astype(DType::Int64).unwrap().to_vec::<i64>().unwrap().into_iter().map(i128::from).collect()
    }
}

/// The GPU's result against the CPU's: the same dtype, shape and values (or errors of the same
/// kind).
pub(crate) fn agree(gpu: &Device, what: &str, cpu: cuprum::Result<Array>, gpu_res: cuprum::Result<Array>) {
    match (cpu, gpu_res) {
        (Ok(c), Ok(g)) => {
            assert_eq!(g.device(), *gpu, "{what}: result device");
            assert_eq!(g.dtype(), c.dtype(), "{what}: dtype");
            assert_eq!(g.shape(), c.shape(), "{what}: shape");
            if c.dtype().is_float() {
                assert_close(&g, &c, rtol(c.dtype()), what);
            } else {
                let (gv, cv) = (exact_values(&g), exact_values(&c));
                if let Some(i) = (0..cv.len()).find(|&i| gv[i] != cv[i]) {
                    panic!("{what}: element {i} of shape {:?}: GPU {}, CPU {}", c.shape(), gv[i], cv[i]);
                }
            }
        }
        (Err(c), Err(g)) => assert_eq!(g.kind(), c.kind(), "{what}: errors (CPU: {c}; GPU: {g})"),
        (c, g) => {
            panic!("{what}: CPU gave {:?}, GPU gave {:?}", c.map(|a| a.shape().to_vec()), g.map(|a| a.shape().to_vec()))
        }
    }
}

/// `convolve` and `correlate` of `a` and `v` (host arrays or views) and of `ag`, `vg` (the same
/// values on the GPU) in every mode.
fn check_1d(gpu: &Device, a: &Array, v: &Array, ag: &Array, vg: &Array, what: &str) {
    for mode in MODES {
        let w = format!("convolve {what} {mode:?}");
        agree(gpu, &w, cuprum::convolve_with(a, v, mode), cuprum::convolve_with(ag, vg, mode));
        let w = format!("correlate {what} {mode:?}");
        agree(gpu, &w, cuprum::correlate_with(a, v, mode), cuprum::correlate_with(ag, vg, mode));
    }
}

/// `convolve2d` and `correlate2d` of `x` and `k` (and `xg`, `kg` on the GPU) in `mode` with
/// `boundary` and `fill`.
#[allow(clippy::too_many_arguments)]
fn check_2d(
    gpu: &Device,
    x: &Array,
    k: &Array,
    xg: &Array,
    kg: &Array,
    mode: ConvolveMode,
    b: Boundary,
    fill: f64,
    what: &str,
) {
    let w = format!("convolve2d {what} {mode:?} {b:?} fill={fill}");
    agree(
        gpu,
        &w,
        convolve2d_with(x, k, &Convolve2dOptions { mode, boundary: b, fillvalue: fill }),
        convolve2d_with(xg, kg, &Convolve2dOptions { mode, boundary: b, fillvalue: fill }),
    );
    let w = format!("correlate2d {what} {mode:?} {b:?} fill={fill}");
    agree(
        gpu,
        &w,
        correlate2d_with(x, k, &Convolve2dOptions { mode, boundary: b, fillvalue: fill }),
        correlate2d_with(xg, kg, &Convolve2dOptions { mode, boundary: b, fillvalue: fill }),
    );
}

/// Every mode and boundary; the fill boundary with each of `fills`.
fn check_2d_all(gpu: &Device, x: &Array, k: &Array, xg: &Array, kg: &Array, fills: &[f64], what: &str) {
    for mode in MODES {
        for b in BOUNDARIES {
            let fs = if b == Boundary::Fill { fills } else { &fills[..1] };
            for &f in fs {
                check_2d(gpu, x, k, xg, kg, mode, b, f, what);
            }
        }
    }
}

/// Random values of `dt`: small ones (`random`), or for integers, when `full`, over the whole
/// range of the dtype (every product wraps).
pub(crate) fn values(shape: &[usize], dt: DType, rng: &mut Rng, full: bool) -> Array {
    if full && !dt.is_float() && dt != DType::Bool {
        let n = shape.iter().product();
        full_range(n, dt, rng, false).reshape(shape).unwrap()
    } else {
        random(shape, dt, rng, false)
    }
}

per_dtype!(conv1d_case: conv1d_bool => Bool, conv1d_i8 => Int8, conv1d_i16 => Int16, conv1d_i32 => Int32,
    conv1d_i64 => Int64, conv1d_u8 => UInt8, conv1d_u16 => UInt16, conv1d_u32 => UInt32, conv1d_u64 => UInt64,
    conv1d_f16 => Float16, conv1d_f32 => Float32, conv1d_f64 => Float64);

fn conv1d_case(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let mut rng = Rng::new(900 + dt as u64);
    // Signal and kernel lengths: shorter, equal, longer (the operands swap), odd and even.
    for n in [1usize, 5, 16, 100, 1001] {
        for m in [1usize, 2, 3, 4, 7, 15, 16, 40, 257, 1000] {
            let full = (n + m) % 2 == 0;
            let (a, v) = (values(&[n], dt, &mut rng, full), values(&[m], dt, &mut rng, full));
            check_1d(gpu, &a, &v, &on(gpu, &a), &on(gpu, &v), &format!("{dt} n={n} m={m}"));
        }
    }
    // Views: reversed, strided, offset (on both devices).
    let (a, v) = (values(&[301], dt, &mut rng, true), values(&[9], dt, &mut rng, true));
    let (ag, vg) = (on(gpu, &a), on(gpu, &v));
    for (name, av, vv, agv, vgv) in [
        ("reversed", a.slice(s![..;-1])?, v.view(), ag.slice(s![..;-1])?, vg.view()),
        ("strided", a.slice(s![3..;2])?, v.slice(s![..;-2])?, ag.slice(s![3..;2])?, vg.slice(s![..;-2])?),
        ("offset", a.slice(s![7..250])?, v.slice(s![1..])?, ag.slice(s![7..250])?, vg.slice(s![1..])?),
    ] {
        check_1d(gpu, &av, &vv, &agv, &vgv, &format!("{dt} {name}"));
    }
    if dt.is_float() {
        // NaN, infinities and -0.0 in the signal.
        let (a, v) = (random(&[500], dt, &mut rng, true), random(&[6], dt, &mut rng, false));
        check_1d(gpu, &a, &v, &on(gpu, &a), &on(gpu, &v), &format!("{dt} specials"));
    }
    // Empty operands are errors on both.
    let e = random(&[0], dt, &mut rng, false);
    check_1d(gpu, &e, &v, &on(gpu, &e), &vg, &format!("{dt} empty"));
    Ok(())
}

per_dtype!(conv2d_case: conv2d_bool => Bool, conv2d_i8 => Int8, conv2d_i16 => Int16, conv2d_i32 => Int32,
    conv2d_i64 => Int64, conv2d_u8 => UInt8, conv2d_u16 => UInt16, conv2d_u32 => UInt32, conv2d_u64 => UInt64,
    conv2d_f16 => Float16, conv2d_f32 => Float32, conv2d_f64 => Float64);

fn conv2d_case(gpu: &Device, dt: DType) -> cuprum::Result<()> {
    let mut rng = Rng::new(950 + dt as u64);
    // Fill values: 0, one truncated for integer outputs, one unsigned outputs cannot hold.
    let fills = [0.0, 2.5, -1.0];
    for (i, im) in [[1usize, 1], [5, 7], [33, 47], [64, 64]].into_iter().enumerate() {
        for (j, ks) in [[1usize, 1], [2, 2], [3, 3], [4, 3], [1, 5], [5, 1], [6, 6]].into_iter().enumerate() {
            let full = (i + j) % 2 == 1;
            let (x, k) = (values(&im, dt, &mut rng, full), values(&ks, dt, &mut rng, full));
            check_2d_all(gpu, &x, &k, &on(gpu, &x), &on(gpu, &k), &fills, &format!("{dt} {im:?}*{ks:?}"));
        }
    }
    Ok(())
}

// Views of the image and of the kernel: transposed, sliced with steps, reversed.
gpu_test!(conv2d_views, |gpu| {
    let mut rng = Rng::new(980);
    for dt in [DType::Float32, DType::Float64, DType::Int16, DType::UInt8, DType::Int64] {
        let (base, kb) = (values(&[40, 50], dt, &mut rng, true), values(&[7, 8], dt, &mut rng, true));
        let (bg, kbg) = (on(&gpu, &base), on(&gpu, &kb));
        let images = [
            ("T", base.t(), bg.t()),
            ("[1::2, ::-3]", base.slice(s![1..;2, ..;-3])?, bg.slice(s![1..;2, ..;-3])?),
            ("[::-1, 5:45]", base.slice(s![..;-1, 5..45])?, bg.slice(s![..;-1, 5..45])?),
        ];
        let kernels = [
            ("k", kb.view(), kbg.view()),
            ("kT", kb.t(), kbg.t()),
            ("k[::2, ::-1]", kb.slice(s![..;2, ..;-1])?, kbg.slice(s![..;2, ..;-1])?),
        ];
        for (iname, x, xg) in &images {
            for (kname, k, kg) in &kernels {
                check_2d_all(&gpu, x, k, xg, kg, &[1.5], &format!("{dt} {iname}*{kname}"));
            }
        }
    }
    Ok(())
});

// Mixed dtypes: the same promotion (or error) on both devices.
gpu_test!(conv_mixed_dtypes, |gpu| {
    let mut rng = Rng::new(981);
    use DType::*;
    for (da, db) in [
        (Int8, UInt8),
        (Int32, Float32),
        (Bool, Float64),
        (UInt8, Bool),
        (Int64, UInt64),
        (Int16, Float16),
        (UInt8, Float16),
    ] {
        let (a, v) = (values(&[50], da, &mut rng, true), values(&[6], db, &mut rng, true));
        check_1d(&gpu, &a, &v, &on(&gpu, &a), &on(&gpu, &v), &format!("{da},{db}"));
        let (x, k) = (values(&[12, 9], da, &mut rng, true), values(&[3, 4], db, &mut rng, true));
        check_2d_all(&gpu, &x, &k, &on(&gpu, &x), &on(&gpu, &k), &[0.0, -1.0], &format!("{da},{db}"));
    }
    Ok(())
});

// A 300x517 image with a 15x15 kernel, a 1-d signal of 100,000 with 15 taps.
gpu_test!(conv_large, |gpu| {
    let mut rng = Rng::new(982);
    for dt in [DType::Float32, DType::Float64, DType::Int32, DType::UInt8] {
        let (x, k) = (values(&[300, 517], dt, &mut rng, false), values(&[15, 15], dt, &mut rng, false));
        let (xg, kg) = (on(&gpu, &x), on(&gpu, &k));
        for mode in MODES {
            for b in BOUNDARIES {
                let what = format!("{dt} 300x517*15x15 {mode:?} {b:?}");
                agree(
                    &gpu,
                    &what,
                    convolve2d_with(&x, &k, &Convolve2dOptions { mode, boundary: b, fillvalue: 0.5 }),
                    convolve2d_with(&xg, &kg, &Convolve2dOptions { mode, boundary: b, fillvalue: 0.5 }),
                );
            }
        }
        for b in BOUNDARIES {
            let what = format!("{dt} 300x517*15x15 correlate2d Same {b:?}");
            let (c, g) = (
                correlate2d_with(
                    &x,
                    &k,
                    &Convolve2dOptions { mode: ConvolveMode::Same, boundary: b, ..Default::default() },
                ),
                correlate2d_with(
                    &xg,
                    &kg,
                    &Convolve2dOptions { mode: ConvolveMode::Same, boundary: b, ..Default::default() },
                ),
            );
            agree(&gpu, &what, c, g);
        }
    }
    for dt in [DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::UInt8] {
        let (a, v) = (values(&[100_000], dt, &mut rng, false), values(&[15], dt, &mut rng, false));
        check_1d(&gpu, &a, &v, &on(&gpu, &a), &on(&gpu, &v), &format!("{dt} 100000x15"));
        check_1d(&gpu, &v, &a, &on(&gpu, &v), &on(&gpu, &a), &format!("{dt} 15x100000"));
    }
    Ok(())
});

// Kernels larger than a shared-memory tile (40x40, 1x200, 200x1), and larger than the image.
gpu_test!(conv_large_kernels, |gpu| {
    let mut rng = Rng::new(983);
    for dt in [DType::Float32, DType::Float64, DType::Int32, DType::UInt16] {
        let (x, k) = (values(&[100, 120], dt, &mut rng, false), values(&[40, 40], dt, &mut rng, false));
        check_2d_all(&gpu, &x, &k, &on(&gpu, &x), &on(&gpu, &k), &[0.0, 3.0], &format!("{dt} 100x120*40x40"));
        // The kernel larger than the image: 'valid' swaps the operands; wrap and symm extend
        // the image over several periods.
        let small = values(&[20, 30], dt, &mut rng, false);
        check_2d_all(&gpu, &small, &k, &on(&gpu, &small), &on(&gpu, &k), &[0.0, 3.0], &format!("{dt} 20x30*40x40"));
        for ks in [[1usize, 200], [200, 1]] {
            let (x, k) = (values(&[210, 230], dt, &mut rng, false), values(&ks, dt, &mut rng, false));
            check_2d_all(&gpu, &x, &k, &on(&gpu, &x), &on(&gpu, &k), &[0.0], &format!("{dt} 210x230*{ks:?}"));
        }
        let (a, v) = (values(&[5000], dt, &mut rng, false), values(&[999], dt, &mut rng, false));
        check_1d(&gpu, &a, &v, &on(&gpu, &a), &on(&gpu, &v), &format!("{dt} 5000x999"));
    }
    Ok(())
});
