//! The CPU labelling: strips of the first axis labelled in parallel by union-find (each strip
//! linking only within itself), the strips' borders merged, then the roots numbered in C order
//! strip by strip and every element given its root's number.

use super::Neighbours;
use crate::array::Array;
use crate::backend::cpu::ptr;
use crate::backend::storage::CpuLocks;
use crate::core::dtype::DType;
use crate::core::error::Result;
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Marks background elements in `parent`.
const BG: usize = usize::MAX;

/// The root of `p` (parents only ever point to smaller indices), halving the path.
#[inline]
fn find(parent: &[AtomicUsize], mut p: usize) -> usize {
    loop {
        let q = parent[p].load(Relaxed);
        if q == p {
            return p;
        }
        let r = parent[q].load(Relaxed);
        if r != q {
            parent[p].store(r, Relaxed);
        }
        p = r;
    }
}

/// Joins the trees of `a` and `b`, the larger root under the smaller. Only one thread may
/// change the trees of `a` and `b` at a time.
#[inline]
fn union(parent: &[AtomicUsize], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra < rb {
        parent[rb].store(ra, Relaxed);
    } else if rb < ra {
        parent[ra].store(rb, Relaxed);
    }
}

/// A neighbour: its step per axis and its offset in elements.
struct Step {
    d: Vec<i8>,
    off: isize,
}

/// Links the elements of planes `[a, b)` of the first axis to their backward neighbours in
/// planes `>= lo`.
fn link(parent: &[AtomicUsize], shape: &[usize], steps: &[Step], a: usize, b: usize, lo: usize) {
    let nd = shape.len();
    let w = shape[nd - 1];
    let plane: usize = shape[1..].iter().product();
    let lines_per_plane = plane / w.max(1);
    let mut coord = vec![0usize; nd - 1];
    // Per neighbour: whether the line it reads is inside the array, for the current line.
    let mut ok = vec![false; steps.len()];
    for line in a * lines_per_plane..b * lines_per_plane {
        // Coordinates of the line (all axes but the last).
        let mut r = line;
        for k in (0..nd - 1).rev() {
            coord[k] = r % shape[k];
            r /= shape[k];
        }
        for (s, o) in steps.iter().zip(ok.iter_mut()) {
            *o = (0..nd - 1).all(|k| {
                let c = coord[k] as isize + s.d[k] as isize;
                c >= 0 && (c as usize) < shape[k] && (k != 0 || c as usize >= lo)
            });
        }
        let base = line * w;
        for x in 0..w {
            let p = base + x;
            if parent[p].load(Relaxed) == BG {
                continue;
            }
            for (s, &o) in steps.iter().zip(&ok) {
                let xx = x as isize + s.d[nd - 1] as isize;
                if !o || xx < 0 || xx as usize >= w {
                    continue;
                }
                let q = (p as isize + s.off) as usize;
                if parent[q].load(Relaxed) != BG {
                    union(parent, p, q);
                }
            }
        }
    }
}

/// Labels the nonzero elements of `fg` (C-contiguous, any dtype) over neighbours `nb` into
/// `out` (C-contiguous, int32 or int64, or any dtype through int64); returns the count.
pub(crate) fn label(fg: &Array, nb: &Neighbours, out: &Array) -> Result<usize> {
    let n = fg.size();
    // A 1-d array as a column (lines of one element), so that its strips split it.
    let (shape, nb) = if fg.ndim() == 1 {
        (vec![n, 1], nb.iter().map(|d| vec![d[0], 0]).collect())
    } else {
        (fg.shape().to_vec(), nb.clone())
    };
    let nd = shape.len();
    let mask = fg.astype(DType::Bool)?;
    let parent: Vec<AtomicUsize> = {
        let _l = CpuLocks::new(&[&mask.storage], &[]);
        // SAFETY: `mask` is a C-contiguous CPU bool array of `n` elements, read-locked above.
        let m = unsafe { std::slice::from_raw_parts(ptr(&mask).get() as *const u8, n) };
        m.par_iter().enumerate().map(|(i, &v)| AtomicUsize::new(if v != 0 { i } else { BG })).collect()
    };
    let mut strides = vec![1isize; nd];
    for k in (0..nd.saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * shape[k + 1] as isize;
    }
    let steps: Vec<Step> = nb
        .iter()
        .map(|d| Step { off: d.iter().zip(&strides).map(|(&s, &st)| s as isize * st).sum(), d: d.clone() })
        .collect();
    // Strips of the first axis, a few per thread.
    let planes = shape[0];
    let parts = (rayon::current_num_threads() * 4).clamp(1, planes.max(1));
    let per = planes.div_ceil(parts);
    let bounds: Vec<(usize, usize)> = (0..planes).step_by(per.max(1)).map(|a| (a, (a + per).min(planes))).collect();
    // Within strips (each thread changes only its strip's trees), then across their borders.
    bounds.par_iter().for_each(|&(a, b)| link(&parent, &shape, &steps, a, b, a));
    for &(a, _) in bounds.iter().skip(1) {
        link(&parent, &shape, &steps, a, a + 1, a - 1);
    }
    // Flatten every tree to its root (each thread writes its own strip's elements; a
    // concurrent reader sees the old or the new parent, both ancestors) and count the roots.
    let plane: usize = shape[1..].iter().product();
    let roots: Vec<usize> = bounds
        .par_iter()
        .map(|&(a, b)| {
            let mut c = 0;
            for p in a * plane..b * plane {
                if parent[p].load(Relaxed) != BG {
                    let r = find(&parent, p);
                    parent[p].store(r, Relaxed);
                    c += (r == p) as usize;
                }
            }
            c
        })
        .collect();
    let total: usize = roots.iter().sum();
    let mut first = Vec::with_capacity(roots.len());
    let mut acc = 0;
    for r in &roots {
        first.push(acc);
        acc += r;
    }
    // Numbers: the roots' ranks, then every element its root's.
    let number = |write: &(dyn Fn(usize, usize) + Sync), read: &(dyn Fn(usize) -> usize + Sync)| {
        bounds.par_iter().zip(first.par_iter()).for_each(|(&(a, b), &f)| {
            let mut k = f;
            for (p, q) in parent.iter().enumerate().take(b * plane).skip(a * plane) {
                if q.load(Relaxed) == p {
                    k += 1;
                    write(p, k);
                }
            }
        });
        bounds.par_iter().for_each(|&(a, b)| {
            for (p, q) in parent.iter().enumerate().take(b * plane).skip(a * plane) {
                let r = q.load(Relaxed);
                if r == BG {
                    write(p, 0);
                } else if r != p {
                    write(p, read(r));
                }
            }
        });
    };
    let direct = out.is_c_contiguous() && matches!(out.dtype(), DType::Int32 | DType::Int64);
    let target = if direct { out.view() } else { Array::alloc(&shape, DType::Int64, out.device(), false)? };
    {
        let _l = CpuLocks::new(&[], &[&target.storage]);
        let base = ptr(&target);
        if target.dtype() == DType::Int32 {
            // SAFETY: `target` is a C-contiguous CPU int32 array of `n` elements, write-locked
            // above; every element is written by one thread only.
            let w = move |p: usize, v: usize| unsafe { *(base.get() as *mut i32).add(p) = v as i32 };
            // SAFETY: as above; a root's number is read only after the first pass wrote it.
            let r = move |p: usize| unsafe { *(base.get() as *const i32).add(p) as usize };
            number(&w, &r);
        } else {
            // SAFETY: as for int32 above, for an int64 array.
            let w = move |p: usize, v: usize| unsafe { *(base.get() as *mut i64).add(p) = v as i64 };
            // SAFETY: as for int32 above, for an int64 array.
            let r = move |p: usize| unsafe { *(base.get() as *const i64).add(p) as usize };
            number(&w, &r);
        }
    }
    if !direct {
        crate::ufunc::assign(out, &target)?;
    }
    Ok(total)
}
