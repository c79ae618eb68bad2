/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA GPUs through NVML (libnvidia-ml.so.1, loaded with dlopen): exact memory,
 * clocks, power limits, ECC/persistence/compute modes, MIG mode and GPU-instance
 * profiles, MIG devices as children of their GPU, NVLink ports, P2P and the common
 * PCI ancestor of every pair. Everything the procfs/sysfs backend found stays; NVML
 * adds to it and, where it knows better (the marketing name, exact memory), wins.
 *
 * The calls run in a worker thread started before the PCI scan, so NVML's start-up
 * overlaps it; discovery waits for the worker at most vendor_timeout_ms. A worker
 * that does not come back is abandoned (never killed: it may hold NVML's locks), NVML
 * is not used again by this process, and a warning says so. The library stays loaded.
 *
 * Replay: a re-rooted tree that holds axl-capture/nvml.jsonl (written by axl capture)
 * is answered from those records through the same code; $AXL_NVML_LIBRARY loads a
 * given library instead of the system's (the test suite's NVML double).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "backend_util.h"
#include "nvml_job.h"
#include "vlib.h"
#include "util/parse.h"

#define SRC "nvml"

static void job_fini(void *arg)
{
	struct nv_job *j = arg;
	free(j->gpus);
	free(j->pairs);
}

#define jwarn(j, ...) axl__vwork_warn(j, __VA_ARGS__)

/* Is r worth a warning? Absent features are silent. */
static bool notable(nvmlReturn_t r)
{
	return r != NVML_SUCCESS && r != NVML_ERROR_NOT_SUPPORTED && r != NVML_ERROR_FUNCTION_NOT_FOUND &&
	       r != NVML_ERROR_INVALID_ARGUMENT && r != NVML_ERROR_NOT_FOUND;
}

/* Note a failed call on GPU i; true when the GPU is gone (stop asking it). */
static bool check(struct nv_job *j, unsigned i, const char *f, nvmlReturn_t r)
{
	if (!notable(r))
		return false;
	struct nv_gpu *g = &j->gpus[i];
	if (r == NVML_ERROR_GPU_IS_LOST) {
		if (!g->lost)
			jwarn(j, "GPU %u: %s: the GPU is lost (fell off the bus or needs a reset)", i, f);
		g->lost = true;
		return true;
	}
	jwarn(j, "GPU %u: %s: %s (%d)", i, f, axl__nvml_strerror(r), r);
	return false;
}

/* ---- the worker: every NVML call ------------------------------------------------------ */

static void collect_mig(struct nv_job *j, unsigned i)
{
	struct axl__vq *q = &j->w.q;
	const struct axl__nvml_fns *fn = q->lib;
	struct nv_gpu *g = &j->gpus[i];
	nvmlReturn_t r = axl__nvq_u32x2(q, "nvmlDeviceGetMigMode", fn ? fn->DeviceGetMigMode : NULL, g->h,
					&g->mig, &g->mig_pend);
	if (check(j, i, "nvmlDeviceGetMigMode", r) || r != NVML_SUCCESS)
		return;
	g->has_mig = true;
	r = axl__nvq_u32(q, "nvmlDeviceGetMaxMigDeviceCount", fn ? fn->DeviceGetMaxMigDeviceCount : NULL, g->h,
			 &g->mig_max);
	g->has_mig_max = r == NVML_SUCCESS;
	if (check(j, i, "nvmlDeviceGetMaxMigDeviceCount", r))
		return;
	for (unsigned p = 0; p < AXL_NVML_GI_PROFILE_MAX; p++) {
		struct nv_prof *pr = &g->profs[g->nprofs];
		r = axl__nvq_gi_profile(q, g->h, p, &pr->info);
		if (check(j, i, "nvmlDeviceGetGpuInstanceProfileInfo", r))
			return;
		if (r != NVML_SUCCESS)
			continue;
		pr->info.name[sizeof pr->info.name - 1] = '\0';
		r = axl__nvq_u32a(q, "nvmlDeviceGetGpuInstanceRemainingCapacity",
				  fn ? fn->DeviceGetGpuInstanceRemainingCapacity : NULL, g->h, pr->info.id,
				  &pr->remaining);
		pr->has_remaining = r == NVML_SUCCESS;
		if (check(j, i, "nvmlDeviceGetGpuInstanceRemainingCapacity", r))
			return;
		g->nprofs++;
	}
	if (g->mig != NVML_DEVICE_MIG_ENABLE || !g->has_mig_max)
		return;
	unsigned max = g->mig_max;
	if (max > MAX_MIG) {
		jwarn(j, "GPU %u: nvmlDeviceGetMaxMigDeviceCount says %u; a GPU has at most 7", i, max);
		max = MAX_MIG;
	}
	for (unsigned k = 0; k < max; k++) {
		nvmlDevice_t m;
		r = axl__nvq_mig_handle(q, g->h, k, &m);
		if (check(j, i, "nvmlDeviceGetMigDeviceHandleByIndex", r))
			return;
		if (r != NVML_SUCCESS)
			continue; /* no MIG device at this index */
		struct nv_mig *x = &g->migs[g->nmigs++];
		x->h = m;
		x->index = k;
		r = axl__nvq_u32(q, "nvmlDeviceGetGpuInstanceId", fn ? fn->DeviceGetGpuInstanceId : NULL, m, &x->gi);
		x->has_gi = r == NVML_SUCCESS;
		r = axl__nvq_u32(q, "nvmlDeviceGetComputeInstanceId", fn ? fn->DeviceGetComputeInstanceId : NULL, m,
				 &x->ci);
		x->has_ci = r == NVML_SUCCESS;
		r = axl__nvq_str(q, "nvmlDeviceGetUUID", fn ? fn->DeviceGetUUID : NULL, m, x->uuid, sizeof x->uuid);
		if (r != NVML_SUCCESS)
			x->uuid[0] = '\0';
		bool v2;
		r = axl__nvq_memory(q, m, &x->mem, &v2);
		x->has_mem = r == NVML_SUCCESS;
		r = axl__nvq_attributes(q, m, &x->attr);
		x->has_attr = r == NVML_SUCCESS;
		if (check(j, i, "nvmlDeviceGetAttributes", r))
			return;
	}
}

static void collect_nvlink(struct nv_job *j, unsigned i)
{
	struct axl__vq *q = &j->w.q;
	const struct axl__nvml_fns *fn = q->lib;
	struct nv_gpu *g = &j->gpus[i];
	for (unsigned l = 0; l < AXL_NVML_NVLINK_MAX_LINKS; l++) {
		unsigned state;
		nvmlReturn_t r = axl__nvq_u32a(q, "nvmlDeviceGetNvLinkState", fn ? fn->DeviceGetNvLinkState : NULL,
					       g->h, l, &state);
		if (check(j, i, "nvmlDeviceGetNvLinkState", r))
			return;
		if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND) {
			if (l == 0)
				return; /* no NVLink on this GPU */
			continue;
		}
		if (r != NVML_SUCCESS)
			continue; /* a link number this GPU does not have */
		struct nv_link *k = &g->links[g->nlinks++];
		k->index = l;
		k->state = state;
		if (state != NVML_FEATURE_ENABLED)
			continue;
		r = axl__nvq_u32a(q, "nvmlDeviceGetNvLinkVersion", fn ? fn->DeviceGetNvLinkVersion : NULL, g->h, l,
				  &k->version);
		k->has_version = r == NVML_SUCCESS;
		r = axl__nvq_remote_pci(q, g->h, l, &k->remote);
		k->has_remote = r == NVML_SUCCESS;
		r = axl__nvq_u32a(q, "nvmlDeviceGetNvLinkRemoteDeviceType",
				  fn ? fn->DeviceGetNvLinkRemoteDeviceType : NULL, g->h, l, &k->type);
		k->has_type = r == NVML_SUCCESS;
	}
}

static void collect_gpu(struct nv_job *j, unsigned i)
{
	struct axl__vq *q = &j->w.q;
	const struct axl__nvml_fns *fn = q->lib;
	struct nv_gpu *g = &j->gpus[i];
	nvmlReturn_t r = axl__nvq_pci(q, g->h, &g->pci);
	g->has_pci = r == NVML_SUCCESS;
	if (check(j, i, "nvmlDeviceGetPciInfo", r))
		return;
	static const char *const snames[S__N] = {
		"nvmlDeviceGetName", "nvmlDeviceGetUUID", "nvmlDeviceGetSerial", "nvmlDeviceGetBoardPartNumber",
		"nvmlDeviceGetVbiosVersion", "nvmlDeviceGetInforomImageVersion"};
	nvmlReturn_t (*const sfns[S__N])(nvmlDevice_t, char *, unsigned) = {
		fn ? fn->DeviceGetName : NULL, fn ? fn->DeviceGetUUID : NULL,
		fn ? fn->DeviceGetSerial : NULL, fn ? fn->DeviceGetBoardPartNumber : NULL,
		fn ? fn->DeviceGetVbiosVersion : NULL, fn ? fn->DeviceGetInforomImageVersion : NULL};
	for (int s = 0; s < S__N; s++) {
		r = axl__nvq_str(q, snames[s], sfns[s], g->h, g->str[s], sizeof g->str[s]);
		g->has_str[s] = r == NVML_SUCCESS && g->str[s][0];
		if (check(j, i, snames[s], r))
			return;
	}
	static const char *const unames[] = {
		"nvmlDeviceGetMinorNumber", "nvmlDeviceGetArchitecture", "nvmlDeviceGetNumGpuCores",
		"nvmlDeviceGetCurrPcieLinkGeneration", "nvmlDeviceGetMaxPcieLinkGeneration",
		"nvmlDeviceGetCurrPcieLinkWidth", "nvmlDeviceGetMaxPcieLinkWidth",
		"nvmlDeviceGetPowerManagementLimit", "nvmlDeviceGetPowerManagementDefaultLimit",
		"nvmlDeviceGetPersistenceMode", "nvmlDeviceGetComputeMode"};
	nvmlReturn_t (*const ufns[])(nvmlDevice_t, unsigned *) = {
		fn ? fn->DeviceGetMinorNumber : NULL, fn ? fn->DeviceGetArchitecture : NULL,
		fn ? fn->DeviceGetNumGpuCores : NULL, fn ? fn->DeviceGetCurrPcieLinkGeneration : NULL,
		fn ? fn->DeviceGetMaxPcieLinkGeneration : NULL, fn ? fn->DeviceGetCurrPcieLinkWidth : NULL,
		fn ? fn->DeviceGetMaxPcieLinkWidth : NULL, fn ? fn->DeviceGetPowerManagementLimit : NULL,
		fn ? fn->DeviceGetPowerManagementDefaultLimit : NULL, fn ? fn->DeviceGetPersistenceMode : NULL,
		fn ? fn->DeviceGetComputeMode : NULL};
	for (int u = 0; u <= U_CMODE; u++) {
		r = axl__nvq_u32(q, unames[u], ufns[u], g->h, &g->u[u]);
		g->has_u[u] = r == NVML_SUCCESS;
		if (check(j, i, unames[u], r))
			return;
	}
	static const unsigned clk[] = {NVML_CLOCK_GRAPHICS, NVML_CLOCK_SM, NVML_CLOCK_MEM};
	for (int c = 0; c < 3; c++) {
		r = axl__nvq_u32a(q, "nvmlDeviceGetClockInfo", fn ? fn->DeviceGetClockInfo : NULL, g->h, clk[c],
				  &g->u[U_CLK_G + c]);
		g->has_u[U_CLK_G + c] = r == NVML_SUCCESS;
		if (check(j, i, "nvmlDeviceGetClockInfo", r))
			return;
		r = axl__nvq_u32a(q, "nvmlDeviceGetMaxClockInfo", fn ? fn->DeviceGetMaxClockInfo : NULL, g->h, clk[c],
				  &g->u[U_MAX_G + c]);
		g->has_u[U_MAX_G + c] = r == NVML_SUCCESS;
		if (check(j, i, "nvmlDeviceGetMaxClockInfo", r))
			return;
	}
	r = axl__nvq_u32x2(q, "nvmlDeviceGetPowerManagementLimitConstraints",
			   fn ? fn->DeviceGetPowerManagementLimitConstraints : NULL, g->h, &g->pmin, &g->pmax);
	g->has_pconstr = r == NVML_SUCCESS;
	if (check(j, i, "nvmlDeviceGetPowerManagementLimitConstraints", r))
		return;
	r = axl__nvq_u32x2(q, "nvmlDeviceGetEccMode", fn ? fn->DeviceGetEccMode : NULL, g->h, &g->ecc, &g->ecc_pend);
	g->has_ecc = r == NVML_SUCCESS;
	if (check(j, i, "nvmlDeviceGetEccMode", r))
		return;
	r = axl__nvq_cc(q, g->h, &g->cc_major, &g->cc_minor);
	g->has_cc = r == NVML_SUCCESS;
	if (check(j, i, "nvmlDeviceGetCudaComputeCapability", r))
		return;
	r = axl__nvq_memory(q, g->h, &g->mem, &g->mem_v2);
	g->has_mem = r == NVML_SUCCESS;
	if (check(j, i, "nvmlDeviceGetMemoryInfo", r))
		return;
	r = axl__nvq_bar1(q, g->h, &g->bar1);
	g->has_bar1 = r == NVML_SUCCESS;
	if (check(j, i, "nvmlDeviceGetBAR1MemoryInfo", r))
		return;
	collect_mig(j, i);
	if (!g->lost)
		collect_nvlink(j, i);
}

static void collect_pairs(struct nv_job *j)
{
	struct axl__vq *q = &j->w.q;
	const struct axl__nvml_fns *fn = q->lib;
	size_t n = j->ngpus;
	if (n < 2)
		return;
	j->pairs = calloc(n * (n - 1) / 2, sizeof *j->pairs);
	if (!j->pairs)
		return;
	for (unsigned a = 0; a < n; a++) {
		for (unsigned b = a + 1; b < n; b++) {
			struct nv_gpu *ga = &j->gpus[a], *gb = &j->gpus[b];
			if (!ga->h || !gb->h || ga->lost || gb->lost)
				continue;
			struct nv_pair *p = &j->pairs[j->npairs++];
			p->a = a;
			p->b = b;
			nvmlReturn_t r = axl__nvq_pair(q, "nvmlDeviceGetTopologyCommonAncestor",
						       fn ? fn->DeviceGetTopologyCommonAncestor : NULL, ga->h, gb->h,
						       &p->level);
			p->has_level = r == NVML_SUCCESS;
			if (check(j, a, "nvmlDeviceGetTopologyCommonAncestor", r))
				continue;
			static const struct {
				unsigned index, bit;
			} caps[] = {{NVML_P2P_CAPS_INDEX_READ, AXL_P2P_READ},
				    {NVML_P2P_CAPS_INDEX_WRITE, AXL_P2P_WRITE},
				    {NVML_P2P_CAPS_INDEX_ATOMICS, AXL_P2P_ATOMICS},
				    {NVML_P2P_CAPS_INDEX_NVLINK, AXL_P2P_NVLINK}};
			unsigned known = 0;
			for (size_t c = 0; c < 4; c++) {
				unsigned status;
				r = axl__nvq_p2p(q, ga->h, gb->h, caps[c].index, &status);
				if (r == NVML_SUCCESS) {
					known++;
					if (status == NVML_P2P_STATUS_OK)
						p->p2p |= caps[c].bit;
				} else if (check(j, a, "nvmlDeviceGetP2PStatus", r)) {
					break;
				}
			}
			if (known == 4)
				p->p2p |= AXL_P2P_KNOWN;
			else
				p->p2p = 0;
		}
	}
}

static void collect(void *arg)
{
	struct nv_job *j = arg;
	struct axl__vq *q = &j->w.q;
	const struct axl__nvml_fns *fn = q->lib;
	j->init_rc = axl__nvq_init(q);
	if (j->init_rc != NVML_SUCCESS)
		goto out;
	if (axl__nvq_sys_str(q, "nvmlSystemGetDriverVersion", fn ? fn->SystemGetDriverVersion : NULL, j->driver,
			     sizeof j->driver) != NVML_SUCCESS)
		j->driver[0] = '\0';
	if (axl__nvq_sys_str(q, "nvmlSystemGetNVMLVersion", fn ? fn->SystemGetNVMLVersion : NULL, j->nvml_version,
			     sizeof j->nvml_version) != NVML_SUCCESS)
		j->nvml_version[0] = '\0';
	j->has_cuda = axl__nvq_sys_int(q, "nvmlSystemGetCudaDriverVersion", fn ? fn->SystemGetCudaDriverVersion : NULL,
				       &j->cuda) == NVML_SUCCESS;
	unsigned count = 0;
	nvmlReturn_t r = axl__nvq_count(q, &count);
	if (r != NVML_SUCCESS) {
		jwarn(j, "nvmlDeviceGetCount: %s (%d)", axl__nvml_strerror(r), r);
		goto out;
	}
	if (count > 256) {
		jwarn(j, "nvmlDeviceGetCount says %u GPUs; looking at the first 256", count);
		count = 256;
	}
	j->gpus = calloc(count ? count : 1, sizeof *j->gpus);
	if (!j->gpus)
		goto out;
	j->ngpus = count;
	for (unsigned i = 0; i < count; i++) {
		r = axl__nvq_handle(q, i, &j->gpus[i].h);
		if (r != NVML_SUCCESS) {
			j->gpus[i].h = NULL;
			/* NVML refuses a handle for a GPU it cannot use (lost, no permission) */
			jwarn(j, "GPU %u: nvmlDeviceGetHandleByIndex: %s (%d)", i, axl__nvml_strerror(r), r);
			continue;
		}
		collect_gpu(j, i);
	}
	collect_pairs(j);
out:;
}

/* ---- the backend hooks ------------------------------------------------------------------ */

static bool nvidia_driver_here(const struct axl__fs *fs)
{
	return axl__fs_exists(fs, AXL__FS_ROOT, "/proc/driver/nvidia/version") ||
	       axl__fs_exists(fs, AXL__FS_ROOT, "/sys/module/nvidia");
}

static bool ready(struct axl__scan *scan, void *arg, size_t *n)
{
	struct nv_job *j = arg;
	if (j->init_rc != NVML_SUCCESS) {
		/* no driver behind the library is a normal state on a node being set up */
		axl__warn(scan->inv, SRC, NULL, "nvmlInit: %s (%d)", axl__nvml_strerror(j->init_rc), j->init_rc);
		return false;
	}
	*n = j->ngpus;
	return true;
}

static void nv_apply(struct axl__scan *scan, void *j, struct axl_device **dev)
{
	axl__nvml_apply(scan, j, dev);
}

static void nv_link(struct axl__scan *scan, void *j, struct axl_device **dev)
{
	axl__nvml_link(scan, j, dev);
}

static const struct axl__vdrv nvml = {
	.name = SRC,
	.display = "NVML",
	.devices = "NVIDIA GPUs",
	.timing = "nvml.calls",
	.lib = &axl__nvml_library,
	.quiet = AXL__VDRV_WARN,
	.missing = NVML_ERROR_NOT_SUPPORTED,
	.max_handles = AXL_NVQ_MAX_HANDLES,
	.job_size = sizeof(struct nv_job),
	.present = nvidia_driver_here,
	.collect = collect,
	.fini = job_fini,
	.ready = ready,
	.apply = nv_apply,
	.link = nv_link,
};
AXL__VDRV_HOOKS(nvml, nvml)

struct nv_job *axl__nvml_job(const struct axl_inventory *inv, const struct axl__backend *self,
			     struct axl_device ***devs)
{
	return axl__vdrv_job(inv, self, devs);
}

static const struct axl__library_ops nvml_libs = {
	.env = "AXL_NVML_LIBRARY",
};

const struct axl__backend axl__backend_nvml = {
	.name = "nvml",
	.discover = &nvml_discover,
	.sample = &axl__nvml_sample_ops,
	.libs = &nvml_libs,
};
