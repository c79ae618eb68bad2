#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""axl labels on synthetic trees: the Node Feature Discovery feature-file format and the
Kubernetes label syntax of every line, the labels of known nodes (vendor-neutral and
GPU Feature Discovery's), agreement with axl list --json on every node, the atomic
--output, --expiry, reproducibility and the options' errors.

usage: check_labels.py --axl AXL --work DIR --case NAME
       check_labels.py --list
"""

import argparse
import datetime
import json
import os
import re
import shutil
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
NODES = os.path.join(ROOT, "tests", "trees", "nodes")
MKTREE = os.path.join(ROOT, "tests", "trees", "mktree.py")

CASES = ["hgx-8x-h100", "mi300x-8x", "mi300x-2x-cpx-nps4", "gaudi2-8x", "laptop-npu-2gpu",
         "tpu-v5e-vm", "nvml", "every_node", "output", "expiry", "reproducible", "options"]
failures = []

# Kubernetes label syntax (k8s.io/apimachinery validation): a name of at most 63
# characters, alphanumeric at both ends, [-A-Za-z0-9_.] between; an optional prefix, a DNS
# subdomain of at most 253 characters; a value like a name, or empty.
NAME_RE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
DNS_LABEL_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
RFC3339_RE = re.compile(
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
NFD_MAX = 65536


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def valid_key(key):
    if "/" in key:
        prefix, name = key.split("/", 1)
        if len(prefix) > 253 or not all(DNS_LABEL_RE.match(p) and len(p) <= 63
                                        for p in prefix.split(".")):
            return False
    else:
        name = key
    return len(name) <= 63 and bool(NAME_RE.match(name))


def valid_value(v):
    return v == "" or (len(v) <= 63 and bool(NAME_RE.match(v)))


def validate(text, what):
    """The file as NFD's local source reads it, checked strictly; returns {key: value}."""
    check(len(text.encode()) <= NFD_MAX, "%s: %d bytes, more than %d" % (what, len(text.encode()), NFD_MAX))
    check(text == "" or text.endswith("\n"), "%s: does not end with a newline" % what)
    labels = {}
    keys = []
    for i, line in enumerate(text.split("\n")[:-1]):
        if line.startswith("#"):
            m = re.match(r"^# \+expiry-time=(.*)$", line)
            check(i == 0 and m is not None, "%s: line %d: unexpected comment %r" % (what, i + 1, line))
            if m:
                check(RFC3339_RE.match(m.group(1)) is not None,
                      "%s: expiry %r is not RFC 3339" % (what, m.group(1)))
            continue
        check(line.strip() == line and line != "", "%s: line %d: blank or padded %r" % (what, i + 1, line))
        check("=" in line, "%s: line %d: no '=': %r" % (what, i + 1, line))
        key, _, val = line.partition("=")
        check(valid_key(key), "%s: invalid label name %r" % (what, key))
        check(valid_value(val), "%s: invalid value %r of %s" % (what, val, key))
        check(key not in labels, "%s: %s twice" % (what, key))
        labels[key] = val
        keys.append(key)
    check(keys == sorted(keys), "%s: labels not sorted" % what)
    return labels


def tree(work, spec):
    name = spec.split(".json")[0]
    dst = os.path.join(work, name)
    if not os.path.isdir(dst):
        subprocess.run([sys.executable, MKTREE, os.path.join(NODES, spec), dst], check=True,
                       stdout=subprocess.DEVNULL)
    return dst


def spec_of(node):
    for ext in (".json", ".json.gz"):
        if os.path.exists(os.path.join(NODES, node + ext)):
            return node + ext
    raise SystemExit("no spec for " + node)


def node_specs():
    return [f for f in sorted(os.listdir(NODES))
            if not f.endswith(".expect.json") and (f.endswith(".json") or f.endswith(".json.gz"))]


def run(axl, *args, rc=0, env=None):
    e = dict(os.environ)
    e.pop("AXL_SYSROOT", None)
    e.update(env or {})
    p = subprocess.run([axl] + list(args), capture_output=True, text=True, env=e, timeout=120)
    if rc is not None:
        check(p.returncode == rc, "axl %s: exit %d, not %d: %s" % (" ".join(args), p.returncode, rc,
                                                                  p.stderr[-400:]))
    return p


def labels_of(axl, root, *extra):
    p = run(axl, "--sysroot", root, "labels", *extra)
    return validate(p.stdout, os.path.basename(root) + " " + " ".join(extra)), p.stdout


def expect(labels, want, what):
    for k, v in want.items():
        if v is None:
            check(k not in labels, "%s: %s should be absent, is %r" % (what, k, labels.get(k)))
        else:
            check(labels.get(k) == v, "%s: %s = %r, want %r" % (what, k, labels.get(k), v))


P = "axl.dev/"

KNOWN = {
    "hgx-8x-h100": (
        {P + "count": "8", P + "product": "NVIDIA-H100-80GB-HBM3", P + "memory": "81920",
         P + "family": "gpu", P + "architecture": "Hopper",
         P + "nvidia.count": "8", P + "nvidia.product": "NVIDIA-H100-80GB-HBM3",
         P + "nvidia.memory": "81920", P + "nvidia.family": "gpu",
         P + "nvidia.architecture": "Hopper", P + "nvidia.vendor": "NVIDIA",
         P + "nvidia.driver": "nvidia", P + "nvidia.driver.version": "550.90.07",
         P + "nvidia.precision.fp8": "true", P + "nvidia.precision.bf16": "true",
         P + "nvidia.precision.fp64": "true", P + "nvidia.precision.fp4": None,
         P + "nvidia.partition.mig": "true", P + "nvidia.partition.mig.max": "7",
         P + "nvidia.partition.count": None, "nvidia.com/gpu.count": None},
        {"nvidia.com/gpu.count": "8", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
         "nvidia.com/gpu.memory": "81920", "nvidia.com/gpu.family": "hopper",
         "nvidia.com/cuda.driver.major": "550", "nvidia.com/cuda.driver.minor": "90",
         "nvidia.com/cuda.driver.rev": "07", "nvidia.com/mig.capable": "true"}),
    "mi300x-8x": (
        {P + "count": "8", P + "amdgpu.count": "8", P + "amdgpu.product": "AMD-Instinct-MI300X",
         P + "amdgpu.memory": "196592", P + "amdgpu.architecture": "gfx942",
         P + "amdgpu.family": "gpu", P + "amdgpu.vendor": "AMD",
         P + "amdgpu.precision.fp8": "true",
         P + "amdgpu.partition.amd-cpx": "true", P + "amdgpu.partition.amd-cpx.mode": "SPX",
         P + "amdgpu.partition.amd-cpx.max": "8",
         P + "amdgpu.partition.amd-nps": "true", P + "amdgpu.partition.amd-nps.mode": "NPS1",
         P + "amdgpu.partition.count": None},
        {"nvidia.com/gpu.count": None, "nvidia.com/mig.capable": None}),
    "mi300x-2x-cpx-nps4": (
        {P + "count": "2", P + "amdgpu.count": "2",
         P + "amdgpu.partition.amd-cpx": "true", P + "amdgpu.partition.amd-cpx.mode": "CPX",
         P + "amdgpu.partition.amd-nps": "true", P + "amdgpu.partition.amd-nps.mode": "NPS4",
         P + "amdgpu.partition.amd-nps.max": "4", P + "amdgpu.partition.count": "16"},
        {}),
    "gaudi2-8x": (
        {P + "count": "8", P + "habana.count": "8", P + "habana.product": "Habana-Gaudi2",
         P + "habana.memory": "98304", P + "habana.family": "asic",
         P + "habana.architecture": "Gaudi-2", P + "habana.driver": "habanalabs",
         P + "habana.driver.version": "1.18.0-524", P + "habana.precision.fp8": "true",
         P + "habana.precision.fp64": None},
        {"nvidia.com/gpu.count": None}),
    "laptop-npu-2gpu": (
        {P + "count": "3", P + "nvidia.count": "1", P + "intel.count": "1",
         P + "intelnpu.count": "1", P + "intelnpu.family": "npu", P + "intel.family": "gpu",
         P + "nvidia.product": "NVIDIA-GeForce-RTX-4070-Laptop-GPU",
         P + "intelnpu.product": "Intel-AI-Boost-NPU-Meteor-Lake",
         P + "intelnpu.precision.int8": "true", P + "intel.product": None},
        {"nvidia.com/gpu.count": "1", "nvidia.com/gpu.product": "NVIDIA-GeForce-RTX-4070-Laptop-GPU",
         "nvidia.com/mig.capable": "false"}),
    "tpu-v5e-vm": (
        {P + "count": "4", P + "tpu.count": "4", P + "tpu.product": "Google-TPU-v5e",
         P + "tpu.family": "tpu", P + "tpu.memory": "16384", P + "tpu.architecture": "TPU-v5e",
         P + "tpu.precision.bf16": "true", P + "tpu.precision.int8": "true",
         P + "tpu.precision.fp8": None},
        {}),
}


def case_known(axl, work, node):
    root = tree(work, spec_of(node))
    neutral, gfd = KNOWN[node]
    plain, _ = labels_of(axl, root)
    expect(plain, neutral, node)
    check(not any(k.startswith("nvidia.com/") for k in plain), node + ": nvidia.com/ labels without --gfd")
    withgfd, _ = labels_of(axl, root, "--gfd")
    expect(withgfd, gfd, node + " --gfd")
    # --gfd only adds nvidia.com/ names
    check({k: v for k, v in withgfd.items() if not k.startswith("nvidia.com/")} == plain,
          node + ": --gfd changed the vendor-neutral labels")
    # another prefix, and none (NFD then adds feature.node.kubernetes.io/)
    other, _ = labels_of(axl, root, "--prefix", "accelerator.example.com")
    check({k.replace("accelerator.example.com/", P, 1): v for k, v in other.items()} == plain,
          node + ": --prefix changes more than the prefix")
    bare, _ = labels_of(axl, root, "--prefix", "")
    check({P + k: v for k, v in bare.items()} == plain, node + ": --prefix '' changes more than the prefix")
    return 0


def case_nvml(axl, work, double):
    """hgx-8x-h100 with NVML answering (the NVML double and the board's nvidia-smi -q
    capture): the compute capability and CUDA version give GFD's compute.* and
    cuda.runtime.* labels, and memory is NVML's (81559 MiB, as GFD would say)."""
    if not double:
        print("no --double")
        return 77
    root = tree(work, spec_of("hgx-8x-h100"))
    fx = os.path.join(ROOT, "tests", "vendorlib", "nvml", "double", "fixtures")
    env = {"AXL_NVML_LIBRARY": double, "AXL_NVML_DOUBLE_XML": os.path.join(fx, "hgx-8x-h100-q2x.xml"),
           "AXL_NVML_DOUBLE_EXTRA": os.path.join(fx, "hgx-8x-h100.extra")}
    p = run(axl, "--sysroot", root, "labels", "--gfd", env=env)
    labels = validate(p.stdout, "nvml")
    expect(labels, {
        P + "nvidia.compute-capability": "9.0", P + "nvidia.cuda.version": "12.2",
        P + "nvidia.memory": "81559", P + "nvidia.partition.mig": "true",
        P + "nvidia.partition.mig.mode": "disabled",
        "nvidia.com/gpu.count": "8", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
        "nvidia.com/gpu.memory": "81559", "nvidia.com/gpu.family": "hopper",
        "nvidia.com/gpu.compute.major": "9", "nvidia.com/gpu.compute.minor": "0",
        "nvidia.com/cuda.runtime.major": "12", "nvidia.com/cuda.runtime.minor": "2",
        "nvidia.com/cuda.driver.major": "550", "nvidia.com/cuda.driver.minor": "90",
        "nvidia.com/cuda.driver.rev": "07", "nvidia.com/mig.capable": "true"}, "nvml")
    return 0


def sanitized(model):
    v = re.sub(r"[^A-Za-z0-9_.-]+", "-", model)[:63]
    return re.sub(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "", v)


def case_every_node(axl, work):
    """Every synthetic node: valid file; counts, products, memory and compute capability
    agree with axl list --json."""
    for spec in node_specs():
        root = tree(work, spec)
        name = os.path.basename(root)
        labels, _ = labels_of(axl, root, "--gfd")
        doc = json.loads(run(axl, "--sysroot", root, "list", "--json").stdout or "{}")
        devs = [d for d in doc.get("devices", []) if d.get("family") != "cpu"]
        check(labels.get(P + "count") == str(len(devs)), "%s: count %r, %d devices" %
              (name, labels.get(P + "count"), len(devs)))
        kinds = {}
        for d in devs:
            kinds.setdefault(d["id"].split(":")[0], []).append(d)
        for kind, ds in kinds.items():
            k = re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-")
            check(labels.get(P + k + ".count") == str(len(ds)), "%s: %s.count" % (name, k))
            models = [d["model"] for d in ds if d.get("model")]
            if models:
                top = max(sorted(set(models)), key=models.count)
                check(labels.get(P + k + ".product") == sanitized(top),
                      "%s: %s.product %r, want %r" % (name, k, labels.get(P + k + ".product"), sanitized(top)))
                mem = [d["memory"]["total_bytes"] for d in ds
                       if d.get("model") == top and d.get("memory", {}).get("total_bytes")]
                if mem:
                    check(labels.get(P + k + ".memory") == str(min(mem) // 2**20),
                          "%s: %s.memory %r" % (name, k, labels.get(P + k + ".memory")))
            cc = ds[0].get("compute_capability")
            if kind == "nvidia":
                check(labels.get("nvidia.com/gpu.count") == str(len(ds)), name + ": nvidia.com/gpu.count")
                if cc:
                    major, minor = cc.split(".")[:2]
                    check(labels.get("nvidia.com/gpu.compute.major") == major, name + ": compute.major")
                    check(labels.get("nvidia.com/gpu.compute.minor") == minor, name + ": compute.minor")
                    check(labels.get(P + "nvidia.compute-capability") == cc, name + ": compute-capability")
        if "nvidia" not in kinds:
            check(not any(k.startswith("nvidia.com/") for k in labels), name + ": nvidia.com/ without NVIDIA")
    return 0


def case_output(axl, work):
    root = tree(work, spec_of("hgx-8x-h100"))
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    path = os.path.join(out, "axl")
    old = os.umask(0o077)  # the file is 0644 whatever the umask
    try:
        run(axl, "--sysroot", root, "labels", "--gfd", "-o", path)
        first = open(path).read()
        # replacing an existing file (here: a different one, mode 0600)
        os.chmod(path, 0o600)
        with open(path, "w") as f:
            f.write("stale=true\n")
        run(axl, "--sysroot", root, "labels", "--gfd", "--output", path)
    finally:
        os.umask(old)
    st = os.stat(path)
    check(stat.S_IMODE(st.st_mode) == 0o644, "--output: mode %o, not 644" % stat.S_IMODE(st.st_mode))
    text = open(path).read()
    check(text == first, "--output: the second write differs from the first")
    check(text == run(axl, "--sysroot", root, "labels", "--gfd").stdout, "--output differs from stdout")
    validate(text, "--output")
    check(os.listdir(out) == ["axl"], "--output left %r" % os.listdir(out))
    # missing folders are made, as generators make theirs (mkdir -p; 0755 less the umask)
    deep = os.path.join(out, "new", "deeper", "axl")
    old = os.umask(0o022)
    try:
        p = run(axl, "--sysroot", root, "labels", "--gfd", "-o", deep)
    finally:
        os.umask(old)
    check(os.path.isfile(deep) and open(deep).read() == first, "--output into missing folders: %r" % p.stderr)
    check(stat.S_IMODE(os.stat(os.path.dirname(deep)).st_mode) == 0o755,
          "--output: a made folder's mode %o, not 755" % stat.S_IMODE(os.stat(os.path.dirname(deep)).st_mode))
    shutil.rmtree(os.path.join(out, "new"))
    # errors: a file where a folder should be, a directory as the file; exit 1, one line
    # that names the path and what is wrong with it, nothing left behind
    with open(os.path.join(out, "plain"), "w") as f:
        f.write("x\n")
    bad = os.path.join(out, "plain", "sub", "axl")
    p = run(axl, "--sysroot", root, "labels", "-o", bad, rc=1)
    check(p.stderr == "axl: cannot create %s: %s is not a directory\n" % (os.path.dirname(bad), os.path.join(out, "plain")),
          "--output under a file: %r" % p.stderr)
    os.unlink(os.path.join(out, "plain"))
    os.mkdir(os.path.join(out, "dir"))
    p = run(axl, "--sysroot", root, "labels", "-o", os.path.join(out, "dir"), rc=1)
    check(p.stderr == "axl: cannot write %s: it is a directory (name a file in it)\n" % os.path.join(out, "dir"),
          "--output onto a folder: %r" % p.stderr)
    check(sorted(os.listdir(out)) == ["axl", "dir"] and os.listdir(os.path.join(out, "dir")) == [],
          "failed writes left %r" % os.listdir(out))
    if os.geteuid() != 0:
        os.chmod(os.path.join(out, "dir"), 0o500)
        p = run(axl, "--sysroot", root, "labels", "-o", os.path.join(out, "dir", "axl"), rc=1)
        check(p.stderr == "axl: cannot write %s: permission denied in %s\n" %
              (os.path.join(out, "dir", "axl"), os.path.join(out, "dir")), "--output, no permission: %r" % p.stderr)
        p = run(axl, "--sysroot", root, "labels", "-o", os.path.join(out, "dir", "sub", "axl"), rc=1)
        check(p.stderr == "axl: cannot create %s: permission denied in %s\n" %
              (os.path.join(out, "dir", "sub"), os.path.join(out, "dir")), "--output, no permission: %r" % p.stderr)
        os.chmod(os.path.join(out, "dir"), 0o700)
    return 0


def case_expiry(axl, work):
    root = tree(work, spec_of("gaudi2-8x"))
    plain = run(axl, "--sysroot", root, "labels").stdout
    for arg in ("2030-01-01T00:00:00Z", "2030-01-01T02:00:00.5+02:00"):
        text = run(axl, "--sysroot", root, "labels", "--expiry", arg).stdout
        validate(text, "--expiry " + arg)
        check(text == "# +expiry-time=%s\n" % arg + plain, "--expiry %s: %r" % (arg, text[:80]))
    for arg, secs in (("90s", 90), ("30m", 1800), ("12h", 43200), ("7d", 604800), ("1h30m", 5400),
                      ("600s", 600)):
        before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
        text = run(axl, "--sysroot", root, "labels", "--expiry", arg).stdout
        after = datetime.datetime.now(datetime.timezone.utc)
        validate(text, "--expiry " + arg)
        first, _, rest = text.partition("\n")
        check(rest == plain, "--expiry %s changed the labels" % arg)
        m = re.match(r"^# \+expiry-time=(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$", first)
        check(m is not None, "--expiry %s: first line %r" % (arg, first))
        if m:
            t = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%SZ").replace(
                tzinfo=datetime.timezone.utc)
            check(before + datetime.timedelta(seconds=secs) <= t <= after + datetime.timedelta(seconds=secs),
                  "--expiry %s: %s is not %d s from now" % (arg, t, secs))
    for bad in ("", "0", "-5m", "5x", "1h-", "tomorrow", "2030-01-01", "2030-13-01T00:00:00Z",
                "2030-01-01 00:00:00Z", "2030-01-01T00:00:00", "2030-01-01T00:00:00+0200", "+203-01-01T00:00:00Z",
                "2030-1-01T00:00:00Z", "2030-01-01T00:00:00Zjunk"):
        p = run(axl, "--sysroot", root, "labels", "--expiry", bad, rc=2)
        check(p.stdout == "" and "--expiry" in p.stderr, "--expiry %r: %r" % (bad, p.stderr))
    # a bare number, as every duration of the command line: refused with the fix
    p = run(axl, "--sysroot", root, "labels", "--expiry", "600", rc=2)
    check(p.stdout == "" and "--expiry 600" in p.stderr and "600s" in p.stderr and len(p.stderr.splitlines()) == 1,
          "--expiry 600: %r" % p.stderr)
    return 0


def case_reproducible(axl, work):
    for node in ("hgx-8x-h100", "laptop-npu-2gpu", "mi300x-2x-cpx-nps4"):
        root = tree(work, spec_of(node))
        a = run(axl, "--sysroot", root, "labels", "--gfd").stdout
        b = run(axl, "--sysroot", root, "labels", "--gfd").stdout
        check(a == b and a != "", node + ": two runs differ")
    return 0


def case_options(axl, work):
    root = tree(work, spec_of("tpu-v5e-vm"))
    for bad in ("Axl.dev", "axl..dev", "-axl.dev", "axl.dev-", "axl_dev", "a" * 64 + ".dev",
                ".".join(["a" * 60] * 5)):
        p = run(axl, "--sysroot", root, "labels", "--prefix", bad, rc=2)
        check("--prefix" in p.stderr and p.stdout == "", "--prefix %r: %r" % (bad, p.stderr))
    run(axl, "--sysroot", root, "labels", "extra", rc=2)
    for opt in (["--gfd"], ["--expiry", "1h"], ["--prefix", "x.io"]):
        p = run(axl, "--sysroot", root, "list", *opt, rc=2)
        check("labels" in p.stderr, "%s on list: %r" % (opt, p.stderr))
    # the longest prefix there may be still gives valid labels within the size limit
    long_prefix = ".".join(["a" * 63] * 3 + ["b" * 61])
    labels, text = labels_of(axl, root, "--gfd", "--prefix", long_prefix)
    check(len(long_prefix) == 253 and all(k.startswith(long_prefix + "/") for k in labels),
          "253-character prefix")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--work")
    ap.add_argument("--double", help="the NVML test double (libnvidia-ml.so.1)")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print(";".join(CASES))
        return 0
    # one folder per case: ctest -j runs the cases side by side
    a.work = os.path.join(a.work, a.case)
    os.makedirs(a.work, exist_ok=True)
    if a.case in KNOWN:
        rc = case_known(a.axl, a.work, a.case)
    elif a.case == "nvml":
        rc = case_nvml(a.axl, a.work, a.double)
    else:
        rc = globals()["case_" + a.case](a.axl, a.work)
    if rc:
        return rc
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
