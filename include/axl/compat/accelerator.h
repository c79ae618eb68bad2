/* SPDX-License-Identifier: MIT */
/**
 * @file axl/compat/accelerator.h
 * The TensorFusion vendor-provider interface, as libaccelerator_axl.so implements it
 * (docs/tensorfusion.md). Written by axl from the public description of the interface:
 * the names, signatures and x86_64 layouts are the ABI a TensorFusion host dlopen()s;
 * nothing here is taken from TensorFusion's own header.
 *
 * Every function returns an AccelResult. The caller owns every buffer; strings are
 * fixed char arrays the library always NUL-terminates (truncating, never overflowing).
 */
#ifndef AXL_COMPAT_ACCELERATOR_H
#define AXL_COMPAT_ACCELERATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constants ------------------------------------------------------------------ */
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
#define MAX_PARTITION_DEVICE_NODES 16
#define MAX_PARTITION_DEVICE_NODE_LENGTH (2 * MAX_MOUNT_PATH + 2)

/* ---- enums (4 bytes each) ------------------------------------------------------- */
typedef enum {
	ACCEL_SUCCESS = 0,
	ACCEL_ERROR_INVALID_PARAM = 1,
	ACCEL_ERROR_NOT_FOUND = 2,
	ACCEL_ERROR_NOT_SUPPORTED = 3,
	ACCEL_ERROR_RESOURCE_EXHAUSTED = 4,
	ACCEL_ERROR_OPERATION_FAILED = 5,
	ACCEL_ERROR_INTERNAL = 6
} AccelResult;

typedef enum {
	TOPO_LEVEL_INTERNAL = 0,      /* same board, NVLink / xGMI class link */
	TOPO_LEVEL_SINGLE_SWITCH = 1, /* one PCIe switch */
	TOPO_LEVEL_MULTI_SWITCH = 2,  /* several PCIe switches */
	TOPO_LEVEL_HOST_BRIDGE = 3,   /* through a host bridge */
	TOPO_LEVEL_NUMA_NODE = 4,     /* same NUMA node, across host bridges */
	TOPO_LEVEL_SYSTEM = 5,        /* across NUMA nodes */
	TOPO_LEVEL_SELF = 6,
	TOPO_LEVEL_UNKNOWN = 7
} TopoLevelType;

typedef enum {
	PARTITION_TYPE_ENVIRONMENT_VARIABLE = 0,
	PARTITION_TYPE_DEVICE_NODE = 1
} PartitionResultType;

/* ---- structures ----------------------------------------------------------------- */
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

typedef struct {
	char uuid[64];
	char vendor[32];
	char model[128];
	char driverVersion[80];
	char firmwareVersion[64];
	char deviceNode[64];
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

/* Declared by the interface, used by no function. */
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

typedef struct {
	char peerUUID[64];
	int32_t peerIndex;
	TopoLevelType topoLevel;
} DeviceTopoNode;

typedef struct {
	char deviceUUID[64];
	int32_t deviceIndex;
	int32_t numaNode;
	DeviceTopoNode peers[MAX_TOPOLOGY_DEVICES];
	size_t peerCount;
} DeviceTopologyInfo;

typedef struct {
	DeviceTopologyInfo devices[MAX_TOPOLOGY_DEVICES];
	size_t deviceCount;
} ExtendedDeviceTopology;

/*
 * The layout the Go host reads since 2026-04: each peer has a trailing
 * bandwidthBytesPerSec (per direction; 0 when not known). Filled by
 * AccelGetAllDevicesTopologyV2(), or by AccelGetAllDevicesTopology() when
 * AXL_TF_TOPOLOGY_LAYOUT=go is set in the environment (docs/tensorfusion.md).
 */
typedef struct {
	char peerUUID[64];
	int32_t peerIndex;
	TopoLevelType topoLevel;
	int64_t bandwidthBytesPerSec;
} DeviceTopoNodeV2;

typedef struct {
	char deviceUUID[64];
	int32_t deviceIndex;
	int32_t numaNode;
	DeviceTopoNodeV2 peers[MAX_TOPOLOGY_DEVICES];
	size_t peerCount;
} DeviceTopologyInfoV2;

typedef struct {
	DeviceTopologyInfoV2 devices[MAX_TOPOLOGY_DEVICES];
	size_t deviceCount;
} ExtendedDeviceTopologyV2;

typedef struct {
	pid_t *processIds;
	size_t processCount;
	const char *deviceUUID;
} SnapshotContext;

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

typedef struct {
	char hostPath[MAX_MOUNT_PATH];
	char guestPath[MAX_MOUNT_PATH];
} MountPath;

typedef struct {
	PartitionResultType type;
	char deviceUUID[64];
	char envVars[MAX_PARTITION_ENVS][MAX_ENV_VALUE_LENGTH];
	char deviceNodes[MAX_PARTITION_DEVICE_NODES][MAX_PARTITION_DEVICE_NODE_LENGTH];
} PartitionResult;

/* level: "DEBUG", "INFO", "WARN", "ERROR" (this library never sends "FATAL"). */
typedef void (*LogCallbackFunc)(const char *level, const char *message);

/* ---- functions ------------------------------------------------------------------ */
AccelResult AccelInit(void);
AccelResult AccelShutdown(void);
AccelResult AccelGetDeviceCount(size_t *deviceCount);
AccelResult AccelGetAllDevices(ExtendedDeviceInfo *devices, size_t maxCount, size_t *deviceCount);
AccelResult AccelGetAllDevicesTopology(ExtendedDeviceTopology *topology);
/* axl's extension: the Go host's layout, whatever AXL_TF_TOPOLOGY_LAYOUT says. */
AccelResult AccelGetAllDevicesTopologyV2(ExtendedDeviceTopologyV2 *topology);
AccelResult AccelAssignPartition(const char *templateId, const char *deviceUUID, PartitionResult *out);
AccelResult AccelRemovePartition(const char *templateId, const char *deviceUUID);
AccelResult AccelSetMemHardLimit(const char *deviceUUID, uint64_t memoryLimitBytes);
AccelResult AccelSetComputeUnitHardLimit(const char *deviceUUID, uint32_t computeUnitLimit);
AccelResult AccelSnapshot(SnapshotContext *ctx);
AccelResult AccelResume(SnapshotContext *ctx);
AccelResult AccelGetProcessInformation(ProcessInformation *processInfos, size_t maxCount, size_t *processInfoCount);
AccelResult AccelGetDeviceMetrics(const char **deviceUUIDArray, size_t deviceCount, DeviceMetrics *metrics);
AccelResult AccelGetVendorMountLibs(MountPath *mounts, size_t maxCount, size_t *mountCount);
AccelResult AccelRegisterLogCallback(LogCallbackFunc callback);
/* The older name of AccelRegisterLogCallback. */
AccelResult RegisterLogCallback(LogCallbackFunc callback);

/* ---- the layout, checked where the compiler can ---------------------------------- */
#if defined(__x86_64__) && defined(__LP64__) && \
	((defined(__cplusplus) && __cplusplus >= 201103L) || \
	 (!defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L))
#ifdef __cplusplus
#define AXL_TF_ASSERT_(e, m) static_assert(e, m)
#define AXL_TF_ALIGNOF_(t) alignof(t)
#else
#define AXL_TF_ASSERT_(e, m) _Static_assert(e, m)
#define AXL_TF_ALIGNOF_(t) _Alignof(t)
#endif
#define AXL_TF_SIZE_(t, s, a) \
	AXL_TF_ASSERT_(sizeof(t) == (s) && AXL_TF_ALIGNOF_(t) == (a), #t " size/alignment")
#define AXL_TF_OFF_(t, f, o) AXL_TF_ASSERT_(offsetof(t, f) == (o), #t "." #f " offset")
AXL_TF_SIZE_(AccelResult, 4, 4);
AXL_TF_SIZE_(TopoLevelType, 4, 4);
AXL_TF_SIZE_(PartitionResultType, 4, 4);
AXL_TF_SIZE_(VirtualizationCapabilities, 16, 4);
AXL_TF_OFF_(VirtualizationCapabilities, supportsPartitioning, 0);
AXL_TF_OFF_(VirtualizationCapabilities, supportsSoftIsolation, 1);
AXL_TF_OFF_(VirtualizationCapabilities, supportsHardIsolation, 2);
AXL_TF_OFF_(VirtualizationCapabilities, supportsSnapshot, 3);
AXL_TF_OFF_(VirtualizationCapabilities, supportsMetrics, 4);
AXL_TF_OFF_(VirtualizationCapabilities, supportsRemoting, 5);
AXL_TF_OFF_(VirtualizationCapabilities, maxPartitions, 8);
AXL_TF_OFF_(VirtualizationCapabilities, maxWorkersPerDevice, 12);
AXL_TF_SIZE_(DeviceBasicInfo, 472, 8);
AXL_TF_OFF_(DeviceBasicInfo, uuid, 0);
AXL_TF_OFF_(DeviceBasicInfo, vendor, 64);
AXL_TF_OFF_(DeviceBasicInfo, model, 96);
AXL_TF_OFF_(DeviceBasicInfo, driverVersion, 224);
AXL_TF_OFF_(DeviceBasicInfo, firmwareVersion, 304);
AXL_TF_OFF_(DeviceBasicInfo, deviceNode, 368);
AXL_TF_OFF_(DeviceBasicInfo, index, 432);
AXL_TF_OFF_(DeviceBasicInfo, numaNode, 436);
AXL_TF_OFF_(DeviceBasicInfo, totalMemoryBytes, 440);
AXL_TF_OFF_(DeviceBasicInfo, totalComputeUnits, 448);
AXL_TF_OFF_(DeviceBasicInfo, maxTflops, 456);
AXL_TF_OFF_(DeviceBasicInfo, pcieGen, 464);
AXL_TF_OFF_(DeviceBasicInfo, pcieWidth, 468);
AXL_TF_SIZE_(DevicePropertyKV, 320, 1);
AXL_TF_OFF_(DevicePropertyKV, key, 0);
AXL_TF_OFF_(DevicePropertyKV, value, 64);
AXL_TF_SIZE_(DeviceProperties, 20488, 8);
AXL_TF_OFF_(DeviceProperties, properties, 0);
AXL_TF_OFF_(DeviceProperties, count, 20480);
AXL_TF_SIZE_(ExtendedDeviceInfo, 20976, 8);
AXL_TF_OFF_(ExtendedDeviceInfo, basic, 0);
AXL_TF_OFF_(ExtendedDeviceInfo, props, 472);
AXL_TF_OFF_(ExtendedDeviceInfo, virtualizationCapabilities, 20960);
AXL_TF_SIZE_(PartitionTemplate, 480, 8);
AXL_TF_OFF_(PartitionTemplate, templateId, 0);
AXL_TF_OFF_(PartitionTemplate, name, 64);
AXL_TF_OFF_(PartitionTemplate, memoryBytes, 192);
AXL_TF_OFF_(PartitionTemplate, computeUnits, 200);
AXL_TF_OFF_(PartitionTemplate, tflops, 208);
AXL_TF_OFF_(PartitionTemplate, sliceCount, 216);
AXL_TF_OFF_(PartitionTemplate, isDefault, 220);
AXL_TF_OFF_(PartitionTemplate, description, 221);
AXL_TF_SIZE_(DeviceTopoNode, 72, 4);
AXL_TF_OFF_(DeviceTopoNode, peerUUID, 0);
AXL_TF_OFF_(DeviceTopoNode, peerIndex, 64);
AXL_TF_OFF_(DeviceTopoNode, topoLevel, 68);
AXL_TF_SIZE_(DeviceTopologyInfo, 4688, 8);
AXL_TF_OFF_(DeviceTopologyInfo, deviceUUID, 0);
AXL_TF_OFF_(DeviceTopologyInfo, deviceIndex, 64);
AXL_TF_OFF_(DeviceTopologyInfo, numaNode, 68);
AXL_TF_OFF_(DeviceTopologyInfo, peers, 72);
AXL_TF_OFF_(DeviceTopologyInfo, peerCount, 4680);
AXL_TF_SIZE_(ExtendedDeviceTopology, 300040, 8);
AXL_TF_OFF_(ExtendedDeviceTopology, devices, 0);
AXL_TF_OFF_(ExtendedDeviceTopology, deviceCount, 300032);
AXL_TF_SIZE_(DeviceTopoNodeV2, 80, 8);
AXL_TF_OFF_(DeviceTopoNodeV2, peerIndex, 64);
AXL_TF_OFF_(DeviceTopoNodeV2, topoLevel, 68);
AXL_TF_OFF_(DeviceTopoNodeV2, bandwidthBytesPerSec, 72);
AXL_TF_SIZE_(DeviceTopologyInfoV2, 5200, 8);
AXL_TF_OFF_(DeviceTopologyInfoV2, peers, 72);
AXL_TF_OFF_(DeviceTopologyInfoV2, peerCount, 5192);
AXL_TF_SIZE_(ExtendedDeviceTopologyV2, 332808, 8);
AXL_TF_OFF_(ExtendedDeviceTopologyV2, deviceCount, 332800);
AXL_TF_SIZE_(SnapshotContext, 24, 8);
AXL_TF_OFF_(SnapshotContext, processIds, 0);
AXL_TF_OFF_(SnapshotContext, processCount, 8);
AXL_TF_OFF_(SnapshotContext, deviceUUID, 16);
AXL_TF_SIZE_(ExtraMetric, 72, 8);
AXL_TF_OFF_(ExtraMetric, key, 0);
AXL_TF_OFF_(ExtraMetric, value, 64);
AXL_TF_SIZE_(ProcessInformation, 144, 8);
AXL_TF_OFF_(ProcessInformation, processId, 0);
AXL_TF_OFF_(ProcessInformation, deviceUUID, 32);
AXL_TF_OFF_(ProcessInformation, computeUtilizationPercent, 96);
AXL_TF_OFF_(ProcessInformation, activeSMs, 104);
AXL_TF_OFF_(ProcessInformation, totalSMs, 112);
AXL_TF_OFF_(ProcessInformation, memoryUsedBytes, 120);
AXL_TF_OFF_(ProcessInformation, memoryReservedBytes, 128);
AXL_TF_OFF_(ProcessInformation, memoryUtilizationPercent, 136);
AXL_TF_SIZE_(DeviceMetrics, 4728, 8);
AXL_TF_OFF_(DeviceMetrics, deviceUUID, 0);
AXL_TF_OFF_(DeviceMetrics, powerUsageWatts, 64);
AXL_TF_OFF_(DeviceMetrics, temperatureCelsius, 72);
AXL_TF_OFF_(DeviceMetrics, pcieRxBytes, 80);
AXL_TF_OFF_(DeviceMetrics, pcieTxBytes, 88);
AXL_TF_OFF_(DeviceMetrics, utilizationPercent, 96);
AXL_TF_OFF_(DeviceMetrics, memoryUsedBytes, 104);
AXL_TF_OFF_(DeviceMetrics, extraMetrics, 112);
AXL_TF_OFF_(DeviceMetrics, extraMetricsCount, 4720);
AXL_TF_SIZE_(MountPath, 1024, 1);
AXL_TF_OFF_(MountPath, hostPath, 0);
AXL_TF_OFF_(MountPath, guestPath, 512);
AXL_TF_SIZE_(PartitionResult, 20580, 4);
AXL_TF_OFF_(PartitionResult, type, 0);
AXL_TF_OFF_(PartitionResult, deviceUUID, 4);
AXL_TF_OFF_(PartitionResult, envVars, 68);
AXL_TF_OFF_(PartitionResult, deviceNodes, 4164);
#undef AXL_TF_SIZE_
#undef AXL_TF_OFF_
#undef AXL_TF_ASSERT_
#undef AXL_TF_ALIGNOF_
#endif

#ifdef __cplusplus
}
#endif

#endif /* AXL_COMPAT_ACCELERATOR_H */
