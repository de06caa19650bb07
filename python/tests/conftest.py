"""Fixtures and helpers shared by cuprum's pytest suite.

Every test compares cuprum with NumPy/SciPy. The ``device`` fixture runs a test on the CPU
backend always and on the first GPU when there is one; with ``CUPRUM_REQUIRE_GPU=1`` a
missing GPU fails the GPU cases instead of skipping them (the GPU machines set it).

Test modules import the helpers below with ``from _cuprum_conftest import ...``: this module
registers itself under that name, because a bare ``import conftest`` can pick up another
directory's conftest.py (pytest replaces ``sys.modules["conftest"]`` for each one it loads).
"""

import os
import sys

import numpy as np
import pytest

import cuprum as cp

sys.modules.setdefault("_cuprum_conftest", sys.modules[__name__])

GPU = bool(cp.cuda.is_available())
REQUIRE_GPU = os.environ.get("CUPRUM_REQUIRE_GPU") == "1"

BOOL = [np.bool_]
SIGNED = [np.int8, np.int16, np.int32, np.int64]
UNSIGNED = [np.uint8, np.uint16, np.uint32, np.uint64]
INTS = SIGNED + UNSIGNED
FLOATS = [np.float16, np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
INEXACT = FLOATS + COMPLEX
REAL = BOOL + INTS + FLOATS
NUMERIC = INTS + FLOATS + COMPLEX
ALL_DTYPES = BOOL + INTS + FLOATS + COMPLEX


def dtype_id(dt):
    """A short id for a dtype in a parametrized test's name."""
    return np.dtype(dt).name


def require_device(name):
    """`name` itself when the device exists; otherwise skip, or fail under CUPRUM_REQUIRE_GPU=1."""
    if name != "cpu" and not GPU:
        if REQUIRE_GPU:
            pytest.fail("CUPRUM_REQUIRE_GPU=1 but cuprum.cuda.is_available() is False", pytrace=False)
        pytest.skip("no GPU")
    return name


@pytest.fixture(params=["cpu", "cuda:0"])
def device(request):
    """The device a test runs on, as the string that `device=` takes: "cpu" or "cuda:0"."""
    return require_device(request.param)


@pytest.fixture
def gpu():
    """The first GPU, as "cuda:0", for GPU-only tests (skipped without one, failed under CUPRUM_REQUIRE_GPU=1)."""
    return require_device("cuda:0")


@pytest.fixture
def rng():
    """A fresh NumPy generator with a fixed seed: the inputs are the same on every run."""
    return np.random.default_rng(20261128)


def to_np(x):
    """A cuprum array's values as a NumPy array (a copy made by ``cuprum.asnumpy``)."""
    return cp.asnumpy(x)


def is_cuprum(x):
    return type(x) is cp.ndarray


def random_array(rng, shape, dtype, *, low=None, high=None, positive=False, nonzero=False):
    """Random NumPy values of `dtype`: integers in a small range (sums and products stay far
    from overflow), floats of a few units, complex with both parts random. `positive` draws
    values > 0 (for log, sqrt, ...); `nonzero` avoids zeros (for division)."""
    dt = np.dtype(dtype)
    if isinstance(shape, int):
        shape = (shape,)
    if dt == np.bool_:
        return np.asarray(rng.random(shape) < 0.5)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo = 1 if positive else (0 if dt.kind == "u" else max(info.min, -50))
        hi = min(info.max, 50) if high is None else high
        lo = lo if low is None else low
        x = np.asarray(rng.integers(lo, hi, size=shape, endpoint=True)).astype(dt)
        if nonzero:
            x[x == 0] = 1
        return x
    lo = (0.1 if positive else -3.0) if low is None else low
    hi = 3.0 if high is None else high
    if dt.kind == "c":
        re = rng.uniform(lo, hi, shape)
        im = rng.uniform(lo, hi, shape)
        x = np.asarray(re + 1j * im).astype(dt)
    else:
        x = np.asarray(rng.uniform(lo, hi, shape)).astype(dt)
    if nonzero:
        x[np.abs(x) < 0.05] = 0.5
    return x


def tolerance(dtype):
    """The relative tolerance for results of `dtype` (a few units in the last place of the
    computation, and room for another summation order)."""
    dt = np.dtype(dtype)
    if dt.kind == "c":
        dt = np.dtype(np.float32 if dt == np.complex64 else np.float64)
    return {"e": 4e-3, "f": 2e-5, "d": 1e-12}.get(dt.char, 0.0)


def assert_same(c, n, *, rtol=None, atol=None, check_dtype=True, cuprum_type=True):
    """Assert that cuprum's result `c` matches NumPy's `n`: `c` is a cuprum array (unless
    `cuprum_type` is False), with the same dtype and shape, and the same values: exact for
    booleans and integers, within a tolerance for the dtype otherwise (see `tolerance`; the
    absolute one defaults to the relative one), NaNs in the same places."""
    if cuprum_type:
        assert is_cuprum(c), f"expected a cuprum.ndarray, got {type(c)!r}"
    got = to_np(c) if is_cuprum(c) else np.asarray(c)
    want = np.asarray(n)
    assert isinstance(got, np.ndarray), type(got)
    if check_dtype:
        assert got.dtype == want.dtype, f"dtype: cuprum {got.dtype}, numpy {want.dtype}"
    assert got.shape == want.shape, f"shape: cuprum {got.shape}, numpy {want.shape}"
    if want.dtype.kind in "biuSUO" and got.dtype.kind in "biuSUO":
        np.testing.assert_array_equal(got, want)
        return
    tol = tolerance(want.dtype) if want.dtype.kind in "fc" else tolerance(got.dtype)
    rtol = tol if rtol is None else rtol
    atol = rtol if atol is None else atol
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    if want.dtype.kind in "fc":
        # The same NaN and infinity positions (assert_allclose already compares the values).
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(np.isinf(got), np.isinf(want))


def host(x):
    """A nested result (cuprum arrays, tuples, lists, scalars) with every cuprum array
    replaced by its NumPy copy, for comparing with SciPy's results."""
    if is_cuprum(x):
        return to_np(x)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*[host(v) for v in x])
    if isinstance(x, (list, tuple)):
        return type(x)(host(v) for v in x)
    return x
