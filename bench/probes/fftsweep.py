# cuFFT (through CuPy) rfft2 + irfft2 of float32 s x s, for the GPU's choice of padded lengths
import cupy as cp, json, sys
from cupyx.profiler import benchmark
import numpy as np
out = open(sys.argv[1], "w")
for s in [2048, 2110, 2112, 2128, 2160, 2176, 2187, 2200, 2205, 2240, 2250, 2268, 2304, 2352, 2400, 2430, 2450, 2560, 1024, 1050, 1080, 1100, 1120, 1125, 1134, 1152, 1176, 1200, 1215, 1280]:
    x = cp.random.standard_normal((s, s), dtype=cp.float32)
    X = cp.fft.rfft2(x)
    f = benchmark(cp.fft.rfft2, (x,), n_repeat=20, n_warmup=3).gpu_times[0]
    i = benchmark(lambda X: cp.fft.irfft2(X, s=(s, s)), (X,), n_repeat=20, n_warmup=3).gpu_times[0]
    r = {"s": s, "rfft2_ms": round(1e3 * float(np.median(f)), 4), "irfft2_ms": round(1e3 * float(np.median(i)), 4)}
    print(json.dumps(r), flush=True); out.write(json.dumps(r) + "\n")
