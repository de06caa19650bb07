//! The CPU accumulation: chunks of elements in parallel, each into accumulators of its own
//! (one entry per slot), merged at the end; the coordinates of each element followed
//! incrementally.

use super::{key_of_f64, Acc, Pass, Slots};
use crate::array::Array;
use crate::backend::cpu::keys::f64_of_key;
use crate::backend::cpu::values::{store_values, values};
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::Result;
use rayon::prelude::*;

/// The values of order keys `keys` (uint64 [k]) in `dt`, 0 where `count` (int64 [k]) is 0
/// (SciPy's zeros for absent labels): the keys of [`Val::key`] decoded.
pub(crate) fn decode(keys: &Array, count: &Array, dt: DType) -> Result<Array> {
    let k = keys.to_vec::<u64>()?;
    let c = count.to_vec::<i64>()?;
    let present = k.iter().zip(&c).map(|(&b, &n)| (b, n != 0));
    if dt.is_float() {
        let v: Vec<f64> = present.map(|(b, p)| if p { f64_of_key(b) } else { 0.0 }).collect();
        return crate::from_slice(&v, &[v.len()], &Device::Cpu)?.astype(dt);
    }
    if dt.is_unsigned_int() || dt == DType::Bool {
        let u: Vec<u64> = present.map(|(b, p)| if p { b } else { 0 }).collect();
        return crate::from_slice(&u, &[u.len()], &Device::Cpu)?.astype(dt);
    }
    let i: Vec<i64> = present.map(|(b, p)| if p { (b ^ (1 << 63)) as i64 } else { 0 }).collect();
    crate::from_slice(&i, &[i.len()], &Device::Cpu)?.astype(dt)
}

/// A value of the input in its exact domain.
trait Val: Copy + Send + Sync + Default + crate::backend::cpu::Wide {
    fn f(self) -> f64;
    /// The order key (integers offset, floats with NaN largest).
    fn key(self) -> u64;
    /// The value's bits for wrapping 64-bit sums.
    fn bits(self) -> u64;
}
impl Val for f64 {
    fn f(self) -> f64 {
        self
    }
    fn key(self) -> u64 {
        key_of_f64(self)
    }
    fn bits(self) -> u64 {
        self as i64 as u64
    }
}
impl Val for i64 {
    fn f(self) -> f64 {
        self as f64
    }
    fn key(self) -> u64 {
        (self as u64) ^ (1 << 63)
    }
    fn bits(self) -> u64 {
        self as u64
    }
}
impl Val for u64 {
    fn f(self) -> f64 {
        self as f64
    }
    fn key(self) -> u64 {
        self
    }
    fn bits(self) -> u64 {
        self
    }
}

/// Per-slot accumulators of one chunk.
#[derive(Clone)]
struct Part {
    count: Vec<i64>,
    sum: Vec<f64>,
    isum: Vec<u64>,
    sq: Vec<f64>,
    com: Vec<f64>,
    minkey: Vec<u64>,
    maxkey: Vec<u64>,
    minpos: Vec<i64>,
    maxpos: Vec<i64>,
    bblo: Vec<i64>,
    bbhi: Vec<i64>,
}

impl Part {
    fn new(p: &Pass<'_>, k: usize, nd: usize) -> Part {
        let w = p.want;
        let v = |on: bool, n: usize| if on { n } else { 0 };
        Part {
            count: vec![0; v(w.count, k)],
            sum: vec![0.0; v(w.sum, k)],
            isum: vec![0; v(w.isum, k)],
            sq: vec![0.0; v(w.sq, k)],
            com: vec![0.0; v(w.com, k * nd)],
            minkey: vec![u64::MAX; v(w.minmax, k)],
            maxkey: vec![0; v(w.minmax, k)],
            minpos: vec![i64::MAX; v(w.pos, k)],
            maxpos: vec![i64::MAX; v(w.pos, k)],
            bblo: vec![i64::MAX; v(w.bbox, k * nd)],
            bbhi: vec![-1; v(w.bbox, k * nd)],
        }
    }

    fn merge(mut self, o: Part) -> Part {
        let add = |a: &mut Vec<f64>, b: &[f64]| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        self.count.iter_mut().zip(&o.count).for_each(|(x, y)| *x += y);
        add(&mut self.sum, &o.sum);
        self.isum.iter_mut().zip(&o.isum).for_each(|(x, y)| *x = x.wrapping_add(*y));
        add(&mut self.sq, &o.sq);
        add(&mut self.com, &o.com);
        self.minkey.iter_mut().zip(&o.minkey).for_each(|(x, y)| *x = (*x).min(*y));
        self.maxkey.iter_mut().zip(&o.maxkey).for_each(|(x, y)| *x = (*x).max(*y));
        self.minpos.iter_mut().zip(&o.minpos).for_each(|(x, y)| *x = (*x).min(*y));
        self.maxpos.iter_mut().zip(&o.maxpos).for_each(|(x, y)| *x = (*x).min(*y));
        self.bblo.iter_mut().zip(&o.bblo).for_each(|(x, y)| *x = (*x).min(*y));
        self.bbhi.iter_mut().zip(&o.bbhi).for_each(|(x, y)| *x = (*x).max(*y));
        self
    }
}

/// The slot of label `l` (-1: none).
#[inline]
fn slot(s: &Slots, k: usize, l: i64) -> i64 {
    match s {
        Slots::Every => 0,
        Slots::Positive => {
            if l > 0 {
                0
            } else {
                -1
            }
        }
        Slots::Equal(v) => {
            if l == *v {
                0
            } else {
                -1
            }
        }
        Slots::Range { lo } => {
            let d = l.wrapping_sub(*lo);
            if d >= 0 && (d as u64) < k as u64 {
                d
            } else {
                -1
            }
        }
        Slots::Lut { lo, lut } => {
            let d = l.wrapping_sub(*lo);
            if d >= 0 && (d as u64) < lut.len() as u64 {
                lut[d as usize] as i64
            } else {
                -1
            }
        }
    }
}

fn run<V: Val>(p: &Pass<'_>, acc: &Acc) -> Result<()> {
    let k = p.groups.k;
    let shape = p.shape;
    let nd = shape.len().max(1);
    let n: usize = shape.iter().product();
    let xs: Vec<V> = match p.x {
        Some(x) => values(x)?,
        None => Vec::new(),
    };
    let ls: Vec<i64> = match p.labels {
        Some(l) => values(l)?,
        None => Vec::new(),
    };
    let host = |a: &Option<Array>| -> Result<Vec<f64>> {
        match a {
            Some(a) => a.to_vec::<f64>(),
            None => Ok(Vec::new()),
        }
    };
    let means = host(&p.means.map(|m| m.view()))?;
    let (kmin, kmax): (Vec<u64>, Vec<u64>) = match p.keys {
        Some((a, b)) => (a.to_vec::<u64>()?, b.to_vec::<u64>()?),
        None => (Vec::new(), Vec::new()),
    };
    let w = p.want;
    // Chunks: enough for the threads, each accumulator set small enough to copy.
    let threads = rayon::current_num_threads();
    let per_part_bytes = k * (8 * (nd * 3 + 8)).max(8);
    let parts = if n < crate::backend::cpu::PAR_THRESHOLD {
        1
    } else {
        (threads * 2).min((512 << 20) / per_part_bytes.max(1)).max(1)
    };
    let len = n.div_ceil(parts);
    let real_shape: Vec<usize> = if shape.is_empty() { vec![1] } else { shape.to_vec() };
    let total = (0..parts)
        .into_par_iter()
        .map(|c| {
            let (a, b) = (c * len, ((c + 1) * len).min(n));
            let mut part = Part::new(p, k, nd);
            if a >= b {
                return part;
            }
            // The coordinates of element a.
            let mut coord = vec![0i64; nd];
            let mut r = a;
            for d in (0..nd).rev() {
                coord[d] = (r % real_shape[d]) as i64;
                r /= real_shape[d];
            }
            for i in a..b {
                let s = if p.labels.is_some() { slot(&p.groups.slots, k, ls[i]) } else { 0 };
                if s >= 0 {
                    let s = s as usize;
                    if w.count {
                        part.count[s] += 1;
                    }
                    if !xs.is_empty() {
                        let v = xs[i];
                        if w.sum {
                            part.sum[s] += v.f();
                        }
                        if w.isum {
                            part.isum[s] = part.isum[s].wrapping_add(v.bits());
                        }
                        if w.sq {
                            let d = v.f() - means[s];
                            part.sq[s] += d * d;
                        }
                        if w.com {
                            let f = v.f();
                            for (c, &x) in part.com[s * nd..(s + 1) * nd].iter_mut().zip(&coord) {
                                *c += f * x as f64;
                            }
                        }
                        if w.minmax {
                            let key = v.key();
                            part.minkey[s] = part.minkey[s].min(key);
                            part.maxkey[s] = part.maxkey[s].max(key);
                        }
                        if w.pos {
                            let key = v.key();
                            if key == kmin[s] && part.minpos[s] == i64::MAX {
                                part.minpos[s] = i as i64;
                            }
                            if key == kmax[s] && part.maxpos[s] == i64::MAX {
                                part.maxpos[s] = i as i64;
                            }
                        }
                    }
                    if w.bbox {
                        let (lo, hi) = (&mut part.bblo[s * nd..(s + 1) * nd], &mut part.bbhi[s * nd..(s + 1) * nd]);
                        for ((l, h), &x) in lo.iter_mut().zip(hi.iter_mut()).zip(&coord) {
                            *l = (*l).min(x);
                            *h = (*h).max(x);
                        }
                    }
                }
                // Next coordinates.
                for d in (0..nd).rev() {
                    coord[d] += 1;
                    if (coord[d] as usize) < real_shape[d] {
                        break;
                    }
                    coord[d] = 0;
                }
            }
            part
        })
        .reduce_with(Part::merge)
        .unwrap_or_else(|| Part::new(p, k, nd));
    let put_f = |a: &Option<Array>, v: &[f64]| -> Result<()> { a.as_ref().map_or(Ok(()), |a| store_values(a, v)) };
    let put_i = |a: &Option<Array>, v: &[i64]| -> Result<()> { a.as_ref().map_or(Ok(()), |a| store_values(a, v)) };
    let put_u = |a: &Option<Array>, v: &[u64]| -> Result<()> { a.as_ref().map_or(Ok(()), |a| store_values(a, v)) };
    put_i(&acc.count, &total.count)?;
    put_f(&acc.sum, &total.sum)?;
    put_u(&acc.isum, &total.isum)?;
    put_f(&acc.sq, &total.sq)?;
    put_f(&acc.com, &total.com)?;
    put_u(&acc.minkey, &total.minkey)?;
    put_u(&acc.maxkey, &total.maxkey)?;
    put_i(&acc.minpos, &total.minpos)?;
    put_i(&acc.maxpos, &total.maxpos)?;
    put_i(&acc.bblo, &total.bblo)?;
    put_i(&acc.bbhi, &total.bbhi)?;
    Ok(())
}

/// Accumulates `p` into the CPU arrays of `acc`.
pub(crate) fn accumulate(p: &Pass<'_>, acc: &Acc) -> Result<()> {
    match p.x.map(|x| x.dtype()) {
        Some(d) if d.is_float() => run::<f64>(p, acc),
        Some(d) if d.is_unsigned_int() || d == DType::Bool => run::<u64>(p, acc),
        _ => run::<i64>(p, acc),
    }
}
