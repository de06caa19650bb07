"""cuprumx: CuPy's ``cupyx`` for cuprum (``cuprumx.profiler``, ``cuprumx.scipy``)."""

import importlib as _importlib


def empty_pinned(shape, dtype=float, order="C"):
    """``cupyx.empty_pinned``: a NumPy array in page-locked host memory (copies to and from the GPU need
    no staging); ordinary host memory on a machine without a GPU."""
    import numpy

    import cuprum

    try:
        a = cuprum._cuprum.empty_pinned(shape, dtype)
    except RuntimeError:
        return numpy.empty(shape, dtype, order)
    return numpy.asarray(a)


def zeros_pinned(shape, dtype=float, order="C"):
    """``cupyx.zeros_pinned``."""
    a = empty_pinned(shape, dtype, order)
    a[...] = 0
    return a


class errstate:  # noqa: N801
    """``cupyx.errstate(linalg=...)``: ``"raise"`` (cuprum's default, NumPy's behaviour) makes GPU linear algebra
    read back the solver's status and raise ``LinAlgError`` for a singular or non-positive-definite matrix, which
    waits for the GPU; ``"ignore"`` (CuPy's default) skips that read-back, so that solves queue without a host
    wait (their results are then NaN or meaningless for such input). The CPU always checks. Process-wide."""

    def __init__(self, *, linalg=None):
        if linalg not in (None, "raise", "ignore"):
            raise ValueError(f"linalg must be 'raise' or 'ignore', not {linalg!r}")
        self._linalg = linalg
        self._old = None

    def __enter__(self):
        import cuprum

        if self._linalg is not None:
            self._old = cuprum._cuprum.set_gpu_error_check(self._linalg == "raise")
        return self

    def __exit__(self, *exc):
        import cuprum

        if self._old is not None:
            cuprum._cuprum.set_gpu_error_check(self._old)


def __getattr__(name):
    if name in ("profiler", "scipy"):
        return _importlib.import_module(f"cuprumx.{name}")
    raise AttributeError(f"module 'cuprumx' has no attribute '{name}'")
