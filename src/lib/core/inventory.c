/* SPDX-License-Identifier: MIT */
/* The inventory object: its getters and its release (discover/inventory.c builds it). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend.h"

void **axl__backend_state(struct axl_inventory *inv, const struct axl__backend *be)
{
	size_t b = axl__backend_slot(be);
	return b < axl__backend_total ? &inv->bstate[b] : NULL;
}

void *axl__backend_state_of(const struct axl_inventory *inv, const struct axl__backend *be)
{
	size_t b = axl__backend_slot(be);
	return b < axl__backend_total ? inv->bstate[b] : NULL;
}

AXL_API void axl_inventory_free(axl_inventory *inv)
{
	if (!inv)
		return;
	for (size_t b = 1; b < axl__backend_total; b++)
		if (inv->bstate[b] && axl__backends[b]->discover && axl__backends[b]->discover->release)
			axl__backends[b]->discover->release(inv, axl__backends[b]);
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
