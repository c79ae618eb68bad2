#!/bin/sh
# The second set-up command: the whole test suite.
#  1. a normal build with warnings as errors, every CTest test (unit, ABI, fuzz corpora,
#     replay of real captures and synthetic trees against golden JSON, schema);
#  2. the same suite built with AddressSanitizer + UndefinedBehaviorSanitizer;
#  3. each libFuzzer target for a bounded time (AXL_FUZZ_SECONDS, default 30) when
#     clang's fuzzer runtime is there, on every core (one libFuzzer job per core, sharing
#     the corpus). AXL_FUZZ_RUNS=N runs the whole-tree targets (tree, vendors) to N
#     inputs in all instead (10^6: about 28 and 8 core-minutes; docs/testing.md).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh --test
jobs=$(nproc)
fuzz_seconds=${AXL_FUZZ_SECONDS:-30}
fuzz_runs=${AXL_FUZZ_RUNS:-0}

echo "== build (warnings are errors) and test"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAXL_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build -j"$jobs" --output-on-failure

echo "== build with ASan+UBSan and test"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DAXL_WERROR=ON -DAXL_SANITIZE=address,undefined >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --test-dir build-asan -j"$jobs" --output-on-failure

if command -v clang >/dev/null 2>&1 && [ "$fuzz_seconds" -gt 0 ]; then
	echo "== fuzzing, ${fuzz_seconds}s per target"
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DAXL_WITH_FUZZ=ON \
		-DAXL_SANITIZE=address,undefined >/dev/null
	cmake --build build-fuzz -j"$jobs" --target fuzz_parse fuzz_json fuzz_tree fuzz_tar fuzz_vendors fuzz_fdinfo fuzz_gpumetrics fuzz_sim fuzz_safetensors fuzz_gguf fuzz_config fuzz_plan fuzz_compute fuzz_smbios
	for t in parse json tree tar vendors fdinfo gpumetrics sim safetensors gguf config plan compute smbios; do
		corpus=build-fuzz/corpus-$t
		mkdir -p "$corpus"
		cp tests/fuzz/corpus/$t/* "$corpus"/
		# one job per core, each in the target's own folder (its fuzz-<job>.log and any
		# crash-* input land there); the whole-tree targets run to a number of inputs
		# when AXL_FUZZ_RUNS is set, every other target for AXL_FUZZ_SECONDS
		bound="-max_total_time=$fuzz_seconds"
		case $t in tree | vendors) [ "$fuzz_runs" -gt 0 ] && bound="-runs=$(((fuzz_runs + jobs - 1) / jobs))" ;; esac
		run=build-fuzz/run-$t
		rm -rf "$run"
		mkdir -p "$run"
		start=$(date +%s)
		(cd "$run" && ../tests/fuzz_$t -jobs="$jobs" -workers="$jobs" "$bound" -timeout=10 \
			-rss_limit_mb=2048 -print_final_stats=1 "../../$corpus" >fuzz-$t.log 2>&1) &&
			! ls "$run" | grep -q -E "^(crash|leak|timeout|oom)-" &&
			[ "$(cat "$run"/fuzz-[0-9]*.log | grep -c 'stat::number_of_executed_units')" -eq "$jobs" ] || {
			echo "fuzz_$t found a problem:"
			ls "$run"
			for log in "$run"/fuzz-*.log; do tail -40 "$log"; done
			echo "0 passed, 1 failed"
			exit 1
		}
		runs=$(cat "$run"/fuzz-[0-9]*.log | grep -o 'stat::number_of_executed_units: *[0-9]*' | grep -o '[0-9]*$' |
			awk '{n += $1} END {print n}')
		secs=$(($(date +%s) - start))
		echo "fuzz_$t: ${runs:-?} inputs in ${secs}s on $jobs cores ($((${runs:-0} / (secs > 0 ? secs : 1))) per second), no crash"
	done
fi
echo "all test stages passed"
