/* SPDX-License-Identifier: MIT */
/*
 * The device plugin's knowledge (plugin.h): which resource each accelerator is advertised
 * under, its ID, health and topology. The answers to the kubelet are answer.c (the list),
 * preferred.c (GetPreferredAllocation) and allocate.c (Allocate). Over libaxl's public
 * API; vendor facts come from axl_device_runtime() (resource names, the partition
 * resource prefix, the visibility variable), so no vendor is named here.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "islands.h"
#include "plugin.h"

/* ---- building the node's resources ------------------------------------------------- */

static char *xdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void edits_free(struct kp_edits *e)
{
	free(e->cdi);
	for (size_t i = 0; i < e->n_nodes; i++)
		free(e->nodes[i]);
	free(e->nodes);
	for (size_t i = 0; i < e->n_env; i++)
		free(e->env[i]);
	free(e->env);
	for (size_t i = 0; i < e->n_mounts; i++) {
		free(e->mount_host[i]);
		free(e->mount_ctr[i]);
	}
	free(e->mount_host);
	free(e->mount_ctr);
	memset(e, 0, sizeof *e);
}

static int edits_copy(struct kp_edits *d, const struct kp_edits *s)
{
	memset(d, 0, sizeof *d);
	d->cdi = xdup(s->cdi);
	d->nodes = calloc(s->n_nodes + 1, sizeof *d->nodes);
	d->env = calloc(s->n_env + 1, sizeof *d->env);
	d->mount_host = calloc(s->n_mounts + 1, sizeof *d->mount_host);
	d->mount_ctr = calloc(s->n_mounts + 1, sizeof *d->mount_ctr);
	if (!d->nodes || !d->env || !d->mount_host || !d->mount_ctr || (s->cdi && !d->cdi))
		return -1;
	for (; d->n_mounts < s->n_mounts; d->n_mounts++) {
		d->mount_host[d->n_mounts] = strdup(s->mount_host[d->n_mounts]);
		d->mount_ctr[d->n_mounts] = strdup(s->mount_ctr[d->n_mounts]);
		if (!d->mount_host[d->n_mounts] || !d->mount_ctr[d->n_mounts]) {
			d->n_mounts++;
			return -1;
		}
	}
	for (; d->n_nodes < s->n_nodes; d->n_nodes++)
		if (!(d->nodes[d->n_nodes] = strdup(s->nodes[d->n_nodes])))
			return -1;
	for (; d->n_env < s->n_env; d->n_env++)
		if (!(d->env[d->n_env] = strdup(s->env[d->n_env])))
			return -1;
	return 0;
}

static void dev_free(struct kp_dev *d)
{
	free(d->id);
	free(d->unit);
	free(d->axl_id);
	free(d->uuid);
	edits_free(&d->ed);
}

void kp_node_free(struct kp_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++) {
		for (size_t j = 0; j < n->res[i].n; j++)
			dev_free(&n->res[i].devs[j]);
		free(n->res[i].devs);
		free(n->res[i].name);
		free(n->res[i].socket);
	}
	free(n->res);
	free(n);
}

struct kp_resource *kp_find(const struct kp_node *n, const char *name)
{
	for (size_t i = 0; n && i < n->n; i++)
		if (strcmp(n->res[i].name, name) == 0)
			return &n->res[i];
	return NULL;
}

/* The resource named name, made when new; NULL out of memory. */
static struct kp_resource *resource(struct kp_node *n, const char *name)
{
	struct kp_resource *r = kp_find(n, name);
	if (r)
		return r;
	struct kp_resource *nr = realloc(n->res, (n->n + 1) * sizeof *nr);
	if (!nr)
		return NULL;
	n->res = nr;
	r = &n->res[n->n];
	memset(r, 0, sizeof *r);
	r->name = strdup(name);
	/* axl-<name>.sock with '/' as '_': "axl-nvidia.com_gpu.sock" */
	if (asprintf(&r->socket, "axl-%s.sock", name) < 0)
		r->socket = NULL;
	for (char *p = r->socket; p && *p; p++)
		if (*p == '/')
			*p = '_';
	if (!r->name || !r->socket) {
		free(r->name);
		free(r->socket);
		return NULL;
	}
	n->n++;
	return r;
}

static int add_dev(struct kp_resource *r, const struct kp_dev *d)
{
	struct kp_dev *nd = realloc(r->devs, (r->n + 1) * sizeof *nd);
	if (!nd)
		return -1;
	r->devs = nd;
	r->devs[r->n++] = *d;
	return 0;
}

static const char *str_attr(const axl_device *d, axl_attr a)
{
	const char *s = NULL;
	return axl_device_get_str(d, a, &s) == 0 ? s : NULL;
}

static int64_t int_attr(const axl_device *d, axl_attr a, int64_t dflt)
{
	int64_t v;
	return axl_device_get_int(d, a, &v) == 0 ? v : dflt;
}

/* A state a device reports that makes it unusable: lost, malfunctioning, being reset. */
static bool fatal_state(const axl_device *d)
{
	const char *s = str_attr(d, AXL_ATTR_STATE);
	return s && (strcasestr(s, "lost") || strcasestr(s, "malfunction") || strcasestr(s, "reset"));
}

/* The device's own node is gone (its driver unbound, the device hot-removed) on a node
 * whose /dev is there to look at. */
static bool node_gone(const struct kp_options *o, const axl_device *d)
{
	const char *n = axl_device_primary_node(d);
	if (o->simulated || !n)
		return false;
	char p[4096];
	snprintf(p, sizeof p, "%s%s", o->sysroot && strcmp(o->sysroot, "/") != 0 ? o->sysroot : "", n);
	struct stat st;
	return lstat(p, &st) != 0;
}

/* The device's partitioning technology of this runtime, when its mode is enabled. */
static bool partitions_enabled(const axl_device *d, const struct axl_runtime *rt)
{
	if (!rt || !rt->partitions)
		return false;
	for (size_t i = 0; i < axl_device_partitioning_count(d); i++) {
		const struct axl_partitioning *p = axl_device_partitioning(d, i);
		if (p->technology && strcmp(p->technology, rt->partitions) == 0)
			return p->mode && strcmp(p->mode, "enabled") == 0;
	}
	return false;
}

/* A name the kubelet takes for an extended resource: a domain, '/', and at most 63
 * letters, digits, '-', '_' or '.', a letter or digit at each end (Kubernetes'
 * IsQualifiedName). */
static bool resource_name_ok(const char *s)
{
	const char *slash = strchr(s, '/');
	if (!slash || slash == s)
		return false;
	for (const char *c = s; c < slash; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-')
			return false;
	const char *n = slash + 1;
	size_t len = strlen(n);
	if (len == 0 || len > 63 || !isalnum((unsigned char)n[0]) || !isalnum((unsigned char)n[len - 1]))
		return false;
	for (const char *c = n; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.')
			return false;
	return true;
}

/* The resource name the vendor's plugin gives dev after a partition profile or mode
 * (rt->partition_resource_name; else rt->partition_resource and a partition's profile),
 * into buf; false when it gives none, or one the kubelet would refuse (*bad set). */
static bool profile_resource(const struct axl_runtime *rt, const axl_device *dev, char *buf, size_t cap, bool *bad)
{
	*bad = false;
	buf[0] = '\0';
	if (rt->partition_resource_name) {
		if (rt->partition_resource_name(dev, buf, cap) != 0)
			return false;
	} else {
		const char *prof = axl_device_parent(dev) ? str_attr(dev, AXL_ATTR_PARTITION_PROFILE) : NULL;
		if (!prof || !rt->partition_resource)
			return false;
		snprintf(buf, cap, "%s%s", rt->partition_resource, prof);
	}
	*bad = !resource_name_ok(buf);
	return !*bad;
}

/* One advertised unit (a device or a partition) with its shares, into resource rname. */
static int advertise(struct kp_node *node, const char *rname, const axl_device *d, const axl_device *parent,
		     const struct axl_runtime *rt, int island, const struct kp_options *o, kp_edits_fn fn, void *ud,
		     void (*note)(void *, const char *), char *err, size_t cap)
{
	struct kp_edits ed;
	memset(&ed, 0, sizeof ed);
	char msg[512];
	if (fn(ud, d, &ed) != 0) {
		edits_free(&ed);
		snprintf(msg, sizeof msg, "%s: no device nodes (no CDI device): not advertised", axl_device_id(d));
		if (note)
			note(ud, msg);
		return 0;
	}
	const char *uuid = str_attr(d, AXL_ATTR_UUID);
	const char *pci = str_attr(parent ? parent : d, AXL_ATTR_PCI_ADDRESS);
	char unit[256];
	if (uuid) {
		snprintf(unit, sizeof unit, "%s", uuid);
	} else if (!parent && pci) {
		snprintf(unit, sizeof unit, "%s", pci);
	} else if (parent) {
		/* a partition without a UUID of its own (AMD's): its device's stable ID and the
		 * partition's name there ("GPU-5ec3b1f3a2b8f8a0/xcp3"), which does not move when
		 * another device goes and axl's indexes shift */
		const char *pid = axl_device_id(parent), *cid = axl_device_id(d),
			   *puuid = str_attr(parent, AXL_ATTR_UUID);
		size_t pl = strlen(pid);
		const char *part = strncmp(cid, pid, pl) == 0 && cid[pl] == '/' ? cid + pl + 1 : cid;
		snprintf(unit, sizeof unit, "%s/%s", puuid ? puuid : pci ? pci : pid, part);
	} else {
		snprintf(unit, sizeof unit, "%s", axl_device_id(d));
	}
	const axl_device *top = parent ? parent : d;
	int shares = o->shares > 1 && rt && (rt->flags & AXL_RUNTIME_PRELOAD_LIMITS) ? o->shares : 1;
	if (o->shares > 1 && shares == 1) {
		snprintf(msg, sizeof msg,
			 "%s: no limiter holds this kind of device: advertised whole, not as %d shares",
			 axl_device_id(d), o->shares);
		if (note)
			note(ud, msg);
	}
	struct kp_resource *r = resource(node, rname);
	if (!r) {
		edits_free(&ed);
		snprintf(err, cap, "out of memory");
		return -1;
	}
	for (int k = 0; k < shares; k++) {
		struct kp_dev dv;
		memset(&dv, 0, sizeof dv);
		char id[300];
		if (shares > 1)
			snprintf(id, sizeof id, "%s::%d", unit, k);
		else
			snprintf(id, sizeof id, "%s", unit);
		dv.id = strdup(id);
		dv.unit = strdup(unit);
		dv.share = shares > 1 ? k : -1;
		dv.healthy =
		    !fatal_state(d) && !fatal_state(top) && !node_gone(o, d) && (d == top || !node_gone(o, top));
		dv.numa = int_attr(top, AXL_ATTR_NUMA_NODE, -1);
		/* a MIG device does not use its GPU's links; partitions that replace their device
		 * (AMD's) come in the island kp_build gives: their device, so that a request is
		 * served from one GPU's partitions first, as ROCm's best-effort policy does */
		dv.island = parent && !(rt && (rt->flags & AXL_RUNTIME_PARTITIONS_REPLACE)) ? -1 : island;
		dv.axl_id = strdup(axl_device_id(d));
		dv.uuid = xdup(uuid);
		dv.memory_bytes = int_attr(d, AXL_ATTR_MEMORY_TOTAL, -1);
		dv.visible_env = rt ? rt->visible_env : NULL;
		int bad = !dv.id || !dv.unit || !dv.axl_id || (uuid && !dv.uuid) || edits_copy(&dv.ed, &ed) != 0;
		if (bad || add_dev(r, &dv) != 0) {
			dev_free(&dv);
			edits_free(&ed);
			snprintf(err, cap, "out of memory");
			return -1;
		}
	}
	edits_free(&ed);
	return 0;
}

/* The partition modes of the node's devices whose partitions replace them: the first
 * mode's resource name, its device and runtime, and whether a second mode was said. */
struct modes {
	const struct axl_runtime *rt;
	const char *dev;
	char first[128];
	bool said;
};

/* A device whose partitions replace it (AXL_RUNTIME_PARTITIONS_REPLACE: AMD's compute
 * partitions): each partition it has, else the device, under the resource named after
 * its mode when the strategy is mixed and the vendor names one, else under rname. The
 * partitions of one device are an island: the device's index, idx. Under single and
 * none the node's devices are in one mode, as ROCm's plugin asks under its single
 * strategy (cmd/k8s-device-plugin/main.go, getResourceList): single refuses a node of
 * several modes as it does; none serves it, every partition under rname, and says so. */
static int advertise_replaced(struct kp_node *node, const char *rname, const axl_device *d, int island, int idx,
			      const struct axl_runtime *rt, const struct kp_options *o, struct modes *m, kp_edits_fn fn,
			      void *ud, void (*note)(void *, const char *), char *err, size_t cap)
{
	const char *opt = o->parts_option ? o->parts_option : "the partition strategy";
	char mode[128], msg[768];
	bool bad;
	bool named = profile_resource(rt, d, mode, sizeof mode, &bad);
	if (bad && note) {
		snprintf(msg, sizeof msg,
			 "%s: the vendor's name for its partition mode, '%s', is not one the kubelet takes: advertised "
			 "as %s",
			 axl_device_id(d), mode, rname);
		note(ud, msg);
	}
	if (named && o->parts != KP_PARTS_MIXED && (!m->rt || m->rt == rt)) {
		if (!m->rt) {
			m->rt = rt;
			m->dev = axl_device_id(d);
			snprintf(m->first, sizeof m->first, "%s", mode);
		} else if (strcmp(m->first, mode) != 0) {
			snprintf(msg, sizeof msg, "%s and %s are in different partition modes (%s, %s)", m->dev,
				 axl_device_id(d), m->first, mode);
			if (o->parts == KP_PARTS_SINGLE) {
				snprintf(err, cap, "%s single: %s; use %s mixed", opt, msg, opt);
				return -1;
			}
			if (!m->said && note) {
				size_t l = strlen(msg);
				snprintf(msg + l, sizeof msg - l,
					 ": every partition is advertised as %s alike (%s mixed names them apart)",
					 rname, opt);
				note(ud, msg);
			}
			m->said = true;
		}
	}
	const char *name = o->parts == KP_PARTS_MIXED && named ? mode : rname;
	size_t nc = axl_device_child_count(d);
	if (nc == 0)
		return advertise(node, name, d, NULL, rt, island, o, fn, ud, note, err, cap);
	for (size_t c = 0; c < nc; c++)
		if (advertise(node, name, axl_device_child(d, c), d, rt, idx, o, fn, ud, note, err, cap) != 0)
			return -1;
	return 0;
}

int kp_build(const axl_inventory *inv, const struct kp_options *o, kp_edits_fn fn, void *ud,
	     void (*note)(void *, const char *), struct kp_node **out, char *err, size_t cap)
{
	*out = NULL;
	struct kp_node *node = calloc(1, sizeof *node);
	if (!node) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	size_t nd = axl_inventory_device_count(inv);
	int *isl = calloc(nd ? nd : 1, sizeof *isl);
	if (!isl) {
		free(node);
		snprintf(err, cap, "out of memory");
		return -1;
	}
	kp_islands(inv, isl, NULL, nd);
	char msg[512];
	/* KP_PARTS_SINGLE: what the vendor's own plugin requires (NVIDIA's
	 * internal/rm/device_map.go): every partitioned device has partitions, all of one
	 * profile, and no whole device is advertised beside them under the same name */
	const char *opt = o->parts_option ? o->parts_option : "the partition strategy";
	const char *single_profile = NULL;
	const char *single_whole = NULL, *single_part = NULL;
	struct modes modes;
	memset(&modes, 0, sizeof modes);
	int rc = 0;
	for (size_t i = 0; i < nd && rc == 0; i++) {
		const axl_device *d = axl_inventory_device(inv, i);
		if (axl_device_family(d) == AXL_FAMILY_CPU)
			continue;
		const struct axl_runtime *rt = axl_device_runtime(d);
		const char *rname = rt ? (rt->resource ? rt->resource : rt->kind) : NULL;
		if (!rname) {
			const char *model = str_attr(d, AXL_ATTR_MODEL);
			snprintf(msg, sizeof msg,
				 "%s (%s): no Kubernetes resource name is known for it: not advertised",
				 axl_device_id(d), model ? model : "unknown model");
			if (note)
				note(ud, msg);
			continue;
		}
		if (rt->flags & AXL_RUNTIME_PARTITIONS_REPLACE) {
			rc = advertise_replaced(node, rname, d, isl[i], (int)i, rt, o, &modes, fn, ud, note, err, cap);
			continue;
		}
		if (o->parts != KP_PARTS_NONE && partitions_enabled(d, rt)) {
			size_t nc = axl_device_child_count(d);
			if (nc == 0) {
				snprintf(msg, sizeof msg,
					 "%s: %s mode is enabled but no partition exists: nothing to advertise",
					 axl_device_id(d), rt->partitions);
				if (o->parts == KP_PARTS_SINGLE) {
					snprintf(err, cap, "%s single: %s", opt, msg);
					rc = -1;
					break;
				}
				if (note)
					note(ud, msg);
				continue;
			}
			for (size_t c = 0; c < nc && rc == 0; c++) {
				const axl_device *ch = axl_device_child(d, c);
				const char *prof = str_attr(ch, AXL_ATTR_PARTITION_PROFILE);
				char name[256];
				if (o->parts == KP_PARTS_SINGLE) {
					if (!prof) {
						snprintf(err, cap, "%s single: the profile of %s is not known", opt,
							 axl_device_id(ch));
						rc = -1;
						break;
					}
					if (single_profile && strcmp(single_profile, prof) != 0) {
						snprintf(err, cap,
							 "%s single: more than one %s profile on the node (%s and %s); "
							 "use %s mixed",
							 opt, rt->partitions, single_profile, prof, opt);
						rc = -1;
						break;
					}
					single_profile = prof;
					single_part = axl_device_id(ch);
					snprintf(name, sizeof name, "%s", rname);
				} else {
					bool bad;
					if (!profile_resource(rt, ch, name, sizeof name, &bad)) {
						if (bad)
							snprintf(msg, sizeof msg,
								 "%s: the vendor's resource name for profile %s, '%s', "
								 "is not one the kubelet takes: not advertised",
								 axl_device_id(ch), prof ? prof : "?", name);
						else
							snprintf(msg, sizeof msg, "%s: %s: not advertised",
								 axl_device_id(ch),
								 !prof
								     ? "its profile is not known"
								     : "the vendor names no resource for its profile");
						if (note)
							note(ud, msg);
						continue;
					}
				}
				rc = advertise(node, name, ch, d, rt, -1, o, fn, ud, note, err, cap);
			}
			continue;
		}
		if (o->parts == KP_PARTS_SINGLE && rt->partitions)
			single_whole = axl_device_id(d);
		rc = advertise(node, rname, d, NULL, rt, isl[i], o, fn, ud, note, err, cap);
	}
	free(isl);
	if (rc == 0 && single_whole && single_part) {
		snprintf(err, cap,
			 "%s single: every device must have its partition mode alike (%s is whole, %s is a partition); "
			 "use %s mixed",
			 opt, single_whole, single_part, opt);
		rc = -1;
	}
	if (rc) {
		kp_node_free(node);
		return -1;
	}
	*out = node;
	return 0;
}

int kp_keep_lost(struct kp_node *now, const struct kp_node *prev)
{
	for (size_t i = 0; prev && i < prev->n; i++) {
		const struct kp_resource *pr = &prev->res[i];
		for (size_t j = 0; j < pr->n; j++) {
			const struct kp_dev *pd = &pr->devs[j];
			struct kp_resource *nr = kp_find(now, pr->name);
			bool there = false;
			for (size_t k = 0; nr && k < nr->n && !there; k++)
				there = strcmp(nr->devs[k].id, pd->id) == 0;
			if (there)
				continue;
			if (!nr && !(nr = resource(now, pr->name)))
				return -1;
			struct kp_dev dv = *pd;
			dv.id = strdup(pd->id);
			dv.unit = strdup(pd->unit);
			dv.axl_id = strdup(pd->axl_id);
			dv.uuid = xdup(pd->uuid);
			dv.healthy = 0;
			memset(&dv.ed, 0, sizeof dv.ed);
			if (!dv.id || !dv.unit || !dv.axl_id || edits_copy(&dv.ed, &pd->ed) != 0 ||
			    add_dev(nr, &dv) != 0) {
				dev_free(&dv);
				return -1;
			}
		}
	}
	return 0;
}
