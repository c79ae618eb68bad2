/* SPDX-License-Identifier: MIT */
/* The GGUF header reader (src/lib/gguf.c) on arbitrary bytes taken as a whole file: it
 * must refuse with a message naming the file, or give exact counts that hold together
 * (dtype sums equal the totals, tensor bytes within the file). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gguf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct axl__model m;
	char err[512];
	err[0] = 0;
	if (axl__model_from_gguf_mem(data, size, "fuzz.gguf", &m, err, sizeof err)) {
		if (strncmp(err, "fuzz.gguf: ", 11) != 0)
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
