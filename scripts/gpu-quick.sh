#!/usr/bin/env bash
# Ad-hoc GPU check used during development: plain tests, sanitizers on the new kernels, bench subset.
cd "$(dirname "$0")"
export CUPRUM_REQUIRE_GPU=1 CUPRUM_CACHE_DIR=/tmp/kc CUPRUM_FIXTURES=$PWD/fixtures
O=${OUT:-/tmp/out}; mkdir -p $O
for t in tests/*; do n=$(basename $t); timeout 300 $t > $O/test-$n.log 2>&1; echo "test $n rc=$? $(grep -E '^test result' $O/test-$n.log | tail -1)"; grep -E "panicked|FAILED" $O/test-$n.log | head -5; done
for t in ${MEMCHECK:-gpu_select gpu_index}; do timeout 400 compute-sanitizer --tool memcheck --error-exitcode 99 tests/$t $MCARGS > $O/memcheck-$t.log 2>&1; echo "memcheck $t rc=$? $(grep 'ERROR SUMMARY' $O/memcheck-$t.log)"; done
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 99 tests/gpu_select ${RCARGS:-} > $O/racecheck.log 2>&1; echo "racecheck rc=$? $(grep 'RACECHECK SUMMARY' $O/racecheck.log)"
timeout 200 bin/cuprum-bench --no-cpu --only ${BENCH:-sort_4M_f32,median_4M_f32,unique_4M_i32,ks_clip_4M_f32,segment_where_4M,cumsum_1e8_f32,compress_1e8_f32} > $O/bench.log 2>&1; grep name $O/bench.log | sed 's/"cpu_ms": null, //'
