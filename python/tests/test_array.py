"""cuprum.ndarray itself: its attributes, conversions, methods that reshape or copy, Python's
protocols (len, iter, int, float, ...), repr and str as NumPy prints them, devices."""

import operator
import os
import subprocess
import sys

import numpy as np
import pytest
from _cuprum_conftest import (
    ALL_DTYPES,
    COMPLEX,
    FLOATS,
    INTS,
    assert_same,
    dtype_id,
    random_array,
    to_np,
)

import cuprum as cp

SHAPES = [(), (0,), (7,), (3, 4), (2, 0, 3), (2, 3, 4)]


def meaningful_strides(a):
    """The strides of the axes longer than 1 (those of length 1, and all of an empty array's,
    may be anything: NumPy itself gives 0 to an empty array's)."""
    if a.size == 0:
        return ()
    return tuple(s for s, d in zip(a.strides, a.shape, strict=True) if d > 1)


def test_class_identity(device):
    x = cp.zeros(3, device=device)
    assert type(x) is cp.ndarray
    assert type(x).__name__ == "ndarray"
    assert cp.ndarray.__module__ == "cuprum"
    assert isinstance(x, cp.ndarray)
    assert not isinstance(x, np.ndarray)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_attributes(device, rng, dtype, shape):
    n = random_array(rng, shape, dtype)
    x = cp.asarray(n, device=device)
    assert isinstance(x.shape, tuple) and x.shape == n.shape
    assert all(type(d) is int for d in x.shape)
    assert isinstance(x.dtype, np.dtype) and x.dtype == n.dtype
    assert isinstance(x.strides, tuple) and len(x.strides) == n.ndim
    assert meaningful_strides(x) == meaningful_strides(n)
    assert (x.ndim, x.size, x.nbytes, x.itemsize) == (n.ndim, n.size, n.nbytes, n.itemsize)
    assert x.device == cp.Device(device)
    assert_same(x, n)


@pytest.mark.parametrize("dtype", [np.int16, np.float64, np.complex64], ids=dtype_id)
def test_view_strides(device, rng, dtype):
    n = random_array(rng, (6, 8, 5), dtype)
    x = cp.asarray(n, device=device)
    for view in [
        lambda a: a[::2],
        lambda a: a[:, 1::3],
        lambda a: a[::-1, :, ::2],
        lambda a: a.T,
        lambda a: a.transpose(1, 0, 2),
        lambda a: a[1],
        lambda a: a[:, :, 3],
        lambda a: a[None, 2:4, ..., None],
    ]:
        v, w = view(x), view(n)
        assert v.shape == w.shape
        assert meaningful_strides(v) == meaningful_strides(w)
        assert_same(v, w)


def test_T_and_mT(device, rng):
    n = random_array(rng, (2, 3, 4), np.float32)
    x = cp.asarray(n, device=device)
    assert_same(x.T, n.T)
    assert_same(x.mT, np.swapaxes(n, -1, -2))
    assert_same(x[0].T, n[0].T)
    assert_same(cp.asarray(n[0, 0], device=device).T, n[0, 0])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_get_is_a_numpy_copy(device, rng, dtype):
    n = random_array(rng, (4, 5), dtype)
    x = cp.asarray(n, device=device)
    h = x.get()
    assert type(h) is np.ndarray
    assert h.dtype == n.dtype
    np.testing.assert_array_equal(h, n)
    h[...] = 0
    np.testing.assert_array_equal(x.get(), n)
    # Views come back in their own shape and values.
    np.testing.assert_array_equal(x[::-2, 1:4].get(), n[::-2, 1:4])
    np.testing.assert_array_equal(cp.asnumpy(x.T), n.T)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_item_and_tolist(device, rng, dtype):
    n = random_array(rng, (2, 3), dtype)
    x = cp.asarray(n, device=device)
    assert x.tolist() == n.tolist()
    assert x[::-1].T.tolist() == n[::-1].T.tolist()
    for idx in [(0, 0), (1, 2)]:
        got, want = x[idx].item(), n[idx].item()
        assert type(got) is type(want)
        assert got == want
    assert cp.asarray(n[0, 0], device=device).tolist() == n[0, 0].tolist()


def test_item_python_types(device):
    assert type(cp.asarray(True, device=device).item()) is bool
    assert type(cp.asarray(np.uint64(2**64 - 1), device=device).item()) is int
    assert cp.asarray(np.uint64(2**64 - 1), device=device).item() == 2**64 - 1
    assert type(cp.asarray(np.float16(1.5), device=device).item()) is float
    assert type(cp.asarray(np.complex64(1 - 2j), device=device).item()) is complex
    assert cp.asarray(np.int64(-(2**63)), device=device).item() == -(2**63)


CAST_SOURCES = ALL_DTYPES


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("src", CAST_SOURCES, ids=dtype_id)
def test_astype_every_pair(device, rng, src):
    # Values every target holds (0..100 and their fractions): no undefined casts.
    base = rng.uniform(0, 100, (5, 7))
    if np.dtype(src).kind in "biu":
        n = base.astype(np.int64).astype(src)
    elif np.dtype(src).kind == "c":
        n = (base + 1j * base[::-1]).astype(src)
    else:
        n = base.astype(src)
    x = cp.asarray(n, device=device)
    for dst in ALL_DTYPES:
        assert_same(x.astype(dst), n.astype(dst))
        assert_same(x.T.astype(dst), n.T.astype(dst))


def test_astype_special_values(device):
    n = np.array([np.nan, np.inf, -np.inf, -0.0, 0.5, -1.5, 65504.0, 1e6], dtype=np.float64)
    x = cp.asarray(n, device=device)
    for dst in [np.float32, np.float16, np.complex64, np.bool_]:
        with np.errstate(over="ignore"):
            assert_same(x.astype(dst), n.astype(dst))
    assert np.signbit(x.astype(np.float32).get()[3])
    # Strings name dtypes too.
    with np.errstate(over="ignore"):
        assert_same(x.astype("float32"), n.astype("float32"))
        assert_same(x.astype("f2"), n.astype("f2"))


def test_astype_copy(device):
    x = cp.arange(6, dtype=np.float32, device=device)
    y = x.astype(np.float32)
    y[0] = 100
    assert x[0].item() == 0.0
    z = x.astype(np.float32, copy=False)
    z[1] = 50
    assert x[1].item() == 50.0
    w = x.astype(np.float64, copy=False)
    assert w.dtype == np.float64
    w[2] = -1
    assert x[2].item() == 2.0


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.complex128], ids=dtype_id)
def test_reshape(device, rng, dtype):
    n = random_array(rng, (4, 6), dtype)
    x = cp.asarray(n, device=device)
    for args in [(24,), ((24,),), (2, 12), ((3, 8),), (-1, 4), (2, -1, 3), ((2, 2, 2, 3),)]:
        assert_same(x.reshape(*args), n.reshape(*args))
        # A transposed view needs a copy to be reshaped.
        assert_same(x.T.reshape(*args), n.T.reshape(*args))
        assert_same(x[:, ::2].reshape(-1), n[:, ::2].reshape(-1))
    assert_same(cp.asarray(n[0, 0], device=device).reshape(1, 1), n[0, 0].reshape(1, 1))
    e = cp.zeros((0, 3), dtype=dtype, device=device)
    assert_same(e.reshape(3, 0, 5), np.zeros((0, 3), dtype).reshape(3, 0, 5))


def test_reshape_is_a_view_when_possible(device):
    x = cp.zeros((3, 4), device=device)
    v = x.reshape(12)
    v[5] = 7
    assert x[1, 1].item() == 7.0


def test_copy_ravel_flatten(device, rng):
    n = random_array(rng, (3, 5, 2), np.int32)
    x = cp.asarray(n, device=device)
    c = x.copy()
    c[0, 0, 0] = 99
    assert x[0, 0, 0].item() == n[0, 0, 0]
    for v, w in [(x, n), (x.T, n.T), (x[:, ::2], n[:, ::2]), (x[::-1, 1], n[::-1, 1])]:
        assert_same(v.copy(), w.copy())
        assert_same(v.ravel(), w.ravel())
        assert_same(v.flatten(), w.flatten())
    f = x.flatten()
    f[0] = -5
    assert x[0, 0, 0].item() == n[0, 0, 0]
    r = x.ravel()
    r[0] = -5
    assert x[0, 0, 0].item() == -5


def test_transpose_swapaxes_squeeze(device, rng):
    n = random_array(rng, (2, 1, 3, 1), np.float64)
    x = cp.asarray(n, device=device)
    assert_same(x.transpose(), n.transpose())
    assert_same(x.transpose(2, 0, 3, 1), n.transpose(2, 0, 3, 1))
    assert_same(x.transpose((3, 2, 1, 0)), n.transpose((3, 2, 1, 0)))
    assert_same(x.transpose(-1, 0, 1, 2), n.transpose(-1, 0, 1, 2))
    assert_same(x.swapaxes(0, 2), n.swapaxes(0, 2))
    assert_same(x.swapaxes(-1, 1), n.swapaxes(-1, 1))
    assert_same(x.squeeze(), n.squeeze())
    assert_same(x.squeeze(1), n.squeeze(1))
    assert_same(x.squeeze(axis=(1, 3)), n.squeeze(axis=(1, 3)))
    assert_same(x.squeeze(-1), n.squeeze(-1))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_fill(device, dtype):
    x = cp.zeros((3, 4), dtype=dtype, device=device)
    n = np.zeros((3, 4), dtype=dtype)
    x.fill(1)
    n.fill(1)
    assert_same(x, n)
    # Filling a strided view writes only its elements.
    x[:, ::2].fill(0)
    n[:, ::2].fill(0)
    assert_same(x, n)


def test_fill_float_values(device):
    x = cp.zeros(5, dtype=np.float32, device=device)
    x.fill(np.nan)
    assert np.isnan(x.get()).all()
    x.fill(2.5)
    assert_same(x, np.full(5, 2.5, np.float32))


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.float64, np.complex64], ids=dtype_id)
def test_clip_round_methods(device, rng, dtype):
    n = random_array(rng, (4, 9), dtype)
    x = cp.asarray(n, device=device)
    if np.dtype(dtype).kind != "c":
        assert_same(x.clip(-1, 2), n.clip(-1, 2))
        assert_same(x.clip(None, 0), n.clip(None, 0))
        assert_same(x.T.clip(min=0), n.T.clip(min=0))
    assert_same(x.round(), n.round())
    if np.dtype(dtype).kind == "f":
        assert_same(x.round(1), n.round(1))
        assert_same(x.round(decimals=2), n.round(decimals=2))


def test_methods_nonzero_compress_take_repeat(device, rng):
    n = random_array(rng, (4, 6), np.int16)
    n[n > 20] = 0
    x = cp.asarray(n, device=device)
    for a, b in zip(x.nonzero(), n.nonzero(), strict=True):
        assert_same(a, b)
    mask = np.array([True, False, True, True])
    assert_same(x.compress(cp.asarray(mask, device=device), axis=0), n.compress(mask, axis=0))
    assert_same(x.compress([False, True, True, False, False, True], axis=1), n.compress([0, 1, 1, 0, 0, 1], axis=1))
    idx = np.array([5, 0, 3, 3])
    assert_same(x.take(cp.asarray(idx, device=device)), n.take(idx))
    assert_same(x.take(cp.asarray(idx[:2], device=device), axis=1), n.take(idx[:2], axis=1))
    assert_same(x.take([1, -1], axis=0), n.take([1, -1], axis=0))
    assert_same(x.repeat(2), n.repeat(2))
    assert_same(x.repeat(3, axis=1), n.repeat(3, axis=1))
    assert_same(x.repeat([1, 0, 2, 1], axis=0), n.repeat([1, 0, 2, 1], axis=0))


@pytest.mark.parametrize("dtype", COMPLEX + [np.float32, np.int64], ids=dtype_id)
def test_conj_real_imag(device, rng, dtype):
    n = random_array(rng, (3, 4), dtype)
    x = cp.asarray(n, device=device)
    assert_same(x.conj(), n.conj())
    assert_same(x.real, n.real)
    assert_same(x.T.real, n.T.real)
    if np.dtype(dtype).kind == "c":
        assert_same(x.imag, n.imag)
        assert_same(x[:, ::2].imag, n[:, ::2].imag)
        # real and imag are views: writes go through.
        x.real[0, 0] = 42
        x.imag[1, 1] = -7
        n.real[0, 0] = 42
        n.imag[1, 1] = -7
        assert_same(x, n)
    else:
        assert_same(x.imag, n.imag)


def test_diagonal_and_dot_methods(device, rng):
    n = random_array(rng, (4, 5), np.float64)
    x = cp.asarray(n, device=device)
    assert_same(x.diagonal(), n.diagonal())
    assert_same(x.diagonal(1), n.diagonal(1))
    assert_same(x.diagonal(-2), n.diagonal(-2))
    m = random_array(rng, (2, 3, 3), np.int32)
    assert_same(cp.asarray(m, device=device).diagonal(0, 1, 2), m.diagonal(0, 1, 2))
    assert_same(cp.asarray(m, device=device).diagonal(axis1=0, axis2=2), m.diagonal(axis1=0, axis2=2))
    v = random_array(rng, (5,), np.float64)
    assert_same(x.dot(cp.asarray(v, device=device)), n.dot(v))
    assert_same(x.dot(x.T), n.dot(n.T), rtol=1e-12)


def test_sort_method_in_place(device, rng):
    n = random_array(rng, (5, 7), np.float32)
    x = cp.asarray(n, device=device)
    assert x.sort() is None
    n.sort()
    assert_same(x, n)
    n2 = random_array(rng, (5, 7), np.int64)
    x2 = cp.asarray(n2, device=device)
    x2.sort(axis=0)
    n2.sort(axis=0)
    assert_same(x2, n2)
    p = rng.permutation(35).reshape(5, 7).astype(np.int32)
    assert_same(cp.asarray(p, device=device).argsort(axis=None), np.argsort(p, axis=None))
    assert_same(cp.asarray(p, device=device).argsort(), np.argsort(p))
    assert_same(cp.asarray(p, device=device).argsort(axis=0), np.argsort(p, axis=0))


def test_len_and_iter(device, rng):
    n = random_array(rng, (3, 4), np.float32)
    x = cp.asarray(n, device=device)
    assert len(x) == 3
    rows = list(x)
    assert len(rows) == 3
    for r, w in zip(rows, n, strict=True):
        assert_same(r, w)
    assert [v.item() for v in x[0]] == n[0].tolist()
    assert len(cp.zeros((0, 5), device=device)) == 0
    assert list(cp.zeros((0, 5), device=device)) == []


def test_scalar_conversions(device):
    assert int(cp.asarray(7, device=device)) == 7
    assert type(int(cp.asarray(np.uint64(2**63 + 5), device=device))) is int
    assert int(cp.asarray(np.uint64(2**63 + 5), device=device)) == 2**63 + 5
    assert float(cp.asarray(2.5, device=device)) == 2.5
    assert type(float(cp.asarray(np.float16(0.25), device=device))) is float
    assert float(cp.asarray(np.float16(0.25), device=device)) == 0.25
    assert complex(cp.asarray(1 + 2j, device=device)) == 1 + 2j
    assert complex(cp.asarray(3.0, device=device)) == 3 + 0j
    assert bool(cp.asarray(1, device=device)) is True
    assert bool(cp.asarray([np.nan], device=device)[0]) is True
    assert bool(cp.asarray(0.0, device=device)) is False
    assert int(cp.asarray(-3.9, device=device)) == -3
    assert cp.asarray(4, device=device).__index__() == 4
    lst = list(range(10))
    assert lst[cp.asarray(3, device=device)] == 3
    assert lst[cp.asarray(np.uint8(2), device=device) : cp.asarray(5, device=device)] == [2, 3, 4]
    assert operator.index(cp.asarray(np.int16(-2), device=device)) == -2
    assert range(10)[cp.asarray(-1, device=device)] == 9


REPRS = [
    np.array([1.0, 2.0]),
    np.array([1, 2, 3]),
    np.array([True, False]),
    np.array([[1.5, -2.25], [1e-5, 3e8]]),
    np.array([1.0, np.nan, np.inf, -np.inf, -0.0]),
    np.array([1 + 2j, -0.5j]),
    np.array([1, 2], dtype=np.float32),
    np.array([1, 2], dtype=np.int8),
    np.array([1, 2], dtype=np.uint64),
    np.array([0.1, 0.2], dtype=np.float16),
    np.array([1 - 1j], dtype=np.complex64),
    np.array(3.5),
    np.array(7, dtype=np.int32),
    np.array([], dtype=np.float64),
    np.zeros((0, 3), dtype=np.int16),
    np.zeros((2, 0)),
    np.arange(24.0).reshape(2, 3, 4),
    np.arange(2000.0),
    np.arange(3000, dtype=np.int64).reshape(30, 100),
    np.array([123456789.0, 1e-10]),
    np.array([1e20, 1.0]),
]


@pytest.mark.parametrize("n", REPRS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_repr_and_str_like_numpy(device, n):
    x = cp.asarray(n, device=device)
    assert repr(x) == repr(n)
    assert str(x) == str(n)


def test_repr_of_views(device):
    n = np.arange(12.0).reshape(3, 4)
    x = cp.asarray(n, device=device)
    assert repr(x.T) == repr(n.T)
    assert repr(x[::2, ::-1]) == repr(n[::2, ::-1])
    assert str(x[1]) == str(n[1])


def test_array_namespace(device):
    x = cp.ones(2, device=device)
    assert x.__array_namespace__() is cp
    assert cp.float32 is np.float32
    assert cp.int64 is np.int64
    assert cp.bool_ is np.bool_
    assert cp.complex128 is np.complex128


@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.bool_], ids=dtype_id)
def test_to_device(device, rng, dtype):
    n = random_array(rng, (3, 4), dtype)
    x = cp.asarray(n, device=device)
    for target in ["cpu", device, cp.Device(device)]:
        y = x.to_device(target)
        assert y.device == cp.Device(target if isinstance(target, str) else device)
        assert_same(y, n)
    assert_same(x.T.to_device("cpu"), n.T)


def test_devices_and_current_device(device):
    d = cp.Device(device)
    assert d == cp.Device(device)
    for spec in [device, d]:
        assert cp.zeros(2, device=spec).device == d
        assert cp.asarray([1, 2], device=spec).device == d
    with d:
        assert cp.zeros(2).device == d
        assert cp.arange(3).device == d
        assert cp.asarray(np.ones(3)).device == d
        assert (cp.ones(2) + 1).device == d
    with cp.Device("cpu"):
        assert cp.empty(4).device == cp.Device("cpu")


def test_device_nesting_restores(device):
    outer = cp.Device(device)
    with outer:
        with cp.Device("cpu"):
            assert cp.ones(1).device == cp.Device("cpu")
        assert cp.ones(1).device == outer


def test_cuda_device_object(gpu):
    d = cp.cuda.Device(0)
    assert repr(d) == "<CUDA Device 0>"
    assert d.id == 0
    x = cp.zeros(3, device=gpu)
    assert x.device == d
    assert repr(x.device) == "<CUDA Device 0>"
    assert cp.zeros(3, device=d).device == cp.Device("cuda:0")
    assert cp.Device("cpu") != cp.Device("cuda:0")


def test_cpu_device_env_var():
    code = (
        "import cuprum as cp, numpy as np\n"
        "x = cp.arange(4)\n"
        "assert x.device == cp.Device('cpu'), x.device\n"
        "assert (x * 2).get().tolist() == [0, 2, 4, 6]\n"
        "print('ok')\n"
    )
    env = dict(os.environ, CUPRUM_DEVICE="cpu")
    r = subprocess.run([sys.executable, "-c", code], check=False, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_get_array_module(device):
    x = cp.ones(2, device=device)
    assert cp.get_array_module(x) is cp
    assert cp.get_array_module(np.ones(2)) is np
    assert cp.get_array_module(np.ones(2), x) is cp


@pytest.mark.parametrize("a", INTS + FLOATS + COMPLEX + [np.bool_], ids=dtype_id)
def test_result_type_and_can_cast(a):
    for b in INTS + FLOATS + COMPLEX + [np.bool_]:
        assert cp.result_type(a, b) == np.result_type(a, b)
        assert cp.can_cast(a, b) == np.can_cast(a, b)
        assert cp.can_cast(a, b, casting="same_kind") == np.can_cast(a, b, casting="same_kind")
    assert cp.result_type(cp.zeros(1, dtype=a), 1.0) == np.result_type(np.zeros(1, dtype=a), 1.0)


def test_asnumpy_and_asarray_round_trip(device, rng):
    n = random_array(rng, (3, 3), np.float64)
    x = cp.asarray(n, device=device)
    assert type(cp.asnumpy(n)) is np.ndarray and np.array_equal(cp.asnumpy(n), n)
    back = cp.asnumpy(x)
    assert type(back) is np.ndarray and np.array_equal(back, n)
    # asarray of a cuprum array on its device with its dtype makes no copy (array does).
    a = cp.asarray(x)
    a[2, 2] = 1234.5
    assert x[2, 2].item() == 1234.5
    n[2, 2] = 1234.5
    y = cp.asarray(x, dtype=np.float32)
    assert_same(y, n.astype(np.float32))
    assert to_np(cp.array(x)).tolist() == n.tolist()
    z = cp.array(x)
    z[0, 0] = -1
    assert x[0, 0].item() == n[0, 0]
