/* The NVML types, constants and entry points the test double implements.
 *
 * Written for this test suite from NVIDIA's public NVML API reference
 * (docs.nvidia.com/deploy/nvml-api) and the layouts of the public nvml.h
 * (CUDA 12.2 NVML 12.2.140 was the version compared against). Only what the
 * double answers is declared; every struct has its size and key offsets pinned
 * below, so a slip here fails the build instead of a test.
 *
 * It is libaxl's second witness of NVML's ABI (it never includes src/abi):
 * tests/vendorabi compares it with Debian's nvml.h (CUDA 11.8) as compiled with
 * NVML_NO_UNVERSIONED_FUNC_DEFS (vendorabi.double.nvml), so every name that is
 * not its own (NVMLD_*, nvmld_*) is nvml.h's, with nvml.h's value, layout and
 * prototype. What later nvml.h releases added sits under AXL_ABI_HAVE(<version>),
 * the version being that of the CUDA toolkit that shipped the nvml.h (11080 is
 * CUDA 11.8, 12020 CUDA 12.2, driver branch R535), as in src/abi/nvidia/nvml.h:
 * the comparison defines AXL_ABI_HEADER_VERSION and leaves them out; the double's
 * build sees everything. */
#ifndef NVML_DOUBLE_TYPES_H
#define NVML_DOUBLE_TYPES_H

#include <stddef.h>

#ifdef AXL_ABI_HEADER_VERSION
#define AXL_ABI_HAVE(version) (AXL_ABI_HEADER_VERSION >= (version))
#else
#define AXL_ABI_HAVE(version) 1
#endif

#define NVMLD_EXPORT __attribute__((visibility("default")))

/* ---- return codes ---------------------------------------------------------------- */
typedef enum nvmlReturn_enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_ALREADY_INITIALIZED = 5,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_INSUFFICIENT_POWER = 8,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_TIMEOUT = 10,
  NVML_ERROR_IRQ_ISSUE = 11,
  NVML_ERROR_LIBRARY_NOT_FOUND = 12,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_CORRUPTED_INFOROM = 14,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_RESET_REQUIRED = 16,
  NVML_ERROR_OPERATING_SYSTEM = 17,
  NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
  NVML_ERROR_IN_USE = 19,
  NVML_ERROR_MEMORY = 20,
  NVML_ERROR_NO_DATA = 21,
  NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
  NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
  NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
  NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
#if AXL_ABI_HAVE(12000)
  NVML_ERROR_DEPRECATED = 26, /* nvml.h 12.0 */
#endif
#if AXL_ABI_HAVE(12020)
  NVML_ERROR_NOT_READY = 27, /* nvml.h 12.2 */
#endif
  NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

/* ---- buffer sizes ------------------------------------------------------------------- */
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
#define NVML_DEVICE_NAME_BUFFER_SIZE 64
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_BUFFER_SIZE 80
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_SERIAL_BUFFER_SIZE 30
#define NVML_DEVICE_PART_NUMBER_BUFFER_SIZE 80
#define NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE 32
#define NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE 16
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_VALUE_NOT_AVAILABLE (-1)

#define NVML_INIT_FLAG_NO_GPUS 1u
#define NVML_INIT_FLAG_NO_ATTACH 2u

/* struct versions: sizeof(struct) | (version << 24) */
#define NVML_STRUCT_VERSION(data, ver) (unsigned int)(sizeof(nvml##data##_v##ver##_t) | ((ver) << 24U))

typedef struct nvmlDevice_st *nvmlDevice_t;

/* ---- enums ---------------------------------------------------------------------------- */
typedef enum nvmlEnableState_enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 } nvmlEnableState_t;

typedef enum nvmlBrandType_enum {
  NVML_BRAND_UNKNOWN = 0,
  NVML_BRAND_QUADRO = 1,
  NVML_BRAND_TESLA = 2,
  NVML_BRAND_NVS = 3,
  NVML_BRAND_GRID = 4,
  NVML_BRAND_GEFORCE = 5,
  NVML_BRAND_TITAN = 6,
  NVML_BRAND_NVIDIA_VAPPS = 7,
  NVML_BRAND_NVIDIA_VPC = 8,
  NVML_BRAND_NVIDIA_VCS = 9,
  NVML_BRAND_NVIDIA_VWS = 10,
  NVML_BRAND_NVIDIA_CLOUD_GAMING = 11,
  NVML_BRAND_QUADRO_RTX = 12,
  NVML_BRAND_NVIDIA_RTX = 13,
  NVML_BRAND_NVIDIA = 14,
  NVML_BRAND_GEFORCE_RTX = 15,
  NVML_BRAND_TITAN_RTX = 16
} nvmlBrandType_t;

typedef enum nvmlTemperatureSensors_enum { NVML_TEMPERATURE_GPU = 0 } nvmlTemperatureSensors_t;

typedef enum nvmlComputeMode_enum {
  NVML_COMPUTEMODE_DEFAULT = 0,
  NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
  NVML_COMPUTEMODE_PROHIBITED = 2,
  NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3
} nvmlComputeMode_t;

typedef enum nvmlClockType_enum {
  NVML_CLOCK_GRAPHICS = 0,
  NVML_CLOCK_SM = 1,
  NVML_CLOCK_MEM = 2,
  NVML_CLOCK_VIDEO = 3
} nvmlClockType_t;

typedef enum nvmlPStates_enum { NVML_PSTATE_0 = 0, NVML_PSTATE_15 = 15, NVML_PSTATE_UNKNOWN = 32 } nvmlPstates_t;

typedef enum nvmlPcieUtilCounter_enum {
	NVML_PCIE_UTIL_TX_BYTES = 0,
	NVML_PCIE_UTIL_RX_BYTES = 1
} nvmlPcieUtilCounter_t;

typedef enum nvmlNvLinkCapability_enum {
  NVML_NVLINK_CAP_P2P_SUPPORTED = 0,
  NVML_NVLINK_CAP_SYSMEM_ACCESS = 1,
  NVML_NVLINK_CAP_P2P_ATOMICS = 2,
  NVML_NVLINK_CAP_SYSMEM_ATOMICS = 3,
  NVML_NVLINK_CAP_SLI_BRIDGE = 4,
  NVML_NVLINK_CAP_VALID = 5,
  NVML_NVLINK_CAP_COUNT = 6
} nvmlNvLinkCapability_t;

typedef enum nvmlIntNvLinkDeviceType_enum {
  NVML_NVLINK_DEVICE_TYPE_GPU = 0x00,
  NVML_NVLINK_DEVICE_TYPE_IBMNPU = 0x01,
  NVML_NVLINK_DEVICE_TYPE_SWITCH = 0x02,
  NVML_NVLINK_DEVICE_TYPE_UNKNOWN = 0xFF
} nvmlIntNvLinkDeviceType_t;

typedef enum nvmlGpuLevel_enum {
  NVML_TOPOLOGY_INTERNAL = 0,
  NVML_TOPOLOGY_SINGLE = 10,
  NVML_TOPOLOGY_MULTIPLE = 20,
  NVML_TOPOLOGY_HOSTBRIDGE = 30,
  NVML_TOPOLOGY_NODE = 40,
  NVML_TOPOLOGY_SYSTEM = 50
} nvmlGpuTopologyLevel_t;

typedef enum nvmlGpuP2PStatus_enum {
  NVML_P2P_STATUS_OK = 0,
  NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED = 1, /* sic */
#if AXL_ABI_HAVE(12010)
  NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED = NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED, /* nvml.h 12.1 */
#endif
  NVML_P2P_STATUS_GPU_NOT_SUPPORTED = 2,
  NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED = 3,
  NVML_P2P_STATUS_DISABLED_BY_REGKEY = 4,
  NVML_P2P_STATUS_NOT_SUPPORTED = 5,
  NVML_P2P_STATUS_UNKNOWN = 6
} nvmlGpuP2PStatus_t;

typedef enum nvmlGpuP2PCapsIndex_enum {
  NVML_P2P_CAPS_INDEX_READ = 0,
  NVML_P2P_CAPS_INDEX_WRITE = 1,
  NVML_P2P_CAPS_INDEX_NVLINK = 2,
  NVML_P2P_CAPS_INDEX_ATOMICS = 3,
  NVML_P2P_CAPS_INDEX_PROP = 4,
  NVML_P2P_CAPS_INDEX_UNKNOWN = 5
} nvmlGpuP2PCapsIndex_t;

typedef enum nvmlValueType_enum {
  NVML_VALUE_TYPE_DOUBLE = 0,
  NVML_VALUE_TYPE_UNSIGNED_INT = 1,
  NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
  NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
  NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
#if AXL_ABI_HAVE(12020)
  NVML_VALUE_TYPE_SIGNED_INT = 5 /* nvml.h 12.2 */
#endif
} nvmlValueType_t;

/* architecture: a plain unsigned int with #defined values in nvml.h */
typedef unsigned int nvmlDeviceArchitecture_t;
#define NVML_DEVICE_ARCH_KEPLER 2
#define NVML_DEVICE_ARCH_MAXWELL 3
#define NVML_DEVICE_ARCH_PASCAL 4
#define NVML_DEVICE_ARCH_VOLTA 5
#define NVML_DEVICE_ARCH_TURING 6
#define NVML_DEVICE_ARCH_AMPERE 7
#define NVML_DEVICE_ARCH_ADA 8
#define NVML_DEVICE_ARCH_HOPPER 9
#if AXL_ABI_HAVE(12060)
#define NVML_DEVICE_ARCH_BLACKWELL 10 /* nvml.h 12.6 */
#endif
#define NVML_DEVICE_ARCH_UNKNOWN 0xffffffffu

/* clocks event (formerly throttle) reasons, a 64-bit mask: the Hw* ones keep the
 * throttle name; the others were renamed in nvml.h 12.2 */
#if AXL_ABI_HAVE(12020)
#define nvmlClocksEventReasonGpuIdle 0x0000000000000001ULL
#define nvmlClocksEventReasonApplicationsClocksSetting 0x0000000000000002ULL
#define nvmlClocksEventReasonSwPowerCap 0x0000000000000004ULL
#define nvmlClocksEventReasonSyncBoost 0x0000000000000010ULL
#define nvmlClocksEventReasonSwThermalSlowdown 0x0000000000000020ULL
#define nvmlClocksEventReasonDisplayClockSetting 0x0000000000000100ULL
#endif
#define nvmlClocksThrottleReasonHwSlowdown 0x0000000000000008ULL
#define nvmlClocksThrottleReasonHwThermalSlowdown 0x0000000000000040ULL
#define nvmlClocksThrottleReasonHwPowerBrakeSlowdown 0x0000000000000080ULL

/* MIG */
#define NVML_DEVICE_MIG_DISABLE 0u
#define NVML_DEVICE_MIG_ENABLE 1u
#define NVML_GPU_INSTANCE_PROFILE_1_SLICE 0x0u
#define NVML_GPU_INSTANCE_PROFILE_2_SLICE 0x1u
#define NVML_GPU_INSTANCE_PROFILE_3_SLICE 0x2u
#define NVML_GPU_INSTANCE_PROFILE_4_SLICE 0x3u
#define NVML_GPU_INSTANCE_PROFILE_7_SLICE 0x4u
#define NVML_GPU_INSTANCE_PROFILE_8_SLICE 0x5u
#define NVML_GPU_INSTANCE_PROFILE_6_SLICE 0x6u
#define NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1 0x7u
#if AXL_ABI_HAVE(12000)
/* nvml.h 12.0 */
#define NVML_GPU_INSTANCE_PROFILE_2_SLICE_REV1 0x8u
#define NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2 0x9u
#define NVML_GPU_INSTANCE_PROFILE_COUNT 0xAu
#else
#define NVML_GPU_INSTANCE_PROFILE_COUNT 0x8u
#endif

/* field ids (nvmlDeviceGetFieldValues) */
#define NVML_FI_DEV_NVLINK_SPEED_MBPS_L0 84
#define NVML_FI_DEV_NVLINK_SPEED_MBPS_L5 89
#define NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON 90
#define NVML_FI_DEV_NVLINK_LINK_COUNT 91

/* ---- structs ---------------------------------------------------------------------------- */
/* what nvmlDeviceGetPciInfo (v1), _v2 and nvmlDeviceGetNvLinkRemotePciInfo (v1) write
 * into the caller's nvmlPciInfo_t: the pre-NVML-9 layout (the double's name; nvml.h
 * declares them with nvmlPciInfo_t, whose first 36 bytes agree) */
typedef struct nvmld_pci_info_v1 {
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE]; /* "%04X:%02X:%02X.0" */
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;   /* device id << 16 | vendor id */
  unsigned int pciSubSystemId;
  unsigned int reserved0, reserved1, reserved2, reserved3;
} nvmld_pci_info_v1_t;

/* what nvmlDeviceGetPciInfo_v3 and nvmlDeviceGetNvLinkRemotePciInfo_v2 write */
typedef struct nvmlPciInfo_st {
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE]; /* "%04X:%02X:%02X.0" */
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE]; /* "%08X:%02X:%02X.0" */
} nvmlPciInfo_t;

typedef struct nvmlMemory_st {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

typedef struct nvmlMemory_v2_st {
  unsigned int version; /* nvmlMemory_v2 */
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_v2_t;
#define nvmlMemory_v2 NVML_STRUCT_VERSION(Memory, 2)

typedef struct nvmlBAR1Memory_st {
  unsigned long long bar1Total;
  unsigned long long bar1Free;
  unsigned long long bar1Used;
} nvmlBAR1Memory_t;

typedef struct nvmlUtilization_st {
  unsigned int gpu;
  unsigned int memory;
} nvmlUtilization_t;

typedef struct nvmlProcessUtilizationSample_st {
  unsigned int pid;
  unsigned long long timeStamp; /* CPU timestamp in microseconds */
  unsigned int smUtil;
  unsigned int memUtil;
  unsigned int encUtil;
  unsigned int decUtil;
} nvmlProcessUtilizationSample_t;
_Static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32, "nvmlProcessUtilizationSample_t");
_Static_assert(offsetof(nvmlProcessUtilizationSample_t, smUtil) == 16, "smUtil");

typedef enum nvmlMemoryErrorType_enum {
  NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
  NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1
} nvmlMemoryErrorType_t;
typedef enum nvmlEccCounterType_enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 } nvmlEccCounterType_t;

typedef struct nvmlProcessInfo_v1_st {
  unsigned int pid;
  unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

typedef struct nvmlProcessInfo_v2_st {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;     /* 0xFFFFFFFF without MIG */
  unsigned int computeInstanceId; /* 0xFFFFFFFF without MIG */
} nvmlProcessInfo_v2_t;

/* the _v3 symbols' rows: another struct, of the same layout */
typedef struct nvmlProcessInfo_st {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlProcessInfo_t;

typedef struct nvmlDeviceAttributes_st {
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

typedef struct nvmlGpuInstanceProfileInfo_st {
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

typedef struct nvmlGpuInstanceProfileInfo_v2_st {
  unsigned int version; /* nvmlGpuInstanceProfileInfo_v2 */
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
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
} nvmlGpuInstanceProfileInfo_v2_t;
#define nvmlGpuInstanceProfileInfo_v2 NVML_STRUCT_VERSION(GpuInstanceProfileInfo, 2)

typedef union nvmlValue_st {
  double dVal;
#if AXL_ABI_HAVE(12020)
  int siVal; /* nvml.h 12.2 */
#endif
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
} nvmlValue_t;

typedef struct nvmlFieldValue_st {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  nvmlValueType_t valueType;
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
} nvmlFieldValue_t;

/* Events (events.inc). Checked against nvml.h 13.3.29 (NVIDIA/go-nvml v0.13.3-1's copy,
 * the "Event Handling Methods" of the NVML API reference): the type bits, and
 * nvmlEventData_t with the instance ids that NVML 11 (R450) added together with
 * nvmlEventSetWait_v2; the base nvmlEventSetWait of older drivers fills the first three
 * members only (nvmld_event_data_v1_t here, a name of the double's; nvml.h declares the
 * base symbol with nvmlEventData_t). */
typedef struct nvmlEventSet_st *nvmlEventSet_t;
#define nvmlEventTypeSingleBitEccError 0x0000000000000001LL
#define nvmlEventTypeDoubleBitEccError 0x0000000000000002LL
#define nvmlEventTypePState 0x0000000000000004LL
#define nvmlEventTypeXidCriticalError 0x0000000000000008LL
#define nvmlEventTypeClock 0x0000000000000010LL
#define nvmlEventTypePowerSourceChange 0x0000000000000080LL
#define nvmlEventMigConfigChange 0x0000000000000100LL
#define nvmlEventTypeAll                                                                                         \
  (nvmlEventTypeSingleBitEccError | nvmlEventTypeDoubleBitEccError | nvmlEventTypePState | nvmlEventTypeClock | \
   nvmlEventTypeXidCriticalError | nvmlEventTypePowerSourceChange | nvmlEventMigConfigChange)
typedef struct nvmlEventData_st {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlEventData_t;
typedef struct nvmld_event_data_v1 {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;
} nvmld_event_data_v1_t;

/* MIG control (nvmlDeviceCreateGpuInstance and friends) */
typedef struct nvmlGpuInstance_st *nvmlGpuInstance_t;
typedef struct nvmlComputeInstance_st *nvmlComputeInstance_t;
typedef struct nvmlGpuInstancePlacement_st {
  unsigned int start, size;
} nvmlGpuInstancePlacement_t;
typedef struct nvmlComputeInstancePlacement_st {
  unsigned int start, size;
} nvmlComputeInstancePlacement_t;
typedef struct nvmlGpuInstanceInfo_st {
  nvmlDevice_t device;
  unsigned int id;
  unsigned int profileId;
  nvmlGpuInstancePlacement_t placement;
} nvmlGpuInstanceInfo_t;
typedef struct nvmlComputeInstanceProfileInfo_st {
  unsigned int id, sliceCount, instanceCount, multiprocessorCount, sharedCopyEngineCount, sharedDecoderCount,
      sharedEncoderCount, sharedJpegCount, sharedOfaCount;
} nvmlComputeInstanceProfileInfo_t;
typedef struct nvmlComputeInstanceProfileInfo_v2_st {
  unsigned int version;
  unsigned int id, sliceCount, instanceCount, multiprocessorCount, sharedCopyEngineCount, sharedDecoderCount,
      sharedEncoderCount, sharedJpegCount, sharedOfaCount;
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
} nvmlComputeInstanceProfileInfo_v2_t;
#define nvmlComputeInstanceProfileInfo_v2 NVML_STRUCT_VERSION(ComputeInstanceProfileInfo, 2)
typedef struct nvmlComputeInstanceInfo_st {
  nvmlDevice_t device;
  nvmlGpuInstance_t gpuInstance;
  unsigned int id;
  unsigned int profileId;
  nvmlComputeInstancePlacement_t placement;
} nvmlComputeInstanceInfo_t;
#define NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE 0x0u
#define NVML_COMPUTE_INSTANCE_PROFILE_2_SLICE 0x1u
#define NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE 0x2u
#define NVML_COMPUTE_INSTANCE_PROFILE_4_SLICE 0x3u
#define NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE 0x4u
#define NVML_COMPUTE_INSTANCE_PROFILE_8_SLICE 0x5u
#define NVML_COMPUTE_INSTANCE_PROFILE_6_SLICE 0x6u
#if AXL_ABI_HAVE(12000)
/* nvml.h 12.0 */
#define NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE_REV1 0x7u
#define NVML_COMPUTE_INSTANCE_PROFILE_COUNT 0x8u
#else
#define NVML_COMPUTE_INSTANCE_PROFILE_COUNT 0x7u
#endif
#define NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED 0x0u

/* ---- the layouts, pinned (x86-64 and aarch64 LP64) ------------------------------------ */
_Static_assert(sizeof(nvmlGpuInstanceInfo_t) == 24, "nvmlGpuInstanceInfo_t");
_Static_assert(sizeof(nvmlComputeInstanceInfo_t) == 32, "nvmlComputeInstanceInfo_t");
_Static_assert(sizeof(nvmlComputeInstanceProfileInfo_t) == 36, "nvmlComputeInstanceProfileInfo_t");
_Static_assert(sizeof(nvmlComputeInstanceProfileInfo_v2_t) == 136, "nvmlComputeInstanceProfileInfo_v2_t");
_Static_assert(nvmlComputeInstanceProfileInfo_v2 == 0x02000088u, "nvmlComputeInstanceProfileInfo_v2 version word");
_Static_assert(sizeof(nvmlReturn_t) == 4, "nvmlReturn_t is an int-sized enum");
_Static_assert(sizeof(nvmld_pci_info_v1_t) == 52, "nvmld_pci_info_v1_t size");
_Static_assert(offsetof(nvmld_pci_info_v1_t, domain) == 16, "nvmld_pci_info_v1_t.domain");
_Static_assert(offsetof(nvmld_pci_info_v1_t, pciSubSystemId) == 32, "nvmld_pci_info_v1_t.pciSubSystemId");
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t (v3) size");
_Static_assert(offsetof(nvmlPciInfo_t, domain) == 16, "nvmlPciInfo_t.domain");
_Static_assert(offsetof(nvmlPciInfo_t, bus) == 20, "nvmlPciInfo_t.bus");
_Static_assert(offsetof(nvmlPciInfo_t, device) == 24, "nvmlPciInfo_t.device");
_Static_assert(offsetof(nvmlPciInfo_t, pciDeviceId) == 28, "nvmlPciInfo_t.pciDeviceId");
_Static_assert(offsetof(nvmlPciInfo_t, pciSubSystemId) == 32, "nvmlPciInfo_t.pciSubSystemId");
_Static_assert(offsetof(nvmlPciInfo_t, busId) == 36, "nvmlPciInfo_t.busId");
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t size");
_Static_assert(offsetof(nvmlMemory_t, free) == 8 && offsetof(nvmlMemory_t, used) == 16, "nvmlMemory_t order");
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t size");
_Static_assert(offsetof(nvmlMemory_v2_t, total) == 8, "nvmlMemory_v2_t.total");
_Static_assert(offsetof(nvmlMemory_v2_t, reserved) == 16, "nvmlMemory_v2_t.reserved");
_Static_assert(offsetof(nvmlMemory_v2_t, free) == 24, "nvmlMemory_v2_t.free");
_Static_assert(offsetof(nvmlMemory_v2_t, used) == 32, "nvmlMemory_v2_t.used");
_Static_assert(nvmlMemory_v2 == 0x02000028u, "nvmlMemory_v2 version word");
_Static_assert(sizeof(nvmlBAR1Memory_t) == 24, "nvmlBAR1Memory_t size");
_Static_assert(offsetof(nvmlBAR1Memory_t, bar1Free) == 8, "nvmlBAR1Memory_t.bar1Free");
_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t size");
_Static_assert(sizeof(nvmlProcessInfo_v1_t) == 16, "nvmlProcessInfo_v1_t size");
_Static_assert(offsetof(nvmlProcessInfo_v1_t, usedGpuMemory) == 8, "nvmlProcessInfo_v1_t.usedGpuMemory");
_Static_assert(sizeof(nvmlProcessInfo_v2_t) == 24, "nvmlProcessInfo_v2_t size");
_Static_assert(offsetof(nvmlProcessInfo_v2_t, gpuInstanceId) == 16, "nvmlProcessInfo_v2_t.gpuInstanceId");
_Static_assert(offsetof(nvmlProcessInfo_v2_t, computeInstanceId) == 20, "nvmlProcessInfo_v2_t.computeInstanceId");
_Static_assert(sizeof(nvmlProcessInfo_t) == 24, "nvmlProcessInfo_t size");
_Static_assert(offsetof(nvmlProcessInfo_t, gpuInstanceId) == 16, "nvmlProcessInfo_t.gpuInstanceId");
_Static_assert(offsetof(nvmlProcessInfo_t, computeInstanceId) == 20, "nvmlProcessInfo_t.computeInstanceId");
_Static_assert(sizeof(nvmlDeviceAttributes_t) == 40, "nvmlDeviceAttributes_t size");
_Static_assert(offsetof(nvmlDeviceAttributes_t, gpuInstanceSliceCount) == 24,
	       "nvmlDeviceAttributes_t.gpuInstanceSliceCount");
_Static_assert(offsetof(nvmlDeviceAttributes_t, memorySizeMB) == 32, "nvmlDeviceAttributes_t.memorySizeMB");
_Static_assert(sizeof(nvmlGpuInstanceProfileInfo_t) == 48, "nvmlGpuInstanceProfileInfo_t size");
_Static_assert(offsetof(nvmlGpuInstanceProfileInfo_t, multiprocessorCount) == 16,
	       "GpuInstanceProfileInfo.multiprocessorCount");
_Static_assert(offsetof(nvmlGpuInstanceProfileInfo_t, memorySizeMB) == 40, "GpuInstanceProfileInfo.memorySizeMB");
_Static_assert(sizeof(nvmlGpuInstanceProfileInfo_v2_t) == 152, "nvmlGpuInstanceProfileInfo_v2_t size");
_Static_assert(offsetof(nvmlGpuInstanceProfileInfo_v2_t, id) == 4, "GpuInstanceProfileInfo_v2.id");
_Static_assert(offsetof(nvmlGpuInstanceProfileInfo_v2_t, memorySizeMB) == 48, "GpuInstanceProfileInfo_v2.memorySizeMB");
_Static_assert(offsetof(nvmlGpuInstanceProfileInfo_v2_t, name) == 56, "GpuInstanceProfileInfo_v2.name");
_Static_assert(nvmlGpuInstanceProfileInfo_v2 == 0x02000098u, "nvmlGpuInstanceProfileInfo_v2 version word");
_Static_assert(sizeof(nvmlEventData_t) == 32, "nvmlEventData_t size");
_Static_assert(offsetof(nvmlEventData_t, eventData) == 16, "nvmlEventData_t.eventData");
_Static_assert(offsetof(nvmlEventData_t, gpuInstanceId) == 24, "nvmlEventData_t.gpuInstanceId");
_Static_assert(offsetof(nvmlEventData_t, computeInstanceId) == 28, "nvmlEventData_t.computeInstanceId");
_Static_assert(sizeof(nvmld_event_data_v1_t) == 24, "nvmld_event_data_v1_t size");
_Static_assert(sizeof(nvmlValue_t) == 8, "nvmlValue_t size");
_Static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t size");
_Static_assert(offsetof(nvmlFieldValue_t, timestamp) == 8, "nvmlFieldValue_t.timestamp");
_Static_assert(offsetof(nvmlFieldValue_t, valueType) == 24, "nvmlFieldValue_t.valueType");
_Static_assert(offsetof(nvmlFieldValue_t, nvmlReturn) == 28, "nvmlFieldValue_t.nvmlReturn");
_Static_assert(offsetof(nvmlFieldValue_t, value) == 32, "nvmlFieldValue_t.value");

/* ---- the entry points ----------------------------------------------------------------------
 * The first group exists in both builds (a 2017-era driver had them); the group under
 * #ifndef NVML_DOUBLE_OLD only in the current-driver build. */
#define NVMLD_API NVMLD_EXPORT nvmlReturn_t

/* system */
NVMLD_API nvmlInit(void);
NVMLD_API nvmlShutdown(void);
NVMLD_EXPORT const char *nvmlErrorString(nvmlReturn_t result);
NVMLD_API nvmlSystemGetDriverVersion(char *version, unsigned int length);
NVMLD_API nvmlSystemGetNVMLVersion(char *version, unsigned int length);
NVMLD_API nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion);
NVMLD_API nvmlDeviceGetCount(unsigned int *deviceCount);
NVMLD_API nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device);
NVMLD_API nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device);
NVMLD_API nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device);
/* identity */
NVMLD_API nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length);
NVMLD_API nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length);
NVMLD_API nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length);
NVMLD_API nvmlDeviceGetBoardPartNumber(nvmlDevice_t device, char *partNumber, unsigned int length);
NVMLD_API nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char *version, unsigned int length);
NVMLD_API nvmlDeviceGetInforomImageVersion(nvmlDevice_t device, char *version, unsigned int length);
NVMLD_API nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber);
NVMLD_API nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index);
NVMLD_API nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type);
NVMLD_API nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor);
NVMLD_API nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci); /* nvmld_pci_info_v1_t */
NVMLD_API nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *currLinkGen);
NVMLD_API nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen);
NVMLD_API nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth);
NVMLD_API nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *maxLinkWidth);
/* memory, clocks, power, modes */
NVMLD_API nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
NVMLD_API nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device, nvmlBAR1Memory_t *bar1Memory);
NVMLD_API nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock);
NVMLD_API nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock);
NVMLD_API nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit);
NVMLD_API nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned int *defaultLimit);
NVMLD_API nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit);
NVMLD_API nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device, unsigned int *minLimit,
                                                       unsigned int *maxLimit);
NVMLD_API nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending);
NVMLD_API nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t *mode);
NVMLD_API nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode);
/* metrics */
NVMLD_API nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization);
NVMLD_API nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType, unsigned int *temp);
NVMLD_API nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power);
NVMLD_API nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy);
NVMLD_API nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed);
NVMLD_API nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned int *utilization,
                                          unsigned int *samplingPeriodUs);
NVMLD_API nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned int *utilization,
                                          unsigned int *samplingPeriodUs);
NVMLD_API nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                      nvmlEccCounterType_t counterType, unsigned long long *eccCounts);
NVMLD_API nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *utilization,
                                          unsigned int *processSamplesCount, unsigned long long lastSeenTimeStamp);
NVMLD_API nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *pState);
NVMLD_API nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons);
NVMLD_API nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
                                               nvmlProcessInfo_v1_t *infos);
NVMLD_API nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
                                                nvmlProcessInfo_v1_t *infos);
NVMLD_API nvmlDeviceGetPcieThroughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter, unsigned int *value);
/* NVLink and topology */
NVMLD_API nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t *isActive);
NVMLD_API nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link, unsigned int *version);
NVMLD_API nvmlDeviceGetNvLinkCapability(nvmlDevice_t device, unsigned int link, nvmlNvLinkCapability_t capability,
                                        unsigned int *capResult);
NVMLD_API nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device, unsigned int link,
                                           nvmlPciInfo_t *pci); /* nvmld_pci_info_v1_t */
NVMLD_API nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values);
NVMLD_API nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2,
                                              nvmlGpuTopologyLevel_t *pathInfo);
NVMLD_API nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2, nvmlGpuP2PCapsIndex_t p2pIndex,
                                 nvmlGpuP2PStatus_t *p2pStatus);
/* events (events.inc) */
NVMLD_API nvmlEventSetCreate(nvmlEventSet_t *set);
NVMLD_API nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes);
NVMLD_API nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes, nvmlEventSet_t set);
NVMLD_API nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms); /* the first 24 bytes */
NVMLD_API nvmlEventSetFree(nvmlEventSet_t set);

#ifndef NVML_DOUBLE_OLD
/* only in current drivers: every versioned symbol, MIG, and later additions */
NVMLD_API nvmlInit_v2(void);
NVMLD_API nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms);
NVMLD_API nvmlInitWithFlags(unsigned int flags);
NVMLD_API nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion);
NVMLD_API nvmlDeviceGetCount_v2(unsigned int *deviceCount);
NVMLD_API nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
NVMLD_API nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device);
NVMLD_API nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch);
NVMLD_API nvmlDeviceGetNumGpuCores(nvmlDevice_t device, unsigned int *numCores);
NVMLD_API nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci); /* nvmld_pci_info_v1_t */
NVMLD_API nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci);
NVMLD_API nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory);
#if AXL_ABI_HAVE(12020)
NVMLD_API nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons); /* nvml.h 12.2 */
#endif
NVMLD_API nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
                                                  nvmlProcessInfo_v2_t *infos);
NVMLD_API nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                  nvmlProcessInfo_t *infos);
NVMLD_API nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
                                                   nvmlProcessInfo_v2_t *infos);
NVMLD_API nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                   nvmlProcessInfo_t *infos);
NVMLD_API nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t *pci);
NVMLD_API nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
                                              nvmlIntNvLinkDeviceType_t *pNvLinkDeviceType);
/* MIG */
NVMLD_API nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode);
NVMLD_API nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count);
NVMLD_API nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice);
NVMLD_API nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice);
NVMLD_API nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id);
NVMLD_API nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id);
NVMLD_API nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device);
NVMLD_API nvmlDeviceGetAttributes(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes);
NVMLD_API nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes);
NVMLD_API nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile,
                                              nvmlGpuInstanceProfileInfo_t *info);
NVMLD_API nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t device, unsigned int profile,
                                               nvmlGpuInstanceProfileInfo_v2_t *info);
NVMLD_API nvmlDeviceGetGpuInstanceRemainingCapacity(nvmlDevice_t device, unsigned int profileId,
                                                    unsigned int *count);
NVMLD_API nvmlDeviceCreateGpuInstance(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstance_t *gpuInstance);
NVMLD_API nvmlDeviceGetGpuInstances(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstance_t *gpuInstances,
                                    unsigned int *count);
NVMLD_API nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id, nvmlGpuInstance_t *gpuInstance);
NVMLD_API nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gpuInstance, nvmlGpuInstanceInfo_t *info);
NVMLD_API nvmlGpuInstanceDestroy(nvmlGpuInstance_t gpuInstance);
NVMLD_API nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t gpuInstance, unsigned int profile,
                                                       unsigned int engProfile, nvmlComputeInstanceProfileInfo_t *info);
NVMLD_API nvmlGpuInstanceGetComputeInstanceProfileInfoV(nvmlGpuInstance_t gpuInstance, unsigned int profile,
                                                        unsigned int engProfile,
                                                        nvmlComputeInstanceProfileInfo_v2_t *info);
NVMLD_API nvmlGpuInstanceCreateComputeInstance(nvmlGpuInstance_t gpuInstance, unsigned int profileId,
                                               nvmlComputeInstance_t *computeInstance);
NVMLD_API nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t gpuInstance, unsigned int profileId,
                                             nvmlComputeInstance_t *computeInstances, unsigned int *count);
NVMLD_API nvmlComputeInstanceGetInfo(nvmlComputeInstance_t computeInstance, nvmlComputeInstanceInfo_t *info);
NVMLD_API nvmlComputeInstanceGetInfo_v2(nvmlComputeInstance_t computeInstance, nvmlComputeInstanceInfo_t *info);
NVMLD_API nvmlComputeInstanceDestroy(nvmlComputeInstance_t computeInstance);
#endif

#endif
