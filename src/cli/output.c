/* SPDX-License-Identifier: MIT */
/* Where the writers' output goes (cli.h): standard output for "-o -", else a file
 * replaced whole (util/file.h), so that a reader (NFD, a container runtime reading CDI
 * specs) never sees half of one. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "../util/file.h"

int cli_is_stdout(const char *output)
{
	return output && strcmp(output, "-") == 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, buf + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		off += (size_t)w;
	}
	return 0;
}

/* AXL_TEST_WRITE_PAUSE_MS (tests/cli/output): stop that long with half the content in
 * the temporary file, so that a test can kill the process in the middle of a write. */
static void test_pause(void)
{
	const char *p = getenv("AXL_TEST_WRITE_PAUSE_MS");
	long ms = p ? strtol(p, NULL, 10) : 0;
	if (ms > 0) {
		struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
}

int cli_write_file(const char *path, const void *buf, size_t len, unsigned mode)
{
	struct axl__replace r;
	int rc = axl__file_replace_begin(&r, path, mode);
	if (rc) {
		fprintf(stderr, "axl: %s: cannot write a file there: %s\n", path, strerror(-rc));
		return 1;
	}
	size_t half = len / 2;
	rc = write_all(r.fd, buf, half);
	if (!rc) {
		test_pause();
		rc = write_all(r.fd, (const char *)buf + half, len - half);
	}
	if (rc) {
		axl__file_replace_abort(&r);
	} else {
		rc = axl__file_replace_commit(&r);
	}
	if (rc) {
		fprintf(stderr, "axl: %s: %s\n", path, strerror(-rc));
		return 1;
	}
	return 0;
}

int cli_write_stdout(const void *buf, size_t len)
{
	if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0) {
		fprintf(stderr, "axl: standard output: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
