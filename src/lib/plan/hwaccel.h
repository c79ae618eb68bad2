/* SPDX-License-Identifier: MIT */
/* ai-hwaccel's registry against axl's devices: one table of its AcceleratorType and
 * InterconnectKind variants (hwaccel_table.c), read by plan_registry.c, in both of the
 * layouts ai-hwaccel has written:
 *  - schema_version 1 to 3, the Rust crate's AcceleratorRegistry as its serde derive
 *    writes it (variants by serde's names, externally tagged);
 *  - schema_version 4 and 5, the Cyrius port's registry_to_json (src/json_out.cyr):
 *    the accelerator by its display name (accel_name), the type's enum value in
 *    accel_type_id (version 5), generations as enum values, bandwidths x1000.
 * A writer of the registry uses the same rows the other way. */
#ifndef AXL_LIB_PLAN_HWACCEL_H
#define AXL_LIB_PLAN_HWACCEL_H

#include <stddef.h>

/* the newest registry schema_version this reader knows (the crate's SCHEMA_VERSION) */
#define AXL__HWACCEL_SCHEMA_VERSION 5
/* the first schema_version of the Cyrius port's layout */
#define AXL__HWACCEL_DISPLAY_SCHEMA 4

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
	/* schema 4 and later (the Cyrius port) */
	const char *display;   /* accel_name(): "CUDA GPU" */
	int type_id;           /* the AcceleratorType enum's value (accel_type_id) */
	const char *gen_key4;  /* the generation's member, its value an index into
				* gen_values ("tpu_version"), NULL none */
	const char *count_key4; /* the count's member ("tpu_chips"), NULL none */
};
/* The row of a variant name (serde's, schema 1 to 3); NULL unknown. */
const struct axl__hwaccel_kind *axl__hwaccel_kind_find(const char *variant);
/* The row of a display name or of an accel_type_id (schema 4 and later); NULL unknown. */
const struct axl__hwaccel_kind *axl__hwaccel_kind_display(const char *name);
const struct axl__hwaccel_kind *axl__hwaccel_kind_type(long long type_id);
size_t axl__hwaccel_kind_count(void);
const struct axl__hwaccel_kind *axl__hwaccel_kind_at(size_t i);

/* One InterconnectKind variant (system_io.interconnects[].kind): a device fabric among
 * the devices of one id prefix, or a NIC between nodes. bandwidth_gbps is GB/s. */
struct axl__hwaccel_link {
	const char *variant;   /* "NVLink", "InfiniBand" (serde's; NULL: none) */
	const char *display;   /* ick_name() of schema 4 and later: "RoCE v2" (NULL: none) */
	const char *axl_kind;  /* the link kind of axl.inventory ("nvlink", "ici"); NULL none */
	const char *id_prefix; /* the devices it joins; NULL for a NIC */
	int nic;               /* a NIC between nodes (InfiniBand, RoCE) */
};
/* The row of a kind by serde's name (display 0) or by its display name (display 1). */
const struct axl__hwaccel_link *axl__hwaccel_link_find(const char *name, int display);

#endif
