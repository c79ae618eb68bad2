/* SPDX-License-Identifier: MIT */
/* Captures from the inside: the recorder (paths, symlinks, listings, bytes read, from
 * several threads), the vendor-answer API a backend uses (axl__capture_vendor, then
 * axl__fs_read_alloc on the replayed tree), axl_capture_write's errors, replaying a
 * capture file, capturing a replay, and the tar module's limits and long names. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axl.h"
#include "capture.h"
#include "check.h"
#include "internal.h"
#include "util/record.h"
#include "util/tar.h"

static char base[256], root[300], tmpdir[300];

static void put(const char *dir, const char *rel, const char *content)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	for (char *p = path + strlen(dir) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(content, f);
	fclose(f);
}

static void link_(const char *target, const char *rel)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	if (symlink(target, path) != 0) {
		perror(path);
		exit(2);
	}
}

#define DEV "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"

static void build_tree(void)
{
	put(root, DEV "/vendor", "0x10de\n");
	put(root, DEV "/device", "0x2330\n");
	put(root, DEV "/class", "0x030200\n");
	put(root, DEV "/not_read", "secret\n");
	put(root, DEV "/long", "0123456789");
	put(root, DEV "/drm/card0/uevent", "DEVNAME=dri/card0\n");
	put(root, "sys/bus/pci/drivers/nvidia/bind", "");
	link_("../../../../bus/pci/drivers/nvidia", DEV "/driver");
	put(root, "sys/bus/pci/devices/.keep", "");
	link_("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0", "sys/bus/pci/devices/0000:01:00.0");
	/* an absolute link: the capture must turn it into a relative one */
	put(root, "sys/class/x/.keep", "");
	link_("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", "sys/class/x/dev0");
	put(root, "proc/cpuinfo", "processor\t: 0\n");
	put(root, "proc/sys/kernel/hostname", "node-7\n");
}

static int rm_cb(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	axl__tar_rmtree(fd);
	close(fd);
	return rmdir(dir);
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static axl_context *open_ctx(const char *sysroot, unsigned flags)
{
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sysroot = sysroot;
	o.flags = AXL_CONTEXT_NO_ENV | AXL_CONTEXT_NO_PCI_IDS | flags;
	axl_context *ctx = NULL;
	int rc = axl_context_open(&ctx, &o);
	if (rc)
		fprintf(stderr, "open %s: %s\n", sysroot, axl_error_last());
	return ctx;
}

/* ---- several threads reading and recording answers at once ---------------------- */
struct worker {
	axl_context *ctx;
	int id;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	char buf[64], line[128];
	for (int i = 0; i < 200; i++) {
		snprintf(line, sizeof line, "{\"thread\":%d,\"call\":%d,\"fn\":\"nvmlDeviceGetCount\"}", w->id, i);
		axl__capture_vendor(w->ctx, "nvml", line);
		if (i % 50 == 0)
			axl__capture_vendor(w->ctx, "rocm_smi", "{\"fn\":\"rsmi_init\",\"ret\":0}");
		axl__fs_read(&w->ctx->fs, AXL__FS_ROOT, "sys/bus/pci/devices/0000:01:00.0/vendor", buf, sizeof buf);
		int dfd = axl__fs_opendir_fd(&w->ctx->fs, AXL__FS_ROOT, "sys/bus/pci/devices/0000:01:00.0");
		if (dfd >= 0) {
			axl__fs_read(&w->ctx->fs, dfd, "device", buf, sizeof buf);
			close(dfd);
		}
	}
	return NULL;
}

static void test_record_and_replay(void)
{
	axl_context *ctx = open_ctx(root, AXL_CONTEXT_RECORD);
	CHECK(ctx != NULL);
	if (!ctx)
		return;
	char buf[64], cap[512], cap2[512];
	CHECK(axl__capture_recording(ctx));
	CHECK(!axl__capture_recording(NULL));
	/* single-threaded reads of every kind */
	CHECK_INT(axl__fs_read(&ctx->fs, AXL__FS_ROOT, "/sys/bus/pci/devices/0000:01:00.0/class", buf, sizeof buf), 9);
	CHECK_INT(axl__fs_read(&ctx->fs, AXL__FS_ROOT, "sys/class/x/dev0/long", buf, 5), -EFBIG);
	CHECK(axl__fs_readlink(&ctx->fs, AXL__FS_ROOT, "sys/bus/pci/devices/0000:01:00.0/driver", buf, sizeof buf) > 0);
	axl__dir *d = axl__fs_opendir(&ctx->fs, AXL__FS_ROOT, "sys/bus/pci/devices/0000:01:00.0");
	CHECK(d != NULL);
	axl__fs_closedir(d);
	CHECK(axl__fs_exists(&ctx->fs, AXL__FS_ROOT, "proc/sys/kernel/hostname"));
	char *text = NULL;
	size_t len = 0;
	CHECK_INT(axl__fs_read_alloc(&ctx->fs, AXL__FS_ROOT, "proc/cpuinfo", 1 << 20, &text, &len), 0);
	free(text);

	/* answers and reads from four threads at once */
	pthread_t t[4];
	struct worker w[4];
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ctx, i};
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	/* records that must be dropped */
	axl__capture_vendor(ctx, "NVML", "{}");
	axl__capture_vendor(ctx, "../x", "{}");
	axl__capture_vendor(ctx, "nvml", "{\"a\":1}\n{\"b\":2}");
	axl__capture_vendor(ctx, "nvml", "");
	axl__capture_vendor(ctx, "nvml", NULL);
	axl__capture_vendor(NULL, "nvml", "{}");

	/* writing */
	snprintf(cap, sizeof cap, "%s/one.tar.gz", base);
	size_t members = 0;
	CHECK_INT(axl_capture_write(ctx, cap, NULL, &members), 0);
	CHECK(members > 10);
	struct axl_capture_options co = AXL_CAPTURE_OPTIONS_INIT;
	co.version = 99;
	CHECK_INT(axl_capture_write(ctx, cap, &co, NULL), AXL_EVERSION);
	co.version = AXL_CAPTURE_OPTIONS_VERSION;
	co.flags = 1;
	CHECK_INT(axl_capture_write(ctx, cap, &co, NULL), AXL_EINVAL);
	co.flags = 0;
	CHECK_INT(axl_capture_write(ctx, "/nonexistent-dir/x.tar.gz", &co, NULL), AXL_ENOENT);
	CHECK(strstr(axl_error_last(), "/nonexistent-dir/x.tar.gz") != NULL);
	CHECK_INT(axl_capture_write(ctx, "somedir/", &co, NULL), AXL_EINVAL);
	CHECK_INT(axl_capture_write(NULL, cap, NULL, NULL), AXL_EINVAL);
	CHECK_INT(count_entries(base), 3); /* tree, tmp, one.tar.gz: no temporary file left */
	axl_context_free(ctx);

	axl_context *plain = open_ctx(root, 0);
	CHECK_INT(axl_capture_write(plain, cap, NULL, NULL), AXL_EINVAL);
	CHECK(strstr(axl_error_last(), "AXL_CONTEXT_RECORD") != NULL);
	axl__capture_vendor(plain, "nvml", "{}"); /* no-op */
	CHECK(!axl__capture_recording(plain));
	axl_context_free(plain);

	/* replay: the capture file as the sysroot */
	axl_context *rp = open_ctx(cap, 0);
	CHECK(rp != NULL);
	if (!rp)
		return;
	CHECK_STR(axl_context_sysroot(rp), cap);
	CHECK(axl_context_is_rerooted(rp));
	CHECK_INT(count_entries(tmpdir), 1); /* the unpacked tree, for now */
	CHECK_INT(axl__fs_read(&rp->fs, AXL__FS_ROOT, "sys/bus/pci/devices/0000:01:00.0/vendor", buf, sizeof buf), 7);
	CHECK_STR(buf, "0x10de\n");
	CHECK_INT(axl__fs_read(&rp->fs, AXL__FS_ROOT, "sys/bus/pci/devices/0000:01:00.0/class", buf, sizeof buf), 9);
	CHECK_INT(axl__fs_read(&rp->fs, AXL__FS_ROOT, DEV "/long", buf, 5), -EFBIG); /* as it was */
	/* only opened */
	CHECK_INT(axl__fs_read(&rp->fs, AXL__FS_ROOT, "proc/sys/kernel/hostname", buf, sizeof buf), 0);
	CHECK_INT(axl__fs_read(&rp->fs, AXL__FS_ROOT, DEV "/not_read", buf, sizeof buf), 0);  /* listed, not read */
	CHECK_INT(axl__fs_read(&rp->fs, AXL__FS_ROOT, "sys/bus/pci/drivers/nvidia/bind", buf, sizeof buf), -ENOENT);
	CHECK(axl__fs_readlink(&rp->fs, AXL__FS_ROOT, "sys/bus/pci/devices/0000:01:00.0/driver", buf, sizeof buf) > 0);
	CHECK_STR(buf, "../../../../bus/pci/drivers/nvidia");
	CHECK(axl__fs_readlink(&rp->fs, AXL__FS_ROOT, "sys/class/x/dev0", buf, sizeof buf) > 0);
	CHECK_STR(buf, "../../../sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0");
	CHECK(axl__fs_isdir(&rp->fs, AXL__FS_ROOT, DEV "/drm"));        /* an entry of a listed directory */
	CHECK(!axl__fs_exists(&rp->fs, AXL__FS_ROOT, DEV "/drm/card0")); /* drm itself was not listed */
	/* the answers, as a backend loads them on replay */
	CHECK_INT(axl__fs_read_alloc(&rp->fs, AXL__FS_ROOT, AXL__CAPTURE_DIR "/nvml.jsonl", AXL__CAPTURE_VENDOR_MAX,
				     &text, &len), 0);
	size_t lines = 0;
	int seen[4][200] = {{0}};
	bool well_formed = true;
	for (char *p = text; p && *p;) {
		char *nl = strchr(p, '\n');
		if (!nl) {
			well_formed = false;
			break;
		}
		int th, call;
		if (sscanf(p, "{\"thread\":%d,\"call\":%d,", &th, &call) == 2 && th >= 0 && th < 4 && call >= 0 &&
		    call < 200)
			seen[th][call]++;
		else
			well_formed = false;
		lines++;
		p = nl + 1;
	}
	CHECK(well_formed);
	CHECK_INT(lines, 800);
	int once = 1;
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 200; j++)
			once &= seen[i][j] == 1;
	CHECK(once);
	char *nvml1 = text;
	CHECK_INT(axl__fs_read_alloc(&rp->fs, AXL__FS_ROOT, AXL__CAPTURE_DIR "/rocm_smi.jsonl", 1 << 20, &text, &len),
		  0);
	CHECK_INT(len, 16 * strlen("{\"fn\":\"rsmi_init\",\"ret\":0}\n"));
	free(text);
	CHECK_INT(axl__fs_read_alloc(&rp->fs, AXL__FS_ROOT, AXL__CAPTURE_DIR "/manifest.json", 1 << 20, &text, &len),
		  0);
	CHECK(text && strstr(text, "\"schema\": \"axl.capture\"") && strstr(text, "\"library\": \"nvml\"") &&
	      strstr(text, "\"records\": 800"));
	free(text);
	axl_context_free(rp);
	CHECK_INT(count_entries(tmpdir), 0); /* removed with the context */

	/* a capture of the replay carries the answers it was given */
	axl_context *rr = open_ctx(cap, AXL_CONTEXT_RECORD);
	CHECK(rr != NULL);
	if (!rr) {
		free(nvml1);
		return;
	}
	CHECK_INT(axl__fs_read_alloc(&rr->fs, AXL__FS_ROOT, AXL__CAPTURE_DIR "/nvml.jsonl", AXL__CAPTURE_VENDOR_MAX,
				     &text, &len), 0);
	free(text);
	axl__capture_vendor(rr, "level_zero", "{\"fn\":\"zeInit\",\"ret\":0}");
	snprintf(cap2, sizeof cap2, "%s/two.tar.gz", base);
	CHECK_INT(axl_capture_write(rr, cap2, NULL, NULL), 0);
	axl_context_free(rr);
	axl_context *r2 = open_ctx(cap2, 0);
	CHECK(r2 != NULL);
	if (!r2) {
		free(nvml1);
		return;
	}
	CHECK_INT(axl__fs_read_alloc(&r2->fs, AXL__FS_ROOT, AXL__CAPTURE_DIR "/nvml.jsonl", AXL__CAPTURE_VENDOR_MAX,
				     &text, &len), 0);
	CHECK(text && nvml1 && strcmp(text, nvml1) == 0);
	free(text);
	free(nvml1);
	CHECK_INT(axl__fs_read_alloc(&r2->fs, AXL__FS_ROOT, AXL__CAPTURE_DIR "/manifest.json", 1 << 20, &text, &len),
		  0);
	CHECK(text && strstr(text, "\"library\": \"level_zero\"") && strstr(text, "\"replayed\": true") &&
	      strstr(text, "\"rerooted\": true"));
	free(text);
	axl_context_free(r2);
}

static void test_read_alloc(void)
{
	put(base, "ra/ten", "0123456789");
	put(base, "ra/empty", "");
	char dir[600];
	snprintf(dir, sizeof dir, "%s/ra", base);
	struct axl__fs fs;
	CHECK_INT(axl__fs_init(&fs, dir), 0);
	char *t = NULL;
	size_t n = 99;
	CHECK_INT(axl__fs_read_alloc(&fs, AXL__FS_ROOT, "ten", 10, &t, &n), 0);
	CHECK_INT(n, 10);
	CHECK_STR(t, "0123456789");
	free(t);
	CHECK_INT(axl__fs_read_alloc(&fs, AXL__FS_ROOT, "ten", 9, &t, &n), -EFBIG);
	CHECK(t == NULL);
	CHECK_INT(axl__fs_read_alloc(&fs, AXL__FS_ROOT, "empty", 0, &t, &n), 0);
	CHECK(t && n == 0 && t[0] == '\0');
	free(t);
	CHECK_INT(axl__fs_read_alloc(&fs, AXL__FS_ROOT, "missing", 10, &t, NULL), -ENOENT);
	CHECK_INT(axl__fs_read_alloc(&fs, AXL__FS_ROOT, ".", 10, &t, NULL), -EISDIR);
	CHECK_INT(axl__fs_read_alloc(&fs, AXL__FS_ROOT, "../../ten", 100, &t, &n), 0); /* ".." stops at the root */
	free(t);
	axl__fs_fini(&fs);
}

/* ---- the tar module directly: long names, limits ----------------------------------- */
static int write_tar(const char *path, int nfiles, const char *longname, const char *longlink)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct axl__tar_writer *w;
	char zerr[400];
	int rc = axl__tar_writer_new(&w, fd, 6, 0, NULL, zerr, sizeof zerr);
	if (rc)
		return rc;
	char name[64];
	for (int i = 0; i < nfiles && !rc; i++) {
		snprintf(name, sizeof name, "f%d", i);
		rc = axl__tar_add_file(w, name, "0123456789", 10);
	}
	if (!rc && longname)
		rc = axl__tar_add_file(w, longname, "deep\n", 5);
	if (!rc && longlink)
		rc = axl__tar_add_symlink(w, "lnk", longlink);
	if (rc) {
		axl__tar_writer_abort(w);
		close(fd);
		return rc;
	}
	rc = axl__tar_writer_finish(w, NULL);
	close(fd);
	return rc;
}

static void test_tar(void)
{
	char path[600], out[600], longname[700], longlink[700], err[256], p2[1400];
	snprintf(path, sizeof path, "%s/t.tar.gz", base);
	snprintf(out, sizeof out, "%s/t-out", base);
	/* a 320-byte name in 32 directories and a 200-byte link target: pax headers */
	longname[0] = '\0';
	for (int i = 0; i < 32; i++)
		strcat(longname, "directory/");
	strcat(longname, "file-with-a-long-name");
	longlink[0] = '\0';
	for (int i = 0; i < 20; i++)
		strcat(longlink, "abcdefghi/");
	strcat(longlink, "x");
	CHECK_INT(write_tar(path, 3, longname, longlink), 0);
	mkdir(out, 0700);
	int fd = open(path, O_RDONLY), rfd = open(out, O_RDONLY | O_DIRECTORY);
	struct axl__tar_stats st;
	CHECK_INT(axl__tar_read(fd, rfd, NULL, &st, err, sizeof err), 0);
	CHECK(st.gzip);
	CHECK_INT(st.files, 4);
	CHECK_INT(st.links, 1);
	CHECK_INT(st.bytes, 35);
	snprintf(p2, sizeof p2, "%s/%s", out, longname);
	struct stat sb;
	CHECK(stat(p2, &sb) == 0 && sb.st_size == 5);
	snprintf(p2, sizeof p2, "%s/lnk", out);
	char tgt[700];
	ssize_t n = readlink(p2, tgt, sizeof tgt - 1);
	CHECK(n == (ssize_t)strlen(longlink) && memcmp(tgt, longlink, (size_t)n) == 0);
	axl__tar_rmtree(rfd);
	CHECK_INT(count_entries(out), 0);

	/* the limits */
	struct axl__tar_limits lim = AXL__TAR_LIMITS_DEFAULT;
	lim.max_members = 3;
	CHECK_INT(axl__tar_read(fd, -1, &lim, NULL, err, sizeof err), -EFBIG);
	CHECK(strstr(err, "more than 3 members") != NULL);
	lim = (struct axl__tar_limits)AXL__TAR_LIMITS_DEFAULT;
	lim.max_total = 25;
	CHECK_INT(axl__tar_read(fd, -1, &lim, NULL, err, sizeof err), -EFBIG);
	CHECK(strstr(err, "more than 25 bytes in all") != NULL);
	lim = (struct axl__tar_limits)AXL__TAR_LIMITS_DEFAULT;
	lim.max_member = 9;
	CHECK_INT(axl__tar_read(fd, -1, &lim, NULL, err, sizeof err), -EFBIG);
	CHECK(strstr(err, "member 'f0': 10 bytes") != NULL);
	lim = (struct axl__tar_limits)AXL__TAR_LIMITS_DEFAULT;
	lim.max_depth = 16;
	CHECK_INT(axl__tar_read(fd, -1, &lim, NULL, err, sizeof err), -EINVAL);
	CHECK(strstr(err, "deeper than 16") != NULL);
	lim = (struct axl__tar_limits)AXL__TAR_LIMITS_DEFAULT;
	lim.max_stream = 4096;
	CHECK_INT(axl__tar_read(fd, -1, &lim, NULL, err, sizeof err), -EFBIG);
	CHECK(strstr(err, "uncompressed") != NULL);
	CHECK_INT(axl__tar_sniff(fd, err, sizeof err), 1);
	close(fd);
	close(rfd);
	rmdir(out);
	/* a file that is no capture */
	snprintf(p2, sizeof p2, "%s/not.tar", base);
	put(base, "not.tar", "plain text\n");
	fd = open(p2, O_RDONLY);
	CHECK_INT(axl__tar_sniff(fd, err, sizeof err), 0);
	CHECK(strstr(err, "neither") != NULL);
	close(fd);
	axl_context *ctx = open_ctx(p2, 0);
	CHECK(ctx == NULL);
	CHECK(strstr(axl_error_last(), "neither a directory nor a tar") != NULL);
}

/* The inventory of the capture equals the inventory of the tree it was taken from. */
static void test_inventory_roundtrip(void)
{
	axl_context *ctx = open_ctx(root, AXL_CONTEXT_RECORD);
	axl_inventory *inv = NULL;
	char *a = NULL, *b = NULL, cap[600];
	CHECK(ctx && axl_inventory_open(&inv, ctx, AXL_INVENTORY_ALL) == 0);
	CHECK(inv && axl_inventory_json(inv, 0, &a, NULL) == 0);
	snprintf(cap, sizeof cap, "%s/inv.tar.gz", base);
	CHECK_INT(axl_capture_write(ctx, cap, NULL, NULL), 0);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	ctx = open_ctx(cap, 0);
	inv = NULL;
	CHECK(ctx && axl_inventory_open(&inv, ctx, AXL_INVENTORY_ALL) == 0);
	CHECK(inv && axl_inventory_json(inv, 0, &b, NULL) == 0);
	CHECK(a && b && strcmp(a, b) == 0);
	axl_free(a);
	axl_free(b);
	axl_inventory_free(inv);
	axl_context_free(ctx);
}

int main(void)
{
	snprintf(base, sizeof base, "/tmp/axl-test-capture-%d", (int)getpid());
	snprintf(root, sizeof root, "%s/tree", base);
	snprintf(tmpdir, sizeof tmpdir, "%s/tmp", base);
	mkdir(base, 0755);
	mkdir(root, 0755);
	mkdir(tmpdir, 0700);
	setenv("TMPDIR", tmpdir, 1);
	build_tree();
	test_record_and_replay();
	test_read_alloc();
	test_tar();
	test_inventory_roundtrip();
	CHECK_INT(count_entries(tmpdir), 0);
	rm_cb(base);
	return check_summary();
}
