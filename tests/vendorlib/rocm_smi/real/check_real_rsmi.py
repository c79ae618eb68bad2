#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The vendor's own ROCm SMI as ground truth for axl's AMD trees.

For every AMD tree of tests/trees/nodes (a node spec with a function bound to amdgpu), the
tree is built with mktree.py and mounted over /sys in a private mount namespace, where
three readers meet:

  1. the real library: Debian's librocm_smi64 (librocm-smi64-1, ROCm SMI 5.2.3), asked by
     probe_rsmi.c through the vendor's own header (librocm-smi-dev);
  2. axl's sysfs reading of the same tree: axl list --json --sysroot TREE, ROCm SMI off;
  3. axl's ROCm SMI path against the real library in the same namespace: the answers axl's
     own calls got (axl capture records them: axl-capture/rocm-smi.jsonl), and axl list with
     the library, whose document must keep every sysfs value.

Per GPU, matched by PCI address: vendor, device and subsystem ids, the PCI address (BDF id),
VRAM total and used, the power cap, edge, junction and memory temperatures, the current
system and memory clocks; and per tree the number of GPUs. A value one reader has and
another lacks is a failure; a value nobody has (an APU's power cap) is agreement on
"unknown", counted apart. axl's ROCm SMI path asks neither temperatures (axl reads them
from hwmon) nor subsystem ids, so those meet the library through sysfs only.

Known limitations of ROCm SMI 5.2.3 are checked, not skipped:
  - the MI300X trees: gc 9.4.3 has no vddgfx sensor (the kernel hides in0_input/in0_label:
    amdgpu_pm.c hwmon_attributes_visible), and ROCm SMI 5.2.3's rsmi_init looks up in0's
    label unconditionally (rocm_smi_monitor.cc Monitor::setVoltSensorLabelMap:
    kVoltSensorNameMap.at("") throws std::out_of_range), so rsmi_init fails with
    RSMI_STATUS_INIT_ERROR. The test requires that the tree has no in0_label (the kernel's
    layout), that rsmi_init fails, that adding in0_label alone makes it succeed with every
    GPU counted, and that axl with the library lists every GPU from sysfs with one warning.
  - dpm-off (tenstorrent-host's APU as amdgpu leaves it with DPM off: no hwmon directory
    and no pp_dpm_* files, amdgpu_pm_sysfs_init): ROCm SMI 5.2.3 asserts
    dev->monitor() != nullptr (rocm_smi.cc get_dev_mon_value, rsmi_dev_temp_metric_get) and
    aborts its process; axl with the library must not ask, and list the GPU.

Without root and unshare (a private mount namespace) the tests skip: ROCm SMI 5.2.3 has no
root override to fall back to (see skip_reason()).

  check_real_rsmi.py --axl build/axl --probe build/tests/.../probe_rsmi \\
      --library /usr/lib/librocm_smi64.so --work build/rocm_smi_real --case mi210-4x-xgmi
Prints every comparison that failed, then "N fields compared ...".
"""
import argparse
import glob
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
NODES = os.path.join(TOP, "tests", "trees", "nodes")
MKTREE = os.path.join(TOP, "tests", "trees", "mktree.py")

SKIP = 77
RSMI_STATUS_SUCCESS = 0
RSMI_STATUS_INIT_ERROR = 8
RSMI_MEM_TYPE_VRAM = 0
RSMI_CLK_TYPE_SYS, RSMI_CLK_TYPE_MEM = 0, 4
RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_TYPE_JUNCTION, RSMI_TEMP_TYPE_MEMORY = 0, 1, 2

KERNEL_IN0 = ("linux drivers/gpu/drm/amd/pm/amdgpu_pm.c, hwmon_attributes_visible(): "
              "if ((adev->family == AMDGPU_FAMILY_SI || adev->family == AMDGPU_FAMILY_KV || "
              "(gc_ver == IP_VERSION(9, 4, 3))) && (attr == &sensor_dev_attr_in0_input.dev_attr.attr || "
              "attr == &sensor_dev_attr_in0_label.dev_attr.attr)) return 0;  (MI300X is GC 9.4.3; "
              "torvalds/linux 0127ab1bdc61909b0338b00f2737f5fe3860e322, and with 9.4.4 added since)")
RSMI_IN0 = ("ROCm/rocm_smi_lib rocm-5.2.3 src/rocm_smi_monitor.cc, Monitor::setVoltSensorLabelMap(): "
            "ret = readMonitor(kMonVoltLabel, 0, &type_str); t_type = kVoltSensorNameMap.at(type_str); "
            "(called by RocmSMI::FindMonitor at rsmi_init; an absent in0_label leaves type_str empty and .at() "
            "throws std::out_of_range, which rsmi_init returns as RSMI_STATUS_INIT_ERROR)")
RSMI_MONITOR = ("ROCm/rocm_smi_lib rocm-5.2.3 src/rocm_smi.cc: get_dev_mon_value() and rsmi_dev_temp_metric_get() "
                "assert(dev->monitor() != nullptr)")

passed = failed = 0
counts = {"sysfs": 0, "path": 0, "unknown": 0, "count": 0}


def ok(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)
    return cond


class Skip(Exception):
    pass


# ---- the trees ------------------------------------------------------------------------------

def load_spec(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def amdgpu_functions(spec):
    """The PCI functions of a node spec bound to amdgpu."""
    tmpl = spec.get("templates", {})
    out = []

    def walk(devs):
        for d in devs:
            drv = d.get("driver", tmpl.get(d.get("use"), {}).get("driver"))
            if drv == "amdgpu":
                out.append(d)
            walk(d.get("children", []))
    for r in spec.get("pci", []):
        walk(r.get("devices", []))
    return out


def amd_trees():
    names = []
    for p in sorted(glob.glob(os.path.join(NODES, "*.json")) + glob.glob(os.path.join(NODES, "*.json.gz"))):
        if p.endswith(".expect.json"):
            continue
        if amdgpu_functions(load_spec(p)):
            names.append(os.path.basename(p).split(".json")[0])
    return names


def spec_path(name):
    for ext in (".json", ".json.gz"):
        p = os.path.join(NODES, name + ext)
        if os.path.exists(p):
            return p
    raise SystemExit("no spec " + name)


def build(name, work, out=None):
    root = os.path.join(work, out or name)
    subprocess.run([sys.executable, MKTREE, spec_path(name), root], check=True, stdout=subprocess.DEVNULL)
    return root


def amdgpu_hwmons(root):
    """The hwmon directories ROCm SMI takes for an amdgpu GPU's (name amdgpu)."""
    out = []
    for dev in glob.glob(os.path.join(root, "sys", "bus", "pci", "drivers", "amdgpu", "*:*")):
        for h in glob.glob(os.path.join(dev, "hwmon", "hwmon*")):
            try:
                name = open(os.path.join(h, "name")).read().split()
            except OSError:
                continue
            if name and name[0] in ("amdgpu", "radeon"):
                out.append(os.path.realpath(h))
    return out


# ---- running things -------------------------------------------------------------------------

def clean_env(**more):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AXL_") and not k.startswith("RSMI_")}
    # under the sanitizers (build-asan): a leak's allocation stack unwound through libc into
    # the library, so that tests/lsan-vendor-libs.supp can tell the library's own leaks
    # (the fast unwinder stops in libc, built without frame pointers)
    env["ASAN_OPTIONS"] = (env["ASAN_OPTIONS"] + ":" if env.get("ASAN_OPTIONS") else "") + "fast_unwind_on_malloc=0"
    env.update(more)
    return env


def ns_run(root, argv, env=None, timeout=120):
    """argv in a private mount namespace whose /sys is the tree's, with a /dev/shm of its
    own (the library prints what it read to standard error, bytes and all: decoded with
    replacement): ROCm SMI keeps a process-shared mutex per card there (/dev/shm/rocm_smi_cardN,
    rocm_smi_device.cc and shared_mutex.cc), which a process that aborts leaves locked, so
    that every later rsmi_init on that card waits 5 s and fails; nor may a test touch the
    host's."""
    script = 'mount --bind "$0/sys" /sys && mount -t tmpfs -o mode=1777 axl-real-rsmi /dev/shm && exec "$@"'
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, root] + list(argv),
                          env=env if env is not None else clean_env(), capture_output=True, text=True,
                          errors="replace", timeout=timeout)


def skip_reason(root):
    """Why this machine cannot run the library on a tree, or None."""
    why = None
    if os.geteuid() != 0:
        why = "not root: a private mount namespace over /sys needs CAP_SYS_ADMIN"
    elif not shutil.which("unshare") or not shutil.which("mount"):
        why = "no unshare(1)/mount(8)"
    else:
        marker = os.path.join(root, "sys", ".axl-real-rsmi")
        open(marker, "w").close()
        p = ns_run(root, ["test", "-e", "/sys/.axl-real-rsmi"])
        os.unlink(marker)
        if p.returncode != 0:
            why = "no private mount namespace here (unshare -m; mount --bind TREE/sys /sys): %s" % (
                p.stderr.strip()[-200:] or "exit %d" % p.returncode)
    if why:
        why += ("; and ROCm SMI 5.2.3 has no root override to use instead: its RSMI_DEBUG_DRM_ROOT_OVERRIDE, "
                "_HWMON_ and _PP_ROOT_OVERRIDE are read only in DEBUG builds (rocm_smi_main.cc "
                "RocmSMI::GetEnvVariables) and replace the path of one sysfs file, the one "
                "RSMI_DEBUG_ENUM_OVERRIDE names (rocm_smi_device.cc Device::readDevInfoStr), while "
                "/sys/class/drm, the hwmon directories and the KFD topology are fixed paths (kPathDRMRoot, "
                "kKFDNodesPathRoot)")
    return why


def probe(args, root, *more):
    """The library's answers: {(f, d, a): record}, the records in order, and how it ended."""
    p = ns_run(root, [args.probe, args.library] + list(more))
    recs = []
    for line in p.stdout.splitlines():
        try:
            recs.append(json.loads(line))
        except ValueError:
            ok(False, "probe_rsmi wrote %r" % line)
    if p.returncode == 2:
        raise SystemExit("probe_rsmi could not use %s: %s" % (args.library, p.stderr.strip()))
    by = {(r["f"], r.get("d", -1), r.get("a", -1)): r for r in recs}
    return by, recs, p


def axl_list(args, root, lib=False, namespace=False):
    env = clean_env(AXL_ROCM_SMI_LIBRARY=args.library) if lib else clean_env(AXL_BACKENDS="-rocm-smi")
    argv = [args.axl, "list", "--json", "--sysroot", root]
    p = ns_run(root, argv, env) if namespace else subprocess.run(argv, env=env, capture_output=True, text=True,
                                                                   timeout=120)
    doc = json.loads(p.stdout) if p.returncode == 0 and p.stdout.strip() else None
    return p, doc


def axl_rsmi_answers(args, root, tag):
    """What axl's own ROCm SMI calls got from the library: the capture's records,
    {(f, d, a): record}, and rsmi_init's."""
    cap = os.path.join(args.work, tag + ".capture.tar.gz")
    if os.path.exists(cap):
        os.unlink(cap)
    p = ns_run(root, [args.axl, "capture", "-o", cap, "--sysroot", root], clean_env(AXL_ROCM_SMI_LIBRARY=args.library))
    if not ok(p.returncode == 0, "%s: axl capture with the real library: exit %d (%s)" % (tag, p.returncode,
                                                                                          p.stderr[-400:])):
        return {}, None
    by = {}
    with tarfile.open(cap) as t:
        names = [n for n in t.getnames() if n.endswith("axl-capture/rocm-smi.jsonl")]
        if not ok(len(names) == 1, "%s: the capture holds axl's ROCm SMI answers (%s)" % (tag, names)):
            return {}, None
        for line in t.extractfile(names[0]).read().decode().splitlines():
            r = json.loads(line)
            a = r.get("a")
            by[(r["f"], int(r["d"]) if "d" in r else -1, a[0] if a else -1)] = r
    init = by.get(("rsmi_init", -1, -1), {}).get("r")
    return by, init


def bdf_address(v):
    return "%04x:%02x:%02x.%x" % ((v >> 32) & 0xffffffff, (v >> 8) & 0xff, (v >> 3) & 0x1f, v & 7)


def gpus(doc):
    return {d["pci"]["address"]: d for d in doc["devices"]
            if d.get("driver", {}).get("name") == "amdgpu" and d.get("vendor_id") == "0x1002"
            and d.get("family") == "gpu" and d.get("pci", {}).get("address")}


def get(d, dotted):
    for k in dotted.split("."):
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


# ---- the fields ---------------------------------------------------------------------------------

def hexint(s):
    return int(s, 16) if isinstance(s, str) else None


def scaled(factor):
    return lambda v: None if v is None else int(round(v * factor))


def freq_now(o):
    """A clock table axl recorded: the current level's Hz."""
    if not isinstance(o, dict) or not isinstance(o.get("frequency"), list):
        return None
    cur, n = o.get("current"), o.get("num_supported")
    if cur is None or n is None or not 0 <= cur < min(n, len(o["frequency"])):
        return None
    return o["frequency"][cur]


# name, the library's call (f, a), axl's sysfs key and its conversion to the library's unit,
# axl's ROCm SMI call (f, a) and its conversion (None: axl does not ask)
FIELDS = [
    ("vendor id", ("rsmi_dev_vendor_id_get", -1), "vendor_id", hexint, ("rsmi_dev_vendor_id_get", -1), None),
    ("device id", ("rsmi_dev_id_get", -1), "device_id", hexint, ("rsmi_dev_id_get", -1), None),
    ("subsystem vendor id", ("rsmi_dev_subsystem_vendor_id_get", -1), "subsystem_vendor_id", hexint, None, None),
    ("subsystem id", ("rsmi_dev_subsystem_id_get", -1), "subsystem_device_id", hexint, None, None),
    ("VRAM total", ("rsmi_dev_memory_total_get", RSMI_MEM_TYPE_VRAM), "memory.total_bytes", None,
     ("rsmi_dev_memory_total_get", RSMI_MEM_TYPE_VRAM), None),
    ("VRAM used", ("rsmi_dev_memory_usage_get", RSMI_MEM_TYPE_VRAM), "memory.used_bytes", None,
     ("rsmi_dev_memory_usage_get", RSMI_MEM_TYPE_VRAM), None),
    ("power cap (uW)", ("rsmi_dev_power_cap_get", 0), "power.limit_watts", scaled(1e6),
     ("rsmi_dev_power_cap_get", 0), None),
    ("edge temperature (m°C)", ("rsmi_dev_temp_metric_get", RSMI_TEMP_TYPE_EDGE), "temperature.celsius",
     scaled(1000), None, None),
    ("junction temperature (m°C)", ("rsmi_dev_temp_metric_get", RSMI_TEMP_TYPE_JUNCTION),
     "temperature.hotspot_celsius", scaled(1000), None, None),
    ("memory temperature (m°C)", ("rsmi_dev_temp_metric_get", RSMI_TEMP_TYPE_MEMORY), "temperature.memory_celsius",
     scaled(1000), None, None),
    ("current sclk (Hz)", ("rsmi_dev_gpu_clk_freq_get", RSMI_CLK_TYPE_SYS), "clocks.graphics_mhz", scaled(1e6),
     ("rsmi_dev_gpu_clk_freq_get", RSMI_CLK_TYPE_SYS), freq_now),
    ("current mclk (Hz)", ("rsmi_dev_gpu_clk_freq_get", RSMI_CLK_TYPE_MEM), "clocks.memory_mhz", scaled(1e6),
     ("rsmi_dev_gpu_clk_freq_get", RSMI_CLK_TYPE_MEM), freq_now),
]


def meet(tag, what, a_name, a, b_name, b, kind):
    """Two readers' values of one field: equal, or both unknown."""
    if a is None and b is None:
        counts["unknown"] += 1
        return ok(True, "")
    if ok(a is not None and b is not None and a == b,
          "%s %s: %s says %r, %s says %r" % (tag, what, a_name, a, b_name, b)):
        counts[kind] += 1
        return True
    return False


def compare(tag, lib, doc, path):
    """Every field of every GPU: the library against axl's sysfs reading and axl's ROCm SMI path."""
    sysfs = gpus(doc)
    n = lib.get(("rsmi_num_monitor_devices", -1, -1), {}).get("v")
    meet(tag, "number of GPUs", "the real ROCm SMI", n, "axl's sysfs reading", len(sysfs), "count")
    pn = path.get(("rsmi_num_monitor_devices", -1, -1), {})
    meet(tag, "number of GPUs", "the real ROCm SMI", n, "axl's ROCm SMI path",
         pn.get("o") if pn.get("r") == RSMI_STATUS_SUCCESS else None, "count")
    # axl's ROCm SMI indices by PCI address
    path_index = {}
    for (f, d, a), r in path.items():
        if f == "rsmi_dev_pci_id_get" and r.get("r") == RSMI_STATUS_SUCCESS:
            path_index[bdf_address(hexint(r["o"]))] = d
    for i in range(n or 0):
        r = lib.get(("rsmi_dev_pci_id_get", i, -1), {})
        if not ok(r.get("rc") == RSMI_STATUS_SUCCESS, "%s GPU %d: rsmi_dev_pci_id_get %r" % (tag, i, r)):
            continue
        addr = bdf_address(r["v"])
        t = "%s %s" % (tag, addr)
        counts["sysfs"] += 1 if ok(addr in sysfs, "%s: the real ROCm SMI's GPU %d is not in axl's sysfs reading (%s)"
                                   % (t, i, sorted(sysfs))) else 0
        counts["path"] += 1 if ok(addr in path_index, "%s: axl's ROCm SMI path has no GPU at that address" % t) else 0
        dev = sysfs.get(addr, {})
        pd = path_index.get(addr)
        for name, (lf, la), key, conv, pcall, pconv in FIELDS:
            rec = lib.get((lf, i, la))
            if not ok(rec is not None, "%s %s: the real ROCm SMI was not asked (it stopped before)" % (t, name)):
                continue
            lv = rec.get("v") if rec.get("rc") == RSMI_STATUS_SUCCESS else None
            sv = get(dev, key)
            sv = conv(sv) if conv and sv is not None else sv
            meet(t, name, "the real ROCm SMI (rc %d)" % rec["rc"], lv, "axl's sysfs reading (%s)" % key, sv, "sysfs")
            if pcall is None:
                continue
            pr = path.get((pcall[0], pd, pcall[1])) if pd is not None else None
            pv = None
            if pr is not None and pr.get("r") == RSMI_STATUS_SUCCESS:
                pv = pconv(pr.get("o")) if pconv else pr.get("o")
                if isinstance(pv, str):
                    pv = hexint(pv)
            meet(t, name, "the real ROCm SMI (rc %d)" % rec["rc"], lv,
                 "axl's ROCm SMI path (%s)" % ("not asked" if pr is None else "r %s" % pr.get("r")), pv, "path")


def flatten(d, pre=""):
    out = {}
    for k, v in d.items():
        if k in ("sources", "field_sources"):
            continue
        if isinstance(v, dict):
            out.update(flatten(v, pre + k + "."))
        else:
            out[pre + k] = v
    return out


def keeps_sysfs(tag, base, merged, allow_warning=None):
    """axl list with the real library keeps every value of the sysfs reading, and what it
    adds comes from ROCm SMI."""
    bd, md = {d["id"]: d for d in base["devices"]}, {d["id"]: d for d in merged["devices"]}
    ok(sorted(bd) == sorted(md), "%s: devices with the library %s, without %s" % (tag, sorted(md), sorted(bd)))
    added = set()
    for did, b in bd.items():
        m = md.get(did)
        if m is None:
            continue
        fb, fm = flatten(b), flatten(m)
        for k, v in fb.items():
            ok(fm.get(k) == v, "%s %s: %s is %r with the real library, %r from sysfs" % (tag, did, k, fm.get(k), v))
        for k in sorted(set(fm) - set(fb)):
            src = m.get("field_sources", {}).get(k)
            ok(src == "rocm-smi", "%s %s: %s added with source %r" % (tag, did, k, src))
            added.add(k)
            if k == "driver.version":
                # the in-tree driver has no module version: ROCm SMI answers the running
                # kernel's release (rocm_smi.cc rsmi_version_str_get: uname), this machine's
                ok(fm[k] == os.uname().release, "%s %s: driver.version %r, not uname's %r" % (
                    tag, did, fm[k], os.uname().release))
    want = [w["message"] for w in base.get("warnings", [])]
    got = [w["message"] for w in merged.get("warnings", [])]
    extra = [w for w in got if w not in want]
    if allow_warning:
        ok(extra == [allow_warning], "%s: warnings with the library %r, want only %r" % (tag, extra, allow_warning))
    else:
        ok(extra == [], "%s: warnings with the library %r" % (tag, extra))
    if added:
        print("%s: with the real library axl adds %s (source rocm-smi)" % (tag, ", ".join(sorted(added))))


# ---- the cases ----------------------------------------------------------------------------------

def case_tree(args, name):
    root = build(name, args.work)
    why = skip_reason(root)
    if why:
        raise Skip(why)
    _, base = axl_list(args, root)
    if not ok(base is not None, "%s: axl list from sysfs failed" % name):
        return
    lib, recs, p = probe(args, root)
    init = lib.get(("rsmi_init", -1, -1), {}).get("rc")
    ok(p.returncode == 0, "%s: probe_rsmi ended with %s after %s (stderr %s)" % (
        name, describe(p.returncode), recs[-1:] if recs else "nothing", p.stderr.strip()[-300:]))
    path, path_init = axl_rsmi_answers(args, root, name)
    pm, merged = axl_list(args, root, lib=True, namespace=True)
    ok(pm.returncode == 0, "%s: axl list with the real library: exit %s (%s)" % (name, describe(pm.returncode),
                                                                                  pm.stderr[-300:]))
    if init != RSMI_STATUS_SUCCESS:
        known_in0(args, name, root, init, path_init, base, merged)
        return
    ok(path_init == RSMI_STATUS_SUCCESS, "%s: axl's rsmi_init %r, the probe's %r" % (name, path_init, init))
    compare(name, lib, base, path)
    if merged is not None:
        keeps_sysfs(name, base, merged)


def describe(rc):
    if rc is None:
        return "?"
    if rc < 0:
        try:
            return "signal %s" % signal.Signals(-rc).name
        except ValueError:
            return "signal %d" % -rc
    return "exit %d" % rc


def known_in0(args, name, root, init, path_init, base, merged):
    """rsmi_init failed: only the MI300-class layout (no in0_label) may explain it."""
    hw = amdgpu_hwmons(root)
    no_in0 = [h for h in hw if not os.path.exists(os.path.join(h, "in0_label"))]
    if not ok(init == RSMI_STATUS_INIT_ERROR and hw and len(no_in0) == len(hw),
              "%s: rsmi_init %r, and the tree's amdgpu hwmon directories without in0_label: %d of %d" % (
                  name, init, len(no_in0), len(hw))):
        return
    ok(path_init == init, "%s: axl's rsmi_init %r, the probe's %r" % (name, path_init, init))
    n = len(gpus(base))
    if merged is not None:
        keeps_sysfs(name, base, merged, allow_warning="rsmi_init: RSMI_STATUS_INIT_ERROR (%d)" % init)
    # the one file 5.2.3 needs: with in0_label added (and nothing else), it reads the tree
    for h in hw:
        with open(os.path.join(h, "in0_label"), "w") as f:
            f.write("vddgfx\n")
    lib, _, _ = probe(args, root)
    if not ok(lib.get(("rsmi_init", -1, -1), {}).get("rc") == RSMI_STATUS_SUCCESS and
              lib.get(("rsmi_num_monitor_devices", -1, -1), {}).get("v") == n,
              "%s: with in0_label 'vddgfx' added rsmi_init gives %r" % (name, list(lib.values())[:3])):
        return
    # and then every field agrees, as on the trees 5.2.3 reads whole: the rest of the MI300
    # layout is one the library and axl read alike
    tag = name + " (in0_label added)"
    path, path_init = axl_rsmi_answers(args, root, tag)
    ok(path_init == RSMI_STATUS_SUCCESS, "%s: axl's rsmi_init %r" % (tag, path_init))
    compare(tag, lib, base, path)
    print("KNOWN LIMITATION %s: ROCm SMI 5.2.3 cannot read this layout: rsmi_init = RSMI_STATUS_INIT_ERROR, "
          "because its %d GPUs' hwmon has no in0_label, as the kernel writes it for MI300 (%s). 5.2.3 requires "
          "it (%s); with in0_label added it reads all %d GPUs. axl lists them from sysfs with one warning."
          % (name, n, KERNEL_IN0, RSMI_IN0, n))


def case_dpm_off(args):
    """tenstorrent-host's APU as amdgpu leaves it with DPM off: no hwmon, no pp_dpm_*."""
    name = "tenstorrent-host"
    root = build(name, args.work, "dpm-off")
    why = skip_reason(root)
    if why:
        raise Skip(why)
    hw = amdgpu_hwmons(root)
    ok(len(hw) == 1, "dpm-off: %s has %d amdgpu hwmon directories, want 1" % (name, len(hw)))
    for h in hw:
        shutil.rmtree(h)
        for link in glob.glob(os.path.join(root, "sys", "class", "hwmon", "*")):
            if not os.path.exists(link):
                os.unlink(link)
    for dev in glob.glob(os.path.join(root, "sys", "bus", "pci", "drivers", "amdgpu", "*:*")):
        for f in ("pp_dpm_sclk", "pp_dpm_mclk", "gpu_busy_percent"):
            if os.path.exists(os.path.join(dev, f)):
                os.unlink(os.path.join(dev, f))
    _, base = axl_list(args, root)
    lib, recs, p = probe(args, root)
    if p.returncode == -signal.SIGABRT:
        last = recs[-1] if recs else None
        print("KNOWN LIMITATION dpm-off: ROCm SMI 5.2.3 aborts its process on a GPU without hwmon (%s); "
              "its last answer before the abort: %s" % (RSMI_MONITOR, json.dumps(last)))
    else:
        ok(p.returncode == 0, "dpm-off: probe_rsmi ended with %s" % describe(p.returncode))
    # what it said before it stopped agrees with sysfs
    dev = list(gpus(base).values())
    n = lib.get(("rsmi_num_monitor_devices", -1, -1), {}).get("v")
    meet("dpm-off", "number of GPUs", "the real ROCm SMI", n, "axl's sysfs reading", len(dev), "count")
    for name_, (lf, la), key, conv, _, _ in FIELDS:
        rec = lib.get((lf, 0, la))
        if rec is None or not dev:
            continue
        sv = get(dev[0], key)
        meet("dpm-off", name_, "the real ROCm SMI", rec.get("v") if rec.get("rc") == 0 else None,
             "axl's sysfs reading", conv(sv) if conv and sv is not None else sv, "sysfs")
    # axl with the library: no abort, the GPU listed, no power call
    path, init = axl_rsmi_answers(args, root, "dpm-off")
    ok(init == RSMI_STATUS_SUCCESS, "dpm-off: axl's rsmi_init %r" % init)
    asked = sorted(f for (f, d, a) in path if f.startswith("rsmi_dev_power_cap"))
    ok(asked == [], "dpm-off: axl asked %s of a GPU without hwmon" % asked)
    pm, merged = axl_list(args, root, lib=True, namespace=True)
    if ok(pm.returncode == 0 and merged is not None,
          "dpm-off: axl list with the real library: %s (%s)" % (describe(pm.returncode), pm.stderr[-300:])):
        keeps_sysfs("dpm-off", base, merged)
        ok(len(gpus(merged)) == 1, "dpm-off: the GPU listed")


def all_cases():
    return amd_trees() + ["dpm-off"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--probe", default="")
    ap.add_argument("--library", default="")
    ap.add_argument("--work", default="build/rocm_smi_real")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        print(";".join(all_cases()))
        return 0
    if not args.probe or not args.library:
        print("SKIP: the real ROCm SMI is not installed: no rocm_smi/rocm_smi.h and librocm_smi64.so at configure "
              "time (Debian: apt-get install librocm-smi-dev, which brings librocm-smi64-1; then re-run cmake)")
        return SKIP
    args.library = os.path.realpath(args.library)
    if not os.path.exists(args.library):
        print("SKIP: %s is gone (uninstalled since cmake ran)" % args.library)
        return SKIP
    args.work = os.path.join(os.path.abspath(args.work), args.case or "all")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    try:
        for c in [args.case] if args.case else all_cases():
            if c == "dpm-off":
                case_dpm_off(args)
            else:
                case_tree(args, c)
    except Skip as e:
        print("SKIP: " + str(e))
        return SKIP
    print("library: %s" % args.library)
    print("%d fields compared: %d real ROCm SMI = axl's sysfs reading, %d real ROCm SMI = axl's ROCm SMI path, "
          "%d GPU counts; %d more agreed unknown by both" % (
              counts["sysfs"] + counts["path"] + counts["count"], counts["sysfs"], counts["path"], counts["count"],
              counts["unknown"]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
