"""``cupy.cuda`` for cuprum: devices, streams, events, the memory pool.

On the CPU backend (no GPU, or ``CUPRUM_DEVICE=cpu``) the same code runs: streams order host work (it
runs at once, in order), events record the host clock, and ``Device(n)`` names the CPU, so that a
lesson's stream and timing code needs no GPU.
"""

from __future__ import annotations

from typing import Any

from . import _cuprum as _c

__all__ = [
    "Device",
    "Stream",
    "Event",
    "get_current_stream",
    "get_elapsed_time",
    "is_available",
    "get_default_memory_pool",
    "runtime",
    "ExternalStream",
]


def is_available() -> bool:
    """Whether a CUDA GPU is present."""
    return _c.cuda_is_available()


def Device(device: Any = None) -> _c.Device:  # noqa: N802
    """``cupy.cuda.Device(n)``: GPU ``n`` (the current device when ``None``). On the CPU backend, the CPU."""
    if device is None:
        return _c.get_device()
    if isinstance(device, int) and (_c.default_device().kind == "cpu" or not is_available()):
        return _c.Device("cpu")
    return _c.Device(device)


class _NullStream:
    """``Stream.null``: the current device's default stream (a class attribute that depends on the device)."""

    def __get__(self, obj: Any, cls: Any) -> Stream:
        return Stream._null()


class Stream:
    """A stream (``cupy.cuda.Stream``): ``with stream:`` makes it the thread's current stream; work on
    it runs in order. ``Stream.null`` is the device's default stream. On the CPU backend a host stream
    (cuprum's: host work runs when it is called, in order)."""

    null = _NullStream()

    def __init__(
        self,
        null: bool = False,
        non_blocking: bool = False,
        ptds: bool = False,
        priority: Any = None,
        *,
        device: Any = None,
    ):
        dev = _c.Device(device) if device is not None else _c.get_device()
        self.device = dev
        self._s = _c._Stream(dev, null)

    @classmethod
    def _null(cls) -> Stream:
        return cls(null=True)

    @classmethod
    def _wrap(cls, s: Any, dev: Any) -> Stream:
        obj = cls.__new__(cls)
        obj.device, obj._s = dev, s
        return obj

    @property
    def ptr(self) -> int:
        """The driver's stream handle (a host stream's number on the CPU)."""
        return self._s.ptr

    @property
    def done(self) -> bool:
        return self._s.query()

    def query(self) -> bool:
        return self.done

    def synchronize(self) -> None:
        self._s.synchronize()

    def record(self, event: Event | None = None) -> Event:
        e = event or Event()
        e.record(self)
        return e

    def wait_event(self, event: Event) -> None:
        self._s.wait_event(event._e)

    def use(self) -> Stream:
        self._s.enter()
        return self

    def __enter__(self) -> Stream:
        return self.use()

    def __exit__(self, *exc: Any) -> None:
        self._s.exit()

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, Stream):
            return NotImplemented
        return self._s == other._s

    def __hash__(self) -> int:
        return hash((self.ptr, str(self.device)))

    def __repr__(self) -> str:
        kind = "null" if self._s.is_null else f"0x{self.ptr:x}"
        return f"<Stream {kind} (device {self.device})>"


ExternalStream = Stream


def get_current_stream(device_id: Any = None) -> Stream:
    """The thread's current stream of the current device."""
    dev = _c.get_device() if device_id is None else Device(device_id)
    return Stream._wrap(_c.current_stream(dev), dev)


class Event:
    """An event (``cupy.cuda.Event``): recorded on a stream, waited for, timed with ``get_elapsed_time``
    (the host clock on the CPU backend)."""

    def __init__(self, block: bool = False, disable_timing: bool = False, interprocess: bool = False):
        self.device = _c.get_device()
        self._e = _c._Event(self.device)

    def record(self, stream: Stream | None = None) -> None:
        self._e.record(None if stream is None else stream._s)

    def synchronize(self) -> None:
        self._e.synchronize()

    @property
    def done(self) -> bool:
        return self._e.query()

    def query(self) -> bool:
        return self.done


def get_elapsed_time(start_event: Event, end_event: Event) -> float:
    """Milliseconds between two recorded events."""
    return _c.elapsed_ms(start_event._e, end_event._e)


class MemoryPool:
    """The device's memory pool (``cupy.get_default_memory_pool()``)."""

    def __init__(self, device: Any = None):
        self._dev = device

    def _stats(self) -> tuple[int, int]:
        dev = self._dev or _c.get_device()
        if _c.Device(dev).kind == "cpu":
            return (0, 0)
        return _c.pool_stats(dev)

    def used_bytes(self) -> int:
        return self._stats()[0]

    def total_bytes(self) -> int:
        return self._stats()[1]

    def free_bytes(self) -> int:
        u, t = self._stats()
        return t - u

    def free_all_blocks(self, stream: Any = None) -> None:
        dev = self._dev or _c.get_device()
        if _c.Device(dev).kind != "cpu":
            _c.release_cached(dev)


def get_default_memory_pool() -> MemoryPool:
    return MemoryPool()


class runtime:  # noqa: N801
    """The few ``cupy.cuda.runtime`` calls user code makes."""

    @staticmethod
    def getDeviceCount() -> int:  # noqa: N802
        return _c.cuda_device_count()

    @staticmethod
    def deviceSynchronize() -> None:  # noqa: N802
        _c.get_device().synchronize()

    @staticmethod
    def getDeviceProperties(device: int) -> dict:  # noqa: N802
        """The properties user code reads (``name`` as bytes, as CUDA's runtime gives it)."""
        d = Device(device)
        return {"name": d.name.encode()}
