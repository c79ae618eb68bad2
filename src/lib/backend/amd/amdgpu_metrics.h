/* SPDX-License-Identifier: MIT */
/* amdgpu's binary gpu_metrics attribute (amdgpu_metrics.c): a pure parser, bytes in,
 * metrics out, so that it can be fuzzed and tested without a tree. */
#ifndef AXL_BACKEND_AMDGPU_METRICS_H
#define AXL_BACKEND_AMDGPU_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axl/metrics.h"

struct axl__gpu_metrics {
	unsigned format, content; /* the table's revision, e.g. 1 and 3 */
	uint32_t have;            /* bit (1u << m) set when v[m] is known */
	double v[AXL_METRIC__COUNT];
};

/* Parse a gpu_metrics blob of len bytes. false (nothing known) when it is not a table
 * this parser knows (format 1, content 0..5) or its header disagrees with its length.
 * Fields beyond the header's structure_size or len, or that read "not supported"
 * (all bits set), stay unknown. Sets: TEMPERATURE (edge), TEMPERATURE_HOTSPOT,
 * TEMPERATURE_MEMORY, POWER, UTILIZATION, MEMORY_UTILIZATION, SM_CLOCK, MEMORY_CLOCK,
 * ENERGY (1.4+), THROTTLE_REASONS (1.3: ASIC-independent bits). */
bool axl__gpu_metrics_parse(const void *buf, size_t len, struct axl__gpu_metrics *out);

static inline bool axl__gpu_metrics_has(const struct axl__gpu_metrics *g, axl_metric m)
{
	return (unsigned)m < 32 && (g->have >> m) & 1u;
}

#endif
