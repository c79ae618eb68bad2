#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""axl bench copy (docs/compute.md): the axl.copybench document against its schema and
the rules a measurement keeps (every test present, bytes verified, medians between min
and max, percentages consistent with the figures), the text form, and bad input with its
exit code and message. Nodes are simulated (tests/sim): their accelerators have no
runtime here, so the host CPU is measured; the vendor paths are tested through the
runtimes' doubles.

usage: check_bench.py --axl PATH --case NAME   (--list: the cases)
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
SCHEMA = os.path.join(SRC, "schema", "axl-copybench.schema.json")
SIM = os.path.join(SRC, "tests", "sim", "h100x2.json")
CASES = ["schema", "text", "progress", "odd_size", "pageable", "named", "errors", "opencl", "vulkan"]
# registered by tests/vendorlib/cuda/CMakeLists.txt, with the double and its inputs
EXTRA_CASES = ["cuda_double"]
SKIP = 77
TESTS = ["host_to_device", "device_to_host", "bidirectional", "device_local"]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)
    return cond


def run(axl, args, env=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("AXL_")}
    e.update(env or {})
    r = subprocess.run([axl, *args], env=e, capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def validate(doc, what):
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        return True
    with open(SCHEMA) as f:
        s = json.load(f)
    Draft202012Validator.check_schema(s)
    errs = ["%s: %s" % ("/".join(str(x) for x in e.absolute_path), e.message)
            for e in Draft202012Validator(s).iter_errors(doc)]
    return check(not errs, "%s: schema: %s" % (what, "; ".join(errs[:3])))


def measured(axl, args, what, env=None):
    rc, out, err = run(axl, ["bench", "copy", "--sim", SIM, "--json", *args], env)
    if not check(rc == 0, "%s: rc %d: %s" % (what, rc, err)):
        return None
    d = json.loads(out)
    if not validate(d, what):
        return None
    for r in d["results"]:
        w = "%s: %s %s" % (what, r["test"], r["device"])
        check(r["verified"] and r["error"] is None, w + ": not verified: %s" % r["error"])
        check(r["gbps"] is not None and r["gbps"] > 0, w + ": no figure")
        if r["gbps"] is not None:
            check(r["gbps_min"] <= r["gbps"] <= r["gbps_max"], w + ": median outside min..max")
        if r["theoretical_gbps"] is None:
            check(r["percent"] is None and r["theoretical_source"] is None, w + ": a percent of nothing")
        else:
            check(abs(r["percent"] - 100 * r["gbps"] / r["theoretical_gbps"]) < 0.01 * r["percent"] + 0.01,
                  w + ": percent does not follow from the figures")
    return d


def case_schema(axl):
    d = measured(axl, ["--size", "1MiB", "--iterations", "3"], "schema")
    if d is None:
        return
    check(d["size_bytes"] == 1 << 20 and d["iterations"] == 3 and d["host_memory"] == "pinned", "schema: header")
    # the simulated GPUs have no runtime here: the host CPU is what is measured
    check([x["id"] for x in d["devices"]] == ["host"], "schema: devices %s" % d["devices"])
    check(d["devices"][0]["backend"] == "cpu", "schema: backend")
    check([r["test"] for r in d["results"]] == TESTS, "schema: tests %s" % [r["test"] for r in d["results"]])
    check(all(r["path"] == "host" and r["peer"] is None for r in d["results"]), "schema: paths")
    # host memory's bandwidth is not in the inventory: no limit is made up
    check(all(r["theoretical_gbps"] is None for r in d["results"]), "schema: a theoretical figure for the host")


def case_text(axl):
    rc, out, err = run(axl, ["bench", "copy", "--sim", SIM, "--size", "256K", "--iterations", "2"])
    check(rc == 0, "text: rc %d: %s" % (rc, err))
    lines = out.splitlines()
    check(lines and "copies of 256 KiB, median of 2 after 2 warm-up, pinned host memory" in lines[0],
          "text: header %r" % lines[:1])
    check(any(l.startswith("DEVICE") and "GB/S" in l and "LIMIT" in l for l in lines), "text: column heads")
    for t in ["host -> device", "device -> host", "bidirectional", "device local"]:
        check(any(l.startswith("host ") and t in l for l in lines), "text: no row for %s" % t)
    # not a terminal: no progress line
    check("\r" not in err and "\033" not in err, "text: progress written to a pipe")


def case_progress(axl):
    """On a terminal (standard error a pty) each test shows [k/n] as it starts, and the
    line is cleared at the end; standard output keeps only the table."""
    import pty
    master, slave = pty.openpty()
    e = {k: v for k, v in os.environ.items() if not k.startswith("AXL_")}
    p = subprocess.Popen([axl, "bench", "copy", "--sim", SIM, "--size", "1MiB", "--iterations", "2"],
                         env=e, stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        err += chunk
    out, _ = p.communicate(timeout=120)
    os.close(master)
    err = err.decode(errors="replace")
    check(p.returncode == 0, "progress: rc %d" % p.returncode)
    for k in range(1, 5):
        check("[%d/4]" % k in err, "progress: no [%d/4] in %r" % (k, err[:200]))
    check("host -> device host" in err and err.endswith("\r\033[K"), "progress: %r" % err[-80:])
    check("[1/4]" not in out and "\033" not in out, "progress: on standard output")


def case_odd_size(axl):
    # an odd size exercises every tail of the threaded copy and the pattern check
    d = measured(axl, ["--size", "4099B", "--iterations", "2"], "odd_size")
    if d:
        check(d["size_bytes"] == 4099, "odd_size: size")
    d = measured(axl, ["--size", "1B", "--iterations", "1"], "one byte")
    if d:
        check(d["size_bytes"] == 1, "one byte: size")


def case_pageable(axl):
    d = measured(axl, ["--size", "64KiB", "--iterations", "2", "--pageable"], "pageable")
    if d:
        check(d["host_memory"] == "pageable", "pageable: host_memory")


def case_named(axl):
    d = measured(axl, ["host", "--size", "4KiB", "--iterations", "2", "--backend", "cpu"], "named")
    if d:
        check([x["id"] for x in d["devices"]] == ["host"], "named: devices")
    d = measured(axl, ["--size", "4KiB", "--iterations", "2"], "AXL_COMPUTE", {"AXL_COMPUTE": "cpu"})


def case_errors(axl):
    bad = [
        (["bench"], 2, "axl bench: which one? copy"),
        (["bench", "speed"], 2, "no subcommand 'speed'"),
        (["bench", "copy", "--size", "0"], 2, "--size 0: out of range (1B to 1TiB)"),
        (["bench", "copy", "--size", "4099"], 2, "--size 4099: a size needs its unit"),
        (["bench", "copy", "--size", "lots"], 2, "not a size"),
        (["bench", "copy", "--size", "2TiB"], 2, "--size 2TiB: out of range (1B to 1TiB)"),
        (["bench", "copy", "--iterations", "0"], 2, "--iterations 0: out of range (1 to 100000)"),
        (["bench", "copy", "--iterations", "3x"], 2, "--iterations takes a whole number, not '3x'"),
        (["bench", "copy", "--backend"], 2, "needs a value"),
        (["bench", "copy", "--backend", ""], 2, "needs a name"),
        (["bench", "copy", "--bogus"], 2, "unknown option"),
        (["bench", "copy", "--pageable=yes"], 2, "--pageable takes no value"),
        (["bench", "copy", "--size"], 2, "--size needs a value"),
        (["bench", "copy", "--backend", "warp-drive", "--sim", SIM], 1, "no such backend"),
        (["bench", "copy", "nvidia:9", "--sim", SIM], 1, "no device 'nvidia:9'"),
        (["bench", "copy", "nvidia:0", "--sim", SIM], 1, "no compute backend drives 'nvidia:0'"),
        (["bench", "copy", "host/opencl", "--backend", "cpu", "--sim", SIM], 1, "no compute backend drives"),
    ]
    for args, want_rc, msg in bad:
        rc, out, err = run(axl, args)
        check(rc == want_rc, "errors: %s: rc %d, wanted %d (%s)" % (" ".join(args), rc, want_rc, err.strip()))
        check(msg in err, "errors: %s: %r not in %r" % (" ".join(args), msg, err.strip()))
        check(out == "", "errors: %s: wrote %r" % (" ".join(args), out[:80]))
    rc, out, err = run(axl, ["bench", "copy", "--size", "1K"], {"AXL_COMPUTE": "nope", "AXL_SIM": SIM})
    check(rc == 1 and "AXL_COMPUTE" in err, "errors: AXL_COMPUTE=nope: rc %d %r" % (rc, err))
    rc, out, err = run(axl, ["help", "bench"])
    check(rc == 0 and "axl bench copy" in out and "--pageable" in out, "errors: help bench")


def runtime_case(axl, backend, icd_glob):
    """A real runtime's device emulated on the host CPU (PoCL, lavapipe), named, next to
    the host CPU: every test of both and the pairs between them, bytes verified."""
    import glob
    if not glob.glob(icd_glob):
        print("no %s runtime installed (%s): skipped" % (backend, icd_glob))
        return SKIP
    d = measured(axl, ["host", "host/" + backend, "--backend", backend, "--size", "3MiB", "--iterations", "2"],
                 backend)
    if d is None:
        return None
    check([x["id"] for x in d["devices"]] == ["host", "host/" + backend], "%s: devices %s" % (backend, d["devices"]))
    check([x["backend"] for x in d["devices"]] == ["cpu", backend], "%s: backends" % backend)
    pairs = [r for r in d["results"] if r["test"] == "device_to_device"]
    check(len(pairs) == 2 and len(d["results"]) == 10, "%s: %d results" % (backend, len(d["results"])))
    # the host CPU's "device" memory is host memory: the runtime's device does the copy
    check(all(r["path"] == "device" for r in pairs), "%s: pair paths %s" % (backend, [r["path"] for r in pairs]))
    check(all(r["path"] == "device" for r in d["results"] if r["device"] != "host"), "%s: paths" % backend)
    rc, out, err = run(axl, ["bench", "copy", "--sim", SIM, "--backend", backend, "--size", "1M", "--iterations", "1"])
    check(rc == 0 and "host/" + backend in out, "%s: default devices: %r %r" % (backend, out[-300:], err))
    return None


def case_opencl(axl):
    rc = runtime_case(axl, "opencl", "/etc/OpenCL/vendors/*.icd")
    if rc is None:
        # which ICDs the command ran on (issue 33): the ones the loader was given, and
        # whether each library was loaded, from the dynamic loader's own log
        sys.path.insert(0, os.path.join(SRC, "tests", "reallibs"))
        import icds
        e = {k: v for k, v in os.environ.items() if not k.startswith("AXL_")}
        lrc, maps = icds.loaded_by([axl, "bench", "copy", "host/opencl", "--backend", "opencl", "--size", "4K",
                                    "--iterations", "1"], e)
        check(lrc == 0, "opencl: the run under LD_DEBUG=files: exit %d" % lrc)
        print(icds.describe(env=e, maps=maps))
    return rc


def case_vulkan(axl):
    return runtime_case(axl, "vulkan", "/usr/share/vulkan/icd.d/lvp_icd*.json")


def case_cuda_double(axl, lib, inputs):
    """The cuda backend over the CUDA double on the recorded HGX H100 node: the limits
    come from the inventory (PCIe gen 5 x16, NVSwitch 450 GB/s), peer copies by default,
    staged when the double refuses peer access."""
    env = {"AXL_CUDA_LIBRARY": lib, "AXL_CUDA_DOUBLE_XML": os.path.join(inputs, "cuda.xml")}
    tree = os.path.join(inputs, "tree")
    for p2p, path in (("1", "peer"), ("0", "staged")):
        e = dict(env)
        if p2p == "0":
            e["AXL_CUDA_DOUBLE_P2P"] = "0"
        rc, out, err = run(axl, ["bench", "copy", "nvidia:0", "nvidia:3", "--sysroot", tree, "--size", "2MiB",
                                 "--iterations", "2", "--json"], e)
        if not check(rc == 0, "cuda_double p2p=%s: rc %d: %s" % (p2p, rc, err)):
            continue
        d = json.loads(out)
        validate(d, "cuda_double")
        check([x["backend"] for x in d["devices"]] == ["cuda", "cuda"], "cuda_double: backends")
        check(all(x["pcie_gbps"] and abs(x["pcie_gbps"] - 63.008) < 0.01 for x in d["devices"]),
              "cuda_double: pcie figures %s" % [x["pcie_gbps"] for x in d["devices"]])
        for r in d["results"]:
            w = "cuda_double p2p=%s %s %s" % (p2p, r["test"], r["device"])
            check(r["verified"] and r["error"] is None, w + ": %s" % r["error"])
            if r["test"] == "device_to_device":
                check(r["path"] == path, w + ": path %s" % r["path"])
                want = 450 if path == "peer" else 63.008
                check(r["theoretical_gbps"] is not None and abs(r["theoretical_gbps"] - want) < 0.01,
                      w + ": limit %s" % r["theoretical_gbps"])
            elif r["test"] == "device_local":
                check(r["theoretical_gbps"] == 1675, w + ": limit %s" % r["theoretical_gbps"])
            elif r["test"] == "bidirectional":
                check(abs(r["theoretical_gbps"] - 126.016) < 0.01, w + ": limit %s" % r["theoretical_gbps"])
            else:
                check(r["path"] == "device", w + ": path %s" % r["path"])
    # a lost device: the test fails with a message, exit 1, the others still run
    e = dict(env, AXL_CUDA_DOUBLE_LOST_AFTER="3")
    rc, out, err = run(axl, ["bench", "copy", "nvidia:0", "nvidia:3", "--sysroot", tree, "--size", "1MiB",
                             "--iterations", "2", "--json"], e)
    check(rc == 1, "cuda_double lost: rc %d" % rc)
    if out:
        d = json.loads(out)
        validate(d, "cuda_double lost")
        bad = [r for r in d["results"] if r["error"]]
        check(bad and any("lost" in r["error"] or "unavailable" in r["error"].lower() or "46" in r["error"]
                          for r in bad), "cuda_double lost: errors %s" % [r["error"] for r in bad][:3])
        check(all(r["gbps"] is None for r in bad if not r["verified"] and r["path"] is None),
              "cuda_double lost: a figure for a failed test")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--cuda-lib")
    ap.add_argument("--cuda-inputs")
    a = ap.parse_args()
    if a.list:
        print(";".join(CASES))
        return 0
    if a.case == "cuda_double":
        r = case_cuda_double(a.axl, a.cuda_lib, a.cuda_inputs)
    else:
        r = globals()["case_" + a.case](a.axl)
    if r == SKIP and not failures:
        return SKIP
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
