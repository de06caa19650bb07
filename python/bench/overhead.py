"""Host overhead of small operations from Python, CuPy beside cuprum, timed the same way (each library's
``profiler.benchmark``: CPU = wall time of the call, GPU = device events). Prints a table and writes JSON
lines (``--out``) in the format of shared/bench's reference scripts.

    python3 python/bench/overhead.py [--repeat 2000] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import platform

import numpy as np


def cases(xp):  # noqa: ANN001, ANN201
    rng = np.random.default_rng(0)
    h = rng.random(1000, dtype=np.float32)
    x, y = xp.asarray(h), xp.asarray(h[::-1].copy())
    m = x > 0.5
    hl = h.astype(np.float64).tolist()
    return {
        "add_1000_f32": (lambda a, b: a + b, (x, y)),
        "sum_1000_f32": (lambda a: a.sum(), (x,)),
        "asarray_1000_floats": (lambda v: xp.asarray(v), (h,)),
        "asarray_list_1000": (lambda v: xp.asarray(v), (hl,)),
        "mask_1000_f32": (lambda a, b: a[b], (x, m)),
        "exp_1000_f32": (lambda a: xp.exp(a), (x,)),
        "item_0d": (lambda a: a[3].item(), (x,)),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=2000)
    ap.add_argument("--out")
    args = ap.parse_args()
    rows = []
    libs = []
    try:
        import cupy
        from cupyx.profiler import benchmark as cupy_bench

        libs.append(("cupy", cupy, cupy_bench))
    except ImportError:
        pass
    import cuprum
    from cuprumx.profiler import benchmark as cuprum_bench

    libs.append(("cuprum", cuprum, cuprum_bench))
    table = {}
    for lib, xp, bench in libs:
        for name, (f, a) in cases(xp).items():
            r = bench(f, a, n_repeat=args.repeat, n_warmup=50)
            cpu_us = float(np.median(r.cpu_times)) * 1e6
            gpu_us = float(np.median(r.gpu_times)) * 1e6
            table.setdefault(name, {})[lib] = (cpu_us, gpu_us)
            rows.append(
                {
                    "workload": name,
                    "library": lib,
                    "cpu_median_us": cpu_us,
                    "gpu_median_us": gpu_us,
                    "n_repeat": args.repeat,
                    "host": platform.node(),
                }
            )
    print(f"{'call':<22} {'CuPy CPU us':>12} {'cuprum CPU us':>14} {'CuPy GPU us':>12} {'cuprum GPU us':>14}")
    for name, d in table.items():
        c = d.get("cupy", (float("nan"),) * 2)
        p = d["cuprum"]
        print(f"{name:<22} {c[0]:>12.2f} {p[0]:>14.2f} {c[1]:>12.2f} {p[1]:>14.2f}")
    if args.out:
        with open(args.out, "w") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
