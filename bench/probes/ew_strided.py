"""fused_squared_diff_1e8_i64 (out = (x - y)^2, y a reversed view): cuprum's `ks` elementwise
variant (ufunc/elementwise.cu: one collapsed dimension, byte strides, a grid-stride loop over a
grid capped at 32 blocks an SM) against the same kernel with other grids and with U elements a
thread loaded before any is stored, and CuPy's fused kernel; CUDA events, median of 20 after 3
warm-ups, results checked equal. Run on the device: python3 bench/probes/ew_strided.py"""
import numpy as np
import cupy as cp
from evtime import median_ms

SRC = r"""
#define FIRST ((long long)blockIdx.x * blockDim.x + threadIdx.x)
#define GS ((long long)gridDim.x * blockDim.x)
#define AT(p, i, st) (*(const long long*)((const char*)(p) + (i) * (st)))
extern "C" __global__ void ks(long long n, long long* __restrict__ out, const long long* __restrict__ x,
    const long long* __restrict__ y, long long s0, long long s1, long long s2) {
  for (long long i = FIRST; i < n; i += GS) {
    long long d = AT(x, i, s1) - AT(y, i, s2);
    *(long long*)((char*)out + i * s0) = d * d;
  }
}
template <int U>
__device__ void ksu(long long n, long long* __restrict__ out, const long long* __restrict__ x,
    const long long* __restrict__ y, long long s0, long long s1, long long s2) {
  for (long long i0 = FIRST; i0 < n; i0 += GS * U) {
    long long a[U], b[U];
#pragma unroll
    for (int j = 0; j < U; j++) {
      long long i = i0 + j * GS;
      if (i < n) { a[j] = AT(x, i, s1); b[j] = AT(y, i, s2); }
    }
#pragma unroll
    for (int j = 0; j < U; j++) {
      long long i = i0 + j * GS;
      if (i < n) { long long d = a[j] - b[j]; *(long long*)((char*)out + i * s0) = d * d; }
    }
  }
}
// As elementwise.cu would write it: each element's loads and result in the first loop (the
// result kept in a register), the stores in the second.
template <int U>
__device__ void ksc(long long n, long long* __restrict__ out, const long long* __restrict__ x,
    const long long* __restrict__ y, long long s0, long long s1, long long s2) {
  const long long gs = GS;
  for (long long i0 = FIRST; i0 < n; i0 += gs * U) {
    long long r[U];
#pragma unroll
    for (int j = 0; j < U; j++) {
      long long i = i0 + j * gs;
      if (i < n) { long long a0 = AT(x, i, s1); long long a1 = AT(y, i, s2); r[j] = (a0 - a1) * (a0 - a1); }
    }
#pragma unroll
    for (int j = 0; j < U; j++) {
      long long i = i0 + j * gs;
      if (i < n) *(long long*)((char*)out + i * s0) = r[j];
    }
  }
}
extern "C" __global__ void ksc4(long long n, long long* out, const long long* x, const long long* y, long long s0,
    long long s1, long long s2) { ksc<4>(n, out, x, y, s0, s1, s2); }
extern "C" __global__ void ksc8(long long n, long long* out, const long long* x, const long long* y, long long s0,
    long long s1, long long s2) { ksc<8>(n, out, x, y, s0, s1, s2); }
extern "C" __global__ void ks2(long long n, long long* out, const long long* x, const long long* y, long long s0,
    long long s1, long long s2) { ksu<2>(n, out, x, y, s0, s1, s2); }
extern "C" __global__ void ks4(long long n, long long* out, const long long* x, const long long* y, long long s0,
    long long s1, long long s2) { ksu<4>(n, out, x, y, s0, s1, s2); }
"""
mod = cp.RawModule(code=SRC, options=("-std=c++17",))
n = 10**8
xs = cp.arange(n)
ys = xs[::-1]
out = cp.empty(n, cp.int64)
want = (xs - ys) * (xs - ys)
sms = cp.cuda.Device().attributes["MultiProcessorCount"]
yptr = ys.data.ptr  # the view's first element (the base's last)


def squared_diff(x, y):
    return (x - y) * (x - y)


fused = cp.fuse(squared_diff)
t = median_ms(lambda: fused(xs, ys))
print("cupy fused                          %.4f ms  %.2f TB/s" % (t, 2.4e9 / t / 1e9), flush=True)
for name, per, threads, cap in (("ks", 1, 256, 32), ("ks", 1, 256, 0), ("ks", 1, 128, 0), ("ks", 1, 512, 0),
                                ("ks2", 2, 256, 32), ("ks2", 2, 256, 0), ("ks4", 4, 256, 32), ("ks4", 4, 256, 16),
                                ("ks4", 4, 256, 0), ("ks4", 4, 128, 0), ("ksc4", 4, 256, 0), ("ksc4", 4, 256, 32),
                                ("ksc8", 8, 256, 0), ("ks", 1, 256, 32)):
    k = mod.get_function(name)
    blocks = -(-n // (threads * per))
    if cap:
        blocks = min(blocks, sms * cap)
    args = (np.int64(n), out, xs, np.uint64(yptr), np.int64(8), np.int64(8), np.int64(-8))
    out.fill(0)
    k((blocks,), (threads,), args)
    ok = bool((out == want).all())
    t = median_ms(lambda: k((blocks,), (threads,), args))
    print("%-4s x%d threads %3d grid %8d (cap %2s)  %.4f ms  %.2f TB/s  equal %s"
          % (name, per, threads, blocks, cap or "-", t, 2.4e9 / t / 1e9, ok), flush=True)
