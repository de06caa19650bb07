#!/usr/bin/env bash
# The Python package's GPU check, run on a GPU host from the repository root (no cargo there):
#   scripts/gpu-python.sh tests|sanitize|bench [OUT]
# It needs the wheel built here (`scripts/gpu-python.sh wheel` copies it to .gpu-py/, which the
# device call carries) and installs it by unpacking into a folder on PYTHONPATH.
#   tests     the pytest suite three times with CUPRUM_REQUIRE_GPU=1 and fresh Hypothesis seeds,
#             then the interop tests (PyTorch, CuPy, Numba) and the lessons on the GPU
#   sanitize  compute-sanitizer (memcheck) over the array, indexing, interop and cuda tests
#   bench     the per-call overhead beside CuPy (python/bench/overhead.py)
#   all       in one call, most important first: one suite run, interop, the lessons, the overhead,
#             the Array API suite, two more suite runs, memcheck over the interop tests
#   check     one suite run and the Array API suite
#   twice     two suite runs (fresh seeds) and the interop tests
#   dask      cuprum.dask on every GPU of the host: test_dask.py three times (one worker per GPU), between
#             the first and second run Dask's overheads (python/bench/dask_overhead.py) and the mosaic's
#             scaling on 1, 2, 4 GPUs beside CuPy under Dask (python/bench/mosaic_scaling.py, MOSAIC_ARGS)
#   arrayapi  the Array API test suite (data-apis/array-api-tests) against cuprum on the GPU
#   pyref     cupy_reference.py's workloads timed from Python (the copy scripts/cuprum-ref.py writes),
#             beside the Rust bench of the same call: run the bundle's bench first (gpu-run.sh with
#             SKIP_TESTS=1, OUT=RUST_OUT), then `scripts/gpu-python.sh pyref OUT RUST_OUT`
# The wheel step also packs, when ARRAY_API_TESTS_DIR names a checkout of data-apis/array-api-tests
# (with its array-api submodule; never committed here), the suite and the wheels it needs that the GPU
# host lacks (ndindex, pytest-json-report: downloaded into .gpu-py/whl; pip works here, not there). Dask's and
# distributed's wheels always travel (cuprum.dask and python/tests/test_dask.py need them).
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-tests}
out=${2:-${OUT:-out}}
mkdir -p "$out"
if [ "$what" = wheel ]; then
    . .venv/bin/activate
    maturin build --release -q 2>&1 | tail -1
    rm -rf .gpu-py && mkdir -p .gpu-py/seeds && cp target/wheels/cuprum-*.whl .gpu-py/
    # The lessons travel with the wheel (../shared does not reach the GPU host).
    cp ../shared/seeds/*.txt .gpu-py/seeds/
    [ -f ../shared/bench/cupy_reference.py ] && python3 scripts/cuprum-ref.py ../shared/bench/cupy_reference.py .gpu-py/cuprum_ref.py
    # Dask and distributed for cuprum.dask and its tests: pure-Python wheels (tornado's abi3), and the few
    # dependencies the GPU image lacks (it has cloudpickle, toolz, msgpack, psutil, sortedcontainers, fsspec,
    # click, pyyaml, jinja2, packaging).
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 -d .gpu-py/whl \
        "dask==$(python3 -c 'import dask; print(dask.__version__)')" \
        "distributed==$(python3 -c 'import distributed; print(distributed.__version__)')" \
        tornado zict tblib locket partd urllib3
    if [ -n "${ARRAY_API_TESTS_DIR:-}" ]; then
        s=$ARRAY_API_TESTS_DIR d=.gpu-py/aat v=${ARRAY_API_TESTS_VERSION:-2025.12}
        mkdir -p "$d/array-api/spec" "$d/array-api/src/array_api_stubs"
        cp -r "$s/array_api_tests" "$s/conftest.py" "$s/reporting.py" "$s/pytest.ini" "$d/"
        cp -r "$s/array-api/spec/$v" "$d/array-api/spec/"
        # Every version's stubs (the package's __init__ imports them all); the spec text of one.
        cp -r "$s/array-api/src/array_api_stubs" "$d/array-api/src/"
        find "$d" -name __pycache__ -prune -exec rm -rf {} +
        python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
            --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 -d .gpu-py/whl \
            ndindex pytest-json-report pytest-metadata
    fi
    du -sh .gpu-py
    exit 0
fi
site=/tmp/cuprum-site
rm -rf "$site" && mkdir -p "$site"
python3 -m zipfile -e .gpu-py/cuprum-*.whl "$site" || exit 1
# Byte-compiled as `pip install` does (import times are measured on an installed package).
python3 -m compileall -q "$site/cuprum" "$site/cuprumx" > /dev/null
[ -d .gpu-py/whl ] && python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" .gpu-py/whl/*.whl
export PYTHONPATH=$site PYTHONUNBUFFERED=1 CUPRUM_CACHE_DIR=/tmp/cuprum-kernels
python3 -c 'import cuprum, numpy, sys; print("cuprum", cuprum.__version__, "numpy", numpy.__version__, "python", sys.version.split()[0], "gpu", cuprum.cuda.is_available(), cuprum.default_device())'
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rc=0
lessons_dir=.gpu-py/seeds
[ -d "$lessons_dir" ] || lessons_dir=../shared/seeds
suite() { # $1: label, $2: timeout
    local seed
    seed=$(python3 -c 'import random; print(random.randrange(2**32))')
    CUPRUM_REQUIRE_GPU=1 timeout "$2" python3 -m pytest python/tests -q -p no:cacheprovider -n 16 \
        --hypothesis-seed="$seed" --ignore=python/tests/test_lessons.py > "$out/pytest-$1.log" 2>&1
    local r=$?
    echo "pytest run $1 seed=$seed rc=$r: $(tail -1 "$out/pytest-$1.log")"
    [ $r -ne 0 ] && { rc=1; grep -E "^(FAILED|ERROR)" "$out/pytest-$1.log" | head -30; }
}
interop() {
    CUPRUM_REQUIRE_GPU=1 timeout "$1" python3 -m pytest python/tests/test_interop.py -v -p no:cacheprovider > "$out/interop.log" 2>&1
    local r=$?; echo "interop rc=$r"; grep -E "PASSED|FAILED|ERROR|SKIPPED|passed|failed" "$out/interop.log" | tail -20; [ $r -ne 0 ] && rc=1
}
lessons() {
    timeout "$1" python3 python/tests/lessons/run_lessons.py --device gpu --lessons-dir "$lessons_dir" > "$out/lessons-gpu.log" 2>&1
    local r=$?; echo "lessons (gpu) rc=$r"; tail -14 "$out/lessons-gpu.log"; [ $r -ne 0 ] && rc=1
}
arrayapi() { # $1: timeout
    [ -d .gpu-py/aat ] || { echo "arrayapi: no suite in .gpu-py/aat (set ARRAY_API_TESTS_DIR for the wheel step)"; return; }
    local xf=$PWD/python/tests/array-api-xfails.txt
    # Run from a copy outside the repository: inside it pytest names the tests from the repository's
    # root (.gpu-py/aat/array_api_tests/...), and the xfails file's ids would not match.
    rm -rf /tmp/cuprum-aat && cp -r .gpu-py/aat /tmp/cuprum-aat
    (cd /tmp/cuprum-aat && ARRAY_API_TESTS_MODULE=cuprum ARRAY_API_TESTS_VERSION=${ARRAY_API_TESTS_VERSION:-2025.12} \
        timeout "$1" python3 -m pytest array_api_tests/ -n 16 --max-examples 20 --hypothesis-disable-deadline -q \
        -p no:cacheprovider > "$out/array-api-raw.log" 2>&1)
    echo "array api (gpu, no xfails): $(tail -1 "$out/array-api-raw.log")"
    grep -E "^FAILED" "$out/array-api-raw.log" | sed 's/ - .*//' | sort > "$out/array-api-failed.txt"
    (cd /tmp/cuprum-aat && ARRAY_API_TESTS_MODULE=cuprum ARRAY_API_TESTS_VERSION=${ARRAY_API_TESTS_VERSION:-2025.12} timeout "$1" python3 -m pytest array_api_tests/ -n 16 --max-examples 20 \
        --hypothesis-disable-deadline -q -p no:cacheprovider --xfails-file "$xf" > "$out/array-api.log" 2>&1)
    local r=$?; echo "array api (gpu, with the xfails file) rc=$r: $(tail -1 "$out/array-api.log")"; [ $r -ne 0 ] && rc=1
}
case $what in
dask)
    ngpu=$(nvidia-smi -L | wc -l)
    counts=1
    [ "$ngpu" -ge 2 ] && counts=1,2
    [ "$ngpu" -ge 4 ] && counts=1,2,4
    for i in 1 2 3; do
        CUPRUM_REQUIRE_GPU=1 timeout 300 python3 -m pytest python/tests/test_dask.py -q -p no:cacheprovider -n 4 \
            > "$out/dask-pytest-$i.log" 2>&1
        r=$?
        echo "test_dask run $i ($ngpu GPUs) rc=$r: $(tail -1 "$out/dask-pytest-$i.log")"
        [ $r -ne 0 ] && { rc=1; grep -E "^(FAILED|ERROR)" "$out/dask-pytest-$i.log" | head -20; }
        [ "$i" -gt 1 ] && continue
        timeout 120 python3 python/bench/dask_overhead.py --gpus --workers "$ngpu" > "$out/dask-overhead.jsonl" 2> "$out/dask-overhead.log"
        echo "dask_overhead rc=$?"; cat "$out/dask-overhead.jsonl"
        # shellcheck disable=SC2086
        timeout "${MOSAIC_TIMEOUT:-360}" python3 python/bench/mosaic_scaling.py --gpus "$counts" ${MOSAIC_ARGS:-} \
            --out "$out/mosaic.jsonl" > "$out/mosaic.log" 2>&1
        r=$?; echo "mosaic_scaling rc=$r"; cat "$out/mosaic.jsonl" 2>/dev/null; [ $r -ne 0 ] && { rc=1; tail -20 "$out/mosaic.log"; }
    done
    ;;
arrayapi)
    arrayapi 300
    ;;
check)
    # One suite run and the Array API suite (a short check after a change).
    suite 1 240
    arrayapi 150
    ;;
pyref)
    rust_out=${3:?pyref needs the OUT of the Rust bench (its cuprum.jsonl)}
    CUPRUM_REF_NO_CPU=1 timeout 400 python3 .gpu-py/cuprum_ref.py --sky /tmp/cuprum-bench-inputs/sky.npy \
        --inputs /tmp/cuprum-bench-inputs --out "$out/cuprum-python.jsonl" > "$out/cuprum-python.log" 2>&1
    r=$?; echo "cuprum_ref rc=$r"; [ $r -ne 0 ] && { rc=1; tail -20 "$out/cuprum-python.log"; }
    python3 python/bench/ref_vs_rust.py "$out/cuprum-python.jsonl" "$rust_out/cuprum.jsonl" "$rust_out/cupy.jsonl" | tee "$out/python-vs-rust.txt"
    timeout 120 python3 python/bench/startup.py --out "$out/startup.jsonl"
    timeout 120 python3 python/bench/explain.py --out "$out/explain.jsonl"
    grep -h '"first_call' "$rust_out/cuprum.jsonl"
    ;;
lessons)
    suite 1 200
    lessons 200
    ;;
twice)
    # Two suite runs with fresh seeds and the interop tests (a check of a change in one call).
    suite 1 240
    suite 2 120
    interop 60
    ;;
all)
    suite 1 240
    interop 60
    lessons 120
    timeout 60 python3 python/bench/overhead.py --repeat 2000 --out "$out/overhead.jsonl"
    arrayapi 120
    suite 2 90
    suite 3 90
    # memcheck over cuprum's own GPU paths (numba's driver probing trips the sanitizer's API-error report,
    # so its test runs above, not here).
    CUPRUM_REQUIRE_GPU=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 99 python3 -m pytest \
        python/tests/test_interop.py python/tests/test_indexing.py python/tests/test_cuda.py -q -p no:cacheprovider \
        -k "not numba and not cpu" > "$out/memcheck.log" 2>&1
    r=$?; echo "memcheck rc=$r: $(grep -E 'passed|failed' "$out/memcheck.log" | tail -1) $(grep 'ERROR SUMMARY' "$out/memcheck.log" | tail -1)"
    [ $r -ne 0 ] && { rc=1; grep -m5 -A8 "Invalid\|Program hit" "$out/memcheck.log"; }
    ;;
tests)
    for i in 1 2 3; do
        seed=$(python3 -c 'import random; print(random.randrange(2**32))')
        CUPRUM_REQUIRE_GPU=1 timeout 420 python3 -m pytest python/tests -q -p no:cacheprovider -n 8 \
            --hypothesis-seed="$seed" --ignore=python/tests/test_lessons.py -x 2>&1 | tail -15 > "$out/pytest-$i.log"
        r=$?
        echo "pytest run $i seed=$seed rc=$r: $(tail -1 "$out/pytest-$i.log")"
        [ $r -ne 0 ] && { rc=1; tail -15 "$out/pytest-$i.log"; }
    done
    CUPRUM_REQUIRE_GPU=1 timeout 300 python3 -m pytest python/tests/test_interop.py -v -p no:cacheprovider 2>&1 | tail -25 > "$out/interop.log"
    r=$?; echo "interop rc=$r"; cat "$out/interop.log"; [ $r -ne 0 ] && rc=1
    timeout 400 python3 python/tests/lessons/run_lessons.py --device gpu > "$out/lessons-gpu.log" 2>&1
    r=$?; echo "lessons (gpu) rc=$r"; tail -20 "$out/lessons-gpu.log"; [ $r -ne 0 ] && rc=1
    ;;
sanitize)
    for t in test_interop.py test_array.py test_indexing.py test_cuda.py; do
        CUPRUM_REQUIRE_GPU=1 timeout 500 compute-sanitizer --tool memcheck --error-exitcode 99 --target-processes all \
            python3 -m pytest "python/tests/$t" -q -p no:cacheprovider -k "cuda or gpu or interop or torch or cupy or numba" \
            > "$out/memcheck-$t.log" 2>&1
        r=$?
        echo "memcheck $t rc=$r: $(grep -E 'passed|failed' "$out/memcheck-$t.log" | tail -1) $(grep 'ERROR SUMMARY' "$out/memcheck-$t.log" | tail -1)"
        [ $r -ne 0 ] && rc=1
    done
    ;;
bench)
    python3 python/bench/overhead.py --repeat 3000 --out "$out/overhead.jsonl"
    ;;
esac
exit $rc
