// Single-pass selection (stream compaction) in the style of CUB's DeviceSelect::Flagged.
//
// One block per tile of TILE flags; tiles are taken in order from a dynamic counter. Each
// thread loads its ITEMS consecutive flags (16-byte loads), makes a bit mask of the non-zero
// ones, and the block ranks them (a warp scan of the per-thread counts and a scan of the warp
// totals). Warp 0 then publishes the tile's count and looks back over its predecessors'
// published counts and prefixes (decoupled look-back; status and value share one 64-bit word,
// so one load sees both) for the tile's output offset, and publishes its inclusive prefix.
// The selected rows are then moved:
//
//   select_pack    rows of one element: each thread loads its own elements (16-byte loads,
//                  only the vectors holding a selected element) before the look-back, writes
//                  the selected ones to their tile ranks in shared memory, and the block
//                  writes the tile's run of output contiguously;
//   select_rows    rows of `row` words, x to the packed output;
//   select_expand  the reverse: packed rows back to the selected rows of x;
//   select_coords  the coordinates of the selected flat indices (unravelled over up to
//                  MAX_COORD_DIMS dimensions, output strides sj and sd for nonzero's and
//                  argwhere's layouts).
//
// The last tile writes the total count to `total`.
//
// -D: THREADS (threads per block), ITEMS (consecutive flags per thread), MAX_COORD_DIMS.
// Prelude (select/cuda.rs): VARIANT_PACK / VARIANT_ROWS / VARIANT_EXPAND / VARIANT_COORDS,
// FW (a flag's raw word), FV (flags per 16-byte vector), NZ(v) (whether the raw flag word v
// is non-zero; for floats -0.0 is zero and NaN is not), W (a moved element's raw word; not
// for coords), WV (select_pack: words per 16-byte vector).
#include "cuprum/prelude.cuh"
#include "cuprum/lookback.cuh"

#define TILE (THREADS * ITEMS)
#define NW (THREADS / 32)
// Status of a tile's 64-bit word (top two bits; 0: not yet published), then its value.
#define AGG (1ull << 62)
#define INCL (2ull << 62)
#define VALUE (AGG - 1ull)

// The kernel's name and the parameters after the common ones.
#if defined(VARIANT_PACK)
#define ENTRY select_pack
#define MODE_PARAMS const W* __restrict__ x, int x_aligned, W* __restrict__ out
#elif defined(VARIANT_ROWS)
#define ENTRY select_rows
#define MODE_PARAMS long long row, const W* __restrict__ x, W* __restrict__ out
// Element e of the k-th selected row of the tile, to the packed output.
#define DST out[(off + k) * row + e]
#define SRC x[(f0 + s_sel[k]) * row + e]
#elif defined(VARIANT_EXPAND)
#define ENTRY select_expand
#define MODE_PARAMS long long row, W* __restrict__ x, const W* __restrict__ packed
#define DST x[(f0 + s_sel[k]) * row + e]
#define SRC packed[(off + k) * row + e]
#elif defined(VARIANT_COORDS)
#define ENTRY select_coords
#define MODE_PARAMS long long* __restrict__ out, long long sj, long long sd, Dims D
struct Dims { long long nd; long long d[MAX_COORD_DIMS]; };
#endif

extern "C" __global__ void __launch_bounds__(THREADS) ENTRY(const FW* __restrict__ flags, long long nflags,
    int flags_aligned, unsigned long long* state, unsigned int* ctr, unsigned long long* total, MODE_PARAMS) {
  __shared__ unsigned int s_tile;
  __shared__ int s_warp[NW];
  __shared__ int s_cnt;
  __shared__ unsigned long long s_off;
  // The payload: values staged at their ranks, or the list of selected local indices.
#if defined(VARIANT_PACK)
  __shared__ W s_stage[TILE];
#else
  __shared__ unsigned short s_sel[TILE];
#endif
  if (threadIdx.x == 0) s_tile = atomicAdd(ctr, 1u);
  __syncthreads();
  const unsigned int tile = s_tile;
  const long long f0 = (long long)tile * TILE;
  const long long my0 = f0 + (long long)threadIdx.x * ITEMS;
  // This thread's ITEMS consecutive flags as a bit mask (bit k: flag my0 + k is set).
  unsigned int bits = 0u;
  if (flags_aligned && my0 + ITEMS <= nflags) {
    const Pack<FW, FV>* fp = reinterpret_cast<const Pack<FW, FV>*>(flags + my0);
    #pragma unroll
    for (int q = 0; q < ITEMS / FV; q++) {
      Pack<FW, FV> w = fp[q];
      #pragma unroll
      for (int c = 0; c < FV; c++) bits |= (unsigned int)NZ(w.v[c]) << (q * FV + c);
    }
  } else {
    #pragma unroll
    for (int k = 0; k < ITEMS; k++) { long long i = my0 + k; if (i < nflags && NZ(flags[i])) bits |= 1u << k; }
  }
#if defined(VARIANT_PACK)
  // Issue the loads of this thread's selected elements now, so that their latency overlaps
  // the ranking and the look-back.
  W val[ITEMS];
  const W* xs = x + my0;
  if (x_aligned && my0 + ITEMS <= nflags) {
    #pragma unroll
    for (int q = 0; q < ITEMS / WV; q++) {
      if ((bits >> (q * WV)) & ((1u << WV) - 1u)) {
        Pack<W, WV> p = reinterpret_cast<const Pack<W, WV>*>(xs)[q];
        #pragma unroll
        for (int c = 0; c < WV; c++) val[q * WV + c] = p.v[c];
      }
    }
  } else {
    #pragma unroll
    for (int k = 0; k < ITEMS; k++) if ((bits >> k) & 1u) val[k] = xs[k];
  }
#endif
  // Ranks within the tile: warp-inclusive scan of the per-thread counts, then warp offsets.
  const int c = __popc(bits);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  int inc = c;
  #pragma unroll
  for (int d = 1; d < 32; d <<= 1) { int o = __shfl_up_sync(0xffffffffu, inc, d); if (lane >= d) inc += o; }
  if (lane == 31) s_warp[w] = inc;
  __syncthreads();
  if (threadIdx.x == 0) {
    int run = 0;
    for (int k = 0; k < NW; k++) { int tk = s_warp[k]; s_warp[k] = run; run += tk; }
    s_cnt = run;
  }
  __syncthreads();
  const int tex = s_warp[w] + inc - c;
  const int tcnt = s_cnt;
  // Local placement (visible to the block after the look-back's barrier).
#if defined(VARIANT_PACK)
  // Unrolled with constant indices, so that `val` stays in registers.
  { int r = tex;
    #pragma unroll
    for (int k = 0; k < ITEMS; k++) if ((bits >> k) & 1u) s_stage[r++] = val[k]; }
#else
  { int r = tex;
    #pragma unroll
    for (int k = 0; k < ITEMS; k++) if ((bits >> k) & 1u) s_sel[r++] = (unsigned short)(threadIdx.x * ITEMS + k); }
#endif
  // Decoupled look-back: one 64-bit word per tile, status in the top two bits (0: not yet
  // published, AGG: the tile's count, INCL: the inclusive prefix through the tile). The word
  // carries its value: the wait needs no fence (lb_spin).
  if (w == 0) {
    volatile unsigned long long* vs = state;
    unsigned long long prefix = 0ull;
    if (tile == 0u) {
      if (lane == 0) vs[0] = INCL | (unsigned long long)tcnt;
    } else {
      if (lane == 0) vs[tile] = AGG | (unsigned long long)tcnt;
      long long base = (long long)tile - 1;
      while (true) {
        const long long p = base - lane;
        unsigned long long st = INCL;
        if (p >= 0) st = lb_spin(vs + p);
        const unsigned int done = __ballot_sync(0xffffffffu, (st >> 62) == 2ull);
        const int first = done ? __ffs(done) - 1 : 31;
        unsigned long long v = (lane <= first) ? (st & VALUE) : 0ull;
        #pragma unroll
        for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
        prefix += __shfl_sync(0xffffffffu, v, 0);
        if (done) break;
        base -= 32;
      }
      if (lane == 0) vs[tile] = INCL | (prefix + (unsigned long long)tcnt);
    }
    if (lane == 0) {
      s_off = prefix;
      if (tile == gridDim.x - 1u) *total = prefix + (unsigned long long)tcnt;
    }
  }
  __syncthreads();
  const long long off = (long long)s_off;
#if defined(VARIANT_PACK)
  for (int k = threadIdx.x; k < tcnt; k += THREADS) out[off + k] = s_stage[k];
#elif defined(VARIANT_ROWS) || defined(VARIANT_EXPAND)
  if (row >= THREADS) {
    for (int k = 0; k < tcnt; k++)
      for (long long e = threadIdx.x; e < row; e += THREADS) DST = SRC;
  } else {
    // tcnt * row < TILE * THREADS: 32-bit index arithmetic.
    const unsigned int r32 = (unsigned int)row, n32 = (unsigned int)tcnt * r32;
    for (unsigned int q = threadIdx.x; q < n32; q += THREADS) {
      const int k = (int)(q / r32); const long long e = (long long)(q - (unsigned int)k * r32);
      DST = SRC;
    }
  }
#elif defined(VARIANT_COORDS)
  for (int k = threadIdx.x; k < tcnt; k += THREADS) {
    long long i = f0 + s_sel[k];
    long long* o = out + (off + k) * sj;
    if (D.nd == 1) { o[0] = i; continue; }
    for (int d = (int)D.nd - 1; d >= 0; d--) { const long long n = D.d[d]; const long long q = i / n; o[d * sd] = i - q * n; i = q; }
  }
#endif
}
