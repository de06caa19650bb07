"""NumPy's functions on cuprum arrays: signatures, defaults and argument rules in Python, the work in Rust
(``cuprum._cuprum``)."""

from __future__ import annotations

import builtins
import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy

from . import _cuprum as _c
from ._cuprum import _Expr, ndarray

# ----------------------------------------------------------------------------------------- helpers


def _leads_to_ndarray(a: Any) -> bool:
    """Whether the first leaf of nested lists/tuples is a cuprum array."""
    while type(a) in (list, tuple) and a:
        a = a[0]
    return type(a) is ndarray


def asarray(a: Any, dtype: Any = None, order: Any = None, *, device: Any = None, copy: bool | None = None) -> ndarray:
    """``cupy.asarray``: ``a`` on the current device (or ``device``); no copy when it is already there."""
    if type(a) is ndarray and dtype is None and device is None:
        return a.copy() if copy else a
    if type(a) in (list, tuple) and a and type(a[0]) in (list, tuple) and _leads_to_ndarray(a):
        # Nested sequences of cuprum arrays (``[[x[i, j] for i ...] for j ...]``): each row on the device,
        # then stacked (NumPy would ask each GPU array for a host copy).
        return stack([asarray(row, dtype, device=device) for row in a])  # noqa: F821
    r = _c._asarray(a, dtype, device)
    if copy is False and not (type(a) is ndarray and _c.shares_memory(r, a)):
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    if copy and (r is a or (type(a) is ndarray and _c.shares_memory(r, a))):
        r = r.copy()
    return r


def array(
    obj: Any,
    dtype: Any = None,
    copy: bool = True,
    order: Any = "K",
    subok: bool = False,
    ndmin: int = 0,
    *,
    device: Any = None,
) -> ndarray:
    """``cupy.array``: a new array (a copy unless ``copy=False`` allows otherwise)."""
    r = asarray(obj, dtype=dtype, device=device)
    if copy and type(obj) is ndarray and _c.shares_memory(r, obj):
        r = r.copy()
    if ndmin > r.ndim:
        r = r.reshape((1,) * (ndmin - r.ndim) + r.shape)
    return r


def ascontiguousarray(a: Any, dtype: Any = None) -> ndarray:
    return _c.as_contiguous(asarray(a, dtype))


def asnumpy(a: Any, stream: Any = None, order: str = "C", out: Any = None, *, blocking: bool = True) -> numpy.ndarray:
    """``cupy.asnumpy``: a host ``numpy.ndarray`` (a no-op for NumPy arrays)."""
    if type(a) is ndarray:
        return a.get(stream=stream, order=order, out=out, blocking=blocking)
    return numpy.asarray(a, order=order)


def get_array_module(*args: Any) -> Any:
    """``cupy.get_array_module``: ``cuprum`` when an argument is a cuprum array, else ``numpy``."""
    import cuprum

    for a in args:
        if isinstance(a, ndarray):
            return cuprum
    return numpy


def _count(n: Any, message: str = "negative dimensions are not allowed", huge: str | None = None) -> int:
    """A size or count from the user as NumPy checks it: an integer, not negative (``message``, NumPy's
    ValueError for that argument), and, where ``huge`` is given, below 2**63 (else NumPy's ValueError
    ``huge`` for that argument; without it, an int beyond int64 is the binding's OverflowError)."""
    n = operator.index(n)
    if n < 0:
        raise ValueError(message)
    if huge is not None and n >= 2**63:
        raise ValueError(huge)
    return n


def _arr(x: Any, like: ndarray | None = None) -> ndarray:
    """An argument as a cuprum array (copied to the device when it is a NumPy array or a sequence, as
    CuPy's functions that call ``asarray`` do; its ufuncs and kernels refuse NumPy arrays: ``_dev_arr``)."""
    if type(x) is ndarray:
        return x
    return _c._asarray(x, None, like.device if like is not None else None)


def _dev_arr(x: Any, like: ndarray | None = None) -> ndarray:
    """As ``_arr``, but a NumPy array on a GPU is CuPy's TypeError (``cupyx.scipy`` functions take device
    arrays only: ``convolve2d(numpy_a, numpy_b)`` fails, as the lessons show); on the CPU backend it is read."""
    if type(x) is ndarray:
        return x
    dev = like.device if like is not None else None
    if isinstance(x, numpy.ndarray) and x.ndim > 0 and (dev if dev is not None else _c.get_device()).kind != "cpu":
        raise TypeError(f"Unsupported type {type(x)}")
    return _c._asarray(x, None, dev)


def _axis(axis: Any) -> Any:
    if axis is None or isinstance(axis, int):
        return axis
    if isinstance(axis, tuple | list):
        return [operator.index(a) for a in axis]
    return operator.index(axis)


def _out(r: ndarray, out: Any) -> ndarray:
    if out is None:
        return r
    if isinstance(out, tuple):
        (out,) = out
    if out.shape != r.shape:
        raise ValueError(
            f"non-broadcastable output operand with shape {out.shape} doesn't match the broadcast shape {r.shape}"
        )
    _c.assign(out, r)
    return out


# ----------------------------------------------------------------------------------------- dtypes

bool_ = numpy.bool_
int8, int16, int32, int64 = numpy.int8, numpy.int16, numpy.int32, numpy.int64
uint8, uint16, uint32, uint64 = numpy.uint8, numpy.uint16, numpy.uint32, numpy.uint64
float16, float32, float64 = numpy.float16, numpy.float32, numpy.float64
complex64, complex128 = numpy.complex64, numpy.complex128
intp, uintp = numpy.intp, numpy.uintp
half, single, double = numpy.half, numpy.single, numpy.double
csingle, cdouble = numpy.csingle, numpy.cdouble
byte, ubyte, short, ushort, intc, uintc = numpy.byte, numpy.ubyte, numpy.short, numpy.ushort, numpy.intc, numpy.uintc
int_, uint, longlong, ulonglong = numpy.int_, numpy.uint, numpy.longlong, numpy.ulonglong
float_ = numpy.float64
complex_ = numpy.complex128
dtype = numpy.dtype
finfo, iinfo = numpy.finfo, numpy.iinfo
generic, number, integer, signedinteger, unsignedinteger = (
    numpy.generic,
    numpy.number,
    numpy.integer,
    numpy.signedinteger,
    numpy.unsignedinteger,
)
floating, complexfloating, inexact = numpy.floating, numpy.complexfloating, numpy.inexact
issubdtype, isdtype = numpy.issubdtype, numpy.isdtype
promote_types = numpy.promote_types
newaxis = None
pi, e, inf, nan, euler_gamma = numpy.pi, numpy.e, numpy.inf, numpy.nan, numpy.euler_gamma


def result_type(*arrays_and_dtypes: Any) -> numpy.dtype:
    """NumPy's ``result_type`` (cuprum arrays count by their dtype; Python scalars are weak)."""
    conv = [a.dtype if isinstance(a, ndarray) else a for a in arrays_and_dtypes]
    return numpy.result_type(*conv)


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    if isinstance(from_, ndarray):
        from_ = from_.dtype
    return numpy.can_cast(from_, to, casting=casting)


# ----------------------------------------------------------------------------------------- ufuncs


class ufunc:
    """A universal function (``cupy.ufunc``): elementwise with broadcasting, ``out=``, and the ``reduce``,
    ``accumulate``, ``outer`` and ``at`` methods where NumPy has them."""

    def __init__(self, name: str, nin: int, rust_name: str | None = None, identity: Any = None):
        self.__name__ = name
        self.__qualname__ = name
        self.nin = nin
        self.nout = 1
        self.nargs = nin + 1
        self._rust = rust_name or name
        self.identity = identity

    def __repr__(self) -> str:
        return f"<ufunc '{self.__name__}'>"

    def __call__(
        self,
        *args: Any,
        out: Any = None,
        dtype: Any = None,
        casting: str = "same_kind",
        where: Any = True,
        **kwargs: Any,
    ) -> Any:
        if len(args) != self.nin:
            if len(args) == self.nin + 1 and out is None:
                out = args[-1]
                args = args[:-1]
            else:
                raise TypeError(
                    f"{self.__name__}() takes from {self.nin} to {self.nin + 1} positional arguments but "
                    f"{len(args)} were given"
                )
        if kwargs:
            raise TypeError(f"{self.__name__}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if isinstance(out, tuple):
            (out,) = out
        if self.nin == 1:
            (x,) = args
            if type(x) is _Expr:
                return x.unary(self._rust)
            if dtype is not None:
                x = self._cast_inputs([x], dtype, casting)[0]
            if where is not True:
                r = _c.unary(self._rust, x)
                return _masked(r, where, out)
            return _c.unary(self._rust, x, out)
        a, b = args
        if type(a) is _Expr:
            return a.binary(self._rust, b)
        if type(b) is _Expr:
            return b.binary(self._rust, a, True)
        if dtype is not None:
            a, b = self._cast_inputs([a, b], dtype, casting)
        if where is not True:
            return _masked(_c.binary(self._rust, a, b), where, out)
        return _c.binary(self._rust, a, b, out)

    def _cast_inputs(self, xs: list, dtype: Any, casting: str) -> list:
        """The inputs converted to the loop's ``dtype=``, each allowed by ``casting`` (NumPy's UFuncTypeError, a
        TypeError, otherwise; Python scalars are weak and always allowed)."""
        dt = numpy.dtype(dtype)
        out = []
        for k, x in enumerate(xs):
            weak = isinstance(x, bool | int | float | complex)
            x = _arr(x, out[0] if out else None)
            if not weak and not numpy.can_cast(x.dtype, dt, casting):
                raise TypeError(
                    f"Cannot cast ufunc '{self.__name__}' input {k} from {x.dtype!r} to {dt!r} with casting rule "
                    f"'{casting}'"
                )
            out.append(x.astype(dt, copy=False))
        return out

    def reduce(
        self,
        array: Any,
        axis: Any = 0,
        dtype: Any = None,
        out: Any = None,
        keepdims: bool = False,
        initial: Any = None,
        where: Any = True,
    ) -> Any:
        red = _UFUNC_REDUCE.get(self.__name__)
        if red is None:
            raise NotImplementedError(f"cuprum: {self.__name__}.reduce")
        x = _arr(array)
        if initial is not None or where is not True:
            raise NotImplementedError(f"cuprum: {self.__name__}.reduce with initial= or where=")
        return _c.reduce(red, x, _axis(axis), dtype, out, keepdims)

    def accumulate(self, array: Any, axis: int = 0, dtype: Any = None, out: Any = None) -> Any:
        x = _arr(array)
        if dtype is not None:
            x = x.astype(dtype)
        if self.__name__ == "add":
            return _out(_c.cumulative(x, False, axis), out)
        if self.__name__ == "multiply":
            return _out(_c.cumulative(x, True, axis), out)
        raise NotImplementedError(f"cuprum: {self.__name__}.accumulate")

    def outer(self, a: Any, b: Any, **kwargs: Any) -> Any:
        a, b = _arr(a), _arr(b)
        return self(a.reshape(a.shape + (1,) * b.ndim), b, **kwargs)

    def at(self, a: ndarray, indices: Any, b: Any = None) -> None:
        if self.__name__ != "add":
            raise NotImplementedError(f"cuprum: {self.__name__}.at")
        idx = indices if isinstance(indices, tuple) else (indices,)
        idx = [_arr(i, a) for i in idx]
        vals = _arr(b, a).astype(a.dtype)
        shape = numpy.broadcast_shapes(*[i.shape for i in idx])
        _c.scatter(a, idx, _c.broadcast_to(vals, shape + a.shape[len(idx) :]), True)


def _masked(r: ndarray, where: Any, out: Any) -> ndarray:
    if out is None:
        raise NotImplementedError("cuprum: where= without out=")
    w = _arr(where, r)
    _c.assign(out, _c.where3(w, r, out))
    return out


_UFUNC_REDUCE = {
    "add": "sum",
    "multiply": "prod",
    "maximum": "max",
    "minimum": "min",
    "logical_and": "all",
    "logical_or": "any",
    "fmax": "max",
    "fmin": "min",
}

_UNARY = [
    "negative",
    "positive",
    "absolute",
    "sign",
    "square",
    "sqrt",
    "cbrt",
    "reciprocal",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "floor",
    "ceil",
    "rint",
    "trunc",
    "logical_not",
    "invert",
    "isnan",
    "isinf",
    "isfinite",
    "conjugate",
]
_BINARY = [
    "add",
    "subtract",
    "multiply",
    "true_divide",
    "floor_divide",
    "remainder",
    "power",
    "arctan2",
    "hypot",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
]

_g = globals()
for _n in _UNARY:
    _g[_n] = ufunc(_n, 1)
for _n in _BINARY:
    _g[_n] = ufunc(_n, 2)
divide = ufunc("divide", 2, "true_divide")
true_divide = divide
mod = remainder = ufunc("remainder", 2)  # noqa: F811
abs = absolute = ufunc("absolute", 1)  # noqa: A001
conj = conjugate = ufunc("conjugate", 1)
bitwise_not = bitwise_invert = invert = ufunc("invert", 1)
pow = power = ufunc("power", 2)  # noqa: A001
asin, acos, atan, atan2 = arcsin, arccos, arctan, arctan2  # noqa: F821
asinh = None
bitwise_left_shift, bitwise_right_shift = left_shift, right_shift  # noqa: F821
fabs = absolute


def _composite(name: str, fn: Any) -> Any:
    fn.__name__ = name
    return fn


def _float_fn(x: Any) -> tuple[ndarray, Any]:
    """NumPy's loop choice for a float function: (the input in a dtype to compute in, the result dtype).
    Integers take the smallest float that holds them; float16 computes in float32 (NumPy's half loops
    do too) and rounds once at the end."""
    x = _arr(x)
    k = x.dtype
    if k.kind in "fc":
        out = k
    elif k.itemsize <= 1 or k == numpy.bool_:
        out = numpy.dtype(numpy.float16)
    elif k.itemsize == 2:
        out = numpy.dtype(numpy.float32)
    else:
        out = numpy.dtype(numpy.float64)
    work = numpy.dtype(numpy.float32) if out == numpy.float16 else out
    return x.astype(work, copy=False), out


def _cplx(re: ndarray, im: ndarray) -> ndarray:
    """The complex array of two real parts, exactly (no arithmetic, so infinities and NaNs stay put)."""
    r = empty(re.shape, numpy.result_type(re.dtype, numpy.complex64), device=re.device)
    r.real[...] = re
    r.imag[...] = im
    return r


def _mul_i(z: ndarray, sign: int) -> ndarray:
    """``1j * z`` (sign 1) or ``-1j * z`` (sign -1) by swapping the parts: C99's identities between the
    complex hyperbolic and circular inverses hold exactly this way, at infinities too."""
    return _cplx(-z.imag, z.real) if sign > 0 else _cplx(z.imag, -z.real)


def arcsinh(x: Any, out: Any = None) -> ndarray:
    """``numpy.arcsinh``: sign(x) log(|x| + sqrt(x^2 + 1)) (exact to within a few ulp for real x); complex:
    C99's casinh(z) = -i casin(iz), through cuprum's complex arcsin (glibc's results)."""
    w, dt = _float_fn(x)
    if w.dtype.kind == "c":
        return _out(_mul_i(arcsin(_mul_i(w, 1)), -1), out)  # noqa: F821
    a = absolute(w)  # noqa: F821
    big = greater(a, 1e8 if w.dtype == numpy.float32 else 1e150)  # noqa: F821
    # log1p form for small |x| keeps the relative accuracy near 0.
    small = log1p(a + a * a / (1 + sqrt(a * a + 1)))  # noqa: F821
    r = where(big, log(a) + numpy.log(2.0), small)  # noqa: F821
    r = where(signbit(w), -r, r)
    return _out(r.astype(dt, copy=False), out)


def arccosh(x: Any, out: Any = None) -> ndarray:
    """``numpy.arccosh``: log(x + sqrt(x^2 - 1)); nan below 1."""
    w, dt = _float_fn(x)
    if w.dtype.kind == "c":
        # C99's cacosh: +-i cacos(z), the sign that makes the real part non-negative.
        a = arccos(w)  # noqa: F821
        return _out(where(signbit(a.imag), _mul_i(a, 1), _mul_i(a, -1)), out)
    t = w - 1
    big = greater(w, 1e8 if w.dtype == numpy.float32 else 1e150)  # noqa: F821
    r = where(big, log(w) + numpy.log(2.0), log1p(t + sqrt(2 * t + t * t)))  # noqa: F821
    r = where(less(w, 1), numpy.nan, r)  # noqa: F821
    return _out(r.astype(dt, copy=False), out)


def arctanh(x: Any, out: Any = None) -> ndarray:
    """``numpy.arctanh``: log1p(2x / (1 - x)) / 2; complex: C99's catanh(z) = -i catan(iz)."""
    w, dt = _float_fn(x)
    if w.dtype.kind == "c":
        return _out(_mul_i(arctan(_mul_i(w, 1)), -1), out)  # noqa: F821
    r = 0.5 * log1p(2 * w / (1 - w))  # noqa: F821
    return _out(r.astype(dt, copy=False), out)


asinh, acosh, atanh = arcsinh, arccosh, arctanh


def deg2rad(x: Any, out: Any = None) -> ndarray:
    return _out(_arr(x) * (numpy.pi / 180), out)


def rad2deg(x: Any, out: Any = None) -> ndarray:
    return _out(_arr(x) * (180 / numpy.pi), out)


radians, degrees = deg2rad, rad2deg


def _is_pyscalar(v: Any) -> bool:
    return type(v) in (int, float, complex, bool)


def _float_operands(ufunc: numpy.ufunc, x1: Any, x2: Any) -> tuple[ndarray, ndarray]:
    """The operands of a binary float ufunc that cuprum composes from others: on one device, and cast to
    the dtype NumPy's ``ufunc`` computes in for them (NEP 50: a Python scalar is weak, ``logaddexp(float32
    array, 0)`` is float32; integers take the first float loop they cast to safely)."""
    a = x1 if _is_pyscalar(x1) else _arr(x1)
    b = x2 if _is_pyscalar(x2) else _arr(x2, a if type(a) is ndarray else None)
    dt = ufunc(*(v if _is_pyscalar(v) else numpy.empty(0, v.dtype) for v in (a, b))).dtype
    like = a if type(a) is ndarray else b if type(b) is ndarray else None
    return _arr(a, like).astype(dt, copy=False), _arr(b, like).astype(dt, copy=False)


def logaddexp(x1: Any, x2: Any, out: Any = None) -> ndarray:
    a, b = _float_operands(numpy.logaddexp, x1, x2)
    m = maximum(a, b)  # noqa: F821
    # Equal operands (infinities included, where a - b is NaN) give a + log(2), as NumPy's loop does.
    r = where(equal(a, b), a + numpy.log(2.0), m + log1p(exp(-absolute(a - b))))  # noqa: F821
    return _out(r.astype(a.dtype, copy=False), out)


def logaddexp2(x1: Any, x2: Any, out: Any = None) -> ndarray:
    a, b = _float_operands(numpy.logaddexp2, x1, x2)
    m = maximum(a, b)  # noqa: F821
    r = where(equal(a, b), a + 1.0, m + log1p(exp2(-absolute(a - b))) / numpy.log(2.0))  # noqa: F821
    return _out(r.astype(a.dtype, copy=False), out)


def real(val: Any) -> ndarray:
    return _c.real(_arr(val))


def imag(val: Any) -> ndarray:
    return _c.imag(_arr(val))


def angle(z: Any, deg: bool = False) -> ndarray:
    return _c.angle(_arr(z), deg)


_SAME_SIZE_INT = {2: numpy.dtype(numpy.int16), 4: numpy.dtype(numpy.int32), 8: numpy.dtype(numpy.int64)}


def signbit(x: Any, out: Any = None) -> ndarray:
    """Whether the sign bit is set: also for -0.0 and a negative NaN (read from the float's bits)."""
    x = _arr(x)
    if x.dtype.kind == "c":
        raise TypeError("ufunc 'signbit' not supported for the input types")
    if x.dtype.kind != "f":
        return _out(less(x, 0), out)  # noqa: F821
    return _out(less(x.view(_SAME_SIZE_INT[x.dtype.itemsize]), 0), out)  # noqa: F821


def copysign(x1: Any, x2: Any, out: Any = None) -> ndarray:
    a, b = _float_operands(numpy.copysign, x1, x2)
    mag = absolute(a)  # noqa: F821
    return _out(where(signbit(b), -mag, mag), out)


def nextafter(x1: Any, x2: Any, out: Any = None) -> ndarray:
    """The next float after ``x1`` towards ``x2`` in their dtype, stepped on the float's bits (exact for
    every dtype; ``nextafter(0, -1)`` is the negative smallest subnormal, ``nextafter(x, x)`` is ``x2``)."""
    a, b = _float_operands(numpy.nextafter, x1, x2)
    a, b = broadcast_arrays(a, b)  # noqa: F821
    it = _SAME_SIZE_INT[a.dtype.itemsize]
    bits = a.copy().view(it)
    # Sign and magnitude: adding one to the bits moves away from zero for either sign.
    away = equal(greater(b, a), greater(a, 0))  # noqa: F821
    stepped = where(away, bits + 1, bits - 1)
    # From zero: the smallest subnormal with x2's sign (Python ints: made `it` here).
    tiny = where(signbit(b), numpy.iinfo(it).min + 1, 1).astype(it, copy=False)
    r = where(equal(a, 0), tiny, stepped).view(a.dtype)  # noqa: F821
    r = where(equal(a, b), b, r)  # noqa: F821
    # A NaN operand is the result, x1's first (C's x + y on a CPU; a GPU's sum would be its canonical NaN).
    return _out(where(isnan(a), a, where(isnan(b), b, r)), out)  # noqa: F821


def fmod(x1: Any, x2: Any) -> ndarray:
    a, b = _arr(x1), _arr(x2, _arr(x1))
    r = remainder(a, b)  # noqa: F821
    return where(logical_and(not_equal(r, 0), not_equal(signbit(r), signbit(a))), r - b, r)  # noqa: F821


def nan_to_num(x: Any, copy: bool = True, nan: float = 0.0, posinf: Any = None, neginf: Any = None) -> ndarray:
    x = _arr(x)
    if x.dtype.kind not in "fc":
        return x.copy() if copy else x
    fi = numpy.finfo(x.dtype)
    posinf = fi.max if posinf is None else posinf
    neginf = fi.min if neginf is None else neginf
    r = where(isnan(x), nan, x)  # noqa: F821
    r = where(logical_and(isinf(r), greater(r, 0)), posinf, r)  # noqa: F821
    r = where(logical_and(isinf(r), less(r, 0)), neginf, r)  # noqa: F821
    return r.astype(x.dtype, copy=False)


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """``numpy.where``: ``x`` where ``condition``, else ``y``; with one argument, ``nonzero(condition)``."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    if type(condition) is _Expr:
        return condition.where_(x, y)
    # NumPy's where casts a Python int that its integer partner cannot hold (where(c, int8, 1000) is int8,
    # -24): not NEP 50's OverflowError. The same here.
    if isinstance(y, int) and not isinstance(y, bool) and isinstance(x, ndarray) and x.dtype.kind in "iu":
        y = _wrap_int(y, x.dtype)
    if isinstance(x, int) and not isinstance(x, bool) and isinstance(y, ndarray) and y.dtype.kind in "iu":
        x = _wrap_int(x, y.dtype)
    return _c.where3(condition, x, y)


_WHERE_CASTS_INTS: bool | None = None


def _wrap_int(v: int, dt: numpy.dtype) -> Any:
    """NumPy < 2.5 casts such an int into the dtype; NumPy >= 2.5 follows NEP 50 (OverflowError, raised by
    cuprum's own where). cuprum answers as the NumPy beside it."""
    global _WHERE_CASTS_INTS
    info = numpy.iinfo(dt)
    if info.min <= v <= info.max:
        return v
    if _WHERE_CASTS_INTS is None:
        try:
            numpy.where(True, numpy.int8(1), 1000)
            _WHERE_CASTS_INTS = True
        except OverflowError:
            _WHERE_CASTS_INTS = False
    if not _WHERE_CASTS_INTS:
        raise OverflowError(f"Python integer {v} out of bounds for {dt}")
    return numpy.array(v).astype(dt)[()]


def clip(a: Any, a_min: Any = None, a_max: Any = None, out: Any = None, *, min: Any = None, max: Any = None) -> ndarray:  # noqa: A002
    lo = a_min if a_min is not None else min
    hi = a_max if a_max is not None else max
    if lo is None and hi is None:
        # NumPy 2 (and the Array API): no bounds, a copy.
        return _out(_arr(a).copy(), out)
    return _out(_c.clip(_arr(a), lo, hi), out)


def round(a: Any, decimals: int = 0, out: Any = None) -> ndarray:  # noqa: A001
    return _out(_c.round(_arr(a), decimals), out)


around = round_ = round


def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> ndarray:
    a = _arr(a)
    return _c.isclose(a, _arr(b, a), rtol, atol, equal_nan)


def allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    a = _arr(a)
    return _c.allclose(a, _arr(b, a), rtol, atol, equal_nan)


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> bool:
    a = _arr(a1)
    b = _arr(a2, a)
    if equal_nan:
        return a.shape == b.shape and bool(all(logical_or(equal(a, b), logical_and(isnan(a), isnan(b)))))  # noqa: F821
    return _c.array_equal(a, b)


def array_equiv(a1: Any, a2: Any) -> bool:
    a = _arr(a1)
    b = _arr(a2, a)
    try:
        return bool(all(equal(a, b)))  # noqa: F821
    except ValueError:
        return False


# ----------------------------------------------------------------------------------------- reductions


def _reduction(name: str, has_dtype: bool = True, has_ddof: bool = False) -> Any:
    if has_ddof:

        def f(
            a: Any,
            axis: Any = None,
            dtype: Any = None,
            out: Any = None,
            ddof: float = 0,
            keepdims: bool = False,
            *,
            where: Any = True,
            mean: Any = None,
            correction: Any = None,
        ) -> Any:
            if correction is not None:
                ddof = correction
            if isinstance(ddof, int) and not -(2**63) <= ddof < 2**63:
                raise OverflowError("Python int too large to convert to C long")  # NumPy's C long ddof
            if type(a) is _Expr:
                return a.reduce(name, _axis(axis), float(ddof))
            return _c.reduce(name, _arr(a), _axis(axis), dtype, out, keepdims, float(ddof))
    elif has_dtype:

        def f(
            a: Any,
            axis: Any = None,
            dtype: Any = None,
            out: Any = None,
            keepdims: bool = False,
            initial: Any = None,
            where: Any = True,
        ) -> Any:
            if type(a) is _Expr:
                return a.reduce(name, _axis(axis))
            if initial is not None:
                raise NotImplementedError(f"cuprum: {name} with initial=")
            return _c.reduce(name, _arr(a), _axis(axis), dtype, out, keepdims)
    else:

        def f(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False, *args: Any, **kw: Any) -> Any:
            if type(a) is _Expr:
                return a.reduce(name, _axis(axis))
            return _c.reduce(name, _arr(a), _axis(axis), None, out, keepdims)

    f.__name__ = name
    f.__doc__ = f"``numpy.{name}`` over ``axis`` (``None``: all), with ``keepdims``."
    return f


sum = _reduction("sum")  # noqa: A001
prod = _reduction("prod")
mean = _reduction("mean")
var = _reduction("var", has_ddof=True)
std = _reduction("std", has_ddof=True)
amin = min = _reduction("min", has_dtype=False)  # noqa: A001
amax = max = _reduction("max", has_dtype=False)  # noqa: A001
argmin = _reduction("argmin", has_dtype=False)
argmax = _reduction("argmax", has_dtype=False)
any = _reduction("any", has_dtype=False)  # noqa: A001
all = _reduction("all", has_dtype=False)  # noqa: A001


def count_nonzero(a: Any, axis: Any = None, *, keepdims: bool = False) -> ndarray:
    return _c.reduce("count_nonzero", _arr(a), _axis(axis), None, None, keepdims)


def ptp(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:
    a = _arr(a)
    return _out(max(a, axis, keepdims=keepdims) - min(a, axis, keepdims=keepdims), out)


def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *, keepdims: bool = False) -> Any:
    a = _arr(a)
    if weights is None:
        r = mean(a, axis, keepdims=keepdims)
        n = a.size // builtins.max(r.size, 1)
        return (r, full_like(r, n)) if returned else r
    w = _arr(weights, a)
    if w.shape != a.shape:
        if axis is None or w.ndim != 1:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        shape = [1] * a.ndim
        shape[axis] = w.shape[0]
        w = w.reshape(shape)
    scl = sum(w * ones_like(a), axis, keepdims=keepdims)
    if bool((scl == 0).any()):  # NumPy's check (a read-back: average with weights is not a hot path)
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    r = sum(a * w, axis, keepdims=keepdims) / scl
    return (r, scl) if returned else r


def _nanfill(a: ndarray, v: Any) -> ndarray:
    return where(isnan(a), v, a) if a.dtype.kind in "fc" else a  # noqa: F821


def nansum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:
    return sum(_nanfill(_arr(a), 0), axis, dtype, out, keepdims)


def nanprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:
    return prod(_nanfill(_arr(a), 1), axis, dtype, out, keepdims)


def nanmax(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:
    a = _arr(a)
    return (
        _out(_c.reduce("max", _nanfill(a, -inf), _axis(axis), None, None, keepdims), out)
        if a.dtype.kind == "f"
        else max(a, axis, out, keepdims)
    )


def nanmin(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:
    a = _arr(a)
    return (
        _out(_c.reduce("min", _nanfill(a, inf), _axis(axis), None, None, keepdims), out)
        if a.dtype.kind == "f"
        else min(a, axis, out, keepdims)
    )


def nanmean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:
    a = _arr(a)
    if a.dtype.kind not in "fc":
        return mean(a, axis, dtype, out, keepdims)
    n = sum(logical_not(isnan(a)), axis, keepdims=keepdims)  # noqa: F821
    return _out(nansum(a, axis, dtype, keepdims=keepdims) / n, out)


def nanvar(
    a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: float = 0, keepdims: bool = False
) -> ndarray:
    a = _arr(a)
    if a.dtype.kind not in "fc":
        return var(a, axis, dtype, out, ddof, keepdims)
    ok = logical_not(isnan(a))  # noqa: F821
    n = sum(ok, axis, keepdims=True)
    m = nansum(a, axis, dtype, keepdims=True) / n
    d = where(ok, a - m, 0)
    sq = real(d * conj(d)) if d.dtype.kind == "c" else d * d
    r = sum(sq, axis, keepdims=keepdims) / (sum(ok, axis, keepdims=keepdims) - ddof)
    return _out(r, out)


def nanstd(
    a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: float = 0, keepdims: bool = False
) -> ndarray:
    return _out(sqrt(nanvar(a, axis, dtype, None, ddof, keepdims)), out)  # noqa: F821


def nanargmax(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> ndarray:
    return argmax(_nanfill(_arr(a), -inf), axis, out, keepdims)


def nanargmin(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> ndarray:
    return argmin(_nanfill(_arr(a), inf), axis, out, keepdims)


def _scan_doubling(a: ndarray, axis: Any) -> ndarray:
    """Inclusive products along ``axis`` by doubling (log2(n) elementwise steps on the device): the GPU
    backend's complex cumprod, which cuprum has no kernel for."""
    x = a.ravel() if axis is None else a
    ax = 0 if axis is None else axis % x.ndim
    r = x.copy()
    n = r.shape[ax]
    k = 1
    while k < n:
        hi = [slice(None)] * r.ndim
        lo = [slice(None)] * r.ndim
        hi[ax] = slice(k, None)
        lo[ax] = slice(0, n - k)
        r[tuple(hi)] = r[tuple(hi)] * r[tuple(lo)]
        k *= 2
    return r


def _cumulative(a: Any, prod: bool, axis: Any, dtype: Any, out: Any) -> ndarray:
    a = _arr(a)
    if prod and a.dtype.kind == "c" and a.device.kind == "cuda" and dtype is None:
        return _out(_scan_doubling(a, axis), out)
    if dtype is not None:
        # NumPy accumulates in ``dtype``: integers wrap there, which the wider sum cast back equals.
        r = _c.cumulative(a.astype(dtype, copy=False), prod, axis)
        return _out(r.astype(dtype, copy=False), out)
    return _out(_c.cumulative(a, prod, axis), out)


def cumsum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> ndarray:
    return _cumulative(a, False, axis, dtype, out)


def cumprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> ndarray:
    return _cumulative(a, True, axis, dtype, out)


def _cumulative_api(x: Any, prod: bool, axis: Any, dtype: Any, include_initial: bool) -> ndarray:
    x = _arr(x)
    if x.ndim == 0:
        x = x.reshape(1)
    if axis is None:
        if x.ndim > 1:
            raise ValueError("For arrays which have more than one dimension ``axis`` argument is required.")
        axis = 0
    r = _cumulative(x, prod, axis, dtype, None)
    if include_initial:
        ax = operator.index(axis) % r.ndim
        shape = r.shape[:ax] + (1,) + r.shape[ax + 1 :]
        first = (ones if prod else zeros)(shape, dtype=r.dtype, device=r.device)  # noqa: F821
        r = concatenate([first, r], axis=ax)  # noqa: F821
    return r


def cumulative_sum(x: Any, /, *, axis: Any = None, dtype: Any = None, include_initial: bool = False) -> ndarray:
    """The Array API's (and NumPy 2's) cumulative sum: ``axis`` may be left out for 1-D input only;
    ``include_initial`` starts each run with the sum of nothing (0)."""
    return _cumulative_api(x, False, axis, dtype, include_initial)


def cumulative_prod(x: Any, /, *, axis: Any = None, dtype: Any = None, include_initial: bool = False) -> ndarray:
    """As ``cumulative_sum``, for the product (the initial value is 1)."""
    return _cumulative_api(x, True, axis, dtype, include_initial)


# ----------------------------------------------------------------------------------------- statistics


def _q(q: Any) -> tuple[list[float], bool]:
    if isinstance(q, ndarray):
        q = q.get()
    qa = numpy.asarray(q, dtype=numpy.float64)
    return [float(v) for v in qa.ravel()], qa.ndim > 0


def _quantile(a: Any, q: Any, axis: Any, out: Any, keepdims: bool, method: str, nan: bool, scale: float) -> ndarray:
    a = _arr(a)
    qs, vec = _q(q)
    qshape = q.shape if isinstance(q, ndarray) else numpy.shape(q)
    qs = [v / scale for v in qs]
    if builtins.any(not (0 <= v <= 1) for v in qs):
        raise ValueError(
            "Percentiles must be in the range [0, 100]" if scale == 100 else "Quantiles must be in the range [0, 1]"
        )
    r = _c.quantiles(a, qs, _axis(axis), method, nan)
    if not isinstance(q, int | float) and method not in ("lower", "higher", "nearest"):
        # An array of q is strong (NEP 50): it takes part in the result's dtype.
        qdt = q.dtype if isinstance(q, ndarray) else numpy.asarray(q).dtype
        r = r.astype(numpy.result_type(r.dtype, qdt), copy=False)
    if keepdims:
        shape = list(a.shape) if axis is not None else [1] * a.ndim
        axes = range(a.ndim) if axis is None else [x % a.ndim for x in ((axis,) if isinstance(axis, int) else axis)]
        for x in axes:
            shape[x] = 1
        r = r.reshape((len(qs),) + tuple(shape))
    if not vec:
        r = r[0]
    else:
        r = r.reshape(qshape + r.shape[1:])
    return _out(r, out)


def quantile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    interpolation: Any = None,
) -> ndarray:
    return _quantile(a, q, axis, out, keepdims, interpolation or method, False, 1.0)


def percentile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    interpolation: Any = None,
) -> ndarray:
    return _quantile(a, q, axis, out, keepdims, interpolation or method, False, 100.0)


def nanquantile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
) -> ndarray:
    return _quantile(a, q, axis, out, keepdims, method, True, 1.0)


def nanpercentile(
    a: Any,
    q: Any,
    axis: Any = None,
    out: Any = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
) -> ndarray:
    return _quantile(a, q, axis, out, keepdims, method, True, 100.0)


def _median(a: Any, axis: Any, out: Any, keepdims: bool, nan: bool) -> ndarray:
    a = _arr(a)
    r = _c.median(a, _axis(axis), nan)
    if keepdims:
        axes = range(a.ndim) if axis is None else [x % a.ndim for x in ((axis,) if isinstance(axis, int) else axis)]
        shape = [1 if i in axes else d for i, d in enumerate(a.shape)]
        r = r.reshape(shape)
    return _out(r, out)


def median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False) -> ndarray:
    return _median(a, axis, out, keepdims, False)


def nanmedian(
    a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False
) -> ndarray:
    return _median(a, axis, out, keepdims, True)


def histogram(a: Any, bins: Any = 10, range: Any = None, density: Any = None, weights: Any = None) -> tuple:  # noqa: A002
    a = _arr(a)
    w = _arr(weights, a) if weights is not None else None
    if isinstance(bins, str):
        raise NotImplementedError("cuprum: histogram with a bin estimator name")
    r = tuple(float(v) for v in range) if range is not None else None
    if isinstance(bins, list | tuple | numpy.ndarray | ndarray) and len(bins) == 0:
        # No edges, no bins: NumPy's empty counts and edges.
        return zeros(0, dtype=numpy.int64, device=a.device), zeros(0, dtype=numpy.float64, device=a.device)
    if isinstance(bins, int | numpy.integer) and not isinstance(bins, bool):
        if bins < 1:
            raise ValueError("`bins` must be positive, when an integer")
        if bins >= 2**63:
            raise ValueError("Maximum allowed size exceeded")
    h, edges = _c.histogram(a, bins, r, w, bool(density))
    if a.dtype.kind == "f" and isinstance(bins, int | numpy.integer):
        # NumPy's uniform edges are in the input's float dtype, and so are the widths a density divides by.
        dt = numpy.result_type(a.dtype, *(range or ()))
        if dt != edges.dtype:
            # NumPy's edges: linspace of the (float32) ends, rounded to the input's dtype.
            if range is None:
                lo, hi = (a.min().item(), a.max().item()) if a.size else (0.0, 1.0)
                lo, hi = numpy.asarray(lo, a.dtype), numpy.asarray(hi, a.dtype)
            else:
                lo, hi = range
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            he = numpy.linspace(lo, hi, int(bins) + 1, endpoint=True, dtype=dt)
            edges = asarray(he, device=a.device)
            if density:
                n, _ = _c.histogram(a, bins, r, w, False)
                h = n / asarray(numpy.diff(he).astype(numpy.float64), device=a.device) / n.sum()
    return h, edges


def bincount(x: Any, weights: Any = None, minlength: int = 0) -> ndarray:
    x = _arr(x)
    minlength = _count(minlength, "'minlength' must not be negative")
    return _c.bincount(x, _arr(weights, x) if weights is not None else None, minlength)


def digitize(x: Any, bins: Any, right: bool = False) -> ndarray:
    x = _arr(x)
    return _c.digitize(x, _arr(bins, x), right)


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None) -> ndarray:
    x = atleast_2d(_arr(m))
    if y is not None:
        x = concatenate([x, atleast_2d(_arr(y, x))], axis=0 if rowvar else 1)
    if not rowvar:
        x = x.T
    if ddof is None:
        ddof = 0 if bias else 1
    if x.dtype.kind not in "fc":
        x = x.astype(float64)
    n = x.shape[1]
    xc = x - mean(x, axis=1, keepdims=True)
    fact = n - ddof
    if fact <= 0:
        # NumPy's: no degrees of freedom left, the products divided by 0.
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    with numpy.errstate(divide="ignore", invalid="ignore"):
        c = matmul(xc, conj(xc).T) / fact  # noqa: F821
    return c.squeeze()


def corrcoef(x: Any, y: Any = None, rowvar: bool = True) -> ndarray:
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return c / c
    d = sqrt(diagonal(c).real)  # noqa: F821
    return c / d[:, None] / d[None, :]


# ----------------------------------------------------------------------------------------- creation


def _dt(dtype: Any, default: Any = numpy.float64) -> Any:
    return default if dtype is None else dtype


def empty(shape: Any, dtype: Any = float, order: str = "C", *, device: Any = None) -> ndarray:
    return _c.empty(shape, _dt(dtype), device)


def zeros(shape: Any, dtype: Any = float, order: str = "C", *, device: Any = None) -> ndarray:
    return _c.zeros(shape, _dt(dtype), device)


def ones(shape: Any, dtype: Any = float, order: str = "C", *, device: Any = None) -> ndarray:
    return _c.full(shape, 1, _dt(dtype), device)


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C", *, device: Any = None) -> ndarray:
    if dtype is None:
        dtype = (
            fill_value.dtype
            if isinstance(fill_value, ndarray | numpy.generic)
            else numpy.result_type(fill_value)
            if not isinstance(fill_value, bool | int | float | complex)
            else {bool: numpy.bool_, int: numpy.int64, float: numpy.float64, complex: numpy.complex128}[
                type(fill_value)
            ]
        )
    return _c.full(shape, fill_value, dtype, device)


def _like(a: Any, dtype: Any, shape: Any, device: Any) -> tuple:
    if isinstance(a, ndarray):
        return (
            a.shape if shape is None else shape,
            a.dtype if dtype is None else dtype,
            a.device if device is None else device,
        )
    h = numpy.asarray(a)
    return h.shape if shape is None else shape, h.dtype if dtype is None else dtype, device


def empty_like(
    prototype: Any, dtype: Any = None, order: str = "K", subok: bool = True, shape: Any = None, *, device: Any = None
) -> ndarray:
    s, d, dev = _like(prototype, dtype, shape, device)
    return _c.empty(s, d, dev)


def zeros_like(
    a: Any, dtype: Any = None, order: str = "K", subok: bool = True, shape: Any = None, *, device: Any = None
) -> ndarray:
    s, d, dev = _like(a, dtype, shape, device)
    return _c.zeros(s, d, dev)


def ones_like(
    a: Any, dtype: Any = None, order: str = "K", subok: bool = True, shape: Any = None, *, device: Any = None
) -> ndarray:
    s, d, dev = _like(a, dtype, shape, device)
    return _c.full(s, 1, d, dev)


def full_like(
    a: Any,
    fill_value: Any,
    dtype: Any = None,
    order: str = "K",
    subok: bool = True,
    shape: Any = None,
    *,
    device: Any = None,
) -> ndarray:
    s, d, dev = _like(a, dtype, shape, device)
    return _c.full(s, fill_value, d, dev)


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None, *, device: Any = None) -> ndarray:
    """``numpy.arange``: integers when every argument is an integer, else float64 (or ``dtype``)."""
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    if step == 0:
        raise ZeroDivisionError("division by zero")
    vals = (start, stop, step)
    ints = builtins.all(isinstance(v, int | numpy.integer) and not isinstance(v, bool) for v in vals)
    if dtype is None:
        dtype = numpy.int64 if ints else numpy.result_type(*[numpy.asarray(v).dtype for v in vals], numpy.float64)
    if ints and numpy.dtype(dtype).kind in "iu":
        start, stop, step = int(start), int(stop), int(step)
        # NumPy converts the first two values to the dtype (OverflowError if they do not fit); the
        # others wrap.
        info = numpy.iinfo(dtype)
        n = builtins.max(0, -((start - stop) // step))
        if n > 2**63:
            # (NumPy's arange(2**63) overflows its own length to an empty array; past that it raises.)
            raise ValueError("Maximum allowed size exceeded")
        for v in (start, start + step)[: builtins.min(n, 2)]:
            if not info.min <= v <= info.max:
                raise OverflowError(f"Python integer {v} out of bounds for {numpy.dtype(dtype)}")
        return _c.arange_int(start, stop, step, dtype, device)
    return _c.arange_float(float(start), float(stop), float(step), dtype, device)


def linspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = None,
    axis: int = 0,
    *,
    device: Any = None,
) -> Any:
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if num >= 2**63:
        raise ValueError("Maximum allowed size exceeded")
    if isinstance(start, ndarray | numpy.ndarray) or isinstance(stop, ndarray | numpy.ndarray):
        raise NotImplementedError("cuprum: linspace with array endpoints")
    if dtype is None:
        dtype = numpy.result_type(start, stop, float(num))
    if numpy.dtype(dtype).kind == "c" or isinstance(start, complex) or isinstance(stop, complex):
        # Complex endpoints: the real and imaginary parts are two real ramps.
        s, t = complex(start), complex(stop)
        re = _c.linspace(s.real, t.real, num, endpoint, numpy.float64, device)
        im = _c.linspace(s.imag, t.imag, num, endpoint, numpy.float64, device)
        r = (re + im * 1j).astype(dtype, copy=False)
        if retstep:
            div = (num - 1) if endpoint else num
            return r, ((t - s) / div if div > 0 else numpy.nan)
        return r
    r = _c.linspace(float(start), float(stop), num, endpoint, dtype, device)
    if retstep:
        div = (num - 1) if endpoint else num
        step = (stop - start) / div if div > 0 else numpy.nan
        return r, step
    return r


def logspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: float = 10.0, dtype: Any = None, axis: int = 0
) -> ndarray:
    y = linspace(start, stop, num, endpoint)
    r = power(base, y)  # noqa: F821
    return r if dtype is None else r.astype(dtype)


def eye(N: int, M: Any = None, k: int = 0, dtype: Any = float, order: str = "C", *, device: Any = None) -> ndarray:
    # A diagonal past the last column or row is empty, however far: k is clamped there (it may exceed
    # int64, as in NumPy).
    N = _count(N, huge="Maximum allowed dimension exceeded")
    M = None if M is None else _count(M, huge="Maximum allowed dimension exceeded")
    k = operator.index(k)
    k = builtins.min(k, N if M is None else M) if k > 0 else builtins.max(k, -N)
    return _c.eye(N, M, k, dtype, device)


def identity(n: int, dtype: Any = float, *, device: Any = None) -> ndarray:
    return _c.eye(_count(n, huge="Maximum allowed dimension exceeded"), None, 0, dtype, device)


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> tuple:
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    if sparse:
        arrs = [_arr(x).ravel() for x in xi]
        n = len(arrs)
        out = []
        for i, a in enumerate(arrs):
            shape = [1] * n
            shape[i] = a.size
            if indexing == "xy" and n > 1 and i < 2:
                shape[0], shape[1] = shape[1], shape[0]
            out.append(a.reshape(shape))
        return tuple(out)
    return tuple(_c.meshgrid([_arr(x) for x in xi], indexing == "ij"))


def diag(v: Any, k: int = 0) -> ndarray:
    v = _arr(v)
    if v.ndim == 1:
        n = v.shape[0] + builtins.abs(k)
        r = zeros((n, n), v.dtype, device=v.device)
        idx = arange(v.shape[0], device=v.device)
        rows, cols = (idx, idx + k) if k >= 0 else (idx - k, idx)
        r[rows, cols] = v
        return r
    if v.ndim == 2:
        return diagonal(v, k).copy()
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v: Any, k: int = 0) -> ndarray:
    return diag(_arr(v).ravel(), k)


def tri(N: int, M: Any = None, k: int = 0, dtype: Any = float, *, device: Any = None) -> ndarray:
    M = N if M is None else M
    i = arange(N, device=device).reshape(N, 1)
    j = arange(M, device=device).reshape(1, M)
    return greater_equal(i + k, j).astype(dtype)  # noqa: F821


def tril(m: Any, k: int = 0) -> ndarray:
    m = _arr(m)
    mask = tri(m.shape[-2], m.shape[-1], k, dtype=bool, device=m.device)
    return where(mask, m, zeros(1, m.dtype, device=m.device))


def triu(m: Any, k: int = 0) -> ndarray:
    m = _arr(m)
    mask = tri(m.shape[-2], m.shape[-1], k - 1, dtype=bool, device=m.device)
    return where(mask, zeros(1, m.dtype, device=m.device), m)


def astype(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> ndarray:
    """The Array API's ``astype(x, dtype)`` (NumPy 2's ``np.astype``)."""
    r = _arr(x).astype(dtype, copy=copy)
    return r if device is None else r.to_device(device)


def copy(a: Any, order: str = "K") -> ndarray:
    return _arr(a).copy()


def copyto(dst: ndarray, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    s = _arr(src, dst)
    if not numpy.can_cast(s.dtype, dst.dtype, casting) and not isinstance(src, bool | int | float | complex):
        raise TypeError(f"Cannot cast array data from {s.dtype!r} to {dst.dtype!r} according to the rule '{casting}'")
    if where is not True:
        s = _c.where3(_arr(where, dst), s, dst)
    _c.assign(dst, s.astype(dst.dtype, copy=False))


def fromfunction(function: Any, shape: Any, *, dtype: Any = float, **kwargs: Any) -> Any:
    return function(*indices(shape, dtype=dtype), **kwargs)


def indices(dimensions: Sequence[int], dtype: Any = int, sparse: bool = False) -> Any:
    n = len(dimensions)
    grids = []
    for i, d in enumerate(dimensions):
        shape = [1] * n
        shape[i] = d
        g = arange(d, dtype=dtype).reshape(shape)
        grids.append(g if sparse else broadcast_to(g, tuple(dimensions)))
    return tuple(grids) if sparse else stack(grids)


def _dims(shape: Any) -> tuple:
    return (operator.index(shape),) if numpy.ndim(shape) == 0 else tuple(operator.index(s) for s in shape)


def unravel_index(indices: Any, shape: Any, order: str = "C") -> tuple:
    """NumPy's ``unravel_index``: the coordinates of flat ``indices`` in an array of ``shape``, one int64
    array (of the indices' shape) per axis; ValueError for an index outside the array (as NumPy)."""
    dims = _dims(shape)
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    idx = _arr(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError("only int indices permitted")
    size = builtins.int(numpy.prod(dims, dtype=numpy.int64))
    if idx.size:
        lo, hi = builtins.int(idx.min()), builtins.int(idx.max())
        if lo < 0 or hi >= size:
            raise ValueError(f"index {lo if lo < 0 else hi} is out of bounds for array with size {size}")
    rem = idx.astype(numpy.int64)
    out = []
    for d in reversed(dims) if order == "C" else dims:
        out.append(rem % d if d else rem)
        rem = rem // d if d else rem
    return tuple(out[::-1] if order == "C" else out)


def ravel_multi_index(multi_index: Any, dims: Any, mode: Any = "raise", order: str = "C") -> ndarray:
    """NumPy's ``ravel_multi_index``: flat indices (int64) of coordinates in an array of ``dims``; ``mode``
    ``raise`` (ValueError outside), ``wrap`` or ``clip``, one for all axes or one per axis."""
    dims = _dims(dims)
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = [mode] * len(dims) if isinstance(mode, str) else list(mode)
    if len(modes) != len(dims):
        raise ValueError("mode must be a string or a sequence of one per axis")
    coords = [_arr(c) for c in multi_index]
    if builtins.any(c.dtype.kind not in "iu" for c in coords):
        raise TypeError("only int indices permitted")
    coords = broadcast_arrays(*coords)
    flat = None
    axes = builtins.range(len(dims)) if order == "C" else builtins.range(len(dims) - 1, -1, -1)
    for ax in axes:
        c, d, m = coords[ax].astype(numpy.int64), dims[ax], modes[ax]
        if m == "wrap":
            c = c % d if d else c
        elif m == "clip":
            c = clip(c, 0, builtins.max(d - 1, 0))
        elif m == "raise":
            if c.size and (builtins.int(c.min()) < 0 or builtins.int(c.max()) >= d):
                raise ValueError("invalid entry in coordinates array")
        else:
            raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {m!r})")
        flat = c if flat is None else flat * d + c
    return flat if flat is not None else asarray(0, dtype=numpy.int64)


# ----------------------------------------------------------------------------------------- shapes


def reshape(a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None, copy: Any = None) -> ndarray:
    shape = newshape if shape is None else shape
    return _arr(a).reshape(shape, order=order, copy=copy)


def ravel(a: Any, order: str = "C") -> ndarray:
    return _arr(a).ravel()


def transpose(a: Any, axes: Any = None) -> ndarray:
    a = _arr(a)
    return a.transpose() if axes is None else a.transpose(*axes)


def permute_dims(a: Any, axes: Any) -> ndarray:
    return transpose(a, axes)


def matrix_transpose(x: Any) -> ndarray:
    return _arr(x).mT


def swapaxes(a: Any, axis1: int, axis2: int) -> ndarray:
    return _arr(a).swapaxes(axis1, axis2)


def moveaxis(a: Any, source: Any, destination: Any) -> ndarray:
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    return _c.moveaxis(_arr(a), src, dst)


def rollaxis(a: Any, axis: int, start: int = 0) -> ndarray:
    a = _arr(a)
    n = a.ndim
    axis = axis % n if n else 0
    start = start + n if start < 0 else start
    if axis < start:
        start -= 1
    return moveaxis(a, axis, start)


def squeeze(a: Any, axis: Any = None) -> ndarray:
    return _arr(a).squeeze(axis)


def expand_dims(a: Any, axis: Any) -> ndarray:
    return _c.expand_dims(_arr(a), axis)


def broadcast_to(array: Any, shape: Any, subok: bool = False) -> ndarray:
    return _c.broadcast_to(_arr(array), (shape,) if isinstance(shape, int) else tuple(shape))


def broadcast_shapes(*shapes: Any) -> tuple:
    return numpy.broadcast_shapes(*shapes)


def broadcast_arrays(*args: Any, subok: bool = False) -> tuple:
    arrs = [_arr(a) for a in args]
    shape = numpy.broadcast_shapes(*[a.shape for a in arrs])
    return tuple(broadcast_to(a, shape) for a in arrs)


def atleast_1d(*arys: Any) -> Any:
    r = [_arr(a) if _arr(a).ndim >= 1 else _arr(a).reshape(1) for a in arys]
    return r[0] if len(r) == 1 else tuple(r)


def atleast_2d(*arys: Any) -> Any:
    r = []
    for a in arys:
        a = _arr(a)
        r.append(a.reshape((1,) * (2 - a.ndim) + a.shape) if a.ndim < 2 else a)
    return r[0] if len(r) == 1 else tuple(r)


def atleast_3d(*arys: Any) -> Any:
    r = []
    for a in arys:
        a = _arr(a)
        if a.ndim == 0:
            a = a.reshape(1, 1, 1)
        elif a.ndim == 1:
            a = a.reshape(1, a.shape[0], 1)
        elif a.ndim == 2:
            a = a.reshape(a.shape + (1,))
        r.append(a)
    return r[0] if len(r) == 1 else tuple(r)


def _seq(arrays: Any) -> list:
    if isinstance(arrays, ndarray):
        return [arrays[i] for i in range(arrays.shape[0])]
    arrs = list(arrays)
    dev = next((a.device for a in arrs if isinstance(a, ndarray)), None)
    return [a if type(a) is ndarray else _c._asarray(a, None, dev) for a in arrs]


def concatenate(
    arrays: Any, axis: Any = 0, out: Any = None, *, dtype: Any = None, casting: str = "same_kind"
) -> ndarray:
    arrs = _seq(arrays)
    if dtype is not None:
        arrs = [a.astype(dtype, copy=False) for a in arrs]
    return _out(_c.concatenate(arrs, axis), out)


concat = concatenate


def stack(arrays: Any, axis: int = 0, out: Any = None, *, dtype: Any = None) -> ndarray:
    arrs = _seq(arrays)
    if dtype is not None:
        arrs = [a.astype(dtype, copy=False) for a in arrs]
    return _out(_c.stack(arrs, axis), out)


def hstack(tup: Any, *, dtype: Any = None) -> ndarray:
    arrs = [atleast_1d(a) for a in _seq(tup)]
    return concatenate(arrs, 0 if arrs[0].ndim == 1 else 1, dtype=dtype)


def vstack(tup: Any, *, dtype: Any = None) -> ndarray:
    return concatenate([atleast_2d(a) for a in _seq(tup)], 0, dtype=dtype)


row_stack = vstack


def dstack(tup: Any) -> ndarray:
    return concatenate([atleast_3d(a) for a in _seq(tup)], 2)


def column_stack(tup: Any) -> ndarray:
    arrs = [a.reshape(-1, 1) if a.ndim < 2 else a for a in _seq(tup)]
    return concatenate(arrs, 1)


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    s = indices_or_sections
    if isinstance(s, int | numpy.integer) and s == 0:
        raise ZeroDivisionError("integer modulo by zero")  # NumPy's, from its own arithmetic
    return _c.split(_arr(ary), s if isinstance(s, int) else list(s), axis, False)


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    s = indices_or_sections
    return _c.split(_arr(ary), s if isinstance(s, int) else list(s), axis, True)


def hsplit(ary: Any, indices_or_sections: Any) -> list:
    a = _arr(ary)
    return split(a, indices_or_sections, 1 if a.ndim > 1 else 0)


def vsplit(ary: Any, indices_or_sections: Any) -> list:
    return split(ary, indices_or_sections, 0)


def dsplit(ary: Any, indices_or_sections: Any) -> list:
    return split(ary, indices_or_sections, 2)


def unstack(x: Any, *, axis: int = 0) -> tuple:
    x = _arr(x)
    return tuple(moveaxis(x, axis, 0)[i] for i in range(x.shape[axis]))


def flip(m: Any, axis: Any = None) -> ndarray:
    return _c.flip(_arr(m), _axis(axis))


def fliplr(m: Any) -> ndarray:
    m = _arr(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, 1)


def flipud(m: Any) -> ndarray:
    m = _arr(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(m, 0)


def rot90(m: Any, k: int = 1, axes: tuple = (0, 1)) -> ndarray:
    m = _arr(m)
    k %= 4
    if k == 0:
        return m[...]
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    perm = list(range(m.ndim))
    perm[axes[0]], perm[axes[1]] = perm[axes[1]], perm[axes[0]]
    if k == 1:
        return transpose(flip(m, axes[1]), perm)
    return flip(transpose(m, perm), axes[1])


def roll(a: Any, shift: Any, axis: Any = None) -> ndarray:
    a = _arr(a)

    def one(a: ndarray, s: Any, ax: Any) -> ndarray:
        s = operator.index(s)
        if not -(2**63) <= s < 2**63:
            # A shift beyond int64 rolls by itself modulo the length, as NumPy's.
            try:
                n = a.size if ax is None else a.shape[operator.index(ax)]
            except (IndexError, TypeError):
                n = 0  # the axis is wrong: cuprum's AxisError follows
            s = s % n if n else 0
        return _c.roll(a, s, ax)

    if isinstance(shift, tuple | list):
        axes = [axis] if isinstance(axis, int) else list(axis)
        shifts = list(shift) if len(shift) == len(axes) else list(shift) * len(axes)
        for s, ax in zip(shifts, axes, strict=False):
            a = one(a, s, ax)
        return a
    if isinstance(axis, tuple | list):
        for ax in axis:
            a = one(a, shift, ax)
        return a
    return one(a, shift, axis)


def tile(A: Any, reps: Any) -> ndarray:
    return _c.tile(_arr(A), [_count(r) for r in ([reps] if isinstance(reps, int) else reps)])


def repeat(a: Any, repeats: Any, axis: Any = None) -> ndarray:
    a = _arr(a)
    if isinstance(repeats, int | numpy.integer):
        if -(2**63) <= repeats < 0:
            raise ValueError("negative dimensions are not allowed")
        return _c.repeat(a, int(repeats), axis)
    reps = numpy.asarray(asnumpy(repeats) if isinstance(repeats, ndarray) else repeats)
    if reps.size == 1:
        return _c.repeat(a, int(reps.ravel()[0]), axis)
    x = a.ravel() if axis is None else a
    ax = 0 if axis is None else axis
    idx = numpy.repeat(numpy.arange(x.shape[ax]), reps)
    return take(x, asarray(idx, device=a.device), axis=ax)


def pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> ndarray:
    a = _arr(array)
    pw = numpy.broadcast_to(numpy.asarray(pad_width, dtype=numpy.int64), (a.ndim, 2))
    if (pw < 0).any():
        raise ValueError("index can't contain negative values")
    widths = [(int(x), int(y)) for x, y in pw]
    value = kwargs.get("constant_values", 0)
    if mode != "constant" or isinstance(value, int | float | complex | bool | numpy.generic):
        return _c.pad(a, widths, mode, value)
    cv = numpy.broadcast_to(numpy.asarray(value), (a.ndim, 2))
    r = _c.pad(a, widths, mode, cv[0, 0].item())
    # NumPy pads axis by axis: each axis's two constants fill its bands (later axes cover the corners).
    for ax, (lo, hi) in enumerate(widths):
        idx: list = [slice(None)] * a.ndim
        if lo:
            idx[ax] = slice(0, lo)
            r[tuple(idx)] = cv[ax, 0].item()
        if hi:
            idx[ax] = slice(r.shape[ax] - hi, None)
            r[tuple(idx)] = cv[ax, 1].item()
    return r


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> ndarray:
    a = _arr(a)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if prepend is not None or append is not None:
        parts = []
        for v in (prepend, None, append):
            if v is None:
                continue
            v = _arr(v, a)
            if v.ndim == 0:
                shape = list(a.shape)
                shape[axis] = 1
                v = broadcast_to(v, tuple(shape))
            parts.append(v)
        pieces = ([parts.pop(0)] if prepend is not None else []) + [a] + (parts if append is not None else [])
        a = concatenate(pieces, axis)
    return _c.diff(a, n, axis)


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> ndarray:
    return _c.diagonal(_arr(a), offset, axis1, axis2)


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: Any = None) -> ndarray:
    r = _c.trace(_arr(a), offset, axis1, axis2)
    return _out(r if dtype is None else r.astype(dtype), out)


def shape(a: Any) -> tuple:
    return _arr(a).shape if not hasattr(a, "shape") else tuple(a.shape)


def ndim(a: Any) -> int:
    return _arr(a).ndim if not hasattr(a, "ndim") else a.ndim


def size(a: Any, axis: Any = None) -> int:
    a = _arr(a)
    return a.size if axis is None else a.shape[axis]


def shares_memory(a: Any, b: Any, max_work: Any = None) -> bool:
    return isinstance(a, ndarray) and isinstance(b, ndarray) and _c.shares_memory(a, b)


may_share_memory = shares_memory


# ----------------------------------------------------------------------------------------- sorting, searching


def sort(
    a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *, stable: Any = None, descending: bool = False
) -> ndarray:
    r = _c.sort(_arr(a), axis)
    return flip(r, -1 if axis is None else axis) if descending else r


def argsort(
    a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *, stable: Any = None, descending: bool = False
) -> ndarray:
    a = _arr(a)
    if descending:
        ax = -1 if axis is None else axis
        x = a.ravel() if axis is None else a
        n = x.shape[ax]
        r = _c.argsort(flip(x, ax), ax)
        return flip((n - 1) - r, ax)
    return _c.argsort(a, axis)


def msort(a: Any) -> ndarray:
    return sort(a, 0)


def _kth(a: ndarray, kth: Any, axis: Any) -> list[int]:
    """NumPy's checks of ``kth`` (integers, within the axis, counted from its end when negative)."""
    ks = kth.tolist() if isinstance(kth, ndarray | numpy.ndarray) else kth
    ks = list(ks) if isinstance(ks, list | tuple) else [ks]
    if builtins.any(not isinstance(k, int | numpy.integer) or isinstance(k, bool) for k in ks):
        raise TypeError("Partition index must be integer")
    try:
        n = a.size if axis is None else a.shape[axis] if a.ndim else 1
    except (IndexError, TypeError):
        return [int(k) for k in ks]  # the axis itself is wrong: cuprum's AxisError follows
    for k in ks:
        if not -n <= int(k) < n:
            raise ValueError(f"kth(={int(k) + n if k < 0 else int(k)}) out of bounds ({n})")
    return [int(k) for k in ks]


def partition(a: Any, kth: Any, axis: int = -1, kind: str = "introselect", order: Any = None) -> ndarray:
    a = _arr(a)
    ks = _kth(a, kth, axis)
    if len(ks) != 1:
        return sort(a, axis)  # every kth in its place: the sorted array is one answer
    return _c.partition(a, ks[0], axis, False)


def argpartition(a: Any, kth: Any, axis: int = -1, kind: str = "introselect", order: Any = None) -> ndarray:
    a = _arr(a)
    ks = _kth(a, kth, axis)
    if len(ks) != 1:
        return argsort(a, axis)
    return _c.partition(a, ks[0], axis, True)


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> ndarray:
    a = _arr(a)
    if sorter is not None:
        a = take(a, _arr(sorter, a))
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    return _c.searchsorted(a, _arr(v, a), side == "right")


def lexsort(keys: Any, axis: int = -1) -> ndarray:
    return _c.lexsort(_seq(keys))


def unique(
    ar: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: Any = None,
    *,
    equal_nan: bool = True,
    sorted: bool = True,
) -> Any:  # noqa: A002
    if axis is not None:
        raise NotImplementedError("cuprum: unique with axis")
    a = _arr(ar)
    v, i, inv, c = _c.unique(a, return_index, return_inverse, return_counts)
    if not equal_nan and a.dtype.kind in "fc":
        v, i, inv, c = _nans_apart(a.ravel(), v, i, inv, c)
    if inv is not None:
        inv = inv.reshape(a.shape)
    out = [v] + [x for x, f in ((i, return_index), (inv, return_inverse), (c, return_counts)) if f]
    return out[0] if len(out) == 1 else tuple(out)


def _nans_apart(flat: ndarray, v: ndarray, i: Any, inv: Any, c: Any) -> tuple:
    """``unique(equal_nan=False)`` from the merged result: each NaN of the input is a value of its own,
    after the others (in the input's order), with a count of one, its own index and inverse slot."""
    nan_at = nonzero(isnan(flat))[0]  # noqa: F821
    n = nan_at.size
    vnan = isnan(v)  # noqa: F821
    if n <= 1 and int(count_nonzero(vnan)) == n:  # noqa: F821
        return v, i, inv, c
    keep = logical_not(vnan)  # noqa: F821
    k = int(count_nonzero(keep))  # noqa: F821
    v2 = concatenate([v[keep], flat[nan_at]])  # noqa: F821
    if i is not None:
        i = concatenate([i[keep], nan_at.astype(i.dtype)])  # noqa: F821
    if c is not None:
        c = concatenate([c[keep], ones(n, dtype=c.dtype, device=c.device)])  # noqa: F821
    if inv is not None:
        inv = inv.ravel().copy()
        inv[nan_at] = arange(k, k + n, dtype=inv.dtype, device=inv.device)  # noqa: F821
    return v2, i, inv, c


def unique_values(x: Any) -> ndarray:
    """The Array API's ``unique_values``: as NumPy 2's, every NaN is distinct."""
    return unique(x, equal_nan=False)


def unique_counts(x: Any) -> Any:
    from collections import namedtuple

    v, c = unique(x, return_counts=True, equal_nan=False)
    return namedtuple("UniqueCountsResult", ["values", "counts"])(v, c)


def unique_inverse(x: Any) -> Any:
    from collections import namedtuple

    v, i = unique(x, return_inverse=True, equal_nan=False)
    return namedtuple("UniqueInverseResult", ["values", "inverse_indices"])(v, i)


def unique_all(x: Any) -> Any:
    from collections import namedtuple

    v, idx, inv, c = unique(x, True, True, True, equal_nan=False)
    return namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])(v, idx, inv, c)


def isin(
    element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False, *, kind: Any = None
) -> ndarray:
    e = _arr(element)
    r = _c.isin(e, _arr(test_elements, e))
    return logical_not(r) if invert else r  # noqa: F821


def in1d(ar1: Any, ar2: Any, assume_unique: bool = False, invert: bool = False) -> ndarray:
    return isin(_arr(ar1).ravel(), ar2, invert=invert)


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False, return_indices: bool = False) -> Any:
    a, b = unique(ar1), unique(ar2)
    return a[isin(a, b)]


def union1d(ar1: Any, ar2: Any) -> ndarray:
    return unique(concatenate([_arr(ar1).ravel(), _arr(ar2).ravel()]))


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> ndarray:
    a = unique(ar1)
    return a[isin(a, ar2, invert=True)]


# ----------------------------------------------------------------------------------------- indexing, selection


def take(a: Any, indices: Any, axis: Any = None, out: Any = None, mode: str = "raise") -> ndarray:
    a = _arr(a)
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    if isinstance(indices, int | numpy.integer):
        if not -(2**63) <= int(indices) < 2**63:
            raise OverflowError("Python int too large to convert to C long")  # NumPy's intp index
        return _out(take(a, asarray(int(indices), device=a.device), axis, None, mode), out)
    idx = _arr(indices, a)
    if mode != "raise":
        # NumPy's modes: indices wrapped around the axis, or clipped to it.
        n = a.size if axis is None else a.shape[axis]
        if n == 0:
            raise IndexError("cannot do a non-empty take from an empty axes.")
        idx = remainder(idx, n) if mode == "wrap" else clip(idx, 0, n - 1)  # noqa: F821
    return _out(_c.take(a, idx, axis), out)


def take_along_axis(arr: Any, indices: Any, axis: Any = -1) -> ndarray:
    a = _arr(arr)
    return _c.take_along_axis(a, _arr(indices, a), axis)


def put(a: ndarray, ind: Any, v: Any, mode: str = "raise") -> None:
    _c.put(a, _arr(ind, a), _arr(v, a).astype(a.dtype, copy=False))


def put_along_axis(arr: ndarray, indices: Any, values: Any, axis: int) -> None:
    idx = _arr(indices, arr)
    ax = axis % arr.ndim
    grids = list(indices_grid(idx.shape, arr.device))
    grids[ax] = idx
    arr[tuple(grids)] = values


def indices_grid(shape: tuple, device: Any) -> list:
    n = len(shape)
    out = []
    for i, d in enumerate(shape):
        s = [1] * n
        s[i] = d
        out.append(arange(d, device=device).reshape(s))
    return out


def nonzero(a: Any) -> tuple:
    a = _arr(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.")
    return tuple(_c.nonzero(a))


def flatnonzero(a: Any) -> ndarray:
    return _c.flatnonzero(_arr(a))


def argwhere(a: Any) -> ndarray:
    return _c.argwhere(_arr(a))


def compress(condition: Any, a: Any, axis: Any = None, out: Any = None) -> ndarray:
    a = _arr(a)
    return _out(_c.compress(_arr(condition, a), a, axis), out)


def extract(condition: Any, arr: Any) -> ndarray:
    a = _arr(arr)
    return _c.extract(_arr(condition, a), a)


def select(condlist: Any, choicelist: Any, default: Any = 0) -> ndarray:
    conds = _seq(condlist)
    choices = _seq(choicelist)
    if len(conds) != len(choices):
        raise ValueError("list of cases must be same length as list of conditions")
    r = None
    for c, v in zip(reversed(conds), reversed(choices), strict=True):
        r = where(c, v, default if r is None else r)
    return r


def choose(a: Any, choices: Any, out: Any = None, mode: str = "raise") -> ndarray:
    idx = _arr(a)
    ch = stack(_seq(choices))
    return _out(take_along_axis(ch, idx[None], 0)[0], out)


def ix_(*args: Any) -> tuple:
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = _arr(a)
        if a.dtype == numpy.bool_:
            a = nonzero(a)[0]
        shape = [1] * n
        shape[i] = a.size
        out.append(a.reshape(shape))
    return tuple(out)


# ----------------------------------------------------------------------------------------- products


def _prod(name: str, a: Any, b: Any, out: Any) -> ndarray:
    a = _arr(a)
    return _out(_c.product(name, a, _arr(b, a)), out)


def matmul(x1: Any, x2: Any, /, out: Any = None, **kw: Any) -> ndarray:
    return _prod("matmul", x1, x2, out)


def dot(a: Any, b: Any, out: Any = None) -> ndarray:
    return _prod("dot", a, b, out)


def vdot(a: Any, b: Any) -> ndarray:
    return _prod("vdot", a, b, None)


def inner(a: Any, b: Any) -> ndarray:
    return _prod("inner", a, b, None)


def outer(a: Any, b: Any, out: Any = None) -> ndarray:
    return _prod("outer", a, b, out)


def kron(a: Any, b: Any) -> ndarray:
    return _prod("kron", a, b, None)


def tensordot(a: Any, b: Any, axes: Any = 2) -> ndarray:
    a = _arr(a)
    return _c.tensordot(a, _arr(b, a), axes)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> ndarray:
    """NumPy's gufunc ``(n),(n)->()``: the sum over ``axis`` of ``conj(x1) * x2`` in the promoted dtype; the
    contracted axes must have one length (they do not broadcast), the others broadcast."""
    a = _arr(x1)
    b = _arr(x2, a)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("vecdot: the inputs must have at least one dimension, the one contracted")
    a, b = moveaxis(a, axis, -1), moveaxis(b, axis, -1)  # noqa: F821
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(
            "vecdot: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n),(n)->() "
            f"(size {b.shape[-1]} is different from {a.shape[-1]})"
        )
    dt = result_type(a, b)  # noqa: F821
    if dt == numpy.bool_:
        return any(logical_and(a, b), axis=-1)  # noqa: F821
    return sum(conj(a) * b, axis=-1, dtype=dt)  # noqa: F821


def einsum(subscripts: str, *operands: Any, out: Any = None, optimize: Any = False, **kw: Any) -> ndarray:
    return _out(_c.einsum(subscripts, list(operands)), out)


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: Any = None) -> ndarray:
    a, b = _arr(a), _arr(b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise ValueError("cuprum: cross of 3-vectors only")
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    r = stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], -1)
    return moveaxis(r, -1, axisc)


# ----------------------------------------------------------------------------------------- NumPy's 1-d convolution


def convolve(a: Any, v: Any, mode: str = "full") -> ndarray:
    a = _arr(a)
    return _c.np_convolve(a, _arr(v, a), mode, False)


def correlate(a: Any, v: Any, mode: str = "valid") -> ndarray:
    a = _arr(a)
    return _c.np_convolve(a, _arr(v, a), mode, True)


# ----------------------------------------------------------------------------------------- files


def save(file: Any, arr: Any, allow_pickle: bool = True) -> None:
    numpy.save(file, asnumpy(arr), allow_pickle=False)


def load(file: Any, mmap_mode: Any = None, allow_pickle: bool = False, **kwargs: Any) -> Any:
    r = numpy.load(file, mmap_mode=mmap_mode, allow_pickle=allow_pickle, **kwargs)
    if isinstance(r, numpy.ndarray):
        return asarray(r)
    return r


def savez(file: Any, *args: Any, **kwds: Any) -> None:
    numpy.savez(file, *[asnumpy(a) for a in args], **{k: asnumpy(v) for k, v in kwds.items()})


def savez_compressed(file: Any, *args: Any, **kwds: Any) -> None:
    numpy.savez_compressed(file, *[asnumpy(a) for a in args], **{k: asnumpy(v) for k, v in kwds.items()})


# ----------------------------------------------------------------------------------------- info


def isscalar(element: Any) -> bool:
    return numpy.isscalar(element)


def iscomplexobj(x: Any) -> bool:
    return _arr(x).dtype.kind == "c" if not hasattr(x, "dtype") else numpy.dtype(x.dtype).kind == "c"


def isrealobj(x: Any) -> bool:
    return not iscomplexobj(x)


def iscomplex(x: Any) -> ndarray:
    x = _arr(x)
    return not_equal(imag(x), 0) if x.dtype.kind == "c" else zeros(x.shape, bool, device=x.device)  # noqa: F821


def isreal(x: Any) -> ndarray:
    return logical_not(iscomplex(x))  # noqa: F821


def isneginf(x: Any, out: Any = None) -> ndarray:
    x = _arr(x)
    return _out(logical_and(isinf(x), less(x, 0)), out)  # noqa: F821


def isposinf(x: Any, out: Any = None) -> ndarray:
    x = _arr(x)
    return _out(logical_and(isinf(x), greater(x, 0)), out)  # noqa: F821


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None) -> ndarray:
    x = _arr(x)
    xp, fp = _arr(xp, x).astype(float64), _arr(fp, x)
    if fp.dtype.kind not in "fc":
        fp = fp.astype(float64)
    n = xp.shape[0]
    i = clip(searchsorted(xp, x, "right") - 1, 0, n - 2) if n > 1 else zeros(x.shape, int64, device=x.device)
    x0, x1 = take(xp, i), take(xp, minimum(i + 1, n - 1))  # noqa: F821
    f0, f1 = take(fp, i), take(fp, minimum(i + 1, n - 1))  # noqa: F821
    den = where(equal(x1, x0), 1.0, x1 - x0)  # noqa: F821
    r = f0 + (x - x0) * (f1 - f0) / den
    lv = fp[0] if left is None else left
    rv = fp[-1] if right is None else right
    r = where(less(x, xp[0]), lv, r)  # noqa: F821
    r = where(greater(x, xp[-1]), rv, r)  # noqa: F821
    return where(equal(x, xp[-1]), fp[-1], r)  # noqa: F821


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    f = _arr(f)
    axes = list(range(f.ndim)) if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    dx = [float(varargs[0])] * len(axes) if len(varargs) == 1 else [float(v) for v in varargs] or [1.0] * len(axes)
    if f.dtype.kind not in "fc":
        f = f.astype(float64)
    out = []
    for ax, h in zip(axes, dx, strict=False):
        g = empty_like(f)
        n = f.shape[ax]

        def sl(s: slice, ax: int = ax) -> tuple:
            idx = [slice(None)] * f.ndim
            idx[ax] = s
            return tuple(idx)

        g[sl(slice(1, -1))] = (f[sl(slice(2, None))] - f[sl(slice(None, -2))]) / (2 * h)
        if n >= 2:
            g[sl(slice(0, 1))] = (f[sl(slice(1, 2))] - f[sl(slice(0, 1))]) / h
            g[sl(slice(-1, None))] = (f[sl(slice(-1, None))] - f[sl(slice(-2, -1))]) / h
        out.append(g)
    return out[0] if len(out) == 1 else tuple(out)
