/* SPDX-License-Identifier: MIT */
/*
 * libaccelerator_axl_seed.so: TensorFusion's seed-era provider interface (seed_abi.h:
 * provider/accelerator.h at commit 0b88c6cd: TensorFusion v2.0.0 to v2.2.0) on the
 * provider libaccelerator_axl.so is made of (docs/tensorfusion.md). Each function here
 * translates arguments and results between the two interfaces and calls the current
 * one's function, linked into this library from the same sources; none decides anything
 * of its own. RegisterLogCallback and the limiter functions kept their names and
 * layouts: the shared files' own definitions are exported as they are.
 */
#define _GNU_SOURCE
#include "tf.h"

#include <axl/compat/limiter.h>

#include <stdlib.h>
#include <string.h>

/* The seed's types under seed_ names here (the bare names are the current interface's);
 * the functions that kept their names are declared under seed_ names and never defined
 * here. */
#define VirtualizationCapabilities seed_VirtualizationCapabilities
#define DeviceBasicInfo seed_DeviceBasicInfo
#define DevicePropertyKV seed_DevicePropertyKV
#define DeviceProperties seed_DeviceProperties
#define ExtendedDeviceInfo seed_ExtendedDeviceInfo
#define PartitionTemplate seed_PartitionTemplate
#define ExtendedDeviceTopology seed_ExtendedDeviceTopology
#define ExtraMetric seed_ExtraMetric
#define ProcessInformation seed_ProcessInformation
#define DeviceMetrics seed_DeviceMetrics
#define LogCallbackFunc seed_LogCallbackFunc
#define MemoryOpRecord seed_MemoryOpRecord
#define ComputeOpRecord seed_ComputeOpRecord
#define WorkerFreezeState seed_WorkerFreezeState
#define RegisterLogCallback seed_RegisterLogCallback
#define CheckAndRecordMemoryOps seed_CheckAndRecordMemoryOps
#define CheckAndRecordComputeOps seed_CheckAndRecordComputeOps
#define FreezeWorker seed_FreezeWorker
#define ResumeWorker seed_ResumeWorker
#define AutoFreeze seed_AutoFreeze
#define AutoResume seed_AutoResume
#define AddWorkerProcess seed_AddWorkerProcess
#include "seed_abi.h"
#undef VirtualizationCapabilities
#undef DeviceBasicInfo
#undef DevicePropertyKV
#undef DeviceProperties
#undef ExtendedDeviceInfo
#undef PartitionTemplate
#undef ExtendedDeviceTopology
#undef ExtraMetric
#undef ProcessInformation
#undef DeviceMetrics
#undef LogCallbackFunc
#undef MemoryOpRecord
#undef ComputeOpRecord
#undef WorkerFreezeState
#undef RegisterLogCallback
#undef CheckAndRecordMemoryOps
#undef CheckAndRecordComputeOps
#undef FreezeWorker
#undef ResumeWorker
#undef AutoFreeze
#undef AutoResume
#undef AddWorkerProcess

/* ---- what both interfaces share, checked -------------------------------------------- */
#define SAME_CODE(s, a) _Static_assert((int)(s) == (int)(a), #s " is " #a)
SAME_CODE(RESULT_SUCCESS, ACCEL_SUCCESS);
SAME_CODE(RESULT_ERROR_INVALID_PARAM, ACCEL_ERROR_INVALID_PARAM);
SAME_CODE(RESULT_ERROR_NOT_FOUND, ACCEL_ERROR_NOT_FOUND);
SAME_CODE(RESULT_ERROR_NOT_SUPPORTED, ACCEL_ERROR_NOT_SUPPORTED);
SAME_CODE(RESULT_ERROR_RESOURCE_EXHAUSTED, ACCEL_ERROR_RESOURCE_EXHAUSTED);
SAME_CODE(RESULT_ERROR_OPERATION_FAILED, ACCEL_ERROR_OPERATION_FAILED);
SAME_CODE(RESULT_ERROR_INTERNAL, ACCEL_ERROR_INTERNAL);
_Static_assert(sizeof(Result) == sizeof(AccelResult), "Result is AccelResult's size");
/* the layouts handed through unchanged (and the limiter's, exported as they are) */
#define SAME_LAYOUT(s, a, f1, f2)                                                                        \
	_Static_assert(sizeof(s) == sizeof(a) && _Alignof(s) == _Alignof(a) &&                          \
			       offsetof(s, f1) == offsetof(a, f1) && offsetof(s, f2) == offsetof(a, f2), \
		       #s " is " #a)
SAME_LAYOUT(seed_VirtualizationCapabilities, VirtualizationCapabilities, maxPartitions, maxWorkersPerDevice);
SAME_LAYOUT(seed_DeviceProperties, DeviceProperties, properties, count);
SAME_LAYOUT(seed_ProcessInformation, ProcessInformation, deviceUUID, memoryUtilizationPercent);
SAME_LAYOUT(seed_DeviceMetrics, DeviceMetrics, extraMetrics, extraMetricsCount);
SAME_LAYOUT(Mount, MountPath, hostPath, guestPath);
SAME_LAYOUT(seed_MemoryOpRecord, MemoryOpRecord, shouldBlock, availableBytes);
SAME_LAYOUT(seed_ComputeOpRecord, ComputeOpRecord, shouldBlock, availableTokens);
SAME_LAYOUT(seed_WorkerFreezeState, WorkerFreezeState, isFrozen, freezeTimeMs);
_Static_assert(sizeof(((seed_DeviceBasicInfo *)0)->uuid) == sizeof(((DeviceBasicInfo *)0)->uuid) &&
		       sizeof(((seed_DeviceBasicInfo *)0)->vendor) == sizeof(((DeviceBasicInfo *)0)->vendor) &&
		       sizeof(((seed_DeviceBasicInfo *)0)->model) == sizeof(((DeviceBasicInfo *)0)->model) &&
		       sizeof(((seed_DeviceBasicInfo *)0)->firmwareVersion) ==
			       sizeof(((DeviceBasicInfo *)0)->firmwareVersion),
	       "the strings copied whole");

static Result res(AccelResult r)
{
	return (Result)r;
}

/* A char[64] of the host's as a string, whether or not it holds a NUL. */
static void field(char out[65], const char in[64])
{
	memcpy(out, in, 64);
	out[64] = '\0';
}

/* ---- initialization and discovery ------------------------------------------------------- */
TF_API Result VirtualGPUInit(void)
{
	return res(AccelInit());
}

TF_API Result GetDeviceCount(size_t *deviceCount)
{
	return res(AccelGetDeviceCount(deviceCount));
}

/* The current row in the seed's: driverVersion is 16 bytes shorter, and the deviceNode
 * the seed has no field for goes to the properties (while there is room). */
static void basic_info(const ExtendedDeviceInfo *in, seed_ExtendedDeviceInfo *out)
{
	memset(out, 0, sizeof *out);
	const DeviceBasicInfo *b = &in->basic;
	seed_DeviceBasicInfo *s = &out->basic;
	memcpy(s->uuid, b->uuid, sizeof s->uuid);
	memcpy(s->vendor, b->vendor, sizeof s->vendor);
	memcpy(s->model, b->model, sizeof s->model);
	tf_copy(s->driverVersion, sizeof s->driverVersion, b->driverVersion);
	memcpy(s->firmwareVersion, b->firmwareVersion, sizeof s->firmwareVersion);
	s->index = b->index;
	s->numaNode = b->numaNode;
	s->totalMemoryBytes = b->totalMemoryBytes;
	s->totalComputeUnits = b->totalComputeUnits;
	s->maxTflops = b->maxTflops;
	s->pcieGen = b->pcieGen;
	s->pcieWidth = b->pcieWidth;
	memcpy(&out->props, &in->props, sizeof out->props);
	memcpy(&out->virtualizationCapabilities, &in->virtualizationCapabilities,
	       sizeof out->virtualizationCapabilities);
	seed_DeviceProperties *p = &out->props;
	if (b->deviceNode[0] && p->count < MAX_DEVICE_PROPERTIES) {
		tf_copy(p->properties[p->count].key, sizeof p->properties[p->count].key, "deviceNode");
		tf_copy(p->properties[p->count].value, sizeof p->properties[p->count].value, b->deviceNode);
		p->count++;
	}
}

TF_API Result GetAllDevices(seed_ExtendedDeviceInfo *devices, size_t maxCount, size_t *deviceCount)
{
	if (!devices || !deviceCount || maxCount == 0)
		return RESULT_ERROR_INVALID_PARAM;
	/* the provider lists at most MAX_TOPOLOGY_DEVICES */
	size_t cap = maxCount < MAX_TOPOLOGY_DEVICES ? maxCount : MAX_TOPOLOGY_DEVICES;
	ExtendedDeviceInfo *cur = calloc(cap, sizeof *cur);
	if (!cur)
		return RESULT_ERROR_RESOURCE_EXHAUSTED;
	size_t n = 0;
	AccelResult r = AccelGetAllDevices(cur, cap, &n);
	if (r == ACCEL_SUCCESS) {
		for (size_t i = 0; i < n; i++)
			basic_info(&cur[i], &devices[i]);
		*deviceCount = n;
	}
	free(cur);
	return res(r);
}

/* ---- topology ----------------------------------------------------------------------- */
/* The seed's one type for a set of devices: the farthest level between two of them. */
static const char *level_name(TopoLevelType l)
{
	switch (l) {
	case TOPO_LEVEL_INTERNAL: return "Internal";
	case TOPO_LEVEL_SINGLE_SWITCH: return "PCIeSwitch";
	case TOPO_LEVEL_MULTI_SWITCH: return "PCIeMultiSwitch";
	case TOPO_LEVEL_HOST_BRIDGE: return "PCIeHostBridge";
	case TOPO_LEVEL_NUMA_NODE: return "NUMANode";
	case TOPO_LEVEL_SYSTEM: return "System";
	case TOPO_LEVEL_SELF: return "Self";
	default: return "Unknown";
	}
}

/* deviceIndexArray: devices' indexes, which are their positions in GetAllDevices' list
 * (unique across vendors on a mixed node). */
TF_API Result GetDeviceTopology(int32_t *deviceIndexArray, size_t deviceCount, seed_ExtendedDeviceTopology *topology)
{
	if (!deviceIndexArray || deviceCount == 0 || !topology || deviceCount > MAX_TOPOLOGY_DEVICES)
		return RESULT_ERROR_INVALID_PARAM;
	ExtendedDeviceTopologyV2 *all = calloc(1, sizeof *all);
	if (!all)
		return RESULT_ERROR_RESOURCE_EXHAUSTED;
	AccelResult r = AccelGetAllDevicesTopologyV2(all);
	if (r != ACCEL_SUCCESS) {
		free(all);
		return res(r);
	}
	for (size_t i = 0; i < deviceCount; i++) {
		int32_t k = deviceIndexArray[i];
		if (k < 0 || (size_t)k >= all->deviceCount) {
			tf_log("WARN", "topology: no device at index %d (%zu listed)", (int)k, all->deviceCount);
			free(all);
			return RESULT_ERROR_NOT_FOUND;
		}
	}
	memset(topology, 0, sizeof *topology);
	TopoLevelType far = TOPO_LEVEL_SELF;
	for (size_t i = 0; i < deviceCount; i++) {
		const DeviceTopologyInfoV2 *row = &all->devices[deviceIndexArray[i]];
		memcpy(topology->devices[i].deviceUUID, row->deviceUUID, sizeof topology->devices[i].deviceUUID);
		topology->devices[i].numaNode = row->numaNode;
		for (size_t j = 0; j < deviceCount; j++) {
			int32_t p = deviceIndexArray[j];
			if (p == deviceIndexArray[i] || (size_t)p >= row->peerCount)
				continue;
			TopoLevelType l = row->peers[p].topoLevel;
			/* unknown is the farthest: nothing is promised */
			if (far == TOPO_LEVEL_SELF || l == TOPO_LEVEL_UNKNOWN ||
			    (far != TOPO_LEVEL_UNKNOWN && l > far))
				far = l;
		}
	}
	topology->deviceCount = deviceCount;
	tf_copy(topology->topologyType, sizeof topology->topologyType, level_name(far));
	free(all);
	return RESULT_SUCCESS;
}

/* ---- partitions ----------------------------------------------------------------------- */
TF_API bool AssignPartition(PartitionAssignment *assignment)
{
	if (!assignment)
		return false;
	char templ[65], dev[65];
	field(templ, assignment->templateId);
	field(dev, assignment->deviceUUID);
	PartitionResult *pr = calloc(1, sizeof *pr);
	if (!pr)
		return false;
	AccelResult r = AccelAssignPartition(templ, dev, pr);
	if (r != ACCEL_SUCCESS) {
		free(pr);
		return false;
	}
	memcpy(assignment->partitionUUID, pr->deviceUUID, sizeof assignment->partitionUUID);
	assignment->envVarCount = 0;
	for (size_t i = 0; i < MAX_PARTITION_ENVS && pr->envVars[i][0]; i++) {
		const char *kv = pr->envVars[i];
		const char *eq = strchr(kv, '=');
		EnvVar *e = &assignment->envVars[assignment->envVarCount];
		if (!eq || (size_t)(eq - kv) >= sizeof e->key) {
			tf_log("WARN", "assign partition: environment entry left out: %.80s", kv);
			continue;
		}
		memset(e, 0, sizeof *e);
		memcpy(e->key, kv, (size_t)(eq - kv));
		tf_copy(e->value, sizeof e->value, eq + 1);
		assignment->envVarCount++;
	}
	/* the seed's assignment has no device nodes: the host of its era mounts none */
	for (size_t i = 0; i < MAX_PARTITION_DEVICE_NODES && pr->deviceNodes[i][0]; i++)
		tf_log("INFO",
		       "assign partition: device node %.200s not passed (the seed interface has no field for it)",
		       pr->deviceNodes[i]);
	free(pr);
	return true;
}

TF_API bool RemovePartition(const char *templateId, const char *deviceUUID)
{
	return AccelRemovePartition(templateId, deviceUUID) == ACCEL_SUCCESS;
}

/* ---- hard limits: set in the calling worker, as the current interface does; workerId
 * names it in the log ---------------------------------------------------------------- */
TF_API Result SetMemHardLimit(const char *workerId, const char *deviceUUID, uint64_t memoryLimitBytes)
{
	if (!workerId || !*workerId)
		return RESULT_ERROR_INVALID_PARAM;
	Result r = res(AccelSetMemHardLimit(deviceUUID, memoryLimitBytes));
	if (r == RESULT_SUCCESS)
		tf_log("DEBUG", "worker %.64s: memory limit set", workerId);
	return r;
}

TF_API Result SetComputeUnitHardLimit(const char *workerId, const char *deviceUUID, uint32_t computeUnitLimit)
{
	if (!workerId || !*workerId)
		return RESULT_ERROR_INVALID_PARAM;
	Result r = res(AccelSetComputeUnitHardLimit(deviceUUID, computeUnitLimit));
	if (r == RESULT_SUCCESS)
		tf_log("DEBUG", "worker %.64s: compute limit set", workerId);
	return r;
}

/* ---- snapshot: the processes inline, deviceUUID "" for none -------------------------- */
static Result snapshot(ProcessArray *processes, bool resume)
{
	if (!processes || processes->processCount > MAX_PROCESSES)
		return RESULT_ERROR_INVALID_PARAM;
	char dev[65];
	field(dev, processes->deviceUUID);
	SnapshotContext c = {
		.processIds = processes->processCount ? processes->processIds : NULL,
		.processCount = processes->processCount,
		.deviceUUID = dev[0] ? dev : NULL,
	};
	return res(resume ? AccelResume(&c) : AccelSnapshot(&c));
}

TF_API Result Snapshot(ProcessArray *processes)
{
	return snapshot(processes, false);
}

TF_API Result Resume(ProcessArray *processes)
{
	return snapshot(processes, true);
}

/* ---- metrics and mounts: the same layouts (checked above) ---------------------------- */
TF_API Result GetProcessInformation(seed_ProcessInformation *processInfos, size_t maxCount, size_t *processInfoCount)
{
	return res(AccelGetProcessInformation((ProcessInformation *)(void *)processInfos, maxCount, processInfoCount));
}

TF_API Result GetDeviceMetrics(const char **deviceUUIDs, size_t deviceCount, seed_DeviceMetrics *metrics)
{
	return res(AccelGetDeviceMetrics(deviceUUIDs, deviceCount, (DeviceMetrics *)(void *)metrics));
}

TF_API Result GetVendorMountLibs(Mount *mounts, size_t maxCount, size_t *mountCount)
{
	return res(AccelGetVendorMountLibs((MountPath *)(void *)mounts, maxCount, mountCount));
}
