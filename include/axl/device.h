/* SPDX-License-Identifier: MIT */
/**
 * @file axl/device.h
 * One accelerator (or, with AXL_INVENTORY_ALL, the host CPU) as discovered.
 *
 * A device is owned by its inventory (axl/inventory.h) and lives as long as it; every
 * pointer a getter returns is borrowed from the device.
 *
 * Scalar facts are read through typed getters keyed by an axl_attr. A getter returns
 * 0 and writes the value when the fact is known, AXL_EUNKNOWN when it is not (the
 * output is left untouched), AXL_EINVAL when the attribute has another type.
 * axl_device_source() tells where a known fact came from.
 */
#ifndef AXL_DEVICE_H
#define AXL_DEVICE_H

#include "common.h"

AXL_BEGIN_DECLS

typedef struct axl_device axl_device;

/** What kind of compute device it is (JSON "family"). */
typedef enum axl_family {
	AXL_FAMILY_UNKNOWN = 0,
	AXL_FAMILY_GPU = 1,
	AXL_FAMILY_NPU = 2,
	AXL_FAMILY_TPU = 3,
	AXL_FAMILY_ASIC = 4,
	AXL_FAMILY_FPGA = 5,
	AXL_FAMILY_CPU = 6,
	AXL_FAMILY__COUNT
} axl_family;

/** "gpu", "npu", ... ; "unknown" for AXL_FAMILY_UNKNOWN or out of range. */
AXL_API const char *axl_family_name(axl_family family);

/** Numeric formats of the precision table (JSON "format"). */
typedef enum axl_format {
	AXL_FORMAT_FP64 = 0,
	AXL_FORMAT_FP32,
	AXL_FORMAT_TF32,
	AXL_FORMAT_BF16,
	AXL_FORMAT_FP16,
	AXL_FORMAT_FP8,
	AXL_FORMAT_INT8,
	AXL_FORMAT_FP6,
	AXL_FORMAT_FP4,
	AXL_FORMAT_INT4,
	AXL_FORMAT__COUNT
} axl_format;

/** "FP64", "BF16", ...; NULL when out of range. */
AXL_API const char *axl_format_name(axl_format format);

/** How a format is supported (JSON "support"). */
typedef enum axl_support {
	AXL_SUPPORT_UNKNOWN = 0,
	AXL_SUPPORT_NATIVE = 1,
	AXL_SUPPORT_EMULATED = 2,
	AXL_SUPPORT_NONE = 3
} axl_support;

/** "native", "emulated", "none"; "unknown" otherwise. */
AXL_API const char *axl_support_name(axl_support support);

/*
 * The scalar attributes of a device: X(NAME, type, "json.path").
 * type: S string, I integer, F number. The JSON path is where the value appears in a
 * device object of the axl.inventory document. New attributes are only ever appended.
 */
#define AXL_DEVICE_ATTR_LIST(X)                                                   \
	X(ID, S, "id")                                                            \
	X(INDEX, I, "index")                                                      \
	X(UUID, S, "uuid")                                                        \
	X(VENDOR, S, "vendor")                                                    \
	X(VENDOR_ID, I, "vendor_id")                                              \
	X(DEVICE_ID, I, "device_id")                                              \
	X(SUBSYSTEM_VENDOR_ID, I, "subsystem_vendor_id")                          \
	X(SUBSYSTEM_DEVICE_ID, I, "subsystem_device_id")                          \
	X(REVISION, I, "revision")                                                \
	X(FAMILY, I, "family")                                                    \
	X(MODEL, S, "model")                                                      \
	X(ARCHITECTURE, S, "architecture")                                        \
	X(PCI_ADDRESS, S, "pci.address")                                          \
	X(PCI_CLASS, I, "pci.class")                                              \
	X(LINK_CURRENT_GEN, I, "pci.link.current_gen")                            \
	X(LINK_CURRENT_WIDTH, I, "pci.link.current_width")                        \
	X(LINK_MAX_GEN, I, "pci.link.max_gen")                                    \
	X(LINK_MAX_WIDTH, I, "pci.link.max_width")                                \
	X(NUMA_NODE, I, "numa_node")                                              \
	X(LOCAL_CPULIST, S, "local_cpulist")                                      \
	X(DRIVER, S, "driver.name")                                               \
	X(DRIVER_VERSION, S, "driver.version")                                    \
	X(MEMORY_TOTAL, I, "memory.total_bytes")                                  \
	X(MEMORY_TYPE, S, "memory.type")                                          \
	X(MEMORY_BUS_WIDTH, I, "memory.bus_width_bits")                           \
	X(MEMORY_BANDWIDTH, F, "memory.bandwidth_gbps")                           \
	X(L2_CACHE, I, "memory.l2_cache_bytes")                                   \
	X(POWER_TDP, F, "power.tdp_watts")                                        \
	X(VBIOS_VERSION, S, "firmware.vbios")                                     \
	X(FIRMWARE_VERSION, S, "firmware.version")                                \
	X(SERIAL, S, "serial")                                                    \
	X(STATE, S, "state")                                                      \
	X(IOMMU_GROUP, I, "iommu_group")                                          \
	X(DB_KEY, S, "devicedb_key")

typedef enum axl_attr {
#define AXL__ATTR_ENUM(name, type, path) AXL_ATTR_##name,
	AXL_DEVICE_ATTR_LIST(AXL__ATTR_ENUM)
#undef AXL__ATTR_ENUM
	AXL_ATTR__COUNT
} axl_attr;

/** The attribute's JSON path ("memory.total_bytes"); NULL when out of range. */
AXL_API const char *axl_attr_name(axl_attr attr);

/** The stable id of the device ("nvidia:0"); never NULL. */
AXL_API const char *axl_device_id(const axl_device *dev);
AXL_API axl_family axl_device_family(const axl_device *dev);

AXL_API int axl_device_get_str(const axl_device *dev, axl_attr attr, const char **out);
AXL_API int axl_device_get_int(const axl_device *dev, axl_attr attr, int64_t *out);
/** Numbers: also answers integer attributes, converted. */
AXL_API int axl_device_get_num(const axl_device *dev, axl_attr attr, double *out);
/** Where the attribute came from; AXL_SOURCE_NONE when it is not known. */
AXL_API axl_source axl_device_source(const axl_device *dev, axl_attr attr);

/** /dev paths a container needs for this device, in a stable order. */
AXL_API size_t axl_device_node_count(const axl_device *dev);
AXL_API const char *axl_device_node(const axl_device *dev, size_t i);

/** Compute units ("SM" x 132, "CU" x 304, ...). */
struct axl_compute_unit {
	const char *name;
	int64_t count;
	axl_source source;
};
AXL_API size_t axl_device_compute_unit_count(const axl_device *dev);
AXL_API const struct axl_compute_unit *axl_device_compute_unit(const axl_device *dev, size_t i);

/** One row of the precision table. peak_tflops < 0 means not known (dense, no sparsity). */
struct axl_precision {
	axl_format format;
	axl_support support;
	double peak_tflops;
	axl_source source;
};
AXL_API size_t axl_device_precision_count(const axl_device *dev);
AXL_API const struct axl_precision *axl_device_precision(const axl_device *dev, size_t i);

/**
 * One partitioning technology the device offers ("MIG", "SR-IOV", "AMD-CPX",
 * "AMD-NPS"). max_partitions < 0: not known. mode: the current mode, NULL when not
 * known. profiles: the partition profiles or modes it offers.
 */
struct axl_partitioning {
	const char *technology;
	int64_t max_partitions;
	const char *mode;
	const char *const *profiles;
	size_t profile_count;
	axl_source source;
};
AXL_API size_t axl_device_partitioning_count(const axl_device *dev);
AXL_API const struct axl_partitioning *axl_device_partitioning(const axl_device *dev, size_t i);

/** The sources that contributed any fact to this device, as a bit mask of 1u << axl_source. */
AXL_API unsigned axl_device_sources(const axl_device *dev);

AXL_END_DECLS

#endif /* AXL_DEVICE_H */
