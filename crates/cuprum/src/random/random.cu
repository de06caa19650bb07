// The random fill. A tile is THREADS Philox4x64-10 blocks of the call's main stream (each 4
// words, or 8 32-bit draws, each draw giving PER outputs): each thread computes one block's
// outputs into shared memory, then the block writes the tile's run of outputs with coalesced
// stores (STAGE; bools, 32 a draw, are stored directly). Blocks loop over tiles, so the
// normals' ziggurat tables are copied to shared memory once per block. Every output is
// computed as dist.rs computes it, operation for operation (IEEE double and float arithmetic,
// compiled with --fmad=false), so the GPU's bits are the CPU's. Output i's further draws
// (rejections) come from its own substream, counter [sub_id, i, k, tag].
//
// Prelude (random/cuda.rs): VARIANT_UNIFORM64 / VARIANT_UNIFORM32 / VARIANT_BOUNDED /
// VARIANT_NORMAL64 / VARIANT_NORMAL32; BITS (64 or 32: the first draws), PER (outputs per
// draw), CBITS (BOUNDED: chunk bits 1, 8, 16, 32 or 64), typedef OUT_T; the constants M0, M1,
// W0, W1, LOG2E, SQRT2, LN2_HI, LN2_LO, ZIG_R (as bits) and, for the normals, the ziggurat's
// tables ZK64, ZW64, ZF64, ZK32, ZW32.
// -D: THREADS, STAGE (1: stage the tile's outputs in shared memory).
#include "cuprum/prelude.cuh"

#define DPB (BITS == 64 ? 4 : 8)
#define TILE_OUT (THREADS * DPB * PER)

__device__ __forceinline__ void philox(u64 c[4], u64 k0, u64 k1) {
#pragma unroll
  for (int r = 0; r < 10; r++) {
    if (r > 0) { k0 += W0; k1 += W1; }
    u64 lo0 = M0 * c[0], hi0 = __umul64hi(M0, c[0]);
    u64 lo1 = M1 * c[2], hi1 = __umul64hi(M1, c[2]);
    u64 n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
    c[0] = n0; c[1] = lo1; c[2] = n2; c[3] = lo0;
  }
}

// An output's further draws (philox.rs's Sub).
struct Sub {
  u64 k0, k1, ctr[4], buf[4];
  int pos, has_half;
  u32 half;
  __device__ Sub(u64 a, u64 b, u64 id, u64 i, u64 tag) : k0(a), k1(b), pos(4), has_half(0), half(0) {
    ctr[0] = id; ctr[1] = i; ctr[2] = 0; ctr[3] = tag;
  }
  __device__ u64 next64() {
    if (pos == 4) {
#pragma unroll
      for (int q = 0; q < 4; q++) buf[q] = ctr[q];
      philox(buf, k0, k1);
      ctr[2] += 1;
      pos = 0;
    }
    pos += 1;
    return buf[pos - 1];
  }
  __device__ u32 next32() {
    if (has_half) { has_half = 0; return half; }
    u64 w = next64();
    half = (u32)(w >> 32);
    has_half = 1;
    return (u32)w;
  }
  __device__ double next_double() { return (double)(next64() >> 11) * (1.0 / 9007199254740992.0); }
};

#if defined(VARIANT_NORMAL64) || defined(VARIANT_NORMAL32)
// dist.rs's exp_neg and log1m.
__device__ double exp_neg(double x) {
  if (x < -708.0) return 0.0;
  double k = ceil(x * LOG2E - 0.5);
  double r = (x - k * LN2_HI) - k * LN2_LO;
  const double d[13] = {479001600.0, 39916800.0, 3628800.0, 362880.0, 40320.0, 5040.0, 720.0,
                        120.0, 24.0, 6.0, 2.0, 1.0, 1.0};
  double p = 1.0 / 6227020800.0;
#pragma unroll
  for (int q = 0; q < 13; q++) p = p * r + 1.0 / d[q];
  return p * __longlong_as_double((long long)((u64)(1023 + (long long)k) << 52));
}

__device__ double log1m(double u) {
  double y = 1.0 - u;
  u64 bits = (u64)__double_as_longlong(y);
  long long e = (long long)((bits >> 52) & 0x7ff) - 1023;
  double m = __longlong_as_double((long long)((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull));
  if (m > SQRT2) { m *= 0.5; e += 1; }
  double f = (m - 1.0) / (m + 1.0);
  double s = f * f;
  const double d[12] = {23.0, 21.0, 19.0, 17.0, 15.0, 13.0, 11.0, 9.0, 7.0, 5.0, 3.0, 1.0};
  double p = 1.0 / 25.0;
#pragma unroll
  for (int q = 0; q < 12; q++) p = p * s + 1.0 / d[q];
  double ed = (double)e;
  return (ed * LN2_HI + 2.0 * f * p) + ed * LN2_LO;
}

// The first try's tables (of this variant's width), copied to shared memory (divergent reads
// of __constant__ memory serialise); the rare paths read ZF64 and the float32 variant's later
// tries its tables from constant memory.
#if defined(VARIANT_NORMAL64)
__shared__ u64 s_k64[256];
__shared__ double s_w64[256];
#else
__shared__ u32 s_k32[256];
__shared__ float s_w32[256];
#endif
__device__ __forceinline__ double f64(int i) { return __longlong_as_double((long long)ZF64[i]); }

// dist.rs's try64 / try32: one try of the ziggurat (layer, magnitude, x, accepted at once).
__device__ __forceinline__ bool try64(u64 r, int& idx, u64& rabs, double& x, const u64* k, const double* w) {
  idx = (int)(r & 0xff);
  rabs = (r >> 9) & 0x000fffffffffffffull;
  x = (double)rabs * w[idx];
  if ((r >> 8) & 1) x = -x;
  return rabs < k[idx];
}
__device__ __forceinline__ bool try32(u32 r, int& idx, u64& rabs, float& x, const u32* k, const float* w) {
  idx = (int)(r & 0xff);
  u32 ra = (r >> 9) & 0x007fffff;
  rabs = (u64)ra;
  x = (float)ra * w[idx];
  if ((r >> 8) & 1) x = -x;
  return ra < k[idx];
}

// dist.rs's normal_slow.
__device__ __noinline__ double normal_slow(int idx, double x, u64 rabs, Sub& s, bool f32_) {
  for (;;) {
    if (idx == 0) {
      for (;;) {
        double xx = -(1.0 / ZIG_R) * log1m(s.next_double());
        double yy = -log1m(s.next_double());
        if (yy + yy > xx * xx) return ((rabs >> 8) & 1) ? -(ZIG_R + xx) : ZIG_R + xx;
      }
    }
    if ((f64(idx - 1) - f64(idx)) * s.next_double() + f64(idx) < exp_neg(-0.5 * x * x)) return x;
    bool ok;
    if (f32_) {
      float xf;
      ok = try32(s.next32(), idx, rabs, xf, (const u32*)ZK32, (const float*)ZW32);
      x = (double)xf;
    } else {
      ok = try64(s.next64(), idx, rabs, x, (const u64*)ZK64, (const double*)ZW64);
    }
    if (ok) return x;
  }
}
#endif

// Output i from its first draw v (the chunk q of a 32-bit draw for PER > 1).
__device__ __forceinline__ OUT_T value(u64 v, int q, u64 i, u64 k0, u64 k1, u64 sub_id, u64 tag, double a,
                                       double b, u64 rng, u64 off, u64 thr) {
#if defined(VARIANT_UNIFORM64)
  double u = (double)(v >> 11) * (1.0 / 9007199254740992.0);
  return a + b * u;
#elif defined(VARIANT_UNIFORM32)
  float u = (float)((u32)v >> 8) * (1.0f / 16777216.0f);
  return (float)a + (float)b * u;
#elif defined(VARIANT_NORMAL64)
  int idx;
  u64 rabs;
  double x;
  if (!try64(v, idx, rabs, x, s_k64, s_w64)) {
    Sub s(k0, k1, sub_id, i, tag);
    x = normal_slow(idx, x, rabs, s, false);
  }
  return a + b * x;
#elif defined(VARIANT_NORMAL32)
  int idx;
  u64 rabs;
  float x;
  if (!try32((u32)v, idx, rabs, x, s_k32, s_w32)) {
    Sub s(k0, k1, sub_id, i, tag);
    x = (float)normal_slow(idx, (double)x, rabs, s, true);
  }
  return (float)a + (float)b * x;
#else  // VARIANT_BOUNDED: dist.rs's bounded
  u64 c = PER > 1 ? (v >> (CBITS * q)) : v;
  if (rng == 0) return (OUT_T)off;
  if (CBITS == 1) return (OUT_T)(off + (c & 1));
  if (CBITS == 64) {
    if (rng == ~0ull) return (OUT_T)(off + c);
    u64 excl = rng + 1;
    u64 lo = c * excl, hi = __umul64hi(c, excl);
    if (lo < thr) {
      Sub s(k0, k1, sub_id, i, tag);
      while (lo < thr) {
        u64 w = s.next64();
        lo = w * excl;
        hi = __umul64hi(w, excl);
      }
    }
    return (OUT_T)(off + hi);
  }
  const u64 mask = (CBITS == 64) ? ~0ull : ((1ull << (CBITS & 63)) - 1);
  if (rng >= mask) return (OUT_T)(off + (c & mask));
  u64 excl = rng + 1;
  u64 m = (c & mask) * excl;
  if ((m & mask) < thr) {
    Sub s(k0, k1, sub_id, i, tag);
    while ((m & mask) < thr) m = ((u64)s.next32() & mask) * excl;
  }
  return (OUT_T)(off + (m >> (CBITS & 63)));
#endif
}

#if defined(VARIANT_NORMAL64) || defined(VARIANT_NORMAL32)
#define NORMAL 1
// The first try alone (value()'s result when it accepts). A rejected output goes to the
// block's queue and is computed whole by value() after the tile's first tries, so that the
// rare slow paths (about 1.2% of outputs, but in most warps) run side by side instead of
// stalling a warp each.
__device__ __forceinline__ bool fast(u64 v, double a, double b, OUT_T& y) {
  int idx;
  u64 rabs;
#if defined(VARIANT_NORMAL64)
  double x;
  if (!try64(v, idx, rabs, x, s_k64, s_w64)) return false;
  y = a + b * x;
#else
  float x;
  if (!try32((u32)v, idx, rabs, x, s_k32, s_w32)) return false;
  y = (float)a + (float)b * x;
#endif
  return true;
}
#define QMAX 512
__shared__ int q_n;
__shared__ u32 q_k[QMAX];
__shared__ u64 q_v[QMAX];
#else
#define NORMAL 0
#endif

extern "C" __global__ void __launch_bounds__(THREADS)
random_fill(OUT_T* __restrict__ out, long long n, u64 k0, u64 k1, u64 start, int has_pending, u64 pending,
            u64 sub_id, u64 tag, double a, double b, u64 rng, u64 off, u64 thr, long long ntiles) {
#if defined(VARIANT_NORMAL64) || defined(VARIANT_NORMAL32)
  for (int q = threadIdx.x; q < 256; q += THREADS) {
#if defined(VARIANT_NORMAL64)
    s_k64[q] = ZK64[q];
    s_w64[q] = __longlong_as_double((long long)ZW64[q]);
#else
    s_k32[q] = ZK32[q];
    s_w32[q] = __uint_as_float(ZW32[q]);
#endif
  }
  if (threadIdx.x == 0) q_n = 0;
  __syncthreads();
#endif
#if STAGE
  __shared__ OUT_T stage[TILE_OUT];
#endif
  const u64 pend = (u64)has_pending;
  for (long long tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
    u64 blk0 = start / DPB + (u64)tile * THREADS;
    u64 blk = blk0 + threadIdx.x;
    u64 c[4] = {blk + 1, 0, 0, 0};
    philox(c, k0, k1);
#pragma unroll
    for (int l = 0; l < DPB; l++) {
      u64 h = blk * DPB + l;
      u64 d = h - start + pend;  // (wraps below `start`: those outputs are never stored)
      u64 v = BITS == 64 ? c[l] : (u64)(u32)(c[l / 2] >> (32 * (l % 2)));
#pragma unroll
      for (int q = 0; q < PER; q++) {
        u64 i = d * PER + q;
#if STAGE && NORMAL
        u32 k = (threadIdx.x * DPB + l) * PER + q;
        OUT_T y;
        if (fast(v, a, b, y)) {
          stage[k] = y;
        } else {
          int e = atomicAdd(&q_n, 1);
          if (e < QMAX) {
            q_k[e] = k;
            q_v[e] = v;
          } else {
            stage[k] = value(v, q, i, k0, k1, sub_id, tag, a, b, rng, off, thr);
          }
        }
#elif STAGE
        stage[(threadIdx.x * DPB + l) * PER + q] = value(v, q, i, k0, k1, sub_id, tag, a, b, rng, off, thr);
#else
        if (h >= start && i < (u64)n) out[i] = value(v, q, i, k0, k1, sub_id, tag, a, b, rng, off, thr);
#endif
      }
    }
#if STAGE
    __syncthreads();
    u64 h0 = blk0 * DPB;
#if NORMAL
    // The queued outputs, one a thread (PER is 1 for the normals).
    int m = q_n < QMAX ? q_n : QMAX;
    for (int e = threadIdx.x; e < m; e += THREADS) {
      u32 k = q_k[e];
      u64 i = (h0 + k - start) + pend;
      stage[k] = value(q_v[e], 0, i, k0, k1, sub_id, tag, a, b, rng, off, thr);
    }
    __syncthreads();
    if (threadIdx.x == 0) q_n = 0;
#endif
    // The tile's outputs in order: consecutive threads store consecutive elements.
    for (int k = threadIdx.x; k < TILE_OUT; k += THREADS) {
      u64 h = h0 + (u64)(k / PER);
      u64 i = (h - start + pend) * PER + (u64)(k % PER);
      if (h >= start && i < (u64)n) out[i] = stage[k];
    }
    __syncthreads();
#endif
  }
  if (blockIdx.x == 0 && threadIdx.x == 0 && has_pending) {
    // Draw 0: the kept high half of word `pending`.
    u64 p[4] = {pending / 4 + 1, 0, 0, 0};
    philox(p, k0, k1);
    u64 v = (u64)(u32)(p[pending % 4] >> 32);
#pragma unroll
    for (int q = 0; q < PER; q++) {
      if ((u64)q < (u64)n) out[q] = value(v, q, (u64)q, k0, k1, sub_id, tag, a, b, rng, off, thr);
    }
  }
}
