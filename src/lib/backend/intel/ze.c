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

#include "backend.h"
#include "ze_job.h"
#include "vlib.h"

#define SRC "level-zero"

static void job_fini(void *arg)
{
	struct ze_job *j = arg;
	free(j->devs);
}

#define jwarn(j, ...) axl__vwarn_add(&(j)->q.w.warn, __VA_ARGS__)

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
	zes_mem_handle_t h[ZE_MAX_COMP];
	uint32_t n = ZE_MAX_COMP;
	ze_result_t r = axl__zeq_memory_modules(q, d->h, h, &n);
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
	zes_freq_handle_t h[ZE_MAX_COMP];
	uint32_t n = ZE_MAX_COMP;
	ze_result_t r = axl__zeq_frequency_domains(q, d->h, h, &n);
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
	zes_pwr_handle_t h[ZE_MAX_COMP];
	uint32_t n = ZE_MAX_COMP;
	ze_result_t r = axl__zeq_power_domains(q, d->h, h, &n);
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
	zes_engine_handle_t *h = calloc(ZE_MAX_ENGINES, sizeof *h);
	if (!h)
		return;
	uint32_t n = ZE_MAX_ENGINES;
	ze_result_t r = axl__zeq_engine_groups(q, d->h, h, &n);
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
	zes_fabric_port_handle_t h[ZE_MAX_PORTS];
	uint32_t n = ZE_MAX_PORTS;
	ze_result_t r = axl__zeq_fabric_ports(q, d->h, h, &n);
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

static void collect(void *arg)
{
	struct ze_job *j = arg;
	struct axl__zeq *q = &j->q;
	j->init_rc = axl__zeq_init(q);
	if (j->init_rc != ZE_RESULT_SUCCESS)
		goto out;
	if (q->legacy && q->zes_init_called)
		jwarn(j, "zesInit: %s (0x%x); using zeInit", axl__ze_strerror(q->zes_init_rc),
		      (unsigned)q->zes_init_rc);
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
out:;
}

/* ---- the backend hooks ------------------------------------------------------------------ */

/* An Intel GPU or NPU kernel driver: without one Level Zero has nothing to say. */
static bool intel_driver_here(const struct axl__fs *fs)
{
	return axl__fs_exists(fs, AXL__FS_ROOT, "/sys/module/i915") ||
	       axl__fs_exists(fs, AXL__FS_ROOT, "/sys/module/xe") ||
	       axl__fs_exists(fs, AXL__FS_ROOT, "/sys/module/intel_vpu");
}

/* What the process was started with (ZES_ENABLE_SYSMAN=1): whether zeInit may serve. */
static void prepare(struct axl__scan *scan, const struct axl__backend *self, void *arg)
{
	struct ze_job *j = arg;
	const char *zes = axl__backend_runtime_env(scan->ctx, self);
	j->q.legacy_ok = zes && strcmp(zes, "1") == 0;
}

static bool ready(struct axl__scan *scan, void *arg, size_t *n)
{
	struct axl_inventory *inv = scan->inv;
	struct ze_job *j = arg;
	const char *asked = axl__vdrv_library(inv->ctx, SRC);
	if (j->init_rc == AXL_ZE_NO_FUNCTION && j->q.w.q.v.mode == AXL__VREC_REPLAY) {
		/* a capture without Level Zero records */
	} else if (j->init_rc == AXL_ZE_NEED_ENV) {
		/* an old loader: sysman only with the environment variable axl does not set */
		char msg[300];
		snprintf(msg, sizeof msg,
			 "%s; sysman then needs ZES_ENABLE_SYSMAN=1 in the environment of the process "
			 "(not set): Level Zero not used",
			 j->q.zes_init_called
			     ? "zesInit failed"
			     : "this loader has no zesInit (it predates the Level Zero 1.5 specification)");
		if (asked)
			axl__warn(inv, SRC, NULL, "%s", msg);
		else
			axl__log(inv->ctx, AXL_LOG_INFO, "%s: %s", SRC, msg);
	} else if (j->init_rc == ZE_RESULT_ERROR_UNINITIALIZED && !asked) {
		/* the loader found no Level Zero driver: a loader installed as some program's
		 * dependency without Intel's compute runtime is common; not worth a warning on
		 * every listing */
		axl__log(inv->ctx, AXL_LOG_INFO, "%s: %s: no Level Zero driver", SRC,
			 j->q.legacy ? "zeInit" : "zesInit");
	} else if (j->init_rc != ZE_RESULT_SUCCESS) {
		axl__warn(inv, SRC, NULL, "%s: %s (0x%x)", j->q.legacy ? "zeInit" : "zesInit",
			  axl__ze_strerror(j->init_rc), (unsigned)j->init_rc);
	} else {
		*n = j->ndevs;
		return true;
	}
	return false;
}

static void ze_apply(struct axl__scan *scan, void *j, struct axl_device **dev)
{
	axl__ze_apply(scan, j, dev);
}

static void ze_link(struct axl__scan *scan, void *j, struct axl_device **dev)
{
	axl__ze_link(scan, j, dev);
}

/* optional: the loader is often absent where the driver is; say why only when a
 * library was asked for */
static const struct axl__vdrv ze = {
	.name = SRC,
	.display = "Level Zero",
	.devices = "Intel devices",
	.timing = "level-zero.calls",
	.lib = &axl__ze_library,
	.quiet = AXL__VDRV_WARN_ASKED,
	.missing = ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
	.max_handles = AXL_ZEQ_MAX_HANDLES,
	.job_size = sizeof(struct ze_job),
	.present = intel_driver_here,
	.prepare = prepare,
	.collect = collect,
	.fini = job_fini,
	.ready = ready,
	.apply = ze_apply,
	.link = ze_link,
};
AXL__VDRV_HOOKS(ze, ze)

static const struct axl__library_ops level_zero_libs = {
	.env = "AXL_ZE_LIBRARY",
	.runtime_env = "ZES_ENABLE_SYSMAN",
};

const struct axl__backend axl__backend_level_zero = {
	.name = SRC,
	.discover = &ze_discover,
	.libs = &level_zero_libs,
};
