/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA MIG control through NVML (docs/partition-backends.md): create a GPU instance and
 * its default compute instance, destroy them again. Every NVML call runs in a worker
 * under the vendor deadline (vjob.h), at least AXL__MIG_MIN_TIMEOUT_MS because the
 * driver takes seconds to carve an instance. Operations of this process are serialized
 * (one mutex inside the worker), so two threads creating at once each find their own
 * new MIG device. The worker never touches the context or the inventory.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend.h"
#include "nvml_mig.h"
#include "nvml_call.h"
#include "vjob.h"

#define SRC "nvml"
#define MIG_MINORS "/proc/driver/nvidia-caps/mig-minors"
#define MIG_MINORS_MAX (1u << 20)

enum { OP_CREATE, OP_DESTROY };

struct mig_job {
	const struct axl__nvml_fns *fn;
	int op;
	char gpu_uuid[96], gpu_bus[32], gpu_name[64];
	int64_t profile_id;
	char id[96]; /* destroy: the MIG device UUID */
	/* outputs */
	int rc;
	char msg[320];
	struct axl__part_made made;
	unsigned gpu_minor;
	bool has_minor;
	size_t removed;
};

static pthread_mutex_t mig_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- mig-minors ------------------------------------------------------------------------- */

size_t axl__mig_minor_nodes(const char *text, size_t len, unsigned gpu_minor, int gi, int ci,
			    struct axl__part_made *out)
{
	size_t added = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[128];
		if (n < sizeof line) {
			memcpy(line, p, n);
			line[n] = '\0';
			unsigned g, i, c, cap;
			char tail[8];
			bool match = false;
			if (sscanf(line, "gpu%u/gi%u/ci%u/access %u%1s", &g, &i, &c, &cap, tail) == 4)
				match = ci >= 0 && g == gpu_minor && gi >= 0 && i == (unsigned)gi && c == (unsigned)ci;
			else if (sscanf(line, "gpu%u/gi%u/access %u%1s", &g, &i, &cap, tail) == 3)
				match = g == gpu_minor && gi >= 0 && i == (unsigned)gi;
			if (match && out->nnodes < AXL__PART_NODES_MAX) {
				snprintf(out->nodes[out->nnodes++], sizeof out->nodes[0],
					 "/dev/nvidia-caps/nvidia-cap%u", cap);
				added++;
			}
		}
		p += n + 1;
	}
	return added;
}

/* ---- the worker ------------------------------------------------------------------------- */

#define CALL(fnp, ...) ((fnp) ? (fnp)(__VA_ARGS__) : NVML_ERROR_FUNCTION_NOT_FOUND)

/* record an NVML failure as an axl error (the header's mapping) */
static int fail(struct mig_job *j, const char *call, nvmlReturn_t r)
{
	int code;
	switch (r) {
	case NVML_ERROR_NO_PERMISSION: code = AXL_EPERM; break;
	case NVML_ERROR_INSUFFICIENT_RESOURCES: code = AXL_ENOSPC; break;
	case NVML_ERROR_IN_USE: code = AXL_EBUSY; break;
	case NVML_ERROR_NOT_SUPPORTED:
	case NVML_ERROR_FUNCTION_NOT_FOUND: code = AXL_ENOTSUP; break;
	default: code = AXL_EBACKEND; break;
	}
	if (code == AXL_ENOSPC)
		snprintf(j->msg, sizeof j->msg, "no room for profile %lld on %s (%s: %s)", (long long)j->profile_id,
			 j->gpu_name, call, axl__nvml_strerror(r));
	else if (code == AXL_EBUSY)
		snprintf(j->msg, sizeof j->msg, "%s is in use by processes (%s: %s)", j->id[0] ? j->id : j->gpu_name,
			 call, axl__nvml_strerror(r));
	else
		snprintf(j->msg, sizeof j->msg, "%s on %s: %s (%d)", call, j->gpu_name, axl__nvml_strerror(r), r);
	j->rc = code;
	return code;
}

static int say(struct mig_job *j, int code, const char *msg)
{
	snprintf(j->msg, sizeof j->msg, "%s", msg);
	j->rc = code;
	return code;
}

static int find_gpu(struct mig_job *j, nvmlDevice_t *h)
{
	const struct axl__nvml_fns *f = j->fn;
	nvmlReturn_t r = NVML_ERROR_NOT_FOUND;
	if (j->gpu_uuid[0] && f->DeviceGetHandleByUUID)
		r = f->DeviceGetHandleByUUID(j->gpu_uuid, h);
	if (r != NVML_SUCCESS && j->gpu_bus[0] && f->DeviceGetHandleByPciBusId)
		r = f->DeviceGetHandleByPciBusId(j->gpu_bus, h);
	if (r == NVML_SUCCESS)
		return 0;
	if (r == NVML_ERROR_NOT_FOUND || r == NVML_ERROR_FUNCTION_NOT_FOUND) {
		snprintf(j->msg, sizeof j->msg, "NVML does not know %s", j->gpu_name);
		return j->rc = AXL_ENOENT;
	}
	return fail(j, "nvmlDeviceGetHandleByUUID", r);
}

/* the MIG device of (gi, ci), or by UUID when uuid is set; 0 found, 1 none, < 0 error */
static int find_mig(struct mig_job *j, nvmlDevice_t gpu, unsigned *gi, unsigned *ci, const char *uuid,
		    char *uuid_out, size_t cap)
{
	const struct axl__nvml_fns *f = j->fn;
	unsigned max = 0;
	nvmlReturn_t r = CALL(f->DeviceGetMaxMigDeviceCount, gpu, &max);
	if (r != NVML_SUCCESS)
		return fail(j, "nvmlDeviceGetMaxMigDeviceCount", r);
	if (max > 64)
		max = 64;
	for (unsigned k = 0; k < max; k++) {
		nvmlDevice_t m;
		char u[AXL_NVML_STR] = "";
		unsigned g, c;
		if (CALL(f->DeviceGetMigDeviceHandleByIndex, gpu, k, &m) != NVML_SUCCESS)
			continue; /* an empty slot: NOT_FOUND */
		if (CALL(f->DeviceGetGpuInstanceId, m, &g) != NVML_SUCCESS ||
		    CALL(f->DeviceGetComputeInstanceId, m, &c) != NVML_SUCCESS)
			continue;
		r = CALL(f->DeviceGetUUID, m, u, sizeof u);
		if (uuid ? (r == NVML_SUCCESS && strcmp(u, uuid) == 0) : (g == *gi && c == *ci)) {
			if (r != NVML_SUCCESS)
				return fail(j, "nvmlDeviceGetUUID", r);
			*gi = g;
			*ci = c;
			snprintf(uuid_out, cap, "%s", u);
			return 0;
		}
	}
	return 1;
}

/* the GPU-instance profile enum whose id is profile_id; fills name, slices, memory, SMs */
static int find_gi_profile(struct mig_job *j, nvmlDevice_t gpu, unsigned *slices)
{
	const struct axl__nvml_fns *f = j->fn;
	for (unsigned e = 0; e < AXL_NVML_GI_PROFILE_ENUMS; e++) {
		nvmlGpuInstanceProfileInfo_v2_t v2;
		memset(&v2, 0, sizeof v2);
		v2.version = nvmlGpuInstanceProfileInfo_v2;
		nvmlReturn_t r = CALL(f->DeviceGetGpuInstanceProfileInfoV, gpu, e, &v2);
		if (r != NVML_SUCCESS) {
			nvmlGpuInstanceProfileInfo_t v1;
			r = CALL(f->DeviceGetGpuInstanceProfileInfo, gpu, e, &v1);
			if (r != NVML_SUCCESS)
				continue;
			memset(&v2, 0, sizeof v2);
			v2.id = v1.id;
			v2.sliceCount = v1.sliceCount;
			v2.multiprocessorCount = v1.multiprocessorCount;
			v2.memorySizeMB = v1.memorySizeMB;
		}
		if ((int64_t)v2.id != j->profile_id)
			continue;
		v2.name[sizeof v2.name - 1] = '\0';
		const char *n = strncmp(v2.name, "MIG ", 4) == 0 ? v2.name + 4 : v2.name;
		snprintf(j->made.profile, sizeof j->made.profile, "%s", n);
		j->made.profile_id = v2.id;
		j->made.memory_bytes = v2.memorySizeMB < (1ull << 40) ? (int64_t)(v2.memorySizeMB << 20) : -1;
		j->made.compute_units = v2.multiprocessorCount;
		*slices = v2.sliceCount;
		return 0;
	}
	snprintf(j->msg, sizeof j->msg, "%s has no MIG profile %lld", j->gpu_name, (long long)j->profile_id);
	return j->rc = AXL_ENOENT;
}

static int do_create(struct mig_job *j, nvmlDevice_t gpu)
{
	const struct axl__nvml_fns *f = j->fn;
	unsigned cur = 0, pend = 0;
	nvmlReturn_t r = CALL(f->DeviceGetMigMode, gpu, &cur, &pend);
	if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND) {
		snprintf(j->msg, sizeof j->msg, "%s is not MIG-capable (nvmlDeviceGetMigMode: %s)", j->gpu_name,
			 axl__nvml_strerror(r));
		return j->rc = AXL_ENOTSUP;
	}
	if (r != NVML_SUCCESS)
		return fail(j, "nvmlDeviceGetMigMode", r);
	if (cur != NVML_DEVICE_MIG_ENABLE) {
		snprintf(j->msg, sizeof j->msg,
			 "MIG is disabled on %s: enable it with nvidia-smi -i %s -mig 1 (axl never changes it)",
			 j->gpu_name, j->gpu_bus[0] ? j->gpu_bus : j->gpu_uuid);
		return j->rc = AXL_ENOTSUP;
	}
	if (!f->DeviceCreateGpuInstance || !f->GpuInstanceGetInfo || !f->GpuInstanceCreateComputeInstance ||
	    !f->GpuInstanceGetComputeInstanceProfileInfo || !f->ComputeInstanceGetInfo || !f->GpuInstanceDestroy ||
	    !f->ComputeInstanceDestroy)
		return say(j, AXL_ENOTSUP, "this NVML lacks the MIG instance calls (a driver older than R450)");
	unsigned slices = 0;
	if (find_gi_profile(j, gpu, &slices))
		return j->rc;
	nvmlGpuInstance_t gi;
	r = f->DeviceCreateGpuInstance(gpu, (unsigned)j->profile_id, &gi);
	if (r != NVML_SUCCESS)
		return fail(j, "nvmlDeviceCreateGpuInstance", r);
	nvmlGpuInstanceInfo_t ginfo;
	memset(&ginfo, 0, sizeof ginfo);
	r = f->GpuInstanceGetInfo(gi, &ginfo);
	const char *call = "nvmlGpuInstanceGetInfo";
	nvmlComputeInstanceProfileInfo_t cp;
	bool have_cp = false;
	if (r == NVML_SUCCESS) {
		/* the default compute instance: all of the instance's slices, shared engines */
		for (unsigned e = 0; e < AXL_NVML_CI_PROFILE_ENUMS && !have_cp; e++) {
			memset(&cp, 0, sizeof cp);
			have_cp = f->GpuInstanceGetComputeInstanceProfileInfo(
					  gi, e, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED, &cp) == NVML_SUCCESS &&
				  cp.sliceCount == slices;
		}
		call = "nvmlGpuInstanceGetComputeInstanceProfileInfo";
		r = have_cp ? NVML_SUCCESS : NVML_ERROR_NOT_FOUND;
	}
	nvmlComputeInstance_t ci = NULL;
	if (r == NVML_SUCCESS) {
		call = "nvmlGpuInstanceCreateComputeInstance";
		r = f->GpuInstanceCreateComputeInstance(gi, cp.id, &ci);
	}
	nvmlComputeInstanceInfo_t cinfo;
	memset(&cinfo, 0, sizeof cinfo);
	if (r == NVML_SUCCESS) {
		call = "nvmlComputeInstanceGetInfo";
		r = f->ComputeInstanceGetInfo(ci, &cinfo);
	}
	unsigned gid = ginfo.id, cid = cinfo.id;
	int found = 1;
	if (r == NVML_SUCCESS) {
		found = find_mig(j, gpu, &gid, &cid, NULL, j->made.id, sizeof j->made.id);
		call = "nvmlDeviceGetMigDeviceHandleByIndex";
		if (found < 0)
			r = NVML_ERROR_UNKNOWN;
		else if (found > 0)
			r = NVML_ERROR_NOT_FOUND;
	}
	if (r != NVML_SUCCESS) {
		/* leave nothing half made */
		if (ci)
			f->ComputeInstanceDestroy(ci);
		f->GpuInstanceDestroy(gi);
		if (found < 0)
			return j->rc;
		if (found > 0 && ci)
			return say(j, AXL_EBACKEND,
				   "the new MIG instance has no MIG device in NVML; destroyed it again");
		return fail(j, call, r);
	}
	j->made.gpu_instance = (int)gid;
	j->made.compute_instance = (int)cid;
	if (cp.multiprocessorCount)
		j->made.compute_units = cp.multiprocessorCount;
	j->has_minor = CALL(f->DeviceGetMinorNumber, gpu, &j->gpu_minor) == NVML_SUCCESS;
	return 0;
}

/* destroy every compute instance of gi, then gi */
static int destroy_gi(struct mig_job *j, nvmlGpuInstance_t gi)
{
	const struct axl__nvml_fns *f = j->fn;
	for (unsigned e = 0; e < AXL_NVML_CI_PROFILE_ENUMS; e++) {
		nvmlComputeInstanceProfileInfo_t cp;
		if (f->GpuInstanceGetComputeInstanceProfileInfo(gi, e, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED,
								&cp) != NVML_SUCCESS)
			continue;
		nvmlComputeInstance_t cis[16];
		unsigned n = 0;
		if (cp.instanceCount > 16 ||
		    f->GpuInstanceGetComputeInstances(gi, cp.id, cis, &n) != NVML_SUCCESS)
			continue;
		for (unsigned k = 0; k < n && k < 16; k++) {
			nvmlReturn_t r = f->ComputeInstanceDestroy(cis[k]);
			if (r != NVML_SUCCESS)
				return fail(j, "nvmlComputeInstanceDestroy", r);
		}
	}
	nvmlReturn_t r = f->GpuInstanceDestroy(gi);
	if (r != NVML_SUCCESS)
		return fail(j, "nvmlGpuInstanceDestroy", r);
	j->removed = 1;
	return 0;
}

static int do_destroy(struct mig_job *j, nvmlDevice_t gpu)
{
	const struct axl__nvml_fns *f = j->fn;
	unsigned gid = 0, cid = 0;
	char u[AXL_NVML_STR];
	unsigned cur = 0, pend = 0;
	if (CALL(f->DeviceGetMigMode, gpu, &cur, &pend) != NVML_SUCCESS || cur != NVML_DEVICE_MIG_ENABLE)
		return 0; /* no MIG: nothing of it is left */
	int found = find_mig(j, gpu, &gid, &cid, j->id, u, sizeof u);
	if (found)
		return found < 0 ? j->rc : 0; /* already gone */
	if (!f->DeviceGetGpuInstances || !f->GpuInstanceGetInfo || !f->GpuInstanceDestroy ||
	    !f->GpuInstanceGetComputeInstances || !f->GpuInstanceGetComputeInstanceProfileInfo ||
	    !f->ComputeInstanceDestroy)
		return say(j, AXL_ENOTSUP, "this NVML lacks the MIG instance calls (a driver older than R450)");
	for (unsigned e = 0; e < AXL_NVML_GI_PROFILE_ENUMS; e++) {
		nvmlGpuInstanceProfileInfo_t p;
		if (CALL(f->DeviceGetGpuInstanceProfileInfo, gpu, e, &p) != NVML_SUCCESS || p.instanceCount > 32)
			continue;
		nvmlGpuInstance_t gis[32];
		unsigned n = 0;
		if (f->DeviceGetGpuInstances(gpu, p.id, gis, &n) != NVML_SUCCESS)
			continue;
		for (unsigned k = 0; k < n && k < 32; k++) {
			nvmlGpuInstanceInfo_t gi;
			if (f->GpuInstanceGetInfo(gis[k], &gi) == NVML_SUCCESS && gi.id == gid)
				return destroy_gi(j, gis[k]);
		}
	}
	snprintf(j->msg, sizeof j->msg, "NVML lists MIG device %s (GPU instance %u) but not its GPU instance", j->id,
		 gid);
	return j->rc = AXL_EBACKEND;
}

static void work(void *arg)
{
	struct mig_job *j = arg;
	pthread_mutex_lock(&mig_lock);
	nvmlReturn_t r = j->fn->Init();
	nvmlDevice_t gpu;
	if (r != NVML_SUCCESS)
		fail(j, "nvmlInit", r);
	else if (find_gpu(j, &gpu) == 0)
		j->rc = j->op == OP_CREATE ? do_create(j, gpu) : do_destroy(j, gpu);
	pthread_mutex_unlock(&mig_lock);
}

static void release(void *arg) { free(arg); }

/* ---- the calling side ------------------------------------------------------------------- */

/* run j under the deadline; 0 with j still the caller's, or an axl error (j gone) */
static int run(axl_context *ctx, struct mig_job *j, struct axl__vjob **job)
{
	*job = axl__vjob_start(work, release, j);
	if (!*job)
		return axl__error(AXL_ENOMEM, "cannot start the NVML worker");
	int ms = ctx->vendor_timeout_ms > AXL__MIG_MIN_TIMEOUT_MS ? ctx->vendor_timeout_ms : AXL__MIG_MIN_TIMEOUT_MS;
	if (!axl__vjob_wait(*job, ms, SRC))
		return axl__error(AXL_EBACKEND,
				  "NVML did not answer within %d ms (MIG %s); not called again by this process", ms,
				  j->op == OP_CREATE ? "create" : "destroy");
	return 0;
}

static struct mig_job *prepare(axl_context *ctx, const struct axl_device *gpu, int op, int *err)
{
	*err = 0;
	if (axl__vlib_wedged(SRC)) {
		*err = axl__error(AXL_EBACKEND, "NVML did not answer an earlier call in this process; not used again");
		return NULL;
	}
	char why[256] = "";
	const struct axl__nvml_fns *fn = axl__nvml_load(axl__vdrv_library(ctx, SRC), why, sizeof why);
	if (!fn) {
		*err = axl__error(AXL_ENOTSUP, "MIG control needs NVML: %s", why);
		return NULL;
	}
	struct mig_job *j = calloc(1, sizeof *j);
	if (!j) {
		*err = axl__error(AXL_ENOMEM, "out of memory");
		return NULL;
	}
	j->fn = fn;
	j->op = op;
	const char *u = axl__str(gpu, AXL_ATTR_UUID), *b = axl__str(gpu, AXL_ATTR_PCI_ADDRESS);
	const char *id = axl__str(gpu, AXL_ATTR_ID);
	snprintf(j->gpu_uuid, sizeof j->gpu_uuid, "%s", u ? u : "");
	snprintf(j->gpu_bus, sizeof j->gpu_bus, "%s", b ? b : "");
	snprintf(j->gpu_name, sizeof j->gpu_name, "%s", id ? id : b ? b : u ? u : "the GPU");
	if (!j->gpu_uuid[0] && !j->gpu_bus[0]) {
		*err = axl__error(AXL_EINVAL, "%s has neither a UUID nor a PCI address", j->gpu_name);
		free(j);
		return NULL;
	}
	j->made.profile_id = -1;
	j->made.memory_bytes = -1;
	j->made.compute_units = -1;
	j->made.gpu_instance = j->made.compute_instance = -1;
	return j;
}

int axl__nvml_mig_create(axl_context *ctx, const struct axl_device *gpu, int64_t profile_id,
			 struct axl__part_made *out)
{
	if (!ctx || !gpu || !out || profile_id < 0 || profile_id > 0xffffffffll)
		return axl__error(AXL_EINVAL, "bad arguments");
	int err;
	struct mig_job *j = prepare(ctx, gpu, OP_CREATE, &err);
	if (!j)
		return err;
	j->profile_id = profile_id;
	struct axl__vjob *job;
	if ((err = run(ctx, j, &job)))
		return err;
	int rc = j->rc;
	if (rc) {
		axl__error(rc, "%s", j->msg);
	} else {
		*out = j->made;
		out->nnodes = 0;
		char *text = NULL;
		size_t len = 0;
		if (j->has_minor &&
		    axl__fs_read_alloc(&ctx->fs, AXL__FS_ROOT, MIG_MINORS, MIG_MINORS_MAX, &text, &len) == 0) {
			axl__mig_minor_nodes(text, len, j->gpu_minor, out->gpu_instance, out->compute_instance, out);
			free(text);
		}
	}
	axl__vjob_free(job);
	return rc;
}

int axl__nvml_mig_destroy(axl_context *ctx, const struct axl_device *gpu, const char *id, size_t *removed)
{
	if (removed)
		*removed = 0;
	if (!ctx || !gpu || !id || !*id || strlen(id) >= sizeof((struct mig_job *)0)->id)
		return axl__error(AXL_EINVAL, "bad arguments");
	int err;
	struct mig_job *j = prepare(ctx, gpu, OP_DESTROY, &err);
	if (!j)
		return err;
	snprintf(j->id, sizeof j->id, "%s", id);
	struct axl__vjob *job;
	if ((err = run(ctx, j, &job)))
		return err;
	int rc = j->rc;
	if (rc)
		axl__error(rc, "%s", j->msg);
	else if (removed)
		*removed = j->removed;
	axl__vjob_free(job);
	return rc;
}
