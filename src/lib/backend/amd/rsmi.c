/* SPDX-License-Identifier: MIT */
/*
 * AMD GPUs through ROCm SMI (librocm_smi64.so.N, loaded with dlopen): what the amdgpu
 * backend could not read from sysfs, and links between GPUs the KFD topology did not
 * show. ROCm SMI reads the same sysfs files as the amdgpu backend (and the KFD
 * topology, pci.ids, the FRU), so on a complete tree it mostly confirms; it matters
 * where sysfs is partial (a container with only /dev, a capture of ROCm SMI's answers).
 * Everything the sysfs backends found stays: ROCm SMI only fills what is unknown
 * (rsmi_apply.c says which values and why).
 *
 * Loaded only when the amdgpu driver is there (/sys/module/amdgpu) or a library was
 * named ($AXL_ROCM_SMI_LIBRARY); rsmi_init once per process, never shut down. The calls
 * run in a worker thread started before the PCI scan, so the library's start-up overlaps
 * it; discovery waits for the worker at most vendor_timeout_ms. A worker that does not
 * come back is abandoned (never killed: it may hold ROCm SMI's locks), the library is
 * not used again by this process, and a warning says so.
 *
 * Replay: a re-rooted tree that holds axl-capture/rocm-smi.jsonl (written by axl
 * capture) is answered from those records through the same code; a re-rooted tree
 * never calls this machine's ROCm SMI unless $AXL_ROCM_SMI_LIBRARY names one (the test
 * suite's ROCm SMI double).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "rsmi_job.h"
#include "vlib.h"

#define SRC "rocm-smi"

static void job_fini(void *arg)
{
	struct rs_job *j = arg;
	free(j->asleep);
	free(j->no_hwmon);
	for (int c = 0; c < RS_CLK__N; c++)
		free(j->bad_dpm[c]);
	free(j->devs);
	free(j->pairs);
}

#define jwarn(j, ...) axl__vwarn_add(&(j)->q.w.warn, __VA_ARGS__)

/* Is r worth a warning? What the GPU, the kernel or this library version does not
 * have is silent (ROCm SMI answers FILE_ERROR for a sysfs file the kernel lacks). */
static bool notable(rsmi_status_t r)
{
	switch ((unsigned)r) { /* axl's AXL_RSMI_NO_FUNCTION is no ROCm SMI status */
	case RSMI_STATUS_SUCCESS:
	case RSMI_STATUS_NOT_SUPPORTED:
	case RSMI_STATUS_NOT_YET_IMPLEMENTED:
	case RSMI_STATUS_FILE_ERROR:
	case RSMI_STATUS_NO_DATA:
	case RSMI_STATUS_NOT_FOUND:
	case RSMI_STATUS_INVALID_ARGS:
	case RSMI_STATUS_SETTING_UNAVAILABLE:
	case AXL_RSMI_NO_FUNCTION: return false;
	default: return true;
	}
}

/* Note a failed call on device i (a pair: its first device). */
static void check(struct rs_job *j, unsigned i, const char *f, rsmi_status_t r)
{
	if (notable(r))
		jwarn(j, "GPU %u: %s: %s (%d)", i, f, axl__rsmi_strerror(r), r);
}

/* ---- the worker: every ROCm SMI call ------------------------------------------------------ */

/* Is ROCm SMI's BDF id one of these PCI addresses? */
static bool listed(char (*list)[16], size_t n, uint64_t bdf)
{
	if (!n)
		return false;
	char addr[32];
	snprintf(addr, sizeof addr, "%04x:%02x:%02x.%u", (unsigned)(bdf >> 32), (unsigned)(bdf >> 8) & 0xff,
		 (unsigned)(bdf >> 3) & 0x1f, (unsigned)bdf & 7);
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], addr) == 0)
			return true;
	return false;
}

static void collect_dev(struct rs_job *j, unsigned i)
{
	struct axl__rsq *q = &j->q;
	struct rs_dev *d = &j->devs[i];
	rsmi_status_t r = axl__rsq_u64(q, RSQ_PCI_ID, i, &d->bdf);
	d->has_bdf = r == RSMI_STATUS_SUCCESS;
	check(j, i, "rsmi_dev_pci_id_get", r);
	if (!d->has_bdf)
		return; /* nothing to tie its answers to */
	r = axl__rsq_u64(q, RSQ_UNIQUE_ID, i, &d->unique_id);
	d->has_unique_id = r == RSMI_STATUS_SUCCESS;
	check(j, i, "rsmi_dev_unique_id_get", r);
	d->partition = ((d->bdf >> 28) & 0xf) != 0;
	if (d->partition)
		return; /* the GPU's own index answers for it (the KFD shows the partitions) */

	static const char *const u16n[RSQ_U16__N] = {"rsmi_dev_id_get", "rsmi_dev_vendor_id_get",
						      "rsmi_dev_revision_get"};
	for (int k = 0; k < RSQ_U16__N; k++) {
		r = axl__rsq_u16(q, (enum axl__rsq_u16)k, i, &d->u16[k]);
		d->has_u16[k] = r == RSMI_STATUS_SUCCESS;
		check(j, i, u16n[k], r);
	}
	static const char *const strn[RSQ_STR__N] = {
		"rsmi_dev_name_get",          "rsmi_dev_brand_get",          "rsmi_dev_serial_number_get",
		"rsmi_dev_vbios_version_get", "rsmi_dev_compute_partition_get", "rsmi_dev_memory_partition_get"};
	for (int k = 0; k < RSQ_STR__N; k++) {
		if (k == RSQ_BRAND && d->has_str[RSQ_NAME])
			continue; /* the brand only names a GPU whose name is unknown */
		r = axl__rsq_str(q, (enum axl__rsq_str)k, i, d->str[k], sizeof d->str[k]);
		d->has_str[k] = r == RSMI_STATUS_SUCCESS && d->str[k][0];
		check(j, i, strn[k], r);
	}
	static const unsigned mtype[RS_MEM__N] = {RSMI_MEM_TYPE_VRAM, RSMI_MEM_TYPE_VIS_VRAM, RSMI_MEM_TYPE_GTT};
	for (int m = 0; m < RS_MEM__N; m++) {
		r = axl__rsq_u64a(q, RSQ_MEMORY_TOTAL, i, mtype[m], &d->mem_total[m]);
		d->has_mem_total[m] = r == RSMI_STATUS_SUCCESS;
		check(j, i, "rsmi_dev_memory_total_get", r);
		r = axl__rsq_u64a(q, RSQ_MEMORY_USAGE, i, mtype[m], &d->mem_used[m]);
		d->has_mem_used[m] = r == RSMI_STATUS_SUCCESS;
		check(j, i, "rsmi_dev_memory_usage_get", r);
	}
	r = axl__rsq_numa(q, i, &d->numa);
	d->has_numa = r == RSMI_STATUS_SUCCESS;
	check(j, i, "rsmi_topo_get_numa_node_number", r);

	/* power and clocks go through the power-management firmware: never on a GPU that
	 * runtime PM has put to sleep (as the amdgpu backend, amdgpu.c) */
	d->asleep = listed(j->asleep, j->nasleep, d->bdf);
	if (d->asleep)
		return;
	/* the power caps are hwmon files (power1_cap*), which ROCm SMI reads through the
	 * hwmon directory it found at rsmi_init. A GPU without one (amdgpu registers no hwmon
	 * while DPM is off: amdgpu_pm_sysfs_init) has none, and ROCm SMI 5 asks anyway:
	 * get_dev_mon_value() asserts dev->monitor() != nullptr (rocm_smi.cc, rocm-5.2.3),
	 * which aborts this process. Not asked there: nothing is lost, there is no cap. */
	d->no_hwmon = listed(j->no_hwmon, j->nno_hwmon, d->bdf);
	if (!d->no_hwmon) {
		r = axl__rsq_u64a(q, RSQ_POWER_CAP, i, 0, &d->cap);
		d->has_cap = r == RSMI_STATUS_SUCCESS;
		check(j, i, "rsmi_dev_power_cap_get", r);
		r = axl__rsq_u64(q, RSQ_POWER_CAP_DEFAULT, i, &d->cap_default);
		d->has_cap_default = r == RSMI_STATUS_SUCCESS;
		check(j, i, "rsmi_dev_power_cap_default_get", r);
		r = axl__rsq_power_range(q, i, &d->cap_max, &d->cap_min);
		d->has_cap_range = r == RSMI_STATUS_SUCCESS;
		check(j, i, "rsmi_dev_power_cap_range_get", r);
	}
	static const unsigned clk[RS_CLK__N] = {RSMI_CLK_TYPE_SYS, RSMI_CLK_TYPE_MEM};
	for (int c = 0; c < RS_CLK__N; c++) {
		/* a clock table ROCm SMI 5 cannot parse is not asked for: see dpm_parses() */
		if (listed(j->bad_dpm[c], j->nbad_dpm[c], d->bdf))
			continue;
		r = axl__rsq_freq(q, i, clk[c], &d->clk[c]);
		d->has_clk[c] = r == RSMI_STATUS_SUCCESS;
		/* a power-gated clock domain has no current level: the library says
		 * UNEXPECTED_DATA on an idle GPU; that is no fault */
		if (r != RSMI_STATUS_UNEXPECTED_DATA)
			check(j, i, "rsmi_dev_gpu_clk_freq_get", r);
	}
}

static void collect_pairs(struct rs_job *j)
{
	struct axl__rsq *q = &j->q;
	unsigned gpu[RS_MAX_PAIR_GPUS], n = 0;
	for (unsigned i = 0; i < j->ndevs; i++) {
		if (!j->devs[i].has_bdf || j->devs[i].partition)
			continue;
		if (n == RS_MAX_PAIR_GPUS) {
			jwarn(j, "more than %d GPUs: links between the others not asked", RS_MAX_PAIR_GPUS);
			break;
		}
		gpu[n++] = i;
	}
	if (n < 2)
		return;
	j->pairs = calloc((size_t)n * (n - 1) / 2, sizeof *j->pairs);
	if (!j->pairs)
		return;
	for (unsigned x = 0; x < n; x++) {
		for (unsigned y = x + 1; y < n; y++) {
			unsigned a = gpu[x], b = gpu[y];
			struct rs_pair *p = &j->pairs[j->npairs++];
			p->a = a;
			p->b = b;
			rsmi_status_t r = axl__rsq_link_type(q, a, b, &p->hops, &p->type);
			p->has_type = r == RSMI_STATUS_SUCCESS;
			check(j, a, "rsmi_topo_get_link_type", r);
			if (p->has_type && p->type == RSMI_IOLINK_TYPE_XGMI) {
				/* only between XGMI neighbours (one hop) */
				r = axl__rsq_bandwidth(q, a, b, &p->bw_min, &p->bw_max);
				p->has_bw = r == RSMI_STATUS_SUCCESS;
				check(j, a, "rsmi_minmax_bandwidth_get", r);
			}
			r = axl__rsq_p2p(q, a, b, &p->p2p);
			p->has_p2p = r == RSMI_STATUS_SUCCESS;
			check(j, a, "rsmi_is_P2P_accessible", r);
		}
	}
}

static void collect(void *arg)
{
	struct rs_job *j = arg;
	struct axl__rsq *q = &j->q;
	j->init_rc = axl__rsq_init(q);
	if (j->init_rc != RSMI_STATUS_SUCCESS)
		goto out;
	j->has_version = axl__rsq_version(q, &j->major, &j->minor, &j->patch) == RSMI_STATUS_SUCCESS;
	rsmi_status_t r = axl__rsq_driver(q, j->driver, sizeof j->driver);
	j->has_driver = r == RSMI_STATUS_SUCCESS && j->driver[0];
	unsigned count = 0;
	r = axl__rsq_count(q, &count);
	if (r != RSMI_STATUS_SUCCESS) {
		jwarn(j, "rsmi_num_monitor_devices: %s (%d)", axl__rsmi_strerror(r), r);
		goto out;
	}
	if (count > RS_MAX_DEVICES) {
		jwarn(j, "rsmi_num_monitor_devices says %u devices; looking at the first %d", count, RS_MAX_DEVICES);
		count = RS_MAX_DEVICES;
	}
	j->devs = calloc(count ? count : 1, sizeof *j->devs);
	if (!j->devs)
		goto out;
	j->ndevs = count;
	for (unsigned i = 0; i < count; i++)
		collect_dev(j, i);
	collect_pairs(j);
out:;
}

/* ---- the backend hooks ------------------------------------------------------------------ */

/* Append a PCI address to a list of them; false when out of memory. */
static bool add_addr(char (**list)[16], size_t *n, unsigned dom, unsigned bus, unsigned dev, unsigned fn)
{
	char(*grown)[16] = realloc(*list, (*n + 1) * sizeof **list);
	if (!grown)
		return false;
	*list = grown;
	snprintf((*list)[(*n)++], sizeof **list, "%04x:%02x:%02x.%u", dom & 0xffff, bus & 0xff, dev & 0x1f, fn & 7);
	return true;
}

/* Has this amdgpu function a hwmon directory ROCm SMI takes for its own? As ROCm SMI
 * looks for it (rocm_smi_main.cc, FindMonitor): a <dev>/hwmon/<entry> whose name's first
 * word is amdgpu or radeon. */
static bool has_hwmon(const struct axl__fs *fs, const char *bdf)
{
	char path[128];
	snprintf(path, sizeof path, "/sys/bus/pci/drivers/amdgpu/%s/hwmon", bdf);
	axl__dir *d = axl__fs_opendir(fs, AXL__FS_ROOT, path);
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	while (!found && (e = axl__fs_readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strlen(e->d_name) > 32)
			continue;
		char name[192], buf[32];
		snprintf(name, sizeof name, "%s/%s/name", path, e->d_name);
		long n = axl__fs_read(fs, AXL__FS_ROOT, name, buf, sizeof buf - 1);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		size_t w = strcspn(buf, " \t\n");
		found = (w == 6 && strncmp(buf, "amdgpu", 6) == 0) || (w == 6 && strncmp(buf, "radeon", 6) == 0);
	}
	axl__fs_closedir(d);
	return found;
}

/* Would ROCm SMI 5 parse this clock table (pp_dpm_sclk, pp_dpm_mclk) without aborting?
 * It reads every line as "<int index> <token> <float freq><unit> ..." with an
 * istringstream and takes the unit's first letter; a letter it does not know asserts and
 * aborts the process that called it (get_multiplier_from_str, freq_string_to_int:
 * rocm_smi.cc, rocm-5.2.3). A line that does not start with an index (the deep-sleep
 * level "S: 19Mhz *" some SMU 13 parts print, or anything but the table) leaves the unit
 * empty: the same abort. An absent or unreadable file is fine: the library returns an
 * error. */
static bool dpm_parses(const struct axl__fs *fs, const char *bdf, const char *file)
{
	char path[128], buf[2048];
	snprintf(path, sizeof path, "/sys/bus/pci/drivers/amdgpu/%s/%s", bdf, file);
	long n = axl__fs_read(fs, AXL__FS_ROOT, path, buf, sizeof buf - 1);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			continue; /* the library skips nothing, but the kernel writes no blank line */
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
		/* the token after the index (the colon), then the frequency, then the unit */
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return false;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		while (*p == ' ' || *p == '\t')
			p++;
		char *end;
		(void)strtod(p, &end);
		if (end == p)
			return false;
		p = end;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || !strchr("GMKVTHm", *p))
			return false;
	}
	return true;
}

/* PCI functions bound to amdgpu whose runtime PM state is "suspended", those without an
 * amdgpu hwmon directory and those whose clock tables ROCm SMI 5 cannot parse (live
 * only). */
static void find_asleep(struct axl__scan *scan, const struct axl__backend *self, void *arg)
{
	struct rs_job *j = arg;
	(void)self;
	if (j->q.w.q.v.mode != AXL__VREC_LIVE)
		return; /* replaying: the capture's node was not this one */
	axl__dir *d = axl__fs_opendir(scan->fs, AXL__FS_ROOT, "/sys/bus/pci/drivers/amdgpu");
	if (!d)
		return;
	struct dirent *e;
	while ((e = axl__fs_readdir(d)) != NULL) {
		unsigned dom, bus, dev, fn;
		char tail;
		if (strlen(e->d_name) > 15 || sscanf(e->d_name, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4)
			continue;
		char path[96], buf[32];
		snprintf(path, sizeof path, "/sys/bus/pci/drivers/amdgpu/%s/power/runtime_status", e->d_name);
		long n = axl__fs_read(scan->fs, AXL__FS_ROOT, path, buf, sizeof buf);
		if (n > 0 && strncmp(buf, "suspended", 9) == 0 && !add_addr(&j->asleep, &j->nasleep, dom, bus, dev, fn))
			break;
		if (!has_hwmon(scan->fs, e->d_name) && !add_addr(&j->no_hwmon, &j->nno_hwmon, dom, bus, dev, fn))
			break;
		static const char *const dpm[RS_CLK__N] = {"pp_dpm_sclk", "pp_dpm_mclk"};
		bool full = false;
		for (int c = 0; c < RS_CLK__N && !full; c++)
			if (!dpm_parses(scan->fs, e->d_name, dpm[c]))
				full = !add_addr(&j->bad_dpm[c], &j->nbad_dpm[c], dom, bus, dev, fn);
		if (full)
			break;
	}
	axl__fs_closedir(d);
}

static bool ready(struct axl__scan *scan, void *arg, size_t *n)
{
	struct rs_job *j = arg;
	if (j->init_rc != RSMI_STATUS_SUCCESS) {
		axl__warn(scan->inv, SRC, NULL, "rsmi_init: %s (%d)", axl__rsmi_strerror(j->init_rc), j->init_rc);
		return false;
	}
	*n = j->ndevs;
	return true;
}

static void rs_apply(struct axl__scan *scan, void *j, struct axl_device **dev)
{
	axl__rsmi_apply(scan, j, dev);
}

static void rs_link(struct axl__scan *scan, void *j, struct axl_device **dev)
{
	axl__rsmi_link(scan, j, dev);
}

static bool amdgpu_here(const struct axl__fs *fs)
{
	return axl__fs_exists(fs, AXL__FS_ROOT, "/sys/module/amdgpu");
}

/* ROCm SMI is not part of the driver: a node without ROCm is normal, and silent; a
 * library that is there but unusable, or the one that was asked for, is not */
static const struct axl__vdrv rsmi = {
	.name = SRC,
	.display = "ROCm SMI",
	.devices = "AMD GPUs",
	.timing = "rocm-smi.calls",
	.lib = &axl__rsmi_library,
	.quiet = AXL__VDRV_WARN_THERE,
	.missing = RSMI_STATUS_NOT_SUPPORTED,
	.job_size = sizeof(struct rs_job),
	.present = amdgpu_here,
	.prepare = find_asleep,
	.collect = collect,
	.fini = job_fini,
	.ready = ready,
	.apply = rs_apply,
	.link = rs_link,
};
AXL__VDRV_HOOKS(rsmi, rsmi)

static const struct axl__library_ops rocm_smi_libs = {
	.env = "AXL_ROCM_SMI_LIBRARY",
};

const struct axl__backend axl__backend_rocm_smi = {
	.name = "rocm-smi",
	.discover = &rsmi_discover,
	.libs = &rocm_smi_libs,
};
