/* SPDX-License-Identifier: MIT */
/* The safetensors header reader (src/lib/safetensors.c) on arbitrary bytes taken as a
 * whole file: it must refuse with a message naming the file, or give exact counts that
 * hold together (dtype sums equal the totals, bytes within the file). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct axl__model m;
	char err[512];
	err[0] = 0;
	if (axl__model_from_safetensors_mem(data, size, "fuzz.safetensors", &m, err, sizeof err)) {
		if (strncmp(err, "fuzz.safetensors: ", 18) != 0)
			abort();
		return 0;
	}
	int64_t p = 0, b = 0;
	if (m.ndtypes > AXL__MODEL_DTYPES_MAX)
		abort();
	for (size_t i = 0; i < m.ndtypes; i++) {
		if (m.dtypes[i].params < 0 || m.dtypes[i].bytes < 0)
			abort();
		p += m.dtypes[i].params;
		b += m.dtypes[i].bytes;
	}
	if (p != m.params || b != m.weight_bytes || (uint64_t)b > size || !m.params_exact)
		abort();
	return 0;
}
