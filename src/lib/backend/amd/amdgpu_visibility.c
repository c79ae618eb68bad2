/* SPDX-License-Identifier: MIT */
/*
 * AMD's visibility rules (docs/visibility.md): ROCR_VISIBLE_DEVICES, then
 * HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES, which HIP reads when the former is
 * empty) over the GPU agents ROCr finds: the KFD topology's GPU nodes whose render node
 * opens (libhsakmt skips the others), in node order. visibility/ checks access and turns
 * the verdicts written here into attributes.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend.h"
#include "amdgpu.h"
#include "amdgpu_visibility.h"
#include "util/parse.h"

const char *const axl__amdgpu_vis_vars[] = {"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",
					    NULL};

/* ==== the parsers (pure) ============================================================ */

void axl__vis_rocr(const char *value, const struct axl__vis_item *items, size_t n, int *pos,
		   struct axl__vis_result *r)
{
	if (!axl__vis_begin(value, false, n, pos, r))
		return;
	char buf[4096], *tok[AXL__VIS_MAXTOK];
	size_t nt = axl__vis_split(value, buf, sizeof buf, tok, true);
	size_t loop = nt < n ? nt : n;
	int ord = 0;
	r->code = AXL__VIS_SOME;
	size_t t;
	for (t = 0; t < loop; t++) {
		char *s = axl__vis_trim(tok[t]);
		for (char *p = s; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		long idx = -1;
		if (!*s) {
			axl__vis_note(r, "ROCr stops at an empty entry%s", "");
			break;
		}
		if (s[0] == 'G') {
			size_t len = strlen(s);
			if (len < 5 || len > 20) {
				axl__vis_note(r, "ROCr stops at '%s', which is not a GPU UUID", s);
				break;
			}
			idx = axl__vis_by_uuid(items, n, false, s, len, false, NULL);
			if (idx < 0) {
				axl__vis_note(r, idx == -2 ? "ROCr stops at '%s', which matches several GPUs" :
						    "ROCr stops at '%s', which matches no GPU", s);
				break;
			}
		} else {
			char *end = NULL;
			errno = 0;
			long v = strtol(s, &end, 0);
			if (*end != '\0' || errno) {
				axl__vis_note(r, "ROCr stops at '%s', which is not an index", s);
				break;
			}
			if (v < 0 || (size_t)v >= n) {
				axl__vis_note(r, "ROCr stops at '%s': there is no such GPU", s);
				break;
			}
			idx = v;
		}
		if (pos[idx] >= 0) {
			axl__vis_note(r, "ROCr stops at '%s', listed before", s);
			break;
		}
		pos[idx] = ord++;
	}
	if (t == loop && nt > n)
		snprintf(r->note, sizeof r->note, "ROCr reads only as many entries as there are GPUs (%zu)", n);
	if (ord == 0)
		r->code = AXL__VIS_NONE;
}

static bool canonical_index(const char *s, size_t n, size_t *out)
{
	/* ROCclr: the entry must read back the same through atoi and std::to_string */
	if (!*s || (s[0] == '0' && s[1]) || strlen(s) > 9)
		return false;
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	size_t v = (size_t)strtoul(s, NULL, 10);
	if (v >= n)
		return false;
	*out = v;
	return true;
}

void axl__vis_hip(const char *value, const struct axl__vis_item *items, size_t n, int *pos,
		  struct axl__vis_result *r)
{
	axl__vis_start(n, pos, r);
	if (!value || !*value) {
		r->code = AXL__VIS_ALL;
		return;
	}
	char buf[4096], *tok[AXL__VIS_MAXTOK];
	size_t nt = axl__vis_split(value, buf, sizeof buf, tok, true);
	int ord = 0;
	r->code = AXL__VIS_SOME;
	for (size_t t = 0; t < nt; t++) {
		char *s = tok[t];
		char num[32];
		if (strstr(s, "GPU-")) {
			/* a UUID: the first agent whose UUID contains it */
			for (size_t i = 0; i < n; i++)
				if (items[i].uuid && strcasestr(items[i].uuid, s)) {
					snprintf(num, sizeof num, "%zu", i);
					s = num;
					break;
				}
		}
		size_t idx;
		if (!canonical_index(s, n, &idx)) {
			axl__vis_note(r, "HIP stops at '%s'", tok[t]);
			break;
		}
		if (pos[idx] < 0) /* a repeated entry is skipped */
			pos[idx] = ord++;
	}
	if (ord == 0)
		r->code = AXL__VIS_NONE;
}


/* ==== access ========================================================================== */

/* ROCr opens no GPU without /dev/kfd. */
int axl__amdgpu_vis_node(const char *path)
{
	return strcmp(path, "/dev/kfd") == 0 ? AXL__VIS_NODE_REQUIRED : AXL__VIS_NODE_OWN;
}

/* In a tree /dev holds plain files: /dev/kfd's major comes from /proc/devices. */
bool axl__amdgpu_vis_devnum(const struct axl__vis *v, const char *rel, unsigned *mj, unsigned *mn)
{
	long m;
	if (strcmp(rel, "kfd") == 0 && (m = axl__vis_chr_major(v, "kfd")) >= 0) {
		*mj = (unsigned)m;
		*mn = 0;
		return true;
	}
	return false;
}

/* ==== the variables =================================================================== */

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

/* ROCR_VISIBLE_DEVICES over the GPU agents ROCr finds, then HIP's list over what it
 * leaves; a GPU in a compute-partition mode is one agent per partition (KFD node). */
void axl__amdgpu_visibility(struct axl__vis *v, const struct axl__backend *self)
{
	(void)self;
	const char *rocr = axl__vis_var(v, "ROCR_VISIBLE_DEVICES");
	const char *hipvar = "HIP_VISIBLE_DEVICES";
	const char *hip = axl__vis_var(v, hipvar);
	if (!hip || !*hip) {
		/* ROCclr reads CUDA_VISIBLE_DEVICES when HIP_VISIBLE_DEVICES is empty */
		hipvar = "CUDA_VISIBLE_DEVICES";
		hip = axl__vis_var(v, hipvar);
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
	axl__dir *dir = axl__fs_opendir(v->fs, AXL__FS_ROOT, KFD_NODES);
	if (!dir)
		return;
	AXL__VEC(struct kfdn) nodes = {0};
	struct dirent *e;
	while ((e = axl__fs_readdir(dir)) != NULL && nodes.n < 1024) {
		if (!axl__vis_digits(e->d_name))
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
	axl__fs_closedir(dir);
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
	bool kfd_ok = axl__vis_node_ok(v, "/dev/kfd", kfd_why, sizeof kfd_why, &kfd_src);
	size_t nc = 0;
	for (size_t i = 0; i < n; i++) {
		struct kfdn *k = &nodes.v[i];
		unsigned bus = (unsigned)(k->location >> 8), dn = (unsigned)((k->location >> 3) & 31),
			 fn = (unsigned)(k->location & 7);
		for (size_t j = 0; j < v->n && k->dev < 0; j++) {
			const struct axl_device *d = v->v[j].d;
			if (!is_amd(d))
				continue;
			if (k->unique ? axl__kfd_of(d)->unique_id == k->unique
				      : (d->has_pci && d->domain == k->domain && d->bus == bus && d->devno == dn &&
					 d->fn == fn))
				k->dev = (long)j;
		}
		char why[256], path[64];
		axl_source src;
		snprintf(path, sizeof path, "/dev/dri/renderD%llu", (unsigned long long)k->render);
		k->ok = kfd_ok && (k->render == 0 || axl__vis_node_ok(v, path, why, sizeof why, &src));
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
		axl__vis_setting(v, "ROCR_VISIBLE_DEVICES", rset, sizeof rset);
	if (hip)
		axl__vis_setting(v, hipvar, hset, sizeof hset);
	/* per device: all its open nodes kept, none, or some */
	for (size_t j = 0; j < v->n; j++) {
		struct axl__vis_dev *x = &v->v[j];
		if (!is_amd(x->d) || x->access == AXL__VIS_ACC_NO)
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
			x->env = AXL__VIS_ENV_YES;
			if (hip && rocr)
				snprintf(x->env_why, sizeof x->env_why, "%s and %s keep it (HIP device %d)", rset, hset,
					 first);
			else if (hip)
				snprintf(x->env_why, sizeof x->env_why, "%s lists it as HIP device %d", hset, first);
			else
				snprintf(x->env_why, sizeof x->env_why, "%s lists it as ROCm device %d", rset, first);
			continue;
		}
		x->env = AXL__VIS_ENV_NO;
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

const struct axl__vis_ops axl__amdgpu_vis = {
	.vars = axl__amdgpu_vis_vars,
	.node = axl__amdgpu_vis_node,
	.devnum = axl__amdgpu_vis_devnum,
	.apply = axl__amdgpu_visibility,
};
