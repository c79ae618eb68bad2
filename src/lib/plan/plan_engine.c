/* SPDX-License-Identifier: MIT */
/* The serving engines the planner estimates for (docs/plan.md "Calibration"):
 * one table of every calibrated factor, each with where it came from.
 *
 * The decode model a row of this table feeds (plan.c stage_time):
 *   t_step = bytes / (bandwidth x mem_eff[weight class]) + layers x layer_s
 *            (+ moe_layer_s per MoE layer) + collectives (alpha each) + hops
 * The factors were fitted to the published batch-1 measurements in
 * data/planner-calibration.tsv by least squares on t_measured (tests/cli/plan/
 * check_calibration.py recomputes the residuals with the real planner); band_lo and
 * band_hi are the 10th and 90th percentiles of measured / estimate on that engine's rows
 * after the fit. An engine without recorded measurements (rows 0) takes the factors of
 * the calibrated engine it is closest to, says so in `basis`, and gets the wider band of
 * the whole set. */
#include <stddef.h>
#include <strings.h>

#include "plan_impl.h"

static const struct axl__engine engines[] = {
	{
		/* gpt-fast and torchao (torch.compile, CUDA graphs): 26 rows on A100 and MI250X.
		 * Weight-only int8/int4 kernels dequantise in the GEMV and reach less of the
		 * bandwidth (torchao's README reports 1131 GB/s for int8wo and 751 GB/s for
		 * int4wo on an A100's 2039 GB/s). All-reduce over NVSwitch: the fit of the
		 * tp 2/4/8 rows. */
		.name = "pytorch",
		.mem_eff = {[AXL__WC_16] = 0.77, [AXL__WC_8] = 0.67, [AXL__WC_4] = 0.50, [AXL__WC_GGUF] = 0.50},
		.layer_s = 37e-6,
		.moe_layer_s = 0,
		.alpha_fabric = 12e-6,
		.alpha_pcie = 25e-6,
		.alpha_net = 30e-6,
		.memory_fraction = 1.0,
		.max_tp = MAXTP,
		.band_lo = 0.88,
		.band_hi = 1.05,
		.rows = 26,
		.basis = "fit to 26 gpt-fast and torchao measurements (data/planner-calibration.tsv)",
		.fraction_source = "PyTorch allocates what the model needs; no reserve",
	},
	{
		/* llama.cpp (CUDA, llama-bench tg): 44 rows compared on 12 GPUs (52 recorded: 8
		 * runs spread a model over more GPUs than it needs, a split the planner does not
		 * make, check_calibration.py). Its per-layer launch
		 * cost dominates small models on fast GPUs (an 8B model runs at 130-150 tok/s on
		 * a 4090, an A100 and an H100 alike). Splits layers across GPUs by default
		 * (-sm layer): no tensor parallelism. */
		.name = "llama.cpp",
		.mem_eff = {[AXL__WC_16] = 0.90, [AXL__WC_8] = 0.90, [AXL__WC_4] = 0.90, [AXL__WC_GGUF] = 0.90},
		.layer_s = 125e-6,
		.moe_layer_s = 0,
		.alpha_fabric = 20e-6,
		.alpha_pcie = 25e-6,
		.alpha_net = 30e-6,
		.memory_fraction = 1.0,
		.max_tp = 1,
		.band_lo = 0.82,
		.band_hi = 1.17,
		.rows = 44,
		.basis = "fit to 44 llama.cpp measurements (data/planner-calibration.tsv)",
		.fraction_source = "llama.cpp allocates the weights and the context's KV cache; no reserve fraction",
	},
	{
		.name = "vllm",
		.mem_eff = {[AXL__WC_16] = 0.77, [AXL__WC_8] = 0.67, [AXL__WC_4] = 0.50, [AXL__WC_GGUF] = 0.50},
		.layer_s = 37e-6,
		.moe_layer_s = 0,
		.alpha_fabric = 12e-6,
		.alpha_pcie = 25e-6,
		.alpha_net = 30e-6,
		.memory_fraction = 0.90,
		.max_tp = MAXTP,
		.band_lo = 0.70,
		.band_hi = 1.20,
		.rows = 0,
		.basis = "no vLLM measurement recorded: pytorch's factors (graph-captured decode)",
		.fraction_source = "vLLM's gpu_memory_utilization default, 0.90",
	},
	{
		.name = "sglang",
		.mem_eff = {[AXL__WC_16] = 0.77, [AXL__WC_8] = 0.67, [AXL__WC_4] = 0.50, [AXL__WC_GGUF] = 0.50},
		.layer_s = 37e-6,
		.moe_layer_s = 0,
		.alpha_fabric = 12e-6,
		.alpha_pcie = 25e-6,
		.alpha_net = 30e-6,
		.memory_fraction = 0.88,
		.max_tp = MAXTP,
		.band_lo = 0.70,
		.band_hi = 1.20,
		.rows = 0,
		.basis = "no SGLang measurement recorded: pytorch's factors (graph-captured decode)",
		.fraction_source =
			"assumed 0.88: SGLang picks mem_fraction_static from the GPU's memory when not given",
	},
	{
		.name = "trt-llm",
		.mem_eff = {[AXL__WC_16] = 0.77, [AXL__WC_8] = 0.67, [AXL__WC_4] = 0.50, [AXL__WC_GGUF] = 0.50},
		.layer_s = 37e-6,
		.moe_layer_s = 0,
		.alpha_fabric = 12e-6,
		.alpha_pcie = 25e-6,
		.alpha_net = 30e-6,
		.memory_fraction = 0.90,
		.max_tp = MAXTP,
		.band_lo = 0.70,
		.band_hi = 1.20,
		.rows = 0,
		.basis = "no TensorRT-LLM measurement recorded: pytorch's factors (graph-captured decode)",
		.fraction_source =
			"TensorRT-LLM's kv_cache_free_gpu_mem_fraction default, 0.90, taken of the whole memory",
	},
};

const struct axl__engine *axl__engine_find(const char *name)
{
	if (!name || !name[0])
		name = AXL__ENGINE_DEFAULT;
	/* the spellings users type */
	static const struct {
		const char *alias, *name;
	} aliases[] = {{"tensorrt-llm", "trt-llm"}, {"trtllm", "trt-llm"}, {"llamacpp", "llama.cpp"},
		       {"llama-cpp", "llama.cpp"}, {"torch", "pytorch"}, {"gpt-fast", "pytorch"}};
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (strcasecmp(name, aliases[i].alias) == 0)
			name = aliases[i].name;
	for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++)
		if (strcasecmp(name, engines[i].name) == 0)
			return &engines[i];
	return NULL;
}

const char *axl__engine_names(void)
{
	return "vllm, sglang, trt-llm, llama.cpp, pytorch";
}

enum axl__wclass axl__wclass_of(const struct axl__quant *q)
{
	if (q->gguf)
		return AXL__WC_GGUF;
	if (q->body_bits >= 12)
		return AXL__WC_16;
	if (q->body_bits >= 6)
		return AXL__WC_8;
	return AXL__WC_4;
}

/* The expected range of a decode estimate: the engine's residual percentiles, never
 * above the roofline; NaN when the estimate is unknown. */
void axl__engine_band(const struct axl__engine *e, double est, double roof, double out[2])
{
	out[0] = est * e->band_lo;
	out[1] = est * e->band_hi;
	if (roof == roof && out[1] > roof)
		out[1] = roof > est ? roof : est;
}

/* Prefill: no prefill measurement is recorded; an assumed range, also capped. */
void axl__prefill_band(double est, double roof, double out[2])
{
	out[0] = est * AXL__PREFILL_BAND_LO;
	out[1] = est * AXL__PREFILL_BAND_HI;
	if (roof == roof && out[1] > roof)
		out[1] = roof > est ? roof : est;
}
