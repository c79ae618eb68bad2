#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The JSON contract, command by command: every document axl prints validates against its
schema, and no table prints -1 for a value it does not know.

  check_contract.py --axl build/axl --double build/.../libnvidia-ml.so.1 --work DIR --case NAME
  check_contract.py --list                                  the case names

On every node: every simulated node (tests/sim/*.json), a simulated H100 with MIG
partitions created through `axl partition create`, every replayed node (tests/replay:
real captures and the synthetic trees of tests/trees/nodes), the NVML double's A100 with
its four MIG devices (and with failing profile calls), it runs

  list --json (and --all, --timing)           schema/axl-inventory.schema.json
  topo --json                                 schema/axl-inventory.schema.json
  show ID --json, every device and child      schema/axl-device.schema.json
  metrics --json (one, and a stream of two)   schema/axl-metrics.schema.json
  plan MODEL --json, plan --list --json       schema/axl-plan.schema.json, axl-models
  limit list --json (before and after set)    schema/axl-limits.schema.json
  partition list --json                       schema/axl-partitions.schema.json
  partition profiles ID --json                schema/axl-partition-profiles.schema.json
  partition create ... --json (MIG sims)      schema/axl-partition.schema.json
  capture -o F (trees): its manifest.json     schema/axl-capture.schema.json
  cdi generate (trees with device nodes)      tests/cli/cdi/schema (the CNCF CDI schema)

and the tables of list, list --all, show ID, topo, metrics, limit list, partition list,
partition profiles, plan and top --batch, none of which may hold a "-1" or "?" cell
(unknown is "-"). Every
document must carry "schema" and "schema_version" (docs/json.md).
The empty-strings case builds trees whose string attributes are empty, blank or NULs
and checks that the keys are left out.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

sys.dont_write_bytecode = True  # the imported test scripts leave nothing in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SCHEMA = os.path.join(TOP, "schema")
# the schema_version each document carries when it is not 1 (docs/json.md "Versions")
VERSIONS = {"axl.inventory": 2}
sys.path.insert(0, os.path.join(TOP, "tests", "replay"))
sys.path.insert(0, os.path.join(TOP, "tests", "tools"))
sys.path.insert(0, os.path.join(TOP, "tests", "cli", "cdi"))
import replay  # noqa: E402  (all_cases, build_root)
import visvars  # noqa: E402

try:
    import validate_json  # noqa: E402
except SystemExit:  # jsonschema missing
    print("python3-jsonschema is missing")
    sys.exit(77)

SIMS = sorted(glob.glob(os.path.join(TOP, "tests", "sim", "*.json")))
NVML_XML = os.path.join(TOP, "tests", "vendorlib", "nvml", "double", "fixtures", "telegraf-a100-sxm4-v12.xml")
H100_MIG = {"schema": "axl.sim", "schema_version": 1,
            "devices": [{"model": "NVIDIA H100 80GB HBM3", "count": 2, "mig": True}]}
PLAN_MODEL = "llama3.2-1b"
# a table cell "-1" (alone, or before a unit): what an unknown count printed as a number looks like
MINUS_ONE = re.compile(r"(?<![\w.:/-])-1(?![\d.])")
# a cell "?" alone: unknown is "-" in every table
QUESTION = re.compile(r"(?<!\S)\?(?!\S)")

_validators = {}


def validator(name):
    if name not in _validators:
        path = os.path.join(SCHEMA, name)
        with open(path) as f:
            schema = json.load(f)
        _validators[name] = validate_json.make_validator(schema, path)
    return _validators[name]


def blank_strings_in(v, where="$"):
    """Every string value (not key) of a document that is empty or only whitespace. A NUMA
    node's empty cpulist is a known value: a memory-only node (the schema says so)."""
    if isinstance(v, str):
        if not v.strip() and not (v == "" and re.search(r"numa_nodes\[\d+\]\.cpulist$", where)):
            yield where, v
    elif isinstance(v, dict):
        for k, x in v.items():
            yield from blank_strings_in(x, "%s.%s" % (where, k))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from blank_strings_in(x, "%s[%d]" % (where, i))


class Node:
    """How to run axl on one node: global options and environment."""

    def __init__(self, name, argv, env, work, sysroot=None):
        self.name, self.argv, self.env, self.work, self.sysroot = name, argv, env, work, sysroot
        self.errors = []
        self.docs = 0
        self.tables = 0

    def run(self, *args, ok=True):
        p = subprocess.run([AXL] + self.argv + list(args), env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=120, errors="replace")
        if ok and p.returncode != 0:
            self.errors.append("%s: axl %s: exit %d: %s" % (self.name, " ".join(args), p.returncode,
                                                           p.stderr.strip()[-300:]))
        return p

    def doc(self, schema_file, schema_name, *args, text=None):
        """Run a --json command (or take its text) and validate what it printed."""
        what = " ".join(args)
        if text is None:
            p = self.run(*args)
            if p.returncode != 0:
                return None
            text = p.stdout
        try:
            d = json.loads(text)
        except ValueError as e:
            self.errors.append("%s: axl %s: not JSON: %s" % (self.name, what, e))
            return None
        self.docs += 1
        want = VERSIONS.get(schema_name, 1)
        if not isinstance(d, dict) or d.get("schema") != schema_name or d.get("schema_version") != want:
            self.errors.append("%s: axl %s: the document does not carry schema %r and schema_version %d (%r, %r)"
                               % (self.name, what, schema_name, want, isinstance(d, dict) and d.get("schema"),
                                  isinstance(d, dict) and d.get("schema_version")))
        for where, v in blank_strings_in(d):
            self.errors.append("%s: axl %s: %s: a blank string %r (unknown is left out)" % (self.name, what, where, v))
        for e in sorted(validator(schema_file).iter_errors(d), key=lambda e: list(map(str, e.absolute_path))):
            self.errors.append("%s: axl %s: %s: %s" % (self.name, what, validate_json.json_path(e.absolute_path),
                                                        e.message[:300]))
        return d

    def table(self, *args, ok=True):
        p = self.run(*args, ok=ok)
        if p.returncode != 0:
            return p
        self.tables += 1
        for n, line in enumerate(p.stdout.splitlines(), 1):
            if MINUS_ONE.search(line):
                self.errors.append("%s: axl %s: line %d prints -1 for an unknown value: %r"
                                   % (self.name, " ".join(args), n, line))
            if QUESTION.search(line):
                self.errors.append("%s: axl %s: line %d prints '?' for an unknown value (unknown is '-'): %r"
                                   % (self.name, " ".join(args), n, line))
        return p


def check_node(node, mig_profiles=None):
    inv = node.doc("axl-inventory.schema.json", "axl.inventory", "list", "--json")
    node.doc("axl-inventory.schema.json", "axl.inventory", "list", "--json", "--all")
    node.doc("axl-inventory.schema.json", "axl.inventory", "list", "--json", "--timing")
    node.doc("axl-inventory.schema.json", "axl.inventory", "topo", "--json")
    node.table("list")
    node.table("list", "--all")
    node.table("topo")
    if inv is None:
        return
    ids = []
    for d in inv["devices"]:
        ids.append(d["id"])
        ids += [c["id"] for c in d.get("children", [])]
    for i in ids:
        node.doc("axl-device.schema.json", "axl.device", "show", i, "--json")
        node.table("show", i)
    node.doc("axl-metrics.schema.json", "axl.metrics", "metrics", "--json")
    # a stream: one compact document a line
    p = node.run("metrics", "--json", "--interval", "20ms", "--count", "2")
    lines = p.stdout.splitlines() if p.returncode == 0 else []
    if p.returncode == 0 and len(lines) != 2:
        node.errors.append("%s: metrics --json --count 2: %d lines" % (node.name, len(lines)))
    for k, line in enumerate(lines):
        node.doc("axl-metrics.schema.json", "axl.metrics", "metrics --json --count 2 (document %d)" % (k + 1),
                 text=line)
    node.table("metrics")
    node.table("top", "--batch", "--count", "1", "--interval", "50ms")
    # the catalog reads no node: asked without the node's options (which it refuses)
    argv, node.argv = node.argv, []
    node.doc("axl-models.schema.json", "axl.models", "plan", "--list", "--json")
    node.argv = argv
    if any(d.get("memory", {}).get("total_bytes") for d in inv["devices"]):
        node.doc("axl-plan.schema.json", "axl.plan", "plan", PLAN_MODEL, "--json")
        node.table("plan", PLAN_MODEL)
    # limits: none, then one on the first device
    node.doc("axl-limits.schema.json", "axl.limits", "limit", "list", "--json")
    node.table("limit", "list")
    if inv["devices"]:
        node.run("limit", "set", inv["devices"][0]["id"], "--memory", "1MiB", "--compute", "50")
        node.doc("axl-limits.schema.json", "axl.limits", "limit", "list", "--json")
        node.table("limit", "list")
    # partitions: create the given MIG profiles first (simulated MIG)
    for dev, prof in mig_profiles or []:
        node.doc("axl-partition.schema.json", "axl.partition", "partition", "create", dev, prof, "--json")
    if mig_profiles:
        inv2 = node.doc("axl-inventory.schema.json", "axl.inventory", "list", "--json")
        kids = [c["id"] for d in (inv2 or {"devices": []})["devices"] for c in d.get("children", [])]
        if len(kids) != len(mig_profiles):
            node.errors.append("%s: %d children after creating %d partitions" % (node.name, len(kids),
                                                                                   len(mig_profiles)))
        for i in kids:
            node.doc("axl-device.schema.json", "axl.device", "show", i, "--json")
            node.table("show", i)
        node.table("list")
    node.doc("axl-partitions.schema.json", "axl.partitions", "partition", "list", "--json")
    node.table("partition", "list")
    for d in inv["devices"]:
        if d.get("partitioning"):
            node.doc("axl-partition-profiles.schema.json", "axl.partition_profiles", "partition", "profiles",
                     d["id"], "--json")
            node.table("partition", "profiles", d["id"])
    if node.sysroot:
        check_capture(node)
        check_cdi(node, inv)


def check_capture(node):
    out = os.path.join(node.work, "capture.tar.gz")
    p = node.run("capture", "-o", out)
    if p.returncode != 0:
        return
    with tarfile.open(out) as t:
        m = t.extractfile("axl-capture/manifest.json")
        node.doc("axl-capture.schema.json", "axl.capture", "capture (manifest.json)", text=m.read().decode())
    # the capture replayed prints a valid inventory too
    p = subprocess.run([AXL, "list", "--json", "--all", "--sysroot", out], env=node.env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=120)
    if p.returncode:
        node.errors.append("%s: list --sysroot CAPTURE: exit %d" % (node.name, p.returncode))
    else:
        node.doc("axl-inventory.schema.json", "axl.inventory", "list --sysroot CAPTURE", text=p.stdout)


def check_cdi(node, inv):
    import check_cdi as cdi
    if not any(d.get("device_nodes") for d in inv["devices"]):
        return
    outdir = os.path.join(node.work, "cdi")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    p = node.run("cdi", "generate", "--output", outdir, ok=False)
    if p.returncode != 0:
        if "no accelerator with device nodes" not in p.stderr:
            node.errors.append("%s: cdi generate: exit %d: %s" % (node.name, p.returncode, p.stderr.strip()))
        return
    v = cdi.validator()
    for f in sorted(glob.glob(os.path.join(outdir, "*.json"))):
        spec = json.load(open(f))
        node.docs += 1
        for e in v.iter_errors(spec):
            node.errors.append("%s: cdi generate %s: %s at %s" % (node.name, os.path.basename(f), e.message[:200],
                                                                  list(e.path)))


def base_env(work):
    # the visibility variables of the shell that runs the tests stay out (tests/tools/visvars.py)
    env = visvars.clean(os.environ)
    for k in ("AXL_SYSROOT", "AXL_BACKENDS", "AXL_SIM", "AXL_NVML_LIBRARY", "AXL_NVML_DOUBLE_XML",
              "AXL_NVML_DOUBLE_FAIL"):
        env.pop(k, None)
    state = os.path.join(work, "state")
    shutil.rmtree(state, ignore_errors=True)
    os.makedirs(state, mode=0o700)
    env["AXL_STATE_DIR"] = state
    env["AXL_PCI_IDS"] = "/dev/null"
    # vendor libraries of this machine stay out: the node is the tree
    env["AXL_NVML_LIBRARY"] = os.path.join(work, "no-libnvidia-ml.so.1")
    return env


def fresh(work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    return work


# ---- cases ---------------------------------------------------------------------------------

def cases():
    out = ["sim." + os.path.basename(s)[:-5] for s in SIMS]
    out += ["sim.h100-mig-partitions", "nvml.a100-mig", "nvml.profiles-unknown", "empty-strings", "schemas",
            "bep1000-facts"]
    out += ["replay." + n for n, _, _ in replay.all_cases()]
    return out


def run_case(name, work):
    work = fresh(os.path.join(work, name))
    env = base_env(work)
    if name.startswith("sim.") and name != "sim.h100-mig-partitions":
        spec = os.path.join(TOP, "tests", "sim", name[4:] + ".json")
        node = Node(name, ["--sim", spec], env, work)
        check_node(node)
    elif name == "sim.h100-mig-partitions":
        spec = os.path.join(work, "h100-mig.json")
        with open(spec, "w") as f:
            json.dump(H100_MIG, f)
        node = Node(name, ["--sim", spec], env, work)
        check_node(node, mig_profiles=[("nvidia:0", "1g.10gb"), ("nvidia:0", "3g.40gb"), ("nvidia:1", "7g.80gb")])
    elif name.startswith("nvml."):
        root = os.path.join(work, "root")
        os.makedirs(root)
        env.update(AXL_NVML_LIBRARY=DOUBLE, AXL_NVML_DOUBLE_XML=NVML_XML)
        if name == "nvml.profiles-unknown":
            # the profile details and the free capacity cannot be read: the profiles are
            # still listed (from the names NVML gives), every detail is unknown
            env["AXL_NVML_DOUBLE_FAIL"] = ("nvmlDeviceGetGpuInstanceProfileInfoV=NOT_SUPPORTED,"
                                           "nvmlDeviceGetGpuInstanceProfileInfo=NOT_SUPPORTED,"
                                           "nvmlDeviceGetGpuInstanceRemainingCapacity=NOT_SUPPORTED")
        node = Node(name, ["--sysroot", root], env, work)
        check_node(node)
        if name == "nvml.profiles-unknown":
            check_profiles_unknown(node)
        else:
            inv = node.doc("axl-inventory.schema.json", "axl.inventory", "list", "--json")
            kids = [c for d in (inv or {"devices": []})["devices"] for c in d.get("children", [])]
            if len(kids) != 4:
                node.errors.append("nvml.a100-mig: %d MIG devices, expected 4" % len(kids))
    elif name == "schemas":
        node = check_schemas(work, env)
    elif name == "empty-strings":
        node = check_empty_strings(work, env)
    elif name == "bep1000-facts":
        node = check_bep1000_facts(work, env)
    elif name.startswith("replay."):
        case = name[len("replay."):]
        found = [c for c in replay.all_cases() if c[0] == case]
        if not found:
            print("no case %s" % name)
            return 2
        _, kind, src = found[0]
        root = os.path.join(work, "root")
        replay.build_root(kind, src, root)
        node = Node(name, ["--sysroot", root], env, work, sysroot=root)
        check_node(node)
    else:
        print("no case %s" % name)
        return 2
    for e in node.errors:
        print("FAIL " + e)
    print("%s: %d documents, %d tables, %d errors" % (name, node.docs, node.tables, len(node.errors)))
    return 1 if node.errors else 0


def check_profiles_unknown(node):
    """Partly unknown MIG profiles: '-' in the table, the keys left out of the document."""
    p = node.table("partition", "profiles", "nvidia:0")
    rows = [l.split() for l in p.stdout.splitlines()[1:] if l.startswith("MIG")]
    if not rows:
        node.errors.append("profiles-unknown: no MIG profile rows: %r" % p.stdout)
    for r in rows:
        # TECH PROFILE ID MEMORY SMS SLICES MAX FREE: all unknown
        if r[2:] != ["-"] * 6:
            node.errors.append("profiles-unknown: row %r: unknown details are not '-'" % (r,))
    d = node.doc("axl-partition-profiles.schema.json", "axl.partition_profiles", "partition", "profiles",
                 "nvidia:0", "--json")
    for pr in (d or {}).get("profiles", []):
        extra = set(pr) - {"technology", "name"}
        if extra:
            node.errors.append("profiles-unknown: %s carries %s" % (pr["name"], sorted(extra)))
    p = node.table("show", "nvidia:0")
    if "id=- mem=- units=- slices=- instances=- free=-" not in p.stdout and "id=" in p.stdout:
        node.errors.append("profiles-unknown: show prints details that are not known: %r" % p.stdout)


# ---- the new schemas reject what the contract forbids ---------------------------------------

def check_schemas(work, env):
    """Real documents from the simulated MIG node, each broken the way the contract forbids
    (-1 for unknown, "" for unknown, 0 for an unknown owner, no schema keys, a child without
    its partition): every one must be refused by its schema, and the unbroken one accepted."""
    spec = os.path.join(work, "h100-mig.json")
    with open(spec, "w") as f:
        json.dump(H100_MIG, f)
    node = Node("schemas", ["--sim", spec], env, work)
    made = node.doc("axl-partition.schema.json", "axl.partition", "partition", "create", "nvidia:0", "1g.10gb",
                    "--json")
    docs = {
        "axl-partitions.schema.json": node.doc("axl-partitions.schema.json", "axl.partitions", "partition",
                                               "list", "--json"),
        "axl-partition.schema.json": made,
        "axl-partition-profiles.schema.json": node.doc("axl-partition-profiles.schema.json",
                                                       "axl.partition_profiles", "partition", "profiles",
                                                       "nvidia:0", "--json"),
        "axl-device.schema.json": node.doc("axl-device.schema.json", "axl.device", "show", "nvidia:0/mig1.0",
                                           "--json"),
        "axl-limits.schema.json": None,
    }
    node.run("limit", "set", "nvidia:1", "--memory", "1GiB")
    docs["axl-limits.schema.json"] = node.doc("axl-limits.schema.json", "axl.limits", "limit", "list", "--json")
    if any(d is None for d in docs.values()) or node.errors:
        return node

    def broken(schema, fn, what):
        import copy
        d = copy.deepcopy(docs[schema])
        fn(d)
        if not list(validator(schema).iter_errors(d)):
            node.errors.append("schemas: %s accepts %s" % (schema, what))

    for sch in docs:
        broken(sch, lambda d: d.pop("schema"), "a document without schema")
        later = VERSIONS.get(docs[sch].get("schema"), 1) + 1
        broken(sch, lambda d: d.__setitem__("schema_version", later), "schema_version %d" % later)
    broken("axl-partitions.schema.json", lambda d: d["partitions"][0].__setitem__("owner_pid", 0), "owner_pid 0")
    broken("axl-partitions.schema.json", lambda d: d["partitions"][0].__setitem__("created", 0), "created 0")
    broken("axl-partitions.schema.json", lambda d: d["partitions"][0].__setitem__("profile", ""), "profile \"\"")
    broken("axl-partitions.schema.json", lambda d: d["partitions"][0].__setitem__("memory_bytes", -1),
           "memory_bytes -1")
    broken("axl-partition.schema.json", lambda d: d.pop("id"), "a partition without id")
    broken("axl-partition-profiles.schema.json", lambda d: d["profiles"][0].__setitem__("free_instances", -1),
           "free_instances -1")
    broken("axl-partition-profiles.schema.json", lambda d: d["profiles"][0].__setitem__("name", ""), "a blank name")
    broken("axl-device.schema.json", lambda d: d.pop("partition"), "a partition device without partition")
    broken("axl-device.schema.json", lambda d: d.__setitem__("model", ""), "model \"\"")
    broken("axl-limits.schema.json", lambda d: d["limits"][0].__setitem__("compute_percent", 0), "compute 0")
    broken("axl-limits.schema.json", lambda d: d["limits"][0].__setitem__("memory_bytes", -1), "memory -1")
    broken("axl-limits.schema.json", lambda d: d["limits"][0].__setitem__("device", ""), "device \"\"")
    return node


# ---- the facts Backend.AI's BEP-1000 device info asks for (issue 15) ------------------------

# what the device database gives, with its source "devicedb": memory facts per device,
# compute-unit rows, precision rows (support, or None for a row that must be absent)
BEP_EXPECT = {
    "h100x2.json": {
        "memory": {"l1_cache_bytes_per_unit": 256 << 10, "shared_memory_bytes_per_unit": 228 << 10,
                   "channels": 10, "stacks": 5},
        "compute_units": {"SM": 132, "Tensor Core": 528},
        # FP4/FP6: none from the Blackwell technical brief (no earlier NVIDIA architecture)
        "precision": {"FP8": "native", "INT4": "none", "FP4": "none", "FP6": "none"},
    },
    "mi300x8.json": {
        "memory": {"l1_cache_bytes_per_unit": 32 << 10, "shared_memory_bytes_per_unit": 64 << 10,
                   "stacks": 8, "channels": None},
        "compute_units": {"CU": 304, "XCC": 8, "Matrix Core": 1216},
        # INT4: the MI300X documents are silent; FP4: none before CDNA 4
        "precision": {"FP8": "native", "INT4": None, "FP4": "none"},
    },
}


def check_bep1000_facts(work, env):
    """axl list --json on the simulated H100 and MI300X nodes carries the new memory facts
    (memory.l1_cache_bytes_per_unit, shared_memory_bytes_per_unit, channels, stacks), the
    tensor/matrix-unit rows and the explicit precision rows, every one from "devicedb"; a
    fact the database does not know stays absent; the schema refuses malformed values."""
    import copy
    node = Node("bep1000-facts", [], env, work)
    first = None
    for sim, want in sorted(BEP_EXPECT.items()):
        node.argv = ["--sim", os.path.join(TOP, "tests", "sim", sim)]
        inv = node.doc("axl-inventory.schema.json", "axl.inventory", "list", "--json")
        if not inv or not inv.get("devices"):
            node.errors.append("%s: no devices" % sim)
            continue
        first = first or inv
        for d in inv["devices"]:
            where = "%s %s" % (sim, d["id"])
            mem, fs = d.get("memory", {}), d.get("field_sources", {})
            for k, v in want["memory"].items():
                if v is None:
                    if k in mem or ("memory." + k) in fs:
                        node.errors.append("%s: memory.%s is %r, expected absent (unknown)" % (where, k, mem.get(k)))
                    continue
                if mem.get(k) != v:
                    node.errors.append("%s: memory.%s is %r, expected %r" % (where, k, mem.get(k), v))
                if fs.get("memory." + k) != "devicedb":
                    node.errors.append("%s: field_sources memory.%s is %r, expected devicedb"
                                       % (where, k, fs.get("memory." + k)))
            cus = {c["name"]: c for c in d.get("compute_units", [])}
            for n, count in want["compute_units"].items():
                c = cus.get(n)
                if not c or c.get("count") != count or c.get("source") != "devicedb":
                    node.errors.append("%s: compute unit %r is %r, expected %d from devicedb" % (where, n, c, count))
            precs = {p["format"]: p for p in d.get("precision", [])}
            for f, sup in want["precision"].items():
                p = precs.get(f)
                if sup is None:
                    if p is not None:
                        node.errors.append("%s: precision %s is %r, expected absent (the datasheet is silent)"
                                           % (where, f, p))
                    continue
                if not p or p.get("support") != sup or p.get("source") != "devicedb":
                    node.errors.append("%s: precision %s is %r, expected %s from devicedb" % (where, f, p, sup))
                if p and sup == "none" and "peak_tflops" in p:
                    node.errors.append("%s: precision %s is unsupported but has a peak" % (where, f))
    if first is None:
        return node

    def broken(fn, what):
        d = copy.deepcopy(first)
        fn(d["devices"][0]["memory"])
        if not list(validator("axl-inventory.schema.json").iter_errors(d)):
            node.errors.append("bep1000-facts: the inventory schema accepts %s" % what)

    broken(lambda m: m.__setitem__("stacks", 0), "memory.stacks 0 (unknown is absent)")
    broken(lambda m: m.__setitem__("channels", -1), "memory.channels -1")
    broken(lambda m: m.__setitem__("channels", "10"), "memory.channels as a string")
    broken(lambda m: m.__setitem__("l1_cache_bytes_per_unit", 0), "memory.l1_cache_bytes_per_unit 0")
    broken(lambda m: m.__setitem__("shared_memory_bytes_per_unit", 1.5), "a fractional shared memory size")
    return node


# ---- empty, blank and NUL-only strings (docs/json.md: unknown is left out) -----------------

EMPTY_VALUES = {"empty": "", "blank": "  \t \n", "nuls": "\0\0\0\n"}


def check_empty_strings(work, env):
    """Synthetic trees whose string attributes are empty, whitespace only or only NULs: the
    documents validate and the keys are absent."""
    node = Node("empty-strings", [], env, work, sysroot=None)
    node.errors += empty_strings(work, env, node)
    return node


def empty_strings(work, env, node):
    errs = []
    spec_src = os.path.join(TOP, "tests", "trees", "nodes", "mi300x-8x.json")
    for tag, val in EMPTY_VALUES.items():
        root = os.path.join(work, tag)
        replay.build_root("spec", spec_src, root)
        blank_strings(root, val)
        node.sysroot = None
        node.argv = ["--sysroot", root]
        inv = node.doc("axl-inventory.schema.json", "axl.inventory", "list", "--json", "--all")
        if inv is None:
            continue
        cpu = inv.get("host", {}).get("cpu", {})
        if "model" in cpu:
            errs.append("empty-strings %s: host.cpu.model = %r, expected absent" % (tag, cpu["model"]))
        for d in inv["devices"]:
            if d.get("family") == "cpu":
                continue
            # only the blanked files give these on this node (model and uuid have other sources)
            for path in ("driver.version", "firmware.vbios", "serial"):
                cur = d
                for k in path.split("."):
                    cur = cur.get(k) if isinstance(cur, dict) else None
                if cur is not None:
                    errs.append("empty-strings %s: %s %s = %r, expected absent" % (tag, d["id"], path, cur))
        for n in inv.get("nics", []):
            for k in ("state", "link_layer", "node_guid"):
                if k in n:
                    errs.append("empty-strings %s: NIC %s %s = %r, expected absent" % (tag, n["name"], k, n[k]))
        for d in inv["devices"]:
            for p in d.get("partitioning", []):
                # the mode only sysfs gives here (the profiles come from the device database too)
                if p["technology"].startswith("AMD-") and "mode" in p:
                    errs.append("empty-strings %s: %s %s: mode %r from a blank file"
                                % (tag, d["id"], p["technology"], p.get("mode")))
        for i in [d["id"] for d in inv["devices"]][:2]:
            node.doc("axl-device.schema.json", "axl.device", "show", i, "--json")
            node.table("show", i)
        node.table("list")
        node.doc("axl-metrics.schema.json", "axl.metrics", "metrics", "--json")
    return errs


def blank_strings(root, val):
    """Overwrite the string attributes of the tree: /proc/cpuinfo's model name, and every
    sysfs file a backend reads a name, version or serial from."""
    cpuinfo = os.path.join(root, "proc", "cpuinfo")
    if os.path.exists(cpuinfo):
        with open(cpuinfo) as f:
            lines = f.read().split("\n")
        with open(cpuinfo, "w") as f:
            f.write("\n".join("model name\t: " + val.rstrip("\n") if l.startswith("model name") else l
                              for l in lines))
    names = {"vbios_version", "serial_number", "product_name", "unique_id", "label", "version",
             "fw_version", "board_id", "product_number", "name", "current_partition", "current_compute_partition",
             "current_memory_partition", "available_compute_partition", "available_memory_partition", "state",
             "link_layer", "node_guid", "modalias"}
    for dirpath, _, files in os.walk(os.path.join(root, "sys")):
        for fn in files:
            if fn in names or fn.endswith("_version"):
                path = os.path.join(dirpath, fn)
                if os.path.islink(path):
                    continue
                with open(path, "w") as f:
                    f.write(val)


def main():
    global AXL, DOUBLE
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--double")
    ap.add_argument("--work", default="contract-work")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print(";".join(cases()))
        return 0
    AXL = os.path.abspath(a.axl)
    DOUBLE = os.path.abspath(a.double) if a.double else None
    names = [a.case] if a.case else cases()
    rc = 0
    for n in names:
        rc |= run_case(n, os.path.abspath(a.work))
    return rc


AXL = DOUBLE = None
if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
