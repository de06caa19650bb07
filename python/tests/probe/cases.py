"""The bad and extreme inputs of the probe (`python/tests/test_probe.py`): each case an expression evaluated once
with NumPy/SciPy and once with cuprum, in the same namespace shape.

Names in an expression: ``xp`` (``numpy`` | ``cuprum``), ``la`` (``xp.linalg``), ``fft`` (``xp.fft``), ``nd``
(``scipy.ndimage`` | ``cuprumx.scipy.ndimage``), ``sig`` (``scipy.signal`` | ``cuprumx.scipy.signal``), ``sfft``
(``scipy.fft`` | ``cuprumx.scipy.fft``), and the arrays ``a4`` (float64 0..3), ``m23`` (float64 2x3), ``i4``
(int64 0..3), ``u8`` (uint8 0..3), ``b4`` (bool), ``c4`` (complex128), ``h4`` (float16), ``e0`` (float64, empty),
``z0`` (a 0-d float64), ``img`` (float64 8x8), ``lab`` (int64 8x8 labels), ``sq`` (float64 3x3 singular), ``rng``
(``xp.random.default_rng(0)``).

The sizes are chosen past what any machine holds (2^40 elements and more), never between a gigabyte and what
the runner's address-space limit allows, so that no case is slow or heavy where it succeeds.
"""

HUGE = ["2**40", "2**62", "2**63 - 1", "2**63", "2**64", "-1", "-(2**63)"]
BIG_SHAPES = ["(2**32, 2**32)", "(2**20, 2**20, 2**20)", "(0, 2**63)", "(1,) * 65", "(-1, 2)", "(2, 2.5)"]
AXES = ["2", "-3", "100", "2**63", "-(2**63)", "1.5", "(0, 0)"]
SCALARS = ["float('nan')", "float('inf')", "-float('inf')", "2**64", "-(2**63) - 1", "1j", "True", "None", "'a'"]


def _cases():
    c = []

    def add(expr, tag=None):
        c.append((tag or expr, expr))

    # creation: sizes, shapes, dtypes, fill values
    for f in ["zeros", "ones", "empty"]:
        for n in HUGE + BIG_SHAPES:
            add(f"xp.{f}({n})")
    for n in HUGE:
        add(f"xp.full({n}, 1.0)")
        add(f"xp.eye({n})")
        add(f"xp.identity({n})")
        add(f"xp.arange({n})")
        add(f"xp.linspace(0, 1, {n})")
        add(f"xp.tri({n})")
    for v in SCALARS:
        for dt in ["xp.uint8", "xp.int64", "xp.float32", "xp.bool_"]:
            add(f"xp.full(3, {v}, dtype={dt})")
    for args in ["0, 10, 0", "0, float('inf')", "float('nan'), 3", "0, 2**70", "-1, 3, 1, xp.uint8", "0, 1, 2**-1074"]:
        add(f"xp.arange({args})")
    add("xp.linspace(0, 1, 5, dtype=xp.int8)")
    add("xp.eye(3, k=2**63)")
    add("xp.eye(3, 2**40)")
    add("xp.asarray([[1, 2], [3]])")
    add("xp.asarray([1, 2**64])")
    add("xp.asarray([1, 'a'])")

    # manipulation
    for s in BIG_SHAPES + ["(5,)", "(-1, -1)", "(3, -2)", "()"]:
        add(f"a4.reshape({s})")
    for ax in AXES:
        add(f"xp.expand_dims(a4, {ax})")
        add(f"xp.squeeze(m23, {ax})")
        add(f"xp.flip(m23, {ax})")
        add(f"xp.roll(m23, 1, {ax})")
        add(f"xp.moveaxis(m23, {ax}, 0)")
        add(f"xp.swapaxes(m23, {ax}, 0)")
        add(f"xp.concatenate([m23, m23], {ax})")
        add(f"xp.stack([a4, a4], {ax})")
        add(f"xp.diff(m23, 1, {ax})")
    for t in ["(0, 0)", "(2, 0)", "(0, 1, 2)", "(0,)", "(5, 0)"]:
        add(f"m23.transpose({t})")
    for r in HUGE:
        if r != "2**62":  # NumPy 2.4 itself crashes (SIGSEGV) on repeat(a, 2**62)
            add(f"xp.repeat(a4, {r})")
        add(f"xp.tile(a4, {r})")
        add(f"xp.roll(a4, {r})")
        add(f"xp.pad(a4, {r})")
    # NumPy's diff loops n times (n = 2**40 does not return): cuprum's is checked in test_bad_input.py.
    add("xp.diff(a4, -1)")
    add("xp.diff(a4, 5)")
    for mode in ["'reflect'", "'wrap'", "'edge'", "'bogus'"]:
        add(f"xp.pad(e0, 2, mode={mode})")
        add(f"xp.pad(a4, 2**40, mode={mode})")
    add("xp.pad(a4, ((1, 2), (3, 4)))")
    add("xp.broadcast_to(a4, (3,))")
    add("xp.broadcast_to(a4, (2**63, 4))")
    add("xp.broadcast_to(a4, (1,) * 65 + (4,))")
    add("xp.concatenate([a4, m23])")
    add("xp.concatenate([])")
    add("xp.stack([a4, m23])")
    add("xp.split(a4, 3)")
    add("xp.split(a4, 0)")
    add("xp.array_split(a4, 0)")

    # indexing
    for k in [
        "4",
        "-5",
        "2**63",
        "-(2**63)",
        "2**64",
        "1.0",
        "(0, 0)",
        "(..., ...)",
        "xp.asarray([4])",
        "xp.asarray([2**62])",
        "xp.asarray([1.0])",
        "xp.asarray([True, False])",
        "slice(None, None, 0)",
        "slice(1, 4, 2**63 - 2)",
        "slice(None, None, -(2**63))",
        "slice(2**70, None, -1)",
        "slice(0, 2**70)",
        "slice(None, None, 2**70)",
        "(None,) * 64",
        "(None,) * 70",
    ]:
        add(f"a4[{k}]")
    for k in ["(0, 5)", "(2, 0)", "xp.asarray([[True, False, True]])", "(xp.asarray([0, 1]), xp.asarray([0, 1, 2]))"]:
        add(f"m23[{k}]")
    for idx in ["4", "-5", "2**63", "xp.asarray([4])", "xp.asarray([1.5])"]:
        add(f"xp.take(a4, {idx})")
        add(f"xp.take(a4, {idx}, mode='wrap')")
    add("xp.take(a4, xp.asarray([1]), axis=5)")
    add("xp.take_along_axis(m23, xp.asarray([[5]]), 1)")
    add("xp.put(a4, xp.asarray([9]), 1.0)")

    # ufuncs and operators
    for op in ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "==", "<"]:
        for other in ["c4", "b4", "h4", "u8", "m23", "e0", "2**64", "-(2**63) - 1", "1j", "'a'", "None"]:
            add(f"i4 {op} {other}")
    for f in [
        "sqrt",
        "log",
        "exp",
        "sin",
        "arctanh",
        "floor",
        "rint",
        "sign",
        "isnan",
        "invert",
        "logical_not",
        "bitwise_count",
    ]:
        for x in ["c4", "b4", "h4", "u8", "e0", "z0", "'a'"]:
            add(f"xp.{f}({x})")
    for x, y in [("i4", "-1"), ("i4", "xp.asarray([-1, 0, 1, 2])"), ("u8", "-1"), ("b4", "b4")]:
        add(f"xp.power({x}, {y})")
    add("xp.left_shift(i4, 2**40)")
    add("xp.right_shift(u8, 200)")
    add("xp.clip(a4, 3, 1)")
    add("xp.clip(i4, 2**70, None)")
    add("xp.round(a4, 2**40)")
    add("xp.round(i4, -(2**40))")
    add("xp.where(a4, m23, 0)")
    add("xp.maximum(a4, m23)")
    add("xp.add(a4, a4, out=e0)")
    add("xp.add(a4, a4, out=xp.zeros(4, dtype=xp.int64))")
    add("xp.add(a4, a4, dtype=xp.int8)")

    # reductions
    for f in [
        "sum",
        "prod",
        "mean",
        "var",
        "std",
        "min",
        "max",
        "argmin",
        "argmax",
        "any",
        "all",
        "cumsum",
        "cumprod",
        "ptp",
        "nansum",
        "nanmean",
        "nanmax",
        "count_nonzero",
    ]:
        for ax in AXES:
            add(f"xp.{f}(m23, {ax})")
        add(f"xp.{f}(e0)")
        add(f"xp.{f}(xp.zeros((0, 3)), 0)")
        add(f"xp.{f}(c4)")
    for d in ["5", "-1", "2**63", "float('nan')", "float('inf')", "1e308"]:
        add(f"xp.var(a4, ddof={d})")
        add(f"xp.std(m23, 0, ddof={d})")
    add("xp.sum(a4, dtype=xp.int8)")
    add("xp.sum(a4, axis=(0, 0))")
    add("xp.mean(i4, dtype=xp.uint8)")

    # sorting and selection
    for ax in AXES:
        add(f"xp.sort(m23, {ax})")
        add(f"xp.argsort(m23, {ax})")
        add(f"xp.unique(m23, axis={ax})")
    for kth in ["4", "-5", "2**63", "(0, 9)", "1.5"]:
        add(f"xp.partition(a4, {kth})")
        add(f"xp.argpartition(a4, {kth})")
    add("xp.searchsorted(m23, a4)")
    add("xp.searchsorted(a4, 1.0, side='middle')")
    add("xp.nonzero(z0)")
    add("xp.flatnonzero(e0)")
    add("xp.extract(b4, m23)")
    add("xp.compress(b4, a4)")

    # statistics
    for q in ["150", "-1", "float('nan')", "xp.asarray([50, 101])", "1e308"]:
        add(f"xp.percentile(a4, {q})")
    for q in ["1.5", "-0.1", "float('nan')"]:
        add(f"xp.quantile(a4, {q})")
    add("xp.percentile(a4, 50, method='bogus')")
    add("xp.median(e0)")
    add("xp.median(m23, 5)")
    for b in ["0", "-1", "2**40", "2**63", "2**64", "1.5", "xp.asarray([3.0, 1.0])", "xp.asarray([])", "'auto'"]:
        add(f"xp.histogram(a4, bins={b})")
    for r in ["(3, 1)", "(0, float('inf'))", "(float('nan'), 1)", "(-1.7e308, 1.7e308)", "(1, 1)"]:
        add(f"xp.histogram(a4, 3, range={r})")
    add("xp.histogram(xp.asarray([float('nan'), 1.0]))")
    add("xp.histogram(xp.asarray([0.0, float('inf')]))")
    add("xp.bincount(xp.asarray([-1, 2]))")
    add("xp.bincount(i4, minlength=-1)")
    add("xp.bincount(i4, minlength=2**40)")
    add("xp.bincount(a4)")
    add("xp.bincount(i4, weights=a4[:3])")
    add("xp.average(a4, weights=xp.zeros(4))")
    add("xp.average(a4, weights=a4[:3])")
    add("xp.corrcoef(e0)")
    add("xp.cov(a4, ddof=10)")

    # linear algebra
    for f in ["inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "svd", "pinv", "qr", "matrix_rank"]:
        for x in [
            "sq",
            "m23",
            "e0",
            "z0",
            "xp.zeros((0, 0))",
            "c4",
            "xp.full((2, 2), float('nan'))",
            "b4.reshape(2, 2)",
        ]:
            add(f"la.{f}({x})")
    for x, y in [
        ("sq", "a4"),
        ("m23", "a4[:2]"),
        ("xp.eye(3)", "xp.ones((4, 1))"),
        ("xp.eye(2)", "xp.ones((2, 2, 2))"),
    ]:
        add(f"la.solve({x}, {y})")
        add(f"la.lstsq({x}, {y})")
    for o in ["3", "'fro'", "'nuc'", "-2", "'bogus'", "float('inf')", "0"]:
        add(f"la.norm(a4, {o})")
        add(f"la.norm(m23, {o})")
    add("la.norm(m23, axis=(0, 0))")
    add("la.norm(m23, axis=(0, 1, 2))")
    for n in ["-1", "2**63", "1.5"]:
        add(f"la.matrix_power(sq, {n})")
    add("xp.matmul(a4, m23)")
    add("xp.dot(m23, m23)")
    add("xp.outer(e0, a4)")
    add("xp.kron(m23, e0)")
    add("xp.trace(a4)")
    add("xp.diagonal(a4)")
    add("xp.diag(m23, 2**63)")

    # fft
    for f in ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]:
        for n in ["0", "-1", "2**40", "2**63", "1.5"]:
            add(f"fft.{f}(a4, {n})")
        for ax in AXES[:5]:
            add(f"fft.{f}(m23, axis={ax})")
        add(f"fft.{f}(a4, norm='bogus')")
        add(f"fft.{f}(e0)")
    for f in ["fftn", "ifftn", "rfftn", "irfftn", "fft2"]:
        add(f"fft.{f}(m23, s=(0, 3))")
        add(f"fft.{f}(m23, s=(2,), axes=(0, 1))")
        add(f"fft.{f}(m23, axes=(0, 0))")
        add(f"fft.{f}(m23, axes=(5,))")
    for n, d in [("8", "0"), ("0", "1"), ("-1", "1"), ("2**40", "1"), ("8", "float('nan')")]:
        add(f"fft.fftfreq({n}, {d})")
        add(f"fft.rfftfreq({n}, {d})")
    add("fft.fftshift(m23, axes=5)")
    for t in ["2**62 + 1", "0", "-1", "2**63", "2**64"]:
        add(f"sfft.next_fast_len({t})")
        add(f"sfft.next_fast_len({t}, real=True)")

    # random
    for args in ["5, 1", "0, 0", "0, 2**64", "-(2**63) - 1, 0", "0, 10, size=-1", "0, 10, size=2**40"]:
        add(f"rng.integers({args})")
    for args in ["0, -1", "0, float('nan')", "float('inf'), 1", "size=(2**32, 2**32)"]:
        add(f"rng.normal({args})")
    for args in [
        "0",
        "-1",
        "xp.asarray([])",
        "5, size=10, replace=False",
        "a4, p=xp.asarray([0.5, 0.5])",
        "a4, p=xp.asarray([1.0, -1.0, 0.5, 0.5])",
    ]:
        add(f"rng.choice({args})")
    add("rng.uniform(0, float('inf'))")
    add("rng.exponential(-1)")
    add("rng.poisson(-1)")
    add("rng.binomial(-1, 0.5)")
    add("rng.binomial(5, 1.5)")
    add("xp.random.default_rng(-1)")
    add("rng.permutation(-1)")
    add("rng.shuffle(z0)")

    # ndimage
    for f in [
        "gaussian_filter",
        "uniform_filter",
        "median_filter",
        "maximum_filter",
        "minimum_filter",
        "percentile_filter",
        "rank_filter",
    ]:
        extra = {"percentile_filter": ", 50", "rank_filter": ", 0"}.get(f, "")
        for size in ["0", "-1", "2**40", "2**63", "(3, 3, 3)", "(3,)"]:
            arg = size if f == "gaussian_filter" else f"size={size}"
            if f in ("percentile_filter", "rank_filter"):
                add(f"nd.{f}(img{extra}, size={size})")
            else:
                add(f"nd.{f}(img, {arg})")
        add(
            f"nd.{f}(img{extra}, {'3' if f != 'gaussian_filter' else '1.0'}, mode='bogus')"
            if f != "percentile_filter" and f != "rank_filter"
            else f"nd.{f}(img{extra}, size=3, mode='bogus')"
        )
        add(f"nd.{f}(c4{extra}, 3)" if f not in ("percentile_filter", "rank_filter") else f"nd.{f}(c4{extra}, size=3)")
        add(f"nd.{f}(e0{extra}, 3)" if f not in ("percentile_filter", "rank_filter") else f"nd.{f}(e0{extra}, size=3)")
    for s in ["float('nan')", "-1.0", "1e300", "(1.0, 1.0, 1.0)"]:
        add(f"nd.gaussian_filter(img, {s})")
        add(f"nd.gaussian_filter1d(a4, {s})")
    add("nd.gaussian_filter(img, 1.0, truncate=1e300)")
    add("nd.gaussian_filter1d(a4, 1.0, radius=2**62)")
    add("nd.gaussian_filter1d(a4, 1.0, order=5)")
    add("nd.percentile_filter(img, 150, size=3)")
    add("nd.rank_filter(img, 100, size=3)")
    add("nd.uniform_filter1d(a4, 3, axis=5)")
    add("nd.convolve(img, xp.ones((3, 3, 3)))")
    add("nd.convolve(img, e0.reshape(0, 0))")
    add("nd.correlate1d(img, xp.asarray([]))")
    add("nd.sobel(img, axis=5)")
    add("nd.laplace(c4)")
    for st in [
        "xp.ones((3, 3, 3))",
        "xp.ones((5, 5))",
        "xp.asarray([[0, 1, 0], [0, 1, 0], [1, 1, 0]])",
        "xp.ones((0, 0))",
    ]:
        add(f"nd.label(img > 0.5, {st})")
    add("nd.label(c4)")
    add("nd.label(h4)")
    add("nd.label(img, output=xp.zeros((8, 8), dtype=xp.uint8))")
    add("nd.label(img > 0, output=xp.zeros((4, 4), dtype=xp.int32))")
    for r, k in [("70", "1"), ("-1", "1"), ("2", "-1"), ("2", "2**62"), ("0", "0")]:
        add(f"nd.generate_binary_structure({r}, {k})")
    add("nd.iterate_structure(xp.ones((3, 3), dtype=bool), 2**40)")
    add("nd.iterate_structure(xp.ones((3, 3), dtype=bool), -1)")
    for f in ["binary_erosion", "binary_dilation", "binary_opening", "binary_closing", "binary_fill_holes"]:
        add(f"nd.{f}(img > 0.5, xp.ones((3, 3, 3)))")
        add(f"nd.{f}(c4)")
    add("nd.binary_erosion(img > 0.5, iterations=-1)")
    add("nd.binary_erosion(img > 0.5, iterations=2**63)")
    for f in [
        "sum_labels",
        "mean",
        "variance",
        "standard_deviation",
        "minimum",
        "maximum",
        "median",
        "center_of_mass",
        "minimum_position",
        "maximum_position",
    ]:
        for index in [
            "None",
            "xp.asarray([1, 2**63 - 1])",
            "xp.asarray([-(2**63)])",
            "0",
            "xp.asarray([[1, 2], [3, 4]])",
            "1.5",
        ]:
            add(f"nd.{f}(img, lab, {index})")
        add(f"nd.{f}(img, lab[:4])")
        add(f"nd.{f}(e0, e0)")
        add(f"nd.{f}(c4, xp.asarray([1, 1, 2, 2]))")
    add("nd.histogram(img, 5, 1, 3)")
    add("nd.histogram(img, 0, 1, 0)")
    add("nd.histogram(img, 0, 1, -1)")
    add("nd.histogram(img, float('nan'), 1, 3)")
    add("nd.labeled_comprehension(img, lab, None, xp.sum, float, 0)")

    # signal
    for mode in ["'full'", "'same'", "'valid'", "'bogus'"]:
        add(f"sig.convolve2d(img, xp.ones((9, 9)), {mode})")
        add(f"sig.convolve2d(img, e0.reshape(0, 0), {mode})")
        add(f"xp.convolve(a4, e0, {mode})")
        add(f"xp.convolve(e0, a4, {mode})")
        add(f"sig.fftconvolve(a4, m23, {mode})")
        add(f"sig.correlate(img, a4, {mode})")
    add("sig.convolve2d(img, xp.ones((3, 3)), boundary='bogus')")
    add("sig.convolve2d(a4, a4)")
    add("sig.convolve2d(c4.reshape(2, 2), img)")
    add("sig.fftconvolve(img, xp.ones((3, 3)), axes=5)")
    add("sig.convolve(img, xp.ones((3, 3)), method='bogus')")

    # io
    add("xp.load('/nonexistent/probe.npy')")
    add("xp.save('/nonexistent/dir/probe.npy', a4)")
    return c


CASES = _cases()
