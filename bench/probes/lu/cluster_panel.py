"""The LU panel across a thread-block cluster (`lu_panel_cluster` of cuprum's `blocked_lu.cu`, and the
alternative in `cluster_panel.cu`, appended to it) on panels taller than one block holds: checked against SciPy's getrf of the same
panel (pivots exactly, factors to rounding), then timed (CUDA events, the panel restored from a
copy before each launch, the copy's time taken off) per panel height, beside cuprum's one-block
`lu_panel` at 512 rows. The sum over a whole factorization's panels is the projection to set
against cuSOLVER's getrf_pivot time (`getrf_profile.py`).

    python3 bench/probes/lu/cluster_panel.py      (from the repository root, on the GPU host; it
    imports probe.py's setup and graph timer)
"""

import os

import cupy as cp
import numpy as np
import scipy.linalg
from probe import CUDA, INC, NB, PRELUDE, r32, timed

HERE = os.path.dirname(os.path.abspath(__file__))
CL = 8
# Threads a block at most: a row a thread in registers (float64: 128 registers each).
MAXT = {"double": 512, "float": 768}


def module(ty):
    body = open(os.path.join(CUDA, "blocked_lu.cu")).read() + open(os.path.join(HERE, "cluster_panel.cu")).read()
    src = PRELUDE + f"typedef {ty} elem_t;\ntypedef {ty} real_t;\n" + body
    opts = (
        "-I" + INC,
        f"-DNB={NB}",
        "-DW=4",
        "-DMIDMAX=512",
        f"-DCL={CL}",
        f"-DMAXT={MAXT[ty]}",
        "-DOB=256",
        "-std=c++17",
    )
    return cp.RawModule(code=src, options=opts)


BUF = {}


def run_panel(mod, w, n, k, cluster, entry="lu_panel_cluster"):
    """One panel (columns k .. k+31) of the n x n column-major matrix w (flat); returns ipiv.
    The pivots, info and row map are allocated once per n (no allocation inside a timed graph)."""
    if n not in BUF:
        BUF[n] = (cp.zeros(n, cp.int64), cp.zeros(1, cp.int32), cp.arange(n, dtype=cp.int32))
    ipiv, info, src = BUF[n]
    rows = n - k
    if cluster:
        rpc = (rows + CL - 1) // CL
        mod.get_function(entry)(
            (CL,), (r32(rpc),), (w, np.int32(n), np.int64(n * n), np.int32(k), np.int32(rpc), ipiv, info, src)
        )
    else:
        mod.get_function("lu_panel")(
            (1, 1), (r32(rows),), (w, np.int32(n), np.int64(n * n), np.int32(k), ipiv, info, src)
        )
    return ipiv


def check(mod, ty, n, entry):
    rng = np.random.default_rng(n)
    dt = np.float32 if ty == "float" else np.float64
    a = rng.standard_normal((n, n)).astype(dt)
    w = cp.asarray(np.asfortranarray(a)).ravel(order="F")
    ipiv = run_panel(mod, w, n, 0, True, entry).get().copy()
    got = w.get().reshape(n, n, order="F")[:, :NB]
    lu, piv = scipy.linalg.lu_factor(a[:, :NB].astype(np.float64))
    same_piv = np.array_equal(ipiv[:NB] - 1, piv)
    err = np.abs(got - lu).max() / np.abs(lu).max()
    print(
        f"check {entry} {ty} {n} x {NB}: pivots {'equal' if same_piv else 'DIFFER'}, max |factors - scipy| / max = {err:.2e}"
    )
    # Ties and a zero column below the diagonal: the first row of largest magnitude, as LAPACK's.
    t = np.floor(rng.random((n, NB)) * 3 - 1).astype(dt)
    t[:, 5] = 0
    wt = cp.asarray(np.asfortranarray(np.hstack([t, np.zeros((n, n - NB), dt)]))).ravel(order="F")
    ipiv = run_panel(mod, wt, n, 0, True, entry).get()
    lu, piv = scipy.linalg.lu_factor(t.astype(np.float64), check_finite=False)
    got = wt.get().reshape(n, n, order="F")[:, :NB]
    print(
        f"  ties and a zero column: pivots {'equal' if np.array_equal(ipiv[:NB] - 1, piv) else 'DIFFER'}, "
        f"max |factors - scipy| = {np.abs(got - lu).max():.2e}"
    )


def timing(mod, ty, n, entry):
    dt = np.float32 if ty == "float" else np.float64
    a = cp.asarray(np.asfortranarray(np.random.default_rng(1).standard_normal((n, n)).astype(dt))).ravel(order="F")
    w = a.copy()
    total = 0.0
    heights = []
    for k in (0, n // 2, 3 * n // 4, n - 512):
        rows = n - k
        seg = slice(k * n, (k + NB) * n)

        def restore(seg=seg):
            w[seg] = a[seg]

        cpy = timed(restore, inner=10)
        ms = timed(lambda k=k: (restore(), run_panel(mod, w, n, k, True, entry)), inner=10) - cpy
        heights.append((rows, ms))
        line = f"  {entry} {ty} rows {rows:5d}: {ms * 1e3:7.1f} us ({ms * 1e3 / NB:5.2f} us a column)"
        if rows == 512:
            one = timed(lambda k=k: (restore(), run_panel(mod, w, n, k, False)), inner=10) - cpy
            line += f"; one-block lu_panel {one * 1e3:7.1f} us"
        print(line)
    # The panels of a whole n x n factorization, by the measured heights (linear between them).
    hs = sorted(heights)
    for k in range(0, n, NB):
        rows = n - k
        total += float(np.interp(rows, [h for h, _ in hs], [t for _, t in hs]))
    print(f"  all {n // NB} panels of {n} x {n} {ty} (interpolated): {total:.2f} ms")


for ty, n in (("double", 4096), ("float", 6000)):
    mod = module(ty)
    for entry in ("lu_panel_cluster", "lu_panel_cluster2"):
        check(mod, ty, n, entry)
        if not os.environ.get("CHECK_ONLY"):  # CHECK_ONLY=1: the checks alone (under racecheck)
            timing(mod, ty, n, entry)
