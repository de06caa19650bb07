// The LSD radix sort of 8-bit digits ("onesweep"): `rs_hist` counts the digits of every key
// pass in one read of the keys; `rs_pass` is one pass (count a tile's digits and publish them,
// rank the keys within the warp, decoupled look-back over the preceding tiles' counts, write
// the tile out through shared memory in runs of equal digits).
//
// -D: THREADS (threads per block: one per digit, so 256), ITEMS (keys per thread), LOOKBACK
// (tiles whose status words the look-back reads in one round trip).
// Prelude (sort/cuda.rs): VARIANT_HIST or VARIANT_PASS; K, X, KBITS, the KEY_* kind and
// CANON of radix_keys.cuh; for a pass FIRST, LAST, VALS, OUTK, OUTV (0/1).
#include "cuprum/prelude.cuh"
#include "cuprum/float16.cuh"
#include "cuprum/radix_keys.cuh"

static_assert(THREADS == 256, "the radix kernels give each thread one 8-bit digit");

#if defined(VARIANT_HIST)
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
extern "C" __global__ void __launch_bounds__(THREADS) rs_hist(const X* __restrict__ x, long long n, int kp,
    unsigned long long* hist, unsigned long long* zero, long long nzero) {
  zero_words(zero, nzero);
  __shared__ __align__(16) unsigned int sh[HWORDS];
  const int tid = threadIdx.x, lane = tid & 31;
  for (int i = tid; i < HWORDS / 4; i += THREADS) ((uint4*)sh)[i] = make_uint4(0u, 0u, 0u, 0u);
  __syncthreads();
  unsigned int t[4] = {0u, 0u, 0u, 0u};
  const long long nvec = (((unsigned long long)x & 15) == 0) ? n / V : 0;
  const Pack<X, V>* xv = (const Pack<X, V>*)x;
  // Block-uniform rounds (the flushes synchronise the block); each round's loads are issued
  // before the round before it is counted.
  int r = 0;
  const long long step = (long long)gridDim.x * THREADS * HU;
  Pack<X, V> a[HU];
  long long b = (long long)blockIdx.x * THREADS * HU;
#pragma unroll
  for (int u = 0; u < HU; u++) if (b + u * THREADS + tid < nvec) a[u] = xv[b + u * THREADS + tid];
  for (; b < nvec; b += step) {
    Pack<X, V> nx[HU];
#pragma unroll
    for (int u = 0; u < HU; u++) if (b + step + u * THREADS + tid < nvec) nx[u] = xv[b + step + u * THREADS + tid];
#pragma unroll
    for (int u = 0; u < HU; u++) {
      if (b + u * THREADS + tid < nvec) {
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
  for (long long j = nvec * V + (long long)blockIdx.x * THREADS; j < n; j += (long long)gridDim.x * THREADS) {
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
extern "C" __global__ void __launch_bounds__(THREADS) rs_hist(const X* __restrict__ x, long long n, int kp,
    unsigned long long* hist, unsigned long long* zero, long long nzero) {
  zero_words(zero, nzero);
  __shared__ unsigned int sh[8 * 256 * NP];
  const int tid = threadIdx.x, part = (tid & 31) % NP;
  for (int i = tid; i < kp * 256 * NP; i += THREADS) sh[i] = 0;
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
#endif  // VARIANT_HIST

#if defined(VARIANT_PASS)
#define TPB THREADS
#define TILE (TPB * ITEMS)
#define WARPS (TPB / 32)
#define LB LOOKBACK
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
#endif  // VARIANT_PASS
