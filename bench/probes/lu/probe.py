"""The blocked LU and QR kernels (crates/cuprum/src/linalg/cuda/blocked_*.cu) driven from CuPy
as linalg/cuda/blocked.rs drives them, so that a kernel change is timed on the device without
rebuilding the Rust bundle: checks against NumPy, then the time of each stage (CUDA events,
median of 20) beside CuPy's det and qr.

    python3 bench/probes/lu/probe.py [n]      (run from the repository root)
"""

import ctypes
import glob
import os
import sys

import cupy as cp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import evtime  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
CUDA = os.path.join(ROOT, "crates", "cuprum", "src", "linalg", "cuda")
HEADERS = os.path.abspath(os.path.join(ROOT, "crates", "cuprum", "src", "backend", "cuda", "include"))
# The kernels include "cuprum/<name>.cuh" (cuprum embeds the headers under that name).
INC = os.path.join(os.environ.get("TMPDIR", "/tmp"), "cuprum-probe-include")
os.makedirs(INC, exist_ok=True)
if not os.path.exists(os.path.join(INC, "cuprum")):
    os.symlink(HEADERS, os.path.join(INC, "cuprum"))
NB, W, MIDMAX = 32, 4, 512
PRELUDE = "".join(f'#include "cuprum/{h}.cuh"\n' for h in ("prelude", "float16", "numpy_math", "complex", "special"))


def _cublas():
    """cuBLAS through ctypes (the library CuPy loaded): CuPy's bindings refuse calls while a
    stream is captured, which `timed` does."""
    import cupy_backends.cuda.libs.cublas  # noqa: F401  (loads the library)

    for line in open("/proc/self/maps"):
        if "libcublas.so" in line:
            return ctypes.CDLL(line.split()[-1])
    return ctypes.CDLL(sorted(glob.glob("/usr/local/cuda*/lib64/libcublas.so*"))[-1])


CUBLAS = _cublas()
P = ctypes.c_void_p


def ok(status):
    assert status == 0, f"cuBLAS status {status}"


def module(name, ty, path=None):
    body = open(path or os.path.join(CUDA, name)).read()
    src = PRELUDE + f"typedef {ty} elem_t;\ntypedef {ty} real_t;\n" + body
    return cp.RawModule(
        code=src, options=("-I" + INC, f"-DNB={NB}", f"-DW={W}", f"-DMIDMAX={MIDMAX}", "-DOB=256", "-std=c++17")
    )


def r32(x):
    return (x + 31) // 32 * 32


def timed(f, reps=20, inner=1, priority=None):
    """GPU time of one call of f (`inner` calls captured into a CUDA graph, so that Python's
    launch costs leave no gaps), median of `reps` replays, in ms; the capturing stream of the
    given priority (lower is more urgent) or the default."""
    stream = cp.cuda.Stream(non_blocking=True, priority=priority)
    with stream:
        f()
        stream.synchronize()
        stream.begin_capture()
        for _ in range(inner):
            f()
        graph = stream.end_capture()
        ts = []
        for _ in range(reps):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record(stream)
            graph.launch(stream)
            b.record(stream)
            b.synchronize()
            ts.append(cp.cuda.get_elapsed_time(a, b) / inner)
    return float(np.median(ts))


def timed_plain(f):
    """CuPy's own calls, launched from Python (no graph): one warm-up, median of 20."""
    return evtime.median_ms(f, rep=20, warm=1)


def lu(mod, w, stages=("panel", "update")):
    batch, n, _ = w.shape
    ipiv = cp.zeros((batch, n), cp.int64)
    info = cp.zeros((batch,), cp.int32)
    src = cp.broadcast_to(cp.arange(n, dtype=cp.int32), (batch, n)).copy()  # valid for an update alone
    panel, update = mod.get_function("lu_panel"), mod.get_function("lu_update")
    for k in range(0, n, NB):
        nbk = min(NB, n - k)
        if "panel" in stages:
            panel((1, batch), (r32(n - k),), (w, np.int32(n), np.int64(n * n), np.int32(k), ipiv, info, src))
        if n - nbk > 0 and "update" in stages:
            update(
                ((n - nbk + W - 1) // W, batch),
                (min(max(r32(n - k - nbk), 32), MIDMAX),),
                (w, np.int32(n), np.int64(n * n), np.int32(k), src),
            )
    return ipiv, info


def qr(mod, w, qcols, stages=("panel", "apply", "orgqr")):
    batch, n, m = w.shape
    kk = min(m, n)
    panels = (kk + NB - 1) // NB
    t = cp.zeros((batch, panels, NB, NB), w.dtype)
    panel, apply = mod.get_function("qr_panel"), mod.get_function("qr_apply")
    isz = w.dtype.itemsize

    def app(v, tp, x, xstride, k, nbk, c0, c1, trans):
        apply(
            ((c1 - c0 + W - 1) // W, batch),
            (r32(m - k),),
            (
                v,
                np.int64(n * m),
                tp,
                np.int64(panels * NB * NB),
                x,
                np.int64(xstride),
                np.int32(m),
                np.int32(k),
                np.int32(nbk),
                np.int32(c0),
                np.int32(c1),
                np.int32(trans),
            ),
        )

    for pi, k in enumerate(range(0, kk, NB)):
        nbk = min(NB, kk - k)
        tp = np.uint64(t.data.ptr + pi * NB * NB * isz)
        if "panel" in stages:
            panel(
                (1, batch),
                (MIDMAX,),
                (w, np.int32(m), np.int32(n), np.int64(n * m), np.int32(k), tp, np.int64(panels * NB * NB)),
            )
        if k + nbk < n and "apply" in stages:
            app(w, tp, w, n * m, k, nbk, k + nbk, n, 1)
    q = None
    if "orgqr" in stages:
        q = cp.zeros((batch, qcols, m), w.dtype)
        q[:, cp.arange(min(qcols, m)), cp.arange(min(qcols, m))] = 1
        for pi, k in reversed(list(enumerate(range(0, kk, NB)))):
            nbk = min(NB, kk - k)
            app(w, np.uint64(t.data.ptr + pi * NB * NB * isz), q, qcols * m, k, nbk, k, qcols, 0)
    return q


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 512
    # LU, float32 (det_512_f32's input); LU_CU (QR_CU): another source of the kernels.
    lty = os.environ.get("LU_TY", "float")
    mod = module("blocked_lu.cu", lty, os.environ.get("LU_CU"))
    A = np.random.default_rng(5).standard_normal((n, n)).astype(np.float32 if lty == "float" else np.float64)
    w = cp.asarray(A)[None].copy()
    ipiv, info = lu(mod, w)
    f = w[0].get().T  # the column-major factors of A^T, as a row-major matrix
    d = np.diag(f).astype(np.float64)
    sign = (-1) ** (int(np.sum(ipiv.get()[0] != np.arange(1, n + 1))) + int(np.sum(d < 0)))
    want = np.linalg.slogdet(A.astype(np.float64))
    print(f"lu {n} {lty}: sign {sign} vs {want[0]:+.0f}, logdet {np.sum(np.log(np.abs(d))):.4f} vs {want[1]:.4f}")
    wa = cp.asarray(A)[None]
    for st in (("panel", "update"), ("panel",), ("update",)):
        ms = timed(lambda: lu(mod, wa.copy(), st))
        print(f"  lu stages {'+'.join(st):14s} {ms * 1e3:8.1f} us (with a {n}x{n} copy)")
    print(f"  cupy det {timed_plain(lambda: cp.linalg.det(wa[0])) * 1e3:8.1f} us")
    # QR, float64 (qr_512_f64's input).
    qty = os.environ.get("QR_TY", "double")
    mod = module("blocked_qr.cu", qty, os.environ.get("QR_CU"))
    Q = np.random.default_rng(4).standard_normal((n, n)).astype(np.float64 if qty == "double" else np.float32)
    w = cp.asarray(np.ascontiguousarray(Q.T))[None].copy()  # column-major Q
    q = qr(mod, w, n)
    R = np.triu(w[0].get().T)
    qn = q[0].get().T
    rq, rr = np.linalg.qr(Q)
    print(
        f"qr {n} {qty}: |R - R_np| / |R| = {np.linalg.norm(R - rr) / np.linalg.norm(rr):.2e}, "
        f"|Q - Q_np| = {np.linalg.norm(qn - rq):.2e}, |QR - A| / |A| = {np.linalg.norm(qn @ R - Q) / np.linalg.norm(Q):.2e}"
    )
    wq = cp.asarray(np.ascontiguousarray(Q.T))[None]
    for st in (("panel", "apply", "orgqr"), ("panel",), ("apply",), ("orgqr",)):
        ms = timed(lambda: qr(mod, wq.copy(), n, st))
        print(f"  qr stages {'+'.join(st):18s} {ms * 1e3:8.1f} us (with a copy)")
    print(f"  cupy qr {timed_plain(lambda: cp.linalg.qr(wq[0].T)) * 1e3:8.1f} us")


if __name__ == "__main__":
    main()
