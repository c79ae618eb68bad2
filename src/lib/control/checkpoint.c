/* SPDX-License-Identifier: MIT */
/* Process checkpoints (axl/checkpoint.h): the checks every call makes, and the choice of
 * the backend whose driver does it (struct axl__backend.checkpoint). */
#include <stdio.h>

#include "axl/checkpoint.h"
#include "backend.h"

static const char *const op_name[] = {"state", "lock", "checkpoint", "restore", "unlock"};

AXL_API int axl_process_checkpoint(const axl_inventory *inv, const char *device_id, int pid, axl_checkpoint_op op,
				   int *state)
{
	if (!inv || !inv->ctx)
		return axl__error(AXL_EINVAL, "axl_process_checkpoint: no inventory");
	if ((int)op < 0 || (int)op > 4)
		return axl__error(AXL_EINVAL, "axl_process_checkpoint: unknown op %d", (int)op);
	if (pid <= 0)
		return axl__error(AXL_EINVAL, "axl_process_checkpoint: pid %d", pid);
	const axl_context *ctx = inv->ctx;
	const axl_device *d = NULL;
	if (device_id) {
		d = axl_inventory_find(inv, device_id);
		if (!d)
			return axl__error(AXL_ENOENT, "no device '%.200s'", device_id);
		while (d->parent)
			d = d->parent;
	}
	size_t self = axl__backend_total;
	for (size_t b = 0; b < axl__backend_total && self == axl__backend_total; b++) {
		const struct axl__backend *be = axl__backends[b];
		if (!be->checkpoint || !be->checkpoint->run || !axl__backend_on(ctx, b))
			continue;
		if (!d || axl__backend_owns(be, d))
			self = b;
	}
	if (self == axl__backend_total) {
		if (d)
			return axl__error(AXL_ENOTSUP, "%s: its vendor's driver checkpoints no processes in axl",
					  axl_device_id(d));
		return axl__error(AXL_ENOTSUP, "no enabled backend checkpoints processes");
	}
	if ((ctx->sim || ctx->fs.rerooted) && !ctx->compute_library[self])
		return axl__error(
		    AXL_ENOTSYS, "%s of pid %d: a %s context drives no driver (unless given a compute library to load)",
		    op_name[op], pid, ctx->sim ? "simulated" : "re-rooted");
	int st = -1;
	int rc = axl__backends[self]->checkpoint->run(ctx, axl__backends[self], pid, (int)op, &st);
	if (rc == 0 && state)
		*state = st;
	return rc;
}
