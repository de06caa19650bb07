// numpy.linalg.inv from LU factors (linalg/cuda/inv.rs). cuprum hands over a row-major A, which
// column-major is B = A^T; getrf gave P B = L U, so B^-1 = U^-1 L^-1 P. Two cuBLAS solves turn
// the identity into X = U^-1 L^-1 (column-major); these kernels apply P: B^-1 = X P, whose
// column perm[k] is X's column k, and B^-1 column-major is A^-1 row-major, so
//
//   lu_perm:    perm[i] = the row of B at row i of P B (LAPACK's swaps ipiv, 1-based, applied
//               in order to 0 .. n-1); one block a matrix, the swaps by one thread (each may
//               move an entry an earlier swap moved), in shared memory when n ints fit.
//   inv_gather: row perm[k] of A^-1 = column k of X, one block a column.
//
// Every matrix of a stack is n x n with stride n * n, its pivots n int64 and its perm n int32.
// Prelude (linalg/cuda/inv.rs): elem_t (any storage type: the gather copies it).

extern "C" __global__ void __launch_bounds__(256) lu_perm(const long long* __restrict__ ipiv, int n,
    int* __restrict__ perm, int in_shared) {
  extern __shared__ int s_perm[];
  const long long m = blockIdx.x;
  const long long* piv = ipiv + m * n;
  int* out = perm + m * n;
  int* p = in_shared ? s_perm : out;
  for (int i = threadIdx.x; i < n; i += blockDim.x) p[i] = i;
  __syncthreads();
  if (threadIdx.x == 0) {
#pragma unroll 8
    for (int i = 0; i < n; ++i) {
      const int k = (int)piv[i] - 1;
      if (k < i || k >= n) continue;  // not a pivot getrf writes (k >= i); never out of bounds
      const int t = p[k];
      p[k] = p[i];
      p[i] = t;
    }
  }
  __syncthreads();
  if (in_shared)
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = s_perm[i];
}

// Block (k, m): column k of matrix m's X to row perm[k] of its A^-1 (grid.x = n columns,
// grid.y = matrices).
extern "C" __global__ void __launch_bounds__(256) inv_gather(const elem_t* __restrict__ x,
    const int* __restrict__ perm, elem_t* __restrict__ out, int n) {
  const long long k = blockIdx.x, m = blockIdx.y, nn = (long long)n * n;
  const elem_t* src = x + m * nn + k * n;
  elem_t* dst = out + m * nn + (long long)perm[m * n + k] * n;
  for (int i = threadIdx.x; i < n; i += blockDim.x) dst[i] = src[i];
}
