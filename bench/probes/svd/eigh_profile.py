"""Where cuSOLVER's syevd spends a 1024² float32 eigh (eigh_1024_f32): the kernels of one call
(CUPTI through torch.profiler, process-wide, so CuPy's call is seen too), their count and summed
time against the call's elapsed time (CUDA events), grouped by kernel name. Shows whether the
call is bound by kernel time or by the gaps between kernels (host work, synchronisation)."""
import collections
import numpy as np
import cupy as cp
import torch
from torch.profiler import profile, ProfilerActivity

N = 1024
rng = np.random.default_rng(0)
B = rng.standard_normal((N, N)).astype(np.float32)
S = cp.asarray((B + B.T) / 2)
for dt in (cp.float32, cp.float64):
    a = S.astype(dt)
    for _ in range(3):
        cp.linalg.eigh(a)
    cp.cuda.Device().synchronize()
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        e0.record()
        cp.linalg.eigh(a)
        e1.record()
        e1.synchronize()
    wall = cp.cuda.get_elapsed_time(e0, e1)
    groups = collections.defaultdict(lambda: [0, 0.0])
    total, n = 0.0, 0
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            name = ev.name
            groups[name][0] += 1
            groups[name][1] += ev.device_time_total / 1e3 if hasattr(ev, "device_time_total") else ev.cuda_time_total / 1e3
    for name, (c, t) in groups.items():
        if "Memcpy" in name or "Memset" in name or True:
            total += t
            n += c
    print("%s: call %.2f ms (events), %d GPU activities summing %.2f ms" % (np.dtype(dt).name, wall, n, total))
    for name, (c, t) in sorted(groups.items(), key=lambda x: -x[1][1])[:14]:
        print("  %6d x %8.3f ms  %s" % (c, t, name[:110]))
