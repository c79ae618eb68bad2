/* SPDX-License-Identifier: MIT */
/* The amdgpu gpu_metrics parser (src/lib/backend/amd/amdgpu_metrics.h) on hand-built tables
 * of each revision it knows (struct gpu_metrics_v1_0 .. v1_5, kgd_pp_interface.h; the
 * offsets are written out here from the structs' natural-alignment layout), on "not
 * supported" fields, and on tables whose header disagrees with their length. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "amdgpu_metrics.h"

static uint8_t blob[512];

static void w16(int off, uint16_t v)
{
	blob[off] = (uint8_t)v;
	blob[off + 1] = (uint8_t)(v >> 8);
}

static void w64(int off, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		blob[off + i] = (uint8_t)(v >> (8 * i));
}

/* A table of the revision, every field "not supported". */
static void table(unsigned content, unsigned size)
{
	memset(blob, 0xFF, sizeof blob);
	w16(0, (uint16_t)size);
	blob[2] = 1;
	blob[3] = (uint8_t)content;
}

static double get(const struct axl__gpu_metrics *g, axl_metric m)
{
	return axl__gpu_metrics_has(g, m) ? g->v[m] : -1;
}

/* 1.0: u64 system_clock_counter right after the header (padded to 8) */
static void v1_0(void)
{
	struct axl__gpu_metrics g;
	table(0, 80);
	w16(16, 55); /* edge */
	w16(18, 70); /* hotspot */
	w16(20, 60); /* mem */
	w16(28, 99); /* gfx activity */
	w16(30, 12); /* umc activity */
	w16(34, 250); /* socket power */
	w16(54, 2100); /* current_gfxclk */
	w16(58, 1000); /* current_uclk */
	CHECK(axl__gpu_metrics_parse(blob, 80, &g));
	CHECK_INT(g.format, 1);
	CHECK_INT(g.content, 0);
	CHECK_INT(get(&g, AXL_METRIC_TEMPERATURE), 55);
	CHECK_INT(get(&g, AXL_METRIC_TEMPERATURE_HOTSPOT), 70);
	CHECK_INT(get(&g, AXL_METRIC_TEMPERATURE_MEMORY), 60);
	CHECK_INT(get(&g, AXL_METRIC_UTILIZATION), 99);
	CHECK_INT(get(&g, AXL_METRIC_MEMORY_UTILIZATION), 12);
	CHECK_INT(get(&g, AXL_METRIC_POWER), 250);
	CHECK_INT(get(&g, AXL_METRIC_SM_CLOCK), 2100);
	CHECK_INT(get(&g, AXL_METRIC_MEMORY_CLOCK), 1000);
	CHECK(!axl__gpu_metrics_has(&g, AXL_METRIC_ENERGY)); /* ASIC-specific unit */
	CHECK(!axl__gpu_metrics_has(&g, AXL_METRIC_THROTTLE_REASONS));
}

/* 1.1, 1.2, 1.3 share the head; 1.3 adds the ASIC-independent throttle bits at 112 */
static void v1_123(unsigned content, unsigned size)
{
	struct axl__gpu_metrics g;
	table(content, size);
	w16(4, 40);
	w16(6, 65);
	w16(8, 50);
	w16(16, 100);
	w16(18, 0);
	w16(22, 300);
	w16(54, 1700);
	w16(58, 1600);
	if (content == 3)
		w64(112, (1ull << 0) | (1ull << 36)); /* PPT0, TEMP_HOTSPOT */
	CHECK(axl__gpu_metrics_parse(blob, size, &g));
	CHECK_INT(get(&g, AXL_METRIC_TEMPERATURE), 40);
	CHECK_INT(get(&g, AXL_METRIC_TEMPERATURE_HOTSPOT), 65);
	CHECK_INT(get(&g, AXL_METRIC_TEMPERATURE_MEMORY), 50);
	CHECK_INT(get(&g, AXL_METRIC_UTILIZATION), 100);
	CHECK_INT(get(&g, AXL_METRIC_MEMORY_UTILIZATION), 0);
	CHECK_INT(get(&g, AXL_METRIC_POWER), 300);
	CHECK_INT(get(&g, AXL_METRIC_SM_CLOCK), 1700);
	CHECK_INT(get(&g, AXL_METRIC_MEMORY_CLOCK), 1600);
	if (content == 3)
		CHECK_INT(get(&g, AXL_METRIC_THROTTLE_REASONS), AXL_THROTTLE_SW_POWER_CAP | AXL_THROTTLE_SW_THERMAL);
	else
		CHECK(!axl__gpu_metrics_has(&g, AXL_METRIC_THROTTLE_REASONS));
}

static void throttle_groups(void)
{
	struct axl__gpu_metrics g;
	const struct {
		uint64_t bits;
		unsigned want;
	} t[] = {
		{0, 0},
		{1ull << 7, AXL_THROTTLE_SW_POWER_CAP},      /* SPPT_APU */
		{1ull << 16, AXL_THROTTLE_CURRENT},          /* TDC_GFX */
		{1ull << 22, AXL_THROTTLE_CURRENT},          /* EDC_GFX */
		{1ull << 32, AXL_THROTTLE_SW_THERMAL},       /* TEMP_GPU */
		{1ull << 44, AXL_THROTTLE_HW_SLOWDOWN},      /* VRHOT0 */
		{1ull << 47, AXL_THROTTLE_HW_SLOWDOWN},      /* PROCHOT_GFX */
		{1ull << 56, 0},                             /* PPM: no such reason */
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		table(3, 120);
		w64(112, t[i].bits);
		CHECK(axl__gpu_metrics_parse(blob, 120, &g));
		CHECK_INT(get(&g, AXL_METRIC_THROTTLE_REASONS), t[i].want);
	}
}

/* 1.4 / 1.5 (MI300): no edge sensor, per-XCC clocks, energy in 2^-16 J */
static void v1_45(unsigned content)
{
	struct axl__gpu_metrics g;
	unsigned size = content == 4 ? 288 : 360;
	int energy = content == 4 ? 24 : 88, gfxclk = content == 4 ? 240 : 312, uclk = content == 4 ? 280 : 352;
	table(content, size);
	w16(4, 48);   /* hotspot */
	w16(6, 41);   /* mem */
	w16(10, 640); /* curr_socket_power */
	w16(12, 87);
	w16(14, 33);
	w64(energy, 3ull << 16); /* 3 J */
	for (int x = 0; x < 8; x++)
		w16(gfxclk + 2 * x, x == 5 ? 2100 : 1900);
	w16(uclk, 1300);
	CHECK(axl__gpu_metrics_parse(blob, size, &g));
	CHECK(!axl__gpu_metrics_has(&g, AXL_METRIC_TEMPERATURE));
	CHECK_INT(get(&g, AXL_METRIC_TEMPERATURE_HOTSPOT), 48);
	CHECK_INT(get(&g, AXL_METRIC_TEMPERATURE_MEMORY), 41);
	CHECK_INT(get(&g, AXL_METRIC_POWER), 640);
	CHECK_INT(get(&g, AXL_METRIC_UTILIZATION), 87);
	CHECK_INT(get(&g, AXL_METRIC_MEMORY_UTILIZATION), 33);
	CHECK(fabs(get(&g, AXL_METRIC_ENERGY) - 3.0) < 1e-12);
	CHECK_INT(get(&g, AXL_METRIC_SM_CLOCK), 2100); /* the fastest XCC */
	CHECK_INT(get(&g, AXL_METRIC_MEMORY_CLOCK), 1300);
	CHECK(!axl__gpu_metrics_has(&g, AXL_METRIC_THROTTLE_REASONS));
	/* XCCs that do not report: the others still do; none: unknown */
	for (int x = 0; x < 8; x++)
		w16(gfxclk + 2 * x, x == 2 ? 1500 : 0xFFFF);
	CHECK(axl__gpu_metrics_parse(blob, size, &g));
	CHECK_INT(get(&g, AXL_METRIC_SM_CLOCK), 1500);
	w16(gfxclk + 4, 0xFFFF);
	w64(energy, UINT64_MAX);
	CHECK(axl__gpu_metrics_parse(blob, size, &g));
	CHECK(!axl__gpu_metrics_has(&g, AXL_METRIC_SM_CLOCK));
	CHECK(!axl__gpu_metrics_has(&g, AXL_METRIC_ENERGY));
}

static void bad_tables(void)
{
	struct axl__gpu_metrics g;
	table(3, 120);
	w16(4, 40);
	CHECK(!axl__gpu_metrics_parse(blob, 3, &g));   /* shorter than a header */
	CHECK(!axl__gpu_metrics_parse(blob, 119, &g)); /* header says more than there is */
	CHECK(!axl__gpu_metrics_parse(NULL, 120, &g));
	blob[2] = 2; /* an APU table: not this parser's */
	CHECK(!axl__gpu_metrics_parse(blob, 120, &g));
	CHECK_INT(g.have, 0);
	blob[2] = 1;
	blob[3] = 9; /* a revision it does not know */
	CHECK(!axl__gpu_metrics_parse(blob, 120, &g));
	/* a short table keeps what lies inside it */
	table(3, 60);
	w16(4, 40);
	w64(112, 1);
	CHECK(axl__gpu_metrics_parse(blob, 120, &g));
	CHECK_INT(get(&g, AXL_METRIC_TEMPERATURE), 40);
	CHECK(!axl__gpu_metrics_has(&g, AXL_METRIC_MEMORY_CLOCK));
	CHECK(!axl__gpu_metrics_has(&g, AXL_METRIC_THROTTLE_REASONS));
	/* implausible values are not believed */
	table(1, 96);
	w16(4, 0x7FFF);
	w16(16, 101);
	CHECK(axl__gpu_metrics_parse(blob, 96, &g));
	CHECK(!axl__gpu_metrics_has(&g, AXL_METRIC_TEMPERATURE));
	CHECK(!axl__gpu_metrics_has(&g, AXL_METRIC_UTILIZATION));
}

int main(void)
{
	v1_0();
	v1_123(1, 96);
	v1_123(2, 104);
	v1_123(3, 120);
	throttle_groups();
	v1_45(4);
	v1_45(5);
	bad_tables();
	return check_summary();
}
