//! The CUDA reductions: one launch per reduction (`rows`: a last block merges the partial
//! results of a split row; `cols`: a lane per output when the reduced axes are outer).

use crate::array::Array;
use crate::backend::cuda::codegen::{self, ModKey, RedSpec, Variant, RED_THREADS};
use crate::backend::cuda::launch::{dev_of, dptr, Params};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout;
use crate::core::ufunc::ReduceOp;

pub(crate) fn reduce(op: ReduceOp, x: &Array, axes: &[usize], ddof: f64, out: &Array) -> Result<()> {
    let dev = dev_of(out)?;
    let nd = x.ndim();
    let kept: Vec<usize> = (0..nd).filter(|a| !axes.contains(a)).collect();
    let rshape: Vec<usize> = axes.iter().map(|&a| x.shape[a]).collect();
    let rst: Vec<isize> = axes.iter().map(|&a| x.strides[a]).collect();
    let kshape: Vec<usize> = kept.iter().map(|&a| x.shape[a]).collect();
    let kst: Vec<isize> = kept.iter().map(|&a| x.strides[a]).collect();
    let nred: usize = rshape.iter().product();
    let nout: usize = kshape.iter().product();
    let (mut rs, mut rt) = {
        let (s, t) = layout::collapse(&rshape, &[&rst]);
        (s, t.into_iter().next().unwrap_or_default())
    };
    if rs.is_empty() || nred == 0 {
        rs = vec![nred.max(1)];
        rt = vec![0];
    }
    let (mut ks, mut kt) = {
        let (s, t) = layout::collapse(&kshape, &[&kst]);
        (s, t.into_iter().next().unwrap_or_default())
    };
    if ks.is_empty() {
        ks = vec![1];
        kt = vec![0];
    }
    let md = codegen::MAX_DIMS;
    if rs.len() > md || ks.len() > md {
        return Err(Error::InvalidArgument(format!("reduction over more than {md} dimensions that cannot be merged")));
    }
    let contig = nred > 0 && rs.len() == 1 && rt[0] == x.itemsize() as isize;
    let spec = RedSpec { op, x: x.dtype, out: out.dtype, contig };
    let mut lay = vec![0i64; 2 + 4 * md];
    lay[0] = rs.len() as i64;
    lay[1] = ks.len() as i64;
    for d in 0..rs.len() {
        lay[2 + d] = rs[d] as i64;
        lay[2 + md + d] = rt[d] as i64;
    }
    for d in 0..ks.len() {
        lay[2 + 2 * md + d] = ks[d] as i64;
        lay[2 + 3 * md + d] = kt[d] as i64;
    }
    let xp = dptr(x)?;
    let op_ = dptr(out)?;
    let use_rows = contig || nred >= 2048 || nout < dev.sm_count as usize * 64;
    if !use_rows || nred == 0 {
        let k = dev.kernel(ModKey::Red(spec, Variant::Cols))?;
        let mut p = Params::new();
        p.push(xp);
        p.push(op_);
        p.push(nout as i64);
        p.push(nred as i64);
        p.push(ddof);
        p.push_i64s(&lay);
        let grid = nout.div_ceil(RED_THREADS as usize) as u32;
        return unsafe { p.launch(&dev, &k, grid, RED_THREADS) };
    }
    // Split each output's range over several blocks when there are few outputs.
    let target = dev.sm_count as usize * 8;
    let v = (16 / x.itemsize()).max(1);
    let mut splits = if nout >= target { 1 } else { target.div_ceil(nout).min(nred.div_ceil(4096)).max(1) };
    let per = nred.div_ceil(splits).div_ceil(v) * v;
    splits = nred.div_ceil(per).max(1);
    let rows = dev.kernel(ModKey::Red(spec, Variant::Rows))?;
    let part = if splits > 1 {
        Some(Array::alloc(&[nout * splits * spec.acc_bytes()], DType::UInt8, out.device(), false)?)
    } else {
        None
    };
    let pp = match &part {
        Some(p) => dptr(p)?,
        None => 0,
    };
    let count = if splits > 1 { dev.reduce_counters(nout)? } else { 0 };
    let mut p = Params::new();
    p.push(xp);
    p.push(op_);
    p.push(pp);
    p.push(count);
    p.push(nout as i64);
    p.push(nred as i64);
    p.push(per as i64);
    p.push(splits as i32);
    p.push(ddof);
    p.push_i64s(&lay);
    unsafe { p.launch(&dev, &rows, (nout * splits) as u32, RED_THREADS)? };
    // `part` goes back to the pool now; later allocations reuse it only in stream order.
    drop(part);
    Ok(())
}
