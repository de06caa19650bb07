"""The mosaic pipeline's scaling (issue 36): a grid of tiles (default 4x4 of 4096² float32, about 1 GB) through
``cuprum.sky.run`` on 1, 2, 4 GPUs (one Dask worker per GPU), beside the plain single-process cuprum time for the
whole mosaic and, where CuPy is installed, CuPy's per-tile steps under Dask (CuPy has no labels across tiles: its
tiles are clipped, segmented, labelled and measured each on its own). One JSON line per measurement::

    python python/bench/mosaic_scaling.py [--grid 4] [--tile 4096] [--gpus 1,2,4] [--repeat 3] [--out F.jsonl]
    python python/bench/mosaic_scaling.py --grid 2 --tile 512 --cpu-workers 2   # the same on CPU workers

Times are wall seconds of the whole computation (tiles read from .npy files by the workers), the median of
``--repeat`` runs after one warm-up run; ``efficiency`` is ``t(1) / (n * t(n))``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np


def make_tiles(d: str, grid: int, tile: int, seed: int = 36) -> None:
    """A synthetic sky cut into ``grid`` x ``grid`` tiles ``sky_r<i>_c<j>.npy`` (noise and Gaussian sources,
    some across tile edges); made once per (grid, tile)."""
    stamp = f"made-{grid}-{tile}"
    if os.path.exists(os.path.join(d, stamp)):
        return
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(seed)
    n = grid * tile
    yy, xx = np.mgrid[-7:8, -7:8]
    psf = np.exp(-(yy**2 + xx**2) / (2 * 1.5**2)).astype(np.float32)
    k = max(1, n * n // 20000)
    ys, xs = rng.integers(7, n - 7, k), rng.integers(7, n - 7, k)
    flux = rng.uniform(0.2, 3.0, k).astype(np.float32)
    for i in range(grid):
        for j in range(grid):
            t = (rng.standard_normal((tile, tile)) * 0.013).astype(np.float32)
            sel = (ys >= i * tile - 7) & (ys < (i + 1) * tile + 7) & (xs >= j * tile - 7) & (xs < (j + 1) * tile + 7)
            for y, x, f in zip(ys[sel] - i * tile, xs[sel] - j * tile, flux[sel], strict=True):
                y0, y1, x0, x1 = max(y - 7, 0), min(y + 8, tile), max(x - 7, 0), min(x + 8, tile)
                if y0 < y1 and x0 < x1:
                    t[y0:y1, x0:x1] += f * psf[y0 - y + 7 : y1 - y + 7, x0 - x + 7 : x1 - x + 7]
            np.save(os.path.join(d, f"sky_r{i}_c{j}.npy"), t)
    open(os.path.join(d, stamp), "w").close()


def clipped_std(xp, f) -> float:
    """The lesson's kappa-sigma clipper (kappa 3) with the array module ``xp``: the clipped pixels' std."""
    while True:
        med, std = float(xp.median(f)), float(xp.std(f.astype(xp.float64)))
        both = f[(f > med - 3 * std) & (f < med + 3 * std)]
        if both.size == f.size:
            return std
        f = both


def timed(f, repeat: int) -> tuple:
    f()  # warm-up: kernels compiled, pools filled
    ts = []
    r = None
    for _ in range(repeat):
        t = time.perf_counter()
        r = f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), r


def plain(d: str, grid: int) -> dict:
    """The same steps in one process on the whole mosaic (cuprum functions, no Dask)."""
    import cuprum as cp
    from cuprumx.scipy import ndimage as ndi

    sync = cp.cuda.get_current_stream().synchronize
    times = {}
    t = time.perf_counter()
    x = cp.asarray(
        np.block([[np.load(os.path.join(d, f"sky_r{i}_c{j}.npy")) for j in range(grid)] for i in range(grid)])
    )
    sync()
    times["load"], t = time.perf_counter() - t, time.perf_counter()
    std = clipped_std(cp, x.ravel())
    times["background"], t = time.perf_counter() - t, time.perf_counter()
    labels, n = ndi.label(x > 5 * std)
    sync()
    times["label"], t = time.perf_counter() - t, time.perf_counter()
    idx = cp.arange(1, n + 1)
    com = ndi.center_of_mass(x, labels, idx)
    flux = ndi.sum_labels(x, labels, idx)
    sync()
    times["measure"] = time.perf_counter() - t
    return {"n_sources": int(n), "com": com, "flux": flux, "steps": times}


def cupy_tiles(d: str, grid: int) -> int:
    """CuPy's per-tile steps under Dask (each tile on its own: no labels across tiles)."""
    import dask

    def one(path: str) -> int:
        import cupy
        import cupyx.scipy.ndimage as cndi

        t = cupy.asarray(np.load(path))
        lab, n = cndi.label(t > 5 * clipped_std(cupy, t.ravel()))
        idx = cupy.arange(1, n + 1)
        cndi.center_of_mass(t, lab, idx)
        cndi.sum_labels(t, lab, idx)
        cupy.cuda.get_current_stream().synchronize()
        return int(n)

    paths = [os.path.join(d, f"sky_r{i}_c{j}.npy") for i in range(grid) for j in range(grid)]
    return sum(dask.compute(*[dask.delayed(one)(p) for p in paths]))


def task_times(client, f) -> dict:
    """One more run of ``f`` with Dask's task stream on: its wall seconds, and each worker's seconds of
    computing by task name, and of receiving data from other workers (what is not in them is waiting:
    the scheduler's and the client's round trips)."""
    from dask.utils import key_split
    from distributed import get_task_stream

    with get_task_stream(client) as stream:
        t = time.perf_counter()
        f()
        wall = time.perf_counter() - t
    busy: dict = {}
    for rec in stream.data:
        w = busy.setdefault(rec["worker"], {})
        for s in rec["startstops"]:
            name = key_split(rec["key"]) if s["action"] == "compute" else s["action"]
            w[name] = w.get(name, 0.0) + s["stop"] - s["start"]
    return {
        "wall": wall,
        "tasks": len(stream.data),
        "busy": {k: dict(sorted(v.items())) for k, v in sorted(busy.items())},
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--grid", type=int, default=4)
    p.add_argument("--tile", type=int, default=4096)
    p.add_argument("--gpus", default="1,2,4")
    p.add_argument("--cpu-workers", type=int, default=0, help="CPU workers instead of GPUs (a check of the script)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--dir", default="/tmp/cuprum-mosaic")
    p.add_argument("--out")
    a = p.parse_args()
    from distributed import Client

    import cuprum.dask as cpd
    import cuprum.sky as sky

    d = os.path.join(a.dir, f"{a.grid}x{a.tile}")
    make_tiles(d, a.grid, a.tile)
    lines = []

    def emit(rec: dict) -> None:
        rec.update({"grid": a.grid, "tile": a.tile})
        print(json.dumps(rec), flush=True)
        lines.append(rec)

    t_plain, ref = timed(lambda: plain(d, a.grid), a.repeat)
    emit({"name": "mosaic_plain_single_process", "seconds": t_plain, "n_sources": ref["n_sources"]} | ref["steps"])
    counts = [a.cpu_workers] if a.cpu_workers else [int(g) for g in a.gpus.split(",")]
    t1 = None
    for n in counts:
        cluster = cpd.gpu_cluster(n, gpus=[]) if a.cpu_workers else cpd.gpu_cluster(gpus=list(range(n)))
        with cluster, Client(cluster) as client:
            cpd.low_latency(client)
            x = sky.load_mosaic(d)
            t, r = timed(lambda x=x: sky.run(x), a.repeat)
            emit({"name": "mosaic_dask_tasks", "workers": n, **task_times(client, lambda x=x: sky.run(x))})
            same = r["n_sources"] == ref["n_sources"]
            t1 = t if t1 is None else t1
            emit(
                {
                    "name": "mosaic_dask",
                    "workers": n,
                    "seconds": t,
                    "n_sources": r["n_sources"],
                    "same_sources_as_plain": same,
                    "efficiency": t1 * counts[0] / (n * t),
                    "dask_over_plain": t / t_plain,
                    "steps": r["seconds"],
                }
            )
            try:
                import cupy  # noqa: F401
            except ImportError:
                continue
            if not a.cpu_workers:
                tc, nc = timed(lambda: cupy_tiles(d, a.grid), a.repeat)
                emit({"name": "mosaic_cupy_tiles_dask", "workers": n, "seconds": tc, "n_sources_per_tile_sum": nc})
    if a.out:
        with open(a.out, "a") as f:
            f.writelines(json.dumps(rec) + "\n" for rec in lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
