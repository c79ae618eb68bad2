/* SPDX-License-Identifier: MIT */
/*
 * What connects accelerators besides PCIe, as sysfs shows it:
 *
 * Fabric switches: PCI functions that a backend recognises as switches of its direct
 * fabric (struct axl__backend.fabric_switch); their generation tells the backends which
 * devices sit on them (links.c asks their fabric op).
 *
 * RDMA NICs. /sys/class/infiniband/<dev> (drivers/infiniband/core/sysfs.c): the class
 * device sits under its PCI function; ports/<n>/state "4: ACTIVE", rate
 * "400 Gb/sec (4X NDR)", link_layer "InfiniBand" | "Ethernet"; node_guid
 * "%04x:%04x:%04x:%04x". Every accelerator's path to every NIC comes from the PCI tree
 * (pcitree.c), and the nearest NIC (for GPUDirect RDMA) is the best of those paths.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "discover.h"
#include "sysfs.h"
#include "util/parse.h"

#define SRC "fabric"
#define MAX_NICS 256
#define MAX_PORTS 16

static int read_numa(struct axl_inventory *inv, const char *dir)
{
	int64_t v;
	if (axl__read_i64(inv, SRC, AXL__FS_ROOT, dir, "numa_node", &v, 0) && v >= 0 && v < 65536)
		return (int)v;
	return -1;
}

static void scan_switches(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	for (size_t i = 0; i < inv->pcifns.n; i++) {
		const struct axl__pcifn *f = &inv->pcifns.v[i];
		const char *kind = NULL;
		int generation = -1;
		for (size_t b = 0; b < axl__backend_total && !kind; b++)
			if (axl__backends[b]->fabric && axl__backends[b]->fabric->switch_of)
				kind = axl__backends[b]->fabric->switch_of(f, &generation);
		if (!kind)
			continue;
		struct axl_switch *s = AXL__VEC_PUSH(inv->switches);
		if (!s) {
			inv->arena.failed = true;
			return;
		}
		char dir[128];
		snprintf(dir, sizeof dir, "/sys/bus/pci/devices/%s", f->pub.address);
		s->kind = kind;
		s->pci_address = f->pub.address;
		s->vendor_id = f->pub.vendor_id;
		s->device_id = f->pub.device_id;
		s->generation = generation;
		s->driver = f->pub.driver;
		s->numa_node = f->numa_node >= 0 ? f->numa_node : read_numa(inv, dir);
		s->source = AXL_SOURCE_SYSFS;
	}
}

/* ---- RDMA NICs ------------------------------------------------------------------------ */

/* "mlx5_2" before "mlx5_10": digit runs compare as numbers. */
static int natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			while (*a == '0' && a[1] >= '0' && a[1] <= '9')
				a++;
			while (*b == '0' && b[1] >= '0' && b[1] <= '9')
				b++;
			const char *ea = a, *eb = b;
			while (*ea >= '0' && *ea <= '9')
				ea++;
			while (*eb >= '0' && *eb <= '9')
				eb++;
			if (ea - a != eb - b)
				return ea - a < eb - b ? -1 : 1;
			int c = strncmp(a, b, (size_t)(ea - a));
			if (c)
				return c;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int cmp_nic(const void *x, const void *y)
{
	return natural_cmp(((const struct axl__nic *)x)->pub.name, ((const struct axl__nic *)y)->pub.name);
}

static bool valid_guid(const char *s)
{
	if (strlen(s) != 19)
		return false;
	for (int i = 0; i < 19; i++)
		if (i % 5 == 4 ? s[i] != ':' : !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* Read one port; true when it is active. */
static bool read_port(struct axl_inventory *inv, const char *pdir, char *state, size_t scap,
		      char *layer, size_t lcap, double *rate)
{
	char buf[128];
	state[0] = layer[0] = '\0';
	*rate = -1;
	if (axl__read_attr(inv, SRC, AXL__FS_ROOT, pdir, "state", buf, sizeof buf, 0)) {
		/* "4: ACTIVE" */
		const char *colon = strchr(buf, ':');
		const char *v = colon ? colon + 1 : buf;
		while (*v == ' ')
			v++;
		if (*v)
			snprintf(state, scap, "%s", v);
	}
	if (axl__read_attr(inv, SRC, AXL__FS_ROOT, pdir, "link_layer", buf, sizeof buf, 0))
		snprintf(layer, lcap, "%s", buf);
	if (axl__read_attr(inv, SRC, AXL__FS_ROOT, pdir, "rate", buf, sizeof buf, 0)) {
		/* "400 Gb/sec (4X NDR)", "2.5 Gb/sec (1X SDR)" */
		char *end = NULL;
		double r = strtod(buf, &end);
		if (end != buf && r > 0 && r < 1e6 && strncmp(end, " Gb/sec", 7) == 0)
			*rate = r;
		else {
			char path[300];
			snprintf(path, sizeof path, "%s/rate", pdir);
			axl__warn(inv, SRC, path, "not a port rate: '%.40s'", buf);
		}
	}
	return strcmp(state, "ACTIVE") == 0;
}

/* Ports: the first active one, else the lowest-numbered one. */
static void read_ports(struct axl_inventory *inv, const char *dir, struct axl_nic *nic)
{
	char pdir[300];
	snprintf(pdir, sizeof pdir, "%s/ports", dir);
	axl__dir *d = axl__fs_opendir(&inv->ctx->fs, AXL__FS_ROOT, pdir);
	if (!d)
		return;
	unsigned ports[MAX_PORTS];
	int n = 0;
	struct dirent *e;
	while ((e = axl__fs_readdir(d)) != NULL) {
		uint64_t p;
		if (e->d_name[0] == '.' || axl__parse_u64(e->d_name, 10, &p) != 0 || p > 255)
			continue;
		if (n < MAX_PORTS)
			ports[n++] = (unsigned)p;
	}
	axl__fs_closedir(d);
	/* in port order */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && ports[j - 1] > ports[j]; j--) {
			unsigned t = ports[j];
			ports[j] = ports[j - 1];
			ports[j - 1] = t;
		}
	nic->port_count = n;
	for (int i = 0; i < n; i++) {
		char one[320], state[64], layer[64];
		double rate;
		snprintf(one, sizeof one, "%s/%u", pdir, ports[i]);
		bool active = read_port(inv, one, state, sizeof state, layer, sizeof layer, &rate);
		if (active || i == 0) {
			nic->state = axl__text(inv, state); /* blank: not known */
			nic->link_layer = axl__text(inv, layer);
			nic->rate_gbit = rate;
		}
		if (active)
			break;
	}
}

static void scan_nic(struct axl__scan *scan, const char *name)
{
	struct axl_inventory *inv = scan->inv;
	char dir[300], target[1024], canon[1024];
	snprintf(dir, sizeof dir, "/sys/class/infiniband/%s", name);
	int dfd = axl__fs_opendir_fd(scan->fs, AXL__FS_ROOT, dir);
	if (dfd < 0) {
		axl__warn(inv, SRC, dir, "%s", dfd == -ENOENT ? "dangling link" :
					       dfd == -ELOOP ? "symbolic link loop" : strerror(-dfd));
		return;
	}
	struct axl__nic *x = AXL__VEC_PUSH(inv->nics);
	if (!x) {
		close(dfd);
		inv->arena.failed = true;
		return;
	}
	struct axl_nic *nic = &x->pub;
	nic->name = axl__arena_strdup(&inv->arena, name);
	nic->numa_node = -1;
	nic->rate_gbit = -1;
	nic->port_count = -1;
	nic->source = AXL_SOURCE_SYSFS;
	/* the class device sits under its PCI function: .../0000:1a:00.0/infiniband/mlx5_0 */
	canon[0] = '\0';
	if (axl__fs_readlink(scan->fs, AXL__FS_ROOT, dir, target, sizeof target) > 0)
		axl__resolve_link("/sys/class/infiniband", target, canon, sizeof canon);
	if (canon[0] && axl__fs_readlink(scan->fs, dfd, "device", target, sizeof target) > 0) {
		char fn[1024];
		axl__resolve_link(canon, target, fn, sizeof fn);
		const char *base = strrchr(fn, '/');
		unsigned dom, bus, dev, func;
		if (base && axl__parse_bdf(base + 1, &dom, &bus, &dev, &func) == 0 &&
		    strncmp(fn, "/sys/devices/", 13) == 0) {
			x->devpath = axl__arena_strdup(&inv->arena, fn);
			nic->pci_address = axl__arena_printf(&inv->arena, "%04x:%02x:%02x.%u", dom, bus, dev, func);
		}
	}
	close(dfd);
	char ddir[320];
	snprintf(ddir, sizeof ddir, "%s/device", dir);
	if (nic->pci_address)
		nic->numa_node = read_numa(inv, ddir);
	char buf[128];
	if (axl__read_attr(inv, SRC, AXL__FS_ROOT, dir, "node_guid", buf, sizeof buf, 0)) {
		if (valid_guid(buf))
			nic->node_guid = axl__arena_strdup(&inv->arena, buf);
		else {
			char path[320];
			snprintf(path, sizeof path, "%s/node_guid", dir);
			axl__warn(inv, SRC, path, "not a GUID: '%.40s'", buf);
		}
	}
	read_ports(inv, dir, nic);
}

static void scan_nics(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	axl__dir *d = axl__fs_opendir(scan->fs, AXL__FS_ROOT, "sys/class/infiniband");
	if (!d)
		return; /* no RDMA stack loaded: no NICs, nothing to say */
	char (*names)[64] = malloc(MAX_NICS * sizeof *names);
	if (!names) {
		axl__fs_closedir(d);
		inv->arena.failed = true;
		return;
	}
	int n = 0;
	struct dirent *e;
	while ((e = axl__fs_readdir(d)) != NULL && n < MAX_NICS) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= 64)
			continue;
		snprintf(names[n++], 64, "%s", e->d_name);
	}
	axl__fs_closedir(d);
	for (int i = 0; i < n; i++)
		scan_nic(scan, names[i]);
	free(names);
	if (inv->nics.n > 1)
		qsort(inv->nics.v, inv->nics.n, sizeof *inv->nics.v, cmp_nic);
}

void axl__fabric_scan(struct axl__scan *scan)
{
	scan_switches(scan);
	scan_nics(scan);
}

/* Every accelerator's path to every NIC; the nearest one (best path, then fewer PCIe
 * switches, then name) becomes its topology.nearest_nic. */
void axl__nics_link(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	size_t nn = inv->nics.n;
	if (!nn || !inv->devs.n)
		return;
	struct axl__chain *nc = malloc(nn * sizeof *nc);
	bool *on = malloc(nn * sizeof *on);
	if (!nc || !on) {
		free(nc);
		free(on);
		inv->arena.failed = true;
		return;
	}
	for (size_t k = 0; k < nn; k++)
		on[k] = axl__chain_split(inv->nics.v[k].devpath, &nc[k]);
	for (size_t i = 0; i < inv->devs.n; i++) {
		struct axl_device *d = inv->devs.v[i];
		if (axl_device_family(d) == AXL_FAMILY_CPU)
			continue;
		struct axl__chain dc;
		bool don = axl__chain_split(d->devpath, &dc);
		enum axl__path best = AXL__PATH_NONE;
		int best_sw = -1;
		size_t best_k = 0;
		for (size_t k = 0; k < nn; k++) {
			const struct axl_nic *nic = &inv->nics.v[k].pub;
			int sw;
			enum axl__path p = axl__pci_path(don ? &dc : NULL, on[k] ? &nc[k] : NULL, d->numa_node,
							 nic->numa_node, &sw);
			if (p == AXL__PATH_NONE)
				continue;
			struct axl_link *l = AXL__VEC_PUSH(inv->nic_links);
			if (!l) {
				inv->arena.failed = true;
				break;
			}
			l->a = axl_device_id(d);
			l->b = nic->name;
			l->kind = axl__path_kind(p);
			l->bandwidth_gbps = -1;
			l->source = AXL_SOURCE_DERIVED;
			l->link_count = -1;
			l->pcie_switches = sw;
			bool fewer = sw >= 0 && (best_sw < 0 || sw < best_sw);
			if (best == AXL__PATH_NONE || p < best || (p == best && p == AXL__PATH_SWITCH && fewer)) {
				best = p;
				best_sw = sw;
				best_k = k;
			}
		}
		/* a vendor library's answer, when one gave it, stands */
		if (best != AXL__PATH_NONE && !axl__known(d, AXL_ATTR_NEAREST_NIC)) {
			axl__set_str(inv, d, AXL_ATTR_NEAREST_NIC, AXL_SOURCE_DERIVED, inv->nics.v[best_k].pub.name);
			axl__set_str(inv, d, AXL_ATTR_NEAREST_NIC_PATH, AXL_SOURCE_DERIVED, axl__path_kind(best));
		}
	}
	free(nc);
	free(on);
}
