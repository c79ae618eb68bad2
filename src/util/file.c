/* SPDX-License-Identifier: MIT */
/* Whole files into memory, bounded (file.h). */
#define _GNU_SOURCE
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Read fd to its end into a malloc'd, NUL-terminated buffer: up to max + 1 bytes, one
 * more than max meaning too big. 0 with *out and *n, -EFBIG, -ENOMEM or -errno; on
 * failure *out is the part read (for the recorder) or NULL, and is the caller's. */
int axl__read_fd_alloc(int fd, size_t max, char **out, size_t *len, unsigned long *reads)
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
		if (reads)
			__atomic_fetch_add(reads, 1ul, __ATOMIC_RELAXED);
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
		ret = axl__read_fd_alloc(fd, max, &buf, &n, NULL);
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

static void replace_clear(struct axl__replace *r)
{
	free(r->tmp);
	free(r->path);
	r->tmp = r->path = NULL;
	r->fd = -1;
}

int axl__file_replace_begin(struct axl__replace *r, const char *path, unsigned mode)
{
	r->fd = -1;
	r->tmp = r->path = NULL;
	r->mode = mode;
	const char *slash = path ? strrchr(path, '/') : NULL;
	const char *base = slash ? slash + 1 : path;
	if (!path || !*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return -EISDIR;
	size_t dl = slash ? (size_t)(slash - path) + 1 : 0; /* with the slash */
	r->path = strdup(path);
	r->tmp = malloc(strlen(path) + 16);
	if (!r->path || !r->tmp) {
		replace_clear(r);
		return -ENOMEM;
	}
	memcpy(r->tmp, path, dl);
	sprintf(r->tmp + dl, ".%s.XXXXXX", base);
	r->fd = mkostemp(r->tmp, O_CLOEXEC);
	if (r->fd < 0) {
		int e = errno;
		replace_clear(r);
		return -e;
	}
	if (fchmod(r->fd, (mode_t)mode) != 0) {
		int e = errno;
		axl__file_replace_abort(r);
		return -e;
	}
	return 0;
}

void axl__file_replace_abort(struct axl__replace *r)
{
	if (r->fd >= 0)
		close(r->fd);
	if (r->tmp)
		unlink(r->tmp);
	replace_clear(r);
}

int axl__file_replace_commit(struct axl__replace *r)
{
	int e = 0;
	if (fsync(r->fd) != 0)
		e = errno;
	if (close(r->fd) != 0 && !e)
		e = errno;
	r->fd = -1;
	if (!e && rename(r->tmp, r->path) != 0)
		e = errno;
	if (e) {
		axl__file_replace_abort(r);
		return -e;
	}
	/* the rename itself durable: fsync the directory */
	char *slash = strrchr(r->path, '/');
	if (slash == r->path)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	int dfd = open(slash ? r->path : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		if (fsync(dfd) != 0 && errno != EINVAL)
			e = errno;
		close(dfd);
	}
	replace_clear(r);
	return -e;
}

int axl__file_replace(const char *path, const void *buf, size_t len, unsigned mode)
{
	struct axl__replace r;
	int rc = axl__file_replace_begin(&r, path, mode);
	if (rc)
		return rc;
	for (size_t off = 0; off < len;) {
		ssize_t w = write(r.fd, (const char *)buf + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = w < 0 ? -errno : -EIO;
			axl__file_replace_abort(&r);
			return rc;
		}
		off += (size_t)w;
	}
	return axl__file_replace_commit(&r);
}

int axl__file_same(const char *path, const void *buf, size_t len)
{
	char *old = NULL;
	size_t olen = 0;
	int rc = axl__file_read(path, len, 0, &old, &olen);
	int same = rc == 0 && olen == len && memcmp(old, buf, len) == 0;
	free(old);
	return same;
}

int axl__mkdirs(const char *dir, unsigned mode, size_t *at)
{
	*at = 0;
	size_t n = dir ? strlen(dir) : 0;
	if (!n)
		return -ENOENT;
	char *buf = malloc(n + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, dir, n + 1);
	int rc = 0;
	/* each prefix that ends a component: "/a", "/a/b", ... the whole path */
	for (size_t i = 1; i <= n && !rc; i++) {
		if (i < n && !(buf[i] == '/' && buf[i - 1] != '/'))
			continue;
		char keep = buf[i];
		buf[i] = '\0';
		struct stat st;
		if (stat(buf, &st) == 0) {
			if (!S_ISDIR(st.st_mode))
				rc = -ENOTDIR;
		} else if (errno != ENOENT) {
			rc = -errno;
		} else if (mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST) {
			rc = -errno;
		}
		if (rc)
			*at = i;
		buf[i] = keep;
	}
	free(buf);
	return rc;
}
