#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""limiter.real.routes: libaxl_limiter.so in front of the real libcuda.so.1 (issue 33 item 4).

  check_real.py --limiter build/limiter/libaxl_limiter.so --routes-src tests/limiter/real \
      [--preload LD_PRELOAD] [--cc cc] [--work DIR] [--lib /path/to/libcuda.so.1]

1. Reads the dynamic exports of the real driver (nm -D --defined-only libcuda.so.1, as
   Debian's libcuda1 installs it) and classifies every one by name (CLASSES below): device
   memory allocated, freed or reported, work launched (the limiter's: LIMITED), host
   memory, IPC and imported memory, the other memory calls that allocate nothing the
   limit covers (each with the reason: DOCUMENTED), or not relevant. An export whose name
   looks like allocating, freeing, reporting memory or launching work (ATTENTION) and is
   in no class fails the test: "new allocating export: classify it".
2. Builds a program linked against that libcuda.so.1 (routes.c and a generated table of
   the limited exports' addresses as the dynamic linker binds them) and runs it with the
   limiter preloaded: every limited export must answer from the limiter through the three
   routes (linked, dlsym on dlopen("libcuda.so.1"), cuGetProcAddress and
   cuGetProcAddress_v2 at every CUDA version 1.0 .. 13.9 and all three flags), and every
   other export from the driver. No device is needed: the program makes lookups only.

3. Cross-checks HAMi-core's hook list (HAMI_HOOKS, recorded from its src/cuda/hook.c at
   HAMI_COMMIT): every hook that does more than pass the call on (HAMI_ACTS) must be
   limited here or documented, and the hooks limited here and the limited exports
   HAMi-core does not hook are listed. docs/limits.md says why HAMi-core's host-memory
   refusals are not copied.

Prints the counts (exports read, classified, limited, routes checked). Exit 0 when all
hold, 1 on a failure, 77 (skipped) when libcuda.so.1 is not installed.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

SKIP = 77

# ---- the classification ----------------------------------------------------------------------
# LIMITED: the limiter defines each of these (src/limiter/nvidia/), and must answer them
# through every route. The class says what it does there.
LIMITED = {
    "allocate": (
        "device memory reserved in the workload's region before the driver sees the call, "
        "given back when the driver fails and at the matching free (memory.c); arrays by "
        "their descriptor (width x height x depth x channels x element size, levels summed)",
        """cuMemAlloc cuMemAlloc_v2 cuMemAllocPitch cuMemAllocPitch_v2 cuMemAllocManaged
        cuMemAllocAsync cuMemAllocAsync_ptsz cuMemAllocFromPoolAsync cuMemAllocFromPoolAsync_ptsz
        cuMemCreate cuArrayCreate cuArrayCreate_v2 cuArray3DCreate cuArray3DCreate_v2
        cuMipmappedArrayCreate"""),
    "graph memory": (
        "graph allocations are the device's graph pool's memory, mapped when a graph is "
        "uploaded or launched (graphmem.c): cuGraphUpload and cuGraphLaunch admit a graph's "
        "allocation nodes against the limit and charge what the graph pool then holds; "
        "cuGraphAddMemAllocNode refuses a node larger than the device's limit (no launch "
        "could hold it), and so do cuGraphAddNode and cuGraphAddNode_v2 (CUDA 12.2, 12.3) for "
        "a node of type CU_GRAPH_NODE_TYPE_MEM_ALLOC (every other type passes); "
        "cuDeviceGraphMemTrim gives back what the pool returns",
        """cuGraphAddMemAllocNode cuGraphAddNode cuGraphAddNode_v2 cuGraphUpload cuGraphUpload_ptsz
        cuDeviceGraphMemTrim"""),
    "free": (
        "the charge given back when the driver frees (a failed free keeps it); pools "
        "weighed again (pool.c). A cuMemCreate handle holds a reference to its allocation "
        "and so does each cuMemRetainAllocationHandle of an address mapped to it (the same "
        "handle value), and each live cuMemMap of its memory, and each region of a tile pool "
        "mapped into a sparse or deferred-mapping array (cuMemMapArrayAsync, which unmaps "
        "too; an array's destruction unmaps its tiles): the driver frees it at the last "
        "handle release and the last unmap, in either order, and the charge goes with the "
        "last reference of either kind (cuMemRelease drops a handle's, cuMemUnmap those of "
        "the whole mappings it unmaps)",
        """cuMemFree cuMemFree_v2 cuMemFreeAsync cuMemFreeAsync_ptsz cuMemRelease
        cuMemRetainAllocationHandle cuMemMap cuMemUnmap cuMemMapArrayAsync cuMemMapArrayAsync_ptsz
        cuArrayDestroy cuMipmappedArrayDestroy cuMemPoolTrimTo cuMemPoolDestroy"""),
    "report": (
        "the limit as total, the limit less the workload's usage as free (memory.c)",
        """cuMemGetInfo cuMemGetInfo_v2 cuDeviceTotalMem cuDeviceTotalMem_v2"""),
    "launch": (
        "the compute limit admits each launch (compute.c); the instantiations remember each "
        "executable graph's kernels and allocation nodes (an instantiation that uploads is "
        "admitted as an upload)",
        """cuLaunch cuLaunchGrid cuLaunchGridAsync cuLaunchKernel cuLaunchKernel_ptsz
        cuLaunchKernelEx cuLaunchKernelEx_ptsz cuLaunchCooperativeKernel
        cuLaunchCooperativeKernel_ptsz cuLaunchCooperativeKernelMultiDevice cuGraphLaunch
        cuGraphLaunch_ptsz cuGraphInstantiate cuGraphInstantiate_v2 cuGraphInstantiateWithFlags
        cuGraphInstantiateWithParams cuGraphInstantiateWithParams_ptsz cuGraphExecDestroy"""),
    "capture": (
        "a launch or stream-ordered allocation into a stream being captured does not run "
        "(it becomes a graph node): the captures are counted so that those calls pass "
        "uncharged, and the graph is charged when it runs",
        """cuStreamBeginCapture cuStreamBeginCapture_ptsz cuStreamBeginCapture_v2
        cuStreamBeginCapture_v2_ptsz cuStreamBeginCaptureToGraph cuStreamBeginCaptureToGraph_ptsz
        cuStreamEndCapture cuStreamEndCapture_ptsz"""),
    "lookup": (
        "cuGetProcAddress: the driver's answer, the limiter's function swapped in for a "
        "limited one",
        """cuGetProcAddress cuGetProcAddress_v2"""),
}

# DOCUMENTED: calls about memory that the limit does not cover, and why (docs/limits.md,
# "Every export of the driver").
DOCUMENTED = {
    "host memory": (
        "page-locked host memory: the host's RAM, not the device's (a cgroup's memory limit "
        "covers it); a device view of it (DEVICEMAP, cuMemHostGetDevicePointer) maps host "
        "pages. cuLaunchHostFunc runs a host function in stream order: no device work",
        """cuMemAllocHost cuMemAllocHost_v2 cuMemHostAlloc cuMemFreeHost cuMemHostRegister
        cuMemHostRegister_v2 cuMemHostUnregister cuMemHostGetDevicePointer
        cuMemHostGetDevicePointer_v2 cuMemHostGetFlags cuLaunchHostFunc cuLaunchHostFunc_ptsz
        cuGraphAddHostNode cuGraphHostNodeGetParams cuGraphHostNodeSetParams
        cuGraphExecHostNodeSetParams"""),
    "IPC and imports": (
        "memory another process or API allocated, and is charged there (its own limiter, "
        "or the graphics API): opening an IPC handle or importing external memory maps it, "
        "it allocates no new device memory in this process",
        """cuIpcGetMemHandle cuIpcOpenMemHandle cuIpcOpenMemHandle_v2 cuIpcCloseMemHandle
        cuIpcGetEventHandle cuIpcOpenEventHandle cuImportExternalMemory
        cuExternalMemoryGetMappedBuffer cuExternalMemoryGetMappedMipmappedArray
        cuDestroyExternalMemory cuImportExternalSemaphore cuDestroyExternalSemaphore
        cuSignalExternalSemaphoresAsync cuSignalExternalSemaphoresAsync_ptsz
        cuWaitExternalSemaphoresAsync cuWaitExternalSemaphoresAsync_ptsz
        cuGraphAddExternalSemaphoresSignalNode cuGraphAddExternalSemaphoresWaitNode
        cuGraphExternalSemaphoresSignalNodeGetParams cuGraphExternalSemaphoresSignalNodeSetParams
        cuGraphExternalSemaphoresWaitNodeGetParams cuGraphExternalSemaphoresWaitNodeSetParams
        cuGraphExecExternalSemaphoresSignalNodeSetParams
        cuGraphExecExternalSemaphoresWaitNodeSetParams cuMemExportToShareableHandle
        cuMemImportFromShareableHandle cuMemPoolExportToShareableHandle
        cuMemPoolImportFromShareableHandle cuMemPoolExportPointer cuMemPoolImportPointer
        cuGLRegisterBufferObject cuGraphicsGLRegisterBuffer cuGraphicsGLRegisterImage
        cuGraphicsEGLRegisterImage cuGraphicsVDPAURegisterOutputSurface
        cuGraphicsVDPAURegisterVideoSurface cuMulticastCreate cuMulticastAddDevice
        cuMulticastBindMem cuMulticastBindAddr cuMulticastUnbind cuMulticastGetGranularity"""),
    "virtual memory": (
        "address space and the allocations' properties: the physical memory is cuMemCreate's, "
        "charged there, and followed through its mappings (above)",
        """cuMemAddressReserve cuMemAddressFree cuMemGetAllocationGranularity
        cuMemGetAllocationPropertiesFromHandle"""),
    "pools": (
        "a pool holds no memory until allocated from (charged at the allocation); what it "
        "keeps after frees is weighed at every allocation, free, trim and memory report "
        "(pool.c), so a release threshold set here shows at the next one. The pools' own "
        "figures are the process's, not rewritten",
        """cuMemPoolCreate cuMemPoolGetAttribute cuMemPoolSetAttribute cuMemPoolSetAccess
        cuMemPoolGetAccess cuDeviceGetMemPool cuDeviceSetMemPool cuDeviceGetDefaultMemPool"""),
    "graph building": (
        "a graph's nodes describe work: their memory is mapped, and charged, when the graph "
        "is uploaded or launched (graph memory above). A free node frees into the graph "
        "pool at launch; the pool's figures are the process's own. cuGraphNodeSetParams and "
        "cuGraphExecNodeSetParams cannot change an allocation node (the driver refuses "
        "allocation and free nodes), so they cannot grow one past the early refusal",
        """cuGraphAddMemFreeNode cuGraphMemAllocNodeGetParams cuGraphMemFreeNodeGetParams
        cuDeviceGetGraphMemAttribute cuDeviceSetGraphMemAttribute cuGraphNodeSetParams
        cuGraphExecNodeSetParams"""),
    "contexts and modules": (
        "the driver's own reserve for a context (its local memory, printf buffer and "
        "malloc heap: cuCtxSetLimit) and a module's code and globals, sized by the driver "
        "at creation or load and not known before it: not counted, as with HAMi-core's "
        "allocation accounting; leave room for them in the limit",
        """cuCtxCreate cuCtxCreate_v2 cuCtxCreate_v3 cuCtxCreate_v4 cuCtxSetLimit cuGLCtxCreate
        cuGLCtxCreate_v2 cuVDPAUCtxCreate cuVDPAUCtxCreate_v2 cuModuleLoad cuModuleLoadData
        cuModuleLoadDataEx cuModuleLoadFatBinary cuLibraryLoadData cuLibraryLoadFromFile"""),
}

# names that look like allocating, freeing, reporting device memory or launching work:
# each must be in a class above
ATTENTION = [re.compile(p) for p in (
    r"Alloc", r"Free", r"^cuLaunch", r"^cu(Array|Array3D|MipmappedArray)Create",
    r"^cuMem(Create|Release|Map|GetInfo|RetainAllocation|Import|Export|Host|AddressReserve)",
    r"TotalMem", r"Trim", r"Pool", r"GraphMem(?!cpy|set)", r"^cuGraph(Instantiate|Launch|Upload|AddNode|ExecDestroy)",
    r"^cuGraph(Exec)?NodeSetParams", r"^cuIpc", r"External", r"Register", r"^cuMulticast",
    r"^cu(GL|VDPAU)?CtxCreate", r"^cuGreenCtxCreate", r"^cuCtxSetLimit", r"^cu(Module|Library)Load",
    r"^cuStream(Begin|End)Capture", r"^cuGetProcAddress",
)]

# HAMi-core's CUDA hooks, the cross-check: the names of cuda_library_entry[] in src/cuda/hook.c
# of github.com/Project-HAMi/HAMi-core at commit HAMI_COMMIT (212 names)
HAMI_COMMIT = "8f3a89c67b037d8fdfe6c4cd4d8c4f0cd6504811"
HAMI_HOOKS = """
    cuInit cuDeviceGetAttribute cuDeviceGet cuDeviceGetCount cuDeviceGetName cuDeviceCanAccessPeer
    cuDeviceGetP2PAttribute cuDeviceGetByPCIBusId cuDeviceGetPCIBusId cuDeviceGetUuid
    cuDeviceGetUuid_v2 cuDeviceGetDefaultMemPool cuDeviceGetLuid cuDeviceGetMemPool
    cuDeviceTotalMem_v2 cuDriverGetVersion cuDeviceGetTexture1DLinearMaxWidth cuDeviceSetMemPool
    cuFlushGPUDirectRDMAWrites cuDevicePrimaryCtxGetState cuDevicePrimaryCtxRetain
    cuDevicePrimaryCtxSetFlags_v2 cuDevicePrimaryCtxRelease_v2 cuCtxGetDevice cuCtxCreate_v2
    cuCtxCreate_v3 cuCtxCreate_v4 cuCtxDestroy_v2 cuCtxGetApiVersion cuCtxGetCacheConfig
    cuCtxGetCurrent cuCtxGetFlags cuCtxGetLimit cuCtxGetSharedMemConfig cuCtxGetStreamPriorityRange
    cuCtxPopCurrent_v2 cuCtxPushCurrent_v2 cuCtxSetCacheConfig cuCtxSetCurrent cuCtxSetLimit
    cuCtxSetSharedMemConfig cuCtxSynchronize cuCtxEnablePeerAccess cuGetExportTable cuStreamCreate
    cuStreamDestroy_v2 cuStreamSynchronize cuArray3DCreate_v2 cuArrayCreate_v2 cuArrayDestroy
    cuMemAlloc_v2 cuMemAllocHost_v2 cuMemAllocManaged cuMemAllocPitch_v2 cuMemFree_v2 cuMemFreeHost
    cuMemHostAlloc cuMemHostRegister_v2 cuMemHostUnregister cuMemcpyDtoH_v2 cuMemcpyHtoD_v2
    cuMipmappedArrayCreate cuMipmappedArrayDestroy cuMemGetInfo_v2 cuMemcpy cuPointerGetAttribute
    cuPointerGetAttributes cuPointerSetAttribute cuIpcCloseMemHandle cuIpcGetMemHandle
    cuIpcOpenMemHandle_v2 cuMemGetAddressRange_v2 cuMemcpyAsync cuMemcpyAtoD_v2 cuMemcpyDtoA_v2
    cuMemcpyDtoD_v2 cuMemcpyDtoDAsync_v2 cuMemcpyDtoHAsync_v2 cuMemcpyHtoDAsync_v2 cuMemcpyPeer
    cuMemcpyPeerAsync cuMemsetD16_v2 cuMemsetD16Async cuMemsetD2D16_v2 cuMemsetD2D16Async
    cuMemsetD2D32_v2 cuMemsetD2D32Async cuMemsetD2D8_v2 cuMemsetD2D8Async cuMemsetD32_v2
    cuMemsetD32Async cuMemsetD8_v2 cuMemsetD8Async cuMemAdvise cuMemAdvise_v2 cuFuncSetCacheConfig
    cuFuncSetSharedMemConfig cuFuncGetAttribute cuFuncSetAttribute cuLaunchKernel cuLaunchKernelEx
    cuLaunchCooperativeKernel cuEventCreate cuEventDestroy_v2 cuModuleLoad cuModuleLoadData
    cuModuleLoadDataEx cuModuleLoadFatBinary cuModuleGetFunction cuModuleUnload
    cuModuleGetGlobal_v2 cuModuleGetTexRef cuModuleGetSurfRef cuLinkAddData_v2 cuLinkCreate_v2
    cuLinkAddFile_v2 cuLinkComplete cuLinkDestroy cuMemAddressReserve cuMemCreate cuMemRelease
    cuMemMap cuMemImportFromShareableHandle cuMemAllocAsync cuMemFreeAsync
    cuMemHostGetDevicePointer_v2 cuMemHostGetFlags cuMemPoolTrimTo cuMemPoolSetAttribute
    cuMemPoolGetAttribute cuMemPoolSetAccess cuMemPoolGetAccess cuMemPoolCreate cuMemPoolDestroy
    cuMemAllocFromPoolAsync cuMemPoolExportToShareableHandle cuMemPoolImportFromShareableHandle
    cuMemPoolExportPointer cuMemPoolImportPointer cuMemcpy2D_v2 cuMemcpy2DUnaligned_v2
    cuMemcpy2DAsync_v2 cuMemcpy3D_v2 cuMemcpy3DAsync_v2 cuMemcpy3DPeer cuMemcpy3DPeerAsync
    cuMemPrefetchAsync cuMemPrefetchAsync_v2 cuMemRangeGetAttribute cuMemRangeGetAttributes
    cuImportExternalMemory cuExternalMemoryGetMappedBuffer cuExternalMemoryGetMappedMipmappedArray
    cuDestroyExternalMemory cuImportExternalSemaphore cuSignalExternalSemaphoresAsync
    cuWaitExternalSemaphoresAsync cuDestroyExternalSemaphore cuGraphCreate cuGraphAddKernelNode_v2
    cuGraphKernelNodeGetParams_v2 cuGraphKernelNodeSetParams_v2 cuGraphAddMemcpyNode
    cuGraphMemcpyNodeGetParams cuGraphMemcpyNodeSetParams cuGraphAddMemsetNode
    cuGraphMemsetNodeGetParams cuGraphMemsetNodeSetParams cuGraphAddHostNode
    cuGraphHostNodeGetParams cuGraphHostNodeSetParams cuGraphAddChildGraphNode
    cuGraphChildGraphNodeGetGraph cuGraphAddEmptyNode cuGraphAddEventRecordNode
    cuGraphEventRecordNodeGetEvent cuGraphEventRecordNodeSetEvent cuGraphAddEventWaitNode
    cuGraphEventWaitNodeGetEvent cuGraphEventWaitNodeSetEvent
    cuGraphAddExternalSemaphoresSignalNode cuGraphExternalSemaphoresSignalNodeGetParams
    cuGraphExternalSemaphoresSignalNodeSetParams cuGraphAddExternalSemaphoresWaitNode
    cuGraphExternalSemaphoresWaitNodeGetParams cuGraphExternalSemaphoresWaitNodeSetParams
    cuGraphExecExternalSemaphoresSignalNodeSetParams cuGraphExecExternalSemaphoresWaitNodeSetParams
    cuGraphClone cuGraphNodeFindInClone cuGraphNodeGetType cuGraphGetNodes cuGraphGetRootNodes
    cuGraphGetEdges cuGraphGetEdges_v2 cuGraphNodeGetDependencies cuGraphNodeGetDependencies_v2
    cuGraphNodeGetDependentNodes cuGraphNodeGetDependentNodes_v2 cuGraphAddDependencies
    cuGraphAddDependencies_v2 cuGraphRemoveDependencies cuGraphRemoveDependencies_v2
    cuGraphDestroyNode cuGraphInstantiate cuGraphInstantiateWithFlags cuGraphUpload cuGraphLaunch
    cuGraphExecDestroy cuGraphDestroy cuGetProcAddress cuGetProcAddress_v2
"""
# the hooks of that list that do more than pass the call to the driver (src/cuda/memory.c,
# device.c, hook.c at HAMI_COMMIT); each must be limited here or documented above
HAMI_ACTS = {
    "cuMemAlloc_v2": "counts (allocate_raw)", "cuMemAllocManaged": "counts", "cuMemAllocPitch_v2": "counts a guessed pitch",
    "cuMemAllocAsync": "counts", "cuMemFree_v2": "uncounts", "cuMemFreeAsync": "uncounts", "cuMemCreate": "counts",
    "cuMemRelease": "uncounts", "cuMipmappedArrayCreate": "refuses when the device is already over its limit",
    "cuMemAllocHost_v2": "refuses when the device is already over its limit (after allocating host memory)",
    "cuMemHostAlloc": "refuses when the device is already over its limit (after allocating host memory)",
    "cuMemHostRegister_v2": "refuses when the device is already over its limit (after registering)",
    "cuMemGetInfo_v2": "reports the limit", "cuDeviceTotalMem_v2": "reports the limit",
    "cuLaunchKernel": "rate-limits", "cuLaunchKernelEx": "rate-limits",
    "cuGetProcAddress": "its own hooks by name (the driver's version and flags not asked)",
    "cuGetProcAddress_v2": "its own hooks by name (the driver's version and flags not asked)",
}

# every CUDA release's version number is among these (1.0 .. 13.9)
VERSIONS = [major * 1000 + minor * 10 for major in range(1, 14) for minor in range(10)]


def names_of(block):
    return block.split()


def classification():
    """{name: (kind, class)} with kind "limited" or "documented"; a name in two classes is
    an error of this file"""
    out = {}
    for kind, table in (("limited", LIMITED), ("documented", DOCUMENTED)):
        for cls, (_, block) in table.items():
            for n in names_of(block):
                if n in out:
                    sys.exit("check_real.py: %s is classified twice (%s, %s)" % (n, out[n][1], cls))
                out[n] = (kind, cls)
    return out


def find_libcuda(override):
    if override:
        return override if os.path.exists(override) else None
    out = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.strip().split(" => ")
        if len(parts) == 2 and parts[0].split()[0] == "libcuda.so.1" and "x86-64" in parts[0]:
            return parts[1]
    for d in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64"):
        p = os.path.join(d, "libcuda.so.1")
        if os.path.exists(p):
            return p
    return None


def exports(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    names = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TtWiI":  # functions (and GNU ifuncs)
            names.append(parts[2])
    return sorted(set(names))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limiter", required=True)
    ap.add_argument("--preload", help="LD_PRELOAD for the program (default: the limiter)")
    ap.add_argument("--routes-src", required=True, help="the folder of routes.c (and ../limtest.h)")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--work")
    ap.add_argument("--lib", help="the real libcuda.so.1 (default: the loader's)")
    args = ap.parse_args()

    lib = find_libcuda(args.lib)
    if not lib:
        print("SKIP: libcuda.so.1 is not installed (Debian: libcuda1, non-free); the limiter was not checked "
              "against the real driver")
        return SKIP
    real = os.path.realpath(lib)
    names = exports(lib)
    cls = classification()
    cu = [n for n in names if n.startswith("cu") and not n.startswith("cudbg")]
    failures = []
    limited, documented, irrelevant = [], [], []
    for n in cu:
        if n in cls:
            (limited if cls[n][0] == "limited" else documented).append(n)
        elif any(p.search(n) for p in ATTENTION):
            failures.append("new allocating export: classify it: %s (tests/limiter/real/check_real.py)" % n)
        else:
            irrelevant.append(n)
    print("%s (%s): %d exports read, %d of the driver API (cu*), %d the debugger's (cudbg*)"
          % (lib, real, len(names), len(cu), len(names) - len(cu)))
    print("classified: %d limited, %d documented (not limited), %d not relevant; %d unclassified"
          % (len(limited), len(documented), len(irrelevant), len(failures)))
    for table in (LIMITED, DOCUMENTED):
        for c, (why, block) in table.items():
            here = [n for n in names_of(block) if n in names]
            print("  %-22s %3d exported (%d listed)" % (c, len(here), len(names_of(block))))
    hami = HAMI_HOOKS.split()
    hami_here = [n for n in hami if n in names]
    hami_limited = [n for n in hami_here if n in limited]
    print("HAMi-core %s: %d hooks, %d exported by this driver, %d of them limited here; %d do more than pass "
          "the call on:" % (HAMI_COMMIT[:12], len(hami), len(hami_here), len(hami_limited), len(HAMI_ACTS)))
    for n, what in sorted(HAMI_ACTS.items()):
        if n not in hami:
            failures.append("HAMI_ACTS names %s, which is not in HAMI_HOOKS" % n)
        elif n in cls:
            kind, c = cls[n]
            print("  %-22s HAMi %s; here: %s (%s)" % (n, what, "limited" if kind == "limited" else "not limited", c))
        else:
            failures.append("HAMi-core acts on %s (%s); classify it" % (n, what))
    extra = [n for n in limited if n not in hami]
    print("limited here, not hooked by HAMi-core (%d): %s" % (len(extra), " ".join(extra)))
    absent = sorted(n for n in cls if n not in names)
    if absent:
        print("classified, not exported by this driver (newer or older releases): %s" % " ".join(absent))

    if args.work:
        os.makedirs(args.work, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        linked_c = os.path.join(tmp, "linked.c")
        with open(linked_c, "w") as f:
            f.write("/* generated by check_real.py: the limited exports, as linked */\n#include <stddef.h>\n")
            f.write("struct linked { const char *name; void *addr; };\n")
            for n in limited:
                f.write("extern void %s(void);\n" % n)
            f.write("const struct linked routes_linked[] = {\n")
            for n in limited:
                f.write('\t{"%s", (void *)&%s},\n' % (n, n))
            f.write("\t{NULL, NULL}};\nconst size_t routes_nlinked = %d;\n" % len(limited))
        exe = os.path.join(tmp, "routes")
        src = os.path.abspath(args.routes_src)
        cmd = [args.cc, "-std=gnu11", "-O1", "-fPIE", "-pie", "-w", "-I" + os.path.join(src, ".."), "-o", exe,
               os.path.join(src, "routes.c"), linked_c, real, "-ldl"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            print("FAIL: the route program does not build against %s:\n%s" % (real, r.stderr))
            return 1
        needed = subprocess.run(["readelf", "-d", exe], capture_output=True, text=True).stdout
        if "[libcuda.so.1]" not in needed:
            print("FAIL: the route program does not need libcuda.so.1:\n" + needed)
            return 1
        env = dict(os.environ)
        env["LD_PRELOAD"] = args.preload or args.limiter
        env["AXL_LIMITER_CUDA_LIBRARY"] = real
        env.setdefault("AXL_LIMITER_LOG", "error")
        feed = "".join("%s %s\n" % ("L" if n in limited else "-", n) for n in cu)
        feed += "".join("V %d\n" % v for v in VERSIONS)
        r = subprocess.run([exe, os.path.abspath(args.limiter)], input=feed, capture_output=True, text=True,
                           env=env, timeout=600)
        sys.stdout.write(r.stdout)
        sys.stdout.write(r.stderr)
        if r.returncode:
            failures.append("the routes program failed (exit %d)" % r.returncode)
    for f in failures:
        print("FAIL: " + f)
    print("limiter.real.routes: %s" % ("ok" if not failures else "%d failures" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
