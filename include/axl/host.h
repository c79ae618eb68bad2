/* SPDX-License-Identifier: MIT */
/**
 * @file axl/host.h
 * The host the accelerators sit in: CPU, memory (and its cgroup limit), NUMA nodes.
 * Owned by the inventory. Getters return 0, AXL_EUNKNOWN when not known, AXL_EINVAL
 * on a type mismatch.
 */
#ifndef AXL_HOST_H
#define AXL_HOST_H

#include "common.h"

AXL_BEGIN_DECLS

typedef struct axl_host axl_host;

/* X(NAME, type, "json.path under host") */
#define AXL_HOST_ATTR_LIST(X)                                                      \
	X(HOSTNAME, S, "hostname")                                                 \
	X(KERNEL, S, "kernel")                                                     \
	X(CPU_ARCH, S, "cpu.architecture")                                         \
	X(CPU_MODEL, S, "cpu.model")                                               \
	X(CPU_VENDOR, S, "cpu.vendor")                                             \
	X(CPU_SOCKETS, I, "cpu.sockets")                                           \
	X(CPU_CORES, I, "cpu.cores")                                               \
	X(CPU_THREADS, I, "cpu.threads")                                           \
	X(MEMORY_TOTAL, I, "memory.total_bytes")                                   \
	X(MEMORY_LIMIT, I, "memory.limit_bytes")                                   \
	X(CLOUD_INSTANCE_TYPE, S, "runtime.cloud.instance_type")                   \
	X(MEMORY_BANDWIDTH, I, "memory.bandwidth_bytes_per_s")

typedef enum axl_host_attr {
#define AXL__HATTR_ENUM(name, type, path) AXL_HOST_##name,
	AXL_HOST_ATTR_LIST(AXL__HATTR_ENUM)
#undef AXL__HATTR_ENUM
	AXL_HOST__COUNT
} axl_host_attr;

AXL_API const char *axl_host_attr_name(axl_host_attr attr);
AXL_API int axl_host_get_str(const axl_host *host, axl_host_attr attr, const char **out);
AXL_API int axl_host_get_int(const axl_host *host, axl_host_attr attr, int64_t *out);
AXL_API axl_source axl_host_source(const axl_host *host, axl_host_attr attr);

/** CPU ISA features that matter for inference ("avx2", "avx512f", "amx_tile", "sve"...). */
AXL_API size_t axl_host_isa_count(const axl_host *host);
AXL_API const char *axl_host_isa(const axl_host *host, size_t i);

/** One NUMA node. memory_bytes < 0: not known. distances: to every node in the order
 *  of axl_host_numa_node(), distance_count of them (0 when not known). */
struct axl_numa_node {
	int id;
	const char *cpulist; /**< "" when it has no CPUs (a memory-only node) */
	int64_t memory_bytes;
	const int *distances;
	size_t distance_count;
};
AXL_API size_t axl_host_numa_node_count(const axl_host *host);
AXL_API const struct axl_numa_node *axl_host_numa_node(const axl_host *host, size_t i);

AXL_END_DECLS

#endif
