"""``scipy.special``'s error function and normal distribution functions as cuprum ufuncs
(``cupyx.scipy.special``): ``erf``, ``erfc``, ``ndtr``, ``ndtri``. SciPy's loop dtypes; complex
inputs are a ``TypeError`` (SciPy's complex loops are not implemented)."""

from __future__ import annotations

from cuprum._core import ufunc

__all__ = ["erf", "erfc", "ndtr", "ndtri"]

erf = ufunc("erf", 1)
erfc = ufunc("erfc", 1)
ndtr = ufunc("ndtr", 1)
ndtri = ufunc("ndtri", 1)
