// Binary morphology on bit-packed rows. The image's last axis is packed 32 pixels to a word
// (bit j of word w: pixel 32 w + j; the bits past a row's end hold the border value), rows
// in C order of the leading axes. A step is SciPy's NI_BinaryErosion in the erosion form:
// out[p] = AND over the taps d of in[p + d] (the border value outside), then pixels outside
// the mask take the initial image x0: out = (acc & m) | (x0 & ~m). A dilation runs the same
// step on the complement (the launcher complements on the way in and out).
//
// Kernels (one thread a pixel for pack/unpack, a warp a word; one thread a word for a step;
// grid-stride loops, 64-bit indices):
//   morph_pack    bytes (nonzero: 1, complemented when comp; NULL: all 0) -> words
//   morph_unpack  words -> bool bytes (complemented when comp)
//   morph_step    one step; with `flags`, flags[0] = 1 if a word changed, flags[1] = 1 if a
//                 word differs from `older` (the state two steps before the output)
//
// -D: THREADS (threads a block), MAXD (most leading axes), TAPS_INLINE (ints of taps passed
// by value; more come through `taps_g`).
#include "cuprum/prelude.cuh"

struct Lead {
  long long n[MAXD];
};
struct Taps {
  int v[TAPS_INLINE];
};

extern "C" __global__ void __launch_bounds__(THREADS) morph_pack(const u8* __restrict__ x, long long rows,
    long long width, long long nw, u32* __restrict__ out, int comp, u32 bw) {
  const long long total = rows * nw * 32;
  const long long stride = (long long)gridDim.x * THREADS;
  // THREADS and the stride are multiples of 32, and so is total: the lanes of a warp stay on
  // one word and leave the loop together.
  for (long long t = (long long)blockIdx.x * THREADS + threadIdx.x; t < total; t += stride) {
    const long long word = t >> 5;
    const int lane = (int)(t & 31);
    const long long row = word / nw, w = word - row * nw;
    const long long col = w * 32 + lane;
    int bit;
    if (col < width) {
      bit = (x ? (x[row * width + col] != 0) : 0) ^ comp;
    } else {
      bit = (int)(bw & 1u);
    }
    const u32 v = __ballot_sync(0xffffffffu, bit);
    if (lane == 0) out[word] = v;
  }
}

extern "C" __global__ void __launch_bounds__(THREADS) morph_unpack(const u32* __restrict__ words, long long rows,
    long long width, long long nw, u8* __restrict__ out, int comp) {
  const long long total = rows * nw * 32;
  const long long stride = (long long)gridDim.x * THREADS;
  for (long long t = (long long)blockIdx.x * THREADS + threadIdx.x; t < total; t += stride) {
    const long long word = t >> 5;
    const int lane = (int)(t & 31);
    const long long row = word / nw, w = word - row * nw;
    const long long col = w * 32 + lane;
    if (col < width) out[row * width + col] = (u8)(((words[word] >> lane) & 1u) ^ (u32)comp);
  }
}

// Word j of source row sr (the border word outside the row).
__device__ __forceinline__ u32 ld(const u32* __restrict__ src, long long sr, long long j, long long nw, u32 bw) {
  return (j >= 0 && j < nw) ? src[sr * nw + j] : bw;
}

extern "C" __global__ void __launch_bounds__(THREADS) morph_step(const u32* __restrict__ src, u32* __restrict__ dst,
    const u32* __restrict__ x0, const u32* __restrict__ mask, const u32* __restrict__ older, int* __restrict__ flags,
    long long rows, long long nw, u32 tail, u32 bw, int nlead, Lead lead, int ntaps, Taps taps_i,
    const int* __restrict__ taps_g, int taps_shared) {
  extern __shared__ int st[];
  __shared__ int bflag[2];
  const int per = nlead + 1;
  const int nints = ntaps * per;
  // The taps: by value (few), else from global memory, copied to shared memory when they fit.
  if (taps_shared) {
    for (int i = threadIdx.x; i < nints; i += THREADS) st[i] = nints <= TAPS_INLINE ? taps_i.v[i] : taps_g[i];
  }
  if (threadIdx.x < 2) bflag[threadIdx.x] = 0;
  __syncthreads();
  const int* tp = taps_shared ? st : taps_g;
  const long long total = rows * nw;
  const long long stride = (long long)gridDim.x * THREADS;
  int changed = 0, differs = 0;
  for (long long idx = (long long)blockIdx.x * THREADS + threadIdx.x; idx < total; idx += stride) {
    const long long row = idx / nw, w = idx - row * nw;
    long long coord[MAXD];
    long long rem = row;
    for (int k = nlead - 1; k >= 0; k--) {
      const long long n = lead.n[k];
      const long long q = rem / n;
      coord[k] = rem - q * n;
      rem = q;
    }
    u32 acc = 0xffffffffu;
    for (int t = 0; t < ntaps && acc != 0u; t++) {
      const int* d = tp + t * per;
      long long sr = 0;
      bool inside = true;
      for (int k = 0; k < nlead; k++) {
        const long long c = coord[k] + d[k];
        if (c < 0 || c >= lead.n[k]) {
          inside = false;
          break;
        }
        sr = sr * lead.n[k] + c;
      }
      if (!inside) {
        if (!bw) acc = 0u;
        continue;
      }
      const int shift = d[nlead];
      const long long q = w + (shift >> 5);  // arithmetic shift: floor(shift / 32)
      const u32 rb = (u32)shift & 31u;
      const u32 lo = ld(src, sr, q, nw, bw);
      const u32 hi = rb ? ld(src, sr, q + 1, nw, bw) : 0u;
      acc &= __funnelshift_r(lo, hi, rb);
    }
    if (mask) {
      const u32 m = mask[idx];
      acc = (acc & m) | (x0[idx] & ~m);
    }
    if (w == nw - 1) acc = (acc & tail) | (bw & ~tail);
    dst[idx] = acc;
    if (flags) {
      changed |= acc != src[idx];
      if (older) differs |= acc != older[idx];
    }
  }
  if (flags) {
    // Atomics: many threads may raise a block's flag (no write-write hazard for racecheck).
    if (changed) atomicOr(&bflag[0], 1);
    if (differs) atomicOr(&bflag[1], 1);
    __syncthreads();
    if (threadIdx.x == 0) {
      if (bflag[0]) flags[0] = 1;
      if (bflag[1]) flags[1] = 1;
    }
  }
}

// morph_tile: K (<= KMAX) steps of a 2-d image in one launch, for taps within one row and
// one pixel of the centre. A block loads a tile of TR rows x TW words with a halo of K rows
// and one word on each side into shared memory (cells outside the image hold the border word
// and are never updated), runs the K steps there (after step s the rows s..RH-s-1 are exact;
// a halo word loses one exact bit a step at its outer end, and K < 32), and writes the
// interior. taps_i: (row offset, shift) pairs. With `flags`, flags[0] = 1 when the launch
// changed a word: for a monotone step (the centre tap set), a launch that changes nothing
// has reached the run's end.
#define RH_MAX (TR + 2 * KMAX)
#define RW (TW + 2)
extern "C" __global__ void __launch_bounds__(THREADS) morph_tile(const u32* __restrict__ src, u32* __restrict__ dst,
    const u32* __restrict__ x0, const u32* __restrict__ mask, long long rows, long long nw, u32 tail, u32 bw,
    int ntaps, Taps taps_i, int K, int* __restrict__ flags) {
  __shared__ u32 buf[2][RH_MAX * RW];
  __shared__ int tp[TAPS_INLINE];
  __shared__ int bflag;
  if (threadIdx.x == 0) bflag = 0;
  const int rh = TR + 2 * K;
  const long long r0 = (long long)blockIdx.y * TR - K, w0 = (long long)blockIdx.x * TW - 1;
  for (int i = threadIdx.x; i < 2 * ntaps; i += THREADS) tp[i] = taps_i.v[i];
  for (int i = threadIdx.x; i < rh * RW; i += THREADS) {
    const int rr = i / RW, cc = i - rr * RW;
    const long long gr = r0 + rr, gw = w0 + cc;
    buf[0][i] = (gr >= 0 && gr < rows && gw >= 0 && gw < nw) ? src[gr * nw + gw] : bw;
  }
  __syncthreads();
  int cur = 0;
  for (int s = 0; s < K; s++) {
    const u32* in = buf[cur];
    u32* out = buf[cur ^ 1];
    for (int i = threadIdx.x; i < rh * RW; i += THREADS) {
      const int rr = i / RW, cc = i - rr * RW;
      const long long gr = r0 + rr, gw = w0 + cc;
      if (gr < 0 || gr >= rows || gw < 0 || gw >= nw) {
        out[i] = bw;
        continue;
      }
      u32 acc = 0xffffffffu;
      for (int t = 0; t < ntaps; t++) {
        const int dr = tp[2 * t], shift = tp[2 * t + 1];
        const int nr = rr + dr;
        const long long sgr = gr + dr;
        if (sgr < 0 || sgr >= rows) {
          if (!bw) acc = 0u;
          continue;
        }
        // Neighbours past the tile's region: any value (only the halo's outer bits use them).
        u32 v;
        if (nr < 0 || nr >= rh) {
          v = bw;
        } else if (shift == 0) {
          v = in[nr * RW + cc];
        } else if (shift > 0) {  // bits from pixel + 1: this word >> 1 | next word's bit 0
          const u32 hi = cc + 1 < RW ? in[nr * RW + cc + 1] : bw;
          v = __funnelshift_r(in[nr * RW + cc], hi, 1);
        } else {  // pixel - 1: the previous word's bit 31, then this word << 1
          const u32 lo = cc > 0 ? in[nr * RW + cc - 1] : bw;
          v = __funnelshift_r(lo, in[nr * RW + cc], 31);
        }
        acc &= v;
      }
      const long long idx = gr * nw + gw;
      if (mask) {
        const u32 m = mask[idx];
        acc = (acc & m) | (x0[idx] & ~m);
      }
      if (gw == nw - 1) acc = (acc & tail) | (bw & ~tail);
      out[i] = acc;
    }
    __syncthreads();
    cur ^= 1;
  }
  int changed = 0;
  for (int i = threadIdx.x; i < TR * TW; i += THREADS) {
    const int rr = K + i / TW, cc = 1 + i % TW;
    const long long gr = r0 + rr, gw = w0 + cc;
    if (gr < rows && gw < nw) {
      const u32 v = buf[cur][rr * RW + cc];
      if (flags) changed |= v != src[gr * nw + gw];
      dst[gr * nw + gw] = v;
    }
  }
  // With flags: flags[0] = 1 if the K steps changed a word (bflag was set to 0 before the
  // first __syncthreads).
  if (flags) {
    if (changed) atomicOr(&bflag, 1);
    __syncthreads();
    if (threadIdx.x == 0 && bflag) flags[0] = 1;
  }
}
