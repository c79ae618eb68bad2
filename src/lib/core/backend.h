/* SPDX-License-Identifier: MIT */
/*
 * The backend contract: what a vendor folder (src/lib/backend/<vendor>/) provides, the
 * one header it needs besides the object model (internal.h) and the concern headers it
 * fills in (metrics/sample.h, visibility/visibility.h, vendorlib/vdrv.h, ...).
 *
 * A backend is a row of the registry (backend/registry.c, in probe order): a name and
 * one pointer per concern, each a table of that concern's operations, NULL when the
 * backend has no part in it (as curl's vtls rows and hwloc's components, one struct per
 * kind of work). A table declares what its concern's layer asks:
 *
 *   facts       core/vendors.c, discover/pci.c, core/device.c   PCI ids, drivers, nodes
 *   discover    discover/inventory.c                          the scan's hooks
 *   fabric      discover/fabric.c, discover/links.c           switches, direct fabrics
 *   sample      metrics/sampler.c                             live metrics
 *   vis         visibility/visibility.c                       device-picking variables
 *   runtime     core/runtime.c                                files a container needs
 *   libs        discover/open.c, vendorlib/                   libraries to load instead
 *   parts       control/partition.c                           partitions
 *   limits      control/limit.c                               a limiter's environment
 *   sim         sim/                                          simulated devices
 *   compute     compute/ (compute_impl.h)                     allocate, copy, sync
 *   checkpoint  control/checkpoint.c                          process checkpoints
 *
 * Hooks receive their row (self). What a backend keeps between the hooks of one
 * inventory or sampler is in the slot axl__backend_state / axl__sampler_state gives
 * it; what it keeps per device, in the block of device_size bytes the core allocates
 * for the devices it owns (axl__device_data), a struct declared in its own folder: no
 * vendor's field is in the core's objects (tests/layers checks the names). Each vendor file ends with the tables it
 * implements; the file holding the row ends with the row.
 */
#ifndef AXL_BACKEND_H
#define AXL_BACKEND_H

#include "internal.h"

struct axl__backend;
struct axl__compute_ops;
struct axl__sb;

/* ---- what the hooks share ------------------------------------------------------ */
struct axl__vis;
struct axl__scan {
	axl_context *ctx;
	struct axl_inventory *inv;
	const struct axl__fs *fs;
	/* during the host stage only (discover/host.c): /proc/self/cgroup, read once for
	 * the memory limit and the container engine; NULL when it could not be read */
	const char *cgroup;
	/* the last kernel module whose version was read (axl__module_version): one read
	 * per module and scan, not one per device; modver_state 0 unread, 1 read into
	 * modver, -1 not readable */
	char modver_module[32];
	char modver[128];
	int modver_state;
};

/* A PCI vendor a backend speaks for (core/vendors.c), and what decides which of its
 * functions are accelerators (discover/pci.c). */
struct axl__pci_vendor {
	uint16_t id;
	const char *name;       /* display name, the JSON "vendor" */
	const char *prefix;     /* device id prefix (for everything when npu_prefix is NULL) */
	const char *npu_prefix; /* for NPUs, when the vendor makes both */
	/* the family of its accelerators outside the display class (those are GPUs);
	 * AXL_FAMILY_UNKNOWN: ASIC */
	axl_family family;
	/* Optional rules: its family by class when `family` does not tell; a display
	 * function that is no accelerator (a BMC or instance console); an accelerator whose
	 * class says otherwise (cls -1: not known). */
	axl_family (*family_of)(int cls);
	bool (*console)(int device);
	bool (*accel_id)(int vendor, int device, int cls);
};

/* A direct fabric a device sits on, as its backend tells the generic link derivation
 * (discover/links.c): two devices on one kind and domain reach each other over it. */
struct axl__fabric {
	const char *kind;  /* the link kind ("xgmi", "nvswitch", ...) */
	uint64_t domain;   /* which fabric of that kind */
	int links;         /* the device's links into it; 0 when not known */
	double link_gbps;  /* GB/s per link and direction (with links); with links 0, the
			    * device's whole bandwidth into the fabric (< 0 unknown) */
	axl_source source; /* of the link */
};

/* ---- facts: what the core and discovery look up over the whole table, whatever
 * AXL_BACKENDS enables (one row of each vendor carries them). Lists end with a zero id
 * or NULL; each optional. ---------------------------------------------------------- */
struct axl__backend_facts {
	/* the PCI vendor ids it speaks for, their names and id prefixes (core/vendors.c) */
	const struct axl__pci_vendor *pci_vendors;
	/* kernel drivers that only ever bind accelerators (discover/pci.c) */
	const char *const *drivers;
	/* device nodes its driver shares between all devices (axl__node_is_shared) */
	const char *const *shared_nodes;
};

/* Vendor display name (NULL when not known) and id prefix ("accel" when not known) for a
 * PCI vendor id (and family), from the rows' facts and core/vendors.c. */
const struct axl__pci_vendor *axl__pci_vendor(int vendor_id);
const char *axl__vendor_name(int vendor_id);
const char *axl__vendor_prefix(int vendor_id, axl_family family);

/* ---- discover (discover/inventory.c): the scan's hooks, each optional ------------- */
struct axl__discover_ops {
	/* Does this backend own the device (vendor, driver)? NULL: it owns none (it
	 * enriches another backend's devices). */
	bool (*owns)(const struct axl_device *dev);
	/* Before anything is read: start slow work (a vendor library in a worker thread)
	 * so it overlaps the PCI scan. */
	void (*start)(struct axl__scan *scan, const struct axl__backend *self);
	/* Add devices the PCI scan cannot see (nodes only the driver's tree lists, ...). */
	int (*enumerate)(struct axl__scan *scan, const struct axl__backend *self);
	/* Add what the driver publishes for one device it owns. */
	int (*enrich)(struct axl__scan *scan, const struct axl__backend *self, struct axl_device *dev);
	/* After every device is enriched, filtered and has its id (links between devices,
	 * ports' remote ids); before the generic link derivation. */
	int (*finish)(struct axl__scan *scan, const struct axl__backend *self);
	/* After ids are assigned: add links (they name devices by id). */
	void (*link)(struct axl__scan *scan, const struct axl__backend *self);
	/* Release what its slot (axl__backend_state) holds. */
	void (*release)(struct axl_inventory *inv, const struct axl__backend *self);
};

/* Does be own dev (its owns hook)? */
bool axl__backend_owns(const struct axl__backend *be, const struct axl_device *dev);

/* ---- fabric (discover/fabric.c, discover/links.c), each optional ------------------ */
struct axl__fabric_ops {
	/* Is this PCI function one of its fabric's switches? Then the switch kind, with
	 * *generation (-1 not known); else NULL. */
	const char *(*switch_of)(const struct axl__pcifn *f, int *generation);
	/* Does dev (any device: check it is yours) sit on a direct fabric, as far as the
	 * inventory tells (inv->switches is complete)? Fill *out. For the generic links. */
	bool (*device)(const struct axl_inventory *inv, const struct axl_device *dev, struct axl__fabric *out);
};

/* ---- sample (metrics/sample.h, metrics/sampler.c) --------------------------------- */
struct axl_sampler;
struct axl_sample;
struct axl__sample_ops {
	/* Open what will be read for the sampler's devices this backend handles, into its
	 * slot (axl__sampler_state; leave it NULL when there are none). */
	void (*open)(struct axl_sampler *s, const struct axl__backend *self);
	/* Fill one sample (asked only while the slot is set). */
	void (*sample)(struct axl_sampler *s, const struct axl__backend *self, struct axl_sample *out);
	/* Release the slot. */
	void (*close)(struct axl_sampler *s, const struct axl__backend *self);
	/* Its sample hook watches health (AXL_SAMPLER_HEALTH: axl__shealth) and honours
	 * AXL_SAMPLER_NO_METRICS (reads no values then); a backend without it is not
	 * sampled at all under AXL_SAMPLER_NO_METRICS. */
	bool health;
};

/* ---- vis (visibility/visibility.h, docs/visibility.md), each optional ------------- */
struct axl__vis_ops {
	/* The environment variables its runtimes read to pick devices, NULL-terminated:
	 * the context reads the union of every row's. */
	const char *const *vars;
	/* What /dev node `path` is to its runtime (AXL__VIS_NODE_*: the node it opens a
	 * device by, a shared node it cannot do without), AXL__VIS_NODE_OWN when the node
	 * is none of its own. */
	int (*node)(const char *path);
	/* The character device one of its nodes stands for (rel: the path under /dev/) in a
	 * tree where /dev holds plain files, from sysfs and /proc/devices; false when rel is
	 * not one of its nodes or its numbers are not known. */
	bool (*devnum)(const struct axl__vis *v, const char *rel, unsigned *major, unsigned *minor);
	/* After access is known (v->v[].access): apply its variables to its devices, writing
	 * their verdicts (v->v[].env, env_why, partial, runtime_why). */
	void (*apply)(struct axl__vis *v, const struct axl__backend *self);
};

/* ---- runtime (core/runtime.c: axl_device_runtime, include/axl/runtime.h) ---------- */
struct axl__runtime_ops {
	/* What a container needs to use dev, a top-level device this backend owns: a static
	 * description in the vendor's folder (backend/<vendor>/runtime.c); NULL when it has
	 * none for that device. */
	const struct axl_runtime *(*files)(const struct axl_device *dev);
};

/* ---- libs (discover/open.c, vendorlib/vdrv.h): the variables that name a library to
 * load instead of the system's (a test double), read by axl_context_open from the
 * caller's list or the process environment; NULL: none ------------------------------ */
struct axl__library_ops {
	/* "AXL_<LIB>_LIBRARY", its vendor library, into ctx->library[] */
	const char *env;
	/* a variable the vendor's runtime reads itself from the process environment: its
	 * value at open, never from the caller's list, into ctx->runtime_env[] */
	const char *runtime_env;
	/* the compute runtime's ("AXL_CUDA_LIBRARY"), into ctx->compute_library[] */
	const char *compute_env;
};

/* ---- parts (control/partition.c asks the backend that owns a device) ------------ */
#define AXL__PART_NODES_MAX 8

/* What a backend reports about a partition it created or found. */
struct axl__part_made {
	char id[96];       /* the MIG device UUID: "MIG-..." (no ':' or ',') */
	char profile[64];  /* the real profile name ("1g.10gb") */
	int64_t profile_id;    /* the NVML GPU-instance profile id, < 0 unknown */
	int64_t memory_bytes;  /* < 0 unknown */
	int64_t compute_units; /* SMs, < 0 unknown */
	int gpu_instance, compute_instance; /* NVML ids, < 0 unknown */
	/* access nodes of this instance (/dev/nvidia-caps/nvidia-capN), besides the
	 * parent's nodes, which partition.c adds */
	char nodes[AXL__PART_NODES_MAX][64];
	size_t nnodes;
	/* the suffix of its child device's id ("mig1.0" of "nvidia:0/mig1.0"), "" when not
	 * known; where its facts came from */
	char child[32];
	axl_source source;
	/* the profile of the device's list the request resolved to: the row's when the
	 * backend did not report one (profile "") */
	const char *listed;
};

/* Whose a new partition is (a simulated node's backend records it with the instance):
 * owner AXL_PARTITION_OWNER_WORKLOAD with the process pid, or _OPERATOR with pid 0. */
struct axl__part_owner {
	int owner;
	int pid;
};

/* What partition.c asks of the backend that owns a device (docs/partitions.md). A
 * partition of a simulated node (ctx->sim) is a record of that node's state directory;
 * partition.c keeps the records of those, the backend of real ones. */
struct axl__part_ops {
	/* The partitioning technology of the device's axl__part ("MIG") and the kind of the
	 * partitions it makes, as the state and the rows name it ("mig") */
	const char *technology, *kind;
	/* The devices whose partitions it creates, or whose partition modes it switches, in
	 * messages that list what axl does when a device has neither ("NVIDIA MIG GPUs") */
	const char *creates, *switches;
	/* The variables that name a partition to a container ("NVIDIA_VISIBLE_DEVICES"),
	 * NULL-terminated */
	const char *const *env;
	/* Create a partition of profile (as the caller wrote it) on gpu, a physical device,
	 * and fill *out: out->id never holds ':' or ','. partition.c records one of the live
	 * system in the state. */
	int (*create)(axl_context *ctx, const struct axl_device *gpu, const char *profile,
		      const struct axl__part_owner *owner, struct axl__part_made *out);
	/* Destroy the partition of gpu whose id (UUID) is id on the live system; *removed
	 * (may be NULL): how many went. */
	int (*destroy)(axl_context *ctx, const struct axl_device *gpu, const char *id, size_t *removed);
	/* Switch gpu's partition mode of kind ("compute", "memory"); NULL: switches none. */
	int (*set_mode)(axl_context *ctx, const struct axl_device *gpu, const char *kind, const char *mode);
	/* The device nodes a process given a partition of gpu needs, its own nodes (own)
	 * included: each through add(arg, path), in order. */
	void (*nodes)(const struct axl_device *gpu, const char *const *own, size_t nown,
		      void (*add)(void *arg, const char *path), void *arg);
};

/* The limits of one device (control/limit.c), < 0: none. */
struct axl__limit {
	int64_t memory_bytes;
	int compute_percent;
};

/* ---- limits (control/limit.c) --------------------------------------------------- */
struct axl__limit_ops {
	/* The environment a limiter of its vendor reads: one "NAME=VALUE" string after
	 * another, each ended by '\0', for the limits of the n devices of a request it owns,
	 * in the request's order. */
	void (*env)(const struct axl__limit *limits, size_t n, struct axl__sb *out);
};

/* ---- sim (sim/, docs/sim.md): simulated devices of its vendor --------------------- */
struct axl__state;
struct axl__db_entry;
/* Where a simulated device sits in its spec. */
struct axl__sim_place {
	size_t minor;     /* its position among the spec's devices of its PCI vendor */
	int parts_on;     /* the partition mode the spec's group sets (its ops' parts_key) */
	int group;        /* its group's index in the spec's "devices" */
	const char *fabric; /* its group's "fabric", NULL: none */
	const struct axl__state *state; /* the node's state (partitions), NULL: unreadable */
};

/* What a simulated device of a backend's vendor gets. The spec's words ("mig", the
 * fabric and link kinds) are the spec's format; what they mean is the vendor's. */
struct axl__sim_ops {
	/* the driver such a device is bound to (what the visibility variables go by) */
	const char *driver;
	/* the prefix of the UUIDs its driver writes, for the spec's generated ones ("GPU-") */
	const char *uuid_prefix;
	/* a group's key that switches the partitioning of its devices (a boolean) and the
	 * partitioning technology a model of the device database needs for it */
	const char *parts_key, *parts_technology;
	/* a group's "fabric" of this vendor, which joins every pair of the group by one link
	 * of that kind: whether a model can be on it (0, else -1 with why), and the link's
	 * bandwidth (GB/s per direction) and count */
	const char *fabric;
	int (*fabric_check)(const struct axl__db_entry *e, char *why, size_t cap);
	void (*fabric_link)(const struct axl__db_entry *e, double *gbps, int *count);
	/* the kind of the spec's "links" between two of its devices, and one such link's
	 * bandwidth (GB/s per direction) */
	const char *link;
	double (*link_gbps)(const struct axl__db_entry *a, const struct axl__db_entry *b);
	/* the rest of the device (nodes, partitions), after the device database's facts */
	void (*device)(struct axl_inventory *inv, struct axl_device *dev, const struct axl__sim_place *at);
};

/* ---- checkpoint (control/checkpoint.c, include/axl/checkpoint.h) ----------------- */
struct axl__checkpoint_ops {
	/* Do op (axl_checkpoint_op) for process pid through the vendor's driver (the one
	 * axl__backend_compute_library names, else the system's) and write the state after
	 * it (axl_checkpoint_state) to *state; 0 or an AXL_E* code with axl__error's text
	 * (AXL_ENOTSUP when the driver lacks the calls). */
	int (*run)(const axl_context *ctx, const struct axl__backend *self, int pid, int op, int *state);
};

/* ---- compute (compute/compute_impl.h, include/axl/compute.h): struct
 * axl__compute_ops, the backend that allocates, copies and synchronises on its devices
 * through the vendor's runtime (loaded with dlopen), in the table's order of priority
 * (the cpu backend, always there, is the compute layer's own). ---------------------- */

/* ---- the row ------------------------------------------------------------------------ */
struct axl__backend {
	const char *name;
	/* The size of the block it keeps per device it owns (its own struct, declared in
	 * its folder), 0: none. See axl__device_data. */
	size_t device_size;
	const struct axl__backend_facts *facts;
	const struct axl__discover_ops *discover;
	const struct axl__fabric_ops *fabric;
	const struct axl__sample_ops *sample;
	const struct axl__vis_ops *vis;
	const struct axl__runtime_ops *runtime;
	const struct axl__library_ops *libs;
	const struct axl__part_ops *parts;
	const struct axl__limit_ops *limits;
	const struct axl__sim_ops *sim;
	const struct axl__compute_ops *compute;
	const struct axl__checkpoint_ops *checkpoint;
};

/* The registry (backend/registry.c), in probe order; "pci" first. */
extern const struct axl__backend *const axl__backends[];
extern const size_t axl__backend_total;
/* Does ctx's selection (AXL_BACKENDS) enable the row at index i? */
bool axl__backend_on(const axl_context *ctx, size_t i);
/* The index of be's row in the registry (what the per-backend arrays go by);
 * axl__backend_total when be is no row of it. */
size_t axl__backend_slot(const struct axl__backend *be);
/* be's slot in inv: what it keeps between the hooks of one scan (released by its
 * discover->release). */
void **axl__backend_state(struct axl_inventory *inv, const struct axl__backend *be);
/* What be's slot in inv holds (NULL: nothing, or be is no row). */
void *axl__backend_state_of(const struct axl_inventory *inv, const struct axl__backend *be);
/* be's block for dev (device_size bytes, zeroed, from inv's arena), made at the first
 * call; NULL when be declares none, on allocation failure, or when dev holds another
 * backend's block. */
void *axl__device_data(struct axl_inventory *inv, struct axl_device *dev, const struct axl__backend *be);
/* be's block for dev, NULL when it has none. */
const void *axl__device_data_of(const struct axl_device *dev, const struct axl__backend *be);
/* What the context read for be's libs (NULL: nothing). */
const char *axl__backend_library(const axl_context *ctx, const struct axl__backend *be);
const char *axl__backend_runtime_env(const axl_context *ctx, const struct axl__backend *be);
const char *axl__backend_compute_library(const axl_context *ctx, const struct axl__backend *be);

#endif
