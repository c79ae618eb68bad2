/* SPDX-License-Identifier: MIT */
/* The JSON writer on arbitrary strings: the output must always be valid UTF-8 with no
 * raw control characters, whatever the input bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/util/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int valid_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		if (!len || i + len > n)
			return 0;
		if (c < 0x20)
			return 0;
		for (size_t k = 1; k < len; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
		i += len;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, size & 1);
	axl__json_obj(&w);
	axl__json_key(&w, "k");
	axl__json_strn(&w, (const char *)data, size);
	axl__json_key(&w, (size > 0 && data[0] == 'x') ? "\xff" : "n");
	double v = 0;
	if (size >= sizeof v)
		memcpy(&v, data, sizeof v);
	axl__json_num(&w, v);
	axl__json_obj_end(&w);
	size_t len = 0;
	char *out = axl__sb_steal(&sb, &len);
	if (out) {
		/* pretty output has newlines between tokens: those are allowed */
		for (size_t i = 0; i < len; i++)
			if (out[i] == '\n')
				out[i] = ' ';
		if (!valid_utf8((const unsigned char *)out, len))
			abort();
		free(out);
	}
	return 0;
}
