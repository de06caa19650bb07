//! `scipy.ndimage`'s binary morphology: values SciPy printed, on every device; SciPy's errors;
//! and every operation against a direct per-pixel implementation of SciPy's iterated step
//! on random inputs (also inputs smaller than the structure, where SciPy's default algorithm
//! for several iterations is wrong).

mod gpu;

use crate::common::{on, Rng};
use cuprum::scipy::ndimage::{
    binary_closing_with, binary_dilation, binary_dilation_with, binary_erosion, binary_erosion_with, binary_fill_holes,
    binary_fill_holes_with, binary_opening_with, generate_binary_structure, iterate_structure,
    iterate_structure_origin, BinaryOptions, FillHolesOptions,
};
use cuprum::{Array, DType, Device, ErrorKind};

/// SciPy's 6 x 7 example: a block of ones with a hole at (2, 3) and a lone pixel at (0, 0).
const A: [i64; 42] = [
    1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0,
    0, 0, 0, 0,
];

fn bools(v: &[i64]) -> Vec<bool> {
    v.iter().map(|&b| b != 0).collect()
}

fn img(dev: &Device) -> cuprum::Result<Array> {
    cuprum::from_slice(&A, &[6, 7], dev)
}

device_test!(scipy_values, |dev| {
    let a = img(&dev)?;
    let d = BinaryOptions::default();
    let got = |r: cuprum::Result<Array>| -> cuprum::Result<Vec<bool>> {
        let r = r?;
        assert_eq!((r.dtype(), r.shape(), r.device()), (DType::Bool, &[6usize, 7][..], dev));
        r.to_vec::<bool>()
    };
    let mut e = vec![0i64; 42];
    e[23] = 1;
    e[25] = 1;
    assert_eq!(got(binary_erosion_with(&a, &d))?, bools(&e));
    assert_eq!(got(binary_erosion_with(&a, &BinaryOptions { border_value: true, ..Default::default() }))?, bools(&e));
    assert_eq!(got(binary_dilation_with(&a, &BinaryOptions { iterations: 2, ..Default::default() }))?, vec![true; 42]);
    let s = cuprum::from_slice(&[1i64, 1, 0, 1], &[2, 2], &dev)?;
    let want = [
        0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0,
        0, 0, 0, 0, 0,
    ];
    let o = BinaryOptions { structure: Some(&s), origin: vec![0, -1], ..Default::default() };
    assert_eq!(got(binary_dilation_with(&a, &o))?, bools(&want));
    let want = [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0,
    ];
    let o = BinaryOptions { structure: Some(&s), origin: vec![-1, 0], ..Default::default() };
    assert_eq!(got(binary_erosion_with(&a, &o))?, bools(&want));
    // Until stable under a mask: the columns from 4 on keep their input.
    let mask: Vec<bool> = (0..42).map(|i| i % 7 < 4).collect();
    let m = cuprum::from_slice(&mask, &[6, 7], &dev)?;
    let want = [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0,
        0, 0, 0, 0, 0,
    ];
    let o = BinaryOptions { iterations: 0, mask: Some(&m), ..Default::default() };
    assert_eq!(got(binary_erosion_with(&a, &o))?, bools(&want));
    let filled = [
        1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0,
        0, 0, 0, 0, 0,
    ];
    assert_eq!(got(binary_fill_holes(&a))?, bools(&filled));
    let full = generate_binary_structure(2, 2)?;
    assert_eq!(
        got(binary_opening_with(&a, &BinaryOptions { structure: Some(&full), ..Default::default() }))?,
        vec![false; 42]
    );
    let mut closed = filled;
    closed[0] = 0;
    assert_eq!(got(binary_closing_with(&a, &d))?, bools(&closed));
    // 1-d: until stable erodes everything; two steps with border_value 1.
    let x = cuprum::from_slice(&[0i32, 1, 1, 1, 1, 1, 1, 1, 0, 1], &[10], &dev)?;
    assert_eq!(
        got1(binary_erosion_with(&x, &BinaryOptions { iterations: -1, ..Default::default() }))?,
        vec![false; 10]
    );
    let o = BinaryOptions { iterations: 2, border_value: true, ..Default::default() };
    assert_eq!(got1(binary_erosion_with(&x, &o))?, bools(&[0, 0, 0, 1, 1, 1, 0, 0, 0, 0]));
    Ok(())
});

fn got1(r: cuprum::Result<Array>) -> cuprum::Result<Vec<bool>> {
    r?.to_vec::<bool>()
}

device_test!(edge_cases, |dev| {
    // 0-d inputs: the default structure is a 0-d True.
    let t = cuprum::from_slice(&[0.5f64], &[], &dev)?;
    let r = binary_dilation(&t)?;
    assert_eq!((r.shape(), r.to_vec::<bool>()?), (&[][..], vec![true]));
    let f = cuprum::from_slice(&[0u8], &[], &dev)?;
    assert_eq!(
        binary_erosion_with(&f, &BinaryOptions { border_value: true, ..Default::default() })?.to_vec::<bool>()?,
        [false]
    );
    // A 0-d image has no edge for the background to reach: SciPy fills its one pixel.
    assert_eq!(binary_fill_holes(&f)?.to_vec::<bool>()?, [true]);
    // Empty inputs, also until stable.
    let e = cuprum::zeros(&[0, 4], DType::Float32, &dev)?;
    let r = binary_erosion_with(&e, &BinaryOptions { iterations: -1, ..Default::default() })?;
    assert_eq!((r.shape(), r.dtype()), (&[0usize, 4][..], DType::Bool));
    // NaN is nonzero.
    let n = cuprum::from_slice(&[f64::NAN, f64::NAN, f64::NAN], &[3], &dev)?;
    assert_eq!(
        binary_erosion_with(&n, &BinaryOptions { border_value: true, ..Default::default() })?.to_vec::<bool>()?,
        [true; 3]
    );
    // A structure with no True element: an erosion is all True, a dilation all False.
    let x = img(&dev)?;
    let z = cuprum::zeros(&[3, 3], DType::Bool, &dev)?;
    let o = BinaryOptions { structure: Some(&z), ..Default::default() };
    assert_eq!(binary_erosion_with(&x, &o)?.to_vec::<bool>()?, vec![true; 42]);
    assert_eq!(binary_dilation_with(&x, &o)?.to_vec::<bool>()?, vec![false; 42]);
    // Many iterations end, as SciPy's, once a step changes nothing.
    let big = BinaryOptions { iterations: 1_000_000_000, ..Default::default() };
    let until = BinaryOptions { iterations: -1, ..Default::default() };
    assert_eq!(binary_dilation_with(&x, &big)?.to_vec::<bool>()?, binary_dilation_with(&x, &until)?.to_vec::<bool>()?);
    assert_eq!(binary_dilation_with(&x, &big)?.to_vec::<bool>()?, vec![true; 42]);
    // A structure on another device is read as a parameter.
    let cross = generate_binary_structure(2, 1)?;
    let o = BinaryOptions { structure: Some(&cross), iterations: 2, ..Default::default() };
    assert_eq!(binary_erosion_with(&x, &o)?.to_vec::<bool>()?, vec![false; 42]);
    Ok(())
});

device_test!(errors, |dev| {
    let x = img(&dev)?;
    let kind = |r: cuprum::Result<Array>| r.map(|_| ()).unwrap_err().kind();
    let s1 = cuprum::ones(&[3], DType::Bool, &dev)?;
    let o = BinaryOptions { structure: Some(&s1), ..Default::default() };
    assert_eq!(kind(binary_erosion_with(&x, &o)), ErrorKind::RuntimeError);
    // SciPy's dilation indexes the structure's shape first: an IndexError.
    assert_eq!(kind(binary_dilation_with(&x, &o)), ErrorKind::IndexError);
    assert_eq!(
        kind(binary_fill_holes_with(&x, &FillHolesOptions { structure: Some(&s1), ..Default::default() })),
        ErrorKind::IndexError
    );
    let s3 = cuprum::ones(&[3, 3, 3], DType::Bool, &dev)?;
    let o = BinaryOptions { structure: Some(&s3), ..Default::default() };
    assert_eq!(kind(binary_dilation_with(&x, &o)), ErrorKind::RuntimeError);
    let empty = cuprum::ones(&[0, 3], DType::Bool, &dev)?;
    let o = BinaryOptions { structure: Some(&empty), ..Default::default() };
    assert_eq!(kind(binary_erosion_with(&x, &o)), ErrorKind::RuntimeError);
    let m = cuprum::ones(&[6, 6], DType::Bool, &dev)?;
    assert_eq!(
        kind(binary_erosion_with(&x, &BinaryOptions { mask: Some(&m), ..Default::default() })),
        ErrorKind::RuntimeError
    );
    let m16 = cuprum::ones(&[6, 7], DType::Float16, &dev)?;
    assert_eq!(
        kind(binary_erosion_with(&x, &BinaryOptions { mask: Some(&m16), ..Default::default() })),
        ErrorKind::RuntimeError
    );
    assert_eq!(kind(binary_erosion(&x.astype(DType::Float16)?)), ErrorKind::RuntimeError);
    // ... but fill_holes takes float16 (np.logical_not does).
    assert!(binary_fill_holes(&x.astype(DType::Float16)?).is_ok());
    for origin in [vec![0, 0, 0], vec![1, 1, 1]] {
        let o = BinaryOptions { origin: origin.clone(), ..Default::default() };
        assert_eq!(kind(binary_erosion_with(&x, &o)), ErrorKind::RuntimeError);
        assert_eq!(kind(binary_dilation_with(&x, &o)), ErrorKind::RuntimeError);
        assert_eq!(
            kind(binary_fill_holes_with(&x, &FillHolesOptions { origin: &origin, ..Default::default() })),
            ErrorKind::RuntimeError
        );
    }
    // Origins outside the structure (SciPy: an IndexError or a crash): a ValueError.
    let s2 = cuprum::ones(&[2, 2], DType::Bool, &dev)?;
    for (s, origin) in [(None, vec![2]), (None, vec![-2]), (Some(&s2), vec![1]), (Some(&s2), vec![-2])] {
        let o = BinaryOptions { structure: s, origin: origin.clone(), ..Default::default() };
        assert_eq!(kind(binary_erosion_with(&x, &o)), ErrorKind::ValueError, "{origin:?}");
        assert_eq!(kind(binary_dilation_with(&x, &o)), ErrorKind::ValueError, "{origin:?}");
        assert_eq!(kind(binary_opening_with(&x, &o)), ErrorKind::ValueError, "{origin:?}");
    }
    let ok = BinaryOptions { structure: Some(&s2), origin: vec![-1, 0], ..Default::default() };
    assert!(binary_dilation_with(&x, &ok).is_ok());
    // Without the centre, a run until stable can cycle (SciPy loops forever): an error.
    let x = cuprum::from_slice(&[true, false, true], &[3], &dev)?;
    let ring = cuprum::from_slice(&[true, false, true], &[3], &dev)?;
    let o = BinaryOptions { structure: Some(&ring), iterations: 0, border_value: true, ..Default::default() };
    assert_eq!(kind(binary_erosion_with(&x, &o)), ErrorKind::RuntimeError);
    // ... and with a fixed count it alternates.
    let o = BinaryOptions { structure: Some(&ring), iterations: 3, border_value: true, ..Default::default() };
    assert_eq!(binary_erosion_with(&x, &o)?.to_vec::<bool>()?, [false, true, false]);
    assert_eq!(iterate_structure(&empty, 2).unwrap_err().kind(), ErrorKind::ValueError);
    Ok(())
});

device_test!(iterate_structures, |dev| {
    let cross = on(&dev, &generate_binary_structure(2, 1)?);
    let d = iterate_structure(&cross, 3)?;
    assert_eq!((d.shape(), d.dtype(), d.device()), (&[7usize, 7][..], DType::Bool, dev));
    // A diamond of radius 3: |i - 3| + |j - 3| <= 3.
    let want: Vec<bool> = (0..49).map(|k: i64| (k / 7 - 3).abs() + (k % 7 - 3).abs() <= 3).collect();
    assert_eq!(d.to_vec::<bool>()?, want);
    let diag = cuprum::from_slice(&[1i64, 0, 0, 1], &[2, 2], &dev)?;
    let d = iterate_structure(&diag, 3)?;
    assert_eq!(d.to_vec::<bool>()?, (0..16).map(|k| k % 5 == 0).collect::<Vec<_>>());
    // Below 2 iterations: a copy, its dtype kept.
    let c = iterate_structure(&diag, 1)?;
    assert_eq!((c.dtype(), c.to_vec::<i64>()?), (DType::Int64, vec![1, 0, 0, 1]));
    let (d, o) = iterate_structure_origin(&cross, 3, &[1, -1])?;
    assert_eq!((d.shape(), o), (&[7usize, 7][..], vec![3, -3]));
    let (_, o) = iterate_structure_origin(&cross, 1, &[1])?;
    assert_eq!(o, vec![1, 1]);
    Ok(())
});

/// SciPy's step, pixel by pixel: the erosion (or dilation) of `cur` by the taps.
#[allow(clippy::too_many_arguments)]
fn naive_step(
    cur: &[bool],
    x0: &[bool],
    shape: &[usize],
    taps: &[Vec<i64>],
    dil: bool,
    mask: Option<&[bool]>,
    bv: bool,
) -> Vec<bool> {
    let n = cur.len();
    let nd = shape.len();
    (0..n)
        .map(|p| {
            if let Some(m) = mask {
                if !m[p] {
                    return x0[p];
                }
            }
            let mut coord = vec![0i64; nd];
            let mut rem = p;
            for k in (0..nd).rev() {
                coord[k] = (rem % shape[k]) as i64;
                rem /= shape[k];
            }
            let vals = taps.iter().map(|d| {
                let mut lin = 0usize;
                for k in 0..nd {
                    let c = if dil { coord[k] - d[k] } else { coord[k] + d[k] };
                    if c < 0 || c >= shape[k] as i64 {
                        return bv;
                    }
                    lin = lin * shape[k] + c as usize;
                }
                cur[lin]
            });
            let mut vals = vals;
            if dil {
                vals.any(|v| v)
            } else {
                vals.all(|v| v)
            }
        })
        .collect()
}

/// The iterated step (SciPy's `brute_force=True`).
#[allow(clippy::too_many_arguments)]
fn naive(
    x: &[bool],
    shape: &[usize],
    s: &[bool],
    sshape: &[usize],
    origin: &[i64],
    dil: bool,
    it: i64,
    mask: Option<&[bool]>,
    bv: bool,
) -> Vec<bool> {
    let nd = shape.len();
    let mut taps = Vec::new();
    for (i, _) in s.iter().enumerate().filter(|(_, &b)| b) {
        let mut rem = i;
        let mut d = vec![0i64; nd];
        for k in (0..nd).rev() {
            d[k] = (rem % sshape[k]) as i64 - (sshape[k] as i64 / 2 + origin[k]);
            rem /= sshape[k];
        }
        taps.push(d);
    }
    let mut cur = x.to_vec();
    let mut i = 0;
    loop {
        let next = naive_step(&cur, x, shape, &taps, dil, mask, bv);
        i += 1;
        let same = next == cur;
        cur = next;
        if (it >= 1 && i == it) || (it < 1 && same) {
            return cur;
        }
    }
}

fn rand_bools(n: usize, p: f64, rng: &mut Rng) -> Vec<bool> {
    (0..n).map(|_| rng.uniform() < p).collect()
}

device_test!(against_the_iterated_step, |dev| {
    let mut rng = Rng::new(0x6d6f7270);
    for trial in 0..300 {
        let nd = 1 + (rng.next_u64() % 3) as usize;
        let sshape: Vec<usize> = (0..nd).map(|_| 1 + (rng.next_u64() % 4) as usize).collect();
        // Also inputs smaller than the structure, and row lengths around the word sizes.
        let shape: Vec<usize> = (0..nd)
            .map(|k| {
                if k + 1 == nd && trial % 5 == 0 {
                    60 + (rng.next_u64() % 10) as usize
                } else {
                    1 + (rng.next_u64() % 7) as usize
                }
            })
            .collect();
        let n: usize = shape.iter().product();
        let x = rand_bools(n, rng.uniform(), &mut rng);
        let mut s = rand_bools(sshape.iter().product(), 0.6, &mut rng);
        let origin: Vec<i64> = sshape.iter().map(|&k| -((k / 2) as i64) + (rng.next_u64() % k as u64) as i64).collect();
        // The centre tap set for runs until stable (which then always end).
        let centre: usize = sshape.iter().zip(&origin).fold(0, |acc, (&k, &o)| acc * k + (k as i64 / 2 + o) as usize);
        let it = [1i64, 2, 3, 0, -1][(rng.next_u64() % 5) as usize];
        if it < 1 {
            s[centre] = true;
        }
        let mask = if rng.uniform() < 0.4 { Some(rand_bools(n, 0.7, &mut rng)) } else { None };
        let bv = rng.uniform() < 0.5;
        let xa = cuprum::from_slice(&x, &shape, &dev)?;
        let sa = cuprum::from_slice(&s, &sshape, &Device::Cpu)?;
        let ma = mask.as_ref().map(|m| cuprum::from_slice(m, &shape, &dev)).transpose()?;
        let o = BinaryOptions {
            structure: Some(&sa),
            iterations: it,
            mask: ma.as_ref(),
            border_value: bv,
            origin: origin.clone(),
        };
        for dil in [false, true] {
            let got = if dil { binary_dilation_with(&xa, &o)? } else { binary_erosion_with(&xa, &o)? };
            // The dilation's taps are the erosion's reflected: SciPy reflects the structure
            // and shifts even sizes; in tap terms out[p] = OR of in[p - d].
            let want = naive(&x, &shape, &s, &sshape, &origin, dil, it, mask.as_deref(), bv);
            assert_eq!(
                got.to_vec::<bool>()?,
                want,
                "trial {trial}: {shape:?} {sshape:?} {origin:?} it {it} dil {dil} bv {bv}"
            );
        }
    }
    Ok(())
});
