/* SPDX-License-Identifier: MIT */
/*
 * The PCI tree as sysfs lays it out: a function's canonical path under /sys/devices
 * nests it under its root complex and every bridge above it
 * ("/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0"), so
 * the path between two functions is read off their paths alone. links.c (accelerator
 * pairs) and fabric.c (accelerators and RDMA NICs) share this.
 *
 * Below a root port, a PCIe switch is an upstream port with downstream ports on the next
 * bus: a function under k switches sits below 1 + 2k bridges. The path between two
 * functions under one switch crosses a downstream port, the upstream port and another
 * downstream port (nvidia-smi "PIX"); each further switch on either side adds its two
 * ports ("PXB").
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "discover.h"

bool axl__chain_split(const char *devpath, struct axl__chain *c)
{
	memset(c, 0, sizeof *c);
	if (!devpath)
		return false;
	const char *p = strstr(devpath, "/pci");
	if (!p)
		return false;
	p++;
	const char *slash = strchr(p, '/');
	if (!slash || (size_t)(slash - p) >= sizeof c->root)
		return false;
	memcpy(c->root, p, (size_t)(slash - p));
	p = slash + 1;
	while (*p && c->n < AXL__CHAIN_MAX) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		c->hops[c->n] = p;
		c->lens[c->n] = len;
		c->n++;
		if (!e)
			break;
		p = e + 1;
	}
	return c->n >= 1;
}

/* Switches between the root port and the function: the bridges below the root port,
 * two per switch (an odd one, a PCI bridge, counts as one). */
static int switches_below_root(const struct axl__chain *c)
{
	return c->n >= 2 ? (c->n - 1) / 2 : 0;
}

/* Switches on one side below the common ancestor, beyond the first: below the shared
 * switch, a side crosses its downstream port, then two ports per further switch. */
static int switches_below(const struct axl__chain *c, int common)
{
	int bridges = c->n - 1 - common;
	return bridges >= 2 ? (bridges - 1) / 2 : 0;
}

enum axl__path axl__pci_path(const struct axl__chain *a, const struct axl__chain *b, int numa_a,
			     int numa_b, int *switches)
{
	*switches = -1;
	if (a && b) {
		if (strcmp(a->root, b->root) == 0) {
			/* common bridges above both (the functions themselves excluded) */
			int common = 0;
			while (common < a->n - 1 && common < b->n - 1 &&
			       a->lens[common] == b->lens[common] &&
			       memcmp(a->hops[common], b->hops[common], a->lens[common]) == 0)
				common++;
			/* sharing more than the root port means a switch in between */
			if (common >= 2) {
				*switches = 1 + switches_below(a, common) + switches_below(b, common);
				return AXL__PATH_SWITCH;
			}
			*switches = switches_below_root(a) + switches_below_root(b);
			return AXL__PATH_HOST_BRIDGE;
		}
		*switches = switches_below_root(a) + switches_below_root(b);
	}
	if (numa_a >= 0 && numa_b >= 0)
		return numa_a == numa_b ? AXL__PATH_NUMA : AXL__PATH_SYSTEM;
	if (a && b) /* different root complexes, NUMA not known */
		return AXL__PATH_SYSTEM;
	return AXL__PATH_NONE;
}

const char *axl__path_kind(enum axl__path p)
{
	switch (p) {
	case AXL__PATH_SWITCH: return "pcie-switch";
	case AXL__PATH_HOST_BRIDGE: return "host-bridge";
	case AXL__PATH_NUMA: return "numa";
	case AXL__PATH_SYSTEM: return "system";
	default: return NULL;
	}
}

void axl__resolve_link(const char *linkdir, const char *target, char *out, size_t cap)
{
	char tmp[1024];
	if (target[0] == '/')
		snprintf(tmp, sizeof tmp, "%s", target);
	else
		snprintf(tmp, sizeof tmp, "%s/%s", linkdir, target);
	/* normalise "." and ".." */
	char *parts[128];
	int n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(tmp, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") == 0) {
			if (n > 0)
				n--;
			continue;
		}
		if (n < 128)
			parts[n++] = tok;
	}
	size_t len = 0;
	out[0] = '\0';
	for (int i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(out + len, cap - len, "/%s", parts[i]);
	if (n == 0)
		snprintf(out, cap, "/");
}
