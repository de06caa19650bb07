//! Kernels of the `ModKey::Select` family: single-pass selection (stream compaction) in the
//! style of CUB's `DeviceSelect::Flagged`.
//!
//! One block per tile of [`TILE`] flags; tiles are taken in order from a dynamic counter.
//! Each thread loads its 16 consecutive flags (16-byte loads), makes a 16-bit mask of the
//! non-zero ones, and the block ranks them (a warp scan of the per-thread counts and a scan of
//! the 8 warp totals). Warp 0 then publishes the tile's count and looks back over its
//! predecessors' published counts and prefixes (decoupled look-back; status and value share
//! one 64-bit word, so one load sees both) for the tile's output offset, and publishes its
//! inclusive prefix. The selected rows are then moved:
//!
//! - `Pack` (rows of one element): each thread loads its own 16 elements (16-byte loads, only
//!   the vectors holding a selected element) before the look-back, writes the selected ones
//!   to their tile ranks in shared memory, and the block writes the tile's run of output
//!   contiguously;
//! - `Rows`, `Expand`, `Coords`: the tile's selected flags are listed in shared memory (local
//!   indices in order) and the block copies rows (`Rows`: `x` to the packed output; `Expand`:
//!   packed values back to `x`) or writes indices (`Coords`: flat indices unravelled over up
//!   to [`MAX_COORD_DIMS`] dimensions, with output strides for `nonzero`'s and `argwhere`'s
//!   layouts).
//!
//! The last tile writes the total count to device memory; the host reads those 8 bytes to
//! size the result.

use crate::array::Array;
use crate::backend::cuda::codegen::PRELUDE;
use crate::backend::cuda::launch::{dev_of, dptr, Params};
use crate::backend::cuda::CudaDevice;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use std::fmt::Write;
use std::sync::Arc;

/// Threads per block.
pub(crate) const THREADS: usize = 256;
/// Flags per thread (consecutive).
pub(crate) const ITEMS: usize = 16;
/// Flags per tile (one block each).
pub(crate) const TILE: usize = THREADS * ITEMS;
/// Most dimensions `Coords` unravels flat indices over.
pub(crate) const MAX_COORD_DIMS: usize = 16;

/// How a flag is tested: its size in bytes, and whether it is a float (then `-0.0` is zero;
/// NaN is non-zero, as NumPy's truth value).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Flag {
    pub size: u8,
    pub float: bool,
}

impl Flag {
    pub fn of(d: DType) -> Flag {
        Flag { size: d.itemsize() as u8, float: d.is_float() }
    }
    fn ty(self) -> &'static str {
        uty(self.size as usize)
    }
    /// C expression: whether the raw word `v` is non-zero.
    fn nz(self, v: &str) -> String {
        if !self.float {
            return format!("({v} != 0)");
        }
        let m = match self.size {
            2 => "0x7fffu",
            4 => "0x7fffffffu",
            _ => "0x7fffffffffffffffull",
        };
        format!("(({v} & {m}) != 0)")
    }
}

fn uty(size: usize) -> &'static str {
    match size {
        1 => "u8",
        2 => "u16",
        4 => "u32",
        _ => "u64",
    }
}

/// Identity of one generated kernel of this family. `size` is the moved elements' size in
/// bytes (1, 2, 4 or 8; elements are copied as raw words).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SelectKey {
    /// Rows of one element: `out[rank(i)] = x[i]` for each selected `i`.
    Pack { flag: Flag, size: u8 },
    /// Rows of `row` elements: `out[rank(i) * row + e] = x[i * row + e]`.
    Rows { flag: Flag, size: u8 },
    /// The reverse of `Rows`: `x[i * row + e] = packed[rank(i) * row + e]`.
    Expand { flag: Flag, size: u8 },
    /// Indices: coordinate `d` of selected flat index `i` goes to `out[rank(i) * sj + d * sd]`.
    Coords { flag: Flag },
}

impl crate::backend::cuda::kernels::KernelKey for SelectKey {
    const FAMILY: &'static str = "select";
    fn entry(&self) -> &str {
        self.name()
    }
    fn source(&self) -> String {
        SelectKey::source(*self)
    }
}

impl SelectKey {
    /// The kernel function's name.
    pub fn name(self) -> &'static str {
        match self {
            SelectKey::Pack { .. } => "select_pack",
            SelectKey::Rows { .. } => "select_rows",
            SelectKey::Expand { .. } => "select_expand",
            SelectKey::Coords { .. } => "select_coords",
        }
    }

    fn flag(self) -> Flag {
        match self {
            SelectKey::Pack { flag, .. }
            | SelectKey::Rows { flag, .. }
            | SelectKey::Expand { flag, .. }
            | SelectKey::Coords { flag } => flag,
        }
    }

    /// The module's CUDA C source.
    pub fn source(self) -> String {
        let flag = self.flag();
        let ft = flag.ty();
        let fv = 16 / flag.size as usize; // flags per 16-byte load
        let mut s = String::from(PRELUDE);
        let name = self.name();
        // Parameters after the common ones.
        let extra = match self {
            SelectKey::Pack { size, .. } => {
                let t = uty(size as usize);
                format!("const {t}* __restrict__ x, int x_aligned, {t}* __restrict__ out")
            }
            SelectKey::Rows { size, .. } => {
                let t = uty(size as usize);
                format!("long long row, const {t}* __restrict__ x, {t}* __restrict__ out")
            }
            SelectKey::Expand { size, .. } => {
                let t = uty(size as usize);
                format!("long long row, {t}* __restrict__ x, const {t}* __restrict__ packed")
            }
            SelectKey::Coords { .. } => "long long* __restrict__ out, long long sj, long long sd, Dims D".to_string(),
        };
        if let SelectKey::Coords { .. } = self {
            writeln!(s, "struct Dims {{ long long nd; long long d[{MAX_COORD_DIMS}]; }};").unwrap();
        }
        // Shared memory of the payload: values staged at their ranks, or the list of selected
        // local indices.
        let shared = match self {
            SelectKey::Pack { size, .. } => format!("__shared__ {} s_stage[{TILE}];", uty(size as usize)),
            _ => format!("__shared__ unsigned short s_sel[{TILE}];"),
        };
        write!(
            s,
            r#"#define AGG (1ull << 62)
#define INCL (2ull << 62)
#define VALUE (AGG - 1ull)
extern "C" __global__ void __launch_bounds__({THREADS}) {name}(const {ft}* __restrict__ flags, long long nflags,
    int flags_aligned, unsigned long long* state, unsigned int* ctr, unsigned long long* total, {extra}) {{
  __shared__ unsigned int s_tile;
  __shared__ int s_warp[{nw}];
  __shared__ int s_cnt;
  __shared__ unsigned long long s_off;
  {shared}
  if (threadIdx.x == 0) s_tile = atomicAdd(ctr, 1u);
  __syncthreads();
  const unsigned int tile = s_tile;
  const long long f0 = (long long)tile * {TILE};
  const long long my0 = f0 + (long long)threadIdx.x * {ITEMS};
  // This thread's {ITEMS} consecutive flags as a bit mask (bit k: flag my0 + k is set).
  unsigned int bits = 0u;
  if (flags_aligned && my0 + {ITEMS} <= nflags) {{
    const Pack<{ft}, {fv}>* fp = reinterpret_cast<const Pack<{ft}, {fv}>*>(flags + my0);
    #pragma unroll
    for (int q = 0; q < {ITEMS} / {fv}; q++) {{
      Pack<{ft}, {fv}> w = fp[q];
      #pragma unroll
      for (int c = 0; c < {fv}; c++) bits |= (unsigned int){nzw} << (q * {fv} + c);
    }}
  }} else {{
    #pragma unroll
    for (int k = 0; k < {ITEMS}; k++) {{ long long i = my0 + k; if (i < nflags && {nzs}) bits |= 1u << k; }}
  }}
"#,
            nw = THREADS / 32,
            nzw = flag.nz("w.v[c]"),
            nzs = flag.nz("flags[i]"),
        )
        .unwrap();
        if let SelectKey::Pack { size, .. } = self {
            // Issue the loads of this thread's selected elements now, so that their latency
            // overlaps the ranking and the look-back.
            let t = uty(size as usize);
            let v = 16 / size as usize;
            write!(
                s,
                r#"  {t} val[{ITEMS}];
  const {t}* xs = x + my0;
  if (x_aligned && my0 + {ITEMS} <= nflags) {{
    #pragma unroll
    for (int q = 0; q < {ITEMS} / {v}; q++) {{
      if ((bits >> (q * {v})) & {vmask}u) {{
        Pack<{t}, {v}> p = reinterpret_cast<const Pack<{t}, {v}>*>(xs)[q];
        #pragma unroll
        for (int c = 0; c < {v}; c++) val[q * {v} + c] = p.v[c];
      }}
    }}
  }} else {{
    #pragma unroll
    for (int k = 0; k < {ITEMS}; k++) if ((bits >> k) & 1u) val[k] = xs[k];
  }}
"#,
                vmask = if v >= 32 { u32::MAX } else { (1u32 << v) - 1 },
            )
            .unwrap();
        }
        write!(
            s,
            r#"  // Ranks within the tile: warp-inclusive scan of the per-thread counts, then warp offsets.
  const int c = __popc(bits);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  int inc = c;
  #pragma unroll
  for (int d = 1; d < 32; d <<= 1) {{ int o = __shfl_up_sync(0xffffffffu, inc, d); if (lane >= d) inc += o; }}
  if (lane == 31) s_warp[w] = inc;
  __syncthreads();
  if (threadIdx.x == 0) {{
    int run = 0;
    for (int k = 0; k < {nw}; k++) {{ int tk = s_warp[k]; s_warp[k] = run; run += tk; }}
    s_cnt = run;
  }}
  __syncthreads();
  const int tex = s_warp[w] + inc - c;
  const int tcnt = s_cnt;
"#,
            nw = THREADS / 32,
        )
        .unwrap();
        // Local placement (visible to the block after the look-back's barrier).
        match self {
            // Unrolled with constant indices, so that `val` stays in registers.
            SelectKey::Pack { .. } => write!(
                s,
                r#"  {{ int r = tex;
    #pragma unroll
    for (int k = 0; k < {ITEMS}; k++) if ((bits >> k) & 1u) s_stage[r++] = val[k]; }}
"#
            )
            .unwrap(),
            _ => write!(
                s,
                r#"  {{ int r = tex;
    #pragma unroll
    for (int k = 0; k < {ITEMS}; k++) if ((bits >> k) & 1u) s_sel[r++] = (unsigned short)(threadIdx.x * {ITEMS} + k); }}
"#
            )
            .unwrap(),
        }
        // Decoupled look-back: one 64-bit word per tile, status in the top two bits (0: not
        // yet published, AGG: the tile's count, INCL: the inclusive prefix through the tile).
        write!(
            s,
            r#"  if (w == 0) {{
    volatile unsigned long long* vs = state;
    unsigned long long prefix = 0ull;
    if (tile == 0u) {{
      if (lane == 0) vs[0] = INCL | (unsigned long long)tcnt;
    }} else {{
      if (lane == 0) vs[tile] = AGG | (unsigned long long)tcnt;
      long long base = (long long)tile - 1;
      while (true) {{
        const long long p = base - lane;
        unsigned long long st = INCL;
        if (p >= 0) {{ do {{ st = vs[p]; }} while (st == 0ull); }}
        const unsigned int done = __ballot_sync(0xffffffffu, (st >> 62) == 2ull);
        const int first = done ? __ffs(done) - 1 : 31;
        unsigned long long v = (lane <= first) ? (st & VALUE) : 0ull;
        #pragma unroll
        for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
        prefix += __shfl_sync(0xffffffffu, v, 0);
        if (done) break;
        base -= 32;
      }}
      if (lane == 0) vs[tile] = INCL | (prefix + (unsigned long long)tcnt);
    }}
    if (lane == 0) {{
      s_off = prefix;
      if (tile == gridDim.x - 1u) *total = prefix + (unsigned long long)tcnt;
    }}
  }}
  __syncthreads();
  const long long off = (long long)s_off;
"#
        )
        .unwrap();
        match self {
            SelectKey::Pack { .. } => write!(
                s,
                r#"  for (int k = threadIdx.x; k < tcnt; k += {THREADS}) out[off + k] = s_stage[k];
}}
"#
            )
            .unwrap(),
            SelectKey::Rows { .. } | SelectKey::Expand { .. } => {
                let (dst, src) = if let SelectKey::Rows { .. } = self {
                    ("out[(off + k) * row + e]", "x[(f0 + s_sel[k]) * row + e]")
                } else {
                    ("x[(f0 + s_sel[k]) * row + e]", "packed[(off + k) * row + e]")
                };
                write!(
                    s,
                    r#"  if (row >= {THREADS}) {{
    for (int k = 0; k < tcnt; k++)
      for (long long e = threadIdx.x; e < row; e += {THREADS}) {dst} = {src};
  }} else {{
    // tcnt * row < {TILE} * {THREADS}: 32-bit index arithmetic.
    const unsigned int r32 = (unsigned int)row, n32 = (unsigned int)tcnt * r32;
    for (unsigned int q = threadIdx.x; q < n32; q += {THREADS}) {{
      const int k = (int)(q / r32); const long long e = (long long)(q - (unsigned int)k * r32);
      {dst} = {src};
    }}
  }}
}}
"#
                )
                .unwrap()
            }
            SelectKey::Coords { .. } => write!(
                s,
                r#"  for (int k = threadIdx.x; k < tcnt; k += {THREADS}) {{
    long long i = f0 + s_sel[k];
    long long* o = out + (off + k) * sj;
    if (D.nd == 1) {{ o[0] = i; continue; }}
    for (int d = (int)D.nd - 1; d >= 0; d--) {{ const long long n = D.d[d]; const long long q = i / n; o[d * sd] = i - q * n; i = q; }}
  }}
}}
"#
            )
            .unwrap(),
        }
        s
    }

    /// Every kernel of the family (for source checks).
    #[cfg(test)]
    pub fn all() -> Vec<SelectKey> {
        let mut v = Vec::new();
        for size in [1u8, 2, 4, 8] {
            for float in [false, true] {
                if float && size == 1 {
                    continue;
                }
                let flag = Flag { size, float };
                v.push(SelectKey::Coords { flag });
                for e in [1u8, 2, 4, 8] {
                    v.push(SelectKey::Pack { flag, size: e });
                    v.push(SelectKey::Rows { flag, size: e });
                    v.push(SelectKey::Expand { flag, size: e });
                }
            }
        }
        v
    }
}

/// The selected count of a launched selection, in device memory until read.
pub(crate) struct PendingCount {
    dev: Arc<CudaDevice>,
    tmp: Array,
}

impl PendingCount {
    /// Waits for the kernel and reads the count (8 bytes).
    pub fn read(self) -> Result<usize> {
        let mut b = [0u8; 8];
        self.dev.dtoh(&mut b, dptr(&self.tmp)? + 8, false)?;
        Ok(u64::from_le_bytes(b) as usize)
    }
}

/// A launch being prepared: the device, the kernel, the temporary words (tile counter,
/// total, tile status), the parameters so far and the grid (one block per tile).
type Launch = (Arc<CudaDevice>, Arc<crate::backend::cuda::Kernel>, Array, Params, u32);

/// Checks `flags` (a C-contiguous 1-d array on a GPU) and starts a launch: the kernel of
/// `key`, the tile status words zeroed, and the common parameters pushed.
fn begin(key: SelectKey, flags: &Array) -> Result<Launch> {
    let dev = dev_of(flags)?;
    let n = flags.size();
    if flags.ndim() != 1 || !flags.is_c_contiguous() {
        return Err(Error::InvalidArgument("selection flags must be a contiguous 1-d array".into()));
    }
    let ntiles = n.div_ceil(TILE).max(1);
    if ntiles > i32::MAX as usize {
        return Err(Error::NotImplemented(format!("selection over {n} elements (too many tiles)")));
    }
    let k = dev.kernel(&key)?;
    // Tile counter (8 bytes), total (8 bytes), then one status word per tile; all zeroed.
    let bytes = 16 + 8 * ntiles;
    let tmp = Array::alloc(&[bytes], DType::UInt8, flags.device(), false)?;
    let t = dptr(&tmp)?;
    dev.memset_zero(t, bytes)?;
    let fp = dptr(flags)?;
    let mut p = Params::new();
    p.push(fp);
    p.push(n as i64);
    p.push((fp % 16 == 0) as i32);
    p.push(t + 16);
    p.push(t);
    p.push(t + 8);
    Ok((dev, k, tmp, p, ntiles as u32))
}

fn word(itemsize: usize) -> Result<u8> {
    match itemsize {
        1 | 2 | 4 | 8 => Ok(itemsize as u8),
        _ => Err(Error::InvalidArgument(format!("selection of {itemsize}-byte elements"))),
    }
}

/// Moves the rows (of `row` elements) of the C-contiguous `x` whose flag is non-zero to the
/// start of `out` (room for every row), in order. Returns the pending count of rows.
pub(crate) fn compact(x: &Array, flags: &Array, out: &Array, row: usize) -> Result<PendingCount> {
    let size = word(x.itemsize())?;
    if row == 0 || x.size() != flags.size() * row || out.size() < x.size() {
        return Err(Error::InvalidArgument("selection: rows and buffers do not match".into()));
    }
    let flag = Flag::of(flags.dtype());
    let key = if row == 1 { SelectKey::Pack { flag, size } } else { SelectKey::Rows { flag, size } };
    let (dev, k, tmp, mut p, grid) = begin(key, flags)?;
    let xp = dptr(x)?;
    if row == 1 {
        p.push(xp);
        p.push((xp % 16 == 0) as i32);
    } else {
        p.push(row as i64);
        p.push(xp);
    }
    p.push(dptr(out)?);
    // SAFETY: the parameters match `SelectKey::source`; `x`, `out` and `tmp` are alive and
    // return to the pool only in stream order.
    unsafe { p.launch(&dev, &k, grid, THREADS as u32)? };
    Ok(PendingCount { dev, tmp })
}

/// The reverse of [`compact`]: row `r` of the C-contiguous `packed` goes to the `r`-th
/// selected row of `x` (C-contiguous). `packed` must hold every selected row.
pub(crate) fn expand(x: &Array, flags: &Array, packed: &Array, row: usize) -> Result<()> {
    let size = word(x.itemsize())?;
    if row == 0 || x.size() != flags.size() * row {
        return Err(Error::InvalidArgument("selection: rows and buffers do not match".into()));
    }
    let key = SelectKey::Expand { flag: Flag::of(flags.dtype()), size };
    let (dev, k, _tmp, mut p, grid) = begin(key, flags)?;
    p.push(row as i64);
    p.push(dptr(x)?);
    p.push(dptr(packed)?);
    // SAFETY: as in `compact`; `_tmp` returns to the pool in stream order.
    unsafe { p.launch(&dev, &k, grid, THREADS as u32) }
}

/// Indices of the non-zero elements of the C-contiguous `a` (any dtype): coordinate `d`
/// (over `a`'s shape; the flat index when `flat`) of the `j`-th goes to `out[j * sj + d * sd]`
/// (int64). `out` must have room for every selected element.
pub(crate) fn coords(a: &Array, out: &Array, flat: bool, sj: i64, sd: i64) -> Result<PendingCount> {
    let dims: Vec<usize> = if flat { vec![a.size()] } else { a.shape().to_vec() };
    if dims.len() > MAX_COORD_DIMS || dims.is_empty() {
        return Err(Error::NotImplemented(format!("indices over {} dimensions", dims.len())));
    }
    let flags = a.reshape(&[a.size()])?;
    let key = SelectKey::Coords { flag: Flag::of(a.dtype()) };
    let (dev, k, tmp, mut p, grid) = begin(key, &flags)?;
    p.push(dptr(out)?);
    p.push(sj);
    p.push(sd);
    let mut d = [0i64; 1 + MAX_COORD_DIMS];
    d[0] = dims.len() as i64;
    for (q, &x) in dims.iter().enumerate() {
        d[1 + q] = x as i64;
    }
    p.push_i64s(&d);
    // SAFETY: as in `compact`.
    unsafe { p.launch(&dev, &k, grid, THREADS as u32)? };
    Ok(PendingCount { dev, tmp })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kernel source of the family: one entry point with its own name, balanced
    /// braces, the parameters the launchers push, shared memory under the static 48 KiB.
    #[test]
    fn select_sources() {
        let keys = SelectKey::all();
        assert_eq!(keys.len(), 7 * 13);
        let dump = std::env::var_os("CUPRUM_DUMP_SOURCES");
        for (q, key) in keys.into_iter().enumerate() {
            let src = key.source();
            if let Some(d) = &dump {
                std::fs::write(std::path::Path::new(d).join(format!("{}-{q}.cu", key.name())), &src).unwrap();
            }
            assert!(src.starts_with(PRELUDE));
            assert_eq!(src.matches("__global__").count(), 1, "{key:?}");
            assert!(src.contains(&format!(" {}(", key.name())), "{key:?}");
            assert_eq!(src.matches('{').count(), src.matches('}').count(), "{key:?}");
            assert_eq!(src.matches('(').count(), src.matches(')').count(), "{key:?}");
            // Barriers are never inside a branch that depends on the thread.
            assert_eq!(src.matches("__syncthreads()").count(), 4, "{key:?}");
            // The look-back reads volatile words and publishes the tile before waiting.
            let publish = src.find("vs[tile] = AGG").unwrap();
            let wait = src.find("do { st = vs[p]; }").unwrap();
            assert!(publish < wait);
            // Parameter count: the common six, then the mode's.
            let sig = &src[src.find(key.name()).unwrap()..];
            let sig = &sig[..sig.find(')').unwrap()];
            let nparams = sig.matches(',').count() + 1;
            let want = match key {
                SelectKey::Pack { .. } | SelectKey::Rows { .. } | SelectKey::Expand { .. } => 9,
                SelectKey::Coords { .. } => 10,
            };
            assert_eq!(nparams, want, "{key:?}: {sig}");
            let shared: usize = match key {
                SelectKey::Pack { size, .. } => TILE * size as usize,
                _ => TILE * 2,
            };
            assert!(shared + 64 <= 48 * 1024);
        }
        if std::env::var_os("CUPRUM_PRINT_SOURCE").is_some() {
            let flag = Flag { size: 1, float: false };
            println!("{}", SelectKey::Pack { flag, size: 4 }.source());
            println!("{}", SelectKey::Coords { flag }.source());
        }
    }

    #[test]
    fn flag_tests() {
        assert_eq!(Flag::of(DType::Bool).nz("v"), "(v != 0)");
        assert_eq!(Flag::of(DType::Float32).nz("v"), "((v & 0x7fffffffu) != 0)");
        assert_eq!(Flag::of(DType::Float16).nz("v"), "((v & 0x7fffu) != 0)");
        assert_eq!(Flag::of(DType::Float64).nz("v"), "((v & 0x7fffffffffffffffull) != 0)");
        assert_eq!(Flag::of(DType::Int64).nz("v"), "(v != 0)");
    }
}
