/* SPDX-License-Identifier: MIT */
/* The fdinfo module (src/lib/fdinfo.h): the parser on real key sets of each driver and on
 * malformed input, the sweep over a synthetic /proc tree through a re-rooted fs layer,
 * and busy percent from two sweeps.
 *
 * Each driver's first sample is its published example, verbatim in its keys and values;
 * the second is the same key set with the counters advanced by a chosen amount so the
 * busy percent is exact. Sources:
 *  amdgpu   the key set printed by drivers/gpu/drm/amd/amdgpu/amdgpu_fdinfo.c (the
 *           "drm/amdgpu: Add show_fdinfo() interface" patch, amd-gfx list): pasid,
 *           drm-memory-vram/gtt/cpu in KiB, drm-engine-<ip> ns
 *  i915     the example in the proc_pid_fdinfo.5 man page patch (Ian Rogers,
 *           patchwork.kernel.org/project/dri-devel/patch/20241206073828.1119464-4-irogers@google.com)
 *  xe       Documentation/gpu/xe/xe-drm-usage-stats.rst (docs.kernel.org/gpu/xe/xe-drm-usage-stats.html)
 *  msm      the "drm/msm: Add fdinfo" commit message (Rob Clark, dri-devel), glmark2 sample
 *  panfrost Documentation/gpu/panfrost.rst (torvalds/linux)
 *  v3d      "drm/v3d: Expose memory stats through fdinfo" (Maíra Canal, dri-devel), fdinfo/19
 *  amdxdna  (accel, major 261) the fdinfo example in the amdgpu-top-tui2 README (an
 *           fdinfo-capable amdxdna module on /dev/accel/accel0)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axl/error.h"
#include "check.h"
#include "fdinfo.h"
#include "util/fs.h"

static char root[256];

static void mkdirs(const char *rel)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0755);
}

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	if (!f) {
		perror(p);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

static void link_to(const char *rel, const char *target)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	unlink(p);
	if (symlink(target, p) != 0) {
		perror(p);
		exit(2);
	}
}

/* /proc/<pid> with comm and cgroup */
static void proc_add(int pid, const char *comm, const char *cgroup)
{
	char rel[128], text[512];
	snprintf(rel, sizeof rel, "proc/%d/fd", pid);
	mkdirs(rel);
	snprintf(rel, sizeof rel, "proc/%d/fdinfo", pid);
	mkdirs(rel);
	snprintf(rel, sizeof rel, "proc/%d/comm", pid);
	snprintf(text, sizeof text, "%s\n", comm);
	put(rel, text);
	snprintf(rel, sizeof rel, "proc/%d/cgroup", pid);
	put(rel, cgroup);
}

static void fd_add(int pid, int fd, const char *target, const char *fdinfo)
{
	char rel[128];
	snprintf(rel, sizeof rel, "proc/%d/fd/%d", pid, fd);
	link_to(rel, target);
	snprintf(rel, sizeof rel, "proc/%d/fdinfo/%d", pid, fd);
	put(rel, fdinfo ? fdinfo : "pos:\t0\nflags:\t02\nmnt_id:\t1\nino:\t1\n");
}

static void tree_reset(void)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s/proc'", root);
	if (system(cmd) != 0)
		exit(2);
	mkdirs("proc");
}

static void sweep(struct axl__fdi_sweep *s, uint64_t t_ns)
{
	struct axl__fs fs;
	CHECK_INT(axl__fs_init(&fs, root), 0);
	CHECK_INT(axl__fdinfo_sweep(&fs, s), 0);
	s->t_ns = t_ns;
	axl__fs_fini(&fs);
}

static const struct axl__fdi_client *client_of(const struct axl__fdi_sweep *s, int pid)
{
	for (size_t i = 0; i < s->n_clients; i++)
		if (s->clients[i].pid == pid)
			return &s->clients[i];
	return NULL;
}

/* One process with fd 5 on node; sample a then b, dt_ns apart; busy% of engine. */
static struct axl__fdi_util two(const char *node, const char *a, const char *b, uint64_t dt_ns,
				const char *engine)
{
	struct axl__fdi_sweep s1, s2;
	struct axl__fdi_util u = {false, -1, 0};
	tree_reset();
	proc_add(100, "app", "0::/user.slice\n");
	fd_add(100, 5, node, a);
	sweep(&s1, 1000000000);
	fd_add(100, 5, node, b);
	sweep(&s2, 1000000000 + dt_ns);
	const struct axl__fdi_client *c = client_of(&s2, 100);
	CHECK(c != NULL);
	if (c)
		axl__fdinfo_util(&s1, &s2, c, engine, &u);
	axl__fdinfo_sweep_free(&s1);
	axl__fdinfo_sweep_free(&s2);
	return u;
}

#define CHECK_PCT(u, want)                                                               \
	do {                                                                             \
		struct axl__fdi_util u_ = (u);                                           \
		CHECK(u_.valid);                                                         \
		CHECK(u_.busy_pct == (want));                                            \
		if (u_.busy_pct != (want))                                               \
			fprintf(stderr, "  busy %.9f want %.9f\n", u_.busy_pct, (double)(want)); \
	} while (0)

/* ---- samples ------------------------------------------------------------------------- */

static const char AMDGPU_A[] = "pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1071\n"
			       "pasid:\t32771\n"
			       "drm-driver:\tamdgpu\n"
			       "drm-pdev:\t0000:03:00.0\n"
			       "drm-client-id:\t16\n"
			       "drm-memory-vram:\t145924 KiB\n"
			       "drm-memory-gtt: \t4096 KiB\n"
			       "drm-memory-cpu: \t0 KiB\n"
			       "amd-memory-visible-vram:\t145924 KiB\n"
			       "amd-evicted-vram:\t0 KiB\n"
			       "drm-engine-gfx:\t4170836700 ns\n"
			       "drm-engine-compute:\t1276200 ns\n"
			       "drm-engine-dma:\t10239000 ns\n";
static const char AMDGPU_B[] = "pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1071\n"
			       "pasid:\t32771\n"
			       "drm-driver:\tamdgpu\n"
			       "drm-pdev:\t0000:03:00.0\n"
			       "drm-client-id:\t16\n"
			       "drm-memory-vram:\t149924 KiB\n"
			       "drm-memory-gtt: \t4096 KiB\n"
			       "drm-memory-cpu: \t0 KiB\n"
			       "amd-memory-visible-vram:\t149924 KiB\n"
			       "amd-evicted-vram:\t0 KiB\n"
			       "drm-engine-gfx:\t4670836700 ns\n"
			       "drm-engine-compute:\t1276200 ns\n"
			       "drm-engine-dma:\t35239000 ns\n";

static const char I915_A[] = "pos:    0\nflags:  02100002\nmnt_id: 26\nino:    284\n"
			     "drm-driver:     i915\n"
			     "drm-client-id:  39\n"
			     "drm-pdev:       0000:00:02.0\n"
			     "drm-total-system0:      6044 KiB\n"
			     "drm-shared-system0:     0\n"
			     "drm-active-system0:     0\n"
			     "drm-resident-system0:   6044 KiB\n"
			     "drm-purgeable-system0:  1688 KiB\n"
			     "drm-total-stolen-system0:       0\n"
			     "drm-shared-stolen-system0:      0\n"
			     "drm-active-stolen-system0:      0\n"
			     "drm-resident-stolen-system0:    0\n"
			     "drm-purgeable-stolen-system0:   0\n"
			     "drm-engine-render:      346249 ns\n"
			     "drm-engine-copy:        0 ns\n"
			     "drm-engine-video:       0 ns\n"
			     "drm-engine-capacity-video:      2\n"
			     "drm-engine-video-enhance:       0 ns\n";
static const char I915_B[] = "pos:    0\nflags:  02100002\nmnt_id: 26\nino:    284\n"
			     "drm-driver:     i915\n"
			     "drm-client-id:  39\n"
			     "drm-pdev:       0000:00:02.0\n"
			     "drm-total-system0:      6044 KiB\n"
			     "drm-shared-system0:     0\n"
			     "drm-active-system0:     0\n"
			     "drm-resident-system0:   6044 KiB\n"
			     "drm-purgeable-system0:  1688 KiB\n"
			     "drm-total-stolen-system0:       0\n"
			     "drm-shared-stolen-system0:      0\n"
			     "drm-active-stolen-system0:      0\n"
			     "drm-resident-stolen-system0:    0\n"
			     "drm-purgeable-stolen-system0:   0\n"
			     "drm-engine-render:      100346249 ns\n"
			     "drm-engine-copy:        0 ns\n"
			     "drm-engine-video:       1500000000 ns\n"
			     "drm-engine-capacity-video:      2\n"
			     "drm-engine-video-enhance:       0 ns\n";

#define XE_HEAD                                                                          \
	"pos:    0\nflags:  0100002\nmnt_id: 26\nino:    685\n"                        \
	"drm-driver:     xe\n"                                                           \
	"drm-client-id:  3\n"                                                            \
	"drm-pdev:       0000:03:00.0\n"                                                 \
	"drm-total-system:       0\n"                                                    \
	"drm-shared-system:      0\n"                                                    \
	"drm-active-system:      0\n"                                                    \
	"drm-resident-system:    0\n"                                                    \
	"drm-purgeable-system:   0\n"                                                    \
	"drm-total-gtt:  192 KiB\n"                                                      \
	"drm-shared-gtt: 0\n"                                                            \
	"drm-active-gtt: 0\n"                                                            \
	"drm-resident-gtt:       192 KiB\n"                                              \
	"drm-total-vram0:        23992 KiB\n"                                            \
	"drm-shared-vram0:       16 MiB\n"                                               \
	"drm-active-vram0:       0\n"                                                    \
	"drm-resident-vram0:     23992 KiB\n"                                            \
	"drm-total-stolen:       0\n"                                                    \
	"drm-shared-stolen:      0\n"                                                    \
	"drm-active-stolen:      0\n"                                                    \
	"drm-resident-stolen:    0\n"
static const char XE_A[] = XE_HEAD "drm-cycles-rcs: 28257900\n"
				   "drm-total-cycles-rcs:   7655183225\n"
				   "drm-cycles-bcs: 0\n"
				   "drm-total-cycles-bcs:   7655183225\n"
				   "drm-cycles-vcs: 0\n"
				   "drm-total-cycles-vcs:   7655183225\n"
				   "drm-engine-capacity-vcs:        2\n"
				   "drm-cycles-vecs:        0\n"
				   "drm-total-cycles-vecs:  7655183225\n"
				   "drm-engine-capacity-vecs:       2\n"
				   "drm-cycles-ccs: 0\n"
				   "drm-total-cycles-ccs:   7655183225\n"
				   "drm-engine-capacity-ccs:        4\n";
static const char XE_B[] = XE_HEAD "drm-cycles-rcs: 40757900\n"
				   "drm-total-cycles-rcs:   7705183225\n"
				   "drm-cycles-bcs: 0\n"
				   "drm-total-cycles-bcs:   7705183225\n"
				   "drm-cycles-vcs: 0\n"
				   "drm-total-cycles-vcs:   7705183225\n"
				   "drm-engine-capacity-vcs:        2\n"
				   "drm-cycles-vecs:        0\n"
				   "drm-total-cycles-vecs:  7705183225\n"
				   "drm-engine-capacity-vecs:       2\n"
				   "drm-cycles-ccs: 150000000\n"
				   "drm-total-cycles-ccs:   7705183225\n"
				   "drm-engine-capacity-ccs:        4\n";

static const char MSM_A[] = "pos:\t0\nflags:\t02400002\nmnt_id:\t21\nino:\t162\n"
			    "drm-driver:\tmsm\n"
			    "drm-client-id:\t7\n"
			    "drm-engine-gpu:\t1734371319 ns\n"
			    "drm-cycles-gpu:\t1153645024\n"
			    "drm-maxfreq-gpu:\t800000000 Hz\n";
static const char MSM_B[] = "pos:\t0\nflags:\t02400002\nmnt_id:\t21\nino:\t162\n"
			    "drm-driver:\tmsm\n"
			    "drm-client-id:\t7\n"
			    "drm-engine-gpu:\t2484371319 ns\n"
			    "drm-cycles-gpu:\t1753645024\n"
			    "drm-maxfreq-gpu:\t800000000 Hz\n";

static const char PANFROST_A[] = "pos:    0\nflags:  02400002\nmnt_id: 27\nino:    531\n"
				 "drm-driver:     panfrost\n"
				 "drm-client-id:  14\n"
				 "drm-engine-fragment:    1846584880 ns\n"
				 "drm-cycles-fragment:    1424359409\n"
				 "drm-maxfreq-fragment:   799999987 Hz\n"
				 "drm-curfreq-fragment:   799999987 Hz\n"
				 "drm-engine-vertex-tiler:        71932239 ns\n"
				 "drm-cycles-vertex-tiler:        52617357\n"
				 "drm-maxfreq-vertex-tiler:       799999987 Hz\n"
				 "drm-curfreq-vertex-tiler:       799999987 Hz\n"
				 "drm-total-memory:       290 MiB\n"
				 "drm-shared-memory:      0 MiB\n"
				 "drm-active-memory:      226 MiB\n"
				 "drm-resident-memory:    36496 KiB\n"
				 "drm-purgeable-memory:   128 KiB\n";
static const char PANFROST_B[] = "pos:    0\nflags:  02400002\nmnt_id: 27\nino:    531\n"
				 "drm-driver:     panfrost\n"
				 "drm-client-id:  14\n"
				 "drm-engine-fragment:    2046584880 ns\n"
				 "drm-cycles-fragment:    1584359409\n"
				 "drm-maxfreq-fragment:   799999987 Hz\n"
				 "drm-curfreq-fragment:   799999987 Hz\n"
				 "drm-engine-vertex-tiler:        121932239 ns\n"
				 "drm-cycles-vertex-tiler:        92617357\n"
				 "drm-maxfreq-vertex-tiler:       799999987 Hz\n"
				 "drm-curfreq-vertex-tiler:       799999987 Hz\n"
				 "drm-total-memory:       290 MiB\n"
				 "drm-shared-memory:      0 MiB\n"
				 "drm-active-memory:      226 MiB\n"
				 "drm-resident-memory:    36496 KiB\n"
				 "drm-purgeable-memory:   128 KiB\n";

static const char V3D_A[] = "pos:    0\nflags:  02400002\nmnt_id: 25\nino:    521\n"
			    "drm-driver:     v3d\n"
			    "drm-client-id:  81\n"
			    "drm-engine-bin:         4916187 ns\n"
			    "v3d-jobs-bin:   98 jobs\n"
			    "drm-engine-render:      154563573 ns\n"
			    "v3d-jobs-render:        98 jobs\n"
			    "drm-engine-tfu:         10574 ns\n"
			    "v3d-jobs-tfu:   1 jobs\n"
			    "drm-engine-csd:         0 ns\n"
			    "v3d-jobs-csd:   0 jobs\n"
			    "drm-engine-cache_clean:         0 ns\n"
			    "v3d-jobs-cache_clean:   0 jobs\n"
			    "drm-engine-cpu:         0 ns\n"
			    "v3d-jobs-cpu:   0 jobs\n"
			    "drm-total-memory:       15168 KiB\n"
			    "drm-shared-memory:      9336 KiB\n"
			    "drm-active-memory:      0\n";
static const char V3D_B[] = "pos:    0\nflags:  02400002\nmnt_id: 25\nino:    521\n"
			    "drm-driver:     v3d\n"
			    "drm-client-id:  81\n"
			    "drm-engine-bin:         4916187 ns\n"
			    "v3d-jobs-bin:   98 jobs\n"
			    "drm-engine-render:      654563573 ns\n"
			    "v3d-jobs-render:        140 jobs\n"
			    "drm-engine-tfu:         10574 ns\n"
			    "v3d-jobs-tfu:   1 jobs\n"
			    "drm-engine-csd:         0 ns\n"
			    "v3d-jobs-csd:   0 jobs\n"
			    "drm-engine-cache_clean:         0 ns\n"
			    "v3d-jobs-cache_clean:   0 jobs\n"
			    "drm-engine-cpu:         0 ns\n"
			    "v3d-jobs-cpu:   0 jobs\n"
			    "drm-total-memory:       15168 KiB\n"
			    "drm-shared-memory:      9336 KiB\n"
			    "drm-active-memory:      0\n";

static const char XDNA_A[] = "drm-driver: amdxdna_accel_driver\n"
			     "drm-pdev: 0000:c4:00.1\n"
			     "drm-engine-npu-amdxdna: 0 ns\n"
			     "drm-total-memory: 0 KiB\n";
static const char XDNA_B[] = "drm-driver: amdxdna_accel_driver\n"
			     "drm-pdev: 0000:c4:00.1\n"
			     "drm-engine-npu-amdxdna: 100000000 ns\n"
			     "drm-total-memory: 2048 KiB\n";

static void test_parse_samples(void)
{
	struct axl__fdinfo fi;
	const struct axl__fdi_engine *e;
	const struct axl__fdi_region *r;

	CHECK_INT(axl__fdinfo_parse(AMDGPU_A, strlen(AMDGPU_A), &fi), 0);
	CHECK_STR(fi.driver, "amdgpu");
	CHECK_STR(fi.pdev, "0000:03:00.0");
	CHECK(fi.have_client_id && fi.client_id == 16);
	CHECK_INT(fi.n_engines, 3);
	CHECK_INT(fi.dropped, 0);
	r = axl__fdinfo_region(&fi, "vram");
	CHECK(r && (r->have & (1u << AXL__FDI_MEM_LEGACY)) && r->bytes[AXL__FDI_MEM_LEGACY] == 145924ull * 1024);
	CHECK(r && !(r->have & (1u << AXL__FDI_MEM_RESIDENT)));
	r = axl__fdinfo_region(&fi, "gtt"); /* "drm-memory-gtt: \t4096 KiB" */
	CHECK(r && r->bytes[AXL__FDI_MEM_LEGACY] == 4096ull * 1024);

	CHECK_INT(axl__fdinfo_parse(I915_A, strlen(I915_A), &fi), 0);
	CHECK_INT(fi.dropped, 0);
	CHECK_INT(fi.n_regions, 2);
	r = axl__fdinfo_region(&fi, "stolen-system0");
	CHECK(r && r->have == 0x1f && r->bytes[AXL__FDI_MEM_TOTAL] == 0);
	r = axl__fdinfo_region(&fi, "system0");
	CHECK(r && r->bytes[AXL__FDI_MEM_PURGEABLE] == 1688ull * 1024);
	e = axl__fdinfo_engine(&fi, "video");
	CHECK(e && e->capacity == 2 && (e->have & AXL__FDI_ENG_CAPACITY));
	e = axl__fdinfo_engine(&fi, "video-enhance");
	CHECK(e && e->capacity == 1 && e->busy_ns == 0 && (e->have & AXL__FDI_ENG_NS));

	CHECK_INT(axl__fdinfo_parse(XE_A, strlen(XE_A), &fi), 0);
	CHECK_INT(fi.dropped, 0);
	CHECK_INT(fi.n_engines, 5);
	e = axl__fdinfo_engine(&fi, "ccs");
	CHECK(e && e->capacity == 4 && e->total_cycles == 7655183225ull && !(e->have & AXL__FDI_ENG_NS));
	r = axl__fdinfo_region(&fi, "vram0");
	CHECK(r && r->bytes[AXL__FDI_MEM_SHARED] == 16ull << 20 &&
	      r->bytes[AXL__FDI_MEM_RESIDENT] == 23992ull * 1024);

	CHECK_INT(axl__fdinfo_parse(MSM_A, strlen(MSM_A), &fi), 0);
	e = axl__fdinfo_engine(&fi, "gpu");
	CHECK(e && e->maxfreq_hz == 800000000ull && e->cycles == 1153645024ull);
	CHECK(fi.pdev[0] == '\0'); /* a platform device: no drm-pdev */

	CHECK_INT(axl__fdinfo_parse(PANFROST_A, strlen(PANFROST_A), &fi), 0);
	CHECK_INT(fi.dropped, 0);
	CHECK_INT(fi.n_engines, 2);
	r = axl__fdinfo_region(&fi, "memory");
	CHECK(r && r->bytes[AXL__FDI_MEM_TOTAL] == 290ull << 20 &&
	      r->bytes[AXL__FDI_MEM_RESIDENT] == 36496ull * 1024);

	CHECK_INT(axl__fdinfo_parse(V3D_A, strlen(V3D_A), &fi), 0);
	CHECK_INT(fi.n_engines, 6);
	CHECK_INT(fi.dropped, 0);

	CHECK_INT(axl__fdinfo_parse(XDNA_A, strlen(XDNA_A), &fi), 0);
	CHECK_STR(fi.driver, "amdxdna_accel_driver");
	CHECK(axl__fdinfo_engine(&fi, "npu-amdxdna") != NULL);
}

static void test_two_samples(void)
{
	const char *dri = "/dev/dri/renderD128";
	CHECK_PCT(two(dri, AMDGPU_A, AMDGPU_B, 1000000000, "gfx"), 50.0);
	CHECK_PCT(two(dri, AMDGPU_A, AMDGPU_B, 1000000000, "dma"), 2.5);
	CHECK_PCT(two(dri, AMDGPU_A, AMDGPU_B, 1000000000, "compute"), 0.0);
	CHECK_PCT(two(dri, I915_A, I915_B, 1000000000, "render"), 10.0);
	struct axl__fdi_util u = two(dri, I915_A, I915_B, 1000000000, "video");
	CHECK_PCT(u, 150.0); /* two video engines */
	CHECK_INT(u.capacity, 2);
	CHECK_PCT(two(dri, XE_A, XE_B, 1000000000, "rcs"), 25.0); /* cycles, not time */
	u = two(dri, XE_A, XE_B, 7, "ccs");
	CHECK_PCT(u, 300.0);
	CHECK_INT(u.capacity, 4);
	CHECK_PCT(two("/dev/dri/renderD128", MSM_A, MSM_B, 1000000000, "gpu"), 75.0);
	CHECK_PCT(two(dri, PANFROST_A, PANFROST_B, 1000000000, "fragment"), 20.0);
	CHECK_PCT(two(dri, PANFROST_A, PANFROST_B, 1000000000, "vertex-tiler"), 5.0);
	CHECK_PCT(two(dri, V3D_A, V3D_B, 2000000000, "render"), 25.0);
	CHECK_PCT(two("/dev/accel/accel0", XDNA_A, XDNA_B, 1000000000, "npu-amdxdna"), 10.0);

	/* unknown, never negative or huge */
	u = two(dri, AMDGPU_B, AMDGPU_A, 1000000000, "gfx"); /* went backwards */
	CHECK(!u.valid);
	u = two(dri, XE_B, XE_A, 1000000000, "rcs");
	CHECK(!u.valid);
	u = two(dri, XE_A, XE_A, 1000000000, "rcs"); /* total-cycles did not move */
	CHECK(!u.valid);
	u = two(dri, AMDGPU_A, AMDGPU_B, 0, "gfx"); /* no time passed */
	CHECK(!u.valid);
	u = two(dri, AMDGPU_A, AMDGPU_B, 1000000000, "enc"); /* no such engine */
	CHECK(!u.valid);
	u = two(dri, AMDGPU_A, AMDGPU_B, 100000000, "gfx"); /* 500 ms busy in 100 ms */
	CHECK_PCT(u, 100.0);
	/* the same fd now holds another client */
	char other[sizeof AMDGPU_B];
	memcpy(other, AMDGPU_B, sizeof other);
	char *id = strstr(other, "drm-client-id:\t16");
	CHECK(id != NULL);
	if (id)
		id[16] = '7';
	u = two(dri, AMDGPU_A, other, 1000000000, "gfx");
	CHECK(!u.valid);
	/* the first sweep alone gives nothing */
	struct axl__fdi_sweep empty = {0};
	struct axl__fdi_sweep s;
	sweep(&s, 5);
	CHECK_INT(s.n_clients, 1);
	axl__fdinfo_util(&empty, &s, &s.clients[0], "gfx", &u);
	CHECK(!u.valid);
	axl__fdinfo_sweep_free(&s);
}

static void test_sweep(void)
{
	tree_reset();
	/* a containerised process with two fds on one client, one on a second device,
	 * sockets and files, a card node whose fdinfo has no drm- keys */
	const char *cid = "4b2a1e0f9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f";
	char cg[256];
	snprintf(cg, sizeof cg, "0::/system.slice/docker-%s.scope\n", cid);
	proc_add(4242, "python3", cg);
	fd_add(4242, 0, "/dev/null", NULL);
	fd_add(4242, 1, "pipe:[1234]", NULL);
	fd_add(4242, 2, "socket:[5678]", NULL);
	fd_add(4242, 7, "/dev/dri/renderD128", AMDGPU_A);
	fd_add(4242, 9, "/dev/dri/renderD128", AMDGPU_A); /* dup: same client 16 */
	fd_add(4242, 11, "/dev/dri/card1", "pos:\t0\nflags:\t02\n");
	fd_add(4242, 12, "/dev/accel/accel0", XDNA_A);
	/* a v1-only host's process with an i915 client */
	proc_add(17, "Xorg\x01", "12:memory:/user.slice\n11:cpu:/\n");
	fd_add(17, 3, "/dev/dri/card0", I915_A);
	/* a process without DRM fds, one whose fd dir is missing, not-a-pid entries */
	proc_add(5, "bash", "0::/\n");
	fd_add(5, 0, "/dev/pts/0", NULL);
	mkdirs("proc/6");
	mkdirs("proc/self");
	put("proc/uptime", "1.0 1.0\n");

	struct axl__fdi_sweep s;
	sweep(&s, 1);
	CHECK_INT(s.pids_seen, 4);
	CHECK_INT(s.n_procs, 2);
	CHECK_INT(s.n_clients, 3);
	CHECK_INT(s.drm_fds, 5);
	CHECK_INT(s.fds_seen, 9);
	CHECK_INT(s.procs[0].pid, 17);
	CHECK_STR(s.procs[0].comm, "Xorg?");
	CHECK_STR(s.procs[0].cgroup, "/user.slice");
	CHECK_STR(s.procs[0].container, "");
	CHECK_INT(s.procs[1].pid, 4242);
	CHECK_STR(s.procs[1].comm, "python3");
	CHECK_STR(s.procs[1].container, cid);
	CHECK_INT(s.procs[1].n, 2);
	const struct axl__fdi_client *c = &s.clients[s.procs[1].first];
	CHECK_STR(axl__fdi_dev(c), "0000:03:00.0");
	CHECK_INT(c->nfds, 2);
	CHECK_INT(c->fd, 7);
	CHECK_INT(c->major, 226);
	CHECK_STR(c->node, "renderD128");
	c++;
	CHECK_STR(axl__fdi_dev(c), "0000:c4:00.1");
	CHECK_INT(c->major, 261);
	CHECK_STR(c->node, "accel0");
	uint64_t b = 0;
	CHECK_INT(axl__fdinfo_proc_mem(&s, 4242, "0000:03:00.0", "vram", AXL__FDI_MEM_LEGACY, &b), 0);
	CHECK(b == 145924ull * 1024); /* counted once, not per fd */
	CHECK_INT(axl__fdinfo_proc_mem(&s, 4242, "0000:03:00.0", "vram", AXL__FDI_MEM_RESIDENT, &b),
		  AXL_EUNKNOWN);
	CHECK_INT(axl__fdinfo_proc_mem(&s, 99, "0000:03:00.0", "vram", AXL__FDI_MEM_LEGACY, &b),
		  AXL_EUNKNOWN);

	/* second sweep: busy per process and device; a new client is partial */
	fd_add(4242, 7, "/dev/dri/renderD128", AMDGPU_B);
	fd_add(4242, 9, "/dev/dri/renderD128", AMDGPU_B);
	char fresh[sizeof AMDGPU_A];
	memcpy(fresh, AMDGPU_A, sizeof fresh);
	char *id = strstr(fresh, "drm-client-id:\t16");
	if (id)
		id[15] = '2'; /* client 26, opened during the interval */
	fd_add(4242, 13, "/dev/dri/renderD128", fresh);
	struct axl__fdi_sweep s2;
	sweep(&s2, 1000000001);
	struct axl__fdi_util u;
	bool partial = false;
	axl__fdinfo_proc_util(&s, &s2, 4242, "0000:03:00.0", "gfx", &u, &partial);
	CHECK_PCT(u, 50.0);
	CHECK(partial);
	axl__fdinfo_proc_util(&s, &s2, 4242, "0000:c4:00.1", "npu-amdxdna", &u, &partial);
	CHECK_PCT(u, 0.0);
	CHECK(!partial);
	axl__fdinfo_proc_util(&s, &s2, 4242, "0000:99:00.0", "gfx", &u, &partial);
	CHECK(!u.valid);
	axl__fdinfo_sweep_free(&s);
	axl__fdinfo_sweep_free(&s2);

	/* no /proc at all */
	tree_reset();
	char p[300];
	snprintf(p, sizeof p, "%s/proc", root);
	rmdir(p);
	struct axl__fs fs;
	CHECK_INT(axl__fs_init(&fs, root), 0);
	CHECK_INT(axl__fdinfo_sweep(&fs, &s), AXL_ENOENT);
	axl__fs_fini(&fs);
	mkdirs("proc");
}

static void test_malformed(void)
{
	struct axl__fdinfo fi;
	static const char bad[] =
		"drm-driver:\ti915\n"
		"drm-engine-a:\tabc ns\n"              /* not a number */
		"drm-engine-b:\t12 ms\n"               /* wrong unit */
		"drm-engine-c:\t12ns\n"                /* glued unit */
		"drm-engine-d:\t99999999999999999999 ns\n" /* overflow */
		"drm-engine-e:\t-5 ns\n"
		"drm-engine-capacity-f:\t0\n"          /* zero capacity is not allowed */
		"drm-client-id:\t-1\n"
		"drm-pdev:\tnot-a-bdf\n"
		"drm-total-vram:\t18446744073709551615 MiB\n" /* bytes overflow */
		"drm-total-x y:\t1\n"                  /* blank in the key */
		"drm-engine-" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:\t1 ns\n" /* long name */
		"drm-engine-ok:\t5 ns\n"
		"drm-engine-g\n"                       /* no colon */
		"drm-total-vram0:\t7\n"
		"drm-unknown-key:\twhatever\n"         /* ignored, not dropped */
		"drm-maxfreq-ok:\t2 MHz\n"
		"drm-engine-cut:\t12";                 /* truncated: still a number */
	CHECK_INT(axl__fdinfo_parse(bad, strlen(bad), &fi), 0);
	CHECK_INT(fi.dropped, 12);
	CHECK(!fi.have_client_id);
	CHECK_STR(fi.pdev, "");
	CHECK_INT(fi.n_engines, 2 + 0); /* ok, cut (no engine created for bad values) */
	const struct axl__fdi_engine *e = axl__fdinfo_engine(&fi, "ok");
	CHECK(e && e->busy_ns == 5 && e->maxfreq_hz == 2000000);
	e = axl__fdinfo_engine(&fi, "cut");
	CHECK(e && e->busy_ns == 12);
	const struct axl__fdi_region *r = axl__fdinfo_region(&fi, "vram0");
	CHECK(r && r->bytes[AXL__FDI_MEM_TOTAL] == 7);
	CHECK(axl__fdinfo_region(&fi, "vram") == NULL);

	/* not a DRM fdinfo */
	CHECK_INT(axl__fdinfo_parse("", 0, &fi), AXL_ENOENT);
	CHECK_INT(axl__fdinfo_parse("pos:\t0\nflags:\t02\n", 17, &fi), AXL_ENOENT);
	CHECK_INT(axl__fdinfo_parse("drm-driver:\t\n", 13, &fi), AXL_ENOENT);
	CHECK_INT(axl__fdinfo_parse("drm-driver:\ta b\n", 16, &fi), AXL_ENOENT);
	/* NUL bytes and no terminator: len is what counts */
	static const char nul[] = "drm-driver:\tv3d\n\0drm-engine-x:\t1 ns\ndrm-engine-y:\t2 ns";
	CHECK_INT(axl__fdinfo_parse(nul, sizeof nul - 1, &fi), 0);
	CHECK(axl__fdinfo_engine(&fi, "y") != NULL);
	CHECK_INT(axl__fdinfo_parse(nul, 14, &fi), 0); /* cut inside the driver name */
	CHECK_STR(fi.driver, "v3");

	/* bounds: more engines and regions than kept */
	char big[8192];
	size_t n = (size_t)snprintf(big, sizeof big, "drm-driver:\tx\n");
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(big + n, sizeof big - n, "drm-engine-e%d:\t%d ns\ndrm-total-r%d:\t1\n",
				      i, i, i);
	CHECK_INT(axl__fdinfo_parse(big, n, &fi), 0);
	CHECK_INT(fi.n_engines, AXL__FDI_MAX_ENGINES);
	CHECK_INT(fi.n_regions, AXL__FDI_MAX_REGIONS);
	CHECK_INT(fi.dropped, (40 - AXL__FDI_MAX_ENGINES) + (40 - AXL__FDI_MAX_REGIONS));

	/* huge: 1 MiB of one line, of newlines, of random bytes */
	size_t hn = 1 << 20;
	char *h = malloc(hn);
	CHECK(h != NULL);
	if (h) {
		memset(h, 'd', hn);
		CHECK_INT(axl__fdinfo_parse(h, hn, &fi), AXL_ENOENT);
		memset(h, '\n', hn);
		CHECK_INT(axl__fdinfo_parse(h, hn, &fi), AXL_ENOENT);
		unsigned x = 12345;
		for (size_t i = 0; i < hn; i++) {
			x = x * 1103515245u + 12345u;
			h[i] = (char)(x >> 16);
		}
		axl__fdinfo_parse(h, hn, &fi);
		free(h);
	}

	/* a hostile tree: an fdinfo bigger than the cap, a link loop, a FIFO */
	tree_reset();
	proc_add(300, "evil", "0::/x");  /* no newline: cgroup unknown */
	char *fat = malloc(AXL__FDI_MAX_TEXT * 2);
	if (fat) {
		size_t fn = (size_t)snprintf(fat, AXL__FDI_MAX_TEXT, "drm-driver:\tx\n");
		memset(fat + fn, ' ', AXL__FDI_MAX_TEXT * 2 - fn - 1);
		fat[AXL__FDI_MAX_TEXT * 2 - 1] = '\0';
		fd_add(300, 3, "/dev/dri/renderD128", fat);
		free(fat);
	}
	fd_add(300, 4, "/dev/dri/renderD129", MSM_A);
	char p[512];
	snprintf(p, sizeof p, "%s/proc/300/fdinfo/5", root);
	mkfifo(p, 0600);
	snprintf(p, sizeof p, "proc/300/fd/5");
	link_to(p, "/dev/dri/renderD130");
	snprintf(p, sizeof p, "proc/300/fd/6");
	link_to(p, "/dev/dri/../../etc/passwd");
	struct axl__fdi_sweep s;
	sweep(&s, 1);
	CHECK_INT(s.n_clients, 1);
	CHECK_INT(s.unreadable, 1); /* the fat one; the FIFO reads empty, without blocking */
	CHECK_STR(s.procs[0].cgroup, "");
	axl__fdinfo_sweep_free(&s);

	CHECK(!axl__fdinfo_container_id("/user.slice/user-1000.slice", p, sizeof p));
	CHECK(axl__fdinfo_container_id(
	    "/kubepods/besteffort/pod1/"
	    "cri-containerd-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope",
	    p, sizeof p));
	CHECK_STR(p, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
}

int main(void)
{
	snprintf(root, sizeof root, "%s/axl-fdinfo-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 2;
	}
	mkdirs("proc");
	test_parse_samples();
	test_two_samples();
	test_sweep();
	test_malformed();
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
	return check_summary();
}
