/* SPDX-License-Identifier: MIT */
/* The planner's memory model (docs/plan.md): what each layer of a model holds
 * in weights and KV cache, what a decode step reads and a token multiplies, at a given
 * quantisation and KV type.
 *
 * Bits per weight:
 *  - fp32 32, bf16/fp16 16; fp8 8 (per-tensor scales, negligible) and int8 8 (per-channel
 *    scales, < 0.01 bit), embedding, head, norms and router kept at 16 bits as the FP8
 *    and W8A8 checkpoints of vLLM / llm-compressor keep them;
 *  - int4, awq, gptq: 4 bits plus one fp16 scale and one 4-bit zero point per group of
 *    128 weights = 4.15625 bits (GPTQ's g_idx, 32 bits per input row, is < 0.01 bit);
 *    embedding and head at 16;
 *  - GGUF file types: the per-tensor ggml types of llama.cpp's quantiser
 *    (llama_tensor_get_type; gguf_mix.c): bigger types for V, FFN down, attention output,
 *    head and embedding by layer, GQA and experts, block-size fallbacks; norms in F32. A
 *    real file's own types are used as stored.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gguf.h"
#include "model_catalog.h"
#include "plan.h"

#define INT4_GROUP_BITS (4.0 + 16.0 / 128.0 + 4.0 / 128.0)

struct qrow {
	const char *name;
	double bits, emb, head, small;
	enum axl__pfmt compute;
};

static const struct qrow qrows[] = {
	{"fp32", 32, 32, 32, 32, AXL__PF_FP32},
	{"bf16", 16, 16, 16, 16, AXL__PF_BF16},
	{"fp16", 16, 16, 16, 16, AXL__PF_FP16},
	{"fp8", 8, 16, 16, 16, AXL__PF_FP8},
	{"int8", 8, 16, 16, 16, AXL__PF_INT8},
	{"int4", INT4_GROUP_BITS, 16, 16, 16, AXL__PF_BF16},
	{"awq", INT4_GROUP_BITS, 16, 16, 16, AXL__PF_FP16},
	{"gptq", INT4_GROUP_BITS, 16, 16, 16, AXL__PF_FP16},
	/* OCP MX FP4: 32 4-bit values share one 8-bit scale (4.25 bits); gpt-oss keeps
	 * attention, embedding and head in bf16, which the MoE experts dwarf */
	{"mxfp4", 4.25, 16, 16, 16, AXL__PF_BF16},
};

static const struct {
	const char *alias, *name;
} qalias[] = {{"float32", "fp32"}, {"bfloat16", "bf16"}, {"float16", "fp16"}, {"half", "fp16"},
	      {"f8", "fp8"},        {"fp8_e4m3", "fp8"}, {"w8a8", "int8"},    {"w4a16", "int4"}};

int axl__quant_parse(const char *name, struct axl__quant *q)
{
	if (!name || !q)
		return -1;
	for (size_t i = 0; i < sizeof qalias / sizeof qalias[0]; i++)
		if (strcasecmp(name, qalias[i].alias) == 0)
			name = qalias[i].name;
	for (size_t i = 0; i < sizeof qrows / sizeof qrows[0]; i++) {
		const struct qrow *r = &qrows[i];
		if (strcasecmp(name, r->name) != 0)
			continue;
		memset(q, 0, sizeof *q);
		snprintf(q->name, sizeof q->name, "%s", r->name);
		q->compute = r->compute;
		q->small_bits = r->small;
		q->body_bits = r->bits;
		q->emb_bits = r->emb;
		q->head_bits = r->head;
		return 0;
	}
	enum axl__gft ft;
	const char *deflt;
	if (axl__gguf_ftype(name, &ft, &deflt) != 0)
		return -1;
	memset(q, 0, sizeof *q);
	for (size_t i = 0; name[i] && i + 1 < sizeof q->name; i++)
		q->name[i] = (char)tolower((unsigned char)name[i]);
	q->gguf = true;
	q->gft = ft;
	q->compute = ft == AXL__GFT_F32 ? AXL__PF_FP32 : AXL__PF_FP16;
	q->small_bits = 32;
	q->body_bits = q->emb_bits = axl__gguf_type_bits(deflt);
	q->head_bits = ft == AXL__GFT_F32 || ft == AXL__GFT_F16 || ft == AXL__GFT_Q8_0 ? q->body_bits
										 : axl__gguf_type_bits("Q6_K");
	return q->body_bits > 0 ? 0 : -1;
}

/* The dtype holding most parameters. */
static const struct axl__model_dtype *dominant(const struct axl__model *m)
{
	const struct axl__model_dtype *best = NULL;
	for (size_t i = 0; i < m->ndtypes; i++)
		if (!best || m->dtypes[i].params > best->params)
			best = &m->dtypes[i];
	return best;
}

void axl__quant_default(const struct axl__model *m, struct axl__quant *q)
{
	const struct axl__model_dtype *d = m ? dominant(m) : NULL;
	if (!d || m->weight_bytes <= 0) {
		if (!m || !m->published_dtype[0] || axl__quant_parse(m->published_dtype, q) != 0)
			axl__quant_parse("bf16", q);
		return;
	}
	memset(q, 0, sizeof *q);
	snprintf(q->name, sizeof q->name, "file");
	q->from_file = true;
	q->gguf = m->source == AXL__MSRC_GGUF;
	double bits = 8.0 * (double)m->weight_bytes / (double)(m->params > 0 ? m->params : 1);
	q->body_bits = q->emb_bits = q->head_bits = q->small_bits = bits;
	const char *n = d->name;
	if (strncasecmp(n, "F8", 2) == 0 || strncasecmp(n, "FP8", 3) == 0)
		q->compute = AXL__PF_FP8;
	else if (strcasecmp(n, "BF16") == 0)
		q->compute = AXL__PF_BF16;
	else if (strcasecmp(n, "F32") == 0)
		q->compute = AXL__PF_FP32;
	else if (strcasecmp(n, "I8") == 0 || strcasecmp(n, "INT8") == 0)
		q->compute = AXL__PF_INT8;
	else
		q->compute = AXL__PF_FP16;
}

double axl__kv_dtype_bytes(const char *name, char *canon)
{
	static const struct {
		const char *name, *canon;
		double bytes;
	} kv[] = {{"fp32", "fp32", 4}, {"f32", "fp32", 4},  {"bf16", "bf16", 2}, {"fp16", "fp16", 2},
		  {"f16", "fp16", 2},  {"auto", "bf16", 2}, {"fp8", "fp8", 1},   {"fp8_e4m3", "fp8", 1},
		  {"fp8_e5m2", "fp8", 1}, {"int8", "int8", 1}, {"q8_0", "q8_0", 8.5 / 8}, {"q4_0", "q4_0", 4.5 / 8}};
	for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
		if (name && strcasecmp(name, kv[i].name) == 0) {
			if (canon)
				snprintf(canon, 16, "%s", kv[i].canon);
			return kv[i].bytes;
		}
	return -1;
}

/* Of `count` special layers spread over n, is layer i one (evenly spaced, the last one
 * of each period: Gemma 3's global layer is the 6th of 6). */
static bool spread(int i, int count, int n)
{
	if (count <= 0)
		return false;
	if (count >= n)
		return true;
	return (int64_t)(i + 1) * count / n > (int64_t)i * count / n;
}

static int fail(char *err, size_t cap, const char *msg)
{
	if (err && cap)
		snprintf(err, cap, "%s", msg);
	return -1;
}

double axl__mm_kv_layer(const struct axl__mm *mm, int i, int64_t tokens)
{
	if (i < 0 || i >= mm->layers || tokens <= 0)
		return 0;
	const struct axl__lw *l = &mm->lw[i];
	if (l->sliding && mm->window > 0 && tokens > mm->window)
		tokens = mm->window;
	return l->kv_token * (double)tokens;
}

/* The bytes of one tensor: per llama.cpp's rules for a GGUF file type (x not NULL), else
 * the quantisation's body, embedding or head bits. */
static double tb(const struct axl__gmix *x, const struct axl__quant *q, enum axl__gcat c, int layer, int seq,
		 double params, int64_t ncols)
{
	if (x)
		return axl__gmix_bytes(x, c, layer, seq, params, ncols, NULL);
	double bits = c == AXL__GC_EMBD ? q->emb_bits : c == AXL__GC_OUTPUT ? q->head_bits : q->body_bits;
	return params * bits / 8;
}

int axl__mm_build(struct axl__mm *mm, const struct axl__model *m, const struct axl__quant *q, double kv_bytes,
		  int64_t context, char *err, size_t errcap)
{
	memset(mm, 0, sizeof *mm);
	if (m->layers <= 0 || m->layers > 100000)
		return fail(err, errcap, "the model's layer count is not known");
	if (m->hidden <= 0)
		return fail(err, errcap, "the model's hidden size is not known");
	if (m->heads <= 0)
		return fail(err, errcap,
			    "the model's attention heads are not known (a config.json beside the weights gives them)");
	if (m->vocab <= 0)
		return fail(err, errcap, "the model's vocabulary size is not known");
	const bool mla = m->attn == AXL__ATTN_MLA;
	if (mla) {
		if (m->kv_lora_rank <= 0 || m->qk_rope_dim < 0 || m->qk_nope_dim <= 0 || m->v_head_dim <= 0)
			return fail(err, errcap, "the model's MLA dimensions are not known");
	} else if (m->kv_heads <= 0 || m->head_dim <= 0) {
		return fail(err, errcap, "the model's KV heads or head dimension are not known");
	}
	const bool moe = m->experts > 0;
	if (moe && (m->moe_intermediate <= 0 || m->experts_per_token <= 0 || m->experts_per_token > m->experts))
		return fail(err, errcap, "the model's expert sizes are not known");
	const int L = m->layers;
	int dense = moe ? (m->dense_layers > 0 ? m->dense_layers : 0) : L;
	if (dense > L)
		return fail(err, errcap, "the model has more dense layers than layers");
	if (dense > 0 && m->intermediate <= 0)
		return fail(err, errcap, "the model's intermediate size is not known");
	if (!(kv_bytes > 0))
		return fail(err, errcap, "bad KV cache type");
	mm->lw = calloc((size_t)L, sizeof *mm->lw);
	if (!mm->lw)
		return fail(err, errcap, "out of memory");
	mm->layers = L;
	mm->hidden = m->hidden;
	mm->heads = m->heads;
	mm->kv_heads = mla ? 0 : m->kv_heads;
	mm->experts = moe ? m->experts : 0;
	mm->experts_per_token = moe ? m->experts_per_token : 0;
	mm->vocab = m->vocab;
	mm->tied = m->tied_embeddings;
	mm->kv_bytes = kv_bytes;
	mm->window = m->sliding_window > 0 ? m->sliding_window : 0;
	int sliding = mm->window > 0 ? (m->sliding_layers > 0 ? m->sliding_layers : L) : 0;
	const int mm3 = m->mlp_matrices > 0 ? m->mlp_matrices : 3;
	const bool interleave = moe && dense > 0 && strstr(m->arch, "llama4") != NULL;
	const double h = m->hidden;
	const double small = q->small_bits / 8;
	struct axl__gmix gmix = {0};
	const struct axl__gmix *gx = NULL;
	if (q->gguf && !q->from_file && axl__gguf_ftype(q->name, &gmix.ft, &gmix.deflt) == 0) {
		gmix.layers = L;
		gmix.gqa = mla ? 1 : m->heads / m->kv_heads;
		gmix.experts = moe ? m->experts : 0;
		gmix.tied = m->tied_embeddings;
		gmix.falcon = strncmp(m->arch, "falcon", 6) == 0;
		/* llama.cpp's LLM_TYPE_70B: the 80-layer Llama and Qwen2 models */
		gmix.type70b = L == 80 && (strcmp(m->arch, "llama") == 0 || strcmp(m->arch, "qwen2") == 0);
		gx = &gmix;
	}

	/* attention, in parameters, and its bias/norm parameters */
	double attn_params, attn_bias;
	if (mla) {
		double qd = (double)m->heads * (m->qk_nope_dim + m->qk_rope_dim);
		double qp = m->q_lora_rank > 0 ? h * m->q_lora_rank + (double)m->q_lora_rank * qd : h * qd;
		attn_params = qp + h * (m->kv_lora_rank + m->qk_rope_dim) + (double)m->heads * m->v_head_dim * h +
			      (double)m->kv_lora_rank * m->heads * (m->qk_nope_dim + m->v_head_dim);
		attn_bias = m->kv_lora_rank + (m->q_lora_rank > 0 ? m->q_lora_rank : 0); /* the latent norms */
	} else {
		double qd = (double)m->heads * m->head_dim, kvd = (double)m->kv_heads * m->head_dim;
		attn_params = 2 * h * qd + 2 * h * kvd;
		attn_bias = (m->qkv_bias ? qd + 2 * kvd : 0) + (m->o_bias ? h : 0);
	}
	double attn_flops = mla ? 2.0 * m->heads * (m->qk_nope_dim + m->qk_rope_dim) + 2.0 * m->heads * m->v_head_dim
				: 4.0 * m->heads * m->head_dim;
	double kv_token =
	    (mla ? (double)(m->kv_lora_rank + m->qk_rope_dim) : 2.0 * m->kv_heads * m->head_dim) * kv_bytes;
	double I = m->intermediate > 0 ? m->intermediate : 0, mi = moe ? m->moe_intermediate : 0;
	int shared = moe && m->shared_experts > 0 ? m->shared_experts : 0;
	int widest = (int)I;
	if (moe) {
		int w = (m->experts_per_token + shared) * m->moe_intermediate;
		if (w > widest)
			widest = w;
	}
	mm->intermediate = widest;
	const int64_t H = m->hidden;

	int down_seq = 0; /* the FFN down tensors in file order (llama.cpp's i_ffn_down) */
	for (int i = 0; i < L; i++) {
		struct axl__lw *l = &mm->lw[i];
		bool is_moe = moe && (interleave ? !spread(i, dense, L) : i >= dense);
		l->hidden = m->hidden;
		l->kv_token = kv_token;
		l->kv_heads = mm->kv_heads;
		/* the global layers are the spread ones */
		l->sliding = sliding > 0 && !spread(i, L - sliding, L);
		l->attn_flops = attn_flops;
		double split;
		if (mla) {
			int64_t qd = (int64_t)m->heads * (m->qk_nope_dim + m->qk_rope_dim),
				vd = (int64_t)m->heads * m->v_head_dim;
			if (m->q_lora_rank > 0)
				split = tb(gx, q, AXL__GC_OTHER, i, 0, h * m->q_lora_rank, H) +
					tb(gx, q, AXL__GC_OTHER, i, 0, (double)m->q_lora_rank * qd, m->q_lora_rank);
			else
				split = tb(gx, q, AXL__GC_ATTN_Q, i, 0, h * qd, H);
			split += tb(gx, q, AXL__GC_OTHER, i, 0, h * (m->kv_lora_rank + m->qk_rope_dim), H);
			split +=
			    tb(gx, q, AXL__GC_ATTN_V, i, 0,
			       (double)m->kv_lora_rank * m->heads * (m->qk_nope_dim + m->v_head_dim), m->kv_lora_rank);
			split += tb(gx, q, AXL__GC_ATTN_OUT, i, 0, (double)vd * h, vd);
		} else {
			int64_t qd = (int64_t)m->heads * m->head_dim, kvd = (int64_t)m->kv_heads * m->head_dim;
			split = tb(gx, q, AXL__GC_ATTN_Q, i, 0, h * (double)qd, H) +
				tb(gx, q, AXL__GC_ATTN_K, i, 0, h * (double)kvd, H) +
				tb(gx, q, AXL__GC_ATTN_V, i, 0, h * (double)kvd, H) +
				tb(gx, q, AXL__GC_ATTN_OUT, i, 0, (double)qd * h, qd);
		}
		double repl = (2 * h + attn_bias) * small;
		double flop_params = attn_params;
		if (!is_moe) {
			int64_t In = (int64_t)I;
			double mlp = tb(gx, q, AXL__GC_FFN_UP, i, 0, h * I, H) +
				     tb(gx, q, AXL__GC_FFN_DOWN, i, down_seq++, h * I, In);
			if (mm3 >= 3)
				mlp += (mm3 - 2) * tb(gx, q, AXL__GC_FFN_GATE, i, 0, h * I, H);
			split += mlp;
			repl += (m->mlp_bias ? (mm3 - 1) * I + h : 0) * small;
			flop_params += (double)mm3 * h * I;
			l->fixed_read = split + repl;
		} else {
			int64_t Mi = m->moe_intermediate;
			double gu =
			    tb(gx, q, AXL__GC_FFN_GATE, i, 0, h * mi, H) + tb(gx, q, AXL__GC_FFN_UP, i, 0, h * mi, H);
			double one = gu + tb(gx, q, AXL__GC_FFN_DOWN, i, down_seq++, h * mi, Mi) +
				     (m->mlp_bias ? (2 * mi + h) * small : 0);
			double sh = 0;
			if (shared > 0)
				sh = shared * (gu + tb(gx, q, AXL__GC_FFN_DOWN, i, down_seq++, h * mi, Mi) +
					       (m->mlp_bias ? (2 * mi + h) * small : 0));
			double router = ((double)m->experts * h + (m->mlp_bias ? m->experts : 0)) * small;
			l->expert = one;
			l->experts = m->experts;
			split += m->experts * one + sh;
			repl += router;
			flop_params += (double)(m->experts_per_token + shared) * 3 * h * mi + (double)m->experts * h;
			l->fixed_read = (split - m->experts * one) + repl;
		}
		l->split = split;
		l->replicated = repl;
		l->flops_token = 2 * flop_params;
	}
	mm->emb = tb(gx, q, AXL__GC_EMBD, -1, 0, (double)m->vocab * h, H);
	mm->head = m->tied_embeddings ? 0 : tb(gx, q, AXL__GC_OUTPUT, -1, 0, (double)m->vocab * h, H);
	mm->head_flops = 2.0 * (double)m->vocab * h;
	double total = mm->emb + mm->head + h * small;
	for (int i = 0; i < L; i++)
		total += mm->lw[i].split + mm->lw[i].replicated;
	/* a file's bytes as stored: scale the architecture's shape to the file's total */
	if (q->from_file && m->weight_bytes > 0 && total > 0) {
		double f = (double)m->weight_bytes / total;
		for (int i = 0; i < L; i++) {
			struct axl__lw *l = &mm->lw[i];
			l->split *= f;
			l->replicated *= f;
			l->fixed_read *= f;
			l->expert *= f;
		}
		mm->emb *= f;
		mm->head *= f;
		total = (double)m->weight_bytes;
	}
	mm->weights = total;
	double kvsum = 0;
	int64_t ctx = context > 0 ? context : 1;
	for (int i = 0; i < L; i++) {
		mm->lw[i].kv_ctx = axl__mm_kv_layer(mm, i, ctx);
		kvsum += mm->lw[i].kv_ctx;
	}
	mm->kv_token_avg = kvsum / (double)ctx;
	return 0;
}

void axl__mm_free(struct axl__mm *mm)
{
	if (mm) {
		free(mm->lw);
		mm->lw = NULL;
	}
}
