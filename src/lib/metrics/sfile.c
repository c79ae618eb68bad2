/* SPDX-License-Identifier: MIT */
/* The sampler's I/O for the backends (sample.h): files opened once and read again from
 * offset 0, and counters turned into rates. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "sample.h"

/* ---- files opened once --------------------------------------------------------------- */

int axl__sfile_open(const struct axl__fs *fs, int dirfd, const char *name)
{
	int fd = axl__fs_open(fs, dirfd, name, O_RDONLY | O_NONBLOCK);
	return fd < 0 ? -1 : fd;
}

long axl__sfile_read(int fd, char *buf, size_t cap)
{
	if (fd < 0 || cap < 2)
		return -EBADF;
	ssize_t n;
	do
		n = pread(fd, buf, cap - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t' || buf[n - 1] == '\0'))
		n--;
	buf[n] = '\0';
	return n;
}

static int parse_i64(const char *s, int64_t *out)
{
	if (!*s)
		return -EINVAL;
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int axl__sfile_i64(int fd, int64_t *out)
{
	char buf[64];
	long n = axl__sfile_read(fd, buf, sizeof buf);
	if (n < 0)
		return (int)n;
	return parse_i64(buf, out);
}

int axl__sfile_u64(int fd, uint64_t *out)
{
	char buf[64];
	long n = axl__sfile_read(fd, buf, sizeof buf);
	if (n < 0)
		return (int)n;
	if (!buf[0] || buf[0] == '-')
		return -EINVAL;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(buf, &end, 10);
	if (errno || end == buf || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

bool axl__sfile_gone(long err)
{
	return err == -ENODEV || err == -ENXIO || err == -ESHUTDOWN || err == -ENOENT;
}

void axl__sfile_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- rates ------------------------------------------------------------------------------ */

bool axl__srate_step(struct axl__srate *r, uint64_t value, double now_ms, double *per_s)
{
	bool ok = false;
	if (r->have && now_ms > r->prev_ms && value >= r->prev) {
		*per_s = (double)(value - r->prev) * 1000.0 / (now_ms - r->prev_ms);
		ok = isfinite(*per_s);
	}
	r->prev = value;
	r->prev_ms = now_ms;
	r->have = true;
	return ok;
}
