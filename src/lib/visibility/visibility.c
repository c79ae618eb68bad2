/* SPDX-License-Identifier: MIT */
/*
 * Visibility: may this process use each device, and why (docs/visibility.md).
 *
 * Two layers, applied in this order, like the runtimes do:
 *   1. access: the device's /dev nodes exist in this mount namespace and the device
 *      cgroup (v1 devices.list; v2 cannot be read back) lets the process open them.
 *      This is what a container runtime controls; the container runtimes' variables
 *      only say what the runtime was asked to inject, so they explain what access shows
 *      and never hide a device by themselves.
 *   2. the variables a runtime reads in the process, each backend's (its `visibility`
 *      operation, backend/<vendor>/<vendor>_visibility.c). Their indices count only the devices
 *      the runtime can open (layer 1), in the runtime's order.
 * The backends say which of a device's nodes their runtime opens (`vis->node`) and what
 * their nodes are in a tree where /dev holds plain files (`vis->devnum`). No device is ever
 * dropped: each gets visibility.visible and, when something restricts it,
 * visibility.reason.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "backend.h"
#include "visibility.h"

/* ==== the toolkit of the backends' operations ======================================== */

const char *axl__vis_var(const struct axl__vis *v, const char *name)
{
	return axl__visvar(v->ctx, name);
}

static const char *shorten(const char *value, char *buf, size_t cap)
{
	if (strlen(value) <= 64)
		return value;
	snprintf(buf, cap, "%.60s...", value);
	return buf;
}

const char *axl__vis_setting(const struct axl__vis *v, const char *name, char *buf, size_t cap)
{
	char tmp[80];
	const char *value = axl__vis_var(v, name);
	snprintf(buf, cap, "%s=%s", name, shorten(value ? value : "", tmp, sizeof tmp));
	return buf;
}

long axl__vis_chr_major(const struct axl__vis *v, const char *name)
{
	const char *p = v->procdev;
	const char *blk = strstr(p, "Block devices:");
	while (p && *p && (!blk || p < blk)) {
		long m;
		char nm[64];
		if (sscanf(p, " %ld %63s", &m, nm) == 2 && strcmp(nm, name) == 0)
			return m;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

bool axl__vis_read_devnum(const struct axl__vis *v, const char *sysdev, unsigned *mj, unsigned *mn)
{
	char buf[64];
	if (axl__fs_read(v->fs, AXL__FS_ROOT, sysdev, buf, sizeof buf) <= 0)
		return false;
	return sscanf(buf, "%u:%u", mj, mn) == 2;
}

/* The character device a /dev path stands for: the node itself when it is one (the
 * live system), else what the backends, sysfs and /proc/devices say (a tree holds plain
 * files). */
static bool node_devnum(const struct axl__vis *v, const char *path, unsigned *mj, unsigned *mn)
{
	int fd = axl__fs_open(v->fs, AXL__FS_ROOT, path, O_PATH);
	if (fd >= 0) {
		struct stat st;
		bool chr = fstat(fd, &st) == 0 && S_ISCHR(st.st_mode);
		close(fd);
		if (chr) {
			*mj = major(st.st_rdev);
			*mn = minor(st.st_rdev);
			return true;
		}
	}
	if (strncmp(path, "/dev/", 5) != 0)
		return false;
	const char *rel = path + 5;
	/* a driver's own nodes, whose numbers its backend knows */
	for (size_t b = 0; b < axl__backend_total; b++)
		if (axl__backends[b]->vis && axl__backends[b]->vis->devnum &&
		    axl__backends[b]->vis->devnum(v, rel, mj, mn))
			return true;
	if (strcmp(rel, "vfio/vfio") == 0) {
		*mj = 10; /* misc */
		*mn = 196;
		return true;
	}
	/* class devices: /dev/dri/renderD128 is drm/renderD128, /dev/accel/accel0 is
	 * accel/accel0, /dev/<class>/N may be <class>/<class>!N, /dev/vfio/12 is vfio/12 */
	const char *slash = strchr(rel, '/');
	if (slash && !strchr(slash + 1, '/')) {
		char cls[64], sys[320];
		snprintf(cls, sizeof cls, "%.*s", (int)(slash - rel), rel);
		if (strcmp(cls, "dri") == 0)
			snprintf(cls, sizeof cls, "drm");
		snprintf(sys, sizeof sys, "/sys/class/%s/%s/dev", cls, slash + 1);
		if (axl__vis_read_devnum(v, sys, mj, mn))
			return true;
		snprintf(sys, sizeof sys, "/sys/class/%s/%.*s!%s/dev", cls, (int)(slash - rel), rel, slash + 1);
		if (axl__vis_read_devnum(v, sys, mj, mn))
			return true;
	}
	return false;
}

int axl__vis_node_ok(const struct axl__vis *v, const char *path, char *why, size_t cap, axl_source *src)
{
	if (v->has_dev && !axl__fs_exists(v->fs, AXL__FS_ROOT, path)) {
		snprintf(why, cap, "%s is absent", path);
		*src = AXL_SOURCE_DEVFS;
		return 0;
	}
	if (v->cg_v1) {
		unsigned mj, mn;
		if (node_devnum(v, path, &mj, &mn) && !axl__vis_cgroup_allows(v->cg_list, 'c', mj, mn, "rw")) {
			snprintf(why, cap, "not in the device cgroup (c %u:%u, %s)", mj, mn, path);
			*src = AXL_SOURCE_SYSFS;
			return 0;
		}
	}
	return 1;
}

/* ==== layer 1: access ================================================================= */

/* What node p is to the runtime (AXL__VIS_NODE_*): what a backend says, else a render
 * node or just one of the device's nodes. */
static int node_kind(const char *p)
{
	for (size_t b = 0; b < axl__backend_total; b++) {
		const struct axl__vis_ops *o = axl__backends[b]->vis;
		int k = o && o->node ? o->node(p) : AXL__VIS_NODE_OWN;
		if (k != AXL__VIS_NODE_OWN)
			return k;
	}
	if (strncmp(p, "/dev/dri/renderD", 16) == 0)
		return AXL__VIS_NODE_RENDER;
	return AXL__VIS_NODE_OWN;
}

static bool listed_by(const struct axl_device *d, const char *node)
{
	for (size_t i = 0; d && i < d->nodes.n; i++)
		if (strcmp(d->nodes.v[i], node) == 0)
			return true;
	return false;
}

/* Layer 1 for one device: its own nodes (the node its runtime opens it by, the render
 * nodes, ...) and the shared nodes its runtime cannot do without. */
static void access_of(struct axl__vis *v, struct axl__vis_dev *x)
{
	struct axl_device *d = x->d;
	const struct axl_device *parent = d->parent;
	x->access = AXL__VIS_ACC_YES;
	if (!v->has_dev && !v->cg_v1)
		return; /* a tree without /dev and no device cgroup: nothing to check */
	/* the device's own nodes: the node its runtime opens it by where it has one (its DRM
	 * nodes then do not matter), render nodes where there are some (compute needs no
	 * card node), all other own nodes otherwise. A partition counts only what its parent
	 * lacks. */
	int kind = AXL__VIS_NODE_OWN;
	for (size_t i = 0; i < d->nodes.n; i++) {
		const char *p = d->nodes.v[i];
		if (parent && listed_by(parent, p))
			continue;
		int k = node_kind(p);
		if (k != AXL__VIS_NODE_REQUIRED && k > kind)
			kind = k;
	}
	size_t own = 0, ok = 0;
	char first_why[256] = "";
	axl_source first_src = AXL_SOURCE_DEVFS;
	for (size_t i = 0; i < d->nodes.n; i++) {
		const char *p = d->nodes.v[i];
		if (parent && listed_by(parent, p))
			continue;
		int k = node_kind(p);
		bool required = k == AXL__VIS_NODE_REQUIRED;
		if (axl__node_is_shared(p) && !required)
			continue;
		if (!required && kind != AXL__VIS_NODE_OWN && k != kind)
			continue;
		char why[256];
		axl_source src = AXL_SOURCE_DEVFS;
		int r = axl__vis_node_ok(v, p, why, sizeof why, &src);
		if (required) {
			if (!r) {
				snprintf(x->access_why, sizeof x->access_why, "%s", why);
				x->access_src = src;
				x->access = AXL__VIS_ACC_NO;
				return;
			}
			continue;
		}
		own++;
		if (r)
			ok++;
		else if (!first_why[0]) {
			snprintf(first_why, sizeof first_why, "%s", why);
			first_src = src;
		}
	}
	if (own == 0) {
		if (parent) {
			x->access = AXL__VIS_ACC_INHERIT; /* a partition with no node of its own: as its parent */
		} else {
			x->access = AXL__VIS_ACC_UNKNOWN;
			snprintf(x->access_why, sizeof x->access_why, "axl knows no /dev node of it");
		}
		return;
	}
	if (ok == own)
		return;
	x->access_src = first_src;
	if (ok == 0) {
		x->access = AXL__VIS_ACC_NO;
		snprintf(x->access_why, sizeof x->access_why, "%s", first_why);
	} else {
		x->access = AXL__VIS_ACC_PART;
		snprintf(x->access_why, sizeof x->access_why, "%s (%zu of its %zu device nodes open)", first_why,
			 ok, own);
	}
}

/* ---- the stage ---------------------------------------------------------------------------- */

static void collect(struct axl__vis *v, struct axl_device *d, long parent, size_t *n, struct axl__vis_dev *out)
{
	size_t me = (*n)++;
	if (out) {
		out[me].d = d;
		out[me].parent = parent;
		out[me].env = AXL__VIS_ENV_FREE;
	}
	for (size_t i = 0; i < d->children.n; i++)
		collect(v, d->children.v[i], (long)me, n, out);
}

static void read_cgroup(struct axl__vis *v)
{
	char buf[4096];
	if (axl__fs_read(v->fs, AXL__FS_ROOT, "/proc/self/cgroup", buf, sizeof buf) <= 0)
		return;
	if (axl__vis_cgroup_v1_path(buf, v->cg_path, sizeof v->cg_path) != 0)
		return; /* cgroup v2: the device filter is an eBPF program, nothing to read back */
	/* the hierarchy as mounted here: the full path on a host, the root inside a
	 * container whose cgroup is mounted as the root of /sys/fs/cgroup/devices */
	char path[700];
	snprintf(path, sizeof path, "/sys/fs/cgroup/devices%s%s/devices.list",
		 v->cg_path[0] == '/' ? "" : "/", strcmp(v->cg_path, "/") == 0 ? "" : v->cg_path);
	long n = axl__fs_read(v->fs, AXL__FS_ROOT, path, v->cg_list, sizeof v->cg_list);
	if (n <= 0)
		n = axl__fs_read(v->fs, AXL__FS_ROOT, "/sys/fs/cgroup/devices/devices.list", v->cg_list,
				 sizeof v->cg_list);
	if (n > 0)
		v->cg_v1 = true;
	else if (n == -EFBIG)
		axl__warn(v->inv, AXL__VIS_SRC, path, "devices.list is too long: the device cgroup is not checked");
}

void axl__visibility_apply(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	/* no device: every backend's variables name nothing here (nothing to mark or warn
	 * about), and the 17 KiB of buffers below are not worth zeroing */
	if (inv->devs.n == 0)
		return;
	struct axl__vis *v = calloc(1, sizeof *v);
	if (!v)
		return;
	v->scan = scan;
	v->fs = scan->fs;
	v->inv = inv;
	v->ctx = scan->ctx;
	size_t n = 0;
	for (size_t i = 0; i < inv->devs.n; i++)
		collect(v, inv->devs.v[i], -1, &n, NULL);
	/* a simulated node has no /dev, /proc or cgroup: only the variables apply; with no
	 * device there is nothing to decide and nothing is read */
	if (!scan->ctx->sim && n > 0) {
		v->has_dev = axl__fs_isdir(v->fs, AXL__FS_ROOT, "/dev");
		axl__fs_read(v->fs, AXL__FS_ROOT, "/proc/devices", v->procdev, sizeof v->procdev);
		read_cgroup(v);
	}
	v->v = calloc(n + 1, sizeof *v->v);
	if (!v->v) {
		free(v);
		return;
	}
	n = 0;
	for (size_t i = 0; i < inv->devs.n; i++)
		collect(v, inv->devs.v[i], -1, &n, v->v);
	v->n = n;

	for (size_t i = 0; i < n; i++) {
		struct axl__vis_dev *x = &v->v[i];
		if (axl__int(x->d, AXL_ATTR_FAMILY, -1) == AXL_FAMILY_CPU)
			continue;
		access_of(v, x);
		if (x->parent >= 0) {
			/* a partition can be no more open than its device (parents come first) */
			const struct axl__vis_dev *p = &v->v[x->parent];
			if (p->access == AXL__VIS_ACC_NO ||
			    (x->access == AXL__VIS_ACC_INHERIT && p->access != AXL__VIS_ACC_YES)) {
				x->access = p->access == AXL__VIS_ACC_PART ? AXL__VIS_ACC_UNKNOWN : p->access;
				x->access_src = p->access_src;
				snprintf(x->access_why, sizeof x->access_why, "%s", p->access_why);
			} else if (x->access == AXL__VIS_ACC_INHERIT) {
				x->access = AXL__VIS_ACC_YES;
			}
		}
	}
	/* then each backend's variables, in the table's order */
	for (size_t b = 0; b < axl__backend_total; b++)
		if (axl__backends[b]->vis && axl__backends[b]->vis->apply)
			axl__backends[b]->vis->apply(v, axl__backends[b]);

	for (size_t i = 0; i < n; i++) {
		struct axl__vis_dev *x = &v->v[i];
		struct axl_device *d = x->d;
		if (axl__int(d, AXL_ATTR_FAMILY, -1) == AXL_FAMILY_CPU)
			continue;
		char why[640];
		/* a child the variables do not mention follows its parent's verdict */
		if (x->parent >= 0 && x->env == AXL__VIS_ENV_FREE) {
			const struct axl__vis_dev *p = &v->v[x->parent];
			if (p->env != AXL__VIS_ENV_FREE && !p->partial) {
				x->env = p->env;
				snprintf(x->env_why, sizeof x->env_why, "%s", p->env_why);
			}
		}
		if (x->access == AXL__VIS_ACC_NO || x->access == AXL__VIS_ACC_PART) {
			snprintf(why, sizeof why, "%s%s%s%s%s",
				 x->access == AXL__VIS_ACC_PART ? "partly visible: " : "", x->access_why,
				 x->runtime_why[0] ? " (" : "", x->runtime_why, x->runtime_why[0] ? ")" : "");
			axl__set_int(d, AXL_ATTR_VISIBLE, x->access_src, 0);
			axl__set_str(inv, d, AXL_ATTR_VISIBILITY_REASON, x->access_src, why);
		} else if (x->env == AXL__VIS_ENV_NO) {
			snprintf(why, sizeof why, "%s%s", x->partial ? "partly visible: " : "", x->env_why);
			axl__set_int(d, AXL_ATTR_VISIBLE, AXL_SOURCE_ENV, 0);
			axl__set_str(inv, d, AXL_ATTR_VISIBILITY_REASON, AXL_SOURCE_ENV, why);
		} else if (x->env == AXL__VIS_ENV_UNKNOWN) {
			axl__set_str(inv, d, AXL_ATTR_VISIBILITY_REASON, AXL_SOURCE_ENV, x->env_why);
		} else if (x->env == AXL__VIS_ENV_YES) {
			axl__set_int(d, AXL_ATTR_VISIBLE, AXL_SOURCE_ENV, 1);
			axl__set_str(inv, d, AXL_ATTR_VISIBILITY_REASON, AXL_SOURCE_ENV, x->env_why);
		} else if (x->access == AXL__VIS_ACC_UNKNOWN) {
			axl__set_str(inv, d, AXL_ATTR_VISIBILITY_REASON, AXL_SOURCE_DERIVED, x->access_why);
		} else {
			axl__set_int(d, AXL_ATTR_VISIBLE, AXL_SOURCE_DERIVED, 1);
		}
	}
	free(v->v);
	free(v);
}
