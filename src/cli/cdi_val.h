/* SPDX-License-Identifier: MIT */
/* The small value tree axl cdi generate builds its specs in, and its JSON (util's writer)
 * and YAML forms (cdi_val.c). Allocation failures end the command (exit 1). */
#ifndef AXL_CLI_CDI_VAL_H
#define AXL_CLI_CDI_VAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum vtype { V_OBJ, V_ARR, V_STR, V_INT };

struct val {
	enum vtype t;
	char *key; /* member name inside an object */
	char *s;
	long long i;
	struct val **kids;
	size_t n, cap;
};

void *xalloc(size_t n);
char *xstrdup(const char *s);
struct val *vnew(enum vtype t);
struct val *vstr(const char *s);
struct val *vint(long long i);
/* child appended to parent (as member key of an object); returns child */
struct val *vadd(struct val *parent, const char *key, struct val *child);
/* an object's member, NULL when absent */
struct val *vget(const struct val *obj, const char *key);
/* an object's member, made (of type t) when absent */
struct val *vmember(struct val *obj, const char *key, enum vtype t);
void vfree(struct val *v);
/* a spec (or an array of them) as indented JSON or as a YAML document */
void write_spec(FILE *f, const struct val *spec, bool yaml);

#endif
