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
    /// # Safety
    /// `xp` and `yp` point at `len` contiguous, aligned elements of `xd` and `yd`; nothing else
    /// writes the former, and nothing else reads or writes the latter, during the call.
    unsafe fn lane<W: Wide + std::ops::Add<Output = W> + std::ops::Mul<Output = W>>(
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
            // SAFETY: `t + n <= len` elements of the lane at `xp` (the function's contract).
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
            // SAFETY: `t + n <= len` elements of the lane at `yp`, ours alone (the function's
            // contract).
            unsafe { store(yd, yp.add(t * yd.itemsize()), yd.itemsize() as isize, &buf[..n]) };
            t += n;
        }
    }
    let xs = len * xd.itemsize();
    let ys = len * yd.itemsize();
    let run = |k: usize| {
        // SAFETY: `x` (C-contiguous: `scan`'s caller makes it so) and `y` (fresh, C order) hold
        // `lanes` lanes of `len` elements, and `k < lanes`: lane `k` of each lies in its block.
        let (xk, yk) = unsafe { (xp.get().add(k * xs) as *const u8, yp.get().add(k * ys)) };
        use crate::scan::ScanOp::*;
        let int = |a: i64, b: i64, o| if o == Sum { a.wrapping_add(b) } else { a.wrapping_mul(b) };
        let uint = |a: u64, b: u64, o| if o == Sum { a.wrapping_add(b) } else { a.wrapping_mul(b) };
        // SAFETY: lane `k` of `x` and of `y`, aligned as array elements are. `x` is read-locked;
        // `y` is a fresh block, write-locked, and lane `k` of it is written by this call alone.
        unsafe {
            match domain(yd) {
                Domain::I => lane::<i64>(op, xd, yd, xk, yk, len, int),
                Domain::U => lane::<u64>(op, xd, yd, xk, yk, len, uint),
                Domain::F => lane::<f64>(op, xd, yd, xk, yk, len, |a, b, o| if o == Sum { a + b } else { a * b }),
            }
        }
    };
    if x.size() >= PAR_THRESHOLD && lanes > 1 {
        (0..lanes).into_par_iter().for_each(run);
    } else {
        (0..lanes).for_each(run);
    }
    Ok(())
}
