/* SPDX-License-Identifier: MIT */
/* libaxl internals: the object model (context, device, host, inventory) the core, the
 * subsystems and the backends share. The backend contract is core/backend.h. Nothing
 * here is exported. */
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
 * the union of the names the backends declare (struct axl__vis_ops.vars, core/backend.h), read once
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
struct axl__backend;
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
	/* per backend (by table index), what its row's libs (core/backend.h) declare: the
	 * library to load instead of the system's (libs->env's value), and the value of
	 * libs->runtime_env in the process environment; NULL when not set */
	char *library[AXL__BACKENDS_MAX];
	char *runtime_env[AXL__BACKENDS_MAX];
	/* per backend: the compute runtime to load instead of the system's
	 * (libs->compute_env's value, a test double), NULL: the system's */
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
	/* what the owning backend keeps about the device between its hooks: a block of its
	 * row's device_size bytes, in the inventory's arena, made when the backend first
	 * asks (core/backend.h: axl__device_data); NULL until then */
	void *bdata;
	const struct axl__backend *bdata_of;
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

/* Monotonic clock in ms */
double axl__now_ms(void);

#endif
