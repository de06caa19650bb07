"""The inverse's solve with U (linalg/cuda/inv.rs: X := U^-1 Y for the n x n upper triangle U of
the LU and Y = L^-1 P, cuBLAS's trsm, 7.2 ms of inv_6000_f32's 30) against the same solve split
into halves recursively: X2 = U22^-1 Y2, Y1 -= U12 X2 (a gemm), X1 = U11^-1 Y1, down to blocks of
`leaf` rows solved by trsm. Checked against trsm's result, timed as CUDA graphs (the right-hand
side restored from a copy inside the graph, the copy's time taken off).

    python3 bench/probes/lu/trsm_split.py      (from the repository root, on the GPU host)
"""

import ctypes

import cupy as cp
import numpy as np
from probe import CUBLAS, P, ok, timed


def blas(ty):
    """cuBLAS's typed entry by name (`fn("trsm")`), the scalars 1 and -1, the handle, the item size."""
    c, pre = (ctypes.c_float, "S") if ty == np.float32 else (ctypes.c_double, "D")
    h = ctypes.c_void_p(cp.cuda.device.get_cublas_handle())
    return (lambda name: getattr(CUBLAS, f"cublas{pre}{name}_v2")), c(1.0), c(-1.0), h, np.dtype(ty).itemsize


def solver(ty, n):
    fn, one, m1, h, isz = blas(ty)
    trsm, gemm = fn("trsm"), fn("gemm")

    def at(x, i, j):
        return P(x.data.ptr + (i + j * n) * isz)

    def solve(u, y, r0, r1, leaf):
        """Rows r0 .. r1-1 of X := U^-1 Y (column-major n x n, all n columns)."""
        m = r1 - r0
        if m <= leaf:
            ok(trsm(h, 0, 1, 0, 0, m, n, ctypes.byref(one), at(u, r0, r0), n, at(y, r0, 0), n))
            return
        mid = r0 + (m // 2 + 127) // 128 * 128
        solve(u, y, mid, r1, leaf)
        ok(
            gemm(
                h,
                0,
                0,
                mid - r0,
                n,
                r1 - mid,
                ctypes.byref(m1),
                at(u, r0, mid),
                n,
                at(y, mid, 0),
                n,
                ctypes.byref(one),
                at(y, r0, 0),
                n,
            )
        )
        solve(u, y, r0, mid, leaf)

    def run(u, y, leaf):
        ok(CUBLAS.cublasSetStream_v2(h, P(cp.cuda.get_current_stream().ptr)))
        solve(u, y, 0, n, leaf)

    return run


def measure(ty, n):
    rng = np.random.default_rng(0)
    # An LU's U of a random matrix: its diagonal and scale are what the inverse solves with.
    a = rng.standard_normal((n, n)).astype(ty)
    u = cp.asfortranarray(cp.triu(cp.asarray(np.linalg.qr(a.astype(np.float64))[1].astype(ty))))
    y0 = cp.asfortranarray(cp.tril(cp.asarray(rng.standard_normal((n, n)).astype(ty)), -1) + cp.eye(n, dtype=ty))
    run = solver(ty, n)
    y = y0.copy(order="F")
    ref = y0.copy(order="F")
    run(u, ref, n)
    cpy = timed(lambda: y.__setitem__(Ellipsis, y0))
    line = []
    for leaf in (n, 3072, 2048, 1536, 1024, 768, 512):
        if leaf > n:
            continue
        y[...] = y0
        run(u, y, leaf)
        err = float(cp.abs(y - ref).max() / cp.abs(ref).max())
        ms = timed(lambda leaf=leaf: (y.__setitem__(Ellipsis, y0), run(u, y, leaf))) - cpy
        line.append(f"leaf {leaf} {ms:.3f} ms (|X - trsm's| / max {err:.1e})")
    print(f"{np.dtype(ty).name} {n}: " + ", ".join(line))


for ty, n in ((np.float32, 6000), (np.float64, 4096)):
    measure(ty, n)


def lower_inverse(ty, n):
    """L^-1 of a unit lower L (an LU's, so its inverse is of moderate size) into the identity:
    the library's column blocks (each block's trailing system by trsm, blocks of `nb`) against a
    recursive inverse (LAPACK's trtri idea: X11 = A^-1, X22 = C^-1, X21 = -C^-1 (B A^-1) by two
    trmm, out of place then in place), down to leaves of `leaf` rows solved by trsm."""
    import scipy.linalg

    fn, one, m1, h, isz = blas(ty)
    trsm, trmm = fn("trsm"), fn("trmm")
    lu = cp.asfortranarray(
        cp.asarray(scipy.linalg.lu_factor(np.random.default_rng(1).standard_normal((n, n)).astype(ty))[0])
    )
    eye = cp.asfortranarray(cp.eye(n, dtype=ty))
    x = eye.copy(order="F")

    def at(m, i, j):
        return P(m.data.ptr + (i + j * n) * isz)

    def blocks(nb):
        ok(CUBLAS.cublasSetStream_v2(h, P(cp.cuda.get_current_stream().ptr)))
        for j in range(0, n, nb):
            ok(trsm(h, 0, 0, 0, 1, n - j, min(nb, n - j), ctypes.byref(one), at(lu, j, j), n, at(x, j, j), n))

    def rec(r0, r1, leaf):
        m = r1 - r0
        if m <= leaf:
            ok(trsm(h, 0, 0, 0, 1, m, m, ctypes.byref(one), at(lu, r0, r0), n, at(x, r0, r0), n))
            return
        mid = r0 + (m // 2 + 127) // 128 * 128
        rec(r0, mid, leaf)
        rec(mid, r1, leaf)
        # X21 = L21 X11 (right side, lower, unit), then X21 = -X22 X21 (left side, lower, unit).
        mm(1, r1 - mid, mid - r0, one, at(x, r0, r0), at(lu, mid, r0), at(x, mid, r0))
        mm(0, r1 - mid, mid - r0, m1, at(x, mid, mid), at(x, mid, r0), at(x, mid, r0))

    def mm(side, m, k, alpha, a, b, c):
        """C := alpha op(A) B (side 0) or alpha B op(A) (side 1), A lower unit (cuBLAS's out-of-place trmm)."""
        ok(trmm(h, side, 0, 0, 1, m, k, ctypes.byref(alpha), a, n, b, n, c, n))

    def recursive(leaf):
        ok(CUBLAS.cublasSetStream_v2(h, P(cp.cuda.get_current_stream().ptr)))
        rec(0, n, leaf)

    nb = (n + 2) // 3 // 256 * 256 + (256 if ((n + 2) // 3) % 256 else 0)
    x[...] = eye
    blocks(nb)
    ref = x.copy(order="F")
    cpy = timed(lambda: x.__setitem__(Ellipsis, eye))
    line = [f"blocks of {nb} {timed(lambda: (x.__setitem__(Ellipsis, eye), blocks(nb))) - cpy:.3f} ms"]
    for leaf in (2048, 1024, 512, 256):
        x[...] = eye
        recursive(leaf)
        err = float(cp.abs(cp.tril(x) - ref).max() / cp.abs(ref).max())
        ms = timed(lambda leaf=leaf: (x.__setitem__(Ellipsis, eye), recursive(leaf))) - cpy
        line.append(f"recursive, leaves {leaf}: {ms:.3f} ms (|X - blocks'| / max {err:.1e})")
    print(f"L^-1 {np.dtype(ty).name} {n}: " + ", ".join(line))


for ty, n in ((np.float32, 6000), (np.float64, 4096)):
    lower_inverse(ty, n)
