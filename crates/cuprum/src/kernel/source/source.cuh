// What CuPy's source kernels (ElementwiseKernel, ReductionKernel) see besides their own
// parameters: the dtype names as C types, `complex<T>`, `float16`, and `CArray<T, ND>`, the
// type of a `raw` parameter. Prepended to the generated module (kernel/source/*.rs).

// float16 is stored as its 16 bits and computes in float: a value converts to float where it
// is used, and back (rounded to nearest) where it is stored.
struct float16 {
  u16 bits;
  __device__ float16() {}
  template <class V> __device__ float16(V v) : bits(f2h((float)v)) {}
  __device__ float16(double v) : bits(d2h(v)) {}
  __device__ operator float() const { return h2f(bits); }
};

template <class T> struct cuprum_complex_of;
template <> struct cuprum_complex_of<float> { typedef c64 type; };
template <> struct cuprum_complex_of<double> { typedef c128 type; };
// `complex<float>` and `complex<double>`, as CuPy's kernels spell them.
template <class T> using complex = typename cuprum_complex_of<T>::type;

// Where an out-of-range access of a raw array goes (its index is recorded; the launch returns
// IndexError): somewhere harmless.
__device__ __align__(16) unsigned char cuprum_sink[16];

// A `raw` parameter: the whole array, indexed by the kernel (`x[i]` over its elements in C
// order, or `x[idx]` with one index per dimension), every access checked against the shape.
template <class T, int ND> struct CArray {
  char* p;
  unsigned long long n;
  unsigned long long* rec;
  long long shp[ND];
  long long st[ND];  // bytes
  __device__ long long size() const { return (long long)n; }
  __device__ int ndim() const { return ND; }
  __device__ const long long* shape() const { return shp; }
  __device__ const long long* strides() const { return st; }
  __device__ T* data() const { return (T*)p; }
  __device__ T& bad(unsigned long long i) const {
    if (rec != 0 && atomicCAS(rec, 0ull, i + 1) == 0ull) rec[1] = n;
    return *reinterpret_cast<T*>(cuprum_sink);
  }
  __device__ T& operator[](long long i) const {
    unsigned long long u = (unsigned long long)i;
    if (u >= n) return bad(u);
    long long o = 0;
    if (ND == 1) {
      o = i * st[0];
    } else {
      for (int d = ND - 1; d >= 0; d--) { o += (i % shp[d]) * st[d]; i /= shp[d]; }
    }
    return *(T*)(p + o);
  }
  template <class I> __device__ T& operator[](const I (&idx)[ND]) const {
    long long o = 0, flat = 0;
    bool ok = true;
    for (int d = 0; d < ND; d++) {
      long long k = (long long)idx[d];
      ok = ok && k >= 0 && k < shp[d];
      flat = flat * shp[d] + k;
      o += k * st[d];
    }
    if (!ok) return bad((unsigned long long)flat);
    return *(T*)(p + o);
  }
};

// The loop's index space (CuPy's `_ind`): `_ind.size()` elements; the element index is `i`.
struct CIndexer {
  long long n;
  __device__ long long size() const { return n; }
};
