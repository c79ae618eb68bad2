/* SPDX-License-Identifier: MIT */
/* libaccelerator_axl.so: limits, partitions, snapshots and the vendor libraries to mount. */
#define _GNU_SOURCE
#include "tf.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ---- limits ------------------------------------------------------------------------ */
/* Record one limit, keeping the device's other one (axl_limit_set replaces both). */
static AccelResult set_limit(const char *uuid, int64_t mem, int pct)
{
	struct tf_state *st;
	AccelResult r = tf_lock(&st);
	if (r != ACCEL_SUCCESS)
		return r;
	const axl_device *d = tf_find(st, uuid, NULL);
	if (!d) {
		tf_unlock();
		tf_log("WARN", "limit: no device %.64s", uuid);
		return ACCEL_ERROR_NOT_FOUND;
	}
	const char *duuid = NULL;
	axl_device_get_str(d, AXL_ATTR_UUID, &duuid);
	struct axl_limit *lim = NULL;
	size_t nl = 0;
	if (axl_limit_list(st->ctx, &lim, &nl) == 0) {
		for (size_t i = 0; i < nl; i++) {
			int same = duuid && lim[i].uuid ? strcasecmp(duuid, lim[i].uuid) == 0
							: strcmp(lim[i].device, axl_device_id(d)) == 0;
			if (!same)
				continue;
			if (mem < 0)
				mem = lim[i].memory_bytes;
			if (pct < 0)
				pct = lim[i].compute_percent;
		}
		axl_free(lim);
	}
	int rc = axl_limit_set(st->inv, axl_device_id(d), mem, pct);
	r = tf_result(rc, "recording the limit");
	/* bind it: the limiter region of this process (the worker calls this at its start) */
	char uuids[MAX_TOPOLOGY_DEVICES][UUID_STRING_LENGTH], mine[UUID_STRING_LENGTH];
	const char *up[MAX_TOPOLOGY_DEVICES];
	for (size_t i = 0; i < st->ndev; i++) {
		tf_uuid(st->dev[i], uuids[i], sizeof uuids[i]);
		up[i] = uuids[i];
	}
	tf_uuid(d, mine, sizeof mine);
	size_t ndev = st->ndev;
	tf_unlock();
	if (r == ACCEL_SUCCESS)
		r = tf_limiter_bind(up, ndev, mine, mem, pct);
	if (r == ACCEL_SUCCESS)
		tf_log("INFO", "limits of %.64s recorded: memory %lld bytes, compute %d%%", uuid,
		       (long long)mem, pct);
	return r;
}

TF_API AccelResult AccelSetMemHardLimit(const char *deviceUUID, uint64_t bytes)
{
	if (!deviceUUID || !*deviceUUID || bytes == 0 || bytes > (uint64_t)INT64_MAX)
		return ACCEL_ERROR_INVALID_PARAM;
	return set_limit(deviceUUID, (int64_t)bytes, -1);
}

TF_API AccelResult AccelSetComputeUnitHardLimit(const char *deviceUUID, uint32_t percent)
{
	if (!deviceUUID || !*deviceUUID || percent == 0 || percent > 100)
		return ACCEL_ERROR_INVALID_PARAM;
	return set_limit(deviceUUID, -1, (int)percent);
}

/* ---- snapshots -------------------------------------------------------------------- */
/* Snapshot: for each process, lock (its device work finishes, new work waits) then
 * checkpoint (its device memory goes to the host); Resume: restore then unlock. Through
 * axl_process_checkpoint (axl/checkpoint.h), the driver of the device's vendor (of the
 * first vendor that can, for a list of processes without a device). What the driver
 * cannot do is NOT_SUPPORTED with the reason logged. */
static AccelResult ck_result(int rc, const char *what)
{
	if (rc == 0)
		return ACCEL_SUCCESS;
	tf_log(rc == AXL_ENOTSUP || rc == AXL_ENOTSYS ? "WARN" : "ERROR", "%s: %s", what, axl_error_last());
	switch (rc) {
	case AXL_ENOTSUP:
	case AXL_ENOTSYS:
		return ACCEL_ERROR_NOT_SUPPORTED;
	case AXL_ENOENT:
		return ACCEL_ERROR_NOT_FOUND;
	case AXL_EINVAL:
	case AXL_ETIMEDOUT:
	case AXL_EBACKEND:
		return ACCEL_ERROR_OPERATION_FAILED;
	default:
		return ACCEL_ERROR_INTERNAL;
	}
}

static AccelResult snapshot_do(const SnapshotContext *c, bool resume)
{
	const char *what = resume ? "resume" : "snapshot";
	if (!c)
		return ACCEL_ERROR_INVALID_PARAM;
	int procs = c->processIds != NULL && c->processCount > 0;
	int dev = c->deviceUUID != NULL && *c->deviceUUID;
	if (!procs && !dev)
		return ACCEL_ERROR_INVALID_PARAM;
	if (c->processCount > MAX_PROCESSES || (c->processCount > 0 && !c->processIds))
		return ACCEL_ERROR_INVALID_PARAM;
	for (size_t i = 0; procs && i < c->processCount; i++) {
		if (c->processIds[i] <= 0)
			return ACCEL_ERROR_INVALID_PARAM;
		if (kill(c->processIds[i], 0) != 0 && errno == ESRCH)
			return ACCEL_ERROR_NOT_FOUND;
	}
	/* the state's lock is held throughout: the inventory stays while the driver works */
	struct tf_state *st;
	AccelResult r = tf_lock(&st);
	if (r != ACCEL_SUCCESS)
		return r;
	const char *dev_id = NULL;
	if (dev) {
		const axl_device *d = tf_find(st, c->deviceUUID, NULL);
		if (!d) {
			tf_unlock();
			return ACCEL_ERROR_NOT_FOUND;
		}
		dev_id = axl_device_id(d);
	}
	if (!procs) {
		tf_unlock();
		tf_log("WARN", "%s of %.64s: device-level snapshots are not supported: give the processes", what,
		       c->deviceUUID);
		return ACCEL_ERROR_NOT_SUPPORTED;
	}
	static const axl_checkpoint_op fwd[2][2] = {{AXL_CHECKPOINT_LOCK, AXL_CHECKPOINT_CHECKPOINT},
						    {AXL_CHECKPOINT_RESTORE, AXL_CHECKPOINT_UNLOCK}};
	static const axl_checkpoint_op back[2][2] = {{AXL_CHECKPOINT_UNLOCK, AXL_CHECKPOINT_RESTORE},
						     {AXL_CHECKPOINT_CHECKPOINT, AXL_CHECKPOINT_LOCK}};
	const int k = resume ? 1 : 0;
	size_t i = 0;
	int step = 0, rc = 0;
	for (; i < c->processCount && rc == 0; i++)
		for (step = 0; step < 2 && rc == 0; step++)
			rc = axl_process_checkpoint(st->inv, dev_id, (int)c->processIds[i], fwd[k][step], NULL);
	if (rc != 0) {
		/* undo, newest first, so that a failed call leaves the processes as they were */
		char why[512];
		snprintf(why, sizeof why, "%s of pid %d", what, (int)c->processIds[i - 1]);
		r = ck_result(rc, why);
		i--;
		step--; /* the step that failed: undo those before it */
		for (;;) {
			while (step-- > 0)
				(void)axl_process_checkpoint(st->inv, dev_id, (int)c->processIds[i], back[k][step],
							     NULL);
			if (i == 0)
				break;
			i--;
			step = 2;
		}
		tf_unlock();
		return r;
	}
	tf_unlock();
	tf_log("INFO", "%s of %zu process(es) done", what, c->processCount);
	return ACCEL_SUCCESS;
}

TF_API AccelResult AccelSnapshot(SnapshotContext *ctx)
{
	return snapshot_do(ctx, false);
}

TF_API AccelResult AccelResume(SnapshotContext *ctx)
{
	return snapshot_do(ctx, true);
}

/* ---- partitions ---------------------------------------------------------------------- */
/* What this process created: (parent, template as the host named it, partition id). */
#define TF_OWN_MAX 256
static struct {
	char parent[UUID_STRING_LENGTH];
	char templ[64];
	char id[UUID_STRING_LENGTH];
} tf_own[TF_OWN_MAX];
static size_t tf_nown; /* guarded by the state's mutex */

static void own_add(const char *parent, const char *templ, const char *id)
{
	size_t i = tf_nown < TF_OWN_MAX ? tf_nown++ : 0; /* full: overwrite the oldest slot */
	tf_copy(tf_own[i].parent, sizeof tf_own[i].parent, parent);
	tf_copy(tf_own[i].templ, sizeof tf_own[i].templ, templ);
	tf_copy(tf_own[i].id, sizeof tf_own[i].id, id);
}

static void own_drop(const char *id)
{
	for (size_t i = 0; i < tf_nown; i++)
		if (strcasecmp(tf_own[i].id, id) == 0) {
			tf_own[i] = tf_own[--tf_nown];
			return;
		}
}

static int valid_id(const char *id)
{
	return id && *id && strlen(id) < UUID_STRING_LENGTH && !strpbrk(id, ":,");
}

TF_API AccelResult AccelAssignPartition(const char *templateId, const char *deviceUUID, PartitionResult *out)
{
	if (!templateId || !*templateId || !deviceUUID || !*deviceUUID || !out)
		return ACCEL_ERROR_INVALID_PARAM;
	struct tf_state *st;
	AccelResult r = tf_lock(&st);
	if (r != ACCEL_SUCCESS)
		return r;
	long slot;
	const axl_device *d = tf_find(st, deviceUUID, &slot);
	if (!d || slot < 0) {
		tf_unlock();
		tf_log("WARN", "assign partition: no device %.64s", deviceUUID);
		return ACCEL_ERROR_NOT_FOUND;
	}
	char parent[UUID_STRING_LENGTH];
	tf_uuid(d, parent, sizeof parent);
	struct axl_partition *p = NULL;
	int rc = axl_partition_create(st->ctx, st->inv, axl_device_id(d), templateId, 0, &p);
	if (rc) {
		r = tf_result(rc, "assign partition");
		tf_unlock();
		return r;
	}
	if (!valid_id(p->id)) {
		tf_log("ERROR", "assign partition: the new partition's id \"%.64s\" cannot be handed to the host",
		       p->id ? p->id : "");
		axl_partition_destroy(st->ctx, st->inv, NULL, p->id, 0, NULL);
		axl_free(p);
		tf_refresh(st);
		tf_unlock();
		return ACCEL_ERROR_INTERNAL;
	}
	memset(out, 0, sizeof *out);
	out->type = PARTITION_TYPE_ENVIRONMENT_VARIABLE;
	tf_copy(out->deviceUUID, sizeof out->deviceUUID, p->id);
	size_t ne = 0, nn = 0;
	for (size_t i = 0; p->env && p->env[i]; i++) {
		if (ne >= MAX_PARTITION_ENVS || strlen(p->env[i]) >= MAX_ENV_VALUE_LENGTH) {
			tf_log("WARN", "assign partition: environment entry left out: %.80s", p->env[i]);
			continue;
		}
		tf_copy(out->envVars[ne++], MAX_ENV_VALUE_LENGTH, p->env[i]);
	}
	for (size_t i = 0; p->device_nodes && p->device_nodes[i]; i++) {
		const char *n = p->device_nodes[i];
		if (nn >= MAX_PARTITION_DEVICE_NODES || strlen(n) >= MAX_MOUNT_PATH) {
			tf_log("WARN", "assign partition: device node left out: %.80s", n);
			continue;
		}
		snprintf(out->deviceNodes[nn++], MAX_PARTITION_DEVICE_NODE_LENGTH, "%s=%s", n, n);
	}
	own_add(parent, templateId, p->id);
	tf_log("INFO", "partition %s (%s) created on %s", p->id, p->profile ? p->profile : templateId, parent);
	axl_free(p);
	tf_refresh(st);
	tf_unlock();
	return ACCEL_SUCCESS;
}

/* "<technology>-1g.10gb" (the device's partitioning technology, as TensorFusion's
 * templates name it) and "1g.10gb" name the same profile; "19" its id. */
static int profile_matches(const axl_device *d, const struct axl_partition *p, const char *templ)
{
	const struct axl_runtime *rt = axl_device_runtime(d);
	size_t tl = rt && rt->partitions ? strlen(rt->partitions) : 0;
	const char *t = tl && strncasecmp(templ, rt->partitions, tl) == 0 && templ[tl] == '-' ? templ + tl + 1 : templ;
	if (p->profile && strcasecmp(p->profile, t) == 0)
		return 1;
	char *end;
	errno = 0;
	long long id = strtoll(t, &end, 10);
	return *t && !*end && errno == 0 && p->profile_id >= 0 && p->profile_id == id;
}

TF_API AccelResult AccelRemovePartition(const char *partitionOrTemplate, const char *deviceUUID)
{
	if (!partitionOrTemplate || !*partitionOrTemplate || !deviceUUID || !*deviceUUID)
		return ACCEL_ERROR_INVALID_PARAM;
	struct tf_state *st;
	AccelResult r = tf_lock(&st);
	if (r != ACCEL_SUCCESS)
		return r;
	long slot;
	const axl_device *d = tf_find(st, deviceUUID, &slot);
	if (!d || slot < 0) {
		tf_unlock();
		tf_log("WARN", "remove partition: no device %.64s", deviceUUID);
		return ACCEL_ERROR_NOT_FOUND;
	}
	char parent[UUID_STRING_LENGTH];
	tf_uuid(d, parent, sizeof parent);
	const char *target = NULL;
	char chosen[UUID_STRING_LENGTH] = "";
	struct axl_partition *ps = NULL;
	size_t np = 0;
	int rc = axl_partition_list(st->ctx, st->inv, &ps, &np);
	if (rc && rc != AXL_ENOTSUP) {
		r = tf_result(rc, "remove partition: listing partitions");
		tf_unlock();
		return r;
	}
	/* 1. a partition id (or its device id) */
	for (size_t i = 0; i < np && !target; i++)
		if ((ps[i].id && strcasecmp(ps[i].id, partitionOrTemplate) == 0) ||
		    (ps[i].device && strcmp(ps[i].device, partitionOrTemplate) == 0))
			target = ps[i].id;
	/* 2. a template: one this process made from it on that parent, else any of it */
	for (size_t i = tf_nown; !target && i-- > 0;)
		if (strcasecmp(tf_own[i].parent, parent) == 0 && strcasecmp(tf_own[i].templ, partitionOrTemplate) == 0)
			for (size_t k = 0; k < np && !target; k++)
				if (ps[k].id && strcasecmp(ps[k].id, tf_own[i].id) == 0)
					target = ps[k].id;
	for (size_t i = 0; i < np && !target; i++) {
		int on_parent = (ps[i].parent && strcmp(ps[i].parent, axl_device_id(d)) == 0) ||
				(ps[i].parent_uuid && strcasecmp(ps[i].parent_uuid, parent) == 0);
		if (on_parent && ps[i].device && profile_matches(d, &ps[i], partitionOrTemplate))
			target = ps[i].id;
	}
	if (target)
		tf_copy(chosen, sizeof chosen, target);
	axl_free(ps);
	if (!*chosen) {
		if (rc == AXL_ENOTSUP) {
			r = tf_result(rc, "remove partition");
			tf_unlock();
			return r;
		}
		/* nothing of that name: already gone (a restart's recovery asks again) */
		own_drop(partitionOrTemplate);
		tf_unlock();
		tf_log("INFO", "remove partition: %.64s on %s is already gone", partitionOrTemplate, parent);
		return ACCEL_SUCCESS;
	}
	size_t removed = 0;
	rc = axl_partition_destroy(st->ctx, st->inv, axl_device_id(d), chosen, 0, &removed);
	r = tf_result(rc, "remove partition");
	if (r == ACCEL_SUCCESS) {
		own_drop(chosen);
		tf_log("INFO", "partition %s on %s %s", chosen, parent, removed ? "removed" : "was already gone");
	}
	tf_refresh(st);
	tf_unlock();
	return r;
}

/* ---- vendor libraries to mount ------------------------------------------------------- */
/* What to mount comes from the library (axl_device_runtime: each vendor's folder lists
 * its user-space libraries, programs and their directories), the same lists axl cdi
 * mounts from. */
static int add_mount(MountPath *out, size_t max, size_t *n, const char *path)
{
	if (strlen(path) >= MAX_MOUNT_PATH)
		return 0;
	for (size_t i = 0; i < *n; i++)
		if (strcmp(out[i].hostPath, path) == 0)
			return 0;
	if (*n >= max)
		return -1;
	memset(&out[*n], 0, sizeof out[*n]);
	tf_copy(out[*n].hostPath, MAX_MOUNT_PATH, path);
	tf_copy(out[*n].guestPath, MAX_MOUNT_PATH, path);
	(*n)++;
	return 0;
}

/* Directories looked at already (by device and inode: /lib64 and /usr/lib64 are often
 * one directory, whose files would otherwise be mounted twice under two names). */
struct seen {
	dev_t dev[64];
	ino_t ino[64];
	size_t n;
};

static int scan_dir(struct seen *seen, const char *dir, const char *const *patterns, int want_exec, MountPath *out,
		    size_t max, size_t *n)
{
	struct stat st;
	if (!patterns[0] || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	for (size_t k = 0; k < seen->n; k++)
		if (seen->dev[k] == st.st_dev && seen->ino[k] == st.st_ino)
			return 0;
	if (seen->n < sizeof seen->dev / sizeof *seen->dev) {
		seen->dev[seen->n] = st.st_dev;
		seen->ino[seen->n++] = st.st_ino;
	}
	DIR *dp = opendir(dir);
	if (!dp)
		return 0;
	int full = 0;
	struct dirent *e;
	char path[MAX_MOUNT_PATH + 64];
	while (!full && (e = readdir(dp)) != NULL) {
		for (size_t k = 0; patterns[k] && !full; k++) {
			if (fnmatch(patterns[k], e->d_name, 0) != 0)
				continue;
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			struct stat sb;
			if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && (!want_exec || (sb.st_mode & 0111)))
				full = add_mount(out, max, n, path) < 0;
		}
	}
	closedir(dp);
	return full;
}

TF_API AccelResult AccelGetVendorMountLibs(MountPath *out, size_t maxCount, size_t *count)
{
	if (!out || !count || maxCount == 0)
		return ACCEL_ERROR_INVALID_PARAM;
	struct tf_state *st;
	AccelResult r = tf_lock(&st);
	if (r != ACCEL_SUCCESS)
		return r;
	size_t n = 0;
	/* a simulated or re-rooted node has no vendor libraries of its own to hand out */
	int live = !axl_context_is_simulated(st->ctx) && !axl_context_is_rerooted(st->ctx);
	int full = 0;
	/* each runtime present once, in the order of the devices */
	for (size_t i = 0; live && !full && i < st->ndev; i++) {
		const struct axl_runtime *rt = axl_device_runtime(st->dev[i]);
		int dup = !rt;
		for (size_t j = 0; j < i && !dup; j++)
			dup = axl_device_runtime(st->dev[j]) == rt;
		if (dup)
			continue;
		struct seen lib_seen = {.n = 0}, bin_seen = {.n = 0};
		for (size_t k = 0; !full && rt->library_dirs[k]; k++)
			full = scan_dir(&lib_seen, rt->library_dirs[k], rt->libraries, 0, out, maxCount, &n);
		for (size_t k = 0; !full && rt->binary_dirs[k]; k++)
			full = scan_dir(&bin_seen, rt->binary_dirs[k], rt->binaries, 1, out, maxCount, &n);
	}
	tf_unlock();
	if (full)
		tf_log("WARN", "vendor mounts: more than %zu; the list is cut", maxCount);
	*count = n;
	return ACCEL_SUCCESS;
}
