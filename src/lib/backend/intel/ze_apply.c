/* SPDX-License-Identifier: MIT */
/*
 * What Level Zero sysman said, onto the inventory (main thread). The intel backend's
 * sysfs values stay: Level Zero fills what is unknown (axl__fill_*), except where it is
 * the only measurement (compute units, engines, Xe Link ports). Every value is checked
 * before it is believed: nonsense (a link generation of 99, more memory free than there
 * is, a name full of control characters, a frequency of NaN) costs that value and a
 * warning, nothing else.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend.h"
#include "ze_job.h"
#include "devicedb.h"

#define SRC "level-zero"
static const axl_source Z = AXL_SOURCE_LEVEL_ZERO;

/* A string sysman returned, if it is text and known: no control characters, not the
 * specification's "unknown" (or the runtime's "unkown"). */
static const char *text(struct axl_inventory *inv, unsigned i, const char *what, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			axl__warn(inv, SRC, NULL, "device %u: %s holds control characters; ignored", i, what);
			return NULL;
		}
	}
	while (*s == ' ')
		s++;
	if (!*s || strcasecmp(s, "unknown") == 0 || strcasecmp(s, "unkown") == 0)
		return NULL;
	return s;
}

static const char *mem_type_name(uint32_t t)
{
	static const char *const names[] = {
		[ZES_MEM_TYPE_HBM] = "HBM",       [ZES_MEM_TYPE_DDR] = "DDR",       [ZES_MEM_TYPE_DDR3] = "DDR3",
		[ZES_MEM_TYPE_DDR4] = "DDR4",     [ZES_MEM_TYPE_DDR5] = "DDR5",     [ZES_MEM_TYPE_LPDDR] = "LPDDR",
		[ZES_MEM_TYPE_LPDDR3] = "LPDDR3", [ZES_MEM_TYPE_LPDDR4] = "LPDDR4", [ZES_MEM_TYPE_LPDDR5] = "LPDDR5",
		[ZES_MEM_TYPE_GDDR4] = "GDDR4",   [ZES_MEM_TYPE_GDDR5] = "GDDR5",   [ZES_MEM_TYPE_GDDR5X] = "GDDR5X",
		[ZES_MEM_TYPE_GDDR6] = "GDDR6",   [ZES_MEM_TYPE_GDDR6X] = "GDDR6X", [ZES_MEM_TYPE_GDDR7] = "GDDR7"};
	return t < sizeof names / sizeof *names ? names[t] : NULL;
}

/* SRAM, caches, register files, shared local memory: on the device, not its memory */
static bool on_chip(uint32_t t)
{
	return t == ZES_MEM_TYPE_SRAM || t == ZES_MEM_TYPE_L1 || t == ZES_MEM_TYPE_L3 || t == ZES_MEM_TYPE_GRF ||
	       t == ZES_MEM_TYPE_SLM;
}

static bool link_width_ok(int32_t w)
{
	return w == 1 || w == 2 || w == 4 || w == 8 || w == 12 || w == 16 || w == 32;
}

static bool has_cu(const struct axl_device *dev, const char *name)
{
	for (size_t i = 0; i < dev->cus.n; i++)
		if (strcmp(dev->cus.v[i].name, name) == 0)
			return true;
	return false;
}

static void apply_pci(struct axl_inventory *inv, unsigned i, const struct ze_dev *d, struct axl_device *dev)
{
	const zes_pci_speed_t *sp[2] = {&d->pci.maxSpeed, d->has_pst ? &d->pst.speed : NULL};
	const axl_attr gen[2] = {AXL_ATTR_LINK_MAX_GEN, AXL_ATTR_LINK_CURRENT_GEN};
	const axl_attr width[2] = {AXL_ATTR_LINK_MAX_WIDTH, AXL_ATTR_LINK_CURRENT_WIDTH};
	for (int k = 0; k < 2; k++) {
		if (!sp[k])
			continue;
		/* -1 is the specification's "unknown"; 0 what a runtime says for "no link" */
		if (sp[k]->gen >= 1 && sp[k]->gen <= 7)
			axl__fill_int(dev, gen[k], Z, sp[k]->gen);
		else if (sp[k]->gen != -1 && sp[k]->gen != 0)
			axl__warn(inv, SRC, NULL, "device %u: PCIe generation %d? ignored", i, sp[k]->gen);
		if (link_width_ok(sp[k]->width))
			axl__fill_int(dev, width[k], Z, sp[k]->width);
		else if (sp[k]->width != -1 && sp[k]->width != 0)
			axl__warn(inv, SRC, NULL, "device %u: PCIe link width %d? ignored", i, sp[k]->width);
	}
}

static void apply_identity(struct axl__scan *scan, unsigned i, const struct ze_dev *d, struct axl_device *dev)
{
	struct axl_inventory *inv = scan->inv;
	const zes_device_properties_t *p = &d->props;
	const char *s;
	/* the name: the device database's when it knows the PCI ids (its names are the ones
	 * Intel's compute runtime prints, and it knows the NPU's generation), else sysman's */
	const struct axl__db_entry *db = NULL;
	if (scan->ctx->devicedb_enabled && axl__known(dev, AXL_ATTR_DEVICE_ID))
		db = axl__db_lookup(
		    (int)axl__int(dev, AXL_ATTR_VENDOR_ID, -1), (int)axl__int(dev, AXL_ATTR_DEVICE_ID, -1),
		    (int)axl__int(dev, AXL_ATTR_SUBSYSTEM_VENDOR_ID, -1),
		    (int)axl__int(dev, AXL_ATTR_SUBSYSTEM_DEVICE_ID, -1), (int)axl__int(dev, AXL_ATTR_REVISION, -1));
	if (!db || !db->s_name) {
		if ((s = text(inv, i, "the model name", p->modelName)) ||
		    (s = text(inv, i, "the device name", p->core.name)))
			axl__fill_str(inv, dev, AXL_ATTR_MODEL, Z, s);
	}
	bool zero = true, ones = true;
	for (int k = 0; k < ZE_MAX_DEVICE_UUID_SIZE; k++) {
		zero = zero && p->core.uuid.id[k] == 0;
		ones = ones && p->core.uuid.id[k] == 0xff;
	}
	if (ones)
		axl__warn(inv, SRC, NULL, "device %u: a UUID of all ones? ignored", i);
	else if (!zero) {
		char u[40];
		const uint8_t *b = p->core.uuid.id;
		snprintf(u, sizeof u, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
			 b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
			 b[15]);
		axl__fill_str(inv, dev, AXL_ATTR_UUID, Z, u);
	}
	/* the board's serial (printed on its label, as NVML's serial is), else the SoC's */
	if ((s = text(inv, i, "the board number", p->boardNumber)) ||
	    (s = text(inv, i, "the serial number", p->serialNumber)))
		axl__fill_str(inv, dev, AXL_ATTR_SERIAL, Z, s);
	if ((s = text(inv, i, "the driver version", p->driverVersion)))
		axl__fill_str(inv, dev, AXL_ATTR_DRIVER_VERSION, Z, s);
}

/* The core clock: the maximum when no GPU frequency domain said (after apply_frequency). */
static void apply_core_clock(struct axl_inventory *inv, unsigned i, const struct ze_dev *d, struct axl_device *dev)
{
	uint32_t mhz = d->props.core.coreClockRate;
	if (mhz > 0 && mhz < 100000)
		axl__fill_int(dev, AXL_ATTR_CLOCK_GRAPHICS_MAX, Z, mhz);
	else if (mhz != 0)
		axl__warn(inv, SRC, NULL, "device %u: a core clock of %u MHz? ignored", i, mhz);
}

/* Xe-cores (Level Zero's sub-slices) and EUs (vector engines) of a GPU, its tiles. */
static void apply_compute(struct axl_inventory *inv, unsigned i, const struct ze_dev *d, struct axl_device *dev)
{
	const ze_device_properties_t *c = &d->props.core;
	if (c->type != ZE_DEVICE_TYPE_GPU)
		return;
	uint64_t slices = c->numSlices, sub = c->numSubslicesPerSlice, eus = c->numEUsPerSubslice;
	if (slices && sub) {
		if (slices < 1024 && sub < 1024 && slices * sub <= 4096) {
			axl__add_cu(inv, dev, "Xe-core", (int64_t)(slices * sub), Z);
			if (eus && eus < 1024 && slices * sub * eus <= 65536)
				axl__add_cu(inv, dev, "EU", (int64_t)(slices * sub * eus), Z);
			else if (eus)
				axl__warn(inv, SRC, NULL, "device %u: %llu EUs per sub-slice? ignored", i,
					  (unsigned long long)eus);
		} else {
			axl__warn(inv, SRC, NULL, "device %u: %llu slices of %llu sub-slices? ignored", i,
				  (unsigned long long)slices, (unsigned long long)sub);
		}
	}
	/* tiles: sysfs (xe tile<N> directories) keeps its count */
	if (d->props.numSubdevices <= 64) {
		if (!has_cu(dev, "tile"))
			axl__add_cu(inv, dev, "tile", d->props.numSubdevices ? d->props.numSubdevices : 1, Z);
	} else {
		axl__warn(inv, SRC, NULL, "device %u: %u sub-devices? ignored", i, d->props.numSubdevices);
	}
}

static void apply_memory(struct axl__scan *scan, unsigned i, const struct ze_dev *d, struct axl_device *dev)
{
	struct axl_inventory *inv = scan->inv;
	uint64_t total = 0, used = 0;
	int64_t bus = 0;
	bool total_ok = true, used_ok = true, bus_ok = true, any = false;
	const char *type = NULL;
	bool type_ok = true;
	for (unsigned k = 0; k < d->nmem; k++) {
		const struct ze_mem *m = &d->mem[k];
		if (!m->has_p || m->p.location != ZES_MEM_LOC_DEVICE || on_chip(m->p.type))
			continue; /* system memory of an integrated GPU, caches: not the device's memory */
		any = true;
		const char *t = mem_type_name(m->p.type);
		if (!t) {
			axl__warn(inv, SRC, NULL, "device %u: memory type %u? ignored", i, m->p.type);
			type_ok = false;
		} else if (type && strcmp(type, t) != 0) {
			type_ok = false; /* modules disagree: no one type */
		} else {
			type = t;
		}
		if (m->p.physicalSize == 0) {
			total_ok = false; /* the specification's "unknown" */
		} else if (m->p.physicalSize >= (1ull << 50)) {
			axl__warn(inv, SRC, NULL, "device %u: a memory module of %llu bytes? ignored", i,
				  (unsigned long long)m->p.physicalSize);
			total_ok = false;
		} else {
			total += m->p.physicalSize;
		}
		if (!m->has_s) {
			used_ok = false;
		} else if (m->s.free <= m->p.physicalSize) {
			used += m->p.physicalSize - m->s.free;
		} else {
			axl__warn(inv, SRC, NULL, "device %u: %llu bytes free of %llu? used ignored", i,
				  (unsigned long long)m->s.free, (unsigned long long)m->p.physicalSize);
			used_ok = false;
		}
		if (m->p.busWidth > 0 && m->p.busWidth <= 16384) {
			bus += m->p.busWidth;
		} else {
			if (m->p.busWidth != -1 && m->p.busWidth != 0)
				axl__warn(inv, SRC, NULL, "device %u: a memory bus %d bits wide? ignored", i,
					  m->p.busWidth);
			bus_ok = false;
		}
		if (m->has_s && m->s.health >= ZES_MEM_HEALTH_DEGRADED && m->s.health <= ZES_MEM_HEALTH_REPLACE)
			axl__warn(inv, SRC, NULL, "device %u: memory module %u health is %s", i, k,
				  m->s.health == ZES_MEM_HEALTH_DEGRADED   ? "degraded (reset the device)"
				  : m->s.health == ZES_MEM_HEALTH_CRITICAL ? "critical (running with reduced memory)"
									   : "replace (too many uncorrectable errors)");
	}
	if (!any)
		return;
	if (total_ok && total > 0) {
		axl__fill_int(dev, AXL_ATTR_MEMORY_TOTAL, Z, (int64_t)total);
		if (used_ok)
			axl__fill_int(dev, AXL_ATTR_MEMORY_USED, Z, (int64_t)used);
	}
	if (bus_ok && bus > 0 && bus <= 16384)
		axl__fill_int(dev, AXL_ATTR_MEMORY_BUS_WIDTH, Z, bus);
	if (type && type_ok) {
		/* the device database's type when it refines sysman's (HBM -> HBM2e) */
		const struct axl__db_entry *db = NULL;
		if (scan->ctx->devicedb_enabled && axl__known(dev, AXL_ATTR_DEVICE_ID))
			db = axl__db_lookup((int)axl__int(dev, AXL_ATTR_VENDOR_ID, -1),
					    (int)axl__int(dev, AXL_ATTR_DEVICE_ID, -1),
					    (int)axl__int(dev, AXL_ATTR_SUBSYSTEM_VENDOR_ID, -1),
					    (int)axl__int(dev, AXL_ATTR_SUBSYSTEM_DEVICE_ID, -1),
					    (int)axl__int(dev, AXL_ATTR_REVISION, -1));
		bool refined = db && db->s_memory_type && strlen(axl__db_memory_type(db)) > strlen(type) &&
			       strncasecmp(axl__db_memory_type(db), type, strlen(type)) == 0;
		if (!refined)
			axl__fill_str(inv, dev, AXL_ATTR_MEMORY_TYPE, Z, type);
	}
}

static void apply_frequency(struct axl_inventory *inv, unsigned i, const struct ze_dev *d, struct axl_device *dev)
{
	double gpu = -1, mem = -1;
	for (unsigned k = 0; k < d->nfreq; k++) {
		const zes_freq_properties_t *f = &d->freq[k];
		if (f->type != ZES_FREQ_DOMAIN_GPU && f->type != ZES_FREQ_DOMAIN_MEMORY)
			continue;
		if (!isfinite(f->max) || !isfinite(f->min) || f->max <= 0 || f->max >= 100000 || f->min > f->max) {
			axl__warn(inv, SRC, NULL, "device %u: a frequency range of %g to %g MHz? ignored", i, f->min,
				  f->max);
			continue;
		}
		double *best = f->type == ZES_FREQ_DOMAIN_GPU ? &gpu : &mem;
		if (f->max > *best)
			*best = f->max; /* the tiles of a device: the highest */
	}
	/* sysfs (rp0, the fused VRAM maximum) keeps its values */
	if (gpu > 0)
		axl__fill_int(dev, AXL_ATTR_CLOCK_GRAPHICS_MAX, Z, (int64_t)llround(gpu));
	if (mem > 0)
		axl__fill_int(dev, AXL_ATTR_CLOCK_MEMORY_MAX, Z, (int64_t)llround(mem));
}

/* A limit in milliwatts, as watts; < 0 when it is not one. */
static double watts(struct axl_inventory *inv, unsigned i, const char *what, int32_t mw)
{
	if (mw > 0 && mw < 10000000)
		return mw / 1000.0;
	if (mw != -1 && mw != 0)
		axl__warn(inv, SRC, NULL, "device %u: a %s of %d mW? ignored", i, what, mw);
	return -1;
}

static void apply_power(struct axl_inventory *inv, unsigned i, const struct ze_dev *d, struct axl_device *dev)
{
	/* the domain of the whole card, else the package, else the first of the device */
	const struct ze_pwr *best = NULL;
	int rank = 0;
	for (unsigned k = 0; k < d->npwr; k++) {
		const struct ze_pwr *p = &d->pwr[k];
		if (!p->has_p || p->p.onSubdevice)
			continue;
		int r = !p->has_ext                               ? 1
			: p->e.domain == ZES_POWER_DOMAIN_CARD    ? 3
			: p->e.domain == ZES_POWER_DOMAIN_PACKAGE ? 2
								  : 1;
		if (r > rank) {
			rank = r;
			best = p;
		}
	}
	if (!best)
		return;
	double limit = -1, dflt = -1;
	if (best->has_lim) {
		for (unsigned k = 0; k < best->nlim; k++) {
			const zes_power_limit_ext_desc_t *l = &best->lim[k];
			if (l->level != ZES_POWER_LEVEL_SUSTAINED || l->limitUnit != ZES_LIMIT_UNIT_POWER)
				continue;
			if (l->enabled)
				limit = watts(inv, i, "sustained power limit", l->limit);
			break; /* disabled: no limit, not a 0 W one */
		}
	} else if (best->has_sus && best->sus.enabled) {
		limit = watts(inv, i, "sustained power limit", best->sus.power);
	}
	if (best->has_ext && best->def.limitUnit == ZES_LIMIT_UNIT_POWER)
		dflt = watts(inv, i, "default power limit", best->def.limit);
	if (dflt < 0)
		dflt = watts(inv, i, "default power limit", best->p.defaultLimit);
	double max = watts(inv, i, "maximum power limit", best->p.maxLimit);
	/* the driver's hwmon (power1_max, power1_rated_max) keeps its values */
	if (limit > 0)
		axl__fill_num(dev, AXL_ATTR_POWER_LIMIT, Z, limit);
	if (dflt > 0)
		axl__fill_num(dev, AXL_ATTR_POWER_DEFAULT_LIMIT, Z, dflt);
	if (max > 0 && (dflt < 0 || max >= dflt))
		axl__fill_num(dev, AXL_ATTR_POWER_MAX_LIMIT, Z, max);
}

static void apply_engines(struct axl_inventory *inv, unsigned i, const struct ze_dev *d, struct axl_device *dev)
{
	if (!d->has_engines)
		return;
	if (d->engines_other)
		axl__warn(inv, SRC, NULL, "device %u: %u engine groups of a type this axl does not know; ignored", i,
			  d->engines_other);
	const unsigned *e = d->engines;
	unsigned media = e[ZES_ENGINE_GROUP_MEDIA_DECODE_SINGLE] + e[ZES_ENGINE_GROUP_MEDIA_ENCODE_SINGLE] +
			 e[ZES_ENGINE_GROUP_MEDIA_ENHANCEMENT_SINGLE] + e[ZES_ENGINE_GROUP_MEDIA_CODEC_SINGLE];
	const struct {
		const char *name;
		unsigned n;
	} kinds[] = {{"compute engine", e[ZES_ENGINE_GROUP_COMPUTE_SINGLE]},
		     {"render engine", e[ZES_ENGINE_GROUP_RENDER_SINGLE]},
		     {"copy engine", e[ZES_ENGINE_GROUP_COPY_SINGLE]},
		     {"media engine", media}};
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
		if (kinds[k].n)
			axl__add_cu(inv, dev, kinds[k].name, kinds[k].n, Z);
}

/* Bits per second of one direction as GB/s; < 0 when not believable. */
static double port_gbps(int64_t rx, int64_t tx)
{
	int64_t b = rx > 0 && tx > 0 ? (rx < tx ? rx : tx) : rx > 0 ? rx : tx;
	if (b <= 0 || b >= 10000000000000ll)
		return -1;
	return (double)b / 8e9;
}

static void apply_ports(struct axl_inventory *inv, unsigned i, const struct ze_dev *d, struct axl_device *dev)
{
	for (unsigned k = 0; k < d->nports; k++) {
		const struct ze_port *p = &d->ports[k];
		struct axl_port *x = axl__add_port(inv, dev, "xelink", Z);
		if (!x)
			return;
		x->index = (int)k; /* sysman's order: port numbers repeat on every tile */
		if (!p->has_s)
			continue;
		unsigned st = p->s.status;
		x->active = st == ZES_FABRIC_PORT_STATUS_HEALTHY || st == ZES_FABRIC_PORT_STATUS_DEGRADED ? 1
			    : st == ZES_FABRIC_PORT_STATUS_FAILED || st == ZES_FABRIC_PORT_STATUS_DISABLED ? 0
													     : -1;
		if (x->active != 1)
			continue;
		/* the rate now, else the port's maximum; -1 is the specification's "unknown" */
		double g = port_gbps(p->s.rxSpeed.bitRate, p->s.txSpeed.bitRate);
		if (g < 0 && (p->s.rxSpeed.bitRate > 0 || p->s.txSpeed.bitRate > 0))
			axl__warn(inv, SRC, NULL, "device %u: Xe Link port %u at %lld bits/s? ignored", i, k,
				  (long long)p->s.rxSpeed.bitRate);
		if (g < 0) {
			g = port_gbps(p->p.maxRxSpeed.bitRate, p->p.maxTxSpeed.bitRate);
			if (g < 0 && (p->p.maxRxSpeed.bitRate > 0 || p->p.maxTxSpeed.bitRate > 0 ||
				      p->p.maxRxSpeed.bitRate < -1))
				axl__warn(inv, SRC, NULL, "device %u: Xe Link port %u at most %lld bits/s? ignored", i,
					  k, (long long)p->p.maxRxSpeed.bitRate);
		}
		if (g > 0)
			x->bandwidth_gbps = g;
		x->remote_kind = "unknown";
	}
}

/* Did the PCI scan see this function (and decide it is no accelerator)? */
static bool pci_function_seen(const struct axl_inventory *inv, const zes_pci_address_t *a)
{
	for (size_t k = 0; k < inv->pcifns.n; k++) {
		const struct axl__pcifn *f = &inv->pcifns.v[k];
		if (f->domain == a->domain && f->bus == a->bus && f->devno == a->device && f->fn == a->function)
			return true;
	}
	return false;
}

void axl__ze_apply(struct axl__scan *scan, struct ze_job *j, struct axl_device **devs)
{
	struct axl_inventory *inv = scan->inv;
	for (unsigned i = 0; i < j->ndevs; i++) {
		const struct ze_dev *d = &j->devs[i];
		if (!d->has_pci)
			continue;
		const zes_pci_address_t *a = &d->pci.address;
		if (a->domain > 0xffff || a->bus > 0xff || a->device > 0x1f || a->function > 7) {
			axl__warn(inv, SRC, NULL, "device %u: PCI address %x:%x:%x.%x? device skipped", i, a->domain,
				  a->bus, a->device, a->function);
			continue;
		}
		if (d->has_props && d->props.core.vendorId != 0x8086) {
			axl__warn(inv, SRC, NULL, "device %u: vendor id 0x%x is not Intel's; device skipped", i,
				  d->props.core.vendorId);
			continue;
		}
		struct axl_device *dev = axl__find_pci(inv, a->domain, a->bus, a->device, a->function);
		bool seen = false;
		for (unsigned k = 0; k < i && dev; k++)
			seen = seen || devs[k] == dev;
		if (seen)
			continue; /* the same device again (a flat hierarchy of the legacy path) */
		bool npu = d->has_props && d->props.core.type == ZE_DEVICE_TYPE_VPU;
		if (!dev && !d->has_props)
			continue; /* nothing but an address: not enough to add a device */
		if (!dev && pci_function_seen(inv, a)) {
			axl__warn(inv, SRC, NULL,
				  "device %u: %04x:%02x:%02x.%u is a PCI function that is no accelerator; skipped", i,
				  a->domain, a->bus, a->device, a->function);
			continue;
		}
		if (!dev) {
			/* sysman sees a device that the PCI scan did not (a container without /sys) */
			axl_family fam = npu ? AXL_FAMILY_NPU : AXL_FAMILY_GPU;
			dev = axl__device_new(inv, "intel", axl__vendor_prefix(0x8086, fam));
			if (!dev)
				return;
			char addr[32];
			snprintf(addr, sizeof addr, "%04x:%02x:%02x.%u", a->domain, a->bus, a->device, a->function);
			dev->has_pci = true;
			dev->domain = a->domain;
			dev->bus = a->bus;
			dev->devno = a->device;
			dev->fn = a->function;
			axl__set_str(inv, dev, AXL_ATTR_PCI_ADDRESS, Z, addr);
			axl__set_int(dev, AXL_ATTR_FAMILY, Z, fam);
			axl__set_str(inv, dev, AXL_ATTR_VENDOR, AXL_SOURCE_DERIVED, "Intel");
			axl__set_int(dev, AXL_ATTR_VENDOR_ID, Z, 0x8086);
			if (d->has_props && d->props.core.deviceId > 0 && d->props.core.deviceId <= 0xffff)
				axl__set_int(dev, AXL_ATTR_DEVICE_ID, Z, d->props.core.deviceId);
		}
		devs[i] = dev;
		if (d->lost && !axl__known(dev, AXL_ATTR_STATE))
			axl__set_str(inv, dev, AXL_ATTR_STATE, Z, "lost");
		apply_pci(inv, i, d, dev);
		if (d->has_props) {
			apply_identity(scan, i, d, dev);
			apply_compute(inv, i, d, dev);
		}
		apply_memory(scan, i, d, dev);
		apply_frequency(inv, i, d, dev);
		if (d->has_props)
			apply_core_clock(inv, i, d, dev);
		apply_power(inv, i, d, dev);
		apply_engines(inv, i, d, dev);
		apply_ports(inv, i, d, dev);
	}
	/* each active port's far end: the device that has a port with that fabric id */
	for (unsigned i = 0; i < j->ndevs; i++) {
		struct axl_device *dev = devs[i];
		const struct ze_dev *d = &j->devs[i];
		if (!dev)
			continue;
		if (dev->ports.n < d->nports)
			continue; /* out of memory while adding them */
		size_t first = dev->ports.n - d->nports;
		for (unsigned k = 0; k < d->nports; k++) {
			struct axl_port *x = &dev->ports.v[first + k];
			if (x->active != 1 || !d->ports[k].has_s)
				continue;
			uint32_t want = d->ports[k].s.remotePortId.fabricId;
			for (unsigned o = 0; o < j->ndevs && !x->remote_pci; o++) {
				if (!devs[o] || o == i)
					continue;
				for (unsigned m = 0; m < j->devs[o].nports; m++) {
					if (j->devs[o].ports[m].p.portId.fabricId == want) {
						x->remote_pci = axl__str(devs[o], AXL_ATTR_PCI_ADDRESS);
						x->remote_kind = "gpu";
						break;
					}
				}
			}
		}
	}
}

/* ---- links: after ids exist ---------------------------------------------------------------- */

void axl__ze_link(struct axl__scan *scan, struct ze_job *j, struct axl_device **devs)
{
	struct axl_inventory *inv = scan->inv;
	for (unsigned i = 0; i < j->ndevs; i++) {
		struct axl_device *d = devs[i];
		if (!d)
			continue;
		for (size_t k = 0; k < d->ports.n; k++) {
			struct axl_port *p = &d->ports.v[k];
			if (!p->remote_pci || strcmp(p->technology, "xelink") != 0)
				continue;
			for (size_t x = 0; x < inv->devs.n; x++) {
				const char *pa = axl__str(inv->devs.v[x], AXL_ATTR_PCI_ADDRESS);
				if (pa && strcmp(pa, p->remote_pci) == 0) {
					p->remote_id = axl_device_id(inv->devs.v[x]);
					break;
				}
			}
		}
	}
	/* a pair with direct Xe Links: their count, and the sum of their rates */
	for (unsigned a = 0; a < j->ndevs; a++) {
		for (unsigned b = a + 1; b < j->ndevs; b++) {
			struct axl_device *da = devs[a], *db = devs[b];
			if (!da || !db || da == db)
				continue;
			const char *pb = axl__str(db, AXL_ATTR_PCI_ADDRESS);
			int n = 0;
			double gbps = 0;
			bool rates = true;
			for (size_t k = 0; k < da->ports.n && pb; k++) {
				const struct axl_port *p = &da->ports.v[k];
				if (p->active != 1 || !p->remote_pci || strcmp(p->technology, "xelink") != 0 ||
				    strcmp(p->remote_pci, pb) != 0)
					continue;
				n++;
				if (p->bandwidth_gbps > 0)
					gbps += p->bandwidth_gbps;
				else
					rates = false;
			}
			if (!n)
				continue;
			struct axl_link *l = axl__link_add(inv, da, db, "xelink", rates ? gbps : -1, Z);
			if (l)
				l->link_count = n;
		}
	}
}
