// cumsum / cumprod of contiguous lanes: a single-pass inclusive scan with decoupled look-back.
//
// Each block takes the next tile of TILE elements (a dynamic tile counter keeps the order; a
// lane's tiles are consecutive), loads it with coalesced accesses (16-byte vectors for whole,
// aligned tiles) into shared memory (padded: one slot every 128 bytes, so that the transposed
// reads do not conflict), reads its ITEMS consecutive elements into registers, scans them,
// the warp and the block; warp 0 publishes the tile's aggregate and looks back over its
// predecessors' published aggregates/prefixes for the exclusive prefix. The results go back
// through shared memory and out with coalesced stores. Values are converted at the load to
// the accumulator type A (float for float16) and rounded to the output's type once, at the
// store.
//
// -D: THREADS (threads per block), ITEMS (consecutive elements per thread).
// Prelude (scan/cuda.rs): A (accumulator), XS / OS (input / output storage), VX / VO
// (elements per 16-byte vector), LOGP (log2 of the accumulators per 128 bytes), ID (the
// identity), opf(a, b), LOADX(x) (input storage to A), STOREY(a) (A to output storage).
#include "cuprum/prelude.cuh"
#include "cuprum/float16.cuh"
#include "cuprum/lookback.cuh"

#define TILE (THREADS * ITEMS)
#define NW (THREADS / 32)
#define NVX (TILE / VX / THREADS)
#define NVO (TILE / VO / THREADS)
#define PAD_EVERY (1 << LOGP)
#define PAD(i) ((i) + ((i) >> LOGP))
extern "C" __global__ void __launch_bounds__(THREADS) scan(const XS* __restrict__ x, OS* __restrict__ y, long long len,
    long long tpr, unsigned int* flags, A* agg, A* incl, unsigned int* ctr) {
  __shared__ A sh[TILE + TILE / PAD_EVERY];
  __shared__ unsigned int s_tile; __shared__ A warp_tot[NW]; __shared__ A s_prefix;
  if (threadIdx.x == 0) s_tile = atomicAdd(ctr, 1u);
  __syncthreads();
  const long long tile = s_tile, row = tile / tpr, t = tile % tpr;
  const long long start = row * len + t * TILE;
  const XS* xt = x + start;
  OS* yt = y + start;
  const long long rem = len - t * TILE;
  const int cnt = rem < TILE ? (int)rem : TILE;
  // The tile into shared memory: coalesced loads, 16-byte vectors for a whole aligned tile.
  if (cnt == TILE && (((unsigned long long)xt) & 15ull) == 0ull) {
    Pack<XS, VX> p[NVX];
    #pragma unroll
    for (int k = 0; k < NVX; k++) p[k] = reinterpret_cast<const Pack<XS, VX>*>(xt)[threadIdx.x + k * THREADS];
    #pragma unroll
    for (int k = 0; k < NVX; k++) {
      #pragma unroll
      for (int c = 0; c < VX; c++) { const int e = (threadIdx.x + k * THREADS) * VX + c; sh[PAD(e)] = (A)LOADX(p[k].v[c]); }
    }
  } else {
    #pragma unroll
    for (int k = 0; k < ITEMS; k++) { const int e = threadIdx.x + k * THREADS; sh[PAD(e)] = e < cnt ? (A)LOADX(xt[e]) : (A)ID; }
  }
  __syncthreads();
  // This thread's consecutive elements, scanned in registers.
  A v[ITEMS];
  #pragma unroll
  for (int j = 0; j < ITEMS; j++) v[j] = sh[PAD(threadIdx.x * ITEMS + j)];
  #pragma unroll
  for (int j = 1; j < ITEMS; j++) v[j] = opf(v[j - 1], v[j]);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  A inc = v[(ITEMS - 1)];
  #pragma unroll
  for (int d = 1; d < 32; d <<= 1) { A o = __shfl_up_sync(0xffffffffu, inc, d); if (lane >= d) inc = opf(o, inc); }
  A wex = __shfl_up_sync(0xffffffffu, inc, 1);
  if (lane == 0) wex = (A)ID;
  if (lane == 31) warp_tot[w] = inc;
  // After this barrier every thread has read its elements from `sh` and the warp totals are in.
  __syncthreads();
  if (w == 0) {
    // Warp 0: publish this tile's aggregate, then look back 32 predecessors at a time.
    A run = (A)ID;
    for (int k = 0; k < NW; k++) { A tk = warp_tot[k]; run = opf(run, tk); }
    __syncwarp();
    if (lane == 0) {
      A r2 = (A)ID;
      for (int k = 0; k < NW; k++) { A tk = warp_tot[k]; warp_tot[k] = r2; r2 = opf(r2, tk); }
    }
    volatile unsigned int* vf = flags;
    const long long row0 = row * tpr;
    A prefix = (A)ID;
    if (t == 0) {
      if (lane == 0) lb_publish(&incl[tile], run, vf + tile, 2u);
    } else {
      if (lane == 0) lb_publish(&agg[tile], run, vf + tile, 1u);
      long long base = tile - 1;
      while (true) {
        const long long p = base - lane;
        unsigned int f = 2u; A val = (A)ID;
        if (p >= row0) {
          f = lb_wait(vf + p);
          val = (f == 2u) ? ((volatile A*)incl)[p] : ((volatile A*)agg)[p];
        }
        const unsigned int done = __ballot_sync(0xffffffffu, f == 2u);
        const int first = done ? __ffs(done) - 1 : 31;
        if (lane > first) val = (A)ID;
        #pragma unroll
        for (int d = 16; d > 0; d >>= 1) { A o = __shfl_down_sync(0xffffffffu, val, d); val = opf(val, o); }
        val = __shfl_sync(0xffffffffu, val, 0);
        prefix = opf(val, prefix);
        if (done) break;
        base -= 32;
      }
      if (lane == 0) lb_publish(&incl[tile], opf(prefix, run), vf + tile, 2u);
    }
    if (lane == 0) s_prefix = prefix;
  }
  __syncthreads();
  // The results back through shared memory (each thread its own slots), then coalesced stores.
  const A pre = opf(opf(s_prefix, warp_tot[w]), wex);
  #pragma unroll
  for (int j = 0; j < ITEMS; j++) sh[PAD(threadIdx.x * ITEMS + j)] = opf(pre, v[j]);
  __syncthreads();
  if (cnt == TILE && (((unsigned long long)yt) & 15ull) == 0ull) {
    #pragma unroll
    for (int k = 0; k < NVO; k++) {
      Pack<OS, VO> r;
      #pragma unroll
      for (int c = 0; c < VO; c++) { const A a = sh[PAD((threadIdx.x + k * THREADS) * VO + c)]; r.v[c] = STOREY(a); }
      reinterpret_cast<Pack<OS, VO>*>(yt)[threadIdx.x + k * THREADS] = r;
    }
  } else {
    #pragma unroll
    for (int k = 0; k < ITEMS; k++) { const int e = threadIdx.x + k * THREADS; if (e < cnt) { const A a = sh[PAD(e)]; yt[e] = STOREY(a); } }
  }
}
