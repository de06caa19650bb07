"""``numpy.fft`` on cuprum arrays (cuFFT on a GPU, rustfft/realfft on the CPU)."""

from __future__ import annotations

import operator
from typing import Any

import numpy

from . import _core
from . import _cuprum as _c
from ._cuprum import ndarray

__all__ = [
    "fft",
    "ifft",
    "rfft",
    "irfft",
    "hfft",
    "ihfft",
    "fft2",
    "ifft2",
    "rfft2",
    "irfft2",
    "fftn",
    "ifftn",
    "rfftn",
    "irfftn",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]


def _one(name: str) -> Any:
    def f(a: Any, n: Any = None, axis: int = -1, norm: Any = None, out: Any = None) -> ndarray:
        if n is not None and operator.index(n) < 1:
            raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
        if not -(2**63) <= operator.index(axis) < 2**63:
            raise IndexError("cannot fit 'int' into an index-sized integer")
        return _core._out(_c.fft1(name, _core._arr(a), n, axis, norm), out)

    f.__name__ = name
    f.__doc__ = f"``numpy.fft.{name}``."
    return f


fft, ifft, rfft, irfft, hfft, ihfft = (_one(n) for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"))


def _many(name: str, default_axes: Any) -> Any:
    def f(a: Any, s: Any = None, axes: Any = default_axes, norm: Any = None, out: Any = None) -> ndarray:
        ax = None if axes is None else list(axes)
        return _core._out(_c.fftn(name, _core._arr(a), None if s is None else list(s), ax, norm), out)

    return f


fftn, ifftn, rfftn, irfftn = (_many(n, None) for n in ("fftn", "ifftn", "rfftn", "irfftn"))
fft2, ifft2, rfft2, irfft2 = (_many(n, (-2, -1)) for n in ("fftn", "ifftn", "rfftn", "irfftn"))
for _f, _n in (
    (fftn, "fftn"),
    (ifftn, "ifftn"),
    (rfftn, "rfftn"),
    (irfftn, "irfftn"),
    (fft2, "fft2"),
    (ifft2, "ifft2"),
    (rfft2, "rfft2"),
    (irfft2, "irfft2"),
):
    _f.__name__ = _n


def fftfreq(n: int, d: float = 1.0, *, device: Any = None, dtype: Any = None) -> ndarray:
    r = _c.fftfreq(_core._count(n), float(d), False, device)
    return r if dtype is None else r.astype(dtype)


def rfftfreq(n: int, d: float = 1.0, *, device: Any = None, dtype: Any = None) -> ndarray:
    if operator.index(n) < 0:
        # NumPy's n // 2 + 1 samples: none for n = -1, a ValueError below.
        if n // 2 + 1 < 0:
            raise ValueError("negative dimensions are not allowed")
        r = _core.zeros(0, dtype=numpy.float64, device=device)
        return r if dtype is None else r.astype(dtype)
    r = _c.fftfreq(int(n), float(d), True, device)
    return r if dtype is None else r.astype(dtype)


def fftshift(x: Any, axes: Any = None) -> ndarray:
    ax = None if axes is None else ([axes] if isinstance(axes, int) else list(axes))
    return _c.fftshift(_core._arr(x), ax, False)


def ifftshift(x: Any, axes: Any = None) -> ndarray:
    ax = None if axes is None else ([axes] if isinstance(axes, int) else list(axes))
    return _c.fftshift(_core._arr(x), ax, True)
