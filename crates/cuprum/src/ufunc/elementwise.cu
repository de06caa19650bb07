// Elementwise kernels: out[i] = RESULT over up to three inputs (arrays or scalars), in one of
// four layouts; each module holds the one variant its prelude selects.
//
//   kv  contiguous, VEC elements per thread with 16-byte vector accesses (a scalar tail)
//   k1  contiguous, one element per thread (misaligned data)
//   ks  one collapsed dimension with arbitrary byte strides (no layout table), KS_U elements a thread
//   kn  any byte strides, up to MAX_DIMS collapsed dimensions (a layout table by value)
//
// -D: THREADS (threads per block), MAX_DIMS.
// Prelude (ufunc/cuda.rs): VARIANT_KV / VARIANT_K1 / VARIANT_KS / VARIANT_KN, OUT_T (output
// storage), VEC, NOPS (operands with a layout: the output and the array inputs), IN_PARAMS
// (the inputs' parameters, then the op's own), ST_PARAMS (ks: one byte stride per operand),
// PACK_LOADS(i0) (kv: each array input's vector at element i0), LOADS_PACK(j), LOADS_FLAT(i),
// LOADS_AT(OFF) (the values a0, a1, a2 in their compute types: from the vectors, at element
// i, at the byte offsets OFF(slot)), RESULT (the op on a0.. converted to the output storage).
#include "cuprum/prelude.cuh"
#include "cuprum/float16.cuh"
#include "cuprum/numpy_math.cuh"

#define GRID_STRIDE ((long long)gridDim.x * blockDim.x)
#define FIRST_INDEX ((long long)blockIdx.x * blockDim.x + threadIdx.x)

#if defined(VARIANT_KV)
extern "C" __global__ void __launch_bounds__(THREADS) kv(long long n, OUT_T* __restrict__ out IN_PARAMS) {
  for (long long i0 = FIRST_INDEX * VEC; i0 < n; i0 += GRID_STRIDE * VEC) {
    if (i0 + VEC <= n) {
      PACK_LOADS(i0)
      Pack<OUT_T, VEC> r;
#pragma unroll
      for (int j = 0; j < VEC; j++) {
        long long i = i0 + j;
        (void)i;
        LOADS_PACK(j)
        r.v[j] = RESULT;
      }
      *reinterpret_cast<Pack<OUT_T, VEC>*>(out + i0) = r;
    } else {
      for (long long i = i0; i < n; i++) {
        LOADS_FLAT(i)
        out[i] = RESULT;
      }
    }
  }
}
#endif

#if defined(VARIANT_K1)
extern "C" __global__ void __launch_bounds__(THREADS) k1(long long n, OUT_T* __restrict__ out IN_PARAMS) {
  for (long long i = FIRST_INDEX; i < n; i += GRID_STRIDE) {
    LOADS_FLAT(i)
    out[i] = RESULT;
  }
}
#endif

#if defined(VARIANT_KS)
#define OFF_KS(slot) (i * st##slot)
// KS_U elements a thread, a grid apart, every load and result before any store: four loads
// in flight a thread where one was (ufunc/cuda.rs launches n / (THREADS * KS_U) blocks; probe
// bench/probes/ew_strided.py: 4% less time on a reversed int64 view of 1e8 elements).
#define KS_U 4
extern "C" __global__ void __launch_bounds__(THREADS) ks(long long n, OUT_T* __restrict__ out IN_PARAMS ST_PARAMS) {
  const long long gs = GRID_STRIDE;
  for (long long i0 = FIRST_INDEX; i0 < n; i0 += gs * KS_U) {
    OUT_T r[KS_U];
#pragma unroll
    for (int j = 0; j < KS_U; j++) {
      const long long i = i0 + j * gs;
      if (i < n) {
        LOADS_AT(OFF_KS)
        r[j] = RESULT;
      }
    }
#pragma unroll
    for (int j = 0; j < KS_U; j++) {
      const long long i = i0 + j * gs;
      if (i < n) *(OUT_T*)((char*)out + i * st0) = r[j];
    }
  }
}
#endif

#if defined(VARIANT_KN)
struct Lay {
  long long nd;
  long long shape[MAX_DIMS];
  long long st[NOPS][MAX_DIMS];
};
#define OFF_KN(slot) (o[slot])
extern "C" __global__ void __launch_bounds__(THREADS) kn(long long n, OUT_T* __restrict__ out IN_PARAMS, Lay L) {
  for (long long i = FIRST_INDEX; i < n; i += GRID_STRIDE) {
    long long r = i;
    long long o[NOPS] = {0};
    for (int d = (int)L.nd - 1; d >= 0; d--) {
      long long ix = r % L.shape[d];
      r /= L.shape[d];
#pragma unroll
      for (int q = 0; q < NOPS; q++) o[q] += ix * L.st[q][d];
    }
    LOADS_AT(OFF_KN)
    *(OUT_T*)((char*)out + o[0]) = RESULT;
  }
}
#endif
