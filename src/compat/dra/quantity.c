/* SPDX-License-Identifier: MIT */
/* Quantities as the API server writes them (slices.h's dra_quantity): a file of its own, so
 * that slices.c and shares.c both use it without using each other both ways (layers.roles). */
#include <stdio.h>

#include "slices.h"

void dra_quantity(long long v, char *out, size_t cap)
{
	/* resource.Quantity's canonical forms: a multiple of 1024 in the largest binary
	 * suffix that keeps it whole (BinarySI), else of 1000 in the largest decimal one
	 * (DecimalSI), else the number */
	static const char *const bin[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
	static const char *const dec[] = { "", "k", "M", "G", "T", "P", "E" };
	int k = 0;
	long long x = v;
	if (v > 0 && v % 1024 == 0) {
		while (k < 6 && x % 1024 == 0)
			x /= 1024, k++;
		snprintf(out, cap, "%lld%s", x, bin[k]);
		return;
	}
	while (v > 0 && k < 6 && x % 1000 == 0)
		x /= 1000, k++;
	snprintf(out, cap, "%lld%s", x, dec[k]);
}
