/* SPDX-License-Identifier: MIT */
/* The model catalog, the parameter count against every published figure, the KV cache
 * per token against hand-computed values, and the config.json reader on real configs and
 * malformed ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check.h"
#include "model_catalog.h"

static double rel(int64_t a, int64_t b)
{
	double d = (double)a - (double)b;
	return (d < 0 ? -d : d) / (double)b;
}

/* Total parameters: within 0.5% of the published figure, or within half the rounding
 * unit of a rounded figure ("0.6B" is 0.55..0.65B). pub_extra is what the published
 * figure counts beyond the text model (Falcon: the tied lm_head tensor its checkpoint
 * stores again). Exception: Llama 4's 109B/400B include the vision encoder, for which
 * Meta publishes no separate figure: 2% there (computed text model 107.8B/400.7B).
 * Active parameters: the planner counts every parameter a token touches, the input
 * embedding included, as Qwen, Meta, Mistral and DeepSeek-V3 publish them; gpt-oss and
 * DeepSeek-V2-Lite publish theirs without the embedding (pub_active_no_emb), compared
 * without it. Within 2.5%, or half the published figure's last digit. */
static void catalog_params(void)
{
	size_t n = axl__catalog_count();
	CHECK(n >= 40);
	for (size_t i = 0; i < n; i++) {
		const struct axl__catalog_entry *e = axl__catalog_at(i);
		struct axl__model m;
		axl__catalog_model(e, &m);
		int64_t active = 0, p = axl__model_params(&m, &active);
		int64_t pub = e->pub_params - e->pub_extra;
		double tol = 0.005;
		if (!strncmp(e->alias, "llama4", 6))
			tol = 0.02;
		double unit_tol = (double)e->pub_unit / 2 / (double)pub;
		if (unit_tol > tol)
			tol = unit_tol;
		int ok = p > 0 && rel(p, pub) <= tol;
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "%s: computed %lld, published %lld (%.2f%%)\n", e->id, (long long)p,
				(long long)pub, 100 * rel(p, pub));
		CHECK(m.params == p);
		if (e->pub_active > 0) {
			/* within 2.5% (DeepSeek-V2-Lite's "2.4B" is the farthest: 2.45B, +2.1%), or
			 * half the published figure's last digit ("17B": 0.5B) */
			int64_t a = e->pub_active_no_emb ? active - e->vocab * (int64_t)e->hidden : active;
			double aunit = e->pub_active % 1000000000LL == 0 ? 1e9 : 1e8;
			double atol =
			    aunit / 2 / (double)e->pub_active > 0.025 ? aunit / 2 / (double)e->pub_active : 0.025;
			int aok = rel(a, e->pub_active) <= atol;
			CHECK(aok);
			if (!aok)
				fprintf(stderr, "%s: active %lld, published %lld\n", e->id, (long long)a,
					(long long)e->pub_active);
		}
		CHECK(active <= p);
		/* every entry sane */
		CHECK(e->kv_heads >= 1 && e->heads % e->kv_heads == 0);
		/* the strings are arrays (no relocation): each ends inside its own */
		CHECK(memchr(e->id, 0, sizeof e->id) && memchr(e->alias, 0, sizeof e->alias) &&
		      memchr(e->arch, 0, sizeof e->arch) && memchr(e->dtype, 0, sizeof e->dtype));
		CHECK(e->id[0] && e->alias[0] && e->arch[0]);
		CHECK(axl__catalog_find(e->id) == e);
		CHECK(axl__catalog_find(e->alias) == e);
		for (size_t j = 0; j < i; j++) {
			CHECK(strcasecmp(axl__catalog_at(j)->alias, e->alias) != 0);
			CHECK(strcasecmp(axl__catalog_at(j)->id, e->id) != 0);
		}
	}
	CHECK(axl__catalog_find("META-LLAMA/llama-3.1-8b") == axl__catalog_find("llama3.1-8b"));
	CHECK(axl__catalog_find("https://huggingface.co/Qwen/Qwen3-8B/") == axl__catalog_find("qwen3-8b"));
	CHECK(axl__catalog_find("no/such-model") == NULL);
	CHECK(axl__catalog_find("") == NULL);
	CHECK(axl__catalog_find(NULL) == NULL);
	struct axl__model m;
	CHECK(axl__model_from_catalog("nope", &m) == -1);
	CHECK(axl__model_from_catalog("deepseek-v3", &m) == 0);
	CHECK(m.source == AXL__MSRC_CATALOG && m.attn == AXL__ATTN_MLA);
}

static int64_t kv(const char *name, double b, int64_t ctx)
{
	struct axl__model m;
	if (axl__model_from_catalog(name, &m))
		return -2;
	return axl__model_kv_bytes_per_token(&m, b, ctx);
}

static void kv_cache(void)
{
	CHECK_INT(kv("llama3.1-8b", 2, 8192), 131072);        /* 2*32*8*128*2 */
	CHECK_INT(kv("llama2-7b", 2, 4096), 524288);          /* 2*32*32*128*2 */
	CHECK_INT(kv("llama3.1-8b", 1, 8192), 65536);         /* fp8 */
	CHECK_INT(kv("deepseek-v3", 2, 100000), 70272);       /* 61*(512+64)*2 */
	CHECK_INT(kv("deepseek-r1", 2, 1), 70272);
	/* Mistral 7B v0.1: window 4096 on all 32 layers; 131072 up to the window */
	CHECK_INT(kv("mistral-7b-v0.1", 2, 4096), 131072);
	CHECK_INT(kv("mistral-7b-v0.1", 2, 32768), 16384);    /* 131072*4096/32768 */
	CHECK_INT(kv("mistral-7b-v0.3", 2, 32768), 131072);   /* no window */
	/* Gemma 2 9B: 2*8*256*2 = 8192 per layer, 21 of 42 layers windowed at 4096 */
	CHECK_INT(kv("gemma2-9b", 2, 4096), 344064);          /* 42*8192 */
	CHECK_INT(kv("gemma2-9b", 2, 8192), 258048);          /* (21 + 21*0.5)*8192 */
	CHECK_INT(kv("gemma2-9b", 2, 0), 344064);             /* no context: every layer */
	/* Gemma 3 27B at 128K: 2*16*128*2 = 8192 per layer; 10 global + 52 of 1024/131072 */
	CHECK_INT(kv("gemma3-27b", 2, 131072), 81920 + 3328); /* 10*8192 + 52*8192/128 */
	struct axl__model m;
	memset(&m, 0, sizeof m);
	CHECK_INT(axl__model_kv_bytes_per_token(&m, 2, 1), -1);
	CHECK_INT(axl__model_kv_bytes_per_token(NULL, 2, 1), -1);
	CHECK_INT(kv("llama3.1-8b", 0, 1), -1);
}

static const char llama31_8b[] =
	"{\"architectures\":[\"LlamaForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
	"\"bos_token_id\":128000,\"eos_token_id\":128001,\"hidden_act\":\"silu\",\"hidden_size\":4096,"
	"\"initializer_range\":0.02,\"intermediate_size\":14336,\"max_position_embeddings\":131072,"
	"\"mlp_bias\":false,\"model_type\":\"llama\",\"num_attention_heads\":32,\"num_hidden_layers\":32,"
	"\"num_key_value_heads\":8,\"pretraining_tp\":1,\"rms_norm_eps\":1e-05,\"rope_scaling\":{\"factor\":8.0,"
	"\"low_freq_factor\":1.0,\"high_freq_factor\":4.0,\"original_max_position_embeddings\":8192,"
	"\"rope_type\":\"llama3\"},\"rope_theta\":500000.0,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\","
	"\"transformers_version\":\"4.43.0.dev0\",\"use_cache\":true,\"vocab_size\":128256}";

static const char qwen3_30b[] =
	"{\"architectures\":[\"Qwen3MoeForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
	"\"bos_token_id\":151643,\"decoder_sparse_step\":1,\"eos_token_id\":151645,\"head_dim\":128,"
	"\"hidden_act\":\"silu\",\"hidden_size\":2048,\"initializer_range\":0.02,\"intermediate_size\":6144,"
	"\"max_position_embeddings\":40960,\"max_window_layers\":48,\"mlp_only_layers\":[],"
	"\"model_type\":\"qwen3_moe\",\"moe_intermediate_size\":768,\"norm_topk_prob\":true,"
	"\"num_attention_heads\":32,\"num_experts\":128,\"num_experts_per_tok\":8,\"num_hidden_layers\":48,"
	"\"num_key_value_heads\":4,\"output_router_logits\":false,\"rms_norm_eps\":1e-06,\"rope_scaling\":null,"
	"\"rope_theta\":1000000.0,\"router_aux_loss_coef\":0.001,\"sliding_window\":null,"
	"\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"use_cache\":true,"
	"\"use_sliding_window\":false,\"vocab_size\":151936}";

static const char deepseek_v3[] =
	"{\"architectures\":[\"DeepseekV3ForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
	"\"auto_map\":{\"AutoConfig\":\"configuration_deepseek.DeepseekV3Config\"},\"aux_loss_alpha\":0.001,"
	"\"bos_token_id\":0,\"eos_token_id\":1,\"ep_size\":1,\"first_k_dense_replace\":3,\"hidden_act\":\"silu\","
	"\"hidden_size\":7168,\"initializer_range\":0.02,\"intermediate_size\":18432,\"kv_lora_rank\":512,"
	"\"max_position_embeddings\":163840,\"model_type\":\"deepseek_v3\",\"moe_intermediate_size\":2048,"
	"\"moe_layer_freq\":1,\"n_group\":8,\"n_routed_experts\":256,\"n_shared_experts\":1,\"norm_topk_prob\":true,"
	"\"num_attention_heads\":128,\"num_experts_per_tok\":8,\"num_hidden_layers\":61,\"num_key_value_heads\":128,"
	"\"num_nextn_predict_layers\":1,\"q_lora_rank\":1536,\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,"
	"\"rms_norm_eps\":1e-06,\"rope_theta\":10000,\"routed_scaling_factor\":2.5,\"scoring_func\":\"sigmoid\","
	"\"tie_word_embeddings\":false,\"topk_group\":4,\"topk_method\":\"noaux_tc\",\"torch_dtype\":\"bfloat16\","
	"\"v_head_dim\":128,\"vocab_size\":129280}";

static int from(const char *text, struct axl__model *m, char *err, size_t cap)
{
	return axl__model_from_config(text, strlen(text), "test", m, err, cap);
}

/* A config and its catalog twin describe the same model. */
static void same(const struct axl__model *a, const char *alias)
{
	struct axl__model c;
	CHECK(axl__model_from_catalog(alias, &c) == 0);
	CHECK_INT(a->layers, c.layers);
	CHECK_INT(a->hidden, c.hidden);
	CHECK_INT(a->heads, c.heads);
	CHECK_INT(a->kv_heads, c.kv_heads);
	CHECK_INT(a->head_dim, c.head_dim);
	CHECK_INT(a->vocab, c.vocab);
	CHECK_INT(a->tied_embeddings, c.tied_embeddings);
	CHECK_INT(a->max_context, c.max_context);
	CHECK_INT(a->attn, c.attn);
	CHECK_INT(a->experts, c.experts);
	CHECK_INT(a->experts_per_token, c.experts_per_token);
	CHECK_INT(a->shared_experts, c.shared_experts);
	CHECK_INT(a->moe_intermediate, c.moe_intermediate);
	CHECK_INT(a->dense_layers, c.dense_layers);
	CHECK_INT(a->kv_lora_rank, c.kv_lora_rank);
	CHECK_INT(a->q_lora_rank, c.q_lora_rank);
	CHECK_INT(a->sliding_window, c.sliding_window);
	CHECK_INT(a->params, c.params);
	CHECK_INT(a->active_params, c.active_params);
}

static void configs(void)
{
	struct axl__model m;
	char err[160];
	CHECK(from(llama31_8b, &m, err, sizeof err) == 0);
	CHECK(m.source == AXL__MSRC_CONFIG);
	CHECK_STR(m.id, "test");
	CHECK_STR(m.arch, "llama");
	CHECK(m.attn == AXL__ATTN_GQA);
	same(&m, "llama3.1-8b");
	CHECK(rel(m.params, 8030261248LL) < 0.0001);
	CHECK(from(qwen3_30b, &m, err, sizeof err) == 0);
	CHECK_INT(m.sliding_window, 0);
	same(&m, "qwen3-30b-a3b");
	CHECK(from(deepseek_v3, &m, err, sizeof err) == 0);
	CHECK(m.attn == AXL__ATTN_MLA);
	CHECK_INT(m.qk_rope_dim, 64);
	CHECK_INT(m.v_head_dim, 128);
	same(&m, "deepseek-v3");
	CHECK_INT(axl__model_kv_bytes_per_token(&m, 2, 4096), 70272);
	/* multimodal: the text_config */
	CHECK(from("{\"model_type\":\"gemma3\",\"vision_config\":{\"hidden_size\":1152},\"text_config\":{"
		   "\"model_type\":\"gemma3_text\",\"hidden_size\":5376,\"intermediate_size\":21504,"
		   "\"num_hidden_layers\":62,\"num_attention_heads\":32,\"num_key_value_heads\":16,\"head_dim\":128,"
		   "\"sliding_window\":1024,\"vocab_size\":262208,\"max_position_embeddings\":131072}}",
		   &m, err, sizeof err) == 0);
	same(&m, "gemma3-27b");
	/* Llama 2 era: no num_key_value_heads means MHA */
	CHECK(from("{\"hidden_size\":4096,\"intermediate_size\":11008,\"num_attention_heads\":32,"
		   "\"num_hidden_layers\":32,\"vocab_size\":32000,\"max_position_embeddings\":4096}",
		   &m, err, sizeof err) == 0);
	CHECK(m.attn == AXL__ATTN_MHA && m.kv_heads == 32 && m.head_dim == 128);
}

static void refused(const char *text, const char *why)
{
	struct axl__model m;
	char err[160] = "";
	int rc = from(text, &m, err, sizeof err);
	CHECK(rc == -1);
	if (rc == 0 || !strstr(err, why))
		fprintf(stderr, "'%s': got '%s', expected '%s'\n", text, err, why);
	CHECK(strstr(err, why) != NULL);
}

#define BASE "\"hidden_size\":4096,\"intermediate_size\":14336,\"num_attention_heads\":32,\"vocab_size\":32000"

static void malformed(void)
{
	refused("", "config.json: offset");
	refused("[1,2]", "not a JSON object");
	refused("{\"num_hidden_layers\":32", "config.json: offset");
	refused("{" BASE "}", "num_hidden_layers is missing");
	refused("{" BASE ",\"num_hidden_layers\":0}", "num_hidden_layers 0 is out of range");
	refused("{" BASE ",\"num_hidden_layers\":100000}", "num_hidden_layers 100000 is out of range");
	refused("{" BASE ",\"num_hidden_layers\":32.5}", "num_hidden_layers is not an integer");
	refused("{" BASE ",\"num_hidden_layers\":\"32\"}", "num_hidden_layers is not an integer");
	refused("{" BASE ",\"num_hidden_layers\":1e300}", "num_hidden_layers is not an integer");
	refused("{\"num_hidden_layers\":32,\"hidden_size\":-4096,\"num_attention_heads\":32,\"vocab_size\":1}",
		"hidden_size -4096 is out of range");
	refused("{" BASE ",\"num_hidden_layers\":32,\"num_key_value_heads\":64}",
		"num_key_value_heads 64 is more than num_attention_heads 32");
	refused("{" BASE ",\"num_hidden_layers\":32,\"num_key_value_heads\":5}",
		"not a multiple of num_key_value_heads");
	refused("{\"hidden_size\":4000,\"intermediate_size\":1,\"num_attention_heads\":3,\"vocab_size\":1,"
		"\"num_hidden_layers\":2}",
		"hidden_size 4000 is not a multiple of num_attention_heads 3");
	refused("{" BASE ",\"num_hidden_layers\":32,\"vocab_size\":99999999999}",
		"vocab_size 99999999999 is out of range");
	refused("{\"hidden_size\":4096,\"num_attention_heads\":32,\"vocab_size\":32000,\"num_hidden_layers\":32}",
		"intermediate_size is missing");
	refused("{" BASE ",\"num_hidden_layers\":32,\"num_local_experts\":8}", "num_experts_per_tok is missing");
	refused("{" BASE ",\"num_hidden_layers\":32,\"num_local_experts\":8,\"num_experts_per_tok\":9}",
		"num_experts_per_tok 9 is out of range");
	refused("{" BASE ",\"num_hidden_layers\":32,\"kv_lora_rank\":512}", "qk_rope_head_dim is missing");
	refused("{" BASE ",\"num_hidden_layers\":32,\"tie_word_embeddings\":1}",
		"tie_word_embeddings is not true or false");
	refused("{" BASE ",\"num_hidden_layers\":32,\"max_position_embeddings\":-1}", "max_position_embeddings -1");
	/* a small err buffer and NULL are safe */
	struct axl__model m;
	char tiny[4];
	CHECK(axl__model_from_config("{}", 2, "x", &m, tiny, sizeof tiny) == -1 && strlen(tiny) == 3);
	CHECK(axl__model_from_config("{}", 2, NULL, &m, NULL, 0) == -1);
	CHECK(axl__model_from_config(NULL, 0, "x", &m, NULL, 0) == -1);
}

/* Names pasted from the model hub: instruction-tuned and chat releases resolve to their
 * base row (the same architecture), and nothing else does. */
static void variants(void)
{
	static const struct {
		const char *name, *row;
	} yes[] = {
		{"meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.1-70B"},
		{"Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B"},
		{"google/gemma-2-9b-it", "google/gemma-2-9b"},
		{"META-LLAMA/llama-3.1-70b-INSTRUCT", "meta-llama/Llama-3.1-70B"},
		{"https://huggingface.co/google/gemma-2-9b-IT/", "google/gemma-2-9b"},
		{"meta-llama/Llama-2-7b-chat-hf", "meta-llama/Llama-2-7b-hf"},
		{"google/gemma-3-27b-it", "google/gemma-3-27b-pt"},
		{"mistralai/Mistral-7B-Instruct-v0.3", "mistralai/Mistral-7B-v0.3"},
		{"mistralai/Mistral-Small-24B-Instruct-2501", "mistralai/Mistral-Small-24B-Base-2501"},
		{"llama3.1-70b-instruct", "meta-llama/Llama-3.1-70B"},
		{"gemma2-9b-it", "google/gemma-2-9b"},
	};
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		bool v = false;
		const struct axl__catalog_entry *e = axl__catalog_resolve(yes[i].name, &v);
		CHECK(e && strcmp(e->id, yes[i].row) == 0 && v);
		if (!e || strcmp(e->id, yes[i].row) != 0)
			fprintf(stderr, "%s -> %s, want %s\n", yes[i].name, e ? e->id : "(none)", yes[i].row);
		struct axl__model m;
		CHECK(axl__model_from_catalog(yes[i].name, &m) == 0);
		CHECK(strcmp(m.catalog_id, yes[i].row) == 0 && m.alias[0] == 0);
	}
	/* the name as given (without the URL prefix), the row's architecture */
	struct axl__model m, base;
	CHECK(axl__model_from_catalog("https://huggingface.co/Qwen/Qwen2.5-7B-Instruct", &m) == 0);
	CHECK(strcmp(m.id, "Qwen/Qwen2.5-7B-Instruct") == 0);
	axl__catalog_model(axl__catalog_find("Qwen/Qwen2.5-7B"), &base);
	CHECK(m.layers == base.layers && m.hidden == base.hidden && m.vocab == base.vocab && m.params == base.params);
	/* Qwen2.5-7B-Instruct's config.json has max_position_embeddings 32768, the base 131072 */
	CHECK(base.max_context == 131072 && m.max_context == 32768);
	CHECK(axl__model_from_catalog("meta-llama/Llama-3.1-70B-Instruct", &m) == 0);
	CHECK(m.max_context == 131072);
	/* an exact row is no variant */
	bool v = true;
	CHECK(axl__catalog_resolve("meta-llama/Llama-3.3-70B-Instruct", &v) == axl__catalog_find("llama3.3-70b") && !v);
	static const char *const no[] = {
		"meta-llama/Llama-3.1-71B-Instruct",     /* another size */
		"foo/Llama-3.1-70B-Instruct",            /* another org: not the catalog's repo */
		"Llama-3.1-70B-Instruct",                /* no org and no alias */
		"Qwen/Qwen2.5-7B-Instruct-AWQ",          /* another checkpoint format */
		"Qwen/Qwen2.5-7B-Instruct-1M",           /* another context */
		"Qwen/Qwen3-4B-Instruct-2507",           /* a later release, not a row */
		"mistralai/Mistral-7B-Instruct-v0.2",    /* no v0.2 row */
		"mistralai/Mixtral-8x22B-Instruct-v0.1", /* its vocabulary differs from the row's */
		"meta-llama/Llama-3.1-70B-Instructions", /* not the token */
		"meta-llama/Instruct-Llama-3.1-70B",     /* nor at the start */
		"meta-llama/Llama-3.1-70B-Instruct-Instruct",
		"google/gemma-2-9b-it-chat",
		"-instruct", "instruct", "/-it", "",
	};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
		const struct axl__catalog_entry *e = axl__catalog_resolve(no[i], NULL);
		CHECK(e == NULL);
		if (e)
			fprintf(stderr, "%s resolved to %s\n", no[i], e->id);
	}
	CHECK(axl__catalog_resolve(NULL, NULL) == NULL);
	/* every listed variant resolves, to a row of its org */
	for (size_t i = 0; i < axl__catalog_variant_count(); i++) {
		const char *id = axl__catalog_variant_at(i);
		const struct axl__catalog_entry *e = axl__catalog_resolve(id, &v);
		CHECK(e && v && strncmp(e->id, id, (size_t)(strchr(id, '/') - id) + 1) == 0);
		CHECK(axl__catalog_find(id) == NULL);
	}
	CHECK(axl__catalog_variant_at(axl__catalog_variant_count()) == NULL);
	/* what an unknown name is told */
	char hint[400];
	CHECK(axl__catalog_suggest("foo/Llama-3.1-70B-Instruct", hint, sizeof hint) == 1 &&
	      strcmp(hint, "meta-llama/Llama-3.1-70B-Instruct") == 0);
	CHECK(axl__catalog_suggest("meta-llama/Llama-3.1-71B-Instruct", hint, sizeof hint) == 1 &&
	      strstr(hint, "meta-llama/Llama-3.1-70B-Instruct") != NULL);
	CHECK(axl__catalog_suggest("mistralai/Mixtral-8x22B-Instruct-v0.1", hint, sizeof hint) == 2 &&
	      strcmp(hint, "mistralai/Mixtral-8x22B-v0.1") == 0);
	CHECK(axl__catalog_suggest("zzzzzzzzzzzzzzzzzzzz/qqqqqqqqqq", hint, sizeof hint) == 0 && hint[0] == 0);
}

int main(void)
{
	catalog_params();
	kv_cache();
	configs();
	malformed();
	variants();
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}
