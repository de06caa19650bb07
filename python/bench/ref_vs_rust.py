#!/usr/bin/env python3
"""cuprum from Python beside cuprum from Rust, workload by workload (issue 34's 10% check).

    python/bench/ref_vs_rust.py PYTHON.jsonl RUST.jsonl [CUPY.jsonl]

PYTHON.jsonl is what the copy of cupy_reference.py made by scripts/cuprum-ref.py wrote (its GPU column
is named ``cupy_ms`` because the script is CuPy's, but it timed cuprum), RUST.jsonl what cuprum-bench
wrote in the same call (``cuprum_ms``), CUPY.jsonl (optional) what cupy_reference.py wrote. Prints one row
per workload in both: the two times, their ratio (Python / Rust; at most 1.10 passes), and with CuPy's
file the lead over CuPy from Python and from Rust; then the count within 10% and the geometric means.
"""

import json
import math
import sys


def rows(path, key):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                if r.get(key) is not None:
                    out[r["name"]] = r
    return out


def main():
    py = rows(sys.argv[1], "cupy_ms")
    rust = rows(sys.argv[2], "cuprum_ms")
    cupy = rows(sys.argv[3], "cupy_ms") if len(sys.argv) > 3 else {}
    # CuPy's ElementwiseKernel rows are CUDA C source kernels: from Rust those are the `_source` rows
    # (the rows without the suffix time kernels written in Rust).
    pair = {n: (n + "_source" if n + "_source" in rust else n) for n in py}
    names = [n for n in py if pair[n] in rust]
    head = f"{'workload':40} {'rust ms':>10} {'python ms':>10} {'py/rust':>8}"
    if cupy:
        head += f" {'cupy ms':>10} {'cupy/py':>8} {'cupy/rust':>9}"
    print(head)
    ok, ratios, lead_py, lead_rust = 0, [], [], []
    for n in names:
        r, p = rust[pair[n]]["cuprum_ms"], py[n]["cupy_ms"]
        ratio = p / r if r > 0 else math.inf
        ratios.append(ratio)
        ok += ratio <= 1.10
        label = n if pair[n] == n else f"{n} (rust: _source)"
        line = f"{label:40} {r:10.4f} {p:10.4f} {ratio:8.3f}{'' if ratio <= 1.10 else ' *'}"
        if n in cupy:
            c = cupy[n]["cupy_ms"]
            lead_py.append(c / p)
            lead_rust.append(c / r)
            line += f" {c:10.4f} {c / p:8.2f} {c / r:9.2f}"
        print(line)

    def gmean(v):
        return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")

    missing = sorted(set(rust) - {pair[n] for n in names})
    print(
        f"\n{ok} of {len(names)} workloads within 10% of the Rust bench (* marks the others); "
        f"geometric mean python/rust {gmean(ratios):.3f}"
    )
    if cupy:
        print(
            f"lead over CuPy (geometric mean over {len(lead_py)} rows): from Python {gmean(lead_py):.2f}x, "
            f"from Rust {gmean(lead_rust):.2f}x"
        )
    if missing:
        print(f"rows only in the Rust bench ({len(missing)}): {', '.join(missing)}")


if __name__ == "__main__":
    main()
