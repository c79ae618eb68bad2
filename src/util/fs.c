/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "fs.h"
#include "file.h"
#include "memfs.h"
#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* n more system calls through the seam (fs->calls) */
#define COUNT(fs, n) __atomic_fetch_add(&((struct axl__fs *)(fs))->calls, (unsigned long)(n), __ATOMIC_RELAXED)

unsigned long axl__fs_calls(const struct axl__fs *fs)
{
	return __atomic_load_n(&fs->calls, __ATOMIC_RELAXED);
}

void axl__fs_init_mem(struct axl__fs *fs, struct axl__mtree *t)
{
	fs->root_fd = -1;
	fs->rerooted = t != NULL;
	fs->have_openat2 = true;
	fs->rec = NULL;
	fs->mem = t;
	fs->calls = 0;
}

int axl__fs_init(struct axl__fs *fs, const char *sysroot)
{
	axl__fs_init_mem(fs, NULL);
	if (!sysroot || !*sysroot)
		sysroot = "/";
	int fd = open(sysroot, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* "/" is this system's root by definition (inside a chroot too); any other path
	 * is compared with it (a sysroot of "/." or a link to "/" is not re-rooted) */
	fs->rerooted = false;
	if (strcmp(sysroot, "/") != 0) {
		struct stat a, b;
		fs->rerooted = !(fstat(fd, &a) == 0 && stat("/", &b) == 0 && a.st_dev == b.st_dev &&
				 a.st_ino == b.st_ino);
	}
	fs->root_fd = fd;
	return 0;
}

void axl__fs_fini(struct axl__fs *fs)
{
	if (fs->root_fd >= 0)
		close(fs->root_fd);
	fs->root_fd = -1;
}

static const char *rel(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

/* openat2 with RESOLVE_IN_ROOT or RESOLVE_BENEATH answers EAGAIN when a rename or a
 * mount anywhere on the system raced a ".." in the walk (sysfs' bus links are all
 * "../../../devices/..."): the kernel cannot prove the walk stayed inside, and asks
 * the caller to try again. A busy node renames all the time (atomic file writes), so
 * retry; only a walk that loses the race every time gives up with EAGAIN. */
static long openat2_retry(int dirfd, const char *p, struct open_how *how, unsigned long *counter)
{
	long fd = -1;
	for (int i = 0; i < 256; i++) {
		fd = syscall(SYS_openat2, dirfd, p, how, sizeof *how);
		if (counter)
			__atomic_fetch_add(counter, 1ul, __ATOMIC_RELAXED);
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	return fd;
}

static int fs_open(const struct axl__fs *fs, int dirfd, const char *path, int flags)
{
	/* openat2 refuses flags that do not go with O_PATH (openat ignores them) */
	flags |= (flags & O_PATH) ? O_CLOEXEC : O_CLOEXEC | O_NOCTTY;
	const char *p = rel(path);
	if (dirfd == AXL__FS_ROOT) {
		dirfd = fs->root_fd;
		if (fs->rerooted && fs->have_openat2) {
			struct open_how how;
			memset(&how, 0, sizeof how);
			how.flags = (unsigned long long)flags;
			how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
			long fd = openat2_retry(dirfd, p, &how, &((struct axl__fs *)fs)->calls);
			if (fd >= 0)
				return (int)fd;
			if (errno != ENOSYS && errno != EPERM)
				return -errno;
			/* kernel without openat2 (or a seccomp filter): plain openat */
			((struct axl__fs *)fs)->have_openat2 = false;
		}
	} else if (fs->rerooted && fs->have_openat2) {
		struct open_how how;
		memset(&how, 0, sizeof how);
		how.flags = (unsigned long long)flags;
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
		long fd = openat2_retry(dirfd, p, &how, &((struct axl__fs *)fs)->calls);
		if (fd >= 0)
			return (int)fd;
		if (errno == EXDEV) {
			/* a link that leaves the directory (sysfs' "driver", "device"):
			 * resolve it from the root of the tree instead */
			return -EXDEV;
		}
		if (errno != ENOSYS && errno != EPERM)
			return -errno;
		((struct axl__fs *)fs)->have_openat2 = false;
	}
	COUNT(fs, 1);
	int fd = openat(dirfd, p, flags);
	return fd >= 0 ? fd : -errno;
}

/* close a descriptor the seam opened (counted) */
static void fs_close(const struct axl__fs *fs, int fd)
{
	COUNT(fs, 1);
	close(fd);
}

int axl__fs_open(const struct axl__fs *fs, int dirfd, const char *path, int flags)
{
	if (fs->mem)
		return axl__mfs_open(fs->mem, dirfd, path, flags);
	int fd = fs_open(fs, dirfd, path, flags);
	if (fs->rec && fd >= 0)
		axl__rec_open(fs, dirfd, path, fd, flags);
	return fd;
}

int axl__fs_opendir_fd(const struct axl__fs *fs, int dirfd, const char *path)
{
	return axl__fs_open(fs, dirfd, path, O_PATH | O_DIRECTORY);
}

long axl__fs_read(const struct axl__fs *fs, int dirfd, const char *path, char *buf, size_t cap)
{
	if (cap < 2)
		return -EINVAL;
	buf[0] = '\0';
	if (fs->mem)
		return axl__mfs_read(fs->mem, dirfd, path, buf, cap);
	int fd = fs_open(fs, dirfd, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	size_t len = 0;
	long ret = 0;
	int more = -1; /* the byte past the cap, when there is one */
	for (;;) {
		COUNT(fs, 1);
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		/* A sysfs attribute or a single-record procfs file comes whole in the first
		 * read: a short first read of a small buffer is the end (saves one read
		 * syscall per attribute). Large buffers (cpuinfo) read on to EOF. */
		if (cap <= 65536 && len == (size_t)n && len < cap - 1)
			break;
		if (len == cap - 1) {
			char extra;
			ssize_t m;
			do {
				COUNT(fs, 1);
				m = read(fd, &extra, 1);
			} while (m < 0 && errno == EINTR);
			if (m > 0) {
				ret = -EFBIG;
				more = (unsigned char)extra;
			}
			else if (m < 0)
				ret = -errno;
			break;
		}
	}
	if (fs->rec)
		axl__rec_read(fs, dirfd, path, fd, buf, len, more);
	fs_close(fs, fd);
	buf[len] = '\0';
	return ret < 0 ? ret : (long)len;
}

int axl__fs_read_alloc(const struct axl__fs *fs, int dirfd, const char *path, size_t max,
		       char **out, size_t *len)
{
	*out = NULL;
	if (len)
		*len = 0;
	if (max > ((size_t)-1) / 2)
		return -EINVAL;
	if (fs->mem)
		return axl__mfs_read_alloc(fs->mem, dirfd, path, max, out, len);
	int fd = fs_open(fs, dirfd, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	char *buf;
	size_t n;
	int ret = axl__read_fd_alloc(fd, max, &buf, &n, &((struct axl__fs *)fs)->calls);
	if (fs->rec && buf)
		axl__rec_read(fs, dirfd, path, fd, buf, n, -1);
	fs_close(fs, fd);
	if (ret < 0) {
		free(buf);
		return ret;
	}
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

/* The path of directory fd below the root ("" for the root itself), from /proc: its
 * length, or -EXDEV when fd is not inside the root. */
static int root_path_of(const struct axl__fs *fs, int fd, char *out, size_t cap)
{
	char lnk[64], root[4096], mine[4096];
	snprintf(lnk, sizeof lnk, "/proc/self/fd/%d", fs->root_fd);
	ssize_t rn = readlink(lnk, root, sizeof root - 1);
	snprintf(lnk, sizeof lnk, "/proc/self/fd/%d", fd);
	ssize_t mn = readlink(lnk, mine, sizeof mine - 1);
	if (rn <= 0 || mn <= 0)
		return -errno ? -errno : -ENOENT;
	root[rn] = mine[mn] = '\0';
	if (rn == 1 && root[0] == '/')
		rn = 0; /* a root of "/": every path is inside */
	if (strncmp(mine, root, (size_t)rn) || (mine[rn] && mine[rn] != '/'))
		return -EXDEV;
	size_t len = strlen(mine + rn);
	if (len >= cap)
		return -ENAMETOOLONG;
	memcpy(out, mine + rn, len + 1);
	return (int)len;
}

long axl__fs_readlink(const struct axl__fs *fs, int dirfd, const char *path, char *buf,
		      size_t cap)
{
	if (cap < 2)
		return -EINVAL;
	if (fs->mem)
		return axl__mfs_readlink(fs->mem, dirfd, path, buf, cap);
	int rec_dir = dirfd;
	if (dirfd == AXL__FS_ROOT)
		dirfd = fs->root_fd;
	/* readlinkat follows every component but the last: on a re-rooted tree the parent is
	 * opened through the seam (resolved inside the root, as every open is), and only the
	 * last component is read from it */
	const char *p = rel(path), *slash = strrchr(p, '/');
	int parent = -1;
	if (fs->rerooted && slash) {
		/* the parent's path from the root: the directory's own (from /proc) + the
		 * path's directory part, opened with links resolved inside the root */
		char dir[4096];
		size_t at = 0;
		if (rec_dir != AXL__FS_ROOT) {
			int r = root_path_of(fs, dirfd, dir, sizeof dir);
			if (r < 0) {
				buf[0] = '\0';
				return r;
			}
			at = (size_t)r;
		}
		size_t dlen = (size_t)(slash - p);
		if (at + 1 + dlen >= sizeof dir) {
			buf[0] = '\0';
			return -ENAMETOOLONG;
		}
		dir[at++] = '/';
		memcpy(dir + at, p, dlen);
		dir[at + dlen] = '\0';
		parent = fs_open(fs, AXL__FS_ROOT, dir, O_PATH | O_DIRECTORY);
		if (parent < 0) {
			buf[0] = '\0';
			return parent;
		}
		p = slash + 1;
	}
	COUNT(fs, 1);
	ssize_t n = readlinkat(parent >= 0 ? parent : dirfd, *p ? p : ".", buf, cap - 1);
	int err = errno;
	if (parent >= 0)
		fs_close(fs, parent);
	if (n < 0) {
		buf[0] = '\0';
		return -err;
	}
	if ((size_t)n >= cap - 1) {
		buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	buf[n] = '\0';
	if (fs->rec)
		axl__rec_link(fs, dirfd == fs->root_fd ? AXL__FS_ROOT : dirfd, path, buf);
	return (long)n;
}

/* A directory of a real tree is read with getdents64 into a buffer of its own: no
 * fdopendir (whose fstat and two fcntl calls a descriptor opened here does not need). */
#define DIRBUF 32768
struct axl__dir {
	const struct axl__fs *fs; /* a real tree's seam, NULL for an in-memory one */
	int fd;
	const struct axl__mnode *mem; /* an in-memory tree's directory, its next entry */
	size_t next;
	struct dirent ent;
	size_t pos, end; /* the unread records of buf */
	bool eof;
	_Alignas(8) char buf[];
};

axl__dir *axl__fs_opendir(const struct axl__fs *fs, int dirfd, const char *path)
{
	axl__dir *d = malloc(sizeof *d + (fs->mem ? 0 : DIRBUF));
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	d->fs = NULL;
	d->fd = -1;
	d->mem = NULL;
	d->next = d->pos = d->end = 0;
	d->eof = false;
	if (fs->mem) {
		int rc = axl__mfs_opendir(fs->mem, dirfd, path, &d->mem);
		if (rc < 0) {
			free(d);
			errno = -rc;
			return NULL;
		}
		return d;
	}
	/* recorded with its entries (axl__rec_open lists a directory opened to read) */
	int fd = axl__fs_open(fs, dirfd, path, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
	if (fd < 0) {
		free(d);
		errno = -fd;
		return NULL;
	}
	d->fs = fs;
	d->fd = fd;
	return d;
}

struct dirent *axl__fs_readdir(axl__dir *d)
{
	if (!d->fs)
		return axl__mfs_readdir(d->mem, &d->next, &d->ent);
	for (;;) {
		if (d->pos < d->end) {
			/* the kernel's records (struct linux_dirent64) are struct dirent's layout */
			struct dirent *e = (struct dirent *)(void *)(d->buf + d->pos);
			if (e->d_reclen == 0 || e->d_reclen > d->end - d->pos)
				return NULL;
			d->pos += e->d_reclen;
			return e;
		}
		if (d->eof)
			return NULL;
		COUNT(d->fs, 1);
		ssize_t n = getdents64(d->fd, d->buf, DIRBUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			d->eof = true;
			return NULL;
		}
		d->pos = 0;
		d->end = (size_t)n;
	}
}

void axl__fs_closedir(axl__dir *d)
{
	if (!d)
		return;
	if (d->fd >= 0)
		fs_close(d->fs, d->fd);
	free(d);
}

/* On the live system, not recording, a question about a path is one stat: the walk
 * needs no containing (nothing to resolve inside a root) and there is nothing to
 * record. Otherwise the path is opened through the seam, as every read is. */

bool axl__fs_exists(const struct axl__fs *fs, int dirfd, const char *path)
{
	if (fs->mem)
		return axl__mfs_kind(fs->mem, dirfd, path) >= 0;
	if (axl__fs_live(fs)) {
		struct stat st;
		COUNT(fs, 1);
		return fstatat(dirfd == AXL__FS_ROOT ? fs->root_fd : dirfd, rel(path), &st, 0) == 0;
	}
	int fd = axl__fs_open(fs, dirfd, path, O_PATH);
	if (fd < 0)
		return false;
	fs_close(fs, fd);
	return true;
}

bool axl__fs_isdir(const struct axl__fs *fs, int dirfd, const char *path)
{
	if (fs->mem)
		return axl__mfs_kind(fs->mem, dirfd, path) == 1;
	if (axl__fs_live(fs)) {
		struct stat st;
		COUNT(fs, 1);
		return fstatat(dirfd == AXL__FS_ROOT ? fs->root_fd : dirfd, rel(path), &st, 0) == 0 &&
		       S_ISDIR(st.st_mode);
	}
	int fd = axl__fs_open(fs, dirfd, path, O_PATH | O_DIRECTORY);
	if (fd < 0)
		return false;
	fs_close(fs, fd);
	return true;
}

int axl__write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}
