/* SPDX-License-Identifier: MIT */
/* Fill what the kernel did not say from the device database, and name devices the
 * database does not know from pci.ids. What sysfs says always wins. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "devicedb.h"

void axl__devicedb_apply(struct axl__scan *scan, struct axl_device *dev)
{
	struct axl_inventory *inv = scan->inv;
	const struct axl__db_entry *e = dev->db;
	if (!e && scan->ctx->devicedb_enabled && axl__known(dev, AXL_ATTR_VENDOR_ID) &&
	    axl__known(dev, AXL_ATTR_DEVICE_ID)) {
		e = axl__db_lookup((int)axl__int(dev, AXL_ATTR_VENDOR_ID, -1),
				   (int)axl__int(dev, AXL_ATTR_DEVICE_ID, -1),
				   (int)axl__int(dev, AXL_ATTR_SUBSYSTEM_VENDOR_ID, -1),
				   (int)axl__int(dev, AXL_ATTR_SUBSYSTEM_DEVICE_ID, -1),
				   (int)axl__int(dev, AXL_ATTR_REVISION, -1));
	}
	/* a driver-reported model name that the database knows (shared device ids) */
	if (scan->ctx->devicedb_enabled && axl__known(dev, AXL_ATTR_MODEL) &&
	    axl_device_source(dev, AXL_ATTR_MODEL) != AXL_SOURCE_DEVICEDB) {
		const struct axl__db_entry *byname = axl__db_find_name(axl__str(dev, AXL_ATTR_MODEL));
		if (byname)
			e = byname;
	}
	if (e && scan->ctx->devicedb_enabled) {
		dev->db = e;
		const axl_source S = AXL_SOURCE_DEVICEDB;
		axl__set_str(inv, dev, AXL_ATTR_DB_KEY, S, axl__db_key(e));
		axl__fill_str(inv, dev, AXL_ATTR_MODEL, S, axl__db_name(e));
		if (!axl__known(dev, AXL_ATTR_VENDOR) || axl_device_source(dev, AXL_ATTR_VENDOR) == AXL_SOURCE_DERIVED)
			axl__set_str(inv, dev, AXL_ATTR_VENDOR, S, axl__db_vendor(e));
		if (e->s_architecture)
			axl__fill_str(inv, dev, AXL_ATTR_ARCHITECTURE, S, axl__db_arch(e));
		/* the family in the database beats the one guessed from the PCI class */
		if (e->family && axl_device_source(dev, AXL_ATTR_FAMILY) == AXL_SOURCE_DERIVED)
			axl__set_int(dev, AXL_ATTR_FAMILY, S, e->family);
		if (e->memory_bytes)
			axl__fill_int(dev, AXL_ATTR_MEMORY_TOTAL, S, (int64_t)e->memory_bytes);
		if (e->s_memory_type)
			axl__fill_str(inv, dev, AXL_ATTR_MEMORY_TYPE, S, axl__db_memory_type(e));
		if (e->bus_width_bits)
			axl__fill_int(dev, AXL_ATTR_MEMORY_BUS_WIDTH, S, e->bus_width_bits);
		if (e->bandwidth_gbps >= 0)
			axl__fill_num(dev, AXL_ATTR_MEMORY_BANDWIDTH, S, e->bandwidth_gbps);
		if (e->l2_bytes)
			axl__fill_int(dev, AXL_ATTR_L2_CACHE, S, (int64_t)e->l2_bytes);
		if (e->l1_bytes_per_unit)
			axl__fill_int(dev, AXL_ATTR_MEMORY_L1_PER_UNIT, S, (int64_t)e->l1_bytes_per_unit);
		if (e->shared_bytes_per_unit)
			axl__fill_int(dev, AXL_ATTR_MEMORY_SHARED_PER_UNIT, S,
				      (int64_t)e->shared_bytes_per_unit);
		if (e->memory_channels)
			axl__fill_int(dev, AXL_ATTR_MEMORY_CHANNELS, S, e->memory_channels);
		if (e->memory_stacks)
			axl__fill_int(dev, AXL_ATTR_MEMORY_STACKS, S, e->memory_stacks);
		if (e->tdp_watts >= 0)
			axl__fill_num(dev, AXL_ATTR_POWER_TDP, S, e->tdp_watts);
		/* a chip-to-chip interconnect the database describes: the "ici" key */
		if (e->s_ici_topology) {
			axl__fill_str(inv, dev, AXL_ATTR_INTERCONNECT_KIND, S, "ici");
			axl__fill_str(inv, dev, AXL_ATTR_INTERCONNECT_TOPOLOGY, S, axl__db_ici_topology(e));
			if (e->ici_ports)
				axl__fill_int(dev, AXL_ATTR_INTERCONNECT_PORTS, S, e->ici_ports);
			if (e->ici_gbps > 0)
				axl__fill_num(dev, AXL_ATTR_INTERCONNECT_BANDWIDTH, S, e->ici_gbps);
		} else if (e->roce_ports) {
			/* the "roce" key: Ethernet ports in the chip itself; the topology is
			 * the server's wiring, not the chip's (the backend links what it can
			 * place) */
			axl__fill_str(inv, dev, AXL_ATTR_INTERCONNECT_KIND, S, "roce");
			axl__fill_int(dev, AXL_ATTR_INTERCONNECT_PORTS, S, e->roce_ports);
			if (e->roce_gbps > 0)
				axl__fill_num(dev, AXL_ATTR_INTERCONNECT_BANDWIDTH, S, e->roce_ports * e->roce_gbps);
		}
		/* the database's counts describe the whole SKU: where a measured count of the
		 * same unit differs (a partition, fused-off units), none of them is added */
		int cu_conflict = 0;
		for (unsigned i = 0; i < e->n_cus; i++)
			for (size_t j = 0; j < dev->cus.n; j++)
				if (dev->cus.v[j].source != S &&
				    strcmp(dev->cus.v[j].name, axl__db_s(axl__db_cus(e)[i].s_name)) == 0 &&
				    dev->cus.v[j].count != (int64_t)axl__db_cus(e)[i].count)
					cu_conflict = 1;
		for (unsigned i = 0; i < e->n_cus && !cu_conflict; i++)
			axl__add_cu(inv, dev, axl__db_s(axl__db_cus(e)[i].s_name), axl__db_cus(e)[i].count, S);
		if (dev->precs.n == 0) {
			for (unsigned i = 0; i < e->n_prec; i++) {
				struct axl_precision *p = AXL__VEC_PUSH(dev->precs);
				if (!p)
					break;
				p->format = (axl_format)axl__db_precs(e)[i].format;
				p->support = (axl_support)axl__db_precs(e)[i].support;
				p->peak_tflops = axl__db_precs(e)[i].tflops;
				p->source = S;
			}
		}
		for (unsigned i = 0; i < e->n_parts; i++) {
			struct axl__part *p = axl__add_part(inv, dev, axl__db_s(axl__db_parts(e)[i].s_technology), S);
			if (!p)
				break;
			if (p->pub.max_partitions < 0)
				p->pub.max_partitions = axl__db_parts(e)[i].max_partitions;
			if (p->profiles.n == 0)
				for (unsigned k = 0; k < axl__db_parts(e)[i].n_profiles; k++)
					axl__part_add_profile(inv, p, axl__db_profile(&axl__db_parts(e)[i], k));
		}
		if (e->n_prec || e->n_cus)
			dev->sources |= 1u << S;
	}
	/* still no name: pci.ids, loaded only now and only for such devices */
	if (!axl__known(dev, AXL_ATTR_MODEL) && axl__known(dev, AXL_ATTR_VENDOR_ID) &&
	    axl__known(dev, AXL_ATTR_DEVICE_ID)) {
		char buf[256];
		const char *name = axl__pciids_device(scan->ctx, (int)axl__int(dev, AXL_ATTR_VENDOR_ID, -1),
						      (int)axl__int(dev, AXL_ATTR_DEVICE_ID, -1), -1, -1, buf,
						      sizeof buf);
		if (name)
			axl__set_str(inv, dev, AXL_ATTR_MODEL, AXL_SOURCE_PCIIDS, name);
	}
	if (!axl__known(dev, AXL_ATTR_VENDOR) && axl__known(dev, AXL_ATTR_VENDOR_ID)) {
		char buf[256];
		const char *name = axl__pciids_vendor(scan->ctx, (int)axl__int(dev, AXL_ATTR_VENDOR_ID, -1),
						      buf, sizeof buf);
		if (name)
			axl__set_str(inv, dev, AXL_ATTR_VENDOR, AXL_SOURCE_PCIIDS, name);
	}
}
