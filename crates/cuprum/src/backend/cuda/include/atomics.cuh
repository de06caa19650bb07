// Atomics the hardware lacks: read-modify-write of a 1- or 2-byte value (CAS on its aligned
// 32-bit word), and NumPy's `add.at` for every dtype (`add_at`).
#pragma once
#include "cuprum/prelude.cuh"
#include "cuprum/float16.cuh"

// Atomically replaces the BYTES-byte value at `a` (1 or 2) with f(old value's bits).
template <int BYTES, typename F>
__device__ __forceinline__ void atomic_update_narrow(void* a, F f) {
  const unsigned long long addr = (unsigned long long)a;
  unsigned int* w = (unsigned int*)(addr & ~3ULL);
  const unsigned int mask = BYTES == 1 ? 0xFFu : 0xFFFFu;
  const unsigned int sh = (unsigned int)(addr & (BYTES == 1 ? 3ULL : 2ULL)) * 8u;
  unsigned int old = *w, assumed;
  do {
    assumed = old;
    const unsigned int cur = (assumed >> sh) & mask;
    const unsigned int nv = f(cur) & mask;
    old = atomicCAS(w, assumed, (assumed & ~(mask << sh)) | (nv << sh));
  } while (old != assumed);
}

// `*a += v` with NumPy's result: integers wrap, bool is logical or, float16 adds exactly (in
// double) and rounds once, as the CPU backend computes it.
__device__ __forceinline__ void add_at(bool* a, bool v) { if (v) *(volatile bool*)a = true; }
__device__ __forceinline__ void add_at(i8* a, i8 v) {
  atomic_update_narrow<1>(a, [=](unsigned int cur) { return cur + (unsigned int)(u8)v; });
}
__device__ __forceinline__ void add_at(u8* a, u8 v) {
  atomic_update_narrow<1>(a, [=](unsigned int cur) { return cur + (unsigned int)v; });
}
__device__ __forceinline__ void add_at(i16* a, i16 v) {
  atomic_update_narrow<2>(a, [=](unsigned int cur) { return cur + (unsigned int)(u16)v; });
}
// u16 is also float16's storage: the float16 form is add_at_f16.
__device__ __forceinline__ void add_at(u16* a, u16 v) {
  atomic_update_narrow<2>(a, [=](unsigned int cur) { return cur + (unsigned int)v; });
}
__device__ __forceinline__ void add_at_f16(u16* a, u16 v) {
  atomic_update_narrow<2>(a, [=](unsigned int cur) { return (unsigned int)d2h((double)h2f((u16)cur) + (double)h2f(v)); });
}
__device__ __forceinline__ void add_at(i32* a, i32 v) { atomicAdd((int*)a, (int)v); }
__device__ __forceinline__ void add_at(u32* a, u32 v) { atomicAdd((unsigned int*)a, (unsigned int)v); }
__device__ __forceinline__ void add_at(i64* a, i64 v) { atomicAdd((unsigned long long*)a, (unsigned long long)v); }
__device__ __forceinline__ void add_at(u64* a, u64 v) { atomicAdd((unsigned long long*)a, (unsigned long long)v); }
__device__ __forceinline__ void add_at(float* a, float v) { atomicAdd(a, v); }
__device__ __forceinline__ void add_at(double* a, double v) { atomicAdd(a, v); }
