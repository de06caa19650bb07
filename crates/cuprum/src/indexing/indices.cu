// Index arrays, shared by gather.cu and scatter.cu (indexing/cuda.rs puts this text before
// theirs): up to MAX_K C-contiguous index arrays of one integer dtype, one entry per row;
// negative values count from the end (unsigned ones never wrap). An out-of-range index never
// leads to an access: the kernel skips it and records one such index (axis and value) in a
// 16-byte error record (the first writer wins).
//
// -D: MAX_K (most index arrays of a launch).
// Prelude (indexing/cuda.rs): IT (the index arrays' storage), IDX_UNSIGNED (1 for unsigned
// and bool index dtypes: anything >= len is out of range).
#include "cuprum/prelude.cuh"

// The 16-byte word of gather.cu and scatter.cu (rows are copied in the largest word that
// divides them and their addresses; for 16 bytes the prelude has `typedef struct W16 W;`).
struct __align__(16) W16 { u64 a, b; };

struct Idx { long long k; long long ptr[MAX_K]; long long len[MAX_K]; };
// Index value v normalised against an axis of length len (negative values count from the end).
__device__ __forceinline__ bool norm_index(IT v, long long len, long long* j) {
#if IDX_UNSIGNED
  unsigned long long u = (unsigned long long)v; if (u >= (unsigned long long)len) return false; *j = (long long)u; return true;
#else
  long long s = (long long)v; if (s < 0) s += len; if (s < 0 || s >= len) return false; *j = s; return true;
#endif
}
// Records one out-of-range index: err[0] = axis + 1, err[1] = the value (first writer wins).
__device__ void report(unsigned long long* err, long long axis, long long v) {
  if (*(volatile unsigned long long*)err == 0ULL && atomicCAS(err, 0ULL, (unsigned long long)(axis + 1)) == 0ULL)
    err[1] = (unsigned long long)v;
}
// The row (C order over the indexed axes) that entry r of the index arrays selects, or -1.
__device__ __forceinline__ long long row_pos(const Idx& I, long long r, unsigned long long* err) {
  long long p = 0;
  for (int d = 0; d < (int)I.k; d++) {
    IT v = ((const IT*)(unsigned long long)I.ptr[d])[r];
    long long j;
    if (!norm_index(v, I.len[d], &j)) { report(err, d, (long long)v); return -1; }
    p = p * I.len[d] + j;
  }
  return p;
}
#define GRID_LOOP(i, n) for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long long)gridDim.x * blockDim.x)
