/* SPDX-License-Identifier: MIT */
/* libc's dlsym past the limiter's, and which library a handle is (core.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

static dlsym_fn g_real_dlsym;

AXL__LIM_NOSAN static dlsym_fn real_dlsym(void)
{
	dlsym_fn f = __atomic_load_n(&g_real_dlsym, __ATOMIC_ACQUIRE);
	if (!f) {
		f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
		if (!f)
			f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
		__atomic_store_n(&g_real_dlsym, f, __ATOMIC_RELEASE);
	}
	return f;
}

AXL__LIM_NOSAN dlsym_fn axl__lim_real_dlsym(void)
{
	return real_dlsym();
}

int axl__lim_is_lib_handle(void *h, void *own, const char *prefix, const char *env)
{
	if (h == RTLD_DEFAULT || h == RTLD_NEXT || (own && h == own))
		return 1;
	struct link_map *lm = NULL;
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_name)
		return 0;
	const char *base = strrchr(lm->l_name, '/');
	base = base ? base + 1 : lm->l_name;
	if (!strncmp(base, prefix, strlen(prefix)))
		return 1;
	const char *lib = getenv(env);
	return lib && *lib && !strcmp(lib, lm->l_name);
}
