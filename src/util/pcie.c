/* SPDX-License-Identifier: MIT */
/* The physics of a PCIe link (pcie.h). */
#include "pcie.h"

double axl__pcie_link_gbps(int64_t gen, int64_t width)
{
	/* per lane and direction: 2.5 and 5 GT/s with 8b/10b; 8, 16 and 32 GT/s with
	 * 128b/130b; 64 and 128 GT/s with FLIT coding */
	static const double lane[] = { 0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563, 15.125 };
	if (gen < 1 || gen > 7 || width < 1 || width > 64)
		return -1;
	return lane[gen] * (double)width;
}
