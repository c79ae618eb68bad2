/* SPDX-License-Identifier: MIT */
/* Per-device limits (axl/state.h, docs/limits.md): recorded in the state file, handed
 * to workloads as environment variables. Also the partition records. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "state.h"

static bool same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* The record of a device: by UUID when it has one, else by id among records without. */
static bool limit_is(const struct axl__state_limit *l, const char *device, const char *uuid)
{
	if (uuid)
		return same(l->uuid, uuid);
	return !l->uuid && same(l->device, device);
}

struct put {
	const char *device, *uuid;
	int64_t mem;
	int pct;
};

static int put_change(struct axl__state *st, void *arg)
{
	const struct put *p = arg;
	struct axl__state_limit *l = NULL;
	for (size_t i = 0; i < st->limits.n && !l; i++)
		if (limit_is(&st->limits.v[i], p->device, p->uuid))
			l = &st->limits.v[i];
	if (!l) {
		l = AXL__VEC_PUSH(st->limits);
		if (!l)
			return axl__error(AXL_ENOMEM, "out of memory");
	}
	char *dev = strdup(p->device), *uuid = p->uuid ? strdup(p->uuid) : NULL;
	if (!dev || (p->uuid && !uuid)) {
		free(dev);
		free(uuid);
		if (!l->device) /* the new slot: drop it again */
			st->limits.n--;
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	free(l->device);
	free(l->uuid);
	l->device = dev;
	l->uuid = uuid;
	l->memory_bytes = p->mem < 0 ? -1 : p->mem;
	l->compute_percent = p->pct < 0 ? -1 : p->pct;
	l->pid = (int)getpid();
	l->created = (int64_t)time(NULL);
	return 1;
}

int axl__limit_put(axl_context *ctx, const char *device, const char *uuid, int64_t memory_bytes,
		   int compute_percent)
{
	if (!device || !*device || strlen(device) > 255 || (uuid && (!*uuid || strlen(uuid) > 255)))
		return axl__error(AXL_EINVAL, "limit: a device id of 1 to 255 bytes is needed");
	if (memory_bytes < 0 && compute_percent < 0)
		return axl__error(AXL_EINVAL, "limit for %s: neither a memory nor a compute limit given", device);
	if (memory_bytes == 0)
		return axl__error(AXL_ERANGE, "limit for %s: memory limit 0 (leave it out for none)", device);
	if (compute_percent == 0 || compute_percent > 100)
		return axl__error(AXL_ERANGE, "limit for %s: compute limit %d%% (1 to 100)", device,
				  compute_percent);
	struct put p = {device, uuid, memory_bytes, compute_percent};
	return axl__state_update(ctx, put_change, &p);
}

AXL_API int axl_limit_set(const axl_inventory *inv, const char *device, int64_t memory_bytes,
			  int compute_percent)
{
	axl__error_clear();
	if (!inv || !device)
		return axl__error(AXL_EINVAL, "axl_limit_set: inventory or device is NULL");
	const axl_device *dev = axl_inventory_find(inv, device);
	if (!dev)
		return axl__error(AXL_ENOENT, "no device '%s' on this node", device);
	const char *id = axl_device_id(dev);
	int64_t total;
	if (memory_bytes > 0 && axl_device_get_int(dev, AXL_ATTR_MEMORY_TOTAL, &total) == 0 &&
	    memory_bytes > total)
		return axl__error(AXL_ERANGE,
				  "limit for %s: memory limit %.2f GiB (%" PRId64
				  " bytes) is more than its %.2f GiB (%" PRId64 " bytes)",
				  id, (double)memory_bytes / (1 << 30), memory_bytes, (double)total / (1 << 30), total);
	const char *uuid = NULL;
	if (axl_device_get_str(dev, AXL_ATTR_UUID, &uuid) || (uuid && !*uuid))
		uuid = NULL;
	return axl__limit_put(inv->ctx, id, uuid, memory_bytes, compute_percent);
}

struct clear {
	const char *key, *id, *uuid;
	size_t removed;
};

static int clear_change(struct axl__state *st, void *arg)
{
	struct clear *c = arg;
	size_t k = 0;
	for (size_t i = 0; i < st->limits.n; i++) {
		struct axl__state_limit *l = &st->limits.v[i];
		/* a device of the inventory: its own record only (an id may have named another
		 * device before); else the key names a record by id or UUID */
		bool hit = c->id ? limit_is(l, c->id, c->uuid) || same(l->uuid, c->key)
				 : same(l->device, c->key) || same(l->uuid, c->key);
		if (hit) {
			free(l->device);
			free(l->uuid);
			c->removed++;
		} else {
			st->limits.v[k++] = *l;
		}
	}
	st->limits.n = k;
	return c->removed ? 1 : 0;
}

AXL_API int axl_limit_clear(axl_context *ctx, const axl_inventory *inv, const char *device,
			    size_t *removed)
{
	axl__error_clear();
	if (removed)
		*removed = 0;
	if (!ctx || !device || !*device)
		return axl__error(AXL_EINVAL, "axl_limit_clear: context or device is NULL");
	struct clear c = {device, NULL, NULL, 0};
	const axl_device *dev = inv ? axl_inventory_find(inv, device) : NULL;
	if (dev) {
		c.id = axl_device_id(dev);
		if (axl_device_get_str(dev, AXL_ATTR_UUID, &c.uuid) || (c.uuid && !*c.uuid))
			c.uuid = NULL;
	}
	int rc = axl__state_update(ctx, clear_change, &c);
	if (!rc && removed)
		*removed = c.removed;
	return rc;
}

AXL_API int axl_limit_list(axl_context *ctx, struct axl_limit **out, size_t *count)
{
	axl__error_clear();
	if (!out || !count)
		return axl__error(AXL_EINVAL, "axl_limit_list: out or count is NULL");
	*out = NULL;
	*count = 0;
	struct axl__state st;
	int rc = axl__state_read(ctx, &st);
	if (rc) {
		axl__state_free(&st); /* as axl_partition_list does */
		return rc;
	}
	if (!st.limits.n) {
		axl__state_free(&st); /* the partitions' records, when there are some */
		return 0;
	}
	size_t size = st.limits.n * sizeof(struct axl_limit);
	for (size_t i = 0; i < st.limits.n; i++)
		size += strlen(st.limits.v[i].device) + 1 +
			(st.limits.v[i].uuid ? strlen(st.limits.v[i].uuid) + 1 : 0);
	struct axl_limit *rows = malloc(size);
	if (!rows) {
		axl__state_free(&st);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	char *s = (char *)(rows + st.limits.n);
	for (size_t i = 0; i < st.limits.n; i++) {
		const struct axl__state_limit *l = &st.limits.v[i];
		struct axl_limit *r = &rows[i];
		memset(r, 0, sizeof *r);
		r->device = strcpy(s, l->device);
		s += strlen(s) + 1;
		if (l->uuid) {
			r->uuid = strcpy(s, l->uuid);
			s += strlen(s) + 1;
		}
		r->memory_bytes = l->memory_bytes;
		r->compute_percent = l->compute_percent;
		r->pid = l->pid;
		r->created = l->created;
	}
	*out = rows;
	*count = st.limits.n;
	axl__state_free(&st);
	return 0;
}

/* ---- the environment of a workload ---------------------------------------------- */

static void csv_add(struct axl__sb *sb, size_t i, const char *s)
{
	if (i)
		axl__sb_putc(sb, ',');
	axl__sb_puts(sb, s);
}

AXL_API int axl_limit_env(const axl_inventory *inv, const char *const *devices, size_t count,
			  char ***env_out)
{
	axl__error_clear();
	if (!env_out)
		return axl__error(AXL_EINVAL, "axl_limit_env: env_out is NULL");
	*env_out = NULL;
	if (!inv || (count && !devices) || count > 1024)
		return axl__error(AXL_EINVAL, "axl_limit_env: no inventory, or no devices");
	struct axl__state st;
	int rc = axl__state_read(inv->ctx, &st);
	if (rc) {
		axl__state_free(&st);
		return rc;
	}
	struct axl__sb keys = AXL__SB_INIT, mem = AXL__SB_INIT, pct = AXL__SB_INIT, vend = AXL__SB_INIT;
	/* each device's limits and the first backend that owns it: the vendors' variables */
	struct axl__limit *lim = calloc(count ? 2 * count : 1, sizeof *lim);
	size_t *owner = calloc(count ? count : 1, sizeof *owner);
	if (!lim || !owner) {
		rc = axl__error(AXL_ENOMEM, "out of memory");
		goto out;
	}
	struct axl__limit *mine = lim + count;
	for (size_t i = 0; i < count; i++) {
		const axl_device *dev = devices[i] ? axl_inventory_find(inv, devices[i]) : NULL;
		if (!dev) {
			rc = axl__error(AXL_ENOENT, "no device '%s' on this node", devices[i] ? devices[i] : "(null)");
			goto out;
		}
		const char *id = axl_device_id(dev), *uuid = NULL;
		if (axl_device_get_str(dev, AXL_ATTR_UUID, &uuid) || (uuid && !*uuid))
			uuid = NULL;
		const struct axl__state_limit *l = NULL;
		for (size_t k = 0; k < st.limits.n && !l; k++)
			if (limit_is(&st.limits.v[k], id, uuid))
				l = &st.limits.v[k];
		int64_t m = l ? l->memory_bytes : -1;
		int p = l ? l->compute_percent : -1;
		char num[32];
		csv_add(&keys, i, uuid ? uuid : id);
		snprintf(num, sizeof num, "%" PRId64, m);
		csv_add(&mem, i, m >= 0 ? num : "none");
		snprintf(num, sizeof num, "%d", p);
		csv_add(&pct, i, p >= 0 ? num : "none");
		owner[i] = axl__backend_total;
		for (size_t b = 0; b < axl__backend_total && owner[i] == axl__backend_total; b++)
			if (axl__backend_owns(axl__backends[b], dev))
				owner[i] = b;
		lim[i].memory_bytes = m;
		lim[i].compute_percent = p;
	}
	/* per backend, the limits of its devices in the request's order */
	for (size_t b = 0; b < axl__backend_total; b++) {
		if (!axl__backends[b]->limits || !axl__backends[b]->limits->env)
			continue;
		size_t n = 0;
		for (size_t i = 0; i < count; i++)
			if (owner[i] == b)
				mine[n++] = lim[i];
		if (n)
			axl__backends[b]->limits->env(mine, n, &vend);
	}
	if (keys.failed || mem.failed || pct.failed || vend.failed) {
		rc = axl__error(AXL_ENOMEM, "out of memory");
		goto out;
	}
	size_t nvars = 4;
	for (size_t off = 0; off < vend.len; off++)
		nvars += vend.buf[off] == '\0';
	const char *head[4][2] = {{"AXL_LIMIT_VERSION", "1"},
				  {"AXL_LIMIT_DEVICES", axl__sb_str(&keys)},
				  {"AXL_LIMIT_MEMORY_BYTES", axl__sb_str(&mem)},
				  {"AXL_LIMIT_COMPUTE_PERCENT", axl__sb_str(&pct)}};
	size_t size = (nvars + 1) * sizeof(char *) + vend.len;
	for (int k = 0; k < 4; k++)
		size += strlen(head[k][0]) + strlen(head[k][1]) + 2;
	char **env = malloc(size);
	if (!env) {
		rc = axl__error(AXL_ENOMEM, "out of memory");
		goto out;
	}
	char *s = (char *)(env + nvars + 1);
	size_t n = 0;
	for (int k = 0; k < 4; k++) {
		env[n++] = s;
		s += sprintf(s, "%s=%s", head[k][0], head[k][1]) + 1;
	}
	for (size_t off = 0; off < vend.len; n++) {
		env[n] = s;
		size_t l = strlen(vend.buf + off) + 1;
		memcpy(s, vend.buf + off, l);
		s += l;
		off += l;
	}
	env[n] = NULL;
	*env_out = env;
out:
	axl__sb_free(&keys);
	axl__sb_free(&mem);
	axl__sb_free(&pct);
	axl__sb_free(&vend);
	free(lim);
	free(owner);
	axl__state_free(&st);
	return rc;
}

/* ---- partitions ---------------------------------------------------------------- */

static int part_add_change(struct axl__state *st, void *arg)
{
	const struct axl__state_part *in = arg;
	struct axl__state_part *p = AXL__VEC_PUSH(st->parts);
	if (!p)
		return axl__error(AXL_ENOMEM, "out of memory");
	p->device = strdup(in->device);
	p->uuid = in->uuid ? strdup(in->uuid) : NULL;
	p->kind = strdup(in->kind);
	p->partition = strdup(in->partition);
	p->profile = in->profile ? strdup(in->profile) : NULL;
	p->pid = in->pid;
	p->owner = in->owner;
	p->created = in->created ? in->created : (int64_t)time(NULL);
	p->has_place = in->has_place;
	p->gi = in->gi;
	p->start = in->start;
	if (!p->device || !p->kind || !p->partition || (in->uuid && !p->uuid) || (in->profile && !p->profile))
		return axl__error(AXL_ENOMEM, "out of memory"); /* freed with the state */
	return 1;
}

int axl__state_part_add(axl_context *ctx, const struct axl__state_part *p)
{
	if (!p || !p->device || !*p->device || !p->kind || !*p->kind || !p->partition || !*p->partition)
		return axl__error(AXL_EINVAL, "partition record: device, kind and partition are needed");
	return axl__state_update(ctx, part_add_change, (void *)p);
}

struct part_rm {
	const char *device, *partition;
	size_t removed;
};

static int part_rm_change(struct axl__state *st, void *arg)
{
	struct part_rm *r = arg;
	size_t k = 0;
	for (size_t i = 0; i < st->parts.n; i++) {
		struct axl__state_part *p = &st->parts.v[i];
		if ((same(p->device, r->device) || same(p->uuid, r->device)) && same(p->partition, r->partition)) {
			free(p->device);
			free(p->uuid);
			free(p->kind);
			free(p->partition);
			free(p->profile);
			r->removed++;
		} else {
			st->parts.v[k++] = *p;
		}
	}
	st->parts.n = k;
	return r->removed ? 1 : 0;
}

int axl__state_part_remove(axl_context *ctx, const char *device, const char *partition, size_t *removed)
{
	struct part_rm r = {device, partition, 0};
	if (!device || !partition)
		return axl__error(AXL_EINVAL, "partition record: device and partition are needed");
	int rc = axl__state_update(ctx, part_rm_change, &r);
	if (removed)
		*removed = rc ? 0 : r.removed;
	return rc;
}
