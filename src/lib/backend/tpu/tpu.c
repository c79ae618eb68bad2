/* SPDX-License-Identifier: MIT */
/*
 * Google TPUs (PCI vendor 1ae0; device 0x0027 v2/v3, 0x005e v4, 0x0056 v4 lite, 0x0063
 * v5e, 0x0062 v5p, 0x006f v6e: gVisor pkg/abi/tpu, JAX hardware_utils.py). On Cloud
 * TPU VMs, v5e and later are handed to user space through VFIO: the function is bound
 * to vfio-pci and used as /dev/vfio/<iommu group> plus /dev/vfio/vfio (added by the
 * generic scan from the iommu_group link); v4 and older use Google's TPU driver, whose
 * class device <bdf>/accel/accel<N> gives /dev/accel<N> (gVisor runsc TPU proxy path
 * patterns). Neither driver publishes chip facts in sysfs: identity, memory and
 * TensorCores come from the device database, one device per chip. Edge TPUs (Coral,
 * vendor 1ac1) use the apex/gasket driver (/dev/apex_N).
 */
#define _GNU_SOURCE
#include <string.h>

#include "backend.h"
#include "devicedb.h"
#include "sysattr.h"

static bool tpu_owns(const struct axl_device *dev)
{
	int64_t v = axl__int(dev, AXL_ATTR_VENDOR_ID, -1);
	return v == 0x1ae0 || v == 0x1ac1;
}

static int tpu_enrich(struct axl__scan *scan, const struct axl__backend *self, struct axl_device *dev)
{
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	if (!drv)
		return 0;
	if (strcmp(drv, "apex") == 0 || strcmp(drv, "gasket") == 0)
		axl__module_version(scan, dev, drv);
	else if (strcmp(drv, "vfio-pci") != 0) /* vfio's version says nothing about the TPU */
		axl__driver_module_version(scan, dev);
	return 0;
}

/* The chips of one TPU VM are one slice of the same model: every chip reaches the others
 * over ICI (a torus or mesh: through neighbours, with all its ports), not over PCIe. The
 * link's bandwidth is the chip's ICI figure from the device database (its "ici" key);
 * sysfs says nothing about ICI. */
static bool ici_fabric(const struct axl_inventory *inv, const struct axl_device *dev, struct axl__fabric *out)
{
	(void)inv;
	const struct axl__db_entry *e = dev->db;
	if (!e || !e->s_ici_topology || !tpu_owns(dev))
		return false;
	out->kind = "ici";
	out->domain = (uint64_t)(uintptr_t)e; /* one slice per model on a host */
	out->links = e->ici_ports;
	out->link_gbps = e->ici_gbps > 0 ? (e->ici_ports ? e->ici_gbps / e->ici_ports : e->ici_gbps) : -1;
	out->source = AXL_SOURCE_DEVICEDB;
	return true;
}

/* runtime.c */
const struct axl_runtime *axl__tpu_runtime(const struct axl_device *dev);

/* anything that is not a NIC, storage, bridge or serial bus (nor 1ae0:0042, gVNIC) */
static bool tpu_id(int vendor, int device, int cls)
{
	int base = cls >> 16;
	return base != 0x01 && base != 0x02 && base != 0x06 && base != 0x0c && cls >= 0 &&
	       !(vendor == 0x1ae0 && device == 0x0042);
}

static const struct axl__pci_vendor pci_vendors[] = {
	{.id = 0x1ac1, .name = "Google", .prefix = "tpu",
	 .family = AXL_FAMILY_TPU, .accel_id = tpu_id},
	{.id = 0x1ae0, .name = "Google", .prefix = "tpu",
	 .family = AXL_FAMILY_TPU, .accel_id = tpu_id},
	{0},
};
static const char *const drivers[] = {"apex", "gasket", NULL};

static const struct axl__backend_facts tpu_facts = {
	.pci_vendors = pci_vendors,
	.drivers = drivers,
};

static const struct axl__discover_ops tpu_discover = {
	.owns = tpu_owns,
	.enrich = tpu_enrich,
};

static const struct axl__fabric_ops tpu_fabric = {
	.device = ici_fabric,
};

static const struct axl__runtime_ops tpu_runtime = {
	.files = axl__tpu_runtime,
};

const struct axl__backend axl__backend_tpu = {
	.name = "tpu",
	.facts = &tpu_facts,
	.discover = &tpu_discover,
	.fabric = &tpu_fabric,
	.runtime = &tpu_runtime,
};
