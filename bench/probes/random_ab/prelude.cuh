// cuprum's prelude: the short integer type names every kernel uses, and a vector of V
// elements for 16-byte loads and stores.
#pragma once

typedef signed char i8;
typedef short i16;
typedef int i32;
typedef long long i64;
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

template <typename T, int V> struct __align__(sizeof(T) * V) Pack { T v[V]; };

// A float's sign flipped or cleared as a bit operation, as NumPy's loops do (a NaN keeps its
// payload, its sign flipped or cleared). PTX leaves the NaN that `neg` and `abs` give
// unspecified, and ptxas folds them into neighbouring instructions as operand modifiers,
// whose NaN results are canonical: the same formula gave NaNs of either sign depending on
// what was compiled around it (a fused `where(c, x, -y)` against its unfused steps).
__device__ __forceinline__ float cuprum_neg(float x) { return __int_as_float(__float_as_int(x) ^ (int)0x80000000); }
__device__ __forceinline__ double cuprum_neg(double x) {
  return __longlong_as_double(__double_as_longlong(x) ^ (long long)0x8000000000000000ULL);
}
__device__ __forceinline__ float cuprum_abs(float x) { return __int_as_float(__float_as_int(x) & 0x7fffffff); }
__device__ __forceinline__ double cuprum_abs(double x) {
  return __longlong_as_double(__double_as_longlong(x) & 0x7fffffffffffffffLL);
}
