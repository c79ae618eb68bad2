#!/usr/bin/env python3
"""deploy/systemd: the units verified by systemd and checked for what they promise.

 - `systemd-analyze verify` on every unit (with /usr/bin/axl pointed at the built axl)
   prints nothing: no unknown key, no bad value, no missing command;
 - the sandbox: ProtectSystem=strict, ProtectHome, PrivateTmp, NoNewPrivileges, an empty
   capability set, a closed device policy allowing the accelerators' device classes,
   not PrivateDevices (it would hide them), nothing that hides sysfs; axl-serve.service
   as a dynamic user; the writers' ReadWritePaths are exactly the folders they write;
 - every ExecStart is an axl command whose options `axl help CMD` lists (`axl agent`'s
   from docs/deploy.md until the built axl has it), and the writers' commands, run with
   their folders moved into a temporary directory on a simulated node, write the NFD
   feature file and the CDI specs; axl-serve's command answers /healthz and /metrics;
 - the units that load vendor libraries or write CDI specs (agent, refresh, device
   plugin) name the driver root (AXL_DRIVER_ROOT, AXL_DRIVER_ROOT_HOST: the host's own
   root), and their writers run with that environment;
 - 70-axl.rules: each rule is KEY==/+= pairs udev knows, starts axl-refresh.service
   (a unit that exists) on add/bind through SYSTEMD_WANTS with TAG+="systemd", and on
   remove/unbind through `systemctl --no-block`.

usage: check_units.py --axl BIN --work DIR
"""

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
UDIR = os.path.join(TOP, "deploy", "systemd")
SIM = os.path.join(TOP, "tests", "sim", "h100x8-nvswitch.json")
AGENT_OPTIONS = {"--listen", "--labels-file", "--cdi-dir", "--cdi-format", "--interval"}
UNITS = ("axl-serve.service", "axl-refresh.service", "axl-agent.service", "axl-device-plugin.service")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)
    return cond


def parse_unit(path):
    """{section: {key: [values...]}} (keys may repeat)"""
    out, sec = {}, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                sec = out.setdefault(line.strip("[]"), {})
                continue
            k, v = line.split("=", 1)
            sec.setdefault(k.strip(), []).append(v.strip())
    return out


def help_options(axl, cmd):
    r = subprocess.run([axl, "help", cmd.split()[0]], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return set(re.findall(r"(?<![\w-])(-o|--[a-z][a-z0-9-]*)", r.stdout))


def split_cmd(argv):
    """axl argv -> (command words, {option: value})"""
    words = []
    i = 1
    while i < len(argv) and not argv[i].startswith("-"):
        words.append(argv[i])
        i += 1
    opts = {}
    while i < len(argv):
        opts[argv[i]] = argv[i + 1] if i + 1 < len(argv) else None
        i += 2
    return " ".join(words), opts


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    axl = os.path.abspath(a.axl)
    if os.path.isdir(a.work):
        shutil.rmtree(a.work)
    os.makedirs(a.work)

    # systemd's own verdict
    sa = shutil.which("systemd-analyze")
    if check(sa is not None, "systemd-analyze missing (Debian's systemd package; scripts/deps.sh --test)"):
        vdir = os.path.join(a.work, "verify")
        os.makedirs(vdir)
        for u in UNITS:
            with open(os.path.join(UDIR, u)) as f:
                text = f.read().replace("/usr/bin/axl", axl)
            with open(os.path.join(vdir, u), "w") as f:
                f.write(text)
        r = subprocess.run([sa, "verify", "--man=no"] + [os.path.join(vdir, u) for u in UNITS],
                           capture_output=True, text=True, cwd=vdir)
        out = (r.stdout + r.stderr).strip()
        check(r.returncode == 0 and not out, "systemd-analyze verify: exit %d\n%s" % (r.returncode, out))

    units = {u: parse_unit(os.path.join(UDIR, u)) for u in UNITS}
    for u, d in units.items():
        s = d.get("Service", {})
        one = lambda k: (s.get(k) or [None])[-1]  # noqa: E731
        for k, v in (("ProtectSystem", "strict"), ("ProtectHome", "yes"), ("PrivateTmp", "yes"),
                     ("NoNewPrivileges", "yes"), ("DevicePolicy", "closed"), ("ProtectKernelTunables", "yes"),
                     ("ProtectKernelModules", "yes"), ("RestrictSUIDSGID", "yes")):
            check(one(k) == v, "%s: %s=%r, want %s" % (u, k, one(k), v))
        check(one("CapabilityBoundingSet") == "", "%s: capabilities kept" % u)
        check(one("PrivateDevices") in (None, "no"), "%s: PrivateDevices hides the accelerators" % u)
        for k in ("InaccessiblePaths", "TemporaryFileSystem"):
            check(not any("/sys" in v for v in s.get(k, [])), "%s: %s hides sysfs" % (u, k))
        allowed = {v.split()[0] for v in s.get("DeviceAllow", [])}
        for dev in ("char-drm", "char-accel", "char-kfd", "char-nvidia-frontend", "char-nvidia-uvm"):
            check(dev in allowed, "%s: DeviceAllow lacks %s" % (u, dev))
        check(d.get("Install", {}).get("WantedBy") == ["multi-user.target"], "%s: not started at boot" % u)
    check((units["axl-serve.service"]["Service"].get("DynamicUser") or [""])[-1] == "yes",
          "axl-serve.service does not run as a dynamic user")

    # the driver root: named where vendor files are loaded or mounted (docs/cdi.md)
    for u in ("axl-agent.service", "axl-refresh.service", "axl-device-plugin.service"):
        env = dict(e.split("=", 1) for e in units[u]["Service"].get("Environment", []) if "=" in e)
        check(env.get("AXL_DRIVER_ROOT") == "/" and env.get("AXL_DRIVER_ROOT_HOST") == "/",
              "%s: AXL_DRIVER_ROOT/AXL_DRIVER_ROOT_HOST not the host's root: %r" % (u, env))

    # the commands: options known, writers write, serve serves
    for u, d in units.items():
        tmp = os.path.join(a.work, u)
        os.makedirs(tmp)
        s = d["Service"]
        rw = set(" ".join(s.get("ReadWritePaths", [])).split())
        written = set()
        for line in s["ExecStart"]:
            argv = line.split()
            check(argv[0] == "/usr/bin/axl", "%s runs %s" % (u, argv[0]))
            cmd, opts = split_cmd(argv)
            known = help_options(axl, cmd)
            if known is None and cmd == "agent":
                print("note: this axl has no `agent` yet; %s checked against docs/deploy.md" % u)
                known = AGENT_OPTIONS
            if not check(known is not None, "%s: axl has no command %r" % (u, cmd)):
                continue
            for o in opts:
                check(o in known, "%s: `axl %s` takes no %s" % (u, cmd, o))
            for o in ("-o", "--output", "--cdi-dir"):
                if o in opts:
                    written.add(opts[o] if cmd.startswith("cdi") or o == "--cdi-dir" else os.path.dirname(opts[o]))
            if "--labels-file" in opts:
                written.add(os.path.dirname(opts["--labels-file"]))
            if "--kubelet-dir" in opts:
                written.add(opts["--kubelet-dir"])
            if cmd in ("labels", "cdi generate"):
                run_writer(axl, argv, tmp, u, s.get("Environment", []))
            if cmd == "serve":
                run_serve(axl, argv, u)
            if cmd == "device-plugin":
                run_device_plugin(axl, argv, tmp, u)
        check(rw == written, "%s: ReadWritePaths %r, it writes into %r" % (u, sorted(rw), sorted(written)))

    check_rules(units)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok")
    return 0


def run_writer(axl, argv, tmp, unit, environment=()):
    """the unit's command with its output folder moved under tmp, on the simulated node,
    with the unit's Environment="""
    moved = []
    for x in argv[1:]:
        if x.startswith("/"):
            x = tmp + x
            os.makedirs(x if not x.endswith("/axl") else os.path.dirname(x), exist_ok=True)
        moved.append(x)
    env = dict(os.environ, **dict(e.split("=", 1) for e in environment if "=" in e))
    r = subprocess.run([axl] + moved + ["--sim", SIM], capture_output=True, text=True, env=env)
    check(r.returncode == 0, "%s: %s: exit %d %s" % (unit, " ".join(argv), r.returncode, r.stderr))
    if argv[1] == "labels":
        p = tmp + argv[argv.index("-o") + 1]
        check(os.path.exists(p) and "axl.dev/count=8" in open(p).read(), "%s: no feature file at %s" % (unit, p))
    else:
        p = tmp + argv[argv.index("-o") + 1]
        check(os.path.exists(os.path.join(p, "axl-nvidia-gpu.json")), "%s: no CDI spec in %s" % (unit, p))


def run_device_plugin(axl, argv, tmp, unit):
    """the unit's command with the kubelet's folder moved under tmp, on the simulated
    node: it listens on its socket there (no kubelet: it waits for one), and SIGTERM
    ends it and removes the socket"""
    tmp = tempfile.mkdtemp(prefix="axl-dp-")  # a unix socket's path is at most 107 bytes
    kdir = tmp + argv[argv.index("--kubelet-dir") + 1]
    os.makedirs(kdir)
    moved = [tmp + x if x.startswith("/") else x for x in argv[1:]]
    p = subprocess.Popen([axl] + moved + ["--sim", SIM], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    sock = os.path.join(kdir, "axl-nvidia.com_gpu.sock")
    end = time.time() + 10
    while time.time() < end and not os.path.exists(sock) and p.poll() is None:
        time.sleep(0.05)
    if os.path.exists(os.path.join(os.path.dirname(axl), "kubernetes", "axl-kubernetes.so")):
        check(os.path.exists(sock), "%s: no socket in %s" % (unit, kdir))
    p.terminate()
    try:
        rc = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = None
    err = p.stderr.read()
    if os.path.exists(os.path.join(os.path.dirname(axl), "kubernetes", "axl-kubernetes.so")):
        check(rc == 0 and not os.path.exists(sock), "%s: SIGTERM: exit %s, socket left %s: %s" % (
            unit, rc, os.path.exists(sock), err[-300:]))
    shutil.rmtree(tmp, ignore_errors=True)


def run_serve(axl, argv, unit):
    port = free_port()
    argv = [x if not x.startswith("0.0.0.0:") else "127.0.0.1:%d" % port for x in argv]
    p = subprocess.Popen([axl] + argv[1:] + ["--sim", SIM], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        body = {}
        for path in ("/healthz", "/metrics"):
            end = time.time() + 10
            while time.time() < end and path not in body:
                try:
                    with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=2) as r:
                        body[path] = r.read().decode()
                except OSError:
                    time.sleep(0.1)
        check(body.get("/healthz", "").strip() == "ok", "%s: /healthz %r" % (unit, body.get("/healthz")))
        check(body.get("/metrics", "").count("axl_device_up{") == 8, "%s: /metrics without 8 devices" % unit)
    finally:
        p.terminate()
        check(p.wait(timeout=10) == 0, "%s: SIGTERM did not end it cleanly" % unit)


UDEV_KEY = re.compile(r'\s*(ACTION|SUBSYSTEM|KERNEL|DRIVER|TAG|RUN|ATTR\{[a-z_]+\}|ENV\{[A-Z_]+\})'
                      r'(==|!=|\+=|=)"([^"]*)"\s*(,|$)')


def check_rules(units):
    path = os.path.join(UDIR, "70-axl.rules")
    rules = [l for l in open(path).read().splitlines() if l.strip() and not l.lstrip().startswith("#")]
    check(len(rules) >= 2, "70-axl.rules: %d rules" % len(rules))
    actions = set()
    for line in rules:
        pairs, pos = [], 0
        while pos < len(line):
            m = UDEV_KEY.match(line, pos)
            if not check(m is not None, "70-axl.rules: cannot read %r" % line[pos:]):
                break
            pairs.append(m.groups()[:3])
            pos = m.end()
        kv = {(k, op): v for k, op, v in pairs}
        act = kv.get(("ACTION", "=="), "")
        actions.update(act.split("|"))
        wants = kv.get(("ENV{SYSTEMD_WANTS}", "+="))
        runs = kv.get(("RUN", "+="))
        if act in ("add", "bind"):
            check(wants == "axl-refresh.service" and kv.get(("TAG", "+=")) == "systemd",
                  "70-axl.rules: %s without TAG+=systemd and SYSTEMD_WANTS of axl-refresh.service" % act)
        else:
            check(runs is not None and runs.endswith("systemctl --no-block start axl-refresh.service"),
                  "70-axl.rules: %s does not start axl-refresh.service without blocking" % act)
        for k, op, v in pairs:
            if k.startswith("ATTR{class}"):
                check(all(re.fullmatch(r"0x(03|12|0b40)\*", x) for x in v.split("|")), "70-axl.rules: class %r" % v)
    check(actions == {"add", "remove", "bind", "unbind"}, "70-axl.rules: actions %r" % sorted(actions))
    check("axl-refresh.service" in units, "70-axl.rules starts a unit that does not exist")


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
