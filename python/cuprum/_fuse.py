"""``cuprum.fuse``: a Python function of arrays and scalars traced once per call into a ``cuprum::Expr``
(one fused kernel on the GPU, one pass on the CPU)."""

from __future__ import annotations

import functools
from typing import Any

from ._cuprum import _Expr, ndarray


class Fused:
    """A fused function (``cupy.fuse``): calling it traces ``func`` with its array arguments as formula
    nodes and evaluates the formula in one kernel."""

    def __init__(self, func: Any, kernel_name: str | None = None):
        self.func = func
        self.__name__ = kernel_name or getattr(func, "__name__", "fused")
        functools.update_wrapper(self, func)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not any(type(a) is ndarray for a in args):
            return self.func(*args, **kwargs)
        traced = [_Expr(a) if type(a) is ndarray else a for a in args]
        r = self.func(*traced, **kwargs)
        if type(r) is _Expr:
            return r.eval()
        if isinstance(r, tuple):
            return tuple(x.eval() if type(x) is _Expr else x for x in r)
        return r

    def __repr__(self) -> str:
        return f"<cuprum.fuse {self.__name__}>"


def fuse(*args: Any, **kwargs: Any) -> Any:
    """``@cuprum.fuse`` or ``@cuprum.fuse(kernel_name=...)``."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return Fused(args[0])
    return lambda f: Fused(f, kwargs.get("kernel_name"))
