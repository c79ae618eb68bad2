/* SPDX-License-Identifier: MIT */
/* Model descriptions for the planner: what a model is, from one of four
 * sources (the built-in catalog, a Hugging Face config.json, safetensors headers, a GGUF
 * header). Every count is < 0 when the source does not give it; 0 is a real zero (no
 * experts, no sliding window). */
#ifndef AXL_LIB_MODEL_H
#define AXL_LIB_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum axl__attn {
	AXL__ATTN_UNKNOWN = 0,
	AXL__ATTN_MHA, /* kv_heads == heads */
	AXL__ATTN_GQA, /* 1 <= kv_heads < heads (MQA is kv_heads 1) */
	AXL__ATTN_MLA, /* DeepSeek multi-head latent attention: the kv_lora_* fields */
};

enum axl__model_src {
	AXL__MSRC_CATALOG = 1,
	AXL__MSRC_CONFIG, /* config.json */
	AXL__MSRC_SAFETENSORS,
	AXL__MSRC_GGUF,
	AXL__MSRC_SIZE, /* a bare size ("7B"): a reference architecture (model_size.c) */
};

/* Weight storage of one dtype (safetensors) or quantisation type (GGUF). */
struct axl__model_dtype {
	char name[16];    /* "BF16", "F8_E4M3", "Q4_K", ... as the file names it */
	double bits;      /* bits per weight including block scales (Q4_K 4.5) */
	int64_t params;   /* elements stored with it */
	int64_t bytes;    /* bytes they take in the file */
};

#define AXL__MODEL_DTYPES_MAX 24

struct axl__model {
	enum axl__model_src source;
	char id[128];        /* Hugging Face repo id ("meta-llama/Llama-3.1-8B") or file name */
	char alias[48];      /* short name ("llama3.1-8b"); "" when none */
	/* the catalog row described from (source CATALOG): == id, or the base release's id
	 * for an instruction-tuned/chat name resolved to it; "" for a file */
	char catalog_id[128];
	char arch[48];       /* config "model_type" / GGUF general.architecture ("llama") */
	int layers;          /* num_hidden_layers */
	int hidden;          /* hidden_size */
	int heads;           /* num_attention_heads */
	int kv_heads;        /* num_key_value_heads (== heads for MHA) */
	int head_dim;        /* per head (hidden / heads unless the config says otherwise) */
	int intermediate;    /* dense MLP intermediate_size */
	int64_t vocab;       /* vocab_size */
	bool tied_embeddings;/* tie_word_embeddings */
	int max_context;     /* max_position_embeddings */
	enum axl__attn attn;
	/* sliding-window attention: window tokens, and how many of the layers use it
	 * (Gemma 2: every other layer; Gemma 3: 5 of 6; Mistral 7B v0.1: all) */
	int sliding_window;
	int sliding_layers;
	/* mixture of experts: routed experts, experts per token, shared experts, the
	 * experts' intermediate size, and the first layers that stay dense (DeepSeek's
	 * first_k_dense_replace); experts 0 for a dense model */
	int experts;
	int experts_per_token;
	int shared_experts;
	int moe_intermediate;
	int dense_layers;
	/* MLA (DeepSeek V2/V3): kv_lora_rank, q_lora_rank (0: none), qk_rope_head_dim,
	 * qk_nope_head_dim, v_head_dim */
	int kv_lora_rank, q_lora_rank, qk_rope_dim, qk_nope_dim, v_head_dim;
	/* parameters: total and active per token (MoE); from the file when it has them
	 * (exact), else computed from the architecture (model_params()), else published */
	int64_t params;
	int64_t active_params;
	bool params_exact;   /* counted from tensor headers */
	/* the file's weights by dtype (safetensors, GGUF); n 0 for catalog/config */
	struct axl__model_dtype dtypes[AXL__MODEL_DTYPES_MAX];
	size_t ndtypes;
	int64_t weight_bytes; /* bytes of all tensors in the file(s); < 0 unknown */
	/* added for the parameter count (model_catalog.h): biases on q/k/v (Qwen2,
	 * gpt-oss), on the attention output (gpt-oss), in the MLP/experts (gpt-oss);
	 * weight matrices per MLP: 3 gated (SwiGLU/GeGLU), 2 plain (Falcon); 0 means 3 */
	bool qkv_bias, o_bias, mlp_bias;
	int mlp_matrices;
	/* the published checkpoint's weight format (a quantisation name), "" for bf16 */
	char published_dtype[16];
};

#endif
