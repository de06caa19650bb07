"""Property tests on arrays that Hypothesis draws through cuprum's own Array API namespace
(``hypothesis.extra.array_api.make_strategies_namespace(cuprum)``): round trips through
NumPy, elementwise functions, reductions, indexing, sorting and casts agree with NumPy on the
``.get()`` copies. A few dozen examples a test (``CUPRUM_HYPOTHESIS_EXAMPLES`` changes it)."""

import os
import warnings

import numpy as np
import pytest
from _cuprum_conftest import assert_same, tolerance
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import cuprum as cp

xps = make_strategies_namespace(cp)

# The device fixture is a constant string: safe to share between examples.
fast = settings(
    max_examples=int(os.environ.get("CUPRUM_HYPOTHESIS_EXAMPLES", "50")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

SMALL = xps.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5)
NONEMPTY = xps.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5)


def quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return f(*args, **kwargs)


def arrays(dtype, shape, elements=None):
    """xps.arrays; complex values finite (NumPy's products of complex infinities are its own
    naive formula's, a corner not worth a failure here) and below 1e150 (complex64: 1e18) in
    magnitude: where a part of a complex product reaches DBL_MAX, NumPy's answer depends on its
    build's FMA contraction (NumPy 2.4.6 here: (8.07e15+1j) * (2.23e292+8.84e290j) is
    inf+7.13e306j as a scalar, as the exactly rounded value and as cuprum, but
    1.797693e308+7.13e306j through the ufunc's 0-d loop)."""
    if elements is None and np.dtype(dtype).kind == "c":
        small = np.dtype(dtype) == np.complex64
        elements = st.complex_numbers(
            max_magnitude=1e18 if small else 1e150, allow_nan=False, allow_infinity=False, width=64 if small else 128
        )
    return xps.arrays(dtype, shape, elements=elements)


def test_namespace_is_cuprums():
    assert xps.name == "cuprum"
    assert xps.api_version == cp.__array_api_version__


@fast
@given(x=xps.scalar_dtypes().flatmap(lambda d: arrays(d, SMALL)))
def test_round_trip_through_numpy(device, x):
    x = x.to_device(device)
    h = x.get()
    assert isinstance(h, np.ndarray)
    assert (h.dtype, h.shape) == (x.dtype, x.shape)
    y = cp.asarray(h, device=device)
    assert y.device == cp.Device(device)
    np.testing.assert_array_equal(y.get(), h)
    np.testing.assert_array_equal(cp.asnumpy(x), h)
    if not np.isnan(h.astype(np.complex128)).any():
        assert x.tolist() == h.tolist()


BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "equal", "less", "greater_equal", "not_equal"]


@fast
@given(
    data=st.data(),
    dtype=xps.numeric_dtypes(),
    shapes=xps.mutually_broadcastable_shapes(2, max_dims=3, max_side=4),
    name=st.sampled_from(BINARY),
)
def test_binary_elementwise(device, data, dtype, shapes, name):
    if name in ("maximum", "minimum", "less", "greater_equal") and np.dtype(dtype).kind == "c":
        name = "add"
    a = data.draw(arrays(dtype, shapes.input_shapes[0]), label="a").to_device(device)
    b = data.draw(arrays(dtype, shapes.input_shapes[1]), label="b").to_device(device)
    want = quiet(getattr(np, name), a.get(), b.get())
    got = quiet(getattr(cp, name), a, b)
    assert_same(got, want)


@fast
@given(
    data=st.data(),
    dtype=xps.floating_dtypes(),
    name=st.sampled_from(
        ["sqrt", "exp", "log", "sin", "tanh", "floor", "abs", "negative", "square", "isnan", "isfinite"]
    ),
)
def test_unary_float(device, data, dtype, name):
    x = data.draw(arrays(dtype, SMALL), label="x").to_device(device)
    want = quiet(getattr(np, name), x.get())
    got = quiet(getattr(cp, name), x)
    assert_same(got, want)


@fast
@given(data=st.data(), dtype=st.one_of(xps.integer_dtypes(), xps.unsigned_integer_dtypes(), xps.boolean_dtypes()))
def test_integer_and_bool_ops(device, data, dtype):
    shape = data.draw(SMALL, label="shape")
    a = data.draw(arrays(dtype, shape), label="a").to_device(device)
    b = data.draw(arrays(dtype, shape), label="b").to_device(device)
    na, nb = a.get(), b.get()
    assert_same(a & b, na & nb)
    assert_same(a | b, na | nb)
    assert_same(a ^ b, na ^ nb)
    assert_same(~a, ~na)
    assert_same(a == b, na == nb)
    if np.dtype(dtype).kind != "b":
        # Wrapping arithmetic, as NumPy's.
        assert_same(quiet(lambda: a + b), quiet(lambda: na + nb))
        assert_same(quiet(lambda: a * b), quiet(lambda: na * nb))
        assert_same(quiet(lambda: -a), quiet(lambda: -na))


@fast
@given(
    data=st.data(),
    dtype=xps.real_dtypes(),
    name=st.sampled_from(["sum", "max", "min", "any", "all", "prod"]),
    keepdims=st.booleans(),
)
def test_reductions(device, data, dtype, name, keepdims):
    kind = np.dtype(dtype).kind
    shape = data.draw(NONEMPTY if name in ("max", "min") else SMALL, label="shape")
    elements = {"min_value": -100, "max_value": 100, "allow_nan": False} if kind == "f" else None
    if name == "prod" and kind == "f":
        elements = {"min_value": 0.5, "max_value": 2.0}
    x = data.draw(arrays(dtype, shape, elements=elements), label="x").to_device(device)
    axis = data.draw(st.none() | xps.valid_tuple_axes(len(shape)), label="axis")
    n = x.get()
    want = quiet(getattr(np, name), n, axis=axis, keepdims=keepdims)
    got = getattr(cp, name)(x, axis=axis, keepdims=keepdims)
    if np.asarray(want).dtype.kind == "f":
        rtol = tolerance(np.asarray(want).dtype)
        atol = rtol * max(1.0, float(np.abs(n).sum()))
        assert_same(got, want, rtol=rtol * 10, atol=atol)
    else:
        assert_same(got, want)


@fast
@given(data=st.data(), dtype=xps.scalar_dtypes())
def test_basic_indexing(device, data, dtype):
    shape = data.draw(SMALL, label="shape")
    x = data.draw(arrays(dtype, shape), label="x").to_device(device)
    idx = data.draw(xps.indices(shape, allow_newaxis=True, allow_ellipsis=True), label="idx")
    assert_same(x[idx], x.get()[idx])


@fast
@given(data=st.data(), dtype=xps.real_dtypes())
def test_mask_indexing_and_setitem(device, data, dtype):
    shape = data.draw(NONEMPTY, label="shape")
    x = data.draw(arrays(dtype, shape), label="x").to_device(device)
    m = data.draw(arrays(cp.bool, shape), label="mask").to_device(device)
    n = x.get()
    assert_same(x[m], n[m.get()])
    v = data.draw(xps.from_dtype(dtype), label="value")
    x[m] = v
    n[m.get()] = v
    assert_same(x, n)


@fast
@given(data=st.data(), dtype=xps.real_dtypes())
def test_sort_matches_numpy(device, data, dtype):
    shape = data.draw(NONEMPTY, label="shape")
    x = data.draw(arrays(dtype, shape), label="x").to_device(device)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    assert_same(cp.sort(x, axis=axis), np.sort(x.get(), axis=axis))


@fast
@given(
    data=st.data(),
    src=st.one_of(
        xps.integer_dtypes(sizes=(8, 16, 32)),
        xps.unsigned_integer_dtypes(sizes=(8, 16, 32)),
        xps.boolean_dtypes(),
        xps.floating_dtypes(),
    ),
)
def test_exact_casts_to_float64(device, data, src):
    x = data.draw(arrays(src, SMALL), label="x").to_device(device)
    assert_same(x.astype(np.float64), x.get().astype(np.float64))
    assert_same(x.astype(np.complex128), x.get().astype(np.complex128))


@fast
@given(data=st.data(), dtype=xps.numeric_dtypes())
def test_reshape_transpose_views(device, data, dtype):
    shape = data.draw(xps.array_shapes(min_dims=2, max_dims=3, max_side=4), label="shape")
    x = data.draw(arrays(dtype, shape), label="x").to_device(device)
    n = x.get()
    assert_same(x.T, n.T)
    assert_same(x.T.reshape(-1), n.T.reshape(-1))
    assert_same(x[::-1, ::2], n[::-1, ::2])
    assert_same(cp.concatenate([x, x[::-1]], axis=0), np.concatenate([n, n[::-1]], axis=0))


@fast
@given(data=st.data(), dtype=xps.floating_dtypes())
def test_where_and_nan_handling(device, data, dtype):
    shape = data.draw(SMALL, label="shape")
    x = data.draw(arrays(dtype, shape), label="x").to_device(device)
    y = data.draw(arrays(dtype, shape), label="y").to_device(device)
    nx, ny = x.get(), y.get()
    assert_same(cp.where(cp.isnan(x), y, x), np.where(np.isnan(nx), ny, nx))
    assert_same(cp.isnan(x) | cp.isinf(x), np.isnan(nx) | np.isinf(nx))


@pytest.mark.parametrize("dtype", [cp.int8, cp.uint64, cp.float32, cp.complex128, cp.bool])
def test_strategies_respect_dtype_bounds(dtype):
    @fast
    @given(x=xps.arrays(dtype, (3, 2)))
    def check(x):
        assert x.dtype == np.dtype(dtype) and x.shape == (3, 2)
        h = x.get()
        if np.dtype(dtype).kind in "iu":
            info = np.iinfo(dtype)
            assert info.min <= h.min() and h.max() <= info.max

    check()
