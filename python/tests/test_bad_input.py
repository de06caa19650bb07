"""Bad and extreme input gives NumPy's/SciPy's exception, never an abort, a panic or a hang (issue 35):
sizes from the user that cannot be allocated are MemoryError, more than 64 dimensions a ValueError,
histogram ranges too wide for finite bins NumPy's ValueError; next_fast_len of huge targets answers at
once. Each case runs on both devices."""

import numpy as np
import pytest
import scipy.fft
import scipy.ndimage

import cuprum as cp
import cuprumx.scipy.fft as cfft
import cuprumx.scipy.ndimage as cndi


@pytest.mark.parametrize(
    "call",
    [
        lambda dev: cp.histogram(cp.ones(4, device=dev), bins=2**40),
        lambda dev: cp.fft.fftfreq(2**40, device=dev),
        lambda dev: cp.fft.rfftfreq(2**41, device=dev),
        lambda dev: cndi.gaussian_filter(cp.ones(4, device=dev), 1e300),
        lambda dev: cndi.gaussian_filter1d(cp.ones(4, device=dev), 1.0, radius=2**62),
        lambda dev: cndi.uniform_filter(cp.ones(4, device=dev), 2**40),
        lambda dev: cndi.uniform_filter(cp.ones((3, 4), device=dev), 2**40, axes=0),
        lambda dev: cp.pad(cp.ones(2, device=dev), 2**40),
        lambda dev: cp.pad(cp.ones(2, device=dev), 2**40, mode="wrap"),
        lambda dev: cp.pad(cp.ones(2, device=dev), 2**40, mode="edge"),
        lambda dev: cndi.maximum_filter(cp.ones((3, 4), device=dev), size=2**40),
        lambda dev: cndi.iterate_structure(cp.ones((3, 3), dtype=bool, device=dev), 2**40),
    ],
    ids=[
        "histogram",
        "fftfreq",
        "rfftfreq",
        "gaussian_sigma",
        "gaussian_radius",
        "uniform",
        "uniform_axis0",
        "pad",
        "pad_wrap",
        "pad_edge",
        "maximum_filter",
        "iterate_structure",
    ],
)
def test_impossible_sizes_are_memory_errors(device, call):
    with pytest.raises(MemoryError):
        call(device)


def test_more_than_64_dimensions(device):
    for make in (
        lambda: cp.ones((1,) * 65, device=device),
        lambda: cp.ones(1, device=device).reshape((1,) * 70),
        lambda: cp.ones((1,) * 64, device=device)[None],
        lambda: cp.expand_dims(cp.ones((1,) * 64, device=device), 0),
        lambda: cp.broadcast_to(cp.ones(1, device=device), (1,) * 65),
    ):
        with pytest.raises(ValueError, match="maximum supported dimension"):
            make()
    assert cp.ones((1,) * 64, device=device).ndim == 64  # NumPy's limit itself is fine
    with pytest.raises(ValueError, match="maximum supported dimension"):
        np.ones((1,) * 65)


def test_histogram_range_too_wide(device):
    with pytest.raises(ValueError, match="Too many bins for data range"):
        np.histogram(np.ones(4), bins=3, range=(-1.7e308, 1.7e308))
    with pytest.raises(ValueError, match="Too many bins for data range"):
        cp.histogram(cp.ones(4, device=device), bins=3, range=(-1.7e308, 1.7e308))


@pytest.mark.parametrize("real", [False, True])
def test_next_fast_len(real):
    limit = (2**64 - 1) // 11 + 1  # SciPy's largest target (measured)
    for t in list(range(1, 200)) + [1021, 4097, 65537, 10**9 + 7, 2**40 + 1, 2**53 + 1, 2**60 + 1, limit - 1, limit]:
        assert cfft.next_fast_len(t, real=real) == scipy.fft.next_fast_len(t, real=real), t
    for t in (limit + 1, 2**62 + 1, 2**63 - 1):
        with pytest.raises(ValueError, match="too large to perform an FFT"):
            scipy.fft.next_fast_len(t, real=real)
        with pytest.raises(ValueError, match="too large to perform an FFT"):
            cfft.next_fast_len(t, real=real)
    for t in (2**63, 2**64 - 2):
        with pytest.raises(OverflowError):
            scipy.fft.next_fast_len(t, real=real)
        with pytest.raises(OverflowError):
            cfft.next_fast_len(t, real=real)


def test_gaussian_still_matches_scipy(device):
    """The fallible kernel keeps SciPy's weights."""
    x = np.random.default_rng(3).standard_normal(50)
    for sigma, order in [(0.7, 0), (2.0, 1), (3.5, 2)]:
        got = cndi.gaussian_filter1d(cp.asarray(x, device=device), sigma, order=order)
        np.testing.assert_allclose(
            cp.asnumpy(got), scipy.ndimage.gaussian_filter1d(x, sigma, order=order), rtol=1e-12, atol=1e-14
        )


def _outcome(f, *args, **kwargs):
    """The result as a list, or the kind of NumPy's conversion error."""
    try:
        r = f(*args, **kwargs)
        return ("ok", cp.asnumpy(r).tolist() if isinstance(r, cp.ndarray) else np.asarray(r).tolist())
    except (ValueError, TypeError, OverflowError) as e:
        return (type(e).__name__, None)


def _filled(lib, dtype, value):
    a = lib.zeros(3, dtype=dtype)
    a.fill(value)
    return a


def test_fill_and_arange_conversions(device):
    """NumPy's conversions of Python scalars: NaN/inf/huge floats into integers, complex into floats, and
    arange's first two values (the rest wrap, as NumPy's do)."""
    for dt, v in [
        (np.int32, float("nan")),
        (np.int8, float("inf")),
        (np.int64, 1e300),
        (np.float64, 1j),
        (np.int8, 2.5),
        (np.bool_, float("nan")),
        (np.complex64, 1j),
    ]:
        want = _outcome(_filled, np, dt, v)
        with cp.Device(device):
            got = _outcome(_filled, cp, dt, v)
        assert got == want, (dt, v, got, want)
    for args in [(250, 260), (-1, 3), (0, -3, -1), (3, -1, -1), (0, 10, 300), (0, 300, 100), (5, 5)]:
        want = _outcome(np.arange, *args, dtype=np.uint8)
        got = _outcome(cp.arange, *args, dtype=cp.uint8, device=device)
        assert got == want, (args, got, want)


def test_measurements_with_extreme_labels(device):
    """Labels and indices at the ends of int64: SciPy's values where cuprum's lookup table fits, else a clear
    NotImplementedError (an index spread over 2^64 values made an empty table that panicked)."""
    lab = np.array([-(2**63), 1, 2**63 - 1, 5])
    x = np.arange(1.0, 5.0)
    for index in ([1, 5], [-(2**63)], [2**63 - 1, 2**63 - 2], [-(2**63), -(2**63) + 1]):
        got = cndi.sum_labels(
            cp.asarray(x, device=device), cp.asarray(lab, device=device), cp.asarray(index, device=device)
        )
        np.testing.assert_array_equal(cp.asnumpy(got), scipy.ndimage.sum_labels(x, lab, np.array(index)))
    with pytest.raises(NotImplementedError):
        cndi.sum_labels(
            cp.asarray(x, device=device),
            cp.asarray(lab, device=device),
            cp.asarray([1, -(2**63), 2**63 - 1], device=device),
        )


def test_zero_spacing_and_reversed_ranges(device):
    """NumPy's and SciPy's errors where cuprum gave infinities or empty counts: fftfreq/rfftfreq of n * d == 0
    (ZeroDivisionError, as NumPy's `1.0 / (n * d)`), ndimage.histogram with min > max (SciPy's ValueError)."""
    for f, cf in [(np.fft.fftfreq, cp.fft.fftfreq), (np.fft.rfftfreq, cp.fft.rfftfreq)]:
        for n, d in [(8, 0.0), (8, -0.0), (0, 1.0)]:
            with pytest.raises(ZeroDivisionError):
                f(n, d)
            with pytest.raises(ZeroDivisionError, match="float division by zero"):
                cf(n, d, device=device)
    np.testing.assert_array_equal(cp.asnumpy(cp.fft.fftfreq(5, 0.5, device=device)), np.fft.fftfreq(5, 0.5))
    x = np.arange(5.0)
    with pytest.raises(ValueError, match="must increase monotonically"):
        scipy.ndimage.histogram(x, 3, 1, 4)
    with pytest.raises(ValueError, match="must increase monotonically"):
        cndi.histogram(cp.asarray(x, device=device), 3, 1, 4)
    np.testing.assert_array_equal(
        cp.asnumpy(cndi.histogram(cp.asarray(x, device=device), 2, 2, 3)), scipy.ndimage.histogram(x, 2, 2, 3)
    )


@pytest.mark.parametrize(
    ("shape", "values"),
    [((5,), (3,)), ((5,), (2, 3)), ((5, 2), (3, 2)), ((5, 2), (4,)), ((5, 2), (3,)), ((0,), (3,))],
    ids=str,
)
def test_masked_assignment_messages(device, shape, values):
    """Values that do not fit a boolean mask's selection: NumPy's exception and message (cuprum's named an
    internal broadcast_to)."""
    a = np.zeros(shape)
    m = np.ones(shape[:1], bool)
    with pytest.raises((ValueError, TypeError)) as want:
        a[m] = np.ones(values)
    x = cp.zeros(shape, device=device)
    with pytest.raises((ValueError, TypeError)) as got:
        x[cp.asarray(m, device=device)] = cp.ones(values, device=device)
    assert (type(got.value), str(got.value)) == (type(want.value), str(want.value))
