/* SPDX-License-Identifier: MIT */
/*
 * The table of AMD's ROCm SMI (librocm_smi64.so.N) functions the rocm-smi enrichment
 * resolves with dlsym, and axl's own names around them. The types, constants and
 * prototypes are ROCm SMI's, declared once in src/abi/amd/rsmi.h (compared with Debian's
 * rocm_smi.h 5.2.3 by tests/vendorabi); each slot has its function's type. ROCm's own
 * header is not needed to build axl.
 *
 * rsmi_frequencies_t changed its layout in ROCm 6.0 without a new symbol (src/abi/amd/
 * rsmi.h): axl hands the library a buffer larger than either layout and reads it as the
 * one rsmi_call.c picks from rsmi_version_get.
 */
#ifndef AXL_RSMI_API_H
#define AXL_RSMI_API_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/amd/rsmi.h"

#define AXL_RSMI_FN(sym) __typeof__(&sym)

/* Not ROCm SMI's: "the library lacks this function" (an older ROCm), as NVML's
 * FUNCTION_NOT_FOUND. Never returned by the library; recorded as it is. */
#define AXL_RSMI_NO_FUNCTION 1000

/* rsmi_frequencies_t of ROCm 5 and of ROCm 6.0 and later, both (src/abi/amd/rsmi.h) */
typedef AXL_RSMI_FREQUENCIES_ROCM5() axl_rsmi_frequencies_v5;
typedef AXL_RSMI_FREQUENCIES_ROCM6() axl_rsmi_frequencies_v6;
#define AXL_RSMI_FREQ_V5 (sizeof(((axl_rsmi_frequencies_v5 *)0)->frequency) / sizeof(uint64_t))
#define AXL_RSMI_FREQ_V6 (sizeof(((axl_rsmi_frequencies_v6 *)0)->frequency) / sizeof(uint64_t))
static_assert(sizeof(axl_rsmi_frequencies_v5) == 264 && offsetof(axl_rsmi_frequencies_v5, frequency) == 8 &&
		      AXL_RSMI_FREQ_V5 == 32,
	      "rsmi_frequencies_t (ROCm 5)");
static_assert(sizeof(axl_rsmi_frequencies_v6) == 280 && offsetof(axl_rsmi_frequencies_v6, num_supported) == 4 &&
		      offsetof(axl_rsmi_frequencies_v6, current) == 8 &&
		      offsetof(axl_rsmi_frequencies_v6, frequency) == 16 && AXL_RSMI_FREQ_V6 == 33,
	      "rsmi_frequencies_t (ROCm 6)");
/* the library's own: one of the two */
static_assert(sizeof(rsmi_frequencies_t) == sizeof(axl_rsmi_frequencies_v5) ||
		      sizeof(rsmi_frequencies_t) == sizeof(axl_rsmi_frequencies_v6),
	      "rsmi_frequencies_t");

/* The buffer axl hands to rsmi_dev_gpu_clk_freq_get: larger than either layout, so a
 * library of the other generation cannot write past it. */
typedef union {
	axl_rsmi_frequencies_v5 v5;
	axl_rsmi_frequencies_v6 v6;
	rsmi_frequencies_t lib;
	unsigned char room[512];
} axl_rsmi_freq_buf;

/* Every function axl calls; NULL when the library lacks it. */
struct axl__rsmi_fns {
	AXL_RSMI_FN(rsmi_init) init;
	AXL_RSMI_FN(rsmi_version_get) version_get;
	AXL_RSMI_FN(rsmi_version_str_get) version_str_get;
	AXL_RSMI_FN(rsmi_num_monitor_devices) num_monitor_devices;
	AXL_RSMI_FN(rsmi_dev_pci_id_get) dev_pci_id_get;
	/* uint16_t * since ROCm 3; axl passes a zeroed uint64_t (little-endian: the low
	 * half), which also holds what the oldest libraries wrote (uint64_t *) */
	AXL_RSMI_FN(rsmi_dev_id_get) dev_id_get;
	AXL_RSMI_FN(rsmi_dev_vendor_id_get) dev_vendor_id_get;
	AXL_RSMI_FN(rsmi_dev_revision_get) dev_revision_get; /* ROCm 6.0 */
	AXL_RSMI_FN(rsmi_dev_name_get) dev_name_get;
	AXL_RSMI_FN(rsmi_dev_brand_get) dev_brand_get;
	AXL_RSMI_FN(rsmi_dev_serial_number_get) dev_serial_number_get;
	AXL_RSMI_FN(rsmi_dev_vbios_version_get) dev_vbios_version_get;
	AXL_RSMI_FN(rsmi_dev_unique_id_get) dev_unique_id_get;
	AXL_RSMI_FN(rsmi_dev_memory_total_get) dev_memory_total_get;
	AXL_RSMI_FN(rsmi_dev_memory_usage_get) dev_memory_usage_get;
	/* microwatts */
	AXL_RSMI_FN(rsmi_dev_power_cap_get) dev_power_cap_get;
	AXL_RSMI_FN(rsmi_dev_power_cap_default_get) dev_power_cap_default_get;
	AXL_RSMI_FN(rsmi_dev_power_cap_range_get) dev_power_cap_range_get;
	/* its rsmi_frequencies_t is the library's layout (above) */
	AXL_RSMI_FN(rsmi_dev_gpu_clk_freq_get) dev_gpu_clk_freq_get;
	AXL_RSMI_FN(rsmi_dev_compute_partition_get) dev_compute_partition_get; /* ROCm 5.5 */
	AXL_RSMI_FN(rsmi_dev_memory_partition_get) dev_memory_partition_get;   /* ROCm 6.0 */
	AXL_RSMI_FN(rsmi_topo_get_numa_node_number) topo_get_numa_node_number;
	AXL_RSMI_FN(rsmi_topo_get_link_type) topo_get_link_type;
	/* MB/s; "works if src and dst are connected via xgmi and have 1 hop distance" */
	AXL_RSMI_FN(rsmi_minmax_bandwidth_get) minmax_bandwidth_get;
	AXL_RSMI_FN(rsmi_is_P2P_accessible) is_p2p_accessible;
	/* ROCm 6.0 and later only, never called: its presence tells the two
	 * rsmi_frequencies_t layouts apart when rsmi_version_get answers 1.x (Debian's 5.7
	 * build and ROCm 7.2 both do) */
	AXL_RSMI_FN(rsmi_dev_activity_metric_get) dev_activity_metric_get;
};

#define AXL_RSMI_STR 256 /* the buffer rocm-smi itself hands to the string calls */

#endif
