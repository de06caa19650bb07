"""Where cuSOLVER spends solve_4096_f64 and inv_6000_f32: the elapsed time of getrf and getrs alone
(CUDA events, median of 10), the kernels of one getrf (CUPTI through torch.profiler) grouped by
name, and the mixed-precision iterative-refinement solvers cuSOLVER offers for the 4096 float64
solve (LAPACK's dsgesv idea: factor in a lower precision, refine to a float64 backward error),
with their refinement count and their error against the float64 solve.

    python3 bench/probes/lu/getrf_profile.py      (on the GPU host)
"""

import os
import sys

import cupy as cp
import numpy as np
from cupy_backends.cuda.libs import cusolver

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import evtime  # noqa: E402

H = cp.cuda.device.get_cusolver_handle()


def getrf(a, kind):
    """In-place LU of the Fortran-ordered square `a`; returns (ipiv, info)."""
    n = a.shape[0]
    bs = getattr(cusolver, kind + "getrf_bufferSize")(H, n, n, a.data.ptr, n)
    work = cp.empty(bs, a.dtype)
    ipiv = cp.empty(n, cp.int32)
    info = cp.zeros(1, cp.int32)
    getattr(cusolver, kind + "getrf")(H, n, n, a.data.ptr, n, work.data.ptr, ipiv.data.ptr, info.data.ptr)
    return ipiv, info


def getrs(kind, lu, ipiv, b):
    n = lu.shape[0]
    nrhs = 1 if b.ndim == 1 else b.shape[1]
    info = cp.zeros(1, cp.int32)
    getattr(cusolver, kind + "getrs")(H, 0, n, nrhs, lu.data.ptr, n, ipiv.data.ptr, b.data.ptr, n, info.data.ptr)


rng = np.random.default_rng(0)
m = rng.standard_normal((4096, 4096)) + 128 * np.eye(4096)
v = rng.standard_normal(4096)
mg = cp.asfortranarray(cp.asarray(m))
vg = cp.asarray(v)
u = rng.random((6000, 6000), dtype=np.float32)
ug = cp.asfortranarray(cp.asarray(u))

print("solve_4096_f64 cp.linalg.solve: %.3f ms" % evtime.median_ms(lambda: cp.linalg.solve(mg, vg), 10))
for kind, src in (("d", mg), ("s", mg.astype(cp.float32, order="F"))):
    w = src.copy(order="F")

    def f(w=w, src=src, kind=kind):
        w[...] = src
        getrf(w, kind)

    copy = evtime.median_ms(lambda: w.__setitem__(Ellipsis, src), 10)
    print("%sgetrf 4096: %.3f ms (less the %.3f ms copy)" % (kind, evtime.median_ms(f, 10) - copy, copy))
lu = mg.copy(order="F")
ipiv, _ = getrf(lu, "d")
b = vg.copy()
print("dgetrs 4096 x 1: %.3f ms" % evtime.median_ms(lambda: getrs("d", lu, ipiv, b), 10))

print("inv_6000_f32 cp.linalg.inv: %.3f ms" % evtime.median_ms(lambda: cp.linalg.inv(ug), 5))
w6 = ug.copy(order="F")
copy6 = evtime.median_ms(lambda: w6.__setitem__(Ellipsis, ug), 5)


def f6():
    w6[...] = ug
    getrf(w6, "s")


print("sgetrf 6000: %.3f ms (less the copy)" % (evtime.median_ms(f6, 5) - copy6))
lu6 = ug.copy(order="F")
ipiv6, _ = getrf(lu6, "s")
eye = cp.eye(6000, dtype=cp.float32, order="F")
e2 = eye.copy(order="F")
ecopy = evtime.median_ms(lambda: e2.__setitem__(Ellipsis, eye), 5)


def rs6():
    e2[...] = eye
    getrs("s", lu6, ipiv6, e2)


print("sgetrs 6000 x 6000: %.3f ms (less the copy)" % (evtime.median_ms(rs6, 5) - ecopy))

# Mixed-precision refinement (cusolverDn<X><Y>gesv), float64 in and out.
names = [n for n in dir(cusolver) if n.endswith("gesv")]
print("cuSOLVER IRS entry points in CuPy:", names)
x_ref = cp.linalg.solve(mg, vg)
for kind in ("dd", "ds", "dx", "dh", "db"):
    if not hasattr(cusolver, kind + "gesv"):
        continue
    a = mg.copy(order="F")
    bb = vg.reshape(4096, 1).copy(order="F")
    x = cp.empty_like(bb)
    ip = cp.empty(4096, cp.int32)
    info = cp.zeros(1, cp.int32)
    try:
        lw = getattr(cusolver, kind + "gesv_bufferSize")(
            H, 4096, 1, a.data.ptr, 4096, ip.data.ptr, bb.data.ptr, 4096, x.data.ptr, 4096, 0
        )
        work = cp.empty(lw, cp.uint8)

        def irs(kind=kind, a=a, bb=bb, x=x, ip=ip, work=work, lw=lw, info=info):
            return getattr(cusolver, kind + "gesv")(
                H,
                4096,
                1,
                a.data.ptr,
                4096,
                ip.data.ptr,
                bb.data.ptr,
                4096,
                x.data.ptr,
                4096,
                work.data.ptr,
                lw,
                info.data.ptr,
            )

        it = irs()
        t = evtime.median_ms(irs, 10)
        err = float(cp.abs(x[:, 0] - x_ref).max() / cp.abs(x_ref).max())
        res = float(cp.abs(mg @ x[:, 0] - vg).max())
        print(
            "%sgesv 4096 x 1: %.3f ms, iterations %s, info %d, |x - x_dgesv|/|x| %.2e, max residual %.2e"
            % (kind, t, it, int(info[0]), err, res)
        )
    except Exception as e:  # the binding's signature differs between CuPy versions
        print("%sgesv: %r" % (kind, e))

evtime.kernels(lambda: getrf(mg.copy(order="F"), "d"), "dgetrf 4096 kernels")
evtime.kernels(lambda: getrf(ug.copy(order="F"), "s"), "sgetrf 6000 kernels")
evtime.kernels(lambda: getrs("s", lu6, ipiv6, eye.copy(order="F")), "sgetrs 6000 x 6000 kernels")
