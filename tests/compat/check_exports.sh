#!/bin/sh
# libaccelerator_axl.so must export the TensorFusion provider functions and nothing else.
# usage: check_exports.sh LIBRARY
set -eu
lib=$1
want="AccelAssignPartition AccelGetAllDevices AccelGetAllDevicesTopology AccelGetAllDevicesTopologyV2
AccelGetDeviceCount AccelGetDeviceMetrics AccelGetProcessInformation AccelGetVendorMountLibs AccelInit
AccelRegisterLogCallback AccelRemovePartition AccelResume AccelSetComputeUnitHardLimit
AccelSetMemHardLimit AccelShutdown AccelSnapshot RegisterLogCallback
CheckAndRecordMemoryOps CheckAndRecordComputeOps FreezeWorker ResumeWorker AutoFreeze AutoResume
AddWorkerProcess LimiterInit LimiterShutdown LimiterCreateWorker LimiterRemoveWorker LimiterRegisterPID
LimiterUpdateERL LimiterUpdateHeartbeat LimiterSetPodMemoryUsed"
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
