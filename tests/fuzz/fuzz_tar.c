/* SPDX-License-Identifier: MIT */
/*
 * The capture reader (src/util/tar.c) on arbitrary bytes: tar or gzip'd tar, checked
 * first, then unpacked into a private directory when the check passes. It must never
 * crash, hang, write outside that directory, or leave anything behind it cannot
 * remove. Small limits keep each input fast.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/tar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 20)
		return 0;
	int fd = memfd_create("fuzz-tar", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	for (size_t off = 0; off < size;) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0)
			abort();
		off += (size_t)w;
	}
	struct axl__tar_limits lim = {1 << 20, 8 << 20, 2000, 64 << 20, 32};
	char err[256];
	struct axl__tar_stats st;
	axl__tar_sniff(fd, err, sizeof err);
	int rc = axl__tar_read(fd, -1, &lim, &st, err, sizeof err);
	if (rc == 0) {
		char dir[] = "/tmp/axl-fuzz-tar-XXXXXX";
		if (!mkdtemp(dir))
			abort();
		int rfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (rfd < 0)
			abort();
		rc = axl__tar_read(fd, rfd, &lim, &st, err, sizeof err);
		(void)rc;
		if (axl__tar_rmtree(rfd) != 0)
			abort();
		close(rfd);
		if (rmdir(dir) != 0)
			abort(); /* something was left that the remover could not take */
	} else if (!err[0]) {
		abort(); /* every refusal says why */
	}
	close(fd);
	return 0;
}
