#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Which OpenCL ICDs a test ran on (issue 33 item 6: the tests say so).

The ICD loader (ocl-icd's libOpenCL.so.1) loads the library named on the first line of
every .icd file of /etc/OpenCL/vendors, or of the folder or the one .icd file
$OCL_ICD_VENDORS names ($OPENCL_VENDOR_PATH for the folder: libOpenCL(7)). listed()
reads what it is given; describe() says, for each, whether its library is mapped in a
process (the test's own, after it used OpenCL) and, where it is Intel's, whether it runs
without RTLD_DEEPBIND (its DisableDeepBind key: the sanitized suite sets it, because the
sanitizers' dlopen refuses that flag; tests/CMakeLists.txt, AXL_SAN_ICD_ENV).

usage: icds.py [PID]   one line for the ICDs given to this environment (loaded in PID)
"""
import os
import sys

VENDORS = "/etc/OpenCL/vendors"


def listed(env=None):
    """[(icd file, library)] the loader is given, in its order (sorted names)"""
    env = os.environ if env is None else env
    v = env.get("OCL_ICD_VENDORS", "")
    folder = env.get("OPENCL_VENDOR_PATH", "") or VENDORS
    files = []
    if v and os.path.isdir(v):
        folder = v
    elif v.endswith(".icd"):
        p = os.path.join(folder, v) if "/" not in v and os.path.isfile(os.path.join(folder, v)) else v
        files = [p]
    elif v:
        return [("OCL_ICD_VENDORS", v)]
    if not files:
        try:
            files = [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".icd")]
        except OSError:
            files = []
    out = []
    for f in files:
        try:
            with open(f) as fh:
                lib = fh.readline().strip()
        except OSError as e:
            lib = "(unreadable: %s)" % e.strerror
        out.append((f, lib))
    return out


def mapped(pid="self"):
    """the files mapped in process pid"""
    paths = set()
    try:
        with open("/proc/%s/maps" % pid) as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/"):
                    paths.add(parts[5].strip())
    except OSError:
        pass
    return paths


def loaded_by(argv, env=None, timeout=120):
    """(the command's exit status, the files its processes loaded): argv run with the
    dynamic loader's LD_DEBUG=files log in a folder of its own ("calling init: PATH")"""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory(prefix="axl-ld-") as d:
        e = dict(os.environ if env is None else env, LD_DEBUG="files", LD_DEBUG_OUTPUT=os.path.join(d, "ld"))
        r = subprocess.run(argv, env=e, capture_output=True, text=True, timeout=timeout)
        paths = set()
        for n in os.listdir(d):
            with open(os.path.join(d, n), errors="replace") as f:
                for line in f:
                    if "calling init: " in line:
                        paths.add(line.split("calling init: ", 1)[1].strip())
    return r.returncode, paths


def loaded(lib, maps):
    """is lib (a path, or a name the dynamic loader searches for) mapped?"""
    if "/" in lib:
        return os.path.realpath(lib) in maps or lib in maps
    return any(os.path.basename(p) == lib or os.path.basename(p).startswith(lib + ".") for p in maps)


def describe(pid=None, env=None, maps=None):
    """one line: every ICD given, its library, and (pid or maps given: the files a
    process loaded) whether it is loaded"""
    env = os.environ if env is None else env
    given = listed(env)
    if not given:
        return "OpenCL ICDs: none given (%s)" % (env.get("OCL_ICD_VENDORS") or VENDORS)
    if maps is None and pid is not None:
        maps = mapped(pid)
    parts = []
    for f, lib in given:
        s = "%s -> %s" % (os.path.basename(f), lib)
        notes = []
        if maps is not None:
            notes.append("loaded" if loaded(lib, maps) else "not loaded")
        if "igdrcl" in lib and env.get("NEOReadDebugKeys") == "1" and env.get("DisableDeepBind") == "1":
            notes.append("without RTLD_DEEPBIND: its DisableDeepBind key")
        parts.append(s + (" (%s)" % ", ".join(notes) if notes else ""))
    where = env.get("OCL_ICD_VENDORS") or env.get("OPENCL_VENDOR_PATH") or VENDORS
    return "OpenCL ICDs (%s): %s" % (where, "; ".join(parts))


if __name__ == "__main__":
    print(describe(sys.argv[1] if len(sys.argv) > 1 else None))
