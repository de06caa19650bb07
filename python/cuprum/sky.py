"""The lessons' pipeline (``cuprum-sky``) over a mosaic, across every GPU through Dask::

    python -m cuprum.sky --mosaic PATH [--tile N] [--gpus all|none|0,1,...] [--cpu-workers N]
                         [--scheduler ADDRESS] [--kappa 3] [--threshold 5] [--connectivity 4|8] [--out DIR]

``PATH`` is one ``.npy`` image, cut into tiles of ``--tile`` pixels (default 4096), or a directory of
``.npy`` tiles named ``<anything>_r<row>_c<col>.npy`` that form a grid (the tiles of a row share their
height, those of a column their width). Each tile is read by the worker that owns it, as a cuprum array
on that worker's GPU (``--gpus all``: one worker per visible GPU; ``none``: this process, its current
device; ``--cpu-workers N``: N CPU worker processes; ``--scheduler tcp://host:8786``: the workers of a
cluster started on other machines, ``docs/many-machines.md``).

The steps are the single-image program's, on the whole mosaic: kappa-sigma clipping of the finite pixels
(:func:`cuprum.dask.kappa_sigma`: exact median, float64 std), the threshold ``threshold * std``, the
segmentation ``image > threshold``, SciPy's labels of the whole mosaic (:func:`cuprum.dask.label`: sources
that cross tile edges are one source) and their measurements (:func:`cuprum.dask.measure`). The catalogue
(``catalogue.csv``: ``id,y,x,flux,npix,peak``, as ``cuprum-sky`` writes it) lists the sources in SciPy's
label order; on an image that fits one GPU it equals the single-image run's.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import time
from typing import Any

import numpy

import cuprum

_TILE = re.compile(r"_r(\d+)_c(\d+)\.npy$")


def _read(path: str, r0: int, r1: int, c0: int, c1: int) -> Any:
    host = numpy.load(path, mmap_mode="r")
    return cuprum.asarray(numpy.ascontiguousarray(host[r0:r1, c0:c1]))


def load_mosaic(path: str, tile: int = 4096) -> Any:
    """A Dask array of cuprum chunks over the mosaic at ``path`` (see the module), read lazily tile by tile."""
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    def grid(reads: dict, heights: list, widths: list, dtype: Any) -> Any:
        """The tiles as one Dask array: a task a tile, ``_read(*reads[(i, j)])``."""
        name = "cuprum-sky-read-" + tokenize(reads)
        dsk = {(name, i, j): (_read, *spec) for (i, j), spec in reads.items()}
        meta = cuprum.empty((0, 0), dtype=dtype)
        graph = HighLevelGraph.from_collections(name, dsk, dependencies=[])
        return da.Array(graph, name, chunks=(tuple(heights), tuple(widths)), dtype=dtype, meta=meta)

    if os.path.isdir(path):
        tiles = {}
        for name in os.listdir(path):
            m = _TILE.search(name)
            if m:
                tiles[(int(m.group(1)), int(m.group(2)))] = os.path.join(path, name)
        if not tiles:
            raise FileNotFoundError(f"{path}: no tiles named *_r<row>_c<col>.npy")
        nr = max(r for r, _ in tiles) + 1
        nc = max(c for _, c in tiles) + 1
        missing = [(r, c) for r in range(nr) for c in range(nc) if (r, c) not in tiles]
        if missing:
            raise FileNotFoundError(f"{path}: the grid of tiles lacks {missing[:5]}")
        shapes, dtypes = {}, set()
        for rc, p in tiles.items():
            h = numpy.load(p, mmap_mode="r")
            if h.ndim != 2:
                raise ValueError(f"{p}: a tile must be 2-d, not {h.ndim}-d")
            shapes[rc] = h.shape
            dtypes.add(h.dtype)
        heights = [shapes[(r, 0)][0] for r in range(nr)]
        widths = [shapes[(0, c)][1] for c in range(nc)]
        bad = [rc for rc, s in shapes.items() if s != (heights[rc[0]], widths[rc[1]])]
        if bad:
            r, c = bad[0]
            raise ValueError(
                f"{tiles[(r, c)]}: a tile of {shapes[(r, c)]} in a grid whose row {r} is {heights[r]} high and column "
                f"{c} {widths[c]} wide"
            )
        if len(dtypes) > 1:
            raise ValueError(f"{path}: tiles of different dtypes {sorted(str(d) for d in dtypes)}")
        reads = {(r, c): (p, 0, shapes[(r, c)][0], 0, shapes[(r, c)][1]) for (r, c), p in tiles.items()}
        return grid(reads, heights, widths, dtypes.pop())
    h = numpy.load(path, mmap_mode="r")
    if h.ndim != 2:
        raise ValueError(f"{path}: the image must be 2-d, not {h.ndim}-d")
    if tile < 1:
        raise ValueError(f"--tile must be positive, not {tile}")
    rows = [(r, min(r + tile, h.shape[0])) for r in range(0, h.shape[0], tile)]
    cols = [(c, min(c + tile, h.shape[1])) for c in range(0, h.shape[1], tile)]
    reads = {(i, j): (path, *rr, *cc) for i, rr in enumerate(rows) for j, cc in enumerate(cols)}
    return grid(reads, [b - a for a, b in rows], [b - a for a, b in cols], h.dtype)


def run(x: Any, kappa: float = 3.0, threshold: float = 5.0, connectivity: int = 4) -> dict:
    """The pipeline over the mosaic ``x`` (a 2-D Dask array of cuprum chunks): the background, the
    threshold, the number of sources and their catalogue (NumPy arrays in label order), and each step's
    seconds."""
    from cuprum import dask as cpd

    if connectivity not in (4, 8):
        raise ValueError(f"connectivity must be 4 or 8, not {connectivity}")
    if not kappa > 0 or not threshold > 0:
        raise ValueError("kappa and threshold must be positive numbers")
    times = {}
    t = time.perf_counter()
    # The tiles are read once, into the workers' (GPUs') memory, and reused by every step (waited for, so
    # that the steps' times are their own).
    x = x.persist()
    if cpd._current_client() is not None:
        from distributed import wait

        wait(x)
    times["load"] = time.perf_counter() - t
    t = time.perf_counter()
    bg = cpd.kappa_sigma(x, kappa)
    times["background"] = time.perf_counter() - t
    thr = threshold * bg["std"]
    n, cat, seconds = cpd.catalogue(x, thr, 1 if connectivity == 4 else 2)
    times.update(seconds)
    cat["id"] = numpy.arange(1, n + 1)
    return {"background": bg, "threshold": thr, "n_sources": n, "catalogue": cat, "seconds": times}


def _rust_exp(v: float) -> str:
    """Rust's ``{:.6e}`` (``1.234567e-3``), so that the catalogue reads as ``cuprum-sky``'s."""
    mantissa, exp = f"{v:.6e}".split("e")
    return f"{mantissa}e{int(exp)}"


def catalogue_csv(cat: dict) -> str:
    lines = ["id,y,x,flux,npix,peak"]
    for i in range(len(cat["id"])):
        lines.append(
            f"{cat['id'][i]},{cat['y'][i]:.4f},{cat['x'][i]:.4f},{_rust_exp(cat['flux'][i])},"
            f"{cat['npix'][i]},{_rust_exp(cat['peak'][i])}"
        )
    return "\n".join(lines) + "\n"


def main(argv: list | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cuprum.sky", description=__doc__.split("\n\n")[0])
    p.add_argument("--mosaic", required=True, help="one .npy image, or a directory of *_r<row>_c<col>.npy tiles")
    p.add_argument("--tile", type=int, default=4096, help="tile size for one image (pixels)")
    p.add_argument("--gpus", default="all", help="all, none, or GPU numbers (0,1,...)")
    p.add_argument("--cpu-workers", type=int, default=0, help="CPU worker processes instead of GPUs")
    p.add_argument("--scheduler", help="the address of a running Dask scheduler (workers on other machines)")
    p.add_argument("--kappa", type=float, default=3.0)
    p.add_argument("--threshold", type=float, default=5.0, help="in units of the clipped std")
    p.add_argument("--connectivity", type=int, default=4, choices=(4, 8))
    p.add_argument("--out", default="sky-out", help="directory for catalogue.csv")
    a = p.parse_args(argv)
    try:
        return _main(a)
    except (OSError, ValueError, TypeError) as e:
        print(f"python -m cuprum.sky: {e}", file=sys.stderr)
        return 2


def _main(a: argparse.Namespace) -> int:
    import dask

    if not a.kappa > 0 or not a.threshold > 0:
        raise ValueError(f"--kappa and --threshold must be positive numbers (got {a.kappa}, {a.threshold})")
    if not os.path.exists(a.mosaic):
        raise FileNotFoundError(f"{a.mosaic}: no such file or directory")

    from cuprum import dask as cpd

    cluster = None
    if a.scheduler:
        pass  # a cluster started elsewhere (docs/many-machines.md)
    elif a.cpu_workers > 0:
        cluster = cpd.gpu_cluster(a.cpu_workers, gpus=[])
    elif a.gpus != "none" and cuprum.cuda.is_available():
        gpus = None if a.gpus == "all" else [int(g) for g in a.gpus.split(",")]
        cluster = cpd.gpu_cluster(gpus=gpus)
    client = None
    try:
        if cluster is not None or a.scheduler:
            from distributed import Client

            client = cpd.low_latency(Client(a.scheduler or cluster))
            where = f"{len(client.scheduler_info()['workers'])} worker(s)"
        else:
            where = f"this process ({cuprum.cuda.Device()})"
        x = load_mosaic(a.mosaic, a.tile)
        print(f"mosaic {x.shape[0]}x{x.shape[1]} {x.dtype}, {x.numblocks[0]}x{x.numblocks[1]} tiles, on {where}")
        with dask.config.set(scheduler="threads") if client is None else contextlib.nullcontext():
            r = run(x, a.kappa, a.threshold, a.connectivity)
        bg = r["background"]
        print(f"background: median {bg['median']:.6g}, std {bg['std']:.6g} over {bg['count']} pixels")
        print(f"threshold {r['threshold']:.6g}: {r['n_sources']} sources")
        for k, s in r["seconds"].items():
            print(f"  {k}: {s:.3f} s")
        os.makedirs(a.out, exist_ok=True)
        out = os.path.join(a.out, "catalogue.csv")
        with open(out, "w") as f:
            f.write(catalogue_csv(r["catalogue"]))
        print(f"wrote {out}")
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
