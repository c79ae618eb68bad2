/* SPDX-License-Identifier: MIT */
/* The built-in model catalog: widely used open models with the architecture
 * numbers of their published Hugging Face config.json (the URL above each row; for
 * multimodal models the text_config) and the published parameter counts (model card or
 * the Hub's safetensors count, named in the comment). Generated rows, kept by hand. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model_catalog.h"

static const struct axl__catalog_entry catalog[] = {
	/* https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json; HF card: 7B, safetensors 6.74B;
	 * checked: config copy in scaleapi llm-engine tests (all arch fields) */
	{.id = "meta-llama/Llama-2-7b-hf", .alias = "llama2-7b", .arch = "llama",
	 .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 32, .head_dim = 128, .intermediate = 11008,
	 .vocab = 32000, .tied = false, .max_context = 4096, .attn = AXL__ATTN_MHA,
	 .pub_params = 6740000000LL, .pub_active = 0LL, .pub_unit = 10000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/meta-llama/Llama-2-13b-hf/blob/main/config.json; HF safetensors 13.0B; checked:
	 * maxtext llama2-13b.yml (dims, heads, vocab, untied); (unverified: max_context) */
	{.id = "meta-llama/Llama-2-13b-hf", .alias = "llama2-13b", .arch = "llama",
	 .layers = 40, .hidden = 5120, .heads = 40, .kv_heads = 40, .head_dim = 128, .intermediate = 13824,
	 .vocab = 32000, .tied = false, .max_context = 4096, .attn = AXL__ATTN_MHA,
	 .pub_params = 13000000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/meta-llama/Llama-2-70b-hf/blob/main/config.json; HF safetensors 69B; (unverified: all
	 * fields; no config.json copy found) */
	{.id = "meta-llama/Llama-2-70b-hf", .alias = "llama2-70b", .arch = "llama",
	 .layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .head_dim = 128, .intermediate = 28672,
	 .vocab = 32000, .tied = false, .max_context = 4096, .attn = AXL__ATTN_GQA,
	 .pub_params = 69000000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json; HF safetensors 8.03B; checked:
	 * config copy (dims, heads, vocab, max_position 8192); (unverified: tied) */
	{.id = "meta-llama/Meta-Llama-3-8B", .alias = "llama3-8b", .arch = "llama",
	 .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .head_dim = 128, .intermediate = 14336,
	 .vocab = 128256, .tied = false, .max_context = 8192, .attn = AXL__ATTN_GQA,
	 .pub_params = 8030000000LL, .pub_active = 0LL, .pub_unit = 10000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/meta-llama/Meta-Llama-3-70B/blob/main/config.json; HF safetensors 70.6B; (unverified:
	 * all fields; no config.json copy found) */
	{.id = "meta-llama/Meta-Llama-3-70B", .alias = "llama3-70b", .arch = "llama",
	 .layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .head_dim = 128, .intermediate = 28672,
	 .vocab = 128256, .tied = false, .max_context = 8192, .attn = AXL__ATTN_GQA,
	 .pub_params = 70600000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json; HF safetensors 8.03B; checked:
	 * config.json copy in citsjtu2020/LLM-Prof sglang/Model_Config.md (all fields) */
	{.id = "meta-llama/Llama-3.1-8B", .alias = "llama3.1-8b", .arch = "llama",
	 .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .head_dim = 128, .intermediate = 14336,
	 .vocab = 128256, .tied = false, .max_context = 131072, .attn = AXL__ATTN_GQA,
	 .pub_params = 8030000000LL, .pub_active = 0LL, .pub_unit = 10000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/meta-llama/Llama-3.1-70B/blob/main/config.json; HF safetensors 70.6B; (unverified: all
	 * fields; no config.json copy found) */
	{.id = "meta-llama/Llama-3.1-70B", .alias = "llama3.1-70b", .arch = "llama",
	 .layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .head_dim = 128, .intermediate = 28672,
	 .vocab = 128256, .tied = false, .max_context = 131072, .attn = AXL__ATTN_GQA,
	 .pub_params = 70600000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/meta-llama/Llama-3.1-405B/blob/main/config.json; HF safetensors 406B (card: 405B);
	 * checked: maxtext llama3.1-405b.yml (126 layers, dims, heads, vocab); (unverified: max_context) */
	{.id = "meta-llama/Llama-3.1-405B", .alias = "llama3.1-405b", .arch = "llama",
	 .layers = 126, .hidden = 16384, .heads = 128, .kv_heads = 8, .head_dim = 128, .intermediate = 53248,
	 .vocab = 128256, .tied = false, .max_context = 131072, .attn = AXL__ATTN_GQA,
	 .pub_params = 406000000000LL, .pub_active = 0LL, .pub_unit = 1000000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json; card: 1.23B, safetensors 1.24B;
	 * (unverified: all fields; no config.json copy found) */
	{.id = "meta-llama/Llama-3.2-1B", .alias = "llama3.2-1b", .arch = "llama",
	 .layers = 16, .hidden = 2048, .heads = 32, .kv_heads = 8, .head_dim = 64, .intermediate = 8192,
	 .vocab = 128256, .tied = true, .max_context = 131072, .attn = AXL__ATTN_GQA,
	 .pub_params = 1240000000LL, .pub_active = 0LL, .pub_unit = 10000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/meta-llama/Llama-3.2-3B/blob/main/config.json; card: 3.21B; checked: config.json copy
	 * in citsjtu2020/LLM-Prof sglang/Model_Config.md (all fields) */
	{.id = "meta-llama/Llama-3.2-3B", .alias = "llama3.2-3b", .arch = "llama",
	 .layers = 28, .hidden = 3072, .heads = 24, .kv_heads = 8, .head_dim = 128, .intermediate = 8192,
	 .vocab = 128256, .tied = true, .max_context = 131072, .attn = AXL__ATTN_GQA,
	 .pub_params = 3210000000LL, .pub_active = 0LL, .pub_unit = 10000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct/blob/main/config.json; card: 70B, safetensors 70.6B;
	 * checked: maxtext llama3.3-70b.yml (dims, heads, vocab, untied); (unverified: max_context) */
	{.id = "meta-llama/Llama-3.3-70B-Instruct", .alias = "llama3.3-70b", .arch = "llama",
	 .layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .head_dim = 128, .intermediate = 28672,
	 .vocab = 128256, .tied = false, .max_context = 131072, .attn = AXL__ATTN_GQA,
	 .pub_params = 70600000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E/blob/main/config.json; card: 17B active, 109B total
	 * (with the vision encoder); checked: transformers 4.51 dump of this repo's config (text_config:
	 * max_position_embeddings 262144 for the base model; 10485760, seen in other copies, is probably the -Instruct
	 * config), maxtext llama4-17b-16e.yml (experts, moe/dense intermediate, nope every 4th layer -> 36 chunked
	 * layers of 8192) */
	{.id = "meta-llama/Llama-4-Scout-17B-16E", .alias = "llama4-scout", .arch = "llama4",
	 .layers = 48, .hidden = 5120, .heads = 40, .kv_heads = 8, .head_dim = 128, .intermediate = 16384,
	 .vocab = 202048, .tied = false, .max_context = 262144, .attn = AXL__ATTN_GQA, .sliding_window = 8192,
	 .sliding_layers = 36,
	 .experts = 16, .experts_per_token = 1, .shared_experts = 1, .moe_intermediate = 8192, .dense_layers = 0,
	 .pub_params = 109000000000LL, .pub_active = 17000000000LL, .pub_unit = 1000000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/meta-llama/Llama-4-Maverick-17B-128E/blob/main/config.json; card: 17B active, 400B
	 * total; interleave_moe_layer_step 2: 24 dense layers (intermediate_size_mlp 16384); checked: maxtext
	 * llama4-17b-128e.yml (128 experts, interleave 2, dims); (unverified: max_context 1048576 seen only in a
	 * TensorRT-LLM test copy of a Maverick config, likely the -Instruct one) */
	{.id = "meta-llama/Llama-4-Maverick-17B-128E", .alias = "llama4-maverick", .arch = "llama4",
	 .layers = 48, .hidden = 5120, .heads = 40, .kv_heads = 8, .head_dim = 128, .intermediate = 16384,
	 .vocab = 202048, .tied = false, .max_context = 1048576, .attn = AXL__ATTN_GQA, .sliding_window = 8192,
	 .sliding_layers = 36,
	 .experts = 128, .experts_per_token = 1, .shared_experts = 1, .moe_intermediate = 8192, .dense_layers = 24,
	 .pub_params = 400000000000LL, .pub_active = 17000000000LL, .pub_unit = 1000000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json; HF safetensors 7.24B; checked:
	 * maxtext mistral-7b.yml (dims, heads, vocab), config copy (max_position 32768);
	 * (unverified: sliding_window) */
	{.id = "mistralai/Mistral-7B-v0.1", .alias = "mistral-7b-v0.1", .arch = "mistral",
	 .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .head_dim = 128, .intermediate = 14336,
	 .vocab = 32000, .tied = false, .max_context = 32768, .attn = AXL__ATTN_GQA, .sliding_window = 4096,
	 .sliding_layers = 32,
	 .pub_params = 7240000000LL, .pub_active = 0LL, .pub_unit = 10000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/mistralai/Mistral-7B-v0.3/blob/main/config.json; HF safetensors 7.25B; (unverified:
	 * all fields; no config.json copy found) */
	{.id = "mistralai/Mistral-7B-v0.3", .alias = "mistral-7b-v0.3", .arch = "mistral",
	 .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .head_dim = 128, .intermediate = 14336,
	 .vocab = 32768, .tied = false, .max_context = 32768, .attn = AXL__ATTN_GQA,
	 .pub_params = 7250000000LL, .pub_active = 0LL, .pub_unit = 10000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/mistralai/Mistral-Small-24B-Base-2501/blob/main/config.json; card: 24B, safetensors
	 * 23.6B; (unverified: all fields; no config.json copy found) */
	{.id = "mistralai/Mistral-Small-24B-Base-2501", .alias = "mistral-small-24b", .arch = "mistral",
	 .layers = 40, .hidden = 5120, .heads = 32, .kv_heads = 8, .head_dim = 128, .intermediate = 32768,
	 .vocab = 131072, .tied = false, .max_context = 32768, .attn = AXL__ATTN_GQA,
	 .pub_params = 23600000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json; Mistral: 46.7B total, 12.9B active;
	 * checked: MixtralConfig dumps of the 8x7B config (all arch fields) */
	{.id = "mistralai/Mixtral-8x7B-v0.1", .alias = "mixtral-8x7b", .arch = "mixtral",
	 .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .head_dim = 128, .intermediate = 14336,
	 .vocab = 32000, .tied = false, .max_context = 32768, .attn = AXL__ATTN_GQA,
	 .experts = 8, .experts_per_token = 2, .shared_experts = 0, .moe_intermediate = 14336, .dense_layers = 0,
	 .pub_params = 46700000000LL, .pub_active = 12900000000LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/mistralai/Mixtral-8x22B-v0.1/blob/main/config.json; Mistral: 141B total, 39B active;
	 * checked: config copy in scaleapi llm-engine tests (vocab_size 32000, max_position 65536, all arch fields) */
	{.id = "mistralai/Mixtral-8x22B-v0.1", .alias = "mixtral-8x22b", .arch = "mixtral",
	 .layers = 56, .hidden = 6144, .heads = 48, .kv_heads = 8, .head_dim = 128, .intermediate = 16384,
	 .vocab = 32000, .tied = false, .max_context = 65536, .attn = AXL__ATTN_GQA,
	 .experts = 8, .experts_per_token = 2, .shared_experts = 0, .moe_intermediate = 16384, .dense_layers = 0,
	 .pub_params = 141000000000LL, .pub_active = 39000000000LL, .pub_unit = 1000000000LL, .pub_extra = 0LL,
	 /* Mixtral-8x22B-Instruct-v0.1 has the v3 tokenizer (vocab 32768; checked: its card encodes
	  * with MistralTokenizer.v3): no variant resolves here */
	 .instruct_context = -1},
	/* https://huggingface.co/Qwen/Qwen2.5-0.5B/blob/main/config.json; card: 0.49B; checked: config.json copy (all
	 * fields; max_position 32768) */
	{.id = "Qwen/Qwen2.5-0.5B", .alias = "qwen2.5-0.5b", .arch = "qwen2",
	 .layers = 24, .hidden = 896, .heads = 14, .kv_heads = 2, .head_dim = 64, .intermediate = 4864,
	 .vocab = 151936, .tied = true, .max_context = 32768, .attn = AXL__ATTN_GQA,
	 .qkv_bias = true,
	 .pub_params = 490000000LL, .pub_active = 0LL, .pub_unit = 10000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/Qwen/Qwen2.5-1.5B/blob/main/config.json; card: 1.54B; checked: model card via
	 * ZHUI/paddlenlp_model_readme (28 layers, 12/2 heads, tied); (unverified: max_context: the card says 32,768 and
	 * the -Instruct config has 32768; the base config was not found) */
	{.id = "Qwen/Qwen2.5-1.5B", .alias = "qwen2.5-1.5b", .arch = "qwen2",
	 .layers = 28, .hidden = 1536, .heads = 12, .kv_heads = 2, .head_dim = 128, .intermediate = 8960,
	 .vocab = 151936, .tied = true, .max_context = 131072, .attn = AXL__ATTN_GQA,
	 .qkv_bias = true, .instruct_context = 32768,
	 .pub_params = 1540000000LL, .pub_active = 0LL, .pub_unit = 10000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/Qwen/Qwen2.5-3B/blob/main/config.json; card: 3.09B; checked: config.json copy in
	 * citsjtu2020/LLM-Prof sglang/Model_Config.md (all fields) */
	{.id = "Qwen/Qwen2.5-3B", .alias = "qwen2.5-3b", .arch = "qwen2",
	 .layers = 36, .hidden = 2048, .heads = 16, .kv_heads = 2, .head_dim = 128, .intermediate = 11008,
	 .vocab = 151936, .tied = true, .max_context = 32768, .attn = AXL__ATTN_GQA,
	 .qkv_bias = true,
	 .pub_params = 3090000000LL, .pub_active = 0LL, .pub_unit = 10000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json; card: 7.61B; checked: config.json copy in
	 * citsjtu2020/LLM-Prof sglang/Model_Config.md (all fields) */
	{.id = "Qwen/Qwen2.5-7B", .alias = "qwen2.5-7b", .arch = "qwen2",
	 .layers = 28, .hidden = 3584, .heads = 28, .kv_heads = 4, .head_dim = 128, .intermediate = 18944,
	 .vocab = 152064, .tied = false, .max_context = 131072, .attn = AXL__ATTN_GQA,
	 .qkv_bias = true, .instruct_context = 32768,
	 .pub_params = 7610000000LL, .pub_active = 0LL, .pub_unit = 10000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/Qwen/Qwen2.5-14B/blob/main/config.json; card: 14.7B; checked: config.json copy in
	 * citsjtu2020/LLM-Prof sglang/Model_Config.md (all fields) */
	{.id = "Qwen/Qwen2.5-14B", .alias = "qwen2.5-14b", .arch = "qwen2",
	 .layers = 48, .hidden = 5120, .heads = 40, .kv_heads = 8, .head_dim = 128, .intermediate = 13824,
	 .vocab = 152064, .tied = false, .max_context = 131072, .attn = AXL__ATTN_GQA,
	 .qkv_bias = true, .instruct_context = 32768,
	 .pub_params = 14700000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/Qwen/Qwen2.5-32B/blob/main/config.json; HF safetensors 32.8B (card: 32.5B); checked:
	 * config.json copy in citsjtu2020/LLM-Prof sglang/Model_Config.md (all fields), card 32.5B */
	{.id = "Qwen/Qwen2.5-32B", .alias = "qwen2.5-32b", .arch = "qwen2",
	 .layers = 64, .hidden = 5120, .heads = 40, .kv_heads = 8, .head_dim = 128, .intermediate = 27648,
	 .vocab = 152064, .tied = false, .max_context = 131072, .attn = AXL__ATTN_GQA,
	 .qkv_bias = true, .instruct_context = 32768,
	 .pub_params = 32800000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/Qwen/Qwen2.5-72B/blob/main/config.json; card: 72.7B; (unverified: all fields; no
	 * config.json copy found) */
	{.id = "Qwen/Qwen2.5-72B", .alias = "qwen2.5-72b", .arch = "qwen2",
	 .layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .head_dim = 128, .intermediate = 29568,
	 .vocab = 152064, .tied = false, .max_context = 131072, .attn = AXL__ATTN_GQA,
	 .qkv_bias = true, .instruct_context = 32768,
	 .pub_params = 72700000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/Qwen/Qwen3-0.6B/blob/main/config.json; card: 0.6B; checked: maxtext qwen3-0.6b.yml
	 * (dims, heads, head_dim, tied); (unverified: max_context) */
	{.id = "Qwen/Qwen3-0.6B", .alias = "qwen3-0.6b", .arch = "qwen3",
	 .layers = 28, .hidden = 1024, .heads = 16, .kv_heads = 8, .head_dim = 128, .intermediate = 3072,
	 .vocab = 151936, .tied = true, .max_context = 40960, .attn = AXL__ATTN_GQA,
	 .pub_params = 600000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/Qwen/Qwen3-1.7B/blob/main/config.json; card: 1.7B; checked: maxtext qwen3-1.7b.yml
	 * (dims, heads, head_dim, tied); (unverified: max_context) */
	{.id = "Qwen/Qwen3-1.7B", .alias = "qwen3-1.7b", .arch = "qwen3",
	 .layers = 28, .hidden = 2048, .heads = 16, .kv_heads = 8, .head_dim = 128, .intermediate = 6144,
	 .vocab = 151936, .tied = true, .max_context = 40960, .attn = AXL__ATTN_GQA,
	 .pub_params = 1700000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/Qwen/Qwen3-4B/blob/main/config.json; card: 4.0B; checked: config.json copy in
	 * citsjtu2020/LLM-Prof sglang/Model_Config.md (all fields) */
	{.id = "Qwen/Qwen3-4B", .alias = "qwen3-4b", .arch = "qwen3",
	 .layers = 36, .hidden = 2560, .heads = 32, .kv_heads = 8, .head_dim = 128, .intermediate = 9728,
	 .vocab = 151936, .tied = true, .max_context = 40960, .attn = AXL__ATTN_GQA,
	 .pub_params = 4000000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json; card: 8.2B; checked: config.json copy in
	 * citsjtu2020/LLM-Prof sglang/Model_Config.md (all fields) */
	{.id = "Qwen/Qwen3-8B", .alias = "qwen3-8b", .arch = "qwen3",
	 .layers = 36, .hidden = 4096, .heads = 32, .kv_heads = 8, .head_dim = 128, .intermediate = 12288,
	 .vocab = 151936, .tied = false, .max_context = 40960, .attn = AXL__ATTN_GQA,
	 .pub_params = 8200000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/Qwen/Qwen3-14B/blob/main/config.json; card: 14.8B; checked: config.json copy in
	 * citsjtu2020/LLM-Prof sglang/Model_Config.md (all fields) */
	{.id = "Qwen/Qwen3-14B", .alias = "qwen3-14b", .arch = "qwen3",
	 .layers = 40, .hidden = 5120, .heads = 40, .kv_heads = 8, .head_dim = 128, .intermediate = 17408,
	 .vocab = 151936, .tied = false, .max_context = 40960, .attn = AXL__ATTN_GQA,
	 .pub_params = 14800000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/Qwen/Qwen3-32B/blob/main/config.json; card: 32.8B; checked: config.json copy in
	 * citsjtu2020/LLM-Prof sglang/Model_Config.md (all fields) */
	{.id = "Qwen/Qwen3-32B", .alias = "qwen3-32b", .arch = "qwen3",
	 .layers = 64, .hidden = 5120, .heads = 64, .kv_heads = 8, .head_dim = 128, .intermediate = 25600,
	 .vocab = 151936, .tied = false, .max_context = 40960, .attn = AXL__ATTN_GQA,
	 .pub_params = 32800000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json; card: 30.5B total, 3.3B active; checked:
	 * config.json copy in citsjtu2020/LLM-Prof sglang/Model_Config.md (all fields incl. 128 experts, 8 per token,
	 * moe_intermediate 768, no shared experts, mlp_only_layers empty) */
	{.id = "Qwen/Qwen3-30B-A3B", .alias = "qwen3-30b-a3b", .arch = "qwen3_moe",
	 .layers = 48, .hidden = 2048, .heads = 32, .kv_heads = 4, .head_dim = 128, .intermediate = 6144,
	 .vocab = 151936, .tied = false, .max_context = 40960, .attn = AXL__ATTN_GQA,
	 .experts = 128, .experts_per_token = 8, .shared_experts = 0, .moe_intermediate = 768, .dense_layers = 0,
	 .pub_params = 30500000000LL, .pub_active = 3300000000LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/Qwen/Qwen3-235B-A22B/blob/main/config.json; card: 235B total, 22B active; checked:
	 * maxtext qwen3-235b-a22b.yml (hidden, 64/4 heads, moe_intermediate 1536, 8 per token, vocab); (unverified:
	 * layers, intermediate, experts, max_context) */
	{.id = "Qwen/Qwen3-235B-A22B", .alias = "qwen3-235b-a22b", .arch = "qwen3_moe",
	 .layers = 94, .hidden = 4096, .heads = 64, .kv_heads = 4, .head_dim = 128, .intermediate = 12288,
	 .vocab = 151936, .tied = false, .max_context = 40960, .attn = AXL__ATTN_GQA,
	 .experts = 128, .experts_per_token = 8, .shared_experts = 0, .moe_intermediate = 1536, .dense_layers = 0,
	 .pub_params = 235000000000LL, .pub_active = 22000000000LL, .pub_unit = 1000000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/deepseek-ai/DeepSeek-V2-Lite/blob/main/config.json; card: 15.7B total, 2.4B active;
	 * checked: Megatron/maxtext-style DeepSeek-V2-Lite configs (27 layers, 1 dense, 64+2 experts, 6 per token, MLA
	 * ranks, q_lora none); (unverified: max_context) */
	{.id = "deepseek-ai/DeepSeek-V2-Lite", .alias = "deepseek-v2-lite", .arch = "deepseek_v2",
	 .layers = 27, .hidden = 2048, .heads = 16, .kv_heads = 16, .head_dim = 192, .intermediate = 10944,
	 .vocab = 102400, .tied = false, .max_context = 163840, .attn = AXL__ATTN_MLA,
	 .experts = 64, .experts_per_token = 6, .shared_experts = 2, .moe_intermediate = 1408, .dense_layers = 1,
	 .kv_lora_rank = 512, .q_lora_rank = 0, .qk_rope_dim = 64, .qk_nope_dim = 128, .v_head_dim = 128,
	 .pub_params = 15700000000LL, .pub_active = 2400000000LL, .pub_unit = 100000000LL, .pub_extra = 0LL,
	 .pub_active_no_emb = true},
	/* https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json; card: 671B total + 14B MTP module (HF
	 * 685B), 37B active; checked: config.json copies (MLA ranks, 256+1 experts, 8 per token, 61 layers,
	 * max_position 163840), maxtext deepseek3-671b.yml (3 dense layers); (unverified: vocab) */
	{.id = "deepseek-ai/DeepSeek-V3", .alias = "deepseek-v3", .arch = "deepseek_v3",
	 .layers = 61, .hidden = 7168, .heads = 128, .kv_heads = 128, .head_dim = 192, .intermediate = 18432,
	 .vocab = 129280, .tied = false, .max_context = 163840, .attn = AXL__ATTN_MLA,
	 .experts = 256, .experts_per_token = 8, .shared_experts = 1, .moe_intermediate = 2048, .dense_layers = 3,
	 .kv_lora_rank = 512, .q_lora_rank = 1536, .qk_rope_dim = 64, .qk_nope_dim = 128, .v_head_dim = 128,
	 .pub_params = 671000000000LL, .pub_active = 37000000000LL, .pub_unit = 1000000000LL, .pub_extra = 0LL,
	 .dtype = "fp8"},
	/* https://huggingface.co/deepseek-ai/DeepSeek-R1/blob/main/config.json; card: 671B total + 14B MTP module (HF
	 * 685B), 37B active; same architecture as DeepSeek-V3 (checked there); (unverified: vocab, and the R1 config
	 * itself) */
	{.id = "deepseek-ai/DeepSeek-R1", .alias = "deepseek-r1", .arch = "deepseek_v3",
	 .layers = 61, .hidden = 7168, .heads = 128, .kv_heads = 128, .head_dim = 192, .intermediate = 18432,
	 .vocab = 129280, .tied = false, .max_context = 163840, .attn = AXL__ATTN_MLA,
	 .experts = 256, .experts_per_token = 8, .shared_experts = 1, .moe_intermediate = 2048, .dense_layers = 3,
	 .kv_lora_rank = 512, .q_lora_rank = 1536, .qk_rope_dim = 64, .qk_nope_dim = 128, .v_head_dim = 128,
	 .pub_params = 671000000000LL, .pub_active = 37000000000LL, .pub_unit = 1000000000LL, .pub_extra = 0LL,
	 .dtype = "fp8"},
	/* https://huggingface.co/google/gemma-2-2b/blob/main/config.json; HF safetensors 2.61B; checked: maxtext
	 * hf_model_configs.py Gemma2Config (dims, heads; head_dim and sliding_window 4096 by default), alternating
	 * local/global -> 13 sliding; (unverified: max_context) */
	{.id = "google/gemma-2-2b", .alias = "gemma2-2b", .arch = "gemma2",
	 .layers = 26, .hidden = 2304, .heads = 8, .kv_heads = 4, .head_dim = 256, .intermediate = 9216,
	 .vocab = 256000, .tied = true, .max_context = 8192, .attn = AXL__ATTN_GQA, .sliding_window = 4096,
	 .sliding_layers = 13,
	 .pub_params = 2610000000LL, .pub_active = 0LL, .pub_unit = 10000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/google/gemma-2-9b/blob/main/config.json; HF safetensors 9.24B; checked: config.json
	 * copy (all fields) and maxtext hf_model_configs.py; alternating -> 21 sliding */
	{.id = "google/gemma-2-9b", .alias = "gemma2-9b", .arch = "gemma2",
	 .layers = 42, .hidden = 3584, .heads = 16, .kv_heads = 8, .head_dim = 256, .intermediate = 14336,
	 .vocab = 256000, .tied = true, .max_context = 8192, .attn = AXL__ATTN_GQA, .sliding_window = 4096,
	 .sliding_layers = 21,
	 .pub_params = 9240000000LL, .pub_active = 0LL, .pub_unit = 10000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/google/gemma-2-27b/blob/main/config.json; HF safetensors 27.2B; checked: maxtext
	 * hf_model_configs.py (head_dim 128, sliding_window 4096, dims); alternating -> 23 sliding; (unverified:
	 * max_context) */
	{.id = "google/gemma-2-27b", .alias = "gemma2-27b", .arch = "gemma2",
	 .layers = 46, .hidden = 4608, .heads = 32, .kv_heads = 16, .head_dim = 128, .intermediate = 36864,
	 .vocab = 256000, .tied = true, .max_context = 8192, .attn = AXL__ATTN_GQA, .sliding_window = 4096,
	 .sliding_layers = 23,
	 .pub_params = 27200000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/google/gemma-3-1b-pt/blob/main/config.json; Gemma 3 report table 1: 302M embedding +
	 * 698M non-embedding; checked: config copy in a Rust test (1152 hidden, 4/1 heads, head_dim 256,
	 * sliding_window_pattern 6 -> 22 sliding, max_position 32768), keras-hub preset 999,885,952 params;
	 * (unverified: intermediate, sliding_window) */
	{.id = "google/gemma-3-1b-pt", .alias = "gemma3-1b", .arch = "gemma3_text",
	 .layers = 26, .hidden = 1152, .heads = 4, .kv_heads = 1, .head_dim = 256, .intermediate = 6912,
	 .vocab = 262144, .tied = true, .max_context = 32768, .attn = AXL__ATTN_GQA, .sliding_window = 512,
	 .sliding_layers = 22,
	 .pub_params = 1000000000LL, .pub_active = 0LL, .pub_unit = 1000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/google/gemma-3-4b-pt/blob/main/config.json; Gemma 3 report table 1, text only: 675M +
	 * 3,209M (+417M vision encoder, not counted); checked: maxtext gemma3-4b.yml (dims, heads, head_dim, sliding
	 * 1024; 5 local : 1 global -> 29 sliding); (unverified: vocab 262208 of the HF text_config, maxtext uses the
	 * 262144 tokenizer) */
	{.id = "google/gemma-3-4b-pt", .alias = "gemma3-4b", .arch = "gemma3",
	 .layers = 34, .hidden = 2560, .heads = 8, .kv_heads = 4, .head_dim = 256, .intermediate = 10240,
	 .vocab = 262208, .tied = true, .max_context = 131072, .attn = AXL__ATTN_GQA, .sliding_window = 1024,
	 .sliding_layers = 29,
	 .pub_params = 3884000000LL, .pub_active = 0LL, .pub_unit = 1000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/google/gemma-3-12b-pt/blob/main/config.json; Gemma 3 report table 1, text only: 1,012M
	 * + 10,759M (+417M vision encoder); checked: maxtext gemma3-12b.yml (dims, heads, 15360, sliding 1024; 40
	 * sliding); (unverified: vocab 262208 of the HF text_config) */
	{.id = "google/gemma-3-12b-pt", .alias = "gemma3-12b", .arch = "gemma3",
	 .layers = 48, .hidden = 3840, .heads = 16, .kv_heads = 8, .head_dim = 256, .intermediate = 15360,
	 .vocab = 262208, .tied = true, .max_context = 131072, .attn = AXL__ATTN_GQA, .sliding_window = 1024,
	 .sliding_layers = 40,
	 .pub_params = 11771000000LL, .pub_active = 0LL, .pub_unit = 1000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/google/gemma-3-27b-pt/blob/main/config.json; Gemma 3 report table 1, text only: 1,416M
	 * + 25,600M (+417M vision encoder); checked: maxtext gemma3-27b.yml (dims, heads, head_dim 128, vocab 262208,
	 * sliding 1024, rope scaling 8; 52 sliding) */
	{.id = "google/gemma-3-27b-pt", .alias = "gemma3-27b", .arch = "gemma3",
	 .layers = 62, .hidden = 5376, .heads = 32, .kv_heads = 16, .head_dim = 128, .intermediate = 21504,
	 .vocab = 262208, .tied = true, .max_context = 131072, .attn = AXL__ATTN_GQA, .sliding_window = 1024,
	 .sliding_layers = 52,
	 .pub_params = 27016000000LL, .pub_active = 0LL, .pub_unit = 1000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/microsoft/Phi-3-mini-4k-instruct/blob/main/config.json; HF safetensors 3.82B (card:
	 * 3.8B); checked: config.json copies (sliding_window 2047, all fields), keras-hub 3,821,079,552 params */
	{.id = "microsoft/Phi-3-mini-4k-instruct", .alias = "phi3-mini", .arch = "phi3",
	 .layers = 32, .hidden = 3072, .heads = 32, .kv_heads = 32, .head_dim = 96, .intermediate = 8192,
	 .vocab = 32064, .tied = false, .max_context = 4096, .attn = AXL__ATTN_MHA, .sliding_window = 2047,
	 .sliding_layers = 32,
	 .pub_params = 3820000000LL, .pub_active = 0LL, .pub_unit = 10000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/microsoft/Phi-3-medium-4k-instruct/blob/main/config.json; card: 14B, safetensors
	 * 14.0B; checked: config copy in scaleapi llm-engine tests (sliding_window 2047, 10 kv heads, all fields) */
	{.id = "microsoft/Phi-3-medium-4k-instruct", .alias = "phi3-medium", .arch = "phi3",
	 .layers = 40, .hidden = 5120, .heads = 40, .kv_heads = 10, .head_dim = 128, .intermediate = 17920,
	 .vocab = 32064, .tied = false, .max_context = 4096, .attn = AXL__ATTN_GQA, .sliding_window = 2047,
	 .sliding_layers = 40,
	 .pub_params = 14000000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/microsoft/phi-4/blob/main/config.json; card: 14B, safetensors 14.7B; checked: config
	 * copy in a test (dims, 40/10 heads, vocab 100352, max_position 16384); (unverified: tied) */
	{.id = "microsoft/phi-4", .alias = "phi4", .arch = "phi3",
	 .layers = 40, .hidden = 5120, .heads = 40, .kv_heads = 10, .head_dim = 128, .intermediate = 17920,
	 .vocab = 100352, .tied = false, .max_context = 16384, .attn = AXL__ATTN_GQA,
	 .pub_params = 14700000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 0LL},
	/* https://huggingface.co/openai/gpt-oss-20b/blob/main/config.json; card: 21B total (20.9B), 3.6B active;
	 * checked: config summaries (EchoCog/gpt-oss-20b docs, hf-model-inspector report: all fields, alternating
	 * sliding 128 -> 12, attention_bias) */
	{.id = "openai/gpt-oss-20b", .alias = "gpt-oss-20b", .arch = "gpt_oss",
	 .layers = 24, .hidden = 2880, .heads = 64, .kv_heads = 8, .head_dim = 64, .intermediate = 2880,
	 .vocab = 201088, .tied = false, .max_context = 131072, .attn = AXL__ATTN_GQA, .sliding_window = 128,
	 .sliding_layers = 12,
	 .experts = 32, .experts_per_token = 4, .shared_experts = 0, .moe_intermediate = 2880, .dense_layers = 0,
	 .qkv_bias = true, .o_bias = true, .mlp_bias = true,
	 .pub_params = 20900000000LL, .pub_active = 3600000000LL, .pub_unit = 100000000LL, .pub_extra = 0LL,
	 .pub_active_no_emb = true, .dtype = "mxfp4"},
	/* https://huggingface.co/openai/gpt-oss-120b/blob/main/config.json; card: 117B total (116.8B), 5.1B active;
	 * checked: maxtext gpt-oss-120b.yml (128 experts, 4 per token, dims, biases, sliding 128 every other layer) */
	{.id = "openai/gpt-oss-120b", .alias = "gpt-oss-120b", .arch = "gpt_oss",
	 .layers = 36, .hidden = 2880, .heads = 64, .kv_heads = 8, .head_dim = 64, .intermediate = 2880,
	 .vocab = 201088, .tied = false, .max_context = 131072, .attn = AXL__ATTN_GQA, .sliding_window = 128,
	 .sliding_layers = 18,
	 .experts = 128, .experts_per_token = 4, .shared_experts = 0, .moe_intermediate = 2880, .dense_layers = 0,
	 .qkv_bias = true, .o_bias = true, .mlp_bias = true,
	 .pub_params = 116800000000LL, .pub_active = 5100000000LL, .pub_unit = 100000000LL, .pub_extra = 0LL,
	 .pub_active_no_emb = true, .dtype = "mxfp4"},
	/* https://huggingface.co/tiiuae/falcon-7b/blob/main/config.json; HF count 7.22B includes the lm_head tensor the
	 * checkpoint stores though tied to the embedding; checked: config copies (4544 hidden, 32 layers, 71 heads,
	 * multi_query, vocab 65024); tied: the config sets no tie_word_embeddings and transformers' FalconConfig keeps
	 * the default true; (unverified: max_context, from the card) */
	{.id = "tiiuae/falcon-7b", .alias = "falcon-7b", .arch = "falcon",
	 .layers = 32, .hidden = 4544, .heads = 71, .kv_heads = 1, .head_dim = 64, .intermediate = 18176,
	 .vocab = 65024, .tied = true, .max_context = 2048, .attn = AXL__ATTN_GQA,
	 .mlp_matrices = 2,
	 .pub_params = 7220000000LL, .pub_active = 0LL, .pub_unit = 10000000LL, .pub_extra = 295469056LL},
	/* https://huggingface.co/tiiuae/falcon-40b/blob/main/config.json; HF count 41.8B includes the lm_head tensor
	 * the checkpoint stores though tied; checked: conversion scripts (60 layers, 8192, 128/8 heads), vocab 65024;
	 * tied as falcon-7b; (unverified: max_context, from the card) */
	{.id = "tiiuae/falcon-40b", .alias = "falcon-40b", .arch = "falcon",
	 .layers = 60, .hidden = 8192, .heads = 128, .kv_heads = 8, .head_dim = 64, .intermediate = 32768,
	 .vocab = 65024, .tied = true, .max_context = 2048, .attn = AXL__ATTN_GQA,
	 .mlp_matrices = 2,
	 .pub_params = 41800000000LL, .pub_active = 0LL, .pub_unit = 100000000LL, .pub_extra = 532676608LL},
};

size_t axl__catalog_count(void)
{
	return sizeof catalog / sizeof catalog[0];
}

const struct axl__catalog_entry *axl__catalog_at(size_t i)
{
	return i < axl__catalog_count() ? &catalog[i] : NULL;
}

/* Instruction-tuned releases people ask for most, listed with the catalog (axl plan
 * --list). Each has its base row's architecture: the same config.json but for generation
 * settings (eos tokens, chat template), except where the row's instruct_context says the
 * max context differs (Qwen2.5). Checked against the releases' config.json where a copy
 * was found; the others are marked. */
static const char variants[][64] = {
	"meta-llama/Llama-3.1-8B-Instruct",   /* checked: same config as the base (rope scaling, 131072) */
	/* (unverified: no config.json copy found; Meta ships one config per size) */
	"meta-llama/Llama-3.1-70B-Instruct",
	"meta-llama/Llama-3.1-405B-Instruct", /* (unverified) */
	"meta-llama/Llama-3.2-1B-Instruct",   /* (unverified) */
	"meta-llama/Llama-3.2-3B-Instruct",   /* (unverified) */
	"meta-llama/Meta-Llama-3-8B-Instruct", /* (unverified) */
	"meta-llama/Meta-Llama-3-70B-Instruct", /* (unverified) */
	"meta-llama/Llama-2-7b-chat-hf",      /* (unverified) */
	"meta-llama/Llama-2-70b-chat-hf",     /* (unverified) */
	/* Qwen2.5 -Instruct: config.json max_position_embeddings 32768 (the cards' 131,072 needs
	 * the YaRN rope_scaling the card tells to add), the base configs 131072 */
	"Qwen/Qwen2.5-7B-Instruct",           /* checked: config copy (transformers AutoConfig dump) context 32768 */
	"Qwen/Qwen2.5-14B-Instruct",          /* checked: card (48 layers, 40/8 heads, 14.7B); (unverified: 32768) */
	"Qwen/Qwen2.5-32B-Instruct",          /* checked: card (64 layers, 40/8 heads); (unverified: 32768) */
	/* checked: config copy (80 layers, 29568, max_position_embeddings 32768) */
	"Qwen/Qwen2.5-72B-Instruct",
	"google/gemma-2-2b-it",               /* (unverified) */
	"google/gemma-2-9b-it",               /* (unverified) */
	"google/gemma-2-27b-it",              /* (unverified) */
	"google/gemma-3-27b-it",              /* (unverified: the -pt row's text_config) */
	"mistralai/Mistral-7B-Instruct-v0.3", /* (unverified) */
	"mistralai/Mixtral-8x7B-Instruct-v0.1", /* (unverified) */
	"mistralai/Mistral-Small-24B-Instruct-2501", /* (unverified) */
};

size_t axl__catalog_variant_count(void)
{
	return sizeof variants / sizeof variants[0];
}

const char *axl__catalog_variant_at(size_t i)
{
	return i < axl__catalog_variant_count() ? variants[i] : NULL;
}

size_t axl__catalog_name(const char *name, char *out, size_t cap)
{
	static const char prefixes[][24] = {"https://huggingface.co/", "http://huggingface.co/", "huggingface.co/",
					   "hf://", "hf.co/"};
	if (!cap)
		return 0;
	out[0] = 0;
	if (!name)
		return 0;
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (strncasecmp(name, prefixes[i], strlen(prefixes[i])) == 0) {
			name += strlen(prefixes[i]);
			break;
		}
	size_t n = strlen(name);
	while (n > 0 && name[n - 1] == '/')
		n--;
	snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), name);
	return n;
}

/* Exactly an id or an alias (without case), of n bytes. */
static const struct axl__catalog_entry *find_exact(const char *name, size_t n)
{
	for (size_t i = 0; i < axl__catalog_count(); i++) {
		const struct axl__catalog_entry *e = &catalog[i];
		if ((strlen(e->id) == n && strncasecmp(e->id, name, n) == 0) ||
		    (strlen(e->alias) == n && strncasecmp(e->alias, name, n) == 0))
			return e;
	}
	return NULL;
}

const struct axl__catalog_entry *axl__catalog_find(const char *name)
{
	if (!name)
		return NULL;
	char n[256];
	if (axl__catalog_name(name, n, sizeof n) >= sizeof n) /* longer than any id: not one */
		return NULL;
	return find_exact(n, strlen(n));
}

/* The variant tokens and what the base release has in their place ("" : nothing). */
static const struct {
	char token[10], base[6];
} variant_tokens[] = {
	{"instruct", ""}, {"instruct", "base"}, {"it", ""}, {"it", "pt"}, {"chat", ""},
};

/* The row a name with one variant token taken out (or replaced) is, whatever its
 * instruct_context says; NULL when none. */
static const struct axl__catalog_entry *variant_of(const char *name)
{
	char n[256];
	size_t len = axl__catalog_name(name, n, sizeof n);
	if (len >= sizeof n)
		return NULL;
	/* the name part (after the org): a token is a run between '-' (or the '/' before it) */
	const char *slash = strchr(n, '/');
	size_t start = slash ? (size_t)(slash - n) + 1 : 0;
	for (size_t t = 0; t < sizeof variant_tokens / sizeof variant_tokens[0]; t++) {
		const char *tok = variant_tokens[t].token, *base = variant_tokens[t].base;
		size_t tl = strlen(tok);
		for (size_t i = start + 1; i + tl <= len; i++) {
			/* "-tok" followed by '-' or the end; never the first token of the name */
			if (n[i - 1] != '-' || strncasecmp(n + i, tok, tl) != 0 || (n[i + tl] != 0 && n[i + tl] != '-'))
				continue;
			char c[300];
			if (*base)
				snprintf(c, sizeof c, "%.*s%s%s", (int)i, n, base, n + i + tl);
			else
				snprintf(c, sizeof c, "%.*s%s", (int)(i - 1), n, n + i + tl);
			const struct axl__catalog_entry *e = find_exact(c, strlen(c));
			if (e)
				return e;
		}
	}
	return NULL;
}

const struct axl__catalog_entry *axl__catalog_resolve(const char *name, bool *variant)
{
	if (variant)
		*variant = false;
	const struct axl__catalog_entry *e = axl__catalog_find(name);
	if (e || !name)
		return e;
	e = variant_of(name);
	if (!e || e->instruct_context < 0)
		return NULL;
	if (variant)
		*variant = true;
	return e;
}

/* Edit distance without case, capped: anything above cap is cap + 1. */
static size_t edits(const char *a, const char *b, size_t cap)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 200 || lb > 200)
		return cap + 1;
	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	size_t row[201];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0], best;
		row[0] = i;
		best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
			size_t v = diag + cost;
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > cap)
			return cap + 1;
	}
	return row[lb] > cap ? cap + 1 : row[lb];
}

int axl__catalog_suggest(const char *name, char *out, size_t cap)
{
	if (!cap)
		return 0;
	out[0] = 0;
	char n[256];
	size_t len = axl__catalog_name(name, n, sizeof n);
	if (!n[0] || len >= sizeof n)
		return 0;
	const struct axl__catalog_entry *base = variant_of(n);
	if (base && base->instruct_context < 0) {
		snprintf(out, cap, "%s", base->id);
		return 2;
	}
	const char *picked[3];
	size_t np = 0;
	/* the same repo name under another org ("foo/Llama-3.1-70B-Instruct") */
	const char *slash = strchr(n, '/');
	if (slash && slash[1]) {
		for (size_t i = 0; i < axl__catalog_count() + axl__catalog_variant_count() && np < 3; i++) {
			const char *id = i < axl__catalog_count() ? catalog[i].id : variants[i - axl__catalog_count()];
			const char *s = strchr(id, '/');
			if (s && strcasecmp(s + 1, slash + 1) == 0)
				picked[np++] = id;
		}
	}
	/* else the closest ids, aliases and listed variants, a few edits away */
	size_t limit = strlen(n) / 8 + 1;
	if (limit > 3)
		limit = 3;
	for (size_t d = 1; d <= limit && np == 0; d++)
		for (size_t i = 0; i < axl__catalog_count() + axl__catalog_variant_count() && np < 3; i++) {
			const char *id = i < axl__catalog_count() ? catalog[i].id : variants[i - axl__catalog_count()];
			const char *alias = i < axl__catalog_count() ? catalog[i].alias : NULL;
			if (edits(n, id, d) == d)
				picked[np++] = id;
			else if (alias && edits(n, alias, d) == d)
				picked[np++] = alias;
		}
	size_t o = 0;
	for (size_t i = 0; i < np && o < cap; i++)
		o += (size_t)snprintf(out + o, cap - o, "%s%s", i == 0 ? "" : i + 1 == np ? " or " : ", ", picked[i]);
	return np ? 1 : 0;
}

void axl__catalog_model(const struct axl__catalog_entry *e, struct axl__model *m)
{
	memset(m, 0, sizeof *m);
	m->source = AXL__MSRC_CATALOG;
	snprintf(m->id, sizeof m->id, "%s", e->id);
	snprintf(m->catalog_id, sizeof m->catalog_id, "%s", e->id);
	snprintf(m->alias, sizeof m->alias, "%s", e->alias);
	snprintf(m->arch, sizeof m->arch, "%s", e->arch);
	m->layers = e->layers;
	m->hidden = e->hidden;
	m->heads = e->heads;
	m->kv_heads = e->kv_heads;
	m->head_dim = e->head_dim;
	m->intermediate = e->intermediate;
	m->vocab = e->vocab;
	m->tied_embeddings = e->tied;
	m->max_context = e->max_context;
	m->attn = e->attn;
	m->sliding_window = e->sliding_window;
	m->sliding_layers = e->sliding_layers;
	m->experts = e->experts;
	m->experts_per_token = e->experts_per_token;
	m->shared_experts = e->shared_experts;
	m->moe_intermediate = e->moe_intermediate;
	m->dense_layers = e->dense_layers;
	m->kv_lora_rank = e->kv_lora_rank;
	m->q_lora_rank = e->q_lora_rank;
	m->qk_rope_dim = e->qk_rope_dim;
	m->qk_nope_dim = e->qk_nope_dim;
	m->v_head_dim = e->v_head_dim;
	if (e->dtype[0])
		snprintf(m->published_dtype, sizeof m->published_dtype, "%s", e->dtype);
	m->qkv_bias = e->qkv_bias;
	m->o_bias = e->o_bias;
	m->mlp_bias = e->mlp_bias;
	m->mlp_matrices = e->mlp_matrices;
	m->params = axl__model_params(m, &m->active_params);
	m->params_exact = false;
	m->weight_bytes = -1;
}

int axl__model_from_catalog(const char *name, struct axl__model *out)
{
	bool variant = false;
	const struct axl__catalog_entry *e = axl__catalog_resolve(name, &variant);
	if (!e)
		return -1;
	axl__catalog_model(e, out);
	if (variant) {
		axl__catalog_name(name, out->id, sizeof out->id);
		out->alias[0] = 0;
		if (e->instruct_context > 0)
			out->max_context = e->instruct_context;
	}
	return 0;
}
