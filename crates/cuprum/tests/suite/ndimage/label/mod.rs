//! `scipy.ndimage.label` on every device against values SciPy printed: numbering in the C order
//! of each component's first element, structures (default, 8-connectivity, 3-d), `label_into`
//! (its dtype checks), 0-d and empty inputs, and SciPy's errors; `gpu`: the GPU against the CPU
//! on seeded random images.

mod cpu;
mod gpu;

use cuprum::scipy::ndimage::{generate_binary_structure, label, label_into, label_with, LabelOptions};
use cuprum::{Array, DType, Device, ErrorKind};

fn ints(a: &Array) -> Vec<i64> {
    a.to_vec_as::<i64>().unwrap()
}

device_test!(scipy_docstring_example, |dev| {
    // scipy.ndimage.label's docstring: a = [[0,0,1,1,0,0],[0,0,0,1,0,0],[1,1,0,0,1,0],[0,0,0,1,0,0]]
    let a =
        cuprum::from_slice(&[0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0], &[4, 6], &dev)?;
    let (lab, n) = label(&a)?;
    assert_eq!((n, lab.dtype(), lab.device()), (4, DType::Int32, dev));
    assert_eq!(ints(&lab), [0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 2, 2, 0, 0, 3, 0, 0, 0, 0, 4, 0, 0]);
    let (lab, n) = label_with(&a, &LabelOptions { structure: Some(&generate_binary_structure(2, 2)?) })?;
    assert_eq!(n, 2);
    assert_eq!(ints(&lab), [0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 2, 2, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0]);
    Ok(())
});

device_test!(numbering_follows_first_element, |dev| {
    // A U shape: its right arm starts first in C order (row 0), its left arm too; the bottom
    // joins them only at the end: one component, numbered 1; the dot at (0, 2) is 2.
    // scipy: label([[1,0,1,0,1],[1,0,0,0,1],[1,1,1,1,1]]) -> ([[1,0,2,0,1],[1,0,0,0,1],[1,1,1,1,1]], 2)
    let a = cuprum::from_slice(&[1u8, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1], &[3, 5], &dev)?;
    let (lab, n) = label(&a)?;
    assert_eq!(n, 2);
    assert_eq!(ints(&lab), [1, 0, 2, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1]);
    // A transposed view is labelled as its values (scipy on a.T).
    let (lab, n) = label(&a.t())?;
    assert_eq!(n, 2);
    assert_eq!(ints(&lab), [1, 1, 1, 0, 0, 1, 2, 0, 1, 0, 0, 1, 1, 1, 1]);
    Ok(())
});

device_test!(three_d_and_one_d, |dev| {
    // Two voxels touching by an edge: separate with the faces, one with connectivity 2.
    let mut v = vec![0.0f32; 27];
    v[0] = 1.0;
    v[9 + 3 + 1] = 0.0;
    v[9 + 1] = 2.5; // (1, 0, 1): an edge neighbour of (0, 0, 0)
    let a = cuprum::from_slice(&v, &[3, 3, 3], &dev)?;
    assert_eq!(label(&a)?.1, 2);
    assert_eq!(label_with(&a, &LabelOptions { structure: Some(&generate_binary_structure(3, 2)?) })?.1, 1);
    // scipy: label([1, 1, 0, nan, 0, -2]) -> ([1, 1, 0, 2, 0, 3], 3)
    let b = cuprum::from_vec(vec![1.0, 1.0, 0.0, f64::NAN, 0.0, -2.0], &dev)?;
    let (lab, n) = label(&b)?;
    assert_eq!((ints(&lab), n), (vec![1, 1, 0, 2, 0, 3], 3));
    Ok(())
});

device_test!(label_into_and_edge_cases, |dev| {
    let a = cuprum::from_slice(&[1i64, 0, 1, 0, 1, 0, 1, 0, 1], &[9], &dev)?;
    let out = cuprum::zeros(&[9], DType::UInt8, &dev)?;
    assert_eq!(label_into(&a, None, &out)?, 5);
    assert_eq!(ints(&out), [1, 0, 2, 0, 3, 0, 4, 0, 5]);
    // A bool output holds only one label: SciPy's RuntimeError.
    let ob = cuprum::zeros(&[9], DType::Bool, &dev)?;
    assert_eq!(label_into(&a, None, &ob).unwrap_err().kind(), ErrorKind::RuntimeError);
    let wrong = cuprum::zeros(&[3, 3], DType::Int32, &dev)?;
    assert_eq!(label_into(&a, None, &wrong).unwrap_err().kind(), ErrorKind::ValueError);
    // Into a strided int64 view.
    let big = cuprum::zeros(&[18], DType::Int64, &dev)?;
    let view = big.slice(cuprum::s![..;2])?;
    assert_eq!(label_into(&a, None, &view)?, 5);
    assert_eq!(&ints(&big)[..6], [1, 0, 0, 0, 2, 0]);
    // 0-d and empty inputs (scipy: (array(1), 1), (array(0), 0), (zeros((0, 3)), 0)).
    let (l, n) = label(&cuprum::scalar(2.0, &dev)?)?;
    assert_eq!((l.shape().to_vec(), ints(&l), n), (vec![], vec![1], 1));
    let (l, n) = label(&cuprum::scalar(0u8, &dev)?)?;
    assert_eq!((ints(&l), n), (vec![0], 0));
    let (l, n) = label(&cuprum::zeros(&[0, 3], DType::Bool, &dev)?)?;
    assert_eq!((l.shape().to_vec(), l.dtype(), n), (vec![0, 3], DType::Int32, 0));
    Ok(())
});

device_test!(bad_structures, |dev| {
    let a = cuprum::ones(&[4, 4], DType::Bool, &dev)?;
    let kind = |s: &Array| label_with(&a, &LabelOptions { structure: Some(s) }).unwrap_err().kind();
    // scipy: RuntimeError('structure and input must have equal rank')
    assert_eq!(kind(&cuprum::ones(&[3, 3, 3], DType::Bool, &Device::Cpu)?), ErrorKind::RuntimeError);
    // scipy: ValueError('structure dimensions must be equal to 3')
    assert_eq!(kind(&cuprum::ones(&[3, 5], DType::Bool, &Device::Cpu)?), ErrorKind::ValueError);
    // scipy: AssertionError('Structuring element is not symmetric'): a ValueError here.
    let asym = cuprum::from_slice(&[0u8, 0, 0, 1, 1, 0, 0, 0, 0], &[3, 3], &dev)?;
    assert_eq!(kind(&asym), ErrorKind::ValueError);
    // float16 input: SciPy's loops have none (TypeError).
    assert_eq!(label(&a.astype(DType::Float16)?).unwrap_err().kind(), ErrorKind::TypeError);
    Ok(())
});
