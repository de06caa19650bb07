"""Elementwise functions and operators against NumPy: every dtype (and NumPy's TypeError where
it has no loop), the output dtypes of NumPy's loop tables, NEP 50 promotion with Python and
NumPy scalars, broadcasting, views, 0-d and empty arrays, out=, special values, isclose and
friends, and cuprum.fuse."""

import operator
import warnings

import numpy as np
import pytest
from _cuprum_conftest import (
    ALL_DTYPES,
    INTS,
    assert_same,
    dtype_id,
    random_array,
    to_np,
)

import cuprum as cp

# The exceptions compared between the two libraries: NumPy's own subclasses (UFuncTypeError,
# _UFuncNoLoopError, ...) count as their base.
EXC = (OverflowError, ZeroDivisionError, TypeError, ValueError)


def exc_kind(e):
    for k in EXC:
        if isinstance(e, k):
            return k
    return type(e)


def numpy_or_exc(f, *args, **kwargs):
    """NumPy's result, or the exception class it raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                return f(*args, **kwargs), None
            except EXC as e:
                return None, exc_kind(e)


def check(cfun, nfun, cargs, nargs, **tol):
    want, err = numpy_or_exc(nfun, *nargs)
    if err is not None:
        with pytest.raises(err):
            cfun(*cargs)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = cfun(*cargs)
    assert_same(got, want, **tol)


def operand(rng, name, dtype, shape, which):
    """Inputs in each function's domain: nonzero divisors, small powers, shifts within the
    bit width, NaNs in float inputs of the comparisons and extrema."""
    dt = np.dtype(dtype)
    if name in ("divide", "true_divide", "floor_divide", "remainder", "mod", "fmod") and which == 1:
        return random_array(rng, shape, dtype, nonzero=True)
    if name == "power":
        if dt.kind in "iu":
            lo, hi = (0, 4) if which == 1 or dt.kind == "u" else (-4, 4)
            return random_array(rng, shape, dtype, low=lo, high=hi)
        if dt.kind == "f":
            return random_array(rng, shape, dtype, low=0.1 if which == 0 else -2.0, high=2.0)
    if name in ("left_shift", "right_shift") and dt.kind in "iu":
        if which == 1:
            return random_array(rng, shape, dtype, low=0, high=dt.itemsize * 8 - 1)
        return random_array(rng, shape, dtype)
    x = random_array(rng, shape, dtype)
    if name in NAN_FUNCS and dt.kind == "f" and x.size > 2:
        x.flat[:: max(1, x.size // 3)] = np.nan
    return x


NAN_FUNCS = {
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
}

BINARY = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "floor_divide",
    "remainder",
    "mod",
    "power",
    "arctan2",
    "hypot",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
]


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_binary_same_dtype(device, rng, name, dtype):
    a = operand(rng, name, dtype, (5, 7), 0)
    b = operand(rng, name, dtype, (5, 7), 1)
    ca, cb = cp.asarray(a, device=device), cp.asarray(b, device=device)
    check(getattr(cp, name), getattr(np, name), (ca, cb), (a, b))


MIXED = [
    (np.int8, np.uint8),
    (np.int16, np.uint32),
    (np.int64, np.uint64),
    (np.uint8, np.float16),
    (np.int16, np.float16),
    (np.int32, np.float32),
    (np.int64, np.float32),
    (np.float16, np.float64),
    (np.bool_, np.int8),
    (np.bool_, np.float32),
    (np.float32, np.complex128),
    (np.float64, np.complex64),
    (np.int16, np.complex64),
    (np.uint64, np.int8),
]


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "true_divide", "maximum", "less", "power", "arctan2"])
@pytest.mark.parametrize("pair", MIXED, ids=lambda p: f"{dtype_id(p[0])}-{dtype_id(p[1])}")
def test_binary_mixed_dtypes(device, rng, name, pair):
    a = operand(rng, name, pair[0], (4, 6), 0)
    b = operand(rng, name, pair[1], (4, 6), 1)
    ca, cb = cp.asarray(a, device=device), cp.asarray(b, device=device)
    check(getattr(cp, name), getattr(np, name), (ca, cb), (a, b))
    check(getattr(cp, name), getattr(np, name), (cb, ca), (b, a))


@pytest.mark.parametrize("a", ALL_DTYPES, ids=dtype_id)
def test_promotion_table(device, a):
    # add and multiply over every pair of dtypes: NumPy 2's promotion table, value for value.
    for b in ALL_DTYPES:
        x = np.arange(6).reshape(2, 3).astype(a)
        y = (np.arange(6)[::-1] % 3).reshape(2, 3).astype(b)
        cx, cy = cp.asarray(x, device=device), cp.asarray(y, device=device)
        assert_same(cp.add(cx, cy), np.add(x, y))
        assert_same(cx * cy, x * y)
        assert_same(cx == cy, x == y)


UNARY = {
    "negative": "any",
    "positive": "any",
    "absolute": "any",
    "abs": "any",
    "sign": "any",
    "square": "any",
    "sqrt": "pos",
    "cbrt": "any",
    "reciprocal": "nonzero",
    "exp": "any",
    "exp2": "any",
    "expm1": "any",
    "log": "pos",
    "log2": "pos",
    "log10": "pos",
    "log1p": "pos",
    "sin": "any",
    "cos": "any",
    "tan": "unit",
    "arcsin": "unit",
    "arccos": "unit",
    "arctan": "any",
    "sinh": "any",
    "cosh": "any",
    "tanh": "any",
    "arcsinh": "any",
    "arccosh": "ge1",
    "arctanh": "unit",
    "floor": "any",
    "ceil": "any",
    "rint": "any",
    "trunc": "any",
    "isnan": "any",
    "isinf": "any",
    "isfinite": "any",
    "conjugate": "any",
    "conj": "any",
    "logical_not": "any",
    "invert": "any",
    "bitwise_not": "any",
}


def unary_input(rng, domain, dtype, shape):
    dt = np.dtype(dtype)
    if domain == "pos":
        return random_array(rng, shape, dtype, positive=True)
    if domain == "nonzero":
        return random_array(rng, shape, dtype, nonzero=True)
    if domain == "unit":
        if dt.kind in "iu":
            return random_array(rng, shape, dtype, low=0 if dt.kind == "u" else -1, high=1)
        if dt.kind == "b":
            return np.zeros(shape, bool)
        return random_array(rng, shape, dtype, low=-0.9, high=0.9)
    if domain == "ge1":
        if dt.kind == "b":
            return np.ones(shape, bool)
        return random_array(rng, shape, dtype, low=1, high=4)
    x = random_array(rng, shape, dtype)
    if dt.kind == "f":
        # Halves: rint, floor and ceil meet exact ties.
        x.flat[::4] = np.round(x.flat[::4] * 2) / 2
    return x


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_unary(device, rng, name, dtype):
    a = unary_input(rng, UNARY[name], dtype, (6, 5))
    check(getattr(cp, name), getattr(np, name), (cp.asarray(a, device=device),), (a,))


SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e-30, -1e-30, 1e30, -1e30, 3e38, 700.0]


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=dtype_id)
def test_unary_special_values(device, name, dtype):
    with np.errstate(all="ignore"):
        a = np.array(SPECIAL, dtype=dtype)
    check(getattr(cp, name), getattr(np, name), (cp.asarray(a, device=device),), (a,))


@pytest.mark.parametrize("name", ["add", "multiply", "true_divide", "floor_divide", "remainder", "power", "maximum"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
def test_binary_special_values(device, name, dtype):
    v = np.array(SPECIAL[:11], dtype=dtype)
    a, b = np.meshgrid(v, v)
    check(getattr(cp, name), getattr(np, name), (cp.asarray(a, device=device), cp.asarray(b, device=device)), (a, b))


@pytest.mark.parametrize("dtype", INTS, ids=dtype_id)
def test_integer_division_by_zero_and_signs(device, dtype):
    info = np.iinfo(dtype)
    a = np.array([7, -7, 0, 5, info.max, info.min, -1, 3], dtype=dtype) if info.min < 0 else None
    if a is None:
        a = np.array([7, 0, 5, info.max, 1, 3], dtype=dtype)
    b = np.array([2, 2, 3, 0, 0, 0, 5, -2], dtype=dtype) if info.min < 0 else np.array([2, 3, 0, 0, 5, 2], dtype=dtype)
    ca, cb = cp.asarray(a, device=device), cp.asarray(b, device=device)
    for name in ["floor_divide", "remainder", "true_divide"]:
        check(getattr(cp, name), getattr(np, name), (ca, cb), (a, b))


BROADCAST = [((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((), (3,)), ((0, 3), (1, 3)), ((5, 1, 3), (4, 1)), ((1,), (0,))]


@pytest.mark.parametrize("shapes", BROADCAST, ids=str)
@pytest.mark.parametrize("name", ["add", "multiply", "greater", "arctan2", "maximum"])
def test_broadcasting(device, rng, shapes, name):
    a = random_array(rng, shapes[0], np.float32)
    b = random_array(rng, shapes[1], np.float32)
    check(getattr(cp, name), getattr(np, name), (cp.asarray(a, device=device), cp.asarray(b, device=device)), (a, b))


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.complex64], ids=dtype_id)
def test_views_as_operands(device, rng, dtype):
    n = random_array(rng, (6, 8), dtype)
    m = random_array(rng, (8, 6), dtype)
    x, y = cp.asarray(n, device=device), cp.asarray(m, device=device)
    assert_same(x[::2, 1::3] + y.T[::2, 1::3], n[::2, 1::3] + m.T[::2, 1::3])
    assert_same(x[::-1] * y.T, n[::-1] * m.T)
    assert_same(cp.exp(x[:, ::-2]), np.exp(n[:, ::-2]))
    assert_same(cp.negative(x.T), np.negative(n.T))


def test_zero_d_and_empty(device, rng):
    z = cp.asarray(np.float32(1.5), device=device)
    r = z + z
    assert r.shape == () and r.dtype == np.float32 and r.item() == 3.0
    assert_same(cp.sin(z), np.sin(np.float32(1.5)))
    e = cp.zeros((0, 4), device=device)
    assert_same(e + 1, np.zeros((0, 4)) + 1)
    assert_same(cp.exp(e), np.zeros((0, 4)))
    assert_same(e > cp.ones(4, device=device), np.zeros((0, 4), bool))


# --- NEP 50: Python scalars are weak, NumPy scalars strong -------------------------------

SCALARS = [2, -3, 1000, 2.5, -0.5, 1e300, 1j, True, np.float64(2.0), np.float32(1.5), np.int64(3), np.uint8(7)]
OPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.lt, operator.pow]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_nep50_python_and_numpy_scalars(device, dtype):
    n = (np.arange(1, 7) % 4 + 1).astype(dtype).reshape(2, 3)
    x = cp.asarray(n, device=device)
    for s in SCALARS:
        for op in OPS:
            if op is operator.pow and (isinstance(s, complex) or abs(s) > 10 or s == -3):
                continue
            check(op, op, (x, s), (n, s))
            if op is not operator.pow:
                check(op, op, (s, x), (s, n))


def test_nep50_examples(device):
    f32 = cp.ones(3, dtype=np.float32, device=device)
    assert (f32 * 2.0).dtype == np.float32
    assert (2.0 * f32).dtype == np.float32
    assert (f32 + 1).dtype == np.float32
    assert (f32 + 1j).dtype == np.complex64
    assert (f32 * np.float64(2.0)).dtype == np.float64
    i8 = cp.ones(3, dtype=np.int8, device=device)
    assert (i8 + 1).dtype == np.int8
    assert (i8 + 1.5).dtype == np.float64
    assert (i8 + np.int64(1)).dtype == np.int64
    with pytest.raises(OverflowError):
        i8 + 1000
    with pytest.raises(OverflowError):
        cp.ones(2, dtype=np.uint8, device=device) + (-1)
    b = cp.asarray([True, False], device=device)
    assert (b + 1).dtype == np.int64
    assert (b * 1.5).dtype == np.float64
    assert_same(cp.ones(2, dtype=np.float16, device=device) / 3, np.ones(2, np.float16) / 3)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_operators(device, rng, dtype):
    a = random_array(rng, (4, 5), dtype)
    b = random_array(rng, (4, 5), dtype, nonzero=True)
    ca, cb = cp.asarray(a, device=device), cp.asarray(b, device=device)
    ops = [
        operator.add,
        operator.sub,
        operator.mul,
        operator.truediv,
        operator.floordiv,
        operator.mod,
        operator.and_,
        operator.or_,
        operator.xor,
        operator.lt,
        operator.le,
        operator.gt,
        operator.ge,
        operator.eq,
        operator.ne,
    ]
    for op in ops:
        check(op, op, (ca, cb), (a, b))
    for op in [operator.neg, operator.pos, operator.invert, operator.abs]:
        check(op, op, (ca,), (a,))
    if np.dtype(dtype).kind in "iu":
        s = random_array(rng, (4, 5), dtype, low=0, high=np.dtype(dtype).itemsize * 8 - 1)
        cs = cp.asarray(s, device=device)
        check(operator.lshift, operator.lshift, (ca, cs), (a, s))
        check(operator.rshift, operator.rshift, (ca, cs), (a, s))
        e = random_array(rng, (4, 5), dtype, low=0, high=3)
        check(operator.pow, operator.pow, (ca, cp.asarray(e, device=device)), (a, e))
    elif np.dtype(dtype).kind in "fc":
        p = random_array(rng, (4, 5), dtype, positive=True)
        check(operator.pow, operator.pow, (cp.asarray(p, device=device), cb), (p, b))


INPLACE = [
    (operator.iadd, 2),
    (operator.isub, 1),
    (operator.imul, 3),
    (operator.itruediv, 2),
    (operator.ifloordiv, 2),
    (operator.imod, 3),
    (operator.ipow, 2),
    (operator.iand, 6),
    (operator.ior, 1),
    (operator.ixor, 5),
    (operator.ilshift, 1),
    (operator.irshift, 1),
]


@pytest.mark.parametrize(
    "dtype", [np.bool_, np.int8, np.uint16, np.int64, np.float16, np.float32, np.complex128], ids=dtype_id
)
def test_in_place_operators(device, dtype):
    for op, s in INPLACE:
        n = (np.arange(12).reshape(3, 4) % 5 + 1).astype(dtype)
        x = cp.asarray(n, device=device)
        before = id(x)
        want, err = numpy_or_exc(op, n, s)
        if err is not None:
            with pytest.raises(err):
                op(x, s)
            continue
        got = op(x, s)
        assert id(got) == before, f"{op.__name__} made a new array"
        assert_same(x, want)


def test_in_place_with_array_and_views(device, rng):
    n = random_array(rng, (4, 6), np.float64)
    m = random_array(rng, (6,), np.float64)
    x, y = cp.asarray(n, device=device), cp.asarray(m, device=device)
    x += y
    n += m
    assert_same(x, n)
    v = x[:, ::2]
    v *= 10
    n[:, ::2] *= 10
    assert_same(x, n)
    x.T[1:3] -= 1
    n.T[1:3] -= 1
    assert_same(x, n)
    f = cp.ones(3, dtype=np.float32, device=device)
    f += cp.ones(3, dtype=np.float64, device=device)
    assert f.dtype == np.float32
    with pytest.raises(TypeError):
        i = cp.ones(3, dtype=np.int32, device=device)
        i += cp.ones(3, dtype=np.float64, device=device)


# --- out= --------------------------------------------------------------------------------


def test_out_argument(device, rng):
    a = random_array(rng, (3, 4), np.float64, positive=True)
    b = random_array(rng, (3, 4), np.float64, positive=True)
    ca, cb = cp.asarray(a, device=device), cp.asarray(b, device=device)
    o = cp.empty((3, 4), device=device)
    r = cp.add(ca, cb, out=o)
    assert r is o
    assert_same(o, a + b)
    r = cp.sqrt(ca, out=o)
    assert r is o
    assert_same(o, np.sqrt(a))
    # A float32 out for float64 inputs: cast as NumPy's same_kind allows.
    o32 = cp.zeros((3, 4), dtype=np.float32, device=device)
    cp.multiply(ca, cb, out=o32)
    assert_same(o32, (a * b).astype(np.float32))
    # out as a strided view of a larger array.
    big = cp.zeros((6, 8), device=device)
    nbig = np.zeros((6, 8))
    cp.subtract(ca, cb, out=big[::2, 1::2])
    np.subtract(a, b, out=nbig[::2, 1::2])
    assert_same(big, nbig)
    # Broadcasting into out, out given as a tuple, in place on an input.
    cp.multiply(ca[0], 2.0, out=(o,))
    assert_same(o, np.broadcast_to(a[0] * 2.0, (3, 4)))
    cp.exp(ca, out=ca)
    assert_same(ca, np.exp(a))
    with pytest.raises(TypeError):
        cp.add(ca, cb, out=cp.zeros((3, 4), dtype=np.int32, device=device))
    with pytest.raises(ValueError):
        cp.add(ca, cb, out=cp.zeros((4, 3), device=device))


@pytest.mark.parametrize("name", ["equal", "less", "isnan", "logical_not"])
def test_out_bool(device, rng, name):
    a = random_array(rng, (10,), np.float32)
    a[3] = np.nan
    f = getattr(cp, name)
    nargs = (a,) if name in ("isnan", "logical_not") else (a, a[::-1].copy())
    cargs = tuple(cp.asarray(v, device=device) for v in nargs)
    o = cp.empty(10, dtype=np.bool_, device=device)
    assert f(*cargs, out=o) is o
    assert_same(o, getattr(np, name)(*nargs))


# --- clip, round, isclose, allclose, array_equal -----------------------------------------


@pytest.mark.parametrize("dtype", [np.int8, np.uint32, np.int64, np.float16, np.float32, np.float64], ids=dtype_id)
def test_clip(device, rng, dtype):
    n = random_array(rng, (5, 6), dtype)
    x = cp.asarray(n, device=device)
    assert_same(cp.clip(x, 2, 20), np.clip(n, 2, 20))
    assert_same(cp.clip(x, None, 10), np.clip(n, None, 10))
    assert_same(cp.clip(x, 5, None), np.clip(n, 5, None))
    lo = random_array(rng, (6,), dtype)
    clo = cp.asarray(lo, device=device)
    assert_same(cp.clip(x, clo, 30), np.clip(n, lo, 30))
    o = cp.empty_like(x)
    assert cp.clip(x, 1, 3, out=o) is o
    assert_same(o, np.clip(n, 1, 3))


@pytest.mark.parametrize("dtype", [np.int16, np.float16, np.float32, np.float64, np.complex128], ids=dtype_id)
def test_round(device, rng, dtype):
    n = random_array(rng, (40,), dtype) * (3 if np.dtype(dtype).kind != "c" else 1)
    if np.dtype(dtype).kind == "f":
        n[:8] = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 0.25, 0.125, -2.5], dtype)
    x = cp.asarray(n, device=device)
    for d in [0, 1, 2, -1]:
        assert_same(cp.round(x, d), np.round(n, d))
    assert_same(cp.round(x), np.round(n))


def test_isclose_allclose_array_equal(device, rng):
    a = random_array(rng, (20,), np.float64)
    b = a + rng.normal(0, 1e-9, 20)
    b[3] = a[3] + 1e-3
    a[5] = b[5] = np.nan
    ca, cb = cp.asarray(a, device=device), cp.asarray(b, device=device)
    assert_same(cp.isclose(ca, cb), np.isclose(a, b))
    assert_same(cp.isclose(ca, cb, equal_nan=True), np.isclose(a, b, equal_nan=True))
    assert_same(cp.isclose(ca, cb, rtol=1e-2), np.isclose(a, b, rtol=1e-2))
    assert_same(cp.isclose(ca, cb, atol=0.01, rtol=0), np.isclose(a, b, atol=0.01, rtol=0))
    assert bool(cp.allclose(ca, cb)) is False
    assert bool(cp.allclose(ca, cb, rtol=1e-2, equal_nan=True)) is True
    assert bool(cp.array_equal(ca, ca)) is False
    assert bool(cp.array_equal(ca, ca, equal_nan=True)) is True
    assert bool(cp.array_equal(cp.arange(3, device=device), cp.arange(3, device=device))) is True
    assert bool(cp.array_equal(cp.arange(3, device=device), cp.arange(4, device=device))) is False
    i = cp.arange(5, device=device)
    assert_same(cp.isclose(i, i + 1, atol=1), np.isclose(np.arange(5), np.arange(5) + 1, atol=1))


# --- fuse ----------------------------------------------------------------------------------


def _f1(x, y):
    return x * y + cp.exp(-x) - 2.0


def _f2(x, y, s):
    return cp.where(x > y, cp.sqrt(cp.abs(x)) * s, y**2) / (1 + cp.abs(y))


def _f3(a, b):
    return (a & b) | (a ^ 3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
def test_fuse_matches_unfused(device, rng, dtype):
    a = cp.asarray(random_array(rng, (50, 20), dtype), device=device)
    b = cp.asarray(random_array(rng, (20,), dtype), device=device)
    fused = cp.fuse(_f1)
    got, want = fused(a, b), _f1(a, b)
    assert_same(got, to_np(want))
    f2 = cp.fuse(_f2)
    assert_same(f2(a, b, 0.5), to_np(_f2(a, b, 0.5)))
    assert_same(f2(a.T[::2], b[::2, None], 3.0), to_np(_f2(a.T[::2], b[::2, None], 3.0)))


def test_fuse_decorator_and_ints(device, rng):
    @cp.fuse
    def g(a, b):
        return (a & b) | (a ^ 3)

    n = random_array(rng, (100,), np.int32)
    m = random_array(rng, (100,), np.int32)
    x, y = cp.asarray(n, device=device), cp.asarray(m, device=device)
    assert_same(g(x, y), (n & m) | (n ^ 3))

    @cp.fuse
    def scale(a, s):
        return a * s + 1

    f = cp.asarray(random_array(rng, (30,), np.float32), device=device)
    r = scale(f, 2.0)
    # The Python scalar stays weak inside the fused kernel too.
    assert r.dtype == np.float32
    assert_same(r, to_np(f) * np.float32(2.0) + np.float32(1))


def test_fuse_tuples_keywords_and_scalars(device, rng):
    """A fused function may return a tuple (each formula one kernel, other items as they are), take keyword
    arguments (passed as they are) and be called with no array at all (then it is the plain function)."""

    @cp.fuse(kernel_name="parts")
    def parts(a, b, *, k=2.0):
        return a + b, a * b * k, "tag"

    n = random_array(rng, (40,), np.float64)
    x = cp.asarray(n, device=device)
    s, p, tag = parts(x, 1.5, k=3.0)
    assert_same(s, n + 1.5)
    assert_same(p, n * 1.5 * 3.0)
    assert tag == "tag" and parts.__name__ == "parts"
    assert parts(2.0, 3.0) == (5.0, 12.0, "tag")  # no array: Python's own arithmetic
    with pytest.raises(ValueError):
        cp.fuse(lambda a, b: a + b)(x, cp.ones(3, device=device))  # shapes that do not broadcast


def test_fuse_scalar_and_zero_d(device):
    @cp.fuse
    def h(a, b):
        return cp.maximum(a, b) - cp.minimum(a, b)

    x = cp.asarray(np.float64(3.0), device=device)
    y = cp.arange(5, dtype=np.float64, device=device)
    assert_same(h(x, y), np.abs(3.0 - np.arange(5.0)))
    assert_same(h(y, 1.5), np.abs(np.arange(5.0) - 1.5))
