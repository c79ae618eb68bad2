/* SPDX-License-Identifier: MIT */
/* The sysroot seam (src/util/fs.c) under a rename storm.
 *
 * On a re-rooted tree every sysfs bus link is "../../../devices/...", and openat2 with
 * RESOLVE_IN_ROOT answers EAGAIN when any rename on the system races a ".." in the
 * walk. CI runs tests side by side (the state tests rename files thousands of times a
 * second); an open that gave up on the first EAGAIN lost a device's liveness watch
 * there. Here one thread renames without pause while the main thread opens, reads and
 * lists through such links: every call must succeed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "util/file.h"
#include "util/fs.h"

static char root[256];
static atomic_int stop;
static atomic_long renames;

static void *storm(void *arg)
{
	(void)arg;
	char a[300], b[300];
	snprintf(a, sizeof a, "%s/tmp/a", root);
	snprintf(b, sizeof b, "%s/tmp/b", root);
	while (!atomic_load(&stop)) {
		if (rename(a, b) == 0 && rename(b, a) == 0)
			atomic_fetch_add(&renames, 2);
	}
	return NULL;
}

static void mk(const char *rel)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	if (mkdir(p, 0755) && errno != EEXIST) {
		perror(p);
		exit(2);
	}
}

int main(void)
{
	snprintf(root, sizeof root, "/tmp/axl-test-fs-%ld", (long)getpid());
	mk("");
	mk("tmp");
	mk("sys");
	mk("sys/devices");
	mk("sys/devices/pci0000:00");
	mk("sys/devices/pci0000:00/0000:00:01.0");
	mk("sys/bus");
	mk("sys/bus/pci");
	mk("sys/bus/pci/devices");
	char p[512];
	snprintf(p, sizeof p, "%s/sys/devices/pci0000:00/0000:00:01.0/vendor", root);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	fputs("0x10de\n", f);
	fclose(f);
	snprintf(p, sizeof p, "%s/sys/bus/pci/devices/0000:00:01.0", root);
	CHECK_INT(symlink("../../../devices/pci0000:00/0000:00:01.0", p), 0);
	snprintf(p, sizeof p, "%s/tmp/a", root);
	f = fopen(p, "w");
	CHECK(f != NULL);
	fclose(f);

	struct axl__fs fs;
	CHECK_INT(axl__fs_init(&fs, root), 0);
	CHECK(fs.rerooted);

	pthread_t t;
	CHECK_INT(pthread_create(&t, NULL, storm, NULL), 0);
	while (atomic_load(&renames) < 100)
		sched_yield();
	/* the same walk, raw: proves the storm races it (else this test proves nothing) */
	int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK(rootfd >= 0);
	long raw_eagain = 0, rounds = 0;
	int bad_open = 0, bad_read = 0;
	char buf[64];
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		rounds++;
		struct open_how how;
		memset(&how, 0, sizeof how);
		how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
		how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
		long rfd = syscall(SYS_openat2, rootfd, "sys/bus/pci/devices/0000:00:01.0", &how, sizeof how);
		if (rfd >= 0)
			close((int)rfd);
		else if (errno == EAGAIN)
			raw_eagain++;
		else if (errno == ENOSYS || errno == EPERM)
			raw_eagain = -1; /* no openat2 here: the fallback has no race */

		int fd = axl__fs_opendir_fd(&fs, AXL__FS_ROOT, "/sys/bus/pci/devices/0000:00:01.0");
		if (fd < 0)
			bad_open++;
		else
			close(fd);
		long n = axl__fs_read(&fs, AXL__FS_ROOT, "sys/bus/pci/devices/0000:00:01.0/vendor", buf,
				      sizeof buf);
		if (n != 7 || strcmp(buf, "0x10de\n") != 0)
			bad_read++;
		clock_gettime(CLOCK_MONOTONIC, &now);
		double s = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
		if (raw_eagain < 0 || (rounds >= 20000 && raw_eagain >= 50) || s > 5.0)
			break;
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	close(rootfd);
	printf("%ld rounds, %ld renames, raw openat2 EAGAIN %ld times\n", rounds, (long)atomic_load(&renames),
	       raw_eagain);
	CHECK(raw_eagain != 0);
	CHECK_INT(bad_open, 0);
	CHECK_INT(bad_read, 0);

	/* containment still holds: ".." past the root stays at the root */
	snprintf(p, sizeof p, "%s/sys/bus/pci/devices/escape", root);
	CHECK_INT(symlink("../../../../../../../../etc", p), 0);
	CHECK_INT(axl__fs_read(&fs, AXL__FS_ROOT, "sys/bus/pci/devices/escape/hostname", buf, sizeof buf),
		  -ENOENT);
	axl__fs_fini(&fs);

	/* axl__file_read: a file the user names, whole, bounded, of the right kind */
	{
		char uf[600], *out = (char *)1;
		size_t len = 99;
		snprintf(uf, sizeof uf, "%s/user.json", root);
		FILE *w = fopen(uf, "w");
		CHECK(w != NULL);
		if (w) {
			fputs("{\"a\": 1}", w);
			fclose(w);
		}
		CHECK_INT(axl__file_read(uf, 8, 0, &out, &len), 0);
		CHECK_STR(out, "{\"a\": 1}");
		CHECK_INT((long)len, 8);
		free(out);
		CHECK_INT(axl__file_read(uf, 7, 0, &out, &len), -EFBIG); /* one byte over */
		CHECK(out == NULL && len == 0);
		CHECK_INT(axl__file_read(root, 1 << 20, 0, &out, &len), -EISDIR);
		CHECK_INT(axl__file_read("/dev/null", 1 << 20, 0, &out, &len), -ENOTSUP);
		snprintf(p, sizeof p, "%s/nothing-here", root);
		CHECK_INT(axl__file_read(p, 1 << 20, 0, &out, &len), -ENOENT);
		snprintf(p, sizeof p, "%s/link.json", root);
		CHECK_INT(symlink(uf, p), 0);
		CHECK_INT(axl__file_read(p, 1 << 20, AXL__FILE_NOFOLLOW, &out, &len), -ELOOP);
		CHECK_INT(axl__file_read(p, 1 << 20, 0, &out, &len), 0);
		free(out);
		snprintf(p, sizeof p, "%s/empty", root);
		w = fopen(p, "w");
		if (w)
			fclose(w);
		CHECK_INT(axl__file_read(p, 0, 0, &out, &len), 0);
		CHECK(out && out[0] == 0 && len == 0);
		free(out);
		/* a pipe: refused unless asked for, then read to its end */
		int pfd[2];
		CHECK_INT(pipe(pfd), 0);
		CHECK_INT((int)write(pfd[1], "abc", 3), 3);
		close(pfd[1]);
		snprintf(p, sizeof p, "/proc/self/fd/%d", pfd[0]);
		CHECK_INT(axl__file_read(p, 16, 0, &out, &len), -ENOTSUP);
		CHECK_INT(axl__file_read(p, 16, AXL__FILE_FIFO, &out, &len), 0);
		CHECK_STR(out, "abc");
		free(out);
		close(pfd[0]);
		CHECK_STR(axl__file_error(-ENOTSUP), "not a regular file");
	}

	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);
	return check_summary();
}
