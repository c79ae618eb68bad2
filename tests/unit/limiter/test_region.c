/* SPDX-License-Identifier: MIT */
/* The limiter's shared region (src/limiter/region.c): exact admission, several processes
 * racing, processes killed holding memory and holding the lock, reused pids, hostile files. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "axl/error.h"
#include "check.h"
#include "region.h"
#include "util/error.h"

static char dir[256];

static void path_of(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s/%s", dir, name);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct axl__region_limit lim[2] = {
	{"GPU-aaaa-0000", 1000, 30},
	{"GPU-bbbb-1111", -1, -1},
};

static void test_exact(void)
{
	char p[512];
	path_of(p, sizeof p, "exact.region");
	axl__region *r = NULL, *r2 = NULL;
	CHECK_INT(axl__region_open(&r, p, lim, 2), 0);
	if (!r)
		return;
	CHECK_INT(axl__region_device_count(r), 2);
	CHECK_INT(axl__region_find(r, "GPU-bbbb-1111"), 1);
	CHECK_INT(axl__region_find(r, "GPU-nope"), AXL_ENOENT);
	uint64_t rem = 99, total = 0, mine = 0;
	CHECK_INT(axl__region_reserve(r, 0, 600, NULL), 0);
	CHECK_INT(axl__region_reserve(r, 0, 400, NULL), 0); /* exactly the limit */
	CHECK_INT(axl__region_reserve(r, 0, 1, &rem), AXL_ENOMEM);
	CHECK_INT(rem, 0);
	CHECK(strstr(axl__error_text(), "GPU-aaaa-0000") != NULL);
	CHECK_INT(axl__region_release(r, 0, 400), 0);
	CHECK_INT(axl__region_reserve(r, 0, 401, &rem), AXL_ENOMEM);
	CHECK_INT(rem, 400);
	CHECK_INT(axl__region_reserve(r, 0, 1001, &rem), AXL_ENOMEM);
	CHECK_INT(axl__region_reserve(r, 0, UINT64_MAX, &rem), AXL_ENOMEM);
	CHECK_INT(axl__region_reserve(r, 0, 400, NULL), 0);
	CHECK_INT(axl__region_release(r, 0, 1001), AXL_ERANGE);
	CHECK_INT(axl__region_reserve(r, 1, 1ull << 40, NULL), 0); /* no limit: counted */
	CHECK_INT(axl__region_reserve(r, 2, 1, NULL), AXL_EINVAL);
	CHECK_INT(axl__region_reserve(r, -1, 1, NULL), AXL_EINVAL);
	CHECK_INT(axl__region_usage(r, 1, &total, &mine), 0);
	CHECK_INT(total, 1ull << 40);

	/* a second attachment (another handle, same file) shares the accounting */
	CHECK_INT(axl__region_open(&r2, p, NULL, 0), 0);
	if (r2) {
		CHECK_INT(axl__region_usage(r2, 0, &total, &mine), 0);
		CHECK_INT(total, 1000);
		CHECK_INT(mine, 0);
		CHECK_INT(axl__region_reserve(r2, 0, 1, &rem), AXL_ENOMEM);
		CHECK_INT(axl__region_release(r, 0, 100), 0);
		CHECK_INT(axl__region_reserve(r2, 0, 100, NULL), 0);
		CHECK_INT(axl__region_reserve(r, 0, 1, NULL), AXL_ENOMEM);
		struct axl__region_proc procs[8];
		size_t n = 0;
		CHECK_INT(axl__region_procs(r, procs, 8, &n), 0);
		CHECK_INT(n, 2);
		/* limits: lowering below usage refuses, raising admits */
		CHECK_INT(axl__region_limit_set(r2, 0, 2000, 50), 0);
		struct axl__region_limit l;
		CHECK_INT(axl__region_limit_get(r, 0, &l), 0);
		CHECK_INT(l.memory_bytes, 2000);
		CHECK_INT(l.compute_percent, 50);
		CHECK_STR(l.uuid, "GPU-aaaa-0000");
		CHECK_INT(axl__region_limit_set(r2, 0, 2000, 101), AXL_ERANGE);
		CHECK_INT(axl__region_reserve(r, 0, 1000, NULL), 0);
		CHECK_INT(axl__region_limit_set(r2, 0, 500, 50), 0);
		CHECK_INT(axl__region_reserve(r, 0, 1, NULL), AXL_ENOMEM);
		axl__region_close(r2); /* its 100 bytes go with it */
		CHECK_INT(axl__region_usage(r, 0, &total, &mine), 0);
		CHECK_INT(total, 1900);
		CHECK_INT(mine, 1900);
	}
	axl__region_close(r);
	/* reattached without limits: the limits changed under the lock kept a good checksum */
	CHECK_INT(axl__region_open(&r, p, NULL, 0), 0);
	if (r) {
		struct axl__region_limit l;
		CHECK_INT(axl__region_limit_get(r, 0, &l), 0);
		CHECK_INT(l.memory_bytes, 500);
		CHECK_INT(axl__region_usage(r, 0, &total, NULL), 0);
		CHECK_INT(total, 0);
		/* while a process is attached, a newcomer's limits do not replace the region's */
		struct axl__region_limit other[2];
		memcpy(other, lim, sizeof other);
		other[0].memory_bytes = 7777;
		CHECK_INT(axl__region_open(&r2, p, other, 2), 0);
		CHECK_INT(axl__region_limit_get(r, 0, &l), 0);
		CHECK_INT(l.memory_bytes, 500);
		axl__region_close(r2);
		axl__region_close(r);
	}
	/* nobody attached: a new workload's limits (axl limit set changed them) replace them */
	CHECK_INT(axl__region_open(&r, p, lim, 2), 0);
	if (r) {
		struct axl__region_limit l;
		CHECK_INT(axl__region_limit_get(r, 0, &l), 0);
		CHECK_INT(l.memory_bytes, lim[0].memory_bytes);
		CHECK_INT(l.compute_percent, lim[0].compute_percent < 0 ? -1 : lim[0].compute_percent);
		CHECK_STR(l.uuid, lim[0].uuid);
		axl__region_close(r);
	}
	axl__region_close(NULL);
}

/* ---- four processes racing ------------------------------------------------------- */

#define LIMIT (1u << 20)
struct shared {
	_Atomic int64_t committed; /* what the children hold, as they see it */
	_Atomic int64_t peak;
	_Atomic int violations;
	_Atomic int ok, refused;
	_Atomic int done;
};

static int child_race(const char *p, struct shared *sh, unsigned seed)
{
	axl__region *r = NULL;
	if (axl__region_open(&r, p, NULL, 0) != 0)
		return 10;
	uint64_t held[8] = {0};
	int nheld = 0, bad = 0;
	int64_t mysum = 0;
	for (int i = 0; i < 4000; i++) {
		unsigned x = (unsigned)rand_r(&seed);
		if (nheld < 8 && (x & 1)) {
			uint64_t sz = 1 + (uint64_t)(rand_r(&seed) % (LIMIT / 3));
			uint64_t rem = 0;
			int rc = axl__region_reserve(r, 0, sz, &rem);
			if (rc == 0) {
				int64_t before = atomic_fetch_add(&sh->committed, (int64_t)sz);
				if (before + (int64_t)sz > LIMIT)
					atomic_fetch_add(&sh->violations, 1);
				held[nheld++] = sz;
				mysum += (int64_t)sz;
				atomic_fetch_add(&sh->ok, 1);
			} else if (rc == AXL_ENOMEM) {
				atomic_fetch_add(&sh->refused, 1);
			} else {
				bad++;
			}
		} else if (nheld > 0) {
			uint64_t sz = held[--nheld];
			atomic_fetch_sub(&sh->committed, (int64_t)sz);
			if (axl__region_release(r, 0, sz) != 0)
				bad++;
			mysum -= (int64_t)sz;
		}
	}
	uint64_t mine = 0;
	axl__region_usage(r, 0, NULL, &mine);
	if ((int64_t)mine != mysum) /* the exact balance of this process */
		bad++;
	while (nheld > 0) {
		uint64_t sz = held[--nheld];
		atomic_fetch_sub(&sh->committed, (int64_t)sz);
		if (axl__region_release(r, 0, sz) != 0)
			bad++;
	}
	axl__region_usage(r, 0, NULL, &mine);
	if (mine != 0)
		bad++;
	axl__region_close(r);
	return bad ? 11 : 0;
}

static void test_race(void)
{
	char p[512];
	path_of(p, sizeof p, "race.region");
	struct axl__region_limit l[1] = {{"GPU-race", LIMIT, -1}};
	axl__region *r = NULL;
	CHECK_INT(axl__region_open(&r, p, l, 1), 0);
	if (!r)
		return;
	CHECK_INT(axl__region_reserve(r, 0, 4096, NULL), 0); /* the parent holds some too */
	struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	memset(sh, 0, sizeof *sh);
	atomic_store(&sh->committed, 4096);
	pid_t checker = fork();
	if (checker == 0) {
		int bad = 0;
		while (!atomic_load(&sh->done)) {
			int64_t c = atomic_load(&sh->committed);
			if (c > LIMIT)
				bad++;
			if (c > atomic_load(&sh->peak))
				atomic_store(&sh->peak, c);
		}
		_exit(bad ? 12 : 0);
	}
	pid_t kids[4];
	for (int i = 0; i < 4; i++) {
		kids[i] = fork();
		if (kids[i] == 0)
			_exit(child_race(p, sh, 1234u + (unsigned)i * 7919u));
	}
	for (int i = 0; i < 4; i++) {
		int st = 0;
		waitpid(kids[i], &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	atomic_store(&sh->done, 1);
	int st = 0;
	waitpid(checker, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_INT(atomic_load(&sh->violations), 0);
	CHECK(atomic_load(&sh->ok) > 1000);
	CHECK(atomic_load(&sh->refused) > 0);
	CHECK(atomic_load(&sh->peak) <= LIMIT);
	uint64_t total = 0;
	CHECK_INT(axl__region_usage(r, 0, &total, NULL), 0);
	CHECK_INT(total, 4096); /* the final balance: only the parent's */
	printf("race: %d reserved, %d refused, peak %lld of %u\n", atomic_load(&sh->ok),
	       atomic_load(&sh->refused), (long long)atomic_load(&sh->peak), LIMIT);
	munmap(sh, sizeof *sh);
	axl__region_close(r);
}

/* ---- kill -9 ---------------------------------------------------------------------- */

static int hook_fd = -1;
static void pause_hook(const char *where)
{
	if (strcmp(where, "locked") == 0 && hook_fd >= 0) {
		(void)!write(hook_fd, "L", 1);
		for (;;)
			pause();
	}
}

static void test_kill(int in_lock)
{
	char p[512];
	path_of(p, sizeof p, in_lock ? "kill-lock.region" : "kill.region");
	axl__region *r = NULL;
	CHECK_INT(axl__region_open(&r, p, lim, 2), 0);
	if (!r)
		return;
	int fds[2];
	CHECK_INT(pipe(fds), 0);
	pid_t c = fork();
	if (c == 0) {
		close(fds[0]);
		axl__region *cr = NULL;
		if (axl__region_open(&cr, p, NULL, 0) != 0 || axl__region_reserve(cr, 0, 700, NULL) != 0)
			_exit(1);
		if (in_lock) {
			hook_fd = fds[1];
			axl__region_test_hook = pause_hook;
			axl__region_reclaim(cr, NULL); /* pauses holding the lock */
			_exit(2);
		}
		(void)!write(fds[1], "R", 1);
		for (;;)
			pause();
	}
	close(fds[1]);
	char b = 0;
	CHECK_INT(read(fds[0], &b, 1), 1);
	close(fds[0]);
	uint64_t rem = 0, total = 0;
	CHECK_INT(axl__region_usage(r, 0, &total, NULL), 0);
	CHECK_INT(total, 700);
	if (!in_lock)
		CHECK_INT(axl__region_reserve(r, 0, 500, &rem), AXL_ENOMEM); /* alive: not reclaimed */
	kill(c, SIGKILL);
	int st = 0;
	waitpid(c, &st, 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	double t0 = now_s();
	/* the failed reservation reclaims the dead child's share (and recovers the lock) */
	CHECK_INT(axl__region_reserve(r, 0, 1000, &rem), 0);
	double dt = now_s() - t0;
	CHECK(dt <= 1.0);
	CHECK_INT(axl__region_usage(r, 0, &total, NULL), 0);
	CHECK_INT(total, 1000);
	/* the lock works afterwards: procs, limits, another attachment */
	struct axl__region_proc procs[4];
	size_t n = 0;
	CHECK_INT(axl__region_procs(r, procs, 4, &n), 0);
	CHECK_INT(n, 1);
	CHECK_INT(procs[0].pid, getpid());
	CHECK_INT(axl__region_limit_set(r, 0, 1000, 30), 0);
	axl__region *r2 = NULL;
	CHECK_INT(axl__region_open(&r2, p, NULL, 0), 0);
	axl__region_close(r2);
	printf("kill%s: reclaimed in %.3f s\n", in_lock ? " (holding the lock)" : "", dt);
	axl__region_close(r);
}

/* ---- reused pids ------------------------------------------------------------------ */

static void test_reused_pid(void)
{
	char p[512];
	path_of(p, sizeof p, "pid.region");
	axl__region *r = NULL;
	CHECK_INT(axl__region_open(&r, p, lim, 2), 0);
	if (!r)
		return;
	pid_t c = fork();
	if (c == 0) {
		for (;;)
			pause();
	}
	uint64_t st = 0;
	for (int i = 0; i < 100 && !st; i++) { /* the child's /proc entry */
		st = axl__region_start_time(c);
		if (!st)
			usleep(10000);
	}
	CHECK(st != 0);
	int n = -1;
	/* a live process with its own start time is kept */
	CHECK_INT(axl__region_test_forge(r, c, st, 0, 100), 0);
	CHECK_INT(axl__region_reclaim(r, &n), 0);
	CHECK_INT(n, 0);
	/* the same pid with another start time is a dead process whose pid was reused */
	CHECK_INT(axl__region_test_forge(r, c, st + 12345, 0, 200), 0);
	CHECK_INT(axl__region_reclaim(r, &n), 0);
	CHECK_INT(n, 1);
	uint64_t total = 0;
	CHECK_INT(axl__region_usage(r, 0, &total, NULL), 0);
	CHECK_INT(total, 100);
	kill(c, SIGKILL);
	int ws = 0;
	waitpid(c, &ws, 0);
	CHECK_INT(axl__region_reclaim(r, &n), 0);
	CHECK_INT(n, 1);
	CHECK_INT(axl__region_usage(r, 0, &total, NULL), 0);
	CHECK_INT(total, 0);
	/* a zombie (killed, not yet reaped) is dead too */
	c = fork();
	if (c == 0) {
		for (;;)
			pause();
	}
	st = 0;
	for (int i = 0; i < 100 && !st; i++) {
		st = axl__region_start_time(c);
		if (!st)
			usleep(10000);
	}
	CHECK_INT(axl__region_test_forge(r, c, st, 0, 300), 0);
	kill(c, SIGKILL);
	siginfo_t si;
	waitid(P_PID, (id_t)c, &si, WEXITED | WNOWAIT); /* dead, left a zombie */
	CHECK_INT(axl__region_reclaim(r, &n), 0);
	CHECK_INT(n, 1);
	waitpid(c, &ws, 0);
	axl__region_close(r);
}

/* ---- hostile files ---------------------------------------------------------------- */

static int write_file(const char *p, const void *data, size_t n)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	int rc = write(fd, data, n) == (ssize_t)n ? 0 : -1;
	close(fd);
	return rc;
}

static char *read_whole(const char *p, size_t *n)
{
	struct stat st;
	if (stat(p, &st) < 0)
		return NULL;
	char *b = malloc((size_t)st.st_size);
	int fd = open(p, O_RDONLY);
	*n = (size_t)read(fd, b, (size_t)st.st_size);
	close(fd);
	return b;
}

static void expect_refused(const char *p, int code, const char *words)
{
	axl__region *r = NULL;
	int rc = axl__region_open(&r, p, lim, 2);
	CHECK_INT(rc, code);
	CHECK(r == NULL);
	CHECK(strstr(axl__error_text(), words) != NULL);
	CHECK(strstr(axl__error_text(), p) != NULL);
	if (rc != code || !strstr(axl__error_text(), words))
		fprintf(stderr, "  message: %s\n", axl__error_text());
	axl__region_close(r);
}

static void test_hostile(void)
{
	char good[512], p[512];
	path_of(good, sizeof good, "good.region");
	path_of(p, sizeof p, "bad.region");
	axl__region *r = NULL;
	CHECK_INT(axl__region_open(&r, good, lim, 2), 0);
	axl__region_close(r);
	size_t n = 0;
	char *img = read_whole(good, &n);
	CHECK(img && n > 4096);
	if (!img)
		return;
	char *copy = malloc(n);

	CHECK_INT(write_file(p, "", 0), 0);
	expect_refused(p, AXL_EPARSE, "truncated");
	CHECK_INT(write_file(p, img, 10), 0);
	expect_refused(p, AXL_EPARSE, "truncated");
	CHECK_INT(write_file(p, img, n / 2), 0);
	expect_refused(p, AXL_EPARSE, "truncated");
	CHECK_INT(write_file(p, img, n - 1), 0);
	expect_refused(p, AXL_EPARSE, "truncated");

	memcpy(copy, img, n);
	copy[0] ^= 0x55;
	CHECK_INT(write_file(p, copy, n), 0);
	expect_refused(p, AXL_EPARSE, "not a limiter region");

	memcpy(copy, img, n);
	copy[4] = 2; /* major version 2 (little-endian uint16 at offset 4) */
	copy[5] = 0;
	CHECK_INT(write_file(p, copy, n), 0);
	expect_refused(p, AXL_EVERSION, "newer");

	memcpy(copy, img, n);
	char *u = memmem(copy, n, "GPU-aaaa-0000", 13);
	CHECK(u != NULL);
	if (u)
		u[4] = 'z';
	CHECK_INT(write_file(p, copy, n), 0);
	expect_refused(p, AXL_EPARSE, "checksum");

	memcpy(copy, img, n);
	copy[8] ^= 0x01; /* file_size */
	CHECK_INT(write_file(p, copy, n), 0);
	expect_refused(p, AXL_EPARSE, "corrupted");

	/* random garbage of the right size */
	unsigned seed = 7;
	for (size_t i = 0; i < n; i++)
		copy[i] = (char)rand_r(&seed);
	CHECK_INT(write_file(p, copy, n), 0);
	expect_refused(p, AXL_EPARSE, "not a limiter region");

	/* a directory, and a missing file opened attach-only */
	path_of(p, sizeof p, "adir");
	mkdir(p, 0700);
	expect_refused(p, AXL_EIO, "directory");
	path_of(p, sizeof p, "missing.region");
	CHECK_INT(axl__region_open(&r, p, NULL, 0), AXL_ENOENT);
	CHECK_INT(axl__region_open(&r, p, lim, 0), AXL_ENOENT);
	CHECK_INT(axl__region_open(&r, p, lim, AXL__REGION_MAX_DEVICES + 1), AXL_EINVAL);
	CHECK_INT(axl__region_open(&r, "", lim, 1), AXL_EINVAL);
	/* the good file is still good */
	CHECK_INT(axl__region_open(&r, good, lim, 2), 0);
	axl__region_close(r);
	free(copy);
	free(img);
}

/* several processes creating the same region at once share one file */
static void test_create_race(void)
{
	char p[512];
	path_of(p, sizeof p, "create.region");
	struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	memset(sh, 0, sizeof *sh);
	pid_t kids[6];
	for (int i = 0; i < 6; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			axl__region *r = NULL;
			while (!atomic_load(&sh->done))
				;
			if (axl__region_open(&r, p, lim, 2) != 0)
				_exit(1);
			if (axl__region_reserve(r, 0, 300, NULL) == 0)
				atomic_fetch_add(&sh->ok, 1);
			atomic_fetch_add(&sh->refused, 1); /* attached */
			while (atomic_load(&sh->refused) < 6)
				usleep(1000);
			_exit(0);
		}
	}
	atomic_store(&sh->done, 1);
	for (int i = 0; i < 6; i++) {
		int st = 0;
		waitpid(kids[i], &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	CHECK_INT(atomic_load(&sh->ok), 3); /* 3 x 300 of 1000: one file, one limit */
	munmap(sh, sizeof *sh);
}

static void test_default_path(void)
{
	char b[256];
	setenv("AXL_LIMITER_REGION", "/x/y.region", 1);
	CHECK_INT(axl__region_default_path(b, sizeof b), 0);
	CHECK_STR(b, "/x/y.region");
	unsetenv("AXL_LIMITER_REGION");
	setenv("AXL_STATE_DIR", "/st", 1);
	CHECK_INT(axl__region_default_path(b, sizeof b), 0);
	CHECK_STR(b, "/st/limiter.region");
	CHECK_INT(axl__region_default_path(b, 8), AXL_ERANGE);
	unsetenv("AXL_STATE_DIR");
}

/* freeze flag, heartbeat and compute tokens: shared by every process of the region */
static void test_freeze_tokens(void)
{
	char p[300];
	path_of(p, sizeof p, "freeze.region");
	axl__region *r = NULL, *r2 = NULL;
	CHECK_INT(axl__region_open(&r, p, lim, 2), 0);
	CHECK_INT(axl__region_frozen(r), 0);
	CHECK_INT((int)axl__region_heartbeat(r), 0);
	axl__region_set_frozen(r, 1);
	axl__region_set_heartbeat(r, 1234);
	pid_t k = fork();
	if (k == 0) {
		axl__region *c = NULL;
		int ok = axl__region_open(&c, p, NULL, 0) == 0 && axl__region_frozen(c) &&
			 axl__region_heartbeat(c) == 1234;
		if (c)
			axl__region_set_frozen(c, 0);
		axl__region_close(c);
		_exit(ok ? 0 : 1);
	}
	int st = 0;
	waitpid(k, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_INT(axl__region_frozen(r), 0); /* the other process resumed it */
	/* the file stays valid after the flag and heartbeat changed */
	CHECK_INT(axl__region_open(&r2, p, NULL, 0), 0);
	axl__region_close(r2);
	int64_t left = -1;
	CHECK_INT(axl__region_tokens(r, 0, 100, 150, 0, &left), 0);
	CHECK_INT((int)left, 100);
	CHECK_INT(axl__region_tokens(r, 0, 100, 150, 0, &left), 0);
	CHECK_INT((int)left, 150); /* capped */
	CHECK_INT(axl__region_tokens(r, 0, 0, -1, 100, &left), 0);
	CHECK_INT((int)left, 50);
	CHECK_INT(axl__region_tokens(r, 0, 10, -1, 100, &left), AXL_ENOMEM);
	CHECK_INT((int)left, 60); /* the refill stays, nothing taken */
	CHECK_INT(axl__region_tokens(r, 5, 0, -1, 1, NULL), AXL_EINVAL);
	axl__region_close(r);
}

int main(void)
{
	snprintf(dir, sizeof dir, "%s/axl-region-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_exact();
	test_race();
	test_kill(0);
	test_kill(1);
	test_reused_pid();
	test_hostile();
	test_create_race();
	test_default_path();
	test_freeze_tokens();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	(void)!system(cmd);
	return check_summary();
}
