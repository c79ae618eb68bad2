/* SPDX-License-Identifier: MIT */
/*
 * The few NVML declarations the limiter needs (docs/limits.md, "The limiter"), written from
 * NVIDIA's public NVML reference: nvmlReturn_t is an int (0 success), nvmlDevice_t an
 * opaque pointer, the memory structs as nvml.h lays them out. The limiter never includes
 * libaxl's internals nor NVIDIA's headers.
 */
#ifndef AXL_LIMITER_NVML_ABI_H
#define AXL_LIMITER_NVML_ABI_H

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

#define NVML_SUCCESS 0
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96

/* nvmlDeviceGetMemoryInfo: used includes the memory the driver reserves */
typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

/* nvmlDeviceGetMemoryInfo_v2: version = nvmlMemory_v2, total = reserved + used + free */
typedef struct {
	unsigned int version;
	unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;

/* NVML_STRUCT_VERSION(Memory, 2): the struct's size | (2 << 24) */
#define nvmlMemory_v2 ((unsigned int)(sizeof(nvmlMemory_v2_t) | (2u << 24)))

_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t");
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t");

#endif
