/* SPDX-License-Identifier: MIT */
/*
 * The node's accelerators as resource.k8s.io/v1 Device objects, for the ResourceSlices of
 * `axl dra-plugin` (the command's side: the module axl-dra.so publishes them, api.h).
 * Written from kubernetes/kubernetes staging/src/k8s.io/api/resource/v1/types.go at
 * 7fc9c57df50702c276dcdc36c1e8f652a923eb16 (Device, DeviceAttribute, DeviceCapacity,
 * QualifiedName, the limits) and the standard attributes of
 * staging/src/k8s.io/dynamic-resource-allocation/deviceattribute (resource.kubernetes.io/
 * pcieRoot, resource.kubernetes.io/pciBusID).
 *
 * One Device per accelerator, named after axl's id as a DNS label ("nvidia:0" is
 * "nvidia-0"). With partitions (dra_pool_json), each partition that exists (a MIG device,
 * an AMD compute partition: a child device of the inventory) is a Device too
 * ("nvidia-0-mig1-0"), and the GPU's counters are shared (partitionable devices, KEP-4815,
 * the DRAPartitionableDevices gate; below). Attributes without a domain are the driver's
 * (device.attributes["<driver>"].model in CEL):
 *   vendor, model, architecture, family, uuid (strings, at most 64 characters: longer ones
 *   are cut); driverVersion (a version: the driver's numbers as semver, "535.261.03" is
 *   535.261.3); index, computeUnits, island (integers: island is the smallest
 *   index of the devices joined with it by NVLink/NVSwitch/xGMI/RoCE); interconnect (the
 *   kind of those links); one boolean per number format of the precision table, true
 *   when the hardware has it natively (fp8, bf16, ...);
 *   resource.kubernetes.io/numaNode (an integer), resource.kubernetes.io/pciBusID and
 *   resource.kubernetes.io/pcieRoot ("pci0000:00",
 *   the root complex above the device in sysfs; left out on a simulated node).
 * Capacity: memory (the total, as a quantity: "80Gi").
 * A fact axl does not know is left out, never written as zero. At most 32 attributes and
 * capacities together (ResourceSliceMaxAttributesAndCapacitiesPerDevice): the format
 * booleans are the first left out, and said.
 */
#ifndef AXL_DRA_SLICES_H
#define AXL_DRA_SLICES_H

#include <stdbool.h>
#include <stddef.h>

#include "axl.h"

/* the default --driver-name: a DNS subdomain, the attributes' domain */
#define DRA_DEFAULT_DRIVER "gpu.axl.dev"
/* ResourceSliceMaxAttributesAndCapacitiesPerDevice, DeviceAttributeMaxValueLength */
#define DRA_MAX_ATTRS 32
#define DRA_MAX_VALUE 64

/* A line for the log (something left out). */
typedef void (*dra_note_fn)(void *ud, const char *msg);

/* The devices of inv and their partitions that exist, as a JSON array of Device objects
 * (malloc'd), in dra_pool_device()'s order, named as dra_pool_json names them, without
 * counters: the names a claim's allocation can carry, whatever was published. sysroot:
 * where the node's /sys is ("/" live, NULL on a simulated node: no pcieRoot). 0, or -1 with
 * err. */
int dra_devices_json(const axl_inventory *inv, const char *sysroot, dra_note_fn note, void *ud, char **out, char *err,
		     size_t cap);

/* A device's health as a DeviceTaint (types.go's DeviceTaint, behind the DRADeviceTaints
 * gate): key "<driver>/unhealthy", value (a label value), effect "NoSchedule" or
 * "NoExecute", timeAdded (wall-clock seconds, sent so that a republish is the same). */
struct dra_taint {
	const char *effect;
	const char *value;
	long long added;
};
/* The taint of the device with this axl id; false when it has none. */
typedef bool (*dra_taint_fn)(void *ud, const char *axl_id, struct dra_taint *t);

/* dra_devices_json with taints: each device for which taint answers gets one, its key in
 * the domain driver. */
int dra_devices_json_taints(const axl_inventory *inv, const char *sysroot, const char *driver, dra_taint_fn taint,
			    void *tud, dra_note_fn note, void *ud, char **out, char *err, size_t cap);

/* Partitionable devices (types.go's CounterSet, Counter, DeviceCounterConsumption;
 * ResourceSliceMaxCounterSets 8 per slice, ResourceSliceMaxCountersPerCounterSet 32,
 * ResourceSliceMaxDeviceCounterConsumptionsPerDevice 2). A device with partitions has a
 * counter set named as the device, with the counters
 *   partitions     the number of its partitions that exist;
 *   memory         its memory (a quantity), when it and each partition know theirs and
 *                  the partitions' sum fits (MIG compute instances of one GPU instance
 *                  share its memory: then it is no counter);
 *   compute-units  its compute units (SMs, CUs), by the same rule.
 * The whole device consumes every counter of its set in full, each partition one
 * "partitions" and its own memory and compute units: the scheduler can give out the
 * device or any of its partitions that fit, never the device and a partition together.
 * Partitions have the attributes "parent" (the device's name) and "profile" (the MIG
 * profile or partition mode) besides a device's. */
#define DRA_COUNTER_PARTITIONS    "partitions"
#define DRA_COUNTER_MEMORY        "memory"
#define DRA_COUNTER_COMPUTE_UNITS "compute-units"

enum dra_partitions {
	DRA_PARTITIONS_OFF,  /* the devices only, as without the gate */
	DRA_PARTITIONS_ON,   /* counters and partitions */
	DRA_PARTITIONS_AUTO, /* the same, and the whole devices to fall back to */
	DRA_PARTITIONS_LIST, /* the array of the devices then their partitions, no counters */
};

struct dra_pool_opts {
	const char *sysroot, *driver; /* as dra_devices_json_taints' */
	dra_taint_fn taint;
	void *tud;
	dra_note_fn note;
	void *ud;
	enum dra_partitions partitions;
};

/* The pool's content for the publisher (api.h's pub_set): without partitions, or with
 * DRA_PARTITIONS_OFF, the JSON array of dra_devices_json_taints; otherwise an object
 *   {"devices": [the devices, consuming their counters, then the partitions],
 *    "sharedCounters": [the counter sets],
 *    "whole": [the devices alone, as DRA_PARTITIONS_OFF has them]}   (AUTO only)
 * whose "whole" the publisher falls back to when the API server drops the counters (its
 * DRAPartitionableDevices gate is off). 0, or -1 with err. */
int dra_pool_json(const axl_inventory *inv, const struct dra_pool_opts *o, char **out, char *err, size_t cap);
/* The devices of dra_devices_json's array: the inventory's, then the partitions of each in
 * turn; device i of them (NULL past the end). */
size_t dra_pool_device_count(const axl_inventory *inv);
const axl_device *dra_pool_device(const axl_inventory *inv, size_t i);

/* s as a DNS label (RFC 1123: [a-z0-9-], alphanumeric at both ends, at most 63) into out;
 * "" when nothing of it is left. */
void dra_dns_label(const char *s, char *out, size_t cap);
/* v bytes as a canonical Kubernetes quantity ("80Gi", "24G", "1000") */
void dra_quantity(long long v, char *out, size_t cap);

#endif
