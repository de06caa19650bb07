// scipy.ndimage's linear filters (scipy/ndimage/filters/mod.rs): every value computed in
// double, in SciPy's order of operations, and stored in the output type with SciPy's C casts
// (x86-64 semantics, written out: CUDA's own conversions saturate).
//
// Prelude (cuda.rs): TI and TO, the input and output storage types; LOADI(v), a TI as double;
// STOREO(x), a double as TO (SciPy's line-buffer cast); STOREMID(x), the intermediate of a
// fused pass as SciPy stores it (a bool output's whole byte); STORE_SAFE(x), NI_Correlate's cast
// (`x > -1 ? (TO)x : -(TO)(-x)` for unsigned outputs); one VARIANT_* macro selecting the
// kernel. -D: THREADS; for the fused kernel TW, TH (the output tile) and MAXK (most taps).
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
    for (long long l = 1; l < n; l++) {
      tmp += at1(line, l - 1 + size - before, n, inner, mode, cval) - at1(line, l - 1 - before, n, inner, mode, cval);
      out[l * inner] = STOREO(tmp / fs);
    }
  }
}
#endif

#if defined(VARIANT_SEP2D)
// The two passes of a 2-d separable filter (axis 0, then axis 1) in one kernel: a block
// loads its TH x TW output tile with the halos of both passes into shared memory (as double,
// the boundary rule of each axis applied once per loaded element), runs the axis-0 pass over
// the tile's rows and the halo columns into a second buffer (each value rounded to TO and read
// back, as SciPy stores its intermediate in the output; the constant of axis 1's mode where a
// halo column lies outside the image), then the axis-1 pass from that buffer.
struct Taps2 {
  double w0[MAXK];
  double w1[MAXK];
};

__device__ __forceinline__ double sep_sum(const double* v, long long step, const double* w, int k, int sym) {
  // v points at the first tap's value; tap j (0..k-1) at v[j * step].
  const int s1 = k / 2;
  double acc;
  if (sym > 0) {
    acc = v[s1 * step] * w[s1];
    for (int j = 0; j < s1; j++) acc += (v[j * step] + v[(k - 1 - j) * step]) * w[j];
  } else if (sym < 0) {
    acc = v[s1 * step] * w[s1];
    for (int j = 0; j < s1; j++) acc += (v[j * step] - v[(k - 1 - j) * step]) * w[j];
  } else {
    acc = v[(k - 1) * step] * w[k - 1];
    for (int j = 0; j < k - 1; j++) acc += v[j * step] * w[j];
  }
  return acc;
}

extern "C" __global__ void __launch_bounds__(THREADS) sep2d(const TI* __restrict__ x, TO* __restrict__ y, long long h,
                                                           long long wd, Taps2 taps, int k0, int k1, int b0, int b1,
                                                           int sym0, int sym1, int mode0, int mode1, double cval) {
  extern __shared__ double sm[];
  __shared__ double sw0[MAXK], sw1[MAXK];
  const int tid = threadIdx.x;
  const int ih = TH + k0 - 1, iw = TW + k1 - 1;
  double* tin = sm;             // ih x iw: the input with both halos
  double* tmid = sm + ih * iw;  // TH x iw: after the axis-0 pass
  const long long r0 = (long long)blockIdx.y * TH, c0 = (long long)blockIdx.x * TW;
  if (tid < k0) sw0[tid] = taps.w0[tid];
  if (tid < k1) sw1[tid] = taps.w1[tid];
  for (int e = tid; e < ih * iw; e += THREADS) {
    const int p = e / iw, q = e % iw;
    const long long pr = nd_resolve(mode0, r0 + p - b0, h);
    const long long pc = nd_resolve(mode1, c0 + q - b1, wd);
    tin[e] = pr < 0 ? cval : (pc < 0 ? 0.0 : (double)LOADI(x[pr * wd + pc]));
  }
  __syncthreads();
  for (int e = tid; e < TH * iw; e += THREADS) {
    const int p = e / iw, q = e % iw;
    double v = 0.0;
    if (r0 + p < h) {
      if (nd_resolve(mode1, c0 + q - b1, wd) < 0) {
        v = cval;
      } else {
        v = (double)STOREMID(sep_sum(tin + p * iw + q, iw, sw0, k0, sym0));
      }
    }
    tmid[e] = v;
  }
  __syncthreads();
  for (int e = tid; e < TH * TW; e += THREADS) {
    const int p = e / TW, q = e % TW;
    const long long r = r0 + p, c = c0 + q;
    if (r < h && c < wd) y[r * wd + c] = STOREO(sep_sum(tmid + p * iw + q, 1, sw1, k1, sym1));
  }
}
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
