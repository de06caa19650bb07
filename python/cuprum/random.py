"""``numpy.random`` on cuprum arrays. ``default_rng(seed)`` is NumPy's ``Generator(Philox(seed))``: the same
numbers, bit for bit, on the CPU and the GPU. The legacy functions (``seed``, ``rand``, ``randn``...) draw
from one such generator per process."""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy

from . import _core
from . import _cuprum as _c
from ._cuprum import ndarray

__all__ = [
    "Generator",
    "default_rng",
    "seed",
    "rand",
    "randn",
    "random",
    "random_sample",
    "sample",
    "ranf",
    "uniform",
    "normal",
    "randint",
    "permutation",
    "shuffle",
    "choice",
    "standard_normal",
]


def _size(size: Any) -> list:
    if size is None:
        return []
    dims = [operator.index(size)] if isinstance(size, int | numpy.integer) else [operator.index(s) for s in size]
    if builtins.any(d < 0 for d in dims):
        raise ValueError("negative dimensions are not allowed")
    return dims


class Philox:
    """NumPy's ``Philox`` bit generator as a seed: its ``SeedSequence`` (made from ``seed``, or ``seed``
    itself), from which ``default_rng`` keys the stream as ``numpy.random.Philox`` does. Dask's random arrays
    with the ``cuprum`` backend spawn one per chunk (``_seed_seq.spawn``)."""

    def __init__(self, seed: Any = None):
        self._seed_seq = seed if isinstance(seed, numpy.random.SeedSequence) else numpy.random.SeedSequence(seed)

    @property
    def seed_seq(self) -> numpy.random.SeedSequence:
        return self._seed_seq

    def __repr__(self) -> str:
        return f"cuprum.random.Philox({self._seed_seq.entropy!r}, spawn_key={self._seed_seq.spawn_key!r})"


class Generator:
    """NumPy's ``Generator`` on the Philox bit generator, drawing on the device it was made on. ``seed``: an
    integer, a sequence of integers, ``None`` (fresh entropy), a ``numpy.random.SeedSequence`` or a
    :class:`Philox` (both: the stream of ``numpy.random.Philox(seed_seq)``, spawned sequences included)."""

    def __init__(self, seed: Any = None, *, device: Any = None):
        if isinstance(seed, Philox):
            seed = seed.seed_seq
        if isinstance(seed, numpy.random.SeedSequence):
            k0, k1 = (builtins.int(k) for k in seed.generate_state(2, numpy.uint64))
            self._g = _c._Generator.from_key(k0, k1, device)
        else:
            self._g = _c._Generator(seed, device)

    def __repr__(self) -> str:
        return f"Generator(Philox) on {self._g.device!r}"

    @property
    def device(self) -> Any:
        return self._g.device

    def random(self, size: Any = None, dtype: Any = numpy.float64, out: Any = None) -> ndarray:
        if out is not None:
            _c.assign(out, self._g.random(list(out.shape), out.dtype))
            return out
        return self._g.random(_size(size), dtype)

    def uniform(self, low: float = 0.0, high: float = 1.0, size: Any = None) -> ndarray:
        return self._g.uniform(float(low), float(high), _size(size))

    def integers(
        self, low: int, high: Any = None, size: Any = None, dtype: Any = numpy.int64, endpoint: bool = False
    ) -> ndarray:
        return self._g.integers(int(low), None if high is None else int(high), _size(size), dtype, endpoint)

    def standard_normal(self, size: Any = None, dtype: Any = numpy.float64, out: Any = None) -> ndarray:
        if out is not None:
            _c.assign(out, self._g.standard_normal(list(out.shape), out.dtype))
            return out
        return self._g.standard_normal(_size(size), dtype)

    def normal(self, loc: float = 0.0, scale: float = 1.0, size: Any = None) -> ndarray:
        return self._g.normal(float(loc), float(scale), _size(size))

    def standard_exponential(
        self, size: Any = None, dtype: Any = numpy.float64, method: str = "zig", out: Any = None
    ) -> ndarray:
        return self._g.standard_exponential(_size(size), dtype)

    def exponential(self, scale: float = 1.0, size: Any = None) -> ndarray:
        return self._g.exponential(float(scale), _size(size))

    def standard_gamma(self, shape: float, size: Any = None, dtype: Any = numpy.float64, out: Any = None) -> ndarray:
        return self._g.standard_gamma(float(shape), _size(size), dtype)

    def gamma(self, shape: float, scale: float = 1.0, size: Any = None) -> ndarray:
        return self._g.gamma(float(shape), float(scale), _size(size))

    def beta(self, a: float, b: float, size: Any = None) -> ndarray:
        return self._g.beta(float(a), float(b), _size(size))

    def poisson(self, lam: float = 1.0, size: Any = None) -> ndarray:
        return self._g.poisson(float(lam), _size(size))

    def binomial(self, n: int, p: float, size: Any = None) -> ndarray:
        return self._g.binomial(int(n), float(p), _size(size))

    def lognormal(self, mean: float = 0.0, sigma: float = 1.0, size: Any = None) -> ndarray:
        return self._g.lognormal(float(mean), float(sigma), _size(size))

    def permutation(self, x: Any, axis: int = 0) -> ndarray:
        if isinstance(x, int | numpy.integer):
            # NumPy permutes arange(x): empty for x <= 0.
            return self._g.permutation(builtins.max(int(x), 0))
        return self._g.permutation_of(_core._arr(x), axis)

    def permuted(self, x: Any, *, axis: Any = None, out: Any = None) -> ndarray:
        r = self._g.permuted(_core._arr(x), axis)
        return _core._out(r, out)

    def shuffle(self, x: ndarray, axis: int = 0) -> None:
        self._g.shuffle(x, axis)

    def choice(
        self, a: Any, size: Any = None, replace: bool = True, p: Any = None, axis: int = 0, shuffle: bool = True
    ) -> ndarray:
        pp = None if p is None else _core._arr(p).astype(numpy.float64, copy=False)
        if isinstance(a, int | numpy.integer):
            if a < 0:
                raise ValueError("a must be a positive integer unless no samples are taken")
            return self._g.choice_index(int(a), _size(size), replace, pp)
        return self._g.choice(_core._arr(a), _size(size), replace, pp, axis)


def default_rng(seed: Any = None, *, device: Any = None) -> Generator:
    """NumPy's ``default_rng`` with Philox as the bit generator: ``default_rng(42).random(3)`` equals
    ``numpy.random.Generator(numpy.random.Philox(42)).random(3)``."""
    if isinstance(seed, Generator):
        return seed
    return Generator(seed, device=device)


def seed(seed: Any = None) -> None:
    _c.legacy_seed(seed)


def rand(*shape: int, dtype: Any = float) -> ndarray:
    """Uniform in [0, 1) of ``shape``; ``dtype`` float64 (NumPy's) or float32 (CuPy's keyword)."""
    return _c.legacy("rand", list(shape), None, dtype)


def randn(*shape: int, dtype: Any = float) -> ndarray:
    return _c.legacy("randn", list(shape), None, dtype)


def random(size: Any = None, dtype: Any = float) -> ndarray:
    return _c.legacy("random", _size(size), None, dtype)


random_sample = sample = ranf = random


def uniform(low: float = 0.0, high: float = 1.0, size: Any = None) -> ndarray:
    return _c.legacy2("uniform", float(low), float(high), _size(size), None)


def normal(loc: float = 0.0, scale: float = 1.0, size: Any = None) -> ndarray:
    return _c.legacy2("normal", float(loc), float(scale), _size(size), None)


def standard_normal(size: Any = None, dtype: Any = float) -> ndarray:
    return _c.legacy("randn", _size(size), None, dtype)


def randint(low: int, high: Any = None, size: Any = None, dtype: Any = int) -> ndarray:
    return _c.legacy_randint(int(low), None if high is None else int(high), _size(size), dtype, None)


def permutation(x: Any) -> ndarray:
    if isinstance(x, int | numpy.integer):
        return _c.legacy_permutation(int(x), None)
    a = _core._arr(x)
    return a[_c.legacy_permutation(a.shape[0], a.device)]


def shuffle(x: ndarray) -> None:
    _c.legacy_shuffle(x)


def choice(a: Any, size: Any = None, replace: bool = True, p: Any = None) -> ndarray:
    n = int(a) if isinstance(a, int | numpy.integer) else None
    idx = _core._arr(
        numpy.random.choice(n if n is not None else len(a), size, replace, None if p is None else _core.asnumpy(p))
    )
    return idx if n is not None else _core.take(_core._arr(a), idx)
