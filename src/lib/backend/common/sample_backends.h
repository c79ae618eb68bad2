/* SPDX-License-Identifier: MIT */
/* Live-metric hooks of the sysfs backends other than amdgpu (sample.h):
 * intel_sample.c, habana_sample.c, tenstorrent_sample.c, neuron_sample.c. */
#ifndef AXL_BACKEND_SAMPLE_BACKENDS_H
#define AXL_BACKEND_SAMPLE_BACKENDS_H

#include <stddef.h>

struct axl_sampler;
struct axl_sample;

#define AXL__SAMPLE_HOOKS(v)                                                            \
	void axl__##v##_sample_open(struct axl_sampler *s, size_t self);                 \
	void axl__##v##_sample(struct axl_sampler *s, size_t self, struct axl_sample *out); \
	void axl__##v##_sample_close(struct axl_sampler *s, size_t self);

AXL__SAMPLE_HOOKS(intel)
AXL__SAMPLE_HOOKS(habana)
AXL__SAMPLE_HOOKS(tenstorrent)
AXL__SAMPLE_HOOKS(neuron)

#undef AXL__SAMPLE_HOOKS

#endif
