"""matmul_4096_f32: cuprum calls cuBLAS's `cublasGemmStridedBatchedEx` (batch 1 for a 2-d
product, FP32 compute), CuPy's matmul its own route; the row measured 0.98x with the same
library underneath. This times, on the same 4096² float32 operands and into a preallocated
output, `cp.matmul`, `cublasGemmEx`, `cublasGemmStridedBatchedEx` with batch 1 and
`cublasSgemm` (CUDA events around each call as the bench times it, median of 20, three times),
and lists the kernels each runs (CUPTI through torch.profiler).

    python3 bench/probes/matmul_gemm.py      (on the GPU host)
"""

import cupy as cp
import evtime
import numpy as np
from cupy_backends.cuda.libs import cublas

n = 4096
rng = np.random.default_rng(0)
a = cp.asarray(rng.random((n, n), dtype=np.float32))
b = cp.asarray(rng.random((n, n), dtype=np.float32))
c = cp.empty((n, n), cp.float32)
h = cp.cuda.device.get_cublas_handle()
one, zero = np.array(1.0, np.float32), np.array(0.0, np.float32)
R32F, COMPUTE_32F, ALGO_DEFAULT = 0, 68, -1


def stream():
    cublas.setStream(h, cp.cuda.get_current_stream().ptr)


# Row-major c = a @ b as column-major cᵀ = bᵀ aᵀ: no transposes, b first (cuprum's operands).
def gemm_ex():
    stream()
    cublas.gemmEx(
        h,
        0,
        0,
        n,
        n,
        n,
        one.ctypes.data,
        b.data.ptr,
        R32F,
        n,
        a.data.ptr,
        R32F,
        n,
        zero.ctypes.data,
        c.data.ptr,
        R32F,
        n,
        COMPUTE_32F,
        ALGO_DEFAULT,
    )


def strided_batched_ex():
    stream()
    cublas.gemmStridedBatchedEx(
        h,
        0,
        0,
        n,
        n,
        n,
        one.ctypes.data,
        b.data.ptr,
        R32F,
        n,
        n * n,
        a.data.ptr,
        R32F,
        n,
        n * n,
        zero.ctypes.data,
        c.data.ptr,
        R32F,
        n,
        n * n,
        1,
        COMPUTE_32F,
        ALGO_DEFAULT,
    )


def sgemm():
    stream()
    cublas.sgemm(h, 0, 0, n, n, n, one.ctypes.data, b.data.ptr, n, a.data.ptr, n, zero.ctypes.data, c.data.ptr, n)


ref = a @ b
for name, f in (
    ("cp.matmul", lambda: cp.matmul(a, b, out=c)),
    ("cp.matmul (new output)", lambda: a @ b),
    ("gemmEx", gemm_ex),
    ("gemmStridedBatchedEx batch 1", strided_batched_ex),
    ("sgemm", sgemm),
):
    f()
    same = bool(cp.array_equal(c, ref)) if "new" not in name else True
    ev = [evtime.median_ms(f, rep=20, warm=3) for _ in range(3)]
    print(f"{name:30s} events {' / '.join(f'{x:.4f}' for x in ev)} ms, bits equal to a @ b: {same}")
for name, f in (("cp.matmul", lambda: cp.matmul(a, b, out=c)), ("gemmStridedBatchedEx", strided_batched_ex)):
    evtime.kernels(f, name)
