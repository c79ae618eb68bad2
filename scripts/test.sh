#!/bin/sh
# The second set-up command: the whole test suite.
#  1. a normal build with warnings as errors, every CTest test (unit, ABI, fuzz corpora,
#     replay of real captures and synthetic trees against golden JSON, schema);
#  2. the same suite built with AddressSanitizer + UndefinedBehaviorSanitizer;
#  3. each libFuzzer target for a bounded time (AXL_FUZZ_SECONDS, default 30) when
#     clang's fuzzer runtime is there, on every core (one libFuzzer job per core, sharing
#     the corpus). AXL_FUZZ_RUNS=N runs the whole-tree targets (tree, vendors) to N
#     inputs in all instead (10^6: about 28 and 8 core-minutes; docs/internals/testing.md);
#  4. the whole-tree targets again, built with UBSan only, to AXL_FUZZ_DEPTH_RUNS inputs
#     each (default 10^6: about 8 and 2 core-minutes; 0 skips it).
# It installs from Debian's main component only (scripts/deps.sh --test, the vendors' user-
# space main has included) and never changes apt sources; at the end (and when a stage
# fails) it says which checks of the vendors' real libraries ran and which were skipped,
# and why (tests/reallibs/report.py): NVIDIA's are in non-free, installed by CI only
# (.ci/run, scripts/vendor-userspace.sh).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh --test
jobs=$(nproc)
top=$(pwd)
# report: the real-library checks of the stages run so far (their JUnit files)
report() {
	set -- --build "$top/build"
	[ -f "$top/build/junit.xml" ] && set -- "$@" --junit "normal=$top/build/junit.xml"
	[ -f "$top/build-asan/junit.xml" ] && set -- "$@" --build "$top/build-asan" --junit "asan=$top/build-asan/junit.xml"
	python3 tests/reallibs/report.py "$@" || true
}
# disk DIR: what a stage left on disk (a passing test's work folder is removed as it ends,
# tests/workdir.py; a failing test's stays, to be read) and what the disk has left
disk() {
	echo "$1/: $(du -sh "$1" 2>/dev/null | cut -f1) after its tests; $(df -h . | awk 'NR == 2 { print $4 }') free on disk"
}
rm -f build/junit.xml build-asan/junit.xml
echo "disk: $(df -h . | awk 'NR == 2 { print $4 }') free before the suite (it needs about 3 GiB)"
fuzz_seconds=${AXL_FUZZ_SECONDS:-30}
fuzz_runs=${AXL_FUZZ_RUNS:-0}
depth_runs=${AXL_FUZZ_DEPTH_RUNS:-1000000}

echo "== build (warnings are errors) and test"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAXL_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build -j"$jobs" --output-on-failure --output-junit "$top/build/junit.xml" || {
	report
	exit 1
}

disk "build"

echo "== build with ASan+UBSan and test"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DAXL_WERROR=ON -DAXL_SANITIZE=address,undefined >/dev/null
cmake --build build-asan -j"$jobs"
# the vendors' closed libraries a real node has (tests/lsan-vendor-libs.supp): their own
# leaks are theirs
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(pwd)/tests/lsan-vendor-libs.supp \
	ctest --test-dir build-asan -j"$jobs" --output-on-failure --output-junit "$top/build-asan/junit.xml" || {
	report
	exit 1
}
disk "build-asan"

# fuzz DIR TARGET BOUND: one libFuzzer job per core, in DIR/run-TARGET (each job's
# fuzz-<job>.log and any crash-* input land there), on DIR/corpus-TARGET seeded from
# tests/fuzz/corpus; a crash, leak, timeout or out-of-memory input, or a job without its
# final stats, fails the stage
fuzz() {
	dir=$1 t=$2 bound=$3
	corpus=$dir/corpus-$t
	mkdir -p "$corpus"
	cp tests/fuzz/corpus/$t/* "$corpus"/
	run=$dir/run-$t
	rm -rf "$run"
	mkdir -p "$run"
	start=$(date +%s)
	(cd "$run" && ../tests/fuzz_$t -jobs="$jobs" -workers="$jobs" "$bound" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 "../../$corpus" >fuzz-$t.log 2>&1) &&
		! ls "$run" | grep -q -E "^(crash|leak|timeout|oom)-" &&
		[ "$(cat "$run"/fuzz-[0-9]*.log | grep -c 'stat::number_of_executed_units')" -eq "$jobs" ] || {
		echo "fuzz_$t ($dir) found a problem:"
		ls "$run"
		for log in "$run"/fuzz-*.log; do tail -40 "$log"; done
		echo "0 passed, 1 failed"
		exit 1
	}
	runs=$(cat "$run"/fuzz-[0-9]*.log | grep -o 'stat::number_of_executed_units: *[0-9]*' | grep -o '[0-9]*$' |
		awk '{n += $1} END {print n}')
	secs=$(($(date +%s) - start))
	echo "fuzz_$t: ${runs:-?} inputs in ${secs}s on $jobs cores ($((${runs:-0} / (secs > 0 ? secs : 1))) per second), no crash"
}

if command -v clang >/dev/null 2>&1 && [ "$fuzz_seconds" -gt 0 ]; then
	echo "== fuzzing with ASan+UBSan, ${fuzz_seconds}s per target"
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DAXL_WITH_FUZZ=ON \
		-DAXL_SANITIZE=address,undefined >/dev/null
	cmake --build build-fuzz -j"$jobs" --target fuzz_parse fuzz_json fuzz_tree fuzz_tar fuzz_vendors fuzz_fdinfo fuzz_gpumetrics fuzz_sim fuzz_safetensors fuzz_gguf fuzz_config fuzz_plan fuzz_compute fuzz_smbios fuzz_deviceplugin fuzz_cliopt
	for t in parse json tree tar vendors fdinfo gpumetrics sim safetensors gguf config plan compute smbios deviceplugin cliopt; do
		bound="-max_total_time=$fuzz_seconds"
		case $t in tree | vendors) [ "$fuzz_runs" -gt 0 ] && bound="-runs=$(((fuzz_runs + jobs - 1) / jobs))" ;; esac
		fuzz build-fuzz "$t" "$bound"
	done
	# depth: the whole-tree targets to AXL_FUZZ_DEPTH_RUNS inputs (default 10^6; 0: off),
	# optimised with UBSan only (ASan costs these two 3-4x: the run above looks for memory
	# errors, this one for depth), starting from what the ASan run found
	if [ "$depth_runs" -gt 0 ]; then
		echo "== fuzzing for depth (UBSan), the whole-tree targets to $depth_runs inputs"
		CC=clang cmake -S . -B build-fuzz-depth -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAXL_WITH_FUZZ=ON \
			-DAXL_SANITIZE=undefined >/dev/null
		cmake --build build-fuzz-depth -j"$jobs" --target fuzz_tree fuzz_vendors
		export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
		for t in tree vendors; do
			mkdir -p build-fuzz-depth/corpus-$t
			cp build-fuzz/corpus-$t/* build-fuzz-depth/corpus-$t/ 2>/dev/null || true
			fuzz build-fuzz-depth "$t" "-runs=$(((depth_runs + jobs - 1) / jobs))"
		done
	fi
fi
report
echo "all test stages passed"
