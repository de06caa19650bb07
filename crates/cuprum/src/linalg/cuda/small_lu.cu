// Many small square matrices (n <= MAXN = 32) at once, a group of `group` lanes per matrix
// (8, 16 or 32: the smallest that holds a row per lane, so a warp takes 4, 2 or 1 matrices,
// and every group of a warp runs the same steps): LU with partial
// pivoting in shared memory (LAPACK's getf2: the pivot is the first entry of largest
// |re| + |im| in its column, rows swapped, multipliers below the diagonal), then
//   MODE_DET:   NumPy's slogdet: sign = (-1)^swaps * prod(u_ii / |u_ii|) and
//               logdet = sum(log |u_ii|); a zero pivot gives sign 0 and logdet -inf;
//   MODE_SOLVE: X = A^-1 B for the nrhs columns of B;
//   MODE_INV:   X = A^-1 (B is the identity, built here);
// and where `singular` is given, it counts the matrices with an exactly-zero pivot (LAPACK's
// getrf reports those as a singular U; one counter for the stack, so one small read).
//
// Layout: all matrices ROW-MAJOR and contiguous: A m at a + m*n*n; B (MODE_SOLVE) and X at
// b + m*n*nrhs and x + m*n*nrhs, each n x nrhs (MODE_INV: n x n); sign, logdet at [m].
//
// Shared memory (dynamic), per group: the matrix (n rows of n + 1 elements, the padding
// spreads a column over the banks), for SOLVE/INV a block of n x group right-hand sides (lane
// c of the group owns column c of the block), and after all groups' elements MAXN pivot
// indices per group.
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
    real_t* __restrict__ logdet, int* __restrict__ singular, int group) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int groups = (blockDim.x >> 5) * (32 / group);  // groups (matrices) per block
  const int lane = threadIdx.x & (group - 1);            // lane within the group
  const int g = threadIdx.x / group;                     // group within the block
  const int lda = n + 1;
#if defined(MODE_DET)
  const int per = n * lda;
#else
  const int per = n * lda + n * group;
#endif
  elem_t* sa = (elem_t*)smem + (long long)g * per;
  int* piv = (int*)((elem_t*)smem + (long long)groups * per) + g * MAXN;
#if !defined(MODE_DET)
  elem_t* sx = sa + n * lda;
#if defined(MODE_INV)
  const int ncols = n;
#else
  const int ncols = nrhs;
#endif
#endif
  // Every group of the block takes the same number of rounds (a group past the end works on
  // the identity and stores nothing), so that the warp's shuffles and syncs line up.
  const long long rounds = (batch + (long long)gridDim.x * groups - 1) / ((long long)gridDim.x * groups);
  for (long long r = 0; r < rounds; ++r) {
    const long long m = (r * gridDim.x + blockIdx.x) * groups + g;
    const bool live = m < batch;
    // Load A (coalesced) into the padded rows.
    const elem_t* am = a + m * n * n;
    for (int e = lane; e < n * n; e += group) {
      const int i = e / n, j = e - i * n;
      sa[i * lda + j] = live ? am[e] : elem_t((real_t)(i == j ? 1 : 0));
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
      for (int off = group >> 1; off > 0; off >>= 1) {
        const real_t ov = __shfl_xor_sync(FULL_MASK, v, off);
        const int op = __shfl_xor_sync(FULL_MASK, p, off);
        if (ov > v || (ov == v && op < p)) {
          v = ov;
          p = op;
        }
      }
      p = __shfl_sync(FULL_MASK, p, 0, group);
      if (lane == 0) piv[k] = p;
      if (p != k) {
        for (int j = lane; j < n; j += group) {
          const elem_t t = sa[k * lda + j];
          sa[k * lda + j] = sa[p * lda + j];
          sa[p * lda + j] = t;
        }
        swaps ^= 1;
      }
      __syncwarp();
      const elem_t d = sa[k * lda + k];
      // A zero pivot: the whole column below is zero too (d has the largest magnitude), so
      // there is nothing to eliminate; LAPACK records the first such step and goes on.
      const bool zero = is_zero(d);
      if (zero && !first_zero) first_zero = k + 1;
      if (!zero && lane > k && lane < n) {
        const elem_t l = sa[lane * lda + k] / d;
        sa[lane * lda + k] = l;
        for (int j = k + 1; j < n; ++j) sa[lane * lda + j] = sa[lane * lda + j] - l * sa[k * lda + j];
      }
      __syncwarp();
    }

#if defined(MODE_DET)
    if (lane == 0 && live) {
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
    // Blocks of `group` right-hand sides: lane c solves column c0 + c alone (its own slots of
    // sx), reading L and U from the shared matrix (the lanes read one element: a broadcast).
    for (int c0 = 0; c0 < ncols; c0 += group) {
      const int c = c0 + lane;
      if (c < ncols) {
        elem_t* col = sx + lane;
        for (int i = 0; i < n; ++i) {
#if defined(MODE_INV)
          col[i * group] = elem_t((real_t)(i == c ? 1 : 0));
#else
          col[i * group] = live ? b[m * n * nrhs + (long long)i * nrhs + c] : elem_t((real_t)0);
#endif
        }
        // P B: the row swaps of the factorization, in order (LAPACK's laswp).
        for (int k = 0; k < n; ++k) {
          const int p = piv[k];
          if (p != k) {
            const elem_t t = col[k * group];
            col[k * group] = col[p * group];
            col[p * group] = t;
          }
        }
        // L y = P B (unit lower triangle), then U x = y.
        for (int i = 1; i < n; ++i) {
          elem_t acc = col[i * group];
          for (int k = 0; k < i; ++k) acc = acc - sa[i * lda + k] * col[k * group];
          col[i * group] = acc;
        }
        for (int i = n - 1; i >= 0; --i) {
          elem_t acc = col[i * group];
          for (int k = i + 1; k < n; ++k) acc = acc - sa[i * lda + k] * col[k * group];
          col[i * group] = acc / sa[i * lda + i];
        }
        if (live)
          for (int i = 0; i < n; ++i) x[m * n * ncols + (long long)i * ncols + c] = col[i * group];
      }
    }
#endif
    if (lane == 0 && live && first_zero && singular) atomicAdd(singular, 1);
    // The next matrix overwrites the shared blocks that other lanes may still be reading.
    __syncwarp();
  }
}
