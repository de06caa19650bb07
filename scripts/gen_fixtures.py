#!/usr/bin/env python3
"""NumPy conformance fixtures for cuprum (read by crates/cuprum/tests/suite/conformance/).

    python3 scripts/gen_fixtures.py                # every group
    python3 scripts/gen_fixtures.py --only signal  # one group anew, the others kept byte for byte

A full run on another machine can change the last bits of some transcendental results (NumPy's
SIMD loops differ with the CPU's extensions; 138 cases differ between the machine that wrote the
committed fixtures and a plain x86-64-v2 one), and the blobs after them are renumbered: to add or
change a group that has a generator of its own (GROUP_VERSIONS: signal, signal_nd), use --only.

Writes, under crates/cuprum/tests/fixtures/:

* numpy.bin: named .npy blobs, each as [u32 LE name length][name, UTF-8][u64 LE .npy
  length][.npy bytes as written by np.save]. Blobs are deduplicated by dtype and contents: a
  case whose result has the contents of an existing blob under another shape refers to it with
  a shape override (see below).
* manifest.txt: one case per line (lines starting with '#' are comments):

      id|op|params|inputs|expected

  id        unique, readable name of the case (conformance/mod.rs's KNOWN_DIFFS refer to it); its
            first '/'-separated component is the group: unary, binary, scalar, reduce, astype,
            creation, view, misc, sort, quantile, unique, select, index, manip, signal, signal_nd,
            ndimage_*, io, complex, linalg
  op        NumPy's name of the operation (UnaryOp/BinaryOp/ReduceOp::name() for ufuncs)
  params    key=value pairs separated by ';' (values may contain ',')
  inputs    operands separated by ',': a blob token, or a Python scalar as i:<int> (fits
            int64), u:<int> (larger), f:<float> (repr: 1.5, -0.0, inf, nan), b:0 / b:1
  expected  'ERR:<Python exception>' when NumPy raises, else blob tokens separated by ','
            (meshgrid, unique, histogram, nonzero, split... have several)

  A blob token is a blob name, or 'name#2.1.4': blob `name` viewed with shape (2, 1, 4)
  ('name#' is 0-d).

  Parameters: reduce has axis=None|0|-1|0,2, keepdims=0|1, ddof; astype has to=<dtype>;
  creation has the function's arguments (shape=2,3; m=None...); misc has rtol/atol/equal_nan
  or decimals; view has ops=<chain> and strides=<NumPy's strides of the result> (absent for
  errors). A chain is '/'-separated steps applied in order: '[<NumPy basic index>]', 'T',
  or name(ints) for reshape, transpose, swapaxes, moveaxis, diagonal (offset, axis1, axis2),
  squeeze, expand_dims, broadcast_to, ravel, flatten.

  Sorting, selection and manipulation groups (axis=None|<int> throughout):
  sort      sort/argsort (kind="stable"), searchsorted (side), lexsort (the keys as inputs),
            partition/argpartition (kth; expected: the result sorted along the axis and its kth
            element, plus, for argpartition, the sorted indices: what NumPy specifies)
  quantile  median, nanmedian, quantile/percentile/nanquantile/nanpercentile (q, method) and
            quantiles (q=<q0>,<q1>...: shape (len(q), ...), each q a Python float, so that
            float16/float32 inputs keep their dtype as for one q)
  unique    unique (index/inverse/counts=0|1; results in NumPy's order), bincount (minlength;
            weights as a second input), histogram (bins=<count>|edges, range=None|lo,hi,
            weights=0|1, density=0|1; inputs a[, edges][, weights]; results hist, edges),
            digitize (right), isin
  select    mask (a[m]; inputs a, m), compress (inputs condition, a), extract, nonzero,
            flatnonzero, argwhere, cumsum/cumprod, diff (n, axis)
  index     take, take_along_axis, put (inputs a, indices, values) and add.at (inputs a, values,
            index arrays): the latter two give the array after the call
  manip     concatenate/stack (the arrays as inputs), hstack/vstack/dstack, split/array_split
            (sections=<count>|i:<indices>), flip, roll (shift), tile (reps), repeat (repeats),
            pad (width=<before>:<after>,... one pair per axis, mode; constant mode's value is a
            second, scalar input), atleast_1d/2d/3d
  signal    convolve/correlate (np.convolve, np.correlate: mode=full|same|valid, or a name NumPy
            refuses), convolve2d/correlate2d (scipy.signal: mode, boundary=fill|wrap|symm or
            SciPy's aliases or a refused name, fillvalue=<Python float repr>); inputs the two
            operands. Needs SciPy; its version is noted in a '# signal: ...' manifest line.
  signal_nd convolve/correlate (scipy.signal's N-d ones: mode=full|same|valid or a refused name,
            method=direct|auto or a refused name); inputs the two operands. Needs SciPy (a
            '# signal_nd: ...' manifest line).

Inputs are deterministic (seeded generator). NumPy >= 2 (NEP 50 promotion) is required.
"""
import sys

import numpy as np

from fixtures.arrays import gen_creation, gen_manip, gen_misc, gen_views
from fixtures.common import FX, GROUP_VERSIONS
from fixtures.complex import gen_complex
from fixtures.elementwise import gen_astype, gen_binary, gen_scalar, gen_unary
from fixtures.fft import gen_fft
from fixtures.files import gen_io
from fixtures.indexing import gen_index, gen_select
from fixtures.linalg import gen_linalg
from fixtures.ndimage import gen_ndimage_filters, gen_ndimage_label, gen_ndimage_measure, gen_ndimage_morph, gen_ndimage_rank
from fixtures.random import gen_random, gen_random_stats  # noqa: F401
from fixtures.reduce import gen_reduce
from fixtures.signal import gen_signal, gen_signal_fft, gen_signal_nd
from fixtures.sorting import gen_quantile, gen_sort, gen_unique
from fixtures.special import gen_special, gen_stats

GENERATORS = [gen_unary, gen_binary, gen_scalar, gen_reduce, gen_astype, gen_creation, gen_views, gen_misc, gen_sort, gen_quantile, gen_unique, gen_select, gen_index, gen_manip, gen_signal, gen_ndimage_label, gen_ndimage_measure, gen_signal_nd, gen_ndimage_filters, gen_ndimage_morph, gen_ndimage_rank, gen_io, gen_complex, gen_linalg, gen_random, gen_fft, gen_signal_fft, gen_special, gen_stats]


def main():
    args = sys.argv[1:]
    only = None
    if args[:1] == ["--only"] and len(args) == 2:
        only = args[1].split(",")
        bad = [g for g in only if g not in GROUP_VERSIONS]
        if bad:
            sys.exit(f"--only regenerates only {', '.join(GROUP_VERSIONS)} (the other groups draw from one "
                     f"shared generator: regenerate them all); not {', '.join(bad)}")
        FX.load_existing(set(only))
        for g in only:
            {gen.__name__[4:]: gen for gen in GENERATORS}[g]()
    elif args:
        sys.exit("usage: python3 scripts/gen_fixtures.py [--only GROUP[,GROUP...]]")
    else:
        for gen in GENERATORS:
            gen()
    FX.write()
    total = sum(len(d) for _, d in FX.blobs)
    print(f"NumPy {np.__version__}: {len(FX.lines)} cases, {len(FX.blobs)} blobs, {total / 1e6:.2f} MB of .npy")
    for g, n in FX.groups.items():
        print(f"  {g}: {n}")


if __name__ == "__main__":
    main()
