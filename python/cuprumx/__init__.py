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


def __getattr__(name):
    if name in ("profiler", "scipy"):
        return _importlib.import_module(f"cuprumx.{name}")
    raise AttributeError(f"module 'cuprumx' has no attribute '{name}'")
