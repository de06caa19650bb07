// Writes through index arrays (indices checked beforehand): `scatter` (a[i0, i1] = v, put),
// `claim` (the last row writing to each place, for NumPy's last-wins assignment) and
// `scatter_add` (NumPy's add.at, with atomics). Preceded by indices.cu (Idx, norm_index,
// report, row_pos, GRID_LOOP).
//
// -D: THREADS (threads per block), MAX_K.
// Prelude (indexing/cuda.rs): VARIANT_CLAIM / VARIANT_SCATTER / VARIANT_SCATTER_ADD, IT and
// IDX_UNSIGNED (indices.cu); claim: HASHED (the owners are a hash table, not a word per
// place); scatter: W (the word rows are copied in), CLAIM (0: every row writes, the indices
// are distinct; 1: only the row that claimed its place, in a word per place; 2: the same in a
// hash table); scatter_add: T (the elements' storage), ADD_AT (add_at, or add_at_f16 for
// float16).
#include "cuprum/prelude.cuh"
#include "cuprum/atomics.cuh"

#if defined(VARIANT_CLAIM) || defined(VARIANT_SCATTER)
// The slot of place `p` in an open-addressing table of `2^bits` pairs (key p + 1, value),
// zeroed before use; `insert` claims a free slot for it, else NULL when `p` is absent.
__device__ unsigned long long* place_slot(unsigned long long* t, int bits, long long p, bool insert) {
  const unsigned long long key = (unsigned long long)p + 1ull, mask = (1ull << bits) - 1ull;
  unsigned long long h = (key * 0x9E3779B97F4A7C15ull) >> (64 - bits);
  for (;;) {
    unsigned long long* s = t + 2 * h;
    const unsigned long long k = insert ? atomicCAS(s, 0ull, key) : *(volatile unsigned long long*)s;
    if (k == key || (insert && k == 0ull)) return s;
    if (k == 0ull) return 0;
    h = (h + 1ull) & mask;
  }
}
#endif

#if defined(VARIANT_CLAIM)
// owner[place] (or its hash table slot's value) = the last row selecting it, plus one.
extern "C" __global__ void __launch_bounds__(THREADS) claim(long long nrows, unsigned long long* owner, int bits, Idx I,
    unsigned long long* err) {
  GRID_LOOP(r, nrows) {
    long long p = row_pos(I, r, err);
    if (p < 0) continue;
#if HASHED
    atomicMax(place_slot(owner, bits, p, true) + 1, (unsigned long long)r + 1);
#else
    atomicMax(owner + p, (unsigned long long)r + 1);
#endif
  }
}
#endif

#if defined(VARIANT_SCATTER)
// dst[pos(r), c] = vals[(r, c) mod nvals] in words (rows of rw words).
extern "C" __global__ void __launch_bounds__(THREADS) scatter(long long total, long long rw, long long nvals,
    W* dst, const W* __restrict__ vals, Idx I, unsigned long long* err, const unsigned long long* owner, int bits) {
  GRID_LOOP(e, total) {
    long long r = e / rw, c = e - r * rw;
    long long p = row_pos(I, r, err);
    if (p < 0) continue;
#if CLAIM == 1
    if (owner[p] != (unsigned long long)r + 1) continue;
#elif CLAIM == 2
    const unsigned long long* s = place_slot((unsigned long long*)owner, bits, p, false);
    if (!s || s[1] != (unsigned long long)r + 1) continue;
#endif
    dst[p * rw + c] = vals[nvals == total ? e : e % nvals];
  }
}
#endif

#if defined(VARIANT_SCATTER_ADD)
// dst[pos(r), c] += vals[r, c] (rows of `row` elements), atomically, with NumPy's result.
extern "C" __global__ void __launch_bounds__(THREADS) scatter_add(long long total, long long row,
    T* dst, const T* __restrict__ vals, Idx I, unsigned long long* err) {
  GRID_LOOP(e, total) {
    long long r = e / row, c = e - r * row;
    long long p = row_pos(I, r, err);
    if (p >= 0) ADD_AT(dst + (p * row + c), vals[e]);
  }
}
#endif
