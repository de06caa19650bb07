# A/B of random.cu's fill kernels as CuPy RawModules: each variant's bits against the kernel
# before (old.cu: block tiles staged in shared memory, keys added per round), then their times
# and CuPy's at 1e8 outputs. Run from the repository root:
#   python3 bench/probes/random_ab/ab.py n32,u64,u32,n64 now=crates/cuprum/src/random/random.cu:-DSTANDARD=1
# A variant is NAME=FILE[:FLAG,...] (FILE here or from the root); NCU=1 launches each once
# (ncu.sh). The *.pre files are random/cuda.rs's preludes (float64/float32 uniform and normal).
import cupy as cp, numpy as np, sys, os, json
D = os.path.dirname(os.path.abspath(__file__))
prelude = open(f'{D}/../../../crates/cuprum/src/backend/cuda/include/prelude.cuh').read().replace('#pragma once', '')
THREADS = 256
sm = cp.cuda.Device().attributes['MultiProcessorCount']

def module(var, cu, extra=()):
    path = f'{D}/{cu}' if os.path.exists(f'{D}/{cu}') else cu
    src = (open(f'{D}/{var}.pre').read() + open(path).read()).replace('#include "cuprum/prelude.cuh"', '')
    src = prelude + src
    class K:
        pass
    k = K()
    k.f = cp.RawModule(code=src, options=('--std=c++17', '--fmad=false', f'-DTHREADS={THREADS}', '-DSTAGE=1') + tuple(extra)).get_function('random_fill')
    k.keys = 'const Keys rk' in src
    k.std = '-DSTANDARD=1' in extra
    return k

BITS = {'u64': 64, 'n64': 64, 'u32': 32, 'n32': 32}
DT = {'u64': cp.float64, 'n64': cp.float64, 'u32': cp.float32, 'n32': cp.float32}

KD = np.dtype([('k', '<u8', (20,))])
W0, W1 = 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B
def keys_arg(k0, k1):
    a = np.zeros((), KD)
    a['k'] = [((k0 + (r // 2) * W0) if r % 2 == 0 else (k1 + (r // 2) * W1)) % 2**64 for r in range(20)]
    return a[()]

def launch(f, warp_tiles, out, n, start, pend, pending, a=0.0, b=1.0, key=(0x1234567, 0x89abcdef)):
    dpb = 4 if BITS[var] == 64 else 8
    ndraws = n; main = ndraws - min(pend, ndraws)
    first = start // dpb; last = first if main == 0 else (start + main - 1) // dpb
    if warp_tiles:
        nt = (last - first + 1 + 31) // 32; grid = min((nt + THREADS // 32 - 1) // (THREADS // 32), sm * 32)
    else:
        nt = (last - first + 1 + THREADS - 1) // THREADS; grid = min(nt, sm * 32)
    u = np.uint64
    ks = (keys_arg(*key),) if f.keys else (u(key[0]), u(key[1]))
    f.f((grid,), (THREADS,), (out, np.int64(n)) + ks + (u(start), np.int32(pend), u(pending), u(7), u(3),
                              np.float64(a), np.float64(b), u(0), u(0), u(0), np.int64(nt)))

def timeit(fn, reps=30):
    for _ in range(3): fn()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts)), float(min(ts))

# argv: VARS (comma list of u64,n32,u32,n64) then variants NAME=FILE[:FLAG,FLAG]
VARS = sys.argv[1].split(',')
variants = []
for a in sys.argv[2:]:
    name, rest = a.split('=', 1)
    cu, _, fl = rest.partition(':')
    variants.append((name, cu, tuple(x for x in fl.split(',') if x)))
res = []
for var in VARS:
    old = module(var, 'old.cu')
    mods = [(name, module(var, cu, ex)) for name, cu, ex in variants]
    if os.environ.get('NCU'):
        out = cp.empty(10**8, DT[var])
        launch(old, False, out, 10**8, 0, 0, 0)
        for name, f in mods: launch(f, True, out, 10**8, 0, 0, 0)
        cp.cuda.Device().synchronize(); continue
    # correctness
    cases = [(10**8, 0, 0, 0), (3_000_017, 5, 0, 0), (77, 13, 0, 0), (1, 0, 0, 0), (0, 0, 0, 0), (257 * 33 + 5, 1, 0, 0)]
    if BITS[var] == 32:
        cases += [(1_000_003, 6, 1, 1), (1, 8, 1, 1), (2, 9, 1, 2), (5000, 3, 1, 0)]
    for n, start, pend, pending in cases:
        refs = {}
        for ab in ((0.5, 2.0), (0.0, 1.0)):
            refs[ab] = cp.full(n + 64, 7, DT[var]); launch(old, False, refs[ab], n, start, pend, pending, a=ab[0], b=ab[1])
        for name, f in mods:
            ab = (0.0, 1.0) if f.std else (0.5, 2.0)
            ref = refs[ab]
            o = cp.full(n + 64, 7, DT[var]); launch(f, True, o, n, start, pend, pending, a=ab[0], b=ab[1])
            eq = bool(cp.all(o.view(cp.uint8) == ref.view(cp.uint8)))
            if not eq and f.std and var[0] == 'n':
                # standard_normal keeps the ziggurat's -0.0 (NumPy's), 0 + 1 * -0.0 does not
                d = cp.nonzero(o.view(cp.uint8 if False else (cp.uint64 if DT[var] == cp.float64 else cp.uint32)) != ref.view(cp.uint64 if DT[var] == cp.float64 else cp.uint32))[0]
                negz = bool(cp.all((o[d] == 0) & cp.signbit(o[d]) & ~cp.signbit(ref[d])))
                print('standard', var, name, (n, start, pend, pending), 'differs at', d.size, 'outputs, all -0.0 for +0.0:', negz, flush=True)
                eq = negz
            if not eq:
                bad = cp.nonzero(o.view(cp.uint8) != ref.view(cp.uint8))[0]
                print('MISMATCH', var, name, (n, start, pend, pending), 'first bad byte', int(bad[0]), 'count', bad.size, flush=True)
    print('checked', var, len(cases), 'cases x', len(mods), 'variants', flush=True)
    n = 10**8
    out = cp.empty(n, DT[var])
    row = {'var': var, 'old': timeit(lambda: launch(old, False, out, n, 0, 0, 0))}
    row['old_ab'] = timeit(lambda: launch(old, False, out, n, 0, 0, 0, a=0.5, b=2.0))
    for name, f in mods:
        row[name] = timeit(lambda: launch(f, True, out, n, 0, 0, 0, a=0.0 if f.std else 0.5, b=1.0 if f.std else 2.0))
    g = cp.random.default_rng(1)
    if var == 'n32': row['cupy'] = timeit(lambda: g.standard_normal(n, dtype=cp.float32))
    if var == 'u64': row['cupy'] = timeit(lambda: g.random(n))
    if var == 'u32': row['cupy'] = timeit(lambda: g.random(n, dtype=cp.float32))
    if var == 'n64': row['cupy'] = timeit(lambda: g.standard_normal(n))
    print(json.dumps(row), flush=True); res.append(row)
print('done')
