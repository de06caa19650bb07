#!/usr/bin/env bash
# The GPU check, run from a bundle made by scripts/gpu-bundle.sh: ./run.sh [OUT]
# Options (environment): SKIP_TESTS=1, SKIP_PLAIN=1 (no plain test runs), SKIP_SANITIZER=1,
# SKIP_RACECHECK=1, SKIP_BENCH=1, RUNS=N (plain runs of the suite, each with a fresh seed;
# default 3), TESTS_ONLY="sort select" (only these families of the suite; `cuprum` names the
# library's unit tests), MEMCHECK_SKIP="conformance ..." (families left out of memcheck, to fit
# a time limit: say so), MEMCHECK_FULL=1 (whole sort and statistics families under memcheck,
# not their subsets).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/out}
mkdir -p "$out"
cd "$here"
# The binaries travel compressed (gpu-bundle.sh).
for f in tests/*.gz bin/*.gz; do
  [ -f "$f" ] && gunzip -f "$f" && chmod +x "${f%.gz}"
done
# A kernel cache carried in the bundle (kernel-cache.tar) saves the first compilations.
if [ -f kernel-cache.tar ] && [ -z "${CUPRUM_CACHE_DIR:-}" ]; then
  mkdir -p "$out/kernel-cache" && tar -xzf kernel-cache.tar -C "$out/kernel-cache"
fi
export CUPRUM_REQUIRE_GPU=1 CUPRUM_FIXTURES="${CUPRUM_FIXTURES:-$here/fixtures}" CUPRUM_CACHE_DIR="${CUPRUM_CACHE_DIR:-$out/kernel-cache}"
status=0
summary="$out/summary.txt"
: > "$summary"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$summary"
# The suite (tests/suite: one binary, a module per family) and the library's unit tests
# (tests/cuprum). A family is a filter: `tests/suite sort::`.
families=$(tests/suite --list 2> /dev/null | sed -n 's/^\([a-z_]*\)::.*: test$/\1/p' | sort -u)
selected() { [ -z "${TESTS_ONLY:-}" ] || case " $TESTS_ONLY " in *" $1 "*) true;; *) false;; esac; }
# The families to run as filters (none: the whole suite).
filters=""
[ -n "${TESTS_ONLY:-}" ] && for f in $families; do selected "$f" && filters="$filters $f::"; done
# Filters match anywhere in a name (`indexing::` matches conformance::integer_indexing::cpu).
[ -n "$filters" ] && ! selected conformance && filters="$filters --skip conformance::"
# Per-family counts of a suite log: "  sort: 20 passed, 0 failed, 0 ignored".
per_family() {
  awk '$1 == "test" && $(NF-1) == "..." { split($2, p, "::"); f = p[1]; fams[f] = 1
         if ($NF == "ok") ok[f]++; else if ($NF == "ignored") ig[f]++; else bad[f]++ }
       END { for (f in fams) printf "  %s: %d passed, %d failed, %d ignored\n", f, ok[f], bad[f], ig[f] }' "$1" | sort
}
if [ "${SKIP_TESTS:-0}" != 1 ] && [ "${SKIP_PLAIN:-0}" != 1 ]; then
  if [ -x tests/cuprum ] && selected cuprum; then
    if tests/cuprum > "$out/test-cuprum.log" 2>&1; then r=ok; else r=FAILED; status=1; fi
    echo "test cuprum: $r ($(grep -E '^test result' "$out/test-cuprum.log" | tail -1))" | tee -a "$summary"
  fi
  if [ -z "${TESTS_ONLY:-}" ] || [ -n "$filters" ]; then
    for run in $(seq 1 "${RUNS:-3}"); do
      # A fresh seed each run (printed, so a failure can be replayed).
      seed=$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')
      log="$out/test-suite-$run.log"
      if CUPRUM_TEST_SEED=$seed tests/suite $filters > "$log" 2>&1; then r=ok; else r=FAILED; status=1; fi
      echo "test suite run $run (CUPRUM_TEST_SEED=$seed): $r ($(grep -E '^test result' "$log" | tail -1))" | tee -a "$summary"
      per_family "$log" | tee -a "$summary"
    done
  fi
fi
if command -v compute-sanitizer > /dev/null && [ "${SKIP_SANITIZER:-0}" != 1 ] && [ "${SKIP_TESTS:-0}" != 1 ]; then
  # memcheck, one run per family, so that one family's errors are reported on their own (and
  # conformance, slow under memcheck, can be left out with MEMCHECK_SKIP).
  for fam in $families; do
    selected "$fam" || continue
    case " ${MEMCHECK_SKIP:-} " in *" $fam "*) echo "memcheck $fam: skipped (MEMCHECK_SKIP)" | tee -a "$summary"; continue;; esac
    api=explicit; args="$fam::"; [ "$fam" = conformance ] || args="$args --skip conformance::"
    case $fam in
      # The pool test provokes out-of-memory on purpose: that API error is expected there,
      # so it gets a run of its own without API error reports.
      backend) args="$args --skip backend::pool::";;
      # raw_kernels asks a module for a kernel it lacks on purpose ("named symbol not found"):
      # likewise a run of its own without API error reports.
      source_kernels) args="$args --skip source_kernels::raw_kernels";;
      # The sort family's random tests are long under memcheck: a representative subset
      # (every kernel family) unless MEMCHECK_FULL=1.
      sort) [ "${MEMCHECK_FULL:-0}" = 1 ] || args="sort::sort_ sort::partition sort::gpu::searchsorted sort::gpu::sort_f32 sort::gpu::sort_u64 sort::gpu::sort_f16 sort::gpu::sort_i8 sort::gpu::sort_large_with_few_digits";;
      # compute-sanitizer hangs when cuFFT plans are made on one thread while kernels load on
      # another (CuPy's cuFFT and RawKernel on two threads hang alike): one test at a time.
      fft|signal|random|conformance) args="$args --test-threads=1";;
      statistics) [ "${MEMCHECK_FULL:-0}" = 1 ] || args="statistics::quantiles statistics::kappa statistics::median_averages statistics::bincount statistics::gpu::quantile_f32 statistics::gpu::quantile_i64 statistics::gpu::quantile_u16 statistics::gpu::bincount statistics::gpu::histogram";;
    esac
    runs="$fam"; [ "$fam" = backend ] && runs="backend backend-pool"
    [ "$fam" = source_kernels ] && runs="source_kernels source_kernels-negative"
    for name in $runs; do
      [ "$name" = backend-pool ] && { api=no; args="backend::pool::"; }
      [ "$name" = source_kernels-negative ] && { api=no; args="source_kernels::raw_kernels"; }
      compute-sanitizer --tool memcheck --report-api-errors $api --error-exitcode 99 tests/suite $args > "$out/memcheck-$name.log" 2>&1
      rc=$?
      [ $rc -ne 0 ] && status=1
      echo "memcheck $name: rc=$rc $(grep -E '^test result' "$out/memcheck-$name.log" | tail -1 | cut -d. -f2) $(grep -E 'ERROR SUMMARY' "$out/memcheck-$name.log" | tail -1)" | tee -a "$summary"
    done
  done
  # racecheck on the kernels that share memory between threads: reductions, the sort's
  # passes and selection, the selection/compaction and scan kernels, ndimage's tiled filters
  # (sep2d, box2d, morph_tile) and the convolutions, the random fills (warp stages and
  # rejection queues) and the blocked LU and QR (their panels' reductions and broadcasts).
  [ "${SKIP_RACECHECK:-0}" = 1 ] || for spec in "reduce reduce,ufunc reduce::gpu::reductions ufunc::gpu::large_contiguous" \
      "sort sort,statistics,set_ops sort::gpu::sort_f32 sort::gpu::sort_u16 statistics::gpu::quantile_i32 set_ops::gpu::unique" \
      "select select,scan select::gpu::mask_i8 select::gpu::mask_rows_and_views scan::gpu::scan_i32 select::gpu::extract_and_indices" \
      "ndimage ndimage,signal ndimage::filters::gpu::filters_f32 ndimage::filters::gpu::filters_u8 ndimage::rank::gpu::box_kernel_every_rank_and_size ndimage::morphology::gpu::dtypes_and_views signal::gpu::conv2d_f32" \
      "random random random::same_numbers_on_both_devices random::standard_normal_keeps_negative_zero::gpu random::shapes_out_and_legacy::gpu" \
      "linalg linalg linalg::linalg_blocked_lu_f32 linalg::linalg_blocked_lu_f64 linalg::linalg_blocked_qr_f32 linalg::linalg_blocked_qr_f64"; do
    set -- $spec; name=$1; fams=$2; shift 2
    any=0; for f in ${fams//,/ }; do selected "$f" && any=1; done
    [ $any = 1 ] || continue
    compute-sanitizer --tool racecheck --error-exitcode 99 tests/suite --test-threads=4 "$@" > "$out/racecheck-$name.log" 2>&1
    rc=$?
    [ $rc -ne 0 ] && status=1
    echo "racecheck $name: rc=$rc $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$out/racecheck-$name.log" | tail -1)" | tee -a "$summary"
  done
fi
for e in bin/*; do
  n=$(basename "$e")
  [ "$n" = cuprum-bench ] && continue
  # cpu_*_timing: the CPU backend's timing tools, not lessons.
  [[ "$n" == cpu_* ]] && continue
  # The pipeline program on both devices, its pictures and catalogue under OUT/sky.
  args=(); [ "$n" = cuprum-sky ] && args=(--compare --out "$out/sky")
  [[ "$n" == intro_cupy_convolution ]] && args=(--out "$out/examples/$n")
  if "$e" "${args[@]}" > "$out/example-$n.log" 2>&1; then r=ok; else r=FAILED; status=1; fi
  echo "example $n: $r" | tee -a "$summary"
done
if [ -x bin/cuprum-bench ] && [ "${SKIP_BENCH:-0}" != 1 ]; then
  # The shared inputs of WORKLOADS.md (blobs, vol), made as cupy_reference.py makes them, read
  # by both benches; kept outside OUT (they are large).
  inputs=${BENCH_INPUTS:-/tmp/cuprum-bench-inputs}
  python3 - "$inputs" <<'PY' || true
import os, sys, numpy as np, scipy.ndimage
d = sys.argv[1]; os.makedirs(d, exist_ok=True)
p = os.path.join(d, "vol_256_bool.npy")
if not os.path.exists(p):
    np.save(p, np.random.default_rng(11).random((256, 256, 256)) > 0.75)
p = os.path.join(d, "blobs_2048_f32.npy")
if not os.path.exists(p):
    np.save(p, scipy.ndimage.gaussian_filter(np.random.default_rng(12).standard_normal((2048, 2048)), 2.0).astype(np.float32))
PY
  # The same warm-up for both libraries before either is measured (issue 38): one throwaway
  # process each that creates a context and compiles a kernel into a cache of its own, so that
  # the driver, NVRTC and the libraries are loaded once from disk before the first
  # measurement, whichever library runs first; their kernel caches stay cold for the
  # first_call_new_kernel rows.
  warm=$(mktemp -d)
  CUPRUM_CACHE_DIR=$warm/cuprum bin/cuprum-bench --only first_call_new_kernel > "$out/warmup-cuprum.log" 2>&1 || true
  if python3 -c 'import cupy' 2> /dev/null; then
    CUPY_CACHE_DIR=$warm/cupy python3 -c 'import cupy as cp; cp.sin(cp.cos(cp.arange(10, dtype=cp.float32))).get()' \
      > "$out/warmup-cupy.log" 2>&1 || true
  fi
  rm -rf "$warm"
  bin/cuprum-bench --write-sky "$inputs/sky.npy" --inputs "$inputs" --out "$out/cuprum.jsonl" ${BENCH_ARGS:-} > "$out/bench.log" 2>&1 || status=1
  if python3 -c 'import cupy' 2> /dev/null && [ -f cupy_reference.py ]; then
    python3 cupy_reference.py --sky "$inputs/sky.npy" --inputs "$inputs" --out "$out/cupy.jsonl" ${CUPY_ARGS:-} > "$out/cupy.log" 2>&1 || status=1
    python3 compare.py "$out/cupy.jsonl" "$out/cuprum.jsonl" | tee "$out/compare.txt"
  fi
fi
# Hand the kernel cache back (one file) so that the next bundle can carry it.
[ -d "$out/kernel-cache" ] && tar -czf "$out/kernel-cache.tar" -C "$out/kernel-cache" . && rm -rf "$out/kernel-cache"
echo "overall: $([ $status -eq 0 ] && echo PASS || echo FAIL)" | tee -a "$summary"
exit $status
