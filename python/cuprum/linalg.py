"""``numpy.linalg`` on cuprum arrays (cuBLAS/cuSOLVER on a GPU, faer on the CPU)."""

from __future__ import annotations

import operator
from collections import namedtuple
from typing import Any

import numpy
from numpy.linalg import LinAlgError

from . import _core
from . import _cuprum as _c
from ._cuprum import ndarray

__all__ = [
    "LinAlgError",
    "cholesky",
    "cond",
    "det",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "lstsq",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "trace",
    "vecdot",
    "vector_norm",
    "diagonal",
    "cross",
    "matrix_transpose",
    "tensorinv",
    "tensorsolve",
]

EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])


def _a(x: Any) -> ndarray:
    return _core._arr(x)


def inv(a: Any) -> ndarray:
    return _c.linalg1("inv", _a(a))


def det(a: Any) -> ndarray:
    return _c.linalg1("det", _a(a))


def slogdet(a: Any) -> SlogdetResult:
    return SlogdetResult(*_c.slogdet(_a(a)))


def solve(a: Any, b: Any) -> ndarray:
    a = _a(a)
    return _c.solve(a, _core._arr(b, a))


def cholesky(a: Any, /, *, upper: bool = False) -> ndarray:
    return _c.linalg1("cholesky", _a(a), upper)


def qr(a: Any, mode: str = "reduced") -> Any:
    q, r = _c.qr(_a(a), mode)
    return r if mode == "r" else QRResult(q, r)


def eigh(a: Any, UPLO: str = "L") -> EighResult:
    return EighResult(*_c.eig(_a(a), True, UPLO == "U"))


def eigvalsh(a: Any, UPLO: str = "L") -> ndarray:
    return _c.linalg1("eigvalsh", _a(a), UPLO == "U")


_EIG_ALWAYS_COMPLEX: bool | None = None


def _eig_complex() -> bool:
    """Whether this NumPy's ``eig`` returns complex arrays for every real input (NumPy >= 2.5), or real ones
    when every eigenvalue is real (earlier): cuprum answers as the NumPy beside it."""
    global _EIG_ALWAYS_COMPLEX
    if _EIG_ALWAYS_COMPLEX is None:
        _EIG_ALWAYS_COMPLEX = numpy.linalg.eigvals(numpy.eye(1)).dtype.kind == "c"
    return _EIG_ALWAYS_COMPLEX


def _complexify(x: ndarray) -> ndarray:
    if x.dtype.kind == "c" or not _eig_complex():
        return x
    return x.astype(numpy.result_type(x.dtype, numpy.complex64))


def eig(a: Any) -> EigResult:
    w, v = _c.eig(_a(a), False, False)
    return EigResult(_complexify(w), _complexify(v))


def eigvals(a: Any) -> ndarray:
    return _complexify(_c.linalg1("eigvals", _a(a)))


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False) -> Any:
    if not compute_uv:
        return _c.linalg1("singular_values", _a(a), hermitian)
    return SVDResult(*_c.svd(_a(a), full_matrices, hermitian))


def svdvals(x: Any, /) -> ndarray:
    return _c.linalg1("svdvals", _a(x))


def lstsq(a: Any, b: Any, rcond: Any = None) -> tuple:
    a = _a(a)
    x, res, rank, s = _c.lstsq(a, _core._arr(b, a), rcond)
    return x, res, numpy.int32(rank), s  # NumPy's rank is LAPACK's int


def pinv(a: Any, rcond: Any = None, hermitian: bool = False, *, rtol: Any = None) -> ndarray:
    tol = rcond if rcond is not None else rtol
    if tol is None or numpy.ndim(tol) == 0:
        return _c.linalg1("pinv", _a(a), hermitian, None if tol is None else float(tol))
    # One tolerance per matrix of a stack (broadcast against the stack's shape), as NumPy: singular values
    # at most rtol times the largest are dropped.
    a = _a(a)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    cutoff = _core._arr(tol, a)[..., None] * _core.max(s, axis=-1, keepdims=True)
    keep = _core.greater(s, cutoff)
    s_inv = _core.where(keep, 1 / _core.where(keep, s, 1), 0).astype(s.dtype, copy=False)
    return _core.matmul(_core.conj(vh).swapaxes(-1, -2) * s_inv[..., None, :], _core.conj(u).swapaxes(-1, -2))


def matrix_rank(A: Any, tol: Any = None, hermitian: bool = False, *, rtol: Any = None) -> ndarray:
    A = _a(A)
    if A.ndim >= 2 and 0 in A.shape[-2:]:
        # NumPy: no singular values, rank 0 (one per matrix of a stack).
        return _core.zeros(A.shape[:-2], dtype=numpy.int64, device=A.device)
    return _c.linalg1("matrix_rank", A, hermitian, None if tol is None else float(tol))


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> ndarray:  # noqa: A002
    ax = None if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    if ord is not None and not isinstance(ord, str):
        ord = float(ord)  # noqa: A001
    return _c.norm(_a(x), ord, ax, keepdims)


def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> ndarray:  # noqa: A002
    x = _a(x)
    if axis is None:
        r = norm(x.ravel(), ord)
        return r.reshape((1,) * x.ndim) if keepdims else r
    if isinstance(axis, int):
        return norm(x, ord, axis, keepdims)
    # Several axes (or none: each element's own norm) are one: moved to the end and flattened, as NumPy.
    axes = [numpy.lib.array_utils.normalize_axis_index(a, x.ndim) for a in axis]
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis in vector_norm")
    rest = [i for i in range(x.ndim) if i not in axes]
    y = x.transpose(rest + axes)
    r = norm(y.reshape(y.shape[: len(rest)] + (int(numpy.prod([x.shape[a] for a in axes])),)), ord, -1)
    if keepdims:
        r = r.reshape(tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
    return r


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> ndarray:  # noqa: A002
    return norm(x, ord, (-2, -1), keepdims)


def cond(x: Any, p: Any = None) -> ndarray:
    if p is not None and not isinstance(p, str):
        p = float(p)
    return _c.norm(_a(x), p, None, False, True)


def matrix_power(a: Any, n: int) -> ndarray:
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    return _c.matrix_power(_a(a), n)


def multi_dot(arrays: Any, *, out: Any = None) -> ndarray:
    return _core._out(_c.multi_dot([_a(x) for x in arrays]), out)


def tensorinv(a: Any, ind: int = 2) -> ndarray:
    a = _a(a)
    old = a.shape
    n = int(numpy.prod(old[:ind]))
    return inv(a.reshape(n, -1)).reshape(old[ind:] + old[:ind])


def tensorsolve(a: Any, b: Any, axes: Any = None) -> ndarray:
    a, b = _a(a), _a(b)
    n = b.ndim
    sol_shape = a.shape[n:]
    return solve(a.reshape(b.size, -1), b.ravel()).reshape(sol_shape)


matmul = _core.matmul
outer = _core.outer
tensordot = _core.tensordot
vecdot = _core.vecdot
cross = _core.cross
matrix_transpose = _core.matrix_transpose


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> ndarray:
    return _core.trace(x, offset, -2, -1, dtype)


def diagonal(x: Any, /, *, offset: int = 0) -> ndarray:
    return _core.diagonal(x, offset, -2, -1)


_ = LinAlgError
