"""``scipy.fft`` on cuprum arrays (the transforms of ``cuprum.fft``, and ``next_fast_len``)."""

from __future__ import annotations

from cuprum import _cuprum as _c
from cuprum.fft import (  # noqa: F401
    fft,
    fft2,
    fftfreq,
    fftn,
    fftshift,
    hfft,
    ifft,
    ifft2,
    ifftn,
    ifftshift,
    ihfft,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftfreq,
    rfftn,
)


def next_fast_len(target: int, real: bool = False) -> int:
    """The smallest 5-smooth (real) or 11-smooth (complex) length >= ``target``, as SciPy's."""
    if target < 0:
        raise ValueError("Target cannot be negative.")
    if int(target) > 2**63 - 1:
        raise OverflowError("Python int too large to convert to C ssize_t")  # SciPy's (pocketfft's size type)
    if target == 0:
        return 0  # SciPy's answer for 0 (no length is asked for)
    return _c.next_fast_len(int(target), bool(real))
