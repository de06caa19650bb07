"""Indexing against NumPy: basic (ints, slices with steps, Ellipsis, None), advanced (boolean
masks, integer arrays, both mixed with slices), assignment through each, views sharing memory;
the selection functions (take, take_along_axis, put, compress, extract, nonzero, flatnonzero,
argwhere, where, diagonal) and sorting (sort, argsort, partition, searchsorted, unique, isin)."""

import numpy as np
import pytest
from _cuprum_conftest import (
    ALL_DTYPES,
    FLOATS,
    INTS,
    assert_same,
    dtype_id,
    random_array,
)

import cuprum as cp

BASIC = [
    (0,),
    (-1,),
    (2, 3),
    (1, -2, 0),
    (slice(None),),
    (slice(1, 4),),
    (slice(None, None, 2),),
    (slice(None, None, -1),),
    (slice(4, 0, -2),),
    (slice(-3, None),),
    (slice(10, 20),),
    (slice(1, 1),),
    (Ellipsis,),
    (Ellipsis, 0),
    (0, Ellipsis),
    (Ellipsis, slice(None, None, -2)),
    (None,),
    (None, 0, None),
    (slice(None), None, 1),
    (1, Ellipsis, None),
    (slice(None, None, 3), slice(1, None, 2), -1),
    (slice(None), slice(None), slice(None)),
]


@pytest.mark.parametrize("idx", BASIC, ids=repr)
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint64, np.float16, np.float64, np.complex64], ids=dtype_id)
def test_basic_getitem(device, rng, idx, dtype):
    n = random_array(rng, (5, 6, 4), dtype)
    x = cp.asarray(n, device=device)
    key = idx[0] if len(idx) == 1 else idx
    assert_same(x[key], n[key])
    # The same index on a transposed view.
    assert_same(x.T[key], n.T[key])


def test_integer_index_gives_zero_d_array(device):
    n = np.arange(12.0).reshape(3, 4)
    x = cp.asarray(n, device=device)
    v = x[1, 2]
    assert type(v) is cp.ndarray and v.shape == () and v.item() == 6.0
    assert x[-1].shape == (4,)


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.complex128], ids=dtype_id)
def test_boolean_masks(device, rng, dtype):
    n = random_array(rng, (6, 7), dtype)
    x = cp.asarray(n, device=device)
    m = rng.random((6, 7)) < 0.4
    cm = cp.asarray(m, device=device)
    assert_same(x[cm], n[m])
    assert_same(
        x[x.real > 0] if np.dtype(dtype).kind == "c" else x[x > 0],
        n[n.real > 0] if np.dtype(dtype).kind == "c" else n[n > 0],
    )
    row = rng.random(6) < 0.5
    assert_same(x[cp.asarray(row, device=device)], n[row])
    col = np.array([True, False, True, True, False, False, True])
    assert_same(x[:, cp.asarray(col, device=device)], n[:, col])
    assert_same(x[1:, cp.asarray(col, device=device)], n[1:, col])
    assert_same(x[cp.zeros((6, 7), dtype=bool, device=device)], n[np.zeros((6, 7), bool)])
    assert_same(x.T[cp.asarray(m.T, device=device)], n.T[m.T])
    # A 0-d mask adds an axis.
    assert_same(x[cp.asarray(True, device=device)], n[np.True_])
    # A Python list of booleans is a mask too.
    assert_same(x[[True, False, True, False, False, True]], n[[True, False, True, False, False, True]])


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.bool_], ids=dtype_id)
def test_integer_array_indexing(device, rng, dtype):
    n = random_array(rng, (6, 5, 4), dtype)
    x = cp.asarray(n, device=device)
    i = np.array([0, 5, -1, 2, 2])
    j = np.array([[1, 0], [4, -5]])
    ci, cj = cp.asarray(i, device=device), cp.asarray(j, device=device)
    assert_same(x[ci], n[i])
    assert_same(x[cj], n[j])
    assert_same(x[:, cj], n[:, j])
    assert_same(x[ci, 0], n[i, 0])
    assert_same(x[ci, ci[::-1] % 5], n[i, i[::-1] % 5])
    assert_same(x[cj, 1:3, cj % 4], n[j, 1:3, j % 4])
    assert_same(x[..., cp.asarray([3, 0], device=device)], n[..., [3, 0]])
    assert_same(x[1, cp.asarray([0, 0, 4], device=device), ::2], n[1, [0, 0, 4], ::2])
    # Index arrays of other integer dtypes, and Python lists.
    assert_same(x[cp.asarray(i.astype(np.int8), device=device)], n[i.astype(np.int8)])
    assert_same(x[cp.asarray([1, 3], dtype=np.uint32, device=device)], n[np.array([1, 3], np.uint32)])
    assert_same(x[[0, 2], [1, 1]], n[[0, 2], [1, 1]])
    assert_same(x[[4]], n[[4]])
    assert_same(x[cp.asarray(np.zeros(0, np.int64), device=device)], n[np.zeros(0, np.int64)])
    # Broadcast index arrays.
    r = np.arange(6)[:, None]
    c = np.array([0, 2, 4])
    assert_same(x[cp.asarray(r, device=device), cp.asarray(c, device=device)], n[r, c])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_setitem_basic(device, rng, dtype):
    n = random_array(rng, (5, 6), dtype)
    x = cp.asarray(n, device=device)
    v = random_array(rng, (3,), dtype)
    for key, val in [
        ((0, 0), 1),
        ((slice(None), 2), 0),
        ((slice(None, None, 2), slice(1, None, 2)), v),
        ((slice(None, None, -1), 0), random_array(rng, (5,), dtype)),
        ((Ellipsis, -1), v[0]),
        ((1,), random_array(rng, (6,), dtype)),
    ]:
        cval = cp.asarray(val, device=device) if isinstance(val, np.ndarray) and val.ndim else val
        x[key] = cval
        n[key] = val
        assert_same(x, n)
    x[...] = 1
    n[...] = 1
    assert_same(x, n)


def test_setitem_casts_and_broadcasts(device, rng):
    x = cp.zeros((4, 5), dtype=np.int32, device=device)
    n = np.zeros((4, 5), dtype=np.int32)
    x[1] = cp.asarray([1.7, 2.2, -3.9, 4.0, 5.5], device=device)
    n[1] = np.array([1.7, 2.2, -3.9, 4.0, 5.5])
    assert_same(x, n)
    x[:, 1:3] = cp.asarray([[7], [8], [9], [10]], device=device)
    n[:, 1:3] = np.array([[7], [8], [9], [10]])
    assert_same(x, n)
    x[2:, :] = 2.9
    n[2:, :] = 2.9
    assert_same(x, n)
    f = cp.zeros(4, dtype=np.float32, device=device)
    f[:] = cp.arange(4, dtype=np.float64, device=device) / 3
    assert_same(f, (np.arange(4) / 3).astype(np.float32))
    # A Python list as the value.
    f[1:3] = [5, 6]
    assert f.get().tolist() == [0.0, 5.0, 6.0, 1.0]


def test_setitem_advanced(device, rng):
    n = random_array(rng, (6, 5), np.float64)
    x = cp.asarray(n, device=device)
    m = n > 1
    x[cp.asarray(m, device=device)] = 0
    n[m] = 0
    assert_same(x, n)
    x[x < -1] = -1
    n[n < -1] = -1
    assert_same(x, n)
    mask = n[:, 0] > 0
    vals = np.arange(mask.sum() * 5, dtype=np.float64).reshape(-1, 5)
    x[cp.asarray(mask, device=device)] = cp.asarray(vals, device=device)
    n[mask] = vals
    assert_same(x, n)
    idx = np.array([4, 0, 2])
    x[cp.asarray(idx, device=device)] = cp.asarray([9.0, 8.0, 7.0, 6.0, 5.0], device=device)
    n[idx] = np.array([9.0, 8.0, 7.0, 6.0, 5.0])
    assert_same(x, n)
    x[cp.asarray(idx, device=device), cp.asarray([1, 1, 3], device=device)] = cp.asarray(
        [-1.0, -2.0, -3.0], device=device
    )
    n[idx, [1, 1, 3]] = [-1.0, -2.0, -3.0]
    assert_same(x, n)
    x[:, cp.asarray([0, 4], device=device)] = 3.5
    n[:, [0, 4]] = 3.5
    assert_same(x, n)


def test_views_share_memory(device):
    n = np.arange(24.0).reshape(4, 6)
    x = cp.asarray(n, device=device)
    v = x[::2, 1::2]
    v[0, 0] = -100
    n[::2, 1::2][0, 0] = -100
    assert_same(x, n)
    t = x.T
    t[5, 3] = 55
    n.T[5, 3] = 55
    assert_same(x, n)
    r = x[1]
    r += 1000
    n[1] += 1000
    assert_same(x, n)
    e = x[..., None]
    e[2, 2, 0] = 0.5
    n[2, 2] = 0.5
    assert_same(x, n)
    # Advanced indexing copies.
    c = x[cp.asarray([0, 1], device=device)]
    c[...] = 0
    assert_same(x, n)


# --- selection functions -----------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.complex64, np.bool_], ids=dtype_id)
def test_take_and_take_along_axis(device, rng, dtype):
    n = random_array(rng, (4, 5, 3), dtype)
    x = cp.asarray(n, device=device)
    idx = np.array([[0, 4], [2, -1]])
    ci = cp.asarray(idx, device=device)
    assert_same(cp.take(x, ci), np.take(n, idx))
    for axis in [0, 1, -1]:
        k = idx % n.shape[axis]
        assert_same(cp.take(x, cp.asarray(k, device=device), axis=axis), np.take(n, k, axis=axis))
    assert_same(cp.take(x.T, cp.asarray([1, 0], device=device), axis=0), np.take(n.T, [1, 0], axis=0))
    order = np.argsort(n.real if np.dtype(dtype).kind == "c" else n, axis=1, kind="stable")
    co = cp.asarray(order, device=device)
    assert_same(cp.take_along_axis(x, co, axis=1), np.take_along_axis(n, order, axis=1))
    first = order[:, :1]
    assert_same(cp.take_along_axis(x, cp.asarray(first, device=device), axis=1), np.take_along_axis(n, first, axis=1))
    flat = np.array([3, 0, 59])
    assert_same(
        cp.take_along_axis(x, cp.asarray(flat, device=device), axis=None), np.take_along_axis(n, flat, axis=None)
    )


def test_put(device, rng):
    n = random_array(rng, (4, 5), np.float64)
    x = cp.asarray(n, device=device)
    cp.put(x, cp.asarray([0, 7, 19], device=device), cp.asarray([1.0, 2.0, 3.0], device=device))
    np.put(n, [0, 7, 19], [1.0, 2.0, 3.0])
    assert_same(x, n)
    # A shorter value array repeats; a scalar fills.
    cp.put(x, cp.asarray([1, 2, 3, 4], device=device), cp.asarray([-1.0, -2.0], device=device))
    np.put(n, [1, 2, 3, 4], [-1.0, -2.0])
    assert_same(x, n)
    cp.put(x, cp.asarray([-1], device=device), 42.0)
    np.put(n, [-1], 42.0)
    assert_same(x, n)


@pytest.mark.parametrize("dtype", [np.int8, np.float64, np.complex128, np.bool_], ids=dtype_id)
def test_nonzero_family(device, rng, dtype):
    n = random_array(rng, (5, 4, 3), dtype)
    n[n.real > 1] = 0 if np.dtype(dtype) != np.bool_ else False
    x = cp.asarray(n, device=device)
    got = cp.nonzero(x)
    want = np.nonzero(n)
    assert isinstance(got, tuple) and len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert_same(a, b)
    assert_same(cp.flatnonzero(x), np.flatnonzero(n))
    assert_same(cp.argwhere(x), np.argwhere(n))
    assert_same(cp.argwhere(x.T[::2]), np.argwhere(n.T[::2]))
    for a, b in zip(cp.nonzero(x[:, ::-1, 1]), np.nonzero(n[:, ::-1, 1]), strict=True):
        assert_same(a, b)
    e = cp.zeros((3, 0), dtype=dtype, device=device)
    assert_same(cp.argwhere(e), np.argwhere(np.zeros((3, 0), dtype)))
    assert_same(cp.flatnonzero(cp.zeros(5, dtype=dtype, device=device)), np.flatnonzero(np.zeros(5, dtype)))


def test_compress_and_extract(device, rng):
    n = random_array(rng, (4, 6), np.float32)
    x = cp.asarray(n, device=device)
    cond = np.array([True, False, True, False, False, True])
    cc = cp.asarray(cond, device=device)
    assert_same(cp.compress(cc, x, axis=1), np.compress(cond, n, axis=1))
    assert_same(cp.compress(cc[:4], x, axis=0), np.compress(cond[:4], n, axis=0))
    assert_same(cp.compress(cc, x), np.compress(cond, n))
    # A shorter condition selects among the first elements only.
    assert_same(cp.compress(cc[:3], x, axis=1), np.compress(cond[:3], n, axis=1))
    m = n > 0.5
    assert_same(cp.extract(cp.asarray(m, device=device), x), np.extract(m, n))
    assert_same(cp.extract(x > 0.5, x.T), np.extract(n > 0.5, n.T))


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64, np.complex64, np.uint8], ids=dtype_id)
def test_where(device, rng, dtype):
    n = random_array(rng, (4, 5), dtype)
    o = random_array(rng, (5,), dtype)
    x, y = cp.asarray(n, device=device), cp.asarray(o, device=device)
    c = rng.random((4, 5)) < 0.5
    cc = cp.asarray(c, device=device)
    assert_same(cp.where(cc, x, y), np.where(c, n, o))
    assert_same(cp.where(cc, x, 0), np.where(c, n, 0))
    assert_same(cp.where(cc, 1, x), np.where(c, 1, n))
    assert_same(cp.where(cc, 2.5, x), np.where(c, 2.5, n))
    assert_same(cp.where(cc, 1, 0), np.where(c, 1, 0))
    assert_same(cp.where(cc[:, :1], x, y), np.where(c[:, :1], n, o))
    # The condition may be numeric (nonzero is true).
    assert_same(cp.where(x, x, y), np.where(n, n, o))
    for a, b in zip(cp.where(cc), np.where(c), strict=True):
        assert_same(a, b)


def test_where_mixed_dtypes(device, rng):
    a = random_array(rng, (6,), np.int8)
    b = random_array(rng, (6,), np.float32)
    c = a > 0
    assert_same(
        cp.where(cp.asarray(c, device=device), cp.asarray(a, device=device), cp.asarray(b, device=device)),
        np.where(c, a, b),
    )
    # NumPy < 2.5 casts the out-of-range int into int8; 2.5 raises NEP 50's OverflowError: cuprum does as the
    # NumPy beside it.
    try:
        want = np.where(c, a, 1000)
    except OverflowError:
        with pytest.raises(OverflowError):
            cp.where(cp.asarray(c, device=device), cp.asarray(a, device=device), 1000)
    else:
        assert_same(cp.where(cp.asarray(c, device=device), cp.asarray(a, device=device), 1000), want)


# --- sorting, searching and sets ---------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_sort(device, rng, dtype):
    n = random_array(rng, (6, 7, 5), dtype)
    if np.dtype(dtype).kind in "fc":
        n.flat[::9] = np.nan
        n.flat[4] = -0.0
        n.flat[5] = np.inf
        n.flat[6] = -np.inf
    x = cp.asarray(n, device=device)
    for axis in [-1, 0, 1, None]:
        assert_same(cp.sort(x, axis=axis), np.sort(n, axis=axis))
    assert_same(cp.sort(x.T[::2], axis=0), np.sort(n.T[::2], axis=0))
    assert_same(cp.sort(cp.asarray(n[0, 0, 0], device=device).reshape(1)), np.sort(n[0, 0, 0].reshape(1)))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_argsort(device, rng, dtype):
    n = random_array(rng, (5, 40), dtype)
    if np.dtype(dtype).kind in "fc":
        n[:, ::7] = np.nan
    x = cp.asarray(n, device=device)
    for axis in [-1, 0, None]:
        got = cp.argsort(x, axis=axis)
        want = np.argsort(n, axis=axis, kind="stable")
        # Ties may come in any order unless the sort is stable: compare the values they pick,
        # and that the result is a permutation.
        if axis is None:
            assert_same(cp.take(x, got), np.take(n, want))
            assert sorted(got.get().tolist()) == list(range(n.size))
        else:
            assert_same(cp.take_along_axis(x, got, axis=axis), np.take_along_axis(n, want, axis=axis))
            assert_same(cp.sort(got, axis=axis), np.sort(want, axis=axis))
    # Distinct keys: the indices themselves.
    dt = np.dtype(dtype)
    size = 2 if dt.kind == "b" else min(200, int(np.iinfo(dt).max) + 1) if dt.kind in "iu" else 200
    p = rng.permutation(size).astype(dtype)
    assert_same(cp.argsort(cp.asarray(p, device=device)), np.argsort(p))


def test_stable_argsort(device, rng):
    n = rng.integers(0, 4, 500).astype(np.int16)
    x = cp.asarray(n, device=device)
    assert_same(cp.argsort(x, kind="stable"), np.argsort(n, kind="stable"))
    assert_same(cp.argsort(x[::-3], kind="stable"), np.argsort(n[::-3], kind="stable"))


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32, np.float64], ids=dtype_id)
def test_partition(device, rng, dtype):
    n = random_array(rng, (6, 30), dtype)
    x = cp.asarray(n, device=device)
    for kth in [0, 7, 29, -1, (3, 20)]:
        got = cp.partition(x, kth, axis=-1).get()
        s = np.sort(n, axis=-1)
        ks = [kth] if isinstance(kth, int) else list(kth)
        for k in ks:
            k %= 30
            np.testing.assert_array_equal(got[:, k], s[:, k])
            assert (got[:, :k] <= got[:, k : k + 1]).all()
            assert (got[:, k:] >= got[:, k : k + 1]).all()
        np.testing.assert_array_equal(np.sort(got, axis=-1), s)
    got = cp.partition(x, 2, axis=0).get()
    np.testing.assert_array_equal(got[2], np.sort(n, axis=0)[2])


@pytest.mark.parametrize("dtype", [np.int64, np.uint16, np.float32, np.float64], ids=dtype_id)
def test_searchsorted(device, rng, dtype):
    a = np.sort(random_array(rng, (50,), dtype))
    v = random_array(rng, (30,), dtype)
    v[:5] = a[[0, 10, 10, 49, 25]]
    ca, cv = cp.asarray(a, device=device), cp.asarray(v, device=device)
    assert_same(cp.searchsorted(ca, cv), np.searchsorted(a, v))
    assert_same(cp.searchsorted(ca, cv, side="right"), np.searchsorted(a, v, side="right"))
    assert_same(cp.searchsorted(ca, cv.reshape(5, 6)), np.searchsorted(a, v.reshape(5, 6)))
    perm = rng.permutation(50)
    u = a[perm]
    sorter = np.argsort(u, kind="stable")
    assert_same(
        cp.searchsorted(cp.asarray(u, device=device), cv, sorter=cp.asarray(sorter, device=device)),
        np.searchsorted(u, v, sorter=sorter),
    )
    if np.dtype(dtype).kind == "f":
        b = np.array([1.0, 2.0, np.nan], dtype=dtype)
        w = np.array([np.nan, 3.0, 0.0], dtype=dtype)
        assert_same(cp.searchsorted(cp.asarray(b, device=device), cp.asarray(w, device=device)), np.searchsorted(b, w))


@pytest.mark.parametrize(
    "dtype", [np.bool_, np.int8, np.int64, np.uint32, np.float32, np.float64, np.complex64], ids=dtype_id
)
def test_unique(device, rng, dtype):
    n = (
        random_array(rng, (8, 9), dtype, low=0, high=10)
        if np.dtype(dtype).kind in "iu"
        else random_array(rng, (8, 9), dtype)
    )
    if np.dtype(dtype).kind in "fc":
        n = np.round(n)
    x = cp.asarray(n, device=device)
    assert_same(cp.unique(x), np.unique(n))
    got = cp.unique(x, return_index=True, return_inverse=True, return_counts=True)
    want = np.unique(n, return_index=True, return_inverse=True, return_counts=True)
    assert len(got) == 4
    for g, w in zip(got, want, strict=True):
        assert_same(g, w)
    u, inv = cp.unique(x.T, return_inverse=True)
    wu, winv = np.unique(n.T, return_inverse=True)
    assert_same(u, wu)
    assert_same(inv, winv)
    assert_same(cp.unique(cp.zeros(0, dtype=dtype, device=device)), np.unique(np.zeros(0, dtype)))


def test_unique_with_nan(device):
    n = np.array([2.0, np.nan, 1.0, np.nan, 2.0, -0.0, 0.0])
    x = cp.asarray(n, device=device)
    assert_same(cp.unique(x), np.unique(n))
    for g, w in zip(cp.unique(x, return_counts=True), np.unique(n, return_counts=True), strict=True):
        assert_same(g, w)


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.uint8], ids=dtype_id)
def test_isin(device, rng, dtype):
    n = (
        random_array(rng, (7, 8), dtype, low=0, high=20)
        if np.dtype(dtype).kind in "iu"
        else np.round(random_array(rng, (7, 8), dtype))
    )
    t = n.ravel()[::5][:6].copy()
    x, ct = cp.asarray(n, device=device), cp.asarray(t, device=device)
    assert_same(cp.isin(x, ct), np.isin(n, t))
    assert_same(cp.isin(x, ct, invert=True), np.isin(n, t, invert=True))
    assert_same(cp.isin(x.T, ct[:1]), np.isin(n.T, t[:1]))
    assert_same(cp.isin(x, cp.zeros(0, dtype=dtype, device=device)), np.isin(n, np.zeros(0, dtype)))


@pytest.mark.parametrize("dtype", INTS + FLOATS, ids=dtype_id)
def test_diagonal_function(device, rng, dtype):
    n = random_array(rng, (4, 6, 5), dtype)
    x = cp.asarray(n, device=device)
    for off, a1, a2 in [(0, 0, 1), (1, 0, 1), (-2, 1, 2), (2, 2, 0), (0, -1, -2)]:
        assert_same(cp.diagonal(x, off, a1, a2), np.diagonal(n, off, a1, a2))


@pytest.mark.parametrize(
    "key",
    [
        slice(1, 4, 2**63 - 2),
        slice(0, 5, 2**63 - 1),
        slice(None, None, -(2**63)),
        slice(0, 2**70),
        slice(-(2**70), None),
        slice(2**70, None, -1),
        slice(None, None, 2**70),
        (slice(1, None, 2**63 - 1), slice(2, None, -(2**63))),
    ],
    ids=str,
)
def test_slices_with_extreme_steps_and_bounds(device, key):
    """Steps and bounds at and past the ends of int64 select what NumPy selects (one element, or the whole
    axis) and read nothing outside the array."""
    a = np.arange(20).reshape(4, 5) if isinstance(key, tuple) else np.arange(5)
    x = cp.asarray(a, device=device)
    assert_same(x[key], a[key])
    assert_same(x[key].sum(), a[key].sum())
