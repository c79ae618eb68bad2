/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA health through NVML's events (nvml_sample.h).
 *
 * Health (AXL_SAMPLER_HEALTH), as NVIDIA's k8s-device-plugin watches it (internal/rm/
 * health.go): one event set per sampler (nvmlEventSetCreate), each GPU registered for Xid
 * and double-bit ECC events that it supports (nvmlDeviceGetSupportedEventTypes,
 * nvmlDeviceRegisterEvents; a GPU that supports none is not watched, as that plugin leaves
 * a GPU "too old to support healthchecking"), and every sample drains what arrived
 * since the previous one (nvmlEventSetWait_v2 with a timeout of 0, until TIMEOUT), in the
 * worker under the same deadline. An Xid is critical unless it is one an application
 * causes (that plugin's list: 13, 31, 43, 45, 68, 109). An event with GPU- and
 * compute-instance ids names the MIG device they belong to, else the GPU. A failed
 * registration, or a wait that fails otherwise than TIMEOUT, is a failed watch (retried
 * next sample): that plugin marks the devices unhealthy for it.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>

#include "nvml_sample.h"

/* ---- health: the event set --------------------------------------------------------- */

static void add_event(struct nvs_shared *sh, size_t k, int what, unsigned long long data, nvmlReturn_t rc,
		      const char *call, unsigned gi, unsigned ci)
{
	if (sh->nev < MAX_EVENTS)
		sh->ev[sh->nev++] = (struct nvs_event){k, what, data, rc, call, gi, ci};
}

/* A watch that failed (rc from call) on every GPU watched or to be watched. */
static void watch_failed(struct nvs_shared *sh, nvmlReturn_t rc, const char *call)
{
	for (size_t k = 0; k < sh->n; k++)
		if (!sh->t[k].mig && !sh->t[k].unwatchable)
			add_event(sh, k, EV_WATCH, 0, rc, call, AXL_NVML_NO_INSTANCE, AXL_NVML_NO_INSTANCE);
}

/* An event NVML delivered: the MIG device of its instance ids, else its GPU. */
static void take_event(struct nvs_shared *sh, const nvmlEventData_t *e)
{
	int what = e->eventType & AXL_NVML_EVENT_XID ? EV_XID : e->eventType & AXL_NVML_EVENT_DBE ? EV_DBE : -1;
	if (what < 0)
		return; /* not one we asked for */
	size_t gpu = SIZE_MAX, at;
	for (size_t k = 0; k < sh->n && gpu == SIZE_MAX; k++)
		if (!sh->t[k].mig && sh->t[k].h == e->device)
			gpu = k;
	if (gpu == SIZE_MAX)
		return; /* a GPU this sampler does not watch */
	at = gpu;
	if (e->gpuInstanceId != AXL_NVML_NO_INSTANCE && e->computeInstanceId != AXL_NVML_NO_INSTANCE)
		for (size_t k = gpu + 1; k < sh->n && sh->t[k].mig && sh->t[k].parent == gpu; k++)
			if (sh->t[k].has_ids && sh->t[k].gi == e->gpuInstanceId && sh->t[k].ci == e->computeInstanceId)
				at = k;
	add_event(sh, at, what, e->eventData, NVML_SUCCESS, NULL, e->gpuInstanceId, e->computeInstanceId);
}

/* The set made and every GPU registered (what failed is retried at the next sample);
 * then, unless only opening, what arrived since the last time. */
void axl__nvs_watch(struct nvs_shared *sh, bool opening)
{
	sh->nev = 0;
	if (sh->no_events)
		return;
	nvmlReturn_t r;
	if (!sh->set) {
		r = axl__nvq_event_set(&sh->q, &sh->set);
		if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND) {
			sh->no_events = true; /* a library without events (or a replay): nothing to watch */
			return;
		}
		if (r != NVML_SUCCESS) {
			watch_failed(sh, r, "nvmlEventSetCreate");
			return;
		}
	}
	for (size_t k = 0; k < sh->n; k++) {
		struct nvs_target *t = &sh->t[k];
		if (t->mig || t->watched || t->unwatchable)
			continue;
		r = axl__nvq_event_register(&sh->q, sh->set, t->h, AXL_NVML_EVENT_XID | AXL_NVML_EVENT_DBE,
					    &t->watched);
		if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND)
			t->unwatchable = true;
		else if (r != NVML_SUCCESS)
			add_event(sh, k, EV_WATCH, 0, r, "nvmlDeviceRegisterEvents", AXL_NVML_NO_INSTANCE,
				  AXL_NVML_NO_INSTANCE);
	}
	while (!opening && sh->nev < MAX_EVENTS) {
		nvmlEventData_t e;
		r = axl__nvq_event_wait(&sh->q, sh->set, &e, 0);
		if (r == NVML_ERROR_TIMEOUT)
			break;
		if (r != NVML_SUCCESS) {
			watch_failed(sh, r, "nvmlEventSetWait");
			break;
		}
		take_event(sh, &e);
	}
}

/* Xids an application causes: the GPU stays usable (NVIDIA's k8s-device-plugin,
 * internal/rm/health.go, and its names for them); and a few others' names from NVIDIA's
 * Xid catalogue (docs.nvidia.com/deploy/xid-errors), for the messages. */
static const struct {
	unsigned xid;
	bool app;
	const char *what;
} xids[] = {
	{13, true, "Graphics Engine Exception"},
	{31, true, "GPU memory page fault"},
	{43, true, "GPU stopped processing"},
	{45, true, "Preemptive cleanup, due to previous errors"},
	{48, false, "Double Bit ECC Error"},
	{63, false, "ECC page retirement or row remapping recording event"},
	{64, false, "ECC page retirement or row remapper recording failure"},
	{68, true, "Video processor exception"},
	{74, false, "NVLink Error"},
	{79, false, "GPU has fallen off the bus"},
	{92, false, "High single-bit ECC error rate"},
	{94, false, "Contained ECC error"},
	{95, false, "Uncontained ECC error"},
	{109, true, "Context Switch Timeout Error"},
};

void axl__nvs_put_event(struct axl_sample *out, size_t i, const struct nvs_event *e)
{
	char where[64] = "";
	if (e->gi != AXL_NVML_NO_INSTANCE && e->ci != AXL_NVML_NO_INSTANCE)
		snprintf(where, sizeof where, " (GPU instance %u, compute instance %u)", e->gi, e->ci);
	if (e->what == EV_DBE) {
		axl__shealth(out, i, AXL_HEALTH_UNCORRECTABLE, true, 0, NV, "double-bit ECC error%s", where);
	} else if (e->what == EV_WATCH) {
		axl__shealth(out, i, AXL_HEALTH_WATCH_FAILED, true, e->rc, NV, "NVML's event watch failed: %s: %s",
			     e->call, axl__nvml_strerror(e->rc));
	} else {
		const char *what = e->data == 999 ? "unknown Xid" : NULL;
		bool app = false;
		for (size_t x = 0; x < sizeof xids / sizeof *xids && !what; x++)
			if (xids[x].xid == e->data) {
				what = xids[x].what;
				app = xids[x].app;
			}
		char text[160] = "";
		if (what || app)
			snprintf(text, sizeof text, " (%s%s)", what, app ? ": an application's error" : "");
		axl__shealth(out, i, AXL_HEALTH_DRIVER_ERROR, !app,
			     (int64_t)(e->data > INT64_MAX ? INT64_MAX : e->data), NV, "Xid %llu%s%s", e->data, text,
			     where);
	}
}
