/* SPDX-License-Identifier: MIT */
/*
 * PCI vendors of accelerators: display names (as the JSON "vendor") and id prefixes. Each
 * backend lists the vendors it speaks for (struct axl__backend.pci_vendors); the few
 * makers of accelerators that no backend reads yet are listed here.
 */
#define _GNU_SOURCE
#include "backend.h"

static const struct axl__pci_vendor no_backend[] = {
	{.id = 0x1bcf, .name = "NEC", .prefix = "nec"},
	{.id = 0x1d94, .name = "Hygon", .prefix = "hygon"},
	{.id = 0x1ed5, .name = "Moore Threads", .prefix = "mthreads"},
	{.id = 0xcabc, .name = "Cambricon", .prefix = "cambricon"},
	{0},
};

static const struct axl__pci_vendor *in_list(const struct axl__pci_vendor *v, int id)
{
	for (; v && v->id; v++)
		if (v->id == id)
			return v;
	return NULL;
}

const struct axl__pci_vendor *axl__pci_vendor(int id)
{
	if (id <= 0 || id > 0xffff)
		return NULL;
	for (size_t b = 0; b < axl__backend_total; b++) {
		const struct axl__backend_facts *facts = axl__backends[b]->facts;
		const struct axl__pci_vendor *v = in_list(facts ? facts->pci_vendors : NULL, id);
		if (v)
			return v;
	}
	return in_list(no_backend, id);
}

const char *axl__vendor_name(int vendor_id)
{
	const struct axl__pci_vendor *v = axl__pci_vendor(vendor_id);
	return v ? v->name : NULL;
}

const char *axl__vendor_prefix(int vendor_id, axl_family family)
{
	const struct axl__pci_vendor *v = axl__pci_vendor(vendor_id);
	if (!v)
		return "accel";
	if (family == AXL_FAMILY_NPU && v->npu_prefix)
		return v->npu_prefix;
	return v->prefix;
}
