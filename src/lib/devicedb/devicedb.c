/* SPDX-License-Identifier: MIT */
/*
 * Lookups in the device database. The tables themselves are generated at build time
 * from data/devices.db by tools/devicedb_gen.c; this file only searches them.
 */
#define _GNU_SOURCE
#include "devicedb.h"

#include <string.h>

/* The key of one match row, in the order the generator sorts the rows. */
struct db_key {
	uint16_t vendor, device;
	uint8_t has_sub;
	uint16_t subvendor, subdevice;
	uint8_t has_rev;
	uint8_t revision;
};

/* Must agree with match_cmp() in tools/devicedb_gen.c: (vendor, device, has_sub desc,
 * subvendor, subdevice, has_rev desc, revision). Rows without subsystem ids or revision
 * carry zeros in those fields, and so do the keys built below. */
static int key_cmp(const struct db_key *k, const struct axl__db_match *m)
{
	if (k->vendor != m->vendor)
		return k->vendor < m->vendor ? -1 : 1;
	if (k->device != m->device)
		return k->device < m->device ? -1 : 1;
	if (k->has_sub != m->has_sub)
		return k->has_sub > m->has_sub ? -1 : 1;
	if (k->subvendor != m->subvendor)
		return k->subvendor < m->subvendor ? -1 : 1;
	if (k->subdevice != m->subdevice)
		return k->subdevice < m->subdevice ? -1 : 1;
	if (k->has_rev != m->has_rev)
		return k->has_rev > m->has_rev ? -1 : 1;
	if (k->revision != m->revision)
		return k->revision < m->revision ? -1 : 1;
	return 0;
}

static const struct axl__db_entry *find_exact(const struct db_key *k)
{
	size_t lo = 0, hi = axl__db_match_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(k, &axl__db_matches[mid]);

		if (c == 0) {
			uint16_t e = axl__db_matches[mid].entry;

			return e < axl__db_entry_count ? &axl__db_entries[e] : NULL;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static int in_u16(int v)
{
	return v >= 0 && v <= 0xffff;
}

const struct axl__db_entry *axl__db_lookup(int vendor, int device, int subvendor, int subdevice,
					   int revision)
{
	int sub_known = in_u16(subvendor) && in_u16(subdevice);
	int rev_known = revision >= 0 && revision <= 0xff;
	const struct axl__db_entry *e;
	struct db_key k;

	if (!in_u16(vendor) || !in_u16(device))
		return NULL;
	memset(&k, 0, sizeof(k));
	k.vendor = (uint16_t)vendor;
	k.device = (uint16_t)device;

	/* Most specific first: subsystem ids and revision, subsystem ids, revision, plain. */
	if (sub_known) {
		k.has_sub = 1;
		k.subvendor = (uint16_t)subvendor;
		k.subdevice = (uint16_t)subdevice;
		if (rev_known) {
			k.has_rev = 1;
			k.revision = (uint8_t)revision;
			if ((e = find_exact(&k)))
				return e;
			k.has_rev = 0;
			k.revision = 0;
		}
		if ((e = find_exact(&k)))
			return e;
		k.has_sub = 0;
		k.subvendor = 0;
		k.subdevice = 0;
	}
	if (rev_known) {
		k.has_rev = 1;
		k.revision = (uint8_t)revision;
		if ((e = find_exact(&k)))
			return e;
		k.has_rev = 0;
		k.revision = 0;
	}
	return find_exact(&k);
}

const struct axl__db_entry *axl__db_find_key(const char *key)
{
	if (!key)
		return NULL;
	for (size_t i = 0; i < axl__db_entry_count; i++)
		if (strcmp(axl__db_key(&axl__db_entries[i]), key) == 0)
			return &axl__db_entries[i];
	return NULL;
}

static int ascii_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int ascii_casecmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int ca = ascii_lower((unsigned char)*a), cb = ascii_lower((unsigned char)*b);

		if (ca != cb || ca == 0)
			return ca - cb;
	}
}

const struct axl__db_entry *axl__db_find_name(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < axl__db_entry_count; i++)
		if (ascii_casecmp(axl__db_name(&axl__db_entries[i]), name) == 0)
			return &axl__db_entries[i];
	return NULL;
}
