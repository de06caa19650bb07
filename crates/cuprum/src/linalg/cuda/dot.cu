// The inner product of two contiguous vectors (MODE_DOT: sum x*y; MODE_DOTC: sum conj(x)*y)
// or the Euclidean norm of one (MODE_NORM: sqrt(sum |x|^2), real), in one launch and one
// pass over the bytes: every block sums a grid-stride share (16-byte loads, four in flight per
// thread and vector) into partial[block]; the last block to finish adds the partials in block
// order, so the result does not depend on the blocks' timing, writes it and resets the counter.
//
// Sums are in the element type (BLAS's dot, which NumPy calls, accumulates in it too).
// Prelude (linalg/cuda/dot.rs): elem_t, real_t, IS_COMPLEX, MODE_*; -D THREADS.

#if defined(MODE_NORM)
typedef real_t acc_t;
#define HAS_Y 0
#else
typedef elem_t acc_t;
#define HAS_Y 1
#endif

// Elements per 16-byte load.
#define VEC (16 / (int)sizeof(elem_t))
struct __align__(16) pack {
  elem_t v[VEC];
};

__device__ __forceinline__ acc_t term(elem_t a, elem_t b) {
#if defined(MODE_NORM)
#if IS_COMPLEX
  return a.re * a.re + a.im * a.im;
#else
  return a * a;
#endif
#elif defined(MODE_DOTC) && IS_COMPLEX
  return cconj(a) * b;
#else
  return a * b;
#endif
}

__device__ __forceinline__ float shfl_down(float v, int o) { return __shfl_down_sync(0xffffffffu, v, o); }
__device__ __forceinline__ double shfl_down(double v, int o) { return __shfl_down_sync(0xffffffffu, v, o); }
__device__ __forceinline__ c64 shfl_down(c64 v, int o) { return c64(shfl_down(v.re, o), shfl_down(v.im, o)); }
__device__ __forceinline__ c128 shfl_down(c128 v, int o) { return c128(shfl_down(v.re, o), shfl_down(v.im, o)); }

// The sum over the block, in thread 0 (`sh`: THREADS / 32 slots).
__device__ __forceinline__ acc_t block_sum(acc_t s, acc_t* sh) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (int o = 16; o > 0; o >>= 1) s = s + shfl_down(s, o);
  if (lane == 0) sh[w] = s;
  __syncthreads();
  if (w == 0) {
    s = lane < THREADS / 32 ? sh[lane] : acc_t((real_t)0);
    for (int o = 16; o > 0; o >>= 1) s = s + shfl_down(s, o);
  }
  __syncthreads();
  return s;
}

extern "C" __global__ void __launch_bounds__(THREADS) dot(const elem_t* __restrict__ x, const elem_t* __restrict__ y,
    long long n, acc_t* __restrict__ partial, unsigned int* __restrict__ counter, void* __restrict__ out) {
  __shared__ acc_t sh[THREADS / 32];
  __shared__ bool last;
  acc_t s0 = acc_t((real_t)0), s1 = s0, s2 = s0, s3 = s0;
  const long long tid = (long long)blockIdx.x * THREADS + threadIdx.x;
  const long long stride = (long long)gridDim.x * THREADS;
  long long done = 0;
  const unsigned long long addr = (unsigned long long)x | (HAS_Y ? (unsigned long long)y : 0ull);
  if ((addr & 15) == 0) {
    const long long np = n / VEC;
    const pack* xp = (const pack*)x;
    const pack* yp = (const pack*)(HAS_Y ? y : x);
    long long i = tid;
    for (; i + 3 * stride < np; i += 4 * stride) {
      const pack a0 = xp[i], a1 = xp[i + stride], a2 = xp[i + 2 * stride], a3 = xp[i + 3 * stride];
#if HAS_Y
      const pack b0 = yp[i], b1 = yp[i + stride], b2 = yp[i + 2 * stride], b3 = yp[i + 3 * stride];
#else
      const pack b0 = a0, b1 = a1, b2 = a2, b3 = a3;
#endif
#pragma unroll
      for (int k = 0; k < VEC; ++k) {
        s0 = s0 + term(a0.v[k], b0.v[k]);
        s1 = s1 + term(a1.v[k], b1.v[k]);
        s2 = s2 + term(a2.v[k], b2.v[k]);
        s3 = s3 + term(a3.v[k], b3.v[k]);
      }
    }
    for (; i < np; i += stride) {
      const pack a0 = xp[i];
      const pack b0 = HAS_Y ? yp[i] : a0;
#pragma unroll
      for (int k = 0; k < VEC; ++k) s0 = s0 + term(a0.v[k], b0.v[k]);
    }
    done = np * VEC;
  }
  for (long long i = done + tid; i < n; i += stride) s0 = s0 + term(x[i], HAS_Y ? y[i] : x[i]);
  acc_t s = block_sum((s0 + s1) + (s2 + s3), sh);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s;
    __threadfence();
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  acc_t t = acc_t((real_t)0);
  const volatile real_t* pr = (const volatile real_t*)partial;
  for (int b = threadIdx.x; b < (int)gridDim.x; b += THREADS) {
#if defined(MODE_NORM) || !IS_COMPLEX
    t = t + acc_t(pr[b]);
#else
    t = t + acc_t(pr[2 * b], pr[2 * b + 1]);
#endif
  }
  t = block_sum(t, sh);
  if (threadIdx.x == 0) {
#if defined(MODE_NORM)
    *(real_t*)out = c_sqrt(t);
#else
    *(elem_t*)out = t;
#endif
    *counter = 0;
  }
}
