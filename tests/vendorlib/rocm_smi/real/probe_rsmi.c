/* SPDX-License-Identifier: MIT */
/*
 * The witness: a vendor's own ROCm SMI library (Debian's librocm_smi64.so.1, ROCm SMI 5.2.3),
 * asked what axl reads, through the vendor's own header (librocm-smi-dev's
 * rocm_smi/rocm_smi.h): the prototypes and types below are the header's, not axl's
 * (every function pointer is __typeof__ the header's declaration).
 *
 *   probe_rsmi LIBRARY [--init-only]
 *
 * One JSON object a line on stdout, written and flushed after each call, so that a
 * library that aborts (ROCm SMI 5 asserts in places) leaves the answers before it:
 *   {"f":"rsmi_init","rc":0}
 *   {"f":"rsmi_num_monitor_devices","rc":0,"v":4}
 *   {"f":"rsmi_dev_pci_id_get","d":0,"rc":0,"v":768}
 *   {"f":"rsmi_dev_gpu_clk_freq_get","d":0,"a":0,"rc":0,"n":2,"cur":0,"v":500000000}
 * "v" is there only when rc is RSMI_STATUS_SUCCESS (for a clock: the current level's Hz,
 * when the library says which level is current). A clock is asked in a child process, and
 * "signal" says the library killed it (an assert on a clock table it cannot parse). Exit 0
 * when every line was written, 2 when the library could not be loaded or lacks a function.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rocm_smi/rocm_smi.h>

static void *lib;

static void *sym(const char *name)
{
	void *p = dlsym(lib, name);
	if (!p) {
		fprintf(stderr, "probe_rsmi: %s: no %s\n", dlerror(), name);
		return NULL;
	}
	return p;
}

#define LOAD(name) __typeof__(&name) p_##name = (__typeof__(&name))sym(#name)

static void line(const char *f, int d, int a, rsmi_status_t rc, const char *val)
{
	printf("{\"f\":\"%s\"", f);
	if (d >= 0)
		printf(",\"d\":%d", d);
	if (a >= 0)
		printf(",\"a\":%d", a);
	printf(",\"rc\":%d%s%s}\n", (int)rc, val ? "," : "", val ? val : "");
	fflush(stdout);
}

static void u64(const char *f, int d, int a, rsmi_status_t rc, uint64_t v)
{
	char buf[64];
	snprintf(buf, sizeof buf, "\"v\":%" PRIu64, v);
	line(f, d, a, rc, rc == RSMI_STATUS_SUCCESS ? buf : NULL);
}

static void i64(const char *f, int d, int a, rsmi_status_t rc, int64_t v)
{
	char buf[64];
	snprintf(buf, sizeof buf, "\"v\":%" PRId64, v);
	line(f, d, a, rc, rc == RSMI_STATUS_SUCCESS ? buf : NULL);
}

static __typeof__(&rsmi_dev_gpu_clk_freq_get) p_clk;

/* rsmi_dev_gpu_clk_freq_get in a child process; *died: the signal that ended it, else 0 */
static rsmi_status_t clk_in_child(uint32_t i, rsmi_clk_type_t clk, rsmi_frequencies_t *f, int *died)
{
	int fd[2];
	if (pipe(fd) != 0)
		return p_clk(i, clk, f);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[0]);
		struct {
			rsmi_status_t rc;
			rsmi_frequencies_t f;
		} out;
		memset(&out, 0, sizeof out);
		out.rc = p_clk(i, clk, &out.f);
		ssize_t w = write(fd[1], &out, sizeof out);
		_exit(w == (ssize_t)sizeof out ? 0 : 1);
	}
	close(fd[1]);
	struct {
		rsmi_status_t rc;
		rsmi_frequencies_t f;
	} in;
	ssize_t got = pid > 0 ? read(fd[0], &in, sizeof in) : -1;
	close(fd[0]);
	int st = 0;
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (pid > 0 && WIFSIGNALED(st)) {
		*died = WTERMSIG(st);
		return RSMI_STATUS_UNKNOWN_ERROR;
	}
	if (got != (ssize_t)sizeof in)
		return RSMI_STATUS_UNKNOWN_ERROR;
	*f = in.f;
	return in.rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: probe_rsmi LIBRARY [--init-only]\n");
		return 2;
	}
	bool init_only = argc > 2 && strcmp(argv[2], "--init-only") == 0;
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "probe_rsmi: %s\n", dlerror());
		return 2;
	}
	LOAD(rsmi_init);
	LOAD(rsmi_num_monitor_devices);
	LOAD(rsmi_dev_pci_id_get);
	LOAD(rsmi_dev_id_get);
	LOAD(rsmi_dev_vendor_id_get);
	LOAD(rsmi_dev_subsystem_id_get);
	LOAD(rsmi_dev_subsystem_vendor_id_get);
	LOAD(rsmi_dev_memory_total_get);
	LOAD(rsmi_dev_memory_usage_get);
	LOAD(rsmi_dev_power_cap_get);
	LOAD(rsmi_dev_temp_metric_get);
	LOAD(rsmi_dev_gpu_clk_freq_get);
	p_clk = p_rsmi_dev_gpu_clk_freq_get;
	if (!p_rsmi_init || !p_rsmi_num_monitor_devices || !p_rsmi_dev_pci_id_get || !p_rsmi_dev_id_get ||
	    !p_rsmi_dev_vendor_id_get || !p_rsmi_dev_subsystem_id_get || !p_rsmi_dev_subsystem_vendor_id_get ||
	    !p_rsmi_dev_memory_total_get || !p_rsmi_dev_memory_usage_get || !p_rsmi_dev_power_cap_get ||
	    !p_rsmi_dev_temp_metric_get || !p_rsmi_dev_gpu_clk_freq_get)
		return 2;

	rsmi_status_t rc = p_rsmi_init(0);
	line("rsmi_init", -1, -1, rc, NULL);
	if (rc != RSMI_STATUS_SUCCESS)
		return 0;
	uint32_t n = 0;
	rc = p_rsmi_num_monitor_devices(&n);
	u64("rsmi_num_monitor_devices", -1, -1, rc, n);
	if (rc != RSMI_STATUS_SUCCESS || init_only)
		return 0;
	for (uint32_t i = 0; i < n && i < 1024; i++) {
		int d = (int)i;
		uint64_t v = 0;
		uint16_t id = 0;
		rc = p_rsmi_dev_pci_id_get(i, &v);
		u64("rsmi_dev_pci_id_get", d, -1, rc, v);
		rc = p_rsmi_dev_vendor_id_get(i, &id);
		u64("rsmi_dev_vendor_id_get", d, -1, rc, id);
		rc = p_rsmi_dev_id_get(i, &id);
		u64("rsmi_dev_id_get", d, -1, rc, id);
		rc = p_rsmi_dev_subsystem_vendor_id_get(i, &id);
		u64("rsmi_dev_subsystem_vendor_id_get", d, -1, rc, id);
		rc = p_rsmi_dev_subsystem_id_get(i, &id);
		u64("rsmi_dev_subsystem_id_get", d, -1, rc, id);
		rc = p_rsmi_dev_memory_total_get(i, RSMI_MEM_TYPE_VRAM, &v);
		u64("rsmi_dev_memory_total_get", d, RSMI_MEM_TYPE_VRAM, rc, v);
		rc = p_rsmi_dev_memory_usage_get(i, RSMI_MEM_TYPE_VRAM, &v);
		u64("rsmi_dev_memory_usage_get", d, RSMI_MEM_TYPE_VRAM, rc, v);
		static const rsmi_clk_type_t clks[] = { RSMI_CLK_TYPE_SYS, RSMI_CLK_TYPE_MEM };
		for (size_t c = 0; c < sizeof clks / sizeof *clks; c++) {
			rsmi_frequencies_t f;
			memset(&f, 0, sizeof f);
			/* in a child: ROCm SMI 5 asserts on a clock table it cannot parse
			 * (get_multiplier_from_str, rocm_smi.cc), which would end the probe */
			int died = 0;
			rc = clk_in_child(i, clks[c], &f, &died);
			char buf[128];
			if (died) {
				snprintf(buf, sizeof buf, "\"signal\":%d", died);
				line("rsmi_dev_gpu_clk_freq_get", d, (int)clks[c], rc, buf);
				continue;
			}
			if (rc == RSMI_STATUS_SUCCESS && f.current < f.num_supported &&
			    f.current < RSMI_MAX_NUM_FREQUENCIES)
				snprintf(buf, sizeof buf, "\"n\":%" PRIu32 ",\"cur\":%" PRIu32 ",\"v\":%" PRIu64,
					 f.num_supported, f.current, f.frequency[f.current]);
			else if (rc == RSMI_STATUS_SUCCESS)
				snprintf(buf, sizeof buf, "\"n\":%" PRIu32 ",\"cur\":%" PRIu32, f.num_supported,
					 f.current);
			line("rsmi_dev_gpu_clk_freq_get", d, (int)clks[c], rc, rc == RSMI_STATUS_SUCCESS ? buf : NULL);
		}
		/* hwmon's (temperatures, power cap): ROCm SMI 5 asserts on a GPU without a hwmon
		 * directory, and the process ends here */
		static const rsmi_temperature_type_t temps[] = { RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_TYPE_JUNCTION,
								 RSMI_TEMP_TYPE_MEMORY };
		for (size_t t = 0; t < sizeof temps / sizeof *temps; t++) {
			int64_t mc = 0;
			rc = p_rsmi_dev_temp_metric_get(i, temps[t], RSMI_TEMP_CURRENT, &mc);
			i64("rsmi_dev_temp_metric_get", d, (int)temps[t], rc, mc);
		}
		rc = p_rsmi_dev_power_cap_get(i, 0, &v);
		u64("rsmi_dev_power_cap_get", d, 0, rc, v);
	}
	return 0;
}
