#!/bin/sh
# The CUDA doubles export CUDA driver API entry points (cu + a capital) and the double's own
# axl_cuda_double_* functions, nothing else, carry the SONAME libcuda.so.1, and the old build
# lacks the later entry points (the checkpoint calls among them).
# usage: check_exports.sh CURRENT_LIB OLD_LIB
set -u
cur=$1
old=$2
fail=0
syms() { nm -D --defined-only "$1" | awk '{print $NF}' | sort; }
for lib in "$cur" "$old"; do
  other=$(syms "$lib" | grep -v '^cu[A-Z]' | grep -v '^axl_cuda_double_')
  if [ -n "$other" ]; then
    echo "$lib exports symbols that are not the CUDA driver API's: $other"
    fail=1
  fi
  if ! readelf -d "$lib" | grep -q 'SONAME.*\[libcuda\.so\.1\]'; then
    echo "$lib: SONAME is not libcuda.so.1"
    fail=1
  fi
done
for f in cuMemcpyPeerAsync cuDeviceGetUuid_v2 cuMemGetInfo_v2 cuDevicePrimaryCtxRelease_v2 \
         cuCheckpointProcessGetState cuCheckpointProcessLock cuCheckpointProcessCheckpoint \
         cuCheckpointProcessRestore cuCheckpointProcessUnlock; do
  syms "$cur" | grep -qx "$f" || { echo "the current build lacks $f"; fail=1; }
  if syms "$old" | grep -qx "$f"; then
    echo "the old build exports $f"
    fail=1
  fi
done
for f in cuInit cuDriverGetVersion cuDeviceGetCount cuDeviceGet cuDeviceGetName cuDeviceGetPCIBusId \
         cuDeviceGetUuid cuDeviceTotalMem_v2 cuDeviceGetAttribute cuDevicePrimaryCtxRetain \
         cuDevicePrimaryCtxRelease cuCtxSetCurrent cuCtxGetCurrent cuCtxSynchronize cuMemAlloc_v2 \
         cuMemFree_v2 cuMemHostAlloc cuMemFreeHost cuMemGetInfo cuMemcpyHtoDAsync_v2 cuMemcpyDtoHAsync_v2 \
         cuMemcpyDtoDAsync_v2 cuMemsetD8Async cuStreamCreate cuStreamDestroy_v2 cuStreamSynchronize \
         cuEventCreate cuEventRecord cuEventSynchronize cuEventElapsedTime cuEventDestroy_v2 \
         cuDeviceCanAccessPeer cuCtxEnablePeerAccess cuGetErrorName cuGetErrorString \
         cuStreamQuery cuEventQuery cuMemAllocPitch_v2 cuMemAllocManaged cuMemAllocAsync cuMemFreeAsync \
         cuMemPoolCreate cuMemPoolDestroy cuDeviceGetDefaultMemPool cuMemAllocFromPoolAsync cuMemPoolTrimTo \
         cuMemPoolGetAttribute cuMemPoolSetAttribute cuDeviceGetMemPool cuMemCreate cuMemRelease cuMemAddressReserve cuMemAddressFree cuMemMap \
         cuMemUnmap cuMemSetAccess cuMemGetAllocationGranularity cuArrayCreate_v2 cuArrayDestroy \
         cuMipmappedArrayCreate cuMipmappedArrayDestroy cuModuleLoadData cuModuleGetFunction cuModuleUnload \
         cuLaunchKernel cuLaunchKernelEx cuLaunchCooperativeKernel cuStreamBeginCapture_v2 cuStreamIsCapturing cuStreamEndCapture \
         cuGraphCreate cuGraphAddKernelNode_v2 cuGraphGetNodes cuGraphKernelNodeGetParams_v2 \
         cuGraphInstantiateWithFlags cuGraphInstantiate_v2 cuGraphLaunch cuGraphExecDestroy cuGraphDestroy \
         cuGetProcAddress cuGetProcAddress_v2 axl_cuda_double_utilization \
         cuMemAlloc cuMemAllocPitch cuMemFree cuDeviceTotalMem cuArrayCreate cuArray3DCreate cuArray3DCreate_v2 \
         cuGraphNodeGetType cuGraphAddMemAllocNode cuGraphAddMemFreeNode cuGraphMemAllocNodeGetParams \
         cuGraphUpload cuDeviceGraphMemTrim cuDeviceGetGraphMemAttribute cuGraphInstantiateWithParams \
         cuMemRetainAllocationHandle cuGraphAddNode cuGraphAddNode_v2; do
  for lib in "$cur" "$old"; do
    syms "$lib" | grep -qx "$f" || { echo "$lib lacks $f"; fail=1; }
  done
done
echo "current: $(syms "$cur" | wc -l) entry points; old: $(syms "$old" | wc -l)"
exit $fail
