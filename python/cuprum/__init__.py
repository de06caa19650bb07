"""cuprum: NumPy and SciPy for NVIDIA GPUs, written in Rust, with a CPU backend (``import cuprum as cp``).

CuPy's API: arrays live on a device (the first GPU, or the CPU when there is none, or when
``CUPRUM_DEVICE=cpu``; ``with cuprum.Device("cpu"):`` per thread), NumPy's functions and semantics
(dtypes are NumPy's, NEP 50 promotion, broadcasting, views), ``cuprum.linalg``, ``cuprum.fft``,
``cuprum.random`` (NumPy's Philox streams bit for bit), ``cuprum.cuda`` (streams, events),
``cuprumx.scipy.signal``/``ndimage`` and ``cuprumx.profiler.benchmark``.
"""

from . import _cuprum
from ._core import *
from ._core import __dict__ as _core_dict
from ._cuprum import Device, ElementwiseKernel, RawKernel, RawModule, ReductionKernel, default_device, ndarray
from ._cuprum import from_dlpack as _from_dlpack_rust
from ._fuse import fuse

__version__ = "0.1.0"
__array_api_version__ = "2025.12"

# Names that `import *` skips (they shadow builtins or start with an underscore in _core).
for _name in ("abs", "all", "any", "max", "min", "round", "sum", "pow", "bool_", "float_", "complex_", "int_"):
    globals()[_name] = _core_dict[_name]
bool = _core_dict["bool_"]  # noqa: A001  (the Array API's name for the boolean dtype)
del _name
# What `import *` brought along from _core's own imports.
for _name in ("annotations", "builtins", "operator", "numpy", "Any", "Sequence"):
    globals().pop(_name, None)
del _name


def from_dlpack(x, /, *, device=None, copy=None):
    """An array on the memory of a DLPack producer (zero-copy; PyTorch, CuPy, JAX, NumPy...)."""
    return _from_dlpack_rust(x, device=device, copy=copy)


def get_device():
    """The thread's current device (``with cuprum.Device(...)``)."""
    return _cuprum.get_device()


def __array_namespace_info__():
    from ._info import Info

    return Info()


def __getattr__(name):
    # The submodules load on first use: `import cuprum` stays quick.
    import importlib

    if name in ("linalg", "fft", "random", "cuda", "testing", "scipy", "dask"):
        if name == "scipy":
            return importlib.import_module("cuprumx.scipy")
        return importlib.import_module(f"cuprum.{name}")
    raise AttributeError(f"module 'cuprum' has no attribute '{name}'")


# A process that loaded Dask first (a Dask worker: it imports cuprum when it receives its first cuprum
# chunk, which it must then deserialize) gets cuprum's Dask registration with cuprum itself.
if "dask" in __import__("sys").modules:
    try:
        from . import dask as _dask  # noqa: F401
    except ImportError:
        pass
