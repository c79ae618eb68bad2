/* SPDX-License-Identifier: MIT */
/* The cpu backend's placement of host memory for a device on the device's NUMA node
 * (compute/cpu.c): the kernel's policy of the buffer's pages, read back with
 * get_mempolicy, is "preferred" with that node; no node leaves the default policy; a
 * node this machine does not have changes nothing and the buffer still works. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"
#include "compute_impl.h"

enum { MPOL_DEFAULT_ = 0, MPOL_PREFERRED_ = 1, MPOL_F_ADDR_ = 2 };

/* The policy of the page at p, and its node mask's first word; -1 when not known. */
static int policy(void *p, unsigned long *mask0)
{
	int mode = -1;
	unsigned long mask[16] = { 0 };
	if (syscall(SYS_get_mempolicy, &mode, mask, 8 * sizeof mask, p, MPOL_F_ADDR_) != 0)
		return -1;
	*mask0 = mask[0];
	return mode;
}

int main(void)
{
	axl_context *ctx = NULL;
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.flags = AXL_CONTEXT_NO_ENV;
	o.sim = AXL_TEST_SIM;
	CHECK_INT(axl_context_open(&ctx, &o), 0);
	const struct axl__compute_ops *cpu = &axl__compute_cpu;
	void *st = NULL;
	struct axl__compute_found *f = NULL;
	size_t n = 0;
	CHECK_INT(cpu->open(ctx, NULL, &st, &f, &n), 0);
	free(f);

	/* node 0 exists on every Linux machine */
	struct axl__cmem m = { .size = 4u << 20, .kind = AXL_MEMORY_HOST, .numa_node = 0, .ops = cpu };
	CHECK_INT(cpu->alloc(st, NULL, &m), 0);
	unsigned long mask = 0;
	int mode = policy(m.host, &mask);
	if (mode == -1) {
		printf("get_mempolicy is not available here: placement not checked\n");
	} else {
		CHECK_INT(mode, MPOL_PREFERRED_);
		CHECK_INT(mask & 1ul, 1);
	}
	memset(m.host, 1, (size_t)m.size);
	cpu->free(st, &m);

	/* pinned memory is placed before it is locked (locking touches every page) */
	m = (struct axl__cmem){ .size = 1u << 20, .kind = AXL_MEMORY_PINNED, .numa_node = 0, .ops = cpu };
	CHECK_INT(cpu->alloc(st, NULL, &m), 0);
	if (mode != -1)
		CHECK_INT(policy(m.host, &mask), MPOL_PREFERRED_);
	cpu->free(st, &m);

	/* no node: the default policy */
	m = (struct axl__cmem){ .size = 4u << 20, .kind = AXL_MEMORY_HOST, .numa_node = -1, .ops = cpu };
	CHECK_INT(cpu->alloc(st, NULL, &m), 0);
	if (mode != -1)
		CHECK_INT(policy(m.host, &mask), MPOL_DEFAULT_);
	cpu->free(st, &m);

	/* a node of another machine (a capture's): ignored, the memory still works */
	m = (struct axl__cmem){ .size = 4u << 20, .kind = AXL_MEMORY_HOST, .numa_node = 4000, .ops = cpu };
	CHECK_INT(cpu->alloc(st, NULL, &m), 0);
	memset(m.host, 2, (size_t)m.size);
	CHECK_INT(((unsigned char *)m.host)[m.size - 1], 2);
	cpu->free(st, &m);

	cpu->close(st);
	axl_context_free(ctx);
	return check_summary();
}
