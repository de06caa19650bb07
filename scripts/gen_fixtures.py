#!/usr/bin/env python3
"""NumPy conformance fixtures for cuprum (read by crates/cuprum/tests/conformance.rs).

    python3 scripts/gen_fixtures.py

Writes, under crates/cuprum/tests/fixtures/:

* numpy.bin: named .npy blobs, each as [u32 LE name length][name, UTF-8][u64 LE .npy
  length][.npy bytes as written by np.save]. Blobs are deduplicated by dtype and contents: a
  case whose result has the contents of an existing blob under another shape refers to it with
  a shape override (see below).
* manifest.txt: one case per line (lines starting with '#' are comments):

      id|op|params|inputs|expected

  id        unique, readable name of the case (conformance.rs's KNOWN_DIFFS refer to it); its
            first '/'-separated component is the group: unary, binary, scalar, reduce, astype,
            creation, view, misc
  op        NumPy's name of the operation (UnaryOp/BinaryOp/ReduceOp::name() for ufuncs)
  params    key=value pairs separated by ';' (values may contain ',')
  inputs    operands separated by ',': a blob token, or a Python scalar as i:<int> (fits
            int64), u:<int> (larger), f:<float> (repr: 1.5, -0.0, inf, nan), b:0 / b:1
  expected  'ERR:<Python exception>' when NumPy raises, else blob tokens separated by ','
            (meshgrid has several)

  A blob token is a blob name, or 'name#2.1.4': blob `name` viewed with shape (2, 1, 4)
  ('name#' is 0-d).

  Parameters: reduce has axis=None|0|-1|0,2, keepdims=0|1, ddof; astype has to=<dtype>;
  creation has the function's arguments (shape=2,3; m=None...); misc has rtol/atol/equal_nan
  or decimals; view has ops=<chain> and strides=<NumPy's strides of the result> (absent for
  errors). A chain is '/'-separated steps applied in order: '[<NumPy basic index>]', 'T',
  or name(ints) for reshape, transpose, swapaxes, moveaxis, diagonal (offset, axis1, axis2),
  squeeze, expand_dims, broadcast_to, ravel, flatten.

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

    def blob(self, a):
        """The token naming array `a` (stored once per dtype and contents)."""
        a = np.asarray(a)
        if not a.flags.c_contiguous:  # (np.ascontiguousarray would make 0-d arrays 1-d)
            a = a.copy(order="C")
        key = (a.dtype.str, a.tobytes())
        hit = self.by_content.get(key)
        if hit is None:
            name = f"b{len(self.blobs)}"
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
            f.write(f"# NumPy {np.__version__} conformance cases, written by scripts/gen_fixtures.py; "
                    "format in that script's docstring.\n")
            f.write("# id|op|params|inputs|expected\n")
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


def main():
    gen_unary()
    gen_binary()
    gen_scalar()
    gen_reduce()
    gen_astype()
    gen_creation()
    gen_views()
    gen_misc()
    FX.write()
    total = sum(len(d) for _, d in FX.blobs)
    print(f"NumPy {np.__version__}: {len(FX.lines)} cases, {len(FX.blobs)} blobs, {total / 1e6:.2f} MB of .npy")
    for g, n in FX.groups.items():
        print(f"  {g}: {n}")


if __name__ == "__main__":
    main()
