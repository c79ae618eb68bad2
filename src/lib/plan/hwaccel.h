/* SPDX-License-Identifier: MIT */
/* ai-hwaccel's registry (the Rust crate's AcceleratorRegistry as its serde derive writes
 * it, registry schema_version 1 to 3) against axl's devices: one table of its
 * AcceleratorType and InterconnectKind variants (hwaccel_table.c), read by
 * plan_registry.c. A writer of the registry uses the same rows the other way. */
#ifndef AXL_LIB_PLAN_HWACCEL_H
#define AXL_LIB_PLAN_HWACCEL_H

#include <stddef.h>

/* the newest registry schema_version this reader knows (the crate's SCHEMA_VERSION) */
#define AXL__HWACCEL_SCHEMA_VERSION 3

/* One AcceleratorType variant: serde's externally tagged enum, a bare string for a unit
 * variant ("Cpu", "MetalGpu") or {"CudaGpu": {"device_id": 0}} for a struct variant. */
struct axl__hwaccel_kind {
	const char *variant;   /* serde's name: "CudaGpu" */
	int family;            /* axl_family; AXL_FAMILY_CPU for the host */
	const char *vendor;    /* axl's vendor name of its devices ("" not one vendor) */
	const char *id_prefix; /* axl's device id: "<id_prefix>:<device_id>" */
	const char *model;     /* what the variant alone says of the model ("" nothing) */
	const char *gen_key;   /* the struct variant's generation member ("version",
				* "generation", "chip_type"), NULL none */
	const char *const *gen_values; /* its values (serde's names), NULL-terminated */
	const char *count_key; /* a required u32 member beside device_id ("chip_count"), NULL */
	int unit;              /* a unit variant (a bare string, no device_id) */
};
/* The row of a variant name; NULL unknown. */
const struct axl__hwaccel_kind *axl__hwaccel_kind_find(const char *variant);
size_t axl__hwaccel_kind_count(void);
const struct axl__hwaccel_kind *axl__hwaccel_kind_at(size_t i);

/* One InterconnectKind variant (system_io.interconnects[].kind): a device fabric among
 * the devices of one id prefix, or a NIC between nodes. bandwidth_gbps is GB/s. */
struct axl__hwaccel_link {
	const char *variant;   /* "NVLink", "InfiniBand" */
	const char *axl_kind;  /* the link kind of axl.inventory ("nvlink", "ici"); NULL: a NIC */
	const char *id_prefix; /* the devices it joins; NULL for a NIC */
};
const struct axl__hwaccel_link *axl__hwaccel_link_find(const char *variant);

#endif
