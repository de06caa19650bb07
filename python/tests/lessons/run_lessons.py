#!/usr/bin/env python3
"""Run the workshop lessons' own Python cells on cuprum.

The five lessons (``shared/seeds/00?_*.txt``: CuPy and Numba on GPUs, radio-astronomy image
processing) hold Python cells in three formats: kramdown ``~~~`` blocks followed by
``{: .language-python}`` (``{: .output}`` blocks after them are the expected output),
```` ```python ```` fences (an indented block after the fence is the output), and Jupyter-style
``In [N]:`` blocks (the paragraphs after the code are the output). This script takes every
cell of a lesson in order and runs them in one fresh namespace per lesson, changing only:

* the module names: ``cupy`` -> ``cuprum`` and ``cupyx`` -> ``cuprumx`` (identifiers only:
  imports and ``cupy.``/``cupyx.`` references, never strings or comments);
* IPython: ``%timeit``/``%matplotlib``/other line magics and ``!shell`` lines are dropped,
  ``x = %timeit -o stmt`` and ``%%timeit -o`` cells run the statement once and give an object
  with ``.best`` (a later cell reads it, through ``_`` in lesson 001), other ``%%`` cells and
  IPython kernel restarts are skipped, and a cell's last expression is shown and stored in
  ``_`` as IPython does;
* the two explicit tables below: COMPAT (the host NumPy, not cuprum: NumPy 2 removed
  ``ndarray.newbyteorder``) and CPU_SIZES (the largest sizes scaled down when cuprum runs on
  its CPU backend; sizes stay verbatim on a GPU);
* the order of lesson 002 (RUN_AFTER_NOTES): its exercise solutions come first in the file but
  use what its notes define further down, so they run last.

The lessons read ``GMRT_image_of_Galactic_Center.fits``: a synthetic image with the same
structure (2048x2048 float32, big-endian, primary HDU) is written into a temporary working
directory first (with astropy when it is installed, else with a small FITS writer, and a tiny
``astropy.io.fits`` stand-in then reads it back). Plotting runs under matplotlib's Agg backend,
or against a stub that accepts any call when matplotlib is missing. Cells using numba.cuda
(directly, or through a name a numba cell defines) run only on a GPU where numba can launch a
probe kernel (with ``np.row_stack`` restored for numba-cuda on NumPy 2.5); cells using numba
on the CPU only, where numba is installed; otherwise they are skipped with the reason. A cell
that fails is reported with its traceback and the lesson goes on; later cells that read a
name the failed cell should have defined are skipped ("uses X from failed cell N").

What is checked, per lesson (CHECKS, EXPECTED_ERRORS): every cell runs without an exception,
except the cells the lessons show failing, which must raise the lesson's exception; the
deterministic printed values match the lesson's output (``cupy`` read as ``cuprum``); the
printed timings and statistics have the lesson's format; and values in the namespace agree
with NumPy/SciPy (the device convolution, labels, centres of mass, fluxes, ...).

    python run_lessons.py                  # all lessons, on cuprum's default device
    python run_lessons.py --lesson 000     # one lesson
    python run_lessons.py --device cpu     # CUPRUM_DEVICE=cpu (gpu: CUPRUM_DEVICE=cuda:0)
    python run_lessons.py --list [-v]      # the extracted cells and their classification

The exit status is 0 when every run cell and every check passed, 1 otherwise, 2 when the
lessons or cuprum cannot be loaded.

For testing the runner itself (hidden options): ``--module numpy`` runs the lessons on a small
NumPy/SciPy stand-in for cuprum (STANDIN below), ``--module cupy`` on CuPy under cuprum's names
(the reference: every check passes there on an H100), ``--force-shims`` uses the matplotlib
stub and the FITS reader even when matplotlib and astropy are installed, ``--write-standin DIR``
writes the stand-in package (to put on PYTHONPATH for ``pytest test_lessons.py``).
"""

from __future__ import annotations

import argparse
import ast
import builtins
import contextlib
import dataclasses
import gc
import importlib
import importlib.abc
import importlib.util
import io
import linecache
import math
import os
import random
import re
import shutil
import sys
import tempfile
import textwrap
import time
import tokenize
import traceback
import types
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar, Self

import numpy as np

FITS_NAME = "GMRT_image_of_Galactic_Center.fits"
SEED = 0  # np.random.seed for each lesson (see run_lesson)
REPO = Path(__file__).resolve().parents[3]


# ---------------------------------------------------------------------------------------------
# Per-lesson tables: what is changed, what must fail, what is checked.
# Cells are named by an Anchor: the start of the cell's source as the lesson writes it (with
# `cupy`), plus an optional text the source must also contain. An anchor that matches no cell or
# more than one is an error, so the tables cannot silently drift from the lessons.
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Anchor:
    prefix: str
    contains: str = ""

    def __str__(self) -> str:
        text = self.prefix.split("\n")[0] + (" ..." if "\n" in self.prefix else "")
        return text + (f" [containing {self.contains!r}]" if self.contains else "")


def _anchor(a: str | Anchor) -> Anchor:
    return a if isinstance(a, Anchor) else Anchor(a)


@dataclasses.dataclass(frozen=True)
class Sub:
    """Replace the exact text `old` by `new` in every cell of `lesson` (each entry must match)."""

    lesson: str
    old: str
    new: str
    why: str


# Sizes on the CPU backend (CUPRUM_DEVICE=cpu, or no GPU). On a GPU the lessons run verbatim.
CPU_SIZES = [
    # cupyx.profiler.benchmark runs n_warmup=10 calls before the n_repeat timed ones: 20 calls of
    # a 2048² convolution, clipping or full pipeline, each around a second on a CPU.
    Sub("000", "n_repeat=10", "n_repeat=2, n_warmup=1", "20 calls per benchmark of second-long 2048² steps"),
    Sub("001", "n_repeat=10", "n_repeat=2, n_warmup=1", "20 calls per benchmark of second-long 2048² steps"),
    Sub("001", "n_repeat =10", "n_repeat=2, n_warmup=1", "the same, spelt with a space (source measurements)"),
    Sub("002", "n_repeat=10", "n_repeat=2, n_warmup=1", "20 calls per benchmark of second-long 2048² steps"),
    # Lesson 004 (the NVIDIA notebook) sizes its GPU demonstrations for a GPU.
    Sub("004", "size = 4096", "size = 1024", "a 4096² float32 matmul is ~140 GFLOP, for NumPy and again for cuprum"),
    Sub("004", "[64, 128, 256, 512, 1024, 2048]", "[64, 128, 256, 512]", "QR of 1024² and 2048², twice per library"),
    Sub("004", "size = int(1e8)", "size = int(1e6)", "3 cells x 3 iterations on 10^8 elements (0.8 GB temporaries)"),
    Sub("004", "size = 6000", "size = 1000", "four 6000² inversions, ~0.3 TFLOP each"),
]


@dataclasses.dataclass(frozen=True)
class Compat:
    """A change for the host's Python stack (never for cuprum), applied when `needed()` is true."""

    lessons: tuple[str, ...]
    old: str
    new: str
    why: str
    needed: Callable[[], bool]


COMPAT = [
    Compat(
        ("000", "001", "002"),
        "hdul[0].data.byteswap().newbyteorder()",
        "hdul[0].data.byteswap().view(hdul[0].data.dtype.newbyteorder())",
        "NumPy 2 removed ndarray.newbyteorder(); this is its documented replacement (same values)",
        lambda: not hasattr(np.ndarray, "newbyteorder"),
    ),
]

# Lesson 002 is a workshop's collaborative document: its "Exercises" (solutions) come first but
# use what the "Collaborative Notes" further down define, so the cells above this heading run
# after all the others.
RUN_AFTER_NOTES = {"002": "Collaborative Notes"}


@dataclasses.dataclass(frozen=True)
class ExpectedError:
    """A cell the lesson shows failing: it must raise `exc` whose message contains `message`
    (is `message`, when `whole`; any message when `message` is empty)."""

    anchor: str | Anchor
    exc: str
    message: str
    why: str
    whole: bool = False
    # An error about GPU memory: on the CPU backend the cell may also run without it (cuprum's
    # CPU arrays are host memory and convert to NumPy arrays, by design: PYTHON.md §7.3).
    gpu_only: bool = False


IMPLICIT = (
    "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy array explicitly."
)
# The lesson shows CuPy's old message "Unsupported type <class 'numpy.ndarray'>"; CuPy 14 raises
# "TypeError: Cannot construct a dtype from an array" instead, so only the exception type is required.
UNSUPPORTED = ""

EXPECTED_ERRORS: dict[str, list[ExpectedError]] = {
    "000": [
        ExpectedError(
            "convolve2d_gpu(deltas, gauss)",
            "TypeError",
            UNSUPPORTED,
            "the challenge: cupyx's convolve2d refuses NumPy arrays (any message)",
            gpu_only=True,
        ),
        ExpectedError(
            "convolve2d_cpu(deltas_gpu, gauss_gpu)",
            "TypeError",
            IMPLICIT,
            "SciPy cannot take device arrays (the lesson prints this text)",
            whole=True,
            gpu_only=True,
        ),
    ],
    "001": [
        ExpectedError(
            "convolve2d_gpu(deltas, gauss)",
            "TypeError",
            UNSUPPORTED,
            "the challenge: cupyx's convolve2d refuses NumPy arrays (any message)",
            gpu_only=True,
        ),
        ExpectedError(
            "convolve2d_cpu(deltas_gpu, gauss_gpu)",
            "TypeError",
            IMPLICIT,
            "SciPy cannot take device arrays (the lesson prints this text)",
            whole=True,
            gpu_only=True,
        ),
    ],
    "002": [
        # A bug in the workshop's solution: the kernel is indexed with [result], not called.
        ExpectedError(
            "@cuda.jit\ndef check_prime_gpu_kernel(result)",
            "TypeError",
            "not subscriptable",
            "the 'alternative formulation' indexes the launch configuration instead of calling it",
        ),
    ],
}


@dataclasses.dataclass
class Ctx:
    """What checks see: the array module, the device, the outputs, how to copy to the host."""

    cp: Any
    modname: str  # the name the array module prints as (cuprum; cupy under --module cupy)
    on_cpu: bool
    outputs: dict[int, str]  # cell number -> captured stdout
    sources: dict[int, str]  # cell number -> the source that ran

    def to_np(self, x: Any) -> np.ndarray:
        """A device array (or nested lists/tuples of device scalars) as a NumPy array."""
        if isinstance(x, (list, tuple)):
            return np.array([self.to_np(v) for v in x])
        if isinstance(x, self.cp.ndarray):
            return np.asarray(self.cp.asnumpy(x))
        return np.asarray(x)


@dataclasses.dataclass
class Check:
    """`test(out, src, ctx)` for a cell's captured stdout (anchor set), or `test(ns, ctx)` for the
    lesson's namespace after its last cell (anchor None, `needs` names the variables it reads).
    It raises AssertionError to fail. `device` limits it to "cpu" or "gpu" runs; `lesson_output`
    passes the lesson's output block as `expected=`."""

    what: str
    test: Callable[..., None]
    anchor: str | Anchor | None = None
    needs: tuple[str, ...] = ()
    device: str | None = None
    lesson_output: bool = False


def _cupy_to(text: str, modname: str) -> str:
    return re.sub(r"\bcupy(x?)\b", lambda m: modname + m.group(1), text)


def out_re(anchor: str | Anchor, *patterns: str, what: str = "", device: str | None = None) -> Check:
    """Every pattern is found in the cell's stdout (re.search, MULTILINE; \\A...\\Z for all of it)."""

    def test(out: str, src: str, ctx: Ctx) -> None:
        for p in patterns:
            assert re.search(p, out, re.MULTILINE), f"no match for {p!r} in the output:\n{out}"

    return Check(what or "output matches " + " / ".join(patterns), test, anchor, device=device)


def out_lesson(anchor: str | Anchor, lines: tuple[int, int] | None = None, device: str | None = None) -> Check:
    """The cell prints what the lesson's output block shows (`lines`: only those lines of it),
    with `cupy` read as the array module's name."""

    def test(out: str, src: str, ctx: Ctx, expected: str = "") -> None:
        want = _cupy_to(expected, ctx.modname).rstrip("\n").split("\n")
        got = out.rstrip("\n").split("\n")
        if lines is not None:
            want, got = want[lines[0] : lines[1]], got[lines[0] : lines[1]]
        want = [w.rstrip() for w in want]
        got = [g.rstrip() for g in got]
        assert got == want, "output differs from the lesson's:\n--- lesson\n{}\n--- got\n{}".format(
            "\n".join(want), "\n".join(got)
        )

    part = f" (lines {lines[0] + 1}-{lines[1]})" if lines else ""
    return Check(f"prints the lesson's output{part}", test, anchor, device=device, lesson_output=True)


def out_pred(anchor: str | Anchor, what: str, fn: Callable[[str, str, Ctx], None], device: str | None = None) -> Check:
    return Check(what, fn, anchor, device=device)


def ns_check(what: str, needs: tuple[str, ...], fn: Callable[[dict, Ctx], None], device: str | None = None) -> Check:
    return Check(what, fn, None, needs, device)


E3 = r"-?\d\.\d{3}e[+-]\d\d"  # f"{x:.3e}"
F6 = r"\d+\.\d{6}"  # f"{x:.6f}"
G = r"[-+\d.e]+"  # "%g"
TIMEIT = r"[\d.]+ (s|ms|µs|ns) ± [^\n]* per loop \([^\n]*\)\n"  # what `x = %timeit -o ...` prints
SIGMA = "\u03c3"


def _check_data(ns: dict, ctx: Ctx) -> None:
    d = ns["data"]
    assert isinstance(d, np.ndarray), type(d)
    assert d.shape == (2048, 2048) and d.dtype == np.float32 and d.dtype.isnative, (d.shape, d.dtype)
    want = read_fits_primary(Path(FITS_NAME))
    np.testing.assert_array_equal(d, want)


def _is_device(name: str) -> Check:
    def test(ns: dict, ctx: Ctx) -> None:
        assert type(ns[name]) is ctx.cp.ndarray, f"type({name}) is {type(ns[name])}"

    return ns_check(f"{name} is the array module's ndarray", (name,), test)


def _allclose(a: str, b: str, what: str, rtol: float = 1e-6, atol: float = 1e-9) -> Check:
    def test(ns: dict, ctx: Ctx) -> None:
        np.testing.assert_allclose(ctx.to_np(ns[a]), ctx.to_np(ns[b]), rtol=rtol, atol=atol)

    return ns_check(what, (a, b), test)


def _same_clipping(dev: str, host: str) -> Check:
    def test(ns: dict, ctx: Ctx) -> None:
        d, h = ctx.to_np(ns[dev]), np.asarray(ns[host])
        # Borderline pixels may flip when the device sums in another order; a handful at most.
        assert abs(d.size - h.size) <= max(10, 1e-5 * h.size), (d.size, h.size)
        assert math.isclose(float(np.std(d)), float(np.std(h)), rel_tol=1e-4), (np.std(d), np.std(h))

    return ns_check(f"the device clipper keeps the CPU clipper's pixels ({dev} vs {host})", (dev, host), test)


def _same_segmentation(dev: str, host: str) -> Check:
    def test(ns: dict, ctx: Ctx) -> None:
        d, h = ctx.to_np(ns[dev]), np.asarray(ns[host])
        assert d.shape == h.shape, (d.shape, h.shape)
        differ = int(np.count_nonzero(d != h))
        # The two thresholds come from the two clippers' sigmas; they may differ in the last bits.
        assert differ <= 1e-5 * h.size, f"{differ} pixels segmented differently"

    return ns_check(f"segmentation on the device equals the CPU's ({dev} vs {host})", (dev, host), test)


def _labels_like_scipy(seg: str, labels: str, count: str) -> Check:
    def test(ns: dict, ctx: Ctx) -> None:
        from scipy import ndimage

        want, n = ndimage.label(ctx.to_np(ns[seg]))
        got = ctx.to_np(ns[labels])
        assert int(ns[count]) == n, f"{count} = {ns[count]}, scipy.ndimage.label finds {n}"
        np.testing.assert_array_equal(got, want)

    return ns_check(f"{labels} equals scipy.ndimage.label({seg}) and {count} its count", (seg, labels, count), test)


def _measurements_like_scipy(ns: dict, ctx: Ctx) -> None:
    from scipy import ndimage

    cp, n = ctx.cp, int(ns["number_of_sources_in_image"])
    labels = ctx.to_np(ns["labelled_image_gpu"])
    index = range(1, n + 1)
    pos = ctx.to_np(ns["com_gpu"](ns["data_gpu"], ns["labelled_image_gpu"], cp.arange(1, n + 1)))
    np.testing.assert_allclose(pos, np.array(ndimage.center_of_mass(ns["data"], labels, index)), rtol=1e-5, atol=1e-3)
    flux = ctx.to_np(ns["sl_gpu"](ns["data_gpu"], ns["labelled_image_gpu"], cp.arange(1, n + 1)))
    np.testing.assert_allclose(flux, ndimage.sum_labels(ns["data"], labels, index), rtol=1e-4, atol=1e-4)


def _stats_line(space: str = "") -> str:
    return rf"\Amean = {E3}, median = {E3}, sttdev = {E3},{space}maximum = {E3}\n\Z"


def _source_count(out: str) -> int:
    m = re.search(r"level is (\d+)", out)
    assert m, f"no source count in {out!r}"
    return int(m.group(1))


def _same_count_as_cpu(anchor: Anchor) -> Callable[[str, str, Ctx], None]:
    def test(out: str, src: str, ctx: Ctx) -> None:
        cpu = [o for n, o in ctx.outputs.items() if ctx.sources[n].startswith(anchor.prefix)]
        assert cpu, "the CPU labelling cell printed nothing"
        assert _source_count(out) == _source_count(cpu[0]), (out, cpu[0])

    return test


def _unique_labels(ns: dict, ctx: Ctx) -> None:
    from scipy import ndimage

    n = ndimage.label(ns["segmented_image"])[1]
    np.testing.assert_array_equal(np.unique(ns["labelled_image"]), np.arange(n + 1))


def _ten_draws(out: str, src: str, ctx: Ctx) -> None:
    rest = "\n".join(out.split("\n")[5:])
    values = [float(v) for v in re.findall(r"-?\d+\.\d*(?:e[+-]\d+)?", rest)]
    assert len(values) == 10 and rest.strip().startswith("[") and rest.strip().endswith("]"), rest


def _qr_blocks(out: str, src: str, ctx: Ctx) -> None:
    m = re.search(r"for size in \[([\d, ]+)\]", src)
    assert m, "no size list in the source"
    sizes = [int(s) for s in m.group(1).split(",")]
    blocks = re.findall(r"^Input Matrix size: (\d+) x (\d+) \n(\w+) \d+\.\d{6}\n(\w+) \d+\.\d{6}$", out, re.MULTILINE)
    got = [(int(a), int(b), x, y) for a, b, x, y in blocks]
    assert got == [(s, s, "numpy", ctx.modname) for s in sizes], out


def _orthonormal_q(ns: dict, ctx: Ctx) -> None:
    q = ctx.to_np(ns["Q"])
    np.testing.assert_allclose(q.T @ q, np.eye(q.shape[1]), atol=1e-10)


def _fuse_same(ns: dict, ctx: Ctx) -> None:
    cp = ctx.cp
    x, y = cp.arange(10), cp.arange(10)[::-1]
    want = (np.arange(10) - np.arange(10)[::-1]) ** 2
    np.testing.assert_array_equal(ctx.to_np(ns["fused_squared_diff"](x, y)), want)
    np.testing.assert_array_equal(ctx.to_np(ns["squared_diff"](x, y)), want)


def _pipeline_agrees(ns: dict, ctx: Ctx) -> None:
    cpu, dev = ns["CPU_output"], ns["GPU_output"]
    assert bool(ns["all_positions_agree"]) and bool(ns["all_fluxes_agree"])
    assert cpu[0].ndim == 2 and cpu[0].shape[1] == 2 and cpu[1].shape == (cpu[0].shape[0],), (
        cpu[0].shape,
        cpu[1].shape,
    )
    np.testing.assert_allclose(dev[0], cpu[0], rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(dev[1], cpu[1], rtol=1e-4, atol=1e-4)


def _primes(ns: dict, ctx: Ctx) -> None:
    flags = np.asarray(ns["check_prime_gpu"](ns["numbers"]))
    assert np.count_nonzero(flags) == 1229, np.count_nonzero(flags)  # the primes below 10 000


def _gaussian_pdf(ns: dict, ctx: Ctx) -> None:
    from scipy import stats

    x0 = ns["x"][0]
    np.testing.assert_allclose(ns["gaussian_pdf"](x0, 0.0, 1.0), stats.norm.pdf(x0), rtol=1e-5)


_CPU_LABEL_001 = Anchor("from scipy.ndimage import label\n")

# The clipped sigma of the synthetic image prints as the lesson's 0.0133 (see synthetic_sky).
_BACKGROUND = r"\Astandard deviation of background_noise = 0\.0133 Jy/beam\n\Z"

# Lessons 000 and 001 share their first half (convolution, clipping, segmentation) word for word.
_CONVOLUTION_AND_SEGMENTATION = [
    out_re("gpu_avg_time = np.average", rf"\A{F6} s\n\Z"),
    out_re(
        "np.allclose(convolved_image_using_GPU",
        r"\A(array\(True\)|True)\n\Z",
        what="shows True (the lesson: array(True))",
    ),
    out_re("def transfer_compute_transferback", rf"\A{F6} s\n\Z"),
    out_re("deltas_1d_gpu = cp.asarray", rf"\A{F6} s\n\Z", what="np.convolve on device arrays; prints the time"),
    out_re("mean_ = data.mean()", _stats_line()),
    out_re("# Flattening our 2D data", rf"\A{TIMEIT}Fastest CPU ks clipping time = {E3} ms\.\n\Z"),
    out_re("mean_ = data_clipped.mean()", _stats_line()),
    out_re("data_flat_gpu = cp.asarray(data_flat)", rf"\A{E3} ms\n\Z"),
    out_re("speedup_factor = fastest_ks_clipping_cpu", rf"\AThe speedup factor for ks clipping is: {E3}\n\Z"),
    out_re("stddev_gpu_ = np.std(data_gpu_clipped)", _BACKGROUND),
    out_re("threshold = 5 * stddev_", rf"\A{TIMEIT}Fastest CPU segmentation time = {E3} ms\.\n\Z"),
    out_re("data_gpu = cp.asarray(data)", rf"\A{E3} ms\n\nThe speedup factor for segmentation is: {E3}\n\Z"),
    ns_check("data is the synthetic image as a native 2048² float32 array", ("data",), _check_data),
    _is_device("deltas_gpu"),
    _is_device("convolved_image_using_GPU"),
    _allclose("convolved_image_using_GPU", "convolved_image_using_CPU", "convolve2d on the device equals SciPy's"),
    _same_clipping("data_gpu_clipped", "data_clipped"),
    _is_device("segmented_image_gpu"),
    _same_segmentation("segmented_image_gpu", "segmented_image"),
]

CHECKS: dict[str, list[Check]] = {
    "000": _CONVOLUTION_AND_SEGMENTATION,
    "001": [
        *_CONVOLUTION_AND_SEGMENTATION,
        out_re(
            _CPU_LABEL_001,
            rf"\AThe number of sources in the image at the 5{SIGMA} level is \d+\.\n{TIMEIT}"
            rf"Fastest CPU CCL time = {E3} ms\.\n\Z",
        ),
        out_re(
            'print(f"These are all the pixel values',
            r"\AThese are all the pixel values we can find in the labelled image: \[\s*0\.\s+1\.\s",
        ),
        out_re(
            "from cupyx.scipy.ndimage import label as label_gpu",
            rf"\AThe number of sources in the image at the 5{SIGMA} level is \d+\.\n"
            rf"Fastest CCL on the GPU is {E3} ms\n\nThe speedup factor for CCL is: {E3}\n\Z",
        ),
        out_pred(
            "from cupyx.scipy.ndimage import label as label_gpu",
            "the device finds as many sources as the CPU",
            _same_count_as_cpu(_CPU_LABEL_001),
        ),
        out_re(
            "from scipy.ndimage import center_of_mass, sum_labels",
            r"\AThese are the ten highest integrated fluxes of the sources in my image: \[[^\]]*\]\n\Z",
        ),
        out_re("timing_source_measurements_CPU = _", rf"\AFastest CPU set of source measurements = {E3} ms\.\n\Z"),
        out_re(
            "# Now on the GPU",
            rf"\AFastest source measurements on the GPU take  {E3} ms\n\n"
            rf"The speedup factor for source measurements is: {E3}\n\Z",
        ),
        ns_check(
            "np.unique(labelled_image) is 0..N, N from scipy.ndimage.label",
            ("labelled_image", "segmented_image"),
            _unique_labels,
        ),
        _labels_like_scipy("segmented_image_gpu", "labelled_image_gpu", "number_of_sources_in_image"),
        ns_check(
            "center_of_mass and sum_labels on the device equal SciPy's on the same labels",
            ("com_gpu", "sl_gpu", "data_gpu", "labelled_image_gpu", "number_of_sources_in_image", "data"),
            _measurements_like_scipy,
        ),
    ],
    "002": [
        out_re(
            "np.allclose(convolved_image_cpu, convolved_image_gpu)", r"\A(array\(True\)|True)\n\Z", what="shows True"
        ),
        out_re("from cupyx.profiler import benchmark\n", rf"\A{F6} s\n\Z"),
        out_re("diracs_1d_cpu = diracs.ravel()", r"\Aarray\(\[", what="shows NumPy's 1-d convolution"),
        out_re("def gpu_convolution_with_data_transfer", rf"\A{F6} s\n\Z"),
        out_re("mean_ = data.mean()", _stats_line(" ")),
        out_re("# Flattening our 2D data makes", rf"\A{TIMEIT}Fastest ks clipping time on CPU = {E3} ms\.\n\Z"),
        out_re(
            "clipped_mean_ = ",
            rf"\Amean of clipped = {E3}, median of clipped = {E3} \n"
            rf"standard deviation of clipped = {E3},maximum of clipped = {E3}\n\Z",
        ),
        out_re(
            "from scipy.ndimage import label as label_cpu",
            rf"\AThe number of sources in the image at the 5{SIGMA} level is \d+\n\Z",
        ),
        out_re(
            "from scipy.ndimage import center_of_mass as com_cpu",
            r"\AThese are the ten highest integrated fluxes of the sources in my \n image: \[[^\]]*\]\n\Z",
        ),
        out_re("import numpy as np\n\nresult", r"\A11\n0\n\Z", what="the kernel says 11 is prime, 12 is not"),
        out_re("diracs_1d_gpu = cp.asarray", rf"\A{F6} s\n\Z"),
        out_re(
            "def first_two_steps_for_both_CPU_and_GPU",
            rf"\AThe four steps of image processing for astronomy take {E3} ms\n on our CPU\.\n"
            rf"The four steps of image processing for astronomy take {E3} ms\n on our GPU\.\n"
            rf"This means that the overall speedup factor GPU vs CPU equals: {E3}\n\n"
            r"The CPU and GPU positions agree: True\n\nThe CPU and GPU fluxes agree: True\n\n\Z",
        ),
        out_re(
            "import numba as nb",
            r"\A\[(np\.int32\()?2\)?, (np\.int32\()?3\)?, (np\.int32\()?5\)?, "
            r"(np\.int32\()?7\)?, ",
            what="shows the primes 2, 3, 5, 7, ...",
        ),
        ns_check("data is the synthetic image as a native 2048² float32 array", ("data",), _check_data),
        _is_device("diracs_gpu"),
        _allclose("convolved_image_gpu", "convolved_image_cpu", "convolve2d on the device equals SciPy's"),
        ns_check(
            "the four steps give the same positions and fluxes on the CPU and the device "
            "(the lesson prints the positions' flag twice; both flags are checked)",
            ("CPU_output", "GPU_output", "all_positions_agree", "all_fluxes_agree"),
            _pipeline_agrees,
        ),
        ns_check("check_prime_gpu finds the 1229 primes below 10 000", ("check_prime_gpu", "numbers"), _primes),
    ],
    "003": [
        out_lesson("ary = cp.arange(10)"),
        out_lesson("ary.device", device="gpu"),
        out_re("ary.device", r"\A\S.*\n\Z", what="shows the array's device", device="cpu"),
        out_lesson("ary_cpu = np.arange(10)", device="gpu"),
        out_lesson("ary_cpu = np.arange(10)", lines=(0, 2), device="cpu"),
        out_lesson("ary_cpu_returned = cp.asnumpy"),
        out_lesson("print(ary_gpu * 2)", lines=(0, 5)),
        out_pred("print(ary_gpu * 2)", "then ten normal(5, 2) draws", _ten_draws),
        out_lesson("a = np.array([1, 2, 3, 4])"),
        out_re("# Evaluate the Gaussian", r"\Aarray\(\[\d\.\d+\], dtype=float32\)\n\Z"),
        out_re("polar_distance(rho1", r"\Aarray\(\[[\s\S]*\],( shape=\(1000000,\),)? dtype=float32\)\n\Z"),
        _is_device("ary_gpu"),
        ns_check("gaussian_pdf(x[0]) equals scipy.stats.norm.pdf", ("gaussian_pdf", "x"), _gaussian_pdf),
    ],
    "004": [
        out_lesson("A_cpu = np.array([[1, 2, 3]"),
        out_lesson("A_gpu = cp.asarray(A_cpu)"),
        out_lesson("A_cpu = cp.asnumpy(A_gpu)"),
        out_lesson("# TODO: Fix the code"),
        out_re("from time import perf_counter", r"\AElapsed wall clock time for NumPy = \S+ seconds\.\n\Z"),
        out_re("A_gpu = cp.random.uniform", r"\AElapsed wall clock time for CuPy = \S+ seconds\.\n\Z"),
        out_re("size = 512\n\nfor _ in range(5)", r"\A(\d+\.\d{4}\n){5}\Z"),
        out_pred("for size in [64", "one block per size: numpy's time, then the array module's", _qr_blocks),
        out_re(
            "size = 10000",
            r"^squared_diff\s*:\s+CPU:\s*\d+\.\d{3} us",
            r"^fused_squared_diff\s*:\s+CPU:\s*\d+\.\d{3} us",
            what="prints both benchmark results in CuPy's format",
        ),
        out_re(
            Anchor("size = int(1e8)", "A_gpu=cp.random.rand"),
            rf"\A(Iteration  \d\nNumPy = {G} seconds\nCuPy = {G} seconds\nSpeedup = \d+\.\d\d\n){{3}}\Z",
        ),
        out_re(
            Anchor("size = int(1e8)", "# TODO: Insert CuPy code here"),
            rf"\A(Iteration  \d\nNumPy = {G} seconds\nCuPy = {G} seconds\nSpeedup = \d+\.\d\d\n){{3}}\Z",
        ),
        out_re(
            Anchor("size = int(1e8)", "print('')"),
            rf"\A(Iteration  \d\ncupy = {G} seconds\nSpeedup = \d+\.\d\d\n\n){{3}}\Z",
        ),
        out_re("cp.cuda.get_current_stream()", r"(?i)stream", what="shows a stream"),
        out_re("size = 6000", r"\ABaseline implementation time: \d+\.\d{4} seconds\n\Z"),
        out_re("start_time = perf_counter()\n\nstream1", r"\AStream and event time: \d+\.\d{4} seconds\n\Z"),
        ns_check("Q of cp.linalg.qr has orthonormal columns", ("Q",), _orthonormal_q),
        ns_check("@cp.fuse gives the plain function's values", ("fused_squared_diff", "squared_diff"), _fuse_same),
    ],
}


# ---------------------------------------------------------------------------------------------
# Extraction
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Cell:
    lesson: str
    number: int  # 1-based, in the lesson's file order
    line: int  # 1-based line of the cell's first code line
    fmt: str  # "~~~", "```python", "```", "In [N]"
    source: str  # as the lesson writes it (blockquote markers removed)
    expected: str | None = None  # the lesson's output block, if any
    # Filled by classify():
    code: str = ""  # Python after the IPython handling (magics gone), before the renames
    timed_cell: bool = False  # a %%timeit -o cell: run the body once, show the timing
    skip: str = ""  # "shell/magic", "download", "IPython kernel restart": never runs
    needs: str = ""  # "", "numba", "numba.cuda"
    needs_via: str = ""  # the numba cell a dependent cell uses
    plotting: bool = False
    expect: ExpectedError | None = None
    notes: list[str] = dataclasses.field(default_factory=list)
    stores: set[str] = dataclasses.field(default_factory=set)
    loads: set[str] = dataclasses.field(default_factory=set)

    @property
    def label(self) -> str:
        if self.skip:
            return self.skip
        if self.needs:
            return "numba-gpu" if self.needs == "numba.cuda" else "numba-cpu"
        if self.expect:
            return "expected-error"
        return "plotting" if self.plotting else "code"


BQ = r"(?P<prefix>(?:[ \t]*>)*[ \t]*)"
TILDE = re.compile(rf"^{BQ}~~~\s*$")
IAL = re.compile(r"^\{:\s*\.(?P<cls>[\w-]+)")
FENCE = re.compile(rf"^{BQ}```(?P<info>[^`\s]*)\s*$")
IN_MARK = re.compile(r"^In \[(?P<n>[^\]]*)\]:\s*$")
PY_INFOS = {"python", "python=", "py", "python3", "ipython", "ipython3"}


def _unquote(line: str, prefix: str) -> str:
    """`line` without the blockquote prefix (`> > `) of the block it belongs to."""
    if line.startswith(prefix):
        return line[len(prefix) :]
    bare = prefix.rstrip()
    return line[len(bare) :].lstrip(" ") if line.startswith(bare) else line


def _paragraphs(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) of each run of non-blank lines."""
    out, start = [], None
    for i, line in enumerate(lines + [""]):
        if line.strip() and start is None:
            start = i
        elif not line.strip() and start is not None:
            out.append((start, i))
            start = None
    return out


def _python_only(src: str) -> str:
    """`src` with IPython's magic and shell lines replaced by `pass`, for parsing."""
    return "\n".join(
        re.sub(r"^(\s*)[%!].*$", r"\1pass", re.sub(r"=\s*%timeit.*$", "= None", line)) for line in src.split("\n")
    )


def _parses(src: str) -> bool:
    try:
        ast.parse(_python_only(src))
    except SyntaxError:
        return False
    return True


def _is_output_like(text: str) -> bool:
    """Text that parses as Python but is a printed value: numbers, bare names, `array(...)`."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False

    def trivial(node: ast.AST) -> bool:
        if isinstance(node, ast.UnaryOp):
            return trivial(node.operand)
        if isinstance(node, ast.Call):
            return isinstance(node.func, ast.Name) and node.func.id == "array"
        return isinstance(node, (ast.Constant, ast.Name))

    return all(isinstance(s, ast.Expr) and trivial(s.value) for s in tree.body)


def _split_code(lines: list[str]) -> tuple[list[str], list[str]]:
    """Split a Jupyter `In [N]:` body (or an unclosed fence) into the code and what follows:
    paragraphs are code while they are indented (a block going on after a blank line) or keep
    the cell parseable without being a printed value; the first other paragraph ends it."""
    paras = _paragraphs(lines)
    if not paras:
        return [], lines
    first, end = paras[0][0], paras[0][1]
    for start, stop in paras[1:]:
        para = lines[start:stop]
        if para[0][:1] in (" ", "\t"):
            end = stop
            continue
        text = "\n".join(para)
        if _is_output_like(text) or not _parses("\n".join(lines[first:stop])):
            break
        end = stop
    return lines[first:end], lines[end:]


def _is_prose(para: list[str]) -> bool:
    first = para[0]
    if re.match(r"^\s*(#|---|\*\*|<|\||!\[|>)", first):
        return True
    # A sentence: a capitalised first word (not `A_cpu`, not `NameError:`), seven words or more.
    return bool(re.match(r"^[A-Z][A-Za-z'-]*,?\s", first)) and len(first.split()) >= 7 and "=" not in first


def _take_output(lines: list[str]) -> str | None:
    """The printed output after a Jupyter cell: its paragraphs up to the first prose one."""
    out: list[str] = []
    for start, stop in _paragraphs(lines):
        para = lines[start:stop]
        if _is_prose(para):
            break
        if out:
            out.append("")
        out.extend(para)
    return "\n".join(out) if out else None


def _indented_output(lines: list[str], i: int) -> tuple[str | None, int]:
    """An nbconvert-style output after a fence: a block indented by 4 spaces, from line i."""
    j = i
    while j < len(lines) and not lines[j].strip():
        j += 1
    if j >= len(lines) or not lines[j].startswith("    "):
        return None, i
    k = j
    while k < len(lines) and (not lines[k].strip() or lines[k].startswith("    ")):
        k += 1
    block = [line[4:] for line in lines[j:k]]
    while block and not block[-1].strip():
        block.pop()
    return "\n".join(block), k


def extract_cells(lesson: str, text: str) -> list[Cell]:
    """Every code cell of a lesson, in file order, with the output block that follows it."""
    lines = text.split("\n")
    cells: list[Cell] = []
    taken = False  # whether the last cell already has its output

    def add(fmt: str, line: int, body: list[str]) -> None:
        nonlocal taken
        while body and not body[-1].strip():
            body = body[:-1]
        cells.append(Cell(lesson, len(cells) + 1, line, fmt, "\n".join(body)))
        taken = False

    i = 0
    while i < len(lines):
        line = lines[i]
        if m := TILDE.match(line):
            prefix = m["prefix"]
            j = i + 1
            while j < len(lines) and _unquote(lines[j], prefix).strip() != "~~~":
                j += 1
            body = [_unquote(x, prefix) for x in lines[i + 1 : j]]
            attr = IAL.match(_unquote(lines[j + 1], prefix).strip()) if j + 1 < len(lines) else None
            kind = attr["cls"] if attr else ""
            if kind == "language-python":
                add("~~~", i + 2, body)
            elif kind == "output" and cells and not taken:
                cells[-1].expected = "\n".join(body)
                taken = True
            i = j + 2 if attr else j + 1
            continue
        if m := FENCE.match(line):
            prefix, info = m["prefix"], m["info"].lower()
            j, closed = i + 1, False
            while j < len(lines):
                inner = _unquote(lines[j], prefix)
                if inner.strip() == "```":
                    closed = True
                    break
                # A fence left open (lesson 004's <details> solutions) ends where the next cell starts.
                if IN_MARK.match(inner) or (FENCE.match(lines[j]) and FENCE.match(lines[j])["info"]):
                    break
                j += 1
            body = [_unquote(x, prefix) for x in lines[i + 1 : j]]
            if not closed:
                body, _ = _split_code(body)
            is_code = info in PY_INFOS or (
                info == ""
                and body
                and (all(x.lstrip().startswith(("!", "%")) for x in body if x.strip()) or _parses("\n".join(body)))
            )
            if is_code:
                add("```" + ("python" if info in PY_INFOS else ""), i + 2, body)
            i = j + 1 if closed else j
            if is_code and closed:
                out, k = _indented_output(lines, i)
                if out is not None:
                    cells[-1].expected, taken, i = out, True, k
            continue
        if m := IN_MARK.match(line):
            j = i + 1
            while j < len(lines) and not IN_MARK.match(lines[j]) and not FENCE.match(lines[j]):
                j += 1
            body = lines[i + 1 : j]
            code, rest = _split_code(body)
            offset = next((k for k, x in enumerate(body) if x.strip()), 0)
            add(f"In [{m['n']}]", i + 2 + offset, code)
            cells[-1].expected, taken = _take_output(rest), True
            i = j
            continue
        i += 1
    return cells


# ---------------------------------------------------------------------------------------------
# Classification: IPython handling, numba, plotting, expected errors
# ---------------------------------------------------------------------------------------------

TIMEIT_OPTS = re.compile(r"^((?:-[nrp]\s*\d+\s+|-[oqtc]\s+)*)(.*)$")
PLOT_MODULES = ("matplotlib", "pylab")
TIMEIT_FN = "__lessons_timeit__"


def _handle_ipython(cell: Cell) -> None:
    """Fill cell.code from cell.source: IPython lines dropped or turned into Python."""
    src = cell.source
    lines = src.split("\n")
    first = next((x.strip() for x in lines if x.strip()), "")
    if first.startswith("%%"):
        magic = first.split()[0]
        body = "\n".join(lines[[x.strip() for x in lines].index(first) + 1 :])
        if magic == "%%timeit" and "-o" in first.split():
            cell.code, cell.timed_cell = body, True
            cell.notes.append("%%timeit -o: the body runs once, timed; the result is shown and kept in _")
        else:
            cell.skip = "shell/magic"
            cell.notes.append(f"cell magic {magic}")
        return
    if re.search(r"^\s*(import IPython|from IPython)", src, re.MULTILINE) and "do_shutdown" in src:
        cell.skip = "IPython kernel restart"
        return
    out = []
    for line in lines:
        s = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        drop = indent + ("pass  " if indent else "") + "# [lessons] dropped: " + s
        if s.startswith("!"):
            if FITS_NAME in s:
                cell.notes.append(f"download: {s} (a synthetic {FITS_NAME} is written instead)")
                cell.skip = "download"
            else:
                cell.notes.append(f"shell: {s}")
            out.append(drop)
        elif s.startswith("%"):
            cell.notes.append(f"dropped: {s}")
            out.append(drop)
        elif m := re.match(r"^(\s*)([\w.\[\]]+)\s*=\s*%timeit\s+(.*)$", line):
            stmt = TIMEIT_OPTS.match(m.group(3)).group(2)
            cell.notes.append(f"{m.group(2)} = %timeit -o ...: the statement runs once, timed")
            out.append(f"{m.group(1)}{m.group(2)} = {TIMEIT_FN}({stmt!r})")
        else:
            out.append(line)
    cell.code = "\n".join(out)
    if not cell.skip and not _has_statements(cell.code):
        cell.skip = "shell/magic"


def _has_statements(src: str) -> bool:
    try:
        return bool(ast.parse(src).body)
    except SyntaxError:
        return True  # let it run and fail visibly


class _Names(ast.NodeVisitor):
    """Free names a cell reads (before binding them) and names it binds at top level."""

    def __init__(self) -> None:
        self.loads: set[str] = set()
        self.stores: set[str] = set()
        self.imports: set[str] = set()
        self._scopes: list[set[str]] = []

    def _bound(self, name: str) -> bool:
        return any(name in s for s in self._scopes) or (not self._scopes and name in self.stores)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            if not self._bound(node.id):
                self.loads.add(node.id)
        elif self._scopes:
            self._scopes[-1].add(node.id)
        else:
            self.stores.add(node.id)

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        module = getattr(node, "module", None)
        for alias in node.names:
            self.imports.add(module or alias.name)
            bound = alias.asname or alias.name.split(".")[0]
            (self._scopes[-1] if self._scopes else self.stores).add(bound)

    visit_ImportFrom = visit_Import

    def _function(self, node: ast.AST, args: ast.arguments, body: list[ast.AST] | ast.AST) -> None:
        for d in getattr(node, "decorator_list", []):
            self.visit(d)
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.visit(default)
        names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
        names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
        # Locals assigned anywhere in the function count as bound from its start.
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                names.add(sub.id)
        self._scopes.append(names)
        for stmt in body if isinstance(body, list) else [body]:
            self.visit(stmt)
        self._scopes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        (self._scopes[-1] if self._scopes else self.stores).add(node.name)
        self._function(node, node.args, node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._function(node, node.args, node.body)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)  # the value is read before the targets are bound
        for t in node.targets:
            self.visit(t)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        if isinstance(node.target, ast.Name) and not self._bound(node.target.id):
            self.loads.add(node.target.id)
        self.visit(node.target)

    def _comprehension(self, node: ast.AST) -> None:
        names = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        self.visit(node.generators[0].iter)
        self._scopes.append(names)
        for g in node.generators:
            for cond in g.ifs:
                self.visit(cond)
        for field in ("elt", "key", "value"):
            if hasattr(node, field):
                self.visit(getattr(node, field))
        self._scopes.pop()

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension


def _names(src: str) -> _Names:
    v = _Names()
    try:
        v.visit(ast.parse(src))
    except SyntaxError:
        pass
    return v


def run_order(lesson: str, text: str, cells: list[Cell]) -> list[Cell]:
    """The order the cells run in: file order, except RUN_AFTER_NOTES."""
    heading = RUN_AFTER_NOTES.get(lesson)
    if not heading:
        return list(cells)
    line = next(i + 1 for i, x in enumerate(text.split("\n")) if heading in x)
    return [c for c in cells if c.line > line] + [c for c in cells if c.line < line]


def find_cell(cells: list[Cell], anchor: str | Anchor, what: str) -> Cell:
    a = _anchor(anchor)
    found = [c for c in cells if c.source.lstrip().startswith(a.prefix) and a.contains in c.source]
    if len(found) != 1:
        where = ", ".join(f"cell {c.number}" for c in found) or "no cell"
        raise LookupError(f"lesson {cells[0].lesson}: {what} anchor {str(a)!r} matches {where}")
    return found[0]


def classify(lesson: str, text: str, cells: list[Cell]) -> list[Cell]:
    """Classify the cells in run order; returns them in that order."""
    for c in cells:
        _handle_ipython(c)
    for e in EXPECTED_ERRORS.get(lesson, []):
        cell = find_cell(cells, e.anchor, "expected error")
        cell.expect = e
    order = run_order(lesson, text, cells)
    # Which requirement a name's binding carries: a name bound by a numba cell (and by no plain
    # cell before it) exists only when that cell runs, so a cell reading it needs numba too.
    binder: dict[str, tuple[str, int]] = {}
    plots = plot_names(order)
    rank = {"": 0, "numba": 1, "numba.cuda": 2}
    for c in order:
        if c.skip:
            continue
        names = _names(c.code)
        if any(m.split(".")[0] == "numba" for m in names.imports):
            c.needs = "numba.cuda" if re.search(r"\bcuda\b", c.code) else "numba"
        for name in sorted(names.loads):
            need, number = binder.get(name, ("", 0))
            if rank[need] > rank[c.needs]:
                c.needs, c.needs_via = need, f"{name} from cell {number}"
        c.plotting = any(m.split(".")[0] in PLOT_MODULES for m in names.imports) or bool(names.loads & plots)
        c.stores, c.loads = names.stores, names.loads
        for name in names.stores:
            if not (c.needs and binder.get(name, ("x",))[0] == ""):
                binder[name] = (c.needs, c.number)
    return order


def plot_names(order: list[Cell]) -> set[str]:
    names = {"plt", "pyl", "pylab"}
    for c in order:
        for m in re.finditer(r"^\s*import (matplotlib\S*|pylab) as (\w+)", c.code, re.MULTILINE):
            names.add(m.group(2))
        for m in re.finditer(r"^\s*from (?:matplotlib\S*|pylab) import (.+)$", c.code, re.MULTILINE):
            names |= {part.split(" as ")[-1].strip() for part in m.group(1).split(",")}
    return names


# ---------------------------------------------------------------------------------------------
# Source rewriting: module names, compatibility, sizes
# ---------------------------------------------------------------------------------------------


def rename_modules(src: str) -> str:
    """`cupy` -> `cuprum` and `cupyx` -> `cuprumx` where they are identifiers (imports and
    `cupy.x` references; an attribute named cupy, strings and comments are left alone)."""
    new = {"cupy": "cuprum", "cupyx": "cuprumx"}
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return re.sub(r"(?<![.\w'\"])cupy(x?)\b", r"cuprum\1", src)
    lines = src.split("\n")
    prev = None
    edits = []
    for t in toks:
        if t.type == tokenize.NAME and t.string in new and not (prev and prev.string == "."):
            edits.append(t)
        if t.type not in (tokenize.NL, tokenize.COMMENT):
            prev = t
    for t in reversed(edits):
        row, col = t.start[0] - 1, t.start[1]
        lines[row] = lines[row][:col] + new[t.string] + lines[row][col + len(t.string) :]
    return "\n".join(lines)


def final_source(cell: Cell, on_cpu: bool) -> tuple[str, list[str]]:
    """The Python that runs, and what was changed beyond IPython (for --list and reports)."""
    src = rename_modules(cell.code)
    changes = []
    for c in COMPAT:
        if cell.lesson in c.lessons and c.old in src and c.needed():
            src = src.replace(c.old, c.new)
            changes.append(f"compat: {c.old} -> {c.new} ({c.why})")
    if on_cpu:
        for s in CPU_SIZES:
            if s.lesson == cell.lesson and s.old in src:
                src = src.replace(s.old, s.new)
                changes.append(f"cpu size: {s.old} -> {s.new} ({s.why})")
    return src, changes


def validate_tables(lesson: str, cells: list[Cell]) -> None:
    """Every table entry for `lesson` must name exactly the cells it means."""
    for s in CPU_SIZES:
        if s.lesson == lesson and not any(s.old in rename_modules(c.code) for c in cells):
            raise LookupError(f"lesson {lesson}: CPU_SIZES text {s.old!r} is in no cell")
    for chk in CHECKS.get(lesson, []):
        if chk.anchor is not None:
            find_cell(cells, chk.anchor, "check")


# ---------------------------------------------------------------------------------------------
# The environment: the FITS image, plotting, astropy, the stand-ins
# ---------------------------------------------------------------------------------------------


def synthetic_sky(n: int = 2048, sources: int = 300, seed: int = 20241203) -> np.ndarray:
    """A radio image like the lesson's: Gaussian noise, whose 3-sigma-clipped standard deviation
    comes out as the lesson's 0.0133 Jy/beam (0.0135 before clipping), a few hundred Gaussian
    point sources (peak 0.03-2 Jy/beam, log-uniform, so some stay below 5 sigma; widths 1-3
    pixels) and a bright extended source at the centre (the Galactic Center, 2.5 Jy/beam)."""
    rng = np.random.default_rng(seed)
    img = rng.normal(0.0, 0.0135, size=(n, n)).astype(np.float32)
    ys, xs = rng.uniform(16, n - 16, size=(2, sources))
    peaks = 10 ** rng.uniform(math.log10(0.03), math.log10(2.0), size=sources)
    widths = rng.uniform(1.0, 3.0, size=sources)
    params = list(zip(ys, xs, peaks, widths, strict=True)) + [(n / 2 + 0.3, n / 2 - 0.6, 2.5, 6.0)]
    for y, x, peak, w in params:
        r = math.ceil(5 * w)
        y0, x0 = int(y) - r, int(x) - r
        yy, xx = np.mgrid[y0 : y0 + 2 * r + 1, x0 : x0 + 2 * r + 1]
        blob = peak * np.exp(-((yy - y) ** 2 + (xx - x) ** 2) / (2 * w * w))
        img[y0 : y0 + 2 * r + 1, x0 : x0 + 2 * r + 1] += blob.astype(np.float32)
    return img


def _card(key: str, value: Any) -> str:
    if isinstance(value, bool):
        text = f"{key:<8}= {'T' if value else 'F':>20}"
    elif isinstance(value, int):
        text = f"{key:<8}= {value:>20}"
    else:
        text = f"{key:<8}= '{value:<8}'"
    return text.ljust(80)


def write_fits_primary(path: Path, data: np.ndarray) -> None:
    """A minimal FITS file: one primary HDU, BITPIX=-32, big-endian, 2880-byte blocks."""
    h, w = data.shape
    header = "".join(
        _card(k, v)
        for k, v in [
            ("SIMPLE", True),
            ("BITPIX", -32),
            ("NAXIS", 2),
            ("NAXIS1", w),
            ("NAXIS2", h),
            ("BUNIT", "JY/BEAM"),
        ]
    )
    header += "END".ljust(80)
    header = header.ljust(-(-len(header) // 2880) * 2880)
    payload = data.astype(">f4").tobytes()
    payload += b"\0" * (-len(payload) % 2880)
    path.write_bytes(header.encode("ascii") + payload)


FITS_DTYPES = {8: "u1", 16: ">i2", 32: ">i4", 64: ">i8", -32: ">f4", -64: ">f8"}


def read_fits_primary(path: Path) -> np.ndarray:
    """The primary HDU's data of a FITS file (as written above or by astropy), big-endian."""
    return _read_fits(path)[1]


def _read_fits(path: Path) -> tuple[dict, np.ndarray]:
    raw = Path(path).read_bytes()
    header: dict[str, Any] = {}
    pos = 0
    while True:
        block = raw[pos : pos + 2880].decode("ascii")
        pos += 2880
        cards = [block[i : i + 80] for i in range(0, 2880, 80)]
        for card in cards:
            key = card[:8].strip()
            if key == "END":
                break
            if card[8:10] == "= ":
                value = card[10:].split("/")[0].strip()
                header[key] = (
                    value.strip("'").strip()
                    if value.startswith("'")
                    else (
                        value == "T"
                        if value in ("T", "F")
                        else (int(value) if re.fullmatch(r"-?\d+", value) else value)
                    )
                )
        else:
            continue
        break
    shape = tuple(int(header[f"NAXIS{i}"]) for i in range(int(header["NAXIS"]), 0, -1))
    dtype = np.dtype(FITS_DTYPES[int(header["BITPIX"])])
    count = math.prod(shape)
    data = np.frombuffer(raw, dtype=dtype, count=count, offset=pos).reshape(shape).copy()
    return header, data


def _fits_shim() -> dict[str, types.ModuleType]:
    """`astropy.io.fits` with just what the lessons use: open() as a context manager giving a
    list of HDUs with .data (NumPy, big-endian as astropy gives it) and .header."""

    class HDU:
        def __init__(self, header: dict, data: np.ndarray) -> None:
            self.header, self.data = header, data

    class HDUList(list):
        def __enter__(self) -> Self:
            return self

        def __exit__(self, *exc: object) -> None:
            self.close()

        def close(self) -> None:
            pass

    def fits_open(name: str | os.PathLike, mode: str = "readonly", **kwargs: Any) -> HDUList:
        return HDUList([HDU(*_read_fits(Path(name)))])

    astropy = types.ModuleType("astropy")
    io_ = types.ModuleType("astropy.io")
    fits = types.ModuleType("astropy.io.fits")
    fits.open = fits_open
    fits.HDUList, fits.PrimaryHDU = HDUList, HDU
    astropy.__path__, io_.__path__ = [], []
    astropy.io, io_.fits = io_, fits
    return {"astropy": astropy, "astropy.io": io_, "astropy.io.fits": fits}


class _Anything:
    """What the matplotlib stub returns: accepts any attribute, call, index, `with` and
    unpacking into two (`fig, ax = plt.subplots()`)."""

    def __init__(self, name: str = "matplotlib") -> None:
        self._name = name

    def __getattr__(self, name: str) -> _Anything:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything(f"{self._name}.{name}")

    def __call__(self, *args: object, **kwargs: object) -> _Anything:
        return _Anything(f"{self._name}()")

    def __getitem__(self, key: object) -> _Anything:
        return _Anything(f"{self._name}[]")

    def __iter__(self) -> Iterator[_Anything]:
        return iter((_Anything(f"{self._name}[0]"), _Anything(f"{self._name}[1]")))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def __repr__(self) -> str:
        return f"<stub {self._name}>"


class _StubModule(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything(f"{self.__name__}.{name}")


def _matplotlib_stub() -> dict[str, types.ModuleType]:
    mods = {
        name: _StubModule(name)
        for name in ("matplotlib", "matplotlib.pyplot", "matplotlib.colors", "matplotlib.cm", "pylab")
    }
    mods["matplotlib"].__path__ = []
    for name in ("pyplot", "colors", "cm"):
        setattr(mods["matplotlib"], name, mods[f"matplotlib.{name}"])
    return mods


def setup_plotting_and_fits(force_shims: bool) -> tuple[str, str]:
    """Agg or the stub for plotting, astropy or the shim for FITS; says which."""
    if not force_shims and importlib.util.find_spec("matplotlib") is not None:
        os.environ["MPLBACKEND"] = "Agg"
        plotting = "matplotlib (Agg)"
    else:
        sys.modules.update(_matplotlib_stub())
        plotting = "matplotlib stub"
    if not force_shims and importlib.util.find_spec("astropy") is not None:
        fits = "astropy"
    else:
        sys.modules.update(_fits_shim())
        fits = "FITS shim"
    return plotting, fits


def write_fits_image(path: Path, use_astropy: bool) -> None:
    data = synthetic_sky()
    if use_astropy:
        from astropy.io import fits

        hdu = fits.PrimaryHDU(data)
        hdu.header["BUNIT"] = "JY/BEAM"
        hdu.writeto(path, overwrite=True)
    else:
        write_fits_primary(path, data)


# The NumPy stand-in for cuprum (--module numpy): only to run this script end to end where
# cuprum is not built. "Device" arrays are a NumPy subclass, so that type(), the cuprumx
# wrappers (which refuse plain NumPy arrays, as CuPy's do) and NEP-18 dispatch behave.
STANDIN = {
    "cuprum/__init__.py": '''
"""NumPy stand-in for cuprum (run_lessons.py --module numpy)."""
import numpy as _np

__lessons_standin__ = True


class ndarray(_np.ndarray):
    __module__ = "cuprum"

    def __repr__(self):
        return repr(self.view(_np.ndarray))

    def __str__(self):
        return str(self.view(_np.ndarray))

    def get(self):
        return _np.array(self.view(_np.ndarray))

    @property
    def device(self):
        return cuda.Device(0)

    def __array_function__(self, func, types, args, kwargs):
        return _wrap(func(*_unwrap(args), **_unwrap(kwargs)))


def _wrap(x):
    if type(x) is _np.ndarray:
        return x.view(ndarray)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*map(_wrap, x))
    return type(x)(map(_wrap, x)) if isinstance(x, (tuple, list)) else x


def _unwrap(x):
    if isinstance(x, ndarray):
        return x.view(_np.ndarray)
    if isinstance(x, dict):
        return {k: _unwrap(v) for k, v in x.items()}
    return type(x)(map(_unwrap, x)) if isinstance(x, (tuple, list)) else x


def _namespace(mod, device_only=False):
    """A module __getattr__: mod's functions on unwrapped arguments, results wrapped."""
    def __getattr__(name):
        obj = getattr(mod, name)
        if not callable(obj) or isinstance(obj, type):
            return obj
        def f(*args, **kwargs):
            if device_only:
                for a in list(args) + list(kwargs.values()):
                    if type(a) is _np.ndarray:
                        raise TypeError(f"Unsupported type {type(a)}")
            return _wrap(obj(*_unwrap(args), **_unwrap(kwargs)))
        f.__name__ = name
        return f
    return __getattr__


__getattr__ = _namespace(_np)


def asarray(a, dtype=None):
    return a.astype(dtype) if isinstance(a, ndarray) and dtype else (
        a if isinstance(a, ndarray) else _np.array(_unwrap(a), dtype=dtype).view(ndarray))


def asnumpy(a):
    return _np.array(_unwrap(a))


def get_array_module(*args):
    import sys
    return sys.modules[__name__] if any(isinstance(a, ndarray) for a in args) else _np


def fuse(*args, **kwargs):
    return args[0] if args and callable(args[0]) else (lambda f: f)


from . import cuda, fft, linalg, random  # noqa: E402
''',
    "cuprum/linalg.py": "import numpy\nfrom . import _namespace\n__getattr__ = _namespace(numpy.linalg)\n",
    "cuprum/random.py": "import numpy\nfrom . import _namespace\n__getattr__ = _namespace(numpy.random)\n",
    "cuprum/fft.py": "import numpy\nfrom . import _namespace\n__getattr__ = _namespace(numpy.fft)\n",
    "cuprum/cuda.py": """
def is_available():
    return False


class Device:
    def __init__(self, id=0):
        self.id = id

    def synchronize(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def __repr__(self):
        return f"<CPU Device {self.id} (numpy stand-in)>"


class Stream:
    null = None

    def __init__(self, non_blocking=False):
        pass

    def synchronize(self):
        pass

    def __enter__(self):
        _current.append(self)
        return self

    def __exit__(self, *exc):
        _current.pop()

    def __repr__(self):
        return "<Stream (numpy stand-in)>"


Stream.null = Stream()
_current = [Stream.null]


def get_current_stream():
    return _current[-1]


class Event:
    done = True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass
""",
    "cuprumx/__init__.py": "from . import profiler, scipy  # noqa: F401\n",
    "cuprumx/scipy/__init__.py": "from . import ndimage, signal  # noqa: F401\n",
    "cuprumx/scipy/signal.py": "import scipy.signal\nfrom cuprum import _namespace\n"
    "__getattr__ = _namespace(scipy.signal, device_only=True)\n",
    "cuprumx/scipy/ndimage.py": "import scipy.ndimage\nfrom cuprum import _namespace\n"
    "__getattr__ = _namespace(scipy.ndimage, device_only=True)\n",
    "cuprumx/profiler.py": """
import math
import time

import numpy as np


class _PerfCaseResult:
    def __init__(self, name, times):
        self.name = name
        self.cpu_times = np.asarray(times)
        self.gpu_times = self.cpu_times[None, :].copy()

    def __str__(self):
        t = self.cpu_times * 1e6
        s = f"    CPU: {t.mean():9.03f} us"
        if t.size > 1:
            s += f"   +/- {t.std():6.03f} (min: {t.min():9.03f} / max: {t.max():9.03f}) us"
        return f"{self.name:<20s}:{s}"

    __repr__ = __str__


def benchmark(func, args=(), kwargs={}, n_repeat=10000, *, name=None, n_warmup=10, max_duration=math.inf,
              devices=None):
    for _ in range(n_warmup):
        func(*args, **kwargs)
    times, start = [], time.perf_counter()
    for _ in range(n_repeat):
        t0 = time.perf_counter()
        func(*args, **kwargs)
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - start > max_duration:
            break
    return _PerfCaseResult(name or func.__name__, times)
""",
}


def write_standin(directory: Path) -> None:
    for rel, text in STANDIN.items():
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"))


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`cuprum*` and `cuprumx*` imported as `cupy*` and `cupyx*` (--module cupy: the runner
    against the reference implementation)."""

    ALIASES: ClassVar[dict[str, str]] = {"cuprum": "cupy", "cuprumx": "cupyx"}

    def find_spec(self, fullname: str, path: object, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname.split(".")[0] in self.ALIASES:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        head, _, tail = spec.name.partition(".")
        return importlib.import_module(self.ALIASES[head] + ("." + tail if tail else ""))

    def exec_module(self, module: types.ModuleType) -> None:
        pass


# ---------------------------------------------------------------------------------------------
# Running a lesson
# ---------------------------------------------------------------------------------------------


class TimeitResult:
    """What `%timeit -o` gives, for one timed run (IPython's TimeitResult's attributes)."""

    def __init__(self, seconds: float) -> None:
        self.loops, self.repeat = 1, 1
        self.all_runs = [seconds]
        self.timings = [seconds]
        self.best = self.worst = self.average = seconds
        self.stdev = 0.0
        self.compile_time = 0.0

    def __str__(self) -> str:
        t = self.average
        unit, scale = next(
            (u, s) for u, s in (("s", 1), ("ms", 1e3), ("µs", 1e6), ("ns", 1e9)) if t * s >= 1 or u == "ns"
        )
        return f"{t * scale:.3g} {unit} ± 0 ns per loop (mean ± std. dev. of 1 run, 1 loop each)"

    def __repr__(self) -> str:
        return f"<TimeitResult : {self}>"


def _timed(src: str, ns: dict, filename: str) -> TimeitResult:
    """Run `src` once as the body of a function (as timeit does: its assignments stay local)."""
    body = textwrap.indent(src, "    ") or "    pass"
    code = f"def __lessons_timed__():\n{body}\n    pass\n"
    _register(filename, code)
    local: dict[str, Any] = {}
    exec(compile(code, filename, "exec"), ns, local)  # noqa: S102 - running the lessons is the point
    t0 = time.perf_counter()
    local["__lessons_timed__"]()
    return TimeitResult(time.perf_counter() - t0)


def _register(filename: str, src: str) -> None:
    """Make the cell's source visible to tracebacks."""
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)


def run_source(src: str, ns: dict, filename: str, timed_cell: bool) -> None:
    """Run a cell as IPython does: the last expression (without a trailing `;`) is shown and
    kept in `_`."""
    if timed_cell:
        result = _timed(src, ns, filename)
        print(repr(result))
        ns["_"] = result
        return
    _register(filename, src)
    tree = ast.parse(src, filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not src.rstrip().endswith(";"):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, filename, "exec"), ns)  # noqa: S102 - running the lessons is the point
    if last is not None:
        value = eval(compile(last, filename, "eval"), ns)
        if value is not None:
            print(repr(value))
            ns["_"] = value


def _short_traceback(exc: BaseException) -> str:
    tb = exc.__traceback__
    while tb is not None and not tb.tb_frame.f_code.co_filename.startswith("<lesson"):
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb or exc.__traceback__))


@dataclasses.dataclass
class CellResult:
    cell: Cell
    status: str  # "passed", "failed", "skipped"
    reason: str = ""
    stdout: str = ""
    stderr: str = ""
    error: str = ""
    seconds: float = 0.0


@dataclasses.dataclass
class CheckResult:
    check: Check
    status: str  # "passed", "failed", "skipped"
    detail: str = ""
    cell: int | None = None


@dataclasses.dataclass
class LessonResult:
    lesson: str
    cells: list[CellResult]
    checks: list[CheckResult]
    seconds: float
    plotting: str

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.cells)

    @property
    def ok(self) -> bool:
        return not any(r.status == "failed" for r in self.cells + self.checks)


@dataclasses.dataclass
class Env:
    cp: Any
    modname: str
    on_cpu: bool
    standin: bool
    numba: str  # "cuda", "cpu" (numba without a usable GPU), "" (no numba)
    numba_note: str  # why numba.cuda is not used, or what was patched for it
    plotting: str
    fits: str
    verbose: bool
    seed: int = 0


def detect_numba(on_cpu: bool) -> tuple[str, str]:
    """Whether numba is installed and can run CUDA kernels here: ("cuda" | "cpu" | "", note).
    The note says what was patched, or why numba.cuda is not used."""
    if importlib.util.find_spec("numba") is None:
        return "", ""
    note = ""
    if not hasattr(np, "row_stack"):
        # numba-cuda (numba 0.68) registers an overload of np.row_stack at import, an alias of
        # np.vstack that NumPy 2.5 removed: without it, numba.cuda cannot compile anything.
        np.row_stack = np.vstack
        note = "np.row_stack = np.vstack for numba-cuda (NumPy 2.5 removed the alias)"
    if on_cpu:
        return "cpu", note
    try:
        from numba import cuda

        if not cuda.is_available():
            return "cpu", note
        probe = cuda.jit(_numba_probe)
        out = np.zeros(1, np.int32)
        probe[1, 1](out)
        assert out[0] == 1, out
    except Exception as e:  # noqa: BLE001 - a broken numba install is "no numba.cuda"
        return "cpu", f"numba.cuda cannot run a kernel here: {type(e).__name__}: {e}"
    return "cuda", note


def _numba_probe(out: Any) -> None:
    out[0] = 1


def skip_reason(cell: Cell, env: Env) -> str:
    """Why a cell does not run here, or ""."""
    if cell.skip:
        return cell.skip
    if cell.needs == "numba.cuda" and env.numba != "cuda":
        return "needs a GPU (numba.cuda)" + ("" if env.numba else ", and numba is not installed")
    if cell.needs == "numba" and not env.numba:
        return "needs numba (not installed)"
    return ""


def _echo(text: str) -> None:
    print(text, flush=True)


def run_lesson(lesson: str, path: Path, env: Env, keep: bool = False) -> LessonResult:
    text = path.read_text(encoding="utf-8")
    cells = extract_cells(lesson, text)
    order = classify(lesson, text, cells)
    validate_tables(lesson, cells)
    t_start = time.perf_counter()
    workdir = Path(tempfile.mkdtemp(prefix=f"lesson{lesson}-"))
    old_cwd = os.getcwd()
    os.chdir(workdir)
    if any(FITS_NAME in c.source for c in cells):
        write_fits_image(workdir / FITS_NAME, env.fits == "astropy")
    # The lessons draw from NumPy's global generator without a seed; a fixed one makes every run
    # the same. Lesson 003 compares numba's GPU and CPU float32 results at rtol=1e-7, atol=5e-7,
    # which one element in a million can miss by an ulp: on an H100, seeds 0-7 passed but seed 2.
    np.random.seed(env.seed)
    random.seed(env.seed)
    ns: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    ns[TIMEIT_FN] = lambda stmt: _timeit_line(stmt, ns, lesson)
    ns["display"] = lambda *objs: [print(repr(o)) for o in objs] and None
    ctx = Ctx(env.cp, env.modname, env.on_cpu, {}, {})
    results: list[CellResult] = []
    checks: list[CheckResult] = []
    device = "cpu" if env.on_cpu else "gpu"
    cell_checks = {}
    for chk in CHECKS.get(lesson, []):
        if chk.anchor is not None:
            cell_checks.setdefault(find_cell(cells, chk.anchor, "check").number, []).append(chk)
    _echo(f"== lesson {lesson} ({path.name}): {len(cells)} cells, device {device}, in {workdir}")
    try:
        lost: dict[str, int] = {}  # a name a failed cell should have bound -> that cell
        for cell in order:
            missing = sorted(n for n in cell.loads if n in lost and n not in ns)
            if missing and not skip_reason(cell, env):
                res = CellResult(cell, "skipped", f"uses {missing[0]} from failed cell {lost[missing[0]]}")
            else:
                res = _run_cell(cell, ns, env)
            if res.status == "failed":
                lost.update(dict.fromkeys(cell.stores, cell.number))
            results.append(res)
            ctx.outputs[cell.number], ctx.sources[cell.number] = res.stdout, cell.source
            for chk in cell_checks.get(cell.number, []):
                if chk.device and chk.device != device:
                    continue
                checks.append(_run_output_check(chk, res, ctx, cell))
            _report_cell(res, [c for c in checks if c.cell == cell.number], env.verbose)
        skipped_names = set().union(*(r.cell.stores for r in results if r.status == "skipped"), set())
        failed_names = set().union(*(r.cell.stores for r in results if r.status == "failed"), set())
        for chk in CHECKS.get(lesson, []):
            if chk.anchor is None and (chk.device is None or chk.device == device):
                checks.append(_run_ns_check(chk, ns, ctx, skipped_names, failed_names))
                _report_check(checks[-1])
    finally:
        os.chdir(old_cwd)
        if "matplotlib.pyplot" in sys.modules and env.plotting.startswith("matplotlib ("):
            sys.modules["matplotlib.pyplot"].close("all")
        ns.clear()
        gc.collect()
        if keep:
            _echo(f"   (kept {workdir})")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return LessonResult(lesson, results, checks, time.perf_counter() - t_start, env.plotting)


def _timeit_line(stmt: str, ns: dict, lesson: str) -> TimeitResult:
    result = _timed(rename_modules(stmt), ns, f"<lesson {lesson} %timeit>")
    print(result)
    return result


def _run_cell(cell: Cell, ns: dict, env: Env) -> CellResult:
    reason = skip_reason(cell, env)
    if reason:
        return CellResult(cell, "skipped", reason)
    src, _ = final_source(cell, env.on_cpu)
    out, err = io.StringIO(), io.StringIO()
    filename = f"<lesson {cell.lesson} cell {cell.number}>"
    exc: BaseException | None = None
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            run_source(src, ns, filename, cell.timed_cell)
        except (Exception, SystemExit) as e:  # noqa: BLE001 - any exception is the cell's result
            exc = e
    seconds = time.perf_counter() - t0
    if "matplotlib.pyplot" in sys.modules and env.plotting.startswith("matplotlib ("):
        sys.modules["matplotlib.pyplot"].close("all")
    res = CellResult(cell, "passed", stdout=out.getvalue(), stderr=err.getvalue(), seconds=seconds)
    e = cell.expect
    if e is not None:
        if exc is None:
            if e.gpu_only and env.on_cpu:
                res.reason = f"no {e.exc} on the CPU backend (allowed: the lesson's error is about GPU memory)"
            else:
                want = e.exc + (f": {e.message!r}" if e.message else "")
                res.status, res.reason = "failed", f"expected {want} ({e.why}); nothing was raised"
        elif type(exc).__name__ == e.exc and (str(exc) == e.message if e.whole else e.message in str(exc)):
            res.reason = f"raised the expected {e.exc}: {str(exc)[:100]}"
        else:
            res.status = "failed"
            res.reason = f"expected {e.exc}: {e.message!r}, got {type(exc).__name__}: {exc}"
            res.error = _short_traceback(exc)
    elif exc is not None:
        res.status, res.reason, res.error = "failed", f"{type(exc).__name__}: {exc}", _short_traceback(exc)
    return res


def _run_output_check(chk: Check, res: CellResult, ctx: Ctx, cell: Cell) -> CheckResult:
    if res.status != "passed":
        why = "the cell was skipped" if res.status == "skipped" else "the cell failed"
        return CheckResult(chk, "skipped", why, cell.number)
    src, _ = final_source(cell, ctx.on_cpu)
    try:
        if chk.lesson_output:
            if cell.expected is None:
                raise AssertionError("the lesson shows no output for this cell")
            chk.test(res.stdout, src, ctx, expected=cell.expected)
        else:
            chk.test(res.stdout, src, ctx)
    except Exception as e:  # noqa: BLE001 - a check's own error is its failure
        return CheckResult(chk, "failed", _check_error(e), cell.number)
    return CheckResult(chk, "passed", "", cell.number)


def _run_ns_check(chk: Check, ns: dict, ctx: Ctx, skipped: set[str], failed: set[str]) -> CheckResult:
    missing = [n for n in chk.needs if n not in ns]
    if missing:
        if any(n in skipped for n in missing):
            return CheckResult(chk, "skipped", f"{', '.join(missing)} defined by a skipped cell")
        if any(n in failed for n in missing):
            return CheckResult(chk, "skipped", f"{', '.join(missing)} defined by a failed cell")
        return CheckResult(chk, "failed", f"not in the namespace: {', '.join(missing)}")
    try:
        chk.test(ns, ctx)
    except Exception as e:  # noqa: BLE001 - a check's own error is its failure
        return CheckResult(chk, "failed", _check_error(e))
    return CheckResult(chk, "passed")


def _check_error(e: Exception) -> str:
    text = str(e) if isinstance(e, AssertionError) else _short_traceback(e)
    return f"{type(e).__name__}: {text}".strip()


def _report_cell(res: CellResult, checks: list[CheckResult], verbose: bool) -> None:
    c = res.cell
    first = next((x for x in c.source.split("\n") if x.strip()), "")[:60]
    status = {"passed": "ok", "failed": "FAILED", "skipped": "skipped"}[res.status]
    time_text = f"{res.seconds:6.2f}s" if res.status != "skipped" else "       "
    line = f"   {c.lesson} #{c.number:<3d} {c.label:<22} {status:<8} {time_text}  {first}"
    if res.reason and res.status != "failed" and res.reason != c.label:
        line += f"\n{'':40}-> {res.reason}"
    _echo(line)
    if res.status == "failed":
        _echo(textwrap.indent(res.reason + ("\n" + res.error if res.error else ""), "        | "))
    if verbose or res.status == "failed":
        if res.stdout:
            _echo(textwrap.indent(res.stdout.rstrip("\n")[-4000:], "        > "))
        if res.stderr and res.status == "failed":
            _echo(textwrap.indent(res.stderr.rstrip("\n")[-2000:], "        ! "))
    for chk in checks:
        _report_check(chk)


def _report_check(r: CheckResult) -> None:
    mark = {"passed": "ok", "failed": "CHECK FAILED", "skipped": "check skipped"}[r.status]
    _echo(f"{'':10}{mark}: {r.check.what}" + (f" ({r.detail})" if r.status == "skipped" else ""))
    if r.status == "failed":
        _echo(textwrap.indent(r.detail[-4000:], "        | "))


# ---------------------------------------------------------------------------------------------
# Listing and summary
# ---------------------------------------------------------------------------------------------


def list_lesson(lesson: str, path: Path, on_cpu: bool | None, verbose: bool) -> None:
    text = path.read_text(encoding="utf-8")
    cells = extract_cells(lesson, text)
    order = classify(lesson, text, cells)
    validate_tables(lesson, cells)
    title = re.search(r'^title:\s*"?([^"\n]+)"?', text, re.MULTILINE) or re.search(r"^#+\s*(.+)$", text, re.MULTILINE)
    print(f"lesson {lesson}: {title.group(1).strip(' *') if title else ''} ({path})")
    checks = CHECKS.get(lesson, [])
    per_cell = Counter(find_cell(cells, c.anchor, "check").number for c in checks if c.anchor is not None)
    print(f"  {len(cells)} cells; run order: {' '.join(str(c.number) for c in order)}")
    print(f"  {'#':>3} {'line':>5}  {'format':<11} {'class':<22} first line")
    for c in order:
        first = next((x for x in c.source.split("\n") if x.strip()), "")[:70]
        print(f"  {c.number:>3} {c.line:>5}  {c.fmt:<11} {c.label:<22} {first}")
        notes = list(c.notes)
        if c.needs_via:
            notes.append(f"needs {c.needs}: uses {c.needs_via}")
        if c.expect:
            exactly = "exactly " if c.expect.whole else ""
            text = f": {exactly}{c.expect.message!r}" if c.expect.message else ""
            cpu = "; on the CPU backend it may also run without error" if c.expect.gpu_only else ""
            notes.append(f"expects {c.expect.exc}{text} ({c.expect.why}{cpu})")
        for device_cpu in [on_cpu] if on_cpu is not None else [False, True]:
            _, changes = final_source(c, device_cpu)
            notes += [x for x in changes if not x.startswith("cpu size") or device_cpu]
        if per_cell.get(c.number):
            notes.append(f"{per_cell[c.number]} output check(s)")
        if c.expected is not None:
            notes.append(f"lesson output: {len(c.expected.splitlines())} line(s)")
        for n in dict.fromkeys(notes):
            print(f"{'':26}- {n}")
        if verbose:
            src, _ = final_source(c, bool(on_cpu))
            print(textwrap.indent(src, f"{'':26}| ", lambda _: True))
            if c.expected is not None:
                print(textwrap.indent(c.expected, f"{'':26}> ", lambda _: True))
    counts = Counter(c.label for c in cells)
    print("  classes: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    ns_checks = [c for c in checks if c.anchor is None]
    print(
        f"  checks: {len(checks) - len(ns_checks)} on outputs, {len(ns_checks)} on the namespace; "
        f"expected errors: {len(EXPECTED_ERRORS.get(lesson, []))}"
    )
    print()


def print_summary(results: list[LessonResult], env: Env) -> None:
    device = "cpu" if env.on_cpu else "gpu"
    module = env.modname + (" = the NumPy stand-in" if env.standin else "")
    print()
    print(
        f"summary ({module} on the {device}; plotting: {env.plotting}; FITS: {env.fits}; "
        f"numba: {env.numba or 'not installed'})"
    )
    if env.numba_note:
        print(f"numba: {env.numba_note}")
    print(
        f"{'lesson':<7}{'cells':>6}{'run':>5}{'passed':>8}{'failed':>8}{'skipped':>9}"
        f"{'checks ok/failed/skipped':>27}{'time':>9}"
    )
    for r in results:
        run = r.count("passed") + r.count("failed")
        chk = Counter(c.status for c in r.checks)
        chk_text = f"{chk['passed']}/{chk['failed']}/{chk['skipped']}"
        print(
            f"{r.lesson:<7}{len(r.cells):>6}{run:>5}{r.count('passed'):>8}{r.count('failed'):>8}"
            f"{r.count('skipped'):>9}{chk_text:>27}{r.seconds:>8.1f}s"
        )
    for r in results:
        skipped = Counter(c.reason for c in r.cells if c.status == "skipped")
        plots = sum(c.cell.plotting and c.status != "skipped" for c in r.cells)
        notes = [f"{n} skipped: {reason}" for reason, n in skipped.items()]
        if plots:
            notes.append(f"{plots} plotting (run under {r.plotting})")
        notes += [f"#{c.cell.number}: {c.reason}" for c in r.cells if "on the CPU backend" in c.reason]
        failed = [f"#{c.cell.number}" for c in r.cells if c.status == "failed"]
        if failed:
            notes.append("failed cells: " + " ".join(failed))
        bad = [c for c in r.checks if c.status == "failed"]
        if bad:
            notes.append("failed checks: " + "; ".join(c.check.what for c in bad))
        if notes:
            print(f"  {r.lesson}: " + "; ".join(notes))
    print("PASSED" if all(r.ok for r in results) else "FAILED")


# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------


def lessons_dir(arg: str | None) -> Path:
    for candidate in (
        arg,
        os.environ.get("CUPRUM_LESSONS_DIR"),
        REPO / "shared" / "seeds",
        REPO.parent / "shared" / "seeds",
    ):
        if candidate and Path(candidate).is_dir() and list(Path(candidate).glob("[0-9][0-9][0-9]_*.txt")):
            return Path(candidate)
    raise FileNotFoundError(
        "no lessons found: pass --lessons-dir, or set CUPRUM_LESSONS_DIR, to the directory "
        "holding 000_*.txt ... (shared/seeds)"
    )


def find_lessons(directory: Path | None = None) -> dict[str, Path]:
    """Lesson id ("000") -> its file."""
    d = directory or lessons_dir(None)
    return {p.name[:3]: p for p in sorted(d.glob("[0-9][0-9][0-9]_*.txt"))}


def load_module(module: str) -> tuple[Any, bool]:
    """Import the array module the lessons run on (as `cuprum`); says whether it is the stand-in."""
    if module == "numpy":
        directory = Path(tempfile.mkdtemp(prefix="cuprum-standin-"))
        write_standin(directory)
        sys.path.insert(0, str(directory))
    elif module == "cupy":
        sys.meta_path.insert(0, _AliasFinder())
    cp = importlib.import_module("cuprum")
    return cp, bool(getattr(cp, "__lessons_standin__", False))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lesson", action="append", help="run this lesson (000, 001, ...; may repeat)")
    parser.add_argument("--device", choices=["cpu", "gpu"], help="CUPRUM_DEVICE=cpu, or cuda:0 (gpu)")
    parser.add_argument("--list", action="store_true", help="print the extracted cells and their classification")
    parser.add_argument("-v", "--verbose", action="store_true", help="with --list: the sources; else every output")
    parser.add_argument("--lessons-dir", help="the directory of the lesson files (default: shared/seeds)")
    parser.add_argument("--keep", action="store_true", help="keep each lesson's working directory")
    parser.add_argument("--seed", type=int, default=SEED, help=f"NumPy's global seed for each lesson ({SEED})")
    # Testing the runner itself: a NumPy stand-in for cuprum, or CuPy under cuprum's names.
    parser.add_argument("--module", choices=["cuprum", "numpy", "cupy"], default="cuprum", help=argparse.SUPPRESS)
    parser.add_argument("--force-shims", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--write-standin", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    with contextlib.suppress(AttributeError):
        sys.stdout.reconfigure(errors="backslashreplace")

    if args.write_standin:
        write_standin(Path(args.write_standin))
        return 0
    try:
        lessons = find_lessons(lessons_dir(args.lessons_dir))
    except FileNotFoundError as e:
        print(f"run_lessons: {e}", file=sys.stderr)
        return 2
    wanted = args.lesson or sorted(lessons)
    unknown = [w for w in wanted if w not in lessons]
    if unknown:
        print(f"run_lessons: no lesson {', '.join(unknown)} (have {', '.join(sorted(lessons))})", file=sys.stderr)
        return 2

    if args.list:
        try:
            for lesson in wanted:
                list_lesson(
                    lesson, lessons[lesson], None if args.device is None else args.device == "cpu", args.verbose
                )
        except LookupError as e:
            print(f"run_lessons: {e}", file=sys.stderr)
            return 2
        return 0

    if args.device:
        os.environ["CUPRUM_DEVICE"] = "cpu" if args.device == "cpu" else "cuda:0"
    plotting, fits = setup_plotting_and_fits(args.force_shims)
    try:
        cp, standin = load_module(args.module)
    except Exception:  # noqa: BLE001 - report any import failure and stop
        print(f"run_lessons: cannot import cuprum (--module {args.module}):\n{traceback.format_exc()}", file=sys.stderr)
        return 2
    gpu = bool(cp.cuda.is_available())
    if args.device == "gpu" and not gpu:
        print("run_lessons: --device gpu, but cuprum.cuda.is_available() is False", file=sys.stderr)
        return 2
    on_cpu = os.environ.get("CUPRUM_DEVICE", "").strip() == "cpu" or not gpu
    env = Env(cp, cp.__name__, on_cpu, standin, *detect_numba(on_cpu), plotting, fits, args.verbose, args.seed)
    results = []
    try:
        for lesson in wanted:
            results.append(run_lesson(lesson, lessons[lesson], env, args.keep))
    except LookupError as e:
        print(f"run_lessons: {e}", file=sys.stderr)
        return 2
    print_summary(results, env)
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
