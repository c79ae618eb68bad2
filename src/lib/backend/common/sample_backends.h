/* SPDX-License-Identifier: MIT */
/* AXL__SAMPLE_HOOKS(v): the declaration of a backend's live-metric table (struct
 * axl__sample_ops, core/backend.h), axl__<v>_sample_ops, for a vendor's header to name
 * once: its sampling file ends with it, its backend row points at it. */
#ifndef AXL_BACKEND_SAMPLE_BACKENDS_H
#define AXL_BACKEND_SAMPLE_BACKENDS_H

#include <stddef.h>

struct axl__sample_ops;

#define AXL__SAMPLE_HOOKS(v) extern const struct axl__sample_ops axl__##v##_sample_ops;

#endif
