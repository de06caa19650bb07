#!/usr/bin/env bash
# The CPU backend's unsafe code under Miri (undefined behaviour, out-of-bounds and misaligned
# accesses, use after free, data races), through the test suite's CPU cases:
#   scripts/miri.sh [FAMILY...]        (default: the families below; needs `rustup +nightly
#                                      component add miri rust-src`)
# MIRI_SKIP (default "large one_ulp complex"): name patterns left out: the cases that sweep large
# arrays or every float16 value (hours under Miri; their code paths run in the smaller cases), and
# the complex ones (complex functions call libm's csqrt/cexp..., C code that Miri cannot run).
# One Miri run per family, each with a time limit (MIRI_TIMEOUT seconds, default 1800: Miri
# interprets, about a thousand times slower than the release build), logs and a summary in
# target/miri-logs/. Under Miri the CUDA driver is not loaded (no GPU: the GPU cases are
# ignored), property tests draw CUPRUM_PROP_CASES (default 4) inputs, and float functions are
# deterministic (Miri otherwise perturbs exp/log/... results on purpose, which exact tests see).
# The aliasing model is Tree Borrows: under Stacked Borrows the first parallel loop stops in
# crossbeam-epoch (rayon's work-stealing deque: a retag of its intrusive list's entries), outside
# cuprum; Tree Borrows accepts that code and checks ours as strictly for what it does.
set -uo pipefail
cd "$(dirname "$0")/.."
# -Zmiri-ignore-leaks: rayon's global pool keeps its worker threads to the end of the process,
# which Miri otherwise reports as an error when the main thread returns.
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-disable-isolation -Zmiri-deterministic-floats -Zmiri-tree-borrows -Zmiri-ignore-leaks}"
export CUPRUM_PROP_CASES=${CUPRUM_PROP_CASES:-4} CUPRUM_TEST_SEED=${CUPRUM_TEST_SEED:-1}
families=("$@")
[ ${#families[@]} -eq 0 ] && families=(array props ufunc reduce select sort scan manip indexing set_ops complex fuse kernel
    statistics random fft linalg ndimage signal io conformance)
logs=target/miri-logs
mkdir -p "$logs"
summary=$logs/summary.txt
: > "$summary"
status=0
cargo +nightly miri test -p cuprum --test suite --no-run > "$logs/build.log" 2>&1 || { cat "$logs/build.log"; exit 1; }
for f in "${families[@]}"; do
    log=$logs/$f.log
    start=$(date +%s)
    skips=(--skip ::gpu)
    for s in ${MIRI_SKIP-large one_ulp complex}; do skips+=(--skip "$s"); done
    timeout "${MIRI_TIMEOUT:-1800}" cargo +nightly miri test -q -p cuprum --test suite -- "$f::" "${skips[@]}" --test-threads=1 > "$log" 2>&1
    rc=$?
    took=$(( $(date +%s) - start ))
    result=$(grep -E '^test result' "$log" | tail -1)
    if [ $rc -eq 124 ]; then
        line="$f: timed out after ${took}s ($(grep -cE '\.\.\. ok$' "$log") cases passed before)"
    elif [ $rc -eq 0 ]; then
        line="$f: ok in ${took}s ($result)"
    else
        line="$f: FAILED in ${took}s ($result; $(grep -m1 -E '^error: (Undefined Behavior|memory leaked|unsupported)' "$log"))"
        status=1
    fi
    echo "$line" | tee -a "$summary"
done
exit $status
