/* SPDX-License-Identifier: MIT */
/* Writing capture files: gzip-compressed POSIX tar (tar.h). */
#define _GNU_SOURCE
#include "tar.h"
#include "fs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zlib_dl.h"

#define BLOCK 512
#define NAME_MAX_LEN 4095
#define CHUNK (64u << 10)

struct axl__tar_writer {
	int fd;
	z_stream z;
	int64_t mtime;
	size_t members;
	int err; /* sticky */
	unsigned char out[CHUNK];
};

int axl__tar_writer_new(struct axl__tar_writer **out, int fd, int level, int64_t mtime, const char *zlib,
			char *err, size_t errcap)
{
	int rc = axl__zlib_load(zlib, err, errcap);
	if (rc)
		return rc;
	struct axl__tar_writer *w = calloc(1, sizeof *w);
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->mtime = mtime < 0 ? 0 : mtime;
	/* 16 + 15: a gzip wrapper around a 32 KiB window */
	if (deflateInit2(&w->z, level, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(w);
		return -ENOMEM;
	}
	*out = w;
	return 0;
}

static int gz_put(struct axl__tar_writer *w, const void *data, size_t len, int flush)
{
	if (w->err)
		return w->err;
	const unsigned char *p = data;
	do {
		size_t n = len > (1u << 30) ? (1u << 30) : len;
		w->z.next_in = (unsigned char *)(uintptr_t)p;
		w->z.avail_in = (uInt)n;
		p += n;
		len -= n;
		int f = len ? Z_NO_FLUSH : flush;
		do {
			w->z.next_out = w->out;
			w->z.avail_out = sizeof w->out;
			if (deflate(&w->z, f) == Z_STREAM_ERROR)
				return w->err = -EIO;
			int rc = axl__write_all(w->fd, w->out, sizeof w->out - w->z.avail_out);
			if (rc)
				return w->err = rc;
		} while (w->z.avail_out == 0);
	} while (len);
	return 0;
}

static void put_octal(unsigned char *field, size_t width, unsigned long long v)
{
	char tmp[32];
	snprintf(tmp, sizeof tmp, "%0*llo", (int)(width - 1), v);
	memcpy(field, tmp, width - 1);
	field[width - 1] = '\0';
}

static void finish_header(unsigned char *h)
{
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (int i = 0; i < BLOCK; i++)
		sum += h[i];
	char tmp[8];
	snprintf(tmp, sizeof tmp, "%06o", sum & 0777777u);
	memcpy(h + 148, tmp, 6);
	h[154] = '\0';
	h[155] = ' ';
}

static void make_header(struct axl__tar_writer *w, unsigned char *h, const char *name, char type,
			unsigned mode, uint64_t size, const char *link)
{
	memset(h, 0, BLOCK);
	size_t nl = strlen(name);
	memcpy(h, name, nl > 100 ? 100 : nl);
	put_octal(h + 100, 8, mode);
	put_octal(h + 108, 8, 0);
	put_octal(h + 116, 8, 0);
	put_octal(h + 124, 12, size);
	put_octal(h + 136, 12, (unsigned long long)w->mtime);
	h[156] = (unsigned char)type;
	if (link) {
		size_t ll = strlen(link);
		memcpy(h + 157, link, ll > 100 ? 100 : ll);
	}
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memcpy(h + 265, "root", 4);
	memcpy(h + 297, "root", 4);
	finish_header(h);
}

static int put_data(struct axl__tar_writer *w, const void *data, size_t len)
{
	static const unsigned char zero[BLOCK];
	int rc = gz_put(w, data, len, Z_NO_FLUSH);
	if (!rc && len % BLOCK)
		rc = gz_put(w, zero, BLOCK - len % BLOCK, Z_NO_FLUSH);
	return rc;
}

static void pax_record(char *buf, size_t *off, const char *key, const char *val)
{
	size_t base = 1 + strlen(key) + 1 + strlen(val) + 1, len = base;
	for (int i = 0; i < 2; i++) { /* the length counts its own digits */
		char d[24];
		len = base + (size_t)snprintf(d, sizeof d, "%zu", len);
	}
	*off += (size_t)sprintf(buf + *off, "%zu %s=%s\n", len, key, val);
}

static int add_member(struct axl__tar_writer *w, const char *name, char type, unsigned mode,
		      const void *data, size_t len, const char *link)
{
	if (w->err)
		return w->err;
	size_t nl = strlen(name), ll = link ? strlen(link) : 0;
	if (!nl || nl > NAME_MAX_LEN || ll > NAME_MAX_LEN)
		return -ENAMETOOLONG;
	unsigned char h[BLOCK];
	if (nl > 100 || ll > 100) {
		char pax[2 * (NAME_MAX_LEN + 32)];
		size_t off = 0;
		if (nl > 100)
			pax_record(pax, &off, "path", name);
		if (ll > 100)
			pax_record(pax, &off, "linkpath", link);
		make_header(w, h, "././@PaxHeader", 'x', 0644, off, NULL);
		int rc = gz_put(w, h, BLOCK, Z_NO_FLUSH);
		if (!rc)
			rc = put_data(w, pax, off);
		if (rc)
			return rc;
	}
	make_header(w, h, name, type, mode, len, link);
	int rc = gz_put(w, h, BLOCK, Z_NO_FLUSH);
	if (!rc && len)
		rc = put_data(w, data, len);
	if (!rc)
		w->members++;
	return rc;
}

int axl__tar_add_dir(struct axl__tar_writer *w, const char *path)
{
	return add_member(w, path, '5', 0755, NULL, 0, NULL);
}

int axl__tar_add_file(struct axl__tar_writer *w, const char *path, const void *data, size_t len)
{
	return add_member(w, path, '0', 0644, data, len, NULL);
}

int axl__tar_add_symlink(struct axl__tar_writer *w, const char *path, const char *target)
{
	return add_member(w, path, '2', 0777, NULL, 0, target);
}

int axl__tar_writer_finish(struct axl__tar_writer *w, size_t *members)
{
	static const unsigned char zero[2 * BLOCK];
	int rc = gz_put(w, zero, sizeof zero, Z_FINISH);
	if (members)
		*members = w->members;
	deflateEnd(&w->z);
	free(w);
	return rc;
}

void axl__tar_writer_abort(struct axl__tar_writer *w)
{
	if (!w)
		return;
	deflateEnd(&w->z);
	free(w);
}
