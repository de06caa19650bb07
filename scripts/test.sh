#!/usr/bin/env bash
# Every test, on a fresh machine with Rust and Python >= 3.11 (the README's second command):
#   1. cargo's (the library, the suite, the macros' compile-fail tests, the doctests);
#   2. the Python package's: a virtual environment .venv (made when missing) with maturin, pytest,
#      NumPy, SciPy, Hypothesis, ruff, Dask and distributed, the extension built into it (`maturin develop --release`,
#      reusing cargo's target/), then pytest over python/tests (the suite against NumPy/SciPy, the
#      lessons' own Python, the interop tests; GPU cases are skipped without a GPU, failed with
#      CUPRUM_REQUIRE_GPU=1).
# Arguments go to pytest (e.g. `scripts/test.sh -k linalg`); CUPRUM_SKIP_CARGO=1 runs only step 2.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${CUPRUM_SKIP_CARGO:-0}" != 1 ]; then
    cargo test --release
fi
py=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$py" -m venv .venv
fi
. .venv/bin/activate
python -m pip install -q --disable-pip-version-check "maturin>=1.9.4,<2" "pytest>=8" "hypothesis>=6.150" numpy scipy ruff "dask[array]" distributed
maturin develop --release -q
# The lessons' cells run when the workshop's text is beside the checkout (../shared/seeds); then a
# missing lesson is a failure, not a skip.
if [ -d ../shared/seeds ] || [ -d shared/seeds ] || [ -n "${CUPRUM_LESSONS_DIR:-}" ]; then
    export CUPRUM_REQUIRE_LESSONS=1
fi
python -m pytest python/tests -q -p no:cacheprovider "$@"
