/* SPDX-License-Identifier: MIT */
/* What control/ asks of NVIDIA (internal.h, struct axl__part_ops; docs/partitions.md,
 * docs/limits.md): MIG partitions, made through NVML on the live system (nvml_mig.c) and
 * as state records on a simulated node (mig_sim.c), the profile names a request
 * may use, the nodes and variables a container needs for a MIG device, and the limits
 * in the environment HAMi-core reads. axl never switches MIG mode. */
#define _GNU_SOURCE
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "devicedb.h"
#include "backend.h"
#include "nvidia_control.h"
#include "nvml_mig.h"
#include "mig_sim.h"

static const struct axl__part *mig_of(const struct axl_device *d)
{
	for (size_t k = 0; k < d->parts.n; k++)
		if (strcmp(d->parts.v[k].pub.technology, "MIG") == 0)
			return &d->parts.v[k];
	return NULL;
}

/* "<n>g.<m>gb" -> n, m; false when not that form */
static bool slices_gb(const char *s, long *n, long *m)
{
	char *e;
	if (!isdigit((unsigned char)*s))
		return false;
	*n = strtol(s, &e, 10);
	if (strncmp(e, "g.", 2) != 0 || !isdigit((unsigned char)e[2]))
		return false;
	*m = strtol(e + 2, &e, 10);
	return strcmp(e, "gb") == 0 && *n > 0 && *n < 100 && *m > 0 && *m < 100000;
}

/* The profile a request names ("1g.10gb", "MIG-1g.10gb", its NVML id "19", or "1g.8gb"
 * for the smallest 1g profile with at least 8 GB): index into part->profiles, or an
 * error naming those offered. */
static int resolve(const struct axl_device *d, const struct axl__part *part, const char *want, size_t *out)
{
	const char *w = strncasecmp(want, "mig-", 4) == 0 ? want + 4 : want;
	size_t np = part->profiles.n;
	for (size_t j = 0; j < np; j++)
		if (strcmp(part->profiles.v[j], w) == 0)
			return *out = j, 0;
	size_t digits = strspn(w, "0123456789");
	if (digits && !w[digits] && digits < 6) {
		long id = strtol(w, NULL, 10);
		for (size_t j = 0; j < np; j++)
			if (j < part->details.n && part->details.v[j] && part->details.v[j]->id == id)
				return *out = j, 0;
	}
	long n, m, bn, bm, best_m = -1;
	if (slices_gb(w, &n, &m)) {
		for (size_t j = 0; j < np; j++)
			if (slices_gb(part->profiles.v[j], &bn, &bm) && bn == n && bm >= m &&
			    (best_m < 0 || bm < best_m)) {
				best_m = bm;
				*out = j;
			}
		if (best_m >= 0)
			return 0;
	}
	char list[512] = "";
	size_t len = 0;
	for (size_t j = 0; j < np && len < sizeof list - 80; j++) {
		const struct axl_partition_profile *pd = j < part->details.n ? part->details.v[j] : NULL;
		len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", j ? ", " : "", part->profiles.v[j]);
		if (pd && pd->id >= 0)
			len += (size_t)snprintf(list + len, sizeof list - len, " (%" PRId64 ")", pd->id);
	}
	return axl__error(AXL_ENOENT, "%s: no MIG profile '%.100s'; it offers: %s", axl_device_id(d), want,
			  np ? list : "none");
}

static bool id_ok(const char *id)
{
	return id && *id && !strpbrk(id, ":,") && strlen(id) < 96;
}

static int mig_create(axl_context *ctx, const struct axl_device *d, const char *profile,
		      const struct axl__part_owner *owner, struct axl__part_made *out)
{
	const struct axl__part *part = mig_of(d);
	if (!part)
		return axl__error(AXL_ENOTSUP, "%s: this GPU has no MIG", axl_device_id(d));
	if (!part->pub.mode || strcmp(part->pub.mode, "enabled") != 0)
		return axl__error(
		    AXL_ENOTSUP,
		    "MIG is disabled on %s (mode %s): axl never switches MIG mode; use nvidia-smi -i %s -mig 1",
		    axl_device_id(d), part->pub.mode ? part->pub.mode : "unknown",
		    axl__str(d, AXL_ATTR_PCI_ADDRESS) ? axl__str(d, AXL_ATTR_PCI_ADDRESS) : "N");
	size_t j = 0;
	int rc = resolve(d, part, profile, &j);
	if (rc)
		return rc;
	const struct axl_partition_profile *pd = j < part->details.n ? part->details.v[j] : NULL;
	if (ctx->sim) {
		const struct axl__mig_gpu *g = d->db ? axl__mig_gpu_of(axl__db_key(d->db)) : NULL;
		const struct axl__mig_profile *p = axl__mig_profile(g, part->profiles.v[j]);
		if (!p)
			return axl__error(AXL_ENOTSUP, "%s: axl has no MIG rules for this simulated GPU (%s)",
					  axl_device_id(d), part->profiles.v[j]);
		rc = axl__sim_mig_create(ctx, d, g, p, owner, out);
		out->source = AXL_SOURCE_SIM;
	} else {
		if (!pd || pd->id < 0)
			return axl__error(AXL_ENOTSUP, "%s: the NVML id of profile %s is not known", axl_device_id(d),
					  part->profiles.v[j]);
		out->gpu_instance = out->compute_instance = -1;
		rc = axl__nvml_mig_create(ctx, d, pd->id, out);
		if (!rc && !id_ok(out->id))
			rc = axl__error(AXL_EBACKEND, "%s: the new MIG device's UUID '%.96s' is not usable as an id",
					axl_device_id(d), out->id);
		out->source = AXL_SOURCE_NVML;
	}
	if (rc)
		return rc;
	out->listed = part->profiles.v[j];
	if (out->gpu_instance >= 0 && out->compute_instance >= 0)
		snprintf(out->child, sizeof out->child, "mig%d.%d", out->gpu_instance, out->compute_instance);
	return 0;
}

static int mig_destroy(axl_context *ctx, const struct axl_device *gpu, const char *id, size_t *removed)
{
	return axl__nvml_mig_destroy(ctx, gpu, id, removed);
}

static int mig_set_mode(axl_context *ctx, const struct axl_device *d, const char *kind, const char *mode)
{
	(void)ctx, (void)kind, (void)mode;
	return axl__error(AXL_ENOTSUP, "%s: axl never switches MIG mode; use nvidia-smi -mig 1", axl_device_id(d));
}

/* The parent's /dev/nvidiaN, the driver's control and UVM nodes, then the instance's. */
static void mig_nodes(const struct axl_device *parent, const char *const *own, size_t nown,
		      void (*add)(void *arg, const char *path), void *arg)
{
	for (size_t i = 0; parent && i < parent->nodes.n; i++) {
		const char *p = parent->nodes.v[i];
		if (strncmp(p, "/dev/nvidia", 11) == 0 && isdigit((unsigned char)p[11]))
			add(arg, p);
	}
	add(arg, "/dev/nvidiactl");
	add(arg, "/dev/nvidia-uvm");
	add(arg, "/dev/nvidia-uvm-tools");
	for (size_t i = 0; i < nown; i++)
		if (strncmp(own[i], "/dev/nvidia", 11) == 0 && !(isdigit((unsigned char)own[i][11])))
			add(arg, own[i]);
}

static const char *const mig_env[] = {"NVIDIA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", NULL};

const struct axl__part_ops axl__nvidia_parts = {
	.technology = "MIG",
	.kind = "mig",
	.creates = "NVIDIA MIG GPUs",
	.env = mig_env,
	.create = mig_create,
	.destroy = mig_destroy,
	.set_mode = mig_set_mode,
	.nodes = mig_nodes,
};

/* HAMi-core's variables (docs/limits.md): CUDA_DEVICE_MEMORY_LIMIT_<i> and
 * CUDA_DEVICE_SM_LIMIT_<i> by the index among the request's NVIDIA devices, and
 * CUDA_DEVICE_SM_LIMIT when every one has the same compute limit. */
void axl__nvidia_limit_env(const struct axl__limit *limits, size_t n, struct axl__sb *out)
{
	int sm_all = -2; /* the compute limit shared by every device; -3: they differ */
	for (size_t i = 0; i < n; i++) {
		int64_t m = limits[i].memory_bytes;
		int p = limits[i].compute_percent;
		if (m >= 0)
			axl__sb_printf(out, "CUDA_DEVICE_MEMORY_LIMIT_%zu=%" PRId64 "%c", i, m, '\0');
		if (p >= 0)
			axl__sb_printf(out, "CUDA_DEVICE_SM_LIMIT_%zu=%d%c", i, p, '\0');
		sm_all = sm_all == -2 ? p : sm_all == p ? p : -3;
	}
	if (sm_all >= 0)
		axl__sb_printf(out, "CUDA_DEVICE_SM_LIMIT=%d%c", sm_all, '\0');
}
