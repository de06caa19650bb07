// float16 elements are stored as their bits (u16) and computed in float, as NumPy's loops do;
// conversions round to nearest even.
#pragma once
#include "cuprum/prelude.cuh"

__device__ __forceinline__ float h2f(u16 h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ u16 f2h(float f) { u16 h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ u16 d2h(double d) { u16 h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d)); return h; }
