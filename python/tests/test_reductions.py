"""Reductions against NumPy: sum, prod, mean, var, std, min, max, argmin, argmax, any, all as
functions and as methods over every dtype, with axis None/int/negative/tuple, keepdims, dtype=,
out=, ddof; NaNs, empty and 0-d inputs, views; count_nonzero, median, nanmedian, percentile,
quantile, cumsum, cumprod, histogram, bincount, digitize."""

import warnings

import numpy as np
import pytest
from _cuprum_conftest import (
    ALL_DTYPES,
    FLOATS,
    INTS,
    REAL,
    assert_same,
    dtype_id,
    random_array,
    tolerance,
)

import cuprum as cp

SHAPE = (4, 5, 6)
AXES = [None, 0, 1, -1, (0, 2), (-1, 0), (0, 1, 2)]
SINGLE_AXES = [None, 0, 1, 2, -1, -3]


def numpy_quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return f(*args, **kwargs)


def data(rng, name, dtype, shape=SHAPE):
    dt = np.dtype(dtype)
    if name == "prod":
        if dt.kind in "iu":
            return random_array(rng, shape, dtype, low=0 if dt.kind == "u" else -2, high=2)
        if dt.kind in "fc":
            return random_array(rng, shape, dtype, low=0.8, high=1.25)
    return random_array(rng, shape, dtype)


def tol_for(name, want, x):
    """Tolerances for a reduction of `x`: relative to the magnitudes summed (another summation
    order), looser for float16 (NumPy rounds some intermediates to float16)."""
    dt = np.asarray(want).dtype
    if dt.kind not in "fc":
        return {}
    x = np.asarray(x)
    half = x.dtype == np.float16 or dt == np.float16
    rtol = 1e-2 if half else tolerance(dt)
    scale = max(1.0, float(np.max(np.abs(x.astype(np.complex128))))) if x.size else 1.0
    if name == "sum":
        return {"rtol": rtol, "atol": rtol * scale * max(1, x.size)}
    if name == "mean":
        return {"rtol": rtol, "atol": rtol * scale}
    if name in ("var", "std"):
        rtol = rtol if half else rtol * 10
        return {"rtol": rtol, "atol": rtol * scale * (scale if name == "var" else 1)}
    return {"rtol": rtol, "atol": rtol}


REDUCTIONS = ["sum", "prod", "mean", "var", "std", "min", "max", "any", "all"]


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_reduction_axes_keepdims(device, rng, name, dtype):
    n = data(rng, name, dtype)
    x = cp.asarray(n, device=device)
    for axis in AXES:
        for keepdims in (False, True):
            want = numpy_quiet(getattr(np, name), n, axis=axis, keepdims=keepdims)
            tol = tol_for(name, want, n)
            assert_same(getattr(cp, name)(x, axis=axis, keepdims=keepdims), want, **tol)
            assert_same(getattr(x, name)(axis=axis, keepdims=keepdims), want, **tol)


@pytest.mark.parametrize("name", ["argmin", "argmax"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_argmin_argmax(device, rng, name, dtype):
    # Small integer ranges make ties: the first occurrence wins, as in NumPy.
    n = (
        random_array(rng, SHAPE, dtype, low=0, high=3)
        if np.dtype(dtype).kind in "iu"
        else random_array(rng, SHAPE, dtype)
    )
    x = cp.asarray(n, device=device)
    for axis in SINGLE_AXES:
        assert_same(getattr(cp, name)(x, axis=axis), getattr(np, name)(n, axis=axis))
        assert_same(getattr(x, name)(axis=axis), getattr(n, name)(axis=axis))
        assert_same(getattr(cp, name)(x, axis=axis, keepdims=True), getattr(np, name)(n, axis=axis, keepdims=True))
    assert_same(getattr(cp, name)(x.T[::2]), getattr(np, name)(n.T[::2]))


@pytest.mark.parametrize("dtype", FLOATS, ids=dtype_id)
def test_nan_propagation(device, rng, dtype):
    n = random_array(rng, (5, 8), dtype)
    n[1, 3] = np.nan
    n[4, 0] = np.nan
    n[4, 6] = np.nan
    x = cp.asarray(n, device=device)
    for name in ["min", "max", "argmin", "argmax", "sum", "mean", "prod", "var"]:
        for axis in [None, 0, 1]:
            want = numpy_quiet(getattr(np, name), n, axis=axis)
            assert_same(getattr(cp, name)(x, axis=axis), want, **tol_for(name, want, np.nan_to_num(n)))
    assert_same(cp.amin(x, axis=1), np.amin(n, axis=1))
    assert_same(cp.amax(x, axis=0), np.amax(n, axis=0))


def test_signed_zero_and_infinity_extrema(device):
    n = np.array([0.0, -0.0, np.inf, -np.inf, 1.0], dtype=np.float64)
    x = cp.asarray(n, device=device)
    assert_same(cp.max(x), np.max(n))
    assert_same(cp.min(x), np.min(n))
    assert_same(cp.argmax(x), np.argmax(n))
    assert_same(cp.argmin(x), np.argmin(n))
    i = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0])
    assert_same(cp.max(cp.asarray(i, device=device)), np.max(i))
    assert_same(cp.min(cp.asarray(i, device=device)), np.min(i))
    u = np.array([0, 2**64 - 1, 2**63], dtype=np.uint64)
    assert_same(cp.argmax(cp.asarray(u, device=device)), np.argmax(u))
    assert_same(cp.sum(cp.asarray(u[2:], device=device)), np.sum(u[2:]))


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64, np.complex64, np.complex128], ids=dtype_id)
def test_ddof(device, rng, name, dtype):
    n = random_array(rng, (6, 7), dtype)
    x = cp.asarray(n, device=device)
    for ddof in [0, 1, 2, 0.5]:
        for axis in [None, 0, -1]:
            want = getattr(np, name)(n, axis=axis, ddof=ddof)
            assert_same(getattr(cp, name)(x, axis=axis, ddof=ddof), want, **tol_for(name, want, n))
            assert_same(getattr(x, name)(axis=axis, ddof=ddof), want, **tol_for(name, want, n))
    # ddof >= the number of elements: NumPy's inf/nan (with a warning).
    want = numpy_quiet(getattr(np, name), n, axis=0, ddof=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert_same(getattr(cp, name)(x, axis=0, ddof=6), want)
        want = numpy_quiet(getattr(np, name), n, axis=0, ddof=7)
        assert_same(getattr(cp, name)(x, axis=0, ddof=7), want)


@pytest.mark.parametrize(
    "src,dst",
    [
        (np.int8, np.int8),
        (np.int8, np.float64),
        (np.uint8, np.int16),
        (np.bool_, np.int32),
        (np.int32, np.float32),
        (np.float64, np.float32),
        (np.float16, np.float64),
        (np.float32, np.complex128),
        (np.int64, np.uint64),
    ],
    ids=lambda v: dtype_id(v),
)
def test_dtype_argument(device, rng, src, dst):
    n = random_array(rng, (8, 9), src)
    x = cp.asarray(n, device=device)
    for name in ["sum", "prod", "mean", "cumsum"]:
        if name == "mean" and np.dtype(dst).kind in "iub":
            continue
        m = data(rng, name, src, (8, 9)) if name == "prod" else n
        cx = cp.asarray(m, device=device) if name == "prod" else x
        for axis in [None, 1]:
            want = numpy_quiet(getattr(np, name), m, axis=axis, dtype=dst)
            assert_same(getattr(cp, name)(cx, axis=axis, dtype=dst), want, **tol_for(name, want, m))
    for name in ["var", "std"]:
        if np.dtype(dst).kind not in "fc":
            continue
        want = np.var(n, dtype=dst) if name == "var" else np.std(n, dtype=dst)
        assert_same(getattr(cp, name)(x, dtype=dst), want, **tol_for(name, want, n))


def test_out_argument(device, rng):
    n = random_array(rng, (4, 6), np.float64)
    x = cp.asarray(n, device=device)
    o = cp.empty(6, device=device)
    assert cp.sum(x, axis=0, out=o) is o
    assert_same(o, n.sum(axis=0))
    assert x.max(axis=0, out=o) is o
    assert_same(o, n.max(axis=0))
    assert cp.mean(x, axis=0, out=o) is o
    assert_same(o, n.mean(axis=0))
    o2 = cp.empty((4, 1), device=device)
    assert cp.std(x, axis=1, keepdims=True, out=o2) is o2
    assert_same(o2, n.std(axis=1, keepdims=True))
    o32 = cp.empty(4, dtype=np.float32, device=device)
    assert cp.sum(x, axis=1, out=o32) is o32
    assert_same(o32, n.sum(axis=1).astype(np.float32))
    oi = cp.empty(6, dtype=np.int64, device=device)
    assert cp.argmax(x, axis=0, out=oi) is oi
    assert_same(oi, n.argmax(axis=0))
    ob = cp.empty(4, dtype=np.bool_, device=device)
    assert cp.any(x > 2, axis=1, out=ob) is ob
    assert_same(ob, (n > 2).any(axis=1))
    # A strided out.
    big = cp.zeros(12, device=device)
    cp.sum(x, axis=0, out=big[::2])
    want = np.zeros(12)
    want[::2] = n.sum(axis=0)
    assert_same(big, want)


@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.complex128, np.bool_], ids=dtype_id)
def test_views(device, rng, dtype):
    n = random_array(rng, (6, 8, 5), dtype)
    x = cp.asarray(n, device=device)
    views = [
        (x.T, n.T),
        (x[::2, ::-3], n[::2, ::-3]),
        (x[:, 3], n[:, 3]),
        (x.transpose(1, 2, 0)[1:, ::2], n.transpose(1, 2, 0)[1:, ::2]),
    ]
    for v, w in views:
        for name in ["sum", "max", "any", "mean"]:
            for axis in [None, 0, -1]:
                want = numpy_quiet(getattr(np, name), w, axis=axis)
                assert_same(getattr(cp, name)(v, axis=axis), want, **tol_for(name, want, w))
        assert_same(cp.argmin(v, axis=0), np.argmin(w, axis=0))


def test_empty_and_zero_d(device):
    e = cp.zeros((0, 3), device=device)
    n = np.zeros((0, 3))
    for name in ["sum", "prod", "any", "all", "max", "min"]:
        assert_same(getattr(cp, name)(e, axis=1), getattr(np, name)(n, axis=1))
    for name in ["sum", "prod", "any", "all"]:
        assert_same(getattr(cp, name)(e), getattr(np, name)(n))
        assert_same(getattr(cp, name)(e, axis=0), getattr(np, name)(n, axis=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert_same(cp.mean(e, axis=0), numpy_quiet(np.mean, n, axis=0))
        assert_same(cp.mean(e), numpy_quiet(np.mean, n))
        assert_same(cp.var(e, axis=0), numpy_quiet(np.var, n, axis=0))
    z = cp.asarray(np.float32(2.5), device=device)
    for name in ["sum", "prod", "mean", "var", "min", "max", "argmin", "any"]:
        assert_same(getattr(cp, name)(z), getattr(np, name)(np.float32(2.5)))
    assert_same(cp.sum(z, axis=None, keepdims=True), np.sum(np.float32(2.5), keepdims=True))
    assert_same(cp.sum(cp.zeros(0, dtype=np.int8, device=device)), np.sum(np.zeros(0, np.int8)))


def test_large_sums_are_accurate(device, rng):
    # 3000 float32 values: a naive running sum loses digits that NumPy's pairwise sum keeps.
    n = (rng.random(3000) + 1e4).astype(np.float32)
    x = cp.asarray(n, device=device)
    exact = n.astype(np.float64).sum()
    assert abs(float(cp.sum(x)) - exact) <= 2e-6 * exact
    assert_same(cp.sum(x), np.sum(n), rtol=1e-6)
    assert_same(cp.mean(x), np.mean(n), rtol=1e-6)


@pytest.mark.parametrize("dtype", REAL + [np.complex64], ids=dtype_id)
def test_count_nonzero(device, rng, dtype):
    n = (
        random_array(rng, (5, 6, 3), dtype, low=0, high=2)
        if np.dtype(dtype).kind in "iu"
        else random_array(rng, (5, 6, 3), dtype)
    )
    if np.dtype(dtype).kind in "fc":
        n[n.real > 1] = 0
    x = cp.asarray(n, device=device)
    assert int(cp.count_nonzero(x)) == np.count_nonzero(n)
    for axis in [0, -1, (0, 2)]:
        assert_same(cp.count_nonzero(x, axis=axis), np.count_nonzero(n, axis=axis))
    assert_same(cp.count_nonzero(x, axis=1, keepdims=True), np.count_nonzero(n, axis=1, keepdims=True))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float16, np.float32, np.float64], ids=dtype_id)
def test_median_percentile_quantile(device, rng, dtype):
    for shape in [(7,), (8,), (5, 6), (4, 3, 5)]:
        n = random_array(rng, shape, dtype)
        x = cp.asarray(n, device=device)
        axes = [None, 0, -1] + ([(0, 2)] if len(shape) == 3 else [])
        for axis in axes:
            for keepdims in (False, True):
                want = np.median(n, axis=axis, keepdims=keepdims)
                assert_same(cp.median(x, axis=axis, keepdims=keepdims), want)
            for q in [0, 25, 50, 90, 100, 33.3]:
                assert_same(cp.percentile(x, q, axis=axis), np.percentile(n, q, axis=axis))
            assert_same(cp.quantile(x, 0.75, axis=axis), np.quantile(n, 0.75, axis=axis))
            # An array of q (float64) gives float64 results; NumPy interpolates in float64 from
            # the input's values, cuprum may do so in the input's precision.
            qs = np.array([0.1, 0.5, 0.99])
            r = max(tolerance(np.float64), tolerance(dtype))
            want = np.quantile(n, qs, axis=axis)
            assert_same(cp.quantile(x, cp.asarray(qs, device=device), axis=axis), want, rtol=r, atol=r)
            assert_same(
                cp.percentile(x, cp.asarray(qs * 100, device=device), axis=axis, keepdims=True),
                np.percentile(n, qs * 100, axis=axis, keepdims=True),
                rtol=r,
                atol=r,
            )
    assert_same(cp.median(x.T[::2]), np.median(n.T[::2]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
def test_median_with_nan_and_nanmedian(device, rng, dtype):
    n = random_array(rng, (6, 9), dtype)
    n[2, 4] = np.nan
    n[5, :] = np.nan
    x = cp.asarray(n, device=device)
    for axis in [None, 0, 1]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            assert_same(cp.median(x, axis=axis), np.median(n, axis=axis))
            assert_same(cp.nanmedian(x, axis=axis), numpy_quiet(np.nanmedian, n, axis=axis))
    clean = random_array(rng, (10,), dtype)
    assert_same(cp.nanmedian(cp.asarray(clean, device=device)), np.nanmedian(clean))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_cumsum_cumprod(device, rng, name, dtype):
    n = data(rng, "prod" if name == "cumprod" else name, dtype, (5, 7))
    x = cp.asarray(n, device=device)
    for axis in [None, 0, 1, -1]:
        want = numpy_quiet(getattr(np, name), n, axis=axis)
        tol = tol_for("sum", want, n) if name == "cumsum" else tol_for("prod", want, n)
        if np.dtype(dtype) == np.float16:
            # NumPy rounds every partial sum to float16; an accumulator of float32 need not.
            tol = {"rtol": 2e-2, "atol": 0.25}
        assert_same(getattr(cp, name)(x, axis=axis), want, **tol)
        assert_same(getattr(x, name)(axis=axis), want, **tol)
    assert_same(getattr(cp, name)(x.T, axis=0), numpy_quiet(getattr(np, name), n.T, axis=0), **tol)
    assert_same(
        getattr(cp, name)(cp.zeros((0, 3), dtype=dtype, device=device), axis=0),
        getattr(np, name)(np.zeros((0, 3), dtype), axis=0),
    )


def test_cumsum_long_and_out(device, rng):
    n = rng.integers(-100, 100, 5000)
    x = cp.asarray(n, device=device)
    assert_same(cp.cumsum(x), np.cumsum(n))
    f = rng.random(5000)
    assert_same(cp.cumsum(cp.asarray(f, device=device)), np.cumsum(f), rtol=1e-10)
    o = cp.empty(5000, dtype=np.int64, device=device)
    assert cp.cumsum(x, out=o) is o
    assert_same(o, np.cumsum(n))


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64], ids=dtype_id)
def test_histogram(device, rng, dtype):
    n = random_array(rng, (500,), dtype)
    x = cp.asarray(n, device=device)
    for bins in [10, 1, 7]:
        h, e = cp.histogram(x, bins=bins)
        wh, we = np.histogram(n, bins=bins)
        assert_same(h, wh)
        assert_same(e, we)
    edges = np.array([-3.0, -1.0, 0.0, 0.5, 2.0, 3.0])
    h, e = cp.histogram(x, bins=cp.asarray(edges, device=device))
    wh, we = np.histogram(n, bins=edges)
    assert_same(h, wh)
    assert_same(e, we)
    h, e = cp.histogram(x, bins=5, range=(-1, 1))
    wh, we = np.histogram(n, bins=5, range=(-1, 1))
    assert_same(h, wh)
    assert_same(e, we)
    h, _ = cp.histogram(x, bins=8, density=True)
    assert_same(h, np.histogram(n, bins=8, density=True)[0])
    w = rng.random(500)
    h, _ = cp.histogram(x, bins=6, weights=cp.asarray(w, device=device))
    assert_same(h, np.histogram(n, bins=6, weights=w)[0])


def test_bincount_and_digitize(device, rng):
    n = rng.integers(0, 20, 300)
    x = cp.asarray(n, device=device)
    assert_same(cp.bincount(x), np.bincount(n))
    assert_same(cp.bincount(x, minlength=40), np.bincount(n, minlength=40))
    w = rng.random(300)
    assert_same(cp.bincount(x, weights=cp.asarray(w, device=device)), np.bincount(n, weights=w))
    assert_same(cp.bincount(cp.asarray(n.astype(np.uint8), device=device)), np.bincount(n.astype(np.uint8)))
    assert_same(cp.bincount(cp.zeros(0, dtype=np.int64, device=device)), np.bincount(np.zeros(0, np.int64)))
    v = rng.uniform(-1, 11, 200)
    for bins in [np.array([0.0, 1.0, 2.5, 4.0, 10.0]), np.array([10.0, 4.0, 2.5, 1.0, 0.0])]:
        cb = cp.asarray(bins, device=device)
        cv = cp.asarray(v, device=device)
        assert_same(cp.digitize(cv, cb), np.digitize(v, bins))
        assert_same(cp.digitize(cv, cb, right=True), np.digitize(v, bins, right=True))
    ints = np.array([0, 1, 2, 4, 10])
    assert_same(cp.digitize(cp.asarray(ints, device=device), cp.asarray(ints, device=device)), np.digitize(ints, ints))
    assert_same(
        cp.digitize(cp.asarray(ints, device=device), cp.asarray(ints, device=device), right=True),
        np.digitize(ints, ints, right=True),
    )


@pytest.mark.parametrize("dtype", INTS, ids=dtype_id)
def test_integer_sum_and_prod_wrap_like_numpy(device, rng, dtype):
    info = np.iinfo(dtype)
    n = np.array([info.max, info.max, 3, info.min if info.min < 0 else 5], dtype=dtype)
    x = cp.asarray(n, device=device)
    assert_same(cp.sum(x), np.sum(n))
    assert_same(cp.sum(x, dtype=dtype), np.sum(n, dtype=dtype))
    assert_same(cp.prod(x), np.prod(n))
    assert_same(cp.cumsum(x, dtype=dtype), np.cumsum(n, dtype=dtype))
