//! Kernels of the `ModKey::Index` family: gather (`a[i0, i1]`, `take`), `take_along_axis`,
//! scatter (`a[i0, i1] = v`, `put`), `add.at`, `searchsorted`, `bincount` and `histogram`,
//! with the Rust functions that launch them.
//!
//! Index arrays reach the kernels C-contiguous, one integer dtype per launch (the kernel is
//! generated for it); negative indices count from the end. An out-of-range index never leads
//! to an access: the kernel skips it and records one such index (axis and value) in a 16-byte
//! device record that the host reads back in one copy, so the caller can return
//! `Error::IndexOutOfRange`. Which bad index is reported when there are several is not
//! specified on the GPU.

use crate::array::Array;
use crate::backend::cuda::codegen::{storage_ty, PRELUDE};
use crate::backend::cuda::launch::{dev_of, dptr, Params, THREADS};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// Most index arrays one gather or scatter launch takes (`a[i0, ..., i15]`).
pub(crate) const MAX_K: usize = 16;
/// Most dimensions of a `take_along_axis` launch.
pub(crate) const MAX_ND: usize = 16;
/// Dynamic shared memory for per-block bins of `bincount`/`histogram` (the default limit).
const SHARED_BINS_BYTES: usize = 48 * 1024;

/// Identity of one generated kernel of this family.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum IndexKey {
    /// `out[o, t, c] = src[o, pos(t), c]` in words of `word` bytes, index arrays of `idx`,
    /// with the range check fused in.
    Gather { word: u8, idx: DType },
    /// Range check of index arrays only (before a scatter, so nothing is written on error).
    Check { idx: DType },
    /// `dst[pos(r), c] = vals[(r, c) mod nvals]` in words of `word` bytes (scatter and put).
    /// `claim`: 0 every row writes (distinct indices); 1 or 2, only the row that [`Claim`]ed
    /// its place, the last one (1: a table over the places of `dst`, 2: a hash table).
    ///
    /// [`Claim`]: IndexKey::Claim
    Scatter { word: u8, idx: DType, claim: u8 },
    /// The last row writing to each place: `atomicMax` of the row number + 1 per place
    /// (`hashed`: in an open-addressing table of (place + 1, row + 1) pairs).
    Claim { idx: DType, hashed: bool },
    /// `dst[pos(r), c] += vals[r, c]` with atomics (NumPy's `add.at`) for elements of `dtype`.
    ScatterAdd { dtype: DType, idx: DType },
    /// `take_along_axis` over strided (possibly broadcast) source and index arrays.
    TakeAlong { word: u8, idx: DType },
    /// One binary search per query in a sorted 1-d array of `dtype` (NumPy's order, NaN last).
    Search { dtype: DType, right: bool },
    /// Counts (int64) or float64 weight sums of the values of `x` (non-negative integers).
    Bincount { x: DType, weighted: bool },
    /// Histogram of `x` over equal bins (NumPy's formula) or edges (binary search).
    Histogram { x: DType, uniform: bool, weighted: bool },
}

/// C type of a raw word of `word` bytes.
fn word_ty(word: u8) -> &'static str {
    match word {
        1 => "u8",
        2 => "u16",
        4 => "u32",
        8 => "u64",
        _ => "W16",
    }
}

/// Shared definitions of the kernels that read index arrays of dtype `idx`.
fn idx_prelude(idx: DType) -> String {
    let it = storage_ty(idx);
    let norm = if idx.is_unsigned_int() || idx == DType::Bool {
        // Unsigned: no wrap-around from the end; anything >= len is out of range.
        "unsigned long long u = (unsigned long long)v; if (u >= (unsigned long long)len) return false; *j = (long long)u; return true;"
    } else {
        "long long s = (long long)v; if (s < 0) s += len; if (s < 0 || s >= len) return false; *j = s; return true;"
    };
    format!(
        r#"{PRELUDE}
struct __align__(16) W16 {{ u64 a, b; }};
typedef {it} IT;
#define MAXK {MAX_K}
struct Idx {{ long long k; long long ptr[MAXK]; long long len[MAXK]; }};
// Index value v normalised against an axis of length len (negative values count from the end).
__device__ __forceinline__ bool norm_index(IT v, long long len, long long* j) {{ {norm} }}
// Records one out-of-range index: err[0] = axis + 1, err[1] = the value (first writer wins).
__device__ void report(unsigned long long* err, long long axis, long long v) {{
  if (*(volatile unsigned long long*)err == 0ULL && atomicCAS(err, 0ULL, (unsigned long long)(axis + 1)) == 0ULL)
    err[1] = (unsigned long long)v;
}}
// The row (C order over the indexed axes) that entry r of the index arrays selects, or -1.
__device__ __forceinline__ long long row_pos(const Idx& I, long long r, unsigned long long* err) {{
  long long p = 0;
  for (int d = 0; d < (int)I.k; d++) {{
    IT v = ((const IT*)(unsigned long long)I.ptr[d])[r];
    long long j;
    if (!norm_index(v, I.len[d], &j)) {{ report(err, d, (long long)v); return -1; }}
    p = p * I.len[d] + j;
  }}
  return p;
}}
#define GRID_LOOP(i, n) for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long long)gridDim.x * blockDim.x)
"#
    )
}

/// The slot of place `p` in an open-addressing table of `2^bits` pairs (key p + 1, value),
/// zeroed before use; `insert` claims a free slot for it, else NULL when `p` is absent.
const PLACE_SLOT: &str = r#"__device__ unsigned long long* place_slot(unsigned long long* t, int bits, long long p, bool insert) {
  const unsigned long long key = (unsigned long long)p + 1ull, mask = (1ull << bits) - 1ull;
  unsigned long long h = (key * 0x9E3779B97F4A7C15ull) >> (64 - bits);
  for (;;) {
    unsigned long long* s = t + 2 * h;
    const unsigned long long k = insert ? atomicCAS(s, 0ull, key) : *(volatile unsigned long long*)s;
    if (k == key || (insert && k == 0ull)) return s;
    if (k == 0ull) return 0;
    h = (h + 1ull) & mask;
  }
}
"#;

/// `add_at(T* a, T v)`: an atomic `*a += v` with NumPy's result for `dtype`.
fn atomic_add_fn(dtype: DType) -> String {
    // Read-modify-write of a 1- or 2-byte lane inside its aligned 32-bit word.
    let cas = |mask: &str, lane: &str, new: &str| {
        format!(
            r#"__device__ __forceinline__ void add_at(T* a, T v) {{
  unsigned long long addr = (unsigned long long)a;
  unsigned int* w = (unsigned int*)(addr & ~3ULL);
  unsigned int sh = (unsigned int)(addr & {lane}) * 8u;
  unsigned int old = *w, assumed;
  do {{
    assumed = old;
    unsigned int cur = (assumed >> sh) & {mask};
    unsigned int nv = ({new}) & {mask};
    old = atomicCAS(w, assumed, (assumed & ~({mask} << sh)) | (nv << sh));
  }} while (old != assumed);
}}
"#
        )
    };
    match dtype {
        DType::Bool => "__device__ __forceinline__ void add_at(T* a, T v) { if (v) *(volatile bool*)a = true; }\n".into(),
        DType::Int8 | DType::UInt8 => cas("0xFFu", "3ULL", "cur + (unsigned int)(u8)v"),
        DType::Int16 | DType::UInt16 => cas("0xFFFFu", "2ULL", "cur + (unsigned int)(u16)v"),
        // float16: the exact sum (in double) rounded once, as the CPU backend computes it.
        DType::Float16 => cas("0xFFFFu", "2ULL", "(unsigned int)d2h((double)h2f((u16)cur) + (double)h2f(v))"),
        DType::Int32 => "__device__ __forceinline__ void add_at(T* a, T v) { atomicAdd((int*)a, (int)v); }\n".into(),
        DType::UInt32 => {
            "__device__ __forceinline__ void add_at(T* a, T v) { atomicAdd((unsigned int*)a, (unsigned int)v); }\n".into()
        }
        DType::Int64 | DType::UInt64 => "__device__ __forceinline__ void add_at(T* a, T v) { atomicAdd((unsigned long long*)a, (unsigned long long)v); }\n".into(),
        DType::Float32 => "__device__ __forceinline__ void add_at(T* a, T v) { atomicAdd((float*)a, (float)v); }\n".into(),
        DType::Float64 => "__device__ __forceinline__ void add_at(T* a, T v) { atomicAdd((double*)a, (double)v); }\n".into(),
    }
}

/// Expression loading a value stored as `dt` (named `x`) as a double.
fn load_f64(dt: DType, x: &str) -> String {
    match dt {
        DType::Float16 => format!("(double)h2f({x})"),
        _ => format!("(double)({x})"),
    }
}

/// Per-block bins in shared memory (or global atomics) around a loop that adds to bin `b`.
fn binned_kernel(name: &str, params: &str, xty: &str, weighted: bool, body: &str) -> String {
    let ot = if weighted { "double" } else { "unsigned long long" };
    let val = if weighted { "w[e]" } else { "1ULL" };
    format!(
        r#"typedef {xty} XT;
typedef {ot} OT;
extern "C" __global__ void __launch_bounds__(256) {name}(long long n, const XT* __restrict__ x, const double* __restrict__ w,
    OT* __restrict__ out, long long nb, int use_shared{params}) {{
  extern __shared__ unsigned long long smem[];
  OT* sh = (OT*)smem;
  if (use_shared) {{
    for (long long i = threadIdx.x; i < nb; i += blockDim.x) sh[i] = (OT)0;
    __syncthreads();
  }}
  GRID_LOOP(e, n) {{
    long long b;
{body}
    if (b < 0 || b >= nb) continue;
    OT inc = {val};
    if (use_shared) atomicAdd(&sh[b], inc); else atomicAdd(&out[b], inc);
  }}
  if (use_shared) {{
    __syncthreads();
    for (long long i = threadIdx.x; i < nb; i += blockDim.x) if (sh[i] != (OT)0) atomicAdd(&out[i], sh[i]);
  }}
}}
"#
    )
}

impl crate::backend::cuda::kernels::KernelKey for IndexKey {
    const FAMILY: &'static str = "indexing";
    fn entry(&self) -> &str {
        self.name()
    }
    fn source(&self) -> String {
        IndexKey::source(*self)
    }
}

impl IndexKey {
    /// The kernel function's name.
    pub fn name(self) -> &'static str {
        match self {
            IndexKey::Gather { .. } => "gather",
            IndexKey::Check { .. } => "check",
            IndexKey::Scatter { .. } => "scatter",
            IndexKey::Claim { .. } => "claim",
            IndexKey::ScatterAdd { .. } => "scatter_add",
            IndexKey::TakeAlong { .. } => "take_along",
            IndexKey::Search { .. } => "searchsorted",
            IndexKey::Bincount { .. } => "bincount",
            IndexKey::Histogram { .. } => "histogram",
        }
    }

    /// The module's CUDA C source.
    pub fn source(self) -> String {
        match self {
            IndexKey::Gather { word, idx } => format!(
                r#"{pre}
typedef {w} W;
extern "C" __global__ void __launch_bounds__(256) gather(long long total, long long nrows, long long rw, long long nsrc,
    const W* __restrict__ src, W* __restrict__ out, Idx I, unsigned long long* err) {{
  GRID_LOOP(e, total) {{
    long long t = e / rw, c = e - t * rw;
    long long o = t / nrows, r = t - o * nrows;
    long long p = row_pos(I, r, err);
    if (p >= 0) out[e] = src[(o * nsrc + p) * rw + c];
  }}
}}
"#,
                pre = idx_prelude(idx),
                w = word_ty(word)
            ),
            IndexKey::Check { idx } => format!(
                r#"{pre}
extern "C" __global__ void __launch_bounds__(256) check(long long nrows, Idx I, unsigned long long* err) {{
  GRID_LOOP(r, nrows) {{ row_pos(I, r, err); }}
}}
"#,
                pre = idx_prelude(idx)
            ),
            IndexKey::Scatter { word, idx, claim } => format!(
                r#"{pre}
#define CLAIM {claim}
{slot}
typedef {w} W;
extern "C" __global__ void __launch_bounds__(256) scatter(long long total, long long rw, long long nvals,
    W* dst, const W* __restrict__ vals, Idx I, unsigned long long* err, const unsigned long long* owner, int bits) {{
  GRID_LOOP(e, total) {{
    long long r = e / rw, c = e - r * rw;
    long long p = row_pos(I, r, err);
    if (p < 0) continue;
#if CLAIM == 1
    if (owner[p] != (unsigned long long)r + 1) continue;
#elif CLAIM == 2
    const unsigned long long* s = place_slot((unsigned long long*)owner, bits, p, false);
    if (!s || s[1] != (unsigned long long)r + 1) continue;
#endif
    dst[p * rw + c] = vals[nvals == total ? e : e % nvals];
  }}
}}
"#,
                pre = idx_prelude(idx),
                slot = PLACE_SLOT,
                w = word_ty(word)
            ),
            IndexKey::Claim { idx, hashed } => format!(
                r#"{pre}
{slot}
extern "C" __global__ void __launch_bounds__(256) claim(long long nrows, unsigned long long* owner, int bits, Idx I,
    unsigned long long* err) {{
  GRID_LOOP(r, nrows) {{
    long long p = row_pos(I, r, err);
    if (p < 0) continue;
#if {hashed}
    atomicMax(place_slot(owner, bits, p, true) + 1, (unsigned long long)r + 1);
#else
    atomicMax(owner + p, (unsigned long long)r + 1);
#endif
  }}
}}
"#,
                pre = idx_prelude(idx),
                slot = PLACE_SLOT,
                hashed = hashed as i32
            ),
            IndexKey::ScatterAdd { dtype, idx } => format!(
                r#"{pre}
typedef {t} T;
{add}
extern "C" __global__ void __launch_bounds__(256) scatter_add(long long total, long long row,
    T* dst, const T* __restrict__ vals, Idx I, unsigned long long* err) {{
  GRID_LOOP(e, total) {{
    long long r = e / row, c = e - r * row;
    long long p = row_pos(I, r, err);
    if (p >= 0) add_at(dst + (p * row + c), vals[e]);
  }}
}}
"#,
                pre = idx_prelude(idx),
                t = storage_ty(dtype),
                add = atomic_add_fn(dtype)
            ),
            IndexKey::TakeAlong { word, idx } => format!(
                r#"{pre}
typedef {w} W;
#define MAXND {MAX_ND}
struct TLay {{ long long nd; long long shape[MAXND]; long long ast[MAXND]; long long ist[MAXND]; }};
// out (C order, shape L.shape) = src[..., idx[...], ...]: src and idx are byte-strided views
// broadcast to the output's shape (src's stride along the axis is 0 in L.ast; axst is its own).
extern "C" __global__ void __launch_bounds__(256) take_along(long long total, long long alen, long long axst,
    const char* __restrict__ src, const char* __restrict__ idx, W* __restrict__ out, TLay L, unsigned long long* err) {{
  GRID_LOOP(e, total) {{
    long long rem = e, so = 0, io = 0;
    for (int d = (int)L.nd - 1; d >= 0; d--) {{
      long long n = L.shape[d];
      long long c = rem % n;
      rem /= n;
      so += c * L.ast[d];
      io += c * L.ist[d];
    }}
    IT v = *(const IT*)(idx + io);
    long long j;
    if (!norm_index(v, alen, &j)) {{ report(err, 0, (long long)v); continue; }}
    out[e] = *(const W*)(src + so + j * axst);
  }}
}}
"#,
                pre = idx_prelude(idx),
                w = word_ty(word)
            ),
            IndexKey::Search { dtype, right } => {
                let st = storage_ty(dtype);
                let (ct, load) = match dtype {
                    DType::Float16 => ("float", "h2f(v)"),
                    DType::Bool => ("int", "(int)v"),
                    _ => (st, "v"),
                };
                let lt = if dtype.is_float() {
                    // NumPy's order: NaN after everything, NaN == NaN.
                    "return a < b || (b != b && a == a);"
                } else {
                    "return a < b;"
                };
                let pred = if right { "!lt(x, s)" } else { "lt(s, x)" };
                format!(
                    r#"{PRELUDE}
typedef {st} ST;
typedef {ct} CT;
__device__ __forceinline__ CT ld(ST v) {{ return {load}; }}
__device__ __forceinline__ bool lt(CT a, CT b) {{ {lt} }}
extern "C" __global__ void __launch_bounds__(256) searchsorted(long long n, const ST* __restrict__ sorted, long long nq,
    const ST* __restrict__ q, long long* __restrict__ out) {{
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nq; i += (long long)gridDim.x * blockDim.x) {{
    CT x = ld(q[i]);
    long long lo = 0, hi = n;
    while (lo < hi) {{
      long long mid = lo + ((hi - lo) >> 1);
      CT s = ld(sorted[mid]);
      if ({pred}) lo = mid + 1; else hi = mid;
    }}
    out[i] = lo;
  }}
}}
"#
                )
            }
            IndexKey::Bincount { x, weighted } => {
                let body = "    b = (long long)x[e];";
                format!(
                    "{PRELUDE}\n#define GRID_LOOP(i, n) for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long long)gridDim.x * blockDim.x)\n{}",
                    binned_kernel("bincount", "", storage_ty(x), weighted, body)
                )
            }
            IndexKey::Histogram { x, uniform, weighted } => {
                let v = load_f64(x, "x[e]");
                let body = if uniform {
                    // NumPy's equal bins: the estimate from the formula, then one correction
                    // step against the edges on each side.
                    format!(
                        r#"    double v = {v};
    if (!(v >= lo && v <= hi)) continue;
    b = (long long)(((v - lo) / denom) * (double)nb);
    if (b >= nb) b = nb - 1;
    if (b < 0) b = 0;
    if (v < edges[b]) b -= 1;
    if (b < 0) b = 0;
    if (b != nb - 1 && v >= edges[b + 1]) b += 1;"#
                    )
                } else {
                    // The last edge <= v (the right edge belongs to the last bin).
                    format!(
                        r#"    double v = {v};
    if (!(v >= lo && v <= hi)) continue;
    if (v == hi) {{
      b = nb - 1;
    }} else {{
      long long l = 0, h = nb + 1;
      while (l < h) {{ long long m = l + ((h - l) >> 1); if (edges[m] <= v) l = m + 1; else h = m; }}
      b = l - 1;
    }}"#
                    )
                };
                format!(
                    "{PRELUDE}\n#define GRID_LOOP(i, n) for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long long)gridDim.x * blockDim.x)\n{}",
                    binned_kernel(
                        "histogram",
                        ", const double* __restrict__ edges, double lo, double hi, double denom",
                        storage_ty(x),
                        weighted,
                        &body
                    )
                )
            }
        }
    }

    /// Every kernel of the family (for tests of the generated sources).
    #[cfg(test)]
    pub fn all() -> Vec<IndexKey> {
        use crate::core::dtype::ALL_DTYPES;
        let ints: Vec<DType> = ALL_DTYPES.iter().copied().filter(|d| d.is_integer()).collect();
        let mut v = Vec::new();
        for &idx in &ints {
            for word in [1u8, 2, 4, 8, 16] {
                v.push(IndexKey::Gather { word, idx });
                for claim in 0..3 {
                    v.push(IndexKey::Scatter { word, idx, claim });
                }
            }
            for word in [1u8, 2, 4, 8] {
                v.push(IndexKey::TakeAlong { word, idx });
            }
            v.push(IndexKey::Check { idx });
            v.push(IndexKey::Claim { idx, hashed: false });
            v.push(IndexKey::Claim { idx, hashed: true });
            for &dtype in ALL_DTYPES.iter() {
                v.push(IndexKey::ScatterAdd { dtype, idx });
            }
        }
        for &dtype in ALL_DTYPES.iter() {
            for right in [false, true] {
                v.push(IndexKey::Search { dtype, right });
            }
            for weighted in [false, true] {
                if dtype.is_integer() || dtype == DType::Bool {
                    v.push(IndexKey::Bincount { x: dtype, weighted });
                }
                for uniform in [false, true] {
                    v.push(IndexKey::Histogram { x: dtype, uniform, weighted });
                }
            }
        }
        v
    }
}

// -------------------------------------------------------------------------------- launches

/// A bad index found by a kernel: the position of its index array (or 0) and its value.
pub(crate) type BadIndex = Option<(usize, i64)>;

/// The largest word (16, 8, 4, 2 or 1 bytes) that divides `row_bytes` and every address.
pub(crate) fn word_for(row_bytes: usize, ptrs: &[u64]) -> u8 {
    for w in [16u64, 8, 4, 2] {
        if (row_bytes as u64).is_multiple_of(w) && ptrs.iter().all(|p| p.is_multiple_of(w)) {
            return w as u8;
        }
    }
    1
}

/// Zeroed 16-byte out-of-range record on `like`'s device.
fn err_record(like: &Array) -> Result<Array> {
    Array::alloc(&[2], DType::UInt64, like.device(), true)
}

/// Reads the out-of-range record back (one 16-byte copy; waits for the kernels before it).
fn read_err(rec: &Array) -> Result<BadIndex> {
    let dev = dev_of(rec)?;
    let mut b = [0u8; 16];
    dev.dtoh(&mut b, dptr(rec)?, false)?;
    let axis = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
    let value = i64::from_le_bytes(b[8..].try_into().expect("8 bytes"));
    Ok(if axis == 0 { None } else { Some((axis as usize - 1, value)) })
}

/// The `Idx` struct of the kernels: count, pointers, axis lengths. The index arrays must be
/// C-contiguous, of one integer dtype, with one entry per row.
fn idx_words(idx: &[&Array], lens: &[usize]) -> Result<([i64; 1 + 2 * MAX_K], DType)> {
    if idx.is_empty() || idx.len() > MAX_K || idx.len() != lens.len() {
        return Err(Error::InvalidArgument(format!("{} index arrays for one GPU launch (1 to {MAX_K})", idx.len())));
    }
    let dt = idx[0].dtype();
    let mut w = [0i64; 1 + 2 * MAX_K];
    w[0] = idx.len() as i64;
    for (d, (i, &len)) in idx.iter().zip(lens).enumerate() {
        if i.dtype() != dt || !i.is_c_contiguous() {
            return Err(Error::InvalidArgument("GPU index arrays must be contiguous and of one dtype".into()));
        }
        w[1 + d] = dptr(i)? as i64;
        w[1 + MAX_K + d] = len as i64;
    }
    Ok((w, dt))
}

/// `out[o, t, :] = src[o, pos(t), :]` for `o < outer` and the `nrows` rows `t` the index arrays
/// select among the `nsrc` rows of `src` (C-contiguous, rows of `row_bytes`); `out` is
/// C-contiguous. Waits for the kernel and returns the bad index, if any.
pub(crate) fn gather(
    src: &Array,
    idx: &[&Array],
    lens: &[usize],
    outer: usize,
    nsrc: usize,
    row_bytes: usize,
    out: &Array,
) -> Result<BadIndex> {
    let dev = dev_of(out)?;
    let nrows = idx[0].size();
    let rec = err_record(out)?;
    let (iw, idt) = idx_words(idx, lens)?;
    if nrows == 0 {
        return Ok(None);
    }
    if row_bytes == 0 || outer == 0 {
        return check_into(idx, lens, &rec).and_then(|_| read_err(&rec));
    }
    let word = word_for(row_bytes, &[dptr(src)?, dptr(out)?]);
    let rw = row_bytes / word as usize;
    let total = outer * nrows * rw;
    let k = dev.kernel(&IndexKey::Gather { word, idx: idt })?;
    let mut p = Params::new();
    p.push(total as i64);
    p.push(nrows as i64);
    p.push(rw as i64);
    p.push(nsrc as i64);
    p.push(dptr(src)?);
    p.push(dptr(out)?);
    p.push_i64s(&iw);
    p.push(dptr(&rec)?);
    // SAFETY: the parameters match the `gather` source; every array outlives the launch (the
    // pool reuses memory only in stream order) and the record is read after it.
    unsafe { p.launch(&dev, &k, dev.grid_for(total, THREADS as usize), THREADS)? };
    read_err(&rec)
}

fn check_into(idx: &[&Array], lens: &[usize], rec: &Array) -> Result<()> {
    let dev = dev_of(rec)?;
    let nrows = idx[0].size();
    let (iw, idt) = idx_words(idx, lens)?;
    if nrows == 0 {
        return Ok(());
    }
    let k = dev.kernel(&IndexKey::Check { idx: idt })?;
    let mut p = Params::new();
    p.push(nrows as i64);
    p.push_i64s(&iw);
    p.push(dptr(rec)?);
    // SAFETY: the parameters match the `check` source.
    unsafe { p.launch(&dev, &k, dev.grid_for(nrows, THREADS as usize), THREADS) }
}

/// Checks every index against its axis length (waits; returns the bad index, if any).
pub(crate) fn check(idx: &[&Array], lens: &[usize]) -> Result<BadIndex> {
    let rec = err_record(idx[0])?;
    check_into(idx, lens, &rec)?;
    read_err(&rec)
}

/// `dst[pos(r), :] = vals[r, :]` for the rows `r` the (checked) index arrays select; `dst` and
/// `vals` are C-contiguous with rows of `row_bytes`. With `cycle = Some(m)` (`put`: rows of
/// one element) the values repeat every `m` elements. With `last_wins`, a place that several
/// rows select gets the last one's values, as in NumPy (a first kernel finds the last row of
/// each place); without, the indices must be distinct. Does not wait.
pub(crate) fn scatter(
    dst: &Array,
    idx: &[&Array],
    lens: &[usize],
    row_bytes: usize,
    vals: &Array,
    cycle: Option<usize>,
    last_wins: bool,
) -> Result<()> {
    let dev = dev_of(dst)?;
    let nrows = idx[0].size();
    let (iw, idt) = idx_words(idx, lens)?;
    if nrows == 0 || row_bytes == 0 {
        return Ok(());
    }
    let word = if cycle.is_some() { dst.itemsize() as u8 } else { word_for(row_bytes, &[dptr(dst)?, dptr(vals)?]) };
    let rw = row_bytes / word as usize;
    let total = nrows * rw;
    let nvals = cycle.unwrap_or(total);
    if nvals == 0 {
        return Err(Error::InvalidArgument("scatter: no values".into()));
    }
    let rec = err_record(dst)?;
    // The owner of each place: a word per place of `dst` when those are not many more than
    // the rows, else a hash table of twice the rows' size (a power of two).
    let places = dst.size() * dst.itemsize() / row_bytes;
    let claim: u8 = if !last_wins || nrows < 2 {
        0
    } else if places <= 2 * nrows + (1 << 20) {
        1
    } else {
        2
    };
    let (owner, bits) = match claim {
        0 => (None, 0),
        1 => (Some(places * 8), 0),
        _ => {
            let slots = (2 * nrows).next_power_of_two();
            (Some(slots * 16), slots.trailing_zeros() as i32)
        }
    };
    let owner = match owner {
        Some(bytes) => {
            let t = Array::alloc(&[bytes], DType::UInt8, dst.device(), false)?;
            dev.memset_zero(dptr(&t)?, bytes)?;
            let k = dev.kernel(&IndexKey::Claim { idx: idt, hashed: claim == 2 })?;
            let mut p = Params::new();
            p.push(nrows as i64);
            p.push(dptr(&t)?);
            p.push(bits);
            p.push_i64s(&iw);
            p.push(dptr(&rec)?);
            // SAFETY: the parameters match the `claim` source; `t` lives until the scatter ran.
            unsafe { p.launch(&dev, &k, dev.grid_for(nrows, THREADS as usize), THREADS)? };
            Some(t)
        }
        None => None,
    };
    let k = dev.kernel(&IndexKey::Scatter { word, idx: idt, claim })?;
    let mut p = Params::new();
    p.push(total as i64);
    p.push(rw as i64);
    p.push(nvals as i64);
    p.push(dptr(dst)?);
    p.push(dptr(vals)?);
    p.push_i64s(&iw);
    p.push(dptr(&rec)?);
    p.push(owner.as_ref().map(dptr).transpose()?.unwrap_or(0));
    p.push(bits);
    // SAFETY: the parameters match the `scatter` source; arrays live until the stream ran it.
    unsafe { p.launch(&dev, &k, dev.grid_for(total, THREADS as usize), THREADS) }
}

/// `dst[pos(r), c] += vals[r, c]` (atomics; rows of `row` elements of `dst`'s dtype; `dst` and
/// `vals` C-contiguous, indices checked). Does not wait.
pub(crate) fn scatter_add(dst: &Array, idx: &[&Array], lens: &[usize], row: usize, vals: &Array) -> Result<()> {
    let dev = dev_of(dst)?;
    let nrows = idx[0].size();
    let (iw, idt) = idx_words(idx, lens)?;
    let total = nrows * row;
    if total == 0 {
        return Ok(());
    }
    let rec = err_record(dst)?;
    let k = dev.kernel(&IndexKey::ScatterAdd { dtype: dst.dtype(), idx: idt })?;
    let mut p = Params::new();
    p.push(total as i64);
    p.push(row as i64);
    p.push(dptr(dst)?);
    p.push(dptr(vals)?);
    p.push_i64s(&iw);
    p.push(dptr(&rec)?);
    // SAFETY: the parameters match the `scatter_add` source.
    unsafe { p.launch(&dev, &k, dev.grid_for(total, THREADS as usize), THREADS) }
}

/// `take_along_axis`: `out` (C-contiguous, shape `shape`) from `src` and `idx`, views already
/// broadcast to `shape` except along `axis` (where `src` has `alen` entries). Waits; returns
/// the bad index value, if any.
pub(crate) fn take_along(src: &Array, idx: &Array, axis: usize, alen: usize, out: &Array) -> Result<Option<i64>> {
    let dev = dev_of(out)?;
    let total = out.size();
    let nd = out.ndim();
    if nd > MAX_ND || src.ndim() != nd || idx.ndim() != nd {
        return Err(Error::NotImplemented(format!(
            "take_along_axis over {nd} dimensions on the GPU (at most {MAX_ND})"
        )));
    }
    if total == 0 {
        return Ok(None);
    }
    let mut lay = [0i64; 1 + 3 * MAX_ND];
    lay[0] = nd as i64;
    for d in 0..nd {
        lay[1 + d] = out.shape()[d] as i64;
        lay[1 + MAX_ND + d] = if d == axis { 0 } else { src.strides()[d] as i64 };
        lay[1 + 2 * MAX_ND + d] = idx.strides()[d] as i64;
    }
    let word = src.itemsize() as u8;
    let rec = err_record(out)?;
    let k = dev.kernel(&IndexKey::TakeAlong { word, idx: idx.dtype() })?;
    let mut p = Params::new();
    p.push(total as i64);
    p.push(alen as i64);
    p.push(src.strides()[axis] as i64);
    p.push(dptr(src)?);
    p.push(dptr(idx)?);
    p.push(dptr(out)?);
    p.push_i64s(&lay);
    p.push(dptr(&rec)?);
    // SAFETY: the parameters match the `take_along` source; offsets stay inside the views.
    unsafe { p.launch(&dev, &k, dev.grid_for(total, THREADS as usize), THREADS)? };
    Ok(read_err(&rec)?.map(|(_, v)| v))
}

/// `out[i]` = insertion index of `q[i]` in the sorted `sorted` (both C-contiguous of one
/// dtype; `out` int64). Does not wait.
pub(crate) fn searchsorted(sorted: &Array, q: &Array, right: bool, out: &Array) -> Result<()> {
    let dev = dev_of(out)?;
    let nq = q.size();
    if nq == 0 {
        return Ok(());
    }
    let k = dev.kernel(&IndexKey::Search { dtype: sorted.dtype(), right })?;
    let mut p = Params::new();
    p.push(sorted.size() as i64);
    p.push(dptr(sorted)?);
    p.push(nq as i64);
    p.push(dptr(q)?);
    p.push(dptr(out)?);
    // SAFETY: the parameters match the `searchsorted` source.
    unsafe { p.launch(&dev, &k, dev.grid_for(nq, THREADS as usize), THREADS) }
}

/// Launch shape of a binned kernel: grid, whether bins live in shared memory, its bytes.
fn binned_launch(dev: &crate::backend::cuda::CudaDevice, n: usize, nb: usize) -> (u32, bool, u32) {
    let shared = nb * 8 <= SHARED_BINS_BYTES;
    if shared {
        // Few blocks: each zeroes and flushes all its bins.
        let grid = n.div_ceil(THREADS as usize * 16).clamp(1, dev.sm_count as usize * 2) as u32;
        (grid, true, (nb * 8) as u32)
    } else {
        (dev.grid_for(n, THREADS as usize), false, 0)
    }
}

/// The parameters every binned kernel (`binned_kernel`) starts with: n, x, w (or null), out,
/// the number of bins, whether the bins are in shared memory.
fn binned_params(x: &Array, w: Option<&Array>, out: &Array, shared: bool) -> Result<Params> {
    let mut p = Params::new();
    p.push(x.size() as i64);
    p.push(dptr(x)?);
    p.push(w.map(dptr).transpose()?.unwrap_or(0));
    p.push(dptr(out)?);
    p.push(out.size() as i64);
    p.push(shared as i32);
    Ok(p)
}

/// Adds the counts (or `w`'s float64 weights) of the values of `x` (C-contiguous, all in
/// `[0, nb)`) into the zeroed `out` (`nb` int64 or float64). Does not wait.
pub(crate) fn bincount(x: &Array, w: Option<&Array>, out: &Array) -> Result<()> {
    let dev = dev_of(out)?;
    let n = x.size();
    let nb = out.size();
    if n == 0 || nb == 0 {
        return Ok(());
    }
    let k = dev.kernel(&IndexKey::Bincount { x: x.dtype(), weighted: w.is_some() })?;
    let (grid, shared, shmem) = binned_launch(&dev, n, nb);
    let p = binned_params(x, w, out, shared)?;
    // SAFETY: the parameters match the `bincount` source; `shmem` holds `nb` 8-byte bins.
    unsafe { p.launch_shmem(&dev, &k, grid, THREADS, shmem) }
}

/// Adds the histogram of `x` (C-contiguous) over `edges` (float64, `nb + 1` values on the
/// device) into the zeroed `out` (`nb` int64 counts or float64 sums of `w`). `uniform` uses
/// NumPy's formula for equal bins between `lo` and `hi`. Does not wait.
pub(crate) fn histogram(
    x: &Array,
    w: Option<&Array>,
    edges: &Array,
    uniform: bool,
    lo: f64,
    hi: f64,
    out: &Array,
) -> Result<()> {
    let dev = dev_of(out)?;
    let n = x.size();
    let nb = out.size();
    if n == 0 || nb == 0 {
        return Ok(());
    }
    let key = IndexKey::Histogram { x: x.dtype(), uniform, weighted: w.is_some() };
    let k = dev.kernel(&key)?;
    let (grid, shared, shmem) = binned_launch(&dev, n, nb);
    let mut p = binned_params(x, w, out, shared)?;
    p.push(dptr(edges)?);
    p.push(lo);
    p.push(hi);
    p.push(hi - lo);
    // SAFETY: the parameters match the `histogram` source; `shmem` holds `nb` 8-byte bins.
    unsafe { p.launch_shmem(&dev, &k, grid, THREADS, shmem) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_kernel_source_is_generated() {
        let keys = IndexKey::all();
        assert!(keys.len() > 300);
        for k in keys {
            let src = k.source();
            let name = k.name();
            assert!(src.starts_with(PRELUDE), "{k:?}: starts with the prelude");
            assert!(
                src.contains(&format!("extern \"C\" __global__ void __launch_bounds__(256) {name}(")),
                "{k:?}: kernel"
            );
            assert_eq!(src.matches("extern \"C\"").count(), 1, "{k:?}: one kernel per module");
            // Balanced braces and parentheses (a cheap syntax check without NVRTC).
            let count = |c: char| src.chars().filter(|&x| x == c).count();
            assert_eq!(count('{'), count('}'), "{k:?}: braces\n{src}");
            assert_eq!(count('('), count(')'), "{k:?}: parentheses\n{src}");
            assert!(!src.contains("{{") || src.contains("\"{{"), "{k:?}: unformatted braces\n{src}");
            // 64-bit loop indices everywhere.
            assert!(!src.contains("int i = blockIdx"), "{k:?}: 32-bit loop index");
        }
    }

    #[test]
    fn index_kernels_use_the_right_atomics() {
        let add = |d| IndexKey::ScatterAdd { dtype: d, idx: DType::Int64 }.source();
        assert!(add(DType::Float32).contains("atomicAdd((float*)a"));
        assert!(add(DType::Float64).contains("atomicAdd((double*)a"));
        assert!(add(DType::Int64).contains("atomicAdd((unsigned long long*)a"));
        assert!(add(DType::UInt32).contains("atomicAdd((unsigned int*)a"));
        for d in [DType::Int8, DType::UInt8, DType::Int16, DType::UInt16, DType::Float16] {
            assert!(add(d).contains("atomicCAS(w, assumed"), "{d}: CAS loop");
        }
        assert!(add(DType::Float16).contains("d2h("));
        assert!(add(DType::Bool).contains("= true"));
        // Unsigned index arrays never wrap from the end.
        let g = IndexKey::Gather { word: 4, idx: DType::UInt64 }.source();
        assert!(g.contains("u >= (unsigned long long)len"));
        let g = IndexKey::Gather { word: 16, idx: DType::Int8 }.source();
        assert!(g.contains("typedef W16 W;") && g.contains("s += len"));
        let s = IndexKey::Search { dtype: DType::Float16, right: true }.source();
        assert!(s.contains("h2f(v)") && s.contains("!lt(x, s)") && s.contains("b != b"));
        let h = IndexKey::Histogram { x: DType::Int32, uniform: true, weighted: true }.source();
        assert!(h.contains("((v - lo) / denom) * (double)nb") && h.contains("typedef double OT;"));
    }

    #[test]
    fn words_divide_rows_and_addresses() {
        assert_eq!(word_for(64, &[0, 512]), 16);
        assert_eq!(word_for(12, &[0, 512]), 4);
        assert_eq!(word_for(16, &[8, 512]), 8);
        assert_eq!(word_for(6, &[0, 2]), 2);
        assert_eq!(word_for(3, &[0, 0]), 1);
    }
}
