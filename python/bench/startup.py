#!/usr/bin/env python3
"""Start-up costs from Python, each in a fresh process (issue 34: ``import cuprum`` under 100 ms, the
first GPU call as cold as the Rust side's, which cuprum-bench's ``first_call_new_kernel`` and
``first_call_cached_kernel`` rows time with the same expression):

- ``py_import_numpy`` / ``py_import_cuprum``: wall time of the import statement (median of 7 processes;
  cuprum imports NumPy, so the difference is cuprum's own);
- ``py_first_call_new_kernel``: ``sin(cos(arange(10, float16)))`` read back, the device already set up
  (an ``arange`` and a synchronize before the clock starts), with an empty kernel cache (NVRTC compiles);
- ``py_first_call_cached_kernel``: the same in a new process whose kernel cache on disk is filled.

    python/bench/startup.py [--out FILE]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

IMPORT = "import time; t = time.perf_counter(); import {m}; print((time.perf_counter() - t) * 1e3)"
FIRST = """
import time, cuprum as cp
x = cp.arange(10, dtype=cp.float16)
cp.cuda.Device().synchronize()
t = time.perf_counter()
cp.sin(cp.cos(x)).get()
print((time.perf_counter() - t) * 1e3)
"""


def child(code, env=None):
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return float(r.stdout.strip().splitlines()[-1])


def main():
    cli = argparse.ArgumentParser()
    cli.add_argument("--out")
    args = cli.parse_args()
    rows = []
    for m in ("numpy", "cuprum"):
        child(IMPORT.format(m=m))  # the files into the page cache
        ts = [child(IMPORT.format(m=m)) for _ in range(7)]
        rows.append(
            {"name": f"py_import_{m}", "cuprum_ms": round(statistics.median(ts), 2), "note": f"min {min(ts):.2f} ms"}
        )
    import cuprum

    if cuprum.cuda.is_available():
        cache = tempfile.mkdtemp(prefix="cuprum-startup-cache-")
        env = dict(os.environ, CUPRUM_CACHE_DIR=cache)
        rows.append(
            {
                "name": "py_first_call_new_kernel",
                "cuprum_ms": round(child(FIRST, env), 2),
                "note": "host wall time, cold kernel cache: sin(cos(arange(10, float16)))",
            }
        )
        rows.append(
            {
                "name": "py_first_call_cached_kernel",
                "cuprum_ms": round(child(FIRST, env), 2),
                "note": "host wall time in a new process, kernels on disk, context already created",
            }
        )
        shutil.rmtree(cache, ignore_errors=True)
    out = open(args.out, "w") if args.out else None
    for r in rows:
        print(json.dumps(r))
        if out:
            out.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
