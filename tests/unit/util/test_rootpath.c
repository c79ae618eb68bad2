/* SPDX-License-Identifier: MIT */
/* Paths inside another root (src/util/rootpath.c), on the layouts a driver root has:
 * Debian's NVIDIA packages (libcuda.so.1 -> /etc/alternatives/... -> the file, absolute
 * links all the way), merged /usr (/lib64 -> usr/lib64), the GPU Operator's driver
 * container, and the hostile ones: a link that climbs out with "..", an absolute link to
 * a file that exists only in the caller's tree, a loop, a dangling link. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "util/rootpath.h"

static char root[256];

static void mk(const char *rel)
{
	char p[512], *s;
	snprintf(p, sizeof p, "%s%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
}

static void file(const char *rel)
{
	mk(rel);
	char p[512];
	snprintf(p, sizeof p, "%s%s", root, rel);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs("x", f);
		fclose(f);
	}
}

static void link_(const char *rel, const char *target)
{
	mk(rel);
	char p[512];
	snprintf(p, sizeof p, "%s%s", root, rel);
	CHECK(symlink(target, p) == 0);
}

static const char *res(const char *path, int *rc)
{
	static char out[1024];
	*rc = axl__root_resolve(root, path, out, sizeof out);
	return *rc ? "" : out;
}

int main(void)
{
	snprintf(root, sizeof root, "/tmp/axl-rootpath-%d", (int)getpid());
	CHECK(mkdir(root, 0755) == 0);
	int rc;

	/* Debian 12's libcuda1 535: two absolute links through /etc/alternatives */
	file("/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.535.261.03");
	link_("/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.1", "libcuda.so.535.261.03");
	link_("/etc/alternatives/nvidia--libcuda.so.1-x86_64-linux-gnu",
	      "/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.1");
	link_("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/etc/alternatives/nvidia--libcuda.so.1-x86_64-linux-gnu");
	CHECK_STR(res("/usr/lib/x86_64-linux-gnu/libcuda.so.1", &rc),
		  "/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.535.261.03");
	CHECK_INT(rc, 0);

	/* merged /usr: /lib64 -> usr/lib64 (relative), RHEL's libcuda in it */
	file("/usr/lib64/libcuda.so.550.54.15");
	link_("/usr/lib64/libcuda.so.1", "libcuda.so.550.54.15");
	link_("/lib64", "usr/lib64");
	CHECK_STR(res("/lib64/libcuda.so.1", &rc), "/usr/lib64/libcuda.so.550.54.15");
	CHECK_STR(res("/lib64", &rc), "/usr/lib64");
	CHECK_STR(res("/lib64/", &rc), "/usr/lib64");
	CHECK_STR(res("/usr/./lib64/../lib64//libcuda.so.1", &rc), "/usr/lib64/libcuda.so.550.54.15");

	/* ".." and absolute links never leave the root: /tmp exists in the caller's tree,
	 * not in the root */
	link_("/usr/lib/escape", "../../../../../../../tmp");
	CHECK_STR(res("/usr/lib/escape", &rc), "");
	CHECK_INT(rc, -ENOENT);
	CHECK_STR(res("/../../..", &rc), "/");
	link_("/usr/lib/abs-host", "/etc/hostname");
	res("/usr/lib/abs-host", &rc);
	CHECK_INT(rc, -ENOENT);
	file("/etc/hostname");
	CHECK_STR(res("/usr/lib/abs-host", &rc), "/etc/hostname");

	/* a dangling link, a loop, a file used as a folder, bad arguments */
	link_("/usr/lib/libgone.so.1", "/etc/alternatives/libgone.so.1");
	res("/usr/lib/libgone.so.1", &rc);
	CHECK_INT(rc, -ENOENT);
	link_("/loop/a", "b");
	link_("/loop/b", "a");
	res("/loop/a", &rc);
	CHECK_INT(rc, -ELOOP);
	res("/etc/hostname/x", &rc);
	CHECK_INT(rc, -ENOTDIR);
	res("relative/path", &rc);
	CHECK_INT(rc, -EINVAL);
	char tiny[8];
	CHECK_INT(axl__root_resolve(root, "/usr/lib64/libcuda.so.1", tiny, sizeof tiny), -ENAMETOOLONG);

	/* the caller's own tree: root "/" and NULL resolve like realpath(3) */
	char out[1024], want[1024];
	snprintf(want, sizeof want, "%s/usr/lib64/libcuda.so.550.54.15", root);
	char in[1024];
	snprintf(in, sizeof in, "%s/lib64/libcuda.so.1", root);
	char *rp = realpath(want, NULL);
	CHECK(axl__root_resolve("/", in, out, sizeof out) == 0 && rp && strcmp(out, rp) == 0);
	CHECK(axl__root_resolve(NULL, in, out, sizeof out) == 0 && rp && strcmp(out, rp) == 0);
	free(rp);

	/* join: the root's trailing '/' does not double, "/" is no prefix */
	CHECK(axl__root_join("/host/", "/usr/lib", out, sizeof out) == 0 && strcmp(out, "/host/usr/lib") == 0);
	CHECK(axl__root_join("/", "/usr/lib", out, sizeof out) == 0 && strcmp(out, "/usr/lib") == 0);
	CHECK(axl__root_join(NULL, "/usr/lib", out, sizeof out) == 0 && strcmp(out, "/usr/lib") == 0);
	CHECK_INT(axl__root_join("/host", "/usr/lib", tiny, sizeof tiny), -ENAMETOOLONG);

	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	return check_summary();
}
