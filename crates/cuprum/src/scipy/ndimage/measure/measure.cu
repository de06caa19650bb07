// Per-label accumulation (scipy/ndimage/measure/cuda.rs): each element's label is mapped to a
// slot (MODE 0: every element slot 0; 1: labels > 0 slot 0; 2: label == par slot 0; 3: label -
// par for labels in [par, par + k); 4: lut[label - par] over the table's range), then the
// wanted statistics are added into per-slot arrays with atomics.
//
// With SINGLE (one slot, modes 0-2) each thread accumulates in registers and a warp's sums are
// combined by shuffles before one atomic per warp. Otherwise a warp takes 32 consecutive
// elements at a time: labelled images come in runs of one label, so each run of equal slots in
// the warp is reduced onto its first lane (a segmented reduction by shuffles) and only that
// lane adds it to the slot: one atomic per run, not per element.
//
// ms_decode (DECODE_ONLY): order keys back to values of the input's dtype, 0 for empty slots.
//
// Prelude (cuda.rs): T (input storage; HAS_X), V(v) (to double), KEY(v) (order key, NaN
// largest), BITS(v) (wrapping 64-bit sum), L (labels storage; HAS_LABELS), MODE, NDIM, SINGLE,
// WANT_COUNT, WANT_SUM, WANT_ISUM, WANT_SQ, WANT_COM, WANT_MINMAX, WANT_POS, WANT_BBOX;
// DECODE_ONLY with KIND (0 float, 1 signed, 2 unsigned or bool) and STORE(d) (double to T).
// -D: THREADS.
#include "cuprum/prelude.cuh"
#include "cuprum/float16.cuh"

#define FULL 0xffffffffu

#if DECODE_ONLY
extern "C" __global__ void __launch_bounds__(THREADS) ms_decode(const unsigned long long* __restrict__ keys,
    const unsigned long long* __restrict__ count, T* __restrict__ out, long long k) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < k; i += (long long)gridDim.x * blockDim.x) {
    const unsigned long long b = keys[i];
    if (count[i] == 0) {
      out[i] = (T)0;
      continue;
    }
#if KIND == 0
    double v;
    if (b == 0xffffffffffffffffull) v = __longlong_as_double(0x7ff8000000000000ll);
    else if (b >> 63) v = __longlong_as_double((long long)(b & 0x7fffffffffffffffull));
    else v = __longlong_as_double((long long)~b);
    out[i] = STORE(v);
#elif KIND == 1
    out[i] = (T)(long long)(b ^ 0x8000000000000000ull);
#else
    out[i] = (T)b;
#endif
  }
}
#else

struct Shape {
  long long d[NDIM];
};

__device__ __forceinline__ unsigned long long okey(double v) {
  if (v != v) return 0xffffffffffffffffull;
  const unsigned long long b = (unsigned long long)__double_as_longlong(v + 0.0);
  return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}

__device__ __forceinline__ long long slot_of(const L* __restrict__ lab, long long p, long long par, long long k,
                                             const int* __restrict__ lut) {
#if MODE == 0
  return 0;
#else
  const long long l = (long long)lab[p];
#if MODE == 1
  return l > 0 ? 0 : -1;
#elif MODE == 2
  return l == par ? 0 : -1;
#elif MODE == 3
  const long long d = l - par;
  return (d >= 0 && d < k) ? d : -1;
#else
  const long long d = l - par;
  return (d >= 0 && d < k) ? (long long)lut[d] : -1;
#endif
#endif
}

// One element's (or a run's) statistics.
struct Acc {
  unsigned long long cnt, isum, mn, mx;
  double sum, sq, com[NDIM];
  long long mnp, mxp, lo[NDIM], hi[NDIM];
};

__device__ __forceinline__ void acc_zero(Acc& a) {
  a.cnt = 0;
  a.isum = 0;
  a.mn = 0xffffffffffffffffull;
  a.mx = 0;
  a.sum = 0;
  a.sq = 0;
  a.mnp = 0x7fffffffffffffffll;
  a.mxp = 0x7fffffffffffffffll;
#pragma unroll
  for (int d = 0; d < NDIM; d++) {
    a.com[d] = 0;
    a.lo[d] = 0x7fffffffffffffffll;
    a.hi[d] = -1;
  }
}

// Adds element p (slot s) to a.
__device__ __forceinline__ void acc_add(Acc& a, const T* __restrict__ x, long long p, long long s, const Shape& shape,
                                        const double* __restrict__ mean, const unsigned long long* __restrict__ kmin,
                                        const unsigned long long* __restrict__ kmax) {
#if WANT_COM || WANT_BBOX
  long long c[NDIM];
  {
#if SMALL
    unsigned r = (unsigned)p;  // 32-bit divisions below 2^31 elements
#else
    long long r = p;
#endif
#pragma unroll
    for (int d = NDIM - 1; d >= 0; d--) {
      c[d] = r % shape.d[d];
      r /= shape.d[d];
    }
  }
#endif
  a.cnt += 1;
#if HAS_X
  const T v = x[p];
  const double f = V(v);
#if WANT_SUM
  a.sum += f;
#endif
#if WANT_ISUM
  a.isum += BITS(v);
#endif
#if WANT_SQ
  a.sq += (f - mean[s]) * (f - mean[s]);
#endif
#if WANT_COM
#pragma unroll
  for (int d = 0; d < NDIM; d++) a.com[d] += f * (double)c[d];
#endif
#if WANT_MINMAX
  a.mn = min(a.mn, KEY(v));
  a.mx = max(a.mx, KEY(v));
#endif
#if WANT_POS
  if (KEY(v) == kmin[s]) a.mnp = min(a.mnp, p);
  if (KEY(v) == kmax[s]) a.mxp = min(a.mxp, p);
#endif
#endif
#if WANT_BBOX
#pragma unroll
  for (int d = 0; d < NDIM; d++) {
    a.lo[d] = min(a.lo[d], c[d]);
    a.hi[d] = max(a.hi[d], c[d]);
  }
#endif
}

// a (lane i) absorbs lane i + off's value when `take` (only the statistics wanted are moved).
__device__ __forceinline__ void acc_shfl(Acc& a, int off, bool take) {
  const unsigned long long cnt = __shfl_down_sync(FULL, a.cnt, off);
  if (take) a.cnt += cnt;
#if WANT_SUM
  const double sum = __shfl_down_sync(FULL, a.sum, off);
  if (take) a.sum += sum;
#endif
#if WANT_ISUM
  const unsigned long long is = __shfl_down_sync(FULL, a.isum, off);
  if (take) a.isum += is;
#endif
#if WANT_SQ
  const double sq = __shfl_down_sync(FULL, a.sq, off);
  if (take) a.sq += sq;
#endif
#if WANT_COM
#pragma unroll
  for (int d = 0; d < NDIM; d++) {
    const double cm = __shfl_down_sync(FULL, a.com[d], off);
    if (take) a.com[d] += cm;
  }
#endif
#if WANT_MINMAX
  const unsigned long long mn = __shfl_down_sync(FULL, a.mn, off), mx = __shfl_down_sync(FULL, a.mx, off);
  if (take) {
    a.mn = min(a.mn, mn);
    a.mx = max(a.mx, mx);
  }
#endif
#if WANT_POS
  const long long mnp = __shfl_down_sync(FULL, a.mnp, off), mxp = __shfl_down_sync(FULL, a.mxp, off);
  if (take) {
    a.mnp = min(a.mnp, mnp);
    a.mxp = min(a.mxp, mxp);
  }
#endif
#if WANT_BBOX
#pragma unroll
  for (int d = 0; d < NDIM; d++) {
    const long long lo = __shfl_down_sync(FULL, a.lo[d], off), hi = __shfl_down_sync(FULL, a.hi[d], off);
    if (take) {
      a.lo[d] = min(a.lo[d], lo);
      a.hi[d] = max(a.hi[d], hi);
    }
  }
#endif
}

// Adds a into slot s of the per-slot arrays.
__device__ __forceinline__ void acc_flush(const Acc& a, long long s, unsigned long long* count, double* sum,
                                          unsigned long long* isum, double* sq, double* com, unsigned long long* minkey,
                                          unsigned long long* maxkey, long long* minpos, long long* maxpos,
                                          long long* bblo, long long* bbhi) {
#if WANT_COUNT
  atomicAdd(&count[s], a.cnt);
#endif
#if WANT_SUM
  atomicAdd(&sum[s], a.sum);
#endif
#if WANT_ISUM
  atomicAdd(&isum[s], a.isum);
#endif
#if WANT_SQ
  atomicAdd(&sq[s], a.sq);
#endif
#if WANT_COM
#pragma unroll
  for (int d = 0; d < NDIM; d++) atomicAdd(&com[s * NDIM + d], a.com[d]);
#endif
#if WANT_MINMAX
  atomicMin(&minkey[s], a.mn);
  atomicMax(&maxkey[s], a.mx);
#endif
  // Positions and lower corners start at all ones (the largest unsigned value), upper
  // corners at -1.
#if WANT_POS
  if (a.mnp != 0x7fffffffffffffffll) atomicMin((unsigned long long*)&minpos[s], (unsigned long long)a.mnp);
  if (a.mxp != 0x7fffffffffffffffll) atomicMin((unsigned long long*)&maxpos[s], (unsigned long long)a.mxp);
#endif
#if WANT_BBOX
#pragma unroll
  for (int d = 0; d < NDIM; d++) {
    atomicMin((unsigned long long*)&bblo[s * NDIM + d], (unsigned long long)a.lo[d]);
    atomicMax(&bbhi[s * NDIM + d], a.hi[d]);
  }
#endif
}

extern "C" __global__ void __launch_bounds__(THREADS) ms_accum(const T* __restrict__ x, const L* __restrict__ lab,
    long long n, long long par, long long lutn, const int* __restrict__ lut, Shape shape,
    unsigned long long* count, double* sum, unsigned long long* isum, double* sq, const double* __restrict__ mean,
    double* com, unsigned long long* minkey, unsigned long long* maxkey, const unsigned long long* __restrict__ kmin,
    const unsigned long long* __restrict__ kmax, long long* minpos, long long* maxpos, long long* bblo,
    long long* bbhi) {
  const int lane = threadIdx.x & 31;
  Acc a;
  acc_zero(a);
#if SINGLE
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n; p += (long long)gridDim.x * blockDim.x) {
    if (slot_of(lab, p, par, lutn, lut) >= 0) acc_add(a, x, p, 0, shape, mean, kmin, kmax);
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) acc_shfl(a, off, true);
  if (lane == 0 && a.cnt) acc_flush(a, 0, count, sum, isum, sq, com, minkey, maxkey, minpos, maxpos, bblo, bbhi);
#else
  const long long stride = (long long)gridDim.x * blockDim.x;
  // Warp-uniform loop: the warp's first element, 32 at a time.
  for (long long base = blockIdx.x * (long long)blockDim.x + threadIdx.x - lane; base < n; base += stride) {
    const long long p = base + lane;
    const long long s = p < n ? slot_of(lab, p, par, lutn, lut) : -1;
    Acc e;
    acc_zero(e);
    if (s >= 0) acc_add(e, x, p, s, shape, mean, kmin, kmax);
    // Runs of equal slots: lane i is a head when lane i - 1 has another slot.
    const long long prev = __shfl_up_sync(FULL, s, 1);
    const bool head = lane == 0 || prev != s;
    const unsigned long long heads = __ballot_sync(FULL, head);
    if (__all_sync(FULL, s < 0)) continue;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      // Lane i + off is in lane i's run: no head in (i, i + off].
      const bool take = lane + off < 32 && (heads & (((1ull << off) - 1) << (lane + 1))) == 0;
      acc_shfl(e, off, take);
    }
    if (head && s >= 0) acc_flush(e, s, count, sum, isum, sq, com, minkey, maxkey, minpos, maxpos, bblo, bbhi);
  }
  (void)a;
#endif
}
#endif
