// A probe (bench/probes/lu/cluster_panel.py), not yet cuprum code: blocked_lu.cu's lu_panel spread
// over a thread-block cluster of CL blocks (Hopper), for panels taller than one block's MIDMAX
// rows. Appended to blocked_lu.cu (its mag_key, warp_max, warp_min) by the probe.
//
// Block r of the cluster holds the panel rows r*rpc .. r*rpc + rpc - 1, a row a thread, as
// lu_panel does. Column j: each block finds its candidate (the first row of largest magnitude
// among its rows at or below position j) and puts its key, position and row into a slot of its
// shared memory (two slots, by j's parity); one cluster barrier; every block reads the CL keys and
// the winner's row through distributed shared memory and goes on as lu_panel (rows never move:
// position labels are swapped). The slot of column j is rewritten at column j + 2, after the
// barrier of column j + 1, which every block reaches only after its reads of column j.

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
