#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tests of `axl top`: the plain-text frames of --batch on synthetic trees (size, every
device, known values as `axl metrics --json` gives them, '-' for unknown ones, processes
from a synthetic /proc) and the live screen under a
pseudo-terminal (keys, exit status, the terminal given back).

  check_top.py --axl build/axl --work build/top --case NAME   one case (CTest runs these)
  check_top.py --axl build/axl --work build/top --all          every case
  check_top.py --list                                           the case names
"""
import argparse
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
NODES = os.path.join(TOP, "tests", "trees", "nodes")

# (case, tree, columns, lines)
BATCH = [
    ("batch_mi300x_80x24", "mi300x-8x", 80, 24),
    ("batch_mi300x_120x40", "mi300x-8x", 120, 40),
    ("batch_mi300x_60x16", "mi300x-8x", 60, 16),
    ("batch_mi300x_tiny", "mi300x-8x", 20, 3),
    ("batch_h100_80x24", "hgx-8x-h100", 80, 24),
    ("batch_laptop_80x24", "laptop-npu-2gpu", 80, 24),
    ("batch_cpx_80x24", "mi300x-2x-cpx-nps4", 80, 24),
    ("batch_cpx_200x60", "mi300x-2x-cpx-nps4", 200, 60),
    ("batch_v100_16x_80x24", "dgx2h-16x-v100-hwloc", 80, 24),
    ("batch_damaged_80x24", "damaged", 80, 24),
    ("batch_gaudi2_80x24", "gaudi2-8x", 80, 24),
]
OTHER = ["every_node", "unknowns", "processes", "not_a_tty", "pty_keys", "pty_sigterm", "pty_resize"]

CONTAINER = "3f4e5d6c7b8a" + "0" * 52


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def build_tree(work, name):
    root = os.path.join(work, "trees", name)
    if os.path.isdir(root):
        shutil.rmtree(root)
    spec = os.path.join(NODES, name + ".json")
    if not os.path.exists(spec):
        import gzip
        spec = os.path.join(work, "trees", name + ".json")
        os.makedirs(os.path.dirname(spec), exist_ok=True)
        with gzip.open(os.path.join(NODES, name + ".json.gz"), "rb") as f, open(spec, "wb") as o:
            o.write(f.read())
    os.makedirs(os.path.dirname(root), exist_ok=True)
    subprocess.run([sys.executable, os.path.join(TOP, "tests", "trees", "mktree.py"), spec, root],
                   check=True, stdout=subprocess.DEVNULL)
    return root


def env_for(cols, lines):
    env = dict(os.environ)
    env["COLUMNS"] = str(cols)
    env["LINES"] = str(lines)
    env.pop("AXL_SYSROOT", None)
    return env


def run_batch(axl, root, cols, lines, count=2, extra=()):
    p = subprocess.run([axl, "top", "--batch", "--count", str(count), "--interval", "100ms", "--sysroot", root]
                       + list(extra), env=env_for(cols, lines), capture_output=True, timeout=60)
    check(p.returncode == 0, "axl top exited %d: %s" % (p.returncode, p.stderr.decode(errors="replace")))
    return frames_of(p.stdout.decode("utf-8"), count, cols, lines)


def frames_of(text, count, cols, lines):
    check(text.endswith("\n"), "output does not end with a newline")
    frames = text[:-1].split("\n\f\n")
    check(len(frames) == count, "%d frames, want %d" % (len(frames), count))
    out = []
    for k, f in enumerate(frames):
        rows = f.split("\n")
        check(len(rows) == lines, "frame %d has %d lines, want %d" % (k, len(rows), lines))
        for n, r in enumerate(rows):
            check(len(r) <= cols, "frame %d line %d is %d columns wide (> %d): %r" % (k, n, len(r), cols, r))
            check(all(c >= " " for c in r), "frame %d line %d has a control character: %r" % (k, n, r))
        out.append(rows)
    return out


def metrics(axl, root):
    p = subprocess.run([axl, "metrics", "--json", "--sysroot", root, "--no-processes"], capture_output=True,
                       timeout=60, env=env_for(80, 24))
    check(p.returncode == 0, "axl metrics failed")
    return json.loads(p.stdout)


def device_lines(rows, dev_id):
    """The line naming the device and the lines of its block after it."""
    for n, r in enumerate(rows):
        if re.match(r"^[ >]%s(\s|$)" % re.escape(dev_id), r):
            after = []
            for x in rows[n + 1:n + 3]:
                if not x.startswith(" ") or x.startswith(" util") or re.match(r"^[ >]\S+:\d", x):
                    break
                after.append(x)
            return r, "\n".join(after)
    raise Fail("device %s not in the frame:\n%s" % (dev_id, "\n".join(rows)))


def check_frame_values(axl, root, rows, cols, lines):
    doc = metrics(axl, root)
    # partitions with nothing to read are left out of the list, and counted apart
    devs = [d for d in doc["devices"] if not ("/" in d["id"] and d["state"] == "none")]
    hidden = len(doc["devices"]) - len(devs)
    if hidden:
        check("(+%d partitions" % hidden in rows[0], "hidden partitions not counted: %r" % rows[0])
    check(rows[0].startswith("axl top"), "no header line: %r" % rows[0])
    check(re.search(r"\b%d devices?\b" % len(devs), rows[0]) is not None,
          "header does not count %d devices: %r" % (len(devs), rows[0]))
    check("every 100 ms" in rows[0], "header does not give the interval: %r" % rows[0])
    check(re.search(r"\d\d:\d\d:\d\d$", rows[0]) is not None, "header has no time: %r" % rows[0])
    text = "\n".join(rows)
    wide = lines - 6 >= 2 * len(devs)  # room for at least two lines a device
    for d in devs:
        a, b = device_lines(rows, d["id"])
        block = a + "\n" + b
        if d["state"] != "ok":
            check("no values" in block or "LOST" in block, "%s (%s) not marked: %r" % (d["id"], d["state"], block))
            continue
        if not wide:
            continue
        # the power as the table shows it, or '-' when unknown
        pw, lim = d.get("power_watts"), d.get("power_limit_watts")
        if pw is not None and lim is not None:
            want = "%.0f/%.0fW" % (pw, lim)
        elif pw is not None:
            want = "%.0fW/-" % pw
        elif lim is not None:
            want = "-/%.0fW" % lim
        else:
            want = None
        if want:
            check(want in block, "%s: power %s not shown: %r" % (d["id"], want, block))
        else:
            check(re.search(r"(\]\s+-$|POW - )", block, re.M), "%s: unknown power is not '-': %r" % (d["id"], block))
        if "utilization_percent" in d:
            check("%.0f%%]" % d["utilization_percent"] in block, "%s: utilisation not shown: %r" % (d["id"], block))
        else:
            check(re.search(r"GPU\[ *-\]", block), "%s: unknown utilisation is not '-': %r" % (d["id"], block))
        if "temperature_celsius" not in d:
            check(re.search(r"TEMP - ", block) is not None, "%s: unknown temperature is not '-': %r" % (d["id"], block))
        if "sm_clock_mhz" not in d:
            check("SM - " in block, "%s: unknown SM clock is not '-': %r" % (d["id"], block))
        else:
            check("SM %.0f " % d["sm_clock_mhz"] in block, "%s: SM clock not shown: %r" % (d["id"], block))
    check("processes" in text, "no process area")


def case_batch(axl, work, tree, cols, lines):
    root = build_tree(work, tree)
    frames = run_batch(axl, root, cols, lines)
    if lines >= 10:
        for rows in frames:
            check_frame_values(axl, root, rows, cols, lines)
            check(rows[-1].startswith("q quit"), "no key line at the bottom: %r" % rows[-1])


def case_every_node(axl, work):
    """Every synthetic node at 80x24: a frame of the right size with its values."""
    names = sorted(set(f.split(".json")[0] for f in os.listdir(NODES)
                       if (f.endswith(".json") or f.endswith(".json.gz")) and not f.endswith(".expect.json")))
    check(len(names) >= 20, "only %d nodes" % len(names))
    for name in names:
        root = build_tree(work, name)
        # processes off on both sides: the reference (axl metrics) has none either
        frames = run_batch(axl, root, 80, 24, extra=("--no-processes",))
        for rows in frames:
            check_frame_values(axl, root, rows, 80, 24)
        shutil.rmtree(root)


def case_unknowns(axl, work):
    """A device that does not say its utilisation, power or temperatures shows '-'."""
    root = build_tree(work, "mi300x-8x")
    pci = pci_of(axl, root)
    dev = os.path.join(root, "sys", "bus", "pci", "devices", pci["amdgpu:1"])
    os.unlink(os.path.join(dev, "gpu_busy_percent"))
    # gpu_metrics would fill what the text files no longer say
    if os.path.exists(os.path.join(dev, "gpu_metrics")):
        os.unlink(os.path.join(dev, "gpu_metrics"))
    hw = os.path.join(dev, "hwmon")
    for h in os.listdir(hw):
        for f in os.listdir(os.path.join(hw, h)):
            if f.startswith(("power", "temp")):
                os.unlink(os.path.join(hw, h, f))
    doc = metrics(axl, root)
    d = [x for x in doc["devices"] if x["id"] == "amdgpu:1"][0]
    check(d["state"] == "ok" and "utilization_percent" not in d and "power_watts" not in d,
          "the tree does not hide the values: %r" % d)
    for cols, lines in ((80, 24), (120, 40)):
        rows = run_batch(axl, root, cols, lines)[-1]
        check_frame_values(axl, root, rows, cols, lines)
        a, b = device_lines(rows, "amdgpu:1")
        check(re.search(r"GPU\[ *-\]", a + b) and "hot -" in b, "amdgpu:1 %dx%d: %r" % (cols, lines, a + b))


def add_process(root, pid, comm, pci, fd=5, kib=145924, gfx_ns=4170836700, cgroup=None):
    base = os.path.join(root, "proc", str(pid))
    os.makedirs(os.path.join(base, "fd"), exist_ok=True)
    os.makedirs(os.path.join(base, "fdinfo"), exist_ok=True)
    with open(os.path.join(base, "comm"), "w") as f:
        f.write(comm + "\n")
    with open(os.path.join(base, "cgroup"), "w") as f:
        f.write(cgroup or "0::/user.slice\n")
    link = os.path.join(base, "fd", str(fd))
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink("/dev/dri/renderD128", link)
    with open(os.path.join(base, "fdinfo", str(fd)), "w") as f:
        f.write("pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1071\npasid:\t32771\n"
                "drm-driver:\tamdgpu\ndrm-pdev:\t%s\ndrm-client-id:\t%d\n"
                "drm-memory-vram:\t%d KiB\ndrm-memory-gtt: \t4096 KiB\n"
                "drm-engine-gfx:\t%d ns\ndrm-engine-compute:\t0 ns\n" % (pci, pid, kib, gfx_ns))


def pci_of(axl, root):
    p = subprocess.run([axl, "list", "--json", "--sysroot", root], capture_output=True, timeout=60)
    doc = json.loads(p.stdout)
    return {d["id"]: d.get("pci", {}).get("address") for d in doc["devices"]}


def case_processes(axl, work):
    root = build_tree(work, "mi300x-8x")
    pci = pci_of(axl, root)
    check(pci.get("amdgpu:0") and pci.get("amdgpu:5"), "no PCI addresses: %r" % pci)
    add_process(root, 4242, "trainer", pci["amdgpu:0"], kib=8 * 1024 * 1024,
                cgroup="0::/system.slice/docker-%s.scope\n" % CONTAINER)
    add_process(root, 777, "infer", pci["amdgpu:5"], kib=1024 * 1024)
    rows = run_batch(axl, root, 80, 24)[-1]
    text = "\n".join(rows)
    hdr = [r for r in rows if r.startswith("DEVICE")]
    check(hdr and all(k in hdr[0] for k in ("PID", "NAME", "TYPE", "MEMORY", "UTIL", "CONTAINER")),
          "no process column titles:\n" + text)
    t = [r for r in rows if " 4242 " in r]
    check(t, "process 4242 not listed:\n" + text)
    check(t[0].startswith("amdgpu:0") and "trainer" in t[0] and "8.0G" in t[0] and CONTAINER[:12] in t[0],
          "process 4242's row is wrong: %r" % t[0])
    i = [r for r in rows if " 777 " in r]
    check(i and i[0].startswith("amdgpu:5") and "infer" in i[0] and "1.0G" in i[0], "process 777: %r" % i)
    check(re.search(r" 777 .* -\s*$", i[0]) is not None, "process 777 has no container but shows %r" % i[0])
    check("processes on all devices: 2, by util" in text, "process title:\n" + text)
    # sorted by utilisation, then pid: both idle, so 777 first
    check(rows.index(i[0]) < rows.index(t[0]), "not sorted by util then pid:\n" + text)


def case_not_a_tty(axl, work):
    """--count without --batch and standard output a pipe: plain frames too."""
    root = build_tree(work, "laptop-npu-2gpu")
    p = subprocess.run([axl, "top", "--count", "1", "--sysroot", root], env=env_for(80, 24),
                       capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    check(p.returncode == 0, "exit %d" % p.returncode)
    frames_of(p.stdout.decode(), 1, 80, 24)
    p = subprocess.run([axl, "top", "--count", "1", "--interval", "100ms", "--sysroot", root, "extra"],
                       capture_output=True, timeout=60)
    check(p.returncode == 2 and b"'extra'" in p.stderr, "an extra argument is not a usage error: %r" % p.stderr)
    p = subprocess.run([axl, "list", "--batch", "--sysroot", root], capture_output=True, timeout=60)
    check(p.returncode == 2, "--batch outside top is not a usage error")


# ---- the live screen under a pseudo-terminal ---------------------------------------------

def pty_start(axl, root, cols=80, rows=24, extra=()):
    import fcntl
    import pty
    import struct
    import termios
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm"
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)
        try:
            os.execv(axl, [axl, "top", "--interval", "200ms", "--sysroot", root] + list(extra))
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    return pid, fd


def pty_read(fd, seconds, until=None, buf=b""):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if until is not None and until in buf:
            break
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            buf += data
    return buf


def pty_wait(pid, fd, seconds):
    deadline = time.time() + seconds
    out = b""
    while time.time() < deadline:
        out = pty_read(fd, 0.2, buf=out)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            out = pty_read(fd, 0.5, buf=out)
            return status, out
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    raise Fail("axl top did not end within %ds" % seconds)


RMCUP = b"\x1b[?1049l"  # xterm's exit_ca_mode: the screen axl top drew on is given back


def case_pty_keys(axl, work):
    root = build_tree(work, "mi300x-8x")
    pid, fd = pty_start(axl, root)
    out = pty_read(fd, 20, b"amdgpu:7")
    check(b"amdgpu:7" in out and b"axl top" in out, "no screen: %r" % out[-400:])
    check(b"\x1b[?1049h" in out, "the alternate screen was not entered")
    for key, want in ((b"s", b"by memory"), (b"r", b"reversed"), (b"\x1b[B", None), (b"\x1bOB", None),
                      (b"d", b"processes on amdgpu:2"), (b"h", b"axl top: keys"), (b"x", None), (b"+", b"every 250 ms"),
                      (b"p", b"paused")):
        os.write(fd, key)
        if want and key == b"h":
            out = pty_read(fd, 5, want, b"")  # the overlay is new text (and ^L would close it)
            check(want in out, "after %r the screen does not show %r: %r" % (key, want, out[-600:]))
        elif want:
            # ^L repaints the whole screen, so the text is there in one piece
            time.sleep(0.1)
            os.write(fd, b"\x0c")
            out = pty_read(fd, 5, want, b"")
            check(want in out, "after %r the screen does not show %r: %r" % (key, want, out[-600:]))
        else:
            time.sleep(0.2)
    os.write(fd, b"q")
    status, out = pty_wait(pid, fd, 10)
    check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "exit status %r" % status)
    check(RMCUP in out, "the terminal was not restored (no rmcup): %r" % out[-200:])
    os.close(fd)


def case_pty_sigterm(axl, work):
    root = build_tree(work, "laptop-npu-2gpu")
    pid, fd = pty_start(axl, root)
    out = pty_read(fd, 20, b"nvidia:0")
    check(b"nvidia:0" in out, "no screen: %r" % out[-400:])
    os.kill(pid, signal.SIGTERM)
    status, out = pty_wait(pid, fd, 10)
    check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "SIGTERM: exit status %r" % status)
    check(RMCUP in out, "SIGTERM: the terminal was not restored")
    os.close(fd)
    pid, fd = pty_start(axl, root)
    out = pty_read(fd, 20, b"nvidia:0")
    os.write(fd, b"\x03")  # ^C: SIGINT from the terminal
    status, out = pty_wait(pid, fd, 10)
    check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "^C: exit status %r" % status)
    check(RMCUP in out, "^C: the terminal was not restored")
    os.close(fd)
    pid, fd = pty_start(axl, root)
    out = pty_read(fd, 20, b"nvidia:0")
    os.write(fd, b"\x1b")  # Esc quits
    status, out = pty_wait(pid, fd, 10)
    check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "Esc: exit status %r" % status)
    os.close(fd)


def case_pty_resize(axl, work):
    import fcntl
    import struct
    import termios
    root = build_tree(work, "mi300x-8x")
    pid, fd = pty_start(axl, root, 120, 40)
    out = pty_read(fd, 20, b"amdgpu:7")
    check(b"AMD Instinct MI300X" in out, "120x40: no full device blocks: %r" % out[-400:])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    os.kill(pid, signal.SIGWINCH)
    out = pty_read(fd, 5, b"q quit", b"")
    check(b"q quit" in out, "no redraw after the resize")
    os.write(fd, b"q")
    status, out = pty_wait(pid, fd, 10)
    check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "exit status %r" % status)
    os.close(fd)


def run_case(axl, work, name):
    for c, tree, cols, lines in BATCH:
        if c == name:
            return case_batch(axl, work, tree, cols, lines)
    if name in OTHER:
        return globals()["case_" + name](axl, work)
    raise Fail("no case %s" % name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--work", default="build/top")
    ap.add_argument("--case")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    names = [c[0] for c in BATCH] + OTHER
    if a.list:
        print(";".join(names))
        return 0
    todo = names if a.all else [a.case]
    failed = 0
    for n in todo:
        work = os.path.join(os.path.abspath(a.work), n)
        try:
            run_case(os.path.abspath(a.axl), work, n)
            print("ok   %s" % n)
        except (Fail, subprocess.SubprocessError, OSError) as e:
            failed += 1
            print("FAIL %s: %s" % (n, e))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
