"""The pieces the Array API test suite found missing or wrong, checked against NumPy on both devices:
``view(dtype)``, ``nextafter``, ``signbit`` of -0 and -NaN, the dtypes of ``copysign``/``logaddexp`` with
Python scalars (NEP 50), ``logaddexp`` at infinities, ``cumulative_sum``/``cumulative_prod`` with
``include_initial``, ``vecdot``'s dtype and shape rules, ``pinv`` with one ``rtol`` per matrix,
``vector_norm`` over several axes or none, ``eye`` with a far diagonal, the SVD of huge entries."""

import numpy as np
import pytest
from _cuprum_conftest import FLOATS, assert_same, dtype_id, random_array, to_np

import cuprum as cp


def bits(a):
    """The bytes of a NumPy array, so that -0.0 and NaN payloads compare exactly."""
    return np.ascontiguousarray(a).view(np.uint8)


@pytest.mark.parametrize(
    "src,dst,shape,index",
    [
        (np.float32, np.uint32, (2, 3), ()),
        (np.float64, np.int64, (4, 3), (slice(None, None, 2), slice(None))),  # strided rows, same itemsize
        (np.float64, np.uint8, (2, 3), ()),
        (np.uint8, np.float32, (3, 8), ()),
        (np.int16, np.float16, (5,), (slice(None, None, -1),)),  # any layout for the same itemsize
        (np.complex128, np.float64, (2, 2), ()),
        (np.float32, np.float64, (4, 0), ()),
    ],
    ids=str,
)
def test_view_dtype(device, rng, src, dst, shape, index):
    a = random_array(rng, shape, src)
    x = cp.asarray(a, device=device)[index]
    v = x.view(dst)
    want = a[index].view(dst)
    assert v.dtype == want.dtype and v.shape == want.shape
    assert np.array_equal(bits(to_np(v)), bits(want))
    # A view: writes through it are seen by the original.
    if v.size:
        v[...] = 0
        assert not to_np(x).any()


def test_view_dtype_errors(device):
    # NumPy's three errors: a strided last axis, a 0-d array, a last axis the new itemsize does not divide.
    for make, index, dt in [
        (lambda m: m.zeros((3, 4)), (slice(None), slice(None, None, 2)), np.float32),
        (lambda m: m.zeros(()), (), np.float32),
        (lambda m: m.zeros(3, dtype=m.float32), (), np.float64),
    ]:
        with pytest.raises(ValueError):
            make(np)[index].view(dt)
        with pytest.raises(ValueError):
            cp.asarray(make(np), device=device)[index].view(dt)
    # cuprum's own rule: the elements of the view must be aligned (NumPy allows an unaligned view).
    with pytest.raises(ValueError, match="aligned"):
        cp.zeros(9, dtype=cp.float32, device=device)[1:].view(cp.float64)


@pytest.mark.parametrize("dtype", FLOATS, ids=dtype_id)
def test_nextafter(device, rng, dtype):
    fi = np.finfo(dtype)
    special = np.array([0, -0.0, 1, -1, np.inf, -np.inf, fi.max, -fi.max, fi.smallest_subnormal, np.nan, 2, 3], dtype)
    toward = np.array([-1, 1, 2, -2, 0, 0, np.inf, -np.inf, 0, 1, np.nan, 3], dtype)
    a = np.concatenate([special, random_array(rng, 40, dtype)])
    b = np.concatenate([toward, random_array(rng, 40, dtype)])
    with np.errstate(all="ignore"):
        want = np.nextafter(a, b)
    got = to_np(cp.nextafter(cp.asarray(a, device=device), cp.asarray(b, device=device)))
    assert got.dtype == want.dtype
    # Bit for bit, -0.0 and subnormals included; NaNs by place (a GPU may carry a NaN through float16
    # arithmetic as its canonical NaN: payloads are not part of NumPy's contract).
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(bits(got[~nan]), bits(want[~nan]))
    # Broadcasting and Python scalars (weak): float32 stays float32; integers take NumPy's float loop.
    assert_same(cp.nextafter(cp.asarray(a[:3], device=device), 1.0), np.nextafter(a[:3], 1.0))
    i8 = np.arange(3, dtype=np.int8)
    assert_same(cp.nextafter(cp.asarray(i8, device=device), 2), np.nextafter(i8, 2))


@pytest.mark.parametrize("dtype", FLOATS + [np.int8, np.uint16, np.bool_], ids=dtype_id)
def test_signbit(device, dtype):
    if np.dtype(dtype).kind == "f":
        a = np.array([0.0, -0.0, 1, -1, np.inf, -np.inf, np.nan, -np.nan], dtype)
    else:
        a = np.array([0, 1, 2] + ([-3] if np.dtype(dtype).kind == "i" else []), dtype)
    assert_same(cp.signbit(cp.asarray(a, device=device)), np.signbit(a))
    with pytest.raises(TypeError):
        cp.signbit(cp.ones(2, dtype=cp.complex64, device=device))


@pytest.mark.parametrize("name", ["copysign", "logaddexp", "logaddexp2"])
def test_float_binary_dtypes_and_specials(device, name):
    cf, nf = getattr(cp, name), getattr(np, name)
    f32 = np.array([0.0, -0.0, 1.5, -2, np.inf, -np.inf, np.nan], np.float32)
    f64 = np.array([-1.0, 1, -0.0, 0.0, np.inf, -np.inf, -np.nan])
    i16 = np.array([-1, 0, 1, 2, -5, 7, 3], np.int16)
    x32, x64, xi = (cp.asarray(v, device=device) for v in (f32, f64, i16))
    with np.errstate(all="ignore"):
        for (c1, c2), (n1, n2) in [
            ((x32, x64), (f32, f64)),
            ((x32, x32[::-1]), (f32, f32[::-1])),
            ((x64, x64[::-1]), (f64, f64[::-1])),
            ((0, x32), (0, f32)),
            ((0.0, x32), (0.0, f32)),
            ((x32, 0.5), (f32, 0.5)),
            ((xi, x32), (i16, f32)),
            ((xi, 2), (i16, 2)),
        ]:
            want = nf(n1, n2)
            got = cf(c1, c2)
            assert got.dtype == want.dtype, (n1, n2)
            assert_same(got, want)
            if name == "copysign":
                assert np.array_equal(np.signbit(to_np(got)), np.signbit(want))


@pytest.mark.parametrize("prod", [False, True])
def test_cumulative_include_initial(device, rng, prod):
    cf = cp.cumulative_prod if prod else cp.cumulative_sum
    nf = np.cumulative_prod if prod else np.cumulative_sum
    for shape, kw in [
        ((5,), {}),
        ((5,), {"include_initial": True}),
        ((2, 3), {"axis": 1, "include_initial": True}),
        ((2, 3), {"axis": -2, "include_initial": True, "dtype": np.float32}),
        ((0, 3), {"axis": 0, "include_initial": True}),
        ((), {"include_initial": True}),
    ]:
        a = random_array(rng, shape, np.int8)
        assert_same(cf(cp.asarray(a, device=device), **kw), nf(a, **kw))
    with pytest.raises(ValueError):
        cf(cp.ones((2, 2), device=device))


def test_vecdot(device, rng):
    for dt1, dt2, s1, s2, axis in [
        (np.int8, np.uint8, (3,), (2, 3), -1),
        (np.float32, np.float32, (4, 1, 5), (3, 5), -1),
        (np.complex64, np.complex128, (2, 3), (2, 3), 0),
        (np.bool_, np.bool_, (4,), (4,), -1),
    ]:
        a, b = random_array(rng, s1, dt1), random_array(rng, s2, dt2)
        want = np.vecdot(a, b, axis=axis)
        got = cp.vecdot(cp.asarray(a, device=device), cp.asarray(b, device=device), axis=axis)
        assert_same(got, want)
        assert_same(cp.linalg.vecdot(cp.asarray(a, device=device), cp.asarray(b, device=device), axis=axis), want)
    # The contracted axes do not broadcast.
    with pytest.raises(ValueError, match="core dimension"):
        cp.vecdot(cp.ones(1, device=device), cp.ones(3, device=device))


def test_pinv_rtol_per_matrix(device, rng):
    a = rng.normal(size=(3, 4, 5))
    a[1] = np.outer(np.arange(4), np.arange(5))  # rank one
    rtol = np.array([0.5, 1e-3, 1e-12])
    assert_same(
        cp.linalg.pinv(cp.asarray(a, device=device), rtol=cp.asarray(rtol, device=device)), np.linalg.pinv(a, rtol=rtol)
    )


@pytest.mark.parametrize("axis", [(), (1,), (0, 2), (2, 0, 1), -1])
@pytest.mark.parametrize("ord", [2, 1, np.inf, 0])
def test_vector_norm_axes(device, rng, axis, ord):
    a = rng.normal(size=(2, 3, 4))
    for keepdims in (False, True):
        want = np.linalg.vector_norm(a, axis=axis, ord=ord, keepdims=keepdims)
        assert_same(cp.linalg.vector_norm(cp.asarray(a, device=device), axis=axis, ord=ord, keepdims=keepdims), want)


def test_eye_far_diagonal(device):
    for args in [(3, None, 2**63), (3, 4, -(2**70)), (3, 4, 4), (0, 2, 5), (2, 0, -5), (3, 5, 4)]:
        assert_same(cp.eye(*args, device=device), np.eye(*args))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("scale", [1e-30, 1e20, 1e30])
def test_svd_huge_and_tiny_entries(device, rng, dtype, scale):
    if np.dtype(dtype).itemsize == 4 * (2 if np.dtype(dtype).kind == "c" else 1) and scale == 1e30:
        scale = 1e36
    a = np.full((3, 3), 1.0, dtype) + np.diag([2.0, 0, 0]).astype(dtype)  # rank two
    a = (a * dtype(scale)).astype(dtype)
    want = np.linalg.svd(a, compute_uv=False)
    got = cp.linalg.svd(cp.asarray(a, device=device), compute_uv=False)
    # The zero singular value is rounding noise in both; the others agree to the dtype's precision.
    tol = 1e-5 if np.dtype(dtype).itemsize <= 8 and np.dtype(dtype) != np.float64 else 1e-12
    np.testing.assert_allclose(to_np(got)[:2], want[:2], rtol=tol)
    assert abs(to_np(got)[2]) <= 1e-5 * want[0]
    u, s, vh = cp.linalg.svd(cp.asarray(a, device=device))
    np.testing.assert_allclose(to_np((u * s[None, :].astype(u.dtype)) @ vh), a, rtol=0, atol=tol * 10 * want[0])


@pytest.mark.parametrize(
    "shape,mask", [((3,), (0,)), ((1, 3), (0, 3)), ((2, 3), (2, 0)), ((2, 3), (2, 2)), ((2, 3), (0, 2))], ids=str
)
def test_bool_mask_with_empty_axis(device, shape, mask):
    """A mask axis of length 0 matches an axis of any length and selects nothing; other lengths must match."""
    a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    x, m = cp.asarray(a, device=device), np.zeros(mask, bool)
    try:
        want = a[m]
    except IndexError:
        with pytest.raises(IndexError):
            x[cp.asarray(m, device=device)]
        return
    assert_same(x[cp.asarray(m, device=device)], want)
    x[cp.asarray(m, device=device)] = 7.0
    assert_same(x, a)
    with pytest.raises(ValueError):
        x[cp.asarray(m, device=device)] = cp.asarray([1.0, 2.0], device=device)


# Real floats only: NumPy 2.4's complex unique(equal_nan=False) does not sort NaNs last.
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=dtype_id)
def test_unique_nans_apart(device, dtype):
    a = np.array([np.nan, 2, np.nan, 1, 2, np.nan, 0], dtype)
    x = cp.asarray(a, device=device)
    for f in ("unique_values", "unique_counts", "unique_inverse", "unique_all"):
        got, want = getattr(cp, f)(x), getattr(np, f)(a)
        for g, w in zip(
            got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,), strict=True
        ):
            assert_same(g, w)
    got = cp.unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False)
    for g, w in zip(
        got, np.unique(a, return_index=True, return_inverse=True, return_counts=True, equal_nan=False), strict=True
    ):
        assert_same(g, w)
    # The default (equal_nan=True) keeps one NaN, as NumPy's unique does.
    assert_same(cp.unique(x), np.unique(a))


def test_asarray_of_nested_device_arrays(device, rng):
    """The Array API suite builds expected values as ``asarray([[x[i, j] ...] ...])`` from 0-d arrays."""
    a = rng.standard_normal((3, 2)).astype(np.float32)
    x = cp.asarray(a, device=device)
    with cp.Device(device):  # asarray without device= puts its result on the current device (CuPy's rule)
        t = cp.asarray([[x[i, j] for i in range(3)] for j in range(2)], dtype=x.dtype)
        assert_same(t, a.T)
        assert t.device == x.device
        assert_same(cp.asarray([[x[0, 0], x[1, 1]]]), np.array([[a[0, 0], a[1, 1]]]))
    assert_same(cp.asarray([[x[0, 0]], [x[1, 1]]], device=device), np.array([[a[0, 0]], [a[1, 1]]]))
