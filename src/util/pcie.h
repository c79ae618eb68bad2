/* SPDX-License-Identifier: MIT */
/* The physics of a PCIe link, shared by the planner and axl bench copy. */
#ifndef AXL_UTIL_PCIE_H
#define AXL_UTIL_PCIE_H

#include <stdint.h>

/* GB/s (10^9 bytes) per direction of a link of generation gen (1..7) and width lanes,
 * after line coding (8b/10b to gen 2, 128b/130b from gen 3, FLIT from gen 6); -1 when
 * either is not known or out of range. The one table of these figures: discovery's
 * links, the planner and axl bench copy all use it. */
double axl__pcie_link_gbps(int64_t gen, int64_t width);

#endif
