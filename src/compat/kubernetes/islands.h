/* SPDX-License-Identifier: MIT */
/* Islands of devices joined by fast links, as `axl device-plugin` (plugin.c: the preferred
 * allocation) and `axl dra-plugin` (src/compat/dra/slices.c: an attribute of each device)
 * group them. Over the public API. */
#ifndef AXL_K8S_ISLANDS_H
#define AXL_K8S_ISLANDS_H

#include <stddef.h>

#include "axl.h"

/* Islands of the first n top-level devices of inv: devices joined by NVLink, NVSwitch, xGMI
 * or RoCE links (the last: the Ethernet ports a Gaudi baseboard joins its modules with;
 * union-find over the inventory's links). island[i]: the smallest index of device i's
 * island; -1 when it has no such link (all -1 when out of memory). kind (NULL: not wanted):
 * kind[i] the kind of device i's first such link, NULL when none. */
void kp_islands(const axl_inventory *inv, int *island, const char **kind, size_t n);

#endif
