"""The float32 SVD through float64's Gram matrix, emulated in CuPy: t = a (tall side), G = tᴴt in
float64, G = V diag(w) Vᴴ (syevd), B = tV, B = QR, U = Q·phase(diag R), s = sqrt(max(w, 0)).
Timed beside CuPy's gesvd of the same float32 matrix (CUDA events, median of 5) and checked against
NumPy's float64 SVD of the same entries: singular values (max abs error / s_max), reconstruction
and orthogonality of U and V, for Gaussian matrices and graded ones of condition 1e3..1e9, and
rank-deficient ones. Run from the repo root on the device."""
import functools
import os
import sys

import numpy as np
import cupy as cp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import evtime  # noqa: E402

# Five timed calls after two warm-ups: the slower routes take 100 ms a call.
median_ms = functools.partial(evtime.median_ms, rep=5, warm=2)


def gram_svd(a):
    t = a.astype(cp.float64)
    g = t.T @ t
    w, v = cp.linalg.eigh(g)
    w, v = w[::-1], v[:, ::-1]
    b = t @ v
    q, r = cp.linalg.qr(b)
    d = cp.diagonal(r)
    ph = cp.where(d < 0, -1.0, 1.0)
    u = q * ph
    s = cp.sqrt(cp.maximum(w, 0))
    return u.astype(cp.float32), s.astype(cp.float32), v.T.astype(cp.float32)


def errs(a, u, s, vt):
    a64 = a.astype(np.float64)
    s_ref = np.linalg.svd(a64, compute_uv=False)
    u, s, vt = (cp.asnumpy(x).astype(np.float64) for x in (u, s, vt))
    k = s.size
    es = np.max(np.abs(s - s_ref)) / s_ref[0]
    rec = np.linalg.norm((u * s) @ vt - a64) / np.linalg.norm(a64)
    ou = np.linalg.norm(u.T @ u - np.eye(k))
    ov = np.linalg.norm(vt @ vt.T - np.eye(k))
    return "sv %.1e rec %.1e orthU %.1e orthV %.1e" % (es, rec, ou, ov)


rng = np.random.default_rng(1)
print("timing (ms): shape, cupy gesvd f32, gram f64 route, gram values only", flush=True)
for m, n in ((32, 32), (64, 64), (128, 128), (256, 256), (512, 512), (1024, 1024), (2048, 2048), (2048, 512),
             (4096, 256)):
    a = cp.asarray(rng.standard_normal((m, n)).astype(np.float32))
    t1 = median_ms(lambda: cp.linalg.svd(a, full_matrices=False))
    t2 = median_ms(lambda: gram_svd(a))
    t3 = median_ms(lambda: cp.sqrt(cp.maximum(cp.linalg.eigvalsh((lambda t: t.T @ t)(a.astype(cp.float64))), 0)))
    print("%5dx%-5d %9.3f %9.3f %9.3f" % (m, n, t1, t2, t3), flush=True)

print("accuracy against NumPy float64 (gesvd f32 | gram route)", flush=True)
n = 256
for kind in ("gauss", "cond1e3", "cond1e5", "cond1e7", "cond1e9", "rank12", "rank200", "tiny", "huge"):
    if kind == "gauss":
        a = rng.standard_normal((n, n))
    elif kind.startswith("cond"):
        c = float(kind[4:])
        q1, _ = np.linalg.qr(rng.standard_normal((n, n)))
        q2, _ = np.linalg.qr(rng.standard_normal((n, n)))
        a = (q1 * np.logspace(0, -np.log10(c), n)) @ q2
    elif kind.startswith("rank"):
        r = int(kind[4:])
        a = rng.standard_normal((n, r)) @ rng.standard_normal((r, n))
    elif kind == "tiny":
        a = rng.standard_normal((n, n)) * 1e-30
    else:
        a = rng.standard_normal((n, n)) * 1e30
    a = a.astype(np.float32)
    ag = cp.asarray(a)
    print("%-8s | %s | %s" % (kind, errs(a, *cp.linalg.svd(ag, full_matrices=False)), errs(a, *gram_svd(ag))),
          flush=True)
