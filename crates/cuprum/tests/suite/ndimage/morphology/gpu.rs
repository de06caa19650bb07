//! The GPU's binary morphology against the CPU's on seeded random inputs: every operation,
//! 1-d to 4-d shapes (rows around and across the 32-pixel words, a 2048 x 2048 sparse image,
//! a long 1-d signal), views (transposed, strided, reversed), every input dtype (float16:
//! both refuse it), default, full, irregular, even-sized, iterated and centre-less structures,
//! origins, masks, border values, iterations 1, 3, 10 and until stable, fill_holes; and an
//! input and a mask on different devices.

use crate::common::{on, random, Rng};
use cuprum::scipy::ndimage::{
    binary_closing_with, binary_dilation_with, binary_erosion_with, binary_fill_holes, binary_fill_holes_with,
    binary_opening_with, generate_binary_structure, iterate_structure, BinaryOptions, FillHolesOptions,
};
use cuprum::{s, Array, DType, Device, ErrorKind};

/// A view of an array.
type View = fn(&Array) -> Array;

/// The same call on both devices: the same bools (or errors of the same kind).
fn agree(what: &str, cpu: cuprum::Result<Array>, gpu: cuprum::Result<Array>, dev: &Device) {
    match (cpu, gpu) {
        (Ok(c), Ok(g)) => {
            assert_eq!(g.device(), *dev, "{what}: device");
            assert_eq!((g.dtype(), g.shape()), (c.dtype(), c.shape()), "{what}: dtype and shape");
            let (cv, gv) = (c.to_vec::<bool>().unwrap(), g.to_device(&Device::Cpu).unwrap().to_vec::<bool>().unwrap());
            if let Some(i) = (0..cv.len()).find(|&i| cv[i] != gv[i]) {
                panic!("{what}: element {i} of {:?}: GPU {}, CPU {}", c.shape(), gv[i], cv[i]);
            }
        }
        (Err(c), Err(g)) => assert_eq!(c.kind(), g.kind(), "{what}: CPU {c}, GPU {g}"),
        (c, g) => panic!("{what}: CPU {:?}, GPU {:?}", c.map(|a| a.shape().to_vec()), g.map(|a| a.shape().to_vec())),
    }
}

/// A random bool image of `shape` with density `p`.
fn image(shape: &[usize], p: f64, rng: &mut Rng) -> Array {
    let n: usize = shape.iter().product();
    let v: Vec<bool> = (0..n).map(|_| rng.uniform() < p).collect();
    cuprum::from_slice(&v, shape, &Device::Cpu).unwrap()
}

/// Every operation with options `o` (its arrays on the CPU; moved to the GPU for the GPU run).
fn all_ops(gpu: &Device, what: &str, x: &Array, o: &BinaryOptions<'_>) {
    let xg = on(gpu, x);
    let mg = o.mask.map(|m| on(gpu, m));
    let og = BinaryOptions { mask: mg.as_ref(), ..o.clone() };
    type Op = fn(&Array, &BinaryOptions<'_>) -> cuprum::Result<Array>;
    let ops: [(&str, Op); 4] = [
        ("erosion", binary_erosion_with),
        ("dilation", binary_dilation_with),
        ("opening", binary_opening_with),
        ("closing", binary_closing_with),
    ];
    for (name, f) in ops {
        agree(
            &format!("{what} {name} it={} bv={} o={:?}", o.iterations, o.border_value, o.origin),
            f(x, o),
            f(&xg, &og),
            gpu,
        );
    }
}

fn structures(rank: usize, rng: &mut Rng) -> Vec<(String, Array)> {
    let gbs = |c| generate_binary_structure(rank, c).unwrap();
    let mut irregular = image(&vec![3; rank], 0.6, rng);
    let centre = vec![1usize; rank];
    irregular = {
        let mut v = irregular.to_vec::<bool>().unwrap();
        let c = centre.iter().fold(0, |a, &i| a * 3 + i);
        v[c] = true;
        cuprum::from_slice(&v, &vec![3; rank], &Device::Cpu).unwrap()
    };
    let mut even_shape = vec![2; rank];
    even_shape[0] = 4;
    let even = {
        let mut v = image(&even_shape, 0.6, rng).to_vec::<bool>().unwrap();
        v[even_shape.iter().fold(0, |a, &n| a * n + n / 2)] = true;
        cuprum::from_slice(&v, &even_shape, &Device::Cpu).unwrap()
    };
    vec![
        ("cross".into(), gbs(1)),
        ("full".into(), gbs(rank)),
        ("irregular".into(), irregular),
        ("even".into(), even),
        ("iterated".into(), iterate_structure(&gbs(1), 3).unwrap()),
    ]
}

gpu_test!(random_images, |gpu| {
    let mut rng = Rng::new(0x4d4f5250);
    let shapes: [&[usize]; 9] =
        [&[1], &[5000], &[33], &[37, 70], &[1, 64], &[64, 1], &[9, 10, 67], &[3, 4, 5, 40], &[200, 129]];
    for shape in shapes {
        let rank = shape.len();
        let x = image(shape, 0.6, &mut rng);
        let mask = image(shape, 0.7, &mut rng);
        for (sname, st) in structures(rank, &mut rng) {
            for it in [1, 3, 10, 40, 0] {
                for bv in [false, true] {
                    let o =
                        BinaryOptions { structure: Some(&st), iterations: it, border_value: bv, ..Default::default() };
                    all_ops(&gpu, &format!("{shape:?} {sname}"), &x, &o);
                }
            }
            let o = BinaryOptions { structure: Some(&st), iterations: 2, mask: Some(&mask), ..Default::default() };
            all_ops(&gpu, &format!("{shape:?} {sname} mask"), &x, &o);
            let o = BinaryOptions { structure: Some(&st), iterations: -1, mask: Some(&mask), ..Default::default() };
            all_ops(&gpu, &format!("{shape:?} {sname} mask until stable"), &x, &o);
            agree(
                &format!("{shape:?} {sname} fill_holes"),
                binary_fill_holes_with(&x, &FillHolesOptions { structure: Some(&st), ..Default::default() }),
                binary_fill_holes_with(&on(&gpu, &x), &FillHolesOptions { structure: Some(&st), ..Default::default() }),
                &gpu,
            );
        }
        // Origins: the most negative and the most positive for a 3-wide structure.
        for origin in [vec![-1], vec![1]] {
            let o = BinaryOptions { iterations: 2, origin, ..Default::default() };
            all_ops(&gpu, &format!("{shape:?} origin"), &x, &o);
        }
        // A centre-less structure: fixed counts, and until stable (ends or cycles alike).
        let mut ring = generate_binary_structure(rank, rank)?.to_vec::<bool>()?;
        let mid = ring.len() / 2;
        ring[mid] = false;
        let ring = cuprum::from_slice(&ring, &vec![3; rank], &Device::Cpu)?;
        for it in [1, 4, 37, -1] {
            for bv in [false, true] {
                let o =
                    BinaryOptions { structure: Some(&ring), iterations: it, border_value: bv, ..Default::default() };
                agree(
                    &format!("{shape:?} ring it={it}"),
                    binary_erosion_with(&x, &o),
                    binary_erosion_with(&on(&gpu, &x), &o),
                    &gpu,
                );
            }
        }
        agree(&format!("{shape:?} fill_holes"), binary_fill_holes(&x), binary_fill_holes(&on(&gpu, &x)), &gpu);
    }
    Ok(())
});

gpu_test!(large_sparse, |gpu| {
    // The bench's shape: 2048 x 2048, about 3% True, also until stable and filled.
    let mut rng = Rng::new(0x5350_4152);
    let x = image(&[2048, 2048], 0.97, &mut rng);
    let xg = on(&gpu, &x);
    for it in [1, 10, -1] {
        let o = BinaryOptions { iterations: it, ..Default::default() };
        agree(&format!("2048 erosion it={it}"), binary_erosion_with(&x, &o), binary_erosion_with(&xg, &o), &gpu);
        agree(&format!("2048 dilation it={it}"), binary_dilation_with(&x, &o), binary_dilation_with(&xg, &o), &gpu);
    }
    let sparse = image(&[2048, 2048], 0.03, &mut rng);
    let o = BinaryOptions { iterations: 10, ..Default::default() };
    agree("2048 sparse erosion", binary_erosion_with(&sparse, &o), binary_erosion_with(&on(&gpu, &sparse), &o), &gpu);
    let holes = image(&[512, 700], 0.45, &mut rng);
    agree("fill_holes 512x700", binary_fill_holes(&holes), binary_fill_holes(&on(&gpu, &holes)), &gpu);
    Ok(())
});

gpu_test!(dtypes_and_views, |gpu| {
    let mut rng = Rng::new(0x5649_4557);
    for dt in cuprum::dtype::REAL_DTYPES {
        let x = random(&[23, 45], dt, &mut rng, true);
        let xg = on(&gpu, &x);
        let views: [(&str, View); 4] = [
            ("contiguous", |a| a.view()),
            ("transposed", |a| a.t()),
            ("strided", |a| a.slice(s![1..;2, ..;3]).unwrap()),
            ("reversed", |a| a.slice(s![..;-1, ..;-1]).unwrap()),
        ];
        for (vname, v) in views {
            let o = BinaryOptions { iterations: 2, ..Default::default() };
            let what = format!("{dt} {vname}");
            agree(&format!("{what} erosion"), binary_erosion_with(&v(&x), &o), binary_erosion_with(&v(&xg), &o), &gpu);
            agree(
                &format!("{what} dilation"),
                binary_dilation_with(&v(&x), &o),
                binary_dilation_with(&v(&xg), &o),
                &gpu,
            );
            agree(&format!("{what} fill_holes"), binary_fill_holes(&v(&x)), binary_fill_holes(&v(&xg)), &gpu);
            let m = v(&x);
            let xb = image(m.shape(), 0.6, &mut rng);
            let mo = BinaryOptions { mask: Some(&m), ..Default::default() };
            let mg = v(&xg);
            let mog = BinaryOptions { mask: Some(&mg), ..Default::default() };
            agree(
                &format!("{what} mask"),
                binary_erosion_with(&xb, &mo),
                binary_erosion_with(&on(&gpu, &xb), &mog),
                &gpu,
            );
        }
    }
    Ok(())
});

gpu_test!(device_mismatch, |gpu| {
    let x = cuprum::ones(&[4, 5], DType::Bool, &gpu)?;
    let m = cuprum::ones(&[4, 5], DType::Bool, &Device::Cpu)?;
    let o = BinaryOptions { mask: Some(&m), ..Default::default() };
    assert_eq!(binary_erosion_with(&x, &o).unwrap_err().kind(), ErrorKind::ValueError);
    assert_eq!(binary_dilation_with(&x, &o).unwrap_err().kind(), ErrorKind::ValueError);
    // A structure on the GPU with a host input is a parameter: read, not refused.
    let sg = on(&gpu, &generate_binary_structure(2, 1)?);
    let xc = cuprum::ones(&[4, 5], DType::Bool, &Device::Cpu)?;
    let r = binary_erosion_with(&xc, &BinaryOptions { structure: Some(&sg), ..Default::default() })?;
    assert_eq!(r.device(), Device::Cpu);
    Ok(())
});
