/* SPDX-License-Identifier: MIT */
/* The limiter's shared region: see region.h for the guarantees, docs/limits.md for the
 * file. Reads /proc of the running system directly: the limiter runs inside a workload on
 * this node, never on a re-rooted tree. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "axl/error.h"
#include "region.h"
#include "util/error.h"
#include "util/region_format.h"

#define LOCK_TIMEOUT_S 5

struct axl__region {
	struct region_file *f;
	struct region_slot *me;
	int pid;
	char path[4096];
};

void (*axl__region_test_hook)(const char *where);

/* ---- processes ------------------------------------------------------------------- */

/* 1: alive (start time matches or unknown), 0: dead or another process under that pid */
static int proc_state(int pid, uint64_t start_time, uint64_t *start_out)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ESRCH)
			return 0;
		/* no /proc: the signal test (EPERM means alive) */
		return !(kill(pid, 0) < 0 && errno == ESRCH);
	}
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return n < 0 && errno == ESRCH ? 0 : 1;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return 1; /* unreadable: keep it (fail closed) */
	p += 2;
	char state = *p;
	if (state == 'Z' || state == 'X' || state == 'x')
		return 0;
	/* after ')': field 3 (state) ... field 22 (starttime) is the 20th */
	for (int i = 0; i < 19 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p)
		return 1;
	uint64_t st = strtoull(p, NULL, 10);
	if (start_out)
		*start_out = st;
	if (start_time && st && st != start_time)
		return 0;
	return 1;
}

uint64_t axl__region_start_time(int pid)
{
	uint64_t st = 0;
	if (proc_state(pid, 0, &st) != 1)
		return 0;
	return st;
}

static uint64_t pidns_self(void)
{
	struct stat st;
	if (stat("/proc/self/ns/pid", &st) < 0)
		return 0;
	return (uint64_t)st.st_ino;
}

/* ---- the lock -------------------------------------------------------------------- */

static void slot_clear(struct region_slot *s)
{
	for (int d = 0; d < AXL__REGION_MAX_DEVICES; d++) {
		atomic_store(&s->used[d], 0);
		atomic_store(&s->claim[d], 0);
		atomic_store(&s->compute_tokens[d], 0);
	}
	atomic_store(&s->start_time, 0);
	atomic_store(&s->pidns, 0);
	atomic_store(&s->pid, 0);
}

static int reclaim_locked(struct axl__region *r)
{
	struct region_file *f = r->f;
	uint64_t ns = pidns_self();
	uint32_t hwm = atomic_load(&f->slot_hwm);
	if (hwm > f->nslots)
		hwm = f->nslots;
	int n = 0;
	uint32_t top = 0;
	for (uint32_t i = 0; i < hwm; i++) {
		struct region_slot *s = &f->slots[i];
		int pid = atomic_load(&s->pid);
		if (pid == 0)
			continue;
		uint64_t sns = atomic_load(&s->pidns);
		/* a process of another pid namespace: its pid means nothing here */
		int foreign = ns && sns && sns != ns;
		if (s != r->me && !foreign &&
		    (pid < 0 || !proc_state(pid, atomic_load(&s->start_time), NULL))) {
			slot_clear(s);
			n++;
			continue;
		}
		top = i + 1;
	}
	atomic_store(&f->slot_hwm, top);
	return n;
}

static int region_lock(struct axl__region *r)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += LOCK_TIMEOUT_S;
	int rc = pthread_mutex_timedlock(&r->f->lock.m, &ts);
	if (rc == EOWNERDEAD) {
		/* the holder died inside: every change under the lock is a store to one word, so
		 * the slots are each whole; drop the dead (the holder's own slot among them) */
		reclaim_locked(r);
		/* a limit change is two stores (the limit, then the checksum): a holder killed
		 * between them left a checksum that does not match what it wrote */
		if (r->f->checksum != region_checksum(r->f))
			r->f->checksum = region_checksum(r->f);
		pthread_mutex_consistent(&r->f->lock.m);
		rc = 0;
	}
	if (rc == ETIMEDOUT)
		return axl__error(AXL_ETIMEDOUT, "%s: the region's lock is held for more than %d s",
				  r->path, LOCK_TIMEOUT_S);
	if (rc != 0)
		return axl__error(AXL_EIO, "%s: cannot take the region's lock: %s (remove the file to reset it)",
				  r->path, strerror(rc));
	if (axl__region_test_hook)
		axl__region_test_hook("locked");
	return 0;
}

static void region_unlock(struct axl__region *r)
{
	pthread_mutex_unlock(&r->f->lock.m);
}

/* ---- creating and attaching ------------------------------------------------------ */

int axl__region_state_dir(char *buf, size_t cap)
{
	const char *p = getenv("AXL_STATE_DIR");
	int n;
	if (p && *p)
		n = snprintf(buf, cap, "%s", p);
	else if (geteuid() == 0)
		n = snprintf(buf, cap, "/run/axl");
	else if ((p = getenv("XDG_RUNTIME_DIR")) && p[0] == '/')
		n = snprintf(buf, cap, "%s/axl", p);
	else
		n = snprintf(buf, cap, "/tmp/axl-%u", (unsigned)geteuid());
	if (n < 0 || (size_t)n >= cap)
		return axl__error(AXL_ERANGE, "the state directory's path is too long");
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = 0;
	return 0;
}

int axl__region_default_path(char *buf, size_t cap)
{
	const char *p = getenv("AXL_LIMITER_REGION");
	int n;
	if (p && *p) {
		n = snprintf(buf, cap, "%s", p);
	} else {
		int rc = axl__region_state_dir(buf, cap);
		if (rc)
			return rc;
		size_t len = strlen(buf);
		n = snprintf(buf + len, cap - len, "/limiter.region");
		n = n < 0 ? n : n + (int)len;
	}
	if (n < 0 || (size_t)n >= cap)
		return axl__error(AXL_ERANGE, "the limiter region's path is too long");
	return 0;
}

/* The device table from limits (and the checksum over it); the devices' compute state
 * starts afresh. */
static void devs_fill(struct region_file *f, const struct axl__region_limit *limits, int ndev)
{
	f->ndev = (uint32_t)ndev;
	memset(f->devs, 0, sizeof f->devs);
	for (int d = 0; d < AXL__REGION_MAX_DEVICES; d++) {
		atomic_store(&f->devs[d].memory_bytes, -1);
		atomic_store(&f->devs[d].compute_percent, -1);
	}
	for (int d = 0; d < ndev; d++) {
		snprintf(f->devs[d].uuid, sizeof f->devs[d].uuid, "%s", limits[d].uuid);
		atomic_store(&f->devs[d].memory_bytes, limits[d].memory_bytes < 0 ? -1 : limits[d].memory_bytes);
		atomic_store(&f->devs[d].compute_percent,
			     limits[d].compute_percent < 0 ? -1 : limits[d].compute_percent);
	}
	f->checksum = region_checksum(f);
}

/* Do limits say something else than the region's device table? */
static int devs_differ(const struct region_file *f, const struct axl__region_limit *limits, int ndev)
{
	if (f->ndev != (uint32_t)ndev)
		return 1;
	for (int d = 0; d < ndev; d++) {
		int64_t mem = limits[d].memory_bytes < 0 ? -1 : limits[d].memory_bytes;
		int32_t pct = limits[d].compute_percent < 0 ? -1 : limits[d].compute_percent;
		if (strncmp(f->devs[d].uuid, limits[d].uuid, sizeof f->devs[d].uuid) ||
		    atomic_load(&f->devs[d].memory_bytes) != mem || atomic_load(&f->devs[d].compute_percent) != pct)
			return 1;
	}
	return 0;
}

static int region_create(const char *path, const struct axl__region_limit *limits, int ndev)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp-%d", path, (int)getpid());
	int fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return axl__error(AXL_EIO, "%s: cannot create: %s", tmp, strerror(errno));
	int rc = 0;
	struct region_file *f = MAP_FAILED;
	if (ftruncate(fd, sizeof *f) < 0) {
		rc = axl__error(AXL_EIO, "%s: cannot size: %s", tmp, strerror(errno));
		goto out;
	}
	f = mmap(NULL, sizeof *f, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (f == MAP_FAILED) {
		rc = axl__error(AXL_EIO, "%s: cannot map: %s", tmp, strerror(errno));
		goto out;
	}
	f->magic = REGION_MAGIC;
	f->major = REGION_MAJOR;
	f->minor = REGION_MINOR;
	f->file_size = sizeof *f;
	f->ndev = (uint32_t)ndev;
	f->nslots = AXL__REGION_MAX_PROCS;
	f->slot_size = sizeof(struct region_slot);
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&f->lock.m, &a);
	pthread_mutexattr_destroy(&a);
	devs_fill(f, limits, ndev);
	if (msync(f, sizeof *f, MS_SYNC) < 0 || fsync(fd) < 0) {
		rc = axl__error(AXL_EIO, "%s: cannot write: %s", tmp, strerror(errno));
		goto out;
	}
	/* link: appears complete, and only if nobody else made one meanwhile */
	if (link(tmp, path) < 0 && errno != EEXIST)
		rc = axl__error(AXL_EIO, "%s: cannot create: %s", path, strerror(errno));
out:
	if (f != MAP_FAILED)
		munmap(f, sizeof *f);
	close(fd);
	unlink(tmp);
	return rc;
}

static int region_check(const char *path, const struct region_file *f, size_t size)
{
	if (size < offsetof(struct region_file, lock))
		return axl__error(AXL_EPARSE, "%s: truncated: %zu bytes, not a limiter region", path, size);
	if (f->magic != REGION_MAGIC)
		return axl__error(AXL_EPARSE, "%s: not a limiter region (magic 0x%08x)", path, f->magic);
	if (f->major > REGION_MAJOR)
		return axl__error(AXL_EVERSION,
				  "%s: written by a newer axl (region version %u.%u; this one reads %d.x): "
				  "limits cannot be enforced",
				  path, f->major, f->minor, REGION_MAJOR);
	if (f->major != REGION_MAJOR)
		return axl__error(AXL_EVERSION, "%s: region version %u.%u is not supported (this one reads %d.x)",
				  path, f->major, f->minor, REGION_MAJOR);
	if (size < sizeof *f)
		return axl__error(AXL_EPARSE, "%s: truncated: %zu bytes, a region is %zu", path, size, sizeof *f);
	if (f->file_size != sizeof *f || f->nslots != AXL__REGION_MAX_PROCS || f->ndev > AXL__REGION_MAX_DEVICES ||
	    f->ndev == 0 || f->slot_size != sizeof(struct region_slot))
		return axl__error(AXL_EPARSE, "%s: corrupted: sizes do not match (file %llu, %u devices, %u slots)",
				  path, (unsigned long long)f->file_size, f->ndev, f->nslots);
	return 0;
}

int axl__region_open(axl__region **out, const char *path, const struct axl__region_limit *limits,
		     int ndev)
{
	*out = NULL;
	if (!path || !*path || strlen(path) >= sizeof((struct axl__region *)0)->path)
		return axl__error(AXL_EINVAL, "limiter region: no path or a path too long");
	if (ndev < 0 || ndev > AXL__REGION_MAX_DEVICES || (ndev > 0 && !limits))
		return axl__error(AXL_EINVAL, "%s: %d devices (1 to %d)", path, ndev, AXL__REGION_MAX_DEVICES);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && ndev > 0) {
		int rc = region_create(path, limits, ndev);
		if (rc)
			return rc;
		fd = open(path, O_RDWR | O_CLOEXEC);
	}
	if (fd < 0)
		return axl__error(errno == ENOENT ? AXL_ENOENT : AXL_EIO, "%s: cannot open: %s", path,
				  strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return axl__error(AXL_EPARSE, "%s: not a regular file", path);
	}
	size_t size = (size_t)st.st_size;
	/* read the header first: never map past the end of a short file (SIGBUS) */
	struct region_file hdr;
	memset(&hdr, 0, sizeof hdr);
	ssize_t n = pread(fd, &hdr, offsetof(struct region_file, lock), 0);
	if (n < 0) {
		close(fd);
		return axl__error(AXL_EIO, "%s: cannot read: %s", path, strerror(errno));
	}
	int rc = region_check(path, &hdr, size);
	if (rc) {
		close(fd);
		return rc;
	}
	struct region_file *f = mmap(NULL, sizeof *f, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return axl__error(AXL_EIO, "%s: cannot map: %s", path, strerror(errno));
	struct axl__region *r = calloc(1, sizeof *r);
	if (!r) {
		munmap(f, sizeof *f);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	r->f = f;
	r->pid = (int)getpid();
	snprintf(r->path, sizeof r->path, "%s", path);
	rc = region_lock(r);
	if (rc)
		goto fail;
	if (f->checksum != region_checksum(f)) {
		region_unlock(r);
		rc = axl__error(AXL_EPARSE, "%s: corrupted: the checksum of the header and limits does not match",
				path);
		goto fail;
	}
	reclaim_locked(r);
	/* nobody attached (every process of the last workload is gone): this is a new
	 * workload, whose limits (changed by axl limit set, say) replace the old ones */
	uint32_t live = 0;
	for (uint32_t k = 0; k < f->nslots; k++)
		live += atomic_load(&f->slots[k].pid) != 0;
	if (!live && ndev > 0 && devs_differ(f, limits, ndev))
		devs_fill(f, limits, ndev);
	struct region_slot *slot = NULL;
	uint32_t i;
	for (i = 0; i < f->nslots; i++) {
		if (atomic_load(&f->slots[i].pid) == 0) {
			slot = &f->slots[i];
			break;
		}
	}
	if (!slot) {
		region_unlock(r);
		rc = axl__error(AXL_ENOSPC, "%s: all %u process slots are taken by live processes", path,
				f->nslots);
		goto fail;
	}
	slot_clear(slot);
	atomic_store(&slot->start_time, axl__region_start_time(r->pid));
	atomic_store(&slot->pidns, pidns_self());
	atomic_store(&slot->pid, r->pid);
	if (i + 1 > atomic_load(&f->slot_hwm))
		atomic_store(&f->slot_hwm, i + 1);
	r->me = slot;
	region_unlock(r);
	*out = r;
	return 0;
fail:
	munmap(f, sizeof *f);
	free(r);
	return rc;
}

void axl__region_close(axl__region *r)
{
	if (!r)
		return;
	if (r->me && region_lock(r) == 0) {
		slot_clear(r->me);
		region_unlock(r);
	}
	munmap(r->f, sizeof *r->f);
	free(r);
}

/* ---- limits ---------------------------------------------------------------------- */

struct axl__region_compute *axl__region_compute(axl__region *r, int dev)
{
	if (!r || dev < 0 || dev >= (int)r->f->ndev)
		return NULL;
	return &r->f->devs[dev].compute;
}

int axl__region_device_count(const axl__region *r)
{
	return (int)r->f->ndev;
}

int axl__region_find(const axl__region *r, const char *uuid)
{
	for (uint32_t d = 0; d < r->f->ndev; d++)
		if (strncmp(r->f->devs[d].uuid, uuid, AXL__REGION_UUID_MAX) == 0)
			return (int)d;
	return axl__error(AXL_ENOENT, "%s: no device %s in the region", r->path, uuid);
}

static int dev_check(const axl__region *r, int dev)
{
	if (dev < 0 || (uint32_t)dev >= r->f->ndev)
		return axl__error(AXL_EINVAL, "%s: device index %d (the region has %u)", r->path, dev,
				  r->f->ndev);
	return 0;
}

int axl__region_limit_get(const axl__region *r, int dev, struct axl__region_limit *out)
{
	int rc = dev_check(r, dev);
	if (rc)
		return rc;
	const struct region_dev *v = &r->f->devs[dev];
	memcpy(out->uuid, v->uuid, sizeof out->uuid);
	out->uuid[sizeof out->uuid - 1] = '\0';
	out->memory_bytes = atomic_load(&v->memory_bytes);
	out->compute_percent = atomic_load(&v->compute_percent);
	return 0;
}

int axl__region_limit_set(axl__region *r, int dev, int64_t memory_bytes, int compute_percent)
{
	int rc = dev_check(r, dev);
	if (rc)
		return rc;
	if (compute_percent > 100 || compute_percent == 0)
		return axl__error(AXL_ERANGE, "compute limit %d: 1 to 100, or < 0 for none", compute_percent);
	if ((rc = region_lock(r)))
		return rc;
	atomic_store(&r->f->devs[dev].memory_bytes, memory_bytes < 0 ? -1 : memory_bytes);
	atomic_store(&r->f->devs[dev].compute_percent, compute_percent < 0 ? -1 : compute_percent);
	r->f->checksum = region_checksum(r->f);
	region_unlock(r);
	return 0;
}

/* ---- freeze, heartbeat, compute tokens ----------------------------------------------- */

int axl__region_frozen(const axl__region *r)
{
	return atomic_load(&r->f->frozen) != 0;
}

void axl__region_set_frozen(axl__region *r, int frozen)
{
	atomic_store(&r->f->frozen, frozen ? 1u : 0u);
}

uint64_t axl__region_heartbeat(const axl__region *r)
{
	return atomic_load(&r->f->heartbeat);
}

void axl__region_set_heartbeat(axl__region *r, uint64_t unix_secs)
{
	atomic_store(&r->f->heartbeat, unix_secs);
}

int axl__region_tokens(axl__region *r, int dev, int64_t add, int64_t cap, uint64_t take, int64_t *left)
{
	int rc = dev_check(r, dev);
	if (rc)
		return rc;
	if (!r->me)
		return axl__error(AXL_EINVAL, "%s: this process holds no slot", r->path);
	_Atomic int64_t *t = &r->me->compute_tokens[dev];
	int64_t cur = atomic_load(t), next;
	for (;;) {
		next = cur;
		if (add > 0)
			next = next > INT64_MAX - add ? INT64_MAX : next + add;
		if (cap >= 0 && next > cap)
			next = cap;
		if (take > 0 && (take > (uint64_t)INT64_MAX || next < (int64_t)take)) {
			/* short: keep the refill, take nothing */
			if (atomic_compare_exchange_weak(t, &cur, next))
				break;
			continue;
		}
		if (atomic_compare_exchange_weak(t, &cur, next - (int64_t)take)) {
			next -= (int64_t)take;
			if (left)
				*left = next;
			return 0;
		}
	}
	if (left)
		*left = next;
	return AXL_ENOMEM;
}

/* ---- memory ---------------------------------------------------------------------- */

static uint64_t sum_claims(const struct region_file *f, int dev)
{
	uint32_t hwm = atomic_load(&f->slot_hwm);
	if (hwm > f->nslots)
		hwm = f->nslots;
	uint64_t sum = 0;
	for (uint32_t i = 0; i < hwm; i++) {
		uint64_t v = atomic_load(&f->slots[i].claim[dev]);
		sum = sum + v < sum ? UINT64_MAX : sum + v;
	}
	return sum;
}

int axl__region_hold(axl__region *r, int dev, uint64_t bytes)
{
	int rc = dev_check(r, dev);
	if (rc)
		return rc;
	if (!r->me)
		return axl__error(AXL_EINVAL, "%s: this process holds no slot", r->path);
	atomic_fetch_add(&r->me->claim[dev], bytes);
	atomic_fetch_add(&r->me->used[dev], bytes);
	return 0;
}

int axl__region_reserve(axl__region *r, int dev, uint64_t bytes, uint64_t *remaining)
{
	int rc = dev_check(r, dev);
	if (rc)
		return rc;
	if (!r->me)
		return axl__error(AXL_EINVAL, "%s: this process holds no slot", r->path);
	struct region_slot *me = r->me;
	int reclaimed = 0;
	uint64_t others = 0;
	int64_t limit = 0;
	for (int attempt = 0; attempt < 16; attempt++) {
		limit = atomic_load(&r->f->devs[dev].memory_bytes);
		if (limit < 0) {
			atomic_fetch_add(&me->claim[dev], bytes);
			atomic_fetch_add(&me->used[dev], bytes);
			return 0;
		}
		if (bytes > (uint64_t)limit) {
			others = 0;
			break;
		}
		/* claim, then look: seq_cst, so of two racing claims at least one sees the other */
		atomic_fetch_add(&me->claim[dev], bytes);
		uint64_t sum = sum_claims(r->f, dev);
		if (sum <= (uint64_t)limit) {
			atomic_fetch_add(&me->used[dev], bytes);
			return 0;
		}
		atomic_fetch_sub(&me->claim[dev], bytes);
		others = sum - bytes;
		/* over: racing claims in flight may be what took the room; see again */
		uint64_t now = sum_claims(r->f, dev);
		if (now + bytes <= (uint64_t)limit) {
			sched_yield();
			continue;
		}
		others = now;
		if (!reclaimed) {
			reclaimed = 1;
			/* (a lock recovered from a dead holder reclaims too: look again anyway) */
			if (axl__region_reclaim(r, NULL) == 0)
				continue;
		}
		break;
	}
	uint64_t left = others >= (uint64_t)limit ? 0 : (uint64_t)limit - others;
	if (remaining)
		*remaining = left;
	return axl__error(AXL_ENOMEM, "device %s: %llu bytes asked, %llu of the %lld-byte limit free",
			  r->f->devs[dev].uuid, (unsigned long long)bytes, (unsigned long long)left,
			  (long long)limit);
}

int axl__region_release(axl__region *r, int dev, uint64_t bytes)
{
	int rc = dev_check(r, dev);
	if (rc)
		return rc;
	if (!r->me)
		return axl__error(AXL_EINVAL, "%s: this process holds no slot", r->path);
	struct region_slot *me = r->me;
	/* only this process changes its own slot (reclaim touches dead slots only) */
	uint64_t used = atomic_load(&me->used[dev]);
	if (bytes > used)
		return axl__error(AXL_ERANGE, "device %s: releasing %llu bytes, this process holds %llu",
				  r->f->devs[dev].uuid, (unsigned long long)bytes, (unsigned long long)used);
	atomic_fetch_sub(&me->used[dev], bytes);
	atomic_fetch_sub(&me->claim[dev], bytes);
	return 0;
}

int axl__region_usage(const axl__region *r, int dev, uint64_t *total, uint64_t *mine)
{
	int rc = dev_check(r, dev);
	if (rc)
		return rc;
	if (total) {
		uint32_t hwm = atomic_load(&r->f->slot_hwm);
		if (hwm > r->f->nslots)
			hwm = r->f->nslots;
		uint64_t sum = 0;
		for (uint32_t i = 0; i < hwm; i++)
			sum += atomic_load(&r->f->slots[i].used[dev]);
		*total = sum;
	}
	if (mine)
		*mine = r->me ? atomic_load(&r->me->used[dev]) : 0;
	return 0;
}

int axl__region_procs(axl__region *r, struct axl__region_proc *out, size_t cap, size_t *count)
{
	int rc = region_lock(r);
	if (rc)
		return rc;
	size_t n = 0;
	uint32_t hwm = atomic_load(&r->f->slot_hwm);
	for (uint32_t i = 0; i < hwm && i < r->f->nslots; i++) {
		struct region_slot *s = &r->f->slots[i];
		int pid = atomic_load(&s->pid);
		if (!pid)
			continue;
		if (n < cap) {
			out[n].pid = pid;
			out[n].start_time = atomic_load(&s->start_time);
			for (int d = 0; d < AXL__REGION_MAX_DEVICES; d++)
				out[n].used[d] = atomic_load(&s->used[d]);
		}
		n++;
	}
	region_unlock(r);
	*count = n;
	return 0;
}

int axl__region_reclaim(axl__region *r, int *count)
{
	int rc = region_lock(r);
	if (rc)
		return rc;
	int n = reclaim_locked(r);
	region_unlock(r);
	if (count)
		*count = n;
	return 0;
}

int axl__region_test_forge(axl__region *r, int pid, uint64_t start_time, int dev, uint64_t bytes)
{
	int rc = dev_check(r, dev);
	if (rc || (rc = region_lock(r)))
		return rc;
	for (uint32_t i = 0; i < r->f->nslots; i++) {
		struct region_slot *s = &r->f->slots[i];
		if (atomic_load(&s->pid) != 0)
			continue;
		slot_clear(s);
		atomic_store(&s->start_time, start_time);
		atomic_store(&s->pidns, pidns_self());
		atomic_store(&s->claim[dev], bytes);
		atomic_store(&s->used[dev], bytes);
		atomic_store(&s->pid, pid);
		if (i + 1 > atomic_load(&r->f->slot_hwm))
			atomic_store(&r->f->slot_hwm, i + 1);
		region_unlock(r);
		return 0;
	}
	region_unlock(r);
	return axl__error(AXL_ENOSPC, "no free slot");
}
