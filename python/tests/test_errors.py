"""Bad inputs raise NumPy's exception types (AxisError, ValueError, IndexError, TypeError,
OverflowError, LinAlgError, ...) with the interpreter left working; each case is checked
against NumPy's own behaviour where NumPy has the same call."""

import numpy as np
import pytest
from _cuprum_conftest import assert_same
from numpy.exceptions import AxisError

import cuprum as cp


def numpy_raises(exc, f):
    """NumPy raises `exc` for the same mistake (keeps the expectations honest)."""
    with pytest.raises(exc):
        f()


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.sum(x, axis=2),
        lambda m, x: m.sum(x, axis=-3),
        lambda m, x: m.mean(x, axis=(0, 5)),
        lambda m, x: m.max(x, axis=3),
        lambda m, x: m.argmax(x, axis=2),
        lambda m, x: m.cumsum(x, axis=2),
        lambda m, x: m.sort(x, axis=2),
        lambda m, x: m.argsort(x, axis=-3),
        lambda m, x: m.concatenate([x, x], axis=2),
        lambda m, x: m.stack([x, x], axis=4),
        lambda m, x: m.expand_dims(x, 4),
        lambda m, x: m.squeeze(x, axis=2),
        lambda m, x: m.moveaxis(x, 0, 2),
        lambda m, x: m.flip(x, axis=2),
        lambda m, x: m.take(x, m.asarray([0]) if m is np else cp.asarray([0], device=x.device), axis=2),
        lambda m, x: m.diff(x, axis=2),
        lambda m, x: m.median(x, axis=2),
        lambda m, x: m.count_nonzero(x, axis=2),
        lambda m, x: m.linalg.norm(x, axis=2),
    ],
)
def test_axis_out_of_range(device, call):
    n = np.arange(6.0).reshape(2, 3)
    numpy_raises(AxisError, lambda: call(np, n))
    with pytest.raises(AxisError):
        call(cp, cp.asarray(n, device=device))


def test_axis_error_is_also_value_and_index_error(device):
    x = cp.zeros((2, 3), device=device)
    with pytest.raises(ValueError):
        x.sum(axis=5)
    with pytest.raises(IndexError):
        x.sum(axis=5)
    with pytest.raises(AxisError):
        x.transpose(0, 2)
    with pytest.raises(ValueError):
        x.transpose(0, 0)
    with pytest.raises(AxisError):
        x.swapaxes(0, 2)


def test_duplicate_axis(device):
    x = cp.zeros((2, 3), device=device)
    numpy_raises(ValueError, lambda: np.sum(np.zeros((2, 3)), axis=(0, 0)))
    with pytest.raises(ValueError):
        cp.sum(x, axis=(0, 0))
    with pytest.raises(ValueError):
        cp.sum(x, axis=(1, -1))


def test_bad_reshape_and_broadcast(device):
    x = cp.arange(12, device=device)
    with pytest.raises(ValueError):
        x.reshape(5, 3)
    with pytest.raises(ValueError):
        x.reshape(-1, -1)
    with pytest.raises(ValueError):
        cp.reshape(x, (7, -1))
    with pytest.raises(ValueError):
        x + cp.ones(5, device=device)
    with pytest.raises(ValueError):
        cp.broadcast_to(x, (3, 5))
    with pytest.raises(ValueError):
        cp.concatenate([x.reshape(3, 4), x.reshape(4, 3)])
    with pytest.raises(ValueError):
        cp.stack([x, x[:5]])
    with pytest.raises(ValueError):
        cp.matmul(x.reshape(3, 4), x.reshape(3, 4))
    with pytest.raises(ValueError):
        cp.split(x, 5)


def test_index_errors(device):
    n = np.arange(12).reshape(3, 4)
    x = cp.asarray(n, device=device)
    for key in [3, -4, (0, 4), (0, -5), (0, 0, 0)]:
        numpy_raises(IndexError, lambda k=key: n[k])
        with pytest.raises(IndexError):
            x[key]
    with pytest.raises(IndexError):
        x[3] = 1
    with pytest.raises(IndexError):
        x[cp.asarray([0, 3], device=device)]
    with pytest.raises(IndexError):
        x[cp.asarray([True, False], device=device)]
    with pytest.raises(IndexError):
        x[..., ...]
    with pytest.raises(IndexError):
        cp.zeros(0, device=device)[0]
    with pytest.raises(IndexError):
        cp.take(x, cp.asarray([12], device=device))


def test_float_and_other_bad_indices(device):
    n = np.arange(5.0)
    x = cp.asarray(n, device=device)
    numpy_raises(IndexError, lambda: n[1.0])
    with pytest.raises(IndexError):
        x[1.0]
    with pytest.raises(IndexError):
        x[cp.asarray([1.0, 2.0], device=device)]
    numpy_raises(TypeError, lambda: n[1.5:3])
    with pytest.raises(TypeError):
        x[1.5:3]
    # NumPy raises IndexError here (an AxisError is one).
    with pytest.raises(IndexError):
        cp.fft.fft(x, axis=1)
    with pytest.raises(IndexError):
        x["a"]
    with pytest.raises(IndexError):
        x[np.float64(0)]


def test_overflow_with_python_ints(device):
    i8 = cp.ones(3, dtype=np.int8, device=device)
    numpy_raises(OverflowError, lambda: np.ones(3, np.int8) + 1000)
    with pytest.raises(OverflowError):
        i8 + 1000
    with pytest.raises(OverflowError):
        1000 + i8
    with pytest.raises(OverflowError):
        i8 * -129
    with pytest.raises(OverflowError):
        cp.ones(2, dtype=np.uint8, device=device) - (-1)
    with pytest.raises(OverflowError):
        cp.ones(2, dtype=np.uint64, device=device) + 2**64
    with pytest.raises(OverflowError):
        cp.ones(2, dtype=np.int64, device=device) + 2**63
    with pytest.raises(OverflowError):
        cp.asarray([1, 2], dtype=np.int8, device=device).fill(300)
    # NumPy makes an object array of it; cuprum has no object dtype.
    with pytest.raises((OverflowError, TypeError, ValueError)):
        cp.asarray([2**64], device=device)
    with pytest.raises(OverflowError):
        cp.full(3, 256, dtype=np.uint8, device=device)
    # The interpreter and the array are fine afterwards.
    assert_same(i8 + 100, np.full(3, 101, np.int8))


def test_type_errors(device):
    f = cp.ones(3, device=device)
    i = cp.ones(3, dtype=np.int32, device=device)
    b = cp.ones(3, dtype=bool, device=device)
    with pytest.raises(TypeError):
        f & f
    with pytest.raises(TypeError):
        _ = ~f
    with pytest.raises(TypeError):
        f << 1
    with pytest.raises(TypeError):
        b - b
    with pytest.raises(TypeError):
        _ = -b
    with pytest.raises(TypeError):
        i += 1.5
    with pytest.raises(TypeError):
        cp.floor_divide(cp.ones(2, dtype=np.complex64, device=device), 1)
    with pytest.raises(TypeError):
        cp.zeros(3, dtype="not-a-dtype", device=device)
    # Strings and objects have no cuprum dtype.
    with pytest.raises((TypeError, ValueError)):
        cp.asarray(["a", "b"], device=device)
    with pytest.raises((TypeError, ValueError)):
        cp.asarray(object(), device=device)
    with pytest.raises(TypeError):
        f.__index__()
    with pytest.raises(TypeError):
        range(10)[cp.asarray(2.0, device=device)]
    with pytest.raises(TypeError):
        len(cp.asarray(1.0, device=device))
    with pytest.raises(TypeError):
        list(cp.asarray(1.0, device=device))
    with pytest.raises(TypeError):
        cp.sum(f, axis=1.5)


def test_value_errors(device):
    x = cp.arange(6.0, device=device)
    with pytest.raises(ValueError):
        bool(x)
    with pytest.raises(ValueError):
        x.item()
    with pytest.raises((ValueError, TypeError)):
        float(x)
    with pytest.raises(ValueError):
        cp.min(cp.zeros(0, device=device))
    with pytest.raises(ValueError):
        cp.argmax(cp.zeros((0, 3), device=device), axis=0)
    with pytest.raises(ValueError):
        cp.zeros((2, -1), device=device)
    # NumPy: ZeroDivisionError.
    with pytest.raises((ValueError, ZeroDivisionError)):
        cp.arange(0, 10, 0, device=device)
    with pytest.raises(ValueError):
        cp.linspace(0, 1, -1, device=device)
    with pytest.raises(ValueError):
        cp.percentile(x, 101)
    with pytest.raises(ValueError):
        cp.quantile(x, -0.1)
    with pytest.raises(ValueError):
        cp.convolve(cp.zeros(0, device=device), x)
    with pytest.raises(ValueError):
        cp.bincount(cp.asarray([-1, 2], device=device))
    with pytest.raises(ValueError):
        cp.repeat(x, [1, 2])
    with pytest.raises(ValueError):
        cp.pad(x, -1)
    with pytest.raises(ValueError):
        cp.einsum("ij,jk->ik", x.reshape(2, 3), x.reshape(2, 3))


def test_linalg_errors(device):
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    numpy_raises(np.linalg.LinAlgError, lambda: np.linalg.inv(singular))
    s = cp.asarray(singular, device=device)
    with pytest.raises(np.linalg.LinAlgError):
        cp.linalg.inv(s)
    with pytest.raises(np.linalg.LinAlgError):
        cp.linalg.solve(s, cp.ones(2, device=device))
    with pytest.raises(np.linalg.LinAlgError):
        cp.linalg.cholesky(cp.asarray([[1.0, 2.0], [2.0, 1.0]], device=device))
    with pytest.raises(np.linalg.LinAlgError):
        cp.linalg.inv(cp.ones((2, 3), device=device))
    with pytest.raises(np.linalg.LinAlgError):
        cp.linalg.det(cp.ones(3, device=device))
    with pytest.raises(np.linalg.LinAlgError):
        cp.linalg.eig(cp.asarray([[np.nan, 0.0], [0.0, 1.0]], device=device))
    with pytest.raises(ValueError):
        cp.linalg.solve(cp.eye(3, device=device), cp.ones(4, device=device))
    # A stack with one singular matrix fails as a whole, as NumPy's does.
    stack = cp.asarray(np.stack([np.eye(2), singular]), device=device)
    with pytest.raises(np.linalg.LinAlgError):
        cp.linalg.inv(stack)
    # det of a singular matrix is 0, not an error.
    assert float(cp.linalg.det(s)) == pytest.approx(0.0, abs=1e-12)


def test_random_errors(device):
    with cp.Device(device):
        g = cp.random.default_rng(5)
        with pytest.raises(ValueError):
            g.integers(5, 5, 3)
        with pytest.raises(ValueError):
            g.integers(0, 300, 3, dtype=np.uint8)
        with pytest.raises(ValueError):
            g.normal(0.0, -1.0, 3)
        with pytest.raises(ValueError):
            g.poisson(-1.0, 3)
        with pytest.raises(ValueError):
            g.binomial(10, 1.5, 3)
        with pytest.raises(ValueError):
            g.choice(3, 4, replace=False)
        with pytest.raises(TypeError):
            g.random(3, dtype=np.int32)
        with pytest.raises(ValueError):
            cp.random.default_rng(-1)
        with pytest.raises(OverflowError):
            g.uniform(0.0, np.inf, 3)


def test_fft_errors(device):
    x = cp.ones(8, device=device)
    with pytest.raises(ValueError):
        cp.fft.fft(x, n=0)
    with pytest.raises(ValueError):
        cp.fft.fft(x, norm="bogus")
    with pytest.raises(ValueError):
        cp.fft.irfft(cp.ones(1, dtype=np.complex128, device=device))


def test_mixing_devices(gpu):
    a = cp.ones(3, device="cpu")
    b = cp.ones(3, device=gpu)
    with pytest.raises(ValueError):
        a + b
    with pytest.raises(ValueError):
        cp.concatenate([a, b])
    with pytest.raises(ValueError):
        cp.matmul(a, b)
    with pytest.raises(ValueError):
        cp.where(a > 0, a, b)
    with pytest.raises(ValueError):
        b[cp.asarray([0, 1], device="cpu")] = 0
    with pytest.raises(ValueError):
        cp.add(b, b, out=cp.empty(3, device="cpu"))
    # Each array is still usable on its own device.
    assert_same(a + a, np.full(3, 2.0))
    assert_same(b + b, np.full(3, 2.0))


def test_out_of_memory(gpu):
    with pytest.raises(MemoryError):
        cp.empty(1 << 50, dtype=np.uint8, device=gpu)
    # The pool recovers: a normal allocation still works.
    assert float(cp.ones(100, device=gpu).sum()) == 100.0


def test_huge_sizes_do_not_crash(device):
    with pytest.raises((ValueError, MemoryError)):
        cp.empty((1 << 40, 1 << 40), dtype=np.float64, device=device)
    with pytest.raises((ValueError, MemoryError)):
        cp.zeros((1 << 62, 4), device=device)


def test_not_implemented_kernels_on_cpu():
    with cp.Device("cpu"), pytest.raises(NotImplementedError):
        k = cp.ElementwiseKernel("T x", "T y", "y = x", "copy_it")
        k(cp.ones(3))


def test_errors_leave_arrays_intact(device):
    n = np.arange(10.0)
    x = cp.asarray(n, device=device)
    for bad in [lambda: x.reshape(3, 3), lambda: x[20], lambda: x.sum(axis=4), lambda: x + cp.ones(3, device=device)]:
        with pytest.raises((ValueError, IndexError)):
            bad()
    assert_same(x, n)
    assert_same(x * 2, n * 2)
