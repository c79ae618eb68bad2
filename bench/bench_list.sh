#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/bench_list.sh: how long a whole-node listing takes.
#
# Times `axl list --json` against `lspci -nn` (pciutils) and `lstopo-no-graphics --of
# xml` (hwloc) on this machine, then on synthetic sysfs trees of 64..1024 PCI functions
# built by bench/mkbigtree.py (accelerators = functions / 8), where axl reads the tree
# through --sysroot, lspci through `-A linux-sysfs -O sysfs.path=TREE/sys/bus/pci` and
# lstopo through HWLOC_FSROOT=TREE. Prints the median wall time of each command, the
# ratios lstopo/axl and lspci/axl, and axl's time per PCI function on each tree (with
# a least-squares fit t = a + b*functions) to show how it grows.
#
# Environment:
#   AXL=path        the axl binary (default: build/axl of this checkout)
#   RUNS=30         timed runs per command;   WARMUP=3  untimed runs first
#   SIZES="64 128 256 512 1024"   tree sizes in PCI functions
#   TIMER=auto|hyperfine|loop     hyperfine when installed, else a shell loop
#   BENCH_OUT=dir   where hyperfine's --export-json files, the samples and
#                   summary.txt go (default: build/bench, or $TMPDIR/axl-bench)
#   KEEP_TREES=1    keep the generated trees (their directory is printed)
#   LSPCI, LSTOPO   paths of lspci and lstopo-no-graphics; "none" skips one
#
# Always exits 0: a missing tool is reported and skipped.

set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

AXL=${AXL:-$repo/build/axl}
RUNS=${RUNS:-30}
WARMUP=${WARMUP:-3}
SIZES=${SIZES:-"64 128 256 512 1024"}
TIMER=${TIMER:-auto}
KEEP_TREES=${KEEP_TREES:-0}
if [ -z "${BENCH_OUT:-}" ]; then
	if [ -d "$repo/build" ]; then BENCH_OUT=$repo/build/bench; else BENCH_OUT=${TMPDIR:-/tmp}/axl-bench; fi
fi
mkdir -p "$BENCH_OUT" || { echo "bench: cannot create $BENCH_OUT" >&2; exit 0; }
# Results of an earlier run (only the names this script writes).
rm -f -- "$BENCH_OUT"/base-*.* "$BENCH_OUT"/here-*.* "$BENCH_OUT"/tree[0-9]*-*.* \
	"$BENCH_OUT/fit.dat" "$BENCH_OUT/summary.txt"

PYTHON=$(command -v python3 || true)
if [ -z "$PYTHON" ]; then
	echo "bench: python3 is needed (to build the trees and read hyperfine's JSON); install python3" >&2
	exit 0
fi

case $TIMER in
auto) if command -v hyperfine >/dev/null 2>&1; then TIMER=hyperfine; else TIMER=loop; fi ;;
hyperfine) command -v hyperfine >/dev/null 2>&1 || { echo "bench: hyperfine not installed, using the shell loop"; TIMER=loop; } ;;
loop) ;;
*) echo "bench: TIMER must be auto, hyperfine or loop" >&2; exit 0 ;;
esac

have_axl=1
if [ ! -x "$AXL" ]; then
	echo "bench: axl not found at $AXL (build it: cmake -S . -B build && cmake --build build); skipping axl"
	have_axl=0
fi
# LSPCI / LSTOPO may name the tools; set to "none" to skip one.
LSPCI=${LSPCI-$(command -v lspci || true)}
LSTOPO=${LSTOPO-$(command -v lstopo-no-graphics || true)}
[ "$LSPCI" = none ] && LSPCI=
[ "$LSTOPO" = none ] && LSTOPO=
[ -n "$LSPCI" ] || echo "bench: lspci not found or disabled (Debian package pciutils); skipping it"
[ -n "$LSTOPO" ] || echo "bench: lstopo-no-graphics not found or disabled (Debian package hwloc-nox or hwloc); skipping it"

trees=$(mktemp -d "${TMPDIR:-/tmp}/axl-bench-trees.XXXXXX") || exit 0
# shellcheck disable=SC2317  # called by the trap
cleanup() { [ "$KEEP_TREES" = 1 ] || rm -rf -- "$trees"; }
trap cleanup EXIT

# ---------------------------------------------------------------- timing

# now_us: microseconds since the epoch, without forking when bash has EPOCHREALTIME.
if [ -n "${EPOCHREALTIME:-}" ]; then
	now_us() { local t=$EPOCHREALTIME; t=${t/[.,]/}; REPLY=$((10#$t)); }
	loop_clock="bash \$EPOCHREALTIME"
else
	now_us() { REPLY=$(($(date +%s%N) / 1000)); }
	loop_clock="date +%s%N (each reading forks: adds ~1 ms)"
fi

# median_ms FILE: the median of the microsecond samples in FILE, in ms.
median_ms() {
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "n/a"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f\n", m / 1000 }'
}

# measure SLUG CMD [ARGS...]: times CMD (output discarded); sets MS to the median in ms
# ("n/a" when it cannot be run). Environment for CMD comes from the caller's exports.
measure() {
	local slug=$1
	shift
	MS=n/a
	local rc=0
	"$@" >/dev/null 2>&1 || rc=$?
	[ $rc = 0 ] || echo "  note: '$*' exited with status $rc (timed anyway)" >&2
	if [ "$TIMER" = hyperfine ]; then
		local cmd json=$BENCH_OUT/$slug.json
		cmd=$(printf '%q ' "$@")
		if hyperfine --shell=none --ignore-failure --style none --warmup "$WARMUP" \
			--runs "$RUNS" --export-json "$json" "$cmd" >/dev/null 2>"$BENCH_OUT/$slug.err"; then
			MS=$("$PYTHON" -c 'import json,sys; print("%.3f" % (json.load(open(sys.argv[1]))["results"][0]["median"] * 1000))' "$json" 2>/dev/null || echo n/a)
		else
			echo "  note: hyperfine failed for '$*' (see $BENCH_OUT/$slug.err)" >&2
		fi
		[ -s "$BENCH_OUT/$slug.err" ] || rm -f -- "$BENCH_OUT/$slug.err"
		return
	fi
	local i t0 samples=$BENCH_OUT/$slug.samples
	: >"$samples"
	for ((i = 0; i < WARMUP; i++)); do "$@" >/dev/null 2>&1; done
	for ((i = 0; i < RUNS; i++)); do
		now_us; t0=$REPLY
		"$@" >/dev/null 2>&1
		now_us; echo $((REPLY - t0)) >>"$samples"
	done
	MS=$(median_ms "$samples")
}

# ratio A B: A/B with 1 decimal, n/a when either is unknown.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a" || b + 0 <= 0) print "n/a"; else printf "%.1fx\n", a / b }'; }

# axl_devices TREE: how many devices `axl list --json` reports there (n/a if unreadable).
axl_devices() {
	local args=(list --json)
	[ -n "${1:-}" ] && args+=(--sysroot "$1")
	"$AXL" "${args[@]}" 2>/dev/null | "$PYTHON" -c '
import json, sys
try:
    print(len(json.load(sys.stdin)["devices"]))
except Exception:
    print("n/a")'
}

# ---------------------------------------------------------------- header

summary=$BENCH_OUT/summary.txt
{
	echo "axl list benchmark  ($(date -u '+%Y-%m-%d %H:%M UTC'))"
	echo "host:    $(uname -n) $(uname -r), $(nproc 2>/dev/null || echo '?') CPUs," \
		"$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)"
	echo "axl:     $AXL$([ $have_axl = 1 ] || echo ' (missing)')"
	[ -n "$LSPCI" ] && echo "lspci:   $($LSPCI --version 2>&1 | head -n1)"
	[ -n "$LSTOPO" ] && echo "lstopo:  $($LSTOPO --version 2>&1 | head -n1)"
	if [ "$TIMER" = hyperfine ]; then
		echo "timer:   $(hyperfine --version) --shell=none, $WARMUP warm-up + $RUNS runs, median"
	else
		echo "timer:   shell loop with $loop_clock, $WARMUP warm-up + $RUNS runs, median"
	fi
	echo "results: $BENCH_OUT"
	echo
} | tee "$summary"

# ---------------------------------------------------------------- this machine

nfunc_here=$(find /sys/bus/pci/devices/ -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
echo "== this machine ($nfunc_here PCI functions)" | tee -a "$summary"

measure base-true /bin/true
base_ms=$MS
axl_ms=n/a lspci_ms=n/a lstopo_ms=n/a here_devices=n/a
if [ $have_axl = 1 ]; then
	measure here-axl "$AXL" list --json
	axl_ms=$MS
	here_devices=$(axl_devices "")
fi
if [ -n "$LSPCI" ]; then
	measure here-lspci "$LSPCI" -nn
	lspci_ms=$MS
fi
if [ -n "$LSTOPO" ]; then
	measure here-lstopo "$LSTOPO" --of xml
	lstopo_ms=$MS
fi
{
	printf '  %-44s %10s\n' "command" "median ms"
	printf '  %-44s %10s\n' "/bin/true (process start-up, for reference)" "$base_ms"
	printf '  %-44s %10s   (%s devices)\n' "axl list --json" "$axl_ms" "$here_devices"
	printf '  %-44s %10s\n' "lspci -nn" "$lspci_ms"
	printf '  %-44s %10s\n' "lstopo-no-graphics --of xml" "$lstopo_ms"
	echo "  ratios: lstopo/axl = $(ratio "$lstopo_ms" "$axl_ms")   lspci/axl = $(ratio "$lspci_ms" "$axl_ms")"
	echo
} | tee -a "$summary"

# ---------------------------------------------------------------- synthetic trees

echo "== synthetic trees (mkbigtree.py: H100 GPUs behind PCIe switches, NICs, NVMe; 2 NUMA nodes, 128 CPUs)" | tee -a "$summary"
fit_data=$BENCH_OUT/fit.dat
: >"$fit_data"
rows=()
for F in $SIZES; do
	# ACCELS fixes the accelerator count (capped at F) to see the growth with PCI
	# functions alone; by default it grows with the tree (F/8)
	if [ -n "${ACCELS:-}" ]; then
		A=$ACCELS
		[ "$A" -gt "$F" ] && A=$F
	else
		A=$((F / 8))
	fi
	T=$trees/t$F
	echo "  building and timing the tree of $F functions ..."
	if ! "$PYTHON" "$here/mkbigtree.py" "$T" --functions "$F" --accelerators "$A" -q; then
		echo "  tree of $F functions could not be built; skipped" | tee -a "$summary"
		continue
	fi
	t_axl=n/a t_lspci=n/a t_lstopo=n/a devs=n/a
	if [ $have_axl = 1 ]; then
		measure "tree$F-axl" "$AXL" list --json --sysroot "$T"
		t_axl=$MS
		devs=$(axl_devices "$T")
		[ "$t_axl" != n/a ] && echo "$F $t_axl" >>"$fit_data"
	fi
	if [ -n "$LSPCI" ]; then
		measure "tree$F-lspci" "$LSPCI" -nn -A linux-sysfs -O "sysfs.path=$T/sys/bus/pci"
		t_lspci=$MS
	fi
	if [ -n "$LSTOPO" ]; then
		export HWLOC_FSROOT=$T
		measure "tree$F-lstopo" "$LSTOPO" --of xml
		t_lstopo=$MS
		unset HWLOC_FSROOT
	fi
	per=$(awk -v t="$t_axl" -v f="$F" 'BEGIN { if (t == "n/a") print "n/a"; else printf "%.2f\n", t * 1000 / f }')
	rows+=("$(printf '  %9s %6s %9s %10s %10s %11s %10s %10s %8s' \
		"$F" "$A" "$devs" "$t_axl" "$per" "$t_lspci" "$t_lstopo" \
		"$(ratio "$t_lstopo" "$t_axl")" "$(ratio "$t_lspci" "$t_axl")")")
done
{
	printf '  %9s %6s %9s %10s %10s %11s %10s %10s %8s\n' "functions" "accel" "axl found" \
		"axl ms" "axl us/fn" "lspci ms" "lstopo ms" "lstopo/axl" "lspci/axl"
	for r in "${rows[@]+"${rows[@]}"}"; do echo "$r"; done
	# Least-squares fit of axl's time: t = a + b * functions.
	awk '{ n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2; syy += $2 * $2 }
	END {
		if (n < 2) { print "  (fewer than two tree timings: no fit)"; exit }
		d = n * sxx - sx * sx
		if (d == 0) { print "  (no fit)"; exit }
		b = (n * sxy - sx * sy) / d; a = (sy - b * sx) / n
		r = (n * sxy - sx * sy) / sqrt(d * (n * syy - sy * sy) + 1e-30)
		printf "  axl fit: t = %.3f ms + %.2f us x functions   (r^2 = %.3f over %d sizes)\n", a, b * 1000, r * r, n
	}' "$fit_data"
} | tee -a "$summary"

[ "$KEEP_TREES" = 1 ] && echo "trees kept in $trees"
echo "summary written to $summary"
exit 0
