/* SPDX-License-Identifier: MIT */
/*
 * The families of dcgm-exporter that AXL_METRICS_DCGM adds to the Prometheus text
 * (sample_prom.c writes them, for every device of any vendor): its names, types, units
 * and help texts byte for byte, which the dashboards built for it expect. A format, not
 * a backend: the table (prom_dcgm.c) is data only.
 */
#ifndef AXL_LIB_PROM_DCGM_H
#define AXL_LIB_PROM_DCGM_H

#include <stddef.h>

#include "axl/metrics.h"

/* How a family's value follows from the sample. */
enum axl__dcgm_how {
	AXL__DCGM_PLAIN,    /* the metric times scale (whole numbers when scale < 1) */
	AXL__DCGM_FB_FREE,  /* total less used memory, times scale, whole */
	AXL__DCGM_THROTTLE, /* the throttle bits the exporter knows (AXL__DCGM_THROTTLE_MASK) */
};

/* The exporter's throttle bits: AXL_THROTTLE_IDLE .. AXL_THROTTLE_DISPLAY_CLOCKS
 * (AXL_THROTTLE_CURRENT is axl's own). */
#define AXL__DCGM_THROTTLE_MASK 0x1ffu

struct axl__dcgm_family {
	const char *name;
	const char *type;
	axl_metric m;
	double scale;
	enum axl__dcgm_how how;
	const char *help;
};

extern const struct axl__dcgm_family axl__dcgm_families[];
extern const size_t axl__dcgm_family_count;

#endif
