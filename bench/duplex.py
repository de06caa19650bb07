# Pinned host<->device copy bandwidth with CuPy: each direction alone, then both at once on two
# streams (the floor under copy_exp_copy_8x50MB_four_streams). Run on the GPU host: python3 duplex.py
import cupy as cp, cupyx as cpx, numpy as np, time
n = 100 * 2**20 // 4 * 4  # 400 MB of float32
h1 = cpx.empty_pinned((n,), np.float32); h2 = cpx.empty_pinned((n,), np.float32)
h1[:] = 1; d1 = cp.empty(n, cp.float32); d2 = cp.ones(n, cp.float32)
s1, s2 = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
def t(f, r=5):
    f(); cp.cuda.Device().synchronize(); ts = []
    for _ in range(r):
        a = time.perf_counter(); f(); cp.cuda.Device().synchronize(); ts.append(time.perf_counter() - a)
    return 1e3 * float(np.median(ts))
h2d = t(lambda: d1.set(h1, stream=s1)); d2h = t(lambda: d2.get(out=h2, stream=s2, blocking=False))
both = t(lambda: (d1.set(h1, stream=s1), d2.get(out=h2, stream=s2, blocking=False)))
mb = n * 4 / 1e6
print(f"pinned 400 MB: htod {h2d:.2f} ms ({mb/h2d:.1f} GB/s), dtoh {d2h:.2f} ms ({mb/d2h:.1f} GB/s), both at once on two streams {both:.2f} ms")
