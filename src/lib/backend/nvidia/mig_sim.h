/* SPDX-License-Identifier: MIT */
/* MIG on simulated nodes (mig_sim.c, docs/partitions.md): instances are records
 * of the simulated node's own state directory, placed by the GPU's rules (mig_rules.h). */
#ifndef AXL_NVIDIA_MIG_SIM_H
#define AXL_NVIDIA_MIG_SIM_H

#include "backend.h"
#include "mig_rules.h"
#include "state.h"

/* The simulated device's MIG children and profile details, from the state st (may be
 * NULL: nothing created). index: the GPU's minor number. */
void axl__sim_mig_apply(struct axl_inventory *inv, struct axl_device *dev, size_t index, int mig_enabled,
			const struct axl__state *st);
/* Create an instance of p on the simulated GPU gpu (a physical device of a simulated
 * inventory) under the state lock, recorded with its owner: AXL_ENOSPC when no placement
 * is free. */
int axl__sim_mig_create(axl_context *ctx, const struct axl_device *gpu, const struct axl__mig_gpu *g,
			const struct axl__mig_profile *p, const struct axl__part_owner *owner,
			struct axl__part_made *out);
/* The access nodes of GPU instance gi on the simulated GPU with minor number `index`. */
void axl__sim_mig_nodes(size_t index, int gi, char gi_node[64], char ci_node[64]);

#endif
