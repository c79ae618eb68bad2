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

#include "backend.h"

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
	return i < axl__backend_total && axl__backends[i]->libs ? axl__backends[i]->libs->env : NULL;
}

bool axl__backend_on(const axl_context *ctx, size_t i)
{
	return i < 64 && (ctx->backend_mask >> i) & 1u;
}

size_t axl__backend_slot(const struct axl__backend *be)
{
	size_t b = 0;
	while (b < axl__backend_total && axl__backends[b] != be)
		b++;
	return b;
}

bool axl__backend_owns(const struct axl__backend *be, const struct axl_device *dev)
{
	return be->discover && be->discover->owns && be->discover->owns(dev);
}

const char *axl__backend_library(const axl_context *ctx, const struct axl__backend *be)
{
	size_t b = axl__backend_slot(be);
	return b < axl__backend_total ? ctx->library[b] : NULL;
}

const char *axl__backend_runtime_env(const axl_context *ctx, const struct axl__backend *be)
{
	size_t b = axl__backend_slot(be);
	return b < axl__backend_total ? ctx->runtime_env[b] : NULL;
}

const char *axl__backend_compute_library(const axl_context *ctx, const struct axl__backend *be)
{
	size_t b = axl__backend_slot(be);
	return b < axl__backend_total ? ctx->compute_library[b] : NULL;
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

/* A visibility variable longer than this is cut (the lists name a few dozen devices). */
#define AXL__VISVAR_MAX 4096

int axl__visvars_init(axl_context *ctx)
{
	size_t cap = 0;
	for (size_t b = 0; b < axl__backend_total; b++)
		for (const char *const *n = axl__backends[b]->vis ? axl__backends[b]->vis->vars : NULL; n && *n; n++)
			cap++;
	ctx->vis = calloc(cap + 1, sizeof *ctx->vis);
	if (!ctx->vis)
		return axl__error(AXL_ENOMEM, "out of memory");
	/* a name two backends read (HIP reads CUDA's list) is one variable */
	for (size_t b = 0; b < axl__backend_total; b++)
		for (const char *const *n = axl__backends[b]->vis ? axl__backends[b]->vis->vars : NULL; n && *n; n++) {
			size_t i = 0;
			while (i < ctx->vis_n && strcmp(ctx->vis[i].name, *n) != 0)
				i++;
			if (i == ctx->vis_n)
				ctx->vis[ctx->vis_n++].name = *n;
		}
	return 0;
}

static struct axl__visvar *visvar_find(const axl_context *ctx, const char *name)
{
	for (size_t i = 0; ctx && name && i < ctx->vis_n; i++)
		if (strcmp(ctx->vis[i].name, name) == 0)
			return &ctx->vis[i];
	return NULL;
}

const char *axl__visvar(const axl_context *ctx, const char *name)
{
	const struct axl__visvar *v = visvar_find(ctx, name);
	return v ? v->value : NULL;
}

int axl__visvar_set(axl_context *ctx, const char *name, const char *value)
{
	struct axl__visvar *v = visvar_find(ctx, name);
	if (!v)
		return -1;
	char *copy = value ? strndup(value, AXL__VISVAR_MAX) : NULL;
	if (value && !copy)
		return -1;
	free(v->value);
	v->value = copy;
	return 0;
}

AXL_API const char *axl_context_sysroot(const axl_context *ctx)
{
	return ctx && ctx->sysroot ? ctx->sysroot : "/";
}

AXL_API const char *axl_context_driver_root(const axl_context *ctx)
{
	return ctx && ctx->driver_root ? ctx->driver_root : "/";
}

AXL_API int axl_context_is_rerooted(const axl_context *ctx)
{
	return ctx ? ctx->fs.rerooted : 0;
}

AXL_API int axl_context_is_simulated(const axl_context *ctx)
{
	return ctx && ctx->sim ? 1 : 0;
}
