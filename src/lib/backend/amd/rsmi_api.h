/* SPDX-License-Identifier: MIT */
/*
 * The part of AMD's ROCm SMI C API (librocm_smi64.so.N) that axl uses, declared from
 * rocm_smi.h (ROCm/rocm_smi_lib, include/rocm_smi/rocm_smi.h): only the types and the
 * functions we call, with their sizes pinned. ROCm's own header is not needed to build
 * axl.
 *
 * One struct changed its layout without a new symbol: rsmi_frequencies_t gained a
 * leading `bool has_deep_sleep` and a 33rd frequency (RSMI_MAX_NUM_FREQUENCIES 32 ->
 * 33) between ROCm 5 and ROCm 6. Both layouts are declared; rsmi_call.c picks one from
 * rsmi_version_get() (major < 6: the old one; a major of 1 is ambiguous, see there).
 */
#ifndef AXL_RSMI_API_H
#define AXL_RSMI_API_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int rsmi_status_t; /* an enum in ROCm SMI: int-sized (UNKNOWN_ERROR 0xFFFFFFFF) */

enum {
	RSMI_STATUS_SUCCESS = 0,
	RSMI_STATUS_INVALID_ARGS = 1,
	RSMI_STATUS_NOT_SUPPORTED = 2,
	RSMI_STATUS_FILE_ERROR = 3,
	RSMI_STATUS_PERMISSION = 4,
	RSMI_STATUS_OUT_OF_RESOURCES = 5,
	RSMI_STATUS_INTERNAL_EXCEPTION = 6,
	RSMI_STATUS_INPUT_OUT_OF_BOUNDS = 7,
	RSMI_STATUS_INIT_ERROR = 8,
	RSMI_STATUS_NOT_YET_IMPLEMENTED = 9,
	RSMI_STATUS_NOT_FOUND = 10,
	RSMI_STATUS_INSUFFICIENT_SIZE = 11,
	RSMI_STATUS_INTERRUPT = 12,
	RSMI_STATUS_UNEXPECTED_SIZE = 13,
	RSMI_STATUS_NO_DATA = 14,
	RSMI_STATUS_UNEXPECTED_DATA = 15,
	RSMI_STATUS_BUSY = 16,
	RSMI_STATUS_REFCOUNT_OVERFLOW = 17,
	RSMI_STATUS_SETTING_UNAVAILABLE = 18,
	RSMI_STATUS_AMDGPU_RESTART_ERR = 19,
	RSMI_STATUS_DRM_ERROR = 20,
	RSMI_STATUS_FAIL_LOAD_MODULE = 21,
	RSMI_STATUS_FAIL_LOAD_SYMBOL = 22,
	RSMI_STATUS_UNKNOWN_ERROR = -1 /* 0xFFFFFFFF */
};
/* Not ROCm SMI's: "the library lacks this function" (an older ROCm), as NVML's
 * FUNCTION_NOT_FOUND. Never returned by the library; recorded as it is. */
#define AXL_RSMI_NO_FUNCTION 1000

enum { RSMI_MEM_TYPE_VRAM = 0, RSMI_MEM_TYPE_VIS_VRAM = 1, RSMI_MEM_TYPE_GTT = 2 };
enum { RSMI_CLK_TYPE_SYS = 0, RSMI_CLK_TYPE_DF = 1, RSMI_CLK_TYPE_DCEF = 2, RSMI_CLK_TYPE_SOC = 3, RSMI_CLK_TYPE_MEM = 4 };
enum { RSMI_SW_COMP_DRIVER = 0 };
/* RSMI_IO_LINK_TYPE */
enum { RSMI_IOLINK_TYPE_UNDEFINED = 0, RSMI_IOLINK_TYPE_PCIEXPRESS = 1, RSMI_IOLINK_TYPE_XGMI = 2 };

/* rsmi_version_t */
typedef struct {
	uint32_t major, minor, patch;
	const char *build;
} rsmi_version_t;
static_assert(sizeof(void *) != 8 || sizeof(rsmi_version_t) == 24, "rsmi_version_t");

/* rsmi_frequencies_t of ROCm 5 (RSMI_MAX_NUM_FREQUENCIES 32) */
#define AXL_RSMI_FREQ_V5 32
typedef struct {
	uint32_t num_supported;
	uint32_t current;
	uint64_t frequency[AXL_RSMI_FREQ_V5]; /* Hz */
} rsmi_frequencies_v5_t;
static_assert(sizeof(rsmi_frequencies_v5_t) == 264, "rsmi_frequencies_t (ROCm 5)");
static_assert(offsetof(rsmi_frequencies_v5_t, frequency) == 8, "rsmi_frequencies_t (ROCm 5)");

/* rsmi_frequencies_t of ROCm 6 and later (RSMI_MAX_NUM_FREQUENCIES 33) */
#define AXL_RSMI_FREQ_V6 33
typedef struct {
	bool has_deep_sleep; /* level 0 is the deep-sleep clock ("S:" in pp_dpm_*) */
	uint32_t num_supported;
	uint32_t current;
	uint64_t frequency[AXL_RSMI_FREQ_V6]; /* Hz */
} rsmi_frequencies_v6_t;
static_assert(sizeof(rsmi_frequencies_v6_t) == 280, "rsmi_frequencies_t (ROCm 6)");
static_assert(offsetof(rsmi_frequencies_v6_t, num_supported) == 4 &&
		      offsetof(rsmi_frequencies_v6_t, current) == 8 &&
		      offsetof(rsmi_frequencies_v6_t, frequency) == 16,
	      "rsmi_frequencies_t (ROCm 6)");

/* The buffer axl hands to rsmi_dev_gpu_clk_freq_get: larger than either layout, so a
 * library of the other generation cannot write past it. */
typedef union {
	rsmi_frequencies_v5_t v5;
	rsmi_frequencies_v6_t v6;
	unsigned char room[512];
} axl_rsmi_freq_buf;

/* Every function axl calls; NULL when the library lacks it. */
struct axl__rsmi_fns {
	rsmi_status_t (*init)(uint64_t flags);
	rsmi_status_t (*version_get)(rsmi_version_t *v);
	rsmi_status_t (*version_str_get)(int component, char *buf, uint32_t len);
	rsmi_status_t (*num_monitor_devices)(uint32_t *n);
	rsmi_status_t (*dev_pci_id_get)(uint32_t dv, uint64_t *bdfid);
	/* uint16_t * since ROCm 3; axl passes a zeroed uint64_t (little-endian: the low
	 * half), which also holds what the oldest libraries wrote (uint64_t *) */
	rsmi_status_t (*dev_id_get)(uint32_t dv, uint16_t *id);
	rsmi_status_t (*dev_vendor_id_get)(uint32_t dv, uint16_t *id);
	rsmi_status_t (*dev_revision_get)(uint32_t dv, uint16_t *rev);
	rsmi_status_t (*dev_name_get)(uint32_t dv, char *buf, size_t len);
	rsmi_status_t (*dev_brand_get)(uint32_t dv, char *buf, uint32_t len);
	rsmi_status_t (*dev_serial_number_get)(uint32_t dv, char *buf, uint32_t len);
	rsmi_status_t (*dev_vbios_version_get)(uint32_t dv, char *buf, uint32_t len);
	rsmi_status_t (*dev_unique_id_get)(uint32_t dv, uint64_t *id);
	rsmi_status_t (*dev_memory_total_get)(uint32_t dv, int type, uint64_t *total);
	rsmi_status_t (*dev_memory_usage_get)(uint32_t dv, int type, uint64_t *used);
	/* microwatts */
	rsmi_status_t (*dev_power_cap_get)(uint32_t dv, uint32_t sensor, uint64_t *cap);
	rsmi_status_t (*dev_power_cap_default_get)(uint32_t dv, uint64_t *cap);
	rsmi_status_t (*dev_power_cap_range_get)(uint32_t dv, uint32_t sensor, uint64_t *max, uint64_t *min);
	/* rsmi_frequencies_t *: its layout depends on the library (above) */
	rsmi_status_t (*dev_gpu_clk_freq_get)(uint32_t dv, int clk, void *f);
	/* ROCm 6 (optional) */
	rsmi_status_t (*dev_compute_partition_get)(uint32_t dv, char *buf, uint32_t len);
	rsmi_status_t (*dev_memory_partition_get)(uint32_t dv, char *buf, uint32_t len);
	rsmi_status_t (*topo_get_numa_node_number)(uint32_t dv, uint32_t *node);
	rsmi_status_t (*topo_get_link_type)(uint32_t a, uint32_t b, uint64_t *hops, int *type);
	/* MB/s; "works if src and dst are connected via xgmi and have 1 hop distance" */
	rsmi_status_t (*minmax_bandwidth_get)(uint32_t a, uint32_t b, uint64_t *min, uint64_t *max);
	rsmi_status_t (*is_p2p_accessible)(uint32_t a, uint32_t b, bool *accessible);
	/* present only in ROCm 6 and later: tells the two layouts apart when
	 * rsmi_version_get answers 1.x (Debian's 5.7 build and ROCm 7.2 both do) */
	void *dev_activity_metric_get;
};

#define AXL_RSMI_STR 256 /* the buffer rocm-smi itself hands to the string calls */

#endif
