"""CUDA-event timing shared by the probes: `median_ms(f, rep, warm)` calls `f` `warm` times, then
`rep` times each between two events on the current stream, and returns the median in ms;
`kernels(f, label)` prints the GPU activities of one call of `f` (CUPTI through torch.profiler)
grouped by name. The probes in folders below this one import it after putting this folder on
`sys.path`."""
import collections

import cupy as cp
import numpy as np


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


def kernels(f, label):
    import torch
    from torch.profiler import ProfilerActivity, profile

    f()
    cp.cuda.Device().synchronize()
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        e0.record()
        f()
        e1.record()
        e1.synchronize()
    wall = cp.cuda.get_elapsed_time(e0, e1)
    groups = collections.defaultdict(lambda: [0, 0.0])
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            t = ev.device_time_total if hasattr(ev, "device_time_total") else ev.cuda_time_total
            groups[ev.name][0] += 1
            groups[ev.name][1] += t / 1e3
    total = sum(t for _, t in groups.values())
    count = sum(c for c, _ in groups.values())
    print("%s: call %.2f ms (events), %d GPU activities summing %.2f ms" % (label, wall, count, total))
    for name, (c, t) in sorted(groups.items(), key=lambda x: -x[1][1])[:12]:
        print("  %6d x %8.3f ms  %s" % (c, t, name[:110]))
