#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Partitions (docs/partitions.md) on simulated nodes, through the axl command.

usage: check_partition.py --list
       check_partition.py --axl AXL --work DIR --case NAME
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SIM = os.path.join(os.path.dirname(os.path.dirname(HERE)), "sim")
H100 = os.path.join(SIM, "h100x2.json")
MIGOFF = os.path.join(SIM, "a100-mig-off.json")


class Ctx:
    def __init__(self, axl, work):
        self.axl = axl
        os.makedirs(work, exist_ok=True)
        self.state = tempfile.mkdtemp(dir=work)
        self.env = dict(os.environ, AXL_STATE_DIR=self.state)

    def run(self, *args, spec=H100, ok=True):
        cmd = [self.axl] + (["--sim", spec] if spec else []) + list(args)
        p = subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=60)
        if ok and p.returncode != 0:
            raise AssertionError("%s: exit %d: %s" % (cmd, p.returncode, p.stderr))
        return p

    def create(self, profile, dev="nvidia:0", ok=True):
        p = self.run("partition", "create", dev, profile, "--json", ok=ok)
        return json.loads(p.stdout) if p.returncode == 0 else p

    def profiles(self, dev="nvidia:0"):
        d = json.loads(self.run("partition", "profiles", dev, "--json").stdout)
        return {p["name"]: p for p in d["profiles"]}


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def case_create_names(c):
    for want, real in (("1g.10gb", "1g.10gb"), ("mig-1g.10gb", "1g.10gb"), ("19", "1g.10gb"),
                       ("mig-1g.7gb", "1g.10gb"), ("15", "1g.20gb")):
        r = c.create(want)
        check(r["profile"] == real, "%s -> %s, not %s" % (want, r["profile"], real))
        check(":" not in r["id"] and "," not in r["id"] and r["id"].startswith("MIG-"), r["id"])
        check("NVIDIA_VISIBLE_DEVICES=" + r["id"] in r["env"], r["env"])
        check(any(n.startswith("/dev/nvidia-caps/") for n in r["device_nodes"]), r["device_nodes"])


def case_fill(c):
    for _ in range(7):
        c.create("1g.10gb")
    p = c.create("1g.10gb", ok=False)
    check(p.returncode == 1 and "no room" in p.stderr, p.stderr)
    check(c.profiles()["1g.10gb"]["free_instances"] == 0, "free_instances")


def case_placements(c):
    for combo, extra in ((["3g.40gb", "4g.40gb"], "1g.10gb"), (["4g.40gb", "3g.40gb"], "1g.10gb"),
                         (["1g.20gb"] * 4, "1g.10gb"), (["2g.20gb"] * 3 + ["1g.10gb"], "1g.10gb"),
                         (["7g.80gb"], "1g.10gb"), (["3g.40gb", "3g.40gb"], "1g.10gb")):
        c.run("partition", "destroy", *[r["id"] for r in json.loads(
            c.run("partition", "list", "--json").stdout)["partitions"]] or ["none"])
        for prof in combo:
            c.create(prof)
        p = c.create(extra, ok=False)
        check(p.returncode == 1 and "no room" in p.stderr, "%s then %s: %s" % (combo, extra, p.stderr))


def case_list_inventory(c):
    before = c.profiles()["1g.10gb"]["free_instances"]
    r = c.create("2g.20gb")
    rows = json.loads(c.run("partition", "list", "--json").stdout)["partitions"]
    # made from the command line: the operator's, with no owner process
    check(len(rows) == 1 and rows[0]["id"] == r["id"] and rows[0]["owner"] == "operator"
          and "owner_pid" not in rows[0], rows)
    check(r["owner"] == "operator" and "owner_pid" not in r, r)
    text = c.run("partition", "list").stdout
    check("operator" in text and "gone" not in text, text)
    inv = json.loads(c.run("list", "--json").stdout)
    check(r["id"] in json.dumps(inv), "child not in the inventory")
    check(c.profiles()["1g.10gb"]["free_instances"] < before, "free_instances did not fall")
    check(c.profiles(dev="nvidia:1")["1g.10gb"]["free_instances"] == 7, "other GPU changed")


def case_destroy(c):
    a, b = c.create("1g.10gb"), c.create("1g.10gb")
    check("removed" in c.run("partition", "destroy", a["id"]).stdout, "destroy by id")
    check("removed" in c.run("partition", "destroy", b["device"]).stdout, "destroy by device id")
    out = c.run("partition", "destroy", a["id"]).stdout
    check("already gone" in out, "second destroy: " + out)
    check("no partitions" in c.run("partition", "list").stdout, "list after destroy")


def workload_record(c, parent, uuid, profile, gi, start, owner="workload"):
    """A record as a workload (a process that used the library and exited) leaves it on a
    simulated node: the instance is the record (docs/partitions.md, State)."""
    p = subprocess.Popen(["true"])
    p.wait()  # its pid: a process that is gone
    path = os.path.join(c.state, "state.json")
    with open(path) as f:
        st = json.load(f)
    rec = {"device": parent, "uuid": "stub-device-%s" % parent[-1], "kind": "mig", "partition": uuid,
           "profile": profile, "pid": p.pid, "created": 1700000000, "gpu_instance": gi, "placement": start}
    if owner:
        rec["owner"] = owner
    st["partitions"].append(rec)
    with open(path + ".tmp", "w") as f:
        json.dump(st, f)
    os.replace(path + ".tmp", path)
    return p.pid


def case_cleanup(c):
    """What the command line made is the operator's: cleanup leaves it (before issue 34 it
    recorded its own exiting process as the owner, and cleanup destroyed it)."""
    made = c.create("1g.10gb")
    out = c.run("partition", "cleanup").stdout
    check("removed 0" in out and "keep" in out and made["id"] in out and "operator" in out, out)
    rows = json.loads(c.run("partition", "list", "--json").stdout)["partitions"]
    check([r["id"] for r in rows] == [made["id"]] and rows[0]["device"], rows)


def case_cleanup_workload(c):
    """A workload's partition whose process is gone goes; the operator's, one whose owner an
    older axl did not record, and a running workload's stay; a record whose partition is
    gone is forgotten. --dry-run says all of it and changes nothing."""
    op = c.create("1g.10gb")
    dead = "MIG-00000000-0000-5000-8000-00000000dead"
    pid = workload_record(c, "nvidia:0", dead, "1g.10gb", 5, 0)
    old = "MIG-00000000-0000-5000-8000-0000000000cd"
    workload_record(c, "nvidia:1", old, "1g.10gb", 3, 0, owner=None)
    gone = "MIG-00000000-0000-5000-8000-00000000aaaa"
    workload_record(c, "nvidia:1", gone, "1g.10gb", 4, 1)
    path = os.path.join(c.state, "state.json")
    with open(path) as f:
        st = json.load(f)
    del st["partitions"][-1]["gpu_instance"], st["partitions"][-1]["placement"]  # not placed: gone
    with open(path + ".tmp", "w") as f:
        json.dump(st, f)
    os.replace(path + ".tmp", path)
    rows = {r["id"]: r for r in json.loads(c.run("partition", "list", "--json").stdout)["partitions"]}
    check(rows[dead]["owner"] == "workload" and rows[dead]["owner_pid"] == pid and not rows[dead]["owner_alive"],
          rows[dead])
    check("owner" not in rows[old] and rows[op["id"]]["owner"] == "operator", rows)
    text = c.run("partition", "list").stdout
    check("pid %d (gone)" % pid in text, text)
    dry = c.run("partition", "cleanup", "--dry-run").stdout
    lines = {ln.split()[1]: ln.split()[0] for ln in dry.splitlines() if ln.startswith(("keep", "destroy", "forget"))}
    check(lines == {op["id"]: "keep", dead: "destroy", old: "keep", gone: "forget"}, dry)
    check("dry run: nothing changed" in dry and "older axl" in dry, dry)
    with open(path) as f:
        check(len(json.load(f)["partitions"]) == 4, "dry run changed the state")
    out = c.run("partition", "cleanup").stdout
    check("destroy " + dead in out and "forget  " + gone in out, out)
    check("removed 1 partition (1 record forgotten, 2 kept)" in out, out)
    left = sorted(r["id"] for r in json.loads(c.run("partition", "list", "--json").stdout)["partitions"])
    check(left == sorted([op["id"], old]), left)
    # destroy names what it removes; --dry-run only names it
    dry = c.run("partition", "destroy", "--dry-run", op["id"]).stdout
    check("would destroy " + op["id"] in dry and "owner operator" in dry and "nothing destroyed" in dry, dry)
    out = c.run("partition", "destroy", op["id"]).stdout
    check(op["id"] + ": removed" in out and "nvidia:0/mig" in out and "1g.10gb" in out, out)


def case_mode_plan(c):
    """A mode switch says what would change and changes nothing without --yes."""
    mi = os.path.join(SIM, "mi300x8.json")
    p = c.run("partition", "mode", "amdgpu:0", "compute", "CPX", spec=mi, ok=False)
    check(p.returncode == 1 and "compute partition mode" in p.stderr and "-> CPX" in p.stderr
          and "--yes" in p.stderr, p.stderr)
    p = c.run("partition", "mode", "amdgpu:0", "compute", "CPX", "--dry-run", spec=mi)
    check("-> CPX" in p.stdout and "dry run: nothing changed" in p.stdout, p.stdout)
    p = c.run("partition", "mode", "amdgpu:0", "compute", "CPX", "--dry-run", "--yes", spec=mi, ok=False)
    check(p.returncode == 2, p.stderr)


def case_mig_off(c):
    p = c.run("partition", "create", "nvidia:0", "1g.10gb", spec=MIGOFF, ok=False)
    check(p.returncode == 1 and "MIG is disabled" in p.stderr, p.stderr)


def case_unknown_profile(c):
    p = c.run("partition", "create", "nvidia:0", "5g.1gb", ok=False)
    check(p.returncode == 1 and "1g.10gb" in p.stderr and "7g.80gb" in p.stderr, p.stderr)


def case_rerooted(c):
    tree = tempfile.mkdtemp(dir=c.state)
    p = c.run("--sysroot", tree, "partition", "create", "nvidia:0", "1g.10gb", spec=None, ok=False)
    check(p.returncode != 0, p.stderr)
    p = c.run("--sysroot", tree, "partition", "cleanup", spec=None, ok=False)
    check(p.returncode == 1 and "re-rooted" in p.stderr, p.stderr)


def case_concurrent(c):
    procs = [subprocess.Popen([c.axl, "--sim", H100, "partition", "create", "nvidia:%d" % (i % 2), "1g.10gb"],
                              env=c.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(12)]
    procs[3].kill()
    for p in procs:
        p.wait()
    made = sum(1 for p in procs if p.returncode == 0)
    with open(os.path.join(c.state, "state.json")) as f:
        st = json.load(f)
    check(len(st["partitions"]) == made or len(st["partitions"]) == made + 1, "%d records, %d made" % (
        len(st["partitions"]), made))
    check(len(st["partitions"]) <= 14, "more than fit")
    rows = json.loads(c.run("partition", "list", "--json").stdout)["partitions"]
    check(len(rows) == len(st["partitions"]) and all(r["device"] for r in rows), rows)


def mig_node_set(nodes, gpu, what, ncaps=2):
    """A MIG device opens through its GPU's /dev/nvidiaN, the driver's control node and
    its two capability nodes (what the NVIDIA container toolkit and Slurm hand out)."""
    check("/dev/nvidia%d" % gpu in nodes, "%s: no /dev/nvidia%d in %s" % (what, gpu, nodes))
    check("/dev/nvidiactl" in nodes, "%s: no /dev/nvidiactl in %s" % (what, nodes))
    others = [n for n in nodes if n.startswith("/dev/nvidia") and n[11:].isdigit() and n != "/dev/nvidia%d" % gpu]
    check(not others, "%s: another GPU's node %s" % (what, others))
    caps = [n for n in nodes if n.startswith("/dev/nvidia-caps/nvidia-cap")]
    check(len(caps) == ncaps, "%s: capability nodes %s" % (what, caps))
    return caps


def node_sets(c, spec, ncaps=2):
    """Every place a MIG device's node set is given agrees: axl partition create, axl
    partition list, the inventory's children, axl cdi generate. ncaps: the capability
    nodes known (none where /proc/driver/nvidia-caps/mig-minors is not there to read)."""
    made = {1: c.run("partition", "create", "nvidia:1", "1g.10gb", "--json", spec=spec)}
    made[0] = c.run("partition", "create", "nvidia:0", "2g.20gb", "--json", spec=spec)
    made = {g: json.loads(p.stdout) for g, p in made.items()}
    caps = {g: mig_node_set(r["device_nodes"], g, "create on nvidia:%d" % g, ncaps) for g, r in made.items()}
    check(not ncaps or not set(caps[0]) & set(caps[1]), "two instances share capability nodes: %s" % caps)
    rows = json.loads(c.run("partition", "list", "--json", spec=spec).stdout)["partitions"]
    for r in rows:
        g = 0 if r["parent"] == "nvidia:0" else 1
        check(mig_node_set(r["device_nodes"], g, "list " + r["id"], ncaps) == caps[g], "list and create differ")
    inv = json.loads(c.run("list", "--json", spec=spec).stdout)
    kids = 0
    for d in inv["devices"]:
        g = int(d["id"].split(":")[1])
        for k in d.get("children", []):
            kids += 1
            check(sorted(mig_node_set(k["device_nodes"], g, "inventory " + k["id"], ncaps)) == sorted(caps[g]),
                  "inventory and create differ")
    check(kids == 2, "children: %d" % kids)
    cdi = json.loads(c.run("cdi", "generate", spec=spec).stdout)
    common = [n["path"] for n in cdi.get("containerEdits", {}).get("deviceNodes", [])]
    for dev in cdi["devices"]:
        if not dev["name"].startswith("MIG-"):
            continue
        nodes = [n["path"] for n in dev["containerEdits"].get("deviceNodes", [])] + common
        g = 0 if dev["name"] == made[0]["id"] else 1
        check(dev["name"] in (made[0]["id"], made[1]["id"]), dev["name"])
        mig_node_set(nodes, g, "cdi " + dev["name"], ncaps)


def case_node_sets_sim(c):
    node_sets(c, H100)


def case_node_sets_nvml(c):
    nvml_env(c)
    node_sets(c, None, 0 if not os.path.exists("/proc/driver/nvidia-caps/mig-minors") else 2)


def nvml_env(c):
    """The live system with NVML answered by the test double (tests/vendorlib/nvml/double): MIG on,
    its instances kept in a file so that one axl process sees what another made."""
    if not c.double:
        raise AssertionError("--double is needed")
    xml = os.path.join(os.path.dirname(os.path.dirname(HERE)), "vendorlib", "nvml", "double", "fixtures", "hgx-8x-h100-q2x.xml")
    c.env.update(AXL_NVML_LIBRARY=c.double, AXL_NVML_DOUBLE_XML=xml, AXL_NVML_DOUBLE_MIG="1",
                 AXL_NVML_DOUBLE_STATE=os.path.join(c.state, "double.json"))


def case_nvml_live(c):
    """Real MIG control (the NVML path, not the simulation) from the command line."""
    nvml_env(c)
    a = c.run("partition", "create", "nvidia:0", "mig-1g.7gb", "--json", spec=None)
    a = json.loads(a.stdout)
    check(a["profile"] == "1g.10gb" and a["profile_id"] == 19 and a["id"].startswith("MIG-"), a)
    check(":" not in a["id"] and "," not in a["id"], a["id"])
    check("/dev/nvidia0" in a["device_nodes"] and "/dev/nvidiactl" in a["device_nodes"], a["device_nodes"])
    b = json.loads(c.run("partition", "create", "nvidia:1", "3g.40gb", "--json", spec=None).stdout)
    rows = json.loads(c.run("partition", "list", "--json", spec=None).stdout)["partitions"]
    check(sorted(r["id"] for r in rows) == sorted([a["id"], b["id"]]), rows)
    check(all(r["source"] == "nvml" and r["owner"] == "operator" and "owner_pid" not in r for r in rows), rows)
    inv = json.loads(c.run("list", "--json", "--all", spec=None).stdout)
    kids = [k for d in inv["devices"] for k in d.get("children", []) if k.get("uuid") == a["id"]]
    check(len(kids) == 1 and kids[0]["id"].startswith("nvidia:0/mig"), kids)
    # in use: refused, and the instance stays
    c.env["AXL_NVML_DOUBLE_BUSY"] = "1"
    p = c.run("partition", "destroy", a["id"], spec=None, ok=False)
    check(p.returncode == 1 and "in use" in p.stderr.lower(), p.stderr)
    del c.env["AXL_NVML_DOUBLE_BUSY"]
    c.run("partition", "destroy", "--device", "nvidia:0", a["id"], spec=None)
    p = c.run("partition", "destroy", a["id"], spec=None)  # gone: still a success
    # the other one is the operator's: cleanup leaves it on the GPU, destroy takes it
    p = c.run("partition", "cleanup", spec=None)
    check("removed 0" in p.stdout and "keep    " + b["id"] in p.stdout, p.stdout)
    rows = json.loads(c.run("partition", "list", "--json", spec=None).stdout)["partitions"]
    check([r["id"] for r in rows] == [b["id"]], rows)
    c.run("partition", "destroy", b["id"], spec=None)
    rows = json.loads(c.run("partition", "list", "--json", spec=None).stdout)["partitions"]
    check(rows == [], rows)
    with open(os.path.join(c.state, "state.json")) as f:
        check(json.load(f)["partitions"] == [], "records left")
    # MIG off on the real path: not supported, nothing recorded
    c.env["AXL_NVML_DOUBLE_MIG"] = "0"
    p = c.run("partition", "create", "nvidia:0", "1g.10gb", spec=None, ok=False)
    check(p.returncode == 1 and "MIG is disabled" in p.stderr, p.stderr)


CASES = {k[5:]: v for k, v in globals().items() if k.startswith("case_")}


def main():
    if sys.argv[1:] == ["--list"]:
        print(";".join(sorted(CASES)))
        return 0
    args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
    c = Ctx(args["--axl"], args["--work"])
    c.double = args.get("--double")
    CASES[args["--case"]](c)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
