"""``cuprum.fuse``: a Python function of arrays and scalars traced once per call into a ``cuprum::Expr``
(one fused kernel on the GPU, one pass on the CPU)."""

from __future__ import annotations

import functools
from typing import Any

from ._cuprum import fuse_call


class Fused:
    """A fused function (``cupy.fuse``): calling it traces ``func`` with its array arguments as formula
    nodes and evaluates the formula in one kernel."""

    def __init__(self, func: Any, kernel_name: str | None = None):
        self.func = func
        self.__name__ = kernel_name or getattr(func, "__name__", "fused")
        functools.update_wrapper(self, func)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return fuse_call(self.func, args, kwargs or None)

    def __repr__(self) -> str:
        return f"<cuprum.fuse {self.__name__}>"


def fuse(*args: Any, **kwargs: Any) -> Any:
    """``@cuprum.fuse`` or ``@cuprum.fuse(kernel_name=...)``."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return Fused(args[0])
    return lambda f: Fused(f, kwargs.get("kernel_name"))
