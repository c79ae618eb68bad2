/* SPDX-License-Identifier: MIT */
/*
 * Limited workloads in a sample (include/axl/metrics.h, struct axl_workload): a read-only
 * reader of the LD_PRELOAD limiter's shared regions (util/region_format.h; the writer is
 * src/limiter/region.c, which libaxl does not link). Which files: $AXL_LIMITER_REGION,
 * <state dir>/limiter.region and <state dir>/limiter/NAME.region (docs/limits.md,
 * "Observability").
 *
 * The files are read with pread, never mapped (a file truncated while it is read cannot
 * raise SIGBUS), and never written: no lock is taken and no slot reclaimed. A file that
 * is short, has a wrong magic, wrong sizes or checksum, or a newer major version gives a
 * warning in the sample and no rows. A process slot counts when its process is alive
 * (/proc/PID/stat's start time matches); a slot of another pid namespace (a container's
 * process seen from the node) cannot be checked here and counts.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sample.h"
#include "util/region_format.h"

#define MAX_REGIONS 256

/* 1: the process is alive with this start time (or its start time is not known) */
static int proc_alive(int pid, uint64_t start_time)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return !(errno == ENOENT || errno == ESRCH);
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return 1;
	p += 2;
	if (*p == 'Z' || *p == 'X' || *p == 'x')
		return 0;
	for (int i = 0; i < 19 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p)
		return 1;
	uint64_t st = strtoull(p, NULL, 10);
	return !(start_time && st && st != start_time);
}

static uint64_t pidns_self(void)
{
	struct stat st;
	return stat("/proc/self/ns/pid", &st) < 0 ? 0 : (uint64_t)st.st_ino;
}

static int read_full(int fd, void *buf, size_t n, off_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, off + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* The header and device table of the file, checked; 0 or a warning given (-1). */
static int read_static(struct axl_sample *out, const char *path, int fd, struct region_file *f)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		axl__swarn(out, "%s: not a regular file: limiter region ignored", path);
		return -1;
	}
	size_t size = (size_t)st.st_size;
	size_t head = offsetof(struct region_file, lock);
	if (size < head || read_full(fd, f, head, 0) < 0) {
		axl__swarn(out, "%s: truncated (%zu bytes): not a limiter region, ignored", path, size);
		return -1;
	}
	if (f->magic != REGION_MAGIC) {
		axl__swarn(out, "%s: not a limiter region (magic 0x%08x), ignored", path, f->magic);
		return -1;
	}
	if (f->major != REGION_MAJOR) {
		axl__swarn(out, "%s: limiter region version %u.%u%s (this axl reads %d.x): its usage is not shown",
			   path, f->major, f->minor, f->major > REGION_MAJOR ? ", written by a newer axl" : "",
			   REGION_MAJOR);
		return -1;
	}
	size_t fixed = offsetof(struct region_file, slots);
	if (size < sizeof *f) {
		axl__swarn(out, "%s: truncated: %zu bytes, a limiter region is %zu; ignored", path, size, sizeof *f);
		return -1;
	}
	if (f->file_size != sizeof *f || f->nslots != AXL__REGION_MAX_PROCS || f->ndev == 0 ||
	    f->ndev > AXL__REGION_MAX_DEVICES || f->slot_size != sizeof(struct region_slot)) {
		axl__swarn(out, "%s: corrupted limiter region (sizes: file %llu, %u devices, %u slots), ignored", path,
			   (unsigned long long)f->file_size, f->ndev, f->nslots);
		return -1;
	}
	/* a limit change writes the limit, then the checksum: read again when they disagree */
	for (int tries = 0; tries < 3; tries++) {
		if (read_full(fd, f, fixed, 0) < 0) {
			axl__swarn(out, "%s: cannot read: %s; limiter region ignored", path, strerror(errno));
			return -1;
		}
		if (f->checksum == region_checksum(f))
			return 0;
		usleep(1000);
	}
	axl__swarn(out, "%s: corrupted limiter region (the checksum of its header and limits does not match), ignored",
		   path);
	return -1;
}

static void read_region(struct axl_sampler *s, struct axl_sample *out, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno != ENOENT)
			axl__swarn(out, "%s: cannot open the limiter region: %s", path, strerror(errno));
		return;
	}
	/* the whole layout (a lazily backed allocation); only the slots in use are read */
	struct region_file *f = malloc(sizeof *f);
	struct region_slot *slots = NULL;
	if (!f)
		goto out;
	if (read_static(out, path, fd, f))
		goto out;
	uint32_t hwm = atomic_load(&f->slot_hwm);
	if (hwm > f->nslots)
		hwm = f->nslots;
	if (hwm) {
		slots = f->slots;
		if (read_full(fd, slots, (size_t)hwm * sizeof *slots, offsetof(struct region_file, slots)) < 0) {
			axl__swarn(out, "%s: cannot read the limiter region's process slots, ignored", path);
			goto out;
		}
	}
	uint64_t ns = pidns_self();
	uint64_t used[AXL__REGION_MAX_DEVICES] = {0};
	int live = 0;
	int local_pids[64];
	int nlocal = 0;
	for (uint32_t i = 0; i < hwm; i++) {
		const struct region_slot *sl = &slots[i];
		int pid = atomic_load(&sl->pid);
		if (pid <= 0)
			continue;
		uint64_t sns = atomic_load(&sl->pidns);
		bool foreign = ns && sns && sns != ns;
		if (!foreign && !proc_alive(pid, atomic_load(&sl->start_time)))
			continue; /* dead: its usage is the limiter's to reclaim, not counted */
		live++;
		if (!foreign && nlocal < (int)(sizeof local_pids / sizeof *local_pids))
			local_pids[nlocal++] = pid;
		for (uint32_t d = 0; d < f->ndev; d++)
			used[d] += atomic_load(&sl->used[d]);
	}
	for (uint32_t d = 0; d < f->ndev; d++) {
		const struct region_dev *rd = &f->devs[d];
		char uuid[AXL__REGION_UUID_MAX];
		memcpy(uuid, rd->uuid, sizeof uuid);
		uuid[sizeof uuid - 1] = '\0';
		const char *devid = NULL;
		for (size_t i = 0; i < s->n && uuid[0]; i++) {
			const char *u = NULL;
			const char *id = axl_device_id(s->devs[i]);
			if ((axl_device_get_str(s->devs[i], AXL_ATTR_UUID, &u) == 0 && u && strcasecmp(u, uuid) == 0) ||
			    (id && strcmp(id, uuid) == 0)) {
				devid = id;
				break;
			}
		}
		struct axl_workload *w = AXL__VEC_PUSH(out->workloads);
		if (!w)
			break;
		memset(w, 0, sizeof *w);
		w->region = axl__sstr(out, path);
		w->uuid = axl__sstr(out, uuid);
		w->device = axl__sstr(out, devid);
		w->memory_used_bytes = used[d] > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)used[d];
		int64_t lim = atomic_load(&rd->memory_bytes);
		w->memory_limit_bytes = lim < 0 ? -1 : lim;
		int32_t pct = atomic_load(&rd->compute_percent);
		w->compute_limit_percent = pct < 0 || pct > 100 ? -1 : pct;
		w->processes = live;
		w->compute_used_percent = -1;
		if (devid)
			for (size_t k = 0; k < out->procs.n; k++) {
				const struct axl_process *p = &out->procs.v[k];
				if (!p->device || strcmp(p->device, devid) != 0 || p->utilization_percent < 0)
					continue;
				for (int j = 0; j < nlocal; j++)
					if (local_pids[j] == p->pid) {
						w->compute_used_percent =
							(w->compute_used_percent < 0 ? 0 : w->compute_used_percent) +
							p->utilization_percent;
						break;
					}
			}
	}
out:
	free(f);
	close(fd);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void axl__sample_workloads(struct axl_sampler *s, struct axl_sample *out)
{
	char *paths[MAX_REGIONS];
	size_t n = 0;
	const char *env = getenv("AXL_LIMITER_REGION");
	if (env && *env)
		paths[n++] = strdup(env);
	const char *sd = s->ctx->state_dir;
	if (sd) {
		char buf[4096];
		if ((size_t)snprintf(buf, sizeof buf, "%s/limiter.region", sd) < sizeof buf && n < MAX_REGIONS)
			paths[n++] = strdup(buf);
		snprintf(buf, sizeof buf, "%s/limiter", sd);
		DIR *dir = opendir(buf);
		if (dir) {
			size_t first = n;
			struct dirent *e;
			while ((e = readdir(dir)) && n < MAX_REGIONS) {
				size_t len = strlen(e->d_name);
				if (len <= 7 || strcmp(e->d_name + len - 7, ".region") != 0)
					continue;
				char *p = NULL;
				if (asprintf(&p, "%s/%s", buf, e->d_name) >= 0)
					paths[n++] = p;
			}
			closedir(dir);
			qsort(paths + first, n - first, sizeof *paths, cmp_str);
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (!paths[i])
			continue;
		bool dup = false;
		for (size_t j = 0; j < i && !dup; j++)
			dup = paths[j] && strcmp(paths[j], paths[i]) == 0;
		if (!dup)
			read_region(s, out, paths[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
}
