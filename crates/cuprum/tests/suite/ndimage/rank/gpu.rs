//! The GPU rank filters against the CPU on fresh random inputs: every dtype and mode; the box
//! kernel (odd, even and 9x9 boxes, every rank), the N-d kernel (footprints with holes, 1-d and
//! 3-d inputs, windows sorted by a network, by a quickselect and by counting), the separable
//! passes (every axis, sizes and origins), grey morphology with structures; views (transposed,
//! strided, reversed), sizes not multiples of the tiles, NaN, infinities and -0.0; windows that
//! meet a NaN through SciPy's algorithms (1-d lines, boxes, footprints small and above 256,
//! separable passes, grey morphology, a NaN cval). Rank filters are exact: the results must be
//! identical.

use crate::common::{on, random, Rng};
use cuprum::dtype::ALL_DTYPES;
use cuprum::scipy::ndimage::{
    grey_dilation_with, grey_erosion_with, maximum_filter_with, median_filter_with, minimum_filter1d_with,
    minimum_filter_with, percentile_filter_with, rank_filter_with, GreyWindow, Mode, RankOptions, Window,
};
use cuprum::{s, Array, DType, Device};

const MODES: [Mode; 5] = Mode::ALL;

/// Bitwise equality of the GPU's and the CPU's results (-0.0 told from 0.0; every NaN equal:
/// a NaN made by arithmetic, as `inf - inf` in a non-flat grey dilation, is negative on x86
/// and positive on a GPU), or errors of one kind.
fn same(what: &str, c: cuprum::Result<Array>, g: cuprum::Result<Array>) {
    match (c, g) {
        (Ok(c), Ok(g)) => {
            assert_eq!(g.dtype(), c.dtype(), "{what}: dtype");
            assert_eq!(g.shape(), c.shape(), "{what}: shape");
            let g = g.to_device(&Device::Cpu).unwrap();
            // f64 bits: -0.0 is compared too; NaNs as one value.
            let bits = |a: &Array| {
                let canon = |v: f64| if v.is_nan() { f64::NAN.to_bits() } else { v.to_bits() };
                a.to_vec_as::<f64>().unwrap().into_iter().map(canon).collect::<Vec<u64>>()
            };
            let (cb, gb) = (bits(&c), bits(&g));
            if let Some(i) = (0..cb.len()).find(|&i| cb[i] != gb[i]) {
                panic!("{what}: element {i}: CPU {}, GPU {}", f64::from_bits(cb[i]), f64::from_bits(gb[i]));
            }
        }
        (Err(c), Err(g)) => assert_eq!(g.kind(), c.kind(), "{what}: errors (CPU: {c}; GPU: {g})"),
        (c, g) => panic!("{what}: CPU {:?}, GPU {:?}", c.map(|a| a.shape().to_vec()), g.map(|a| a.shape().to_vec())),
    }
}

fn opts(mode: Mode, cval: f64, origin: &[isize]) -> RankOptions {
    RankOptions { mode, cval, origin: origin.to_vec(), axes: None }
}

gpu_test!(box_kernel_every_dtype_and_mode, |gpu| {
    let mut rng = Rng::new(71);
    for dt in ALL_DTYPES {
        if dt == DType::Float16 {
            continue;
        }
        let x = random(&[37, 45], dt, &mut rng, true);
        let xg = on(&gpu, &x);
        for mode in MODES {
            for (size, origin) in [(vec![5], vec![0]), (vec![2, 3], vec![-1, 1]), (vec![3, 4], vec![1, 0])] {
                let o = opts(mode, 1.5, &origin);
                let w = Window::Size(&size);
                same(
                    &format!("median {dt} {mode:?} {size:?}"),
                    median_filter_with(&x, w, &o),
                    median_filter_with(&xg, w, &o),
                );
                same(
                    &format!("rank {dt} {mode:?} {size:?}"),
                    rank_filter_with(&x, 1, w, &o),
                    rank_filter_with(&xg, 1, w, &o),
                );
                same(
                    &format!("min {dt} {mode:?} {size:?}"),
                    minimum_filter_with(&x, w, &o),
                    minimum_filter_with(&xg, w, &o),
                );
                same(
                    &format!("max {dt} {mode:?} {size:?}"),
                    maximum_filter_with(&x, w, &o),
                    maximum_filter_with(&xg, w, &o),
                );
            }
        }
    }
    Ok(())
});

gpu_test!(box_kernel_every_rank_and_size, |gpu| {
    let mut rng = Rng::new(72);
    let x = random(&[70, 300], DType::Float32, &mut rng, true);
    let xg = on(&gpu, &x);
    let o = RankOptions::default();
    for (kh, kw) in [(1, 2), (3, 3), (5, 5), (4, 6), (7, 7), (9, 9), (11, 11)] {
        let n = (kh * kw) as i64;
        for r in [1, n / 3, n / 2, n - 2] {
            if r >= 1 && r < n - 1 {
                let w = Window::Size(&[kh, kw][..]);
                same(
                    &format!("rank {r} of {kh}x{kw}"),
                    rank_filter_with(&x, r, w, &o),
                    rank_filter_with(&xg, r, w, &o),
                );
            }
        }
    }
    // The benchmark's shape, and views.
    let big = random(&[513, 1031], DType::Float32, &mut rng, false);
    let bg = on(&gpu, &big);
    same(
        "median 5x5 513x1031",
        median_filter_with(&big, Window::Size(&[5]), &o),
        median_filter_with(&bg, Window::Size(&[5]), &o),
    );
    for (name, v, vg) in [
        ("transposed", big.t(), bg.t()),
        ("strided", big.slice(s![1..;3, ..;2]).unwrap(), bg.slice(s![1..;3, ..;2]).unwrap()),
        ("reversed", big.slice(s![..;-1, ..]).unwrap(), bg.slice(s![..;-1, ..]).unwrap()),
    ] {
        same(name, median_filter_with(&v, Window::Size(&[3]), &o), median_filter_with(&vg, Window::Size(&[3]), &o));
        same(
            name,
            minimum_filter_with(&v, Window::Size(&[4, 2]), &o),
            minimum_filter_with(&vg, Window::Size(&[4, 2]), &o),
        );
    }
    Ok(())
});

gpu_test!(nd_kernel_footprints, |gpu| {
    let mut rng = Rng::new(73);
    for dt in [DType::UInt8, DType::Int16, DType::Int64, DType::UInt64, DType::Float64, DType::Bool] {
        for shape in [vec![50], vec![19, 23], vec![6, 7, 8]] {
            let x = random(&shape, dt, &mut rng, true);
            let xg = on(&gpu, &x);
            let nd = shape.len();
            for fshape in [vec![3; nd], vec![2; nd], vec![5; nd]] {
                let n: usize = fshape.iter().product();
                let mask: Vec<bool> = (0..n).map(|i| i == 0 || rng.uniform() < 0.6).collect();
                let fp = cuprum::from_slice(&mask, &fshape, &Device::Cpu)?;
                let fpg = on(&gpu, &fp);
                let cnt = mask.iter().filter(|&&b| b).count() as i64;
                for mode in MODES {
                    let o = opts(mode, 2.0, &[]);
                    let what = format!("{dt} {shape:?} fp {fshape:?} {mode:?}");
                    same(
                        &what,
                        median_filter_with(&x, Window::Footprint(&fp), &o),
                        median_filter_with(&xg, Window::Footprint(&fpg), &o),
                    );
                    same(
                        &what,
                        rank_filter_with(&x, -2, Window::Footprint(&fp), &o),
                        rank_filter_with(&xg, -2, Window::Footprint(&fpg), &o),
                    );
                    same(
                        &what,
                        minimum_filter_with(&x, Window::Footprint(&fp), &o),
                        minimum_filter_with(&xg, Window::Footprint(&fpg), &o),
                    );
                    same(
                        &what,
                        maximum_filter_with(&x, Window::Footprint(&fp), &o),
                        maximum_filter_with(&xg, Window::Footprint(&fpg), &o),
                    );
                    if cnt > 2 {
                        same(
                            &what,
                            percentile_filter_with(&x, 30.0, Window::Footprint(&fp), &o),
                            percentile_filter_with(&xg, 30.0, Window::Footprint(&fpg), &o),
                        );
                    }
                }
            }
        }
    }
    // Windows sorted by a quickselect (up to 256) and by counting (above).
    let x = random(&[40, 41], DType::Float32, &mut rng, true);
    let xg = on(&gpu, &x);
    for k in [9, 15, 19] {
        let mask: Vec<bool> = (0..k * k).map(|i| i != 1).collect();
        let fp = cuprum::from_slice(&mask, &[k, k], &Device::Cpu)?;
        let fpg = on(&gpu, &fp);
        let o = RankOptions::default();
        same(
            &format!("median {k}x{k}"),
            median_filter_with(&x, Window::Footprint(&fp), &o),
            median_filter_with(&xg, Window::Footprint(&fpg), &o),
        );
    }
    // Axes.
    let x = random(&[9, 10, 11], DType::Int32, &mut rng, false);
    let xg = on(&gpu, &x);
    let o = RankOptions { axes: Some(vec![2, 0]), origin: vec![1, 0], ..Default::default() };
    same("axes", median_filter_with(&x, Window::Size(&[3, 2]), &o), median_filter_with(&xg, Window::Size(&[3, 2]), &o));
    same(
        "axes",
        maximum_filter_with(&x, Window::Size(&[3, 2]), &o),
        maximum_filter_with(&xg, Window::Size(&[3, 2]), &o),
    );
    Ok(())
});

gpu_test!(separable_passes, |gpu| {
    let mut rng = Rng::new(74);
    for dt in ALL_DTYPES {
        if dt == DType::Float16 {
            continue;
        }
        let x = random(&[5, 33, 70], dt, &mut rng, true);
        let xg = on(&gpu, &x);
        for mode in MODES {
            for (size, origin) in [(1usize, 0isize), (2, 0), (3, -1), (6, 2), (40, 0)] {
                for axis in [0isize, 1, 2] {
                    let o = opts(mode, 3.0, &[origin]);
                    same(
                        &format!("min1d {dt} {mode:?} {size} axis {axis}"),
                        minimum_filter1d_with(&x, size, axis, &o),
                        minimum_filter1d_with(&xg, size, axis, &o),
                    );
                }
            }
            let o = opts(mode, -1.0, &[]);
            same(
                "max box",
                maximum_filter_with(&x, Window::Size(&[2, 5, 3]), &o),
                maximum_filter_with(&xg, Window::Size(&[2, 5, 3]), &o),
            );
        }
    }
    Ok(())
});

gpu_test!(grey_morphology, |gpu| {
    let mut rng = Rng::new(75);
    for dt in ALL_DTYPES {
        if dt == DType::Float16 {
            continue;
        }
        let x = random(&[21, 34], dt, &mut rng, true);
        let xg = on(&gpu, &x);
        let st = cuprum::from_slice(&[0.5, 1.0, -2.0, 3.0, 0.0, 1.25], &[2, 3], &Device::Cpu)?;
        let stg = on(&gpu, &st);
        for mode in MODES {
            let o = opts(mode, 4.0, &[]);
            let w = GreyWindow { structure: Some(&st), ..Default::default() };
            let wg = GreyWindow { structure: Some(&stg), ..Default::default() };
            same(&format!("erosion {dt} {mode:?}"), grey_erosion_with(&x, w, &o), grey_erosion_with(&xg, wg, &o));
            same(&format!("dilation {dt} {mode:?}"), grey_dilation_with(&x, w, &o), grey_dilation_with(&xg, wg, &o));
            let ws = GreyWindow { size: Some(&[3, 2]), ..Default::default() };
            same(
                &format!("dilation size {dt} {mode:?}"),
                grey_dilation_with(&x, ws, &o),
                grey_dilation_with(&xg, ws, &o),
            );
        }
    }
    Ok(())
});

/// Values in [-4, 4) on a grid of 1/4 (ties), NaN with probability `frac`.
fn with_nans(shape: &[usize], dt: DType, frac: f64, rng: &mut Rng) -> Array {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|_| if rng.uniform() < frac { f64::NAN } else { (rng.uniform() * 32.0).floor() / 4.0 - 4.0 })
        .collect();
    cuprum::from_slice(&v, shape, &Device::Cpu).unwrap().astype(dt).unwrap()
}

// Windows that meet a NaN take SciPy's algorithms on both devices (the module's NaN section):
// the separable passes' deque per line, the footprint's running comparison, the quickselect
// (in registers' place: a local buffer, and global scratch for windows above 256), the 1-d
// heap over long lines (one GPU thread), grey morphology; sparse and dense NaN, a NaN cval.
gpu_test!(nan_windows_as_scipy, |gpu| {
    let mut rng = Rng::new(76);
    for dt in [DType::Float32, DType::Float64] {
        for frac in [0.03, 0.4] {
            let x1 = with_nans(&[3001], dt, frac, &mut rng);
            let x2 = with_nans(&[37, 45], dt, frac, &mut rng);
            let x3 = with_nans(&[6, 7, 8], dt, frac, &mut rng);
            let (g1, g2, g3) = (on(&gpu, &x1), on(&gpu, &x2), on(&gpu, &x3));
            for mode in MODES {
                for cval in [1.5, f64::NAN] {
                    let o = opts(mode, cval, &[]);
                    let what = format!("{dt} {frac} {mode:?} cval {cval}");
                    for (size, origin) in [(3usize, 0isize), (4, -1), (7, 2), (25, 0)] {
                        let o1 = opts(mode, cval, &[origin]);
                        let w = Window::Size(&[size]);
                        same(
                            &format!("1-d median {size} {what}"),
                            median_filter_with(&x1, w, &o1),
                            median_filter_with(&g1, w, &o1),
                        );
                        same(
                            &format!("1-d rank {size} {what}"),
                            rank_filter_with(&x1, 1, w, &o1),
                            rank_filter_with(&g1, 1, w, &o1),
                        );
                        same(
                            &format!("1-d min1d {size} {what}"),
                            minimum_filter1d_with(&x1, size, 0, &o1),
                            minimum_filter1d_with(&g1, size, 0, &o1),
                        );
                    }
                    for size in [vec![3], vec![2, 5]] {
                        let w = Window::Size(&size);
                        same(
                            &format!("box median {size:?} {what}"),
                            median_filter_with(&x2, w, &o),
                            median_filter_with(&g2, w, &o),
                        );
                        same(
                            &format!("box min {size:?} {what}"),
                            minimum_filter_with(&x2, w, &o),
                            minimum_filter_with(&g2, w, &o),
                        );
                        same(
                            &format!("box max {size:?} {what}"),
                            maximum_filter_with(&x2, w, &o),
                            maximum_filter_with(&g2, w, &o),
                        );
                    }
                    let w3 = Window::Size(&[3]);
                    same(
                        &format!("3-d median {what}"),
                        median_filter_with(&x3, w3, &o),
                        median_filter_with(&g3, w3, &o),
                    );
                    same(
                        &format!("3-d max {what}"),
                        maximum_filter_with(&x3, w3, &o),
                        maximum_filter_with(&g3, w3, &o),
                    );
                    for k in [3usize, 7, 17] {
                        let mask: Vec<bool> = (0..k * k).map(|i| i == 0 || rng.uniform() < 0.9).collect();
                        let fp = cuprum::from_slice(&mask, &[k, k], &Device::Cpu)?;
                        let fpg = on(&gpu, &fp);
                        let (w, wg) = (Window::Footprint(&fp), Window::Footprint(&fpg));
                        same(
                            &format!("fp {k} median {what}"),
                            median_filter_with(&x2, w, &o),
                            median_filter_with(&g2, wg, &o),
                        );
                        same(
                            &format!("fp {k} rank {what}"),
                            rank_filter_with(&x2, 2, w, &o),
                            rank_filter_with(&g2, 2, wg, &o),
                        );
                        same(
                            &format!("fp {k} min {what}"),
                            minimum_filter_with(&x2, w, &o),
                            minimum_filter_with(&g2, wg, &o),
                        );
                        same(
                            &format!("fp {k} max {what}"),
                            maximum_filter_with(&x2, w, &o),
                            maximum_filter_with(&g2, wg, &o),
                        );
                    }
                    let st = cuprum::from_slice(&[0.5, 1.0, -2.0, 3.0, 0.0, 1.25], &[2, 3], &Device::Cpu)?;
                    let stg = on(&gpu, &st);
                    let w = GreyWindow { structure: Some(&st), ..Default::default() };
                    let wg = GreyWindow { structure: Some(&stg), ..Default::default() };
                    same(&format!("erosion {what}"), grey_erosion_with(&x2, w, &o), grey_erosion_with(&g2, wg, &o));
                    same(&format!("dilation {what}"), grey_dilation_with(&x2, w, &o), grey_dilation_with(&g2, wg, &o));
                }
            }
        }
    }
    // float16 on SciPy's 1-d path; a line too short for it (the quickselect instead).
    let h = with_nans(&[500], DType::Float16, 0.2, &mut rng);
    let hg = on(&gpu, &h);
    for mode in MODES {
        let o = opts(mode, f64::NAN, &[]);
        same(
            "float16 median",
            median_filter_with(&h, Window::Size(&[5]), &o),
            median_filter_with(&hg, Window::Size(&[5]), &o),
        );
        let s = h.slice(s![..2]).unwrap();
        let sg = hg.slice(s![..2]).unwrap();
        same(
            "short line",
            median_filter_with(&s, Window::Size(&[5]), &o),
            median_filter_with(&sg, Window::Size(&[5]), &o),
        );
    }
    Ok(())
});
