/* SPDX-License-Identifier: MIT */
/*
 * Simulated nodes (docs/sim.md): a JSON spec ("axl.sim") names devices by device-database
 * model; a context opened with one (axl_context_options.sim, $AXL_SIM) never reads the
 * hardware: the inventory is built from the spec and the database (sim_node.c), the
 * metrics are a deterministic pseudo-random walk per device.
 */
#ifndef AXL_LIB_SIM_H
#define AXL_LIB_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "devicedb.h"

/* Bounds of a spec */
#define AXL__SIM_MAX_BYTES (1u << 20)
#define AXL__SIM_MAX_GROUPS 256
#define AXL__SIM_MAX_COUNT 1024
#define AXL__SIM_MAX_DEVICES 1024
#define AXL__SIM_MAX_LINKS 4096
#define AXL__SIM_MAX_NUMA 64
#define AXL__SIM_UUID_MAX 64

struct axl__sim_ops;

struct axl__sim_dev {
	const struct axl__db_entry *db;
	char uuid[AXL__SIM_UUID_MAX];
	int numa_node;   /* -1: not given (spread over the host's nodes) */
	int parts_on;    /* the partition mode its group sets (a vendor's key, "mig"), of a
			  * model that has that partitioning: 1 enabled, 0 disabled */
	int group;       /* index in the spec's "devices" */
	/* the vendor's ops whose "fabric" its group names, NULL: none */
	const struct axl__sim_ops *fabric;
	uint64_t seed;   /* of its metrics (from the UUID) */
};

struct axl__sim_link {
	int a, b;        /* device indices, in spec order */
	char kind[16];   /* a vendor's link kind ("nvlink", "xgmi") */
	const struct axl__sim_ops *ops; /* that vendor's */
	int count;       /* links between the two */
};

/* The schema_version of "axl.sim" this axl reads; a spec of a later one is read as far
 * as understood (unknown keys skipped) with one inventory warning. */
#define AXL__SIM_VERSION 1

struct axl__sim {
	char *path;
	int64_t newer_version; /* the spec's schema_version when above AXL__SIM_VERSION, else 0 */
	struct axl__sim_dev *devs;
	size_t n;
	struct axl__sim_link *links;
	size_t nlinks;
	char hostname[64];
	char cpu_model[128];
	int numa_nodes;      /* >= 1 */
	int cores_per_node;  /* >= 1 */
	int64_t memory_per_node;
	/* what a real node's SMBIOS would say (docs/sim.md): "" / 0 when not given */
	int64_t memory_bandwidth;  /* host.memory_bandwidth_bytes_per_s */
	char cloud_provider[32];   /* host.cloud_provider */
	char instance_type[64];    /* host.instance_type */
};

/* Parse a spec held in memory; name is the file name used in messages. 0 with *out, or
 * -1 with "NAME:LINE: FIELD: what is wrong" in err. */
int axl__sim_parse(const char *name, const char *text, size_t len, struct axl__sim **out, char *err,
		   size_t errcap);
/* Read and parse a spec file; 0, or an axl error code with axl_error_last() set. */
int axl__sim_load(const char *path, struct axl__sim **out);
void axl__sim_free(struct axl__sim *sim);

struct axl__scan;
struct axl_sampler;
struct axl_sample;
/* The inventory of a simulated node (sim_node.c): host, devices, links. */
void axl__sim_inventory(struct axl__scan *scan);
/* The simulation ops of the backend that owns a device of the database model e (the
 * first row of the table whose owns() takes it), NULL: none. */
const struct axl__sim_ops *axl__sim_ops_of(const struct axl__db_entry *e);
/* The driver's minor number of spec device i: its position among the spec's devices of
 * the same PCI vendor (as a driver numbers its devices); -1 past the end. */
int axl__sim_minor(const struct axl__sim *sim, size_t i);
/* Its links, from the spec (after the ids). */
void axl__sim_links(struct axl__scan *scan);
/* Live metrics of a simulated node (state in s->sim_state): the sample hooks the context
 * of a simulated node holds in ctx->sim_backend. */
extern const struct axl__backend axl__sim_backend;

#endif
