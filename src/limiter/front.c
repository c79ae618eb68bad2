/* SPDX-License-Identifier: MIT */
/*
 * dlsym's front door (core.h): libaxl_limiter.so exports dlsym, so that a program or a
 * runtime that looks up an accounted entry point by name gets the limiter's. A name no
 * side may answer leaves at once for the real dlsym; the others are offered to each side
 * in turn (sides.c), and the real dlsym answers what no side takes. Both last calls are
 * tail calls, so that RTLD_NEXT stays relative to the caller (glibc finds the caller from
 * the return address; built with -foptimize-sibling-calls).
 */
#define _GNU_SOURCE
#include <dlfcn.h> /* dlsym's prototype */
#include <stddef.h>

#include "core.h"

/* a name some side may answer: one of a side's prefixes (not instrumented: it runs for
 * every dlsym, also the sanitizer runtime's own) */
AXL__LIM_NOSAN static int maybe_ours(const char *name)
{
	if (!name)
		return 0;
	for (const struct axl__lim_side *const *s = axl__lim_sides; *s; s++)
		for (int k = 0; k < 3 && (*s)->prefixes[k]; k++) {
			const char *p = (*s)->prefixes[k];
			int i = 0;
			while (p[i] && name[i] == p[i])
				i++;
			if (!p[i])
				return 1;
		}
	return 0;
}

static void *side_dlsym(dlsym_fn ds, void *handle, const char *name)
{
	for (const struct axl__lim_side *const *s = axl__lim_sides; *s; s++) {
		void *hook = (*s)->dlsym(ds, handle, name);
		if (hook)
			return hook;
	}
	return ds(handle, name); /* a tail call */
}

AXL__LIM_NOSAN AXL__LIM_API void *dlsym(void *handle, const char *name)
{
	dlsym_fn ds = axl__lim_real_dlsym();
	if (!maybe_ours(name))
		return ds(handle, name);
	return side_dlsym(ds, handle, name); /* a tail call too */
}
