/* SPDX-License-Identifier: MIT */
/*
 * The one driver of every vendor-library backend (NVML, ROCm SMI, Level Zero, ...). A
 * library is described once (struct axl__vdrv): its names, its symbol table, its job (what
 * the worker collects), its queries (collect, in the worker) and its apply step (on the
 * inventory's thread). The backend hooks follow from that description:
 *   start    a wedged library is not used again; a re-rooted tree replays the capture's
 *            answers (axl-capture/<name>.jsonl), else the library is loaded (only where its
 *            kernel driver is, or when the row's libs->env names one) and recorded into
 *            a capture when one is being taken; the worker starts (vjob.h);
 *   enumerate  waits for it under the deadline, hands its records to the capture and its
 *            warnings to the inventory, then the library's apply step;
 *   link     the library's links, once ids are assigned;
 *   release  the worker finishes alone when it was not waited for.
 * A backend's discover table is then `AXL__VDRV_HOOKS(its_descriptor, prefix)`, its row
 * `.discover = &prefix##_discover` (core/backend.h).
 */
#ifndef AXL_VDRV_H
#define AXL_VDRV_H

#include <stdbool.h>
#include <stddef.h>

#include "backend.h"
#include "vcall.h"
#include "vlib.h"

/* What every library's job starts with (its first member, named w). */
struct axl__vdrv;
struct axl__vwork {
	const struct axl__vdrv *d; /* its library's */
	struct axl__vq q;          /* its calls */
	struct axl__vwarn warn;    /* its warnings (a worker must not touch the inventory) */
	double ms;                 /* how long the calls took */
};
#define axl__vwork_warn(j, ...) axl__vwarn_add(&(j)->w.warn, __VA_ARGS__)

/* When the library cannot be loaded, say so: */
enum axl__vdrv_quiet {
	AXL__VDRV_WARN,       /* always (the kernel driver is there, the library should be) */
	AXL__VDRV_WARN_THERE, /* unless no file of the library is installed at all */
	AXL__VDRV_WARN_ASKED, /* only when the row's libs->env named it */
};

struct axl__vdrv {
	const char *name;                /* the backend's: "nvml" (captures, warnings, wedged) */
	const char *display;             /* in messages: "NVML" */
	const char *devices;             /* described without it after a timeout: "NVIDIA GPUs" */
	const char *timing;              /* the inventory's timing stage: "nvml.calls" */
	const struct axl__vlibrary *lib; /* the library (vlib.h) */
	enum axl__vdrv_quiet quiet;
	/* its calls: what a call nobody recorded answers, how many handles are named */
	int missing;
	size_t max_handles;
	/* its job: a struct starting with struct axl__vwork, job_size bytes (zeroed) */
	size_t job_size;
	/* Is the kernel driver here (no library asked for)? NULL: always try. */
	bool (*present)(const struct axl__fs *fs);
	/* Before the worker starts, on the caller's thread: what it needs from the scan or
	 * the context (j->w.q.v.mode says live or replay). Optional. */
	void (*prepare)(struct axl__scan *scan, const struct axl__backend *self, void *job);
	/* The worker: every call (must not touch the inventory or the context). */
	void (*collect)(void *job);
	/* Free what the job allocated (not the job). Optional. */
	void (*fini)(void *job);
	/* After a successful wait: the library's answers into the inventory. Report its
	 * init's failure and return false, or return true with *n the library's devices:
	 * dev[] (n entries, NULL not matched) is then made and apply fills it. */
	bool (*ready)(struct axl__scan *scan, void *job, size_t *n);
	void (*apply)(struct axl__scan *scan, void *job, struct axl_device **dev);
	/* Links, after ids are assigned. Optional. */
	void (*link)(struct axl__scan *scan, void *job, struct axl_device **dev);
};

/* The hooks (d: the descriptor of the backend whose row is self). */
void axl__vdrv_start(const struct axl__vdrv *d, struct axl__scan *scan, const struct axl__backend *self);
int axl__vdrv_enumerate(const struct axl__vdrv *d, struct axl__scan *scan, const struct axl__backend *self);
void axl__vdrv_link(struct axl__scan *scan, const struct axl__backend *self);
void axl__vdrv_release(struct axl_inventory *inv, const struct axl__backend *self);
/* The job the inventory's worker collected and applied, NULL when there is none (the
 * library was not used or did not answer); *dev then maps its devices to the inventory's. */
void *axl__vdrv_job(const struct axl_inventory *inv, const struct axl__backend *self, struct axl_device ***dev);

/* The hooks of a backend driven by descriptor D (a static const struct axl__vdrv), and
 * its discover table, prefix##_discover, that they fill. */
#define AXL__VDRV_HOOKS(D, prefix)                                                \
	static void prefix##_start(struct axl__scan *scan, const struct axl__backend *self)           \
	{                                                                         \
		axl__vdrv_start(&(D), scan, self);                                \
	}                                                                         \
	static int prefix##_enumerate(struct axl__scan *scan, const struct axl__backend *self)        \
	{                                                                         \
		return axl__vdrv_enumerate(&(D), scan, self);                     \
	}                                                                         \
	/* no owns: it enriches another backend's devices */                     \
	static const struct axl__discover_ops prefix##_discover = {               \
		.start = prefix##_start,                                          \
		.enumerate = prefix##_enumerate,                                  \
		.link = axl__vdrv_link,                                           \
		.release = axl__vdrv_release,                                     \
	};

#endif
