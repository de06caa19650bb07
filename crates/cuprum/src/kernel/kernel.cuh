// The helpers that translated Rust calls (crates/cuprum-macros/src/translate.rs): Rust's
// semantics for every scalar type, chosen by overloading so that NVRTC infers the types rustc
// inferred. Integer arithmetic wraps (signed operations go through the unsigned type: C's
// signed overflow is undefined), integer division and remainder by zero give 0 (NumPy's
// result; Rust would panic), shifts mask their count, `as` saturates floats into integers (NaN
// to 0). Unsuffixed literals are FLit/ILit: an operation with a typed operand takes its type.
// Compiled with --fmad=false, so that a * b + c rounds twice, as in Rust.
#pragma once

// A variable declared from a literal (`let mut s = 0.0;`) has the literal's type in C++;
// later assignments of typed values store them exactly (a float or an int in the wider
// double or 64-bit word), and operations with typed operands still take their type.
struct FLit {
  double v;
  __device__ explicit FLit(double x) : v(x) {}
  __device__ operator float() const { return (float)v; }
  __device__ operator double() const { return v; }
  __device__ FLit& operator=(double x) { v = x; return *this; }
  __device__ FLit& operator=(float x) { v = x; return *this; }
};
struct ILit {
  unsigned long long v;
  __device__ explicit ILit(unsigned long long x) : v(x) {}
  template <class T> __device__ operator T() const { return (T)v; }
  template <class T> __device__ ILit& operator=(T x) { v = (unsigned long long)(long long)x; return *this; }
  __device__ ILit& operator=(const ILit& x) { v = x.v; return *this; }
};

// The type Rust gives a binary operation's operands: the typed one's.
template <class A, class B> struct Common { typedef A T; };
template <class B> struct Common<FLit, B> { typedef B T; };
template <class A> struct Common<A, FLit> { typedef A T; };
template <> struct Common<FLit, FLit> { typedef FLit T; };
template <class B> struct Common<ILit, B> { typedef B T; };
template <class A> struct Common<A, ILit> { typedef A T; };
template <> struct Common<ILit, ILit> { typedef ILit T; };

template <class T> struct Unsigned { typedef T U; };
template <> struct Unsigned<signed char> { typedef unsigned char U; };
template <> struct Unsigned<short> { typedef unsigned short U; };
template <> struct Unsigned<int> { typedef unsigned int U; };
template <> struct Unsigned<long long> { typedef unsigned long long U; };

template <class T> struct Ops {
  // Integers: wrapping through the unsigned type (narrow types promote to int, then truncate).
  typedef typename Unsigned<T>::U U;
  static __device__ __forceinline__ T add(T a, T b) { return (T)(U)((U)a + (U)b); }
  static __device__ __forceinline__ T sub(T a, T b) { return (T)(U)((U)a - (U)b); }
  static __device__ __forceinline__ T mul(T a, T b) { return (T)(U)((U)a * (U)b); }
  static __device__ __forceinline__ T div(T a, T b) {
    if (b == 0) return 0;
    if ((T)-1 < 0 && b == (T)-1) return sub(0, a);  // MIN / -1 wraps to MIN
    return (T)(a / b);
  }
  static __device__ __forceinline__ T rem(T a, T b) {
    if (b == 0 || ((T)-1 < 0 && b == (T)-1)) return 0;
    return (T)(a % b);
  }
  static __device__ __forceinline__ T neg(T a) { return sub(0, a); }
};
__device__ __forceinline__ float rt_fmod(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double rt_fmod(double a, double b) { return fmod(a, b); }
// Floats: IEEE arithmetic; `%` is C's fmod, as Rust's.
template <class F> struct FloatOps {
  static __device__ __forceinline__ F add(F a, F b) { return a + b; }
  static __device__ __forceinline__ F sub(F a, F b) { return a - b; }
  static __device__ __forceinline__ F mul(F a, F b) { return a * b; }
  static __device__ __forceinline__ F div(F a, F b) { return a / b; }
  static __device__ __forceinline__ F rem(F a, F b) { return rt_fmod(a, b); }
  static __device__ __forceinline__ F neg(F a) { return -a; }
};
template <> struct Ops<float> : FloatOps<float> {};
template <> struct Ops<double> : FloatOps<double> {};
template <> struct Ops<FLit> {
  static __device__ __forceinline__ FLit add(FLit a, FLit b) { return FLit(a.v + b.v); }
  static __device__ __forceinline__ FLit sub(FLit a, FLit b) { return FLit(a.v - b.v); }
  static __device__ __forceinline__ FLit mul(FLit a, FLit b) { return FLit(a.v * b.v); }
  static __device__ __forceinline__ FLit div(FLit a, FLit b) { return FLit(a.v / b.v); }
  static __device__ __forceinline__ FLit rem(FLit a, FLit b) { return FLit(fmod(a.v, b.v)); }
  static __device__ __forceinline__ FLit neg(FLit a) { return FLit(-a.v); }
};
template <> struct Ops<ILit> {
  static __device__ __forceinline__ ILit add(ILit a, ILit b) { return ILit(a.v + b.v); }
  static __device__ __forceinline__ ILit sub(ILit a, ILit b) { return ILit(a.v - b.v); }
  static __device__ __forceinline__ ILit mul(ILit a, ILit b) { return ILit(a.v * b.v); }
  static __device__ __forceinline__ ILit div(ILit a, ILit b) {
    return ILit(b.v == 0 ? 0ull : (unsigned long long)((long long)a.v / (long long)b.v));
  }
  static __device__ __forceinline__ ILit rem(ILit a, ILit b) {
    return ILit(b.v == 0 ? 0ull : (unsigned long long)((long long)a.v % (long long)b.v));
  }
  static __device__ __forceinline__ ILit neg(ILit a) { return ILit(0ull - a.v); }
};

#define RT_BIN(name)                                                                   \
  template <class A, class B>                                                          \
  __device__ __forceinline__ typename Common<A, B>::T rt_##name(A a, B b) {            \
    typedef typename Common<A, B>::T T;                                                \
    return Ops<T>::name((T)a, (T)b);                                                   \
  }
RT_BIN(add)
RT_BIN(sub)
RT_BIN(mul)
RT_BIN(div)
RT_BIN(rem)
// Division and remainder by a divisor known to be at least 1 (a `for` index over a range
// starting at 1 or more): C's operators, which then agree with Rust's, without the checks.
// A dividend of at least 0 takes the unsigned operation (shorter on the GPU: no sign fix-ups);
// where the dividend does not change in a loop, the compiler tests its sign once, outside it.
template <class T> struct PosOps {
  typedef typename Unsigned<T>::U U;
  static __device__ __forceinline__ T div(T a, T b) { return a >= 0 ? (T)((U)a / (U)b) : (T)(a / b); }
  static __device__ __forceinline__ T rem(T a, T b) { return a >= 0 ? (T)((U)a % (U)b) : (T)(a % b); }
};
template <> struct PosOps<ILit> : Ops<ILit> {};
template <class A, class B> __device__ __forceinline__ typename Common<A, B>::T rt_div_pos(A a, B b) {
  typedef typename Common<A, B>::T T;
  return PosOps<T>::div((T)a, (T)b);
}
template <class A, class B> __device__ __forceinline__ typename Common<A, B>::T rt_rem_pos(A a, B b) {
  typedef typename Common<A, B>::T T;
  return PosOps<T>::rem((T)a, (T)b);
}
template <class A> __device__ __forceinline__ A rt_neg(A a) { return Ops<A>::neg(a); }
template <class A, class B> __device__ __forceinline__ typename Common<A, B>::T rt_wrapping_add(A a, B b) { return rt_add(a, b); }
template <class A, class B> __device__ __forceinline__ typename Common<A, B>::T rt_wrapping_sub(A a, B b) { return rt_sub(a, b); }
template <class A, class B> __device__ __forceinline__ typename Common<A, B>::T rt_wrapping_mul(A a, B b) { return rt_mul(a, b); }

// Bitwise operations (integers and bool) and shifts (the count masked to the type's width).
#define RT_BIT(name, op)                                                               \
  template <class A, class B>                                                          \
  __device__ __forceinline__ typename Common<A, B>::T rt_##name(A a, B b) {            \
    typedef typename Common<A, B>::T T;                                                \
    return (T)((T)a op (T)b);                                                          \
  }
RT_BIT(and, &)
RT_BIT(or, |)
RT_BIT(xor, ^)
__device__ __forceinline__ ILit rt_and(ILit a, ILit b) { return ILit(a.v & b.v); }
__device__ __forceinline__ ILit rt_or(ILit a, ILit b) { return ILit(a.v | b.v); }
__device__ __forceinline__ ILit rt_xor(ILit a, ILit b) { return ILit(a.v ^ b.v); }
template <class A, class B> __device__ __forceinline__ A rt_shl(A a, B b) {
  typedef typename Unsigned<A>::U U;
  return (A)(U)((U)a << ((unsigned)(unsigned long long)b & (8 * sizeof(A) - 1)));
}
// An arithmetic right shift spelled without shifting a negative value (`~(~a >> n)`): in the
// elementwise kernels NVRTC compiled `(0 - a) >> 1` as `-(a >> 1)` (a GPU run's int_ops).
template <class A, class B> __device__ __forceinline__ A rt_shr(A a, B b) {
  const unsigned n = (unsigned)(unsigned long long)b & (8 * sizeof(A) - 1);
  typedef typename Unsigned<A>::U U;
  if ((A)-1 > 0 || !(a < 0)) return (A)((U)a >> n);
  return (A)(U) ~((U) ~(U)a >> n);
}
template <class B> __device__ __forceinline__ ILit rt_shl(ILit a, B b) { return ILit(a.v << ((unsigned)(unsigned long long)b & 63)); }
template <class B> __device__ __forceinline__ ILit rt_shr(ILit a, B b) { return ILit((unsigned long long)((long long)a.v >> ((unsigned)(unsigned long long)b & 63))); }
__device__ __forceinline__ bool rt_not(bool a) { return !a; }
template <class A> __device__ __forceinline__ A rt_not(A a) { return (A)~a; }
__device__ __forceinline__ ILit rt_not(ILit a) { return ILit(~a.v); }

// Comparisons in the operands' common type.
template <class A, class B> __device__ __forceinline__ bool rt_eq(A a, B b) {
  typedef typename Common<A, B>::T T;
  return (T)a == (T)b;
}
template <class A, class B> __device__ __forceinline__ bool rt_lt(A a, B b) {
  typedef typename Common<A, B>::T T;
  return (T)a < (T)b;
}
template <class A, class B> __device__ __forceinline__ bool rt_le(A a, B b) {
  typedef typename Common<A, B>::T T;
  return (T)a <= (T)b;
}
__device__ __forceinline__ bool rt_eq(FLit a, FLit b) { return a.v == b.v; }
__device__ __forceinline__ bool rt_lt(FLit a, FLit b) { return a.v < b.v; }
__device__ __forceinline__ bool rt_le(FLit a, FLit b) { return a.v <= b.v; }
__device__ __forceinline__ bool rt_eq(ILit a, ILit b) { return a.v == b.v; }
__device__ __forceinline__ bool rt_lt(ILit a, ILit b) { return (long long)a.v < (long long)b.v; }
__device__ __forceinline__ bool rt_le(ILit a, ILit b) { return (long long)a.v <= (long long)b.v; }

// `as`: a float into an integer saturates (NaN gives 0); everything else converts as C does.
template <class T> struct IsInt { static const bool v = true; };
template <> struct IsInt<float> { static const bool v = false; };
template <> struct IsInt<double> { static const bool v = false; };
template <> struct IsInt<bool> { static const bool v = false; };
template <class T> struct Lim;
#define RT_LIM(T, lo, hi) template <> struct Lim<T> { static __device__ T min() { return lo; } static __device__ T max() { return hi; } };
RT_LIM(signed char, -128, 127)
RT_LIM(short, -32768, 32767)
RT_LIM(int, (-2147483647 - 1), 2147483647)
RT_LIM(long long, (-9223372036854775807ll - 1), 9223372036854775807ll)
RT_LIM(unsigned char, 0, 255)
RT_LIM(unsigned short, 0, 65535)
RT_LIM(unsigned int, 0u, 4294967295u)
RT_LIM(unsigned long long, 0ull, 18446744073709551615ull)
template <class T, class F> __device__ __forceinline__ T rt_sat(F x) {
  if (x != x) return 0;
  if (x <= (F)Lim<T>::min()) return Lim<T>::min();
  if (x >= (F)Lim<T>::max()) return Lim<T>::max();
  return (T)x;
}
template <class T, bool I> struct Cast {
  template <class X> static __device__ __forceinline__ T of(X x) { return (T)x; }
  static __device__ __forceinline__ T of(FLit x) { return (T)x.v; }
  // An integer literal is signed (`-1 as f32` is -1).
  static __device__ __forceinline__ T of(ILit x) { return (T)(long long)x.v; }
};
template <class T> struct Cast<T, true> {
  template <class X> static __device__ __forceinline__ T of(X x) { return (T)x; }
  static __device__ __forceinline__ T of(float x) { return rt_sat<T>(x); }
  static __device__ __forceinline__ T of(double x) { return rt_sat<T>(x); }
  static __device__ __forceinline__ T of(FLit x) { return rt_sat<T>(x.v); }
  static __device__ __forceinline__ T of(ILit x) { return (T)x.v; }
};
template <class T, class X> __device__ __forceinline__ T rt_cast(X x) { return Cast<T, IsInt<T>::v>::of(x); }

// `if` as a value: only the taken branch runs.
template <class F, class G>
__device__ __forceinline__ auto rt_if(bool c, F f, G g) -> typename Common<decltype(f()), decltype(g())>::T {
  typedef typename Common<decltype(f()), decltype(g())>::T T;
  return c ? (T)f() : (T)g();
}

// Ranges: both ends in one type; the step in the index's type.
template <class A, class B> __device__ __forceinline__ typename Common<A, B>::T rt_range_lo(A a, B b) {
  return (typename Common<A, B>::T)a;
}
template <class A, class B> __device__ __forceinline__ typename Common<A, B>::T rt_range_hi(A a, B b) {
  return (typename Common<A, B>::T)b;
}
// Both ends unsuffixed literals: a 64-bit signed index (rustc's would be i32 unless the body
// says otherwise; the two differ only past i32's range).
__device__ __forceinline__ long long rt_range_lo(ILit a, ILit) { return (long long)a.v; }
__device__ __forceinline__ long long rt_range_hi(ILit, ILit b) { return (long long)b.v; }
template <class T, class K> __device__ __forceinline__ T rt_range_step(T, K k) { return (T)k; }

// The float methods (f32 and f64), and the integer ones. The f32 transcendental functions are
// evaluated in double and rounded once (CUDA's own float versions are off by up to 2-4 ulp;
// glibc's, which Rust's f32 methods call on the CPU, are within an ulp): the two devices then
// agree to an ulp, as the lessons' tolerances expect. `exp`, `sin` and `cos`, the lessons'
// own, are ours: a reduction exact to about 1e-16 and a short polynomial (Chebyshev fits,
// relative error 2e-14 or less) in double, half the FP64 instructions of CUDA's double
// functions (polar_distance_1M_f32: 2.0 M -> 1.0 M, bench/RESULTS.md); the others are CUDA's
// double functions.
#define RT_F1(name, ff, fd)                                                         \
  __device__ __forceinline__ float rt_##name(float x) { return ff(x); }             \
  __device__ __forceinline__ double rt_##name(double x) { return fd(x); }
#define RT_F1D(name, fd)                                                            \
  __device__ __forceinline__ float rt_##name(float x) { return (float)fd((double)x); } \
  __device__ __forceinline__ double rt_##name(double x) { return fd(x); }
RT_F1(sqrt, sqrtf, sqrt)
RT_F1D(cbrt, cbrt)
// Horner's rule in double with FMA: c[0] x^(N-1) + ... + c[N-1].
template <int N> __device__ __forceinline__ double rt_horner(double x, const double (&c)[N]) {
  double p = c[0];
#pragma unroll
  for (int i = 1; i < N; i++) p = fma(p, x, c[i]);
  return p;
}
// 1.5 * 2^52: x + RT_ROUNDER rounds x to an integer, held in the low word.
#define RT_ROUNDER 6755399441055744.0
__device__ __forceinline__ float rt_exp(float x) {
  // e^x = 2^k e^r, |r| <= ln2 / 2; past the clamps the float result is 0 or inf anyway.
  double d = (double)fminf(fmaxf(x, -160.0f), 100.0f);
  double t = fma(d, 1.4426950408889634, RT_ROUNDER), k = t - RT_ROUNDER;
  double r = fma(-k, 6.9314718055994530e-01, d);
  r = fma(-k, 2.3190468138462996e-17, r);
  const double c[10] = {2.7632826366889156e-06, 2.488466410538577e-05,  1.9841190256754374e-04,
                        1.3888801319594057e-03, 8.333333367563363e-03,  4.166666704332249e-02,
                        1.6666666666615143e-01, 4.9999999999433037e-01, 1.0000000000000013,
                        1.0000000000000135};
  double p = rt_horner(r, c);
  // p 2^k by the exponent field (k in [-231, 145]: a normal double).
  double y = __hiloint2double(__double2hiint(p) + (int)((unsigned)__double2loint(t) << 20), __double2loint(p));
  return x != x ? x : (float)y;
}
__device__ __forceinline__ double rt_exp(double x) { return exp(x); }
// sin and cos of a float: x = k pi/2 + r, |r| <= pi/4 (exact to about 1e-16 below 2^15),
// both polynomials, the quadrant picking: pure arithmetic without branches, so that a sin and
// a cos of one argument share all of it (the compiler merges the two). Past 2^15, and for
// inf and NaN, CUDA's double functions, called out of line.
struct RtSinCos {
  float s, c;
};
__device__ __forceinline__ RtSinCos rt_sincos_near(float x) {
  double d = (double)x;
  double t = fma(d, 6.3661977236758138e-01, RT_ROUNDER), k = t - RT_ROUNDER;
  double r = fma(-k, 1.5707963267948966, d);
  r = fma(-k, 6.123233995736766e-17, r);
  double u = r * r;
  const double cs[6] = {-2.475505799640685e-08, 2.755525100903954e-06, -1.984126319792684e-04,
                        8.333333323683969e-03,  -1.6666666666615398e-01, 0.9999999999999956};
  const double cc[6] = {-2.7171482149925663e-07, 2.4798901651486274e-05, -1.3888880263392002e-03,
                        4.166666654139102e-02,   -4.999999999933441e-01,  0.9999999999999427};
  double ps = rt_horner(u, cs) * r, pc = rt_horner(u, cc);
  // Rounded, then picked and negated (the same floats; a float select is one instruction).
  int q = __double2loint(t);
  float fs = (float)ps, fc = (float)pc;
  float sv = (q & 1) ? fc : fs, cv = (q & 1) ? fs : fc;
  RtSinCos o;
  o.s = (q & 2) ? -sv : sv;
  o.c = ((q + 1) & 2) ? -cv : cv;
  return o;
}
__device__ __noinline__ float rt_sin_far(float x) { return (float)sin((double)x); }
__device__ __noinline__ float rt_cos_far(float x) { return (float)cos((double)x); }
__device__ __forceinline__ float rt_sin(float x) {
  float y = rt_sincos_near(x).s;
  return fabsf(x) < 32768.0f ? y : rt_sin_far(x);
}
__device__ __forceinline__ float rt_cos(float x) {
  float y = rt_sincos_near(x).c;
  return fabsf(x) < 32768.0f ? y : rt_cos_far(x);
}
__device__ __forceinline__ double rt_sin(double x) { return sin(x); }
__device__ __forceinline__ double rt_cos(double x) { return cos(x); }
RT_F1D(exp2, exp2)
RT_F1D(exp_m1, expm1)
RT_F1D(ln, log)
RT_F1D(ln_1p, log1p)
RT_F1D(log2, log2)
RT_F1D(log10, log10)
RT_F1D(tan, tan)
RT_F1D(asin, asin)
RT_F1D(acos, acos)
RT_F1D(atan, atan)
RT_F1D(sinh, sinh)
RT_F1D(cosh, cosh)
RT_F1D(tanh, tanh)
RT_F1(floor, floorf, floor)
RT_F1(ceil, ceilf, ceil)
RT_F1(round, roundf, round)
RT_F1(trunc, truncf, trunc)
__device__ __forceinline__ float rt_abs(float x) { return fabsf(x); }
__device__ __forceinline__ double rt_abs(double x) { return fabs(x); }
template <class T> __device__ __forceinline__ T rt_abs(T x) { return x < 0 ? Ops<T>::neg(x) : x; }
template <class T> __device__ __forceinline__ T rt_fract(T x) { return x - rt_trunc(x); }
template <class T> __device__ __forceinline__ T rt_recip(T x) { return (T)1 / x; }
template <class T> __device__ __forceinline__ T rt_signum(T x) { return x != x ? x : (signbit(x) ? (T)-1 : (T)1); }
__device__ __forceinline__ float rt_to_degrees(float x) { return x * 57.2957795130823208767981548141051703f; }
__device__ __forceinline__ double rt_to_degrees(double x) { return x * (180.0 / 3.14159265358979323846264338327950288); }
__device__ __forceinline__ float rt_to_radians(float x) { return x * (3.14159265358979323846264338327950288f / 180.0f); }
__device__ __forceinline__ double rt_to_radians(double x) { return x * (3.14159265358979323846264338327950288 / 180.0); }
template <class T, class B> __device__ __forceinline__ T rt_powf(T x, B y) { return (T)pow((double)x, (double)(T)y); }
// powi as compiler-rt's __powisf2/__powidf2 (what Rust's `powi` runs): squaring, then 1/r.
template <class T, class B> __device__ __forceinline__ T rt_powi(T x, B e) {
  int n = (int)e;
  const bool recip = n < 0;
  T r = 1;
  while (1) {
    if (n & 1) r *= x;
    n /= 2;
    if (n == 0) break;
    x *= x;
  }
  return recip ? (T)1 / r : r;
}
template <class T, class B> __device__ __forceinline__ T rt_log(T x, B base) { return rt_ln(x) / rt_ln((T)base); }
template <class T, class B> __device__ __forceinline__ T rt_atan2(T y, B x) { return (T)atan2((double)y, (double)(T)x); }
template <class T, class B> __device__ __forceinline__ T rt_hypot(T x, B y) { return sizeof(T) == 4 ? (T)hypotf((float)x, (float)(T)y) : (T)hypot((double)x, (double)(T)y); }
template <class T, class B> __device__ __forceinline__ T rt_min(T a, B b) {
  T c = (T)b;
  if (!IsInt<T>::v) { if (a != a) return c; if (c != c) return a; }
  return c < a ? c : a;
}
template <class T, class B> __device__ __forceinline__ T rt_max(T a, B b) {
  T c = (T)b;
  if (!IsInt<T>::v) { if (a != a) return c; if (c != c) return a; }
  return c > a ? c : a;
}
template <class T, class B, class C> __device__ __forceinline__ T rt_clamp(T x, B lo, C hi) {
  if (x < (T)lo) return (T)lo;
  if (x > (T)hi) return (T)hi;
  return x;
}
template <class T, class B, class C> __device__ __forceinline__ T rt_mul_add(T x, B a, C b) {
  return sizeof(T) == 4 ? (T)fmaf((float)x, (float)(T)a, (float)(T)b) : (T)fma((double)x, (double)(T)a, (double)(T)b);
}
template <class T> __device__ __forceinline__ bool rt_is_nan(T x) { return isnan(x); }
template <class T> __device__ __forceinline__ bool rt_is_infinite(T x) { return isinf(x); }
template <class T> __device__ __forceinline__ bool rt_is_finite(T x) { return isfinite(x); }
template <class T> __device__ __forceinline__ bool rt_is_sign_negative(T x) { return signbit(x); }
template <class T, class B> __device__ __forceinline__ T rt_pow(T x, B e) {
  // Integer `pow` (wrapping), by squaring.
  unsigned int n = (unsigned int)e;
  T r = 1;
  while (n) {
    if (n & 1) r = Ops<T>::mul(r, x);
    x = Ops<T>::mul(x, x);
    n >>= 1;
  }
  return r;
}
template <class T> __device__ __forceinline__ unsigned int rt_count_ones(T x) {
  return sizeof(T) == 8 ? __popcll((unsigned long long)x) : __popc((unsigned int)(typename Unsigned<T>::U)x);
}
template <class T> __device__ __forceinline__ unsigned int rt_leading_zeros(T x) {
  return sizeof(T) == 8 ? __clzll((long long)x)
                        : __clz((int)(unsigned int)(typename Unsigned<T>::U)x) - (32 - 8 * (int)sizeof(T));
}
template <class T> __device__ __forceinline__ unsigned int rt_trailing_zeros(T x) {
  if (x == 0) return 8 * sizeof(T);
  return sizeof(T) == 8 ? __ffsll((long long)x) - 1 : __ffs((int)(unsigned int)(typename Unsigned<T>::U)x) - 1;
}

// ---------------------------------------------------------------- grid kernels (#[cuprum::kernel])
// A slice parameter: pointer, length, and the launch's out-of-range record (null when the
// launch is unchecked). With a record, an index past the end reads 0 and writes nothing, and
// the first such index and the slice's length are recorded (the host returns IndexError).
template <class T> struct RtSlice {
  T* p;
  unsigned long long n;
  unsigned long long* rec;
};
template <class T> __device__ __forceinline__ bool rt_in(const RtSlice<T>& s, unsigned long long i) {
  if (s.rec == 0 || i < s.n) return true;
  if (atomicCAS(s.rec, 0ull, i + 1) == 0ull) s.rec[1] = s.n;
  return false;
}
template <class T, class I> __device__ __forceinline__ T rt_load(const RtSlice<T>& s, I i) {
  unsigned long long k = (unsigned long long)i;
  return rt_in(s, k) ? s.p[k] : (T)0;
}
template <class T, class I, class V> __device__ __forceinline__ void rt_store(const RtSlice<T>& s, I i, V v) {
  unsigned long long k = (unsigned long long)i;
  if (rt_in(s, k)) s.p[k] = (T)v;
}
template <class T> __device__ __forceinline__ unsigned long long rt_len(const RtSlice<T>& s) { return s.n; }

// An N-d view (`View<T, N>`, `ViewMut<T, N>`): any strides (in elements), each index checked
// against its dimension; a bad one is recorded with its axis plus one in the top byte.
template <class T, int N> struct RtView {
  T* p;
  unsigned long long* rec;
  unsigned long long shape[N];
  long long st[N];
};
template <class T, int N> __device__ __forceinline__ bool rt_vin(const RtView<T, N>& v, int axis, unsigned long long i) {
  if (v.rec == 0 || i < v.shape[axis]) return true;
  if (atomicCAS(v.rec, 0ull, i + 1) == 0ull) v.rec[1] = v.shape[axis] | ((unsigned long long)(axis + 1) << 56);
  return false;
}
template <class T, int N> __device__ __forceinline__ unsigned long long rt_len(const RtView<T, N>& v) {
  unsigned long long n = 1;
  for (int a = 0; a < N; a++) n *= v.shape[a];
  return n;
}
// Tuples (a device function's result, grid2()).
// (Each converts from another of its arity: `(x, 2.0)` returned as `(f32, f32)`.)
template <class A, class B> struct RtTup2 {
  A a0;
  B a1;
  __device__ RtTup2() {}
  __device__ RtTup2(A x, B y) : a0(x), a1(y) {}
  template <class X, class Y> __device__ RtTup2(const RtTup2<X, Y>& t) : a0((A)t.a0), a1((B)t.a1) {}
};
template <class A, class B, class C> struct RtTup3 {
  A a0;
  B a1;
  C a2;
  __device__ RtTup3() {}
  __device__ RtTup3(A x, B y, C z) : a0(x), a1(y), a2(z) {}
  template <class X, class Y, class Z>
  __device__ RtTup3(const RtTup3<X, Y, Z>& t) : a0((A)t.a0), a1((B)t.a1), a2((C)t.a2) {}
};
template <class A, class B, class C, class D> struct RtTup4 {
  A a0;
  B a1;
  C a2;
  D a3;
  __device__ RtTup4() {}
  __device__ RtTup4(A x, B y, C z, D w) : a0(x), a1(y), a2(z), a3(w) {}
  template <class X, class Y, class Z, class W>
  __device__ RtTup4(const RtTup4<X, Y, Z, W>& t) : a0((A)t.a0), a1((B)t.a1), a2((C)t.a2), a3((D)t.a3) {}
};
template <class T> struct Val { typedef T t; };
template <> struct Val<FLit> { typedef double t; };
template <> struct Val<ILit> { typedef long long t; };
template <class A, class B> __device__ __forceinline__ RtTup2<typename Val<A>::t, typename Val<B>::t> rt_tup(A a, B b) {
  return RtTup2<typename Val<A>::t, typename Val<B>::t>((typename Val<A>::t)a, (typename Val<B>::t)b);
}
template <class A, class B, class C>
__device__ __forceinline__ RtTup3<typename Val<A>::t, typename Val<B>::t, typename Val<C>::t> rt_tup(A a, B b, C c) {
  return RtTup3<typename Val<A>::t, typename Val<B>::t, typename Val<C>::t>((typename Val<A>::t)a, (typename Val<B>::t)b, (typename Val<C>::t)c);
}
template <class A, class B, class C, class D>
__device__ __forceinline__ RtTup4<typename Val<A>::t, typename Val<B>::t, typename Val<C>::t, typename Val<D>::t>
rt_tup(A a, B b, C c, D d) {
  return RtTup4<typename Val<A>::t, typename Val<B>::t, typename Val<C>::t, typename Val<D>::t>(
      (typename Val<A>::t)a, (typename Val<B>::t)b, (typename Val<C>::t)c, (typename Val<D>::t)d);
}

// The thread's place (Numba's cuda.grid, threadIdx, ...): usize values.
struct RtDim3 { unsigned long long x, y, z; };
__device__ __forceinline__ RtDim3 rt_thread_idx() { return {threadIdx.x, threadIdx.y, threadIdx.z}; }
__device__ __forceinline__ RtDim3 rt_block_idx() { return {blockIdx.x, blockIdx.y, blockIdx.z}; }
__device__ __forceinline__ RtDim3 rt_block_dim() { return {blockDim.x, blockDim.y, blockDim.z}; }
__device__ __forceinline__ RtDim3 rt_grid_dim() { return {gridDim.x, gridDim.y, gridDim.z}; }
template <class N> __device__ __forceinline__ unsigned long long rt_grid(N) {
  return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}
template <class N> __device__ __forceinline__ unsigned long long rt_gridsize(N) {
  return (unsigned long long)gridDim.x * blockDim.x;
}
__device__ __forceinline__ RtTup2<unsigned long long, unsigned long long> rt_grid2() {
  return RtTup2<unsigned long long, unsigned long long>((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x,
                                                       (unsigned long long)blockIdx.y * blockDim.y + threadIdx.y);
}
__device__ __forceinline__ RtTup2<unsigned long long, unsigned long long> rt_gridsize2() {
  return RtTup2<unsigned long long, unsigned long long>((unsigned long long)gridDim.x * blockDim.x,
                                                       (unsigned long long)gridDim.y * blockDim.y);
}
__device__ __forceinline__ void rt_sync_threads() { __syncthreads(); }
// Warp votes and shuffles (CUDA's *_sync functions; narrow types shuffle as int).
__device__ __forceinline__ void rt_sync_warp(unsigned m) { __syncwarp(m); }
__device__ __forceinline__ bool rt_all_sync(unsigned m, bool p) { return __all_sync(m, p) != 0; }
__device__ __forceinline__ bool rt_any_sync(unsigned m, bool p) { return __any_sync(m, p) != 0; }
__device__ __forceinline__ unsigned rt_ballot_sync(unsigned m, bool p) { return __ballot_sync(m, p); }
template <class T> struct ShflT { typedef T U; };
template <> struct ShflT<bool> { typedef int U; };
template <> struct ShflT<signed char> { typedef int U; };
template <> struct ShflT<unsigned char> { typedef int U; };
template <> struct ShflT<short> { typedef int U; };
template <> struct ShflT<unsigned short> { typedef int U; };
template <> struct ShflT<FLit> { typedef double U; };
template <> struct ShflT<ILit> { typedef long long U; };
#define RT_SHFL(name, cu)                                                                  \
  template <class T> __device__ __forceinline__ T rt_##name(unsigned m, T v, unsigned k) { \
    typedef typename ShflT<T>::U U;                                                      \
    return (T)cu(m, (U)v, k);                                                            \
  }
RT_SHFL(shfl_sync, __shfl_sync)
RT_SHFL(shfl_up_sync, __shfl_up_sync)
RT_SHFL(shfl_down_sync, __shfl_down_sync)
RT_SHFL(shfl_xor_sync, __shfl_xor_sync)
__device__ __forceinline__ unsigned rt_lane_id() {
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u;
}
__device__ __forceinline__ unsigned rt_warp_size() { return 32u; }

template <int N> struct Bits;
template <> struct Bits<4> { typedef unsigned int U; };
template <> struct Bits<8> { typedef unsigned long long U; };

// Atomics on an element of a slice (checked as an index), returning the old value.
template <class T> struct Atom {
  // 8-, 16-bit: not supported by the hardware; the macro's types exclude them.
  static __device__ __forceinline__ T add(T* p, T v) { return atomicAdd(p, v); }
};
template <> struct Atom<long long> {
  static __device__ __forceinline__ long long add(long long* p, long long v) {
    return (long long)atomicAdd((unsigned long long*)p, (unsigned long long)v);
  }
};
template <class T, class F> __device__ __forceinline__ T rt_atomic_update(T* p, F f) {
  // A compare-and-swap loop over the value's bits.
  typedef typename Bits<sizeof(T)>::U U;
  U* q = (U*)p;
  U old = *q, assumed;
  do {
    assumed = old;
    T cur;
    memcpy(&cur, &assumed, sizeof(T));
    T nv = f(cur);
    U nb;
    memcpy(&nb, &nv, sizeof(T));
    old = atomicCAS(q, assumed, nb);
  } while (old != assumed);
  T r;
  memcpy(&r, &old, sizeof(T));
  return r;
}
template <class T, class I, class V> __device__ __forceinline__ T rt_atomic_add(const RtSlice<T>& s, I i, V v) {
  unsigned long long k = (unsigned long long)i;
  if (!rt_in(s, k)) return (T)0;
  return Atom<T>::add(s.p + k, (T)v);
}
template <class T, class I, class V> __device__ __forceinline__ T rt_atomic_sub(const RtSlice<T>& s, I i, V v) {
  unsigned long long k = (unsigned long long)i;
  if (!rt_in(s, k)) return (T)0;
  T d = (T)v;
  return rt_atomic_update(s.p + k, [&](T c) { return Ops<T>::sub(c, d); });
}
template <class T, class I, class V> __device__ __forceinline__ T rt_atomic_min(const RtSlice<T>& s, I i, V v) {
  unsigned long long k = (unsigned long long)i;
  if (!rt_in(s, k)) return (T)0;
  T d = (T)v;
  return rt_atomic_update(s.p + k, [&](T c) { return rt_min(c, d); });
}
template <class T, class I, class V> __device__ __forceinline__ T rt_atomic_max(const RtSlice<T>& s, I i, V v) {
  unsigned long long k = (unsigned long long)i;
  if (!rt_in(s, k)) return (T)0;
  T d = (T)v;
  return rt_atomic_update(s.p + k, [&](T c) { return rt_max(c, d); });
}
template <class T, class I, class V> __device__ __forceinline__ T rt_atomic_exch(const RtSlice<T>& s, I i, V v) {
  unsigned long long k = (unsigned long long)i;
  if (!rt_in(s, k)) return (T)0;
  T d = (T)v;
  return rt_atomic_update(s.p + k, [&](T) { return d; });
}
template <class T, class I, class C, class V>
__device__ __forceinline__ T rt_atomic_cas(const RtSlice<T>& s, I i, C cmp, V v) {
  unsigned long long k = (unsigned long long)i;
  if (!rt_in(s, k)) return (T)0;
  T c0 = (T)cmp, d = (T)v;
  return rt_atomic_update(s.p + k, [&](T c) { return c == c0 ? d : c; });
}

// A view's elements: v[i] (1-d), v[(i, j)] (2-d), v[(i, j, k)] (3-d); its dimensions.
template <class T, class I> __device__ __forceinline__ T* rt_vat(const RtView<T, 1>& v, I i) {
  unsigned long long a = (unsigned long long)i;
  return rt_vin(v, 0, a) ? v.p + (long long)a * v.st[0] : 0;
}
template <class T, class A, class B> __device__ __forceinline__ T* rt_vat(const RtView<T, 2>& v, const RtTup2<A, B>& ix) {
  unsigned long long a = (unsigned long long)ix.a0, b = (unsigned long long)ix.a1;
  return (rt_vin(v, 0, a) && rt_vin(v, 1, b)) ? v.p + (long long)a * v.st[0] + (long long)b * v.st[1] : 0;
}
template <class T, class A, class B, class C>
__device__ __forceinline__ T* rt_vat(const RtView<T, 3>& v, const RtTup3<A, B, C>& ix) {
  unsigned long long a = (unsigned long long)ix.a0, b = (unsigned long long)ix.a1, c = (unsigned long long)ix.a2;
  return (rt_vin(v, 0, a) && rt_vin(v, 1, b) && rt_vin(v, 2, c))
             ? v.p + (long long)a * v.st[0] + (long long)b * v.st[1] + (long long)c * v.st[2]
             : 0;
}
template <class T, int N, class I> __device__ __forceinline__ T rt_load(const RtView<T, N>& v, const I& ix) {
  T* p = rt_vat(v, ix);
  return p ? *p : (T)0;
}
template <class T, int N, class I, class V> __device__ __forceinline__ void rt_store(const RtView<T, N>& v, const I& ix, V x) {
  T* p = rt_vat(v, ix);
  if (p) *p = (T)x;
}
template <class T> __device__ __forceinline__ unsigned long long rt_dim(const RtView<T, 1>& v) { return v.shape[0]; }
template <class T> __device__ __forceinline__ RtTup2<unsigned long long, unsigned long long> rt_dim(const RtView<T, 2>& v) {
  return RtTup2<unsigned long long, unsigned long long>(v.shape[0], v.shape[1]);
}
template <class T>
__device__ __forceinline__ RtTup3<unsigned long long, unsigned long long, unsigned long long> rt_dim(const RtView<T, 3>& v) {
  return RtTup3<unsigned long long, unsigned long long, unsigned long long>(v.shape[0], v.shape[1], v.shape[2]);
}
template <class T> __device__ __forceinline__ unsigned long long rt_nrows(const RtView<T, 2>& v) { return v.shape[0]; }
template <class T> __device__ __forceinline__ unsigned long long rt_ncols(const RtView<T, 2>& v) { return v.shape[1]; }
