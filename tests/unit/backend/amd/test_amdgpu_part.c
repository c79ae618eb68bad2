/* SPDX-License-Identifier: MIT */
/* AMD partition modes (src/lib/backend/amdgpu_part.c) on a synthetic tree: SPX -> CPX
 * writes the attribute, an unlisted mode is refused naming the listed ones, the current
 * mode writes nothing, a DRM client in /proc/<pid>/fdinfo or a KFD process makes the GPU
 * busy, memory modes, and a GPU without the attributes is not supported. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "amdgpu.h"
#include "internal.h"

#define DEV "sys/bus/pci/devices/0000:c1:00.0"
static char root[512];

static void mkdirs(const char *rel)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

static void put(const char *rel, const char *text)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	if (!f) {
		perror(p);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

static void get(const char *rel, char *buf, size_t cap)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	buf[0] = '\0';
	FILE *f = fopen(p, "r");
	if (f) {
		size_t n = fread(buf, 1, cap - 1, f);
		buf[n] = '\0';
		fclose(f);
	}
}

static void reset(void)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s/sys' '%s/proc'", root, root);
	if (system(cmd) != 0)
		exit(2);
	mkdirs(DEV);
	mkdirs("proc/1");
	put(DEV "/current_compute_partition", "SPX\n");
	put(DEV "/available_compute_partition", "SPX, DPX, QPX, CPX\n");
	put(DEV "/current_memory_partition", "NPS1\n");
	put(DEV "/available_memory_partition", "NPS1, NPS4\n");
}

int main(void)
{
	snprintf(root, sizeof root, "/tmp/axl-amdgpu-part-%ld", (long)getpid());
	mkdir(root, 0755);
	struct axl__fs fs;
	struct axl_device gpu;
	memset(&gpu, 0, sizeof gpu);
	gpu.syspath = "/" DEV;
	gpu.attr[AXL_ATTR_PCI_ADDRESS].v.s = "0000:c1:00.0";
	gpu.attr[AXL_ATTR_PCI_ADDRESS].src = AXL_SOURCE_SYSFS;
	gpu.attr[AXL_ATTR_ID].v.s = "amdgpu0";
	gpu.attr[AXL_ATTR_ID].src = AXL_SOURCE_SYSFS;
	char buf[128];

	reset();
	CHECK_INT(axl__fs_init(&fs, root), 0);
	/* switch SPX -> CPX */
	CHECK_INT(axl__amdgpu_set_partition_mode(&fs, &gpu, "compute", "CPX"), 0);
	get(DEV "/current_compute_partition", buf, sizeof buf);
	CHECK_STR(buf, "CPX");
	/* lower case is accepted and written in capitals */
	CHECK_INT(axl__amdgpu_set_partition_mode(&fs, &gpu, "compute", "dpx"), 0);
	get(DEV "/current_compute_partition", buf, sizeof buf);
	CHECK_STR(buf, "DPX");
	/* not listed: refused, naming what is */
	CHECK_INT(axl__amdgpu_set_partition_mode(&fs, &gpu, "compute", "TPX"), AXL_EINVAL);
	CHECK(strstr(axl_error_last(), "SPX, DPX, QPX, CPX") != NULL);
	CHECK_INT(axl__amdgpu_set_partition_mode(&fs, &gpu, "compute", "NPS4"), AXL_EINVAL);
	/* the current mode: nothing written (the file keeps its exact text) */
	put(DEV "/current_compute_partition", "SPX\n");
	CHECK_INT(axl__amdgpu_set_partition_mode(&fs, &gpu, "compute", "SPX"), 0);
	get(DEV "/current_compute_partition", buf, sizeof buf);
	CHECK_STR(buf, "SPX\n");
	/* memory modes */
	CHECK_INT(axl__amdgpu_set_partition_mode(&fs, &gpu, "memory", "NPS4"), 0);
	get(DEV "/current_memory_partition", buf, sizeof buf);
	CHECK_STR(buf, "NPS4");
	CHECK_INT(axl__amdgpu_set_partition_mode(&fs, &gpu, "memory", "NPS2"), AXL_EINVAL);
	CHECK_INT(axl__amdgpu_set_partition_mode(&fs, &gpu, "cache", "NPS2"), AXL_EINVAL);

	/* a DRM client of this GPU: busy, naming the process; of another GPU: not */
	mkdirs("proc/4242/fd");
	mkdirs("proc/4242/fdinfo");
	put("proc/4242/comm", "trainer\n");
	char p[1024];
	snprintf(p, sizeof p, "%s/proc/4242/fd/5", root);
	CHECK(symlink("/dev/dri/renderD128", p) == 0);
	put("proc/4242/fdinfo/5",
	    "pos:\t0\nflags:\t02\ndrm-driver:\tamdgpu\ndrm-pdev:\t0000:c2:00.0\ndrm-client-id:\t7\n");
	CHECK_INT(axl__amdgpu_set_partition_mode(&fs, &gpu, "compute", "CPX"), 0);
	put(DEV "/current_compute_partition", "SPX\n");
	put("proc/4242/fdinfo/5",
	    "pos:\t0\nflags:\t02\ndrm-driver:\tamdgpu\ndrm-pdev:\t0000:c1:00.0\ndrm-client-id:\t7\n");
	CHECK_INT(axl__amdgpu_set_partition_mode(&fs, &gpu, "compute", "CPX"), AXL_EBUSY);
	CHECK(strstr(axl_error_last(), "4242") != NULL);
	get(DEV "/current_compute_partition", buf, sizeof buf);
	CHECK_STR(buf, "SPX\n");
	/* the current mode needs no check */
	CHECK_INT(axl__amdgpu_set_partition_mode(&fs, &gpu, "compute", "SPX"), 0);
	axl__fs_fini(&fs);

	/* a KFD process */
	reset();
	mkdirs("sys/class/kfd/kfd/proc/777");
	CHECK_INT(axl__fs_init(&fs, root), 0);
	CHECK_INT(axl__amdgpu_set_partition_mode(&fs, &gpu, "compute", "CPX"), AXL_EBUSY);
	CHECK(strstr(axl_error_last(), "777") != NULL);
	axl__fs_fini(&fs);

	/* no attributes: not supported; the plural spelling of the list is read too */
	reset();
	snprintf(p, sizeof p, "%s/" DEV "/current_memory_partition", root);
	unlink(p);
	snprintf(p, sizeof p, "%s/" DEV "/available_compute_partition", root);
	unlink(p);
	put(DEV "/available_compute_partitions", "SPX,CPX");
	CHECK_INT(axl__fs_init(&fs, root), 0);
	CHECK_INT(axl__amdgpu_set_partition_mode(&fs, &gpu, "memory", "NPS4"), AXL_ENOTSUP);
	CHECK(strstr(axl_error_last(), "no memory partitions") != NULL);
	CHECK_INT(axl__amdgpu_set_partition_mode(&fs, &gpu, "compute", "CPX"), 0);
	snprintf(p, sizeof p, "%s/" DEV "/current_compute_partition", root);
	unlink(p);
	CHECK_INT(axl__amdgpu_set_partition_mode(&fs, &gpu, "compute", "CPX"), AXL_ENOTSUP);
	CHECK(strstr(axl_error_last(), "no compute partitions") != NULL);
	axl__fs_fini(&fs);

	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		return 2;
	return check_summary();
}
