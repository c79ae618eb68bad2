/* SPDX-License-Identifier: MIT */
/*
 * The table of NVIDIA's NVML (libnvidia-ml.so.1) entry points the nvidia backend resolves
 * with dlsym (nvml_call.c: each slot from its names, newest first), and axl's own NVML
 * constants. The types, constants and prototypes are NVML's own, declared once in
 * src/abi/nvidia/nvml.h (compared with nvml.h by tests/vendorabi); each slot has the type
 * of the first symbol it is resolved from, and an older symbol it falls back to must have
 * the same type (static_assert below). The process lists are the exception: each version
 * takes its own struct, so each has its own slot.
 */
#ifndef AXL_NVML_API_H
#define AXL_NVML_API_H

#include <assert.h>
#include <stddef.h>

#include "abi/nvidia/nvml.h"

#define AXL_NVML_NVLINK_MAX_LINKS NVML_NVLINK_MAX_LINKS /* links probed: 0 .. 17 (nvml.h 11.8 on) */
#define AXL_NVML_GI_PROFILE_MAX 16 /* GPU-instance profile ids probed: 0 .. 15 */
#define AXL_NVML_STR 128           /* above every NVML_*_BUFFER_SIZE we use */
enum { AXL_NVML_GI_PROFILE_ENUMS = 10 }; /* NVML_GPU_INSTANCE_PROFILE_COUNT of nvml.h 12.0 (1_SLICE_REV2 = 9) */
enum { AXL_NVML_CI_PROFILE_ENUMS = 8 };  /* NVML_COMPUTE_INSTANCE_PROFILE_COUNT of nvml.h 12.0 */

/* NVML_VALUE_NOT_AVAILABLE in an unsigned long long (a process's usedGpuMemory) */
#define AXL_NVML_VALUE_NOT_AVAILABLE ((unsigned long long)NVML_VALUE_NOT_AVAILABLE)
/* the health events axl watches, as unsigned masks */
#define AXL_NVML_EVENT_SBE ((unsigned long long)nvmlEventTypeSingleBitEccError)
#define AXL_NVML_EVENT_DBE ((unsigned long long)nvmlEventTypeDoubleBitEccError)
#define AXL_NVML_EVENT_XID ((unsigned long long)nvmlEventTypeXidCriticalError)
/* a process's or an event's gpuInstanceId / computeInstanceId: none (not MIG) */
#define AXL_NVML_NO_INSTANCE 0xFFFFFFFFu

/* The helpers of nvml_call.h read enumerations NVML writes through an unsigned int: the
 * enumerations are unsigned-int sized and compatible (all their values are non-negative). */
static_assert(__builtin_types_compatible_p(nvmlEnableState_t, unsigned int), "nvmlEnableState_t");
static_assert(__builtin_types_compatible_p(nvmlComputeMode_t, unsigned int), "nvmlComputeMode_t");
static_assert(__builtin_types_compatible_p(nvmlIntNvLinkDeviceType_t, unsigned int), "nvmlIntNvLinkDeviceType_t");
static_assert(__builtin_types_compatible_p(nvmlGpuTopologyLevel_t, unsigned int), "nvmlGpuTopologyLevel_t");
static_assert(__builtin_types_compatible_p(nvmlGpuP2PStatus_t, unsigned int), "nvmlGpuP2PStatus_t");
/* the _v3 and _v2 process lists' rows are two structs of one layout: axl reads both as
 * nvmlProcessInfo_v2_t */
static_assert(sizeof(nvmlProcessInfo_t) == sizeof(nvmlProcessInfo_v2_t) &&
		      offsetof(nvmlProcessInfo_t, usedGpuMemory) == offsetof(nvmlProcessInfo_v2_t, usedGpuMemory) &&
		      offsetof(nvmlProcessInfo_t, gpuInstanceId) == offsetof(nvmlProcessInfo_v2_t, gpuInstanceId) &&
		      offsetof(nvmlProcessInfo_t, computeInstanceId) ==
			      offsetof(nvmlProcessInfo_v2_t, computeInstanceId),
	      "nvmlProcessInfo_t and nvmlProcessInfo_v2_t");

#define AXL_NVML_FN(sym) __typeof__(&sym)

/* The functions, each resolved newest version first. NULL: the library lacks it. */
struct axl__nvml_fns {
	AXL_NVML_FN(nvmlInit_v2) Init; /* _v2, else the first */
	AXL_NVML_FN(nvmlSystemGetDriverVersion) SystemGetDriverVersion;
	AXL_NVML_FN(nvmlSystemGetNVMLVersion) SystemGetNVMLVersion;
	AXL_NVML_FN(nvmlSystemGetCudaDriverVersion_v2) SystemGetCudaDriverVersion; /* _v2, else the first */
	AXL_NVML_FN(nvmlDeviceGetCount_v2) DeviceGetCount;                       /* _v2, else the first */
	AXL_NVML_FN(nvmlDeviceGetHandleByIndex_v2) DeviceGetHandleByIndex;       /* _v2, else the first */
	/* _v3, _v2, else the first (which fills the 2012 layout: busId[16], the five ids, four
	 * reserved words; the first 36 bytes agree in all) */
	AXL_NVML_FN(nvmlDeviceGetPciInfo_v3) DeviceGetPciInfo;
	AXL_NVML_FN(nvmlDeviceGetName) DeviceGetName;
	AXL_NVML_FN(nvmlDeviceGetUUID) DeviceGetUUID;
	AXL_NVML_FN(nvmlDeviceGetSerial) DeviceGetSerial;
	AXL_NVML_FN(nvmlDeviceGetBoardPartNumber) DeviceGetBoardPartNumber;
	AXL_NVML_FN(nvmlDeviceGetVbiosVersion) DeviceGetVbiosVersion;
	AXL_NVML_FN(nvmlDeviceGetInforomImageVersion) DeviceGetInforomImageVersion;
	AXL_NVML_FN(nvmlDeviceGetMinorNumber) DeviceGetMinorNumber;
	AXL_NVML_FN(nvmlDeviceGetArchitecture) DeviceGetArchitecture;
	AXL_NVML_FN(nvmlDeviceGetCudaComputeCapability) DeviceGetCudaComputeCapability;
	AXL_NVML_FN(nvmlDeviceGetNumGpuCores) DeviceGetNumGpuCores;
	AXL_NVML_FN(nvmlDeviceGetMemoryInfo_v2) DeviceGetMemoryInfo_v2;
	AXL_NVML_FN(nvmlDeviceGetMemoryInfo) DeviceGetMemoryInfo;
	AXL_NVML_FN(nvmlDeviceGetBAR1MemoryInfo) DeviceGetBAR1MemoryInfo;
	AXL_NVML_FN(nvmlDeviceGetClockInfo) DeviceGetClockInfo;
	AXL_NVML_FN(nvmlDeviceGetMaxClockInfo) DeviceGetMaxClockInfo;
	AXL_NVML_FN(nvmlDeviceGetPowerManagementLimit) DeviceGetPowerManagementLimit;
	AXL_NVML_FN(nvmlDeviceGetPowerManagementDefaultLimit) DeviceGetPowerManagementDefaultLimit;
	AXL_NVML_FN(nvmlDeviceGetPowerManagementLimitConstraints) DeviceGetPowerManagementLimitConstraints;
	AXL_NVML_FN(nvmlDeviceGetEccMode) DeviceGetEccMode;
	AXL_NVML_FN(nvmlDeviceGetPersistenceMode) DeviceGetPersistenceMode;
	AXL_NVML_FN(nvmlDeviceGetComputeMode) DeviceGetComputeMode;
	AXL_NVML_FN(nvmlDeviceGetCurrPcieLinkGeneration) DeviceGetCurrPcieLinkGeneration;
	AXL_NVML_FN(nvmlDeviceGetMaxPcieLinkGeneration) DeviceGetMaxPcieLinkGeneration;
	AXL_NVML_FN(nvmlDeviceGetCurrPcieLinkWidth) DeviceGetCurrPcieLinkWidth;
	AXL_NVML_FN(nvmlDeviceGetMaxPcieLinkWidth) DeviceGetMaxPcieLinkWidth;
	AXL_NVML_FN(nvmlDeviceGetMigMode) DeviceGetMigMode;
	AXL_NVML_FN(nvmlDeviceGetMaxMigDeviceCount) DeviceGetMaxMigDeviceCount;
	AXL_NVML_FN(nvmlDeviceGetMigDeviceHandleByIndex) DeviceGetMigDeviceHandleByIndex;
	AXL_NVML_FN(nvmlDeviceGetGpuInstanceId) DeviceGetGpuInstanceId;
	AXL_NVML_FN(nvmlDeviceGetComputeInstanceId) DeviceGetComputeInstanceId;
	AXL_NVML_FN(nvmlDeviceGetAttributes_v2) DeviceGetAttributes; /* _v2, else the first */
	AXL_NVML_FN(nvmlDeviceGetGpuInstanceProfileInfoV) DeviceGetGpuInstanceProfileInfoV;
	AXL_NVML_FN(nvmlDeviceGetGpuInstanceProfileInfo) DeviceGetGpuInstanceProfileInfo;
	AXL_NVML_FN(nvmlDeviceGetGpuInstanceRemainingCapacity) DeviceGetGpuInstanceRemainingCapacity;
	AXL_NVML_FN(nvmlDeviceGetNvLinkState) DeviceGetNvLinkState;
	AXL_NVML_FN(nvmlDeviceGetNvLinkVersion) DeviceGetNvLinkVersion;
	AXL_NVML_FN(nvmlDeviceGetNvLinkRemotePciInfo_v2) DeviceGetNvLinkRemotePciInfo; /* _v2, else the first */
	AXL_NVML_FN(nvmlDeviceGetNvLinkRemoteDeviceType) DeviceGetNvLinkRemoteDeviceType;
	AXL_NVML_FN(nvmlDeviceGetTopologyCommonAncestor) DeviceGetTopologyCommonAncestor;
	AXL_NVML_FN(nvmlDeviceGetP2PStatus) DeviceGetP2PStatus;
	/* live metrics */
	AXL_NVML_FN(nvmlDeviceGetUtilizationRates) DeviceGetUtilizationRates;
	AXL_NVML_FN(nvmlDeviceGetEncoderUtilization) DeviceGetEncoderUtilization;
	AXL_NVML_FN(nvmlDeviceGetDecoderUtilization) DeviceGetDecoderUtilization;
	AXL_NVML_FN(nvmlDeviceGetPowerUsage) DeviceGetPowerUsage;
	AXL_NVML_FN(nvmlDeviceGetEnforcedPowerLimit) DeviceGetEnforcedPowerLimit;
	AXL_NVML_FN(nvmlDeviceGetTotalEnergyConsumption) DeviceGetTotalEnergyConsumption;
	AXL_NVML_FN(nvmlDeviceGetTemperature) DeviceGetTemperature;
	AXL_NVML_FN(nvmlDeviceGetPcieThroughput) DeviceGetPcieThroughput;
	AXL_NVML_FN(nvmlDeviceGetTotalEccErrors) DeviceGetTotalEccErrors;
	/* R535's name, else the one it renamed */
	AXL_NVML_FN(nvmlDeviceGetCurrentClocksEventReasons) DeviceGetCurrentClocksEventReasons;
	AXL_NVML_FN(nvmlDeviceGetFanSpeed) DeviceGetFanSpeed;
	/* the process lists: each version separately (the struct differs) */
	AXL_NVML_FN(nvmlDeviceGetComputeRunningProcesses_v3) DeviceGetComputeRunningProcesses_v3;
	AXL_NVML_FN(nvmlDeviceGetComputeRunningProcesses_v2) DeviceGetComputeRunningProcesses_v2;
	AXL_NVML_FN(nvmlDeviceGetComputeRunningProcesses) DeviceGetComputeRunningProcesses;
	AXL_NVML_FN(nvmlDeviceGetGraphicsRunningProcesses_v3) DeviceGetGraphicsRunningProcesses_v3;
	AXL_NVML_FN(nvmlDeviceGetGraphicsRunningProcesses_v2) DeviceGetGraphicsRunningProcesses_v2;
	AXL_NVML_FN(nvmlDeviceGetGraphicsRunningProcesses) DeviceGetGraphicsRunningProcesses;
	AXL_NVML_FN(nvmlDeviceGetProcessUtilization) DeviceGetProcessUtilization;
	/* MIG control (nvml_mig.c) */
	AXL_NVML_FN(nvmlDeviceGetHandleByUUID) DeviceGetHandleByUUID;
	AXL_NVML_FN(nvmlDeviceGetHandleByPciBusId_v2) DeviceGetHandleByPciBusId; /* _v2, else the first */
	AXL_NVML_FN(nvmlDeviceCreateGpuInstance) DeviceCreateGpuInstance;
	AXL_NVML_FN(nvmlDeviceGetGpuInstances) DeviceGetGpuInstances;
	AXL_NVML_FN(nvmlGpuInstanceGetInfo) GpuInstanceGetInfo;
	AXL_NVML_FN(nvmlGpuInstanceGetComputeInstanceProfileInfo) GpuInstanceGetComputeInstanceProfileInfo;
	AXL_NVML_FN(nvmlGpuInstanceCreateComputeInstance) GpuInstanceCreateComputeInstance;
	AXL_NVML_FN(nvmlGpuInstanceGetComputeInstances) GpuInstanceGetComputeInstances;
	AXL_NVML_FN(nvmlComputeInstanceGetInfo_v2) ComputeInstanceGetInfo; /* _v2, else the first */
	AXL_NVML_FN(nvmlComputeInstanceDestroy) ComputeInstanceDestroy;
	AXL_NVML_FN(nvmlGpuInstanceDestroy) GpuInstanceDestroy;
	/* health events (nvml_sample.c); the base nvmlEventSetWait fills the first 24 bytes of
	 * the struct, _v2 all of it */
	AXL_NVML_FN(nvmlEventSetCreate) EventSetCreate;
	AXL_NVML_FN(nvmlDeviceGetSupportedEventTypes) DeviceGetSupportedEventTypes;
	AXL_NVML_FN(nvmlDeviceRegisterEvents) DeviceRegisterEvents;
	AXL_NVML_FN(nvmlEventSetWait_v2) EventSetWait; /* _v2, else the first */
	AXL_NVML_FN(nvmlEventSetFree) EventSetFree;
};

/* the fallbacks resolve into the same slot: the same type */
#define AXL_NVML_SAME(a, b) static_assert(__builtin_types_compatible_p(__typeof__(a), __typeof__(b)), #a)
AXL_NVML_SAME(nvmlInit, nvmlInit_v2);
AXL_NVML_SAME(nvmlSystemGetCudaDriverVersion, nvmlSystemGetCudaDriverVersion_v2);
AXL_NVML_SAME(nvmlDeviceGetCount, nvmlDeviceGetCount_v2);
AXL_NVML_SAME(nvmlDeviceGetHandleByIndex, nvmlDeviceGetHandleByIndex_v2);
AXL_NVML_SAME(nvmlDeviceGetPciInfo_v2, nvmlDeviceGetPciInfo_v3);
AXL_NVML_SAME(nvmlDeviceGetPciInfo, nvmlDeviceGetPciInfo_v3);
AXL_NVML_SAME(nvmlDeviceGetAttributes, nvmlDeviceGetAttributes_v2);
AXL_NVML_SAME(nvmlDeviceGetNvLinkRemotePciInfo, nvmlDeviceGetNvLinkRemotePciInfo_v2);
AXL_NVML_SAME(nvmlDeviceGetCurrentClocksThrottleReasons, nvmlDeviceGetCurrentClocksEventReasons);
AXL_NVML_SAME(nvmlDeviceGetHandleByPciBusId, nvmlDeviceGetHandleByPciBusId_v2);
AXL_NVML_SAME(nvmlComputeInstanceGetInfo, nvmlComputeInstanceGetInfo_v2);
AXL_NVML_SAME(nvmlEventSetWait, nvmlEventSetWait_v2);
#undef AXL_NVML_SAME

#endif
