/* SPDX-License-Identifier: MIT */
/* ai-hwaccel's device and interconnect kinds against axl's (hwaccel.h): a table of data.
 * The variants are the crate's own, as its serde derive spells them: src/hardware/mod.rs
 * (AcceleratorType), src/hardware/{tpu,gaudi,neuron}.rs (TpuVersion, GaudiGeneration,
 * NeuronChipType) and src/system_io.rs (InterconnectKind) of MacCracken/ai-hwaccel at
 * commit 1db91af878a32f9ebdb0c7aa1af18e5151e5ba73 (version 1.2.0, registry
 * SCHEMA_VERSION 3, the last Rust release). The families are the crate's family()
 * (AiAsic is axl's "asic"); the vendors and id prefixes are axl's own backends'
 * (axl list --json), so a registry's devices are named as axl names the same devices.
 * Schema 4 and later are the Cyrius port's (the same repository from 2.3, at commit
 * dd58800cd96a055027a17e33884f466009b669f3, 2.3.18, SCHEMA_VERSION 5): the display names
 * are accel_name() and ick_name(), the type ids the AcceleratorType enum's values, of
 * src/types.cyr and src/system_io.cyr; its generations are enum values in the order of
 * the Rust variants (TpuVersion V4 V5e V5p, GaudiGeneration, NeuronChipType), so one list
 * serves both. Windows GPU and AGNOS GPU are the port's own (no Rust variant). */
#include <string.h>

#include "axl.h"
#include "hwaccel.h"

static const char *const tpu_versions[] = {"V4", "V5e", "V5p", NULL};
static const char *const gaudi_generations[] = {"Gaudi2", "Gaudi3", NULL};
static const char *const neuron_chips[] = {"Inferentia", "Trainium", NULL};

static const struct axl__hwaccel_kind kinds[] = {
	{"Cpu", AXL_FAMILY_CPU, "", "cpu", "", NULL, NULL, NULL, 1, "CPU", 0, NULL, NULL},
	{"CudaGpu", AXL_FAMILY_GPU, "NVIDIA", "nvidia", "", NULL, NULL, NULL, 0, "CUDA GPU", 1, NULL, NULL},
	{"RocmGpu", AXL_FAMILY_GPU, "AMD", "amdgpu", "", NULL, NULL, NULL, 0, "ROCm GPU", 2, NULL, NULL},
	{"MetalGpu", AXL_FAMILY_GPU, "Apple", "metal", "Apple GPU", NULL, NULL, NULL, 1, "Metal GPU", 3, NULL, NULL},
	{"VulkanGpu", AXL_FAMILY_GPU, "", "vulkan", "", NULL, NULL, NULL, 0, "Vulkan GPU", 4, NULL, NULL},
	{"IntelNpu", AXL_FAMILY_NPU, "Intel", "intelnpu", "Intel NPU", NULL, NULL, NULL, 1, "Intel NPU", 5, NULL, NULL},
	{"AmdXdnaNpu", AXL_FAMILY_NPU, "AMD", "amdxdna", "AMD XDNA NPU", NULL, NULL, NULL, 0, "AMD XDNA NPU", 6, NULL,
	 NULL},
	{"AppleNpu", AXL_FAMILY_NPU, "Apple", "ane", "Apple Neural Engine", NULL, NULL, NULL, 1, "Apple Neural Engine",
	 7, NULL, NULL},
	{"Tpu", AXL_FAMILY_TPU, "Google", "tpu", "TPU", "version", tpu_versions, "chip_count", 0, "TPU", 8,
	 "tpu_version", "tpu_chips"},
	{"Gaudi", AXL_FAMILY_ASIC, "Habana", "habana", "Gaudi", "generation", gaudi_generations, NULL, 0,
	 "Intel Gaudi", 9, "gaudi_gen", NULL},
	{"AwsNeuron", AXL_FAMILY_ASIC, "AWS", "neuron", "Neuron", "chip_type", neuron_chips, "core_count", 0,
	 "AWS Neuron", 10, "neuron_chip", "neuron_cores"},
	{"QualcommAi100", AXL_FAMILY_ASIC, "Qualcomm", "qaic", "Cloud AI 100", NULL, NULL, NULL, 0,
	 "Qualcomm Cloud AI 100", 11, NULL, NULL},
	{"IntelOneApi", AXL_FAMILY_GPU, "Intel", "intel", "", NULL, NULL, NULL, 0, "Intel oneAPI GPU", 12, NULL, NULL},
	{"CerebrasWse", AXL_FAMILY_ASIC, "Cerebras", "cerebras", "Cerebras WSE", NULL, NULL, NULL, 0, "Cerebras WSE",
	 13, NULL, NULL},
	{"GraphcoreIpu", AXL_FAMILY_ASIC, "Graphcore", "accel", "Graphcore IPU", NULL, NULL, NULL, 0,
	 "Graphcore IPU", 14, NULL, NULL},
	{"GroqLpu", AXL_FAMILY_ASIC, "Groq", "groq", "Groq LPU", NULL, NULL, NULL, 0, "Groq LPU", 15, NULL, NULL},
	{"SamsungNpu", AXL_FAMILY_NPU, "Samsung", "samsungnpu", "Samsung NPU", NULL, NULL, NULL, 0, "Samsung NPU", 16,
	 NULL, NULL},
	{"MediaTekApu", AXL_FAMILY_NPU, "MediaTek", "mediatekapu", "MediaTek APU", NULL, NULL, NULL, 0,
	 "MediaTek APU", 17, NULL, NULL},
	/* the Cyrius port's own: a GPU seen through the OS, vendor not said */
	{NULL, AXL_FAMILY_GPU, "", "gpu", "", NULL, NULL, NULL, 0, "Windows GPU", 18, NULL, NULL},
	{NULL, AXL_FAMILY_GPU, "", "gpu", "", NULL, NULL, NULL, 0, "AGNOS GPU", 19, NULL, NULL},
};

/* InterconnectKind: the device fabrics join every device of their prefix; InfiniBand
 * and RoCE are the node's NICs (the network between nodes) */
static const struct axl__hwaccel_link links[] = {
	{"NVLink", "NVLink", "nvlink", "nvidia", 0},
	{"NVSwitch", "NVSwitch", "nvswitch", "nvidia", 0},
	{"XgmiInfinityFabric", "XGMI", "xgmi", "amdgpu", 0},
	{"Ici", "ICI", "ici", "tpu", 0},
	{"InfiniBand", "InfiniBand", NULL, NULL, 1},
	{"RoCE", "RoCE", NULL, NULL, 1},
	{"RoCEv2", "RoCE v2", NULL, NULL, 1},
	/* the port's: the host's PCIe, already each device's path; neither fabric nor NIC */
	{NULL, "PCIe", NULL, NULL, 0},
};

const struct axl__hwaccel_kind *axl__hwaccel_kind_find(const char *variant)
{
	for (size_t i = 0; variant && i < sizeof kinds / sizeof *kinds; i++)
		if (kinds[i].variant && !strcmp(kinds[i].variant, variant))
			return &kinds[i];
	return NULL;
}

const struct axl__hwaccel_kind *axl__hwaccel_kind_display(const char *name)
{
	for (size_t i = 0; name && i < sizeof kinds / sizeof *kinds; i++)
		if (!strcmp(kinds[i].display, name))
			return &kinds[i];
	return NULL;
}

const struct axl__hwaccel_kind *axl__hwaccel_kind_type(long long type_id)
{
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (kinds[i].type_id == type_id)
			return &kinds[i];
	return NULL;
}

size_t axl__hwaccel_kind_count(void)
{
	return sizeof kinds / sizeof *kinds;
}

const struct axl__hwaccel_kind *axl__hwaccel_kind_at(size_t i)
{
	return i < sizeof kinds / sizeof *kinds ? &kinds[i] : NULL;
}

const struct axl__hwaccel_link *axl__hwaccel_link_find(const char *name, int display)
{
	for (size_t i = 0; name && i < sizeof links / sizeof *links; i++) {
		const char *n = display ? links[i].display : links[i].variant;
		if (n && !strcmp(n, name))
			return &links[i];
	}
	return NULL;
}
