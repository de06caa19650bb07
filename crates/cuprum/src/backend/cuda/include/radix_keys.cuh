// Radix keys: each dtype's values mapped to unsigned integers K of KBITS bits whose order is
// NumPy's sort order (floats: sign flip; every NaN the largest key, ~0, so they sort last and
// come back as the quiet NaN; with CANON, -0.0 maps to the key of +0.0, which NumPy orders as
// equal, so a stable sort keeps them in input order). X is the storage type. The one home of
// these keys on the GPU: sort, statistics' selection and ndimage's rank filters (the CPU's:
// backend/cpu/keys.rs).
//
// The prelude defines K, X, KBITS, CANON and one kind: KEY_F16, KEY_F32, KEY_F64, KEY_SIGNED
// or KEY_UNSIGNED (also bool).
#pragma once
#include "cuprum/prelude.cuh"
#include "cuprum/float16.cuh"

#define S ((K)1 << (KBITS - 1))

#if defined(KEY_F16) || defined(KEY_F32) || defined(KEY_F64)
#if defined(KEY_F16)
#define KEY_BITS_OF(x) (x)
#define KEY_FROM_BITS(k) (k)
#define KEY_EXP_MASK 0x7c00
#define KEY_QNAN 0x7e00
#define KEY_TO_DOUBLE(v) ((double)h2f(v))
#elif defined(KEY_F32)
#define KEY_BITS_OF(x) __float_as_uint(x)
#define KEY_FROM_BITS(k) __uint_as_float(k)
#define KEY_EXP_MASK 0x7f800000u
#define KEY_QNAN 0x7fc00000u
#define KEY_TO_DOUBLE(v) ((double)(v))
#else
#define KEY_BITS_OF(x) ((u64)__double_as_longlong(x))
#define KEY_FROM_BITS(k) __longlong_as_double((long long)(k))
#define KEY_EXP_MASK 0x7ff0000000000000ull
#define KEY_QNAN 0x7ff8000000000000ull
#define KEY_TO_DOUBLE(v) (v)
#endif
__device__ __forceinline__ K tokey(X x) {
  K b = (K)KEY_BITS_OF(x);
  if ((b & ~S) > (K)KEY_EXP_MASK) return (K)~(K)0;
#if CANON
  if ((b & ~S) == 0) b = 0;
#endif
  return (b & S) ? (K)~b : (K)(b | S);
}
__device__ __forceinline__ X fromkey(K kk) {
  if (kk == (K)~(K)0) return KEY_FROM_BITS((K)KEY_QNAN);
  K k = (kk & S) ? (K)(kk ^ S) : (K)~kk;
  return KEY_FROM_BITS(k);
}
__device__ __forceinline__ bool is_nan_key(K k) { return k == (K)~(K)0; }
__device__ __forceinline__ double todouble(X v) { return KEY_TO_DOUBLE(v); }
#elif defined(KEY_SIGNED)
__device__ __forceinline__ K tokey(X x) { return (K)((K)x ^ S); }
__device__ __forceinline__ X fromkey(K kk) { return (X)(K)(kk ^ S); }
__device__ __forceinline__ bool is_nan_key(K k) { return false; }
__device__ __forceinline__ double todouble(X v) { return (double)v; }
#else
__device__ __forceinline__ K tokey(X x) { return (K)x; }
__device__ __forceinline__ X fromkey(K kk) { return (X)kk; }
__device__ __forceinline__ bool is_nan_key(K k) { return false; }
__device__ __forceinline__ double todouble(X v) { return (double)v; }
#endif
