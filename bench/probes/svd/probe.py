"""svd_1024_f32 and eigh_1024_f32 by the routes cuSOLVER offers, timed on the GPU (CUDA events,
median of 5 after 2 warm-ups) and checked against NumPy in float64: gesvd (CuPy's), gesvdj in
float32 and in float64 (of the float32 input, at several tolerances, with the sweeps it took), and
syevd / syevj likewise. Decides which route the float32 rows can take without losing NumPy's
accuracy. Runs from the repo root on the device, no bundle needed."""
import functools
import os
import sys

import numpy as np
import cupy as cp
from cupy.cuda import device
from cupy_backends.cuda.libs import cusolver as S

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import evtime  # noqa: E402

# Five timed calls after two warm-ups: the slower routes take 100 ms a call.
median_ms = functools.partial(evtime.median_ms, rep=5, warm=2)

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
h = device.get_cusolver_handle()


rng = np.random.default_rng(0)
A = rng.standard_normal((N, N)).astype(np.float32)
s_ref = np.linalg.svd(A.astype(np.float64), compute_uv=False)
Ag = cp.asarray(A)


def report(name, ms, s, u=None, vt=None, extra=""):
    s = cp.asnumpy(s).astype(np.float64)
    es = np.max(np.abs(np.sort(s)[::-1] - s_ref)) / s_ref[0]
    line = "%-34s %8.2f ms  sv err %.2e" % (name, ms, es)
    if u is not None:
        u64, v64 = cp.asnumpy(u).astype(np.float64), cp.asnumpy(vt).astype(np.float64)
        rec = np.linalg.norm(u64 * s @ v64 - A) / np.linalg.norm(A)
        orth = np.linalg.norm(u64.T @ u64 - np.eye(N))
        line += "  rec %.2e  orthU %.2e" % (rec, orth)
    print(line + extra, flush=True)


# CuPy's gesvd (the bench's row)
ms = median_ms(lambda: cp.linalg.svd(Ag, full_matrices=False))
u, s, vt = cp.linalg.svd(Ag, full_matrices=False)
report("cupy gesvd f32", ms, s, u, vt)

for dt, tols in ((np.float32, (0.0,)), (np.float64, (0.0, 1e-10, 1e-8, 1e-7))):
    for tol in tols:
        for vec in (1, 0):
            p = S.createGesvdjInfo()
            if tol:
                S.xgesvdjSetTolerance(p, tol)
            S.xgesvdjSetMaxSweeps(p, 100)
            a = cp.asfortranarray(Ag.astype(dt))
            sv = cp.empty(N, dt)
            U = cp.empty((N, N), dt, order="F")
            V = cp.empty((N, N), dt, order="F")
            info = cp.empty(1, np.int32)
            pre = "s" if dt == np.float32 else "d"
            bs = getattr(S, pre + "gesvdj_bufferSize")(h, vec, 1, N, N, a.data.ptr, N, sv.data.ptr,
                                                       U.data.ptr, N, V.data.ptr, N, p)
            w = cp.empty(bs, dt)
            work = cp.empty_like(a)

            def run():
                work[...] = Ag  # the float32 input, cast to dt on the way in (counted)
                getattr(S, pre + "gesvdj")(h, vec, 1, N, N, work.data.ptr, N, sv.data.ptr, U.data.ptr, N,
                                           V.data.ptr, N, w.data.ptr, bs, info.data.ptr, p)
            ms = median_ms(run)
            sw = S.xgesvdjGetSweeps(h, p)
            res = S.xgesvdjGetResidual(h, p)
            name = "gesvdj %s tol %g vec %d" % (pre, tol, vec)
            if vec:
                report(name, ms, sv, U, V.T, "  sweeps %d res %.1e info %d" % (sw, res, int(info[0])))
            else:
                report(name, ms, sv, extra="  sweeps %d res %.1e" % (sw, res))
            S.destroyGesvdjInfo(p)

# eigh
B = rng.standard_normal((N, N)).astype(np.float32)
Sy = (B + B.T) / 2
w_ref = np.linalg.eigvalsh(Sy.astype(np.float64))
Sg = cp.asarray(Sy)


def rep_e(name, ms, w, v=None, extra=""):
    w = cp.asnumpy(w).astype(np.float64)
    e = np.max(np.abs(w - w_ref)) / np.max(np.abs(w_ref))
    line = "%-34s %8.2f ms  ev err %.2e" % (name, ms, e)
    if v is not None:
        v64 = cp.asnumpy(v).astype(np.float64)
        r = np.linalg.norm(Sy @ v64 - v64 * w) / np.linalg.norm(Sy)
        line += "  res %.2e" % r
    print(line + extra, flush=True)


ms = median_ms(lambda: cp.linalg.eigh(Sg))
w, v = cp.linalg.eigh(Sg)
rep_e("cupy syevd f32", ms, w, v)
S64 = Sg.astype(np.float64)
ms = median_ms(lambda: cp.linalg.eigh(S64))
w, v = cp.linalg.eigh(S64)
rep_e("cupy syevd f64", ms, w, v)
for dt, tols in ((np.float32, (0.0,)), (np.float64, (0.0, 1e-8))):
    for tol in tols:
        p = S.createSyevjInfo()
        if tol:
            S.xsyevjSetTolerance(p, tol)
        S.xsyevjSetMaxSweeps(p, 100)
        pre = "s" if dt == np.float32 else "d"
        a = cp.asfortranarray(Sg.astype(dt))
        wv = cp.empty(N, dt)
        info = cp.empty(1, np.int32)
        bs = getattr(S, pre + "syevj_bufferSize")(h, 1, 0, N, a.data.ptr, N, wv.data.ptr, p)
        ws = cp.empty(bs, dt)
        work = cp.empty_like(a)

        def run():
            cp.copyto(work, a)
            getattr(S, pre + "syevj")(h, 1, 0, N, work.data.ptr, N, wv.data.ptr, ws.data.ptr, bs,
                                      info.data.ptr, p)
        ms = median_ms(run)
        rep_e("syevj %s tol %g" % (pre, tol), ms, wv, work,
              "  sweeps %d" % S.xsyevjGetSweeps(h, p))
        S.destroySyevjInfo(p)
