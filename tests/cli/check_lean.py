#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lean.*: what the axl command loads (ARCHITECTURE.md, "Performance budget").

axl and libaxl link only libc and what discovery needs; libmicrohttpd (serve), curses
(top's screen) and libpci (names from pci.ids) are loaded with dlopen by the command or
the library that needs them, and their absence is handled:

  needed        DT_NEEDED of axl: libc (libm allowed), never libaxl.so (the command links
                libaxl statically; its twin axl-api-check links libaxl.so, proving the
                command uses the public API only); of libaxl.so: libc,
                libm (libdl, libpthread on older glibc), sanitizer runtimes. Never
                libmicrohttpd, curses, libtinfo, libpci, libudev, gnutls, zlib, ...
  lazy          (LD_DEBUG=files) `axl list --json` of a node whose devices the device
                database names loads none of those; one with an unknown device and a
                pci.ids loads libpci and names it; `axl top --batch` loads no curses;
                `axl metrics` no libmicrohttpd; zlib only for a capture file (written
                with `axl capture`, listed with --sysroot FILE)
  zlib_missing  AXL_ZLIB_LIBRARY=/nonexistent: `axl list --sysroot CAPTURE` and `axl
                capture` exit 1 naming libz.so.1 and zlib1g, and write no file
  pci_missing   AXL_PCI_LIBRARY=/nonexistent: unknown devices are listed unnamed (exit 0,
                -v says why and names libpci3), database names stay
  pci_unusable  AXL_PCI_LIBRARY=libz.so.1 (loads, lacks libpci's functions): the same
  serve_missing AXL_MHD_LIBRARY=/nonexistent: `axl serve` exits 1 at once naming
                libmicrohttpd.so.12 and the package libmicrohttpd12
  serve_unusable AXL_MHD_LIBRARY=libz.so.1: exit 1 naming the function it lacks
  top_missing   AXL_CURSES_LIBRARY=/nonexistent under a pseudo-terminal: `axl top` exits 1
                naming libncursesw.so.6 / libncursesw6 and --batch, the terminal untouched
  top_batch     AXL_CURSES_LIBRARY=/nonexistent: `axl top --batch` still prints frames
  relocations   the device database's and the model catalog's objects hold no pointer
                in their data (nothing relocated at load)
  syscalls      `axl list --timing` of gaudi2-8x: timing_syscalls names the timed stages,
                the discovery stages count calls, and strace sees at least as many

  check_lean.py --axl build/axl --lib build/libaxl.so --work DIR --case NAME
  check_lean.py --list
"""
import argparse
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TREES = os.path.join(TOP, "tests", "trees")
SIM = os.path.join(TOP, "tests", "sim", "h100x2.json")
PCI_IDS = os.path.join(TREES, "fixtures", "pci.ids.unknown-accels")

# what each may need, by SONAME prefix (anything else fails)
SANITIZERS = ("libasan.so", "libubsan.so", "libtsan.so", "liblsan.so", "libclang_rt")
ALLOWED = {
    "axl": ("libc.so.", "libm.so.", "libpthread.so.", "libdl.so.", "ld-linux") + SANITIZERS,
    "libaxl": ("libc.so.", "libm.so.", "libpthread.so.", "libdl.so.", "ld-linux") + SANITIZERS,
}
# loaded only by the command that needs them
LAZY = ("libmicrohttpd", "libncurses", "libtinfo", "libpci", "libudev", "libgnutls", "libz.so")


class Fail(Exception):
    pass


def needed(path):
    p = subprocess.run(["readelf", "-d", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    out = []
    for line in p.stdout.decode().splitlines():
        if "(NEEDED)" in line:
            out.append(line.split("[", 1)[1].split("]", 1)[0])
    return out


def mktree(work, node):
    root = os.path.join(work, node)
    if not os.path.isdir(root):
        subprocess.run([sys.executable, os.path.join(TREES, "mktree.py"), os.path.join(TREES, "nodes", node + ".json"),
                        root], check=True, stdout=subprocess.DEVNULL)
    return root


def env_for(**extra):
    env = dict(os.environ)
    for k in ("AXL_SYSROOT", "AXL_SIM", "AXL_BACKENDS", "AXL_PCI_IDS", "AXL_PCI_LIBRARY", "AXL_MHD_LIBRARY",
              "AXL_CURSES_LIBRARY", "LD_DEBUG"):
        env.pop(k, None)
    env.update(extra)
    return env


def run(args, env, timeout=60):
    return subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)


def loaded(stderr):
    """The libraries LD_DEBUG=files saw loaded."""
    out = set()
    for line in stderr.decode(errors="replace").splitlines():
        if "file=" in line and ("needed by" in line or "dynamically loaded by" in line):
            out.add(line.split("file=", 1)[1].split()[0])
    return out


def models(stdout):
    return {d["id"]: (d.get("model"), d.get("field_sources", {}).get("model")) for d in json.loads(stdout)["devices"]}


def case_needed(a):
    for what, path in (("axl", a.axl), ("libaxl", a.lib)):
        got = needed(path)
        print("%s NEEDED: %s" % (path, " ".join(got)))
        if not any(n.startswith("libc.so.") for n in got):
            raise Fail("%s: readelf shows no libc.so among NEEDED: %s" % (path, got))
        bad = [n for n in got if not n.startswith(ALLOWED[what])]
        if bad:
            raise Fail("%s needs %s: only %s may be linked" % (path, ", ".join(bad), ", ".join(ALLOWED[what])))
    # the command links libaxl's static archive (CMakeLists.txt, axl_cli): no libaxl.so to
    # map and relocate at its start; axl-api-check links the same objects with libaxl.so
    if "libaxl.so.0" in needed(a.axl):
        raise Fail("axl needs libaxl.so.0: it should link libaxl statically")
    api = os.path.join(os.path.dirname(os.path.abspath(a.axl)), "tests", "axl-api-check")
    if os.path.exists(api) and "libaxl.so.0" not in needed(api):
        raise Fail("%s does not need libaxl.so.0: it must link the shared library" % api)


def case_lazy(a):
    known = mktree(a.work, "gaudi2-8x")
    unknown = mktree(a.work, "unknown-accels")
    # every device named by the database: libpci is not loaded, even with a pci.ids given
    p = run([a.axl, "list", "--json", "--sysroot", known], env_for(LD_DEBUG="files", AXL_PCI_IDS=PCI_IDS))
    if p.returncode != 0:
        raise Fail("axl list (gaudi2-8x) exited %d: %s" % (p.returncode, p.stderr.decode(errors="replace")[-2000:]))
    libs = loaded(p.stderr)
    print("axl list --json (gaudi2-8x) loaded:", " ".join(sorted(libs)))
    bad = sorted(x for x in libs if x.startswith(LAZY))
    if bad:
        raise Fail("axl list of known devices loaded %s" % ", ".join(bad))
    m = models(p.stdout)
    if not m or any(src != "devicedb" for _, src in m.values()):
        raise Fail("gaudi2-8x: models not all from the device database: %s" % m)
    # an unknown device with a pci.ids: libpci is loaded, and names it
    if a.pciids != "ON":
        print("built without pci.ids names (AXL_WITH_PCIIDS=OFF): libpci is never loaded")
        p = run([a.axl, "list", "--json", "--sysroot", unknown], env_for(LD_DEBUG="files", AXL_PCI_IDS=PCI_IDS))
        if p.returncode != 0 or any(x.startswith("libpci") for x in loaded(p.stderr)):
            raise Fail("built without pci.ids names, axl list loaded libpci (exit %d)" % p.returncode)
    else:
        lazy_pci(a, unknown)
    lazy_commands(a)
    lazy_capture(a, known)


def lazy_capture(a, known):
    cap = os.path.join(a.work, "capture.tar.gz")
    p = run([a.axl, "capture", "--sysroot", known, "-o", cap], env_for(LD_DEBUG="files"))
    libs = loaded(p.stderr)
    print("axl capture loaded:", " ".join(sorted(libs)))
    if p.returncode != 0 or not any(x.startswith("libz.so") for x in libs):
        raise Fail("axl capture (exit %d) did not load zlib" % p.returncode)
    p = run([a.axl, "list", "--json", "--sysroot", cap], env_for(LD_DEBUG="files"))
    libs = loaded(p.stderr)
    print("axl list --json --sysroot CAPTURE loaded:", " ".join(sorted(libs)))
    if p.returncode != 0 or not any(x.startswith("libz.so") for x in libs) or len(models(p.stdout)) != 8:
        raise Fail("axl list --sysroot CAPTURE (exit %d) did not load zlib or list 8 devices" % p.returncode)


def lazy_pci(a, unknown):
    p = run([a.axl, "list", "--json", "--sysroot", unknown], env_for(LD_DEBUG="files", AXL_PCI_IDS=PCI_IDS))
    libs = loaded(p.stderr)
    print("axl list --json (unknown-accels) loaded:", " ".join(sorted(libs)))
    if p.returncode != 0 or not any(x.startswith("libpci.so") for x in libs):
        raise Fail("axl list of unknown devices with a pci.ids did not load libpci (exit %d)" % p.returncode)
    m = models(p.stdout)
    if m.get("accel:0") != ("Colossus GC2 [C2]", "pci.ids"):
        raise Fail("unknown-accels: accel:0 not named from pci.ids: %s" % m.get("accel:0"))


def lazy_commands(a):
    # top's text frames need no curses, metrics no libmicrohttpd
    for args in (["top", "--batch", "--count", "1"], ["metrics"], ["topo"], ["show", "nvidia:0"]):
        p = run([a.axl] + args + ["--sim", SIM], env_for(LD_DEBUG="files"))
        libs = loaded(p.stderr)
        bad = sorted(x for x in libs if x.startswith(LAZY))
        print("axl %s loaded: %s" % (" ".join(args), " ".join(sorted(libs))))
        if p.returncode != 0 or bad:
            raise Fail("axl %s: exit %d, loaded %s" % (" ".join(args), p.returncode, bad))


def pci_absent(a, library):
    known = mktree(a.work, "gaudi2-8x")
    unknown = mktree(a.work, "unknown-accels")
    p = run([a.axl, "-v", "list", "--json", "--sysroot", unknown], env_for(AXL_PCI_IDS=PCI_IDS, AXL_PCI_LIBRARY=library))
    err = p.stderr.decode(errors="replace")
    if p.returncode != 0:
        raise Fail("axl list exited %d without libpci: %s" % (p.returncode, err[-2000:]))
    m = models(p.stdout)
    print("unknown-accels without libpci:", m)
    if len(m) != 5 or any(name for name, _ in m.values()):
        raise Fail("unknown devices named (or missing) without libpci: %s" % m)
    if "libpci3" not in err or library not in err:
        raise Fail("axl -v list does not say why there are no names (libpci3, %s): %s" % (library, err[-2000:]))
    p = run([a.axl, "list", "--json", "--sysroot", known], env_for(AXL_PCI_IDS=PCI_IDS, AXL_PCI_LIBRARY=library))
    m = models(p.stdout)
    if p.returncode != 0 or len(m) != 8 or any(not name or src != "devicedb" for name, src in m.values()):
        raise Fail("gaudi2-8x without libpci: not 8 devices named by the database: %s" % m)
    # nothing on standard error without -v
    if p.stderr.strip():
        raise Fail("axl list without libpci wrote to standard error: %s" % p.stderr.decode(errors="replace"))


def case_pci_missing(a):
    pci_absent(a, "/nonexistent/libpci.so.3")


def case_pci_unusable(a):
    pci_absent(a, "libz.so.1")


def serve_absent(a, library, want):
    try:
        p = run([a.axl, "serve", "--sim", SIM, "--listen", "127.0.0.1:0"], env_for(AXL_MHD_LIBRARY=library), timeout=20)
    except subprocess.TimeoutExpired:
        raise Fail("axl serve kept running with AXL_MHD_LIBRARY=%s" % library)
    err = p.stderr.decode(errors="replace")
    print("exit %d: %s" % (p.returncode, err))
    if p.returncode != 1:
        raise Fail("axl serve exited %d, not 1" % p.returncode)
    for w in ["libmicrohttpd.so.12", "libmicrohttpd12"] + want:
        if w not in err:
            raise Fail("axl serve's message does not say %r" % w)
    if "serving" in err:
        raise Fail("axl serve started serving")


def case_serve_missing(a):
    serve_absent(a, "/nonexistent/libmicrohttpd.so.12", ["/nonexistent/libmicrohttpd.so.12", "AXL_MHD_LIBRARY"])


def case_serve_unusable(a):
    serve_absent(a, "libz.so.1", ["has no MHD_"])


def case_top_missing(a):
    import fcntl
    import pty
    import struct
    import termios
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update(env_for(TERM="xterm", AXL_CURSES_LIBRARY="/nonexistent/libncursesw.so.6"))
        try:
            os.execv(a.axl, [a.axl, "top", "--sim", SIM])
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    out = b""
    deadline = time.time() + 15
    status = None
    while time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            out += data
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
            break
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise Fail("axl top kept running without curses: %r" % out[-500:])
    try:
        while select.select([fd], [], [], 0.2)[0]:
            data = os.read(fd, 65536)
            if not data:
                break
            out += data
    except OSError:
        pass
    os.close(fd)
    text = out.decode(errors="replace")
    print("exit status %d: %s" % (status, text))
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 1:
        raise Fail("axl top without curses: wait status %d, not exit 1" % status)
    for w in ("libncurses", "--batch", "/nonexistent/libncursesw.so.6"):
        if w not in text:
            raise Fail("axl top's message does not say %r" % w)
    if "Debian package libncursesw6" not in text and "Debian package libncurses6" not in text:
        raise Fail("axl top's message does not name the Debian package")
    if "\x1b[" in text:
        raise Fail("axl top wrote to the terminal (escape sequences) though curses is missing")


def case_zlib_missing(a):
    known = mktree(a.work, "gaudi2-8x")
    cap = os.path.join(a.work, "capture.tar.gz")
    p = run([a.axl, "capture", "--sysroot", known, "-o", cap], env_for())
    if p.returncode != 0:
        raise Fail("axl capture failed with zlib: %s" % p.stderr.decode(errors="replace")[-2000:])
    lib = "/nonexistent/libz.so.1"
    out2 = os.path.join(a.work, "again.tar.gz")
    for args in (["list", "--json", "--sysroot", cap], ["capture", "--sysroot", known, "-o", out2]):
        p = run([a.axl] + args, env_for(AXL_ZLIB_LIBRARY=lib))
        err = p.stderr.decode(errors="replace")
        print("axl %s: exit %d: %s" % (args[0], p.returncode, err[-600:]))
        if p.returncode != 1:
            raise Fail("axl %s without zlib exited %d, not 1" % (args[0], p.returncode))
        for w in ("libz.so.1", "zlib1g", lib):
            if w not in err:
                raise Fail("axl %s's message does not say %r" % (args[0], w))
    if os.path.exists(out2) or [f for f in os.listdir(a.work) if f.startswith(".again")]:
        raise Fail("axl capture without zlib left a file behind")


def case_top_batch(a):
    p = run([a.axl, "top", "--batch", "--count", "2", "--interval", "50ms", "--sim", SIM],
            env_for(AXL_CURSES_LIBRARY="/nonexistent/libncursesw.so.6", COLUMNS="80", LINES="24"))
    out = p.stdout.decode(errors="replace")
    if p.returncode != 0 or out.count("axl top") != 2 or "nvidia:1" not in out:
        raise Fail("axl top --batch without curses: exit %d, %r / %r" % (p.returncode, out[-1000:],
                                                                        p.stderr.decode(errors="replace")[-1000:]))


def case_syscalls(a):
    """axl list --timing counts each stage's system calls through the sysroot seam
    (timing_syscalls): one count a timed stage, the discovery stages of a node with
    devices make some, and strace (when installed) sees at least as many calls of the
    kinds the seam makes in the whole run."""
    root = mktree(a.work, "gaudi2-8x")
    p = run([a.axl, "list", "--json", "--timing", "--sysroot", root], env_for())
    if p.returncode != 0:
        raise Fail("axl list --timing exited %d" % p.returncode)
    doc = json.loads(p.stdout)
    ms, calls = doc.get("timing", {}), doc.get("timing_syscalls", {})
    if set(ms) != set(calls) or not calls:
        raise Fail("timing %s and timing_syscalls %s name other stages" % (sorted(ms), sorted(calls)))
    if any(not isinstance(v, int) or v < 0 for v in calls.values()):
        raise Fail("timing_syscalls holds a value that is not a count: %s" % calls)
    for stage in ("host", "pci", "habana", "devnodes"):
        if calls.get(stage, 0) <= 0:
            raise Fail("stage %s made no system call: %s" % (stage, calls))
    total = sum(calls.values())
    print("timing_syscalls:", calls, "total", total)
    strace = shutil.which("strace")
    if strace:
        log = os.path.join(a.work, "strace.txt")
        q = run([strace, "-f", "-c", "-o", log, a.axl, "list", "--json", "--sysroot", root], env_for())
        if q.returncode != 0:
            raise Fail("strace axl list exited %d" % q.returncode)
        kinds = ("openat", "openat2", "read", "close", "readlinkat", "getdents64", "newfstatat")
        seen = 0
        for line in open(log):
            # % time, seconds, usecs/call, calls, [errors,] syscall
            f = line.split()
            if len(f) >= 5 and f[-1] in kinds:
                seen += int(f[3])
        print("strace: %d calls of the seam's kinds" % seen)
        if seen < total:
            raise Fail("the seam counted %d calls, strace saw only %d" % (total, seen))


def case_relocations(a):
    """The big tables need no relocation at load (issue 25): the device database's generated
    object, the model catalog's and the vendor symbol tables' carry no pointer in their data
    (no R_X86_64_64 / R_AARCH64_ABS64 relocation against a data section)."""
    build = os.path.dirname(os.path.abspath(a.lib))
    objs = {"devicedb": "CMakeFiles/axl_devicedb.dir/generated/devicedb_data.c.o",
            "model catalog": "CMakeFiles/axl_plan.dir/src/lib/plan/model_catalog.c.o"}
    for what, rel in objs.items():
        obj = os.path.join(build, rel)
        if not os.path.exists(obj):
            raise Fail("%s: no object %s" % (what, obj))
        out = subprocess.run(["readelf", "-rW", obj], capture_output=True, text=True, check=True).stdout
        sec, n = "", 0
        for line in out.splitlines():
            if line.startswith("Relocation section"):
                sec = line.split("'")[1]
            elif "data" in sec and ("R_X86_64_64" in line or "R_AARCH64_ABS64" in line):
                n += 1
        print("%s: %d pointer relocations in data" % (what, n))
        if n:
            raise Fail("%s has %d pointers in its data: each is relocated at every load" % (what, n))


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--lib")
    ap.add_argument("--work")
    ap.add_argument("--case")
    ap.add_argument("--pciids", default="ON")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print(";".join(CASES))
        return 0
    a.work = os.path.join(a.work, a.case)  # cases run in parallel: one directory each
    os.makedirs(a.work, exist_ok=True)
    try:
        CASES[a.case](a)
    except Fail as e:
        print("FAIL lean.%s: %s" % (a.case, e), file=sys.stderr)
        return 1
    print("lean.%s: ok" % a.case)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
