"""CuPy's det_512_f32 as cupy_reference.py times it (same input, cupyx benchmark, median of
20), for an A/B beside `cuprum-bench --only det_512_f32` in the same device call, and CuPy's
det at the other orders the blocked LU takes (n = 64 .. 512)."""
import numpy as np
import cupy as cp
from cupyx.profiler import benchmark

for n in (64, 128, 256, 512):
    D = np.random.default_rng(5).standard_normal((n, n)).astype(np.float32)
    Dg = cp.asarray(D)
    r = benchmark(cp.linalg.det, (Dg,), n_repeat=20, n_warmup=3)
    print(f"cupy det_{n}_f32 gpu_ms {1e3 * float(np.median(r.gpu_times[0])):.4f} "
          f"host_ms {1e3 * float(np.median(r.cpu_times)):.4f}")
