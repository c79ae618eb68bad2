/* SPDX-License-Identifier: MIT */
/* Paths inside another root (rootpath.h): a walk component by component, as the kernel's
 * own lookup does with RESOLVE_IN_ROOT, done by hand so that it needs no openat2 and
 * gives back the path it found. */
#define _GNU_SOURCE
#include "rootpath.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINKS 40 /* the kernel's MAXSYMLINKS */

/* root without its trailing '/': "" for the caller's own tree */
static size_t root_len(const char *root)
{
	if (!root)
		return 0;
	size_t n = strlen(root);
	while (n > 0 && root[n - 1] == '/')
		n--;
	return n;
}

int axl__root_join(const char *root, const char *path, char *out, size_t cap)
{
	size_t rn = root_len(root);
	int n = snprintf(out, cap, "%.*s%s", (int)rn, rn ? root : "", path);
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* drop the last component of the resolved path (never above "/") */
static void up(char *out, size_t *olen)
{
	while (*olen > 0 && out[*olen - 1] != '/')
		(*olen)--;
	if (*olen > 0)
		(*olen)--; /* the '/' before it */
	out[*olen] = '\0';
}

int axl__root_resolve(const char *root, const char *path, char *out, size_t cap)
{
	if (!path || path[0] != '/')
		return -EINVAL;
	if (cap < 2)
		return -ENAMETOOLONG;
	size_t rn = root_len(root);
	/* rest: what is left to walk; a link's target goes in front of it */
	char rest[PATH_MAX * 2];
	if (strlen(path) >= sizeof rest)
		return -ENAMETOOLONG;
	snprintf(rest, sizeof rest, "%s", path);
	size_t olen = 0;
	out[0] = '\0';
	int links = 0;
	char *p = rest;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		char *end = strchr(p, '/');
		size_t cl = end ? (size_t)(end - p) : strlen(p);
		const char *after = p + cl; /* "" or "/..." */
		if (cl == 1 && p[0] == '.') {
			p += cl;
			continue;
		}
		if (cl == 2 && p[0] == '.' && p[1] == '.') {
			up(out, &olen);
			p += cl;
			continue;
		}
		if (olen + 1 + cl >= cap)
			return -ENAMETOOLONG;
		out[olen++] = '/';
		memcpy(out + olen, p, cl);
		olen += cl;
		out[olen] = '\0';
		char full[PATH_MAX + 256];
		if (rn + olen >= sizeof full)
			return -ENAMETOOLONG;
		memcpy(full, root ? root : "", rn);
		memcpy(full + rn, out, olen + 1);
		struct stat st;
		if (lstat(full, &st) != 0)
			return -errno;
		if (S_ISLNK(st.st_mode)) {
			if (++links > MAX_LINKS)
				return -ELOOP;
			char target[PATH_MAX];
			ssize_t tl = readlink(full, target, sizeof target - 1);
			if (tl < 0)
				return -errno;
			if (tl == 0)
				return -ENOENT;
			target[tl] = '\0';
			/* the link is replaced by its target: from the root when absolute, else
			 * from the link's folder */
			up(out, &olen);
			if (target[0] == '/') {
				olen = 0;
				out[0] = '\0';
			}
			char next[PATH_MAX * 2];
			int n = snprintf(next, sizeof next, "%s%s", target, after);
			if (n < 0 || (size_t)n >= sizeof next)
				return -ENAMETOOLONG;
			memcpy(rest, next, (size_t)n + 1);
			p = rest;
			continue;
		}
		p += cl;
		/* a component that is followed by more must be a folder */
		const char *q = p;
		while (*q == '/')
			q++;
		if (*q && !S_ISDIR(st.st_mode))
			return -ENOTDIR;
	}
	if (olen == 0) {
		out[0] = '/';
		out[1] = '\0';
	}
	return 0;
}
