#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/bench_startup.sh: what starting `axl list --json` costs, against an empty C
# program and the tools it replaces, in ONE hyperfine run (the same machine state for
# every command):
#
#   empty              an empty C program (int main(void) { return 0; }), built here with
#                      $CC and linked like any program (libc only): exec and the loader
#   floor              the empty program plus the very file-system calls `axl list
#                      --json` makes on this node, in its order, with nothing parsed
#                      (bench/floor_gen.py writes it from an `strace -y` log; needs
#                      strace): what the kernel charges for the files discovery reads
#   axl --version      axl started, no discovery: the cost of its own binary
#   axl list --json    on this node
#   lspci -nn          pciutils
#   lstopo --of xml    hwloc (lstopo-no-graphics)
#
# Prints each median, the ratios axl/empty, lspci/axl and lstopo/axl, and whether the
# targets of docs/ARCHITECTURE ("Performance budget") hold: axl within 1.5x of the empty
# program, at least 10x faster than lspci and 30x faster than lstopo; then where axl's
# time above the empty program goes: loading axl (axl --version - empty), the calls
# discovery makes (floor - empty), and axl's own work (the rest).
#
# Environment:
#   AXL=path        the axl binary (default: build/axl of this checkout)
#   CC=cc           the compiler for the empty program
#   RUNS=300        timed runs per command;   WARMUP=30  untimed runs first
#   BENCH_OUT=dir   hyperfine's --export-json file and startup.txt (default: build/bench,
#                   or $TMPDIR/axl-bench)
#   LSPCI, LSTOPO   paths of lspci and lstopo-no-graphics; "none" leaves one out
#
# Needs hyperfine and python3 (to read hyperfine's JSON). Always exits 0: a missing
# tool is reported, and the figures it would give are n/a.
#
# bench/bench_startup.sh --vendor-libs: the vendors' real libraries, both ways, in ONE
# hyperfine run (issue 33 item 6: start-up beside them within 10% of a bare machine's):
#
#   visible            axl list --json, the vendors' user-space as installed here
#   bare               axl list --json, the same machine without it
#   visible-sim/bare-sim  the same with --sim tests/sim/h100x2.json
#
# Each runs in a mount namespace held open for the whole run (tests/reallibs/userspace.py
# --hold), entered by a small static program built here (setns(2), then exec): the bare
# one hides every file the vendor packages installed with overlays of whiteouts and an
# ld.so.cache without them, the visible one has the same overlays and cache binding
# with nothing hidden, so both pay the same mounts and the same entering. The empty C
# program is timed the same way both ways (visible-empty, bare-empty: what entering and
# starting a process cost). Prints the medians, visible/bare, whether it is within 10%,
# and the same above the empty program. Needs root, overlayfs, and the vendors' libraries
# (scripts/deps.sh --test, scripts/vendor-userspace.sh). Each command runs twice, in an
# order that reads the same backwards (visible-empty, bare-empty, visible, bare,
# visible-sim, bare-sim, then back), each way's figure the mean of its two medians: a
# drift of the machine during the run weighs on both alike; how far the two medians of
# one command lie apart is printed too (a difference below it is noise).

set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

AXL=${AXL:-$repo/build/axl}
CC=${CC:-cc}
RUNS=${RUNS:-300}
WARMUP=${WARMUP:-30}
if [ -z "${BENCH_OUT:-}" ]; then
	if [ -d "$repo/build" ]; then BENCH_OUT=$repo/build/bench; else BENCH_OUT=${TMPDIR:-/tmp}/axl-bench; fi
fi
mkdir -p "$BENCH_OUT" || { echo "bench: cannot create $BENCH_OUT" >&2; exit 0; }
rm -f -- "$BENCH_OUT/startup.json" "$BENCH_OUT/startup.txt" "$BENCH_OUT/startup.err"

command -v hyperfine >/dev/null 2>&1 || { echo "bench: hyperfine is needed (Debian package hyperfine)"; exit 0; }
PYTHON=$(command -v python3 || true)
[ -n "$PYTHON" ] || { echo "bench: python3 is needed (to read hyperfine's JSON)"; exit 0; }
[ -x "$AXL" ] || { echo "bench: axl not found at $AXL (cmake -S . -B build && cmake --build build)"; exit 0; }

# --vendor-libs: axl list --json beside the vendors' libraries and without them
vendor_libs() {
	[ "$(id -u)" = 0 ] || { echo "bench: --vendor-libs needs root (mount namespaces with overlays)"; return; }
	local pids=$BENCH_OUT/vendorlibs.pids fifo=$BENCH_OUT/vendorlibs.fifo
	rm -f -- "$pids" "$fifo" "$BENCH_OUT/vendorlibs.json" "$BENCH_OUT/vendorlibs.txt"
	mkfifo "$fifo" || return
	# the helper holds both namespaces until its standard input (fd 3 here) closes
	exec 3<>"$fifo"
	"$PYTHON" "$repo/tests/reallibs/userspace.py" --hold "$pids" <"$fifo" 3>&- 2>"$BENCH_OUT/vendorlibs.err" &
	local helper=$! i
	for i in $(seq 1 600); do
		[ -s "$pids" ] && break
		kill -0 "$helper" 2>/dev/null || break
		sleep 0.1
	done
	if [ ! -s "$pids" ]; then
		echo "bench: the namespaces could not be made:"
		cat "$BENCH_OUT/vendorlibs.err"
		exec 3>&-
		wait "$helper"
		rm -f -- "$fifo"
		return
	fi
	local vis bare sim=$repo/tests/sim/h100x2.json
	vis=$(awk '$1 == "visible" {print $2}' "$pids")
	bare=$(awk '$1 == "bare" {print $2}' "$pids")
	# into a namespace: setns(2) and exec, statically linked (nsenter is a dynamically
	# linked program and costs about as much as axl's start), and the empty program run
	# through it both ways: what entering costs, the same for both
	local enter=$BENCH_OUT/enter empty=$BENCH_OUT/empty
	cat >"$BENCH_OUT/enter.c" <<'EOC'
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>
/* enter NSFILE PROGRAM [ARG...]: PROGRAM (an absolute path) in the mount namespace NSFILE */
int main(int argc, char **argv)
{
	if (argc < 3)
		return 127;
	int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNS) != 0) {
		perror(argv[1]);
		return 127;
	}
	execv(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
EOC
	printf 'int main(void) { return 0; }\n' >"$BENCH_OUT/empty.c"
	if ! { "$CC" -O2 -static -o "$enter" "$BENCH_OUT/enter.c" 2>/dev/null ||
		"$CC" -O2 -o "$enter" "$BENCH_OUT/enter.c"; } || ! "$CC" -O2 -o "$empty" "$BENCH_OUT/empty.c"; then
		echo "bench: $CC cannot build the entering and empty programs"
		exec 3>&-
		wait "$helper"
		rm -f -- "$fifo" "$pids"
		return
	fi
	local nv_ns=/proc/$vis/ns/mnt nb_ns=/proc/$bare/ns/mnt
	local libs='libcuda\.so\.1 |libnvidia-ml\.so\.1 |librocm_smi64\.so\.1 |libamdhip64\.so\.5 |libze_loader\.so\.1 '
	local nv nb same=yes
	nv=$("$enter" "$nv_ns" "$(command -v ldconfig)" -p | grep -c -E "$libs")
	nb=$("$enter" "$nb_ns" "$(command -v ldconfig)" -p | grep -c -E "$libs")
	[ "$("$enter" "$nv_ns" "$AXL" list --json 2>&1)" = "$("$enter" "$nb_ns" "$AXL" list --json 2>&1)" ] || same=no
	local hf=(hyperfine --shell=none --ignore-failure --style basic --warmup "$WARMUP" --runs "$RUNS"
		--export-json "$BENCH_OUT/vendorlibs.json"
		--command-name visible-empty "$enter $nv_ns $empty"
		--command-name bare-empty "$enter $nb_ns $empty"
		--command-name visible "$enter $nv_ns $AXL list --json"
		--command-name bare "$enter $nb_ns $AXL list --json"
		--command-name visible-sim "$enter $nv_ns $AXL list --json --sim $sim"
		--command-name bare-sim "$enter $nb_ns $AXL list --json --sim $sim"
		--command-name bare-sim-2 "$enter $nb_ns $AXL list --json --sim $sim"
		--command-name visible-sim-2 "$enter $nv_ns $AXL list --json --sim $sim"
		--command-name bare-2 "$enter $nb_ns $AXL list --json"
		--command-name visible-2 "$enter $nv_ns $AXL list --json"
		--command-name bare-empty-2 "$enter $nb_ns $empty"
		--command-name visible-empty-2 "$enter $nv_ns $empty")
	{
		echo "axl start-up beside the vendors' libraries and without them ($(date -u '+%Y-%m-%d %H:%M UTC'))"
		echo "host:    $(uname -n) $(uname -r), $(nproc 2>/dev/null || echo '?') CPUs"
		echo "axl:     $AXL"
		echo "libraries the loader's cache lists (libcuda.so.1, libnvidia-ml.so.1, librocm_smi64.so.1,"
		echo "         libamdhip64.so.5, libze_loader.so.1): $nv visible, $nb bare"
		echo "output:  axl list --json the same both ways: $same"
		echo "timer:   $(hyperfine --version) --shell=none, $WARMUP warm-up + $RUNS runs each, one run for all"
		printf 'command: '
		printf '%q ' "${hf[@]}"
		echo
		echo
	} | tee "$BENCH_OUT/vendorlibs.txt"
	if "${hf[@]}" >"$BENCH_OUT/vendorlibs.log" 2>&1; then
		"$PYTHON" - "$BENCH_OUT/vendorlibs.json" <<'EOF2' | tee -a "$BENCH_OUT/vendorlibs.txt"
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
# each command twice, in an order that reads the same backwards (visible, bare, the sims,
# then back): a drift of the machine during the run weighs on both ways alike
print("  %-38s %10s %10s" % ("command (in the order timed)", "median ms", "stddev ms"))
for r in json.load(open(sys.argv[1]))["results"]:
    print("  %-38s %10.3f %10.3f" % (r["command"], r["median"] * 1000, (r.get("stddev") or 0) * 1000))
print()
def mean(n):
    return (res[n]["median"] + res[n + "-2"]["median"]) / 2 * 1000
ev, eb = mean("visible-empty"), mean("bare-empty")
print("  entering a namespace and starting the empty program: %.3f ms visible, %.3f ms bare" % (ev, eb))
for v, b, what in (("visible", "bare", "this node"), ("visible-sim", "bare-sim", "a simulated node")):
    mv, mb = mean(v), mean(b)
    q, own = mv / mb, (mv - ev) / (mb - eb)
    print("  %-17s visible %.3f ms, bare %.3f ms: visible/bare %.3fx   target <= 1.10x   %s"
          % (what, mv, mb, q, "holds" if q <= 1.10 else "MISSED"))
    print("  %-17s above the empty program: visible %.3f ms, bare %.3f ms: %.3fx"
          % ("", mv - ev, mb - eb, own))
# the same command's two medians: how far apart one run puts equal work (noise)
spread = max(abs(res[n]["median"] / res[n + "-2"]["median"] - 1)
             for n in ("visible", "bare", "visible-sim", "bare-sim", "visible-empty", "bare-empty"))
print("  the same command's two medians differ by up to %.1f%% in this run: a difference below that is noise"
      % (spread * 100))
EOF2
	else
		cat "$BENCH_OUT/vendorlibs.log"
		echo "bench: hyperfine failed" | tee -a "$BENCH_OUT/vendorlibs.txt"
	fi
	exec 3>&-
	wait "$helper"
	rm -f -- "$fifo" "$pids"
	echo "written: $BENCH_OUT/vendorlibs.txt, $BENCH_OUT/vendorlibs.json"
}
if [ "${1:-}" = "--vendor-libs" ]; then
	vendor_libs
	exit 0
fi

LSPCI=${LSPCI-$(command -v lspci || true)}
LSTOPO=${LSTOPO-$(command -v lstopo-no-graphics || true)}
[ "$LSPCI" = none ] && LSPCI=
[ "$LSTOPO" = none ] && LSTOPO=
[ -n "$LSPCI" ] || echo "bench: lspci not found or left out (Debian package pciutils)"
[ -n "$LSTOPO" ] || echo "bench: lstopo-no-graphics not found or left out (Debian package hwloc-nox)"

empty=$BENCH_OUT/empty
printf 'int main(void) { return 0; }\n' >"$BENCH_OUT/empty.c"
if ! "$CC" -O2 -o "$empty" "$BENCH_OUT/empty.c" 2>"$BENCH_OUT/startup.err"; then
	echo "bench: $CC cannot build the empty program:" >&2
	cat "$BENCH_OUT/startup.err" >&2
	exit 0
fi

# the floor: the same file-system calls as `axl list --json`, nothing parsed
floor=
if command -v strace >/dev/null 2>&1; then
	if strace -y -o "$BENCH_OUT/list.strace" "$AXL" list --json >/dev/null 2>&1 &&
		"$PYTHON" "$here/floor_gen.py" "$BENCH_OUT/list.strace" "$BENCH_OUT/floor.c" >/dev/null &&
		"$CC" -O2 -o "$BENCH_OUT/floor" "$BENCH_OUT/floor.c" 2>>"$BENCH_OUT/startup.err"; then
		floor=$BENCH_OUT/floor
	else
		echo "bench: could not build the floor program (see $BENCH_OUT/startup.err)"
	fi
else
	echo "bench: strace not found (Debian package strace): no floor program"
fi

# every command must work before it is timed (hyperfine would time a failure)
names=(empty)
cmds=("$empty")
if [ -n "$floor" ]; then names+=(floor); cmds+=("$floor"); fi
names+=(version axl)
cmds+=("$AXL --version" "$AXL list --json")
"$AXL" list --json >/dev/null 2>&1 || echo "  note: '$AXL list --json' exits with status $? here (timed anyway)"
if [ -n "$LSPCI" ]; then names+=(lspci); cmds+=("$LSPCI -nn"); fi
if [ -n "$LSTOPO" ]; then names+=(lstopo); cmds+=("$LSTOPO --of xml"); fi
hf=(hyperfine --shell=none --ignore-failure --style basic --warmup "$WARMUP" --runs "$RUNS"
	--export-json "$BENCH_OUT/startup.json")
for i in "${!names[@]}"; do hf+=(--command-name "${names[$i]}" "${cmds[$i]}"); done

{
	echo "axl start-up benchmark  ($(date -u '+%Y-%m-%d %H:%M UTC'))"
	echo "host:    $(uname -n) $(uname -r), $(nproc 2>/dev/null || echo '?') CPUs"
	echo "axl:     $AXL ($(ldd "$AXL" 2>/dev/null | grep -c '=>') shared libraries loaded at start)"
	echo "timer:   $(hyperfine --version) --shell=none, $WARMUP warm-up + $RUNS runs each, one run for all"
	printf 'command: '
	printf '%q ' "${hf[@]}"
	echo
	echo
} | tee "$BENCH_OUT/startup.txt"

if ! "${hf[@]}" >"$BENCH_OUT/startup.log" 2>&1; then
	cat "$BENCH_OUT/startup.log"
	echo "bench: hyperfine failed" | tee -a "$BENCH_OUT/startup.txt"
	exit 0
fi

"$PYTHON" - "$BENCH_OUT/startup.json" <<'EOF' | tee -a "$BENCH_OUT/startup.txt"
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
def med(name):
    r = res.get(name)
    return r["median"] * 1000 if r else None
labels = {"empty": "empty C program", "floor": "floor (axl's file calls only)",
          "version": "axl --version", "axl": "axl list --json",
          "lspci": "lspci -nn", "lstopo": "lstopo-no-graphics --of xml"}
print("  %-30s %10s %10s" % ("command", "median ms", "stddev ms"))
for name, label in labels.items():
    r = res.get(name)
    if r:
        print("  %-30s %10.3f %10.3f" % (label, r["median"] * 1000, (r.get("stddev") or 0) * 1000))
    else:
        print("  %-30s %10s" % (label, "n/a"))
e, a, p, t = med("empty"), med("axl"), med("lspci"), med("lstopo")
def check(what, value, target, ok):
    if value is None:
        print("  %-16s %8s   target %-10s n/a" % (what, "n/a", target))
    else:
        print("  %-16s %7.2fx   target %-10s %s" % (what, value, target, "holds" if ok(value) else "MISSED"))
print()
check("axl/empty", a / e if a and e else None, "<= 1.5x", lambda v: v <= 1.5)
check("lspci/axl", p / a if p and a else None, ">= 10x", lambda v: v >= 10)
check("lstopo/axl", t / a if t and a else None, ">= 30x", lambda v: v >= 30)
f, v = med("floor"), med("version")
if e and a:
    print()
    print("  where axl list's %.3f ms above the empty program go:" % (a - e))
    if v:
        print("    %-44s %7.3f ms" % ("loading axl (axl --version - empty)", v - e))
    if f:
        print("    %-44s %7.3f ms" % ("its file-system calls (floor - empty)", f - e))
    if v and f:
        print("    %-44s %7.3f ms" % ("axl's own work (the rest)", a - v - (f - e)))
    if f:
        print("  floor/empty %.2fx: no program that reads these files starts faster than %.3f ms;"
              % (f / e, f))
        print("  axl/floor %.2fx" % (a / f))
EOF
echo "written: $BENCH_OUT/startup.txt, $BENCH_OUT/startup.json"
exit 0
