/* SPDX-License-Identifier: MIT */
/* The DRM fdinfo parser (src/lib/fdinfo.h) and the container id finder on arbitrary
 * bytes: no crash, no read past len, the bounds hold. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fdinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	/* an exact-size copy so that ASan sees any read past the end */
	char *s = malloc(size ? size : 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	struct axl__fdinfo fi;
	axl__fdinfo_parse(s, size, &fi);
	if (fi.n_engines > AXL__FDI_MAX_ENGINES || fi.n_regions > AXL__FDI_MAX_REGIONS)
		abort();
	for (unsigned i = 0; i < fi.n_engines; i++) {
		if (axl__fdinfo_engine(&fi, fi.engines[i].name) == NULL || fi.engines[i].capacity == 0)
			abort();
	}
	for (unsigned i = 0; i < fi.n_regions; i++)
		if (axl__fdinfo_region(&fi, fi.regions[i].name) == NULL)
			abort();
	free(s);
	char *z = malloc(size + 1);
	if (!z)
		return 0;
	memcpy(z, data, size);
	z[size] = '\0';
	char id[72];
	axl__fdinfo_container_id(z, id, sizeof id);
	free(z);
	return 0;
}
