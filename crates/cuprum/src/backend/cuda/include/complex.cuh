// complex64 (c64) and complex128 (c128) for kernels: NVRTC has no cuComplex.h or
// thrust::complex without the toolkit's headers, so cuprum has its own. The arithmetic is
// NumPy's (its multiply's rounding, Smith's division, its integer powers), comparisons are
// NumPy's lexicographic order, and the functions follow C99's formulas with the special cases
// of its Annex G where NumPy's fixtures look (zeros, infinities, NaN).
#pragma once

template <typename T> struct cplx {
  T re, im;
  cplx() = default;
  __device__ __host__ cplx(T r) : re(r), im(0) {}
  __device__ __host__ cplx(T r, T i) : re(r), im(i) {}
  template <typename U> __device__ __host__ explicit cplx(const cplx<U>& z) : re((T)z.re), im((T)z.im) {}
};
// 8 and 16 bytes, aligned to their size (one vector load each).
struct __align__(8) c64 : cplx<float> {
  c64() = default;
  __device__ __host__ c64(float r) : cplx<float>(r) {}
  __device__ __host__ c64(float r, float i) : cplx<float>(r, i) {}
  __device__ __host__ c64(const cplx<float>& z) : cplx<float>(z) {}
  __device__ __host__ explicit c64(const cplx<double>& z) : cplx<float>((float)z.re, (float)z.im) {}
};
struct __align__(16) c128 : cplx<double> {
  c128() = default;
  __device__ __host__ c128(double r) : cplx<double>(r) {}
  __device__ __host__ c128(double r, double i) : cplx<double>(r, i) {}
  __device__ __host__ c128(const cplx<double>& z) : cplx<double>(z) {}
  __device__ __host__ explicit c128(const cplx<float>& z) : cplx<double>((double)z.re, (double)z.im) {}
};

// NumPy's add.at on complex elements: each part added atomically.
__device__ __forceinline__ void add_at(c64* a, c64 v) {
  atomicAdd(&a->re, v.re);
  atomicAdd(&a->im, v.im);
}
__device__ __forceinline__ void add_at(c128* a, c128 v) {
  atomicAdd(&a->re, v.re);
  atomicAdd(&a->im, v.im);
}

// NaN and infinity of the part type (NVRTC has no math.h macros).
template <typename T> __device__ __forceinline__ T c_nan();
template <> __device__ __forceinline__ float c_nan<float>() { return __int_as_float(0x7fc00000); }
template <> __device__ __forceinline__ double c_nan<double>() { return __longlong_as_double(0x7ff8000000000000ULL); }
template <typename T> __device__ __forceinline__ T c_inf();
template <> __device__ __forceinline__ float c_inf<float>() { return __int_as_float(0x7f800000); }
template <> __device__ __forceinline__ double c_inf<double>() { return __longlong_as_double(0x7ff0000000000000ULL); }

// The part type's functions by overloading (float and double).
__device__ __forceinline__ float c_exp(float x) { return expf(x); }
__device__ __forceinline__ double c_exp(double x) { return exp(x); }
__device__ __forceinline__ float c_expm1(float x) { return expm1f(x); }
__device__ __forceinline__ double c_expm1(double x) { return expm1(x); }
__device__ __forceinline__ float c_log(float x) { return logf(x); }
__device__ __forceinline__ double c_log(double x) { return log(x); }
__device__ __forceinline__ float c_log1p(float x) { return log1pf(x); }
__device__ __forceinline__ double c_log1p(double x) { return log1p(x); }
__device__ __forceinline__ float c_hypot(float x, float y) { return hypotf(x, y); }
__device__ __forceinline__ double c_hypot(double x, double y) { return hypot(x, y); }
__device__ __forceinline__ float c_atan2(float y, float x) { return atan2f(y, x); }
__device__ __forceinline__ double c_atan2(double y, double x) { return atan2(y, x); }
__device__ __forceinline__ float c_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double c_sqrt(double x) { return sqrt(x); }
__device__ __forceinline__ float c_sin(float x) { return sinf(x); }
__device__ __forceinline__ double c_sin(double x) { return sin(x); }
__device__ __forceinline__ float c_cos(float x) { return cosf(x); }
__device__ __forceinline__ double c_cos(double x) { return cos(x); }
__device__ __forceinline__ float c_tan(float x) { return tanf(x); }
__device__ __forceinline__ double c_tan(double x) { return tan(x); }
__device__ __forceinline__ float c_sinh(float x) { return sinhf(x); }
__device__ __forceinline__ double c_sinh(double x) { return sinh(x); }
__device__ __forceinline__ float c_cosh(float x) { return coshf(x); }
__device__ __forceinline__ double c_cosh(double x) { return cosh(x); }
__device__ __forceinline__ float c_rint(float x) { return rintf(x); }
__device__ __forceinline__ double c_rint(double x) { return rint(x); }
__device__ __forceinline__ float c_copysign(float x, float y) { return copysignf(x, y); }
__device__ __forceinline__ double c_copysign(double x, double y) { return copysign(x, y); }
__device__ __forceinline__ float c_tanh(float x) { return tanhf(x); }
__device__ __forceinline__ double c_tanh(double x) { return tanh(x); }
__device__ __forceinline__ float c_asinh(float x) { return asinhf(x); }
__device__ __forceinline__ double c_asinh(double x) { return asinh(x); }
__device__ __forceinline__ float c_atan(float x) { return atanf(x); }
__device__ __forceinline__ double c_atan(double x) { return atan(x); }
__device__ __forceinline__ float c_fabs(float x) { return fabsf(x); }
__device__ __forceinline__ double c_fabs(double x) { return fabs(x); }

template <typename C> struct part;
template <> struct part<c64> { typedef float T; };
template <> struct part<c128> { typedef double T; };
// The operators below exist for c64 and c128 only (their return types are defined for no
// other type, so other structs never see them).
template <typename C> struct cret;
template <> struct cret<c64> { typedef c64 type; typedef bool cmp; };
template <> struct cret<c128> { typedef c128 type; typedef bool cmp; };

// Arithmetic: each part rounded as NumPy's loops round it (no fused multiply-add: the module
// is compiled with --fmad=false).
template <typename C> __device__ __forceinline__ typename cret<C>::type operator+(C a, C b) { return C(a.re + b.re, a.im + b.im); }
template <typename C> __device__ __forceinline__ typename cret<C>::type operator-(C a, C b) { return C(a.re - b.re, a.im - b.im); }
template <typename C> __device__ __forceinline__ typename cret<C>::type operator-(C a) { return C(-a.re, -a.im); }
template <typename C> __device__ __forceinline__ typename cret<C>::type operator*(C a, C b) {
  return C(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
// NumPy's division (Smith's algorithm; 0 divisors give its infinities and NaN).
template <typename C> __device__ __forceinline__ typename cret<C>::type operator/(C a, C b) {
  typedef typename part<C>::T T;
  T br = c_fabs(b.re), bi = c_fabs(b.im);
  if (br >= bi) {
    if (br == 0 && bi == 0) return C(a.re / br, a.im / br);
    T rat = b.im / b.re;
    T scl = (T)1 / (b.re + b.im * rat);
    return C((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
  }
  T rat = b.re / b.im;
  T scl = (T)1 / (b.im + b.re * rat);
  return C((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
}
template <typename C> __device__ __forceinline__ typename cret<C>::cmp operator==(C a, C b) { return a.re == b.re && a.im == b.im; }
template <typename C> __device__ __forceinline__ typename cret<C>::cmp operator!=(C a, C b) { return a.re != b.re || a.im != b.im; }
// NumPy's order (CLT/CLE): lexicographic, and a NaN imaginary part makes the real parts'
// comparison false too.
template <typename C> __device__ __forceinline__ typename cret<C>::cmp operator<(C a, C b) {
  return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im < b.im);
}
template <typename C> __device__ __forceinline__ typename cret<C>::cmp operator<=(C a, C b) {
  return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im <= b.im);
}
template <typename C> __device__ __forceinline__ typename cret<C>::cmp operator>(C a, C b) { return b < a; }
template <typename C> __device__ __forceinline__ typename cret<C>::cmp operator>=(C a, C b) { return b <= a; }

template <typename C> __device__ __forceinline__ bool cnonzero(C a) { return a.re != 0 || a.im != 0; }
template <typename C> __device__ __forceinline__ bool cisnan(C a) { return a.re != a.re || a.im != a.im; }
template <typename C> __device__ __forceinline__ bool cisinf(C a) { return isinf(a.re) || isinf(a.im); }
template <typename C> __device__ __forceinline__ bool cisfinite(C a) { return isfinite(a.re) && isfinite(a.im); }
template <typename C> __device__ __forceinline__ typename part<C>::T cabs_(C a) { return c_hypot(a.re, a.im); }
template <typename C> __device__ __forceinline__ C cconj(C a) { return C(a.re, -a.im); }
template <typename C> __device__ __forceinline__ C crint(C a) { return C(c_rint(a.re), c_rint(a.im)); }

// NumPy's maximum/minimum propagate a NaN (the first operand's), fmax/fmin avoid one.
template <typename C> __device__ __forceinline__ C cmaximum(C a, C b) {
  return (cisnan(a) || (!(a < b) && !cisnan(b))) ? a : b;
}
template <typename C> __device__ __forceinline__ C cminimum(C a, C b) {
  return (cisnan(a) || (!(b < a) && !cisnan(b))) ? a : b;
}
template <typename C> __device__ __forceinline__ C cfmax(C a, C b) {
  return (cisnan(b) || (!cisnan(a) && !(a < b))) ? a : b;
}
template <typename C> __device__ __forceinline__ C cfmin(C a, C b) {
  return (cisnan(b) || (!cisnan(a) && !(b < a))) ? a : b;
}

// NumPy 2's sign (npy_csign): z / |z|, with |z|'s NaN and infinity cases first.
template <typename C> __device__ __forceinline__ C csign(C z) {
  typedef typename part<C>::T T;
  T a = c_hypot(z.re, z.im);
  if (a != a) return C(c_nan<T>(), c_nan<T>());
  if (isinf(a)) {
    if (isinf(z.re)) {
      if (isinf(z.im)) return C(c_nan<T>(), c_nan<T>());
      return C(z.re > 0 ? (T)1 : (T)-1, (T)0);
    }
    return C((T)0, z.im > 0 ? (T)1 : (T)-1);
  }
  if (a == 0) return C(0, 0);
  return C(z.re / a, z.im / a);
}
// NumPy's reciprocal loop (1/0 is NaN).
template <typename C> __device__ __forceinline__ C crecip(C z) {
  typedef typename part<C>::T T;
  if (c_fabs(z.im) <= c_fabs(z.re)) {
    T r = z.im / z.re;
    T d = z.re + z.im * r;
    return C((T)1 / d, -r / d);
  }
  T r = z.re / z.im;
  T d = z.re * r + z.im;
  return C(r / d, (T)-1 / d);
}

template <typename C> __device__ C cexp_(C z) {
  typedef typename part<C>::T T;
  if (z.im == 0) return C(c_exp(z.re), z.im);
  if (isinf(z.re) && z.re < 0 && !isfinite(z.im)) return C(0, 0);
  if (isinf(z.re) && z.re > 0 && !isfinite(z.im)) return C(z.re, c_nan<T>());
  T e = c_exp(z.re);
  return C(e * c_cos(z.im), e * c_sin(z.im));
}
template <typename C> __device__ C clog_(C z) {
  return C(c_log(c_hypot(z.re, z.im)), c_atan2(z.im, z.re));
}
template <typename C> __device__ C csqrt_(C z) {
  typedef typename part<C>::T T;
  if (z.re == 0 && z.im == 0) return C(0, z.im);
  if (isinf(z.im)) return C(c_inf<T>(), z.im);
  if (z.re != z.re) return C(z.re, c_nan<T>());
  if (isinf(z.re)) {
    if (z.re > 0) return C(z.re, z.im != z.im ? z.im : c_copysign((T)0, z.im));
    return C(z.im != z.im ? z.im : (T)0, c_copysign(c_inf<T>(), z.im));
  }
  // Scaled so that the hypotenuse cannot overflow.
  T t = c_sqrt((c_fabs(z.re) + c_hypot(z.re, z.im)) * (T)0.5);
  if (z.re >= 0) return C(t, z.im / (2 * t));
  return C(c_fabs(z.im) / (2 * t), c_copysign(t, z.im));
}
template <typename C> __device__ C csinh_(C z) {
  // On the real axis exactly sinh (C99: csinh(+inf + i0) = +inf + i0).
  if (z.im == 0) return C(c_sinh(z.re), z.im);
  return C(c_sinh(z.re) * c_cos(z.im), c_cosh(z.re) * c_sin(z.im));
}
template <typename C> __device__ C ccosh_(C z) {
  // On the real axis cosh, with the imaginary zero's sign as sinh(x) * y's.
  if (z.im == 0) return C(c_cosh(z.re), z.re < 0 ? -z.im : (z.re == 0 ? z.re * z.im : z.im));
  return C(c_cosh(z.re) * c_cos(z.im), c_sinh(z.re) * c_sin(z.im));
}
// Kahan's tanh, stable for large real parts.
template <typename C> __device__ C ctanh_(C z) {
  typedef typename part<C>::T T;
  if (c_fabs(z.re) > (T)22) {
    T e = c_exp(-2 * c_fabs(z.re));
    return C(c_copysign((T)1, z.re), 4 * c_sin(z.im) * c_cos(z.im) * e);
  }
  if (z.im == 0) return C(c_tanh(z.re), z.im);
  T t = c_tan(z.im);
  T beta = 1 + t * t;
  T s = c_sinh(z.re);
  T rho = c_sqrt(1 + s * s);
  T den = 1 + beta * s * s;
  return C(beta * rho * s / den, t / den);
}
template <typename C> __device__ C csin_(C z) {  // -i sinh(i z)
  C w = csinh_(C(-z.im, z.re));
  return C(w.im, -w.re);
}
template <typename C> __device__ C ccos_(C z) {  // cosh(i z)
  return ccosh_(C(-z.im, z.re));
}
template <typename C> __device__ C ctan_(C z) {  // -i tanh(i z)
  C w = ctanh_(C(-z.im, z.re));
  return C(w.im, -w.re);
}
// Kahan's formulas ("Branch cuts for complex elementary functions"): exact signed zeros on
// the cuts (1 - z is (1 - x, -y), so the sign of a zero y carries through), with C99's values
// at infinity.
template <typename C> __device__ C casin_(C z) {
  typedef typename part<C>::T T;
  if (isinf(z.re) || isinf(z.im)) {
    // asin(z) = -i asinh(i z); asinh of an infinite argument (C99 Annex G).
    T wr = -z.im, wi = z.re;  // w = i z
    T ar, ai;
    if (isinf(wr)) {
      ar = wr;
      ai = (wi != wi) ? wi : (isinf(wi) ? c_copysign((T)0.7853981633974483, wi) : c_copysign((T)0, wi));
    } else if (isinf(wi)) {
      ar = (wr != wr) ? c_inf<T>() : c_copysign(c_inf<T>(), wr);
      ai = (wr != wr) ? c_nan<T>() : c_copysign((T)1.5707963267948966, wi);
    } else {
      ar = c_nan<T>();
      ai = c_nan<T>();
    }
    return C(ai, -ar);
  }
  C s1 = csqrt_(C(1 - z.re, -z.im));
  C s2 = csqrt_(C(1 + z.re, z.im));
  return C(c_atan2(z.re, s1.re * s2.re - s1.im * s2.im), c_asinh(s1.re * s2.im - s1.im * s2.re));
}
template <typename C> __device__ C cacos_(C z) {
  typedef typename part<C>::T T;
  if (isinf(z.re) || isinf(z.im)) {
    const T pi = (T)3.141592653589793, h = (T)1.5707963267948966, q = (T)0.7853981633974483;
    T re, im = -c_copysign(c_inf<T>(), z.im);
    if (z.re != z.re || z.im != z.im) {
      // NaN with an infinity: NaN -/+ i inf (an infinite real part: NaN +- i inf).
      if (isinf(z.re)) return C(c_nan<T>(), (z.im != z.im) ? c_inf<T>() : im);
      return C(c_nan<T>(), -c_inf<T>());
    }
    if (isinf(z.re) && isinf(z.im)) re = z.re > 0 ? q : 3 * q;
    else if (isinf(z.re)) re = z.re > 0 ? (T)0 : pi;
    else re = h;
    return C(re, im);
  }
  C s1 = csqrt_(C(1 - z.re, -z.im));
  C s2 = csqrt_(C(1 + z.re, z.im));
  return C(2 * c_atan2(s1.re, s2.re), c_asinh(s2.re * s1.im - s2.im * s1.re));
}
// atanh for finite z: (1/4) log1p(4x / ((1 - x)^2 + y^2)) + i (1/2) atan2(2y, (1 - x)(1 + x) - y^2);
// an infinite part gives (+-0, +-pi/2) as C99 says.
template <typename C> __device__ C catanh_(C z) {
  typedef typename part<C>::T T;
  if (isinf(z.re) || isinf(z.im)) {
    if (z.im != z.im) return C(c_copysign((T)0, z.re), z.im);
    return C(isinf(z.re) || z.re == z.re ? c_copysign((T)0, z.re) : z.re, c_copysign((T)1.5707963267948966, z.im));
  }
  T x = z.re, y = z.im;
  if (x == 1 && y == 0) return C(c_inf<T>(), y);
  T re = (T)0.25 * c_log1p(4 * x / ((1 - x) * (1 - x) + y * y));
  T im = (T)0.5 * c_atan2(2 * y, (1 - x) * (1 + x) - y * y);
  return C(re, im);
}
template <typename C> __device__ C catan_(C z) {  // -i atanh(i z)
  C w = catanh_(C(-z.im, z.re));
  return C(w.im, -w.re);
}
template <typename C> __device__ C cexp2_(C z) {
  typedef typename part<C>::T T;
  const T ln2 = (T)0.6931471805599453;
  return cexp_(C(z.re * ln2, z.im * ln2));
}
template <typename C> __device__ C cexpm1_(C z) {
  typedef typename part<C>::T T;
  T a = c_sin(z.im / 2);
  return C(c_expm1(z.re) * c_cos(z.im) - 2 * a * a, c_exp(z.re) * c_sin(z.im));
}
template <typename C> __device__ C clog2_(C z) {
  typedef typename part<C>::T T;
  C l = clog_(z);
  const T k = (T)1.4426950408889634;
  return C(l.re * k, l.im * k);
}
template <typename C> __device__ C clog10_(C z) {
  typedef typename part<C>::T T;
  C l = clog_(z);
  const T k = (T)0.4342944819032518;
  return C(l.re * k, l.im * k);
}
template <typename C> __device__ C clog1p_(C z) {
  typedef typename part<C>::T T;
  T l = c_hypot(z.re + 1, z.im);
  return C(c_log(l), c_atan2(z.im, z.re + 1));
}
// NumPy's npy_cpow: 1 for a zero exponent, 0 or NaN for a zero base, repeated multiplication
// for integer exponents below 100 in magnitude, else exp(b log a).
template <typename C> __device__ C cpow_(C a, C b) {
  typedef typename part<C>::T T;
  if (b.re == 0 && b.im == 0) return C(1, 0);
  if (a.re == 0 && a.im == 0) return b.re > 0 ? C(0, 0) : C(c_nan<T>(), c_nan<T>());
  if (b.im == 0 && b.re == (T)(long long)b.re && c_fabs(b.re) < 100) {
    long long n = (long long)b.re;
    if (n == 1) return a;
    if (n == 2) return a * a;
    if (n == 3) return a * (a * a);
    unsigned long long m = n < 0 ? -n : n, mask = 1;
    C acc(1, 0), p = a;
    while (true) {
      if (m & mask) acc = acc * p;
      mask <<= 1;
      if (m < mask) break;
      p = p * p;
    }
    return n < 0 ? C(1, 0) / acc : acc;
  }
  C l = clog_(a);
  return cexp_(b * l);
}
