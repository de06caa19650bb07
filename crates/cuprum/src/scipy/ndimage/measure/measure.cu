// Per-label accumulation (scipy/ndimage/measure/cuda.rs): each element's label is mapped to a
// slot (MODE 0: every element slot 0; 1: labels > 0 slot 0; 2: label == par slot 0; 3: label -
// par for labels in [par, par + k); 4: lut[label - par] over the table's range), then the
// wanted statistics are added into per-slot arrays with atomics. With SINGLE (one slot, modes
// 0-2) each thread accumulates in registers and a warp's sums are combined by shuffles before
// one atomic per warp.
//
// Prelude (cuda.rs): T (input storage; HAS_X), V(v) (to double), KEY(v) (order key, NaN
// largest), BITS(v) (wrapping 64-bit sum), L (labels storage; HAS_LABELS), MODE, NDIM, SINGLE,
// WANT_COUNT, WANT_SUM, WANT_ISUM, WANT_SQ, WANT_COM, WANT_MINMAX, WANT_POS, WANT_BBOX.
// -D: THREADS.
#include "cuprum/prelude.cuh"
#include "cuprum/float16.cuh"

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

extern "C" __global__ void __launch_bounds__(THREADS) ms_accum(const T* __restrict__ x, const L* __restrict__ lab,
    long long n, long long par, long long lutn, const int* __restrict__ lut, Shape shape,
    unsigned long long* count, double* sum, unsigned long long* isum, double* sq, const double* __restrict__ mean,
    double* com, unsigned long long* minkey, unsigned long long* maxkey, const unsigned long long* __restrict__ kmin,
    const unsigned long long* __restrict__ kmax, long long* minpos, long long* maxpos, long long* bblo,
    long long* bbhi) {
#if SINGLE
  unsigned long long c_ = 0, is_ = 0, mn_ = 0xffffffffffffffffull, mx_ = 0;
  double s_ = 0, q_ = 0, cm_[NDIM];
  long long mnp_ = 0x7fffffffffffffffll, mxp_ = 0x7fffffffffffffffll, lo_[NDIM], hi_[NDIM];
#pragma unroll
  for (int d = 0; d < NDIM; d++) {
    cm_[d] = 0;
    lo_[d] = 0x7fffffffffffffffll;
    hi_[d] = -1;
  }
#endif
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n; p += (long long)gridDim.x * blockDim.x) {
    const long long s = slot_of(lab, p, par, lutn, lut);
    if (s < 0) continue;
#if WANT_COM || WANT_BBOX
    long long c[NDIM];
    {
      long long r = p;
#pragma unroll
      for (int d = NDIM - 1; d >= 0; d--) {
        c[d] = r % shape.d[d];
        r /= shape.d[d];
      }
    }
#endif
#if HAS_X
    const T v = x[p];
    const double f = V(v);
#endif
#if SINGLE
    (void)s;
#if WANT_COUNT
    c_++;
#endif
#if WANT_SUM
    s_ += f;
#endif
#if WANT_ISUM
    is_ += BITS(v);
#endif
#if WANT_SQ
    q_ += (f - mean[0]) * (f - mean[0]);
#endif
#if WANT_COM
#pragma unroll
    for (int d = 0; d < NDIM; d++) cm_[d] += f * (double)c[d];
#endif
#if WANT_MINMAX
    mn_ = min(mn_, KEY(v));
    mx_ = max(mx_, KEY(v));
#endif
#if WANT_POS
    if (KEY(v) == kmin[0]) mnp_ = min(mnp_, p);
    if (KEY(v) == kmax[0]) mxp_ = min(mxp_, p);
#endif
#if WANT_BBOX
#pragma unroll
    for (int d = 0; d < NDIM; d++) {
      lo_[d] = min(lo_[d], c[d]);
      hi_[d] = max(hi_[d], c[d]);
    }
#endif
#else
#if WANT_COUNT
    atomicAdd(&count[s], 1ull);
#endif
#if WANT_SUM
    atomicAdd(&sum[s], f);
#endif
#if WANT_ISUM
    atomicAdd(&isum[s], BITS(v));
#endif
#if WANT_SQ
    atomicAdd(&sq[s], (f - mean[s]) * (f - mean[s]));
#endif
#if WANT_COM
#pragma unroll
    for (int d = 0; d < NDIM; d++) atomicAdd(&com[s * NDIM + d], f * (double)c[d]);
#endif
#if WANT_MINMAX
    atomicMin(&minkey[s], KEY(v));
    atomicMax(&maxkey[s], KEY(v));
#endif
#if WANT_POS
    if (KEY(v) == kmin[s]) atomicMin(&minpos[s], p);
    if (KEY(v) == kmax[s]) atomicMin(&maxpos[s], p);
#endif
#if WANT_BBOX
#pragma unroll
    for (int d = 0; d < NDIM; d++) {
      atomicMin(&bblo[s * NDIM + d], c[d]);
      atomicMax(&bbhi[s * NDIM + d], c[d]);
    }
#endif
#endif
  }
#if SINGLE
  // Combine the warp's registers, then one atomic per warp.
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    c_ += __shfl_down_sync(0xffffffffu, c_, o);
    is_ += __shfl_down_sync(0xffffffffu, is_, o);
    s_ += __shfl_down_sync(0xffffffffu, s_, o);
    q_ += __shfl_down_sync(0xffffffffu, q_, o);
    mn_ = min(mn_, __shfl_down_sync(0xffffffffu, mn_, o));
    mx_ = max(mx_, __shfl_down_sync(0xffffffffu, mx_, o));
    mnp_ = min(mnp_, __shfl_down_sync(0xffffffffu, mnp_, o));
    mxp_ = min(mxp_, __shfl_down_sync(0xffffffffu, mxp_, o));
#pragma unroll
    for (int d = 0; d < NDIM; d++) {
      cm_[d] += __shfl_down_sync(0xffffffffu, cm_[d], o);
      lo_[d] = min(lo_[d], __shfl_down_sync(0xffffffffu, lo_[d], o));
      hi_[d] = max(hi_[d], __shfl_down_sync(0xffffffffu, hi_[d], o));
    }
  }
  if ((threadIdx.x & 31) == 0) {
#if WANT_COUNT
    if (c_) atomicAdd(&count[0], c_);
#endif
#if WANT_SUM
    atomicAdd(&sum[0], s_);
#endif
#if WANT_ISUM
    atomicAdd(&isum[0], is_);
#endif
#if WANT_SQ
    atomicAdd(&sq[0], q_);
#endif
#if WANT_COM
#pragma unroll
    for (int d = 0; d < NDIM; d++) atomicAdd(&com[d], cm_[d]);
#endif
#if WANT_MINMAX
    atomicMin(&minkey[0], mn_);
    atomicMax(&maxkey[0], mx_);
#endif
#if WANT_POS
    atomicMin(&minpos[0], mnp_);
    atomicMin(&maxpos[0], mxp_);
#endif
#if WANT_BBOX
#pragma unroll
    for (int d = 0; d < NDIM; d++) {
      atomicMin(&bblo[d], lo_[d]);
      atomicMax(&bbhi[d], hi_[d]);
    }
#endif
  }
#endif
}
