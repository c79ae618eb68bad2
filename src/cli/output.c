/* SPDX-License-Identifier: MIT */
/* Where the writers' output goes (cli.h): standard output for "-o -", else a file
 * replaced whole (util/file.h), so that a reader (NFD, a container runtime reading CDI
 * specs) never sees half of one. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "../util/file.h"

int cli_is_stdout(const char *output)
{
	return output && strcmp(output, "-") == 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, buf + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		off += (size_t)w;
	}
	return 0;
}

/* AXL_TEST_WRITE_PAUSE_MS (tests/cli/output): stop that long with half the content in
 * the temporary file, so that a test can kill the process in the middle of a write. */
static void test_pause(void)
{
	const char *p = getenv("AXL_TEST_WRITE_PAUSE_MS");
	long ms = p ? strtol(p, NULL, 10) : 0;
	if (ms > 0) {
		struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
}

/* The folder that holds `path` ("." when it names none), malloc'd; NULL out of memory. */
static char *parent_of(const char *path, size_t len)
{
	while (len > 1 && path[len - 1] == '/')
		len--;
	while (len > 0 && path[len - 1] != '/')
		len--;
	while (len > 1 && path[len - 1] == '/')
		len--;
	return len ? strndup(path, len) : strdup(".");
}

/* Why a file or folder could not be made in `parent`: the words, lower case. */
static void why(char *out, size_t cap, int err, const char *parent)
{
	if (err == EACCES || err == EPERM)
		snprintf(out, cap, "permission denied in %s", parent);
	else if (err == EROFS)
		snprintf(out, cap, "%s is on a read-only file system", parent);
	else if (err == ENOSPC)
		snprintf(out, cap, "no space left in %s", parent);
	else
		snprintf(out, cap, "%s", strerror(err));
}

int cli_make_dir(const char *dir)
{
	size_t at;
	int rc = axl__mkdirs(dir, 0755, &at);
	if (!rc)
		return 0;
	char *part = strndup(dir, at);
	char *parent = part ? parent_of(part, strlen(part)) : NULL;
	char words[4200];
	if (!part || !parent)
		snprintf(words, sizeof words, "out of memory");
	else if (rc == -ENOTDIR && strcmp(part, dir) == 0)
		snprintf(words, sizeof words, "it exists and is not a directory");
	else if (rc == -ENOTDIR)
		snprintf(words, sizeof words, "%s is not a directory", part);
	else
		why(words, sizeof words, -rc, parent);
	fprintf(stderr, "axl: cannot create %s: %s\n", dir, words);
	free(part);
	free(parent);
	return 1;
}

int cli_write_file(const char *path, const void *buf, size_t len, unsigned mode)
{
	/* the folders first, as generators make theirs (mkdir -p) */
	char *dir = parent_of(path, strlen(path));
	if (!dir) {
		fprintf(stderr, "axl: out of memory\n");
		return 1;
	}
	size_t plen = strlen(path);
	if (plen && path[plen - 1] == '/') {
		fprintf(stderr, "axl: cannot write %s: a file name is needed, not a directory\n", path);
		free(dir);
		return 1;
	}
	if (cli_make_dir(dir)) {
		free(dir);
		return 1;
	}
	struct axl__replace r;
	int rc = axl__file_replace_begin(&r, path, mode);
	if (rc) {
		char words[4200];
		why(words, sizeof words, -rc, dir);
		fprintf(stderr, "axl: cannot write %s: %s\n", path, words);
		free(dir);
		return 1;
	}
	size_t half = len / 2;
	rc = write_all(r.fd, buf, half);
	if (!rc) {
		test_pause();
		rc = write_all(r.fd, (const char *)buf + half, len - half);
	}
	if (rc) {
		axl__file_replace_abort(&r);
	} else {
		rc = axl__file_replace_commit(&r);
	}
	if (rc == -EISDIR) {
		fprintf(stderr, "axl: cannot write %s: it is a directory (name a file in it)\n", path);
	} else if (rc) {
		char words[4200];
		why(words, sizeof words, -rc, dir);
		fprintf(stderr, "axl: cannot write %s: %s\n", path, words);
	}
	free(dir);
	return rc ? 1 : 0;
}

int cli_write_stdout(const void *buf, size_t len)
{
	if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0) {
		fprintf(stderr, "axl: standard output: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

size_t cli_accelerator_count(const axl_inventory *inv)
{
	size_t n = 0;
	for (size_t i = 0; i < axl_inventory_device_count(inv); i++)
		n += axl_device_family(axl_inventory_device(inv, i)) != AXL_FAMILY_CPU;
	return n;
}

void cli_no_accelerators_hint(int all_shown)
{
	fprintf(stderr, "axl: no accelerators found; %saxl list --sim FILE shows a simulated node "
			"(axl help list, docs/sim.md)\n",
		all_shown ? "" : "axl list --all shows every PCI function considered and why; ");
}
