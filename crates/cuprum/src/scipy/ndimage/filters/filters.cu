// scipy.ndimage's linear filters (scipy/ndimage/filters/mod.rs): every value computed in
// double, in SciPy's order of operations, and stored in the output type with SciPy's C casts
// (x86-64 semantics, written out: CUDA's own conversions saturate).
//
// Prelude (cuda.rs): TI and TO, the input and output storage types; LOADI(v), a TI as double;
// STOREO(x), a double as TO (SciPy's line-buffer cast); STOREMID(x), the intermediate of a
// fused pass as SciPy stores it (a bool output's whole byte); STORE_SAFE(x), NI_Correlate's cast
// (`x > -1 ? (TO)x : -(TO)(-x)` for unsigned outputs); one VARIANT_* macro selecting the
// kernel. -D: THREADS; for the fused kernel TW, TH (the output tile, multiples of RB), RB (outputs
// a thread computes in a row or column), MAXK (most taps), K0 and K1 (the taps of its passes).
#include "cuprum/ndimage_mode.cuh"

__device__ __forceinline__ int nd_cvt32(double x) {
  return (x > -2147483649.0 && x < 2147483648.0) ? (int)x : (int)0x80000000;
}
__device__ __forceinline__ long long nd_cvt64(double x) {
  return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (long long)x
                                                                     : (long long)0x8000000000000000ULL;
}
__device__ __forceinline__ unsigned long long nd_cvtu64(double x) {
  return x >= 9223372036854775808.0
             ? ((unsigned long long)nd_cvt64(x - 9223372036854775808.0)) ^ 0x8000000000000000ULL
             : (unsigned long long)nd_cvt64(x);
}

#if defined(VARIANT_CORR1D) || defined(VARIANT_UNIFORM1D)
__device__ __forceinline__ double at1(const TI* line, long long p, long long n, long long inner, int mode,
                                      double cval) {
  const long long r = nd_resolve(mode, p, n);
  return r < 0 ? cval : (double)LOADI(line[r * inner]);
}
#endif

#if defined(VARIANT_CORR1D)
// One output a thread of a 1-d correlation along an axis of a C-contiguous array viewed as
// (outer, n, inner): output l reads input l + j - origin for j in -size1..size2, through the
// boundary rule per tap; the three sums of NI_Correlate1D (sym 1, -1, 0).
extern "C" __global__ void __launch_bounds__(THREADS) corr1d(const TI* __restrict__ x, TO* __restrict__ y,
                                                            const double* __restrict__ w, long long outer,
                                                            long long n, long long inner, int k, int origin,
                                                            int sym, int mode, double cval) {
  const long long total = outer * n * inner;
  const int s1 = k / 2, s2 = k - s1 - 1;
  for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < total;
       idx += (long long)gridDim.x * blockDim.x) {
    const long long i = idx % inner, t = idx / inner;
    const long long l = t % n, o = t / n;
    const TI* line = x + o * n * inner + i;
#define AT(j) at1(line, l + (j) - origin, n, inner, mode, cval)
    double acc;
    if (sym > 0) {
      acc = AT(0) * w[s1];
      for (int j = -s1; j < 0; j++) acc += (AT(j) + AT(-j)) * w[s1 + j];
    } else if (sym < 0) {
      acc = AT(0) * w[s1];
      for (int j = -s1; j < 0; j++) acc += (AT(j) - AT(-j)) * w[s1 + j];
    } else {
      acc = AT(s2) * w[s1 + s2];
      for (int j = -s1; j < s2; j++) acc += AT(j) * w[s1 + j];
    }
#undef AT
    y[idx] = STOREO(acc);
  }
}
#endif


#if defined(VARIANT_UNIFORM1D)
// One line a thread: SciPy's running sum of `size` values in double (NI_UniformFilter1D).
#define UB 8
extern "C" __global__ void __launch_bounds__(THREADS) uniform1d(const TI* __restrict__ x, TO* __restrict__ y,
                                                               long long outer, long long n, long long inner,
                                                               long long size, long long before, int mode,
                                                               double cval) {
  const long long lines = outer * inner;
  const double fs = (double)size;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < lines;
       t += (long long)gridDim.x * blockDim.x) {
    const long long i = t % inner, o = t / inner;
    const TI* line = x + o * n * inner + i;
    TO* out = y + o * n * inner + i;
    double tmp = 0.0;
    for (long long q = 0; q < size; q++) tmp += at1(line, q - before, n, inner, mode, cval);
    out[0] = STOREO(tmp / fs);
    // UB steps at a time: their loads first (all in flight together), then the running sum in
    // SciPy's order.
    for (long long l0 = 1; l0 < n; l0 += UB) {
      double add[UB], sub[UB];
#pragma unroll
      for (int u = 0; u < UB; u++) {
        const long long l = l0 + u;
        if (l < n) {
          add[u] = at1(line, l - 1 + size - before, n, inner, mode, cval);
          sub[u] = at1(line, l - 1 - before, n, inner, mode, cval);
        }
      }
#pragma unroll
      for (int u = 0; u < UB; u++) {
        const long long l = l0 + u;
        if (l < n) {
          tmp += add[u] - sub[u];
          out[l * inner] = STOREO(tmp / fs);
        }
      }
    }
  }
}
#endif

#if defined(VARIANT_SEP2D)
// The two passes of a 2-d separable filter (axis 0, then axis 1) in one kernel, K0 and K1 taps
// compiled in: a block loads its TH x TW output tile with the halos of both passes into
// shared memory (as double, rows of pitch SEP_P, odd against bank conflicts; the boundary rule of
// each axis applied once per loaded element), runs the axis-0 pass over the tile's rows and
// the halo columns into a second buffer (each value rounded as SciPy stores its intermediate
// in the output, and read back; the constant of axis 1's mode where a halo column lies outside
// the image), then the axis-1 pass from that buffer. In each pass a thread computes RB
// consecutive outputs from a window of RB + K - 1 values held in registers.
// At least 3 blocks an SM: at 96 registers a thread only 2 fitted (25% occupancy, latency
// bound under ncu); capped registers made gaussian_filter(2048^2 f32) 0.116 -> 0.100 ms (run r).
#define SEP_MIN_BLOCKS 3
#define SEP_IH (TH + K0 - 1)
#define SEP_IW (TW + K1 - 1)
#define SEP_P (SEP_IW | 1)
struct Taps2 {
  double w0[MAXK];
  double w1[MAXK];
};

// NI_Correlate1D's sums over K taps v[0..K-1] (in registers) with weights w.
template <int K>
__device__ __forceinline__ double sep_sum(const double* v, const double* w, int sym) {
  const int S1 = K / 2;
  double acc;
  if (sym > 0) {
    acc = v[S1] * w[S1];
#pragma unroll
    for (int j = 0; j < S1; j++) acc += (v[j] + v[K - 1 - j]) * w[j];
  } else if (sym < 0) {
    acc = v[S1] * w[S1];
#pragma unroll
    for (int j = 0; j < S1; j++) acc += (v[j] - v[K - 1 - j]) * w[j];
  } else {
    acc = v[K - 1] * w[K - 1];
#pragma unroll
    for (int j = 0; j < K - 1; j++) acc += v[j] * w[j];
  }
  return acc;
}

extern "C" __global__ void __launch_bounds__(THREADS, SEP_MIN_BLOCKS) sep2d(const TI* __restrict__ x, TO* __restrict__ y, long long h,
                                                           long long wd, Taps2 taps, int b0, int b1, int sym0,
                                                           int sym1, int mode0, int mode1, double cval) {
  extern __shared__ double sm[];
  __shared__ double sw0[MAXK], sw1[MAXK];
  const int tid = threadIdx.x;
  double* tin = sm;            // SEP_IH rows of pitch SEP_P: the input with both halos
  double* tmid = sm + SEP_IH * SEP_P;  // TH rows of pitch SEP_P: after the axis-0 pass
  const long long r0 = (long long)blockIdx.y * TH, c0 = (long long)blockIdx.x * TW;
  if (tid < K0) sw0[tid] = taps.w0[tid];
  if (tid < K1) sw1[tid] = taps.w1[tid];
  for (int e = tid; e < SEP_IH * SEP_IW; e += THREADS) {
    const int p = e / SEP_IW, q = e % SEP_IW;
    const long long pr = nd_resolve(mode0, r0 + p - b0, h);
    const long long pc = nd_resolve(mode1, c0 + q - b1, wd);
    tin[p * SEP_P + q] = pr < 0 ? cval : (pc < 0 ? 0.0 : (double)LOADI(x[pr * wd + pc]));
  }
  __syncthreads();
  // Axis 0: task (g, q) computes rows g*RB .. g*RB+RB-1 of column q.
  for (int e = tid; e < (TH / RB) * SEP_IW; e += THREADS) {
    const int g = e / SEP_IW, q = e % SEP_IW;
    const bool outside = nd_resolve(mode1, c0 + q - b1, wd) < 0;
    double win[RB + K0 - 1];
#pragma unroll
    for (int i = 0; i < RB + K0 - 1; i++) win[i] = tin[(g * RB + i) * SEP_P + q];
#pragma unroll
    for (int r = 0; r < RB; r++) {
      const int p = g * RB + r;
      double v = 0.0;
      if (r0 + p < h) v = outside ? cval : (double)STOREMID(sep_sum<K0>(win + r, sw0, sym0));
      tmid[p * SEP_P + q] = v;
    }
  }
  __syncthreads();
  // Axis 1: task (p, cg) computes columns cg*RB .. cg*RB+RB-1 of row p.
  for (int e = tid; e < TH * (TW / RB); e += THREADS) {
    const int p = e / (TW / RB), cg = e % (TW / RB);
    const long long r = r0 + p;
    if (r >= h) continue;
    double win[RB + K1 - 1];
#pragma unroll
    for (int i = 0; i < RB + K1 - 1; i++) win[i] = tmid[p * SEP_P + cg * RB + i];
#pragma unroll
    for (int q = 0; q < RB; q++) {
      const long long c = c0 + cg * RB + q;
      if (c < wd) y[r * wd + c] = STOREO(sep_sum<K1>(win + q, sw1, sym1));
    }
  }
}
#undef SEP_IH
#undef SEP_IW
#undef SEP_P
#endif

#if defined(VARIANT_CORRND)
// One output a thread of the N-d correlation (NI_Correlate): the nonzero taps in C order,
// `meta` = the shape (nd values), then per tap nd coordinate offsets; in constant mode a tap
// with any coordinate outside reads cval.
extern "C" __global__ void __launch_bounds__(THREADS) corrnd(const TI* __restrict__ x, TO* __restrict__ y,
                                                            const long long* __restrict__ meta,
                                                            const double* __restrict__ w, int nd, int ntaps,
                                                            long long total, int mode, double cval) {
  long long coord[ND_MAX];
  for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < total;
       idx += (long long)gridDim.x * blockDim.x) {
    long long rem = idx;
    for (int d = nd - 1; d >= 0; d--) {
      coord[d] = rem % meta[d];
      rem /= meta[d];
    }
    double acc = 0.0;
    for (int t = 0; t < ntaps; t++) {
      const long long* off = meta + nd + (long long)t * nd;
      long long pos = 0;
      bool border = false;
      for (int d = 0; d < nd; d++) {
        const long long r = nd_resolve(mode, coord[d] + off[d], meta[d]);
        if (r < 0) border = true;
        pos = pos * meta[d] + (r < 0 ? 0 : r);
      }
      acc += w[t] * (border ? cval : (double)LOADI(x[pos]));
    }
    y[idx] = STORE_SAFE(acc);
  }
}
#endif
