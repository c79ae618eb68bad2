/* SPDX-License-Identifier: MIT */
/*
 * Visibility: may this process use each device, and why (docs/visibility.md).
 *
 * Two layers, applied in this order, like the runtimes do:
 *   1. access: the device's /dev nodes exist in this mount namespace and the device
 *      cgroup (v1 devices.list; v2 cannot be read back) lets the process open them.
 *      This is what a container runtime controls; NVIDIA_VISIBLE_DEVICES and
 *      HABANA_VISIBLE_DEVICES only say what the runtime was asked to inject, so they
 *      explain what access shows and never hide a device by themselves.
 *   2. the variables a runtime reads in the process: CUDA_VISIBLE_DEVICES (NVIDIA),
 *      ROCR_VISIBLE_DEVICES then HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES (AMD,
 *      indices relative to what the previous layer left), HABANA_VISIBLE_MODULES.
 *      Their indices count only the devices the runtime can open (layer 1), in the
 *      runtime's order: CUDA and NVML number the accessible GPUs, libhsakmt skips KFD
 *      nodes whose render node does not open.
 * No device is ever dropped: each gets visibility.visible and, when something restricts
 * it, visibility.reason.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"
#include "visibility.h"
#include "util/parse.h"

#define SRC "visibility"

/* ==== applying them to an inventory ================================================== */

enum { ACC_UNKNOWN = -1, ACC_NO = 0, ACC_YES = 1, ACC_PART = 2, ACC_INHERIT = 3 };
enum { ENV_FREE = 2, ENV_YES = 1, ENV_NO = 0, ENV_UNKNOWN = -1 };

struct vdev {
	struct axl_device *d;
	long parent; /* index in the vdev array, -1 for a top-level device */
	int access;
	axl_source access_src;
	char access_why[256];
	int env;
	bool partial;
	char env_why[320];
	char runtime_why[160]; /* what a container-runtime variable says about it */
};

struct vis {
	struct axl__scan *scan;
	const struct axl__fs *fs;
	struct axl_inventory *inv;
	const char *const *var;
	bool has_dev;
	bool cg_v1;
	char cg_list[8192];
	char cg_path[512];
	char procdev[8192];
	struct vdev *v;
	size_t n;
};

static const char *shorten(const char *value, char *buf, size_t cap)
{
	if (strlen(value) <= 64)
		return value;
	snprintf(buf, cap, "%.60s...", value);
	return buf;
}

/* "NAME=value" for reasons, the value cut to 64 characters. */
static const char *setting(const struct vis *v, int var, char *buf, size_t cap)
{
	char tmp[80];
	snprintf(buf, cap, "%s=%s", axl__visvar_names[var], shorten(v->var[var], tmp, sizeof tmp));
	return buf;
}

/* The major number a driver registered under name in /proc/devices; -1 when absent. */
static long chr_major(const struct vis *v, const char *name)
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

static bool read_devnum(const struct vis *v, const char *sysdev, unsigned *mj, unsigned *mn)
{
	char buf[64];
	if (axl__fs_read(v->fs, AXL__FS_ROOT, sysdev, buf, sizeof buf) <= 0)
		return false;
	return sscanf(buf, "%u:%u", mj, mn) == 2;
}

static bool digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* The character device a /dev path stands for: the node itself when it is one (the
 * live system), else what sysfs and /proc/devices say (a tree holds plain files). */
static bool node_devnum(const struct vis *v, const char *path, unsigned *mj, unsigned *mn)
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
	char sys[320];
	long nv = chr_major(v, "nvidia-frontend");
	if (nv < 0)
		nv = chr_major(v, "nvidia");
	if (nv < 0)
		nv = 195; /* Documentation/admin-guide/devices.txt */
	long m;
	if (strncmp(rel, "nvidia", 6) == 0 && digits(rel + 6)) {
		*mj = (unsigned)nv;
		*mn = (unsigned)strtoul(rel + 6, NULL, 10);
		return true;
	}
	if (strcmp(rel, "nvidiactl") == 0 || strcmp(rel, "nvidia-modeset") == 0) {
		*mj = (unsigned)nv;
		*mn = rel[6] == 'c' ? 255 : 254;
		return true;
	}
	if ((strcmp(rel, "nvidia-uvm") == 0 || strcmp(rel, "nvidia-uvm-tools") == 0) &&
	    (m = chr_major(v, "nvidia-uvm")) >= 0) {
		*mj = (unsigned)m;
		*mn = rel[10] ? 1 : 0;
		return true;
	}
	if (strncmp(rel, "nvidia-caps/nvidia-cap", 22) == 0 && digits(rel + 22) &&
	    (m = chr_major(v, "nvidia-caps")) >= 0) {
		*mj = (unsigned)m;
		*mn = (unsigned)strtoul(rel + 22, NULL, 10);
		return true;
	}
	if (strcmp(rel, "kfd") == 0 && (m = chr_major(v, "kfd")) >= 0) {
		*mj = (unsigned)m;
		*mn = 0;
		return true;
	}
	if (strcmp(rel, "vfio/vfio") == 0) {
		*mj = 10; /* misc */
		*mn = 196;
		return true;
	}
	if (strncmp(rel, "neuron", 6) == 0 && digits(rel + 6) && (m = chr_major(v, "neuron")) >= 0) {
		*mj = (unsigned)m;
		*mn = (unsigned)strtoul(rel + 6, NULL, 10);
		return true;
	}
	/* class devices: /dev/dri/renderD128 is drm/renderD128, /dev/accel/accel0 is
	 * accel/accel0, /dev/tenstorrent/0 is tenstorrent/tenstorrent!0, /dev/hl0 is
	 * habanalabs/hl0, /dev/vfio/12 is vfio/12 */
	const char *slash = strchr(rel, '/');
	if (slash && !strchr(slash + 1, '/')) {
		char cls[64];
		snprintf(cls, sizeof cls, "%.*s", (int)(slash - rel), rel);
		if (strcmp(cls, "dri") == 0)
			snprintf(cls, sizeof cls, "drm");
		snprintf(sys, sizeof sys, "/sys/class/%s/%s/dev", cls, slash + 1);
		if (read_devnum(v, sys, mj, mn))
			return true;
		snprintf(sys, sizeof sys, "/sys/class/%s/%.*s!%s/dev", cls, (int)(slash - rel), rel, slash + 1);
		if (read_devnum(v, sys, mj, mn))
			return true;
	} else if (!slash && strncmp(rel, "hl", 2) == 0) {
		snprintf(sys, sizeof sys, "/sys/class/habanalabs/%s/dev", rel);
		if (read_devnum(v, sys, mj, mn))
			return true;
	}
	return false;
}

/* Can the process open node `path`? 1 yes (or not checkable), 0 no with why/src. */
static int node_ok(const struct vis *v, const char *path, char *why, size_t cap, axl_source *src)
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

/* Shared nodes without which the runtime opens no device at all. */
static bool is_required_support(const char *p)
{
	return strcmp(p, "/dev/nvidiactl") == 0 || strcmp(p, "/dev/kfd") == 0;
}

static bool listed_by(const struct axl_device *d, const char *node)
{
	for (size_t i = 0; d && i < d->nodes.n; i++)
		if (strcmp(d->nodes.v[i], node) == 0)
			return true;
	return false;
}

/* Layer 1 for one device: its own nodes (the GPU node, the render nodes, ...) and the
 * shared nodes its runtime cannot do without. */
static void access_of(struct vis *v, struct vdev *x)
{
	struct axl_device *d = x->d;
	const struct axl_device *parent = d->parent;
	x->access = ACC_YES;
	if (!v->has_dev && !v->cg_v1)
		return; /* a tree without /dev and no device cgroup: nothing to check */
	/* the device's own nodes: /dev/nvidiaN for NVIDIA GPUs (its DRM nodes do not matter
	 * to CUDA), render nodes where there are some (compute needs no card node), all
	 * other own nodes otherwise. A partition counts only what its parent lacks. */
	int kind = 0; /* 2 nvidiaN, 1 render, 0 other */
	for (size_t i = 0; i < d->nodes.n; i++) {
		const char *p = d->nodes.v[i];
		if (parent && listed_by(parent, p))
			continue;
		if (strncmp(p, "/dev/nvidia", 11) == 0 && digits(p + 11))
			kind = 2;
		else if (strncmp(p, "/dev/dri/renderD", 16) == 0 && kind < 1)
			kind = 1;
	}
	size_t own = 0, ok = 0;
	char first_why[256] = "";
	axl_source first_src = AXL_SOURCE_DEVFS;
	for (size_t i = 0; i < d->nodes.n; i++) {
		const char *p = d->nodes.v[i];
		if (parent && listed_by(parent, p))
			continue;
		bool required = is_required_support(p);
		if (axl__node_is_shared(p) && !required)
			continue;
		if (!required) {
			if (kind == 2 && !(strncmp(p, "/dev/nvidia", 11) == 0 && digits(p + 11)))
				continue;
			if (kind == 1 && strncmp(p, "/dev/dri/renderD", 16) != 0)
				continue;
		}
		char why[256];
		axl_source src = AXL_SOURCE_DEVFS;
		int r = node_ok(v, p, why, sizeof why, &src);
		if (required) {
			if (!r) {
				snprintf(x->access_why, sizeof x->access_why, "%s", why);
				x->access_src = src;
				x->access = ACC_NO;
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
			x->access = ACC_INHERIT; /* a partition with no node of its own: as its parent */
		} else {
			x->access = ACC_UNKNOWN;
			snprintf(x->access_why, sizeof x->access_why, "axl knows no /dev node of it");
		}
		return;
	}
	if (ok == own)
		return;
	x->access_src = first_src;
	if (ok == 0) {
		x->access = ACC_NO;
		snprintf(x->access_why, sizeof x->access_why, "%s", first_why);
	} else {
		x->access = ACC_PART;
		snprintf(x->access_why, sizeof x->access_why, "%s (%zu of its %zu device nodes open)", first_why,
			 ok, own);
	}
}

static const char *dstr(const struct axl_device *d, axl_attr a)
{
	return axl__str(d, a);
}

/* ---- NVIDIA ----------------------------------------------------------------------------- */

static bool is_nvidia_gpu(const struct axl_device *d)
{
	const char *drv = dstr(d, AXL_ATTR_DRIVER), *st = dstr(d, AXL_ATTR_STATE);
	return !d->parent && d->prefix && strcmp(d->prefix, "nvidia") == 0 && drv &&
	       strcmp(drv, "nvidia") == 0 && !(st && strcmp(st, "excluded") == 0);
}

static void nvidia(struct vis *v)
{
	/* the GPUs the host numbers (NVML and nvidia-smi: PCI order, nvidia driver) */
	size_t *host = calloc(v->n + 1, sizeof *host), nh = 0;
	struct axl__vis_item *items = calloc(v->n + 1, sizeof *items);
	size_t *map = calloc(v->n + 1, sizeof *map);
	int *pos = calloc(v->n + 1, sizeof *pos);
	if (!host || !items || !map || !pos)
		goto out;
	for (size_t i = 0; i < v->n; i++)
		if (is_nvidia_gpu(v->v[i].d))
			host[nh++] = i;
	if (!nh)
		goto out;

	/* NVIDIA_VISIBLE_DEVICES: what the container runtime was asked to inject */
	const char *rt = v->var[AXL__V_NVIDIA_VISIBLE_DEVICES];
	if (rt) {
		size_t ni = 0;
		for (size_t g = 0; g < nh; g++) {
			long gi = (long)ni;
			map[ni] = host[g];
			items[ni++] = (struct axl__vis_item){axl__str(v->v[host[g]].d, AXL_ATTR_UUID), -1, -1, -1, -1};
			for (size_t c = 0; c < v->n; c++)
				if (v->v[c].parent == (long)host[g]) {
					const struct axl_device *cd = v->v[c].d;
					map[ni] = c;
					items[ni++] = (struct axl__vis_item){axl__str(cd, AXL_ATTR_UUID), gi,
									    axl__int(cd, AXL_ATTR_PARTITION_GPU_INSTANCE, -1),
									    axl__int(cd, AXL_ATTR_PARTITION_COMPUTE_INSTANCE, -1), -1};
				}
		}
		struct axl__vis_result r;
		axl__vis_nvidia_runtime(rt, items, ni, pos, &r);
		char set[128];
		setting(v, AXL__V_NVIDIA_VISIBLE_DEVICES, set, sizeof set);
		char odd[256] = "";
		for (size_t k = 0; k < ni && r.code != AXL__VIS_OFF; k++) {
			struct vdev *x = &v->v[map[k]];
			bool listed = r.code == AXL__VIS_ALL || pos[k] >= 0;
			if (!listed)
				snprintf(x->runtime_why, sizeof x->runtime_why, "%s does not list it", set);
			if (!v->has_dev || r.code == AXL__VIS_ALL || odd[0])
				continue;
			if (listed && x->access == ACC_NO)
				snprintf(odd, sizeof odd, "%s lists %s, but %s", set, axl_device_id(x->d), x->access_why);
			else if (!listed && x->access == ACC_YES && items[k].parent < 0)
				snprintf(odd, sizeof odd,
					 "%s does not list %s, yet this process can open its device nodes: the "
					 "variable was not applied by a container runtime here",
					 set, axl_device_id(x->d));
		}
		if (odd[0])
			axl__warn(v->inv, SRC, NULL, "%s", odd);
	}

	/* CUDA_VISIBLE_DEVICES over the GPUs CUDA can open, in PCI order */
	const char *cvd = v->var[AXL__V_CUDA_VISIBLE_DEVICES];
	if (!cvd)
		goto out;
	size_t ni = 0;
	bool mig_known = false, mixed = false;
	const char *model0 = NULL;
	for (size_t g = 0; g < nh; g++) {
		struct vdev *x = &v->v[host[g]];
		if (x->access == ACC_NO)
			continue;
		const char *model = dstr(x->d, AXL_ATTR_MODEL);
		if (model && model0 && strcmp(model, model0) != 0)
			mixed = true;
		if (model && !model0)
			model0 = model;
		for (size_t p = 0; p < x->d->parts.n; p++)
			if (strcmp(x->d->parts.v[p].pub.technology, "MIG") == 0 && x->d->parts.v[p].pub.mode)
				mig_known = true;
		long gi = (long)ni;
		map[ni] = host[g];
		items[ni++] = (struct axl__vis_item){axl__str(x->d, AXL_ATTR_UUID), -1, -1, -1, -1};
		for (size_t c = 0; c < v->n; c++)
			if (v->v[c].parent == (long)host[g] && v->v[c].access != ACC_NO) {
				const struct axl_device *cd = v->v[c].d;
				mig_known = true;
				map[ni] = c;
				items[ni++] = (struct axl__vis_item){axl__str(cd, AXL_ATTR_UUID), gi,
								    axl__int(cd, AXL_ATTR_PARTITION_GPU_INSTANCE, -1),
								    axl__int(cd, AXL_ATTR_PARTITION_COMPUTE_INSTANCE, -1), -1};
			}
	}
	struct axl__vis_result r;
	axl__vis_cuda(cvd, items, ni, mig_known, pos, &r);
	if (r.code == AXL__VIS_ALL)
		goto out;
	char set[128], order[160] = "";
	setting(v, AXL__V_CUDA_VISIBLE_DEVICES, set, sizeof set);
	const char *ord = v->var[AXL__V_CUDA_DEVICE_ORDER];
	if (r.by_index && mixed && !(ord && strcmp(ord, "PCI_BUS_ID") == 0)) {
		snprintf(order, sizeof order, "; axl counts in PCI bus order, CUDA fastest first unless "
					      "CUDA_DEVICE_ORDER=PCI_BUS_ID");
		axl__warn(v->inv, SRC, NULL,
			  "%s names GPUs by index and the GPUs differ: CUDA numbers them fastest first "
			  "unless CUDA_DEVICE_ORDER=PCI_BUS_ID, axl reads the indices in PCI bus order (as "
			  "nvidia-smi does)", set);
	}
	if (r.note[0] && r.code == AXL__VIS_UNSURE)
		axl__warn(v->inv, SRC, NULL, "%s: %s", set, r.note);
	for (size_t k = 0; k < ni; k++) {
		struct vdev *x = &v->v[map[k]];
		char extra[200] = "";
		if (r.note[0])
			snprintf(extra, sizeof extra, " (%s)", r.note);
		if (pos[k] >= 0) {
			x->env = ENV_YES;
			if (items[k].parent >= 0 && pos[items[k].parent] == pos[k])
				snprintf(x->env_why, sizeof x->env_why, "%s lists its GPU as CUDA device %d%s", set,
					 pos[k], order);
			else
				snprintf(x->env_why, sizeof x->env_why, "%s lists it as CUDA device %d%s", set, pos[k],
					 order);
		} else if (pos[k] == AXL__VIS_UNKNOWN) {
			x->env = ENV_UNKNOWN;
			snprintf(x->env_why, sizeof x->env_why, "%s: cannot tell: %s", set, r.note);
		} else if (r.code == AXL__VIS_NONE) {
			x->env = ENV_NO;
			if (!*cvd)
				snprintf(x->env_why, sizeof x->env_why, "CUDA_VISIBLE_DEVICES is empty: CUDA shows no GPU");
			else
				snprintf(x->env_why, sizeof x->env_why, "%s: %s", set, r.note);
		} else {
			x->env = ENV_NO;
			snprintf(x->env_why, sizeof x->env_why, "%s does not list it%s%s", set, extra, order);
		}
	}
	/* a GPU whose MIG devices only are listed is visible in part */
	for (size_t k = 0; k < ni; k++) {
		if (items[k].parent >= 0 || pos[k] >= 0)
			continue;
		char kids[160] = "";
		size_t nk = 0;
		for (size_t c = 0; c < ni; c++)
			if (items[c].parent == (long)k && pos[c] >= 0) {
				size_t l = strlen(kids);
				if (l < sizeof kids - 40)
					snprintf(kids + l, sizeof kids - l, "%s%s", nk ? ", " : "",
						 axl_device_id(v->v[map[c]].d));
				nk++;
			}
		if (!nk)
			continue;
		struct vdev *x = &v->v[map[k]];
		x->partial = true;
		snprintf(x->env_why, sizeof x->env_why, "%s lists only %s of it", set, kids);
	}
out:
	free(host);
	free(items);
	free(map);
	free(pos);
}

/* ---- AMD ----------------------------------------------------------------------------------- */

#define KFD_NODES "/sys/class/kfd/kfd/topology/nodes"

struct kfdn {
	long node;
	uint64_t unique, location, domain, render;
	long dev; /* vdev index or -1 */
	bool ok;  /* libhsakmt can open it */
};

static int cmp_kfdn(const void *a, const void *b)
{
	const struct kfdn *x = a, *y = b;
	return x->node < y->node ? -1 : x->node > y->node;
}

static bool kv_u64(const char *text, const char *key, uint64_t *out)
{
	char val[64];
	return axl__kv_find(text, key, ' ', val, sizeof val) == 0 && axl__parse_u64(val, 10, out) == 0;
}

static bool is_amd(const struct axl_device *d)
{
	return !d->parent && d->prefix && strcmp(d->prefix, "amdgpu") == 0;
}

static void amd(struct vis *v)
{
	const char *rocr = v->var[AXL__V_ROCR_VISIBLE_DEVICES];
	int hipvar = AXL__V_HIP_VISIBLE_DEVICES;
	const char *hip = v->var[hipvar];
	if (!hip || !*hip) {
		/* ROCclr reads CUDA_VISIBLE_DEVICES when HIP_VISIBLE_DEVICES is empty */
		hipvar = AXL__V_CUDA_VISIBLE_DEVICES;
		hip = v->var[hipvar];
		if (hip && !*hip)
			hip = NULL;
	}
	if (!rocr && !hip)
		return;
	bool any = false;
	for (size_t i = 0; i < v->n; i++)
		any |= is_amd(v->v[i].d);
	if (!any)
		return;
	DIR *dir = axl__fs_opendir(v->fs, AXL__FS_ROOT, KFD_NODES);
	if (!dir)
		return;
	AXL__VEC(struct kfdn) nodes = {0};
	struct dirent *e;
	while ((e = readdir(dir)) != NULL && nodes.n < 1024) {
		if (!digits(e->d_name))
			continue;
		char path[128], buf[8192];
		snprintf(path, sizeof path, KFD_NODES "/%s/properties", e->d_name);
		if (axl__fs_read(v->fs, AXL__FS_ROOT, path, buf, sizeof buf) <= 0)
			continue;
		uint64_t simds = 0;
		if (!kv_u64(buf, "simd_count", &simds) || simds == 0)
			continue; /* a CPU node */
		struct kfdn *k = AXL__VEC_PUSH(nodes);
		if (!k)
			break;
		k->node = strtol(e->d_name, NULL, 10);
		kv_u64(buf, "unique_id", &k->unique);
		kv_u64(buf, "location_id", &k->location);
		kv_u64(buf, "domain", &k->domain);
		kv_u64(buf, "drm_render_minor", &k->render);
		k->dev = -1;
	}
	closedir(dir);
	if (nodes.n > 1)
		qsort(nodes.v, nodes.n, sizeof *nodes.v, cmp_kfdn);
	size_t n = nodes.n;
	struct axl__vis_item *items = calloc(n + 1, sizeof *items);
	struct axl__vis_item *items2 = calloc(n + 1, sizeof *items2);
	int *pos = calloc(n + 1, sizeof *pos), *hpos = calloc(n + 1, sizeof *hpos);
	size_t *cand = calloc(n + 1, sizeof *cand), *cand2 = calloc(n + 1, sizeof *cand2);
	char (*uuid)[24] = calloc(n + 1, sizeof *uuid);
	int *final = calloc(n + 1, sizeof *final);
	if (!items || !items2 || !pos || !hpos || !cand || !cand2 || !uuid || !final)
		goto out;
	/* which device each node is, and whether libhsakmt can open it (its render node) */
	char kfd_why[256] = "";
	axl_source kfd_src = AXL_SOURCE_DEVFS;
	bool kfd_ok = node_ok(v, "/dev/kfd", kfd_why, sizeof kfd_why, &kfd_src);
	size_t nc = 0;
	for (size_t i = 0; i < n; i++) {
		struct kfdn *k = &nodes.v[i];
		unsigned bus = (unsigned)(k->location >> 8), dn = (unsigned)((k->location >> 3) & 31),
			 fn = (unsigned)(k->location & 7);
		for (size_t j = 0; j < v->n && k->dev < 0; j++) {
			const struct axl_device *d = v->v[j].d;
			if (!is_amd(d))
				continue;
			if (k->unique ? d->topo_unique_id == k->unique :
					(d->has_pci && d->domain == k->domain && d->bus == bus && d->devno == dn && d->fn == fn))
				k->dev = (long)j;
		}
		char why[256], path[64];
		axl_source src;
		snprintf(path, sizeof path, "/dev/dri/renderD%llu", (unsigned long long)k->render);
		k->ok = kfd_ok && (k->render == 0 || node_ok(v, path, why, sizeof why, &src));
		if (!k->ok)
			continue;
		if (k->unique)
			snprintf(uuid[nc], sizeof uuid[nc], "GPU-%016llX", (unsigned long long)k->unique);
		items[nc] = (struct axl__vis_item){k->unique ? uuid[nc] : NULL, -1, -1, -1, -1};
		cand[nc++] = i;
	}
	/* ROCR_VISIBLE_DEVICES, then HIP's list over what it leaves, in its order */
	struct axl__vis_result rr, hr;
	axl__vis_rocr(rocr, items, nc, pos, &rr);
	if (rr.code == AXL__VIS_ALL)
		for (size_t i = 0; i < nc; i++)
			pos[i] = (int)i;
	size_t n2 = 0;
	for (int o = 0; o < (int)nc; o++)
		for (size_t i = 0; i < nc; i++)
			if (pos[i] == o) {
				items2[n2] = items[i];
				cand2[n2++] = i;
			}
	axl__vis_hip(hip, items2, n2, hpos, &hr);
	for (size_t i = 0; i < nc; i++)
		final[i] = AXL__VIS_UNLISTED;
	for (size_t j = 0; j < n2; j++)
		final[cand2[j]] = hr.code == AXL__VIS_ALL ? (int)j : hpos[j];
	char rset[128] = "", hset[128] = "";
	if (rocr)
		setting(v, AXL__V_ROCR_VISIBLE_DEVICES, rset, sizeof rset);
	if (hip)
		setting(v, hipvar, hset, sizeof hset);
	/* per device: all its open nodes kept, none, or some */
	for (size_t j = 0; j < v->n; j++) {
		struct vdev *x = &v->v[j];
		if (!is_amd(x->d) || x->access == ACC_NO)
			continue;
		size_t total = 0, kept = 0, rkept = 0;
		int first = -1;
		for (size_t c = 0; c < nc; c++) {
			if (nodes.v[cand[c]].dev != (long)j)
				continue;
			total++;
			if (pos[c] >= 0)
				rkept++;
			if (final[c] >= 0) {
				kept++;
				if (first < 0 || final[c] < first)
					first = final[c];
			}
		}
		if (!total)
			continue; /* not a ROCm device here (no KFD node it can open) */
		char what[64];
		if (total > 1)
			snprintf(what, sizeof what, "%zu of its %zu partitions", kept, total);
		else
			snprintf(what, sizeof what, "it");
		if (kept == total) {
			x->env = ENV_YES;
			if (hip && rocr)
				snprintf(x->env_why, sizeof x->env_why, "%s and %s keep it (HIP device %d)", rset, hset, first);
			else if (hip)
				snprintf(x->env_why, sizeof x->env_why, "%s lists it as HIP device %d", hset, first);
			else
				snprintf(x->env_why, sizeof x->env_why, "%s lists it as ROCm device %d", rset, first);
			continue;
		}
		x->env = ENV_NO;
		x->partial = kept > 0;
		const struct axl__vis_result *rs = rkept < total ? &rr : &hr;
		const char *by = rkept < total ? rset : hset;
		char extra[200] = "";
		if (rs->note[0])
			snprintf(extra, sizeof extra, " (%s)", rs->note);
		if (rocr && !*rocr)
			snprintf(x->env_why, sizeof x->env_why, "ROCR_VISIBLE_DEVICES is empty: ROCm shows no GPU");
		else if (kept > 0)
			snprintf(x->env_why, sizeof x->env_why, "%s keeps %s%s", by, what, extra);
		else if (rkept == total && rocr)
			snprintf(x->env_why, sizeof x->env_why, "%s does not list it among the GPUs %s leaves%s", hset,
				 rset, extra);
		else
			snprintf(x->env_why, sizeof x->env_why, "%s does not list it%s", by, extra);
	}
out:
	free(items);
	free(items2);
	free(pos);
	free(hpos);
	free(cand);
	free(cand2);
	free(uuid);
	free(final);
	AXL__VEC_FREE(nodes);
}

/* ---- Habana -------------------------------------------------------------------------------- */

static bool is_habana(const struct axl_device *d)
{
	return !d->parent && d->prefix && strcmp(d->prefix, "habana") == 0;
}

static int64_t habana_module(const struct vis *v, const struct axl_device *d)
{
	if (axl__known(d, AXL_ATTR_MODULE_ID))
		return axl__int(d, AXL_ATTR_MODULE_ID, -1);
	char path[512], buf[64];
	int64_t m;
	if (!d->syspath)
		return -1;
	snprintf(path, sizeof path, "%s/module_id", d->syspath);
	if (axl__fs_read(v->fs, AXL__FS_ROOT, path, buf, sizeof buf) > 0 && axl__parse_i64(buf, &m) == 0 && m >= 0)
		return m;
	return -1;
}

/* /dev/accel/accelN or /dev/hlN: N, the index habana-container-runtime goes by. */
static int64_t habana_index(const struct axl_device *d)
{
	for (size_t i = 0; i < d->nodes.n; i++) {
		const char *p = d->nodes.v[i];
		const char *num = strncmp(p, "/dev/accel/accel", 16) == 0 ? p + 16 :
				  strncmp(p, "/dev/hl", 7) == 0 ? p + 7 : NULL;
		if (num && digits(num))
			return strtol(num, NULL, 10);
	}
	return -1;
}

static void habana(struct vis *v)
{
	const char *mods = v->var[AXL__V_HABANA_VISIBLE_MODULES], *devs = v->var[AXL__V_HABANA_VISIBLE_DEVICES];
	if (!mods && !devs)
		return;
	struct axl__vis_item *items = calloc(v->n + 1, sizeof *items);
	size_t *map = calloc(v->n + 1, sizeof *map);
	int *pos = calloc(v->n + 1, sizeof *pos);
	size_t n = 0;
	if (!items || !map || !pos)
		goto out;
	char set[128];
	struct axl__vis_result r;
	if (devs) {
		/* the container runtime's variable: it explains what access shows */
		n = 0;
		for (size_t i = 0; i < v->n; i++)
			if (is_habana(v->v[i].d)) {
				map[n] = i;
				items[n++] = (struct axl__vis_item){NULL, -1, -1, -1, habana_index(v->v[i].d)};
			}
		axl__vis_numbers(devs, true, items, n, pos, &r);
		setting(v, AXL__V_HABANA_VISIBLE_DEVICES, set, sizeof set);
		char odd[256] = "";
		for (size_t k = 0; k < n && r.code != AXL__VIS_ALL; k++) {
			struct vdev *x = &v->v[map[k]];
			if (pos[k] == AXL__VIS_UNLISTED)
				snprintf(x->runtime_why, sizeof x->runtime_why, "%s does not list it", set);
			if (v->has_dev && !odd[0] && pos[k] == AXL__VIS_UNLISTED && x->access == ACC_YES)
				snprintf(odd, sizeof odd,
					 "%s does not list %s, yet this process can open its device nodes: the "
					 "variable was not applied by a container runtime here",
					 set, axl_device_id(x->d));
		}
		if (odd[0])
			axl__warn(v->inv, SRC, NULL, "%s", odd);
	}
	if (mods) {
		/* the framework's variable: only the listed modules are used */
		n = 0;
		for (size_t i = 0; i < v->n; i++)
			if (is_habana(v->v[i].d) && v->v[i].access != ACC_NO) {
				map[n] = i;
				items[n++] = (struct axl__vis_item){NULL, -1, -1, -1, habana_module(v, v->v[i].d)};
			}
		axl__vis_numbers(mods, false, items, n, pos, &r);
		setting(v, AXL__V_HABANA_VISIBLE_MODULES, set, sizeof set);
		for (size_t k = 0; k < n && r.code != AXL__VIS_ALL; k++) {
			struct vdev *x = &v->v[map[k]];
			if (pos[k] >= 0) {
				x->env = ENV_YES;
				snprintf(x->env_why, sizeof x->env_why, "%s lists its module %lld", set,
					 (long long)items[k].number);
			} else if (pos[k] == AXL__VIS_UNKNOWN) {
				x->env = ENV_UNKNOWN;
				snprintf(x->env_why, sizeof x->env_why, "%s: its module id is not known", set);
			} else {
				x->env = ENV_NO;
				if (!*mods)
					snprintf(x->env_why, sizeof x->env_why, "HABANA_VISIBLE_MODULES is empty");
				else if (items[k].number >= 0)
					snprintf(x->env_why, sizeof x->env_why, "%s does not list its module %lld%s%s%s", set,
						 (long long)items[k].number, r.note[0] ? " (" : "", r.note, r.note[0] ? ")" : "");
				else
					snprintf(x->env_why, sizeof x->env_why, "%s (%s)", set, r.note);
			}
		}
	}
out:
	free(items);
	free(map);
	free(pos);
}

/* ---- the stage ---------------------------------------------------------------------------- */

static void collect(struct vis *v, struct axl_device *d, long parent, size_t *n, struct vdev *out)
{
	size_t me = (*n)++;
	if (out) {
		out[me].d = d;
		out[me].parent = parent;
		out[me].env = ENV_FREE;
	}
	for (size_t i = 0; i < d->children.n; i++)
		collect(v, d->children.v[i], (long)me, n, out);
}

static void read_cgroup(struct vis *v)
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
		axl__warn(v->inv, SRC, path, "devices.list is too long: the device cgroup is not checked");
}

void axl__visibility_apply(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	struct vis *v = calloc(1, sizeof *v);
	if (!v)
		return;
	v->scan = scan;
	v->fs = scan->fs;
	v->inv = inv;
	v->var = (const char *const *)scan->ctx->vis;
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
		struct vdev *x = &v->v[i];
		if (axl__int(x->d, AXL_ATTR_FAMILY, -1) == AXL_FAMILY_CPU)
			continue;
		access_of(v, x);
		if (x->parent >= 0) {
			/* a partition can be no more open than its device (parents come first) */
			const struct vdev *p = &v->v[x->parent];
			if (p->access == ACC_NO || (x->access == ACC_INHERIT && p->access != ACC_YES)) {
				x->access = p->access == ACC_PART ? ACC_UNKNOWN : p->access;
				x->access_src = p->access_src;
				snprintf(x->access_why, sizeof x->access_why, "%s", p->access_why);
			} else if (x->access == ACC_INHERIT) {
				x->access = ACC_YES;
			}
		}
	}
	nvidia(v);
	amd(v);
	habana(v);

	for (size_t i = 0; i < n; i++) {
		struct vdev *x = &v->v[i];
		struct axl_device *d = x->d;
		if (axl__int(d, AXL_ATTR_FAMILY, -1) == AXL_FAMILY_CPU)
			continue;
		char why[640];
		/* a child the variables do not mention follows its parent's verdict */
		if (x->parent >= 0 && x->env == ENV_FREE) {
			const struct vdev *p = &v->v[x->parent];
			if (p->env != ENV_FREE && !p->partial) {
				x->env = p->env;
				snprintf(x->env_why, sizeof x->env_why, "%s", p->env_why);
			}
		}
		if (x->access == ACC_NO || x->access == ACC_PART) {
			snprintf(why, sizeof why, "%s%s%s%s%s", x->access == ACC_PART ? "partly visible: " : "",
				 x->access_why, x->runtime_why[0] ? " (" : "", x->runtime_why,
				 x->runtime_why[0] ? ")" : "");
			axl__set_int(d, AXL_ATTR_VISIBLE, x->access_src, 0);
			axl__set_str(inv, d, AXL_ATTR_VISIBILITY_REASON, x->access_src, why);
		} else if (x->env == ENV_NO) {
			snprintf(why, sizeof why, "%s%s", x->partial ? "partly visible: " : "", x->env_why);
			axl__set_int(d, AXL_ATTR_VISIBLE, AXL_SOURCE_ENV, 0);
			axl__set_str(inv, d, AXL_ATTR_VISIBILITY_REASON, AXL_SOURCE_ENV, why);
		} else if (x->env == ENV_UNKNOWN) {
			axl__set_str(inv, d, AXL_ATTR_VISIBILITY_REASON, AXL_SOURCE_ENV, x->env_why);
		} else if (x->env == ENV_YES) {
			axl__set_int(d, AXL_ATTR_VISIBLE, AXL_SOURCE_ENV, 1);
			axl__set_str(inv, d, AXL_ATTR_VISIBILITY_REASON, AXL_SOURCE_ENV, x->env_why);
		} else if (x->access == ACC_UNKNOWN) {
			axl__set_str(inv, d, AXL_ATTR_VISIBILITY_REASON, AXL_SOURCE_DERIVED, x->access_why);
		} else {
			axl__set_int(d, AXL_ATTR_VISIBLE, AXL_SOURCE_DERIVED, 1);
		}
	}
	free(v->v);
	free(v);
}
