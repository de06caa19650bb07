"""cuprumx: CuPy's ``cupyx`` for cuprum (``cuprumx.profiler``, ``cuprumx.scipy``)."""

import importlib as _importlib


def __getattr__(name):
    if name in ("profiler", "scipy"):
        return _importlib.import_module(f"cuprumx.{name}")
    raise AttributeError(f"module 'cuprumx' has no attribute '{name}'")
