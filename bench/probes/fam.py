"""CuPy's and NumPy's times for the random and FFT rows of WORKLOADS.md's second table, as
cupy_reference.py's section 0 times them (same calls, same inputs; im = the sky from sys.argv[2])."""
import json, sys, time
import numpy as np
import cupy as cp
import cupyx.scipy.signal
import scipy.signal
from cupyx.profiler import benchmark
out = open(sys.argv[1], "w")
im = np.load(sys.argv[2]).astype(np.float32)
rng = np.random.default_rng(20)
def cpu_time(f, *a, repeat=2):
    ts = []
    for i in range(repeat):
        t = time.perf_counter(); f(*a); ts.append(time.perf_counter() - t)
    return 1e3 * float(np.median(ts))
def gpu_time(f, *a, n_repeat=20):
    r = benchmark(f, a, n_repeat=n_repeat, n_warmup=3)
    return 1e3 * float(np.median(r.gpu_times[0])), 1e3 * float(np.median(r.cpu_times))
def record(name, c, g, note="fam"):
    row = {"name": name, "cpu_ms": round(c, 4), "cupy_ms": round(g[0], 4), "cupy_host_ms": round(g[1], 4), "check": None, "note": note}
    print(json.dumps(row), flush=True); out.write(json.dumps(row) + "\n"); out.flush()
n = 10**8
g_np = np.random.default_rng(1); g_cp = cp.random.default_rng(1)
record("normal_1e8_f32", cpu_time(lambda: g_np.standard_normal(n, dtype=np.float32)), gpu_time(lambda: g_cp.standard_normal(n, dtype=cp.float32)))
record("uniform_1e8_f64", cpu_time(lambda: g_np.random(n)), gpu_time(lambda: g_cp.random(n)))
record("integers_1e8_i64", cpu_time(lambda: g_np.integers(0, 1000, n)), gpu_time(lambda: g_cp.integers(0, 1000, n)))
record("rand_1e8_f32", cpu_time(lambda: np.random.rand(n).astype(np.float32)), gpu_time(lambda: cp.random.rand(n, dtype=cp.float32)))
record("permutation_1e7", cpu_time(lambda: g_np.permutation(10**7)), gpu_time(lambda: cp.random.permutation(10**7)))
z = (rng.standard_normal(2**24) + 1j * rng.standard_normal(2**24)).astype(np.complex64); zg = cp.asarray(z)
record("fft_2p24_c64", cpu_time(np.fft.fft, z, repeat=3), gpu_time(cp.fft.fft, zg))
del zg
big_im = np.tile(im, (2, 2)); big_img = cp.asarray(big_im)
record("rfft2_4096_f32", cpu_time(np.fft.rfft2, big_im, repeat=3), gpu_time(cp.fft.rfft2, big_img))
zz = big_im.astype(np.complex64); zzg = cp.asarray(zz)
record("fft2_4096_c64", cpu_time(np.fft.fft2, zz, repeat=3), gpu_time(cp.fft.fft2, zzg))
del zzg, big_img
yy, xx = np.mgrid[-63:64, -63:64]; k127 = np.exp(-(xx ** 2 + yy ** 2) / (2 * 20.0 ** 2)).astype(np.float32)
img_g, k127_g = cp.asarray(im), cp.asarray(k127)
record("fftconvolve_2048_k127_f32", cpu_time(lambda: scipy.signal.fftconvolve(im, k127, mode="same"), repeat=3),
       gpu_time(lambda: cupyx.scipy.signal.fftconvolve(img_g, k127_g, mode="same")))
k63 = k127[32:95, 32:95].copy(); k63_g = cp.asarray(k63)
try:
    g_auto, note = gpu_time(lambda: cupyx.scipy.signal.convolve(img_g, k63_g, mode="same")), "method='auto'"
except NotImplementedError:
    g_auto = min(gpu_time(lambda: cupyx.scipy.signal.convolve(img_g, k63_g, mode="same", method=m)) for m in ("direct", "fft"))
    note = "CuPy raises NotImplementedError for method='auto' on 2-d input: the better of its direct and fft"
record("convolve_auto_2048_k63_f32", cpu_time(lambda: scipy.signal.convolve(im, k63, mode="same"), repeat=3), g_auto, note=note)
