//! The CPU rank filters. Values become order-preserving unsigned keys (`u32` for dtypes of at
//! most 32 bits, `u64` otherwise); then
//! - separable min/max: van Herk / Gil-Werman per line (three operations an output whatever
//!   the size), lanes of `LANES` neighbouring lines at once when the axis is not the last;
//! - other filters: the input extended once by the mode into a padded array, and each output's
//!   window gathered from it at fixed offsets, `LANES` neighbouring outputs at a time: a running
//!   min/max, or for a rank the pruned sorting network of [`network`] applied to the lanes (each
//!   comparator a vector min/max), or `select_nth_unstable` for windows above `NET_MAX`;
//! - grey morphology with a structure: SciPy's arithmetic per window element, output by output.
//!
//! Rows (or lanes) run in parallel with rayon.

use super::{Mode, Op, Pass, Plan};
use crate::array::Array;
use crate::backend::cpu::keys::{f32_key, f32_of_key, f64_key, f64_of_key};
use crate::backend::cpu::values::{store_values, values};
use crate::backend::storage::CpuLocks;
use crate::core::dtype::DType;
use crate::core::error::Result;
use rayon::prelude::*;

/// Outputs computed together (vector lanes).
const LANES: usize = 16;
/// The largest window sorted with a network; larger ones use `select_nth_unstable`.
pub(crate) const NET_MAX: usize = 128;

/// A comparator of a selection network: `(i, j, kind)` with `i < j`; kind 0: `v[i], v[j] =
/// min, max`; 1: `v[i] = min` only; 2: `v[j] = max` only.
pub(crate) type Cmp = (u16, u16, u8);

/// Batcher's odd-even merge sort for `n` elements (comparators on padding removed: padding
/// at the top holds the largest key and never moves), pruned to what element `k` of the sorted
/// order needs: comparators whose outputs are not needed are dropped, those with one needed
/// output keep only that half.
pub(crate) fn network(n: usize, k: usize) -> Vec<Cmp> {
    let mut all = Vec::new();
    let mut p = 1;
    while p < n {
        let mut kk = p;
        while kk > 0 {
            let mut j = kk % p;
            while j + kk < n {
                for i in 0..kk.min(n - j - kk) {
                    if (i + j) / (2 * p) == (i + j + kk) / (2 * p) {
                        all.push((i + j, i + j + kk));
                    }
                }
                j += 2 * kk;
            }
            kk /= 2;
        }
        p *= 2;
    }
    let mut need = vec![false; n];
    need[k] = true;
    let mut out = Vec::new();
    for &(i, j) in all.iter().rev() {
        match (need[i], need[j]) {
            (false, false) => {}
            (true, true) => out.push((i as u16, j as u16, 0)),
            (true, false) => {
                out.push((i as u16, j as u16, 1));
                need[j] = true;
            }
            (false, true) => {
                out.push((i as u16, j as u16, 2));
                need[i] = true;
            }
        }
    }
    out.reverse();
    out
}

/// An order-preserving key.
pub(crate) trait Key: Copy + Ord + Send + Sync + Default + 'static {
    fn from_u64(v: u64) -> Self;
}
impl Key for u32 {
    #[inline(always)]
    fn from_u64(v: u64) -> u32 {
        v as u32
    }
}
impl Key for u64 {
    #[inline(always)]
    fn from_u64(v: u64) -> u64 {
        v
    }
}

/// Whether `dt`'s keys have 64 bits (float16 is keyed through float64 here).
pub(crate) fn wide_keys(dt: DType) -> bool {
    matches!(dt, DType::Int64 | DType::UInt64 | DType::Float64 | DType::Float16)
}

/// The bits of `dt` (bool: 8).
fn bits(dt: DType) -> u32 {
    (dt.itemsize() * 8) as u32
}

/// An integer value (as i64 bits) wrapped to `dt`'s width: sign-extended for signed types,
/// zero-extended for unsigned ones (and bool, as a byte).
pub(crate) fn wrap(v: i64, dt: DType) -> i64 {
    let b = bits(dt);
    if b == 64 {
        return v;
    }
    if dt.is_signed_int() {
        (v << (64 - b)) >> (64 - b)
    } else {
        v & ((1i64 << b) - 1)
    }
}

/// C's cast of a double to the integer `dt` (truncation; beyond the range, the low bits of the
/// 64-bit truncation).
pub(crate) fn c_cast(d: f64, dt: DType) -> i64 {
    let t = if dt == DType::UInt64 && d >= 9.223_372_036_854_776e18 { (d as u64) as i64 } else { d as i64 };
    wrap(t, dt)
}

/// The key of an integer value (i64 bits of `dt`, wrapped) of `dt`.
fn int_key(v: i64, dt: DType) -> u64 {
    if dt.is_signed_int() {
        let b = bits(dt);
        (v as u64).wrapping_add(1u64 << (b - 1)) & if b == 64 { u64::MAX } else { (1u64 << b) - 1 }
    } else {
        v as u64
    }
}
fn int_of_key(k: u64, dt: DType) -> i64 {
    if dt.is_signed_int() {
        let b = bits(dt);
        wrap(k.wrapping_sub(1u64 << (b - 1)) as i64, dt)
    } else {
        k as i64
    }
}

/// The key of `cval` converted to `dt` (floats: rounded; integers: C's cast; bool: the byte).
pub(crate) fn cval_key(dt: DType, cval: f64) -> u64 {
    match dt {
        DType::Float64 | DType::Float16 => {
            let v = if dt == DType::Float16 { half::f16::from_f64(cval).to_f64() } else { cval };
            f64_key(v)
        }
        DType::Float32 => f32_key(cval as f32) as u64,
        DType::Bool => (c_cast(cval, DType::UInt8) != 0) as u64,
        _ => int_key(c_cast(cval, dt), dt),
    }
}

/// The keys of the C-contiguous CPU array `x`.
fn keys<K: Key>(x: &Array) -> Result<Vec<K>> {
    let dt = x.dtype();
    Ok(match dt {
        DType::Float32 => {
            let _l = CpuLocks::new(&[&x.storage], &[]);
            // SAFETY: `x` is a C-contiguous CPU float32 array of `x.size()` elements,
            // read-locked above.
            let s = unsafe { std::slice::from_raw_parts(x.cpu_ptr().get() as *const f32, x.size()) };
            s.par_iter().with_min_len(1 << 14).map(|&v| K::from_u64(f32_key(v) as u64)).collect()
        }
        DType::Float64 | DType::Float16 => values::<f64>(x)?.into_par_iter().map(|v| K::from_u64(f64_key(v))).collect(),
        DType::UInt64 => values::<u64>(x)?.into_par_iter().map(K::from_u64).collect(),
        _ => values::<i64>(x)?.into_par_iter().map(|v| K::from_u64(int_key(v, dt))).collect(),
    })
}

/// Writes keys `k` (as u64) into `out`.
fn store_keys<K: Key + Into<u64>>(out: &Array, k: Vec<K>) -> Result<()> {
    let dt = out.dtype();
    match dt {
        DType::Float32 => {
            let _l = CpuLocks::new(&[], &[&out.storage]);
            // SAFETY: `out` is a C-contiguous CPU float32 array of `k.len()` elements,
            // write-locked above.
            let o = unsafe { std::slice::from_raw_parts_mut(out.cpu_ptr().get() as *mut f32, k.len()) };
            o.par_iter_mut()
                .zip(k.par_iter())
                .with_min_len(1 << 14)
                .for_each(|(o, &k)| *o = f32_of_key(k.into() as u32));
            Ok(())
        }
        DType::Float64 => {
            let _l = CpuLocks::new(&[], &[&out.storage]);
            // SAFETY: as for float32, a float64 array.
            let o = unsafe { std::slice::from_raw_parts_mut(out.cpu_ptr().get() as *mut f64, k.len()) };
            o.par_iter_mut().zip(k.par_iter()).with_min_len(1 << 14).for_each(|(o, &k)| *o = f64_of_key(k.into()));
            Ok(())
        }
        DType::Float16 => store_values(out, &k.into_par_iter().map(|k| f64_of_key(k.into())).collect::<Vec<f64>>()),
        DType::UInt64 => store_values(out, &k.into_par_iter().map(|k| k.into()).collect::<Vec<u64>>()),
        _ => store_values(out, &k.into_par_iter().map(|k| int_of_key(k.into(), dt)).collect::<Vec<i64>>()),
    }
}

/// A pointer that tasks writing disjoint parts of one buffer share.
#[derive(Copy, Clone)]
struct SyncPtr<K>(*mut K);
impl<K> SyncPtr<K> {
    /// The pointer (a method, so that closures capture the whole `SyncPtr`).
    fn get(&self) -> *mut K {
        self.0
    }
}
// SAFETY: the tasks that share a SyncPtr write disjoint elements (see its uses).
unsafe impl<K> Send for SyncPtr<K> {}
// SAFETY: as above.
unsafe impl<K> Sync for SyncPtr<K> {}

/// Separable min/max passes in turn (`x`, `out` C-contiguous), in key space throughout.
pub(crate) fn minmax_passes(x: &Array, out: &Array, passes: &[Pass]) -> Result<()> {
    fn run<K: Key + Into<u64>>(x: &Array, out: &Array, passes: &[Pass], cv: K) -> Result<()> {
        let fk = FloatKeys::of(x.dtype());
        let mut k = keys::<K>(x)?;
        for p in passes {
            let mut o = minmax1d_k::<K>(&k, x.shape(), p, cv);
            if let Some(fk) = fk {
                harter_nan_lines(&k, &mut o, x.shape(), p, fk);
            }
            k = o;
        }
        store_keys(out, k)
    }
    let (dt, cval) = (x.dtype(), passes[0].cval);
    if wide_keys(dt) {
        run::<u64>(x, out, passes, cval_key(dt, cval))
    } else {
        run::<u32>(x, out, passes, cval_key(dt, cval) as u32)
    }
}

/// Van Herk / Gil-Werman over `cw` lanes: `e` holds the extended lines (`ext_n` rows of `cw`
/// lanes); `put(i, l, v)` receives output `i` of lane `l`.
#[inline(always)]
fn van_herk<K: Key>(e: Vec<K>, ext_n: usize, cw: usize, s: usize, max: bool, mut put: impl FnMut(usize, usize, K)) {
    let op = |a: K, b: K| if max { a.max(b) } else { a.min(b) };
    let mut g = e.clone();
    let mut h = e;
    for j in 1..ext_n {
        if j % s != 0 {
            let (a, b) = g.split_at_mut(j * cw);
            for (v, &q) in b[..cw].iter_mut().zip(&a[(j - 1) * cw..]) {
                *v = op(*v, q);
            }
        }
    }
    for j in (0..ext_n.saturating_sub(1)).rev() {
        if (j + 1) % s != 0 {
            let (a, b) = h.split_at_mut((j + 1) * cw);
            for (v, &q) in a[j * cw..].iter_mut().zip(&b[..cw]) {
                *v = op(*v, q);
            }
        }
    }
    for i in 0..ext_n + 1 - s {
        let hr = &h[i * cw..(i + 1) * cw];
        let gr = &g[(i + s - 1) * cw..(i + s) * cw];
        for l in 0..cw {
            put(i, l, op(hr[l], gr[l]));
        }
    }
}

fn minmax1d_k<K: Key>(x: &[K], shape: &[usize], p: &Pass, cval: K) -> Vec<K> {
    let outer: usize = shape[..p.axis].iter().product();
    let n = shape[p.axis];
    let inner: usize = shape[p.axis + 1..].iter().product();
    let s = p.size;
    let start = -((s / 2) as i64) - p.origin;
    let mut out = vec![K::default(); x.len()];
    let ext_n = n + s - 1;
    // The source of each extended position (None: the constant).
    let src: Vec<Option<usize>> =
        (0..ext_n).map(|j| p.mode.resolve(j as i64 + start, n as i64).map(|v| v as usize)).collect();
    let ptr = SyncPtr(out.as_mut_ptr());
    const W: usize = LANES * 4;
    if inner == 1 {
        // Lanes of W neighbouring lines, read transposed.
        (0..outer.div_ceil(W)).into_par_iter().for_each(|gi| {
            let l0 = gi * W;
            let cw = W.min(outer - l0);
            let mut e = vec![cval; ext_n * cw];
            for (j, sj) in src.iter().enumerate() {
                if let Some(sj) = *sj {
                    for l in 0..cw {
                        e[j * cw + l] = x[(l0 + l) * n + sj];
                    }
                }
            }
            van_herk(e, ext_n, cw, s, p.max, |i, l, v| {
                // SAFETY: group gi alone writes lines l0..l0 + cw, all inside `out`.
                unsafe { *ptr.get().add((l0 + l) * n + i) = v };
            });
        });
        return out;
    }
    let w = inner.min(W);
    let chunks = inner.div_ceil(w);
    (0..outer * chunks).into_par_iter().for_each(|task| {
        let (o, c) = (task / chunks, task % chunks);
        let c0 = c * w;
        let cw = w.min(inner - c0);
        let base = o * n * inner + c0;
        let mut e = vec![cval; ext_n * cw];
        for (j, sj) in src.iter().enumerate() {
            if let Some(sj) = *sj {
                e[j * cw..(j + 1) * cw].copy_from_slice(&x[base + sj * inner..][..cw]);
            }
        }
        van_herk(e, ext_n, cw, s, p.max, |i, l, v| {
            // SAFETY: task (o, c) alone writes columns c0..c0 + cw of the lines of block o, all
            // inside `out`.
            unsafe { *ptr.get().add(base + i * inner + l) = v };
        });
    });
    out
}

/// The padded array of a plan: the input (keys or values) extended by `start` below and the
/// footprint's extent above along every axis, and its shape.
fn pad<V: Copy + Send + Sync + Default>(x: &[V], shape: &[usize], plan: &Plan, fill: V) -> (Vec<V>, Vec<usize>) {
    let nd = shape.len();
    let start = plan.start();
    let pshape: Vec<usize> = shape.iter().zip(&plan.fshape).map(|(&n, &f)| n + f - 1).collect();
    let last = pshape[nd - 1];
    let rows: usize = pshape[..nd - 1].iter().product();
    let mut p = vec![fill; rows * last];
    let n_last = shape[nd - 1];
    p.par_chunks_mut(last).enumerate().for_each(|(r, row)| {
        // The source row of padded row r (None: the constant).
        let mut rem = r;
        let mut src = 0usize;
        let mut stride = 1usize;
        let mut inside = true;
        for d in (0..nd - 1).rev() {
            let q = rem % pshape[d];
            rem /= pshape[d];
            match plan.mode.resolve(q as i64 + start[d], shape[d] as i64) {
                Some(s) => src += s as usize * stride,
                None => inside = false,
            }
            stride *= shape[d];
        }
        if !inside {
            return;
        }
        let srow = &x[src * n_last..(src + 1) * n_last];
        for (q, v) in row.iter_mut().enumerate() {
            if let Some(s) = plan.mode.resolve(q as i64 + start[nd - 1], n_last as i64) {
                *v = srow[s as usize];
            }
        }
    });
    (p, pshape)
}

/// The flat offsets of the window's elements in the padded array.
fn offsets(plan: &Plan, pshape: &[usize]) -> Vec<usize> {
    let nd = pshape.len();
    let mut st = vec![1usize; nd];
    for d in (0..nd.saturating_sub(1)).rev() {
        st[d] = st[d + 1] * pshape[d + 1];
    }
    plan.taps().iter().map(|t| t.iter().zip(&st).map(|(i, s)| i * s).sum()).collect()
}

/// Calls `f(out_slice, padded_base)` for runs of outputs within one row, in parallel.
fn for_runs<V: Send, F>(out: &mut [V], shape: &[usize], pshape: &[usize], f: F)
where
    F: Fn(&mut [V], usize) + Sync,
{
    let nd = shape.len();
    let n_last = shape[nd - 1];
    let seg = if out.len() / n_last.max(1) >= 64 { n_last } else { n_last.min(2048) };
    out.par_chunks_mut(n_last).enumerate().for_each(|(r, orow)| {
        let mut rem = r;
        let mut base = 0usize;
        let mut stride = pshape[nd - 1];
        for d in (0..nd - 1).rev() {
            base += (rem % shape[d]) * stride;
            rem /= shape[d];
            stride *= pshape[d];
        }
        orow.par_chunks_mut(seg).enumerate().for_each(|(s, o)| f(o, base + s * seg));
    });
}

/// A non-separable filter (`x`, `out` C-contiguous of the same shape; `x.ndim() >= 1` or 0-d).
pub(crate) fn filter(x: &Array, out: &Array, plan: &Plan) -> Result<()> {
    if plan.structure.is_some() {
        return structure_filter(x, out, plan);
    }
    if let Some(r) = mediator_filter(x, plan)? {
        return store_values(out, &r);
    }
    let (dt, fk) = (x.dtype(), FloatKeys::of(x.dtype()));
    if wide_keys(dt) {
        let r = filter_k::<u64>(&keys(x)?, x.shape(), plan, cval_key(dt, plan.cval), fk)?;
        store_keys(out, r)
    } else {
        let r = filter_k::<u32>(&keys(x)?, x.shape(), plan, cval_key(dt, plan.cval) as u32, fk)?;
        store_keys(out, r)
    }
}

fn shape_nd(shape: &[usize]) -> Vec<usize> {
    if shape.is_empty() {
        vec![1]
    } else {
        shape.to_vec()
    }
}

/// The plan of an n-d run: a 0-d filter as one element at origin 0; the structure left out
/// (the grey morphology, which uses it, holds it).
fn plan_nd(plan: &Plan) -> Plan {
    let (fshape, origins) =
        if plan.fshape.is_empty() { (vec![1], vec![0]) } else { (plan.fshape.clone(), plan.origins.clone()) };
    Plan { fshape, origins, mask: plan.mask.clone(), structure: None, ..*plan }
}

/// The outputs `o` of one run (window element `t` of output `i` at `p[base + i + offs[t]]`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run_outputs<K: Key>(o: &mut [K], base: usize, p: &[K], offs: &[usize], op: Op, net: Option<&[Cmp]>, fs: usize) {
    let n = o.len();
    let mut i = 0;
    let mut v = vec![[K::default(); LANES]; if net.is_some() { fs } else { 0 }];
    let mut buf = vec![K::default(); fs];
    while i + LANES <= n {
        let b = base + i;
        match op {
            Op::Min | Op::Max => {
                let mut acc: [K; LANES] = p[b + offs[0]..][..LANES].try_into().expect("lanes");
                for &off in &offs[1..] {
                    let src: &[K; LANES] = p[b + off..][..LANES].try_into().expect("lanes");
                    for l in 0..LANES {
                        acc[l] = if op == Op::Min { acc[l].min(src[l]) } else { acc[l].max(src[l]) };
                    }
                }
                o[i..i + LANES].copy_from_slice(&acc);
            }
            Op::Rank(k) => {
                if let Some(net) = net {
                    for (t, &off) in offs.iter().enumerate() {
                        v[t].copy_from_slice(&p[b + off..][..LANES]);
                    }
                    for &(a, c, kind) in net {
                        let (a, c) = (a as usize, c as usize);
                        let (lo, hi) = v.split_at_mut(c);
                        let (va, vc) = (&mut lo[a], &mut hi[0]);
                        match kind {
                            0 => {
                                for l in 0..LANES {
                                    let (m, x) = (va[l].min(vc[l]), va[l].max(vc[l]));
                                    va[l] = m;
                                    vc[l] = x;
                                }
                            }
                            1 => {
                                for l in 0..LANES {
                                    va[l] = va[l].min(vc[l]);
                                }
                            }
                            _ => {
                                for l in 0..LANES {
                                    vc[l] = va[l].max(vc[l]);
                                }
                            }
                        }
                    }
                    o[i..i + LANES].copy_from_slice(&v[k]);
                } else {
                    for (l, ol) in o[i..i + LANES].iter_mut().enumerate() {
                        for (bv, &off) in buf.iter_mut().zip(offs) {
                            *bv = p[b + l + off];
                        }
                        *ol = *buf.select_nth_unstable(k).1;
                    }
                }
            }
        }
        i += LANES;
    }
    // The last outputs of the run, one at a time.
    for (j, ol) in o[i..].iter_mut().enumerate() {
        let b = base + i + j;
        for (bv, &off) in buf.iter_mut().zip(offs) {
            *bv = p[b + off];
        }
        *ol = match op {
            Op::Min => *buf.iter().min().expect("a window"),
            Op::Max => *buf.iter().max().expect("a window"),
            Op::Rank(k) => *buf.select_nth_unstable(k).1,
        };
    }
}

/// [`run_outputs`] compiled for AVX2 (vector min/max of 8 32-bit lanes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
unsafe fn run_outputs_avx2<K: Key>(
    o: &mut [K],
    base: usize,
    p: &[K],
    offs: &[usize],
    op: Op,
    net: Option<&[Cmp]>,
    fs: usize,
) {
    run_outputs(o, base, p, offs, op, net, fs)
}

fn filter_k<K: Key + Into<u64>>(
    x: &[K],
    shape: &[usize],
    plan0: &Plan,
    cval: K,
    fk: Option<FloatKeys>,
) -> Result<Vec<K>> {
    let shape = shape_nd(shape);
    let plan = plan_nd(plan0);
    let (p, pshape) = pad(x, &shape, &plan, cval);
    let offs = offsets(&plan, &pshape);
    let fs = offs.len();
    let net = match plan.op {
        Op::Rank(k) if fs <= NET_MAX => Some(network(fs, k)),
        _ => None,
    };
    let mut out = vec![K::default(); x.len()];
    #[cfg(target_arch = "x86_64")]
    let avx2 = is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    let avx2 = false;
    let op = plan.op;
    for_runs(&mut out, &shape, &pshape, |o, base| {
        if avx2 {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX2 (checked above).
            unsafe {
                run_outputs_avx2(o, base, &p, &offs, op, net.as_deref(), fs)
            };
        } else {
            run_outputs(o, base, &p, &offs, op, net.as_deref(), fs);
        }
    });
    if let Some(fk) = fk {
        nan_windows(&mut out, &shape, &pshape, &p, &offs, op, fk);
    }
    Ok(out)
}

/// Grey morphology with a structure: SciPy's `CASE_MIN_OR_MAX_POINT` per output. The running
/// result is a double: the first window element gives `x + s` exactly (in double), each other
/// `x + (T)s` computed in the type (wrapping for integers; float32 in float32) and compared as
/// a double (keys: NaN last); the result is converted to the type at the end (unsigned types as
/// SciPy's `CASE_FILTER_OUT_SAFE`: `-(T)(-r)` for `r <= -1`).
fn structure_filter(x: &Array, out: &Array, plan0: &Plan) -> Result<()> {
    let dt = x.dtype();
    let shape = shape_nd(x.shape());
    let ss = plan0.structure.clone().expect("a structure");
    let plan = plan_nd(plan0);
    let max = plan.op == Op::Max;
    // SciPy's running comparison: C's `>`/`<` on doubles (a NaN first element stays, a later
    // NaN is passed over).
    let better = |t: f64, res: f64| if max { t > res } else { t < res };
    if dt.is_float() {
        let f32s = dt != DType::Float64;
        let xs = values::<f64>(x)?;
        let cv = if dt == DType::Float32 {
            f32_of_key(cval_key(dt, plan.cval) as u32) as f64
        } else {
            f64_of_key(cval_key(dt, plan.cval))
        };
        let (p, pshape) = pad(&xs, &shape, &plan, cv);
        let offs = offsets(&plan, &pshape);
        let mut r = vec![0f64; xs.len()];
        for_runs(&mut r, &shape, &pshape, |o, base| {
            for (j, ol) in o.iter_mut().enumerate() {
                let b = base + j;
                let mut res = 0.0;
                for (t, (&off, &s)) in offs.iter().zip(&ss).enumerate() {
                    let v = p[b + off];
                    let tv = if t == 0 || !f32s { v + s } else { (v as f32 + s as f32) as f64 };
                    if t == 0 || better(tv, res) {
                        res = tv;
                    }
                }
                *ol = if f32s { res as f32 as f64 } else { res };
            }
        });
        return store_values(out, &r);
    }
    // Integers (bool as a byte): i64 bits of the type, wrapped.
    let adt = if dt == DType::Bool { DType::UInt8 } else { dt };
    let xs: Vec<i64> =
        if dt == DType::UInt64 { values::<u64>(x)?.into_iter().map(|v| v as i64).collect() } else { values::<i64>(x)? };
    let cv = if dt == DType::Bool { c_cast(plan.cval, DType::UInt8) } else { int_of_key(cval_key(dt, plan.cval), dt) };
    let (p, pshape) = pad(&xs, &shape, &plan, cv);
    let offs = offsets(&plan, &pshape);
    let sc: Vec<i64> = ss.iter().map(|&s| c_cast(s, adt)).collect();
    let as_f64 = |v: i64| if adt == DType::UInt64 { v as u64 as f64 } else { v as f64 };
    let unsigned = !adt.is_signed_int();
    let mut r = vec![0i64; xs.len()];
    for_runs(&mut r, &shape, &pshape, |o, base| {
        for (j, ol) in o.iter_mut().enumerate() {
            let b = base + j;
            let mut res = 0f64;
            for (t, &off) in offs.iter().enumerate() {
                let v = p[b + off];
                let tv = if t == 0 { as_f64(v) + ss[0] } else { as_f64(wrap(v.wrapping_add(sc[t]), adt)) };
                if t == 0 || better(tv, res) {
                    res = tv;
                }
            }
            *ol = if unsigned && res <= -1.0 { wrap(c_cast(-res, adt).wrapping_neg(), adt) } else { c_cast(res, adt) };
        }
    });
    match dt {
        DType::Bool => store_values(out, &r.into_iter().map(|v| (v != 0) as i64).collect::<Vec<i64>>()),
        DType::UInt64 => store_values(out, &r.into_iter().map(|v| v as u64).collect::<Vec<u64>>()),
        _ => store_values(out, &r),
    }
}

// ---------------------------------------------------------------------------------------------
// SciPy's comparisons where a NaN is met (the module's NaN section). C's `<`, `<=`, `>` and
// `>=` on doubles are Rust's on f64: false whenever a NaN is compared.

/// The largest key, NaN's (float keys only: for integers it is a number).
fn nan_key<K: Key>() -> K {
    K::from_u64(u64::MAX)
}

/// The values of a float dtype's keys (float16 and float64 are keyed through float64, float32
/// through float32) and the key of a double stored in the dtype.
#[derive(Copy, Clone)]
pub(crate) struct FloatKeys(DType);

impl FloatKeys {
    /// `Some` for the float dtypes, whose keys can be NaN.
    fn of(dt: DType) -> Option<FloatKeys> {
        dt.is_float().then_some(FloatKeys(dt))
    }
    fn value<K: Into<u64>>(self, k: K) -> f64 {
        let k = k.into();
        if self.0 == DType::Float32 {
            f32_of_key(k as u32) as f64
        } else {
            f64_of_key(k)
        }
    }
    /// The key of `v` rounded to the dtype, as C's cast of a double stores it.
    fn key<K: Key>(self, v: f64) -> K {
        K::from_u64(match self.0 {
            DType::Float32 => f32_key(v as f32) as u64,
            DType::Float16 => f64_key(half::f16::from_f64(v).to_f64()),
            _ => f64_key(v),
        })
    }
}

/// SciPy's `NI_Select`: element `rank` of `b` by Hoare's quickselect around the first element
/// of each range, with C's comparisons (a NaN pivot or element stops the scans where it is).
/// Each scan stops at the element the last swap left behind, so indices stay in the range.
#[allow(clippy::neg_cmp_op_on_partial_ord)] // C's `>`/`<` on doubles, NaN and all
pub(crate) fn scipy_select(b: &mut [f64], rank: usize) -> f64 {
    let (mut lo, mut hi, mut rank) = (0usize, b.len() - 1, rank);
    loop {
        if lo == hi {
            return b[lo];
        }
        let x = b[lo];
        let (mut i, mut j) = (lo as isize - 1, hi as isize + 1);
        loop {
            loop {
                j -= 1;
                if !(b[j as usize] > x) {
                    break;
                }
            }
            loop {
                i += 1;
                if !(b[i as usize] < x) {
                    break;
                }
            }
            if i < j {
                b.swap(i as usize, j as usize);
            } else {
                break;
            }
        }
        let j = j as usize;
        let count = j - lo + 1;
        if rank < count {
            hi = j;
        } else {
            lo = j + 1;
            rank -= count;
        }
    }
}

/// SciPy's `NI_MinOrMaxFilter1D` over one line: Richard Harter's deque of ascending minima
/// (descending maxima for `max`) over the extended line `e(0..len + fs - 1)` (output `i`'s
/// window is `e(i..i + fs)`), with C's comparisons. The deque is a ring of `fs` positions of
/// the extended line (an entry's value is `e(position)`; it dies at `position + fs`).
pub(crate) fn harter_line(e: impl Fn(usize) -> f64, len: usize, fs: usize, max: bool, mut put: impl FnMut(usize, f64)) {
    if fs == 1 {
        (0..len).for_each(|i| put(i, e(i)));
        return;
    }
    // "val goes in front of (replaces) v": C's `val <= v` (`>=` for a maximum).
    let before = |val: f64, v: f64| if max { val >= v } else { val <= v };
    let mut ring = vec![0usize; fs];
    let (mut front, mut last) = (0usize, 0usize);
    for ll in 1..fs + len - 1 {
        let val = e(ll);
        if ring[front] + fs == ll {
            front = (front + 1) % fs;
        }
        if before(val, e(ring[front])) {
            ring[front] = ll;
            last = front;
        } else {
            while before(val, e(ring[last])) {
                last = (last + fs - 1) % fs;
            }
            last = (last + 1) % fs;
            ring[last] = ll;
        }
        if ll + 1 >= fs {
            put(ll + 1 - fs, e(ring[front]));
        }
    }
}

/// SciPy's `_rank_filter_1d` double heap (`Mediator`): the element of rank `rank` of the last
/// `w` values inserted, a max-heap below the rank and a min-heap above it (heap positions
/// `-rank..w - rank`, 0 the rank), with C's comparisons; its state carries from window to
/// window, NaN-broken heaps and all.
struct Mediator {
    /// The heap position of each slot of `data`.
    pos: Vec<i64>,
    /// The slot at each heap position (shifted by `rank`).
    heap: Vec<i64>,
    /// The last `w` values, a ring (SciPy starts it at zeros).
    data: Vec<f64>,
    rank: i64,
    idx: usize,
    min_ct: i64,
    max_ct: i64,
}

impl Mediator {
    fn new(w: usize, rank: usize) -> Mediator {
        let (wi, r) = (w as i64, rank as i64);
        Mediator {
            pos: (0..wi).map(|k| k - r).collect(),
            heap: (0..wi).collect(),
            data: vec![0.0; w],
            rank: r,
            idx: 0,
            min_ct: wi - r - 1,
            max_ct: r,
        }
    }
    fn at(&self, i: i64) -> f64 {
        self.data[self.heap[(i + self.rank) as usize] as usize]
    }
    fn less(&self, i: i64, j: i64) -> bool {
        self.at(i) < self.at(j)
    }
    /// Swaps heap positions `i` and `j` when `heap[i] < heap[j]`; whether it did.
    fn cmp_exch(&mut self, i: i64, j: i64) -> bool {
        if !self.less(i, j) {
            return false;
        }
        let (a, b) = ((i + self.rank) as usize, (j + self.rank) as usize);
        self.heap.swap(a, b);
        self.pos[self.heap[a] as usize] = i;
        self.pos[self.heap[b] as usize] = j;
        true
    }
    fn min_sort_down(&mut self, mut i: i64) {
        i *= 2;
        while i <= self.min_ct {
            if i < self.min_ct && self.less(i + 1, i) {
                i += 1;
            }
            if !self.cmp_exch(i, i / 2) {
                break;
            }
            i *= 2;
        }
    }
    fn max_sort_down(&mut self, mut i: i64) {
        i *= 2;
        while i >= -self.max_ct {
            if i > -self.max_ct && self.less(i, i - 1) {
                i -= 1;
            }
            if !self.cmp_exch(i / 2, i) {
                break;
            }
            i *= 2;
        }
    }
    fn min_sort_up(&mut self, mut i: i64) -> bool {
        while i > 0 && self.cmp_exch(i, i / 2) {
            i /= 2;
        }
        i == 0
    }
    fn max_sort_up(&mut self, mut i: i64) -> bool {
        while i < 0 && self.cmp_exch(i / 2, i) {
            i /= 2;
        }
        i == 0
    }
    fn insert(&mut self, v: f64) {
        let p = self.pos[self.idx];
        let old = self.data[self.idx];
        self.data[self.idx] = v;
        self.idx = (self.idx + 1) % self.data.len();
        if p > 0 {
            if v > old {
                self.min_sort_down(p);
                return;
            }
            if self.min_sort_up(p) && self.cmp_exch(0, -1) {
                self.max_sort_down(-1);
            }
        } else if p < 0 {
            if v < old {
                self.max_sort_down(p);
                return;
            }
            if self.max_sort_up(p) && self.cmp_exch(1, 0) {
                self.min_sort_down(1);
            }
        } else {
            if self.max_sort_up(-1) {
                self.max_sort_down(-1);
            }
            if self.min_sort_up(1) {
                self.min_sort_down(1);
            }
        }
    }
}

/// SciPy's `_rank_filter` of `_rank_filter_1d` over the line `x` (a window of `w`, `1 <= rank
/// <= w - 2`): the values it inserts, in its order, for each mode. `None` where it would read
/// outside the line (as [`super::mediator_inside`] predicts: a unit test holds them together).
pub(crate) fn mediator_line(x: &[f64], w: usize, rank: usize, mode: Mode, cval: f64, origin: i64) -> Option<Vec<f64>> {
    let (n, wi) = (x.len() as i64, w as i64);
    let lim = (wi - 1) / 2 - origin;
    if rank == 0 || rank + 2 > w || lim < 0 || lim > n {
        return None;
    }
    let at = |i: i64| usize::try_from(i).ok().and_then(|i| x.get(i).copied());
    let mut m = Mediator::new(w, rank);
    let mut out = vec![0.0; x.len()];
    match mode {
        Mode::Reflect => {
            for i in (0..wi - lim).rev() {
                m.insert(at(i)?);
            }
        }
        Mode::Constant => (0..wi - lim).for_each(|_| m.insert(cval)),
        Mode::Nearest => {
            let v = at(0)?;
            (0..wi - lim).for_each(|_| m.insert(v));
        }
        Mode::Mirror => {
            for i in (1..=wi - lim).rev() {
                m.insert(at(i)?);
            }
        }
        Mode::Wrap => {
            let offset = if wi % 2 == 0 { 2 } else { 0 };
            for i in n - lim - offset - 2 * origin..n {
                m.insert(at(i)?);
            }
        }
    }
    for i in 0..lim {
        m.insert(at(i)?);
    }
    for i in lim..n {
        m.insert(at(i)?);
        out[(i - lim) as usize] = m.at(0);
    }
    for i in 0..lim {
        let v = match mode {
            Mode::Reflect => at(n - 1 - i)?,
            Mode::Constant => cval,
            Mode::Nearest => at(n - 1)?,
            Mode::Mirror => at(n - 2 - i)?,
            Mode::Wrap => at(i)?,
        };
        m.insert(v);
        out[(n - lim + i) as usize] = m.at(0);
    }
    Some(out)
}

/// The lines of a separable pass whose windows meet a NaN, through SciPy's deque (`x`: the
/// pass's input keys; `out`: its output, overwritten on those lines). The extension holds
/// `cval` as a double, as SciPy's line buffer does.
fn harter_nan_lines<K: Key + Into<u64>>(x: &[K], out: &mut [K], shape: &[usize], p: &Pass, fk: FloatKeys) {
    let nan = nan_key::<K>();
    let cval_nan = p.mode == Mode::Constant && p.cval.is_nan();
    if !cval_nan && !x.par_iter().any(|&k| k == nan) {
        return;
    }
    let outer: usize = shape[..p.axis].iter().product();
    let n = shape[p.axis];
    let inner: usize = shape[p.axis + 1..].iter().product();
    let (s, start) = (p.size, -((p.size / 2) as i64) - p.origin);
    let src = |j: usize| p.mode.resolve(j as i64 + start, n as i64).map(|i| i as usize);
    let fixed: Vec<(usize, Vec<K>)> = (0..outer * inner)
        .into_par_iter()
        .filter_map(|line| {
            let base = (line / inner) * n * inner + line % inner;
            let at = |i: usize| x[base + i * inner];
            if !(0..n + s - 1).any(|j| src(j).map_or(cval_nan, |i| at(i) == nan)) {
                return None;
            }
            let mut r = vec![K::default(); n];
            let e = |j: usize| src(j).map_or(p.cval, |i| fk.value(at(i)));
            harter_line(e, n, s, p.max, |i, v| r[i] = fk.key(v));
            Some((base, r))
        })
        .collect();
    for (base, r) in fixed {
        for (i, v) in r.into_iter().enumerate() {
            out[base + i * inner] = v;
        }
    }
}

/// SciPy's answers for the windows of a non-separable filter that meet a NaN (`p`: the padded
/// keys; `out`: the filter's results, overwritten there): min/max as SciPy's running
/// comparison (NaN when the window's first element is, else the min/max of its numbers),
/// ranks through [`scipy_select`].
fn nan_windows<K: Key + Into<u64>>(
    out: &mut [K],
    shape: &[usize],
    pshape: &[usize],
    p: &[K],
    offs: &[usize],
    op: Op,
    fk: FloatKeys,
) {
    let nan = nan_key::<K>();
    if !p.par_iter().any(|&k| k == nan) {
        return;
    }
    for_runs(out, shape, pshape, |o, base| {
        let mut buf = Vec::new();
        for (j, ol) in o.iter_mut().enumerate() {
            let b = base + j;
            if !offs.iter().any(|&off| p[b + off] == nan) {
                continue;
            }
            let first = p[b + offs[0]];
            *ol = match op {
                Op::Min | Op::Max if first == nan => nan,
                Op::Min => *ol,
                Op::Max => offs.iter().map(|&off| p[b + off]).filter(|&k| k != nan).max().unwrap_or(nan),
                Op::Rank(k) => {
                    buf.clear();
                    buf.extend(offs.iter().map(|&off| fk.value(p[b + off])));
                    fk.key(scipy_select(&mut buf, k))
                }
            };
        }
    });
}

/// SciPy's 1-d rank path over a whole 1-d input that meets a NaN ([`mediator_line`]); `None`
/// where it does not apply (not [`Plan::line1d`], not a float, or no NaN).
fn mediator_filter(x: &Array, plan: &Plan) -> Result<Option<Vec<f64>>> {
    let dt = x.dtype();
    let Op::Rank(rank) = plan.op else { return Ok(None) };
    if !plan.line1d || !dt.is_float() {
        return Ok(None);
    }
    let xs = values::<f64>(x)?;
    let cval_nan = plan.mode == Mode::Constant && plan.cval.is_nan();
    if !cval_nan && !xs.par_iter().any(|v| v.is_nan()) {
        return Ok(None);
    }
    let cval = super::line1d_cval(dt, plan.cval);
    Ok(mediator_line(&xs, plan.mask.len(), rank, plan.mode, cval, plan.origins[0])
        .map(|r| r.into_iter().map(|v| if v.is_nan() { f64::NAN } else { v }).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pruned network selects the right element of random inputs (with ties).
    #[test]
    fn networks_select() {
        let mut s = 12345u64;
        let mut rnd = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for n in 1..=40 {
            for k in 0..n {
                let net = network(n, k);
                for _ in 0..20 {
                    let mut v: Vec<u64> = (0..n).map(|_| rnd() % 7).collect();
                    let mut sorted = v.clone();
                    sorted.sort();
                    for &(a, c, kind) in &net {
                        let (a, c) = (a as usize, c as usize);
                        let (m, x) = (v[a].min(v[c]), v[a].max(v[c]));
                        if kind != 2 {
                            v[a] = m;
                        }
                        if kind != 1 {
                            v[c] = x;
                        }
                    }
                    assert_eq!(v[k], sorted[k], "n {n} k {k}");
                }
            }
        }
        // The 5x5 median's network is much smaller than a full sort.
        assert!(network(25, 12).len() < 140, "{}", network(25, 12).len());
    }

    /// Without NaN, SciPy's quickselect, deque and double heap give the order statistics; the
    /// heap reads inside its line exactly where `mediator_inside` says so.
    #[test]
    fn scipy_algorithms_without_nan() {
        let mut s = 99u64;
        let mut rnd = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 9) as f64 - 4.0
        };
        for n in 1..30 {
            let x: Vec<f64> = (0..n).map(|_| rnd()).collect();
            for k in 0..n {
                let mut sorted = x.clone();
                sorted.sort_by(f64::total_cmp);
                assert_eq!(scipy_select(&mut x.clone(), k), sorted[k], "select {k} of {x:?}");
            }
            for fs in 1..8 {
                for max in [false, true] {
                    let ext: Vec<f64> = (0..n + fs - 1).map(|_| rnd()).collect();
                    let mut got = vec![0.0; n];
                    harter_line(|j| ext[j], n, fs, max, |i, v| got[i] = v);
                    for i in 0..n {
                        let w = ext[i..i + fs].iter().copied();
                        let want = if max { w.fold(f64::MIN, f64::max) } else { w.fold(f64::MAX, f64::min) };
                        assert_eq!(got[i], want, "harter {fs} {max}");
                    }
                }
            }
            for w in 3..9usize {
                for origin in -((w / 2) as i64)..(w - w / 2) as i64 {
                    for mode in Mode::ALL {
                        let inside = super::super::mediator_inside(n as i64, w as i64, origin, mode);
                        for rank in 1..w - 1 {
                            let r = mediator_line(&x, w, rank, mode, 0.5, origin);
                            let lim2 = n as i64 - ((w as i64 - 1) / 2 - origin);
                            if lim2 < 0 {
                                continue; // SciPy's N-d path
                            }
                            assert_eq!(r.is_some(), inside, "n {n} w {w} origin {origin} {mode:?}");
                            let Some(r) = r else { continue };
                            let start = -((w / 2) as i64) - origin;
                            for (i, &ri) in r.iter().enumerate() {
                                let mut win: Vec<f64> = (0..w as i64)
                                    .map(|j| {
                                        mode.resolve(i as i64 + start + j, n as i64).map_or(0.5, |s| x[s as usize])
                                    })
                                    .collect();
                                win.sort_by(f64::total_cmp);
                                assert_eq!(ri, win[rank], "heap n {n} w {w} origin {origin} {mode:?} rank {rank}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn keys_order_values() {
        let v = [f64::NEG_INFINITY, -2.5, -0.0, 0.0, 1e-300, 3.0, f64::INFINITY, f64::NAN];
        let k: Vec<u64> = v.iter().map(|&x| f64_key(x)).collect();
        assert!(k.windows(2).all(|w| w[0] < w[1]));
        assert!(f64_of_key(f64_key(-2.5)) == -2.5);
        assert_eq!(int_of_key(int_key(-5, DType::Int8), DType::Int8), -5);
        assert!(int_key(-5, DType::Int16) < int_key(3, DType::Int16));
        assert_eq!(c_cast(-1.0, DType::UInt8), 255);
        assert_eq!(c_cast(2.9, DType::Int32), 2);
        assert_eq!(cval_key(DType::Int8, -1.5), int_key(-1, DType::Int8));
    }
}
