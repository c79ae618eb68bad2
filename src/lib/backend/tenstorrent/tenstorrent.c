/* SPDX-License-Identifier: MIT */
/*
 * Tenstorrent (tt-kmd). Class "tenstorrent", device "tenstorrent!N" under the PCI
 * device = /dev/tenstorrent/N (generic class scan). Telemetry attributes of the class
 * device (tt-kmd telemetry.c, docs/sysfs-attributes.md; an attribute is absent when the
 * firmware does not report its tag):
 *   tt_card_type      "n150", "n300", "p100", "p100a", "p150a", "p150b", ... or "unknown"
 *   tt_serial         "%08X%08X" board id;  tt_asic_id the same for the ASIC
 *   tt_aiclk          "%u" MHz, the AI (Tensix) clock; tt_axiclk, tt_arcclk
 *   tt_fw_bundle_ver  "%u.%u.%u.%u" firmware bundle; tt_m3bl_fw_ver the M3 boot loader
 *                     (Wormhole); tt_m3app_fw_ver, tt_arc_fw_ver, tt_eth_fw_ver
 * hwmon (tt-kmd hwmon tables, on the PCI device): power1_max (board limit, uW),
 * power1_input (uW), temp1_input (m degC), all for the ASIC on PCIe.
 * The card type picks the board's database entry when the subsystem id does not.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "tenstorrent_sample.h"
#include "sysfs.h"
#include "devicedb.h"
#include "sysattr.h"

#define SRC "tenstorrent"

static bool tt_owns(const struct axl_device *dev)
{
	return axl__int(dev, AXL_ATTR_VENDOR_ID, -1) == 0x1e52;
}

static const char *arch_of(int64_t device)
{
	switch (device) {
	case 0xfaca: return "grayskull";
	case 0x401e: return "wormhole";
	case 0xb140: return "blackhole";
	default: return NULL;
	}
}

/* The database entry of the board this card type names ("tenstorrent-wormhole-n150"). */
static void board_entry(struct axl__scan *scan, struct axl_device *dev, const char *card)
{
	const char *arch = arch_of(axl__int(dev, AXL_ATTR_DEVICE_ID, -1));
	if (!arch || !scan->ctx->devicedb_enabled || strcmp(card, "unknown") == 0)
		return;
	char key[96];
	int n = snprintf(key, sizeof key, "tenstorrent-%s-%s", arch, card);
	if (n <= 0 || (size_t)n >= sizeof key)
		return;
	for (char *p = key; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	const struct axl__db_entry *e = axl__db_find_key(key);
	if (e)
		dev->db = e;
}

static void hwmon(struct axl__scan *scan, struct axl_device *dev)
{
	char path[600];
	struct axl__adir d;
	if (!axl__hwmon_find(scan, dev, NULL, path, sizeof path) || !axl__adir_open(&d, scan, path, SRC))
		return;
	axl__adir_set_num(&d, dev, "power1_max", AXL_ATTR_POWER_LIMIT, 1e-6, false, 0);
	axl__adir_set_num(&d, dev, "power1_input", AXL_ATTR_POWER_DRAW, 1e-6, true, 0);
	axl__adir_set_num(&d, dev, "temp1_input", AXL_ATTR_TEMPERATURE, 1e-3, true, 0);
	axl__adir_close(&d);
}

static int tt_enrich(struct axl__scan *scan, const struct axl__backend *self, struct axl_device *dev)
{
	char cd[512];
	struct axl__adir d;
	if (axl__class_dev(scan, dev, "tenstorrent", cd, sizeof cd) && axl__adir_open(&d, scan, cd, SRC)) {
		char card[32];
		if (axl__adir_text(&d, "tt_card_type", card, sizeof card, 0))
			board_entry(scan, dev, card);
		axl__adir_set_str(&d, dev, "tt_serial", AXL_ATTR_SERIAL, 0);
		axl__adir_set_str(&d, dev, "tt_fw_bundle_ver", AXL_ATTR_FIRMWARE_VERSION, 0);
		axl__adir_set_str(&d, dev, "tt_m3bl_fw_ver", AXL_ATTR_FIRMWARE_BOOTLOADER, 0);
		axl__adir_set_int(&d, dev, "tt_aiclk", AXL_ATTR_CLOCK_GRAPHICS, 1, 1, true, 0);
		axl__adir_close(&d);
	}
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	if (drv && strcmp(drv, "tenstorrent") == 0) {
		hwmon(scan, dev);
		axl__module_version(scan, dev, "tenstorrent");
	}
	return 0;
}

/* runtime.c */
const struct axl_runtime *axl__tenstorrent_runtime(const struct axl_device *dev);

static const struct axl__pci_vendor pci_vendors[] = {
	{.id = 0x1e52, .name = "Tenstorrent", .prefix = "tenstorrent"},
	{0},
};
static const char *const drivers[] = {"tenstorrent", NULL};

static const struct axl__backend_facts tenstorrent_facts = {
	.pci_vendors = pci_vendors,
	.drivers = drivers,
};

static const struct axl__discover_ops tenstorrent_discover = {
	.owns = tt_owns,
	.enrich = tt_enrich,
};

static const struct axl__runtime_ops tenstorrent_runtime = {
	.files = axl__tenstorrent_runtime,
};

const struct axl__backend axl__backend_tenstorrent = {
	.name = "tenstorrent",
	.facts = &tenstorrent_facts,
	.discover = &tenstorrent_discover,
	.sample = &axl__tenstorrent_sample_ops,
	.runtime = &tenstorrent_runtime,
};
