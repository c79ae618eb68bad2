/* SPDX-License-Identifier: MIT */
/* The limiter of shares, and the files beside axl (limiter.h). */
#define _GNU_SOURCE
#include "limiter.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../util/file.h"

#ifndef AXL_PKGLIBDIR
#define AXL_PKGLIBDIR "/usr/local/lib/axl"
#endif
#ifndef AXL_REL_PKGLIBDIR
#define AXL_REL_PKGLIBDIR "lib/axl"
#endif

/* dir of this executable, "" when unknown */
static void exe_dir(char *out, size_t cap)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n <= 0) {
		out[0] = 0;
		return;
	}
	buf[n] = 0;
	snprintf(out, cap, "%s", dirname(buf));
}

const char *kp_find_file(const char *var, const char *build_sub, const char *name, char *out, size_t cap)
{
	const char *v = var ? getenv(var) : NULL;
	if (v && *v) {
		snprintf(out, cap, "%s", v);
		return out;
	}
	char dir[PATH_MAX];
	exe_dir(dir, sizeof dir);
	if (*dir) {
		snprintf(out, cap, "%s/%s/%s", dir, build_sub, name);
		if (access(out, R_OK) == 0)
			return out;
		snprintf(out, cap, "%s/../%s/%s", dir, AXL_REL_PKGLIBDIR, name);
		if (access(out, R_OK) == 0)
			return out;
	}
	snprintf(out, cap, "%s/%s", AXL_PKGLIBDIR, name);
	return access(out, R_OK) == 0 ? out : NULL;
}

int kp_limiter_find(const char *who, int shares, const char *given, char *lim, size_t lcap, char *pre, size_t pcap,
		    const char **preload)
{
	*preload = NULL;
	if (given) {
		snprintf(lim, lcap, "%s", given);
	} else if (!kp_find_file(NULL, "limiter", KP_LIMITER_NAME, lim, lcap)) {
		fprintf(stderr,
			"axl: %s: --shares %d needs the limiter (%s) to hold each share: not found beside axl nor in "
			"%s; name it with --limiter PATH\n",
			who, shares, KP_LIMITER_NAME, AXL_PKGLIBDIR);
		return 1;
	}
	if (lim[0] != '/' || access(lim, R_OK) != 0) {
		fprintf(stderr, "axl: %s: --limiter %s: %s\n", who, lim,
			lim[0] != '/' ? "an absolute path is needed (the kubelet mounts it)" : strerror(errno));
		return 1;
	}
	/* the preload list beside it (installed with it): mounted at /etc/ld.so.preload, the
	 * limiter joins the workload's own LD_PRELOAD instead of replacing it */
	const char *slash = strrchr(lim, '/');
	snprintf(pre, pcap, "%.*s/%s", (int)(slash - lim), lim, KP_PRELOAD_FILE);
	char *text = NULL;
	size_t len = 0;
	if (axl__file_read(pre, 4096, 0, &text, &len) == 0 && strcmp(text, KP_LIMITER_PATH "\n") == 0)
		*preload = pre;
	else
		fprintf(stderr,
			"axl: %s: %s %s: shares preload the limiter with LD_PRELOAD, which replaces a workload's own\n",
			who, pre, text ? "does not hold " KP_LIMITER_PATH : "is missing");
	free(text);
	return 0;
}
