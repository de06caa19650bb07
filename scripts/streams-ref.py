#!/usr/bin/env python3
"""Writes streams_ref.py: the streams section of ../shared/bench/cupy_reference.py (its helpers
and the lines from '# streams:' to the end of families()), to time only the four stream rows
with CuPy. Usage: scripts/streams-ref.py ../shared/bench/cupy_reference.py gpu-bundle/streams_ref.py"""
import sys

src = open(sys.argv[1]).read()
head = src[:src.index("cli = argparse.ArgumentParser()")]
helpers = src[src.index("def cpu_time"):src.index("def sky(")]
body = src[src.index("    # streams: the lesson"):src.index("def numba_kernels")]
out = (head + "import cupyx as cpx\nOUT = None\nresults = []\nrng = np.random.default_rng(0)\n" + helpers
       + "\ndef streams():\n" + body + "\nstreams()\n"
       + "print('DEVICE', cp.cuda.runtime.getDeviceProperties(0)['name'].decode(), 'cupy', cp.__version__)\n")
open(sys.argv[2], "w").write(out)
