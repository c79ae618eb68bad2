/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

void axl__log(const axl_context *ctx, axl_log_level level, const char *fmt, ...)
{
	if (!ctx || !ctx->log || level > ctx->log_level)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	ctx->log(level, msg, ctx->log_userdata);
}

double axl__now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

AXL_API size_t axl_backend_count(void)
{
	return axl__backend_total + 1; /* + "devicedb" */
}

AXL_API const char *axl_backend_name(size_t i)
{
	if (i < axl__backend_total)
		return axl__backends[i]->name;
	if (i == axl__backend_total)
		return "devicedb";
	return NULL;
}

AXL_API const char *axl_backend_library_variable(size_t i)
{
	return i < axl__backend_total ? axl__backends[i]->library_env : NULL;
}

bool axl__backend_on(const axl_context *ctx, size_t i)
{
	return i < 64 && (ctx->backend_mask >> i) & 1u;
}

AXL_API int axl_context_backend_enabled(const axl_context *ctx, const char *name)
{
	if (!ctx || !name)
		return 0;
	if (strcmp(name, "devicedb") == 0)
		return ctx->devicedb_enabled;
	for (size_t i = 0; i < axl__backend_total; i++)
		if (strcmp(axl__backends[i]->name, name) == 0)
			return axl__backend_on(ctx, i);
	return 0;
}

const char *const axl__visvar_names[AXL__V__COUNT] = {
#define AXL__VISVAR_NAME(name) #name,
	AXL__VISVAR_LIST(AXL__VISVAR_NAME)
#undef AXL__VISVAR_NAME
};

AXL_API const char *axl_context_sysroot(const axl_context *ctx)
{
	return ctx && ctx->sysroot ? ctx->sysroot : "/";
}

AXL_API int axl_context_is_rerooted(const axl_context *ctx)
{
	return ctx ? ctx->fs.rerooted : 0;
}

AXL_API int axl_context_is_simulated(const axl_context *ctx)
{
	return ctx && ctx->sim ? 1 : 0;
}
