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

/** What kind of compute device it is (JSON "family"). X(NAME, name): the families in value
 * order, AXL_FAMILY_<NAME> = its place in the list, with the name axl_family_name() gives. */
#define AXL_FAMILY_LIST(X)                                                                       \
	X(UNKNOWN, "unknown")                                                                    \
	X(GPU, "gpu")                                                                            \
	X(NPU, "npu")                                                                            \
	X(TPU, "tpu")                                                                            \
	X(ASIC, "asic")                                                                          \
	X(FPGA, "fpga")                                                                          \
	X(CPU, "cpu")

typedef enum axl_family {
#define AXL_FAMILY_ENUM_(name, str) AXL_FAMILY_##name,
	AXL_FAMILY_LIST(AXL_FAMILY_ENUM_)
#undef AXL_FAMILY_ENUM_
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
 * type: S string, I integer, F number, B boolean (read with axl_device_get_int: 0 or
 * 1; written as true/false). The JSON path is where the value appears in a
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
	X(DB_KEY, S, "devicedb_key")                                              \
	X(BOARD_PART_NUMBER, S, "board_part_number")                              \
	X(INFOROM_VERSION, S, "firmware.inforom")                                 \
	X(FIRMWARE_BOOTLOADER, S, "firmware.bootloader")                          \
	X(FIRMWARE_CPLD, S, "firmware.cpld")                                      \
	X(CUDA_DRIVER_VERSION, S, "driver.cuda_version")                          \
	X(COMPUTE_CAPABILITY, S, "compute_capability")                            \
	X(MEMORY_RESERVED, I, "memory.reserved_bytes")                            \
	X(MEMORY_USED, I, "memory.used_bytes")                                    \
	X(MEMORY_VISIBLE, I, "memory.visible_bytes")                              \
	X(MEMORY_BAR1, I, "memory.bar1_bytes")                                    \
	X(MEMORY_GTT, I, "memory.gtt_bytes")                                      \
	X(CLOCK_GRAPHICS, I, "clocks.graphics_mhz")                               \
	X(CLOCK_GRAPHICS_MAX, I, "clocks.graphics_max_mhz")                       \
	X(CLOCK_SM, I, "clocks.sm_mhz")                                           \
	X(CLOCK_SM_MAX, I, "clocks.sm_max_mhz")                                   \
	X(CLOCK_MEMORY, I, "clocks.memory_mhz")                                   \
	X(CLOCK_MEMORY_MAX, I, "clocks.memory_max_mhz")                           \
	X(POWER_LIMIT, F, "power.limit_watts")                                    \
	X(POWER_DEFAULT_LIMIT, F, "power.default_limit_watts")                    \
	X(POWER_MAX_LIMIT, F, "power.max_limit_watts")                            \
	X(POWER_DRAW, F, "power.draw_watts")                                      \
	X(TEMPERATURE, F, "temperature.celsius")                                  \
	X(TEMPERATURE_HOTSPOT, F, "temperature.hotspot_celsius")                  \
	X(TEMPERATURE_MEMORY, F, "temperature.memory_celsius")                    \
	X(ECC_MODE, B, "ecc.enabled")                                             \
	X(ECC_PENDING_MODE, B, "ecc.pending_enabled")                             \
	X(PERSISTENCE_MODE, B, "modes.persistence")                               \
	X(COMPUTE_MODE, S, "modes.compute")                                       \
	X(PARTITION_PROFILE, S, "partition.profile")                              \
	X(PARTITION_GPU_INSTANCE, I, "partition.gpu_instance_id")                 \
	X(PARTITION_COMPUTE_INSTANCE, I, "partition.compute_instance_id")         \
	X(MODULE_ID, I, "module_id")                                              \
	X(BUSY_TIME, I, "busy_time_us")                                           \
	X(VISIBLE, B, "visibility.visible")                                       \
	X(VISIBILITY_REASON, S, "visibility.reason")                              \
	X(NEAREST_NIC, S, "topology.nearest_nic")                                 \
	X(NEAREST_NIC_PATH, S, "topology.nearest_nic_path")                      \
	X(MEMORY_L1_PER_UNIT, I, "memory.l1_cache_bytes_per_unit")               \
	X(MEMORY_SHARED_PER_UNIT, I, "memory.shared_memory_bytes_per_unit")      \
	X(MEMORY_CHANNELS, I, "memory.channels")                                  \
	X(MEMORY_STACKS, I, "memory.stacks")                                      \
	X(INTERCONNECT_KIND, S, "interconnect.kind")                              \
	X(INTERCONNECT_TOPOLOGY, S, "interconnect.topology")                      \
	X(INTERCONNECT_PORTS, I, "interconnect.ports")                            \
	X(INTERCONNECT_BANDWIDTH, F, "interconnect.bandwidth_gbps")               \
	X(MEMORY_SHARED_SYSTEM, I, "memory.shared_system_bytes")

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
/** The device's own node among them: the one that names this device alone, never
 *  one the driver shares between all its devices (/dev/nvidiactl, /dev/nvidia-uvm,
 *  /dev/kfd). A vendor's node (/dev/nvidiaN, /dev/accel/accelN, /dev/hl0,
 *  /dev/neuronN) comes before a DRM render node (/dev/dri/renderDN), which comes
 *  before a DRM card node. For a partition, a node of its own rather than its
 *  parent's (a MIG device: /dev/nvidia-caps/nvidia-capN; an AMD compute partition:
 *  its render node). NULL when no such node is known. Borrowed from the device. */
AXL_API const char *axl_device_primary_node(const axl_device *dev);

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
	/** The mode after the next reset (MIG "pending"), NULL when not known. */
	const char *pending_mode;
};
AXL_API size_t axl_device_partitioning_count(const axl_device *dev);
AXL_API const struct axl_partitioning *axl_device_partitioning(const axl_device *dev, size_t i);

/**
 * What one profile of a partitioning technology gives (a MIG GPU-instance profile
 * "1g.10gb", an AMD compute partition mode "CPX"). Every count is < 0 when not known.
 */
struct axl_partition_profile {
	const char *name;        /**< the same string as in axl_partitioning.profiles */
	int64_t id;              /**< the vendor's profile id (NVML profile id) */
	int64_t memory_bytes;    /**< memory of one instance */
	int64_t compute_units;   /**< SMs / CUs of one instance */
	int64_t slices;          /**< compute slices one instance takes */
	int64_t max_instances;   /**< instances that fit on the whole, empty device */
	int64_t free_instances;  /**< instances that can still be created now */
	axl_source source;
};
/** Details of profile j of partitioning i; NULL when only the name is known. */
AXL_API const struct axl_partition_profile *axl_device_partition_profile(const axl_device *dev,
									  size_t i, size_t j);

/**
 * One port of a device-to-device interconnect (an NVLink or XGMI link) as the device
 * reports it. Integers are < 0 when not known.
 */
struct axl_port {
	const char *technology;  /**< "nvlink", "xgmi" */
	int index;               /**< link number on this device */
	int active;              /**< 1 up, 0 down, < 0 not known */
	int version;             /**< NVLink version */
	const char *remote_pci;  /**< PCI address of the far end; NULL when not known */
	const char *remote_kind; /**< "gpu", "nvswitch", "cpu", "unknown" */
	const char *remote_id;   /**< the far end's device id when it is listed, else NULL */
	double bandwidth_gbps;   /**< per direction, GB/s; < 0 not known */
	axl_source source;
};
AXL_API size_t axl_device_port_count(const axl_device *dev);
AXL_API const struct axl_port *axl_device_port(const axl_device *dev, size_t i);

/**
 * Partitions that exist now (MIG devices, AMD compute partitions) are devices of their
 * own, children of the physical device: they have an id ("nvidia:0/mig3.0"), a UUID,
 * memory, compute units and the partition.* attributes, and are not counted by
 * axl_inventory_device_count(). axl_inventory_find() finds them.
 */
AXL_API const axl_device *axl_device_parent(const axl_device *dev);
AXL_API size_t axl_device_child_count(const axl_device *dev);
AXL_API const axl_device *axl_device_child(const axl_device *dev, size_t i);

/** The sources that contributed any fact to this device, as a bit mask of 1u << axl_source. */
AXL_API unsigned axl_device_sources(const axl_device *dev);

AXL_END_DECLS

#endif /* AXL_DEVICE_H */
