/* SPDX-License-Identifier: MIT */
/* A model from a Hugging Face config.json, and what the planner computes from any model
 * description: the parameter count and the KV cache per token (model_catalog.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model_catalog.h"
#include "util/jsonr.h"

int64_t axl__model_params(const struct axl__model *m, int64_t *active)
{
	if (!m || m->layers <= 0 || m->hidden <= 0 || m->heads <= 0 || m->vocab <= 0)
		return -1;
	const int64_t h = m->hidden, L = m->layers;
	int64_t attn;
	if (m->attn == AXL__ATTN_MLA) {
		if (m->kv_lora_rank <= 0 || m->qk_rope_dim < 0 || m->qk_nope_dim <= 0 || m->v_head_dim <= 0)
			return -1;
		int64_t qd = (int64_t)m->heads * (m->qk_nope_dim + m->qk_rope_dim);
		int64_t q =
		    m->q_lora_rank > 0 ? h * m->q_lora_rank + m->q_lora_rank + (int64_t)m->q_lora_rank * qd : h * qd;
		int64_t kv_a = h * (m->kv_lora_rank + m->qk_rope_dim) + m->kv_lora_rank;
		int64_t kv_b = (int64_t)m->kv_lora_rank * m->heads * (m->qk_nope_dim + m->v_head_dim);
		int64_t o = (int64_t)m->heads * m->v_head_dim * h;
		attn = q + kv_a + kv_b + o;
	} else {
		if (m->kv_heads <= 0 || m->head_dim <= 0)
			return -1;
		int64_t qd = (int64_t)m->heads * m->head_dim, kvd = (int64_t)m->kv_heads * m->head_dim;
		attn = h * qd + 2 * h * kvd + qd * h;
		if (m->qkv_bias)
			attn += qd + 2 * kvd;
		if (m->o_bias)
			attn += h;
	}
	const int mm = m->mlp_matrices > 0 ? m->mlp_matrices : 3;
	int64_t moe_layers = 0, dense_layers = L;
	if (m->experts > 0) {
		if (m->moe_intermediate <= 0 || m->experts_per_token <= 0)
			return -1;
		dense_layers = m->dense_layers > 0 ? m->dense_layers : 0;
		if (dense_layers > L)
			return -1;
		moe_layers = L - dense_layers;
	}
	int64_t dense_mlp = 0;
	if (dense_layers > 0) {
		if (m->intermediate <= 0)
			return -1;
		dense_mlp = mm * h * m->intermediate + (m->mlp_bias ? (int64_t)(mm - 1) * m->intermediate + h : 0);
	}
	/* one expert (always gated), its biases (gpt-oss: gate and up, then down) */
	int64_t expert = 3 * h * m->moe_intermediate + (m->mlp_bias ? 2LL * m->moe_intermediate + h : 0);
	int64_t router = (int64_t)m->experts * h + (m->mlp_bias ? m->experts : 0);
	int64_t shared = m->shared_experts > 0 ? m->shared_experts : 0;
	int64_t norms = 2 * h;
	int64_t emb = m->vocab * h, head = m->tied_embeddings ? 0 : emb;

	/* active: every parameter a token's forward pass touches: all but the routed experts
	 * it is not sent to, the embedding included (its row is read; docs/plan.md) */
	int64_t total = emb + head + h + L * (attn + norms) + dense_layers * dense_mlp;
	int64_t act = total;
	if (moe_layers > 0) {
		total += moe_layers * ((m->experts + shared) * expert + router);
		act += moe_layers * ((m->experts_per_token + shared) * expert + router);
	}
	if (active)
		*active = act;
	return total;
}

int64_t axl__model_kv_bytes_per_token(const struct axl__model *m, double kv_bytes_per_elem, int64_t context)
{
	if (!m || m->layers <= 0 || !(kv_bytes_per_elem > 0))
		return -1;
	double per_layer;
	if (m->attn == AXL__ATTN_MLA) {
		if (m->kv_lora_rank <= 0 || m->qk_rope_dim < 0)
			return -1;
		per_layer = (double)(m->kv_lora_rank + m->qk_rope_dim) * kv_bytes_per_elem;
	} else {
		if (m->kv_heads <= 0 || m->head_dim <= 0)
			return -1;
		per_layer = 2.0 * m->kv_heads * m->head_dim * kv_bytes_per_elem;
	}
	double layers = m->layers;
	if (m->sliding_window > 0 && m->sliding_layers > 0 && context > m->sliding_window) {
		int sl = m->sliding_layers < m->layers ? m->sliding_layers : m->layers;
		layers = (m->layers - sl) + sl * ((double)m->sliding_window / (double)context);
	}
	return (int64_t)(layers * per_layer + 0.5);
}

/* ---- config.json ------------------------------------------------------------------ */

struct cfg {
	const struct axl__jv *text, *root; /* text_config (or root), root */
	char *err;
	size_t errcap;
	int failed;
};

static void fail(struct cfg *c, const char *fmt, ...)
{
	if (c->failed)
		return;
	c->failed = 1;
	va_list ap;
	va_start(ap, fmt);
	if (c->err && c->errcap)
		vsnprintf(c->err, c->errcap, fmt, ap);
	va_end(ap);
}

static const struct axl__jv *member(const struct cfg *c, const char *key)
{
	const struct axl__jv *v = axl__jv_get(c->text, key);
	if (!v && c->text != c->root)
		v = axl__jv_get(c->root, key);
	return v;
}

/* An integer field: 1 and *out when present (not null) and within [lo, hi]; 0 when
 * absent or null; -1 (and the error) when of another type or out of range. */
static int get_int(struct cfg *c, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
	const struct axl__jv *v = member(c, key);
	if (!v || v->type == AXL__J_NULL)
		return 0;
	if (v->type != AXL__J_NUM || !v->is_int) {
		fail(c, "config.json: %s is not an integer", key);
		return -1;
	}
	if (v->i < lo || v->i > hi) {
		fail(c, "config.json: %s %lld is out of range (%lld..%lld)", key, (long long)v->i, (long long)lo,
		     (long long)hi);
		return -1;
	}
	*out = v->i;
	return 1;
}

static int need_int(struct cfg *c, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
	int r = get_int(c, key, lo, hi, out);
	if (r == 0)
		fail(c, "config.json: %s is missing", key);
	return r == 1 ? 0 : -1;
}

static int get_bool(struct cfg *c, const char *key, bool dflt)
{
	const struct axl__jv *v = member(c, key);
	if (!v || v->type == AXL__J_NULL)
		return dflt;
	if (v->type != AXL__J_BOOL) {
		fail(c, "config.json: %s is not true or false", key);
		return dflt;
	}
	return v->b;
}

static void copy(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static int read_config(struct cfg *c, struct axl__model *m)
{
	int64_t v = 0;
	const struct axl__jv *mt = member(c, "model_type");
	if (mt && mt->type == AXL__J_STR)
		copy(m->arch, sizeof m->arch, mt->s);
	const char *arch = m->arch;
	bool falcon = starts(arch, "falcon");

	if (need_int(c, "num_hidden_layers", 1, 1000, &v))
		return -1;
	m->layers = (int)v;
	if (need_int(c, "hidden_size", 1, 1000000, &v))
		return -1;
	m->hidden = (int)v;
	if (need_int(c, "num_attention_heads", 1, 100000, &v))
		return -1;
	m->heads = (int)v;
	m->kv_heads = m->heads;
	int r = get_int(c, "num_key_value_heads", 1, 100000, &v);
	if (r == 0)
		r = get_int(c, "num_kv_heads", 1, 100000, &v); /* Falcon */
	if (r < 0)
		return -1;
	if (r == 1)
		m->kv_heads = (int)v;
	else if (get_bool(c, "multi_query", false))
		m->kv_heads = 1;
	if (m->kv_heads > m->heads) {
		fail(c, "config.json: num_key_value_heads %d is more than num_attention_heads %d", m->kv_heads,
		     m->heads);
		return -1;
	}
	if (m->heads % m->kv_heads) {
		fail(c, "config.json: num_attention_heads %d is not a multiple of num_key_value_heads %d", m->heads,
		     m->kv_heads);
		return -1;
	}
	if ((r = get_int(c, "head_dim", 1, 65536, &v)) < 0)
		return -1;
	if (r == 1) {
		m->head_dim = (int)v;
	} else {
		if (m->hidden % m->heads) {
			fail(c,
			     "config.json: hidden_size %d is not a multiple of num_attention_heads %d and head_dim is "
			     "missing",
			     m->hidden, m->heads);
			return -1;
		}
		m->head_dim = m->hidden / m->heads;
	}
	if (need_int(c, "vocab_size", 1, 10000000, &v))
		return -1;
	m->vocab = v;
	/* absent: the model class's default (Gemma and Falcon tie, Llama, Qwen, Mistral ... do not) */
	m->tied_embeddings = get_bool(c, "tie_word_embeddings", starts(arch, "gemma") || falcon);
	if ((r = get_int(c, "max_position_embeddings", 1, 1000000000, &v)) < 0)
		return -1;
	m->max_context = r == 1 ? (int)v : -1;

	/* experts: Mixtral/Llama 4 num_local_experts, Qwen num_experts, DeepSeek n_routed_experts */
	static const char *const ekeys[] = {"num_local_experts", "num_experts", "n_routed_experts"};
	for (size_t i = 0; i < sizeof ekeys / sizeof ekeys[0] && !m->experts; i++) {
		if ((r = get_int(c, ekeys[i], 0, 65536, &v)) < 0)
			return -1;
		if (r == 1)
			m->experts = (int)v;
	}
	int64_t inter = -1, inter_mlp = -1, moe_inter = -1;
	if (get_int(c, "intermediate_size", 1, 10000000, &inter) < 0 ||
	    get_int(c, "intermediate_size_mlp", 1, 10000000, &inter_mlp) < 0 ||
	    get_int(c, "moe_intermediate_size", 1, 10000000, &moe_inter) < 0)
		return -1;
	if (inter < 0 && falcon) {
		if (get_int(c, "ffn_hidden_size", 1, 10000000, &inter) < 0)
			return -1;
		if (inter < 0)
			inter = 4LL * m->hidden;
	}
	if (falcon) {
		m->mlp_matrices = 2;
		m->qkv_bias = m->o_bias = m->mlp_bias = get_bool(c, "bias", false);
	}
	if (m->experts > 0) {
		if (need_int(c, "num_experts_per_tok", 1, m->experts, &v))
			return -1;
		m->experts_per_token = (int)v;
		if (moe_inter < 0)
			moe_inter = inter; /* Mixtral, gpt-oss, Llama 4: the experts' size */
		if (inter_mlp > 0)
			inter = inter_mlp; /* Llama 4: the dense layers' size */
		if (moe_inter < 0) {
			fail(c, "config.json: moe_intermediate_size is missing");
			return -1;
		}
		m->moe_intermediate = (int)moe_inter;
		if ((r = get_int(c, "n_shared_experts", 0, 65536, &v)) < 0)
			return -1;
		m->shared_experts = r == 1 ? (int)v : starts(arch, "llama4") ? 1 : 0;
		if ((r = get_int(c, "first_k_dense_replace", 0, m->layers, &v)) < 0)
			return -1;
		if (r == 1)
			m->dense_layers = (int)v;
		if ((r = get_int(c, "interleave_moe_layer_step", 1, m->layers, &v)) < 0)
			return -1;
		if (r == 1 && v > 1)
			m->dense_layers = m->layers - m->layers / (int)v;
		const struct axl__jv *mlp_only = member(c, "mlp_only_layers");
		if (mlp_only && mlp_only->type == AXL__J_ARR && mlp_only->len <= (size_t)m->layers)
			m->dense_layers = (int)mlp_only->len;
	}
	if (inter < 0 && (m->experts == 0 || m->dense_layers > 0)) {
		fail(c, "config.json: intermediate_size is missing");
		return -1;
	}
	m->intermediate = inter > 0 ? (int)inter : -1;

	/* MLA */
	if ((r = get_int(c, "kv_lora_rank", 1, 1000000, &v)) < 0)
		return -1;
	if (r == 1) {
		m->attn = AXL__ATTN_MLA;
		m->kv_lora_rank = (int)v;
		if ((r = get_int(c, "q_lora_rank", 1, 1000000, &v)) < 0)
			return -1;
		m->q_lora_rank = r == 1 ? (int)v : 0;
		if (need_int(c, "qk_rope_head_dim", 0, 65536, &v))
			return -1;
		m->qk_rope_dim = (int)v;
		if (need_int(c, "qk_nope_head_dim", 1, 65536, &v))
			return -1;
		m->qk_nope_dim = (int)v;
		if (need_int(c, "v_head_dim", 1, 65536, &v))
			return -1;
		m->v_head_dim = (int)v;
		m->head_dim = m->qk_nope_dim + m->qk_rope_dim;
	} else {
		m->attn = m->kv_heads == m->heads ? AXL__ATTN_MHA : AXL__ATTN_GQA;
	}

	/* sliding windows: Qwen writes a window it does not use (use_sliding_window false) */
	if ((r = get_int(c, "sliding_window", 0, 1000000000, &v)) < 0)
		return -1;
	if (r == 1 && v > 0 && get_bool(c, "use_sliding_window", true)) {
		m->sliding_window = (int)v;
		m->sliding_layers = m->layers;
		const struct axl__jv *lt = member(c, "layer_types");
		int64_t pat = 0;
		if (lt && lt->type == AXL__J_ARR) {
			int n = 0;
			for (size_t i = 0; i < lt->len && i < (size_t)m->layers; i++)
				if (lt->items[i].type == AXL__J_STR && strstr(lt->items[i].s, "sliding"))
					n++;
			m->sliding_layers = n;
		} else if (starts(arch, "gemma2")) {
			m->sliding_layers = (m->layers + 1) / 2; /* even layers */
		} else if (starts(arch, "gemma3")) {
			if (get_int(c, "sliding_window_pattern", 1, 1000, &pat) < 0)
				return -1;
			if (pat <= 0)
				pat = 6; /* 5 local : 1 global */
			m->sliding_layers = m->layers - m->layers / (int)pat;
		}
	}
	/* Llama 4: chunked attention on 3 of 4 layers holds at most a chunk of tokens */
	if (starts(arch, "llama4") && get_int(c, "attention_chunk_size", 1, 1000000000, &v) == 1) {
		m->sliding_window = (int)v;
		m->sliding_layers = m->layers - m->layers / 4;
	}

	/* biases: Qwen2 always has q/k/v biases; attention_bias (Llama, gpt-oss) all four */
	if (starts(arch, "qwen2") && !starts(arch, "qwen2_moe"))
		m->qkv_bias = true;
	if (get_bool(c, "attention_bias", false))
		m->qkv_bias = m->o_bias = true;
	if (get_bool(c, "mlp_bias", false) || starts(arch, "gpt_oss"))
		m->mlp_bias = true;
	return c->failed ? -1 : 0;
}

static void model_init(struct axl__model *m)
{
	memset(m, 0, sizeof *m);
	m->layers = m->hidden = m->heads = m->kv_heads = m->head_dim = m->intermediate = -1;
	m->vocab = -1;
	m->max_context = -1;
	m->params = m->active_params = -1;
	m->weight_bytes = -1;
}

int axl__model_from_config(const char *text, size_t len, const char *name, struct axl__model *out, char *err,
			   size_t errcap)
{
	if (err && errcap)
		err[0] = 0;
	if (!text || !out)
		return -1;
	struct axl__jdoc *doc = NULL;
	char jerr[128];
	if (axl__jdoc_parse(text, len, &doc, jerr, sizeof jerr)) {
		if (err && errcap)
			snprintf(err, errcap, "config.json: %s", jerr);
		return -1;
	}
	struct cfg c = {.root = axl__jdoc_root(doc), .err = err, .errcap = errcap};
	if (c.root->type != AXL__J_OBJ) {
		axl__jdoc_free(doc);
		if (err && errcap)
			snprintf(err, errcap, "config.json: not a JSON object");
		return -1;
	}
	const struct axl__jv *tc = axl__jv_get(c.root, "text_config");
	c.text = tc && tc->type == AXL__J_OBJ ? tc : c.root;
	struct axl__model m;
	model_init(&m);
	m.source = AXL__MSRC_CONFIG;
	copy(m.id, sizeof m.id, name);
	int rc = read_config(&c, &m);
	axl__jdoc_free(doc);
	if (rc)
		return -1;
	m.params = axl__model_params(&m, &m.active_params);
	if (m.params < 0)
		m.active_params = -1;
	*out = m;
	return 0;
}
