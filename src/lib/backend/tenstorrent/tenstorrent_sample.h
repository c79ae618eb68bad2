/* SPDX-License-Identifier: MIT */
/* The tenstorrent backend's live-metric hooks: tenstorrent_sample.c defines them, its row in tenstorrent.c
 * points at them. */
#ifndef AXL_BACKEND_TENSTORRENT_SAMPLE_H
#define AXL_BACKEND_TENSTORRENT_SAMPLE_H

#include "sample_backends.h"

AXL__SAMPLE_HOOKS(tenstorrent)

#endif
