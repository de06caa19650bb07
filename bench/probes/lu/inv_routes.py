"""Routes from cuSOLVER's LU factors to the inverse (inv_6000_f32), each stage timed (CUDA events,
median of 5) and the result checked against cp.linalg.inv (getrs on the identity):

  getrs   cuSOLVER's getrs on an identity (what CuPy and cuprum did): laswp + two blocked trsm
  trsm2   the permuted identity built directly, then cuBLAS trsm with L (unit) and with U
  getri   LAPACK's getri: U := U^-1 (cusolverDnXtrtri), X = triu(U^-1), X := X L^-1 (trsm, right),
          then X's columns permuted by the pivots
  lblkNB  L^-1 by column blocks of NB (the trailing solve of each: n^3/3), one trsm with U,
          columns permuted

    python3 bench/probes/lu/inv_routes.py [n] [f32|f64]      (on the GPU host)
"""
import ctypes
import os
import sys

import cupy as cp
import numpy as np
from cupy_backends.cuda.libs import cublas, cusolver

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import evtime  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 6000
DT = np.float32 if (sys.argv[2] if len(sys.argv) > 2 else "f32") == "f32" else np.float64
K = "s" if DT == np.float32 else "d"
CUDA_T = 0 if DT == np.float32 else 1
SOL = cp.cuda.device.get_cusolver_handle()
BLAS = cp.cuda.device.get_cublas_handle()
lib = None
for name in ("libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"):
    try:
        lib = ctypes.CDLL(name)
        break
    except OSError:
        pass
LOWER, UPPER, NONUNIT, UNIT, LEFT, RIGHT, OPN = 0, 1, 0, 1, 0, 1, 0
ONE = np.array(1, DT)


def trtri(a, uplo, diag):
    n = a.shape[0]
    dbytes, hbytes = ctypes.c_size_t(), ctypes.c_size_t()
    st = lib.cusolverDnXtrtri_bufferSize(ctypes.c_void_p(SOL), uplo, diag, ctypes.c_int64(n), CUDA_T,
                                         ctypes.c_void_p(a.data.ptr), ctypes.c_int64(n), ctypes.byref(dbytes),
                                         ctypes.byref(hbytes))
    assert st == 0, st
    dw = cp.empty(max(dbytes.value, 1), cp.uint8)
    hw = (ctypes.c_char * max(hbytes.value, 1))()
    info = cp.zeros(1, cp.int32)
    st = lib.cusolverDnXtrtri(ctypes.c_void_p(SOL), uplo, diag, ctypes.c_int64(n), CUDA_T,
                              ctypes.c_void_p(a.data.ptr), ctypes.c_int64(n), ctypes.c_void_p(dw.data.ptr),
                              ctypes.c_size_t(dbytes.value), hw, ctypes.c_size_t(hbytes.value),
                              ctypes.c_void_p(info.data.ptr))
    assert st == 0, st


def trsm(side, uplo, diag, a, b):
    m, n = b.shape
    getattr(cublas, K + "trsm")(BLAS, side, uplo, OPN, diag, m, n, ONE.ctypes.data, a.data.ptr, a.shape[0],
                                b.data.ptr, m)


def perm_of(ipiv):
    """Row i of P·M is row perm[i] of M (LAPACK's sequential swaps, 1-based ipiv)."""
    p = np.arange(len(ipiv))
    for i, k in enumerate(ipiv - 1):
        p[i], p[k] = p[k], p[i]
    return p


rng = np.random.default_rng(1)
a = rng.random((N, N), dtype=np.float32).astype(DT)
ag = cp.asfortranarray(cp.asarray(a))
lu = ag.copy(order="F")
bs = getattr(cusolver, K + "getrf_bufferSize")(SOL, N, N, lu.data.ptr, N)
work = cp.empty(bs, DT)
ipiv = cp.empty(N, cp.int32)
info = cp.zeros(1, cp.int32)
getattr(cusolver, K + "getrf")(SOL, N, N, lu.data.ptr, N, work.data.ptr, ipiv.data.ptr, info.data.ptr)
ref = cp.linalg.inv(ag)
perm = perm_of(ipiv.get())
permg = cp.asarray(perm)
inv_perm = cp.asarray(np.argsort(perm))
scale = float(cp.abs(ref).max())
print("n %d %s; getrf done, info %d" % (N, np.dtype(DT).name, int(info[0])))


def report(label, t, x):
    err = float(cp.abs(x - ref).max()) / scale
    res = float(cp.abs(ag @ x - cp.eye(N, dtype=DT)).max())
    print("%-8s %8.3f ms   |x - ref|/|ref| %.2e   |a x - I| %.2e" % (label, t, err, res))


# getrs on the identity
eye = cp.eye(N, dtype=DT, order="F")
x = eye.copy(order="F")


def r_getrs():
    x[...] = eye
    info2 = cp.zeros(1, cp.int32)
    getattr(cusolver, K + "getrs")(SOL, 0, N, N, lu.data.ptr, N, ipiv.data.ptr, x.data.ptr, N, info2.data.ptr)


report("getrs", evtime.median_ms(r_getrs, 5), x)

# P built directly (P M = L U: M^-1 = U^-1 L^-1 P; column j of P is e_{inv_perm[j]}... P[i, perm[i]] = 1)
x2 = cp.empty((N, N), DT, order="F")


def build_p():
    x2[...] = 0
    x2[cp.arange(N), permg] = 1


tb = evtime.median_ms(build_p, 5)


def r_trsm2():
    build_p()
    trsm(LEFT, LOWER, UNIT, lu, x2)
    trsm(LEFT, UPPER, NONUNIT, lu, x2)


t = evtime.median_ms(r_trsm2, 5)
report("trsm2", t, x2)
tl = evtime.median_ms(lambda: trsm(LEFT, LOWER, UNIT, lu, x2), 5)
tu = evtime.median_ms(lambda: trsm(LEFT, UPPER, NONUNIT, lu, x2), 5)
print("   stages: P %.3f, trsm L %.3f, trsm U %.3f" % (tb, tl, tu))

# getri
w = lu.copy(order="F")
x3 = cp.empty((N, N), DT, order="F")
out = cp.empty((N, N), DT, order="F")


def r_getri():
    w[...] = lu
    trtri(w, UPPER, NONUNIT)
    x3[...] = cp.triu(w)
    trsm(RIGHT, LOWER, UNIT, w, x3)
    out[:, permg] = x3  # X P: column j of X goes to column perm[j]


t = evtime.median_ms(r_getri, 5)
report("getri", t, out)
t1 = evtime.median_ms(lambda: w.__setitem__(Ellipsis, lu), 5)
t2 = evtime.median_ms(lambda: trtri(w, UPPER, NONUNIT), 5)
t3 = evtime.median_ms(lambda: x3.__setitem__(Ellipsis, cp.triu(w)), 5)
t4 = evtime.median_ms(lambda: trsm(RIGHT, LOWER, UNIT, w, x3), 5)
t5 = evtime.median_ms(lambda: out.__setitem__((slice(None), permg), x3), 5)
print("   stages: copy %.3f, trtri U %.3f, triu %.3f, trsm right L %.3f, permute %.3f" % (t1, t2, t3, t4, t5))

# L^-1 by column blocks (block j of L^-1 is zero above its diagonal block: the trailing solve
# only), then one trsm with U, then the columns permuted
y = cp.empty((N, N), DT, order="F")
ISZ = np.dtype(DT).itemsize


def at(m, i, j):
    return m.data.ptr + (i + j * N) * ISZ


def lblocks(nb):
    for jb in range(0, N, nb):
        w_ = min(nb, N - jb)
        getattr(cublas, K + "trsm")(BLAS, LEFT, LOWER, OPN, UNIT, N - jb, w_, ONE.ctypes.data, at(lu, jb, jb), N,
                                    at(y, jb, jb), N)


for nb in (256, 512, 1024, 2048):
    def r_lblk(nb=nb):
        y[...] = eye
        lblocks(nb)
        trsm(LEFT, UPPER, NONUNIT, lu, y)
        out[:, permg] = y

    t = evtime.median_ms(r_lblk, 5)
    report("lblk%d" % nb, t, out)
    tlb = evtime.median_ms(lambda nb=nb: lblocks(nb), 5)
    print("   stages: L^-1 by blocks %.3f" % tlb)
