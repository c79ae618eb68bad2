/* SPDX-License-Identifier: MIT */
/*
 * oneAPI Level Zero core (libze_loader.so.1): the part axl calls (lib/backend/intel: the
 * level-zero compute backend, and sysman's legacy initialisation), declared once. It
 * mirrors ze_api.h of the Level Zero specification v1.4 (oneapi-src/level-zero
 * include/ze_api.h, "v1.4-r1.4.8", as Debian 12's libze-dev 1.8.12 ships it);
 * tests/vendorabi compares it with that header. Sysman is abi/intel/zes.h.
 *
 * Versions are the specification's own, as ze_api_version_t spells them:
 * ZE_MAKE_VERSION(major, minor) = major << 16 | minor (0x10004 for 1.4), the header's
 * ZE_API_VERSION_CURRENT. Declarations from later specifications sit under
 * AXL_ABI_HAVE(<that version>), naming the specification (and the loader release whose
 * headers first carry it). Only the members of the enums axl uses are declared, and each
 * enum's FORCE_UINT32 member, which makes it 32 bits as the specification requires.
 * Every struct starts with its structure type (stype) and an extension pointer (pNext).
 * LP64 only.
 */
#ifndef AXL_ABI_INTEL_ZE_H
#define AXL_ABI_INTEL_ZE_H

#include <stddef.h>
#include <stdint.h>

#include "abi/abi.h"

/* ---- results ---- */
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
_Static_assert(sizeof(ze_result_t) == 4, "ze_result_t is 32 bits");

/* ---- scalar types, handles ---- */
typedef uint8_t ze_bool_t;
typedef struct _ze_driver_handle_t *ze_driver_handle_t;
typedef struct _ze_device_handle_t *ze_device_handle_t;
typedef struct _ze_context_handle_t *ze_context_handle_t;
typedef struct _ze_command_list_handle_t *ze_command_list_handle_t;
typedef struct _ze_event_pool_handle_t *ze_event_pool_handle_t;
typedef struct _ze_event_handle_t *ze_event_handle_t;

#define ZE_MAX_DEVICE_UUID_SIZE 16
#define ZE_MAX_DEVICE_NAME 256

/* ---- enumerations and flags: the members axl uses ---- */
typedef enum _ze_structure_type_t {
	ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES = 0x3,
	ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES = 0x7,
	ZE_STRUCTURE_TYPE_CONTEXT_DESC = 0xd,
	ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC = 0xe,
	ZE_STRUCTURE_TYPE_EVENT_POOL_DESC = 0x10,
	ZE_STRUCTURE_TYPE_EVENT_DESC = 0x11,
	ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC = 0x15,
	ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC = 0x16,
	ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES = 0x10008,
	ZE_STRUCTURE_TYPE_FORCE_UINT32 = 0x7fffffff
} ze_structure_type_t;

typedef uint32_t ze_init_flags_t;
typedef enum _ze_init_flag_t {
	ZE_INIT_FLAG_GPU_ONLY = (1 << 0),
	ZE_INIT_FLAG_FORCE_UINT32 = 0x7fffffff
} ze_init_flag_t;

typedef enum _ze_device_type_t {
	ZE_DEVICE_TYPE_GPU = 1,
	ZE_DEVICE_TYPE_CPU = 2,
	ZE_DEVICE_TYPE_FPGA = 3,
	ZE_DEVICE_TYPE_MCA = 4,
	ZE_DEVICE_TYPE_VPU = 5,
	ZE_DEVICE_TYPE_FORCE_UINT32 = 0x7fffffff
} ze_device_type_t;

typedef uint32_t ze_device_property_flags_t;
typedef enum _ze_device_property_flag_t {
	ZE_DEVICE_PROPERTY_FLAG_INTEGRATED = (1 << 0),
	ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE = (1 << 1),
	ZE_DEVICE_PROPERTY_FLAG_FORCE_UINT32 = 0x7fffffff
} ze_device_property_flag_t;

typedef uint32_t ze_device_memory_property_flags_t;
typedef uint32_t ze_context_flags_t;
typedef uint32_t ze_device_mem_alloc_flags_t;
typedef uint32_t ze_host_mem_alloc_flags_t;
typedef uint32_t ze_command_queue_flags_t;

typedef enum _ze_command_queue_mode_t {
	ZE_COMMAND_QUEUE_MODE_DEFAULT = 0,
	ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS = 1,
	ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS = 2,
	ZE_COMMAND_QUEUE_MODE_FORCE_UINT32 = 0x7fffffff
} ze_command_queue_mode_t;

typedef enum _ze_command_queue_priority_t {
	ZE_COMMAND_QUEUE_PRIORITY_NORMAL = 0,
	ZE_COMMAND_QUEUE_PRIORITY_FORCE_UINT32 = 0x7fffffff
} ze_command_queue_priority_t;

typedef uint32_t ze_event_pool_flags_t;
typedef enum _ze_event_pool_flag_t {
	ZE_EVENT_POOL_FLAG_HOST_VISIBLE = (1 << 0),
	ZE_EVENT_POOL_FLAG_FORCE_UINT32 = 0x7fffffff
} ze_event_pool_flag_t;

typedef uint32_t ze_event_scope_flags_t;
typedef enum _ze_event_scope_flag_t {
	ZE_EVENT_SCOPE_FLAG_HOST = (1 << 2),
	ZE_EVENT_SCOPE_FLAG_FORCE_UINT32 = 0x7fffffff
} ze_event_scope_flag_t;

/* ---- structures ---- */
typedef struct _ze_device_uuid_t {
	uint8_t id[ZE_MAX_DEVICE_UUID_SIZE];
} ze_device_uuid_t;

typedef struct _ze_device_properties_t {
	ze_structure_type_t stype;
	void *pNext;
	ze_device_type_t type;
	uint32_t vendorId;
	uint32_t deviceId;
	ze_device_property_flags_t flags;
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
	uint64_t timerResolution; /* ns with ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES */
	uint32_t timestampValidBits;
	uint32_t kernelTimestampValidBits;
	ze_device_uuid_t uuid;
	char name[ZE_MAX_DEVICE_NAME];
} ze_device_properties_t;
_Static_assert(sizeof(ze_device_properties_t) == 368, "ze_device_properties_t");

/* ZE_extension_pci_properties */
typedef struct _ze_pci_address_ext_t {
	uint32_t domain;
	uint32_t bus;
	uint32_t device;
	uint32_t function;
} ze_pci_address_ext_t;

typedef struct _ze_pci_speed_ext_t {
	int32_t genVersion;
	int32_t width;
	int64_t maxBandwidth;
} ze_pci_speed_ext_t;

typedef struct _ze_pci_ext_properties_t {
	ze_structure_type_t stype;
	void *pNext;
	ze_pci_address_ext_t address;
	ze_pci_speed_ext_t maxSpeed;
} ze_pci_ext_properties_t;

typedef struct _ze_device_memory_properties_t {
	ze_structure_type_t stype;
	void *pNext;
	ze_device_memory_property_flags_t flags;
	uint32_t maxClockRate;
	uint32_t maxBusWidth;
	uint64_t totalSize;
	char name[ZE_MAX_DEVICE_NAME];
} ze_device_memory_properties_t;

typedef struct _ze_context_desc_t {
	ze_structure_type_t stype;
	const void *pNext;
	ze_context_flags_t flags;
} ze_context_desc_t;

typedef struct _ze_device_mem_alloc_desc_t {
	ze_structure_type_t stype;
	const void *pNext;
	ze_device_mem_alloc_flags_t flags;
	uint32_t ordinal;
} ze_device_mem_alloc_desc_t;

typedef struct _ze_host_mem_alloc_desc_t {
	ze_structure_type_t stype;
	const void *pNext;
	ze_host_mem_alloc_flags_t flags;
} ze_host_mem_alloc_desc_t;

typedef struct _ze_command_queue_desc_t {
	ze_structure_type_t stype;
	const void *pNext;
	uint32_t ordinal;
	uint32_t index;
	ze_command_queue_flags_t flags;
	ze_command_queue_mode_t mode;
	ze_command_queue_priority_t priority;
} ze_command_queue_desc_t;

typedef struct _ze_event_pool_desc_t {
	ze_structure_type_t stype;
	const void *pNext;
	ze_event_pool_flags_t flags;
	uint32_t count;
} ze_event_pool_desc_t;

typedef struct _ze_event_desc_t {
	ze_structure_type_t stype;
	const void *pNext;
	uint32_t index;
	ze_event_scope_flags_t signal;
	ze_event_scope_flags_t wait;
} ze_event_desc_t;

/* ---- drivers and devices ---- */
ze_result_t zeInit(ze_init_flags_t flags);
ze_result_t zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers);
ze_result_t zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount, ze_device_handle_t *phDevices);
ze_result_t zeDeviceGetProperties(ze_device_handle_t hDevice, ze_device_properties_t *pDeviceProperties);
ze_result_t zeDevicePciGetPropertiesExt(ze_device_handle_t hDevice, ze_pci_ext_properties_t *pPciProperties);
ze_result_t zeDeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t *pCount,
					ze_device_memory_properties_t *pMemProperties);
ze_result_t zeDeviceCanAccessPeer(ze_device_handle_t hDevice, ze_device_handle_t hPeerDevice, ze_bool_t *value);

/* ---- contexts and memory ---- */
ze_result_t zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc, ze_context_handle_t *phContext);
ze_result_t zeContextDestroy(ze_context_handle_t hContext);
ze_result_t zeMemAllocDevice(ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t *device_desc, size_t size,
			     size_t alignment, ze_device_handle_t hDevice, void **pptr);
ze_result_t zeMemAllocHost(ze_context_handle_t hContext, const ze_host_mem_alloc_desc_t *host_desc, size_t size,
			   size_t alignment, void **pptr);
ze_result_t zeMemFree(ze_context_handle_t hContext, void *ptr);

/* ---- immediate command lists, events ---- */
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
/* ze_api.h v1.6 (loader v1.10) */
ze_result_t zeCommandListHostSynchronize(ze_command_list_handle_t hCommandList, uint64_t timeout);
#endif
ze_result_t zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t *desc, uint32_t numDevices,
			      ze_device_handle_t *phDevices, ze_event_pool_handle_t *phEventPool);
ze_result_t zeEventPoolDestroy(ze_event_pool_handle_t hEventPool);
ze_result_t zeEventCreate(ze_event_pool_handle_t hEventPool, const ze_event_desc_t *desc, ze_event_handle_t *phEvent);
ze_result_t zeEventDestroy(ze_event_handle_t hEvent);
ze_result_t zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout);

#endif
