/* SPDX-License-Identifier: MIT */
/* The config.json reader on arbitrary bytes: a model or a clean refusal with a message,
 * never a crash; an accepted model is within the documented bounds. */
#include <stdint.h>
#include <stdlib.h>

#include "model_catalog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct axl__model m;
	char err[160];
	if (axl__model_from_config((const char *)data, size, "fuzz", &m, err, sizeof err) != 0) {
		if (!err[0])
			abort();
		return 0;
	}
	if (m.layers < 1 || m.layers > 1000 || m.hidden < 1 || m.hidden > 1000000 || m.kv_heads < 1 ||
	    m.kv_heads > m.heads || m.vocab < 1 || m.vocab > 10000000 || m.head_dim < 1)
		abort();
	int64_t active = 0;
	int64_t p = axl__model_params(&m, &active);
	if (p >= 0 && active > p)
		abort();
	(void)axl__model_kv_bytes_per_token(&m, 2.0, 1 + (int64_t)(size % 100000));
	return 0;
}
