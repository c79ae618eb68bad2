/* SPDX-License-Identifier: MIT */
/* Every attribute parser on arbitrary bytes. The first byte picks the parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/util/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 65536)
		return 0;
	char *s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	uint64_t u;
	int64_t i;
	int g;
	unsigned n, a, b, c, d;
	char out[64];
	switch (data[0] % 10) {
	case 0: axl__parse_u64(s, data[0] & 0x10 ? 16 : 0, &u); break;
	case 1: axl__parse_i64(s, &i); break;
	case 2: axl__parse_hex(s, 0xffffff, &u); break;
	case 3: axl__parse_link_speed(s, &g); break;
	case 4: axl__parse_cpulist(s, 1u << 20, &n); break;
	case 5: axl__parse_bdf(s, &a, &b, &c, &d); break;
	case 6: axl__kv_find(s, "Model", ':', out, sizeof out); break;
	case 7: axl__kv_find(s, "simd_count", ' ', out, sizeof out); break;
	case 8: axl__parse_kb_size(s, &u); break;
	case 9: {
		char *t = axl__strip(s);
		axl__is_text(t, strlen(t));
		break;
	}
	}
	free(s);
	return 0;
}
