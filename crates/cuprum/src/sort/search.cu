// searchsorted: one binary search per query in a sorted 1-d array, in NumPy's order (NaN
// after everything, NaN == NaN).
//
// -D: THREADS (threads per block).
// Prelude (sort/cuda.rs): ST (the storage of the sorted values and the queries), CT (the
// type they compare in), LOAD(v) (ST to CT), X_IS_FLOAT (NaN ordering), SIDE_RIGHT (1: the
// index after equal values; 0: before them).
#include "cuprum/prelude.cuh"
#include "cuprum/float16.cuh"

__device__ __forceinline__ CT ld(ST v) { return LOAD(v); }
__device__ __forceinline__ bool lt(CT a, CT b) {
#if X_IS_FLOAT
  return a < b || (b != b && a == a);
#else
  return a < b;
#endif
}
extern "C" __global__ void __launch_bounds__(THREADS) searchsorted(long long n, const ST* __restrict__ sorted, long long nq,
    const ST* __restrict__ q, long long* __restrict__ out) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nq; i += (long long)gridDim.x * blockDim.x) {
    CT x = ld(q[i]);
    long long lo = 0, hi = n;
    while (lo < hi) {
      long long mid = lo + ((hi - lo) >> 1);
      CT s = ld(sorted[mid]);
#if SIDE_RIGHT
      if (!lt(x, s)) lo = mid + 1; else hi = mid;
#else
      if (lt(s, x)) lo = mid + 1; else hi = mid;
#endif
    }
    out[i] = lo;
  }
}
