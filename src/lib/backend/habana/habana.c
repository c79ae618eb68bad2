/* SPDX-License-Identifier: MIT */
/*
 * Habana Gaudi (habanalabs). Where the attributes live:
 *   accel era (Linux >= 6.4, drivers/accel/habanalabs): on the PCI device itself
 *     (/sys/class/accel/accel<n>/device/<attr>); the accel class device has none.
 *   before (drivers/misc/habanalabs): on the class device habanalabs/hl<n>
 *     (minor 2n; hl_controlD<n> is the control node).
 * Attributes and formats (drivers/accel/habanalabs/common/sysfs.c,
 * Documentation/ABI/testing/sysfs-driver-habanalabs):
 *   device_type       "GOYA", "GAUDI", "GAUDI SEC", "GAUDI2", "GAUDI2B", "GAUDI2C", "GAUDI2D"
 *   status            "Operational", "In reset", "Malfunction", "Needs reset", ...
 *                     (first letter upper-cased by the driver)
 *   cpucp_ver         firmware of the device CPU (armcp_ver before 5.10, kept as an alias)
 *   uboot_ver         U-Boot of the device CPU; preboot_btl_ver the preboot boot loader
 *   cpld_ver          "0x%08x%08x" (CPLD timestamp, CPLD version)
 *   max_power         power cap in milliwatts (reads -ENODEV when not operational)
 *   module_id         "%u", the OAM slot (cpucp_info.card_location)
 *   clk_cur_freq_mhz, clk_max_freq_mhz  "%lu" MHz (Gaudi and later; -ENODEV when not
 *                     operational: unknown, not a warning)
 * The serial number sits in the binary eeprom attribute in an unpublished layout: not
 * read. Memory size comes from the device database.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "habana_sample.h"
#include "sysfs.h"
#include "devicedb.h"
#include "sysattr.h"
#include "habana_visibility.h"

#define SRC "habana"

static bool habana_owns(const struct axl_device *dev)
{
	return axl__int(dev, AXL_ATTR_VENDOR_ID, -1) == 0x1da3;
}

static int habana_enrich(struct axl__scan *scan, const struct axl__backend *self, struct axl_device *dev)
{
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	if (!drv || strcmp(drv, "habanalabs") != 0 || !dev->syspath)
		return 0; /* not bound (or bound to vfio-pci): the driver published nothing */
	char cd[512];
	const char *dir = dev->syspath;
	/* "hl0" sorts before "hl_controlD0": the first class device is the main one */
	if (axl__class_dev(scan, dev, "habanalabs", cd, sizeof cd))
		dir = cd;
	struct axl__adir d;
	if (!axl__adir_open(&d, scan, dir, SRC))
		return 0;

	char type[64];
	if (axl__adir_text(&d, "device_type", type, sizeof type, AXL__SA_REQUIRED) && !axl__db_knows(scan, dev)) {
		char model[96];
		snprintf(model, sizeof model, "Habana %s", type);
		axl__set_str(scan->inv, dev, AXL_ATTR_MODEL, AXL_SOURCE_SYSFS, model);
	}
	axl__adir_set_str(&d, dev, "status", AXL_ATTR_STATE, AXL__SA_REQUIRED);
	if (!axl__adir_set_str(&d, dev, "cpucp_ver", AXL_ATTR_FIRMWARE_VERSION, AXL__SA_EMPTY_UNKNOWN))
		axl__adir_set_str(&d, dev, "armcp_ver", AXL_ATTR_FIRMWARE_VERSION, AXL__SA_EMPTY_UNKNOWN);
	if (!axl__adir_set_str(&d, dev, "uboot_ver", AXL_ATTR_FIRMWARE_BOOTLOADER, AXL__SA_EMPTY_UNKNOWN))
		axl__adir_set_str(&d, dev, "preboot_btl_ver", AXL_ATTR_FIRMWARE_BOOTLOADER, AXL__SA_EMPTY_UNKNOWN);
	axl__adir_set_str(&d, dev, "cpld_ver", AXL_ATTR_FIRMWARE_CPLD, 0);
	axl__adir_set_num(&d, dev, "max_power", AXL_ATTR_POWER_LIMIT, 1e-3, false, 0);
	axl__adir_set_int(&d, dev, "module_id", AXL_ATTR_MODULE_ID, 1, 1, true, 0);
	axl__adir_set_int(&d, dev, "clk_cur_freq_mhz", AXL_ATTR_CLOCK_GRAPHICS, 1, 1, true, 0);
	axl__adir_set_int(&d, dev, "clk_max_freq_mhz", AXL_ATTR_CLOCK_GRAPHICS_MAX, 1, 1, false, 0);
	axl__adir_close(&d);
	axl__module_version(scan, dev, "habanalabs");
	return 0;
}

/* Gaudi's scale-up links. Each Gaudi2/Gaudi3 has RoCE v2 Ethernet ports in the chip; on
 * the vendor's 8-module baseboard (HLS-Gaudi2, HLS-3 and the servers built on it) 21 of
 * them join every module to the other 7, 3 ports to each (the device database's "roce"
 * key: ports, GB/s per port, ports per peer; Intel Gaudi Network Configuration), and 3 go
 * to scale-out. sysfs does not say which box a card sits in, nor how the ports are cabled:
 * the cards of one model that report distinct OAM slots (module_id 0-7) are taken to be
 * one baseboard, as every such server wires it. A slot reported twice (more than one
 * box), a slot out of range or two models leave the pairs on their PCIe paths. The
 * link's bandwidth and count are the database's, hence its source. */
static void habana_link(struct axl__scan *scan, const struct axl__backend *self)
{
	(void)self;
	struct axl_inventory *inv = scan->inv;
	struct axl_device *slot[8] = {0};
	const struct axl__db_entry *e = NULL;
	for (size_t i = 0; i < inv->devs.n; i++) {
		struct axl_device *d = inv->devs.v[i];
		if (!habana_owns(d) || d->parent || !d->db || !d->db->roce_peer_ports || !(d->db->roce_gbps > 0))
			continue;
		int64_t m = axl__int(d, AXL_ATTR_MODULE_ID, -1);
		if (m < 0 || m > 7 || slot[m] || (e && d->db != e))
			return;
		e = d->db;
		slot[m] = d;
	}
	for (int i = 0; i < 8; i++)
		for (int j = i + 1; j < 8; j++) {
			if (!slot[i] || !slot[j])
				continue;
			struct axl_link *l = axl__link_add(inv, slot[i], slot[j], "roce",
							   e->roce_peer_ports * e->roce_gbps, AXL_SOURCE_DEVICEDB);
			if (l)
				l->link_count = e->roce_peer_ports;
		}
}

/* runtime.c */
const struct axl_runtime *axl__habana_runtime(const struct axl_device *dev);
/* a simulated Gaudi (docs/sim.md): bound to the driver the visibility variables go by,
 * with the node habanalabs makes for it on a kernel with the accel subsystem (6.2 on),
 * numbered in the order of the spec's Gaudis */
static void habana_sim_device(struct axl_inventory *inv, struct axl_device *d, const struct axl__sim_place *at)
{
	char node[48];
	snprintf(node, sizeof node, "/dev/accel/accel%zu", at->minor);
	axl__add_node(inv, d, node);
}

static const struct axl__sim_ops habana_sim = {
	.driver = "habanalabs",
	.device = habana_sim_device,
};

static const struct axl__pci_vendor pci_vendors[] = {
	{.id = 0x1da3, .name = "Habana", .prefix = "habana"},
	{0},
};
static const char *const drivers[] = {"habanalabs", NULL};

static const struct axl__backend_facts habana_facts = {
	.pci_vendors = pci_vendors,
	.drivers = drivers,
};

static const struct axl__discover_ops habana_discover = {
	.owns = habana_owns,
	.enrich = habana_enrich,
	.link = habana_link,
};

static const struct axl__runtime_ops habana_runtime = {
	.files = axl__habana_runtime,
};

const struct axl__backend axl__backend_habana = {
	.name = "habana",
	.facts = &habana_facts,
	.discover = &habana_discover,
	.sample = &axl__habana_sample_ops,
	.vis = &axl__habana_vis,
	.runtime = &habana_runtime,
	.sim = &habana_sim,
};
