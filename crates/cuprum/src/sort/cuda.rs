//! GPU sorting and selection, generated per dtype:
//!
//! - an LSD **radix sort** of 8-bit digits in the "onesweep" style: one kernel counts the
//!   digits of every pass in one read of the keys (`rs_hist`; byte counters per digit and
//!   lane, so a warp's shared atomics hit 32 banks), then each pass is a single kernel
//!   (`rs_pass`) in which a block counts the digits of its tile of keys and publishes them at
//!   once, ranks the keys (warp-level ballot or match ranking into per-warp counters), finds
//!   its offsets by decoupled look-back over the preceding tiles (which published early, so it
//!   rarely waits) and a scan of the pass's digit counts, then writes the tile out through
//!   shared memory in runs of equal digits. Keys are mapped to order-preserving unsigned
//!   integers (floats: sign-flip, NaNs to the top, so they sort last as in NumPy) on the first
//!   pass and back on the last. Values (int64 indices, generated on the first pass) ride along
//!   for `argsort`; several lanes (a sort along an axis) are sorted by extra passes over the
//!   lane number, which is derived from the index value.
//! - a **radix select** (`sel_pass`) for quantiles of one lane: 8-bit digits from the top,
//!   a histogram per level restricted to the keys that match the digits found so far, for the
//!   two order statistics that a quantile needs at once; from the second level on, only the
//!   matching keys are read (they are compacted as the level runs). The last block of each
//!   level picks the next digits; once the candidates fit in shared memory, one block finishes
//!   the remaining levels alone. The quantile is computed on the device: nothing comes back to
//!   the host.
//! - `qpick`: quantiles of lanes already sorted (for quantiles along an axis).

use crate::array::Array;
use crate::backend::cuda::codegen::{storage_ty, PRELUDE};
use crate::backend::cuda::launch::{dev_of, dptr, Params};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// Threads per block of the sort kernels and items per thread: a tile of 4096 keys.
const RS_THREADS: u32 = 256;
const RS_ITEMS: usize = 16;
const RS_TILE: usize = RS_THREADS as usize * RS_ITEMS;
/// Tiles whose status words the look-back reads in one round trip.
const RS_LOOKBACK: usize = 4;
/// Blocks an SM of the counting kernel and of the selection's first levels; levels after
/// the third launch fewer (they usually find the selection finished by the one-block tail).
const HIST_BLOCKS_PER_SM: u32 = 4;
const SEL_BLOCKS_PER_SM: u32 = 4;
const SEL_LATE_BLOCKS_PER_SM: u32 = 2;
/// Threads per block of the selection kernel.
const SEL_THREADS: u32 = 256;

/// Identity of one generated kernel of this family.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SortKey {
    /// Digit counts of every pass (key digits, then lane digits), exclusive-scanned.
    Hist { dt: DType, canon: bool },
    /// One radix pass. `first`: read the input dtype (and generate index values); `last`:
    /// write keys in the input dtype (`out_keys`) and/or the values (`out_vals`).
    Pass { dt: DType, canon: bool, first: bool, last: bool, vals: bool, out_keys: bool, out_vals: bool },
    /// One level of the radix select for a quantile; `out` is the result's dtype.
    Select { dt: DType, out: DType },
    /// Quantiles of sorted lanes.
    Pick { dt: DType, out: DType },
}

impl crate::backend::cuda::kernels::KernelKey for SortKey {
    const FAMILY: &'static str = "sort";
    fn entry(&self) -> &str {
        self.name()
    }
    fn source(&self) -> String {
        SortKey::source(*self)
    }
}

impl SortKey {
    /// The kernel function's name.
    pub fn name(self) -> &'static str {
        match self {
            SortKey::Hist { .. } => "rs_hist",
            SortKey::Pass { .. } => "rs_pass",
            SortKey::Select { .. } => "sel_pass",
            SortKey::Pick { .. } => "qpick",
        }
    }

    /// The module's CUDA C source.
    pub fn source(self) -> String {
        match self {
            SortKey::Hist { dt, canon } => {
                let mut s = key_prelude(dt, canon);
                s.push_str(HIST_SRC);
                s
            }
            SortKey::Pass { dt, canon, first, last, vals, out_keys, out_vals } => {
                let mut s = key_prelude(dt, canon);
                for (name, on) in
                    [("FIRST", first), ("LAST", last), ("VALS", vals), ("OUTK", out_keys), ("OUTV", out_vals)]
                {
                    s.push_str(&format!("#define {name} {}\n", on as i32));
                }
                s.push_str(
                    &PASS_SRC.replace("@ITEMS@", &RS_ITEMS.to_string()).replace("@LB@", &RS_LOOKBACK.to_string()),
                );
                s
            }
            SortKey::Select { dt, out } => {
                let mut s = key_prelude(dt, true);
                s.push_str(&quantile_prelude(dt, out));
                s.push_str(SELECT_SRC);
                s
            }
            SortKey::Pick { dt, out } => {
                let mut s = key_prelude(dt, false);
                s.push_str(&quantile_prelude(dt, out));
                s.push_str(PICK_SRC);
                s
            }
        }
    }
}

/// Width in bytes of the unsigned sort key of a dtype.
fn key_bytes(dt: DType) -> usize {
    dt.itemsize()
}

/// Types and the order-preserving key map of `dt`: `K` (unsigned key), `X` (storage),
/// `tokey`, `fromkey`, `is_nan_key`, `todouble`. With `canon`, -0.0 maps to the key of +0.0
/// (NumPy orders them as equal, so a stable sort keeps them in input order).
fn key_prelude(dt: DType, canon: bool) -> String {
    let k = match key_bytes(dt) {
        1 => "u8",
        2 => "u16",
        4 => "u32",
        _ => "u64",
    };
    let x = storage_ty(dt);
    let bits = key_bytes(dt) * 8;
    let sign = format!("(({k})1 << {})", bits - 1);
    let (tokey, fromkey, nan, todouble) = match dt {
        DType::Float16 | DType::Float32 | DType::Float64 => {
            let (bitsof, frombits, expmask, tod) = match dt {
                DType::Float16 => ("x", "k", "0x7c00", "(double)h2f(v)"),
                DType::Float32 => ("__float_as_uint(x)", "__uint_as_float(k)", "0x7f800000u", "(double)v"),
                _ => {
                    ("(u64)__double_as_longlong(x)", "__longlong_as_double((long long)k)", "0x7ff0000000000000ull", "v")
                }
            };
            let canon_line = if canon { "if ((b & ~S) == 0) b = 0;" } else { "" };
            (
                format!(
                    "K b = (K){bitsof}; if ((b & ~S) > (K){expmask}) return (K)~(K)0; {canon_line} return (b & S) ? (K)~b : (K)(b | S);"
                ),
                format!("K k = (kk & S) ? (K)(kk ^ S) : (K)~kk; return {frombits};"),
                "return k == (K)~(K)0;".to_string(),
                format!("return {tod};"),
            )
        }
        DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => (
            "return (K)((K)x ^ S);".to_string(),
            "return (X)(K)(kk ^ S);".to_string(),
            "return false;".to_string(),
            "return (double)v;".to_string(),
        ),
        _ => (
            "return (K)x;".to_string(),
            "return (X)kk;".to_string(),
            "return false;".to_string(),
            "return (double)v;".to_string(),
        ),
    };
    format!(
        "{PRELUDE}
typedef {k} K;
typedef {x} X;
#define KBITS {bits}
#define S {sign}
__device__ __forceinline__ K tokey(X x) {{ {tokey} }}
__device__ __forceinline__ X fromkey(K kk) {{ {fromkey} }}
__device__ __forceinline__ bool is_nan_key(K k) {{ {nan} }}
__device__ __forceinline__ double todouble(X v) {{ {todouble} }}
"
    )
}

/// The quantile formula of the CPU backend (`sorting::quantile_impl`), on the device:
/// `qvalue(get, nvalid, q, method, out)` with `get(i)` the i-th order statistic.
fn quantile_prelude(dt: DType, out: DType) -> String {
    let ot = storage_ty(out);
    let store = crate::backend::cuda::codegen::store_cvt(DType::Float64, out, "r");
    let nan_store = match out {
        DType::Float16 => "0x7e00",
        DType::Float32 => "__int_as_float(0x7fc00000)",
        DType::Float64 => "__longlong_as_double(0x7ff8000000000000ll)",
        _ => "(O)0",
    };
    let keeps_same = out == dt;
    format!(
        "typedef {ot} O;
#define KEEPS_SAME {ks}
#define MEAN_F32 {mf}
__device__ __forceinline__ O qnan() {{ return {nan_store}; }}
__device__ __forceinline__ O qstore(double r) {{ return {store}; }}
// NumPy's `_lerp`: exact at t = 1.
__device__ __forceinline__ double qlerp(double a, double b, double t) {{
  double d = b - a; return t >= 0.5 ? b - d * (1.0 - t) : a + d * t; }}
// The two order statistics (0-based, among `nv` valid values) that a quantile needs.
__device__ __forceinline__ void qranks(long long nv, double q, int method, long long* k0, long long* k1) {{
  double vi = q * (double)(nv - 1);
  long long lo = (long long)floor(vi), hi = (long long)ceil(vi);
  if (hi > nv - 1) hi = nv - 1;
  if (method == 1) {{ hi = lo; }}
  else if (method == 2) {{ lo = hi; }}
  else if (method == 3) {{ long long r = (long long)rint(vi); if (r > nv - 1) r = nv - 1; lo = hi = r; }}
  *k0 = lo; *k1 = hi;
}}
// The quantile from the order statistics x0 (rank k0) and x1 (rank k1).
__device__ __forceinline__ O qvalue(X x0, X x1, long long nv, double q, int method) {{
  double vi = q * (double)(nv - 1);
  double a = todouble(x0), b = todouble(x1);
  if (method == 0) {{ double r = qlerp(a, b, vi - floor(vi)); return qstore(r); }}
  if (method == 4) {{ double r = (a + b) / 2.0; return qstore(r); }}
  // median: NumPy's mean of the middle element(s), in float32 for float16/float32 data.
  if (method == 5) {{
    if (floor(vi) == ceil(vi)) return qstore(a);
#if MEAN_F32
    {{ double r = (double)(((float)a + (float)b) / 2.0f); return qstore(r); }}
#else
    {{ double r = (a + b) / 2.0; return qstore(r); }}
#endif
  }}
#if KEEPS_SAME
  return (O)x0;
#else
  {{ double r = a; return qstore(r); }}
#endif
}}
",
        ks = keeps_same as i32,
        mf = matches!(dt, DType::Float16 | DType::Float32) as i32
    )
}

const HIST_SRC: &str = r#"
#define V (16 / sizeof(X))
// Zeroes the passes' tile status words (the grid shares them out), saving a memset launch.
__device__ __forceinline__ void zero_words(unsigned long long* z, long long nz) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nz; i += (long long)gridDim.x * blockDim.x)
    z[i] = 0ull;
}
// Counts the digits of the `kp` key passes of 8 bits into hist[p][256] (zeroed before). The
// blocks end with their atomics in flight: each pass turns its counts into offsets itself.
#if KBITS <= 32
// Keys of up to 4 bytes: one word per (digit, lane) of the warp, sh[d][lane] (a warp's
// atomics hit 32 banks), byte p counting pass p. The 8 warps share the words, so the block
// moves the counts into registers (thread d: digit d) before a byte can carry: every HF rounds
// of HU vectors a thread (at most 8 x HU x V <= 255 keys a word between flushes).
#define HWORDS (256 * 32)
#define HU (V >= 8 ? 1 : 2)
#define HF (255 / (8 * HU * V))
__device__ __forceinline__ void hcount(unsigned int* sh, K k, int kp, int lane) {
  for (int p = 0; p < kp; p++) atomicAdd(&sh[(int)((k >> (8 * p)) & 255) * 32 + lane], 1u << (8 * p));
}
// Thread d adds digit d's counters over the lanes (rotated: a warp reads 32 banks) to its
// totals t[0..4] and zeroes them; the four bytes at once in two words of 16-bit halves.
__device__ __forceinline__ void hflush(unsigned int* sh, unsigned int* t) {
  __syncthreads();
  const int tid = threadIdx.x;
  unsigned int even = 0, odd = 0;
#pragma unroll 8
  for (int l = 0; l < 32; l++) {
    const int at = tid * 32 + ((l + tid) & 31);
    const unsigned int w = sh[at];
    sh[at] = 0u;
    even += w & 0x00ff00ffu;
    odd += (w >> 8) & 0x00ff00ffu;
  }
  t[0] += even & 0xffffu;
  t[1] += odd & 0xffffu;
  t[2] += even >> 16;
  t[3] += odd >> 16;
  __syncthreads();
}
extern "C" __global__ void __launch_bounds__(256) rs_hist(const X* __restrict__ x, long long n, int kp,
    unsigned long long* hist, unsigned long long* zero, long long nzero) {
  zero_words(zero, nzero);
  __shared__ __align__(16) unsigned int sh[HWORDS];
  const int tid = threadIdx.x, lane = tid & 31;
  for (int i = tid; i < HWORDS / 4; i += 256) ((uint4*)sh)[i] = make_uint4(0u, 0u, 0u, 0u);
  __syncthreads();
  unsigned int t[4] = {0u, 0u, 0u, 0u};
  const long long nvec = (((unsigned long long)x & 15) == 0) ? n / V : 0;
  const Pack<X, V>* xv = (const Pack<X, V>*)x;
  // Block-uniform rounds (the flushes synchronise the block); each round's loads are issued
  // before the round before it is counted.
  int r = 0;
  const long long step = (long long)gridDim.x * 256 * HU;
  Pack<X, V> a[HU];
  long long b = (long long)blockIdx.x * 256 * HU;
#pragma unroll
  for (int u = 0; u < HU; u++) if (b + u * 256 + tid < nvec) a[u] = xv[b + u * 256 + tid];
  for (; b < nvec; b += step) {
    Pack<X, V> nx[HU];
#pragma unroll
    for (int u = 0; u < HU; u++) if (b + step + u * 256 + tid < nvec) nx[u] = xv[b + step + u * 256 + tid];
#pragma unroll
    for (int u = 0; u < HU; u++) {
      if (b + u * 256 + tid < nvec) {
#pragma unroll
        for (int e = 0; e < V; e++) hcount(sh, tokey(a[u].v[e]), kp, lane);
      }
    }
    if (++r == HF) { r = 0; hflush(sh, t); }
#pragma unroll
    for (int u = 0; u < HU; u++) a[u] = nx[u];
  }
  if (r) { r = 0; hflush(sh, t); }
  // The rest (fewer than V keys, or all when `x` is not 16-byte aligned): a key a thread a
  // round, at most 8 a word.
  for (long long j = nvec * V + (long long)blockIdx.x * 256; j < n; j += (long long)gridDim.x * 256) {
    if (j + tid < n) hcount(sh, tokey(x[j + tid]), kp, lane);
    if (++r == 255 / 8) { r = 0; hflush(sh, t); }
  }
  hflush(sh, t);
  for (int p = 0; p < kp; p++) if (t[p]) atomicAdd(&hist[p * 256 + tid], (unsigned long long)t[p]);
}
#else
// 8-byte keys: NP copies of each pass's counts (copy = lane % NP).
#define NP 4
__device__ __forceinline__ void hcount(unsigned int* sh, K k, int kp, int part) {
  for (int p = 0; p < kp; p++) atomicAdd(&sh[(p * 256 + (int)((k >> (8 * p)) & 255)) * NP + part], 1u);
}
extern "C" __global__ void __launch_bounds__(256) rs_hist(const X* __restrict__ x, long long n, int kp,
    unsigned long long* hist, unsigned long long* zero, long long nzero) {
  zero_words(zero, nzero);
  __shared__ unsigned int sh[8 * 256 * NP];
  const int tid = threadIdx.x, part = (tid & 31) % NP;
  for (int i = tid; i < kp * 256 * NP; i += 256) sh[i] = 0;
  __syncthreads();
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long nvec = (((unsigned long long)x & 15) == 0) ? n / V : 0;
  const Pack<X, V>* xv = (const Pack<X, V>*)x;
  long long i = (long long)blockIdx.x * blockDim.x + tid;
  for (; i + stride < nvec; i += 2 * stride) {
    const Pack<X, V> a = xv[i], b = xv[i + stride];
#pragma unroll
    for (int e = 0; e < V; e++) { hcount(sh, tokey(a.v[e]), kp, part); hcount(sh, tokey(b.v[e]), kp, part); }
  }
  for (; i < nvec; i += stride) {
    const Pack<X, V> a = xv[i];
#pragma unroll
    for (int e = 0; e < V; e++) hcount(sh, tokey(a.v[e]), kp, part);
  }
  for (long long j = nvec * V + (long long)blockIdx.x * blockDim.x + tid; j < n; j += stride) hcount(sh, tokey(x[j]), kp, part);
  __syncthreads();
  for (int p = 0; p < kp; p++) {
    unsigned int c = 0;
    for (int q = 0; q < NP; q++) c += sh[(p * 256 + tid) * NP + (q + tid) % NP];
    if (c) atomicAdd(&hist[p * 256 + tid], (unsigned long long)c);
  }
}
#endif
"#;

const PASS_SRC: &str = r#"
#define TPB 256
#define ITEMS @ITEMS@
#define TILE (TPB * ITEMS)
#define WARPS (TPB / 32)
#define LB @LB@
#if VALS
#define EXB (TILE * (sizeof(K) > 8 ? sizeof(K) : 8))
#else
#define EXB (TILE * sizeof(K))
#endif
// One radix pass over 8-bit digit `pass` (key digits first, then lane digits of the values).
// `counts` holds the key passes' digit counts over all keys (from rs_hist); lane passes count
// in closed form. `status` one word per (tile, digit): (pass * 4 + flag) << 56 | count, flag
// 1 = the tile's own count, 2 = the inclusive count over tiles 0..tile; `ctr` the pass's tile
// counter (zeroed). A tile publishes its own counts before it ranks its keys, so that the
// tiles after it rarely wait in their look-back.
// Keys alone fit in 64 registers (4 blocks an SM); with values, 3 blocks.
#if VALS
#define MINB 3
#else
#define MINB 4
#endif
extern "C" __global__ void __launch_bounds__(TPB, MINB) rs_pass(const void* __restrict__ kin, void* __restrict__ kout,
    const unsigned long long* __restrict__ vin, unsigned long long* __restrict__ vout, long long n, long long lanelen,
    int pass, int kp, const unsigned long long* __restrict__ counts, unsigned long long* status, unsigned int* ctr) {
  __shared__ unsigned int s_wc[WARPS][256];
  __shared__ unsigned int s_cnt[256];
  __shared__ long long s_gbase[256];
  __shared__ unsigned int s_wtot[WARPS];
  __shared__ unsigned long long s_wg[WARPS];
  __shared__ __align__(16) unsigned char s_ex[EXB];
  __shared__ unsigned char s_dig[TILE];
  __shared__ unsigned int s_tile;
  const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
  if (tid == 0) s_tile = atomicAdd(ctr, 1u);
  for (int i = tid; i < WARPS * 256; i += TPB) (&s_wc[0][0])[i] = 0u;
  s_cnt[tid] = 0u;
  // This pass's count of digit `tid` over all keys.
  unsigned long long gc;
  if (pass < kp) {
    gc = counts[tid];
  } else {
    // Digit q of the lane numbers 0..R-1, each lane holding `lanelen` keys.
    const unsigned long long R = (unsigned long long)(n / lanelen);
    const unsigned long long blk = 1ull << (8 * (pass - kp)), period = blk << 8;
    const unsigned long long full = R / period, rem = R % period, lo = (unsigned long long)tid * blk;
    gc = (full * blk + (rem > lo ? (rem - lo < blk ? rem - lo : blk) : 0ull)) * (unsigned long long)lanelen;
  }
  __syncthreads();
  const unsigned long long tile = s_tile;
  const long long base = (long long)tile * TILE;
  const int cnt = (int)(n - base < (long long)TILE ? n - base : (long long)TILE);
  K k[ITEMS];
  // Digit (256: no key) and, after ranking, the rank among the warp's keys of that digit.
  unsigned int dr[ITEMS];
#if VALS
  unsigned long long v[ITEMS];
#endif
  const int wbase = w * 32 * ITEMS;
#pragma unroll
  for (int j = 0; j < ITEMS; j++) {
    const int li = wbase + j * 32 + lane;
    const long long i = base + li;
    const bool ok = li < cnt;
#if FIRST
    k[j] = ok ? tokey(((const X*)kin)[i]) : (K)0;
#else
    k[j] = ok ? ((const K*)kin)[i] : (K)0;
#endif
#if VALS
#if FIRST
    v[j] = (unsigned long long)i;
#else
    v[j] = ok ? vin[i] : 0ull;
#endif
    if (pass >= kp) {
      dr[j] = ok ? (unsigned int)(((unsigned long long)v[j] / (unsigned long long)lanelen >> (8 * (pass - kp))) & 255) : 256u;
    } else {
      dr[j] = ok ? (unsigned int)((k[j] >> (8 * pass)) & 255) : 256u;
    }
#else
    dr[j] = ok ? (unsigned int)((k[j] >> (8 * pass)) & 255) : 256u;
#endif
  }
  // The tile's digit counts, published at once.
#pragma unroll
  for (int j = 0; j < ITEMS; j++) if (dr[j] < 256u) atomicAdd(&s_cnt[dr[j]], 1u);
  __syncthreads();
  const unsigned int tot = s_cnt[tid];
  volatile unsigned long long* vst = status;
  const unsigned long long tag = (unsigned long long)pass * 4ull;
  vst[tile * 256 + tid] = ((tag + (tile == 0 ? 2ull : 1ull)) << 56) | tot;
  // How many digits occur in this pass: decides the ranking.
  const bool few = __syncthreads_count(gc > 0) <= 64;
  // Rank within the warp: lanes with equal digits find each other; the lowest adds them all
  // to the warp's counter. Items are taken in index order, so ranks are stable.
  const unsigned int lt = (1u << lane) - 1u;
#pragma unroll
  for (int j = 0; j < ITEMS; j++) {
    const unsigned int d = dr[j];
    // The lanes holding the same digit (9 bits: 256 marks no key): `__match_any_sync`, whose
    // cost grows with the number of distinct digits, when the pass has few; else one ballot
    // a bit, at a fixed cost.
    unsigned int peers;
    if (few) {
      peers = __match_any_sync(0xffffffffu, d);
    } else {
      peers = 0xffffffffu;
#pragma unroll
      for (int b = 0; b < 9; b++) {
        const unsigned int bb = __ballot_sync(0xffffffffu, (d >> b) & 1u);
        peers &= ((d >> b) & 1u) ? bb : ~bb;
      }
    }
    const int leader = __ffs(peers) - 1;
    // One shared atomic per digit group: the items' ranking steps carry no register
    // dependency on each other, so they pipeline (a warp's shared atomics run in order).
    unsigned int old = 0;
    if (lane == leader && d < 256) old = atomicAdd(&s_wc[w][d], (unsigned int)__popc(peers));
    old = __shfl_sync(0xffffffffu, old, leader);
    dr[j] = (d << 16) | (old + __popc(peers & lt));
  }
  __syncthreads();
  // Thread `tid` owns digit `tid`: the warps' exclusive offsets within the tile.
  {
    unsigned int run = 0;
#pragma unroll
    for (int ww = 0; ww < WARPS; ww++) {
      const unsigned int c = s_wc[ww][tid];
      s_wc[ww][tid] = run;
      run += c;
    }
  }
  // Exclusive scans over the digits: of the tile's counts, and of the pass's global counts.
  unsigned int inc = tot;
  unsigned long long ginc = gc;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const unsigned int o = __shfl_up_sync(0xffffffffu, inc, d);
    const unsigned long long og = __shfl_up_sync(0xffffffffu, ginc, d);
    if (lane >= d) { inc += o; ginc += og; }
  }
  if (lane == 31) { s_wtot[w] = inc; s_wg[w] = ginc; }
  // Decoupled look-back over the preceding tiles for this digit, LB tiles per round trip:
  // their words are read together, then summed nearest first up to the first inclusive one
  // (waiting on any not yet published). Tile 0 is always inclusive, so the walk ends there.
  unsigned long long excl = 0;
  if (tile > 0) {
    long long p = (long long)tile - 1;
    bool found = false;
    while (!found) {
      unsigned long long sw[LB];
#pragma unroll
      for (int j = 0; j < LB; j++) sw[j] = p - j >= 0 ? vst[(unsigned long long)(p - j) * 256 + tid] : 0ull;
#pragma unroll
      for (int j = 0; j < LB; j++) {
        if (!found) {
          unsigned long long s = sw[j];
          while ((s >> 56) != tag + 1 && (s >> 56) != tag + 2) s = vst[(unsigned long long)(p - j) * 256 + tid];
          excl += s & 0x00ffffffffffffffull;
          found = (s >> 56) == tag + 2;
        }
      }
      p -= LB;
    }
    vst[tile * 256 + tid] = ((tag + 2ull) << 56) | (excl + tot);
  }
  __syncthreads();
  unsigned int wpre = 0;
  unsigned long long gpre = 0;
  for (int ww = 0; ww < w; ww++) { wpre += s_wtot[ww]; gpre += s_wg[ww]; }
  const unsigned int tstart = wpre + inc - tot;
  s_gbase[tid] = (long long)(gpre + ginc - gc + excl) - (long long)tstart;
#pragma unroll
  for (int ww = 0; ww < WARPS; ww++) s_wc[ww][tid] += tstart;
  __syncthreads();
  // Keys to their place in the tile (sorted by digit, stable), then out in runs.
#pragma unroll
  for (int j = 0; j < ITEMS; j++) {
    const unsigned int d = dr[j] >> 16;
    if (d < 256) {
      const unsigned int pos = s_wc[w][d] + (dr[j] & 0xffffu);
      ((K*)s_ex)[pos] = k[j];
      s_dig[pos] = (unsigned char)d;
    }
  }
  __syncthreads();
#if !LAST || OUTK
  for (int i = tid; i < cnt; i += TPB) {
    const K key = ((const K*)s_ex)[i];
    const long long g = s_gbase[s_dig[i]] + i;
#if LAST
    ((X*)kout)[g] = fromkey(key);
#else
    ((K*)kout)[g] = key;
#endif
  }
#endif
#if VALS && (!LAST || OUTV)
  __syncthreads();
#pragma unroll
  for (int j = 0; j < ITEMS; j++) {
    const unsigned int d = dr[j] >> 16;
    if (d < 256) ((unsigned long long*)s_ex)[s_wc[w][d] + (dr[j] & 0xffffu)] = v[j];
  }
  __syncthreads();
  for (int i = tid; i < cnt; i += TPB) {
    const unsigned long long val = ((const unsigned long long*)s_ex)[i];
#if LAST
    vout[s_gbase[s_dig[i]] + i] = val % (unsigned long long)lanelen;   // the index within its lane
#else
    vout[s_gbase[s_dig[i]] + i] = val;
#endif
  }
#endif
}
"#;

const SELECT_SRC: &str = r#"
#define NB 256
#define LEVELS (KBITS / 8)
#define V (16 / sizeof(K))
#define SU 2
// Keys a block takes at least (levels reading few candidates use only the blocks they need).
#define PER_BLOCK (256 * 16)
// State of one selection in device memory (zeroed before level 0).
struct SelState {
  unsigned long long hist[2][NB];
  unsigned long long k[2];        // ranks of the two order statistics among the matching keys
  unsigned long long prefix[2];   // their key bits found so far
  unsigned long long ncand[2];    // candidate counts (ping-pong buffers)
  unsigned long long nan_count;
  long long nvalid;
  unsigned int done;
  int status;                     // 1: the result is already written (NaN)
};
struct Lvl {
  int level, shift, pshift;
  bool two, last;
  unsigned long long p0, p1;
};
// Counts one key (`ok`: a key is present): lane-private counters h0[digit][lane] for the first
// order statistic (no two lanes of a warp ever hit one word or one bank), plain counters for
// the second when its digits differ; keys that match are kept for the next level.
__device__ __forceinline__ void sel_key(K key, bool ok, const Lvl& L, unsigned int (*h0)[32], unsigned int* h1,
    unsigned int& nans, K* cout, unsigned long long* nout, int lane) {
  if (ok && is_nan_key(key)) { nans++; ok = false; }
  const unsigned int d = (unsigned int)((unsigned long long)key >> L.shift) & 255u;
  bool keep = false;
  if (ok) {
    if (L.level == 0) {
      atomicAdd(&h0[d][lane], 1u);
    } else {
      const unsigned long long hk = (unsigned long long)key >> L.pshift;
      const bool m0 = hk == (L.p0 >> L.pshift), m1 = L.two && hk == (L.p1 >> L.pshift);
      if (m0) atomicAdd(&h0[d][lane], 1u);
      if (m1) atomicAdd(&h1[d], 1u);
      keep = (m0 || m1) && !L.last;
    }
  }
  if (L.level > 0 && !L.last) {
    const unsigned int km = __ballot_sync(0xffffffffu, keep);
    if (km) {
      const int leader = __ffs(km) - 1;
      unsigned long long at = 0;
      if (lane == leader) at = atomicAdd(nout, (unsigned long long)__popc(km));
      at = __shfl_sync(0xffffffffu, at, leader);
      if (keep) cout[at + __popc(km & ((1u << lane) - 1u))] = key;
    }
  }
}
template <bool RAW, typename T>
__device__ __forceinline__ K as_key(T v) { if (RAW) return tokey((X)v); else return (K)v; }
// All keys of src[0..cnt) (RAW: input values, else keys), whole warps at a time.
template <bool RAW, typename T>
__device__ __forceinline__ void sel_range(const T* __restrict__ src, long long cnt, const Lvl& L,
    unsigned int (*h0)[32], unsigned int* h1, unsigned int& nans, K* cout, unsigned long long* nout, int lane,
    unsigned int nblk) {
  const long long gw = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nw = ((long long)nblk * blockDim.x) >> 5;
  const long long nvec = (((unsigned long long)src & 15) == 0) ? cnt / V : 0;
  const Pack<T, V>* sv = (const Pack<T, V>*)src;
  for (long long b = gw * 32 * SU; b < nvec; b += nw * 32 * SU) {
    Pack<T, V> a[SU];
#pragma unroll
    for (int u = 0; u < SU; u++) if (b + u * 32 + lane < nvec) a[u] = sv[b + u * 32 + lane];
#pragma unroll
    for (int u = 0; u < SU; u++) {
      const bool ok = b + u * 32 + lane < nvec;
#pragma unroll
      for (int e = 0; e < V; e++) sel_key(ok ? as_key<RAW>(a[u].v[e]) : (K)0, ok, L, h0, h1, nans, cout, nout, lane);
    }
  }
  // The rest (a tail of fewer than V keys, or everything when `src` is not 16-byte aligned),
  // one key a lane over all warps.
  for (long long b = nvec * V + gw * 32; b < cnt; b += nw * 32) {
    const long long i = b + lane;
    sel_key(i < cnt ? as_key<RAW>(src[i]) : (K)0, i < cnt, L, h0, h1, nans, cout, nout, lane);
  }
}
// Block-wide (256 threads, thread d holding digit d's counts c0 and c1 among the keys that
// match the first and second order statistic's prefix): the digits holding their ranks k0
// and k1, into s_d[0..2], and the counts before those digits, into s_cb[0..2].
__device__ __forceinline__ void find_digits(unsigned long long c0, unsigned long long c1, unsigned long long k0,
    unsigned long long k1, unsigned long long (*s_wsum)[8], int* s_d, unsigned long long* s_cb) {
  const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
  unsigned long long i0 = c0, i1 = c1;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const unsigned long long o0 = __shfl_up_sync(0xffffffffu, i0, d), o1 = __shfl_up_sync(0xffffffffu, i1, d);
    if (lane >= d) { i0 += o0; i1 += o1; }
  }
  if (lane == 31) { s_wsum[0][w] = i0; s_wsum[1][w] = i1; }
  __syncthreads();
  unsigned long long e0 = i0 - c0, e1 = i1 - c1;
  for (int ww = 0; ww < w; ww++) { e0 += s_wsum[0][ww]; e1 += s_wsum[1][ww]; }
  if (k0 >= e0 && k0 < e0 + c0) { s_d[0] = tid; s_cb[0] = e0; }
  if (k1 >= e1 && k1 < e1 + c1) { s_d[1] = tid; s_cb[1] = e1; }
  __syncthreads();
}
// The last levels in one block when the candidates fit in shared memory (`ck`, cnt keys
// copied from `cin`): each level counts the matching keys' digits in shared memory and finds
// the next digits, with no global atomics, fence or further launch; writes the quantile.
__device__ void sel_tail(const K* __restrict__ cin, long long cnt, int level, K* ck, unsigned int* ha,
    unsigned int* hb, SelState* st, double q, int method, O* out, unsigned long long (*s_wsum)[8], int* s_d,
    unsigned long long* s_cb) {
  const int tid = threadIdx.x;
  // The copy, 16 bytes a thread and 8 loads in flight (`cin` and `ck` are 16-byte aligned).
  const long long nq = cnt * (long long)sizeof(K) / 16;
  for (long long b = 0; b < nq; b += 256 * 8) {
    uint4 t[8];
#pragma unroll
    for (int j = 0; j < 8; j++) if (b + j * 256 + tid < nq) t[j] = ((const uint4*)cin)[b + j * 256 + tid];
#pragma unroll
    for (int j = 0; j < 8; j++) if (b + j * 256 + tid < nq) ((uint4*)ck)[b + j * 256 + tid] = t[j];
  }
  for (long long i = nq * 16 / (long long)sizeof(K) + tid; i < cnt; i += 256) ck[i] = cin[i];
  unsigned long long p0 = st->prefix[0], p1 = st->prefix[1], k0 = st->k[0], k1 = st->k[1];
  const long long nv = st->nvalid;
  for (int lv = level; lv < LEVELS; lv++) {
    const int shift = KBITS - 8 * (lv + 1), pshift = KBITS - 8 * lv;
    const bool two = p0 != p1;
    ha[tid] = 0u;
    hb[tid] = 0u;
    __syncthreads();
    for (long long i = tid; i < cnt; i += 256) {
      const unsigned long long key = (unsigned long long)ck[i], hk = key >> pshift;
      const unsigned int d = (unsigned int)(key >> shift) & 255u;
      if (hk == (p0 >> pshift)) atomicAdd(&ha[d], 1u);
      if (two && hk == (p1 >> pshift)) atomicAdd(&hb[d], 1u);
    }
    __syncthreads();
    const unsigned long long c0 = ha[tid], c1 = two ? hb[tid] : c0;
    find_digits(c0, c1, k0, k1, s_wsum, s_d, s_cb);
    p0 |= (unsigned long long)s_d[0] << shift;
    p1 |= (unsigned long long)s_d[1] << shift;
    k0 -= s_cb[0];
    k1 -= s_cb[1];
    __syncthreads();
  }
  if (tid == 0) {
    out[0] = qvalue(fromkey((K)p0), fromkey((K)p1), nv, q, method);
    ((volatile SelState*)st)->status = 1;
  }
}
// Level `level` (8-bit digits from the top) of the selection of the quantile `q` (method
// 0..5 = linear, lower, higher, nearest, midpoint, median's mean) of x[0..n). Levels 0 and 1 read `x`; later
// levels the keys the level before kept in `cin`. The last block of each level finds the
// digits of both order statistics; the last level writes the quantile to `out`.
extern "C" __global__ void __launch_bounds__(256) sel_pass(const X* __restrict__ x, long long n,
    const K* __restrict__ cin, K* __restrict__ cout, SelState* st, double q, int method, int ignore_nan,
    O* out, int level) {
  __shared__ __align__(16) unsigned int h0[NB][32];
  __shared__ unsigned int h1[NB];
  __shared__ unsigned int s_nan;
  __shared__ int s_last;
  __shared__ unsigned long long s_wsum[2][8];
  __shared__ unsigned long long s_st[4];
  __shared__ int s_d[2];
  __shared__ unsigned long long s_cb[2];
  __shared__ unsigned int s_tb[NB];
  const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
  if (((volatile int*)&st->status)[0]) return;
  const long long cnt = level <= 1 ? n : (long long)st->ncand[(level - 1) & 1];
  // Few candidates left: one block finishes every level (the later launches find it done).
  if (level >= 2 && cnt * (long long)sizeof(K) <= (long long)sizeof(h0)) {
    if (blockIdx.x == 0) sel_tail(cin, cnt, level, (K*)&h0[0][0], h1, (unsigned int*)&s_tb[0], st, q, method, out, s_wsum, s_d, s_cb);
    return;
  }
  long long want = (cnt + PER_BLOCK - 1) / PER_BLOCK;
  const unsigned int nblk = (unsigned int)(want < 1 ? 1 : (want > (long long)gridDim.x ? (long long)gridDim.x : want));
  if (blockIdx.x >= nblk) return;
  Lvl L;
  L.level = level;
  L.shift = KBITS - 8 * (level + 1);
  L.pshift = KBITS - 8 * level;
  L.last = level == LEVELS - 1;
  L.p0 = st->prefix[0];
  L.p1 = st->prefix[1];
  L.two = level > 0 && L.p0 != L.p1;
  for (int i = tid; i < NB * 32; i += 256) (&h0[0][0])[i] = 0u;
  h1[tid] = 0u;
  if (tid == 0) s_nan = 0;
  __syncthreads();
  unsigned int nans = 0;
  unsigned long long* nout = &st->ncand[level & 1];
  if (level <= 1) sel_range<true>(x, n, L, h0, h1, nans, cout, nout, lane, nblk);
  else sel_range<false>(cin, cnt, L, h0, h1, nans, cout, nout, lane, nblk);
  if (nans) atomicAdd(&s_nan, nans);
  __syncthreads();
  {
    // Thread d adds up digit d over the lanes (rotated, so a warp reads 32 banks).
    unsigned int c = 0;
    for (int l = 0; l < 32; l++) c += h0[tid][(l + tid) & 31];
    if (c) atomicAdd(&st->hist[0][tid], (unsigned long long)c);
    if (h1[tid]) atomicAdd(&st->hist[1][tid], (unsigned long long)h1[tid]);
  }
  if (tid == 0 && s_nan) atomicAdd(&st->nan_count, (unsigned long long)s_nan);
  __threadfence();
  __syncthreads();
  if (tid == 0) s_last = atomicAdd(&st->done, 1u) == nblk - 1;
  __syncthreads();
  if (!s_last) return;
  __threadfence();
  // The last block: one round of loads (both histograms, the state), both scans at once.
  volatile SelState* vs = st;
  const unsigned long long c0 = vs->hist[0][tid], c1 = vs->hist[L.two ? 1 : 0][tid];
  if (tid == 0) {
    s_st[0] = vs->k[0]; s_st[1] = vs->k[1]; s_st[2] = vs->nan_count; s_st[3] = (unsigned long long)vs->nvalid;
  }
  __syncthreads();
  if (level == 0) {
    const long long nanc = (long long)s_st[2];
    const long long nv = ignore_nan ? n - nanc : n;
    if ((!ignore_nan && nanc > 0) || nv == 0) {
      if (tid == 0) { out[0] = qnan(); vs->status = 1; }
      return;
    }
    __syncthreads();
    if (tid == 0) {
      long long k0, k1;
      qranks(nv, q, method, &k0, &k1);
      s_st[0] = (unsigned long long)k0; s_st[1] = (unsigned long long)k1; s_st[3] = (unsigned long long)nv;
    }
    __syncthreads();
  }
  const unsigned long long k0 = s_st[0], k1 = s_st[1];
  find_digits(c0, c1, k0, k1, s_wsum, s_d, s_cb);
  vs->hist[0][tid] = 0ull;
  vs->hist[1][tid] = 0ull;
  if (tid == 0) {
    const unsigned long long np0 = L.p0 | ((unsigned long long)s_d[0] << L.shift);
    const unsigned long long np1 = L.p1 | ((unsigned long long)s_d[1] << L.shift);
    vs->k[0] = k0 - s_cb[0]; vs->k[1] = k1 - s_cb[1];
    vs->prefix[0] = np0; vs->prefix[1] = np1;
    vs->nvalid = (long long)s_st[3];
    vs->ncand[(level + 1) & 1] = 0ull;
    vs->done = 0u;
    if (L.last) out[0] = qvalue(fromkey((K)np0), fromkey((K)np1), (long long)s_st[3], q, method);
  }
}
"#;

const PICK_SRC: &str = r#"
// Quantiles of sorted lanes (NaNs last): one thread per (q, lane); out[qi * lanes + lane].
extern "C" __global__ void __launch_bounds__(256) qpick(const X* __restrict__ s, long long lanes, long long len,
    const double* __restrict__ qs, long long nq, int method, int ignore_nan, O* out) {
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < lanes * nq; t += (long long)gridDim.x * blockDim.x) {
    const long long l = t % lanes, qi = t / lanes;
    const X* a = s + l * len;
    // NaNs are last: the first NaN by binary search.
    long long lo = 0, hi = len;
    while (lo < hi) { long long m = (lo + hi) / 2; if (is_nan_key(tokey(a[m]))) hi = m; else lo = m + 1; }
    const long long nanc = len - lo;
    const long long nv = ignore_nan ? len - nanc : len;
    if ((!ignore_nan && nanc > 0) || nv == 0) { out[t] = qnan(); continue; }
    long long k0, k1;
    qranks(nv, qs[qi], method, &k0, &k1);
    out[t] = qvalue(a[k0], a[k1], nv, qs[qi], method);
  }
}
"#;

/// Bytes of the selection state (`SelState`).
const SEL_STATE_BYTES: usize = 2 * 256 * 8 + 6 * 8 + 8 + 8 + 8;

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
    let grid = dev.grid_for(n, 256 * 8).min(dev.sm_count * HIST_BLOCKS_PER_SM);
    // SAFETY: parameters match `rs_hist`; `tmp` returns to the pool in stream order.
    unsafe { p.launch(&dev, &hk, grid, 256)? };

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

/// Quantile method codes of the kernels (the order of `QuantileMethod`, then median's mean).
pub(crate) fn method_code(m: crate::sort::Interp) -> i32 {
    use crate::sort::Interp;
    use crate::QuantileMethod::*;
    match m {
        Interp::Method(Linear) => 0,
        Interp::Method(Lower) => 1,
        Interp::Method(Higher) => 2,
        Interp::Method(Nearest) => 3,
        Interp::Method(Midpoint) => 4,
        Interp::MedianMean => 5,
    }
}

/// The quantile `q` of the C-contiguous 1-d `x` (n > 0) into the 0-d `out`, by radix select.
pub(crate) fn select_quantile(x: &Array, q: f64, method: i32, ignore_nan: bool, out: &Array) -> Result<()> {
    let dev = dev_of(x)?;
    let n = x.size();
    let dt = x.dtype();
    let levels = key_bytes(dt);
    let k = dev.kernel(&SortKey::Select { dt, out: out.dtype() })?;
    let cand = if levels > 1 { n * key_bytes(dt) } else { 0 }.next_multiple_of(16);
    let ncand_bufs = if levels > 3 { 2 } else { 1 };
    // The candidate buffers start 256-byte aligned (the kernel reads them 16 bytes at a time).
    let state = SEL_STATE_BYTES.next_multiple_of(256);
    let tmp = Array::alloc(&[state + ncand_bufs * cand], DType::UInt8, x.device(), false)?;
    let t = dptr(&tmp)?;
    dev.memset_zero(t, SEL_STATE_BYTES)?;
    let cbuf = [t + state as u64, t + (state + (ncand_bufs - 1) * cand) as u64];
    let grid = dev.grid_for(n, SEL_THREADS as usize * 16).min(dev.sm_count * SEL_BLOCKS_PER_SM);
    for level in 0..levels {
        // Level L >= 1 writes buffer L % 2 and level L >= 2 reads buffer (L - 1) % 2.
        let cin = if level >= 2 { cbuf[(level - 1) % 2] } else { 0 };
        let cout = if level >= 1 { cbuf[level % 2] } else { 0 };
        let mut p = Params::new();
        p.push(dptr(x)?);
        p.push(n as i64);
        p.push(cin);
        p.push(cout);
        p.push(t);
        p.push(q);
        p.push(method);
        p.push(ignore_nan as i32);
        p.push(dptr(out)?);
        p.push(level as i32);
        let g = if level >= 3 { grid.min(dev.sm_count * SEL_LATE_BLOCKS_PER_SM) } else { grid };
        // SAFETY: parameters match `sel_pass`; `tmp` lives until the stream has run it.
        unsafe { p.launch(&dev, &k, g, SEL_THREADS)? };
    }
    drop(tmp);
    Ok(())
}

/// Quantiles `qs` of the sorted lanes of `sorted` (C-contiguous, lanes along the last axis)
/// into `out` of shape `(len(qs), lanes)`.
pub(crate) fn pick_quantiles(sorted: &Array, qs: &[f64], method: i32, ignore_nan: bool, out: &Array) -> Result<()> {
    let dev = dev_of(sorted)?;
    let len = *sorted.shape().last().unwrap_or(&1);
    let lanes = sorted.size() / len.max(1);
    let dt = sorted.dtype();
    let k = dev.kernel(&SortKey::Pick { dt, out: out.dtype() })?;
    let qd = crate::from_slice(qs, &[qs.len()], &sorted.device())?;
    let mut p = Params::new();
    p.push(dptr(sorted)?);
    p.push(lanes as i64);
    p.push(len as i64);
    p.push(dptr(&qd)?);
    p.push(qs.len() as i64);
    p.push(method);
    p.push(ignore_nan as i32);
    p.push(dptr(out)?);
    let n = lanes * qs.len();
    // SAFETY: parameters match `qpick`; `qd` lives until the stream has run it.
    unsafe { p.launch(&dev, &k, dev.grid_for(n, 256), 256) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::dtype::ALL_DTYPES;

    #[test]
    fn sources_name_their_kernels() {
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
            for out in [dt, DType::Float64] {
                keys.push(SortKey::Select { dt, out });
                keys.push(SortKey::Pick { dt, out });
            }
            for k in keys {
                let src = k.source();
                assert!(src.contains("extern \"C\" __global__ void __launch_bounds__"), "{k:?}");
                assert!(src.contains(&format!(" {}(", k.name())), "{k:?}: no kernel {}", k.name());
                assert!(!src.contains('@'), "{k:?}: unfilled template");
                assert_eq!(src.matches('{').count(), src.matches('}').count(), "{k:?}: braces");
            }
        }
    }

    #[test]
    fn selection_state_size_matches_the_struct() {
        // hist[2][256], k[2], prefix[2], ncand[2], nan_count, nvalid, done + status.
        assert_eq!(SEL_STATE_BYTES, 2 * 256 * 8 + 2 * 8 * 3 + 8 + 8 + 4 + 4);
    }
}
