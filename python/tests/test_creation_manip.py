"""Creation and shape manipulation against NumPy: zeros/ones/empty/full (and _like), arange,
linspace, eye, identity, meshgrid, asarray/array/asnumpy; concatenate, stack, hstack, vstack,
split, flip, roll, tile, repeat, pad, diff, reshape, ravel, transpose, swapaxes, moveaxis,
squeeze, expand_dims, broadcast_to, broadcast_arrays, atleast_nd."""

import numpy as np
import pytest
from _cuprum_conftest import (
    ALL_DTYPES,
    assert_same,
    dtype_id,
    random_array,
    to_np,
)

import cuprum as cp

SHAPES = [(), 0, 5, (3, 4), (2, 0, 3), (2, 3, 4)]


@pytest.mark.parametrize("dtype", ALL_DTYPES + [None], ids=lambda d: "default" if d is None else dtype_id(d))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_zeros_ones_full_empty(device, dtype, shape):
    for cf, nf in [(cp.zeros, np.zeros), (cp.ones, np.ones)]:
        x = cf(shape, dtype=dtype, device=device)
        assert x.device == cp.Device(device)
        assert_same(x, nf(shape, dtype=dtype))
    x = cp.full(shape, 3, dtype=dtype, device=device)
    assert_same(x, np.full(shape, 3, dtype=dtype))
    e = cp.empty(shape, dtype=dtype, device=device)
    want = np.empty(shape, dtype=dtype)
    assert (e.shape, e.dtype, e.device) == (want.shape, want.dtype, cp.Device(device))


def test_full_fill_values(device):
    assert_same(cp.full((2, 3), 2.5, device=device), np.full((2, 3), 2.5))
    assert_same(cp.full(4, True, device=device), np.full(4, True))
    assert_same(cp.full(4, 1 + 2j, device=device), np.full(4, 1 + 2j))
    assert_same(cp.full(3, 7, device=device), np.full(3, 7))
    assert_same(cp.full(3, np.float32(0.5), device=device), np.full(3, np.float32(0.5)))
    with pytest.raises(OverflowError):
        cp.full(3, -1, dtype=np.uint8, device=device)
    assert_same(cp.full(3, np.nan, dtype=np.float16, device=device), np.full(3, np.nan, np.float16))
    fv = cp.asarray(np.float32(1.25), device=device)
    assert_same(cp.full((2, 2), fv, device=device), np.full((2, 2), np.float32(1.25)))
    assert_same(cp.full(3, 2**63, dtype=np.uint64, device=device), np.full(3, 2**63, dtype=np.uint64))


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex128, np.bool_], ids=dtype_id)
def test_like_functions(device, rng, dtype):
    n = random_array(rng, (3, 5), dtype)
    x = cp.asarray(n, device=device)
    for cf, nf in [(cp.zeros_like, np.zeros_like), (cp.ones_like, np.ones_like)]:
        y = cf(x)
        assert y.device == cp.Device(device)
        assert_same(y, nf(n))
        assert_same(cf(x, dtype=np.float64), nf(n, dtype=np.float64))
        assert_same(cf(x.T), nf(n.T))
    assert_same(cp.full_like(x, 2), np.full_like(n, 2))
    assert_same(cp.full_like(x, 0.7, dtype=np.float32), np.full_like(n, 0.7, dtype=np.float32))
    e = cp.empty_like(x)
    assert (e.shape, e.dtype, e.device) == (n.shape, n.dtype, cp.Device(device))
    assert_same(cp.zeros_like(x, shape=(2, 2)), np.zeros_like(n, shape=(2, 2)))


@pytest.mark.parametrize(
    "args,kwargs",
    [
        ((5,), {}),
        ((2, 10), {}),
        ((2, 10, 3), {}),
        ((10, 2, -3), {}),
        ((0,), {}),
        ((5, 2), {}),
        ((0.5, 3.0, 0.25), {}),
        ((1.0, 0.0, -0.1), {}),
        ((-3.5,), {}),
        ((3,), {"dtype": np.float32}),
        ((1, 11, 2), {"dtype": np.int8}),
        ((0, 1, 0.1), {}),
        ((2.5,), {"dtype": np.int64}),
        ((np.int16(3), 20, 4), {}),
        ((0, 5), {"dtype": np.uint16}),
        ((1e10, 1e10 + 5), {}),
    ],
    ids=str,
)
def test_arange(device, args, kwargs):
    assert_same(cp.arange(*args, **kwargs, device=device), np.arange(*args, **kwargs))


@pytest.mark.parametrize(
    "args,kwargs",
    [
        ((0, 1), {}),
        ((0, 1, 5), {}),
        ((-2, 3, 11), {"endpoint": False}),
        ((1, 0, 4), {}),
        ((0, 10, 1), {}),
        ((0, 10, 0), {}),
        ((0, 100, 7), {"dtype": np.float32}),
        ((0, 100, 7), {"dtype": np.int32}),
        ((1 + 1j, 2 - 3j, 5), {}),
        ((5, 5, 3), {}),
        ((0, 1e-300, 4), {}),
    ],
    ids=str,
)
def test_linspace(device, args, kwargs):
    assert_same(cp.linspace(*args, **kwargs, device=device), np.linspace(*args, **kwargs))


def test_linspace_retstep(device):
    got, step = cp.linspace(0, 2, 9, retstep=True, device=device)
    want, wstep = np.linspace(0, 2, 9, retstep=True)
    assert_same(got, want)
    assert float(step) == wstep


@pytest.mark.parametrize("dtype", [None, np.int32, np.bool_, np.complex64], ids=str)
def test_eye_identity(device, dtype):
    for args in [(3,), (3, 5), (5, 3), (4, 4, 1), (4, 4, -2), (3, 5, 4), (0,), (2, 3, -5)]:
        assert_same(cp.eye(*args, dtype=dtype, device=device), np.eye(*args, dtype=dtype))
    assert_same(cp.eye(4, k=2, dtype=dtype, device=device), np.eye(4, k=2, dtype=dtype))
    assert_same(cp.identity(5, dtype=dtype, device=device), np.identity(5, dtype=dtype))


def test_meshgrid(device, rng):
    a = np.arange(3.0)
    b = np.linspace(0, 1, 4).astype(np.float32)
    c = np.array([1, 2], np.int8)
    ca, cb, cc = (cp.asarray(v, device=device) for v in (a, b, c))
    for kw in [{}, {"indexing": "ij"}, {"indexing": "xy"}, {"sparse": True}, {"indexing": "ij", "sparse": True}]:
        got = cp.meshgrid(ca, cb, cc, **kw)
        want = np.meshgrid(a, b, c, **kw)
        assert len(got) == 3
        for g, w in zip(got, want, strict=True):
            assert_same(g, w)
    got = cp.meshgrid(ca)
    assert_same(got[0], np.meshgrid(a)[0])


def test_asarray_and_array(device, rng):
    cases = [
        [1, 2, 3],
        [1.5, 2, 3],
        [[1, 2], [3, 4]],
        [True, False],
        [1 + 2j, 3],
        3,
        2.5,
        True,
        [],
        [[]],
        (1, 2, 3.0),
        [np.float32(1), np.float32(2)],
        np.float32(2.5),
        [2**63],
        [-(2**63)],
    ]
    for c in cases:
        assert_same(cp.asarray(c, device=device), np.asarray(c))
        assert_same(cp.array(c, device=device), np.array(c))
    for dt in [np.int8, np.float16, np.complex64, np.bool_]:
        assert_same(cp.asarray([0, 1, 2], dtype=dt, device=device), np.asarray([0, 1, 2], dtype=dt))
    n = random_array(rng, (3, 4), np.float64)
    assert_same(cp.asarray(n.T, device=device), n.T)
    assert_same(cp.asarray(n[::2, ::-1], device=device), n[::2, ::-1])
    assert_same(cp.asarray(n, dtype=np.float32, device=device), n.astype(np.float32))
    # The cuprum array does not share memory with the NumPy input on a GPU; on the CPU it is
    # still a copy for array() (copy=True by default).
    x = cp.array(n, device=device)
    n2 = n.copy()
    n[0, 0] = 1e6
    assert_same(x, n2)
    # Nested sequences of cuprum arrays.
    rows = [cp.asarray([1, 2], device=device), cp.asarray([3, 4], device=device)]
    assert_same(cp.asarray(rows, device=device), np.array([[1, 2], [3, 4]]))
    assert_same(cp.stack(rows), np.array([[1, 2], [3, 4]]))
    # asnumpy of a view and of a 0-d array.
    y = cp.asarray(n2, device=device)
    assert np.array_equal(cp.asnumpy(y.T), n2.T)
    assert cp.asnumpy(y[1, 1]).shape == ()
    assert to_np(cp.asarray(np.zeros((2, 0)), device=device)).shape == (2, 0)


def test_asarray_copy_argument(device):
    x = cp.arange(4, device=device)
    y = cp.asarray(x, copy=True)
    y[0] = 100
    assert x[0].item() == 0
    z = cp.asarray(x, copy=False)
    z[1] = 100
    assert x[1].item() == 100
    with pytest.raises(ValueError):
        cp.asarray(x, dtype=np.float64, copy=False)


# --- joining and splitting ---------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint32, np.float16, np.float64, np.complex64], ids=dtype_id)
def test_concatenate_stack(device, rng, dtype):
    a = random_array(rng, (2, 3, 4), dtype)
    b = random_array(rng, (2, 3, 4), dtype)
    c = random_array(rng, (2, 5, 4), dtype)
    ca, cb, cc = (cp.asarray(v, device=device) for v in (a, b, c))
    assert_same(cp.concatenate([ca, cb]), np.concatenate([a, b]))
    assert_same(cp.concatenate((ca, cc, cb), axis=1), np.concatenate((a, c, b), axis=1))
    assert_same(cp.concatenate([ca, cb], axis=-1), np.concatenate([a, b], axis=-1))
    assert_same(cp.concatenate([ca, cc], axis=None), np.concatenate([a, c], axis=None))
    assert_same(cp.concatenate([ca.T, cb.T]), np.concatenate([a.T, b.T]))
    assert_same(cp.concatenate([ca[:, ::2], cb[:, 1:]], axis=1), np.concatenate([a[:, ::2], b[:, 1:]], axis=1))
    for axis in [0, 1, 3, -1]:
        assert_same(cp.stack([ca, cb, ca], axis=axis), np.stack([a, b, a], axis=axis))
    assert_same(cp.hstack([ca, cb]), np.hstack([a, b]))
    assert_same(cp.hstack([ca[0], cb[0]]), np.hstack([a[0], b[0]]))
    assert_same(cp.vstack([ca[0], cb[0]]), np.vstack([a[0], b[0]]))
    assert_same(cp.hstack([ca[0, 0], cb[0, 1]]), np.hstack([a[0, 0], b[0, 1]]))
    assert_same(cp.vstack([ca[0, 0], cb[0, 1]]), np.vstack([a[0, 0], b[0, 1]]))
    e = cp.zeros((0, 3, 4), dtype=dtype, device=device)
    assert_same(cp.concatenate([e, ca]), np.concatenate([np.zeros((0, 3, 4), dtype), a]))


def test_concatenate_promotes(device):
    a = cp.asarray([1, 2], dtype=np.int8, device=device)
    b = cp.asarray([0.5], dtype=np.float32, device=device)
    assert_same(cp.concatenate([a, b]), np.concatenate([np.array([1, 2], np.int8), np.array([0.5], np.float32)]))
    assert_same(
        cp.concatenate([a, b], dtype=np.float64),
        np.concatenate([np.array([1, 2], np.int8), np.array([0.5], np.float32)], dtype=np.float64),
    )


def test_split(device, rng):
    n = random_array(rng, (6, 8), np.int32)
    x = cp.asarray(n, device=device)
    for args in [(2,), (3, 0), (4, 1), ([1, 5],), ([2, 3, 7], 1), ([0, 0, 10], 1), ([],)]:
        got = cp.split(x, *args)
        want = np.split(n, *args)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert_same(g, w)
    # Pieces are views.
    p = cp.split(x, 2)[1]
    p[0, 0] = -777
    assert x[3, 0].item() == -777


# --- rearranging -------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.complex128], ids=dtype_id)
def test_flip_roll(device, rng, dtype):
    n = random_array(rng, (3, 4, 5), dtype)
    x = cp.asarray(n, device=device)
    for axis in [None, 0, 1, -1, (0, 2)]:
        assert_same(cp.flip(x, axis=axis), np.flip(n, axis=axis))
    assert_same(cp.fliplr(x), np.fliplr(n))
    assert_same(cp.flipud(x), np.flipud(n))
    for shift, axis in [(1, None), (-3, None), (2, 0), (7, 1), (-1, -1), ((1, 2), (0, 2)), (13, None), (0, 1)]:
        assert_same(cp.roll(x, shift, axis=axis), np.roll(n, shift, axis=axis))
    assert_same(cp.roll(x.T, 2, axis=0), np.roll(n.T, 2, axis=0))


def test_tile_repeat(device, rng):
    n = random_array(rng, (2, 3), np.float64)
    x = cp.asarray(n, device=device)
    for reps in [2, (2, 1), (1, 3), (2, 2, 2), (0, 2), 1]:
        assert_same(cp.tile(x, reps), np.tile(n, reps))
    assert_same(cp.tile(x.T, 2), np.tile(n.T, 2))
    for reps, axis in [(2, None), (3, 0), (2, 1), ([1, 0, 3], 1), ([2, 1], 0), (0, 0)]:
        assert_same(cp.repeat(x, reps, axis=axis), np.repeat(n, reps, axis=axis))
    assert_same(cp.repeat(cp.asarray(3.5, device=device), 4), np.repeat(3.5, 4))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.complex64], ids=dtype_id)
def test_pad_constant(device, rng, dtype):
    n = random_array(rng, (3, 4), dtype)
    x = cp.asarray(n, device=device)
    for width in [1, (1, 2), ((1, 0), (2, 3)), ((0, 0), (0, 0)), ((2,), (1,))]:
        assert_same(cp.pad(x, width), np.pad(n, width))
        assert_same(
            cp.pad(x, width, mode="constant", constant_values=7), np.pad(n, width, mode="constant", constant_values=7)
        )
    assert_same(
        cp.pad(x, ((1, 2), (3, 4)), constant_values=((1, 2), (3, 4))),
        np.pad(n, ((1, 2), (3, 4)), constant_values=((1, 2), (3, 4))),
    )
    assert_same(cp.pad(x.T, 2), np.pad(n.T, 2))
    v = cp.asarray(n[0], device=device)
    assert_same(cp.pad(v, (3, 1)), np.pad(n[0], (3, 1)))


@pytest.mark.parametrize(
    "dtype", [np.int8, np.uint8, np.int64, np.float32, np.float64, np.bool_, np.complex64], ids=dtype_id
)
def test_diff(device, rng, dtype):
    n = random_array(rng, (5, 7), dtype)
    x = cp.asarray(n, device=device)
    for kw in [{}, {"n": 2}, {"axis": 0}, {"n": 3, "axis": -1}, {"n": 0}, {"n": 10, "axis": 0}]:
        assert_same(cp.diff(x, **kw), np.diff(n, **kw))
    assert_same(cp.diff(x.T), np.diff(n.T))
    if np.dtype(dtype).kind in "iuf":
        assert_same(cp.diff(x, prepend=0), np.diff(n, prepend=0))
        assert_same(cp.diff(x, axis=0, append=cp.asarray(n[:1], device=device)), np.diff(n, axis=0, append=n[:1]))


def test_shape_functions(device, rng):
    n = random_array(rng, (2, 1, 3, 4), np.float32)
    x = cp.asarray(n, device=device)
    assert_same(cp.reshape(x, (6, 4)), np.reshape(n, (6, 4)))
    assert_same(cp.reshape(x, -1), np.reshape(n, -1))
    assert_same(cp.reshape(x.T, (4, -1)), np.reshape(n.T, (4, -1)))
    assert_same(cp.ravel(x), np.ravel(n))
    assert_same(cp.ravel(x.T), np.ravel(n.T))
    assert_same(cp.transpose(x), np.transpose(n))
    assert_same(cp.transpose(x, (1, 3, 0, 2)), np.transpose(n, (1, 3, 0, 2)))
    assert_same(cp.swapaxes(x, 0, 3), np.swapaxes(n, 0, 3))
    for src, dst in [(0, -1), (-1, 0), ((0, 1), (2, 3)), ([3, 0], [0, 1])]:
        assert_same(cp.moveaxis(x, src, dst), np.moveaxis(n, src, dst))
    assert_same(cp.squeeze(x), np.squeeze(n))
    assert_same(cp.squeeze(x, axis=1), np.squeeze(n, axis=1))
    for axis in [0, 2, -1, (0, 3), (1, -1)]:
        assert_same(cp.expand_dims(x, axis), np.expand_dims(n, axis))


def test_broadcasting_functions(device, rng):
    n = random_array(rng, (3, 1), np.int16)
    x = cp.asarray(n, device=device)
    for shape in [(3, 4), (2, 3, 5), (3, 1), (0, 3, 1)]:
        b = cp.broadcast_to(x, shape)
        assert_same(b, np.broadcast_to(n, shape))
        if shape in [(3, 4), (2, 3, 5)]:
            assert b.strides == np.broadcast_to(n, shape).strides
    m = random_array(rng, (4,), np.float32)
    got = cp.broadcast_arrays(x, cp.asarray(m, device=device), cp.asarray(np.float64(2.0), device=device))
    want = np.broadcast_arrays(n, m, np.float64(2.0))
    assert len(got) == 3
    for g, w in zip(got, want, strict=True):
        assert_same(g, w)
    # A broadcast view reads its one element many times; copying it gives a normal array.
    c = cp.broadcast_to(x, (3, 6)).copy()
    c[0, 0] = 99
    assert_same(c[:, 1], n[:, 0])


def test_atleast(device):
    for v in [np.float64(3.0), np.arange(3), np.arange(6).reshape(2, 3), np.zeros((2, 3, 4))]:
        x = cp.asarray(v, device=device)
        assert_same(cp.atleast_1d(x), np.atleast_1d(v))
        assert_same(cp.atleast_2d(x), np.atleast_2d(v))
        assert_same(cp.atleast_3d(x), np.atleast_3d(v))
    got = cp.atleast_2d(cp.asarray(1.0, device=device), cp.arange(3, device=device))
    want = np.atleast_2d(1.0, np.arange(3))
    assert len(got) == 2
    for g, w in zip(got, want, strict=True):
        assert_same(g, w)
