//! The GPU labelling (`label.cu`): init, union-find merge, flatten with root flags, a scan of
//! the flags (the scan family's kernel), and the numbering pass. The host reads back the count
//! only.

use super::Neighbours;
use crate::array::Array;
use crate::backend::cuda::codegen::{storage_ty, PRELUDE};
use crate::backend::cuda::kernels::KernelKey;
use crate::backend::cuda::launch::{dev_of, dptr, dptr_opt, Params, MAX_DIMS, THREADS};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// Elements per tile of root counts (`lb_flatten`/`lb_final`): a rank costs at most
/// `TILE / 32` popcounts.
const TILE: usize = 256;

/// Neighbours passed in the kernel's parameters (every structure of up to 4 dimensions has at
/// most 40 backward neighbours); more go through a table in device memory.
const NBMAX: usize = 40;

/// One specialisation of the labelling kernels.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct LabelKey {
    /// The input's dtype (nonzero test).
    pub input: DType,
    /// 64-bit parents and ranks (arrays of 2^31 elements and more).
    pub wide: bool,
    /// The output's dtype (any real dtype but float16: `lb_final` converts the number).
    pub out: DType,
    pub ndim: usize,
    /// Which kernel.
    pub entry: &'static str,
}

impl KernelKey for LabelKey {
    const FAMILY: &'static str = "label";
    fn entry(&self) -> &str {
        self.entry
    }
    fn defines(&self) -> Vec<(&'static str, String)> {
        vec![("THREADS", THREADS.to_string()), ("TILE", TILE.to_string())]
    }
    fn source(&self) -> String {
        let nz = match self.input {
            DType::Float16 => "(((v) & 0x7fff) != 0)",
            DType::Bool => "(v)",
            _ => "((v) != 0)",
        };
        format!(
            "{PRELUDE}typedef {t} T;\n#define NZ(v) {nz}\ntypedef {idx} IDX;\ntypedef {o} OUT;\n#define NDIM {nd}\n\
             #define NBMAX {NBMAX}\n{body}",
            t = storage_ty(self.input),
            idx = if self.wide { "long long" } else { "int" },
            o = storage_ty(self.out),
            nd = self.ndim,
            body = include_str!("label.cu"),
        )
    }
}

/// Labels the nonzero elements of `fg` (C-contiguous, any dtype, non-empty, at least 1-d)
/// into `out` (any dtype: written by the last pass where `writes_directly`, else through an
/// int32/int64 temporary); returns the count.
pub(crate) fn label(fg: &Array, nb: &Neighbours, out: &Array) -> Result<usize> {
    let dev = dev_of(out)?;
    let n = fg.size();
    let nd = fg.ndim();
    if nd > MAX_DIMS {
        return Err(Error::NotImplemented(format!("label of a {nd}-d array on the GPU (at most {MAX_DIMS})")));
    }
    let wide = n >= (1usize << 31) - 2;
    let idx_dt = if wide { DType::Int64 } else { DType::Int32 };
    let direct = super::writes_directly(out, n);
    let target = if direct { out.view() } else { Array::alloc(fg.shape(), idx_dt, out.device(), false)? };
    let key = |entry| LabelKey { input: fg.dtype(), wide, out: target.dtype(), ndim: nd, entry };
    let parent = Array::alloc(&[n], idx_dt, out.device(), false)?;
    let ntiles = n.div_ceil(TILE);
    let bits = Array::alloc(&[n.div_ceil(32)], DType::UInt32, out.device(), false)?;
    let tiles = crate::zeros(&[ntiles], idx_dt, &out.device())?;
    let grid = dev.grid_for(n, THREADS as usize);

    let k = dev.kernel(&key("lb_init"))?;
    let mut p = Params::new();
    p.push(dptr(fg)?);
    p.push(dptr(&parent)?);
    p.push(n as i64);
    // SAFETY: matches `lb_init(const T*, IDX*, long long)`; `fg` holds `n` elements of T and
    // `parent` `n` of IDX, both alive until the stream has run the kernel.
    unsafe { p.launch(&dev, &k, grid, THREADS)? };

    if !nb.is_empty() {
        let mut shape = [0i64; MAX_DIMS];
        for (s, &d) in shape.iter_mut().zip(fg.shape()) {
            *s = d as i64;
        }
        let codes: Vec<u64> =
            nb.iter().map(|d| d.iter().enumerate().map(|(k, &s)| ((s + 1) as u64) << (2 * k)).sum()).collect();
        let mut inline = [0u64; NBMAX];
        let table = if codes.len() <= NBMAX {
            inline[..codes.len()].copy_from_slice(&codes);
            None
        } else {
            Some(crate::from_slice(&codes, &[codes.len()], &out.device())?)
        };
        let k = dev.kernel(&key("lb_merge"))?;
        let mut p = Params::new();
        p.push(dptr(&parent)?);
        p.push_i64s(&shape[..nd]);
        p.push(inline);
        p.push(dptr_opt(table.as_ref())?);
        p.push(codes.len() as i32);
        p.push(n as i64);
        // SAFETY: matches `lb_merge(IDX*, Shape (NDIM i64), Nb (NBMAX u64), const u64*, int,
        // long long)`; `parent` holds `n` IDX, the table (if any) `codes.len()` codes, alive
        // until the stream has run the kernel (the table is freed stream-ordered after it).
        unsafe { p.launch(&dev, &k, grid, THREADS)? };
    }

    let k = dev.kernel(&key("lb_flatten"))?;
    let mut p = Params::new();
    p.push(dptr(&parent)?);
    p.push(dptr(&bits)?);
    p.push(dptr(&tiles)?);
    p.push(n as i64);
    // SAFETY: matches `lb_flatten(IDX*, unsigned*, IDX*, long long)`; `parent` holds `n` IDX,
    // `bits` ceil(n / 32) words (one per warp of elements), `tiles` ceil(n / TILE) IDX.
    unsafe { p.launch(&dev, &k, grid, THREADS)? };

    let cs = Array::alloc(&[ntiles], idx_dt, out.device(), false)?;
    crate::scan::cuda::scan(crate::ScanOp::Sum, &tiles, &cs)?;

    let k = dev.kernel(&key("lb_final"))?;
    let mut p = Params::new();
    p.push(dptr(&parent)?);
    p.push(dptr(&bits)?);
    p.push(dptr(&cs)?);
    p.push(dptr(&target)?);
    p.push(n as i64);
    // SAFETY: matches `lb_final(const IDX*, const unsigned*, const IDX*, OUT*, long long)`;
    // `parent` holds `n` IDX, `bits` and `cs` the words and tile sums above, `target` `n`
    // elements of OUT (its dtype), C-contiguous.
    unsafe { p.launch(&dev, &k, grid, THREADS)? };
    // The count (the one value the host reads) after the last launch, so that the GPU is not
    // left idle while it travels.
    let count = cs.slice(crate::s![ntiles as isize - 1])?.item::<i64>()? as usize;
    if !direct {
        crate::ufunc::assign(out, &target)?;
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::compile::check_compiles;
    use crate::core::dtype::REAL_DTYPES as ALL_DTYPES;

    #[test]
    fn sources_compile() {
        let mut compiled = 0;
        for input in ALL_DTYPES {
            for (wide, out, ndim) in [
                (false, DType::Int32, 2),
                (true, DType::Int64, 3),
                (false, DType::Int64, 1),
                (false, DType::Float64, 2),
                (false, DType::UInt8, 2),
                (false, DType::Bool, 2),
            ] {
                for entry in ["lb_init", "lb_merge", "lb_flatten", "lb_final"] {
                    let k = LabelKey { input, wide, out, ndim, entry };
                    if input == DType::Float16 || input == DType::Bool || ndim == 2 {
                        compiled += check_compiles(&k) as usize;
                    }
                }
            }
        }
        eprintln!("label kernels: {compiled} compiled by NVRTC");
    }
}
