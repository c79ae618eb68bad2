/* SPDX-License-Identifier: MIT */
/*
 * Habana's visibility rules (docs/visibility.md): HABANA_VISIBLE_DEVICES names the accel
 * indices (/dev/accel/accelN, /dev/hlN) habana-container-runtime injects,
 * HABANA_VISIBLE_MODULES the module ids the framework uses. visibility/ checks access and
 * turns the verdicts written here into attributes.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "habana_visibility.h"
#include "util/parse.h"

const char *const axl__habana_vis_vars[] = {"HABANA_VISIBLE_DEVICES", "HABANA_VISIBLE_MODULES", NULL};

/* In a tree /dev holds plain files: /dev/hlN is habanalabs/hlN in sysfs. */
bool axl__habana_vis_devnum(const struct axl__vis *v, const char *rel, unsigned *mj, unsigned *mn)
{
	if (strncmp(rel, "hl", 2) != 0 || strchr(rel, '/'))
		return false;
	char sys[320];
	snprintf(sys, sizeof sys, "/sys/class/habanalabs/%s/dev", rel);
	return axl__vis_read_devnum(v, sys, mj, mn);
}

static bool is_habana(const struct axl_device *d)
{
	return !d->parent && d->prefix && strcmp(d->prefix, "habana") == 0;
}

static int64_t habana_module(const struct axl__vis *v, const struct axl_device *d)
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
		if (num && axl__vis_digits(num))
			return strtol(num, NULL, 10);
	}
	return -1;
}

/* HABANA_VISIBLE_DEVICES (the container runtime's: it explains what access shows), then
 * HABANA_VISIBLE_MODULES (the framework's: only the listed modules are used). */
void axl__habana_visibility(struct axl__vis *v, const struct axl__backend *self)
{
	(void)self;
	const char *mods = axl__vis_var(v, "HABANA_VISIBLE_MODULES"), *devs = axl__vis_var(v, "HABANA_VISIBLE_DEVICES");
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
		axl__vis_setting(v, "HABANA_VISIBLE_DEVICES", set, sizeof set);
		char odd[256] = "";
		for (size_t k = 0; k < n && r.code != AXL__VIS_ALL; k++) {
			struct axl__vis_dev *x = &v->v[map[k]];
			if (pos[k] == AXL__VIS_UNLISTED)
				snprintf(x->runtime_why, sizeof x->runtime_why, "%s does not list it", set);
			if (v->has_dev && !odd[0] && pos[k] == AXL__VIS_UNLISTED && x->access == AXL__VIS_ACC_YES)
				snprintf(odd, sizeof odd,
					 "%s does not list %s, yet this process can open its device nodes: the "
					 "variable was not applied by a container runtime here",
					 set, axl_device_id(x->d));
		}
		if (odd[0])
			axl__warn(v->inv, AXL__VIS_SRC, NULL, "%s", odd);
	}
	if (mods) {
		/* the framework's variable: only the listed modules are used */
		n = 0;
		for (size_t i = 0; i < v->n; i++)
			if (is_habana(v->v[i].d) && v->v[i].access != AXL__VIS_ACC_NO) {
				map[n] = i;
				items[n++] = (struct axl__vis_item){NULL, -1, -1, -1, habana_module(v, v->v[i].d)};
			}
		axl__vis_numbers(mods, false, items, n, pos, &r);
		axl__vis_setting(v, "HABANA_VISIBLE_MODULES", set, sizeof set);
		for (size_t k = 0; k < n && r.code != AXL__VIS_ALL; k++) {
			struct axl__vis_dev *x = &v->v[map[k]];
			if (pos[k] >= 0) {
				x->env = AXL__VIS_ENV_YES;
				snprintf(x->env_why, sizeof x->env_why, "%s lists its module %lld", set,
					 (long long)items[k].number);
			} else if (pos[k] == AXL__VIS_UNKNOWN) {
				x->env = AXL__VIS_ENV_UNKNOWN;
				snprintf(x->env_why, sizeof x->env_why, "%s: its module id is not known", set);
			} else {
				x->env = AXL__VIS_ENV_NO;
				if (!*mods)
					snprintf(x->env_why, sizeof x->env_why, "HABANA_VISIBLE_MODULES is empty");
				else if (items[k].number >= 0)
					snprintf(x->env_why, sizeof x->env_why,
						 "%s does not list its module %lld%s%s%s", set,
						 (long long)items[k].number, r.note[0] ? " (" : "", r.note,
						 r.note[0] ? ")" : "");
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

const struct axl__vis_ops axl__habana_vis = {
	.vars = axl__habana_vis_vars,
	.devnum = axl__habana_vis_devnum,
	.apply = axl__habana_visibility,
};
