// scipy.ndimage rank filters on order-preserving keys K (floats: sign flipped, NaN the largest
// key, mapped back to the canonical quiet NaN; signed integers: the sign bit flipped).
//
// Kernels (one per VARIANT_*):
// - minmax1d: a separable min/max pass along an axis of a C-contiguous [outer, n, inner]
//   array, one output a thread, the boundary resolved per tap (nd_resolve); float keys flag
//   the lines whose windows meet a NaN (flags[line]).
// - box2d: a rank of a full KH x KW box over a 2-d image: a tile of (TY * RY + KH - 1) x
//   (TX + KW - 1) keys with its halo in shared memory (the boundary resolved once per loaded
//   element), each thread RY vertically adjacent outputs, each window gathered into registers
//   and reduced by the pruned selection network NET (generated on the host: cpu.rs, network).
// - nd: any footprint over up to ND_MAX axes, one output a thread, the window gathered from
//   global memory through nd_resolve per axis: a running min/max; a rank through NET (FS
//   elements in registers), a quickselect in a local buffer (up to LOCAL_MAX elements) or, for
//   larger windows, by counting; with STRUCT, grey morphology with a structure (SciPy's
//   arithmetic: the first window element (T)((double)x + s), the others x + (T)s); given a
//   flag, a float rank window that meets a NaN sets it (*flag).
// Where a window meets a NaN, SciPy's algorithms (see mod.rs) with C's comparisons on doubles:
// - minlist: SciPy's NI_MinOrMaxFilter1D (Harter's deque) over each flagged line of a pass,
//   one thread a line, the deque a ring of positions in global scratch;
// - SciPy's NI_Select (Hoare's quickselect around the window's first element) for each
//   window that holds a NaN: in box2d and nd themselves (box2d checks its windows only when
//   its tile holds a NaN), and for windows above LOCAL_MAX in nansel, after nd flagged one
//   (global scratch);
// - mediator: SciPy's _rank_filter_1d double heap over a whole flagged 1-d line, one thread
//   (its state carries from window to window: it is sequential).
// The min/max of a footprint (nd) follow SciPy's running comparison: NaN when the window's
// first element is NaN, else the min/max of its numbers.
//
// -D: THREADS; box2d: TX, TY, RY, KH, KW, RANK; nd: ND_MAX, LOCAL_MAX.
// Prelude (rank/cuda.rs): radix_keys.cuh's (X storage, K key, one of KEY_F16/KEY_F32/KEY_F64/
// KEY_SIGNED/KEY_UNSIGNED, KBITS, CANON 0), MODE (SciPy's mode code), OP (0 min, 1 max, 2 rank), NET (with FS and
// RANK) when a network is used, STRUCT (with SV, the type of the structure arithmetic, IS_BOOL,
// IS_U64).
#include "cuprum/prelude.cuh"
#include "cuprum/float16.cuh"
#include "cuprum/ndimage_mode.cuh"

// tokey/fromkey: radix_keys.cuh (NaN the largest key, KMAX; -0.0 its own key: no CANON).
#include "cuprum/radix_keys.cuh"
#define KMAX ((K) ~(K)0)

__device__ __forceinline__ K kmin(K a, K b) { return a < b ? a : b; }
__device__ __forceinline__ K kmax(K a, K b) { return a < b ? b : a; }
#define CS(a, b) { const K t_ = kmin(v[a], v[b]); v[b] = kmax(v[a], v[b]); v[a] = t_; }
#define CMIN(a, b) { v[a] = kmin(v[a], v[b]); }
#define CMAX(a, b) { v[b] = kmax(v[a], v[b]); }

#if defined(KEY_F16) || defined(KEY_F32) || defined(KEY_F64)
#define FLOATK 1
// A stored value as a double and back (NaN: the canonical quiet NaN); a key's value.
#if defined(KEY_F16)
__device__ __forceinline__ double x2d(X v) { return (double)h2f(v); }
__device__ __forceinline__ X d2x(double d) { return d != d ? KEY_FROM_BITS((K)KEY_QNAN) : d2h(d); }
#else
__device__ __forceinline__ double x2d(X v) { return (double)v; }
__device__ __forceinline__ X d2x(double d) { return d != d ? KEY_FROM_BITS((K)KEY_QNAN) : (X)d; }
#endif
__device__ __forceinline__ double k2d(K k) {
  return k == KMAX ? __longlong_as_double(0x7ff8000000000000ll) : x2d(fromkey(k));
}
// SciPy's NI_Select: element `rank` of b[0 ..= hi] (C's comparisons; each scan stops at the
// element the last swap left, so indices stay in the range).
__device__ double ni_select(double* b, long long hi, long long rank) {
  long long lo = 0;
  for (;;) {
    if (lo == hi) return b[lo];
    const double x = b[lo];
    long long i = lo - 1, j = hi + 1;
    for (;;) {
      do j--; while (b[j] > x);
      do i++; while (b[i] < x);
      if (i >= j) break;
      const double t = b[i];
      b[i] = b[j];
      b[j] = t;
    }
    const long long count = j - lo + 1;
    if (rank < count) {
      hi = j;
    } else {
      lo = j + 1;
      rank -= count;
    }
  }
}
// SciPy's answer for a window whose keys `keys[0 .. n)` hold a NaN, stored in `dst`: the keys as
// doubles in `b`, then NI_Select. A macro, not a function: `keys` are the kernels' register arrays,
// which taking their address would move to local memory on the NaN-free path too.
#define NAN_SELECT(dst, keys, n, rank, b)                           \
  do {                                                              \
    for (int t_ = 0; t_ < (n); t_++) (b)[t_] = k2d((keys)[t_]);     \
    (dst) = d2x(ni_select((b), (n) - 1, (rank)));                   \
  } while (0)
#else
#define FLOATK 0
#endif

#if defined(VARIANT_MINMAX1D)
extern "C" __global__ void __launch_bounds__(THREADS) minmax1d(const X* __restrict__ x, X* __restrict__ out,
    long long outer, long long n, long long inner, int size, long long start, K cval, int* __restrict__ flags) {
  const long long total = outer * n * inner;
  for (long long idx = (long long)blockIdx.x * THREADS + threadIdx.x; idx < total;
       idx += (long long)gridDim.x * THREADS) {
    const long long c = idx % inner, r = idx / inner;
    const long long i = r % n, o = r / n;
    const X* line = x + o * n * inner + c;
    K acc = 0;
    bool nan = false;
    for (int j = 0; j < size; j++) {
      const long long s = nd_resolve(MODE, i + start + j, n);
      const K kv = s < 0 ? cval : tokey(line[s * inner]);
#if FLOATK
      nan |= kv == KMAX;
#endif
#if OP == 0
      acc = j == 0 ? kv : kmin(acc, kv);
#else
      acc = j == 0 ? kv : kmax(acc, kv);
#endif
    }
    out[idx] = fromkey(acc);
    if (nan && flags) flags[o * inner + c] = 1;
  }
}
#endif

#if defined(VARIANT_MINLIST)
// Element j of the extended line (output i's window: j = i .. i + size - 1).
__device__ __forceinline__ double ext_at(const X* __restrict__ line, long long j, long long start, long long n,
    long long inner, double cval) {
  const long long s = nd_resolve(MODE, j + start, n);
  return s < 0 ? cval : x2d(line[s * inner]);
}
#if OP == 0
#define BEFORE(a, b) ((a) <= (b))
#else
#define BEFORE(a, b) ((a) >= (b))
#endif
extern "C" __global__ void __launch_bounds__(THREADS) minlist(const X* __restrict__ x, X* __restrict__ out,
    long long outer, long long n, long long inner, long long size, long long start, double cval,
    const int* __restrict__ flags, long long* __restrict__ ring) {
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long* rg = ring + tid * size;
  for (long long line = tid; line < outer * inner; line += (long long)gridDim.x * blockDim.x) {
    if (!flags[line]) continue;
    const long long base = (line / inner) * n * inner + line % inner;
    const X* xl = x + base;
    X* ol = out + base;
#define E(j) ext_at(xl, (j), start, n, inner, cval)
    if (size == 1) {
      for (long long i = 0; i < n; i++) ol[i * inner] = d2x(E(i));
      continue;
    }
    // The deque: positions rg[front .. last] (a ring); an entry's value is E(position), and it
    // dies at position + size.
    long long front = 0, last = 0;
    rg[0] = 0;
    for (long long ll = 1; ll < size + n - 1; ll++) {
      const double val = E(ll);
      if (rg[front] + size == ll) front = front + 1 == size ? 0 : front + 1;
      if (BEFORE(val, E(rg[front]))) {
        rg[front] = ll;
        last = front;
      } else {
        while (BEFORE(val, E(rg[last]))) last = last == 0 ? size - 1 : last - 1;
        last = last + 1 == size ? 0 : last + 1;
        rg[last] = ll;
      }
      if (ll + 1 >= size) ol[(ll + 1 - size) * inner] = d2x(E(rg[front]));
    }
#undef E
  }
}
#endif

#if defined(VARIANT_MEDIATOR)
// SciPy's Mediator: heap positions -rank .. w - rank - 1 (0: the rank; a max-heap below, a
// min-heap above); heap[] holds slots of data[], pos[] the heap position of each slot.
struct Med {
  long long* pos;
  long long* heap;  // shifted by rank
  double* data;
  long long n, idx, min_ct, max_ct;
};
__device__ __forceinline__ bool mless(const Med& m, long long i, long long j) {
  return m.data[m.heap[i]] < m.data[m.heap[j]];
}
__device__ __forceinline__ bool mcx(Med& m, long long i, long long j) {
  if (!mless(m, i, j)) return false;
  const long long t = m.heap[i];
  m.heap[i] = m.heap[j];
  m.heap[j] = t;
  m.pos[m.heap[i]] = i;
  m.pos[m.heap[j]] = j;
  return true;
}
__device__ void min_down(Med& m, long long i) {
  for (i *= 2; i <= m.min_ct; i *= 2) {
    if (i < m.min_ct && mless(m, i + 1, i)) ++i;
    if (!mcx(m, i, i / 2)) break;
  }
}
__device__ void max_down(Med& m, long long i) {
  for (i *= 2; i >= -m.max_ct; i *= 2) {
    if (i > -m.max_ct && mless(m, i, i - 1)) --i;
    if (!mcx(m, i / 2, i)) break;
  }
}
__device__ bool min_up(Med& m, long long i) {
  while (i > 0 && mcx(m, i, i / 2)) i /= 2;
  return i == 0;
}
__device__ bool max_up(Med& m, long long i) {
  while (i < 0 && mcx(m, i / 2, i)) i /= 2;
  return i == 0;
}
__device__ void minsert(Med& m, double v) {
  const long long p = m.pos[m.idx];
  const double old = m.data[m.idx];
  m.data[m.idx] = v;
  m.idx = m.idx + 1 == m.n ? 0 : m.idx + 1;
  if (p > 0) {
    if (v > old) {
      min_down(m, p);
      return;
    }
    if (min_up(m, p) && mcx(m, 0, -1)) max_down(m, -1);
  } else if (p < 0) {
    if (v < old) {
      max_down(m, p);
      return;
    }
    if (max_up(m, p) && mcx(m, 1, 0)) min_down(m, 1);
  } else {
    if (max_up(m, -1)) max_down(m, -1);
    if (min_up(m, 1)) min_down(m, 1);
  }
}
// One thread replays SciPy's _rank_filter over the line (its reads inside the line: the host
// checked, mediator_inside); scratch: pos, heap, data of w each.
extern "C" __global__ void mediator(const X* __restrict__ x, X* __restrict__ out, long long n, long long w,
    long long rank, long long origin, double cval, const int* __restrict__ flag, long long* __restrict__ pos,
    long long* __restrict__ heap, double* __restrict__ data) {
  if (*flag == 0 || blockIdx.x != 0 || threadIdx.x != 0) return;
  Med m{pos, heap + rank, data, w, 0, w - rank - 1, rank};
  for (long long k = w - 1; k >= 0; k--) {
    pos[k] = k - rank;
    m.heap[pos[k]] = k;
    data[k] = 0.0;
  }
  const long long lim = (w - 1) / 2 - origin;
#if MODE == 2
  for (long long i = w - lim - 1; i > -1; i--) minsert(m, x2d(x[i]));
#elif MODE == 4
  for (long long i = w - lim; i > 0; i--) minsert(m, cval);
#elif MODE == 0
  for (long long i = w - lim; i > 0; i--) minsert(m, x2d(x[0]));
#elif MODE == 3
  for (long long i = w - lim; i > 0; i--) minsert(m, x2d(x[i]));
#else
  for (long long i = n - lim - (w % 2 == 0 ? 2 : 0) - 2 * origin; i < n; i++) minsert(m, x2d(x[i]));
#endif
  for (long long i = 0; i < lim; i++) minsert(m, x2d(x[i]));
  for (long long i = lim; i < n; i++) {
    minsert(m, x2d(x[i]));
    out[i - lim] = d2x(data[m.heap[0]]);
  }
  for (long long i = 0; i < lim; i++) {
#if MODE == 2
    const double v = x2d(x[n - 1 - i]);
#elif MODE == 4
    const double v = cval;
#elif MODE == 0
    const double v = x2d(x[n - 1]);
#elif MODE == 3
    const double v = x2d(x[n - 2 - i]);
#else
    const double v = x2d(x[i]);
#endif
    minsert(m, v);
    out[n - lim + i] = d2x(data[m.heap[0]]);
  }
}
#endif

#if defined(VARIANT_BOX2D)
extern "C" __global__ void __launch_bounds__(TX * TY) box2d(const X* __restrict__ x, X* __restrict__ out,
    long long h, long long w, long long sy, long long sx, K cval) {
  __shared__ K tile[(TY * RY + KH - 1) * (TX + KW - 1)];
  int nan = 0;
  const int th = TY * RY + KH - 1, tw = TX + KW - 1;
  const long long y0 = (long long)blockIdx.y * (TY * RY), x0 = (long long)blockIdx.x * TX;
  for (int i = threadIdx.y * TX + threadIdx.x; i < th * tw; i += TX * TY) {
    const int r = i / tw, c = i - r * tw;
    const long long yy = nd_resolve(MODE, y0 + r + sy, h), xx = nd_resolve(MODE, x0 + c + sx, w);
    tile[i] = (yy < 0 || xx < 0) ? cval : tokey(x[yy * w + xx]);
#if FLOATK
    nan |= tile[i] == KMAX;
#endif
  }
  // Whether the tile holds a NaN: only then are windows checked for one.
  const int tile_nan = __syncthreads_or(nan);
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
#if FLOATK
    if (tile_nan) {
      bool wn = false;
#pragma unroll
      for (int j = 0; j < KH * KW; j++) wn |= v[j] == KMAX;
      if (wn) {
        // SciPy's quickselect over the window (C order), where it meets a NaN.
        double b[KH * KW];
        NAN_SELECT(out[yo * w + xo], v, KH * KW, RANK, b);
        continue;
      }
    }
#else
    (void)tile_nan;
#endif
    NET
    out[yo * w + xo] = fromkey(v[RANK]);
  }
}
#endif

#if defined(VARIANT_ND) || defined(VARIANT_NANSEL)
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

// The multi-index of output idx.
__device__ __forceinline__ void unravel(const Dims& shape, long long idx, long long* pos) {
  for (int d = (int)shape.nd - 1; d >= 0; d--) {
    pos[d] = idx % shape.d[d];
    idx /= shape.d[d];
  }
}
#endif

#if defined(VARIANT_NANSEL)
extern "C" __global__ void __launch_bounds__(THREADS) nansel(const X* __restrict__ x, X* __restrict__ out, Dims shape,
    long long total, const int* __restrict__ taps, int fs, int rank, K cval, const int* __restrict__ flag,
    double* __restrict__ scratch) {
  if (*flag == 0) return;
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  double* b = scratch + tid * fs;
  for (long long idx = tid; idx < total; idx += (long long)gridDim.x * blockDim.x) {
    long long pos[ND_MAX];
    unravel(shape, idx, pos);
    bool nan = false;
    for (int t = 0; t < fs && !nan; t++) nan = key_at(x, shape, pos, taps, t, cval) == KMAX;
    if (!nan) continue;
    for (int t = 0; t < fs; t++) b[t] = k2d(key_at(x, shape, pos, taps, t, cval));
    out[idx] = d2x(ni_select(b, fs - 1, rank));
  }
}
#endif

#if defined(VARIANT_ND)
#if defined(STRUCT)
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
    long long total, const int* __restrict__ taps, int fs, int rank, K cval, const double* __restrict__ ss,
    int* __restrict__ flag) {
  for (long long idx = (long long)blockIdx.x * THREADS + threadIdx.x; idx < total;
       idx += (long long)gridDim.x * THREADS) {
    long long pos[ND_MAX];
    unravel(shape, idx, pos);
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
      // SciPy's running comparison: C's `>`/`<` (a NaN first element stays, later NaNs pass).
      if (t == 0 || (OP == 1 ? tv > res : tv < res)) res = tv;
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
    // SciPy's running comparison: a NaN first element stays, later NaNs are passed over.
    K acc = KEY_AT(0);
    const bool first_nan = FLOATK && acc == KMAX;
    for (int t = 1; t < fs; t++) {
      const K kv = KEY_AT(t);
      if (OP == 0) acc = kmin(acc, kv);
      else if (!(FLOATK && kv == KMAX)) acc = kmax(acc, kv);
    }
    out[idx] = fromkey(first_nan ? KMAX : acc);
#elif defined(NET)
    K v[FS];
    bool nan = false;
#pragma unroll
    for (int t = 0; t < FS; t++) {
      v[t] = KEY_AT(t);
      nan |= FLOATK && v[t] == KMAX;
    }
#if FLOATK
    if (nan) {
      // SciPy's quickselect over the window (footprint order), where it meets a NaN.
      if (flag) *flag = 1;
      double b[FS];
      NAN_SELECT(out[idx], v, FS, RANK, b);
      continue;
    }
#endif
    NET
    out[idx] = fromkey(v[RANK]);
#else
    K res = 0;
    if (fs <= LOCAL_MAX) {
      // Quickselect (Hoare's partition) in a local buffer.
      K buf[LOCAL_MAX];
      bool nan = false;
      for (int t = 0; t < fs; t++) {
        buf[t] = KEY_AT(t);
        nan |= FLOATK && buf[t] == KMAX;
      }
#if FLOATK
      if (nan) {
        if (flag) *flag = 1;
        double b[LOCAL_MAX];
        NAN_SELECT(out[idx], buf, fs, rank, b);
        continue;
      }
#endif
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
      if (FLOATK && flag) {
        for (int t = 0; t < fs; t++) {
          if (KEY_AT(t) == KMAX) {
            *flag = 1;
            break;
          }
        }
      }
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
