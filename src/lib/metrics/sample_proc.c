/* SPDX-License-Identifier: MIT */
/*
 * Processes from the kernel's DRM client statistics (fdinfo.h): one row per process and
 * device, with the memory it holds and its utilisation over the sampler's interval
 * (two sweeps). A device no backend gave a utilisation gets the sum of its clients'.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "sample.h"

/* The sampler's device a client's key names: a PCI address (drm-pdev) or a node name. */
static size_t find_dev(const struct axl_sampler *s, const char *key)
{
	size_t klen = strlen(key);
	for (size_t i = 0; i < s->n; i++) {
		const struct axl_device *d = s->devs[i];
		if (d->parent)
			continue;
		const char *pci = d->attr[AXL_ATTR_PCI_ADDRESS].src ? d->attr[AXL_ATTR_PCI_ADDRESS].v.s : NULL;
		if (pci && strcmp(pci, key) == 0)
			return i;
		for (size_t k = 0; k < d->nodes.n; k++) {
			const char *n = d->nodes.v[k];
			size_t nl = strlen(n);
			if (nl > klen && n[nl - klen - 1] == '/' && strcmp(n + nl - klen, key) == 0)
				return i;
		}
	}
	return SIZE_MAX;
}

enum eng_kind { ENG_COMPUTE, ENG_DECODE, ENG_ENCODE, ENG_OTHER };

/* What an engine name says it does (amdgpu, i915, xe, msm, panfrost, v3d, accel). */
static enum eng_kind engine_kind(const char *e)
{
	static const char *const other[] = {"copy", "bcs", "sdma", "dma", "cpu", "csd-dma"};
	static const char *const dec[] = {"dec", "video", "vcs", "jpeg", "vcn", "uvd"};
	static const char *const enc[] = {"enc", "vecs", "video-enhance", "vce"};
	for (size_t i = 0; i < sizeof enc / sizeof *enc; i++)
		if (strncmp(e, enc[i], strlen(enc[i])) == 0)
			return ENG_ENCODE;
	for (size_t i = 0; i < sizeof dec / sizeof *dec; i++)
		if (strncmp(e, dec[i], strlen(dec[i])) == 0)
			return ENG_DECODE;
	for (size_t i = 0; i < sizeof other / sizeof *other; i++)
		if (strncmp(e, other[i], strlen(other[i])) == 0)
			return ENG_OTHER;
	return ENG_COMPUTE;
}

/* Device memory a process holds through its clients on dev: resident bytes (or what the
 * driver prints instead) of the device-local regions (vram, local, lmem), or of every
 * region when the device has none (integrated GPUs, NPUs: their memory is the host's). */
static bool proc_memory(const struct axl__fdi_sweep *sw, const struct axl__fdi_proc *p, const char *dev,
			uint64_t *bytes)
{
	bool local_seen = false, any = false;
	uint64_t local = 0, all = 0;
	for (unsigned c = p->first; c < p->first + p->n; c++) {
		const struct axl__fdi_client *cl = &sw->clients[c];
		if (strcmp(axl__fdi_dev(cl), dev) != 0)
			continue;
		for (unsigned r = 0; r < cl->info.n_regions; r++) {
			const struct axl__fdi_region *rg = &cl->info.regions[r];
			uint64_t b;
			if (rg->have & (1u << AXL__FDI_MEM_RESIDENT))
				b = rg->bytes[AXL__FDI_MEM_RESIDENT];
			else if (rg->have & (1u << AXL__FDI_MEM_LEGACY))
				b = rg->bytes[AXL__FDI_MEM_LEGACY];
			else if (rg->have & (1u << AXL__FDI_MEM_TOTAL))
				b = rg->bytes[AXL__FDI_MEM_TOTAL];
			else
				continue;
			any = true;
			all += b;
			if (!strncmp(rg->name, "vram", 4) || !strncmp(rg->name, "local", 5) ||
			    !strncmp(rg->name, "lmem", 4)) {
				local_seen = true;
				local += b;
			}
		}
	}
	if (!any)
		return false;
	*bytes = local_seen ? local : all;
	return true;
}

/* The busiest engine of each kind, over the clients of pid on dev. A kind with an engine
 * whose difference is not known (a counter went backwards, an engine that just appeared)
 * is not known as a whole: the busiest one might be the one missing. */
static void proc_util(const struct axl__fdi_sweep *prev, const struct axl__fdi_sweep *cur,
		      const struct axl__fdi_proc *p, const char *dev, double out[3], bool have[3])
{
	char seen[AXL__FDI_MAX_ENGINES * 2][AXL__FDI_NAME];
	unsigned nseen = 0;
	bool bad[3] = {false, false, false};
	for (unsigned c = p->first; c < p->first + p->n; c++) {
		const struct axl__fdi_client *cl = &cur->clients[c];
		if (strcmp(axl__fdi_dev(cl), dev) != 0)
			continue;
		for (unsigned e = 0; e < cl->info.n_engines; e++) {
			const char *name = cl->info.engines[e].name;
			bool dup = false;
			for (unsigned k = 0; k < nseen && !dup; k++)
				dup = strcmp(seen[k], name) == 0;
			if (dup)
				continue;
			if (nseen < sizeof seen / sizeof *seen)
				memcpy(seen[nseen++], name, AXL__FDI_NAME);
			enum eng_kind k = engine_kind(name);
			if (k == ENG_OTHER)
				continue;
			struct axl__fdi_util u;
			bool partial;
			axl__fdinfo_proc_util(prev, cur, p->pid, dev, name, &u, &partial);
			if (!u.valid || partial) {
				bad[k] = true;
				continue;
			}
			double pct = u.busy_pct / (u.capacity ? u.capacity : 1);
			if (pct > 100)
				pct = 100;
			if (pct < 0)
				pct = 0;
			if (!have[k] || pct > out[k])
				out[k] = pct;
			have[k] = true;
		}
	}
	for (int k = 0; k < 3; k++)
		if (bad[k])
			have[k] = false;
}

void axl__sample_processes(struct axl_sampler *s, struct axl_sample *smp)
{
	struct axl__fdi_sweep cur;
	if (axl__fdinfo_sweep(s->fs, &cur) != 0)
		return;
	const struct axl__fdi_sweep *prev = s->have_fdi_prev ? &s->fdi_prev : NULL;
	double *dev_util = calloc(s->n ? s->n : 1, sizeof *dev_util);
	bool *dev_have = calloc(s->n ? s->n : 1, sizeof *dev_have);
	for (size_t pi = 0; pi < cur.n_procs; pi++) {
		const struct axl__fdi_proc *p = &cur.procs[pi];
		/* each device this process has clients on, once */
		for (unsigned c = p->first; c < p->first + p->n; c++) {
			const char *key = axl__fdi_dev(&cur.clients[c]);
			bool done = false;
			for (unsigned k = p->first; k < c && !done; k++)
				done = strcmp(axl__fdi_dev(&cur.clients[k]), key) == 0;
			if (done)
				continue;
			size_t di = find_dev(s, key);
			if (di == SIZE_MAX || smp->d[di].state == AXL_SAMPLE_LOST)
				continue;
			struct axl_process *row =
			    axl__sproc_add(smp, p->pid, axl_device_id(s->devs[di]), p->comm, "drm", AXL_SOURCE_PROCFS);
			if (!row)
				continue;
			row->cgroup = axl__sstr(smp, p->cgroup);
			row->container_id = axl__sstr(smp, p->container);
			uint64_t b;
			if (proc_memory(&cur, p, key, &b))
				row->memory_used_bytes = (int64_t)b;
			if (prev) {
				double u[3] = {0, 0, 0};
				bool h[3] = {false, false, false};
				proc_util(prev, &cur, p, key, u, h);
				if (h[ENG_COMPUTE]) {
					row->utilization_percent = u[ENG_COMPUTE];
					if (dev_util && dev_have) {
						dev_util[di] += u[ENG_COMPUTE];
						dev_have[di] = true;
					}
				}
				if (h[ENG_DECODE])
					row->decoder_utilization_percent = u[ENG_DECODE];
				if (h[ENG_ENCODE])
					row->encoder_utilization_percent = u[ENG_ENCODE];
			}
		}
	}
	/* a device whose driver publishes no busy figure: the sum of its clients' */
	if (dev_util && dev_have && prev)
		for (size_t i = 0; i < s->n; i++)
			if (dev_have[i] && !smp->d[i].src[AXL_METRIC_UTILIZATION])
				axl__sput(smp, i, AXL_METRIC_UTILIZATION, dev_util[i] > 100 ? 100 : dev_util[i],
					  AXL_SOURCE_DERIVED);
	free(dev_util);
	free(dev_have);
	if (s->have_fdi_prev)
		axl__fdinfo_sweep_free(&s->fdi_prev);
	s->fdi_prev = cur;
	s->have_fdi_prev = true;
}
