/* SPDX-License-Identifier: MIT */
/*
 * Intel GPUs and NPUs through oneAPI Level Zero sysman (libze_loader.so.1, loaded with
 * dlopen): the identity the driver reports (name, UUID, board serial, driver version),
 * PCIe link, memory modules (type, size, bus width, use), frequency domains, power
 * limits, engine groups, compute units from slices/sub-slices/EUs, and Xe Link fabric
 * ports. The intel backend's sysfs view stays: Level Zero fills what sysfs lacks
 * (docs/vendor-libraries.md says what wins).
 *
 * Sysman is initialised with zesInit(0) (Level Zero 1.5+), never by changing the process
 * environment; a loader without zesInit (or a runtime whose zesInit fails) falls back to
 * zeInit(0), which brings sysman up only when the process was started with
 * ZES_ENABLE_SYSMAN=1. Once per process.
 *
 * The calls run in a worker thread started before the PCI scan, like NVML (nvml.c): the
 * inventory waits for it at most vendor_timeout_ms; a worker that does not come back is
 * abandoned and Level Zero is not used again by this process.
 *
 * Replay: a re-rooted tree that holds axl-capture/level-zero.jsonl (written by axl
 * capture) is answered from those records through the same code; $AXL_ZE_LIBRARY loads
 * a given library instead of the system's (the test suite's double).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ze_job.h"
#include "vlib.h"

#define SRC "level-zero"

struct ze_state {
	struct axl__vjob *job; /* its arg: a struct ze_job */
	bool collected;
	struct axl_device **dev; /* per sysman device, NULL when not matched */
};

static void job_free(void *arg)
{
	struct ze_job *j = arg;
	axl__vrec_fini(&j->q.v);
	free(j->devs);
	axl__vwarn_free(&j->warn);
	free(j);
}

#define jwarn(j, ...) axl__vwarn_add(&(j)->warn, __VA_ARGS__)

/* Is r worth a warning? Absent features are silent. */
static bool notable(ze_result_t r)
{
	return r != ZE_RESULT_SUCCESS && r != ZE_RESULT_ERROR_UNSUPPORTED_FEATURE && r != AXL_ZE_NO_FUNCTION &&
	       r != ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION && r != ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
}

/* Note a failed call on device i; true when the device is gone or sysman refuses
 * altogether (stop asking it). */
static bool check(struct ze_job *j, unsigned i, const char *f, ze_result_t r)
{
	if (!notable(r))
		return false;
	struct ze_dev *d = &j->devs[i];
	if (r == ZE_RESULT_ERROR_DEVICE_LOST) {
		if (!d->lost)
			jwarn(j, "device %u: %s: the device is lost (hung, reset or removed)", i, f);
		d->lost = true;
		return true;
	}
	if (r == ZE_RESULT_ERROR_UNINITIALIZED) {
		/* the legacy initialisation without ZES_ENABLE_SYSMAN=1: every call says so */
		if (!j->sysman_off)
			jwarn(j, "%s: %s: sysman is not initialised%s", f, axl__ze_strerror(r),
			      j->q.legacy ? " (this loader has no working zesInit; start the process with "
					    "ZES_ENABLE_SYSMAN=1 to use it)"
					  : "");
		j->sysman_off = true;
		return true;
	}
	jwarn(j, "device %u: %s: %s (0x%x)", i, f, axl__ze_strerror(r), (unsigned)r);
	return false;
}

/* ---- the worker: every Level Zero call ------------------------------------------------ */

static void collect_memory(struct ze_job *j, unsigned i)
{
	struct axl__zeq *q = &j->q;
	struct ze_dev *d = &j->devs[i];
	zes_handle_t h[ZE_MAX_COMP];
	uint32_t n = ZE_MAX_COMP;
	ze_result_t r = axl__zeq_enum(q, "zesDeviceEnumMemoryModules", q->fn ? q->fn->zesDeviceEnumMemoryModules : NULL,
				      d->h, "mem", h, &n);
	if (check(j, i, "zesDeviceEnumMemoryModules", r))
		return;
	for (uint32_t k = 0; k < n; k++) {
		struct ze_mem *m = &d->mem[d->nmem++];
		r = axl__zeq_mem_props(q, h[k], &m->p);
		m->has_p = r == ZE_RESULT_SUCCESS;
		if (check(j, i, "zesMemoryGetProperties", r))
			return;
		r = axl__zeq_mem_state(q, h[k], &m->s);
		m->has_s = r == ZE_RESULT_SUCCESS;
		if (check(j, i, "zesMemoryGetState", r))
			return;
	}
}

static void collect_frequency(struct ze_job *j, unsigned i)
{
	struct axl__zeq *q = &j->q;
	struct ze_dev *d = &j->devs[i];
	zes_handle_t h[ZE_MAX_COMP];
	uint32_t n = ZE_MAX_COMP;
	ze_result_t r = axl__zeq_enum(q, "zesDeviceEnumFrequencyDomains",
				      q->fn ? q->fn->zesDeviceEnumFrequencyDomains : NULL, d->h, "freq", h, &n);
	if (check(j, i, "zesDeviceEnumFrequencyDomains", r))
		return;
	for (uint32_t k = 0; k < n; k++) {
		r = axl__zeq_freq_props(q, h[k], &d->freq[d->nfreq]);
		if (r == ZE_RESULT_SUCCESS)
			d->nfreq++;
		if (check(j, i, "zesFrequencyGetProperties", r))
			return;
	}
}

static void collect_power(struct ze_job *j, unsigned i)
{
	struct axl__zeq *q = &j->q;
	struct ze_dev *d = &j->devs[i];
	zes_handle_t h[ZE_MAX_COMP];
	uint32_t n = ZE_MAX_COMP;
	ze_result_t r = axl__zeq_enum(q, "zesDeviceEnumPowerDomains", q->fn ? q->fn->zesDeviceEnumPowerDomains : NULL,
				      d->h, "pwr", h, &n);
	if (check(j, i, "zesDeviceEnumPowerDomains", r))
		return;
	for (uint32_t k = 0; k < n; k++) {
		struct ze_pwr *p = &d->pwr[d->npwr++];
		r = axl__zeq_power_props(q, h[k], &p->p, &p->e, &p->def, &p->has_ext);
		p->has_p = r == ZE_RESULT_SUCCESS;
		if (check(j, i, "zesPowerGetProperties", r))
			return;
		/* the limits of the device as a whole only: a tile's own are not the card's */
		if (!p->has_p || p->p.onSubdevice)
			continue;
		r = axl__zeq_power_limits_ext(q, h[k], p->lim, &p->nlim);
		p->has_lim = r == ZE_RESULT_SUCCESS;
		if (check(j, i, "zesPowerGetLimitsExt", r))
			return;
		if (p->has_lim)
			continue;
		/* a loader or driver before the extension: the deprecated call */
		r = axl__zeq_power_limits(q, h[k], &p->sus);
		p->has_sus = r == ZE_RESULT_SUCCESS;
		if (check(j, i, "zesPowerGetLimits", r))
			return;
	}
}

static void collect_engines(struct ze_job *j, unsigned i)
{
	struct axl__zeq *q = &j->q;
	struct ze_dev *d = &j->devs[i];
	zes_handle_t *h = calloc(ZE_MAX_ENGINES, sizeof *h);
	if (!h)
		return;
	uint32_t n = ZE_MAX_ENGINES;
	ze_result_t r = axl__zeq_enum(q, "zesDeviceEnumEngineGroups", q->fn ? q->fn->zesDeviceEnumEngineGroups : NULL,
				      d->h, "eng", h, &n);
	if (check(j, i, "zesDeviceEnumEngineGroups", r))
		goto out;
	d->has_engines = r == ZE_RESULT_SUCCESS;
	for (uint32_t k = 0; k < n; k++) {
		zes_engine_properties_t e;
		r = axl__zeq_engine_props(q, h[k], &e);
		if (check(j, i, "zesEngineGetProperties", r)) {
			d->has_engines = false;
			goto out;
		}
		if (r != ZE_RESULT_SUCCESS) {
			d->has_engines = false; /* a count with a hole is not a count */
			continue;
		}
		if (e.type < ZE_ENGINE_KINDS)
			d->engines[e.type]++;
		else
			d->engines_other++;
	}
out:
	free(h);
}

static void collect_ports(struct ze_job *j, unsigned i)
{
	struct axl__zeq *q = &j->q;
	struct ze_dev *d = &j->devs[i];
	zes_handle_t h[ZE_MAX_PORTS];
	uint32_t n = ZE_MAX_PORTS;
	ze_result_t r = axl__zeq_enum(q, "zesDeviceEnumFabricPorts", q->fn ? q->fn->zesDeviceEnumFabricPorts : NULL,
				      d->h, "port", h, &n);
	if (check(j, i, "zesDeviceEnumFabricPorts", r))
		return;
	for (uint32_t k = 0; k < n; k++) {
		struct ze_port *p = &d->ports[d->nports];
		r = axl__zeq_port_props(q, h[k], &p->p);
		p->has_p = r == ZE_RESULT_SUCCESS;
		if (check(j, i, "zesFabricPortGetProperties", r))
			return;
		if (!p->has_p)
			continue;
		d->nports++;
		r = axl__zeq_port_state(q, h[k], &p->s);
		p->has_s = r == ZE_RESULT_SUCCESS;
		if (check(j, i, "zesFabricPortGetState", r))
			return;
	}
}

static void collect_device(struct ze_job *j, unsigned i)
{
	struct axl__zeq *q = &j->q;
	struct ze_dev *d = &j->devs[i];
	/* where it is first: a device that cannot say is of no use */
	ze_result_t r = axl__zeq_pci_props(q, d->h, &d->pci);
	d->has_pci = r == ZE_RESULT_SUCCESS;
	if (check(j, i, "zesDevicePciGetProperties", r) || !d->has_pci)
		return;
	r = axl__zeq_device_props(q, d->h, &d->props);
	d->has_props = r == ZE_RESULT_SUCCESS;
	if (check(j, i, "zesDeviceGetProperties", r))
		return;
	r = axl__zeq_pci_state(q, d->h, &d->pst);
	d->has_pst = r == ZE_RESULT_SUCCESS;
	if (check(j, i, "zesDevicePciGetState", r))
		return;
	collect_memory(j, i);
	if (!d->lost && !j->sysman_off)
		collect_frequency(j, i);
	if (!d->lost && !j->sysman_off)
		collect_power(j, i);
	if (!d->lost && !j->sysman_off)
		collect_engines(j, i);
	if (!d->lost && !j->sysman_off)
		collect_ports(j, i);
}

static void collect(struct ze_job *j)
{
	struct axl__zeq *q = &j->q;
	double t0 = axl__now_ms();
	j->init_rc = axl__zeq_init(q);
	if (j->init_rc != ZE_RESULT_SUCCESS)
		goto out;
	if (q->legacy && q->zes_init_called)
		jwarn(j, "zesInit: %s (0x%x); using zeInit", axl__ze_strerror(q->zes_init_rc), (unsigned)q->zes_init_rc);
	ze_driver_handle_t drv[8];
	uint32_t ndrv = 8;
	ze_result_t r = axl__zeq_drivers(q, drv, &ndrv);
	if (r != ZE_RESULT_SUCCESS) {
		jwarn(j, "%s: %s (0x%x)", q->legacy ? "zeDriverGet" : "zesDriverGet", axl__ze_strerror(r), (unsigned)r);
		goto out;
	}
	j->devs = calloc(ZE_MAX_DEVICES, sizeof *j->devs);
	if (!j->devs)
		goto out;
	for (uint32_t k = 0; k < ndrv && j->ndevs < ZE_MAX_DEVICES; k++) {
		ze_device_handle_t h[ZE_MAX_DEVICES];
		uint32_t n = ZE_MAX_DEVICES - j->ndevs;
		r = axl__zeq_devices(q, drv[k], j->ndevs, h, &n);
		if (r != ZE_RESULT_SUCCESS) {
			jwarn(j, "driver %u: %s: %s (0x%x)", k, q->legacy ? "zeDeviceGet" : "zesDeviceGet",
			      axl__ze_strerror(r), (unsigned)r);
			continue;
		}
		for (uint32_t x = 0; x < n; x++)
			j->devs[j->ndevs++].h = h[x];
	}
	for (unsigned i = 0; i < j->ndevs && !j->sysman_off; i++)
		collect_device(j, i);
out:
	j->ms = axl__now_ms() - t0;
}

static void work(void *arg)
{
	collect(arg);
}

/* ---- the backend hooks ------------------------------------------------------------------ */

/* An Intel GPU or NPU kernel driver: without one Level Zero has nothing to say. */
static bool intel_driver_here(const struct axl__fs *fs)
{
	return axl__fs_exists(fs, AXL__FS_ROOT, "/sys/module/i915") ||
	       axl__fs_exists(fs, AXL__FS_ROOT, "/sys/module/xe") ||
	       axl__fs_exists(fs, AXL__FS_ROOT, "/sys/module/intel_vpu");
}

static void ze_start(struct axl__scan *scan, size_t self)
{
	struct axl_inventory *inv = scan->inv;
	axl_context *ctx = scan->ctx;
	struct ze_state *st = calloc(1, sizeof *st);
	if (!st)
		return;
	inv->bstate[self] = st;

	if (axl__vlib_wedged(SRC)) {
		axl__warn(inv, SRC, NULL, "Level Zero did not answer an earlier call in this process; not used");
		return;
	}
	struct ze_job *j = calloc(1, sizeof *j);
	if (!j)
		return;
	char why[256] = "";
	int replay = axl__vlib_replay(scan, SRC, ctx->ze_library, &j->q.v);
	if (replay == 0) {
		free(j);
		return;
	}
	if (replay < 0) {
		/* no Intel GPU/NPU driver: nothing sysman could tell (and no dlopen cost) */
		if (!ctx->ze_library && !intel_driver_here(scan->fs)) {
			free(j);
			return;
		}
		j->q.fn = axl__ze_load(ctx->ze_library, why, sizeof why);
		if (!j->q.fn) {
			/* optional: the loader is often absent where the driver is; say why only
			 * when a library was asked for */
			if (ctx->ze_library)
				axl__warn(inv, SRC, ctx->ze_library, "Level Zero not loaded: %s", why);
			free(j);
			return;
		}
	}
	j->q.legacy_ok = ctx->ze_enable_sysman;
	/* axl capture: every answer goes into the capture (replay: the file is carried) */
	axl__vlib_record(scan, &j->q.v);
	st->job = axl__vjob_start(work, job_free, j);
}

static void ze_release(struct axl_inventory *inv, size_t self)
{
	struct ze_state *st = inv->bstate[self];
	if (st->job)
		axl__vjob_free(st->job);
	free(st->dev);
	free(st);
	inv->bstate[self] = NULL;
}

static int ze_enumerate(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	size_t self = axl__backend_index(SRC);
	struct ze_state *st = self ? inv->bstate[self] : NULL;
	if (!st || !st->job || !axl__vlib_wait(inv, &st->job, SRC, "Level Zero", "Intel devices"))
		return 0;
	struct ze_job *j = axl__vjob_arg(st->job);
	/* here, not in the worker: a worker past its deadline must not touch the context */
	axl__vrec_flush(&j->q.v, inv->ctx, SRC);
	axl__vwarn_flush(&j->warn, inv, SRC, "Level Zero");
	if (j->init_rc == AXL_ZE_NO_FUNCTION && j->q.v.mode == AXL__VREC_REPLAY) {
		/* a capture without Level Zero records */
	} else if (j->init_rc == AXL_ZE_NEED_ENV) {
		/* an old loader: sysman only with the environment variable axl does not set */
		char msg[300];
		snprintf(msg, sizeof msg, "%s; sysman then needs ZES_ENABLE_SYSMAN=1 in the environment of the process "
			 "(not set): Level Zero not used",
			 j->q.zes_init_called ? "zesInit failed"
					      : "this loader has no zesInit (it predates the Level Zero 1.5 specification)");
		if (inv->ctx->ze_library)
			axl__warn(inv, SRC, NULL, "%s", msg);
		else
			axl__log(inv->ctx, AXL_LOG_INFO, "%s: %s", SRC, msg);
	} else if (j->init_rc == ZE_RESULT_ERROR_UNINITIALIZED && !inv->ctx->ze_library) {
		/* the loader found no Level Zero driver: a loader installed as some program's
		 * dependency without Intel's compute runtime is common; not worth a warning on
		 * every listing */
		axl__log(inv->ctx, AXL_LOG_INFO, "%s: %s: no Level Zero driver", SRC, j->q.legacy ? "zeInit" : "zesInit");
	} else if (j->init_rc != ZE_RESULT_SUCCESS) {
		axl__warn(inv, SRC, NULL, "%s: %s (0x%x)", j->q.legacy ? "zeInit" : "zesInit",
			  axl__ze_strerror(j->init_rc), (unsigned)j->init_rc);
	} else {
		st->dev = calloc(j->ndevs ? j->ndevs : 1, sizeof *st->dev);
		if (st->dev)
			axl__ze_apply(scan, j, st->dev);
		st->collected = true;
	}
	struct axl_timing *t = AXL__VEC_PUSH(inv->timings);
	if (t) {
		t->stage = "level-zero.calls";
		t->milliseconds = j->ms;
	}
	return 0;
}

static void ze_link(struct axl__scan *scan, size_t self)
{
	struct ze_state *st = scan->inv->bstate[self];
	if (st && st->collected && st->dev)
		axl__ze_link(scan, axl__vjob_arg(st->job), st->dev);
}

static bool ze_owns(const struct axl_device *dev)
{
	(void)dev;
	return false; /* enriches the intel backend's devices; owns none */
}

const struct axl__backend axl__backend_level_zero = {
	.name = SRC,
	.enumerate = ze_enumerate,
	.owns = ze_owns,
	.start = ze_start,
	.link = ze_link,
	.release = ze_release,
};
