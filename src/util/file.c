/* SPDX-License-Identifier: MIT */
/* Whole files into memory, bounded (file.h). */
#define _GNU_SOURCE
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Read fd to its end into a malloc'd, NUL-terminated buffer: up to max + 1 bytes, one
 * more than max meaning too big. 0 with *out and *n, -EFBIG, -ENOMEM or -errno; on
 * failure *out is the part read (for the recorder) or NULL, and is the caller's. */
int axl__read_fd_alloc(int fd, size_t max, char **out, size_t *len)
{
	size_t cap = max + 2 < 4096 ? max + 2 : 4096, n = 0;
	char *buf = malloc(cap);
	int ret = buf ? 0 : -ENOMEM;
	while (ret == 0) {
		if (n == cap - 1) {
			size_t ncap = cap > (max + 2) / 2 ? max + 2 : cap * 2;
			char *nb = realloc(buf, ncap);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
		} else if (r == 0) {
			break;
		} else {
			n += (size_t)r;
			if (n > max)
				ret = -EFBIG;
		}
	}
	if (buf)
		buf[n] = '\0'; /* reads stop at cap - 1 */
	*out = buf;
	*len = n;
	return ret;
}

int axl__file_read(const char *path, size_t max, unsigned flags, char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	if (!path || max > ((size_t)-1) / 2)
		return -EINVAL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
				    (flags & AXL__FILE_NOFOLLOW ? O_NOFOLLOW : 0));
	if (fd < 0)
		return -errno;
	struct stat st;
	int ret = 0;
	if (fstat(fd, &st) != 0)
		ret = -errno;
	else if (S_ISDIR(st.st_mode))
		ret = -EISDIR;
	else if (S_ISFIFO(st.st_mode) && (flags & AXL__FILE_FIFO)) /* a pipe (<(cmd)): wait for it */
		ret = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0 ? 0 : -errno;
	else if (!S_ISREG(st.st_mode))
		ret = -ENOTSUP;
	else if ((uint64_t)st.st_size > max)
		ret = -EFBIG;
	if (ret == 0) {
		char *buf;
		size_t n;
		ret = axl__read_fd_alloc(fd, max, &buf, &n);
		if (ret < 0)
			free(buf);
		else {
			*out = buf;
			*len = n;
		}
	}
	close(fd);
	return ret;
}

const char *axl__file_error(int rc)
{
	switch (rc) {
	case -EISDIR: return "a directory, not a file";
	case -ENOTSUP: return "not a regular file";
	case -EFBIG: return "too large";
	default: return strerror(rc < 0 ? -rc : rc);
	}
}
