"""The device's copy bandwidth, for the rows that are one pass over memory (sum_1e8_f32 reads 400
MB; fused_squared_diff_1e8_i64 reads 1.6 GB and writes 800 MB): cudaMemcpyAsync device to device
of 400 MB and 1.6 GB, and CuPy's elementwise copy (`cp.copyto`), CUDA events, median of 20 after
3 warm-ups; bandwidth = bytes read + bytes written over the time. Also CuPy's `sum` of 1e8 float32
(read bandwidth). Run on the device beside cuprum-bench: python3 bench/probes/bandwidth.py"""
import numpy as np
import cupy as cp
from evtime import median_ms


for mb in (400, 1600):
    n = mb * 10**6 // 4
    src, dst = cp.ones(n, cp.float32), cp.empty(n, cp.float32)
    nbytes = src.nbytes
    t = median_ms(lambda: cp.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, nbytes, 3,
                                                cp.cuda.get_current_stream().ptr))
    print("memcpy d2d %5d MB: %.4f ms, %.2f TB/s (read + write)" % (mb, t, 2 * nbytes / t / 1e9), flush=True)
    t = median_ms(lambda: cp.copyto(dst, src))
    print("cp.copyto  %5d MB: %.4f ms, %.2f TB/s (read + write)" % (mb, t, 2 * nbytes / t / 1e9), flush=True)
    del src, dst
x = cp.ones(10**8, cp.float32)
t = median_ms(lambda: x.sum())
print("cupy sum of 1e8 float32: %.4f ms, %.2f TB/s read" % (t, 4e8 / t / 1e9), flush=True)
