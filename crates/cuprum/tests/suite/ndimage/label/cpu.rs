//! The CPU labelling (runs, chunks of lines in parallel, links across chunks) against a plain
//! flood fill in C order (SciPy's numbering: components numbered in the C order of their first
//! element), on random images from 1-d to 4-d with every connectivity and random symmetric
//! structures (among them ones that do not join an element to the one before it on its line,
//! and ones whose steps along a neighbour line are `{-1, 1}`), in every input dtype, large
//! enough to be split among threads; and the labels bit for bit the same with 1 thread, the
//! default pool and 5 threads. Several shapes are above the size (2^17 elements) from which the
//! work is split into chunks.

use crate::common::Rng;
use cuprum::scipy::ndimage::{generate_binary_structure, label_into, label_with, LabelOptions};
use cuprum::{Array, DType, Device};

/// A random bool image of `shape` with about `p` of its elements set, as bools.
fn mask(shape: &[usize], p: f64, rng: &mut Rng) -> Vec<bool> {
    let n: usize = shape.iter().product();
    (0..n).map(|_| rng.uniform() < p).collect()
}

/// A random symmetric `3^nd` structure (centre set), each pair set with probability `p`.
fn random_structure(nd: usize, p: f64, rng: &mut Rng) -> Vec<bool> {
    let n = 3usize.pow(nd as u32);
    let mut s = vec![false; n];
    for i in 0..n / 2 {
        let v = rng.uniform() < p;
        s[i] = v;
        s[n - 1 - i] = v;
    }
    s[n / 2] = true;
    s
}

/// The labels of `m` by a flood fill in C order over the structure `st` (`3^nd`, symmetric).
fn flood(m: &[bool], shape: &[usize], st: &[bool]) -> (Vec<i64>, usize) {
    let nd = shape.len();
    let offsets: Vec<Vec<isize>> = (0..st.len())
        .filter(|&i| st[i] && i != st.len() / 2)
        .map(|i| {
            let mut d = vec![0isize; nd];
            let mut r = i;
            for k in (0..nd).rev() {
                d[k] = (r % 3) as isize - 1;
                r /= 3;
            }
            d
        })
        .collect();
    let coords = |mut i: usize| {
        let mut c = vec![0usize; nd];
        for k in (0..nd).rev() {
            c[k] = i % shape[k];
            i /= shape[k];
        }
        c
    };
    let mut lab = vec![0i64; m.len()];
    let mut n = 0;
    let mut stack = Vec::new();
    for s in 0..m.len() {
        if !m[s] || lab[s] != 0 {
            continue;
        }
        n += 1;
        lab[s] = n as i64;
        stack.push(s);
        while let Some(p) = stack.pop() {
            let c = coords(p);
            'nb: for d in &offsets {
                let mut q = 0usize;
                for k in 0..nd {
                    let v = c[k] as isize + d[k];
                    if v < 0 || v as usize >= shape[k] {
                        continue 'nb;
                    }
                    q = q * shape[k] + v as usize;
                }
                if m[q] && lab[q] == 0 {
                    lab[q] = n as i64;
                    stack.push(q);
                }
            }
        }
    }
    (lab, n)
}

fn check(m: &[bool], shape: &[usize], st: &[bool], what: &str) {
    let x = cuprum::from_slice(m, shape, &Device::Cpu).unwrap();
    let s = cuprum::from_slice(st, &vec![3; shape.len()], &Device::Cpu).unwrap();
    let (lab, n) = label_with(&x, &LabelOptions { structure: Some(&s) }).unwrap();
    let (want, wn) = flood(m, shape, st);
    assert_eq!(n, wn, "{what}: count");
    let got = lab.to_vec_as::<i64>().unwrap();
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!("{what}: element {i}: {} (flood fill: {})", got[i], want[i]);
    }
}

cpu_test!(label_cpu_matches_a_flood_fill);
fn label_cpu_matches_a_flood_fill() {
    let mut rng = Rng::new(7200);
    let shapes: &[&[usize]] = &[
        &[1],
        &[1, 1, 1],
        &[60, 1, 2300],
        &[1, 70, 1, 90],
        &[70],
        &[100_000],
        &[1, 200],
        &[200, 1],
        &[3, 64],
        &[65, 63],
        &[520, 257],
        &[140_000, 1],
        &[2, 70_000],
        &[5, 7, 9],
        &[50, 50, 60],
        &[3, 150, 160],
        &[6, 7, 8, 9],
        &[14, 11, 23, 41],
    ];
    for shape in shapes {
        let nd = shape.len();
        for p in [0.1, 0.5, 0.6, 0.9] {
            let m = mask(shape, p, &mut rng);
            for conn in 1..=nd {
                let st = generate_binary_structure(nd, conn).unwrap().to_vec::<bool>().unwrap();
                check(&m, shape, &st, &format!("{shape:?} p={p} connectivity {conn}"));
            }
            for _ in 0..3 {
                let st = random_structure(nd, 0.4, &mut rng);
                check(&m, shape, &st, &format!("{shape:?} p={p} structure {st:?}"));
            }
        }
    }
    // Structures with no neighbour on the line itself, and with steps {-1, 1} on a neighbour
    // line (the corners): one-element runs that fit between the two shifted steps.
    let corners = [true, false, true, false, true, false, true, false, true];
    let columns = [false, true, false, false, true, false, false, true, false];
    let none = [false, false, false, false, true, false, false, false, false];
    for p in [0.3, 0.7] {
        let m = mask(&[301, 299], p, &mut rng);
        for st in [&corners, &columns, &none] {
            check(&m, &[301, 299], st, &format!("p={p} structure {st:?}"));
        }
    }
}

cpu_test!(label_cpu_reads_every_dtype);
fn label_cpu_reads_every_dtype() {
    let mut rng = Rng::new(7201);
    let shape = [257, 300];
    // Zeros (and -0.0), small values, and for floats NaN and inf, which are nonzero.
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|_| {
            let u = rng.uniform();
            match (u * 20.0) as usize {
                0..=9 => 0.0,
                10 => -0.0,
                11 => f64::NAN,
                12 => f64::INFINITY,
                _ => (u * 100.0).floor() - 60.0,
            }
        })
        .collect();
    let m: Vec<bool> = v.iter().map(|&x| x != 0.0).collect();
    let x = cuprum::from_slice(&v, &shape, &Device::Cpu).unwrap();
    for dt in cuprum::dtype::REAL_DTYPES {
        if dt == DType::Float16 {
            continue;
        }
        // Integers: the finite values (NaN/inf as 1 so that the mask stays the same).
        let xd = if dt.is_float() {
            x.astype(dt).unwrap()
        } else {
            let fin: Vec<f64> = v.iter().map(|&a| if a.is_finite() { a } else { 1.0 }).collect();
            cuprum::from_slice(&fin, &shape, &Device::Cpu).unwrap().astype(dt).unwrap()
        };
        let md: Vec<bool> = xd.astype(DType::Bool).unwrap().to_vec::<bool>().unwrap();
        assert_eq!(md, m, "{dt}: the mask");
        for conn in [1, 2] {
            let s = generate_binary_structure(2, conn).unwrap();
            let (lab, k) = label_with(&xd, &LabelOptions { structure: Some(&s) }).unwrap();
            let (want, wk) = flood(&m, &shape, &s.to_vec::<bool>().unwrap());
            assert_eq!((k, lab.to_vec_as::<i64>().unwrap()), (wk, want), "{dt} connectivity {conn}");
        }
    }
}

/// The labels and counts of several inputs and structures, as int32 and through `label_into`
/// int64 and uint32 (a copy), and into the input's own memory.
fn run_all(inputs: &[(Array, Option<Array>)]) -> Vec<(Vec<i64>, usize)> {
    let mut r = Vec::new();
    for (x, s) in inputs {
        let (lab, n) = label_with(x, &LabelOptions { structure: s.as_ref() }).unwrap();
        assert_eq!(lab.dtype(), DType::Int32);
        r.push((lab.to_vec_as::<i64>().unwrap(), n));
        for dt in [DType::Int64, DType::UInt32] {
            let o = cuprum::zeros(x.shape(), dt, &Device::Cpu).unwrap();
            let n = label_into(x, s.as_ref(), &o).unwrap();
            r.push((o.to_vec_as::<i64>().unwrap(), n));
        }
        let own = x.astype(DType::Int32).unwrap();
        let n = label_into(&own, s.as_ref(), &own).unwrap();
        r.push((own.to_vec_as::<i64>().unwrap(), n));
    }
    r
}

cpu_test!(label_cpu_does_not_depend_on_the_number_of_threads);
fn label_cpu_does_not_depend_on_the_number_of_threads() {
    let mut rng = Rng::new(7202);
    let mut inputs = Vec::new();
    let shapes = [
        (&[700usize, 500][..], 0.59),
        (&[512, 512], 0.3),
        (&[64, 70, 80], 0.25),
        (&[30, 40, 50], 0.2),
        (&[100_000], 0.5),
    ];
    for (shape, p) in shapes {
        let x = cuprum::from_slice(&mask(shape, p, &mut rng), shape, &Device::Cpu).unwrap();
        let nd = shape.len();
        for conn in 1..=nd {
            inputs.push((x.clone(), Some(generate_binary_structure(nd, conn).unwrap())));
        }
        let st = random_structure(nd, 0.4, &mut rng);
        inputs.push((x.clone(), Some(cuprum::from_slice(&st, &vec![3; nd], &Device::Cpu).unwrap())));
        inputs.push((x.astype(DType::Float32).unwrap(), None));
    }
    let pool = |k: usize| rayon::ThreadPoolBuilder::new().num_threads(k).build().unwrap();
    let one = pool(1).install(|| run_all(&inputs));
    let five = pool(5).install(|| run_all(&inputs));
    let default = run_all(&inputs);
    assert_eq!(one.len(), inputs.len() * 4);
    for (k, ((a, b), c)) in one.iter().zip(&default).zip(&five).enumerate() {
        assert!(a.1 > 1, "case {k}: a trivial image ({} labels)", a.1);
        assert!(a == b && a == c, "case {k}: 1 thread, the default pool and 5 threads differ");
    }
}
