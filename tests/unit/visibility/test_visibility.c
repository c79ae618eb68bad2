/* SPDX-License-Identifier: MIT */
/* Visibility: the parsers of CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES,
 * HIP_VISIBLE_DEVICES, NVIDIA_VISIBLE_DEVICES, the Habana lists and the cgroup v1
 * device list (src/lib/visibility.h), then the whole stage through the public API on a
 * small tree: axl_context_options.env, version 1 options, AXL_CONTEXT_NO_ENV, and the
 * process environment, which a re-rooted context does not apply. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"
#include "backend.h"
#include "visibility.h"
#include "amdgpu_visibility.h"
#include "nvidia_visibility.h"

#define N(a) (sizeof(a) / sizeof *(a))

/* Four GPUs; GPU 1 has two MIG devices (items 4 and 5), GPU 3 one (item 6). */
static const struct axl__vis_item gpus[] = {
	{"GPU-8932f937-d72c-4106-c12f-20bd9faed9f6", -1, -1, -1, -1},
	{"GPU-89aa0000-0000-0000-0000-000000000001", -1, -1, -1, -1},
	{"GPU-1234abcd-0000-0000-0000-000000000002", -1, -1, -1, -1},
	{"GPU-ffff0000-0000-0000-0000-000000000003", -1, -1, -1, -1},
	{"MIG-aaaa1111-2222-3333-4444-555555555555", 1, 1, 0, -1},
	{"MIG-bbbb1111-2222-3333-4444-555555555555", 1, 2, 0, -1},
	{"MIG-cccc1111-2222-3333-4444-555555555555", 3, 1, 0, -1},
};

/* pos[] as a string "0,-1,1,..." for compact checks */
static const char *P(const int *pos, size_t n)
{
	static char buf[256];
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%d", i ? "," : "", pos[i]);
	return buf;
}

static void test_cuda(void)
{
	int pos[N(gpus)];
	struct axl__vis_result r;
	axl__vis_cuda(NULL, gpus, N(gpus), true, pos, &r);
	CHECK_INT(r.code, AXL__VIS_ALL);

	/* the documented example: 0,2,-1,1 shows 0 and 2; CUDA stops at -1 */
	axl__vis_cuda("0,2,-1,1", gpus, N(gpus), true, pos, &r);
	CHECK_INT(r.code, AXL__VIS_SOME);
	CHECK_STR(P(pos, N(gpus)), "0,-1,1,-1,-1,-1,-1");
	CHECK(strstr(r.note, "'-1'") != NULL);
	CHECK(r.by_index);

	/* order is the list's; a GPU's MIG devices come with it */
	axl__vis_cuda("3,1", gpus, N(gpus), true, pos, &r);
	CHECK_STR(P(pos, N(gpus)), "-1,1,-1,0,1,1,0");

	/* empty: no device; a repeated index: no device either */
	axl__vis_cuda("", gpus, N(gpus), true, pos, &r);
	CHECK_INT(r.code, AXL__VIS_NONE);
	CHECK_STR(P(pos, N(gpus)), "-1,-1,-1,-1,-1,-1,-1");
	axl__vis_cuda("2,0,2", gpus, N(gpus), true, pos, &r);
	CHECK_INT(r.code, AXL__VIS_NONE);
	CHECK(strstr(r.note, "twice") != NULL);
	axl__vis_cuda("-1", gpus, N(gpus), true, pos, &r);
	CHECK_INT(r.code, AXL__VIS_SOME);
	CHECK_STR(P(pos, N(gpus)), "-1,-1,-1,-1,-1,-1,-1");

	/* strtoul-like entries: blanks around, trailing junk after the digits */
	axl__vis_cuda(" 2 ,1gpu,x,0", gpus, N(gpus), true, pos, &r);
	CHECK_STR(P(pos, N(gpus)), "-1,1,0,-1,1,1,-1");
	CHECK(strstr(r.note, "'x'") != NULL);
	/* an index beyond the GPUs stops the list */
	axl__vis_cuda("1,4,0", gpus, N(gpus), true, pos, &r);
	CHECK_STR(P(pos, N(gpus)), "-1,0,-1,-1,0,0,-1");

	/* UUIDs and unique prefixes; an ambiguous prefix stops the list */
	axl__vis_cuda("GPU-1234,GPU-8932f937-d72c-4106-c12f-20bd9faed9f6", gpus, N(gpus), true, pos, &r);
	CHECK_STR(P(pos, N(gpus)), "1,-1,0,-1,-1,-1,-1");
	CHECK(!r.by_index);
	axl__vis_cuda("GPU-ffff,GPU-89,GPU-1234", gpus, N(gpus), true, pos, &r);
	CHECK_STR(P(pos, N(gpus)), "-1,-1,-1,0,-1,-1,0");
	CHECK(strstr(r.note, "several") != NULL);
	/* a list of UUIDs stops at an index, a list of indices at a UUID */
	axl__vis_cuda("GPU-1234,0", gpus, N(gpus), true, pos, &r);
	CHECK_STR(P(pos, N(gpus)), "-1,-1,0,-1,-1,-1,-1");
	axl__vis_cuda("0,GPU-1234", gpus, N(gpus), true, pos, &r);
	CHECK_STR(P(pos, N(gpus)), "0,-1,-1,-1,-1,-1,-1");
	/* no GPU has it */
	axl__vis_cuda("GPU-0000", gpus, N(gpus), true, pos, &r);
	CHECK_INT(r.code, AXL__VIS_SOME);
	CHECK_STR(P(pos, N(gpus)), "-1,-1,-1,-1,-1,-1,-1");

	/* MIG UUIDs: the MIG device, not its GPU nor its sibling */
	axl__vis_cuda("MIG-bbbb,MIG-cccc1111-2222-3333-4444-555555555555", gpus, N(gpus), true, pos, &r);
	CHECK_STR(P(pos, N(gpus)), "-1,-1,-1,-1,-1,0,1");
	/* the format before R470: MIG-<GPU UUID>/<GI>/<CI> */
	axl__vis_cuda("MIG-GPU-89aa0000-0000-0000-0000-000000000001/1/0", gpus, N(gpus), true, pos, &r);
	CHECK_STR(P(pos, N(gpus)), "-1,-1,-1,-1,0,-1,-1");
	/* without the MIG devices (no NVML), a MIG entry cannot be resolved */
	axl__vis_cuda("MIG-dddd", gpus, 4, false, pos, &r);
	CHECK_INT(r.code, AXL__VIS_UNSURE);
	CHECK_STR(P(pos, 4), "-2,-2,-2,-2");
	/* a GPU whose UUID axl does not know: a UUID matching none cannot be told */
	struct axl__vis_item part[] = {{"GPU-aa", -1, -1, -1, -1}, {NULL, -1, -1, -1, -1}};
	axl__vis_cuda("GPU-aa,GPU-bb", part, 2, false, pos, &r);
	CHECK_INT(r.code, AXL__VIS_UNSURE);
	CHECK_STR(P(pos, 2), "0,-2");
}

static void test_rocr_hip(void)
{
	/* ROCr: UUIDs are GPU-<16 hex> of the KFD unique_id; one partitioned GPU shows
	 * as two agents with the same UUID */
	const struct axl__vis_item a[] = {
		{"GPU-5EC3A09F1B2C3D4E", -1, -1, -1, -1}, {"GPU-2A4F000000000001", -1, -1, -1, -1},
		{"GPU-2A4F000000000001", -1, -1, -1, -1}, {NULL, -1, -1, -1, -1},
	};
	int pos[4], hpos[4];
	struct axl__vis_result r;
	axl__vis_rocr(NULL, a, 4, pos, &r);
	CHECK_INT(r.code, AXL__VIS_ALL);
	axl__vis_rocr("", a, 4, pos, &r);
	CHECK_INT(r.code, AXL__VIS_NONE);
	axl__vis_rocr("3, 0", a, 4, pos, &r); /* blanks are trimmed */
	CHECK_STR(P(pos, 4), "1,-1,-1,0");
	axl__vis_rocr("gpu-5ec3,0x1", a, 4, pos, &r); /* upper-cased; strtol base 0 */
	CHECK_STR(P(pos, 4), "0,1,-1,-1");
	axl__vis_rocr("1,GPU-2A4F", a, 4, pos, &r); /* ambiguous UUID: stop */
	CHECK_STR(P(pos, 4), "-1,0,-1,-1");
	CHECK(strstr(r.note, "several") != NULL);
	axl__vis_rocr("2,2,1", a, 4, pos, &r); /* a repeated index ends the list */
	CHECK_STR(P(pos, 4), "-1,-1,0,-1");
	axl__vis_rocr("1,7,0", a, 4, pos, &r);
	CHECK_STR(P(pos, 4), "-1,0,-1,-1");
	axl__vis_rocr("0,1,2,3,x", a, 3, pos, &r); /* only as many entries as GPUs are read */
	CHECK_STR(P(pos, 3), "0,1,2");
	axl__vis_rocr("GPU-", a, 4, pos, &r); /* too short to be a UUID */
	CHECK_INT(r.code, AXL__VIS_NONE);

	/* HIP over what ROCr left: ROCR_VISIBLE_DEVICES=3,1 then HIP_VISIBLE_DEVICES=1 is
	 * ROCr's second, agent 1 */
	axl__vis_rocr("3,1", a, 4, pos, &r);
	struct axl__vis_item left[4];
	size_t nl = 0;
	for (int o = 0; o < 4; o++)
		for (int i = 0; i < 4; i++)
			if (pos[i] == o)
				left[nl++] = a[i];
	CHECK_INT(nl, 2);
	axl__vis_hip("1", left, nl, hpos, &r);
	CHECK_STR(P(hpos, nl), "-1,0");
	CHECK(left[1].uuid && strcmp(left[1].uuid, a[1].uuid) == 0);
	/* HIP: empty means no restriction; exact decimal only; repeats skipped; stop at
	 * the first invalid entry */
	axl__vis_hip("", a, 4, hpos, &r);
	CHECK_INT(r.code, AXL__VIS_ALL);
	axl__vis_hip("2,2,0,01,1", a, 4, hpos, &r);
	CHECK_STR(P(hpos, 4), "1,-1,0,-1");
	CHECK(strstr(r.note, "'01'") != NULL);
	axl__vis_hip(" 1", a, 4, hpos, &r);
	CHECK_INT(r.code, AXL__VIS_NONE);
	axl__vis_hip("-1", a, 4, hpos, &r);
	CHECK_INT(r.code, AXL__VIS_NONE);
	/* a UUID: the first agent that contains it */
	axl__vis_hip("GPU-2A4F000000000001,0", a, 4, hpos, &r);
	CHECK_STR(P(hpos, 4), "1,0,-1,-1");
}

static void test_runtime_lists(void)
{
	int pos[N(gpus)];
	struct axl__vis_result r;
	axl__vis_nvidia_runtime(NULL, gpus, N(gpus), pos, &r);
	CHECK_INT(r.code, AXL__VIS_OFF);
	axl__vis_nvidia_runtime("void", gpus, N(gpus), pos, &r);
	CHECK_INT(r.code, AXL__VIS_OFF);
	axl__vis_nvidia_runtime("", gpus, N(gpus), pos, &r);
	CHECK_INT(r.code, AXL__VIS_OFF);
	axl__vis_nvidia_runtime("all", gpus, N(gpus), pos, &r);
	CHECK_INT(r.code, AXL__VIS_ALL);
	axl__vis_nvidia_runtime("none", gpus, N(gpus), pos, &r);
	CHECK_INT(r.code, AXL__VIS_NONE);
	axl__vis_nvidia_runtime("2,GPU-ffff0000-0000-0000-0000-000000000003", gpus, N(gpus), pos, &r);
	CHECK_INT(r.code, AXL__VIS_SOME);
	CHECK_STR(P(pos, N(gpus)), "-1,-1,0,1,-1,-1,1");
	axl__vis_nvidia_runtime("1:1,MIG-cccc1111-2222-3333-4444-555555555555,9", gpus, N(gpus), pos, &r);
	CHECK_STR(P(pos, N(gpus)), "-1,-1,-1,-1,-1,0,1");
	CHECK(strstr(r.note, "'9'") != NULL);

	const struct axl__vis_item hl[] = {{NULL, -1, -1, -1, 5}, {NULL, -1, -1, -1, 4}, {NULL, -1, -1, -1, 7},
					   {NULL, -1, -1, -1, -1}};
	int p[4];
	axl__vis_numbers("4,7", false, hl, 3, p, &r);
	CHECK_INT(r.code, AXL__VIS_SOME);
	CHECK_STR(P(p, 3), "-1,0,1");
	axl__vis_numbers("all", true, hl, 3, p, &r);
	CHECK_INT(r.code, AXL__VIS_ALL);
	axl__vis_numbers("all", false, hl, 3, p, &r);
	CHECK_STR(P(p, 3), "-1,-1,-1");
	axl__vis_numbers("", true, hl, 3, p, &r);
	CHECK_INT(r.code, AXL__VIS_NONE);
	axl__vis_numbers("5", false, hl, 4, p, &r); /* a module axl does not know */
	CHECK_INT(r.code, AXL__VIS_UNSURE);
	CHECK_STR(P(p, 4), "0,-1,-1,-2");
}

static void test_cgroup(void)
{
	char path[128];
	CHECK_INT(axl__vis_cgroup_v1_path("12:pids:/a\n11:devices:/kubepods/pod1/c1\n0::/x\n", path, sizeof path), 0);
	CHECK_STR(path, "/kubepods/pod1/c1");
	CHECK_INT(axl__vis_cgroup_v1_path("5:cpu,devices,memory:/docker/abc\n", path, sizeof path), 0);
	CHECK_STR(path, "/docker/abc");
	CHECK_INT(axl__vis_cgroup_v1_path("0::/user.slice\n", path, sizeof path), -1);
	CHECK_INT(axl__vis_cgroup_v1_path("3:devicesx:/y\n", path, sizeof path), -1);

	const char *list = "c 1:3 rwm\nc 195:255 rwm\nc 195:2 rw\nc 195:3 r\nc 236:* rwm\nb 8:0 r\n";
	CHECK_INT(axl__vis_cgroup_allows(list, 'c', 195, 2, "rw"), 1);
	CHECK_INT(axl__vis_cgroup_allows(list, 'c', 195, 3, "rw"), 0); /* read only */
	CHECK_INT(axl__vis_cgroup_allows(list, 'c', 195, 0, "rw"), 0);
	CHECK_INT(axl__vis_cgroup_allows(list, 'c', 236, 17, "rw"), 1);
	CHECK_INT(axl__vis_cgroup_allows(list, 'b', 195, 2, "rw"), 0);
	CHECK_INT(axl__vis_cgroup_allows("a *:* rwm\n", 'c', 195, 7, "rw"), 1);
	CHECK_INT(axl__vis_cgroup_allows("", 'c', 195, 7, "rw"), 0);
}

/* ---- through the public API ------------------------------------------------------------ */

static char root[256];

static void put(const char *rel, const char *content)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(content, f);
	fclose(f);
}

/* Three GPUs the driver lists (procfs only), /dev/nvidia0 and 2 present, 1 absent. */
static void build_tree(void)
{
	snprintf(root, sizeof root, "/tmp/axl-test-vis-%d", (int)getpid());
	mkdir(root, 0755);
	for (int i = 0; i < 3; i++) {
		char rel[128], info[512];
		snprintf(rel, sizeof rel, "proc/driver/nvidia/gpus/0000:%02x:00.0/information", 0x10 + i);
		snprintf(info, sizeof info,
			 "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 0\nGPU UUID: \t "
			 "GPU-%d1111111-2222-3333-4444-555555555555\n"
			 "Video BIOS: \t 96.00.99.00.01\nBus Type: \t PCIe\nDMA Size: \t 52 bits\n"
			 "DMA Mask: \t 0xfffffffffffff\nBus Location: \t 0000:%02x:00.0\nDevice Minor: \t %d\n"
			 "GPU Excluded:\t No\n",
			 i, 0x10 + i, i);
		put(rel, info);
	}
	put("dev/nvidia0", "");
	put("dev/nvidia2", "");
	put("dev/nvidiactl", "");
	put("dev/nvidia-uvm", "");
	put("dev/nvidia-uvm-tools", "");
}

static void remove_tree(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
}

/* "v" visible, "h" hidden, "?" unknown per device, and the reasons */
static void verdicts(const char *const *env, unsigned flags, unsigned version, char *out, size_t cap,
		     char reasons[][256])
{
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.version = version;
	o.flags = flags;
	o.sysroot = root;
	o.env = env;
	axl_context *ctx = NULL;
	axl_inventory *inv = NULL;
	out[0] = '\0';
	if (axl_context_open(&ctx, &o) != 0 || axl_inventory_open(&inv, ctx, 0) != 0) {
		snprintf(out, cap, "error: %s", axl_error_last());
		axl_context_free(ctx);
		return;
	}
	for (size_t i = 0; i < axl_inventory_device_count(inv); i++) {
		const axl_device *d = axl_inventory_device(inv, i);
		int64_t v;
		const char *why = NULL;
		int rc = axl_device_get_int(d, AXL_ATTR_VISIBLE, &v);
		snprintf(out + strlen(out), cap - strlen(out), "%s", rc ? "?" : v ? "v" : "h");
		axl_device_get_str(d, AXL_ATTR_VISIBILITY_REASON, &why);
		if (reasons)
			snprintf(reasons[i], 256, "%s", why ? why : "");
	}
	axl_inventory_free(inv);
	axl_context_free(ctx);
}

static void test_api(void)
{
	build_tree();
	char got[64], why[8][256];
	/* nothing restricts but the missing /dev/nvidia1 */
	const char *const none[] = {NULL};
	verdicts(none, 0, AXL_CONTEXT_OPTIONS_VERSION, got, sizeof got, why);
	CHECK_STR(got, "vhv");
	CHECK_STR(why[1], "/dev/nvidia1 is absent");
	CHECK_STR(why[0], "");

	/* CUDA numbers only the GPUs it can open: index 1 is nvidia:2 */
	const char *const cuda[] = {"CUDA_VISIBLE_DEVICES=1", "NVIDIA_VISIBLE_DEVICES=0,2", NULL};
	verdicts(cuda, 0, AXL_CONTEXT_OPTIONS_VERSION, got, sizeof got, why);
	CHECK_STR(got, "hhv");
	CHECK_STR(why[0], "CUDA_VISIBLE_DEVICES=1 does not list it");
	CHECK_STR(why[1], "/dev/nvidia1 is absent (NVIDIA_VISIBLE_DEVICES=0,2 does not list it)");
	CHECK_STR(why[2], "CUDA_VISIBLE_DEVICES=1 lists it as CUDA device 0");

	/* an explicit list applies even with AXL_CONTEXT_NO_ENV and on another tree */
	const char *const empty[] = {"CUDA_VISIBLE_DEVICES=", NULL};
	verdicts(empty, AXL_CONTEXT_NO_ENV, AXL_CONTEXT_OPTIONS_VERSION, got, sizeof got, why);
	CHECK_STR(got, "hhh");
	CHECK_STR(why[0], "CUDA_VISIBLE_DEVICES is empty: CUDA shows no GPU");

	/* the process environment does not apply to a re-rooted context */
	setenv("CUDA_VISIBLE_DEVICES", "", 1);
	verdicts(NULL, 0, AXL_CONTEXT_OPTIONS_VERSION, got, sizeof got, NULL);
	CHECK_STR(got, "vhv");
	/* version 1 options (no env member) still open, and read no list */
	verdicts(NULL, 0, 1, got, sizeof got, NULL);
	CHECK_STR(got, "vhv");
	unsetenv("CUDA_VISIBLE_DEVICES");
	remove_tree();
}

/* MIG devices are children that only NVML creates: add two to nvidia:0 by hand, the
 * second with a capability node that is absent, and run the stage again. */
static void set_var(axl_context *ctx, const char *value)
{
	CHECK_INT(axl__visvar_set(ctx, "CUDA_VISIBLE_DEVICES", value), 0);
}

static const char *verdict(const axl_device *d)
{
	static char buf[8][300];
	static int k;
	char *b = buf[k++ % 8];
	int64_t v;
	const char *why = NULL;
	int rc = axl_device_get_int(d, AXL_ATTR_VISIBLE, &v);
	axl_device_get_str(d, AXL_ATTR_VISIBILITY_REASON, &why);
	snprintf(b, 300, "%s: %s", rc ? "?" : v ? "visible" : "hidden", why ? why : "");
	return b;
}

static void rerun(axl_context *ctx, struct axl_inventory *inv)
{
	for (size_t i = 0; i < inv->devs.n; i++) {
		struct axl_device *d = inv->devs.v[i];
		for (size_t c = 0; c <= d->children.n; c++) {
			struct axl_device *x = c < d->children.n ? d->children.v[c] : d;
			x->attr[AXL_ATTR_VISIBLE].src = AXL_SOURCE_NONE;
			x->attr[AXL_ATTR_VISIBILITY_REASON].src = AXL_SOURCE_NONE;
		}
	}
	struct axl__scan scan = {.ctx = ctx, .inv = inv, .fs = &ctx->fs};
	axl__visibility_apply(&scan);
}

static void test_mig(void)
{
	build_tree();
	put("dev/nvidia-caps/nvidia-cap21", "");
	const char *const env[] = {"CUDA_VISIBLE_DEVICES=MIG-bbbb", NULL};
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sysroot = root;
	o.env = env;
	axl_context *ctx = NULL;
	axl_inventory *inv = NULL;
	CHECK_INT(axl_context_open(&ctx, &o), 0);
	CHECK_INT(axl_inventory_open(&inv, ctx, 0), 0);
	if (!inv) {
		axl_context_free(ctx);
		return;
	}
	/* without MIG devices the entry cannot be resolved: no verdict, a reason */
	const axl_device *g0 = axl_inventory_device(inv, 0);
	CHECK_STR(verdict(g0), "?: CUDA_VISIBLE_DEVICES=MIG-bbbb: cannot tell: 'MIG-bbbb' names a MIG device and axl "
			       "does not know the MIG devices (no NVML)");
	CHECK_STR(verdict(axl_inventory_device(inv, 1)), "hidden: /dev/nvidia1 is absent");

	struct axl_device *gpu = inv->devs.v[0];
	const char *uuid[] = {"MIG-aaaa1111-2222-3333-4444-555555555555", "MIG-bbbb1111-2222-3333-4444-555555555555"};
	const char *node[] = {"/dev/nvidia-caps/nvidia-cap21", "/dev/nvidia-caps/nvidia-cap30"};
	const char *id[] = {"nvidia:0/mig1.0", "nvidia:0/mig2.0"};
	for (int i = 0; i < 2; i++) {
		struct axl_device *c = axl__child_new(inv, gpu, id[i] + 9);
		CHECK(c != NULL);
		if (!c)
			break;
		axl__set_str(inv, c, AXL_ATTR_ID, AXL_SOURCE_DERIVED, id[i]);
		axl__set_str(inv, c, AXL_ATTR_UUID, AXL_SOURCE_NVML, uuid[i]);
		axl__set_int(c, AXL_ATTR_PARTITION_GPU_INSTANCE, AXL_SOURCE_NVML, i + 1);
		axl__set_int(c, AXL_ATTR_PARTITION_COMPUTE_INSTANCE, AXL_SOURCE_NVML, 0);
		axl__add_node(inv, c, "/dev/nvidia0");
		axl__add_node(inv, c, node[i]);
	}
	if (gpu->children.n != 2)
		goto out;
	const axl_device *c0 = axl_device_child(g0, 0), *c1 = axl_device_child(g0, 1);

	/* a MIG UUID: that MIG device; its GPU in part; the sibling's node is absent */
	set_var(ctx, "MIG-aaaa");
	rerun(ctx, inv);
	CHECK_STR(verdict(c0), "visible: CUDA_VISIBLE_DEVICES=MIG-aaaa lists it as CUDA device 0");
	CHECK_STR(verdict(c1), "hidden: /dev/nvidia-caps/nvidia-cap30 is absent");
	CHECK_STR(verdict(g0),
		  "hidden: partly visible: CUDA_VISIBLE_DEVICES=MIG-aaaa lists only nvidia:0/mig1.0 of it");
	CHECK_STR(verdict(axl_inventory_device(inv, 2)), "hidden: CUDA_VISIBLE_DEVICES=MIG-aaaa does not list it");

	/* the format before R470: MIG-<GPU UUID>/<GI>/<CI> */
	put("dev/nvidia-caps/nvidia-cap30", "");
	set_var(ctx, "MIG-GPU-01111111-2222-3333-4444-555555555555/2/0,MIG-aaaa");
	rerun(ctx, inv);
	CHECK_STR(verdict(c1),
		  "visible: CUDA_VISIBLE_DEVICES=MIG-GPU-01111111-2222-3333-4444-555555555555/2/0,MIG-aaaa lists it as "
		  "CUDA device 0");
	CHECK_STR(verdict(c0),
		  "visible: CUDA_VISIBLE_DEVICES=MIG-GPU-01111111-2222-3333-4444-555555555555/2/0,MIG-aaaa lists it as "
		  "CUDA device 1");
	CHECK(strncmp(verdict(g0), "hidden: partly visible: ", 24) == 0);

	/* the GPU by index brings its MIG devices; an unknown MIG UUID now stops the list */
	set_var(ctx, "1,MIG-ffff");
	rerun(ctx, inv);
	CHECK_STR(verdict(axl_inventory_device(inv, 2)),
		  "visible: CUDA_VISIBLE_DEVICES=1,MIG-ffff lists it as CUDA device 0");
	CHECK_STR(verdict(g0), "hidden: CUDA_VISIBLE_DEVICES=1,MIG-ffff does not list it (CUDA stops at 'MIG-ffff', "
			       "which is not an index)");
	set_var(ctx, "0");
	rerun(ctx, inv);
	CHECK_STR(verdict(g0), "visible: CUDA_VISIBLE_DEVICES=0 lists it as CUDA device 0");
	CHECK_STR(verdict(c1), "visible: CUDA_VISIBLE_DEVICES=0 lists its GPU as CUDA device 0");
	set_var(ctx, "MIG-ffff");
	rerun(ctx, inv);
	CHECK_STR(verdict(c0), "hidden: CUDA_VISIBLE_DEVICES=MIG-ffff does not list it (CUDA stops at 'MIG-ffff', "
			       "which matches no MIG device)");
	/* no variable: everything that opens is visible, with no reason */
	set_var(ctx, NULL);
	rerun(ctx, inv);
	CHECK_STR(verdict(c0), "visible: ");
	CHECK_STR(verdict(g0), "visible: ");
out:
	axl_inventory_free(inv);
	axl_context_free(ctx);
	remove_tree();
}

int main(void)
{
	test_cuda();
	test_rocr_hip();
	test_runtime_lists();
	test_cgroup();
	test_api();
	test_mig();
	return check_summary();
}
