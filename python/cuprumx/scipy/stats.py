"""``scipy.stats.norm`` on cuprum arrays: ``pdf``, ``logpdf``, ``cdf``, ``sf``, ``ppf``, ``isf`` with
``loc`` and ``scale`` (scalars), float64 results as SciPy's; ``norm(loc, scale)`` freezes them."""

from __future__ import annotations

from typing import Any

from cuprum import _core
from cuprum import _cuprum as _c

__all__ = ["norm"]


def _scalar(v: Any, name: str) -> float:
    try:
        return float(v)
    except TypeError:
        raise TypeError(f"cuprum's norm takes a scalar {name}, not {type(v).__name__}") from None


class _Norm:
    """The normal distribution of mean ``loc`` and standard deviation ``scale``."""

    def __init__(self, loc: Any = 0.0, scale: Any = 1.0) -> None:
        self.loc = _scalar(loc, "loc")
        self.scale = _scalar(scale, "scale")

    def __call__(self, loc: Any = 0.0, scale: Any = 1.0) -> _Norm:
        return _Norm(loc, scale)

    def __repr__(self) -> str:
        return f"norm(loc={self.loc!r}, scale={self.scale!r})"

    def _run(self, name: str, x: Any, loc: Any, scale: Any) -> Any:
        loc = self.loc if loc is None else _scalar(loc, "loc")
        scale = self.scale if scale is None else _scalar(scale, "scale")
        return _c.stats_norm(name, _core._dev_arr(x), loc, scale)

    def pdf(self, x: Any, loc: Any = None, scale: Any = None) -> Any:
        return self._run("pdf", x, loc, scale)

    def logpdf(self, x: Any, loc: Any = None, scale: Any = None) -> Any:
        return self._run("logpdf", x, loc, scale)

    def cdf(self, x: Any, loc: Any = None, scale: Any = None) -> Any:
        return self._run("cdf", x, loc, scale)

    def sf(self, x: Any, loc: Any = None, scale: Any = None) -> Any:
        return self._run("sf", x, loc, scale)

    def ppf(self, q: Any, loc: Any = None, scale: Any = None) -> Any:
        return self._run("ppf", q, loc, scale)

    def isf(self, q: Any, loc: Any = None, scale: Any = None) -> Any:
        return self._run("isf", q, loc, scale)


norm = _Norm()
