#!/bin/sh
# The doubles export Level Zero entry points (ze*, zes*) and nothing else, carry the
# SONAME libze_loader.so.1, and the old build lacks what Level Zero 1.5 added (and the
# PCI properties extension and zeCommandListHostSynchronize) but has the core compute calls.
# usage: check_exports.sh CURRENT_LIB OLD_LIB
set -u
cur=$1
old=$2
fail=0
syms() { nm -D --defined-only "$1" | awk '{print $NF}' | sort; }
for lib in "$cur" "$old"; do
  other=$(syms "$lib" | grep -v '^zes\?[A-Z]')
  if [ -n "$other" ]; then
    echo "$lib exports symbols that are not Level Zero's: $other"
    fail=1
  fi
  if ! readelf -d "$lib" | grep -q 'SONAME.*\[libze_loader\.so\.1\]'; then
    echo "$lib: SONAME is not libze_loader.so.1"
    fail=1
  fi
done
for f in zesInit zesDriverGet zesDeviceGet zesPowerGetLimitsExt zeDevicePciGetPropertiesExt zeCommandListHostSynchronize; do
  syms "$cur" | grep -qx "$f" || { echo "the current build lacks $f"; fail=1; }
  syms "$old" | grep -qx "$f" && { echo "the old build exports $f"; fail=1; }
done
for f in zeInit zeDriverGet zeDeviceGet zesDeviceGetProperties zesDevicePciGetProperties zesPowerGetLimits \
	zeDeviceGetProperties zeMemAllocDevice zeCommandListCreateImmediate zeCommandListAppendMemoryCopy \
	zeEventHostSynchronize; do
  syms "$old" | grep -qx "$f" || { echo "the old build lacks $f"; fail=1; }
done
echo "current: $(syms "$cur" | wc -l) entry points; old: $(syms "$old" | wc -l)"
exit $fail
