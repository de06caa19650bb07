// Connected-component labelling (scipy/ndimage/label/cuda.rs): union-find over the backward
// neighbours of a symmetric structure, one thread per element (Playne & Hawick's atomicMin
// union), so that each component's root is its first element in C order; then the ranks of
// the roots (a scan of root flags, by the scan family) number the components as SciPy does.
//
//   lb_init     parent[p] = p where x[p] is nonzero, -1 elsewhere
//   lb_merge    for each element and each backward neighbour inside the array: union
//   lb_flatten  parent[p] = root(p); a bit per element marks the roots (one word a warp), and
//               each tile of TILE elements counts its roots
//   (scan)      inclusive sums of the tiles' counts (the scan family's kernel)
//   lb_final    out[p] = the rank of root(p): the roots of the tiles before its tile, plus
//               those before it in its tile (popcounts of at most TILE / 32 words), plus 1;
//               0 for the background
//
// Prelude (label/cuda.rs): T (the input's storage), NZ(v) (nonzero), IDX (int or long long),
// OUT (the output's C type), NDIM, NBMAX (neighbours passed inline). -D: THREADS, TILE.
#include "cuprum/prelude.cuh"

struct Shape {
  long long d[NDIM];
};
// Neighbour j: two bits per axis, axis k at bits 2k..2k+1, holding step + 1.
struct Nb {
  unsigned long long code[NBMAX];
};

#define GRID_LOOP(p, n) \
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < (n); p += (long long)gridDim.x * blockDim.x)

extern "C" __global__ void __launch_bounds__(THREADS) lb_init(const T* __restrict__ x, IDX* __restrict__ parent, long long n) {
  GRID_LOOP(p, n) { parent[p] = NZ(x[p]) ? (IDX)p : (IDX)-1; }
}

// The root of p: parents only ever decrease, and point to smaller indices.
__device__ __forceinline__ IDX root_of(const volatile IDX* parent, IDX p) {
  IDX q = parent[p];
  while (q != p) {
    p = q;
    q = parent[p];
  }
  return p;
}

// Joins the trees of a and b: the larger root is lowered to the smaller with atomicMin; if
// another thread lowered it first, retry from the value found.
__device__ void unite(IDX* parent, IDX a, IDX b) {
  const volatile IDX* vp = parent;
  bool done;
  do {
    a = root_of(vp, a);
    b = root_of(vp, b);
    if (a < b) {
      const IDX old = atomicMin(&parent[b], a);
      done = old == b;
      b = old;
    } else if (b < a) {
      const IDX old = atomicMin(&parent[a], b);
      done = old == a;
      a = old;
    } else {
      done = true;
    }
  } while (!done);
}

extern "C" __global__ void __launch_bounds__(THREADS) lb_merge(IDX* parent, Shape shape, Nb nb,
    const unsigned long long* __restrict__ nbt, int nk, long long n) {
  GRID_LOOP(p, n) {
    // Whether an element is foreground never changes: a plain (cached) load.
    if (parent[p] < 0) continue;
    // Coordinates in IDX arithmetic (32-bit divisions below 2^31 elements).
    long long c[NDIM];
    IDX r = (IDX)p;
#pragma unroll
    for (int k = NDIM - 1; k >= 0; k--) {
      const IDX dk = (IDX)shape.d[k];
      c[k] = r % dk;
      r /= dk;
    }
    for (int j = 0; j < nk; j++) {
      const unsigned long long code = nbt ? nbt[j] : nb.code[j];
      long long q = 0;
      bool ok = true;
#pragma unroll
      for (int k = 0; k < NDIM; k++) {
        const long long ck = c[k] + (long long)((code >> (2 * k)) & 3) - 1;
        ok = ok && ck >= 0 && ck < shape.d[k];
        q = q * shape.d[k] + ck;
      }
      if (ok && parent[q] >= 0) unite(parent, (IDX)p, (IDX)q);
    }
  }
}

// The root of p after the merge (the kernel boundary made every link visible): plain loads;
// a concurrent compression only ever shortens a path to another ancestor.
__device__ __forceinline__ IDX root_plain(const IDX* parent, IDX p) {
  IDX q = parent[p];
  while (q != p) {
    p = q;
    q = parent[p];
  }
  return p;
}

__device__ __forceinline__ void add_count(int* a, int v) { atomicAdd(a, v); }
__device__ __forceinline__ void add_count(long long* a, long long v) {
  atomicAdd((unsigned long long*)a, (unsigned long long)v);
}

extern "C" __global__ void __launch_bounds__(THREADS) lb_flatten(IDX* parent, unsigned* __restrict__ bits,
    IDX* __restrict__ tilecount, long long n) {
  const int lane = threadIdx.x & 31;
  const long long stride = (long long)gridDim.x * blockDim.x;
  // Warp-uniform: the warp's first element (a multiple of 32), 32 elements at a time.
  for (long long base = blockIdx.x * (long long)blockDim.x + threadIdx.x - lane; base < n; base += stride) {
    const long long p = base + lane;
    bool root = false;
    if (p < n && parent[p] >= 0) {
      const IDX r = root_plain(parent, (IDX)p);
      parent[p] = r;
      root = r == (IDX)p;
    }
    const unsigned m = __ballot_sync(0xffffffffu, root);
    if (lane == 0) {
      bits[base >> 5] = m;
      if (m) add_count(&tilecount[base / TILE], (IDX)__popc(m));
    }
  }
}

extern "C" __global__ void __launch_bounds__(THREADS) lb_final(const IDX* __restrict__ parent,
    const unsigned* __restrict__ bits, const IDX* __restrict__ tiles, OUT* __restrict__ out, long long n) {
  GRID_LOOP(p, n) {
    const IDX r = parent[p];
    if (r < 0) {
      out[p] = (OUT)0;
      continue;
    }
    const long long t = (long long)r / TILE, w = (long long)r >> 5;
    long long rank = t ? (long long)tiles[t - 1] : 0;
    for (long long i = t * (TILE / 32); i < w; i++) rank += __popc(bits[i]);
    rank += __popc(bits[w] & ((1u << (r & 31)) - 1u));
    out[p] = (OUT)(rank + 1);
  }
}
