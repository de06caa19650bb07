// Reductions over any axes: `rows` (a block per output and slice of the reduced range; with
// several blocks per output the last one to finish merges their partial accumulators, so no
// second kernel is launched) and `cols` (a thread per output, for outer reduced axes).
//
// -D: THREADS (threads per block), MAX_DIMS.
// Prelude (reduce/cuda.rs): VARIANT_ROWS / VARIANT_COLS, one of OP_SUM, OP_MEAN, OP_PROD,
// OP_VAR (var and std), OP_MINMAX (with BETTER(x, v): min or max), OP_ANY, OP_ALL,
// OP_COUNT_NONZERO; XS (input storage), XC (input compute type), AT (accumulator type),
// OS (output storage), X_IS_FLOAT, CONTIG (the reduced range is one contiguous run), VEC
// (elements per 16-byte vector), LOADX(p) (storage to XC), RESULT (the output value from the
// merged accumulator `a`, `nred` and `ddof`). With FUSED (a reduction ending a fused formula,
// `rows` only): FUSED_PARAMS (the formula's inputs, after the usual parameters but `x` and `L`)
// and FVAL(f) (the formula's value at element f, as XC).
#include "cuprum/prelude.cuh"
#include "cuprum/float16.cuh"

// ---------------------------------------------------------------- accumulators
#if defined(OP_SUM) || defined(OP_MEAN)
struct Acc {
  AT s;
  __device__ void init() { s = 0; }
  __device__ void add(XC x, long long) { s += (AT)x; }
  __device__ void merge(const Acc& o) { s += o.s; }
};
#elif defined(OP_PROD)
#if X_IS_FLOAT
#define MUL(s, x) ((s) * (AT)(x))
#else
#define MUL(s, x) ((AT)((u64)(s) * (u64)(AT)(x)))
#endif
struct Acc {
  AT s;
  __device__ void init() { s = 1; }
  __device__ void add(XC x, long long) { s = MUL(s, x); }
  __device__ void merge(const Acc& o) { AT x = o.s; s = MUL(s, x); }
};
#elif defined(OP_VAR)
// Per-thread sums of deviations from a shift K (the first value seen), turned into
// (n, mean, M2) and merged with Chan's formula.
struct Acc {
  double n, mean, m2, k, s1, s2;
  int shifted;
  __device__ void init() { n = 0; mean = 0; m2 = 0; k = 0; s1 = 0; s2 = 0; shifted = 0; }
  __device__ void add(XC xv, long long) {
    double x = (double)xv;
    if (!shifted) { k = x; shifted = 1; }
    double d = x - k;
    s1 += d; s2 += d * d; n += 1;
  }
  __device__ void settle() {
    if (shifted == 1 && n > 0) { double dm = s1 / n; mean = k + dm; m2 = s2 - s1 * dm; shifted = 2; }
  }
  __device__ void merge(Acc o) {
    settle(); o.settle();
    if (o.n == 0) return;
    if (n == 0) { *this = o; return; }
    double tot = n + o.n;
    double d = o.mean - mean;
    mean += d * o.n / tot;
    m2 += o.m2 + d * d * n * o.n / tot;
    n = tot;
  }
};
#elif defined(OP_MINMAX)
// NaN propagates (the first NaN wins); ties keep the lowest index (argmin/argmax).
#if X_IS_FLOAT
#define ISNAN(x) ((x) != (x))
#else
#define ISNAN(x) false
#endif
struct Acc {
  XC v;
  long long i;
  __device__ void init() { i = -1; v = 0; }
  __device__ void add(XC x, long long j) {
    if (i < 0 || (!ISNAN(v) && (ISNAN(x) || BETTER(x, v)))) { v = x; i = j; }
  }
  __device__ void merge(const Acc& o) {
    if (o.i < 0) return;
    if (i < 0) { *this = o; return; }
    XC x = o.v;
    bool take = !ISNAN(v) && (ISNAN(x) || BETTER(x, v) || (x == v && o.i < i));
    if (ISNAN(v) && ISNAN(o.v) && o.i < i) take = true;
    if (take) { v = x; i = o.i; }
  }
};
#elif defined(OP_ANY)
struct Acc {
  int s;
  __device__ void init() { s = 0; }
  __device__ void add(XC x, long long) { s |= (x != 0); }
  __device__ void merge(const Acc& o) { s |= o.s; }
};
#elif defined(OP_ALL)
struct Acc {
  int s;
  __device__ void init() { s = 1; }
  __device__ void add(XC x, long long) { s &= (x != 0); }
  __device__ void merge(const Acc& o) { s &= o.s; }
};
#elif defined(OP_COUNT_NONZERO)
struct Acc {
  long long s;
  __device__ void init() { s = 0; }
  __device__ void add(XC x, long long) { s += (x != 0); }
  __device__ void merge(const Acc& o) { s += o.s; }
};
#endif

// ---------------------------------------------------------------- layout
// Byte offsets of reduced element r (rshape/rst) and of output k (kshape/kst).
struct RLay {
  long long rnd, knd;
  long long rshape[MAX_DIMS];
  long long rst[MAX_DIMS];
  long long kshape[MAX_DIMS];
  long long kst[MAX_DIMS];
};
__device__ __forceinline__ long long roff(const RLay& L, long long r) {
  long long o = 0;
  for (int d = (int)L.rnd - 1; d >= 0; d--) { o += (r % L.rshape[d]) * L.rst[d]; r /= L.rshape[d]; }
  return o;
}
__device__ __forceinline__ long long koff(const RLay& L, long long k) {
  long long o = 0;
  for (int d = (int)L.knd - 1; d >= 0; d--) { o += (k % L.kshape[d]) * L.kst[d]; k /= L.kshape[d]; }
  return o;
}

// ---------------------------------------------------------------- kernels
#if defined(VARIANT_ROWS)
// Block tree merge of sh[0..THREADS) into sh[0].
__device__ __forceinline__ void block_merge(Acc* sh) {
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) { Acc b = sh[threadIdx.x]; b.merge(sh[threadIdx.x + w]); sh[threadIdx.x] = b; }
    __syncthreads();
  }
}

#if defined(FUSED)
extern "C" __global__ void __launch_bounds__(THREADS) rows(OS* __restrict__ out, Acc* __restrict__ part,
    unsigned int* __restrict__ count, long long nout, long long nred, long long per, int splits, double ddof
    FUSED_PARAMS)
#else
extern "C" __global__ void __launch_bounds__(THREADS) rows(const char* __restrict__ x, OS* __restrict__ out,
    Acc* __restrict__ part, unsigned int* __restrict__ count, long long nout, long long nred, long long per,
    int splits, double ddof, RLay L)
#endif
{
  __shared__ Acc sh[THREADS];
  __shared__ bool last;
  long long o = blockIdx.x / splits;
  int sp = blockIdx.x % splits;
  long long r0 = (long long)sp * per;
  long long r1 = r0 + per < nred ? r0 + per : nred;
  Acc a;
  a.init();
#if defined(FUSED)
  // A fused formula (fuse/cuda.rs): FVAL(f) is its value at element f of the contiguous array
  // the unfused formula would have written, whose output o holds elements [o * nred, (o + 1)
  // * nred). The values are added in the order the vector path below adds that array's.
  long long fb = o * nred;
  long long nv = (r1 - r0) / VEC;
  if ((fb + r0) % VEC == 0) {
    long long q = threadIdx.x;
    long long b = blockDim.x;
    for (; q + 3 * b < nv; q += 4 * b) {
#pragma unroll
      for (int j = 0; j < VEC; j++) a.add(FVAL(fb + r0 + (q) * VEC + j), r0 + (q) * VEC + j);
#pragma unroll
      for (int j = 0; j < VEC; j++) a.add(FVAL(fb + r0 + (q + b) * VEC + j), r0 + (q + b) * VEC + j);
#pragma unroll
      for (int j = 0; j < VEC; j++) a.add(FVAL(fb + r0 + (q + 2 * b) * VEC + j), r0 + (q + 2 * b) * VEC + j);
#pragma unroll
      for (int j = 0; j < VEC; j++) a.add(FVAL(fb + r0 + (q + 3 * b) * VEC + j), r0 + (q + 3 * b) * VEC + j);
    }
    for (; q < nv; q += b) {
#pragma unroll
      for (int j = 0; j < VEC; j++) a.add(FVAL(fb + r0 + (q) * VEC + j), r0 + (q) * VEC + j);
    }
    for (long long r = r0 + nv * VEC + threadIdx.x; r < r1; r += blockDim.x) a.add(FVAL(fb + r), r);
  } else {
    for (long long r = r0 + threadIdx.x; r < r1; r += blockDim.x) a.add(FVAL(fb + r), r);
  }
#elif CONTIG
  const char* base = x + koff(L, o);
  // 16-byte vector loads over the contiguous run, four in flight per thread.
  const XS* p = (const XS*)base;
  long long nv = (r1 - r0) / VEC;
  bool aligned = (((unsigned long long)(p + r0)) % (VEC * sizeof(XS)) == 0);
  if (aligned) {
    const Pack<XS, VEC>* pp = reinterpret_cast<const Pack<XS, VEC>*>(p + r0);
    long long q = threadIdx.x;
    long long b = blockDim.x;
    for (; q + 3 * b < nv; q += 4 * b) {
      Pack<XS, VEC> k0 = pp[q], k1 = pp[q + b], k2 = pp[q + 2 * b], k3 = pp[q + 3 * b];
#pragma unroll
      for (int j = 0; j < VEC; j++) a.add(LOADX(k0.v[j]), r0 + (q) * VEC + j);
#pragma unroll
      for (int j = 0; j < VEC; j++) a.add(LOADX(k1.v[j]), r0 + (q + b) * VEC + j);
#pragma unroll
      for (int j = 0; j < VEC; j++) a.add(LOADX(k2.v[j]), r0 + (q + 2 * b) * VEC + j);
#pragma unroll
      for (int j = 0; j < VEC; j++) a.add(LOADX(k3.v[j]), r0 + (q + 3 * b) * VEC + j);
    }
    for (; q < nv; q += b) {
      Pack<XS, VEC> k0 = pp[q];
#pragma unroll
      for (int j = 0; j < VEC; j++) a.add(LOADX(k0.v[j]), r0 + (q) * VEC + j);
    }
    for (long long r = r0 + nv * VEC + threadIdx.x; r < r1; r += blockDim.x) a.add(LOADX(p[r]), r);
  } else {
    for (long long r = r0 + threadIdx.x; r < r1; r += blockDim.x) a.add(LOADX(p[r]), r);
  }
#else
  const char* base = x + koff(L, o);
  for (long long r = r0 + threadIdx.x; r < r1; r += blockDim.x) a.add(LOADX(*(const XS*)(base + roff(L, r))), r);
#endif
  sh[threadIdx.x] = a;
  __syncthreads();
  block_merge(sh);
  if (splits == 1) {
    if (threadIdx.x == 0) { Acc a = sh[0]; out[o] = RESULT; }
    return;
  }
  // Several blocks per output: each writes its partial; the last block to finish (counted with
  // an atomic, after a fence) merges them and resets the counter.
  if (threadIdx.x == 0) {
    part[blockIdx.x] = sh[0];
    __threadfence();
    last = (atomicAdd(&count[o], 1u) == (unsigned)splits - 1);
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  Acc m;
  m.init();
  for (int q = threadIdx.x; q < splits; q += blockDim.x) { Acc pq = part[o * splits + q]; m.merge(pq); }
  sh[threadIdx.x] = m;
  __syncthreads();
  block_merge(sh);
  if (threadIdx.x == 0) { Acc a = sh[0]; out[o] = RESULT; count[o] = 0; }
}
#endif

#if defined(VARIANT_COLS)
extern "C" __global__ void __launch_bounds__(THREADS) cols(const char* __restrict__ x, OS* __restrict__ out,
    long long nout, long long nred, double ddof, RLay L) {
  long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= nout) return;
  const char* base = x + koff(L, o);
  Acc a;
  a.init();
  for (long long r = 0; r < nred; r++) a.add(LOADX(*(const XS*)(base + roff(L, r))), r);
  out[o] = RESULT;
}
#endif
