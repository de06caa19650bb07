// CuPy's ElementwiseKernel: the user's operation once per element of the broadcast shape, with
// `i` the element's index in C order, each non-raw parameter a reference to its element, each
// raw parameter a CArray, scalars by value.
//
// -D: THREADS.
// Prelude (kernel/source/elementwise.rs): the shared headers and source.cuh, the typedefs of
// the type placeholders, the user's preamble, then NAME (the kernel's name), PARAMS (the
// parameters after `_n`: `const char* _p_x` per non-raw array, `T x` per scalar, `CArray<T, N>
// x` per raw array), BIND (the references `const T& x = *(const T*)(_p_x + OFF(q, sizeof(T)));`
// per non-raw array, q its slot), and either VARIANT_C (every non-raw array C-contiguous with
// the loop's shape: the offset is i times the itemsize) or VARIANT_N with ND (the collapsed
// loop dimensions) and NOPS (the non-raw arrays): offsets from a layout table by value.
// The user's code replaces the marker comments /*@LOOP_PREP*/, /*@OPERATION*/ and
// /*@AFTER_LOOP*/ (text, not macros: it may hold comments and several lines).

#if defined(VARIANT_N)
struct CuprumLay {
  long long shape[ND];
  long long st[NOPS][ND];
};
#define LAY_PARAM , CuprumLay _L
#else
#define LAY_PARAM
#endif

extern "C" __global__ void __launch_bounds__(THREADS) NAME(long long _n PARAMS LAY_PARAM) {
  const CIndexer _ind = {_n};
  (void)_ind;
  /*@LOOP_PREP*/
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < _n;
       i += (long long)gridDim.x * blockDim.x) {
#if defined(VARIANT_N)
    long long _o[NOPS] = {0};
    {
      long long _r = i;
      for (int _d = ND - 1; _d >= 0; _d--) {
        long long _k = _r % _L.shape[_d];
        _r /= _L.shape[_d];
#pragma unroll
        for (int _q = 0; _q < NOPS; _q++) _o[_q] += _k * _L.st[_q][_d];
      }
    }
#define OFF(q, isz) (_o[q])
#else
#define OFF(q, isz) (i * (long long)(isz))
#endif
    BIND
    {
      /*@OPERATION*/
    }
  }
  /*@AFTER_LOOP*/
}
