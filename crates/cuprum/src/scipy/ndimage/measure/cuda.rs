//! The GPU accumulation (`measure.cu`): one launch per pass, statistics chosen at compile time,
//! atomics into per-slot arrays (or, for one group, registers reduced per warp).

use super::{Acc, Pass, Slots, Want};
use crate::array::Array;
use crate::backend::cuda::codegen::{storage_ty, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, dptr_opt, Params, MAX_DIMS, THREADS};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// One specialisation of `ms_accum`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct AccumKey {
    pub x: Option<DType>,
    pub labels: Option<DType>,
    pub mode: i32,
    pub ndim: usize,
    pub single: bool,
    pub want: Want,
    /// Fewer than 2^31 elements: coordinates by 32-bit divisions.
    pub small: bool,
}

impl KernelKey for AccumKey {
    const FAMILY: &'static str = "measure";
    fn entry(&self) -> &str {
        "ms_accum"
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("THREADS", THREADS.to_string())]
    }
    fn source(&self) -> String {
        let (t, v, key, bits) = match self.x {
            None => ("u8", "0.0", "0ull", "0ull"),
            Some(d) => {
                let t = storage_ty(d);
                match d {
                    DType::Float16 => (t, "((double)h2f(v))", "okey((double)h2f(v))", "0ull"),
                    DType::Float32 | DType::Float64 => (t, "((double)(v))", "okey((double)(v))", "0ull"),
                    DType::Bool => (t, "((double)(v))", "((unsigned long long)(v))", "((unsigned long long)(v))"),
                    d if d.is_unsigned_int() => {
                        (t, "((double)(v))", "((unsigned long long)(v))", "((unsigned long long)(v))")
                    }
                    _ => (
                        t,
                        "((double)(v))",
                        "(((unsigned long long)(long long)(v)) ^ 0x8000000000000000ull)",
                        "((unsigned long long)(long long)(v))",
                    ),
                }
            }
        };
        let w = self.want;
        let flags = [
            ("WANT_COUNT", w.count),
            ("WANT_SUM", w.sum),
            ("WANT_ISUM", w.isum),
            ("WANT_SQ", w.sq),
            ("WANT_COM", w.com),
            ("WANT_MINMAX", w.minmax),
            ("WANT_POS", w.pos),
            ("WANT_BBOX", w.bbox),
            ("HAS_X", self.x.is_some()),
            ("HAS_LABELS", self.labels.is_some()),
            ("SINGLE", self.single),
            ("SMALL", self.small),
        ];
        let mut defs = String::new();
        for (name, on) in flags {
            defs.push_str(&format!("#define {name} {}\n", on as i32));
        }
        format!(
            "{PRELUDE}#define DECODE_ONLY 0\ntypedef {t} T;\ntypedef {l} L;\n#define V(v) {v}\n#define KEY(v) {key}\n\
             #define BITS(v) {bits}\n#define MODE {mode}\n#define NDIM {nd}\n{defs}{body}",
            l = self.labels.map_or("u8", storage_ty),
            mode = self.mode,
            nd = self.ndim,
            body = include_str!("measure.cu"),
        )
    }
}

/// `ms_decode` for values of one dtype.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct DecodeKey {
    pub dtype: DType,
}

impl KernelKey for DecodeKey {
    const FAMILY: &'static str = "measure";
    fn entry(&self) -> &str {
        "ms_decode"
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("THREADS", THREADS.to_string())]
    }
    fn source(&self) -> String {
        let d = self.dtype;
        let (kind, store) = match d {
            DType::Float16 => (0, "d2h(d)"),
            DType::Float32 => (0, "((float)(d))"),
            DType::Float64 => (0, "(d)"),
            d if d.is_signed_int() => (1, "(d)"),
            _ => (2, "(d)"),
        };
        format!(
            "{PRELUDE}#define DECODE_ONLY 1\ntypedef {t} T;\n#define KIND {kind}\n#define STORE(d) {store}\n{body}",
            t = storage_ty(d),
            body = include_str!("measure.cu"),
        )
    }
}

/// The values of order keys `keys` ([k], uint64) in `dtype`, 0 where `count` (int64 [k]) is 0.
pub(crate) fn decode(keys: &Array, count: &Array, dtype: DType) -> Result<Array> {
    let dev = dev_of(keys)?;
    let k = keys.size();
    let out = Array::alloc(&[k], dtype, keys.device(), false)?;
    if k == 0 {
        return Ok(out);
    }
    let kern = dev.kernel(&DecodeKey { dtype })?;
    let mut p = Params::new();
    p.push(dptr(keys)?);
    p.push(dptr(count)?);
    p.push(dptr(&out)?);
    p.push(k as i64);
    // SAFETY: matches `ms_decode(const u64*, const u64*, T*, long long)`; `keys` and `count`
    // hold `k` 8-byte elements, `out` `k` elements of T, C-contiguous, alive until the stream
    // has run the kernel.
    unsafe { p.launch(&dev, &kern, dev.grid_for(k, THREADS as usize), THREADS)? };
    Ok(out)
}

/// An uninitialised array on `dev` with every byte set to `byte` (0: zeros; 0xFF: all ones),
/// by one memset.
pub(crate) fn filled(shape: &[usize], dtype: DType, dev: &crate::Device, byte: u8) -> Result<Array> {
    let a = Array::alloc(shape, dtype, *dev, false)?;
    let bytes = a.size() * a.itemsize();
    if bytes > 0 {
        dev_of(&a)?.memset_u8(dptr(&a)?, byte, bytes)?;
    }
    Ok(a)
}

/// Accumulates `p` into the device arrays of `acc`.
pub(crate) fn accumulate(p: &Pass<'_>, acc: &Acc) -> Result<()> {
    let arr = p.x.or(p.labels).or(acc.count.as_ref()).expect("an operand");
    let dev = dev_of(arr)?;
    let n: usize = p.shape.iter().product();
    let nd = p.shape.len().max(1);
    if nd > MAX_DIMS {
        return Err(Error::NotImplemented(format!("measurements of {nd}-d arrays on the GPU (at most {MAX_DIMS})")));
    }
    let g = p.groups;
    let (par, lut) = match &g.slots {
        Slots::Every | Slots::Positive => (0i64, None),
        Slots::Equal(v) => (*v, None),
        Slots::Range { lo } => (*lo, None),
        Slots::Lut { lo, lut } => (*lo, Some(crate::from_slice(lut, &[lut.len()], &arr.device())?)),
    };
    let lutn = match &g.slots {
        Slots::Lut { lut, .. } => lut.len() as i64,
        _ => g.k as i64,
    };
    let single = g.k == 1 && matches!(g.slots, Slots::Every | Slots::Positive | Slots::Equal(_));
    let key = AccumKey {
        x: p.x.map(|x| x.dtype()),
        labels: p.labels.map(|l| l.dtype()),
        mode: g.slots.code(),
        ndim: nd,
        single,
        want: p.want,
        small: n < (1 << 31),
    };
    let k = dev.kernel(&key)?;
    let mut shape = vec![1i64; nd];
    for (s, &d) in shape.iter_mut().zip(p.shape) {
        *s = d as i64;
    }
    let mut prm = Params::new();
    prm.push(dptr_opt(p.x)?);
    prm.push(dptr_opt(p.labels)?);
    prm.push(n as i64);
    prm.push(par);
    prm.push(lutn);
    prm.push(dptr_opt(lut.as_ref())?);
    prm.push_i64s(&shape);
    prm.push(dptr_opt(acc.count.as_ref())?);
    prm.push(dptr_opt(acc.sum.as_ref())?);
    prm.push(dptr_opt(acc.isum.as_ref())?);
    prm.push(dptr_opt(acc.sq.as_ref())?);
    prm.push(dptr_opt(p.means)?);
    prm.push(dptr_opt(acc.com.as_ref())?);
    prm.push(dptr_opt(acc.minkey.as_ref())?);
    prm.push(dptr_opt(acc.maxkey.as_ref())?);
    prm.push(dptr_opt(p.keys.map(|(a, _)| a))?);
    prm.push(dptr_opt(p.keys.map(|(_, b)| b))?);
    prm.push(dptr_opt(acc.minpos.as_ref())?);
    prm.push(dptr_opt(acc.maxpos.as_ref())?);
    prm.push(dptr_opt(acc.bblo.as_ref())?);
    prm.push(dptr_opt(acc.bbhi.as_ref())?);
    // One group: few blocks (each warp ends with one atomic per statistic); many: a full grid.
    let grid = if single {
        dev.grid_for(n, THREADS as usize).min(dev.sm_count * 4)
    } else {
        dev.grid_for(n, THREADS as usize)
    };
    // SAFETY: the parameters match `ms_accum` in measure.cu (pointers are null exactly where
    // the specialisation does not read them); `x` and `labels` hold `n` C-contiguous elements
    // of their dtypes, the per-slot arrays `k` (or `k * ndim`) elements of the types the
    // kernel writes (int64/uint64/float64), the table `lutn` int32; all stay alive until the
    // stream has run the kernel.
    unsafe { prm.launch(&dev, &k, grid, THREADS) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::check_compiles;
    use crate::core::dtype::REAL_DTYPES as ALL_DTYPES;

    #[test]
    fn sources_compile() {
        let all = Want { count: true, sum: true, isum: true, sq: true, com: true, minmax: true, pos: true, bbox: true };
        let mut compiled = 0;
        for x in ALL_DTYPES {
            for (mode, single) in [(0, true), (1, true), (2, true), (3, false), (4, false)] {
                let key = AccumKey {
                    x: Some(x),
                    labels: if mode == 0 { None } else { Some(DType::Int32) },
                    mode,
                    ndim: 2,
                    single,
                    want: all,
                    small: mode != 4,
                };
                if matches!(x, DType::Float16 | DType::Float64 | DType::Int8 | DType::UInt64) {
                    compiled += check_compiles(&key) as usize;
                }
            }
        }
        for dtype in ALL_DTYPES {
            compiled += check_compiles(&DecodeKey { dtype }) as usize;
        }
        let count_only = AccumKey {
            x: None,
            labels: Some(DType::UInt8),
            mode: 3,
            ndim: 3,
            single: false,
            want: Want { count: true, bbox: true, ..Want::default() },
            small: true,
        };
        compiled += check_compiles(&count_only) as usize;
        eprintln!("measure kernels: {compiled} compiled by NVRTC");
    }
}
