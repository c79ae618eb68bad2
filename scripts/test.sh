#!/bin/sh
# The second set-up command: the whole test suite.
#  1. a normal build with warnings as errors, every CTest test (unit, ABI, fuzz corpora,
#     replay of real captures and synthetic trees against golden JSON, schema);
#  2. the same suite built with AddressSanitizer + UndefinedBehaviorSanitizer;
#  3. each libFuzzer target for a bounded time (AXL_FUZZ_SECONDS, default 30) when
#     clang's fuzzer runtime is there.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh --test
jobs=$(nproc)
fuzz_seconds=${AXL_FUZZ_SECONDS:-30}

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
	cmake --build build-fuzz -j"$jobs" --target fuzz_parse fuzz_json fuzz_tree fuzz_tar fuzz_vendors fuzz_fdinfo fuzz_gpumetrics fuzz_sim fuzz_safetensors fuzz_gguf fuzz_config fuzz_plan fuzz_compute
	for t in parse json tree tar vendors fdinfo gpumetrics sim safetensors gguf config plan compute; do
		corpus=build-fuzz/corpus-$t
		mkdir -p "$corpus"
		cp tests/fuzz/corpus/$t/* "$corpus"/
		(cd build-fuzz && ./tests/fuzz_$t -max_total_time="$fuzz_seconds" -timeout=10 \
			-rss_limit_mb=2048 -print_final_stats=1 "../$corpus" >fuzz-$t.log 2>&1) || {
			echo "fuzz_$t found a problem:"
			tail -40 build-fuzz/fuzz-$t.log
			echo "0 passed, 1 failed"
			exit 1
		}
		runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' build-fuzz/fuzz-$t.log | grep -o '[0-9]*$')
		echo "fuzz_$t: ${runs:-?} inputs, no crash"
	done
fi
echo "all test stages passed"
