"""``cupy.testing``: NumPy's assertions on cuprum arrays (compared on host copies, with NumPy's report)."""

from __future__ import annotations

from typing import Any

import numpy.testing as _nt

from ._core import asnumpy


def _h(x: Any) -> Any:
    return asnumpy(x) if hasattr(x, "get") else x


def assert_allclose(
    actual: Any,
    desired: Any,
    rtol: float = 1e-7,
    atol: float = 0,
    equal_nan: bool = True,
    err_msg: str = "",
    verbose: bool = True,
    **kw: Any,
) -> None:
    _nt.assert_allclose(
        _h(actual), _h(desired), rtol=rtol, atol=atol, equal_nan=equal_nan, err_msg=err_msg, verbose=verbose, **kw
    )


def assert_array_equal(x: Any, y: Any, err_msg: str = "", verbose: bool = True, strict: bool = False) -> None:
    _nt.assert_array_equal(_h(x), _h(y), err_msg=err_msg, verbose=verbose, strict=strict)


def assert_array_almost_equal(x: Any, y: Any, decimal: int = 6, err_msg: str = "", verbose: bool = True) -> None:
    _nt.assert_array_almost_equal(_h(x), _h(y), decimal=decimal, err_msg=err_msg, verbose=verbose)


def assert_array_less(x: Any, y: Any, err_msg: str = "", verbose: bool = True) -> None:
    _nt.assert_array_less(_h(x), _h(y), err_msg=err_msg, verbose=verbose)


def assert_array_max_ulp(a: Any, b: Any, maxulp: int = 1, dtype: Any = None) -> None:
    _nt.assert_array_max_ulp(_h(a), _h(b), maxulp=maxulp, dtype=dtype)


def assert_equal(actual: Any, desired: Any, err_msg: str = "", verbose: bool = True) -> None:
    _nt.assert_equal(_h(actual), _h(desired), err_msg=err_msg, verbose=verbose)
