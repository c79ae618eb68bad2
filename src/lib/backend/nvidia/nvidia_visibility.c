/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA's visibility rules (docs/visibility.md): which /dev nodes CUDA needs, the
 * variables CUDA and the NVIDIA container runtime read, and which GPUs they number.
 * visibility/ checks access and turns the verdicts written here into attributes.
 *
 * CUDA and NVML number the GPUs whose /dev/nvidiaN opens, in PCI bus order as nvidia-smi
 * does (CUDA itself fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID); MIG devices are
 * children that NVML creates. NVIDIA_VISIBLE_DEVICES only says what the container runtime
 * was asked to inject: it explains what access shows and never hides a device by itself.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "nvidia_visibility.h"
#include "util/parse.h"

const char *const axl__nvidia_vis_vars[] = {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES",
					    NULL};

/* ==== the parsers (pure) ============================================================ */

/* CUDA reads an entry like strtoul (PyTorch's model of it): leading digits, an optional
 * sign; "1gpu" is 1, "x" is not a number. */
static bool cuda_number(const char *s, long long *out)
{
	const char *p = s;
	bool neg = false;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (!isdigit((unsigned char)*p))
		return false;
	long long v = 0;
	while (isdigit((unsigned char)*p) && v < 1000000000)
		v = v * 10 + (*p++ - '0');
	*out = neg ? -v : v;
	return true;
}

void axl__vis_cuda(const char *value, const struct axl__vis_item *items, size_t n, bool mig_known,
		   int *pos, struct axl__vis_result *r)
{
	if (!axl__vis_begin(value, false, n, pos, r))
		return;
	enum { IDX, GPU, MIG } mode = strncmp(value, "GPU-", 4) == 0 ? GPU : strncmp(value, "MIG-", 4) == 0 ? MIG : IDX;
	char buf[4096], *tok[AXL__VIS_MAXTOK];
	size_t nt = axl__vis_split(value, buf, sizeof buf, tok, false);
	int ord = 0;
	r->code = AXL__VIS_SOME;
	for (size_t t = 0; t < nt; t++) {
		long hit = -1;
		if (mode == IDX) {
			char *s = axl__vis_trim(tok[t]);
			long long x;
			if (!cuda_number(s, &x)) {
				axl__vis_note(r, "CUDA stops at '%s', which is not an index", s);
				break;
			}
			if (x < 0) {
				axl__vis_note(r, "CUDA stops at '%s'", s);
				break;
			}
			hit = axl__vis_nth(items, n, (uint64_t)x);
			if (hit < 0) {
				axl__vis_note(r, "CUDA stops at '%s': there is no such GPU", s);
				break;
			}
			r->by_index = true;
		} else if (mode == GPU) {
			const char *s = tok[t];
			if (strncmp(s, "GPU-", 4) != 0) {
				axl__vis_note(r, "CUDA stops at '%s', which is not a GPU UUID", s);
				break;
			}
			size_t unknown = 0;
			hit = axl__vis_by_uuid(items, n, false, s, strlen(s), false, &unknown);
			if (hit == -2) {
				axl__vis_note(r, "CUDA stops at '%s', which matches several GPUs", s);
				break;
			}
			if (hit < 0) {
				if (unknown) {
					axl__vis_note(r, "'%s' matches no GPU whose UUID axl knows", s);
					r->code = AXL__VIS_UNSURE;
				} else {
					axl__vis_note(r, "CUDA stops at '%s', which matches no GPU", s);
				}
				break;
			}
		} else {
			const char *s = tok[t];
			if (strncmp(s, "MIG-", 4) != 0) {
				axl__vis_note(r, "CUDA stops at '%s', which is not a MIG UUID", s);
				break;
			}
			const char *slash = strchr(s, '/');
			if (strncmp(s + 4, "GPU-", 4) == 0 && slash) {
				/* the format of drivers before R470: MIG-<GPU UUID>/<GI>/<CI> */
				long long gi = -1, ci = -1;
				char rest[64];
				snprintf(rest, sizeof rest, "%s", slash + 1);
				char *sl2 = strchr(rest, '/');
				if (sl2) {
					*sl2 = '\0';
					int64_t a, b;
					if (axl__parse_i64(rest, &a) == 0 && axl__parse_i64(sl2 + 1, &b) == 0) {
						gi = a;
						ci = b;
					}
				}
				long g = axl__vis_by_uuid(items, n, false, s + 4, (size_t)(slash - s - 4), false, NULL);
				if (g >= 0 && gi >= 0)
					for (size_t c = 0; c < n; c++)
						if (items[c].parent == g && items[c].gi == gi && items[c].ci == ci)
							hit = (long)c;
			} else {
				hit = axl__vis_by_uuid(items, n, true, s, strlen(s), false, NULL);
				if (hit == -2) {
					axl__vis_note(r, "CUDA stops at '%s', which matches several MIG devices", s);
					break;
				}
			}
			if (hit < 0) {
				if (!mig_known) {
					axl__vis_note(
					    r,
					    "'%s' names a MIG device and axl does not know the MIG devices (no NVML)",
					    s);
					r->code = AXL__VIS_UNSURE;
				} else {
					axl__vis_note(r, "CUDA stops at '%s', which matches no MIG device", s);
				}
				break;
			}
		}
		if (pos[hit] >= 0) {
			/* a repeated device: CUDA then shows none at all */
			axl__vis_none(n, pos, r);
			axl__vis_note(r, "'%s' is listed twice, so CUDA shows no GPU", tok[t]);
			return;
		}
		axl__vis_select(items, n, pos, (size_t)hit, ord++);
	}
	if (r->code == AXL__VIS_UNSURE)
		for (size_t i = 0; i < n; i++)
			if (pos[i] < 0)
				pos[i] = AXL__VIS_UNKNOWN;
}

void axl__vis_nvidia_runtime(const char *value, const struct axl__vis_item *items, size_t n,
			     int *pos, struct axl__vis_result *r)
{
	axl__vis_start(n, pos, r);
	if (!value || !*value || strcmp(value, "void") == 0) {
		r->code = AXL__VIS_OFF;
		return;
	}
	if (strcmp(value, "all") == 0) {
		r->code = AXL__VIS_ALL;
		return;
	}
	if (strcmp(value, "none") == 0) {
		axl__vis_none(n, pos, r);
		snprintf(r->note, sizeof r->note, "the runtime mounts the driver but no GPU");
		return;
	}
	char buf[4096], *tok[AXL__VIS_MAXTOK];
	size_t nt = axl__vis_split(value, buf, sizeof buf, tok, false);
	int ord = 0;
	r->code = AXL__VIS_SOME;
	for (size_t t = 0; t < nt; t++) {
		char *s = axl__vis_trim(tok[t]);
		long hit = -1;
		uint64_t a, b;
		char *colon = strchr(s, ':');
		if (strncmp(s, "GPU-", 4) == 0) {
			hit = axl__vis_by_uuid(items, n, false, s, strlen(s), true, NULL);
		} else if (strncmp(s, "MIG-", 4) == 0) {
			hit = axl__vis_by_uuid(items, n, true, s, strlen(s), true, NULL);
		} else if (colon) {
			/* "<gpu index>:<MIG device index>" */
			*colon = '\0';
			long g = -1;
			if (axl__parse_u64(s, 10, &a) == 0 && axl__parse_u64(colon + 1, 10, &b) == 0)
				g = axl__vis_nth(items, n, a);
			for (size_t c = 0; g >= 0 && c < n; c++)
				if (items[c].parent == g && b-- == 0) {
					hit = (long)c;
					break;
				}
			*colon = ':';
		} else if (axl__parse_u64(s, 10, &a) == 0) {
			hit = axl__vis_nth(items, n, a);
		}
		if (hit < 0) {
			if (!r->note[0])
				axl__vis_note(r, "'%s' matches no GPU of this node", s);
			continue;
		}
		if (pos[hit] < 0)
			axl__vis_select(items, n, pos, (size_t)hit, ord++);
	}
}


/* ==== access: the nodes CUDA opens ==================================================== */

/* /dev/nvidiaN is the GPU to CUDA (its DRM nodes do not matter to it); no GPU opens
 * without /dev/nvidiactl. */
int axl__nvidia_vis_node(const char *path)
{
	if (strncmp(path, "/dev/nvidia", 11) == 0 && axl__vis_digits(path + 11))
		return AXL__VIS_NODE_COMPUTE;
	if (strcmp(path, "/dev/nvidiactl") == 0)
		return AXL__VIS_NODE_REQUIRED;
	return AXL__VIS_NODE_OWN;
}

/* In a tree /dev holds plain files: the driver's majors come from /proc/devices, its
 * minors from the names (nvidiactl 255, nvidia-modeset 254: the driver's fixed minors). */
bool axl__nvidia_vis_devnum(const struct axl__vis *v, const char *rel, unsigned *mj, unsigned *mn)
{
	if (strncmp(rel, "nvidia", 6) != 0)
		return false;
	long nv = axl__vis_chr_major(v, "nvidia-frontend");
	if (nv < 0)
		nv = axl__vis_chr_major(v, "nvidia");
	if (nv < 0)
		nv = 195; /* Documentation/admin-guide/devices.txt */
	long m;
	if (axl__vis_digits(rel + 6)) {
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
	    (m = axl__vis_chr_major(v, "nvidia-uvm")) >= 0) {
		*mj = (unsigned)m;
		*mn = rel[10] ? 1 : 0;
		return true;
	}
	if (strncmp(rel, "nvidia-caps/nvidia-cap", 22) == 0 && axl__vis_digits(rel + 22) &&
	    (m = axl__vis_chr_major(v, "nvidia-caps")) >= 0) {
		*mj = (unsigned)m;
		*mn = (unsigned)strtoul(rel + 22, NULL, 10);
		return true;
	}
	return false;
}

/* ==== the variables =================================================================== */

static bool is_nvidia_gpu(const struct axl_device *d)
{
	const char *drv = axl__str(d, AXL_ATTR_DRIVER), *st = axl__str(d, AXL_ATTR_STATE);
	return !d->parent && d->prefix && strcmp(d->prefix, "nvidia") == 0 && drv &&
	       strcmp(drv, "nvidia") == 0 && !(st && strcmp(st, "excluded") == 0);
}

/* NVIDIA_VISIBLE_DEVICES, then CUDA_VISIBLE_DEVICES over the GPUs CUDA can open. */
void axl__nvidia_visibility(struct axl__vis *v, const struct axl__backend *self)
{
	(void)self;
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
	const char *rt = axl__vis_var(v, "NVIDIA_VISIBLE_DEVICES");
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
					items[ni++] = (struct axl__vis_item){
						axl__str(cd, AXL_ATTR_UUID), gi,
						axl__int(cd, AXL_ATTR_PARTITION_GPU_INSTANCE, -1),
						axl__int(cd, AXL_ATTR_PARTITION_COMPUTE_INSTANCE, -1), -1
					};
				}
		}
		struct axl__vis_result r;
		axl__vis_nvidia_runtime(rt, items, ni, pos, &r);
		char set[128];
		axl__vis_setting(v, "NVIDIA_VISIBLE_DEVICES", set, sizeof set);
		char odd[256] = "";
		for (size_t k = 0; k < ni && r.code != AXL__VIS_OFF; k++) {
			struct axl__vis_dev *x = &v->v[map[k]];
			bool listed = r.code == AXL__VIS_ALL || pos[k] >= 0;
			if (!listed)
				snprintf(x->runtime_why, sizeof x->runtime_why, "%s does not list it", set);
			if (!v->has_dev || r.code == AXL__VIS_ALL || odd[0])
				continue;
			if (listed && x->access == AXL__VIS_ACC_NO)
				snprintf(odd, sizeof odd, "%s lists %s, but %s", set, axl_device_id(x->d),
					 x->access_why);
			else if (!listed && x->access == AXL__VIS_ACC_YES && items[k].parent < 0)
				snprintf(odd, sizeof odd,
					 "%s does not list %s, yet this process can open its device nodes: the "
					 "variable was not applied by a container runtime here",
					 set, axl_device_id(x->d));
		}
		if (odd[0])
			axl__warn(v->inv, AXL__VIS_SRC, NULL, "%s", odd);
	}

	/* CUDA_VISIBLE_DEVICES over the GPUs CUDA can open, in PCI order */
	const char *cvd = axl__vis_var(v, "CUDA_VISIBLE_DEVICES");
	if (!cvd)
		goto out;
	size_t ni = 0;
	bool mig_known = false, mixed = false;
	const char *model0 = NULL;
	for (size_t g = 0; g < nh; g++) {
		struct axl__vis_dev *x = &v->v[host[g]];
		if (x->access == AXL__VIS_ACC_NO)
			continue;
		const char *model = axl__str(x->d, AXL_ATTR_MODEL);
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
			if (v->v[c].parent == (long)host[g] && v->v[c].access != AXL__VIS_ACC_NO) {
				const struct axl_device *cd = v->v[c].d;
				mig_known = true;
				map[ni] = c;
				items[ni++] =
				    (struct axl__vis_item){ axl__str(cd, AXL_ATTR_UUID), gi,
							    axl__int(cd, AXL_ATTR_PARTITION_GPU_INSTANCE, -1),
							    axl__int(cd, AXL_ATTR_PARTITION_COMPUTE_INSTANCE, -1), -1 };
			}
	}
	struct axl__vis_result r;
	axl__vis_cuda(cvd, items, ni, mig_known, pos, &r);
	if (r.code == AXL__VIS_ALL)
		goto out;
	char set[128], order[160] = "";
	axl__vis_setting(v, "CUDA_VISIBLE_DEVICES", set, sizeof set);
	const char *ord = axl__vis_var(v, "CUDA_DEVICE_ORDER");
	if (r.by_index && mixed && !(ord && strcmp(ord, "PCI_BUS_ID") == 0)) {
		snprintf(order, sizeof order, "; axl counts in PCI bus order, CUDA fastest first unless "
					      "CUDA_DEVICE_ORDER=PCI_BUS_ID");
		axl__warn(v->inv, AXL__VIS_SRC, NULL,
			  "%s names GPUs by index and the GPUs differ: CUDA numbers them fastest first "
			  "unless CUDA_DEVICE_ORDER=PCI_BUS_ID, axl reads the indices in PCI bus order (as "
			  "nvidia-smi does)", set);
	}
	if (r.note[0] && r.code == AXL__VIS_UNSURE)
		axl__warn(v->inv, AXL__VIS_SRC, NULL, "%s: %s", set, r.note);
	for (size_t k = 0; k < ni; k++) {
		struct axl__vis_dev *x = &v->v[map[k]];
		char extra[200] = "";
		if (r.note[0])
			snprintf(extra, sizeof extra, " (%s)", r.note);
		if (pos[k] >= 0) {
			x->env = AXL__VIS_ENV_YES;
			if (items[k].parent >= 0 && pos[items[k].parent] == pos[k])
				snprintf(x->env_why, sizeof x->env_why, "%s lists its GPU as CUDA device %d%s", set,
					 pos[k], order);
			else
				snprintf(x->env_why, sizeof x->env_why, "%s lists it as CUDA device %d%s", set, pos[k],
					 order);
		} else if (pos[k] == AXL__VIS_UNKNOWN) {
			x->env = AXL__VIS_ENV_UNKNOWN;
			snprintf(x->env_why, sizeof x->env_why, "%s: cannot tell: %s", set, r.note);
		} else if (r.code == AXL__VIS_NONE) {
			x->env = AXL__VIS_ENV_NO;
			if (!*cvd)
				snprintf(x->env_why, sizeof x->env_why,
					 "CUDA_VISIBLE_DEVICES is empty: CUDA shows no GPU");
			else
				snprintf(x->env_why, sizeof x->env_why, "%s: %s", set, r.note);
		} else {
			x->env = AXL__VIS_ENV_NO;
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
		struct axl__vis_dev *x = &v->v[map[k]];
		x->partial = true;
		snprintf(x->env_why, sizeof x->env_why, "%s lists only %s of it", set, kids);
	}
out:
	free(host);
	free(items);
	free(map);
	free(pos);
}

const struct axl__vis_ops axl__nvidia_vis = {
	.vars = axl__nvidia_vis_vars,
	.node = axl__nvidia_vis_node,
	.devnum = axl__nvidia_vis_devnum,
	.apply = axl__nvidia_visibility,
};
