#!/usr/bin/env python3
"""The layers of src/lib (src/README.md), checked three ways.

  graph     the layers the build declares (axl-layers.txt, written by CMakeLists.txt's
            axl_subsystem()) form no cycle, and every layer folder exists;
  includes  every #include "..." of a file under src/lib resolves to its own folder, a
            folder of a layer below it, util/ or the public headers: the same rule the
            build's include paths enforce, read from the sources; a vendor's foreign ABI
            (src/abi/<vendor>/) is included only from that vendor's backend folder, its
            limiter folder (src/limiter/<vendor>/) or src/abi/<vendor>/ itself;
  symbols   every axl_/axl__ symbol an object of a layer uses is defined in that layer
            or in one below it (nm), but for the registry's table, which the core
            declares and the backend layer defines (the one plug-in point); a layer
            built on the public API (plan/) may use any exported axl_ symbol and no
            internal one but util's;
  vendors   no vendor's name appears in code (comments aside) outside the vendor folders
            src/lib/backend/<vendor>/, src/limiter/<vendor>/ and src/abi/<vendor>/ (a
            vendor's foreign ABI, which only its own folders include): not in a subsystem, backend/common, the command or
            the TensorFusion provider. (A vendor's folder may name what its runtimes read,
            as HIP reads CUDA_VISIBLE_DEVICES.) The registry (backend/registry.c), one
            row per backend, is the one file that names them all. Every vendor folder
            must have an entry in VENDORS (a folder without one fails: it would be
            unchecked), and every entry its folder under src/lib/backend/. Nor, outside
            those folders, a vendor's private data by a generic name: an axl__ struct a
            vendor folder declares (what its row's per-device block holds,
            core/backend.h), or a field the core's objects once carried (VENDOR_FIELDS).

Usage: check_layers.py --build DIR --src DIR [--case graph|includes|symbols] [--list]
"""
import argparse
import glob
import os
import re
import subprocess
import sys

CASES = ("graph", "includes", "symbols", "vendors")
# declared in core/internal.h, defined by the layer on top of the vendors
PLUGIN_POINTS = {"axl__backends", "axl__backend_total"}
# what names a vendor in code: its company and products, its drivers, libraries and their
# prefixes, its environment variables (case-insensitive, on code with comments removed)
VENDORS = {
    "nvidia": r"nvidia|nvml|cuda|nvlink|nvswitch|\bmig\b|\bmig_|_mig\b|\bmig-",
    "amd": r"amdgpu|\bamd\b|\bamd_|rocm|rsmi|\bkfd\b|\bkfd_|_kfd\b|\bhip_|\bhip\b|rocr|xgmi|xdna",
    "intel": r"\bintel\b|\bintel_|level_zero|levelzero|\bze_|\bzes_|\bi915\b|\bxe\b|\bivpu\b",
    "habana": r"habana|gaudi|hlml|\bhl_",
    "neuron": r"neuron|inferentia|trainium",
    "tenstorrent": r"tenstorrent",
    "tpu": r"\btpu\b|\btpu_|google",
    "ascend": r"ascend|huawei|davinci|dcmi|npu-smi",
    "qaic": r"qaic|qualcomm",
}
# files that are tables of data rather than code about a vendor: the registry (one row per
# backend), the model catalog (models by their publishers' repository ids) and the CPU
# vendors of /proc/cpuinfo (CPUs are no backend's), the clouds as SMBIOS names them (a
# cloud is no backend either), and the command table, whose help text
# gives examples ("nvidia:0") and axl topo's legend, and dcgm-exporter's metric families
# (an output format axl writes for every vendor's devices)
# and the planner's default price table (cloud instance types and their public prices),
# and the limiter's sides (limiter/sides.c, one row per runtime the limiter holds),
# and ai-hwaccel's device and interconnect kinds against axl's (lib/plan/hwaccel_table.c)
VENDOR_TABLES = {"lib/backend/registry.c", "limiter/sides.c", "lib/plan/model_catalog.c", "lib/discover/host.c",
                 "lib/discover/clouds.c",
                 "cli/commands.c", "lib/metrics/prom_dcgm.c", "lib/plan/price_table.c",
                 "lib/plan/hwaccel_table.c"}
# fields of one vendor's that the core's objects once carried under generic names; they
# live in the vendor's per-device block now (struct axl__nvidia_dev, struct axl__kfd_dev)
VENDOR_FIELDS = re.compile(r"\b(driver_minor|topo_unique_id|topo_only|topo_nodes|topo_node_count|topo_present)\b")
# the JSON contract's words for links (schema/axl-inventory.schema.json): values, which
# code outside a vendor folder may compare and print like any other
CONTRACT_WORDS = re.compile(r'"(nvlink|nvswitch|xgmi|neuronlink|xelink)"', re.I)


def public_names(src):
    """Every identifier the public headers define (AXL_ATTR_CUDA_DRIVER_VERSION,
    AXL_SOURCE_NVML, ...): the API is a contract, usable anywhere."""
    names = set()
    for h in glob.glob(os.path.join(src, "..", "include", "**", "*.h"), recursive=True):
        names.update(re.findall(r"\b(AXL_[A-Z0-9_]+|axl_[a-z0-9_]+)\b", open(h).read()))
    return names


def load_layers(build):
    layers = {}
    with open(os.path.join(build, "axl-layers.txt")) as f:
        for line in f:
            if not line.strip():
                continue
            head, _, below = line.partition(":")
            name, folder, target, kind = head.split()
            layers[name] = {"dir": folder, "target": target, "below": below.split(),
                            "public_api": kind == "public-api"}
    return layers


def closure(layers, name, seen=None):
    out = set()
    stack = list(layers[name]["below"])
    while stack:
        b = stack.pop()
        if b in out:
            continue
        out.add(b)
        stack.extend(layers[b]["below"])
    return out


def check_graph(layers, src):
    bad = []
    state = {}

    def visit(n, path):
        if state.get(n) == 1:
            bad.append("cycle: " + " -> ".join(path + [n]))
            return
        if state.get(n) == 2:
            return
        state[n] = 1
        for b in layers[n]["below"]:
            if b not in layers:
                bad.append("%s: unknown layer below it: %s" % (n, b))
                continue
            visit(b, path + [n])
        state[n] = 2

    for n in layers:
        visit(n, [])
        if not os.path.isdir(os.path.join(src, "lib", layers[n]["dir"])):
            bad.append("%s: no folder src/lib/%s" % (n, layers[n]["dir"]))
    # every folder holding sources is a layer
    known = {l["dir"] for l in layers.values()}
    for dp, _, fs in os.walk(os.path.join(src, "lib")):
        if any(f.endswith(".c") for f in fs):
            rel = os.path.relpath(dp, os.path.join(src, "lib"))
            if rel not in known:
                bad.append("src/lib/%s holds sources but is no layer" % rel)
    return bad


def check_includes(layers, src):
    bad = []
    lib = os.path.join(src, "lib")
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    by_dir = {l["dir"]: n for n, l in layers.items()}
    for name, l in layers.items():
        allowed = [l["dir"]] + [layers[b]["dir"] for b in closure(layers, name)]
        folder = os.path.join(lib, l["dir"])
        for f in sorted(os.listdir(folder)):
            if not f.endswith((".c", ".h")):
                continue
            text = open(os.path.join(folder, f), errors="replace").read()
            for m in inc.finditer(text):
                p = m.group(1)
                if p == "axl.h" or p.startswith("axl/"):
                    continue
                if p.startswith("util/") and os.path.isfile(os.path.join(src, p)):
                    continue
                # a vendor's foreign ABI (src/abi/<vendor>/): its own backend folder only
                if p.startswith("abi/") and os.path.isfile(os.path.join(src, p)):
                    vendor = p.split("/")[1] if p.count("/") == 2 else None
                    if vendor is None or l["dir"] == "backend/" + vendor:
                        continue
                    bad.append("src/lib/%s/%s: includes \"%s\", the ABI of a vendor not its own" % (l["dir"], f, p))
                    continue
                if "/" in p:
                    bad.append("src/lib/%s/%s: includes \"%s\" by a path" % (l["dir"], f, p))
                    continue
                home = [d for d in allowed if os.path.isfile(os.path.join(lib, d, p))]
                if not home:
                    where = [d for d in by_dir if os.path.isfile(os.path.join(lib, d, p))]
                    bad.append("src/lib/%s/%s: includes \"%s\" from %s, not a layer below %s" %
                               (l["dir"], f, p, ", ".join(where) or "nowhere", name))
    # outside src/lib (the limiter, compat, the command, src/abi itself): a vendor's
    # foreign ABI only from that vendor's limiter folder or its own src/abi folder
    for dp, _, fs in os.walk(src):
        rel_dir = os.path.relpath(dp, src)
        if rel_dir == "lib" or rel_dir.startswith("lib/"):
            continue
        for f in sorted(fs):
            if not f.endswith((".c", ".h")):
                continue
            rel = os.path.normpath(os.path.join(rel_dir, f))
            text = open(os.path.join(dp, f), errors="replace").read()
            for m in inc.finditer(text):
                p = m.group(1)
                if not p.startswith("abi/") or p.count("/") != 2:
                    continue
                vendor = p.split("/")[1]
                if rel.startswith("limiter/%s/" % vendor) or rel.startswith("abi/%s/" % vendor):
                    continue
                bad.append("src/%s: includes \"%s\", the ABI of a vendor not its own" % (rel, p))
    return bad


def nm(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRCV" and parts[2].startswith("axl_"):
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U" and parts[1].startswith("axl_"):
            undefined.add(parts[1])
    return defined, undefined


def objects(build, target):
    """The objects CMake builds for target now (axl-layers/<target>.objects, written at
    generation), not whatever an older tree left in its CMakeFiles folder."""
    path = os.path.join(build, "axl-layers", target + ".objects")
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        return [l.strip() for l in f if l.strip()]


def check_symbols(layers, build):
    bad = []
    owner, uses = {}, {}
    for name, l in layers.items():
        objs = objects(build, l["target"])
        if not objs:
            bad.append("%s: no objects under CMakeFiles/%s.dir (build first)" % (name, l["target"]))
        for o in objs:
            d, u = nm(o)
            for s in d:
                owner[s] = name
            uses[(name, os.path.basename(o))] = u
    util = glob.glob(os.path.join(build, "CMakeFiles", "axl_util.dir", "**", "*.o"), recursive=True)
    for o in util:
        for s in nm(o)[0]:
            owner[s] = "util"
    for (name, obj), u in sorted(uses.items()):
        ok = closure(layers, name) | {name, "util"}
        for s in sorted(u):
            if s in PLUGIN_POINTS:
                continue
            if layers[name]["public_api"] and not s.startswith("axl__"):
                continue  # the exported API, whichever layer defines it
            o = owner.get(s)
            if o is None or o in ok:
                continue
            bad.append("%s (%s) uses %s of %s, a layer not below it" % (name, obj, s, o))
    return bad


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


# A command's option table and declaration (src/cli/cmd_<name>.c, opt.h) are its help text:
# data with examples ("nvidia:0", "nvidia.com/gpu"), as the command table once was. They are
# the regions from "static const struct cli_opt NAME[] = {", "static const struct cli_sub
# NAME[] = {" or "const struct cli_command cli_cmd_NAME = {" to the "};" closing them, and the
# help macros those tables use ("#define NAME_HELP" / "#define NAME_OPTIONS" with their
# continued lines). Lines in them are blanked; line numbers stay.
CLI_TABLE = re.compile(r"^(static const struct cli_(opt|sub) \w+\[\] = \{|const struct cli_command cli_cmd_\w+ = \{)"
                       r".*?^\};", re.S | re.M)
CLI_HELP_MACRO = re.compile(r"^#define \w+_(HELP|OPTIONS)\b(?:[^\n]*\\\n)*[^\n]*$", re.M)


def strip_cli_tables(text):
    blank = lambda m: "\n" * m.group(0).count("\n")
    return CLI_HELP_MACRO.sub(blank, CLI_TABLE.sub(blank, text))


def vendor_folders(src):
    """The vendor folders of the tree: src/lib/backend/<vendor>/ (common/ aside),
    src/limiter/<vendor>/ and src/abi/<vendor>/, as (path relative to src, vendor)."""
    out = []
    for parent in ("lib/backend", "limiter", "abi"):
        top = os.path.join(src, parent)
        for d in sorted(os.listdir(top)) if os.path.isdir(top) else []:
            if os.path.isdir(os.path.join(top, d)) and not (parent == "lib/backend" and d == "common"):
                out.append(("%s/%s" % (parent, d), d))
    return out


def check_vendor_folders(src):
    """Every vendor folder has its names in VENDORS (the build makes a layer of any folder
    under src/lib/backend/, so a folder the map lacks would go unchecked), and every entry
    of VENDORS has its backend folder."""
    bad = []
    folders = vendor_folders(src)
    for rel, v in folders:
        if v not in VENDORS:
            bad.append("src/%s/: a vendor folder with no entry in VENDORS (tests/layers/check_layers.py): "
                       "add the words that name %s (docs/internals/new-vendor.md)" % (rel, v))
    backends = {v for rel, v in folders if rel.startswith("lib/backend/")}
    for v in sorted(set(VENDORS) - backends):
        bad.append("VENDORS names '%s', which has no folder src/lib/backend/%s/ (renamed or removed?)" % (v, v))
    return bad


def vendor_dir(rel):
    return any(rel.startswith("lib/backend/%s/" % v) or rel.startswith("limiter/%s/" % v) or
               rel.startswith("abi/%s/" % v) for v in VENDORS)


def vendor_structs(src):
    """The axl__ structs the vendor folders declare: their private data."""
    names = set()
    for dp, _, fs in os.walk(src):
        for f in fs:
            path = os.path.join(dp, f)
            if f.endswith((".c", ".h")) and vendor_dir(os.path.relpath(path, src)):
                text = strip_comments(open(path, errors="replace").read())
                names.update(re.findall(r"^(?:typedef )?struct (axl__\w+) \{", text, re.M))
    return names


def check_vendors(src):
    bad = check_vendor_folders(src)
    rx = {v: re.compile(p, re.I) for v, p in VENDORS.items()}
    private = vendor_structs(src)
    private_rx = re.compile(r"\bstruct (%s)\b" % "|".join(sorted(private))) if private else None
    public = public_names(src)
    ident = re.compile(r"\b(AXL_[A-Z0-9_]+|axl_[a-z0-9_]+)\b")
    for dp, _, fs in os.walk(src):
        for f in sorted(fs):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dp, f)
            rel = os.path.relpath(path, src)
            if rel in VENDOR_TABLES:
                continue
            text = strip_comments(open(path, errors="replace").read())
            if rel.startswith("cli/cmd_"):
                text = strip_cli_tables(text)
            text = CONTRACT_WORDS.sub('""', text)
            text = ident.sub(lambda m: "" if m.group(1) in public else m.group(1), text)
            lines = text.split("\n")
            if vendor_dir(rel):
                continue  # a vendor's own folder (which may name what its runtimes read)
            for v, r in rx.items():
                for i, line in enumerate(lines):
                    if r.search(line):
                        bad.append("src/%s:%d names %s: %s" % (rel, i + 1, v, line.strip()[:90]))
            for i, line in enumerate(lines):
                m = VENDOR_FIELDS.search(line) or (private_rx and private_rx.search(line))
                if m:
                    bad.append("src/%s:%d uses a vendor's private data (%s): %s" %
                               (rel, i + 1, m.group(0), line.strip()[:90]))
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build")
    ap.add_argument("--src")
    ap.add_argument("--case", choices=CASES)
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print(";".join(CASES))
        return 0
    if not a.build or not a.src:
        ap.error("--build and --src are needed")
    layers = load_layers(a.build)
    fails = 0
    for case in [a.case] if a.case else CASES:
        if case == "graph":
            bad = check_graph(layers, a.src)
        elif case == "vendors":
            bad = check_vendors(a.src)
        elif case == "includes":
            bad = check_includes(layers, a.src)
        else:
            bad = check_symbols(layers, a.build)
        for b in bad:
            print("FAIL %s: %s" % (case, b))
        fails += len(bad)
        print("%s: %d layers, %d problems" % (case, len(layers), len(bad)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
