"""``cupyx.scipy`` for cuprum: ``signal``, ``ndimage``, ``fft``, ``special``, ``stats``."""

import importlib as _importlib


def __getattr__(name):
    if name in ("signal", "ndimage", "fft", "special", "stats"):
        return _importlib.import_module(f"cuprumx.scipy.{name}")
    raise AttributeError(f"module 'cuprumx.scipy' has no attribute '{name}'")
