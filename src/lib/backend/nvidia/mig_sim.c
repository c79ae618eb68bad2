/* SPDX-License-Identifier: MIT */
/* MIG on simulated nodes (mig_sim.h). Nothing here touches hardware: an instance
 * is a record of the simulated node's state directory with its GPU instance id and
 * start memory slice, placed by the rules of mig_rules.c. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "devicedb.h"
#include "mig_sim.h"
#include "nvidia_dev.h"

#define SIM AXL_SOURCE_SIM
#define MAX_INST 16

static bool same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* The recorded instances of the GPU with this UUID. */
static size_t used_of(const struct axl__state *st, const char *uuid, const struct axl__mig_gpu *g,
		      struct axl__mig_inst *out, int *gis)
{
	size_t n = 0;
	for (size_t i = 0; st && i < st->parts.n && n < MAX_INST; i++) {
		const struct axl__state_part *r = &st->parts.v[i];
		const struct axl__mig_profile *p = axl__mig_profile(g, r->profile);
		if (!same(r->kind, "mig") || !same(r->uuid, uuid) || !r->has_place || !p)
			continue;
		out[n].p = p;
		out[n].start = r->start;
		if (gis)
			gis[n] = r->gi;
		n++;
	}
	return n;
}

/* The minors /proc/driver/nvidia-caps/mig-minors gives: "config" 1, "monitor" 2, then per
 * GPU 15 GPU instances of 9 minors each (the instance's access, then 8 compute
 * instances'): gpu0/gi0/access 3, gpu0/gi0/ci0/access 4, gpu0/gi1/access 12, ... */
void axl__sim_mig_nodes(size_t index, int gi, char gi_node[64], char ci_node[64])
{
	unsigned base = 3 + (unsigned)(index % 4096) * 135 + (unsigned)gi * 9;
	snprintf(gi_node, 64, "/dev/nvidia-caps/nvidia-cap%u", base);
	snprintf(ci_node, 64, "/dev/nvidia-caps/nvidia-cap%u", base + 1);
}

void axl__sim_mig_apply(struct axl_inventory *inv, struct axl_device *dev, size_t index, int mig_enabled,
			const struct axl__state *st)
{
	const struct axl__mig_gpu *g = dev->db ? axl__mig_gpu_of(axl__db_key(dev->db)) : NULL;
	if (!g)
		return;
	const char *uuid = axl__str(dev, AXL_ATTR_UUID);
	struct axl__mig_inst used[MAX_INST];
	int gis[MAX_INST];
	size_t n = mig_enabled ? used_of(st, uuid, g, used, gis) : 0;
	for (size_t k = 0; k < dev->parts.n; k++) {
		struct axl__part *part = &dev->parts.v[k];
		if (strcmp(part->pub.technology, "MIG") != 0)
			continue;
		for (size_t j = 0; j < part->profiles.n; j++) {
			const struct axl__mig_profile *p = axl__mig_profile(g, part->profiles.v[j]);
			struct axl_partition_profile *d = p ? axl__part_profile(inv, part, p->name, SIM) : NULL;
			if (!d)
				continue;
			d->source = SIM;
			d->id = p->id;
			d->memory_bytes = p->memory_mib << 20;
			d->compute_units = p->sms;
			d->slices = p->slices;
			d->max_instances = p->max_instances;
			if (mig_enabled)
				d->free_instances = axl__mig_free(g, used, n, p);
		}
	}
	/* the instances, as children (what nvml_apply.c's apply_mig makes of real ones) */
	for (size_t i = 0; st && i < st->parts.n; i++) {
		const struct axl__state_part *r = &st->parts.v[i];
		const struct axl__mig_profile *p = axl__mig_profile(g, r->profile);
		if (!mig_enabled || !same(r->kind, "mig") || !same(r->uuid, uuid) || !r->has_place || !p)
			continue;
		char suffix[32];
		snprintf(suffix, sizeof suffix, "mig%d.0", r->gi);
		struct axl_device *c = axl__child_new(inv, dev, suffix);
		if (!c)
			return;
		const axl_attr inherit[] = { AXL_ATTR_VENDOR,      AXL_ATTR_VENDOR_ID,         AXL_ATTR_DEVICE_ID,
					     AXL_ATTR_PCI_ADDRESS, AXL_ATTR_NUMA_NODE,         AXL_ATTR_ARCHITECTURE,
					     AXL_ATTR_DRIVER,      AXL_ATTR_COMPUTE_CAPABILITY };
		for (size_t a = 0; a < sizeof inherit / sizeof *inherit; a++) {
			if (!axl__known(dev, inherit[a]))
				continue;
			c->attr[inherit[a]] = dev->attr[inherit[a]];
			c->sources |= 1u << dev->attr[inherit[a]].src;
		}
		c->numa_node = dev->numa_node;
		axl__set_int(c, AXL_ATTR_FAMILY, SIM, AXL_FAMILY_GPU);
		axl__set_str(inv, c, AXL_ATTR_UUID, SIM, r->partition);
		axl__set_int(c, AXL_ATTR_PARTITION_GPU_INSTANCE, SIM, r->gi);
		axl__set_int(c, AXL_ATTR_PARTITION_COMPUTE_INSTANCE, SIM, 0);
		axl__set_int(c, AXL_ATTR_MEMORY_TOTAL, SIM, p->memory_mib << 20);
		axl__add_cu(inv, c, "SM", p->sms, SIM);
		axl__set_str(inv, c, AXL_ATTR_PARTITION_PROFILE, SIM, p->name);
		const char *model = axl__str(dev, AXL_ATTR_MODEL);
		if (model) {
			char name[300];
			snprintf(name, sizeof name, "%s MIG %s", model, p->name);
			axl__set_str(inv, c, AXL_ATTR_MODEL, SIM, name);
		}
		for (size_t k = 0; k < dev->nodes.n; k++)
			axl__add_node(inv, c, dev->nodes.v[k]);
		char gn[64], cn[64];
		axl__sim_mig_nodes(index, r->gi, gn, cn);
		axl__add_node(inv, c, gn);
		axl__add_node(inv, c, cn);
		c->sources |= 1u << SIM;
	}
}

/* A MIG device UUID for the simulated instance: "MIG-" and 32 hex digits in UUID form,
 * from FNV-1a 64 of the parent's UUID, the GPU instance id and a counter (two seeds). */
static void sim_uuid(char out[64], const char *parent, int gi, unsigned counter)
{
	char key[160];
	snprintf(key, sizeof key, "%.100s/gi%d/%u", parent ? parent : "", gi, counter);
	uint64_t h[2] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
	for (int k = 0; k < 2; k++)
		for (const unsigned char *c = (const unsigned char *)key; *c; c++)
			h[k] = (h[k] ^ *c) * 0x100000001b3ull;
	snprintf(out, 64, "MIG-%08x-%04x-%04x-%04x-%012llx", (unsigned)(h[0] >> 32), (unsigned)(h[0] >> 16) & 0xffff,
		 (unsigned)h[0] & 0xffff, (unsigned)(h[1] >> 48), (unsigned long long)(h[1] & 0xffffffffffffull));
}

struct create {
	const char *parent_id, *parent_uuid;
	const struct axl__mig_gpu *g;
	const struct axl__mig_profile *p;
	const struct axl__part_owner *owner;
	int gi, start;
	char uuid[64];
};

static int create_change(struct axl__state *st, void *arg)
{
	struct create *c = arg;
	struct axl__mig_inst used[MAX_INST];
	int gis[MAX_INST];
	size_t n = used_of(st, c->parent_uuid, c->g, used, gis);
	int start = axl__mig_place(c->g, used, n, c->p);
	if (start < 0) {
		char have[512] = "";
		size_t len = 0;
		for (size_t i = 0; i < n && len < sizeof have - 40; i++)
			len += (size_t)snprintf(have + len, sizeof have - len, "%s%s@%d", i ? ", " : "",
						used[i].p->name, used[i].start);
		return axl__error(AXL_ENOSPC, "%s (simulated %s): no room for a %s instance (in use: %s)", c->parent_id,
				  c->g->label, c->p->name, n ? have : "nothing");
	}
	int gi = 1;
	for (bool clash = true; clash && gi < 15;) {
		clash = false;
		for (size_t i = 0; i < n; i++)
			if (gis[i] == gi)
				clash = true;
		gi += clash;
	}
	unsigned counter = 0;
	for (bool clash = true; clash && counter < 100000;) {
		sim_uuid(c->uuid, c->parent_uuid, gi, counter);
		clash = false;
		for (size_t i = 0; i < st->parts.n; i++)
			if (same(st->parts.v[i].partition, c->uuid))
				clash = true;
		counter += clash;
	}
	struct axl__state_part *r = AXL__VEC_PUSH(st->parts);
	if (!r)
		return axl__error(AXL_ENOMEM, "out of memory");
	memset(r, 0, sizeof *r);
	r->device = strdup(c->parent_id);
	r->uuid = c->parent_uuid ? strdup(c->parent_uuid) : NULL;
	r->kind = strdup("mig");
	r->partition = strdup(c->uuid);
	r->profile = strdup(c->p->name);
	r->pid = c->owner->pid;
	r->owner = c->owner->owner;
	r->created = (int64_t)time(NULL);
	r->has_place = true;
	r->gi = c->gi = gi;
	r->start = c->start = start;
	if (!r->device || (c->parent_uuid && !r->uuid) || !r->kind || !r->partition || !r->profile)
		return axl__error(AXL_ENOMEM, "out of memory");
	return 1;
}

int axl__sim_mig_create(axl_context *ctx, const struct axl_device *gpu, const struct axl__mig_gpu *g,
			const struct axl__mig_profile *p, const struct axl__part_owner *owner,
			struct axl__part_made *out)
{
	struct create c = {axl_device_id(gpu), axl__str(gpu, AXL_ATTR_UUID), g, p, owner, -1, -1, {0}};
	int rc = axl__state_update(ctx, create_change, &c);
	if (rc)
		return rc;
	memset(out, 0, sizeof *out);
	snprintf(out->id, sizeof out->id, "%s", c.uuid);
	snprintf(out->profile, sizeof out->profile, "%s", p->name);
	out->profile_id = p->id;
	out->memory_bytes = p->memory_mib << 20;
	out->compute_units = p->sms;
	out->gpu_instance = c.gi;
	out->compute_instance = 0;
	/* the GPU minor its MIG capability minors count from (nvidia_sim.c set it) */
	axl__sim_mig_nodes(axl__nvidia_minor(gpu) >= 0 ? (size_t)axl__nvidia_minor(gpu) : 0, c.gi, out->nodes[0],
			   out->nodes[1]);
	out->nnodes = 2;
	return 0;
}
