/* SPDX-License-Identifier: MIT */
/*
 * DRM client usage statistics (/proc/<pid>/fdinfo/<fd>, the kernel's
 * Documentation/gpu/drm-usage-stats.rst) for every process that holds a DRM (major 226,
 * /dev/dri/...) or compute accelerator (major 261, /dev/accel/...) file descriptor.
 *
 * Three layers, all internal (docs/fdinfo.md):
 *  - axl__fdinfo_parse: one fdinfo text -> struct axl__fdinfo. Pure, bounded, never
 *    allocates; a malformed value costs only its key.
 *  - axl__fdinfo_sweep: every process under <root>/proc through the fs layer -> the
 *    DRM clients of each process (de-duplicated by drm-client-id per device), with the
 *    process's comm and cgroup.
 *  - axl__fdinfo_util / axl__fdinfo_proc_util: busy percent of an engine from two
 *    sweeps (never from one).
 *
 * Unknown is not zero: every number carries a bit in a `have` mask.
 */
#ifndef AXL_LIB_FDINFO_H
#define AXL_LIB_FDINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct axl__fs;

#define AXL__FDI_MAX_ENGINES 16 /* engines per client; more are dropped (counted) */
#define AXL__FDI_MAX_REGIONS 8  /* memory regions per client */
#define AXL__FDI_NAME 32        /* engine / region / driver name, with the NUL */
#define AXL__FDI_MAX_TEXT 16384 /* bytes of one fdinfo file read (xe prints ~1.3 KiB) */

/* struct axl__fdi_engine.have */
enum {
	AXL__FDI_ENG_NS = 1u << 0,       /* drm-engine-<e>: busy ns */
	AXL__FDI_ENG_CYCLES = 1u << 1,   /* drm-cycles-<e> */
	AXL__FDI_ENG_TOTAL = 1u << 2,    /* drm-total-cycles-<e> (xe) */
	AXL__FDI_ENG_MAXFREQ = 1u << 3,  /* drm-maxfreq-<e>, in Hz */
	AXL__FDI_ENG_CAPACITY = 1u << 4, /* drm-engine-capacity-<e> (absent means 1) */
};

/* memory kinds: index into struct axl__fdi_region.bytes, bit (1 << kind) in .have */
enum axl__fdi_mem {
	AXL__FDI_MEM_TOTAL,     /* drm-total-<r> */
	AXL__FDI_MEM_SHARED,    /* drm-shared-<r> */
	AXL__FDI_MEM_RESIDENT,  /* drm-resident-<r> */
	AXL__FDI_MEM_PURGEABLE, /* drm-purgeable-<r> */
	AXL__FDI_MEM_ACTIVE,    /* drm-active-<r> */
	AXL__FDI_MEM_LEGACY,    /* drm-memory-<r> (amdgpu, older kernels) */
	AXL__FDI_MEM_N
};

struct axl__fdi_engine {
	char name[AXL__FDI_NAME];
	unsigned have;
	unsigned capacity; /* 1 unless drm-engine-capacity-<e> says more */
	uint64_t busy_ns;
	uint64_t cycles;
	uint64_t total_cycles;
	uint64_t maxfreq_hz;
};

struct axl__fdi_region {
	char name[AXL__FDI_NAME];
	unsigned have;                    /* bit (1 << enum axl__fdi_mem) */
	uint64_t bytes[AXL__FDI_MEM_N];
};

struct axl__fdinfo {
	char driver[AXL__FDI_NAME]; /* drm-driver; "" when absent (not a DRM fdinfo) */
	char pdev[20];              /* drm-pdev, normalised "dddd:bb:dd.f"; "" when absent */
	bool have_client_id;
	uint64_t client_id;
	unsigned n_engines, n_regions;
	unsigned dropped; /* drm- keys ignored: malformed value or name, or over a bound */
	struct axl__fdi_engine engines[AXL__FDI_MAX_ENGINES];
	struct axl__fdi_region regions[AXL__FDI_MAX_REGIONS];
};

/* Parse len bytes of fdinfo text (need not be NUL-terminated). Returns 0 when it is a
 * DRM client's (a valid drm-driver line), AXL_ENOENT otherwise (out is still filled
 * with whatever drm- keys there were). */
int axl__fdinfo_parse(const char *text, size_t len, struct axl__fdinfo *out);

const struct axl__fdi_engine *axl__fdinfo_engine(const struct axl__fdinfo *fi, const char *name);
const struct axl__fdi_region *axl__fdinfo_region(const struct axl__fdinfo *fi, const char *name);

/* ---- the sweep ----------------------------------------------------------------------- */

#define AXL__FDI_MAX_FDS_PER_PROC 65536 /* fds looked at per process */
#define AXL__FDI_MAX_CLIENTS 8192       /* DRM clients kept per sweep (~2 KiB each) */

struct axl__fdi_proc {
	int pid;
	char comm[32];       /* /proc/<pid>/comm, control characters as '?'; "" unknown */
	char cgroup[256];    /* the cgroup v2 path ("0::" line); "" unknown */
	char container[72];  /* a 64-hex container id found in the cgroup path; "" none */
	unsigned first, n;   /* its clients: sweep->clients[first .. first+n) */
};

struct axl__fdi_client {
	int pid;
	int fd;             /* the lowest fd number that refers to this client */
	unsigned nfds;      /* fds of this process sharing the client */
	int major;          /* 226 (/dev/dri) or 261 (/dev/accel) */
	char node[24];      /* the device node's name ("renderD128", "accel0") */
	struct axl__fdinfo info;
};

/* The device key of a client: its drm-pdev, or the node name when there is none. */
static inline const char *axl__fdi_dev(const struct axl__fdi_client *c)
{
	return c->info.pdev[0] ? c->info.pdev : c->node;
}

struct axl__fdi_sweep {
	uint64_t t_ns; /* CLOCK_MONOTONIC when the sweep ended (tests may set it) */
	struct axl__fdi_proc *procs; /* processes with at least one DRM client */
	size_t n_procs;
	struct axl__fdi_client *clients; /* grouped by process, sorted (pid, dev, id, fd) */
	size_t n_clients;
	/* what was looked at */
	size_t pids_seen, fds_seen, drm_fds, unreadable;
};

/* Sweep <root>/proc. Returns 0 (a process that vanishes or cannot be read is skipped
 * and counted), AXL_ENOENT when there is no /proc, AXL_ENOMEM. */
int axl__fdinfo_sweep(const struct axl__fs *fs, struct axl__fdi_sweep *out);
void axl__fdinfo_sweep_free(struct axl__fdi_sweep *s);

/* The client of cur matching c (same pid, device, driver, client id; or same fd when
 * the driver prints no client id) in an earlier sweep, or NULL. */
const struct axl__fdi_client *axl__fdinfo_find(const struct axl__fdi_sweep *prev,
					       const struct axl__fdi_client *c);

/* ---- utilisation from two sweeps ----------------------------------------------------- */

struct axl__fdi_util {
	bool valid;        /* false: unknown (first sight, counter went backwards, ...) */
	double busy_pct;   /* percent of one engine, 0 .. 100 * capacity */
	unsigned capacity; /* engines in the group (drm-engine-capacity-<e>), >= 1 */
};

/* Busy percent of engine `engine` of client c (of sweep cur) over prev -> cur:
 * Δcycles/Δtotal-cycles when both sweeps have drm-total-cycles (xe), else Δns/Δt.
 * Unknown when c is not in prev (new client, or the fd now holds another client id),
 * when a counter or the clock went backwards or did not move (Δt = 0, Δtotal = 0),
 * or when the engine is missing from either sweep. */
void axl__fdinfo_util(const struct axl__fdi_sweep *prev, const struct axl__fdi_sweep *cur,
		      const struct axl__fdi_client *c, const char *engine,
		      struct axl__fdi_util *out);

/* Busy percent of engine `engine` summed over the clients of pid on device dev (the
 * clients known in both sweeps; *partial set when some client of cur had no valid
 * difference). Unknown when no client has one. */
void axl__fdinfo_proc_util(const struct axl__fdi_sweep *prev, const struct axl__fdi_sweep *cur,
			   int pid, const char *dev, const char *engine,
			   struct axl__fdi_util *out, bool *partial);

/* Bytes of memory kind `kind` in region `region` summed over the clients of pid on
 * device dev. 0 and *bytes when at least one client reports it, AXL_EUNKNOWN otherwise. */
int axl__fdinfo_proc_mem(const struct axl__fdi_sweep *s, int pid, const char *dev,
			 const char *region, enum axl__fdi_mem kind, uint64_t *bytes);

/* The container id in a cgroup path (docker-<id>.scope, cri-containerd-<id>.scope,
 * crio-<id>, /docker/<id>, libpod-<id>): the last run of exactly 64 hex digits. */
bool axl__fdinfo_container_id(const char *cgroup, char *out, size_t cap);

/* A process's name and cgroup, read at path below dirfd ("comm" below /proc/<pid>, or
 * "/proc/<pid>/comm" below AXL__FS_ROOT), into out ("" when not known):
 * axl__proc_comm: its comm, control characters as '?', cut to cap;
 * axl__proc_cgroup: the cgroup v2 path (the "0::" line), or the first line's path on a
 * v1-only host; "" when it does not fit cap or is not text. */
void axl__proc_comm(const struct axl__fs *fs, int dirfd, const char *path, char *out, size_t cap);
void axl__proc_cgroup(const struct axl__fs *fs, int dirfd, const char *path, char *out, size_t cap);

#endif
