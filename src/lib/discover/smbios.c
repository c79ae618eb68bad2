/* SPDX-License-Identifier: MIT */
/* The SMBIOS memory devices (type 17) of the structure table, after DMTF DSP0134:
 * every structure is a header (type, length of the formatted part, handle), the
 * formatted part, then its strings, ended by two NUL bytes; type 127 ends the table.
 * Type 17 offsets used (with the version that added them):
 *   0x0A data width in bits (2.1; 0xFFFF unknown)   0x0C size (2.1; 0 empty slot,
 *   0xFFFF unknown, bit 15 set: KiB else MiB, 0x7FFF: see 0x1C)
 *   0x15 speed in MT/s (2.3; 0 unknown, 0xFFFF: see 0x54)
 *   0x1C extended size in MiB (2.7)   0x20 configured speed in MT/s (2.7; 0 unknown,
 *   0xFFFF: see 0x58)   0x54 extended speed, 0x58 extended configured speed (3.3) */
#include <errno.h>
#include <string.h>

#include "smbios.h"

static unsigned u16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* speed in MT/s from a 16-bit field and its 32-bit extension; 0 when not known */
static uint32_t speed(const uint8_t *s, size_t hlen, size_t off, size_t ext_off)
{
	if (hlen < off + 2)
		return 0;
	unsigned v = u16(s + off);
	if (v != 0xFFFF)
		return v;
	if (hlen < ext_off + 4)
		return 0;
	return u32(s + ext_off) & 0x7FFFFFFFu; /* bit 31 reserved */
}

static void memory_device(const uint8_t *s, size_t hlen, struct axl__smbios_memory *out)
{
	if (hlen < 0x15)
		return; /* shorter than 2.1's: not a type 17 this parser understands */
	unsigned size = u16(s + 0x0C);
	if (size == 0)
		return; /* an empty slot */
	out->populated++;
	if (size != 0xFFFF) {
		int64_t bytes = -1;
		if (size == 0x7FFF) {
			if (hlen >= 0x20)
				bytes = (int64_t)(u32(s + 0x1C) & 0x7FFFFFFFu) << 20;
		} else {
			bytes = (int64_t)(size & 0x7FFF) << ((size & 0x8000) ? 10 : 20);
		}
		if (bytes > 0)
			out->size_bytes += bytes;
	}
	unsigned width = u16(s + 0x0A);
	uint32_t mts = speed(s, hlen, 0x20, 0x58); /* what it runs at */
	if (!mts)
		mts = speed(s, hlen, 0x15, 0x54); /* else what it is rated for */
	/* beyond any module (and what keeps the sum far from overflowing: a table of at
	 * most 1 MiB holds fewer than 2^18 devices of at most 10^5 MT/s x 128 bytes) */
	if (width == 0 || width > 1024 || width % 8 || mts == 0 || mts > 100000)
		return;
	out->counted++;
	out->bytes_per_s += (int64_t)mts * 1000000 * (int64_t)(width / 8);
	if (!out->speed_mts_min || mts < out->speed_mts_min)
		out->speed_mts_min = mts;
	if (mts > out->speed_mts_max)
		out->speed_mts_max = mts;
}

int axl__smbios_memory(const uint8_t *table, size_t len, struct axl__smbios_memory *out)
{
	memset(out, 0, sizeof *out);
	size_t p = 0;
	while (table && p + 4 <= len) {
		const uint8_t *s = table + p;
		size_t hlen = s[1];
		if (hlen < 4 || hlen > len - p)
			return -EINVAL;
		/* the strings: up to the first double NUL at or after the formatted part */
		size_t q = p + hlen;
		while (q + 1 < len && !(table[q] == 0 && table[q + 1] == 0))
			q++;
		if (q + 1 >= len)
			return -EINVAL;
		if (s[0] == 127)
			break;
		if (s[0] == 17)
			memory_device(s, hlen, out);
		p = q + 2;
	}
	return 0;
}
