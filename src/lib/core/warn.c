/* SPDX-License-Identifier: MIT */
/* The inventory's warnings: what could not be read or made sense of, each once, with
 * where it came from. Every stage and backend reports through axl__warn(). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

void axl__warn(struct axl_inventory *inv, const char *source, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* the same problem reported twice (two devices sharing a file) counts once */
	for (size_t i = 0; i < inv->warnings.n; i++) {
		const struct axl_warning *w = &inv->warnings.v[i];
		if (strcmp(w->message, msg) == 0 && strcmp(w->source, source) == 0 &&
		    ((!w->path && !path) || (w->path && path && strcmp(w->path, path) == 0)))
			return;
	}
	if (inv->warnings.n >= 4096)
		return; /* a pathological tree: keep the document bounded */
	struct axl_warning *w = AXL__VEC_PUSH(inv->warnings);
	if (!w)
		return;
	w->source = axl__arena_strdup(&inv->arena, source);
	w->path = axl__text(inv, path); /* no path: left out */
	w->message = axl__arena_strdup(&inv->arena, msg);
	axl__log(inv->ctx, AXL_LOG_WARNING, "%s: %s%s%s", source, path ? path : "", path ? ": " : "",
		 msg);
}
