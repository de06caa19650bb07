// bincount (values of x are the bins) and histogram (equal bins by NumPy's formula, or a
// binary search over the edges): counts (unsigned 64-bit) or float64 sums of the weights w,
// added per block into bins in dynamic shared memory (use_shared: nb 8-byte bins) and then
// into `out`, or straight into `out` with global atomics.
//
// -D: THREADS (threads per block).
// Prelude (statistics/cuda.rs): VARIANT_BINCOUNT / VARIANT_HISTOGRAM, XT (x's storage),
// WEIGHTED; histogram: UNIFORM (equal bins), LOAD_F64(v) (x's storage to double).
#include "cuprum/prelude.cuh"
#include "cuprum/float16.cuh"

#define GRID_LOOP(i, n) for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long long)gridDim.x * blockDim.x)

#if WEIGHTED
typedef double OT;
#else
typedef unsigned long long OT;
#endif

#if defined(VARIANT_BINCOUNT)
#define ENTRY bincount
#define BIN_PARAMS
#elif defined(VARIANT_HISTOGRAM)
#define ENTRY histogram
#define BIN_PARAMS , const double* __restrict__ edges, double lo, double hi, double denom
#endif

extern "C" __global__ void __launch_bounds__(THREADS) ENTRY(long long n, const XT* __restrict__ x, const double* __restrict__ w,
    OT* __restrict__ out, long long nb, int use_shared BIN_PARAMS) {
  extern __shared__ unsigned long long smem[];
  OT* sh = (OT*)smem;
  if (use_shared) {
    for (long long i = threadIdx.x; i < nb; i += blockDim.x) sh[i] = (OT)0;
    __syncthreads();
  }
  GRID_LOOP(e, n) {
    long long b;
#if defined(VARIANT_BINCOUNT)
    b = (long long)x[e];
#elif UNIFORM
    // NumPy's equal bins: the estimate from the formula, then one correction step against the
    // edges on each side.
    double v = LOAD_F64(x[e]);
    if (!(v >= lo && v <= hi)) continue;
    b = (long long)(((v - lo) / denom) * (double)nb);
    if (b >= nb) b = nb - 1;
    if (b < 0) b = 0;
    if (v < edges[b]) b -= 1;
    if (b < 0) b = 0;
    if (b != nb - 1 && v >= edges[b + 1]) b += 1;
#else
    // The last edge <= v (the right edge belongs to the last bin).
    double v = LOAD_F64(x[e]);
    if (!(v >= lo && v <= hi)) continue;
    if (v == hi) {
      b = nb - 1;
    } else {
      long long l = 0, h = nb + 1;
      while (l < h) { long long m = l + ((h - l) >> 1); if (edges[m] <= v) l = m + 1; else h = m; }
      b = l - 1;
    }
#endif
    if (b < 0 || b >= nb) continue;
#if WEIGHTED
    OT inc = w[e];
#else
    OT inc = 1ULL;
#endif
    if (use_shared) atomicAdd(&sh[b], inc); else atomicAdd(&out[b], inc);
  }
  if (use_shared) {
    __syncthreads();
    for (long long i = threadIdx.x; i < nb; i += blockDim.x) if (sh[i] != (OT)0) atomicAdd(&out[i], sh[i]);
  }
}
