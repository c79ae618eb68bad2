/* SPDX-License-Identifier: MIT */
/* The amdgpu gpu_metrics parser (src/lib/backend/amdgpu_metrics.h) on arbitrary bytes:
 * no crash, no read past len, only bounded, finite values. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "amdgpu_metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		return 0;
	/* an exact-size copy so that ASan sees any read past the end */
	uint8_t *b = malloc(size ? size : 1);
	if (!b)
		return 0;
	memcpy(b, data, size);
	struct axl__gpu_metrics g;
	bool ok = axl__gpu_metrics_parse(b, size, &g);
	if (!ok && g.have)
		abort();
	for (unsigned m = 0; m < AXL_METRIC__COUNT; m++) {
		if (!axl__gpu_metrics_has(&g, (axl_metric)m))
			continue;
		if (!isfinite(g.v[m]) || g.v[m] < 0)
			abort();
		if ((m == AXL_METRIC_UTILIZATION || m == AXL_METRIC_MEMORY_UTILIZATION) && g.v[m] > 100)
			abort();
	}
	free(b);
	return 0;
}
