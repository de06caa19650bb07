// permutation: the compaction of a keyed bijection's values below n (bijection.rs, whose
// Bijection::apply this mirrors). Candidates are taken in tiles of TILE = THREADS * PER, in
// the order i = tile * TILE + q * THREADS + thread (q = 0 .. PER - 1). perm_count writes each
// tile's number of values below n; after an inclusive scan of those counts, perm_write
// computes the tile's values again and writes them at their ranks (a ballot per warp and q,
// one scan of the block's PER * THREADS / 32 warp counts): consecutive outputs of a q come
// from consecutive threads, so the stores are coalesced.
// Prelude: ROUNDS (this kernel's rounds), KEY_WORDS. -D: THREADS, PER.
#include "cuprum/prelude.cuh"

#define NW (THREADS / 32)
#define TILE (THREADS * PER)

__device__ __forceinline__ u32 mix(u32 v, u32 k) {
  u32 x = v ^ k;
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

struct Bij {
  u64 n, m;
  int lo, hi;
  u64 kw[KEY_WORDS];
  __device__ __forceinline__ u64 apply(u64 x) const {
    u32 lo_mask = (u32)((1ull << lo) - 1), hi_mask = (u32)((1ull << hi) - 1);
    u32 l = (u32)x & lo_mask, h = (u32)(x >> lo);
#pragma unroll
    for (int r = 0; r < ROUNDS; r++) {
      u32 k = (u32)(kw[r / 2] >> (32 * (r % 2)));
      if (r % 2 == 0) {
        l ^= mix(h, k) & lo_mask;
      } else {
        h ^= mix(l, k) & hi_mask;
      }
    }
    return ((u64)h << lo) | (u64)l;
  }
};

extern "C" __global__ void __launch_bounds__(THREADS) perm_count(long long* __restrict__ counts, Bij b) {
  __shared__ u32 wsum[NW];
  const u64 base = (u64)blockIdx.x * TILE;
  u32 c = 0;
#pragma unroll 4
  for (int q = 0; q < PER; q++) {
    u64 i = base + (u64)q * THREADS + threadIdx.x;
    c += (i < b.m && b.apply(i) < b.n);
  }
#pragma unroll
  for (int s = 16; s > 0; s >>= 1) c += __shfl_down_sync(0xffffffffu, c, s);
  if ((threadIdx.x & 31) == 0) wsum[threadIdx.x / 32] = c;
  __syncthreads();
  if (threadIdx.x == 0) {
    u32 t = 0;
    for (int w = 0; w < NW; w++) t += wsum[w];
    counts[blockIdx.x] = t;
  }
}

extern "C" __global__ void __launch_bounds__(THREADS)
perm_write(long long* __restrict__ out, const long long* __restrict__ incl, Bij b) {
  __shared__ u32 masks[PER * NW];
  __shared__ u32 offs[PER * NW];
  static_assert((PER * NW) % 32 == 0, "the warp counts split evenly over a warp");
  const u64 base = (u64)blockIdx.x * TILE;
  const int lane = threadIdx.x & 31, w = threadIdx.x / 32;
  u64 v[PER];
#pragma unroll
  for (int q = 0; q < PER; q++) {
    u64 i = base + (u64)q * THREADS + threadIdx.x;
    v[q] = i < b.m ? b.apply(i) : b.n;
    u32 mask = __ballot_sync(0xffffffffu, v[q] < b.n);
    if (lane == 0) masks[q * NW + w] = mask;
  }
  __syncthreads();
  if (w == 0) {
    // Exclusive offsets of the (q, warp) counts, in candidate order (q, then warp).
    const int per_lane = PER * NW / 32;
    u32 loc[PER * NW / 32], s = 0;
#pragma unroll
    for (int e = 0; e < per_lane; e++) {
      loc[e] = s;
      s += __popc(masks[lane * per_lane + e]);
    }
    u32 incl_s = s;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      u32 t = __shfl_up_sync(0xffffffffu, incl_s, d);
      if (lane >= d) incl_s += t;
    }
    u32 excl = incl_s - s;
#pragma unroll
    for (int e = 0; e < per_lane; e++) offs[lane * per_lane + e] = excl + loc[e];
  }
  __syncthreads();
  const u64 start = blockIdx.x == 0 ? 0 : (u64)incl[blockIdx.x - 1];
  const u32 below = (1u << lane) - 1;
#pragma unroll
  for (int q = 0; q < PER; q++) {
    if (v[q] < b.n) {
      u32 mask = masks[q * NW + w];
      out[start + offs[q * NW + w] + __popc(mask & below)] = (long long)v[q];
    }
  }
}
