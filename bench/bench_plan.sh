#!/bin/sh
# The planner sweep: every catalog model on every fixture node (tests/sim, tests/replay/golden).
# usage: bench/bench_plan.sh   (after cmake --build build); RUNS (default 5)
set -eu
cd "$(dirname "$0")/.."
build=${BUILD:-build}
"$build/tests/bench_plan" "$(pwd)" "${RUNS:-5}"
