"""What ``cuprum.ndarray`` does in Python: NumPy's less frequent methods (found by the array's
``__getattr__`` as ``method_<name>``), advanced indexing, NumPy's protocols (``__array_function__``,
``__array_ufunc__``, ``__array__`` on the CPU) and pickling."""

from __future__ import annotations

import operator
from typing import Any

import numpy

from . import _core
from . import _cuprum as _c
from ._cuprum import ndarray

# ----------------------------------------------------------------------------------------- methods


def method_cumsum(a: ndarray, axis: Any = None, dtype: Any = None, out: Any = None) -> ndarray:
    return _core.cumsum(a, axis, dtype, out)


def method_cumprod(a: ndarray, axis: Any = None, dtype: Any = None, out: Any = None) -> ndarray:
    return _core.cumprod(a, axis, dtype, out)


def method_sort(a: ndarray, axis: int = -1, kind: Any = None, order: Any = None) -> None:
    """In place, as NumPy's ``ndarray.sort``."""
    _c.assign(a, _c.sort(a, axis))


def method_argsort(a: ndarray, axis: Any = -1, kind: Any = None, order: Any = None) -> ndarray:
    return _core.argsort(a, axis)


def method_partition(a: ndarray, kth: Any, axis: int = -1, kind: str = "introselect", order: Any = None) -> None:
    _c.assign(a, _core.partition(a, kth, axis))


def method_argpartition(a: ndarray, kth: Any, axis: int = -1, kind: str = "introselect", order: Any = None) -> ndarray:
    return _core.argpartition(a, kth, axis)


def method_searchsorted(a: ndarray, v: Any, side: str = "left", sorter: Any = None) -> ndarray:
    return _core.searchsorted(a, v, side, sorter)


def method_clip(a: ndarray, min: Any = None, max: Any = None, out: Any = None) -> ndarray:  # noqa: A002
    return _core.clip(a, min, max, out)


def method_round(a: ndarray, decimals: int = 0, out: Any = None) -> ndarray:
    return _core.round(a, decimals, out)


def method_nonzero(a: ndarray) -> tuple:
    return _core.nonzero(a)


def method_compress(a: ndarray, condition: Any, axis: Any = None, out: Any = None) -> ndarray:
    return _core.compress(condition, a, axis, out)


def method_take(a: ndarray, indices: Any, axis: Any = None, out: Any = None, mode: str = "raise") -> ndarray:
    return _core.take(a, indices, axis, out)


def method_put(a: ndarray, indices: Any, values: Any, mode: str = "raise") -> None:
    _core.put(a, indices, values)


def method_repeat(a: ndarray, repeats: Any, axis: Any = None) -> ndarray:
    return _core.repeat(a, repeats, axis)


def method_dot(a: ndarray, b: Any, out: Any = None) -> ndarray:
    return _core.dot(a, b, out)


def method_conj(a: ndarray) -> ndarray:
    return _core.conjugate(a)


method_conjugate = method_conj


def method_diagonal(a: ndarray, offset: int = 0, axis1: int = 0, axis2: int = 1) -> ndarray:
    return _core.diagonal(a, offset, axis1, axis2)


def method_trace(
    a: ndarray, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: Any = None
) -> ndarray:
    return _core.trace(a, offset, axis1, axis2, dtype, out)


def method_ptp(a: ndarray, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:
    return _core.ptp(a, axis, out, keepdims)


def method_swapaxes(a: ndarray, axis1: int, axis2: int) -> ndarray:
    return a.swapaxes(axis1, axis2)


def method_choose(a: ndarray, choices: Any, out: Any = None, mode: str = "raise") -> ndarray:
    return _core.choose(a, choices, out)


def method_tobytes(a: ndarray, order: str = "C") -> bytes:
    return a.get().tobytes(order)


def method_dump(a: ndarray, file: Any) -> None:
    import pickle

    with open(file, "wb") if isinstance(file, str) else file as f:
        pickle.dump(a, f)


def method_set(a: ndarray, arr: Any, stream: Any = None) -> None:
    """CuPy's ``set``: copies a host array into this one (on ``stream``, or the current stream). A NumPy array
    of the same shape and dtype is copied straight from its memory: asynchronously from page-locked memory
    (``cuprumx.empty_pinned``), which must then stay unwritten until the stream has run the copy."""
    if isinstance(arr, numpy.ndarray) and arr.shape == a.shape and arr.dtype == a.dtype:
        if _c.copy_from_host(a, arr, getattr(stream, "_s", None)):
            return
    _c.assign(a, _c._asarray(arr, a.dtype, a.device))


def method_toDlpack(a: ndarray) -> Any:  # noqa: N802
    return a.__dlpack__()


def method_argmin(a: ndarray, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> ndarray:
    return _core.argmin(a, axis, out, keepdims)


def method_flags_info(a: ndarray) -> dict:
    c, f = a._contiguity
    return {"C_CONTIGUOUS": c, "F_CONTIGUOUS": f, "OWNDATA": True}


class _Flags:
    def __init__(self, a: ndarray):
        self.c_contiguous, self.f_contiguous = a._contiguity
        self.owndata = True
        self.writeable = True
        self.aligned = True

    def __getitem__(self, key: str) -> bool:
        return {
            "C_CONTIGUOUS": self.c_contiguous,
            "C": self.c_contiguous,
            "F_CONTIGUOUS": self.f_contiguous,
            "F": self.f_contiguous,
            "OWNDATA": True,
            "WRITEABLE": True,
            "ALIGNED": True,
        }[key]

    def __repr__(self) -> str:
        return f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}\n  OWNDATA : True"


class _Data:
    """CuPy's ``x.data``: ``ptr`` is the address of the first element."""

    def __init__(self, a: ndarray):
        self.ptr = a.ptr
        self.mem_size = a.nbytes

    def __repr__(self) -> str:
        return f"<cuprum memory at 0x{self.ptr:x}>"


# Properties written in Python: the array's ``__getattr__`` calls ``prop_<name>(a)``.
prop_flags = _Flags
prop_data = _Data


# ----------------------------------------------------------------------------------------- item


def item(a: ndarray, args: tuple) -> Any:
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    if len(args) == 1:
        i = operator.index(args[0])
        n = a.size
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of bounds for size {n}")
        return a.ravel()[i % n].item()
    return a[tuple(args)].item()


# ----------------------------------------------------------------------------------------- indexing


def _expand(a: ndarray, key: Any) -> list:
    """The key as a list of entries with the ellipsis expanded and booleans turned into integer arrays."""
    if not isinstance(key, tuple):
        key = (key,)
    out: list = []
    for k in key:
        if isinstance(k, list):
            k = _c._asarray(k, None, a.device)
        elif isinstance(k, numpy.ndarray):
            k = _c._asarray(k, None, a.device)
        out.append(k)
    n_real = sum(
        (k.ndim if isinstance(k, ndarray) and k.dtype == numpy.bool_ else 1)
        for k in out
        if k is not None and k is not Ellipsis and not isinstance(k, bool)
    )
    if n_real > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, but {n_real} were indexed")
    if Ellipsis in [k for k in out if not isinstance(k, ndarray)]:
        i = next(i for i, k in enumerate(out) if not isinstance(k, ndarray) and k is Ellipsis)
        out[i : i + 1] = [slice(None)] * (a.ndim - n_real)
    else:
        out += [slice(None)] * (a.ndim - n_real)
    res: list = []
    for k in out:
        if isinstance(k, bool):
            res.append(("bool0", k))
        elif isinstance(k, ndarray) and k.dtype == numpy.bool_:
            if k.ndim == 0:
                res.append(("bool0", bool(k)))
            else:
                res.extend(("adv", i) for i in _core.nonzero(k))
        elif isinstance(k, ndarray):
            if k.dtype.kind not in "iu":
                raise IndexError("arrays used as indices must be of integer (or boolean) type")
            res.append(("adv", k))
        else:
            res.append(("basic", k))
    return res


def _plan(a: ndarray, key: Any) -> tuple:
    """The view left after the basic part, the advanced indices (on its leading axes after a transpose),
    and where NumPy puts the broadcast dimensions."""
    entries = _expand(a, key)
    basic: list = []
    adv: list = []
    positions: list = []
    axis = 0
    for kind, k in entries:
        if kind == "basic":
            if k is None:
                basic.append(None)
                axis += 1
            elif isinstance(k, slice):
                basic.append(k)
                axis += 1
            else:
                # A Python int with advanced indices present is an advanced index (0-d).
                try:
                    i = operator.index(k)
                except TypeError:
                    raise IndexError(
                        "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
                        "boolean arrays are valid indices"
                    ) from None
                basic.append(slice(None))
                adv.append(_c._asarray(i, None, a.device))
                positions.append(axis)
                axis += 1
        elif kind == "bool0":
            basic.append(None)
            # A 0-d boolean adds an axis of length 1 (True) or 0 (False).
            adv.append(_c.zeros((1 if k else 0,), numpy.int64, a.device))
            positions.append(axis)
            axis += 1
        else:
            basic.append(slice(None))
            adv.append(k)
            positions.append(axis)
            axis += 1
    v = a[tuple(basic)]
    return v, adv, positions


def _order(ndim: int, positions: list) -> tuple[list, bool]:
    rest = [i for i in range(ndim) if i not in positions]
    contiguous = positions == list(range(positions[0], positions[0] + len(positions)))
    return positions + rest, contiguous


def getitem(a: ndarray, key: Any) -> ndarray:
    """NumPy's indexing with integer and boolean arrays (the Rust side handles basic indices and one mask)."""
    v, adv, positions = _plan(a, key)
    if not adv:
        return v
    perm, contiguous = _order(v.ndim, positions)
    t = v.transpose(*perm) if perm != list(range(v.ndim)) else v
    r = _c.gather(t, adv)
    nb = r.ndim - (v.ndim - len(positions))
    if contiguous and positions[0] > 0:
        # The broadcast dimensions go where the advanced indices were.
        p = positions[0]
        order = list(range(nb, nb + p)) + list(range(nb)) + list(range(nb + p, r.ndim))
        r = r.transpose(*order)
    return r


def setitem(a: ndarray, key: Any, value: Any) -> None:
    v, adv, positions = _plan(a, key)
    if not adv:
        v[...] = value
        return
    perm, contiguous = _order(v.ndim, positions)
    t = v.transpose(*perm) if perm != list(range(v.ndim)) else v
    bshape = numpy.broadcast_shapes(*[i.shape for i in adv])
    rest = t.shape[len(adv) :]
    val = _c._asarray(value, None, a.device).astype(a.dtype, copy=False)
    nb = len(bshape)
    if contiguous and positions[0] > 0 and val.ndim > 0:
        # Values are given in NumPy's result order: move the broadcast dimensions first.
        p = positions[0]
        full = (1,) * (nb + len(rest) - val.ndim) + val.shape
        val = val.reshape(full)
        order = list(range(p, p + nb)) + list(range(p)) + list(range(p + nb, len(full)))
        val = val.transpose(*order)
    val = _c.broadcast_to(val, tuple(bshape) + tuple(rest))
    _c.scatter(t, adv, val, False)


# ----------------------------------------------------------------------------------------- NumPy's protocols


class _HostInterface:
    """Holds a CPU array for NumPy: ``numpy.asarray`` of this is a zero-copy view that keeps it alive."""

    def __init__(self, a: ndarray):
        ptr, shape, strides = _c.host_interface(a)
        # The name by which `get(out=)` and `set` find the cuprum array (and its pinned memory) again.
        self._cuprum_host = a
        self.__array_interface__ = {
            "data": (ptr, False),
            "shape": tuple(shape),
            "strides": tuple(strides),
            "typestr": a.dtype.str,
            "version": 3,
        }


def host_view(a: ndarray, dtype: Any, copy: Any) -> numpy.ndarray:
    h = numpy.asarray(_HostInterface(a))
    if dtype is not None and numpy.dtype(dtype) != h.dtype:
        return h.astype(dtype)
    if copy:
        return h.copy()
    return h


def _lookup(func: Any) -> Any:
    import cuprum

    mod = getattr(func, "__module__", "") or ""
    parts = mod.split(".")
    if not parts or parts[0] != "numpy":
        return None
    target: Any = cuprum
    for p in parts[1:]:
        if p.startswith("_"):
            continue
        target = getattr(target, p, None)
        if target is None:
            return None
    return getattr(target, func.__name__, None)


# NumPy's functions already looked up in cuprum (``None``: cuprum has none); cuprum's namespace does not
# change once imported.
_FUNCS: dict = {}
_ARRAY_TYPES = (ndarray, numpy.ndarray)


def array_function(a: ndarray, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
    """``__array_function__``: NumPy's function of the same name in cuprum (CuPy's rule), or
    ``NotImplemented`` (NumPy then raises TypeError) when cuprum has none."""
    for t in types:
        if t is not ndarray and not issubclass(t, _ARRAY_TYPES):
            return NotImplemented
    try:
        f = _FUNCS[func]
    except KeyError:
        f = _FUNCS[func] = _lookup(func)
    except TypeError:  # an unhashable callable
        f = _lookup(func)
    if f is None:
        return NotImplemented
    if "like" in kwargs:
        kwargs = dict(kwargs)
        del kwargs["like"]
    return f(*args, **kwargs)


def array_ufunc(a: ndarray, uf: Any, method: str, inputs: tuple, kwargs: dict | None) -> Any:
    """``__array_ufunc__``: NumPy's ufuncs on cuprum arrays run as cuprum's ufunc of the same name."""
    import cuprum

    kwargs = dict(kwargs or {})
    for x in inputs + tuple(kwargs.get("out", ()) or ()):
        if not isinstance(x, ndarray | numpy.ndarray | numpy.generic | int | float | complex | bool):
            return NotImplemented
    name = uf.__name__
    f = getattr(cuprum, name, None)
    if f is None and name in ("erf", "erfc", "ndtr", "ndtri"):  # scipy.special's ufuncs
        import cuprumx.scipy.special

        f = getattr(cuprumx.scipy.special, name)
    if f is None:
        return NotImplemented
    out = kwargs.pop("out", None)
    if isinstance(out, tuple):
        if len(out) != 1:
            return NotImplemented
        out = out[0]
    # NumPy arrays next to device arrays: CuPy's error; on the CPU they are read in place.
    dev = next((x.device for x in inputs if isinstance(x, ndarray)), None)
    ins = [x if not isinstance(x, numpy.ndarray) else _c._asarray(x, None, dev) for x in inputs]
    if out is not None:
        kwargs["out"] = out
    if method == "__call__":
        return f(*ins, **kwargs)
    m = getattr(f, method, None)
    if m is None:
        return NotImplemented
    return m(*ins, **kwargs)


def reduce_array(a: ndarray) -> tuple:
    """Pickling: a host copy, rebuilt on the receiving process's current device."""
    import cuprum

    return (cuprum.asarray, (a.get(),))
