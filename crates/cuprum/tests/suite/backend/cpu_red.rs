//! The CPU reductions, selections, quantiles, sort and unique of issue 12: the same bits on
//! one thread as on the default pool, and the radix sort, introselect and block compaction
//! against plain references (every dtype, NaNs, -0.0, sizes across the block boundaries).

use crate::common::{random, Rng};
use cuprum::{Array, DType, Device};

use cuprum::dtype::REAL_DTYPES as ALL;

/// The elements as float64 bit patterns (exact for every dtype the tests draw: small ints).
fn bits(a: &Array) -> Vec<u64> {
    a.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap().iter().map(|v| v.to_bits()).collect()
}

/// NumPy's order on float64: NaNs last, -0.0 equal to 0.0.
fn np_cmp(a: &f64, b: &f64) -> std::cmp::Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        _ => a.partial_cmp(b).unwrap(),
    }
}

/// Every operation of this family, each result as bits, in a fixed order.
fn run_all(x: &Array, xi: &Array, m: &Array) -> Vec<Vec<u64>> {
    let u = cuprum::unique_with(
        xi,
        &cuprum::UniqueOptions { return_index: true, return_inverse: true, return_counts: true },
    )
    .unwrap();
    vec![
        bits(&x.sum(None).unwrap()),
        bits(&x.mean(None).unwrap()),
        bits(&x.std(None).unwrap()),
        bits(&x.var_with(None, &cuprum::VarOptions { ddof: 1.0, ..Default::default() }).unwrap()),
        bits(&x.median(None).unwrap()),
        bits(&cuprum::percentile(x, 37.5, None).unwrap()),
        bits(&x.reshape([-1isize, 1000]).unwrap().median(1).unwrap()),
        bits(&x.mask(m).unwrap()),
        bits(&x.sort(None).unwrap()),
        bits(&x.argsort(None).unwrap()),
        bits(&x.reshape([-1isize, 1000]).unwrap().sort(1).unwrap()),
        bits(&u.values),
        bits(&u.index.unwrap()),
        bits(&u.inverse.unwrap()),
        bits(&u.counts.unwrap()),
        bits(&x.cumsum(None).unwrap()),
    ]
}

cpu_test!(results_do_not_depend_on_the_number_of_threads);
fn results_do_not_depend_on_the_number_of_threads() {
    let mut rng = Rng::new(1201);
    for dt in [DType::Float32, DType::Float64] {
        // Above every parallel threshold and across several radix / selection blocks.
        let n = 300_000;
        let x = random(&[n], dt, &mut rng, false);
        let xi = random(&[n], DType::Int32, &mut rng, false);
        let m = random(&[n], DType::Bool, &mut rng, false);
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| run_all(&x, &xi, &m));
        let three = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap().install(|| run_all(&x, &xi, &m));
        let default = run_all(&x, &xi, &m);
        assert_eq!(one.len(), 16);
        for (k, ((a, b), c)) in one.iter().zip(&default).zip(&three).enumerate() {
            assert!(!a.is_empty(), "{dt:?} op {k}: empty");
            assert!(a == b && a == c, "{dt:?} op {k}: 1 thread, the default pool and 3 threads differ");
        }
    }
}

cpu_test!(radix_sort_matches_a_stable_sort_in_numpys_order);
fn radix_sort_matches_a_stable_sort_in_numpys_order() {
    let mut rng = Rng::new(1202);
    // Below the comparison-sort cut-off, one radix block, and several blocks; with NaNs and
    // -0.0 (the keyed sort) and without (the sort by ordered bits).
    for (n, specials) in [0usize, 1, 7, 300, 5000, 140_000].into_iter().flat_map(|n| [(n, true), (n, false)]) {
        for dt in ALL {
            let x = random(&[n], dt, &mut rng, specials);
            let v = x.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap();
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&i, &j| np_cmp(&v[i], &v[j]));
            let want_idx: Vec<i64> = order.iter().map(|&i| i as i64).collect();
            let want: Vec<u64> = order.iter().map(|&i| v[i].to_bits()).collect();
            assert_eq!(bits(&x.sort(None).unwrap()), want, "sort {dt:?} n={n} specials {specials}");
            let idx = x.argsort(None).unwrap();
            assert_eq!(idx.dtype(), DType::Int64);
            assert_eq!(idx.to_vec::<i64>().unwrap(), want_idx, "argsort {dt:?} n={n} (stable)");
            // Lanes: each row on its own.
            if n == 5000 {
                let s = x.reshape([50, 100]).unwrap().sort(1).unwrap();
                let got = bits(&s);
                for r in 0..50 {
                    let mut row: Vec<f64> = v[r * 100..(r + 1) * 100].to_vec();
                    row.sort_by(np_cmp);
                    let w: Vec<u64> = row.iter().map(|x| x.to_bits()).collect();
                    assert_eq!(&got[r * 100..(r + 1) * 100], &w[..], "row {r} of {dt:?}");
                }
            }
        }
    }
}

cpu_test!(long_lanes_with_and_without_nans_sort_alike);
fn long_lanes_with_and_without_nans_sort_alike() {
    // Rows long enough for the radix passes, one with a NaN and a -0.0 (the keyed sort),
    // the others without (the sort by ordered bits), sorted in one call.
    let mut rng = Rng::new(1204);
    for dt in [DType::Float16, DType::Float32, DType::Float64, DType::Int16, DType::UInt32] {
        let x = random(&[6, 3000], dt, &mut rng, false);
        let mut v = x.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap();
        if dt.is_float() {
            v[2 * 3000 + 17] = f64::NAN;
            v[2 * 3000 + 18] = -0.0;
            v[2 * 3000 + 19] = 0.0;
            v[2 * 3000 + 20] = -0.0;
        }
        let x = cuprum::from_vec(v.clone(), &Device::Cpu).unwrap().reshape([6, 3000]).unwrap().astype(dt).unwrap();
        let got = bits(&x.sort(1).unwrap());
        for r in 0..6 {
            let mut row = v[r * 3000..(r + 1) * 3000].to_vec();
            row.sort_by(np_cmp);
            let w: Vec<u64> = row.iter().map(|x| x.to_bits()).collect();
            assert_eq!(&got[r * 3000..(r + 1) * 3000], &w[..], "row {r} of {dt:?}");
        }
    }
}

cpu_test!(radix_sort_of_skewed_and_narrow_data);
fn radix_sort_of_skewed_and_narrow_data() {
    // Large enough for several most-significant-digit levels; ranges that leave high digits
    // equal (skipped), buckets far larger than others, constant and two-valued arrays.
    let n = 600_000usize;
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let cases: Vec<(&str, Vec<f64>)> = vec![
        ("narrow", (0..n).map(|_| 1.0 + (next() % 1_000_000) as f64 * 1e-9).collect()),
        (
            "skewed",
            (0..n)
                .map(|i| if i % 10 == 0 { (next() % 1000) as f64 - 500.0 } else { 0.25 + (next() % 7) as f64 })
                .collect(),
        ),
        ("constant", vec![3.5; n]),
        ("two values", (0..n).map(|_| if next() % 2 == 0 { -1.5 } else { 2.0 }).collect()),
        ("wide", (0..n).map(|_| f64::from_bits(next() >> 2) - 1.0).collect()),
    ];
    for (name, v) in cases {
        for dt in [DType::Float32, DType::Float64, DType::Int64, DType::Int32, DType::UInt16] {
            let x = cuprum::from_vec(v.clone(), &Device::Cpu).unwrap().astype(dt).unwrap();
            let mut want = x.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap();
            want.sort_by(np_cmp);
            let want: Vec<u64> = want.iter().map(|v| v.to_bits()).collect();
            assert_eq!(bits(&x.sort(None).unwrap()), want, "{name} {dt:?}");
        }
    }
}

cpu_test!(unique_matches_a_reference_for_every_dtype);
fn unique_matches_a_reference_for_every_dtype() {
    let mut rng = Rng::new(1203);
    for n in [1usize, 600, 90_000] {
        for dt in ALL {
            let x = random(&[n], dt, &mut rng, true);
            let v = x.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap();
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&i, &j| np_cmp(&v[i], &v[j]));
            let (mut vals, mut first, mut counts, mut inv) = (vec![], vec![], vec![], vec![0i64; n]);
            for &i in &order {
                if vals.last().is_none_or(|&u: &f64| np_cmp(&u, &v[i]) != std::cmp::Ordering::Equal) {
                    vals.push(v[i]);
                    first.push(i as i64);
                    counts.push(0i64);
                }
                *counts.last_mut().unwrap() += 1;
                inv[i] = vals.len() as i64 - 1;
            }
            let u = cuprum::unique_with(
                &x,
                &cuprum::UniqueOptions { return_index: true, return_inverse: true, return_counts: true },
            )
            .unwrap();
            assert_eq!(u.values.dtype(), dt);
            assert_eq!(bits(&u.values), vals.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), "{dt:?} n={n}");
            assert_eq!(u.index.unwrap().to_vec::<i64>().unwrap(), first, "{dt:?} n={n}");
            assert_eq!(u.inverse.unwrap().to_vec::<i64>().unwrap(), inv, "{dt:?} n={n}");
            assert_eq!(u.counts.as_ref().unwrap().to_vec::<i64>().unwrap(), counts, "{dt:?} n={n}");
            let plain =
                cuprum::unique_with(&x, &cuprum::UniqueOptions { return_counts: true, ..Default::default() }).unwrap();
            assert_eq!(bits(&plain.values), bits(&u.values));
            assert_eq!(bits(&plain.counts.unwrap()), bits(&u.counts.unwrap()));
        }
    }
}

cpu_test!(median_and_percentiles_match_a_sorted_reference);
fn median_and_percentiles_match_a_sorted_reference() {
    let mut rng = Rng::new(1204);
    for n in [1usize, 2, 9, 10, 1001, 70_000] {
        for dt in ALL {
            let x = random(&[n], dt, &mut rng, false);
            let mut v = x.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap();
            v.sort_by(np_cmp);
            let (lo, hi) = ((n - 1) / 2, n / 2);
            let med = x.median(None).unwrap();
            let want = if matches!(dt, DType::Float16 | DType::Float32) {
                ((v[lo] as f32 + v[hi] as f32) / 2.0) as f64
            } else {
                (v[lo] + v[hi]) / 2.0
            };
            let w = cuprum::full(&[], want, med.dtype(), &Device::Cpu).unwrap();
            assert_eq!(bits(&med), bits(&w), "median {dt:?} n={n}");
            for q in [0.0, 13.0, 50.0, 99.9, 100.0] {
                let vi = q / 100.0 * (n - 1) as f64;
                let (l, h) = (vi.floor() as usize, (vi.ceil() as usize).min(n - 1));
                let t = vi - l as f64;
                let d = v[h] - v[l];
                let want = if t >= 0.5 { v[h] - d * (1.0 - t) } else { v[l] + d * t };
                let got = cuprum::percentile(&x, q, None).unwrap();
                let w = cuprum::full(&[], want, got.dtype(), &Device::Cpu).unwrap();
                assert_eq!(bits(&got), bits(&w), "percentile {q} {dt:?} n={n}");
            }
        }
    }
    // A NaN makes the median NaN; nanmedian skips it.
    let x = cuprum::from_slice(&[3.0f32, f32::NAN, 1.0, 2.0], &[4], &Device::Cpu).unwrap();
    assert!(x.median(None).unwrap().item::<f64>().unwrap().is_nan());
    assert_eq!(cuprum::nanmedian(&x, None).unwrap().item::<f64>().unwrap(), 2.0);
}

cpu_test!(mask_compaction_matches_a_reference);
fn mask_compaction_matches_a_reference() {
    let mut rng = Rng::new(1205);
    // Rows of one element of each size, and rows of several elements; sparse, dense, empty
    // and full masks; sizes across the parallel threshold and the blocks.
    for n in [0usize, 5, 33_000, 200_000] {
        for dt in [DType::Bool, DType::Int16, DType::Float32, DType::Float64, DType::UInt8] {
            for (cols, p) in [(1usize, 0.5), (1, 0.01), (1, 1.0), (1, 0.0), (3, 0.5)] {
                let rows = n / cols;
                let x = random(&[rows, cols], dt, &mut rng, true);
                let flags: Vec<bool> = (0..rows).map(|_| rng.uniform() < p).collect();
                let m = cuprum::from_slice(&flags, &[rows], &Device::Cpu).unwrap();
                let v = bits(&x);
                let want: Vec<u64> =
                    (0..rows).filter(|&r| flags[r]).flat_map(|r| v[r * cols..(r + 1) * cols].to_vec()).collect();
                let got = x.mask(&m).unwrap();
                assert_eq!(got.shape(), &[want.len() / cols, cols]);
                assert_eq!(bits(&got), want, "{dt:?} n={n} cols={cols} p={p}");
            }
        }
    }
}

cpu_test!(contiguous_float_sums_equal_the_strided_walk);
fn contiguous_float_sums_equal_the_strided_walk() {
    // The contiguous fast path and the general strided walk form the same per-chunk partials:
    // a column of a two-column array (strided) gives the same bits as a contiguous copy.
    let mut rng = Rng::new(1206);
    for n in [1usize, 1000, 1025, 70_000, 250_001] {
        for dt in [DType::Float32, DType::Float64] {
            let two = random(&[n, 2], dt, &mut rng, false);
            let col = two.slice(cuprum::s![.., 0]).unwrap();
            let c = col.copy().unwrap();
            assert!(c.is_c_contiguous() && (n == 1 || !col.is_c_contiguous()));
            assert_eq!(bits(&c.sum(None).unwrap()), bits(&col.sum(None).unwrap()), "sum {dt:?} {n}");
            assert_eq!(bits(&c.mean(None).unwrap()), bits(&col.mean(None).unwrap()), "mean {dt:?} {n}");
            assert_eq!(bits(&c.std(None).unwrap()), bits(&col.std(None).unwrap()), "std {dt:?} {n}");
            assert_eq!(
                bits(&c.var_with(None, &cuprum::VarOptions { ddof: 1.0, ..Default::default() }).unwrap()),
                bits(&col.var_with(None, &cuprum::VarOptions { ddof: 1.0, ..Default::default() }).unwrap()),
                "var {dt:?} {n}"
            );
            // And near the exact value.
            let v = c.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap();
            let exact: f64 = v.iter().sum();
            let got = c.sum(None).unwrap().astype(DType::Float64).unwrap().item::<f64>().unwrap();
            assert!(
                (got - exact).abs() <= 1e-5 * v.iter().map(|x| x.abs()).sum::<f64>() + 1e-6,
                "{dt:?} {n}: {got} vs {exact}"
            );
        }
    }
}

cpu_test!(long_cumsum_in_blocks_is_thread_independent_and_close);
fn long_cumsum_in_blocks_is_thread_independent_and_close() {
    // A single lane long enough for the two-pass block scan: the same bits on 1 and on the
    // default threads; integers exact, floats within float32's tolerance of a float64 scan.
    let mut rng = Rng::new(1207);
    let n = (1 << 22) + 12_345;
    for dt in [DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::UInt8] {
        let x = random(&[n], dt, &mut rng, false);
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| x.cumsum(None).unwrap());
        let many = x.cumsum(None).unwrap();
        assert_eq!(bits(&one), bits(&many), "{dt:?}");
        let v = x.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap();
        let got = many.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap();
        let (mut acc, mut abs) = (0f64, 0f64);
        for (i, (&a, &g)) in v.iter().zip(&got).enumerate() {
            acc += a;
            abs += a.abs();
            let tol = if dt.is_float() { 1e-5 * abs } else { 0.0 };
            assert!((g - acc).abs() <= tol, "{dt:?} element {i}: {g} vs {acc}");
        }
    }
}
