#!/bin/sh
# The cost of a metrics sample: one sample of an 8-GPU node tree (MI300X, every amdgpu
# and hwmon file the sampler reads) against an open/read/close loop over the same files,
# then the fdinfo sweep at about 500 processes / 6000 fds. Benchmarks, never a failure.
# usage: bench/bench_sample.sh   (after cmake --build build)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=${BUILD:-$top/build}
work=${BENCH_OUT:-$build/bench}/sample
mkdir -p "$work"
python3 "$top/tests/trees/mktree.py" "$top/tests/trees/nodes/mi300x-8x.json" "$work/mi300x-8x"
echo "== one sample, 8 devices (synthetic tree on $(df -T "$work" | awk 'NR==2 {print $2}'))"
"$build/tests/bench_sample" "$work/mi300x-8x" "${ITERS:-20000}"
echo
echo "== axl metrics --json --no-processes, whole command (discovery + 2 samples + 100 ms pause)"
if command -v hyperfine >/dev/null 2>&1; then
	hyperfine -N --warmup 3 --runs 20 "$build/axl metrics --json --no-processes --sysroot $work/mi300x-8x" 2>/dev/null |
		grep -E 'Time|Range' || true
fi
if [ -x "$build/tests/bench_fdinfo" ]; then
	echo
	echo "== fdinfo sweep (per-process usage): cost against processes and fds"
	"$build/tests/bench_fdinfo" || true
fi
exit 0
