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

// ---- Tall panels: more than MIDMAX rows (linalg/cuda/blocked.rs, getrf_tall) ----
//
// lu_panel_cluster: lu_panel spread over a thread-block cluster of CL blocks (Hopper): block r of
// the cluster holds the panel rows r*rpc .. r*rpc + rpc - 1, a row a thread. Column j: each block
// finds its candidate (the first row of largest magnitude among its rows at or below position j,
// two reductions as lu_panel's) and puts its key, position and row into a slot of its shared
// memory (two slots, by j's parity); one cluster barrier; every block reads the CL keys and the
// winner's row through distributed shared memory and goes on as lu_panel (rows never move: the
// position labels are swapped). The slot of column j is rewritten at column j + 2, after the
// barrier of column j + 1, which every block reaches only after its reads of column j.
// lu_swap_list and lu_swap_apply: a run of LAPACK's row interchanges (ipiv[k0 .. k1)) as one
// permutation of the rows it touches, applied to the other columns (dst <- src pairs, at most
// 2 (k1 - k0)), where a right-looking step applies them one swap after another: an outer step's.
// lu_step_u12: a panel's interchanges (from its row map src) on the other columns of its outer
// step and, right of it, U12 = L11^-1 (P B)12, in one launch (the product with L21 is cuBLAS's).
//
// -D (tall panels): CL (blocks a cluster), MAXT (threads a block: a row a thread in registers), OB
// (columns of an outer step: an interchange list holds at most 2 OB pairs).
#if __CUDA_ARCH__ >= 900
__device__ __forceinline__ unsigned cl_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cl_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ unsigned cl_map(const void* p, unsigned rank) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(p);
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
  return r;
}
__device__ __forceinline__ unsigned cl_ld(unsigned a, unsigned) {
  unsigned v;
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
  return v;
}
__device__ __forceinline__ unsigned long long cl_ld(unsigned a, unsigned long long) {
  unsigned long long v;
  asm volatile("ld.shared::cluster.u64 %0, [%1];" : "=l"(v) : "r"(a) : "memory");
  return v;
}
__device__ __forceinline__ float cl_ld(unsigned a, float) {
  float v;
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(a) : "memory");
  return v;
}
__device__ __forceinline__ double cl_ld(unsigned a, double) {
  double v;
  asm volatile("ld.shared::cluster.f64 %0, [%1];" : "=d"(v) : "r"(a) : "memory");
  return v;
}

// Grid CL * batch blocks of round_up(rpc, 32) threads (at most MAXT); rpc = rows a block holds
// (ceil((n - k) / CL)); matrix blockIdx.x / CL.
extern "C" __global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(MAXT)
    lu_panel_cluster(elem_t* __restrict__ a, int n, long long stride, int k, int rpc, long long* __restrict__ ipiv,
                     int* __restrict__ info, int* __restrict__ src) {
  __shared__ key_t s_key[MAXT / 32];
  __shared__ unsigned s_idx[MAXT / 32];
  __shared__ key_t c_key[2];
  __shared__ unsigned c_pos[2];
  __shared__ __align__(16) elem_t c_row[2][NB];
  __shared__ __align__(16) elem_t s_row[NB];
  const unsigned rank = cl_rank();
  const long long m = blockIdx.x / CL;
  elem_t* b = a + m * stride;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5, nw = blockDim.x >> 5;
  const int rows = n - k;
  const int nbk = min(NB, rows);
  const int g = (int)rank * rpc + t;
  const bool live = t < rpc && g < rows;
  elem_t r[NB];
#pragma unroll
  for (int c = 0; c < NB; ++c) r[c] = (live && c < nbk) ? b[(long long)(k + c) * n + k + g] : (elem_t)0;
  int pos = g;
  int first_zero = 0;
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
    const unsigned bpos = warp_min(k2 == bmax ? i2 : 0xffffffffu);
    const int par = j & 1;
    if (live && bmax != 0 && (unsigned)pos == bpos) {
#pragma unroll
      for (int c = j; c < NB; ++c) c_row[par][c] = r[c];
    }
    if (t == 0) {
      c_key[par] = bmax;
      c_pos[par] = bpos;
    }
    cl_sync();
    key_t ck = 0;
    unsigned cp = 0xffffffffu;
    if (lane < CL) {
      ck = cl_ld(cl_map(&c_key[par], lane), (key_t)0);
      cp = cl_ld(cl_map(&c_pos[par], lane), 0u);
    }
    const key_t cmax = warp_max(ck);
    const unsigned p = warp_min(ck == cmax ? cp : 0xffffffffu);
    const unsigned wr = warp_min(ck == cmax && cp == p ? (unsigned)lane : 0xffffffffu);
    if (t >= j && t < NB) s_row[t] = cl_ld(cl_map(&c_row[par][t], wr), (elem_t)0);
    __syncthreads();
    const elem_t d = s_row[j];
    const bool zero = d == (elem_t)0;
    const int np = pos == (int)p ? j : (pos == j ? (int)p : pos);
    if (live && np > j) {
      const elem_t l = zero ? r[j] : r[j] / d;
      r[j] = l;
#pragma unroll
      for (int c = j + 1; c < NB; ++c) r[c] -= l * s_row[c];
    }
    pos = np;
    if (rank == 0 && t == 0) {
      ipiv[m * n + k + j] = k + p + 1;
      if (zero && !first_zero) first_zero = k + j + 1;
    }
  }
  // No block leaves while another may still read its slots.
  cl_sync();
  if (live) {
#pragma unroll
    for (int c = 0; c < NB; ++c)
      if (c < nbk) b[(long long)(k + c) * n + k + pos] = r[c];
    src[m * n + k + pos] = k + g;
  }
  if (rank == 0 && t == 0) {
    if (k == 0)
      info[m] = first_zero;
    else if (first_zero && info[m] == 0)
      info[m] = first_zero;
  }
}
#endif

// One block of 256 threads, n - k0 ints of dynamic shared memory (the map of rows k0 .. n-1).
// list: [count, dst0, src0, dst1, src1, ...], at most 2 (k1 - k0) pairs.
extern "C" __global__ void __launch_bounds__(256) lu_swap_list(const long long* __restrict__ ipiv, int n, int k0,
    int k1, int* __restrict__ list) {
  extern __shared__ int s_map[];  // s_map[i]: the row that position k0 + i holds
  __shared__ int s_count;
  const int t = threadIdx.x, rows = n - k0;
  for (int i = t; i < rows; i += blockDim.x) s_map[i] = k0 + i;
  if (t == 0) s_count = 0;
  __syncthreads();
  if (t == 0)
    for (int j = k0; j < k1; ++j) {
      const int p = (int)ipiv[j] - 1;
      if (p <= j || p >= n) continue;  // no swap (getrf writes p >= j)
      const int x = s_map[j - k0];
      s_map[j - k0] = s_map[p - k0];
      s_map[p - k0] = x;
    }
  __syncthreads();
  // The positions that changed: among the run's own (k0 .. k1-1) and the rows they went to (a
  // row may be named twice: the exchange marks it done).
  for (int i = t; i < k1 - k0; i += blockDim.x) {
    const int s = s_map[i];
    if (s != k0 + i) {
      const int e = atomicAdd(&s_count, 1);
      list[1 + 2 * e] = k0 + i;
      list[2 + 2 * e] = s;
    }
  }
  for (int j = k0 + t; j < k1; j += blockDim.x) {
    const int p = (int)ipiv[j] - 1;
    if (p < k1 || p >= n) continue;
    const int s = atomicExch(&s_map[p - k0], p);
    if (s != p) {
      const int e = atomicAdd(&s_count, 1);
      list[1 + 2 * e] = p;
      list[2 + 2 * e] = s;
    }
  }
  __syncthreads();
  if (t == 0) list[0] = s_count;
}

// Block x: column c0 + x if x < c1 - c0, else c2 + x - (c1 - c0); 256 threads, LU_PAIRS pairs of
// the list each at most (every source read before any destination is written).
#define LU_PAIRS ((2 * OB + 255) / 256)
extern "C" __global__ void __launch_bounds__(256) lu_swap_apply(elem_t* __restrict__ a, int n,
    const int* __restrict__ list, int c0, int c1, int c2) {
  const int x = blockIdx.x;
  const long long c = x < c1 - c0 ? c0 + x : c2 + (x - (c1 - c0));
  elem_t* bc = a + c * n;
  const int count = list[0], t = threadIdx.x;
  elem_t v[LU_PAIRS];
#pragma unroll
  for (int q = 0; q < LU_PAIRS; ++q) {
    const int e = t + 256 * q;
    v[q] = e < count ? bc[list[2 + 2 * e]] : (elem_t)0;
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < LU_PAIRS; ++q) {
    const int e = t + 256 * q;
    if (e < count) bc[list[1 + 2 * e]] = v[q];
  }
}

// Block x: W columns of the panel's outer step, a warp each (lane i holds row k + i): column
// c0 + x if x < c1 - c0 (left of the panel: the interchanges only), else c2 + x - (c1 - c0)
// (right of it: the interchanges and U12), cols columns in all; the block's 32 W threads load
// L11 when the launch has a column right of the panel. src: position i holds row src[i] (the
// panel's positions k .. n-1). Only the panel's nbk positions and the rows below that moved up
// into them change, and every value a warp writes it has read first: no block touches another's
// columns.
extern "C" __global__ void __launch_bounds__(32 * W) lu_step_u12(elem_t* __restrict__ a, int n, int k, int c0,
    int c1, int c2, int cols, const int* __restrict__ src) {
  __shared__ __align__(16) elem_t s_l11[NB][NB];  // s_l11[j][i] = L(k + i, k + j)
  const int t = threadIdx.x, lane = t & 31;
  const int x = blockIdx.x * W + (t >> 5);
  const int nbk = min(NB, n - k);
  const bool solve = cols > c1 - c0;  // the launch has a column right of the panel
  if (solve)
    for (int e = t; e < NB * NB; e += blockDim.x) {
      const int j = e / NB, i = e - j * NB;
      s_l11[j][i] = (i < nbk && j < nbk) ? a[(long long)(k + j) * n + k + i] : (elem_t)0;
    }
  __syncthreads();
  if (x >= cols) return;
  const bool right = x >= c1 - c0;
  elem_t* bc = a + (long long)(right ? c2 + (x - (c1 - c0)) : c0 + x) * n;
  const bool on = lane < nbk;
  const int s = on ? src[k + lane] : k + lane;
  const elem_t top = on ? bc[k + lane] : (elem_t)0;
  elem_t u = on ? bc[s] : (elem_t)0;
  // The lower row s that moved up to k + lane: position s now holds row src[s] (one of the
  // panel's positions: only those move down).
  const bool down = on && s >= k + nbk;
  const int s2 = down ? src[s] - k : lane;
  const elem_t moved = __shfl_sync(FULL_MASK, top, s2 & 31);
  if (right) {
#pragma unroll
    for (int j = 0; j < NB; ++j) {
      const elem_t uj = __shfl_sync(FULL_MASK, u, j);
      if (lane > j && j < nbk) u -= s_l11[j][lane] * uj;
    }
  }
  if (down) bc[s] = moved;
  if (on) bc[k + lane] = u;
}
