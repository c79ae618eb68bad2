/* SPDX-License-Identifier: MIT */
/*
 * AMD's ROCm SMI library (librocm_smi64.so.N): the part axl calls (lib/backend/amd: the
 * rocm-smi enrichment and its capture/replay), declared once. It mirrors rocm_smi.h
 * (ROCm/rocm_smi_lib include/rocm_smi/rocm_smi.h) of ROCm 5.2.3, as Debian 12's
 * librocm-smi-dev 5.2.3 ships it; tests/vendorabi compares it with that header.
 *
 * Versions: rocm_smi.h carries none a compiler can read (Debian's rocm_smi64Config.h says
 * 1.0.0, the library's own SONAME), so the version here is the ROCm release of the header:
 * major * 10000 + minor * 100 + patch (50203 is ROCm 5.2.3; the comparison passes it as
 * the header's version). Declarations from later releases sit under AXL_ABI_HAVE(<ROCm
 * release>), naming the release whose rocm_smi.h added them (the rocm-<x.y.z> tags of
 * rocm_smi_lib).
 *
 * One layout changed without a new symbol: rsmi_frequencies_t gained a leading
 * `bool has_deep_sleep` and a 33rd level (RSMI_MAX_NUM_FREQUENCIES 32 -> 33) in ROCm 6.0,
 * and rsmi_dev_gpu_clk_freq_get writes whichever layout its library was built with. Both
 * layouts are declared below, once each; rsmi_frequencies_t is the one of the header's
 * release (ROCm 6's in a build), and lib/backend/amd picks one at run time from the
 * library's rsmi_version_get (rsmi_call.c). LP64 only.
 */
#ifndef AXL_ABI_AMD_RSMI_H
#define AXL_ABI_AMD_RSMI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/abi.h"

/* ---- status codes ---- */
typedef enum {
	RSMI_STATUS_SUCCESS = 0x0,
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
#if AXL_ABI_HAVE(50600)
	/* rocm_smi.h of ROCm 5.6 */
	RSMI_STATUS_SETTING_UNAVAILABLE = 18,
	RSMI_STATUS_AMDGPU_RESTART_ERR = 19,
#endif
#if AXL_ABI_HAVE(60400)
	/* rocm_smi.h of ROCm 6.4 (the rocm-systems tree; 6.4.1 for the two load errors) */
	RSMI_STATUS_DRM_ERROR = 20,
	RSMI_STATUS_FAIL_LOAD_MODULE = 21,
	RSMI_STATUS_FAIL_LOAD_SYMBOL = 22,
#endif
	RSMI_STATUS_UNKNOWN_ERROR = 0xFFFFFFFF
} rsmi_status_t;
_Static_assert(sizeof(rsmi_status_t) == 4, "rsmi_status_t is an unsigned int");

/* ---- enumerations: the members axl uses ---- */
typedef enum {
	RSMI_SW_COMP_FIRST = 0x0,
	RSMI_SW_COMP_DRIVER = 0x0,
	RSMI_SW_COMP_LAST = 0x0
} rsmi_sw_component_t;

typedef enum {
	RSMI_CLK_TYPE_SYS = 0x0,
	RSMI_CLK_TYPE_DF = 1,
	RSMI_CLK_TYPE_DCEF = 2,
	RSMI_CLK_TYPE_SOC = 3,
	RSMI_CLK_TYPE_MEM = 4,
	RSMI_CLK_INVALID = 0xFFFFFFFF
} rsmi_clk_type_t;

typedef enum {
	RSMI_MEM_TYPE_VRAM = 0,
	RSMI_MEM_TYPE_VIS_VRAM = 1,
	RSMI_MEM_TYPE_GTT = 2
} rsmi_memory_type_t;

typedef enum _RSMI_IO_LINK_TYPE {
	RSMI_IOLINK_TYPE_UNDEFINED = 0,
	RSMI_IOLINK_TYPE_PCIEXPRESS = 1,
	RSMI_IOLINK_TYPE_XGMI = 2,
	RSMI_IOLINK_TYPE_SIZE = 0xFFFFFFFF
} RSMI_IO_LINK_TYPE;

/* ---- structures ---- */
typedef struct {
	uint32_t major;
	uint32_t minor;
	uint32_t patch;
	const char *build;
} rsmi_version_t;

/* rsmi_frequencies_t, as ROCm 5 and as ROCm 6.0 and later lay it out (function-like, so
 * that each layout is written once and named where it is used) */
#define AXL_RSMI_FREQUENCIES_ROCM5()         \
	struct {                             \
		uint32_t num_supported;      \
		uint32_t current;            \
		uint64_t frequency[32];      \
	}
#define AXL_RSMI_FREQUENCIES_ROCM6()         \
	struct {                             \
		bool has_deep_sleep;         \
		uint32_t num_supported;      \
		uint32_t current;            \
		uint64_t frequency[33];      \
	}
#if AXL_ABI_HAVE(60000)
/* rocm_smi.h of ROCm 6.0: level 0 may be the deep-sleep clock ("S:" in pp_dpm_*) */
#define RSMI_MAX_NUM_FREQUENCIES 33
typedef AXL_RSMI_FREQUENCIES_ROCM6() rsmi_frequencies_t;
_Static_assert(sizeof(rsmi_frequencies_t) == 280, "rsmi_frequencies_t (ROCm 6)");
#else
#define RSMI_MAX_NUM_FREQUENCIES 32
typedef AXL_RSMI_FREQUENCIES_ROCM5() rsmi_frequencies_t;
_Static_assert(sizeof(rsmi_frequencies_t) == 264, "rsmi_frequencies_t (ROCm 5)");
#endif

#if AXL_ABI_HAVE(60000)
/* rocm_smi.h of ROCm 6.0 */
typedef enum {
	RSMI_ACTIVITY_GFX = (0x1 << 0),
	RSMI_ACTIVITY_UMC = (0x1 << 1),
	RSMI_ACTIVITY_MM = (0x1 << 2)
} rsmi_activity_metric_t;
typedef struct {
	uint16_t average_gfx_activity;
	uint16_t average_umc_activity;
	uint16_t average_mm_activity;
} rsmi_activity_metric_counter_t;
#endif

/* ---- initialisation, versions ---- */
rsmi_status_t rsmi_init(uint64_t init_flags);
rsmi_status_t rsmi_version_get(rsmi_version_t *version);
rsmi_status_t rsmi_version_str_get(rsmi_sw_component_t component, char *ver_str, uint32_t len);
rsmi_status_t rsmi_num_monitor_devices(uint32_t *num_devices);

/* ---- identification ---- */
rsmi_status_t rsmi_dev_pci_id_get(uint32_t dv_ind, uint64_t *bdfid);
rsmi_status_t rsmi_dev_id_get(uint32_t dv_ind, uint16_t *id);
rsmi_status_t rsmi_dev_vendor_id_get(uint32_t dv_ind, uint16_t *id);
rsmi_status_t rsmi_dev_name_get(uint32_t dv_ind, char *name, size_t len);
rsmi_status_t rsmi_dev_brand_get(uint32_t dv_ind, char *brand, uint32_t len);
rsmi_status_t rsmi_dev_serial_number_get(uint32_t dv_ind, char *serial_num, uint32_t len);
rsmi_status_t rsmi_dev_vbios_version_get(uint32_t dv_ind, char *vbios, uint32_t len);
rsmi_status_t rsmi_dev_unique_id_get(uint32_t dv_ind, uint64_t *id);
#if AXL_ABI_HAVE(60000)
/* rocm_smi.h of ROCm 6.0 */
rsmi_status_t rsmi_dev_revision_get(uint32_t dv_ind, uint16_t *revision);
#endif

/* ---- memory, power, clocks ---- */
rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv_ind, rsmi_memory_type_t mem_type, uint64_t *total);
rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv_ind, rsmi_memory_type_t mem_type, uint64_t *used);
rsmi_status_t rsmi_dev_power_cap_get(uint32_t dv_ind, uint32_t sensor_ind, uint64_t *cap);
rsmi_status_t rsmi_dev_power_cap_default_get(uint32_t dv_ind, uint64_t *default_cap);
rsmi_status_t rsmi_dev_power_cap_range_get(uint32_t dv_ind, uint32_t sensor_ind, uint64_t *max, uint64_t *min);
rsmi_status_t rsmi_dev_gpu_clk_freq_get(uint32_t dv_ind, rsmi_clk_type_t clk_type, rsmi_frequencies_t *f);
#if AXL_ABI_HAVE(60000)
/* rocm_smi.h of ROCm 6.0 */
rsmi_status_t rsmi_dev_activity_metric_get(uint32_t dv_ind, rsmi_activity_metric_t activity_metric_type,
					   rsmi_activity_metric_counter_t *activity_metric_counter);
#endif

/* ---- partitions ---- */
#if AXL_ABI_HAVE(50500)
/* rocm_smi.h of ROCm 5.5 */
rsmi_status_t rsmi_dev_compute_partition_get(uint32_t dv_ind, char *compute_partition, uint32_t len);
#endif
#if AXL_ABI_HAVE(60000)
/* rocm_smi.h of ROCm 6.0 */
rsmi_status_t rsmi_dev_memory_partition_get(uint32_t dv_ind, char *memory_partition, uint32_t len);
#endif

/* ---- topology ---- */
rsmi_status_t rsmi_topo_get_numa_node_number(uint32_t dv_ind, uint32_t *numa_node);
rsmi_status_t rsmi_topo_get_link_type(uint32_t dv_ind_src, uint32_t dv_ind_dst, uint64_t *hops,
				      RSMI_IO_LINK_TYPE *type);
rsmi_status_t rsmi_minmax_bandwidth_get(uint32_t dv_ind_src, uint32_t dv_ind_dst, uint64_t *min_bandwidth,
					uint64_t *max_bandwidth);
rsmi_status_t rsmi_is_P2P_accessible(uint32_t dv_ind_src, uint32_t dv_ind_dst, bool *accessible);

#endif
