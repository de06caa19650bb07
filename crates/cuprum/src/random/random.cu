// The random fill: one thread per Philox4x64-10 block of the call's main stream (4 words, or
// 8 32-bit draws), each draw giving PER outputs; every output computed as dist.rs computes it,
// operation for operation (IEEE double and float arithmetic, compiled with --fmad=false), so
// the GPU's bits are the CPU's. Output i's further draws (rejections) come from its own
// substream, counter [sub_id, i, k, tag].
//
// Prelude (random/cuda.rs): VARIANT_UNIFORM64 / VARIANT_UNIFORM32 / VARIANT_BOUNDED /
// VARIANT_NORMAL64 / VARIANT_NORMAL32; BITS (64 or 32: the first draws), PER (outputs per
// draw), CBITS (BOUNDED: chunk bits 1, 8, 16, 32 or 64), typedef OUT_T; the constants M0, M1,
// W0, W1, LOG2E, SQRT2, LN2_HI, LN2_LO, ZIG_R (as bits) and, for the normals, the ziggurat's
// tables ZK64, ZW64, ZF64, ZK32, ZW32.
// -D: THREADS.
#include "cuprum/prelude.cuh"

#define DPB (BITS == 64 ? 4 : 8)

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
  for (int q = 0; q < 12; q++) p = p * s + 1.0 / d[q];
  double ed = (double)e;
  return (ed * LN2_HI + 2.0 * f * p) + ed * LN2_LO;
}

__device__ __forceinline__ double w64(int i) { return __longlong_as_double((long long)ZW64[i]); }
__device__ __forceinline__ double f64(int i) { return __longlong_as_double((long long)ZF64[i]); }
__device__ __forceinline__ float w32(int i) { return __uint_as_float(ZW32[i]); }

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
    if (f32_) {
      u32 r = s.next32();
      idx = (int)(r & 0xff);
      rabs = (u64)((r >> 9) & 0x007fffff);
      float xf = (float)rabs * w32(idx);
      if ((r >> 8) & 1) xf = -xf;
      x = (double)xf;
      if (rabs < (u64)ZK32[idx]) return x;
    } else {
      u64 r = s.next64();
      idx = (int)(r & 0xff);
      rabs = (r >> 9) & 0x000fffffffffffffull;
      x = (double)rabs * w64(idx);
      if ((r >> 8) & 1) x = -x;
      if (rabs < ZK64[idx]) return x;
    }
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
  int idx = (int)(v & 0xff);
  u64 rabs = (v >> 9) & 0x000fffffffffffffull;
  double x = (double)rabs * w64(idx);
  if ((v >> 8) & 1) x = -x;
  if (!(rabs < ZK64[idx])) {
    Sub s(k0, k1, sub_id, i, tag);
    x = normal_slow(idx, x, rabs, s, false);
  }
  return a + b * x;
#elif defined(VARIANT_NORMAL32)
  u32 r = (u32)v;
  int idx = (int)(r & 0xff);
  u32 rabs = (r >> 9) & 0x007fffff;
  float x = (float)rabs * w32(idx);
  if ((r >> 8) & 1) x = -x;
  if (!(rabs < ZK32[idx])) {
    Sub s(k0, k1, sub_id, i, tag);
    x = (float)normal_slow(idx, (double)x, (u64)rabs, s, true);
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

extern "C" __global__ void __launch_bounds__(THREADS)
random_fill(OUT_T* __restrict__ out, long long n, u64 k0, u64 k1, u64 start, int has_pending, u64 pending,
            u64 sub_id, u64 tag, double a, double b, u64 rng, u64 off, u64 thr) {
  long long t = (long long)blockIdx.x * THREADS + threadIdx.x;
  u64 blk = start / DPB + (u64)t;
  u64 c[4] = {blk + 1, 0, 0, 0};
  philox(c, k0, k1);
#pragma unroll
  for (int l = 0; l < DPB; l++) {
    u64 h = blk * DPB + l;
    if (h < start) continue;
    u64 d = h - start + (u64)has_pending;
    u64 v = BITS == 64 ? c[l] : (u64)(u32)(c[l / 2] >> (32 * (l % 2)));
#pragma unroll
    for (int q = 0; q < PER; q++) {
      u64 i = d * PER + q;
      if (i < (u64)n) out[i] = value(v, q, i, k0, k1, sub_id, tag, a, b, rng, off, thr);
    }
  }
  if (t == 0 && has_pending) {
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
