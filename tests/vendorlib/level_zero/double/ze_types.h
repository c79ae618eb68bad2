/* SPDX-License-Identifier: MIT */
/* The Level Zero types the double implements, written from the specification's headers
 * (oneapi-src/level-zero include/ze_api.h, include/zes_api.h): the real names, so that the
 * double reads like the API, and the prototypes of every entry point it exports.
 * Independent of axl's src/abi/intel/ze.h and zes.h on purpose: tests/vendorabi compares
 * both with the real headers (vendorabi.double.ze, vendorabi.ze, vendorabi.zes), two
 * witnesses.
 *
 * Declarations newer than the specification 1.4 (Debian's libze-dev 1.8.12) sit under
 * AXL_ABI_HAVE(ZE_MAKE_VERSION(major, minor), written out: 0x10005 is 1.5); the comparison
 * defines AXL_ABI_HEADER_VERSION to the header's ZE_API_VERSION_CURRENT. The old build
 * (ZE_DOUBLE_OLD) is an older loader, before zesInit (1.5). */
#ifndef ZE_DOUBLE_TYPES_H
#define ZE_DOUBLE_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef AXL_ABI_HEADER_VERSION
#define AXL_ABI_HAVE(version) (AXL_ABI_HEADER_VERSION >= (version))
#elif defined(ZE_DOUBLE_OLD)
#define AXL_ABI_HAVE(version) (0x10004 >= (version))
#else
#define AXL_ABI_HAVE(version) 1
#endif

typedef enum _ze_result_t {
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
	ZE_RESULT_FORCE_UINT32 = 0x7fffffff
} ze_result_t;

typedef uint8_t ze_bool_t;
typedef struct _ze_driver_handle_t *ze_driver_handle_t;
typedef struct _ze_device_handle_t *ze_device_handle_t;
typedef ze_driver_handle_t zes_driver_handle_t;
typedef ze_device_handle_t zes_device_handle_t;
typedef struct _zes_mem_handle_t *zes_mem_handle_t;
typedef struct _zes_freq_handle_t *zes_freq_handle_t;
typedef struct _zes_pwr_handle_t *zes_pwr_handle_t;
typedef struct _zes_engine_handle_t *zes_engine_handle_t;
typedef struct _zes_fabric_port_handle_t *zes_fabric_port_handle_t;
typedef uint32_t ze_init_flags_t;
#if AXL_ABI_HAVE(0x10005)
typedef uint32_t zes_init_flags_t;
#endif

#define ZE_DEVICE_TYPE_GPU 1
#define ZE_DEVICE_TYPE_VPU 5
#define ZE_DEVICE_PROPERTY_FLAG_INTEGRATED 1u
#define ZES_STRUCTURE_TYPE_POWER_LIMIT_EXT_DESC 0x27
#define ZES_STRUCTURE_TYPE_POWER_EXT_PROPERTIES 0x28

typedef struct _ze_device_properties_t {
	uint32_t stype;
	void *pNext;
	uint32_t type;
	uint32_t vendorId;
	uint32_t deviceId;
	uint32_t flags;
	uint32_t subdeviceId;
	uint32_t coreClockRate;
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
	struct {
		uint8_t id[16];
	} uuid;
	char name[256];
} ze_device_properties_t;

typedef struct _zes_device_properties_t {
	uint32_t stype;
	void *pNext;
	ze_device_properties_t core;
	uint32_t numSubdevices;
	char serialNumber[64];
	char boardNumber[64];
	char brandName[64];
	char modelName[64];
	char vendorName[64];
	char driverVersion[64];
} zes_device_properties_t;

typedef struct _zes_pci_speed_t {
	int32_t gen;
	int32_t width;
	int64_t maxBandwidth;
} zes_pci_speed_t;

typedef struct _zes_pci_properties_t {
	uint32_t stype;
	void *pNext;
	struct {
		uint32_t domain, bus, device, function;
	} address;
	zes_pci_speed_t maxSpeed;
	ze_bool_t haveBandwidthCounters, havePacketCounters, haveReplayCounters;
} zes_pci_properties_t;

typedef struct _zes_pci_state_t {
	uint32_t stype;
	const void *pNext;
	uint32_t status, qualityIssues, stabilityIssues;
	zes_pci_speed_t speed;
} zes_pci_state_t;

typedef struct _zes_mem_properties_t {
	uint32_t stype;
	void *pNext;
	uint32_t type;
	ze_bool_t onSubdevice;
	uint32_t subdeviceId;
	uint32_t location;
	uint64_t physicalSize;
	int32_t busWidth;
	int32_t numChannels;
} zes_mem_properties_t;

typedef struct _zes_mem_state_t {
	uint32_t stype;
	const void *pNext;
	uint32_t health;
	uint64_t free;
	uint64_t size;
} zes_mem_state_t;

typedef struct _zes_freq_properties_t {
	uint32_t stype;
	void *pNext;
	uint32_t type;
	ze_bool_t onSubdevice;
	uint32_t subdeviceId;
	ze_bool_t canControl;
	ze_bool_t isThrottleEventSupported;
	double min;
	double max;
} zes_freq_properties_t;

typedef struct _zes_power_properties_t {
	uint32_t stype;
	void *pNext;
	ze_bool_t onSubdevice;
	uint32_t subdeviceId;
	ze_bool_t canControl;
	ze_bool_t isEnergyThresholdSupported;
	int32_t defaultLimit, minLimit, maxLimit;
} zes_power_properties_t;

typedef struct _zes_power_limit_ext_desc_t {
	uint32_t stype;
	const void *pNext;
	uint32_t level, source, limitUnit;
	ze_bool_t enabledStateLocked, enabled, intervalValueLocked;
	int32_t interval;
	ze_bool_t limitValueLocked;
	int32_t limit;
} zes_power_limit_ext_desc_t;

typedef struct _zes_power_ext_properties_t {
	uint32_t stype;
	void *pNext;
	uint32_t domain;
	zes_power_limit_ext_desc_t *defaultLimit;
} zes_power_ext_properties_t;

typedef struct _zes_power_sustained_limit_t {
	ze_bool_t enabled;
	int32_t power;
	int32_t interval;
} zes_power_sustained_limit_t;
typedef struct _zes_power_burst_limit_t {
	ze_bool_t enabled;
	int32_t power;
} zes_power_burst_limit_t;
typedef struct _zes_power_peak_limit_t {
	int32_t powerAC, powerDC;
} zes_power_peak_limit_t;

typedef struct _zes_engine_properties_t {
	uint32_t stype;
	void *pNext;
	uint32_t type;
	ze_bool_t onSubdevice;
	uint32_t subdeviceId;
} zes_engine_properties_t;

typedef struct _zes_fabric_port_id_t {
	uint32_t fabricId, attachId;
	uint8_t portNumber;
} zes_fabric_port_id_t;
typedef struct _zes_fabric_port_speed_t {
	int64_t bitRate;
	int32_t width;
} zes_fabric_port_speed_t;
typedef struct _zes_fabric_port_properties_t {
	uint32_t stype;
	void *pNext;
	char model[256];
	ze_bool_t onSubdevice;
	uint32_t subdeviceId;
	zes_fabric_port_id_t portId;
	zes_fabric_port_speed_t maxRxSpeed, maxTxSpeed;
} zes_fabric_port_properties_t;
typedef struct _zes_fabric_port_state_t {
	uint32_t stype;
	const void *pNext;
	uint32_t status, qualityIssues, failureReasons;
	zes_fabric_port_id_t remotePortId;
	zes_fabric_port_speed_t rxSpeed, txSpeed;
} zes_fabric_port_state_t;


/* ---- the core API of a compute data path (ze_api.h: contexts, memory, immediate
 * command lists, events; ZE_extension_pci_properties) ---- */
typedef struct _ze_context_handle_t *ze_context_handle_t;
typedef struct _ze_command_list_handle_t *ze_command_list_handle_t;
typedef struct _ze_event_pool_handle_t *ze_event_pool_handle_t;
typedef struct _ze_event_handle_t *ze_event_handle_t;
#define ZE_INIT_FLAG_GPU_ONLY 1u
#define ZE_EVENT_POOL_FLAG_HOST_VISIBLE 1u
typedef struct _ze_pci_ext_properties_t {
	uint32_t stype; /* ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES 0x10008 */
	void *pNext;
	struct {
		uint32_t domain, bus, device, function;
	} address;
	struct {
		int32_t genVersion, width;
		int64_t maxBandwidth;
	} maxSpeed;
} ze_pci_ext_properties_t;
typedef struct _ze_device_memory_properties_t {
	uint32_t stype; /* ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES 0x7 */
	void *pNext;
	uint32_t flags;
	uint32_t maxClockRate;
	uint32_t maxBusWidth;
	uint64_t totalSize;
	char name[256];
} ze_device_memory_properties_t;
typedef struct _ze_context_desc_t {
	uint32_t stype;
	const void *pNext;
	uint32_t flags;
} ze_context_desc_t;
typedef struct _ze_device_mem_alloc_desc_t {
	uint32_t stype;
	const void *pNext;
	uint32_t flags;
	uint32_t ordinal;
} ze_device_mem_alloc_desc_t;
typedef struct _ze_host_mem_alloc_desc_t {
	uint32_t stype;
	const void *pNext;
	uint32_t flags;
} ze_host_mem_alloc_desc_t;
typedef struct _ze_command_queue_desc_t {
	uint32_t stype;
	const void *pNext;
	uint32_t ordinal, index, flags, mode, priority;
} ze_command_queue_desc_t;
typedef struct _ze_event_pool_desc_t {
	uint32_t stype;
	const void *pNext;
	uint32_t flags, count;
} ze_event_pool_desc_t;
typedef struct _ze_event_desc_t {
	uint32_t stype;
	const void *pNext;
	uint32_t index, signal, wait;
} ze_event_desc_t;

/* ---- the entry points the double exports ---- */
#if AXL_ABI_HAVE(0x10005)
ze_result_t zesInit(zes_init_flags_t flags);
ze_result_t zesDriverGet(uint32_t *pCount, zes_driver_handle_t *phDrivers);
ze_result_t zesDeviceGet(zes_driver_handle_t hDriver, uint32_t *pCount, zes_device_handle_t *phDevices);
#endif
ze_result_t zeInit(ze_init_flags_t flags);
ze_result_t zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers);
ze_result_t zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount, ze_device_handle_t *phDevices);
ze_result_t zesDeviceGetProperties(zes_device_handle_t hDevice, zes_device_properties_t *pProperties);
ze_result_t zesDevicePciGetProperties(zes_device_handle_t hDevice, zes_pci_properties_t *pProperties);
ze_result_t zesDevicePciGetState(zes_device_handle_t hDevice, zes_pci_state_t *pState);
ze_result_t zesDeviceEnumMemoryModules(zes_device_handle_t hDevice, uint32_t *pCount, zes_mem_handle_t *phMemory);
ze_result_t zesDeviceEnumFrequencyDomains(zes_device_handle_t hDevice, uint32_t *pCount,
					  zes_freq_handle_t *phFrequency);
ze_result_t zesDeviceEnumPowerDomains(zes_device_handle_t hDevice, uint32_t *pCount, zes_pwr_handle_t *phPower);
ze_result_t zesDeviceEnumEngineGroups(zes_device_handle_t hDevice, uint32_t *pCount, zes_engine_handle_t *phEngine);
ze_result_t zesDeviceEnumFabricPorts(zes_device_handle_t hDevice, uint32_t *pCount, zes_fabric_port_handle_t *phPort);
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
ze_result_t zeDeviceGetProperties(ze_device_handle_t hDevice, ze_device_properties_t *pDeviceProperties);
ze_result_t zeDevicePciGetPropertiesExt(ze_device_handle_t hDevice, ze_pci_ext_properties_t *pPciProperties);
ze_result_t zeDeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t *pCount,
					ze_device_memory_properties_t *pMemProperties);
ze_result_t zeDeviceCanAccessPeer(ze_device_handle_t hDevice, ze_device_handle_t hPeerDevice, ze_bool_t *value);
ze_result_t zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc, ze_context_handle_t *phContext);
ze_result_t zeContextDestroy(ze_context_handle_t hContext);
ze_result_t zeMemAllocDevice(ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t *device_desc, size_t size,
			     size_t alignment, ze_device_handle_t hDevice, void **pptr);
ze_result_t zeMemAllocHost(ze_context_handle_t hContext, const ze_host_mem_alloc_desc_t *host_desc, size_t size,
			   size_t alignment, void **pptr);
ze_result_t zeMemFree(ze_context_handle_t hContext, void *ptr);
ze_result_t zeCommandListCreateImmediate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
					 const ze_command_queue_desc_t *altdesc,
					 ze_command_list_handle_t *phCommandList);
ze_result_t zeCommandListDestroy(ze_command_list_handle_t hCommandList);
ze_result_t zeCommandListAppendMemoryCopy(ze_command_list_handle_t hCommandList, void *dstptr, const void *srcptr,
					  size_t size, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
					  ze_event_handle_t *phWaitEvents);
ze_result_t zeCommandListAppendMemoryFill(ze_command_list_handle_t hCommandList, void *ptr, const void *pattern,
					  size_t pattern_size, size_t size, ze_event_handle_t hSignalEvent,
					  uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents);
ze_result_t zeCommandListAppendBarrier(ze_command_list_handle_t hCommandList, ze_event_handle_t hSignalEvent,
				       uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents);
ze_result_t zeCommandListAppendWriteGlobalTimestamp(ze_command_list_handle_t hCommandList, uint64_t *dstptr,
						    ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
						    ze_event_handle_t *phWaitEvents);
#if AXL_ABI_HAVE(0x10006)
ze_result_t zeCommandListHostSynchronize(ze_command_list_handle_t hCommandList, uint64_t timeout);
#endif
ze_result_t zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t *desc, uint32_t numDevices,
			      ze_device_handle_t *phDevices, ze_event_pool_handle_t *phEventPool);
ze_result_t zeEventPoolDestroy(ze_event_pool_handle_t hEventPool);
ze_result_t zeEventCreate(ze_event_pool_handle_t hEventPool, const ze_event_desc_t *desc, ze_event_handle_t *phEvent);
ze_result_t zeEventDestroy(ze_event_handle_t hEvent);
ze_result_t zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout);

#endif
