/* SPDX-License-Identifier: MIT */
/*
 * AMD compute and memory partition modes through the amdgpu driver's sysfs attributes
 * in the GPU's PCI device directory (docs/partition-backends.md):
 *   current_compute_partition / available_compute_partition   SPX DPX TPX QPX CPX
 *   current_memory_partition  / available_memory_partition    NPS1 NPS2 NPS4 NPS8
 * The kernel refuses a switch while the GPU has users; axl checks first (DRM clients
 * in /proc/<pid>/fdinfo, KFD processes) so the error names a process.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "amdgpu.h"
#include "fdinfo.h"

#define SETTLE_MS 10000 /* the kernel may take seconds to re-partition */

/* trim s in place (spaces and newlines at both ends) */
static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* is mode among the comma- or space-separated names of list */
static bool listed(const char *list, const char *mode)
{
	size_t m = strlen(mode);
	for (const char *p = list; *p;) {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		size_t n = strcspn(p, ", \t\n");
		if (n && n == m && strncasecmp(p, mode, n) == 0)
			return true;
		p += n;
	}
	return false;
}

static long read_attr(const struct axl__fs *fs, const char *dir, const char *name, char *buf, size_t cap)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return axl__fs_read(fs, AXL__FS_ROOT, path, buf, cap);
}

/* a process using the GPU: 0 none, else its pid (> 0) */
static int user_of(const struct axl__fs *fs, const char *pci)
{
	int pid = 0;
	struct axl__fdi_sweep sw;
	memset(&sw, 0, sizeof sw);
	if (pci && axl__fdinfo_sweep(fs, &sw) == 0) {
		for (size_t i = 0; i < sw.n_clients && !pid; i++)
			if (strcasecmp(sw.clients[i].info.pdev, pci) == 0)
				pid = sw.clients[i].pid;
		axl__fdinfo_sweep_free(&sw);
	}
	if (pid)
		return pid;
	/* KFD (ROCm) processes: /sys/class/kfd/kfd/proc/<pid>. Which GPUs a process has
	 * opened is not told by every kernel: any of them counts. */
	axl__dir *d = axl__fs_opendir(fs, AXL__FS_ROOT, "/sys/class/kfd/kfd/proc");
	if (d) {
		struct dirent *e;
		while (!pid && (e = axl__fs_readdir(d))) {
			char *end;
			long v = strtol(e->d_name, &end, 10);
			if (*e->d_name && !*end && v > 0 && v < (1l << 30))
				pid = (int)v;
		}
		axl__fs_closedir(d);
	}
	return pid;
}

static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&t, &t) == -1 && errno == EINTR)
		;
}

int axl__amdgpu_set_partition_mode(const struct axl__fs *fs, const struct axl_device *gpu,
				   const char *kind, const char *mode)
{
	if (!fs || !gpu || !kind || !mode || !*mode || strlen(mode) > 16)
		return axl__error(AXL_EINVAL, "bad arguments");
	bool compute = strcmp(kind, "compute") == 0;
	if (!compute && strcmp(kind, "memory") != 0)
		return axl__error(AXL_EINVAL, "partition kind '%s': compute or memory", kind);
	const char *dir = gpu->syspath, *pci = axl__str(gpu, AXL_ATTR_PCI_ADDRESS);
	const char *id = axl__str(gpu, AXL_ATTR_ID);
	if (!id)
		id = pci ? pci : "the GPU";
	if (!dir || !*dir)
		return axl__error(AXL_ENOTSUP, "%s has no sysfs directory", id);
	const char *cur_name = compute ? "current_compute_partition" : "current_memory_partition";
	char cur[64], avail[256];
	long n = read_attr(fs, dir, cur_name, cur, sizeof cur);
	if (n == -ENOENT)
		return axl__error(AXL_ENOTSUP, "this GPU has no %s partitions (%s: no %s)", kind, id, cur_name);
	if (n < 0)
		return axl__error(n == -EACCES ? AXL_EPERM : AXL_EIO, "%s: cannot read %s: %s", id, cur_name,
				  strerror((int)-n));
	/* available_compute_partition (kernel docs); some trees spell it with an s */
	const char *av_name = compute ? "available_compute_partition" : "available_memory_partition";
	n = read_attr(fs, dir, av_name, avail, sizeof avail);
	if (n == -ENOENT && compute) {
		av_name = "available_compute_partitions";
		n = read_attr(fs, dir, av_name, avail, sizeof avail);
	}
	if (n < 0)
		return axl__error(AXL_ENOTSUP, "this GPU has no %s partitions (%s: %s unreadable: %s)", kind, id,
				  av_name, strerror((int)-n));
	char *c = trim(cur), *a = trim(avail);
	if (!listed(a, mode))
		return axl__error(AXL_EINVAL, "%s lists %s modes %s; not %s", id, kind, *a ? a : "(none)", mode);
	if (strcasecmp(c, mode) == 0)
		return 0;
	int pid = user_of(fs, pci);
	if (pid)
		return axl__error(AXL_EBUSY, "%s is in use (process %d): stop its users before switching to %s", id,
				  pid, mode);
	char path[512], want[24];
	snprintf(path, sizeof path, "%s/%s", dir, cur_name);
	snprintf(want, sizeof want, "%s", mode);
	for (char *p = want; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	int fd = axl__fs_open(fs, AXL__FS_ROOT, path, O_WRONLY | O_TRUNC); /* sysfs ignores O_TRUNC */
	if (fd < 0)
		return axl__error(fd == -EACCES || fd == -EPERM ? AXL_EPERM : AXL_EIO, "%s: cannot open %s: %s", id,
				  cur_name, strerror(-fd));
	int w = axl__write_all(fd, want, strlen(want));
	close(fd);
	if (w < 0)
		return axl__error(w == -EBUSY ? AXL_EBUSY : w == -EPERM || w == -EACCES ? AXL_EPERM : AXL_EBACKEND,
				  "%s: writing %s to %s: %s", id, want, cur_name, strerror(-w));
	for (long waited = 0;; waited += 100) {
		n = read_attr(fs, dir, cur_name, cur, sizeof cur);
		if (n >= 0 && strcasecmp(trim(cur), want) == 0)
			return 0;
		if (waited >= SETTLE_MS)
			break;
		sleep_ms(100);
	}
	return axl__error(AXL_EBACKEND, "%s: wrote %s to %s but it reads %s after %d s", id, want, cur_name,
			  n >= 0 ? trim(cur) : "nothing", SETTLE_MS / 1000);
}
