/* SPDX-License-Identifier: MIT */
/* The planner's model sources that need no file of weights: the built-in
 * catalog of open models (model_catalog.c) and a Hugging Face config.json
 * (model_config.c), plus what the planner computes from any struct axl__model: the
 * parameter count and the KV cache per token. */
#ifndef AXL_LIB_MODEL_CATALOG_H
#define AXL_LIB_MODEL_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* One catalog row: the architecture of the published config.json and the model card's
 * parameter counts. */
/* Strings are arrays, not pointers: the catalog needs no relocation when libaxl is
 * loaded, so it stays read-only and shared (tests/unit/plan/test_model.c checks every
 * string ends inside its array). */
struct axl__catalog_entry {
	char id[64];    /* Hugging Face repo id */
	char alias[32]; /* short name */
	char arch[24];  /* config model_type */
	int layers, hidden, heads, kv_heads, head_dim, intermediate;
	int64_t vocab;
	bool tied;
	int max_context;
	enum axl__attn attn;
	int sliding_window, sliding_layers;
	int experts, experts_per_token, shared_experts, moe_intermediate, dense_layers;
	int kv_lora_rank, q_lora_rank, qk_rope_dim, qk_nope_dim, v_head_dim;
	bool qkv_bias, o_bias, mlp_bias;
	int mlp_matrices;   /* 0: 3 (gated) */
	/* published figures: total parameters and active per token (0 for dense), and the
	 * rounding unit of the published figure (1 when exact, 1e8 for "0.6B") */
	int64_t pub_params, pub_active, pub_unit;
	/* the published figure covers more than the text model (vision tower, MTP head, a
	 * tied matrix counted twice): the part the architecture above does not describe */
	int64_t pub_extra;
	/* the publisher's active count leaves out the input embedding (gpt-oss, DeepSeek-V2-
	 * Lite); axl's active_params counts it (docs/plan.md), the test compares like with like */
	bool pub_active_no_emb;
	/* how the published checkpoint stores its weights, when not bf16 ("fp8" for
	 * DeepSeek V3/R1, "mxfp4" for gpt-oss): the planner's default quantisation */
	char dtype[8]; /* "" when bf16 */
	/* the max_position_embeddings of the instruction-tuned / chat releases of this row
	 * (-Instruct, -it, -chat) when their config.json says another than this row's; 0:
	 * the same; -1: they differ in more than that (vocabulary, layers), so no variant
	 * name resolves to this row (axl__catalog_resolve) */
	int instruct_context;
};

size_t axl__catalog_count(void);
const struct axl__catalog_entry *axl__catalog_at(size_t i);
/* By repo id (case-insensitive, with or without "https://huggingface.co/") or alias
 * (case-insensitive); NULL when unknown. */
const struct axl__catalog_entry *axl__catalog_find(const char *name);
/* A name people paste from the model hub for an instruction-tuned or chat release of a
 * catalog row ("meta-llama/Llama-3.1-70B-Instruct", "google/gemma-2-9b-it"): the row,
 * with *variant true, when the name is a catalog id or alias with one variant token
 * ("instruct", "it", "chat", without case, between '-' or at the end) taken out, or
 * replaced by the base release's token ("base" for instruct, "pt" for it). The org, the
 * size and every other token must match the row. An exact id or alias gives the row with
 * *variant false. NULL when neither. */
const struct axl__catalog_entry *axl__catalog_resolve(const char *name, bool *variant);
/* The name without a "https://huggingface.co/"-style prefix and trailing '/', into out
 * (truncated to cap); returns its whole length. */
size_t axl__catalog_name(const char *name, char *out, size_t cap);
/* For a name the catalog does not resolve: 2 with the row's id in out when it names an
 * instruction-tuned release of a row whose releases differ (instruct_context -1); else 1
 * with up to three catalog ids or aliases close to it (the same repo name under another
 * org, or a few edits away), "a, b or c"; 0 ("") when none. */
int axl__catalog_suggest(const char *name, char *out, size_t cap);
/* Ids of instruction-tuned releases listed with the catalog (axl plan --list): each
 * resolves to its row by axl__catalog_resolve. */
size_t axl__catalog_variant_count(void);
const char *axl__catalog_variant_at(size_t i);
/* The entry as a model description (source CATALOG, params computed). */
void axl__catalog_model(const struct axl__catalog_entry *e, struct axl__model *out);
/* Find (axl__catalog_resolve) and describe: 0, or -1 when the catalog does not have it.
 * For a variant, out->id is the name as given (without a URL prefix), out->catalog_id
 * the row's id, out->alias empty and max_context the variant's (instruct_context). */
int axl__model_from_catalog(const char *name, struct axl__model *out);

/* Parameters from the architecture: token embedding, untied lm_head, attention (q/k/v/o,
 * or MLA's low-rank projections and their norms), the dense MLP of each dense layer
 * (mlp_matrices weight matrices), routed + shared experts and the router of each MoE
 * layer, biases where the flags say, two norms per layer and the final norm (Gemma's
 * extra norms and q/k norms, a few thousand parameters, are not counted).
 * *active (may be NULL): the parameters one token reads: everything but the routed
 * experts it does not use, and without the input embedding table when it is untied (a
 * lookup reads one row); model cards differ on that last point. Returns -1 when the
 * description lacks what the count needs. */
int64_t axl__model_params(const struct axl__model *m, int64_t *active);

/* A bare size ("7B", "70b", "1.5B", "500M", "7e9") in parameters: 0; -1 not a size;
 * -2 a size no model has (not positive, under 1M or over 100T). */
int axl__parse_size(const char *s, int64_t *params);
/* The model assumed for a size (model_size.c), the assumption in words to note. */
int axl__model_from_size(int64_t params, struct axl__model *m, char *note, size_t cap);

/* KV cache bytes per token of context, at kv_bytes_per_elem bytes per element:
 * GQA/MHA 2 x layers x kv_heads x head_dim; MLA layers x (kv_lora_rank + qk_rope_dim)
 * (the compressed latent and the rope key, what vLLM and SGLang cache). A
 * sliding-window layer holds min(context, window) tokens, so for such models the figure
 * is the average per token over a context of `context` tokens: total bytes for that
 * context / context (context <= 0: as if every layer held every token). -1 when the
 * description lacks the fields. */
int64_t axl__model_kv_bytes_per_token(const struct axl__model *m, double kv_bytes_per_elem, int64_t context);

/* A Hugging Face config.json (text[0..len)); name goes to out->id. Reads the standard
 * keys, and those of a nested "text_config" first (multimodal configs). Returns 0, or
 * -1 with a message naming the missing or absurd field in err. */
int axl__model_from_config(const char *text, size_t len, const char *name, struct axl__model *out, char *err,
			   size_t errcap);

#endif
