//! The GPU gather and scatter kernels against the CPU backend on fresh
//! random inputs: every dtype, index dtypes, negative indices, several axes, non-contiguous
//! views, empty arrays and out-of-range errors on both devices.
//!
//! Each case runs twice (`cases!`): on the GPU (ignored without one; a failure with
//! `CUPRUM_REQUIRE_GPU=1`) and with the CPU standing in for the GPU, which checks the cases
//! themselves on machines without a GPU.

use crate::common::{assert_close, on, random, Rng};
use cuprum::dtype::ALL_DTYPES;
use cuprum::{s, Array, DType, Device, Error};

const INDEX_DTYPES: [DType; 8] =
    [DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::UInt8, DType::UInt16, DType::UInt32, DType::UInt64];

/// Both succeed with equal results (exact for ints, `rtol` for floats) or fail with the same
/// error.
pub(crate) fn same(dev: &Device, what: &str, rtol: f64, cpu: cuprum::Result<Array>, gpu: cuprum::Result<Array>) {
    match (cpu, gpu) {
        (Ok(c), Ok(g)) => {
            assert_eq!(g.device(), *dev, "{what}: result device");
            assert_close(&g, &c, rtol, what)
        }
        (Err(c), Err(g)) => assert_eq!(g, c, "{what}: errors"),
        (c, g) => panic!("{what}: CPU gave {:?}, GPU gave {:?}", c.map(|_| ()), g.map(|_| ())),
    }
}

/// Random indices in `[-len, len)` (or `[0, len)` for unsigned dtypes) of `dtype`.
pub(crate) fn indices(shape: &[usize], len: usize, dtype: DType, rng: &mut Rng) -> Array {
    let n: usize = shape.iter().product();
    let v: Vec<i64> = (0..n)
        .map(|_| {
            let j = (rng.next_u64() % len.max(1) as u64) as i64;
            if dtype.is_signed_int() && rng.uniform() < 0.5 {
                j - len as i64
            } else {
                j
            }
        })
        .collect();
    cuprum::from_slice(&v, shape, &Device::Cpu).unwrap().astype(dtype).unwrap()
}

/// A random permutation of `0..n` as int64 (indices without repeats).
fn permutation(n: usize, rng: &mut Rng) -> Vec<i64> {
    let mut v: Vec<i64> = (0..n as i64).collect();
    for i in (1..n).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

fn idx_vec(v: &[i64], shape: &[usize], dtype: DType) -> Array {
    cuprum::from_slice(v, shape, &Device::Cpu).unwrap().astype(dtype).unwrap()
}

cases! {
    gather_every_dtype_and_index_dtype => gather_case,
    take_axes_and_layouts => take_case,
    take_along_axis_axes_and_broadcasting => take_along_case,
    scatter_without_repeats => scatter_case,
    scatter_add_with_repeats => scatter_add_case,
    put_cycles_values => put_case,
    repeated_indices_keep_the_last_write => last_write_case,
    out_of_range_indices_are_errors => out_of_range_case,
}

fn gather_case(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(101);
    for &dt in ALL_DTYPES.iter() {
        let a = random(&[7, 5, 3], dt, &mut rng, true);
        let ag = on(dev, &a);
        for &it in &INDEX_DTYPES {
            let i0 = indices(&[4, 1], 7, it, &mut rng);
            let i1 = indices(&[6], 5, it, &mut rng);
            let what = format!("gather({dt}, {it})");
            same(
                dev,
                &format!("{what} one axis"),
                0.0,
                cuprum::gather(&a, &[&i0]),
                cuprum::gather(&ag, &[&on(dev, &i0)]),
            );
            same(
                dev,
                &format!("{what} two broadcast axes"),
                0.0,
                cuprum::gather(&a, &[&i0, &i1]),
                cuprum::gather(&ag, &[&on(dev, &i0), &on(dev, &i1)]),
            );
        }
        // Three axes, mixed index dtypes, a transposed source and a strided index view.
        let i0 = indices(&[2, 3], 7, DType::Int32, &mut rng);
        let i1 = indices(&[3], 5, DType::Int64, &mut rng);
        let i2 = indices(&[1, 3], 3, DType::UInt16, &mut rng);
        same(
            dev,
            &format!("gather({dt}) three axes"),
            0.0,
            cuprum::gather(&a, &[&i0, &i1, &i2]),
            cuprum::gather(&ag, &[&on(dev, &i0), &on(dev, &i1), &on(dev, &i2)]),
        );
        let t = a.t(); // (3, 5, 7), not contiguous
        let tg = ag.t();
        let wide = indices(&[10], 3, DType::Int64, &mut rng);
        let strided = wide.slice(s![..;-2])?;
        let strided_g = on(dev, &wide).slice(s![..;-2])?;
        same(
            dev,
            &format!("gather({dt}) transposed, strided indices"),
            0.0,
            cuprum::gather(&t, &[&strided]),
            cuprum::gather(&tg, &[&strided_g]),
        );
        // Empty index arrays, empty rows.
        let e = cuprum::zeros(&[0], DType::Int64, &Device::Cpu)?;
        same(dev, "gather empty indices", 0.0, cuprum::gather(&a, &[&e]), cuprum::gather(&ag, &[&on(dev, &e)]));
        let z = random(&[4, 0], dt, &mut rng, false);
        let i = indices(&[3], 4, DType::Int64, &mut rng);
        same(dev, "gather empty rows", 0.0, cuprum::gather(&z, &[&i]), cuprum::gather(&on(dev, &z), &[&on(dev, &i)]));
    }
    // Rows of every byte length and alignment (words of 1 to 16 bytes, offset views).
    for &dt in &[DType::UInt8, DType::Int16, DType::Float32, DType::Float64] {
        for row in [1usize, 2, 3, 4, 6, 8, 16, 33] {
            let base = random(&[9 * row + 1], dt, &mut rng, false);
            for off in [0usize, 1] {
                let a = base.slice(s![off..off + 9 * row])?.reshape([9, row])?;
                let ag = on(dev, &base).slice(s![off..off + 9 * row])?.reshape([9, row])?;
                let i = indices(&[11], 9, DType::Int64, &mut rng);
                same(
                    dev,
                    &format!("gather({dt}) rows of {row}, offset {off}"),
                    0.0,
                    cuprum::gather(&a, &[&i]),
                    cuprum::gather(&ag, &[&on(dev, &i)]),
                );
            }
        }
    }
    Ok(())
}

fn take_case(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(102);
    for &dt in ALL_DTYPES.iter() {
        let a = random(&[4, 6, 5], dt, &mut rng, true);
        let views =
            [("contig", a.view()), ("transposed", a.permute(&[2, 0, 1])?), ("strided", a.slice(s![..;-1, 1..;2, ..])?)];
        for (name, v) in views {
            // The GPU view: the same view of the array moved whole (keeps the layout).
            let vg = match name {
                "contig" => on(dev, &a),
                "transposed" => on(dev, &a).permute(&[2, 0, 1])?,
                _ => on(dev, &a).slice(s![..;-1, 1..;2, ..])?,
            };
            for axis in [None, Some(0), Some(1), Some(2), Some(-1)] {
                let len = match axis {
                    None => v.size(),
                    Some(ax) => v.shape()[if ax < 0 { (v.ndim() as isize + ax) as usize } else { ax as usize }],
                };
                for &it in &[DType::Int64, DType::Int16, DType::UInt32] {
                    let i = indices(&[2, 3], len, it, &mut rng);
                    same(
                        dev,
                        &format!("take({dt}, {name}, {axis:?}, {it})"),
                        0.0,
                        v.take(&i, axis),
                        vg.take(&on(dev, &i), axis),
                    );
                }
                let i0 = indices(&[], len, DType::Int64, &mut rng);
                same(
                    dev,
                    &format!("take({dt}, {name}, {axis:?}, 0-d)"),
                    0.0,
                    v.take(&i0, axis),
                    vg.take(&on(dev, &i0), axis),
                );
            }
        }
        let e = cuprum::zeros(&[0, 2], DType::Int32, &Device::Cpu)?;
        let ag = on(dev, &a);
        same(dev, "take empty indices", 0.0, a.take(&e, 1), ag.take(&on(dev, &e), 1));
        let z = random(&[0, 4], dt, &mut rng, false);
        let i = indices(&[3], 4, DType::Int64, &mut rng);
        same(dev, "take from an empty outer", 0.0, z.take(&i, 1), on(dev, &z).take(&on(dev, &i), 1));
    }
    Ok(())
}

fn take_along_case(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(103);
    for &dt in ALL_DTYPES.iter() {
        let a = random(&[4, 5, 6], dt, &mut rng, true);
        let ag = on(dev, &a);
        for axis in [0isize, 1, 2, -1] {
            let ax = if axis < 0 { 2 } else { axis as usize };
            let len = a.shape()[ax];
            for &it in &[DType::Int64, DType::Int8, DType::UInt16] {
                let mut ishape = vec![4, 5, 6];
                ishape[ax] = 7;
                let i = indices(&ishape, len, it, &mut rng);
                same(
                    dev,
                    &format!("take_along_axis({dt}, {axis}, {it})"),
                    0.0,
                    cuprum::take_along_axis(&a, &i, axis),
                    cuprum::take_along_axis(&ag, &on(dev, &i), axis),
                );
                // Broadcasting: indices with 1 on another axis, a source with 1 on another.
                let mut bshape = ishape.clone();
                bshape[(ax + 1) % 3] = 1;
                let ib = indices(&bshape, len, it, &mut rng);
                same(
                    dev,
                    &format!("take_along_axis({dt}, {axis}, {it}) broadcast indices"),
                    0.0,
                    cuprum::take_along_axis(&a, &ib, axis),
                    cuprum::take_along_axis(&ag, &on(dev, &ib), axis),
                );
                let mut sshape = vec![4, 5, 6];
                sshape[(ax + 2) % 3] = 1;
                let s1 = random(&sshape, dt, &mut rng, true);
                same(
                    dev,
                    &format!("take_along_axis({dt}, {axis}, {it}) broadcast source"),
                    0.0,
                    cuprum::take_along_axis(&s1, &i, axis),
                    cuprum::take_along_axis(&on(dev, &s1), &on(dev, &i), axis),
                );
            }
        }
        // A transposed source, an argsort result and an empty axis.
        let t = a.t();
        let tg = ag.t();
        // (complex arrays are ordered by their real parts here: no complex sort yet)
        let order = t.real().argsort(1)?;
        same(
            dev,
            &format!("take_along_axis({dt}) transposed argsort"),
            0.0,
            cuprum::take_along_axis(&t, &order, 1),
            cuprum::take_along_axis(&tg, &on(dev, &order), 1),
        );
        let e = cuprum::zeros(&[4, 0, 6], DType::Int64, &Device::Cpu)?;
        same(
            dev,
            "take_along_axis empty",
            0.0,
            cuprum::take_along_axis(&a, &e, 1),
            cuprum::take_along_axis(&ag, &on(dev, &e), 1),
        );
    }
    Ok(())
}

fn scatter_case(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(104);
    for &dt in ALL_DTYPES.iter() {
        for &it in &INDEX_DTYPES {
            // One axis: rows of 3, distinct (negative for signed) indices.
            let a = random(&[9, 3], dt, &mut rng, true);
            let p: Vec<i64> =
                permutation(9, &mut rng)[..5].iter().map(|&j| if it.is_signed_int() { j - 9 } else { j }).collect();
            let i = idx_vec(&p, &[5], it);
            let v = random(&[5, 3], dt, &mut rng, true);
            let (mut c, mut g) = (a.copy()?, on(dev, &a));
            let rc = cuprum::scatter(&mut c, &[&i], &v).map(|_| c.copy().unwrap());
            let rg = cuprum::scatter(&mut g, &[&on(dev, &i)], &on(dev, &v)).map(|_| g.copy().unwrap());
            same(dev, &format!("scatter({dt}, {it})"), 0.0, rc, rg);
        }
        // Two axes with broadcast values, into a non-contiguous view.
        let base = random(&[6, 8], dt, &mut rng, true);
        let perm = permutation(48, &mut rng);
        let r: Vec<i64> = perm[..10].iter().map(|&q| q / 8).collect();
        let col: Vec<i64> = perm[..10].iter().map(|&q| q % 8 - 8).collect();
        let (ri, ci) = (idx_vec(&r, &[10], DType::Int64), idx_vec(&col, &[10], DType::Int32));
        let v = random(&[1], dt, &mut rng, true);
        // Transposed target: indices on (8, 6) -> swap them.
        let (bc, bg) = (base.copy()?, on(dev, &base));
        let mut tc = bc.t();
        let mut tg = bg.t();
        cuprum::scatter(&mut tc, &[&ci, &ri], &v)?;
        cuprum::scatter(&mut tg, &[&on(dev, &ci), &on(dev, &ri)], &on(dev, &v))?;
        // Written through the views into the arrays themselves.
        same(dev, &format!("scatter({dt}) transposed target"), 0.0, Ok(bc), Ok(bg));
        // Rows of several words, scalar values, empty selections.
        let w = random(&[5, 16], dt, &mut rng, false);
        let i = idx_vec(&[4, 0, -3], &[3], DType::Int64);
        let one = random(&[], dt, &mut rng, false);
        let (mut c, mut g) = (w.copy()?, on(dev, &w));
        cuprum::scatter(&mut c, &[&i], &one)?;
        cuprum::scatter(&mut g, &[&on(dev, &i)], &on(dev, &one))?;
        same(dev, &format!("scatter({dt}) scalar into rows of 16"), 0.0, Ok(c), Ok(g));
        let e = cuprum::zeros(&[0], DType::Int64, &Device::Cpu)?;
        let (mut c, mut g) = (w.copy()?, on(dev, &w));
        cuprum::scatter(&mut c, &[&e], &one)?;
        cuprum::scatter(&mut g, &[&on(dev, &e)], &on(dev, &one))?;
        same(dev, "scatter empty", 0.0, Ok(c), Ok(g));
    }
    Ok(())
}

fn scatter_add_case(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(105);
    for &dt in ALL_DTYPES.iter() {
        // Integer-valued data: sums are exact in every dtype (even float16), in any order.
        let exact = |x: Array| if dt.is_inexact() { x.rint().unwrap() } else { x };
        for &it in &[DType::Int64, DType::Int32, DType::UInt8, DType::Int8] {
            let a = exact(random(&[6, 4], dt, &mut rng, false));
            let i = indices(&[300], 6, it, &mut rng); // many repeats
            let v = exact(random(&[300, 4], dt, &mut rng, false));
            let (mut c, mut g) = (a.copy()?, on(dev, &a));
            cuprum::scatter_add(&mut c, &[&i], &v)?;
            cuprum::scatter_add(&mut g, &[&on(dev, &i)], &on(dev, &v))?;
            same(dev, &format!("scatter_add({dt}, {it})"), 0.0, Ok(c), Ok(g));
        }
        // Two axes, broadcast scalar values, a strided target; neighbouring bytes untouched.
        let base = exact(random(&[5, 7], dt, &mut rng, false));
        let r = indices(&[50], 5, DType::Int64, &mut rng);
        let col = indices(&[50], 4, DType::Int64, &mut rng);
        let one = exact(random(&[], dt, &mut rng, false));
        let (mut bc, mut bg) = (base.copy()?, on(dev, &base));
        let mut vc = bc.slice_mut(s![.., ..;2])?;
        let mut vg = bg.slice_mut(s![.., ..;2])?;
        cuprum::scatter_add(&mut vc, &[&r, &col], &one)?;
        cuprum::scatter_add(&mut vg, &[&on(dev, &r), &on(dev, &col)], &on(dev, &one))?;
        same(dev, &format!("scatter_add({dt}) strided target"), 0.0, Ok(bc.copy()?), Ok(bg.copy()?));
        // Non-integer float values: equal within rounding. Each add rounds (float16 to float16,
        // as NumPy's add.at), in index order on the CPU and in arrival order on the GPU: a
        // slot's results may differ by its number of adds times half an ulp of the largest
        // partial sum, which is at most the sum of the magnitudes. (A relative tolerance fails
        // when a slot's sum cancels to near zero.)
        if dt.is_float() {
            let a = random(&[8], dt, &mut rng, false);
            let i = indices(&[1000], 8, DType::Int64, &mut rng);
            let v = random(&[1000], dt, &mut rng, false);
            let (mut c, mut g) = (a.copy()?, on(dev, &a));
            cuprum::scatter_add(&mut c, &[&i], &v)?;
            cuprum::scatter_add(&mut g, &[&on(dev, &i)], &on(dev, &v))?;
            let mut mag = a.abs()?.astype(DType::Float64)?;
            cuprum::scatter_add(&mut mag, &[&i], &v.abs()?.astype(DType::Float64)?)?;
            let counts = cuprum::bincount_with(
                &i.remainder(8)?,
                &cuprum::BincountOptions { minlength: 8, ..Default::default() },
            )?
            .to_vec_as::<f64>()?; // (negative indices count from the end)
            let eps = match dt {
                DType::Float16 => 9.77e-4,
                DType::Float32 => 1.19e-7,
                _ => 2.23e-16,
            };
            let (cv, gv) = (c.to_vec_as::<f64>()?, g.to_device(&Device::Cpu)?.to_vec_as::<f64>()?);
            for (k, m) in mag.to_vec_as::<f64>()?.iter().enumerate() {
                let bound = (counts[k] + 1.0) * 0.5 * eps * m * 2.0;
                assert!(
                    (cv[k] - gv[k]).abs() <= bound,
                    "scatter_add({dt}) rounding: slot {k}: cpu {}, gpu {}, bound {bound}",
                    cv[k],
                    gv[k]
                );
            }
        }
    }
    // Wrap-around of small integers, as NumPy.
    let mut u = cuprum::zeros(&[3], DType::UInt8, dev)?;
    cuprum::scatter_add(&mut u, &[&cuprum::from_vec(vec![1i64; 300], dev)?], &cuprum::scalar(1u8, dev)?)?;
    assert_eq!(u.to_vec::<u8>()?, vec![0, 44, 0]);
    let mut s = cuprum::zeros(&[3], DType::Int16, dev)?;
    cuprum::scatter_add(&mut s, &[&cuprum::from_vec(vec![-1i64; 40000], dev)?], &cuprum::scalar(1i16, dev)?)?;
    assert_eq!(s.to_vec::<i16>()?, vec![0, 0, (40000i64 - 65536) as i16]);
    Ok(())
}

fn put_case(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(106);
    for &dt in ALL_DTYPES.iter() {
        let a = random(&[4, 5], dt, &mut rng, true);
        for &it in &[DType::Int64, DType::Int16, DType::UInt8] {
            let p: Vec<i64> = permutation(20, &mut rng)[..7]
                .iter()
                .map(|&j| if it.is_signed_int() && j % 2 == 0 { j - 20 } else { j })
                .collect();
            let i = idx_vec(&p, &[7], it);
            for nv in [1usize, 3, 7, 9] {
                let v = random(&[nv], dt, &mut rng, true);
                let (mut c, mut g) = (a.copy()?, on(dev, &a));
                let rc = cuprum::put(&mut c, &i, &v).map(|_| c.copy().unwrap());
                let rg = cuprum::put(&mut g, &on(dev, &i), &on(dev, &v)).map(|_| g.copy().unwrap());
                same(dev, &format!("put({dt}, {it}, {nv} values)"), 0.0, rc, rg);
            }
        }
        // Into a transposed view (flat C order of the view), indices as a 2-d array.
        let (mut c, mut g) = (a.t(), on(dev, &a).t());
        let i = idx_vec(&[0, 19, -2, 7], &[2, 2], DType::Int32);
        let v = random(&[3], dt, &mut rng, false);
        cuprum::put(&mut c, &i, &v)?;
        cuprum::put(&mut g, &on(dev, &i), &on(dev, &v))?;
        same(dev, &format!("put({dt}) transposed"), 0.0, Ok(c.copy()?), Ok(g.copy()?));
    }
    Ok(())
}

// Repeated indices: the last write wins, as in NumPy. Small targets (an owner word per place),
// a large target with few indices (a hash table of the places), rows of several words, two
// index arrays, and put with cycling values.
fn last_write_case(dev: &Device) -> cuprum::Result<()> {
    let mut rng = Rng::new(107);
    let rand_idx = |n: usize, hi: i64, rng: &mut Rng| -> Vec<i64> {
        (0..n).map(|_| (rng.next_u64() % hi as u64) as i64).collect()
    };
    for &dt in ALL_DTYPES.iter() {
        let a = random(&[50], dt, &mut rng, true);
        let i = idx_vec(&rand_idx(5000, 50, &mut rng), &[5000], DType::Int64);
        let v = random(&[5000], dt, &mut rng, true);
        let (mut c, mut g) = (a.copy()?, on(dev, &a));
        cuprum::scatter(&mut c, &[&i], &v)?;
        cuprum::scatter(&mut g, &[&on(dev, &i)], &on(dev, &v))?;
        same(dev, &format!("scatter({dt}) 5000 writes to 50 places"), 0.0, Ok(c), Ok(g));
        let (mut c, mut g) = (a.copy()?, on(dev, &a));
        let v = random(&[7], dt, &mut rng, true);
        cuprum::put(&mut c, &i, &v)?;
        cuprum::put(&mut g, &on(dev, &i), &on(dev, &v))?;
        same(dev, &format!("put({dt}) 5000 writes to 50 places, 7 values"), 0.0, Ok(c), Ok(g));
    }
    // Rows of 12 bytes (3 words), two index arrays with negative indices.
    let a = random(&[6, 7, 3], DType::Float32, &mut rng, false);
    let r = idx_vec(&rand_idx(400, 6, &mut rng), &[400], DType::Int32);
    let col: Vec<i64> = rand_idx(400, 7, &mut rng).iter().map(|&j| j - 7).collect();
    let col = idx_vec(&col, &[400], DType::Int16);
    let v = random(&[400, 3], DType::Float32, &mut rng, false);
    let (mut c, mut g) = (a.copy()?, on(dev, &a));
    cuprum::scatter(&mut c, &[&r, &col], &v)?;
    cuprum::scatter(&mut g, &[&on(dev, &r), &on(dev, &col)], &on(dev, &v))?;
    same(dev, "scatter rows of 3 over two axes", 0.0, Ok(c), Ok(g));
    // A target far larger than the writes: 3M places, 2000 writes to 300 of them.
    let n = 3_000_000usize;
    let a = cuprum::arange(n as i64, &Device::Cpu)?.astype(DType::Int32)?;
    let places: Vec<i64> = (0..300).map(|_| (rng.next_u64() % n as u64) as i64).collect();
    let picks: Vec<i64> = (0..2000).map(|_| places[(rng.next_u64() % 300) as usize]).collect();
    let i = idx_vec(&picks, &[2000], DType::Int64);
    let v = cuprum::arange(2000, &Device::Cpu)?.astype(DType::Int32)?.negative()?;
    let (mut c, mut g) = (a.copy()?, on(dev, &a));
    cuprum::scatter(&mut c, &[&i], &v)?;
    cuprum::scatter(&mut g, &[&on(dev, &i)], &on(dev, &v))?;
    same(dev, "scatter 2000 writes into 3M places", 0.0, Ok(c.copy()?), Ok(g.copy()?));
    let (mut c2, mut g2) = (a.copy()?, on(dev, &a));
    cuprum::put(&mut c2, &i, &v)?;
    cuprum::put(&mut g2, &on(dev, &i), &on(dev, &v))?;
    same(dev, "put 2000 writes into 3M places", 0.0, Ok(c2), Ok(g2));
    // The CPU reference itself keeps the last write.
    let last = picks.iter().rposition(|&p| p == picks[0]).unwrap();
    assert_eq!(c.slice(cuprum::s![picks[0] as isize])?.item::<i64>()?, -(last as i64));
    Ok(())
}

fn out_of_range_case(dev: &Device) -> cuprum::Result<()> {
    let a = cuprum::arange(12, &Device::Cpu)?.reshape([3, 4])?;
    let ag = on(dev, &a);
    let bad = |v: Vec<i64>, dt: DType| idx_vec(&v, &[v.len()], dt);
    let want = |index: isize, axis: usize, len: usize| Err::<(), _>(Error::IndexOutOfRange { index, axis, len });
    for (i, index, dt) in [
        (bad(vec![0, 3, 1], DType::Int64), 3isize, DType::Int64),
        (bad(vec![-4, 0], DType::Int64), -4, DType::Int64),
        (bad(vec![1, 100], DType::Int8), 100, DType::Int8),
        (bad(vec![0, 200], DType::UInt8), 200, DType::UInt8),
    ] {
        let ig = on(dev, &i);
        assert_eq!(cuprum::gather(&ag, &[&ig]).map(|_| ()), want(index, 0, 3), "gather {dt}");
        assert_eq!(cuprum::gather(&a, &[&i]).map(|_| ()), want(index, 0, 3), "gather {dt} (cpu)");
        let ok = idx_vec(&[0, 1, 2][..i.size()], &[i.size()], DType::Int64);
        // On axis 1 (length 4) only 100 and 200 are out of range.
        let want1 = if (-4..4).contains(&index) { Ok(()) } else { want(index, 1, 4) };
        assert_eq!(cuprum::gather(&ag, &[&on(dev, &ok), &ig]).map(|_| ()), want1, "gather axis 1 {dt}");
        assert_eq!(cuprum::gather(&a, &[&ok, &i]).map(|_| ()), want1, "gather axis 1 {dt} (cpu)");
        assert_eq!(ag.take(&ig, 0).map(|_| ()), want(index, 0, 3), "take axis 0 {dt}");
        let mut g = ag.copy()?;
        let before = g.to_vec::<i64>()?;
        assert_eq!(cuprum::scatter(&mut g, &[&ig], &cuprum::scalar(-1i64, dev)?), want(index, 0, 3), "scatter {dt}");
        assert_eq!(cuprum::scatter_add(&mut g, &[&ig], &cuprum::scalar(5i64, dev)?), want(index, 0, 3), "add.at {dt}");
        assert_eq!(g.to_vec::<i64>()?, before, "nothing written on error ({dt})");
    }
    // take along axis 1, take_along_axis, put: the axis and length of the error.
    let i = idx_vec(&[2, -5], &[2], DType::Int64);
    assert_eq!(ag.take(&on(dev, &i), 1).map(|_| ()), want(-5, 1, 4));
    assert_eq!(a.take(&i, 1).map(|_| ()), want(-5, 1, 4));
    let i2 = idx_vec(&[0, 1, 2, 3, 4, 0], &[3, 2], DType::Int32);
    same(
        dev,
        "take_along_axis out of range",
        0.0,
        cuprum::take_along_axis(&a, &i2, 1),
        cuprum::take_along_axis(&ag, &on(dev, &i2), 1),
    );
    assert_eq!(cuprum::take_along_axis(&ag, &on(dev, &i2), 1).map(|_| ()), want(4, 1, 4));
    let mut g = ag.copy()?;
    let p = idx_vec(&[0, 12], &[2], DType::UInt16);
    assert_eq!(cuprum::put(&mut g, &on(dev, &p), &cuprum::from_vec(vec![7i64], dev)?), want(12, 0, 12));
    assert_eq!(g.to_vec::<i64>()?, (0..12).collect::<Vec<i64>>());
    // Unsigned 64-bit indices never count from the end.
    let huge = cuprum::from_vec(vec![u64::MAX], &Device::Cpu)?;
    assert!(cuprum::gather(&a, &[&huge]).is_err());
    assert!(cuprum::gather(&ag, &[&on(dev, &huge)]).is_err());
    // Float indices are an error (an IndexError, as NumPy's a[f]; take's is a TypeError, as
    // np.take's); empty float ones are not.
    let f = cuprum::from_vec(vec![1.0f64], dev)?;
    assert!(matches!(cuprum::gather(&ag, &[&f]), Err(Error::Index(_))));
    assert!(matches!(cuprum::take(&ag, &f, 0), Err(Error::Type(_))));
    let ef = cuprum::zeros(&[0], DType::Float32, dev)?;
    assert_eq!(cuprum::gather(&ag, &[&ef])?.shape(), &[0, 4]);
    // Every axis out of range on an empty axis.
    let z = cuprum::zeros(&[0, 2], DType::Float32, dev)?;
    assert_eq!(cuprum::gather(&z, &[&on(dev, &idx_vec(&[0], &[1], DType::Int64))]).map(|_| ()), want(0, 0, 0));
    Ok(())
}
