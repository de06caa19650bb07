// scipy.ndimage rank filters on order-preserving keys K (floats: sign flipped, NaN the largest
// key, mapped back to the canonical quiet NaN; signed integers: the sign bit flipped).
//
// Kernels (one per VARIANT_*):
// - minmax1d: a separable min/max pass along an axis of a C-contiguous [outer, n, inner]
//   array, one output a thread, the boundary resolved per tap (nd_resolve).
// - box2d: a rank of a full KH x KW box over a 2-d image: a tile of (TY * RY + KH - 1) x
//   (TX + KW - 1) keys with its halo in shared memory (the boundary resolved once per loaded
//   element), each thread RY vertically adjacent outputs, each window gathered into registers
//   and reduced by the pruned selection network NET (generated on the host: cpu.rs, network).
// - nd: any footprint over up to ND_MAX axes, one output a thread, the window gathered from
//   global memory through nd_resolve per axis: a running min/max; a rank through NET (FS
//   elements in registers), a quickselect in a local buffer (up to LOCAL_MAX elements) or, for
//   larger windows, by counting; with STRUCT, grey morphology with a structure (SciPy's
//   arithmetic: the first window element (T)((double)x + s), the others x + (T)s).
//
// -D: THREADS; box2d: TX, TY, RY, KH, KW, RANK; nd: ND_MAX, LOCAL_MAX.
// Prelude (rank/cuda.rs): X (storage), K (key), one of KEY_F16/KEY_F32/KEY_F64/KEY_SIGNED/
// KEY_UNSIGNED, KBITS, MODE (SciPy's mode code), OP (0 min, 1 max, 2 rank), NET (with FS and
// RANK) when a network is used, STRUCT (with SV, the type of the structure arithmetic, IS_BOOL,
// IS_U64).
#include "cuprum/prelude.cuh"
#include "cuprum/float16.cuh"
#include "cuprum/ndimage_mode.cuh"

#define SB ((K)1 << (KBITS - 1))
#define KMAX ((K) ~(K)0)

#if defined(KEY_F16) || defined(KEY_F32) || defined(KEY_F64)
#if defined(KEY_F16)
#define BITS_OF(x) ((K)(x))
#define FROM_BITS(k) ((X)(k))
#define EXP_MASK ((K)0x7c00)
#define QNAN ((K)0x7e00)
#elif defined(KEY_F32)
#define BITS_OF(x) ((K)__float_as_uint(x))
#define FROM_BITS(k) __uint_as_float((unsigned)(k))
#define EXP_MASK ((K)0x7f800000u)
#define QNAN ((K)0x7fc00000u)
#else
#define BITS_OF(x) ((K)__double_as_longlong(x))
#define FROM_BITS(k) __longlong_as_double((long long)(k))
#define EXP_MASK ((K)0x7ff0000000000000ull)
#define QNAN ((K)0x7ff8000000000000ull)
#endif
__device__ __forceinline__ K tokey(X x) {
  const K b = BITS_OF(x);
  if ((K)(b & ~SB) > EXP_MASK) return KMAX;
  return (b & SB) ? (K)~b : (K)(b | SB);
}
__device__ __forceinline__ X fromkey(K k) {
  if (k == KMAX) return FROM_BITS(QNAN);
  return FROM_BITS((k & SB) ? (K)(k ^ SB) : (K)~k);
}
#elif defined(KEY_SIGNED)
__device__ __forceinline__ K tokey(X x) { return (K)((K)x ^ SB); }
__device__ __forceinline__ X fromkey(K k) { return (X)(K)(k ^ SB); }
#else
__device__ __forceinline__ K tokey(X x) { return (K)x; }
__device__ __forceinline__ X fromkey(K k) { return (X)k; }
#endif

__device__ __forceinline__ K kmin(K a, K b) { return a < b ? a : b; }
__device__ __forceinline__ K kmax(K a, K b) { return a < b ? b : a; }
#define CS(a, b) { const K t_ = kmin(v[a], v[b]); v[b] = kmax(v[a], v[b]); v[a] = t_; }
#define CMIN(a, b) { v[a] = kmin(v[a], v[b]); }
#define CMAX(a, b) { v[b] = kmax(v[a], v[b]); }

#if defined(VARIANT_MINMAX1D)
extern "C" __global__ void __launch_bounds__(THREADS) minmax1d(const X* __restrict__ x, X* __restrict__ out,
    long long outer, long long n, long long inner, int size, long long start, K cval) {
  const long long total = outer * n * inner;
  for (long long idx = (long long)blockIdx.x * THREADS + threadIdx.x; idx < total;
       idx += (long long)gridDim.x * THREADS) {
    const long long c = idx % inner, r = idx / inner;
    const long long i = r % n, o = r / n;
    const X* line = x + o * n * inner + c;
    K acc = 0;
    for (int j = 0; j < size; j++) {
      const long long s = nd_resolve(MODE, i + start + j, n);
      const K kv = s < 0 ? cval : tokey(line[s * inner]);
#if OP == 0
      acc = j == 0 ? kv : kmin(acc, kv);
#else
      acc = j == 0 ? kv : kmax(acc, kv);
#endif
    }
    out[idx] = fromkey(acc);
  }
}
#endif

#if defined(VARIANT_BOX2D)
extern "C" __global__ void __launch_bounds__(TX * TY) box2d(const X* __restrict__ x, X* __restrict__ out,
    long long h, long long w, long long sy, long long sx, K cval) {
  __shared__ K tile[(TY * RY + KH - 1) * (TX + KW - 1)];
  const int th = TY * RY + KH - 1, tw = TX + KW - 1;
  const long long y0 = (long long)blockIdx.y * (TY * RY), x0 = (long long)blockIdx.x * TX;
  for (int i = threadIdx.y * TX + threadIdx.x; i < th * tw; i += TX * TY) {
    const int r = i / tw, c = i - r * tw;
    const long long yy = nd_resolve(MODE, y0 + r + sy, h), xx = nd_resolve(MODE, x0 + c + sx, w);
    tile[i] = (yy < 0 || xx < 0) ? cval : tokey(x[yy * w + xx]);
  }
  __syncthreads();
  const long long xo = x0 + threadIdx.x;
  if (xo >= w) return;
#pragma unroll
  for (int r = 0; r < RY; r++) {
    const long long yo = y0 + threadIdx.y * RY + r;
    if (yo >= h) break;
    const K* base = tile + (threadIdx.y * RY + r) * tw + threadIdx.x;
    K v[KH * KW];
#pragma unroll
    for (int j = 0; j < KH; j++)
#pragma unroll
      for (int k = 0; k < KW; k++) v[j * KW + k] = base[j * tw + k];
    NET
    out[yo * w + xo] = fromkey(v[RANK]);
  }
}
#endif

#if defined(VARIANT_ND)
struct Dims { long long nd; long long d[ND_MAX]; };

// The window element t of the output at multi-index pos: its source's flat index, or -1.
__device__ __forceinline__ long long tap_src(const Dims& shape, const long long* pos, const int* __restrict__ taps,
    int t) {
  long long src = 0;
  for (int d = 0; d < shape.nd; d++) {
    const long long s = nd_resolve(MODE, pos[d] + taps[t * shape.nd + d], shape.d[d]);
    if (s < 0) return -1;
    src = src * shape.d[d] + s;
  }
  return src;
}

__device__ __forceinline__ K key_at(const X* __restrict__ x, const Dims& shape, const long long* pos,
    const int* __restrict__ taps, int t, K cval) {
  const long long s = tap_src(shape, pos, taps, t);
  return s < 0 ? cval : tokey(x[s]);
}

#if defined(STRUCT)
// A double's order as a key (NaN last).
__device__ __forceinline__ unsigned long long dkey(double d) {
  if (d != d) return ~0ull;
  const unsigned long long b = (unsigned long long)__double_as_longlong(d);
  return (b >> 63) ? ~b : (b | (1ull << 63));
}
// SciPy's arithmetic of a window element and its structure value (see cpu.rs).
__device__ __forceinline__ SV cast_d(double d) {
#if IS_U64
  return d >= 9.223372036854775807e18 ? (SV)(unsigned long long)d : (SV)(long long)d;
#elif defined(KEY_F16) || defined(KEY_F32) || defined(KEY_F64)
  return (SV)d;
#else
  return (SV)(long long)d;
#endif
}
#endif

extern "C" __global__ void __launch_bounds__(THREADS) nd(const X* __restrict__ x, X* __restrict__ out, Dims shape,
    long long total, const int* __restrict__ taps, int fs, int rank, K cval, const double* __restrict__ ss) {
  for (long long idx = (long long)blockIdx.x * THREADS + threadIdx.x; idx < total;
       idx += (long long)gridDim.x * THREADS) {
    long long pos[ND_MAX];
    long long rem = idx;
    for (int d = (int)shape.nd - 1; d >= 0; d--) {
      pos[d] = rem % shape.d[d];
      rem /= shape.d[d];
    }
#if defined(STRUCT)
    // SciPy's running double: the first element x + s exactly, the others x + (T)s in the type.
    double res = 0;
    for (int t = 0; t < fs; t++) {
      const long long s = tap_src(shape, pos, taps, t);
      SV v;
#if IS_BOOL
      if (s < 0) v = (SV)cval;  // the byte SciPy's (npy_bool)cval gives
#else
      if (s < 0) v = (SV)fromkey(cval);
#endif
      else v = (SV)x[s];
      double tv;
      if (t == 0) {
        tv = (double)v + ss[0];
      } else {
#if defined(KEY_F16) || defined(KEY_F32) || defined(KEY_F64)
        tv = (double)(SV)(v + (SV)ss[t]);
#elif IS_BOOL
        tv = (double)(unsigned char)(v + (unsigned char)(long long)ss[t]);
#else
        tv = (double)(SV)((unsigned long long)v + (unsigned long long)cast_d(ss[t]));
#endif
      }
      if (t == 0 || (OP == 1 ? dkey(tv) > dkey(res) : dkey(tv) < dkey(res))) res = tv;
    }
#if defined(KEY_F16) || defined(KEY_F32) || defined(KEY_F64)
    out[idx] = (X)res;
#elif IS_BOOL
    out[idx] = (X)((unsigned char)(res <= -1.0 ? (SV)(0 - (unsigned long long)cast_d(-res)) : cast_d(res)) != 0);
#elif IS_UNSIGNED
    out[idx] = res <= -1.0 ? (X)(0 - (unsigned long long)cast_d(-res)) : (X)cast_d(res);
#else
    out[idx] = (X)cast_d(res);
#endif
#else
#define KEY_AT(t) key_at(x, shape, pos, taps, (t), cval)
#if OP == 0 || OP == 1
    K acc = KEY_AT(0);
    for (int t = 1; t < fs; t++) {
      const K kv = KEY_AT(t);
      acc = OP == 0 ? kmin(acc, kv) : kmax(acc, kv);
    }
    out[idx] = fromkey(acc);
#elif defined(NET)
    K v[FS];
#pragma unroll
    for (int t = 0; t < FS; t++) v[t] = KEY_AT(t);
    NET
    out[idx] = fromkey(v[RANK]);
#else
    K res = 0;
    if (fs <= LOCAL_MAX) {
      // Quickselect (Hoare's partition) in a local buffer.
      K buf[LOCAL_MAX];
      for (int t = 0; t < fs; t++) buf[t] = KEY_AT(t);
      int lo = 0, hi = fs - 1;
      while (lo < hi) {
        const K piv = buf[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
          while (buf[i] < piv) i++;
          while (buf[j] > piv) j--;
          if (i <= j) {
            const K t = buf[i];
            buf[i] = buf[j];
            buf[j] = t;
            i++;
            j--;
          }
        }
        if (rank <= j) hi = j;
        else if (rank >= i) lo = i;
        else break;
      }
      res = buf[rank];
    } else {
      // Counting: the element with fewer than rank + 1 smaller elements and at least rank + 1
      // smaller-or-equal ones.
      for (int t = 0; t < fs; t++) {
        const K e = KEY_AT(t);
        int lt = 0, le = 0;
        for (int u = 0; u < fs; u++) {
          const K f = KEY_AT(u);
          lt += f < e;
          le += f <= e;
        }
        if (lt <= rank && rank < le) {
          res = e;
          break;
        }
      }
    }
    out[idx] = fromkey(res);
#endif
#endif
  }
}
#endif
