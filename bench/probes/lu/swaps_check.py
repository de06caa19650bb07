"""The tall LU's interchange kernels (`lu_swap_list`, `lu_swap_apply` of blocked_lu.cu) and the
inverse's permutation and gather (`lu_perm`, `inv_gather` of inv.cu) against NumPy on pivots as
getrf writes them (ipiv[j] - 1 >= j, 1-based), ties to the same row included: written to run
under compute-sanitizer's racecheck, which the suite's tests cannot do in time (they call cuBLAS).

    python3 bench/probes/lu/swaps_check.py      (from the repository root, on the GPU host)
"""

import os

import cupy as cp
import numpy as np
from probe import CUDA, INC, NB, PRELUDE

OB = 512


def module(name, ty, extra=()):
    src = PRELUDE + f"typedef {ty} elem_t;\ntypedef {ty} real_t;\n" + open(os.path.join(CUDA, name)).read()
    opts = ("-I" + INC, f"-DNB={NB}", "-DW=4", "-DMIDMAX=512", f"-DOB={OB}", "-std=c++17", *extra)
    return cp.RawModule(code=src, options=opts)


def pivots(rng, n, k0, k1):
    """getrf's pivots for positions k0 .. k1-1: row j swapped with a row at or below it, often itself."""
    p = np.arange(n, dtype=np.int64)
    for j in range(k0, k1):
        r = rng.random()
        p[j] = j if r < 0.2 else (min(j + 1, n - 1) if r < 0.3 else rng.integers(j, n))
    return p + 1


def swapped(b, ipiv, k0, k1, cols):
    """NumPy: the interchanges ipiv[k0..k1) in order on the columns `cols` of column-major b (n x n)."""
    out = b.copy()
    for j in range(k0, k1):
        p = ipiv[j] - 1
        tmp = out[j, cols].copy()
        out[j, cols] = out[p, cols]
        out[p, cols] = tmp
    return out


rng = np.random.default_rng(int.from_bytes(os.urandom(4), "little"))
ok = True
for ty, dt in (("double", np.float64), ("float", np.float32)):
    mod = module("blocked_lu.cu", ty, ("-DCL=8", "-DMAXT=512" if ty == "double" else "-DMAXT=768"))
    k_list, k_apply = mod.get_function("lu_swap_list"), mod.get_function("lu_swap_apply")
    for n, k0, k1 in ((600, 0, 256), (700, 0, 512), (1100, 512, 1024), (1100, 1024, 1100), (4096, 3584, 4096)):
        ipiv = pivots(rng, n, k0, k1)
        b = rng.standard_normal((n, n)).astype(dt)  # b[i, j]: row i, column j
        lst = cp.zeros(1 + 4 * OB, cp.int32)
        k_list((1,), (256,), (cp.asarray(ipiv), np.int32(n), np.int32(k0), np.int32(k1), lst), shared_mem=(n - k0) * 4)
        c0, c1, c2 = 0, k0, k1
        cols = (c1 - c0) + (n - c2)
        w = cp.asarray(np.asfortranarray(b)).ravel(order="F")
        if cols:
            k_apply((cols,), (256,), (w, np.int32(n), lst, np.int32(c0), np.int32(c1), np.int32(c2)))
        got = w.get().reshape(n, n, order="F")
        want = swapped(b, ipiv, k0, k1, np.r_[0:k0, k1:n])
        same = np.array_equal(got, want)
        ok &= same
        print(
            f"lu_swap_list/apply {ty} n {n} pivots {k0}..{k1}: {int(lst[0].get())} moves, "
            f"{'equal' if same else 'DIFFER'}"
        )
    mod = module("inv.cu", ty)
    k_perm, k_gather = mod.get_function("lu_perm"), mod.get_function("inv_gather")
    for n, batch in ((300, 3), (1100, 1), (12289, 1)):
        ipiv = np.stack([pivots(rng, n, 0, n) for _ in range(batch)])
        perm = cp.zeros((batch, n), cp.int32)
        shared = n <= 12288
        k_perm(
            (batch,), (256,), (cp.asarray(ipiv), np.int32(n), perm, np.int32(shared)), shared_mem=n * 4 if shared else 0
        )
        want = np.stack([np.arange(n)] * batch)
        for m in range(batch):
            for i in range(n):
                k = ipiv[m, i] - 1
                want[m, [i, k]] = want[m, [k, i]]
        same = np.array_equal(perm.get(), want)
        line = (
            f"lu_perm {ty} n {n} x {batch} ({'shared' if shared else 'global'} memory): {'equal' if same else 'DIFFER'}"
        )
        if n <= 1100:
            x = cp.asarray(rng.standard_normal((batch, n, n)).astype(dt))
            out = cp.zeros_like(x)
            k_gather((n, batch), (256,), (x, perm, out, np.int32(n)))
            # row perm[k] of out = column k of X (X column-major: its column k is x[m, k, :])
            g = np.empty((batch, n, n), dt)
            xh, ph = x.get(), perm.get()
            for m in range(batch):
                g[m][ph[m]] = xh[m]
            gs = np.array_equal(out.get(), g)
            same &= gs
            line += f"; inv_gather {'equal' if gs else 'DIFFER'}"
        ok &= same
        print(line)
print("swaps_check:", "all equal" if ok else "SOME DIFFER")
