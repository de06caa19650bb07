"""cuprum's tall LU (linalg/cuda/blocked.rs `getrf_tall`: cluster panels, outer steps of OB
columns, cuBLAS trsm and gemm; OB is 256 here by default, the width the variants below were
first timed at, and 512 in the library since `-ob512` measured faster) driven from CuPy as the
Rust code drives it, to split its time and to try changes before they are built into the
library: each variant is checked against
SciPy's getrf (pivots, and the backward error |P B - L U|, which holds whatever float32's ties
did), then timed as a CUDA graph (the matrix restored from a copy inside the graph, the copy's
time taken off; cuBLAS through ctypes, since CuPy's bindings refuse calls during a capture).

Variants: `rust` (the sixth session's library: per panel lu_swap_list, lu_swap_apply, trsm
and gemm on the rest of its outer step), `fused` (per panel `lu_step_u12`, the interchanges and
U12 in one launch, then the gemm: the library's since), `lookahead` (`fused`, and after each
outer step the next step's columns updated first, the rest of the trailing matrix on a side
stream with its own cuBLAS handle while the next step's panels run; `-prio`: the panels' stream
at the highest priority, `-smN`: the side handle's `cublasSetSmCountTarget(N)`, `-obN`: outer
steps of N columns), and for the split `panels` (the panel launches alone) and `no_inner` (panels
and the outer steps' work, no inner updates: wrong factors, timing only).

    python3 bench/probes/lu/tall_lu.py          (from the repository root, on the GPU host)
    CHECK_ONLY=1 python3 bench/probes/lu/tall_lu.py   (small orders, checks alone: racecheck)
"""

import ctypes
import os

import cupy as cp
import numpy as np
import scipy.linalg
from probe import CUBLAS, CUDA, INC, NB, PRELUDE, P, ok, r32, timed

CL, OB, W, MIDMAX = 8, 256, 4, 512
MAXT = {"double": 512, "float": 768}


def module(ty, ob=OB):
    body = open(os.path.join(CUDA, "blocked_lu.cu")).read()
    src = PRELUDE + f"typedef {ty} elem_t;\ntypedef {ty} real_t;\n" + body
    opts = (
        "-I" + INC,
        f"-DNB={NB}",
        f"-DW={W}",
        f"-DMIDMAX={MIDMAX}",
        f"-DCL={CL}",
        f"-DMAXT={MAXT[ty]}",
        f"-DOB={ob}",
        "-std=c++17",
    )
    return cp.RawModule(code=src, options=opts)


class Lu:
    def __init__(self, ty, n, ob=OB):
        self.ty, self.n, self.ob = ty, n, ob
        self.dt = np.float32 if ty == "float" else np.float64
        self.mod = module(ty, ob)
        f = self.mod.get_function
        self.k_one, self.k_cl, self.k_list, self.k_apply, self.k_u12 = (
            f("lu_panel"),
            f("lu_panel_cluster"),
            f("lu_swap_list"),
            f("lu_swap_apply"),
            f("lu_step_u12"),
        )
        self.ipiv = cp.zeros(n, cp.int64)
        self.info = cp.zeros(1, cp.int32)
        self.src = cp.zeros(n, cp.int32)
        self.list = cp.zeros(1 + 4 * ob, cp.int32)
        # cuBLAS through ctypes: CuPy's bindings refuse calls while a stream is captured.
        self.h = ctypes.c_void_p(cp.cuda.device.get_cublas_handle())
        c = ctypes.c_float if ty == "float" else ctypes.c_double
        self.one, self.m1 = c(1.0), c(-1.0)
        self.trsm_f = getattr(CUBLAS, "cublasStrsm_v2" if ty == "float" else "cublasDtrsm_v2")
        self.gemm_f = getattr(CUBLAS, "cublasSgemm_v2" if ty == "float" else "cublasDgemm_v2")
        # The look-ahead's side stream and its own handle (a handle's workspace serves one stream).
        self.side = cp.cuda.Stream(non_blocking=True)
        self.h_side = ctypes.c_void_p()
        ok(CUBLAS.cublasCreate_v2(ctypes.byref(self.h_side)))
        ok(CUBLAS.cublasSetStream_v2(self.h_side, P(self.side.ptr)))

    def at(self, w, i, j):
        return w.data.ptr + (i + j * self.n) * w.itemsize

    def trsm(self, w, m, cols, a, b, h=None):  # B := L^-1 B, unit lower, left, no transpose
        ok(self.trsm_f(h or self.h, 0, 0, 0, 1, m, cols, ctypes.byref(self.one), P(a), self.n, P(b), self.n))

    def gemm_sub(self, w, m, cols, k, a, b, c, h=None):
        one, m1 = ctypes.byref(self.one), ctypes.byref(self.m1)
        ok(self.gemm_f(h or self.h, 0, 0, m, cols, k, m1, P(a), self.n, P(b), self.n, one, P(c), self.n))

    def outer(self, w, kk, kb, c0, c1, h=None):
        """The outer step's U12 and trailing product on columns c0 .. c1-1 (its swaps applied)."""
        n = self.n
        self.trsm(w, kb, c1 - c0, self.at(w, kk, kk), self.at(w, kk, c0), h)
        self.gemm_sub(
            w, n - kk - kb, c1 - c0, kb, self.at(w, kk + kb, kk), self.at(w, kk, c0), self.at(w, kk + kb, c0), h
        )

    def run_lookahead(self, w):
        """Look-ahead by one outer step: after step s, its interchanges, U12 and product on the
        next step's columns on this stream, which goes on to factor them, while the side stream
        does the rest of the trailing matrix (waited for before step s + 1's own interchanges)."""
        n = self.n
        main = cp.cuda.get_current_stream()
        ok(CUBLAS.cublasSetStream_v2(self.h, P(main.ptr)))
        fork = cp.cuda.Event(disable_timing=True)
        fork.record(main)
        self.side.wait_event(fork)
        pending = None
        for kk in range(0, n, self.ob):
            kb = min(self.ob, n - kk)
            self.run_step(w, kk, kb, "fused")
            if pending is not None:
                main.wait_event(pending)
            nxt = min(self.ob, n - kk - kb)
            c_next = kk + kb + nxt
            self.k_list(
                (1,),
                (256,),
                (self.ipiv, np.int32(n), np.int32(kk), np.int32(kk + kb), self.list),
                shared_mem=(n - kk) * 4,
            )
            self.apply(w, (0, kk), (kk + kb, c_next))
            if nxt:
                self.outer(w, kk, kb, kk + kb, c_next)
            if c_next < n:
                e = cp.cuda.Event(disable_timing=True)
                e.record(main)
                self.side.wait_event(e)
                with self.side:
                    self.apply(w, (c_next, n), (n, n))
                self.outer(w, kk, kb, c_next, n, self.h_side)
                pending = cp.cuda.Event(disable_timing=True)
                pending.record(self.side)
        join = cp.cuda.Event(disable_timing=True)
        join.record(self.side)
        main.wait_event(join)

    def swaps(self, w, k0, k1, r1, r2):
        (c0, c1), (c2, c3) = r1, r2
        cols = (c1 - c0) + (c3 - c2)
        if cols == 0:
            return
        n = self.n
        self.k_list(
            (1,), (256,), (self.ipiv, np.int32(n), np.int32(k0), np.int32(k1), self.list), shared_mem=(n - k0) * 4
        )
        self.apply(w, r1, r2)

    def apply(self, w, r1, r2):
        """The interchange list on columns r1 and r2 ((first, end) each), on the current stream."""
        (c0, c1), (c2, c3) = r1, r2
        cols = (c1 - c0) + (c3 - c2)
        if cols:
            self.k_apply((cols,), (256,), (w, np.int32(self.n), self.list, np.int32(c0), np.int32(c1), np.int32(c2)))

    def run(self, w, variant):
        if variant == "lookahead":
            return self.run_lookahead(w)
        n = self.n
        ok(CUBLAS.cublasSetStream_v2(self.h, P(cp.cuda.get_current_stream().ptr)))
        for kk in range(0, n, self.ob):
            kb = min(self.ob, n - kk)
            self.run_step(w, kk, kb, variant)
            if variant == "panels":
                continue
            self.swaps(w, kk, kk + kb, (0, kk), (kk + kb, n))
            if kk + kb < n:
                self.outer(w, kk, kb, kk + kb, n)

    def run_step(self, w, kk, kb, variant):
        """The outer step's columns kk .. kk+kb-1 factored: its panels and their updates inside it."""
        n = self.n
        for k in range(kk, kk + kb, NB):
            nbk, rows = min(NB, n - k), n - k
            if rows > MIDMAX:
                rpc = (rows + CL - 1) // CL
                args = (w, np.int32(n), np.int64(n * n), np.int32(k), np.int32(rpc), self.ipiv, self.info, self.src)
                self.k_cl((CL,), (r32(rpc),), args)
            else:
                args = (w, np.int32(n), np.int64(n * n), np.int32(k), self.ipiv, self.info, self.src)
                self.k_one((1, 1), (r32(rows),), args)
            if variant in ("panels", "no_inner"):
                continue
            right = kk + kb - (k + nbk)
            if variant == "fused":
                cols = (k - kk) + right
                if cols:
                    args = (w, np.int32(n), np.int32(k), np.int32(kk), np.int32(k), np.int32(k + nbk), np.int32(cols))
                    self.k_u12(((cols + W - 1) // W,), (32 * W,), (*args, self.src))
            else:
                self.swaps(w, k, k + nbk, (kk, k), (k + nbk, kk + kb))
                if right > 0:
                    self.trsm(w, nbk, right, self.at(w, k, k), self.at(w, k, k + nbk))
            if right > 0:
                a21, u12, a22 = self.at(w, k + nbk, k), self.at(w, k, k + nbk), self.at(w, k + nbk, k + nbk)
                self.gemm_sub(w, n - k - nbk, right, nbk, a21, u12, a22)


def check(lu, variant, a):
    """Pivots against SciPy's getrf of the same matrix (in its precision) and the backward error
    max |P B - L U| / (n eps max |B|), which holds whatever the pivots' ties did."""
    n = lu.n
    w = cp.asarray(np.asfortranarray(a)).ravel(order="F")
    lu.run(w, variant)
    ipiv = lu.ipiv.get() - 1
    g = w.reshape(n, n, order="F").astype(cp.float64)
    ref, piv = scipy.linalg.lu_factor(a, check_finite=False)
    perm = np.arange(n)
    for j, p in enumerate(ipiv):
        perm[[j, p]] = perm[[p, j]]
    b = cp.asarray(a.astype(np.float64))[cp.asarray(perm)]
    lo = cp.tril(g, -1) + cp.eye(n)
    berr = float(cp.abs(b - lo @ cp.triu(g)).max()) / (n * np.finfo(lu.dt).eps * float(cp.abs(b).max()))
    same = int((ipiv == piv).sum())
    print(
        f"check {variant:6s} {lu.ty} {n}: pivots equal to scipy's {same}/{n}, backward error {berr:.3f} n eps, "
        f"info {int(lu.info.get()[0])}"
    )
    return ipiv


CHECKED = os.environ.get("CHECKED", "rust fused lookahead").split()


def checks(ty, n):
    rng = np.random.default_rng(n)
    dt = np.float32 if ty == "float" else np.float64
    lu = Lu(ty, n, int(os.environ.get("CHECK_OB", OB)))  # CHECK_OB: the outer steps' width checked
    a = rng.standard_normal((n, n)).astype(dt)
    p = [check(lu, v, a) for v in CHECKED]
    print(f"  {', '.join(CHECKED)}: pivots equal to the first's {[np.array_equal(p[0], q) for q in p[1:]]}")
    # Ties (entries in {-1, 0, 1}) move rows around more, and LAPACK's tie-break must hold.
    t = np.floor(rng.random((n, n)) * 3 - 1).astype(dt) + np.eye(n, dtype=dt) * 0.5
    p = [check(lu, v, t) for v in CHECKED]
    print(f"  {', '.join(CHECKED)}: pivots equal to the first's {[np.array_equal(p[0], q) for q in p[1:]]}")


VARIANTS = os.environ.get(
    "VARIANTS", "rust fused lookahead lookahead-prio panels no_inner rust fused lookahead"
).split()


def timing(ty, n):
    lu = Lu(ty, n)
    rng = np.random.default_rng(1)
    a = cp.asarray(np.asfortranarray(rng.standard_normal((n, n)).astype(lu.dt))).ravel(order="F")
    w = a.copy()

    def restore():
        w[...] = a

    cpy = timed(restore)
    out = {}
    by_ob = {OB: lu}
    for v in VARIANTS:
        # -prio: the main stream (panels) at the highest priority, the side stream at the default;
        # -smN: the side stream's cuBLAS handle told to size its grids for N SMs
        # (cublasSetSmCountTarget), leaving the others to the panels' cluster; -obN: outer
        # steps of N columns.
        prio = -5 if "-prio" in v else None
        sm = int(v.split("-sm")[1].split("-")[0]) if "-sm" in v else 0
        ok(CUBLAS.cublasSetSmCountTarget(lu.h_side, sm))
        ob = int(v.split("-ob")[1].split("-")[0]) if "-ob" in v else OB
        if ob not in by_ob:
            by_ob[ob] = Lu(ty, n, ob)
        name, x = v.split("-")[0], by_ob[ob]
        ms = timed(lambda name=name, x=x: (restore(), x.run(w, name)), priority=prio) - cpy
        out.setdefault(v, []).append(ms)
    ok(CUBLAS.cublasSetSmCountTarget(lu.h_side, 0))
    print(
        f"timing {ty} {n} (ms, graph replay, median of 20, the copy's {cpy:.3f} off): "
        + ", ".join(f"{v} {' / '.join(f'{x:.3f}' for x in ms)}" for v, ms in out.items())
    )


# CHECK_ONLY=1: small orders, the checks alone (for racecheck); TIMING_ONLY=1: no checks;
# SIZES="double:4096 float:6000": the timed orders; VARIANTS: the timed variants.
if os.environ.get("CHECK_ONLY"):
    for ty, n in (("double", 600), ("float", 700)):
        checks(ty, n)
else:
    if not os.environ.get("TIMING_ONLY"):
        for ty, n in (("double", 1100), ("double", 4096), ("float", 6000)):
            checks(ty, n)
    sizes = os.environ.get("SIZES", "double:1024 double:2048 double:4096 float:4096 float:6000").split()
    for ty, n in (x.split(":") for x in sizes):
        timing(ty, int(n))
