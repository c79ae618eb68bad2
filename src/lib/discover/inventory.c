/* SPDX-License-Identifier: MIT */
/* Taking a snapshot: the stages of discovery in order, and the inventory's getters. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "util/jsonr.h"
#include "visibility.h"
#include "discover.h"
#include "devicedb.h"
#include "capture.h"
#include "sim.h"
#include "util/parse.h"

static void add_timing(struct axl_inventory *inv, const char *stage, double ms, uint64_t syscalls)
{
	struct axl_timing *t = AXL__VEC_PUSH(inv->timings);
	if (t) {
		t->stage = stage;
		t->milliseconds = ms;
		t->syscalls = syscalls;
	}
}

/* Devices sorted by PCI address (KFD-only and non-PCI devices after, by path). */
static int cmp_dev(const void *a, const void *b)
{
	const struct axl_device *x = *(struct axl_device *const *)a;
	const struct axl_device *y = *(struct axl_device *const *)b;
	if (x->attr[AXL_ATTR_FAMILY].v.i == AXL_FAMILY_CPU || y->attr[AXL_ATTR_FAMILY].v.i == AXL_FAMILY_CPU) {
		bool xc = x->attr[AXL_ATTR_FAMILY].v.i == AXL_FAMILY_CPU;
		bool yc = y->attr[AXL_ATTR_FAMILY].v.i == AXL_FAMILY_CPU;
		if (xc != yc)
			return xc ? 1 : -1;
	}
	if (x->has_pci != y->has_pci)
		return x->has_pci ? -1 : 1;
	unsigned kx[4] = {x->domain, x->bus, x->devno, x->fn};
	unsigned ky[4] = {y->domain, y->bus, y->devno, y->fn};
	for (int i = 0; i < 4; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	const char *px = x->syspath ? x->syspath : "", *py = y->syspath ? y->syspath : "";
	return strcmp(px, py);
}

/* Children (partitions that exist now) are named after their parent. */
static void child_ids(struct axl_inventory *inv, struct axl_device *d)
{
	for (size_t i = 0; i < d->children.n; i++) {
		struct axl_device *c = d->children.v[i];
		char *id = axl__arena_printf(&inv->arena, "%s/%s", axl_device_id(d), c->child_suffix);
		if (id) {
			c->attr[AXL_ATTR_ID].v.s = id;
			c->attr[AXL_ATTR_ID].src = AXL_SOURCE_DERIVED;
		}
		child_ids(inv, c);
	}
}

static void assign_ids(struct axl_inventory *inv)
{
	if (inv->devs.n > 1)
		qsort(inv->devs.v, inv->devs.n, sizeof *inv->devs.v, cmp_dev);
	for (size_t i = 0; i < inv->devs.n; i++) {
		struct axl_device *d = inv->devs.v[i];
		int64_t index = 0;
		for (size_t j = 0; j < i; j++)
			if (strcmp(inv->devs.v[j]->prefix, d->prefix) == 0)
				index++;
		axl__set_int(d, AXL_ATTR_INDEX, AXL_SOURCE_DERIVED, index);
		char *id = axl__arena_printf(&inv->arena, "%s:%lld", d->prefix, (long long)index);
		if (id) {
			d->attr[AXL_ATTR_ID].v.s = id;
			d->attr[AXL_ATTR_ID].src = AXL_SOURCE_DERIVED;
		}
		child_ids(inv, d);
	}
}

/* Drop devices whose owning backend is disabled. */
static void filter_disabled(struct axl_inventory *inv)
{
	size_t w = 0;
	for (size_t i = 0; i < inv->devs.n; i++) {
		struct axl_device *d = inv->devs.v[i];
		/* the owner is the first vendor backend that claims the device, whether it
		 * ran or not; devices no vendor claims belong to "pci" */
		bool keep = axl__backend_on(inv->ctx, 0);
		for (size_t b = 1; b < axl__backend_total; b++) {
			const struct axl__backend *be = axl__backends[b];
			if ((d->owner && strcmp(be->name, d->owner) == 0) || axl__backend_owns(be, d)) {
				keep = axl__backend_on(inv->ctx, b);
				break;
			}
		}
		if (keep) {
			inv->devs.v[w++] = d;
		} else {
			for (size_t k = 0; k < inv->pcifns.n; k++)
				if (inv->pcifns.v[k].dev == d) {
					inv->pcifns.v[k].dev = NULL;
					inv->pcifns.v[k].pub.accelerator = 0;
					inv->pcifns.v[k].pub.reason = "backend disabled";
				}
			axl__device_free(d);
		}
	}
	inv->devs.n = w;
}

/* With AXL_INVENTORY_ALL, the host CPU as a device of family "cpu". */
static void add_cpu_device(struct axl_inventory *inv)
{
	struct axl_device *d = axl__device_new(inv, NULL, "cpu");
	if (!d)
		return;
	const struct axl_host *h = &inv->host;
	axl__set_int(d, AXL_ATTR_FAMILY, AXL_SOURCE_DERIVED, AXL_FAMILY_CPU);
	if (h->attr[AXL_HOST_CPU_MODEL].src)
		axl__set_str(inv, d, AXL_ATTR_MODEL, (axl_source)h->attr[AXL_HOST_CPU_MODEL].src,
			     h->attr[AXL_HOST_CPU_MODEL].v.s);
	if (h->attr[AXL_HOST_CPU_VENDOR].src)
		axl__set_str(inv, d, AXL_ATTR_VENDOR, (axl_source)h->attr[AXL_HOST_CPU_VENDOR].src,
			     h->attr[AXL_HOST_CPU_VENDOR].v.s);
	if (h->attr[AXL_HOST_CPU_ARCH].src)
		axl__set_str(inv, d, AXL_ATTR_ARCHITECTURE, (axl_source)h->attr[AXL_HOST_CPU_ARCH].src,
			     h->attr[AXL_HOST_CPU_ARCH].v.s);
	if (h->attr[AXL_HOST_MEMORY_TOTAL].src)
		axl__set_int(d, AXL_ATTR_MEMORY_TOTAL, (axl_source)h->attr[AXL_HOST_MEMORY_TOTAL].src,
			     h->attr[AXL_HOST_MEMORY_TOTAL].v.i);
	if (h->attr[AXL_HOST_CPU_CORES].src)
		axl__add_cu(inv, d, "core", h->attr[AXL_HOST_CPU_CORES].v.i,
			    (axl_source)h->attr[AXL_HOST_CPU_CORES].src);
	if (h->attr[AXL_HOST_CPU_THREADS].src)
		axl__add_cu(inv, d, "thread", h->attr[AXL_HOST_CPU_THREADS].v.i,
			    (axl_source)h->attr[AXL_HOST_CPU_THREADS].src);
}

/* A simulated node: the spec and the database, in the order discovery takes (sim_node.c). */
static void open_simulated(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	double t0 = axl__now_ms();
	axl__sim_inventory(scan);
	if (inv->flags & AXL_INVENTORY_ALL)
		add_cpu_device(inv);
	assign_ids(inv);
	axl__visibility_apply(scan);
	axl__sim_links(scan);
	axl__links_derive(scan);
	add_timing(inv, "sim", axl__now_ms() - t0, 0);
}

AXL_API int axl_inventory_open(axl_inventory **out, axl_context *ctx, unsigned flags)
{
	if (!out || !ctx)
		return axl__error(AXL_EINVAL, "axl_inventory_open: NULL argument");
	*out = NULL;
	struct axl_inventory *inv = calloc(1, sizeof *inv);
	if (!inv)
		return axl__error(AXL_ENOMEM, "out of memory");
	inv->ctx = ctx;
	inv->flags = flags;
	struct axl__scan scan = {.ctx = ctx, .inv = inv, .fs = &ctx->fs};
	/* a document of a later version than this axl reads: read as far as understood,
	 * said once per inventory */
	if (ctx->sim && ctx->sim->newer_version)
		axl__warn(inv, "sim", ctx->sim->path, AXL__NEWER_DOC, (long long)ctx->sim->newer_version,
			  AXL__SIM_VERSION);
	if (ctx->capture_newer)
		axl__warn(inv, "capture", ctx->sysroot, "axl-capture/manifest.json: " AXL__NEWER_DOC,
			  (long long)ctx->capture_newer, AXL__CAPTURE_VERSION);
	/* the process's visibility variables describe this machine, not the node described
	 * (open.c): said once, with the way to apply them */
	if (ctx->vis_unapplied)
		axl__warn(inv, AXL__VIS_SRC, ctx->sim ? ctx->sim->path : ctx->sysroot,
			  "%s set in the environment %s not applied to %s; --env %s=... judges visibility on it "
			  "(axl_context_options.env)",
			  ctx->vis_unapplied, ctx->vis_unapplied_n > 1 ? "are" : "is",
			  ctx->sim ? "a simulated node" : "a re-rooted tree (another node's)",
			  ctx->vis_unapplied_n > 1 ? "NAME" : ctx->vis_unapplied);
	if (ctx->sim) {
		open_simulated(&scan);
		goto done;
	}

	for (size_t b = 1; b < axl__backend_total; b++)
		if (axl__backends[b]->discover && axl__backends[b]->discover->start && axl__backend_on(ctx, b))
			axl__backends[b]->discover->start(&scan, axl__backends[b]);

	/* each stage's system calls through the seam: the count after it less the count
	 * before it */
	const struct axl__fs *fs = scan.fs;
	unsigned long c0 = axl__fs_calls(fs);
	double t0 = axl__now_ms();
	axl__host_scan(&scan);
	double t1 = axl__now_ms();
	unsigned long c1 = axl__fs_calls(fs);
	add_timing(inv, "host", t1 - t0, c1 - c0);

	/* backend 0 is the PCI scan */
	if (axl__backend_on(ctx, 0))
		axl__pci_scan(&scan);
	double t2 = axl__now_ms();
	unsigned long c2 = axl__fs_calls(fs);
	add_timing(inv, "pci", t2 - t1, c2 - c1);

	for (size_t b = 1; b < axl__backend_total; b++) {
		const struct axl__backend *be = axl__backends[b];
		if (!axl__backend_on(ctx, b))
			continue;
		double tb = axl__now_ms();
		unsigned long cb = axl__fs_calls(fs);
		const struct axl__discover_ops *ops = be->discover;
		if (ops && ops->enumerate)
			ops->enumerate(&scan, be);
		for (size_t i = 0; i < inv->devs.n; i++) {
			struct axl_device *d = inv->devs.v[i];
			if (axl__backend_owns(be, d)) {
				if (!d->owner || strcmp(d->owner, "pci") == 0)
					d->owner = be->name;
				if (ops->enrich)
					ops->enrich(&scan, be, d);
			}
		}
		add_timing(inv, be->name, axl__now_ms() - tb, axl__fs_calls(fs) - cb);
	}
	filter_disabled(inv);

	double t3 = axl__now_ms();
	unsigned long c3 = axl__fs_calls(fs);
	for (size_t i = 0; i < inv->devs.n; i++)
		axl__devnodes_scan(&scan, inv->devs.v[i]);
	double t4 = axl__now_ms();
	unsigned long c4 = axl__fs_calls(fs);
	add_timing(inv, "devnodes", t4 - t3, c4 - c3);
	for (size_t i = 0; i < inv->devs.n; i++)
		axl__devicedb_apply(&scan, inv->devs.v[i]);
	double t5 = axl__now_ms();
	unsigned long c5 = axl__fs_calls(fs);
	add_timing(inv, "devicedb", t5 - t4, c5 - c4);

	if (flags & AXL_INVENTORY_ALL) {
		add_cpu_device(inv);
		for (size_t i = 0; i < inv->pcifns.n; i++) {
			struct axl_pci_function *f = &inv->pcifns.v[i].pub;
			char buf[256];
			const char *name = axl__pciids_device(ctx, f->vendor_id, f->device_id, -1, -1, buf, sizeof buf);
			if (name)
				f->name = axl__arena_strdup(&inv->arena, name);
		}
	}
	double t6 = axl__now_ms();
	unsigned long c6 = axl__fs_calls(fs);
	axl__fabric_scan(&scan);
	double t7 = axl__now_ms();
	unsigned long c7 = axl__fs_calls(fs);
	assign_ids(inv);
	/* after the ids: the reasons name devices by them */
	double tv0 = axl__now_ms();
	unsigned long cv0 = axl__fs_calls(fs);
	axl__visibility_apply(&scan);
	double tv1 = axl__now_ms();
	add_timing(inv, "visibility", tv1 - tv0, axl__fs_calls(fs) - cv0);
	/* the backends' last word (device-to-device links, ports' remote ids) comes once
	 * every device has its id; its time counts to the backend's stage */
	for (size_t b = 1; b < axl__backend_total; b++) {
		const struct axl__backend *be = axl__backends[b];
		const struct axl__discover_ops *ops = be->discover;
		if (!ops || (!ops->finish && !ops->link) || !axl__backend_on(ctx, b))
			continue;
		double tb = axl__now_ms();
		unsigned long cb = axl__fs_calls(fs);
		if (ops->finish)
			ops->finish(&scan, be);
		if (ops->link)
			ops->link(&scan, be);
		double ms = axl__now_ms() - tb;
		for (size_t k = 0; k < inv->timings.n; k++)
			if (strcmp(inv->timings.v[k].stage, be->name) == 0) {
				inv->timings.v[k].milliseconds += ms;
				inv->timings.v[k].syscalls += axl__fs_calls(fs) - cb;
			}
	}
	double t8 = axl__now_ms();
	unsigned long c8 = axl__fs_calls(fs);
	axl__links_derive(&scan);
	double t9 = axl__now_ms();
	unsigned long c9 = axl__fs_calls(fs);
	add_timing(inv, "links", (t9 - t8) + (t6 - t5), (c9 - c8) + (c6 - c5));
	axl__nics_link(&scan);
	add_timing(inv, "fabric", (t7 - t6) + (axl__now_ms() - t9), (c7 - c6) + (axl__fs_calls(fs) - c9));

done:
	if (inv->arena.failed) {
		axl_inventory_free(inv);
		return axl__error(AXL_ENOMEM, "out of memory while taking the inventory");
	}
	*out = inv;
	return 0;
}
