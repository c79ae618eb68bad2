#!/bin/sh
# libaccelerator_axl.so must export the TensorFusion provider functions and nothing else;
# with seed, libaccelerator_axl_seed.so the seed era's (provider/accelerator.h and limiter.h
# at commit 0b88c6cd: src/compat/tensorfusion/seed_abi.h).
# usage: check_exports.sh LIBRARY [seed]
set -eu
lib=$1
if [ "${2:-}" = seed ]; then
want="VirtualGPUInit GetDeviceCount GetAllDevices GetDeviceTopology AssignPartition RemovePartition
SetMemHardLimit SetComputeUnitHardLimit Snapshot Resume GetProcessInformation GetDeviceMetrics
GetVendorMountLibs RegisterLogCallback
CheckAndRecordMemoryOps CheckAndRecordComputeOps FreezeWorker ResumeWorker AutoFreeze AutoResume
AddWorkerProcess"
else
want="AccelAssignPartition AccelGetAllDevices AccelGetAllDevicesTopology AccelGetAllDevicesTopologyV2
AccelGetDeviceCount AccelGetDeviceMetrics AccelGetProcessInformation AccelGetVendorMountLibs AccelInit
AccelRegisterLogCallback AccelRemovePartition AccelResume AccelSetComputeUnitHardLimit
AccelSetMemHardLimit AccelShutdown AccelSnapshot RegisterLogCallback
CheckAndRecordMemoryOps CheckAndRecordComputeOps FreezeWorker ResumeWorker AutoFreeze AutoResume
AddWorkerProcess LimiterInit LimiterShutdown LimiterCreateWorker LimiterRemoveWorker LimiterRegisterPID
LimiterUpdateERL LimiterUpdateHeartbeat LimiterSetPodMemoryUsed"
fi
got=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sed 's/@.*//' | sort -u)
exp=$(printf '%s\n' $want | sort -u)
if [ "$got" != "$exp" ]; then
	echo "exported symbols differ (< expected, > exported):"
	diff -u "$(printf '%s' "$exp" > "${TMPDIR:-/tmp}/tf-exp.$$"; echo "${TMPDIR:-/tmp}/tf-exp.$$")" \
		"$(printf '%s' "$got" > "${TMPDIR:-/tmp}/tf-got.$$"; echo "${TMPDIR:-/tmp}/tf-got.$$")" || true
	rm -f "${TMPDIR:-/tmp}/tf-exp.$$" "${TMPDIR:-/tmp}/tf-got.$$"
	exit 1
fi
echo "exports ok: $(echo "$got" | wc -l) symbols"
