//! The GPU sort: an LSD radix sort of 8-bit digits in the "onesweep" style (`radix.cu`): one
//! kernel counts the digits of every pass in one read of the keys (`rs_hist`; byte counters
//! per digit and lane, so a warp's shared atomics hit 32 banks), then each pass is a single
//! kernel (`rs_pass`) in which a block counts the digits of its tile of keys and publishes them
//! at once, ranks the keys (warp-level ballot or match ranking into per-warp counters), finds
//! its offsets by decoupled look-back over the preceding tiles (which published early, so it
//! rarely waits) and a scan of the pass's digit counts, then writes the tile out through shared
//! memory in runs of equal digits. Keys are mapped to order-preserving unsigned integers
//! (`radix_keys.cuh`) on the first pass and back on the last. Values (int64 indices, generated
//! on the first pass) ride along for `argsort`; several lanes (a sort along an axis) are
//! sorted by extra passes over the lane number, which is derived from the index value.

use crate::array::Array;
use crate::backend::cuda::codegen::{storage_ty, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, Params, THREADS};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// Digits of an 8-bit radix pass: the radix kernels give each thread of a block one digit.
pub(crate) const RADIX: u32 = 256;
/// Threads per block of the sort kernels (one per 8-bit digit) and keys per thread: a tile of
/// 4096 keys.
const RS_THREADS: u32 = RADIX;
const RS_ITEMS: usize = 16;
const RS_TILE: usize = RS_THREADS as usize * RS_ITEMS;
/// Tiles whose status words the look-back reads in one round trip.
const RS_LOOKBACK: usize = 4;
/// Blocks an SM of the counting kernel.
const HIST_BLOCKS_PER_SM: u32 = 4;

/// One kernel of the radix sort.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SortKey {
    /// Digit counts of every key pass.
    Hist { dt: DType, canon: bool },
    /// One radix pass. `first`: read the input dtype (and generate index values); `last`:
    /// write keys in the input dtype (`out_keys`) and/or the values (`out_vals`).
    Pass { dt: DType, canon: bool, first: bool, last: bool, vals: bool, out_keys: bool, out_vals: bool },
}

impl KernelKey for SortKey {
    const FAMILY: &'static str = "sort";
    fn entry(&self) -> &str {
        match self {
            SortKey::Hist { .. } => "rs_hist",
            SortKey::Pass { .. } => "rs_pass",
        }
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![
            ("THREADS", RS_THREADS.to_string()),
            ("ITEMS", RS_ITEMS.to_string()),
            ("LOOKBACK", RS_LOOKBACK.to_string()),
        ]
    }
    fn source(&self) -> String {
        let mut s = String::new();
        match *self {
            SortKey::Hist { dt, canon } => {
                s.push_str("#define VARIANT_HIST\n");
                s.push_str(&key_prelude(dt, canon));
            }
            SortKey::Pass { dt, canon, first, last, vals, out_keys, out_vals } => {
                s.push_str("#define VARIANT_PASS\n");
                s.push_str(&key_prelude(dt, canon));
                for (name, on) in
                    [("FIRST", first), ("LAST", last), ("VALS", vals), ("OUTK", out_keys), ("OUTV", out_vals)]
                {
                    s.push_str(&format!("#define {name} {}\n", on as i32));
                }
            }
        }
        s + include_str!("radix.cu")
    }
}

/// Width in bytes of the unsigned sort key of a dtype.
pub(crate) fn key_bytes(dt: DType) -> usize {
    dt.itemsize()
}

/// The prelude of `radix_keys.cuh` for `dt`: `K` (unsigned key), `X` (storage), `KBITS`, the
/// key kind and `CANON` (-0.0 takes the key of +0.0).
pub(crate) fn key_prelude(dt: DType, canon: bool) -> String {
    let k = match key_bytes(dt) {
        1 => "u8",
        2 => "u16",
        4 => "u32",
        _ => "u64",
    };
    let kind = match dt {
        DType::Float16 => "KEY_F16",
        DType::Float32 => "KEY_F32",
        DType::Float64 => "KEY_F64",
        DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => "KEY_SIGNED",
        _ => "KEY_UNSIGNED",
    };
    format!(
        "{PRELUDE}typedef {k} K;\ntypedef {x} X;\n#define KBITS {bits}\n#define {kind}\n#define CANON {canon}\n",
        x = storage_ty(dt),
        bits = key_bytes(dt) * 8,
        canon = canon as i32
    )
}

/// Sorts the contiguous lanes (last axis) of the C-contiguous `x`: sorted keys into
/// `keys_out` (the dtype of `x`) and/or the sorting indices into `idx_out` (int64, indices
/// within each lane). Stable.
pub(crate) fn sort_lanes(x: &Array, keys_out: Option<&Array>, idx_out: Option<&Array>) -> Result<()> {
    let dev = dev_of(x)?;
    let n = x.size();
    if n == 0 {
        return Ok(());
    }
    let len = *x.shape().last().unwrap_or(&1);
    let lanes = n / len;
    let dt = x.dtype();
    let kb = key_bytes(dt);
    let kp = kb;
    let lp = if lanes <= 1 { 0 } else { (64 - (lanes as u64 - 1).leading_zeros() as usize).div_ceil(8) };
    let passes = kp + lp;
    let vals = idx_out.is_some() || lp > 0;
    // -0.0 sorts with +0.0 when indices matter (NumPy's stable order); keys keep their bits.
    let canon = idx_out.is_some();
    let ntiles = n.div_ceil(RS_TILE);
    if ntiles as u64 >= (1u64 << 32) {
        return Err(Error::NotImplemented(format!("sort of {n} elements (too many tiles)")));
    }
    // Scratch: a tile counter per pass, the key passes' digit counts (lane passes count in
    // closed form), tile status, key and value ping-pong buffers.
    let ctr_bytes = (passes * 4).next_multiple_of(8);
    let hist_bytes = kp * 256 * 8;
    let status_bytes = ntiles * 256 * 8;
    // Counters and counts are zeroed by a memset, the tile status words by the counting kernel.
    let memset_bytes = ctr_bytes + hist_bytes;
    let head_bytes = (ctr_bytes + hist_bytes + status_bytes).next_multiple_of(256);
    let kbuf = (n * kb).next_multiple_of(16);
    let vbuf = if vals { n * 8 } else { 0 };
    let nk = if passes > 1 { 2.min(passes - 1) } else { 0 };
    let nv = if vals && passes > 1 { 2.min(passes - 1) } else { 0 };
    let total = head_bytes + nk * kbuf + nv * vbuf;
    let tmp = Array::alloc(&[total], DType::UInt8, x.device(), false)?;
    let t = dptr(&tmp)?;
    dev.memset_zero(t, memset_bytes)?;
    let ctr = t;
    let hist = t + ctr_bytes as u64;
    let status = hist + hist_bytes as u64;
    let kbufs = [t + head_bytes as u64, t + (head_bytes + kbuf) as u64];
    let vbase = t + (head_bytes + nk * kbuf) as u64;
    let vbufs = [vbase, vbase + vbuf as u64];
    let xp = dptr(x)?;

    let hk = dev.kernel(&SortKey::Hist { dt, canon })?;
    let mut p = Params::new();
    p.push(xp);
    p.push(n as i64);
    p.push(kp as i32);
    p.push(hist);
    p.push(status);
    p.push((status_bytes / 8) as i64);
    let grid = dev.grid_for(n, RS_THREADS as usize * 8).min(dev.sm_count * HIST_BLOCKS_PER_SM);
    // SAFETY: parameters match `rs_hist`; `tmp` returns to the pool in stream order.
    unsafe { p.launch(&dev, &hk, grid, RS_THREADS)? };

    let kout = keys_out.map(dptr).transpose()?.unwrap_or(0);
    let vout = idx_out.map(dptr).transpose()?.unwrap_or(0);
    for pass in 0..passes {
        let (first, last) = (pass == 0, pass + 1 == passes);
        let key =
            SortKey::Pass { dt, canon, first, last, vals, out_keys: keys_out.is_some(), out_vals: idx_out.is_some() };
        let k = dev.kernel(&key)?;
        let kin = if first { xp } else { kbufs[(pass - 1) % 2] };
        let kdst = if last { kout } else { kbufs[pass % 2] };
        let vin = if first { 0 } else { vbufs[(pass - 1) % 2] };
        let vdst = if last { vout } else { vbufs[pass % 2] };
        let mut p = Params::new();
        p.push(kin);
        p.push(kdst);
        p.push(if vals { vin } else { 0u64 });
        p.push(if vals { vdst } else { 0u64 });
        p.push(n as i64);
        p.push(len as i64);
        p.push(pass as i32);
        p.push(kp as i32);
        p.push(if pass < kp { hist + (pass * 256 * 8) as u64 } else { 0 });
        p.push(status);
        p.push(ctr + (pass * 4) as u64);
        // SAFETY: parameters match `rs_pass`; every buffer lives until the stream runs it.
        unsafe { p.launch(&dev, &k, ntiles as u32, RS_THREADS)? };
    }
    drop(tmp);
    Ok(())
}

/// The binary search of `searchsorted` (`search.cu`) for one dtype and side.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SearchKey {
    pub dtype: DType,
    pub right: bool,
}

impl KernelKey for SearchKey {
    const FAMILY: &'static str = "sort";
    fn entry(&self) -> &str {
        "searchsorted"
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("THREADS", THREADS.to_string())]
    }
    fn source(&self) -> String {
        let st = storage_ty(self.dtype);
        let (ct, load) = match self.dtype {
            DType::Float16 => ("float", "h2f(v)"),
            DType::Bool => ("int", "(int)(v)"),
            _ => (st, "(v)"),
        };
        format!(
            "{PRELUDE}typedef {st} ST;\ntypedef {ct} CT;\n#define LOAD(v) {load}\n#define X_IS_FLOAT {}\n#define SIDE_RIGHT {}\n{}",
            self.dtype.is_float() as i32,
            self.right as i32,
            include_str!("search.cu")
        )
    }
}

/// `out[i]` = insertion index of `q[i]` in the sorted `sorted` (both C-contiguous of one
/// dtype; `out` int64). Does not wait.
pub(crate) fn searchsorted(sorted: &Array, q: &Array, right: bool, out: &Array) -> Result<()> {
    let dev = dev_of(out)?;
    let nq = q.size();
    if nq == 0 {
        return Ok(());
    }
    let k = dev.kernel(&SearchKey { dtype: sorted.dtype(), right })?;
    let mut p = Params::new();
    p.push(sorted.size() as i64);
    p.push(dptr(sorted)?);
    p.push(nq as i64);
    p.push(dptr(q)?);
    p.push(dptr(out)?);
    // SAFETY: the parameters match `searchsorted` in search.cu.
    unsafe { p.launch(&dev, &k, dev.grid_for(nq, THREADS as usize), THREADS) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::{check_compiles, nvrtc_sample};
    use crate::core::dtype::REAL_DTYPES as ALL_DTYPES;

    /// Every key the sort can ask for: the prelude selects one kernel of `radix.cu`, and (where
    /// NVRTC is present) it compiles.
    #[test]
    fn sources_compile() {
        let (mut n, mut compiled) = (0, 0);
        for &dt in ALL_DTYPES.iter() {
            let mut keys = vec![SortKey::Hist { dt, canon: true }, SortKey::Hist { dt, canon: false }];
            for bits in 0..32u32 {
                let b = |i: u32| bits & (1 << i) != 0;
                keys.push(SortKey::Pass {
                    dt,
                    canon: b(0),
                    first: b(1),
                    last: b(2),
                    vals: b(3),
                    out_keys: b(4),
                    out_vals: b(3),
                });
            }
            for k in keys {
                let src = k.source();
                let variant = if matches!(k, SortKey::Hist { .. }) { "HIST" } else { "PASS" };
                assert!(src.starts_with(&format!("#define VARIANT_{variant}\n")), "{k:?}");
                assert!(!src.contains('@'), "{k:?}: unfilled template");
                assert_eq!(src.matches('{').count(), src.matches('}').count(), "{k:?}: braces");
                if nvrtc_sample(n) {
                    compiled += check_compiles(&k) as usize;
                }
                n += 1;
            }
        }
        for dtype in ALL_DTYPES {
            for right in [false, true] {
                let k = SearchKey { dtype, right };
                let src = k.source();
                assert_eq!(src.matches('{').count(), src.matches('}').count(), "{k:?}: braces");
                compiled += check_compiles(&k) as usize;
                n += 1;
            }
        }
        let s = SearchKey { dtype: DType::Float16, right: true }.source();
        assert!(s.contains("#define LOAD(v) h2f(v)\n#define X_IS_FLOAT 1\n#define SIDE_RIGHT 1\n"));
        assert!(s.contains("!lt(x, s)") && s.contains("b != b"));
        let s = SearchKey { dtype: DType::Bool, right: false }.source();
        assert!(s.contains("typedef bool ST;\ntypedef int CT;\n#define LOAD(v) (int)(v)\n#define X_IS_FLOAT 0\n"));
        eprintln!("sort kernels: {n} keys, {compiled} compiled by NVRTC");
    }
}
