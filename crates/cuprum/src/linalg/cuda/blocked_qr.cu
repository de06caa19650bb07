// LAPACK's geqrf and orgqr (Householder QR, panels of NB columns with block reflectors) for
// stacks of real m x n matrices with m <= MIDMAX rows, one block per matrix and step, as
// blocked_lu.cu does for LU. Used where measured faster than cuSOLVER (blocked.rs's takes_qr:
// small matrices and stacks); the panel is latency-bound (bench/RESULTS.md).
//
// Every matrix is column-major with leading dimension m: B(i, j) at b[j*m + i] (the first n
// columns of cuprum's work array). The factors overwrite B as geqrf's do: R on and above the
// diagonal, the reflectors' vectors v below it (v_j = 1 implied); their scalars tau_j are T's
// diagonal (orgqr reads them there). LAPACK's dlarfg: beta = -sign(alpha) |(alpha, x)|, tau =
// (beta - alpha) / beta, v = x / (alpha - beta), and tau = 0 (no reflection) when x is zero.
//
//   qr_panel:  one block, a warp per two of the panel's columns (all their rows in registers).
//              Column j: its owner takes the norm below the diagonal (in double for float, and
//              for double rescaled by the largest entry when the plain sum over- or
//              underflows) and makes the reflector; then each warp applies it to its later
//              columns and takes its earlier reflectors' dots with v (LAPACK's dlarft, forward
//              and columnwise: T(0:j, j) = -tau_j T(0:j, 0:j) V(:, 0:j)^T v_j, built at the end
//              of the panel). Writes the panel back and T (NB x NB, upper).
//   qr_apply:  X <- X - V op(T) V^T X on rows k.., the columns [c0, c1) of X, W a block:
//              op(T) = T^T for geqrf's trailing columns (X = B itself, right of the panel),
//              op(T) = T for orgqr (X = the Q being built from the identity, panels last first).
//
// -D: NB (panel width), W (columns per apply block), MIDMAX (largest m).
// Prelude (linalg/cuda/blocked.rs): elem_t = real_t (float or double).

#define FULL_MASK 0xffffffffu

// Sums of squares: double for float input (no overflow or underflow of a float's square).
typedef double acc_t;

template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
  return v;
}
__device__ __forceinline__ real_t warp_maxr(real_t v) {
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(FULL_MASK, v, o));
  return v;
}

// Reduce-scatter over a warp: lane l ends with the warp's sum of p[l] (31 shuffles for 32
// values: each step keeps half of the values, the half named by the lane's bit, and adds the
// partner's copy of it).
template <int S>
__device__ __forceinline__ void scatter_step(elem_t (&p)[NB], int lane) {
  const bool up = lane & S;
#pragma unroll
  for (int q = 0; q < S; ++q) {
    const elem_t send = up ? p[q] : p[q + S];
    const elem_t keep = up ? p[q + S] : p[q];
    p[q] = keep + __shfl_xor_sync(FULL_MASK, send, S);
  }
}
__device__ __forceinline__ elem_t reduce_scatter(elem_t (&p)[NB], int lane) {
  scatter_step<16>(p, lane);
  scatter_step<8>(p, lane);
  scatter_step<4>(p, lane);
  scatter_step<2>(p, lane);
  scatter_step<1>(p, lane);
  return p[0];
}

// Rows a lane holds of each of its columns (lane l: rows l, l + 32, ...).
#define RPL (MIDMAX / 32)

// One block of MIDMAX threads (MIDMAX / 32 warps) per matrix (blockIdx.y); B has n columns, the
// panel is columns k .. k + nbk (nbk = min(NB, min(m, n) - k)). Warp w owns the panel's columns
// w and w + MIDMAX/32 (all their rows, RPL a lane), so a column's dot products and norm are
// one warp's sums, and a column costs one block barrier: its owner makes the reflector and
// publishes v (double-buffered in shared memory), then every warp applies it to its later
// columns and takes its earlier ones' dots with v (for T). T goes to t_out (NB x NB per
// matrix, row-major, zero outside the panel's triangle).
extern "C" __global__ void __launch_bounds__(MIDMAX) qr_panel(elem_t* __restrict__ a, int m, int n, long long stride,
    int k, elem_t* __restrict__ t_out, long long t_stride) {
  constexpr int NW = MIDMAX / 32;
  constexpr int CPW = NB / NW;  // columns a warp owns
  static_assert(NB % NW == 0, "the panel's columns are shared out evenly");
  __shared__ elem_t s_v[2][MIDMAX];
  __shared__ elem_t s_g[NB][NB + 1];  // s_g[l][j] = v_l^T v_j, l < j
  __shared__ elem_t s_tau[NB];
  const long long mi = blockIdx.y;
  elem_t* b = a + mi * stride;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const int rows = m - k;
  const int nbk = min(NB, min(m, n) - k);
  elem_t x[CPW][RPL];
#pragma unroll
  for (int ci = 0; ci < CPW; ++ci) {
    const int c = warp + ci * NW;
#pragma unroll
    for (int q = 0; q < RPL; ++q) {
      const int i = lane + 32 * q;
      x[ci][q] = (c < nbk && i < rows) ? b[(long long)(k + c) * m + k + i] : (elem_t)0;
    }
  }
#pragma unroll 1
  for (int j = 0; j < nbk; ++j) {
    const int buf = j & 1;
    if (warp == j % NW) {
      const int cj = j / NW;
      // The column's entries by selects (the slot and the row's place are not constants).
      elem_t col[RPL];
#pragma unroll
      for (int q = 0; q < RPL; ++q) {
        col[q] = x[0][q];
#pragma unroll
        for (int ci = 1; ci < CPW; ++ci)
          if (ci == cj) col[q] = x[ci][q];
      }
      // Four partial sums: the chain of dependent adds is a column's critical path.
      acc_t sq[4] = {0, 0, 0, 0};
      real_t mx = 0;
      elem_t alpha_l = 0;
#pragma unroll
      for (int q = 0; q < RPL; ++q) {
        const int i = lane + 32 * q;
        const elem_t e = i > j ? col[q] : (elem_t)0;
        sq[q & 3] += (acc_t)e * (acc_t)e;
        mx = max(mx, c_fabs(e));
        if (i == j) alpha_l = col[q];
      }
      acc_t ssq = warp_sum<acc_t>((sq[0] + sq[1]) + (sq[2] + sq[3]));
      const elem_t alpha = __shfl_sync(FULL_MASK, alpha_l, j & 31);
      real_t xnorm;
      bool plain = true;
      if (sizeof(elem_t) == 8 && !(ssq >= 1e-290 && ssq <= 1e290)) {
        // Rescaled by the largest |x|: a sum that over- or underflowed in double (all squares
        // below 1e-324 sum to 0; a zero column comes here too and finds its largest entry 0).
        plain = false;
        mx = warp_maxr(mx);
        acc_t s2 = 0;
        if (mx > 0) {
#pragma unroll
          for (int q = 0; q < RPL; ++q) {
            const elem_t y = lane + 32 * q > j ? col[q] / mx : (elem_t)0;
            s2 += (acc_t)y * (acc_t)y;
          }
        }
        xnorm = mx * (real_t)sqrt(warp_sum<acc_t>(s2));
      } else {
        xnorm = (real_t)sqrt(ssq);
      }
      // dlarfg: x scaled by 1 / (alpha - beta) (divided where that reciprocal would overflow).
      elem_t tj = 0, beta = alpha, div = 1;
      if (xnorm != 0) {
        // |(alpha, x)| from the sum of squares where alpha's square stays finite (one square
        // root on the column's critical path), else hypot.
        const acc_t a2 = (acc_t)alpha * (acc_t)alpha + ssq;
        const real_t h = plain && a2 <= (acc_t)1e300 ? (real_t)sqrt(a2) : hypot(alpha, xnorm);
        beta = -copysign(h, alpha);
        tj = (beta - alpha) / beta;
        div = alpha - beta;
      }
      const bool recip = c_fabs(div) >= (real_t)1e-290;
      const elem_t rd = (elem_t)1 / div;
#pragma unroll
      for (int q = 0; q < RPL; ++q) {
        const int i = lane + 32 * q;
        const elem_t v = i > j && i < rows ? (recip ? col[q] * rd : col[q] / div) : (i == j ? (elem_t)1 : (elem_t)0);
        s_v[buf][i] = v;
        const elem_t nv = i > j ? v : (i == j ? beta : col[q]);
#pragma unroll
        for (int ci = 0; ci < CPW; ++ci)
          if (ci == cj) x[ci][q] = nv;
      }
      if (lane == 0) s_tau[j] = tj;
    }
    __syncthreads();
    const elem_t tj = s_tau[j];
    elem_t v[RPL];
#pragma unroll
    for (int q = 0; q < RPL; ++q) v[q] = s_v[buf][lane + 32 * q];
#pragma unroll
    for (int ci = 0; ci < CPW; ++ci) {
      const int c = warp + ci * NW;
      if (c > j && c < nbk) {
        // H_j^T on a later column: w = v^T x, x -= tau v w.
        elem_t ws[4] = {0, 0, 0, 0};
#pragma unroll
        for (int q = 0; q < RPL; ++q) ws[q & 3] += v[q] * x[ci][q];
        const elem_t w = warp_sum<elem_t>((ws[0] + ws[1]) + (ws[2] + ws[3]));
        const elem_t tw = tj * w;
#pragma unroll
        for (int q = 0; q < RPL; ++q) x[ci][q] -= tw * v[q];
      } else if (c < j) {
        // v_c^T v_j for an earlier reflector (its v: x below the diagonal, 1 on it).
        elem_t gs[4] = {0, 0, 0, 0};
#pragma unroll
        for (int q = 0; q < RPL; ++q) {
          const int i = lane + 32 * q;
          gs[q & 3] += (i > c ? x[ci][q] : (i == c ? (elem_t)1 : (elem_t)0)) * v[q];
        }
        const elem_t g = warp_sum<elem_t>((gs[0] + gs[1]) + (gs[2] + gs[3]));
        if (lane == 0) s_g[c][j] = g;
      }
    }
  }
#pragma unroll
  for (int ci = 0; ci < CPW; ++ci) {
    const int c = warp + ci * NW;
    if (c < nbk) {
#pragma unroll
      for (int q = 0; q < RPL; ++q) {
        const int i = lane + 32 * q;
        if (i < rows) b[(long long)(k + c) * m + k + i] = x[ci][q];
      }
    }
  }
  __syncthreads();
  // T, a column at a time by the first warp (the earlier columns' entries are its own writes,
  // ordered by __syncwarp), then stored whole (zero outside the triangle).
  __shared__ elem_t s_t[NB][NB + 1];
  if (warp == 0) {
    for (int j = 0; j < NB; ++j) {
      elem_t xv = 0;
      if (j < nbk) {
        if (lane == j) {
          xv = s_tau[j];
        } else if (lane < j) {
          elem_t s = 0;
          for (int l = lane; l < j; ++l) s += s_t[lane][l] * s_g[l][j];
          xv = -s_tau[j] * s;
        }
      }
      s_t[lane][j] = xv;
      __syncwarp();
    }
    elem_t* tm = t_out + mi * t_stride;
    for (int i = 0; i < NB; ++i) tm[i * NB + lane] = s_t[i][lane];
  }
}

// X <- X - V op(T) V^T X for rows k .. m of the columns [c0, c1) of X (column-major, leading
// dimension m, `x_stride` elements between matrices), V the panel at columns k .. k + nbk of
// the factored matrix `v` (`v_stride` between matrices), T from qr_panel. Grid
// (ceil((c1 - c0) / W), batch), round_up(m - k, 32) threads.
extern "C" __global__ void __launch_bounds__(MIDMAX) qr_apply(const elem_t* __restrict__ va, long long v_stride,
    const elem_t* __restrict__ t_in, long long t_stride, elem_t* __restrict__ xa, long long x_stride, int m,
    int k, int nbk, int c0, int c1, int trans) {
  __shared__ elem_t s_part[MIDMAX / 32][W][NB];
  __shared__ elem_t s_t[NB][NB];
  __shared__ elem_t s_y[NB][W];
  __shared__ elem_t s_z[NB][W];
  const long long mi = blockIdx.y;
  const elem_t* v = va + mi * v_stride;
  const elem_t* tm = t_in + mi * t_stride;
  elem_t* x = xa + mi * x_stride;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5, nw = blockDim.x >> 5, nt = blockDim.x;
  const int rows = m - k;
  const bool live = t < rows;
  const int cb = c0 + blockIdx.x * W;
  for (int e = t; e < NB * NB; e += nt) s_t[e / NB][e % NB] = tm[e];
  elem_t vr[NB];
#pragma unroll
  for (int j = 0; j < NB; ++j) {
    elem_t e = 0;
    if (live && j < nbk) e = t > j ? v[(long long)(k + j) * m + k + t] : (t == j ? (elem_t)1 : (elem_t)0);
    vr[j] = e;
  }
  elem_t xr[W];
#pragma unroll
  for (int w = 0; w < W; ++w) xr[w] = (live && cb + w < c1) ? x[(long long)(cb + w) * m + k + t] : (elem_t)0;
  // Y = V^T X: per column, the warp's 32 sums scattered over its lanes, then the warps' in order.
#pragma unroll
  for (int w = 0; w < W; ++w) {
    elem_t p[NB];
#pragma unroll
    for (int j = 0; j < NB; ++j) p[j] = vr[j] * xr[w];
    s_part[warp][w][lane] = reduce_scatter(p, lane);
  }
  __syncthreads();
  for (int e = t; e < NB * W; e += nt) {
    const int j = e / W, w = e - j * W;
    elem_t s = 0;
    for (int q = 0; q < nw; ++q) s += s_part[q][w][j];
    s_y[j][w] = s;
  }
  __syncthreads();
  // Z = op(T) Y (T upper: T^T's row j is T's column j, entries l <= j; T's row j, l >= j).
  for (int e = t; e < NB * W; e += nt) {
    const int j = e / W, w = e - j * W;
    elem_t s = 0;
    if (trans) {
      for (int l = 0; l <= j; ++l) s += s_t[l][j] * s_y[l][w];
    } else {
      for (int l = j; l < NB; ++l) s += s_t[j][l] * s_y[l][w];
    }
    s_z[j][w] = s;
  }
  __syncthreads();
  if (live) {
#pragma unroll
    for (int w = 0; w < W; ++w) {
      if (cb + w >= c1) break;
      elem_t s = xr[w];
#pragma unroll
      for (int j = 0; j < NB; ++j) s -= vr[j] * s_z[j][w];
      x[(long long)(cb + w) * m + k + t] = s;
    }
  }
}
