/* SPDX-License-Identifier: MIT */
/* dcgm-exporter's families (prom_dcgm.h): data only, in the exporter's order. */
#include "prom_dcgm.h"

const struct axl__dcgm_family axl__dcgm_families[] = {
	{"DCGM_FI_DEV_SM_CLOCK", "gauge", AXL_METRIC_SM_CLOCK, 1, AXL__DCGM_PLAIN, "SM clock frequency (in MHz)."},
	{"DCGM_FI_DEV_MEM_CLOCK", "gauge", AXL_METRIC_MEMORY_CLOCK, 1, AXL__DCGM_PLAIN,
	 "Memory clock frequency (in MHz)."},
	{"DCGM_FI_DEV_MEMORY_TEMP", "gauge", AXL_METRIC_TEMPERATURE_MEMORY, 1, AXL__DCGM_PLAIN,
	 "Memory temperature (in C)."},
	{"DCGM_FI_DEV_GPU_TEMP", "gauge", AXL_METRIC_TEMPERATURE, 1, AXL__DCGM_PLAIN, "GPU temperature (in C)."},
	{"DCGM_FI_DEV_POWER_USAGE", "gauge", AXL_METRIC_POWER, 1, AXL__DCGM_PLAIN, "Power draw (in W)."},
	{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", AXL_METRIC_ENERGY, 1000, AXL__DCGM_PLAIN,
	 "Total energy consumption since boot (in mJ)."},
	{"DCGM_FI_DEV_PCIE_TX_THROUGHPUT", "gauge", AXL_METRIC_PCIE_TX, 1.0 / 1024, AXL__DCGM_PLAIN,
	 "PCIe TX throughput (in KB/s)."},
	{"DCGM_FI_DEV_PCIE_RX_THROUGHPUT", "gauge", AXL_METRIC_PCIE_RX, 1.0 / 1024, AXL__DCGM_PLAIN,
	 "PCIe RX throughput (in KB/s)."},
	{"DCGM_FI_DEV_GPU_UTIL", "gauge", AXL_METRIC_UTILIZATION, 1, AXL__DCGM_PLAIN, "GPU utilization (in %)."},
	{"DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", AXL_METRIC_MEMORY_UTILIZATION, 1, AXL__DCGM_PLAIN,
	 "Memory utilization (in %)."},
	{"DCGM_FI_DEV_ENC_UTIL", "gauge", AXL_METRIC_ENCODER_UTILIZATION, 1, AXL__DCGM_PLAIN,
	 "Encoder utilization (in %)."},
	{"DCGM_FI_DEV_DEC_UTIL", "gauge", AXL_METRIC_DECODER_UTILIZATION, 1, AXL__DCGM_PLAIN,
	 "Decoder utilization (in %)."},
	{"DCGM_FI_DEV_FB_FREE", "gauge", AXL_METRIC_MEMORY_TOTAL, 1.0 / 1048576, AXL__DCGM_FB_FREE,
	 "Framebuffer memory free (in MiB)."},
	{"DCGM_FI_DEV_FB_USED", "gauge", AXL_METRIC_MEMORY_USED, 1.0 / 1048576, AXL__DCGM_PLAIN,
	 "Framebuffer memory used (in MiB)."},
	{"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "counter", AXL_METRIC_ECC_CORRECTED, 1, AXL__DCGM_PLAIN,
	 "Total number of single-bit volatile ECC errors."},
	{"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", AXL_METRIC_ECC_UNCORRECTED, 1, AXL__DCGM_PLAIN,
	 "Total number of double-bit volatile ECC errors."},
	{"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "gauge", AXL_METRIC_THROTTLE_REASONS, 1, AXL__DCGM_THROTTLE,
	 "Current clock throttle reasons (bitmask of NVML clock event reasons)."},
	{"DCGM_FI_DEV_FAN_SPEED", "gauge", AXL_METRIC_FAN, 1, AXL__DCGM_PLAIN, "Fan speed (in %)."},
};

const size_t axl__dcgm_family_count = sizeof axl__dcgm_families / sizeof *axl__dcgm_families;
