/* SPDX-License-Identifier: MIT */
/*
 * A sample in the Prometheus text exposition format 0.0.4 (docs/metrics.md, "Prometheus").
 *
 * Families are written one after the other, each with # HELP and # TYPE and then its
 * series for every device that has the value (an unknown value is no series). Values are
 * in base units: percent becomes a 0..1 ratio, megahertz hertz. Every device series
 * carries the device's labels (id, uuid, model, pci, vendor, numa, and for a partition
 * parent, partition, profile), built once per device per call.
 *
 * With AXL_METRICS_DCGM the families of NVIDIA's dcgm-exporter follow, in its names,
 * units and label names, for every device of any vendor.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prom_dcgm.h"
#include "sample.h"
#include "util/strbuf.h"

/* ---- text helpers ---------------------------------------------------------------- */

/* A label value: backslash, double quote and newline escaped. */
static void put_label_value(struct axl__sb *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			axl__sb_put(sb, "\\\\", 2);
		else if (*s == '"')
			axl__sb_put(sb, "\\\"", 2);
		else if (*s == '\n')
			axl__sb_put(sb, "\\n", 2);
		else
			axl__sb_putc(sb, *s);
	}
}

/* ,name="value" (or name="value" first); nothing when value is NULL. */
static void put_label(struct axl__sb *sb, const char *name, const char *value)
{
	if (!value)
		return;
	if (sb->len)
		axl__sb_putc(sb, ',');
	axl__sb_puts(sb, name);
	axl__sb_put(sb, "=\"", 2);
	put_label_value(sb, value);
	axl__sb_putc(sb, '"');
}

static void put_value(struct axl__sb *sb, double v)
{
	if (fabs(v) < 9e15 && v == floor(v))
		axl__sb_printf(sb, "%lld\n", (long long)v);
	else
		axl__sb_printf(sb, "%.15g\n", v);
}

/* # HELP and # TYPE; help text must not hold a backslash or a newline (ours do not). */
static void put_family(struct axl__sb *sb, const char *name, const char *type, const char *help)
{
	axl__sb_printf(sb, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{labels[,extra]} value */
static void put_series(struct axl__sb *sb, const char *name, const char *labels, const char *extra, double v)
{
	axl__sb_puts(sb, name);
	bool any = (labels && *labels) || (extra && *extra);
	if (any) {
		axl__sb_putc(sb, '{');
		if (labels && *labels)
			axl__sb_puts(sb, labels);
		if (extra && *extra) {
			if (labels && *labels)
				axl__sb_putc(sb, ',');
			axl__sb_puts(sb, extra);
		}
		axl__sb_putc(sb, '}');
	}
	axl__sb_putc(sb, ' ');
	put_value(sb, v);
}

static const char *dstr(const struct axl_device *d, axl_attr a)
{
	const char *s = NULL;
	return axl_device_get_str(d, a, &s) == 0 ? s : NULL;
}

/* ---- labels -------------------------------------------------------------------------- */

struct devlabels {
	char *axl;  /* id, uuid, model, pci, vendor, numa (+ parent, partition, profile) */
	char *dcgm; /* gpu, UUID, device, modelName, Hostname, pci_bus_id (+ GPU_I_*) */
};

/* "nvidia:0/mig3.0" -> "mig3.0"; NULL for a device that is not a partition. */
static const char *partition_name(const struct axl_device *d)
{
	if (!axl_device_parent(d))
		return NULL;
	const char *slash = strrchr(axl_device_id(d), '/');
	return slash ? slash + 1 : axl_device_id(d);
}

static char *axl_labels(const struct axl_device *d)
{
	struct axl__sb sb = AXL__SB_INIT;
	const struct axl_device *parent = axl_device_parent(d);
	const struct axl_device *phys = parent ? parent : d;
	char numa[24];
	int64_t n;
	const char *numa_s = NULL;
	if (axl_device_get_int(phys, AXL_ATTR_NUMA_NODE, &n) == 0 && n >= 0) {
		snprintf(numa, sizeof numa, "%lld", (long long)n);
		numa_s = numa;
	}
	const char *model = dstr(d, AXL_ATTR_MODEL);
	if (!model && parent)
		model = dstr(parent, AXL_ATTR_MODEL);
	const char *pci = dstr(d, AXL_ATTR_PCI_ADDRESS);
	if (!pci && parent)
		pci = dstr(parent, AXL_ATTR_PCI_ADDRESS);
	const char *vendor = dstr(d, AXL_ATTR_VENDOR);
	if (!vendor && parent)
		vendor = dstr(parent, AXL_ATTR_VENDOR);
	put_label(&sb, "id", axl_device_id(d));
	put_label(&sb, "uuid", dstr(d, AXL_ATTR_UUID));
	put_label(&sb, "model", model);
	put_label(&sb, "pci", pci);
	put_label(&sb, "vendor", vendor);
	put_label(&sb, "numa", numa_s);
	if (parent) {
		put_label(&sb, "parent", axl_device_id(parent));
		put_label(&sb, "partition", partition_name(d));
		put_label(&sb, "profile", dstr(d, AXL_ATTR_PARTITION_PROFILE));
	}
	return axl__sb_steal(&sb, NULL);
}

/* dcgm-exporter's pci_bus_id form (the vendor library's bus id form): "00000000:3B:00.0". */
static void dcgm_bus_id(const char *pci, char *out, size_t cap)
{
	unsigned dom, bus, dev, fn;
	if (pci && sscanf(pci, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4)
		snprintf(out, cap, "%08X:%02X:%02X.%X", dom, bus, dev, fn);
	else
		snprintf(out, cap, "%s", pci ? pci : "");
}

static char *dcgm_labels(const struct axl_device *d, const char *hostname)
{
	struct axl__sb sb = AXL__SB_INIT;
	const struct axl_device *parent = axl_device_parent(d);
	const struct axl_device *phys = parent ? parent : d;
	char gpu[24] = "", devname[96], bus[48] = "";
	int64_t idx;
	if (axl_device_get_int(phys, AXL_ATTR_INDEX, &idx) == 0)
		snprintf(gpu, sizeof gpu, "%lld", (long long)idx);
	/* "nvidia:0" -> "nvidia0" (dcgm-exporter's device label), the physical device's */
	const char *pid = axl_device_id(phys);
	size_t o = 0;
	for (const char *p = pid; *p && o + 1 < sizeof devname; p++)
		if (*p != ':')
			devname[o++] = *p;
	devname[o] = '\0';
	dcgm_bus_id(dstr(phys, AXL_ATTR_PCI_ADDRESS), bus, sizeof bus);
	const char *model = dstr(phys, AXL_ATTR_MODEL);
	put_label(&sb, "gpu", gpu[0] ? gpu : NULL);
	put_label(&sb, "UUID", dstr(d, AXL_ATTR_UUID) ? dstr(d, AXL_ATTR_UUID) : dstr(phys, AXL_ATTR_UUID));
	put_label(&sb, "device", devname);
	put_label(&sb, "modelName", model);
	put_label(&sb, "Hostname", hostname);
	put_label(&sb, "pci_bus_id", bus[0] ? bus : NULL);
	if (parent) {
		char gi[24];
		int64_t g;
		const char *gi_s = NULL;
		if (axl_device_get_int(d, AXL_ATTR_PARTITION_GPU_INSTANCE, &g) == 0) {
			snprintf(gi, sizeof gi, "%lld", (long long)g);
			gi_s = gi;
		} else {
			gi_s = partition_name(d);
		}
		put_label(&sb, "GPU_I_PROFILE", dstr(d, AXL_ATTR_PARTITION_PROFILE));
		put_label(&sb, "GPU_I_ID", gi_s);
	}
	return axl__sb_steal(&sb, NULL);
}

/* ---- the axl families -------------------------------------------------------------- */

struct family {
	axl_metric m;
	const char *name;
	const char *type;
	double scale;
	const char *help;
};

static const struct family families[] = {
	{AXL_METRIC_UTILIZATION, "axl_utilization_ratio", "gauge", 0.01,
	 "Compute (graphics) engine busy, 0 to 1, over the interval between samples."},
	{AXL_METRIC_MEMORY_UTILIZATION, "axl_memory_utilization_ratio", "gauge", 0.01,
	 "Memory controller busy, 0 to 1."},
	{AXL_METRIC_ENCODER_UTILIZATION, "axl_encoder_utilization_ratio", "gauge", 0.01,
	 "Video encoder busy, 0 to 1."},
	{AXL_METRIC_DECODER_UTILIZATION, "axl_decoder_utilization_ratio", "gauge", 0.01,
	 "Video decoder busy, 0 to 1."},
	{AXL_METRIC_MEMORY_USED, "axl_memory_used_bytes", "gauge", 1, "Device memory in use, in bytes."},
	{AXL_METRIC_MEMORY_TOTAL, "axl_memory_total_bytes", "gauge", 1, "Device memory, in bytes."},
	{AXL_METRIC_POWER, "axl_power_watts", "gauge", 1, "Power draw, in watts."},
	{AXL_METRIC_POWER_LIMIT, "axl_power_limit_watts", "gauge", 1, "Power limit in force, in watts."},
	{AXL_METRIC_ENERGY, "axl_energy_joules_total", "counter", 1,
	 "Energy consumed since the driver loaded, in joules."},
	{AXL_METRIC_TEMPERATURE, "axl_temperature_celsius", "gauge", 1,
	 "Device (edge) temperature, in degrees Celsius."},
	{AXL_METRIC_TEMPERATURE_HOTSPOT, "axl_temperature_hotspot_celsius", "gauge", 1,
	 "Hotspot (junction) temperature, in degrees Celsius."},
	{AXL_METRIC_TEMPERATURE_MEMORY, "axl_temperature_memory_celsius", "gauge", 1,
	 "Memory temperature, in degrees Celsius."},
	{AXL_METRIC_SM_CLOCK, "axl_sm_clock_hertz", "gauge", 1e6, "SM (graphics, core) clock, in hertz."},
	{AXL_METRIC_MEMORY_CLOCK, "axl_memory_clock_hertz", "gauge", 1e6, "Memory clock, in hertz."},
	{AXL_METRIC_PCIE_RX, "axl_pcie_rx_bytes_per_second", "gauge", 1,
	 "PCIe bytes received by the device per second, over the interval."},
	{AXL_METRIC_PCIE_TX, "axl_pcie_tx_bytes_per_second", "gauge", 1,
	 "PCIe bytes sent by the device per second, over the interval."},
	{AXL_METRIC_ECC_CORRECTED, "axl_ecc_corrected_errors_total", "counter", 1,
	 "Corrected (single-bit) ECC errors since boot."},
	{AXL_METRIC_ECC_UNCORRECTED, "axl_ecc_uncorrected_errors_total", "counter", 1,
	 "Uncorrected (double-bit) ECC errors since boot."},
	{AXL_METRIC_FAN, "axl_fan_speed_ratio", "gauge", 0.01, "Fan speed, 0 to 1 of its maximum."},
};

static bool any_value(const struct axl_sample *smp, axl_metric m)
{
	for (size_t i = 0; i < smp->n; i++)
		if (smp->d[i].src[m])
			return true;
	return false;
}

static void write_axl(struct axl__sb *sb, const struct axl_sample *smp, const struct devlabels *lab)
{
	/* what each device is, and whether it could be read */
	put_family(sb, "axl_device_info", "gauge",
		   "Always 1: the device, with its driver and family as labels.");
	for (size_t i = 0; i < smp->n; i++) {
		const struct axl_device *d = smp->d[i].dev;
		const struct axl_device *phys = axl_device_parent(d) ? axl_device_parent(d) : d;
		struct axl__sb x = AXL__SB_INIT;
		put_label(&x, "driver", dstr(phys, AXL_ATTR_DRIVER));
		put_label(&x, "driver_version", dstr(phys, AXL_ATTR_DRIVER_VERSION));
		put_label(&x, "family", axl_family_name(axl_device_family(d)));
		put_label(&x, "architecture", dstr(d, AXL_ATTR_ARCHITECTURE) ? dstr(d, AXL_ATTR_ARCHITECTURE)
									    : dstr(phys, AXL_ATTR_ARCHITECTURE));
		put_series(sb, "axl_device_info", lab[i].axl, axl__sb_str(&x), 1);
		axl__sb_free(&x);
	}
	put_family(sb, "axl_device_up", "gauge",
		   "1 when the device was read in this sample (state ok), 0 when lost or nothing reads it.");
	for (size_t i = 0; i < smp->n; i++) {
		struct axl__sb x = AXL__SB_INIT;
		put_label(&x, "state", axl_sample_state_name((axl_sample_state)smp->d[i].state));
		put_series(sb, "axl_device_up", lab[i].axl, axl__sb_str(&x), smp->d[i].state == AXL_SAMPLE_OK);
		axl__sb_free(&x);
	}
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
		const struct family *fa = &families[f];
		if (!any_value(smp, fa->m))
			continue;
		put_family(sb, fa->name, fa->type, fa->help);
		for (size_t i = 0; i < smp->n; i++)
			if (smp->d[i].src[fa->m])
				put_series(sb, fa->name, lab[i].axl, NULL, smp->d[i].v[fa->m] * fa->scale);
	}
	if (any_value(smp, AXL_METRIC_THROTTLE_REASONS)) {
		put_family(sb, "axl_device_throttled", "gauge",
			   "1 when the device is slowed down for this reason now, else 0.");
		for (size_t i = 0; i < smp->n; i++) {
			if (!smp->d[i].src[AXL_METRIC_THROTTLE_REASONS])
				continue;
			unsigned bits = (unsigned)smp->d[i].v[AXL_METRIC_THROTTLE_REASONS];
			for (unsigned b = 0; b < 32; b++) {
				const char *rn = axl_throttle_name(1u << b);
				if (!rn)
					continue;
				char extra[64];
				snprintf(extra, sizeof extra, "reason=\"%s\"", rn);
				put_series(sb, "axl_device_throttled", lab[i].axl, extra, (bits >> b) & 1u);
			}
		}
	}
}

/* ---- processes ----------------------------------------------------------------------- */

static void process_labels(struct axl__sb *x, const struct axl_process *p)
{
	char pid[24];
	snprintf(pid, sizeof pid, "%d", p->pid);
	put_label(x, "device", p->device);
	put_label(x, "pid", pid);
	put_label(x, "name", p->name);
	put_label(x, "type", p->type);
	put_label(x, "container_id", p->container_id);
}

static void write_processes(struct axl__sb *sb, const struct axl_sample *smp)
{
	static const struct {
		const char *name, *help;
		double scale;
		int which;
	} pf[] = {
		{"axl_process_memory_used_bytes", "Device memory a process holds, in bytes.", 1, 0},
		{"axl_process_utilization_ratio", "A process's share of the device's compute, 0 to 1.", 0.01, 1},
		{"axl_process_encoder_utilization_ratio", "A process's share of the video encoder, 0 to 1.", 0.01, 2},
		{"axl_process_decoder_utilization_ratio", "A process's share of the video decoder, 0 to 1.", 0.01, 3},
	};
	for (size_t f = 0; f < sizeof pf / sizeof pf[0]; f++) {
		bool head = false;
		for (size_t k = 0; k < smp->procs.n; k++) {
			const struct axl_process *p = &smp->procs.v[k];
			double v = pf[f].which == 0   ? (double)p->memory_used_bytes
				   : pf[f].which == 1 ? p->utilization_percent
				   : pf[f].which == 2 ? p->encoder_utilization_percent
						      : p->decoder_utilization_percent;
			if (v < 0 || !isfinite(v))
				continue;
			/* the same pid on the same device twice (two sources) would be a duplicate
			 * series: keep the first */
			bool dup = false;
			for (size_t j = 0; j < k && !dup; j++) {
				const struct axl_process *q = &smp->procs.v[j];
				double w = pf[f].which == 0   ? (double)q->memory_used_bytes
					   : pf[f].which == 1 ? q->utilization_percent
					   : pf[f].which == 2 ? q->encoder_utilization_percent
							      : q->decoder_utilization_percent;
				dup = w >= 0 && q->pid == p->pid && q->device && p->device &&
				      !strcmp(q->device, p->device);
			}
			if (dup)
				continue;
			if (!head) {
				put_family(sb, pf[f].name, "gauge", pf[f].help);
				head = true;
			}
			struct axl__sb x = AXL__SB_INIT;
			process_labels(&x, p);
			put_series(sb, pf[f].name, axl__sb_str(&x), NULL, v * pf[f].scale);
			axl__sb_free(&x);
		}
	}
}

/* ---- the DCGM-exporter families -------------------------------------------------------- */

static bool dcgm_value(const struct axl__sdev *d, const struct axl__dcgm_family *f, double *v)
{
	switch (f->how) {
	case AXL__DCGM_FB_FREE:
		if (!d->src[AXL_METRIC_MEMORY_TOTAL] || !d->src[AXL_METRIC_MEMORY_USED])
			return false;
		*v = floor(fmax(0, d->v[AXL_METRIC_MEMORY_TOTAL] - d->v[AXL_METRIC_MEMORY_USED]) * f->scale);
		return true;
	case AXL__DCGM_THROTTLE:
		if (!d->src[f->m])
			return false;
		*v = (double)((unsigned)d->v[f->m] & AXL__DCGM_THROTTLE_MASK);
		return true;
	default:
		if (!d->src[f->m])
			return false;
		*v = d->v[f->m] * f->scale;
		/* MiB and KB/s as whole numbers, as DCGM reports them */
		if (f->scale < 1)
			*v = floor(*v);
		return true;
	}
}

static void write_dcgm(struct axl__sb *sb, const struct axl_sample *smp, const struct devlabels *lab)
{
	const struct axl__dcgm_family *dcgm = axl__dcgm_families;
	for (size_t f = 0; f < axl__dcgm_family_count; f++) {
		bool head = false;
		for (size_t i = 0; i < smp->n; i++) {
			double v;
			if (!dcgm_value(&smp->d[i], &dcgm[f], &v))
				continue;
			if (!head) {
				put_family(sb, dcgm[f].name, dcgm[f].type, dcgm[f].help);
				head = true;
			}
			put_series(sb, dcgm[f].name, lab[i].dcgm, NULL, v);
		}
	}
}

/* ---- limited workloads ------------------------------------------------------------ */

static void write_workloads(struct axl__sb *sb, const struct axl_sample *smp)
{
	static const struct {
		const char *name, *help;
		int which;
	} wf[] = {
		{"axl_workload_memory_used_bytes", "Device memory a limited workload's live processes hold, in bytes.",
		 0},
		{"axl_workload_memory_limit_bytes", "A limited workload's device memory limit, in bytes.", 1},
		{"axl_workload_compute_limit_ratio", "A limited workload's compute limit, 0 to 1 of the device.", 2},
		{"axl_workload_compute_used_ratio",
		 "A limited workload's measured share of the device's compute, 0 to 1.", 3},
		{"axl_workload_processes", "Live processes attached to a limited workload's region.", 4},
	};
	for (size_t f = 0; f < sizeof wf / sizeof *wf; f++) {
		bool head = false;
		for (size_t k = 0; k < smp->workloads.n; k++) {
			const struct axl_workload *w = &smp->workloads.v[k];
			double v;
			switch (wf[f].which) {
			case 0: v = (double)w->memory_used_bytes; break;
			case 1: v = (double)w->memory_limit_bytes; break;
			case 2: v = w->compute_limit_percent < 0 ? -1 : w->compute_limit_percent / 100.0; break;
			case 3: v = w->compute_used_percent < 0 ? -1 : w->compute_used_percent / 100.0; break;
			default: v = w->processes; break;
			}
			if (v < 0)
				continue;
			if (!head) {
				put_family(sb, wf[f].name, "gauge", wf[f].help);
				head = true;
			}
			struct axl__sb x = AXL__SB_INIT;
			put_label(&x, "region", w->region);
			put_label(&x, "uuid", w->uuid);
			put_label(&x, "device", w->device);
			put_series(sb, wf[f].name, axl__sb_str(&x), NULL, v);
			axl__sb_free(&x);
		}
	}
}

int axl_sample_prometheus(const axl_sample *smp, unsigned flags, char **out, size_t *len)
{
	if (!smp || !out)
		return AXL_EINVAL;
	struct devlabels *lab = calloc(smp->n ? smp->n : 1, sizeof *lab);
	if (!lab)
		return axl__error(AXL_ENOMEM, "out of memory");
	const char *hostname = NULL;
	if (flags & AXL_METRICS_DCGM)
		axl_host_get_str(axl_inventory_host(smp->inv), AXL_HOST_HOSTNAME, &hostname);
	bool oom = false;
	for (size_t i = 0; i < smp->n && !oom; i++) {
		lab[i].axl = axl_labels(smp->d[i].dev);
		if (flags & AXL_METRICS_DCGM)
			lab[i].dcgm = dcgm_labels(smp->d[i].dev, hostname);
		oom = !lab[i].axl || ((flags & AXL_METRICS_DCGM) && !lab[i].dcgm);
	}
	struct axl__sb sb = AXL__SB_INIT;
	if (!oom) {
		axl__sb_reserve(&sb, 1024 + smp->n * 4096);
		write_axl(&sb, smp, lab);
		if (smp->procs.n)
			write_processes(&sb, smp);
		if (smp->workloads.n)
			write_workloads(&sb, smp);
		if (flags & AXL_METRICS_DCGM)
			write_dcgm(&sb, smp, lab);
		put_family(&sb, "axl_sample_duration_seconds", "gauge",
			   "How long taking this sample took, in seconds.");
		axl__sb_printf(&sb, "axl_sample_duration_seconds %.9f\n", smp->cost_us / 1e6);
	}
	for (size_t i = 0; i < smp->n; i++) {
		free(lab[i].axl);
		free(lab[i].dcgm);
	}
	free(lab);
	char *s = oom ? NULL : axl__sb_steal(&sb, len);
	if (!s) {
		axl__sb_free(&sb);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	*out = s;
	return 0;
}
