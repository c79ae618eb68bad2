/* SPDX-License-Identifier: MIT */
/* The in-memory tree behind the sysroot seam (src/util/memfs.c) against the real one.
 *
 * 1. The seam's calls, one by one: a small tree with every kind of entry (bus links,
 *    absolute and escaping links, a loop, a dangling link, an unreadable file, a file
 *    over the cap, an empty one) is made on disk and in memory (twice: by the builder
 *    calls and by copying the disk tree); every call must answer the same on all three
 *    (return value and bytes), from the root and from an opened directory.
 * 2. Whole discovery: for each tree named on the command line (recorded node specs
 *    made into trees by mktree.py), the inventory JSON of the tree on disk and of its
 *    copy in memory must be identical byte for byte. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"
#include "core/internal.h"
#include "util/fs.h"
#include "util/memfs.h"

#define DEV "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"

static char root[256];

/* root/rel in p, its parent directories made */
static void parents(char *p, size_t cap, const char *rel)
{
	snprintf(p, cap, "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
}

static void disk_file(const char *rel, const char *data, size_t n)
{
	char p[512];
	parents(p, sizeof p, rel);
	FILE *f = fopen(p, "wb");
	if (!f) {
		perror(p);
		exit(1);
	}
	fwrite(data, 1, n, f);
	fclose(f);
}

static void disk_link(const char *rel, const char *target)
{
	char p[512];
	parents(p, sizeof p, rel);
	if (symlink(target, p) != 0) {
		perror(p);
		exit(1);
	}
}

/* One entry on disk and in t. */
static void file(struct axl__mtree *t, const char *rel, const char *data, size_t n)
{
	disk_file(rel, data, n);
	CHECK_INT(axl__mtree_file(t, rel, data, n), 0);
}

static void link_(struct axl__mtree *t, const char *rel, const char *target)
{
	disk_link(rel, target);
	CHECK_INT(axl__mtree_link(t, rel, target), 0);
}

static void build(struct axl__mtree *t, char *big, size_t nbig)
{
	file(t, DEV "/vendor", "0x10de\n", 7);
	file(t, DEV "/class", "0x030000\n", 9);
	file(t, DEV "/empty", "", 0);
	file(t, DEV "/hwmon/hwmon0/temp1_input", "45000\n", 6);
	file(t, DEV "/hwmon/hwmon1/name", "amdgpu\n", 7);
	file(t, "sys/bus/pci/drivers/amdgpu/bind", "", 0);
	link_(t, "sys/bus/pci/devices/0000:01:00.0", "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0");
	link_(t, DEV "/driver", "../../../../bus/pci/drivers/amdgpu");
	link_(t, DEV "/subsystem", "/sys/bus/pci");
	link_(t, "sys/class/drm/card0", "/" DEV);
	link_(t, "sys/escape", "../../../../../proc");
	link_(t, "sys/loop1", "loop2");
	link_(t, "sys/loop2", "loop1");
	link_(t, "sys/dangling", "nowhere");
	link_(t, "proc/77/fd/5", "/dev/dri/renderD128");
	memset(big, 'x', nbig);
	for (size_t i = 63; i < nbig; i += 64)
		big[i] = '\n';
	file(t, "proc/cpuinfo", big, nbig);
	file(t, "proc/secret", "top\n", 4);
	file(t, "dev/dri/renderD128", "", 0);
	char p[512];
	snprintf(p, sizeof p, "%s/proc/secret", root);
	chmod(p, 0);
	/* root reads a mode 000 file: the tree says what this process could read */
	if (access(p, R_OK) != 0)
		CHECK_INT(axl__mtree_deny(t, "proc/secret"), 0);
}

/* The sorted names of a directory, or "E<errno>". */
static void listing(const struct axl__fs *fs, int dirfd, const char *path, char *out, size_t cap)
{
	axl__dir *d = axl__fs_opendir(fs, dirfd, path);
	if (!d) {
		snprintf(out, cap, "E%d", errno);
		return;
	}
	char names[64][64];
	int n = 0;
	struct dirent *e;
	while ((e = axl__fs_readdir(d)) != NULL && n < 64)
		snprintf(names[n++], sizeof names[0], "%s:%d", e->d_name, e->d_type == DT_UNKNOWN ? 0 : e->d_type);
	axl__fs_closedir(d);
	qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
	out[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(out + strlen(out), cap - strlen(out), "%s ", names[i]);
}

/* Paths whose walk passes an absolute link or a ".." above the root: every seam call,
 * readlink too (its parent is opened inside the root), keeps them inside, on disk as in
 * memory; a plain readlinkat would resolve them on the host. */
static const char *const escapes[] = {
	DEV "/subsystem/drivers/amdgpu", "sys/class/drm/card0/hwmon/hwmon0/temp1_input", "sys/../../proc/secret",
};

/* Everything one path answers through the seam, as text. */
static void answers(const struct axl__fs *fs, int dirfd, const char *path, char *out, size_t cap)
{
	char buf[8192], lnk[256], ls[2048];
	long r1 = axl__fs_read(fs, dirfd, path, buf, 64);
	char head[64];
	snprintf(head, sizeof head, "%s", buf);
	long r2 = axl__fs_read(fs, dirfd, path, buf, sizeof buf);
	char *all = NULL;
	size_t len = 0;
	int r3 = axl__fs_read_alloc(fs, dirfd, path, 100, &all, &len);
	long r4 = axl__fs_readlink(fs, dirfd, path, lnk, sizeof lnk);
	int fd = axl__fs_open(fs, dirfd, path, O_PATH);
	struct stat st;
	int kind = fd >= 0 && fstat(fd, &st) == 0 ? (int)(st.st_mode & S_IFMT) : fd;
	if (fd >= 0)
		close(fd);
	int dfd = axl__fs_opendir_fd(fs, dirfd, path);
	if (dfd >= 0)
		close(dfd);
	int rfd = axl__fs_open(fs, dirfd, path, O_RDONLY | O_NONBLOCK);
	char pr[16] = "";
	if (rfd >= 0) {
		ssize_t n = pread(rfd, pr, sizeof pr - 1, 1);
		pr[n > 0 ? n : 0] = '\0';
		close(rfd);
	}
	listing(fs, dirfd, path, ls, sizeof ls);
	snprintf(out, cap,
		 "read64=%ld '%s' read=%ld %zu alloc=%d %zu '%.20s' link=%ld '%s' path=%d dir=%d rd=%d '%s' exists=%d "
		 "isdir=%d ls=%s",
		 r1, head, r2, strlen(buf), r3, len, all ? all : "", r4, lnk, kind, dfd >= 0 ? 0 : dfd,
		 rfd >= 0 ? 0 : rfd, pr, axl__fs_exists(fs, dirfd, path), axl__fs_isdir(fs, dirfd, path), ls);
	free(all);
}

static const char *const from_root[] = {
	DEV "/vendor", "/" DEV "/class", DEV "/empty", DEV, DEV "/", DEV "/vendor/",
	"sys/bus/pci/devices/0000:01:00.0/vendor", "sys/bus/pci/devices/0000:01:00.0",
	"sys/bus/pci/devices/0000:01:00.0/", DEV "/driver", DEV "/driver/bind", DEV "/subsystem/drivers/amdgpu",
	"sys/class/drm/card0/hwmon/hwmon0/temp1_input", "sys/escape", "sys/escape/cpuinfo", "sys/loop1", "sys/loop1/x",
	"sys/dangling", "sys/missing", "proc/cpuinfo", "proc/secret", "proc/77/fd/5", "dev/dri/renderD128", "/", "",
	".", "..", "sys/../../proc/secret", "sys/./bus//pci/devices/../devices/0000:01:00.0/class", DEV "/vendor/x",
	"proc/77/fd",
};
static const char *const from_dev[] = {
	"vendor", "hwmon/hwmon0/temp1_input", "hwmon", ".", "", "driver", "driver/bind", "subsystem",
	"../0000:01:00.0/vendor", "..", "/proc/cpuinfo", "hwmon/../class", "missing", "hwmon/hwmon1/name",
};

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	chmod(path, 0700);
	return remove(path);
}

static void seam_calls(void)
{
	snprintf(root, sizeof root, "/tmp/axl-test-memfs-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(1);
	}
	struct axl__mtree *built = axl__mtree_new(), *loaded = axl__mtree_new();
	CHECK(built && loaded);
	if (!built || !loaded)
		exit(1);
	static char big[100000];
	build(built, big, sizeof big);
	CHECK_INT(axl__mtree_load(loaded, root), 0);
	/* what the builder refuses */
	CHECK_INT(axl__mtree_file(built, DEV "/vendor/x", "", 0), -ENOTDIR);
	CHECK_INT(axl__mtree_dir(built, DEV "/vendor"), -EEXIST);
	CHECK_INT(axl__mtree_file(built, "sys/../x", "", 0), -EINVAL);
	CHECK_INT(axl__mtree_deny(built, "sys/nothing"), -ENOENT);

	struct axl__fs disk, mem1, mem2;
	CHECK_INT(axl__fs_init(&disk, root), 0);
	axl__fs_init_mem(&mem1, built);
	axl__fs_init_mem(&mem2, loaded);
	CHECK(disk.rerooted && mem1.rerooted && mem2.rerooted);
	const struct axl__fs *fs[3] = {&disk, &mem1, &mem2};
	static char want[4096], got[4096];
	for (size_t i = 0; i < sizeof from_root / sizeof *from_root; i++) {
		answers(&disk, AXL__FS_ROOT, from_root[i], want, sizeof want);
		for (int k = 1; k < 3; k++) {
			answers(fs[k], AXL__FS_ROOT, from_root[i], got, sizeof got);
			if (strcmp(want, got) != 0)
				fprintf(stderr, "'%s' (tree %d):\n disk:   %s\n memory: %s\n", from_root[i], k, want,
					got);
			CHECK(strcmp(want, got) == 0);
		}
	}
	char lnk[64];
	for (size_t i = 0; i < sizeof escapes / sizeof *escapes; i++)
		for (int k = 0; k < 3; k++) /* disk too: the seam's readlink stays inside the root */
			CHECK_INT(axl__fs_readlink(fs[k], AXL__FS_ROOT, escapes[i], lnk, sizeof lnk), -EINVAL);
	CHECK_INT(axl__fs_readlink(&mem1, AXL__FS_ROOT, "sys/class/drm/../../escape", lnk, sizeof lnk), 19);
	CHECK_STR(lnk, "../../../../../proc");
	int dfd[3];
	for (int k = 0; k < 3; k++) {
		dfd[k] = axl__fs_opendir_fd(fs[k], AXL__FS_ROOT, "sys/bus/pci/devices/0000:01:00.0");
		CHECK(dfd[k] >= 0);
	}
	for (size_t i = 0; i < sizeof from_dev / sizeof *from_dev; i++) {
		answers(&disk, dfd[0], from_dev[i], want, sizeof want);
		for (int k = 1; k < 3; k++) {
			answers(fs[k], dfd[k], from_dev[i], got, sizeof got);
			if (strcmp(want, got) != 0)
				fprintf(stderr, "dev + '%s' (tree %d):\n disk:   %s\n memory: %s\n", from_dev[i], k,
					want, got);
			CHECK(strcmp(want, got) == 0);
		}
	}
	/* a descriptor of a file is no directory; an unknown one is refused */
	int ffd = axl__fs_open(&mem1, AXL__FS_ROOT, DEV "/vendor", O_RDONLY);
	CHECK(ffd >= 0);
	char b[16];
	CHECK_INT(axl__fs_read(&mem1, ffd, "x", b, sizeof b), -ENOTDIR);
	close(ffd);
	CHECK_INT(axl__fs_open(&mem1, AXL__FS_ROOT, DEV "/vendor", O_WRONLY), -EROFS);
	for (int k = 0; k < 3; k++)
		close(dfd[k]);
	axl__fs_fini(&disk);
	axl__mtree_free(built);
	axl__mtree_free(loaded);
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *inventory(const char *dir, struct axl__mtree *t)
{
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sysroot = dir;
	o.flags = AXL_CONTEXT_NO_ENV | AXL_CONTEXT_NO_PCI_IDS;
	axl_context *ctx;
	int rc = t ? axl__context_open_mtree(&ctx, &o, t) : axl_context_open(&ctx, &o);
	CHECK_INT(rc, 0);
	if (rc)
		return NULL;
	axl_inventory *inv;
	char *doc = NULL;
	CHECK_INT(axl_inventory_open(&inv, ctx, AXL_INVENTORY_ALL), 0);
	CHECK_INT(axl_inventory_json(inv, AXL_JSON_PRETTY, &doc, NULL), 0);
	CHECK(axl_inventory_device_count(inv) > 0);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return doc;
}

static void whole_tree(const char *dir)
{
	struct axl__mtree *t = axl__mtree_new();
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_INT(axl__mtree_load(t, dir), 0);
	char *want = inventory(dir, NULL), *got = inventory(dir, t);
	CHECK(want && got);
	if (want && got && strcmp(want, got) != 0) {
		size_t i = 0;
		while (want[i] && want[i] == got[i])
			i++;
		size_t from = i > 200 ? i - 200 : 0;
		fprintf(stderr, "%s: the inventories differ at byte %zu:\n disk:   ...%.300s\n memory: ...%.300s\n",
			dir, i, want + from, got + from);
		CHECK(0);
	} else if (want && got) {
		printf("%s: %zu bytes of inventory, the same from memory\n", dir, strlen(want));
		CHECK(1);
	}
	axl_free(want);
	axl_free(got);
	axl__mtree_free(t);
}

int main(int argc, char **argv)
{
	seam_calls();
	for (int i = 1; i < argc; i++)
		whole_tree(argv[i]);
	return check_summary();
}
