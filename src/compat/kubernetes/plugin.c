/* SPDX-License-Identifier: MIT */
/*
 * The device plugin's knowledge (plugin.h): which resource each accelerator is advertised
 * under, its ID, health and topology, the preferred allocation and a container's
 * allocation. Over libaxl's public API; vendor facts come from axl_device_runtime()
 * (resource names, the partition resource prefix, the visibility variable), so no vendor
 * is named here.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plugin.h"

/* ---- a pool: everything one answer hands out, freed at once (kp_release) ----------- */

struct pool {
	struct pool *next;
	max_align_t data[];
};

static void *pmalloc(struct pool **p, size_t n)
{
	struct pool *b = malloc(sizeof *b + (n ? n : 1));
	if (!b)
		return NULL;
	b->next = *p;
	*p = b;
	return b->data;
}

static char *pstrdup(struct pool **p, const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = pmalloc(p, n);
	if (d)
		memcpy(d, s, n);
	return d;
}

void kp_release(void *owner)
{
	struct pool *p = owner;
	while (p) {
		struct pool *n = p->next;
		free(p);
		p = n;
	}
}

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

/* Islands: devices joined by NVLink, NVSwitch or xGMI links (union-find over the
 * inventory's links). island[i] for top-level device i: the smallest index of its
 * island; -1 when it has no such link. */
static void islands(const axl_inventory *inv, int *island, size_t n)
{
	int *up = malloc((n ? n : 1) * sizeof *up);
	char *linked = calloc(n ? n : 1, 1);
	for (size_t i = 0; i < n; i++)
		island[i] = -1;
	if (!up || !linked) {
		free(up);
		free(linked);
		return;
	}
	for (size_t i = 0; i < n; i++)
		up[i] = (int)i;
	for (size_t l = 0; l < axl_inventory_link_count(inv); l++) {
		const struct axl_link *k = axl_inventory_link(inv, l);
		if (!k->kind || (strcmp(k->kind, "nvlink") && strcmp(k->kind, "nvswitch") && strcmp(k->kind, "xgmi")))
			continue;
		int a = -1, b = -1;
		for (size_t i = 0; i < n; i++) {
			const char *id = axl_device_id(axl_inventory_device(inv, i));
			if (k->a && strcmp(id, k->a) == 0)
				a = (int)i;
			if (k->b && strcmp(id, k->b) == 0)
				b = (int)i;
		}
		if (a < 0 || b < 0)
			continue;
		linked[a] = linked[b] = 1;
		while (up[a] != a)
			a = up[a];
		while (up[b] != b)
			b = up[b];
		if (a != b)
			up[a < b ? b : a] = a < b ? a : b;
	}
	for (size_t i = 0; i < n; i++) {
		int r = (int)i;
		while (up[r] != r)
			r = up[r];
		island[i] = linked[i] ? r : -1;
	}
	free(linked);
	free(up);
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
		const char *pid = axl_device_id(parent), *cid = axl_device_id(d), *puuid = str_attr(parent, AXL_ATTR_UUID);
		size_t pl = strlen(pid);
		const char *part = strncmp(cid, pid, pl) == 0 && cid[pl] == '/' ? cid + pl + 1 : cid;
		snprintf(unit, sizeof unit, "%s/%s", puuid ? puuid : pci ? pci : pid, part);
	} else {
		snprintf(unit, sizeof unit, "%s", axl_device_id(d));
	}
	const axl_device *top = parent ? parent : d;
	int shares = o->shares > 1 && rt && (rt->flags & AXL_RUNTIME_PRELOAD_LIMITS) ? o->shares : 1;
	if (o->shares > 1 && shares == 1) {
		snprintf(msg, sizeof msg, "%s: no limiter holds this kind of device: advertised whole, not as %d shares",
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
		dv.healthy = !fatal_state(d) && !fatal_state(top) && !node_gone(o, d) && (d == top || !node_gone(o, top));
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
		snprintf(msg, sizeof msg, "%s: the vendor's name for its partition mode, '%s', is not one the kubelet takes: advertised as %s",
			 axl_device_id(d), mode, rname);
		note(ud, msg);
	}
	if (named && o->parts != KP_PARTS_MIXED && (!m->rt || m->rt == rt)) {
		if (!m->rt) {
			m->rt = rt;
			m->dev = axl_device_id(d);
			snprintf(m->first, sizeof m->first, "%s", mode);
		} else if (strcmp(m->first, mode) != 0) {
			snprintf(msg, sizeof msg, "%s and %s are in different partition modes (%s, %s)", m->dev, axl_device_id(d),
				 m->first, mode);
			if (o->parts == KP_PARTS_SINGLE) {
				snprintf(err, cap, "%s single: %s; use %s mixed", opt, msg, opt);
				return -1;
			}
			if (!m->said && note) {
				size_t l = strlen(msg);
				snprintf(msg + l, sizeof msg - l, ": every partition is advertised as %s alike (%s mixed names them apart)",
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
	islands(inv, isl, nd);
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
			snprintf(msg, sizeof msg, "%s (%s): no Kubernetes resource name is known for it: not advertised",
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
				snprintf(msg, sizeof msg, "%s: %s mode is enabled but no partition exists: nothing to advertise",
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
						snprintf(err, cap, "%s single: more than one %s profile on the node (%s and %s); use %s mixed",
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
							snprintf(msg, sizeof msg, "%s: the vendor's resource name for profile %s, '%s', is not one the kubelet takes: not advertised",
								 axl_device_id(ch), prof ? prof : "?", name);
						else
							snprintf(msg, sizeof msg, "%s: %s: not advertised", axl_device_id(ch),
								 !prof ? "its profile is not known"
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
		snprintf(err, cap, "%s single: every device must have its partition mode alike (%s is whole, %s is a partition); use %s mixed",
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
			if (!dv.id || !dv.unit || !dv.axl_id || edits_copy(&dv.ed, &pd->ed) != 0 || add_dev(nr, &dv) != 0) {
				dev_free(&dv);
				return -1;
			}
		}
	}
	return 0;
}

/* ---- answers --------------------------------------------------------------------- */

int kp_list(const struct kp_resource *r, const struct k8s_device **devs, size_t *n, void **owner)
{
	struct pool *p = NULL;
	struct k8s_device *out = pmalloc(&p, (r->n ? r->n : 1) * sizeof *out);
	if (!out) {
		kp_release(p);
		return -1;
	}
	for (size_t i = 0; i < r->n; i++)
		out[i] = (struct k8s_device){r->devs[i].id, r->devs[i].healthy, r->devs[i].numa};
	*devs = out;
	*n = r->n;
	*owner = p;
	return 0;
}

static const struct kp_dev *dev_of(const struct kp_resource *r, const char *id)
{
	for (size_t i = 0; id && i < r->n; i++)
		if (strcmp(r->devs[i].id, id) == 0)
			return &r->devs[i];
	return NULL;
}

static int refuse(int *code, int c, char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int refuse(int *code, int c, char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
	*code = c;
	return -1;
}

/* What a chosen set leaves behind. Among sets equally good for the container, the one
 * that keeps the most of the node usable for the next request: NVIDIA's go-gpuallocator
 * (best-effort policy) picks the set out of the best split of every available GPU into
 * sets of the size asked, so what it leaves still forms good sets; NVIDIA's plugin issue
 * 1193 shows what it misses (four 1-GPU pods on four NVLink pairs, one GPU of each).
 * Here, the classic best fit: take from the group with the fewest devices left (a
 * broken island before an intact one), then break as few whole groups as possible. A
 * group at three levels: the island (a device without one: its physical device), the
 * island's part on one NUMA node, the physical device (its shares). */
enum { LV_ISLAND, LV_NUMA, LV_UNIT, LV_N };

static bool same_group(const struct kp_dev *a, const struct kp_dev *b, int lv)
{
	bool isl = a->island >= 0 ? a->island == b->island : b->island < 0 && strcmp(a->unit, b->unit) == 0;
	if (lv == LV_ISLAND)
		return isl;
	if (lv == LV_NUMA)
		return isl && a->numa == b->numa;
	return strcmp(a->unit, b->unit) == 0;
}

/* The available devices' groups: index [i * LV_N + lv]. */
struct groups {
	size_t *rep; /* device i's group: the index of its group's first available device */
	int *avail;  /* at a group's first device: the group's available devices */
	int *full;   /* at a group's first device: all of the group's devices, available or not */
	int *taken;  /* scratch, at a group's first device, zero between uses */
};

static void groups_free(struct groups *g)
{
	free(g->rep), free(g->avail), free(g->full), free(g->taken);
}

static int groups_of(struct groups *g, const struct kp_resource *r, const struct kp_dev *const *av, size_t na)
{
	size_t n = (na ? na : 1) * LV_N;
	g->rep = calloc(n, sizeof *g->rep);
	g->avail = calloc(n, sizeof *g->avail);
	g->full = calloc(n, sizeof *g->full);
	g->taken = calloc(n, sizeof *g->taken);
	size_t *firsts = calloc(na ? na : 1, sizeof *firsts);
	if (!g->rep || !g->avail || !g->full || !g->taken || !firsts) {
		free(firsts);
		groups_free(g);
		return -1;
	}
	for (int lv = 0; lv < LV_N; lv++) {
		size_t nf = 0; /* the groups' first devices so far: few (islands, devices) */
		for (size_t i = 0; i < na; i++) {
			size_t f = 0;
			while (f < nf && !same_group(av[firsts[f]], av[i], lv))
				f++;
			if (f == nf) {
				firsts[nf++] = i;
				for (size_t j = 0; j < r->n; j++)
					g->full[i * LV_N + lv] += same_group(av[i], &r->devs[j], lv);
			}
			g->rep[i * LV_N + lv] = firsts[f];
			g->avail[firsts[f] * LV_N + lv]++;
		}
	}
	free(firsts);
	return 0;
}

/* A candidate set's cost, lower first: NVLink/xGMI islands it spans (a device without
 * one counts as its own), then NUMA nodes, then physical devices (shares of one device
 * first); then, level by level, the available devices it leaves in the groups it takes
 * from and the whole groups it breaks. */
struct cost {
	int islands, numas, units;
	int left[LV_N], broken[LV_N];
};

static int cost_cmp(const struct cost *a, const struct cost *b)
{
	int ka[3 + 2 * LV_N] = {a->islands, a->numas, a->units}, kb[3 + 2 * LV_N] = {b->islands, b->numas, b->units};
	for (int lv = 0; lv < LV_N; lv++) {
		ka[3 + 2 * lv] = a->left[lv], ka[4 + 2 * lv] = a->broken[lv];
		kb[3 + 2 * lv] = b->left[lv], kb[4 + 2 * lv] = b->broken[lv];
	}
	for (size_t i = 0; i < sizeof ka / sizeof *ka; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return 0;
}

/* The cost of the set of available devices set[0..n). */
static struct cost cost_of(const struct kp_dev *const *av, const struct groups *g, const size_t *set, size_t n)
{
	struct cost c;
	memset(&c, 0, sizeof c);
	for (size_t i = 0; i < n; i++) {
		const struct kp_dev *d = av[set[i]];
		bool isl = false, numa = false, unit = false;
		for (size_t j = 0; j < i; j++) {
			const struct kp_dev *e = av[set[j]];
			isl |= same_group(e, d, LV_ISLAND);
			numa |= e->numa == d->numa;
			unit |= strcmp(e->unit, d->unit) == 0;
		}
		c.islands += !isl;
		c.numas += !numa;
		c.units += !unit;
	}
	for (int lv = 0; lv < LV_N; lv++) {
		for (size_t i = 0; i < n; i++)
			g->taken[g->rep[set[i] * LV_N + lv] * LV_N + lv]++;
		for (size_t i = 0; i < n; i++) {
			size_t k = g->rep[set[i] * LV_N + lv] * LV_N + lv;
			if (!g->taken[k])
				continue; /* counted */
			c.left[lv] += g->avail[k] - g->taken[k];
			c.broken[lv] += g->avail[k] == g->full[k];
			g->taken[k] = 0;
		}
	}
	return c;
}

/* A set grown from an anchor (an island and a NUMA node) and the must-include devices:
 * each next device the best joining one, in the anchor's island, on its NUMA node, a
 * share of a device already chosen; among those, the one whose groups have the fewest
 * devices left. */
struct grow {
	const struct kp_dev *const *av;
	const struct groups *g;
	size_t na;
	int island;
	long long numa;
	size_t *set;
	size_t k;
	int *left; /* [i * LV_N + lv] at a group's first device: its available devices not chosen */
	bool *chosen;
};

static void grow_key(const struct grow *x, size_t i, int key[1 + LV_N])
{
	const struct kp_dev *d = x->av[i];
	bool same_unit = false;
	for (size_t j = 0; j < x->k && !same_unit; j++)
		same_unit = strcmp(x->av[x->set[j]]->unit, d->unit) == 0;
	key[0] = !(x->island >= 0 && d->island == x->island) * 4 + !(d->numa == x->numa) * 2 + !same_unit;
	for (int lv = 0; lv < LV_N; lv++)
		key[1 + lv] = x->left[x->g->rep[i * LV_N + lv] * LV_N + lv];
}

static void grow_take(struct grow *x, size_t i)
{
	x->chosen[i] = true;
	x->set[x->k++] = i;
	for (int lv = 0; lv < LV_N; lv++)
		x->left[x->g->rep[i * LV_N + lv] * LV_N + lv]--;
}

static void grow(struct grow *x, size_t size)
{
	while (x->k < size) {
		size_t pick = x->na;
		int best[1 + LV_N], key[1 + LV_N];
		for (size_t i = 0; i < x->na; i++) {
			if (x->chosen[i])
				continue;
			grow_key(x, i, key);
			int c = pick == x->na ? -1 : 0;
			for (int q = 0; q < 1 + LV_N && c == 0; q++)
				c = key[q] < best[q] ? -1 : key[q] > best[q];
			if (c < 0) {
				pick = i;
				memcpy(best, key, sizeof key);
			}
		}
		if (pick == x->na)
			return;
		grow_take(x, pick);
	}
}

int kp_preferred(const struct kp_resource *r, const char *const *avail, size_t na, const char *const *must, size_t nm,
		 int size, const char *const **ids, size_t *n, void **owner, int *code, char *err, size_t cap)
{
	*ids = NULL;
	*n = 0;
	*owner = NULL;
	if (size <= 0)
		return refuse(code, K8S_INVALID_ARGUMENT, err, cap, "allocation_size %d: at least 1 device is asked", size);
	if ((size_t)size > na)
		return refuse(code, K8S_INVALID_ARGUMENT, err, cap, "allocation_size %d is more than the %zu available device IDs",
			      size, na);
	if (nm > (size_t)size)
		return refuse(code, K8S_INVALID_ARGUMENT, err, cap, "%zu must-include device IDs do not fit in allocation_size %d",
			      nm, size);
	const struct kp_dev **av = calloc(na, sizeof *av);
	size_t *musts = calloc(nm ? nm : 1, sizeof *musts), *set = calloc((size_t)size, sizeof *set),
	       *best = calloc((size_t)size, sizeof *best);
	int *left = calloc(na * LV_N, sizeof *left);
	bool *chosen = calloc(na, sizeof *chosen);
	struct groups g = {0};
	int rc = 0;
	if (!av || !musts || !set || !best || !left || !chosen)
		rc = refuse(code, K8S_INTERNAL, err, cap, "out of memory");
	for (size_t i = 0; i < na && rc == 0; i++) {
		av[i] = dev_of(r, avail[i]);
		if (!av[i])
			rc = refuse(code, K8S_INVALID_ARGUMENT, err, cap, "unknown device ID '%s' in available_deviceIDs of %s",
				    avail[i] ? avail[i] : "", r->name);
		for (size_t j = 0; j < i && rc == 0; j++)
			if (av[j] == av[i])
				rc = refuse(code, K8S_INVALID_ARGUMENT, err, cap, "device ID '%s' is listed twice", avail[i]);
	}
	size_t nmust = 0;
	for (size_t i = 0; i < nm && rc == 0; i++) {
		size_t k = 0;
		while (k < na && (!must[i] || strcmp(avail[k], must[i]) != 0))
			k++;
		if (k == na)
			rc = refuse(code, K8S_INVALID_ARGUMENT, err, cap,
				    "must-include device ID '%s' is not among the available_deviceIDs of %s", must[i] ? must[i] : "",
				    r->name);
		else if (!chosen[k])
			chosen[k] = true, musts[nmust++] = k;
	}
	if (rc == 0 && groups_of(&g, r, (const struct kp_dev *const *)av, na) != 0)
		rc = refuse(code, K8S_INTERNAL, err, cap, "out of memory");
	/* anchors: each island and NUMA node an available device has; the cheapest set wins */
	struct cost bestc;
	memset(&bestc, 0, sizeof bestc);
	size_t nbest = 0;
	for (size_t a = 0; a < na && rc == 0; a++) {
		bool tried = false; /* an anchor already tried gives the same set */
		for (size_t b = 0; b < a && !tried; b++)
			tried = av[b]->island == av[a]->island && av[b]->numa == av[a]->numa;
		if (tried)
			continue;
		struct grow x = {(const struct kp_dev *const *)av, &g, na, av[a]->island, av[a]->numa, set, 0, left, chosen};
		memset(chosen, 0, na * sizeof *chosen);
		for (size_t i = 0; i < na; i++)
			for (int lv = 0; lv < LV_N; lv++)
				left[i * LV_N + lv] = g.avail[i * LV_N + lv];
		for (size_t i = 0; i < nmust; i++)
			grow_take(&x, musts[i]);
		grow(&x, (size_t)size);
		struct cost c = cost_of((const struct kp_dev *const *)av, &g, set, x.k);
		if (x.k == (size_t)size && (nbest == 0 || cost_cmp(&c, &bestc) < 0)) {
			bestc = c;
			memcpy(best, set, x.k * sizeof *set);
			nbest = x.k;
		}
	}
	struct pool *p = NULL;
	const char **out = rc == 0 ? pmalloc(&p, (nbest ? nbest : 1) * sizeof *out) : NULL;
	if (rc == 0 && !out)
		rc = refuse(code, K8S_INTERNAL, err, cap, "out of memory");
	for (size_t i = 0; rc == 0 && i < nbest; i++)
		if (!(out[i] = pstrdup(&p, av[best[i]]->id)))
			rc = refuse(code, K8S_INTERNAL, err, cap, "out of memory");
	groups_free(&g);
	free(av), free(musts), free(set), free(best), free(left), free(chosen);
	if (rc) {
		kp_release(p);
		return -1;
	}
	*ids = out;
	*n = nbest;
	*owner = p;
	return 0;
}

int kp_allocate(const struct kp_resource *r, const struct kp_options *o, const char *const *ids, size_t n,
		struct k8s_container *out, void **owner, int *code, char *err, size_t cap)
{
	memset(out, 0, sizeof *out);
	*owner = NULL;
	if (n == 0)
		return refuse(code, K8S_INVALID_ARGUMENT, err, cap, "no device ID in the request for %s", r->name);
	if (n > r->n)
		return refuse(code, K8S_INVALID_ARGUMENT, err, cap, "%zu device IDs asked of %s, which has %zu (first: '%s')", n,
			      r->name, r->n, ids[0] ? ids[0] : "");
	const struct kp_dev **d = calloc(n, sizeof *d);
	if (!d)
		return refuse(code, K8S_INTERNAL, err, cap, "out of memory");
	for (size_t i = 0; i < n; i++) {
		d[i] = dev_of(r, ids[i]);
		int rc = 0;
		if (!d[i])
			rc = refuse(code, K8S_INVALID_ARGUMENT, err, cap, "unknown device ID '%s' for %s", ids[i] ? ids[i] : "",
				    r->name);
		else if (!d[i]->healthy)
			rc = refuse(code, K8S_FAILED_PRECONDITION, err, cap, "device ID '%s' of %s is unhealthy", ids[i],
				    r->name);
		for (size_t j = 0; j < i && rc == 0; j++)
			if (d[j] == d[i])
				rc = refuse(code, K8S_INVALID_ARGUMENT, err, cap, "device ID '%s' is asked twice", ids[i]);
		if (rc) {
			free(d);
			return -1;
		}
	}
	struct pool *p = NULL;
	size_t cap_nodes = 0, cap_env = 8, ncdi = 0, cap_mounts = 2;
	for (size_t i = 0; i < n; i++) {
		cap_nodes += d[i]->ed.n_nodes;
		cap_env += d[i]->ed.n_env;
		cap_mounts += d[i]->ed.n_mounts;
	}
	const char **cdi = pmalloc(&p, n * sizeof *cdi);
	struct k8s_node *nodes = pmalloc(&p, (cap_nodes + 1) * sizeof *nodes);
	struct k8s_kv *env = pmalloc(&p, cap_env * sizeof *env);
	struct k8s_mount *mounts = pmalloc(&p, cap_mounts * sizeof *mounts);
	struct k8s_kv *ann = pmalloc(&p, sizeof *ann);
	if (!cdi || !nodes || !env || !mounts || !ann) {
		free(d);
		kp_release(p);
		return refuse(code, K8S_INTERNAL, err, cap, "out of memory");
	}
	size_t nn = 0, ne = 0, nm = 0;
	/* the physical devices, once each however many of their shares were asked */
	const struct kp_dev **units = pmalloc(&p, n * sizeof *units);
	int *count = pmalloc(&p, n * sizeof *count);
	size_t nu = 0;
	for (size_t i = 0; units && count && i < n; i++) {
		size_t u = 0;
		while (u < nu && strcmp(units[u]->unit, d[i]->unit) != 0)
			u++;
		if (u == nu) {
			units[nu] = d[i];
			count[nu++] = 0;
		}
		count[u]++;
	}
	for (size_t u = 0; units && u < nu; u++) {
		const struct kp_dev *x = units[u];
		if (x->ed.cdi && o->list == KP_LIST_CDI)
			cdi[ncdi++] = x->ed.cdi;
		/* without CDI, what the spec mounts is mounted by the kubelet itself */
		for (size_t k = 0; o->list == KP_LIST_MOUNTS && k < x->ed.n_mounts && nm < cap_mounts; k++) {
			bool dup = false;
			for (size_t j = 0; j < nm && !dup; j++)
				dup = strcmp(mounts[j].container_path, x->ed.mount_ctr[k]) == 0;
			if (!dup)
				mounts[nm++] = (struct k8s_mount){x->ed.mount_ctr[k], x->ed.mount_host[k], 1};
		}
		for (size_t k = 0; k < x->ed.n_nodes; k++) {
			bool dup = false;
			for (size_t j = 0; j < nn && !dup; j++)
				dup = strcmp(nodes[j].host_path, x->ed.nodes[k]) == 0;
			if (!dup)
				nodes[nn++] = (struct k8s_node){x->ed.nodes[k], x->ed.nodes[k], "rw"};
		}
		for (size_t k = 0; k < x->ed.n_env; k++) {
			const char *kv = x->ed.env[k], *eq = strchr(kv, '=');
			if (!eq)
				continue;
			char *name = pmalloc(&p, (size_t)(eq - kv) + 1);
			if (!name)
				continue;
			memcpy(name, kv, (size_t)(eq - kv));
			name[eq - kv] = 0;
			bool dup = false;
			for (size_t j = 0; j < ne && !dup; j++)
				dup = strcmp(env[j].key, name) == 0;
			if (!dup && ne < cap_env)
				env[ne++] = (struct k8s_kv){name, eq + 1};
		}
	}
	/* the visibility variable, for runtimes without CDI: the devices by UUID */
	const char *vis = units && nu ? units[0]->visible_env : NULL;
	if (vis) {
		size_t len = 1;
		bool all = true;
		for (size_t u = 0; u < nu; u++) {
			all &= units[u]->uuid != NULL && units[u]->visible_env && strcmp(units[u]->visible_env, vis) == 0;
			len += units[u]->uuid ? strlen(units[u]->uuid) + 1 : 0;
		}
		char *v = all ? pmalloc(&p, len) : NULL;
		if (v) {
			v[0] = 0;
			for (size_t u = 0; u < nu; u++) {
				if (u)
					strcat(v, ",");
				strcat(v, units[u]->uuid);
			}
			size_t j = 0;
			while (j < ne && strcmp(env[j].key, vis) != 0)
				j++;
			if (j < cap_env) {
				env[j] = (struct k8s_kv){vis, v};
				if (j == ne)
					ne++;
			}
		}
	}
	/* shares: the limiter, preloaded, holding memory and compute to k/N of each device */
	bool shared = false;
	for (size_t i = 0; i < n; i++)
		shared |= d[i]->share >= 0;
	size_t na = 0;
	if (shared && o->limiter && o->shares > 1 && ne + 5 <= cap_env && nm + 2 <= cap_mounts) {
		mounts[nm++] = (struct k8s_mount){KP_LIMITER_PATH, o->limiter, 1};
		/* preloaded into every process beside the workload's own LD_PRELOAD, which an
		 * LD_PRELOAD of ours would replace (HAMi mounts /etc/ld.so.preload the same way) */
		if (o->preload_file)
			mounts[nm++] = (struct k8s_mount){KP_PRELOAD_LIST, o->preload_file, 1};
		char *devs = NULL, *mem = NULL, *pct = NULL, *anns = NULL;
		size_t ld = 0, lm = 0, lp = 0, la = 0;
		FILE *fd = open_memstream(&devs, &ld), *fm = open_memstream(&mem, &lm), *fp = open_memstream(&pct, &lp),
		     *fa = open_memstream(&anns, &la);
		for (size_t u = 0; fd && fm && fp && fa && u < nu; u++) {
			const struct kp_dev *x = units[u];
			const char *sep = u ? "," : "";
			fprintf(fd, "%s%s", sep, x->uuid ? x->uuid : x->axl_id);
			if (x->memory_bytes > 0)
				fprintf(fm, "%s%lld", sep, (long long)(x->memory_bytes / o->shares * count[u]));
			else
				fprintf(fm, "%snone", sep);
			int pc = 100 * count[u] / o->shares;
			fprintf(fp, "%s%d", sep, pc < 1 ? 1 : pc > 100 ? 100 : pc);
			fprintf(fa, "%s%s=%d/%d", sep, x->unit, count[u], o->shares);
		}
		if (fd)
			fclose(fd);
		if (fm)
			fclose(fm);
		if (fp)
			fclose(fp);
		if (fa)
			fclose(fa);
		if (!o->preload_file)
			env[ne++] = (struct k8s_kv){"LD_PRELOAD", KP_LIMITER_PATH};
		env[ne++] = (struct k8s_kv){"AXL_LIMIT_VERSION", "1"};
		env[ne++] = (struct k8s_kv){"AXL_LIMIT_DEVICES", devs ? pstrdup(&p, devs) : ""};
		env[ne++] = (struct k8s_kv){"AXL_LIMIT_MEMORY_BYTES", mem ? pstrdup(&p, mem) : ""};
		env[ne++] = (struct k8s_kv){"AXL_LIMIT_COMPUTE_PERCENT", pct ? pstrdup(&p, pct) : ""};
		ann[na++] = (struct k8s_kv){"axl.dev/shares", anns ? pstrdup(&p, anns) : ""};
		free(devs), free(mem), free(pct), free(anns);
	}
	free(d);
	out->cdi = cdi;
	out->n_cdi = ncdi;
	out->nodes = nodes;
	out->n_nodes = nn;
	out->envs = env;
	out->n_envs = ne;
	out->mounts = mounts;
	out->n_mounts = nm;
	out->annotations = ann;
	out->n_annotations = na;
	*owner = p;
	return 0;
}
