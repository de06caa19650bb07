// 2-d correlation: out[y, x] = sum over j, then k, of B(y + j - oy, x + k - ox) * w[j, k], with
// B the input extended by the boundary rule (fill / wrap / symm). Each block computes a tile of
// TX x (TY * RY) outputs, one column of RY outputs a thread; the input tile with its halo is
// loaded into shared memory once (the boundary applied once per loaded element), then every
// tap is a shared-memory read and a multiply-add in the accumulator type. Kernels whose tile
// does not fit in shared memory read the input through the boundary rule per tap (`corr2d_g`).
//
// Kernels of at most MAX_KW columns use `corr2d_r`: the kernel's width is a compile-time KW,
// each thread computes RX x RY outputs, and for every input row it reads its KW + RX - 1
// values once into registers (a sliding window), so a tap costs a register read, not a
// shared-memory load. Each output still sums over j, then k, in order.
//
// Other ranks (SciPy's N-d correlate) use `corrnd` on an input padded beforehand with the fill
// value (to out_shape + k - 1 along each axis): each thread computes RX outputs of one output
// row, TX apart; for every tap row of the kernel (its leading axes, in C order; the offsets of
// those rows in the padded input come precomputed in `tab`) it adds the row's KW taps in order.
//
// -D: TX, TY (threads per block in x and y), RY (outputs per thread along y); for corr2d_r
// also RX (outputs per thread along x) and KW (the kernel's width); for corrnd TX (threads per
// block) and RX (outputs per thread).
// Prelude (scipy/signal/cuda.rs): VARIANT_REGS, VARIANT_SHARED, VARIANT_GLOBAL or VARIANT_ND; FLIP (read the
// kernel reversed along both axes: a convolution); T (storage), A
// (accumulator), LOAD(v) (T to A), STORE(a) (A to T), MULADD(acc, x, w), BOUNDARY (0 fill,
// 1 wrap, 2 symm).
#include "cuprum/prelude.cuh"
#include "cuprum/float16.cuh"

// Index i of an axis of length n under the boundary rule; -1: the fill value.
__device__ __forceinline__ long long resolve(long long i, long long n) {
  if (i >= 0 && i < n) return i;
  if (n == 0) return -1;  // an empty axis has nothing to wrap or mirror: the fill value
#if BOUNDARY == 0
  return -1;
#elif BOUNDARY == 1
  long long m = i % n;
  return m < 0 ? m + n : m;
#else
  long long m = i % (2 * n);
  if (m < 0) m += 2 * n;
  return m < n ? m : 2 * n - 1 - m;
#endif
}

// Tap (j, k) of the kh x kw kernel, reversed along both axes for a convolution.
#if FLIP
#define WIDX(j, k, kh, kw) (((kh) - 1 - (j)) * (kw) + ((kw) - 1 - (k)))
#else
#define WIDX(j, k, kh, kw) ((j) * (kw) + (k))
#endif

__device__ __forceinline__ A at(const T* __restrict__ x, long long h, long long w, long long r, long long c, A fill) {
  const long long sy = resolve(r, h), sx = resolve(c, w);
  return (sy < 0 || sx < 0) ? fill : LOAD(x[sy * w + sx]);
}

#if defined(VARIANT_SHARED)
extern "C" __global__ void __launch_bounds__(TX * TY) corr2d(const T* __restrict__ x, long long h, long long w,
    const T* __restrict__ wt, int kh, int kw, T* __restrict__ out, long long oh, long long ow, long long oy,
    long long ox, A fill) {
  extern __shared__ unsigned long long smem_[];
  A* tile = (A*)smem_;
  const int th = TY * RY + kh - 1, tw = TX + kw - 1;
  const long long y0 = (long long)blockIdx.y * (TY * RY), x0 = (long long)blockIdx.x * TX;
  for (int i = threadIdx.y * TX + threadIdx.x; i < th * tw; i += TX * TY) {
    const int r = i / tw, c = i - r * tw;
    tile[i] = at(x, h, w, y0 + r - oy, x0 + c - ox, fill);
  }
  __syncthreads();
  A acc[RY];
#pragma unroll
  for (int r = 0; r < RY; r++) acc[r] = (A)0;
  const A* base = tile + (threadIdx.y * RY) * tw + threadIdx.x;
  for (int j = 0; j < kh; j++) {
    for (int k = 0; k < kw; k++) {
      const A wv = LOAD(wt[WIDX(j, k, kh, kw)]);
      const A* p = base + j * tw + k;
#pragma unroll
      for (int r = 0; r < RY; r++) acc[r] = MULADD(acc[r], p[r * tw], wv);
    }
  }
  const long long xo = x0 + threadIdx.x;
  if (xo < ow) {
#pragma unroll
    for (int r = 0; r < RY; r++) {
      const long long yo = y0 + threadIdx.y * RY + r;
      if (yo < oh) out[yo * ow + xo] = STORE(acc[r]);
    }
  }
}
#endif

#if defined(VARIANT_REGS)
#define PADC(c) ((c) + (c) / RX)
extern "C" __global__ void __launch_bounds__(TX * TY) corr2d_r(const T* __restrict__ x, long long h, long long w,
    const T* __restrict__ wt, int kh, int kw_unused, T* __restrict__ out, long long oh, long long ow, long long oy,
    long long ox, A fill) {
  extern __shared__ unsigned long long smem_[];
  A* tile = (A*)smem_;
  // Rows of the tile are padded by one slot every RX columns (PADC), so that the threads of a
  // warp, RX columns apart, read their windows from distinct banks.
  const int th = TY * RY + kh - 1, tw = TX * RX + KW - 1, twp = PADC(tw) + 1;
  const long long y0 = (long long)blockIdx.y * (TY * RY), x0 = (long long)blockIdx.x * (TX * RX);
  for (int i = threadIdx.y * TX + threadIdx.x; i < th * tw; i += TX * TY) {
    const int r = i / tw, c = i - r * tw;
    tile[r * twp + PADC(c)] = at(x, h, w, y0 + r - oy, x0 + c - ox, fill);
  }
  __syncthreads();
  A acc[RY][RX];
#pragma unroll
  for (int r = 0; r < RY; r++)
#pragma unroll
    for (int c = 0; c < RX; c++) acc[r][c] = (A)0;
  // Input rows q = r + j of this thread's outputs, in order: output row r takes tap row
  // j = q - r, so each output sees j ascending, and k ascending within a row.
  // Column threadIdx.x * RX + i of the tile sits at PADC of it: threadIdx.x * (RX + 1) + PADC(i).
  const A* base = tile + (threadIdx.y * RY) * twp + threadIdx.x * (RX + 1);
  for (int q = 0; q < RY + kh - 1; q++) {
    A win[KW + RX - 1];
#pragma unroll
    for (int i = 0; i < KW + RX - 1; i++) win[i] = base[q * twp + PADC(i)];
#pragma unroll
    for (int r = 0; r < RY; r++) {
      const int j = q - r;
      if (j >= 0 && j < kh) {
#pragma unroll
        for (int k = 0; k < KW; k++) {
          const A wv = LOAD(wt[WIDX(j, k, kh, KW)]);
#pragma unroll
          for (int c = 0; c < RX; c++) acc[r][c] = MULADD(acc[r][c], win[c + k], wv);
        }
      }
    }
  }
#pragma unroll
  for (int r = 0; r < RY; r++) {
    const long long yo = y0 + threadIdx.y * RY + r;
#pragma unroll
    for (int c = 0; c < RX; c++) {
      const long long xo = x0 + threadIdx.x * RX + c;
      if (yo < oh && xo < ow) out[yo * ow + xo] = STORE(acc[r][c]);
    }
  }
}
#endif

#if defined(VARIANT_GLOBAL)
extern "C" __global__ void __launch_bounds__(TX * TY) corr2d_g(const T* __restrict__ x, long long h, long long w,
    const T* __restrict__ wt, int kh, int kw, T* __restrict__ out, long long oh, long long ow, long long oy,
    long long ox, A fill) {
  const long long xo = (long long)blockIdx.x * TX + threadIdx.x;
  const long long yo = (long long)blockIdx.y * TY + threadIdx.y;
  if (xo >= ow || yo >= oh) return;
  A acc = (A)0;
  for (int j = 0; j < kh; j++)
    for (int k = 0; k < kw; k++) acc = MULADD(acc, at(x, h, w, yo + j - oy, xo + k - ox, fill), LOAD(wt[WIDX(j, k, kh, kw)]));
  out[yo * ow + xo] = STORE(acc);
}
#endif

#if defined(VARIANT_ND)
// xp: the padded input (C order); wt: the kernel, kl tap rows of kw taps; out: rows of ow
// outputs; tab: kl offsets of the tap rows in xp, then the nl leading lengths of the output,
// then xp's strides along them (elements). Block b computes outputs [cb0, cb0 + TX * RX) of
// output row b / cb.
extern "C" __global__ void __launch_bounds__(TX) corrnd(const T* __restrict__ xp, const T* __restrict__ wt,
    T* __restrict__ out, const long long* __restrict__ tab, int nl, long long kl, int kw, long long ow,
    long long cb) {
  const long long row = (long long)blockIdx.x / cb;
  const long long col0 = ((long long)blockIdx.x - row * cb) * (TX * RX) + threadIdx.x;
  // The output row's first element in xp: its index over the leading axes times xp's strides.
  const long long* olen = tab + kl;
  const long long* pst = olen + nl;
  long long base = 0, rem = row;
  for (int ax = nl - 1; ax >= 0; ax--) {
    const long long q = rem / olen[ax];
    base += (rem - q * olen[ax]) * pst[ax];
    rem = q;
  }
  A acc[RX];
#pragma unroll
  for (int i = 0; i < RX; i++) acc[i] = (A)0;
  const long long kk = kl * (long long)kw;
  for (long long j = 0; j < kl; j++) {
    const T* src = xp + base + tab[j] + col0;
    for (int k = 0; k < kw; k++) {
      const long long t = j * kw + k;
#if FLIP
      const A wv = LOAD(wt[kk - 1 - t]);
#else
      const A wv = LOAD(wt[t]);
#endif
#pragma unroll
      for (int i = 0; i < RX; i++) {
        if (col0 + i * TX < ow) acc[i] = MULADD(acc[i], LOAD(src[k + i * TX]), wv);
      }
    }
  }
  T* o = out + row * ow + col0;
#pragma unroll
  for (int i = 0; i < RX; i++) {
    if (col0 + i * TX < ow) o[i * TX] = STORE(acc[i]);
  }
}
#endif
