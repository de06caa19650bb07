// A probe (bench/probes/lu/cluster_panel.py): an alternative to blocked_lu.cu's lu_panel_cluster
// (cuprum's tall LU panel across a thread-block cluster), appended to blocked_lu.cu by the probe
// (its cl_* helpers, mag_key, warp_max, warp_min). Measured slower than lu_panel_cluster (4096 rows
// float64: 88 against 66 us a panel): the warps' redundant reads of every candidate through
// distributed shared memory cost more than the block barriers they save.

// The same with no block barrier: every warp publishes its own candidate (key, position, row) in
// the slot of its parity; after the one cluster barrier each warp reads all CL * nw candidates'
// keys through distributed shared memory, picks the winner (the first position of the largest
// key) and reads its row, a value a lane, which shuffles hand to the row updates.
extern "C" __global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(MAXT)
    lu_panel_cluster2(elem_t* __restrict__ a, int n, long long stride, int k, int rpc, long long* __restrict__ ipiv,
                      int* __restrict__ info, int* __restrict__ src) {
  __shared__ key_t w_key[2][MAXT / 32];
  __shared__ unsigned w_pos[2][MAXT / 32];
  __shared__ __align__(16) elem_t w_row[2][MAXT / 32][NB];
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
  const int ncand = CL * nw;
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
    const int par = j & 1;
    if (live && wmax != 0 && (unsigned)pos == wpos) {
#pragma unroll
      for (int c = j; c < NB; ++c) w_row[par][warp][c] = r[c];
    }
    if (lane == 0) {
      w_key[par][warp] = wmax;
      w_pos[par][warp] = wpos;
    }
    cl_sync();
    key_t ck = 0;
    unsigned cp = 0xffffffffu, cw = 0;
    for (int q = lane; q < ncand; q += 32) {
      const unsigned rk = (unsigned)(q / nw), wq = (unsigned)(q - (int)rk * nw);
      const key_t kq = cl_ld(cl_map(&w_key[par][wq], rk), (key_t)0);
      const unsigned pq = cl_ld(cl_map(&w_pos[par][wq], rk), 0u);
      if (kq > ck || (kq == ck && pq < cp)) {
        ck = kq;
        cp = pq;
        cw = (unsigned)q;
      }
    }
    const key_t cmax = warp_max(ck);
    const unsigned p = warp_min(ck == cmax ? cp : 0xffffffffu);
    const unsigned win = warp_min(ck == cmax && cp == p ? cw : 0xffffffffu);
    const unsigned wrk = win / (unsigned)nw, wwp = win - wrk * (unsigned)nw;
    const elem_t rowc = lane >= j ? cl_ld(cl_map(&w_row[par][wwp][lane], wrk), (elem_t)0) : (elem_t)0;
    const elem_t d = __shfl_sync(FULL_MASK, rowc, j);
    const bool zero = d == (elem_t)0;
    const int np = pos == (int)p ? j : (pos == j ? (int)p : pos);
    const bool upd = live && np > j;
    const elem_t l = upd ? (zero ? r[j] : r[j] / d) : r[j];
    r[j] = l;
#pragma unroll
    for (int c = j + 1; c < NB; ++c) {
      const elem_t u = __shfl_sync(FULL_MASK, rowc, c);
      if (upd) r[c] -= l * u;
    }
    pos = np;
    if (rank == 0 && t == 0) {
      ipiv[m * n + k + j] = k + p + 1;
      if (zero && !first_zero) first_zero = k + j + 1;
    }
  }
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
