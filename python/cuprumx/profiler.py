"""``cupyx.profiler.benchmark`` for cuprum: CPU (wall) times and device times (CUDA events on a GPU; on the
CPU backend the device is the CPU and its time is the wall time of the call), in seconds, and CuPy's line."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy

import cuprum
from cuprum import cuda as _cuda

__all__ = ["benchmark"]


class _PerfCaseResult:
    """The times of one benchmark: ``cpu_times`` (n_repeat,) and ``gpu_times`` (n_devices, n_repeat), seconds."""

    def __init__(self, name: str, ts: numpy.ndarray, devices: list):
        self.name = name
        self._ts = ts
        self._devices = devices

    @property
    def cpu_times(self) -> numpy.ndarray:
        return self._ts[0]

    @property
    def gpu_times(self) -> numpy.ndarray:
        return self._ts[1:]

    @staticmethod
    def _item(device_name: str, t: numpy.ndarray) -> str:
        t_us = t * 1e6
        s = f"    {device_name}: {t_us.mean():9.03f} us"
        if t.size > 1:
            s += f"   +/- {t_us.std():6.03f} (min: {t_us.min():9.03f} / max: {t_us.max():9.03f}) us"
        return s

    def to_str(self, show_gpu: bool = False) -> str:
        results = [self._item("CPU", self._ts[0])]
        if show_gpu:
            for i, d in enumerate(self._devices):
                results.append(self._item(d, self._ts[1 + i]))
        return "{:<20s}:{}".format(self.name, " ".join(results))

    def __str__(self) -> str:
        return self.to_str(show_gpu=True)

    def __repr__(self) -> str:
        return self.__str__()


def benchmark(
    func: Any,
    args: tuple = (),
    kwargs: dict | None = None,
    n_repeat: int = 10000,
    *,
    name: str | None = None,
    n_warmup: int = 10,
    max_duration: float = math.inf,
    devices: Any = None,
) -> _PerfCaseResult:
    """Times ``func(*args, **kwargs)`` ``n_repeat`` times after ``n_warmup`` untimed calls (CuPy's
    signature). Each run records an event on every device's current stream before and after the call and
    waits for the end events, so the device times are the work's, not the launches'."""
    if name is None:
        name = getattr(func, "__name__", "function")
    if kwargs is None:
        kwargs = {}
    if not callable(func):
        raise ValueError("`func` should be a callable object.")
    if not isinstance(args, tuple):
        raise ValueError("`args` should be of tuple type.")
    if not isinstance(kwargs, dict):
        raise ValueError("`kwargs` should be of dict type.")
    if not isinstance(n_repeat, int) or not isinstance(n_warmup, int):
        raise ValueError("`n_repeat` and `n_warmup` should be integers.")
    cur = cuprum.get_device()
    if devices is None:
        devs = [cur]
    else:
        devs = [cuprum.cuda.Device(d) for d in devices]
    gpu = [d for d in devs if d.kind == "cuda"]
    labels = [f"GPU-{d.id}" for d in gpu] if gpu else ["CPU-device"]

    def run() -> tuple[float, list[float]]:
        if gpu:
            starts, ends = [], []
            for d in gpu:
                with d:
                    e = _cuda.Event()
                    e.record()
                    starts.append(e)
            t1 = time.perf_counter()
            func(*args, **kwargs)
            t2 = time.perf_counter()
            for d in gpu:
                with d:
                    e = _cuda.Event()
                    e.record()
                    ends.append(e)
            for e in ends:
                e.synchronize()
            return t2 - t1, [_cuda.get_elapsed_time(s, e) * 1e-3 for s, e in zip(starts, ends, strict=True)]
        t1 = time.perf_counter()
        func(*args, **kwargs)
        t2 = time.perf_counter()
        return t2 - t1, [t2 - t1]

    for _ in range(n_warmup):
        run()
    cpu_times, dev_times = [], []
    t0 = time.perf_counter()
    for _ in range(n_repeat):
        c, g = run()
        cpu_times.append(c)
        dev_times.append(g)
        if time.perf_counter() - t0 > max_duration:
            break
    ts = numpy.empty((1 + len(labels), len(cpu_times)), dtype=numpy.float64)
    ts[0] = cpu_times
    ts[1:] = numpy.asarray(dev_times, dtype=numpy.float64).T
    return _PerfCaseResult(name, ts, labels)
