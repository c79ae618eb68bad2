/* SPDX-License-Identifier: MIT */
/* What the device plugin's answers share (answer.c): a pool that holds everything one
 * answer hands out, freed at once by kp_release (plugin.h); a device of a resource by
 * its ID; a refusal with its gRPC status code and message. */
#ifndef AXL_K8S_ANSWER_H
#define AXL_K8S_ANSWER_H

#include <stddef.h>

#include "plugin.h"

struct pool;
/* n bytes (at least 1) owned by *p; NULL when out of memory */
void *kp_pmalloc(struct pool **p, size_t n);
char *kp_pstrdup(struct pool **p, const char *s);
/* the device of r whose advertised ID is id, NULL when none (or id is NULL) */
const struct kp_dev *kp_dev_of(const struct kp_resource *r, const char *id);
/* *code = c and the message in err; returns -1 */
int kp_refuse(int *code, int c, char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
