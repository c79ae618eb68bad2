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
