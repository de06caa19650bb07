// CuPy's ReductionKernel: the user's map expression on each element of the inputs' broadcast
// shape, merged over the reduced axes with the reduce expression, then the post-map statement
// writing the outputs.
//
// -D: RTHREADS (threads per block).
// Prelude (kernel/source/reduction.rs): the shared headers and source.cuh, the typedefs of the
// type placeholders and of `_type_reduce`, the user's preamble, then NAME, PARAMS (after the
// launch's own: `const char* _p_x` per array input, `T x` per scalar input, `char* _p_y` per
// output), BIND_IN (`const T& x = *(const T*)(_p_x + _ko[q] + _ro[q]);` per array input q),
// BIND_OUT (`T& y = *(T*)(_p_y + _ko[NA + j]);` per output j), NA (array inputs, at least
// one: the reduced shape is theirs), NOUT, KND
// and RND (the collapsed kept and reduced dimensions, at least 1), HAS_IDENTITY, and
// VARIANT_ROWS (a block per output and slice of the reduced range; with several slices the
// last block to finish merges them) or VARIANT_COLS (a thread per output).
// The user's code replaces the marker comments: /*@REDUCE*/ (an expression of `a` and `b`),
// /*@IDENTITY*/, /*@MAP*/ (an expression of the inputs), /*@POST_MAP*/ (statements of `a`
// and the outputs).

struct CuprumRLay {
  long long kshape[KND];
  long long kst[NA + NOUT][KND];
  long long rshape[RND];
  long long rst[NA][RND];
};

__device__ __forceinline__ _type_reduce cuprum_reduce(const _type_reduce& a, const _type_reduce& b) {
  return (
/*@REDUCE*/
  );
}

#if HAS_IDENTITY
__device__ __forceinline__ _type_reduce cuprum_identity() {
  return _type_reduce(
/*@IDENTITY*/
  );
}
#endif

// An accumulator: empty until its first value (the identity is used only for an empty range).
struct CuprumAcc {
  _type_reduce v;
  bool has;
  __device__ void add(const _type_reduce& x) {
    if (has) { v = cuprum_reduce(v, x); } else { v = x; has = true; }
  }
  __device__ void merge(const CuprumAcc& o) {
    if (o.has) add(o.v);
  }
};
static_assert(sizeof(CuprumAcc) <= 128, "ReductionKernel: the reduce type is larger than 120 bytes");

// Byte offsets of output o in each operand, and of reduced element r in each array input.
__device__ __forceinline__ void cuprum_koff(const CuprumRLay& L, long long o, long long (&ko)[NA + NOUT]) {
#pragma unroll
  for (int q = 0; q < NA + NOUT; q++) ko[q] = 0;
  for (int d = KND - 1; d >= 0; d--) {
    long long k = o % L.kshape[d];
    o /= L.kshape[d];
#pragma unroll
    for (int q = 0; q < NA + NOUT; q++) ko[q] += k * L.kst[q][d];
  }
}
__device__ __forceinline__ void cuprum_roff(const CuprumRLay& L, long long r, long long (&ro)[NA]) {
#pragma unroll
  for (int q = 0; q < NA; q++) ro[q] = 0;
  for (int d = RND - 1; d >= 0; d--) {
    long long k = RND == 1 ? r : r % L.rshape[d];
    r = RND == 1 ? 0 : r / L.rshape[d];
#pragma unroll
    for (int q = 0; q < NA; q++) ro[q] += k * L.rst[q][d];
  }
}

extern "C" __global__ void __launch_bounds__(RTHREADS) NAME(long long _nout, long long _nred
#if defined(VARIANT_ROWS)
    , long long _per, int _splits, CuprumAcc* _part, unsigned int* _count
#endif
    PARAMS, CuprumRLay _L) {
#if defined(VARIANT_ROWS)
  long long _o = blockIdx.x / _splits;
#else
  long long _o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (_o >= _nout) return;
#endif
  long long _ko[NA + NOUT];
  cuprum_koff(_L, _o, _ko);
  // The map expression at reduced element _r of this output.
  auto _map = [&](long long _r) -> _type_reduce {
    long long _ro[NA];
    cuprum_roff(_L, _r, _ro);
    BIND_IN
    return (_type_reduce)(
/*@MAP*/
    );
  };
#if defined(VARIANT_ROWS)
  __shared__ CuprumAcc _sh[RTHREADS];
  __shared__ bool _last;
  int _sp = blockIdx.x % _splits;
  long long _r0 = (long long)_sp * _per;
  long long _r1 = _r0 + _per < _nred ? _r0 + _per : _nred;
  CuprumAcc _a;
  _a.has = false;
  for (long long _r = _r0 + threadIdx.x; _r < _r1; _r += blockDim.x) _a.add(_map(_r));
  _sh[threadIdx.x] = _a;
  __syncthreads();
  for (int _w = blockDim.x / 2; _w > 0; _w >>= 1) {
    if (threadIdx.x < _w) { CuprumAcc _b = _sh[threadIdx.x]; _b.merge(_sh[threadIdx.x + _w]); _sh[threadIdx.x] = _b; }
    __syncthreads();
  }
  if (_splits > 1) {
    // Several blocks per output: each writes its partial; the last block to finish (counted
    // with an atomic, after a fence) merges them and resets the counter.
    if (threadIdx.x == 0) {
      _part[blockIdx.x] = _sh[0];
      __threadfence();
      _last = (atomicAdd(&_count[_o], 1u) == (unsigned)_splits - 1);
    }
    __syncthreads();
    if (!_last) return;
    __threadfence();
    if (threadIdx.x == 0) {
      CuprumAcc _m;
      _m.has = false;
      for (int _q = 0; _q < _splits; _q++) { CuprumAcc _pq = _part[(long long)_o * _splits + _q]; _m.merge(_pq); }
      _sh[0] = _m;
      _count[_o] = 0;
    }
  }
  if (threadIdx.x != 0) return;
  CuprumAcc _fin = _sh[0];
#else
  CuprumAcc _fin;
  _fin.has = false;
  for (long long _r = 0; _r < _nred; _r++) _fin.add(_map(_r));
#endif
#if HAS_IDENTITY
  _type_reduce a = _fin.has ? _fin.v : cuprum_identity();
#else
  _type_reduce a = _fin.v;
#endif
  BIND_OUT
  {
/*@POST_MAP*/
  ;
  }
}
