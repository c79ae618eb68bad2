/* SPDX-License-Identifier: MIT */
/* The ggml type llama.cpp's quantiser gives each tensor of a GGUF file type.
 *
 * The rules are those of llama_tensor_get_type() in llama.cpp's src/llama-quant.cpp
 * (2025), restated here from its behaviour:
 *  - every tensor starts at the file type's default type (Q4_K for Q4_K_M, IQ2_XS for
 *    IQ2_S, IQ3_S for IQ3_XS/IQ3_S/IQ3_M, ...);
 *  - the output head (and a tied token embedding) goes to Q6_K, Q5_K for the IQ1/IQ2
 *    types and IQ3_XXS, stays Q8_0 for Q8_0, and is Q8_0 for Falcon;
 *  - an untied token embedding stays at the default type except: Q2_K for IQ1_S/IQ1_M,
 *    IQ2_XXS, IQ2_XS; IQ3_S for IQ2_S, IQ2_M and IQ3_XXS;
 *  - V-class tensors (attn_v, attn_qkv, MLA's attn_kv_b), K, Q, attention output, FFN
 *    down/gate/up get bigger or smaller types depending on the file type, the layer
 *    (use_more_bits: the first and last eighth and every third between), the grouped-
 *    query factor (heads / KV heads >= 4), the number of experts (8 experts: Mixtral's
 *    bumps), and LLM_TYPE_70B (80-layer Llama/Qwen2: V at Q5_K where Q3_K/Q4_K);
 *  - a tensor whose row length is not a multiple of the type's block falls back (Q4_K
 *    -> Q5_0, Q6_K -> Q8_0, Q2_K/Q3_K -> Q4_0, Q5_K -> Q5_1, IQ* -> IQ4_NL; F16 when
 *    even that does not divide);
 *  - norms, biases and the MoE router are not quantised (F32).
 * An importance matrix is assumed (the IQ1/IQ2/IQ3_XXS types need one, and the
 * published imatrix quantisations use one): IQ3_XXS keeps V at IQ3_XXS under GQA < 4,
 * IQ4_XS/IQ4_NL keep the first FFN down projections, Q4_0/Q5_0 put the first eighth of
 * the FFN down projections in Q4_1/Q5_1. */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "gguf.h"
#include "plan.h"

struct ftrow {
	const char *name;
	enum axl__gft ft;
	const char *deflt;
};

static const struct ftrow ftrows[] = {
	{"f32", AXL__GFT_F32, "F32"},         {"f16", AXL__GFT_F16, "F16"},
	{"q8_0", AXL__GFT_Q8_0, "Q8_0"},      {"q6_k", AXL__GFT_Q6_K, "Q6_K"},
	{"q5_k_m", AXL__GFT_Q5_K_M, "Q5_K"},  {"q5_k_s", AXL__GFT_Q5_K_S, "Q5_K"},
	{"q5_k", AXL__GFT_PURE, "Q5_K"},      {"q5_0", AXL__GFT_Q5_0, "Q5_0"},
	{"q5_1", AXL__GFT_Q5_1, "Q5_1"},      {"q4_k_m", AXL__GFT_Q4_K_M, "Q4_K"},
	{"q4_k_s", AXL__GFT_Q4_K_S, "Q4_K"},  {"q4_k", AXL__GFT_PURE, "Q4_K"},
	{"q4_0", AXL__GFT_Q4_0, "Q4_0"},      {"q4_1", AXL__GFT_Q4_1, "Q4_1"},
	{"iq4_xs", AXL__GFT_IQ4_XS, "IQ4_XS"}, {"iq4_nl", AXL__GFT_IQ4_NL, "IQ4_NL"},
	{"q3_k_l", AXL__GFT_Q3_K_L, "Q3_K"},  {"q3_k_m", AXL__GFT_Q3_K_M, "Q3_K"},
	{"q3_k_s", AXL__GFT_Q3_K_S, "Q3_K"},  {"q3_k", AXL__GFT_PURE, "Q3_K"},
	{"iq3_m", AXL__GFT_IQ3_M, "IQ3_S"},   {"iq3_s", AXL__GFT_IQ3_S, "IQ3_S"},
	{"iq3_xs", AXL__GFT_IQ3_XS, "IQ3_S"}, {"iq3_xxs", AXL__GFT_IQ3_XXS, "IQ3_XXS"},
	{"q2_k", AXL__GFT_Q2_K, "Q2_K"},      {"q2_k_s", AXL__GFT_Q2_K_S, "Q2_K"},
	{"iq2_m", AXL__GFT_IQ2_M, "IQ2_S"},   {"iq2_s", AXL__GFT_IQ2_S, "IQ2_XS"},
	{"iq2_xs", AXL__GFT_IQ2_XS, "IQ2_XS"}, {"iq2_xxs", AXL__GFT_IQ2_XXS, "IQ2_XXS"},
	{"iq1_m", AXL__GFT_IQ1_M, "IQ1_M"},   {"iq1_s", AXL__GFT_IQ1_S, "IQ1_S"},
};

int axl__gguf_ftype(const char *name, enum axl__gft *ft, const char **deflt)
{
	for (size_t i = 0; name && i < sizeof ftrows / sizeof ftrows[0]; i++)
		if (strcasecmp(name, ftrows[i].name) == 0) {
			*ft = ftrows[i].ft;
			*deflt = ftrows[i].deflt;
			return 0;
		}
	return -1;
}

const char *axl__gguf_ftype_name(size_t i)
{
	return i < sizeof ftrows / sizeof ftrows[0] ? ftrows[i].name : NULL;
}

static bool more_bits(int i, int n)
{
	return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

static int blck(const char *t)
{
	static const char *const k256[] = {"Q2_K",    "Q3_K",   "Q4_K",  "Q5_K",  "Q6_K",  "IQ2_XXS", "IQ2_XS",
					   "IQ2_S",   "IQ3_XXS", "IQ3_S", "IQ1_S", "IQ1_M", "IQ4_XS"};
	for (size_t i = 0; i < sizeof k256 / sizeof k256[0]; i++)
		if (strcmp(t, k256[i]) == 0)
			return 256;
	if (strcmp(t, "F32") == 0 || strcmp(t, "F16") == 0)
		return 1;
	return 32;
}

/* A type the row length does not divide into blocks falls back. */
static const char *fallback(const char *t, int64_t ncols)
{
	if (ncols % blck(t) == 0)
		return t;
	const char *r;
	if (!strcmp(t, "Q2_K") || !strcmp(t, "Q3_K"))
		r = "Q4_0";
	else if (!strcmp(t, "Q4_K"))
		r = "Q5_0";
	else if (!strcmp(t, "Q5_K"))
		r = "Q5_1";
	else if (!strcmp(t, "Q6_K"))
		r = "Q8_0";
	else if (t[0] == 'I' && t[1] == 'Q')
		r = "IQ4_NL";
	else
		r = "F16";
	return ncols % blck(r) == 0 ? r : "F16";
}

#define IS(f) (ft == AXL__GFT_##f)

static const char *pick(const struct axl__gmix *x, enum axl__gcat cat, int layer, int ffn_down_seq, int64_t ncols)
{
	const enum axl__gft ft = x->ft;
	const char *t = x->deflt;
	if (ft == AXL__GFT_F32 || ft == AXL__GFT_F16)
		return t;
	if (ft == AXL__GFT_PURE)
		return cat == AXL__GC_OUTPUT || (cat == AXL__GC_EMBD && x->tied) ? "Q6_K" : fallback(t, ncols);
	const int n = x->layers;
	const bool gqa4 = x->gqa >= 4, e8 = x->experts == 8;
	const bool iq12 = IS(IQ2_XXS) || IS(IQ2_XS) || IS(IQ1_S) || IS(IQ2_S) || IS(IQ2_M) || IS(IQ1_M);
	const bool iq2sm = IS(IQ2_S) || IS(IQ2_M);
	if (cat == AXL__GC_OUTPUT || (x->tied && cat == AXL__GC_EMBD)) {
		if (x->falcon || ncols % blck(t) != 0)
			t = "Q8_0";
		else if (iq12 || IS(IQ3_XXS))
			t = "Q5_K";
		else if (strcmp(t, "Q8_0") != 0)
			t = "Q6_K";
		return fallback(t, ncols);
	}
	if (cat == AXL__GC_EMBD) {
		if (IS(IQ2_XXS) || IS(IQ2_XS) || IS(IQ1_S) || IS(IQ1_M))
			t = "Q2_K";
		else if (iq2sm || IS(IQ3_XXS))
			t = "IQ3_S";
		return fallback(t, ncols);
	}
	if (iq12) {
		if (cat == AXL__GC_ATTN_V)
			t = gqa4 || x->experts >= 4 ? "Q4_K" : iq2sm ? "IQ3_S" : "Q2_K";
		else if (e8 && cat == AXL__GC_ATTN_K)
			t = "Q4_K";
		else if (cat == AXL__GC_FFN_DOWN) {
			if (ffn_down_seq < n / 8)
				t = iq2sm ? "IQ3_S" : "Q2_K";
		} else if (cat == AXL__GC_ATTN_OUT) {
			if (e8)
				t = "Q5_K";
			else if (IS(IQ1_S) || IS(IQ1_M))
				t = "IQ2_XXS";
			else if (iq2sm)
				t = "IQ3_S";
		}
		return fallback(t, ncols);
	}
	switch (cat) {
	case AXL__GC_ATTN_V:
		if (IS(Q2_K))
			t = gqa4 ? "Q4_K" : "Q3_K";
		else if (IS(Q2_K_S) && gqa4)
			t = "Q4_K";
		else if (IS(IQ3_XXS))
			t = gqa4 ? "Q4_K" : "IQ3_XXS";
		else if ((IS(IQ3_XS) || IS(IQ3_S)) && gqa4)
			t = "Q4_K";
		else if (IS(IQ3_M))
			t = "Q4_K";
		else if (IS(Q3_K_M))
			t = layer < 2 ? "Q5_K" : "Q4_K";
		else if (IS(Q3_K_L))
			t = "Q5_K";
		else if ((IS(IQ4_NL) || IS(IQ4_XS)) && gqa4)
			t = "Q5_K";
		else if ((IS(Q4_K_M) || IS(Q5_K_M)) && more_bits(layer, n))
			t = "Q6_K";
		else if (IS(Q4_K_S) && layer < 4)
			t = "Q5_K";
		if (x->type70b && (!strcmp(t, "Q3_K") || !strcmp(t, "Q4_K")))
			t = "Q5_K";
		if (e8)
			t = "Q8_0";
		break;
	case AXL__GC_ATTN_K:
		if (e8)
			t = "Q8_0";
		else if (IS(IQ3_XS))
			t = "IQ3_XXS";
		else if (IS(IQ3_XXS))
			t = "IQ2_S";
		break;
	case AXL__GC_ATTN_Q:
		if (IS(IQ3_XS))
			t = "IQ3_XXS";
		else if (IS(IQ3_XXS))
			t = "IQ2_S";
		break;
	case AXL__GC_FFN_DOWN:
		if (IS(Q2_K))
			t = "Q3_K";
		else if (IS(Q2_K_S)) {
			if (layer < n / 8)
				t = "Q4_K";
		} else if (IS(Q3_K_M))
			t = layer < n / 16 ? "Q5_K" : !x->falcon || more_bits(layer, n) ? "Q4_K" : "Q3_K";
		else if (IS(IQ3_M) && (layer < n / 8 || (e8 && more_bits(layer, n))))
			t = "Q4_K";
		else if (IS(Q3_K_L))
			t = x->falcon ? "Q4_K" : "Q5_K";
		else if (IS(Q4_K_M)) {
			if (x->falcon)
				t = layer < n / 16 ? "Q6_K" : more_bits(layer, n) ? "Q5_K" : "Q4_K";
			else if (more_bits(layer, n))
				t = "Q6_K";
		} else if (IS(Q5_K_M) && more_bits(layer, n))
			t = "Q6_K";
		else if (IS(Q4_K_S) && !x->falcon && layer < n / 8)
			t = "Q5_K";
		else if ((IS(Q4_0) || IS(Q5_0)) && layer < n / 8)
			t = IS(Q4_0) ? "Q4_1" : "Q5_1";
		break;
	case AXL__GC_ATTN_OUT:
		if (!x->falcon) {
			if (e8) {
				if (IS(Q2_K) || IS(IQ3_XS) || IS(IQ3_XXS) || IS(Q3_K_S) || IS(Q3_K_M) || IS(IQ4_NL) ||
				    IS(Q4_K_S) || IS(Q4_K_M) || IS(IQ3_S) || IS(IQ3_M) || IS(IQ4_XS))
					t = "Q5_K";
			} else if (IS(Q2_K))
				t = "Q3_K";
			else if (IS(IQ3_XXS))
				t = "IQ3_S";
			else if (IS(Q3_K_M) || IS(IQ3_M))
				t = "Q4_K";
			else if (IS(Q3_K_L))
				t = "Q5_K";
		} else if (IS(Q3_K_L))
			t = "Q4_K";
		break;
	case AXL__GC_FFN_GATE:
	case AXL__GC_FFN_UP:
		if (IS(IQ3_XS) && layer >= n / 8 && layer < 7 * n / 8)
			t = "IQ3_XXS";
		break;
	default:
		break;
	}
	return fallback(t, ncols);
}

double axl__gmix_bytes(const struct axl__gmix *x, enum axl__gcat cat, int layer, int ffn_down_seq, double params,
		       int64_t ncols, const char **type)
{
	const char *t = pick(x, cat, layer, ffn_down_seq, ncols);
	if (type)
		*type = t;
	double bits = axl__gguf_type_bits(t);
	return params * (bits > 0 ? bits : 16) / 8;
}
