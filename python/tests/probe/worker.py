"""The probe's worker process: evaluates cases of ``cases.py`` with NumPy/SciPy and then with cuprum (on the CPU,
under an address-space limit, so that a size no machine holds is a MemoryError for both and never a reservation
that the kernel overcommits) and prints one JSON line per step. The parent (``test_probe.py``) learns from the
last ``start`` line which case killed or hung a worker.

    python worker.py < indices.json
"""

import json
import os
import resource
import sys

LIMIT = int(os.environ.get("CUPRUM_PROBE_AS_LIMIT", str(16 << 30)))
resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))
os.environ["CUPRUM_DEVICE"] = "cpu"

import numpy  # noqa: E402
import scipy.fft  # noqa: E402
import scipy.ndimage  # noqa: E402
import scipy.signal  # noqa: E402

import cuprum  # noqa: E402
import cuprumx.scipy.fft  # noqa: E402
import cuprumx.scipy.ndimage  # noqa: E402
import cuprumx.scipy.signal  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import CASES  # noqa: E402

# Results compared by shape and dtype only: random streams (cuprum's Generator is Philox, NumPy's default PCG64)
# and factorizations whose vectors are unique only up to sign.
SHAPE_ONLY = ("rng.", "la.svd", "la.qr", "la.eigh")


def namespace(xp, nd, sig, sfft):
    arr = xp.asarray
    img = numpy.sin(numpy.arange(64.0)).reshape(8, 8)
    lab = (numpy.arange(64) // 7 % 4).reshape(8, 8)
    return {
        "xp": xp,
        "la": xp.linalg,
        "fft": xp.fft,
        "nd": nd,
        "sig": sig,
        "sfft": sfft,
        "a4": arr(numpy.arange(4.0)),
        "m23": arr(numpy.arange(6.0).reshape(2, 3)),
        "i4": arr(numpy.arange(4)),
        "u8": arr(numpy.arange(4, dtype=numpy.uint8)),
        "b4": arr(numpy.array([True, False, True, True])),
        "c4": arr(numpy.arange(4.0) + 1j),
        "h4": arr(numpy.arange(4.0, dtype=numpy.float16)),
        "e0": arr(numpy.zeros(0)),
        "z0": arr(numpy.float64(2.5)),
        "img": arr(img),
        "lab": arr(lab),
        "sq": arr(numpy.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])),
        "rng": xp.random.default_rng(0),
    }


def outcome(ns, expr):
    try:
        return "ok", eval(expr, ns)  # noqa: S307 (the probe's own expressions)
    except BaseException as e:  # noqa: BLE001 (a panic from Rust is a BaseException)
        if type(e).__name__ == "PanicException":
            return "panic", e
        if isinstance(e, KeyboardInterrupt | SystemExit):
            raise
        return "raise", e


def host(x):
    if isinstance(x, cuprum.ndarray):
        return cuprum.asnumpy(x)
    if isinstance(x, tuple | list):
        return type(x)(host(v) for v in x) if not hasattr(x, "_fields") else tuple(host(v) for v in x)
    return x


def same(a, b, shape_only):
    if isinstance(a, tuple | list) or isinstance(b, tuple | list):
        if not (isinstance(a, tuple | list) and isinstance(b, tuple | list)) or len(a) != len(b):
            return False
        return all(same(x, y, shape_only) for x, y in zip(a, b, strict=True))
    if a is None or b is None or isinstance(a, str | numpy.dtype | type):
        return a == b
    x, y = numpy.asarray(a), numpy.asarray(b)
    if x.shape != y.shape or x.dtype != y.dtype:
        return False
    if shape_only or x.dtype.kind not in "biufc":
        return shape_only or bool(numpy.array_equal(x, y))
    if x.dtype.kind in "fc":
        return bool(numpy.allclose(x, y, rtol=1e-9, atol=1e-12, equal_nan=True))
    return bool(numpy.array_equal(x, y))


def describe(x):
    x = host(x)
    try:
        a = numpy.asarray(x)
        return f"{type(x).__name__} {a.dtype} {a.shape}"
    except Exception:  # noqa: BLE001
        return type(x).__name__


def public(cls):
    """NumPy's exception class as a user catches it: its first public class (NumPy raises private subclasses
    such as ``_ArrayMemoryError`` of MemoryError and ``UFuncTypeError`` of TypeError)."""
    for c in cls.__mro__:
        if c.__module__ in ("builtins", "numpy.exceptions", "numpy.linalg", "numpy.linalg._linalg"):
            return c
    return cls


def compare(case_id, np_out, cp_out):
    (nk, nv), (ck, cv) = np_out, cp_out
    if ck == "panic":
        return "panic", f"{type(cv).__name__}: {cv}"
    if nk == "panic":
        return "same", "NumPy panicked"
    if nk == "raise" and ck == "raise":
        if isinstance(cv, public(type(nv))):
            return "same", type(nv).__name__
        return "kind", f"NumPy {type(nv).__name__}: {nv} | cuprum {type(cv).__name__}: {cv}"
    if nk == "raise":
        return "silent", f"NumPy {type(nv).__name__}: {nv} | cuprum returned {describe(cv)}"
    if ck == "raise":
        return "extra", f"NumPy returned {describe(nv)} | cuprum {type(cv).__name__}: {cv}"
    try:
        ok = same(host(nv), host(cv), case_id.startswith(SHAPE_ONLY))
    except Exception as e:  # noqa: BLE001
        return "differ", f"comparison failed: {type(e).__name__}: {e}"
    return ("same", "") if ok else ("differ", f"NumPy {describe(nv)} | cuprum {describe(cv)}")


def main():
    indices = json.load(sys.stdin)
    spaces = {
        "np": lambda: namespace(numpy, scipy.ndimage, scipy.signal, scipy.fft),
        "cp": lambda: namespace(cuprum, cuprumx.scipy.ndimage, cuprumx.scipy.signal, cuprumx.scipy.fft),
    }
    for i in indices:
        case_id, expr = CASES[i]
        outs = {}
        for side, make in spaces.items():
            print(json.dumps({"start": i, "side": side}), flush=True)
            outs[side] = outcome(make(), expr)
        verdict, detail = compare(case_id, outs["np"], outs["cp"])
        print(json.dumps({"done": i, "verdict": verdict, "detail": str(detail)[:300]}), flush=True)


if __name__ == "__main__":
    main()
