"""NumPy's protocols on cuprum arrays: __array_function__ (NumPy's functions give cuprum
arrays), __array_ufunc__ (ufuncs and their reduce), __array__ (an error on a GPU, a zero-copy
view on the CPU), DLPack both ways, and the Array API namespace."""

import numpy as np
import pytest
from _cuprum_conftest import (
    ALL_DTYPES,
    assert_same,
    dtype_id,
    random_array,
)

import cuprum as cp

GET_MESSAGE = (
    "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy array explicitly."
)


def on_device(x, device):
    assert type(x) is cp.ndarray, type(x)
    assert x.device == cp.Device(device)
    return x


# --- __array_function__ ------------------------------------------------------------------


def test_array_function_routes_numpy_functions(device, rng):
    n = random_array(rng, (6, 7), np.float64)
    m = random_array(rng, (6, 7), np.float64)
    x, y = cp.asarray(n, device=device), cp.asarray(m, device=device)
    cases = [
        (lambda a: np.median(a), lambda: np.median(n)),
        (lambda a: np.median(a, axis=0), lambda: np.median(n, axis=0)),
        (lambda a: np.sum(a, axis=0), lambda: np.sum(n, axis=0)),
        (lambda a: np.mean(a), lambda: np.mean(n)),
        (lambda a: np.std(a, axis=1, ddof=1), lambda: np.std(n, axis=1, ddof=1)),
        (lambda a: np.max(a, axis=-1, keepdims=True), lambda: np.max(n, axis=-1, keepdims=True)),
        (lambda a: np.where(a > 0.5, 1, 0), lambda: np.where(n > 0.5, 1, 0)),
        (lambda a: np.concatenate([a, y]), lambda: np.concatenate([n, m])),
        (lambda a: np.stack([a, y], axis=1), lambda: np.stack([n, m], axis=1)),
        (lambda a: np.reshape(a, (7, 6)), lambda: np.reshape(n, (7, 6))),
        (lambda a: np.transpose(a), lambda: np.transpose(n)),
        (lambda a: np.sort(a, axis=0), lambda: np.sort(n, axis=0)),
        (lambda a: np.cumsum(a), lambda: np.cumsum(n)),
        (lambda a: np.dot(a, y.T), lambda: np.dot(n, m.T)),
        (lambda a: np.linalg.norm(a), lambda: np.linalg.norm(n)),
        (
            lambda a: np.linalg.inv(a[:6, :6] + 10 * cp.eye(6, device=device)),
            lambda: np.linalg.inv(n[:6, :6] + 10 * np.eye(6)),
        ),
        (lambda a: np.fft.fft(a), lambda: np.fft.fft(n)),
        (lambda a: np.percentile(a, 30), lambda: np.percentile(n, 30)),
        (lambda a: np.clip(a, -1, 1), lambda: np.clip(n, -1, 1)),
        (lambda a: np.full_like(a, 3.0), lambda: np.full_like(n, 3.0)),
        (lambda a: np.zeros_like(a), lambda: np.zeros_like(n)),
        (lambda a: np.unique(np.round(a)), lambda: np.unique(np.round(n))),
        (lambda a: np.allclose(a, a), lambda: np.allclose(n, n)),
    ]
    for f, g in cases:
        got = f(x)
        want = g()
        if isinstance(want, bool):
            assert bool(got) is want
            continue
        on_device(got, device)
        assert_same(got, want)


def test_array_function_lesson_calls(device, rng):
    # Lessons 000-002: np.convolve and np.where on device arrays, through the profiler.
    d = random_array(rng, (200,), np.float32)
    g = random_array(rng, (15,), np.float32)
    cd, cg = cp.asarray(d, device=device), cp.asarray(g, device=device)
    got = np.convolve(cd, cg)
    on_device(got, device)
    assert_same(got, np.convolve(d, g), rtol=1e-5, atol=1e-4)
    got = np.where(cd > 0.3, 1, 0)
    on_device(got, device)
    assert_same(got, np.where(d > 0.3, 1, 0))
    # kappa-sigma clipping as lesson 002 writes it.
    flat = cd.ravel()
    med, std = np.median(flat), np.std(flat)
    kept = flat.compress((flat - med) < 2 * std)
    nf = d.ravel()
    want = nf.compress((nf - np.median(nf)) < 2 * np.std(nf))
    assert len(kept) == len(want)
    assert_same(kept, want)


def test_array_function_missing_is_type_error(device):
    x = cp.arange(4, device=device)
    with pytest.raises(TypeError):
        np.busday_count(x, x)


def test_array_function_kwargs_and_out(device, rng):
    n = random_array(rng, (4, 5), np.float32)
    x = cp.asarray(n, device=device)
    o = cp.empty(5, dtype=np.float32, device=device)
    r = np.sum(x, axis=0, out=o)
    assert r is o
    assert_same(o, n.sum(axis=0))
    assert_same(
        np.mean(x, axis=(0, 1), keepdims=True, dtype=np.float64), n.mean(axis=(0, 1), keepdims=True, dtype=np.float64)
    )


# --- __array_ufunc__ ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64, np.complex64], ids=dtype_id)
def test_array_ufunc(device, rng, dtype):
    n = random_array(rng, (5, 6), dtype)
    m = random_array(rng, (6,), dtype)
    x, y = cp.asarray(n, device=device), cp.asarray(m, device=device)
    for got, want in [
        (np.add(x, 1), np.add(n, 1)),
        (np.add(x, y), np.add(n, m)),
        (np.multiply(2, x), np.multiply(2, n)),
        (np.exp(x), np.exp(n)),
        (np.negative(x), np.negative(n)),
        (np.maximum(x, y), np.maximum(n, m)),
        (np.add.reduce(x), np.add.reduce(n)),
        (np.add.reduce(x, axis=1), np.add.reduce(n, axis=1)),
        (np.multiply.reduce(x, axis=0), np.multiply.reduce(n, axis=0)),
        (np.isnan(x), np.isnan(n)),
        (np.equal(x, x), np.equal(n, n)),
    ]:
        on_device(got, device)
        r = 2e-5 if np.dtype(want.dtype).char in "fF" else 1e-12
        assert_same(got, want, rtol=r, atol=r * max(1.0, float(np.abs(want).max(initial=1))))


def test_array_ufunc_out_and_scalars(device, rng):
    n = random_array(rng, (8,), np.float64, positive=True)
    x = cp.asarray(n, device=device)
    o = cp.empty(8, device=device)
    assert np.sqrt(x, out=o) is o
    assert_same(o, np.sqrt(n))
    r = np.float64(2.0) * x
    on_device(r, device)
    assert_same(r, np.float64(2.0) * n)
    f = cp.ones(3, dtype=np.float32, device=device)
    r = np.float32(1.5) + f
    on_device(r, device)
    assert r.dtype == np.float32
    # A NumPy scalar of a wider kind is strong (NEP 50).
    assert (np.float64(1.5) + f).dtype == np.float64


# --- __array__ ---------------------------------------------------------------------------


def test_array_on_gpu_raises(gpu):
    x = cp.arange(5, device=gpu)
    with pytest.raises(TypeError) as e:
        np.asarray(x)
    assert str(e.value) == GET_MESSAGE
    with pytest.raises(TypeError) as e:
        np.array(x)
    assert str(e.value) == GET_MESSAGE
    import scipy.signal

    with pytest.raises(TypeError) as e:
        scipy.signal.convolve2d(cp.ones((4, 4), device=gpu), cp.ones((2, 2), device=gpu))
    assert GET_MESSAGE in str(e.value)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_array_on_cpu_is_a_zero_copy_view(rng, dtype):
    n = random_array(rng, (4, 5), dtype)
    x = cp.asarray(n, device="cpu")
    h = np.asarray(x)
    assert type(h) is np.ndarray
    assert h.dtype == n.dtype and h.shape == n.shape
    np.testing.assert_array_equal(h, n)
    # Writes through the NumPy view are seen by the cuprum array, and the other way.
    h[1, 2] = n[0, 0]
    n[1, 2] = n[0, 0]
    assert_same(x, n)
    x[3, 4] = x[0, 1]
    n[3, 4] = n[0, 1]
    np.testing.assert_array_equal(h, n)


def test_array_on_cpu_views_keep_their_strides(rng):
    n = random_array(rng, (6, 8), np.float32)
    x = cp.asarray(n, device="cpu")
    for v, w in [(x.T, n.T), (x[::2, 1::3], n[::2, 1::3]), (x[::-1], n[::-1])]:
        h = np.asarray(v)
        np.testing.assert_array_equal(h, w)
        assert h.strides == w.strides
    t = np.asarray(x.T)
    t[0, 1] = 123.0
    assert x[1, 0].item() == 123.0
    # np.array copies by default.
    c = np.array(x)
    c[0, 0] = n[0, 0] + 1
    assert x[0, 0].item() == n[0, 0]


def test_numpy_functions_on_cpu_arrays_via_asarray(rng):
    n = random_array(rng, (10,), np.float64)
    x = cp.asarray(n, device="cpu")
    assert np.asarray(x).sum() == pytest.approx(n.sum())
    assert_same(cp.asarray(np.asarray(x) * 2), n * 2)


# --- DLPack ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_dlpack_to_numpy_on_cpu(rng, dtype):
    n = random_array(rng, (3, 4), dtype)
    x = cp.asarray(n, device="cpu")
    assert tuple(x.__dlpack_device__()) == (1, 0)
    h = np.from_dlpack(x)
    assert type(h) is np.ndarray and h.dtype == n.dtype
    np.testing.assert_array_equal(h, n)
    np.testing.assert_array_equal(np.from_dlpack(x.T), n.T)
    np.testing.assert_array_equal(np.from_dlpack(x[:, ::2]), n[:, ::2])
    # Zero copy: the exported array sees later writes.
    x[0, 0] = x[1, 1]
    assert h[0, 0] == n[1, 1]


def test_dlpack_device_on_gpu(gpu):
    x = cp.zeros(3, device=gpu)
    assert tuple(x.__dlpack_device__()) == (2, 0)
    with pytest.raises((TypeError, RuntimeError, BufferError, ValueError)):
        np.from_dlpack(x)


@pytest.mark.parametrize(
    "dtype", [np.bool_, np.int8, np.uint16, np.int64, np.float16, np.float32, np.complex128], ids=dtype_id
)
def test_from_dlpack_numpy(rng, dtype):
    n = random_array(rng, (5, 3), dtype)
    x = cp.from_dlpack(n)
    assert type(x) is cp.ndarray
    assert x.device == cp.Device("cpu")
    assert_same(x, n)
    assert_same(cp.from_dlpack(n.T), n.T)
    assert_same(cp.from_dlpack(n[::2]), n[::2])


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.complex64], ids=dtype_id)
def test_from_dlpack_round_trip(device, rng, dtype):
    n = random_array(rng, (4, 6), dtype)
    x = cp.asarray(n, device=device)
    y = cp.from_dlpack(x)
    on_device(y, device)
    assert_same(y, n)
    assert_same(cp.from_dlpack(x[:, 1::2]), n[:, 1::2])
    assert_same(cp.from_dlpack(x.T), n.T)


def test_array_namespace_and_api_version(device):
    x = cp.ones((2, 2), device=device)
    xp = x.__array_namespace__()
    assert xp is cp
    assert isinstance(cp.__array_api_version__, str)
    y = xp.matmul(x, xp.ones((2, 2), device=x.device))
    assert_same(y, np.full((2, 2), 2.0))
