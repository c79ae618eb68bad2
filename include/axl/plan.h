/* SPDX-License-Identifier: MIT */
/**
 * @file axl/plan.h
 * The planner (docs/plan.md): will a model fit on these devices, how should it be
 * split, and how fast will it run, from the model's architecture, the devices' memory,
 * bandwidth and peak throughput, and the links between them.
 *
 * A model comes from the built-in catalog (a Hugging Face repo id or a short alias), a
 * Hugging Face config.json, safetensors headers (a file or a sharded index; a
 * config.json beside them completes the architecture) or a GGUF header. Files are read
 * header-only and never trusted: a bad one is AXL_EPARSE with axl_error_last() naming
 * the problem.
 *
 * The devices are nodes: inventories opened here (axl_planner_add_inventory) or
 * `axl list --json` documents written on other machines (axl_planner_add_json). Plans
 * keep tensor parallelism inside one node (preferring an NVLink, NVSwitch or XGMI
 * domain) and pipeline stages across slower links and across nodes.
 *
 * Every estimate is below the roofline (memory bandwidth, peak compute, link bandwidth
 * at 100%): the efficiency factors and fixed costs it applies are in docs/plan.md.
 */
#ifndef AXL_PLAN_H
#define AXL_PLAN_H

#include "common.h"
#include "inventory.h"

AXL_BEGIN_DECLS

typedef struct axl_model axl_model;
typedef struct axl_planner axl_planner;
typedef struct axl_plan axl_plan;

/**
 * Describe a model: a catalog name (repo id such as "meta-llama/Llama-3.1-8B", with or
 * without "https://huggingface.co/", or an alias such as "llama3.1-8b"; without case;
 * an instruction-tuned or chat release of a catalog row, "...-Instruct", "...-it",
 * "...-chat-hf", is described as that row),
 * or a path to a config.json, a .safetensors file, a *.safetensors.index.json, a
 * directory holding them, or a .gguf file. AXL_ENOENT when it is neither a catalog name
 * nor a file; AXL_EPARSE (with the reason in axl_error_last()) for a bad file.
 */
AXL_API int axl_model_open(axl_model **out, const char *name_or_path);
AXL_API void axl_model_free(axl_model *model);

/** What a model description says. Counts are < 0 when the source does not give them. */
struct axl_model_info {
	const char *name;          /**< repo id or file name */
	const char *alias;         /**< short name; NULL when none */
	const char *architecture;  /**< "llama", "qwen3_moe", ...; NULL when not known */
	const char *source;        /**< "catalog", "config.json", "safetensors", "gguf" */
	const char *weights_dtype; /**< the dominant stored type ("BF16", "Q4_K"); NULL when not known */
	int64_t params;            /**< total parameters */
	int64_t active_params;     /**< read per token (MoE); == params for a dense model */
	int64_t layers;
	int64_t hidden;
	int64_t heads;
	int64_t kv_heads;
	int64_t head_dim;
	int64_t experts;           /**< routed experts; 0 dense */
	int64_t experts_per_token;
	int64_t max_context;
	const char *attention;     /**< "mha", "gqa", "mla"; NULL when not known */
	int64_t sliding_window;    /**< tokens; 0 none */
};
/** Fill *info (pointers valid while the model lives). */
AXL_API int axl_model_get_info(const axl_model *model, struct axl_model_info *info);

/** The catalog: i-th entry's repo id and alias; NULL past the end. After the catalog's
 *  rows come the instruction-tuned releases it lists (alias NULL): each opens as its base
 *  row (axl_model_catalog_entry). */
AXL_API size_t axl_model_catalog_count(void);
AXL_API const char *axl_model_catalog_id(size_t i);
AXL_API const char *axl_model_catalog_alias(size_t i);
/**
 * The catalog row a model opened by name was described from: its repo id, which is the
 * name's own for a catalog id or alias, and the base release's for an instruction-tuned
 * or chat name ("google/gemma-2-9b-it" -> "google/gemma-2-9b": the same architecture,
 * docs/plan.md). NULL for a model read from a file.
 */
AXL_API const char *axl_model_catalog_entry(const axl_model *model);

/** A set of nodes to plan on. */
AXL_API int axl_planner_new(axl_planner **out);
AXL_API void axl_planner_free(axl_planner *planner);
/** Add this node's accelerators. The CPU is planned on only as the node's host (host
 *  memory and its bandwidth, docs/plan.md "CPU plans"): when no node has an accelerator,
 *  or when the request's devices name it ("cpu"). name may be NULL (the host name is
 *  used). The planner copies what it needs: inv may be freed after. */
AXL_API int axl_planner_add_inventory(axl_planner *planner, const axl_inventory *inv, const char *name);
/** Add a node from an "axl.inventory" document (axl list --json). AXL_EPARSE with the
 *  reason for a document that is not one (or whose schema_version is not a positive
 *  integer); a later schema_version adds a warning (axl_planner_warning). */
AXL_API int axl_planner_add_json(axl_planner *planner, const char *text, size_t len, const char *name);
/** Add a node from ai-hwaccel's registry JSON (the Rust crate's AcceleratorRegistry as
 *  its serde derive writes it, schema_version 1 to 3; docs/plan.md "ai-hwaccel's
 *  registry"): its available profiles as devices, its CPU profile as the host, its
 *  fabrics as links. AXL_EPARSE naming the field for a registry serde would refuse; a
 *  later schema_version is read as far as understood with one warning. */
AXL_API int axl_planner_add_hwaccel_json(axl_planner *planner, const char *text, size_t len, const char *name);
/** Devices added so far. */
AXL_API size_t axl_planner_device_count(const axl_planner *planner);
/** What reading the nodes noticed without refusing them: an "axl.inventory" document of
 *  a later schema_version than this axl reads (read as far as understood) gives one
 *  warning, source "plan", path the node's name, message "schema_version 2 is newer than
 *  this axl reads (1); reading what it understands". Valid until the planner is freed. */
AXL_API size_t axl_planner_warning_count(const axl_planner *planner);
AXL_API const struct axl_warning *axl_planner_warning(const axl_planner *planner, size_t i);

/** 2 added engine and memory_fraction, objective and the prices; a caller built with
 *  version 1 (the struct without them) keeps working: the fields after network_gbps are
 *  read only at version >= 2. */
#define AXL_PLAN_REQUEST_VERSION 2
/** The largest context and batch a request may ask for. */
#define AXL_PLAN_MAX_CONTEXT (1LL << 28)
#define AXL_PLAN_MAX_BATCH 65536

/** What to plan. Zero-initialise, set version; 0/NULL fields take the defaults. */
struct axl_plan_request {
	unsigned version;          /**< AXL_PLAN_REQUEST_VERSION */
	/** Weights: "fp32", "bf16", "fp16", "fp8", "int8", "int4", "awq", "gptq", or a GGUF
	 *  type ("q4_k_m", "q8_0", ...), without case. NULL: the model's own (a file's
	 *  stored types; bf16 for the catalog and config.json). */
	const char *quantization;
	/** KV cache: "fp32", "bf16", "fp16", "fp8", "int8". NULL: bf16 (f16 for GGUF). */
	const char *kv_dtype;
	int64_t context_tokens;    /**< per sequence, up to AXL_PLAN_MAX_CONTEXT; 0: min(model's max context, 8192) */
	int64_t batch;             /**< concurrent sequences, up to AXL_PLAN_MAX_BATCH; 0: 1 */
	/** Devices to use: comma-separated ids ("nvidia:0,nvidia:1"), "node/id" to name a
	 *  node's device, or UUIDs. NULL: every device of every node. */
	const char *devices;
	/** Bandwidth between nodes, GB/s per direction; 0: the slowest node's fastest RDMA
	 *  NIC, else 12.5 (100 Gb/s Ethernet). */
	double network_gbps;
	/* ---- version 2 ---- */
	/** The serving engine the estimates are calibrated for: "vllm", "sglang", "trt-llm"
	 *  ("tensorrt-llm"), "llama.cpp", "pytorch" ("gpt-fast"), without case. NULL: "vllm".
	 *  AXL_EINVAL for another name (docs/plan.md "Calibration"). */
	const char *engine;
	/** The fraction of each device's memory the engine gives the model, 0 < f <= 1. 0: the
	 *  engine's default (vLLM 0.90, SGLang 0.88, TensorRT-LLM 0.90, llama.cpp and PyTorch
	 *  1). AXL_EINVAL outside (0, 1]. */
	double memory_fraction;
	/** What the plan optimises (docs/plan.md "Objective"), without case: "devices" (the
	 *  fewest devices that fit, then the fastest decode), "latency" (the fastest decode of
	 *  one sequence alone), "throughput" (the highest decode throughput for the batch),
	 *  "cost" (the lowest cost per million decoded tokens: needs a price). NULL: "devices". */
	const char *objective;
	/** Price per device-hour (any currency; docs/plan.md "Cost"); 0: not given. Negative,
	 *  infinite or NaN: AXL_EINVAL. */
	double price_per_device_hour;
	/** Price per node-hour (every node the plan uses is paid whole); 0: not given. */
	double price_per_node_hour;
};

/**
 * Plan: the best plan that fits by the request's objective (by default the fewest
 * devices, then the highest decode throughput), or, when nothing fits, how far short the
 * closest one is (no split and no estimate: axl_plan_get_summary gives tp 0 and unknown
 * rates); with ranked alternatives (other splits, other quantisations; when nothing fits,
 * what would: a fewer-bit format, a shorter context, more devices). AXL_EINVAL for an
 * unknown quantisation, KV type, engine or objective, or a device that is not there (every
 * option is checked before the devices); AXL_ENOENT for a planner without devices.
 */
AXL_API int axl_plan_compute(axl_plan **out, const axl_planner *planner, const axl_model *model,
			     const struct axl_plan_request *req);
AXL_API void axl_plan_free(axl_plan *plan);

/** The headline of a plan. */
struct axl_plan_summary {
	int fits;                  /**< 1 when the request fits */
	int64_t total_bytes;       /**< the whole deployment (one replica) */
	int64_t shortfall_bytes;   /**< 0 when it fits */
	int tp, pp, dp, ep;
	double decode_tokens_per_s;   /**< aggregate over the batch */
	double prefill_tokens_per_s;
	const char *bound;         /**< "memory-bandwidth", "compute", "interconnect" */
};
AXL_API int axl_plan_get_summary(const axl_plan *plan, struct axl_plan_summary *out);

/** The "axl.plan" document (schema/axl-plan.schema.json), malloc'ed, NUL-terminated;
 *  free with free(). */
AXL_API int axl_plan_json(const axl_plan *plan, char **out, size_t *len);
/** The readable answer `axl plan` prints, malloc'ed. */
AXL_API int axl_plan_text(const axl_plan *plan, char **out, size_t *len);

AXL_END_DECLS

#endif /* AXL_PLAN_H */
