"""Products (dot, vdot, inner, outer, matmul, tensordot, einsum, kron, trace), cuprum.linalg,
cuprum.fft against NumPy, and cuprum.random: NumPy's numbers bit for bit where cuprum
promises them (random, uniform, integers and choice of `Generator(Philox(seed))`), the
distributions' moments elsewhere, and the same numbers on the CPU and the GPU."""

import os

import numpy as np
import pytest
from _cuprum_conftest import (
    assert_same,
    dtype_id,
    random_array,
    to_np,
)

import cuprum as cp

LINALG_DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def rtol_of(dtype):
    return {"e": 1e-2, "f": 2e-5, "d": 1e-11, "F": 2e-5, "D": 1e-11}.get(np.dtype(dtype).char, 0.0)


def product_tol(dtype, a, b, k):
    """Tolerances for products of `a` and `b` summing `k` terms: relative to the magnitudes."""
    r = rtol_of(dtype)
    if r == 0:
        return {}
    scale = max(1.0, float(np.abs(a).max(initial=0)) * float(np.abs(b).max(initial=0)))
    return {"rtol": r, "atol": r * max(1, k) * scale}


# --- products ----------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((3, 4), (4, 5)),
    ((4,), (4, 5)),
    ((3, 4), (4,)),
    ((4,), (4,)),
    ((2, 3, 4), (4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((3, 0), (0, 4)),
    ((0, 3), (3, 2)),
    ((1, 1), (1, 1)),
    ((17, 33), (33, 9)),
]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize(
    "dtype",
    [np.bool_, np.int8, np.int32, np.uint16, np.int64, np.float16, np.float32, np.float64, np.complex64, np.complex128],
    ids=dtype_id,
)
def test_matmul(device, rng, shapes, dtype):
    a = random_array(rng, shapes[0], dtype)
    b = random_array(rng, shapes[1], dtype)
    ca, cb = cp.asarray(a, device=device), cp.asarray(b, device=device)
    want = np.matmul(a, b)
    tol = product_tol(want.dtype, a, b, shapes[0][-1])
    assert_same(cp.matmul(ca, cb), want, **tol)
    assert_same(ca @ cb, a @ b, **tol)


def test_matmul_views_and_mixed(device, rng):
    a = random_array(rng, (6, 8), np.float64)
    b = random_array(rng, (6, 8), np.float32)
    ca, cb = cp.asarray(a, device=device), cp.asarray(b, device=device)
    assert_same(ca.T @ cb, a.T @ b, rtol=1e-6, atol=1e-5)
    assert_same(ca[::2] @ cb.T[:, 1::2], a[::2] @ b.T[:, 1::2], rtol=1e-6, atol=1e-5)
    i = cp.asarray(random_array(rng, (8, 3), np.int16), device=device)
    assert_same(ca @ i, a @ to_np(i), rtol=1e-12, atol=1e-9)
    o = cp.empty((8, 8), device=device)
    assert cp.matmul(ca.T, ca, out=o) is o
    assert_same(o, a.T @ a, rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64, np.complex128], ids=dtype_id)
def test_dot_vdot_inner_outer(device, rng, dtype):
    a = random_array(rng, (3, 4), dtype)
    b = random_array(rng, (4, 5), dtype)
    v = random_array(rng, (4,), dtype)
    w = random_array(rng, (4,), dtype)
    t3 = random_array(rng, (2, 3, 4), dtype)
    t4 = random_array(rng, (5, 4, 2), dtype)
    c = {k: cp.asarray(x, device=device) for k, x in {"a": a, "b": b, "v": v, "w": w, "t3": t3, "t4": t4}.items()}
    tol = product_tol(dtype, a, b, 4)
    assert_same(cp.dot(c["a"], c["b"]), np.dot(a, b), **tol)
    assert_same(cp.dot(c["v"], c["w"]), np.dot(v, w), **tol)
    assert_same(cp.dot(c["a"], c["v"]), np.dot(a, v), **tol)
    assert_same(cp.dot(c["t3"], c["t4"]), np.dot(t3, t4), **tol)
    assert_same(cp.vdot(c["v"], c["w"]), np.vdot(v, w), **tol)
    assert_same(cp.vdot(c["a"], c["a"]), np.vdot(a, a), **product_tol(dtype, a, a, 12))
    assert_same(cp.inner(c["v"], c["w"]), np.inner(v, w), **tol)
    assert_same(cp.inner(c["a"], c["t3"]), np.inner(a, t3), **tol)
    assert_same(cp.outer(c["v"], c["w"]), np.outer(v, w), **tol)
    assert_same(cp.outer(c["a"], c["v"]), np.outer(a, v), **tol)


@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.float64, np.complex64], ids=dtype_id)
def test_tensordot_kron_trace(device, rng, dtype):
    a = random_array(rng, (3, 4, 5), dtype)
    b = random_array(rng, (4, 5, 2), dtype)
    ca, cb = cp.asarray(a, device=device), cp.asarray(b, device=device)
    for axes in [2, 0, ([1, 2], [0, 1]), ((1,), (0,)), ((2,), (1,)), ([2, 1], [1, 0])]:
        want = np.tensordot(a, b, axes=axes)
        assert_same(cp.tensordot(ca, cb, axes=axes), want, **product_tol(dtype, a, b, 20))
    m = random_array(rng, (2, 3), dtype)
    k = random_array(rng, (3, 2), dtype)
    assert_same(
        cp.kron(cp.asarray(m, device=device), cp.asarray(k, device=device)),
        np.kron(m, k),
        **product_tol(dtype, m, k, 1),
    )
    assert_same(
        cp.kron(cp.asarray(m[0], device=device), cp.asarray(k, device=device)),
        np.kron(m[0], k),
        **product_tol(dtype, m, k, 1),
    )
    for kw in [{}, {"offset": 1}, {"offset": -2}, {"axis1": 1, "axis2": 2}, {"offset": 1, "axis1": 2, "axis2": 0}]:
        assert_same(cp.trace(ca, **kw), np.trace(a, **kw), **product_tol(dtype, a, np.ones(1), 5))
    assert_same(cp.trace(ca[0].T), np.trace(a[0].T), **product_tol(dtype, a, np.ones(1), 5))


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->ji", [(3, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,i", [(6,), (6,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("...ij->...ji", [(2, 3, 4)]),
    ("ijk->", [(2, 3, 4)]),
    ("ijk->j", [(2, 3, 4)]),
    ("ij,ij->i", [(3, 4), (3, 4)]),
    ("ij,j->i", [(3, 4), (4,)]),
    ("abc,cd,db->a", [(2, 3, 4), (4, 5), (5, 3)]),
    ("i->", [(0,)]),
]


@pytest.mark.parametrize("spec", EINSUM, ids=lambda s: s[0])
@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.complex64], ids=dtype_id)
def test_einsum(device, rng, spec, dtype):
    sub, shapes = spec
    ops = [random_array(rng, s, dtype) for s in shapes]
    want = np.einsum(sub, *ops)
    got = cp.einsum(sub, *[cp.asarray(o, device=device) for o in ops])
    assert_same(got, want, **product_tol(dtype, ops[0], ops[-1], 60))


# --- linalg ------------------------------------------------------------------------------


def well_conditioned(rng, shape, dtype):
    n = shape[-1]
    a = random_array(rng, shape, dtype)
    return (a + n * 3 * np.eye(n)).astype(dtype)


def spd(rng, shape, dtype):
    a = random_array(rng, shape, dtype)
    h = a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])
    return h.astype(dtype)


def la_tol(dtype):
    r = {"f": 2e-4, "d": 1e-9, "F": 2e-4, "D": 1e-9}[np.dtype(dtype).char]
    return {"rtol": r, "atol": r}


@pytest.mark.parametrize("dtype", LINALG_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (7, 7), (3, 5, 5), (2, 2, 3, 3)], ids=str)
def test_inv_det_slogdet_solve(device, rng, dtype, shape):
    a = well_conditioned(rng, shape, dtype)
    ca = cp.asarray(a, device=device)
    assert_same(cp.linalg.inv(ca), np.linalg.inv(a), **la_tol(dtype))
    assert_same(cp.linalg.det(ca), np.linalg.det(a), rtol=la_tol(dtype)["rtol"], atol=0)
    sign, logdet = cp.linalg.slogdet(ca)
    wsign, wlogdet = np.linalg.slogdet(a)
    assert_same(sign, wsign, **la_tol(dtype))
    assert_same(logdet, wlogdet, **la_tol(dtype))
    b = random_array(rng, shape[:-1], dtype)
    B = random_array(rng, shape[:-1] + (3,), dtype)
    if len(shape) == 2:
        assert_same(cp.linalg.solve(ca, cp.asarray(b, device=device)), np.linalg.solve(a, b), **la_tol(dtype))
    assert_same(cp.linalg.solve(ca, cp.asarray(B, device=device)), np.linalg.solve(a, B), **la_tol(dtype))


def test_linalg_integer_input_and_views(device, rng):
    a = np.array([[4, 1, 0], [1, 5, 2], [0, 2, 6]], dtype=np.int64)
    ca = cp.asarray(a, device=device)
    assert_same(cp.linalg.inv(ca), np.linalg.inv(a))
    assert_same(cp.linalg.det(ca), np.linalg.det(a))
    f = well_conditioned(rng, (6, 6), np.float64)
    cf = cp.asarray(f, device=device)
    assert_same(cp.linalg.inv(cf.T), np.linalg.inv(f.T), rtol=1e-10, atol=1e-12)
    big = cp.asarray(np.kron(f, np.ones((2, 2))) + 40 * np.eye(12), device=device)
    nbig = to_np(big)
    assert_same(cp.linalg.inv(big[::2, ::2]), np.linalg.inv(nbig[::2, ::2]), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", LINALG_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (3, 6), (2, 5, 3)], ids=str)
def test_qr(device, rng, dtype, shape):
    a = random_array(rng, shape, dtype)
    ca = cp.asarray(a, device=device)
    tol = la_tol(dtype)
    for mode in ["reduced", "complete"]:
        q, r = cp.linalg.qr(ca, mode=mode)
        wq, wr = np.linalg.qr(a, mode=mode)
        assert q.shape == wq.shape and r.shape == wr.shape
        assert q.dtype == wq.dtype and r.dtype == wr.dtype
        qn, rn = to_np(q), to_np(r)
        np.testing.assert_allclose(qn @ rn, a, **tol)
        k = qn.shape[-1]
        np.testing.assert_allclose(
            np.conj(np.swapaxes(qn, -1, -2)) @ qn, np.broadcast_to(np.eye(k), qn.shape[:-2] + (k, k)), **tol
        )
        np.testing.assert_array_equal(np.tril(rn, -1), 0)
        # R is unique up to the signs (phases) of its rows.
        np.testing.assert_allclose(
            np.abs(np.diagonal(rn, axis1=-2, axis2=-1)), np.abs(np.diagonal(wr, axis1=-2, axis2=-1)), **tol
        )
    r = cp.linalg.qr(ca, mode="r")
    np.testing.assert_allclose(np.abs(to_np(r)), np.abs(np.linalg.qr(a, mode="r")), **tol)
    q, r = cp.linalg.qr(ca)
    assert q.shape == np.linalg.qr(a)[0].shape


@pytest.mark.parametrize("dtype", LINALG_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(1, 1), (5, 5), (3, 4, 4)], ids=str)
def test_cholesky_eigh(device, rng, dtype, shape):
    a = spd(rng, shape, dtype)
    ca = cp.asarray(a, device=device)
    tol = la_tol(dtype)
    assert_same(cp.linalg.cholesky(ca), np.linalg.cholesky(a), **tol)
    w, v = cp.linalg.eigh(ca)
    ww, _ = np.linalg.eigh(a)
    assert_same(w, ww, rtol=tol["rtol"], atol=tol["atol"] * 10)
    vn, wn = to_np(v), to_np(w)
    assert vn.dtype == np.dtype(dtype)
    np.testing.assert_allclose(a @ vn, vn * wn[..., None, :], rtol=tol["rtol"] * 10, atol=tol["atol"] * 100)
    assert_same(cp.linalg.eigvalsh(ca), np.linalg.eigvalsh(a), rtol=tol["rtol"], atol=tol["atol"] * 10)
    assert_same(
        cp.linalg.eigvalsh(ca, UPLO="U"), np.linalg.eigvalsh(a, UPLO="U"), rtol=tol["rtol"], atol=tol["atol"] * 10
    )


def match_eigenvalues(got, want, tol):
    got, want = np.sort_complex(np.asarray(got).ravel()), list(np.asarray(want).ravel())
    for g in got:
        d = [abs(g - w) for w in want]
        i = int(np.argmin(d))
        assert d[i] <= tol * max(1.0, abs(want[i])), (g, want)
        want.pop(i)


@pytest.mark.parametrize("dtype", LINALG_DTYPES, ids=dtype_id)
def test_eig_eigvals(device, rng, dtype):
    tol = la_tol(dtype)["rtol"] * 10
    for a in [
        random_array(rng, (6, 6), dtype),
        # Triangular: every eigenvalue exactly real (a real input gives real arrays).
        (np.triu(random_array(rng, (5, 5), dtype)) + np.diag(np.arange(1.0, 6.0) * 4)).astype(dtype),
        np.array([[0, -1], [1, 0]], dtype=dtype),
        np.diag(np.arange(1, 5)).astype(dtype),
    ]:
        ca = cp.asarray(a, device=device)
        w, v = cp.linalg.eig(ca)
        ww, wv = np.linalg.eig(a)
        # The dtypes are NumPy's: real when every eigenvalue of a real matrix is real.
        assert w.dtype == ww.dtype and v.dtype == wv.dtype
        match_eigenvalues(to_np(w), ww, tol)
        wn, vn = to_np(w), to_np(v)
        np.testing.assert_allclose(a @ vn, vn * wn[None, :], rtol=tol, atol=tol * 10)
        np.testing.assert_allclose(np.linalg.norm(vn, axis=0), 1, rtol=tol)
        ev = cp.linalg.eigvals(ca)
        assert ev.dtype == np.linalg.eigvals(a).dtype
        match_eigenvalues(to_np(ev), np.linalg.eigvals(a), tol)


@pytest.mark.parametrize("dtype", LINALG_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (2, 4, 3)], ids=str)
def test_svd(device, rng, dtype, shape):
    a = random_array(rng, shape, dtype)
    ca = cp.asarray(a, device=device)
    tol = la_tol(dtype)
    for full in [True, False]:
        u, s, vh = cp.linalg.svd(ca, full_matrices=full)
        wu, ws, wvh = np.linalg.svd(a, full_matrices=full)
        assert (u.shape, s.shape, vh.shape) == (wu.shape, ws.shape, wvh.shape)
        assert (u.dtype, s.dtype, vh.dtype) == (wu.dtype, ws.dtype, wvh.dtype)
        assert_same(s, ws, **tol)
        un, sn, vhn = to_np(u), to_np(s), to_np(vh)
        k = sn.shape[-1]
        rec = (un[..., :, :k] * sn[..., None, :]) @ vhn[..., :k, :]
        np.testing.assert_allclose(rec, a, rtol=tol["rtol"] * 10, atol=tol["atol"] * 10)
    assert_same(cp.linalg.svd(ca, compute_uv=False), np.linalg.svd(a, compute_uv=False), **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128], ids=dtype_id)
def test_lstsq_pinv_rank(device, rng, dtype):
    tol = la_tol(dtype)
    a = random_array(rng, (8, 3), dtype)
    b = random_array(rng, (8,), dtype)
    B = random_array(rng, (8, 2), dtype)
    ca = cp.asarray(a, device=device)
    for rhs in [b, B]:
        x, res, rank, s = cp.linalg.lstsq(ca, cp.asarray(rhs, device=device), rcond=None)
        wx, wres, wrank, ws = np.linalg.lstsq(a, rhs, rcond=None)
        assert_same(x, wx, rtol=tol["rtol"] * 10, atol=tol["atol"] * 10)
        assert_same(res, wres, rtol=tol["rtol"] * 10, atol=tol["atol"] * 10)
        assert int(rank) == wrank
        assert_same(s, ws, **tol)
    assert_same(cp.linalg.pinv(ca), np.linalg.pinv(a), rtol=tol["rtol"] * 10, atol=tol["atol"] * 10)
    # Rank 3 exactly: small integers, their product exact in every dtype.
    deficient = (rng.integers(-3, 4, (8, 3)) @ rng.integers(-3, 4, (3, 5))).astype(dtype)
    cd = cp.asarray(deficient, device=device)
    assert int(cp.linalg.matrix_rank(cd)) == np.linalg.matrix_rank(deficient) == 3
    assert int(cp.linalg.matrix_rank(ca)) == 3
    assert int(cp.linalg.matrix_rank(cp.zeros((3, 3), device=device))) == 0
    assert int(cp.linalg.matrix_rank(cp.eye(4, device=device))) == 4


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int64], ids=dtype_id)
def test_norm(device, rng, dtype):
    v = random_array(rng, (7,), dtype)
    m = random_array(rng, (4, 5), dtype)
    t = random_array(rng, (3, 4, 5), dtype)
    cv, cm, ct = (cp.asarray(x, device=device) for x in (v, m, t))
    want_dt = np.linalg.norm(v).dtype
    tol = la_tol(want_dt if want_dt.kind in "fc" else np.float64)
    for ord_ in [None, 1, 2, np.inf, -np.inf, 0, 3, -1]:
        assert_same(cp.linalg.norm(cv, ord=ord_), np.linalg.norm(v, ord=ord_), **tol)
    for ord_ in [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]:
        assert_same(cp.linalg.norm(cm, ord=ord_), np.linalg.norm(m, ord=ord_), **tol)
    assert_same(cp.linalg.norm(ct), np.linalg.norm(t), **tol)
    for axis in [0, -1, (1, 2), (2, 0)]:
        assert_same(cp.linalg.norm(ct, axis=axis), np.linalg.norm(t, axis=axis), **tol)
        assert_same(cp.linalg.norm(ct, axis=axis, keepdims=True), np.linalg.norm(t, axis=axis, keepdims=True), **tol)
    assert_same(cp.linalg.norm(ct, ord=1, axis=1), np.linalg.norm(t, ord=1, axis=1), **tol)
    assert_same(cp.linalg.norm(ct, ord="fro", axis=(0, 2)), np.linalg.norm(t, ord="fro", axis=(0, 2)), **tol)
    assert_same(cp.linalg.norm(cm.T[::2]), np.linalg.norm(m.T[::2]), **tol)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128], ids=dtype_id)
def test_cond_matrix_power_multi_dot(device, rng, dtype):
    a = well_conditioned(rng, (5, 5), dtype)
    ca = cp.asarray(a, device=device)
    for p in [None, 2, -2, 1, -1, np.inf, "fro"]:
        assert_same(cp.linalg.cond(ca, p), np.linalg.cond(a, p), rtol=1e-9, atol=0)
    for n in [0, 1, 2, 5, -1, -3]:
        assert_same(cp.linalg.matrix_power(ca, n), np.linalg.matrix_power(a, n), rtol=1e-9, atol=1e-12)
    i = np.array([[1, 1], [1, 0]], dtype=np.int64)
    assert_same(cp.linalg.matrix_power(cp.asarray(i, device=device), 20), np.linalg.matrix_power(i, 20))
    mats = [random_array(rng, s, dtype) for s in [(4, 6), (6, 3), (3, 5), (5, 2)]]
    got = cp.linalg.multi_dot([cp.asarray(m, device=device) for m in mats])
    assert_same(got, np.linalg.multi_dot(mats), rtol=1e-10, atol=1e-10)
    vec = [random_array(rng, (6,), dtype), mats[0].T, random_array(rng, (4, 2), dtype)]
    assert_same(
        cp.linalg.multi_dot([cp.asarray(m, device=device) for m in vec]),
        np.linalg.multi_dot(vec),
        rtol=1e-10,
        atol=1e-10,
    )


def test_linalg_float16_is_rejected_like_numpy(device):
    a = cp.eye(3, dtype=np.float16, device=device)
    with pytest.raises(TypeError):
        np.linalg.inv(np.eye(3, dtype=np.float16))
    with pytest.raises(TypeError):
        cp.linalg.inv(a)


# --- fft ---------------------------------------------------------------------------------

FFT_DTYPES = [np.float32, np.float64, np.complex64, np.complex128, np.int64]
NORMS = [None, "backward", "ortho", "forward"]


def fft_tol(want):
    want = np.asarray(want)
    r = 2e-5 if want.dtype in (np.complex64, np.float32) else 1e-11
    scale = float(np.abs(want).max(initial=0))
    return {"rtol": r, "atol": r * max(1.0, scale)}


@pytest.mark.parametrize("dtype", FFT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("length", [1, 2, 7, 16, 60, 97, 128, 1000])
def test_fft_ifft(device, rng, dtype, length):
    x = random_array(rng, (3, length), dtype)
    cx = cp.asarray(x, device=device)
    for norm in NORMS:
        for f in ["fft", "ifft"]:
            want = getattr(np.fft, f)(x, norm=norm)
            assert_same(getattr(cp.fft, f)(cx, norm=norm), want, **fft_tol(want))
    for n in [length // 2 + 1, length + 3]:
        want = np.fft.fft(x, n=n)
        assert_same(cp.fft.fft(cx, n=n), want, **fft_tol(want))
    want = np.fft.fft(x, axis=0)
    assert_same(cp.fft.fft(cx, axis=0), want, **fft_tol(want))
    want = np.fft.ifft(x.T[::-1], axis=-2)
    assert_same(cp.fft.ifft(cx.T[::-1], axis=-2), want, **fft_tol(want))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32], ids=dtype_id)
@pytest.mark.parametrize("length", [1, 2, 9, 16, 61, 256])
def test_rfft_irfft(device, rng, dtype, length):
    x = random_array(rng, (4, length), dtype)
    cx = cp.asarray(x, device=device)
    for norm in NORMS:
        want = np.fft.rfft(x, norm=norm)
        assert_same(cp.fft.rfft(cx, norm=norm), want, **fft_tol(want))
        spec = np.fft.rfft(x.astype(np.float64 if dtype != np.float32 else np.float32))
        cspec = cp.asarray(spec, device=device)
        for n in [None, length, 2 * (spec.shape[-1] - 1) + 1]:
            if n is None and spec.shape[-1] == 1:
                continue  # the default length 2 (m - 1) would be 0: NumPy's ValueError
            want = np.fft.irfft(spec, n=n, norm=norm)
            assert_same(cp.fft.irfft(cspec, n=n, norm=norm), want, **fft_tol(want))
    want = np.fft.rfft(x, axis=0)
    assert_same(cp.fft.rfft(cx, axis=0), want, **fft_tol(want))


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.complex128], ids=dtype_id)
def test_fft_nd(device, rng, dtype):
    x = random_array(rng, (4, 6, 5), dtype)
    cx = cp.asarray(x, device=device)
    cases = [
        ("fft2", {}),
        ("ifft2", {}),
        ("fft2", {"s": (3, 8)}),
        ("fft2", {"axes": (0, 2)}),
        ("fftn", {}),
        ("ifftn", {"axes": (2, 0)}),
        ("fftn", {"s": (5, 4), "axes": (1, 2)}),
        ("fftn", {"axes": (1,)}),
        ("ifftn", {"norm": "ortho"}),
        ("fft2", {"norm": "forward"}),
    ]
    for name, kw in cases:
        want = getattr(np.fft, name)(x, **kw)
        assert_same(getattr(cp.fft, name)(cx, **kw), want, **fft_tol(want))
    if np.dtype(dtype).kind == "f":
        for kw in [{}, {"axes": (0, 1)}, {"s": (4, 6, 8), "axes": (0, 1, 2)}]:
            want = np.fft.rfftn(x, **kw)
            assert_same(cp.fft.rfftn(cx, **kw), want, **fft_tol(want))
        spec = np.fft.rfftn(x)
        for kw in [{}, {"s": (4, 6, 5), "axes": (0, 1, 2)}, {"s": (4, 6, 9), "axes": (0, 1, 2)}]:
            want = np.fft.irfftn(spec, **kw)
            assert_same(cp.fft.irfftn(cp.asarray(spec, device=device), **kw), want, **fft_tol(want))


def test_fft_round_trip_and_helpers(device, rng):
    x = random_array(rng, (8, 12), np.complex128)
    cx = cp.asarray(x, device=device)
    assert_same(cp.fft.ifft(cp.fft.fft(cx)), x, rtol=1e-12, atol=1e-12)
    assert_same(cp.fft.ifftn(cp.fft.fftn(cx)), x, rtol=1e-12, atol=1e-12)
    for n, d in [(8, 1.0), (9, 0.1), (1, 2.0), (16, 1 / 3)]:
        assert_same(cp.fft.fftfreq(n, d, device=device), np.fft.fftfreq(n, d))
        assert_same(cp.fft.rfftfreq(n, d, device=device), np.fft.rfftfreq(n, d))
    assert_same(cp.fft.fftfreq(10), np.fft.fftfreq(10))
    for axes in [None, 0, 1, (0, 1), -1]:
        assert_same(cp.fft.fftshift(cx, axes=axes), np.fft.fftshift(x, axes=axes))
        assert_same(cp.fft.ifftshift(cx, axes=axes), np.fft.ifftshift(x, axes=axes))
    odd = np.arange(7)
    assert_same(cp.fft.ifftshift(cp.fft.fftshift(cp.asarray(odd, device=device))), odd)


# --- random ------------------------------------------------------------------------------


def choice_p(pop):
    w = np.array([1.0 + (k * 7919) % 13 for k in range(pop)])
    return w / w.sum()


def run_calls(g, calls, device):
    """The calls of the Rust fixtures (crates/cuprum/tests/suite/conformance/random.rs):
    random/DTYPE/N, uniform/LOW/HIGH/N, integers/LOW/HIGH/DTYPE/ENDPOINT/N,
    choice/POP/REPLACE/P/N, on `g` (NumPy's Generator or cuprum's)."""
    out = []
    for c in calls.split("+"):
        f = c.split("/")
        if f[0] == "random":
            out.append(g.random(int(f[2]), dtype=getattr(np, f[1])))
        elif f[0] == "uniform":
            out.append(g.uniform(float(f[1]), float(f[2]), int(f[3])))
        elif f[0] == "integers":
            dt = np.bool_ if f[3] == "bool" else getattr(np, f[3])
            out.append(g.integers(int(f[1]), int(f[2]), int(f[5]), dtype=dt, endpoint=f[4] == "1"))
        elif f[0] == "choice":
            p = choice_p(int(f[1])) if f[3] == "1" else None
            if p is not None and device is not None:
                p = cp.asarray(p, device=device)
            out.append(g.choice(int(f[1]), int(f[4]), replace=f[2] == "1", p=p))
    return out


# The fixtures' sequences (scripts/gen_fixtures.py `gen_random`), without the bit generator's
# own calls (random_raw, advance).
RANDOM_CALLS = {
    "f64": "random/float64/37",
    "f32": "random/float32/41",
    "mixed": "random/float32/3+random/float64/5+random/float32/2+random/float32/1+random/float32/6+random/float64/1",
    "uniform": "uniform/-3.5/10.25/29+random/float32/1+uniform/-2/1e10/3",
    "int64_pow2": "integers/0/1024/int64/0/33+integers/-8/8/int64/0/9+integers/5/68/int64/1/17",
    "int64_1000": "integers/0/1000/int64/0/500+random/float32/3+integers/-100/100/int64/1/77",
    "int64_wide": "integers/0/1099511627776/int64/0/21+integers/-9223372036854775808/9223372036854775807/int64/1/7",
    "uint64": "integers/0/18446744073709551615/uint64/1/9+integers/3/4294967299/uint64/0/5",
    "int32": "integers/0/65536/int32/0/19+integers/-2147483648/2147483647/int32/1/5+random/float32/1"
    "+integers/0/4096/uint32/0/7",
    "int16": "integers/0/256/int16/0/13+integers/-32768/32767/int16/1/9+integers/0/4/uint16/0/3",
    "int8": "integers/0/16/int8/0/11+integers/-128/127/int8/1/7+integers/0/2/uint8/0/5+random/float32/1"
    "+integers/0/64/uint8/0/9",
    "bool": "integers/0/2/bool/0/70+integers/0/1/bool/1/33+random/float32/1+integers/1/2/bool/0/4",
    "empty": "random/float64/0+random/float32/0+random/float32/1+random/float32/0+random/float32/1",
    "choice": "choice/1024/1/0/40+choice/37/1/1/25+random/float32/1+choice/37/0/1/20"
    "+choice/200/0/1/200+choice/5/1/1/0+choice/5/0/1/3",
}


@pytest.mark.parametrize("seed", [42, 7, [1, 2, 3]], ids=str)
@pytest.mark.parametrize("case", sorted(RANDOM_CALLS))
def test_random_matches_numpy_philox_bit_for_bit(device, seed, case):
    calls = RANDOM_CALLS[case]
    want = run_calls(np.random.Generator(np.random.Philox(seed)), calls, None)
    with cp.Device(device):
        g = cp.random.default_rng(seed)
        got = run_calls(g, calls, device)
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want, strict=True)):
        assert type(a) is cp.ndarray, (case, i)
        assert a.device == cp.Device(device)
        h = a.get()
        assert (h.dtype, h.shape) == (b.dtype, b.shape), (case, i)
        np.testing.assert_array_equal(h.view(np.uint8), b.view(np.uint8), err_msg=f"{case} call {i}")


def test_default_rng_doc_example(device):
    with cp.Device(device):
        x = cp.random.default_rng(42).random(5)
    assert x.dtype == np.float64 and x.device == cp.Device(device)
    np.testing.assert_array_equal(x.get(), np.random.Generator(np.random.Philox(42)).random(5))
    assert x.get()[:3].tolist() == [0.08607763073528474, 0.14155732377913233, 0.27009303504774695]


def test_random_shapes_and_dtypes(device):
    with cp.Device(device):
        g = cp.random.default_rng(3)
        a = g.random((2, 3, 4), dtype=np.float32)
        assert (a.shape, a.dtype) == ((2, 3, 4), np.float32)
        assert g.standard_normal((0, 5)).shape == (0, 5)
        s = g.random()
        assert isinstance(s, float) or s.shape == ()
        assert 0 <= float(s) < 1
        assert g.standard_normal(size=(3, 3), dtype=np.float32).dtype == np.float32
        for name, args, dt in [
            ("normal", (1.0, 2.0), np.float64),
            ("uniform", (-1.0, 1.0), np.float64),
            ("exponential", (1.5,), np.float64),
            ("gamma", (3.0, 2.0), np.float64),
            ("poisson", (30.0,), np.int64),
            ("binomial", (500, 0.3), np.int64),
        ]:
            r = getattr(g, name)(*args, size=(3, 5))
            assert (r.shape, r.dtype, r.device) == ((3, 5), np.dtype(dt), cp.Device(device)), name
        i = g.integers(0, 10, size=(4, 4), dtype=np.int16)
        assert i.dtype == np.int16 and 0 <= int(i.min()) and int(i.max()) < 10


def moments_ok(x, mean, var, n_sigma=6.0):
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    assert abs(x.mean() - mean) <= n_sigma * np.sqrt(var / n), (x.mean(), mean)
    # The sample variance's standard error, with a kurtosis allowance of 3x the normal one.
    assert abs(x.var() - var) <= n_sigma * var * np.sqrt(6.0 / n), (x.var(), var)


def test_distributions_moments(device):
    n = 20000
    with cp.Device(device):
        g = cp.random.default_rng(12345)
        u = g.random(n).get()
        assert ((0 <= u) & (u < 1)).all()
        moments_ok(u, 0.5, 1 / 12)
        moments_ok(g.uniform(-2.0, 3.0, n).get(), 0.5, 25 / 12)
        moments_ok(g.standard_normal(n).get(), 0.0, 1.0)
        moments_ok(g.standard_normal(n, dtype=np.float32).get(), 0.0, 1.0)
        moments_ok(g.normal(10.0, 0.5, n).get(), 10.0, 0.25)
        e = g.exponential(2.5, n).get()
        assert (e >= 0).all()
        moments_ok(e, 2.5, 6.25)
        moments_ok(g.gamma(2.0, 3.0, n).get(), 6.0, 18.0)
        p = g.poisson(3.5, n).get()
        assert p.dtype == np.int64 and (p >= 0).all()
        moments_ok(p, 3.5, 3.5)
        b = g.binomial(20, 0.3, n).get()
        assert b.min() >= 0 and b.max() <= 20
        moments_ok(b, 6.0, 4.2)
        k = g.integers(-3, 997, n).get()
        assert k.min() >= -3 and k.max() < 997
        moments_ok(k, 496.5, (1000**2 - 1) / 12)
        c = g.choice(10, n).get()
        assert c.min() >= 0 and c.max() <= 9
        moments_ok(c, 4.5, 99 / 12)


def test_permutation_shuffle_choice(device, rng):
    with cp.Device(device):
        g = cp.random.default_rng(99)
        p = g.permutation(1000).get()
        assert sorted(p.tolist()) == list(range(1000))
        assert p.tolist() != list(range(1000))
        x = cp.arange(12, device=device).reshape(3, 4)
        y = g.permutation(x).get()
        assert sorted(y[:, 0].tolist()) == [0, 4, 8]
        assert (y[:, 1:] == y[:, :1] + np.arange(1, 4)).all()
        z = cp.arange(20, device=device)
        assert g.shuffle(z) is None
        assert sorted(z.get().tolist()) == list(range(20)) and z.get().tolist() != list(range(20))
        c = g.choice(50, 50, replace=False).get()
        assert sorted(c.tolist()) == list(range(50))
        arr = cp.asarray([10.0, 20.0, 30.0], device=device)
        picked = g.choice(arr, 100).get()
        assert set(picked.tolist()) <= {10.0, 20.0, 30.0}
        assert g.permutation(0).size == 0


def test_random_same_seed_same_numbers(device):
    with cp.Device(device):
        a = cp.random.default_rng(5)
        b = cp.random.default_rng(5)
        for name, args in [
            ("random", (50,)),
            ("standard_normal", (50,)),
            ("normal", (1.0, 2.0, 50)),
            ("poisson", (4.0, 50)),
        ]:
            np.testing.assert_array_equal(getattr(a, name)(*args).get(), getattr(b, name)(*args).get())
        c = cp.random.default_rng(6)
        assert not np.array_equal(cp.random.default_rng(5).random(50).get(), c.random(50).get())


def test_random_cpu_and_gpu_give_the_same_bits(gpu):
    seed = 2026
    for name, args in [
        ("random", (3000,)),
        ("standard_normal", (3000,)),
        ("normal", (1.5, 2.0, 3000)),
        ("uniform", (-3.0, 7.5, 3000)),
        ("exponential", (2.5, 1000)),
        ("gamma", (0.5, 2.0, 1000)),
        ("poisson", (10.0, 1000)),
        ("binomial", (1000, 0.4, 1000)),
        ("integers", (0, 300, 4000)),
        ("permutation", (2049,)),
    ]:
        with cp.Device("cpu"):
            a = getattr(cp.random.default_rng(seed), name)(*args).get()
        with cp.Device(gpu):
            b = getattr(cp.random.default_rng(seed), name)(*args).get()
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8), err_msg=name)


def test_legacy_functions(device):
    with cp.Device(device):
        cp.random.seed(11)
        r1 = cp.random.rand(5)
        n1 = cp.random.randn(2, 3)
        cp.random.seed(11)
        np.testing.assert_array_equal(cp.random.rand(5).get(), r1.get())
        np.testing.assert_array_equal(cp.random.randn(2, 3).get(), n1.get())
        assert r1.shape == (5,) and n1.shape == (2, 3) and r1.device == cp.Device(device)
        u = cp.random.uniform(2.0, 4.0, size=1000).get()
        assert ((2.0 <= u) & (u < 4.0)).all()
        k = cp.random.randint(5, size=1000).get()
        assert k.min() >= 0 and k.max() == 4
        k2 = cp.random.randint(-3, 3, size=(10, 10)).get()
        assert k2.shape == (10, 10) and k2.min() >= -3 and k2.max() < 3
        assert cp.random.normal(1.0, 2.0, size=(3, 3)).shape == (3, 3)
        p = cp.random.permutation(10).get()
        assert sorted(p.tolist()) == list(range(10))
        x = cp.arange(10, device=device)
        cp.random.shuffle(x)
        assert sorted(x.get().tolist()) == list(range(10))
        # CuPy's dtype keyword: float32 draws are Generator.random(float32)'s from the same stream.
        cp.random.seed(5)
        f = cp.random.rand(4, 3, dtype=cp.float32)
        want = np.random.Generator(np.random.Philox(5)).random((4, 3), dtype=np.float32)
        np.testing.assert_array_equal(f.get(), want)
        for fn in (
            cp.random.randn,
            lambda *s, dtype: cp.random.standard_normal(s, dtype=dtype),
            lambda *s, dtype: cp.random.random_sample(s, dtype),
        ):
            g = fn(2, 5, dtype=np.float32)
            assert g.dtype == np.float32 and g.shape == (2, 5)
        with pytest.raises(TypeError):
            cp.random.rand(3, dtype=np.int32)


@pytest.mark.skipif(bool(os.environ.get("CUPRUM_DEVICE")), reason="CUPRUM_DEVICE sets another default")
def test_gpu_generator_is_default_when_available(gpu):
    x = cp.random.default_rng(1).random(3)
    assert x.device == cp.Device("cuda:0")


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
def test_random_values_range(device, dtype):
    with cp.Device(device):
        x = cp.random.default_rng(0).random(10000, dtype=dtype).get()
    assert x.dtype == dtype
    assert x.min() >= 0 and x.max() < 1
    assert x.min() < 0.01 and x.max() > 0.99
