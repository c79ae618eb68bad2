/* SPDX-License-Identifier: MIT */
/* The habana backend's live-metric hooks: habana_sample.c defines them, its row in habana.c
 * points at them. */
#ifndef AXL_BACKEND_HABANA_SAMPLE_H
#define AXL_BACKEND_HABANA_SAMPLE_H

#include "sample_backends.h"

AXL__SAMPLE_HOOKS(habana)

#endif
