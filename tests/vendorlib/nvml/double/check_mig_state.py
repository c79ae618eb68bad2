#!/usr/bin/env python3
"""AXL_NVML_DOUBLE_STATE: a MIG instance created in one process is listed by the next and
destroyed by a third; a busy destroy leaves it. usage: check_mig_state.py DOUBLE.so XML WORKDIR"""
import ctypes
import os
import re
import subprocess
import sys

lib, xml, work = sys.argv[1:4]


def child(op):
    """run op in a new process (the double's state is per process otherwise)"""
    env = dict(os.environ, AXL_NVML_DOUBLE_XML=xml, AXL_NVML_DOUBLE_MIG="1",
               AXL_NVML_DOUBLE_STATE=os.path.join(work, "mig.state"))
    if op == "busy":
        env["AXL_NVML_DOUBLE_BUSY"] = "1"
    # an ASan build of the double needs its sanitizer runtimes loaded before Python
    ldd = subprocess.run(["ldd", lib], capture_output=True, text=True).stdout
    rt = [m.group(1) for m in re.finditer(r"=>\s*(\S*lib(?:asan|ubsan)\.so[.0-9]*)", ldd)]
    if rt:
        env["LD_PRELOAD"] = ":".join(rt)
        env["ASAN_OPTIONS"] = "detect_leaks=0:verify_asan_link_order=0"
    r = subprocess.run([sys.executable, __file__, lib, xml, work, op], env=env,
                       capture_output=True, text=True, check=False)
    if r.returncode:
        sys.exit(f"{op}: {r.stderr}")
    return r.stdout.split()


def run(op):
    nv = ctypes.CDLL(lib)
    assert nv.nvmlInit_v2() == 0
    h = ctypes.c_void_p()
    assert nv.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h)) == 0
    if op == "create":
        gi, ci = ctypes.c_void_p(), ctypes.c_void_p()
        assert nv.nvmlDeviceCreateGpuInstance(h, 9, ctypes.byref(gi)) == 0
        assert nv.nvmlGpuInstanceCreateComputeInstance(gi, 2, ctypes.byref(ci)) == 0
    uuids = []
    for k in range(7):
        m = ctypes.c_void_p()
        if nv.nvmlDeviceGetMigDeviceHandleByIndex(h, k, ctypes.byref(m)) == 0:
            b = ctypes.create_string_buffer(96)
            assert nv.nvmlDeviceGetUUID(m, b, 96) == 0
            uuids.append(b.value.decode())
            if op in ("destroy", "busy"):
                gid = ctypes.c_uint()
                assert nv.nvmlDeviceGetGpuInstanceId(m, ctypes.byref(gid)) == 0
                gi = ctypes.c_void_p()
                assert nv.nvmlDeviceGetGpuInstanceById(h, gid, ctypes.byref(gi)) == 0
                cis = (ctypes.c_void_p * 8)()
                n = ctypes.c_uint()
                assert nv.nvmlGpuInstanceGetComputeInstances(gi, 2, cis, ctypes.byref(n)) == 0 and n.value == 1
                rc = nv.nvmlComputeInstanceDestroy(ctypes.c_void_p(cis[0]))
                assert rc == (19 if op == "busy" else 0), rc
                if op == "destroy":
                    assert nv.nvmlGpuInstanceDestroy(gi) == 0
    print(" ".join(uuids))


if len(sys.argv) == 5:
    run(sys.argv[4])
    sys.exit(0)
os.makedirs(work, exist_ok=True)
state = os.path.join(work, "mig.state")
if os.path.exists(state):
    os.unlink(state)
made = child("create")
assert len(made) == 1 and made[0].startswith("MIG-"), made
assert child("list") == made
assert child("busy") == made
assert child("list") == made
assert child("destroy") == made
assert child("list") == []
print("ok")
