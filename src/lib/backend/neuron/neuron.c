/* SPDX-License-Identifier: MIT */
/*
 * AWS Inferentia and Trainium (aws-neuron-driver: PCI driver "neuron-driver", module
 * "neuron"). The driver numbers its devices in probe order, which is PCI order, and
 * creates /dev/neuronN and a class device neuron_device/neuronN with no parent
 * (/sys/devices/virtual/neuron_device/neuronN), so device N is matched by that order.
 *
 * neuron_cdev.c, attributes of neuronN (mode 0400: a normal user cannot read them):
 *   core_count         "%d" NeuronCores (no newline)
 *   connected_devices  "%d, %d, ..." the neuron devices linked by NeuronLink
 *   reset              "%d" device state: 0 reset, 1 ready, 2 invalid
 * neuron_sysfs_metrics.c and v1..v4/neuron_dhal_v*.c:
 *   info/serial_number                "%016llx", empty when the firmware did not say
 *   info/architecture/device_name     "Inferentia", "Inferentia2", "Trainium1", "Trainium2", ...
 *   info/architecture/arch_type       "ND" + the device generation ("NDv3")
 *   neuron_core<i>/stats/memory_usage/device_mem/total  bytes of device memory the
 *                                     driver has allocated to core i now (incremented
 *                                     on allocation, decremented on free)
 * Device-to-device links: NeuronLink ports from connected_devices, and "neuronlink"
 * links between each listed pair (added before the generic PCI links, so they win).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "neuron_sample.h"
#include "sysfs.h"
#include "devicedb.h"
#include "sysattr.h"
#include "visibility.h"
#include "util/parse.h"

#define SRC "neuron"
#define MAX_PEERS 16

static bool neuron_owns(const struct axl_device *dev)
{
	return axl__int(dev, AXL_ATTR_VENDOR_ID, -1) == 0x1d0f;
}

static bool bound(const struct axl_device *dev)
{
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	/* the module is "neuron", its PCI driver "neuron-driver" */
	return drv && (strcmp(drv, "neuron") == 0 || strcmp(drv, "neuron-driver") == 0);
}

/* The bound neuron device with driver index n, or NULL. */
static struct axl_device *by_index(struct axl_inventory *inv, int n)
{
	for (size_t i = 0; i < inv->devs.n; i++) {
		struct axl_device *d = inv->devs.v[i];
		if (d->has_pci && neuron_owns(d) && bound(d) && axl__ordinal(inv, d) == n)
			return d;
	}
	return NULL;
}

/* "11, 1" -> indices; false (with a warning) on anything else. */
static int parse_peers(struct axl__adir *d, const char *text, int *peers)
{
	int n = 0;
	char buf[256];
	snprintf(buf, sizeof buf, "%s", text);
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		if (axl__parse_u64(tok, 10, &v) != 0 || v >= 64 || n >= MAX_PEERS) {
			axl__adir_warn(d, "connected_devices", "not a list of device indices: '%.40s'", text);
			return -1;
		}
		peers[n++] = (int)v;
	}
	return n;
}

static void ports(struct axl__scan *scan, struct axl__adir *d, struct axl_device *dev)
{
	char text[256];
	int peers[MAX_PEERS];
	if (!axl__adir_text(d, "connected_devices", text, sizeof text,
			    AXL__SA_REQUIRED | AXL__SA_ROOT_ONLY | AXL__SA_EMPTY_UNKNOWN))
		return;
	int n = parse_peers(d, text, peers);
	for (int i = 0; i < n; i++) {
		struct axl_port *p = axl__add_port(scan->inv, dev, "neuronlink", AXL_SOURCE_SYSFS);
		if (!p)
			return;
		p->index = i;
		struct axl_device *peer = by_index(scan->inv, peers[i]);
		if (peer) {
			p->remote_pci = axl__str(peer, AXL_ATTR_PCI_ADDRESS);
			p->remote_id = axl__future_id(scan->inv, peer);
			p->remote_kind = axl_family_name(axl_device_family(peer));
		} else {
			p->remote_kind = "unknown";
		}
	}
}

static void memory_used(struct axl__scan *scan, const char *dir, struct axl_device *dev, int64_t cores)
{
	uint64_t sum = 0;
	bool any = false;
	for (int64_t i = 0; i < (cores > 0 ? cores : 16) && i < 64; i++) {
		char path[600];
		snprintf(path, sizeof path, "%s/neuron_core%lld/stats/memory_usage/device_mem", dir, (long long)i);
		struct axl__adir m;
		if (!axl__adir_open(&m, scan, path, SRC)) {
			if (cores > 0)
				continue;
			break;
		}
		uint64_t v;
		if (axl__adir_u64(&m, "total", 10, &v, 0) && v < (1ull << 50)) {
			sum += v;
			any = true;
		}
		axl__adir_close(&m);
	}
	if (any)
		axl__set_int(dev, AXL_ATTR_MEMORY_USED, AXL_SOURCE_SYSFS, (int64_t)sum);
}

static int neuron_enrich(struct axl__scan *scan, const struct axl__backend *self, struct axl_device *dev)
{
	if (!bound(dev))
		return 0;
	int n = axl__ordinal(scan->inv, dev);
	char node[32], dir[96];
	snprintf(node, sizeof node, "/dev/neuron%d", n);
	axl__add_node(scan->inv, dev, node);
	axl__module_version(scan, dev, "neuron");

	snprintf(dir, sizeof dir, "/sys/class/neuron_device/neuron%d", n);
	struct axl__adir d;
	if (!axl__adir_open(&d, scan, dir, SRC)) {
		axl__warn(scan->inv, SRC, dir, "missing: no class device for a bound neuron device");
		return 0;
	}
	uint64_t cores = 0;
	if (axl__adir_u64(&d, "core_count", 10, &cores, AXL__SA_REQUIRED | AXL__SA_ROOT_ONLY)) {
		if (cores > 0 && cores <= 64)
			axl__add_cu(scan->inv, dev, "NeuronCore", (int64_t)cores, AXL_SOURCE_SYSFS);
		else
			axl__adir_warn(&d, "core_count", "implausible core count %llu", (unsigned long long)cores);
	}
	ports(scan, &d, dev);
	uint64_t state;
	if (axl__adir_u64(&d, "reset", 10, &state, AXL__SA_ROOT_ONLY)) {
		static const char *const names[] = {"reset", "ready", "invalid"};
		if (state < 3)
			axl__set_str(scan->inv, dev, AXL_ATTR_STATE, AXL_SOURCE_SYSFS, names[state]);
		else
			axl__adir_warn(&d, "reset", "unknown device state %llu", (unsigned long long)state);
	}
	axl__adir_set_str(&d, dev, "info/serial_number", AXL_ATTR_SERIAL, AXL__SA_EMPTY_UNKNOWN);
	char name[64];
	if (axl__adir_text(&d, "info/architecture/device_name", name, sizeof name, 0) && !axl__db_knows(scan, dev)) {
		char model[96];
		snprintf(model, sizeof model, "AWS %s", name);
		axl__set_str(scan->inv, dev, AXL_ATTR_MODEL, AXL_SOURCE_SYSFS, model);
		axl__adir_set_str(&d, dev, "info/architecture/arch_type", AXL_ATTR_ARCHITECTURE, 0);
	}
	memory_used(scan, dir, dev, (int64_t)cores);
	axl__adir_close(&d);
	return 0;
}

/* A "neuronlink" link for every pair one of them lists, counting the ports. */
static int neuron_finish(struct axl__scan *scan, const struct axl__backend *self)
{
	struct axl_inventory *inv = scan->inv;
	for (size_t i = 0; i < inv->devs.n; i++) {
		struct axl_device *a = inv->devs.v[i];
		if (!neuron_owns(a) || !a->ports.n)
			continue;
		const char *ida = axl__future_id(inv, a);
		for (size_t k = 0; k < a->ports.n; k++) {
			const struct axl_port *p = &a->ports.v[k];
			if (!p->remote_id || strcmp(p->technology, "neuronlink") != 0 || strcmp(p->remote_id, ida) == 0)
				continue;
			/* counted once, from the first port naming the pair */
			bool seen = false;
			for (size_t j = 0; j < k && !seen; j++)
				seen = a->ports.v[j].remote_id && strcmp(a->ports.v[j].remote_id, p->remote_id) == 0;
			for (size_t l = 0; l < inv->links.n && !seen; l++) {
				const struct axl_link *x = &inv->links.v[l];
				seen = (strcmp(x->a, ida) == 0 && strcmp(x->b, p->remote_id) == 0) ||
				       (strcmp(x->b, ida) == 0 && strcmp(x->a, p->remote_id) == 0);
			}
			if (seen)
				continue;
			int count = 0;
			for (size_t j = k; j < a->ports.n; j++)
				count += a->ports.v[j].remote_id && strcmp(a->ports.v[j].remote_id, p->remote_id) == 0;
			struct axl_link *l = AXL__VEC_PUSH(inv->links);
			if (!l)
				return 0;
			/* the lower id first, as the generic pass writes pairs */
			const char *colon = strrchr(p->remote_id, ':');
			bool a_first = !colon || axl__ordinal(inv, a) < (int)strtol(colon + 1, NULL, 10);
			l->a = a_first ? ida : p->remote_id;
			l->b = a_first ? p->remote_id : ida;
			l->kind = "neuronlink";
			l->bandwidth_gbps = -1;
			l->source = AXL_SOURCE_SYSFS;
			l->link_count = count;
		}
	}
	return 0;
}

/* runtime.c */
const struct axl_runtime *axl__neuron_runtime(const struct axl_device *dev);

/* In a tree /dev holds plain files: /dev/neuronN is minor N of the driver's major
 * (/proc/devices), for the device cgroup check (visibility/). */
static bool neuron_vis_devnum(const struct axl__vis *v, const char *rel, unsigned *mj, unsigned *mn)
{
	long m;
	if (strncmp(rel, "neuron", 6) != 0 || !axl__vis_digits(rel + 6) || (m = axl__vis_chr_major(v, "neuron")) < 0)
		return false;
	*mj = (unsigned)m;
	*mn = (unsigned)strtoul(rel + 6, NULL, 10);
	return true;
}

/* Inferentia and Trainium are "system peripheral" 0x0880 */
static bool neuron_id(int vendor, int device, int cls)
{
	(void)vendor;
	(void)device;
	return cls >> 8 == 0x0880;
}

/* the EC2 instance console */
static bool ec2_console(int device)
{
	return device == 0x1111;
}

static const struct axl__pci_vendor pci_vendors[] = {
	{.id = 0x1d0f, .name = "AWS", .prefix = "neuron",
	 .console = ec2_console, .accel_id = neuron_id},
	{0},
};
static const char *const drivers[] = {"neuron", "neuron-driver", NULL};

static const struct axl__backend_facts neuron_facts = {
	.pci_vendors = pci_vendors,
	.drivers = drivers,
};

static const struct axl__discover_ops neuron_discover = {
	.owns = neuron_owns,
	.enrich = neuron_enrich,
	.finish = neuron_finish,
};

static const struct axl__vis_ops neuron_vis = {
	.devnum = neuron_vis_devnum,
};

static const struct axl__runtime_ops neuron_runtime = {
	.files = axl__neuron_runtime,
};

const struct axl__backend axl__backend_neuron = {
	.name = "neuron",
	.facts = &neuron_facts,
	.discover = &neuron_discover,
	.sample = &axl__neuron_sample_ops,
	.vis = &neuron_vis,
	.runtime = &neuron_runtime,
};
