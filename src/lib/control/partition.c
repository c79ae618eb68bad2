/* SPDX-License-Identifier: MIT */
/* Partitions (axl/partition.h, docs/partitions.md): the checks every call makes, the
 * state records, and the rows handed back. What a partition is, and making one, is the
 * business of the backend that owns the device (struct axl__part_ops). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "axl/partition.h"
#include "backend.h"
#include "state.h"

#define NODES_MAX 24

static bool same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* root, or CAP_SYS_ADMIN (bit 21) in the effective set of /proc/self/status */
static bool privileged(void)
{
	if (geteuid() == 0)
		return true;
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return false;
	char line[256];
	bool ok = false;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "CapEff:", 7) == 0)
			ok = (strtoull(line + 7, NULL, 16) >> 21) & 1;
	fclose(f);
	return ok;
}

/* What every call that changes something checks first. */
static int may_change(axl_context *ctx, const char *what)
{
	if (ctx->sim)
		return 0;
	if (ctx->fs.rerooted)
		return axl__error(AXL_ENOTSYS, "%s: re-rooted context: axl never drives another node's hardware", what);
	if (!privileged())
		return axl__error(AXL_EPERM,
				  "%s: changing partitions needs root or CAP_SYS_ADMIN (euid %u has neither)", what,
				  (unsigned)geteuid());
	return 0;
}

static int find_gpu(const axl_inventory *inv, const char *device, const axl_device **out)
{
	const axl_device *d = axl_inventory_find(inv, device);
	if (!d)
		return axl__error(AXL_ENOENT, "no device '%.200s'", device);
	if (d->parent)
		return axl__error(AXL_EINVAL, "%s is a partition itself: give its physical device (%s)",
				  axl_device_id(d), axl_device_id(d->parent));
	*out = d;
	return 0;
}

/* The partition ops of the first backend that owns d, NULL: none. */
static const struct axl__part_ops *ops_of(const axl_device *d)
{
	for (size_t b = 0; d && b < axl__backend_total; b++) {
		const struct axl__backend *be = axl__backends[b];
		if (be->parts && axl__backend_owns(be, d))
			return be->parts;
	}
	return NULL;
}

/* The ops whose partitions are of this kind ("mig"), NULL: none. */
static const struct axl__part_ops *ops_of_kind(const char *kind)
{
	for (size_t b = 0; kind && b < axl__backend_total; b++) {
		const struct axl__part_ops *o = axl__backends[b]->parts;
		if (o && o->kind && strcmp(o->kind, kind) == 0)
			return o;
	}
	return NULL;
}

/* What the backends' ops say of the devices they create partitions of (creates) or
 * switch modes of: "A, B and C", for messages; "" when none does. */
static void what_list(char *out, size_t cap, bool creates)
{
	const char *w[AXL__BACKENDS_MAX];
	size_t n = 0;
	for (size_t b = 0; b < axl__backend_total; b++) {
		const struct axl__part_ops *o = axl__backends[b]->parts;
		const char *s = o ? (creates ? o->creates : o->switches) : NULL;
		if (s)
			w[n++] = s;
	}
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(out + len, cap - len, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", w[i]);
}

/* ---- rows ---------------------------------------------------------------------------- */

struct src {
	const char *id, *device, *parent, *parent_uuid, *kind, *profile;
	int64_t profile_id, memory_bytes, compute_units, created;
	const char *nodes[NODES_MAX];
	size_t nnodes;
	int owner_pid, owner_alive, owner;
	axl_source source;
	const struct axl__part_ops *ops; /* of its kind: its environment and nodes */
};

static void add_node(struct src *s, const char *path)
{
	for (size_t i = 0; i < s->nnodes; i++)
		if (strcmp(s->nodes[i], path) == 0)
			return;
	if (s->nnodes < NODES_MAX)
		s->nodes[s->nnodes++] = path;
}

static void add_node_cb(void *arg, const char *path)
{
	add_node(arg, path);
}

/* The nodes a process given a partition of parent needs (its own, own, among them). */
static void part_nodes(struct src *s, const axl_device *parent, const char *const *own, size_t nown)
{
	if (s->ops && s->ops->nodes)
		s->ops->nodes(parent, own, nown, add_node_cb, s);
}

static size_t slen(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

static char *put(char **at, const char *s)
{
	if (!s)
		return NULL;
	char *r = *at;
	size_t n = strlen(s) + 1;
	memcpy(r, s, n);
	*at += n;
	return r;
}

/* One allocation: the rows, then their pointer arrays, then every string. */
static int pack(const struct src *s, size_t n, struct axl_partition **out)
{
	*out = NULL;
	if (!n)
		return 0;
	size_t ptrs = 0, chars = 0;
	for (size_t i = 0; i < n; i++) {
		size_t nenv = 0, envc = 0;
		for (; s[i].ops && s[i].ops->env && s[i].ops->env[nenv]; nenv++)
			envc += strlen(s[i].ops->env[nenv]) + 1 + slen(s[i].id);
		ptrs += nenv + 1 + s[i].nnodes + 1;
		chars += slen(s[i].id) + slen(s[i].device) + slen(s[i].parent) + slen(s[i].parent_uuid) +
			 slen(s[i].kind) + slen(s[i].profile) + envc;
		for (size_t k = 0; k < s[i].nnodes; k++)
			chars += slen(s[i].nodes[k]);
	}
	struct axl_partition *rows = malloc(n * sizeof *rows + ptrs * sizeof(char *) + chars);
	if (!rows)
		return axl__error(AXL_ENOMEM, "out of memory");
	const char **pa = (const char **)(rows + n);
	char *at = (char *)(pa + ptrs);
	for (size_t i = 0; i < n; i++) {
		struct axl_partition *r = &rows[i];
		memset(r, 0, sizeof *r);
		r->id = put(&at, s[i].id);
		r->device = put(&at, s[i].device);
		r->parent = put(&at, s[i].parent);
		r->parent_uuid = put(&at, s[i].parent_uuid);
		r->kind = put(&at, s[i].kind);
		r->profile = put(&at, s[i].profile);
		r->profile_id = s[i].profile_id;
		r->memory_bytes = s[i].memory_bytes;
		r->compute_units = s[i].compute_units;
		r->owner_pid = s[i].owner_pid;
		r->owner_alive = s[i].owner_alive;
		r->created = s[i].created;
		r->source = s[i].source;
		r->owner = s[i].owner;
		/* the variables that name it to a container: NAME=id */
		const char *const *names = s[i].ops && s[i].ops->env ? s[i].ops->env : NULL;
		size_t nenv = 0;
		while (names && names[nenv])
			nenv++;
		const char **env = pa;
		pa += nenv + 1;
		for (size_t k = 0; k < nenv; k++) {
			env[k] = at;
			at += sprintf(at, "%s=%s", names[k], s[i].id) + 1;
		}
		env[nenv] = NULL;
		r->env = env;
		const char **nodes = pa;
		pa += s[i].nnodes + 1;
		for (size_t k = 0; k < s[i].nnodes; k++)
			nodes[k] = put(&at, s[i].nodes[k]);
		nodes[s[i].nnodes] = NULL;
		r->device_nodes = nodes;
	}
	*out = rows;
	return 0;
}

static int alive(int pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

static bool id_ok(const char *id)
{
	return id && *id && !strpbrk(id, ":,") && strlen(id) < 96;
}

/* No backend does it for d: say which devices axl does it for. */
static int unsupported(const axl_device *d, bool create)
{
	char c[256], m[256];
	what_list(c, sizeof c, true);
	what_list(m, sizeof m, false);
	if (create)
		return axl__error(AXL_ENOTSUP, "%s: axl creates partitions of %s only%s%s%s", axl_device_id(d),
				  c[0] ? c : "no device", m[0] ? "; " : "", m,
				  m[0] ? " change partition modes (axl_partition_set_mode)" : "");
	return axl__error(AXL_ENOTSUP, "%s: axl switches partition modes of %s only", axl_device_id(d),
			  m[0] ? m : "no device");
}

/* ---- the calls ------------------------------------------------------------------------ */

AXL_API int axl_partition_create(axl_context *ctx, const axl_inventory *inv, const char *device,
				 const char *profile, unsigned flags, struct axl_partition **out)
{
	if (out)
		*out = NULL;
	if (flags & ~(unsigned)AXL_PARTITION_OPERATOR)
		return axl__error(AXL_EINVAL, "axl_partition_create: unknown flags 0x%x", flags);
	if (!ctx || !inv || !device || !profile || !out)
		return axl__error(AXL_EINVAL, "axl_partition_create: ctx, inv, device, profile and out are needed");
	int rc = may_change(ctx, "partition create");
	const axl_device *d = NULL;
	if (rc || (rc = find_gpu(inv, device, &d)))
		return rc;
	const struct axl__part_ops *ops = ops_of(d);
	if (!ops || !ops->create)
		return unsupported(d, true);
	/* the operator's (no process owns it), or this process's */
	struct axl__part_owner owner = {AXL_PARTITION_OWNER_WORKLOAD, (int)getpid()};
	if (flags & AXL_PARTITION_OPERATOR)
		owner = (struct axl__part_owner){AXL_PARTITION_OWNER_OPERATOR, 0};
	struct axl__part_made made;
	memset(&made, 0, sizeof made);
	if ((rc = ops->create(ctx, d, profile, &owner, &made)))
		return rc;
	if (!ctx->sim) { /* (a simulated node's partition is its record already) */
		struct axl__state_part rec = {.device = (char *)axl_device_id(d),
					      .uuid = (char *)axl__str(d, AXL_ATTR_UUID),
					      .kind = (char *)ops->kind,
					      .partition = made.id,
					      .profile = made.profile[0] ? made.profile : NULL,
					      .pid = owner.pid,
					      .owner = owner.owner,
					      .created = (int64_t)time(NULL)};
		rc = axl__state_part_add(ctx, &rec);
		if (rc) { /* the partition exists but would be lost: take it back */
			if (ops->destroy)
				ops->destroy(ctx, d, made.id, NULL);
			return rc;
		}
	}
	char child[160] = "";
	if (made.child[0])
		snprintf(child, sizeof child, "%s/%s", axl_device_id(d), made.child);
	const char *own[AXL__PART_NODES_MAX];
	for (size_t k = 0; k < made.nnodes && k < AXL__PART_NODES_MAX; k++)
		own[k] = made.nodes[k];
	struct src s = {made.id, child[0] ? child : NULL, axl_device_id(d), axl__str(d, AXL_ATTR_UUID), ops->kind,
			made.profile[0] ? made.profile : made.listed, made.profile_id, made.memory_bytes,
			made.compute_units, (int64_t)time(NULL), {0}, 0, owner.pid, owner.pid > 0, owner.owner,
			made.source, ops};
	part_nodes(&s, d, own, made.nnodes < AXL__PART_NODES_MAX ? made.nnodes : AXL__PART_NODES_MAX);
	return pack(&s, 1, out);
}

/* The child device of the inventory with this UUID or id. */
static const axl_device *find_child(const axl_inventory *inv, const char *key)
{
	for (size_t i = 0; i < inv->devs.n; i++) {
		const axl_device *d = inv->devs.v[i];
		for (size_t k = 0; k < d->children.n; k++) {
			const axl_device *c = d->children.v[k];
			if (same(axl__str(c, AXL_ATTR_UUID), key) || same(axl_device_id(c), key))
				return c;
		}
	}
	return NULL;
}

AXL_API int axl_partition_list(axl_context *ctx, const axl_inventory *inv, struct axl_partition **out,
			       size_t *count)
{
	if (out)
		*out = NULL;
	if (count)
		*count = 0;
	if (!ctx || !inv || !out || !count)
		return axl__error(AXL_EINVAL, "axl_partition_list: ctx, inv, out and count are needed");
	struct axl__state st;
	int rc = axl__state_read(ctx, &st);
	if (rc) {
		axl__state_free(&st);
		return rc;
	}
	size_t cap = st.parts.n + 16, n = 0;
	for (size_t i = 0; i < inv->devs.n; i++)
		cap += inv->devs.v[i]->children.n;
	struct src *s = calloc(cap, sizeof *s);
	bool *seen = calloc(st.parts.n + 1, 1);
	if (!s || !seen) {
		free(s);
		free(seen);
		axl__state_free(&st);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < inv->devs.n; i++) {
		const axl_device *d = inv->devs.v[i];
		const struct axl__part_ops *ops = ops_of(d);
		for (size_t k = 0; ops && ops->kind && k < d->children.n; k++) {
			const axl_device *c = d->children.v[k];
			const char *uuid = axl__str(c, AXL_ATTR_UUID);
			if (!id_ok(uuid))
				continue;
			struct src *r = &s[n++];
			r->id = uuid;
			r->device = axl_device_id(c);
			r->parent = axl_device_id(d);
			r->parent_uuid = axl__str(d, AXL_ATTR_UUID);
			r->kind = ops->kind;
			r->ops = ops;
			r->profile = axl__str(c, AXL_ATTR_PARTITION_PROFILE);
			r->profile_id = -1;
			const struct axl__part *part = NULL;
			for (size_t q = 0; ops->technology && q < d->parts.n && !part; q++)
				if (strcmp(d->parts.v[q].pub.technology, ops->technology) == 0)
					part = &d->parts.v[q];
			for (size_t j = 0; part && r->profile && j < part->profiles.n && j < part->details.n; j++)
				if (part->details.v[j] && strcmp(part->profiles.v[j], r->profile) == 0)
					r->profile_id = part->details.v[j]->id;
			r->memory_bytes = axl__int(c, AXL_ATTR_MEMORY_TOTAL, -1);
			r->compute_units = -1;
			for (size_t u = 0; u < c->cus.n; u++)
				r->compute_units = c->cus.v[u].count;
			r->source = c->attr[AXL_ATTR_UUID].src;
			const char *own[NODES_MAX];
			size_t nown = 0;
			for (size_t u = 0; u < c->nodes.n && nown < NODES_MAX; u++)
				own[nown++] = c->nodes.v[u];
			part_nodes(r, d, own, nown);
			for (size_t q = 0; q < st.parts.n; q++)
				if (same(st.parts.v[q].partition, uuid)) {
					seen[q] = true;
					r->owner_pid = st.parts.v[q].pid;
					r->owner_alive = alive(r->owner_pid);
					r->owner = st.parts.v[q].owner;
					r->created = st.parts.v[q].created;
				}
		}
	}
	for (size_t q = 0; q < st.parts.n && n < cap; q++) {
		const struct axl__state_part *p = &st.parts.v[q];
		if (seen[q])
			continue;
		struct src *r = &s[n++];
		r->id = p->partition;
		r->parent = p->device;
		r->parent_uuid = p->uuid;
		r->kind = p->kind;
		r->ops = ops_of_kind(p->kind);
		r->profile = p->profile;
		r->profile_id = r->memory_bytes = r->compute_units = -1;
		r->owner_pid = p->pid;
		r->owner_alive = alive(p->pid);
		r->owner = p->owner;
		r->created = p->created;
		r->source = ctx->sim ? AXL_SOURCE_SIM : AXL_SOURCE_NONE;
	}
	rc = pack(s, n, out);
	if (!rc)
		*count = n;
	free(s);
	free(seen);
	axl__state_free(&st);
	return rc;
}

AXL_API int axl_partition_destroy(axl_context *ctx, const axl_inventory *inv, const char *device,
				  const char *partition, unsigned flags, size_t *removed)
{
	(void)flags;
	if (removed)
		*removed = 0;
	if (!ctx || !inv || !partition)
		return axl__error(AXL_EINVAL, "axl_partition_destroy: ctx, inv and partition are needed");
	int rc = may_change(ctx, "partition destroy");
	if (rc)
		return rc;
	const axl_device *want = NULL;
	if (device && (rc = find_gpu(inv, device, &want)))
		return rc;
	const axl_device *c = find_child(inv, partition);
	if (c && want && c->parent != want)
		return axl__error(AXL_EINVAL, "partition %s belongs to %s, not to %s", partition,
				  axl_device_id(c->parent), axl_device_id(want));
	const char *uuid = c ? axl__str(c, AXL_ATTR_UUID) : partition;
	size_t n = 0, dropped = 0;
	if (c && !ctx->sim) {
		const struct axl__part_ops *ops = ops_of(c->parent);
		if (!ops || !ops->destroy)
			return axl__error(AXL_ENOTSUP, "%s: axl destroys no partitions of %s", partition,
					  axl_device_id(c->parent));
		if (!uuid)
			return axl__error(AXL_ENOTSUP, "%s: a partition without a UUID cannot be destroyed", partition);
		if ((rc = ops->destroy(ctx, c->parent, uuid, &n)))
			return rc;
	}
	/* the record (for a simulated node, the partition itself) */
	struct axl__state st;
	if ((rc = axl__state_read(ctx, &st))) {
		axl__state_free(&st);
		return rc;
	}
	for (size_t q = 0; q < st.parts.n && !rc; q++) {
		const struct axl__state_part *p = &st.parts.v[q];
		if (!same(p->partition, uuid))
			continue;
		if (want && !same(p->device, axl_device_id(want)) && !same(p->uuid, axl__str(want, AXL_ATTR_UUID)))
			continue;
		size_t k = 0;
		rc = axl__state_part_remove(ctx, p->uuid ? p->uuid : p->device, p->partition, &k);
		dropped += k;
	}
	axl__state_free(&st);
	if (!rc && removed)
		*removed = ctx->sim ? (c ? dropped : 0) : n;
	return rc;
}

AXL_API int axl_partition_cleanup_action(const struct axl_partition *p, const char **why)
{
	const char *w;
	int a = AXL_PARTITION_KEEP;
	if (!p)
		w = "no partition";
	else if (!p->device) {
		a = AXL_PARTITION_FORGET;
		w = "the partition is gone: only its record is left";
	} else if (p->owner == AXL_PARTITION_OWNER_WORKLOAD && !p->owner_alive) {
		a = AXL_PARTITION_DESTROY;
		w = "the workload process that owns it is gone";
	} else if (p->owner == AXL_PARTITION_OWNER_WORKLOAD)
		w = "the workload process that owns it is running";
	else if (p->owner == AXL_PARTITION_OWNER_OPERATOR)
		w = "the operator's: only a destroy by its id removes it";
	else if (p->created > 0)
		w = "recorded without its owner (by an older axl): only a destroy by its id removes it";
	else
		w = "not made through axl: only a destroy by its id removes it";
	if (why)
		*why = w;
	return a;
}

AXL_API int axl_partition_cleanup(axl_context *ctx, const axl_inventory *inv, size_t *removed)
{
	if (removed)
		*removed = 0;
	if (!ctx || !inv)
		return axl__error(AXL_EINVAL, "axl_partition_cleanup: ctx and inv are needed");
	int rc = may_change(ctx, "partition cleanup");
	if (rc)
		return rc;
	struct axl_partition *rows = NULL;
	size_t n = 0, total = 0;
	if ((rc = axl_partition_list(ctx, inv, &rows, &n)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		size_t k = 0;
		switch (axl_partition_cleanup_action(&rows[i], NULL)) {
		case AXL_PARTITION_FORGET:
			rc = axl__state_part_remove(ctx, rows[i].parent_uuid ? rows[i].parent_uuid : rows[i].parent,
						    rows[i].id, NULL);
			break;
		case AXL_PARTITION_DESTROY:
			rc = axl_partition_destroy(ctx, inv, NULL, rows[i].id, 0, &k);
			total += k;
			break;
		default:
			break;
		}
	}
	free(rows);
	if (removed)
		*removed = total;
	return rc;
}

AXL_API int axl_partition_set_mode(axl_context *ctx, const axl_inventory *inv, const char *device,
				   const char *kind, const char *mode, unsigned flags)
{
	if (!ctx || !inv || !device || !kind || !mode)
		return axl__error(AXL_EINVAL, "axl_partition_set_mode: ctx, inv, device, kind and mode are needed");
	if (strcmp(kind, "compute") != 0 && strcmp(kind, "memory") != 0)
		return axl__error(AXL_EINVAL, "partition mode kind '%.40s': compute or memory", kind);
	/* confirmed: refused before the device is even looked up where axl must not change
	 * anything; unconfirmed: nothing changes, the refusal says what would */
	int rc = flags & AXL_PARTITION_CONFIRM ? may_change(ctx, "partition mode") : 0;
	const axl_device *d = NULL;
	if (rc || (rc = find_gpu(inv, device, &d)))
		return rc;
	if (!(flags & AXL_PARTITION_CONFIRM)) {
		/* say exactly what would change: the mode (of the partitioning that lists the
		 * new one) and the partitions that go with the old one */
		const char *cur = NULL;
		for (size_t i = 0; i < d->parts.n && !cur; i++)
			for (size_t j = 0; j < d->parts.v[i].profiles.n; j++)
				if (strcmp(d->parts.v[i].profiles.v[j], mode) == 0)
					cur = d->parts.v[i].pub.mode ? d->parts.v[i].pub.mode : "not known";
		char kids[512] = "";
		size_t len = 0;
		for (size_t k = 0; k < d->children.n && len < sizeof kids - 64; k++)
			len += (size_t)snprintf(kids + len, sizeof kids - len, "%s%s", k ? ", " : "",
						axl_device_id(d->children.v[k]));
		return axl__error(
		    AXL_EINVAL,
		    "%s: switching the %s partition mode %s -> %.40s destroys %s%s%s and needs the device "
		    "idle: confirm with AXL_PARTITION_CONFIRM (axl partition mode --yes)",
		    axl_device_id(d), kind, cur ? cur : "(current not known)", mode,
		    d->children.n ? "its partitions (" : "every partition of the device (it has none now",
		    d->children.n ? kids : "", ")");
	}
	const struct axl__part_ops *ops = ops_of(d);
	if (!ops || !ops->set_mode)
		return unsupported(d, false);
	return ops->set_mode(ctx, d, kind, mode);
}
