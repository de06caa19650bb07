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
    let leaves = super::leaves(n);
    let mut views = Vec::with_capacity(leaves.len());
    for l in &leaves {
        let Op::Leaf(a) = &l.op else { unreachable!("leaves() returns leaves") };
        views.push((Arc::as_ptr(l) as usize, a.broadcast_to(&shape)?));
    }
    // Every leaf node's view (a leaf met twice as two nodes shares one).
    let mut aliases = Vec::new();
    alias(n, &leaves, &mut aliases);
    let views: Vec<(usize, Array)> = aliases.iter().map(|&(node, d)| (node, leaf_view(&views, d).view())).collect();
    // The locks of every block the pass reads or writes, held here for all of it; the steps
    // on the worker threads take none (`LocksHeld`).
    let reads: Vec<_> = views.iter().map(|(_, v)| &*v.storage).collect();
    let _l = CpuLocks::new(&reads, &[&out.storage]);
    if shape.is_empty() {
        let _h = LocksHeld::enter();
        return compute(n, out, &|p| leaf_view(&views, p).view());
    }
    // Blocks: a run along axis `d` (the first axis whose inner part fits a block) at every
    // index of the axes before it.
    let d = (0..shape.len()).find(|&d| shape[d + 1..].iter().product::<usize>() <= BLOCK).unwrap_or(shape.len() - 1);
    let inner: usize = shape[d + 1..].iter().product();
    let per = (BLOCK / inner.max(1)).max(1);
    let outer: usize = shape[..d].iter().product();
    let runs = shape[d].div_ceil(per);
    let block = |b: usize| -> Result<()> {
        let _h = LocksHeld::enter();
        let (o, r) = (b / runs, b % runs);
        let (s, e) = (r * per, ((r + 1) * per).min(shape[d]));
        let sub = |a: &Array| sub_view(a, &shape, d, o, s, e);
        compute(n, &sub(out), &|p| sub(leaf_view(&views, p)))
    };
    let blocks = outer * runs;
    if blocks >= PAR_BLOCKS {
        (0..blocks).into_par_iter().try_for_each(block)
    } else {
        (0..blocks).try_for_each(block)
    }
}

/// A leaf's array, by its node's address.
fn leaf_view(views: &[(usize, Array)], p: usize) -> &Array {
    &views.iter().find(|(q, _)| *q == p).expect("every leaf has a view").1
}

/// Every leaf node of the tree with its distinct leaf's address (`leaves` keeps one of each).
fn alias(n: &NodeRef, distinct: &[NodeRef], out: &mut Vec<(usize, usize)>) {
    match &n.op {
        Op::Leaf(_) => {
            let d = distinct.iter().find(|m| super::same_leaf(m, n)).expect("a distinct leaf");
            out.push((Arc::as_ptr(n) as usize, Arc::as_ptr(d) as usize));
        }
        Op::Scalar(_) | Op::Const(_) => {}
        Op::Unary(_, _, x) | Op::Cast(x) => alias(x, distinct, out),
        Op::Binary(_, _, a, b) => {
            alias(a, distinct, out);
            alias(b, distinct, out);
        }
        Op::Where(c, x, y) => {
            alias(c, distinct, out);
            alias(x, distinct, out);
            alias(y, distinct, out);
        }
    }
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
fn compute(n: &NodeRef, out: &Array, leaf: &dyn Fn(usize) -> Array) -> Result<()> {
    let val = |m: &NodeRef| value(m, out.shape(), leaf);
    match &n.op {
        Op::Leaf(_) => cpu::assign(out, &leaf(Arc::as_ptr(n) as usize)),
        Op::Scalar(s) => cpu::fill(out, *s),
        Op::Const(v) => cpu::fill(out, Scalar::Bool(*v)),
        Op::Unary(op, l, x) => cpu::unary(*op, *l, &val(x)?, out),
        Op::Binary(op, l, a, b) => cpu::binary(*op, *l, &val(a)?, &val(b)?, out),
        Op::Where(c, x, y) => cpu::where_(&val(c)?, &val(x)?, &val(y)?, out),
        Op::Cast(x) => cpu::assign(out, &val(x)?),
    }
}

/// A node's value over one block of shape `shape`: a leaf's view, a scalar as the 0-d array
/// of its dtype the unfused operation makes, or a buffer of the block computed now.
fn value(n: &NodeRef, shape: &[usize], leaf: &dyn Fn(usize) -> Array) -> Result<Array> {
    match &n.op {
        Op::Leaf(_) => Ok(leaf(Arc::as_ptr(n) as usize)),
        Op::Scalar(s) => Array::scalar_cpu(*s, n.dtype),
        _ => {
            let t = Array::alloc(shape, n.dtype, Device::Cpu, false)?;
            compute(n, &t, leaf)?;
            Ok(t)
        }
    }
}

/// `out = op(n)` over all of `n`'s axes, `op` a sum, mean, variance or standard deviation of a
/// float32/float64 formula whose array inputs have its shape (C-contiguous) or are 0-d: the
/// pairwise sums of each `CHUNK` of the formula's values (block by block, as the unfused pass
/// takes them of the contiguous array), then their pairwise sum, as `reduce::cpu` finishes.
/// Variances take two passes over the formula (its mean, then the squared deviations).
pub(crate) fn reduce_all(n: &NodeRef, op: ReduceOp, ddof: f64, out: &Array) -> Result<()> {
    let total: usize = n.shape.iter().product();
    let leaves = super::leaves(n);
    let mut views = Vec::with_capacity(leaves.len());
    for l in &leaves {
        let Op::Leaf(a) = &l.op else { unreachable!("leaves() returns leaves") };
        views.push((Arc::as_ptr(l) as usize, if a.ndim() == 0 { a.view() } else { a.reshape([total])? }));
    }
    let mut aliases = Vec::new();
    alias(n, &leaves, &mut aliases);
    let views: Vec<(usize, Array)> = aliases.iter().map(|&(node, d)| (node, leaf_view(&views, d).view())).collect();
    let v = {
        let reads: Vec<_> = views.iter().map(|(_, v)| &*v.storage).collect();
        let _l = CpuLocks::new(&reads, &[]);
        // Blocks of whole chunks, so that the chunks are the unfused pass's.
        let per = BLOCK / CHUNK * CHUNK;
        let parts = |mean: Option<f64>| -> Result<Vec<f64>> {
            let block = |b: usize| -> Result<Vec<f64>> {
                let _h = LocksHeld::enter();
                let (s, e) = (b * per, ((b + 1) * per).min(total));
                let buf = Array::alloc(&[e - s], n.dtype, Device::Cpu, false)?;
                let sub = |a: &Array| if a.ndim() == 0 { a.view() } else { sub_view(a, &[total], 0, 0, s, e) };
                compute(n, &buf, &|p| sub(leaf_view(&views, p)))?;
                let vals: Vec<f64> = match n.dtype {
                    DType::Float32 => buf.to_vec::<f32>()?.into_iter().map(f64::from).collect(),
                    _ => buf.to_vec::<f64>()?,
                };
                Ok(vals
                    .chunks(CHUNK)
                    .map(|c| match mean {
                        None => pairwise_sum(c),
                        Some(m) => pairwise_sum_by(c, |v| (v - m) * (v - m)),
                    })
                    .collect())
            };
            let blocks = total.div_ceil(per);
            let parts: Vec<Vec<f64>> = if blocks >= PAR_BLOCKS {
                (0..blocks).into_par_iter().map(block).collect::<Result<_>>()?
            } else {
                (0..blocks).map(block).collect::<Result<_>>()?
            };
            Ok(parts.concat())
        };
        let sum = pairwise_sum(&parts(None)?);
        match op {
            ReduceOp::Sum => sum,
            ReduceOp::Mean => sum / total as f64,
            _ => {
                let var = pairwise_sum(&parts(Some(sum / total as f64))?) / (total as f64 - ddof).max(0.0);
                if op == ReduceOp::Std {
                    var.sqrt()
                } else {
                    var
                }
            }
        }
    };
    cpu::fill(out, Scalar::Float(v))
}
