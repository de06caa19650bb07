//! The CUDA scan: a single-pass inclusive scan with decoupled look-back.

use crate::array::Array;
use crate::backend::cuda::codegen::{ModKey, ScanSpec, SCAN_THREADS, SCAN_TILE};
use crate::backend::cuda::launch::{dev_of, dptr, Params};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// Inclusive scans of the contiguous lanes (last axis) of `x` into `y`, one launch.
pub(crate) fn scan(op: crate::scan::ScanOp, x: &Array, y: &Array) -> Result<()> {
    let dev = dev_of(y)?;
    let len = *x.shape.last().unwrap_or(&1);
    if len == 0 || y.size() == 0 {
        return Ok(());
    }
    let rows = y.size() / len;
    let tpr = len.div_ceil(SCAN_TILE);
    let ntiles = rows * tpr;
    if ntiles > i32::MAX as usize {
        return Err(Error::InvalidArgument(format!("scan over {ntiles} tiles (at most {})", i32::MAX)));
    }
    let spec = ScanSpec { prod: op == crate::scan::ScanOp::Prod, x: x.dtype, out: y.dtype };
    let k = dev.kernel(ModKey::Scan(spec))?;
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
    // SAFETY: the parameters match `ScanSpec::source`; `tmp` returns to the pool in stream order.
    unsafe { p.launch(&dev, &k, ntiles as u32, SCAN_THREADS as u32) }
}
