/* SPDX-License-Identifier: MIT */
/* Islands of devices joined by fast links (islands.h). */
#include <stdlib.h>
#include <string.h>

#include "islands.h"

void kp_islands(const axl_inventory *inv, int *island, const char **kind, size_t n)
{
	int *up = malloc((n ? n : 1) * sizeof *up);
	char *linked = calloc(n ? n : 1, 1);
	for (size_t i = 0; i < n; i++) {
		island[i] = -1;
		if (kind)
			kind[i] = NULL;
	}
	if (!up || !linked) {
		free(up);
		free(linked);
		return;
	}
	for (size_t i = 0; i < n; i++)
		up[i] = (int)i;
	for (size_t l = 0; l < axl_inventory_link_count(inv); l++) {
		const struct axl_link *k = axl_inventory_link(inv, l);
		if (!k->kind || (strcmp(k->kind, "nvlink") && strcmp(k->kind, "nvswitch") && strcmp(k->kind, "xgmi") &&
				 strcmp(k->kind, "roce")))
			continue;
		int a = -1, b = -1;
		for (size_t i = 0; i < n; i++) {
			const char *id = axl_device_id(axl_inventory_device(inv, i));
			if (k->a && strcmp(id, k->a) == 0)
				a = (int)i;
			if (k->b && strcmp(id, k->b) == 0)
				b = (int)i;
		}
		if (a < 0 || b < 0)
			continue;
		if (kind) {
			kind[a] = kind[a] ? kind[a] : k->kind;
			kind[b] = kind[b] ? kind[b] : k->kind;
		}
		linked[a] = linked[b] = 1;
		while (up[a] != a)
			a = up[a];
		while (up[b] != b)
			b = up[b];
		if (a != b)
			up[a < b ? b : a] = a < b ? a : b;
	}
	for (size_t i = 0; i < n; i++) {
		int r = (int)i;
		while (up[r] != r)
			r = up[r];
		island[i] = linked[i] ? r : -1;
	}
	free(linked);
	free(up);
}
