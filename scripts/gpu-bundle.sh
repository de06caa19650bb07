#!/usr/bin/env bash
# Builds everything the GPU check needs into one folder that runs without cargo:
#   scripts/gpu-bundle.sh [DIR]        (default: gpu-bundle/, ignored by git)
# then, on a GPU host, from that folder:  ./run.sh [OUT]
# which runs the library's unit tests and the test suite (tests/suite, one binary; three runs
# with fresh seeds) with CUPRUM_REQUIRE_GPU=1, the suite under compute-sanitizer (memcheck per
# family; racecheck on the shared-memory kernels), the examples, and the benchmark beside
# CuPy's reference when they are present, leaving logs in OUT (default: ./out).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/gpu-bundle}
cd "$root"
rm -rf "$dir"
mkdir -p "$dir/tests" "$dir/bin"
# Test binaries (their names come from cargo's JSON messages).
cargo test --release --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"] and "cuprum-bench" not in m["package_id"] and "cuprum-sky" not in m["package_id"]:
        print(m["executable"])' > "$dir/tests.txt"
while read -r exe; do
  cp "$exe" "$dir/tests/$(basename "$exe" | sed 's/-[0-9a-f]*$//')"
done < "$dir/tests.txt"
rm "$dir/tests.txt"
cargo build --release --examples --bins 2>/dev/null
for f in target/release/examples/*; do
  # cpu_*_timing: the CPU backend's timing tools stay home (the bundle must fit 64 MiB).
  [ -f "$f" ] && [ -x "$f" ] && [[ "$f" != *-* ]] && [[ "$(basename "$f")" != cpu_* ]] && cp "$f" "$dir/bin/"
done
for f in target/release/cuprum-bench target/release/cuprum-sky; do
  [ -f "$f" ] && cp "$f" "$dir/bin/"
done
strip "$dir"/tests/* "$dir"/bin/* 2>/dev/null || true
# Compressed (a quarter of the size: what travels to a GPU host is limited); run.sh unpacks.
gzip -6 "$dir"/tests/* "$dir"/bin/*
[ -d crates/cuprum/tests/fixtures ] && cp -r crates/cuprum/tests/fixtures "$dir/fixtures"
[ -d ../shared/bench ] && cp ../shared/bench/*.py "$dir/" || true
[ -f ../shared/bench/cupy_reference.py ] && scripts/streams-ref.py ../shared/bench/cupy_reference.py "$dir/streams_ref.py" || true
cp bench/duplex.py "$dir/duplex.py"
cp scripts/gpu-run.sh "$dir/run.sh"
cp scripts/cpu-bench.sh "$dir/cpu-bench.sh"
# A kernel cache brought back from an earlier GPU run (optional; see run.sh).
[ -f "${CUPRUM_BUNDLE_CACHE:-$root/.gpu-cache/kernel-cache.tar}" ] && cp "${CUPRUM_BUNDLE_CACHE:-$root/.gpu-cache/kernel-cache.tar}" "$dir/kernel-cache.tar" || true
chmod +x "$dir/run.sh"
du -sh "$dir"
