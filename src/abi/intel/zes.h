/* SPDX-License-Identifier: MIT */
/*
 * oneAPI Level Zero sysman (zes, in libze_loader.so.1): the part axl calls
 * (lib/backend/intel: device properties, PCI, memory, frequency, power, engines and
 * fabric ports, live, recorded and replayed), declared once. It mirrors zes_api.h of the
 * Level Zero specification v1.4 (oneapi-src/level-zero include/zes_api.h, "v1.4-r1.4.8",
 * as Debian 12's libze-dev 1.8.12 ships it); tests/vendorabi compares it with that header.
 * The core types it builds on are abi/intel/ze.h's.
 *
 * Versions as in ze.h: ZE_MAKE_VERSION(major, minor), the header's ZE_API_VERSION_CURRENT
 * (0x10004 for 1.4); later declarations sit under AXL_ABI_HAVE(<that version>), naming
 * the specification (and the loader release whose headers first carry it). Only the
 * members of the enums axl uses are declared, and each enum's FORCE_UINT32 member. LP64
 * only.
 */
#ifndef AXL_ABI_INTEL_ZES_H
#define AXL_ABI_INTEL_ZES_H

#include <stddef.h>
#include <stdint.h>

#include "abi/abi.h"
#include "abi/intel/ze.h"

/* ---- handles ---- */
typedef ze_driver_handle_t zes_driver_handle_t;
typedef ze_device_handle_t zes_device_handle_t;
typedef struct _zes_mem_handle_t *zes_mem_handle_t;
typedef struct _zes_freq_handle_t *zes_freq_handle_t;
typedef struct _zes_pwr_handle_t *zes_pwr_handle_t;
typedef struct _zes_engine_handle_t *zes_engine_handle_t;
typedef struct _zes_fabric_port_handle_t *zes_fabric_port_handle_t;

#define ZES_STRING_PROPERTY_SIZE 64
#define ZES_MAX_FABRIC_PORT_MODEL_SIZE 256

/* ---- enumerations and flags: the members axl uses ---- */
typedef enum _zes_structure_type_t {
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
	ZES_STRUCTURE_TYPE_POWER_EXT_PROPERTIES = 0x28,
	ZES_STRUCTURE_TYPE_FORCE_UINT32 = 0x7fffffff
} zes_structure_type_t;

typedef enum _zes_pci_link_status_t {
	ZES_PCI_LINK_STATUS_UNKNOWN = 0,
	ZES_PCI_LINK_STATUS_GOOD = 1,
	ZES_PCI_LINK_STATUS_QUALITY_ISSUES = 2,
	ZES_PCI_LINK_STATUS_STABILITY_ISSUES = 3,
	ZES_PCI_LINK_STATUS_FORCE_UINT32 = 0x7fffffff
} zes_pci_link_status_t;
typedef uint32_t zes_pci_link_qual_issue_flags_t;
typedef uint32_t zes_pci_link_stab_issue_flags_t;

typedef enum _zes_mem_type_t {
	ZES_MEM_TYPE_HBM = 0,
	ZES_MEM_TYPE_DDR = 1,
	ZES_MEM_TYPE_DDR3 = 2,
	ZES_MEM_TYPE_DDR4 = 3,
	ZES_MEM_TYPE_DDR5 = 4,
	ZES_MEM_TYPE_LPDDR = 5,
	ZES_MEM_TYPE_LPDDR3 = 6,
	ZES_MEM_TYPE_LPDDR4 = 7,
	ZES_MEM_TYPE_LPDDR5 = 8,
	ZES_MEM_TYPE_SRAM = 9,
	ZES_MEM_TYPE_L1 = 10,
	ZES_MEM_TYPE_L3 = 11,
	ZES_MEM_TYPE_GRF = 12,
	ZES_MEM_TYPE_SLM = 13,
	ZES_MEM_TYPE_GDDR4 = 14,
	ZES_MEM_TYPE_GDDR5 = 15,
	ZES_MEM_TYPE_GDDR5X = 16,
	ZES_MEM_TYPE_GDDR6 = 17,
	ZES_MEM_TYPE_GDDR6X = 18,
	ZES_MEM_TYPE_GDDR7 = 19,
	ZES_MEM_TYPE_FORCE_UINT32 = 0x7fffffff
} zes_mem_type_t;

typedef enum _zes_mem_loc_t {
	ZES_MEM_LOC_SYSTEM = 0,
	ZES_MEM_LOC_DEVICE = 1,
	ZES_MEM_LOC_FORCE_UINT32 = 0x7fffffff
} zes_mem_loc_t;

typedef enum _zes_mem_health_t {
	ZES_MEM_HEALTH_UNKNOWN = 0,
	ZES_MEM_HEALTH_OK = 1,
	ZES_MEM_HEALTH_DEGRADED = 2,
	ZES_MEM_HEALTH_CRITICAL = 3,
	ZES_MEM_HEALTH_REPLACE = 4,
	ZES_MEM_HEALTH_FORCE_UINT32 = 0x7fffffff
} zes_mem_health_t;

typedef enum _zes_freq_domain_t {
	ZES_FREQ_DOMAIN_GPU = 0,
	ZES_FREQ_DOMAIN_MEMORY = 1,
#if AXL_ABI_HAVE(0x10006)
	/* zes_api.h v1.6 (loader v1.10) */
	ZES_FREQ_DOMAIN_MEDIA = 2,
#endif
	ZES_FREQ_DOMAIN_FORCE_UINT32 = 0x7fffffff
} zes_freq_domain_t;

typedef enum _zes_power_domain_t {
	ZES_POWER_DOMAIN_UNKNOWN = 0,
	ZES_POWER_DOMAIN_CARD = 1,
	ZES_POWER_DOMAIN_PACKAGE = 2,
	ZES_POWER_DOMAIN_STACK = 3,
#if AXL_ABI_HAVE(0x10008)
	/* zes_api.h v1.8 (loader v1.15) */
	ZES_POWER_DOMAIN_MEMORY = 4,
	ZES_POWER_DOMAIN_GPU = 5,
#endif
	ZES_POWER_DOMAIN_FORCE_UINT32 = 0x7fffffff
} zes_power_domain_t;

typedef enum _zes_power_level_t {
	ZES_POWER_LEVEL_UNKNOWN = 0,
	ZES_POWER_LEVEL_SUSTAINED = 1,
	ZES_POWER_LEVEL_BURST = 2,
	ZES_POWER_LEVEL_PEAK = 3,
	ZES_POWER_LEVEL_INSTANTANEOUS = 4,
	ZES_POWER_LEVEL_FORCE_UINT32 = 0x7fffffff
} zes_power_level_t;

typedef enum _zes_power_source_t {
	ZES_POWER_SOURCE_ANY = 0,
	ZES_POWER_SOURCE_MAINS = 1,
	ZES_POWER_SOURCE_BATTERY = 2,
	ZES_POWER_SOURCE_FORCE_UINT32 = 0x7fffffff
} zes_power_source_t;

typedef enum _zes_limit_unit_t {
	ZES_LIMIT_UNIT_UNKNOWN = 0,
	ZES_LIMIT_UNIT_CURRENT = 1,
	ZES_LIMIT_UNIT_POWER = 2,
	ZES_LIMIT_UNIT_FORCE_UINT32 = 0x7fffffff
} zes_limit_unit_t;

typedef enum _zes_engine_group_t {
	ZES_ENGINE_GROUP_ALL = 0,
	ZES_ENGINE_GROUP_COMPUTE_ALL = 1,
	ZES_ENGINE_GROUP_MEDIA_ALL = 2,
	ZES_ENGINE_GROUP_COPY_ALL = 3,
	ZES_ENGINE_GROUP_COMPUTE_SINGLE = 4,
	ZES_ENGINE_GROUP_RENDER_SINGLE = 5,
	ZES_ENGINE_GROUP_MEDIA_DECODE_SINGLE = 6,
	ZES_ENGINE_GROUP_MEDIA_ENCODE_SINGLE = 7,
	ZES_ENGINE_GROUP_COPY_SINGLE = 8,
	ZES_ENGINE_GROUP_MEDIA_ENHANCEMENT_SINGLE = 9,
	ZES_ENGINE_GROUP_3D_SINGLE = 10,
	ZES_ENGINE_GROUP_3D_RENDER_COMPUTE_ALL = 11,
	ZES_ENGINE_GROUP_RENDER_ALL = 12,
	ZES_ENGINE_GROUP_3D_ALL = 13,
#if AXL_ABI_HAVE(0x10008)
	/* zes_api.h v1.8 (loader v1.15) */
	ZES_ENGINE_GROUP_MEDIA_CODEC_SINGLE = 14,
#endif
	ZES_ENGINE_GROUP_FORCE_UINT32 = 0x7fffffff
} zes_engine_group_t;

typedef enum _zes_fabric_port_status_t {
	ZES_FABRIC_PORT_STATUS_UNKNOWN = 0,
	ZES_FABRIC_PORT_STATUS_HEALTHY = 1,
	ZES_FABRIC_PORT_STATUS_DEGRADED = 2,
	ZES_FABRIC_PORT_STATUS_FAILED = 3,
	ZES_FABRIC_PORT_STATUS_DISABLED = 4,
	ZES_FABRIC_PORT_STATUS_FORCE_UINT32 = 0x7fffffff
} zes_fabric_port_status_t;
typedef uint32_t zes_fabric_port_qual_issue_flags_t;
typedef uint32_t zes_fabric_port_failure_flags_t;

#if AXL_ABI_HAVE(0x10005)
/* zes_api.h v1.5 (loader v1.9) */
typedef uint32_t zes_init_flags_t;
#endif

/* ---- structures ---- */
typedef struct _zes_device_properties_t {
	zes_structure_type_t stype;
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

typedef struct _zes_pci_address_t {
	uint32_t domain;
	uint32_t bus;
	uint32_t device;
	uint32_t function;
} zes_pci_address_t;

typedef struct _zes_pci_speed_t {
	int32_t gen;          /* -1 unknown */
	int32_t width;        /* -1 unknown */
	int64_t maxBandwidth; /* bytes/s, all lanes; -1 unknown */
} zes_pci_speed_t;

typedef struct _zes_pci_properties_t {
	zes_structure_type_t stype;
	void *pNext;
	zes_pci_address_t address;
	zes_pci_speed_t maxSpeed;
	ze_bool_t haveBandwidthCounters;
	ze_bool_t havePacketCounters;
	ze_bool_t haveReplayCounters;
} zes_pci_properties_t;

typedef struct _zes_pci_state_t {
	zes_structure_type_t stype;
	const void *pNext;
	zes_pci_link_status_t status;
	zes_pci_link_qual_issue_flags_t qualityIssues;
	zes_pci_link_stab_issue_flags_t stabilityIssues;
	zes_pci_speed_t speed; /* now */
} zes_pci_state_t;

typedef struct _zes_mem_properties_t {
	zes_structure_type_t stype;
	void *pNext;
	zes_mem_type_t type;
	ze_bool_t onSubdevice;
	uint32_t subdeviceId;
	zes_mem_loc_t location;
	uint64_t physicalSize; /* bytes; 0 unknown */
	int32_t busWidth;      /* -1 unknown */
	int32_t numChannels;   /* -1 unknown */
} zes_mem_properties_t;

typedef struct _zes_mem_state_t {
	zes_structure_type_t stype;
	const void *pNext;
	zes_mem_health_t health;
	uint64_t free;
	uint64_t size; /* deprecated */
} zes_mem_state_t;

typedef struct _zes_freq_properties_t {
	zes_structure_type_t stype;
	void *pNext;
	zes_freq_domain_t type;
	ze_bool_t onSubdevice;
	uint32_t subdeviceId;
	ze_bool_t canControl;
	ze_bool_t isThrottleEventSupported;
	double min; /* MHz */
	double max; /* MHz, non-overclocked */
} zes_freq_properties_t;

typedef struct _zes_power_properties_t {
	zes_structure_type_t stype;
	void *pNext;
	ze_bool_t onSubdevice;
	uint32_t subdeviceId;
	ze_bool_t canControl;
	ze_bool_t isEnergyThresholdSupported;
	int32_t defaultLimit; /* mW, -1 unknown (deprecated) */
	int32_t minLimit;     /* mW, -1 unknown (deprecated) */
	int32_t maxLimit;     /* mW, -1 unknown (deprecated) */
} zes_power_properties_t;

typedef struct _zes_power_limit_ext_desc_t {
	zes_structure_type_t stype;
	const void *pNext;
	zes_power_level_t level;
	zes_power_source_t source;
	zes_limit_unit_t limitUnit;
	ze_bool_t enabledStateLocked;
	ze_bool_t enabled;
	ze_bool_t intervalValueLocked;
	int32_t interval; /* ms */
	ze_bool_t limitValueLocked;
	int32_t limit; /* mW (POWER) or mA (CURRENT) */
} zes_power_limit_ext_desc_t;

typedef struct _zes_power_ext_properties_t {
	zes_structure_type_t stype;
	void *pNext;
	zes_power_domain_t domain;
	zes_power_limit_ext_desc_t *defaultLimit;
} zes_power_ext_properties_t;

typedef struct _zes_power_sustained_limit_t {
	ze_bool_t enabled;
	int32_t power;    /* mW */
	int32_t interval; /* ms */
} zes_power_sustained_limit_t;

typedef struct _zes_power_burst_limit_t {
	ze_bool_t enabled;
	int32_t power;
} zes_power_burst_limit_t;

typedef struct _zes_power_peak_limit_t {
	int32_t powerAC;
	int32_t powerDC;
} zes_power_peak_limit_t;

typedef struct _zes_engine_properties_t {
	zes_structure_type_t stype;
	void *pNext;
	zes_engine_group_t type;
	ze_bool_t onSubdevice;
	uint32_t subdeviceId;
} zes_engine_properties_t;

typedef struct _zes_fabric_port_id_t {
	uint32_t fabricId;
	uint32_t attachId;
	uint8_t portNumber;
} zes_fabric_port_id_t;

typedef struct _zes_fabric_port_speed_t {
	int64_t bitRate; /* bits/s, all lanes, one direction; -1 unknown */
	int32_t width;   /* lanes; -1 unknown */
} zes_fabric_port_speed_t;

typedef struct _zes_fabric_port_properties_t {
	zes_structure_type_t stype;
	void *pNext;
	char model[ZES_MAX_FABRIC_PORT_MODEL_SIZE];
	ze_bool_t onSubdevice;
	uint32_t subdeviceId;
	zes_fabric_port_id_t portId;
	zes_fabric_port_speed_t maxRxSpeed;
	zes_fabric_port_speed_t maxTxSpeed;
} zes_fabric_port_properties_t;

typedef struct _zes_fabric_port_state_t {
	zes_structure_type_t stype;
	const void *pNext;
	zes_fabric_port_status_t status;
	zes_fabric_port_qual_issue_flags_t qualityIssues;
	zes_fabric_port_failure_flags_t failureReasons;
	zes_fabric_port_id_t remotePortId;
	zes_fabric_port_speed_t rxSpeed;
	zes_fabric_port_speed_t txSpeed;
} zes_fabric_port_state_t;

/* layouts on LP64, as the C layout rules give the specification's structs */
_Static_assert(sizeof(zes_device_properties_t) == 776, "zes_device_properties_t");
_Static_assert(sizeof(zes_pci_properties_t) == 56, "zes_pci_properties_t");
_Static_assert(sizeof(zes_fabric_port_properties_t) == 328, "zes_fabric_port_properties_t");

/* ---- initialisation ---- */
#if AXL_ABI_HAVE(0x10005)
/* zes_api.h v1.5 (loader v1.9): sysman without zeInit and ZES_ENABLE_SYSMAN */
ze_result_t zesInit(zes_init_flags_t flags);
ze_result_t zesDriverGet(uint32_t *pCount, zes_driver_handle_t *phDrivers);
ze_result_t zesDeviceGet(zes_driver_handle_t hDriver, uint32_t *pCount, zes_device_handle_t *phDevices);
#endif

/* ---- devices ---- */
ze_result_t zesDeviceGetProperties(zes_device_handle_t hDevice, zes_device_properties_t *pProperties);
ze_result_t zesDevicePciGetProperties(zes_device_handle_t hDevice, zes_pci_properties_t *pProperties);
ze_result_t zesDevicePciGetState(zes_device_handle_t hDevice, zes_pci_state_t *pState);
ze_result_t zesDeviceEnumMemoryModules(zes_device_handle_t hDevice, uint32_t *pCount, zes_mem_handle_t *phMemory);
ze_result_t zesDeviceEnumFrequencyDomains(zes_device_handle_t hDevice, uint32_t *pCount,
					  zes_freq_handle_t *phFrequency);
ze_result_t zesDeviceEnumPowerDomains(zes_device_handle_t hDevice, uint32_t *pCount, zes_pwr_handle_t *phPower);
ze_result_t zesDeviceEnumEngineGroups(zes_device_handle_t hDevice, uint32_t *pCount, zes_engine_handle_t *phEngine);
ze_result_t zesDeviceEnumFabricPorts(zes_device_handle_t hDevice, uint32_t *pCount, zes_fabric_port_handle_t *phPort);

/* ---- components ---- */
ze_result_t zesMemoryGetProperties(zes_mem_handle_t hMemory, zes_mem_properties_t *pProperties);
ze_result_t zesMemoryGetState(zes_mem_handle_t hMemory, zes_mem_state_t *pState);
ze_result_t zesFrequencyGetProperties(zes_freq_handle_t hFrequency, zes_freq_properties_t *pProperties);
ze_result_t zesPowerGetProperties(zes_pwr_handle_t hPower, zes_power_properties_t *pProperties);
ze_result_t zesPowerGetLimitsExt(zes_pwr_handle_t hPower, uint32_t *pCount, zes_power_limit_ext_desc_t *pSustained);
ze_result_t zesPowerGetLimits(zes_pwr_handle_t hPower, zes_power_sustained_limit_t *pSustained,
			      zes_power_burst_limit_t *pBurst, zes_power_peak_limit_t *pPeak);
ze_result_t zesEngineGetProperties(zes_engine_handle_t hEngine, zes_engine_properties_t *pProperties);
ze_result_t zesFabricPortGetProperties(zes_fabric_port_handle_t hPort, zes_fabric_port_properties_t *pProperties);
ze_result_t zesFabricPortGetState(zes_fabric_port_handle_t hPort, zes_fabric_port_state_t *pState);

#endif
