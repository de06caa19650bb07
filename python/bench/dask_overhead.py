"""Dask's own costs around cuprum chunks (issue 36: the numbers behind the many-machines estimate in docs/):
the latency of one small computation (submit, run, gather), the cost per task of a wide graph of empty tasks,
and the cost of moving a chunk between workers (serialize, transfer, deserialize on the other device). One
JSON line per measurement::

    python python/bench/dask_overhead.py [--workers 2] [--gpus] [--mb 64] [--repeat 20]

``--gpus``: one worker per GPU (``cuprum.dask.gpu_cluster``); otherwise CPU worker processes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np


def median_time(f, repeat: int) -> float:
    f()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def _noop(x=None):
    return x


def _chunk(nbytes: int):
    import cuprum as cp

    return cp.zeros(nbytes // 8, dtype=np.float64)


def _nbytes(a) -> int:
    return int(a.nbytes)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--gpus", action="store_true")
    p.add_argument("--mb", type=int, default=64)
    p.add_argument("--repeat", type=int, default=20)
    a = p.parse_args()
    import dask
    from distributed import Client

    import cuprum.dask as cpd

    cluster = cpd.gpu_cluster(gpus=list(range(a.workers))) if a.gpus else cpd.gpu_cluster(a.workers, gpus=[])
    with cluster, Client(cluster) as c:
        c.wait_for_workers(a.workers)
        workers = sorted(c.scheduler_info()["workers"])
        rec = {"workers": len(workers), "gpus": a.gpus}

        t = median_time(lambda: dask.compute(dask.delayed(_noop)(1)), a.repeat)
        print(json.dumps({**rec, "name": "one_task_roundtrip_s", "seconds": t}), flush=True)
        # A step as cuprum.dask's statistics take one: one task a worker, gathered; Dask's message batching
        # as it comes, then shortened (cuprum.dask.low_latency).
        for low in (False, True):
            if low:
                cpd.low_latency(c)

            def step() -> None:
                c.gather([c.submit(_noop, i, workers=[w], pure=False) for i, w in enumerate(workers)])

            t = median_time(step, a.repeat)
            print(json.dumps({**rec, "name": "step_one_task_a_worker_s", "low_latency": low, "seconds": t}), flush=True)
        for n in [100, 1000]:
            t = median_time(
                lambda n=n: dask.compute(*[dask.delayed(_noop)(i) for i in range(n)]), max(3, a.repeat // 5)
            )
            print(json.dumps({**rec, "name": "per_task_s", "tasks": n, "seconds": t / n}), flush=True)
        if len(workers) >= 2:
            nbytes = a.mb << 20

            def run(reader: str) -> None:
                # A fresh chunk on the first worker, its size read on `reader`: with the second worker the
                # chunk travels (serialized, sent, rebuilt on that worker's device); with the first it does not.
                f = c.submit(_chunk, nbytes, workers=[workers[0]], pure=False)
                g = c.submit(_nbytes, f, workers=[reader], pure=False)
                assert g.result() == nbytes

            t_local = median_time(lambda: run(workers[0]), max(3, a.repeat // 5))
            t_move = median_time(lambda: run(workers[1]), max(3, a.repeat // 5))
            moved = max(t_move - t_local, 1e-9)
            print(
                json.dumps(
                    {
                        **rec,
                        "name": "move_chunk_between_workers",
                        "mb": a.mb,
                        "seconds": moved,
                        "gb_per_s": nbytes / moved / 1e9,
                    }
                ),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
