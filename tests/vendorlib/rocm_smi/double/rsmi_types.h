/* SPDX-License-Identifier: MIT */
/*
 * The ROCm SMI types, codes and entry points the double (librocm_smi64.so.N) implements,
 * written for it from ROCm SMI's public header (ROCm/rocm_smi_lib
 * include/rocm_smi/rocm_smi.h, at the rocm-5.2.3, rocm-5.7.1 and rocm-6.2.2 tags): the
 * real names, types and values, and only those the double uses. Independent of axl's
 * src/abi/amd/rsmi.h on purpose: tests/vendorabi compares both with the real header
 * (vendorabi.double.rsmi, vendorabi.rsmi), two witnesses.
 *
 * Declarations newer than ROCm 5.2.3 sit under AXL_ABI_HAVE(<ROCm release>): major *
 * 10000 + minor * 100 + patch, the release whose header added them. The comparison defines
 * AXL_ABI_HEADER_VERSION to the real header's release; the old build (RSMI_DOUBLE_OLD) is
 * ROCm 5.7.1's library, the current one ROCm 6's.
 */
#ifndef AXL_TESTS_RSMI_TYPES_H
#define AXL_TESTS_RSMI_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef AXL_ABI_HEADER_VERSION
#define AXL_ABI_HAVE(version) (AXL_ABI_HEADER_VERSION >= (version))
#elif defined(RSMI_DOUBLE_OLD)
#define AXL_ABI_HAVE(version) (50701 >= (version))
#else
#define AXL_ABI_HAVE(version) 1
#endif

typedef enum {
  RSMI_STATUS_SUCCESS = 0x0,
  RSMI_STATUS_INVALID_ARGS,
  RSMI_STATUS_NOT_SUPPORTED,
  RSMI_STATUS_FILE_ERROR,
  RSMI_STATUS_PERMISSION,
  RSMI_STATUS_OUT_OF_RESOURCES,
  RSMI_STATUS_INTERNAL_EXCEPTION,
  RSMI_STATUS_INPUT_OUT_OF_BOUNDS,
  RSMI_STATUS_INIT_ERROR,
  RSMI_STATUS_NOT_YET_IMPLEMENTED,
  RSMI_STATUS_NOT_FOUND,
  RSMI_STATUS_INSUFFICIENT_SIZE,
  RSMI_STATUS_INTERRUPT,
  RSMI_STATUS_UNEXPECTED_SIZE,
  RSMI_STATUS_NO_DATA,
  RSMI_STATUS_UNEXPECTED_DATA,
  RSMI_STATUS_BUSY,
  RSMI_STATUS_REFCOUNT_OVERFLOW,
#if AXL_ABI_HAVE(50600)
  RSMI_STATUS_SETTING_UNAVAILABLE,
  RSMI_STATUS_AMDGPU_RESTART_ERR,
#endif
#if AXL_ABI_HAVE(60400)
  RSMI_STATUS_DRM_ERROR,
  RSMI_STATUS_FAIL_LOAD_MODULE,
  RSMI_STATUS_FAIL_LOAD_SYMBOL,
#endif
  RSMI_STATUS_UNKNOWN_ERROR = 0xFFFFFFFF
} rsmi_status_t;

typedef enum {
  RSMI_SW_COMP_FIRST = 0x0,
  RSMI_SW_COMP_DRIVER = RSMI_SW_COMP_FIRST,
  RSMI_SW_COMP_LAST = RSMI_SW_COMP_DRIVER
} rsmi_sw_component_t;

typedef enum {
  RSMI_CLK_TYPE_SYS = 0x0,
  RSMI_CLK_TYPE_FIRST = RSMI_CLK_TYPE_SYS,
  RSMI_CLK_TYPE_DF,
  RSMI_CLK_TYPE_DCEF,
  RSMI_CLK_TYPE_SOC,
  RSMI_CLK_TYPE_MEM,
  RSMI_CLK_TYPE_PCIE,
  RSMI_CLK_TYPE_LAST = RSMI_CLK_TYPE_MEM,
  RSMI_CLK_INVALID = 0xFFFFFFFF
} rsmi_clk_type_t;

typedef enum {
  RSMI_MEM_TYPE_FIRST = 0,
  RSMI_MEM_TYPE_VRAM = RSMI_MEM_TYPE_FIRST,
  RSMI_MEM_TYPE_VIS_VRAM,
  RSMI_MEM_TYPE_GTT,
  RSMI_MEM_TYPE_LAST = RSMI_MEM_TYPE_GTT
} rsmi_memory_type_t;

typedef enum _RSMI_IO_LINK_TYPE {
  RSMI_IOLINK_TYPE_UNDEFINED = 0,
  RSMI_IOLINK_TYPE_PCIEXPRESS = 1,
  RSMI_IOLINK_TYPE_XGMI = 2,
  RSMI_IOLINK_TYPE_NUMIOLINKTYPES,
  RSMI_IOLINK_TYPE_SIZE = 0xFFFFFFFF
} RSMI_IO_LINK_TYPE;

typedef struct {
  uint32_t major;
  uint32_t minor;
  uint32_t patch;
  const char *build;
} rsmi_version_t;

#if AXL_ABI_HAVE(60000)
/* ROCm 6.0: a deep-sleep level ahead of the 32 */
#define RSMI_MAX_NUM_FREQUENCIES 33
typedef struct {
  bool has_deep_sleep;
  uint32_t num_supported;
  uint32_t current;
  uint64_t frequency[RSMI_MAX_NUM_FREQUENCIES];
} rsmi_frequencies_t;
_Static_assert(sizeof(rsmi_frequencies_t) == 280, "ROCm 6 rsmi_frequencies_t");
#else
#define RSMI_MAX_NUM_FREQUENCIES 32
typedef struct {
  uint32_t num_supported;
  uint32_t current;
  uint64_t frequency[RSMI_MAX_NUM_FREQUENCIES];
} rsmi_frequencies_t;
_Static_assert(sizeof(rsmi_frequencies_t) == 264, "ROCm 5 rsmi_frequencies_t");
#endif

#if AXL_ABI_HAVE(60000)
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

rsmi_status_t rsmi_init(uint64_t init_flags);
rsmi_status_t rsmi_shut_down(void);
rsmi_status_t rsmi_status_string(rsmi_status_t status, const char **status_string);
rsmi_status_t rsmi_version_get(rsmi_version_t *version);
rsmi_status_t rsmi_version_str_get(rsmi_sw_component_t component, char *ver_str, uint32_t len);
rsmi_status_t rsmi_num_monitor_devices(uint32_t *num_devices);
rsmi_status_t rsmi_dev_pci_id_get(uint32_t dv_ind, uint64_t *bdfid);
rsmi_status_t rsmi_dev_id_get(uint32_t dv_ind, uint16_t *id);
rsmi_status_t rsmi_dev_vendor_id_get(uint32_t dv_ind, uint16_t *id);
rsmi_status_t rsmi_dev_name_get(uint32_t dv_ind, char *name, size_t len);
rsmi_status_t rsmi_dev_brand_get(uint32_t dv_ind, char *brand, uint32_t len);
rsmi_status_t rsmi_dev_vendor_name_get(uint32_t dv_ind, char *name, size_t len);
rsmi_status_t rsmi_dev_serial_number_get(uint32_t dv_ind, char *serial_num, uint32_t len);
rsmi_status_t rsmi_dev_vbios_version_get(uint32_t dv_ind, char *vbios, uint32_t len);
rsmi_status_t rsmi_dev_unique_id_get(uint32_t dv_ind, uint64_t *id);
rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv_ind, rsmi_memory_type_t mem_type, uint64_t *total);
rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv_ind, rsmi_memory_type_t mem_type, uint64_t *used);
rsmi_status_t rsmi_dev_power_cap_get(uint32_t dv_ind, uint32_t sensor_ind, uint64_t *cap);
rsmi_status_t rsmi_dev_power_cap_default_get(uint32_t dv_ind, uint64_t *default_cap);
rsmi_status_t rsmi_dev_power_cap_range_get(uint32_t dv_ind, uint32_t sensor_ind, uint64_t *max, uint64_t *min);
rsmi_status_t rsmi_dev_gpu_clk_freq_get(uint32_t dv_ind, rsmi_clk_type_t clk_type, rsmi_frequencies_t *f);
rsmi_status_t rsmi_topo_get_numa_node_number(uint32_t dv_ind, uint32_t *numa_node);
#if AXL_ABI_HAVE(60000)
/* ROCm 6.0 made the node signed (-1: none) */
rsmi_status_t rsmi_topo_numa_affinity_get(uint32_t dv_ind, int32_t *numa_node);
#else
rsmi_status_t rsmi_topo_numa_affinity_get(uint32_t dv_ind, uint32_t *numa_node);
#endif
rsmi_status_t rsmi_dev_xgmi_hive_id_get(uint32_t dv_ind, uint64_t *hive_id);
rsmi_status_t rsmi_topo_get_link_type(uint32_t dv_ind_src, uint32_t dv_ind_dst, uint64_t *hops,
                                      RSMI_IO_LINK_TYPE *type);
rsmi_status_t rsmi_topo_get_link_weight(uint32_t dv_ind_src, uint32_t dv_ind_dst, uint64_t *weight);
rsmi_status_t rsmi_minmax_bandwidth_get(uint32_t dv_ind_src, uint32_t dv_ind_dst, uint64_t *min_bandwidth,
                                        uint64_t *max_bandwidth);
rsmi_status_t rsmi_is_P2P_accessible(uint32_t dv_ind_src, uint32_t dv_ind_dst, bool *accessible);
#if AXL_ABI_HAVE(50500)
rsmi_status_t rsmi_dev_compute_partition_get(uint32_t dv_ind, char *compute_partition, uint32_t len);
#endif
#if AXL_ABI_HAVE(60000)
rsmi_status_t rsmi_dev_revision_get(uint32_t dv_ind, uint16_t *revision);
rsmi_status_t rsmi_dev_memory_partition_get(uint32_t dv_ind, char *memory_partition, uint32_t len);
rsmi_status_t rsmi_dev_activity_metric_get(uint32_t dv_ind, rsmi_activity_metric_t activity_metric_type,
                                           rsmi_activity_metric_counter_t *activity_metric_counter);
#endif

#endif
