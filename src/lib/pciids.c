/* SPDX-License-Identifier: MIT */
/* Names from pci.ids through libpci, for devices the device database does not know.
 * Loaded at most once per context, on first use, under the context's lock. libpci's
 * default error handler exits the process: ours only logs. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include <pci/pci.h>

#include "internal.h"

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
	struct pci_access *pacc = pci_alloc();
	if (!pacc)
		return NULL;
	/* libpci declares the error hook noreturn; on the name-list path it is only
	 * called to report a malformed pci.ids and returning from it is safe there */
	pacc->error = (__typeof__(pacc->error))quiet;
	pacc->warning = quiet;
	pacc->debug = quiet;
	if (ctx->pci_ids_path)
		pci_set_name_list_path(pacc, ctx->pci_ids_path, 0);
	ctx->pci_access = pacc;
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
		/* PCI_LOOKUP_NO_NUMBERS: NULL instead of "Device 1234" when unknown */
		name = pci_lookup_name(pacc, buf, (int)cap,
				       flags | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB, a, b, c, d);
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
	if (ctx->pci_access)
		pci_cleanup(ctx->pci_access);
	ctx->pci_access = NULL;
}
