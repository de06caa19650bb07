//! Joining, splitting and rearranging, on every device, against values NumPy printed.

use cuprum::{s, DType, PadMode, Scalar};

fn ints(a: &cuprum::Array) -> Vec<i64> {
    a.to_vec_as::<i64>().unwrap()
}

device_test!(pad_modes_match_numpy, |dev| {
    let a = cuprum::arange(12, &dev)?.reshape([3, 4])?;
    let w = [(1, 2), (2, 1)];
    let cases: [(PadMode, Vec<i64>); 4] = [
        (
            PadMode::Reflect,
            vec![
                6, 5, 4, 5, 6, 7, 6, 2, 1, 0, 1, 2, 3, 2, 6, 5, 4, 5, 6, 7, 6, 10, 9, 8, 9, 10, 11, 10, 6, 5, 4, 5, 6,
                7, 6, 2, 1, 0, 1, 2, 3, 2,
            ],
        ),
        (
            PadMode::Symmetric,
            vec![
                1, 0, 0, 1, 2, 3, 3, 1, 0, 0, 1, 2, 3, 3, 5, 4, 4, 5, 6, 7, 7, 9, 8, 8, 9, 10, 11, 11, 9, 8, 8, 9, 10,
                11, 11, 5, 4, 4, 5, 6, 7, 7,
            ],
        ),
        (
            PadMode::Wrap,
            vec![
                10, 11, 8, 9, 10, 11, 8, 2, 3, 0, 1, 2, 3, 0, 6, 7, 4, 5, 6, 7, 4, 10, 11, 8, 9, 10, 11, 8, 2, 3, 0, 1,
                2, 3, 0, 6, 7, 4, 5, 6, 7, 4,
            ],
        ),
        (
            PadMode::Edge,
            vec![
                0, 0, 0, 1, 2, 3, 3, 0, 0, 0, 1, 2, 3, 3, 4, 4, 4, 5, 6, 7, 7, 8, 8, 8, 9, 10, 11, 11, 8, 8, 8, 9, 10,
                11, 11, 8, 8, 8, 9, 10, 11, 11,
            ],
        ),
    ];
    for (mode, want) in cases {
        let p = cuprum::pad_with(&a, &w, mode)?;
        assert_eq!(p.shape(), &[6, 7], "{mode:?}");
        assert_eq!(ints(&p), want, "{mode:?}");
    }
    // Pads wider than the axis repeat the pattern.
    let b = cuprum::arange(3, &dev)?;
    assert_eq!(ints(&cuprum::pad_with(&b, &[(5, 4)], PadMode::Reflect)?), vec![1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2]);
    assert_eq!(ints(&cuprum::pad_with(&b, &[(5, 4)], PadMode::Symmetric)?), vec![1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0]);
    assert_eq!(ints(&cuprum::pad_with(&b, &[(5, 4)], PadMode::Wrap)?), vec![1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]);
    let c = cuprum::pad_with(&b.astype(DType::Float32)?, &[(1, 2)], PadMode::Constant(Scalar::Float(-1.5)))?;
    assert_eq!(c.to_vec::<f32>()?, vec![-1.5, 0.0, 1.0, 2.0, -1.5, -1.5]);
    assert!(cuprum::pad_with(&b, &[(1, 1), (1, 1)], PadMode::Edge).is_err());
    Ok(())
});

device_test!(pad_with_impossible_widths, |dev| {
    // A width no device holds is a MemoryError at once, one past any address space NumPy's
    // "array is too big" ValueError (a width of 2^40 made 2^38 pieces and aborted in wrap mode,
    // and looped for hours in edge and reflect modes).
    let a = cuprum::arange(4, &dev)?.astype(DType::Float64)?;
    for mode in [PadMode::Constant(Scalar::Float(0.0)), PadMode::Edge, PadMode::Reflect, PadMode::Wrap] {
        for (w, kind) in [
            (1usize << 40, cuprum::ErrorKind::MemoryError),
            (usize::MAX / 2, cuprum::ErrorKind::ValueError),
            (usize::MAX, cuprum::ErrorKind::ValueError),
        ] {
            let e = cuprum::pad_with(&a, &[(w, 0)], mode).unwrap_err();
            assert_eq!(e.kind(), kind, "{mode:?} {w}: {e}");
        }
        assert_eq!(cuprum::pad_with(&a, &[(3, 5)], mode)?.shape(), &[12]);
    }
    Ok(())
});

device_test!(join_split_roll_tile_repeat, |dev| {
    let a = cuprum::arange(12, &dev)?.reshape([3, 4])?;
    let b = cuprum::arange_with(100, 104, 1, DType::Int32, &dev)?.reshape([1, 4])?;
    let c = cuprum::concatenate(&[&a, &b], 0)?;
    assert_eq!(c.dtype(), DType::Int64);
    assert_eq!(c.shape(), &[4, 4]);
    assert_eq!(ints(&c.slice(s![-1])?), vec![100, 101, 102, 103]);
    assert!(cuprum::concatenate(&[&a, &b.t()], 0).is_err());
    let st = cuprum::stack(&[&a, &a], -1)?;
    assert_eq!(st.shape(), &[3, 4, 2]);
    assert_eq!(ints(&st.slice(s![1, 2])?), vec![6, 6]);
    assert_eq!(cuprum::hstack(&[&a, &a])?.shape(), &[3, 8]);
    assert_eq!(cuprum::vstack(&[&cuprum::arange(4, &dev)?, &a])?.shape(), &[4, 4]);
    assert_eq!(cuprum::dstack(&[&a, &a])?.shape(), &[3, 4, 2]);
    let parts = cuprum::array_split(&cuprum::arange(10, &dev)?, 3usize, 0)?;
    assert_eq!(parts.iter().map(ints).collect::<Vec<_>>(), vec![vec![0, 1, 2, 3], vec![4, 5, 6], vec![7, 8, 9]]);
    assert!(cuprum::split(&cuprum::arange(10, &dev)?, 3usize, 0).is_err());
    let at = cuprum::split(&a, [1isize, 3], 1)?;
    assert_eq!(at.iter().map(|p| p.shape()[1]).collect::<Vec<_>>(), vec![1, 2, 1]);
    assert!(at[0].shares_storage(&a));
    assert_eq!(ints(&a.roll(5, None)?), vec![7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6]);
    assert_eq!(ints(&a.roll(-1, 1)?), vec![1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8]);
    assert_eq!(ints(&cuprum::tile(&cuprum::arange(3, &dev)?, &[2, 2])?), vec![0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2]);
    assert_eq!(cuprum::tile(&cuprum::arange(3, &dev)?, &[2, 2])?.shape(), &[2, 6]);
    assert_eq!(ints(&a.repeat(2, 1)?)[..8], [0, 0, 1, 1, 2, 2, 3, 3]);
    assert_eq!(a.repeat(2, None)?.shape(), &[24]);
    let f = a.flip(0)?;
    assert!(f.shares_storage(&a));
    assert_eq!(ints(&f.slice(s![0])?), vec![8, 9, 10, 11]);
    assert_eq!(ints(&a.flip(None)?)[..3], [11, 10, 9]);
    assert_eq!(cuprum::atleast_3d(&cuprum::arange(3, &dev)?)?.shape(), &[1, 3, 1]);
    assert_eq!(cuprum::atleast_2d(&cuprum::scalar(1.0f32, &dev)?)?.shape(), &[1, 1]);
    Ok(())
});

device_test!(diff_like_numpy, |dev| {
    let sq = cuprum::from_vec(vec![1i64, 4, 9, 16, 25], &dev)?;
    assert_eq!(ints(&cuprum::diff_with(&sq, &cuprum::DiffOptions { n: 2, ..Default::default() })?), vec![2, 2, 2]);
    let a = cuprum::arange(12, &dev)?.reshape([3, 4])?;
    assert_eq!(ints(&cuprum::diff_with(&a, &cuprum::DiffOptions { axis: 0, ..Default::default() })?), vec![4; 8]);
    let b = cuprum::from_vec(vec![true, true, false, true], &dev)?;
    let d = cuprum::diff_with(&b, &cuprum::DiffOptions { axis: 0, ..Default::default() })?;
    assert_eq!(d.dtype(), DType::Bool);
    assert_eq!(d.to_vec::<bool>()?, vec![false, true, true]);
    assert_eq!(cuprum::diff_with(&sq, &cuprum::DiffOptions { n: 0, axis: 0 })?.shape(), &[5]);
    assert_eq!(cuprum::diff_with(&sq, &cuprum::DiffOptions { n: 7, axis: 0 })?.shape(), &[0]);
    Ok(())
});

device_test!(fliplr_flipud_are_numpys_views, |dev| {
    // np.fliplr / np.flipud of a 2x3x2 array (NumPy 2.4.6), views of the input; NumPy's
    // ValueError for too few dimensions.
    let a = cuprum::arange(12, &dev)?.reshape([2, 3, 2])?;
    assert_eq!(cuprum::fliplr(&a)?.to_vec::<i64>()?, vec![4, 5, 2, 3, 0, 1, 10, 11, 8, 9, 6, 7]);
    assert_eq!(cuprum::flipud(&a)?.to_vec::<i64>()?, vec![6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5]);
    assert_eq!(a.flipud()?.flipud()?.to_vec::<i64>()?, a.to_vec::<i64>()?);
    let v = cuprum::arange(3, &dev)?;
    assert_eq!(v.flipud()?.to_vec::<i64>()?, vec![2, 1, 0]);
    let mut f = a.fliplr()?;
    assert!(!f.is_c_contiguous(), "a view with a negative stride, not a copy");
    f.fill(0)?;
    assert_eq!(a.to_vec::<i64>()?, vec![0; 12], "writing through the view writes the input");
    let kind = |r: cuprum::Result<cuprum::Array>| r.err().map(|e| e.kind());
    assert_eq!(kind(cuprum::fliplr(&v)), Some(cuprum::ErrorKind::ValueError));
    assert_eq!(
        kind(cuprum::flipud(&cuprum::full(&[], 1.0, DType::Float64, &dev)?)),
        Some(cuprum::ErrorKind::ValueError)
    );
    Ok(())
});
