/* SPDX-License-Identifier: MIT */
/*
 * amdgpu gpu_metrics (drivers/gpu/drm/amd/include/kgd_pp_interface.h). The file starts
 * with struct metrics_table_header {u16 structure_size; u8 format_revision; u8
 * content_revision}, then the revision's fields as a plain C struct (natural alignment,
 * little-endian: amdgpu runs on little-endian hosts). Format 1 is the dGPU table; the
 * offsets below are those of struct gpu_metrics_v1_<content>:
 *
 *               1.0   1.1-1.3  1.4   1.5     units
 *   edge        16    4        -     -       degrees C (u16)
 *   hotspot     18    6        4     4       degrees C
 *   mem         20    8        6     6       degrees C
 *   gfx busy    28    16       12    12      percent
 *   umc busy    30    18       14    14      percent
 *   socket pwr  34    22       10    10      W (average; 1.4+ current)
 *   energy      -     -        24    88      u64, 2^-16 J (15.259 uJ) in 1.4+; in 1.0-1.3
 *                                            the unit is ASIC-specific: not read
 *   gfxclk      54    54       240   312     MHz (1.4+: u16[8], one per XCC)
 *   uclk        58    58       280   352     MHz
 *   indep thr.  -     112(1.3) -     -       u64 ASIC-independent throttle bits
 * A field that reads all ones is "not supported". Not used: throttle_status (ASIC-
 * dependent bits), current_fan_speed (rpm, no percent), pcie_bandwidth_inst (1.4+: GB/s
 * in both directions together, while the metrics are per direction).
 *
 * ASIC-independent throttle bits (amdgpu_smu.h SMU_THROTTLER_*): 0-15 power (PPT0-3,
 * SPL, FPPT, SPPT, SPPT_APU), 16-31 current (TDC_*, EDC_*, APCC), 32-43 temperature
 * sensors (TEMP_*), 44-45 VRHOT0/1, 46-47 PROCHOT_CPU/GFX, 56-57 PPM, FIT.
 */
#include <string.h>

#include "amdgpu_metrics.h"

struct layout {
	unsigned size; /* sizeof the struct */
	int edge, hotspot, mem, gfx, umc, power, energy, gfxclk, nclk, uclk, indep;
};

/* -1: the revision has no such field */
static const struct layout layouts[6] = {
	/* 1.0 */ {80, 16, 18, 20, 28, 30, 34, -1, 54, 1, 58, -1},
	/* 1.1 */ {96, 4, 6, 8, 16, 18, 22, -1, 54, 1, 58, -1},
	/* 1.2 */ {104, 4, 6, 8, 16, 18, 22, -1, 54, 1, 58, -1},
	/* 1.3 */ {120, 4, 6, 8, 16, 18, 22, -1, 54, 1, 58, 112},
	/* 1.4 */ {288, -1, 4, 6, 12, 14, 10, 24, 240, 8, 280, -1},
	/* 1.5 */ {360, -1, 4, 6, 12, 14, 10, 88, 312, 8, 352, -1},
};

static bool rd16(const uint8_t *b, size_t n, int off, uint16_t *v)
{
	if (off < 0 || (size_t)off + 2 > n)
		return false;
	*v = (uint16_t)(b[off] | b[off + 1] << 8);
	return *v != 0xFFFF;
}

static bool rd64(const uint8_t *b, size_t n, int off, uint64_t *v)
{
	if (off < 0 || (size_t)off + 8 > n)
		return false;
	uint64_t x = 0;
	for (int i = 7; i >= 0; i--)
		x = x << 8 | b[off + i];
	*v = x;
	return x != UINT64_MAX;
}

static void put(struct axl__gpu_metrics *g, axl_metric m, double v)
{
	g->v[m] = v;
	g->have |= 1u << m;
}

/* A u16 field within [0, max]. */
static void put16(struct axl__gpu_metrics *g, const uint8_t *b, size_t n, int off, axl_metric m, unsigned max)
{
	uint16_t v;
	if (rd16(b, n, off, &v) && v <= max)
		put(g, m, v);
}

static uint32_t throttle_bits(uint64_t s)
{
	uint32_t r = 0;
	if (s & 0xFFFFull)
		r |= AXL_THROTTLE_SW_POWER_CAP;
	if (s & 0xFFFF0000ull)
		r |= AXL_THROTTLE_CURRENT;
	if (s & 0x0FFF00000000ull)
		r |= AXL_THROTTLE_SW_THERMAL;
	if (s & 0xF00000000000ull) /* VRHOT, PROCHOT: signals from outside the SMU */
		r |= AXL_THROTTLE_HW_SLOWDOWN;
	return r;
}

bool axl__gpu_metrics_parse(const void *buf, size_t len, struct axl__gpu_metrics *out)
{
	memset(out, 0, sizeof *out);
	const uint8_t *b = buf;
	if (!b || len < 4)
		return false;
	size_t size = (size_t)(b[0] | b[1] << 8);
	out->format = b[2];
	out->content = b[3];
	if (out->format != 1 || out->content > 5 || size < 4 || size > len)
		return false;
	const struct layout *l = &layouts[out->content];
	/* a table shorter than its revision's struct keeps what lies inside it */
	size_t n = size < l->size ? size : l->size;
	put16(out, b, n, l->edge, AXL_METRIC_TEMPERATURE, 200);
	put16(out, b, n, l->hotspot, AXL_METRIC_TEMPERATURE_HOTSPOT, 200);
	put16(out, b, n, l->mem, AXL_METRIC_TEMPERATURE_MEMORY, 200);
	put16(out, b, n, l->gfx, AXL_METRIC_UTILIZATION, 100);
	put16(out, b, n, l->umc, AXL_METRIC_MEMORY_UTILIZATION, 100);
	put16(out, b, n, l->power, AXL_METRIC_POWER, 5000);
	put16(out, b, n, l->uclk, AXL_METRIC_MEMORY_CLOCK, 20000);
	/* the graphics clock: the highest of the XCCs that report one */
	uint16_t best = 0;
	bool any = false;
	for (int i = 0; i < l->nclk; i++) {
		uint16_t c;
		if (rd16(b, n, l->gfxclk + 2 * i, &c) && c <= 20000 && (!any || c > best)) {
			best = c;
			any = true;
		}
	}
	if (any)
		put(out, AXL_METRIC_SM_CLOCK, best);
	uint64_t v;
	if (rd64(b, n, l->energy, &v))
		put(out, AXL_METRIC_ENERGY, (double)v / 65536.0);
	if (rd64(b, n, l->indep, &v))
		put(out, AXL_METRIC_THROTTLE_REASONS, throttle_bits(v));
	return true;
}
