//! A formula on the CPU: one pass over the output in blocks of [`BLOCK`] elements or fewer.
//! In each block every node is computed by the CPU backend's own ufunc loops (so the bits are
//! the unfused operations'), into a buffer of the block's size: the temporaries stay in the
//! cache, and nothing array-sized is allocated but the result. Blocks run in parallel.

use super::{NodeRef, Op};
use crate::array::Array;
use crate::backend::cpu::CHUNK;
use crate::backend::storage::{CpuLocks, LocksHeld};
use crate::core::device::Device;
use crate::core::dtype::{DType, Scalar};
use crate::core::error::Result;
use crate::core::layout;
use crate::core::ufunc::ReduceOp;
use crate::reduce::cpu::{pairwise_sum, pairwise_sum_by};
use crate::ufunc::cpu;
use rayon::prelude::*;
use std::sync::Arc;

/// Elements of a block: below every thread threshold of the ufunc loops (2^13), so that a
/// block's steps stay on its thread, and small enough for a few buffers to stay in L2.
const BLOCK: usize = 4096;

/// Blocks from which the pass runs on threads.
const PAR_BLOCKS: usize = 8;

/// `out = n`, `out` a fresh C-contiguous CPU array of the node's shape and dtype.
pub(crate) fn eval(n: &NodeRef, out: &Array) -> Result<()> {
    let shape = out.shape().to_vec();
    let mut views = Vec::new();
    for l in &super::leaves(n) {
        let Op::Leaf(a) = &l.op else { unreachable!("leaves() returns leaves") };
        views.push((Arc::as_ptr(l) as usize, a.broadcast_to(&shape)?));
    }
    // The locks of every block the pass reads or writes, held here for all of it; the steps
    // on the worker threads take none (`LocksHeld`).
    let reads: Vec<_> = views.iter().map(|(_, v)| &*v.storage).collect();
    let _l = CpuLocks::new(&reads, &[&out.storage]);
    if shape.is_empty() {
        let _h = LocksHeld::enter();
        return compute(n, out, &|p| leaf_view(&views, p).view(), &mut Temps::default());
    }
    // Blocks: a run along axis `d` (the first axis whose inner part fits a block) at every
    // index of the axes before it.
    let d = (0..shape.len()).find(|&d| shape[d + 1..].iter().product::<usize>() <= BLOCK).unwrap_or(shape.len() - 1);
    let inner: usize = shape[d + 1..].iter().product();
    let per = (BLOCK / inner.max(1)).max(1);
    let outer: usize = shape[..d].iter().product();
    let runs = shape[d].div_ceil(per);
    let block = |b: usize, temps: &mut Temps| -> Result<()> {
        let (o, r) = (b / runs, b % runs);
        let (s, e) = (r * per, ((r + 1) * per).min(shape[d]));
        let sub = |a: &Array| sub_view(a, &shape, d, o, s, e);
        compute(n, &sub(out), &|p| sub(leaf_view(&views, p)), temps)
    };
    tasks(outer * runs, |range| {
        let _h = LocksHeld::enter();
        let mut temps = Temps::default();
        range.map(|b| block(b, &mut temps)).collect::<Result<Vec<()>>>().map(drop)
    })
    .map(drop)
}

/// Runs `f` over `0..blocks` split into contiguous ranges (on threads from `PAR_BLOCKS`
/// blocks; a few ranges a thread), returning the ranges' results in order.
fn tasks<R: Send>(blocks: usize, f: impl Fn(std::ops::Range<usize>) -> Result<R> + Sync) -> Result<Vec<R>> {
    if blocks < PAR_BLOCKS {
        return Ok(vec![f(0..blocks)?]);
    }
    let parts = (rayon::current_num_threads() * 4).min(blocks);
    let per = blocks.div_ceil(parts);
    (0..blocks.div_ceil(per)).into_par_iter().map(|t| f(t * per..((t + 1) * per).min(blocks))).collect()
}

/// A task's buffers for the values of a formula's nodes: one of `BLOCK` elements per node,
/// reused block after block.
#[derive(Default)]
struct Temps(Vec<(usize, Array)>);

impl Temps {
    /// Node `n`'s buffer as a C-contiguous array of `shape` (at most `BLOCK` elements).
    fn get(&mut self, n: &NodeRef, shape: &[usize]) -> Result<Array> {
        let key = Arc::as_ptr(n) as usize;
        let buf = match self.0.iter().find(|(k, _)| *k == key) {
            Some((_, b)) => b.view(),
            None => {
                let b = Array::alloc(&[BLOCK], n.dtype, Device::Cpu, false)?;
                self.0.push((key, b.view()));
                b
            }
        };
        let mut v = buf;
        v.strides = layout::c_strides(shape, n.dtype.itemsize());
        v.shape = shape.to_vec();
        Ok(v)
    }
}

/// A leaf's array, by its node's address.
fn leaf_view(views: &[(usize, Array)], p: usize) -> &Array {
    &views.iter().find(|(q, _)| *q == p).expect("every leaf has a view").1
}

/// The part of `a` (of shape `shape`, C order) at outer index `o` over the axes before `d`
/// and the range `s..e` along `d`: a view of the axes from `d` on.
fn sub_view(a: &Array, shape: &[usize], d: usize, o: usize, s: usize, e: usize) -> Array {
    let mut off = a.offset as isize;
    let mut rest = o;
    for j in (0..d).rev() {
        off += (rest % shape[j]) as isize * a.strides[j];
        rest /= shape[j];
    }
    off += s as isize * a.strides[d];
    let mut v = a.view();
    v.offset = off as usize;
    v.shape = [&[e - s][..], &shape[d + 1..]].concat();
    v.strides = a.strides[d..].to_vec();
    v
}

/// `out = n` over one block; `leaf` gives a leaf's view of the block.
fn compute(n: &NodeRef, out: &Array, leaf: &dyn Fn(usize) -> Array, temps: &mut Temps) -> Result<()> {
    let mut val = |m: &NodeRef| value(m, out.shape(), leaf, temps);
    match &n.op {
        Op::Leaf(_) => cpu::assign(out, &leaf(Arc::as_ptr(n) as usize)),
        Op::Scalar(s) => cpu::fill(out, *s),
        Op::Const(v) => cpu::fill(out, Scalar::Bool(*v)),
        Op::Unary(op, l, x) => cpu::unary(*op, *l, &val(x)?, out),
        Op::Binary(op, l, a, b) => {
            let a = val(a)?;
            cpu::binary(*op, *l, &a, &val(b)?, out)
        }
        Op::Where(c, x, y) => {
            let (c, x) = (val(c)?, val(x)?);
            cpu::where_(&c, &x, &val(y)?, out)
        }
        Op::Cast(x) => cpu::assign(out, &val(x)?),
    }
}

/// A node's value over one block of shape `shape`: a leaf's view, a scalar as the 0-d array
/// of its dtype the unfused operation makes, or a buffer of the block computed now.
fn value(n: &NodeRef, shape: &[usize], leaf: &dyn Fn(usize) -> Array, temps: &mut Temps) -> Result<Array> {
    match &n.op {
        Op::Leaf(_) => Ok(leaf(Arc::as_ptr(n) as usize)),
        Op::Scalar(s) => Array::scalar_cpu(*s, n.dtype),
        _ => {
            let t = temps.get(n, shape)?;
            compute(n, &t, leaf, temps)?;
            Ok(t)
        }
    }
}

/// Runs `f` on the formula's value block by block (blocks of whole `CHUNK`s, in order; the
/// array inputs have the formula's shape and are C-contiguous, or are 0-d), the inputs' locks
/// held; returns the blocks' results in order.
fn blocks<R: Send>(n: &NodeRef, f: impl Fn(&Array) -> R + Sync) -> Result<Vec<R>> {
    let total: usize = n.shape.iter().product();
    let mut views = Vec::new();
    for l in &super::leaves(n) {
        let Op::Leaf(a) = &l.op else { unreachable!("leaves() returns leaves") };
        views.push((Arc::as_ptr(l) as usize, if a.ndim() == 0 { a.view() } else { a.reshape([total])? }));
    }
    let reads: Vec<_> = views.iter().map(|(_, v)| &*v.storage).collect();
    let _l = CpuLocks::new(&reads, &[]);
    // Blocks of whole chunks, so that the chunks are the unfused pass's.
    let per = BLOCK / CHUNK * CHUNK;
    let parts = tasks(total.div_ceil(per), |range| {
        let _h = LocksHeld::enter();
        let mut temps = Temps::default();
        range
            .map(|b| {
                let (s, e) = (b * per, ((b + 1) * per).min(total));
                let buf = temps.get(n, &[e - s])?;
                let sub = |a: &Array| if a.ndim() == 0 { a.view() } else { sub_view(a, &[total], 0, 0, s, e) };
                compute(n, &buf, &|p| sub(leaf_view(&views, p)), &mut temps)?;
                Ok(f(&buf))
            })
            .collect::<Result<Vec<_>>>()
    })?;
    Ok(parts.into_iter().flatten().collect())
}

/// `out = op(n)` over all of `n`'s axes, `op` a sum, mean, variance or standard deviation of a
/// float32/float64 formula whose array inputs have its shape (C-contiguous) or are 0-d: the
/// pairwise sums of each `CHUNK` of the formula's values (block by block, as the unfused pass
/// takes them of the contiguous array), then their pairwise sum, as `reduce::cpu` finishes.
/// Variances take two passes over the formula (its mean, then the squared deviations).
pub(crate) fn reduce_all(n: &NodeRef, op: ReduceOp, ddof: f64, out: &Array) -> Result<()> {
    let total: usize = n.shape.iter().product();
    let parts = |mean: Option<f64>| -> Result<Vec<f64>> {
        fn chunk_sums<T: Copy>(vals: &[T], f: impl Fn(T) -> f64 + Copy, mean: Option<f64>) -> Vec<f64> {
            vals.chunks(CHUNK)
                .map(|c| match mean {
                    None => pairwise_sum_by(c, f),
                    Some(m) => pairwise_sum_by(c, |v| (f(v) - m) * (f(v) - m)),
                })
                .collect()
        }
        let sums = blocks(n, |buf| {
            let (p, len) = (buf.cpu_ptr().get(), buf.size());
            // SAFETY: `buf` is a C-contiguous CPU array of `len` elements of the formula's
            // dtype (float32 or float64, checked by the caller), written by `blocks` and ours
            // alone while `f` runs.
            unsafe {
                match n.dtype {
                    DType::Float32 => chunk_sums(std::slice::from_raw_parts(p as *const f32, len), f64::from, mean),
                    _ => chunk_sums(std::slice::from_raw_parts(p as *const f64, len), |v| v, mean),
                }
            }
        })?;
        Ok(sums.concat())
    };
    let sum = pairwise_sum(&parts(None)?);
    let v = match op {
        ReduceOp::Sum => sum,
        ReduceOp::Mean => sum / total as f64,
        _ => {
            let var = pairwise_sum(&parts(Some(sum / total as f64))?) / crate::reduce::cpu::dof(total as f64, ddof);
            if op == ReduceOp::Std {
                var.sqrt()
            } else {
                var
            }
        }
    };
    cpu::fill(out, Scalar::Float(v))
}

/// Whether [`reduce_exact`] computes `op` of a formula of dtype `dt`: reductions whose result
/// does not depend on the order of the values (any and all of every real dtype; wrapping sums
/// and products, minima and maxima of integers; sums and products of bools).
pub(crate) fn exact(op: ReduceOp, dt: DType) -> bool {
    match op {
        ReduceOp::Any | ReduceOp::All => !dt.is_complex(),
        ReduceOp::Sum | ReduceOp::Prod => dt.is_integer() || dt == DType::Bool,
        ReduceOp::Min | ReduceOp::Max => dt.is_integer(),
        _ => false,
    }
}

/// `out = op(n)` over all of `n`'s axes for the order-independent reductions of [`exact`], in
/// one pass of blocks (inputs as for [`reduce_all`]): each block folded in 64-bit integers (or
/// tested for non-zero values), then the blocks' results folded the same way.
pub(crate) fn reduce_exact(n: &NodeRef, op: ReduceOp, out: &Array) -> Result<()> {
    use crate::backend::cpu::{load, Wide};
    fn fold<W: Wide + Copy + Ord>(
        n: &NodeRef,
        op: ReduceOp,
        init: W,
        add: fn(W, W) -> W,
        mul: fn(W, W) -> W,
    ) -> Result<W> {
        let f = |a: W, b: W| match op {
            ReduceOp::Sum => add(a, b),
            ReduceOp::Prod => mul(a, b),
            ReduceOp::Min => a.min(b),
            _ => a.max(b),
        };
        let parts = blocks(n, |buf| {
            let mut w = vec![init; buf.size()];
            // SAFETY: `buf` is a C-contiguous CPU array of `w.len()` elements of the formula's
            // dtype, written by `blocks` and ours alone while this runs.
            unsafe { load(n.dtype, buf.cpu_ptr().get(), n.dtype.itemsize() as isize, &mut w) };
            w.into_iter().reduce(f).unwrap_or(init)
        })?;
        Ok(parts.into_iter().reduce(f).unwrap_or(init))
    }
    let v = match op {
        ReduceOp::Any | ReduceOp::All => {
            let any = op == ReduceOp::Any;
            let parts = blocks(n, |buf| {
                let mut w = vec![0f64; buf.size()];
                // SAFETY: as in `fold`.
                unsafe { load(n.dtype, buf.cpu_ptr().get(), n.dtype.itemsize() as isize, &mut w) };
                if any {
                    w.iter().any(|v| v.is_nonzero())
                } else {
                    w.iter().all(|v| v.is_nonzero())
                }
            })?;
            Scalar::Bool(if any { parts.iter().any(|&b| b) } else { parts.iter().all(|&b| b) })
        }
        _ if n.dtype.is_unsigned_int() => {
            let init = match op {
                ReduceOp::Prod => 1,
                ReduceOp::Min => u64::MAX,
                _ => 0,
            };
            Scalar::UInt(fold(n, op, init, u64::wrapping_add, u64::wrapping_mul)?)
        }
        _ => {
            let init = match op {
                ReduceOp::Prod => 1,
                ReduceOp::Min => i64::MAX,
                ReduceOp::Max => i64::MIN,
                _ => 0,
            };
            Scalar::Int(fold(n, op, init, i64::wrapping_add, i64::wrapping_mul)?)
        }
    };
    cpu::fill(out, v)
}
