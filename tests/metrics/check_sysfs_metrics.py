#!/usr/bin/env python3
"""Live metrics from sysfs on the synthetic trees: build each tree with mktree, run
`axl metrics --json --sysroot TREE --count 1` and check the values, device by device,
against what the node spec wrote (and the faults it planted). Rates from two samples
of a changing tree are checked by the C unit test test_sysfs_metrics.

  check_sysfs_metrics.py --axl build/axl --work DIR [--case NAME] [--list]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TREES = os.path.join(HERE, "..", "trees")

U = "unknown"  # the metric must be absent


def mi300x():
    ok = {"state": "ok", "memory_used_bytes": 293601280, "memory_total_bytes": 206141652992,
          "utilization_percent": 0, "memory_utilization_percent": 0,
          "power_limit_watts": 750, "sm_clock_mhz": 500, "memory_clock_mhz": 900,
          "energy_joules": 1234567890123 / 65536.0,  # gpu_metrics v1.5, 2^-16 J
          "temperature_celsius": U,                  # MI300X has no edge sensor
          "throttle_reasons": U,                     # v1.5 has no ASIC-independent bits
          "pcie_rx_bytes_per_s": U, "fan_speed_percent": U}
    d = {"amdgpu:%d" % i: dict(ok) for i in range(8)}
    d["amdgpu:0"].update({"power_watts": 131, "temperature_hotspot_celsius": 42, "temperature_memory_celsius": 37})
    # bf:00.0: garbage pp_dpm_sclk and gfxclk "not supported" in gpu_metrics
    d["amdgpu:6"].update({"sm_clock_mhz": U, "power_watts": 133})
    # df:00.0: garbage power1_cap; temp3_input missing -> gpu_metrics' temperature_mem
    d["amdgpu:7"].update({"power_limit_watts": U, "temperature_memory_celsius": 37,
                          "temperature_hotspot_celsius": 46})
    return d


CASES = {
    "mi300x-8x": mi300x,
    "xe-desktop-b580": lambda: {
        # iGPU: GT asleep (act 0), no hwmon, not throttled
        "intel:0": {"state": "ok", "sm_clock_mhz": 0, "throttle_reasons": [], "power_watts": U,
                    "utilization_percent": U, "memory_used_bytes": U},
        "intel:1": {"state": "ok", "sm_clock_mhz": 1850, "power_limit_watts": 190,
                    "energy_joules": 8421.337001, "power_watts": 0,  # a static counter: 0 W
                    "temperature_celsius": 44, "temperature_memory_celsius": 52,
                    "throttle_reasons": ["sw_power_cap"], "utilization_percent": U,
                    "memory_used_bytes": U, "memory_total_bytes": 12884901888},
        "intelnpu:0": {"state": "ok", "utilization_percent": 0, "sm_clock_mhz": 0,
                       "memory_used_bytes": 67108864},
    },
    "laptop-npu-2gpu": lambda: {
        "intel:0": {"state": "ok", "sm_clock_mhz": 0, "throttle_reasons": ["hw_slowdown", "hw_thermal"],
                    "power_watts": U, "energy_joules": U},
        # kernel 6.8: no npu_* attributes
        "intelnpu:0": {"state": "none", "utilization_percent": U, "sm_clock_mhz": U},
    },
    "gaudi2-8x": lambda: dict(
        {"habana:%d" % i: {"state": "ok", "sm_clock_mhz": 1800, "power_limit_watts": 600,
                           "power_watts": 95 + 5 * i, "temperature_celsius": 38 + i} for i in range(7)},
        **{"habana:1": {"state": "ok", "power_limit_watts": U, "sm_clock_mhz": 1800, "power_watts": 100},
           "habana:7": {"state": "lost", "power_watts": U, "sm_clock_mhz": U}}),  # "In reset"
    "tenstorrent-host": lambda: {
        "tenstorrent:0": {"state": "ok", "sm_clock_mhz": 1000, "power_watts": 85, "power_limit_watts": 300,
                          "temperature_celsius": 52.312},
        "tenstorrent:1": {"state": "ok", "sm_clock_mhz": U, "power_watts": 41, "power_limit_watts": 160,
                          "temperature_celsius": 47.125},  # garbage tt_aiclk
        "amdgpu:0": {"state": "ok", "utilization_percent": 2, "memory_used_bytes": 95109120},
    },
    "inf2-48xl": lambda: dict(
        {"neuron:%d" % i: {"state": "ok", "memory_used_bytes": 0, "power_watts": U} for i in range(2, 11)},
        **{"neuron:0": {"state": "ok", "memory_used_bytes": 3 << 30},
           "neuron:1": {"state": "ok", "memory_used_bytes": 256 << 20},
           "neuron:11": {"state": "lost", "memory_used_bytes": U}}),  # state "invalid"
}


def check(case, axl, work):
    tree = os.path.join(work, case)
    spec = os.path.join(TREES, "nodes", case + ".json")
    subprocess.run([sys.executable, os.path.join(TREES, "mktree.py"), spec, tree], check=True,
                   stdout=subprocess.DEVNULL)
    out = subprocess.run([axl, "metrics", "--json", "--sysroot", tree, "--count", "1"], check=True,
                         capture_output=True, text=True).stdout
    doc = json.loads(out)
    devs = {d["id"]: d for d in doc["devices"]}
    failed = passed = 0
    for did, want in CASES[case]().items():
        got = devs.get(did)
        if got is None:
            print("FAIL %s: no device %s" % (case, did))
            failed += 1
            continue
        for k, v in want.items():
            g = got.get(k)
            if v == U:
                good = g is None
            elif isinstance(v, float) or isinstance(g, float):
                good = isinstance(g, (int, float)) and abs(g - v) <= 1e-6 * max(1.0, abs(v))
            elif isinstance(v, list):
                good = sorted(g or []) == sorted(v) if g is not None else False
            else:
                good = g == v
            if good:
                passed += 1
            else:
                failed += 1
                print("FAIL %s %s %s: got %r, want %r" % (case, did, k, g, "unknown" if v == U else v))
        # every value has a source and nothing lost carries values
        if got.get("state") == "lost" and any(k.endswith(("_percent", "_bytes", "_watts", "_mhz")) for k in got):
            failed += 1
            print("FAIL %s %s: lost with values" % (case, did))
    print("%s: %d passed, %d failed" % (case, passed, failed))
    return failed == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--work", default="/tmp/axl-metrics-trees")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print(";".join(CASES))
        return 0
    os.makedirs(a.work, exist_ok=True)
    cases = [a.case] if a.case else list(CASES)
    return 0 if all([check(c, a.axl, a.work) for c in cases]) else 1


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
