/* SPDX-License-Identifier: MIT */
/*
 * The three routes to the real libcuda.so.1 with libaxl_limiter.so preloaded
 * (tests/limiter/real/check_real.py, which builds and runs this program):
 *
 *   1. linked: this program is linked against the real libcuda.so.1, and the table
 *      check_real.py generates (linked.c: `extern char NAME[]` and `&NAME` for every
 *      export classified as limited) holds the addresses the dynamic linker bound;
 *   2. dlopen("libcuda.so.1") + dlsym, through the limiter's dlsym;
 *   3. cuGetProcAddress and cuGetProcAddress_v2 (the limiter's, as route 1 and 2 give them)
 *      for every export and its base name, at each CUDA version of the list and each flag
 *      (CU_GET_PROC_ADDRESS_DEFAULT, _LEGACY_STREAM, _PER_THREAD_DEFAULT_STREAM): whenever
 *      the driver's own lookup answers an address, the limiter's answer must be the
 *      limiter's own function for a limited export at that address, and the driver's
 *      address for every other one.
 *
 * "The limiter's own function" is the limiter's definition of the name, read from its
 * file's .dynsym (lt_dynsym, ../limtest.h), past its dlsym; the driver's own answers come
 * the same way from libcuda.so.1's file. The program makes no CUDA call but lookups: no
 * device is needed (cuInit is never called; the driver's lookups answer without it).
 *
 *   routes LIMITER_PATH < names
 *
 * standard input: one line per export of the real library, "L name" for a limited one
 * and "- name" for every other (check_real.py's classification), then lines "V version"
 * (the CUDA versions to ask for). Prints one line per failure and a summary line
 * "routes: ..."; exit 1 on a failure, 2 on bad input.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limtest.h"

/* linked.c, generated: the limited exports as this program was linked to them */
struct linked {
	const char *name;
	void *addr;
};
extern const struct linked routes_linked[];
extern const size_t routes_nlinked;

typedef int (*gpa_fn)(const char *, void **, int, unsigned long long);
typedef int (*gpa2_fn)(const char *, void **, int, unsigned long long, int *);

struct exp {
	char name[128];
	int limited;
	void *drv; /* libcuda.so.1's own definition */
	void *lim; /* the limiter's own definition (NULL: it defines none) */
};

static struct exp *g_exp;
static size_t g_nexp;
static int g_versions[256];
static size_t g_nversions;
static unsigned long g_failures;

#define FAIL(...)                                        \
	do {                                             \
		if (g_failures++ < 200)                  \
			fprintf(stderr, "FAIL " __VA_ARGS__); \
	} while (0)

static struct exp *find(const char *name)
{
	for (size_t i = 0; i < g_nexp; i++)
		if (!strcmp(g_exp[i].name, name))
			return &g_exp[i];
	return NULL;
}

static int read_input(void)
{
	char line[256];
	size_t cap = 0;
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		if (line[0] == 'V' && line[1] == ' ') {
			if (g_nversions < sizeof g_versions / sizeof g_versions[0])
				g_versions[g_nversions++] = atoi(line + 2);
			continue;
		}
		if ((line[0] != 'L' && line[0] != '-') || line[1] != ' ' || strlen(line + 2) >= sizeof g_exp->name)
			return -1;
		if (g_nexp == cap) {
			cap = cap ? cap * 2 : 512;
			struct exp *n = realloc(g_exp, cap * sizeof *n);
			if (!n)
				return -1;
			g_exp = n;
		}
		struct exp *e = &g_exp[g_nexp++];
		memset(e, 0, sizeof *e);
		snprintf(e->name, sizeof e->name, "%s", line + 2);
		e->limited = line[0] == 'L';
	}
	return g_nexp && g_nversions ? 0 : -1;
}

/* the limited exports whose driver function is at p: the limiter's answer must be the
 * limiter's own of one of them; 0 when p is no limited export's (then p itself) */
static int expected_for(void *p, void **want, const char **which)
{
	int n = 0;
	for (size_t i = 0; i < g_nexp; i++)
		if (g_exp[i].drv == p && g_exp[i].limited) {
			if (!n) {
				*want = g_exp[i].lim;
				*which = g_exp[i].name;
			}
			n++;
		}
	return n;
}

static const char *export_at(void *p)
{
	for (size_t i = 0; i < g_nexp; i++)
		if (g_exp[i].drv == p)
			return g_exp[i].name;
	return NULL;
}

/* the name without its per-thread and version suffixes: what the runtime asks for */
static void base_of(const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "%s", name);
	for (int again = 1; again;) {
		again = 0;
		size_t n = strlen(out);
		static const char *const suf[] = {"_ptsz", "_ptds", "_v2", "_v3", "_v4"};
		for (size_t k = 0; k < sizeof suf / sizeof suf[0]; k++) {
			size_t m = strlen(suf[k]);
			if (n > m && !strcmp(out + n - m, suf[k])) {
				out[n - m] = '\0';
				again = 1;
				break;
			}
		}
	}
}

static unsigned long g_lookups, g_answered, g_swapped, g_unmapped;

/* one lookup of name at (version, flags) through the driver's own and the limiter's */
static void lookup(const char *name, int version, unsigned long long flags, gpa_fn dgpa, gpa2_fn dgpa2, gpa_fn lgpa,
		   gpa2_fn lgpa2, const char *route)
{
	for (int v2 = 0; v2 < 2; v2++) {
		if (v2 ? !dgpa2 || !lgpa2 : !dgpa || !lgpa)
			continue;
		void *d = NULL, *l = NULL;
		int ds = -1, ls = -1;
		int drc = v2 ? dgpa2(name, &d, version, flags, &ds) : dgpa(name, &d, version, flags);
		int lrc = v2 ? lgpa2(name, &l, version, flags, &ls) : lgpa(name, &l, version, flags);
		g_lookups++;
		const char *fn = v2 ? "cuGetProcAddress_v2" : "cuGetProcAddress";
		if (drc != lrc || (v2 && ds != ls)) {
			FAIL("%s %s(\"%s\", %d, %llu): the limiter returns %d (status %d), the driver %d (status %d)\n",
			     route, fn, name, version, flags, lrc, ls, drc, ds);
			continue;
		}
		if (!d) {
			if (l)
				FAIL("%s %s(\"%s\", %d, %llu): the limiter answers %p where the driver answers NULL\n",
				     route, fn, name, version, flags, l);
			continue;
		}
		g_answered++;
		void *want = d;
		const char *which = NULL;
		if (expected_for(d, &want, &which)) {
			g_swapped++;
			if (!want)
				FAIL("%s %s(\"%s\", %d, %llu): the driver answers %s, which the limiter does not "
				     "define\n",
				     route, fn, name, version, flags, which);
			else if (l != want)
				FAIL("%s %s(\"%s\", %d, %llu): %p, not the limiter's %s (%p); the driver's is %p\n",
				     route, fn, name, version, flags, l, which, want, d);
		} else if (l != d) {
			FAIL("%s %s(\"%s\", %d, %llu): the limiter answers %p for the driver's %p (%s), which is not "
			     "limited\n",
			     route, fn, name, version, flags, l, d, export_at(d) ? export_at(d) : "not an export");
		}
		if (!export_at(d)) {
			/* an address that is no export: the limiter cannot tell which function it is.
			 * Fine for a name nobody limits; a limited name's answer must be an export's */
			char base[128], ebase[128];
			base_of(name, base, sizeof base);
			int lim = 0;
			for (size_t i = 0; i < g_nexp && !lim; i++) {
				base_of(g_exp[i].name, ebase, sizeof ebase);
				lim = g_exp[i].limited && !strcmp(ebase, base);
			}
			g_unmapped++;
			if (lim)
				FAIL("%s %s(\"%s\", %d, %llu): the driver answers %p, no export's address: the limiter "
				     "cannot "
				     "account it\n",
				     route, fn, name, version, flags, d);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc != 2 || read_input() != 0) {
		fprintf(stderr, "usage: routes LIMITER_PATH < classification (L name / - name / V version lines)\n");
		return 2;
	}
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW); /* the linked one: already loaded */
	void *lim = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
	if (!cuda || !lim) {
		fprintf(stderr, "%s is not loaded (LD_PRELOAD) or libcuda.so.1 is not: %s\n", argv[1], dlerror());
		return 2;
	}
	size_t nlimited = 0, ndefined = 0;
	for (size_t i = 0; i < g_nexp; i++) {
		struct exp *e = &g_exp[i];
		e->drv = lt_dynsym(cuda, e->name);
		e->lim = lt_dynsym(lim, e->name);
		nlimited += e->limited;
		if (!e->drv)
			FAIL("%s: listed as an export, but libcuda.so.1's .dynsym does not define it\n", e->name);
		if (e->limited && !e->lim)
			FAIL("%s: limited, but the limiter does not define it: every route reaches the driver\n",
			     e->name);
		if (!e->limited && e->lim)
			FAIL("%s: the limiter defines it, but the classification says it is not limited\n", e->name);
		ndefined += e->lim != NULL;
	}

	/* route 1: linked */
	unsigned long linked = 0;
	for (size_t i = 0; i < routes_nlinked; i++) {
		struct exp *e = find(routes_linked[i].name);
		if (!e || !e->limited) {
			FAIL("linked: %s is in the linked table but not a limited export\n", routes_linked[i].name);
			continue;
		}
		linked++;
		if (e->lim && routes_linked[i].addr != e->lim)
			FAIL("linked: %s is bound to %p, not the limiter's %p (the driver's is %p)\n", e->name,
			     routes_linked[i].addr, e->lim, e->drv);
	}
	if (linked != nlimited)
		FAIL("linked: %lu limited exports in the linked table, %zu classified\n", linked, nlimited);

	/* route 2: dlsym on the dlopen'd library (the limiter's dlsym), and on RTLD_DEFAULT */
	unsigned long dlsyms = 0;
	for (size_t i = 0; i < g_nexp; i++) {
		struct exp *e = &g_exp[i];
		void *want = e->limited ? e->lim : e->drv;
		void *got = dlsym(cuda, e->name);
		void *dflt = dlsym(RTLD_DEFAULT, e->name);
		dlsyms += 2;
		if (want && got != want)
			FAIL("dlsym(libcuda.so.1, \"%s\") = %p, not the %s %p\n", e->name, got,
			     e->limited ? "limiter's" : "driver's", want);
		if (e->limited && want && dflt != want)
			FAIL("dlsym(RTLD_DEFAULT, \"%s\") = %p, not the limiter's %p\n", e->name, dflt, want);
	}

	/* route 3: cuGetProcAddress(_v2), as linked and as dlsym'd, against the driver's own */
	gpa_fn dgpa = (gpa_fn)lt_dynsym(cuda, "cuGetProcAddress");
	gpa2_fn dgpa2 = (gpa2_fn)lt_dynsym(cuda, "cuGetProcAddress_v2");
	gpa_fn lgpa = (gpa_fn)dlsym(cuda, "cuGetProcAddress");
	gpa2_fn lgpa2 = (gpa2_fn)dlsym(cuda, "cuGetProcAddress_v2");
	gpa_fn linked_gpa = NULL;
	gpa2_fn linked_gpa2 = NULL;
	for (size_t i = 0; i < routes_nlinked; i++) {
		if (!strcmp(routes_linked[i].name, "cuGetProcAddress"))
			linked_gpa = (gpa_fn)routes_linked[i].addr;
		if (!strcmp(routes_linked[i].name, "cuGetProcAddress_v2"))
			linked_gpa2 = (gpa2_fn)routes_linked[i].addr;
	}
	if (!dgpa || !lgpa)
		FAIL("cuGetProcAddress: the driver's %p, the limiter's %p\n", (void *)dgpa, (void *)lgpa);
	static const unsigned long long flags[] = {0x0, 0x1, 0x2};
	char base[128];
	for (size_t i = 0; i < g_nexp; i++) {
		base_of(g_exp[i].name, base, sizeof base);
		for (size_t v = 0; v < g_nversions; v++)
			for (size_t f = 0; f < 3; f++) {
				lookup(g_exp[i].name, g_versions[v], flags[f], dgpa, dgpa2, lgpa, lgpa2, "dlsym'd");
				if (strcmp(base, g_exp[i].name))
					lookup(base, g_versions[v], flags[f], dgpa, dgpa2, lgpa, lgpa2, "dlsym'd");
				if (g_exp[i].limited) {
					/* the linked entry points too (the same functions: the answers agree) */
					lookup(base, g_versions[v], flags[f], dgpa, dgpa2, linked_gpa, linked_gpa2,
					       "linked");
				}
			}
	}
	/* the lookup of cuGetProcAddress itself gives the limiter's */
	for (size_t v = 0; v < g_nversions; v++)
		for (size_t f = 0; f < 3; f++)
			lookup("cuGetProcAddress", g_versions[v], flags[f], dgpa, dgpa2, lgpa, lgpa2, "dlsym'd");

	printf("routes: %zu exports read, %zu limited (%zu defined by the limiter); linked %lu, dlsym %lu, "
	       "cuGetProcAddress(_v2) %lu lookups at %zu versions x 3 flags (%lu answered, %lu of them limited "
	       "functions swapped, %lu answers not an export's address); %lu failures\n",
	       g_nexp, nlimited, ndefined, linked, dlsyms, g_lookups, g_nversions, g_answered, g_swapped, g_unmapped,
	       g_failures);
	return g_failures ? 1 : 0;
}
