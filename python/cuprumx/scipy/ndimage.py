"""``scipy.ndimage`` on cuprum arrays: labelling, measurements, filters, morphology."""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy

from cuprum import _core
from cuprum import _cuprum as _c
from cuprum._cuprum import ndarray

__all__ = [
    "label",
    "sum_labels",
    "sum",
    "mean",
    "variance",
    "standard_deviation",
    "minimum",
    "maximum",
    "minimum_position",
    "maximum_position",
    "center_of_mass",
    "extrema",
    "median",
    "histogram",
    "find_objects",
    "generate_binary_structure",
    "iterate_structure",
    "correlate",
    "convolve",
    "correlate1d",
    "convolve1d",
    "gaussian_filter",
    "gaussian_filter1d",
    "uniform_filter",
    "uniform_filter1d",
    "sobel",
    "prewitt",
    "laplace",
    "gaussian_laplace",
    "gaussian_gradient_magnitude",
    "median_filter",
    "minimum_filter",
    "maximum_filter",
    "minimum_filter1d",
    "maximum_filter1d",
    "rank_filter",
    "percentile_filter",
    "grey_erosion",
    "grey_dilation",
    "binary_erosion",
    "binary_dilation",
    "binary_opening",
    "binary_closing",
    "binary_fill_holes",
]


def _a(x: Any, like: Any = None) -> ndarray:
    return _core._dev_arr(x, like)


# ----------------------------------------------------------------------------------------- labelling


def label(input: Any, structure: Any = None, output: Any = None) -> Any:  # noqa: A002
    """SciPy's ``label``: ``(labels, count)``, or ``count`` when ``output`` (an array) receives the labels."""
    x = _a(input)
    s = None if structure is None else _a(structure, x)
    if isinstance(output, ndarray):
        _, n = _c.label(x, s, output)
        return n
    lab, n = _c.label(x, s, None)
    if output is not None:
        lab = lab.astype(output)
    return lab, n


# ----------------------------------------------------------------------------------------- measurements


def _groups(labels: Any, index: Any, x: ndarray) -> tuple[Any, Any]:
    """``labels`` and ``index`` as the measurements take them (integer labels; an integer index or an
    array of them), by SciPy's rules: without an index, every label above 0 is one group; a scalar
    index is the group of the labels equal to it (``index=1.5`` over integer labels is an empty
    group); an array index is cast to int over integer labels, and over float labels (``label()``
    writes into float arrays) each value is the group of the labels equal to it. Where SciPy compares
    numbers, each index value becomes its group's number (1, 2, ...) and each label the number of
    the value it equals, or 0 (no group)."""
    lab = None if labels is None else _a(labels, x)
    if isinstance(index, range):
        index = list(index)
    lab_float = lab is not None and lab.dtype.kind in "fc"
    if lab is not None and lab.dtype.kind == "c":
        lab = lab.real
    if lab is None or index is None:
        return ((lab > 0).astype(numpy.int8) if lab_float else lab), index
    if numpy.isscalar(index):
        if lab_float or numpy.asarray(index).dtype.kind in "fc":
            return (lab == index).astype(numpy.int8), 1
        return lab, index
    if not lab_float:
        if isinstance(index, ndarray):
            return lab, index.astype(numpy.int64, copy=False)
        return lab, _core.asarray(numpy.asarray(index).astype(numpy.int64), device=x.device)
    idx = _core.asarray(index.get() if isinstance(index, ndarray) else index, dtype=numpy.float64, device=x.device)
    values = _core.unique(idx.ravel())
    if values.size == 0:
        return lab.astype(numpy.int64), idx.astype(numpy.int64)
    labf = lab.astype(numpy.float64)
    pos = _core.minimum(_core.searchsorted(values, labf), values.size - 1)
    return _core.where(values[pos] == labf, pos + 1, 0), _core.searchsorted(values, idx) + 1


def _measure(name: str) -> Any:
    def f(input: Any, labels: Any = None, index: Any = None) -> Any:  # noqa: A002
        x = _a(input)
        return _c.measure(name, x, *_groups(labels, index, x))

    f.__name__ = name
    f.__doc__ = f"SciPy's ``ndimage.{name}``."
    return f


sum_labels = _measure("sum_labels")
sum = _measure("sum")  # noqa: A001
mean = _measure("mean")
variance = _measure("variance")
standard_deviation = _measure("standard_deviation")
minimum = _measure("minimum")
maximum = _measure("maximum")
median = _measure("median")
_min_pos = _measure("minimum_position")
_max_pos = _measure("maximum_position")
_com = _measure("center_of_mass")


def _positions(r: ndarray, index: Any) -> Any:
    """Positions as SciPy gives them: one tuple for one label, a list of tuples for several."""
    if index is None or numpy.isscalar(index) or (isinstance(index, ndarray) and index.ndim == 0):
        return tuple(r.reshape(-1).tolist()) if r.ndim <= 1 else [tuple(p) for p in r.tolist()]
    return [tuple(p) for p in r.tolist()]


def center_of_mass(input: Any, labels: Any = None, index: Any = None) -> Any:  # noqa: A002
    """SciPy's ``center_of_mass``: a tuple for one label, a list of tuples for several (values on the host,
    as SciPy's)."""
    return _positions(_com(input, labels, index), index)


def minimum_position(input: Any, labels: Any = None, index: Any = None) -> Any:  # noqa: A002
    return _positions(_min_pos(input, labels, index).astype(numpy.int64), index)


def maximum_position(input: Any, labels: Any = None, index: Any = None) -> Any:  # noqa: A002
    return _positions(_max_pos(input, labels, index).astype(numpy.int64), index)


def extrema(input: Any, labels: Any = None, index: Any = None) -> tuple:  # noqa: A002
    return (
        minimum(input, labels, index),
        maximum(input, labels, index),
        minimum_position(input, labels, index),
        maximum_position(input, labels, index),
    )


def histogram(input: Any, min: Any, max: Any, bins: int, labels: Any = None, index: Any = None) -> Any:  # noqa: A002
    x = _a(input)
    if operator.index(bins) < 1 and labels is None:
        # SciPy's edges are linspace(min, max, bins + 1): one or none, no bin to count.
        return _core.zeros(0, dtype=numpy.int64, device=x.device)
    return _c.nd_histogram(x, float(min), float(max), int(bins), *_groups(labels, index, x))


def find_objects(input: Any, max_label: int = 0) -> list:  # noqa: A002
    r = _c.find_objects(_a(input), int(max_label))
    return [None if o is None else tuple(slice(a, b) for a, b in o) for o in r]


def generate_binary_structure(rank: int, connectivity: int) -> ndarray:
    # SciPy's: a connectivity below 1 is 1; a rank below 1 the 0-d True.
    rank, connectivity = operator.index(rank), builtins.max(operator.index(connectivity), 1)
    if rank < 1:
        return _core.asarray(True)
    return _c.generate_binary_structure(rank, connectivity)


def iterate_structure(structure: Any, iterations: int, origin: Any = None) -> ndarray:
    return _c.iterate_structure(_a(structure), int(iterations))


# ----------------------------------------------------------------------------------------- filters


def _seq(v: Any, n: int, conv: Any = float) -> list:
    """A per-axis argument (a size, a sigma) for `n` axes: one value for all, or one per axis (SciPy's
    RuntimeError for a sequence of another length)."""
    if isinstance(v, int | float | numpy.integer | numpy.floating):
        return [conv(v)] * n
    v = [conv(x) for x in v]
    if len(v) != n:
        raise RuntimeError("sequence argument must have length equal to input rank")
    return v


def _origin(origin: Any, n: int) -> list:
    if isinstance(origin, int | numpy.integer):
        return [int(origin)] * n
    return [int(o) for o in origin]


def _filter(
    name: str,
    input: Any,
    weights: Any = None,
    param: Any = None,
    axis: int = -1,
    output: Any = None,  # noqa: A002
    mode: str = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    **kw: Any,
) -> ndarray:
    x = _a(input)
    out = output if isinstance(output, ndarray) else None
    dtype = None if isinstance(output, ndarray) else output
    if not isinstance(mode, str):
        raise NotImplementedError("cuprum: one mode per axis")
    n = x.ndim if kw.get("axes") is None else len(kw["axes"])
    r = _c.nd_filter(
        name,
        x,
        None if weights is None else _a(weights, x),
        param,
        axis,
        mode,
        float(cval),
        _origin(origin, n) if name not in ("correlate1d", "convolve1d") else [int(origin)],
        out,
        dtype,
        kw.get("order"),
        float(kw.get("truncate", 4.0)),
        kw.get("radius"),
        kw.get("axes"),
    )
    return out if out is not None else r


def correlate(
    input: Any,
    weights: Any,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,  # noqa: A002
    origin: Any = 0,
    *,
    axes: Any = None,
) -> ndarray:
    return _filter("correlate", input, weights, None, -1, output, mode, cval, origin, axes=axes)


def convolve(
    input: Any,
    weights: Any,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,  # noqa: A002
    origin: Any = 0,
    *,
    axes: Any = None,
) -> ndarray:
    return _filter("convolve", input, weights, None, -1, output, mode, cval, origin, axes=axes)


def correlate1d(
    input: Any,
    weights: Any,
    axis: int = -1,
    output: Any = None,
    mode: str = "reflect",  # noqa: A002
    cval: float = 0.0,
    origin: int = 0,
) -> ndarray:
    w = [float(v) for v in (weights.tolist() if isinstance(weights, ndarray) else numpy.ravel(weights))]
    return _filter("correlate1d", input, None, w, axis, output, mode, cval, origin)


def convolve1d(
    input: Any,
    weights: Any,
    axis: int = -1,
    output: Any = None,
    mode: str = "reflect",  # noqa: A002
    cval: float = 0.0,
    origin: int = 0,
) -> ndarray:
    w = [float(v) for v in (weights.tolist() if isinstance(weights, ndarray) else numpy.ravel(weights))]
    return _filter("convolve1d", input, None, w, axis, output, mode, cval, origin)


def gaussian_filter(
    input: Any,
    sigma: Any,
    order: Any = 0,
    output: Any = None,
    mode: str = "reflect",  # noqa: A002
    cval: float = 0.0,
    truncate: float = 4.0,
    *,
    radius: Any = None,
    axes: Any = None,
) -> ndarray:
    x = _a(input)
    axes = (axes,) if isinstance(axes, int) else axes  # SciPy takes one axis as an int
    n = x.ndim if axes is None else len(axes)
    orders = [int(order)] * n if isinstance(order, int) else [int(o) for o in order]
    rad = None if radius is None else ([int(radius)] * n if isinstance(radius, int) else [int(r) for r in radius])
    return _filter(
        "gaussian_filter",
        x,
        None,
        _seq(sigma, n),
        -1,
        output,
        mode,
        cval,
        0,
        order=orders,
        truncate=truncate,
        radius=rad,
        axes=None if axes is None else list(axes),
    )


def gaussian_filter1d(
    input: Any,
    sigma: float,
    axis: int = -1,
    order: int = 0,
    output: Any = None,  # noqa: A002
    mode: str = "reflect",
    cval: float = 0.0,
    truncate: float = 4.0,
    *,
    radius: Any = None,
) -> ndarray:
    return _filter(
        "gaussian_filter1d",
        input,
        None,
        [float(sigma)],
        axis,
        output,
        mode,
        cval,
        0,
        order=[int(order)],
        truncate=truncate,
        radius=None if radius is None else [int(radius)],
    )


def uniform_filter(
    input: Any,
    size: Any = 3,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,  # noqa: A002
    origin: Any = 0,
    *,
    axes: Any = None,
) -> ndarray:
    x = _a(input)
    axes = (axes,) if isinstance(axes, int) else axes  # SciPy takes one axis as an int
    n = x.ndim if axes is None else len(axes)
    return _filter(
        "uniform_filter",
        x,
        None,
        _seq(size, n),
        -1,
        output,
        mode,
        cval,
        origin,
        axes=None if axes is None else list(axes),
    )


def uniform_filter1d(
    input: Any,
    size: int,
    axis: int = -1,
    output: Any = None,
    mode: str = "reflect",  # noqa: A002
    cval: float = 0.0,
    origin: int = 0,
) -> ndarray:
    return _filter("uniform_filter1d", input, None, [float(size)], axis, output, mode, cval, [origin])


def sobel(input: Any, axis: int = -1, output: Any = None, mode: str = "reflect", cval: float = 0.0) -> ndarray:  # noqa: A002
    return _filter("sobel", input, None, None, axis, output, mode, cval, 0)


def prewitt(input: Any, axis: int = -1, output: Any = None, mode: str = "reflect", cval: float = 0.0) -> ndarray:  # noqa: A002
    return _filter("prewitt", input, None, None, axis, output, mode, cval, 0)


def laplace(input: Any, output: Any = None, mode: str = "reflect", cval: float = 0.0) -> ndarray:  # noqa: A002
    return _filter("laplace", input, None, None, -1, output, mode, cval, 0)


def gaussian_laplace(
    input: Any,
    sigma: Any,
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,  # noqa: A002
    **kwargs: Any,
) -> ndarray:
    x = _a(input)
    return _filter(
        "gaussian_laplace",
        x,
        None,
        _seq(sigma, x.ndim),
        -1,
        output,
        mode,
        cval,
        0,
        truncate=kwargs.get("truncate", 4.0),
    )


def gaussian_gradient_magnitude(
    input: Any,
    sigma: Any,
    output: Any = None,
    mode: str = "reflect",  # noqa: A002
    cval: float = 0.0,
    **kwargs: Any,
) -> ndarray:
    x = _a(input)
    return _filter(
        "gaussian_gradient_magnitude",
        x,
        None,
        _seq(sigma, x.ndim),
        -1,
        output,
        mode,
        cval,
        0,
        truncate=kwargs.get("truncate", 4.0),
    )


# ----------------------------------------------------------------------------------------- rank filters


def _rank(
    name: str,
    input: Any,
    size: Any = None,
    footprint: Any = None,
    structure: Any = None,  # noqa: A002
    output: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    axes: Any = None,
    rank: int = 0,
    percentile: float = 0.0,
    axis: int = -1,
) -> ndarray:
    x = _a(input)
    axes = (axes,) if isinstance(axes, int) else axes  # SciPy takes one axis as an int
    n = x.ndim if axes is None else len(axes)
    sz = None if size is None else _seq(size, n, int)
    if sz is not None and builtins.min(sz, default=0) < 0:
        raise ValueError("negative dimensions are not allowed")  # SciPy's footprint of that shape
    fp = None if footprint is None else _a(footprint, x)
    st = None if structure is None else _a(structure, x)
    r = _c.nd_rank(
        name,
        x,
        sz,
        fp,
        st,
        int(rank),
        float(percentile),
        axis,
        mode,
        float(cval),
        _origin(origin, n),
        None if axes is None else list(axes),
    )
    if isinstance(output, ndarray):
        _c.assign(output, r.astype(output.dtype))
        return output
    return r if output is None else r.astype(output)


def median_filter(
    input: Any,
    size: Any = None,
    footprint: Any = None,
    output: Any = None,
    mode: str = "reflect",  # noqa: A002
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> ndarray:
    return _rank("median_filter", input, size, footprint, None, output, mode, cval, origin, axes)


def minimum_filter(
    input: Any,
    size: Any = None,
    footprint: Any = None,
    output: Any = None,
    mode: str = "reflect",  # noqa: A002
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> ndarray:
    return _rank("minimum_filter", input, size, footprint, None, output, mode, cval, origin, axes)


def maximum_filter(
    input: Any,
    size: Any = None,
    footprint: Any = None,
    output: Any = None,
    mode: str = "reflect",  # noqa: A002
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> ndarray:
    return _rank("maximum_filter", input, size, footprint, None, output, mode, cval, origin, axes)


def rank_filter(
    input: Any,
    rank: int,
    size: Any = None,
    footprint: Any = None,
    output: Any = None,  # noqa: A002
    mode: str = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> ndarray:
    return _rank("rank_filter", input, size, footprint, None, output, mode, cval, origin, axes, rank=rank)


def percentile_filter(
    input: Any,
    percentile: float,
    size: Any = None,
    footprint: Any = None,
    output: Any = None,  # noqa: A002
    mode: str = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> ndarray:
    return _rank(
        "percentile_filter", input, size, footprint, None, output, mode, cval, origin, axes, percentile=percentile
    )


def minimum_filter1d(
    input: Any,
    size: int,
    axis: int = -1,
    output: Any = None,
    mode: str = "reflect",  # noqa: A002
    cval: float = 0.0,
    origin: int = 0,
) -> ndarray:
    return _rank("minimum_filter1d", input, [size], None, None, output, mode, cval, [origin], [axis], axis=axis)


def maximum_filter1d(
    input: Any,
    size: int,
    axis: int = -1,
    output: Any = None,
    mode: str = "reflect",  # noqa: A002
    cval: float = 0.0,
    origin: int = 0,
) -> ndarray:
    return _rank("maximum_filter1d", input, [size], None, None, output, mode, cval, [origin], [axis], axis=axis)


def grey_erosion(
    input: Any,
    size: Any = None,
    footprint: Any = None,
    structure: Any = None,
    output: Any = None,  # noqa: A002
    mode: str = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> ndarray:
    return _rank("grey_erosion", input, size, footprint, structure, output, mode, cval, origin, axes)


def grey_dilation(
    input: Any,
    size: Any = None,
    footprint: Any = None,
    structure: Any = None,
    output: Any = None,  # noqa: A002
    mode: str = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> ndarray:
    return _rank("grey_dilation", input, size, footprint, structure, output, mode, cval, origin, axes)


# ----------------------------------------------------------------------------------------- morphology


def _binary(
    name: str,
    input: Any,
    structure: Any = None,
    iterations: int = 1,
    mask: Any = None,  # noqa: A002
    output: Any = None,
    border_value: Any = 0,
    origin: Any = 0,
) -> ndarray:
    x = _a(input)
    st = None if structure is None else _a(structure, x)
    mk = None if mask is None else _a(mask, x)
    org = [int(origin)] if isinstance(origin, int | numpy.integer) else [int(o) for o in origin]
    r = _c.nd_binary(name, x, st, int(iterations), mk, bool(border_value), org)
    if isinstance(output, ndarray):
        _c.assign(output, r.astype(output.dtype))
        return output
    return r


def binary_erosion(
    input: Any,
    structure: Any = None,
    iterations: int = 1,
    mask: Any = None,
    output: Any = None,  # noqa: A002
    border_value: Any = 0,
    origin: Any = 0,
    brute_force: bool = False,
) -> ndarray:
    return _binary("binary_erosion", input, structure, iterations, mask, output, border_value, origin)


def binary_dilation(
    input: Any,
    structure: Any = None,
    iterations: int = 1,
    mask: Any = None,
    output: Any = None,  # noqa: A002
    border_value: Any = 0,
    origin: Any = 0,
    brute_force: bool = False,
) -> ndarray:
    return _binary("binary_dilation", input, structure, iterations, mask, output, border_value, origin)


def binary_opening(
    input: Any,
    structure: Any = None,
    iterations: int = 1,
    output: Any = None,
    origin: Any = 0,  # noqa: A002
    mask: Any = None,
    border_value: Any = 0,
    brute_force: bool = False,
) -> ndarray:
    return _binary("binary_opening", input, structure, iterations, mask, output, border_value, origin)


def binary_closing(
    input: Any,
    structure: Any = None,
    iterations: int = 1,
    output: Any = None,
    origin: Any = 0,  # noqa: A002
    mask: Any = None,
    border_value: Any = 0,
    brute_force: bool = False,
) -> ndarray:
    return _binary("binary_closing", input, structure, iterations, mask, output, border_value, origin)


def binary_fill_holes(input: Any, structure: Any = None, output: Any = None, origin: Any = 0) -> ndarray:  # noqa: A002
    return _binary("binary_fill_holes", input, structure, 1, None, output, 0, origin)
