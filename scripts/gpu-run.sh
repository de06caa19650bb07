#!/usr/bin/env bash
# The GPU check, run from a bundle made by scripts/gpu-bundle.sh: ./run.sh [OUT]
# Options (environment): SKIP_TESTS=1, SKIP_PLAIN=1 (no plain test runs), SKIP_SANITIZER=1,
# SKIP_RACECHECK=1, SKIP_BENCH=1, TESTS_ONLY="a b" (only these test binaries),
# MEMCHECK_SKIP="a b" (binaries left out of memcheck, to fit a time limit: say so).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/out}
mkdir -p "$out"
cd "$here"
# A kernel cache carried in the bundle (kernel-cache.tar) saves the first compilations.
if [ -f kernel-cache.tar ] && [ -z "${CUPRUM_CACHE_DIR:-}" ]; then
  mkdir -p "$out/kernel-cache" && tar -xzf kernel-cache.tar -C "$out/kernel-cache"
fi
export CUPRUM_REQUIRE_GPU=1 CUPRUM_FIXTURES="$here/fixtures" CUPRUM_CACHE_DIR="${CUPRUM_CACHE_DIR:-$out/kernel-cache}"
status=0
summary="$out/summary.txt"
: > "$summary"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$summary"
selected() { [ -z "${TESTS_ONLY:-}" ] || case " $TESTS_ONLY " in *" $1 "*) true;; *) false;; esac; }
for t in tests/*; do
  [ "${SKIP_TESTS:-0}" = 1 ] || [ "${SKIP_PLAIN:-0}" = 1 ] && break
  name=$(basename "$t")
  selected "$name" || continue
  if "$t" > "$out/test-$name.log" 2>&1; then r=ok; else r=FAILED; status=1; fi
  echo "test $name: $r ($(grep -E '^test result' "$out/test-$name.log" | tail -1))" | tee -a "$summary"
done
if command -v compute-sanitizer > /dev/null && [ "${SKIP_SANITIZER:-0}" != 1 ] && [ "${SKIP_TESTS:-0}" != 1 ]; then
  for t in tests/*; do
    name=$(basename "$t")
    selected "$name" || continue
    # The library's unit tests use no GPU (compute-sanitizer refuses such a process).
    [ "$name" = cuprum ] && continue
    # MEMCHECK_SKIP="a b": binaries left out of memcheck (to fit a time limit; say so).
    case " ${MEMCHECK_SKIP:-} " in *" $name "*) echo "memcheck $name: skipped (MEMCHECK_SKIP)" | tee -a "$summary"; continue;; esac
    # The pool test provokes out-of-memory on purpose: that API error is expected there.
    api=explicit; [ "$name" = pool ] && api=no
    # The sort tests are long under memcheck: a representative subset (every kernel family).
    filt=""; [ "$name" = gpu_sort ] && filt="sort_f32 sort_u64 sort_f16 sort_i8 sort_large_with_few_digits quantile_f32 quantile_i64 quantile_u16 median_averages unique isin"
    compute-sanitizer --tool memcheck --report-api-errors $api --error-exitcode 99 "$t" $filt > "$out/memcheck-$name.log" 2>&1
    rc=$?
    [ $rc -ne 0 ] && status=1
    echo "memcheck $name: rc=$rc $(grep -E 'ERROR SUMMARY' "$out/memcheck-$name.log" | tail -1)" | tee -a "$summary"
  done
  # racecheck on the kernels that share memory between threads: reductions, the sort's
  # passes and selection, the selection/compaction and scan kernels.
  [ "${SKIP_RACECHECK:-0}" = 1 ] || for spec in "gpu_vs_cpu reductions large_contiguous" "gpu_sort sort_f32 sort_u16 quantile_i32 unique" \
      "gpu_select mask_i8 mask_rows_and_views scan_i32 extract_and_indices"; do
    set -- $spec; name=$1; shift
    [ -x "tests/$name" ] && selected "$name" || continue
    compute-sanitizer --tool racecheck --error-exitcode 99 "tests/$name" --test-threads=4 "$@" > "$out/racecheck-$name.log" 2>&1
    rc=$?
    [ $rc -ne 0 ] && status=1
    echo "racecheck $name: rc=$rc $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$out/racecheck-$name.log" | tail -1)" | tee -a "$summary"
  done
fi
for e in bin/*; do
  n=$(basename "$e")
  [ "$n" = cuprum-bench ] && continue
  if "$e" > "$out/example-$n.log" 2>&1; then r=ok; else r=FAILED; status=1; fi
  echo "example $n: $r" | tee -a "$summary"
done
if [ -x bin/cuprum-bench ] && [ "${SKIP_BENCH:-0}" != 1 ]; then
  bin/cuprum-bench --write-sky "$out/sky.npy" --out "$out/cuprum.jsonl" ${BENCH_ARGS:-} > "$out/bench.log" 2>&1 || status=1
  if python3 -c 'import cupy' 2> /dev/null && [ -f cupy_reference.py ]; then
    python3 cupy_reference.py --sky "$out/sky.npy" --out "$out/cupy.jsonl" ${CUPY_ARGS:-} > "$out/cupy.log" 2>&1 || status=1
    python3 compare.py "$out/cupy.jsonl" "$out/cuprum.jsonl" | tee "$out/compare.txt"
  fi
fi
# Hand the kernel cache back (one file) so that the next bundle can carry it.
[ -d "$out/kernel-cache" ] && tar -czf "$out/kernel-cache.tar" -C "$out/kernel-cache" . && rm -rf "$out/kernel-cache"
echo "overall: $([ $status -eq 0 ] && echo PASS || echo FAIL)" | tee -a "$summary"
exit $status
