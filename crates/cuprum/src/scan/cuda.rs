//! The CUDA scan: a single-pass inclusive scan with decoupled look-back (`scan.cu`).

use crate::array::Array;
use crate::backend::cuda::codegen::{compute_ty, load_cvt, storage_ty, store_cvt, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, Params};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// Inclusive scans of the contiguous lanes (last axis) of `x` into `y`, one launch.
/// Threads per scan block.
const THREADS: usize = crate::backend::cuda::launch::THREADS as usize;
/// Consecutive elements each scan thread owns.
const ITEMS: usize = 16;
/// Elements per scan tile.
const TILE: usize = THREADS * ITEMS;

/// An inclusive scan (cumsum/cumprod) of contiguous lanes: input dtype, output dtype.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ScanSpec {
    pub prod: bool,
    pub x: DType,
    pub out: DType,
}

impl KernelKey for ScanSpec {
    const FAMILY: &'static str = "scan";
    fn entry(&self) -> &str {
        "scan"
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("THREADS", THREADS.to_string()), ("ITEMS", ITEMS.to_string())]
    }
    /// The accumulator is the output's compute type (float for float16); values convert at
    /// the load and round to the output's type once, at the store.
    fn source(&self) -> String {
        let a_dt = if self.out == DType::Float16 { DType::Float32 } else { self.out };
        let a = compute_ty(self.out);
        let logp = (128 / a_dt.itemsize().max(4)).trailing_zeros();
        let op = match (self.prod, a_dt.is_float()) {
            (false, true) => "a + b".to_string(),
            (true, true) => "a * b".to_string(),
            (false, false) => format!("({a})((u64)a + (u64)b)"),
            (true, false) => format!("({a})((u64)a * (u64)b)"),
        };
        format!(
            "{PRELUDE}typedef {a} A;\ntypedef {xs} XS;\ntypedef {os} OS;\n#define VX {vx}\n#define VO {vo}\n#define LOGP {logp}\n\
             #define ID {id}\n#define LOADX(x) {ld}\n#define STOREY(a) {st}\n\
             __device__ __forceinline__ {a} opf({a} a, {a} b) {{ return {op}; }}\n{body}",
            xs = storage_ty(self.x),
            os = storage_ty(self.out),
            vx = 16 / self.x.itemsize(),
            vo = 16 / self.out.itemsize(),
            id = if self.prod { 1 } else { 0 },
            ld = load_cvt(self.x, self.out, "(x)"),
            st = store_cvt(self.out, self.out, "a"),
            body = include_str!("scan.cu"),
        )
    }
}

impl ScanSpec {
    /// Static shared memory of the kernel in bytes (the tile, padded, and a few words).
    #[cfg(test)]
    pub fn shared_bytes(&self) -> usize {
        let a_size = if self.out == DType::Float16 { 4 } else { self.out.itemsize().max(4) };
        (TILE + TILE / (128 / a_size)) * a_size + (THREADS / 32 + 2) * a_size + 4
    }
}

pub(crate) fn scan(op: crate::scan::ScanOp, x: &Array, y: &Array) -> Result<()> {
    if y.dtype.is_complex() {
        // cumsum of complex arrays scans the parts (`scan/mod.rs`); cumprod has no kernel yet.
        return Err(Error::NotImplemented(format!("cumprod of a {} array on a GPU", y.dtype)));
    }
    let dev = dev_of(y)?;
    let len = *x.shape.last().unwrap_or(&1);
    if len == 0 || y.size() == 0 {
        return Ok(());
    }
    let rows = y.size() / len;
    let tpr = len.div_ceil(TILE);
    let ntiles = rows * tpr;
    if ntiles > i32::MAX as usize {
        return Err(Error::NotImplemented(format!("scan over {ntiles} tiles (at most {})", i32::MAX)));
    }
    let spec = ScanSpec { prod: op == crate::scan::ScanOp::Prod, x: x.dtype, out: y.dtype };
    let k = dev.kernel(&spec)?;
    // The tile counter (8 bytes) and the tile flags, zeroed by one memset, then the
    // aggregates and inclusive prefixes (8-byte slots).
    let flags_bytes = (ntiles * 4).next_multiple_of(8);
    let bytes = 8 + flags_bytes + 2 * ntiles * 8;
    let tmp = Array::alloc(&[bytes], DType::UInt8, y.device(), false)?;
    let t = dptr(&tmp)?;
    dev.memset_zero(t, 8 + flags_bytes)?;
    let vals = t + 8 + flags_bytes as u64;
    let mut p = Params::new();
    p.push(dptr(x)?);
    p.push(dptr(y)?);
    p.push(len as i64);
    p.push(tpr as i64);
    p.push(t + 8);
    p.push(vals);
    p.push(vals + 8 * ntiles as u64);
    p.push(t);
    // SAFETY: the parameters match `scan` in scan.cu; `tmp` returns to the pool in stream order.
    unsafe { p.launch(&dev, &k, ntiles as u32, THREADS as u32) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::dtype::DType;
    use crate::core::dtype::REAL_DTYPES as ALL_DTYPES;

    /// Every scan kernel NumPy's dtype rules can ask for: one entry point, balanced source,
    /// vector widths that divide the tile, static shared memory under 48 KiB, and the
    /// barriers outside thread-dependent branches (four in all).
    #[test]
    fn scan_sources() {
        let dump = std::env::var_os("CUPRUM_DUMP_SOURCES");
        for x in ALL_DTYPES {
            for prod in [false, true] {
                let spec = ScanSpec { prod, x, out: x.sum_dtype() };
                let src = spec.source();
                crate::backend::cuda::compile::check_compiles(&spec);
                if let Some(d) = &dump {
                    std::fs::write(std::path::Path::new(d).join(format!("scan-{x}-{prod}.cu")), &src).unwrap();
                }
                assert_eq!(src.matches("__global__").count(), 1);
                assert!(src.contains(" scan("));
                assert_eq!(src.matches('{').count(), src.matches('}').count(), "{spec:?}");
                assert_eq!(src.matches('(').count(), src.matches(')').count(), "{spec:?}");
                assert_eq!(src.matches("__syncthreads()").count(), 5, "{spec:?}");
                assert!(src.contains("#include \"cuprum/lookback.cuh\""));
                assert!(TILE.is_multiple_of(16 / x.itemsize() * THREADS));
                assert!(TILE.is_multiple_of(16 / spec.out.itemsize() * THREADS));
                assert!(spec.shared_bytes() <= 48 * 1024, "{spec:?}: {}", spec.shared_bytes());
                // Float16 results are rounded once, from the float accumulator.
                if spec.out == DType::Float16 {
                    assert!(src.contains("typedef float A;") && src.contains("#define STOREY(a) f2h(a)"));
                }
            }
        }
        if std::env::var_os("CUPRUM_PRINT_SOURCE").is_some() {
            println!("{}", ScanSpec { prod: false, x: DType::Float32, out: DType::Float32 }.source());
        }
    }

    /// The padding puts the transposed (thread-consecutive) reads of a warp in distinct
    /// banks: 4-byte values one per bank, 8-byte values one bank pair per half-warp.
    #[test]
    fn scan_padding_is_conflict_free() {
        for a_size in [4usize, 8] {
            let logp = (128 / a_size).trailing_zeros();
            let pad = |i: usize| i + (i >> logp);
            let group = if a_size == 4 { 32 } else { 16 };
            for j in 0..ITEMS {
                let mut banks = std::collections::HashSet::new();
                for t in 0..group {
                    let word = pad(t * ITEMS + j) * a_size / 4;
                    for w in 0..a_size / 4 {
                        assert!(banks.insert((word + w) % 32), "size {a_size}, item {j}, thread {t}");
                    }
                }
            }
        }
    }
}
