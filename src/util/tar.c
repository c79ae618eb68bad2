/* SPDX-License-Identifier: MIT */
/* Reading capture files safely (tar.h); tar_write.c writes them. */
#define _GNU_SOURCE
#include "tar.h"
#include "fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zlib_dl.h"

#define BLOCK 512
#define NAME_MAX_LEN 4095
#define PAX_MAX (64u << 10)     /* bytes of one pax extended header */
#define TRAILER_MAX (4u << 20)  /* zero bytes accepted after the end-of-archive blocks */
#define CHUNK (64u << 10)

/* ==== reading ===================================================================== */

struct src {
	int fd;
	bool gz, zinit, zend;
	z_stream z;
	uint64_t produced, max_stream;
	char *err;
	size_t errcap;
	unsigned char in[CHUNK];
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(struct src *s, int code, const char *fmt, ...)
{
	if (s->err && s->errcap && !s->err[0]) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(s->err, s->errcap, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* n bytes into buf; returns how many (fewer only at the end of the input) or -errno. */
static long src_read(struct src *s, unsigned char *buf, size_t n)
{
	size_t got = 0;
	if (!s->gz) {
		while (got < n) {
			ssize_t r = read(s->fd, buf + got, n - got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return fail(s, -errno, "cannot read the capture: %s", strerror(errno));
			if (r == 0)
				break;
			got += (size_t)r;
		}
	} else {
		while (got < n && !s->zend) {
			if (s->z.avail_in == 0) {
				ssize_t r = read(s->fd, s->in, sizeof s->in);
				if (r < 0 && errno == EINTR)
					continue;
				if (r < 0)
					return fail(s, -errno, "cannot read the capture: %s", strerror(errno));
				if (r == 0)
					return fail(s, -EBADMSG, "truncated gzip stream");
				s->z.next_in = s->in;
				s->z.avail_in = (uInt)r;
			}
			s->z.next_out = buf + got;
			s->z.avail_out = (uInt)(n - got);
			int ret = inflate(&s->z, Z_NO_FLUSH);
			got = n - s->z.avail_out;
			if (ret == Z_STREAM_END)
				s->zend = true;
			else if (ret == Z_MEM_ERROR)
				return fail(s, -ENOMEM, "out of memory");
			else if (ret != Z_OK && ret != Z_BUF_ERROR)
				return fail(s, -EBADMSG, "corrupt gzip stream (%s)",
					    s->z.msg ? s->z.msg : "bad data");
		}
	}
	s->produced += got;
	if (s->produced > s->max_stream)
		return fail(s, -EFBIG, "more than %llu bytes uncompressed",
			    (unsigned long long)s->max_stream);
	return (long)got;
}

/* Nothing may follow the archive: the end of the gzip stream, then the end of file. */
static int src_end(struct src *s)
{
	unsigned char b;
	if (s->gz) {
		if (!s->zend)
			return fail(s, -EBADMSG, "data after the end of the archive");
		if (s->z.avail_in)
			return fail(s, -EBADMSG, "data after the end of the gzip stream");
	}
	ssize_t r;
	do
		r = read(s->fd, &b, 1);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return fail(s, -errno, "cannot read the capture: %s", strerror(errno));
	if (r > 0)
		return fail(s, -EBADMSG, s->gz ? "data after the end of the gzip stream"
					       : "data after the end of the archive");
	return 0;
}

static bool all_zero(const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* A numeric header field: octal digits (space or NUL padded) or base-256. */
static bool parse_num(const unsigned char *f, size_t w, uint64_t *out)
{
	uint64_t v = 0;
	if (f[0] & 0x80) {
		if (f[0] != 0x80)
			return false; /* negative, or more than 64 bits */
		for (size_t i = 1; i < w; i++) {
			if (v >> 56)
				return false;
			v = (v << 8) | f[i];
		}
		*out = v;
		return true;
	}
	size_t i = 0;
	while (i < w && f[i] == ' ')
		i++;
	size_t digits = 0;
	for (; i < w && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
		if (v >> 60)
			return false;
		v = v * 8 + (uint64_t)(f[i] - '0');
	}
	for (; i < w; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return false;
	*out = v;
	return true;
}

static bool checksum_ok(const unsigned char *h)
{
	uint64_t want;
	if (!parse_num(h + 148, 8, &want))
		return false;
	unsigned long u = 0;
	long sg = 0;
	for (int i = 0; i < BLOCK; i++) {
		unsigned char c = (i >= 148 && i < 156) ? ' ' : h[i];
		u += c;
		sg += (signed char)c;
	}
	return want == u || (sg >= 0 && want == (unsigned long)sg);
}

/* A name for messages: printable, short. */
static const char *shown(const char *name, char *buf, size_t cap)
{
	size_t j = 0;
	for (size_t i = 0; name[i] && j + 4 < cap; i++)
		buf[j++] = ((unsigned char)name[i] < 0x20 || name[i] == 0x7f) ? '?' : name[i];
	if (name[0] && strlen(name) > j)
		memcpy(buf + (j > 3 ? j - 3 : 0), "...", 3);
	buf[j] = '\0';
	return buf;
}

static bool has_ctl(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return true;
	return false;
}

/* Normalise a member name into out ("a/b/c": no "", "." or trailing '/'). */
static int clean_name(struct src *s, const char *in, size_t inlen, unsigned max_depth, char *out,
		      unsigned *depth)
{
	char sh[128];
	if (memchr(in, '\0', inlen))
		return fail(s, -EINVAL, "a member name holds a NUL byte");
	if (has_ctl(in, inlen))
		return fail(s, -EINVAL, "member '%s': control character in the name", shown(in, sh, sizeof sh));
	if (inlen > NAME_MAX_LEN)
		return fail(s, -EINVAL, "member '%s': name longer than %d bytes", shown(in, sh, sizeof sh),
			    NAME_MAX_LEN);
	if (in[0] == '/')
		return fail(s, -EINVAL, "member '%s': absolute name", shown(in, sh, sizeof sh));
	size_t o = 0, i = 0;
	*depth = 0;
	while (i < inlen) {
		size_t l = 0;
		while (i + l < inlen && in[i + l] != '/')
			l++;
		if (l == 2 && in[i] == '.' && in[i + 1] == '.')
			return fail(s, -EINVAL, "member '%s': '..' in the name", shown(in, sh, sizeof sh));
		if (l > 255)
			return fail(s, -EINVAL, "member '%s': a component longer than 255 bytes",
				    shown(in, sh, sizeof sh));
		if (l && !(l == 1 && in[i] == '.')) {
			if (o)
				out[o++] = '/';
			memcpy(out + o, in + i, l);
			o += l;
			if (++*depth > max_depth)
				return fail(s, -EINVAL, "member '%s': deeper than %u directories",
					    shown(in, sh, sizeof sh), max_depth);
		}
		i += l + 1;
	}
	out[o] = '\0';
	return 0;
}

/* A symlink may only point inside the tree, by a relative path. */
static int check_target(struct src *s, const char *name, unsigned depth, const char *t, size_t tl)
{
	char sh[128];
	if (!tl || tl > NAME_MAX_LEN || memchr(t, '\0', tl) || has_ctl(t, tl))
		return fail(s, -EINVAL, "symlink '%s': empty or malformed target", shown(name, sh, sizeof sh));
	if (t[0] == '/')
		return fail(s, -EINVAL, "symlink '%s': absolute target", shown(name, sh, sizeof sh));
	long d = (long)depth - 1; /* the link's directory */
	for (size_t i = 0; i < tl;) {
		size_t l = 0;
		while (i + l < tl && t[i + l] != '/')
			l++;
		if (l == 2 && t[i] == '.' && t[i + 1] == '.') {
			if (--d < 0)
				return fail(s, -EINVAL, "symlink '%s': target leaves the capture",
					    shown(name, sh, sizeof sh));
		} else if (l && !(l == 1 && t[i] == '.')) {
			d++;
		}
		i += l + 1;
	}
	return 0;
}

/* Unpacking: every directory is opened O_NOFOLLOW from the root down, so nothing is
 * ever written through a symlink. The directories of the last member's path stay
 * open, one descriptor per level (members come sorted: most share their parents). */
#define SINK_LEVELS 256

struct sink {
	int n;                        /* levels open below the root */
	int fd[SINK_LEVELS + 1];      /* fd[0]: the root (the caller's) */
	size_t end[SINK_LEVELS + 1];  /* path[0, end[i]) is level i's path */
	char path[NAME_MAX_LEN + 1];
};

static void sink_pop(struct sink *k, int to)
{
	while (k->n > to)
		close(k->fd[k->n--]);
}

static int open_parent(struct src *s, struct sink *k, const char *name, const char **leaf)
{
	const char *slash = strrchr(name, '/');
	*leaf = slash ? slash + 1 : name;
	size_t pl = slash ? (size_t)(slash - name) : 0;
	/* the deepest open level that is a prefix of the parent */
	int keep = k->n;
	while (keep > 0 && !(k->end[keep] <= pl && memcmp(k->path, name, k->end[keep]) == 0 &&
			     (k->end[keep] == pl || name[k->end[keep]] == '/')))
		keep--;
	sink_pop(k, keep);
	char comp[256], sh[128];
	size_t i = k->end[k->n] + (k->n > 0);
	while (i < pl) {
		size_t l = 0;
		while (i + l < pl && name[i + l] != '/')
			l++;
		if (k->n >= SINK_LEVELS)
			return fail(s, -EINVAL, "member '%s': too deep", shown(name, sh, sizeof sh));
		memcpy(comp, name + i, l);
		comp[l] = '\0';
		int cur = k->fd[k->n];
		int fd = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			if (mkdirat(cur, comp, 0755) != 0 && errno != EEXIST) {
				int e = errno;
				return fail(s, -e, "member '%s': cannot create a directory: %s",
					    shown(name, sh, sizeof sh), strerror(e));
			}
			fd = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd < 0) {
			int e = errno;
			if (e == ELOOP || e == ENOTDIR)
				return fail(s, -EINVAL, "member '%s': written through a symlink or a file",
					    shown(name, sh, sizeof sh));
			return fail(s, -e, "member '%s': %s", shown(name, sh, sizeof sh), strerror(e));
		}
		memcpy(k->path + i, name + i, l);
		if (i)
			k->path[i - 1] = '/';
		k->n++;
		k->fd[k->n] = fd;
		k->end[k->n] = i + l;
		i += l + 1;
	}
	return k->fd[k->n];
}

/* Make room for a new non-directory leaf: an old file or link of that name goes. */
static int make_room(struct src *s, int pfd, const char *leaf, const char *name)
{
	struct stat st;
	char sh[128];
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
		return fail(s, -EINVAL, "member '%s': conflicts with a directory", shown(name, sh, sizeof sh));
	if (unlinkat(pfd, leaf, 0) != 0 && errno != ENOENT)
		return fail(s, -errno, "member '%s': %s", shown(name, sh, sizeof sh), strerror(errno));
	return 0;
}

static int skip_or_copy(struct src *s, uint64_t size, int outfd)
{
	unsigned char buf[CHUNK];
	uint64_t left = size + (BLOCK - size % BLOCK) % BLOCK;
	while (left) {
		size_t n = left > sizeof buf ? sizeof buf : (size_t)left;
		long r = src_read(s, buf, n);
		if (r < 0)
			return (int)r;
		if ((size_t)r < n)
			return fail(s, -EBADMSG, "truncated archive");
		if (outfd >= 0 && size) {
			size_t w = n > size ? (size_t)size : n;
			int rc = axl__write_all(outfd, buf, w);
			if (rc)
				return fail(s, rc, "cannot write the unpacked tree: %s", strerror(-rc));
			size -= w;
		}
		left -= n;
	}
	return 0;
}

/* Extended header data (pax 'x'/'g' or GNU 'L'/'K'), at most cap bytes. */
static int read_ext(struct src *s, uint64_t size, size_t cap, char **out)
{
	if (size > cap)
		return fail(s, -EFBIG, "an extended header of %llu bytes", (unsigned long long)size);
	char *b = malloc((size_t)size + 1);
	if (!b)
		return fail(s, -ENOMEM, "out of memory");
	size_t padded = (size_t)size + (BLOCK - size % BLOCK) % BLOCK;
	unsigned char pad[BLOCK];
	long r = src_read(s, (unsigned char *)b, (size_t)size);
	int rc = r < 0 ? (int)r : (size_t)r < size ? fail(s, -EBADMSG, "truncated archive") : 0;
	if (!rc && padded > size) {
		r = src_read(s, pad, padded - (size_t)size);
		rc = r < 0 ? (int)r : (size_t)r < padded - size ? fail(s, -EBADMSG, "truncated archive") : 0;
	}
	if (rc) {
		free(b);
		return rc;
	}
	b[size] = '\0';
	*out = b;
	return 0;
}

struct pending {
	char *path, *link;
	size_t path_len, link_len;
	bool has_size;
	uint64_t size;
};

static void pending_clear(struct pending *p)
{
	free(p->path);
	free(p->link);
	memset(p, 0, sizeof *p);
}

static int parse_pax(struct src *s, const char *b, size_t n, struct pending *p, bool global)
{
	size_t i = 0;
	while (i < n) {
		size_t len = 0, j = i;
		while (j < n && b[j] >= '0' && b[j] <= '9' && len < PAX_MAX)
			len = len * 10 + (size_t)(b[j++] - '0');
		if (j == i || j >= n || b[j] != ' ' || len < 5 || len > n - i || b[i + len - 1] != '\n')
			return fail(s, -EBADMSG, "malformed pax header");
		const char *key = b + j + 1, *end = b + i + len - 1;
		const char *eq = memchr(key, '=', (size_t)(end - key));
		if (!eq)
			return fail(s, -EBADMSG, "malformed pax header");
		size_t kl = (size_t)(eq - key), vl = (size_t)(end - eq - 1);
		const char *v = eq + 1;
		if (kl > 11 && memcmp(key, "GNU.sparse.", 11) == 0)
			return fail(s, -EINVAL, "sparse members are not supported");
		if (!global && kl == 4 && memcmp(key, "path", 4) == 0) {
			free(p->path);
			if (!(p->path = malloc(vl + 1)))
				return fail(s, -ENOMEM, "out of memory");
			memcpy(p->path, v, vl);
			p->path[vl] = '\0';
			p->path_len = vl;
		} else if (!global && kl == 8 && memcmp(key, "linkpath", 8) == 0) {
			free(p->link);
			if (!(p->link = malloc(vl + 1)))
				return fail(s, -ENOMEM, "out of memory");
			memcpy(p->link, v, vl);
			p->link[vl] = '\0';
			p->link_len = vl;
		} else if (!global && kl == 4 && memcmp(key, "size", 4) == 0) {
			uint64_t sz = 0;
			if (!vl || vl > 19)
				return fail(s, -EBADMSG, "malformed pax size");
			for (size_t k = 0; k < vl; k++) {
				if (v[k] < '0' || v[k] > '9')
					return fail(s, -EBADMSG, "malformed pax size");
				sz = sz * 10 + (uint64_t)(v[k] - '0');
			}
			p->has_size = true;
			p->size = sz;
		}
		i += len;
	}
	return 0;
}

/* After the first zero block: only zeros may follow, then the end. */
static int read_trailer(struct src *s)
{
	unsigned char b[BLOCK];
	uint64_t seen = 0;
	for (;;) {
		long r = src_read(s, b, sizeof b);
		if (r < 0)
			return (int)r;
		if (!all_zero(b, (size_t)r))
			return fail(s, -EBADMSG, "data after the end of the archive");
		if ((size_t)r < sizeof b)
			break;
		seen += (uint64_t)r;
		if (seen > TRAILER_MAX)
			return fail(s, -EBADMSG, "more than %u bytes of padding after the archive",
				    TRAILER_MAX);
	}
	return src_end(s);
}

static int one_member(struct src *s, struct sink *k, const unsigned char *h, struct pending *p,
		      const struct axl__tar_limits *lim, struct axl__tar_stats *st)
{
	char name[NAME_MAX_LEN + 1], sh[128];
	char type = (char)h[156];
	uint64_t size;
	if (!parse_num(h + 124, 12, &size))
		return fail(s, -EBADMSG, "malformed size field");
	/* extended headers describe the next member */
	if (type == 'x' || type == 'g' || type == 'L' || type == 'K') {
		char *b = NULL;
		int rc = read_ext(s, size, type == 'L' || type == 'K' ? NAME_MAX_LEN + 1 : PAX_MAX, &b);
		if (rc)
			return rc;
		if (type == 'x' || type == 'g') {
			rc = parse_pax(s, b, (size_t)size, p, type == 'g');
			free(b);
			return rc;
		}
		if (type == 'L') {
			free(p->path);
			p->path = b;
			p->path_len = strnlen(b, (size_t)size);
		} else {
			free(p->link);
			p->link = b;
			p->link_len = strnlen(b, (size_t)size);
		}
		return 0;
	}
	if (p->has_size)
		size = p->size;
	const char *raw = (const char *)h;
	char joined[256 + 1 + 100];
	size_t rawlen = strnlen(raw, 100);
	if (p->path) {
		raw = p->path;
		rawlen = p->path_len;
	} else if (memcmp(h + 257, "ustar\0", 6) == 0 && h[345]) {
		size_t pl = strnlen((const char *)h + 345, 155);
		memcpy(joined, h + 345, pl);
		joined[pl] = '/';
		memcpy(joined + pl + 1, h, rawlen);
		rawlen += pl + 1;
		joined[rawlen] = '\0';
		raw = joined;
	}
	unsigned depth = 0;
	int rc = clean_name(s, raw, rawlen, lim->max_depth, name, &depth);
	if (rc)
		return rc;
	if (++st->members > lim->max_members)
		return fail(s, -EFBIG, "more than %llu members", (unsigned long long)lim->max_members);
	switch (type) {
	case '0': case '\0': case '7':
		break;
	case '5':
	case '2':
		if (size)
			return fail(s, -EBADMSG, "member '%s': a %s with data", shown(name, sh, sizeof sh),
				    type == '5' ? "directory" : "symlink");
		break;
	case '1':
		return fail(s, -EINVAL, "member '%s': hard links are not allowed", shown(name, sh, sizeof sh));
	case '3': case '4':
		return fail(s, -EINVAL, "member '%s': device nodes are not allowed", shown(name, sh, sizeof sh));
	case '6':
		return fail(s, -EINVAL, "member '%s': FIFOs are not allowed", shown(name, sh, sizeof sh));
	default:
		return fail(s, -EINVAL, "member '%s': unsupported member type '%c'", shown(name, sh, sizeof sh),
			    type >= 0x20 && type < 0x7f ? type : '?');
	}
	if (!name[0]) {
		if (type == '5')
			return 0; /* "./": the root itself */
		return fail(s, -EINVAL, "a member without a name");
	}
	const char *leaf = NULL;
	int pfd = -1;
	if (k && (pfd = open_parent(s, k, name, &leaf)) < 0)
		return pfd;
	if (type == '5') {
		st->dirs++;
		if (pfd >= 0 && mkdirat(pfd, leaf, 0755) != 0) {
			struct stat sb;
			if (errno != EEXIST || fstatat(pfd, leaf, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
			    !S_ISDIR(sb.st_mode))
				return fail(s, errno == EEXIST ? -EINVAL : -errno,
					    "member '%s': conflicts with another member",
					    shown(name, sh, sizeof sh));
		}
		return 0;
	}
	if (type == '2') {
		const char *t = p->link ? p->link : (const char *)h + 157;
		size_t tl = p->link ? p->link_len : strnlen((const char *)h + 157, 100);
		char target[NAME_MAX_LEN + 1];
		if ((rc = check_target(s, name, depth, t, tl)) != 0)
			return rc;
		memcpy(target, t, tl);
		target[tl] = '\0';
		st->links++;
		if (pfd >= 0 && symlinkat(target, pfd, leaf) != 0) {
			if (errno != EEXIST)
				return fail(s, -errno, "member '%s': %s", shown(name, sh, sizeof sh), strerror(errno));
			if ((rc = make_room(s, pfd, leaf, name)) != 0)
				return rc;
			if (symlinkat(target, pfd, leaf) != 0)
				return fail(s, -errno, "member '%s': %s", shown(name, sh, sizeof sh), strerror(errno));
		}
		return 0;
	}
	if (size > lim->max_member)
		return fail(s, -EFBIG, "member '%s': %llu bytes, more than the %llu allowed",
			    shown(name, sh, sizeof sh), (unsigned long long)size,
			    (unsigned long long)lim->max_member);
	if (size > lim->max_total - st->bytes)
		return fail(s, -EFBIG, "more than %llu bytes in all", (unsigned long long)lim->max_total);
	st->bytes += size;
	st->files++;
	int ofd = -1;
	if (pfd >= 0) {
		ofd = openat(pfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (ofd < 0 && errno == EEXIST) {
			if ((rc = make_room(s, pfd, leaf, name)) != 0)
				return rc;
			ofd = openat(pfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		}
		if (ofd < 0)
			return fail(s, -errno, "member '%s': %s", shown(name, sh, sizeof sh), strerror(errno));
	}
	rc = skip_or_copy(s, size, ofd);
	if (ofd >= 0)
		close(ofd);
	return rc;
}

int axl__tar_sniff(int fd, char *err, size_t errcap)
{
	unsigned char h[BLOCK];
	ssize_t n;
	do
		n = pread(fd, h, sizeof h, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	const char *what = NULL;
	if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return 1;
	if (n == BLOCK && memcmp(h + 257, "ustar", 5) == 0)
		return 1;
	if (n == 0)
		what = "an empty file";
	else if (n >= 3 && memcmp(h, "BZh", 3) == 0)
		what = "bzip2-compressed (unpack it and pass the folder, or recompress it with gzip)";
	else if (n >= 6 && memcmp(h, "\xfd" "7zXZ\0", 6) == 0)
		what = "xz-compressed (unpack it and pass the folder, or recompress it with gzip)";
	else if (n >= 4 && memcmp(h, "\x28\xb5\x2f\xfd", 4) == 0)
		what = "zstd-compressed (unpack it and pass the folder, or recompress it with gzip)";
	else
		what = "neither a directory nor a tar or tar.gz capture";
	if (err && errcap)
		snprintf(err, errcap, "%s", what);
	return 0;
}

int axl__tar_read(int fd, int rootfd, const struct axl__tar_limits *lim, struct axl__tar_stats *st,
		  char *err, size_t errcap)
{
	struct axl__tar_limits dflt = AXL__TAR_LIMITS_DEFAULT;
	struct axl__tar_stats dummy;
	if (!lim)
		lim = &dflt;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof *st);
	if (err && errcap)
		err[0] = '\0';
	struct src *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->fd = fd;
	s->max_stream = lim->max_stream;
	s->err = err;
	s->errcap = errcap;
	int rc = 0;
	unsigned char magic[2];
	if (lseek(fd, 0, SEEK_SET) != 0 || pread(fd, magic, 2, 0) < 0) {
		rc = fail(s, -errno, "cannot read the capture: %s", strerror(errno));
		free(s);
		return rc;
	}
	/* pread leaves the offset at 0 */
	if (magic[0] == 0x1f && magic[1] == 0x8b) {
		s->gz = st->gzip = true;
		char why[400];
		if (axl__zlib_load(lim->zlib, why, sizeof why)) {
			rc = fail(s, -ELIBACC, "%s", why);
			free(s);
			return rc;
		}
		if (inflateInit2(&s->z, 16 + 15) != Z_OK) {
			free(s);
			return -ENOMEM;
		}
		s->zinit = true;
	}
	struct sink *k = rootfd >= 0 ? calloc(1, sizeof *k) : NULL;
	if (rootfd >= 0 && !k) {
		free(s);
		return -ENOMEM;
	}
	if (k)
		k->fd[0] = rootfd;
	struct pending p = {0};
	unsigned char h[BLOCK];
	bool any = false;
	for (;;) {
		long r = src_read(s, h, BLOCK);
		if (r < 0) {
			rc = (int)r;
			break;
		}
		if (r == 0 && !any && !s->gz) {
			rc = fail(s, -EBADMSG, "an empty file");
			break;
		}
		if (r < BLOCK) {
			rc = fail(s, -EBADMSG, "truncated archive (no end-of-archive marker)");
			break;
		}
		if (all_zero(h, BLOCK)) {
			if (p.path || p.link || p.has_size)
				rc = fail(s, -EBADMSG, "truncated archive (an extended header ends it)");
			else
				rc = read_trailer(s);
			break;
		}
		if (!checksum_ok(h)) {
			rc = fail(s, -EBADMSG, any ? "header checksum mismatch (a damaged archive)"
						   : "not a tar archive (bad header checksum)");
			break;
		}
		if (memcmp(h + 257, "ustar", 5) != 0) {
			rc = fail(s, -EBADMSG, "not a POSIX tar archive (no ustar magic)");
			break;
		}
		any = true;
		char t = (char)h[156];
		bool ext = t == 'x' || t == 'g' || t == 'L' || t == 'K';
		rc = one_member(s, k, h, &p, lim, st);
		if (rc)
			break;
		if (!ext)
			pending_clear(&p);
	}
	pending_clear(&p);
	if (k) {
		sink_pop(k, 0);
		free(k);
	}
	if (s->zinit)
		inflateEnd(&s->z);
	free(s);
	return rc;
}

/* ==== removing an unpacked tree ======================================================== */

static int rm_below(int dfd, int depth)
{
	if (depth > 512)
		return -ELOOP;
	int lfd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lfd < 0)
		return -errno;
	DIR *d = fdopendir(lfd);
	if (!d) {
		int e = errno;
		close(lfd);
		return -e;
	}
	int rc = 0;
	for (int pass = 0; pass < 16; pass++) {
		size_t removed = 0;
		struct dirent *de;
		rewinddir(d);
		while ((de = readdir(d)) != NULL) {
			const char *n = de->d_name;
			if (n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])))
				continue;
			bool isdir = de->d_type == DT_DIR;
			if (de->d_type == DT_UNKNOWN) {
				struct stat sb;
				isdir = fstatat(dfd, n, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode);
			}
			if (isdir) {
				int sub = openat(dfd, n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (sub >= 0) {
					int r2 = rm_below(sub, depth + 1);
					if (r2 && !rc)
						rc = r2;
					close(sub);
				}
			}
			if (unlinkat(dfd, n, isdir ? AT_REMOVEDIR : 0) == 0)
				removed++;
			else if (!rc)
				rc = -errno;
		}
		if (!removed)
			break;
		rc = 0; /* a later pass got what an earlier one missed */
	}
	closedir(d);
	return rc;
}

int axl__tar_rmtree(int dirfd)
{
	return rm_below(dirfd, 0);
}
