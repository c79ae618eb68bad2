#!/bin/sh
# The HIP doubles export HIP entry points and nothing else, carry the SONAMEs
# libamdhip64.so.6 (ROCm 6) and libamdhip64.so.5 (ROCm 5), and the old build lacks the
# entry points it stands for an old runtime without (hipDeviceGetUuid, hipMemcpyPeerAsync).
# usage: check_exports.sh CURRENT_LIB OLD_LIB
set -u
cur=$1
old=$2
fail=0
syms() { nm -D --defined-only "$1" | awk '{print $NF}' | sort; }
for lib in "$cur" "$old"; do
  other=$(syms "$lib" | grep -v '^hip')
  if [ -n "$other" ]; then
    echo "$lib exports symbols that are not HIP's: $other"
    fail=1
  fi
done
readelf -d "$cur" | grep -q 'SONAME.*\[libamdhip64\.so\.6\]' || { echo "$cur: SONAME is not libamdhip64.so.6"; fail=1; }
readelf -d "$old" | grep -q 'SONAME.*\[libamdhip64\.so\.5\]' || { echo "$old: SONAME is not libamdhip64.so.5"; fail=1; }
for f in hipDeviceGetUuid hipMemcpyPeerAsync; do
  syms "$old" | grep -qx "$f" && { echo "the old build exports $f"; fail=1; }
  syms "$cur" | grep -qx "$f" || { echo "the current build lacks $f"; fail=1; }
done
for f in hipInit hipDriverGetVersion hipRuntimeGetVersion hipGetDeviceCount hipSetDevice hipGetDevice \
         hipDeviceGetName hipDeviceGetPCIBusId hipDeviceTotalMem hipDeviceGetAttribute hipMalloc hipFree \
         hipHostMalloc hipHostFree hipMemGetInfo hipMemcpyAsync hipMemsetAsync hipStreamCreate \
         hipStreamDestroy hipStreamSynchronize hipDeviceSynchronize hipEventCreate hipEventRecord \
         hipEventSynchronize hipEventElapsedTime hipEventDestroy hipDeviceCanAccessPeer \
         hipDeviceEnablePeerAccess hipGetErrorName hipGetErrorString hipMallocManaged hipExtMallocWithFlags \
         hipMallocAsync hipFreeAsync hipStreamGetDevice; do
  for lib in "$cur" "$old"; do
    syms "$lib" | grep -qx "$f" || { echo "$lib lacks $f"; fail=1; }
  done
done
echo "current: $(syms "$cur" | wc -l) entry points; old: $(syms "$old" | wc -l)"
exit $fail
