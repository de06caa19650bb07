// Reads through index arrays: `gather` (a[i0, i1], take) with the range check fused in,
// `check` (the range check alone, before a scatter, so that nothing is written on error) and
// `take_along` (take_along_axis over strided, possibly broadcast, views). Rows are copied in
// raw words W. Preceded by indices.cu (Idx, norm_index, report, row_pos, GRID_LOOP).
//
// -D: THREADS (threads per block), MAX_K, MAX_ND (take_along: most dimensions).
// Prelude (indexing/cuda.rs): VARIANT_GATHER / VARIANT_CHECK / VARIANT_TAKE_ALONG, IT and
// IDX_UNSIGNED (indices.cu), W (gather, take_along: the word rows are copied in).
#include "cuprum/prelude.cuh"

#if defined(VARIANT_GATHER)
// out[o, t, c] = src[o, pos(t), c] in words, for the nrows rows t the index arrays select
// among the nsrc rows of src (rows of rw words).
extern "C" __global__ void __launch_bounds__(THREADS) gather(long long total, long long nrows, long long rw, long long nsrc,
    const W* __restrict__ src, W* __restrict__ out, Idx I, unsigned long long* err) {
  GRID_LOOP(e, total) {
    long long t = e / rw, c = e - t * rw;
    long long o = t / nrows, r = t - o * nrows;
    long long p = row_pos(I, r, err);
    if (p >= 0) out[e] = src[(o * nsrc + p) * rw + c];
  }
}
#endif

#if defined(VARIANT_CHECK)
extern "C" __global__ void __launch_bounds__(THREADS) check(long long nrows, Idx I, unsigned long long* err) {
  GRID_LOOP(r, nrows) { row_pos(I, r, err); }
}
#endif

#if defined(VARIANT_TAKE_ALONG)
struct TLay { long long nd; long long shape[MAX_ND]; long long ast[MAX_ND]; long long ist[MAX_ND]; };
// out (C order, shape L.shape) = src[..., idx[...], ...]: src and idx are byte-strided views
// broadcast to the output's shape (src's stride along the axis is 0 in L.ast; axst is its own).
extern "C" __global__ void __launch_bounds__(THREADS) take_along(long long total, long long alen, long long axst,
    const char* __restrict__ src, const char* __restrict__ idx, W* __restrict__ out, TLay L, unsigned long long* err) {
  GRID_LOOP(e, total) {
    long long rem = e, so = 0, io = 0;
    for (int d = (int)L.nd - 1; d >= 0; d--) {
      long long n = L.shape[d];
      long long c = rem % n;
      rem /= n;
      so += c * L.ast[d];
      io += c * L.ist[d];
    }
    IT v = *(const IT*)(idx + io);
    long long j;
    if (!norm_index(v, alen, &j)) { report(err, 0, (long long)v); continue; }
    out[e] = *(const W*)(src + so + j * axst);
  }
}
#endif
