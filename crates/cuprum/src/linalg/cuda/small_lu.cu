// Many small square matrices (n <= MAXN = 32) at once, one warp per matrix: LU with partial
// pivoting in shared memory (LAPACK's getf2: the pivot is the first entry of largest
// |re| + |im| in its column, rows swapped, multipliers below the diagonal), then
//   MODE_DET:   NumPy's slogdet: sign = (-1)^swaps * prod(u_ii / |u_ii|) and
//               logdet = sum(log |u_ii|); a zero pivot gives sign 0 and logdet -inf;
//   MODE_SOLVE: X = A^-1 B for the nrhs columns of B;
//   MODE_INV:   X = A^-1 (B is the identity, built here);
// and in every mode info = the 1-based index of the first exactly-zero pivot (0: none), as
// LAPACK's getrf reports a singular U.
//
// Layout: all matrices ROW-MAJOR and contiguous: A m at a + m*n*n; B (MODE_SOLVE) and X at
// b + m*n*nrhs and x + m*n*nrhs, each n x nrhs (MODE_INV: n x n); sign, logdet, info at [m].
//
// Shared memory (dynamic), per warp: the matrix (n rows of n + 1 elements, the padding
// spreads a column over the banks), for SOLVE/INV a block of n x 32 right-hand sides (lane c
// owns column c of the block), and after all warps' elements MAXN pivot indices per warp.
//
// -D: MAXN (largest n), MAXWARPS (warps per block at most).
// Prelude (linalg/cuda/small.rs): MODE_DET / MODE_SOLVE / MODE_INV; elem_t (element type), real_t
// (its real part type), IS_COMPLEX.

#define FULL_MASK 0xffffffffu

#if IS_COMPLEX
// LAPACK's cabs1, the pivot measure of icamax/izamax.
__device__ __forceinline__ real_t abs1(elem_t z) { return c_fabs(z.re) + c_fabs(z.im); }
__device__ __forceinline__ bool is_zero(elem_t z) { return z.re == (real_t)0 && z.im == (real_t)0; }
#else
__device__ __forceinline__ real_t abs1(elem_t x) { return c_fabs(x); }
__device__ __forceinline__ bool is_zero(elem_t x) { return x == (elem_t)0; }
#endif

extern "C" __global__ void __launch_bounds__(MAXWARPS * 32) small_lu(const elem_t* __restrict__ a, long long batch, int n,
    int nrhs, const elem_t* __restrict__ b, elem_t* __restrict__ x, elem_t* __restrict__ sign,
    real_t* __restrict__ logdet, int* __restrict__ info) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int warps = blockDim.x >> 5;
  const int lane = threadIdx.x & 31;
  const int w = threadIdx.x >> 5;
  const int lda = n + 1;
#if defined(MODE_DET)
  const int per = n * lda;
#else
  const int per = n * lda + n * 32;
#endif
  elem_t* sa = (elem_t*)smem + (long long)w * per;
  int* piv = (int*)((elem_t*)smem + (long long)warps * per) + w * MAXN;
#if !defined(MODE_DET)
  elem_t* sx = sa + n * lda;
#if defined(MODE_INV)
  const int ncols = n;
#else
  const int ncols = nrhs;
#endif
#endif
  for (long long m = (long long)blockIdx.x * warps + w; m < batch; m += (long long)gridDim.x * warps) {
    // Load A (coalesced) into the padded rows.
    const elem_t* am = a + m * n * n;
    for (int e = lane; e < n * n; e += 32) {
      const int i = e / n;
      sa[i * lda + (e - i * n)] = am[e];
    }
    __syncwarp();

    int first_zero = 0;
    int swaps = 0;
    for (int k = 0; k < n; ++k) {
      // Pivot: the largest abs1 in rows k.. of column k, the first of equals (a NaN counts as
      // the largest, so that every lane agrees on one row and the NaN propagates).
      real_t v = (real_t)-1;
      int p = n;
      if (lane >= k && lane < n) {
        v = abs1(sa[lane * lda + k]);
        if (v != v) v = c_inf<real_t>();
        p = lane;
      }
      for (int off = 16; off > 0; off >>= 1) {
        const real_t ov = __shfl_xor_sync(FULL_MASK, v, off);
        const int op = __shfl_xor_sync(FULL_MASK, p, off);
        if (ov > v || (ov == v && op < p)) {
          v = ov;
          p = op;
        }
      }
      p = __shfl_sync(FULL_MASK, p, 0);
      if (lane == 0) piv[k] = p;
      if (p != k) {
        for (int j = lane; j < n; j += 32) {
          const elem_t t = sa[k * lda + j];
          sa[k * lda + j] = sa[p * lda + j];
          sa[p * lda + j] = t;
        }
        swaps ^= 1;
      }
      __syncwarp();
      const elem_t d = sa[k * lda + k];
      if (is_zero(d)) {
        // The whole column below is zero too (d has the largest magnitude): nothing to
        // eliminate; LAPACK records the first such step and goes on.
        if (!first_zero) first_zero = k + 1;
        continue;
      }
      if (lane > k && lane < n) {
        const elem_t l = sa[lane * lda + k] / d;
        sa[lane * lda + k] = l;
        for (int j = k + 1; j < n; ++j) sa[lane * lda + j] = sa[lane * lda + j] - l * sa[k * lda + j];
      }
      __syncwarp();
    }
    __syncwarp();

#if defined(MODE_DET)
    if (lane == 0) {
      elem_t s = elem_t((real_t)(swaps ? -1 : 1));
      real_t ld = (real_t)0;
      if (first_zero) {
        s = elem_t((real_t)0);
        ld = -c_inf<real_t>();
      } else {
        for (int i = 0; i < n; ++i) {
          const elem_t d = sa[i * lda + i];
#if IS_COMPLEX
          const real_t ad = c_hypot(d.re, d.im);
          s = s * elem_t(d.re / ad, d.im / ad);
          ld += c_log(ad);
#else
          if (d < (elem_t)0) s = -s;
          ld += c_log(c_fabs(d));
#endif
        }
      }
      sign[m] = s;
      logdet[m] = ld;
    }
#else
    // Blocks of 32 right-hand sides: lane c solves column c0 + c alone (its own slots of sx),
    // reading L and U from the shared matrix (all lanes read the same element: a broadcast).
    for (int c0 = 0; c0 < ncols; c0 += 32) {
      const int c = c0 + lane;
      if (c < ncols) {
        elem_t* col = sx + lane;
        for (int i = 0; i < n; ++i) {
#if defined(MODE_INV)
          col[i * 32] = elem_t((real_t)(i == c ? 1 : 0));
#else
          col[i * 32] = b[m * n * nrhs + (long long)i * nrhs + c];
#endif
        }
        // P B: the row swaps of the factorization, in order (LAPACK's laswp).
        for (int k = 0; k < n; ++k) {
          const int p = piv[k];
          if (p != k) {
            const elem_t t = col[k * 32];
            col[k * 32] = col[p * 32];
            col[p * 32] = t;
          }
        }
        // L y = P B (unit lower triangle), then U x = y.
        for (int i = 1; i < n; ++i) {
          elem_t acc = col[i * 32];
          for (int k = 0; k < i; ++k) acc = acc - sa[i * lda + k] * col[k * 32];
          col[i * 32] = acc;
        }
        for (int i = n - 1; i >= 0; --i) {
          elem_t acc = col[i * 32];
          for (int k = i + 1; k < n; ++k) acc = acc - sa[i * lda + k] * col[k * 32];
          col[i * 32] = acc / sa[i * lda + i];
        }
        for (int i = 0; i < n; ++i) x[m * n * ncols + (long long)i * ncols + c] = col[i * 32];
      }
    }
#endif
    if (lane == 0 && info) info[m] = first_zero;
    // The next matrix overwrites the shared blocks that other lanes may still be reading.
    __syncwarp();
  }
}
