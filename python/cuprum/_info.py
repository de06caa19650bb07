"""``cuprum.__array_namespace_info__()`` (the Array API's inspection object)."""

from __future__ import annotations

from typing import Any

import numpy

from . import _cuprum


class Info:
    def capabilities(self) -> dict:
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Any:
        return _cuprum.default_device()

    def devices(self) -> tuple:
        """Every device cuprum can use: the CPU, then each CUDA device (a tuple, as Array API 2025.12 asks)."""
        return (_cuprum.Device("cpu"),) + tuple(_cuprum.Device(i) for i in range(_cuprum.cuda_device_count()))

    def default_dtypes(self, *, device: Any = None) -> dict:
        return {
            "real floating": numpy.dtype(numpy.float64),
            "complex floating": numpy.dtype(numpy.complex128),
            "integral": numpy.dtype(numpy.int64),
            "indexing": numpy.dtype(numpy.int64),
        }

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict:
        names = {
            "bool": ["bool"],
            "signed integer": ["int8", "int16", "int32", "int64"],
            "unsigned integer": ["uint8", "uint16", "uint32", "uint64"],
            "real floating": ["float32", "float64"],
            "complex floating": ["complex64", "complex128"],
        }
        names["integral"] = names["signed integer"] + names["unsigned integer"]
        names["numeric"] = names["integral"] + names["real floating"] + names["complex floating"]
        if kind is None:
            sel = names["bool"] + names["numeric"]
        elif isinstance(kind, tuple):
            sel = [n for k in kind for n in names[k]]
        else:
            sel = names[kind]
        return {n: numpy.dtype(n) for n in sel}
