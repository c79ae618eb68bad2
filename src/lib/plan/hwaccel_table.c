/* SPDX-License-Identifier: MIT */
/* ai-hwaccel's device and interconnect kinds against axl's (hwaccel.h): a table of data.
 * The variants are the crate's own, as its serde derive spells them: src/hardware/mod.rs
 * (AcceleratorType), src/hardware/{tpu,gaudi,neuron}.rs (TpuVersion, GaudiGeneration,
 * NeuronChipType) and src/system_io.rs (InterconnectKind) of MacCracken/ai-hwaccel at
 * commit 1db91af878a32f9ebdb0c7aa1af18e5151e5ba73 (version 1.2.0, registry
 * SCHEMA_VERSION 3, the last Rust release). The families are the crate's family()
 * (AiAsic is axl's "asic"); the vendors and id prefixes are axl's own backends'
 * (axl list --json), so a registry's devices are named as axl names the same devices. */
#include <string.h>

#include "axl.h"
#include "hwaccel.h"

static const char *const tpu_versions[] = {"V4", "V5e", "V5p", NULL};
static const char *const gaudi_generations[] = {"Gaudi2", "Gaudi3", NULL};
static const char *const neuron_chips[] = {"Inferentia", "Trainium", NULL};

static const struct axl__hwaccel_kind kinds[] = {
	{"Cpu", AXL_FAMILY_CPU, "", "cpu", "", NULL, NULL, NULL, 1},
	{"CudaGpu", AXL_FAMILY_GPU, "NVIDIA", "nvidia", "", NULL, NULL, NULL, 0},
	{"RocmGpu", AXL_FAMILY_GPU, "AMD", "amdgpu", "", NULL, NULL, NULL, 0},
	{"MetalGpu", AXL_FAMILY_GPU, "Apple", "metal", "Apple GPU", NULL, NULL, NULL, 1},
	{"VulkanGpu", AXL_FAMILY_GPU, "", "vulkan", "", NULL, NULL, NULL, 0},
	{"IntelNpu", AXL_FAMILY_NPU, "Intel", "intelnpu", "Intel NPU", NULL, NULL, NULL, 1},
	{"AmdXdnaNpu", AXL_FAMILY_NPU, "AMD", "amdxdna", "AMD XDNA NPU", NULL, NULL, NULL, 0},
	{"AppleNpu", AXL_FAMILY_NPU, "Apple", "ane", "Apple Neural Engine", NULL, NULL, NULL, 1},
	{"Tpu", AXL_FAMILY_TPU, "Google", "tpu", "TPU", "version", tpu_versions, "chip_count", 0},
	{"Gaudi", AXL_FAMILY_ASIC, "Habana", "habana", "Gaudi", "generation", gaudi_generations, NULL, 0},
	{"AwsNeuron", AXL_FAMILY_ASIC, "AWS", "neuron", "Neuron", "chip_type", neuron_chips, "core_count", 0},
	{"QualcommAi100", AXL_FAMILY_ASIC, "Qualcomm", "qaic", "Cloud AI 100", NULL, NULL, NULL, 0},
	{"IntelOneApi", AXL_FAMILY_GPU, "Intel", "intel", "", NULL, NULL, NULL, 0},
	{"CerebrasWse", AXL_FAMILY_ASIC, "Cerebras", "cerebras", "Cerebras WSE", NULL, NULL, NULL, 0},
	{"GraphcoreIpu", AXL_FAMILY_ASIC, "Graphcore", "accel", "Graphcore IPU", NULL, NULL, NULL, 0},
	{"GroqLpu", AXL_FAMILY_ASIC, "Groq", "groq", "Groq LPU", NULL, NULL, NULL, 0},
	{"SamsungNpu", AXL_FAMILY_NPU, "Samsung", "samsungnpu", "Samsung NPU", NULL, NULL, NULL, 0},
	{"MediaTekApu", AXL_FAMILY_NPU, "MediaTek", "mediatekapu", "MediaTek APU", NULL, NULL, NULL, 0},
};

/* InterconnectKind: the device fabrics join every device of their prefix; InfiniBand
 * and RoCE are the node's NICs (the network between nodes) */
static const struct axl__hwaccel_link links[] = {
	{"NVLink", "nvlink", "nvidia"},
	{"NVSwitch", "nvswitch", "nvidia"},
	{"XgmiInfinityFabric", "xgmi", "amdgpu"},
	{"Ici", "ici", "tpu"},
	{"InfiniBand", NULL, NULL},
	{"RoCE", NULL, NULL},
	{"RoCEv2", NULL, NULL},
};

const struct axl__hwaccel_kind *axl__hwaccel_kind_find(const char *variant)
{
	for (size_t i = 0; variant && i < sizeof kinds / sizeof *kinds; i++)
		if (!strcmp(kinds[i].variant, variant))
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

const struct axl__hwaccel_link *axl__hwaccel_link_find(const char *variant)
{
	for (size_t i = 0; variant && i < sizeof links / sizeof *links; i++)
		if (!strcmp(links[i].variant, variant))
			return &links[i];
	return NULL;
}
