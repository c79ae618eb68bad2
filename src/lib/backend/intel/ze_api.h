/* SPDX-License-Identifier: MIT */
/*
 * The part of oneAPI Level Zero (libze_loader.so.1) that axl uses: the sysman (zes)
 * API for device properties, PCI, memory, frequency, power, engines and fabric ports,
 * and the three core calls of the legacy initialisation. Declared from the Level Zero
 * specification and its headers (oneapi-src/level-zero include/ze_api.h v1.12,
 * include/zes_api.h v1.15): only what we call, with sizes and key offsets pinned for LP64
 * targets. Intel's headers are not needed to build axl.
 *
 * Every struct starts with a structure type (stype) and an extension pointer (pNext);
 * enums are int-sized, ze_bool_t is one byte. Handles are opaque pointers: declared here
 * as void * so that one enumeration helper serves every kind of handle.
 */
#ifndef AXL_ZE_API_H
#define AXL_ZE_API_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

typedef int32_t ze_result_t; /* an enum of the specification: int-sized */
typedef uint8_t ze_bool_t;
typedef void *ze_driver_handle_t;
typedef void *ze_device_handle_t;
typedef void *zes_handle_t; /* zes_mem/freq/pwr/engine/fabric_port handles */

/* ze_result_t (ze_api.h) */
enum {
	ZE_RESULT_SUCCESS = 0,
	ZE_RESULT_NOT_READY = 1,
	ZE_RESULT_ERROR_DEVICE_LOST = 0x70000001,
	ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY = 0x70000002,
	ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY = 0x70000003,
	ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET = 0x70000006,
	ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE = 0x70000007,
	ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS = 0x70010000,
	ZE_RESULT_ERROR_NOT_AVAILABLE = 0x70010001,
	ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE = 0x70020000,
	ZE_RESULT_ERROR_UNINITIALIZED = 0x78000001,
	ZE_RESULT_ERROR_UNSUPPORTED_VERSION = 0x78000002,
	ZE_RESULT_ERROR_UNSUPPORTED_FEATURE = 0x78000003,
	ZE_RESULT_ERROR_INVALID_ARGUMENT = 0x78000004,
	ZE_RESULT_ERROR_INVALID_NULL_HANDLE = 0x78000005,
	ZE_RESULT_ERROR_INVALID_NULL_POINTER = 0x78000007,
	ZE_RESULT_ERROR_INVALID_SIZE = 0x78000008,
	ZE_RESULT_ERROR_INVALID_ENUMERATION = 0x7800000c,
	ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION = 0x7800000d,
	ZE_RESULT_ERROR_UNKNOWN = 0x7ffffffe,
	/* not Level Zero's: axl's answer for a function the loader does not export */
	AXL_ZE_NO_FUNCTION = 0x7fff0001,
	/* not Level Zero's: no zesInit, and the legacy zeInit would not bring sysman up
	 * (ZES_ENABLE_SYSMAN=1 is not in the environment), so it is not called */
	AXL_ZE_NEED_ENV = 0x7fff0002
};

/* ze_structure_type_t and zes_structure_type_t values of the structs we pass */
enum {
	ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES = 0x3,
	ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES = 0x1,
	ZES_STRUCTURE_TYPE_PCI_PROPERTIES = 0x2,
	ZES_STRUCTURE_TYPE_ENGINE_PROPERTIES = 0x5,
	ZES_STRUCTURE_TYPE_FABRIC_PORT_PROPERTIES = 0x6,
	ZES_STRUCTURE_TYPE_FREQ_PROPERTIES = 0x9,
	ZES_STRUCTURE_TYPE_MEM_PROPERTIES = 0xb,
	ZES_STRUCTURE_TYPE_POWER_PROPERTIES = 0xd,
	ZES_STRUCTURE_TYPE_PCI_STATE = 0x17,
	ZES_STRUCTURE_TYPE_FABRIC_PORT_STATE = 0x19,
	ZES_STRUCTURE_TYPE_MEM_STATE = 0x1e,
	ZES_STRUCTURE_TYPE_POWER_LIMIT_EXT_DESC = 0x27,
	ZES_STRUCTURE_TYPE_POWER_EXT_PROPERTIES = 0x28
};

/* ze_device_type_t / zes_device_type_t */
enum {
	ZE_DEVICE_TYPE_GPU = 1, ZE_DEVICE_TYPE_CPU = 2, ZE_DEVICE_TYPE_FPGA = 3, ZE_DEVICE_TYPE_MCA = 4,
	ZE_DEVICE_TYPE_VPU = 5
};
/* ze_device_property_flag_t */
enum { ZE_DEVICE_PROPERTY_FLAG_INTEGRATED = 1, ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE = 2 };

/* zes_mem_type_t, zes_mem_loc_t, zes_mem_health_t */
enum {
	ZES_MEM_TYPE_HBM = 0, ZES_MEM_TYPE_DDR = 1, ZES_MEM_TYPE_DDR3 = 2, ZES_MEM_TYPE_DDR4 = 3,
	ZES_MEM_TYPE_DDR5 = 4, ZES_MEM_TYPE_LPDDR = 5, ZES_MEM_TYPE_LPDDR3 = 6, ZES_MEM_TYPE_LPDDR4 = 7,
	ZES_MEM_TYPE_LPDDR5 = 8, ZES_MEM_TYPE_SRAM = 9, ZES_MEM_TYPE_L1 = 10, ZES_MEM_TYPE_L3 = 11,
	ZES_MEM_TYPE_GRF = 12, ZES_MEM_TYPE_SLM = 13, ZES_MEM_TYPE_GDDR4 = 14, ZES_MEM_TYPE_GDDR5 = 15,
	ZES_MEM_TYPE_GDDR5X = 16, ZES_MEM_TYPE_GDDR6 = 17, ZES_MEM_TYPE_GDDR6X = 18, ZES_MEM_TYPE_GDDR7 = 19
};
enum { ZES_MEM_LOC_SYSTEM = 0, ZES_MEM_LOC_DEVICE = 1 };
enum {
	ZES_MEM_HEALTH_UNKNOWN = 0, ZES_MEM_HEALTH_OK = 1, ZES_MEM_HEALTH_DEGRADED = 2,
	ZES_MEM_HEALTH_CRITICAL = 3, ZES_MEM_HEALTH_REPLACE = 4
};

/* zes_freq_domain_t */
enum { ZES_FREQ_DOMAIN_GPU = 0, ZES_FREQ_DOMAIN_MEMORY = 1, ZES_FREQ_DOMAIN_MEDIA = 2 };

/* zes_power_domain_t, zes_power_level_t, zes_limit_unit_t */
enum {
	ZES_POWER_DOMAIN_UNKNOWN = 0, ZES_POWER_DOMAIN_CARD = 1, ZES_POWER_DOMAIN_PACKAGE = 2,
	ZES_POWER_DOMAIN_STACK = 3, ZES_POWER_DOMAIN_MEMORY = 4, ZES_POWER_DOMAIN_GPU = 5
};
enum {
	ZES_POWER_LEVEL_UNKNOWN = 0, ZES_POWER_LEVEL_SUSTAINED = 1, ZES_POWER_LEVEL_BURST = 2,
	ZES_POWER_LEVEL_PEAK = 3, ZES_POWER_LEVEL_INSTANTANEOUS = 4
};
enum { ZES_LIMIT_UNIT_UNKNOWN = 0, ZES_LIMIT_UNIT_CURRENT = 1, ZES_LIMIT_UNIT_POWER = 2 };

/* zes_engine_group_t */
enum {
	ZES_ENGINE_GROUP_ALL = 0, ZES_ENGINE_GROUP_COMPUTE_ALL = 1, ZES_ENGINE_GROUP_MEDIA_ALL = 2,
	ZES_ENGINE_GROUP_COPY_ALL = 3, ZES_ENGINE_GROUP_COMPUTE_SINGLE = 4, ZES_ENGINE_GROUP_RENDER_SINGLE = 5,
	ZES_ENGINE_GROUP_MEDIA_DECODE_SINGLE = 6, ZES_ENGINE_GROUP_MEDIA_ENCODE_SINGLE = 7,
	ZES_ENGINE_GROUP_COPY_SINGLE = 8, ZES_ENGINE_GROUP_MEDIA_ENHANCEMENT_SINGLE = 9,
	ZES_ENGINE_GROUP_3D_SINGLE = 10, ZES_ENGINE_GROUP_3D_RENDER_COMPUTE_ALL = 11,
	ZES_ENGINE_GROUP_RENDER_ALL = 12, ZES_ENGINE_GROUP_3D_ALL = 13, ZES_ENGINE_GROUP_MEDIA_CODEC_SINGLE = 14
};

/* zes_fabric_port_status_t */
enum {
	ZES_FABRIC_PORT_STATUS_UNKNOWN = 0, ZES_FABRIC_PORT_STATUS_HEALTHY = 1,
	ZES_FABRIC_PORT_STATUS_DEGRADED = 2, ZES_FABRIC_PORT_STATUS_FAILED = 3,
	ZES_FABRIC_PORT_STATUS_DISABLED = 4
};

#define ZE_MAX_DEVICE_NAME 256
#define ZE_MAX_DEVICE_UUID_SIZE 16
#define ZES_STRING_PROPERTY_SIZE 64
#define ZES_MAX_FABRIC_PORT_MODEL_SIZE 256

typedef struct {
	uint32_t stype;
	void *pNext;
	uint32_t type; /* ze_device_type_t */
	uint32_t vendorId;
	uint32_t deviceId;
	uint32_t flags; /* ze_device_property_flags_t */
	uint32_t subdeviceId;
	uint32_t coreClockRate; /* MHz */
	uint64_t maxMemAllocSize;
	uint32_t maxHardwareContexts;
	uint32_t maxCommandQueuePriority;
	uint32_t numThreadsPerEU;
	uint32_t physicalEUSimdWidth;
	uint32_t numEUsPerSubslice;
	uint32_t numSubslicesPerSlice;
	uint32_t numSlices;
	uint64_t timerResolution;
	uint32_t timestampValidBits;
	uint32_t kernelTimestampValidBits;
	uint8_t uuid[ZE_MAX_DEVICE_UUID_SIZE];
	char name[ZE_MAX_DEVICE_NAME];
} ze_device_properties_t;

typedef struct {
	uint32_t stype;
	void *pNext;
	ze_device_properties_t core;
	uint32_t numSubdevices;
	char serialNumber[ZES_STRING_PROPERTY_SIZE];
	char boardNumber[ZES_STRING_PROPERTY_SIZE];
	char brandName[ZES_STRING_PROPERTY_SIZE];
	char modelName[ZES_STRING_PROPERTY_SIZE];
	char vendorName[ZES_STRING_PROPERTY_SIZE];
	char driverVersion[ZES_STRING_PROPERTY_SIZE];
} zes_device_properties_t;

typedef struct {
	uint32_t domain, bus, device, function;
} zes_pci_address_t;

typedef struct {
	int32_t gen;          /* -1 unknown */
	int32_t width;        /* -1 unknown */
	int64_t maxBandwidth; /* bytes/s, all lanes; -1 unknown */
} zes_pci_speed_t;

typedef struct {
	uint32_t stype;
	void *pNext;
	zes_pci_address_t address;
	zes_pci_speed_t maxSpeed;
	ze_bool_t haveBandwidthCounters;
	ze_bool_t havePacketCounters;
	ze_bool_t haveReplayCounters;
} zes_pci_properties_t;

typedef struct {
	uint32_t stype;
	const void *pNext;
	uint32_t status; /* zes_pci_link_status_t */
	uint32_t qualityIssues;
	uint32_t stabilityIssues;
	zes_pci_speed_t speed; /* now */
} zes_pci_state_t;

typedef struct {
	uint32_t stype;
	void *pNext;
	uint32_t type; /* zes_mem_type_t */
	ze_bool_t onSubdevice;
	uint32_t subdeviceId;
	uint32_t location;     /* zes_mem_loc_t */
	uint64_t physicalSize; /* bytes; 0 unknown */
	int32_t busWidth;      /* -1 unknown */
	int32_t numChannels;   /* -1 unknown */
} zes_mem_properties_t;

typedef struct {
	uint32_t stype;
	const void *pNext;
	uint32_t health; /* zes_mem_health_t */
	uint64_t free;
	uint64_t size; /* deprecated */
} zes_mem_state_t;

typedef struct {
	uint32_t stype;
	void *pNext;
	uint32_t type; /* zes_freq_domain_t */
	ze_bool_t onSubdevice;
	uint32_t subdeviceId;
	ze_bool_t canControl;
	ze_bool_t isThrottleEventSupported;
	double min; /* MHz */
	double max; /* MHz, non-overclocked */
} zes_freq_properties_t;

typedef struct {
	uint32_t stype;
	void *pNext;
	ze_bool_t onSubdevice;
	uint32_t subdeviceId;
	ze_bool_t canControl;
	ze_bool_t isEnergyThresholdSupported;
	int32_t defaultLimit; /* mW, -1 unknown (deprecated) */
	int32_t minLimit;     /* mW, -1 unknown (deprecated) */
	int32_t maxLimit;     /* mW, -1 unknown (deprecated) */
} zes_power_properties_t;

typedef struct {
	uint32_t stype;
	const void *pNext;
	uint32_t level;  /* zes_power_level_t */
	uint32_t source; /* zes_power_source_t */
	uint32_t limitUnit; /* zes_limit_unit_t */
	ze_bool_t enabledStateLocked;
	ze_bool_t enabled;
	ze_bool_t intervalValueLocked;
	int32_t interval; /* ms */
	ze_bool_t limitValueLocked;
	int32_t limit; /* mW (POWER) or mA (CURRENT) */
} zes_power_limit_ext_desc_t;

typedef struct {
	uint32_t stype;
	void *pNext;
	uint32_t domain; /* zes_power_domain_t */
	zes_power_limit_ext_desc_t *defaultLimit;
} zes_power_ext_properties_t;

typedef struct {
	ze_bool_t enabled;
	int32_t power;    /* mW */
	int32_t interval; /* ms */
} zes_power_sustained_limit_t;

typedef struct {
	uint32_t stype;
	void *pNext;
	uint32_t type; /* zes_engine_group_t */
	ze_bool_t onSubdevice;
	uint32_t subdeviceId;
} zes_engine_properties_t;

typedef struct {
	uint32_t fabricId;
	uint32_t attachId;
	uint8_t portNumber;
} zes_fabric_port_id_t;

typedef struct {
	int64_t bitRate; /* bits/s, all lanes, one direction; -1 unknown */
	int32_t width;   /* lanes; -1 unknown */
} zes_fabric_port_speed_t;

typedef struct {
	uint32_t stype;
	void *pNext;
	char model[ZES_MAX_FABRIC_PORT_MODEL_SIZE];
	ze_bool_t onSubdevice;
	uint32_t subdeviceId;
	zes_fabric_port_id_t portId;
	zes_fabric_port_speed_t maxRxSpeed;
	zes_fabric_port_speed_t maxTxSpeed;
} zes_fabric_port_properties_t;

typedef struct {
	uint32_t stype;
	const void *pNext;
	uint32_t status; /* zes_fabric_port_status_t */
	uint32_t qualityIssues;
	uint32_t failureReasons;
	zes_fabric_port_id_t remotePortId;
	zes_fabric_port_speed_t rxSpeed;
	zes_fabric_port_speed_t txSpeed;
} zes_fabric_port_state_t;

/* Layouts on LP64 (x86_64, aarch64), from the C layout rules applied to the headers. */
#if UINTPTR_MAX == 0xffffffffffffffffu
static_assert(sizeof(ze_device_properties_t) == 368, "ze_device_properties_t");
static_assert(offsetof(ze_device_properties_t, coreClockRate) == 36, "ze_device_properties_t.coreClockRate");
static_assert(offsetof(ze_device_properties_t, numSlices) == 72, "ze_device_properties_t.numSlices");
static_assert(offsetof(ze_device_properties_t, uuid) == 96, "ze_device_properties_t.uuid");
static_assert(offsetof(ze_device_properties_t, name) == 112, "ze_device_properties_t.name");
static_assert(sizeof(zes_device_properties_t) == 776, "zes_device_properties_t");
static_assert(offsetof(zes_device_properties_t, numSubdevices) == 384, "zes_device_properties_t.numSubdevices");
static_assert(offsetof(zes_device_properties_t, driverVersion) == 708, "zes_device_properties_t.driverVersion");
static_assert(sizeof(zes_pci_properties_t) == 56, "zes_pci_properties_t");
static_assert(offsetof(zes_pci_properties_t, maxSpeed) == 32, "zes_pci_properties_t.maxSpeed");
static_assert(sizeof(zes_pci_state_t) == 48, "zes_pci_state_t");
static_assert(offsetof(zes_pci_state_t, speed) == 32, "zes_pci_state_t.speed");
static_assert(sizeof(zes_mem_properties_t) == 48, "zes_mem_properties_t");
static_assert(offsetof(zes_mem_properties_t, physicalSize) == 32, "zes_mem_properties_t.physicalSize");
static_assert(sizeof(zes_mem_state_t) == 40, "zes_mem_state_t");
static_assert(sizeof(zes_freq_properties_t) == 48, "zes_freq_properties_t");
static_assert(offsetof(zes_freq_properties_t, min) == 32, "zes_freq_properties_t.min");
static_assert(sizeof(zes_power_properties_t) == 40, "zes_power_properties_t");
static_assert(offsetof(zes_power_properties_t, defaultLimit) == 28, "zes_power_properties_t.defaultLimit");
static_assert(sizeof(zes_power_limit_ext_desc_t) == 48, "zes_power_limit_ext_desc_t");
static_assert(offsetof(zes_power_limit_ext_desc_t, limit) == 40, "zes_power_limit_ext_desc_t.limit");
static_assert(sizeof(zes_power_ext_properties_t) == 32, "zes_power_ext_properties_t");
static_assert(sizeof(zes_power_sustained_limit_t) == 12, "zes_power_sustained_limit_t");
static_assert(sizeof(zes_engine_properties_t) == 32, "zes_engine_properties_t");
static_assert(sizeof(zes_fabric_port_id_t) == 12, "zes_fabric_port_id_t");
static_assert(sizeof(zes_fabric_port_properties_t) == 328, "zes_fabric_port_properties_t");
static_assert(offsetof(zes_fabric_port_properties_t, portId) == 280, "zes_fabric_port_properties_t.portId");
static_assert(offsetof(zes_fabric_port_properties_t, maxRxSpeed) == 296, "zes_fabric_port_properties_t.maxRxSpeed");
static_assert(sizeof(zes_fabric_port_state_t) == 72, "zes_fabric_port_state_t");
static_assert(offsetof(zes_fabric_port_state_t, rxSpeed) == 40, "zes_fabric_port_state_t.rxSpeed");
#endif

typedef ze_result_t (*axl_ze_enum_fn)(ze_device_handle_t, uint32_t *, zes_handle_t *);

/* The functions axl resolves from the loader (NULL when it lacks one). */
struct axl__ze_fns {
	/* sysman initialisation (Level Zero 1.5+) */
	ze_result_t (*zesInit)(uint32_t flags);
	ze_result_t (*zesDriverGet)(uint32_t *count, ze_driver_handle_t *drivers);
	ze_result_t (*zesDeviceGet)(ze_driver_handle_t, uint32_t *count, ze_device_handle_t *devices);
	/* the legacy path: zeInit with ZES_ENABLE_SYSMAN=1 in the environment, core handles */
	ze_result_t (*zeInit)(uint32_t flags);
	ze_result_t (*zeDriverGet)(uint32_t *count, ze_driver_handle_t *drivers);
	ze_result_t (*zeDeviceGet)(ze_driver_handle_t, uint32_t *count, ze_device_handle_t *devices);
	/* device */
	ze_result_t (*zesDeviceGetProperties)(ze_device_handle_t, zes_device_properties_t *);
	ze_result_t (*zesDevicePciGetProperties)(ze_device_handle_t, zes_pci_properties_t *);
	ze_result_t (*zesDevicePciGetState)(ze_device_handle_t, zes_pci_state_t *);
	/* components: count, then handles */
	axl_ze_enum_fn zesDeviceEnumMemoryModules;
	axl_ze_enum_fn zesDeviceEnumFrequencyDomains;
	axl_ze_enum_fn zesDeviceEnumPowerDomains;
	axl_ze_enum_fn zesDeviceEnumEngineGroups;
	axl_ze_enum_fn zesDeviceEnumFabricPorts;
	ze_result_t (*zesMemoryGetProperties)(zes_handle_t, zes_mem_properties_t *);
	ze_result_t (*zesMemoryGetState)(zes_handle_t, zes_mem_state_t *);
	ze_result_t (*zesFrequencyGetProperties)(zes_handle_t, zes_freq_properties_t *);
	ze_result_t (*zesPowerGetProperties)(zes_handle_t, zes_power_properties_t *);
	ze_result_t (*zesPowerGetLimitsExt)(zes_handle_t, uint32_t *count, zes_power_limit_ext_desc_t *);
	ze_result_t (*zesPowerGetLimits)(zes_handle_t, zes_power_sustained_limit_t *, void *burst, void *peak);
	ze_result_t (*zesEngineGetProperties)(zes_handle_t, zes_engine_properties_t *);
	ze_result_t (*zesFabricPortGetProperties)(zes_handle_t, zes_fabric_port_properties_t *);
	ze_result_t (*zesFabricPortGetState)(zes_handle_t, zes_fabric_port_state_t *);
};

#endif
