/* SPDX-License-Identifier: MIT */
/* The SMBIOS structure table (/sys/firmware/dmi/tables/DMI): what the host's memory
 * devices (type 17) say about their speed and width. A pure parser: bytes in, facts out. */
#ifndef AXL_SMBIOS_H
#define AXL_SMBIOS_H

#include <stddef.h>
#include <stdint.h>

struct axl__smbios_memory {
	int populated;          /* memory devices with a module in them */
	int counted;            /* of those, the ones whose speed and data width are known */
	int64_t bytes_per_s;    /* sum over the counted: speed (MT/s) x data width (bytes) */
	int64_t size_bytes;     /* sum of the populated devices' sizes (known ones) */
	unsigned speed_mts_min; /* slowest and fastest speed counted (MT/s), 0 when none */
	unsigned speed_mts_max;
};

/* Walk the table. 0 and *out filled (possibly with nothing populated); -EINVAL when a
 * structure runs past the end or has a header shorter than 4 bytes (the walk stops
 * there: what came before it is still in *out). */
int axl__smbios_memory(const uint8_t *table, size_t len, struct axl__smbios_memory *out);

#endif
