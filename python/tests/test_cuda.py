"""cuprum.cuda on both devices (Device, Stream, Event, elapsed times, the memory pool),
cuprumx.profiler.benchmark (shapes, units, CuPy's text), and CuPy's kernels from CUDA C
(ElementwiseKernel, ReductionKernel, RawKernel, RawModule): GPU only, NotImplementedError on
the CPU."""

import re
import time

import numpy as np
import pytest
from _cuprum_conftest import assert_same, random_array

import cuprum as cp
from cuprumx.profiler import benchmark

# --- Device ------------------------------------------------------------------------------


def test_cuda_device(gpu):
    d = cp.cuda.Device(0)
    assert d.id == 0
    assert repr(d) == "<CUDA Device 0>"
    with d:
        x = cp.arange(10)
        assert x.device == d
        y = x * 2
    d.synchronize()
    assert y.get().tolist() == list(range(0, 20, 2))
    cp.cuda.Device().synchronize()


def test_is_available_matches_device_creation():
    if cp.cuda.is_available():
        assert cp.zeros(2, device="cuda:0").device == cp.Device("cuda:0")
    else:
        with pytest.raises((ValueError, RuntimeError)):
            cp.zeros(2, device="cuda:0")


# --- Stream ------------------------------------------------------------------------------


def test_stream_scope_and_current_stream(device, rng):
    n = random_array(rng, (200, 50), np.float64)
    with cp.Device(device):
        s = cp.cuda.Stream()
        assert isinstance(s.ptr, int)
        before = cp.cuda.get_current_stream()
        with s as entered:
            assert entered is s
            assert cp.cuda.get_current_stream() == s
            x = cp.asarray(n)
            y = (x @ x.T).sum(axis=1)
            z = cp.exp(x).mean()
        assert cp.cuda.get_current_stream() == before
        assert cp.cuda.get_current_stream() != s
        s.synchronize()
        assert_same(y, (n @ n.T).sum(axis=1), rtol=1e-10, atol=1e-8)
        assert_same(z, np.exp(n).mean())


def test_two_streams_and_null(device):
    with cp.Device(device):
        s1, s2 = cp.cuda.Stream(), cp.cuda.Stream()
        assert s1 != s2
        assert cp.cuda.Stream.null is not None
        cp.cuda.Stream.null.synchronize()
        with s1:
            a = cp.arange(1000, dtype=np.float64)
            b = a * 3
        with s2:
            c = cp.ones(1000)
        s1.synchronize()
        s2.synchronize()
        # Work from one stream read on another after its synchronize.
        with s2:
            d = b + c
        s2.synchronize()
        assert_same(d, np.arange(1000.0) * 3 + 1)


def test_nested_streams_restore(device):
    with cp.Device(device):
        s1, s2 = cp.cuda.Stream(), cp.cuda.Stream()
        with s1:
            with s2:
                assert cp.cuda.get_current_stream() == s2
            assert cp.cuda.get_current_stream() == s1


def test_gpu_streams_have_distinct_handles(gpu):
    with cp.cuda.Device(0):
        s1, s2 = cp.cuda.Stream(), cp.cuda.Stream()
        assert s1.ptr != 0 and s2.ptr != 0 and s1.ptr != s2.ptr


# --- Event -------------------------------------------------------------------------------


def test_events_and_elapsed_time(device):
    with cp.Device(device):
        e1, e2 = cp.cuda.Event(), cp.cuda.Event()
        e1.record()
        time.sleep(0.02)
        x = cp.ones((300, 300))
        y = x @ x
        e2.record()
        e2.synchronize()
        assert e2.query() is True
        assert e1.query() is True
        ms = cp.cuda.get_elapsed_time(e1, e2)
        assert isinstance(ms, float)
        # The 20 ms sleep lies between the records: an idle device reaches the second
        # record that much later (host clock on the CPU, CUDA events on a GPU).
        assert 15.0 <= ms < 10_000.0
        assert cp.cuda.get_elapsed_time(e1, e1) == pytest.approx(0.0, abs=1e-3)
        assert float(y[0, 0]) == 300.0


def test_event_on_a_stream(device):
    with cp.Device(device):
        s = cp.cuda.Stream()
        e1, e2 = cp.cuda.Event(), cp.cuda.Event()
        e1.record(s)
        with s:
            x = cp.arange(10_000, dtype=np.float32).sum()
        e2.record(stream=s)
        e2.synchronize()
        assert e2.query()
        assert cp.cuda.get_elapsed_time(e1, e2) >= 0.0
        assert float(x) == float(np.arange(10_000, dtype=np.float32).sum())


def test_memory_pool(gpu):
    pool = cp.cuda.get_default_memory_pool()
    with cp.cuda.Device(0):
        before = pool.used_bytes()
        x = cp.zeros(1 << 20, dtype=np.float64)
        cp.cuda.Device(0).synchronize()
        assert pool.used_bytes() >= before + x.nbytes
        del x
        cp.cuda.Device(0).synchronize()
        assert pool.used_bytes() <= before + 4096
        pool.free_all_blocks()
        y = cp.ones(10)
        assert float(y.sum()) == 10.0


# --- profiler.benchmark ------------------------------------------------------------------

NUM = r"\s*-?\d+\.\d{3}"
ITEM = rf"(CPU|GPU-\S+|[\w-]+):{NUM} us(   \+/-{NUM} \(min:{NUM} / max:{NUM}\) us)?"


SPIN = r"""
extern "C" __global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
}
"""


def test_benchmark_shapes_and_units(device):
    with cp.Device(device):
        x = cp.ones((256, 256))
        # The device's time is its work's: on a GPU the events around the call may both reach the GPU after
        # the host's sleep, so the GPU does 3e6 cycles of work (>= 1.5 ms at the H100's 1.98 GHz) itself.
        spin = cp.RawKernel(SPIN, "spin") if device != "cpu" else None

        def work(a, scale=1.0):
            time.sleep(0.002)
            if spin is not None:
                spin((1,), (1,), (3_000_000,))
            return (a * scale).sum()

        r = benchmark(work, (x,), {"scale": 2.0}, n_repeat=6, n_warmup=2)
    assert isinstance(r.cpu_times, np.ndarray) and isinstance(r.gpu_times, np.ndarray)
    assert r.cpu_times.shape == (6,)
    assert r.gpu_times.shape == (1, 6)
    assert r.cpu_times.dtype == np.float64 and r.gpu_times.dtype == np.float64
    # Seconds: each call sleeps 2 ms.
    assert (r.cpu_times >= 0.0019).all() and (r.cpu_times < 5.0).all()
    assert (r.gpu_times >= 0.0015).all() and (r.gpu_times < 5.0).all()


def test_benchmark_str_format(device):
    with cp.Device(device):
        x = cp.arange(1000, dtype=np.float32)

        def my_func(a):
            return cp.sqrt(a) + 1

        r = benchmark(my_func, (x,), n_repeat=5, n_warmup=1)
    s = str(r)
    assert s.startswith("my_func" + " " * (20 - len("my_func")) + ":    CPU:")
    pat = rf"^my_func\s*:    {ITEM}(     {ITEM})+$"
    assert re.match(pat, s), s
    assert re.search(rf"    CPU:{NUM} us   \+/-{NUM} \(min:{NUM} / max:{NUM}\) us", s), s
    if device != "cpu":
        assert "     GPU-0:" in s, s
    # The numbers are the arrays' statistics in microseconds.
    mean_us = float(re.search(r"CPU:\s*(\S+) us", s).group(1))
    assert mean_us == pytest.approx(r.cpu_times.mean() * 1e6, abs=1e-3)


def test_benchmark_name_single_repeat_and_max_duration(device):
    with cp.Device(device):
        x = cp.ones(10)
        r = benchmark(cp.sum, (x,), n_repeat=1, name="a_long_benchmark_name_here", n_warmup=0)
        assert r.cpu_times.shape == (1,) and r.gpu_times.shape == (1, 1)
        s = str(r)
        assert s.startswith("a_long_benchmark_name_here:    CPU:")
        assert "+/-" not in s
        r = benchmark(lambda: time.sleep(0.01), n_repeat=1000, max_duration=0.03, n_warmup=0)
        assert 1 <= r.cpu_times.shape[0] <= 10
        assert r.gpu_times.shape == (1, r.cpu_times.shape[0])
        assert str(r).startswith("<lambda>")


# --- CUDA C kernels ----------------------------------------------------------------------

ADD_SRC = r"""
extern "C" __global__ void my_add(const float* x1, const float* x2, float* y, int n) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < n) y[tid] = x1[tid] + x2[tid];
}
"""


def test_elementwise_kernel_on_gpu(gpu, rng):
    k = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * y + 1.0f", "fma_like")
    a = random_array(rng, (100,), np.float32)
    b = random_array(rng, (100,), np.float32)
    with cp.cuda.Device(0):
        z = k(cp.asarray(a), cp.asarray(b))
    assert_same(z, a * b + np.float32(1))
    generic = cp.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff")
    i = rng.integers(-100, 100, 50).astype(np.int64)
    with cp.cuda.Device(0):
        out = generic(cp.asarray(i), cp.asarray(i[::-1].copy()))
    assert_same(out, (i - i[::-1]) ** 2)
    # NumPy scalars are arguments by value (the lesson's gpdf(x, np.float32(0), np.float32(1))), as are
    # Python scalars; a generic T takes the array's type.
    gpdf = cp.ElementwiseKernel(
        "float32 x, float32 mean, float32 sigma",
        "float32 y",
        "y = expf(-0.5f * ((x - mean) / sigma) * ((x - mean) / sigma))",
        "g",
    )
    with cp.cuda.Device(0):
        xa = cp.asarray(a)
        want = np.exp(-0.5 * ((a - np.float32(0.5)) / np.float32(2)) ** 2)
        np.testing.assert_allclose(gpdf(xa, np.float32(0.5), np.float32(2)).get(), want, rtol=1e-6)
        np.testing.assert_allclose(gpdf(xa, 0.5, np.float64(2)).get(), want, rtol=1e-6)
        out2 = generic(cp.asarray(i), np.int64(3))
    assert_same(out2, (i - 3) ** 2)


def test_reduction_kernel_on_gpu(gpu, rng):
    k = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "sum_of_squares")
    a = random_array(rng, (30, 40), np.float64)
    with cp.cuda.Device(0):
        x = cp.asarray(a)
        assert_same(k(x), (a * a).sum(), rtol=1e-12)
        assert_same(k(x, axis=1), (a * a).sum(axis=1), rtol=1e-12)


def test_raw_kernel_and_module_on_gpu(gpu, rng):
    a = random_array(rng, (1000,), np.float32)
    b = random_array(rng, (1000,), np.float32)
    with cp.cuda.Device(0):
        x1, x2 = cp.asarray(a), cp.asarray(b)
        y = cp.zeros(1000, dtype=np.float32)
        kern = cp.RawKernel(ADD_SRC, "my_add")
        kern((8,), (128,), (x1, x2, y, np.int32(1000)))
        assert_same(y, a + b)
        mod = cp.RawModule(code=ADD_SRC)
        f = mod.get_function("my_add")
        y2 = cp.zeros(1000, dtype=np.float32)
        f((4,), (256,), (x1, x2, y2, np.int32(1000)))
        assert_same(y2, a + b)


def test_cuda_c_kernels_need_a_gpu():
    with cp.Device("cpu"):
        x = cp.ones(4, dtype=np.float32)
        with pytest.raises(NotImplementedError):
            k = cp.ElementwiseKernel("float32 x", "float32 y", "y = x * 2", "double_it")
            k(x)
        with pytest.raises(NotImplementedError):
            r = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "plain_sum")
            r(x)
        with pytest.raises(NotImplementedError):
            kern = cp.RawKernel(ADD_SRC, "my_add")
            kern((1,), (4,), (x, x, cp.zeros(4, dtype=np.float32), np.int32(4)))
        with pytest.raises(NotImplementedError):
            cp.RawModule(code=ADD_SRC).get_function("my_add")((1,), (4,), (x, x, x, np.int32(4)))


# ----------------------------------------------------------------------------------------- host copies


@pytest.mark.parametrize("n", [1000, 3 << 20])  # below and above the pooled/staged sizes
def test_host_copies_both_ways(gpu, rng, n):
    """asarray/asnumpy/get/set of small and large arrays (large ones: from the NumPy array's own memory
    through the staging buffers, back through cuprum's host pool viewed by NumPy)."""
    h = rng.standard_normal(n).astype(np.float32)
    x = cp.asarray(h, device=gpu)
    back = cp.asnumpy(x)
    np.testing.assert_array_equal(back, h)
    assert back.flags.writeable and back.dtype == np.float32
    back[:3] = 7  # NumPy's own array: writing it leaves the device array alone
    np.testing.assert_array_equal(x[:3].get(), h[:3])
    del x
    np.testing.assert_array_equal(back[3:], h[3:])  # the host copy outlives the device array
    # Views and other layouts.
    m = rng.standard_normal((n // 1000, 1000)).astype(np.float64)
    xm = cp.asarray(m[:, ::2], device=gpu)
    np.testing.assert_array_equal(xm.get(), m[:, ::2])
    np.testing.assert_array_equal(cp.asnumpy(xm.T), m[:, ::2].T)
    # set from a NumPy array of the same shape and dtype, and from one of another dtype or layout.
    y = cp.empty(n, dtype=cp.float32, device=gpu)
    y.set(h)
    np.testing.assert_array_equal(y.get(), h)
    y.set(h[::-1].copy())
    np.testing.assert_array_equal(y.get(), h[::-1])
    y.set(h.astype(np.float64))
    np.testing.assert_array_equal(y.get(), h)
    # get(out=) into NumPy memory (pageable), and out= of another dtype (converted).
    out = np.empty(n, np.float32)
    assert y.get(out=out) is out
    np.testing.assert_array_equal(out, h)
    out64 = np.empty(n, np.float64)
    y.get(out=out64)
    np.testing.assert_array_equal(out64, h)


def test_pinned_copies_on_streams(gpu, rng):
    """The lessons' pipeline: chunks set from pinned memory, computed and got back into pinned memory, each
    on its own stream without a host wait (blocking=False), read after the streams are synchronised."""
    import cuprumx

    k, n = 4, 1 << 20
    pinned = [cuprumx.empty_pinned((n,), np.float32) for _ in range(k)]
    outs = [cuprumx.zeros_pinned((n,), np.float32) for _ in range(k)]
    for p in pinned:
        p[:] = rng.random(n, dtype=np.float32)
    dev = [cp.empty(n, cp.float32, device=gpu) for _ in range(k)]
    streams = [cp.cuda.Stream(non_blocking=True) for _ in range(2)]
    for i in range(k):
        st = streams[i % 2]
        with st:
            dev[i].set(pinned[i], stream=st)
            cp.exp(dev[i], out=dev[i])
            assert dev[i].get(out=outs[i], stream=st, blocking=False) is outs[i]
    for st in streams:
        st.synchronize()
    for p, o in zip(pinned, outs, strict=True):
        np.testing.assert_allclose(o, np.exp(p), rtol=1e-6)
    # blocking=True (the default) waits for the copy itself.
    with streams[0]:
        dev[0].set(pinned[1], stream=streams[0])
        dev[0].get(out=outs[0], stream=streams[0])
    np.testing.assert_array_equal(outs[0], pinned[1])


def test_errstate_linalg(device):
    """cuprumx.errstate(linalg=): "raise" (the default, NumPy's) reads the solver's status back on a GPU;
    "ignore" (CuPy's default) does not; the CPU always raises."""
    import cuprumx

    singular = cp.zeros((3, 3), device=device)
    with pytest.raises(np.linalg.LinAlgError):
        cp.linalg.inv(singular)
    with cuprumx.errstate(linalg="ignore"):
        if device == "cpu":
            with pytest.raises(np.linalg.LinAlgError):
                cp.linalg.inv(singular)
        else:
            cp.linalg.inv(singular)  # no read-back: no error
    with pytest.raises(np.linalg.LinAlgError):
        cp.linalg.inv(singular)  # restored
    with pytest.raises(ValueError):
        cuprumx.errstate(linalg="warn")
