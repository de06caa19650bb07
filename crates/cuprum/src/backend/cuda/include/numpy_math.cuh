// NumPy's semantics where C's differ: floor division and modulo of integers (by zero gives 0,
// the most negative value by -1 wraps), integer powers, float divmod / floor_divide /
// remainder (npy_divmod), and exact comparison of signed with unsigned 64-bit integers.
#pragma once
#include "cuprum/prelude.cuh"

// Float to integer as NumPy's C casts on x86-64 (CUDA's own conversions saturate and give 0
// for NaN): truncation where the value fits, else the most negative value (cvttsd2si).
__device__ __forceinline__ i32 f2i32_c(double v) { return (v > -2147483649.0 && v < 2147483648.0) ? (i32)v : (-2147483647 - 1); }
__device__ __forceinline__ i64 f2i64_c(double v) {
  return (v >= -9223372036854775808.0 && v < 9223372036854775808.0) ? (i64)v : (-9223372036854775807LL - 1);
}
__device__ __forceinline__ u64 f2u64_c(double v) {
  return v >= 9223372036854775808.0 ? ((u64)f2i64_c(v - 9223372036854775808.0) ^ 0x8000000000000000ULL) : (u64)f2i64_c(v);
}

template <typename T> __device__ __forceinline__ T fdiv_s(T a, T b) {
  if (b == 0) return 0;
  if (b == (T)-1) return (T)(0ULL - (u64)a);
  T q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}
template <typename T> __device__ __forceinline__ T fmod_s(T a, T b) {
  if (b == 0 || b == (T)-1) return 0;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
template <typename T> __device__ __forceinline__ T ipow(T a, T b) {
  if (b < 0) return 0;
  u64 r = 1, x = (u64)a;
  u64 e = (u64)b;
  while (e) { if (e & 1) r *= x; x *= x; e >>= 1; }
  return (T)r;
}
template <typename T> __device__ __forceinline__ T fdivmod(T a, T b, T* m) {
  if (b == 0) { *m = fmod(a, b); return a / b; }
  T mod = fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0) { if ((b < 0) != (mod < 0)) { mod += b; div -= 1; } } else { mod = copysign((T)0, b); }
  T fd;
  if (div != 0) { fd = floor(div); if (div - fd > (T)0.5) fd += 1; } else { fd = copysign((T)0, a / b); }
  *m = mod;
  return fd;
}
__device__ __forceinline__ int cmp3(i64 a, u64 b) { if (a < 0) return -1; u64 x = (u64)a; return x < b ? -1 : (x > b ? 1 : 0); }
__device__ __forceinline__ int cmp3(u64 a, i64 b) { return -cmp3(b, a); }
template <typename T> __device__ __forceinline__ T ffloordiv(T a, T b) { T m; return fdivmod(a, b, &m); }
template <typename T> __device__ __forceinline__ T fremainder(T a, T b) { T m; fdivmod(a, b, &m); return m; }
