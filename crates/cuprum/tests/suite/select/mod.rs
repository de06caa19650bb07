//! Boolean masks, compress, nonzero, argwhere: on every device, against values NumPy printed;
//! `gpu`: the GPU selection kernels against the CPU on seeded random inputs.

pub(crate) mod gpu;

use cuprum::{s, DType};

fn ints(a: &cuprum::Array) -> Vec<i64> {
    a.to_vec_as::<i64>().unwrap()
}

device_test!(masks_like_numpy, |dev| {
    let a = cuprum::arange(24, &dev)?.reshape([2, 3, 4])?;
    let m = a.remainder(3)?.equal(0)?;
    assert_eq!(ints(&a.mask(&m)?), vec![0, 3, 6, 9, 12, 15, 18, 21]);
    let m2 = cuprum::from_slice(&[true, false, true, false, false, true], &[2, 3], &dev)?;
    let rows = a.mask(&m2)?;
    assert_eq!(rows.shape(), &[3, 4]);
    assert_eq!(ints(&rows), vec![0, 1, 2, 3, 8, 9, 10, 11, 20, 21, 22, 23]);
    // On a non-contiguous view, with nothing selected, and wrong shapes.
    let t = a.t();
    let mt = t.remainder(3)?.equal(0)?;
    assert_eq!(ints(&t.mask(&mt)?), ints(&t.copy()?.mask(&mt)?));
    let none = cuprum::zeros(&[2, 3, 4], DType::Bool, &dev)?;
    assert_eq!(a.mask(&none)?.shape(), &[0]);
    assert!(a.mask(&cuprum::zeros(&[3], DType::Bool, &dev)?).is_err());
    assert!(a.mask(&a).is_err());
    // Masked assignment.
    let mut b = a.copy()?;
    b.mask_fill(&m, -1)?;
    assert_eq!(ints(&b)[..7], [-1, 1, 2, -1, 4, 5, -1]);
    let mut c = a.copy()?;
    c.mask_assign(&m2, &cuprum::arange_with(100, 104, 1, DType::Int64, &dev)?)?;
    assert_eq!(ints(&c)[..12], [100, 101, 102, 103, 4, 5, 6, 7, 100, 101, 102, 103]);
    let mut v = cuprum::arange(10, &dev)?;
    let mut view = v.slice_mut(s![..;2])?;
    let sel = view.less(5)?;
    view.mask_fill(&sel, 0)?;
    assert_eq!(ints(&v), vec![0, 1, 0, 3, 0, 5, 6, 7, 8, 9]);
    Ok(())
});

device_test!(nonzero_argwhere_compress, |dev| {
    let a = cuprum::arange(24, &dev)?.reshape([2, 3, 4])?;
    let nz = a.remainder(5)?.equal(0)?.nonzero()?;
    assert_eq!(
        nz.iter().map(ints).collect::<Vec<_>>(),
        vec![vec![0, 0, 0, 1, 1], vec![0, 1, 2, 0, 2], vec![0, 1, 2, 3, 0]]
    );
    let aw = cuprum::argwhere(&a.remainder(7)?.equal(0)?)?;
    assert_eq!(aw.shape(), &[4, 3]);
    assert_eq!(ints(&aw), vec![0, 0, 0, 0, 1, 3, 1, 0, 2, 1, 2, 1]);
    assert_eq!(ints(&cuprum::flatnonzero(&a.greater(20)?)?), vec![21, 22, 23]);
    let cond = cuprum::from_vec(vec![false, true, true], &dev)?;
    let c = a.compress(&cond, 1)?;
    assert_eq!(c.shape(), &[2, 2, 4]);
    assert_eq!(ints(&c)[..4], [4, 5, 6, 7]);
    let c2 = cuprum::compress(&cuprum::from_vec(vec![true, false, true], &dev)?, &a, None)?;
    assert_eq!(ints(&c2), vec![0, 2]);
    assert!(a.compress(&cuprum::from_vec(vec![true; 5], &dev)?, 2).is_err());
    let e = cuprum::extract(&a.remainder(2)?, &a)?;
    assert_eq!(e.size(), 12);
    assert!(cuprum::nonzero(&cuprum::scalar(1i32, &dev)?).is_err());
    Ok(())
});
