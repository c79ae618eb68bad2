/* SPDX-License-Identifier: MIT */
/* The intel backend's live-metric hooks: intel_sample.c defines them, its row in intel.c
 * points at them. */
#ifndef AXL_BACKEND_INTEL_SAMPLE_H
#define AXL_BACKEND_INTEL_SAMPLE_H

#include "sample_backends.h"

AXL__SAMPLE_HOOKS(intel)

#endif
