"""CUDA-event timing shared by the probes: `median_ms(f, rep, warm)` calls `f` `warm` times, then
`rep` times each between two events on the current stream, and returns the median in ms. The
probes in folders below this one import it after putting this folder on `sys.path`."""
import numpy as np
import cupy as cp


def median_ms(f, rep=20, warm=3):
    for _ in range(warm):
        f()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(rep):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        f()
        b.record()
        b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b))
    return float(np.median(ts))
