/* SPDX-License-Identifier: MIT */
/* The in-memory tree behind the sysroot seam (memfs.h). */
#define _GNU_SOURCE
#include "memfs.h"
#include "file.h"
#include "fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINKS 40 /* the kernel's limit on links followed in one walk */

struct axl__mnode {
	unsigned char type; /* DT_DIR, DT_REG, DT_LNK, DT_CHR */
	bool denied;
	char *data; /* a file's bytes, a link's target (NUL-terminated) */
	size_t len;
	int fd; /* a file's memfd, made on the first open; -1 */
	struct axl__mnode *parent;
	struct axl__mnode **kids;
	size_t nkids, capkids;
	size_t namelen;
	char name[]; /* NUL-terminated */
};

struct axl__mtree {
	struct axl__mnode *root;
	pthread_mutex_t lock;
	int dir_fd, chr_fd; /* what directories' and devices' descriptors duplicate */
	const struct axl__mnode **byfd; /* the node behind each descriptor handed out */
	size_t nbyfd;
};

static void node_free(struct axl__mnode *n)
{
	for (size_t i = 0; i < n->nkids; i++) {
		node_free(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
	free(n->data);
	if (n->fd >= 0)
		close(n->fd);
}

struct axl__mtree *axl__mtree_new(void)
{
	struct axl__mtree *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->root = calloc(1, sizeof *t->root + 1);
	if (!t->root) {
		free(t);
		return NULL;
	}
	t->root->type = DT_DIR;
	t->root->fd = -1;
	t->root->parent = t->root;
	t->dir_fd = t->chr_fd = -1;
	pthread_mutex_init(&t->lock, NULL);
	t->dir_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	t->chr_fd = open("/dev/null", O_PATH | O_CLOEXEC);
	if (t->dir_fd < 0 || t->chr_fd < 0) {
		axl__mtree_free(t);
		return NULL;
	}
	return t;
}

void axl__mtree_free(struct axl__mtree *t)
{
	if (!t)
		return;
	node_free(t->root);
	free(t->root);
	if (t->dir_fd >= 0)
		close(t->dir_fd);
	if (t->chr_fd >= 0)
		close(t->chr_fd);
	free(t->byfd);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static struct axl__mnode *child(const struct axl__mnode *dir, const char *name, size_t n)
{
	for (size_t i = 0; i < dir->nkids; i++)
		if (dir->kids[i]->namelen == n && dir->kids[i]->name[0] == name[0] &&
		    memcmp(dir->kids[i]->name, name, n) == 0)
			return dir->kids[i];
	return NULL;
}

static struct axl__mnode *add_child(struct axl__mnode *dir, const char *name, size_t n, unsigned char type)
{
	if (dir->nkids == dir->capkids) {
		size_t cap = dir->capkids ? dir->capkids * 2 : 8;
		struct axl__mnode **k = realloc(dir->kids, cap * sizeof *k);
		if (!k)
			return NULL;
		dir->kids = k;
		dir->capkids = cap;
	}
	struct axl__mnode *c = calloc(1, sizeof *c + n + 1);
	if (!c)
		return NULL;
	memcpy(c->name, name, n);
	c->namelen = n;
	c->type = type;
	c->fd = -1;
	c->parent = dir;
	dir->kids[dir->nkids++] = c;
	return c;
}

/* The next name of the path at *p, below cur: 1 with the name in *name (n bytes; last:
 * no name follows; slash: a '/' follows the last name), 0 at the end, or -ENOTDIR (cur
 * is no directory) or -ENAMETOOLONG. */
static int next_name(const struct axl__mnode *cur, const char **p, const char **name, size_t *n, bool *last,
		     bool *slash)
{
	const char *s = *p;
	while (*s == '/')
		s++;
	if (!*s)
		return 0;
	if (cur->type != DT_DIR)
		return -ENOTDIR;
	const char *e = s;
	while (*e && *e != '/')
		e++;
	*name = s;
	*n = (size_t)(e - s);
	*p = e;
	while (*e == '/')
		e++;
	*last = !*e;
	*slash = *last && **p == '/';
	return *n > NAME_MAX ? -ENAMETOOLONG : 1;
}

/* The entry at path (made, with its parents, when missing, of type `type`). */
static int make(struct axl__mtree *t, const char *path, unsigned char type, struct axl__mnode **out)
{
	struct axl__mnode *cur = t->root;
	const char *p = path, *q;
	size_t n;
	bool last, slash;
	int rc;
	while ((rc = next_name(cur, &p, &q, &n, &last, &slash)) > 0) {
		if ((n == 1 && q[0] == '.') || (n == 2 && q[0] == '.' && q[1] == '.'))
			return -EINVAL;
		struct axl__mnode *c = child(cur, q, n);
		if (!c && !(c = add_child(cur, q, n, last ? type : DT_DIR)))
			return -ENOMEM;
		if (last && c->type != type)
			return -EEXIST;
		cur = c;
	}
	if (rc < 0)
		return rc;
	if (cur == t->root && type != DT_DIR)
		return -EEXIST;
	*out = cur;
	return 0;
}

static int set_data(struct axl__mnode *n, const void *data, size_t len)
{
	char *d = malloc(len + 1);
	if (!d)
		return -ENOMEM;
	if (len)
		memcpy(d, data, len);
	d[len] = '\0';
	free(n->data);
	n->data = d;
	n->len = len;
	if (n->fd >= 0) {
		close(n->fd);
		n->fd = -1;
	}
	return 0;
}

int axl__mtree_file(struct axl__mtree *t, const char *path, const void *data, size_t len)
{
	struct axl__mnode *n;
	int rc = make(t, path, DT_REG, &n);
	return rc ? rc : set_data(n, data, len);
}

int axl__mtree_dir(struct axl__mtree *t, const char *path)
{
	struct axl__mnode *n;
	return make(t, path, DT_DIR, &n);
}

int axl__mtree_link(struct axl__mtree *t, const char *path, const char *target)
{
	struct axl__mnode *n;
	int rc = make(t, path, DT_LNK, &n);
	return rc ? rc : set_data(n, target, strlen(target));
}

int axl__mtree_chr(struct axl__mtree *t, const char *path)
{
	struct axl__mnode *n;
	return make(t, path, DT_CHR, &n);
}

/* ---- walking ------------------------------------------------------------------------ */

struct walk {
	struct axl__mtree *t;
	const struct axl__mnode *base; /* ".." stops here (in the root) or fails (beneath) */
	bool beneath;
	int links;
};

static int lookup(struct walk *w, const struct axl__mnode *dir, const char *path, bool follow_last,
		  const struct axl__mnode **out)
{
	const struct axl__mnode *cur = dir;
	const char *p = path;
	if (*p == '/') {
		if (w->beneath)
			return -EXDEV;
		cur = w->t->root;
	}
	bool last, slash = false; /* a trailing '/': the last entry must be a directory */
	const char *q;
	size_t n;
	int rc;
	while ((rc = next_name(cur, &p, &q, &n, &last, &slash)) > 0) {
		if (n == 1 && q[0] == '.')
			continue;
		if (n == 2 && q[0] == '.' && q[1] == '.') {
			if (cur == w->base) {
				if (w->beneath)
					return -EXDEV;
			} else {
				cur = cur->parent;
			}
			continue;
		}
		const struct axl__mnode *c = child(cur, q, n);
		if (!c)
			return -ENOENT;
		if (c->type == DT_LNK && (!last || follow_last || slash)) {
			if (++w->links > MAX_LINKS)
				return -ELOOP;
			if (!c->len)
				return -ENOENT;
			rc = lookup(w, cur, c->data, true, &c);
			if (rc)
				return rc;
		}
		cur = c;
	}
	if (rc < 0)
		return rc;
	if (slash && cur->type != DT_DIR)
		return -ENOTDIR;
	*out = cur;
	return 0;
}

/* The node behind a descriptor the seam handed out. */
static const struct axl__mnode *by_fd(struct axl__mtree *t, int fd)
{
	const struct axl__mnode *n = NULL;
	pthread_mutex_lock(&t->lock);
	if (fd >= 0 && (size_t)fd < t->nbyfd)
		n = t->byfd[fd];
	pthread_mutex_unlock(&t->lock);
	return n;
}

/* path from dirfd (a leading '/' is ignored, as the seam ignores it); beneath: may not
 * leave dirfd's directory (openat2's RESOLVE_BENEATH), else ".." stops at the root as
 * readlinkat's walk does on a re-rooted tree. */
static int resolve(struct axl__mtree *t, int dirfd, const char *path, bool follow, bool beneath,
		   const struct axl__mnode **out)
{
	struct walk w = {t, t->root, false, 0};
	const struct axl__mnode *start = t->root;
	if (dirfd != AXL__FS_ROOT) {
		if (!(start = by_fd(t, dirfd)))
			return -EBADF;
		if (start->type != DT_DIR)
			return -ENOTDIR;
		if (beneath) {
			w.base = start;
			w.beneath = true;
		}
	}
	while (*path == '/')
		path++;
	return lookup(&w, start, *path ? path : ".", follow, out);
}

/* ---- the seam's calls --------------------------------------------------------------- */

static int file_fd(struct axl__mnode *n)
{
	if (n->fd < 0) {
		int fd = memfd_create("axl-mtree", MFD_CLOEXEC);
		if (fd < 0)
			return -errno;
		size_t off = 0;
		while (off < n->len) {
			ssize_t w = pwrite(fd, n->data + off, n->len - off, (off_t)off);
			if (w <= 0) {
				int e = w < 0 ? errno : EIO;
				close(fd);
				return -e;
			}
			off += (size_t)w;
		}
		n->fd = fd;
	}
	return dup(n->fd);
}

int axl__mfs_open(struct axl__mtree *t, int dirfd, const char *path, int flags)
{
	const struct axl__mnode *n;
	int rc = resolve(t, dirfd, path, !(flags & O_NOFOLLOW), true, &n);
	if (rc)
		return rc;
	bool opath = flags & O_PATH;
	if ((flags & O_DIRECTORY) && n->type != DT_DIR)
		return -ENOTDIR;
	if (n->type == DT_LNK && !opath)
		return -ELOOP;
	if (!opath && (flags & O_ACCMODE) != O_RDONLY)
		return n->type == DT_DIR ? -EISDIR : -EROFS;
	if (!opath && n->denied)
		return -EACCES;
	pthread_mutex_lock(&t->lock);
	int fd;
	if (n->type == DT_REG)
		fd = file_fd((struct axl__mnode *)n);
	else
		fd = dup(n->type == DT_DIR ? t->dir_fd : t->chr_fd);
	if (fd < 0) {
		rc = fd == -1 ? -errno : fd;
	} else {
		if ((size_t)fd >= t->nbyfd) {
			size_t cap = (size_t)fd * 2 + 16;
			const struct axl__mnode **b = realloc(t->byfd, cap * sizeof *b);
			if (!b) {
				close(fd);
				pthread_mutex_unlock(&t->lock);
				return -ENOMEM;
			}
			memset(b + t->nbyfd, 0, (cap - t->nbyfd) * sizeof *b);
			t->byfd = b;
			t->nbyfd = cap;
		}
		t->byfd[fd] = n;
		rc = fd;
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

/* The readable file at path, following links. */
static int readable(struct axl__mtree *t, int dirfd, const char *path, const struct axl__mnode **n)
{
	int rc = resolve(t, dirfd, path, true, true, n);
	if (rc)
		return rc;
	if ((*n)->denied)
		return -EACCES;
	return (*n)->type == DT_DIR ? -EISDIR : 0;
}

long axl__mfs_read(struct axl__mtree *t, int dirfd, const char *path, char *buf, size_t cap)
{
	const struct axl__mnode *n;
	int rc = readable(t, dirfd, path, &n);
	if (rc)
		return rc;
	size_t len = n->len < cap - 1 ? n->len : cap - 1;
	if (len)
		memcpy(buf, n->data, len);
	buf[len] = '\0';
	return n->len > cap - 1 ? -EFBIG : (long)len;
}

int axl__mfs_read_alloc(struct axl__mtree *t, int dirfd, const char *path, size_t max, char **out,
			size_t *len)
{
	const struct axl__mnode *n;
	int rc = readable(t, dirfd, path, &n);
	if (rc)
		return rc;
	if (n->len > max)
		return -EFBIG;
	char *b = malloc(n->len + 1);
	if (!b)
		return -ENOMEM;
	if (n->len)
		memcpy(b, n->data, n->len);
	b[n->len] = '\0';
	*out = b;
	if (len)
		*len = n->len;
	return 0;
}

long axl__mfs_readlink(struct axl__mtree *t, int dirfd, const char *path, char *buf, size_t cap)
{
	const struct axl__mnode *n;
	buf[0] = '\0';
	int rc = resolve(t, dirfd, path, false, false, &n);
	if (rc)
		return rc;
	if (n->type != DT_LNK)
		return -EINVAL;
	if (n->len >= cap - 1)
		return -ENAMETOOLONG;
	memcpy(buf, n->data, n->len + 1);
	return (long)n->len;
}

int axl__mfs_opendir(struct axl__mtree *t, int dirfd, const char *path, const struct axl__mnode **node)
{
	int rc = resolve(t, dirfd, path, true, true, node);
	if (rc)
		return rc;
	if ((*node)->type != DT_DIR)
		return -ENOTDIR;
	return (*node)->denied ? -EACCES : 0;
}

struct dirent *axl__mfs_readdir(const struct axl__mnode *dir, size_t *next, struct dirent *ent)
{
	size_t i = (*next)++;
	memset(ent, 0, offsetof(struct dirent, d_name));
	ent->d_ino = (ino_t)i + 1;
	if (i < 2) {
		ent->d_type = DT_DIR;
		snprintf(ent->d_name, sizeof ent->d_name, "%s", i ? ".." : ".");
		return ent;
	}
	if (i - 2 >= dir->nkids)
		return NULL;
	const struct axl__mnode *c = dir->kids[i - 2];
	ent->d_type = c->type;
	snprintf(ent->d_name, sizeof ent->d_name, "%s", c->name);
	return ent;
}

int axl__mfs_kind(struct axl__mtree *t, int dirfd, const char *path)
{
	const struct axl__mnode *n;
	int rc = resolve(t, dirfd, path, true, true, &n);
	return rc ? rc : n->type == DT_DIR;
}

int axl__mtree_deny(struct axl__mtree *t, const char *path)
{
	const struct axl__mnode *n;
	struct walk w = {t, t->root, false, 0};
	int rc = lookup(&w, t->root, path, false, &n);
	if (rc)
		return rc;
	((struct axl__mnode *)n)->denied = true;
	return 0;
}

/* ---- copying a real tree ------------------------------------------------------------ */

static int load_dir(struct axl__mtree *t, int dfd, char *path, size_t cap)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return axl__mtree_deny(t, path);
	}
	size_t plen = strlen(path);
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (plen + strlen(e->d_name) + 2 > cap) {
			rc = -ENAMETOOLONG;
			break;
		}
		snprintf(path + plen, cap - plen, "%s%s", plen ? "/" : "", e->d_name);
		struct stat st;
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			rc = -errno;
		} else if (S_ISDIR(st.st_mode)) {
			rc = axl__mtree_dir(t, path);
			int sub = rc ? -1 : openat(dfd, e->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (rc == 0 && sub < 0)
				rc = -errno;
			else if (rc == 0) {
				rc = load_dir(t, sub, path, cap);
				close(sub);
			}
		} else if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(dfd, e->d_name, target, sizeof target - 1);
			if (n < 0)
				rc = -errno;
			else {
				target[n] = '\0';
				rc = axl__mtree_link(t, path, target);
			}
		} else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
			rc = axl__mtree_chr(t, path);
		} else if (S_ISREG(st.st_mode)) {
			int f = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
			if (f < 0) {
				rc = axl__mtree_file(t, path, "", 0);
				if (rc == 0)
					rc = axl__mtree_deny(t, path);
			} else {
				char *buf = NULL;
				size_t n = 0;
				rc = axl__read_fd_alloc(f, (size_t)1 << 30, &buf, &n, NULL);
				close(f);
				if (rc == 0)
					rc = axl__mtree_file(t, path, buf, n);
				free(buf);
			}
		}
		/* FIFOs and sockets are left out: the seam never reads them */
		path[plen] = '\0';
	}
	closedir(d);
	return rc;
}

int axl__mtree_load(struct axl__mtree *t, const char *dir)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char path[PATH_MAX] = "";
	int rc = load_dir(t, fd, path, sizeof path);
	close(fd);
	return rc;
}
