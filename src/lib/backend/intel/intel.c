/* SPDX-License-Identifier: MIT */
/*
 * Intel GPUs (i915, xe), NPUs (intel_vpu on the accel subsystem) and Xeon Phi
 * coprocessors (mic). Device nodes come from the generic class scan.
 *
 * xe (drivers/gpu/drm/xe), all on the PCI device:
 *   tile<N>/                         one per tile (xe_tile_sysfs.c)
 *   tile<N>/physical_vram_size_bytes "%llu", discrete GPUs but DG1 (xe_tile_sysfs.c)
 *   tile<N>/gt<M>/freq0/{act,cur,rp0,rpe,rpn,min,max}_freq  "%d" MHz (xe_gt_freq.c:
 *                                    act = resolved by PCODE, 0 when the GT sleeps;
 *                                    cur = requested by GuC; rp0 = hardware maximum).
 *                                    gt ids are global; the lowest in tile0 is the
 *                                    primary (render/compute) GT, media GTs come after.
 *   tile<N>/memory/freq0/max_freq    "%u" MHz, fused VRAM P0, PVC only (xe_vram_freq.c)
 *   hwmon/hwmon<i> (name "xe")       power1_max (card PL1, uW, 0 = disabled),
 *                                    power1_rated_max (card default TDP, uW), power2_*
 *                                    the same for the package; temp2_input package,
 *                                    temp3_input VRAM, m degC
 *                                    (Documentation/ABI/testing/sysfs-driver-intel-xe-hwmon)
 * i915 (drivers/gpu/drm/i915):
 *   card<N>/gt_{act,cur,RP0}_freq_mhz "%d" MHz for the first GT (i915_sysfs.c legacy
 *                                    files; per GT: card<N>/gt/gt<M>/rps_*_freq_mhz)
 *   card<N>/lmem_total_bytes, lmem_avail_bytes  "%llu", Intel's out-of-tree i915
 *                                    backports (intel-gpu-i915-backports i915_sysfs.c);
 *                                    upstream i915 does not publish VRAM in sysfs
 *   card<N>/gt/gt<M>                 one per GT; with local memory (discrete parts of
 *                                    the backports driver) each GT is a tile; on Meteor
 *                                    Lake gt1 is the media GT, so no tile count there
 *   hwmon/hwmon<i> (name "i915")     power1_max, power1_rated_max, uW
 *                                    (Documentation/ABI/testing/sysfs-driver-intel-i915-hwmon)
 * intel_vpu (drivers/accel/ivpu/ivpu_sysfs.c), on the PCI device:
 *   npu_busy_time_us "%lld", npu_memory_utilization "%lld" bytes (resident buffers),
 *   npu_current_frequency_mhz "%lu" (0 while runtime-suspended), npu_max_frequency_mhz
 * mic (Intel MPSS, out of tree), class device mic/mic<N>: family, serialnumber, state
 *   (as in the hwloc 32em64t-2n8c+dax+nvme+mic+dimms capture).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "intel_sample.h"
#include "sysfs.h"
#include "sysattr.h"
#include "util/parse.h"

#define SRC "intel"

static bool intel_owns(const struct axl_device *dev)
{
	return axl__int(dev, AXL_ATTR_VENDOR_ID, -1) == 0x8086;
}

/* Directory entries "<prefix><number>": their count and the lowest number. */
static int numbered(struct axl__scan *scan, const char *dir, const char *prefix, long *lowest)
{
	axl__dir *d = axl__fs_opendir(scan->fs, AXL__FS_ROOT, dir);
	if (!d)
		return 0;
	int n = 0;
	size_t pl = strlen(prefix);
	struct dirent *e;
	*lowest = -1;
	while ((e = axl__fs_readdir(d)) != NULL && n < 256) {
		uint64_t v;
		if (strncmp(e->d_name, prefix, pl) != 0 || axl__parse_u64(e->d_name + pl, 10, &v) != 0 ||
		    v > 4096)
			continue;
		n++;
		if (*lowest < 0 || (long)v < *lowest)
			*lowest = (long)v;
	}
	axl__fs_closedir(d);
	return n;
}

/* Power limits and temperatures from the driver's own hwmon device. */
static void hwmon(struct axl__scan *scan, struct axl_device *dev, const char *name, bool xe)
{
	char path[600];
	if (!axl__hwmon_find(scan, dev, name, path, sizeof path))
		return;
	struct axl__adir d;
	if (!axl__adir_open(&d, scan, path, SRC))
		return;
	/* a read of 0 means the limit is disabled: no limit, not a 0 W one */
	if (!axl__adir_set_num(&d, dev, "power1_max", AXL_ATTR_POWER_LIMIT, 1e-6, false, 0) && xe)
		axl__adir_set_num(&d, dev, "power2_max", AXL_ATTR_POWER_LIMIT, 1e-6, false, 0);
	if (!axl__adir_set_num(&d, dev, "power1_rated_max", AXL_ATTR_POWER_DEFAULT_LIMIT, 1e-6, false, 0) && xe)
		axl__adir_set_num(&d, dev, "power2_rated_max", AXL_ATTR_POWER_DEFAULT_LIMIT, 1e-6, false, 0);
	if (xe) {
		axl__adir_set_num(&d, dev, "temp2_input", AXL_ATTR_TEMPERATURE, 1e-3, true, 0);
		axl__adir_set_num(&d, dev, "temp3_input", AXL_ATTR_TEMPERATURE_MEMORY, 1e-3, true, 0);
	}
	axl__adir_close(&d);
}

/* The running clock: the resolved one when the GT is awake, else the requested one. */
static void gt_clock(struct axl__adir *d, struct axl_device *dev, const char *act, const char *cur,
		     const char *rp0)
{
	if (!axl__adir_set_int(d, dev, act, AXL_ATTR_CLOCK_GRAPHICS, 1, 1, false, 0))
		axl__adir_set_int(d, dev, cur, AXL_ATTR_CLOCK_GRAPHICS, 1, 1, true, 0);
	axl__adir_set_int(d, dev, rp0, AXL_ATTR_CLOCK_GRAPHICS_MAX, 1, 1, false, 0);
}

static void xe_enrich(struct axl__scan *scan, struct axl_device *dev)
{
	long tile0 = -1;
	int tiles = numbered(scan, dev->syspath, "tile", &tile0);
	if (tiles <= 0)
		return;
	axl__add_cu(scan->inv, dev, "tile", tiles, AXL_SOURCE_SYSFS);

	/* VRAM: the sum over tiles (integrated GPUs publish none) */
	uint64_t vram = 0;
	bool have_vram = false;
	for (long t = 0, seen = 0; seen < tiles && t < 64; t++) {
		char tdir[600];
		snprintf(tdir, sizeof tdir, "%s/tile%ld", dev->syspath, t);
		struct axl__adir d;
		if (!axl__adir_open(&d, scan, tdir, SRC))
			continue;
		seen++;
		uint64_t v;
		if (axl__adir_u64(&d, "physical_vram_size_bytes", 0, &v, 0) && v > 0 && v < (1ull << 50)) {
			vram += v;
			have_vram = true;
		}
		if (t == tile0)
			axl__adir_set_int(&d, dev, "memory/freq0/max_freq", AXL_ATTR_CLOCK_MEMORY_MAX, 1, 1, false, 0);
		axl__adir_close(&d);
	}
	if (have_vram)
		axl__set_int(dev, AXL_ATTR_MEMORY_TOTAL, AXL_SOURCE_SYSFS, (int64_t)vram);

	/* clocks of the primary GT: the lowest-numbered GT of the first tile */
	char tdir[600];
	snprintf(tdir, sizeof tdir, "%s/tile%ld", dev->syspath, tile0);
	long gt = -1;
	if (numbered(scan, tdir, "gt", &gt) > 0) {
		char fdir[700];
		snprintf(fdir, sizeof fdir, "%s/gt%ld/freq0", tdir, gt);
		struct axl__adir d;
		if (axl__adir_open(&d, scan, fdir, SRC)) {
			gt_clock(&d, dev, "act_freq", "cur_freq", "rp0_freq");
			axl__adir_close(&d);
		}
	}
	hwmon(scan, dev, "xe", true);
}

/* The DRM card directory of an i915 device. */
static bool i915_card(struct axl__scan *scan, const struct axl_device *dev, char *out, size_t cap)
{
	char best[512];
	if (axl__class_dev(scan, dev, "drm", best, sizeof best) && strstr(best, "/drm/card")) {
		snprintf(out, cap, "%s", best);
		return true;
	}
	/* found through /sys/class/drm/cardN/device (no PCI bus directory) */
	const char *p = dev->syspath;
	size_t n = p ? strlen(p) : 0;
	if (n > 7 && strncmp(p, "/sys/class/drm/card", 19) == 0 && strcmp(p + n - 7, "/device") == 0) {
		snprintf(out, cap, "%.*s", (int)(n - 7), p);
		return true;
	}
	return false;
}

static void i915_enrich(struct axl__scan *scan, struct axl_device *dev)
{
	char card[600];
	if (i915_card(scan, dev, card, sizeof card)) {
		struct axl__adir d;
		if (axl__adir_open(&d, scan, card, SRC)) {
			gt_clock(&d, dev, "gt_act_freq_mhz", "gt_cur_freq_mhz", "gt_RP0_freq_mhz");
			uint64_t total, avail;
			bool have_total = axl__adir_u64(&d, "lmem_total_bytes", 10, &total, 0) && total > 0;
			if (have_total && total >= (1ull << 50)) { /* a PiB of VRAM is not a card */
				axl__adir_warn(&d, "lmem_total_bytes", "larger than any card's memory");
				have_total = false;
			}
			if (have_total) {
				axl__set_int(dev, AXL_ATTR_MEMORY_TOTAL, AXL_SOURCE_SYSFS, (int64_t)total);
				if (axl__adir_u64(&d, "lmem_avail_bytes", 10, &avail, 0)) {
					if (avail <= total)
						axl__set_int(dev, AXL_ATTR_MEMORY_USED, AXL_SOURCE_SYSFS,
							     (int64_t)(total - avail));
					else
						axl__adir_warn(&d, "lmem_avail_bytes", "larger than lmem_total_bytes");
				}
				/* discrete, so every GT is a tile */
				char gtdir[700];
				long low;
				snprintf(gtdir, sizeof gtdir, "%s/gt", card);
				int gts = numbered(scan, gtdir, "gt", &low);
				if (gts > 0)
					axl__add_cu(scan->inv, dev, "tile", gts, AXL_SOURCE_SYSFS);
			}
			axl__adir_close(&d);
		}
	}
	hwmon(scan, dev, "i915", false);
}

static void npu_enrich(struct axl__scan *scan, struct axl_device *dev)
{
	/* no memory of its own: ivpu gives the NPU buffers from the host's system memory
	 * (shmem GEM objects), so what it can use is the host's memory */
	const struct axl_host *h = &scan->inv->host;
	if (h->attr[AXL_HOST_MEMORY_TOTAL].src)
		axl__set_int(dev, AXL_ATTR_MEMORY_SHARED_SYSTEM, (axl_source)h->attr[AXL_HOST_MEMORY_TOTAL].src,
			     h->attr[AXL_HOST_MEMORY_TOTAL].v.i);
	struct axl__adir d;
	if (!axl__adir_open(&d, scan, dev->syspath, SRC))
		return;
	axl__adir_set_int(&d, dev, "npu_busy_time_us", AXL_ATTR_BUSY_TIME, 1, 1, true, 0);
	axl__adir_set_int(&d, dev, "npu_current_frequency_mhz", AXL_ATTR_CLOCK_GRAPHICS, 1, 1, true, 0);
	axl__adir_set_int(&d, dev, "npu_max_frequency_mhz", AXL_ATTR_CLOCK_GRAPHICS_MAX, 1, 1, false, 0);
	axl__adir_set_int(&d, dev, "npu_memory_utilization", AXL_ATTR_MEMORY_USED, 1, 1, true, 0);
	axl__adir_close(&d);
}

static void mic_enrich(struct axl__scan *scan, struct axl_device *dev)
{
	char cd[512];
	struct axl__adir d;
	if (!axl__class_dev(scan, dev, "mic", cd, sizeof cd) || !axl__adir_open(&d, scan, cd, SRC))
		return;
	axl__adir_set_str(&d, dev, "family", AXL_ATTR_ARCHITECTURE, 0);
	axl__adir_set_str(&d, dev, "serialnumber", AXL_ATTR_SERIAL, AXL__SA_EMPTY_UNKNOWN);
	axl__adir_set_str(&d, dev, "state", AXL_ATTR_STATE, 0);
	axl__adir_close(&d);
}

static int intel_enrich(struct axl__scan *scan, const struct axl__backend *self, struct axl_device *dev)
{
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	if (!drv || !dev->syspath)
		return 0;
	if (strcmp(drv, "xe") == 0) {
		xe_enrich(scan, dev);
		axl__sriov(scan, dev, SRC);
	} else if (strcmp(drv, "i915") == 0) {
		i915_enrich(scan, dev);
		axl__sriov(scan, dev, SRC);
	} else if (strcmp(drv, "intel_vpu") == 0) {
		npu_enrich(scan, dev);
	} else if (strcmp(drv, "mic") == 0) {
		mic_enrich(scan, dev);
		return 0;
	} else {
		return 0;
	}
	axl__module_version(scan, dev, drv);
	return 0;
}

/* runtime.c */
const struct axl_runtime *axl__intel_runtime(const struct axl_device *dev);

/* NPUs are processing accelerators (class 0x12); the rest (Xeon Phi, ...) ASICs */
static axl_family intel_family(int cls)
{
	return cls >> 16 == 0x12 ? AXL_FAMILY_NPU : AXL_FAMILY_ASIC;
}

/* Intel bought Altera: its FPGAs keep their vendor id */
static const struct axl__pci_vendor pci_vendors[] = {
	{.id = 0x1172, .name = "Intel Altera", .prefix = "altera", .family = AXL_FAMILY_FPGA},
	{.id = 0x8086, .name = "Intel", .prefix = "intel", .npu_prefix = "intelnpu",
	 .family_of = intel_family},
	{0},
};
static const char *const drivers[] = {"i915", "xe", "intel_vpu", NULL};

extern const struct axl__compute_ops axl__compute_level_zero; /* ze_compute.c */

static const struct axl__backend_facts intel_facts = {
	.pci_vendors = pci_vendors,
	.drivers = drivers,
};

static const struct axl__discover_ops intel_discover = {
	.owns = intel_owns,
	.enrich = intel_enrich,
};

static const struct axl__runtime_ops intel_runtime = {
	.files = axl__intel_runtime,
};

/* the compute path loads the same libze_loader.so.1 sysman discovery does */
static const struct axl__library_ops intel_libs = {
	.compute_env = "AXL_ZE_LIBRARY",
};

const struct axl__backend axl__backend_intel = {
	.name = "intel",
	.facts = &intel_facts,
	.discover = &intel_discover,
	.sample = &axl__intel_sample_ops,
	.runtime = &intel_runtime,
	.libs = &intel_libs,
	.compute = &axl__compute_level_zero,
};
