/* SPDX-License-Identifier: MIT */
/* AXL__SAMPLE_HOOKS(v): the declarations of a backend's live-metric hooks (sample.h),
 * axl__<v>_sample_open, axl__<v>_sample and axl__<v>_sample_close, for a vendor's header
 * to name once (its sampling file defines them, its backend row points at them). */
#ifndef AXL_BACKEND_SAMPLE_BACKENDS_H
#define AXL_BACKEND_SAMPLE_BACKENDS_H

#include <stddef.h>

struct axl_sampler;
struct axl_sample;
struct axl__backend;

#define AXL__SAMPLE_HOOKS(v)                                                            \
	void axl__##v##_sample_open(struct axl_sampler *s, const struct axl__backend *self);                 \
	void axl__##v##_sample(struct axl_sampler *s, const struct axl__backend *self, struct axl_sample *out); \
	void axl__##v##_sample_close(struct axl_sampler *s, const struct axl__backend *self);

#endif
