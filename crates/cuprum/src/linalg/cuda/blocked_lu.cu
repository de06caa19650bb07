// LAPACK's getrf (LU with partial pivoting, right-looking, panels of NB columns) for stacks of
// real matrices of order MIDMAX at most, one block per matrix and step: cuSOLVER's getrf spends
// most of a 512 x 512 factorization in its panel (one pivot search after another), which here
// is one block holding the panel in registers.
//
// Every matrix is column-major with leading dimension n, as LAPACK's: B(i, j) at b[j*n + i]
// (cuprum hands over a row-major A, which is B = A^T). The factors overwrite B as getrf's do:
// the unit lower L below the diagonal, U on and above it, ipiv 1-based (B's row j was swapped
// with row ipiv[j] - 1, in order j = 0, 1, ...), info the first zero pivot (1-based) or 0.
//
// For each panel k (columns k .. k+nbk of B, nbk = min(NB, n - k)):
//   lu_panel:  one block, a thread per row k + t of the panel (its nbk entries in registers).
//              Column j: the pivot is the first row of largest |b| (a NaN counts as infinite,
//              as in small_lu.cu) among the rows at or below j; the rows are never moved: the
//              thread holding the pivot row takes position j and the thread that held position
//              j takes the pivot's, which is LAPACK's swap. The pivot row goes through shared
//              memory to every thread, which scales its entry and updates the rest of its row.
//              Writes the panel back in its final row order, ipiv, info and src (for position
//              k + q, the row it came from).
//   lu_update: the other columns of B, W a block: the panel's row swaps (from src), and right
//              of the panel U12 = L11^-1 (P B)12 and B22 -= L21 U12.
// lu_det turns the factors into NumPy's slogdet (sign, log|det|) per matrix.
//
// -D: NB (panel width), W (columns per update block), MIDMAX (largest n).
// Prelude (linalg/cuda/blocked.rs): elem_t = real_t (float or double).

#define FULL_MASK 0xffffffffu

// A magnitude's ordering key: 0 for a row out of the search, else its bits + 1 (non-negative
// floats order as their bits; a NaN was made infinite before).
__device__ __forceinline__ unsigned mag_key(float v) { return __float_as_uint(v) + 1u; }
__device__ __forceinline__ unsigned long long mag_key(double v) {
  return (unsigned long long)__double_as_longlong(v) + 1ull;
}
typedef decltype(mag_key((real_t)0)) key_t;

__device__ __forceinline__ unsigned warp_max(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync(FULL_MASK, v);
#else
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(FULL_MASK, v, o));
  return v;
#endif
}
__device__ __forceinline__ unsigned long long warp_max(unsigned long long v) {
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long w = __shfl_xor_sync(FULL_MASK, v, o);
    v = w > v ? w : v;
  }
  return v;
}
__device__ __forceinline__ unsigned warp_min(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_min_sync(FULL_MASK, v);
#else
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(FULL_MASK, v, o));
  return v;
#endif
}

// One block of round_up(n - k, 32) threads per matrix (blockIdx.y); stride: elements between
// matrices.
extern "C" __global__ void __launch_bounds__(MIDMAX) lu_panel(elem_t* __restrict__ a, int n, long long stride, int k,
    long long* __restrict__ ipiv, int* __restrict__ info, int* __restrict__ src) {
  __shared__ key_t s_key[MIDMAX / 32];
  __shared__ unsigned s_idx[MIDMAX / 32];
  __shared__ __align__(16) elem_t s_row[NB];
  const long long m = blockIdx.y;
  elem_t* b = a + m * stride;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5, nw = blockDim.x >> 5;
  const int rows = n - k;
  const int nbk = min(NB, rows);
  const bool live = t < rows;
  elem_t r[NB];
#pragma unroll
  for (int c = 0; c < NB; ++c) r[c] = (live && c < nbk) ? b[(long long)(k + c) * n + k + t] : (elem_t)0;
  int pos = t;         // the row position this thread's row holds now
  int first_zero = 0;  // thread 0's: the first zero pivot, 1-based
#pragma unroll
  for (int j = 0; j < NB; ++j) {
    if (j >= nbk) break;
    key_t key = 0;
    if (live && pos >= j) {
      real_t v = c_fabs(r[j]);
      if (v != v) v = c_inf<real_t>();
      key = mag_key(v);
    }
    const key_t wmax = warp_max(key);
    const unsigned wpos = warp_min(key == wmax ? (unsigned)pos : 0xffffffffu);
    if (lane == 0) {
      s_key[warp] = wmax;
      s_idx[warp] = wpos;
    }
    __syncthreads();
    const key_t k2 = lane < nw ? s_key[lane] : (key_t)0;
    const unsigned i2 = lane < nw ? s_idx[lane] : 0xffffffffu;
    const key_t bmax = warp_max(k2);
    const int p = (int)warp_min(k2 == bmax ? i2 : 0xffffffffu);
    if (pos == p) {
#pragma unroll
      for (int c = j; c < NB; ++c) s_row[c] = r[c];
    }
    __syncthreads();
    const elem_t d = s_row[j];
    const bool zero = d == (elem_t)0;
    const int np = pos == p ? j : (pos == j ? p : pos);
    // A zero pivot: the column below is zero too (d has the largest magnitude); LAPACK
    // records the first and goes on without scaling.
    if (live && np > j) {
      const elem_t l = zero ? r[j] : r[j] / d;
      r[j] = l;
#pragma unroll
      for (int c = j + 1; c < NB; ++c) r[c] -= l * s_row[c];
    }
    pos = np;
    if (t == 0) {
      ipiv[m * n + k + j] = k + p + 1;
      if (zero && !first_zero) first_zero = k + j + 1;
    }
  }
  if (live) {
#pragma unroll
    for (int c = 0; c < NB; ++c)
      if (c < nbk) b[(long long)(k + c) * n + k + pos] = r[c];
    src[m * n + k + pos] = k + t;
  }
  if (t == 0) {
    if (k == 0)
      info[m] = first_zero;
    else if (first_zero && info[m] == 0)
      info[m] = first_zero;
  }
}

// Grid (ceil((n - nbk) / W), batch), blockDim.x threads (a multiple of 32, at least W and at
// least the n - k - nbk rows below the panel). Block x
// takes the columns q = x*W .. x*W + W - 1 of B besides the panel's: column q if q < k (left of
// the panel: the row swaps only), else q + nbk.
extern "C" __global__ void __launch_bounds__(MIDMAX) lu_update(elem_t* __restrict__ a, int n, long long stride, int k,
    const int* __restrict__ src) {
  __shared__ __align__(16) elem_t s_l11[NB][NB];  // s_l11[j][i] = L(k + i, k + j)
  __shared__ __align__(16) elem_t s_top[W][NB];   // B(k + i, c) before the swaps
  __shared__ __align__(16) elem_t s_u[W][NB];     // B(src(k + i), c), then U12(i, c)
  const long long m = blockIdx.y;
  elem_t* b = a + m * stride;
  const int* sr = src + m * n;
  const int t = threadIdx.x, nt = blockDim.x;
  const int nbk = min(NB, n - k);
  const int ncols = n - nbk;
  const int q0 = blockIdx.x * W;
  // Whether the block has a column right of the panel (those need L).
  const bool right = q0 + W - 1 >= k && k + nbk < n;
  for (int e = t; e < W * NB; e += nt) {
    const int w = e / NB, i = e - w * NB;
    const int q = q0 + w;
    elem_t top = 0, u = 0;
    if (q < ncols && i < nbk) {
      const long long c = q < k ? q : q + nbk;
      top = b[c * n + k + i];
      u = b[c * n + sr[k + i]];
    }
    s_top[w][i] = top;
    s_u[w][i] = u;
  }
  if (right) {
    for (int e = t; e < NB * NB; e += nt) {
      const int j = e / NB, i = e - j * NB;
      s_l11[j][i] = (i < nbk && j < nbk) ? b[(long long)(k + j) * n + k + i] : (elem_t)0;
    }
  }
  __syncthreads();
  // U12 = L11^-1 (P B)12: a thread per column, the unit lower triangle by columns.
  if (t < W && q0 + t < ncols && q0 + t >= k) {
    elem_t u[NB];
#pragma unroll
    for (int i = 0; i < NB; ++i) u[i] = s_u[t][i];
#pragma unroll
    for (int j = 0; j < NB; ++j) {
#pragma unroll
      for (int i = j + 1; i < NB; ++i) u[i] -= s_l11[j][i] * u[j];
    }
#pragma unroll
    for (int i = 0; i < NB; ++i) s_u[t][i] = u[i];
  }
  __syncthreads();
  for (int e = t; e < W * NB; e += nt) {
    const int w = e / NB, i = e - w * NB;
    const int q = q0 + w;
    if (q < ncols && i < nbk) {
      const long long c = q < k ? q : q + nbk;
      b[c * n + k + i] = s_u[w][i];
    }
  }
  // The rows below the panel, a thread each (the block has as many threads, rounded up: no loop,
  // which would hoist all of s_u into registers): a row that a swap moved takes its new entry
  // from s_top (only the panel's rows move down); right of the panel, B22 -= L21 U12.
  const int i = k + nbk + t;
  if (i < n) {
    const int s = sr[i];
    elem_t l[NB];
#pragma unroll
    for (int j = 0; j < NB; ++j) l[j] = right && j < nbk ? b[(long long)(k + j) * n + i] : (elem_t)0;
#pragma unroll
    for (int w = 0; w < W; ++w) {
      const int q = q0 + w;
      if (q >= ncols) break;
      const long long c = q < k ? q : q + nbk;
      if (q >= k) {
        elem_t v = s == i ? b[c * n + i] : s_top[w][s - k];
#pragma unroll
        for (int j = 0; j < NB; ++j) v -= l[j] * s_u[w][j];
        b[c * n + i] = v;
      } else if (s != i) {
        b[c * n + i] = s_top[w][s - k];
      }
    }
  }
}

// NumPy's slogdet from the factors: sign = (-1)^(swaps + negative pivots), log|det| = the sum
// of log|u_ii|; a zero pivot gives (0, -inf). One block of 256 threads per matrix.
extern "C" __global__ void __launch_bounds__(256) lu_det(const elem_t* __restrict__ a, int n, long long stride,
    const long long* __restrict__ ipiv, elem_t* __restrict__ sign, real_t* __restrict__ logdet) {
  __shared__ real_t s_log[8];
  __shared__ int s_odd[8], s_zero[8];
  const long long m = blockIdx.x;
  const elem_t* b = a + m * stride;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  real_t lg = 0;
  int odd = 0, zero = 0;
  for (int i = t; i < n; i += blockDim.x) {
    const elem_t d = b[(long long)i * n + i];
    odd ^= (d < (elem_t)0) ^ (ipiv[m * n + i] != i + 1);
    zero |= d == (elem_t)0;
    lg += c_log(c_fabs(d));
  }
  for (int o = 16; o > 0; o >>= 1) {
    lg += __shfl_xor_sync(FULL_MASK, lg, o);
    odd ^= __shfl_xor_sync(FULL_MASK, odd, o);
    zero |= __shfl_xor_sync(FULL_MASK, zero, o);
  }
  if (lane == 0) {
    s_log[warp] = lg;
    s_odd[warp] = odd;
    s_zero[warp] = zero;
  }
  __syncthreads();
  if (t == 0) {
    for (int w = 1; w < (int)(blockDim.x >> 5); ++w) {
      lg += s_log[w];
      odd ^= s_odd[w];
      zero |= s_zero[w];
    }
    sign[m] = zero ? (elem_t)0 : (odd ? (elem_t)-1 : (elem_t)1);
    logdet[m] = zero ? -c_inf<real_t>() : lg;
  }
}
