#!/usr/bin/env python3
"""NumPy conformance fixtures for cuprum (read by crates/cuprum/tests/suite/conformance.rs).

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

  id        unique, readable name of the case (conformance.rs's KNOWN_DIFFS refer to it); its
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
import io
import os
import struct
import sys
import warnings

import numpy as np

if int(np.__version__.split(".")[0]) < 2:
    sys.exit(f"NumPy >= 2 is required (NEP 50 promotion); found {np.__version__}")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "crates", "cuprum", "tests", "fixtures")

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]
SIGNED = ["int8", "int16", "int32", "int64"]
UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]
INTS = SIGNED + UNSIGNED
FLOATS = ["float16", "float32", "float64"]

UNARY = ["negative", "positive", "absolute", "sign", "square", "sqrt", "cbrt", "reciprocal", "exp",
         "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos",
         "arctan", "sinh", "cosh", "tanh", "floor", "ceil", "rint", "trunc", "logical_not", "invert",
         "isnan", "isinf", "isfinite"]
BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power",
          "arctan2", "hypot", "maximum", "minimum", "fmax", "fmin", "equal", "not_equal", "less",
          "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
          "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]
MIXED_PAIRS = [
    ("int8", "uint8"), ("uint8", "int8"), ("int64", "uint64"), ("uint64", "int64"),
    ("int16", "float16"), ("float16", "int16"), ("bool", "int8"), ("int8", "bool"),
    ("uint32", "int32"), ("float32", "float64"), ("float64", "float32"), ("int32", "float32"),
    ("uint8", "float16"), ("uint16", "int32"), ("bool", "float32"), ("int64", "float16"),
    ("uint64", "float32"), ("int8", "uint64"), ("int16", "uint32"), ("float16", "float32"),
    ("int16", "uint16"), ("uint32", "float16"),
]

RNG = np.random.default_rng(20240611)


def info(dt):
    return np.iinfo(dt) if dt in INTS else None


class Fixtures:
    def __init__(self):
        self.blobs = []  # (name, npy bytes)
        self.by_content = {}  # (dtype, raw bytes) -> (name, shape)
        self.lines = []
        self.ids = set()
        self.groups = {}
        self.next_blob = 0  # the next blob is named b<next_blob>
        self.comments = []  # header lines kept from the existing manifest (--only)

    def load_existing(self, regenerate):
        """Starts from the fixtures on disk (for --only): keeps every case of the other groups and
        the blobs they refer to, byte for byte, and drops the cases of the groups in
        `regenerate` (and the blobs only they used), so that those groups are written anew after
        the others and the blobs added are numbered on from the last one kept."""
        with open(os.path.join(OUT, "numpy.bin"), "rb") as f:
            data = f.read()
        blobs, pos = [], 0
        while pos < len(data):
            (n,) = struct.unpack_from("<I", data, pos)
            name = data[pos + 4:pos + 4 + n].decode()
            pos += 4 + n
            (m,) = struct.unpack_from("<Q", data, pos)
            blobs.append((name, data[pos + 8:pos + 8 + m]))
            pos += 8 + m
        used = set()
        with open(os.path.join(OUT, "manifest.txt")) as f:
            for line in f.read().splitlines():
                if line.startswith("#"):
                    regenerated = any(line.startswith(f"# {g}: ") for g in regenerate)
                    if not regenerated and line not in self.comments:
                        self.comments.append(line)
                    continue
                if not line.strip():
                    continue
                cid, _, _, ins, expected = line.split("|")
                group = cid.split("/")[0]
                if group in regenerate:
                    continue
                self.lines.append(line)
                self.ids.add(cid)
                self.groups[group] = self.groups.get(group, 0) + 1
                toks = [t for t in ins.split(",") if t and ":" not in t]
                if not expected.startswith("ERR:"):
                    toks += expected.split(",")
                used.update(t.split("#")[0] for t in toks)
        for name, npy in blobs:
            if name not in used:
                continue
            a = np.load(io.BytesIO(npy), allow_pickle=False)
            self.blobs.append((name, npy))
            self.by_content[(a.dtype.str, a.tobytes())] = (name, a.shape)
            self.next_blob = max(self.next_blob, int(name[1:]) + 1)

    def blob(self, a):
        """The token naming array `a` (stored once per dtype and contents)."""
        a = np.asarray(a)
        if not a.flags.c_contiguous:  # (np.ascontiguousarray would make 0-d arrays 1-d)
            a = a.copy(order="C")
        key = (a.dtype.str, a.tobytes())
        hit = self.by_content.get(key)
        if hit is None:
            name = f"b{self.next_blob}"
            self.next_blob += 1
            buf = io.BytesIO()
            np.save(buf, a, allow_pickle=False)
            self.blobs.append((name, buf.getvalue()))
            self.by_content[key] = (name, a.shape)
            return name
        name, shape = hit
        if shape == a.shape:
            return name
        return name + "#" + ".".join(str(d) for d in a.shape)

    def token(self, v):
        """Python scalars become scalar tokens; arrays and NumPy scalars (strongly typed, as
        0-d arrays) become blobs."""
        if type(v) is bool:
            return f"b:{int(v)}"
        if type(v) is int:
            return f"i:{v}" if -(2**63) <= v < 2**63 else f"u:{v}"
        if type(v) is float:
            return f"f:{v!r}"
        if type(v) is complex:
            return f"c:{v.real!r}:{v.imag!r}"
        return self.blob(v)

    def case(self, cid, op, params, inputs, fn):
        """Records a case: `fn()` evaluates NumPy's result (an array, a scalar or a list). The
        group is the id's first component."""
        assert "|" not in cid and cid not in self.ids, cid
        group = cid.split("/")[0]
        self.ids.add(cid)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with np.errstate(all="ignore"):
                    res = fn()
        except Exception as e:  # NumPy refuses: cuprum must return an error
            expected = "ERR:" + type(e).__name__
        else:
            res = res if isinstance(res, (list, tuple)) else [res]
            expected = ",".join(self.blob(np.asarray(r)) for r in res)
        ps = ";".join(f"{k}={v}" for k, v in params.items())
        ins = ",".join(self.token(v) for v in inputs)
        for field in (ps, ins, op):
            assert "|" not in field and "\n" not in field
        self.lines.append(f"{cid}|{op}|{ps}|{ins}|{expected}")
        self.groups[group] = self.groups.get(group, 0) + 1

    def write(self):
        os.makedirs(OUT, exist_ok=True)
        with open(os.path.join(OUT, "numpy.bin"), "wb") as f:
            for name, data in self.blobs:
                nb = name.encode()
                f.write(struct.pack("<I", len(nb)))
                f.write(nb)
                f.write(struct.pack("<Q", len(data)))
                f.write(data)
        with open(os.path.join(OUT, "manifest.txt"), "w") as f:
            if self.comments:
                for l in self.comments:
                    f.write(l + "\n")
            else:
                f.write(f"# NumPy {np.__version__} conformance cases, written by scripts/gen_fixtures.py; "
                        "format in that script's docstring.\n")
                f.write("# id|op|params|inputs|expected\n")
            for g, versions in GROUP_VERSIONS.items():
                # (a group kept by --only has its line among the comments already)
                if g in self.groups and not any(c.startswith(f"# {g}: ") for c in self.comments):
                    f.write(f"# {g}: {versions()}\n")
            for l in self.lines:
                f.write(l + "\n")


FX = Fixtures()


def arr(values, dt, shape=None):
    if dt in FLOATS:
        with np.errstate(all="ignore"):
            a = np.array(values, dtype=np.float64).astype(dt)
    else:
        # Integers directly (a list mixing ints above 2**63 with others would become float64).
        a = np.array(values, dtype=dt)
    return a if shape is None else a.reshape(shape)


def clip_to(values, dt):
    """Values that dtype `dt` holds, in order, without repeats."""
    out = []
    for v in values:
        if dt == "bool":
            v = bool(v)
        elif dt in INTS:
            i = info(dt)
            if not (i.min <= v <= i.max):
                continue
        if v not in out or (isinstance(v, float) and np.isnan(v) and not any(
                isinstance(o, float) and np.isnan(o) for o in out)):
            out.append(v)
    return out


def pad_even(vals):
    return vals if len(vals) % 2 == 0 else vals + vals[-1:]


# ------------------------------------------------------------------ 1. unary ufuncs

def unary_values(dt):
    if dt == "bool":
        return [False, True, True, False, False, True]
    if dt in SIGNED:
        i = info(dt)
        return clip_to([int(i.min), int(i.min) + 1, -1000, -100, -7, -2, -1, 0, 1, 2, 3, 7, 10, 100,
                        1000, int(i.max) - 1, int(i.max)], dt)
    if dt in UNSIGNED:
        i = info(dt)
        return clip_to([0, 1, 2, 3, 7, 10, 100, 127, 128, 200, 1000, 40000, int(i.max) - 1,
                        int(i.max)], dt)
    return [np.nan, -np.inf, -1e4, -100.0, -3.7, -2.5, -1.5, -1.0, -0.5, -0.3, -1e-5, -0.0, 0.0,
            1e-5, 0.3, 0.5, 0.9, 1.0, 1.5, 2.5, 3.7, 10.0, 100.0, 1e4, 65504.0, np.inf]


def gen_unary():
    for dt in DTYPES:
        vals = pad_even(unary_values(dt))
        x = arr(vals, dt, (2, len(vals) // 2))
        # int reciprocal of 0 is undefined behaviour in NumPy's C loop: left out.
        xr = arr(pad_even([v for v in vals if v != 0]), dt) if dt in INTS else x
        for op in UNARY:
            xi = xr if op == "reciprocal" else x
            FX.case(f"unary/{op}/{dt}", op, {}, [xi], lambda f=getattr(np, op), xi=xi: f(xi))
    # 0-d and empty inputs
    for dt in ["bool", "int16", "uint32", "float16", "float64"]:
        z = arr(unary_values(dt)[3], dt, ())
        e = arr([], dt, (0, 3))
        for op in UNARY:
            f = getattr(np, op)
            FX.case(f"unary/{op}/{dt}/0d", op, {}, [z], lambda f=f: f(z))
            FX.case(f"unary/{op}/{dt}/empty", op, {}, [e], lambda f=f: f(e))


# ------------------------------------------------------------------ 2. binary ufuncs

def bin_x(dt):
    if dt == "bool":
        return [False, True]
    if dt in SIGNED:
        i = info(dt)
        return clip_to([int(i.min), -7, -2, -1, 0, 1, 3, 100, int(i.max)], dt)
    if dt in UNSIGNED:
        i = info(dt)
        return clip_to([0, 1, 2, 7, 100, 200, 2**63, int(i.max)], dt)
    return [np.nan, -np.inf, -2.5, -1.0, -0.0, 0.0, 0.5, 3.0, np.inf]


def bin_y(dt, op, res_dt):
    """Second operands for `op`, chosen per its needs (no negative integer powers...)."""
    if dt == "bool":
        return [False, True]
    if op in ("left_shift", "right_shift") and dt in INTS:
        bits = np.dtype(res_dt).itemsize * 8 if res_dt in INTS else 64
        cand = [0, 1, 2, 3, 7, bits - 1, bits, bits + 1] + ([-1] if dt in SIGNED else [])
        return clip_to(cand, dt)
    if op == "power" and dt in INTS and res_dt in INTS + ["bool"]:
        return clip_to([0, 1, 2, 3, 5, 9], dt)
    if dt in SIGNED:
        i = info(dt)
        return clip_to([int(i.min), -3, -1, 0, 1, 2, 7, int(i.max)], dt)
    if dt in UNSIGNED:
        i = info(dt)
        return clip_to([0, 1, 2, 3, 7, 2**63, int(i.max)], dt)
    return [np.nan, -np.inf, -2.0, -1.0, -0.5, -0.0, 0.0, 0.1, 0.5, 1.0, 2.0, 3.0, np.inf]


def rand(dt, shape, lo=-50, hi=50):
    if dt == "bool":
        return RNG.random(shape) < 0.5
    if dt in UNSIGNED:
        return RNG.integers(0, hi * 2, shape).astype(dt)
    if dt in SIGNED:
        return RNG.integers(lo, hi, shape).astype(dt)
    return (RNG.integers(-16, 16, shape) / 4.0).astype(dt)


def gen_binary():
    pairs = [(d, d) for d in DTYPES] + MIXED_PAIRS
    for da, db in pairs:
        try:
            res_dt = np.result_type(np.dtype(da), np.dtype(db)).name
        except TypeError:
            res_dt = None
        for op in BINARY:
            f = getattr(np, op)
            x = arr(bin_x(da), da)
            x = x.reshape(len(x), 1)
            y = arr(bin_y(db, op, res_dt), db)
            FX.case(f"binary/{op}/{da},{db}", op, {}, [x, y],
                    lambda f=f, x=x, y=y: f(x, y))
        # broadcasting in 3-d, 0-d against an array, empty arrays
        for op in ["add", "multiply", "true_divide", "maximum", "less_equal", "bitwise_or", "power"]:
            f = getattr(np, op)
            a = rand(da, (2, 1, 4))
            b = rand(db, (3, 4), lo=0 if op == "power" else -50, hi=4 if op == "power" else 50)
            FX.case(f"binary/{op}/{da},{db}/bcast3d", op, {}, [a, b],
                    lambda f=f, a=a, b=b: f(a, b))
            if da == db:
                z = rand(da, ())
                FX.case(f"binary/{op}/{da},{db}/0d", op, {}, [z, b],
                        lambda f=f, z=z, b=b: f(z, b))
                e = rand(da, (0, 4))
                FX.case(f"binary/{op}/{da},{db}/empty", op, {}, [e, b[:1]],
                        lambda f=f, e=e, b=b: f(e, b[:1]))
    # Integer powers with a negative integer exponent: NumPy raises ValueError.
    for dt in SIGNED:
        x = arr([1, 2, 3], dt)
        y = arr([2, -1, 0], dt)
        FX.case(f"binary/power/{dt},{dt}/negexp", "power", {}, [x, y],
                lambda x=x, y=y: np.power(x, y))
    # Integer powers with huge exponents (wrapping: odd bases end at 1).
    for dt, xs, ys in [("uint64", [3, 5, 7, 2, 0, 1], [2**40, 2**62, 2**63, 2**64 - 1, 65, 64]),
                       ("int64", [3, -5, 7, 2, 0, -1], [2**40, 2**62, 2**63 - 1, 2**62 + 1, 65, 63]),
                       ("uint8", [3, 5, 7, 2, 0, 255], [200, 255, 128, 9, 8, 7])]:
        x, y = arr(xs, dt), arr(ys, dt)
        FX.case(f"binary/power/{dt},{dt}/bigexp", "power", {}, [x, y], lambda x=x, y=y: np.power(x, y))
    # Shapes that do not broadcast.
    a, b = rand("float32", (2, 3)), rand("float32", (4,))
    FX.case("binary/add/float32,float32/nobcast", "add", {}, [a, b],
            lambda: np.add(a, b))


# ------------------------------------------------------------------ 3. Python scalars (NEP 50)

SCALARS = [1, -1, 300, 100000, 2**63, 1.5, 2.0, -0.0, float("inf"), True]
SCALAR_OPS_RIGHT = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power",
                    "maximum", "less", "equal", "bitwise_and"]
SCALAR_OPS_LEFT = ["add", "subtract", "true_divide", "power", "less"]


def scalar_input(dt):
    if dt == "bool":
        return arr([False, True, True, False, True, False], dt, (2, 3))
    if dt in SIGNED:
        return arr([-3, -1, 0, 2, 5, 7], dt, (2, 3))
    if dt in UNSIGNED:
        return arr([0, 1, 2, 5, 7, 9], dt, (2, 3))
    return arr([np.nan, -1.5, -0.0, 0.5, 2.0, np.inf], dt, (2, 3))


def gen_scalar():
    for dt in DTYPES:
        x = scalar_input(dt)
        for s in SCALARS:
            st = FX.token(s)
            for op in SCALAR_OPS_RIGHT:
                f = getattr(np, op)
                FX.case(f"scalar/{op}/{dt},{st}", op, {}, [x, s],
                        lambda f=f, s=s: f(x, s))
            for op in SCALAR_OPS_LEFT:
                f = getattr(np, op)
                FX.case(f"scalar/{op}/{st},{dt}", op, {}, [s, x],
                        lambda f=f, s=s: f(s, x))


# ------------------------------------------------------------------ 4. reductions

REDUCE_OPS = [("sum", 0), ("prod", 0), ("mean", 0), ("var", 0), ("var", 1), ("std", 0), ("std", 1),
              ("min", 0), ("max", 0), ("argmin", 0), ("argmax", 0), ("any", 0), ("all", 0),
              ("count_nonzero", 0)]


def np_reduce(op, x, axis, keepdims, ddof):
    if op in ("var", "std"):
        return getattr(np, op)(x, axis=axis, keepdims=keepdims, ddof=ddof)
    return getattr(np, op)(x, axis=axis, keepdims=keepdims)


def axis_str(axis):
    if axis is None:
        return "None"
    if isinstance(axis, tuple):
        return ",".join(map(str, axis))
    return str(axis)


def reduce_cases(tag, dt, x, axes, keepdims_list=(False, True), ops=REDUCE_OPS):
    for op, ddof in ops:
        for axis in axes:
            if op in ("argmin", "argmax") and isinstance(axis, tuple):
                continue
            for kd in keepdims_list:
                params = {"axis": axis_str(axis), "keepdims": int(kd), "ddof": ddof}
                cid = f"reduce/{op}/{dt}/{tag}/axis={axis_str(axis)}" + ("/keepdims" if kd else "") + (f"/ddof={ddof}" if op in ("var", "std") else "")
                FX.case(cid, op, params, [x],
                        lambda op=op, axis=axis, kd=kd, ddof=ddof: np_reduce(op, x, axis, kd, ddof))


def prod_safe_floats(shape):
    """Values in {±0.5, ±1, ±2} whose partial products, in any order, stay within float16's
    normal range (so that every summation/multiplication order gives the same exact result)."""
    while True:
        v = RNG.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], size=shape)
        if (np.abs(v) == 2).sum() <= 14 and (np.abs(v) == 0.5).sum() <= 13:
            return v


def gen_reduce():
    axes3 = [None, 0, -1, (0, 2)]
    for dt in DTYPES:
        x = rand(dt, (2, 3, 4))
        reduce_cases("r", dt, x, axes3, ops=[o for o in REDUCE_OPS if o[0] != "prod" or dt not in FLOATS])
        if dt in FLOATS:
            p = prod_safe_floats((2, 3, 4)).astype(dt)
            reduce_cases("p", dt, p, axes3, ops=[("prod", 0)])
            n = rand(dt, (2, 3, 4))
            n[0, 1, 2] = np.nan
            n[1, 2, 0] = np.nan
            n[1, 0, 3] = np.inf
            n[0, 2, 1] = -np.inf
            reduce_cases("nan", dt, n, axes3, keepdims_list=(False,))
        if dt in INTS:
            i = info(dt)
            e = arr([int(i.min), int(i.max), -1 if dt in SIGNED else 2, 0, 1, int(i.max)], dt, (2, 3))
            reduce_cases("extremes", dt, e, [None, 0], keepdims_list=(False,))
        z = rand(dt, ())
        reduce_cases("0d", dt, z, [None], keepdims_list=(False,))
    for dt in ["bool", "int32", "uint8", "float16", "float64"]:
        e = rand(dt, (0, 3))
        reduce_cases("empty", dt, e, [None, 0, -1, (0, 1)])
    for dt in ["int32", "float32", "float64"]:
        o = rand(dt, (2, 1, 3))
        reduce_cases("n1", dt, o, [1], keepdims_list=(False,), ops=[("var", 1), ("std", 1), ("mean", 0)])
    # argmin/argmax with several axes: an error in NumPy (TypeError) and cuprum.
    x = rand("float32", (2, 3, 4))
    for op in ["argmin", "argmax"]:
        FX.case(f"reduce/{op}/float32/axes=0,2", op,
                {"axis": "0,2", "keepdims": 0, "ddof": 0}, [x],
                lambda op=op: getattr(np, op)(x, axis=(0, 2)))
    FX.case("reduce/sum/float32/axis=3", "sum", {"axis": "3", "keepdims": 0, "ddof": 0},
            [x], lambda: np.sum(x, axis=3))
    FX.case("reduce/sum/float32/axis=0,0", "sum", {"axis": "0,0", "keepdims": 0, "ddof": 0},
            [x], lambda: np.sum(x, axis=(0, 0)))


# ------------------------------------------------------------------ 5. astype

def astype_values(src, dst):
    if src == "bool":
        return [False, True, True, False]
    if src in INTS:
        i = info(src)
        v = [int(i.min), int(i.min) + 1, -300, -129, -128, -1, 0, 1, 2, 127, 128, 255, 256, 300,
             32767, 32768, 65504, 65519, 65520, 70000, 2**24 + 1, 2**31 - 1, 2**31, 2**53 + 1,
             2**63 - 1, 2**63 + 1025, int(i.max) - 1, int(i.max)]
        return clip_to(v, src)
    # float sources: values that round trips can't blur; float -> int only within range.
    v = [np.nan, -np.inf, np.inf, -0.0, 0.0, 0.5, -0.5, 1.5, -2.7, 3.9, 127.9, -128.5, 255.9, 1000.7,
         65504.0, 65520.0, 1e-6, 6e-8, 1e9, -1e9, 3e9, 1e18, 1e30, 1 + 2**-11 + 2**-40, 1 + 2**-24 + 2**-50,
         -(1 + 2**-11 + 2**-40)]
    with np.errstate(all="ignore"):
        v = [float(np.array(x, dtype=np.float64).astype(src)) for x in v]
    out = []
    for x in v:
        if dst in INTS:
            if not np.isfinite(x):
                continue
            i = info(dst)
            if not (i.min <= np.trunc(x) <= i.max):
                continue
        if x not in out and not (np.isnan(x) and any(np.isnan(o) for o in out)):
            out.append(x)
    return out


def gen_astype():
    for src in DTYPES:
        for dst in DTYPES:
            x = arr(astype_values(src, dst), src)
            FX.case(f"astype/{src}->{dst}", "astype", {"to": dst}, [x],
                    lambda x=x, dst=dst: x.astype(dst))


# ------------------------------------------------------------------ 6. creation

def gen_creation():
    for start, stop, step, dt in [(0, 5, 1, "int64"), (2, 11, 3, "int64"), (10, 0, -3, "int64"),
                                  (-5, 5, 2, "int8"), (0, 0, 1, "int64"), (5, 2, 1, "int64"),
                                  (3, 20, 4, "uint16"), (0, 7, 2, "float32"), (-3, 4, 1, "float64"),
                                  (1, 6, 2, "int32")]:
        FX.case(f"creation/arange/{start},{stop},{step},{dt}", "arange",
                {"kind": "int", "start": start, "stop": stop, "step": step, "dtype": dt}, [],
                lambda: np.arange(start, stop, step, dtype=dt))
    for start, stop, step, dt in [(0.0, 1.0, 0.1, "float64"), (1.0, 1.3, 0.1, "float64"), (1.0, 2.5, 0.5, "float64"),
                                  (0.0, -1.0, -0.25, "float64"), (0.0, 1.0, 0.1, "float32"), (-2.5, 2.5, 0.7, "float64"),
                                  (0.5, 0.5, 0.1, "float64"), (0.0, 3.0, 0.5, "float16")]:
        FX.case(f"creation/arange_f/{start},{stop},{step},{dt}", "arange",
                {"kind": "float", "start": repr(start), "stop": repr(stop), "step": repr(step), "dtype": dt}, [],
                lambda: np.arange(start, stop, step, dtype=dt))
    for start, stop, num, endpoint, dt in [(0.0, 1.0, 5, True, "float64"), (0.0, 1.0, 5, False, "float64"),
                                           (2.0, 3.0, 1, True, "float64"), (2.0, 3.0, 1, False, "float64"),
                                           (0.0, 1.0, 0, True, "float64"), (-1.0, 1.0, 7, True, "float32"),
                                           (10.0, -10.0, 9, False, "float64"), (-5.0, 5.0, 7, True, "int64"),
                                           (0.0, 10.0, 4, True, "int32"), (1.0, 2.0, 11, True, "float16")]:
        FX.case(f"creation/linspace/{start},{stop},{num},{int(endpoint)},{dt}", "linspace",
                {"start": repr(start), "stop": repr(stop), "num": num, "endpoint": int(endpoint), "dtype": dt}, [],
                lambda: np.linspace(start, stop, num, endpoint=endpoint, dtype=dt))
    for n, m, k, dt in [(3, None, 0, "float64"), (3, 4, 1, "float64"), (4, 3, -1, "int32"), (2, 5, 3, "bool"),
                        (3, 3, -5, "float32"), (4, 2, -2, "uint8"), (0, None, 0, "float64"), (1, 3, 2, "int64")]:
        FX.case(f"creation/eye/{n},{m},{k},{dt}", "eye",
                {"n": n, "m": "None" if m is None else m, "k": k, "dtype": dt}, [],
                lambda: np.eye(n, m, k, dtype=dt))
    for n, dt in [(4, "float32"), (1, "int16"), (3, "bool")]:
        FX.case(f"creation/identity/{n},{dt}", "identity", {"n": n, "dtype": dt}, [],
                lambda: np.identity(n, dtype=dt))
    xs = [arr([1, 2, 3], "int32"), arr([0.5, -1.5], "float32"), arr([7, 8, 9, 10], "uint8")]
    for idx in ["xy", "ij"]:
        for k in [1, 2, 3]:
            FX.case(f"creation/meshgrid/{idx},{k}", "meshgrid", {"indexing": idx}, xs[:k],
                    lambda k=k: np.meshgrid(*xs[:k], indexing=idx))
    x2 = arr([[1, 2], [3, 4]], "int64")
    FX.case("creation/meshgrid/xy,2d-input", "meshgrid", {"indexing": "xy"}, [x2, xs[1]],
            lambda: np.meshgrid(x2, xs[1], indexing="xy"))
    for dt in DTYPES:
        FX.case(f"creation/zeros/{dt}", "zeros", {"shape": "2,3", "dtype": dt}, [],
                lambda: np.zeros((2, 3), dtype=dt))
        FX.case(f"creation/ones/{dt}", "ones", {"shape": "3,1,2", "dtype": dt}, [],
                lambda: np.ones((3, 1, 2), dtype=dt))
        for v in [7, -1, 2.75, True, 300]:
            FX.case(f"creation/full/{dt},{FX.token(v)}", "full", {"shape": "2,2", "dtype": dt}, [v],
                    lambda v=v: np.full((2, 2), v, dtype=dt))
    FX.case("creation/full/0d", "full", {"shape": "", "dtype": "float32"}, [1.5],
            lambda: np.full((), 1.5, dtype="float32"))
    FX.case("creation/zeros/empty", "zeros", {"shape": "0,4", "dtype": "int16"}, [],
            lambda: np.zeros((0, 4), dtype="int16"))


# ------------------------------------------------------------------ 7. views

def apply_view(a, chain):
    """Applies a view chain of the manifest's mini-language (see conformance.rs) in NumPy."""
    for op in chain.split("/"):
        if op.startswith("["):
            a = eval("a" + op, {"a": a})
            continue
        if op == "T":
            a = a.T
            continue
        name, args = op[:-1].split("(")
        args = [int(t) for t in args.split(",") if t]
        if name == "reshape":
            a = a.reshape(args)
        elif name == "transpose":
            a = np.transpose(a, args)
        elif name == "swapaxes":
            a = np.swapaxes(a, *args)
        elif name == "moveaxis":
            a = np.moveaxis(a, *args)
        elif name == "diagonal":
            a = a.diagonal(*args)
        elif name == "squeeze":
            a = a.squeeze(axis=tuple(args) if args else None)
        elif name == "expand_dims":
            a = np.expand_dims(a, args[0])
        elif name == "broadcast_to":
            a = np.broadcast_to(a, args)
        elif name == "ravel":
            a = a.ravel()
        elif name == "flatten":
            a = a.flatten()
        else:
            raise ValueError(name)
    return a


VIEWS = [
    "[1:, ::-1, 2]", "[..., None, ::2]", "[-1]", "[:, 2:0:-1, ::-3]", "[0, :, 1:3]", "[::-1, ::-1, ::-1]",
    "[1, 1, 1]", "[:, None, 1, None, -2:]", "[5:10]", "[:, -100:100:2]", "[..., 0]", "[None, ..., None]",
    "[0:2:3, 1::-1]", "[:, 1:1]", "[-2:-1, -1:-4:-2, 3:0:-2]", "[1, ...]", "[:, :, -1]",
    "reshape(4,6)", "reshape(6,-1)", "[:, ::2]/reshape(-1)", "T/reshape(4,6)", "[:, 1:, :]/reshape(2,8)",
    "reshape(2,12)/[:, 1::5]", "[:, :, ::2]/reshape(2,3,2)", "reshape(24)", "ravel()", "T/ravel()", "flatten()",
    "[:, ::-1]/reshape(6,4)", "reshape(1,2,1,12)", "T", "transpose(1,0,2)", "transpose(2,0,1)/[1]", "swapaxes(0,2)",
    "swapaxes(-1,1)", "moveaxis(0,-1)", "diagonal(0,1,2)", "diagonal(1,1,2)", "diagonal(-1,0,1)", "diagonal(2,2,0)",
    "diagonal(5,1,2)", "[:, None, 1:2]/squeeze()", "[:, None, 1:2]/squeeze(1)", "[:, 0:1, None]/squeeze(1,2)",
    "expand_dims(1)", "expand_dims(-1)", "expand_dims(0)", "[0, 0]/broadcast_to(3,4)", "broadcast_to(2,2,3,4)",
    "[:, :1]/broadcast_to(2,5,4)", "T/[::2]/expand_dims(0)", "[::-1]/T/reshape(4,3,2)",
]


def gen_views():
    bases = [("int64", np.arange(24, dtype=np.int64).reshape(2, 3, 4)),
             ("float32", (np.arange(24, dtype=np.float32) * 0.5 - 3).reshape(2, 3, 4))]
    for dt, a in bases:
        for chain in VIEWS:
            try:
                v = apply_view(a, chain)
                strides = ",".join(map(str, v.strides))
                params = {"ops": chain, "strides": strides}
            except Exception:
                params = {"ops": chain}
            FX.case(f"view/{dt}/{chain}", "view", params, [a], lambda a=a, chain=chain: apply_view(a, chain))
    a = bases[0][1]
    for chain in ["[2]", "[0, 0, 0, 0]", "[:, :, :, :]", "reshape(5,5)", "[..., ...]", "swapaxes(0,3)",
                  "broadcast_to(3,4)", "squeeze(0)", "diagonal(0,1,1)", "[::0]"]:
        FX.case(f"view/int64/{chain}/error", "view", {"ops": chain}, [a],
                lambda chain=chain: apply_view(a, chain))


# ------------------------------------------------------------------ 8. misc

def gen_misc():
    fa = np.array([1.0, np.nan, np.inf, -np.inf, 0.0, 1e-9, 100.0, 1.0, np.nan, np.inf])
    fb = np.array([1.0 + 1e-9, np.nan, np.inf, np.inf, 1e-9, 0.0, 100.001, 1.1, 1.0, np.nan])
    for da, db in [("float64", "float64"), ("float32", "float32"), ("float16", "float16"), ("float32", "float64"),
                   ("float16", "float64")]:
        a, b = fa.astype(da), fb.astype(db)
        for rtol, atol, en in [(1e-5, 1e-8, 0), (1e-5, 1e-8, 1), (0.0, 0.0, 0), (0.05, 0.0, 0), (0.0, 1e-3, 1)]:
            p = {"rtol": repr(rtol), "atol": repr(atol), "equal_nan": en}
            FX.case(f"misc/isclose/{da},{db}/{rtol},{atol},{en}", "isclose", p, [a, b],
                    lambda a=a, b=b, rtol=rtol, atol=atol, en=en: np.isclose(a, b, rtol, atol, bool(en)))
    ia, ib = arr([1, 5, 100, -3], "int32"), arr([1, 6, 101, -3], "int64")
    for rtol, atol in [(1e-5, 1e-8), (0.01, 0.0), (0.0, 1.0)]:
        p = {"rtol": repr(rtol), "atol": repr(atol), "equal_nan": 0}
        FX.case(f"misc/isclose/int32,int64/{rtol},{atol}", "isclose", p, [ia, ib],
                lambda rtol=rtol, atol=atol: np.isclose(ia, ib, rtol, atol))
        FX.case(f"misc/allclose/int32,int64/{rtol},{atol}", "allclose", p, [ia, ib],
                lambda rtol=rtol, atol=atol: np.allclose(ia, ib, rtol, atol))
    ua, ub = arr([0, 200, 255], "uint8"), arr([1, 199, 255], "uint8")
    FX.case("misc/isclose/uint8,uint8", "isclose", {"rtol": "0.0", "atol": "1.0", "equal_nan": 0}, [ua, ub],
            lambda: np.isclose(ua, ub, 0.0, 1.0))
    g = np.linspace(0, 1, 12).reshape(3, 4)
    for name, a, b, en in [("same", g, g + 1e-10, 0), ("far", g, g + 1e-3, 0), ("nan", fa, fa, 0), ("nan-eq", fa, fa, 1),
                           ("bcast", g, g[:1], 0), ("bcast-bad", g, g[:2], 0)]:
        p = {"rtol": "1e-05", "atol": "1e-08", "equal_nan": en}
        FX.case(f"misc/allclose/{name}", "allclose", p, [a, b], lambda a=a, b=b, en=en: np.allclose(a, b, equal_nan=bool(en)))
    for name, a, b in [("equal", ia, ia.astype("int64")), ("differ", ia, ib), ("shape", g, g[:2]),
                       ("nan", fa, fa), ("float-int", np.array([1.0, 2.0]), arr([1, 2], "int8")),
                       ("empty", np.zeros((0, 3)), np.zeros((0, 3), dtype="int32")), ("0d", np.array(3.0), np.array(3))]:
        FX.case(f"misc/array_equal/{name}", "array_equal", {}, [a, b], lambda a=a, b=b: np.array_equal(a, b))
    # where(cond, x, y): arrays and scalars of several dtypes, broadcasting
    cond = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
    c1 = np.array([True, False, True, True])
    i8 = arr([[1, -2, 3, -4]], "int8")
    f32 = arr([[0.5], [1.5], [-2.5]], "float32")
    u8 = arr([10, 20, 30, 40], "uint8")
    f16 = arr([1.5, -0.0, np.nan, np.inf], "float16")
    icond = arr([[0, 1, 2, 0]] * 3, "int32")
    for name, c, x, y in [("i8,f32", cond, i8, f32), ("f32,i8", cond, f32, i8), ("i8,u8", cond, i8, u8),
                          ("u8,f:1.5", cond, u8, 1.5), ("i:0,u8", cond, 0, u8), ("i:1,f:2.0", cond, 1, 2.0),
                          ("i:1,i:2", cond, 1, 2), ("b:1,b:0", c1, True, False), ("f16,f16", c1, f16, f16[::-1].copy()),
                          ("intcond", icond, i8, u8), ("u8,i:-1", cond, u8, -1), ("u8,i:300", c1, u8, 300),
                          ("f16,i:1", c1, f16, 1), ("bool,i8", cond, c1, i8), ("bcast-bad", cond, i8[:, :3], u8)]:
        FX.case(f"misc/where/{name}", "where", {}, [c, x, y], lambda c=c, x=x, y=y: np.where(c, x, y))
    # clip
    xf = np.array([-3.0, -1.0, 0.5, 2.0, np.nan, np.inf, -np.inf, 7.0])
    xi = arr([-100, -3, 0, 4, 9, 127], "int8")
    xu = arr([0, 1, 2, 200, 255], "uint8")
    for name, x, lo, hi in [("f64,i:0,i:5", xf, 0, 5), ("f64,f:-1.5,f:2.5", xf, -1.5, 2.5),
                            ("f32,f:-1.5,f:2.5", xf.astype("float32"), -1.5, 2.5),
                            ("f16,i:0,i:1", xf.astype("float16"), 0, 1), ("f64,nanbound", xf, np.nan, 1.0),
                            ("i8,i:-5,i:5", xi, -5, 5), ("i8,f:-5.5,f:5.5", xi, -5.5, 5.5), ("i8,min>max", xi, 3, 1),
                            ("u8,i:1,i:100", xu, 1, 100), ("u8,i:-1,i:300", xu, -1, 300),
                            ("f64,arrays", xf, xf[::-1].copy(), np.full(8, 3.0)),
                            ("i8,f32arr", xi, arr([0.0] * 6, "float32"), 4)]:
        FX.case(f"misc/clip/{name}", "clip", {}, [x, lo, hi], lambda x=x, lo=lo, hi=hi: np.clip(x, lo, hi))
    # round(decimals)
    rf = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 1.25, 2.675, -1.005, 1234.5678, -9876.54321, 15.0, 25.0, 150.0, 250.0,
                   np.nan, np.inf, -0.0, 1e300, 1e-300])
    ri = np.array([15, 25, -15, -25, 149, 150, 151, 1234, -1250, 0, 99])
    for dt in FLOATS:
        with np.errstate(all="ignore"):
            x = rf.astype(dt)
        for d in [0, 1, 2, 3, -1, -2]:
            FX.case(f"misc/round/{dt}/{d}", "round", {"decimals": d}, [x], lambda x=x, d=d: np.round(x, d))
    for dt in ["int8", "int16", "int32", "int64", "uint8", "uint16", "bool"]:
        x = np.array([v for v in (ri if dt != "bool" else [0, 1]) if dt == "bool" or info(dt).min <= v <= info(dt).max]).astype(dt)
        for d in [0, 2, -1, -2]:
            FX.case(f"misc/round/{dt}/{d}", "round", {"decimals": d}, [x], lambda x=x, d=d: np.round(x, d))


# ------------------------------------------------------------------ 9. sorting, order statistics, counting

def axis_p(axis):
    return "None" if axis is None else str(axis)


def sort_values(dt, shape):
    """Values with many ties (and NaN, ±inf, ±0.0 for floats, the extremes for integers)."""
    n = int(np.prod(shape))
    if dt == "bool":
        return RNG.random(shape) < 0.5
    if dt in INTS:
        i = info(dt)
        lo = max(int(i.min), -3)
        v = RNG.integers(lo, 4, n).astype(object)
        v[0], v[n // 2] = int(i.max), int(i.min)
        if n > 5:
            v[5] = int(i.max)
        return arr([int(x) for x in v], dt, shape)
    pool = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -2.5, 1.5, 0.25, -0.0, 3.0, np.nan]
    v = RNG.choice(np.array(pool), n)
    return arr(list(v), dt, shape)


def gen_sort():
    for dt in DTYPES:
        x = sort_values(dt, (3, 6))
        for op in ["sort", "argsort"]:
            f = (lambda x, axis: np.sort(x, axis, kind="stable")) if op == "sort" else \
                (lambda x, axis: np.argsort(x, axis, kind="stable"))
            for axis in [None, 0, -1]:
                FX.case(f"sort/{op}/{dt}/axis={axis_p(axis)}", op, {"axis": axis_p(axis)}, [x],
                        lambda f=f, x=x, axis=axis: f(x, axis))
    x3 = sort_values("float32", (2, 3, 4))
    e = arr([], "int16", (0, 3))
    z = arr(2.5, "float64", ())
    for op in ["sort", "argsort"]:
        f = (lambda x, axis: np.sort(x, axis, kind="stable")) if op == "sort" else \
            (lambda x, axis: np.argsort(x, axis, kind="stable"))
        for tag, x, axes in [("3d", x3, [1, 0, 2]), ("empty", e, [None, 0, -1]), ("0d", z, [None, -1]),
                             ("long", sort_values("float64", (300,)), [0]),
                             ("ties", arr(list(RNG.integers(0, 3, 200)), "int32"), [0])]:
            for axis in axes:
                FX.case(f"sort/{op}/{tag}/axis={axis_p(axis)}", op, {"axis": axis_p(axis)}, [x],
                        lambda f=f, x=x, axis=axis: f(x, axis))
        FX.case(f"sort/{op}/badaxis", op, {"axis": "2"}, [x3[0]], lambda f=f: f(x3[0], 2))
    # searchsorted: sorted 1-d `a` with ties (NaNs last), queries with NaN, ±inf, equal values
    fa = [-np.inf, -2.0, -0.0, 0.0, 1.0, 1.0, 1.0, 2.5, np.inf, np.nan, np.nan]
    fv = [np.nan, -np.inf, np.inf, -3.0, -2.0, 0.0, -0.0, 1.0, 1.5, 2.5, 3.0, 10.0]
    for dt in FLOATS:
        a, v = arr(fa, dt), arr(fv, dt, (3, 4))
        for side in ["left", "right"]:
            FX.case(f"sort/searchsorted/{dt}/{side}", "searchsorted", {"side": side}, [a, v],
                    lambda a=a, v=v, side=side: np.searchsorted(a, v, side))
    for dt in INTS + ["bool"]:
        if dt == "bool":
            a, v = arr([False, False, True, True, True], dt), arr([True, False], dt)
        else:
            i = info(dt)
            a = arr(sorted(clip_to([int(i.min), -5, 0, 0, 3, 7, 100, int(i.max)], dt) + [0, 3]), dt)
            v = arr(clip_to([int(i.min), int(i.max), 0, 3, 4, -6, 200, 1], dt), dt)
        for side in ["left", "right"]:
            FX.case(f"sort/searchsorted/{dt}/{side}", "searchsorted", {"side": side}, [a, v],
                    lambda a=a, v=v, side=side: np.searchsorted(a, v, side))
    ai, vf = arr([1, 2, 2, 5], "int32"), arr([2.0, 2.5, -1.0, 5.0, np.nan], "float64")
    for side in ["left", "right"]:
        FX.case(f"sort/searchsorted/int32,float64/{side}", "searchsorted", {"side": side}, [ai, vf],
                lambda side=side: np.searchsorted(ai, vf, side))
    FX.case("sort/searchsorted/empty", "searchsorted", {"side": "left"}, [arr([], "float64"), arr([1.0, 2.0], "float64")],
            lambda: np.searchsorted(np.zeros(0), np.array([1.0, 2.0])))
    FX.case("sort/searchsorted/2d-a", "searchsorted", {"side": "left"}, [arr([[1, 2]], "int64"), arr([1], "int64")],
            lambda: np.searchsorted(np.array([[1, 2]]), np.array([1])))
    # partition / argpartition: the sorted result and its kth element (well defined), and, for
    # argpartition, the sorted indices (a permutation)
    for tag, x in [("float64", sort_values("float64", (3, 7))), ("int32", sort_values("int32", (3, 7))),
                   ("uint8", sort_values("uint8", (4, 5)))]:
        for axis in [None, 0, -1]:
            n = x.size if axis is None else x.shape[axis]
            for kth in [0, 2, -1]:
                p = {"axis": axis_p(axis), "kth": kth}
                def part(x=x, axis=axis, kth=kth):
                    r = np.partition(x, kth, axis)
                    ax = -1 if axis is None else axis
                    return [np.sort(r, ax), np.take(r, [kth % n], ax)]
                def apart(x=x, axis=axis, kth=kth):
                    i = np.argpartition(x, kth, axis)
                    xs = x.ravel() if axis is None else x
                    ax = -1 if axis is None else axis
                    r = np.take_along_axis(xs, i, ax)
                    return [np.sort(r, ax), np.take(r, [kth % n], ax), np.sort(i, ax)]
                FX.case(f"sort/partition/{tag}/axis={axis_p(axis)}/kth={kth}", "partition", p, [x], part)
                FX.case(f"sort/argpartition/{tag}/axis={axis_p(axis)}/kth={kth}", "argpartition", p, [x], apart)
    x = sort_values("float64", (3, 7))
    FX.case("sort/partition/kth-out-of-range", "partition", {"axis": "-1", "kth": 7}, [x],
            lambda: np.partition(x, 7, -1))
    # lexsort: the last key sorts first
    k0 = arr(list(RNG.integers(0, 3, 12)), "int32")
    k1 = arr(list(RNG.choice([np.nan, -0.0, 0.0, 1.5, 1.5, -np.inf], 12)), "float64")
    k2 = arr(list(RNG.random(12) < 0.5), "bool")
    k3 = arr(list(RNG.integers(0, 2, 12)), "uint64")
    for name, keys in [("1", [k0]), ("2", [k0, k1]), ("3", [k1, k0, k2]), ("4", [k2, k3, k1, k0])]:
        FX.case(f"sort/lexsort/{name}", "lexsort", {}, keys, lambda keys=keys: np.lexsort(tuple(keys)))
    FX.case("sort/lexsort/lengths", "lexsort", {}, [k0, k1[:5]], lambda: np.lexsort((k0, k1[:5])))


METHODS = ["linear", "lower", "higher", "nearest", "midpoint"]


def q_list(qs):
    return ",".join(repr(float(q)) for q in qs)


def quantiles(x, qs, axis, m):
    """cuprum's `quantiles(a, &[f64], ...)`: each q a Python float (weak, so float16/float32
    inputs keep their dtype; NumPy's q given as a list would be a float64 array)."""
    return np.stack([np.asarray(np.quantile(x, q, axis, method=m)) for q in qs])


def gen_quantile():
    base = RNG.integers(-20, 20, (3, 8)).astype(np.float64) / 4.0
    nan = base.copy()
    nan[0, 3] = np.nan
    nan[1, [1, 5]] = np.nan
    alln = nan.copy()
    alln[2, :] = np.nan
    qs = [0.0, 0.1, 0.25, 0.5, 0.6, 0.9, 1.0]
    inputs = []
    for dt in FLOATS:
        inputs.append((dt, base.astype(dt), True))
        inputs.append((f"{dt}/nan", nan.astype(dt), False))
    inputs.append(("float64/allnan", alln, False))
    for dt in INTS:
        i = info(dt)
        x = RNG.integers(max(int(i.min), -50), min(int(i.max), 100), (3, 8)).astype(dt)
        inputs.append((dt, x, dt in ["int8", "int32", "uint8", "uint64"]))
    big = arr([2**62 + 1, 2**62 + 3, 2**62 + 2, 5, -(2**62) - 1, 2**63 - 1, 2**63 - 2, -(2**63)], "int64")
    inputs.append(("int64/big", big, True))
    ubig = arr([2**64 - 1, 2**64 - 3, 2**63 + 1, 2**63 + 3, 7, 2**53 + 1, 2**53 + 3, 2**64 - 2], "uint64")
    inputs.append(("uint64/big", ubig, True))
    inputs.append(("bool", RNG.random((3, 8)) < 0.5, False))
    for tag, x, full in inputs:
        axes = [None, 0, -1] if x.ndim == 2 else [None, 0]
        for axis in axes:
            p0 = {"axis": axis_p(axis)}
            FX.case(f"quantile/median/{tag}/axis={axis_p(axis)}", "median", p0, [x],
                    lambda x=x, axis=axis: np.median(x, axis))
            if tag.startswith("float") or tag == "bool":
                FX.case(f"quantile/nanmedian/{tag}/axis={axis_p(axis)}", "nanmedian", p0, [x],
                        lambda x=x, axis=axis: np.nanmedian(x, axis))
            for m in METHODS:
                if not full and m in ("higher", "midpoint") and axis == 0:
                    continue
                p = {"axis": axis_p(axis), "method": m}
                if tag == "bool" and m in ("linear", "midpoint") and axis == 0:
                    continue
                FX.case(f"quantile/quantiles/{tag}/axis={axis_p(axis)}/{m}", "quantiles", {**p, "q": q_list(qs)}, [x],
                        lambda x=x, axis=axis, m=m: quantiles(x, qs, axis, m))
                if full or axis is not None:
                    FX.case(f"quantile/quantile/{tag}/axis={axis_p(axis)}/{m}", "quantile", {**p, "q": "0.37"}, [x],
                            lambda x=x, axis=axis, m=m: np.quantile(x, 0.37, axis, method=m))
                    FX.case(f"quantile/percentile/{tag}/axis={axis_p(axis)}/{m}", "percentile", {**p, "q": "62.5"}, [x],
                            lambda x=x, axis=axis, m=m: np.percentile(x, 62.5, axis, method=m))
                if tag.startswith("float") and "nan" in tag:
                    for q in [0.0, 0.3, 0.5, 1.0]:
                        FX.case(f"quantile/nanquantile/{tag}/axis={axis_p(axis)}/{m}/{q}", "nanquantile",
                                {**p, "q": repr(q)}, [x],
                                lambda x=x, axis=axis, m=m, q=q: np.nanquantile(x, q, axis, method=m))
                    FX.case(f"quantile/nanpercentile/{tag}/axis={axis_p(axis)}/{m}", "nanpercentile",
                            {**p, "q": "40.0"}, [x],
                            lambda x=x, axis=axis, m=m: np.nanpercentile(x, 40.0, axis, method=m))
    # 1-d lanes of every length parity, 3-d, a 0-d input, q out of range, empty inputs
    for n in [1, 2, 5, 6]:
        x = arr(list(RNG.integers(-9, 9, n) / 2.0), "float64")
        for m in METHODS:
            FX.case(f"quantile/quantiles/n={n}/{m}", "quantiles", {"axis": "None", "method": m, "q": q_list(qs)}, [x],
                    lambda x=x, m=m: quantiles(x, qs, None, m))
    x3 = RNG.integers(-9, 9, (2, 3, 4)).astype(np.float32)
    for axis in [1, 2]:
        FX.case(f"quantile/median/3d/axis={axis}", "median", {"axis": str(axis)}, [x3], lambda axis=axis: np.median(x3, axis))
        FX.case(f"quantile/quantiles/3d/axis={axis}", "quantiles", {"axis": str(axis), "method": "linear", "q": "0.2,0.7"},
                [x3], lambda axis=axis: quantiles(x3, [0.2, 0.7], axis, "linear"))
    z = arr(3.5, "float64", ())
    FX.case("quantile/median/0d", "median", {"axis": "None"}, [z], lambda: np.median(z))
    FX.case("quantile/quantile/q>1", "quantile", {"axis": "None", "method": "linear", "q": "1.5"}, [base],
            lambda: np.quantile(base, 1.5))
    FX.case("quantile/quantile/q<0", "quantile", {"axis": "None", "method": "lower", "q": "-0.1"}, [base],
            lambda: np.quantile(base, -0.1, method="lower"))
    e = arr([], "float64", (0, 3))
    FX.case("quantile/quantile/empty", "quantile", {"axis": "None", "method": "linear", "q": "0.5"}, [e],
            lambda: np.quantile(e, 0.5))
    # Infinities next to interpolated values (KNOWN_DIFFS: NumPy's _lerp computes inf - inf)
    xi = arr([1.0, 2.0, np.inf, -1.0, np.inf], "float64")
    xn = arr([np.nan, 2.0, np.inf], "float64")
    for tag, x in [("inf", xi), ("inf2", xi[:3]), ("inf-nan", xn)]:
        FX.case(f"quantile/median/{tag}", "median", {"axis": "None"}, [x], lambda x=x: np.median(x))
        FX.case(f"quantile/nanmedian/{tag}", "nanmedian", {"axis": "None"}, [x], lambda x=x: np.nanmedian(x))
        for m in METHODS:
            FX.case(f"quantile/quantiles/{tag}/{m}", "quantiles", {"axis": "None", "method": m, "q": "0.0,0.5,0.75,1.0"},
                    [x], lambda x=x, m=m: quantiles(x, [0.0, 0.5, 0.75, 1.0], None, m))
            FX.case(f"quantile/nanquantile/{tag}/{m}", "nanquantile", {"axis": "None", "method": m, "q": "0.5"},
                    [x], lambda x=x, m=m: np.nanquantile(x, 0.5, method=m))
    # NumPy: nan (with a RuntimeWarning); cuprum raises Error::Value (KNOWN_DIFFS)
    FX.case("quantile/median/empty", "median", {"axis": "None"}, [e], lambda: np.median(e))
    FX.case("quantile/nanmedian/empty", "nanmedian", {"axis": "None"}, [e], lambda: np.nanmedian(e))


def gen_unique():
    flags = [(0, 0, 0), (1, 1, 1)]
    for dt in DTYPES:
        x = sort_values(dt, (3, 5))
        for fl in flags + ([(1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 1, 1)] if dt in ("float32", "int16") else []):
            p = {"index": fl[0], "inverse": fl[1], "counts": fl[2]}
            FX.case(f"unique/unique/{dt}/{''.join(map(str, fl))}", "unique", p, [x],
                    lambda x=x, fl=fl: np.unique(x, *map(bool, fl)))
    for tag, x in [("empty", arr([], "float32", (0, 2))), ("0d", arr(7, "int8", ())),
                   ("allnan", arr([np.nan] * 4, "float64")), ("long", arr(list(RNG.integers(0, 40, 500)), "int32"))]:
        FX.case(f"unique/unique/{tag}/111", "unique", {"index": 1, "inverse": 1, "counts": 1}, [x],
                lambda x=x: np.unique(x, True, True, True))
    # bincount
    xs = {"int64": arr([0, 1, 1, 3, 2, 1, 7], "int64"), "uint8": arr([5, 0, 0, 2], "uint8"),
          "int8": arr([3, 3, 0], "int8"), "bool": arr([True, False, True], "bool"), "uint64": arr([2, 9, 2], "uint64")}
    for dt, x in xs.items():
        for ml in [0, 12]:
            FX.case(f"unique/bincount/{dt}/minlength={ml}", "bincount", {"minlength": ml}, [x],
                    lambda x=x, ml=ml: np.bincount(x, minlength=ml))
    x = xs["int64"]
    for wdt in ["float64", "float32", "int32"]:
        w = arr([0.5, 1.0, -2.0, 4.0, 0.25, 8.0, 3.0], wdt) if wdt != "int32" else arr([1, 2, -3, 4, 5, 6, 7], wdt)
        FX.case(f"unique/bincount/weights={wdt}", "bincount", {"minlength": 3}, [x, w],
                lambda w=w: np.bincount(x, w, minlength=3))
    FX.case("unique/bincount/empty", "bincount", {"minlength": 4}, [arr([], "int64")],
            lambda: np.bincount(np.zeros(0, np.int64), minlength=4))
    FX.case("unique/bincount/empty0", "bincount", {"minlength": 0}, [arr([], "int64")],
            lambda: np.bincount(np.zeros(0, np.int64)))
    FX.case("unique/bincount/negative", "bincount", {"minlength": 0}, [arr([1, -1], "int32")],
            lambda: np.bincount(np.array([1, -1], np.int32)))
    FX.case("unique/bincount/float", "bincount", {"minlength": 0}, [arr([1.0], "float64")],
            lambda: np.bincount(np.array([1.0])))
    # histogram
    data = RNG.integers(-40, 40, 30).astype(np.float64) / 8.0
    wts = RNG.integers(1, 5, 30).astype(np.float64) / 2.0
    dnan = data.copy()
    dnan[[3, 17]] = np.nan
    edges = arr([-5.0, -1.0, 0.0, 0.5, 2.0, 10.0], "float64")
    cases = [("count5", data, {"bins": 5}, []), ("count1", data, {"bins": 1}, []),
             ("count4,range", data, {"bins": 4, "range": "-1.0,3.0"}, []),
             ("count3,range-degenerate", data, {"bins": 3, "range": "2.0,2.0"}, []),
             ("edges", data, {"bins": "edges"}, [edges]),
             ("count6,weights", data, {"bins": 6, "weights": 1}, [wts]),
             ("edges,weights", data, {"bins": "edges", "weights": 1}, [edges, wts]),
             ("count5,density", data, {"bins": 5, "density": 1}, []),
             ("edges,density", data, {"bins": "edges", "density": 1}, [edges]),
             ("edges,weights,density", data, {"bins": "edges", "weights": 1, "density": 1}, [edges, wts]),
             ("nan,range", dnan, {"bins": 4, "range": "-2.0,2.0"}, []),
             ("nan,auto", dnan, {"bins": 4}, []),
             ("int16", data.astype(np.int16) * 3, {"bins": 7}, []),
             ("uint8,edges", arr([0, 1, 2, 3, 3, 200, 255], "uint8"), {"bins": "edges"}, [arr([0.0, 2.0, 3.0, 255.0], "float64")]),
             ("float32", data.astype(np.float32), {"bins": 5}, []),
             ("float32,edges", data.astype(np.float32), {"bins": "edges"}, [edges]),
             ("int32,weights-int", arr([1, 2, 2, 3], "int32"), {"bins": 2, "weights": 1}, [arr([1, 2, 3, 4], "int64")]),
             ("weights-float32", data, {"bins": 3, "weights": 1}, [wts.astype(np.float32)]),
             ("constant", np.full(5, 2.0), {"bins": 3}, []),
             ("empty", np.zeros(0), {"bins": 3}, []),
             ("range-bad", data, {"bins": 3, "range": "3.0,1.0"}, []),
             ("edges-bad", data, {"bins": "edges"}, [arr([0.0, 2.0, 1.0], "float64")])]
    for tag, x, p, extra in cases:
        p = {"bins": p["bins"], "range": p.get("range", "None"), "weights": p.get("weights", 0),
             "density": p.get("density", 0)}
        def h(x=x, p=p, extra=extra):
            bins = extra[0] if p["bins"] == "edges" else p["bins"]
            w = extra[-1] if p["weights"] else None
            rng = None if p["range"] == "None" else tuple(float(t) for t in p["range"].split(","))
            return list(np.histogram(x, bins, rng, density=bool(p["density"]), weights=w))
        FX.case(f"unique/histogram/{tag}", "histogram", p, [x] + extra, h)
    # digitize
    xd = arr([np.nan, -np.inf, -3.0, -1.0, 0.0, 0.5, 1.0, 2.0, 2.5, 10.0, np.inf], "float64")
    for tag, bins in [("inc", arr([-1.0, 0.0, 1.0, 1.0, 2.5], "float64")), ("dec", arr([2.5, 1.0, 0.0, -1.0], "float64")),
                      ("one", arr([0.5], "float64")), ("empty", arr([], "float64")),
                      ("nonmono", arr([0.0, 2.0, 1.0], "float64"))]:
        for right in [0, 1]:
            FX.case(f"unique/digitize/{tag}/right={right}", "digitize", {"right": right}, [xd, bins],
                    lambda bins=bins, right=right: np.digitize(xd, bins, bool(right)))
    xi, bi = arr([[-5, 0, 3], [7, 100, 2]], "int32"), arr([0, 3, 7], "int64")
    for right in [0, 1]:
        FX.case(f"unique/digitize/int/right={right}", "digitize", {"right": right}, [xi, bi],
                lambda right=right: np.digitize(xi, bi, bool(right)))
    # isin
    for tag, e, t in [("int", arr([[1, 5, 9], [0, -3, 5]], "int64"), arr([5, 0, 7, 0], "int64")),
                      ("int8,int64", arr([1, -128, 127], "int8"), arr([127, 300], "int64")),
                      ("float,nan", arr([np.nan, 1.0, -0.0, np.inf, 2.0], "float64"), arr([np.nan, 0.0, np.inf, 1.0], "float64")),
                      ("float32,int", arr([1.0, 1.5, 3.0], "float32"), arr([1, 3], "int16")),
                      ("uint64", arr([2**64 - 1, 0, 2**63], "uint64"), arr([2**64 - 1, 5], "uint64")),
                      ("bool", arr([True, False], "bool"), arr([True], "bool")),
                      ("empty-test", arr([1, 2], "int32"), arr([], "int32")),
                      ("empty-elem", arr([], "float64"), arr([1.0], "float64"))]:
        FX.case(f"unique/isin/{tag}", "isin", {}, [e, t], lambda e=e, t=t: np.isin(e, t))


def gen_select():
    for dt in DTYPES:
        a = rand(dt, (3, 4))
        m = RNG.random((3, 4)) < 0.5
        FX.case(f"select/mask/{dt}", "mask", {}, [a, m], lambda a=a, m=m: a[m])
    a3 = rand("float32", (2, 3, 4))
    m3 = RNG.random((2, 3, 4)) < 0.4
    for tag, a, m in [("3d/full", a3, m3), ("3d/2d-mask", a3, RNG.random((2, 3)) < 0.5),
                      ("3d/1d-mask", a3, np.array([False, True])), ("none", a3, np.zeros((2, 3, 4), bool)),
                      ("all", rand("int16", (3, 4)), np.ones((3, 4), bool)), ("empty", rand("int16", (0, 4)), np.zeros((0,), bool)),
                      ("bad-shape", a3, np.ones((3,), bool))]:
        FX.case(f"select/mask/{tag}", "mask", {}, [a, m], lambda a=a, m=m: a[m])
    # compress
    c = rand("int32", (3, 5))
    for tag, cond, axis in [("axis0", [True, False, True], 0), ("axis1-short", [False, True, True], 1),
                            ("axis-1", [True, False, True, False, True], -1), ("None", [True, False, False, True, True, False, True], None),
                            ("none-true", [False, False], 0), ("too-long", [True] * 6, 1), ("axis2", [True], 2)]:
        cond = np.array(cond)
        FX.case(f"select/compress/{tag}", "compress", {"axis": axis_p(axis)}, [cond, c],
                lambda cond=cond, axis=axis: np.compress(cond, c, axis))
    # extract
    cf = rand("float64", (3, 4))
    for tag, cond in [("bool", RNG.random((3, 4)) < 0.5), ("int", RNG.integers(-1, 2, (3, 4)).astype(np.int8)),
                      ("float", arr([0.0, -0.0, np.nan, 1.5] * 3, "float64", (3, 4)))]:
        FX.case(f"select/extract/{tag}", "extract", {}, [cond, cf], lambda cond=cond: np.extract(cond, cf))
    # nonzero / flatnonzero / argwhere
    nz = [("bool2d", RNG.random((3, 4)) < 0.5), ("int3d", RNG.integers(-1, 2, (2, 3, 4)).astype(np.int32)),
          ("float1d", arr([0.0, -0.0, np.nan, 1.5, 0.0, -np.inf], "float64")), ("uint8", arr([0, 255, 0, 1], "uint8")),
          ("float16", arr([0.0, 1e-7, -0.0, 2.0], "float16")), ("zeros", np.zeros((2, 2))), ("empty", np.zeros((0, 3))),
          ("0d", arr(3.0, "float64", ())), ("0d-zero", arr(0, "int32", ()))]
    for tag, x in nz:
        FX.case(f"select/nonzero/{tag}", "nonzero", {}, [x], lambda x=x: list(np.nonzero(x)))
        FX.case(f"select/flatnonzero/{tag}", "flatnonzero", {}, [x], lambda x=x: np.flatnonzero(x))
        FX.case(f"select/argwhere/{tag}", "argwhere", {}, [x], lambda x=x: np.argwhere(x))
    # cumsum / cumprod: NumPy's accumulator dtypes
    for dt in DTYPES:
        x = rand(dt, (3, 4), lo=-120, hi=120)
        xp = prod_safe_floats((3, 4)).astype(dt) if dt in FLOATS else rand(dt, (3, 4), lo=-9, hi=9)
        for axis in [None, 0, -1]:
            FX.case(f"select/cumsum/{dt}/axis={axis_p(axis)}", "cumsum", {"axis": axis_p(axis)}, [x],
                    lambda x=x, axis=axis: np.cumsum(x, axis))
            FX.case(f"select/cumprod/{dt}/axis={axis_p(axis)}", "cumprod", {"axis": axis_p(axis)}, [xp],
                    lambda xp=xp, axis=axis: np.cumprod(xp, axis))
    for tag, x in [("nan", arr([1.0, np.nan, 2.0, np.inf, -np.inf], "float64")), ("0d", arr(5, "int8", ())),
                   ("empty", arr([], "float32", (0, 3))), ("3d", rand("int16", (2, 3, 4))),
                   ("wrap", arr([2**63, 2**63, 5], "uint64")), ("int64-wrap", arr([2**62, 2**62, 2**62], "int64"))]:
        for axis in [None] + ([1] if x.ndim >= 2 else []):
            for op in ["cumsum", "cumprod"]:
                FX.case(f"select/{op}/{tag}/axis={axis_p(axis)}", op, {"axis": axis_p(axis)}, [x],
                        lambda op=op, x=x, axis=axis: getattr(np, op)(x, axis))
    FX.case("select/cumsum/badaxis", "cumsum", {"axis": "2"}, [rand("int32", (2, 2))],
            lambda: np.cumsum(np.zeros((2, 2), np.int32), 2))
    # diff
    for dt in ["bool", "int8", "uint8", "int64", "uint64", "float16", "float32", "float64"]:
        x = rand(dt, (3, 5), lo=-120, hi=120)
        for n, axis in [(1, -1), (1, 0), (2, -1), (0, 0), (3, 0), (6, -1)]:
            FX.case(f"select/diff/{dt}/n={n}/axis={axis}", "diff", {"n": n, "axis": axis}, [x],
                    lambda x=x, n=n, axis=axis: np.diff(x, n, axis))
    xf = arr([1.0, np.nan, np.inf, np.inf, -0.0, 0.0, 3.5], "float64")
    FX.case("select/diff/special", "diff", {"n": 1, "axis": 0}, [xf], lambda: np.diff(xf))
    FX.case("select/diff/badaxis", "diff", {"n": 1, "axis": 1}, [xf], lambda: np.diff(xf, axis=1))


def gen_index():
    for dt in ["bool", "int8", "uint16", "int64", "float16", "float32", "float64"]:
        a = rand(dt, (3, 4))
        for tag, idx, axis in [("None", arr([0, -1, 5, 5, 11], "int64"), None), ("axis0", arr([2, -3, 0], "int32"), 0),
                               ("axis1", arr([[3, 0], [-1, 1]], "int64"), 1), ("axis-1", arr([1, 1, 1], "uint8"), -1)]:
            FX.case(f"index/take/{dt}/{tag}", "take", {"axis": axis_p(axis)}, [a, idx],
                    lambda a=a, idx=idx, axis=axis: np.take(a, idx, axis))
    a3 = rand("float64", (2, 3, 4))
    for tag, idx, axis in [("3d/axis1", arr([[2, 0, 1, 1]], "int64"), 1), ("3d/None-2d", arr([[0, 23], [-24, 7]], "int16"), None),
                           ("empty", arr([], "int64"), 0), ("oob", arr([0, 3], "int64"), 1), ("oob-neg", arr([-5], "int64"), 2),
                           ("oob-None", arr([24], "int64"), None), ("float-idx", arr([1.0], "float64"), 0),
                           ("badaxis", arr([0], "int64"), 3), ("0d-idx", arr(1, "int64", ()), 2)]:
        FX.case(f"index/take/{tag}", "take", {"axis": axis_p(axis)}, [a3, idx],
                lambda idx=idx, axis=axis: np.take(a3, idx, axis))
    # take_along_axis (with the argsort result, and broadcasting index shapes)
    for dt in ["int32", "float32", "bool"]:
        a = rand(dt, (3, 5))
        for axis in [0, 1, -1]:
            idx = np.argsort(a, axis, kind="stable")
            FX.case(f"index/take_along_axis/{dt}/argsort/axis={axis}", "take_along_axis", {"axis": axis}, [a, idx],
                    lambda a=a, idx=idx, axis=axis: np.take_along_axis(a, idx, axis))
    a = rand("int64", (3, 5))
    for tag, idx, axis in [("bcast-rows", arr([[0, -1, 2]], "int64"), 1), ("bcast-cols", arr([[2], [0]], "int64"), 0),
                           ("neg", arr([[-1, -2, -3, -4, -5]] * 3, "int32"), 1), ("oob", arr([[0, 5]] * 3, "int64"), 1),
                           ("ndim", arr([0, 1], "int64"), 1), ("3d", None, 2)]:
        if tag == "3d":
            x = rand("float64", (2, 3, 4))
            idx = np.argsort(x, 2)[:, :, :2].copy()
        else:
            x = a
        FX.case(f"index/take_along_axis/{tag}", "take_along_axis", {"axis": axis}, [x, idx],
                lambda x=x, idx=idx, axis=axis: np.take_along_axis(x, idx, axis))
    # put (the array after the call)
    def put(a, i, v):
        a = a.copy()
        np.put(a, i, v)
        return a
    for dt in ["int32", "float64", "uint8", "bool"]:
        a = rand(dt, (3, 4))
        for tag, i, v in [("repeat-values", arr([0, -1, 5, 5, 7], "int64"), rand(dt, (2,))),
                          ("2d-idx", arr([[1, 2], [3, 11]], "int32"), rand(dt, (2, 2))),
                          ("one", arr([4], "int64"), rand(dt, (3,)))]:
            FX.case(f"index/put/{dt}/{tag}", "put", {}, [a, i, v], lambda a=a, i=i, v=v: put(a, i, v))
    a = rand("float32", (3, 4))
    FX.case("index/put/float32/int-values", "put", {}, [a, arr([0, 1], "int64"), arr([7, -2], "int16")],
            lambda: put(a, np.array([0, 1]), np.array([7, -2], np.int16)))
    FX.case("index/put/oob", "put", {}, [a, arr([12], "int64"), arr([1.0], "float32")],
            lambda: put(a, np.array([12]), np.array([1.0], np.float32)))
    FX.case("index/put/empty-idx", "put", {}, [a, arr([], "int64"), arr([1.0], "float32")],
            lambda: put(a, np.array([], np.int64), np.array([1.0], np.float32)))
    # np.add.at (inputs: a, values, index arrays)
    def add_at(a, v, *idx):
        a = a.copy()
        np.add.at(a, idx, v)
        return a
    for dt in ["int32", "uint8", "int64", "float64", "float32"]:
        a = rand(dt, (5,))
        i = arr([0, 1, 1, -1, 4, 0, 0], "int64")
        v = rand(dt, (7,))
        FX.case(f"index/add.at/{dt}/1d", "add.at", {}, [a, v, i], lambda a=a, v=v, i=i: add_at(a, v, i))
        a2 = rand(dt, (3, 4))
        ir = arr([2, 0, 2], "int64")
        vr = rand(dt, (3, 4))
        FX.case(f"index/add.at/{dt}/rows", "add.at", {}, [a2, vr, ir], lambda a2=a2, vr=vr, ir=ir: add_at(a2, vr, ir))
        i0, i1 = arr([0, 2, 0, 0], "int64"), arr([1, 3, 1, -4], "int32")
        v2 = rand(dt, (4,))
        FX.case(f"index/add.at/{dt}/2idx", "add.at", {}, [a2, v2, i0, i1],
                lambda a2=a2, v2=v2, i0=i0, i1=i1: add_at(a2, v2, i0, i1))
    a = rand("float64", (3, 4))
    FX.case("index/add.at/scalar-value", "add.at", {}, [a, arr(1.5, "float64", ()), arr([1, 1, 2], "int64")],
            lambda: add_at(a, np.float64(1.5), np.array([1, 1, 2])))
    FX.case("index/add.at/oob", "add.at", {}, [a, arr(1.5, "float64", ()), arr([3], "int64")],
            lambda: add_at(a, np.float64(1.5), np.array([3])))


def gen_manip():
    x = rand("int8", (2, 3))
    y = rand("float32", (2, 2))
    z = rand("int8", (1, 3))
    u = rand("uint16", (2, 3))
    v1, w1 = rand("int32", (3,)), rand("int32", (3,))
    s0 = arr(4, "int64", ())
    for tag, arrays, axis in [("axis1,promote", [x, y], 1), ("axis0", [x, z, x], 0), ("axis-1", [x, u], -1),
                              ("1d", [v1, w1, v1], 0), ("bad-shape", [x, y], 0), ("0d", [s0, s0], 0),
                              ("badaxis", [x, x], 2), ("empty", [x[:0], z], 0)]:
        FX.case(f"manip/concatenate/{tag}", "concatenate", {"axis": axis}, arrays,
                lambda arrays=arrays, axis=axis: np.concatenate(arrays, axis))
    for tag, arrays in [("2d", [x, u]), ("1d", [v1, w1]), ("0d", [s0, s0]), ("bad", [x, z])]:
        for axis in [0, -1, 1]:
            FX.case(f"manip/stack/{tag}/axis={axis}", "stack", {"axis": axis}, arrays,
                    lambda arrays=arrays, axis=axis: np.stack(arrays, axis))
    for op in ["hstack", "vstack", "dstack"]:
        for tag, arrays in [("2d", [x, u]), ("1d", [v1, w1]), ("0d", [s0, s0]), ("mixed", [x, z])]:
            FX.case(f"manip/{op}/{tag}", op, {}, arrays, lambda op=op, arrays=arrays: getattr(np, op)(arrays))
    a = rand("float64", (4, 6))
    for op in ["split", "array_split"]:
        for tag, sec, axis in [("count2", "2", 0), ("count3", "3", 1), ("count4", "4", 1), ("count5", "5", 0),
                               ("idx", "i:2,3", 1), ("idx-neg", "i:-2,1,9", 1), ("idx-empty", "i:", 0)]:
            secs = [int(t) for t in sec[2:].split(",") if t] if sec.startswith("i:") else int(sec)
            FX.case(f"manip/{op}/{tag}/axis={axis}", op, {"sections": sec, "axis": axis}, [a],
                    lambda op=op, secs=secs, axis=axis: list(getattr(np, op)(a, secs, axis)))
    b = rand("int16", (2, 3, 4))
    for axis in [None, 0, 1, -1]:
        FX.case(f"manip/flip/axis={axis_p(axis)}", "flip", {"axis": axis_p(axis)}, [b], lambda axis=axis: np.flip(b, axis))
    for shift, axis in [(1, None), (-5, None), (2, 0), (-1, 1), (9, 2), (0, 1), (30, None)]:
        FX.case(f"manip/roll/{shift}/axis={axis_p(axis)}", "roll", {"shift": shift, "axis": axis_p(axis)}, [b],
                lambda shift=shift, axis=axis: np.roll(b, shift, axis))
    c = rand("float32", (2, 3))
    for reps in [(2,), (2, 1), (1, 2, 3), (0, 2), (3,)]:
        rs = ",".join(map(str, reps))
        for tag, src in [("2d", c), ("1d", v1)]:
            FX.case(f"manip/tile/{tag}/{rs}", "tile", {"reps": rs}, [src], lambda src=src, reps=reps: np.tile(src, reps))
    for r, axis in [(2, None), (3, 0), (2, 1), (0, 1), (1, -1)]:
        FX.case(f"manip/repeat/{r}/axis={axis_p(axis)}", "repeat", {"repeats": r, "axis": axis_p(axis)}, [c],
                lambda r=r, axis=axis: np.repeat(c, r, axis))
    FX.case("manip/repeat/0d", "repeat", {"repeats": 3, "axis": "None"}, [s0], lambda: np.repeat(s0, 3))
    # pad
    p2 = rand("int32", (3, 4))
    p1 = rand("float64", (5,))
    for mode in ["constant", "edge", "reflect", "symmetric", "wrap"]:
        for tag, src, width in [("2d", p2, [(1, 2), (0, 3)]), ("2d-wide", p2, [(4, 7), (5, 9)]), ("1d", p1, [(2, 0)]),
                                ("len1", arr([7.5], "float32"), [(3, 2)]), ("zero", p2, [(0, 0), (0, 0)])]:
            ws = ",".join(f"{b}:{f}" for b, f in width)
            ins = [src] + ([-1.5] if mode == "constant" else [])
            kw = {"constant_values": -1.5} if mode == "constant" else {}
            FX.case(f"manip/pad/{mode}/{tag}", "pad", {"width": ws, "mode": mode}, ins,
                    lambda src=src, width=width, mode=mode, kw=kw: np.pad(src, width, mode=mode, **kw))
    FX.case("manip/pad/constant/int", "pad", {"width": "2:1,1:0", "mode": "constant"}, [p2, 7],
            lambda: np.pad(p2, [(2, 1), (1, 0)], constant_values=7))
    FX.case("manip/pad/constant/uint8", "pad", {"width": "1:1", "mode": "constant"}, [arr([1, 2], "uint8"), 255],
            lambda: np.pad(arr([1, 2], "uint8"), [(1, 1)], constant_values=255))
    FX.case("manip/pad/edge/empty-axis", "pad", {"width": "1:1,0:0", "mode": "edge"}, [arr([], "float64", (0, 2))],
            lambda: np.pad(np.zeros((0, 2)), [(1, 1), (0, 0)], mode="edge"))
    FX.case("manip/pad/constant/empty-axis", "pad", {"width": "1:1,0:0", "mode": "constant"}, [arr([], "float64", (0, 2)), 0.0],
            lambda: np.pad(np.zeros((0, 2)), [(1, 1), (0, 0)], constant_values=0.0))
    for op in ["atleast_1d", "atleast_2d", "atleast_3d"]:
        for tag, src in [("0d", s0), ("1d", v1), ("2d", c), ("3d", b)]:
            FX.case(f"manip/{op}/{tag}", op, {}, [src], lambda op=op, src=src: getattr(np, op)(src))


# ------------------------------------------------------------------ 15. signal (convolution)

def signal_values(dt, shape, rng, small=False):
    """Values of `dt` for convolutions: integers over the dtype's whole range (products and sums
    wrap) or, with `small`, in [-9, 9] ([0, 9] unsigned); floats as multiples of 1/8 (1/4 for
    float16) in [-4, 4), whose products and sums are exact in any order; bools half True."""
    n = int(np.prod(shape))
    if dt == "bool":
        return rng.random(shape) < 0.5
    if dt in INTS:
        i = info(dt)
        lo, hi = (0 if dt in UNSIGNED else -9, 10) if small else (int(i.min), int(i.max) + 1)
        return rng.integers(lo, hi, n, dtype=dt).reshape(shape)
    q = 4 if dt == "float16" else 8
    return (rng.integers(-4 * q, 4 * q, n) / q).astype(dt).reshape(shape)


CONV_MODES = ["full", "same", "valid"]
SIGNAL_MIXED = [("int8", "uint8"), ("uint8", "int8"), ("int64", "uint64"), ("uint64", "int8"), ("int16", "float16"),
                ("uint8", "float16"), ("bool", "int8"), ("int8", "bool"), ("uint8", "bool"), ("bool", "float32"),
                ("int32", "float32"), ("float32", "float64"), ("uint16", "int32"), ("int16", "uint32")]


def gen_signal():
    try:
        import scipy.signal as sps
    except ImportError:
        sys.exit("the signal group needs SciPy: python3 -m pip install scipy")
    rng = np.random.default_rng(20250710)  # its own generator: --only signal gives the same cases

    def conv1(op, tag, a, v, mode):
        f = np.convolve if op == "convolve" else np.correlate
        FX.case(f"signal/{op}/{tag}/{mode}", op, {"mode": mode}, [a, v], lambda: f(a, v, mode))

    def conv2(op, tag, a, k, mode, boundary, fv):
        f = sps.convolve2d if op == "convolve2d" else sps.correlate2d
        FX.case(f"signal/{op}/{tag}/{mode},{boundary},{fv!r}", op,
                {"mode": mode, "boundary": boundary, "fillvalue": repr(fv)}, [a, k],
                lambda: f(a, k, mode=mode, boundary=boundary, fillvalue=fv))

    # np.convolve / np.correlate: v shorter (odd and even lengths), as long as, longer than a
    # (NumPy swaps them; correlate then reverses its result), every mode, every dtype.
    for dt in DTYPES:
        a = signal_values(dt, (7,), rng)
        for m in [3, 4, 7, 10]:
            v = signal_values(dt, (m,), rng)
            for op in ["convolve", "correlate"]:
                for mode in CONV_MODES:
                    conv1(op, f"{dt}/7x{m}", a, v, mode)
    for dt in ["int32", "float64"]:
        a = signal_values(dt, (6,), rng, small=True)
        v = signal_values(dt, (2,), rng, small=True)
        for op in ["convolve", "correlate"]:
            for mode in CONV_MODES:
                conv1(op, f"{dt}/small/6x2", a, v, mode)
                conv1(op, f"{dt}/small/2x6", v, a, mode)
    # Length-1 operands.
    for dt in ["uint8", "int32", "float64"]:
        one, one_b, seven = (signal_values(dt, (n,), rng) for n in (1, 1, 7))
        for op in ["convolve", "correlate"]:
            for mode in CONV_MODES:
                conv1(op, f"{dt}/1x1", one, one_b, mode)
                conv1(op, f"{dt}/7x1", seven, one, mode)
                conv1(op, f"{dt}/1x7", one, seven, mode)
    # Mixed dtypes: NumPy's promotion.
    for da, db in SIGNAL_MIXED:
        a = signal_values(da, (6,), rng)
        v = signal_values(db, (4,), rng)
        for op in ["convolve", "correlate"]:
            for mode in CONV_MODES:
                conv1(op, f"{da},{db}/6x4", a, v, mode)
    # NaN and infinities (inf * 0 is NaN), a float64 kernel with a zero.
    a = arr([1.0, np.nan, 2.0, 0.5, np.inf, -1.0, 3.0, 0.25, -np.inf, 1.0], "float64")
    v = arr([0.5, 0.0, -2.0], "float64")
    for op in ["convolve", "correlate"]:
        for mode in CONV_MODES:
            conv1(op, "float64/nan-inf", a, v, mode)
    # Errors: empty operands, not 1-d, unknown modes; 0-d operands (np.convolve makes them
    # 1-d, np.correlate raises).
    e, x, x2 = arr([], "float64"), arr([1.0, 2.0, 3.0], "float64"), arr([[1.0, 2.0], [3.0, 4.0]], "float64")
    z = arr(2.5, "float64", ())
    for op in ["convolve", "correlate"]:
        for mode in ["full", "valid"]:
            conv1(op, "empty-a", e, x, mode)
            conv1(op, "empty-v", x, e, mode)
        conv1(op, "empty-both", e, e, "full")
        conv1(op, "2d-a", x2, x, "full")
        conv1(op, "2d-v", x, x2, "full")
        conv1(op, "0d-a", z, x, "full")
        conv1(op, "0d-v", x, z, "same")
        for mode in ["foo", "Full", "f", ""]:
            conv1(op, "badmode", x, x, mode)

    # scipy.signal.convolve2d / correlate2d. Every dtype: an odd square kernel and an even
    # non-square one, every mode and boundary, fill values 0, 2.5 (truncated for integer
    # outputs) and -1 (an error for unsigned outputs).
    for dt in DTYPES:
        img = signal_values(dt, (5, 7), rng)
        kernels = [("3x3", signal_values(dt, (3, 3), rng)), ("2x4", signal_values(dt, (2, 4), rng))]
        if dt in ("bool", "float16"):  # SciPy refuses these dtypes: a few cases suffice
            kernels = kernels[:1]
        for kname, k in kernels:
            for op in ["convolve2d", "correlate2d"]:
                for mode in CONV_MODES:
                    for boundary, fv in [("fill", 0.0), ("fill", 2.5), ("fill", -1.0), ("wrap", 0.0),
                                         ("symm", 0.0)]:
                        if dt in ("bool", "float16") and fv != 0.0:
                            continue
                        conv2(op, f"{dt}/5x7*{kname}", img, k, mode, boundary, fv)
    # Shapes: 1xN, Nx1 and 1x1 kernels, a 4x3 kernel on a 9x11 image, row and column images,
    # kernels larger than the image in every dimension (in 'valid' mode SciPy swaps the
    # operands; correlate2d then reverses its result) and in one only ('valid' raises).
    shapes = [("9x11*1x4", (9, 11), (1, 4)), ("9x11*3x1", (9, 11), (3, 1)), ("9x11*1x1", (9, 11), (1, 1)),
              ("9x11*4x3", (9, 11), (4, 3)), ("1x8*1x3", (1, 8), (1, 3)), ("6x1*2x1", (6, 1), (2, 1)),
              ("1x8*2x2", (1, 8), (2, 2)), ("2x3*5x6", (2, 3), (5, 6)), ("2x3*4x4", (2, 3), (4, 4)),
              ("3x4*4x3", (3, 4), (4, 3)), ("3x4*2x6", (3, 4), (2, 6)), ("4x4*4x4", (4, 4), (4, 4))]
    for dt, small in [("float64", False), ("int32", True), ("uint8", False)]:
        for tag, si, sk in shapes:
            img, k = signal_values(dt, si, rng, small), signal_values(dt, sk, rng, small)
            for op in ["convolve2d", "correlate2d"]:
                for mode in CONV_MODES:
                    for boundary, fv in [("fill", 0.0), ("fill", 7.0), ("wrap", 0.0), ("symm", 0.0)]:
                        conv2(op, f"{dt}/{tag}", img, k, mode, boundary, fv)
    # Fill values cast to the output dtype: truncated toward zero; a value outside the integer
    # dtype's range (after truncation), NaN or inf raises ValueError, in every mode (also
    # 'valid', which uses no fill value); float outputs round (float32: 1e40 -> inf).
    fills = {"uint8": [7.0, 255.9, -0.5, -2.5, 256.0, 300.0], "int8": [127.5, -128.9, -129.0, 128.0, -2.5],
             "int16": [-2.7, 40000.0], "int32": [-2.5, 2.7, 1e10, float("nan"), float("inf")],
             "int64": [-(2.0**63), 2.0**63, 2.0**62], "uint64": [2.0**63, 2.0**64, -1.0],
             "float32": [0.1, 1e40, float("inf"), float("nan"), -2.5], "float64": [float("nan"), -1e300, 1 / 3]}
    for dt, fvs in fills.items():
        img, k = signal_values(dt, (3, 4), rng, small=True), signal_values(dt, (2, 2), rng, small=True)
        for fv in fvs:
            for op in ["convolve2d", "correlate2d"]:
                for mode in ["full", "same"] + (["valid"] if fv in (-1.0, -2.5, 256.0, 2.0**63) else []):
                    conv2(op, f"{dt}/fill", img, k, mode, "fill", fv)
    img8, k8 = signal_values("uint8", (3, 4), rng, small=True), signal_values("uint8", (2, 2), rng, small=True)
    for boundary in ["wrap", "symm"]:  # the fill value is not used (nor checked)
        conv2("convolve2d", "uint8/fill-unused", img8, k8, "same", boundary, -1.0)
    # Mixed dtypes: SciPy's result dtype (np.result_type; float16 and bool results raise).
    for da, db in SIGNAL_MIXED:
        img, k = signal_values(da, (4, 5), rng), signal_values(db, (2, 3), rng)
        for op in ["convolve2d", "correlate2d"]:
            conv2(op, f"{da},{db}", img, k, "full", "fill", 0.0)
            conv2(op, f"{da},{db}", img, k, "same", "fill", -1.0)
            conv2(op, f"{da},{db}", img, k, "valid", "symm", 0.0)
    # A smooth image and a normalised Gaussian kernel (values that are not exact sums).
    yy, xx = np.mgrid[0:9, 0:11]
    smooth = (np.sin(yy / 3.0) * np.cos(xx / 4.0) + 2.0).astype("float64")
    g = np.exp(-((np.arange(5) - 2.0) ** 2) / 2.0)
    gauss = np.outer(g, g) / np.outer(g, g).sum()
    for dt in ["float32", "float64"]:
        for op in ["convolve2d", "correlate2d"]:
            for mode in CONV_MODES:
                for boundary in ["fill", "wrap", "symm"]:
                    conv2(op, f"{dt}/gauss", smooth.astype(dt), gauss.astype(dt), mode, boundary, 0.0)
    # NaN and infinities in the image, a kernel with a zero; NaN as the fill value.
    nimg = signal_values("float64", (4, 5), rng)
    nimg[1, 2], nimg[3, 0], nimg[0, 4] = np.nan, np.inf, -np.inf
    nk = arr([[1.0, 0.0], [-0.5, 2.0]], "float64")
    for op in ["convolve2d", "correlate2d"]:
        for mode in CONV_MODES:
            for boundary in ["fill", "wrap", "symm"]:
                conv2(op, "float64/nan-inf", nimg, nk, mode, boundary, 0.0)
    # Boundary and mode names: SciPy's aliases, and names it refuses ('reflect' is in its table
    # but the C code refuses it); empty operands (SciPy gives results); not 2-d.
    im, kk = signal_values("float64", (3, 4), rng), signal_values("float64", (2, 2), rng)
    for op in ["convolve2d", "correlate2d"]:
        for boundary in ["pad", "circular", "symmetric", "reflect", "foo", "Fill", ""]:
            conv2(op, "float64/names", im, kk, "full", boundary, 1.0)
        for mode in ["foo", "Full", "f"]:
            conv2(op, "float64/names", im, kk, mode, "fill", 0.0)
        for tag, a, b in [("1d-in1", im[0], kk), ("1d-in2", im, kk[0]), ("3d-in1", im[None], kk),
                          ("0d-in2", im, kk[0, 0]), ("empty-in1", arr([], "float64", (0, 3)), kk),
                          ("empty-in2", im, arr([], "float64", (0, 2)))]:
            for mode in CONV_MODES:
                conv2(op, f"float64/{tag}", a, b, mode, "fill", 1.0)


def gen_ndimage_label():
    """scipy.ndimage.label: every dtype, 1-d to 4-d, densities, default and explicit structures
    (every connectivity, a diagonal one, a 0-d input, empty inputs); the labels and the count."""
    import scipy.ndimage as ndi
    rng = np.random.default_rng(20251123)

    def case(tag, x, structure=None):
        ins = [x] if structure is None else [x, structure]

        def f():
            lab, n = ndi.label(x, structure)
            return [lab, np.int64(n)]
        FX.case(f"ndimage_label/{tag}", "label", {"structure": "none" if structure is None else "given"}, ins, f)

    for dt in DTYPES:
        x = rng.random((9, 11)) < 0.45
        v = signal_values(dt, (9, 11), rng, small=True) if dt != "bool" else x
        case(f"{dt}/9x11", np.where(x, v, np.zeros((), dt)).astype(dt))
    for shape in [(1,), (25,), (1, 1), (1, 17), (17, 1), (16, 16), (40, 33), (5, 6, 7), (3, 4, 3, 5), (2, 3, 2, 2, 3)]:
        for density in [0.3, 0.55, 0.8]:
            x = rng.random(shape) < density
            for conn in range(1, len(shape) + 1):
                st = ndi.generate_binary_structure(len(shape), conn)
                case(f"bool/{'x'.join(map(str, shape))}/p{density}/conn{conn}", x, st)
            case(f"bool/{'x'.join(map(str, shape))}/p{density}/default", x)
    # A spiral (one long component) and a comb (many components joined at the end).
    sp = np.zeros((21, 21), bool)
    y, xx, dy, dx = 0, 0, 0, 1
    seen = np.zeros_like(sp)
    for _ in range(21 * 21):
        seen[y, xx] = True
        sp[y, xx] = (min(y, xx, 20 - y, 20 - xx) % 2) == 0
        ny, nx = y + dy, xx + dx
        if not (0 <= ny < 21 and 0 <= nx < 21) or seen[ny, nx]:
            dy, dx = dx, -dy
            ny, nx = y + dy, xx + dx
        y, xx = ny, nx
    case("bool/spiral", sp)
    case("bool/spiral/conn2", sp, ndi.generate_binary_structure(2, 2))
    comb = np.zeros((12, 15), bool)
    comb[:, ::2] = True
    comb[-1, :] = True
    case("bool/comb", comb)
    case("bool/comb-t", comb.T.copy())
    diag = np.eye(3, dtype=bool)
    case("bool/diagonal-structure", rng.random((10, 10)) < 0.5, diag)
    case("int32/structure-int", (rng.random((8, 8)) < 0.5).astype("int32"), np.array([[0, 2, 0], [1, 1, 1], [0, 3, 0]]))
    case("float64/nan", np.array([[np.nan, 0.0, 1.0], [0.0, 0.0, -0.0], [2.0, np.inf, 0.0]]))
    case("0d-true", np.array(3.0))
    case("0d-false", np.array(0, "int16"))
    case("empty", np.zeros((0, 4), bool))
    case("empty-3d", np.zeros((2, 0, 3), "uint8"))
    case("all-ones", np.ones((6, 7), "uint8"))
    case("all-zeros", np.zeros((6, 7), "float32"))
    # Errors: a structure of another rank, not 3 wide.
    x = rng.random((5, 5)) < 0.5
    case("err/rank", x, np.ones((3, 3, 3), bool))
    case("err/size", x, np.ones((3, 5), bool))
    case("err/size1", x, np.ones((1, 1), bool))


def gen_ndimage_measure():
    """scipy.ndimage's measurements: every statistic with index None, a scalar, lists (absent
    and negative labels, repeats, unordered), without labels; dtypes; 1-d to 3-d; errors."""
    import scipy.ndimage as ndi
    rng = np.random.default_rng(20251124)
    STATS = ["sum_labels", "sum", "mean", "variance", "standard_deviation", "minimum", "maximum", "median",
             "minimum_position", "maximum_position", "extrema", "center_of_mass"]

    def result(op, r):
        if op == "extrema":
            mn, mx, pmn, pmx = r
            return [np.asarray(mn), np.asarray(mx), np.asarray(pmn, "int64"), np.asarray(pmx, "int64")]
        if op in ("minimum_position", "maximum_position"):
            return np.asarray(r, "int64")
        if op == "center_of_mass":
            return np.asarray(r, "float64")
        return np.asarray(r)

    def case(tag, op, x, labels, index, extra=None):
        params = {"labels": "no" if labels is None else "yes"}
        ins = [x] + ([] if labels is None else [labels])
        if index is None:
            params["index"] = "none"
        elif np.isscalar(index):
            params["index"] = "scalar"
            params["v"] = str(int(index))
        else:
            params["index"] = "array"
            ins.append(np.asarray(index, "int64"))
        if extra:
            params.update(extra)

        def f():
            if op == "histogram":
                lo, hi, bins = float(extra["min"]), float(extra["max"]), int(extra["bins"])
                r = ndi.histogram(x, lo, hi, bins, labels, index)
                if isinstance(r, np.ndarray) and r.dtype == object:
                    return np.stack([np.zeros(bins, "int64") if v is None else v for v in r])
                return np.asarray(r)
            if op == "labeled_comprehension":
                return np.asarray(ndi.labeled_comprehension(x, labels, index, lambda v: np.float64(v.max() - v.min()),
                                                             np.float64, -1.0))
            return result(op, getattr(ndi, op)(x, labels, index))
        it = params["index"]
        if it == "array":
            it = ",".join(map(str, index)) if len(index) < 10 else f"{index[0]}..{index[-1]}"
        elif it == "scalar":
            it = f"={index}"
        FX.case(f"ndimage_measure/{tag}/{op}/{it}", op, params, ins, f)

    def distinct(dt, shape):
        n = int(np.prod(shape))
        if dt == "bool":
            return rng.random(shape) < 0.5
        if dt in INTS:
            i = info(dt)
            lo, hi = max(int(i.min), -100000), min(int(i.max), 100000)
            v = rng.choice(np.arange(lo, hi), n, replace=False) if hi - lo > n else rng.integers(lo, hi, n)
            return v.astype(dt).reshape(shape)
        return (rng.permutation(n) / 4.0 - n / 8.0).astype(dt).reshape(shape)

    for dt in DTYPES:
        x = distinct(dt, (6, 7))
        lab = rng.integers(-1, 5, (6, 7))
        for op in STATS:
            if dt == "bool" and op in ("minimum_position", "maximum_position", "extrema"):
                continue  # ties everywhere: the first position is the rule here, SciPy's sort decides
            for index in [None, 2, [1, 2, 3], [3, 1, 7, -1, 2, 3]]:
                case(f"{dt}/6x7", op, x, lab, index)
    # Without labels; 1-d and 3-d; float values with repeats; labels of other dtypes.
    x3 = distinct("float64", (3, 4, 5))
    l3 = rng.integers(0, 4, (3, 4, 5)).astype("uint8")
    for op in STATS:
        case("float64/3x4x5", op, x3, l3, [1, 2, 3])
        case("float64/3x4x5", op, x3, l3, None)
        case("float64/nolabels", op, x3, None, None)
        x1 = distinct("int32", (15,))
        case("int32/15", op, x1, rng.integers(0, 3, 15).astype("int16"), [0, 1, 2])
    # Sums of values that do not add exactly; large label counts (index 1..n).
    xs = rng.standard_normal((40, 50))
    ls = rng.integers(0, 200, (40, 50)).astype("int32")
    for op in ["sum_labels", "mean", "variance", "center_of_mass", "maximum", "median"]:
        case("float64/40x50/many", op, xs, ls, list(range(1, 200)))
    # Histograms and labeled_comprehension.
    xh = rng.random((8, 9)) * 10
    lh = rng.integers(0, 4, (8, 9))
    for index in [None, 2, [1, 2, 3]]:
        case("float64/8x9", "histogram", xh, lh, index, {"min": "0.0", "max": "10.0", "bins": "5"})
        case("float64/8x9/narrow", "histogram", xh, lh, index, {"min": "2.5", "max": "7.5", "bins": "4"})
        case("float64/8x9", "labeled_comprehension", xh, lh, index)
    case("float64/8x9", "labeled_comprehension", xh, lh, [3, 9, 1])
    # find_objects: [max_label, ndim, 2] (start, stop), -1 for absent labels.
    for tag, l in [("2d", rng.integers(0, 6, (7, 8)) * (rng.random((7, 8)) < 0.3)),
                   ("3d", rng.integers(0, 4, (3, 5, 4)) * (rng.random((3, 5, 4)) < 0.4)),
                   ("gap", np.array([[0, 5, 5], [0, 0, 2]]))]:
        for ml in [0, 3, 8]:
            def fo(l=l, ml=ml):
                r = ndi.find_objects(l, max_label=ml)
                return np.array([[[-1, -1]] * l.ndim if s is None else [[q.start, q.stop] for q in s] for s in r],
                                "int64").reshape(len(r), l.ndim, 2)
            FX.case(f"ndimage_measure/{tag}/find_objects/{ml}", "find_objects", {"max_label": str(ml)}, [l], fo)
    FX.case("ndimage_measure/err/find_objects-float", "find_objects", {"max_label": "0"}, [np.array([1.0, 2.0])],
            lambda: ndi.find_objects(np.array([1.0, 2.0])))
    # The lessons' pipeline on a small synthetic sky: kappa-sigma clip, 5-sigma segmentation,
    # label, centre of mass and flux of every source.
    sky = (rng.standard_normal((256, 256)) * 0.0133).astype("float32")
    yy, xx = np.mgrid[0:256, 0:256]
    for _ in range(25):
        y0, x0, amp, w = rng.uniform(12, 244), rng.uniform(12, 244), rng.uniform(0.08, 2.0), rng.uniform(1, 3)
        sky += (amp * np.exp(-((yy - y0) ** 2 + (xx - x0) ** 2) / (2 * w * w))).astype("float32")
    sky += (2.5 * np.exp(-((yy - 128.0) ** 2 + (xx - 128.0) ** 2) / (2 * 36.0))).astype("float32")

    def pipeline():
        flat = sky.ravel()
        while True:
            med, std = np.median(flat), np.std(flat)
            lower = flat.compress(flat > med - 3 * std)
            both = lower.compress(lower < med + 3 * std)
            if len(both) == len(flat):
                break
            flat = both
        thr = 5 * np.std(flat)
        seg = np.where(sky > thr, 1, 0)
        lab, n = ndi.label(seg)
        idx = np.arange(1, n + 1)
        com = np.asarray(ndi.center_of_mass(sky, lab, idx), "float64")
        return [thr, np.int64(n), lab, com, ndi.sum_labels(sky, lab, idx)]
    FX.case("ndimage_measure/pipeline/sky256", "pipeline", {}, [sky], pipeline)
    # Errors: labels that do not broadcast.
    case("err/shape", "sum_labels", np.ones((3, 4)), np.ones((3, 3), "int32"), [1])
    case("err/shape", "mean", np.ones((3, 4)), np.ones((4, 3), "int32"), None)
def gen_signal_nd():
    """scipy.signal.convolve / correlate (N-d, mode=, method=): 1-d to 4-d inputs, every mode and
    dtype, the operands SciPy swaps, mismatched ranks, empty and 0-d inputs, method names.
    method='auto' cases are kept where SciPy's result is its direct sum's (or, where SciPy takes
    the FFT, agrees with it within the conformance tolerance): cuprum has no FFT and sums
    directly; the cases left out are counted."""
    try:
        import scipy.signal as sps
    except ImportError:
        sys.exit("the signal_nd group needs SciPy: python3 -m pip install scipy")
    rng = np.random.default_rng(20251123)  # its own generator: --only signal_nd gives the same cases
    tol = {"float16": (2e-3, 1e-7), "float32": (2e-5, 1e-37), "float64": (1e-12, 1e-300)}
    skipped = []

    def run(op, a, b, mode, method):
        f = sps.convolve if op == "convolve" else sps.correlate
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                return f(a, b, mode=mode, method=method)

    def direct_like(op, a, b, mode):
        """SciPy's direct sum, or for float16 results (which it refuses) the float32 sum rounded."""
        rt = np.result_type(a, b)
        if rt == np.float16 and np.ndim(a) > 0:
            return run(op, a.astype("float32"), b.astype("float32"), mode, "direct").astype("float16")
        return run(op, a, b, mode, "direct")

    def case(op, tag, a, b, mode, method="direct"):
        cid = f"signal_nd/{op}/{tag}/{mode},{method}"
        if method == "auto":
            try:
                got = np.asarray(run(op, a, b, mode, "auto"))
            except Exception:
                got = None
            if got is not None and got.dtype.kind in "biuf":
                try:
                    ref = np.asarray(direct_like(op, a, b, mode))
                except Exception:
                    ref = None
                same = ref is not None and ref.shape == got.shape and ref.dtype == got.dtype
                if same and got.dtype.kind == "f":
                    r, at = tol[str(got.dtype)]
                    same = np.allclose(got.astype("float64"), ref.astype("float64"), rtol=r, atol=at, equal_nan=True)
                elif same:
                    same = np.array_equal(got, ref)
                if not same:
                    skipped.append(cid)
                    return
        FX.case(cid, op, {"mode": mode, "method": method}, [a, b], lambda: run(op, a, b, mode, method))

    OPS = ["convolve", "correlate"]
    # Every dtype: 1-d (NumPy's path, and 'same' with the shorter first), 2-d, 3-d and 4-d, an
    # odd and an even kernel, every mode, both methods.
    shapes = [("1d", (9,), (4,)), ("1d-short", (3,), (5,)), ("2d", (5, 6), (3, 2)), ("3d", (4, 5, 6), (2, 3, 3)),
              ("4d", (3, 2, 4, 5), (2, 1, 2, 3))]
    for dt in DTYPES:
        for tag, sa, sb in shapes:
            if dt in ("bool", "float16") and tag == "4d":
                continue
            a, b = signal_values(dt, sa, rng), signal_values(dt, sb, rng)
            for op in OPS:
                for mode in CONV_MODES:
                    for method in ["direct", "auto"]:
                        case(op, f"{dt}/{tag}", a, b, mode, method)
    # Small integer values in float (sums that round: SciPy's order of the taps matters).
    for dt in ["float32", "float64"]:
        a = rng.standard_normal((5, 6, 7)).astype(dt)
        b = rng.standard_normal((3, 2, 4)).astype(dt)
        for op in OPS:
            for mode in CONV_MODES:
                case(op, f"{dt}/normal-3d", a, b, mode, "direct")
                case(op, f"{dt}/normal-3d-swapped", b, a, mode, "direct")
    # Shapes: kernels larger than the input in every dimension (SciPy swaps: 'valid', and 'full'
    # when in2 has more elements; correlate reverses its result), in one only ('valid' raises),
    # length-1 axes, equal shapes.
    nd_shapes = [("2x3x4*3x4x5", (2, 3, 4), (3, 4, 5)), ("3x4x5*2x6x2", (3, 4, 5), (2, 6, 2)),
                 ("1x6x1*1x3x1", (1, 6, 1), (1, 3, 1)), ("4x1x5*2x1x2", (4, 1, 5), (2, 1, 2)),
                 ("3x3x3*3x3x3", (3, 3, 3), (3, 3, 3)), ("2x5x3*1x1x1", (2, 5, 3), (1, 1, 1)),
                 ("1x2x3*2x2x2", (1, 2, 3), (2, 2, 2)), ("2x2x2x2*3x3x3x3", (2, 2, 2, 2), (3, 3, 3, 3)),
                 ("6*9", (6,), (9,)), ("2x8*3x2", (2, 8), (3, 2)), ("1x1x4x1x3*1x2x2x1x2", (1, 1, 4, 1, 3), (1, 2, 2, 1, 2))]
    for dt, small in [("int32", True), ("uint8", False), ("float64", False)]:
        for tag, sa, sb in nd_shapes:
            a, b = signal_values(dt, sa, rng, small), signal_values(dt, sb, rng, small)
            for op in OPS:
                for mode in CONV_MODES:
                    for method in ["direct", "auto"]:
                        case(op, f"{dt}/{tag}", a, b, mode, method)
    # Mixed dtypes: np.result_type (bool and float16 results raise in the N-d sum).
    for da, db in SIGNAL_MIXED:
        a, b = signal_values(da, (3, 4, 5), rng), signal_values(db, (2, 2, 3), rng)
        for op in OPS:
            for mode in CONV_MODES:
                case(op, f"{da},{db}/3d", a, b, mode, "direct")
            case(op, f"{da},{db}/3d", a, b, "same", "auto")
        a1, b1 = signal_values(da, (7,), rng), signal_values(db, (3,), rng)
        for op in OPS:
            case(op, f"{da},{db}/1d", a1, b1, "full", "direct")
    # NaN and infinities: every tap multiplies (0 * inf is NaN, also against the zero padding).
    x = signal_values("float64", (3, 4, 5), rng)
    x[0, 1, 2], x[2, 3, 0], x[1, 0, 4] = np.nan, np.inf, -np.inf
    k = arr([[[1.0, 0.0], [0.0, -0.5]], [[0.0, 2.0], [0.25, 0.0]]], "float64")
    kinf = k.copy()
    kinf[0, 0, 1] = np.inf
    for op in OPS:
        for mode in CONV_MODES:
            case(op, "float64/nan-inf", x, k, mode, "direct")
            case(op, "float64/inf-kernel", signal_values("float64", (3, 4, 5), rng), kinf, mode, "direct")
    # 0-d inputs: their product, whatever the mode; a 0-d with a 1-d: the ranks differ.
    for da, db in [("uint8", "uint8"), ("float16", "int8"), ("bool", "bool"), ("int64", "uint64"), ("float32", "float64")]:
        a0, b0 = signal_values(da, (), rng), signal_values(db, (), rng)
        for op in OPS:
            for mode in CONV_MODES:
                case(op, f"{da},{db}/0d", a0, b0, mode, "auto")
            case(op, f"{da},{db}/0d", a0, b0, "full", "direct")
    z, v3, m23 = arr(2.5, "float64", ()), arr([1.0, 2.0, 3.0], "float64"), signal_values("float64", (2, 3), rng)
    for op in OPS:
        for method in ["direct", "auto"]:
            case(op, "0d-1d", z, v3, "full", method)
            case(op, "1d-0d", v3, z, "same", method)
            case(op, "2d-1d", m23, v3, "valid", method)
            case(op, "1d-3d", v3, m23[None], "full", method)
    # Empty inputs: NumPy's errors on the 1-d path; SciPy's zero padding's in 'full'/'same'
    # (an empty kernel axis where the input is longer than 1), zeros or empty results else;
    # with method='auto' integer inputs of which one is empty raise (choose_conv_method).
    empties = [("0*3", (0,), (3,)), ("3*0", (3,), (0,)), ("0*0", (0,), (0,)), ("2x0*2x2", (2, 0), (2, 2)),
               ("2x2*0x2", (2, 2), (0, 2)), ("3x4x0*1x2x1", (3, 4, 0), (1, 2, 1)), ("3x4x2*1x0x1", (3, 4, 2), (1, 0, 1)),
               ("0x3*0x2", (0, 3), (0, 2)), ("1x3x2*0x3x1", (1, 3, 2), (0, 3, 1)), ("1x3*0x3", (1, 3), (0, 3))]
    for dt in ["float64", "int32"]:
        for tag, sa, sb in empties:
            a, b = signal_values(dt, sa, rng), signal_values(dt, sb, rng)
            for op in OPS:
                for mode in CONV_MODES:
                    for method in ["direct", "auto"]:
                        case(op, f"{dt}/empty-{tag}", a, b, mode, method)
    # Method and mode names SciPy refuses.
    a, b = signal_values("float64", (3, 4, 2), rng), signal_values("float64", (2, 2, 2), rng)
    for op in OPS:
        for method in ["foo", "Direct", "FFT", ""]:
            case(op, "float64/names", a, b, "full", method)
        for mode in ["foo", "Full", ""]:
            case(op, "float64/names", a, b, mode, "direct")
    print(f"signal_nd: {len(skipped)} method='auto' cases left out (SciPy's FFT result differs from the direct "
          f"sum beyond the tolerance)")
# ------------------------------------------------------------------ scipy.ndimage linear filters

def gen_ndimage_filters():
    try:
        import scipy.ndimage as ndi
    except ImportError:
        sys.exit("the ndimage_filters group needs SciPy: python3 -m pip install scipy")
    rng = np.random.default_rng(20261123)  # its own generator: --only ndimage_filters gives the same cases
    seen = {}

    def fmt(v):
        if v is None:
            return "None"
        if isinstance(v, (list, tuple)):
            return " ".join(fmt(e) for e in v)
        if isinstance(v, float):
            return repr(v)
        return str(v)

    def case(op, tag, x, params, fn, extra=()):
        cid = f"ndimage_filters/{op}/{tag}"
        n = seen.get(cid, 0)
        seen[cid] = n + 1
        if n:
            cid += f"#{n}"
        # SciPy stores a bool output as the low byte of an integer cast (253 for -3.0): its
        # truthiness is the value (cuprum's bools are 0 or 1).
        fix = lambda r: r.view(np.uint8).astype(bool) if isinstance(r, np.ndarray) and r.dtype == bool else r
        FX.case(cid, op, {k: fmt(v) for k, v in params.items()}, [x, *extra], lambda: fix(fn()))

    def vals(dt, shape):
        if dt == "bool":
            return rng.random(shape) < 0.5
        if dt in UNSIGNED:
            return rng.integers(0, 200, shape).astype(dt)
        if dt in SIGNED:
            return rng.integers(-100, 100, shape).astype(dt)
        return (rng.standard_normal(shape) * 10).astype(dt)

    def kw(mode="reflect", cval=0.0, output=None, origin=None, axes=None):
        d = {"mode": mode, "cval": cval, "output": output}
        if origin is not None:
            d["origin"] = origin
        if axes is not None:
            d["axes"] = axes
        return d

    def pykw(p):
        d = {"mode": p["mode"] if isinstance(p["mode"], str) else list(p["mode"]), "cval": p["cval"]}
        if p.get("output") is not None:
            d["output"] = np.dtype(p["output"])
        if "origin" in p:
            d["origin"] = p["origin"]
        if "axes" in p:
            d["axes"] = p["axes"]
        return d

    def run(op, tag, x, p, extra=()):
        """One case of `op` with params `p` (names as ndimage's keywords, plus the positional
        arguments: weights w, sigma, size, axis)."""
        k = pykw(p)
        f = getattr(ndi, op)
        if op in ("correlate", "convolve"):
            call = lambda: f(x, extra[0], **k)
        elif op in ("correlate1d", "convolve1d"):
            call = lambda: f(x, p["w"], axis=p["axis"], **k)
        elif op == "gaussian_filter1d":
            kk = dict(k, order=p.get("order", 0), truncate=p.get("truncate", 4.0))
            kk.pop("origin", None)
            if p.get("radius") is not None:
                kk["radius"] = p["radius"]
            call = lambda: f(x, p["sigma"], axis=p["axis"], **kk)
        elif op == "gaussian_filter":
            kk = dict(k, order=p.get("order", 0), truncate=p.get("truncate", 4.0))
            if p.get("radius") is not None:
                kk["radius"] = p["radius"]
            call = lambda: f(x, p["sigma"], **kk)
        elif op == "uniform_filter1d":
            call = lambda: f(x, p["size"], axis=p["axis"], **k)
        elif op == "uniform_filter":
            call = lambda: f(x, p["size"], **k)
        elif op in ("sobel", "prewitt"):
            call = lambda: f(x, axis=p["axis"], **k)
        elif op == "laplace":
            call = lambda: f(x, **k)
        else:  # gaussian_laplace, gaussian_gradient_magnitude
            kk = dict(k)
            if "truncate" in p:
                kk["truncate"] = p["truncate"]
            call = lambda: f(x, p["sigma"], **kk)
        case(op, tag, x, p, call, extra)

    ops2 = [
        ("gaussian_filter", {"sigma": 1.0}),
        ("gaussian_filter", {"sigma": [0.7, 1.6], "order": [1, 0]}),
        ("uniform_filter", {"size": 3}),
        ("uniform_filter", {"size": [4, 2], "origin": [-1, 0]}),
        ("sobel", {"axis": 0}),
        ("prewitt", {"axis": 1}),
        ("laplace", {}),
        ("gaussian_laplace", {"sigma": 1.0}),
        ("gaussian_gradient_magnitude", {"sigma": 1.0}),
        ("correlate1d", {"w": [1.0, -2.0, 3.0], "axis": 0}),
        ("convolve1d", {"w": [1.0, 3.0], "axis": 1}),
        ("gaussian_filter1d", {"sigma": 1.5, "axis": -1}),
        ("uniform_filter1d", {"size": 4, "axis": 0}),
        ("correlate", {"weights": (3, 3)}),
        ("convolve", {"weights": (2, 3)}),
    ]

    def with_weights(p, shape):
        p = dict(p)
        extra = ()
        if "weights" in p:
            w = rng.integers(-2, 3, p.pop("weights")).astype("float64")
            extra = (w,)
        return p, extra

    # Every dtype (float16: SciPy's RuntimeError), every op, 2-d.
    for dt in DTYPES:
        x = vals(dt, (7, 9))
        for op, base in ops2:
            p, extra = with_weights(base, None)
            run(op, f"{dt}/2d", x, {**kw(), **p}, extra)
    # Every mode on float64 (and the grid aliases), 1-d and 2-d, with cval and origins.
    for mode in ["reflect", "constant", "nearest", "mirror", "wrap", "grid-mirror", "grid-constant", "grid-wrap"]:
        x1 = vals("float64", (11,))
        x2 = vals("float64", (6, 8))
        base = kw(mode=mode, cval=2.5)
        run("gaussian_filter", f"{mode}/1d", x1, {**base, "sigma": 1.2})
        run("gaussian_filter", f"{mode}/2d", x2, {**base, "sigma": [1.2, 0.8]})
        run("uniform_filter", f"{mode}/2d", x2, {**base, "size": [4, 3], "origin": [-1, 1]})
        run("uniform_filter1d", f"{mode}/1d", x1, {**base, "size": 6, "axis": 0, "origin": 2})
        run("correlate1d", f"{mode}/1d", x1, {**base, "w": [0.5, -1.0, 2.0, 0.25], "axis": 0, "origin": -2})
        run("convolve1d", f"{mode}/2d", x2, {**base, "w": [0.5, -1.0, 2.0, 0.25], "axis": 0, "origin": 1})
        w = rng.integers(-3, 4, (3, 4)).astype("float64")
        run("correlate", f"{mode}/2d", x2, {**base, "origin": [1, -2]}, (w,))
        run("convolve", f"{mode}/2d", x2, {**base, "origin": [0, 1]}, (w,))
        run("sobel", f"{mode}/2d", x2, {**base, "axis": 1})
        run("prewitt", f"{mode}/2d", x2, {**base, "axis": 0})
        run("laplace", f"{mode}/2d", x2, base)
        run("gaussian_laplace", f"{mode}/2d", x2, {**base, "sigma": 0.9})
        run("gaussian_gradient_magnitude", f"{mode}/2d", x2, {**base, "sigma": [1.0, 0.6]})
        # A short line with a long kernel: the extension wraps or reflects several times.
        x3 = vals("float64", (3,))
        run("correlate1d", f"{mode}/long-kernel", x3, {**base, "w": [1.0, 2.0, -1.0, 0.5, 3.0, 1.5, -2.0, 0.25, 1.0], "axis": 0})
        run("uniform_filter1d", f"{mode}/long-kernel", x3, {**base, "size": 10, "axis": 0})
        run("correlate", f"{mode}/long-kernel", x3, {**base}, (rng.integers(-3, 4, (9,)).astype("float64"),))
        run("gaussian_filter", f"{mode}/one", vals("float64", (1, 5)), {**base, "sigma": 2.0})
    # Per-axis modes.
    x2 = vals("float32", (5, 7))
    for op, p in [("gaussian_filter", {"sigma": 1.0}), ("uniform_filter", {"size": 3}), ("sobel", {"axis": 0}),
                  ("prewitt", {"axis": 1}), ("laplace", {}), ("gaussian_laplace", {"sigma": 1.0}),
                  ("gaussian_gradient_magnitude", {"sigma": 1.0})]:
        run(op, "modes", x2, {**kw(mode=["wrap", "constant"], cval=-1.0), **p})
        run(op, "modes-bad-len", x2, {**kw(mode=["wrap", "constant", "nearest"]), **p})
    # 3-d inputs, axes.
    x3 = vals("float32", (4, 5, 6))
    x3i = vals("int16", (4, 5, 6))
    for x, t in [(x3, "float32"), (x3i, "int16")]:
        run("gaussian_filter", f"{t}/3d", x, {**kw(), "sigma": [1.0, 0.0, 2.0], "order": [0, 0, 1]})
        run("gaussian_filter", f"{t}/3d-axes", x, {**kw(axes=[2, 0]), "sigma": [1.5, 0.7]})
        run("uniform_filter", f"{t}/3d", x, {**kw(), "size": [2, 3, 1]})
        run("uniform_filter", f"{t}/3d-axes", x, {**kw(axes=[1], origin=[1]), "size": 4})
        run("correlate", f"{t}/3d", x, kw(mode="nearest"), (rng.integers(-2, 3, (3, 2, 3)).astype("float64"),))
        run("correlate", f"{t}/3d-axes", x, kw(mode="wrap", axes=[2, 0], origin=[1, 0]), (rng.integers(-2, 3, (3, 4)).astype("float64"),))
        run("convolve", f"{t}/3d-axes", x, kw(mode="mirror", axes=[1]), (rng.integers(-2, 3, (4,)).astype("float64"),))
        run("sobel", f"{t}/3d", x, {**kw(), "axis": 1})
        run("prewitt", f"{t}/3d", x, {**kw(mode="constant", cval=3.0), "axis": -1})
        run("laplace", f"{t}/3d-axes", x, kw(axes=[0, 2]))
        run("gaussian_laplace", f"{t}/3d-axes", x, {**kw(axes=[0, 2]), "sigma": [1.0, 0.5]})
        run("gaussian_gradient_magnitude", f"{t}/3d-axes", x, {**kw(axes=[1]), "sigma": 1.0})
        run("correlate1d", f"{t}/3d", x, {**kw(), "w": [1.0, 1.0], "axis": 1})
        run("uniform_filter1d", f"{t}/3d", x, {**kw(mode="wrap"), "size": 5, "axis": 2, "origin": -2})
    # Gaussian orders, truncate, radius.
    x1 = vals("float64", (15,))
    for order in range(4):
        for sigma in [0.8, 2.0, 2.5]:
            run("gaussian_filter1d", f"order{order}/{sigma}", x1, {**kw(), "sigma": sigma, "axis": 0, "order": order})
    run("gaussian_filter1d", "truncate", x1, {**kw(), "sigma": 2.0, "axis": 0, "truncate": 1.5})
    run("gaussian_filter1d", "radius", x1, {**kw(), "sigma": 2.0, "axis": 0, "radius": 2})
    # (sigma 0: Python's ZeroDivisionError, which cuprum reports as a ValueError; tested in
    # tests/suite/ndimage/filters.)
    run("gaussian_filter1d", "sigma-neg", x1, {**kw(), "sigma": -1.0, "axis": 0})
    run("gaussian_filter1d", "sigma-neg-small", x1, {**kw(), "sigma": -0.1, "axis": 0})
    run("gaussian_filter", "radius", vals("float64", (6, 7)), {**kw(), "sigma": [2.0, 1.0], "radius": [1, 3]})
    run("gaussian_filter", "truncate", vals("float64", (6, 7)), {**kw(), "sigma": 1.0, "truncate": 2.0})
    run("gaussian_filter", "sigma-neg", vals("float64", (6, 7)), {**kw(), "sigma": [-1.0, 1.0]})
    run("gaussian_filter", "no-axes", vals("int32", (6, 7)), {**kw(output="float32"), "sigma": 0.0})
    run("gaussian_laplace", "truncate", vals("float64", (6, 7)), {**kw(), "sigma": 1.0, "truncate": 2.0})
    # Output dtypes: negatives into unsigned types, float into ints, ints into floats, NaN and inf.
    xf = vals("float64", (5, 6))
    for out in ["uint8", "int8", "uint16", "int32", "uint32", "int64", "uint64", "float32", "bool"]:
        run("correlate1d", f"out-{out}", xf, {**kw(output=out), "w": [1.0, -2.0, 0.5], "axis": 1})
        run("correlate", f"out-{out}", xf, kw(output=out), (np.array([[0.5, -1.0], [2.0, 1.0]]),))
        run("gaussian_filter", f"out-{out}", xf, {**kw(output=out), "sigma": 1.0})
        run("uniform_filter", f"out-{out}", xf, {**kw(output=out), "size": 3})
        run("gaussian_gradient_magnitude", f"out-{out}", xf, {**kw(output=out), "sigma": 1.0})
        run("laplace", f"out-{out}", xf, kw(output=out))
    xn = arr([1.0, np.nan, 2.0, np.inf, -1.0, 3.0, -np.inf, 0.5, 1e300, -1e10], "float64")
    for out in ["float64", "int32", "uint8", "uint64", "int64", "uint32"]:
        run("correlate1d", f"nan-inf/{out}", xn, {**kw(output=out), "w": [1.0, 0.0, 1.0], "axis": 0})
        run("correlate", f"nan-inf/{out}", xn, kw(output=out), (np.array([1.0, 0.0, 1.0]),))
        run("correlate1d", f"big/{out}", xn * -1e9, {**kw(output=out), "w": [1.0], "axis": 0})
        run("correlate", f"big/{out}", xn * -1e9, kw(output=out), (np.array([1.0]),))
    run("gaussian_filter", "int-to-float", vals("int32", (5, 6)), {**kw(output="float64"), "sigma": 1.0})
    # Tiny weights are skipped by correlate (|w| <= DBL_EPSILON), not by correlate1d.
    run("correlate", "eps-weights", xn, kw(), (np.array([1e-17, 1.0, -1e-17]),))
    run("correlate1d", "eps-weights", xn, {**kw(), "w": [1e-17, 1.0, -1e-17], "axis": 0})
    run("correlate1d", "near-sym", vals("float64", (9,)), {**kw(), "w": [1.0, 2.0, 1.0 + 1e-17], "axis": 0})
    run("correlate1d", "antisym", vals("float64", (9,)), {**kw(), "w": [1.5, 0.25, -1.5], "axis": 0})
    # 0-d and empty inputs.
    z = arr(2.5, "float64", ())
    run("correlate", "0d", z, kw(), (arr(3.0, "float64", ()),))
    run("gaussian_filter", "0d", z, {**kw(), "sigma": 1.0})
    run("uniform_filter", "0d", z, {**kw(), "size": 3})
    run("laplace", "0d", z, kw())
    run("sobel", "0d", z, {**kw(), "axis": 0})
    run("correlate1d", "0d", z, {**kw(), "w": [1.0], "axis": 0})
    e = arr([], "float64", (0, 4))
    run("gaussian_filter", "empty", e, {**kw(), "sigma": 1.0})
    run("uniform_filter", "empty", e, {**kw(), "size": 3})
    run("correlate", "empty", e, kw(), (np.ones((2, 2)),))
    run("sobel", "empty", e, {**kw(), "axis": 0})
    run("correlate1d", "empty", e, {**kw(), "w": [1.0, 2.0], "axis": 1})
    # Errors.
    x = vals("float64", (4, 5))
    run("correlate", "err-rank", x, kw(), (np.ones((3,)),))
    run("correlate", "err-rank-3", x, kw(), (np.ones((3, 3, 3)),))
    run("correlate", "err-empty-weights", x, kw(), (np.ones((0, 3)),))
    run("correlate", "err-origin", x, kw(origin=[2, 0]), (np.ones((3, 3)),))
    run("correlate", "err-origin-even", x, kw(origin=[0, 1]), (np.ones((3, 2)),))
    run("convolve", "origin-even", x, kw(origin=[0, -1]), (np.arange(6.0).reshape(3, 2),))
    run("convolve", "err-origin-even", x, kw(origin=[0, 1]), (np.ones((3, 2)),))
    run("correlate", "err-mode", x, kw(mode="reflekt"), (np.ones((3, 3)),))
    run("correlate", "err-modes", x, kw(mode=["reflect", "wrap"]), (np.ones((3, 3)),))
    run("correlate", "err-axes", x, kw(axes=[2]), (np.ones((3,)),))
    run("correlate", "err-axes-dup", x, kw(axes=[1, -1]), (np.ones((3, 3)),))
    run("correlate1d", "err-empty", x, {**kw(), "w": [], "axis": 0})
    run("correlate1d", "err-axis", x, {**kw(), "w": [1.0], "axis": 2})
    run("correlate1d", "err-origin", x, {**kw(origin=2), "w": [1.0, 2.0, 3.0], "axis": 0})
    run("convolve1d", "err-origin", x, {**kw(origin=1), "w": [1.0, 2.0], "axis": 0})
    run("convolve1d", "origin-even", x, {**kw(origin=-1), "w": [1.0, 2.0], "axis": 0})
    run("uniform_filter1d", "err-size", x, {**kw(), "size": 0, "axis": 0})
    run("uniform_filter1d", "err-origin", x, {**kw(origin=2), "size": 4, "axis": 0})
    run("uniform_filter1d", "origin-max", x, {**kw(origin=1), "size": 4, "axis": 0})
    run("uniform_filter", "err-origin", x, {**kw(origin=[0, -3]), "size": 4})
    run("uniform_filter", "err-len", x, {**kw(), "size": [3, 3, 3]})
    run("uniform_filter", "err-mode", x, {**kw(mode="nope"), "size": 3})
    run("gaussian_filter", "err-len", x, {**kw(), "sigma": [1.0, 1.0, 1.0]})
    run("gaussian_filter", "err-axes", x, {**kw(axes=[-3]), "sigma": 1.0})
    run("gaussian_filter1d", "err-axis", x, {**kw(), "sigma": 1.0, "axis": -3})
    run("gaussian_filter1d", "err-sigma-neg", x, {**kw(), "sigma": -2.0, "axis": 0})
    run("sobel", "err-axis", x, {**kw(), "axis": 2})
    run("laplace", "err-axes-dup", x, kw(axes=[0, 0]))
    run("gaussian_gradient_magnitude", "err-sigma-len", x, {**kw(axes=[0]), "sigma": [1.0, 1.0, 1.0]})
    for op, p in [("gaussian_filter", {"sigma": 1.0}), ("correlate1d", {"w": [1.0], "axis": 0}),
                  ("uniform_filter", {"size": 3}), ("sobel", {"axis": 0})]:
        run(op, "err-float16-out", x, {**kw(output="float16"), **p})
    run("correlate", "err-float16-out", x, kw(output="float16"), (np.ones((2, 2)),))
def gen_ndimage_morph():
    """scipy.ndimage's binary morphology: binary_erosion/dilation/opening/closing (structure,
    iterations, mask, border_value, origin), binary_fill_holes and iterate_structure. Params:
    it (iterations), bv (border_value), origin ('.'-separated, empty: 0), s/m (1: the next
    input is the structure / the mask)."""
    import scipy.ndimage as ndi
    rng = np.random.default_rng(20251123)  # its own generator: --only ndimage_morph gives the same cases

    def cit(st, origin, dil):
        st = np.asarray(st)
        o = [0] * st.ndim if origin is None else ([origin] * st.ndim if isinstance(origin, int) else list(origin))
        if dil:  # SciPy's dilation: the reflected structure, negated origin, even sizes shifted
            st = st[tuple([slice(None, None, -1)] * st.ndim)]
            o = [-v - (0 if n & 1 else 1) for v, n in zip(o, st.shape)]
        return bool(st[tuple(v + n // 2 for v, n in zip(o, st.shape))]) if st.ndim else bool(st)

    def case(fn, tag, x, st=None, it=1, mask=None, bv=0, origin=None):
        f = getattr(ndi, fn)
        # An int origin is SciPy's scalar (every axis); a list must have one per axis.
        ostr = str(origin) if isinstance(origin, int) else ".".join(str(v) for v in (origin or []))
        params = {"it": it, "bv": bv, "origin": ostr,
                  "s": int(st is not None), "m": int(mask is not None)}
        ins = [x] + ([st] if st is not None else []) + ([mask] if mask is not None else [])
        kw = dict(structure=st, iterations=it, mask=mask, border_value=bv, origin=0 if origin is None else origin)
        FX.case(f"ndimage_morph/{fn}/{tag}/it={it},bv={bv},o={params['origin']},s={params['s']},m={params['m']}",
                fn, params, ins, lambda: f(x, **kw))

    shapes = {1: (13,), 2: (9, 11), 3: (5, 6, 7)}
    ops = ["binary_erosion", "binary_dilation", "binary_opening", "binary_closing"]
    for rank, shape in shapes.items():
        x = rng.random(shape) < 0.55
        gbs = ndi.generate_binary_structure
        irregular = rng.random((3,) * rank) < 0.6
        irregular[(1,) * rank] = True
        even = rng.random((2,) * rank) < 0.7
        even[(0,) * rank] = True
        even4 = rng.random((4,) + (3,) * (rank - 1)) < 0.6
        ring = gbs(rank, rank).copy()
        ring[(1,) * rank] = False
        structs = [("default", None), ("cross", gbs(rank, 1)), ("full", gbs(rank, rank)),
                   ("irregular", irregular), ("even2", even), ("even4", even4),
                   ("iterated", ndi.iterate_structure(gbs(rank, 1), 2)), ("nocentre", ring)]
        mask = rng.random(shape) < 0.7
        for fn in ops:
            for sname, st in structs:
                sarr = None if st is None else st
                for it in [1, 3, 0, -1]:
                    for bv in [0, 1]:
                        dil = fn in ("binary_dilation", "binary_closing")
                        if it < 1 and not (cit(gbs(rank, 1) if st is None else st, None, False)
                                           and cit(gbs(rank, 1) if st is None else st, None, True)):
                            continue  # without the centre a run until stable may never end in SciPy
                        if it == -1 and bv == 1:
                            continue
                        case(fn, f"{rank}d/{sname}", x, sarr, it, None, bv)
                        if sname in ("default", "irregular", "even2") and it != -1:
                            case(fn, f"{rank}d/{sname}/mask", x, sarr, it, mask, bv)
            # Origins: one for every axis, and per axis.
            for sname, st, origin in [("cross", gbs(rank, 1), 1), ("cross", gbs(rank, 1), [-1] * rank),
                                      ("even2", even, -1), ("even4", even4, [-2] + [1] * (rank - 1)),
                                      ("even4", even4, [1] + [0] * (rank - 1)), ("full", gbs(rank, rank), [0, -1, 1][:rank])]:
                for it in [1, 2]:
                    case(fn, f"{rank}d/{sname}/origin", x, st, it, None, 0, origin)
                case(fn, f"{rank}d/{sname}/origin/mask", x, st, 2, mask, 1, origin)
        # fill_holes: a ring of holes, default and full structures, an origin.
        fx = np.zeros(shape, bool)
        fx[tuple(slice(1, n - 1) for n in shape)] = True
        fx[tuple(slice(2, n - 2) if n > 4 else slice(1, 2) for n in shape)] = False
        fx |= rng.random(shape) < 0.25
        for sname, st in [("default", None), ("full", gbs(rank, rank)), ("even2", even)]:
            for origin in [None, [0] * (rank - 1) + [-1]]:
                oname = "" if origin is None else ".".join(map(str, origin))
                FX.case(f"ndimage_morph/binary_fill_holes/{rank}d/{sname}/o={oname}", "binary_fill_holes",
                        {"origin": oname, "s": int(st is not None)}, [fx] + ([st] if st is not None else []),
                        lambda fx=fx, st=st, origin=origin: ndi.binary_fill_holes(fx, st, origin=0 if origin is None else origin))
        # iterate_structure
        for sname, st in [("cross", gbs(rank, 1)), ("full", gbs(rank, rank)), ("irregular", irregular),
                          ("even2", even), ("int", gbs(rank, 1).astype(np.int64))]:
            for it in [0, 1, 2, 3]:
                FX.case(f"ndimage_morph/iterate_structure/{rank}d/{sname}/{it}", "iterate_structure",
                        {"it": it}, [st], lambda st=st, it=it: ndi.iterate_structure(st, it))

    # Input and mask dtypes (nonzero: True; NaN is nonzero); float16 is SciPy's RuntimeError.
    base = rng.integers(0, 3, (7, 8))
    for dt in DTYPES:
        x = base.astype(dt)
        if dt in FLOATS:
            x = x.astype(np.float64)
            x[2, 3] = np.nan
            x[4, 5] = -0.5
            x = x.astype(dt)
        for fn in ops:
            case(fn, f"dtype/{dt}", x, None, 2, None, 0)
        case("binary_erosion", f"dtype/{dt}/mask", base.astype(bool), None, 1, x, 0)
        FX.case(f"ndimage_morph/binary_fill_holes/dtype/{dt}", "binary_fill_holes", {"origin": "", "s": 0}, [x],
                lambda x=x: ndi.binary_fill_holes(x))
    # 0-d, empty, size-1 axes.
    for fn in ops:
        case(fn, "0d", np.array(True), None, 1)
        case(fn, "0d/false", np.array(0.0), None, 3, None, 1)
        case(fn, "0d/struct-false", np.array(True), np.array(False), 1)
        case(fn, "empty", np.zeros((0, 4), bool), None, 1)
        case(fn, "empty/until", np.zeros((3, 0), bool), None, -1)
        case(fn, "size1", rng.random((1, 6)) < 0.5, None, 2, None, 1)
        case(fn, "allfalse-structure", rng.random((4, 5)) < 0.6, np.zeros((3, 3), bool), 1)
    FX.case("ndimage_morph/binary_fill_holes/0d", "binary_fill_holes", {"origin": "", "s": 0}, [np.array(False)],
            lambda: ndi.binary_fill_holes(np.array(False)))
    FX.case("ndimage_morph/binary_fill_holes/empty", "binary_fill_holes", {"origin": "", "s": 0},
            [np.zeros((0, 3), bool)], lambda: ndi.binary_fill_holes(np.zeros((0, 3), bool)))
    # Errors.
    x2 = rng.random((5, 6)) < 0.5
    for fn in ops:
        case(fn, "err/rank", x2, np.ones(3, bool))
        case(fn, "err/empty-structure", x2, np.ones((0, 3), bool))
        case(fn, "err/mask-shape", x2, None, 1, np.ones((5, 5), bool))
        case(fn, "err/origin-len", x2, None, 1, None, 0, [0, 0, 0])
        case(fn, "err/float16", x2.astype(np.float16))
        case(fn, "err/float16-mask", x2, None, 1, np.ones((5, 6), np.float16))
    FX.case("ndimage_morph/binary_fill_holes/err/rank", "binary_fill_holes", {"origin": "", "s": 1},
            [x2, np.ones(3, bool)], lambda: ndi.binary_fill_holes(x2, np.ones(3, bool)))
    FX.case("ndimage_morph/binary_fill_holes/err/origin-len", "binary_fill_holes", {"origin": "1.1.1", "s": 0},
            [x2], lambda: ndi.binary_fill_holes(x2, origin=[1, 1, 1]))
    FX.case("ndimage_morph/iterate_structure/err/empty", "iterate_structure", {"it": 2}, [np.ones((0, 3), bool)],
            lambda: ndi.iterate_structure(np.ones((0, 3), bool), 2))
def gen_ndimage_rank():
    import scipy.ndimage as ndi
    rng = np.random.default_rng(20251123)  # its own generator: --only ndimage_rank gives the same cases

    def vals(dt, shape, lo=-20, hi=21):
        """Values with ties: integers in [lo, hi) ([0, hi) unsigned) of the dtype, floats as
        multiples of 1/4; bools half True."""
        if dt == "bool":
            return rng.random(shape) < 0.5
        if dt in UNSIGNED:
            lo = 0
        v = rng.integers(lo, hi, int(np.prod(shape)))
        if dt in FLOATS:
            v = v / 4
        return v.astype(dt).reshape(shape)

    def seq(v):
        return "" if v is None else ",".join(str(int(t)) for t in np.atleast_1d(v))

    def case(tag, op, x, size=None, fp=None, st=None, mode="reflect", cval=0.0, origin=0, axes=None, extra=None):
        ps = {"size": seq(size), "fp": int(fp is not None), "st": int(st is not None), "mode": mode,
              "cval": repr(float(cval)), "origin": seq(origin), "axes": seq(axes)}
        ps.update(extra or {})
        ins = [x] + ([fp] if fp is not None else []) + ([st] if st is not None else [])
        kw = {"mode": mode, "cval": cval, "origin": origin}
        if op in ("minimum_filter1d", "maximum_filter1d"):
            f = getattr(ndi, op)
            fn = lambda: f(x, size, axis=int(extra["axis"]), **kw)
        else:
            kw["axes"] = axes
            if fp is not None:
                kw["footprint"] = fp
            if size is not None:
                kw["size"] = size
            if op in ("grey_erosion", "grey_dilation"):
                if st is not None:
                    kw["structure"] = st
                fn = lambda: getattr(ndi, op)(x, **kw)
            elif op == "rank_filter":
                fn = lambda: ndi.rank_filter(x, int(extra["rank"]), **kw)
            elif op == "percentile_filter":
                fn = lambda: ndi.percentile_filter(x, float(extra["percentile"]), **kw)
            else:
                fn = lambda: getattr(ndi, op)(x, **kw)
        FX.case(f"ndimage_rank/{op}/{tag}/{len(FX.ids)}", op, ps, ins, fn)

    modes = ["reflect", "constant", "nearest", "mirror", "wrap"]
    dts = [d for d in DTYPES if d != "float16"]
    # Every filter, dtype and mode on a 2-d image: odd and even boxes, an irregular footprint.
    fp_l = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1]], bool)
    for dt in dts:
        x = vals(dt, (6, 7))
        for mode in modes:
            cval = 2.5 if dt != "bool" else 1.0
            for size in [3, (2, 3)]:
                case(f"{dt}/{mode}", "minimum_filter", x, size=size, mode=mode, cval=cval)
                case(f"{dt}/{mode}", "maximum_filter", x, size=size, mode=mode, cval=cval)
                case(f"{dt}/{mode}", "median_filter", x, size=size, mode=mode, cval=cval)
            case(f"{dt}/{mode}/fp", "minimum_filter", x, fp=fp_l, mode=mode, cval=cval)
            case(f"{dt}/{mode}/fp", "maximum_filter", x, fp=fp_l, mode=mode, cval=cval)
            case(f"{dt}/{mode}/fp", "median_filter", x, fp=fp_l, mode=mode, cval=cval)
            case(f"{dt}/{mode}", "rank_filter", x, size=(3, 2), mode=mode, cval=cval, extra={"rank": 2})
            case(f"{dt}/{mode}", "percentile_filter", x, size=3, mode=mode, cval=cval, extra={"percentile": 30.0})
            for axis in [0, 1]:
                case(f"{dt}/{mode}", "minimum_filter1d", x, size=3, mode=mode, cval=cval, extra={"axis": axis})
                case(f"{dt}/{mode}", "maximum_filter1d", x, size=4, mode=mode, cval=cval, extra={"axis": axis})
    # 1-d and 3-d inputs, sizes up to the input, even sizes with every origin.
    for dt in ["uint8", "int32", "float32", "float64", "int64", "uint64", "int16"]:
        x1 = vals(dt, (13,))
        x3 = vals(dt, (4, 5, 6))
        for mode in modes:
            for size in [1, 2, 3, 4, 5]:
                for origin in range(-(size // 2), size - size // 2):
                    case(f"{dt}/1d/{mode}", "median_filter", x1, size=size, mode=mode, origin=origin, cval=3.0)
                    case(f"{dt}/1d/{mode}", "minimum_filter1d", x1, size=size, mode=mode, origin=origin,
                         cval=3.0, extra={"axis": -1})
                    case(f"{dt}/1d/{mode}", "maximum_filter", x1, size=size, mode=mode, origin=origin, cval=3.0)
            case(f"{dt}/3d/{mode}", "median_filter", x3, size=3, mode=mode)
            case(f"{dt}/3d/{mode}", "rank_filter", x3, size=(2, 3, 2), mode=mode, origin=(0, 1, -1),
                 extra={"rank": -3})
            case(f"{dt}/3d/{mode}", "minimum_filter", x3, size=(3, 1, 2), mode=mode, origin=(1, 0, 0))
            case(f"{dt}/3d/{mode}", "maximum_filter", x3, fp=rng.random((2, 3, 2)) < 0.6, mode=mode)
            case(f"{dt}/3d/{mode}", "minimum_filter1d", x3, size=3, mode=mode, extra={"axis": 1})
    # Ranks and percentiles (negative ones too), footprints with holes, origins, axes.
    x = vals("float64", (7, 8))
    fps = {"cross": np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], bool),
           "even": np.array([[1, 1, 0, 1], [0, 1, 1, 1]], bool),
           "ring": np.array([[1, 1, 1, 1, 1], [1, 0, 0, 0, 1], [1, 0, 0, 0, 1], [1, 1, 1, 1, 1]], bool),
           "big": rng.random((9, 9)) < 0.7}
    for name, fp in fps.items():
        n = int(fp.sum())
        for rank in [0, 1, n // 2, n - 2, n - 1, -1, -n, n, -n - 1]:
            case(f"fp-{name}", "rank_filter", x, fp=fp, extra={"rank": rank})
        for pc in [0.0, 10.0, 50.0, 99.9, 100.0, -25.0, -100.0, 100.5, -100.5]:
            case(f"fp-{name}", "percentile_filter", x, fp=fp, extra={"percentile": pc})
        for origin in [(0, 0), (1, 0), (-1, 1), (0, -2), (2, 2)]:
            case(f"fp-{name}/origin", "median_filter", x, fp=fp, origin=origin, mode="constant", cval=-1.0)
            case(f"fp-{name}/origin", "minimum_filter", x, fp=fp, origin=origin, mode="wrap")
    for size in [(5, 5), (7, 3), (9, 9), (11, 11), (1, 6)]:
        for mode in modes:
            case(f"box{size}", "median_filter", x, size=size, mode=mode, cval=1.5)
    case("box2x2", "rank_filter", x, size=2, extra={"rank": 1})
    x3 = vals("int32", (4, 5, 6))
    for axes, size, origin in [((0,), 3, 0), ((1,), 2, 0), ((2,), 4, 1), ((-1, 0), (3, 2), (1, 0)), ((0, 2), 3, -1),
                               ((2, 0), (4, 2), 0), ((1,), (2, 3), 0), ((3,), 3, 0), ((0, 0), 3, 0),
                               ((-4,), 3, 0)]:
        for op in ["median_filter", "minimum_filter", "maximum_filter"]:
            case(f"axes{axes}", op, x3, size=size, origin=origin, axes=axes)
        case(f"axes{axes}", "rank_filter", x3, size=size, origin=origin, axes=axes, extra={"rank": 1})
    case("axes/fp", "median_filter", x3, fp=np.array([[1, 0, 1], [1, 1, 0]], bool), axes=(0, 2))
    case("axes/fp", "maximum_filter", x3, fp=np.array([[1, 0, 1], [1, 1, 0]], bool), axes=(2, 1))
    case("axes/fp-wrong", "median_filter", x3, fp=np.array([1, 1, 0], bool), axes=(0, 2))
    # Grey morphology: sizes, flat footprints, non-flat structures (integer and fractional
    # values), even windows and origins.
    st_i0 = np.array([[0, 1, 0], [1, 2, 1], [0, 1, 0]], np.float64)
    st_e0 = np.array([[1, 0], [2, 1]], np.int32)
    st_f0 = np.array([[0.5, -0.25, 1.0]])
    # (bool with a structure: SciPy stores bytes other than 0 and 1 in its bool result)
    for dt in dts:
        x = vals(dt, (6, 7), -9, 10)
        st_i, st_e, st_f = (None, None, None) if dt == "bool" else (st_i0, st_e0, st_f0)
        cv = 1.0 if dt == "bool" else 4.0  # (SciPy stores the byte of a bool cval of 4)
        for op in ["grey_erosion", "grey_dilation"]:
            for mode in modes:
                case(f"{dt}/{mode}", op, x, size=(2, 3), mode=mode, cval=cv)
                case(f"{dt}/{mode}", op, x, fp=fp_l, mode=mode, cval=cv)
                if st_i is not None:
                    case(f"{dt}/{mode}", op, x, st=st_i, mode=mode, cval=4.0)
            if st_e is not None:
                case(f"{dt}/even", op, x, st=st_e)
                case(f"{dt}/frac", op, x, st=st_f)
                case(f"{dt}/fp+st", op, x, fp=fp_l, st=st_i)
            for origin in [(1, 0), (-1, 1), (0, -1)]:
                case(f"{dt}/origin", op, x, size=(2, 3), origin=origin)
                if st_e is not None:
                    case(f"{dt}/origin", op, x, st=st_e, origin=origin)
                case(f"{dt}/origin", op, x, fp=fp_l, origin=origin)
    x = vals("float64", (5, 6))
    for op in ["grey_erosion", "grey_dilation"]:
        case("none", op, x)
        case("1d-st", op, x, st=np.array([1.0, 2.0]))
        case("axes", op, vals("int16", (3, 4, 5)), size=(2, 3), axes=(0, 2))
        case("zero-fp", op, x, fp=np.zeros((2, 2), bool))
    # float16 (SciPy: only its 1-d rank path), bool, 0-d and empty inputs.
    h1, h2 = vals("float16", (9,)), vals("float16", (4, 5))
    for op in ["median_filter", "minimum_filter", "maximum_filter"]:
        case("float16/1d", op, h1, size=3)
        case("float16/2d", op, h2, size=3)
    case("float16/1d", "rank_filter", h1, size=4, extra={"rank": 2})
    case("float16/1d", "minimum_filter1d", h1, size=3, extra={"axis": 0})
    case("float16", "grey_erosion", h2, size=2)
    z = np.array(2.5)
    for op in ["median_filter", "minimum_filter", "maximum_filter"]:
        case("0d", op, z, size=3)
        case("empty", op, np.zeros((0, 4)), size=3)
        case("empty", op, np.zeros((3, 0), np.int32), size=(2, 2))
    case("0d", "minimum_filter1d", z, size=3, extra={"axis": -1})
    # Errors: sizes, footprints and origins that do not fit, ranks outside the window, bad
    # percentiles, modes, axes.
    x = vals("float64", (4, 5))
    case("err/size0", "minimum_filter", x, size=0)
    case("err/size0", "median_filter", x, size=0)
    case("err/size3", "median_filter", x, size=(2, 3, 4))
    case("err/size3", "minimum_filter", x, size=(2, 3, 4))
    case("err/fp-1d", "median_filter", x, fp=np.ones(3, bool))
    case("err/fp-1d", "minimum_filter", x, fp=np.ones(3, bool))
    case("err/fp-1d-holes", "minimum_filter", x, fp=np.array([1, 0, 1], bool))
    case("err/fp-zero", "minimum_filter", x, fp=np.zeros((2, 2), bool))
    case("err/fp-zero", "median_filter", x, fp=np.zeros((2, 2), bool))
    case("err/fp-empty", "median_filter", x, fp=np.zeros((0, 2), bool))
    for op in ["median_filter", "minimum_filter"]:
        case("err/origin", op, x, size=3, origin=2)
        case("err/origin", op, x, size=2, origin=1)
        case("err/origin", op, x, size=2, origin=(0, -2))
        case("ok/origin", op, x, size=2, origin=-1)
        case("err/origin-len", op, x, size=3, origin=(0, 0, 0))
        for mode in ["foo", "Reflect", "grid-wrap", "grid-constant", "grid-mirror"]:
            case("mode", op, x, size=3, mode=mode)
        case("err/axes", op, x, size=3, axes=(2,))
        case("err/axes", op, x, size=3, axes=(1, 1))
    for axis in [2, -3]:
        case("err/axis", "minimum_filter1d", x, size=3, extra={"axis": axis})
    case("err/size", "minimum_filter1d", x, size=0, extra={"axis": 0})
    case("err/origin", "maximum_filter1d", x, size=3, origin=2, extra={"axis": 0})
    case("err/origin", "maximum_filter1d", x, size=4, origin=-2, extra={"axis": 0})
    case("err/origin", "maximum_filter1d", x, size=4, origin=2, extra={"axis": 0})
    # NaN: SciPy's answer depends on its algorithm (the 1-d heap, the quickselect, the deque of
    # the separable min/max, the running comparison of a footprint or structure); every filter
    # on float32/float64 images with NaNs (sparse and dense), a NaN cval, 1-d lines long and
    # short (SciPy's 1-d heap only where it reads inside the line), float16 on the 1-d path.
    def nans(dt, shape, frac):
        x = vals(dt, shape)
        x[rng.random(shape) < frac] = np.nan
        return x
    for dt in ["float32", "float64"]:
        for frac in [0.1, 0.5]:
            x2, x1, x3 = nans(dt, (6, 7), frac), nans(dt, (23,), frac), nans(dt, (4, 5, 3), frac)
            for mode in modes:
                for cval in [1.5, float("nan")] if mode == "constant" else [0.0]:
                    t = f"nan/{dt}/{frac}/{mode}/{cval}"
                    for op in ["median_filter", "minimum_filter", "maximum_filter"]:
                        case(t, op, x2, size=(3, 2), mode=mode, cval=cval)
                        case(t, op, x2, fp=fp_l, mode=mode, cval=cval)
                        case(t, op, x3, size=3, mode=mode, cval=cval)
                    case(t, "rank_filter", x2, size=4, mode=mode, cval=cval, origin=(1, -1), extra={"rank": 5})
                    case(t, "percentile_filter", x3, fp=rng.random((3, 2, 3)) < 0.6, mode=mode, cval=cval,
                         extra={"percentile": 70.0})
                    for size, origin in [(3, 0), (4, -2), (5, 1), (9, 0)]:
                        case(t + "/1d", "median_filter", x1, size=size, origin=origin, mode=mode, cval=cval)
                        case(t + "/1d", "rank_filter", x1, size=size, origin=origin, mode=mode, cval=cval,
                             extra={"rank": 1})
                        case(t + "/1d", "minimum_filter1d", x1, size=size, origin=origin, mode=mode, cval=cval,
                             extra={"axis": 0})
                    case(t + "/1d-short", "median_filter", x1[:4], size=3, mode=mode, cval=cval)
                    for axis in [0, 1]:
                        case(t, "maximum_filter1d", x2, size=3, mode=mode, cval=cval, extra={"axis": axis})
                    for op in ["grey_erosion", "grey_dilation"]:
                        case(t, op, x2, st=st_i0, mode=mode, cval=cval)
                        case(t, op, x2, fp=fp_l, mode=mode, cval=cval)
    h = vals("float16", (15,))
    h[[2, 3, 9]] = np.nan
    for mode in modes:
        case(f"nan/float16/{mode}", "median_filter", h, size=5, mode=mode, cval=np.nan)
        case(f"nan/float16/{mode}", "rank_filter", h, size=4, mode=mode, extra={"rank": 2})


def gen_io():
    """cuprum::io: FITS files written by astropy (every BITPIX, BSCALE/BZERO scaling, the
    unsigned and int8 conventions, BLANK, big-endian floats with NaN, 1-d to 3-d, an empty
    primary with image extensions, a BINTABLE before an image), .npz files from np.savez and
    np.savez_compressed, and FITS files written by cuprum read back by astropy. The binary files
    go to fixtures/io/; each case records what astropy (or NumPy) reads."""
    try:
        from astropy.io import fits
        import astropy
    except ImportError:
        sys.exit("the io group needs astropy: pip install astropy")
    import shutil
    import subprocess
    rng = np.random.default_rng(20261124)  # its own generator: --only io gives the same cases
    iodir = os.path.join(OUT, "io")
    os.makedirs(os.path.join(iodir, "cuprum"), exist_ok=True)
    for f in os.listdir(iodir):  # start clean (the cuprum/ files are rewritten below)
        if f.endswith((".fits", ".npz")):
            os.remove(os.path.join(iodir, f))

    def native(d):
        d = np.asarray(d)
        return d.astype(d.dtype.newbyteorder("="))

    def write(name, hdus):
        path = os.path.join(iodir, name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits.HDUList(hdus).writeto(path, overwrite=True)
        return f"io/{name}"

    def raw_hdu(data, primary=True, **cards):
        """An HDU holding `data` as stored (no scaling by astropy), with extra cards."""
        h = fits.PrimaryHDU(data) if primary else fits.ImageHDU(data)
        for k, v in cards.items():
            h.header[k] = v
        return h

    def getdata(path, ext, scale):
        full = os.path.join(OUT, path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kw = {} if scale else {"do_not_scale_image_data": True}
            if ext is None:
                # cuprum's documented rule: the primary if it has data, else the first image
                # extension with data (astropy's getdata takes HDU 1 whatever it is).
                with fits.open(full, **kw) as hl:
                    for h in hl:
                        if (h is hl[0] or isinstance(h, fits.ImageHDU)) and h.data is not None:
                            return native(h.data)
                raise IndexError("no image data")
            return native(fits.getdata(full, ext=ext, **kw))

    def case(tag, path, ext=None, scale=True, expect_err=None):
        params = {"file": path, "hdu": "None" if ext is None else ext, "scale": int(scale)}
        fn = (lambda: (_ for _ in ()).throw(expect_err)) if expect_err else (lambda: getdata(path, ext, scale))
        FX.case(f"io/fits/{tag}", "read_fits", params, [], fn)

    def ints(dt, shape):
        ii = np.iinfo(dt)
        v = rng.integers(ii.min, ii.max, size=shape, dtype=dt, endpoint=True)
        v.flat[:2] = [ii.min, ii.max]
        return v

    # Every BITPIX, raw (no scaling cards), 1-d to 3-d; floats with NaN and infinities.
    f32 = rng.standard_normal((2, 3, 4)).astype(np.float32)
    f32.flat[[1, 5]] = [np.nan, np.inf]
    f64 = rng.standard_normal(7) * 1e10
    f64[3] = np.nan
    # (Each HDU takes at least two 2880-byte blocks, so the files are few: the raw int16/32/64
    # reads are the '/raw' cases of the scaled files below.)
    for tag, data in [("uint8_2d", ints("uint8", (3, 5))), ("float32_3d", f32), ("float64_1d", f64)]:
        p = write(f"{tag}.fits", [raw_hdu(data)])
        case(tag, p)
        case(f"{tag}/raw", p, scale=False)
    # Scaled integers: BITPIX 8/16 give float32, 32/64 float64; BLANK pixels NaN.
    scaled = [
        ("uint8_scaled", ints("uint8", (3, 4)), dict(BSCALE=2.0, BZERO=1.0)),
        ("int16_scaled_blank", ints("int16", (3, 4)), dict(BSCALE=0.25, BZERO=10.0, BLANK=-32768)),
        ("int32_scaled", ints("int32", (2, 5)), dict(BSCALE=2.5e-3, BZERO=-3.0)),
        ("int64_scaled_blank", ints("int64", (5,)), dict(BSCALE=1.0, BZERO=0.5, BLANK=-9223372036854775808)),
        ("int16_blank_only", ints("int16", (2, 3)), dict(BLANK=-32768)),
        ("int16_blank_zero", np.array([[0, 1], [2, 0]], dtype=np.int16), dict(BLANK=0)),
        ("int16_bzero_only", ints("int16", (2, 2)), dict(BZERO=3)),
        ("float32_scaled", f32[0], dict(BSCALE=2.0, BZERO=-1.5)),
        ("float64_blank_ignored", f64, dict(BLANK=1)),
        # The conventions (BSCALE = 1): BZERO = -128 on BITPIX 8 is int8, 2^(n-1) unsigned.
        ("int8_bzero", ints("uint8", (2, 4)), dict(BSCALE=1, BZERO=-128)),
        ("uint16_bzero", ints("int16", (3, 3)), dict(BSCALE=1, BZERO=32768)),
        ("uint32_bzero", ints("int32", (2, 2)), dict(BSCALE=1, BZERO=2147483648)),
        ("uint64_bzero", ints("int64", (3,)), dict(BSCALE=1, BZERO=9223372036854775808)),
        ("uint16_bzero_blank", ints("int16", (2, 2)), dict(BSCALE=1, BZERO=32768, BLANK=5)),
    ]
    for tag, data, cards in scaled:
        data.flat[0] = cards.get("BLANK", data.flat[0])
        p = write(f"{tag}.fits", [raw_hdu(data, **cards)])
        case(tag, p)
        case(f"{tag}/raw", p, scale=False)
    # An empty primary and two image extensions; a BINTABLE before an image.
    e1 = ints("int16", (2, 3))
    e2 = rng.standard_normal((3, 2)).astype(">f8")
    p = write("mef.fits", [fits.PrimaryHDU(), raw_hdu(e1, primary=False, EXTNAME="FIRST"),
                           raw_hdu(e2, primary=False, EXTNAME="SECOND", BSCALE=1.0, BZERO=2.0)])
    case("mef/default", p)
    for ext in [1, 2]:
        case(f"mef/hdu{ext}", p, ext=ext)
    case("mef/hdu0_empty", p, ext=0)
    case("mef/hdu3_out_of_range", p, ext=3)
    # Tables before an image: a BINTABLE with a variable-length column (a heap: PCOUNT > 0, so
    # its data is longer than NAXIS1 * NAXIS2) and an ASCII TABLE.
    vla = np.array([np.arange(k, dtype=np.int32) for k in (1, 7, 1000, 3, 0)], dtype=object)  # heap > a block
    cols = fits.ColDefs([fits.Column(name="x", format="E", array=np.arange(5, dtype=np.float32)),
                         fits.Column(name="name", format="10A", array=np.array(["a", "bb", "ccc", "d", "e"])),
                         fits.Column(name="v", format="PJ()", array=vla)])
    ascii_cols = fits.ColDefs([fits.Column(name="a", format="I5", array=np.arange(3)),
                               fits.Column(name="b", format="F8.2", array=np.linspace(0, 1, 3))])
    img = ints("int32", (3, 4))
    bintable = fits.BinTableHDU.from_columns(cols)
    p = write("table_then_image.fits", [fits.PrimaryHDU(), bintable, fits.TableHDU.from_columns(ascii_cols),
                                        raw_hdu(img, primary=False)])
    with fits.open(os.path.join(OUT, p)) as hl:
        assert hl[1].header["PCOUNT"] > 0 and hl[2].header["XTENSION"] == "TABLE", repr(hl[1].header)
    case("table/default", p)
    case("table/hdu3", p, ext=3)
    # HDUs 1 and 2 are tables: astropy returns their rows; cuprum reads images only.
    case("table/hdu1_bintable", p, ext=1, expect_err=NotImplementedError("tables"))
    case("table/hdu2_ascii_table", p, ext=2, expect_err=NotImplementedError("tables"))

    # .npz from np.savez and np.savez_compressed: names in file order, every dtype, 0-d, empty,
    # 3-d and Fortran-ordered members.
    members = {}
    for dt in DTYPES:
        if dt == "bool":
            members[dt] = rng.integers(0, 2, size=(2, 3)).astype(bool)
        elif dt in INTS:
            members[dt] = ints(dt, (2, 3))
        else:
            members[dt] = rng.standard_normal((2, 3)).astype(dt)
    members["zero_d"] = np.float64(2.5)
    members["empty"] = np.zeros((0, 3), dtype=np.int32)
    members["cube"] = rng.standard_normal((2, 3, 4))
    members["fortran"] = np.asfortranarray(rng.integers(0, 100, size=(3, 4)))
    for fn, f in [("savez", np.savez), ("savez_compressed", np.savez_compressed)]:
        path = os.path.join(iodir, f"{fn}.npz")
        f(path, **members)
        with np.load(path) as z:
            names = list(z.files)
            FX.case(f"io/npz/{fn}", "load_npz", {"file": f"io/{fn}.npz", "names": ",".join(names)}, [],
                    lambda: [z[n] for n in names])

    # FITS written by cuprum, read by astropy. The inputs go to io/cuprum_inputs.npz; the suite's
    # `io::fits_written_by_cuprum` test, run here with CUPRUM_IO_WRITE_DIR=<a temporary folder>,
    # writes <name>.fits from each with cuprum::io::write_fits (and multi.fits with
    # write_fits_with). astropy reads and verifies them here; the cases record the files'
    # SHA-256 (the suite checks that cuprum still writes those bytes) and what astropy read.
    import hashlib
    import tempfile
    inputs = {}
    for dt in DTYPES:
        if dt == "bool":
            inputs[dt] = np.array([[True, False, True], [False, False, True]])
        elif dt in INTS:
            inputs[dt] = ints(dt, (2, 3))
        else:
            v = rng.standard_normal((2, 3)).astype(dt)
            v.flat[1] = np.nan
            inputs[dt] = v
    inputs["cube_f32"] = rng.standard_normal((2, 3, 4)).astype(np.float32)
    np.savez(os.path.join(iodir, "cuprum_inputs.npz"), **inputs)
    wdir = tempfile.mkdtemp(prefix="cuprum_io_")
    env = dict(os.environ, CUPRUM_IO_WRITE_DIR=wdir)
    try:
        subprocess.run(["cargo", "test", "--release", "--test", "suite", "--", "io::fits_written_by_cuprum", "--exact"],
                       cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"the io group runs cuprum's FITS writer through `cargo test` ({e}); fix that and run again")

    def astropy_open(name):
        full = os.path.join(wdir, name)
        with open(full, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # astropy must find nothing to fix in cuprum's files
            hl = fits.open(full)
            hl.verify("exception")
        return digest, hl
    # What astropy reads from cuprum's files: the values written, in astropy's dtypes (cuprum
    # writes bool as uint8 and float16 as float32, which astropy cannot write).
    as_written = {"bool": "uint8", "float16": "float32"}
    for name, x in inputs.items():
        digest, hl = astropy_open(f"{name}.fits")
        with hl:
            got = native(hl[0].data)
        want = x.astype(as_written.get(name, x.dtype))
        assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True), (name, got, want)
        FX.case(f"io/cuprum/{name}", "write_fits", {"sha256": digest}, [x], lambda: got)
    digest, hl = astropy_open("multi.fits")
    with hl:
        assert len(hl) == 3 and hl[0].data is None, hl.info()
        assert hl[0].header["OBJECT"] == "it's a test" and hl[0].header["EXPTIME"] == 30.5, repr(hl[0].header)
        assert "written by cuprum" in str(hl[0].header["HISTORY"]), repr(hl[0].header)
        assert hl[1].header["EXTNAME"] == "FLOATS" and hl[2].header["EXTNAME"] == "UNSIGNED"
        assert np.array_equal(hl[1].data, inputs["float32"], equal_nan=True)
        assert np.array_equal(hl[2].data, inputs["uint16"]) and hl[2].data.dtype == np.uint16
        got = [native(hl[1].data), native(hl[2].data)]
    FX.case("io/cuprum/multi", "write_fits_multi", {"sha256": digest}, [inputs["float32"], inputs["uint16"]],
            lambda: got)
    shutil.rmtree(wdir)

# ------------------------------------------------------------------ complex64 / complex128

COMPLEX = ["complex64", "complex128"]
C_UNARY = ["negative", "positive", "conjugate", "absolute", "sign", "square", "reciprocal", "sqrt", "exp",
           "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos",
           "arctan", "sinh", "cosh", "tanh", "rint", "isnan", "isinf", "isfinite", "logical_not",
           "floor", "ceil", "trunc", "cbrt", "invert"]
C_BINARY = ["add", "subtract", "multiply", "true_divide", "power", "equal", "not_equal", "less",
            "less_equal", "greater", "greater_equal", "maximum", "minimum", "fmax", "fmin",
            "logical_and", "logical_or", "logical_xor", "floor_divide", "remainder", "arctan2", "hypot",
            "bitwise_and"]
C_PARTS = [0.0, -0.0, 0.5, -1.5, 2.0, 3.25, np.inf, -np.inf, np.nan]


def complex_values(dt, specials=True):
    parts = C_PARTS if specials else [0.0, -0.0, 0.5, -1.5, 2.0, 3.25, -0.75]
    return np.array([complex(r, i) for r in parts for i in parts], dtype=dt)


def gen_complex():
    """complex64/complex128 (kind=unary|binary|scalar|reduce|astype|view): NumPy's complex loops
    on values crossing zeros of both signs, infinities and NaN in either part; TypeError where
    NumPy has no complex loop."""
    for dt in COMPLEX:
        x = complex_values(dt)
        x = x.reshape(9, 9)
        for op in C_UNARY:
            f = getattr(np, op)
            FX.case(f"complex/unary/{op}/{dt}", op, {"kind": "unary"}, [x], lambda f=f, x=x: f(x))
        a = complex_values(dt).reshape(81, 1)[::4]
        b = complex_values(dt)[::3]
        for op in C_BINARY:
            f = getattr(np, op)
            FX.case(f"complex/binary/{op}/{dt}", op, {"kind": "binary"}, [a, b], lambda f=f: f(a, b))
        # Integer powers (NumPy multiplies), and mixed dtypes.
        e = np.array([0, 1, 2, 3, 4, -1, -2, 7, 0.5, -0.5, 1.5], dtype=dt)
        base = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j, 0j, -2 + 0j, 1j], dtype=dt).reshape(6, 1)
        FX.case(f"complex/binary/power/{dt}/intexp", "power", {"kind": "binary"}, [base, e],
                lambda: np.power(base, e))
        for other in ["float32", "float64", "int32", "uint8", "bool"]:
            o = rand(other, (4, 5))
            z = complex_values(dt, False)[:20].reshape(4, 5)
            for op in ["add", "multiply", "true_divide", "less"]:
                f = getattr(np, op)
                FX.case(f"complex/binary/{op}/{dt},{other}", op, {"kind": "binary"}, [z, o],
                        lambda f=f, z=z, o=o: f(z, o))
        # Weak Python scalars: complex, float and int with complex arrays; complex with real ones.
        z = complex_values(dt, False)[:12].reshape(3, 4)
        for sc in [1.5 - 2j, 2.0, 3, -0.0j]:
            st = FX.token(sc)
            for op in ["add", "subtract", "multiply", "true_divide", "power", "equal"]:
                f = getattr(np, op)
                FX.case(f"complex/scalar/{op}/{dt},{st}", op, {"kind": "binary"}, [z, sc],
                        lambda f=f, sc=sc: f(z, sc))
        # Reductions (sum, mean, var, std, any, all, count_nonzero): finite values, several axes.
        zf = complex_values(dt, False)[:48].reshape(2, 4, 6) * np.array(1 + 0.5j, dtype=dt)
        for op, ddof in [("sum", 0), ("mean", 0), ("var", 0), ("var", 1), ("std", 0), ("any", 0),
                         ("all", 0), ("count_nonzero", 0)]:
            for axis in [None, 0, -1, (0, 2)]:
                for keepdims in ([False, True] if axis == -1 else [False]):
                    if op == "count_nonzero" and keepdims:
                        continue
                    kw = {} if op == "count_nonzero" else {"keepdims": keepdims}
                    if op in ("var", "std"):
                        kw["ddof"] = ddof
                    FX.case(f"complex/reduce/{op}/{dt}/{axis_str(axis)}/k{int(keepdims)}/d{ddof}", op,
                            {"kind": "reduce", "axis": axis_str(axis), "keepdims": int(keepdims), "ddof": ddof},
                            [zf], lambda op=op, axis=axis, kw=kw: getattr(np, op)(zf, axis=axis, **kw))
        # Casts both ways.
        for to in ["bool", "int8", "int64", "uint16", "float16", "float32", "float64"] + COMPLEX:
            zc = complex_values(dt, False).reshape(7, 7)
            FX.case(f"complex/astype/{dt},{to}", "astype", {"kind": "astype", "to": to}, [zc],
                    lambda zc=zc, to=to: zc.astype(to))
        for frm in ["bool", "int32", "uint64", "float16", "float32", "float64"]:
            r = rand(frm, (3, 5))
            FX.case(f"complex/astype/{frm},{dt}", "astype", {"kind": "astype", "to": dt}, [r],
                    lambda r=r: r.astype(dt))
        # real/imag/angle/conj (views of the parts; angle's dtype).
        zv = complex_values(dt).reshape(9, 9)
        for op in ["real", "imag", "angle", "conj"]:
            FX.case(f"complex/view/{op}/{dt}", op, {"kind": "view"}, [zv],
                    lambda op=op: getattr(np, op)(zv))
    for real in ["float32", "float64", "float16", "int16", "bool"]:
        r = rand(real, (3, 4))
        FX.case(f"complex/scalar/multiply/{real},c", "multiply", {"kind": "binary"}, [r, 1j],
                lambda r=r: np.multiply(r, 1j))
        FX.case(f"complex/scalar/add/c,{real}", "add", {"kind": "binary"}, [0.5 - 1j, r],
                lambda r=r: np.add(0.5 - 1j, r))
    for real in ["float32", "int8", "float64"]:
        r = rand(real, (4,))
        for op in ["real", "imag", "angle"]:
            FX.case(f"complex/view/{op}/{real}", op, {"kind": "view"}, [r], lambda op=op, r=r: getattr(np, op)(r))


def gen_linalg():
    """numpy.linalg and the root products (op=the function; params: ord, axis, keepdims, n,
    upper, uplo, subs, axes, rcond): well-conditioned inputs in every linalg dtype, stacks that
    broadcast, integers (float64), and NumPy's exceptions. Only results NumPy defines uniquely
    (values, inverses, solutions, Cholesky factors, eigen- and singular values, norms); the
    decompositions with sign or phase freedom (qr, eig, eigh's and svd's vectors) are checked by
    reconstruction in tests/suite/linalg.rs instead. lstsq's results: x, residuals, rank, s."""
    g = np.random.default_rng(18)

    def mat(dt, shape, cond=True):
        x = g.standard_normal(shape)
        if np.dtype(dt).kind == "c":
            x = x + 1j * g.standard_normal(shape)
        if cond:
            n = shape[-1]
            x = x + 2 * n * np.eye(n)
        return x.astype(dt)

    def hpd(a):
        return (a @ np.conj(np.swapaxes(a, -1, -2))).astype(a.dtype)

    def case(tag, op, params, inputs, fn):
        FX.case(f"linalg/{op}/{tag}", op, params, inputs, fn)

    for dt in ["float32", "float64", "complex64", "complex128"]:
        a, st = mat(dt, (4, 4)), mat(dt, (2, 3, 4, 4))
        b, bv, r = mat(dt, (4, 2), False), mat(dt, (4,), False), mat(dt, (2, 5, 3), False)
        case(f"{dt}/2d", "matmul", {}, [a, b], lambda: np.matmul(a, b))
        case(f"{dt}/stack_broadcast", "matmul", {}, [st, b], lambda: np.matmul(st, b))
        case(f"{dt}/vec_mat", "matmul", {}, [bv, a], lambda: np.matmul(bv, a))
        case(f"{dt}/vec_vec", "matmul", {}, [bv, bv], lambda: np.matmul(bv, bv))
        case(f"{dt}/2d", "dot", {}, [a, b], lambda: np.dot(a, b))
        case(f"{dt}/nd", "dot", {}, [st, b], lambda: np.dot(st, b))
        case(f"{dt}", "vdot", {}, [a, a], lambda: np.vdot(a, a))
        case(f"{dt}", "inner", {}, [st, a], lambda: np.inner(st, a))
        case(f"{dt}", "outer", {}, [bv, b], lambda: np.outer(bv, b))
        case(f"{dt}/1", "tensordot", {"axes": "1"}, [st, b], lambda: np.tensordot(st, b, axes=1))
        case(f"{dt}/pairs", "tensordot", {"axes": "2,3:0,1"}, [st, a], lambda: np.tensordot(st, a, axes=([2, 3], [0, 1])))
        case(f"{dt}", "kron", {}, [b, a], lambda: np.kron(b, a))
        case(f"{dt}", "trace", {}, [st], lambda: np.trace(st, axis1=-2, axis2=-1))
        case(f"{dt}/bij", "einsum", {"subs": "bij,jk->bik"}, [st[0], b], lambda: np.einsum("bij,jk->bik", st[0], b))
        case(f"{dt}/ii", "einsum", {"subs": "ii"}, [a], lambda: np.einsum("ii", a))
        for n in [0, 3, -2]:
            case(f"{dt}/{n}", "matrix_power", {"n": n}, [a], lambda n=n: np.linalg.matrix_power(a, n))
        case(f"{dt}", "det", {}, [st], lambda: np.linalg.det(st))
        case(f"{dt}", "slogdet", {}, [st], lambda: list(np.linalg.slogdet(st)))
        case(f"{dt}", "inv", {}, [st], lambda: np.linalg.inv(st))
        case(f"{dt}/broadcast", "solve", {}, [st, b], lambda: np.linalg.solve(st, b))
        case(f"{dt}/vector", "solve", {}, [a, bv], lambda: np.linalg.solve(a, bv))
        h = hpd(st)
        for upper in [0, 1]:
            case(f"{dt}/{upper}", "cholesky", {"upper": upper}, [h], lambda u=upper: np.linalg.cholesky(h, upper=bool(u)))
        for uplo in ["L", "U"]:
            case(f"{dt}/{uplo}", "eigvalsh", {"uplo": uplo}, [h], lambda u=uplo: np.linalg.eigvalsh(h, UPLO=u))
        case(f"{dt}", "svdvals", {}, [r], lambda: np.linalg.svd(r, compute_uv=False))
        for o in ["None", "1", "2", "inf", "-inf", "0", "3"]:
            od = None if o == "None" else float(o)
            case(f"{dt}/vector/{o}", "norm", {"ord": o, "axis": "None", "keepdims": 0}, [bv],
                 lambda od=od: np.linalg.norm(bv, ord=od))
        for o in ["None", "fro", "nuc", "1", "-1", "2", "-2", "inf", "-inf"]:
            od = None if o == "None" else (o if o in ("fro", "nuc") else float(o))
            case(f"{dt}/matrix/{o}", "norm", {"ord": o, "axis": "-2,-1", "keepdims": 1}, [st],
                 lambda od=od: np.linalg.norm(st, ord=od, axis=(-2, -1), keepdims=True))
        case(f"{dt}/axis1", "norm", {"ord": "1", "axis": "1", "keepdims": 0}, [r], lambda: np.linalg.norm(r, ord=1, axis=1))
        case(f"{dt}/all", "norm", {"ord": "None", "axis": "None", "keepdims": 0}, [st], lambda: np.linalg.norm(st))
        for o in ["None", "1", "fro", "inf", "-2"]:
            od = None if o == "None" else (o if o == "fro" else float(o))
            case(f"{dt}/{o}", "cond", {"ord": o}, [a], lambda od=od: np.linalg.cond(a, od))
        deficient = (mat(dt, (5, 2), False) @ mat(dt, (2, 4), False)).astype(dt)
        case(f"{dt}", "matrix_rank", {}, [deficient], lambda: np.linalg.matrix_rank(deficient))
        case(f"{dt}", "pinv", {}, [r[0]], lambda: np.linalg.pinv(r[0]))
        tall = r[0]
        rhs = mat(dt, (5, 2), False)
        case(f"{dt}", "lstsq", {}, [tall, rhs], lambda: list(np.linalg.lstsq(tall, rhs, rcond=None)))
    # Integers compute in float64; bool too.
    ia = np.array([[4, 1, 0], [2, 5, 1], [0, 3, 6]], dtype="int32")
    for op in ["det", "inv"]:
        case("int32", op, {}, [ia], lambda op=op: getattr(np.linalg, op)(ia))
    case("int32", "matmul", {}, [ia, ia], lambda: np.matmul(ia, ia))
    case("bool", "matmul", {}, [ia > 2, ia < 4], lambda: np.matmul(ia > 2, ia < 4))
    case("int32", "norm", {"ord": "None", "axis": "None", "keepdims": 0}, [ia], lambda: np.linalg.norm(ia))
    # 0x0 and empty stacks.
    e = np.zeros((0, 0))
    case("empty", "det", {}, [e], lambda: np.linalg.det(e))
    es = np.zeros((0, 3, 3))
    case("empty_stack", "inv", {}, [es], lambda: np.linalg.inv(es))
    # NumPy's exceptions.
    sing = np.array([[1.0, 2.0], [2.0, 4.0]])
    case("singular", "inv", {}, [sing], lambda: np.linalg.inv(sing))
    case("singular", "solve", {}, [sing, np.ones(2)], lambda: np.linalg.solve(sing, np.ones(2)))
    case("not_pd", "cholesky", {"upper": 0}, [sing], lambda: np.linalg.cholesky(sing))
    rect = np.ones((2, 3))
    case("rect", "det", {}, [rect], lambda: np.linalg.det(rect))
    case("rect", "inv", {}, [rect], lambda: np.linalg.inv(rect))
    case("1d", "det", {}, [np.ones(3)], lambda: np.linalg.det(np.ones(3)))
    case("mismatch", "matmul", {}, [rect, rect], lambda: np.matmul(rect, rect))
    case("mismatch", "solve", {}, [np.eye(3), np.ones(2)], lambda: np.linalg.solve(np.eye(3), np.ones(2)))
    h16 = np.eye(2, dtype="float16")
    case("float16", "inv", {}, [h16], lambda: np.linalg.inv(h16))
    nan = np.array([[1.0, np.nan], [0.0, 1.0]])
    case("nan", "eigvals", {}, [nan], lambda: np.linalg.eigvals(nan))


def gen_special():
    """scipy.special's ufuncs (group "special", op erf/erfc/ndtr/ndtri, the input array): every
    dtype (SciPy's float32 and float64 loops), the tails where erf and erfc part ways, ndtri on
    (0, 1) down to subnormal tails, outside it, and 0-d and empty inputs."""
    import scipy.special as sps
    vals = [np.nan, -np.inf, -40.0, -27.0, -26.5, -10.0, -6.0, -3.7, -1.5, -0.70710678, -0.5, -0.3, -1e-5,
            -1e-300, -0.0, 0.0, 1e-300, 1e-5, 0.3, 0.5, 0.7071068, 1.0, 2.5, 5.9, 6.0, 8.3, 9.0, 26.5, 40.0, np.inf]
    probs = [0.0, 5e-324, 1e-300, 1e-100, 1e-20, 1e-10, 1e-5, 0.001, 0.02, 0.024, 0.1, 0.2499, 0.25, 0.3,
             0.4999999, 0.5, 0.5000001, 0.7, 0.75, 0.7501, 0.9, 0.975, 0.999, 1 - 1e-10, 1 - 1e-16, 1.0,
             -0.1, 1.1, np.nan]
    for op in ["erf", "erfc", "ndtr", "ndtri"]:
        f = getattr(sps, op)
        for dt in DTYPES:
            if op == "ndtri" and dt in FLOATS:
                src = probs
            elif dt in FLOATS:
                src = vals
            else:
                src = unary_values(dt)
            x = arr(pad_even(src), dt)
            FX.case(f"special/{op}/{dt}", op, {}, [x], lambda f=f, x=x: f(x))
        z = arr(0.3, "float32", ())
        e = arr([], "float64", (0, 3))
        FX.case(f"special/{op}/float32/0d", op, {}, [z], lambda f=f: f(z))
        FX.case(f"special/{op}/float64/empty", op, {}, [e], lambda f=f: f(e))


def gen_stats():
    """scipy.stats.norm (group "stats", op pdf/logpdf/cdf/sf/ppf/isf; params loc and scale; the
    input array): float64, float32 and integer inputs, the tails, infinities and NaN, scales
    that are not positive (NaN answers), and 0-d and empty inputs."""
    import scipy.stats as st
    xs = [np.nan, -np.inf, -40.0, -38.5, -12.0, -3.0, -1.0, -0.25, 0.0, 1e-8, 0.5, 1.5, 2.0, 7.0, 9.5, 40.0, np.inf, 3.25]
    qs = [0.0, 1e-300, 1e-12, 0.01, 0.2, 0.25, 0.5, 0.6, 0.77, 0.99, 1 - 1e-12, 1.0, -0.5, 1.5, np.nan, 0.5]
    params = [(0.0, 1.0), (1.5, 2.0), (-3.0, 0.25), (0.0, 0.0), (0.0, -1.0), (np.nan, 1.0), (0.0, np.nan),
              (0.0, np.inf)]
    for op in ["pdf", "logpdf", "cdf", "sf", "ppf", "isf"]:
        f = getattr(st.norm, op)
        for dt in ["float64", "float32", "int64"]:
            if op in ("ppf", "isf"):
                src = qs if dt != "int64" else [0, 1, 2, -1]
            else:
                src = xs if dt != "int64" else [-40, -3, -1, 0, 1, 2, 7, 40]
            x = arr(src, dt, (2, len(src) // 2))
            for loc, scale in params:
                FX.case(f"stats/norm.{op}/{dt}/{loc}_{scale}", op, {"loc": repr(loc), "scale": repr(scale)}, [x],
                        lambda f=f, x=x, loc=loc, scale=scale: f(x, loc=loc, scale=scale))
        z = arr(0.3, "float32", ())
        e = arr([], "float64", (0, 3))
        FX.case(f"stats/norm.{op}/float32/0d", op, {"loc": "0.0", "scale": "1.0"}, [z], lambda f=f: f(z))
        FX.case(f"stats/norm.{op}/float64/empty", op, {"loc": "0.0", "scale": "1.0"}, [e], lambda f=f: f(e))


# Groups written by generators with a generator of their own (and the library versions noted in
# the manifest for them): the only ones --only can regenerate alone.

def gen_random():
    """numpy.random's reproducible streams (op "calls": a sequence of calls on one
    Generator(Philox(seed)), params seed (an integer, or integers joined by "_") and calls:
    "+"-separated calls of "/"-separated fields: random/DTYPE/N, uniform/LOW/HIGH/N,
    integers/LOW/HIGH/DTYPE/ENDPOINT/N, raw/N (random_raw), advance/DELTA; the expected
    results are one array per call that returns one). Also op "seedseq": SeedSequence(seed)
    .generate_state(n, dtype). Only what NumPy computes without sequential rejections:
    random, uniform, and integers (power-of-two ranges, and 32-bit draws whose ranges make
    a rejection unlikely at these seeds)."""
    def seed_of(sd):
        return [int(x) for x in sd.split("_")] if "_" in sd else int(sd)

    for sd in ["0", "42", "12345678901234567890123", "1_2_3_4_5_6", "4294967296"]:
        for n, dt in [(5, "uint32"), (4, "uint64")]:
            FX.case(f"random/seedseq/{sd}/{dt}", "seedseq", {"seed": sd, "n": n, "dtype": dt}, [],
                    lambda sd=sd, n=n, dt=dt: np.random.SeedSequence(seed_of(sd)).generate_state(n, getattr(np, dt)))

    def run(sd, calls):
        g = np.random.Generator(np.random.Philox(seed_of(sd)))
        out = []
        for c in calls.split("+"):
            f = c.split("/")
            if f[0] == "random":
                out.append(g.random(int(f[2]), dtype=getattr(np, f[1])))
            elif f[0] == "uniform":
                out.append(g.uniform(float(f[1]), float(f[2]), int(f[3])))
            elif f[0] == "integers":
                out.append(g.integers(int(f[1]), int(f[2]), int(f[5]), dtype=getattr(np, f[3]), endpoint=f[4] == "1"))
            elif f[0] == "raw":
                out.append(g.bit_generator.random_raw(int(f[1])))
            elif f[0] == "advance":
                g.bit_generator.advance(int(f[1]))
            elif f[0] == "choice":  # choice/POP/REPLACE/P(0: none, 1: CHOICE_P[:POP])/N
                p = CHOICE_P[:int(f[1])] / CHOICE_P[:int(f[1])].sum() if f[3] == "1" else None
                out.append(g.choice(int(f[1]), int(f[4]), replace=f[2] == "1", p=p))
        return out

    cases = {
        "f64": "random/float64/37",
        "f32": "random/float32/41",
        # 32-bit draws keep a half between calls; 64-bit draws leave it alone.
        "mixed": "random/float32/3+random/float64/5+random/float32/2+random/float32/1+raw/3+random/float32/6+random/float64/1",
        "uniform": "uniform/-3.5/10.25/29+random/float32/1+uniform/1e10/-2/3",
        "int64_pow2": "integers/0/1024/int64/0/33+integers/-8/8/int64/0/9+integers/5/68/int64/1/17",
        "int64_1000": "integers/0/1000/int64/0/500+random/float32/3+integers/-100/100/int64/1/77",
        "int64_wide": "integers/0/1099511627776/int64/0/21+integers/-9223372036854775808/9223372036854775807/int64/1/7",
        "uint64": "integers/0/18446744073709551615/uint64/1/9+integers/3/4294967299/uint64/0/5",
        "int32": "integers/0/65536/int32/0/19+integers/-2147483648/2147483647/int32/1/5+random/float32/1+integers/0/4096/uint32/0/7",
        "int16": "integers/0/256/int16/0/13+integers/-32768/32767/int16/1/9+integers/0/4/uint16/0/3",
        "int8": "integers/0/16/int8/0/11+integers/-128/127/int8/1/7+integers/0/2/uint8/0/5+random/float32/1+integers/0/64/uint8/0/9",
        "bool": "integers/0/2/bool/0/70+integers/0/1/bool/1/33+random/float32/1+integers/1/2/bool/0/4",
        "advance": "random/float64/3+advance/5+random/float64/2+random/float32/1+advance/1+random/float32/3",
        "empty": "random/float64/0+random/float32/0+random/float32/1+random/float32/0+random/float32/1",
    }
    # choice: with replacement (uniform: `integers`; with p: the cdf searched), and without
    # replacement with p (NumPy's rounds); p is CHOICE_P's first POP weights, normalised.
    cases["choice"] = ("choice/1024/1/0/40+choice/37/1/1/25+random/float32/1+choice/37/0/1/20"
                       "+choice/200/0/1/200+choice/5/1/1/0+choice/5/0/1/3")
    for sd in ["42", "7", "1_2_3"]:
        for tag, calls in cases.items():
            FX.case(f"random/calls/{sd}/{tag}", "calls", {"seed": sd, "calls": calls}, [],
                    lambda sd=sd, calls=calls: run(sd, calls))
    gen_random_stats()


# choice's weights in the fixtures (the test builds the same: 1 + (k * 7919) % 13, k = 0..).
CHOICE_P = np.array([1.0 + (k * 7919) % 13 for k in range(1000)])


def gen_random_stats():
    """The distributions' statistics (op "chi2"): params dist (a Generator method), args
    ("_"-separated numbers), dtype, n (sample size); inputs: the bins' edges (equal-probability
    quantiles from SciPy's ppf for the continuous distributions, half-integers for the
    discrete ones, with the tails lumped so that every bin expects 20 or more), each bin's
    probability (SciPy's cdf), the chi-square critical value at 1e-7 (SciPy's chi2.isf) and
    the distribution's mean and standard deviation (SciPy). The expected outputs are the
    critical value and 6: the test returns max(chi-square, critical) and max(|z| of the
    sample mean, 6), so it passes exactly when the sample is within both bounds."""
    import scipy.stats as st
    n = 1_000_000
    alpha = 1e-7

    def cont(tag, dist, args, rv, dtype="float64", k=200):
        q = np.linspace(0.0, 1.0, k + 1)
        edges = rv.ppf(q)
        edges[0], edges[-1] = -np.inf, np.inf
        probs = np.diff(np.concatenate([[0.0], rv.cdf(edges[1:-1]), [1.0]]))
        emit(tag, dist, args, dtype, edges, probs, rv)

    def disc(tag, dist, args, rv):
        lo, hi = int(rv.ppf(1e-12)), int(rv.isf(1e-12)) + 1
        ks = np.arange(lo, hi + 1)
        pm = rv.pmf(ks)
        edges, probs, acc, start = [-np.inf], [], 0.0, True
        for kk, pk in zip(ks, pm):
            acc += pk
            if acc * n >= 20:
                edges.append(kk + 0.5)
                probs.append(acc)
                acc = 0.0
        edges[-1] = np.inf
        probs[-1] += acc + rv.sf(hi)
        probs[0] += rv.cdf(lo - 1)
        emit(tag, dist, args, "int64", np.array(edges), np.array(probs), rv)

    def emit(tag, dist, args, dtype, edges, probs, rv):
        crit = float(st.chi2.isf(alpha, len(probs) - 1))
        mean, sd = float(rv.mean()), float(rv.std())
        params = {"dist": dist, "args": "_".join(repr(float(a)) for a in args), "dtype": dtype, "n": n}
        FX.case(f"random/stats/{tag}", "chi2", params,
                [np.asarray(edges, np.float64), np.asarray(probs, np.float64), crit, mean, sd],
                lambda crit=crit: [np.float64(crit), np.float64(6.0)])

    cont("standard_exponential", "standard_exponential", [], st.expon())
    cont("standard_exponential_f32", "standard_exponential", [], st.expon(), "float32")
    cont("exponential_2.5", "exponential", [2.5], st.expon(scale=2.5))
    cont("standard_gamma_0.3", "standard_gamma", [0.3], st.gamma(0.3))
    cont("standard_gamma_0.3_f32", "standard_gamma", [0.3], st.gamma(0.3), "float32")
    cont("standard_gamma_1", "standard_gamma", [1.0], st.gamma(1.0))
    cont("standard_gamma_4.5", "standard_gamma", [4.5], st.gamma(4.5))
    cont("gamma_2_3", "gamma", [2.0, 3.0], st.gamma(2.0, scale=3.0))
    cont("beta_0.5_0.7", "beta", [0.5, 0.7], st.beta(0.5, 0.7))
    cont("beta_2_5", "beta", [2.0, 5.0], st.beta(2.0, 5.0))
    cont("beta_0.3_3", "beta", [0.3, 3.0], st.beta(0.3, 3.0))
    cont("lognormal_0.5_0.8", "lognormal", [0.5, 0.8], st.lognorm(0.8, scale=np.exp(0.5)))
    cont("normal_f32", "standard_normal", [], st.norm(), "float32")
    for lam in [0.5, 3.5, 10.0, 57.3, 1e5]:
        disc(f"poisson_{lam}", "poisson", [lam], st.poisson(lam))
    for nn, pp in [(10, 0.3), (100, 0.25), (1000, 0.4), (1000, 0.97), (100000, 0.6), (7, 0.5)]:
        disc(f"binomial_{nn}_{pp}", "binomial", [nn, pp], st.binom(nn, pp))
    w = CHOICE_P[:37] / CHOICE_P[:37].sum()
    disc("choice_p_37", "choice_p", [37], st.rv_discrete(values=(np.arange(37), w)))


def gen_fft():
    """numpy.fft (group "fft"): op the function; params n/axis or s/axes ("None" or
    "_"-separated), norm, d; the input array. Odd and prime lengths, crops and zero-pads,
    every norm, real and complex inputs of both precisions and integers, n-d transforms over
    chosen axes (reordered, four axes: more than cuFFT's three at a time), and errors."""
    rng = np.random.default_rng(19)

    def arr(shape, dt):
        x = rng.standard_normal(shape) * 3
        if dt.startswith("complex"):
            x = x + 1j * rng.standard_normal(shape)
        if dt == "int64":
            x = np.round(x * 10)
        return x.astype(dt)

    def enc(v):
        return "None" if v is None else "_".join(str(int(t)) for t in v) if isinstance(v, (tuple, list)) else str(v)

    one = {"fft": np.fft.fft, "ifft": np.fft.ifft, "rfft": np.fft.rfft, "irfft": np.fft.irfft,
           "hfft": np.fft.hfft, "ihfft": np.fft.ihfft}
    for name, f in one.items():
        real_in = name in ("rfft", "ihfft")
        dts = ["float64", "float32", "int64"] if real_in else ["complex128", "complex64", "float64", "float32"]
        for size in [1, 2, 5, 7, 8, 12, 17, 64, 97, 210, 1000]:
            for dt in dts:
                x = arr((size,), dt)
                for n in [None, 3, 16, 31]:
                    if n is None and size == 1 and name in ("irfft", "hfft"):
                        continue
                    for norm in ["backward", "ortho", "forward"]:
                        if size > 64 and norm != "ortho" and n is not None:
                            continue
                        FX.case(f"fft/{name}/{size}/{dt}/{n}/{norm}", name, {"n": enc(n), "axis": -1, "norm": norm}, [x],
                                lambda f=f, x=x, n=n, norm=norm: f(x, n=n, norm=norm))
        for shape, axis in [((3, 10), 0), ((3, 10), -1), ((2, 3, 5), 1), ((4, 1, 6), 1)]:
            for dt in dts[:2]:
                x = arr(shape, dt)
                for n in [None, 9]:
                    FX.case(f"fft/{name}/{enc(shape)}/{axis}/{dt}/{n}", name, {"n": enc(n), "axis": axis, "norm": "backward"}, [x],
                            lambda f=f, x=x, n=n, axis=axis: f(x, n=n, axis=axis))
    nd = {"fft2": np.fft.fft2, "ifft2": np.fft.ifft2, "rfft2": np.fft.rfft2, "irfft2": np.fft.irfft2,
          "fftn": np.fft.fftn, "ifftn": np.fft.ifftn, "rfftn": np.fft.rfftn, "irfftn": np.fft.irfftn}
    for name, f in nd.items():
        real_in = name.startswith("rfft")
        dts = ["float64", "float32"] if real_in else ["complex128", "complex64", "float64"]
        two = name.endswith("2")
        cases = [((8, 6), None, None), ((5, 7), None, (6, 9)), ((4, 6, 10), None, None), ((4, 6, 10), (0, 2), None),
                 ((4, 6, 10), (-1, 0), (5, 4)), ((3, 1, 7), (1, 2), None)]
        if not two:
            cases += [((3, 4, 5, 6), None, None), ((3, 4, 5, 6), (3, 0, 1, 2), None), ((6, 5), None, (4,)),
                      ((2, 3, 4), (1,), None), ((13,), None, None)]
        for shape, axes, s_ in cases:
            if two and axes is None:
                axes_ = (-2, -1)
            else:
                axes_ = axes
            if two and len(axes_) != 2:
                continue
            for dt in dts:
                x = arr(shape, dt)
                for norm in ["backward", "ortho", "forward"]:
                    FX.case(f"fft/{name}/{enc(shape)}/{enc(axes_)}/{enc(s_)}/{dt}/{norm}", name,
                            {"s": enc(s_), "axes": enc(axes_), "norm": norm}, [x],
                            lambda f=f, x=x, s_=s_, axes_=axes_, norm=norm: f(x, s=s_, axes=axes_, norm=norm))
    for n in [1, 4, 7, 10]:
        for d in [1.0, 0.1]:
            FX.case(f"fft/fftfreq/{n}/{d}", "fftfreq", {"n": n, "d": repr(d)}, [], lambda n=n, d=d: np.fft.fftfreq(n, d))
            FX.case(f"fft/rfftfreq/{n}/{d}", "rfftfreq", {"n": n, "d": repr(d)}, [], lambda n=n, d=d: np.fft.rfftfreq(n, d))
    for shape, axes in [((7,), None), ((8,), None), ((5, 6), None), ((5, 6), (0,)), ((5, 6), (-1,)), ((3, 4, 5), (0, 2))]:
        x = arr(shape, "float64")
        for name, f in [("fftshift", np.fft.fftshift), ("ifftshift", np.fft.ifftshift)]:
            FX.case(f"fft/{name}/{enc(shape)}/{enc(axes)}", name, {"axes": enc(axes)}, [x],
                    lambda f=f, x=x, axes=axes: f(x, axes=axes))
    # Errors: n of 0, an axis out of range, complex input to rfft, irfft of one point (n 0).
    x = arr((6,), "complex128")
    FX.case("fft/err/n0", "fft", {"n": "0", "axis": -1, "norm": "backward"}, [x], lambda: np.fft.fft(x, n=0))
    FX.case("fft/err/axis", "fft", {"n": "None", "axis": 1, "norm": "backward"}, [x], lambda: np.fft.fft(x, axis=1))
    FX.case("fft/err/rfft_complex", "rfft", {"n": "None", "axis": -1, "norm": "backward"}, [x], lambda: np.fft.rfft(x))
    x1 = arr((1,), "complex128")
    FX.case("fft/err/irfft_1", "irfft", {"n": "None", "axis": -1, "norm": "backward"}, [x1], lambda: np.fft.irfft(x1))
    x2 = arr((4, 4), "complex128")
    FX.case("fft/err/s0", "fftn", {"s": "0_4", "axes": "None", "norm": "backward"}, [x2], lambda: np.fft.fftn(x2, s=(0, 4)))
    FX.case("fft/err/axes", "fftn", {"s": "None", "axes": "0_2", "norm": "backward"}, [x2], lambda: np.fft.fftn(x2, axes=(0, 2)))


def gen_signal_fft():
    """scipy.signal's FFT convolutions (group "signal_fft"): fftconvolve and oaconvolve with
    modes and axes (broadcast axes, the 'valid' swap), every float and complex dtype and
    integers, inputs long enough for overlap-add; convolve/correlate with method fft and auto
    (integer results rounded); errors."""
    import scipy.signal as ss
    rng = np.random.default_rng(1919)

    def arr(shape, dt):
        x = rng.standard_normal(shape)
        if dt.startswith("complex"):
            x = x + 1j * rng.standard_normal(shape)
        if dt in ("int64", "int16", "uint8"):
            x = np.abs(np.round(x * 5))
        return x.astype(dt)

    def enc(v):
        return "None" if v is None else "_".join(str(int(t)) for t in v)

    shapes = [((100,), (7,), None), ((7,), (100,), None), ((40, 50), (7, 9), None), ((30, 20), (30, 20), None),
              ((5, 40), (1, 7), (1,)), ((5, 40), (5, 7), (1,)), ((5, 40), (1, 7), None), ((10, 12, 14), (3, 4, 5), None),
              ((300,), (11,), None), ((64, 80), (5, 7), None), ((2, 500), (1, 31), (-1,)), ((1000,), (1000,), None),
              ((257, 3), (16, 3), (0,))]
    for dt in ["float64", "float32", "complex128", "complex64", "int64", "float16"]:
        for sa, sb, axes in shapes:
            a, b = arr(sa, dt), arr(sb, dt)
            for mode in ["full", "same", "valid"]:
                for fn, f in [("fftconvolve", ss.fftconvolve), ("oaconvolve", ss.oaconvolve)]:
                    if dt == "float16" and fn == "oaconvolve":
                        continue
                    FX.case(f"signal_fft/{fn}/{dt}/{enc(sa)}/{enc(sb)}/{enc(axes)}/{mode}", fn,
                            {"mode": mode, "axes": enc(axes)}, [a, b],
                            lambda f=f, a=a, b=b, mode=mode, axes=axes: f(a, b, mode=mode, axes=axes))
    for dt in ["float64", "float32", "complex64", "int64", "int16", "uint8"]:
        for sa, sb in [((100,), (7,)), ((40, 50), (7, 9)), ((10, 12, 14), (3, 4, 5)), ((90, 70), (21, 17)), ((7,), (100,))]:
            a, b = arr(sa, dt), arr(sb, dt)
            for op in ["convolve", "correlate"]:
                for mode in ["full", "same", "valid"]:
                    for method in ["fft", "auto"]:
                        f = getattr(ss, op)
                        FX.case(f"signal_fft/{op}/{dt}/{enc(sa)}/{enc(sb)}/{mode}/{method}", op,
                                {"mode": mode, "method": method, "axes": "None"}, [a, b],
                                lambda f=f, a=a, b=b, mode=mode, method=method: f(a, b, mode=mode, method=method))
    a, b = arr((6, 7), "float64"), arr((3,), "float64")
    FX.case("signal_fft/err/rank", "fftconvolve", {"mode": "full", "axes": "None"}, [a, b], lambda: ss.fftconvolve(a, b))
    b2 = arr((8, 3), "float64")
    FX.case("signal_fft/err/valid", "fftconvolve", {"mode": "valid", "axes": "None"}, [a, b2], lambda: ss.fftconvolve(a, b2, mode="valid"))
    b3 = arr((4, 3), "float64")
    FX.case("signal_fft/err/shapes", "fftconvolve", {"mode": "full", "axes": "1"}, [a, b3], lambda: ss.fftconvolve(a, b3, axes=[1]))
    e = np.zeros((0, 3))
    FX.case("signal_fft/empty", "fftconvolve", {"mode": "full", "axes": "None"}, [e, b3], lambda: ss.fftconvolve(e, b3))
    s0, s1 = np.float64(2.5), np.float64(-3.0)
    FX.case("signal_fft/0d", "fftconvolve", {"mode": "full", "axes": "None"}, [s0, s1], lambda: ss.fftconvolve(s0, s1))

GROUP_VERSIONS = {
    "signal": lambda: f"NumPy {np.__version__}, SciPy {__import__('scipy').__version__}",
    "ndimage_measure": lambda: f"NumPy {np.__version__}, SciPy {__import__('scipy').__version__}",
    "ndimage_label": lambda: f"NumPy {np.__version__}, SciPy {__import__('scipy').__version__}",
    "signal_nd": lambda: f"NumPy {np.__version__}, SciPy {__import__('scipy').__version__}",
    "ndimage_filters": lambda: f"NumPy {np.__version__}, SciPy {__import__('scipy').__version__}",
    "ndimage_morph": lambda: f"NumPy {np.__version__}, SciPy {__import__('scipy').__version__}",
    "ndimage_rank": lambda: f"NumPy {np.__version__}, SciPy {__import__('scipy').__version__}",
    "io": lambda: f"NumPy {np.__version__}, astropy {__import__('astropy').__version__}",
    "complex": lambda: f"NumPy {np.__version__}",
    "linalg": lambda: f"NumPy {np.__version__}",
    "random": lambda: f"NumPy {np.__version__}",
    "fft": lambda: f"NumPy {np.__version__}",
    "signal_fft": lambda: f"NumPy {np.__version__}, SciPy {__import__('scipy').__version__}",
    "special": lambda: f"NumPy {np.__version__}, SciPy {__import__('scipy').__version__}",
    "stats": lambda: f"NumPy {np.__version__}, SciPy {__import__('scipy').__version__}",
}
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
            globals()[f"gen_{g}"]()
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
