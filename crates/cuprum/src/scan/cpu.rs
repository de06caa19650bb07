//! The CPU scans (cumsum, cumprod): sequential in each lane, as NumPy's accumulate.

use crate::array::Array;
use crate::backend::cpu::{domain, load, ptr, store, Domain, Wide, CHUNK, PAR_THRESHOLD};
use crate::backend::storage::CpuLocks;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::ufunc::cpu::round_to;
use rayon::prelude::*;

// ------------------------------------------------------------------------------ scans

/// Inclusive scans of the contiguous lanes (last axis) of `x` into `y` (same shape, C order),
/// sequential in each lane and rounded to `y`'s dtype at every step, as NumPy's accumulate.
pub(crate) fn scan(op: crate::scan::ScanOp, x: &Array, y: &Array) -> Result<()> {
    let _l = CpuLocks::new(&[&x.storage], &[&y.storage]);
    let len = *x.shape.last().unwrap_or(&1);
    if len == 0 {
        return Ok(());
    }
    let lanes = x.size() / len;
    let (xd, yd) = (x.dtype, y.dtype);
    let (xp, yp) = (ptr(x), ptr(y));
    fn lane<W: Wide + std::ops::Add<Output = W> + std::ops::Mul<Output = W>>(
        op: crate::scan::ScanOp,
        xd: DType,
        yd: DType,
        xp: *const u8,
        yp: *mut u8,
        len: usize,
        wrap: fn(W, W, crate::scan::ScanOp) -> W,
    ) {
        let mut acc: Option<W> = None;
        let mut buf = [W::default(); CHUNK];
        let mut t = 0;
        while t < len {
            let n = CHUNK.min(len - t);
            unsafe { load(xd, xp.add(t * xd.itemsize()), xd.itemsize() as isize, &mut buf[..n]) };
            for v in buf[..n].iter_mut() {
                let next = match acc {
                    None => *v,
                    Some(a) => wrap(a, *v, op),
                };
                let mut r = [next];
                round_to(yd, &mut r);
                acc = Some(r[0]);
                *v = r[0];
            }
            unsafe { store(yd, yp.add(t * yd.itemsize()), yd.itemsize() as isize, &buf[..n]) };
            t += n;
        }
    }
    let xs = len * xd.itemsize();
    let ys = len * yd.itemsize();
    let run = |k: usize| {
        let (xk, yk) = unsafe { (xp.get().add(k * xs) as *const u8, yp.get().add(k * ys)) };
        use crate::scan::ScanOp::*;
        match domain(yd) {
            Domain::I => {
                lane::<i64>(
                    op,
                    xd,
                    yd,
                    xk,
                    yk,
                    len,
                    |a, b, o| if o == Sum { a.wrapping_add(b) } else { a.wrapping_mul(b) },
                )
            }
            Domain::U => {
                lane::<u64>(
                    op,
                    xd,
                    yd,
                    xk,
                    yk,
                    len,
                    |a, b, o| if o == Sum { a.wrapping_add(b) } else { a.wrapping_mul(b) },
                )
            }
            Domain::F => lane::<f64>(op, xd, yd, xk, yk, len, |a, b, o| if o == Sum { a + b } else { a * b }),
        }
    };
    if x.size() >= PAR_THRESHOLD && lanes > 1 {
        (0..lanes).into_par_iter().for_each(run);
    } else {
        (0..lanes).for_each(run);
    }
    Ok(())
}
