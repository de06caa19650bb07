#!/usr/bin/env bash
# The CPU table of issue 12: NumPy/SciPy (numpy_reference.py) and cuprum's CPU backend
# (cuprum-bench --cpu-only) on the same machine, the same inputs, one after the other, then
# compare.py --cpu. Usage: scripts/cpu-bench.sh MACHINE [DIR]   (MACHINE: 2core or h100host)
# Writes DIR/<date>-<MACHINE>-cpu-{numpy,cuprum}.jsonl and ...-cpu-compare.txt (DIR default
# bench/results). Needs python3 with numpy and scipy, and the reference scripts beside the
# lessons (../shared/bench) or in this folder (the GPU bundle carries them).
set -euo pipefail
machine=${1:?usage: scripts/cpu-bench.sh MACHINE [DIR]}
here=$(cd "$(dirname "$0")" && pwd)
dir=${2:-$here/../bench/results}
mkdir -p "$dir"
ref=""
for d in "$here/../../shared/bench" "$here" "$here/.."; do [ -f "$d/numpy_reference.py" ] && ref=$d && break; done
[ -n "$ref" ] || { echo "numpy_reference.py not found" >&2; exit 1; }
bench=${CUPRUM_BENCH:-}
[ -n "$bench" ] || for b in "$here/../target/release/cuprum-bench" "$here/bin/cuprum-bench"; do [ -x "$b" ] && bench=$b && break; done
[ -n "$bench" ] || { echo "cuprum-bench not built (cargo build --release -p cuprum-bench)" >&2; exit 1; }
inputs=${BENCH_INPUTS:-/tmp/cuprum-bench-inputs}
mkdir -p "$inputs"
stem="$dir/$(date -u +%Y-%m-%d)-$machine-cpu"
# The same inputs on both sides: the sky cuprum's generator makes (numpy_reference.py's own
# differs), and the blobs and volume numpy_reference.py writes into $inputs.
"$bench" --cpu-only --write-sky "$inputs/sky.npy" --only none > /dev/null
python3 "$ref/numpy_reference.py" --sky "$inputs/sky.npy" --inputs "$inputs" --out "$stem-numpy.jsonl" > /dev/null
"$bench" --cpu-only --sky "$inputs/sky.npy" --inputs "$inputs" --out "$stem-cuprum.jsonl" > /dev/null 2> "$stem-cuprum.log"
python3 "$ref/compare.py" --cpu "$stem-numpy.jsonl" "$stem-cuprum.jsonl" | tee "$stem-compare.txt"
