"""``scipy.signal``'s convolutions on cuprum arrays."""

from __future__ import annotations

from typing import Any

from cuprum import _core
from cuprum import _cuprum as _c

__all__ = ["convolve", "correlate", "convolve2d", "correlate2d", "fftconvolve", "oaconvolve", "choose_conv_method"]


def _pair(a: Any, b: Any) -> tuple:
    a = _core._dev_arr(a)
    return a, _core._dev_arr(b, a)


def convolve(in1: Any, in2: Any, mode: str = "full", method: str = "auto") -> Any:
    a, b = _pair(in1, in2)
    return _c.signal_nd("convolve", a, b, mode, method, None)


def correlate(in1: Any, in2: Any, mode: str = "full", method: str = "auto") -> Any:
    a, b = _pair(in1, in2)
    return _c.signal_nd("correlate", a, b, mode, method, None)


def fftconvolve(in1: Any, in2: Any, mode: str = "full", axes: Any = None) -> Any:
    a, b = _pair(in1, in2)
    ax = None if axes is None else ([axes] if isinstance(axes, int) else list(axes))
    return _c.signal_nd("fftconvolve", a, b, mode, "fft", ax)


def oaconvolve(in1: Any, in2: Any, mode: str = "full", axes: Any = None) -> Any:
    a, b = _pair(in1, in2)
    ax = None if axes is None else ([axes] if isinstance(axes, int) else list(axes))
    return _c.signal_nd("oaconvolve", a, b, mode, "fft", ax)


def convolve2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill", fillvalue: Any = 0) -> Any:
    a, b = _pair(in1, in2)
    return _c.signal_2d(False, a, b, mode, boundary, float(fillvalue))


def correlate2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill", fillvalue: Any = 0) -> Any:
    a, b = _pair(in1, in2)
    return _c.signal_2d(True, a, b, mode, boundary, float(fillvalue))


def choose_conv_method(in1: Any, in2: Any, mode: str = "full", measure: bool = False) -> str:
    a, b = _pair(in1, in2)
    return "fft" if a.size * b.size > 1 << 16 and a.dtype.kind in "fc" else "direct"
