#!/usr/bin/env python3
"""Measurements behind the rows where cuprum from Python trails cuprum from Rust (python/bench/ref_vs_rust.py),
each split into the part both share and the part only Python does, with cuprumx.profiler.benchmark:

- center_of_mass over many labels: the device result (what the Rust bench returns) vs SciPy's list of
  tuples built from it (a device-to-host copy and one Python tuple per label);
- two inversions on two streams: with cuprum's default (the solver's status read back, NumPy's LinAlgError)
  and under cuprumx.errstate(linalg="ignore") (CuPy's default, and the Rust bench's setting);
- the batched 8x8 inverse likewise, checked and unchecked;
- label into int32 (the Rust bench's output) and into float64 (cupy_reference's `cp.empty` output);
- np.convolve through __array_function__ beside cp.convolve (the dispatch's share);
- the per-call host time of a fused function.

    python/bench/explain.py [--out FILE]
"""

import argparse
import json

import numpy as np

import cuprum as cp
import cuprumx
import cuprumx.scipy.ndimage as ndi
from cuprumx.profiler import benchmark


def ms(f, *args, n=20):
    r = benchmark(f, args, n_repeat=n, n_warmup=3)
    return round(1e3 * float(np.median(r.gpu_times[0])), 4), round(1e3 * float(np.median(r.cpu_times)), 4)


def main():
    cli = argparse.ArgumentParser()
    cli.add_argument("--out")
    args = cli.parse_args()
    rows = []

    def rec(name, t, note):
        rows.append({"name": name, "gpu_ms": t[0], "host_ms": t[1], "note": note})
        print(json.dumps(rows[-1]), flush=True)

    rng = np.random.default_rng(12)
    import scipy.ndimage

    blobs = scipy.ndimage.gaussian_filter(rng.standard_normal((2048, 2048)), 2.0).astype(np.float32)
    lab, nb = scipy.ndimage.label(blobs > 0.12)
    x, lab_g, idx = cp.asarray(blobs), cp.asarray(lab), cp.arange(1, nb + 1)
    rec("com_device_result", ms(ndi._com, x, lab_g, idx), f"{nb} labels: the positions as a device array")
    rec(
        "com_list_of_tuples",
        ms(ndi.center_of_mass, x, lab_g, idx),
        "SciPy's return type: copied back, one tuple a label",
    )
    r = ndi._com(x, lab_g, idx)
    rec("com_tolist_only", ms(lambda: [tuple(p) for p in r.tolist()]), "the conversion alone")

    a = cp.asarray(np.random.default_rng(6).random((6000, 6000)).astype(np.float32))
    s1, s2 = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)

    def two():
        with s1:
            c1 = cp.linalg.inv(a)
        with s2:
            c2 = cp.linalg.inv(a)
        s1.synchronize()
        s2.synchronize()
        return c1, c2

    rec("two_inv_streams_checked", ms(two, n=5), "cuprum's default: each inverse reads the solver's status back")
    with cuprumx.errstate(linalg="ignore"):
        rec("two_inv_streams_unchecked", ms(two, n=5), 'cuprumx.errstate(linalg="ignore"): no read-back')

    bi = cp.asarray(rng.standard_normal((16384, 8, 8)) + 8 * np.eye(8))
    rec("inv_batched_checked", ms(cp.linalg.inv, bi), "cuprum's default: the 16384 statuses read back")
    with cuprumx.errstate(linalg="ignore"):
        rec("inv_batched_unchecked", ms(cp.linalg.inv, bi), 'cuprumx.errstate(linalg="ignore")')

    d1 = cp.zeros(2048 * 2048)
    d1[8::16] = 1.0
    g1 = cp.exp(-0.5 * cp.linspace(-2.0, 2.0, 15) ** 2)
    rec("convolve1d_np_dispatch", ms(np.convolve, d1, g1), "np.convolve: NumPy's dispatch, then cuprum")
    rec("convolve1d_cp_direct", ms(cp.convolve, d1, g1), "cp.convolve called directly")

    fused = cp.fuse(lambda x, y: (x - y) * (x - y))
    xs, ys = cp.arange(10000), cp.arange(10000)[::-1]
    rec("fused_squared_diff_10k", ms(fused, xs, ys, n=200), "host time per call is the row's GPU time")
    seg = cp.asarray((blobs > 0.12).astype(np.int64))
    out = cp.empty(seg.shape)
    rec(
        "label_2048_output",
        ms(lambda: ndi.label(seg, output=out), n=50),
        "label(output=float64 array), as cupy_reference: returns the count (a host int)",
    )
    out32 = cp.empty(seg.shape, dtype=np.int32)
    rec("label_2048_output_int32", ms(lambda: ndi.label(seg, output=out32), n=50), "int32 output (the Rust row's)")
    rec("label_2048_plain", ms(lambda: ndi.label(seg), n=50), "label(seg): new int32 labels and the count")
    if args.out:
        with open(args.out, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)


if __name__ == "__main__":
    main()
