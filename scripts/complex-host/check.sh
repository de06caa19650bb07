#!/usr/bin/env bash
# complex.cuh's functions, compiled for the host with g++ (the CUDA qualifiers defined away),
# against glibc's complex functions (which NumPy's loops and cuprum's CPU backend call) on a
# grid of special and large values, float and double: signed zeros, infinities and NaN must
# agree exactly, finite values to a few ulps. Prints "0 of N differ" when they all agree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cp "$here/../../crates/cuprum/src/backend/cuda/include/complex.cuh" "$out/"
# complex.cuh includes the prelude (its sign-bit operations).
mkdir -p "$out/cuprum" && cp "$here/../../crates/cuprum/src/backend/cuda/include/prelude.cuh" "$out/cuprum/"
g++ -O1 -std=c++17 -fno-builtin -w -I"$out" -o "$out/check" "$here/check.cpp" -lm
"$out/check" | tee "$out/log"
grep -q "^0 of [0-9]* differ$" "$out/log"
