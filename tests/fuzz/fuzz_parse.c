/* SPDX-License-Identifier: MIT */
/* Every attribute parser on arbitrary bytes. The first byte picks the parser; with its
 * high bit set, one of the visibility parsers (src/lib/visibility.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"
#include "visibility.h"
#include "amdgpu_visibility.h"
#include "nvidia_visibility.h"

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
	if (data[0] & 0x80) {
		/* a GPU with two MIG devices, a GPU without a UUID, numbered devices */
		static const struct axl__vis_item items[] = {
			{"GPU-8932f937-d72c-4106-c12f-20bd9faed9f6", -1, -1, -1, 0},
			{"MIG-aaaa1111-2222-3333-4444-555555555555", 0, 1, 0, -1},
			{"MIG-bbbb1111-2222-3333-4444-555555555555", 0, 2, 0, 3},
			{NULL, -1, -1, -1, 7},
			{"GPU-5EC3A09F1B2C3D4E", -1, -1, -1, -1},
		};
		int pos[5];
		struct axl__vis_result r;
		switch (data[0] % 7) {
		case 0: axl__vis_cuda(s, items, 5, data[0] & 0x40, pos, &r); break;
		case 1: axl__vis_rocr(s, items, 5, pos, &r); break;
		case 2: axl__vis_hip(s, items, 5, pos, &r); break;
		case 3: axl__vis_nvidia_runtime(s, items, 5, pos, &r); break;
		case 4: axl__vis_numbers(s, data[0] & 0x40, items, 5, pos, &r); break;
		case 5: axl__vis_cgroup_allows(s, 'c', 195, 2, "rw"); break;
		case 6: axl__vis_cgroup_v1_path(s, out, sizeof out); break;
		}
		free(s);
		return 0;
	}
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
