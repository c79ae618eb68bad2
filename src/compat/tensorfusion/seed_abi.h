/* SPDX-License-Identifier: MIT */
/*
 * TensorFusion's seed-era vendor-provider interface, as libaccelerator_axl_seed.so
 * exports it (docs/tensorfusion.md, "Which library a TensorFusion loads").
 *
 * The ABI of NexusGPU/tensor-fusion's provider/accelerator.h and provider/limiter.h at
 * commit 0b88c6cd (2026-01-20, "refactor to heterogeneous device provider mode", #511),
 * in force until #552 (2026-01-30, commit 2528dc51, which renamed VirtualGPUInit and
 * changed the arguments and layouts): TensorFusion v2.0.0 to v2.2.0. Written by
 * axl from that commit's names, prototypes and x86_64 layouts; the layouts are pinned
 * below. The type names are the seed's own, so a file including this header cannot also
 * see <axl/compat/accelerator.h> under the same names: seed.c renames them around its
 * include of this one.
 */
#ifndef AXL_TF_SEED_ABI_H
#define AXL_TF_SEED_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- constants (accelerator.h) ------------------------------------------------- */
#define MAX_DEVICE_PROPERTIES 64
#define MAX_TOPOLOGY_DEVICES 64
#define MAX_PARTITION_ENVS 16
#define MAX_ENV_KEY_LENGTH 64
#define MAX_ENV_VALUE_LENGTH 256
#define MAX_PROCESSES 1024
#define MAX_EXTRA_METRICS 64
#define MAX_DEVICE_UUIDS 64
#define UUID_STRING_LENGTH 64
#define MAX_MOUNT_PATH 512

/* ---- result codes -------------------------------------------------------------- */
typedef enum {
	RESULT_SUCCESS = 0,
	RESULT_ERROR_INVALID_PARAM = 1,
	RESULT_ERROR_NOT_FOUND = 2,
	RESULT_ERROR_NOT_SUPPORTED = 3,
	RESULT_ERROR_RESOURCE_EXHAUSTED = 4,
	RESULT_ERROR_OPERATION_FAILED = 5,
	RESULT_ERROR_INTERNAL = 6
} Result;

/* level: "DEBUG", "INFO", "WARN", "ERROR" */
typedef void (*LogCallbackFunc)(const char *level, const char *message);

/* ---- devices ------------------------------------------------------------------- */
typedef struct {
	bool supportsPartitioning;
	bool supportsSoftIsolation;
	bool supportsHardIsolation;
	bool supportsSnapshot;
	bool supportsMetrics;
	bool supportsRemoting;
	uint32_t maxPartitions;
	uint32_t maxWorkersPerDevice;
} VirtualizationCapabilities;

/* The seed's basic info: driverVersion is 64 bytes and there is no deviceNode (both
 * changed in #582). */
typedef struct {
	char uuid[64];
	char vendor[32];
	char model[128];
	char driverVersion[64];
	char firmwareVersion[64];
	int32_t index;
	int32_t numaNode; /* -1: none */
	uint64_t totalMemoryBytes;
	uint64_t totalComputeUnits;
	double maxTflops;
	uint32_t pcieGen;
	uint32_t pcieWidth;
} DeviceBasicInfo;

typedef struct {
	char key[64];
	char value[256];
} DevicePropertyKV;

typedef struct {
	DevicePropertyKV properties[MAX_DEVICE_PROPERTIES];
	size_t count;
} DeviceProperties;

typedef struct {
	DeviceBasicInfo basic;
	DeviceProperties props;
	VirtualizationCapabilities virtualizationCapabilities;
} ExtendedDeviceInfo;

/* Declared by the interface, used by no function of it. */
typedef struct {
	char templateId[64];
	char name[128];
	uint64_t memoryBytes;
	uint64_t computeUnits;
	double tflops;
	uint32_t sliceCount;
	bool isDefault;
	char description[256];
} PartitionTemplate;

/* ---- topology: one row per device asked for, one type for the whole set ---------- */
typedef struct {
	char deviceUUID[64];
	int32_t numaNode;
} DeviceTopology;

typedef struct {
	DeviceTopology devices[MAX_TOPOLOGY_DEVICES];
	size_t deviceCount;
	char topologyType[32];
} ExtendedDeviceTopology;

/* ---- virtualization ------------------------------------------------------------ */
typedef struct {
	char key[MAX_ENV_KEY_LENGTH];
	char value[MAX_ENV_VALUE_LENGTH];
} EnvVar;

/* templateId and deviceUUID in; partitionUUID and envVars out. */
typedef struct {
	char templateId[64];
	char deviceUUID[64];
	char partitionUUID[64];
	EnvVar envVars[MAX_PARTITION_ENVS];
	size_t envVarCount;
} PartitionAssignment;

/* Declared by the interface, used by no function of it. */
typedef struct {
	char workerId[64];
	char deviceUUID[64];
	pid_t processId;
	uint64_t memoryLimitBytes;
	uint32_t computeUnitLimit;
} WorkerInfo;

/* The processes inline (the current interface's SnapshotContext points at them);
 * deviceUUID "" is every device. */
typedef struct {
	pid_t processIds[MAX_PROCESSES];
	size_t processCount;
	char deviceUUID[64];
} ProcessArray;

/* ---- metrics (the layouts the current interface kept) -------------------------- */
typedef struct {
	char key[64];
	double value;
} ExtraMetric;

typedef struct {
	char processId[32];
	char deviceUUID[64];
	double computeUtilizationPercent;
	uint64_t activeSMs;
	uint64_t totalSMs;
	uint64_t memoryUsedBytes;
	uint64_t memoryReservedBytes;
	double memoryUtilizationPercent;
} ProcessInformation;

typedef struct {
	char deviceUUID[64];
	double powerUsageWatts;
	double temperatureCelsius;
	uint64_t pcieRxBytes;
	uint64_t pcieTxBytes;
	uint32_t utilizationPercent;
	uint64_t memoryUsedBytes;
	ExtraMetric extraMetrics[MAX_EXTRA_METRICS];
	size_t extraMetricsCount;
} DeviceMetrics;

/* Declared as deprecated by the interface, used by no function of it. */
typedef struct {
	char uuid[UUID_STRING_LENGTH];
} DeviceUUIDEntry;

typedef struct {
	char hostPath[MAX_MOUNT_PATH];
	char guestPath[MAX_MOUNT_PATH];
} Mount;

/* ---- limiter.h ------------------------------------------------------------------ */
typedef struct {
	char deviceUUID[64];
	int64_t bytesDiff;
	bool shouldBlock;
	uint64_t availableBytes;
} MemoryOpRecord;

typedef struct {
	char deviceUUID[64];
	uint64_t computeTokens;
	bool shouldBlock;
	uint64_t availableTokens;
} ComputeOpRecord;

typedef struct {
	char workerId[64];
	bool isFrozen;
	uint64_t freezeTimeMs;
} WorkerFreezeState;

/* ---- functions (accelerator.h) ------------------------------------------------- */
Result VirtualGPUInit(void);
Result GetDeviceCount(size_t *deviceCount);
Result GetAllDevices(ExtendedDeviceInfo *devices, size_t maxCount, size_t *deviceCount);
Result GetDeviceTopology(int32_t *deviceIndexArray, size_t deviceCount, ExtendedDeviceTopology *topology);
bool AssignPartition(PartitionAssignment *assignment);
bool RemovePartition(const char *templateId, const char *deviceUUID);
Result SetMemHardLimit(const char *workerId, const char *deviceUUID, uint64_t memoryLimitBytes);
Result SetComputeUnitHardLimit(const char *workerId, const char *deviceUUID, uint32_t computeUnitLimit);
Result Snapshot(ProcessArray *processes);
Result Resume(ProcessArray *processes);
Result GetProcessInformation(ProcessInformation *processInfos, size_t maxCount, size_t *processInfoCount);
Result GetDeviceMetrics(const char **deviceUUIDs, size_t deviceCount, DeviceMetrics *metrics);
Result GetVendorMountLibs(Mount *mounts, size_t maxCount, size_t *mountCount);
Result RegisterLogCallback(LogCallbackFunc callback);

/* ---- functions (limiter.h) ----------------------------------------------------- */
Result CheckAndRecordMemoryOps(const char *processId, const char *deviceUUID, int64_t bytesDiff,
			       MemoryOpRecord *record);
Result CheckAndRecordComputeOps(const char *processId, const char *deviceUUID, uint64_t computeTokens,
				ComputeOpRecord *record);
Result FreezeWorker(const char *workerId, WorkerFreezeState *state);
Result ResumeWorker(const char *workerId, WorkerFreezeState *state);
Result AutoFreeze(const char *workerId, const char *deviceUUID, const char *resourceType);
Result AutoResume(const char *workerId, const char *deviceUUID, const char *resourceType);
Result AddWorkerProcess(const char *deviceUUID, const char *processId);

/* ---- the x86_64 layouts of commit 0b88c6cd, checked -------------------------- */
#include "seed_abi_layout.h"

#endif
