/* SPDX-License-Identifier: MIT */
/* The SMBIOS structure table parser (src/lib/discover/smbios.h) on arbitrary bytes: no
 * crash, no read past len, and what it reports holds together. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smbios.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	/* an exact-size copy so that ASan sees any read past the end */
	uint8_t *t = malloc(size ? size : 1);
	if (!t)
		return 0;
	memcpy(t, data, size);
	struct axl__smbios_memory m;
	int rc = axl__smbios_memory(t, size, &m);
	if (rc != 0 && rc != -22 /* -EINVAL */)
		abort();
	if (m.counted < 0 || m.counted > m.populated || m.bytes_per_s < 0 || m.size_bytes < 0)
		abort();
	if ((m.counted == 0) != (m.bytes_per_s == 0) || m.speed_mts_min > m.speed_mts_max)
		abort();
	/* every populated device is at least one 4-byte header plus two NULs */
	if ((size_t)m.populated * 6 > size)
		abort();
	free(t);
	return 0;
}
