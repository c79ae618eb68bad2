/* SPDX-License-Identifier: MIT */
/*
 * libaccelerator_axl.so: TensorFusion's limiter functions (include/axl/compat/limiter.h)
 * on axl's shared limiter region (src/limiter/region.h), and whether the in-process
 * limiter is installed (docs/tensorfusion.md, "The limiter functions").
 *
 * Host side: LimiterInit names a base directory; LimiterCreateWorker makes one region per
 * pod, {base}/{namespace}/{pod}/axl-limiter.region, holding the pod's per-device limits;
 * the pod's processes attach to it (AXL_LIMITER_REGION names it inside the container).
 * Worker side: the calling process's own region (axl__region_default_path: the file
 * AXL_LIMITER_REGION names, else the state directory's), its own slot.
 */
#define _GNU_SOURCE
#include "tf.h"

#include <axl/compat/limiter.h>

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "region.h"

#define TOKENS_PER_S 1000000.0 /* a compute token is one device-microsecond */
#define BURST_S 0.5

static pthread_mutex_t lim_mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- is the in-process limiter installed? ------------------------------------------ */
static int readable(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

int tf_limiter_installed(void)
{
	const char *env = getenv("AXL_LIMITER_LIBRARY");
	if (env)
		return *env && readable(env);
	Dl_info info;
	if (!dladdr((void *)&tf_limiter_installed, &info) || !info.dli_fname)
		return 0;
	char dir[PATH_MAX];
	tf_copy(dir, sizeof dir, info.dli_fname);
	/* the provider's directory, its parent and the one above (lib/axl/tensorfusion/..) */
	for (int up = 0; up < 3; up++) {
		char *slash = strrchr(dir, '/');
		if (!slash)
			return 0;
		*slash = '\0';
		char p[PATH_MAX + 32];
		snprintf(p, sizeof p, "%s/libaxl_limiter.so", *dir ? dir : "");
		if (readable(p))
			return 1;
	}
	return 0;
}

/* ---- the calling process's own region --------------------------------------------- */
static axl__region *self_r;
static int64_t self_last_ns[AXL__REGION_MAX_DEVICES];

/* The region, opened on first use; NULL with *res set when it cannot be. */
static axl__region *self_region(AccelResult *res)
{
	if (self_r)
		return self_r;
	char path[4096];
	int rc = axl__region_default_path(path, sizeof path);
	if (rc == 0)
		rc = axl__region_open(&self_r, path, NULL, 0);
	if (rc) {
		self_r = NULL;
		*res = rc == AXL_ENOENT ? ACCEL_ERROR_NOT_FOUND : ACCEL_ERROR_OPERATION_FAILED;
		tf_log(rc == AXL_ENOENT ? "WARN" : "ERROR", "limiter: no usable region (%s): %s", path,
		       axl_error_last());
	}
	return self_r;
}

/* Write a device's limits into this process's region, creating it with the devices the
 * host sees when there is none (AccelSetMemHardLimit, AccelSetComputeUnitHardLimit).
 * mem < 0 / pct < 0: keep that limit. */
AccelResult tf_limiter_bind(const char *const *uuids, size_t n, const char *uuid, int64_t mem, int pct)
{
	pthread_mutex_lock(&lim_mu);
	AccelResult res = ACCEL_SUCCESS;
	if (!self_r) {
		struct axl__region_limit lim[AXL__REGION_MAX_DEVICES];
		size_t k = 0;
		for (size_t i = 0; i < n && k < AXL__REGION_MAX_DEVICES; i++) {
			memset(&lim[k], 0, sizeof lim[k]);
			tf_copy(lim[k].uuid, sizeof lim[k].uuid, uuids[i]);
			lim[k].memory_bytes = -1;
			lim[k].compute_percent = -1;
			k++;
		}
		char path[4096];
		int rc = axl__region_default_path(path, sizeof path);
		if (rc == 0 && k > 0)
			rc = axl__region_open(&self_r, path, lim, (int)k);
		if (rc || k == 0) {
			self_r = NULL;
			tf_log("ERROR", "limiter: cannot bind the limit of %.64s to a region: %s", uuid,
			       k ? axl_error_last() : "no device");
			pthread_mutex_unlock(&lim_mu);
			return ACCEL_ERROR_OPERATION_FAILED;
		}
	}
	int dev = axl__region_find(self_r, uuid);
	struct axl__region_limit cur;
	if (dev < 0 || axl__region_limit_get(self_r, dev, &cur) != 0) {
		tf_log("ERROR", "limiter: the region has no device %.64s; the limit is recorded, not bound", uuid);
		res = ACCEL_ERROR_OPERATION_FAILED;
	} else if (axl__region_limit_set(self_r, dev, mem >= 0 ? mem : cur.memory_bytes,
					 pct >= 0 ? pct : cur.compute_percent) != 0) {
		tf_log("ERROR", "limiter: %s", axl_error_last());
		res = ACCEL_ERROR_OPERATION_FAILED;
	}
	pthread_mutex_unlock(&lim_mu);
	return res;
}

/* The caller's own pid as the decimal processId; INVALID_PARAM or NOT_FOUND otherwise. */
static AccelResult check_pid(const char *processId)
{
	if (!processId || !*processId)
		return ACCEL_ERROR_INVALID_PARAM;
	char *end;
	errno = 0;
	long v = strtol(processId, &end, 10);
	if (*end || errno || v <= 0 || v > INT_MAX)
		return ACCEL_ERROR_INVALID_PARAM;
	if (v != (long)getpid()) {
		tf_log("WARN", "limiter: process %s is not the caller (%d): each process records its own usage",
		       processId, (int)getpid());
		return ACCEL_ERROR_NOT_FOUND;
	}
	return ACCEL_SUCCESS;
}

/* Lock, open, find the device: 0 with lim_mu held, else an AccelResult (released). */
static AccelResult worker_dev(const char *processId, const char *uuid, axl__region **r, int *dev)
{
	AccelResult res = processId ? check_pid(processId) : ACCEL_SUCCESS;
	if (res != ACCEL_SUCCESS)
		return res;
	if (!uuid || !*uuid)
		return ACCEL_ERROR_INVALID_PARAM;
	pthread_mutex_lock(&lim_mu);
	*r = self_region(&res);
	if (!*r) {
		pthread_mutex_unlock(&lim_mu);
		return res;
	}
	*dev = -1;
	for (int d = 0; d < axl__region_device_count(*r); d++) {
		struct axl__region_limit l;
		if (axl__region_limit_get(*r, d, &l) == 0 && strcasecmp(l.uuid, uuid) == 0)
			*dev = d;
	}
	if (*dev < 0) {
		pthread_mutex_unlock(&lim_mu);
		tf_log("WARN", "limiter: no device %.64s in the region", uuid);
		return ACCEL_ERROR_NOT_FOUND;
	}
	return ACCEL_SUCCESS;
}

TF_API AccelResult CheckAndRecordMemoryOps(const char *processId, const char *deviceUUID, int64_t bytesDiff,
					   MemoryOpRecord *record)
{
	if (!record || !processId || !deviceUUID || !*deviceUUID || bytesDiff == INT64_MIN)
		return ACCEL_ERROR_INVALID_PARAM;
	memset(record, 0, sizeof *record);
	tf_copy(record->deviceUUID, sizeof record->deviceUUID, deviceUUID);
	record->bytesDiff = bytesDiff;
	record->shouldBlock = true; /* fail closed until admitted */
	axl__region *r;
	int dev;
	AccelResult res = worker_dev(processId, deviceUUID, &r, &dev);
	if (res != ACCEL_SUCCESS)
		return res;
	struct axl__region_limit l;
	axl__region_limit_get(r, dev, &l);
	uint64_t remaining = 0;
	if (bytesDiff > 0 && axl__region_frozen(r)) {
		tf_log("INFO", "limiter: %.64s: %lld bytes held back: the worker is frozen", deviceUUID,
		       (long long)bytesDiff);
		res = ACCEL_ERROR_RESOURCE_EXHAUSTED;
	} else if (bytesDiff > 0) {
		int rc = axl__region_reserve(r, dev, (uint64_t)bytesDiff, &remaining);
		if (rc == AXL_ENOMEM) {
			tf_log("WARN", "limiter: %.64s: %lld bytes refused, %llu of the %lld-byte limit left",
			       deviceUUID, (long long)bytesDiff, (unsigned long long)remaining,
			       (long long)l.memory_bytes);
			res = ACCEL_ERROR_RESOURCE_EXHAUSTED;
		} else if (rc) {
			res = ACCEL_ERROR_OPERATION_FAILED;
		}
	} else if (bytesDiff < 0) {
		if (axl__region_release(r, dev, (uint64_t)-bytesDiff) != 0) {
			tf_log("WARN", "limiter: %.64s: freeing %lld bytes, more than this process holds", deviceUUID,
			       (long long)-bytesDiff);
			res = ACCEL_ERROR_INVALID_PARAM;
		}
	}
	uint64_t total = 0;
	axl__region_usage(r, dev, &total, NULL);
	if (l.memory_bytes < 0)
		record->availableBytes = UINT64_MAX;
	else
		record->availableBytes = (uint64_t)l.memory_bytes > total ? (uint64_t)l.memory_bytes - total : 0;
	record->shouldBlock = res != ACCEL_SUCCESS && bytesDiff > 0;
	pthread_mutex_unlock(&lim_mu);
	return res;
}

TF_API AccelResult CheckAndRecordComputeOps(const char *processId, const char *deviceUUID, uint64_t computeTokens,
					    ComputeOpRecord *record)
{
	if (!record || !processId || !deviceUUID || !*deviceUUID)
		return ACCEL_ERROR_INVALID_PARAM;
	memset(record, 0, sizeof *record);
	tf_copy(record->deviceUUID, sizeof record->deviceUUID, deviceUUID);
	record->computeTokens = computeTokens;
	record->shouldBlock = true;
	axl__region *r;
	int dev;
	AccelResult res = worker_dev(processId, deviceUUID, &r, &dev);
	if (res != ACCEL_SUCCESS)
		return res;
	struct axl__region_limit l;
	axl__region_limit_get(r, dev, &l);
	if (axl__region_frozen(r)) {
		res = ACCEL_ERROR_RESOURCE_EXHAUSTED;
	} else if (l.compute_percent < 0) {
		record->availableTokens = UINT64_MAX;
	} else {
		/* a bucket of device-microseconds: refilled at the limit's share of real time,
		 * holding at most BURST_S of it */
		double rate = TOKENS_PER_S * l.compute_percent / 100.0;
		int64_t cap = (int64_t)(rate * BURST_S), add;
		int64_t now = tf_now_ns();
		if (self_last_ns[dev] == 0)
			add = cap;
		else
			add = (int64_t)(rate * (double)(now - self_last_ns[dev]) / 1e9);
		if (add > 0 || self_last_ns[dev] == 0)
			self_last_ns[dev] = now;
		int64_t left = 0;
		int rc = axl__region_tokens(r, dev, add > 0 ? add : 0, cap, computeTokens, &left);
		record->availableTokens = left > 0 ? (uint64_t)left : 0;
		if (rc == AXL_ENOMEM)
			res = ACCEL_ERROR_RESOURCE_EXHAUSTED;
		else if (rc)
			res = ACCEL_ERROR_OPERATION_FAILED;
	}
	record->shouldBlock = res != ACCEL_SUCCESS;
	pthread_mutex_unlock(&lim_mu);
	return res;
}

TF_API AccelResult AddWorkerProcess(const char *deviceUUID, const char *processId)
{
	if (!processId || !deviceUUID)
		return ACCEL_ERROR_INVALID_PARAM;
	axl__region *r;
	int dev;
	AccelResult res = worker_dev(processId, deviceUUID, &r, &dev);
	if (res == ACCEL_SUCCESS)
		pthread_mutex_unlock(&lim_mu); /* attached: the process holds its slot */
	return res;
}

/* ---- the host's workers (pods) --------------------------------------------------- */
#define MAX_WORKERS 256
static struct worker {
	char ns[64], pod[64];
	axl__region *r;
	uint32_t idx[AXL__REGION_MAX_DEVICES]; /* deviceIdx of each region device */
	uint64_t observed[AXL__REGION_MAX_DEVICES];
	uint32_t pids[64];
	size_t npids;
	uint64_t frozen_ms;
} workers[MAX_WORKERS];
static char base[2048];

static int name_ok(const char *s)
{
	return s && *s && strlen(s) < 64 && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

static struct worker *worker_find(const char *ns, const char *pod)
{
	for (size_t i = 0; i < MAX_WORKERS; i++)
		if (workers[i].r && strcmp(workers[i].ns, ns) == 0 && strcmp(workers[i].pod, pod) == 0)
			return &workers[i];
	return NULL;
}

/* "namespace/pod" of a worker of this host, or "self" / the caller's pid. */
static AccelResult freeze_target(const char *workerId, axl__region **r, struct worker **w)
{
	*w = NULL;
	if (!workerId || !*workerId)
		return ACCEL_ERROR_INVALID_PARAM;
	const char *slash = strchr(workerId, '/');
	if (slash) {
		char ns[64];
		size_t n = (size_t)(slash - workerId);
		if (n >= sizeof ns)
			return ACCEL_ERROR_NOT_FOUND;
		memcpy(ns, workerId, n);
		ns[n] = '\0';
		*w = worker_find(ns, slash + 1);
		if (!*w)
			return ACCEL_ERROR_NOT_FOUND;
		*r = (*w)->r;
		return ACCEL_SUCCESS;
	}
	if (strcmp(workerId, "self") != 0 && check_pid(workerId) != ACCEL_SUCCESS)
		return ACCEL_ERROR_NOT_FOUND;
	AccelResult res = ACCEL_SUCCESS;
	*r = self_region(&res);
	return *r ? ACCEL_SUCCESS : res;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static AccelResult set_frozen(const char *workerId, WorkerFreezeState *state, int frozen)
{
	if (!workerId || !*workerId || !state)
		return ACCEL_ERROR_INVALID_PARAM;
	pthread_mutex_lock(&lim_mu);
	axl__region *r;
	struct worker *w;
	AccelResult res = freeze_target(workerId, &r, &w);
	if (res == ACCEL_SUCCESS) {
		axl__region_set_frozen(r, frozen);
		memset(state, 0, sizeof *state);
		tf_copy(state->workerId, sizeof state->workerId, workerId);
		state->isFrozen = frozen;
		if (w)
			w->frozen_ms = frozen ? now_ms() : 0;
		state->freezeTimeMs = w ? w->frozen_ms : (frozen ? now_ms() : 0);
		tf_log("INFO", "limiter: worker %.64s %s", workerId, frozen ? "frozen" : "resumed");
	}
	pthread_mutex_unlock(&lim_mu);
	return res;
}

TF_API AccelResult FreezeWorker(const char *workerId, WorkerFreezeState *state)
{
	return set_frozen(workerId, state, 1);
}

TF_API AccelResult ResumeWorker(const char *workerId, WorkerFreezeState *state)
{
	return set_frozen(workerId, state, 0);
}

static AccelResult auto_frozen(const char *workerId, const char *uuid, const char *type, int frozen)
{
	if (!workerId || !uuid || !*uuid || !type || (strcmp(type, "memory") && strcmp(type, "compute")))
		return ACCEL_ERROR_INVALID_PARAM;
	pthread_mutex_lock(&lim_mu);
	axl__region *r;
	struct worker *w;
	AccelResult res = freeze_target(workerId, &r, &w);
	if (res == ACCEL_SUCCESS) {
		int found = 0;
		for (int d = 0; d < axl__region_device_count(r); d++) {
			struct axl__region_limit l;
			found |= axl__region_limit_get(r, d, &l) == 0 && strcasecmp(l.uuid, uuid) == 0;
		}
		if (!found) {
			res = ACCEL_ERROR_NOT_FOUND;
		} else {
			axl__region_set_frozen(r, frozen);
			if (w)
				w->frozen_ms = frozen ? now_ms() : 0;
			tf_log("INFO", "limiter: worker %.64s %s (%s limit of %.64s)", workerId,
			       frozen ? "frozen" : "resumed", type, uuid);
		}
	}
	pthread_mutex_unlock(&lim_mu);
	return res;
}

TF_API AccelResult AutoFreeze(const char *workerId, const char *deviceUUID, const char *resourceType)
{
	return auto_frozen(workerId, deviceUUID, resourceType, 1);
}

TF_API AccelResult AutoResume(const char *workerId, const char *deviceUUID, const char *resourceType)
{
	return auto_frozen(workerId, deviceUUID, resourceType, 0);
}

TF_API AccelResult LimiterInit(const char *shmBasePath)
{
	if (!shmBasePath || !*shmBasePath || strlen(shmBasePath) >= sizeof base - 256)
		return ACCEL_ERROR_INVALID_PARAM;
	pthread_mutex_lock(&lim_mu);
	tf_copy(base, sizeof base, shmBasePath);
	pthread_mutex_unlock(&lim_mu);
	if (mkdir(shmBasePath, 0755) != 0 && errno != EEXIST) {
		tf_log("ERROR", "limiter: %s: %s", shmBasePath, strerror(errno));
		return ACCEL_ERROR_OPERATION_FAILED;
	}
	return ACCEL_SUCCESS;
}

TF_API AccelResult LimiterShutdown(void)
{
	pthread_mutex_lock(&lim_mu);
	for (size_t i = 0; i < MAX_WORKERS; i++)
		if (workers[i].r) {
			axl__region_close(workers[i].r); /* the pods' regions stay */
			memset(&workers[i], 0, sizeof workers[i]);
		}
	base[0] = '\0';
	pthread_mutex_unlock(&lim_mu);
	return ACCEL_SUCCESS;
}

static void region_path(char *buf, size_t cap, const char *ns, const char *pod, int level)
{
	if (level == 0)
		snprintf(buf, cap, "%s/%s", base, ns);
	else if (level == 1)
		snprintf(buf, cap, "%s/%s/%s", base, ns, pod);
	else
		snprintf(buf, cap, "%s/%s/%s/axl-limiter.region", base, ns, pod);
}

TF_API AccelResult LimiterCreateWorker(const char *namespace_, const char *podName, const LimiterDeviceConfig *configs,
				       size_t configCount)
{
	if (!name_ok(namespace_) || !name_ok(podName) || !configs || configCount == 0 ||
	    configCount > AXL__REGION_MAX_DEVICES)
		return ACCEL_ERROR_INVALID_PARAM;
	struct axl__region_limit lim[AXL__REGION_MAX_DEVICES];
	for (size_t i = 0; i < configCount; i++) {
		const LimiterDeviceConfig *c = &configs[i];
		if (!memchr(c->deviceUUID, '\0', sizeof c->deviceUUID) || !c->deviceUUID[0] || c->upLimit > 100 ||
		    c->memLimit > (uint64_t)INT64_MAX)
			return ACCEL_ERROR_INVALID_PARAM;
		memset(&lim[i], 0, sizeof lim[i]);
		tf_copy(lim[i].uuid, sizeof lim[i].uuid, c->deviceUUID);
		lim[i].memory_bytes = c->memLimit ? (int64_t)c->memLimit : -1;
		lim[i].compute_percent = c->upLimit ? (int)c->upLimit : -1;
	}
	pthread_mutex_lock(&lim_mu);
	AccelResult res = ACCEL_SUCCESS;
	if (!*base) {
		tf_log("ERROR", "limiter: LimiterCreateWorker before LimiterInit");
		pthread_mutex_unlock(&lim_mu);
		return ACCEL_ERROR_OPERATION_FAILED;
	}
	struct worker *w = worker_find(namespace_, podName);
	if (!w) {
		for (size_t i = 0; i < MAX_WORKERS && !w; i++)
			if (!workers[i].r)
				w = &workers[i];
		if (!w) {
			pthread_mutex_unlock(&lim_mu);
			return ACCEL_ERROR_RESOURCE_EXHAUSTED;
		}
		char p[4096];
		region_path(p, sizeof p, namespace_, podName, 0);
		mkdir(p, 0755);
		region_path(p, sizeof p, namespace_, podName, 1);
		mkdir(p, 0755);
		region_path(p, sizeof p, namespace_, podName, 2);
		/* an existing region (a host restart) is re-opened, its live state kept */
		int rc = axl__region_open(&w->r, p, lim, (int)configCount);
		if (rc) {
			w->r = NULL;
			tf_log("ERROR", "limiter: worker %s/%s: %s", namespace_, podName, axl_error_last());
			pthread_mutex_unlock(&lim_mu);
			return ACCEL_ERROR_OPERATION_FAILED;
		}
		tf_copy(w->ns, sizeof w->ns, namespace_);
		tf_copy(w->pod, sizeof w->pod, podName);
	}
	for (size_t i = 0; i < configCount; i++) {
		int dev = -1;
		for (int d = 0; d < axl__region_device_count(w->r); d++) {
			struct axl__region_limit l;
			if (axl__region_limit_get(w->r, d, &l) == 0 && strcasecmp(l.uuid, lim[i].uuid) == 0)
				dev = d;
		}
		if (dev < 0 || axl__region_limit_set(w->r, dev, lim[i].memory_bytes, lim[i].compute_percent) != 0) {
			tf_log("ERROR", "limiter: worker %s/%s: device %.64s not in its region", namespace_, podName,
			       lim[i].uuid);
			res = ACCEL_ERROR_OPERATION_FAILED;
			continue;
		}
		w->idx[dev] = configs[i].deviceIdx;
	}
	pthread_mutex_unlock(&lim_mu);
	return res;
}

TF_API AccelResult LimiterRemoveWorker(const char *namespace_, const char *podName)
{
	if (!name_ok(namespace_) || !name_ok(podName))
		return ACCEL_ERROR_INVALID_PARAM;
	pthread_mutex_lock(&lim_mu);
	struct worker *w = worker_find(namespace_, podName);
	if (!w) {
		pthread_mutex_unlock(&lim_mu);
		return ACCEL_ERROR_NOT_FOUND;
	}
	axl__region_close(w->r);
	memset(w, 0, sizeof *w);
	char p[4096];
	region_path(p, sizeof p, namespace_, podName, 2);
	unlink(p);
	region_path(p, sizeof p, namespace_, podName, 1);
	rmdir(p);
	pthread_mutex_unlock(&lim_mu);
	return ACCEL_SUCCESS;
}

/* The worker and the region index of deviceIdx: 0 with lim_mu held. */
static AccelResult host_dev(const char *ns, const char *pod, uint32_t deviceIdx, struct worker **w, int *dev)
{
	if (!name_ok(ns) || !name_ok(pod))
		return ACCEL_ERROR_INVALID_PARAM;
	pthread_mutex_lock(&lim_mu);
	*w = worker_find(ns, pod);
	*dev = -1;
	for (int d = 0; *w && d < axl__region_device_count((*w)->r); d++)
		if ((*w)->idx[d] == deviceIdx)
			*dev = d;
	if (!*w || (deviceIdx != UINT32_MAX && *dev < 0)) {
		pthread_mutex_unlock(&lim_mu);
		return ACCEL_ERROR_NOT_FOUND;
	}
	return ACCEL_SUCCESS;
}

TF_API AccelResult LimiterRegisterPID(const char *namespace_, const char *podName, uint32_t hostPID)
{
	if (hostPID == 0 || hostPID > INT_MAX)
		return ACCEL_ERROR_INVALID_PARAM;
	struct worker *w;
	int dev;
	AccelResult res = host_dev(namespace_, podName, UINT32_MAX, &w, &dev);
	if (res != ACCEL_SUCCESS)
		return res;
	if (axl__region_start_time((int)hostPID) == 0 && access("/proc/self/stat", R_OK) == 0) {
		res = ACCEL_ERROR_NOT_FOUND;
	} else {
		int dup = 0;
		for (size_t i = 0; i < w->npids; i++)
			dup |= w->pids[i] == hostPID;
		if (!dup && w->npids < sizeof w->pids / sizeof *w->pids)
			w->pids[w->npids++] = hostPID;
	}
	pthread_mutex_unlock(&lim_mu);
	return res;
}

TF_API AccelResult LimiterUpdateERL(const char *namespace_, const char *podName, uint32_t deviceIdx, uint32_t upLimit,
				    double utilizationPercent, uint64_t timestampMicros)
{
	(void)timestampMicros;
	if (upLimit > 100 || !isfinite(utilizationPercent) || utilizationPercent < 0)
		return ACCEL_ERROR_INVALID_PARAM;
	struct worker *w;
	int dev;
	AccelResult res = host_dev(namespace_, podName, deviceIdx, &w, &dev);
	if (res != ACCEL_SUCCESS)
		return res;
	struct axl__region_limit l;
	if (axl__region_limit_get(w->r, dev, &l) != 0 ||
	    axl__region_limit_set(w->r, dev, l.memory_bytes, upLimit ? (int)upLimit : -1) != 0)
		res = ACCEL_ERROR_OPERATION_FAILED;
	pthread_mutex_unlock(&lim_mu);
	return res;
}

TF_API AccelResult LimiterUpdateHeartbeat(const char *namespace_, const char *podName, uint64_t timestampSecs)
{
	struct worker *w;
	int dev;
	AccelResult res = host_dev(namespace_, podName, UINT32_MAX, &w, &dev);
	if (res != ACCEL_SUCCESS)
		return res;
	axl__region_set_heartbeat(w->r, timestampSecs);
	pthread_mutex_unlock(&lim_mu);
	return res;
}

TF_API AccelResult LimiterSetPodMemoryUsed(const char *namespace_, const char *podName, uint32_t deviceIdx,
					   uint64_t memoryUsed)
{
	struct worker *w;
	int dev;
	AccelResult res = host_dev(namespace_, podName, deviceIdx, &w, &dev);
	if (res != ACCEL_SUCCESS)
		return res;
	w->observed[dev] = memoryUsed;
	struct axl__region_limit l;
	if (axl__region_limit_get(w->r, dev, &l) == 0 && l.memory_bytes >= 0 && memoryUsed > (uint64_t)l.memory_bytes)
		tf_log("WARN", "limiter: worker %s/%s uses %llu bytes of device %u, over its %lld-byte limit",
		       namespace_, podName, (unsigned long long)memoryUsed, deviceIdx, (long long)l.memory_bytes);
	pthread_mutex_unlock(&lim_mu);
	return res;
}
