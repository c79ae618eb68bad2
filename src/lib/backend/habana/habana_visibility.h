/* SPDX-License-Identifier: MIT */
/* Habana's visibility operations (habana_visibility.c), for the backend's row. */
#ifndef AXL_HABANA_VISIBILITY_H
#define AXL_HABANA_VISIBILITY_H

#include "backend.h"
#include "visibility.h"

extern const char *const axl__habana_vis_vars[];
bool axl__habana_vis_devnum(const struct axl__vis *v, const char *rel, unsigned *major, unsigned *minor);
void axl__habana_visibility(struct axl__vis *v, const struct axl__backend *self);
/* its visibility table (the file ends with it), for its row */
extern const struct axl__vis_ops axl__habana_vis;

#endif
