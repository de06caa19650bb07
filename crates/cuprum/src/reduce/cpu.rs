//! The CPU reductions: NumPy's pairwise summation, Welford-free two-pass variance, and
//! the other accumulators, over strided views in runs (rayon over output blocks or chunks).

use crate::array::Array;
use crate::backend::cpu::{domain, load, store, walk, Domain, Ptr, CHUNK, PAR_THRESHOLD};
use crate::backend::storage::CpuLocks;
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout;
use crate::core::ufunc::ReduceOp;
use rayon::prelude::*;

// ------------------------------------------------------------------------------ reductions

/// NumPy's divisor of var/std: `max(n - ddof, 0)` with NumPy's `maximum` (a NaN `ddof` gives
/// NaN, not 0 as `f64::max` would).
pub(crate) fn dof(n: f64, ddof: f64) -> f64 {
    let d = n - ddof;
    if d < 0.0 {
        0.0
    } else {
        d
    }
}

/// NumPy's pairwise summation of a contiguous block (8 accumulators below 128 elements,
/// halves above), in f64.
pub(crate) fn pairwise_sum(x: &[f64]) -> f64 {
    pairwise_sum_by(x, |v| v)
}

/// [`pairwise_sum`] of `f` of each element of `x` (the same association, so the same bits as
/// summing the mapped values), without storing the mapped values first.
#[inline]
pub(crate) fn pairwise_sum_by<T: Copy>(x: &[T], f: impl Fn(T) -> f64 + Copy) -> f64 {
    let n = x.len();
    if n < 8 {
        return x.iter().fold(0.0, |a, &b| a + f(b));
    }
    if n <= 128 {
        let mut r = [0f64; 8];
        for k in 0..8 {
            r[k] = f(x[k]);
        }
        let mut i = 8;
        while i + 8 <= n {
            for k in 0..8 {
                r[k] += f(x[i + k]);
            }
            i += 8;
        }
        let mut s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &v in &x[i..] {
            s += f(v);
        }
        return s;
    }
    let half = (n / 2) / 8 * 8;
    pairwise_sum_by(&x[..half], f) + pairwise_sum_by(&x[half..], f)
}

/// A running reduction over one output element.
#[derive(Clone)]
struct Acc {
    op: ReduceOp,
    /// Pairwise partial sums of completed chunks (floats) / running value.
    parts: Vec<f64>,
    i: i64,
    u: u64,
    f: f64,
    idx: i64,
    seen: u64,
    done: bool,
}

impl Acc {
    fn new(op: ReduceOp) -> Acc {
        let (i, u, f) = match op {
            ReduceOp::Prod => (1, 1, 1.0),
            ReduceOp::All => (1, 1, 1.0),
            _ => (0, 0, 0.0),
        };
        Acc { op, parts: Vec::new(), i, u, f, idx: -1, seen: 0, done: false }
    }
}

/// Feeds a chunk (already loaded in domain `d`) into `acc`; `base` is the chunk's position.
fn feed(acc: &mut Acc, d: Domain, ib: &[i64], ub: &[u64], fb: &[f64], base: u64, mean: f64) {
    use ReduceOp::*;
    let n = match d {
        Domain::I => ib.len(),
        Domain::U => ub.len(),
        Domain::F | Domain::C => fb.len(),
    };
    match (acc.op, d) {
        (Sum, Domain::I) => acc.i = ib.iter().fold(acc.i, |a, &b| a.wrapping_add(b)),
        (Sum, Domain::U) => acc.u = ub.iter().fold(acc.u, |a, &b| a.wrapping_add(b)),
        (Sum, Domain::F) => acc.parts.push(pairwise_sum(fb)),
        // NumPy's mean accumulates integers in float64 (no wrapping).
        (Mean, Domain::I) => {
            let mut f = [0f64; CHUNK];
            ib.iter().zip(f.iter_mut()).for_each(|(&v, o)| *o = v as f64);
            acc.parts.push(pairwise_sum(&f[..n]))
        }
        (Mean, Domain::U) => {
            let mut f = [0f64; CHUNK];
            ub.iter().zip(f.iter_mut()).for_each(|(&v, o)| *o = v as f64);
            acc.parts.push(pairwise_sum(&f[..n]))
        }
        (Mean, Domain::F) => acc.parts.push(pairwise_sum(fb)),
        (Sum | Mean | Prod, Domain::C) => unreachable!("complex arrays are reduced by parts"),
        (Var | Std, _) => {
            let mut sq = [0f64; CHUNK];
            for k in 0..n {
                let v = match d {
                    Domain::I => ib[k] as f64,
                    Domain::U => ub[k] as f64,
                    Domain::F | Domain::C => fb[k],
                };
                let dv = v - mean;
                sq[k] = dv * dv;
            }
            acc.parts.push(pairwise_sum(&sq[..n]));
        }
        (Prod, Domain::I) => acc.i = ib.iter().fold(acc.i, |a, &b| a.wrapping_mul(b)),
        (Prod, Domain::U) => acc.u = ub.iter().fold(acc.u, |a, &b| a.wrapping_mul(b)),
        (Prod, Domain::F) => acc.f = fb.iter().fold(acc.f, |a, &b| a * b),
        (Any, _) | (All, _) | (CountNonzero, _) => {
            for k in 0..n {
                let nz = match d {
                    Domain::I => ib[k] != 0,
                    Domain::U => ub[k] != 0,
                    Domain::F | Domain::C => fb[k] != 0.0,
                };
                match acc.op {
                    Any => acc.i |= nz as i64,
                    All => acc.i &= nz as i64,
                    _ => acc.i += nz as i64,
                }
            }
        }
        (Min | Max | ArgMin | ArgMax, _) => {
            let want_max = matches!(acc.op, Max | ArgMax);
            for k in 0..n {
                if acc.done {
                    break;
                }
                let pos = base as i64 + k as i64;
                let better = match d {
                    Domain::I => acc.seen == 0 || if want_max { ib[k] > acc.i } else { ib[k] < acc.i },
                    Domain::U => acc.seen == 0 || if want_max { ub[k] > acc.u } else { ub[k] < acc.u },
                    Domain::F | Domain::C => {
                        let v = fb[k];
                        if v.is_nan() {
                            // NaN propagates: the first NaN is the answer.
                            acc.f = v;
                            acc.idx = pos;
                            acc.done = true;
                            acc.seen += 1;
                            continue;
                        }
                        acc.seen == 0 || if want_max { v > acc.f } else { v < acc.f }
                    }
                };
                if better {
                    match d {
                        Domain::I => acc.i = ib[k],
                        Domain::U => acc.u = ub[k],
                        Domain::F | Domain::C => acc.f = fb[k],
                    }
                    acc.idx = pos;
                }
                acc.seen += 1;
            }
        }
    }
}

/// Reduces `x` over `axes` (sorted, unique) into `out`, whose shape is `x`'s shape without
/// those axes. `ddof` is used by var/std.
pub(crate) fn reduce(op: ReduceOp, x: &Array, axes: &[usize], ddof: f64, out: &Array) -> Result<()> {
    let _l = CpuLocks::new(&[&x.storage], &[&out.storage]);
    let nd = x.ndim();
    let kept: Vec<usize> = (0..nd).filter(|a| !axes.contains(a)).collect();
    let red_shape: Vec<usize> = axes.iter().map(|&a| x.shape[a]).collect();
    let red_st: Vec<isize> = axes.iter().map(|&a| x.strides[a]).collect();
    let (rshape, rst) = layout::collapse(&red_shape, &[&red_st]);
    let rst = rst.into_iter().next().unwrap_or_default();
    let rn: usize = red_shape.iter().product();
    let kshape: Vec<usize> = kept.iter().map(|&a| x.shape[a]).collect();
    let kst: Vec<isize> = kept.iter().map(|&a| x.strides[a]).collect();
    let on: usize = kshape.iter().product();
    if rn == 0 && !op.has_identity() && on > 0 {
        return Err(Error::Value(op.empty_message()));
    }
    let xd = x.dtype;
    let d = domain(xd);
    if d == Domain::C {
        return Err(Error::NotImplemented(format!("{} of a {} array on the CPU", op.name(), xd)));
    }
    let xp = x.cpu_ptr();
    let op_ = op;
    // Reduce the elements of output `o` (base pointer `bp`).
    let reduce_one = |bp: Ptr| -> Acc {
        let run = |acc: &mut Acc, mean: f64| {
            let mut ib = [0i64; CHUNK];
            let mut ub = [0u64; CHUNK];
            let mut fb = [0f64; CHUNK];
            let mut pos = 0u64;
            // SAFETY: `bp` is the first element of one output's reduction in `x` (`xbase`), and
            // `rshape`/`rst` are `x`'s reduced axes (collapsed): every position walked is an
            // element of `x`, aligned, in its block. `x` is read-locked; the closure only reads.
            unsafe {
                walk(&rshape, std::array::from_ref(&rst), [bp], 0, rn, &mut |p, n, s| {
                    match d {
                        Domain::I => load(xd, p[0], s[0], &mut ib[..n]),
                        Domain::U => load(xd, p[0], s[0], &mut ub[..n]),
                        Domain::F | Domain::C => load(xd, p[0], s[0], &mut fb[..n]),
                    }
                    feed(acc, d, &ib[..n], &ub[..n], &fb[..n], pos, mean);
                    pos += n as u64;
                });
            }
        };
        match op_ {
            ReduceOp::Var | ReduceOp::Std => {
                let mut m = Acc::new(ReduceOp::Mean);
                run(&mut m, 0.0);
                let mean = finish_f64(&m, d) / rn as f64;
                let mut acc = Acc::new(op_);
                run(&mut acc, mean);
                acc
            }
            _ => {
                let mut acc = Acc::new(op_);
                run(&mut acc, 0.0);
                acc
            }
        }
    };
    let od = out.dtype;
    let op_base = out.cpu_ptr();
    let ost = out.strides.clone();
    let write = |k: usize, acc: &Acc| {
        // Position of output k (C order over the kept dims) in `out` and in `x`.
        let mut rem = k;
        let mut ooff = 0isize;
        for dd in (0..kshape.len()).rev() {
            let i = rem % kshape[dd];
            rem /= kshape[dd];
            ooff += i as isize * ost[dd];
        }
        let v = finish(op_, acc, d, rn, ddof);
        // SAFETY: `k < on` is a C-order position over the kept axes, so `ooff` is an element of
        // `out` (shape `kshape`, strides `ost`), in its block (non-empty: `reduce_into` returns
        // early otherwise). `out` is fresh and write-locked, and each `k` is written by one call.
        unsafe {
            let p = op_base.get().offset(ooff);
            match v {
                Scalar::Int(i) => store(od, p, 0, &[i]),
                Scalar::UInt(u) => store(od, p, 0, &[u]),
                Scalar::Float(f) => store(od, p, 0, &[f]),
                Scalar::Bool(b) => store(od, p, 0, &[b as i64]),
                Scalar::Complex(re, im) => store(od, p, 0, &[crate::backend::cpu::Cx { re, im }]),
            }
        }
    };
    let xbase = |k: usize| -> Ptr {
        let mut rem = k;
        let mut off = 0isize;
        for dd in (0..kshape.len()).rev() {
            let i = rem % kshape[dd];
            rem /= kshape[dd];
            off += i as isize * kst[dd];
        }
        // `wrapping_offset`: an address only (for an empty `x`, not one of an element); `walk`
        // dereferences the elements it reaches from it.
        Ptr(xp.get().wrapping_offset(off))
    };
    // A whole contiguous float32/float64 array into one sum, mean, var or std: the same
    // per-CHUNK pairwise partials as below (so the same bits), computed straight from the
    // elements in their own type, with no strided walk or domain dispatch per chunk.
    if on == 1 && rn > 0 && rshape.len() == 1 && rst[0] == xd.itemsize() as isize {
        let fast = matches!(op, ReduceOp::Sum | ReduceOp::Mean | ReduceOp::Var | ReduceOp::Std);
        let parts = |mean: Option<f64>| -> Option<Vec<f64>> {
            match xd {
                // SAFETY: output 0's reduction is `rn` contiguous, aligned elements of `x` from
                // `xbase(0)` (one collapsed axis of stride itemsize), read-locked above.
                DType::Float32 => Some(contiguous_parts(
                    unsafe { std::slice::from_raw_parts(xbase(0).get() as *const f32, rn) },
                    |v| v as f64,
                    mean,
                )),
                // SAFETY: as for float32.
                DType::Float64 => Some(contiguous_parts(
                    unsafe { std::slice::from_raw_parts(xbase(0).get() as *const f64, rn) },
                    |v| v,
                    mean,
                )),
                _ => None,
            }
        };
        if fast {
            if let Some(p) = parts(None) {
                let mut acc = Acc::new(op);
                acc.parts = p;
                if matches!(op, ReduceOp::Var | ReduceOp::Std) {
                    let mean = pairwise_sum(&acc.parts) / rn as f64;
                    acc.parts = parts(Some(mean)).expect("a float dtype");
                }
                write(0, &acc);
                return Ok(());
            }
        }
    }
    if on * rn.max(1) >= PAR_THRESHOLD && on >= 2 * rayon::current_num_threads() {
        (0..on).into_par_iter().for_each(|k| write(k, &reduce_one(xbase(k))));
    } else if on == 1 && rn >= PAR_THRESHOLD {
        // One big reduction: split the reduced range over threads and merge the partials in
        // order (so ties and NaNs resolve to the first position, as sequentially).
        let parts = rayon::current_num_threads() * 4;
        let per = rn.div_ceil(parts).div_ceil(CHUNK) * CHUNK;
        let run_split = |op: ReduceOp, mean: f64| -> Acc {
            let partials: Vec<Acc> = (0..parts)
                .into_par_iter()
                .map(|t| {
                    let (s, e) = (t * per, ((t + 1) * per).min(rn));
                    let mut acc = Acc::new(op);
                    let mut ib = [0i64; CHUNK];
                    let mut ub = [0u64; CHUNK];
                    let mut fb = [0f64; CHUNK];
                    let mut pos = s as u64;
                    if s < e {
                        // SAFETY: as in `reduce_one` (`on == 1`, so output 0's reduction), over
                        // positions `[s, e)` of `rn`; the threads only read `x`.
                        unsafe {
                            walk(&rshape, std::array::from_ref(&rst), [xbase(0)], s, e, &mut |p, n, st| {
                                match d {
                                    Domain::I => load(xd, p[0], st[0], &mut ib[..n]),
                                    Domain::U => load(xd, p[0], st[0], &mut ub[..n]),
                                    Domain::F | Domain::C => load(xd, p[0], st[0], &mut fb[..n]),
                                }
                                feed(&mut acc, d, &ib[..n], &ub[..n], &fb[..n], pos, mean);
                                pos += n as u64;
                            });
                        }
                    }
                    acc
                })
                .collect();
            let mut total = Acc::new(op);
            for p in &partials {
                merge(&mut total, p, d);
            }
            total
        };
        let total = match op {
            ReduceOp::Var | ReduceOp::Std => {
                let m = run_split(ReduceOp::Mean, 0.0);
                run_split(op, finish_f64(&m, d) / rn as f64)
            }
            _ => run_split(op, 0.0),
        };
        write(0, &total);
    } else {
        for k in 0..on {
            write(k, &reduce_one(xbase(k)));
        }
    }
    Ok(())
}

/// The pairwise sums of each CHUNK of `s` (converted by `f`; squared deviations from `mean`
/// when given), in order, on several threads above `PAR_THRESHOLD` elements (the chunks do not
/// depend on the number of threads).
fn contiguous_parts<T: Copy + Sync>(s: &[T], f: impl Fn(T) -> f64 + Sync, mean: Option<f64>) -> Vec<f64> {
    let f = &f;
    let block = |c: &[T]| -> f64 {
        match mean {
            None => pairwise_sum_by(c, f),
            Some(m) => pairwise_sum_by(c, |v| {
                let d = f(v) - m;
                d * d
            }),
        }
    };
    if s.len() >= PAR_THRESHOLD {
        s.par_chunks(CHUNK).with_min_len(16).map(block).collect()
    } else {
        s.chunks(CHUNK).map(block).collect()
    }
}

/// Merges the accumulator of a later part of the range into `total`.
fn merge(total: &mut Acc, p: &Acc, d: Domain) {
    use ReduceOp::*;
    total.parts.extend_from_slice(&p.parts);
    match total.op {
        Prod => {
            total.i = total.i.wrapping_mul(p.i);
            total.u = total.u.wrapping_mul(p.u);
            total.f *= p.f;
        }
        All => total.i &= p.i,
        Any => total.i |= p.i,
        Min | Max | ArgMin | ArgMax => {
            if p.seen == 0 || total.done {
                return;
            }
            let want_max = matches!(total.op, Max | ArgMax);
            let better = total.seen == 0
                || p.done
                || match d {
                    Domain::I => {
                        if want_max {
                            p.i > total.i
                        } else {
                            p.i < total.i
                        }
                    }
                    Domain::U => {
                        if want_max {
                            p.u > total.u
                        } else {
                            p.u < total.u
                        }
                    }
                    Domain::F | Domain::C => {
                        if want_max {
                            p.f > total.f
                        } else {
                            p.f < total.f
                        }
                    }
                };
            if better {
                total.i = p.i;
                total.u = p.u;
                total.f = p.f;
                total.idx = p.idx;
                total.done = p.done;
            }
            total.seen += p.seen;
        }
        _ => {
            total.i = total.i.wrapping_add(p.i);
            total.u = total.u.wrapping_add(p.u);
        }
    }
}

fn finish_f64(acc: &Acc, d: Domain) -> f64 {
    if acc.op == ReduceOp::Mean {
        return pairwise_sum(&acc.parts);
    }
    match d {
        Domain::I => acc.i as f64,
        Domain::U => acc.u as f64,
        Domain::F | Domain::C => pairwise_sum(&acc.parts),
    }
}

fn finish(op: ReduceOp, acc: &Acc, d: Domain, n: usize, ddof: f64) -> Scalar {
    use ReduceOp::*;
    match op {
        Sum | Prod | Min | Max => match (op, d) {
            (Sum, Domain::F) => Scalar::Float(pairwise_sum(&acc.parts)),
            (Prod, Domain::F) | (Min, Domain::F) | (Max, Domain::F) => Scalar::Float(acc.f),
            (_, Domain::I) => Scalar::Int(acc.i),
            (_, Domain::U) => Scalar::UInt(acc.u),
            _ => unreachable!(),
        },
        Mean => Scalar::Float(finish_f64(acc, d) / n as f64),
        Var | Std => {
            let v = pairwise_sum(&acc.parts) / dof(n as f64, ddof);
            Scalar::Float(if op == Std { v.sqrt() } else { v })
        }
        ArgMin | ArgMax => Scalar::Int(acc.idx.max(0)),
        Any | All => Scalar::Bool(acc.i != 0),
        CountNonzero => Scalar::Int(acc.i),
    }
}
