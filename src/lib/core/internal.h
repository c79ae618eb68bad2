/* SPDX-License-Identifier: MIT */
/* libaxl internals shared by the core and the backends. Nothing here is exported. */
#ifndef AXL_INTERNAL_H
#define AXL_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axl.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/strbuf.h"

#define AXL__HIDDEN __attribute__((visibility("hidden")))

/* ---- arena: many small allocations freed at once ------------------------------ */
/* The most backends the table may hold: the size of every per-backend array, and at most
 * the 64 bits of a backend selection mask (backends.c asserts both). */
#define AXL__BACKENDS_MAX 32

struct axl__arena_chunk;
struct axl__arena {
	struct axl__arena_chunk *head;
	bool failed;
};
void *axl__arena_alloc(struct axl__arena *a, size_t size);
char *axl__arena_strdup(struct axl__arena *a, const char *s);
char *axl__arena_strndup(struct axl__arena *a, const char *s, size_t n);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
char *axl__arena_printf(struct axl__arena *a, const char *fmt, ...);
void axl__arena_free(struct axl__arena *a);

/* ---- growable arrays ----------------------------------------------------------- */
#define AXL__VEC(type)                                                                 \
	struct {                                                                       \
		type *v;                                                               \
		size_t n, cap;                                                         \
	}
/* Returns a pointer to a new zeroed slot, NULL on allocation failure. */
void *axl__vec_push_raw(void **v, size_t *n, size_t *cap, size_t elem);
#define AXL__VEC_PUSH(vec) \
	((__typeof__((vec).v))axl__vec_push_raw((void **)&(vec).v, &(vec).n, &(vec).cap, sizeof *(vec).v))
#define AXL__VEC_FREE(vec) \
	do {                   \
		free((vec).v); \
		(vec).v = NULL; \
		(vec).n = (vec).cap = 0; \
	} while (0)

/* ---- values with provenance ---------------------------------------------------- */
enum { AXL__T_S = 1, AXL__T_I = 2, AXL__T_F = 3, AXL__T_B = 4 /* stored as v.i, 0 or 1 */ };
struct axl__val {
	union {
		int64_t i;
		double f;
		const char *s;
	} v;
	uint8_t src; /* axl_source; NONE = unknown */
};

/* ---- context ------------------------------------------------------------------- */
/* The environment variables that say which devices a process may use (docs/visibility.md):
 * the union of the names the backends declare (struct axl__backend.vis_vars), read once
 * when the context opens (discover/open.c, the one place the environment is read). */
struct axl__visvar {
	const char *name; /* a backend's (static) */
	char *value;      /* NULL unset, "" set and empty (not the same thing) */
};
/* Fill ctx->vis with the backends' names, every value unset (context.c). */
int axl__visvars_init(axl_context *ctx);
/* The value of visibility variable name: NULL when unset or no backend declares it. */
const char *axl__visvar(const axl_context *ctx, const char *name);
/* Set it (a copy, cut to a few kB; NULL: unset). 0, or -1 when no backend declares the
 * name or out of memory. */
int axl__visvar_set(axl_context *ctx, const char *name, const char *value);

struct axl__sim;
struct axl__db_entry;
struct axl__compute_ops;
struct axl_context {
	struct axl__fs fs;
	struct axl__sim *sim; /* a simulated node (sim.h), or NULL: read the system */
	/* with sim: the simulated node's sample hooks (sim/sim_node.c), which the sampler
	 * (metrics/) calls instead of the backends' */
	const struct axl__backend *sim_backend;
	char *sysroot;
	char *replay_dir; /* a capture file's unpacked tree (removed at free), or NULL */
	/* the replayed capture's manifest schema_version when above what this axl reads
	 * (capture.c), else 0: one warning with each inventory */
	int64_t capture_newer;
	axl_log_fn log;
	void *log_userdata;
	axl_log_level log_level;
	unsigned flags;
	uint64_t backend_mask; /* bit i: backend i enabled */
	bool devicedb_enabled;
	char *pci_ids_path;
	char *pci_library;    /* $AXL_PCI_LIBRARY: load this instead of libpci.so.3 (pciids.c) */
	char *zlib_library;   /* $AXL_ZLIB_LIBRARY: instead of libz.so.1 (util/zlib_dl.h) */
	/* the driver root (axl_context_options.driver_root, $AXL_DRIVER_ROOT); NULL: "/", the
	 * loader's own search (vendorlib/vlib.c looks for libraries under it) */
	char *driver_root;
	/* per backend (by table index), what its struct axl__backend declares: the library
	 * to load instead of the system's (library_env's value), and the value of runtime_env
	 * in the process environment; NULL when not set */
	char *library[AXL__BACKENDS_MAX];
	char *runtime_env[AXL__BACKENDS_MAX];
	/* per backend: the compute runtime to load instead of the system's
	 * (compute_library_env's value, a test double), NULL: the system's */
	char *compute_library[AXL__BACKENDS_MAX];
	int vendor_timeout_ms; /* deadline of a vendor library ($AXL_VENDOR_TIMEOUT_MS) */
	/* $KUBERNETES_SERVICE_HOST as the runtime scan sees it: from the caller's list, or
	 * from the process environment on the live system only; NULL when not set */
	char *k8s_service_host;
	char *compute_backend; /* $AXL_COMPUTE: the one compute backend to use, NULL: by priority */
	/* the visibility variables (struct axl__visvar), vis_n of them */
	struct axl__visvar *vis;
	size_t vis_n;
	/* where they came from: "env" (the process) or "options" (axl_context_options.env) */
	bool vis_explicit;
	/* those set in the process environment but not applied, the node being another one
	 * (simulated or re-rooted) and no explicit list given: their names ("A, B"), and how
	 * many; one warning with each inventory (discover/inventory.c); NULL, 0: none */
	char *vis_unapplied;
	size_t vis_unapplied_n;
	/* where axl keeps what it created (state.c): $AXL_STATE_DIR, else a per-user runtime
	 * directory on the live system; NULL on a re-rooted context without AXL_STATE_DIR */
	char *state_dir;
	/* lazily loaded pci.ids (guarded by lock) */
	pthread_mutex_t lock;
	void *pci_access;
	const void *pci_fns; /* libpci's functions pci_access came from (pciids.c) */
	bool pci_ids_tried;
};

/* A context whose tree is t, in memory (util/memfs.h): for fuzzers and tests, not API.
 * opts as for axl_context_open (sysroot, when given, only names the tree; sim must not
 * be given); t outlives the context. */
int axl__context_open_mtree(axl_context **out, const struct axl_context_options *opts, struct axl__mtree *t);

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void axl__log(const axl_context *ctx, axl_log_level level, const char *fmt, ...);

/* ---- device ---------------------------------------------------------------------- */
struct axl__part {
	struct axl_partitioning pub;
	AXL__VEC(const char *) profiles;
	AXL__VEC(struct axl_partition_profile *) details; /* parallel to profiles, NULL: none */
};

struct axl_device {
	struct axl__val attr[AXL_ATTR__COUNT];
	const char *prefix;  /* id prefix: "nvidia", "amdgpu", ... */
	const char *owner;   /* backend that owns it (for AXL_BACKENDS filtering) */
	/* PCI identity */
	bool has_pci;
	unsigned domain, bus, devno, fn;
	const char *syspath; /* "/sys/bus/pci/devices/0000:18:00.0" (or KFD node path) */
	const char *devpath; /* resolved "/sys/devices/pci0000:00/.../0000:18:00.0" or NULL */
	int numa_node;       /* copy of the attribute, -1 unknown */
	AXL__VEC(const char *) nodes;
	AXL__VEC(struct axl_compute_unit) cus;
	AXL__VEC(struct axl_precision) precs;
	AXL__VEC(struct axl__part) parts;
	AXL__VEC(struct axl_port) ports;
	/* partitions that exist now: children with ids "<parent id>/<child_suffix>" */
	struct axl_device *parent;
	const char *child_suffix;
	AXL__VEC(struct axl_device *) children;
	const struct axl__db_entry *db;
	unsigned sources;
	bool visible_in_list;
	/* what the owning backend keeps about the device between its hooks */
	int driver_minor;        /* the minor of the driver's own character device, -1 unknown */
	uint64_t topo_unique_id; /* its unique id in the driver's topology tree, 0 unknown */
	bool topo_only;          /* seen only in that tree: no PCI function to read */
	const int *topo_nodes;   /* its nodes in that tree, one per partition (arena) */
	size_t topo_node_count;
	/* devices with the same non-zero id share a direct fabric (discover/links.c asks the
	 * owning backend's fabric op what it is) */
	uint64_t fabric_domain;
};

/* ---- host ------------------------------------------------------------------------ */
struct axl_host {
	struct axl__val attr[AXL_HOST__COUNT];
	AXL__VEC(const char *) isa;
	AXL__VEC(struct axl_numa_node) numa;
};

/* ---- inventory ------------------------------------------------------------------- */
struct axl__pcifn {
	struct axl_pci_function pub;
	unsigned domain, bus, devno, fn;
	const char *devpath; /* resolved path under /sys/devices */
	int numa_node;
	struct axl_device *dev; /* when it is an accelerator */
};

struct axl__nic {
	struct axl_nic pub;
	const char *devpath; /* its PCI function under /sys/devices, NULL when not known */
};

struct axl_inventory {
	axl_context *ctx;
	unsigned flags;
	struct axl__arena arena;
	struct axl_host host;
	AXL__VEC(struct axl_device *) devs;
	AXL__VEC(struct axl_link) links;
	AXL__VEC(struct axl_warning) warnings;
	AXL__VEC(struct axl__pcifn) pcifns;
	AXL__VEC(struct axl_timing) timings;
	AXL__VEC(struct axl_switch) switches;
	AXL__VEC(struct axl__nic) nics;
	AXL__VEC(struct axl_link) nic_links;
	bool topo_present; /* a backend found the driver's topology tree (enumerate) */
	void *bstate[AXL__BACKENDS_MAX]; /* per backend (by table index): what it keeps between hooks */
};


/* Record a warning; message is printf-style. path may be NULL. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
void axl__warn(struct axl_inventory *inv, const char *source, const char *path, const char *fmt,
	       ...);

struct axl_device *axl__device_new(struct axl_inventory *inv, const char *owner, const char *prefix);
void axl__device_free(struct axl_device *dev);

/* NULL, empty or only whitespace: not a known string. */
bool axl__blank(const char *s);
/* s without leading and trailing whitespace, copied into the arena; NULL when blank
 * (unknown is left out, never "") or out of memory. */
const char *axl__text(struct axl_inventory *inv, const char *s);
/* Set a value (overwrites). Strings are copied into the inventory's arena, trimmed; an
 * empty or blank string leaves the value as it was (unknown stays unknown). */
void axl__set_str(struct axl_inventory *inv, struct axl_device *dev, axl_attr a, axl_source src,
		  const char *s);
void axl__set_int(struct axl_device *dev, axl_attr a, axl_source src, int64_t v);
void axl__set_num(struct axl_device *dev, axl_attr a, axl_source src, double v);
/* Set only when not known yet. */
void axl__fill_str(struct axl_inventory *inv, struct axl_device *dev, axl_attr a, axl_source src,
		   const char *s);
void axl__fill_int(struct axl_device *dev, axl_attr a, axl_source src, int64_t v);
void axl__fill_num(struct axl_device *dev, axl_attr a, axl_source src, double v);
bool axl__known(const struct axl_device *dev, axl_attr a);
int64_t axl__int(const struct axl_device *dev, axl_attr a, int64_t dflt);
const char *axl__str(const struct axl_device *dev, axl_attr a);

int axl__add_node(struct axl_inventory *inv, struct axl_device *dev, const char *path);
/* A node a driver shares between all its devices (a backend's shared_nodes), not one
 * that names a device (devnodes.c). */
bool axl__node_is_shared(const char *path);
int axl__add_cu(struct axl_inventory *inv, struct axl_device *dev, const char *name, int64_t count,
		axl_source src);
struct axl__part *axl__add_part(struct axl_inventory *inv, struct axl_device *dev,
				const char *technology, axl_source src);
int axl__part_add_profile(struct axl_inventory *inv, struct axl__part *p, const char *profile);
/* The details of a profile (added by name when missing); NULL on allocation failure.
 * Counts start unknown (-1). */
struct axl_partition_profile *axl__part_profile(struct axl_inventory *inv, struct axl__part *p,
						const char *profile, axl_source src);
/* A new interconnect port (counts unknown, strings NULL); NULL on allocation failure. */
struct axl_port *axl__add_port(struct axl_inventory *inv, struct axl_device *dev,
			       const char *technology, axl_source src);
/* A partition that exists now, as a child device ("<parent id>/<suffix>"); it inherits
 * nothing: the caller sets what it knows. NULL on allocation failure. */
struct axl_device *axl__child_new(struct axl_inventory *inv, struct axl_device *parent,
				  const char *suffix);

void axl__host_set_str(struct axl_inventory *inv, axl_host_attr a, axl_source src, const char *s);
void axl__host_set_int(struct axl_inventory *inv, axl_host_attr a, axl_source src, int64_t v);

/* ---- partitions a backend makes (control/partition.c asks) ------------------------ */
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

/* ---- simulated devices (sim/, docs/sim.md) ---------------------------------------- */
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

/* ---- backends -------------------------------------------------------------------- */
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

struct axl__backend {
	const char *name;
	/* ---- facts about the vendor that need no hook of it: the core and discovery look
	 * them up over the whole table, whatever AXL_BACKENDS enables (one row of each
	 * vendor carries them). All optional; lists end with a zero id / NULL. */
	/* the PCI vendor ids it speaks for, their names and id prefixes (core/vendors.c) */
	const struct axl__pci_vendor *pci_vendors;
	/* kernel drivers that only ever bind accelerators (discover/pci.c) */
	const char *const *drivers;
	/* device nodes its driver shares between all devices (axl__node_is_shared) */
	const char *const *shared_nodes;
	/* Is this PCI function one of its fabric's switches (discover/fabric.c)? Then the
	 * switch kind ("nvswitch"), with *generation (-1 not known); else NULL. */
	const char *(*fabric_switch)(const struct axl__pcifn *f, int *generation);
	/* Does dev (any device: check it is yours) sit on a direct fabric, as far as the
	 * inventory tells (inv->switches is complete)? Fill *out. For the generic links. */
	bool (*fabric)(const struct axl_inventory *inv, const struct axl_device *dev,
		       struct axl__fabric *out);
	/* ---- hooks ---- */
	/* Add devices the PCI scan cannot see (KFD-only nodes, ...). Optional. */
	int (*enumerate)(struct axl__scan *scan, size_t self);
	/* Does this backend own the device (vendor, driver)? */
	bool (*owns)(const struct axl_device *dev);
	/* Add what the driver publishes for one device. Optional. */
	int (*enrich)(struct axl__scan *scan, size_t self, struct axl_device *dev);
	/* After every device is enriched, filtered and has its id (links between devices,
	 * ports' remote ids); before the generic link derivation. Optional. */
	int (*finish)(struct axl__scan *scan, size_t self);
	/* Before anything is read: start slow work (a vendor library in a worker thread)
	 * so it overlaps the PCI scan. Optional. */
	void (*start)(struct axl__scan *scan, size_t self);
	/* After ids are assigned: add links (they name devices by id). Optional. */
	void (*link)(struct axl__scan *scan, size_t self);
	/* Release inv->bstate[self]. Optional. */
	void (*release)(struct axl_inventory *inv, size_t self);
	/* Live metrics (sample.h): open what will be read for the sampler's devices this
	 * backend handles (into s->bstate[self]; leave it NULL when there are none), fill one
	 * sample, release. Optional. */
	void (*sample_open)(struct axl_sampler *s, size_t self);
	void (*sample)(struct axl_sampler *s, size_t self, struct axl_sample *out);
	void (*sample_close)(struct axl_sampler *s, size_t self);
	/* Its sample hook watches health (AXL_SAMPLER_HEALTH: axl__shealth) and honours
	 * AXL_SAMPLER_NO_METRICS (reads no values then); a backend without it is not
	 * sampled at all under AXL_SAMPLER_NO_METRICS. */
	bool sample_health;

	/* ---- runtime files (core/runtime.c: axl_device_runtime, include/axl/runtime.h) ---- */
	/* What a container needs to use dev, a top-level device this backend owns: a static
	 * description in the vendor's folder (backend/<vendor>/runtime.c); NULL when it has
	 * none for that device. Optional. */
	const struct axl_runtime *(*runtime)(const struct axl_device *dev);

	/* ---- control and simulation: what only the vendor knows (control/, sim/) ----
	 * Asked of the backend that owns the device (owns()); each optional. */
	const struct axl__part_ops *parts; /* partitions (control/partition.c) */
	/* The environment a limiter of its vendor reads (control/limit.c): one
	 * "NAME=VALUE" string after another, each ended by '\0', for the limits of the n
	 * devices of a request it owns, in the request's order. */
	void (*limit_env)(const struct axl__limit *limits, size_t n, struct axl__sb *out);
	const struct axl__sim_ops *sim; /* its devices on a simulated node (sim/) */

	/* ---- visibility (visibility/visibility.h, docs/visibility.md) ----
	 * The environment variables this backend's runtimes read to pick devices, NULL-
	 * terminated: the context reads the union of every row's. Optional. */
	const char *const *vis_vars;
	/* What /dev node `path` is to this backend's runtime (AXL__VIS_NODE_*: the node it
	 * opens a device by, a shared node it cannot do without), AXL__VIS_NODE_OWN when
	 * the node is none of its own. Optional. */
	int (*vis_node)(const char *path);
	/* The character device one of its nodes stands for (rel: the path under /dev/) in a
	 * tree where /dev holds plain files, from sysfs and /proc/devices; false when rel is
	 * not one of its nodes or its numbers are not known. Optional. */
	bool (*vis_devnum)(const struct axl__vis *v, const char *rel, unsigned *major, unsigned *minor);
	/* After access is known (v->v[].access): apply its variables to its devices, writing
	 * their verdicts (v->v[].env, env_why, partial, runtime_why). Optional. */
	void (*visibility)(struct axl__vis *v, size_t self);

	/* ---- vendor libraries (vendorlib/vdrv.h) ----
	 * The variable that names a library to load instead of the system's
	 * ("AXL_<LIB>_LIBRARY", a test double; NULL: none): read by axl_context_open from the
	 * caller's list or the process environment into ctx->library[self]. And a variable
	 * the vendor's runtime reads itself from the process environment (NULL: none): its
	 * value at open, never from the caller's list, in ctx->runtime_env[self]. */
	const char *library_env;
	const char *runtime_env;

	/* ---- compute (src/lib/compute/compute_impl.h, include/axl/compute.h) ----
	 * The backend that allocates, copies and synchronises on this vendor's devices
	 * through its runtime (loaded with dlopen), in the table's order of priority; NULL
	 * when there is none (the cpu backend, always there, is the compute layer's own). */
	const struct axl__compute_ops *compute;
	/* The variable that names a compute runtime to load instead of the system's
	 * ("AXL_CUDA_LIBRARY", a test double; NULL: none), read like library_env into
	 * ctx->compute_library[self]. */
	const char *compute_library_env;

	/* ---- process checkpoints (control/checkpoint.c, include/axl/checkpoint.h) ----
	 * Do op (axl_checkpoint_op) for process pid through the vendor's driver (the one
	 * ctx->compute_library[self] names, else the system's) and write the state after it
	 * (axl_checkpoint_state) to *state; 0 or an AXL_E* code with axl__error's text
	 * (AXL_ENOTSUP when the driver lacks the calls). Optional. */
	int (*checkpoint)(const axl_context *ctx, size_t self, int pid, int op, int *state);
};

extern const struct axl__backend *const axl__backends[];
extern const size_t axl__backend_total;
bool axl__backend_on(const axl_context *ctx, size_t i);

/* ---- links (core/link.c) -------------------------------------------------------- */
/* PCIe bandwidth of a device's current link, GB/s per direction; < 0 when not known. */
double axl__pcie_gbps(const struct axl_device *dev);
/* Add a link between two devices that have ids (kept when the pair has one already);
 * NULL when it exists or on allocation failure. link_count -1, p2p 0. */
struct axl_link *axl__link_add(struct axl_inventory *inv, const struct axl_device *a,
			       const struct axl_device *b, const char *kind, double gbps, axl_source src);
/* A new link between a and b with every number unknown, NULL when one of the first prior
 * links joins them already (or on allocation failure). */
struct axl_link *axl__link_new(struct axl_inventory *inv, size_t prior, const struct axl_device *a,
			       const struct axl_device *b);

/* Vendor display name (NULL when not known) and id prefix ("accel" when not known) for a
 * PCI vendor id (and family), from the backends' pci_vendors and core/vendors.c. */
const struct axl__pci_vendor *axl__pci_vendor(int vendor_id);
const char *axl__vendor_name(int vendor_id);
const char *axl__vendor_prefix(int vendor_id, axl_family family);

/* Monotonic clock in ms */
double axl__now_ms(void);

#endif
