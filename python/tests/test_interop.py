"""Zero-copy exchange with PyTorch, CuPy and Numba on the GPU, both ways, with the stream handshake.

cuprum's default stream does not wait for CUDA's legacy stream (nor the legacy stream for it), so a consumer
that reads a cuprum array without the handshake can read it before cuprum's kernel wrote it. Each test
writes the array with a slow one-block kernel (a spin of ~50 ms, then the write) and hands it over at once,
after the consumer library is warmed up: a cold consumer's own start-up would hide a missing wait.
"""

from __future__ import annotations

import numpy as np
import pytest

import cuprum as cp

SLOW = r"""
extern "C" __global__ void slow_fill(float* x, long long n, double v, long long spin) {
    if (threadIdx.x == 0) {
        long long t0 = clock64();
        while (clock64() - t0 < spin) { }
    }
    __syncthreads();
    for (long long i = threadIdx.x; i < n; i += blockDim.x) x[i] = (float)v;
}
"""
SPIN = 100_000_000  # clock cycles: about 50 ms on an H100
N = 1 << 20


def _needs(gpu: str, name: str):  # noqa: ANN202
    return pytest.importorskip(name, reason=f"{name} is not installed")


def _slow_fill(x: cp.ndarray, v: float) -> None:
    k = cp.RawKernel(SLOW, "slow_fill")
    k((1,), (256,), (x, x.size, float(v), SPIN))


def _warm_torch(torch) -> None:  # noqa: ANN001
    torch.ones(16, device="cuda").sum().item()


@pytest.mark.parametrize("side_stream", [False, True], ids=["default-stream", "side-stream"])
def test_torch_reads_cuprum(gpu, side_stream):
    torch = _needs(gpu, "torch")
    _warm_torch(torch)
    x = cp.zeros(N, dtype=cp.float32)
    x.sum().item()  # compiled and allocated before the timed hand-over
    for v in (3.0, 5.0):
        if side_stream:
            with cp.cuda.Stream():
                _slow_fill(x, v)
        else:
            _slow_fill(x, v)
        t = torch.from_dlpack(x)
        assert t.device.type == "cuda"
        assert t.data_ptr() == x.ptr  # zero-copy
        assert t.sum().item() == v * N, "torch read the array before cuprum's kernel wrote it"


@pytest.mark.parametrize("side_stream", [False, True], ids=["default-stream", "side-stream"])
@pytest.mark.parametrize("protocol", ["dlpack", "cai"])
def test_cupy_reads_cuprum(gpu, protocol, side_stream):
    cupy = _needs(gpu, "cupy")
    cupy.ones(16).sum().item()
    x = cp.zeros(N, dtype=cp.float32)
    x.sum().item()
    for v in (2.0, 7.0):
        if side_stream:
            with cp.cuda.Stream():
                _slow_fill(x, v)
        else:
            _slow_fill(x, v)
        c = cupy.from_dlpack(x) if protocol == "dlpack" else cupy.asarray(x)
        assert c.data.ptr == x.ptr
        assert float(c.sum()) == v * N, "CuPy read the array before cuprum's kernel wrote it"


def test_numba_reads_cuprum_and_runs_a_kernel_on_it(gpu):
    numba = _needs(gpu, "numba")
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack  # numba-cuda 0.68 still names it; NumPy 2.5 removed the alias
    from numba import cuda

    @cuda.jit
    def twice(a, out):  # a lesson-003-style kernel on cuprum arrays
        i = cuda.grid(1)
        if i < a.size:
            out[i] = 2 * a[i]

    x = cp.zeros(N, dtype=cp.float32)
    out = cp.empty_like(x)
    x.sum().item()
    twice[4, 256](cuda.as_cuda_array(x), cuda.as_cuda_array(out))  # warm up (compiles)
    cuda.synchronize()
    _slow_fill(x, 4.0)
    d = cuda.as_cuda_array(x)
    twice[(N + 255) // 256, 256](d, cuda.as_cuda_array(out))
    cuda.synchronize()
    assert float(out.sum()) == 8.0 * N, "numba read the array before cuprum's kernel wrote it"
    assert numba.__version__


def test_cuprum_reads_torch(gpu):
    torch = _needs(gpu, "torch")
    _warm_torch(torch)
    cp.zeros(4).sum().item()
    t = torch.zeros(N, device="cuda")
    for v in (1.5, 6.0):
        torch.cuda._sleep(SPIN)  # torch's own slow kernel on its current stream
        t.fill_(v)
        x = cp.from_dlpack(t)
        assert x.ptr == t.data_ptr()
        assert float(x.sum()) == v * N, "cuprum read torch's tensor before torch wrote it"
        y = cp.asarray(t)  # asarray takes DLPack producers too
        assert float(y.sum()) == v * N


def test_cuprum_reads_cupy_both_protocols(gpu):
    cupy = _needs(gpu, "cupy")
    cupy.ones(16).sum().item()
    cp.zeros(4).sum().item()
    k = cupy.RawKernel(SLOW, "slow_fill")
    c = cupy.zeros(N, dtype=cupy.float32)
    for v in (2.5, 9.0):
        k((1,), (256,), (c, np.int64(N), np.float64(v), np.int64(SPIN)))
        x = cp.from_dlpack(c)
        assert float(x.sum()) == v * N
        k((1,), (256,), (c, np.int64(N), np.float64(v + 1), np.int64(SPIN)))
        y = cp.asarray(c)  # __cuda_array_interface__
        assert y.ptr == c.data.ptr
        assert float(y.sum()) == (v + 1) * N


def test_imported_memory_stays_its_owners(gpu):
    torch = _needs(gpu, "torch")
    t = torch.arange(1000, device="cuda", dtype=torch.float64)
    x = cp.from_dlpack(t)
    del t  # cuprum's array keeps torch's storage alive
    assert float(x.sum()) == 999 * 1000 / 2
    pool = cp.cuda.get_default_memory_pool()
    before = pool.used_bytes()
    del x
    assert pool.used_bytes() == before  # never cuprum's pool


def test_dlpack_copy_and_device_requests(gpu):
    x = cp.arange(10, dtype=cp.float64)
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(1, 0), copy=False)

    class Host:  # a producer that asks cuprum for a host copy, as array-api-tests' to_device does
        def __dlpack__(self, **kw):  # noqa: ANN003, ANN204
            return x.__dlpack__(dl_device=(1, 0), copy=True, max_version=(1, 0))

        def __dlpack_device__(self):  # noqa: ANN204
            return (1, 0)

    h = np.from_dlpack(Host())
    np.testing.assert_array_equal(h, np.arange(10.0))
