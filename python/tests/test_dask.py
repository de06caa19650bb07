"""Dask arrays of cuprum chunks (cuprum.dask) against NumPy on the whole array: the chunk type kept through
meta arrays, zero-size slices and 0-d results; reductions with axis/keepdims/ddof, elementwise operations
with broadcasting, ``x.T @ x``, concatenate, rechunk, take; ``sizeof``; the ``cuprum`` array backend;
serialization for ``distributed``; and a local cluster of two worker processes (CPU workers here, one per
GPU on a GPU host: ``gpu_cluster``)."""

import pickle
import re
import shutil

import dask
import dask.array as da
import distributed
import numpy as np
import pytest
from dask.sizeof import sizeof
from distributed.protocol import deserialize, serialize

import cuprum as cp
import cuprum.dask as cpd


def chunked(a, device, chunks):
    """`a` (NumPy) as a Dask array of cuprum chunks on `device`."""
    return da.from_array(a, chunks=chunks).map_blocks(lambda b: cp.asarray(b, device=device), dtype=a.dtype)


def close(got, want, rtol=1e-12):
    assert isinstance(got, cp.ndarray), type(got)
    g = cp.asnumpy(got)
    assert g.shape == np.shape(want) and g.dtype == np.asarray(want).dtype, (g.shape, g.dtype)
    np.testing.assert_allclose(g, want, rtol=rtol, atol=rtol)


def test_chunk_type_meta_and_0d(device, rng):
    a = rng.standard_normal((13, 17))
    x = chunked(a, device, (5, 7))
    assert type(x._meta) is cp.ndarray, type(x._meta)
    assert x._meta.shape == (0, 0)
    b = x.blocks[1, 2].compute()
    assert isinstance(b, cp.ndarray) and b.shape == (5, 3) and str(b.device) == str(cp.asarray(1, device=device).device)
    # Zero-size slices, 0-d results, new axes: still cuprum.
    for y in [x[:0], x[3:3, :], x[None, 2:4], x.sum(), x[4, 5], (x > 0).any()]:
        assert type(y._meta) is cp.ndarray, (y, type(y._meta))
        assert isinstance(y.compute(), cp.ndarray)
    close(x.sum().compute(), a.sum())
    close(x[None, 2:4].compute(), a[None, 2:4])
    assert x[:0].compute().shape == (0, 17)


@pytest.mark.parametrize("op", ["sum", "mean", "min", "max", "prod", "argmax", "argmin"])
def test_reductions(device, rng, op):
    a = rng.standard_normal((12, 9)) + 1
    x = chunked(a, device, (5, 4))
    for axis in [None, 0, 1]:
        if op.startswith("arg"):
            close(getattr(x, op)(axis=axis).compute(), getattr(a, op)(axis=axis))
            continue
        for keepdims in [False, True]:
            close(getattr(x, op)(axis=axis, keepdims=keepdims).compute(), getattr(a, op)(axis=axis, keepdims=keepdims))


def test_var_std_nan_reductions(device, rng):
    a = rng.standard_normal((11, 8))
    a[2, 3] = np.nan
    x = chunked(a, device, (4, 3))
    for axis in [None, 0, (0, 1), 1]:
        for ddof in [0, 1]:
            close(da.nanvar(x, axis=axis, ddof=ddof).compute(), np.nanvar(a, axis=axis, ddof=ddof))
            close(da.nanstd(x, axis=axis, ddof=ddof).compute(), np.nanstd(a, axis=axis, ddof=ddof))
        close(da.nanmean(x, axis=axis).compute(), np.nanmean(a, axis=axis))
        close(da.nansum(x, axis=axis).compute(), np.nansum(a, axis=axis))
    b = np.nan_to_num(a)
    y = chunked(b, device, (4, 3))
    close(y.var(axis=0, ddof=1).compute(), b.var(axis=0, ddof=1))
    close(y.std().compute(), b.std())


def test_elementwise_matmul_concatenate_rechunk(device, rng):
    a = rng.standard_normal((14, 6))
    v = rng.standard_normal(6)
    x, y = chunked(a, device, (4, 3)), chunked(v, device, 3)
    close((x * 2 + y[None, :] - 1).compute(), a * 2 + v[None, :] - 1)
    close(np.exp(x).compute(), np.exp(a))
    close(da.where(x > 0, x, -x).compute(), np.where(a > 0, a, -a))
    close((x.T @ x).compute(), a.T @ a, rtol=1e-10)
    close(da.tensordot(x, x, axes=([0], [0])).compute(), np.tensordot(a, a, axes=([0], [0])), rtol=1e-10)
    close(da.einsum("ij,ij->j", x, x).compute(), np.einsum("ij,ij->j", a, a), rtol=1e-10)
    close(da.concatenate([x, x[:, :2]], axis=1).compute(), np.concatenate([a, a[:, :2]], axis=1))
    close(da.stack([x, x]).compute(), np.stack([a, a]))
    close(x.rechunk((7, 5)).compute(), a)
    close(x[[0, 5, 13]].compute(), a[[0, 5, 13]])
    close(x[::3, 1:5].compute(), a[::3, 1:5])
    r = x.rechunk((7, 5))
    assert type(r._meta) is cp.ndarray and all(isinstance(b.compute(), cp.ndarray) for b in r.blocks.ravel())


def test_sizeof(device):
    for shape, dt in [((1000,), np.float64), ((3, 5), np.int8), ((0,), np.float32)]:
        x = cp.zeros(shape, dtype=dt, device=device)
        assert sizeof(x) == x.nbytes == int(np.prod(shape)) * np.dtype(dt).itemsize


def test_array_backend():
    with dask.config.set({"array.backend": "cuprum"}):
        for x, want in [
            (da.ones((10, 6), chunks=4), np.ones((10, 6))),
            (da.zeros((5,), chunks=2, dtype=np.int32), np.zeros(5, np.int32)),
            (da.full((3, 4), 2.5, chunks=2), np.full((3, 4), 2.5)),
            (da.arange(11, chunks=3), np.arange(11)),
        ]:
            assert type(x._meta) is cp.ndarray, type(x._meta)
            close(x.compute(), want)
        e = da.empty((4, 4), chunks=2)
        assert type(e._meta) is cp.ndarray and e.compute().shape == (4, 4)
    n = da.from_array(np.arange(12.0).reshape(3, 4), chunks=2)
    c = n.to_backend("cuprum")
    assert type(c._meta) is cp.ndarray
    close(c.compute(), np.arange(12.0).reshape(3, 4))
    assert c.to_backend("cuprum") is c


def test_serialization_round_trip(device):
    for a in [np.arange(12.0).reshape(3, 4), np.zeros((0, 3), np.int16), np.array(7, np.uint8), np.arange(10)[::2]]:
        x = cp.asarray(a, device=device)
        header, frames = serialize(x, serializers=("dask",))
        assert header["serializer"] == "dask"
        y = deserialize(header, frames)
        assert isinstance(y, cp.ndarray) and y.shape == a.shape and y.dtype == a.dtype
        assert y.device == x.device
        np.testing.assert_array_equal(cp.asnumpy(y), a)
        z = pickle.loads(pickle.dumps(x))
        np.testing.assert_array_equal(cp.asnumpy(z), a)


def _gpu_count():
    return cp.cuda.runtime.getDeviceCount() if cp.cuda.is_available() else 0


@pytest.fixture(scope="module", params=["cpu", "gpu"])
def client(request):
    """A local cluster: two CPU worker processes, or (on a GPU host) gpu_cluster()'s one worker per GPU, each
    seeing only its own GPU."""
    # Imported here, not at the top: the workers unpickle this module's functions by importing it, and the
    # conftest's module exists only in pytest's process.
    from _cuprum_conftest import require_device

    if request.param == "cpu":
        cluster = cpd.gpu_cluster(2, gpus=[])
    else:
        require_device("cuda:0")
        cluster = cpd.gpu_cluster()
    with cluster, distributed.Client(cluster) as c:
        c.wait_for_workers(2 if request.param == "cpu" else _gpu_count(), timeout=120)
        c.kind = request.param
        yield c


def _chunk_kinds(dask_worker):
    """The type and device of every chunk a worker holds, and the GPU it sees."""
    import os

    chunks = dask_worker.data.values()
    seen = {f"{type(v).__module__}.{type(v).__name__} on {v.device.kind}:{max(v.device.id, 0)}" for v in chunks}
    return sorted(seen), os.environ.get("CUDA_VISIBLE_DEVICES")


def test_local_cluster_of_processes(client, rng):
    n_workers = len(client.scheduler_info()["workers"])
    assert n_workers == (2 if client.kind == "cpu" else _gpu_count())
    a = rng.standard_normal((40, 12))
    x = da.from_array(a, chunks=(10, 6)).map_blocks(cp.asarray, dtype=a.dtype).persist()
    distributed.wait(x)
    # The chunks live on the workers as cuprum arrays, on each worker's own GPU (cuda:0 of what it sees).
    kinds = client.run(_chunk_kinds)
    want = "cuprum.ndarray on " + ("cpu:0" if client.kind == "cpu" else "cuda:0")
    assert set().union(*(set(k) for k, _ in kinds.values())) == {want}, kinds
    if client.kind == "gpu":
        assert sorted(v for _, v in kinds.values()) == sorted({v for _, v in kinds.values()}), kinds
    close(x.mean(axis=0, keepdims=True).compute(), a.mean(axis=0, keepdims=True))
    close(x.std(ddof=1).compute(), a.std(ddof=1))
    close((x.T @ x).compute(), a.T @ a, rtol=1e-10)
    close(da.concatenate([x, x], axis=0).rechunk((25, 4)).sum(axis=1).compute(), np.concatenate([a, a]).sum(axis=1))
    close((x + x[:, :1]).max(axis=1).compute(), (a + a[:, :1]).max(axis=1))


# ------------------------------------------------------------------- filters over chunks, against SciPy

MODES = ["reflect", "constant", "nearest", "mirror", "wrap"]


@pytest.mark.parametrize("mode", MODES)
def test_gaussian_and_median_filters_over_chunks(device, rng, mode):
    import scipy.ndimage

    img = rng.standard_normal((45, 38)).astype(np.float32)
    img[rng.random(img.shape) < 0.02] = np.nan  # SciPy's NaN answers survive the chunking
    x = chunked(img, device, (16, 13))
    finite = np.nan_to_num(img)
    xf = chunked(finite, device, (16, 13))
    for sigma in [1.0, (2.0, 0.5)]:
        want = scipy.ndimage.gaussian_filter(finite, sigma, mode=mode, cval=0.5)
        close(cpd.gaussian_filter(xf, sigma, mode=mode, cval=0.5).compute(), want, rtol=2e-5)
    want = scipy.ndimage.gaussian_filter(finite, 1.5, order=(0, 1), mode=mode, radius=3)
    close(cpd.gaussian_filter(xf, 1.5, order=(0, 1), mode=mode, radius=3).compute(), want, rtol=2e-5)
    for kw in [{"size": 5}, {"size": (3, 6), "origin": (1, -2)}, {"footprint": np.eye(4, dtype=bool)}]:
        want = scipy.ndimage.median_filter(img, mode=mode, cval=1.5, **kw)
        got = cpd.median_filter(x, mode=mode, cval=1.5, **kw).compute()
        assert isinstance(got, cp.ndarray)
        np.testing.assert_array_equal(cp.asnumpy(got), want)
    want = scipy.ndimage.median_filter(img, size=3, mode=mode, axes=1)
    np.testing.assert_array_equal(cp.asnumpy(cpd.median_filter(x, size=3, mode=mode, axes=1).compute()), want)


@pytest.mark.parametrize("boundary", ["fill", "wrap", "symm"])
def test_convolve2d_over_chunks(device, rng, boundary):
    import scipy.signal

    img = rng.standard_normal((40, 33))
    x = chunked(img, device, (12, 10))
    for k in [(5, 5), (4, 7), (1, 3)]:
        kern = rng.standard_normal(k)
        want = scipy.signal.convolve2d(img, kern, mode="same", boundary=boundary, fillvalue=0.25)
        got = cpd.convolve2d(x, kern, boundary=boundary, fillvalue=0.25).compute()
        close(got, want, rtol=1e-10)
    with pytest.raises(ValueError, match="mode='same' only"):
        cpd.convolve2d(x, np.ones((3, 3)), mode="full")


def test_random_chunks_match_numpys_philox_streams():
    # cuprum's Generator from a (spawned) SeedSequence is NumPy's Philox stream.
    for ss in [np.random.SeedSequence(5), np.random.SeedSequence(5).spawn(3)[2], np.random.SeedSequence([1, 2**70])]:
        want = np.random.Generator(np.random.Philox(ss)).random(7)
        np.testing.assert_array_equal(cp.asnumpy(cp.random.default_rng(ss).random(7)), want)
        np.testing.assert_array_equal(cp.asnumpy(cp.random.default_rng(cp.random.Philox(ss)).random(7)), want)
    with dask.config.set({"array.backend": "cuprum"}):
        x = da.random.default_rng(42).random((20, 7), chunks=(8, 4))
        y = da.random.default_rng(42).standard_normal((9, 9), chunks=4)
        assert type(x._meta) is cp.ndarray and type(y._meta) is cp.ndarray
        gx, gy = x.compute(), y.compute()
        with pytest.raises(NotImplementedError, match="default_rng"):
            da.random.random((4,), chunks=2)
    # Uniform draws are NumPy's bit for bit: the same chunks as a NumPy-backed Generator(Philox(42)).
    want_x = da.random.Generator(np.random.Philox(42)).random((20, 7), chunks=(8, 4)).compute()
    np.testing.assert_array_equal(cp.asnumpy(gx), want_x)
    # Normals (NumPy's ziggurat, not bit for bit: see cuprum.random): chunk k is drawn from the k-th
    # SeedSequence spawned from the seed, in block order, as Dask spawns NumPy's.
    seeds = np.random.SeedSequence(42).spawn(9)
    for k, (i, j) in enumerate((i, j) for i in range(3) for j in range(3)):
        rows, cols = (4 if i < 2 else 1), (4 if j < 2 else 1)
        block = cp.asnumpy(cp.random.default_rng(seeds[k]).standard_normal((rows, cols)))
        np.testing.assert_array_equal(cp.asnumpy(gy)[4 * i : 4 * i + rows, 4 * j : 4 * j + cols], block)


def test_exact_order_statistics_and_kappa_sigma(device, rng):
    img = (rng.standard_normal((130, 110)) * 0.013).astype(np.float32)
    img[rng.random(img.shape) < 0.002] += 1.0  # sources
    img[5, 7] = np.nan
    x = chunked(img, device, (50, 40))
    flat = np.sort(img[~np.isnan(img)])
    for r in [0, 1, 999, flat.size // 2, flat.size - 1]:
        assert cpd.order_statistics(x, r) == [float(flat[r])]
    lo, hi = -0.01, 0.02
    inside = flat[(flat > lo) & (flat < hi)]
    assert cpd.order_statistics(x, [0, inside.size - 1], lo, hi) == [float(inside[0]), float(inside[-1])]
    with pytest.raises(IndexError):
        cpd.order_statistics(x, flat.size)
    ks = cpd.kappa_sigma(x, 3.0)
    # The lesson's clipper on the whole image (NumPy).
    f = flat
    while True:
        med, std = np.median(f), np.std(f)
        both = f[(f > med - 3 * std) & (f < med + 3 * std)]
        if both.size == f.size:
            break
        f = both
    assert ks["count"] == f.size and ks["median"] == float(med)
    assert abs(ks["std"] - float(np.std(f.astype(np.float64)))) <= 1e-12
    d = rng.standard_normal(1001)
    assert_clipper(cpd.kappa_sigma(chunked(d, device, 300), 2.5), d, 2.5)


def clipper(values, kappa):
    """The lesson's kappa-sigma clipper with NumPy (NaN left out): the kept values, their median and std."""
    f = np.sort(values[~np.isnan(values)].ravel())
    while True:
        med, std = np.median(f), np.std(f.astype(np.float64))
        both = f[(f > med - kappa * std) & (f < med + kappa * std)]
        if both.size == f.size:
            return f, med, std
        f = both


def assert_clipper(ks, values, kappa):
    f, med, std = clipper(values, kappa)
    assert ks["count"] == f.size and ks["median"] == float(med), (ks, f.size, med)
    assert abs(ks["std"] - std) <= 1e-12 * max(1.0, std), (ks["std"], std)


def _two_populations(rng, dtype):
    """Noise, sources, NaN pixels, and a bright corner: chunks whose values differ from the others'."""
    img = (rng.standard_normal((120, 140)) * 0.013).astype(dtype)
    img[rng.random(img.shape) < 0.003] += dtype(1.0)
    img[:30, :35] += dtype(0.05)
    img[rng.random(img.shape) < 0.001] = np.nan
    return img


@pytest.mark.parametrize("sample", [3, 40, 1 << 14])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kappa_sigma_windows_and_steps(device, rng, monkeypatch, sample, dtype):
    """The clipper's rounds read from copied runs of sorted keys, from steps where the runs (chosen on a
    sample of ``sample`` keys: a poor one misses often) do not reach, or from steps only: NumPy's answer."""
    monkeypatch.setattr(cpd, "_SAMPLE", sample)
    img = _two_populations(rng, dtype)
    x = chunked(img, device, (50, 60))
    for windows in (True, False):
        assert_clipper(cpd.kappa_sigma(x, 3.0, windows=windows), img, 3.0)


@pytest.mark.parametrize("path", ["first-median", "far-tail", "bounds-only"])
def test_kappa_sigma_rounds_outside_the_windows(device, rng, monkeypatch, path):
    """Windows copied about the wrong values (a rough path gone astray): the rounds they do not answer take
    steps, some rounds mixing both, and the answer is NumPy's. The calls to the parts are counted."""
    img = _two_populations(rng, np.float32)
    x = chunked(img, device, (50, 60))
    f = img[~np.isnan(img)]
    med, std = float(np.median(f)), float(np.std(f.astype(np.float64)))
    fake = {
        "first-median": ([med], [], [], std),
        "far-tail": ([5.0], [4.0], [6.0], std),
        "bounds-only": ([], [med - 3 * std], [med + 3 * std], std),
    }[path]
    monkeypatch.setattr(cpd._Shares, "sample_path", lambda self, kappa: fake)
    calls = []
    real = cpd._Shares.call
    monkeypatch.setattr(cpd._Shares, "call", lambda self, m, a: calls.append(m) or real(self, m, a))
    with dask.config.set(scheduler="threads"):
        assert_clipper(cpd.kappa_sigma(x, 3.0), img, 3.0)
    assert calls[:2] == ["sample", "windows"] and "step" in calls, calls


@pytest.mark.parametrize("connectivity", [1, 2])
def test_label_and_measure_across_chunks(device, rng, connectivity):
    import scipy.ndimage as ndi

    img = ndi.gaussian_filter(rng.standard_normal((97, 113)), 2.0).astype(np.float32)
    mask = img > 0.08
    want, n_want = ndi.label(mask, ndi.generate_binary_structure(2, connectivity))
    idx = np.arange(1, n_want + 1)
    com = np.array(ndi.center_of_mass(img, want, idx))
    # Chunks smaller than the objects (so that they cross edges, and join through other chunks), one column
    # wide, irregular, and the whole image as one chunk.
    for chunks in [(20, 25), (7, 50), ((30, 30, 37), (1, 50, 62)), (97, 113)]:
        lab, n = cpd.label(chunked(mask, device, chunks), connectivity)
        assert type(lab._meta) is cp.ndarray and lab.dtype == np.int32
        assert n == n_want
        np.testing.assert_array_equal(cp.asnumpy(lab.compute()), want)
        ms = cpd.measure(chunked(img, device, chunks), lab, n)
        assert np.abs(ms["y"] - com[:, 0]).max() < 1e-6 and np.abs(ms["x"] - com[:, 1]).max() < 1e-6
        np.testing.assert_allclose(ms["flux"], ndi.sum_labels(img.astype(np.float64), want, idx), rtol=1e-9)
        np.testing.assert_array_equal(ms["npix"], ndi.sum_labels(np.ones_like(img), want, idx))
        np.testing.assert_array_equal(ms["peak"], ndi.maximum(img, want, idx))
        n2, cat, _ = cpd.catalogue(chunked(img, device, chunks), 0.08, connectivity)
        assert n2 == n_want
        for k in ms:
            np.testing.assert_array_equal(cat[k], ms[k])
    empty, n0 = cpd.label(chunked(np.zeros((10, 10), bool), device, 4), connectivity)
    assert n0 == 0 and not cp.asnumpy(empty.compute()).any()
    n0, cat, _ = cpd.catalogue(chunked(np.zeros((10, 10)), device, 4), 0.5, connectivity)
    assert n0 == 0 and all(v.size == 0 for v in cat.values())


def test_mosaic_steps_on_the_cluster(client, rng):
    import scipy.ndimage as ndi

    img = ndi.gaussian_filter(rng.standard_normal((80, 90)), 2.0).astype(np.float32)
    x = da.from_array(img, chunks=(30, 40)).map_blocks(cp.asarray, dtype=img.dtype).persist()
    assert_clipper(cpd.kappa_sigma(x, 3.0), img, 3.0)
    # Parts of different sizes and contents on the workers, a sample too small to find the path: steps.
    for dtype, sample in [(np.float32, 1 << 14), (np.float64, 5)]:
        two = _two_populations(rng, dtype)
        y = da.from_array(two, chunks=(50, 35)).map_blocks(cp.asarray, dtype=two.dtype).persist()
        cpd._SAMPLE, saved = sample, cpd._SAMPLE
        try:
            assert_clipper(cpd.kappa_sigma(y, 2.5), two, 2.5)
        finally:
            cpd._SAMPLE = saved
        assert_clipper(cpd.kappa_sigma(y, 2.5, windows=False), two, 2.5)
    mask = x > 0.08
    want, n_want = ndi.label(img > 0.08)
    lab, n = cpd.label(mask)
    assert n == n_want
    np.testing.assert_array_equal(cp.asnumpy(lab.compute()), want)
    ms = cpd.measure(x, lab, n)
    np.testing.assert_allclose(ms["flux"], ndi.sum_labels(img.astype(np.float64), want, np.arange(1, n + 1)), rtol=1e-9)
    # The same without the labelled image: one task a worker labels its blocks and keeps the labels;
    # also from a collection not persisted (its blocks computed in the workers and kept there).
    lazy = da.from_array(img, chunks=(30, 40)).map_blocks(cp.asarray, dtype=img.dtype)
    for y in (x, lazy):
        n2, cat, seconds = cpd.catalogue(y, 0.08)
        assert n2 == n and set(seconds) == {"label", "measure"}
        for k in ["y", "x", "flux", "npix", "peak"]:
            np.testing.assert_array_equal(cat[k], ms[k])


def _sky(rng, shape=(150, 170)):
    import scipy.ndimage as ndi

    img = (rng.standard_normal(shape) * 0.013).astype(np.float32)
    pts = np.zeros(shape, np.float32)
    ys, xs = rng.integers(0, shape[0], 40), rng.integers(0, shape[1], 40)
    pts[ys, xs] = rng.uniform(0.5, 3, 40)
    return img + ndi.gaussian_filter(pts, 1.5).astype(np.float32) * 10


def _scipy_sources(img):
    """The whole image with NumPy/SciPy: the lesson's clipper, 5 sigma, 4-connected labels; the labels, their
    number and centres of mass."""
    import scipy.ndimage as ndi

    f = img.ravel()
    while True:
        med, std = np.median(f), np.std(f.astype(np.float64))
        both = f[(f > med - 3 * std) & (f < med + 3 * std)]
        if both.size == f.size:
            break
        f = both
    want, n = ndi.label(img > 5 * std)
    return want, n, np.array(ndi.center_of_mass(img, want, np.arange(1, n + 1)))


def _irregular_tiles(img, d):
    """``img`` (150 x 170) cut into a 3 x 3 grid of unequal tiles ``sky_r<i>_c<j>.npy`` in ``d``."""
    d.mkdir()
    for i, (r, r1) in enumerate([(0, 60), (60, 100), (100, 150)]):
        for j, (c, c1) in enumerate([(0, 33), (33, 120), (120, 170)]):
            np.save(d / f"sky_r{i}_c{j}.npy", img[r:r1, c:c1])


def test_mosaic_pipeline_equals_the_whole_image(tmp_path, rng):
    import scipy.ndimage as ndi

    import cuprum.sky as sky

    img = _sky(rng)
    want, n, com = _scipy_sources(img)
    idx = np.arange(1, n + 1)
    np.save(tmp_path / "sky.npy", img)
    tiles = tmp_path / "tiles"
    _irregular_tiles(img, tiles)
    for path, tile in [(tmp_path / "sky.npy", 37), (tmp_path / "sky.npy", 1000), (tiles, 0)]:
        x = sky.load_mosaic(str(path), tile)
        assert type(x._meta) is cp.ndarray
        with dask.config.set(scheduler="threads"):
            r = sky.run(x)
        assert r["n_sources"] == n > 10
        cat = r["catalogue"]
        assert np.abs(cat["y"] - com[:, 0]).max() < 1e-6 and np.abs(cat["x"] - com[:, 1]).max() < 1e-6
        np.testing.assert_array_equal(cat["npix"], ndi.sum_labels(np.ones_like(img), want, idx))
    out = tmp_path / "out"
    assert sky.main(["--mosaic", str(tiles), "--gpus", "none", "--out", str(out)]) == 0
    lines = (out / "catalogue.csv").read_text().splitlines()
    assert lines[0] == "id,y,x,flux,npix,peak" and len(lines) == n + 1
    first = lines[1].split(",")
    assert first[0] == "1" and abs(float(first[1]) - com[0, 0]) < 1e-4 and re.fullmatch(r"-?\d\.\d{6}e-?\d+", first[3])
    with pytest.raises(FileNotFoundError, match="no tiles"):
        sky.load_mosaic(str(tmp_path / "out"))
    # Tiles that do not form a grid, or of two dtypes.
    for name, tile, match in [
        ("sky_r1_c1.npy", np.zeros((39, 87), np.float32), r"row 1 is 40 high"),
        ("sky_r1_c1.npy", np.zeros((40, 87), np.float64), "different dtypes"),
    ]:
        odd = tmp_path / f"odd-{match[:3]}"
        shutil.copytree(tiles, odd)
        np.save(odd / name, tile)
        with pytest.raises(ValueError, match=match):
            sky.load_mosaic(str(odd))
    # Bad input: a message and exit status 2, nothing written.
    for args in [
        ["--mosaic", str(tmp_path / "nothing.npy")],
        ["--mosaic", str(out)],
        ["--mosaic", str(tiles), "--kappa", "nan"],
    ]:
        assert sky.main([*args, "--gpus", "none", "--out", str(tmp_path / "bad")]) == 2
    assert not (tmp_path / "bad").exists()


def test_mosaic_command_on_every_gpu(gpu, tmp_path, rng, capsys):
    """``python -m cuprum.sky --mosaic DIR --gpus all``: one worker per GPU, the whole image's catalogue."""
    import cuprum.sky as sky

    img = _sky(rng)
    want, n, com = _scipy_sources(img)
    _irregular_tiles(img, tmp_path / "tiles")
    assert sky.main(["--mosaic", str(tmp_path / "tiles"), "--gpus", "all", "--out", str(tmp_path / "out")]) == 0
    assert f"on {_gpu_count()} worker(s)" in capsys.readouterr().out
    rows = [r.split(",") for r in (tmp_path / "out" / "catalogue.csv").read_text().splitlines()[1:]]
    assert len(rows) == n > 10
    got = np.array([[float(r[1]), float(r[2])] for r in rows])
    assert np.abs(got - com).max() < 1e-4  # the file's four decimals
    np.testing.assert_array_equal([int(r[4]) for r in rows], np.bincount(want.ravel())[1:])


def test_mosaic_command_on_a_running_cluster(tmp_path, rng, capsys):
    """``--scheduler ADDRESS``: the workers of a cluster started elsewhere (here two CPU workers), which read
    the tiles themselves; the whole image's catalogue, and the cluster is left running."""
    import cuprum.sky as sky

    img = _sky(rng)
    want, n, com = _scipy_sources(img)
    _irregular_tiles(img, tmp_path / "tiles")
    with cpd.gpu_cluster(2, gpus=[]) as cluster:
        args = ["--mosaic", str(tmp_path / "tiles"), "--scheduler", cluster.scheduler_address]
        assert sky.main([*args, "--out", str(tmp_path / "out")]) == 0
        assert "on 2 worker(s)" in capsys.readouterr().out
        with distributed.Client(cluster) as c:
            assert len(c.scheduler_info()["workers"]) == 2
    rows = [r.split(",") for r in (tmp_path / "out" / "catalogue.csv").read_text().splitlines()[1:]]
    assert len(rows) == n > 10
    got = np.array([[float(r[1]), float(r[2])] for r in rows])
    assert np.abs(got - com).max() < 1e-4
    np.testing.assert_array_equal([int(r[4]) for r in rows], np.bincount(want.ravel())[1:])


def _slow_double(b):
    import time

    time.sleep(0.05)
    return b * 2


def test_a_killed_worker_loses_nothing(client, rng):
    """A worker process killed in the middle of a computation: its nanny starts a new one, Dask recomputes
    the lost chunks from the graph, and the result is unchanged."""
    import os
    import signal
    import time

    a = rng.standard_normal((64, 64))
    x = da.from_array(a, chunks=8).map_blocks(cp.asarray, dtype=a.dtype).map_blocks(_slow_double, dtype=a.dtype)
    pids = client.run(os.getpid)
    gpus_before = sorted(str(v) for _, v in client.run(_chunk_kinds).values())
    future = client.compute((x.T @ x).sum(axis=0))
    time.sleep(0.4)
    os.kill(pids[sorted(pids)[0]], signal.SIGKILL)
    got = future.result(timeout=120)
    close(got, ((2 * a).T @ (2 * a)).sum(axis=0), rtol=1e-10)
    # The killed worker was replaced (a new process at a new address): the cluster is whole again.
    client.wait_for_workers(len(pids), timeout=60)
    deadline = time.time() + 60
    while set(client.scheduler_info()["workers"]) == set(pids) and time.time() < deadline:
        time.sleep(0.1)
    workers = set(client.scheduler_info()["workers"])
    assert len(workers) == len(pids) and workers != set(pids), (workers, set(pids))
    if client.kind == "gpu":
        # The new worker sees the killed one's GPU, and computes there.
        assert sorted(str(v) for _, v in client.run(_chunk_kinds).values()) == gpus_before
        close(x.sum().compute(), 2 * a.sum(), rtol=1e-10)


def _batching(dask_scheduler):
    """The scheduler's message batching interval to each worker."""
    return [b.interval for b in dask_scheduler.stream_comms.values()]


def test_low_latency_reaches_every_worker_and_its_replacement():
    """cuprum.dask.low_latency shortens the message batching of the client, the scheduler and the workers,
    also of a worker that replaces a killed one; a computation still gives its answer."""
    import os
    import signal
    import time

    with cpd.gpu_cluster(2, gpus=[]) as cluster, distributed.Client(cluster) as c:
        c.wait_for_workers(2, timeout=60)
        assert c.run_on_scheduler(
            lambda dask_scheduler: {b.interval for b in dask_scheduler.stream_comms.values()}
        ) == {0.005}
        assert cpd.low_latency(c, 0.0007) is c
        assert c.scheduler_comm.interval == 0.0007
        assert set(c.run(lambda dask_worker: dask_worker.batched_stream.interval).values()) == {0.0007}
        on_scheduler = c.run_on_scheduler(
            lambda dask_scheduler: [b.interval for b in dask_scheduler.stream_comms.values()]
        )
        assert on_scheduler == [0.0007, 0.0007]
        pids = c.run(os.getpid)
        os.kill(next(iter(pids.values())), signal.SIGKILL)
        deadline = time.time() + 60
        while (len(c.scheduler_info()["workers"]) < 2 or set(c.scheduler_info()["workers"]) == set(pids)) and (
            time.time() < deadline
        ):
            time.sleep(0.1)
        assert set(c.run(lambda dask_worker: dask_worker.batched_stream.interval).values()) == {0.0007}
        on_scheduler = c.run_on_scheduler(
            lambda dask_scheduler: [b.interval for b in dask_scheduler.stream_comms.values()]
        )
        assert on_scheduler == [0.0007, 0.0007]
        x = da.from_array(np.arange(30.0), chunks=7).map_blocks(cp.asarray, dtype=float)
        close(x.sum().compute(), np.arange(30.0).sum())


def test_a_worker_killed_between_the_steps_of_the_statistics_and_the_catalogue(client, rng, monkeypatch):
    """The statistics' parts and the labelled blocks live in the workers between steps: a worker killed
    there takes them with it, and its tiles; Dask rebuilds them from the graph (on the worker's replacement
    or another) and the answers are NumPy's and SciPy's."""
    import os
    import signal
    import time

    import scipy.ndimage as ndi

    img = _two_populations(rng, np.float32)
    img = np.where(np.isnan(img), 0, img).astype(np.float32)
    x = da.from_array(img, chunks=(40, 35)).map_blocks(cp.asarray, dtype=img.dtype).persist()
    distributed.wait(x)

    killed = []

    def kill_one():
        pids = client.run(os.getpid)
        killed.append(sorted(pids)[-1])
        os.kill(pids[killed[-1]], signal.SIGKILL)

    real_fetch, real_join = cpd._Shares.fetch_about, cpd._join
    monkeypatch.setattr(cpd._Shares, "fetch_about", lambda self, *a, **k: (kill_one(), real_fetch(self, *a, **k))[1])

    def replaced():
        # wait_for_workers counts a killed worker the scheduler has not yet noticed: wait until the
        # killed ones are gone and their replacements are in.
        n_want, deadline = 2 if client.kind == "cpu" else _gpu_count(), time.time() + 60
        while time.time() < deadline:
            workers = set(client.scheduler_info()["workers"])
            if len(workers) >= n_want and not set(killed) & workers:
                return workers
            time.sleep(0.1)
        return set(client.scheduler_info()["workers"])

    assert_clipper(cpd.kappa_sigma(x, 3.0), img, 3.0)
    replaced()
    monkeypatch.setattr(cpd, "_join", lambda *a: (kill_one(), real_join(*a))[1])
    n, cat, _ = cpd.catalogue(x, 0.5)
    want, n_want = ndi.label(img > 0.5)
    assert n == n_want > 5
    np.testing.assert_allclose(
        cat["flux"], ndi.sum_labels(img.astype(np.float64), want, np.arange(1, n + 1)), rtol=1e-9
    )
    # Two workers were killed (each its own process), and neither is among the workers now.
    assert len(killed) == 2 and not set(killed) & replaced(), killed


def test_gpu_cluster_pins_one_gpu_per_worker(monkeypatch):
    """The GPU layout of gpu_cluster (one worker process per GPU, each seeing only its own), honouring a narrowed
    CUDA_VISIBLE_DEVICES: on a GPU host its GPUs listed backwards; without one made-up numbers (the workers'
    cuprum runs on the CPU, but the pinning is the same). Each worker's memory limit is its share of the host's
    memory, not Dask's share per core."""
    import os

    from distributed.system import MEMORY_LIMIT

    n = _gpu_count()
    ids = [str(g) for g in reversed(range(n))] if n else ["3", "5"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", ",".join(ids))
    with cpd.gpu_cluster(gpus=list(range(len(ids)))) as cluster, distributed.Client(cluster) as c:
        c.wait_for_workers(len(ids), timeout=60)
        seen = c.run(
            lambda dask_worker: (
                dask_worker.name,
                os.environ.get("CUDA_VISIBLE_DEVICES"),
                dask_worker.memory_manager.memory_limit,
            )
        )
        assert sorted(seen.values()) == sorted((f"gpu-{i}", g, MEMORY_LIMIT // len(ids)) for i, g in enumerate(ids))
        # Every ready task goes to its worker at once (no queue held back in the scheduler).
        assert c.run_on_scheduler(lambda dask_scheduler: dask_scheduler.WORKER_SATURATION) == float("inf")
        x = da.from_array(np.arange(20.0), chunks=5).map_blocks(cp.asarray, dtype=float).persist()
        close(x.sum().compute(), np.arange(20.0).sum())
        want = "cuprum.ndarray on " + ("cuda:0" if n else "cpu:0")
        assert set().union(*(set(k) for k, _ in c.run(_chunk_kinds).values())) == {want}


def test_bad_input_is_numpys_exceptions(device):
    x = chunked(np.zeros((6, 6)), device, 3)
    with pytest.raises(ValueError, match="connectivity"):
        cpd.label(x > 0, 3)
    with pytest.raises(ValueError, match="2-D"):
        cpd.label(chunked(np.zeros((2, 2, 2), bool), device, 1))
    with pytest.raises(ValueError, match="2-D"):
        cpd.catalogue(chunked(np.zeros((2, 2, 2)), device, 1), 0.5)
    with pytest.raises(ValueError, match="connectivity"):
        cpd.catalogue(x, 0.5, 3)
    with pytest.raises(TypeError, match="float32 or float64"):
        cpd.order_statistics(chunked(np.arange(6), device, 3), 0)
    with pytest.raises(IndexError):
        cpd.order_statistics(x, -1)
    with pytest.raises(ValueError, match="same shape and chunks"):
        cpd.measure(x, chunked(np.zeros((6, 6), np.int32), device, 2), 0)
    with pytest.raises(ValueError, match="kept no pixel"):
        cpd.kappa_sigma(chunked(np.full((4, 4), np.nan), device, 2))
