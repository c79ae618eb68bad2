/* SPDX-License-Identifier: MIT */
/* The recorder behind `axl capture` (record.h). Only runs when a context records. */
#define _GNU_SOURCE
#include "record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strbuf.h"

#define REC_PATH_MAX 4096
#define REC_MAX_LINKS 40            /* symlinks followed per path, as the kernel does */
#define REC_OPEN_READ_MAX (64 << 10) /* bytes kept of a file axl opened to read itself */
#define REC_DIR_MAX_ENTRIES 100000   /* entries kept per listed directory */
#define REC_VENDOR_MAX (64u << 20)   /* bytes per vendor answer file (a member's cap) */

struct ent {
	struct ent *next; /* hash chain */
	uint32_t hash;
	uint8_t type;
	bool listed;
	bool has_data;
	char *target;
	char *data;
	size_t len;
	char path[];
};

struct vendor {
	struct vendor *next;
	char lib[33];
	struct axl__sb text;
	size_t records;
};

struct axl__rec {
	pthread_mutex_t lock;
	struct ent **tab;
	size_t nbuckets, n;
	char **fdpath; /* descriptor -> physical path of what it was opened on */
	size_t nfd;
	struct vendor *vendors;
	size_t missed;
};

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

struct axl__rec *axl__rec_new(void)
{
	struct axl__rec *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->nbuckets = 1024;
	r->tab = calloc(r->nbuckets, sizeof *r->tab);
	if (!r->tab) {
		free(r);
		return NULL;
	}
	pthread_mutex_init(&r->lock, NULL);
	return r;
}

void axl__rec_free(struct axl__rec *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nbuckets; i++) {
		struct ent *e = r->tab[i];
		while (e) {
			struct ent *next = e->next;
			free(e->target);
			free(e->data);
			free(e);
			e = next;
		}
	}
	free(r->tab);
	for (size_t i = 0; i < r->nfd; i++)
		free(r->fdpath[i]);
	free(r->fdpath);
	while (r->vendors) {
		struct vendor *v = r->vendors;
		r->vendors = v->next;
		axl__sb_free(&v->text);
		free(v);
	}
	pthread_mutex_destroy(&r->lock);
	free(r);
}

static struct ent *lookup(struct axl__rec *r, const char *path)
{
	uint32_t h = hash_str(path);
	for (struct ent *e = r->tab[h & (r->nbuckets - 1)]; e; e = e->next)
		if (e->hash == h && strcmp(e->path, path) == 0)
			return e;
	return NULL;
}

static void grow(struct axl__rec *r)
{
	size_t nb = r->nbuckets * 2;
	struct ent **tab = calloc(nb, sizeof *tab);
	if (!tab)
		return; /* longer chains, still correct */
	for (size_t i = 0; i < r->nbuckets; i++) {
		struct ent *e = r->tab[i];
		while (e) {
			struct ent *next = e->next;
			e->next = tab[e->hash & (nb - 1)];
			tab[e->hash & (nb - 1)] = e;
			e = next;
		}
	}
	free(r->tab);
	r->tab = tab;
	r->nbuckets = nb;
}

/* The entry for path, added with `type` when missing (an existing entry keeps its type:
 * the first sighting wins). NULL on allocation failure. */
static struct ent *add(struct axl__rec *r, const char *path, int type, const char *target)
{
	struct ent *e = lookup(r, path);
	if (e)
		return e;
	size_t n = strlen(path);
	e = calloc(1, sizeof *e + n + 1);
	if (!e) {
		r->missed++;
		return NULL;
	}
	memcpy(e->path, path, n + 1);
	e->hash = hash_str(path);
	e->type = (uint8_t)type;
	if (target && !(e->target = strdup(target))) {
		free(e);
		r->missed++;
		return NULL;
	}
	if (r->n >= r->nbuckets)
		grow(r);
	e->next = r->tab[e->hash & (r->nbuckets - 1)];
	r->tab[e->hash & (r->nbuckets - 1)] = e;
	r->n++;
	return e;
}

static bool join(char *out, size_t cap, const char *dir, const char *name, size_t nlen)
{
	size_t dl = strlen(dir);
	if (dl + 1 + nlen + 1 > cap)
		return false;
	if (out != dir)
		memcpy(out, dir, dl);
	if (dl)
		out[dl++] = '/';
	memcpy(out + dl, name, nlen);
	out[dl + nlen] = '\0';
	return true;
}

/* Resolve path relative to base (a physical path relative to the root, "" for the root
 * itself) the way the kernel does inside the root (".." stops at the root, an absolute
 * link target restarts from it), recording every directory and symlink on the way.
 * follow_last: follow a final symlink (else out names the link itself). On success out
 * holds the physical path of the final object and *type its kind. */
static int resolve(struct axl__rec *r, int rootfd, const char *base, const char *path,
		   bool follow_last, char *out, int *type)
{
	char cur[REC_PATH_MAX], cand[REC_PATH_MAX], todo[2 * REC_PATH_MAX], tgt[REC_PATH_MAX];
	if (strlen(base) >= sizeof cur || strlen(path) >= sizeof todo)
		return -ENAMETOOLONG;
	strcpy(cur, base);
	strcpy(todo, path);
	size_t pos = 0;
	int links = 0;
	for (;;) {
		while (todo[pos] == '/')
			pos++;
		if (!todo[pos])
			break;
		const char *comp = todo + pos;
		size_t clen = strcspn(comp, "/");
		pos += clen;
		size_t rest = pos;
		while (todo[rest] == '/')
			rest++;
		bool last = todo[rest] == '\0';
		if (clen == 1 && comp[0] == '.')
			continue;
		if (clen == 2 && comp[0] == '.' && comp[1] == '.') {
			char *slash = strrchr(cur, '/');
			if (slash)
				*slash = '\0';
			else
				cur[0] = '\0';
			continue;
		}
		if (!join(cand, sizeof cand, cur, comp, clen))
			return -ENAMETOOLONG;
		struct ent *e = lookup(r, cand);
		int t;
		if (e) {
			t = e->type;
			if (t == AXL__REC_LINK)
				snprintf(tgt, sizeof tgt, "%s", e->target);
		} else {
			struct stat st;
			if (fstatat(rootfd, cand, &st, AT_SYMLINK_NOFOLLOW) != 0)
				return -errno;
			if (S_ISLNK(st.st_mode)) {
				ssize_t n = readlinkat(rootfd, cand, tgt, sizeof tgt - 1);
				if (n < 0)
					return -errno;
				if ((size_t)n >= sizeof tgt - 1)
					return -ENAMETOOLONG;
				tgt[n] = '\0';
				t = AXL__REC_LINK;
				add(r, cand, t, tgt);
			} else if (S_ISDIR(st.st_mode)) {
				t = AXL__REC_DIR;
				add(r, cand, t, NULL);
			} else {
				t = AXL__REC_FILE;
			}
		}
		if (t == AXL__REC_DIR) {
			strcpy(cur, cand);
			continue;
		}
		if (t == AXL__REC_FILE) {
			if (!last)
				return -ENOTDIR;
			add(r, cand, t, NULL);
			strcpy(out, cand);
			*type = t;
			return 0;
		}
		if (last && !follow_last) {
			strcpy(out, cand);
			*type = t;
			return 0;
		}
		/* a symlink: its target, then what is left of the path */
		if (++links > REC_MAX_LINKS)
			return -ELOOP;
		char next[2 * REC_PATH_MAX];
		size_t tl = strlen(tgt), rl = strlen(todo + pos);
		if (tl + 1 + rl + 1 > sizeof next)
			return -ENAMETOOLONG;
		memcpy(next, tgt, tl);
		next[tl] = '/';
		memcpy(next + tl + 1, todo + pos, rl + 1);
		memcpy(todo, next, tl + 1 + rl + 1);
		pos = 0;
		if (tgt[0] == '/')
			cur[0] = '\0';
	}
	strcpy(out, cur);
	*type = AXL__REC_DIR;
	return 0;
}

/* The physical path of what dirfd was opened on; NULL when unknown. */
static const char *base_of(struct axl__rec *r, int dirfd)
{
	if (dirfd == AXL__FS_ROOT)
		return "";
	if (dirfd >= 0 && (size_t)dirfd < r->nfd)
		return r->fdpath[dirfd];
	return NULL;
}

static void set_fdpath(struct axl__rec *r, int fd, const char *path)
{
	if (fd < 0)
		return;
	if ((size_t)fd >= r->nfd) {
		if (!path)
			return;
		size_t n = r->nfd ? r->nfd : 64;
		while (n <= (size_t)fd)
			n *= 2;
		char **v = realloc(r->fdpath, n * sizeof *v);
		if (!v) {
			r->missed++;
			return;
		}
		memset(v + r->nfd, 0, (n - r->nfd) * sizeof *v);
		r->fdpath = v;
		r->nfd = n;
	}
	free(r->fdpath[fd]);
	r->fdpath[fd] = path ? strdup(path) : NULL;
}

static void set_data(struct ent *e, const char *data, size_t len, int more)
{
	size_t total = len + (more >= 0);
	if (e->has_data && e->len >= total)
		return; /* the first (or the longer) reading wins */
	char *d = malloc(total ? total : 1);
	if (!d)
		return;
	if (len)
		memcpy(d, data, len);
	if (more >= 0)
		d[len] = (char)more;
	free(e->data);
	e->data = d;
	e->len = total;
	e->has_data = true;
}

/* Every entry of the directory fd is open on: links as links, directories as (empty)
 * directories, anything else as a file. */
static void list_dir(struct axl__rec *r, int fd, const char *dirpath)
{
	int lfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lfd < 0) {
		r->missed++;
		return;
	}
	DIR *d = fdopendir(lfd);
	if (!d) {
		close(lfd);
		r->missed++;
		return;
	}
	struct dirent *de;
	char path[REC_PATH_MAX], tgt[REC_PATH_MAX];
	size_t count = 0;
	while ((de = readdir(d)) != NULL && count < REC_DIR_MAX_ENTRIES) {
		const char *name = de->d_name;
		if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
			continue;
		count++;
		if (!join(path, sizeof path, dirpath, name, strlen(name))) {
			r->missed++;
			continue;
		}
		if (lookup(r, path))
			continue;
		unsigned char t = de->d_type;
		if (t == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(lfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
				continue;
			t = S_ISLNK(st.st_mode) ? DT_LNK : S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
		}
		if (t == DT_LNK) {
			ssize_t n = readlinkat(lfd, name, tgt, sizeof tgt - 1);
			if (n < 0 || (size_t)n >= sizeof tgt - 1) {
				r->missed++;
				continue;
			}
			tgt[n] = '\0';
			add(r, path, AXL__REC_LINK, tgt);
		} else {
			add(r, path, t == DT_DIR ? AXL__REC_DIR : AXL__REC_FILE, NULL);
		}
	}
	closedir(d);
}

void axl__rec_open(const struct axl__fs *fs, int dirfd, const char *path, int fd, int flags)
{
	struct axl__rec *r = fs->rec;
	char out[REC_PATH_MAX];
	int type;
	pthread_mutex_lock(&r->lock);
	const char *base = base_of(r, dirfd);
	if (!base || resolve(r, fs->root_fd, base, path, !(flags & O_NOFOLLOW), out, &type) != 0) {
		r->missed++;
		set_fdpath(r, fd, NULL);
		pthread_mutex_unlock(&r->lock);
		return;
	}
	set_fdpath(r, fd, out);
	struct ent *e = type == AXL__REC_DIR ? (out[0] ? lookup(r, out) : NULL) : lookup(r, out);
	if (type == AXL__REC_DIR && (flags & O_DIRECTORY) && !(flags & O_PATH)) {
		if (!e || !e->listed)
			list_dir(r, fd, out);
		if (e)
			e->listed = true;
	} else if (type == AXL__REC_FILE && e && !e->has_data && !(flags & O_PATH) &&
		   (flags & O_ACCMODE) != O_WRONLY) {
		/* axl reads this one itself (PCI config space): keep what it can read */
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
			char *buf = malloc(REC_OPEN_READ_MAX);
			ssize_t n;
			do
				n = buf ? pread(fd, buf, REC_OPEN_READ_MAX, 0) : -1;
			while (n < 0 && errno == EINTR);
			if (n >= 0)
				set_data(e, buf, (size_t)n, -1);
			free(buf);
		}
	}
	pthread_mutex_unlock(&r->lock);
}

void axl__rec_read(const struct axl__fs *fs, int dirfd, const char *path, int fd,
		   const char *data, size_t len, int more)
{
	struct axl__rec *r = fs->rec;
	char out[REC_PATH_MAX];
	int type;
	(void)fd;
	pthread_mutex_lock(&r->lock);
	const char *base = base_of(r, dirfd);
	if (!base || resolve(r, fs->root_fd, base, path, true, out, &type) != 0) {
		r->missed++;
	} else if (type == AXL__REC_FILE) {
		struct ent *e = lookup(r, out);
		if (e)
			set_data(e, data, len, more);
	} /* a directory read as a file (EISDIR): recorded as the directory it is */
	pthread_mutex_unlock(&r->lock);
}

void axl__rec_link(const struct axl__fs *fs, int dirfd, const char *path, const char *target)
{
	struct axl__rec *r = fs->rec;
	char out[REC_PATH_MAX];
	int type;
	pthread_mutex_lock(&r->lock);
	const char *base = base_of(r, dirfd);
	if (!base || resolve(r, fs->root_fd, base, path, false, out, &type) != 0 || !out[0])
		r->missed++;
	else
		add(r, out, AXL__REC_LINK, target);
	pthread_mutex_unlock(&r->lock);
}

static bool valid_lib(const char *lib)
{
	size_t n = 0;
	for (; lib[n]; n++) {
		char c = lib[n];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	return n >= 1 && n <= 32;
}

int axl__rec_vendor(struct axl__rec *r, const char *lib, const char *line)
{
	if (!r || !lib || !line || !valid_lib(lib) || !line[0] || strpbrk(line, "\r\n"))
		return -EINVAL;
	size_t n = strlen(line);
	int rc = 0;
	pthread_mutex_lock(&r->lock);
	struct vendor *v = r->vendors;
	while (v && strcmp(v->lib, lib) != 0)
		v = v->next;
	if (!v && (v = calloc(1, sizeof *v)) != NULL) {
		strcpy(v->lib, lib);
		v->next = r->vendors;
		r->vendors = v;
	}
	if (!v) {
		rc = -ENOMEM;
	} else if (v->text.len + n + 1 > REC_VENDOR_MAX) {
		rc = -EFBIG;
	} else {
		axl__sb_put(&v->text, line, n);
		axl__sb_putc(&v->text, '\n');
		if (v->text.failed)
			rc = -ENOMEM;
		else
			v->records++;
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

static int cmp_ent(const void *a, const void *b)
{
	return strcmp((*(const struct ent *const *)a)->path, (*(const struct ent *const *)b)->path);
}

int axl__rec_foreach(struct axl__rec *r, int (*cb)(const struct axl__rec_entry *e, void *ud),
		     void *ud)
{
	pthread_mutex_lock(&r->lock);
	struct ent **all = malloc((r->n ? r->n : 1) * sizeof *all);
	if (!all) {
		pthread_mutex_unlock(&r->lock);
		return -ENOMEM;
	}
	size_t k = 0;
	for (size_t i = 0; i < r->nbuckets; i++)
		for (struct ent *e = r->tab[i]; e; e = e->next)
			all[k++] = e;
	qsort(all, k, sizeof *all, cmp_ent);
	int rc = 0;
	for (size_t i = 0; i < k && rc == 0; i++) {
		struct axl__rec_entry pub = {all[i]->path, all[i]->type, all[i]->target,
					     all[i]->has_data ? (all[i]->data ? all[i]->data : "") : NULL,
					     all[i]->has_data ? all[i]->len : 0};
		rc = cb(&pub, ud);
	}
	free(all);
	pthread_mutex_unlock(&r->lock);
	return rc;
}

static int cmp_vendor(const void *a, const void *b)
{
	return strcmp((*(const struct vendor *const *)a)->lib, (*(const struct vendor *const *)b)->lib);
}

int axl__rec_vendor_foreach(struct axl__rec *r,
			    int (*cb)(const char *lib, const char *text, size_t len, size_t records,
				      void *ud),
			    void *ud)
{
	pthread_mutex_lock(&r->lock);
	size_t n = 0;
	for (struct vendor *v = r->vendors; v; v = v->next)
		n++;
	struct vendor **all = malloc((n ? n : 1) * sizeof *all);
	int rc = all ? 0 : -ENOMEM;
	if (all) {
		n = 0;
		for (struct vendor *v = r->vendors; v; v = v->next)
			all[n++] = v;
		qsort(all, n, sizeof *all, cmp_vendor);
		for (size_t i = 0; i < n && rc == 0; i++)
			rc = cb(all[i]->lib, axl__sb_str(&all[i]->text), all[i]->text.len,
				all[i]->records, ud);
		free(all);
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

size_t axl__rec_missed(struct axl__rec *r)
{
	pthread_mutex_lock(&r->lock);
	size_t n = r->missed;
	pthread_mutex_unlock(&r->lock);
	return n;
}
