/* SPDX-License-Identifier: MIT */
/* The limiter's log (core.h): standard error, at the level AXL_LIMITER_LOG names. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "core.h"

static int g_level = AXL__LOG_WARN;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void read_level(void)
{
	const char *lv = getenv("AXL_LIMITER_LOG");
	if (!lv || !*lv)
		return;
	if (!strcasecmp(lv, "error"))
		g_level = AXL__LOG_ERROR;
	else if (!strcasecmp(lv, "warn"))
		g_level = AXL__LOG_WARN;
	else if (!strcasecmp(lv, "info"))
		g_level = AXL__LOG_INFO;
	else if (!strcasecmp(lv, "debug"))
		g_level = AXL__LOG_DEBUG;
	else
		fprintf(stderr, "axl-limiter: warn: AXL_LIMITER_LOG=%s: not error|warn|info|debug; warn used\n", lv);
}

void axl__lim_log(int level, const char *fmt, ...)
{
	pthread_once(&g_once, read_level);
	if (level > g_level)
		return;
	static const char *const names[] = {"error", "warn", "info", "debug"};
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "axl-limiter: %s: %s\n", names[level], line);
}
