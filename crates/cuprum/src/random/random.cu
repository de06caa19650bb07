// The random fill. A warp tile is 32 consecutive Philox4x64-10 blocks of the call's main
// stream (each 4 words, or 8 32-bit draws, each draw giving PER outputs): each lane computes one
// block's outputs, then stores them with 16-byte stores where the tile is whole and aligned,
// or through the warp's shared stage with coalesced stores at the stream's ends (no barrier
// but the warp's). Warps loop over tiles, so the normals' ziggurat tables are copied to shared
// memory once per block. Every output is computed as dist.rs computes it, operation for
// operation (IEEE double and float arithmetic, compiled with --fmad=false), so the GPU's bits
// are the CPU's. Output i's further draws (rejections) come from its own substream, counter
// [sub_id, i, k, tag]. The rounds' keys come precomputed as a kernel parameter (Keys).
//
// Prelude (random/cuda.rs): VARIANT_UNIFORM64 / VARIANT_UNIFORM32 / VARIANT_BOUNDED /
// VARIANT_NORMAL64 / VARIANT_NORMAL32 / VARIANT_SAMPLER; BITS (64 or 32: the first draws), PER
// (outputs per draw), CBITS (BOUNDED: chunk bits 1, 8, 16, 32 or 64), STANDARD (uniforms and
// normals: the draw itself, without `a + b x`), typedef OUT_T; the constants M0, M1, W0, W1,
// LOG2E, SQRT2, LN2_HI, LN2_LO, ZIG_R (as bits) and, for the normals, the ziggurat's tables
// ZK64, ZW64, ZF64, ZK32, ZW32.
// -D: THREADS, STAGE (1: the tile's outputs fit the warps' stages in shared memory).
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

// The ten rounds' keys (k0 + r W0, k1 + r W1), a kernel parameter: the rounds read them from
// the constant bank instead of adding them up again for every block.
struct Keys {
  u64 k[20];
};
__device__ __forceinline__ void philox_rk(u64 c[4], const Keys& rk) {
#pragma unroll
  for (int r = 0; r < 10; r++) {
    u64 lo0 = M0 * c[0], hi0 = __umul64hi(M0, c[0]);
    u64 lo1 = M1 * c[2], hi1 = __umul64hi(M1, c[2]);
    u64 n0 = hi1 ^ c[1] ^ rk.k[2 * r], n2 = hi0 ^ c[3] ^ rk.k[2 * r + 1];
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

#if defined(VARIANT_NORMAL64) || defined(VARIANT_NORMAL32) || defined(VARIANT_SAMPLER)
// dist.rs's exp, ln and log1m.
__device__ __forceinline__ double pow2(long long k) { return __longlong_as_double((long long)((u64)(1023 + k) << 52)); }

__device__ double d_exp(double x) {
  if (x != x) return x;
  if (x < -745.2) return 0.0;
  if (x > 709.782712893384) return __longlong_as_double(0x7ff0000000000000ll);
  double k = ceil(x * LOG2E - 0.5);
  double r = (x - k * LN2_HI) - k * LN2_LO;
  const double d[13] = {479001600.0, 39916800.0, 3628800.0, 362880.0, 40320.0, 5040.0, 720.0,
                        120.0, 24.0, 6.0, 2.0, 1.0, 1.0};
  double p = 1.0 / 6227020800.0;
#pragma unroll
  for (int q = 0; q < 13; q++) p = p * r + 1.0 / d[q];
  long long ki = (long long)k;
  if (ki < -1021) return p * pow2(ki + 600) * pow2(-600);
  if (ki > 1023) return p * pow2(ki - 1) * 2.0;
  return p * pow2(ki);
}

__device__ double d_ln(double y) {
  if (y != y || y < 0.0) return __longlong_as_double(0x7ff8000000000000ll);
  if (y == 0.0) return __longlong_as_double((long long)0xfff0000000000000ull);
  if (y == __longlong_as_double(0x7ff0000000000000ll)) return y;
  long long e = 0;
  if (y < 2.2250738585072014e-308) { y = y * 18014398509481984.0; e = -54; }
  u64 bits = (u64)__double_as_longlong(y);
  e += (long long)((bits >> 52) & 0x7ff) - 1023;
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

__device__ __forceinline__ double log1m(double u) { return d_ln(1.0 - u); }

// The first try's tables (of this variant's width), copied to shared memory (divergent reads
// of __constant__ memory serialise); the rare paths read ZF64 and the float32 variant's later
// tries its tables from constant memory.
#if defined(VARIANT_NORMAL64)
__shared__ Pack<u64, 2> s_kw64[256];  // layer's bound and width (bits), one 16-byte load
#elif defined(VARIANT_NORMAL32)
__shared__ u64 s_kw32[256];  // layer's bound (low word) and width (bits, high word), one 8-byte load
#endif
__device__ __forceinline__ double f64(int i) { return __longlong_as_double((long long)ZF64[i]); }

// dist.rs's try64 / try32: one try of the ziggurat from draw `r` given its layer's bound `k` and
// width `w` (the layer is `r & 0xff`): magnitude, x, and whether it is accepted at once.
__device__ __forceinline__ bool step64(u64 r, u64& rabs, double& x, u64 k, double w) {
  rabs = (r >> 9) & 0x000fffffffffffffull;
  x = (double)rabs * w;
  if ((r >> 8) & 1) x = -x;
  return rabs < k;
}
__device__ __forceinline__ bool step32(u32 r, u64& rabs, float& x, u32 k, float w) {
  u32 ra = (r >> 9) & 0x007fffff;
  rabs = (u64)ra;
  x = (float)ra * w;
  if ((r >> 8) & 1) x = -x;
  return ra < k;
}
// A try with the layer's bound and width from tables `k` and `w` (the later tries: constant
// memory).
__device__ __forceinline__ bool try64(u64 r, int& idx, u64& rabs, double& x, const u64* k, const double* w) {
  idx = (int)(r & 0xff);
  return step64(r, rabs, x, k[idx], w[idx]);
}
__device__ __forceinline__ bool try32(u32 r, int& idx, u64& rabs, float& x, const u32* k, const float* w) {
  idx = (int)(r & 0xff);
  return step32(r, rabs, x, k[idx], w[idx]);
}
// The first try, from the packed shared tables.
#if defined(VARIANT_NORMAL64)
__device__ __forceinline__ bool first64(u64 r, int& idx, u64& rabs, double& x) {
  idx = (int)(r & 0xff);
  const Pack<u64, 2> e = s_kw64[idx];
  return step64(r, rabs, x, e.v[0], __longlong_as_double((long long)e.v[1]));
}
#elif defined(VARIANT_NORMAL32)
__device__ __forceinline__ bool first32(u32 r, int& idx, u64& rabs, float& x) {
  idx = (int)(r & 0xff);
  const u64 e = s_kw32[idx];
  return step32(r, rabs, x, (u32)e, __uint_as_float((u32)(e >> 32)));
}
#endif

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
    if ((f64(idx - 1) - f64(idx)) * s.next_double() + f64(idx) < d_exp(-0.5 * x * x)) return x;
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

#if defined(VARIANT_SAMPLER)
// samplers.rs, operation for operation. KIND: 0 exponential, 1 gamma, 2 beta, 3 Poisson,
// 4 binomial, 5 log-normal.
__device__ double normal_from(Sub& s) {
  int idx;
  u64 rabs;
  double x;
  if (try64(s.next64(), idx, rabs, x, (const u64*)ZK64, (const double*)ZW64)) return x;
  return normal_slow(idx, x, rabs, s, false);
}

__device__ __forceinline__ double std_exponential(Sub& s) { return -log1m(s.next_double()); }

__device__ __forceinline__ double d_pow(double x, double y) { return d_exp(y * d_ln(x)); }

__device__ double std_gamma(double shape, Sub& s) {
  if (shape == 1.0) return std_exponential(s);
  if (shape == 0.0) return 0.0;
  if (shape < 1.0) {
    for (;;) {
      double u = s.next_double();
      double v = std_exponential(s);
      if (u <= 1.0 - shape) {
        double x = d_pow(u, 1.0 / shape);
        if (x <= v) return x;
      } else {
        double y = -d_ln((1.0 - u) / shape);
        double x = d_pow(1.0 - shape + shape * y, 1.0 / shape);
        if (x <= v + y) return x;
      }
    }
  }
  double b = shape - 1.0 / 3.0;
  double c = 1.0 / sqrt(9.0 * b);
  for (;;) {
    double x, v;
    for (;;) {
      x = normal_from(s);
      v = 1.0 + c * x;
      if (v > 0.0) break;
    }
    v = v * v * v;
    double u = s.next_double();
    if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return b * v;
    if (d_ln(u) < 0.5 * x * x + b * (1.0 - v + d_ln(v))) return b * v;
  }
}

__device__ double beta_(double a, double b, Sub& s) {
  if (a <= 1.0 && b <= 1.0) {
    for (;;) {
      double u = s.next_double();
      double v = s.next_double();
      double x = d_pow(u, 1.0 / a);
      double y = d_pow(v, 1.0 / b);
      double xpy = x + y;
      if (xpy <= 1.0 && u + v > 0.0) {
        if (xpy > 0.0) return x / xpy;
        double lx = d_ln(u) / a;
        double ly = d_ln(v) / b;
        double lm = lx > ly ? lx : ly;
        lx -= lm;
        ly -= lm;
        return d_exp(lx - d_ln(d_exp(lx) + d_exp(ly)));
      }
    }
  }
  double ga = std_gamma(a, s);
  double gb = std_gamma(b, s);
  return ga / (ga + gb);
}

__device__ double loggam(double x) {
  const double C[10] = {1.0 / 12.0, -1.0 / 360.0, 1.0 / 1260.0, -1.0 / 1680.0, 1.0 / 1188.0,
                        -691.0 / 360360.0, 1.0 / 156.0, -3617.0 / 122400.0, 43867.0 / 244188.0,
                        -174611.0 / 125400.0};
  if (x == 1.0 || x == 2.0) return 0.0;
  long long n = x <= 7.0 ? (long long)(7.0 - x) : 0;
  double x0 = x + (double)n;
  double x2 = 1.0 / (x0 * x0);
  double g = C[9];
  for (int k = 8; k >= 0; k--) g = g * x2 + C[k];
  double gl = g / x0 + 0.9189385332046728 + (x0 - 0.5) * d_ln(x0) - x0;
  for (long long j = 0; j < n; j++) {
    x0 -= 1.0;
    gl -= d_ln(x0);
  }
  return gl;
}

__device__ long long poisson(double lam, Sub& s) {
  if (lam >= 10.0) {
    double slam = sqrt(lam);
    double loglam = d_ln(lam);
    double b = 0.931 + 2.53 * slam;
    double a = -0.059 + 0.02483 * b;
    double invalpha = 1.1239 + 1.1328 / (b - 3.4);
    double vr = 0.9277 - 3.6224 / (b - 2.0);
    for (;;) {
      double u = s.next_double() - 0.5;
      double v = s.next_double();
      double us = 0.5 - fabs(u);
      double k = floor((2.0 * a / us + b) * u + lam + 0.43);
      if (us >= 0.07 && v <= vr) return (long long)k;
      if (k < 0.0 || (us < 0.013 && v > us)) continue;
      if (d_ln(v) + d_ln(invalpha) - d_ln(a / (us * us) + b) <= -lam + k * loglam - loggam(k + 1.0))
        return (long long)k;
    }
  }
  if (lam == 0.0) return 0;
  double enlam = d_exp(-lam);
  long long x = 0;
  double prod = 1.0;
  for (;;) {
    prod *= s.next_double();
    if (prod > enlam) x += 1;
    else return x;
  }
}

__device__ long long binomial_inversion(long long n, double p, Sub& s) {
  double q = 1.0 - p;
  double qn = d_exp((double)n * d_ln(q));
  double np = (double)n * p;
  double bb = np + 10.0 * sqrt(np * q + 1.0);
  double bound = (double)n < bb ? (double)n : bb;
  long long x = 0;
  double px = qn;
  double u = s.next_double();
  while (u > px) {
    x += 1;
    if ((double)x > bound) {
      x = 0;
      px = qn;
      u = s.next_double();
    } else {
      u -= px;
      px = ((double)(n - x + 1) * p * px) / ((double)x * q);
    }
  }
  return x;
}

__device__ __forceinline__ double stirl(double a, double a2) {
  return (13860.0 - (462.0 - (132.0 - (99.0 - 140.0 / a2) / a2) / a2) / a2) / a / 166320.0;
}

__device__ long long btpe(long long n, double p, Sub& s) {
  double nf = (double)n;
  double r = p;
  double q = 1.0 - r;
  double fm = nf * r + r;
  double m = floor(fm);
  double p1 = floor(2.195 * sqrt(nf * r * q) - 4.6 * q) + 0.5;
  double xm = m + 0.5;
  double xl = xm - p1;
  double xr = xm + p1;
  double c = 0.134 + 20.5 / (15.3 + m);
  double a = (fm - xl) / (fm - xl * r);
  double laml = a * (1.0 + a / 2.0);
  a = (xr - fm) / (xr * q);
  double lamr = a * (1.0 + a / 2.0);
  double p2 = p1 * (1.0 + 2.0 * c);
  double p3 = p2 + c / laml;
  double p4 = p3 + c / lamr;
  double nrq = nf * r * q;
  for (;;) {
    double u = s.next_double() * p4;
    double v = s.next_double();
    double y;
    if (u <= p1) return (long long)floor(xm - p1 * v + u);
    if (u <= p2) {
      double x = xl + (u - p1) / c;
      v = v * c + 1.0 - fabs(m - x + 0.5) / p1;
      if (v > 1.0) continue;
      y = floor(x);
    } else if (u <= p3) {
      y = floor(xl + d_ln(v) / laml);
      if (y < 0.0) continue;
      v = v * (u - p2) * laml;
    } else {
      y = floor(xr - d_ln(v) / lamr);
      if (y > nf) continue;
      v = v * (u - p3) * lamr;
    }
    double k = fabs(y - m);
    if (k <= 20.0 || k >= nrq / 2.0 - 1.0) {
      double sr = r / q;
      double aa = sr * (nf + 1.0);
      double f = 1.0;
      if (m < y) {
        for (double i = m + 1.0; i <= y; i += 1.0) f *= aa / i - sr;
      } else if (m > y) {
        for (double i = y + 1.0; i <= m; i += 1.0) f /= aa / i - sr;
      }
      if (v > f) continue;
      return (long long)y;
    }
    double rho = (k / nrq) * ((k * (k / 3.0 + 0.625) + 0.16666666666666666) / nrq + 0.5);
    double t = -k * k / (2.0 * nrq);
    double av = d_ln(v);
    if (av < t - rho) return (long long)y;
    if (av > t + rho) continue;
    double x1 = y + 1.0;
    double f1 = m + 1.0;
    double z = nf + 1.0 - m;
    double w = nf - y + 1.0;
    double bound = xm * d_ln(f1 / x1) + (nf - m + 0.5) * d_ln(z / w) + (y - m) * d_ln(w * r / (x1 * q)) +
                   stirl(f1, f1 * f1) + stirl(z, z * z) + stirl(x1, x1 * x1) + stirl(w, w * w);
    if (av > bound) continue;
    return (long long)y;
  }
}

__device__ long long binomial(long long n, double p, Sub& s) {
  if (n == 0 || p == 0.0) return 0;
  if (p <= 0.5) {
    if (p * (double)n <= 30.0) return binomial_inversion(n, p, s);
    return btpe(n, p, s);
  }
  double q = 1.0 - p;
  if (q * (double)n <= 30.0) return n - binomial_inversion(n, q, s);
  return n - btpe(n, q, s);
}

// samplers.rs's sample: the output's bits (f64, or i64 for the discrete kinds).
__device__ __noinline__ u64 sample(double a, double b, u64 n, Sub& s) {
#if KIND == 0
  return (u64)__double_as_longlong(a * std_exponential(s));
#elif KIND == 1
  return (u64)__double_as_longlong(b * std_gamma(a, s));
#elif KIND == 2
  return (u64)__double_as_longlong(beta_(a, b, s));
#elif KIND == 3
  return (u64)poisson(a, s);
#elif KIND == 4
  return (u64)binomial((long long)n, a, s);
#else
  return (u64)__double_as_longlong(d_exp(a + b * normal_from(s)));
#endif
}
#endif

// Output i from its first draw v (the chunk q of a 32-bit draw for PER > 1).
__device__ __forceinline__ OUT_T value(u64 v, int q, u64 i, u64 k0, u64 k1, u64 sub_id, u64 tag, double a,
                                       double b, u64 rng, u64 off, u64 thr) {
#if defined(VARIANT_UNIFORM64)
  double u = (double)(v >> 11) * (1.0 / 9007199254740992.0);
#if STANDARD
  return u;
#else
  return a + b * u;
#endif
#elif defined(VARIANT_UNIFORM32)
  float u = (float)((u32)v >> 8) * (1.0f / 16777216.0f);
#if STANDARD
  return u;
#else
  return (float)a + (float)b * u;
#endif
#elif defined(VARIANT_NORMAL64)
  int idx;
  u64 rabs;
  double x;
  if (!first64(v, idx, rabs, x)) {
    Sub s(k0, k1, sub_id, i, tag);
    x = normal_slow(idx, x, rabs, s, false);
  }
#if STANDARD
  return x;
#else
  return a + b * x;
#endif
#elif defined(VARIANT_NORMAL32)
  int idx;
  u64 rabs;
  float x;
  if (!first32((u32)v, idx, rabs, x)) {
    Sub s(k0, k1, sub_id, i, tag);
    x = (float)normal_slow(idx, (double)x, rabs, s, true);
  }
#if STANDARD
  return x;
#else
  return (float)a + (float)b * x;
#endif
#elif defined(VARIANT_SAMPLER)
  Sub s(k0, k1, sub_id, i, tag);
  s.buf[3] = v;
  s.pos = 3;
  u64 r = sample(a, b, rng, s);
#if KIND == 3 || KIND == 4
  return (OUT_T)(long long)r;
#else
  return (OUT_T)__longlong_as_double((long long)r);
#endif
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
// The first try alone (value()'s result when it accepts). A rejected output goes to its
// warp's queue and is computed whole by value() once 32 are waiting, one a lane, so that the
// rare slow paths (about 1.2% of outputs, but in most warps' tiles) run side by side instead
// of stalling the warp once each.
__device__ __forceinline__ bool fast(u64 v, double a, double b, OUT_T& y) {
  int idx;
  u64 rabs;
#if defined(VARIANT_NORMAL64)
  double x;
  const bool ok = first64(v, idx, rabs, x);
#if STANDARD
  y = x;
#else
  y = a + b * x;
#endif
#else
  float x;
  const bool ok = first32((u32)v, idx, rabs, x);
#if STANDARD
  y = x;
#else
  y = (float)a + (float)b * x;
#endif
#endif
  return ok;
}
#if defined(VARIANT_NORMAL64)
typedef u64 QV;
#else
typedef u32 QV;
#endif
#else
#define NORMAL 0
#endif

#define FULL 0xffffffffu
#define WARPS (THREADS / 32)
// A thread's outputs (one Philox block's) and a warp tile's (32 consecutive blocks').
#define NL (DPB * PER)
#define WTILE (32 * NL)
// A warp's queue holds what is left of earlier tiles (under 32) and a whole tile's.
#define WQ (32 + WTILE)
// Outputs of a 16-byte store.
#define VEC (16 / (int)sizeof(OUT_T))

// Output k of lane t's run in its warp's stage. The runs are NL outputs long; where a run is
// 32 bytes or longer (and outputs are whole 4-byte words), output k's slot is rotated by the
// lane's row of 128 bytes, so that the lanes' stores of their k-th outputs hit different
// banks and the warp's reads of 32 consecutive outputs stay within one row.
#define RUNB (NL * (int)sizeof(OUT_T))
#define LROW (RUNB >= 128 ? 1 : 128 / RUNB)
__device__ __forceinline__ int slot(int t, int k) {
  if (sizeof(OUT_T) >= 4 && RUNB >= 32) return t * NL + (k ^ ((t / LROW) & (NL - 1)));
  return t * NL + k;
}

// Draw l of a Philox block (its word picked by selects, so that a run-time l, the queue's,
// does not index the block through local memory).
__device__ __forceinline__ u64 draw(const u64 c[4], int l) {
  const int j = BITS == 64 ? l : l / 2;
  const u64 w = j == 0 ? c[0] : j == 1 ? c[1] : j == 2 ? c[2] : c[3];
  return BITS == 64 ? w : (u64)(u32)(w >> (32 * (l % 2)));
}

// Four blocks an SM (64 registers): the measured best for the fills; the samplers' longer
// code keeps the compiler's count.
#if defined(VARIANT_SAMPLER)
#define MINB 1
#else
#define MINB 4
#endif
extern "C" __global__ void __launch_bounds__(THREADS, MINB)
random_fill(OUT_T* __restrict__ out, long long n, const Keys rk, u64 start, int has_pending, u64 pending,
            u64 sub_id, u64 tag, double a, double b, u64 rng, u64 off, u64 thr, long long ntiles) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const u64 k0 = rk.k[0], k1 = rk.k[1];
#if NORMAL
  for (int q = threadIdx.x; q < 256; q += THREADS) {
#if defined(VARIANT_NORMAL64)
    s_kw64[q].v[0] = ZK64[q];
    s_kw64[q].v[1] = ZW64[q];
#else
    s_kw32[q] = (u64)ZK32[q] | ((u64)ZW32[q] << 32);
#endif
  }
  // The warp's queue of rejected outputs (index and first draw) and its length.
  __shared__ long long q_i[WARPS][WQ];
  __shared__ QV q_v[WARPS][WQ];
  __shared__ int q_n[WARPS];
  if (lane == 0) q_n[warp] = 0;
  __syncthreads();
#endif
#if STAGE
  __shared__ OUT_T stage_[WARPS][WTILE];
  OUT_T* stage = stage_[warp];
#endif
  const u64 pend = (u64)has_pending;
  // Outputs below `lo` are the kept half's (written at the end) or before the stream's start.
  const long long lo = (long long)(pend * PER);
  // Warp tiles: 32 consecutive Philox blocks each, the warps of the grid taking them in turn.
  for (long long tile = (long long)blockIdx.x * WARPS + warp; tile < ntiles; tile += (long long)gridDim.x * WARPS) {
    const u64 blk0 = start / DPB + (u64)tile * 32;
    // Output index of the tile's first output (negative in the stream's first tile).
    const long long base = (long long)((blk0 * DPB - start + pend) * PER);
    const long long mine = base + lane * NL;
    u64 c[4] = {blk0 + lane + 1, 0, 0, 0};
    philox_rk(c, rk);
#if STAGE
    // A whole tile of outputs below n, at a 16-byte boundary: each lane stores its run with
    // vector stores. Otherwise the tile goes through the warp's stage.
    const bool whole = base >= lo && base + WTILE <= n && (((unsigned long long)(out + base)) & 15) == 0;
#if NORMAL
    u32 rmask = 0;
#endif
    OUT_T y[NL];
#pragma unroll
    for (int l = 0; l < DPB; l++) {
#pragma unroll
      for (int q = 0; q < PER; q++) {
        const int k = l * PER + q;
#if NORMAL
        if (!fast(draw(c, l), a, b, y[k])) rmask |= 1u << k;
#else
        y[k] = value(draw(c, l), q, (u64)(mine + k), k0, k1, sub_id, tag, a, b, rng, off, thr);
#endif
      }
    }
#if NORMAL
    if (!whole) {
#pragma unroll
      for (int k = 0; k < NL; k++) {
        if (mine + k < lo || mine + k >= n) rmask &= ~(1u << k);
      }
    }
    // The lane's rejected outputs onto the warp's queue.
    if (rmask) {
      int e = atomicAdd(&q_n[warp], __popc(rmask));
      do {
        const int k = __ffs(rmask) - 1;
        rmask &= rmask - 1;
        q_i[warp][e] = mine + k;
        q_v[warp][e] = (QV)draw(c, k / PER);
        e++;
      } while (rmask);
    }
#endif
    if (whole) {
      // (a queued output's slot holds a stale value until the queue is finished)
      Pack<OUT_T, VEC>* o = reinterpret_cast<Pack<OUT_T, VEC>*>(out + mine);
#pragma unroll
      for (int j = 0; j < NL / VEC; j++) {
        Pack<OUT_T, VEC> p;
#pragma unroll
        for (int u = 0; u < VEC; u++) p.v[u] = y[j * VEC + u];
        o[j] = p;
      }
    } else {
#pragma unroll
      for (int k = 0; k < NL; k++) stage[slot(lane, k)] = y[k];
      __syncwarp();
      // The tile's outputs in order: consecutive lanes store consecutive elements.
#pragma unroll
      for (int r = 0; r < NL; r++) {
        const int e = r * 32 + lane;
        const long long i = base + e;
        if (i >= lo && i < n) out[i] = stage[slot(e / NL, e % NL)];
      }
    }
    __syncwarp();
#if NORMAL
    int qn = q_n[warp];
    if (qn >= 32) {
      do {
        const int e = qn - 32 + lane;
        const long long i = q_i[warp][e];
        out[i] = value((u64)q_v[warp][e], 0, (u64)i, k0, k1, sub_id, tag, a, b, rng, off, thr);
        qn -= 32;
      } while (qn >= 32);
      __syncwarp();
      if (lane == 0) q_n[warp] = qn;
      __syncwarp();
    }
#endif
#else
#pragma unroll
    for (int l = 0; l < DPB; l++) {
#pragma unroll
      for (int q = 0; q < PER; q++) {
        const long long i = mine + l * PER + q;
        if (i >= lo && i < n) out[i] = value(draw(c, l), q, (u64)i, k0, k1, sub_id, tag, a, b, rng, off, thr);
      }
    }
#endif
  }
#if NORMAL
  __syncwarp();
  const int qn = q_n[warp];
  if (lane < qn) {
    const long long i = q_i[warp][lane];
    out[i] = value((u64)q_v[warp][lane], 0, (u64)i, k0, k1, sub_id, tag, a, b, rng, off, thr);
  }
#endif
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
