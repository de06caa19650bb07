//! The GPU's labels against the CPU's on seeded random images: densities around the
//! percolation threshold (long, branching components that stress the union-find), every
//! connectivity from 1-d to 4-d, input dtypes, views, large images (more than one block of
//! threads per row, components crossing the CPU's strips), and `label_into` other dtypes.
//! Labels must be equal and so must the counts.

use crate::common::{on, random, Rng};
use cuprum::scipy::ndimage::{generate_binary_structure, label_into, label_with, LabelOptions};
use cuprum::{Array, DType, Device};

/// A random bool image of `shape` with about `p` of its elements set.
fn blobs(shape: &[usize], p: f64, rng: &mut Rng) -> Array {
    let n: usize = shape.iter().product();
    let v: Vec<bool> = (0..n).map(|_| rng.uniform() < p).collect();
    cuprum::from_slice(&v, shape, &Device::Cpu).unwrap()
}

fn agree(gpu: &Device, x: &Array, structure: Option<&Array>, what: &str) {
    let (lc, nc) = label_with(x, &LabelOptions { structure }).unwrap();
    let (lg, ng) = label_with(&on(gpu, x), &LabelOptions { structure }).unwrap();
    assert_eq!(ng, nc, "{what}: counts");
    assert_eq!(lg.device(), *gpu, "{what}");
    assert_eq!(lg.dtype(), lc.dtype(), "{what}");
    let (a, b) = (lc.to_vec::<i32>().unwrap(), lg.to_device(&Device::Cpu).unwrap().to_vec::<i32>().unwrap());
    if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
        panic!("{what}: element {i} of {:?}: GPU {}, CPU {}", x.shape(), b[i], a[i]);
    }
}

gpu_test!(label_random_images, |gpu| {
    let mut rng = Rng::new(7100);
    let shapes: &[&[usize]] = &[
        &[1000],
        &[1, 513],
        &[513, 1],
        &[64, 64],
        &[257, 1031],
        &[1024, 1024],
        &[31, 40, 37],
        &[9, 10, 11, 12],
        &[4, 3, 5, 4, 3],
    ];
    for shape in shapes {
        for p in [0.2, 0.5, 0.6, 0.9] {
            let x = blobs(shape, p, &mut rng);
            for conn in 1..=shape.len() {
                let s = generate_binary_structure(shape.len(), conn)?;
                agree(&gpu, &x, Some(&s), &format!("{shape:?} p={p} connectivity {conn}"));
            }
        }
    }
    Ok(())
});

gpu_test!(label_dtypes_views_and_outputs, |gpu| {
    let mut rng = Rng::new(7101);
    for dt in cuprum::dtype::REAL_DTYPES {
        if dt == DType::Float16 {
            continue;
        }
        let x = random(&[97, 131], dt, &mut rng, true);
        agree(&gpu, &x, None, &format!("{dt}"));
    }
    // Views: transposed, strided and reversed.
    let x = blobs(&[300, 200], 0.55, &mut rng);
    agree(&gpu, &x.t(), None, "transposed");
    agree(&gpu, &x.slice(cuprum::s![1..;3, ..;-2])?, None, "strided, reversed");
    // A long snake-free diagonal structure (only the diagonals connect).
    let diag =
        cuprum::from_slice(&[true, false, false, false, true, false, false, false, true], &[3, 3], &Device::Cpu)?;
    agree(&gpu, &x, Some(&diag), "diagonal structure");
    // label_into other dtypes and a strided output.
    for dt in [DType::UInt32, DType::Int64, DType::Float64] {
        let oc = cuprum::zeros(&[300, 200], dt, &Device::Cpu)?;
        let og = cuprum::zeros(&[300, 200], dt, &gpu)?;
        let nc = label_into(&x, None, &oc)?;
        let ng = label_into(&on(&gpu, &x), None, &og)?;
        assert_eq!(nc, ng);
        assert_eq!(og.to_device(&Device::Cpu)?.to_vec_as::<i64>()?, oc.to_vec_as::<i64>()?, "label_into {dt}");
    }
    Ok(())
});
