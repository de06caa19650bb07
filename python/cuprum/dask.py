"""Dask arrays whose chunks are cuprum arrays, as ``dask.array`` carries CuPy's.

``import cuprum.dask`` (or :func:`register`, which the import calls) makes :class:`cuprum.ndarray` a Dask
chunk type and gives Dask what it asks of one:

- the chunk-type registry (``dask.array.register_chunk_type``): without it Dask defers to cuprum's
  ``__array_ufunc__``/``__array_function__`` and mixed operations fail;
- the per-type dispatch tables of ``dask.array.dispatch`` (concatenate, take, tensordot, einsum, empty,
  percentile, numel, nannumel, to-NumPy), so that reductions such as ``mean`` and ``var`` count elements
  on the chunks' device instead of mixing NumPy arrays in;
- ``dask.sizeof``: a chunk's real bytes (Dask's default, ``sys.getsizeof``, sees a few dozen bytes);
- ``distributed``'s serialization (when ``distributed`` is installed): a header (shape, dtype, device
  kind) and one host frame; the receiving worker rebuilds the chunk on its own current device (each
  worker of a GPU cluster owns one GPU, see :func:`gpu_cluster`);
- an array backend, ``dask.config.set({"array.backend": "cuprum"})`` (the ``dask.array.backends`` entry
  point ``cuprum`` of this package): ``da.ones``, ``da.zeros``, ``da.empty``, ``da.full``, ``da.arange``
  make cuprum chunks, ``da.random.default_rng(seed)`` draws each chunk from its own spawned Philox stream
  (as a NumPy-backed ``da.random.Generator(numpy.random.Philox(seed))``: the same chunks, bit for bit where
  cuprum's draws are NumPy's: random, uniform, integers), and
  ``x.to_backend("cuprum")`` moves a NumPy-backed collection over.

Exact statistics of a whole chunked array: :func:`order_statistics` (each worker sorts its chunks once,
then a radix search over binary-search counts) and :func:`kappa_sigma` (the lessons' clipper: count, exact
median, std of the kept values; its rounds read runs of sorted keys copied about the clipper's path).

Labelling a chunked mosaic: :func:`label` (SciPy's labels of the whole image: chunks labelled on their
own, objects that cross edges joined by a union-find, SciPy's numbering), :func:`measure` (centres of
mass, fluxes, sizes, peaks from per-chunk sums), and :func:`catalogue` (both, without the labelled image).

Dask's cost is a task's and a round trip's (about a millisecond and 3–11 ms): the steps above run one task
a worker over the chunks it holds, not one a chunk, and :func:`low_latency` shortens ``distributed``'s
message batching. :func:`gpu_cluster` starts one worker a GPU (``docs/many-machines.md``: many machines).

Filters over chunked images, equal to SciPy's filter of the whole image (``map_overlap`` with the window's
reach; at the array's edges the filter's own mode, or Dask's periodic boundary for ``wrap``):
:func:`gaussian_filter`, :func:`median_filter`, :func:`convolve2d`.

Dask keeps a zero-size chunk as each collection's ``_meta`` (a slice ``x[:0, ...]``, ``reshape``, ``astype``,
a 0-d ``sum``): cuprum's zero-size arrays take no kernel launch, so a collection of cuprum chunks keeps
``chunktype=cuprum.ndarray`` (the tests check it: where a meta operation fails, Dask silently falls back
to NumPy).
"""

from __future__ import annotations

import builtins
import operator
import os
from typing import Any

import numpy

import cuprum

try:
    import dask
    import dask.array as da
    from dask.array.backends import ArrayBackendEntrypoint
except ImportError as e:  # pragma: no cover - a clear message for a missing optional dependency
    raise ImportError("cuprum.dask needs dask: pip install 'dask[array]' (and distributed for clusters)") from e

__all__ = [
    "CuprumBackendEntrypoint",
    "catalogue",
    "convolve2d",
    "gaussian_filter",
    "gpu_cluster",
    "low_latency",
    "kappa_sigma",
    "label",
    "measure",
    "median_filter",
    "order_statistics",
    "register",
    "to_cuprum",
]

_REGISTERED = False


def _einsum(*args: Any, **kwargs: Any) -> Any:
    # Dask passes NumPy's order and casting; cuprum's einsum computes in the promoted type.
    kwargs.pop("casting", None)
    kwargs.pop("order", None)
    return cuprum.einsum(*args, **kwargs)


def _to_numpy(data: Any, **kwargs: Any) -> numpy.ndarray:
    return cuprum.asnumpy(data, **kwargs)


def to_cuprum(data: Any, **kwargs: Any) -> Any:
    """A chunk as a cuprum array (on the current device); cuprum arrays pass through."""
    if isinstance(data, cuprum.ndarray):
        return data
    return cuprum.asarray(data, **kwargs)


def _register_distributed() -> None:
    try:
        from distributed.protocol import dask_deserialize, dask_serialize
    except ImportError:
        return

    @dask_serialize.register(cuprum.ndarray)
    def _serialize(x: cuprum.ndarray) -> tuple[dict, list]:
        host = numpy.asarray(cuprum.asnumpy(x), order="C")  # (ascontiguousarray makes 0-d 1-d)
        header = {"shape": host.shape, "dtype": host.dtype.str, "cpu": x.device == cuprum.Device("cpu")}
        return header, [host.data.cast("B") if host.size else b""]

    @dask_deserialize.register(cuprum.ndarray)
    def _deserialize(header: dict, frames: list) -> cuprum.ndarray:
        dt = numpy.dtype(header["dtype"])
        host = numpy.frombuffer(frames[0], dtype=dt) if frames and len(frames[0]) else numpy.empty(0, dt)
        host = host.reshape(header["shape"])
        # A CPU chunk stays on the CPU; a GPU chunk goes to the receiving worker's current device.
        return cuprum.asarray(host, device="cpu") if header["cpu"] else cuprum.asarray(host)


def register() -> None:
    """Registers :class:`cuprum.ndarray` with Dask (and ``distributed`` when installed); idempotent."""
    global _REGISTERED
    if _REGISTERED:
        return
    from dask.array import backends as dab
    from dask.array import dispatch as dd
    from dask.sizeof import sizeof

    da.register_chunk_type(cuprum.ndarray)
    dd.concatenate_lookup.register(cuprum.ndarray, cuprum.concatenate)
    dd.take_lookup.register(cuprum.ndarray, cuprum.take)
    dd.tensordot_lookup.register(cuprum.ndarray, cuprum.tensordot)
    dd.einsum_lookup.register(cuprum.ndarray, _einsum)
    dd.empty_lookup.register(cuprum.ndarray, cuprum.empty)
    dd.percentile_lookup.register(cuprum.ndarray, dab.percentile)
    dd.numel_lookup.register(cuprum.ndarray, dab._numel_arraylike)
    dd.nannumel_lookup.register(cuprum.ndarray, dab._nannumel)
    dd.to_numpy_dispatch.register(cuprum.ndarray, _to_numpy)
    sizeof.register(cuprum.ndarray, lambda x: int(x.nbytes))
    sizeof.register(_Part, lambda p: p.nbytes)
    sizeof.register(_Labelled, lambda p: p.nbytes)
    _register_distributed()
    _REGISTERED = True


def _with_meta(attr: str, *args: Any, meta: Any = None, **kwargs: Any) -> Any:
    meta = cuprum.empty(()) if meta is None else meta
    with dask.config.set({"array.backend": "numpy"}):
        return getattr(da, attr)(*args, meta=meta, **kwargs)


class CuprumBackendEntrypoint(ArrayBackendEntrypoint):
    """Dask's array backend ``cuprum``: creation functions make cuprum chunks (on each worker's current
    device), ``to_backend("cuprum")`` converts a collection's chunks."""

    def __init__(self) -> None:
        register()

    @classmethod
    def to_backend_dispatch(cls) -> Any:
        return to_cuprum

    @classmethod
    def to_backend(cls, data: Any, **kwargs: Any) -> Any:
        if isinstance(data._meta, cuprum.ndarray):
            return data
        return data.map_blocks(to_cuprum, **kwargs)

    @property
    def RandomState(self) -> Any:  # noqa: N802 - Dask's name
        # Dask's legacy functions (da.random.random, ...) draw through a RandomState; cuprum has NumPy's
        # Generator only (bit for bit), which da.random.default_rng() uses.
        raise NotImplementedError(
            "cuprum has no legacy RandomState: use da.random.default_rng(seed) (NumPy's Generator on Philox)"
        )

    @property
    def default_bit_generator(self) -> Any:
        # da.random.default_rng(seed): one Philox stream a chunk, spawned from the seed's SeedSequence as
        # Dask spawns NumPy's (uniform chunks equal a NumPy-backed Generator(Philox(seed))'s).
        return cuprum.random.Philox

    @staticmethod
    def ones(*args: Any, **kwargs: Any) -> Any:
        return _with_meta("ones", *args, **kwargs)

    @staticmethod
    def zeros(*args: Any, **kwargs: Any) -> Any:
        return _with_meta("zeros", *args, **kwargs)

    @staticmethod
    def empty(*args: Any, **kwargs: Any) -> Any:
        return _with_meta("empty", *args, **kwargs)

    @staticmethod
    def full(*args: Any, **kwargs: Any) -> Any:
        return _with_meta("full", *args, **kwargs)

    @staticmethod
    def arange(*args: Any, like: Any = None, **kwargs: Any) -> Any:
        like = cuprum.empty(()) if like is None else like
        with dask.config.set({"array.backend": "numpy"}):
            return da.arange(*args, like=like, **kwargs)


# ---------------------------------------------------------------- exact statistics over chunks

# Order-preserving unsigned keys of float32/float64 values (the sign flipped; negatives inverted).
_KEY = {4: (numpy.uint32, 0x80000000, 0xFFFFFFFF), 8: (numpy.uint64, 1 << 63, (1 << 64) - 1)}
# Bits of the radix search a pass: 65,535 candidate keys a rank, counted in each worker by a binary search
# (2 passes for float32, 4 for float64).
_DIGIT = 16
# Keys a part sends for the clipper's rough path (:meth:`_Shares.prepare`).
_SAMPLE = 1 << 14


def _to_keys(xp: Any, v: Any) -> Any:
    """The order keys of the values ``v`` (a cuprum array with ``xp = cuprum``, a NumPy one with NumPy)."""
    ut, sign, full = _KEY[v.dtype.itemsize]
    bits = v.view(ut)
    return xp.where((bits & ut(sign)) != 0, bits ^ ut(full), bits | ut(sign)).astype(ut)


def _from_keys(xp: Any, k: Any, dtype: Any) -> Any:
    """The values of the order keys ``k`` (the inverse of :func:`_to_keys`)."""
    ut, sign, full = _KEY[numpy.dtype(dtype).itemsize]
    return xp.where((k & ut(sign)) != 0, k ^ ut(sign), k ^ ut(full)).astype(ut).view(dtype)


def _key_of(v: float, dtype: Any) -> int:
    return builtins.int(_to_keys(numpy, numpy.array([v], dtype=dtype))[0])


def _key_value(k: int, dtype: Any) -> float:
    ut = _KEY[numpy.dtype(dtype).itemsize][0]
    return builtins.float(_from_keys(numpy, numpy.array([k], dtype=ut), dtype)[0])


def _bound_keys(lo: Any, hi: Any, dtype: Any) -> tuple:
    """Keys so that the values ``lo < v < hi`` are the sorted keys above ``lo_key`` and below ``hi_key``
    (``None``: no bound): ``lo`` rounded down and ``hi`` up to the dtype (the comparison is in float64), a
    zero bound excluding both zeros."""
    dt = numpy.dtype(dtype).type
    lk = hk = None
    if lo is not None:
        f = dt(lo)
        if builtins.float(f) > lo:
            f = numpy.nextafter(f, dt(-numpy.inf))
        lk = _key_of(dt(0.0) if f == 0 else f, dtype)
    if hi is not None:
        f = dt(hi)
        if builtins.float(f) < hi:
            f = numpy.nextafter(f, dt(numpy.inf))
        hk = _key_of(dt(-0.0) if f == 0 else f, dtype)
    return lk, hk


# Tasks pinned (loosely: where the worker is lost, Dask runs them elsewhere) to the worker that holds their data.
_LOOSE = {"allow_other_workers": True, "pure": False}


class _Part:
    """One worker's share of an array for the exact statistics: the sorted order keys of the values of its
    chunks that are not NaN (on its device), and, once asked for, float64 prefix sums (from 0) of the values
    less the part's center (its middle value) and of their squares, so that any range of the sorted values
    has its count and moments from two binary searches."""

    def __init__(self, blocks: list, dtype: Any) -> None:
        v = cuprum.concatenate([b.ravel() for b in blocks]) if len(blocks) > 1 else blocks[0].ravel()
        self.sk = cuprum.sort(_to_keys(cuprum, v[~cuprum.isnan(v)]))
        self.dtype = numpy.dtype(dtype)
        n = self.sk.size
        self.center = _key_value(builtins.int(cuprum.asnumpy(self.sk[n // 2])), self.dtype) if n else 0.0
        self._sums: tuple = ()

    @property
    def nbytes(self) -> int:
        return builtins.int(self.sk.nbytes) + builtins.sum(builtins.int(s.nbytes) for s in self._sums)

    @property
    def sums(self) -> tuple:
        if not self._sums:
            v = _from_keys(cuprum, self.sk, self.dtype).astype(numpy.float64) - self.center
            z = cuprum.zeros(1, numpy.float64, device=self.sk.device)
            self._sums = (cuprum.concatenate([z, cuprum.cumsum(v)]), cuprum.concatenate([z, cuprum.cumsum(v * v)]))
        return self._sums

    def range(self, lk: Any, hk: Any) -> tuple:
        """The positions ``a <= i < b`` of the sorted keys strictly between ``lk`` and ``hk``."""
        if lk is None and hk is None:
            return 0, self.sk.size
        ut, sk = self.sk.dtype.type, self.sk
        q = cuprum.asarray(numpy.array([0 if lk is None else lk, 0 if hk is None else hk], ut), device=sk.device)
        # Both ends in one copy to the host.
        ends = cuprum.concatenate([cuprum.searchsorted(sk, q[:1], side="right"), cuprum.searchsorted(sk, q[1:])])
        a, b = (builtins.int(e) for e in cuprum.asnumpy(ends))
        a = 0 if lk is None else a
        b = sk.size if hk is None else b
        return a, builtins.max(a, b)

    def step(self, lk: Any, hk: Any, ts: numpy.ndarray, moments: bool) -> tuple:
        """For the keys strictly between ``lk`` and ``hk``: how many are ``<=`` each candidate key of ``ts``,
        and (``moments``) their count and sums of ``v - center`` and its square, and the center."""
        a, b = self.range(lk, hk)
        counts = numpy.zeros(ts.size, numpy.int64)
        if ts.size and b > a:
            pos = cuprum.asnumpy(cuprum.searchsorted(self.sk, cuprum.asarray(ts, device=self.sk.device), side="right"))
            counts = numpy.clip(pos.astype(numpy.int64), a, b) - a
        m = numpy.array([b - a, 0.0, 0.0, self.center])
        if moments and b > a:
            p1, p2 = self.sums
            m[1:3] = cuprum.asnumpy(cuprum.stack([p1[b] - p1[a], p2[b] - p2[a]]))
        return counts, m

    def sample(self, m: int) -> tuple:
        """The part's size and center, ``m`` keys at evenly spaced positions (their positions), and the
        sums over all of it (about the center)."""
        n = self.sk.size
        if n == 0:
            return 0, self.center, numpy.zeros(0, numpy.int64), numpy.zeros(0, self.sk.dtype), numpy.zeros(2)
        pos = numpy.unique(numpy.linspace(0, n - 1, builtins.min(m, n)).astype(numpy.int64))
        keys = cuprum.asnumpy(self.sk[cuprum.asarray(pos, device=self.sk.device)])
        p1, p2 = self.sums
        return n, self.center, pos, keys, cuprum.asnumpy(cuprum.stack([p1[n], p2[n]]))

    def windows(self, spans: list) -> list:
        """The sorted keys at positions ``[a, b)`` of each span, with the prefix sums at ``a``."""
        if not spans:
            return []
        p1, p2 = self.sums
        starts = cuprum.asarray(numpy.array([a for a, _ in spans], numpy.int64), device=self.sk.device)
        at = cuprum.asnumpy(cuprum.stack([p1[starts], p2[starts]]))
        return [(a, cuprum.asnumpy(self.sk[a:b]), at[0, i], at[1, i]) for i, (a, b) in enumerate(spans)]


def _part_call(part: _Part, method: str, *args: Any) -> Any:
    return getattr(part, method)(*args)


class _Window:
    """A run of one part's sorted keys held here: positions ``[a, a + len(keys))``, their values, and the
    part's prefix sums (about its center) at each position of the run and the one after it."""

    def __init__(self, a: int, keys: numpy.ndarray, p1: float, p2: float, dtype: Any, center: float) -> None:
        self.a, self.keys = a, keys
        v = _from_keys(numpy, keys, dtype).astype(numpy.float64) - center
        self.p1 = p1 + numpy.concatenate([[0.0], numpy.cumsum(v)])
        self.p2 = p2 + numpy.concatenate([[0.0], numpy.cumsum(v * v)])


class _Shares:
    """A Dask array's chunks as one :class:`_Part` a worker, made where the chunks are (with ``distributed``:
    grouped by the worker that holds them; with another scheduler: one part in this process), and the
    searches over them.

    Two ways to an answer: a step (one task a worker of binary searches: the counts of candidate keys and a
    range's moments, summed here), and windows (runs of each part's sorted keys copied here, which answer
    counts, moments and order statistics without a step wherever their keys reach). A computation of a few
    tasks, not one a chunk: Dask's cost a computation (a round trip of about 10 ms) is what a step costs."""

    def __init__(self, x: Any) -> None:
        self.dtype = numpy.dtype(x.dtype)
        if self.dtype.kind != "f" or self.dtype.itemsize not in _KEY:
            raise TypeError(f"exact statistics take float32 or float64 values, not {self.dtype}")
        self.ut = _KEY[self.dtype.itemsize][0]
        self.client = _current_client()
        self.windows: list = []
        self.info: list = []
        self.center = 0.0
        if self.client is None:
            self.parts = [(None, _Part(list(dask.compute(*x.to_delayed().ravel())), self.dtype))]
            return
        c = self.client
        groups = _by_worker(c, [c.persist(x)]) or {}
        # Each part where its chunks are.
        self.parts = [
            (w, c.submit(_Part, [fs[0] for _, fs in g], self.dtype, workers=[w], **_LOOSE)) for w, g in groups.items()
        ]

    def call(self, method: str, args: list) -> list:
        """``part.method(*args[i])`` on each part ``i`` (one task a worker), the answers in the parts' order."""
        if self.client is None:
            return [getattr(p, method)(*a) for (_, p), a in zip(self.parts, args, strict=True)]
        c, pairs = self.client, zip(self.parts, args, strict=True)
        return c.gather([c.submit(_part_call, p, method, *a, workers=[w], **_LOOSE) for (w, p), a in pairs])

    # ------------------------------------------------------------------ steps

    def step(self, lk: Any, hk: Any, levels: list, moments: bool = False) -> tuple:
        """For the keys strictly between ``lk`` and ``hk``, summed over the parts: the counts of the
        candidates of each level of the radix search in ``levels`` (a dict level -> counts), and the count
        and sums about :attr:`center` (with ``moments``)."""
        ts = numpy.concatenate([self._candidates(*lv) for lv in levels]) if levels else numpy.zeros(0, self.ut)
        res = self.call("step", [(lk, hk, ts, moments)] * len(self.parts))
        counts = numpy.sum([r[0] for r in res], axis=0)
        per = (1 << _DIGIT) - 1
        known = {lv: counts[i * per : (i + 1) * per] for i, lv in enumerate(levels)}
        return known, self._about_center([r[1] for r in res])

    def _about_center(self, ms: list) -> numpy.ndarray:
        """Each part's (count, sums about its center, center) as the count and sums about :attr:`center`."""
        out = numpy.zeros(3)
        for n, s1, s2, c in ms:
            d = c - self.center
            out += [n, s1 + n * d, s2 + 2 * d * s1 + n * d * d]
        return out

    def _candidates(self, prefix: int, shift: int) -> numpy.ndarray:
        """A level of the radix search (the keys' bits above ``shift + _DIGIT`` are ``prefix``'s): its
        candidates, the prefix with each digit at ``shift`` and all lower bits set."""
        j = numpy.arange((1 << _DIGIT) - 1, dtype=numpy.uint64)
        return (numpy.uint64(prefix) | (j << numpy.uint64(shift)) | numpy.uint64((1 << shift) - 1)).astype(self.ut)

    def levels(self, values: list) -> list:
        """The levels of the radix search that end at each of ``values``: the first (the same for all), then
        one a pass below each value's leading digits."""
        nbits = 8 * self.dtype.itemsize
        out = [(0, nbits - _DIGIT)]
        for v in values:
            k = _key_of(v, self.dtype)
            for shift in builtins.range(nbits - 2 * _DIGIT, -1, -_DIGIT):
                lv = ((k >> (shift + _DIGIT)) << (shift + _DIGIT), shift)
                if lv not in out:
                    out.append(lv)
        return out

    def radix_select(self, ranks: list, lk: Any, hk: Any, known: dict) -> list:
        """The values at ``ranks`` of the sorted keys strictly between ``lk`` and ``hk``: a radix search,
        ``_DIGIT`` bits a pass, all ranks together. ``known``: counts of levels (:meth:`step`) for the same
        range; a pass whose levels are not among them takes one step."""
        known = dict(known)
        prefixes = [0] * len(ranks)
        for shift in builtins.range(8 * self.dtype.itemsize - _DIGIT, -1, -_DIGIT):
            missing = builtins.sorted({(p, shift) for p in prefixes} - set(known))
            if missing:
                known.update(self.step(lk, hk, missing)[0])
            for i, r in enumerate(ranks):
                # The first candidate with count(<= t_j) > r.
                digit = builtins.int(numpy.searchsorted(known[(prefixes[i], shift)], r, side="right"))
                prefixes[i] |= digit << shift
        return [_key_value(p, self.dtype) for p in prefixes]

    # ------------------------------------------------------------------ windows

    def fetch(self, spans: list, among: tuple | None = None) -> None:
        """Copies runs of the parts' sorted keys here: ``spans[i]``, part ``i``'s position ranges. The order
        statistics' candidates are the keys in ``among`` (a key range; all without it)."""
        got = self.call("windows", [(s,) for s in spans])
        self.windows = [
            [_Window(a, k, p1, p2, self.dtype, self.info[i][1]) for a, k, p1, p2 in g] for i, g in enumerate(got)
        ]
        # The candidates of the order statistics (every key the windows hold), and each part's count of keys
        # below and up to each, where its windows tell them: the same for every round.
        keys = [w.keys for ws in self.windows for w in ws if w.keys.size]
        # Sorted runs merged (a stable sort of runs is a merge), then the repeats dropped.
        if among is not None:
            keys = [k[(k >= among[0]) & (k <= among[1])] for k in keys]
        cand = numpy.sort(numpy.concatenate(keys), kind="stable") if keys else numpy.zeros(0, self.ut)
        self.cand = cand[numpy.concatenate([[True], cand[1:] != cand[:-1]])] if cand.size else cand
        self.cand_ok = numpy.ones(self.cand.size, bool)
        self.cand_pos = []
        for i in builtins.range(len(self.windows)):
            lo_pos, lo_ok = self._tell(i, self.cand, False)
            hi_pos, hi_ok = self._tell(i, self.cand, True)
            self.cand_ok &= lo_ok & hi_ok
            self.cand_pos.append((lo_pos, hi_pos))

    def _tell(self, i: int, q: numpy.ndarray, right: bool) -> tuple:
        """How many keys of part ``i`` are ``<=`` (``right``) or ``<`` each key of ``q``, and where the windows
        tell it (a mask: a key inside a window's run, or beyond the part's first or last key)."""
        n = self.info[i][0]
        pos = numpy.zeros(q.size, numpy.int64)
        if n == 0:
            return pos, numpy.ones(q.size, bool)
        ok = numpy.zeros(q.size, bool)
        side = "right" if right else "left"
        for win in self.windows[i]:
            ks = win.keys
            if ks.size == 0:
                continue
            if right:
                inside, start, end = (q >= ks[0]) & (q < ks[-1]), q < ks[0], q >= ks[-1]
            else:
                inside, start, end = (q > ks[0]) & (q <= ks[-1]), q <= ks[0], q > ks[-1]
            m = (inside | (start & (win.a == 0)) | (end & (win.a + ks.size == n))) & ~ok
            pos[m] = win.a + numpy.searchsorted(ks, q[m], side=side)
            ok |= m
        return pos, ok

    def _sums_at(self, i: int, pos: int) -> Any:
        n = self.info[i][0]
        if pos == 0:
            return 0.0, 0.0
        if pos == n:
            return tuple(self.info[i][4])
        for win in self.windows[i]:
            if win.a <= pos <= win.a + win.keys.size:
                return win.p1[pos - win.a], win.p2[pos - win.a]
        return None

    def _ranges(self, lk: Any, hk: Any) -> list | None:
        """Each part's positions ``a <= i < b`` of the keys strictly between the bounds, from the windows
        (``None`` where they do not reach)."""
        out = []
        for i, (n, *_rest) in enumerate(self.info):
            a, b = 0, n
            if lk is not None:
                pos, ok = self._tell(i, numpy.array([lk], self.ut), True)
                if not ok[0]:
                    return None
                a = builtins.int(pos[0])
            if hk is not None:
                pos, ok = self._tell(i, numpy.array([hk], self.ut), False)
                if not ok[0]:
                    return None
                b = builtins.int(pos[0])
            out.append((a, builtins.max(a, b)))
        return out

    def range_moments(self, lk: Any, hk: Any) -> numpy.ndarray:
        """The count and sums about :attr:`center` of the values strictly between the bounds: from the
        windows where they reach, else one step."""
        r = self._ranges(lk, hk) if self.windows else None
        if r is not None:
            ms = []
            for i, (a, b) in enumerate(r):
                sa, sb = self._sums_at(i, a), self._sums_at(i, b)
                if sa is None or sb is None:
                    break
                ms.append((b - a, sb[0] - sa[0], sb[1] - sa[1], self.info[i][1]))
            else:
                return self._about_center(ms)
        return self.step(lk, hk, [], True)[1]

    def select(self, ranks: list, lk: Any, hk: Any) -> list:
        """The values at ``ranks`` of the sorted keys strictly between the bounds: from the windows where
        they hold the answers, else the radix search."""
        got = self._window_select(ranks, lk, hk)
        if got is not None:
            return got
        return self.radix_select(ranks, lk, hk, self.step(lk, hk, self.levels([]))[0])

    def _window_select(self, ranks: list, lk: Any, hk: Any) -> list | None:
        r = self._ranges(lk, hk) if self.windows else None
        if r is None or self.cand.size == 0:
            return None
        # The candidates strictly between the bounds.
        i0 = 0 if lk is None else builtins.int(numpy.searchsorted(self.cand, self.ut(lk), side="right"))
        i1 = self.cand.size if hk is None else builtins.int(numpy.searchsorted(self.cand, self.ut(hk), side="left"))
        cand, ok = self.cand[i0:i1], self.cand_ok[i0:i1]
        # The kept keys below and up to each candidate, where every part's windows tell them: the rank-r
        # key is the candidate t with below(t) <= r < upto(t).
        below = numpy.zeros(cand.size, numpy.int64)
        upto = numpy.zeros(cand.size, numpy.int64)
        for (a, b), (lo_pos, hi_pos) in zip(r, self.cand_pos, strict=True):
            below += numpy.clip(lo_pos[i0:i1], a, b) - a
            upto += numpy.clip(hi_pos[i0:i1], a, b) - a
        out = []
        for rank in ranks:
            j = numpy.nonzero(ok & (below <= rank) & (rank < upto))[0]
            if j.size == 0:
                return None
            out.append(_key_value(builtins.int(cand[j[0]]), self.dtype))
        return out

    def prepare(self, m: int | None = None) -> None:
        """Each part's size, center, a sample of ``m`` of its keys and its total sums (one step); the center
        of the sums is the largest part's."""
        self.info = self.call("sample", [(m or _SAMPLE,)] * len(self.parts))
        self.center = builtins.max(self.info, key=lambda t: t[0])[1] if self.info else 0.0

    def fetch_about(self, regions: list, candidates: int | None = None, limit: int = 1 << 23) -> None:
        """Copies here (one step) each part's keys whose values lie in the ``regions`` (value ranges), with at
        least one sample's spacing of keys more on each side; nothing where that would pass ``limit`` keys a
        part (the steps answer then). The order statistics look among the keys of region ``candidates``
        (all the keys without it: finding them costs the client a binary search a window a candidate)."""
        spans = []
        among = [numpy.iinfo(self.ut).max, 0]
        for n, _c, pos, keys, _t in self.info:
            mine = []
            for r, (lo, hi) in enumerate(regions):
                i0 = builtins.int(numpy.searchsorted(keys, self.ut(_key_of(lo, self.dtype)), side="left")) - 2
                i1 = builtins.int(numpy.searchsorted(keys, self.ut(_key_of(hi, self.dtype)), side="right")) + 1
                a = builtins.int(pos[i0]) if i0 >= 0 else 0
                b = builtins.int(pos[i1]) + 1 if i1 < pos.size else n
                mine.append((a, b))
                if r == candidates and n:
                    top = builtins.int(keys[i1]) if i1 < pos.size else builtins.int(numpy.iinfo(self.ut).max)
                    among[0] = builtins.min(among[0], builtins.int(keys[i0]) if i0 >= 0 else 0)
                    among[1] = builtins.max(among[1], top)
            merged: list = []
            for a, b in builtins.sorted(mine):
                if merged and a <= merged[-1][1]:
                    merged[-1] = (merged[-1][0], builtins.max(merged[-1][1], b))
                else:
                    merged.append((a, b))
            if builtins.sum(b - a for a, b in merged) > limit:
                return
            spans.append(merged)
        self.fetch(spans, None if candidates is None else tuple(among))

    def sample_path(self, kappa: float) -> tuple:
        """The clipper run on the parts' samples (each sample key standing for its share of the part): the
        medians and bounds it passes through, and its last std, to choose the windows of the exact run."""
        vs, ws = [], []
        for n, _c, _pos, keys, _t in self.info:
            if n:
                vs.append(_from_keys(numpy, keys, self.dtype).astype(numpy.float64))
                ws.append(numpy.full(keys.size, n / keys.size))
        v, w = numpy.concatenate(vs), numpy.concatenate(ws)
        order = numpy.argsort(v, kind="stable")
        v, w = v[order], w[order]
        lo, hi = -numpy.inf, numpy.inf
        meds, los, his = [], [], []
        keep = numpy.ones(v.size, bool)
        std = 0.0
        for _ in builtins.range(1000):
            vk, wk = v[keep], w[keep]
            if vk.size == 0:
                break
            cw = numpy.cumsum(wk)
            med = vk[builtins.min(builtins.int(numpy.searchsorted(cw, cw[-1] / 2)), vk.size - 1)]
            mean = numpy.sum(wk * vk) / cw[-1]
            std = builtins.float(numpy.sqrt(numpy.sum(wk * (vk - mean) ** 2) / cw[-1]))
            lo, hi = builtins.max(lo, med - kappa * std), builtins.min(hi, med + kappa * std)
            meds.append(med)
            los.append(lo)
            his.append(hi)
            nxt = (v > lo) & (v < hi)
            if nxt.sum() == keep.sum():
                break
            keep = nxt
        return meds, los, his, std


def _current_client() -> Any:
    """The ``distributed`` client that Dask's computations go to now, or ``None`` (another scheduler)."""
    try:
        from distributed import default_client
    except ImportError:
        return None
    try:
        c = default_client()
    except ValueError:
        return None
    return c if dask.base.get_scheduler() == c.get else None


def order_statistics(x: Any, ranks: Any, lo: Any = None, hi: Any = None) -> list:
    """The exact order statistics ``ranks`` (0-based) of a Dask array's values that are not NaN and lie
    strictly inside ``(lo, hi)`` (``None``: unbounded), as floats: what ``numpy.sort`` of those values holds at
    the ranks. Each worker sorts the keys of its chunks once (in its memory); then a radix search over the
    keys, 16 bits a pass (one task a worker of binary searches, the counts summed here): 2 passes for
    float32, 4 for float64, for all the ranks together."""
    shares = _Shares(x)
    lk, hk = _bound_keys(lo, hi, shares.dtype)
    ranks = [operator.index(r) for r in (ranks if numpy.ndim(ranks) else [ranks])]
    known, m = shares.step(lk, hk, shares.levels([]))
    total = builtins.int(m[0])
    if builtins.any(r < 0 or r >= total for r in ranks):
        raise IndexError(f"ranks {ranks} outside the {total} values")
    return shares.radix_select(ranks, lk, hk, known)


def kappa_sigma(x: Any, kappa: float = 3.0, *, windows: bool = True) -> dict:
    """The lessons' kappa-sigma clipper over a whole Dask array (NaN pixels left out): keep the values
    strictly inside ``median ± kappa * std`` until none is dropped. Returns ``count``, ``median`` (exact: the
    order statistics of the kept values, averaged in the array's dtype as ``numpy.median``) and ``std``
    (ddof 0, float64) of the kept values, and their range ``lo``/``hi``.

    Each worker sorts its chunks' values once (with prefix sums of them) and keeps them in its memory; the
    kept set is a range of values, so its count and moments are two binary searches a part, and its median
    an order statistic. Dask's round trip (about 10 ms) would make each round cost a few, so the rounds run
    here: a sample of each part's keys (one step) gives the clipper's path roughly, and the runs of sorted
    keys about its bounds and medians are copied here (one step); every round then reads them, and only a
    round that strays outside them takes steps (``windows=False``: steps only). No chunk moves.
    """
    shares = _Shares(x)
    dt = shares.dtype.type
    shares.prepare()
    n_all = builtins.sum(t[0] for t in shares.info)
    if n_all == 0:
        raise ValueError(f"kappa-sigma clipping kept no pixel (kappa = {kappa})")
    if windows:
        meds, los, his, std = shares.sample_path(kappa)
        # The medians' region where the values are dense: its own width again (the sample's spacing is added
        # in positions); the bounds' where they are sparse: 2% of the std more.
        regions = []
        if meds:
            w = max(meds) - min(meds)
            regions.append((min(meds) - w / 2, max(meds) + w / 2))
        regions += [(min(v) - 0.02 * std, max(v) + 0.02 * std) for v in (los, his) if v]
        shares.fetch_about(regions, 0 if meds else None)
    m = shares.range_moments(None, None)
    lo, hi = None, None
    while True:
        n = builtins.int(m[0])
        if n == 0:
            raise ValueError(f"kappa-sigma clipping kept no pixel (kappa = {kappa})")
        a, b = shares.select([(n - 1) // 2, n // 2], *_bound_keys(lo, hi, shares.dtype))
        med = builtins.float(dt(dt(a) + dt(b)) / dt(2)) if n % 2 == 0 else a
        mean = m[1] / n
        std = builtins.float(numpy.sqrt(builtins.max(m[2] / n - mean * mean, 0.0)))
        nlo = med - kappa * std if lo is None else builtins.max(lo, med - kappa * std)
        nhi = med + kappa * std if hi is None else builtins.min(hi, med + kappa * std)
        m2 = shares.range_moments(*_bound_keys(nlo, nhi, shares.dtype))
        if builtins.int(m2[0]) == n:
            return {"count": n, "median": med, "std": std, "lo": lo, "hi": hi}
        lo, hi, m = nlo, nhi, m2


# ---------------------------------------------------------------- labelling across chunks


def _structure(connectivity: int) -> Any:
    if connectivity not in (1, 2):
        raise ValueError(f"connectivity must be 1 (4-connected) or 2 (8-connected), not {connectivity}")
    from cuprumx.scipy import ndimage

    return ndimage.generate_binary_structure(2, connectivity)


def _label_chunk(block: Any, connectivity: int) -> Any:
    from cuprumx.scipy import ndimage

    s = _structure(connectivity)
    return ndimage.label(block, cuprum.asarray(s, device=block.device))[0].astype(numpy.int32)


def _chunk_summary(lab: Any, r0: int, c0: int, width: int) -> tuple:
    """What the join of a chunk's local labels needs, as host arrays: the raster index (in the whole image)
    of each label's first pixel, and the labels of the chunk's four borders (top, bottom, left, right)."""
    from cuprumx.scipy import ndimage

    n = builtins.int(lab.max()) if lab.size else 0
    if n == 0:
        firsts = numpy.zeros(0, numpy.int64)
    else:
        rows = cuprum.arange(r0, r0 + lab.shape[0], dtype=numpy.int64, device=lab.device)[:, None]
        cols = cuprum.arange(c0, c0 + lab.shape[1], dtype=numpy.int64, device=lab.device)[None, :]
        index = cuprum.arange(1, n + 1, device=lab.device)
        firsts = cuprum.asnumpy(ndimage.minimum(rows * width + cols, lab, index)).astype(numpy.int64)
    if lab.size == 0:
        return firsts, *(numpy.zeros(k, numpy.int32) for k in (lab.shape[1], lab.shape[1], lab.shape[0], lab.shape[0]))
    borders = cuprum.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]])
    h = cuprum.asnumpy(borders)
    w = lab.shape[1]
    return firsts, h[:w], h[w : 2 * w], h[2 * w : 2 * w + lab.shape[0]], h[2 * w + lab.shape[0] :]


def _relabel_chunk(lab: Any, mapping: numpy.ndarray) -> Any:
    """The chunk's final labels: its local label k becomes ``mapping[k - 1]`` (0 stays the background)."""
    m = cuprum.asarray(numpy.concatenate([[0], mapping]).astype(numpy.int32), device=lab.device)
    return m[lab]


def _apply_each(func: Any, blocks: list, args: list) -> list:
    return [func(*b, *a) for b, a in zip(blocks, args, strict=True)]


def _by_worker(client: Any, arrays: list) -> dict | None:
    """The blocks of the 2-D ``arrays`` (of the same chunks, persisted on ``client``'s cluster) grouped by
    the worker that holds the first array's block: ``{worker: [(index, [future of each array's block])]}``;
    ``None`` where a block is not a persisted result."""
    from distributed import futures_of, wait

    futs = {f.key: f for a in arrays for f in futures_of(a)}
    idxs = [(i, j) for i in builtins.range(arrays[0].numblocks[0]) for j in builtins.range(arrays[0].numblocks[1])]
    keys = [[(a.name, *ix) for a in arrays] for ix in idxs]
    if not all(k in futs for ks in keys for k in ks):
        return None
    wait([futs[k] for ks in keys for k in ks])  # where a block lives is known once it is computed
    who = client.who_has([futs[ks[0]] for ks in keys])
    groups: dict = {}
    for ix, ks in zip(idxs, keys, strict=True):
        groups.setdefault(builtins.min(who[ks[0]]), []).append((ix, [futs[k] for k in ks]))
    return groups


def _each_block(func: Any, arrays: list, args: dict) -> dict:
    """``func(block of each array, *args[index])`` for each block index of the 2-D ``arrays`` (of the same
    chunks), the answers here as ``{index: answer}``. With ``distributed`` and persisted arrays, one task a
    worker over the blocks it holds (Dask's cost is a task's, about a millisecond: a task a block would
    cost more than the work); otherwise a task a block."""
    client = _current_client()
    groups = _by_worker(client, arrays) if client is not None else None
    if groups is not None:
        subs = []
        for w, g in groups.items():
            blocks, their = [b for _, b in g], [args[ix] for ix, _ in g]
            subs.append(client.submit(_apply_each, func, blocks, their, workers=[w], **_LOOSE))
        out = {}
        for g, res in zip(groups.values(), client.gather(subs), strict=True):
            out.update(zip((ix for ix, _ in g), res, strict=True))
        return out
    blocks = [a.to_delayed() for a in arrays]
    got = dask.compute(*[dask.delayed(func)(*(b[ix] for b in blocks), *args[ix]) for ix in args])
    return dict(zip(args, got, strict=True))


def _join(summaries: dict, shape: tuple, connectivity: int) -> tuple:
    """SciPy's numbering of a mosaic's objects from its blocks' local labels: ``summaries[(i, j)]`` is
    :func:`_chunk_summary`'s of block ``(i, j)`` of a grid of ``shape`` blocks. Objects that cross block
    edges are joined by a union-find over the label pairs that meet across the edges, and numbered in the
    raster order of their first pixel. Returns each block's mapping (its local label k is object
    ``mapping[k - 1]``) and the number of objects."""
    nr, nc = shape
    summ = [[summaries[(i, j)] for j in builtins.range(nc)] for i in builtins.range(nr)]
    counts = numpy.array([[summ[i][j][0].size for j in builtins.range(nc)] for i in builtins.range(nr)], numpy.int64)
    offsets = numpy.concatenate([[0], numpy.cumsum(counts.ravel())[:-1]]).reshape(nr, nc)
    total = builtins.int(counts.sum())
    firsts = [summ[i][j][0] for i in builtins.range(nr) for j in builtins.range(nc)]
    first = numpy.concatenate([[-1], *firsts]) if total else numpy.array([-1], numpy.int64)

    def ids(i: int, j: int, k: int) -> numpy.ndarray:
        """Border k of block (i, j) in the whole image's temporary ids (a block's labels shifted past the
        earlier blocks')."""
        b = summ[i][j][k].astype(numpy.int64)
        return numpy.where(b > 0, b + offsets[i, j], 0)

    # The ids that meet across each edge between blocks, along the whole width or height (so that the
    # diagonal neighbours at block corners meet too).
    lines = []
    for i in builtins.range(nr - 1):
        lines.append(
            (
                numpy.concatenate([ids(i, j, 2) for j in builtins.range(nc)]),
                numpy.concatenate([ids(i + 1, j, 1) for j in builtins.range(nc)]),
            )
        )
    for j in builtins.range(nc - 1):
        lines.append(
            (
                numpy.concatenate([ids(i, j, 4) for i in builtins.range(nr)]),
                numpy.concatenate([ids(i, j + 1, 3) for i in builtins.range(nr)]),
            )
        )
    parent = numpy.arange(total + 1)

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    shifts = [0] if connectivity == 1 else [-1, 0, 1]  # the neighbours across an edge
    for a, b in lines:
        for s in shifts:
            u = a[builtins.max(0, -s) : a.size - builtins.max(0, s)]
            v = b[builtins.max(0, s) : b.size - builtins.max(0, -s)]
            both = (u > 0) & (v > 0)
            for p, q in zip(u[both].tolist(), v[both].tolist(), strict=True):
                rp, rq = find(p), find(q)
                if rp != rq:
                    parent[builtins.max(rp, rq)] = builtins.min(rp, rq)
    roots = numpy.array([find(i) for i in builtins.range(total + 1)], numpy.int64)
    # Each object's first pixel: the least of its pieces'; objects numbered in that order.
    obj_first = numpy.full(total + 1, numpy.iinfo(numpy.int64).max)
    numpy.minimum.at(obj_first, roots[1:], first[1:])
    uniq = numpy.unique(roots[1:]) if total else numpy.zeros(0, numpy.int64)
    order = uniq[numpy.argsort(obj_first[uniq], kind="stable")]
    number = numpy.zeros(total + 1, numpy.int64)
    number[order] = numpy.arange(1, order.size + 1)
    mapping = number[roots]
    parts = {
        (i, j): mapping[offsets[i, j] + 1 : offsets[i, j] + counts[i, j] + 1]
        for i in builtins.range(nr)
        for j in builtins.range(nc)
    }
    return parts, builtins.int(order.size)


def label(mask: Any, connectivity: int = 1) -> tuple:
    """``scipy.ndimage.label`` of a whole 2-D Dask array (nonzero: a feature) with SciPy's labels: objects
    numbered 1, 2, ... in the raster order of their first pixel, as SciPy numbers them. Each chunk is
    labelled on its own, in the worker that holds it, and sends back only its labels' first pixels and its
    four borders (one computation, small host arrays); objects that cross chunk edges are joined by a
    union-find over the label pairs that meet across the edges; one relabelling pass gives the final
    labels. ``connectivity``: 1 (SciPy's default structure) or 2 (the full 3x3). Returns the labels (int32
    cuprum chunks, persisted) and the number of objects."""
    if mask.ndim != 2:
        raise ValueError(f"cuprum.dask.label takes a 2-D mosaic, not {mask.ndim}-d")
    _structure(connectivity)
    meta = cuprum.empty((0, 0), numpy.int32)
    local = mask.map_blocks(_label_chunk, connectivity, dtype=numpy.int32, meta=meta).persist()
    where = {ix: (*o, mask.shape[1]) for ix, o in _origins(mask).items()}
    parts, n = _join(_each_block(_chunk_summary, [local], where), local.numblocks, connectivity)
    # Each block's part of the mapping travels with its relabelling task only (one task a block).
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    name = "cuprum-relabel-" + tokenize(local.name, *parts.values())
    dsk = {(name, *ix): (_relabel_chunk, (local.name, *ix), part) for ix, part in parts.items()}
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[local])
    labels = da.Array(graph, name, chunks=local.chunks, dtype=numpy.int32, meta=meta)
    return labels.persist(), n


def _measure_chunk(img: Any, lab: Any, r0: int, c0: int, n: int) -> numpy.ndarray:
    """Per label 1..n: the sums of w, w*y, w*x (float64), the pixel count and the peak of this chunk."""
    from cuprumx.scipy import ndimage

    out = numpy.zeros((5, n))
    out[4] = -numpy.inf
    if lab.size == 0 or n == 0:
        return out
    present = cuprum.asnumpy(cuprum.unique(lab))
    present = present[present > 0]
    if present.size == 0:
        return out
    idx = cuprum.asarray(present, device=lab.device)
    w = img.astype(numpy.float64)
    ys = cuprum.arange(r0, r0 + lab.shape[0], dtype=numpy.float64, device=lab.device)[:, None]
    xs = cuprum.arange(c0, c0 + lab.shape[1], dtype=numpy.float64, device=lab.device)[None, :]
    k = present - 1
    out[0, k] = cuprum.asnumpy(ndimage.sum_labels(w, lab, idx))
    out[1, k] = cuprum.asnumpy(ndimage.sum_labels(w * ys, lab, idx))
    out[2, k] = cuprum.asnumpy(ndimage.sum_labels(w * xs, lab, idx))
    out[3, k] = cuprum.asnumpy(ndimage.sum_labels(cuprum.ones_like(w), lab, idx))
    out[4, k] = cuprum.asnumpy(ndimage.maximum(w, lab, idx))
    return out


def measure(image: Any, labels: Any, n: int) -> dict:
    """The lessons' measurements of every object of a labelled mosaic (labels 1..n, as :func:`label`
    gives): ``y``/``x`` (``scipy.ndimage.center_of_mass``), ``flux`` (``sum_labels``), ``npix`` and
    ``peak`` (``maximum``), as NumPy arrays in label order. Each chunk gives its sums per label; the host
    adds them (float64), so an object split across chunks is measured once, whole."""
    if image.shape != labels.shape or image.chunks != labels.chunks:
        raise ValueError("image and labels must have the same shape and chunks")
    where = {ix: (*o, n) for ix, o in _origins(image).items()}
    return _measurements(list(_each_block(_measure_chunk, [image, labels], where).values()), n)


def _origins(x: Any) -> dict:
    """Each block index of the 2-D Dask array ``x``: the (row, column) of its first element in ``x``."""
    r_edges = numpy.cumsum((0,) + x.chunks[0])
    c_edges = numpy.cumsum((0,) + x.chunks[1])
    nr, nc = x.numblocks
    return {(i, j): (builtins.int(r_edges[i]), builtins.int(c_edges[j])) for i in range(nr) for j in range(nc)}


def _combined(parts: list, n: int) -> numpy.ndarray:
    """Blocks' sums per label (:func:`_measure_chunk`'s rows: 4 sums, then the peak) as one such array."""
    out = numpy.zeros((5, n))
    out[4] = -numpy.inf
    if parts:
        out[:4] = numpy.sum([p[:4] for p in parts], axis=0)
        out[4] = numpy.max([p[4] for p in parts], axis=0)
    return out


def _measurements(parts: list, n: int) -> dict:
    """The blocks' sums per label (:func:`_measure_chunk`'s) as the catalogue's columns."""
    s = _combined(parts, n)
    return {"y": s[1] / s[0], "x": s[2] / s[0], "flux": s[0], "npix": s[3].astype(numpy.int64), "peak": s[4]}


class _Labelled:
    """One worker's blocks of a mosaic, each labelled on its own (``block > threshold``), the labels kept
    in the worker: a catalogue needs their sums, not the labelled image."""

    def __init__(self, blocks: list, where: list, threshold: float, connectivity: int) -> None:
        self.items = []
        for b, (ix, r0, c0) in zip(blocks, where, strict=True):
            self.items.append((ix, b, _label_chunk(b > threshold, connectivity), r0, c0))

    @property
    def nbytes(self) -> int:
        return builtins.sum(builtins.int(lab.nbytes) for _, _, lab, _, _ in self.items)

    def summaries(self, width: int) -> dict:
        return {ix: _chunk_summary(lab, r0, c0, width) for ix, _, lab, r0, c0 in self.items}

    def measure(self, mapping: dict, n: int) -> numpy.ndarray:
        """The sums per object of all the worker's blocks (their local labels renumbered by ``mapping``)."""
        parts = [_measure_chunk(b, _relabel_chunk(lab, mapping[ix]), r0, c0, n) for ix, b, lab, r0, c0 in self.items]
        return _combined(parts, n)


def catalogue(image: Any, threshold: float, connectivity: int = 1) -> tuple:
    """:func:`label` of ``image > threshold`` and :func:`measure` of ``image`` with those labels, without
    the labelled image: the number of objects and the catalogue (``y``, ``x``, ``flux``, ``npix``, ``peak``
    in SciPy's label order), and each half's seconds. With ``distributed``, each worker labels the blocks it
    holds in one task and keeps the labels; two more tasks a worker send the borders and the sums."""
    import time

    if image.ndim != 2:
        raise ValueError(f"cuprum.dask.catalogue takes a 2-D mosaic, not {image.ndim}-d")
    _structure(connectivity)
    t = time.perf_counter()
    width, origin = image.shape[1], _origins(image)
    client = _current_client()
    groups = None
    if client is not None:
        # The blocks computed and kept where they are computed (not brought here).
        groups = _by_worker(client, [client.persist(image)])
    if groups is None:
        blocks = dask.compute(*image.to_delayed().ravel())
        here = _Labelled(list(blocks), [(ix, *origin[ix]) for ix in origin], threshold, connectivity)
        parts, n = _join(here.summaries(width), image.numblocks, connectivity)
        t_label, t = time.perf_counter() - t, time.perf_counter()
        sums = [here.measure(parts, n)]
    else:
        lab, asks = {}, []
        for w, g in groups.items():
            mine = [(ix, *origin[ix]) for ix, _ in g]
            lab[w] = client.submit(
                _Labelled, [fs[0] for _, fs in g], mine, threshold, connectivity, workers=[w], **_LOOSE
            )
            asks.append(client.submit(_part_call, lab[w], "summaries", width, workers=[w], **_LOOSE))
        summaries = {ix: s for got in client.gather(asks) for ix, s in got.items()}
        parts, n = _join(summaries, image.numblocks, connectivity)
        t_label, t = time.perf_counter() - t, time.perf_counter()
        subs = []
        for w, f in lab.items():
            mine = {ix: parts[ix] for ix, _ in groups[w]}
            subs.append(client.submit(_part_call, f, "measure", mine, n, workers=[w], **_LOOSE))
        sums = client.gather(subs)
    out = _measurements(sums, n)
    return n, out, {"label": t_label, "measure": time.perf_counter() - t}


# ---------------------------------------------------------------- filters over chunks (map_overlap)


def _per_axis(v: Any, ndim: int) -> list:
    if numpy.ndim(v) == 0:
        return [v] * ndim
    v = list(v)
    if len(v) != ndim:
        raise RuntimeError("sequence argument must have length equal to input rank")
    return v


def _axes(axes: Any, ndim: int) -> list:
    if axes is None:
        return list(builtins.range(ndim))
    axes = [axes] if numpy.ndim(axes) == 0 else list(axes)
    return [a + ndim if a < 0 else a for a in axes]


def _overlap(x: Any, func: Any, depth: dict, edge_mode: str, **kwargs: Any) -> Any:
    """``func`` over each chunk extended by ``depth`` elements of its neighbours, trimmed back. At the array's
    own edges the chunk is not extended, so ``func``'s mode applies there as on the whole array, but for
    the modes that read the other side of the array (wrap), which Dask's periodic boundary supplies."""
    periodic = edge_mode in ("wrap", "grid-wrap")
    depth = {a: d for a, d in depth.items() if d > 0}
    if not depth:
        return x.map_blocks(func, dtype=x.dtype, meta=x._meta, **kwargs)
    boundary = {a: ("periodic" if periodic else "none") for a in depth}
    return x.map_overlap(func, depth=depth, boundary=boundary, dtype=x.dtype, meta=x._meta, **kwargs)


def gaussian_filter(
    x: Any,
    sigma: Any,
    order: Any = 0,
    mode: str = "reflect",
    cval: float = 0.0,
    truncate: float = 4.0,
    *,
    radius: Any = None,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.gaussian_filter`` of a Dask array of cuprum chunks, equal to the filter of the whole
    array: each chunk with ``radius`` (``int(truncate * sigma + 0.5)``) neighbouring elements per side."""
    from cuprumx.scipy import ndimage

    ax = _axes(axes, x.ndim)
    sig = _per_axis(sigma, len(ax))
    rad = _per_axis(radius, len(ax)) if radius is not None else [None] * len(ax)
    depth = {
        a: (r if r is not None else builtins.int(truncate * builtins.float(s) + 0.5))
        for a, s, r in zip(ax, sig, rad, strict=True)
    }
    f = ndimage.gaussian_filter
    kw = {
        "sigma": sigma,
        "order": order,
        "mode": mode,
        "cval": cval,
        "truncate": truncate,
        "radius": radius,
        "axes": axes,
    }
    return _overlap(x, f, depth, mode, **kw)


def median_filter(
    x: Any,
    size: Any = None,
    footprint: Any = None,
    mode: str = "reflect",
    cval: float = 0.0,
    origin: Any = 0,
    *,
    axes: Any = None,
) -> Any:
    """``scipy.ndimage.median_filter`` of a Dask array of cuprum chunks, equal to the filter of the whole
    array (with SciPy's NaN answers): each chunk with the window's reach (``size // 2`` plus the origin's
    shift) of neighbouring elements per side. A ``footprint`` is a NumPy or cuprum array."""
    from cuprumx.scipy import ndimage

    ax = _axes(axes, x.ndim)
    shape = _per_axis(size, len(ax)) if footprint is None else list(numpy.shape(footprint))
    orig = _per_axis(origin, len(ax))
    if len(shape) != len(ax):
        raise RuntimeError(f"footprint.ndim ({len(shape)}) must match len(axes) ({len(ax)})")
    depth = {a: builtins.int(f) // 2 + builtins.abs(builtins.int(o)) for a, f, o in zip(ax, shape, orig, strict=True)}
    fp = footprint
    if fp is not None and not isinstance(fp, cuprum.ndarray):
        fp = numpy.asarray(fp, dtype=bool)

    def run(block: Any) -> Any:
        f = fp if fp is None or isinstance(fp, cuprum.ndarray) else cuprum.asarray(fp, device=block.device)
        return ndimage.median_filter(block, size=size, footprint=f, mode=mode, cval=cval, origin=origin, axes=axes)

    return _overlap(x, run, depth, mode)


def convolve2d(in1: Any, in2: Any, mode: str = "same", boundary: str = "fill", fillvalue: Any = 0) -> Any:
    """``scipy.signal.convolve2d(in1, in2, "same", boundary, fillvalue)`` of a Dask array of cuprum chunks
    (``in1``) with a small kernel (``in2``: NumPy or cuprum), equal to the convolution of the whole image:
    each chunk with ``k // 2`` neighbouring elements per side (``k`` the kernel's length on that axis).
    Only ``mode="same"`` keeps the chunks' shapes; for ``full`` or ``valid`` pad or slice the result."""
    from cuprumx.scipy import signal

    if mode != "same":
        raise ValueError(
            f"cuprum.dask.convolve2d computes mode='same' only (got {mode!r}): its output has the chunks' shape"
        )
    if in1.ndim != 2 or numpy.ndim(in2) != 2:
        raise ValueError("convolve2d inputs must both be 2-D arrays")
    k = numpy.shape(in2)
    if boundary not in ("fill", "wrap", "symm", "circular", "symmetric"):
        raise ValueError("Acceptable boundary flags are 'fill', 'circular' (or 'wrap'), and 'symmetric' (or 'symm').")
    kernel = in2 if isinstance(in2, cuprum.ndarray) else numpy.asarray(in2)

    def run(block: Any) -> Any:
        kb = kernel if isinstance(kernel, cuprum.ndarray) else cuprum.asarray(kernel, device=block.device)
        return signal.convolve2d(block, kb, mode="same", boundary=boundary, fillvalue=fillvalue)

    wrap = boundary in ("wrap", "circular")
    return _overlap(in1, run, {0: k[0] // 2, 1: k[1] // 2}, "wrap" if wrap else "constant")


try:
    from distributed.diagnostics.plugin import SchedulerPlugin as _SchedulerPlugin
    from distributed.diagnostics.plugin import WorkerPlugin as _WorkerPlugin
except ImportError:  # pragma: no cover - distributed is optional
    _SchedulerPlugin = _WorkerPlugin = object  # type: ignore[assignment,misc]


class _ShortBatchesScheduler(_SchedulerPlugin):  # type: ignore[misc]
    """The scheduler's message batching to each worker, present and joining, shortened to ``interval``."""

    name = "cuprum-short-batches"

    def __init__(self, interval: float) -> None:
        self.interval = interval

    def start(self, scheduler: Any) -> None:
        for comm in scheduler.stream_comms.values():
            comm.interval = self.interval

    def add_worker(self, scheduler: Any, worker: str) -> None:
        if worker in scheduler.stream_comms:
            scheduler.stream_comms[worker].interval = self.interval


class _ShortBatchesWorker(_WorkerPlugin):  # type: ignore[misc]
    """A worker's message batching to the scheduler shortened to ``interval`` (workers that join or restart
    later get it too: the scheduler keeps the plugin)."""

    name = "cuprum-short-batches"

    def __init__(self, interval: float) -> None:
        self.interval = interval

    def setup(self, worker: Any) -> None:
        worker.batched_stream.interval = self.interval


def low_latency(client: Any, interval: float = 0.0005) -> Any:
    """Shortens ``distributed``'s message batching (the client's 10 ms, the scheduler's 5 ms, the workers'
    2 ms: after a message, the next waits that long) to ``interval`` seconds on the client, the scheduler
    and every worker, and returns the client.

    A computation of a few large tasks, as the mosaic's steps are, waits on those intervals, not on its
    work: a round trip of one task measured 10.4 ms before and 3.1 ms after (two CPU workers on a
    2-core machine). Graphs of many small tasks lose a little throughput. The scheduler must be able to
    import ``cuprum.dask`` (it is, in :func:`gpu_cluster`'s clusters and wherever cuprum is installed)."""
    client.scheduler_comm.interval = interval
    client.register_plugin(_ShortBatchesScheduler(interval))
    client.register_plugin(_ShortBatchesWorker(interval))
    return client


def gpu_cluster(n_workers: int | None = None, *, gpus: list[int] | None = None, **kwargs: Any) -> Any:
    """A ``distributed.LocalCluster`` with one worker process per GPU, each seeing only its own GPU
    (``CUDA_VISIBLE_DEVICES``, so that cuprum's ``cuda:0`` in a worker is that worker's GPU), one thread a
    worker. ``gpus``: the GPUs to use (default: every visible one); ``gpus=[]`` or no GPU: ``n_workers``
    CPU workers (default 2; ``CUPRUM_DEVICE=cpu`` in them, also on a GPU host) with the same code. Other
    keywords go to ``LocalCluster`` (for the CPU workers) or to each worker (``Nanny``).

    Each worker's ``memory_limit`` is the host's memory shared by the workers (as ``dask_cuda`` does),
    unless given: Dask's own default is a share per CPU core (8 GB a worker on a 16-core host of 128 GB),
    and as ``sizeof`` counts the chunks' device bytes, a GPU worker holding a few GB of tiles would begin
    spilling them to disk at 60% of that. The scheduler sends a worker every task that is ready
    (``worker_saturation=inf``, a keyword of this function): with Dask's default (1.1) it holds back all
    but about one task a thread, and a worker of one thread then waits a round trip (3 ms measured) after
    each task.

    What ``dask_cuda.LocalCUDACluster`` does, with ``distributed`` alone (its pins on ``dask`` and
    ``distributed`` do not always fit).
    """
    from distributed import LocalCluster, Nanny, Scheduler, SpecCluster
    from distributed.system import MEMORY_LIMIT

    # The scheduler reads it when it starts.
    saturation = {"distributed.scheduler.worker-saturation": kwargs.pop("worker_saturation", float("inf"))}

    if gpus is None:
        n_gpu = cuprum.cuda.runtime.getDeviceCount() if cuprum.cuda.is_available() else 0
        gpus = list(builtins.range(n_gpu))[: n_workers or None]
    if not gpus:
        n = n_workers or 2
        kw = {
            "n_workers": n,
            "threads_per_worker": 1,
            "processes": True,
            "dashboard_address": ":0",
            "memory_limit": MEMORY_LIMIT // n,
            "env": {"CUPRUM_DEVICE": "cpu"},
        }
        kw.update(kwargs)
        with dask.config.set(saturation):
            return LocalCluster(**kw)
    # One nanny (worker process) per GPU, each started with its own CUDA_VISIBLE_DEVICES (the
    # numbers of the GPUs this process sees, so that a narrowed CUDA_VISIBLE_DEVICES is honoured).
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = visible.split(",") if visible else [str(g) for g in builtins.range(max(gpus) + 1)]
    options = {"nthreads": 1, "memory_limit": MEMORY_LIMIT // len(gpus), **kwargs}
    env = options.pop("env", {})
    workers = {
        f"gpu-{g}": {"cls": Nanny, "options": {**options, "env": {**env, "CUDA_VISIBLE_DEVICES": ids[g]}}} for g in gpus
    }
    scheduler = {"cls": Scheduler, "options": {"dashboard": False, "dashboard_address": ":0"}}
    with dask.config.set(saturation):
        return SpecCluster(workers=workers, scheduler=scheduler)


register()
