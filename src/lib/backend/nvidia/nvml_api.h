/* SPDX-License-Identifier: MIT */
/*
 * The part of NVIDIA's NVML C API (libnvidia-ml.so.1) that axl uses, declared from
 * NVML's public API reference: only the types and functions we call, with their sizes
 * pinned. NVML's own header is not needed to build axl.
 *
 * Versioned structs carry a version word: sizeof(struct) | (version << 24).
 */
#ifndef AXL_NVML_API_H
#define AXL_NVML_API_H

#include <assert.h>
#include <stddef.h>

typedef int nvmlReturn_t; /* an enum in NVML: int-sized */
typedef struct nvmlDevice_st *nvmlDevice_t;

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_TIMEOUT = 10,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	NVML_ERROR_GPU_IS_LOST = 15,
	NVML_ERROR_IN_USE = 19,
	NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
	NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
	NVML_ERROR_UNKNOWN = 999
};

enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 };
enum {
	NVML_COMPUTEMODE_DEFAULT = 0,
	NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
	NVML_COMPUTEMODE_PROHIBITED = 2,
	NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3
};
enum { NVML_NVLINK_DEVICE_TYPE_GPU = 0, NVML_NVLINK_DEVICE_TYPE_IBMNPU = 1, NVML_NVLINK_DEVICE_TYPE_SWITCH = 2 };
enum {
	NVML_TOPOLOGY_INTERNAL = 0,
	NVML_TOPOLOGY_SINGLE = 10,
	NVML_TOPOLOGY_MULTIPLE = 20,
	NVML_TOPOLOGY_HOSTBRIDGE = 30,
	NVML_TOPOLOGY_NODE = 40,
	NVML_TOPOLOGY_SYSTEM = 50
};
enum { NVML_P2P_CAPS_INDEX_READ = 0, NVML_P2P_CAPS_INDEX_WRITE = 1, NVML_P2P_CAPS_INDEX_NVLINK = 2, NVML_P2P_CAPS_INDEX_ATOMICS = 3 };
enum { NVML_P2P_STATUS_OK = 0 };

#define AXL_NVML_NVLINK_MAX_LINKS 18 /* NVML_NVLINK_MAX_LINKS since R535 */
#define AXL_NVML_GI_PROFILE_MAX 16  /* GPU-instance profile ids probed: 0 .. 15 */
#define AXL_NVML_STR 128            /* above every NVML_*_BUFFER_SIZE we use */

/* nvmlPciInfo_t. The base symbol writes the 2012 layout (busId[16], the five ids,
 * four reserved words); _v2 and _v3 this one. The first 36 bytes agree in all. */
typedef struct {
	char busIdLegacy[16];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;    /* device id << 16 | vendor id */
	unsigned int pciSubSystemId; /* subsystem device << 16 | subsystem vendor */
	char busId[32];
} nvmlPciInfo_t;
static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t");
static_assert(offsetof(nvmlPciInfo_t, busId) == 36, "nvmlPciInfo_t.busId");

typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;
static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t");

typedef struct {
	unsigned int version;
	unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t");
#define AXL_NVML_MEMORY_V2 ((unsigned)sizeof(nvmlMemory_v2_t) | (2u << 24))

typedef struct {
	unsigned long long bar1Total, bar1Free, bar1Used;
} nvmlBAR1Memory_t;
static_assert(sizeof(nvmlBAR1Memory_t) == 24, "nvmlBAR1Memory_t");

typedef struct {
	unsigned int multiprocessorCount;
	unsigned int sharedCopyEngineCount;
	unsigned int sharedDecoderCount;
	unsigned int sharedEncoderCount;
	unsigned int sharedJpegCount;
	unsigned int sharedOfaCount;
	unsigned int gpuInstanceSliceCount;
	unsigned int computeInstanceSliceCount;
	unsigned long long memorySizeMB;
} nvmlDeviceAttributes_t;
static_assert(sizeof(nvmlDeviceAttributes_t) == 40, "nvmlDeviceAttributes_t");

typedef struct {
	unsigned int id;
	unsigned int isP2pSupported;
	unsigned int sliceCount;
	unsigned int instanceCount;
	unsigned int multiprocessorCount;
	unsigned int copyEngineCount;
	unsigned int decoderCount;
	unsigned int encoderCount;
	unsigned int jpegCount;
	unsigned int ofaCount;
	unsigned long long memorySizeMB;
} nvmlGpuInstanceProfileInfo_t;
static_assert(sizeof(nvmlGpuInstanceProfileInfo_t) == 48, "nvmlGpuInstanceProfileInfo_t");

typedef struct {
	unsigned int version;
	unsigned int id;
	unsigned int isP2pSupported;
	unsigned int sliceCount;
	unsigned int instanceCount;
	unsigned int multiprocessorCount;
	unsigned int copyEngineCount;
	unsigned int decoderCount;
	unsigned int encoderCount;
	unsigned int jpegCount;
	unsigned int ofaCount;
	unsigned long long memorySizeMB;
	char name[96];
} nvmlGpuInstanceProfileInfo_v2_t;
static_assert(sizeof(nvmlGpuInstanceProfileInfo_v2_t) == 152, "nvmlGpuInstanceProfileInfo_v2_t");
static_assert(offsetof(nvmlGpuInstanceProfileInfo_v2_t, memorySizeMB) == 48, "memorySizeMB");
#define AXL_NVML_GI_PROFILE_INFO_V2 ((unsigned)sizeof(nvmlGpuInstanceProfileInfo_v2_t) | (2u << 24))

/* Live metrics (nvml_sample.c). */
enum { NVML_TEMPERATURE_GPU = 0 };
enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };
enum { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 };
enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 };
enum { NVML_ERROR_RESET_REQUIRED = 16 };
#define AXL_NVML_VALUE_NOT_AVAILABLE (~0ull) /* NVML_VALUE_NOT_AVAILABLE */

typedef struct {
	unsigned int gpu, memory;
} nvmlUtilization_t;
static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t");

/* The _v1 process list struct (base symbols). */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;
static_assert(sizeof(nvmlProcessInfo_v1_t) == 16, "nvmlProcessInfo_v1_t");

/* The _v2 and _v3 symbols' struct (nvmlProcessInfo_v2_t = nvmlProcessInfo_t). */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId;     /* 0xFFFFFFFF without MIG */
	unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t;
static_assert(sizeof(nvmlProcessInfo_v2_t) == 24, "nvmlProcessInfo_v2_t");
static_assert(offsetof(nvmlProcessInfo_v2_t, gpuInstanceId) == 16, "nvmlProcessInfo_v2_t.gpuInstanceId");

typedef struct {
	unsigned int pid;
	unsigned long long timeStamp; /* microseconds */
	unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;
static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32, "nvmlProcessUtilizationSample_t");
static_assert(offsetof(nvmlProcessUtilizationSample_t, smUtil) == 16, "smUtil");

/* MIG control (nvml_mig.c). */
typedef struct nvmlGpuInstance_st *nvmlGpuInstance_t;
typedef struct nvmlComputeInstance_st *nvmlComputeInstance_t;
typedef struct {
	unsigned int start, size;
} nvmlGpuInstancePlacement_t;
typedef struct {
	nvmlDevice_t device;
	unsigned int id;
	unsigned int profileId;
	nvmlGpuInstancePlacement_t placement;
} nvmlGpuInstanceInfo_t;
static_assert(sizeof(nvmlGpuInstanceInfo_t) == 24, "nvmlGpuInstanceInfo_t");
static_assert(offsetof(nvmlGpuInstanceInfo_t, placement) == 16, "nvmlGpuInstanceInfo_t.placement");
typedef struct {
	unsigned int id, sliceCount, instanceCount, multiprocessorCount, sharedCopyEngineCount,
		sharedDecoderCount, sharedEncoderCount, sharedJpegCount, sharedOfaCount;
} nvmlComputeInstanceProfileInfo_t;
static_assert(sizeof(nvmlComputeInstanceProfileInfo_t) == 36, "nvmlComputeInstanceProfileInfo_t");
typedef struct {
	nvmlDevice_t device;
	nvmlGpuInstance_t gpuInstance;
	unsigned int id;
	unsigned int profileId;
	unsigned int placementStart, placementSize; /* nvmlComputeInstancePlacement_t */
} nvmlComputeInstanceInfo_t;
static_assert(sizeof(nvmlComputeInstanceInfo_t) == 32, "nvmlComputeInstanceInfo_t");
static_assert(offsetof(nvmlComputeInstanceInfo_t, id) == 16, "nvmlComputeInstanceInfo_t.id");
enum { AXL_NVML_GI_PROFILE_ENUMS = 10 };  /* NVML_GPU_INSTANCE_PROFILE_COUNT (R535: 1_SLICE_REV2 = 9) */
enum { AXL_NVML_CI_PROFILE_ENUMS = 8 };   /* NVML_COMPUTE_INSTANCE_PROFILE_COUNT */
enum { NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED = 0 };

/* Health events (nvml_sample.c, AXL_SAMPLER_HEALTH), as nvml.h declares them (checked
 * against nvml.h 13.3.29 as go-nvml v0.13.3-1 vendors it, and NVML's API reference,
 * "Event Handling Methods"). nvmlEventSetWait_v2 fills the whole struct; the base
 * symbol (before R450) only its first three members. */
typedef struct nvmlEventSet_st *nvmlEventSet_t;
#define AXL_NVML_EVENT_SBE 0x1ull /* nvmlEventTypeSingleBitEccError */
#define AXL_NVML_EVENT_DBE 0x2ull /* nvmlEventTypeDoubleBitEccError */
#define AXL_NVML_EVENT_XID 0x8ull /* nvmlEventTypeXidCriticalError */
#define AXL_NVML_NO_INSTANCE 0xFFFFFFFFu /* gpuInstanceId / computeInstanceId: none */
typedef struct {
	nvmlDevice_t device;          /* the GPU it happened on */
	unsigned long long eventType; /* one nvmlEventType bit */
	unsigned long long eventData; /* the Xid of an Xid event (999: an unknown one), else 0 */
	unsigned int gpuInstanceId;   /* MIG: the GPU instance it is attributable to, else 0xFFFFFFFF */
	unsigned int computeInstanceId;
} nvmlEventData_t;
static_assert(sizeof(nvmlEventData_t) == 32, "nvmlEventData_t");
static_assert(offsetof(nvmlEventData_t, gpuInstanceId) == 24, "nvmlEventData_t.gpuInstanceId");

/* The functions, each resolved newest version first. NULL: the library lacks it. */
struct axl__nvml_fns {
	nvmlReturn_t (*Init)(void);
	nvmlReturn_t (*SystemGetDriverVersion)(char *, unsigned);
	nvmlReturn_t (*SystemGetNVMLVersion)(char *, unsigned);
	nvmlReturn_t (*SystemGetCudaDriverVersion)(int *);
	nvmlReturn_t (*DeviceGetCount)(unsigned *);
	nvmlReturn_t (*DeviceGetHandleByIndex)(unsigned, nvmlDevice_t *);
	nvmlReturn_t (*DeviceGetPciInfo)(nvmlDevice_t, nvmlPciInfo_t *);
	nvmlReturn_t (*DeviceGetName)(nvmlDevice_t, char *, unsigned);
	nvmlReturn_t (*DeviceGetUUID)(nvmlDevice_t, char *, unsigned);
	nvmlReturn_t (*DeviceGetSerial)(nvmlDevice_t, char *, unsigned);
	nvmlReturn_t (*DeviceGetBoardPartNumber)(nvmlDevice_t, char *, unsigned);
	nvmlReturn_t (*DeviceGetVbiosVersion)(nvmlDevice_t, char *, unsigned);
	nvmlReturn_t (*DeviceGetInforomImageVersion)(nvmlDevice_t, char *, unsigned);
	nvmlReturn_t (*DeviceGetMinorNumber)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetArchitecture)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetCudaComputeCapability)(nvmlDevice_t, int *, int *);
	nvmlReturn_t (*DeviceGetNumGpuCores)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetMemoryInfo_v2)(nvmlDevice_t, nvmlMemory_v2_t *);
	nvmlReturn_t (*DeviceGetMemoryInfo)(nvmlDevice_t, nvmlMemory_t *);
	nvmlReturn_t (*DeviceGetBAR1MemoryInfo)(nvmlDevice_t, nvmlBAR1Memory_t *);
	nvmlReturn_t (*DeviceGetClockInfo)(nvmlDevice_t, unsigned, unsigned *);
	nvmlReturn_t (*DeviceGetMaxClockInfo)(nvmlDevice_t, unsigned, unsigned *);
	nvmlReturn_t (*DeviceGetPowerManagementLimit)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetPowerManagementDefaultLimit)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetPowerManagementLimitConstraints)(nvmlDevice_t, unsigned *, unsigned *);
	nvmlReturn_t (*DeviceGetEccMode)(nvmlDevice_t, unsigned *, unsigned *);
	nvmlReturn_t (*DeviceGetPersistenceMode)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetComputeMode)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetCurrPcieLinkGeneration)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetMaxPcieLinkGeneration)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetCurrPcieLinkWidth)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetMaxPcieLinkWidth)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetMigMode)(nvmlDevice_t, unsigned *, unsigned *);
	nvmlReturn_t (*DeviceGetMaxMigDeviceCount)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetMigDeviceHandleByIndex)(nvmlDevice_t, unsigned, nvmlDevice_t *);
	nvmlReturn_t (*DeviceGetGpuInstanceId)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetComputeInstanceId)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetAttributes)(nvmlDevice_t, nvmlDeviceAttributes_t *);
	nvmlReturn_t (*DeviceGetGpuInstanceProfileInfoV)(nvmlDevice_t, unsigned, nvmlGpuInstanceProfileInfo_v2_t *);
	nvmlReturn_t (*DeviceGetGpuInstanceProfileInfo)(nvmlDevice_t, unsigned, nvmlGpuInstanceProfileInfo_t *);
	nvmlReturn_t (*DeviceGetGpuInstanceRemainingCapacity)(nvmlDevice_t, unsigned, unsigned *);
	nvmlReturn_t (*DeviceGetNvLinkState)(nvmlDevice_t, unsigned, unsigned *);
	nvmlReturn_t (*DeviceGetNvLinkVersion)(nvmlDevice_t, unsigned, unsigned *);
	nvmlReturn_t (*DeviceGetNvLinkRemotePciInfo)(nvmlDevice_t, unsigned, nvmlPciInfo_t *);
	nvmlReturn_t (*DeviceGetNvLinkRemoteDeviceType)(nvmlDevice_t, unsigned, unsigned *);
	nvmlReturn_t (*DeviceGetTopologyCommonAncestor)(nvmlDevice_t, nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetP2PStatus)(nvmlDevice_t, nvmlDevice_t, unsigned, unsigned *);
	/* live metrics */
	nvmlReturn_t (*DeviceGetUtilizationRates)(nvmlDevice_t, nvmlUtilization_t *);
	nvmlReturn_t (*DeviceGetEncoderUtilization)(nvmlDevice_t, unsigned *, unsigned *);
	nvmlReturn_t (*DeviceGetDecoderUtilization)(nvmlDevice_t, unsigned *, unsigned *);
	nvmlReturn_t (*DeviceGetPowerUsage)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetEnforcedPowerLimit)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetTotalEnergyConsumption)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*DeviceGetTemperature)(nvmlDevice_t, unsigned, unsigned *);
	nvmlReturn_t (*DeviceGetPcieThroughput)(nvmlDevice_t, unsigned, unsigned *);
	nvmlReturn_t (*DeviceGetTotalEccErrors)(nvmlDevice_t, unsigned, unsigned, unsigned long long *);
	nvmlReturn_t (*DeviceGetCurrentClocksEventReasons)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*DeviceGetFanSpeed)(nvmlDevice_t, unsigned *);
	/* the process lists: each version separately (the struct differs) */
	nvmlReturn_t (*DeviceGetComputeRunningProcesses_v3)(nvmlDevice_t, unsigned *, nvmlProcessInfo_v2_t *);
	nvmlReturn_t (*DeviceGetComputeRunningProcesses_v2)(nvmlDevice_t, unsigned *, nvmlProcessInfo_v2_t *);
	nvmlReturn_t (*DeviceGetComputeRunningProcesses)(nvmlDevice_t, unsigned *, nvmlProcessInfo_v1_t *);
	nvmlReturn_t (*DeviceGetGraphicsRunningProcesses_v3)(nvmlDevice_t, unsigned *, nvmlProcessInfo_v2_t *);
	nvmlReturn_t (*DeviceGetGraphicsRunningProcesses_v2)(nvmlDevice_t, unsigned *, nvmlProcessInfo_v2_t *);
	nvmlReturn_t (*DeviceGetGraphicsRunningProcesses)(nvmlDevice_t, unsigned *, nvmlProcessInfo_v1_t *);
	nvmlReturn_t (*DeviceGetProcessUtilization)(nvmlDevice_t, nvmlProcessUtilizationSample_t *, unsigned *,
						    unsigned long long);
	/* MIG control (nvml_mig.c) */
	nvmlReturn_t (*DeviceGetHandleByUUID)(const char *, nvmlDevice_t *);
	nvmlReturn_t (*DeviceGetHandleByPciBusId)(const char *, nvmlDevice_t *);
	nvmlReturn_t (*DeviceCreateGpuInstance)(nvmlDevice_t, unsigned, nvmlGpuInstance_t *);
	nvmlReturn_t (*DeviceGetGpuInstances)(nvmlDevice_t, unsigned, nvmlGpuInstance_t *, unsigned *);
	nvmlReturn_t (*GpuInstanceGetInfo)(nvmlGpuInstance_t, nvmlGpuInstanceInfo_t *);
	nvmlReturn_t (*GpuInstanceGetComputeInstanceProfileInfo)(nvmlGpuInstance_t, unsigned, unsigned,
								 nvmlComputeInstanceProfileInfo_t *);
	nvmlReturn_t (*GpuInstanceCreateComputeInstance)(nvmlGpuInstance_t, unsigned, nvmlComputeInstance_t *);
	nvmlReturn_t (*GpuInstanceGetComputeInstances)(nvmlGpuInstance_t, unsigned, nvmlComputeInstance_t *,
						       unsigned *);
	nvmlReturn_t (*ComputeInstanceGetInfo)(nvmlComputeInstance_t, nvmlComputeInstanceInfo_t *);
	nvmlReturn_t (*ComputeInstanceDestroy)(nvmlComputeInstance_t);
	nvmlReturn_t (*GpuInstanceDestroy)(nvmlGpuInstance_t);
	/* health events (nvml_sample.c): the base nvmlEventSetWait writes 24 bytes of the struct */
	nvmlReturn_t (*EventSetCreate)(nvmlEventSet_t *);
	nvmlReturn_t (*DeviceGetSupportedEventTypes)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*DeviceRegisterEvents)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
	nvmlReturn_t (*EventSetWait)(nvmlEventSet_t, nvmlEventData_t *, unsigned);
	nvmlReturn_t (*EventSetFree)(nvmlEventSet_t);
};

#endif
