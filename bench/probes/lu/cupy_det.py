"""CuPy's det_512_f32 and qr_512_f64 as cupy_reference.py times them (same inputs, cupyx
benchmark, median of 20), for an A/B beside `cuprum-bench --only det_512_f32,qr_512_f64` in the
same device call, and CuPy's det and qr at the other orders the blocked kernels take."""
import numpy as np
import cupy as cp
from cupyx.profiler import benchmark


def t(f, *a):
    r = benchmark(f, a, n_repeat=20, n_warmup=3)
    return 1e3 * float(np.median(r.gpu_times[0])), 1e3 * float(np.median(r.cpu_times))


for n in (64, 128, 256, 512):
    D = np.random.default_rng(5).standard_normal((n, n)).astype(np.float32)
    print("cupy det_%d_f32 gpu_ms %.4f host_ms %.4f" % ((n,) + t(cp.linalg.det, cp.asarray(D))))
for n in (64, 128, 256, 512):
    Q = np.random.default_rng(4).standard_normal((n, n))
    print("cupy qr_%d_f64 gpu_ms %.4f host_ms %.4f" % ((n,) + t(cp.linalg.qr, cp.asarray(Q))))
