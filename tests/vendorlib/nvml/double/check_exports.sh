#!/bin/sh
# The doubles export NVML entry points and nothing else, carry the SONAME
# libnvidia-ml.so.1, and the 2017-era build lacks every versioned, MIG and later entry point.
# usage: check_exports.sh CURRENT_LIB OLD_LIB
set -u
cur=$1
old=$2
fail=0
syms() { nm -D --defined-only "$1" | awk '{print $NF}' | sort; }
for lib in "$cur" "$old"; do
  other=$(syms "$lib" | grep -v '^nvml')
  if [ -n "$other" ]; then
    echo "$lib exports symbols that are not NVML's: $other"
    fail=1
  fi
  if ! readelf -d "$lib" | grep -q 'SONAME.*\[libnvidia-ml\.so\.1\]'; then
    echo "$lib: SONAME is not libnvidia-ml.so.1"
    fail=1
  fi
done
newer=$(syms "$old" | grep -E '_v[0-9]+$|V$|Mig|GpuInstance|ComputeInstance|NumGpuCores|Attributes|Architecture|EventReasons|InitWithFlags|RemoteDeviceType')
if [ -n "$newer" ]; then
  echo "the old build exports: $newer"
  fail=1
fi
for f in nvmlInit nvmlShutdown nvmlDeviceGetCount nvmlDeviceGetHandleByIndex nvmlDeviceGetPciInfo nvmlDeviceGetMemoryInfo; do
  syms "$old" | grep -qx "$f" || { echo "the old build lacks $f"; fail=1; }
done
echo "current: $(syms "$cur" | wc -l) entry points; old: $(syms "$old" | wc -l)"
exit $fail
