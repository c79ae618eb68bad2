/* SPDX-License-Identifier: MIT */
/* PCI vendors of accelerators: display names (as the JSON "vendor") and id prefixes. */
#define _GNU_SOURCE
#include "internal.h"

struct vendor_row {
	uint16_t id;
	const char *name;
	const char *prefix;     /* for GPUs (and everything when npu_prefix is NULL) */
	const char *npu_prefix; /* for NPUs, when the vendor makes both */
};

static const struct vendor_row vendors[] = {
	{0x1002, "AMD", "amdgpu", NULL},
	{0x1022, "AMD", "amdgpu", "amdxdna"},
	{0x10de, "NVIDIA", "nvidia", NULL},
	{0x10ee, "AMD Xilinx", "xilinx", NULL},
	{0x1172, "Intel Altera", "altera", NULL},
	{0x17cb, "Qualcomm", "qaic", NULL},
	{0x19e5, "Huawei", "ascend", NULL},
	{0x1ac1, "Google", "tpu", NULL},
	{0x1ae0, "Google", "tpu", NULL},
	{0x1bcf, "NEC", "nec", NULL},
	{0x1d0f, "AWS", "neuron", NULL},
	{0x1d94, "Hygon", "hygon", NULL},
	{0x1da3, "Habana", "habana", NULL},
	{0x1e52, "Tenstorrent", "tenstorrent", NULL},
	{0x1ed5, "Moore Threads", "mthreads", NULL},
	{0x8086, "Intel", "intel", "intelnpu"},
	{0xcabc, "Cambricon", "cambricon", NULL},
};

static const struct vendor_row *find(int id)
{
	size_t lo = 0, hi = sizeof vendors / sizeof *vendors;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (vendors[mid].id == id)
			return &vendors[mid];
		if (vendors[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *axl__vendor_name(int vendor_id)
{
	const struct vendor_row *v = find(vendor_id);
	return v ? v->name : NULL;
}

const char *axl__vendor_prefix(int vendor_id, axl_family family)
{
	const struct vendor_row *v = find(vendor_id);
	if (!v)
		return "accel";
	if (family == AXL_FAMILY_NPU && v->npu_prefix)
		return v->npu_prefix;
	return v->prefix;
}
