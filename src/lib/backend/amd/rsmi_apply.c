/* SPDX-License-Identifier: MIT */
/*
 * What ROCm SMI said, onto the inventory (main thread). ROCm SMI reads the same sysfs
 * files the amdgpu backend reads (mem_info_*, pp_dpm_*, hwmon power1_cap*, the KFD
 * topology, current_*_partition), at a later moment: where the amdgpu backend has a
 * value, it stays, and ROCm SMI only fills what is unknown, without exception. The
 * model name goes further: ROCm SMI's rsmi_dev_name_get is the board's FRU product name
 * or the pci.ids name, so it names the GPU only when neither sysfs nor axl's device
 * database does.
 *
 * Every value is checked before it is believed: a library that returns nonsense (a
 * clock of 4 THz, more VRAM used than there is, a name full of control characters, a
 * BDF with its reserved bits set) costs that value and a warning, nothing else.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "rsmi_job.h"
#include "devicedb.h"

#define SRC "rocm-smi"
static const axl_source R = AXL_SOURCE_ROCM_SMI;

/* A string ROCm SMI returned, if it is text: no control characters, not "N/A". */
static const char *text(struct axl_inventory *inv, unsigned i, const char *what, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			axl__warn(inv, SRC, NULL, "GPU %u: %s holds control characters; ignored", i, what);
			return NULL;
		}
	}
	if (!s[0] || strcmp(s, "N/A") == 0)
		return NULL;
	return s;
}

/* rsmi_dev_name_get answers the PCI device id in hex ("0x73df") when pci.ids does not
 * know the GPU: that is no name. */
static bool hex_only(const char *s)
{
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2])
		return false;
	for (s += 2; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))
			return false;
	return true;
}

static int64_t mhz(uint64_t hz)
{
	return (int64_t)((hz + 500000) / 1000000);
}

/* One frequency table onto a current and a highest clock (MHz). */
static void apply_clock(struct axl_inventory *inv, unsigned i, struct axl_device *dev,
			const struct axl__rsmi_freq *f, const char *what, axl_attr cur, axl_attr max)
{
	if (f->num == 0)
		return; /* no levels: nothing known */
	if (f->deep_sleep > 1) {
		axl__warn(inv, SRC, NULL, "GPU %u: a %s clock table whose deep-sleep flag is %u? ignored", i, what,
			  f->deep_sleep);
		return;
	}
	if (f->num > AXL_RSMI_FREQ_V6) {
		axl__warn(inv, SRC, NULL, "GPU %u: %u %s clock levels? ignored", i, f->num, what);
		return;
	}
	int64_t top = 0;
	for (uint32_t k = 0; k < f->num; k++) {
		/* a level of 0 MHz is a gated clock (RDNA GFXOFF; pp_dpm_sclk says "0Mhz" too) */
		int64_t m = mhz(f->hz[k]);
		if (m >= 100000) {
			axl__warn(inv, SRC, NULL, "GPU %u: a %s clock level of %llu Hz? ignored", i, what,
				  (unsigned long long)f->hz[k]);
			return;
		}
		if (m > top)
			top = m;
	}
	/* current beyond the table: no level is current (a power-gated domain) */
	if (f->current < f->num)
		axl__fill_int(dev, cur, R, mhz(f->hz[f->current]));
	if (top > 0)
		axl__fill_int(dev, max, R, top);
}

static void apply_partition(struct axl_inventory *inv, unsigned i, struct axl_device *dev, const char *tech,
			    const char *mode, const char *const *valid, const char *what)
{
	bool ok = false;
	for (size_t k = 0; valid[k] && !ok; k++)
		ok = strcmp(mode, valid[k]) == 0;
	if (!ok) {
		axl__warn(inv, SRC, NULL, "GPU %u: %s partition mode '%.16s'? ignored", i, what, mode);
		return;
	}
	bool existed = false;
	for (size_t k = 0; k < dev->parts.n; k++)
		existed |= strcmp(dev->parts.v[k].pub.technology, tech) == 0;
	struct axl__part *p = axl__add_part(inv, dev, tech, R);
	if (!p || p->pub.mode)
		return; /* sysfs (current_*_partition) or the KFD said it already */
	p->pub.mode = axl__text(inv, mode);
	if (!existed)
		p->pub.source = R;
}

/* Does the device database name this GPU? Then its name beats ROCm SMI's. */
static bool db_names(struct axl__scan *scan, const struct axl_device *dev, const char *name)
{
	if (!scan->ctx->devicedb_enabled)
		return false;
	if (name && axl__db_find_name(name))
		return true;
	return axl__known(dev, AXL_ATTR_VENDOR_ID) && axl__known(dev, AXL_ATTR_DEVICE_ID) &&
	       axl__db_lookup((int)axl__int(dev, AXL_ATTR_VENDOR_ID, -1), (int)axl__int(dev, AXL_ATTR_DEVICE_ID, -1),
			      (int)axl__int(dev, AXL_ATTR_SUBSYSTEM_VENDOR_ID, -1),
			      (int)axl__int(dev, AXL_ATTR_SUBSYSTEM_DEVICE_ID, -1),
			      (int)axl__int(dev, AXL_ATTR_REVISION, -1));
}

static bool owned_by_amdgpu(const struct axl_device *d)
{
	const char *drv = axl__str(d, AXL_ATTR_DRIVER);
	return (d->prefix && strcmp(d->prefix, "amdgpu") == 0) || (drv && strcmp(drv, "amdgpu") == 0);
}

/* The inventory device of ROCm SMI device i, created when the PCI scan did not see it;
 * NULL for a partition or a device that cannot be placed. */
static struct axl_device *place(struct axl_inventory *inv, struct rs_job *j, unsigned i,
				struct axl_device **devs)
{
	const struct rs_dev *d = &j->devs[i];
	uint64_t b = d->bdf;
	if (b & 0x0fff0000u) {
		axl__warn(inv, SRC, NULL, "GPU %u: BDF id 0x%llx has reserved bits set; GPU skipped", i,
			  (unsigned long long)b);
		return NULL;
	}
	unsigned dom = (unsigned)(b >> 32), bus = (unsigned)(b >> 8) & 0xff, dv = (unsigned)(b >> 3) & 0x1f,
		 fn = (unsigned)b & 7;
	if (d->partition || dom > 0xffff)
		return NULL; /* a partition; or a domain no PCI address of axl's holds */
	struct axl_device *dev = axl__find_pci(inv, dom, bus, dv, fn);
	if (!dev && fn) {
		/* "the partition ID may be stored in the function bits" (rocm_smi.h): a
		 * partition of the GPU at function 0 */
		struct axl_device *gpu = axl__find_pci(inv, dom, bus, dv, 0);
		if (gpu && owned_by_amdgpu(gpu))
			return NULL;
	}
	for (unsigned k = 0; k < i && dev; k++)
		if (devs[k] == dev)
			return NULL; /* a second index for one function: the first answers */
	if (dev)
		return dev;
	/* ROCm SMI sees a GPU that the PCI scan did not (a container without /sys) */
	char addr[32];
	snprintf(addr, sizeof addr, "%04x:%02x:%02x.%u", dom, bus, dv, fn);
	dev = axl__device_new(inv, "amdgpu", "amdgpu");
	if (!dev)
		return NULL;
	dev->has_pci = true;
	dev->domain = dom;
	dev->bus = bus;
	dev->devno = dv;
	dev->fn = fn;
	axl__set_str(inv, dev, AXL_ATTR_PCI_ADDRESS, R, addr);
	axl__set_int(dev, AXL_ATTR_FAMILY, R, AXL_FAMILY_GPU);
	axl__set_str(inv, dev, AXL_ATTR_DRIVER, AXL_SOURCE_DERIVED, "amdgpu");
	axl__set_str(inv, dev, AXL_ATTR_VENDOR, AXL_SOURCE_DERIVED, "AMD");
	return dev;
}

static void apply_dev(struct axl__scan *scan, struct rs_job *j, unsigned i, struct axl_device **devs,
		      const char *driver)
{
	struct axl_inventory *inv = scan->inv;
	const struct rs_dev *d = &j->devs[i];
	if (!d->has_bdf)
		return;
	struct axl_device *dev = place(inv, j, i, devs);
	if (!dev)
		return;
	devs[i] = dev;

	/* ids: ROCm SMI lists AMD GPUs only */
	if (d->has_u16[RSQ_VENDOR_ID] && d->u16[RSQ_VENDOR_ID] != 0x1002) {
		axl__warn(inv, SRC, NULL, "GPU %u: PCI vendor id 0x%04x is not AMD's; ids ignored", i,
			  d->u16[RSQ_VENDOR_ID]);
	} else {
		if (d->has_u16[RSQ_VENDOR_ID])
			axl__fill_int(dev, AXL_ATTR_VENDOR_ID, R, 0x1002);
		if (d->has_u16[RSQ_DEVICE_ID] && d->u16[RSQ_DEVICE_ID] && d->u16[RSQ_DEVICE_ID] < 0xffff)
			axl__fill_int(dev, AXL_ATTR_DEVICE_ID, R, d->u16[RSQ_DEVICE_ID]);
		if (d->has_u16[RSQ_REVISION] && d->u16[RSQ_REVISION] <= 0xff)
			axl__fill_int(dev, AXL_ATTR_REVISION, R, d->u16[RSQ_REVISION]);
	}

	/* identity */
	const char *name = NULL, *s;
	if (d->has_str[RSQ_NAME] && (s = text(inv, i, "the name", d->str[RSQ_NAME])) && !hex_only(s))
		name = s;
	else if (d->has_str[RSQ_BRAND] && (s = text(inv, i, "the brand", d->str[RSQ_BRAND])) && !hex_only(s))
		name = s;
	if (name && !axl__known(dev, AXL_ATTR_MODEL) && !db_names(scan, dev, name))
		axl__set_str(inv, dev, AXL_ATTR_MODEL, R, name);
	if (d->has_str[RSQ_SERIAL] && (s = text(inv, i, "the serial number", d->str[RSQ_SERIAL])))
		axl__fill_str(inv, dev, AXL_ATTR_SERIAL, R, s);
	if (d->has_str[RSQ_VBIOS] && (s = text(inv, i, "the VBIOS version", d->str[RSQ_VBIOS])))
		axl__fill_str(inv, dev, AXL_ATTR_VBIOS_VERSION, R, s);
	if (d->has_unique_id && d->unique_id) {
		/* the format of the amdgpu backend (sysfs unique_id, KFD unique_id) */
		char uuid[40];
		snprintf(uuid, sizeof uuid, "GPU-%016llx", (unsigned long long)d->unique_id);
		axl__fill_str(inv, dev, AXL_ATTR_UUID, R, uuid);
	}
	if (driver)
		axl__fill_str(inv, dev, AXL_ATTR_DRIVER_VERSION, R, driver);

	/* memory (bytes) */
	const uint64_t limit = 1ull << 50;
	uint64_t total = 0;
	if (d->has_mem_total[RS_MEM_VRAM]) {
		total = d->mem_total[RS_MEM_VRAM];
		if (total > 0 && total < limit) {
			axl__fill_int(dev, AXL_ATTR_MEMORY_TOTAL, R, (int64_t)total);
		} else {
			axl__warn(inv, SRC, NULL, "GPU %u: VRAM of %llu bytes? ignored", i, (unsigned long long)total);
			total = 0;
		}
	}
	if (total && d->has_mem_used[RS_MEM_VRAM]) {
		if (d->mem_used[RS_MEM_VRAM] <= total)
			axl__fill_int(dev, AXL_ATTR_MEMORY_USED, R, (int64_t)d->mem_used[RS_MEM_VRAM]);
		else
			axl__warn(inv, SRC, NULL, "GPU %u: %llu bytes of VRAM used of %llu? used ignored", i,
				  (unsigned long long)d->mem_used[RS_MEM_VRAM], (unsigned long long)total);
	}
	if (d->has_mem_total[RS_MEM_VIS_VRAM]) {
		uint64_t v = d->mem_total[RS_MEM_VIS_VRAM];
		if (v > 0 && v < limit && (!total || v <= total))
			axl__fill_int(dev, AXL_ATTR_MEMORY_VISIBLE, R, (int64_t)v);
		else
			axl__warn(inv, SRC, NULL, "GPU %u: visible VRAM of %llu bytes? ignored", i,
				  (unsigned long long)v);
	}
	if (d->has_mem_total[RS_MEM_GTT]) {
		uint64_t g = d->mem_total[RS_MEM_GTT];
		if (g > 0 && g < limit)
			axl__fill_int(dev, AXL_ATTR_MEMORY_GTT, R, (int64_t)g);
		else
			axl__warn(inv, SRC, NULL, "GPU %u: GTT of %llu bytes? ignored", i, (unsigned long long)g);
	}

	/* NUMA node of the GPU's CPU (KFD) */
	if (d->has_numa && dev->numa_node < 0) {
		if (d->numa < 1024) {
			dev->numa_node = (int)d->numa;
			axl__set_int(dev, AXL_ATTR_NUMA_NODE, R, d->numa);
		} else if (d->numa != 0xffffffffu) {
			axl__warn(inv, SRC, NULL, "GPU %u: NUMA node %u? ignored", i, d->numa);
		}
	}

	/* power (microwatts); a cap of 0 W means "no cap" to nobody: unknown */
	const uint64_t pmax = 100000000000ull; /* 100 kW */
	if (d->has_cap) {
		if (d->cap > 0 && d->cap < pmax)
			axl__fill_num(dev, AXL_ATTR_POWER_LIMIT, R, (double)d->cap / 1e6);
		else if (d->cap)
			axl__warn(inv, SRC, NULL, "GPU %u: a power cap of %llu uW? ignored", i,
				  (unsigned long long)d->cap);
	}
	if (d->has_cap_default) {
		if (d->cap_default > 0 && d->cap_default < pmax)
			axl__fill_num(dev, AXL_ATTR_POWER_DEFAULT_LIMIT, R, (double)d->cap_default / 1e6);
		else if (d->cap_default)
			axl__warn(inv, SRC, NULL, "GPU %u: a default power cap of %llu uW? ignored", i,
				  (unsigned long long)d->cap_default);
	}
	if (d->has_cap_range) {
		if (d->cap_max > 0 && d->cap_max < pmax && d->cap_min <= d->cap_max)
			axl__fill_num(dev, AXL_ATTR_POWER_MAX_LIMIT, R, (double)d->cap_max / 1e6);
		else
			axl__warn(inv, SRC, NULL, "GPU %u: power cap range %llu..%llu uW? ignored", i,
				  (unsigned long long)d->cap_min, (unsigned long long)d->cap_max);
	}

	/* clocks */
	if (d->has_clk[RS_CLK_SYS])
		apply_clock(inv, i, dev, &d->clk[RS_CLK_SYS], "system", AXL_ATTR_CLOCK_GRAPHICS,
			    AXL_ATTR_CLOCK_GRAPHICS_MAX);
	if (d->has_clk[RS_CLK_MEM])
		apply_clock(inv, i, dev, &d->clk[RS_CLK_MEM], "memory", AXL_ATTR_CLOCK_MEMORY,
			    AXL_ATTR_CLOCK_MEMORY_MAX);

	/* partitions (MI300): the modes; the partitions that exist are the KFD's */
	static const char *const cmodes[] = {"SPX", "DPX", "TPX", "QPX", "CPX", NULL};
	static const char *const mmodes[] = {"NPS1", "NPS2", "NPS4", "NPS8", NULL};
	if (d->has_str[RSQ_COMPUTE_PARTITION] &&
	    (s = text(inv, i, "the compute partition", d->str[RSQ_COMPUTE_PARTITION])))
		apply_partition(inv, i, dev, "AMD-CPX", s, cmodes, "compute");
	if (d->has_str[RSQ_MEMORY_PARTITION] &&
	    (s = text(inv, i, "the memory partition", d->str[RSQ_MEMORY_PARTITION])))
		apply_partition(inv, i, dev, "AMD-NPS", s, mmodes, "memory");
}

void axl__rsmi_apply(struct axl__scan *scan, struct rs_job *j, struct axl_device **devs)
{
	/* the amdgpu module's version (or, for an in-tree driver, the kernel release that
	 * rsmi_version_str_get falls back to): one for every GPU */
	const char *driver = NULL;
	if (j->has_driver) {
		driver = j->driver;
		for (const unsigned char *p = (const unsigned char *)driver; *p && driver; p++)
			if (*p < 0x20 || *p == 0x7f) {
				axl__warn(scan->inv, SRC, NULL, "the driver version holds control characters; ignored");
				driver = NULL;
			}
		if (driver && (!driver[0] || strcmp(driver, "N/A") == 0))
			driver = NULL;
	}
	for (unsigned i = 0; i < j->ndevs; i++)
		apply_dev(scan, j, i, devs, driver);
}

/* ---- links: after ids exist ---------------------------------------------------------------- */

static bool linked(const struct axl_inventory *inv, const char *ia, const char *ib)
{
	for (size_t k = 0; k < inv->links.n; k++) {
		const struct axl_link *l = &inv->links.v[k];
		if ((strcmp(l->a, ia) == 0 && strcmp(l->b, ib) == 0) ||
		    (strcmp(l->a, ib) == 0 && strcmp(l->b, ia) == 0))
			return true;
	}
	return false;
}

static size_t position(const struct axl_inventory *inv, const struct axl_device *d)
{
	for (size_t k = 0; k < inv->devs.n; k++)
		if (inv->devs.v[k] == d)
			return k;
	return (size_t)-1;
}

/* XGMI links between GPUs the KFD io_links did not link (the amdgpu backend's links,
 * made before, stay). PCIe pairs are left to the PCI tree and NUMA placement
 * (links.c). */
void axl__rsmi_link(struct axl__scan *scan, struct rs_job *j, struct axl_device **devs)
{
	struct axl_inventory *inv = scan->inv;
	for (size_t k = 0; k < j->npairs; k++) {
		const struct rs_pair *p = &j->pairs[k];
		struct axl_device *a = devs[p->a], *b = devs[p->b];
		if (!a || !b || a == b || !p->has_type)
			continue;
		if (p->type > RSMI_IOLINK_TYPE_XGMI) {
			axl__warn(inv, SRC, NULL, "GPU %u: link type %u to GPU %u? ignored", p->a, p->type, p->b);
			continue;
		}
		if (p->type != RSMI_IOLINK_TYPE_XGMI)
			continue;
		if (position(inv, b) < position(inv, a)) {
			struct axl_device *t = a;
			a = b;
			b = t;
		}
		if (linked(inv, axl_device_id(a), axl_device_id(b)))
			continue;
		int count = -1;
		double gbps = -1;
		/* MB/s per direction: max = links x one link's rate (kfd.c) */
		if (p->has_bw && p->hops == 1) {
			if (p->bw_min > 0 && p->bw_max >= p->bw_min && p->bw_max <= 100000000ull) {
				if (p->bw_max % p->bw_min == 0 && p->bw_max / p->bw_min <= 64)
					count = (int)(p->bw_max / p->bw_min);
				gbps = (double)p->bw_max / 1000.0;
			} else if (p->bw_min || p->bw_max) {
				axl__warn(inv, SRC, NULL, "GPU %u: XGMI bandwidth %llu..%llu MB/s to GPU %u? ignored",
					  p->a, (unsigned long long)p->bw_min, (unsigned long long)p->bw_max, p->b);
			}
		}
		unsigned p2p = 0;
		if (p->has_p2p) {
			/* XGMI always allows atomics (kfd_topology.c) */
			if (p->p2p == 1)
				p2p = AXL_P2P_KNOWN | AXL_P2P_READ | AXL_P2P_WRITE | AXL_P2P_ATOMICS;
			else if (p->p2p == 0)
				p2p = AXL_P2P_KNOWN;
			else
				axl__warn(inv, SRC, NULL, "GPU %u: P2P accessible = %u to GPU %u? ignored", p->a,
					  p->p2p, p->b);
		}
		struct axl_link *l = axl__link_add(inv, a, b, "xgmi", gbps, R);
		if (l) {
			l->link_count = count;
			l->p2p = p2p;
		}
	}
}
