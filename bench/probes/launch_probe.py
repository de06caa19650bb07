"""Host time per cuLaunchKernel of an empty kernel through CuPy's thin Cython driver wrapper
(no Python-level argument handling), beside a null driver call through the same wrapper and
CuPy's RawKernel call: the driver's own launch cost on this host, to set beside cuprum-bench's
host_overhead_kernels row. Usage (on the GPU host): python3 launch_probe.py"""
import time, ctypes, cupy as cp
from cupy.cuda import driver
k = cp.RawKernel(r'extern "C" __global__ void nothing(float* y) {}', 'nothing')
y = cp.zeros(16, cp.float32)
k((1,), (32,), (y,)); cp.cuda.Device().synchronize()
f = k.kernel.ptr
arg = ctypes.c_void_p(y.data.ptr)
argp = (ctypes.c_void_p * 1)(ctypes.addressof(arg))
s = cp.cuda.get_current_stream().ptr
def burst(n):
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    for _ in range(n):
        driver.launchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, ctypes.addressof(argp), 0)
    dt = (time.perf_counter() - t) / n * 1e6
    cp.cuda.Device().synchronize()
    return dt
def null(n):
    t = time.perf_counter()
    for _ in range(n):
        driver.ctxGetCurrent()
    return (time.perf_counter() - t) / n * 1e6
for n in (200, 2000):
    print(f"driver.launchKernel burst {n}: {burst(n):.3f} us/call; driver.ctxGetCurrent: {null(n):.3f} us/call")
def cupy_raw(n):
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    for _ in range(n):
        k((1,), (32,), (y,))
    dt = (time.perf_counter() - t) / n * 1e6
    cp.cuda.Device().synchronize()
    return dt
print(f"cupy RawKernel call burst 2000: {cupy_raw(2000):.3f} us/call")
