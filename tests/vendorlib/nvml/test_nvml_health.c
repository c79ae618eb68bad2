/* SPDX-License-Identifier: MIT */
/* NVML health events through the public API (AXL_SAMPLER_HEALTH, include/axl/metrics.h)
 * against the NVML double, whose events a test injects by appending lines to
 * $AXL_NVML_DOUBLE_EVENTS (tests/vendorlib/nvml/double/README.md, "Events"). One case per
 * process (the double reads its rules once, at the first nvmlInit):
 *   events   the A100 capture (one GPU, four MIG devices): nothing before the first
 *            sample; an Xid on the GPU (critical, named), an application's Xid (not
 *            critical), a MIG device's Xid naming the MIG device, a double-bit ECC error;
 *            AXL_SAMPLER_NO_METRICS reads no values, a sampler without it both
 *   old      the 2017-era build: the base nvmlEventSetWait delivers the GPU's Xid
 *   fail     nvmlEventSetWait_v2 answers UNKNOWN: a failed watch on the GPU, every sample
 *   hang     nvmlEventSetWait_v2 never returns: the sample comes back at the deadline
 *   test_nvml_health CASE DOUBLE.so OLD.so CAPTURE.xml WORKDIR */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"

static const char *events_path;

static void append(const char *text)
{
	int fd = open(events_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		perror(events_path);
		exit(2);
	}
	close(fd);
}

struct node {
	axl_context *ctx;
	axl_inventory *inv;
	axl_sampler *s;
};

static int open_node(struct node *n, const char *root, unsigned flags)
{
	memset(n, 0, sizeof *n);
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sysroot = root;
	if (axl_context_open(&n->ctx, &o) != 0 || axl_inventory_open(&n->inv, n->ctx, 0) != 0 ||
	    axl_sampler_open(&n->s, n->inv, flags) != 0) {
		fprintf(stderr, "cannot open the node: %s\n", axl_error_last());
		return -1;
	}
	return 0;
}

static void close_node(struct node *n)
{
	axl_sampler_free(n->s);
	axl_inventory_free(n->inv);
	axl_context_free(n->ctx);
}

/* One sample's events, each as "<device id> <kind> <code> <critical>|<message>" lines. */
static void sample_events(struct node *n, char *out, size_t cap, axl_sample **keep)
{
	axl_sample *smp = NULL;
	out[0] = '\0';
	if (axl_sampler_sample(n->s, &smp) != 0) {
		snprintf(out, cap, "sample failed");
		return;
	}
	size_t len = 0;
	for (size_t i = 0; i < axl_sample_health_count(smp); i++) {
		const struct axl_health_event *e = axl_sample_health_event(smp, i);
		const axl_device *d = axl_sample_device(smp, e->device);
		len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s %d %lld %d|%s", i ? "\n" : "",
					d ? axl_device_id(d) : "?", (int)e->kind, (long long)e->code, e->critical,
					e->message);
		CHECK(e->source == AXL_SOURCE_NVML);
	}
	if (keep)
		*keep = smp;
	else
		axl_sample_free(smp);
}

static const char *gpu_uuid = "GPU-513536b6-7d19-9063-b049-1e69664bb298"; /* the A100 capture's */

static void case_events(const char *root)
{
	struct node n;
	if (open_node(&n, root, AXL_SAMPLER_HEALTH | AXL_SAMPLER_NO_METRICS) != 0) {
		CHECK(0);
		return;
	}
	const axl_device *gpu = axl_inventory_device(n.inv, 0);
	CHECK_INT(axl_device_child_count(gpu), 4);
	const axl_device *mig = axl_device_child(gpu, 2);
	const char *mig_uuid = NULL;
	axl_device_get_str(mig, AXL_ATTR_UUID, &mig_uuid);
	char got[2048], line[256], want[512];
	/* an Xid of before the sampler was opened is not reported */
	sample_events(&n, got, sizeof got, NULL);
	CHECK_STR(got, "");
	snprintf(line, sizeof line, "%s xid 79\n", gpu_uuid);
	append(line);
	axl_sample *smp = NULL;
	sample_events(&n, got, sizeof got, &smp);
	CHECK_STR(got, "nvidia:0 1 79 1|Xid 79 (GPU has fallen off the bus)");
	/* no values are read under AXL_SAMPLER_NO_METRICS */
	double v;
	CHECK_INT(axl_sample_get(smp, 0, AXL_METRIC_MEMORY_USED, &v, NULL), AXL_EUNKNOWN);
	CHECK_INT(axl_sample_get(smp, 0, AXL_METRIC_MEMORY_TOTAL, &v, NULL), AXL_EUNKNOWN);
	axl_sample_free(smp);
	sample_events(&n, got, sizeof got, NULL);
	CHECK_STR(got, ""); /* once */
	snprintf(line, sizeof line, "%s xid 13\n", gpu_uuid);
	append(line);
	sample_events(&n, got, sizeof got, NULL);
	CHECK_STR(got, "nvidia:0 1 13 0|Xid 13 (Graphics Engine Exception: an application's error)");
	if (mig_uuid) {
		snprintf(line, sizeof line, "%s xid 43\n%s dbe\n", mig_uuid, gpu_uuid);
		append(line);
		sample_events(&n, got, sizeof got, NULL);
		unsigned gi = 0, ci = 0;
		int64_t x;
		if (axl_device_get_int(mig, AXL_ATTR_PARTITION_GPU_INSTANCE, &x) == 0)
			gi = (unsigned)x;
		if (axl_device_get_int(mig, AXL_ATTR_PARTITION_COMPUTE_INSTANCE, &x) == 0)
			ci = (unsigned)x;
		snprintf(want, sizeof want,
			 "%s 1 43 0|Xid 43 (GPU stopped processing: an application's error) (GPU instance %u, compute "
			 "instance %u)\nnvidia:0 2 0 1|double-bit ECC error",
			 axl_device_id(mig), gi, ci);
		CHECK_STR(got, want);
	} else {
		CHECK(mig_uuid != NULL);
	}
	/* an Xid NVML does not know, and one not in the table */
	snprintf(line, sizeof line, "%s xid 999\n%s xid 119\n", gpu_uuid, gpu_uuid);
	append(line);
	sample_events(&n, got, sizeof got, NULL);
	CHECK_STR(got, "nvidia:0 1 999 1|Xid 999 (unknown Xid)\nnvidia:0 1 119 1|Xid 119");

	/* a sampler of values and health: both, and its own event set */
	struct node m;
	if (open_node(&m, root, AXL_SAMPLER_HEALTH) == 0) {
		snprintf(line, sizeof line, "%s xid 48\n", gpu_uuid);
		append(line);
		sample_events(&m, got, sizeof got, &smp);
		CHECK_STR(got, "nvidia:0 1 48 1|Xid 48 (Double Bit ECC Error)");
		CHECK_INT(axl_sample_get(smp, 0, AXL_METRIC_MEMORY_TOTAL, &v, NULL), 0);
		axl_sample_free(smp);
		sample_events(&n, got, sizeof got, NULL); /* the first sampler sees it too */
		CHECK_STR(got, "nvidia:0 1 48 1|Xid 48 (Double Bit ECC Error)");
		close_node(&m);
	} else {
		CHECK(0);
	}
	/* a sampler without AXL_SAMPLER_HEALTH watches nothing */
	if (open_node(&m, root, 0) == 0) {
		append(line);
		sample_events(&m, got, sizeof got, NULL);
		CHECK_STR(got, "");
		close_node(&m);
	}
	close_node(&n);
}

static void case_old(const char *root)
{
	struct node n;
	if (open_node(&n, root, AXL_SAMPLER_HEALTH | AXL_SAMPLER_NO_METRICS) != 0) {
		CHECK(0);
		return;
	}
	char got[1024], line[256];
	sample_events(&n, got, sizeof got, NULL);
	CHECK_STR(got, "");
	snprintf(line, sizeof line, "%s xid 62\n", gpu_uuid);
	append(line);
	sample_events(&n, got, sizeof got, NULL);
	CHECK_STR(got, "nvidia:0 1 62 1|Xid 62");
	close_node(&n);
}

static void case_fail(const char *root)
{
	struct node n;
	if (open_node(&n, root, AXL_SAMPLER_HEALTH | AXL_SAMPLER_NO_METRICS) != 0) {
		CHECK(0);
		return;
	}
	char got[1024];
	for (int k = 0; k < 2; k++) {
		sample_events(&n, got, sizeof got, NULL);
		CHECK_STR(got, "nvidia:0 3 999 1|NVML's event watch failed: nvmlEventSetWait: Unknown Error");
	}
	close_node(&n);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void case_hang(const char *root)
{
	struct node n;
	if (open_node(&n, root, AXL_SAMPLER_HEALTH | AXL_SAMPLER_NO_METRICS) != 0) {
		CHECK(0);
		return;
	}
	char got[1024];
	double t0 = now_s();
	sample_events(&n, got, sizeof got, NULL);
	double dt = now_s() - t0;
	CHECK_STR(got, "");
	CHECK(dt >= 0.4 && dt < 5); /* AXL_VENDOR_TIMEOUT_MS=500 */
	t0 = now_s();
	sample_events(&n, got, sizeof got, NULL); /* NVML is not asked again */
	CHECK(now_s() - t0 < 0.2);
	close_node(&n);
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: test_nvml_health events|old|fail|hang DOUBLE.so OLD.so CAPTURE.xml WORKDIR\n");
		return 2;
	}
	const char *c = argv[1];
	char dir[4096], events[4096];
	mkdir(argv[5], 0755);
	snprintf(dir, sizeof dir, "%s/empty-root", argv[5]);
	mkdir(dir, 0755);
	snprintf(events, sizeof events, "%s/%s.events", argv[5], c);
	unlink(events);
	events_path = events;
	append("# lines appended here are NVML events\n");
	setenv("AXL_NVML_LIBRARY", strcmp(c, "old") == 0 ? argv[3] : argv[2], 1);
	setenv("AXL_NVML_DOUBLE_XML", argv[4], 1);
	setenv("AXL_NVML_DOUBLE_EVENTS", events, 1);
	if (strcmp(c, "events") == 0) {
		case_events(dir);
	} else if (strcmp(c, "old") == 0) {
		case_old(dir);
	} else if (strcmp(c, "fail") == 0) {
		setenv("AXL_NVML_DOUBLE_FAIL", "nvmlEventSetWait_v2=UNKNOWN", 1);
		case_fail(dir);
	} else if (strcmp(c, "hang") == 0) {
		setenv("AXL_NVML_DOUBLE_HANG", "nvmlEventSetWait_v2", 1);
		setenv("AXL_VENDOR_TIMEOUT_MS", "500", 1);
		case_hang(dir);
	} else {
		fprintf(stderr, "unknown case %s\n", c);
		return 2;
	}
	return check_summary();
}
