/* SPDX-License-Identifier: MIT */
/* Taking a snapshot: the stages of discovery in order, and the inventory's getters. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "capture.h"
#include "sim.h"
#include "../util/parse.h"

void axl__warn(struct axl_inventory *inv, const char *source, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* the same problem reported twice (two devices sharing a file) counts once */
	for (size_t i = 0; i < inv->warnings.n; i++) {
		const struct axl_warning *w = &inv->warnings.v[i];
		if (strcmp(w->message, msg) == 0 && strcmp(w->source, source) == 0 &&
		    ((!w->path && !path) || (w->path && path && strcmp(w->path, path) == 0)))
			return;
	}
	if (inv->warnings.n >= 4096)
		return; /* a pathological tree: keep the document bounded */
	struct axl_warning *w = AXL__VEC_PUSH(inv->warnings);
	if (!w)
		return;
	w->source = axl__arena_strdup(&inv->arena, source);
	w->path = axl__text(inv, path); /* no path: left out */
	w->message = axl__arena_strdup(&inv->arena, msg);
	axl__log(inv->ctx, AXL_LOG_WARNING, "%s: %s%s%s", source, path ? path : "", path ? ": " : "",
		 msg);
}

static const char *errno_text(long e)
{
	switch (-e) {
	case ENOENT: return "missing";
	case EISDIR: return "is a directory, not a file";
	case ELOOP: return "symbolic link loop";
	case EFBIG: return "file too large";
	case EACCES: return "permission denied";
	case EPERM: return "permission denied";
	case EAGAIN: return "not a regular file";
	case ENOTDIR: return "a path component is not a directory";
	case ENAMETOOLONG: return "name too long";
	case EXDEV: return "link leaves the tree";
	case ENODEV: return "no such device";
	case ENXIO: return "no such device or address";
	case EIO: return "input/output error";
	case EINVAL: return "invalid argument (read refused by the driver)";
	default: return strerror((int)-e);
	}
}

bool axl__read_attr(struct axl_inventory *inv, const char *source, int dirfd, const char *dirpath,
		    const char *name, char *buf, size_t cap, unsigned flags)
{
	char path[512];
	long n;
	if (dirfd == AXL__FS_ROOT && dirpath) {
		snprintf(path, sizeof path, "%s/%s", dirpath, name);
		n = axl__fs_read(&inv->ctx->fs, dirfd, path, buf, cap);
	} else {
		n = axl__fs_read(&inv->ctx->fs, dirfd, name, buf, cap);
	}
	if (n < 0 || n == 0) {
		if (n == -ENOENT && !(flags & AXL__RD_REQUIRED))
			return false;
		if (n == -ENODATA || n == -EOPNOTSUPP || n == -ENODEV)
			return false; /* attribute not supported by this device */
		if (n == 0 && (flags & AXL__RD_EMPTY_OK))
			return true;
		snprintf(path, sizeof path, "%s%s%s", dirpath ? dirpath : "", dirpath ? "/" : "", name);
		if (n == 0)
			axl__warn(inv, source, path, "empty file");
		else
			axl__warn(inv, source, path, "%s", errno_text(n));
		return false;
	}
	/* binary junk where text is expected */
	if (!axl__is_text(buf, (size_t)n) || strlen(buf) != (size_t)n) {
		snprintf(path, sizeof path, "%s%s%s", dirpath ? dirpath : "", dirpath ? "/" : "", name);
		axl__warn(inv, source, path, "not text");
		return false;
	}
	char *s = axl__strip(buf);
	if (s != buf)
		memmove(buf, s, strlen(s) + 1);
	if (!*buf && !(flags & AXL__RD_EMPTY_OK)) {
		snprintf(path, sizeof path, "%s%s%s", dirpath ? dirpath : "", dirpath ? "/" : "", name);
		axl__warn(inv, source, path, "empty file");
		return false;
	}
	return true;
}

static void warn_parse(struct axl_inventory *inv, const char *source, const char *dirpath,
		       const char *name, const char *content, int rc)
{
	char path[512];
	snprintf(path, sizeof path, "%s%s%s", dirpath ? dirpath : "", dirpath ? "/" : "", name);
	axl__warn(inv, source, path, "%s: '%.40s%s'", rc == AXL_ERANGE ? "out of range" : "not a number",
		  content, strlen(content) > 40 ? "..." : "");
}

bool axl__read_u64(struct axl_inventory *inv, const char *source, int dirfd, const char *dirpath,
		   const char *name, int base, uint64_t *out, unsigned flags)
{
	char buf[128];
	if (!axl__read_attr(inv, source, dirfd, dirpath, name, buf, sizeof buf, flags))
		return false;
	int rc = axl__parse_u64(buf, base, out);
	if (rc) {
		warn_parse(inv, source, dirpath, name, buf, rc);
		return false;
	}
	return true;
}

bool axl__read_i64(struct axl_inventory *inv, const char *source, int dirfd, const char *dirpath,
		   const char *name, int64_t *out, unsigned flags)
{
	char buf[128];
	if (!axl__read_attr(inv, source, dirfd, dirpath, name, buf, sizeof buf, flags))
		return false;
	int rc = axl__parse_i64(buf, out);
	if (rc) {
		warn_parse(inv, source, dirpath, name, buf, rc);
		return false;
	}
	return true;
}

static void add_timing(struct axl_inventory *inv, const char *stage, double ms)
{
	struct axl_timing *t = AXL__VEC_PUSH(inv->timings);
	if (t) {
		t->stage = stage;
		t->milliseconds = ms;
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
			if ((d->owner && strcmp(be->name, d->owner) == 0) || (be->owns && be->owns(d))) {
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
	add_timing(inv, "sim", axl__now_ms() - t0);
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
	struct axl__scan scan = {ctx, inv, &ctx->fs};
	/* a document of a later version than this axl reads: read as far as understood,
	 * said once per inventory */
	if (ctx->sim && ctx->sim->newer_version)
		axl__warn(inv, "sim", ctx->sim->path, AXL__NEWER_DOC, (long long)ctx->sim->newer_version,
			  AXL__SIM_VERSION);
	if (ctx->capture_newer)
		axl__warn(inv, "capture", ctx->sysroot, "axl-capture/manifest.json: " AXL__NEWER_DOC,
			  (long long)ctx->capture_newer, AXL__CAPTURE_VERSION);
	if (ctx->sim) {
		open_simulated(&scan);
		goto done;
	}

	for (size_t b = 1; b < axl__backend_total; b++)
		if (axl__backends[b]->start && axl__backend_on(ctx, b))
			axl__backends[b]->start(&scan, b);

	double t0 = axl__now_ms();
	axl__host_scan(&scan);
	double t1 = axl__now_ms();
	add_timing(inv, "host", t1 - t0);

	/* backend 0 is the PCI scan */
	if (axl__backend_on(ctx, 0))
		axl__pci_scan(&scan);
	double t2 = axl__now_ms();
	add_timing(inv, "pci", t2 - t1);

	for (size_t b = 1; b < axl__backend_total; b++) {
		const struct axl__backend *be = axl__backends[b];
		if (!axl__backend_on(ctx, b))
			continue;
		double tb = axl__now_ms();
		if (be->enumerate)
			be->enumerate(&scan);
		for (size_t i = 0; i < inv->devs.n; i++) {
			struct axl_device *d = inv->devs.v[i];
			if (be->owns && be->owns(d)) {
				if (!d->owner || strcmp(d->owner, "pci") == 0)
					d->owner = be->name;
				if (be->enrich)
					be->enrich(&scan, d);
			}
		}
		add_timing(inv, be->name, axl__now_ms() - tb);
	}
	filter_disabled(inv);

	double t3 = axl__now_ms();
	for (size_t i = 0; i < inv->devs.n; i++)
		axl__devnodes_scan(&scan, inv->devs.v[i]);
	double t4 = axl__now_ms();
	add_timing(inv, "devnodes", t4 - t3);
	for (size_t i = 0; i < inv->devs.n; i++)
		axl__devicedb_apply(&scan, inv->devs.v[i]);
	double t5 = axl__now_ms();
	add_timing(inv, "devicedb", t5 - t4);

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
	axl__fabric_scan(&scan);
	double t7 = axl__now_ms();
	assign_ids(inv);
	/* after the ids: the reasons name devices by them */
	double tv0 = axl__now_ms();
	axl__visibility_apply(&scan);
	double tv1 = axl__now_ms();
	add_timing(inv, "visibility", tv1 - tv0);
	/* the backends' last word (device-to-device links, ports' remote ids) comes once
	 * every device has its id; its time counts to the backend's stage */
	for (size_t b = 1; b < axl__backend_total; b++) {
		const struct axl__backend *be = axl__backends[b];
		if ((!be->finish && !be->link) || !axl__backend_on(ctx, b))
			continue;
		double tb = axl__now_ms();
		if (be->finish)
			be->finish(&scan);
		if (be->link)
			be->link(&scan, b);
		double ms = axl__now_ms() - tb;
		for (size_t k = 0; k < inv->timings.n; k++)
			if (strcmp(inv->timings.v[k].stage, be->name) == 0)
				inv->timings.v[k].milliseconds += ms;
	}
	double t8 = axl__now_ms();
	axl__links_derive(&scan);
	double t9 = axl__now_ms();
	add_timing(inv, "links", (t9 - t8) + (t6 - t5));
	axl__nics_link(&scan);
	add_timing(inv, "fabric", (t7 - t6) + (axl__now_ms() - t9));

done:
	if (inv->arena.failed) {
		axl_inventory_free(inv);
		return axl__error(AXL_ENOMEM, "out of memory while taking the inventory");
	}
	*out = inv;
	return 0;
}

AXL_API void axl_inventory_free(axl_inventory *inv)
{
	if (!inv)
		return;
	for (size_t b = 1; b < axl__backend_total; b++)
		if (inv->bstate[b] && axl__backends[b]->release)
			axl__backends[b]->release(inv, b);
	for (size_t i = 0; i < inv->devs.n; i++)
		axl__device_free(inv->devs.v[i]);
	AXL__VEC_FREE(inv->devs);
	AXL__VEC_FREE(inv->links);
	AXL__VEC_FREE(inv->warnings);
	AXL__VEC_FREE(inv->pcifns);
	AXL__VEC_FREE(inv->timings);
	AXL__VEC_FREE(inv->switches);
	AXL__VEC_FREE(inv->nics);
	AXL__VEC_FREE(inv->nic_links);
	AXL__VEC_FREE(inv->host.isa);
	AXL__VEC_FREE(inv->host.numa);
	axl__arena_free(&inv->arena);
	free(inv);
}

AXL_API const axl_host *axl_inventory_host(const axl_inventory *inv)
{
	return inv ? &inv->host : NULL;
}

AXL_API size_t axl_inventory_device_count(const axl_inventory *inv) { return inv ? inv->devs.n : 0; }
AXL_API const axl_device *axl_inventory_device(const axl_inventory *inv, size_t i)
{
	return inv && i < inv->devs.n ? inv->devs.v[i] : NULL;
}

static const axl_device *find_in(const struct axl_device *d, const char *key)
{
	const axl_attr keys[] = {AXL_ATTR_ID, AXL_ATTR_UUID, AXL_ATTR_PCI_ADDRESS};
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
		const char *s = axl__str(d, keys[k]);
		if (s && strcasecmp(s, key) == 0)
			return d;
	}
	/* "18:00.0" without the domain (children share their parent's address) */
	const char *pa = axl__str(d, AXL_ATTR_PCI_ADDRESS);
	if (!d->parent && pa && strlen(key) == 7 && strlen(pa) > 7 &&
	    strcasecmp(pa + strlen(pa) - 7, key) == 0)
		return d;
	for (size_t i = 0; i < d->children.n; i++) {
		const axl_device *c = find_in(d->children.v[i], key);
		if (c)
			return c;
	}
	return NULL;
}

AXL_API const axl_device *axl_inventory_find(const axl_inventory *inv, const char *key)
{
	if (!inv || !key)
		return NULL;
	/* a parent first: a PCI address names the physical device, not its partitions */
	for (size_t i = 0; i < inv->devs.n; i++) {
		const axl_device *d = find_in(inv->devs.v[i], key);
		if (d)
			return d;
	}
	return NULL;
}

AXL_API size_t axl_inventory_link_count(const axl_inventory *inv) { return inv ? inv->links.n : 0; }
AXL_API const struct axl_link *axl_inventory_link(const axl_inventory *inv, size_t i)
{
	return inv && i < inv->links.n ? &inv->links.v[i] : NULL;
}
AXL_API size_t axl_inventory_switch_count(const axl_inventory *inv) { return inv ? inv->switches.n : 0; }
AXL_API const struct axl_switch *axl_inventory_switch(const axl_inventory *inv, size_t i)
{
	return inv && i < inv->switches.n ? &inv->switches.v[i] : NULL;
}
AXL_API size_t axl_inventory_nic_count(const axl_inventory *inv) { return inv ? inv->nics.n : 0; }
AXL_API const struct axl_nic *axl_inventory_nic(const axl_inventory *inv, size_t i)
{
	return inv && i < inv->nics.n ? &inv->nics.v[i].pub : NULL;
}
AXL_API size_t axl_inventory_nic_link_count(const axl_inventory *inv) { return inv ? inv->nic_links.n : 0; }
AXL_API const struct axl_link *axl_inventory_nic_link(const axl_inventory *inv, size_t i)
{
	return inv && i < inv->nic_links.n ? &inv->nic_links.v[i] : NULL;
}
AXL_API size_t axl_inventory_warning_count(const axl_inventory *inv) { return inv ? inv->warnings.n : 0; }
AXL_API const struct axl_warning *axl_inventory_warning(const axl_inventory *inv, size_t i)
{
	return inv && i < inv->warnings.n ? &inv->warnings.v[i] : NULL;
}
AXL_API size_t axl_inventory_pci_function_count(const axl_inventory *inv)
{
	return inv && (inv->flags & AXL_INVENTORY_ALL) ? inv->pcifns.n : 0;
}
AXL_API const struct axl_pci_function *axl_inventory_pci_function(const axl_inventory *inv, size_t i)
{
	return i < axl_inventory_pci_function_count(inv) ? &inv->pcifns.v[i].pub : NULL;
}
AXL_API size_t axl_inventory_timing_count(const axl_inventory *inv) { return inv ? inv->timings.n : 0; }
AXL_API const struct axl_timing *axl_inventory_timing(const axl_inventory *inv, size_t i)
{
	return inv && i < inv->timings.n ? &inv->timings.v[i] : NULL;
}

AXL_API void axl_free(void *ptr)
{
	free(ptr);
}
