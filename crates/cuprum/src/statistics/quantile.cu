// Quantiles on the device, with the formula of the CPU backend (statistics/cpu.rs):
// `sel_pass` is one level of the radix select of one lane's quantile (8-bit digits from the
// top; a histogram per level of the keys matching the digits found so far, for the two order
// statistics a quantile needs at once; candidates compacted between levels; the last block of
// each level picks the next digits, and once the candidates fit in shared memory one block
// finishes the levels); `qpick` picks quantiles from sorted lanes.
//
// -D: THREADS (threads per block: one per digit, so 256), ITEMS (keys a thread takes at least).
// Prelude (statistics/cuda.rs): VARIANT_SELECT or VARIANT_PICK; K, X, KBITS, the KEY_* kind and
// CANON of radix_keys.cuh; O (output storage), KEEPS_SAME (O is X), MEAN_F32 (median's mean in
// float32), QNAN (a NaN of O), QSTORE(r) (a double to O).
#include "cuprum/prelude.cuh"
#include "cuprum/float16.cuh"
#include "cuprum/radix_keys.cuh"

static_assert(THREADS == 256, "the selection gives each thread one 8-bit digit");

__device__ __forceinline__ O qnan() { return QNAN; }
__device__ __forceinline__ O qstore(double r) { return QSTORE(r); }
// NumPy's `_lerp`: exact at t = 1.
__device__ __forceinline__ double qlerp(double a, double b, double t) {
  double d = b - a; return t >= 0.5 ? b - d * (1.0 - t) : a + d * t; }
// The two order statistics (0-based, among `nv` valid values) that a quantile needs.
__device__ __forceinline__ void qranks(long long nv, double q, int method, long long* k0, long long* k1) {
  double vi = q * (double)(nv - 1);
  long long lo = (long long)floor(vi), hi = (long long)ceil(vi);
  if (hi > nv - 1) hi = nv - 1;
  if (method == 1) { hi = lo; }
  else if (method == 2) { lo = hi; }
  else if (method == 3) { long long r = (long long)rint(vi); if (r > nv - 1) r = nv - 1; lo = hi = r; }
  *k0 = lo; *k1 = hi;
}
// The quantile from the order statistics x0 (rank k0) and x1 (rank k1).
__device__ __forceinline__ O qvalue(X x0, X x1, long long nv, double q, int method) {
  double vi = q * (double)(nv - 1);
  double a = todouble(x0), b = todouble(x1);
  if (method == 0) { double r = qlerp(a, b, vi - floor(vi)); return qstore(r); }
  if (method == 4) { double r = (a + b) / 2.0; return qstore(r); }
  // median: NumPy's mean of the middle element(s), in float32 for float16/float32 data.
  if (method == 5) {
    if (floor(vi) == ceil(vi)) return qstore(a);
#if MEAN_F32
    { double r = (double)(((float)a + (float)b) / 2.0f); return qstore(r); }
#else
    { double r = (a + b) / 2.0; return qstore(r); }
#endif
  }
#if KEEPS_SAME
  return (O)x0;
#else
  { double r = a; return qstore(r); }
#endif
}

#if defined(VARIANT_SELECT)
#define NB 256
#define LEVELS (KBITS / 8)
#define V (16 / sizeof(K))
#define SU 2
// Keys a block takes at least (levels reading few candidates use only the blocks they need).
#define PER_BLOCK (THREADS * ITEMS)
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
  for (long long b = 0; b < nq; b += THREADS * 8) {
    uint4 t[8];
#pragma unroll
    for (int j = 0; j < 8; j++) if (b + j * THREADS + tid < nq) t[j] = ((const uint4*)cin)[b + j * THREADS + tid];
#pragma unroll
    for (int j = 0; j < 8; j++) if (b + j * THREADS + tid < nq) ((uint4*)ck)[b + j * THREADS + tid] = t[j];
  }
  for (long long i = nq * 16 / (long long)sizeof(K) + tid; i < cnt; i += THREADS) ck[i] = cin[i];
  unsigned long long p0 = st->prefix[0], p1 = st->prefix[1], k0 = st->k[0], k1 = st->k[1];
  const long long nv = st->nvalid;
  for (int lv = level; lv < LEVELS; lv++) {
    const int shift = KBITS - 8 * (lv + 1), pshift = KBITS - 8 * lv;
    const bool two = p0 != p1;
    ha[tid] = 0u;
    hb[tid] = 0u;
    __syncthreads();
    for (long long i = tid; i < cnt; i += THREADS) {
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
extern "C" __global__ void __launch_bounds__(THREADS) sel_pass(const X* __restrict__ x, long long n,
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
#endif  // VARIANT_SELECT

#if defined(VARIANT_PICK)
// Quantiles of sorted lanes (NaNs last): one thread per (q, lane); out[qi * lanes + lane].
extern "C" __global__ void __launch_bounds__(THREADS) qpick(const X* __restrict__ s, long long lanes, long long len,
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
#endif  // VARIANT_PICK
