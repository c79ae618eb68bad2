#!/usr/bin/env bash
# How fast does `axl serve` answer Prometheus scrapes? (bench/README.md, "axl serve")
#
#  1. builds an 8-GPU synthetic tree (tests/trees/nodes/mi300x-8x.json by default),
#  2. starts `axl serve` on it on a free loopback port,
#  3. wrk -t2 -c4 -d10s --latency: the most scrapes per second it takes, and latency;
#  4. a fixed-rate probe (bench/serve_probe.py): RATE scrapes/s over one keep-alive
#     connection for SECONDS, latency percentiles; the target is p99 < 1 ms at 500/s;
#     and on /healthz (static text) as the floor this machine allows;
#  5. the same fixed-rate probe with --dcgm (twice the families);
#  6. what one `axl metrics --json` process costs on the same tree, for the ratio.
# A benchmark, not a test: it always exits 0.
set -u
cd "$(dirname "$0")/.."
AXL=${AXL:-build/axl}
NODE=${NODE:-tests/trees/nodes/mi300x-8x.json}
RATE=${RATE:-500}
SECONDS_=${PROBE_SECONDS:-10}
WRK_SECONDS=${WRK_SECONDS:-10}
OUT=${BENCH_OUT:-build/bench-serve}
mkdir -p "$OUT"
tree="$OUT/tree"
rm -rf "$tree"
python3 tests/trees/mktree.py "$NODE" "$tree" || { echo "cannot build the tree"; exit 0; }
[ -x "$AXL" ] || { echo "no $AXL: build first"; exit 0; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

start_server() { # extra args...
	"$AXL" serve --listen "127.0.0.1:$port" --sysroot "$tree" "$@" 2>"$OUT/serve.log" &
	pid=$!
	for _ in $(seq 100); do
		grep -q "axl: serving" "$OUT/serve.log" 2>/dev/null && return 0
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
	done
	echo "axl serve did not start:"; cat "$OUT/serve.log"; return 1
}
stop_server() { kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }

echo "== machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(uname -r); node: $(basename "$NODE" .json); axl: $AXL"
start_server || exit 0
bytes=$(python3 -c "import urllib.request as u; print(len(u.urlopen('http://127.0.0.1:$port/metrics').read()))")
echo "== /metrics: $bytes bytes"
if command -v wrk >/dev/null 2>&1; then
	echo "== wrk -t2 -c4 -d${WRK_SECONDS}s --latency http://127.0.0.1:$port/metrics"
	wrk -t2 -c4 -d"${WRK_SECONDS}s" --latency "http://127.0.0.1:$port/metrics" | tee "$OUT/wrk.txt"
else
	echo "== wrk not installed (apt-get install wrk): skipped"
fi
echo "== fixed rate: $RATE scrapes/s for ${SECONDS_}s, one keep-alive connection"
python3 bench/serve_probe.py --port "$port" --rate "$RATE" --seconds "$SECONDS_" | tee "$OUT/probe.txt"
echo "== the floor: the same probe on /healthz (a static answer: no sampling, no rendering)"
python3 bench/serve_probe.py --port "$port" --rate "$RATE" --seconds "$SECONDS_" --path /healthz | tee "$OUT/probe-healthz.txt"
stop_server

start_server --dcgm || exit 0
echo "== fixed rate with --dcgm: $RATE scrapes/s for ${SECONDS_}s"
python3 bench/serve_probe.py --port "$port" --rate "$RATE" --seconds "$SECONDS_" | tee "$OUT/probe-dcgm.txt"
stop_server

echo "== for comparison: one 'axl metrics --json --no-processes' process on the same tree"
python3 - "$AXL" "$tree" "$OUT/probe.txt" <<'EOF'
import subprocess, sys, time
axl, tree, probe = sys.argv[1:4]
runs = []
for i in range(30):
    t = time.perf_counter()
    subprocess.run([axl, "metrics", "--json", "--no-processes", "--sysroot", tree], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    runs.append(time.perf_counter() - t)
runs.sort()
med = runs[len(runs) // 2] * 1e3
p50 = None
for line in open(probe):
    if line.startswith("p50_ms"):
        p50 = float(line.split()[1])
print("axl metrics --json: median %.2f ms per process (it sleeps 100 ms between its two samples: %.2f ms "
      "without the sleep)" % (med, med - 100))
if p50:
    print("scrape p50 %.3f ms: %.0fx cheaper than a fresh process without its sleep" % (p50, (med - 100) / p50))
EOF
exit 0
