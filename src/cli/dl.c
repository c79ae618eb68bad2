/* SPDX-License-Identifier: MIT */
/*
 * Libraries the command loads only for the command that needs them (cli.h, cli_dlopen):
 * libmicrohttpd for `axl serve`, curses for `axl top`'s screen. Linking them would make
 * every `axl list` load them and what they pull in (a TLS stack for libmicrohttpd: 15
 * more shared libraries), about 2 ms at every start (ARCHITECTURE.md, "Performance
 * budget"). Each command keeps its table of functions in its own file, typed from the
 * library's header (a build dependency), and resolves it here by SONAME: the SONAME is
 * the library's ABI promise, as a link against it would have recorded in DT_NEEDED.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_dlopen(const char *command, const char *env, const char *soname, const char *package,
	       const struct cli_sym *syms, size_t n, void *table)
{
	const char *given = env ? getenv(env) : NULL;
	const char *name = given && *given ? given : soname;
	/* RTLD_LOCAL: its symbols satisfy nothing else in the process */
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		fprintf(stderr, "axl: %s needs %s (Debian package %s), which cannot be loaded: %s\n", command, soname,
			package, e ? e : "dlopen failed");
		if (name != soname)
			fprintf(stderr, "axl: (%s=%s)\n", env, name);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		void *sym = dlsym(h, syms[i].name);
		if (!sym) {
			fprintf(stderr, "axl: %s needs %s (Debian package %s): %s has no %s\n", command, soname,
				package, name, syms[i].name);
			dlclose(h);
			return 1;
		}
		/* POSIX: a symbol's address converts to a function pointer */
		memcpy((char *)table + syms[i].off, &sym, sizeof sym);
	}
	return 0;
}
