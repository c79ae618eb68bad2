/* SPDX-License-Identifier: MIT */
/* What the ROCm SMI worker collects (rsmi.c) and the main thread applies to the
 * inventory (rsmi_apply.c). Plain data: the worker never touches the inventory. */
#ifndef AXL_RSMI_JOB_H
#define AXL_RSMI_JOB_H

#include "backend.h"
#include "backend_util.h"
#include "vlib.h"
#include "rsmi_call.h"

#define RS_MAX_DEVICES 256  /* ROCm SMI devices (GPUs and, on MI300, partitions) */
#define RS_MAX_PAIR_GPUS 64 /* whole GPUs whose pairs are asked about */

enum { RS_MEM_VRAM, RS_MEM_VIS_VRAM, RS_MEM_GTT, RS_MEM__N };
enum { RS_CLK_SYS, RS_CLK_MEM, RS_CLK__N };

struct rs_dev {
	bool has_bdf;
	uint64_t bdf;   /* domain << 32 | partition << 28 | bus << 8 | device << 3 | function */
	bool partition; /* a partition of a GPU (bits 28..31 set): only ids are asked */
	bool asleep;    /* runtime-suspended: clocks and power are not asked (they wake it) */
	bool no_hwmon;  /* no amdgpu hwmon directory: power is not asked (see rsmi.c) */
	unsigned u16[RSQ_U16__N];
	bool has_u16[RSQ_U16__N];
	char str[RSQ_STR__N][AXL_RSMI_STR];
	bool has_str[RSQ_STR__N];
	uint64_t unique_id;
	bool has_unique_id;
	uint64_t mem_total[RS_MEM__N], mem_used[RS_MEM__N];
	bool has_mem_total[RS_MEM__N], has_mem_used[RS_MEM__N];
	uint64_t cap, cap_default, cap_max, cap_min; /* microwatts */
	bool has_cap, has_cap_default, has_cap_range;
	unsigned numa;
	bool has_numa;
	struct axl__rsmi_freq clk[RS_CLK__N];
	bool has_clk[RS_CLK__N];
};

struct rs_pair {
	unsigned a, b; /* ROCm SMI indices */
	uint64_t hops, bw_min, bw_max; /* MB/s */
	unsigned type, p2p;
	bool has_type, has_bw, has_p2p;
};

struct rs_job {
	struct axl__rsq q; /* first: its calls, warnings, time (vdrv.h) */
	/* inputs */
	char (*asleep)[16]; /* PCI addresses of runtime-suspended amdgpu functions */
	size_t nasleep;
	char (*no_hwmon)[16]; /* PCI addresses of amdgpu functions without an amdgpu hwmon */
	size_t nno_hwmon;
	char (*bad_dpm[RS_CLK__N])[16]; /* those whose pp_dpm_sclk / _mclk ROCm SMI 5 cannot parse */
	size_t nbad_dpm[RS_CLK__N];
	/* outputs */
	rsmi_status_t init_rc;
	unsigned major, minor, patch;
	bool has_version;
	char driver[AXL_RSMI_STR];
	bool has_driver;
	struct rs_dev *devs;
	unsigned ndevs;
	struct rs_pair *pairs;
	size_t npairs;
};

void axl__rsmi_apply(struct axl__scan *scan, struct rs_job *j, struct axl_device **devs);
void axl__rsmi_link(struct axl__scan *scan, struct rs_job *j, struct axl_device **devs);

#endif
