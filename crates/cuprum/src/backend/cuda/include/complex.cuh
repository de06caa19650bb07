// complex64 (c64) and complex128 (c128) for kernels: NVRTC has no cuComplex.h or
// thrust::complex without the toolkit's headers, so cuprum has its own. The arithmetic is
// NumPy's (its multiply's rounding, Smith's division, its integer powers), comparisons are
// NumPy's lexicographic order, and the functions follow C99's formulas with the special cases
// of its Annex G where NumPy's fixtures look (zeros, infinities, NaN).
#pragma once
#include "cuprum/prelude.cuh"

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
template <typename C> __device__ __forceinline__ typename cret<C>::type operator-(C a) { return C(cuprum_neg(a.re), cuprum_neg(a.im)); }
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
template <typename C> __device__ __forceinline__ C cconj(C a) { return C(a.re, cuprum_neg(a.im)); }
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
  if (isinf(z.re) && z.re < 0 && !isfinite(z.im)) return C(0, c_copysign((T)0, z.im));
  if (isinf(z.re) && z.re > 0 && !isfinite(z.im)) return C(z.re, c_nan<T>());
  T c = c_cos(z.im), s = c_sin(z.im), x = z.re;
  // Scaled as glibc's cexp, so that e^x overflowing alone does not make a finite part infinite.
  const T t = sizeof(T) == 4 ? (T)88 : (T)709;
  if (x > t) {
    const T et = c_exp(t);
    for (int k = 0; k < 2 && x > t; ++k) {
      x -= t;
      c *= et;
      s *= et;
    }
    if (x > t) {
      const T big = sizeof(T) == 4 ? (T)3.40282347e+38f : (T)1.7976931348623157e308;
      return C(big * c, big * s);
    }
  }
  T e = c_exp(x);
  return C(e * c, e * s);
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
// (e^|x| / 2) (cos y, sin y) for |x| beyond the overflow threshold of cosh, scaled so that a
// finite result stays finite (glibc's csinh/ccosh).
template <typename T> __device__ void c_big_cis(T ax, T& c, T& s) {
  const T t = sizeof(T) == 4 ? (T)88 : (T)709;  // below log(max), e^t finite
  const T et = c_exp(t);
  ax -= t;
  c *= et / 2;
  s *= et / 2;
  if (ax > t) {
    ax -= t;
    c *= et;
    s *= et;
  }
  const T big = sizeof(T) == 4 ? (T)3.40282347e+38f : (T)1.7976931348623157e308;
  if (ax > t) {
    c *= big;
    s *= big;
  } else {
    const T e = c_exp(ax);
    c *= e;
    s *= e;
  }
}
// csinh and ccosh with C99 Annex G's special cases, as glibc (NumPy's loops call it).
template <typename C> __device__ C csinh_(C z) {
  typedef typename part<C>::T T;
  const T x = z.re, y = z.im;
  const bool neg = signbit(x);
  if (isfinite(x)) {
    if (isfinite(y)) {
      T s = y, c = 1;
      if (y != 0) {
        s = c_sin(y);
        c = c_cos(y);
      }
      const T t = sizeof(T) == 4 ? (T)88 : (T)709;
      if (c_fabs(x) > t) {
        c_big_cis(c_fabs(x), c, s);
        return C(neg ? -c : c, s);
      }
      return C(c_sinh(x) * c, c_cosh(x) * s);
    }
    if (x == 0) return C(x, y - y);
    return C(c_nan<T>(), c_nan<T>());
  }
  if (isinf(x)) {
    if (isfinite(y) && y != 0) {
      const T r = c_copysign(c_inf<T>(), c_cos(y));
      return C(neg ? -r : r, c_copysign(c_inf<T>(), c_sin(y)));
    }
    if (y == 0) return C(x, y);
    return C(c_inf<T>(), y - y);
  }
  return C(c_nan<T>(), y == 0 ? y : c_nan<T>());
}
template <typename C> __device__ C ccosh_(C z) {
  typedef typename part<C>::T T;
  const T x = z.re, y = z.im;
  if (isfinite(x)) {
    if (isfinite(y)) {
      T s = y, c = 1;
      if (y != 0) {
        s = c_sin(y);
        c = c_cos(y);
      }
      const T t = sizeof(T) == 4 ? (T)88 : (T)709;
      if (c_fabs(x) > t) {
        c_big_cis(c_fabs(x), c, s);
        return C(c, signbit(x) ? -s : s);
      }
      return C(c_cosh(x) * c, c_sinh(x) * s);
    }
    return C(y - y, x == 0 ? (T)0 : c_nan<T>());
  }
  if (isinf(x)) {
    if (isfinite(y) && y != 0) {
      return C(c_copysign(c_inf<T>(), c_cos(y)), c_copysign(c_inf<T>(), c_sin(y)) * c_copysign((T)1, x));
    }
    if (y == 0) return C(c_inf<T>(), y * c_copysign((T)1, x));
    return C(c_inf<T>(), y - y);
  }
  return C(c_nan<T>(), y == 0 ? y : c_nan<T>());
}
// tanh(x + iy) = (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y), with glibc's special
// cases and its scaling for large |x| (NumPy's loops call glibc's ctanh).
template <typename C> __device__ C ctanh_(C z) {
  typedef typename part<C>::T T;
  const T x = z.re, y = z.im;
  if (!isfinite(x) || !isfinite(y)) {
    if (isinf(x)) {
      T im = c_copysign((T)0, y);
      if (isfinite(y) && c_fabs(y) > 1) im = c_copysign((T)0, c_sin(y) * c_cos(y));
      return C(c_copysign((T)1, x), im);
    }
    if (y == 0) return z;
    return C(x == 0 ? x : c_nan<T>(), c_nan<T>());
  }
  const T tiny = sizeof(T) == 4 ? (T)1.17549435e-38f : (T)2.2250738585072014e-308;
  const T eps = sizeof(T) == 4 ? (T)1.1920929e-07f : (T)2.220446049250313e-16;
  const int t = sizeof(T) == 4 ? 44 : 354;  // log(max) / 2
  T s = y, c = 1;
  if (c_fabs(y) > tiny) {
    s = c_sin(y);
    c = c_cos(y);
  }
  if (c_fabs(x) > (T)t) {
    const T e2t = c_exp((T)(2 * t));
    T im = 4 * s * c / e2t;
    const T ax = c_fabs(x) - (T)t;
    im = ax > (T)t ? im / e2t : im / c_exp(2 * ax);
    return C(c_copysign((T)1, x), im);
  }
  T sh = x, ch = 1;
  if (c_fabs(x) > tiny) {
    sh = c_sinh(x);
    ch = c_cosh(x);
  }
  const T den = c_fabs(sh) > c_fabs(c) * eps ? sh * sh + c * c : c * c;
  return C(sh * ch / den, s * c / den);
}
template <typename C> __device__ C csin_(C z) {  // -i sinh(i z)
  typedef typename part<C>::T T;
  // glibc's choice where C99 leaves the sign of the infinite imaginary part unspecified.
  if (!isfinite(z.re) && isinf(z.im)) return C(z.re - z.re, c_inf<T>());
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
  if ((isinf(z.re) || isinf(z.im)) && (z.re != z.re || z.im != z.im)) return C(c_nan<T>(), c_copysign(c_inf<T>(), z.im));
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
  if (z.re != z.re || z.im != z.im) return C(z.re == 0 ? z.re : c_nan<T>(), c_nan<T>());
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
      // NaN with an infinity: NaN -/+ i inf (glibc: pi/2 - i asinh(-y + i x)).
      return C(c_nan<T>(), -c_copysign(c_inf<T>(), z.im));
    }
    if (isinf(z.re) && isinf(z.im)) re = z.re > 0 ? q : 3 * q;
    else if (isinf(z.re)) re = z.re > 0 ? (T)0 : pi;
    else re = h;
    return C(re, im);
  }
  if (z.re != z.re || z.im != z.im) return C(z.re == 0 ? (T)1.5707963267948966 : c_nan<T>(), c_nan<T>());
  C s1 = csqrt_(C(1 - z.re, -z.im));
  C s2 = csqrt_(C(1 + z.re, z.im));
  return C(2 * c_atan2(s1.re, s2.re), c_asinh(s2.re * s1.im - s2.im * s1.re));
}
// atanh for finite z: (1/4) log1p(4x / ((1 - x)^2 + y^2)) + i (1/2) atan2(2y, (1 - x)(1 + x) - y^2),
// with glibc's branches for huge arguments and for x = +-1 with a tiny y, and C99's values for
// infinities and NaN.
template <typename C> __device__ C catanh_(C z) {
  typedef typename part<C>::T T;
  const T x = z.re, y = z.im;
  const T h = (T)1.5707963267948966;
  if (!isfinite(x) || !isfinite(y)) {
    if (isinf(y)) return C(c_copysign((T)0, x), c_copysign(h, y));
    if (isinf(x) || x == 0) return C(c_copysign((T)0, x), y == y ? c_copysign(h, y) : c_nan<T>());
    return C(c_nan<T>(), c_nan<T>());
  }
  if (x == 0 && y == 0) return z;
  const T eps = sizeof(T) == 4 ? (T)1.1920929e-07f : (T)2.220446049250313e-16;
  if (c_fabs(x) >= 16 / eps || c_fabs(y) >= 16 / eps) {
    T re;
    if (c_fabs(y) <= 1) {
      re = 1 / x;
    } else if (c_fabs(x) <= 1) {
      re = x / y / y;
    } else {
      const T hh = c_hypot(x / 2, y / 2);
      re = x / hh / hh / 4;
    }
    return C(re, c_copysign(h, y));
  }
  if (x == 1 && y == 0) return C(c_inf<T>(), y);
  if (x == -1 && y == 0) return C(-c_inf<T>(), y);
  T re;
  if (c_fabs(x) == 1 && c_fabs(y) < eps * eps) {
    re = c_copysign((T)0.5, x) * ((T)0.6931471805599453 - c_log(c_fabs(y)));
  } else {
    const T y2 = c_fabs(y) >= eps * eps ? y * y : (T)0;
    const T num = (1 + x) * (1 + x) + y2;
    const T den = (1 - x) * (1 - x) + y2;
    const T f = num / den;
    re = f < (T)0.5 ? (T)0.25 * c_log(f) : (T)0.25 * c_log1p(4 * x / den);
  }
  T ax = c_fabs(x), ay = c_fabs(y);
  if (ax < ay) {
    const T tmp = ax;
    ax = ay;
    ay = tmp;
  }
  T den = ay < eps / 2 ? (1 - ax) * (1 + ax) : (1 - ax) * (1 + ax) - ay * ay;
  if (den == 0) den = 0;
  return C(re, (T)0.5 * c_atan2(2 * y, den));
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
// C99's complex multiplication (Annex G, as libgcc's __muldc3): the plain product, and where
// both parts come out NaN, the infinities that an infinite factor implies.
template <typename C> __device__ C cmul_c99(C x, C y) {
  typedef typename part<C>::T T;
  T a = x.re, b = x.im, c = y.re, d = y.im;
  const T ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  const T re = ac - bd, im = ad + bc;
  if (!(re != re && im != im)) return C(re, im);
  bool recalc = false;
  if (isinf(a) || isinf(b)) {
    a = c_copysign(isinf(a) ? (T)1 : (T)0, a);
    b = c_copysign(isinf(b) ? (T)1 : (T)0, b);
    if (c != c) c = c_copysign((T)0, c);
    if (d != d) d = c_copysign((T)0, d);
    recalc = true;
  }
  if (isinf(c) || isinf(d)) {
    c = c_copysign(isinf(c) ? (T)1 : (T)0, c);
    d = c_copysign(isinf(d) ? (T)1 : (T)0, d);
    if (a != a) a = c_copysign((T)0, a);
    if (b != b) b = c_copysign((T)0, b);
    recalc = true;
  }
  if (!recalc && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {
    if (a != a) a = c_copysign((T)0, a);
    if (b != b) b = c_copysign((T)0, b);
    if (c != c) c = c_copysign((T)0, c);
    if (d != d) d = c_copysign((T)0, d);
    recalc = true;
  }
  if (!recalc) return C(re, im);
  return C(c_inf<T>() * (a * c - b * d), c_inf<T>() * (a * d + b * c));
}
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
  return cexp_(cmul_c99(b, clog_(a)));
}
