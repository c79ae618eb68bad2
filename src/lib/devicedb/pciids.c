/* SPDX-License-Identifier: MIT */
/* Names from pci.ids through libpci, for devices the device database does not know.
 *
 * libpci (libpci.so.3, Debian's libpci3) is loaded with dlopen on first use, never linked:
 * a program that lists known devices does not pay for loading it and libudev behind it
 * at every start (ARCHITECTURE.md, "Performance budget"). Only the four functions used are
 * resolved, their types taken from <pci/pci.h> (libpci-dev, a build dependency);
 * libpci.so.3's ABI is stable within its SONAME. $AXL_PCI_LIBRARY (the context's
 * pci_library) loads that file instead. When libpci is missing or unusable, devices the
 * database does not know stay unnamed and an info message says why.
 *
 * The library is loaded at most once per process for each name (vlib's cache, never
 * unloaded); pci.ids is read at most once per context, on first use, under the context's
 * lock. libpci's default error handler exits the process: ours only logs. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <pci/pci.h>

#include "internal.h"
#include "devicedb.h"
#include "vlib.h"

#define PCI_SONAME "libpci.so.3"

struct pci_fns {
	__typeof__(pci_alloc) *alloc;
	__typeof__(pci_set_name_list_path) *set_name_list_path;
	__typeof__(pci_lookup_name) *lookup_name;
	__typeof__(pci_cleanup) *cleanup;
};

#define F(m, name) {offsetof(struct pci_fns, m), {name}}
static const struct axl__vsym symbols[] = {
	F(alloc, "pci_alloc"),
	F(set_name_list_path, "pci_set_name_list_path"),
	F(lookup_name, "pci_lookup_name"),
	F(cleanup, "pci_cleanup"),
};
#undef F

static struct axl__vlib_cache cache = AXL__VLIB_CACHE_INIT;

static bool usable(const void *table, const char *name, char *why, size_t cap)
{
	const struct pci_fns *f = table;
	if (f->alloc && f->set_name_list_path && f->lookup_name && f->cleanup)
		return true;
	snprintf(why, cap, "%s lacks pci_alloc/pci_set_name_list_path/pci_lookup_name/pci_cleanup", name);
	return false;
}

static void quiet(char *msg, ...)
{
	(void)msg;
}

static struct pci_access *get_access(axl_context *ctx)
{
	if (ctx->pci_ids_tried)
		return ctx->pci_access;
	ctx->pci_ids_tried = true;
	if (ctx->flags & AXL_CONTEXT_NO_PCI_IDS)
		return NULL;
	char why[512] = "";
	const char *name = ctx->pci_library ? ctx->pci_library : PCI_SONAME;
	const struct pci_fns *f = axl__vlib_load(&cache, ctx->pci_library ? ctx->pci_library : "", &name, 1,
						 symbols, sizeof symbols / sizeof *symbols, sizeof(struct pci_fns),
						 usable, why, sizeof why, NULL);
	if (!f) {
		axl__log(ctx, AXL_LOG_INFO, "no names from pci.ids (%s; Debian package libpci3): %s", PCI_SONAME,
			 why);
		return NULL;
	}
	struct pci_access *pacc = f->alloc();
	if (!pacc)
		return NULL;
	/* libpci declares the error hook noreturn; on the name-list path it is only
	 * called to report a malformed pci.ids and returning from it is safe there */
	pacc->error = (__typeof__(pacc->error))quiet;
	pacc->warning = quiet;
	pacc->debug = quiet;
	if (ctx->pci_ids_path)
		f->set_name_list_path(pacc, ctx->pci_ids_path, 0);
	ctx->pci_access = pacc;
	ctx->pci_fns = f;
	return pacc;
}

static const char *lookup(axl_context *ctx, int flags, char *buf, size_t cap, int a, int b, int c,
			  int d)
{
	if (cap == 0)
		return NULL;
	buf[0] = '\0';
	pthread_mutex_lock(&ctx->lock);
	struct pci_access *pacc = get_access(ctx);
	const char *name = NULL;
	if (pacc) {
		const struct pci_fns *f = ctx->pci_fns;
		/* PCI_LOOKUP_NO_NUMBERS: NULL instead of "Device 1234" when unknown */
		name = f->lookup_name(pacc, buf, (int)cap, flags | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB, a,
				      b, c, d);
		if (name && name != buf) {
			snprintf(buf, cap, "%s", name);
			name = buf;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	return name && *name ? name : NULL;
}

const char *axl__pciids_device(axl_context *ctx, int vendor, int device, int subvendor,
			       int subdevice, char *buf, size_t cap)
{
	(void)subvendor;
	(void)subdevice;
	if (vendor < 0 || device < 0)
		return NULL;
	return lookup(ctx, PCI_LOOKUP_DEVICE, buf, cap, vendor, device, 0, 0);
}

const char *axl__pciids_vendor(axl_context *ctx, int vendor, char *buf, size_t cap)
{
	if (vendor < 0)
		return NULL;
	return lookup(ctx, PCI_LOOKUP_VENDOR, buf, cap, vendor, 0, 0, 0);
}

void axl__pciids_free(axl_context *ctx)
{
	if (ctx->pci_access) {
		const struct pci_fns *f = ctx->pci_fns;
		f->cleanup(ctx->pci_access);
	}
	ctx->pci_access = NULL;
	ctx->pci_fns = NULL;
}
