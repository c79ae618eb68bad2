/* SPDX-License-Identifier: MIT */
/*
 * What the limiter's test programs share (tests/limiter/test_limiter*.c): the failure flag and CHECK,
 * a double's own entry point read from its file's .dynsym (past the limiter's dlsym, which
 * answers the accounted names with its own), and the case table runner
 * (`PROGRAM CASE WORKDIR`).
 */
#ifndef AXL_TESTS_LIMTEST_H
#define AXL_TESTS_LIMTEST_H

#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int g_fail;
static const char *g_work; /* the case's working directory */

#define CHECK(c)                                                                       \
	do {                                                                           \
		if (!(c)) {                                                            \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
			g_fail = 1;                                                    \
		}                                                                      \
	} while (0)

/* The library h's own definition of name (its .dynsym plus its load address), NULL when
 * it has none: what the double really answers, whatever the limiter interposes. */
static inline void *lt_dynsym(void *h, const char *name)
{
	struct link_map *lm = NULL;
	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm)
		return NULL;
	int fd = open(lm->l_name, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	unsigned char *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	void *out = NULL;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum && !out; i++) {
		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		const Elf64_Sym *sym = (const Elf64_Sym *)(m + sh[i].sh_offset);
		const char *str = (const char *)(m + sh[sh[i].sh_link].sh_offset);
		for (size_t k = 0; k < sh[i].sh_size / sizeof *sym; k++)
			if (sym[k].st_shndx != SHN_UNDEF && !strcmp(str + sym[k].st_name, name))
				out = (void *)(lm->l_addr + sym[k].st_value);
	}
	munmap(m, (size_t)st.st_size);
	return out;
}

struct lt_case {
	const char *name;
	void (*fn)(void);
};

/* `PROGRAM CASE WORKDIR`: make WORKDIR (g_work), run the case, print "PREFIX.CASE: ok"
 * when it passed; the exit status is the failure flag (2: bad usage or unknown case). */
static inline int lt_main(int argc, char **argv, const char *prefix, const struct lt_case *cases, size_t n)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s CASE WORKDIR\n", argv[0]);
		return 2;
	}
	g_work = argv[2];
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", g_work);
	if (system(cmd))
		return 2;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(argv[1], cases[i].name)) {
			cases[i].fn();
			if (!g_fail)
				printf("%s.%s: ok\n", prefix, argv[1]);
			return g_fail;
		}
	fprintf(stderr, "unknown case %s\n", argv[1]);
	return 2;
}

#endif
