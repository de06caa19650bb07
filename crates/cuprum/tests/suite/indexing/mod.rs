//! Integer-array indexing on every device, against values NumPy printed; `gpu`: the GPU
//! gather and scatter kernels against the CPU on seeded random inputs.

pub(crate) mod gpu;

use cuprum::{DType, Error};

fn ints(a: &cuprum::Array) -> Vec<i64> {
    a.to_vec_as::<i64>().unwrap()
}

device_test!(take_gather_put_scatter, |dev| {
    let b = cuprum::arange(12, &dev)?.reshape([3, 4])?;
    let i = cuprum::from_vec(vec![2i64, 0, -1], &dev)?;
    let t = b.take(&i, 1)?;
    assert_eq!(t.shape(), &[3, 3]);
    assert_eq!(ints(&t), vec![2, 0, 3, 6, 4, 7, 10, 8, 11]);
    let i2 = cuprum::from_slice(&[0i32, 5, 11, 1], &[2, 2], &dev)?;
    assert_eq!(ints(&b.take(&i2, None)?), vec![0, 5, 11, 1]);
    assert_eq!(b.take(&i2, 0).map(|_| ()), Err(Error::IndexOutOfRange { index: 5, axis: 0, len: 3 }));
    let ta = cuprum::take_along_axis(&b, &cuprum::from_slice(&[3i64, 0, 1], &[3, 1], &dev)?, 1)?;
    assert_eq!(ints(&ta), vec![3, 4, 9]);
    let mut c = b.copy()?;
    cuprum::put(&mut c, &cuprum::from_vec(vec![0i64, -1, 5], &dev)?, &cuprum::from_vec(vec![100i64, 200, 300], &dev)?)?;
    assert_eq!(ints(&c), vec![100, 1, 2, 3, 4, 300, 6, 7, 8, 9, 10, 200]);
    let r = cuprum::from_vec(vec![0i64, 2], &dev)?;
    let col = cuprum::from_vec(vec![1i64, 3], &dev)?;
    assert_eq!(ints(&cuprum::gather(&b, &[&r, &col])?), vec![1, 11]);
    let rr = r.reshape([2, 1])?;
    let g = cuprum::gather(&b, &[&rr, &col])?;
    assert_eq!(g.shape(), &[2, 2]);
    assert_eq!(ints(&g), vec![1, 3, 9, 11]);
    assert_eq!(cuprum::gather(&b, &[&r])?.shape(), &[2, 4]);
    let mut e = b.copy()?;
    cuprum::scatter(&mut e, &[&r, &col], &cuprum::scalar(-1i64, &dev)?)?;
    assert_eq!(ints(&e), vec![0, -1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -1]);
    let mut d = cuprum::zeros(&[5], DType::Float64, &dev)?;
    cuprum::scatter_add(
        &mut d,
        &[&cuprum::from_vec(vec![0i64, 1, 1, 4], &dev)?],
        &cuprum::from_vec(vec![1.0, 2.0, 3.0, 4.0], &dev)?,
    )?;
    assert_eq!(d.to_vec::<f64>()?, vec![1.0, 5.0, 0.0, 0.0, 4.0]);
    let mut u = cuprum::zeros(&[2], DType::UInt8, &dev)?;
    cuprum::scatter_add(&mut u, &[&cuprum::from_vec(vec![1i64; 300], &dev)?], &cuprum::scalar(1u8, &dev)?)?;
    assert_eq!(u.to_vec::<u8>()?, vec![0, 44]);
    assert!(cuprum::gather(&b, &[&cuprum::from_vec(vec![0.5f64], &dev)?]).is_err());
    Ok(())
});

// More index arrays than a kernel takes (18 > 16): they are checked and folded into one flat
// index on the array's device. a = arange(2**18).reshape((2,) * 18), so a[i0, ..., i17] is the
// flat position Σ_d i_d * 2**(17 - d) (negative indices counted from the end).
device_test!(more_index_arrays_than_a_kernel_takes, |dev| {
    const K: usize = 18;
    let a = cuprum::arange(1 << K, &dev)?.reshape([2; K])?;
    // Five selections; axis d of selection s takes bit d of PICK[s], as -1 where the bit is
    // set on odd axes (the same place as 1) and 1 elsewhere.
    const PICK: [u32; 5] = [0b10_1100_1010_0110_0101, 0, 0b11_1111_1111_1111_1111, 0b01_0101_0101_0101_0101, 7];
    let bit = |s: usize, d: usize| (PICK[s] >> (K - 1 - d)) & 1;
    let idx: Vec<cuprum::Array> = (0..K)
        .map(|d| {
            let v: Vec<i64> =
                (0..5).map(|s| if bit(s, d) == 1 && d % 2 == 1 { -1 } else { bit(s, d) as i64 }).collect();
            cuprum::from_vec(v, &dev)
        })
        .collect::<cuprum::Result<_>>()?;
    let refs: Vec<&cuprum::Array> = idx.iter().collect();
    let want: Vec<i64> = PICK.iter().map(|&p| p as i64).collect();
    assert_eq!(ints(&cuprum::gather(&a, &refs)?), want);
    // Scatter into a non-contiguous target (every other element of a larger array: its copy
    // and write-back collapse to 2 dimensions; a GPU strided copy of 18 dimensions that cannot
    // be merged is NotImplementedError), and add.at with a repeated place.
    let mut shape = vec![2; K];
    shape[K - 1] = 4;
    let mut z = cuprum::zeros(&shape, DType::Int64, &dev)?.slice(cuprum::s![cuprum::ELLIPSIS, ..;2])?;
    assert!(!z.is_c_contiguous());
    let vals = cuprum::from_vec(vec![10i64, 11, 12, 13, 14], &dev)?;
    cuprum::scatter(&mut z, &refs, &vals)?;
    assert_eq!(ints(&cuprum::gather(&z, &refs)?), vec![10, 11, 12, 13, 14]);
    assert_eq!(z.sum(None)?.item::<i64>()?, 60);
    let mut acc = cuprum::zeros(&[2; K], DType::Int64, &dev)?;
    let rep: Vec<cuprum::Array> = idx.iter().map(|i| cuprum::concatenate(&[i, i], 0)).collect::<cuprum::Result<_>>()?;
    let rep_refs: Vec<&cuprum::Array> = rep.iter().collect();
    cuprum::scatter_add(&mut acc, &rep_refs, &cuprum::ones(&[10], DType::Int64, &dev)?)?;
    assert_eq!(ints(&cuprum::gather(&acc, &refs)?), vec![2; 5]);
    assert_eq!(acc.sum(None)?.item::<i64>()?, 10);
    // An index out of range on axis 17 is an IndexError naming that axis; nothing is written.
    let mut bad: Vec<cuprum::Array> = idx.iter().map(|i| i.view()).collect();
    bad[17] = cuprum::from_vec(vec![0i64, 0, 2, 0, 0], &dev)?;
    let bad_refs: Vec<&cuprum::Array> = bad.iter().collect();
    assert_eq!(cuprum::gather(&a, &bad_refs).map(|_| ()), Err(Error::IndexOutOfRange { index: 2, axis: 17, len: 2 }));
    let mut w = cuprum::zeros(&[2; K], DType::Int64, &dev)?;
    let e = cuprum::scatter(&mut w, &bad_refs, &vals).unwrap_err();
    assert_eq!(e.kind(), cuprum::ErrorKind::IndexError);
    assert_eq!(w.sum(None)?.item::<i64>()?, 0);
    Ok(())
});
