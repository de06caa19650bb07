"""CuPy's (and Numba's) user-kernel rows alone: cupy_reference.py's helpers, its
numba_kernels() and its section 11 (gaussian_pdf_1M_f32, polar_distance_1M_f32, primes_10k),
cut from the script beside this one and run as they are. Usage: python3 userkernels_ref.py"""
import os, re
src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cupy_reference.py")).read()
head = src[: src.index("def sky(")]
numba = src[src.index("def numba_kernels():"): src.index("import cupyx as cpx")]
s11 = src[src.index("# 11. user-defined elementwise kernels"): src.index("# 13. ")]
code = head.replace("ARGS = cli.parse_args()", "ARGS = cli.parse_args([])") + numba + "\nimport math\n" + s11
code += "\ntry:\n    numba_kernels()\nexcept Exception as e:\n    print('numba kernels not timed:', type(e).__name__, e)\n"
code += "print('DEVICE', cp.cuda.runtime.getDeviceProperties(0)['name'].decode(), 'cupy', cp.__version__)\n"
exec(compile(code, "userkernels_ref", "exec"))
