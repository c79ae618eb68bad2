/* SPDX-License-Identifier: MIT */
/**
 * @file axl/runtime.h
 * What a container needs to use a device: its runtime files.
 *
 * The backend that owns a device describes them (each vendor in its own folder of the
 * library): the CDI kind, which is also the Kubernetes extended resource name, the
 * vendor's display name, the user-space libraries and programs to bind-mount and the
 * directories they usually live in, the device nodes every container of the kind
 * needs whichever device it gets, and the environment to set. `axl cdi` and the
 * TensorFusion provider both read them from here, so they mount the same files.
 *
 * The description is static data: it says what to look for, not what is installed.
 * A caller scans the directories itself (under its sysroot) and mounts what matches.
 */
#ifndef AXL_RUNTIME_H
#define AXL_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "device.h"

AXL_BEGIN_DECLS

/** A partition (a child device) needs its parent's own device nodes too, not only its
 * own: NVIDIA's MIG devices are opened through the GPU's node plus their capability
 * nodes. Without it, a partition with nodes of its own is used through those alone. */
#define AXL_RUNTIME_CHILD_NEEDS_PARENT 0x1u
/** A limiter preloaded into the workload's processes (LD_PRELOAD: HAMi-core,
 * TensorFusion's) can hold a device's memory and compute share: the vendor's compute
 * API is the one such limiters intercept. */
#define AXL_RUNTIME_PRELOAD_LIMITS 0x2u
/** A device's partitions, when it has any, replace it: the driver shows each as a device
 * of its own and the device is no longer used whole (AMD's compute partitions: a GPU in
 * CPX mode is eight GPUs to ROCm), so the vendor's device plugin advertises each
 * partition whatever its naming strategy. Without it, partitions are advertised only
 * when a strategy asks for them (NVIDIA's MIG: whole GPUs under --mig-strategy none). */
#define AXL_RUNTIME_PARTITIONS_REPLACE 0x4u

/** A vendor attribute worth showing next to the generic ones, by the names the
 * consumers use: node labels ("cuda.version", under the caller's prefix and the device
 * kind) and camelCase properties ("cudaDriverVersion", TensorFusion's). */
struct axl_runtime_attr {
	axl_attr attr;
	const char *label;
	const char *property;
};

/** A group of devices of one runtime, as the labels operation sees it. */
struct axl_runtime_group {
	const axl_device *const *devs;
	size_t n;
	/** The first device of the most common model (devs[0] when none has a model). */
	const axl_device *rep;
	/** That model; NULL when no device has one. */
	const char *model;
	/** The smallest memory of the group's devices of that model, MiB; -1 when unknown. */
	int64_t memory_mib;
};

/** Receives one label: its full name and its value, unsanitised. */
typedef void (*axl_runtime_label_fn)(const char *key, const char *value, void *userdata);

/**
 * The runtime files of a device. Lists are NULL-terminated arrays of strings, never
 * NULL themselves (an empty list holds only the terminator). Fields are only ever
 * appended to this struct; the library owns it and it lives as long as the process.
 */
struct axl_runtime {
	/** The vendor's kind, the Kubernetes extended resource name ("nvidia.com/gpu"), and
	 * the CDI kind of the vendor's own container toolkit; axl's CDI kind is derived from
	 * it (axl_device_cdi_kind: "axl.dev/nvidia-gpu"). NULL when the vendor has none for
	 * this device (axl_device_cdi_kind then gives "axl.dev/<family>"). */
	const char *kind;
	/** The vendor's display name ("NVIDIA"); NULL: use the device's AXL_ATTR_VENDOR. */
	const char *vendor;
	/** fnmatch(3) patterns of the user-space library files to mount
	 * ("libcuda.so.*": the versioned files and their SONAME links, never the dev link). */
	const char *const *libraries;
	/** Where to look for them, in order: the system's directories, then the vendor's. */
	const char *const *library_dirs;
	/** Names of the vendor's programs worth mounting ("nvidia-smi"). */
	const char *const *binaries;
	/** Where to look for them, in order. */
	const char *const *binary_dirs;
	/** Device nodes every container of the kind needs, whichever devices it gets
	 * ("/dev/nvidiactl"): shared, never a device's own. */
	const char *const *control_nodes;
	/** NAME=VALUE environment for every container of the kind. */
	const char *const *env;
	/** AXL_RUNTIME_* flags. */
	unsigned flags;
	/** The partitioning technology (axl_partitioning.technology) whose partitions are
	 * created as devices of their own for containers (axl_partition_create), when its
	 * mode is "enabled"; NULL when none. */
	const char *partitions;
	/** Vendor attributes worth a label and a property, ending with a NULL label. */
	const struct axl_runtime_attr *attrs;
	/** The labels the vendor's own node-labelling tool writes for a group of devices of
	 * this runtime ("nvidia.com/gpu.product": NVIDIA's GPU Feature Discovery), each
	 * through add; NULL when the vendor has none. Only reads the devices. */
	void (*labels)(const struct axl_runtime_group *group, axl_runtime_label_fn add, void *userdata);
	/** The Kubernetes extended resource name the vendor's own device plugin advertises
	 * for whole devices of this runtime ("gpu.intel.com/xe"), so that pod specs written
	 * for it work with `axl device-plugin`; NULL: the same as kind. */
	const char *resource;
	/** The prefix of the resource names the vendor's device plugin gives each partition
	 * profile when partitions are advertised one name per profile ("nvidia.com/mig-",
	 * NVIDIA's mixed MIG strategy); NULL when it has none. */
	const char *partition_resource;
	/** The variable the vendor's runtime reads to choose the devices a process uses,
	 * when it accepts device UUIDs, comma-separated ("CUDA_VISIBLE_DEVICES"): UUIDs
	 * survive the renumbering a container's reduced set of device nodes causes. NULL
	 * when there is none that takes UUIDs. */
	const char *visible_env;
	/** The resource name the vendor's device plugin gives dev (a device of this runtime
	 * or one of its partitions) when it names resources after partition profiles or
	 * modes: NVIDIA's mixed MIG strategy ("nvidia.com/mig-1g.10gb.me" for a 1g.10gb+me
	 * MIG device), ROCm's mixed resource naming strategy ("amd.com/cpx_nps4" for a GPU
	 * in CPX mode with NPS4 memory, and for each of its partitions). Written into buf
	 * (cap bytes): 0, or -1 when that plugin gives dev no such name (a whole NVIDIA GPU,
	 * an AMD GPU without partition modes: it goes under resource). NULL: the name is
	 * partition_resource followed by a partition's profile. Only reads the device. */
	int (*partition_resource_name)(const axl_device *dev, char *buf, size_t cap);
};

/**
 * The runtime files of dev, as the backend that owns it describes them; a partition's
 * are its parent's. NULL when no backend describes any (an unknown PCI accelerator, a
 * CPU) or dev is NULL. The pointer is static: it outlives the inventory.
 */
AXL_API const struct axl_runtime *axl_device_runtime(const axl_device *dev);

/** The CDI vendor of axl's own kinds. */
#define AXL_CDI_VENDOR "axl.dev"

/**
 * axl's CDI kind for dev (a partition: its parent's), as `axl cdi generate` writes its
 * specs: "axl.dev/" followed by the first label of the vendor's kind's domain and its
 * class ("nvidia.com/gpu" -> "axl.dev/nvidia-gpu", "aws.amazon.com/neuron" ->
 * "axl.dev/aws-neuron"), "axl.dev/<family>" when the vendor has none ("axl.dev/asic").
 * Never the vendor's own kind: its container toolkit writes that one into the same CDI
 * folders, and a name defined twice there resolves to nothing (docs/cdi.md). The kind
 * is written NUL-terminated into buf; returns its length, AXL_EINVAL (dev or buf NULL),
 * or AXL_ERANGE when cap is too small (64 bytes always suffice).
 */
AXL_API int axl_device_cdi_kind(const axl_device *dev, char *buf, size_t cap);

AXL_END_DECLS

#endif
